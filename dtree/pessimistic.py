r"""Pessimistic pruning: judging a subtree by its training errors, corrected.

Both rules here prune a tree with nothing but the data it was grown on.  The
training errors of a node are too optimistic (the tree was fitted to them),
so each rule inflates them before comparing a node with its subtree:

* **Pessimistic error pruning** (Quinlan 1987) adds 1/2 per leaf (a
  continuity correction) and prunes a subtree when the corrected errors of the
  node as a leaf are at most those of the subtree plus one standard error.
* **Error-based pruning** (C4.5; Quinlan 1993, ch. 4) replaces the errors
  :math:`E` among :math:`N` cases of a leaf by :math:`N\,U_{CF}(E, N)`, the
  upper limit of a one-sided binomial confidence interval at level
  :math:`1 - CF` (``CF`` is the confidence factor), and prunes when the node as a leaf is predicted to make no
  more errors than its subtree.

The functions work on :class:`dtree.tree.Node` trees whose ``value`` holds the
(weighted) training class counts of each node.  They return a pruned copy and
never change the tree they are given.

:func:`confidence_prune` is the rule of Quinlan's book text, which
``C45Classifier(**TEXTBOOK)`` runs.  The error-based pruning that
:class:`dtree.C45Classifier` does by default is C4.5 Release 8's, implemented
in :mod:`dtree.c45` with :func:`added_errors` (the program's normal
approximation): it sends the training cases down the tree again, may replace
a node by its largest branch (subtree raising), and accepts a replacement
that predicts up to 0.1 more errors.
"""

from __future__ import annotations

import copy
import math

from dtree._helpers import _make_leaf, _renumber
from dtree.tree import Node, iter_nodes

__all__ = [
    "added_errors",
    "leaf_errors",
    "upper_error_rate",
    "pessimistic_prune",
    "confidence_prune",
]


def leaf_errors(node: Node) -> float:
    r"""Training errors of ``node`` if it were a leaf: :math:`E(t) = N(t) - \max_k n_k(t)`.

    Parameters
    ----------
    node : Node
        A node whose ``value`` holds its (weighted) class counts.

    Returns
    -------
    float
        The weight of the node's samples outside its majority class.

    Examples
    --------
    >>> import numpy as np
    >>> from dtree.tree import Node
    >>> leaf_errors(Node(node_id=0, depth=0, n_samples=16, value=np.array([15.0, 1.0]),
    ...                  impurity=0.0))
    1.0
    """
    return float(node.value.sum() - node.value.max())


def upper_error_rate(errors, n, confidence_factor=0.25) -> float:
    r"""C4.5's pessimistic error rate :math:`U_{CF}(E, N)`.

    The upper limit of the one-sided :math:`1 - CF` confidence interval for
    the error probability :math:`p` of a leaf that misclassified :math:`E` of
    its :math:`N` training cases: the :math:`p` at which seeing at most
    :math:`E` errors has probability :math:`CF`,

    .. math:: \sum_{i=0}^{E} \binom{N}{i} p^i (1 - p)^{N - i} = CF,

    computed exactly (the Clopper--Pearson bound) as the :math:`1 - CF`
    quantile of the Beta(:math:`E + 1`, :math:`N - E`) distribution, which
    also serves fractional (weighted) :math:`E` and :math:`N`.  For
    :math:`E = 0` this is :math:`1 - CF^{1/N}`.

    Parameters
    ----------
    errors : float
        :math:`E \ge 0`, the (weighted) training errors of the leaf.
    n : float
        :math:`N > 0`, the (weighted) number of training cases at the leaf.
    confidence_factor : float, default=0.25
        :math:`CF` in (0, 1); C4.5's default is 0.25.  Smaller values give
        larger estimates and so prune more.

    Returns
    -------
    float
        :math:`U_{CF}(E, N)` in [0, 1]; 1 when :math:`E \ge N`.

    Raises
    ------
    ValueError
        If ``n`` is not positive, ``errors`` is negative or larger than
        ``n``, or ``confidence_factor`` is not in (0, 1).

    Notes
    -----
    C4.5's program computes the bound with approximations (a normal
    approximation with a continuity correction for :math:`E \ge 1`), so its
    figures can differ from these exact ones in the second or third decimal
    (:math:`U_{25\%}(3, 5)`: 0.819 against 0.806): for
    :math:`E = 0` they agree, but Quinlan's book prints
    :math:`U_{25\%}(1, 16) = 0.157` where the exact bound is 0.160.

    References
    ----------
    J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann
    (1993), ch. 4.

    Examples
    --------
    Quinlan's figures for CF = 25 %: :math:`U(0, 6) = 0.206`,
    :math:`U(0, 9) = 0.143`, :math:`U(0, 1) = 0.750`; with one error in 16
    cases the exact bound is 0.160 (the book's 0.157 is approximate):

    >>> [round(upper_error_rate(0, n), 3) for n in (6, 9, 1)]
    [0.206, 0.143, 0.75]
    >>> round(upper_error_rate(1, 16), 3)
    0.16
    """
    errors, n, cf = float(errors), float(n), float(confidence_factor)
    if not n > 0 or not math.isfinite(n):
        raise ValueError(f"n must be a positive number of cases, got {n!r}")
    if not 0 <= errors <= n:
        raise ValueError(f"errors must lie in [0, n] = [0, {n}], got {errors!r}")
    if not 0 < cf < 1:
        raise ValueError(f"confidence_factor must lie in (0, 1), got {confidence_factor!r}")
    if errors >= n:
        return 1.0
    if errors == 0:
        return 1.0 - cf ** (1.0 / n)  # (1 - p)^N = CF
    from scipy.special import betaincinv  # scipy is imported only when needed

    return float(betaincinv(errors + 1.0, n - errors, 1.0 - cf))


def _leaves(node: Node):
    """The leaves below ``node`` that hold cases.

    A leaf of no cases (C4.5 Release 8's empty branch, a value with no
    training case at its parent) makes no errors and predicts none: the
    program's pruner leaves it out (``EstimateErrors`` in ``prune.c`` visits
    only branches that cases reach), and so do the rules here.
    """
    return [leaf for leaf in iter_nodes(node) if leaf.is_leaf and leaf.value.sum() > 0]


def pessimistic_prune(root: Node) -> Node:
    r"""Quinlan's pessimistic error pruning (0.5 continuity correction, one-SE rule).

    Visiting the nodes from the root down, an internal node :math:`t` with
    :math:`N(t)` training cases is replaced by a leaf when

    .. math::

        E(t) + \tfrac12 \;\le\; E'(T_t) + \mathrm{SE}, \qquad
        E'(T_t) = \sum_{\ell \in \text{leaves}(T_t)} \bigl(E(\ell) + \tfrac12\bigr), \qquad
        \mathrm{SE} = \sqrt{\frac{E'(T_t)\,\bigl(N(t) - E'(T_t)\bigr)}{N(t)}},

    where :math:`E` counts training errors (:func:`leaf_errors`): the node's
    corrected errors as a leaf are within one standard error of its
    subtree's.  A pruned node's descendants are not visited.

    Parameters
    ----------
    root : Node
        A fitted tree whose nodes' ``value`` hold training class counts.

    Returns
    -------
    Node
        A pruned deep copy, renumbered in pre-order.  ``root`` is unchanged.

    References
    ----------
    J. R. Quinlan, "Simplifying decision trees", *International Journal of
    Man-Machine Studies* 27 (1987), 221-234, section 2.3.

    Examples
    --------
    A node with 20 cases, 7 of them errors as a leaf, whose two leaves make
    1 and 4 errors: :math:`E'(T_t) = 1.5 + 4.5 = 6`,
    :math:`\mathrm{SE} = \sqrt{6 \cdot 14 / 20} \approx 2.05`, and
    :math:`7.5 \le 8.05`, so the subtree goes.

    >>> import numpy as np
    >>> from dtree.tree import Node
    >>> leaf1 = Node(node_id=1, depth=1, n_samples=10, value=np.array([9.0, 1.0]), impurity=0.0)
    >>> leaf2 = Node(node_id=2, depth=1, n_samples=10, value=np.array([4.0, 6.0]), impurity=0.0)
    >>> root = Node(node_id=0, depth=0, n_samples=20, value=np.array([13.0, 7.0]), impurity=0.0,
    ...             feature=0, threshold=0.5, children=[leaf1, leaf2])
    >>> pessimistic_prune(root).is_leaf
    True
    """
    pruned = copy.deepcopy(root)
    stack = [pruned]
    while stack:
        node = stack.pop()
        if node.is_leaf:
            continue
        n = node.value.sum()
        as_leaf = leaf_errors(node) + 0.5
        subtree = sum(leaf_errors(leaf) + 0.5 for leaf in _leaves(node))
        se = math.sqrt(max(subtree * (n - subtree), 0.0) / n)
        if as_leaf <= subtree + se:
            _make_leaf(node)
        else:
            stack.extend(reversed(node.children))
    return _renumber(pruned)


def _predicted_errors(node: Node, confidence_factor: float) -> float:
    """N * U_CF(E, N): the errors C4.5 predicts for ``node`` as a leaf."""
    n = float(node.value.sum())
    return n * upper_error_rate(leaf_errors(node), n, confidence_factor)


def confidence_prune(root: Node, confidence_factor: float = 0.25) -> Node:
    r"""C4.5's error-based pruning: replace a subtree by a leaf when that predicts no more errors.

    From the leaves up, a leaf's predicted errors are :math:`N\,U_{CF}(E, N)`
    (:func:`upper_error_rate`), a subtree's are the sum over its branches of
    their (already pruned) predicted errors, and an internal node becomes a
    leaf when its own predicted errors as a leaf are at most its subtree's.

    Parameters
    ----------
    root : Node
        A fitted tree whose nodes' ``value`` hold training class counts.
    confidence_factor : float, default=0.25
        :math:`CF` in (0, 1).

    Returns
    -------
    Node
        A pruned deep copy, renumbered in pre-order.  ``root`` is unchanged.

    Notes
    -----
    The rule here is the error-based pruning algorithm of the book's C4.5
    chapter: leaf replacement only, no slack.  Quinlan's book (1993, ch. 4)
    and program also consider replacing a node by its most used branch
    ("subtree raising"), and the program accepts a replacement up to 0.1
    predicted errors worse; :class:`dtree.C45Classifier` does both by default
    (``subtree_raising``, ``pruning_slack``).

    References
    ----------
    J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann
    (1993), ch. 4.

    Examples
    --------
    Quinlan's example: three leaves with 6, 9 and 1 cases and no errors
    predict :math:`6 \cdot 0.206 + 9 \cdot 0.143 + 1 \cdot 0.750 = 3.273`
    errors; their parent as a leaf (16 cases, 1 error) predicts
    :math:`16 \cdot 0.160 = 2.554` (the book: 2.512), so the subtree is
    pruned.

    >>> import numpy as np
    >>> from dtree.tree import Node
    >>> leaves = [Node(node_id=i + 1, depth=1, n_samples=n, value=np.array(v), impurity=0.0)
    ...           for i, (n, v) in enumerate([(6, [6.0, 0.0]), (9, [9.0, 0.0]), (1, [0.0, 1.0])])]
    >>> root = Node(node_id=0, depth=0, n_samples=16, value=np.array([15.0, 1.0]), impurity=0.0,
    ...             feature=0, categories=("a", "b", "c"), children=leaves)
    >>> confidence_prune(root).is_leaf
    True
    """
    upper_error_rate(0.0, 1.0, confidence_factor)  # validates confidence_factor
    pruned = copy.deepcopy(root)

    def prune(node: Node) -> float:
        """Prune below ``node`` (post-order) and return the predicted errors of what is left."""
        if node.is_leaf and not node.value.sum() > 0:
            return 0.0  # a leaf of no cases (Release 8's empty branch) makes no errors
        as_leaf = _predicted_errors(node, confidence_factor)
        if node.is_leaf:
            return as_leaf
        subtree = sum(prune(child) for child in node.children)
        if as_leaf <= subtree:
            _make_leaf(node)
            return as_leaf
        return subtree

    # Recursion depth is bounded by the tree depth, which the grower bounds by
    # the number of distinct training rows; trees deeper than Python's limit
    # would need an explicit stack.
    prune(pruned)
    return _renumber(pruned)


# C4.5's table of the standard normal deviate z against the one-sided tail
# probability CF (stats.c of Release 8): AddErrs interpolates z linearly in it.
_CF_TABLE = (0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00)
_Z_TABLE = (4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00)


def added_errors(n, errors, confidence_factor=0.25) -> float:
    r"""C4.5 Release 8's extra errors of a leaf, :math:`N\,U_{CF}(E, N) - E`, by its normal approximation.

    The program (``AddErrs`` in ``stats.c``) does not invert the binomial
    exactly as :func:`upper_error_rate` does. With :math:`z` read off a table
    of the normal deviate (linear interpolation in :math:`CF`) it returns

    * :math:`N (1 - CF^{1/N})` for :math:`E < 10^{-6}` (the exact bound);
    * for :math:`E < 0.9999`, the linear interpolation in :math:`E` between
      that value and the one for :math:`E = 1`;
    * :math:`0.67 (N - E)` when :math:`E + 0.5 \ge N`;
    * otherwise :math:`N p - E` with the upper limit of the Wilson score
      interval with continuity correction,

      .. math:: p = \frac{E + \tfrac12 + \tfrac{z^2}{2}
                + z \sqrt{(E + \tfrac12)\bigl(1 - \tfrac{E + 1/2}{N}\bigr) + \tfrac{z^2}{4}}}{N + z^2}.

    Parameters
    ----------
    n : float
        :math:`N \ge 0`, the (weighted) number of training cases at the leaf.
    errors : float
        :math:`E`, its (weighted) training errors, :math:`0 \le E \le N`.
    confidence_factor : float, default=0.25
        :math:`CF` in (0, 1).

    Returns
    -------
    float
        The predicted errors beyond :math:`E`; 0 when :math:`N = 0`.

    Raises
    ------
    ValueError
        If ``confidence_factor`` is not in (0, 1), ``n`` is negative or not
        finite, or ``errors`` is outside [0, n].

    References
    ----------
    J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann
    (1993), ch. 4, and the program's ``stats.c`` (Release 8, 1996).

    Examples
    --------
    For :math:`E = 0` it is the exact bound; for one error in 16 cases the
    approximation gives 1.51 extra errors where the exact bound gives 1.55;
    Quinlan's book prints :math:`U_{25\%}(1, 16) = (1 + 1.51) / 16 = 0.157`:

    >>> round(added_errors(6, 0), 3), round(6 * upper_error_rate(0, 6), 3)
    (1.238, 1.238)
    >>> round(added_errors(16, 1), 2), round(16 * upper_error_rate(1, 16) - 1, 2)
    (1.51, 1.55)
    """
    n, errors, cf = float(n), float(errors), float(confidence_factor)
    if not 0 < cf < 1:
        raise ValueError(f"confidence_factor must lie in (0, 1), got {confidence_factor!r}")
    if not (n >= 0 and math.isfinite(n)):
        raise ValueError(f"n must be a finite number of cases >= 0, got {n!r}")
    if not -1e-9 <= errors <= n + 1e-9:
        raise ValueError(f"errors must lie in [0, n] = [0, {n}], got {errors!r}")
    if n == 0:
        return 0.0
    i = next(k for k, level in enumerate(_CF_TABLE) if cf <= level)
    z = _Z_TABLE[i - 1] + (_Z_TABLE[i] - _Z_TABLE[i - 1]) * (cf - _CF_TABLE[i - 1]) / (
        _CF_TABLE[i] - _CF_TABLE[i - 1])
    return _added_errors(n, errors, cf, z * z)


def _added_errors(n, errors, cf, coeff):
    """AddErrs of stats.c (no argument checks: the E = 1 case is also used for N < 1)."""
    if errors < 1e-6:
        return n * (1 - math.exp(math.log(cf) / n))  # N (1 - CF^(1/N))
    if errors < 0.9999:
        base = n * (1 - math.exp(math.log(cf) / n))
        return base + errors * (_added_errors(n, 1.0, cf, coeff) - base)
    if errors + 0.5 >= n:
        return 0.67 * (n - errors)
    e = errors + 0.5  # continuity correction
    p = (e + coeff / 2 + math.sqrt(coeff * (e * (1 - e / n) + coeff / 4))) / (n + coeff)
    return n * p - errors
