r"""Quantities read off a fitted tree: impurity decreases, depths, leaf impurity, equality.

The functions take a fitted binary tree in scikit-learn's array form: a
fitted :class:`~dtree.DecisionTreeClassifier` or
:class:`~dtree.DecisionTreeRegressor`, a scikit-learn
``DecisionTreeClassifier`` or ``DecisionTreeRegressor``, or the ``tree_`` of
either (anything with the arrays ``children_left``, ``children_right``,
``impurity`` and ``weighted_n_node_samples``).  :func:`same_tree` and
:func:`node_depths` also take the node trees of ID3 and C4.5.

With :math:`W_t` the weighted number of training samples at node :math:`t`,
:math:`W` that of the root, :math:`i(t)` the node's impurity and
:math:`R(t) = \frac{W_t}{W} i(t)` its weighted impurity, the book names two
decreases (chapter "Impurity"; notation page):

* the *impurity decrease* of the split at :math:`t` into :math:`t_L, t_R`,
  :math:`\Delta i(t) = i(t) - \frac{W_L}{W_t} i(t_L) - \frac{W_R}{W_t} i(t_R)`
  (Breiman et al. 1984, section 2.3; for entropy it is the weighted gain;
  :func:`impurity_decreases`);
* the *weighted impurity decrease*
  :math:`\Delta R(t) = R(t) - R(t_L) - R(t_R) = \frac{W_t}{W}\,\Delta i(t)`,
  which scikit-learn's ``min_impurity_decrease`` bounds and whose sums by
  feature are the mean-decrease-in-impurity importances
  (``impurity_decreases(tree, weighted=True)``, or
  :func:`weighted_impurity_decrease`).

The leaves' impurity :math:`R(T) = \sum_{t \text{ leaf}} R(t)`
(:func:`leaf_impurity`) is the cost that cost-complexity pruning trades
against the number of leaves (Breiman et al. 1984, section 3.3); the
decreases telescope: :math:`R(T) = R(\text{root}) - \sum_t \Delta R(t)`.
"""

from __future__ import annotations

import numpy as np

from dtree.tree import Node

__all__ = ["impurity_decreases", "leaf_impurity", "node_depths", "same_tree",
           "weighted_impurity_decrease"]

_ARRAYS = ("children_left", "children_right", "impurity", "weighted_n_node_samples")


def _tree_arrays(tree, name: str):
    arrays = getattr(tree, "tree_", tree)
    if not all(hasattr(arrays, a) for a in _ARRAYS):
        raise TypeError(
            f"{name} must be a fitted binary tree (a CART estimator of dtree or scikit-learn, "
            f"or its tree_), got {type(tree).__name__}")
    return arrays


def impurity_decreases(tree, *, weighted: bool = False) -> np.ndarray:
    r"""Impurity decrease of every node, :math:`\Delta i(t)` or (``weighted``) :math:`\Delta R(t)`.

    Parameters
    ----------
    tree : fitted CART estimator (dtree or scikit-learn), or its ``tree_``
        The tree.
    weighted : bool, default=False
        ``False``: the impurity decrease of each split,
        :math:`\Delta i(t) = i(t) - \frac{W_L}{W_t} i(L) - \frac{W_R}{W_t} i(R)`
        (for entropy, the weighted information gain of the split in bits).
        ``True``: the weighted impurity decrease
        :math:`\Delta R(t) = \frac{W_t}{W} \Delta i(t)`, what
        ``min_impurity_decrease`` compares and what, summed by feature, gives
        the unnormalised ``feature_importances_``.

    Returns
    -------
    ndarray of shape (node_count,)
        At internal node :math:`t` with children :math:`L, R`,
        :math:`W_t\, i(t) - W_L\, i(L) - W_R\, i(R)` divided by :math:`W_t`
        (or, if ``weighted``, by :math:`W`, the root's weight), in the units
        of the criterion (bits for entropy); 0 at leaves.

    Raises
    ------
    TypeError
        If ``tree`` is not a fitted binary tree, or ``weighted`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from dtree import DecisionTreeClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    >>> tree = DecisionTreeClassifier().fit(X, [0, 0, 1, 1, 1])
    >>> impurity_decreases(tree)                 # Gini 0.48 at the root, pure leaves
    array([0.48, 0.  , 0.  ])
    >>> impurity_decreases(tree, weighted=True)  # the root weighs all: the same
    array([0.48, 0.  , 0.  ])
    """
    if not isinstance(weighted, (bool, np.bool_)):
        raise TypeError(f"weighted must be True or False, got {weighted!r}")
    t = _tree_arrays(tree, "tree")
    left = np.asarray(t.children_left)
    right = np.asarray(t.children_right)
    w = np.asarray(t.weighted_n_node_samples, dtype=float)
    imp = np.asarray(t.impurity, dtype=float)
    out = np.zeros(left.size)
    inner = np.flatnonzero(left >= 0)
    l, r = left[inner], right[inner]
    # (W_t i(t) - W_L i(L) - W_R i(R)) / W for Delta R(t), / W_t for Delta i(t)
    out[inner] = (w[inner] * imp[inner] - w[l] * imp[l] - w[r] * imp[r]) / (
        w[0] if weighted else w[inner])
    return out


def weighted_impurity_decrease(tree) -> np.ndarray:
    r"""Weighted impurity decrease :math:`\Delta R(t) = \frac{W_t}{W}\Delta i(t)` of every node.

    The same as ``impurity_decreases(tree, weighted=True)``
    (:func:`impurity_decreases`), under the name the book uses.

    Parameters
    ----------
    tree : fitted CART estimator (dtree or scikit-learn), or its ``tree_``
        The tree.

    Returns
    -------
    ndarray of shape (node_count,)
        At internal node :math:`t` with children :math:`L, R`,
        :math:`\bigl(W_t\, i(t) - W_L\, i(L) - W_R\, i(R)\bigr) / W`, in the
        units of the criterion (bits for entropy); 0 at leaves.  The values
        are what ``min_impurity_decrease`` compares and, summed by feature,
        the unnormalised ``feature_importances_``.

    Raises
    ------
    TypeError
        If ``tree`` is not a fitted binary tree.

    Examples
    --------
    >>> import numpy as np
    >>> from dtree import DecisionTreeClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> tree = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    >>> weighted_impurity_decrease(tree)   # Gini 1/2 at the root, pure leaves
    array([0.5, 0. , 0. ])
    """
    return impurity_decreases(tree, weighted=True)


def node_depths(tree) -> np.ndarray:
    """Depth of every node (the root has depth 0), by node number.

    Parameters
    ----------
    tree : fitted estimator, its ``tree_``, or a root :class:`~dtree.tree.Node`
        A CART tree of dtree or scikit-learn (array form: node ``i`` is row
        ``i`` of ``tree_``), or an ID3 / C4.5 tree (node form: node ``i`` is
        the node whose ``node_id`` is ``i``).

    Returns
    -------
    ndarray of shape (node_count,), dtype int
        ``depths[i]``, the number of edges from the root to node ``i``;
        ``depths.max()`` is the tree's ``get_depth()``.

    Raises
    ------
    TypeError
        If ``tree`` is not a fitted tree.

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0], [1], [2], [3]], [0, 1, 1, 0])
    >>> node_depths(tree)
    array([0, 1, 1, 2, 2])
    """
    arrays, root = _root(tree, "tree")
    if arrays is None:  # node form: walk the nodes, numbered by node_id
        found = {}
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            found[node.node_id] = depth
            stack.extend((child, depth + 1) for child in node.children)
        depths = np.zeros(len(found), dtype=np.intp)
        depths[list(found)] = list(found.values())
        return depths
    left = np.asarray(arrays.children_left)
    right = np.asarray(arrays.children_right)
    depths = np.zeros(left.size, dtype=np.intp)
    level, depth = np.array([0]), 0
    while level.size:  # one level of the tree at a time
        depths[level] = depth
        inner = level[left[level] >= 0]
        level, depth = np.concatenate([left[inner], right[inner]]), depth + 1
    return depths


def leaf_impurity(tree) -> float:
    r"""The leaves' impurity :math:`R(T) = \sum_{t \text{ leaf}} \frac{W_t}{W} i(t)`.

    Parameters
    ----------
    tree : fitted CART estimator (dtree or scikit-learn), or its ``tree_``
        The tree.

    Returns
    -------
    float
        :math:`R(T)`, in the criterion's units: the leaves' Gini impurity or
        entropy, which scikit-learn's ``ccp_alpha`` prunes with (Breiman et
        al. (1984, section 3.3) prune a classification tree with its
        misclassification rate instead), or for squared error the training
        mean squared error.  It equals the root's impurity minus the sum of
        :func:`weighted_impurity_decrease` (the decreases telescope).

    Raises
    ------
    TypeError
        If ``tree`` is not a fitted binary tree.

    Examples
    --------
    >>> from dtree import DecisionTreeRegressor
    >>> tree = DecisionTreeRegressor(max_depth=1).fit([[0], [1], [2], [3]], [0.0, 2.0, 4.0, 6.0])
    >>> leaf_impurity(tree)   # leaves {0, 2} and {4, 6}: squared error 1 each
    1.0
    """
    t = _tree_arrays(tree, "tree")
    leaves = np.asarray(t.children_left) < 0
    w = np.asarray(t.weighted_n_node_samples, dtype=float)
    # R(T) = sum over leaves of W_t / W * i(t)
    return float(w[leaves] @ np.asarray(t.impurity, dtype=float)[leaves] / w[0])


def _children(tree, node):
    """Children of ``node`` (a Node, or an index into the arrays ``tree``)."""
    if isinstance(node, Node):
        return list(node.children)
    left = int(tree.children_left[node])
    return [] if left < 0 else [left, int(tree.children_right[node])]


def _description(tree, node):
    """(test, n_samples, [impurity, *value]) of a node, for comparison."""
    if isinstance(node, Node):
        test = (node.feature, node.threshold, tuple(node.categories))
        numbers = np.r_[node.impurity, np.ravel(node.value)]
        return test, node.n_samples, numbers
    leaf = tree.children_left[node] < 0
    test = (None, None, ()) if leaf else (int(tree.feature[node]), float(tree.threshold[node]), ())
    numbers = np.r_[tree.impurity[node], tree.weighted_n_node_samples[node]]
    if hasattr(tree, "value"):
        numbers = np.r_[numbers, np.ravel(tree.value[node])]
    return test, int(tree.n_node_samples[node]), numbers


def _root(tree, name):
    if isinstance(tree, Node):
        return None, tree
    if isinstance(getattr(tree, "root_", None), Node) and not hasattr(tree, "tree_"):
        return None, tree.root_
    return _tree_arrays(tree, name), 0


def same_tree(a, b, *, rtol: float = 1e-9, atol: float = 1e-12, n_samples: bool = True) -> bool:
    """Whether two fitted trees are the same tree, whatever their node numbering.

    The trees are walked together from the root.  They are the same if every
    pair of nodes met has the same test (feature, threshold and, for a
    multiway node, categories), the same number of training samples (unless
    ``n_samples=False``) and the same number of children, and equal
    impurity, weighted sample count and class counts (or prediction) up to
    ``rtol`` and ``atol``.  Thresholds are compared exactly: both libraries
    store the same float32-rounded midpoints.

    Parameters
    ----------
    a, b : fitted estimator, its ``tree_``, or a root :class:`~dtree.tree.Node`
        CART trees of dtree or scikit-learn (array form), or ID3 / C4.5
        trees (node form).  A tree in array form and one in node form are
        never the same (their nodes record different numbers).
    rtol, atol : float, default=1e-9, 1e-12
        Tolerances of :func:`numpy.allclose` for the nodes' numbers.
    n_samples : bool, default=True
        Compare the numbers of training rows at the nodes.  ``False``
        compares only their weights: a tree grown with integer sample
        weights and one grown on the rows so repeated are then the same.

    Returns
    -------
    bool
        True if the walk meets no difference.

    Raises
    ------
    TypeError
        If ``a`` or ``b`` is not a fitted tree, or ``n_samples`` is not a bool.

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier
    >>> X, y = [[0], [1], [2], [3]], [0, 1, 1, 1]
    >>> full = DecisionTreeClassifier().fit(X, y)
    >>> same_tree(full, DecisionTreeClassifier(max_depth=1).fit(X, y))
    True
    >>> same_tree(full, DecisionTreeClassifier().fit(X, [0, 0, 1, 1]))
    False
    >>> repeated = DecisionTreeClassifier().fit(X + [[3]], y + [1])
    >>> weighted = DecisionTreeClassifier().fit(X, y, sample_weight=[1, 1, 1, 2])
    >>> same_tree(repeated, weighted), same_tree(repeated, weighted, n_samples=False)
    (False, True)
    """
    if not isinstance(n_samples, (bool, np.bool_)):
        raise TypeError(f"n_samples must be True or False, got {n_samples!r}")
    (tree_a, root_a), (tree_b, root_b) = _root(a, "a"), _root(b, "b")
    if (tree_a is None) != (tree_b is None):
        return False
    stack = [(root_a, root_b)]
    while stack:
        x, z = stack.pop()
        test_x, n_x, numbers_x = _description(tree_a, x)
        test_z, n_z, numbers_z = _description(tree_b, z)
        children_x, children_z = _children(tree_a, x), _children(tree_b, z)
        if (test_x != test_z or (n_samples and n_x != n_z)
                or len(children_x) != len(children_z)
                or numbers_x.shape != numbers_z.shape
                or not np.allclose(numbers_x, numbers_z, rtol=rtol, atol=atol)):
            return False
        stack.extend(zip(children_x, children_z))
    return True
