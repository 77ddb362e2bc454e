"""The fitted tree as readable node objects.

A node stores what it learned from the training samples that reached it
(their number, their weighted class counts, their impurity) and, if it is an
internal node, the test it applies and its children.  A multiway node on a
categorical feature has one child per category; ``categories[i]`` leads to
``children[i]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

__all__ = ["Node", "iter_nodes"]


@dataclass(eq=False)
class Node:
    """One node of a fitted tree.

    Attributes
    ----------
    node_id : int
        Position in pre-order (the root is 0).
    depth : int
        Number of edges from the root.
    n_samples : int
        Number of training samples that reached the node.
    value : ndarray of shape (n_classes,)
        Weighted class counts of those samples (counts when unweighted).
    impurity : float
        The criterion's impurity of the node (entropy in bits for ID3).
    feature : int or None
        Index of the feature the node tests; ``None`` for a leaf.
    categories : tuple
        Multiway test: the category that leads to each child.
    children : list of Node
        The children, in the order of ``categories``.
    gain : float or None
        The criterion's score of the chosen test (information gain in bits
        for ID3); ``None`` for a leaf.
    candidate_scores : dict
        The score of every feature that competed at this node, by feature
        index (empty when no feature could split the node).
    """

    node_id: int
    depth: int
    n_samples: int
    value: np.ndarray
    impurity: float
    feature: int | None = None
    categories: tuple = ()
    children: list["Node"] = field(default_factory=list)
    gain: float | None = None
    candidate_scores: dict = field(default_factory=dict)

    @property
    def is_leaf(self) -> bool:
        """True if the node has no children."""
        return not self.children

    @property
    def weighted_n_samples(self) -> float:
        """Total weight of the training samples at the node."""
        return float(self.value.sum())

    @property
    def proba(self) -> np.ndarray:
        """Class fractions at the node, of shape (n_classes,)."""
        return self.value / self.value.sum()

    def __repr__(self) -> str:
        kind = "Leaf" if self.is_leaf else f"Split(feature={self.feature}, {len(self.children)} branches)"
        return f"Node({self.node_id}, {kind}, n_samples={self.n_samples})"


def iter_nodes(root: Node) -> Iterator[Node]:
    """Yield every node of the tree below ``root`` (inclusive) in pre-order."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))
