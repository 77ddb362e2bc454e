# base: student
"""Hold the grader's pipes open from a detached grandchild, then never finish."""
import subprocess

subprocess.Popen(["sleep", "100000"], start_new_session=True, close_fds=False)
while True:
    pass
