"""Growing a binary tree: depth-first (level by level) and best-first.

Both growth orders apply the same rules at every node (scikit-learn's):

1. A node is a leaf if its depth is ``max_depth``, it has fewer than
   ``min_samples_split`` or ``2 * min_samples_leaf`` samples, its weight is
   below ``2 * min_weight_leaf``, or its impurity is 0 (below machine epsilon).
2. Otherwise the best split is searched (:mod:`dtree.splitting`); the node
   stays a leaf if there is none, or if its weighted impurity decrease

   .. math:: \\frac{W_t}{W} \\Big( i(t) - \\frac{W_L}{W_t} i(L) - \\frac{W_R}{W_t} i(R) \\Big)

   is below ``min_impurity_decrease`` (computed from the children's
   statistics summed afresh after partitioning the node by the split).

Without ``max_leaf_nodes`` the split of a node depends only on its own
samples, so the tree does not depend on the order in which nodes are grown.
:func:`grow_depth_first` therefore grows a whole level at a time (one sorted
sweep per feature and level, whatever the number of nodes) and numbers the
nodes in depth-first pre-order afterwards, left child first, as
scikit-learn's depth-first builder does (in the common case in one compiled
call, :func:`dtree.kernels.grow_levels`, with the same trees).  With ``max_leaf_nodes``,
:func:`grow_best_first` repeatedly splits the leaf of largest impurity
decrease (ties: the leaf created first) until the tree has ``max_leaf_nodes``
leaves; nodes are numbered in creation order.

With monotonicity constraints (``GrowthParams.monotonic_cst``) every node
carries bounds :math:`[l, u]` on its value, :math:`[-\\infty, \\infty]` at the
root, that the split search respects (:mod:`dtree.splitting`); a split on a
constrained feature passes to its children the bounds of scikit-learn's tree
builders (``_tree.pyx``), split at the middle value of the children
(:func:`_child_bounds`), and the estimator clips every node's value to its
bounds (:attr:`GrownTree.bounds`).

Both fill the arrays declared in :data:`dtree.tree.NODE_FIELDS` generically:
the ``"child"`` and ``"split"`` ones start at their leaf values, a split node
takes each ``"split"`` array's value from the attribute of the same name of
the split search's :class:`~dtree.splitting.SplitResult`, and every ``"child"``
array is renumbered with the nodes.  Of the ``"node"`` arrays the growers
compute ``n_node_samples`` and ``impurity`` (:data:`GROWN_NODE_FIELDS`); the
estimator makes the others from each node's criterion statistics.
"""

from __future__ import annotations

import contextvars
import heapq
import os
from dataclasses import dataclass

import numpy as np

from dtree import kernels, sweep
from dtree.criteria import EPSILON, AbsoluteError, ClassWeights, Entropy, Poisson
from dtree.splitting import (NO_CODES, NO_FLOATS, NO_STATS, BestSplitter, RandomSplitter,
                             columns_layout, deviations_exact, has_missing, presort)
from dtree.sparse import SparseRandomSplitter, SparseSplitter, dense_to_csc, mostly_zeros
from dtree.tree import TREE_LEAF, node_fields

#: The split search of each data layout and ``splitter``: the splitter class
#: (:class:`dtree.splitting.BestSplitter`'s interface) and the loop it runs
#: (:mod:`dtree.sweep`).  A new layout (histograms) is a new entry.
SPLITTERS = {
    ("dense", "best"): (BestSplitter, sweep.best_split),
    ("dense", "random"): (RandomSplitter, sweep.best_split),
    ("sparse", "best"): (SparseSplitter, sweep.sweep_sparse),
    ("sparse", "random"): (SparseRandomSplitter, sweep.sweep_sparse),
}


def layout(X, stats, criterion, sparse):
    """The layout a fit searches ``X`` in: ``(X, "dense")`` or ``(X, "sparse")``.

    A sparse ``X`` (CSC) is searched as it is, but for a criterion whose sweep
    walks every sample of a node (``criterion.sparse_search`` False: the
    absolute error), which gets a dense copy.  A dense ``X`` of mostly zeros
    (:func:`dtree.sparse.mostly_zeros`: the same tree) is searched as sparse.
    """
    if sparse and not criterion.sparse_search:
        return X.toarray(), "dense"
    if not sparse and criterion.sparse_search and mostly_zeros(X, stats):
        return dense_to_csc(X), "sparse"
    return X, "sparse" if sparse else "dense"


#: A fit of at most this many values of ``X`` (samples times features) runs the
#: search as written (plain Python, a tenth of a second for iris) while its
#: compiled code is not at hand, and has it compiled in the background: the
#: first fit on a fresh machine does not wait seconds for Numba.
SMALL_FIT_VALUES = 4096

# Set (to True) in the background fits that compile a criterion's search.
_COMPILING = contextvars.ContextVar("dtree_compiling", default=False)


def compiled(criterion, X, sparse=False) -> bool:
    """Whether a fit of ``criterion`` on ``X`` runs the compiled search (:mod:`dtree.sweep`).

    Yes where Numba is available and either the compiled search of ``X``'s
    layout (dense or ``sparse``) is at hand (:func:`dtree.kernels.ready`:
    compiled in this process, or in Numba's cache on disk) or ``X`` holds
    more than :data:`SMALL_FIT_VALUES` values (compiling it, seconds once per
    machine, then costs less than the loop as written).  Otherwise the fit
    runs the loop as written; then, and whenever the whole compiled growth
    (:func:`whole_growth_compiled`) is not at hand, the compilation starts in
    the background (:func:`dtree.kernels.warm_up`).
    """
    if not kernels.available():
        return False
    if kernels.COMPILE_IN_FOREGROUND or _COMPILING.get():
        return True
    layout = "C" if sparse else columns_layout(X)
    search = sweep.searcher(criterion, True, layout)
    ready = kernels.ready(search.search_sparse_level if sparse else search.search_level)
    if not ready or not (sparse or kernels.ready(search.grow_levels)):
        key = (criterion.sweep_key(), layout, sparse)
        kernels.warm_up(key, lambda: _compile(criterion, X.dtype, layout, sparse))
    return ready or X.shape[0] * X.shape[1] > SMALL_FIT_VALUES


def whole_growth_compiled(criterion, layout) -> bool:
    """Whether a depth-first fit may run as one compiled call (:func:`dtree.kernels.grow_levels`).

    Where its machine code is at hand (its compilation takes several times
    the search's, and is made in the background: :func:`compiled`), or
    :data:`dtree.kernels.COMPILE_IN_FOREGROUND`; otherwise the growth goes level by level,
    each level's search compiled.
    """
    if kernels.COMPILE_IN_FOREGROUND or _COMPILING.get():
        return True
    return kernels.ready(sweep.searcher(criterion, True, layout).grow_levels)


#: The estimators whose small fits compile a criterion's search, by
#: ``"classification"`` and ``"regression"``: :mod:`dtree.cart` registers its
#: two at import (this module, which they are built on, does not import them).
WARM_UP_ESTIMATORS = {}


def _compile(criterion, dtype, layout, sparse):
    """Fit small trees with ``criterion``'s compiled search on ``X`` of the given kind: its
    machine code, made and cached (the level-by-level search first, then the whole growth)."""
    _COMPILING.set(True)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (40, 3)).astype(dtype)
    if dtype == np.float32 and layout == "C":
        X = np.asfortranarray(X)
    y = rng.integers(0, 3, 40)
    make = WARM_UP_ESTIMATORS["classification" if criterion.is_classification else "regression"]
    if not criterion.is_classification:
        y = y + 1.0
    name = getattr(criterion, "base", criterion).name
    if sparse:
        import scipy.sparse

        make(criterion=name).fit(scipy.sparse.csc_matrix(X), y)
        return
    make(criterion=name, max_leaf_nodes=20).fit(X, y)   # the search, level by level
    make(criterion=name).fit(X, y).predict(X)            # the whole growth, compiled


def precompile(criteria=("gini", "squared_error")):
    """Compile the search of ``criteria`` now (Numba caches it on disk): for an image or an
    environment built once and started many times (Binder's postBuild), whose first fits then
    find it at hand.  The criteria are names of ``DecisionTreeClassifier``'s or
    ``DecisionTreeRegressor``'s ``criterion``."""
    from dtree.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA

    token = _COMPILING.set(True)
    try:
        for name in criteria:
            criterion = CLASSIFICATION_CRITERIA.get(name) or REGRESSION_CRITERIA[name]
            _compile(criterion, np.dtype(np.float64), "C", False)
    finally:
        _COMPILING.reset(token)


_USE_GROW_LEVELS = os.environ.get("DTREE_GROW_LEVELS", "1") != "0"
# Whether best-first growth searches a split node's two children in one call.
_SIBLINGS_TOGETHER = True

# The "node" arrays of dtree.tree.NODE_FIELDS that the growers compute.
GROWN_NODE_FIELDS = ("n_node_samples", "impurity")


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
    # (n_features,) int8 in {-1, 0, 1}: constraints on Criterion.monotonic_value; None: none
    monotonic_cst: np.ndarray | None = None


@dataclass
class GrownTree:
    """Node arrays in the final numbering (see :class:`dtree.tree.TreeArrays`).

    ``arrays`` holds, by name, every ``"child"`` and ``"split"`` array of
    :data:`dtree.tree.NODE_FIELDS` and the :data:`GROWN_NODE_FIELDS`, each of
    shape (node_count,); ``stats`` (node_count, n_stats) the criterion
    statistics of each node (None once fit has made the other arrays from them);
    ``bounds`` (node_count, 2), with monotonicity constraints, the lower and
    upper bound of each node's value (to which its value is clipped), else None.
    """

    arrays: dict
    stats: np.ndarray
    bounds: np.ndarray | None = None


def _leaf_nodes(n_nodes):
    """The "child" and "split" arrays of ``n_nodes`` new nodes: leaves, by name."""
    return {f.name: f.full(n_nodes) for f in node_fields("child", "split")}


def _exclusive_cumsum(sizes):
    return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)


def _can_split(params, depth, sizes, weights, impurity):
    return ((depth < params.max_depth)
            & (sizes >= params.min_samples_split)
            & (sizes >= 2 * params.min_samples_leaf)
            & (weights >= 2 * params.min_weight_leaf)
            & (impurity > EPSILON))


def _child_bounds(criterion, monotonic_cst, feature, bounds, left, right):
    """The bounds of the children of split nodes, shape (2, 2 n): left, right, left, right, ...

    scikit-learn's rule (``_tree.pyx``, both tree builders): with the middle
    value :math:`m` of the split (:meth:`dtree.criteria.Criterion.middle_value`
    of the children's statistics ``left``, ``right`` (n_stats, n)) and the
    node's bounds :math:`[l, u]` (``bounds`` (2, n)), a split on a feature
    with an increasing constraint gives the left child :math:`[l, m]` and the
    right child :math:`[m, u]`, a decreasing one :math:`[m, u]` and
    :math:`[l, m]`, an unconstrained one :math:`[l, u]` to both.
    """
    lower, upper = bounds
    sign = monotonic_cst[feature]
    with np.errstate(divide="ignore", invalid="ignore"):
        middle = criterion.middle_value(left, right)
    left_bounds = [np.where(sign == -1, middle, lower), np.where(sign == 1, middle, upper)]
    right_bounds = [np.where(sign == 1, middle, lower), np.where(sign == -1, middle, upper)]
    return np.stack([np.column_stack([lo, hi]).ravel()
                     for lo, hi in zip(left_bounds, right_bounds)])


def _column_by_column(function, *arrays):
    """``function`` of each column of ``arrays`` (each (n_rows, n)) on its own, shape (n,).

    The column ``j`` of every array is passed as a (n_rows, 1) slice: a node's
    floats come out as when the node is computed alone (NumPy sums a single
    column's classes pairwise, several columns' one after another).
    """
    return np.concatenate([function(*(a[:, j:j + 1] for a in arrays))
                           for j in range(arrays[0].shape[1])])


def _search(splitter, starts, sizes, totals, bounds):
    """``splitter.search``, with the segments' bounds if there are monotonicity constraints."""
    if bounds is None:
        return splitter.search(starts, sizes, totals)
    return splitter.search(starts, sizes, totals, bounds=bounds)


def _splitter(X, stats, criterion, params, rng, kind=None):
    """The split search (:class:`dtree.splitting.BestSplitter`'s interface), started on ``X``.

    ``kind`` is a splitter class; None: ``RandomSplitter`` if
    ``params.splitter == "random"``, else ``BestSplitter``.
    """
    if kind is None:
        kind = RandomSplitter if params.splitter == "random" else BestSplitter
    constraints = {} if params.monotonic_cst is None else {"monotonic_cst": params.monotonic_cst}
    splitter = kind(criterion, stats, min_samples_leaf=params.min_samples_leaf,
                    min_weight_leaf=params.min_weight_leaf, max_features=params.max_features,
                    rng=rng, **constraints)
    if kind.compiled is None:              # the class's choice, else the fit's (compiled)
        splitter.compiled = compiled(criterion, X, sparse=issubclass(kind, SparseSplitter))
    return splitter.start(X, sort=presort)


def grow_depth_first(X, stats, criterion, params: GrowthParams, rng=None,
                     splitter=None) -> GrownTree:
    """Grow level by level; return the nodes in depth-first pre-order.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32 or float64
        Training features, compared as float32; NaN marks a missing value.
        Read, never written (the caller's array; the split search reads a
        float32 copy of a float64 ``X``, :func:`dtree.splitting.columns`).
    stats : ndarray of shape (n_stats, n_samples) or ClassWeights
        The criterion's per-sample statistics.
    criterion : class from :mod:`dtree.criteria`
    params : GrowthParams
    rng : numpy.random.Generator or None
        Feature draws, tie ranks and random thresholds
        (:meth:`dtree.splitting.BestSplitter.options`).
    splitter : class or None
        The split search, a class with :class:`dtree.splitting.BestSplitter`'s
        interface; None: from ``params.splitter``.
    """
    if (splitter in (None, BestSplitter) and _USE_GROW_LEVELS and compiled(criterion, X)
            and whole_growth_compiled(criterion, columns_layout(X))):
        grown = _grow_compiled(X, stats, criterion, params, rng)
        if grown is not None:
            return grown
    n_samples = X.shape[0]
    splitter = _splitter(X, stats, criterion, params, rng, splitter)
    starts = np.array([0], dtype=np.intp)
    sizes = np.array([n_samples], dtype=np.intp)
    totals = splitter.totals(starts)
    total_weight = float(criterion.weight(totals)[0])
    impurity = criterion.impurity(totals)
    # With monotonicity constraints: each open node's [lower, upper] value, (2, n_nodes).
    monotonic_cst = params.monotonic_cst
    bounds = None if monotonic_cst is None else np.array([[-np.inf], [np.inf]])
    depth = 0
    levels = []          # per level: dict of arrays, nodes in creation order
    next_id = 0
    while sizes.size:
        ids = np.arange(next_id, next_id + sizes.size)
        next_id += sizes.size
        level = {"ids": ids, "n_node_samples": sizes.copy(), "stats": totals.T,
                 "impurity": impurity, **_leaf_nodes(sizes.size)}
        if bounds is not None:
            level["bounds"] = bounds.T
        levels.append(level)
        open_ = _can_split(params, depth, sizes, criterion.weight(totals), impurity)
        if not open_.any():
            break
        # Keep only the segments that may split.
        if not open_.all():
            splitter.keep(np.repeat(open_, sizes))
            sizes, impurity = sizes[open_], impurity[open_]
            totals = np.ascontiguousarray(totals[:, open_])      # C order: see below
            bounds = None if bounds is None else bounds[:, open_]
        where = np.flatnonzero(open_)
        starts = _exclusive_cumsum(sizes)
        found = _search(splitter, starts, sizes, totals, bounds)
        split = found.feature >= 0
        if not split.any():
            break
        # Keep the splitting segments, partition them, and lay out the children
        # left, right, left, right, ... in the order of their parents.
        if not split.all():
            splitter.keep(np.repeat(split, sizes))
            sizes, impurity = sizes[split], impurity[split]
            totals = np.ascontiguousarray(totals[:, split])
            bounds = None if bounds is None else bounds[:, split]
            found = found.select(split)
        where = where[split]
        starts = _exclusive_cumsum(sizes)
        splitter.split(starts, sizes, found)
        child_sizes = np.column_stack([found.n_left, sizes - found.n_left]).ravel()
        child_totals = splitter.totals(_exclusive_cumsum(child_sizes))
        gain = criterion.improvement(totals, impurity, child_totals[:, 0::2],
                                     child_totals[:, 1::2], total_weight)
        keep = ~(gain + EPSILON < params.min_impurity_decrease)
        if not keep.any():
            break
        if bounds is not None:
            bounds = _child_bounds(criterion, monotonic_cst, found.feature, bounds,
                                   child_totals[:, 0::2], child_totals[:, 1::2])
        if not keep.all():  # too small a decrease: the node stays a leaf
            kept_children = np.repeat(keep, 2)
            splitter.keep(np.repeat(kept_children, child_sizes))
            # C order, as splitter.totals gives: NumPy lays a[:, mask] out by
            # columns, and sums a column-ordered array's classes pairwise, not
            # one after another (criteria._sum_over_classes), which may round
            # a node's weight or impurity differently.
            child_sizes = child_sizes[kept_children]
            child_totals = np.ascontiguousarray(child_totals[:, kept_children])
            bounds = None if bounds is None else bounds[:, kept_children]
            where = where[keep]
        for f in node_fields("split"):
            level[f.name][where] = getattr(found, f.name)[keep]
        children = np.arange(next_id, next_id + 2 * where.size)
        level["children_left"][where] = children[0::2]
        level["children_right"][where] = children[1::2]
        sizes, totals = child_sizes, child_totals
        impurity = criterion.impurity(totals)
        depth += 1
    del splitter              # the presorted index is not needed to assemble the tree
    return _preorder(levels)


# grow_levels' generator where it draws nothing (random_state=None).
_NO_GENERATOR = np.random.default_rng(0)
# The arrays grow_levels returns, by name (the others are the estimator's).
_GROWN_ARRAYS = ("children_left", "children_right", "feature", "threshold",
                 "missing_go_to_left", "n_node_samples")


def _grow_compiled(X, stats, criterion, params: GrowthParams, rng=None) -> GrownTree | None:
    """:func:`grow_depth_first` in one compiled call (:func:`dtree.kernels.grow_levels`), or None.

    For the common case: Numba installed and enabled, dense ``X`` without
    missing values, the best splitter searching every feature
    (``max_features`` of all; ``rng``'s draws give the tie ranks, the numbers
    :meth:`dtree.splitting.BestSplitter.options` draws), no monotonicity
    constraint, and a criterion that declares the whole growth
    (``grows_whole``: :data:`dtree.criteria.Criterion.GROW`): Gini, entropy
    or the misclassification error on exact class weights of one output (for
    Gini, ``squares_weights``, a root weight :math:`W` with :math:`W^2 <
    2^{53}`), the squared error, Friedman's MSE or Poisson (of one output or
    several), or the absolute error of one output or several where its sums
    are exact (``dtree.splitting.deviations_exact``: whole weights, targets
    of few binary digits).  The tree is the one the level-by-level loop grows,
    array for array: the kernel takes every decision on NumPy's floats
    (Poisson's with the C library's ``ln``, checked here with NumPy's
    impurities: :func:`_numpy_decides_alike`), and the impurities are
    computed here with ``criterion.impurity``.  None otherwise, and where
    the kernel cannot decide as NumPy does (a NaN proxy; an entropy or
    Poisson decrease within rounding of ``min_impurity_decrease``; a Poisson
    decision NumPy's impurities take otherwise): the caller grows the tree
    level by level.
    """
    n_outputs = getattr(criterion, "n_outputs", 1)
    classes = type(stats) is ClassWeights
    medians = issubclass(criterion, AbsoluteError)  # node statistics (W, medians, deviations)
    if (not criterion.grows_whole or not kernels.available() or params.splitter != "best"
            or params.monotonic_cst is not None or (params.max_features or X.shape[1]) < X.shape[1]
            or classes != criterion.is_classification
            or {f.name for f in node_fields("child", "split")} | set(GROWN_NODE_FIELDS)
            != set(_GROWN_ARRAYS) | {"impurity"}):
        return None
    if classes:
        if not stats.exact_sums:
            return None
        root_weight = stats.shape[1] if stats.weight is None else float(stats.weight.sum())
        if criterion.squares_weights and root_weight * root_weight >= 2.0**53:
            return None
        has_weight = stats.weight is not None
        args = (stats.codes, stats.weight if has_weight else NO_FLOATS, has_weight, NO_STATS)
    else:
        if not (isinstance(stats, np.ndarray) and stats.dtype == np.float64):
            return None
        if medians and not deviations_exact(stats):
            return None
        args = (NO_CODES, NO_FLOATS, False, stats)
    if has_missing(X).any():
        return None
    splitter = BestSplitter(criterion, stats).start(X, sort=presort)
    n_features = X.shape[1]
    # A node's statistics: the rows of the samples' summed, or the absolute
    # error's (W, medians, deviations) of samples' (w, targets).
    n_stats = 1 + 2 * n_outputs if medians else stats.shape[0]
    search = sweep.searcher(criterion, True, splitter._layout)
    state = search.grow_start(splitter.order, *args, n_stats, n_outputs, n_features)
    if rng is not None:    # restored if the loop over levels is to draw the same numbers
        generator_state = rng.bit_generator.state
    status, state = search.grow_levels(
        splitter.columns, splitter.order, *args, classes,
        n_stats, n_outputs, params.min_samples_leaf, float(params.min_weight_leaf),
        params.min_samples_split, params.max_depth, float(params.min_impurity_decrease),
        rng is not None, _NO_GENERATOR if rng is None else rng, state,
        *criterion.sweep_data(stats), criterion.sweep_state(stats))
    if status != kernels.GROWN:
        if rng is not None:
            rng.bit_generator.state = generator_state
        return None
    del splitter               # the presorted index is not needed to assemble the tree
    node_count = int(state[0][1]) + state[1].size
    grown = {f.name: np.empty(node_count, f.dtype) for f in node_fields("child", "split")}
    grown["n_node_samples"] = np.empty(node_count, np.intp)
    node_stats = np.empty((node_count, n_stats))
    reason = np.empty(node_count, np.int8)
    pre, level_sizes = kernels.grown_tree(state, *(grown[name] for name in _GROWN_ARRAYS),
                                          node_stats, reason)
    del state
    grown["impurity"] = _level_impurities(criterion, node_stats, pre, level_sizes)
    if issubclass(criterion, Poisson) and not _numpy_decides_alike(criterion, grown, node_stats, reason,
                                                            params):
        if rng is not None:
            rng.bit_generator.state = generator_state
        return None
    return GrownTree(arrays=grown, stats=node_stats)


def _numpy_decides_alike(criterion, grown, node_stats, reason, params) -> bool:
    """Whether NumPy's impurities take grow_levels' decisions (Poisson).

    grow_levels computes Poisson's impurities with the C library's ``ln``,
    which NumPy's AVX-512 code can differ from in the last bit, and a pure
    node's impurity is 0 up to rounding: whether it exceeds ``EPSILON``, and
    whether a decrease of 0 up to rounding is kept under a rule of 0, may
    then be decided otherwise by the level loop.  With NumPy's impurities
    (``grown["impurity"]``): every split node's must exceed ``EPSILON`` and its
    decrease (:meth:`Criterion.improvement`, as the loop computes it) pass
    ``min_impurity_decrease``; every node left a leaf for its impurity must
    have one of at most ``EPSILON``; and no split may have been refused for
    its decrease under a rule of at most 0 (only rounding refuses one).

    Parameters
    ----------
    criterion : class from :mod:`dtree.criteria`
        Poisson, of one output or several.
    grown : dict of ndarray of shape (node_count,)
        The tree in pre-order: ``impurity`` (NumPy's), ``children_left``,
        ``children_right``.
    node_stats : ndarray of shape (node_count, n_stats)
    reason : ndarray of shape (node_count,), int8
        :func:`dtree.kernels.grown_tree`'s ``out_reason``.
    params : GrowthParams

    Returns
    -------
    bool
        False where the level-by-level loop could grow another tree.
    """
    impurity = grown["impurity"]
    split = reason == kernels.SPLIT
    if (np.any(impurity[split] <= EPSILON) or np.any(impurity[reason == kernels.PURE] > EPSILON)
            or (params.min_impurity_decrease <= 0
                and np.any(reason == kernels.TOO_SMALL_DECREASE))):
        return False
    if not split.any():
        return True
    left, right = grown["children_left"][split], grown["children_right"][split]
    total_weight = float(criterion.weight(node_stats[:1].T)[0])
    gain = criterion.improvement(np.ascontiguousarray(node_stats[split].T), impurity[split],
                                 np.ascontiguousarray(node_stats[left].T),
                                 np.ascontiguousarray(node_stats[right].T), total_weight)
    return not np.any(gain + EPSILON < params.min_impurity_decrease)


def _sums_inexact_over_classes(criterion) -> bool:
    r"""Whether ``criterion.impurity`` sums inexact terms over classes (the entropy's
    :math:`p \log_2 p`, of one output or several)."""
    return criterion is Entropy or getattr(criterion, "base", None) is Entropy


def _level_impurities(criterion, node_stats, pre, level_sizes):
    """``criterion.impurity`` of every node (pre-order), with the floats of the level-by-level loop.

    That loop computes the impurities of a level's nodes in one call, on an
    array (n_stats, n_level) in C order (the layout :meth:`BestSplitter.totals`
    gives), whose sums over classes NumPy takes one class after another (on
    a column-ordered array, and on a level of one node, it sums them
    pairwise: other floats; see ``criteria._sum_over_classes``).  The
    entropy's terms are inexact, so its arrays here are the loop's own, level
    by level.  The other criteria are computed in one call, on a C-ordered
    array: Gini's sums are exact here (whole class weights,
    :math:`W^2 < 2^{53}`), the regressions sum no classes, and a node's
    Poisson ``log`` does not depend on where the value sits in NumPy's
    vectorised loop (``tests/test_kernels.py`` holds NumPy's logarithms equal
    at every offset, length and stride).
    """
    if not _sums_inexact_over_classes(criterion):
        impurity = np.asarray(criterion.impurity(np.ascontiguousarray(node_stats.T)), np.float64)
        return impurity if impurity.base is None else impurity.copy()     # owned (TreeArrays)
    impurity = np.empty(pre.size)
    first = 0
    for n_level in level_sizes.tolist():
        nodes = pre[first:first + n_level]
        impurity[nodes] = criterion.impurity(np.ascontiguousarray(node_stats[nodes].T))
        first += n_level
    return impurity


def _preorder(levels) -> GrownTree:
    """Renumber nodes from creation order (level by level) to depth-first pre-order."""
    # Inner nodes per level first; then each array moves out of the levels as it
    # is concatenated, so that the nodes are held about once, not three times.
    inner_ids = [level["ids"][level["children_left"] >= 0] for level in levels]

    def cat(key):
        return np.concatenate([level.pop(key) for level in levels])

    links = {f.name: cat(f.name) for f in node_fields("child")}   # creation-order ids
    left, right = links["children_left"], links["children_right"]
    node_count = left.size
    subtree = np.ones(node_count, dtype=np.intp)
    for inner in reversed(inner_ids):
        subtree[inner] += subtree[left[inner]] + subtree[right[inner]]
    pre = np.zeros(node_count, dtype=np.intp)
    for inner in inner_ids:
        pre[left[inner]] = pre[inner] + 1
        pre[right[inner]] = pre[inner] + 1 + subtree[left[inner]]
    del subtree, inner_ids

    def placed(values):
        out = np.empty(values.shape, values.dtype)   # C order (stats come in transposed)
        out[pre] = values
        return out

    arrays = {name: placed(np.where(ids >= 0, pre[np.maximum(ids, 0)], TREE_LEAF))
              for name, ids in links.items()}
    del links, left, right
    for name in [key for key in levels[0] if key not in ("ids", "stats", "bounds")]:
        arrays[name] = placed(cat(name))
    bounds = placed(cat("bounds")) if "bounds" in levels[0] else None
    return GrownTree(arrays=arrays, stats=placed(cat("stats")), bounds=bounds)


def grow_best_first(X, stats, criterion, params: GrowthParams, rng=None,
                    splitter=None) -> GrownTree:
    """Split the leaf of largest weighted impurity decrease until ``max_leaf_nodes`` leaves.

    Each node's best split is found (and its segment of the splitter's
    positions partitioned by it) when the node is created; the split is
    applied when the node is popped from the priority queue.  Parameters as
    for :func:`grow_depth_first`.
    """
    n_samples = X.shape[0]
    splitter = _splitter(X, stats, criterion, params, rng, splitter)
    root_totals = splitter.totals(np.array([0]))
    total_weight = float(criterion.weight(root_totals)[0])
    nodes = []     # creation order: dicts
    heap = []      # (-improvement, node id)
    monotonic_cst = params.monotonic_cst
    # Two sibling nodes are searched in one call (each node's sums start at 0:
    # the floats of one search per node), but where the splitter draws random
    # thresholds: it draws them node after node, between the tie ranks.
    joint = _SIBLINGS_TOGETHER and not splitter.random_thresholds

    def add_nodes(start, sizes, totals, depth, bounds):
        """Create the nodes of the consecutive segments ``sizes`` from ``start``
        (the root, or a split node's two children, left first), search those
        that may split together and queue each split found."""
        # Each node's impurity and weight from its own column, as when it was
        # created alone: NumPy sums one column's classes pairwise but several
        # columns' one after another, and a node's floats must not depend on
        # its sibling's.
        impurity = _column_by_column(criterion.impurity, totals)
        weight = _column_by_column(criterion.weight, totals)
        offsets = _exclusive_cumsum(sizes)
        ids = []
        for j in range(sizes.size):
            ids.append(len(nodes))
            nodes.append({"start": start + int(offsets[j]), "n_node_samples": int(sizes[j]),
                          "stats": totals[:, j], "impurity": float(impurity[j]),
                          "depth": depth, "split": None,
                          "bounds": None if bounds is None else bounds[:, j:j + 1]})
        open_ = np.flatnonzero(_can_split(params, depth, sizes, weight, impurity))
        if open_.size == 0:
            return ids
        # Both children open: one search, in a window that holds just them (a
        # window's segments must fill it) where joint; else one search per node.
        if open_.size < sizes.size or not joint:
            groups = [open_[j:j + 1] for j in range(open_.size)]
        else:
            groups = [open_]
        for group in groups:
            first = int(offsets[group[0]])
            view = splitter.window(start + first, int(sizes[group].sum()))
            starts = offsets[group] - first
            found = _search(view, starts, sizes[group], totals[:, group],
                            None if bounds is None else bounds[:, group])
            splits = found.feature >= 0
            if not splits.any():
                continue
            if not splits.all():                  # partition the one that splits alone
                group, found = group[splits], found.select(splits)
                first = int(offsets[group[0]])
                view = splitter.window(start + first, int(sizes[group].sum()))
                starts = np.zeros(1, dtype=np.intp)
            view.split(starts, sizes[group], found)
            child_sizes = np.column_stack([found.n_left, sizes[group] - found.n_left]).ravel()
            children = view.totals(_exclusive_cumsum(child_sizes))
            # Each gain from its own columns too (Gini's sum of squared class
            # weights may exceed 2**53, where the order of the classes' sum matters).
            def node_gain(node, node_impurity, left, right):    # one node's columns
                return criterion.improvement(node, node_impurity[0], left, right, total_weight)

            gain = _column_by_column(node_gain, totals[:, group], impurity[None, group],
                                     children[:, 0::2], children[:, 1::2]).tolist()
            for i, j in enumerate(group):
                if gain[i] + EPSILON < params.min_impurity_decrease:
                    continue
                node_id = ids[j]
                nodes[node_id].update(split=found.select(np.arange(i, i + 1)),
                                      gain=gain[i], children=children[:, 2 * i:2 * i + 2])
                heapq.heappush(heap, (-gain[i], node_id))
        return ids

    add_nodes(0, np.array([n_samples], dtype=np.intp), root_totals, 0,
              None if monotonic_cst is None else np.array([[-np.inf], [np.inf]]))
    split = []     # ids of the split nodes
    n_splits_left = params.max_leaf_nodes - 1
    while heap and n_splits_left > 0:
        _, node_id = heapq.heappop(heap)
        node = nodes[node_id]
        found, children = node["split"], node["children"]
        k = int(found.n_left[0])
        bounds = None
        if monotonic_cst is not None:
            bounds = _child_bounds(criterion, monotonic_cst, found.feature, node["bounds"],
                                   children[:, :1], children[:, 1:])
        node["children_left"], node["children_right"] = add_nodes(
            node["start"], np.array([k, node["n_node_samples"] - k], dtype=np.intp),
            children, node["depth"] + 1, bounds)
        split.append(node_id)
        n_splits_left -= 1

    # The arrays in creation order: leaves everywhere, then the split nodes'
    # children and the "split" arrays of their SplitResult.
    arrays = _leaf_nodes(len(nodes))
    for name in ("children_left", "children_right"):
        arrays[name][split] = [nodes[i][name] for i in split]
    for f in node_fields("split"):
        arrays[f.name][split] = [getattr(nodes[i]["split"], f.name)[0] for i in split]
    for f in node_fields("node"):
        if f.name in GROWN_NODE_FIELDS:
            arrays[f.name] = np.array([node[f.name] for node in nodes], dtype=f.dtype)
    bounds = None if monotonic_cst is None else np.array([node["bounds"][:, 0] for node in nodes])
    return GrownTree(arrays=arrays, stats=np.array([node["stats"] for node in nodes]),
                     bounds=bounds)
