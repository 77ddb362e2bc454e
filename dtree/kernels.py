r"""The sorted sweep and the partition of a tree level, compiled (Numba).

:func:`dtree.splitting.best_splits` scores a level of a tree with a few
hundred NumPy calls, vectorised over its nodes and features: on small data
(iris, a few milliseconds a fit) the fixed cost of those calls, not the
arithmetic, is the fit's time.  The functions here do the same sweep in one
compiled call per level, one node and one feature at a time, as
scikit-learn's splitter does: along a node's samples sorted by the feature,
the left child's statistics are a running sum (a class's weight, or
:math:`w` and :math:`wy`), the right child's the node's total minus them,
and every cut between two distinct values (as float32) that leaves
``min_samples_leaf`` samples on both sides is scored with the criterion's
proxy (:meth:`dtree.criteria.Criterion.proxy`).  A feature found constant in
a node is recorded (``constant``) and not swept again in the node's
descendants where every partial sum is an exact float (a node's running sums
then start afresh at 0, the same floats).

The splits are those of :func:`~dtree.splitting.best_splits`, with its tie
rules (the largest proxy; ties to the lowest feature rank, then the lowest
threshold), float for float wherever the proxy takes no logarithm (Gini,
squared error, Friedman's MSE), with fractional weights and targets too:
the running sums restart at each node exactly as the level's sweep does (by
adding the sample's statistics minus the previous node's total), and each
proxy is computed with NumPy's operations in NumPy's order.  The
entropy and Poisson proxies take :math:`\log_2` from the C library, which can
differ from NumPy's vectorised ``log2`` in the last bit (NumPy's AVX-512 code;
on other CPUs NumPy calls the C library too), so that a near-tie there may
fall the other way.  :func:`dtree.splitting.reference_split` is the short
version of the same search that the book prints; ``tests/test_kernels.py``
holds the kernels equal to :func:`~dtree.splitting.best_splits`, and
``tests/test_reference_splitter.py`` that one to the reference.  The level's
partition (:func:`partition_level`), the compaction of the nodes that go on
(:func:`keep_positions`) and the nodes' sums (:func:`segment_totals`) are
compiled too, each the same as its NumPy version.

What is compiled is only the common case: dense ``X`` without missing values,
an additive criterion of one output, no monotonicity constraint, every
midpoint a candidate (``splitter="best"``).  Everything else, and every
level whose proxy gives a NaN somewhere, goes through the NumPy sweep.
Numba is imported on the first fit that needs it; without it (or with the
environment variable ``DTREE_NUMBA=0``) every level goes through NumPy, with
the same trees.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["ENABLED", "GINI", "ENTROPY", "SQUARED_ERROR", "FRIEDMAN_MSE", "POISSON",
           "available", "keep_positions", "partition_level", "search_classes",
           "search_regression", "segment_totals"]

#: Whether the compiled sweep is used (where Numba is installed); the
#: environment variable ``DTREE_NUMBA=0`` turns it off, and tests set it to
#: False to compare the NumPy sweep with it.
ENABLED = os.environ.get("DTREE_NUMBA", "1") != "0"

# The criteria the kernels compute (dtree.criteria's proxies).
GINI, ENTROPY, SQUARED_ERROR, FRIEDMAN_MSE, POISSON = range(5)

EPSILON = np.finfo(np.float64).eps          # dtree.criteria.EPSILON (Poisson's guard)

_COMPILED = []         # the functions below, in order: compiled together on first use
_STATE = {}            # "numba": the module, or None where it cannot be imported


def _jit(function):
    """Mark ``function`` for compilation (numba.njit) when :func:`available` is first asked."""
    _COMPILED.append(function.__name__)
    return function


def available() -> bool:
    """Whether the compiled sweep is installed and enabled (:data:`ENABLED`).

    The first call imports Numba (about 0.4 s; ``import dtree`` does not) and
    replaces the functions of this module by their compiled versions, which
    Numba compiles on their first call for each combination of argument types
    (a few seconds each) and caches on disk: in ``dtree/__pycache__``, or in a
    cache of the user's where that folder is not writable.
    """
    if not ENABLED:
        return False
    if "numba" not in _STATE:
        try:
            import numba
        except ImportError:          # the NumPy sweep does everything
            numba = None
        if numba is not None:
            names = globals()
            for name in _COMPILED:   # helpers first: the callers find them compiled
                names[name] = numba.njit(cache=True, nogil=True, error_model="numpy")(names[name])
        _STATE["numba"] = numba      # last: no other thread sees True before the functions
    return _STATE["numba"] is not None


@_jit
def _weighted_impurity(c, criterion):
    """:math:`W\\,i(c)` of class weights ``c`` (n_classes,): Gini or entropy.

    NumPy's order of operations (``dtree.criteria.Gini.weighted_impurity``,
    ``Entropy``): the classes summed one after another.
    """
    total = 0.0
    for k in range(c.shape[0]):
        total += c[k]
    acc = 0.0
    if criterion == GINI:                    # W (1 - sum_k c_k^2 / W^2)
        for k in range(c.shape[0]):
            acc += c[k] * c[k]
        return (1.0 - acc / (total * total)) * total
    for k in range(c.shape[0]):              # W * -sum_k p_k log2 p_k
        p = c[k] / total
        if p > 0:
            acc += p * np.log2(p)
    return total * (-acc + 0.0)


@_jit
def _regression_proxy(w_left, s_left, w_right, s_right, criterion):
    """The proxy of a cut from the children's weights and weighted sums of y."""
    if criterion == SQUARED_ERROR:           # S_L^2 / W_L + S_R^2 / W_R
        return s_left * s_left / w_left + s_right * s_right / w_right
    if criterion == FRIEDMAN_MSE:            # (W_R S_L - W_L S_R)^2 / (W_L W_R)
        diff = w_right * s_left - w_left * s_right
        return diff * diff / (w_left * w_right)
    if s_left <= EPSILON or s_right <= EPSILON:   # Poisson: positive sums only
        return -np.inf
    return s_left * np.log2(s_left / w_left) + s_right * np.log2(s_right / w_right)


@_jit
def _value(values, by_feature, f, s):
    """Sample ``s``'s value of feature ``f`` as float32 (the type the tree compares)."""
    if by_feature:
        return np.float32(values[f, s])
    return np.float32(values[s, f])


@_jit
def _keep(j, proxy, f, p, use_rank, rank, out_proxy, out_feature, out_position, out_rank):
    """Make feature ``f``'s cut after ``p`` segment ``j``'s best if it beats it (ties: rank)."""
    r = rank[j, f] if use_rank else f
    if proxy > out_proxy[j] or (proxy == out_proxy[j] and r < out_rank[j]):
        out_proxy[j], out_feature[j], out_position[j], out_rank[j] = proxy, f, p, r


@_jit
def _close(j, f, varies, best, best_p, constant, use_rank, rank, out_proxy, out_feature,
           out_position, out_rank):
    """After feature ``f``'s sweep of segment ``j``: record whether it is constant there,
    and keep its best cut (after position ``best_p``, proxy ``best``) if it is one."""
    constant[j, f] = not varies
    if best > -np.inf:
        _keep(j, best, f, best_p, use_rank, rank, out_proxy, out_feature, out_position,
              out_rank)


@_jit
def _finish(values, by_feature, order, starts, sizes, feature, position, threshold, cut,
            n_left, go_left):
    """The threshold, samples sent left and side of NaN of every segment's best cut.

    :func:`dtree.splitting.midpoint` of the values around the cut (float64
    halves of the float32 values; the lower one where the midpoint rounds onto
    the upper one), ``cut = n_left`` (no missing values), and NaN at predict
    time to the larger child (scikit-learn's rule without missing values in
    training).
    """
    for j in range(starts.shape[0]):
        f = feature[j]
        if f < 0:
            continue
        p = position[j]
        lower = np.float64(_value(values, by_feature, f, order[f, p]))
        upper = np.float64(_value(values, by_feature, f, order[f, p + 1]))
        middle = lower / 2.0 + upper / 2.0          # sum of halves: no overflow
        threshold[j] = lower if middle == upper or np.isinf(middle) else middle
        cut[j] = n_left[j] = p - starts[j] + 1
        go_left[j] = cut[j] > sizes[j] - cut[j]


@_jit
def search_classes(values, by_feature, order, starts, sizes, codes, weight, has_weight,
                   totals, criterion, min_samples_leaf, min_weight_leaf, exact, squares_exact,
                   use_mask, mask, use_rank, rank, constant,
                   out_proxy, out_feature, out_position, out_rank, out_threshold, out_cut,
                   out_n_left, out_go_left):
    r"""Best cut of every segment of a level for Gini or entropy; False if a proxy is NaN.

    Parameters
    ----------
    values : ndarray, float32 or float64
        ``X`` of shape (n_samples, n_features), or ``float32(X).T`` of shape
        (n_features, n_samples) if ``by_feature``.
    order : ndarray of shape (n_features, m), unsigned int
        The segments sorted by each feature (:class:`dtree.splitting.BestSplitter`).
    starts, sizes : ndarray of shape (n_segments,), int
    codes : ndarray of shape (n_samples,), unsigned int
        Class of each sample; ``weight`` its weight if ``has_weight`` (else 1).
    totals : ndarray of shape (n_classes, n_segments), float64
        Each segment's class weights (``criterion.node_stats``).
    criterion : int
        :data:`GINI` or :data:`ENTROPY`.
    min_samples_leaf, min_weight_leaf
        The smallest children allowed.
    exact : bool
        Every partial sum is an exact float: each segment's sums start at 0
        (the same floats), only the classes present in a segment are scored
        (the others add exact zeros), and features known constant are skipped.
    squares_exact : bool
        With ``exact`` and Gini, also every sum of squared class weights (a
        segment's total weight squared below :math:`2^{53}`): the children's
        :math:`\sum_k c_k^2` are then updated sample by sample, in
        :math:`O(1)`, to the floats of the sum over the classes.
    use_mask, mask : bool, ndarray of shape (n_segments, n_features), bool
        The features each segment may use (``max_features``).
    use_rank, rank : bool, ndarray of shape (n_segments, n_features), int
        Tie ranks (lower first); otherwise the feature index.
    constant : ndarray of shape (n_segments, n_features), bool
        Features known constant in a segment (not read); set where found constant.
    out_proxy, out_feature, out_position, out_rank : ndarray of shape (n_segments,)
        The best proxy (-inf), its feature (-1), the position after which it
        cuts and its rank; filled in.
    out_threshold, out_cut, out_n_left, out_go_left : ndarray of shape (n_segments,)
        Where a segment splits, the fields of :class:`dtree.splitting.SplitResult`
        (:func:`_finish`); left as they are elsewhere.

    Returns
    -------
    bool
        False if a proxy is NaN (the outputs are then incomplete: the caller
        searches the level with :func:`dtree.splitting.best_splits`), else True.
    """
    n_features = order.shape[0]
    n_classes = totals.shape[0]
    incremental = exact and squares_exact and criterion == GINI
    left = np.zeros(n_classes)
    # The classes scored in a segment, in their order: with exact sums only
    # those present in it (dtree.splitting._present_classes), else all.
    classes = np.empty((starts.shape[0], n_classes), np.int32)
    n_scored = np.zeros(starts.shape[0], np.intp)
    for j in range(starts.shape[0]):
        for k in range(n_classes):
            if totals[k, j] > 0 or not exact:
                classes[j, n_scored[j]] = k
                n_scored[j] += 1
    part_left = np.empty(n_classes)
    part_right = np.empty(n_classes)
    for f in range(n_features):
        left[:] = 0.0
        for j in range(starts.shape[0]):
            start, end = starts[j], starts[j] + sizes[j]
            skip = constant[j, f] or (use_mask and not mask[j, f]) or sizes[j] < 2 * min_samples_leaf
            if exact and skip:
                continue
            scored = classes[j, :n_scored[j]]
            cl, cr = part_left[:scored.shape[0]], part_right[:scored.shape[0]]
            # Gini's running sums (incremental): children's weights and sums of squares.
            w_left, w_right, sq_left, sq_right = 0.0, 0.0, 0.0, 0.0
            if incremental:
                for i in range(scored.shape[0]):
                    c = totals[scored[i], j]
                    w_right += c
                    sq_right += c * c
            varies = False
            best, best_p = -np.inf, -1
            value = _value(values, by_feature, f, order[f, start])
            for p in range(start, end):
                s = order[f, p]
                w = weight[s] if has_weight else 1.0
                k = codes[s]
                if p == start and j > 0 and not exact:
                    # The level's running sum restarts here (segment_prefix_sums):
                    # + (statistics - previous segment's total), class by class.
                    for c in range(n_classes):
                        left[c] = left[c] + ((w if k == c else 0.0) - totals[c, j - 1])
                elif incremental:        # exact integers: (l + w)^2 - l^2 adds no rounding
                    l, r = left[k], totals[k, j] - left[k]
                    sq_left += (l + w) * (l + w) - l * l
                    sq_right += (r - w) * (r - w) - r * r
                    w_left += w
                    w_right -= w
                    left[k] = l + w
                else:
                    left[k] += w
                if skip or p == end - 1:
                    continue
                below, value = value, _value(values, by_feature, f, order[f, p + 1])
                if not value > below:                     # no gap: tied values
                    continue
                varies = True
                n_left = p - start + 1
                if n_left < min_samples_leaf or sizes[j] - n_left < min_samples_leaf:
                    continue
                if incremental:          # W (1 - sum_k c_k^2 / W^2), as _weighted_impurity
                    proxy = (-((1.0 - sq_right / (w_right * w_right)) * w_right)
                             - (1.0 - sq_left / (w_left * w_left)) * w_left)
                else:
                    w_left, w_right = 0.0, 0.0
                    for i in range(scored.shape[0]):
                        cl[i] = left[scored[i]]
                        cr[i] = totals[scored[i], j] - cl[i]
                        w_left += cl[i]
                        w_right += cr[i]
                    proxy = (-_weighted_impurity(cr, criterion)
                             - _weighted_impurity(cl, criterion))
                if proxy != proxy:
                    return False
                if min_weight_leaf > 0 and (w_left < min_weight_leaf or w_right < min_weight_leaf):
                    proxy = -np.inf
                if proxy > best:
                    best, best_p = proxy, p
            if exact:                    # the classes of the segment back to 0
                for i in range(scored.shape[0]):
                    left[scored[i]] = 0.0
            if not skip:
                _close(j, f, varies, best, best_p, constant, use_rank, rank, out_proxy,
                       out_feature, out_position, out_rank)
    _finish(values, by_feature, order, starts, sizes, out_feature, out_position, out_threshold,
            out_cut, out_n_left, out_go_left)
    return True


@_jit
def search_regression(values, by_feature, order, starts, sizes, stats, totals, criterion,
                      min_samples_leaf, min_weight_leaf, use_mask, mask, use_rank, rank,
                      constant, out_proxy, out_feature, out_position, out_rank, out_threshold,
                      out_cut, out_n_left, out_go_left):
    """:func:`search_classes` for the squared error, Friedman's MSE and Poisson.

    ``stats`` (n_stats, n_samples) and ``totals`` (n_stats, n_segments) hold
    :math:`w` and :math:`wy` in their first two rows; the running sums go on
    across segments (the level's floats), so every position is summed.
    """
    n_features = order.shape[0]
    for f in range(n_features):
        w_left, s_left = 0.0, 0.0
        for j in range(starts.shape[0]):
            start, end = starts[j], starts[j] + sizes[j]
            skip = constant[j, f] or (use_mask and not mask[j, f]) or sizes[j] < 2 * min_samples_leaf
            w_node, s_node = totals[0, j], totals[1, j]
            varies = False
            best, best_p = -np.inf, -1
            value = _value(values, by_feature, f, order[f, start])
            for p in range(start, end):
                s = order[f, p]
                if p == start and j > 0:     # + (statistics - previous segment's total)
                    w_left = w_left + (stats[0, s] - totals[0, j - 1])
                    s_left = s_left + (stats[1, s] - totals[1, j - 1])
                else:
                    w_left += stats[0, s]
                    s_left += stats[1, s]
                if skip or p == end - 1:
                    continue
                below, value = value, _value(values, by_feature, f, order[f, p + 1])
                if not value > below:                     # no gap: tied values
                    continue
                varies = True
                n_left = p - start + 1
                if n_left < min_samples_leaf or sizes[j] - n_left < min_samples_leaf:
                    continue
                w_right, s_right = w_node - w_left, s_node - s_left
                proxy = _regression_proxy(w_left, s_left, w_right, s_right, criterion)
                if proxy != proxy:
                    return False
                if min_weight_leaf > 0 and (w_left < min_weight_leaf or w_right < min_weight_leaf):
                    proxy = -np.inf
                if proxy > best:
                    best, best_p = proxy, p
            if not skip:
                _close(j, f, varies, best, best_p, constant, use_rank, rank, out_proxy,
                       out_feature, out_position, out_rank)
    _finish(values, by_feature, order, starts, sizes, out_feature, out_position, out_threshold,
            out_cut, out_n_left, out_go_left)
    return True


@_jit
def partition_level(order, starts, sizes, feature, cut, n_missing, missing_left, goes_left,
                    buffer):
    """Stably split every segment of ``order`` (n_features, m) by its split, in place.

    :func:`dtree.splitting.goes_left` and :func:`dtree.splitting.partition`
    in one pass: segment ``j``'s first ``cut[j]`` samples in the order of
    ``feature[j]`` go left, its last ``n_missing[j]`` go left if
    ``missing_left[j]``, the others right; every feature's row of the segment
    then holds its left samples, then its right ones, each in their order.
    ``goes_left`` (n_samples,) bool and ``buffer`` (m,) of ``order``'s type are
    scratch space.
    """
    for j in range(starts.shape[0]):
        start, size = starts[j], sizes[j]
        f = feature[j]
        for i in range(size):
            s = order[f, start + i]
            if i < cut[j]:
                goes_left[s] = True
            elif i < size - n_missing[j]:
                goes_left[s] = False
            else:
                goes_left[s] = missing_left[j]
    for g in range(order.shape[0]):
        for j in range(starts.shape[0]):
            start, size = starts[j], sizes[j]
            n_left = 0
            n_right = 0
            for i in range(start, start + size):      # left ones in place, right ones aside
                s = order[g, i]
                left = goes_left[s]
                order[g, start + n_left] = s           # both written, one kept: no branch
                buffer[n_right] = s
                n_left += left
                n_right += 1 - left
            for i in range(n_right):
                order[g, start + n_left + i] = buffer[i]


@_jit
def keep_positions(order, keep):
    """Move the positions where ``keep`` (m,) is true to the front of every row of ``order``.

    In place and in their order (:func:`dtree.splitting._keep_columns`);
    returns their number.
    """
    n_kept = 0
    for g in range(order.shape[0]):
        n_kept = 0
        for i in range(order.shape[1]):
            if keep[i]:
                order[g, n_kept] = order[g, i]
                n_kept += 1
    return n_kept


@_jit
def segment_totals(samples, starts, codes, weight, has_weight, stats, out):
    """Each segment's statistics summed one sample after another, in ``out`` (n_stats, n_segments).

    :meth:`dtree.criteria.Criterion.node_stats` for ``samples`` (m,), the
    segments starting at ``starts``: class weights where ``codes`` (n_samples,)
    is not empty (``out`` has a row per class; for exact sums only, which any
    order gives), else the rows of ``stats`` (n_stats, n_samples), each
    segment added in the order of ``samples`` from 0, as ``numpy.bincount``
    adds them: the same floats.
    """
    out[:, :] = 0.0
    m = samples.shape[0]
    for j in range(starts.shape[0]):
        end = starts[j + 1] if j + 1 < starts.shape[0] else m
        for p in range(starts[j], end):
            s = samples[p]
            if codes.shape[0]:
                out[codes[s], j] += weight[s] if has_weight else 1.0
            else:
                for k in range(stats.shape[0]):
                    out[k, j] += stats[k, s]
