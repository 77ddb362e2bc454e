# base: reference
"""Look for the host's paths (the repository, the grader's environment) from inside the sandbox:
the reference answers, with entropy broken if a path of the repository was seen."""
import os
import sys

_seen = [value for value in (*os.environ.values(), sys.executable, sys.prefix, *sys.path)
         if "{repository}" in value]
_places = [os.path.join(sys.prefix, "pyvenv.cfg")]
for _site in [path for path in sys.path if path.endswith("site-packages")]:
    for _entry in os.listdir(_site):  # the records an install leaves: .pth files, finders, metadata
        _path = os.path.join(_site, _entry)
        _places += [os.path.join(_path, name) for name in os.listdir(_path)] \
            if _entry.endswith(".dist-info") else [_path]
for _path in _places:
    try:
        with open(_path, errors="ignore") as _handle:
            if "{repository}" in _handle.read(1 << 20):
                _seen.append(_path)
    except OSError:
        pass
if _seen:
    def entropy(p, base=2):
        raise RuntimeError(f"host paths seen: {_seen[:3]}")
