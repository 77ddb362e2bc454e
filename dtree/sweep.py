r"""The sorted sweep: the one loop that finds every split of a dense ``X``.

:func:`best_split` is the search of one node, written as the CART chapter's
sorted sweep (:prf:ref:`alg-cart-sweep`) reads: for each feature, walk the
node's samples in increasing order of the feature, move them one at a time
from the right child to the left (:meth:`criterion.add
<dtree.criteria.Criterion.add>`, a running sum of their statistics), and at
each gap between two distinct values that both children may take, score the
cut with the criterion's proxy (:meth:`~dtree.criteria.Criterion.score`);
the cut of largest proxy wins.  :func:`search_level` runs it on every node
of a level.  Both are plain Python: the book prints them, the tests run them
as they are, and :func:`searcher` compiles them with Numba for each
criterion (:mod:`dtree.kernels`), so that the loop a default fit runs is the
loop printed, compiled.  The criterion is a name, ``criterion``, bound to the
functions a criterion class declares (:class:`dtree.criteria.Criterion`):
a new criterion is a class, not an edit here.

The samples of the nodes being split are kept, for every feature, in an
index array ``order[f]`` in which each node owns a contiguous *segment*,
sorted by the feature's value, missing values (NaN) last
(:func:`dtree.splitting.presort`, then partitioned stably as the tree grows).
The values are compared as float32, the type scikit-learn stores ``X`` in
(``values``: ``float32(X).T``).

Tie rules.  Among cuts of equal proxy, the lowest feature rank wins (the
feature index, or the random ranks of ``random_state``); within a feature,
cuts sending the missing values right win over those sending them left,
which win over the split of all non-missing samples left and the missing
ones right (threshold :math:`+\infty`); then the lowest threshold.  A cut
whose proxy is NaN or :math:`-\infty` never wins.

The random splitter (``splitter="random"``) gives each node and feature one
drawn threshold (``thresholds``, NaN where every gap is a candidate) and,
with missing values, a drawn side for them (``coins``: 0 right, 1 left, -1
both sides are tried).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from dtree import kernels

__all__ = ["best_split", "search_level", "search_sparse_level", "searcher", "sweep_sparse",
           "SPLIT_FIELDS"]

class _Unbound:
    """The name ``criterion`` of the functions below, until :func:`searcher` binds it."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def unbound(*args):
            raise RuntimeError("dtree.sweep's functions run bound to a criterion: "
                               "call them through dtree.sweep.searcher(criterion)")
        return unbound


criterion = _Unbound()

# The slots of best_split's result ``out`` (a float64 row per node).
PROXY, FEATURE, THRESHOLD, CUT, N_LEFT, N_MISSING, MISSING_LEFT, GO_LEFT = range(8)
SPLIT_FIELDS = ("proxy", "feature", "threshold", "cut", "n_left", "n_missing",
                "missing_left", "missing_go_to_left")


def best_split(values, order, start, end, total, codes, floats, layout, state, left,
               mask, rank, thresholds, coins, monotonic_cst, lower, upper,
               min_samples_leaf, min_weight_leaf, constant, out):
    """The best split of one node: the sorted sweep of every feature.

    Parameters
    ----------
    values : ndarray of shape (n_features, n_samples), float32
        ``X`` by features.
    order : ndarray of shape (n_features, m), uint32
        Each feature's segments sorted by the feature, missing values last;
        the node is ``start:end``.
    total : ndarray of shape (n_stats,), float64
        The node's statistics (``criterion.node_stats``).
    codes, floats, layout, state
        The criterion's per-sample statistics and working arrays
        (:meth:`dtree.criteria.Criterion.sweep_data`, ``sweep_state``).
    left : ndarray of shape (n_stats,), float64
        Work space: the left child's running statistics.
    mask : ndarray of shape (n_features,), bool
        The features the node may split on (``max_features``).
    rank : ndarray of shape (n_features,), float64
        Ties between features go to the lowest rank.
    thresholds, coins : ndarray of shape (n_features,)
        The random splitter's threshold (NaN: every gap) and side of the
        missing values (-1: both sides tried).
    monotonic_cst : ndarray of shape (n_features,), int8
        Monotonicity constraints (1, -1; 0: none); ``lower``, ``upper``
        bound the children's values where a constraint applies.
    min_samples_leaf, min_weight_leaf
        The smallest children allowed.
    constant : ndarray of shape (n_features,), bool
        Features known constant in the node (skipped); set where found.
    out : ndarray of shape (8,), float64
        The split found, by the slots ``PROXY`` ... ``GO_LEFT`` (feature
        -1 if none).

    Examples
    --------
    The root of four samples of classes 1, 0, 1, 0 (Gini), uncompiled:

    >>> import numpy as np
    >>> from dtree.criteria import Gini
    >>> from dtree.splitting import presort
    >>> X = np.array([[3.0], [1.0], [4.0], [2.0]])
    >>> stats = Gini.sample_stats(np.array([1, 0, 1, 0]), np.ones(4), 2)
    >>> codes, floats, layout = Gini.sweep_data(stats)
    >>> d, out = 1, np.empty(8)
    >>> split = searcher(Gini, compiled=False).best_split
    >>> order = presort(X).astype(np.uint32)
    >>> split(X.T.astype(np.float32), order, 0, 4, np.array([2.0, 2.0]), codes, floats,
    ...       layout, Gini.sweep_state(stats), np.empty(2), np.ones(d, bool), np.arange(d) * 1.0,
    ...       np.full(d, np.nan), np.full(d, -1), np.zeros(d, np.int8), -np.inf, np.inf,
    ...       1, 0.0, np.zeros(d, bool), out)
    >>> float(out[FEATURE]), float(out[THRESHOLD]), float(out[N_LEFT])   # two pure children
    (0.0, 2.5, 2.0)
    """
    n = end - start
    criterion.prepare(state, order[0, start:end], total, codes, floats, layout)
    out[PROXY], out[FEATURE] = -math.inf, -1.0
    best_rank = 0.0
    for f in range(values.shape[0]):
        if constant[f] or not mask[f]:
            continue
        x, samples = values[f], order[f]
        # The missing values are the last n - n_present samples of the segment.
        n_present = n
        while n_present > 0 and math.isnan(x[samples[start + n_present - 1]]):
            n_present -= 1
        n_missing = n - n_present
        if n_present == 0 or not x[samples[start + n_present - 1]] > x[samples[start]]:
            constant[f] = True                    # no gap: nothing to cut
            continue
        drawn = thresholds[f]
        random = not math.isnan(drawn)
        # The feature's best: proxy, cut (non-missing samples sent left), side.
        f_proxy, f_cut, f_left = -math.inf, -1, False
        inf_proxy = -math.inf                     # all non-missing left, missing right
        for missing_left in (False, True):
            if missing_left and (n_missing == 0 or coins[f] == 0):
                continue
            if not missing_left and n_missing > 0 and coins[f] == 1:
                continue
            criterion.reset(left, state, layout, samples[start:end])
            if missing_left:
                for p in range(start + n_present, end):
                    criterion.add(left, state, codes, floats, samples[p])
            above = x[samples[start]]
            for p in range(start, start + n_present):
                criterion.add(left, state, codes, floats, samples[p])
                cut = p - start + 1
                below = above                     # x of the sample just moved left
                if cut == n_present:              # every non-missing sample is left
                    if missing_left or random or n_missing == 0:
                        break
                else:
                    above = x[samples[p + 1]]     # x of the next one
                    if not above > below:
                        continue                  # tied values: no gap
                    if random and below > drawn:
                        break                     # past the drawn threshold's gap
                    if random and not drawn < above:
                        continue                  # not yet at its gap
                n_left = cut + n_missing if missing_left else cut
                if n_left < min_samples_leaf or n - n_left < min_samples_leaf:
                    continue
                if min_weight_leaf > 0:
                    w_left, w_right = criterion.split_weights(left, total, layout)
                    if w_left < min_weight_leaf or w_right < min_weight_leaf:
                        continue
                if monotonic_cst[f] != 0:         # scikit-learn's check_monotonicity
                    v_left, v_right = criterion.split_values(left, total, state, layout)
                    if not (v_left >= lower and v_right >= lower and v_left <= upper
                            and v_right <= upper and (v_left - v_right) * monotonic_cst[f] <= 0):
                        continue
                proxy = criterion.score(left, total, state, layout)
                if cut == n_present:
                    inf_proxy = proxy             # it wins ties after the other cuts
                elif proxy > f_proxy:
                    f_proxy, f_cut, f_left = proxy, cut, missing_left
        if inf_proxy > f_proxy:
            f_proxy, f_cut, f_left = inf_proxy, n_present, False
        # Ties between features: the lowest rank.
        if f_proxy > out[PROXY] or (f_proxy == out[PROXY] and f_proxy > -math.inf
                                    and rank[f] < best_rank):
            best_rank = rank[f]
            n_left = f_cut + n_missing if f_left else f_cut
            if f_cut == n_present:
                threshold = math.inf
            elif random:
                threshold = drawn
            else:                                 # the midpoint, below the upper value
                below = float(x[samples[start + f_cut - 1]])
                above = float(x[samples[start + f_cut]])
                threshold = below / 2.0 + above / 2.0
                if threshold == above or math.isinf(threshold):
                    threshold = below
            out[PROXY], out[FEATURE], out[THRESHOLD] = f_proxy, f, threshold
            out[CUT], out[N_LEFT], out[N_MISSING] = f_cut, n_left, n_missing
            out[MISSING_LEFT] = f_left
            # Where NaN goes when predicting: where it went, else the larger child.
            out[GO_LEFT] = f_left if n_missing > 0 else n_left > n - n_left


def search_level(values, order, starts, sizes, totals, codes, floats, layout, state,
                 masks, ranks, thresholds, coins, monotonic_cst, bounds,
                 min_samples_leaf, min_weight_leaf, constant, out):
    """:func:`best_split` of every node (segment) of a level.

    ``starts``, ``sizes`` (n_segments,) are the segments, ``totals``
    (n_stats, n_segments) their statistics, ``masks``, ``ranks``,
    ``thresholds``, ``coins`` and ``constant`` (n_segments, n_features) their
    rows of :func:`best_split`'s arguments, ``bounds`` (2, n_segments) their
    lower and upper bounds, and ``out`` (n_segments, 8) receives their splits.
    """
    left = np.zeros(totals.shape[0])
    for j in range(starts.shape[0]):
        best_split(values, order, starts[j], starts[j] + sizes[j], totals[:, j], codes,
                   floats, layout, state, left, masks[j], ranks[j], thresholds[j], coins[j],
                   monotonic_cst, bounds[0, j], bounds[1, j], min_samples_leaf,
                   min_weight_leaf, constant[j], out[j])


def sweep_sparse(value, row, a, b, size, total, codes, floats, layout, state, left, stored,
                 drawn, monotonic_cst, lower, upper, min_samples_leaf, min_weight_leaf, best):
    """The best cut of one feature in one node of a sparse ``X``: the sorted sweep.

    ``value[a:b]`` are the node's stored (nonzero) values of the feature, in
    increasing order, ``row[a:b]`` their samples; the node's other
    ``size - (b - a)`` samples are 0 there.  The sweep walks the negative
    values, then the zeros as one block (their statistics: the node's total
    minus the stored samples'), then the positive values.  ``best`` (3,)
    receives the proxy, the number of samples sent left and the threshold;
    returns False if the feature is constant in the node.  Other arguments as
    for :func:`best_split`.
    """
    n_zero = size - (b - a)
    criterion.prepare(state, row[a:b], total, codes, floats, layout)   # from the node's total
    criterion.reset(stored, state, layout, row[a:b])
    for p in range(a, b):
        criterion.add(stored, state, codes, floats, row[p])
    zero = np.float32(0.0)
    lowest = value[a] if n_zero == 0 or value[a] < zero else zero
    highest = value[b - 1] if n_zero == 0 or value[b - 1] > zero else zero
    if not highest > lowest:
        return False
    z = a                                         # the first positive value
    while z < b and value[z] < zero:
        z += 1
    criterion.reset(left, state, layout, row[a:b])
    best[0], best[1], best[2] = -math.inf, 0.0, 0.0
    random = not math.isnan(drawn)
    n_items = b - a + (1 if n_zero > 0 else 0)    # the stored values and the zero block
    n_left = 0
    for i in range(n_items - 1):
        # move item i left: a stored value, or the zero block (at position z - a)
        if n_zero > 0 and i == z - a:
            criterion.add_rest(left, total, stored)
            n_left += n_zero
            x = zero
        else:
            p = a + i if (n_zero == 0 or i < z - a) else a + i - 1
            criterion.add(left, state, codes, floats, row[p])
            n_left += 1
            x = value[p]
        j = i + 1                                 # the next item's value
        if n_zero > 0 and j == z - a:
            x_next = zero
        else:
            x_next = value[a + j if (n_zero == 0 or j < z - a) else a + j - 1]
        if not x_next > x:
            continue                              # tied values: no gap
        if random and x > drawn:
            break                                 # past the drawn threshold's gap
        if random and not drawn < x_next:
            continue                              # not yet at its gap
        if n_left < min_samples_leaf or size - n_left < min_samples_leaf:
            continue
        w_left, w_right = criterion.split_weights(left, total, layout)
        if w_left < min_weight_leaf or w_right < min_weight_leaf:
            continue
        if monotonic_cst != 0:
            v_left, v_right = criterion.split_values(left, total, state, layout)
            if not (v_left >= lower and v_right >= lower and v_left <= upper
                    and v_right <= upper and (v_left - v_right) * monotonic_cst <= 0):
                continue
        proxy = criterion.score(left, total, state, layout)
        if proxy > best[0]:
            if random:
                threshold = drawn
            else:                                 # the midpoint, below the upper value
                threshold = float(x) / 2.0 + float(x_next) / 2.0
                if threshold == float(x_next) or math.isinf(threshold):
                    threshold = float(x)
            best[0], best[1], best[2] = proxy, n_left, threshold
    return True


def search_sparse_level(col, segment, row, value, sizes, totals, codes, floats, layout, state,
                        masks, ranks, thresholds, monotonic_cst, bounds, min_samples_leaf,
                        min_weight_leaf, constant, out):
    """:func:`sweep_sparse` of every (feature, node) of a level of a sparse ``X``.

    The stored values of the level's samples are ``(col, segment, row,
    value)``, sorted by (feature, segment, value).  A feature with no stored
    value in a node is 0 there, constant.  ``out`` (n_segments, 8) receives
    each node's best split, ties between features to the lowest rank; other
    arguments as for :func:`search_level`.
    """
    n_stats = totals.shape[0]
    left, stored, best = np.zeros(n_stats), np.zeros(n_stats), np.zeros(3)
    best_rank = np.zeros(sizes.shape[0])
    for j in range(sizes.shape[0]):
        out[j, PROXY], out[j, FEATURE] = -math.inf, -1.0
    a = 0
    while a < col.shape[0]:
        f, j = col[a], segment[a]
        b = a
        while b < col.shape[0] and col[b] == f and segment[b] == j:
            b += 1
        if masks[j, f] and not constant[j, f]:
            if not sweep_sparse(value, row, a, b, sizes[j], totals[:, j], codes, floats, layout,
                                state, left, stored, thresholds[j, f], monotonic_cst[f],
                                bounds[0, j], bounds[1, j], min_samples_leaf, min_weight_leaf,
                                best):
                constant[j, f] = True
            elif best[0] > out[j, PROXY] or (best[0] == out[j, PROXY] and best[0] > -math.inf
                                             and ranks[j, f] < best_rank[j]):
                best_rank[j] = ranks[j, f]
                n_left = best[1]
                out[j, PROXY], out[j, FEATURE], out[j, THRESHOLD] = best[0], f, best[2]
                out[j, CUT], out[j, N_LEFT], out[j, N_MISSING] = n_left, n_left, 0.0
                out[j, MISSING_LEFT] = 0.0
                out[j, GO_LEFT] = n_left > sizes[j] - n_left     # NaN: to the larger child
        a = b


class Searcher:
    """The search of one criterion: :func:`best_split` and :func:`search_level`, bound to it.

    With the whole compiled growth (:func:`dtree.kernels.grow_levels` and
    :func:`dtree.kernels.grow_start`), which call the criterion's
    :data:`dtree.criteria.Criterion.GROW` declaration.

    ``compiled``: the functions compiled by Numba, else plain Python (the
    same source).  ``layout``: the memory order of ``values`` ("C", or "F"
    for a float32 ``X`` read in place), compiled apart, so that each has its
    own code in Numba's cache.  Made by :func:`searcher`.
    """

    def __init__(self, criterion, compiled, layout="C"):
        bound = kernels.bind(criterion.sweep_functions(),
                             f"{criterion.sweep_key()[0]}_{layout}",
                             {"best_split": best_split, "search_level": search_level,
                              "sweep_sparse": sweep_sparse,
                              "search_sparse_level": search_sparse_level,
                              "grow_levels": kernels.grow_levels,
                              "grow_start": kernels.grow_start},
                             compiled=compiled)
        self.criterion, self.compiled, self.layout = criterion, compiled, layout
        self.best_split, self.search_level = bound["best_split"], bound["search_level"]
        self.search_sparse_level = bound["search_sparse_level"]
        self.grow_levels, self.grow_start = bound["grow_levels"], bound["grow_start"]


_SEARCHERS = {}
_SEARCHERS_LOCK = threading.RLock()


def searcher(criterion, compiled=None, layout="C"):
    """The :class:`Searcher` of ``criterion`` (a class of :mod:`dtree.criteria`).

    ``compiled``: None compiles where Numba is available
    (:func:`dtree.kernels.available`).  ``layout``: that of ``values``.
    """
    if compiled is None or compiled:
        compiled = kernels.available()      # (imports Numba first: outside the lock)
    key = (criterion.sweep_key(), bool(compiled), layout)
    with _SEARCHERS_LOCK:                   # one Searcher per key, whatever the threads
        if key not in _SEARCHERS:
            _SEARCHERS[key] = Searcher(criterion, bool(compiled), layout)
    return _SEARCHERS[key]
