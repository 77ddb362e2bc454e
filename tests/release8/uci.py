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

With ``--with-public`` it also compares four public data sets (the golf data
with and without day 12's outlook, Iris, breast cancer) and the first five
random nominal data sets (``data_sets.nominal_data_set``): 17 data sets and
136 pairs of trees, one reading of the "17 data sets" of issues 20 and 43,
whose random data were not recorded.  ``--nominal N`` compares the defaults
on the first N random nominal data sets instead.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

import numpy as np
import pandas as pd

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))

from compare import first_difference  # noqa: E402
from data_sets import SETTINGS, data_sets, nominal_data_set  # noqa: E402
from oracle import run_c45  # noqa: E402

#: The data sets of Release 8's ``Data/`` folder compared here (golf is among the public ones).
UCI = ("crx", "hypo", "labor-neg", "monk1", "monk2", "monk3", "soybean", "vote")


ABOUT = ("dtree's C45Classifier against C4.5 Release 8 (built from source, SHA256SUMS) on the "
         "data sets of the program's Data/ folder, read from their .data files by uci.py (not in "
         "this repository), in the four settings of data_sets.SETTINGS: one record per pair of "
         "trees, with compare.first_difference's answer (null: identical) and, where the trees "
         "part at a test, both attributes' scores as dtree computes them (float64). 'exact tie': "
         "the two scores agree to within 1e-12; the program, in float32, chose the other. "
         "Written by: C45_PROGRAM=... python tests/release8/uci.py --write /path/to/Data")


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


def _cause(model, node, program, names):
    """Why the trees part at ``node``, when it is a tie of the criterion in float64.

    dtree tests one attribute and the program another: their scores at the
    node (gain ratio, or gain with ``-g``) as dtree computes them; a tie
    when they agree to within 1e-12 (relative).
    """
    if node.is_leaf and "attribute" not in program and node.value.sum() > 0:
        classes = [str(c) for c in model.classes_]
        mine, theirs = int(np.argmax(node.value)), classes.index(str(program["class"]))
        if mine != theirs and node.value[mine] == node.value[theirs]:
            return {"cause": "tie of class weights at a leaf: dtree names the first class, "
                             "the program keeps the class the node had"}
    if node.is_leaf or "attribute" not in program or names[node.feature] == program["attribute"]:
        return None
    scores = node.candidate_scores
    ratio = model.criterion == "gain_ratio"
    chosen, other = node.feature, names.index(program["attribute"])
    if other not in scores:
        return None
    value = {j: scores[j].gain / scores[j].split_information if ratio else scores[j].gain
             for j in (chosen, other)}
    criterion = "gain ratio" if ratio else "gain"
    tie = abs(value[chosen] - value[other]) <= 1e-12 * max(1.0, abs(value[chosen]))
    return {"criterion": criterion, "dtree": [names[chosen], value[chosen]],
            "program": [names[other], value[other]],
            "cause": f"exact tie of {criterion}" if tie else None}


def nominal_sets(count):
    """``data_sets.nominal_data_set(seed)`` for seeds 0 .. count - 1."""
    return (nominal_data_set(seed) for seed in range(count))


def compare(sets, settings=SETTINGS):
    """One record per tree pair: data, setting, tree, first difference (None if identical), cause."""
    from dtree import C45Classifier

    records = []
    for name, X, y in sets:
        names = [str(c) for c in X.columns]
        for setting, (options, params) in settings.items():
            program = run_c45(X, y, **options)["exact"]
            model = C45Classifier(**params).fit(X, y)
            for kind, root in (("unpruned", model.unpruned_root_), ("pruned", model.root_)):
                where = []
                found = first_difference(root, program[kind], list(X.columns), model.classes_,
                                         where=where)
                record = {"data": name, "setting": setting, "tree": kind, "first_difference": found}
                if found and kind == "pruned" and records[-1]["first_difference"]:
                    record["cause"] = "pruning sees the unpruned tree that differs"
                elif found:
                    record.update(_cause(model, *where[0], names) or {"cause": None})
                records.append(record)
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", help="Release 8's Data/ folder")
    parser.add_argument("--with-public", action="store_true",
                        help="also four public and five random nominal data sets (17 in all)")
    parser.add_argument("--write", action="store_true",
                        help="write the comparisons to uci_comparison.json (without --with-public)")
    parser.add_argument("--nominal", type=int, metavar="N",
                        help="instead: the first N random nominal data sets, defaults only; "
                             "with --write, the differences to nominal_comparison.json")
    args = parser.parse_args()
    if args.nominal:
        records = compare(nominal_sets(args.nominal), {"defaults": SETTINGS["defaults"]})
        differ = [r for r in records if r["first_difference"] is not None]
        print(f"{len(records) - len(differ)} of {len(records)} identical")
        for r in differ:
            print(f"{r['data']}, {r['tree']} -- {r['first_difference']} -- {r['cause']}")
        if args.write:
            about = (f"dtree's C45Classifier() against C4.5 Release 8 (defaults) on the random "
                     f"nominal data sets data_sets.nominal_data_set(seed), seeds 0 to "
                     f"{args.nominal - 1}, unpruned and pruned: {len(records)} pairs of trees, "
                     f"of which the {len(differ)} that differ are listed, with their cause "
                     f"(see uci_comparison.json). Written by: C45_PROGRAM=... python "
                     f"tests/release8/uci.py --nominal {args.nominal} --write")
            lines = ",\n".join(json.dumps(r, separators=(",", ":")) for r in differ)
            (HERE / "nominal_comparison.json").write_text(
                "{\n" + f'"about":{json.dumps(about)},\n"compared":{len(records)},\n'
                + '"differences":[\n' + lines + "\n]}\n")
        return 0
    sets = []
    if args.with_public:
        sets += [s for s in data_sets() if s[0] in ("golf", "golf, day 12 unknown", "iris",
                                                    "breast cancer")]
        sets += list(nominal_sets(5))
    sets += [(stem, *load(args.folder, stem)) for stem in UCI]
    records = compare(sets)
    for kind in ("unpruned", "pruned"):
        pairs = [r for r in records if r["tree"] == kind]
        same = sum(r["first_difference"] is None for r in pairs)
        print(f"{kind}: {same} of {len(pairs)} identical")
    for r in records:
        if r["first_difference"] is not None:
            print(f"{r['data']}, {r['setting']}, {r['tree']} -- {r['first_difference']} -- {r['cause']}")
    if args.write:
        path = HERE / "uci_comparison.json"
        lines = ",\n".join(json.dumps(r, separators=(",", ":")) for r in records)
        path.write_text("{\n" + f'"about":{json.dumps(ABOUT)},\n"comparisons":[\n' + lines
                        + "\n]}\n")
        print(f"{len(records)} comparisons written to {path}")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
