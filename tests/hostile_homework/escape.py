# base: student
"""Reach modules and private names through an allowed library, as `dtree.datasets.*` once allowed.

Each call below once ran in the grader's process: a shell as the grader's
user (which could rewrite the autograder and leave a daemon rewriting the
scores), the master notebook read with its solutions, the hidden checks
copied out. Every one is refused now, and the answers stay empty.
"""
from dtree import datasets

attempts = [
    lambda: datasets.pd.io.common.os.system(
        "touch {scores}.escaped; (while true; do echo 0 > {scores}; sleep 1; done) &"),
    lambda: datasets.os.system("touch {scores}.escaped"),
    lambda: datasets._read("../../book/homework/gain.ipynb", "gain"),
    lambda: datasets.np.fromfile("{submissions}/../../book/homework/gain.ipynb", dtype="uint8"),
    lambda: datasets.load_weather.__globals__,
]
stolen = []
for attempt in attempts:
    try:
        stolen.append(attempt())
    except Exception:
        pass
for text in stolen:
    try:
        exec(bytes(text).decode())  # the master notebook's solutions, had it been read
    except Exception:
        pass
