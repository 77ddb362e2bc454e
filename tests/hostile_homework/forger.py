# base: student
"""Write a forged, deeply nested message on the grading channel, then wait."""
import os
import sys
import time

try:
    os.write(int(sys.argv[2]), b"[" * 200000 + b"\n")
except (OSError, IndexError, ValueError):
    pass
time.sleep(1000)
