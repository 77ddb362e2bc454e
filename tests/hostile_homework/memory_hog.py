# base: reference
"""Take all the memory it can, then answer honestly."""
hog = []
try:
    while True:
        hog.append(bytearray(256 << 20))
except MemoryError:
    pass
