"""dtree's C4.5 against Release 8 on the data sets distributed with the program.

Release 8 ships its test data in ``Data/`` (``crx``, ``golf``, ``hypo``,
``labor-neg``, ``monk1``-``monk3``, ``soybean``, ``vote``: ``.names`` and
``.data`` files in the program's format); they are not in this repository.
This script reads each ``.data`` file into a DataFrame (nominal values as
strings, ``?`` as unknown), runs the program on it through ``oracle.run_c45``
and ``C45Classifier`` with the same settings (``data_sets.SETTINGS``),
and prints the first difference of each tree pair that differs.

Run from the repository root, with the program built as README.md says::

    C45_PROGRAM=/path/to/c4.5 python tests/release8/uci.py /path/to/Data

With ``--with-public`` it also compares the four public data sets of the
issue-20 harness (the golf data with and without day 12's outlook, Iris,
breast cancer) and the first five random data sets of ``data_sets``:
17 data sets, 136 trees, the set the Release 8 agreement of issue 43 counts.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))

from compare import first_difference  # noqa: E402
from data_sets import SETTINGS, data_sets, random_data_sets  # noqa: E402
from oracle import run_c45  # noqa: E402

#: The data sets of Release 8's ``Data/`` folder compared here (golf is among the public ones).
UCI = ("crx", "hypo", "labor-neg", "monk1", "monk2", "monk3", "soybean", "vote")


def _names(text):
    """(classes, [(attribute, "continuous" | "ignore" | "discrete")]) of a ``.names`` file."""
    lines = [" ".join(re.sub(r"\|.*", "", line).split()) for line in text.splitlines()]
    entries = [""]
    for line in filter(None, lines):  # an entry goes on after a line that ends with a comma
        entries[-1] += (" " if entries[-1] else "") + line
        if not line.endswith(","):
            entries[-1] = entries[-1].rstrip(".").strip()
            entries.append("")
    entries = [e for e in entries if e]
    classes = [c.strip() for c in entries[0].split(",")]
    attributes = []
    for entry in entries[1:]:
        name, _, kind = entry.partition(":")
        kind = kind.strip()
        attributes.append((name.strip(), kind if kind in ("continuous", "ignore") else "discrete"))
    return classes, attributes


def load(folder, stem):
    """``(X, y)`` of ``stem.data`` in ``folder``; ignored attributes dropped."""
    folder = pathlib.Path(folder)
    classes, attributes = _names((folder / f"{stem}.names").read_text())
    lines = [re.sub(r"\|.*", "", line).strip() for line in
             (folder / f"{stem}.data").read_text().splitlines()]
    rows = [[v.strip() for v in line.split(",")] for line in lines if line]
    frame = pd.DataFrame(rows, columns=[a for a, _ in attributes] + ["class"])
    y = frame.pop("class").str.rstrip(".")
    X = pd.DataFrame(index=frame.index)
    for name, kind in attributes:
        column = frame[name].where(frame[name] != "?", None)
        if kind == "continuous":
            X[name] = column.astype(float)
        elif kind == "discrete":
            X[name] = column.astype(object)
    return X, y


def compare(sets):
    """``{(name, setting, tree): first difference or None}`` for every tree pair."""
    from dtree import C45Classifier

    found = {}
    for name, X, y in sets:
        for setting, (options, params) in SETTINGS.items():
            program = run_c45(X, y, **options)["exact"]
            model = C45Classifier(**params).fit(X, y)
            for kind, root in (("unpruned", model.unpruned_root_), ("pruned", model.root_)):
                found[name, setting, kind] = first_difference(root, program[kind], list(X.columns),
                                                              model.classes_)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", help="Release 8's Data/ folder")
    parser.add_argument("--with-public", action="store_true",
                        help="also the public and random data sets (17 data sets in all)")
    args = parser.parse_args()
    sets = []
    if args.with_public:
        sets += [s for s in data_sets() if s[0] in ("golf", "golf, day 12 unknown", "iris",
                                                    "breast cancer")]
        sets += list(random_data_sets())[:5]
    sets += [(stem, *load(args.folder, stem)) for stem in UCI]
    found = compare(sets)
    for kind in ("unpruned", "pruned"):
        pairs = {k: v for k, v in found.items() if k[2] == kind}
        print(f"{kind}: {sum(v is None for v in pairs.values())} of {len(pairs)} identical")
    for key, difference in found.items():
        if difference is not None:
            print(", ".join(key), "--", difference)
    return 0 if all(v is None for v in found.values()) else 1


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
