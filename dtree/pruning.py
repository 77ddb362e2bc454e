r"""Minimal cost-complexity (weakest-link) pruning of a binary tree.

The cost-complexity of a tree :math:`T` is
:math:`R_\alpha(T) = R(T) + \alpha |\tilde T|`, where :math:`R(T)` sums the
weighted impurity :math:`r(t) = \frac{W_t}{W} i(t)` of its leaves and
:math:`|\tilde T|` counts them.  Collapsing the branch :math:`T_t` rooted at an
internal node :math:`t` into a leaf does not increase :math:`R_\alpha` exactly
when

.. math:: g(t) = \frac{r(t) - R(T_t)}{|\tilde T_t| - 1} \le \alpha .

Weakest-link pruning (Breiman et al. 1984, section 3.3) repeatedly collapses
the branch of smallest :math:`g(t)` (ties: the smallest node id), recording
the effective alpha :math:`g(t)` and the new :math:`R(T)` after each step;
pruning with a given ``ccp_alpha`` stops before the first effective alpha
that exceeds it.  The pruned tree is renumbered in depth-first pre-order.

The effective alphas never decrease.  If :math:`t^*` of smallest
:math:`g(t^*) = \alpha_k` is collapsed, removing :math:`\Delta L` leaves, a
branch that does not contain :math:`t^*` keeps its :math:`g`, and a branch
:math:`T_s` containing it has :math:`R(T_s)` raised by :math:`\alpha_k \Delta L`
and :math:`\Delta L` fewer leaves; from :math:`r(s) - R(T_s) \ge \alpha_k
(|\tilde T_s| - 1)` its new value is

.. math:: \frac{r(s) - R(T_s) - \alpha_k \Delta L}{|\tilde T_s| - 1 - \Delta L}
          \ge \alpha_k .

In floating point a step's minimum can round an ulp below the previous
alpha (two equal alphas in a row); it is then taken as equal to it, so that
the path is non-decreasing and a larger ``ccp_alpha`` never leaves more
leaves.
"""

from __future__ import annotations

import numpy as np

from dtree.tree import TreeArrays

__all__ = ["cost_complexity_path", "distinct_alphas", "prune_to_alpha"]


def _weakest_link_sequence(tree: TreeArrays, alpha_limit=np.inf):
    """Prune step by step; return (alphas, impurities, leaf mask of the final subtree)."""
    left, right = tree.children_left, tree.children_right
    n = left.size
    parent = np.full(n, -1, dtype=np.intp)
    inner = np.flatnonzero(left >= 0)
    parent[left[inner]] = inner
    parent[right[inner]] = inner
    r_node = tree.weighted_n_node_samples / tree.weighted_n_node_samples[0] * tree.impurity
    # Bottom-up (children have larger ids than parents): branch cost and leaf count.
    r_branch = np.where(left < 0, r_node, 0.0)
    n_leaves = (left < 0).astype(np.intp)
    for node in inner[::-1]:
        r_branch[node] = r_branch[left[node]] + r_branch[right[node]]
        n_leaves[node] = n_leaves[left[node]] + n_leaves[right[node]]
    candidate = left >= 0
    is_leaf = left < 0
    alphas, impurities = [0.0], [r_branch[0]]
    while candidate[0]:
        nodes = np.flatnonzero(candidate)
        g = (r_node[nodes] - r_branch[nodes]) / (n_leaves[nodes] - 1)
        weakest = nodes[np.argmin(g)]  # first (smallest id) on ties
        # No g falls below the last alpha in exact arithmetic (module docstring);
        # a rounding step below it is that alpha, so the path never decreases.
        effective_alpha = max(float(g.min()), alphas[-1])
        if effective_alpha > alpha_limit:
            break
        # Collapse the branch: its descendants leave the tree.
        stack = [weakest]
        while stack:
            node = stack.pop()
            candidate[node] = False
            is_leaf[node] = False
            if left[node] >= 0:
                stack.extend((left[node], right[node]))
        is_leaf[weakest] = True
        removed_leaves = n_leaves[weakest] - 1
        r_diff = r_node[weakest] - r_branch[weakest]
        n_leaves[weakest] = 1
        r_branch[weakest] = r_node[weakest]
        node = parent[weakest]
        while node >= 0:
            n_leaves[node] -= removed_leaves
            r_branch[node] += r_diff
            node = parent[node]
        alphas.append(effective_alpha)
        impurities.append(r_branch[0])
    return np.array(alphas), np.array(impurities), is_leaf


def cost_complexity_path(tree: TreeArrays):
    """Effective alphas and total leaf impurity along the weakest-link sequence.

    Parameters
    ----------
    tree : TreeArrays
        A fitted tree.

    Returns
    -------
    ccp_alphas : ndarray of shape (n_steps,)
        0, then the effective alpha :math:`g(t)` of each pruning step.
    impurities : ndarray of shape (n_steps,)
        :math:`R(T)` of the tree before the first step and after each step.
    """
    alphas, impurities, _ = _weakest_link_sequence(tree)
    return alphas, impurities


def prune_to_alpha(tree: TreeArrays, ccp_alpha: float) -> TreeArrays:
    """The subtree left by pruning every weakest link of effective alpha <= ``ccp_alpha``.

    Parameters
    ----------
    tree : TreeArrays
        A fitted tree.
    ccp_alpha : float
        The complexity parameter :math:`\\alpha \\ge 0`.

    Returns
    -------
    TreeArrays
        The pruned tree, its nodes renumbered in depth-first pre-order (left
        child first); every array of :data:`dtree.tree.NODE_FIELDS` is carried
        over (:meth:`dtree.tree.TreeArrays.subtree`).
    """
    _, _, is_leaf = _weakest_link_sequence(tree, alpha_limit=ccp_alpha)
    left, right = tree.children_left, tree.children_right
    # Walk the kept tree in pre-order (left first) to renumber it.
    old_ids, stack = [], [0]
    while stack:
        node = stack.pop()
        old_ids.append(node)
        if not is_leaf[node]:
            stack.extend((right[node], left[node]))
    old_ids = np.array(old_ids)
    return tree.subtree(old_ids, cut=is_leaf[old_ids])


def distinct_alphas(ccp_alphas, rtol: float = 1e-9) -> np.ndarray:
    r"""The distinct values of a pruning path's effective alphas.

    Two weakest links of equal :math:`g(t)` in exact arithmetic can come out
    of floating point an ulp or two apart, and a path then lists one alpha
    twice, once per collapsed branch; :math:`T(\alpha)` changes only at the
    distinct values.

    Parameters
    ----------
    ccp_alphas : array_like of shape (n_steps,)
        Effective alphas, e.g. ``cost_complexity_pruning_path(X, y).ccp_alphas``
        of a dtree or scikit-learn tree.
    rtol : float, default=1e-9
        In sorted order, a value within ``rtol`` (relative) of the value
        before it is taken as equal to it (so a chain of such steps is one
        value).

    Returns
    -------
    ndarray of shape (n_distinct,)
        The sorted distinct alphas; the first is the smallest.

    Raises
    ------
    ValueError
        If ``ccp_alphas`` is empty or not one-dimensional, or holds NaN, or
        ``rtol`` is negative.

    Examples
    --------
    >>> distinct_alphas([0.0, 0.01, 0.01 * (1 + 1e-15), 0.05])
    array([0.  , 0.01, 0.05])
    """
    alphas = np.sort(np.asarray(ccp_alphas, dtype=float))
    if alphas.ndim != 1 or alphas.size == 0 or np.isnan(alphas).any():
        raise ValueError("ccp_alphas must be a non-empty 1-D array of numbers, "
                         f"got {np.asarray(ccp_alphas)!r}")
    if not rtol >= 0:
        raise ValueError(f"rtol must be a non-negative number, got {rtol!r}")
    # keep alpha_k when it exceeds alpha_{k-1} by more than rtol * alpha_k
    return alphas[np.r_[True, np.diff(alphas) > rtol * np.abs(alphas[1:])]]
