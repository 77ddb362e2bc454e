"""Write Release 8's trees: trees.json (public data), trees_random.json and empty_branches.json.

The data sets are those of data_sets.py.

Needs the compiled program (README.md says how to build it); run from the
repository root::

    C45_PROGRAM=/path/to/c4.5 python tests/release8/make_trees.py
"""

from __future__ import annotations

import itertools
import json
import pathlib
import sys

import pandas as pd

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))

from data_sets import (  # noqa: E402
    EMPTY_BRANCH_SEEDS,
    SETTINGS,
    data_sets,
    nominal_data_set,
    random_data_sets,
)
from oracle import predict_c45, run_c45  # noqa: E402


def _compact(tree):
    """The stored form: attribute, kind, cut, branches; leaves' class and weight."""
    out = {"class": str(tree["class"]), "n": tree["n"]}
    if "branches" in tree:
        out.update(attribute=tree["attribute"], kind=tree["kind"],
                   branches=[[str(label), _compact(sub)] for label, sub in tree["branches"]])
        if tree["kind"] == "threshold":
            out["cut"] = tree["cut"]
    return out


def write_trees(sets, filename):
    trees = []
    for name, X, y in sets:
        for setting, (options, _) in SETTINGS.items():
            result = run_c45(X, y, **options)
            for kind in ("unpruned", "pruned"):
                trees.append({"data": name, "setting": setting, "tree": kind,
                              "program": _compact(result["exact"][kind])})
    path = HERE / filename
    # One tree per line: small, and a changed tree is a one-line diff.
    lines = ",\n".join(json.dumps(t, separators=(",", ":")) for t in trees)
    path.write_text("[\n" + lines + "\n]\n")
    print(f"{len(trees)} trees written to {path}")


def test_cases(X):
    """Every combination of each feature's values and an unknown value (None), in order."""
    columns = [sorted(set(X[c].dropna())) + [None] for c in X.columns]
    return [list(case) for case in itertools.product(*columns)]


def write_empty_branches(filename="empty_branches.json"):
    """The program's trees and predictions (defaults) on ``EMPTY_BRANCH_SEEDS``."""
    sets = []
    for seed in EMPTY_BRANCH_SEEDS:
        name, X, y = nominal_data_set(seed)
        result = run_c45(X, y)
        cases = test_cases(X)
        predicted = predict_c45(X, y, pd.DataFrame(cases, columns=X.columns))
        sets.append({"data": name, "seed": seed,
                     "unpruned": _compact(result["exact"]["unpruned"]),
                     "pruned": _compact(result["exact"]["pruned"]),
                     "cases": cases, "predicted": [str(c) for c in predicted]})
    path = HERE / filename
    lines = ",\n".join(json.dumps(s, separators=(",", ":")) for s in sets)
    path.write_text("[\n" + lines + "\n]\n")
    print(f"{len(sets)} data sets written to {path}")


def main():
    write_trees(data_sets(), "trees.json")
    write_trees(random_data_sets(), "trees_random.json")
    write_empty_branches()


if __name__ == "__main__":
    main()
