"""Growing a binary tree: depth-first (level by level) and best-first.

Both growth orders apply the same rules at every node (scikit-learn's):

1. A node is a leaf if its depth is ``max_depth``, it has fewer than
   ``min_samples_split`` or ``2 * min_samples_leaf`` samples, its weight is
   below ``2 * min_weight_leaf``, or its impurity is 0 (below machine epsilon).
2. Otherwise the best split is searched (:mod:`dtree.splitting`); the node
   stays a leaf if there is none, or if its weighted impurity decrease

   .. math:: \\frac{W_t}{W} \\Big( i(t) - \\frac{W_L}{W_t} i(L) - \\frac{W_R}{W_t} i(R) \\Big)

   is below ``min_impurity_decrease``.

Without ``max_leaf_nodes`` the split of a node depends only on its own
samples, so the tree does not depend on the order in which nodes are grown.
:func:`grow_depth_first` therefore grows a whole level at a time (one sorted
sweep per feature and level, whatever the number of nodes) and numbers the
nodes in depth-first pre-order afterwards, left child first, as
scikit-learn's depth-first builder does.  With ``max_leaf_nodes``,
:func:`grow_best_first` repeatedly splits the leaf of largest impurity
decrease (ties: the leaf created first) until the tree has ``max_leaf_nodes``
leaves; nodes are numbered in creation order.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from dtree.criteria import EPSILON
from dtree.splitting import FEATURE_THRESHOLD, best_splits, partition, segment_ids


@dataclass
class GrowthParams:
    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    min_weight_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int | None
    max_features: int | None = None      # None: all features
    splitter: str = "best"


@dataclass
class GrownTree:
    """Node arrays in the final numbering (see :class:`dtree.tree.TreeArrays`)."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    stats: np.ndarray          # (node_count, n_stats) summed criterion statistics
    improvement: np.ndarray    # weighted impurity decrease of each split (0 at leaves)


def _weights(criterion, totals):
    return totals.sum(axis=-1) if criterion.is_classification else totals[..., 0]


def _exclusive_cumsum(sizes):
    return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)


def _improvement(criterion, totals, impurity, left, right, total_weight):
    """Weighted impurity decrease W_t/W (i(t) - W_L/W_t i(L) - W_R/W_t i(R))."""
    w_node = _weights(criterion, totals)
    w_left, w_right = _weights(criterion, left), _weights(criterion, right)
    impurity_left, impurity_right = criterion.impurity(left), criterion.impurity(right)
    with np.errstate(invalid="ignore"):
        return (w_node / total_weight) * (
            impurity - w_right / w_node * impurity_right - w_left / w_node * impurity_left)


def _can_split(params, depth, sizes, weights, impurity):
    return ((depth < params.max_depth)
            & (sizes >= params.min_samples_split)
            & (sizes >= 2 * params.min_samples_leaf)
            & (weights >= 2 * params.min_weight_leaf)
            & (impurity > EPSILON))


def _search_options(Xt, order, starts, sizes, params, rng):
    """Per-segment feature draws (max_features), tie ranks and random thresholds.

    With no random generator the search is exhaustive and ties go to the
    lowest feature index.  Otherwise every segment gets a random priority per
    feature: the ``max_features`` non-constant features of lowest priority are
    searched, ties between equally good splits go to the lower priority, and
    the random splitter draws one threshold per feature uniformly between the
    segment's minimum and maximum (the maximum itself is replaced by the
    minimum, so that both children are non-empty).
    """
    if rng is None:
        return {}
    n_features = Xt.shape[0]
    priority = rng.random((starts.size, n_features))
    last = starts + sizes - 1
    lowest = np.column_stack([Xt[f, order[f, starts]] for f in range(n_features)])
    highest = np.column_stack([Xt[f, order[f, last]] for f in range(n_features)])
    constant = highest <= lowest + FEATURE_THRESHOLD
    options = {"feature_rank": np.argsort(np.argsort(priority, axis=1), axis=1)}
    k = params.max_features or n_features
    if k < n_features:
        drawn = np.argsort(np.where(constant, np.inf, priority), axis=1)[:, :k]
        mask = np.zeros_like(constant)
        np.put_along_axis(mask, drawn, True, axis=1)
        options["feature_mask"] = mask & ~constant
    if params.splitter == "random":
        low, high = lowest.astype(np.float64), highest.astype(np.float64)
        threshold = low + rng.random(low.shape) * (high - low)
        options["thresholds"] = np.where(threshold >= high, low, threshold)
    return options


def _goes_left(order, starts, sizes, feature, n_left, n_samples):
    """Mark the samples that each segment's chosen split sends left."""
    goes_left = np.zeros(n_samples, dtype=bool)
    seg = segment_ids(sizes)
    position = np.arange(order.shape[1]) - starts[seg]
    left = position < n_left[seg]
    samples = order[feature[seg], np.arange(order.shape[1])]
    goes_left[samples[left]] = True
    return goes_left


def grow_depth_first(Xt, stats, criterion, params: GrowthParams, rng=None) -> GrownTree:
    """Grow level by level; return the nodes in depth-first pre-order."""
    n_samples = Xt.shape[1]
    total_weight = _weights(criterion, stats.sum(axis=0))
    order = np.argsort(Xt, axis=1, kind="stable")
    starts = np.array([0], dtype=np.intp)
    sizes = np.array([n_samples], dtype=np.intp)
    totals = stats.sum(axis=0)[None, :]
    depth = 0
    levels = []          # per level: dict of arrays, nodes in creation order
    next_id = 0
    while sizes.size:
        ids = np.arange(next_id, next_id + sizes.size)
        next_id += sizes.size
        impurity = criterion.impurity(totals)
        level = {"ids": ids, "n": sizes.copy(), "stats": totals, "impurity": impurity,
                 "feature": np.full(sizes.size, -2, dtype=np.intp),
                 "threshold": np.full(sizes.size, -2.0),
                 "improvement": np.zeros(sizes.size),
                 "left": np.full(sizes.size, -1, dtype=np.intp),
                 "right": np.full(sizes.size, -1, dtype=np.intp)}
        levels.append(level)
        open_ = _can_split(params, depth, sizes, _weights(criterion, totals), impurity)
        if not open_.any():
            break
        # Keep only the segments that may split.
        if not open_.all():
            order = order[:, np.repeat(open_, sizes)]
        sizes, totals, impurity = sizes[open_], totals[open_], impurity[open_]
        starts = _exclusive_cumsum(sizes)
        found = best_splits(Xt, order, starts, sizes, stats, totals, criterion,
                            min_samples_leaf=params.min_samples_leaf,
                            min_weight_leaf=params.min_weight_leaf,
                            **_search_options(Xt, order, starts, sizes, params, rng))
        gain = _improvement(criterion, totals, impurity, found.left, found.right, total_weight)
        split = (found.feature >= 0) & ~(gain + EPSILON < params.min_impurity_decrease)
        if not split.any():
            break
        where = np.flatnonzero(open_)[split]
        level["feature"][where] = found.feature[split]
        level["threshold"][where] = found.threshold[split]
        level["improvement"][where] = gain[split]
        n_split = int(split.sum())
        children = np.arange(next_id, next_id + 2 * n_split)
        level["left"][where] = children[0::2]
        level["right"][where] = children[1::2]
        # Keep the splitting segments, partition them, and lay out the children
        # left, right, left, right, ... in the order of their parents.
        if not split.all():
            order = order[:, np.repeat(split, sizes)]
        sizes = sizes[split]
        starts = _exclusive_cumsum(sizes)
        n_left = found.n_left[split]
        goes_left = _goes_left(order, starts, sizes, found.feature[split], n_left, n_samples)
        partition(order, starts, sizes, n_left, goes_left)
        sizes = np.column_stack([n_left, sizes - n_left]).ravel()
        starts = _exclusive_cumsum(sizes)
        # Sum each child's statistics afresh rather than as "total - left":
        # the difference leaves rounding residue (a pure child would show a
        # class count of 1e-16 and look impure).
        totals = np.add.reduceat(stats[order[0]], starts, axis=0)
        depth += 1
    return _preorder(levels)


def _preorder(levels) -> GrownTree:
    """Renumber nodes from creation order (level by level) to depth-first pre-order."""
    def cat(key):
        return np.concatenate([level[key] for level in levels])

    left, right = cat("left"), cat("right")
    node_count = left.size
    subtree = np.ones(node_count, dtype=np.intp)
    for level in reversed(levels):
        inner = level["ids"][level["left"] >= 0]
        subtree[inner] += subtree[left[inner]] + subtree[right[inner]]
    pre = np.zeros(node_count, dtype=np.intp)
    for level in levels:
        inner = level["ids"][level["left"] >= 0]
        pre[left[inner]] = pre[inner] + 1
        pre[right[inner]] = pre[inner] + 1 + subtree[left[inner]]

    def placed(values):
        out = np.empty_like(values)
        out[pre] = values
        return out

    children_left = placed(np.where(left >= 0, pre[np.maximum(left, 0)], -1))
    children_right = placed(np.where(right >= 0, pre[np.maximum(right, 0)], -1))
    return GrownTree(children_left=children_left, children_right=children_right,
                     feature=placed(cat("feature")), threshold=placed(cat("threshold")),
                     impurity=placed(cat("impurity")), n_node_samples=placed(cat("n")),
                     stats=placed(cat("stats")), improvement=placed(cat("improvement")))


def grow_best_first(Xt, stats, criterion, params: GrowthParams, rng=None) -> GrownTree:
    """Split the leaf of largest weighted impurity decrease until ``max_leaf_nodes`` leaves."""
    n_samples = Xt.shape[1]
    total_weight = _weights(criterion, stats.sum(axis=0))
    order = np.argsort(Xt, axis=1, kind="stable")
    nodes = []     # creation order: dicts
    heap = []      # (-improvement, node id)

    def add_node(start, size, totals, depth):
        node = {"start": start, "n": size, "stats": totals,
                "impurity": float(criterion.impurity(totals)), "depth": depth,
                "feature": -2, "threshold": -2.0, "improvement": 0.0, "left": -1, "right": -1,
                "split": None}
        node_id = len(nodes)
        nodes.append(node)
        weight = float(_weights(criterion, totals))
        if not _can_split(params, depth, np.array(size), np.array(weight),
                          np.array(node["impurity"])):
            return node_id
        view = order[:, start:start + size]
        one = (np.array([0]), np.array([size]))
        found = best_splits(Xt, view, *one, stats, totals[None, :],
                            criterion, min_samples_leaf=params.min_samples_leaf,
                            min_weight_leaf=params.min_weight_leaf,
                            **_search_options(Xt, view, *one, params, rng))
        if found.feature[0] < 0:
            return node_id
        gain = float(_improvement(criterion, totals[None, :], np.array([node["impurity"]]),
                                  found.left, found.right, total_weight)[0])
        if gain + EPSILON < params.min_impurity_decrease:
            return node_id
        node["split"] = found
        node["gain"] = gain
        heapq.heappush(heap, (-gain, node_id))
        return node_id

    add_node(0, n_samples, stats.sum(axis=0), 0)
    n_splits_left = params.max_leaf_nodes - 1
    while heap and n_splits_left > 0:
        _, node_id = heapq.heappop(heap)
        node = nodes[node_id]
        found = node["split"]
        start, size = node["start"], node["n"]
        view = order[:, start:start + size]
        n_left = found.n_left
        goes_left = _goes_left(view, np.array([0]), np.array([size]), found.feature, n_left,
                               n_samples)
        partition(view, np.array([0]), np.array([size]), n_left, goes_left)
        node.update(feature=int(found.feature[0]), threshold=float(found.threshold[0]),
                    improvement=node["gain"])
        k = int(n_left[0])
        # Fresh sums, not "total - left" (see grow_depth_first).
        node["left"] = add_node(start, k, stats[view[0, :k]].sum(axis=0), node["depth"] + 1)
        node["right"] = add_node(start + k, size - k, stats[view[0, k:]].sum(axis=0),
                                 node["depth"] + 1)
        n_splits_left -= 1

    def col(key, dtype=None):
        return np.array([node[key] for node in nodes], dtype=dtype)

    return GrownTree(children_left=col("left", np.intp), children_right=col("right", np.intp),
                     feature=col("feature", np.intp), threshold=col("threshold", float),
                     impurity=col("impurity", float), n_node_samples=col("n", np.intp),
                     stats=np.array([node["stats"] for node in nodes]),
                     improvement=col("improvement", float))
