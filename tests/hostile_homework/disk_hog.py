# base: reference
"""Fill every writable folder with a 1 GiB file, then answer honestly."""
import os

for folder in (os.getcwd(), "/tmp", os.path.expanduser("~"), "{submissions}"):
    try:
        with open(os.path.join(folder, "hog.bin"), "wb") as handle:
            for _ in range(1024):
                handle.write(b"\0" * (1 << 20))
    except OSError:
        pass
