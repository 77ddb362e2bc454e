"""Private pieces that several of dtree's modules share.

The one module whose private names other modules import: what two modules
both need and neither owns (the entropy of count vectors, used by ID3, C4.5
and the multiway splits besides :mod:`dtree.information`; the surgery of a
pruned tree; an optional import that names the extra installing it).
"""

from __future__ import annotations

import importlib

import numpy as np

from dtree.tree import Node, iter_nodes


def _entropy_of_counts(counts: np.ndarray, base: float = 2.0) -> np.ndarray:
    """H = -sum_k p_k log p_k along the last axis, with 0 log 0 = 0 (eq. entropy)."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / total, 0.0)
        terms = np.where(p > 0, p * np.log(p), 0.0)
    return -terms.sum(axis=-1) / np.log(base) + 0.0  # + 0.0 turns -0.0 into 0.0


def _class_weights(y_codes, weight, n_classes) -> np.ndarray:
    """Total weight of each class, shape (n_classes,); ``y_codes`` in ``0 .. n_classes - 1``."""
    return np.bincount(y_codes, weights=weight, minlength=n_classes)


def _make_leaf(node: Node) -> None:
    """Turn ``node`` into a leaf in place (its class weights kept): pruning's one edit."""
    node.children = []
    node.categories = ()
    node.feature = None
    node.threshold = None
    node.gain = None


def _renumber(root: Node) -> Node:
    """Number the nodes under ``root`` 0, 1, ... in preorder again, after a pruning; returns ``root``."""
    for node_id, node in enumerate(iter_nodes(root)):
        node.node_id = node_id
    return root


def _import_optional(module: str, caller: str, extra: str = "plot"):
    """Import ``module`` for ``caller``, naming dtree's extra that installs it.

    Parameters
    ----------
    module : str
        The module to import (e.g. ``"matplotlib.pyplot"``).
    caller : str
        The public function that needs it, for the message.
    extra : str, default="plot"
        The extra of dtree that installs the module's package.

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ModuleNotFoundError
        If the package of ``module`` is not installed, with a message naming
        ``caller``, the package and ``pip install 'dtree[<extra>]'``.  A
        module missing *inside* an installed package (a broken install) is
        re-raised unchanged.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        package = module.partition(".")[0]
        if error.name is None or error.name.partition(".")[0] != package:
            raise
        raise ModuleNotFoundError(
            f"{caller} needs {package}, which is not installed: "
            f"pip install 'dtree[{extra}]'",
            name=error.name,
        ) from error
