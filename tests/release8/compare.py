"""The first difference between a C4.5 tree of dtree and one of Release 8."""

from __future__ import annotations

import math

import numpy as np


def first_difference(node, program, names, classes, path="root", where=None):
    """Where dtree's ``Node`` and the program's tree first differ, or None.

    ``program`` is a tree as :func:`oracle.run_c45` reads it from the
    program's binary tree file (``res["exact"]``), or as stored in
    ``trees.json``.  Compared: the tested attribute, the cut (to float32
    precision: the program stores it as a C float), every branch
    (the program stores a leaf of no cases for each value of a nominal test
    without cases at the node, and so does dtree with
    ``empty_branch="majority"``, keeping its class in ``extra["leaf"]``),
    each leaf's weight and class.  If ``where`` is a list, the dtree node
    and the program's subtree at the first difference are appended to it.
    """
    return _first_difference(node, program, names, classes, path, where)


def _first_difference(node, program, names, classes, path, where):
    message = _difference_here(node, program, names, classes, path)
    if message is not None:
        if where is not None:
            where.append((node, program))
        return message
    if node.is_leaf:
        return None
    if program["kind"] == "threshold":
        labels = ["<=", ">"]
    else:
        labels = [str(c) for c in node.categories]
    for label, child, (_, sub) in zip(labels, node.children, program["branches"]):
        found = _first_difference(child, sub, names, classes,
                                  f"{path}/{names[node.feature]}{label}", where)
        if found:
            return found
    return None


def _difference_here(node, program, names, classes, path):
    """How ``node`` differs from ``program`` at this node (not below), or None."""
    if "branches" not in program:
        if not node.is_leaf:
            return f"{path}: the program has a leaf, dtree tests {names[node.feature]}"
        if not math.isclose(node.value.sum(), program["n"], rel_tol=1e-4, abs_tol=1e-3):
            return f"{path}: leaf weight {node.value.sum()} vs {program['n']}"
        k = node.extra["leaf"] if node.value.sum() == 0 else int(np.argmax(node.value))
        if str(classes[k]) != str(program["class"]):
            return f"{path}: leaf class {classes[k]} vs {program['class']}"
        return None
    if node.is_leaf:
        return f"{path}: the program tests {program['attribute']}, dtree has a leaf"
    if names[node.feature] != program["attribute"]:
        return f"{path}: test {names[node.feature]} vs {program['attribute']}"
    if program["kind"] == "threshold":
        if not math.isclose(node.threshold, program["cut"], rel_tol=1e-6, abs_tol=1e-6):
            return f"{path}: cut {node.threshold} vs {program['cut']}"
    else:
        labels = [str(c) for c in node.categories]
        if labels != [str(label) for label, _ in program["branches"]]:
            return f"{path}: branches {labels} vs {[label for label, _ in program['branches']]}"
    return None
