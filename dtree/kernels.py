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
(:func:`keep_positions`) and the nodes' sums (:func:`segment_totals`; the
absolute error's weighted medians, :func:`segment_medians`) are compiled
too, each the same as its NumPy version.  :func:`grow_levels` runs
them all, level after level, with the leaf rules and
``min_impurity_decrease``, in one call per tree, for the cases whose
decisions it takes on NumPy's floats (``dtree.growth._grow_compiled``);
``tests/test_kernels.py`` holds its trees equal to those of the loop over
levels.

What is compiled is only the common case: dense ``X`` without missing values,
an additive criterion of one output (or a regression's of several, or Gini
or entropy of several outputs with exact sums; Gini also with exact sums of
squares), or the absolute error where its sums are exact
(:func:`search_deviations`: whole positive weights, targets of few binary
digits, such as integers, and totals below :math:`2^{52}`), no monotonicity constraint,
every midpoint a candidate (``splitter="best"``).  Sparse ``X``
(:mod:`dtree.sparse`, and a dense ``X`` of mostly zeros searched as one) has
its own kernels: :func:`search_sparse` scores a level from the stored values
(Gini or entropy of one output with exact sums), :func:`search_sparse_regression`
a regression's (the squared error, Friedman's MSE or Poisson, of one output or
several, with the NumPy search's running sums), :func:`sparse_goes_left`,
:func:`partition_entries` and :func:`keep_entries` keep those values sorted
by (feature, node, value) as the level is split, and :func:`apply_sparse`
sends the rows of a CSR matrix down the tree.  Everything else, and every
level whose proxy gives a NaN somewhere, goes through the NumPy sweep.
Numba is imported on the first fit that needs it; without it (or with the
environment variable ``DTREE_NUMBA=0``) every level goes through NumPy, with
the same trees.
"""

from __future__ import annotations

import os
import signal
import threading
import warnings

import numpy as np

__all__ = ["ENABLED", "CacheUnavailableWarning", "GINI", "ENTROPY", "SQUARED_ERROR", "FRIEDMAN_MSE", "POISSON",
           "ABSOLUTE_ERROR",
           "GROWN", "NAN_PROXY", "CLOSE_DECREASE", "SPLIT", "TOO_SMALL", "PURE",
           "NO_SPLIT_FOUND", "TOO_SMALL_DECREASE", "apply_dense", "apply_sparse", "available", "grow_levels",
           "grow_start", "grown_tree",
           "keep_entries", "keep_positions", "partition_entries", "partition_level", "search_classes",
           "search_deviations", "search_sparse", "sparse_goes_left",
           "search_regression", "search_sparse_regression", "segment_medians", "segment_totals"]

#: Whether the compiled sweep is used (where Numba is installed); the
#: environment variable ``DTREE_NUMBA=0`` turns it off, and tests set it to
#: False to compare the NumPy sweep with it.
ENABLED = os.environ.get("DTREE_NUMBA", "1") != "0"

# The criteria the kernels compute (dtree.criteria's proxies).
GINI, ENTROPY, SQUARED_ERROR, FRIEDMAN_MSE, POISSON, ABSOLUTE_ERROR = range(6)

EPSILON = np.finfo(np.float64).eps          # dtree.criteria.EPSILON (Poisson's guard)

_COMPILED = []         # the functions below, in order: compiled together on first use
_STATE = {}            # "numba": the module, or None where it cannot be imported
_LOCK = threading.Lock()   # one thread decorates the functions; the others wait for it


def _jit(function):
    """Mark ``function`` for compilation (numba.njit) when :func:`available` is first asked."""
    _COMPILED.append(function.__name__)
    return function


class CacheUnavailableWarning(UserWarning):
    """Numba cannot keep compiled code on disk here: dtree compiles in every new process."""


def _decorate(numba, functions):
    """``{name: compiled function}`` of ``functions``, cached on disk where Numba can.

    Numba refuses ``cache=True`` where neither the package's folder nor a
    cache folder of the user's is writable (a read-only install with a
    read-only home); then the functions are compiled without a cache, with
    one :class:`CacheUnavailableWarning`.
    """
    try:
        return {name: numba.njit(cache=True, nogil=True, error_model="numpy")(function)
                for name, function in functions.items()}
    except RuntimeError as error:
        if "cannot cache" not in str(error):
            raise
    warnings.warn("dtree: Numba cannot cache compiled code here (no writable cache folder: set NUMBA_CACHE_DIR "
                  "to one); the split search is compiled again in every new process",
                  CacheUnavailableWarning, stacklevel=4)
    return {name: numba.njit(cache=False, nogil=True, error_model="numpy")(function)
            for name, function in functions.items()}


class _DeferInterrupts:
    """A Numba event listener: Ctrl-C while Numba compiles takes effect when it is done.

    A ``KeyboardInterrupt`` raised inside Numba's compiler can leave a
    dispatcher half made (a later call segfaults, or raises "no compiled
    object yet"). While the main thread holds, or waits for, Numba's compiler
    lock (every compilation and every load from the cache happens under it,
    dtree's and any other code's in the process), SIGINT only records that it
    came; when the outermost hold ends, the previous handler is put back and
    given the interrupt there, after the compiled function is complete (the
    end events of listeners registered after this one are then skipped, as
    for any exception). Other threads are left alone (Python delivers
    signals to the main thread only); a handler installed from C (which
    Python cannot put back) is left in place, undeferred. One listener serves
    the process, however often this module is reloaded.
    """

    def __init__(self):
        self.depth = 0
        self.previous = None
        self.pending = None

    def _record(self, signum, frame):
        self.pending = (signum, frame)

    def _installed(self):
        return signal.getsignal(signal.SIGINT) == self._record   # the same function of the same listener

    def on_start(self, event):
        if threading.current_thread() is not threading.main_thread():
            return
        if self.depth == 0 and not self._installed():
            previous = signal.getsignal(signal.SIGINT)
            if previous is not None:  # None: a handler from C, which could not be put back
                self.previous = previous
                signal.signal(signal.SIGINT, self._record)
        self.depth += 1

    def on_end(self, event):
        if threading.current_thread() is not threading.main_thread():
            return
        self.depth = max(self.depth - 1, 0)
        if self.depth or not self._installed():
            return
        previous, self.previous = self.previous, None
        signal.signal(signal.SIGINT, previous)
        pending, self.pending = self.pending, None
        if pending is None:
            return
        if callable(previous):
            previous(*pending)  # Python's default handler raises KeyboardInterrupt
        elif previous == signal.SIG_DFL:
            os.kill(os.getpid(), pending[0])  # the default action, now that it is back


def _install(numba):
    """Decorate the functions of :data:`_COMPILED` (atomically) and defer Ctrl-C while Numba compiles."""
    from numba.core import event

    names = globals()
    compiled = _decorate(numba, {name: names[name] for name in _COMPILED})
    if not hasattr(event, "_dtree_defer_interrupts"):  # once per process, not per import of this module
        class Listener(_DeferInterrupts, event.Listener):
            pass

        event._dtree_defer_interrupts = Listener()
        event.register("numba:compiler_lock", event._dtree_defer_interrupts)
    names.update(compiled)   # one step: a caller sees all the compiled functions or none


def available() -> bool:
    """Whether the compiled sweep is installed and enabled (:data:`ENABLED`).

    The first call imports Numba (about 0.4 s; ``import dtree`` does not) and
    replaces the functions of this module by their compiled versions, which
    Numba compiles on their first call for each combination of argument types
    (a few seconds each) and caches on disk: in ``dtree/__pycache__``, or in a
    cache of the user's where that folder is not writable, or nowhere (with a
    :class:`CacheUnavailableWarning`) where neither is. Safe to call from
    several threads at once: one decorates, the others wait. A Ctrl-C while
    Numba compiles takes effect when that compilation is complete.
    """
    if not ENABLED:
        return False
    if "numba" not in _STATE:
        with _LOCK:
            if "numba" not in _STATE:
                try:
                    import numba
                except ImportError:          # the NumPy sweep does everything
                    numba = None
                if numba is not None:
                    _install(numba)
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
def _c_log2_c(c):
    r""":math:`c \log_2 c` (0 at 0): a term of :math:`W\,H = W \log_2 W - \sum_k c_k \log_2 c_k`."""
    return c * np.log2(c) if c > 0 else 0.0


@_jit
def _outputs_weighted_entropy(c, rows, edges, total):
    r""":math:`W\,i(c)` of the entropy of several outputs: the mean of their entropies.

    ``c`` the class weights of the rows ``rows`` (increasing; the others are
    0), ``edges`` each output's first row, ``total`` :math:`W` (the first
    output's weight).  ``dtree.criteria._MultiOutputClassification``'s order:
    each output's :math:`p \log_2 p` summed over its classes, then the
    outputs one after another, :math:`-\sum / m`.
    """
    m = edges.shape[0] - 1
    entropy = 0.0
    i = 0
    for output in range(m):
        acc = 0.0
        while i < rows.shape[0] and rows[i] < edges[output + 1]:
            p = c[i] / total
            if p > 0:
                acc += p * np.log2(p)
            i += 1
        entropy = acc if output == 0 else entropy + acc
    return total * (-entropy / m + 0.0)


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
def _outputs_proxy(w_left, s_left, w_right, s_right, criterion):
    r"""The proxy of a cut of ``m`` outputs, from the children's weights and sums ``(m,)``.

    ``dtree.criteria._MultiOutputRegression.proxy`` in NumPy's order (sums
    over the outputs one after another): :math:`\sum_k S_{L,k}^2 / W_L +
    \sum_k S_{R,k}^2 / W_R`; Friedman's on :math:`S = \sum_k S_k`; Poisson's
    the outputs' proxies summed (``m`` > 1; for one, :func:`_regression_proxy`).
    """
    m = s_left.shape[0]
    if criterion == SQUARED_ERROR:
        left, right = s_left[0] * s_left[0], s_right[0] * s_right[0]
        for k in range(1, m):
            left += s_left[k] * s_left[k]
            right += s_right[k] * s_right[k]
        return left / w_left + right / w_right
    if criterion == FRIEDMAN_MSE:
        left, right = s_left[0], s_right[0]
        for k in range(1, m):
            left += s_left[k]
            right += s_right[k]
        return _regression_proxy(w_left, left, w_right, right, criterion)
    score = _regression_proxy(w_left, s_left[0], w_right, s_right[0], criterion)
    for k in range(1, m):
        score = score + _regression_proxy(w_left, s_left[k], w_right, s_right[k], criterion)
    return score


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
def search_classes(values, by_feature, order, starts, sizes, codes, more_codes, edges,
                   weight, has_weight, totals, criterion, min_samples_leaf, min_weight_leaf,
                   exact, squares_exact, use_mask, mask, use_rank, rank, constant,
                   out_proxy, out_feature, out_position, out_rank, out_threshold, out_cut,
                   out_n_left, out_go_left):
    r"""Best cut of every segment of a level for Gini or entropy; False if a proxy is NaN.

    Each cut's proxy is computed in NumPy's order (the classes of a child one
    after another), except where it cannot be a segment's best: for the
    entropy of one output with ``exact`` sums, the sweep keeps
    :math:`T = \sum_k c_k \log_2 c_k` of both children up to date (at a
    cut, two logarithms for each class moved since the last cut) and bounds
    each cut's proxy
    :math:`-W_L H_L - W_R H_R = T_L + T_R - W_L \log_2 W_L - W_R \log_2 W_R`
    in :math:`O(1)`, however many classes; a cut whose bound, plus a margin
    above any rounding of the two formulas
    (:math:`16\varepsilon (K + n + 8)(W (|\log_2 W| + 2) + K)` for :math:`K`
    classes and :math:`n` samples in the segment), is below the best proxy
    so far is skipped.  scikit-learn, and the NumPy sweep, take a logarithm
    per class at every cut.

    Parameters
    ----------
    values : ndarray, float32 or float64
        ``X`` of shape (n_samples, n_features), or ``float32(X).T`` of shape
        (n_features, n_samples) if ``by_feature``.
    order : ndarray of shape (n_features, m), unsigned int
        The segments sorted by each feature (:class:`dtree.splitting.BestSplitter`).
    starts, sizes : ndarray of shape (n_segments,), int
    codes : ndarray of shape (n_samples,), unsigned int
        Class of each sample (in the first output); ``weight`` its weight if
        ``has_weight`` (else 1).
    more_codes : ndarray of shape (n_outputs - 1, n_samples), int
        With several outputs (:class:`dtree.criteria.OutputsClassWeights`),
        the row of ``totals`` of each sample's class in each further output;
        shape (0, 1) for one output.  Several outputs require ``exact`` sums,
        and for Gini ``squares_exact`` (the caller's to check: the other
        branches score one output).
    edges : ndarray of shape (n_outputs + 1,), int
        The first row of each output's classes, then ``n_classes``
        (``[0, n_classes]`` for one output); a node's weight is the sum of
        the first output's.
    totals : ndarray of shape (n_classes, n_segments), float64
        Each segment's class weights (``criterion.node_stats``; of several
        outputs, the blocks of rows one after another).
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
    n_more = more_codes.shape[0]
    # The entropy of one output with exact sums: each cut's proxy is first
    # bounded in O(1) (see below), and computed in NumPy's order only where
    # it may be the segment's best.
    bounded = exact and criterion == ENTROPY and n_more == 0
    f_left = np.zeros(n_classes if bounded else 0)
    f_right = np.zeros(n_classes if bounded else 0)
    stale = np.empty(n_classes if bounded else 0, np.intp)   # classes moved since the last bound
    is_stale = np.zeros(n_classes if bounded else 0, np.bool_)
    n_stale = 0
    n_outputs = float(n_more + 1)       # the mean over outputs: sum_k c_k^2 / (W^2 m)
    n_first = edges[1]
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
                    if scored[i] < n_first:
                        w_right += c
                    sq_right += c * c
            # The entropy's bound: with T_L = sum_k c_k log2 c_k over the left
            # child's classes (T_R the right's), the proxy -W_L H_L - W_R H_R
            # is T_L + T_R - W_L log2 W_L - W_R log2 W_R, brought up to date at
            # each cut (the two terms of each class moved left since the last
            # cut recomputed: at most one per sample, and per cut at most the
            # classes, a logarithm per class as the proxy takes).  Its
            # float and the proxy's (NumPy's order, sum_k p_k log2 p_k) differ
            # by rounding only, less than `slack`: a cut whose bound plus
            # slack is below the best proxy so far cannot be the best (nor
            # tie with it) and is not computed.
            t_left, t_right, w_sweep, w_node, slack = 0.0, 0.0, 0.0, 0.0, 0.0
            if bounded:
                for i in range(n_stale):
                    is_stale[stale[i]] = False
                n_stale = 0
                for i in range(scored.shape[0]):
                    c = totals[scored[i], j]
                    w_node += c
                    f_left[scored[i]] = 0.0
                    f_right[scored[i]] = _c_log2_c(c)
                    t_right += f_right[scored[i]]
                slack = (16.0 * EPSILON * (scored.shape[0] + sizes[j] + 8)
                         * (w_node * (abs(np.log2(w_node)) + 2.0) + scored.shape[0]))
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
                    for o in range(n_more):  # the sample's class in each further output
                        k = more_codes[o, s]
                        l, r = left[k], totals[k, j] - left[k]
                        sq_left += (l + w) * (l + w) - l * l
                        sq_right += (r - w) * (r - w) - r * r
                        left[k] = l + w
                else:
                    left[k] += w
                    for o in range(n_more):
                        left[more_codes[o, s]] += w
                    if bounded and not skip and w != 0:   # (a class of weight 0 is not scored)
                        w_sweep += w
                        if not is_stale[k]:
                            is_stale[k] = True
                            stale[n_stale] = k
                            n_stale += 1
                if skip or p == end - 1:
                    continue
                below, value = value, _value(values, by_feature, f, order[f, p + 1])
                if not value > below:                     # no gap: tied values
                    continue
                varies = True
                n_left = p - start + 1
                if n_left < min_samples_leaf or sizes[j] - n_left < min_samples_leaf:
                    continue
                if bounded:
                    for i in range(n_stale):
                        moved = stale[i]
                        is_stale[moved] = False
                        term = _c_log2_c(left[moved])
                        t_left += term - f_left[moved]
                        f_left[moved] = term
                        term = _c_log2_c(totals[moved, j] - left[moved])
                        t_right += term - f_right[moved]
                        f_right[moved] = term
                    n_stale = 0
                    bound = (t_left + t_right - _c_log2_c(w_sweep)
                             - _c_log2_c(w_node - w_sweep))
                    # (children of weight 0 are computed: their proxy is NaN)
                    if (bound + slack < max(best, out_proxy[j]) and w_sweep > 0
                            and w_node - w_sweep > 0):
                        continue
                if incremental:          # W (1 - sum_k c_k^2 / (W^2 m)), as _weighted_impurity
                    proxy = (-((1.0 - sq_right / (w_right * w_right * n_outputs)) * w_right)
                             - (1.0 - sq_left / (w_left * w_left * n_outputs)) * w_left)
                else:
                    w_left, w_right = 0.0, 0.0
                    for i in range(scored.shape[0]):
                        cl[i] = left[scored[i]]
                        cr[i] = totals[scored[i], j] - cl[i]
                        if scored[i] < n_first:
                            w_left += cl[i]
                            w_right += cr[i]
                    if n_more == 0:
                        proxy = (-_weighted_impurity(cr, criterion)
                                 - _weighted_impurity(cl, criterion))
                    else:
                        proxy = (-_outputs_weighted_entropy(cr, scored, edges, w_right)
                                 - _outputs_weighted_entropy(cl, scored, edges, w_left))
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
                      n_outputs, min_samples_leaf, min_weight_leaf, use_mask, mask, use_rank,
                      rank, constant, out_proxy, out_feature, out_position, out_rank,
                      out_threshold, out_cut, out_n_left, out_go_left):
    """:func:`search_classes` for the squared error, Friedman's MSE and Poisson.

    ``stats`` (n_stats, n_samples) and ``totals`` (n_stats, n_segments) hold
    :math:`w` in their first row and :math:`w y_k` of the ``n_outputs``
    outputs in the next ones; the running sums go on across segments (the
    level's floats), so every position is summed.
    """
    n_features = order.shape[0]
    m = n_outputs          # output 0's running sum in a scalar, the others' in s_left
    s_left = np.zeros(m)
    s_right = np.zeros(m)
    for f in range(n_features):
        w_left, s_left0 = 0.0, 0.0
        s_left[:] = 0.0
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
                    s_left0 = s_left0 + (stats[1, s] - totals[1, j - 1])
                    for k in range(1, m):
                        s_left[k] = s_left[k] + (stats[1 + k, s] - totals[1 + k, j - 1])
                else:
                    w_left += stats[0, s]
                    s_left0 += stats[1, s]
                    for k in range(1, m):
                        s_left[k] += stats[1 + k, s]
                if skip or p == end - 1:
                    continue
                below, value = value, _value(values, by_feature, f, order[f, p + 1])
                if not value > below:                     # no gap: tied values
                    continue
                varies = True
                n_left = p - start + 1
                if n_left < min_samples_leaf or sizes[j] - n_left < min_samples_leaf:
                    continue
                w_right = w_node - w_left
                if m == 1:
                    proxy = _regression_proxy(w_left, s_left0, w_right, s_node - s_left0,
                                              criterion)
                else:
                    s_left[0] = s_left0
                    for k in range(m):
                        s_right[k] = totals[1 + k, j] - s_left[k]
                    proxy = _outputs_proxy(w_left, s_left, w_right, s_right, criterion)
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
def _fenwick_add(tree_w, tree_s, rank, w, ws):
    """Add weight ``w`` and ``ws`` (:math:`w y`) at ``rank`` of the Fenwick trees (1-based)."""
    i = rank + 1
    while i < tree_w.shape[0]:
        tree_w[i] += w
        tree_s[i] += ws
        i += i & -i


@_jit
def _add_sample(stats, s, tree_w, tree_s, rank_of, s_side):
    """Add sample ``s`` to a child: each output's Fenwick trees and sum of :math:`w y`; its weight."""
    w = stats[0, s]
    for k in range(tree_w.shape[0]):
        ws = w * stats[1 + k, s]
        s_side[k] += ws
        _fenwick_add(tree_w[k], tree_s[k], rank_of[k, s], w, ws)
    return w


@_jit
def _fenwick_deviation(tree_w, tree_s, n, top, W, S, y_by_rank):
    r""":math:`D = \sum_i w_i |y_i - \tilde y|` of the samples in the Fenwick trees.

    ``W`` and ``S`` are their weight and :math:`\sum w y`, ``n`` the trees'
    size and ``top`` its highest power of 2.  :math:`\tilde y` is the lowest
    weighted median (the first target, by rank, whose cumulative weight
    reaches :math:`W/2`); with :math:`W_<`, :math:`S_<` the weight and sum
    of the targets ranked below it,
    :math:`D = (S - 2 S_<) + \tilde y (2 W_< - W)`.  Any weighted median
    gives the same :math:`D` (the sum is flat between the lowest and the
    highest), so it is scikit-learn's (and ``order_statistics``') too.
    """
    half = W / 2.0
    at, w_below, s_below = 0, 0.0, 0.0
    step = top
    while step > 0:             # the longest prefix of ranks lighter than W/2
        nxt = at + step
        if nxt <= n and w_below + tree_w[nxt] < half:
            at = nxt
            w_below += tree_w[nxt]
            s_below += tree_s[nxt]
        step >>= 1
    return (S - 2.0 * s_below) + y_by_rank[at] * (2.0 * w_below - W)


@_jit
def search_deviations(values, by_feature, order, starts, sizes, stats, totals, n_outputs,
                      min_samples_leaf, min_weight_leaf, use_mask, mask, use_rank, rank,
                      constant, out_proxy, out_feature, out_position, out_rank, out_threshold,
                      out_cut, out_n_left, out_go_left):
    r""":func:`search_classes` for the absolute error, where its sums are exact.

    ``stats`` (1 + m, n_samples) holds each sample's weight and its ``m =
    n_outputs`` targets (``AbsoluteError.sample_stats``), ``totals``
    (1 + 2m, n_segments) the nodes' :math:`(W, \tilde y_k, D_k)`.  The proxy
    of a cut is :math:`-\sum_k (D_{L,k} + D_{R,k})`
    (``AbsoluteError.proxy``): each child's sum of absolute deviations from
    its weighted median, found as the sweep adds the samples one by one to a
    Fenwick tree over the node's targets by rank, left to right for the left
    child and right to left for the right one, in :math:`O(\log n)` a cut
    (scikit-learn keeps two heaps of a median, :math:`O(n)` an update).

    The caller checks that every sum is an exact float (whole positive
    weights, targets of few binary digits, small totals:
    ``dtree.splitting._deviations_exact``): the proxies are then the exact
    numbers, the floats of the NumPy sweep's wavelet matrix whatever the order
    of the additions, and the splits are those of
    :func:`dtree.splitting.best_splits`.

    Parameters
    ----------
    values, by_feature, order, starts, sizes
        As for :func:`search_classes`.
    stats : ndarray of shape (1 + n_outputs, n_samples), float64
        Weight (whole, positive) and targets of each sample.
    totals : ndarray of shape (1 + 2 n_outputs, n_segments), float64
        Each segment's :math:`W`, medians and deviations (row 0 is read).
    n_outputs : int
    min_samples_leaf, min_weight_leaf, use_mask, mask, use_rank, rank, constant
        As for :func:`search_classes`.
    out_proxy, out_feature, out_position, out_rank, out_threshold, out_cut, out_n_left, out_go_left
        As for :func:`search_classes`; filled in.

    Returns
    -------
    bool
        True (a proxy of exact sums is never NaN).

    References
    ----------
    Breiman, Friedman, Olshen and Stone, *Classification and Regression
    Trees* (1984), section 8.11 (least absolute deviation); Fenwick, "A new
    data structure for cumulative frequency tables", *Software: Practice and
    Experience* 24(3), 1994.
    """
    n_features = order.shape[0]
    m = n_outputs
    largest = 0
    for j in range(starts.shape[0]):
        largest = max(largest, sizes[j])
    tree_w = np.zeros((m, largest + 1))
    tree_s = np.zeros((m, largest + 1))
    y_by_rank = np.empty((m, largest))
    rank_of = np.empty((m, stats.shape[1]), np.intp)
    deviation_left = np.empty(largest)
    is_cut = np.zeros(largest, np.bool_)
    s_side = np.zeros(m)
    for j in range(starts.shape[0]):
        start, end, size = starts[j], starts[j] + sizes[j], sizes[j]
        if size < 2 * min_samples_leaf:
            continue
        top = 1
        while 2 * top <= size:
            top *= 2
        samples = order[0, start:end]
        for k in range(m):      # the node's targets by rank (ties in any order)
            targets = np.empty(size)
            for i in range(size):
                targets[i] = stats[1 + k, samples[i]]
            by_rank = np.argsort(targets)
            for r in range(size):
                rank_of[k, samples[by_rank[r]]] = r
                y_by_rank[k, r] = targets[by_rank[r]]
        w_node = totals[0, j]
        for f in range(n_features):
            if constant[j, f] or (use_mask and not mask[j, f]):
                continue
            # Left to right: the candidate cuts and the left children's D.
            tree_w[:, :size + 1] = 0.0
            tree_s[:, :size + 1] = 0.0
            s_side[:] = 0.0
            w_left = 0.0
            varies = False
            value = _value(values, by_feature, f, order[f, start])
            for p in range(start, end - 1):
                w_left += _add_sample(stats, order[f, p], tree_w, tree_s, rank_of, s_side)
                below, value = value, _value(values, by_feature, f, order[f, p + 1])
                is_cut[p - start] = False
                if not value > below:                     # no gap: tied values
                    continue
                varies = True
                n_left = p - start + 1
                if n_left < min_samples_leaf or size - n_left < min_samples_leaf:
                    continue
                if min_weight_leaf > 0 and (w_left < min_weight_leaf
                                            or w_node - w_left < min_weight_leaf):
                    continue
                is_cut[p - start] = True
                d = 0.0
                for k in range(m):
                    d += _fenwick_deviation(tree_w[k], tree_s[k], size, top, w_left,
                                            s_side[k], y_by_rank[k])
                deviation_left[p - start] = d
            # Right to left: the right children's D, and the best cut (the first
            # of the largest proxy, as the sweep left to right keeps it).
            best, best_p = -np.inf, -1
            tree_w[:, :size + 1] = 0.0
            tree_s[:, :size + 1] = 0.0
            s_side[:] = 0.0
            w_right = 0.0
            for p in range(end - 1, start, -1):
                w_right += _add_sample(stats, order[f, p], tree_w, tree_s, rank_of, s_side)
                if not is_cut[p - 1 - start]:
                    continue
                d = 0.0
                for k in range(m):
                    d += _fenwick_deviation(tree_w[k], tree_s[k], size, top, w_right,
                                            s_side[k], y_by_rank[k])
                proxy = -(deviation_left[p - 1 - start] + d)
                if proxy >= best:
                    best, best_p = proxy, p - 1
            _close(j, f, varies, best, best_p, constant, use_rank, rank, out_proxy,
                   out_feature, out_position, out_rank)
    _finish(values, by_feature, order, starts, sizes, out_feature, out_position, out_threshold,
            out_cut, out_n_left, out_go_left)
    return True


@_jit
def _group_end(col, segment, a):
    """One past the last stored value of the (feature, segment) group starting at ``a``."""
    b = a + 1
    while b < col.shape[0] and col[b] == col[a] and segment[b] == segment[a]:
        b += 1
    return b


@_jit
def _upper_of_cut(value, i, b, n_zero):
    """The value after the cut that follows stored value ``i`` of a group ending at
    ``b`` (``n_zero`` zeros in its segment): 0 before the zero run, the next stored
    value where it is larger, or NaN where there is no cut (tied values, or the last)."""
    if value[i] < 0 and n_zero > 0 and (i == b - 1 or value[i + 1] > 0):
        return np.float32(0.0)                            # the cut before the zero run
    if i < b - 1 and value[i + 1] > value[i]:
        return value[i + 1]
    return np.float32(np.nan)


@_jit
def _keep_sparse_cut(j, f, proxy, w_left, w_right, n_left, lower, upper, min_weight_leaf,
                     use_rank, rank, out_proxy, out_feature, out_n_left, out_lower, out_upper,
                     out_rank):
    """Keep the cut of segment ``j`` on feature ``f`` if it is the best so far (ties: the
    lower rank; the caller scores a feature's cuts from the lowest).  False if ``proxy``
    is NaN; a -inf proxy, or a child lighter than ``min_weight_leaf``, is never kept."""
    if proxy != proxy:
        return False
    if proxy == -np.inf or (min_weight_leaf > 0 and (w_left < min_weight_leaf
                                                     or w_right < min_weight_leaf)):
        return True
    r = rank[j, f] if use_rank else np.float64(f)
    if proxy > out_proxy[j] or (proxy == out_proxy[j] and r < out_rank[j]):
        out_proxy[j], out_feature[j], out_n_left[j] = proxy, f, n_left
        out_lower[j], out_upper[j], out_rank[j] = lower, upper, r
    return True


@_jit
def _sparse_cut(j, f, left, totals, n_left, size, lower, upper, criterion, min_samples_leaf,
                min_weight_leaf, use_rank, rank, cl, cr, out_proxy, out_feature, out_n_left,
                out_lower, out_upper, out_rank):
    """Score the cut of segment ``j`` (``size`` samples) on feature ``f`` whose left
    child holds the class weights ``left`` and ``n_left`` samples; keep it if it
    is the best.  False if its proxy is NaN."""
    if n_left < min_samples_leaf or size - n_left < min_samples_leaf:
        return True
    n_classes = totals.shape[0]
    w_left, w_right = 0.0, 0.0
    for k in range(n_classes):
        cl[k] = left[k]
        cr[k] = totals[k, j] - left[k]                  # right = node - left
        w_left += cl[k]
        w_right += cr[k]
    proxy = -_weighted_impurity(cr, criterion) - _weighted_impurity(cl, criterion)
    return _keep_sparse_cut(j, f, proxy, w_left, w_right, n_left, lower, upper,
                            min_weight_leaf, use_rank, rank, out_proxy, out_feature,
                            out_n_left, out_lower, out_upper, out_rank)


@_jit
def search_sparse(col, segment, row, value, sizes, totals, codes, weight, has_weight,
                  criterion, min_samples_leaf, min_weight_leaf, use_mask, mask, use_rank, rank,
                  out_proxy, out_feature, out_n_left, out_lower, out_upper, out_rank):
    r"""Best cut of every segment of a level of sparse ``X``, Gini or entropy, exact sums.

    :meth:`dtree.sparse.SparseSplitter.search` in one compiled pass over the
    stored values of the level's samples, which are sorted by (feature,
    segment, value).  In a segment, a feature's sorted values are its stored
    negative values, the run of its zeros (the samples without a stored
    value), then its stored positive values; the zero run's class weights
    are the segment's minus the stored values' (exact: every partial sum is
    a whole number below :math:`2^{53}`,
    :attr:`dtree.criteria.ClassWeights.exact_sums`, the caller's to check).
    Every cut between two distinct values (as float32) that leaves
    ``min_samples_leaf`` samples on both sides is scored with the
    criterion's proxy in NumPy's order (:func:`_weighted_impurity`; for the
    entropy with the C library's :math:`\log_2`, see the module docstring).
    Ties: the lowest rank (the feature index, or ``rank``), then the lowest
    cut.  A feature without a stored value in a segment is constant there
    and costs nothing.

    Parameters
    ----------
    col, segment, row : ndarray of shape (nnz,), int
        Feature, segment and sample of each stored value.
    value : ndarray of shape (nnz,), float32
        The stored values (none is 0).
    sizes : ndarray of shape (n_segments,), int
        The segments' sample counts.
    totals : ndarray of shape (n_classes, n_segments), float64
        Each segment's class weights.
    codes, weight, has_weight
        Each sample's class, and its weight if ``has_weight`` (else 1).
    criterion : int
        :data:`GINI` or :data:`ENTROPY`.
    min_samples_leaf, min_weight_leaf
        The smallest children allowed.
    use_mask, mask : bool, ndarray of shape (n_segments, n_features), bool
        The features each segment may use (``max_features``).
    use_rank, rank : bool, ndarray of shape (n_segments, n_features), float64
        Tie ranks (lower first); otherwise the feature index.
    out_proxy, out_feature, out_n_left, out_lower, out_upper, out_rank : ndarray of shape (n_segments,)
        The best proxy (-inf), its feature (-1), the samples it sends left,
        the values either side of it (the threshold is their
        :func:`dtree.splitting.midpoint`) and its rank (inf); filled in.

    Returns
    -------
    bool
        False if a proxy is NaN (the outputs are then incomplete: the caller
        searches with NumPy), else True.
    """
    n_classes = totals.shape[0]
    nnz = col.shape[0]
    left = np.zeros(n_classes)
    zero = np.zeros(n_classes)
    cl = np.empty(n_classes)
    cr = np.empty(n_classes)
    a = 0
    while a < nnz:
        f, j = col[a], segment[a]
        b = _group_end(col, segment, a)
        if (use_mask and not mask[j, f]) or sizes[j] < 2 * min_samples_leaf:
            a = b
            continue
        # The zero run: the segment's class weights minus the stored values'.
        n_zero = sizes[j] - (b - a)
        for k in range(n_classes):
            zero[k] = totals[k, j]
            left[k] = 0.0
        n_negative = 0
        for i in range(a, b):
            zero[codes[row[i]]] -= weight[row[i]] if has_weight else 1.0
            if value[i] < 0:
                n_negative += 1
        for i in range(a, b):
            if i == a + n_negative and n_zero > 0:
                # the cut after the zero run, where a stored value follows it
                for k in range(n_classes):
                    left[k] += zero[k]
                if not _sparse_cut(j, f, left, totals, n_negative + n_zero, sizes[j],
                                   np.float32(0.0),
                                   value[i], criterion, min_samples_leaf, min_weight_leaf,
                                   use_rank, rank, cl, cr, out_proxy, out_feature,
                                   out_n_left, out_lower, out_upper, out_rank):
                    return False
            left[codes[row[i]]] += weight[row[i]] if has_weight else 1.0
            n_left = i - a + 1 + (n_zero if value[i] > 0 else 0)
            upper = _upper_of_cut(value, i, b, n_zero)
            if upper != upper:
                continue                                  # tied values, or the last
            if not _sparse_cut(j, f, left, totals, n_left, sizes[j], value[i], upper, criterion,
                               min_samples_leaf, min_weight_leaf, use_rank, rank, cl, cr,
                               out_proxy, out_feature, out_n_left, out_lower, out_upper,
                               out_rank):
                return False
        a = b
    return True


@_jit
def _sparse_regression_cut(j, f, left, totals, n_left, size, lower, upper, criterion,
                           n_outputs, min_samples_leaf, min_weight_leaf, use_rank, rank,
                           s_left, s_right, out_proxy, out_feature, out_n_left, out_lower,
                           out_upper, out_rank):
    r""":func:`_sparse_cut` for a regression: ``left`` holds the left child's
    :math:`W` and :math:`\sum w y_k`; the right child's are the node's minus them."""
    if n_left < min_samples_leaf or size - n_left < min_samples_leaf:
        return True
    w_left, w_right = left[0], totals[0, j] - left[0]           # right = node - left
    if n_outputs == 1:
        proxy = _regression_proxy(w_left, left[1], w_right, totals[1, j] - left[1], criterion)
    else:
        for k in range(n_outputs):
            s_left[k] = left[1 + k]
            s_right[k] = totals[1 + k, j] - left[1 + k]
        proxy = _outputs_proxy(w_left, s_left, w_right, s_right, criterion)
    return _keep_sparse_cut(j, f, proxy, w_left, w_right, n_left, lower, upper,
                            min_weight_leaf, use_rank, rank, out_proxy, out_feature,
                            out_n_left, out_lower, out_upper, out_rank)


@_jit
def search_sparse_regression(col, segment, row, value, sizes, totals, stats, n_outputs,
                             criterion, step, min_samples_leaf, min_weight_leaf, use_mask, mask,
                             use_rank, rank, out_proxy, out_feature, out_n_left, out_lower,
                             out_upper, out_rank):
    r""":func:`search_sparse` for a regression (squared error, Friedman's MSE, Poisson).

    The floats of :meth:`dtree.sparse.SparseSplitter.search`'s NumPy sweep,
    whatever the targets: that sweep cuts the stored values (sorted by
    feature, segment, value) into blocks of whole (feature, segment) groups,
    a block starting at a group and holding the groups that start fewer than
    ``step`` entries after it, and takes in each block a running sum of the
    statistics (``numpy.cumsum``, one entry after another); a cut's left
    child is that sum at the cut minus the sum before its group, plus the
    zero run's statistics (the node's minus the group's sum: the last prefix
    minus the one before the group) where the cut lies after the zeros.
    This kernel keeps the same running sums, block by block, and computes
    those differences with the same operations, so every proxy
    (:func:`_regression_proxy`, :func:`_outputs_proxy`: NumPy's order) is the
    sweep's float: for the squared error and Friedman's MSE always, for
    Poisson where NumPy's :math:`\log_2` is the C library's, which the kernel
    takes (NumPy's AVX-512 code can differ in the last bit, and a near tie
    may then fall the other way, as in the dense kernels; see the module
    docstring).  Ties as :func:`search_sparse`.

    Parameters
    ----------
    col, segment, row, value, sizes
        As for :func:`search_sparse`.
    totals : ndarray of shape (n_stats, n_segments), float64
        Each segment's statistics (rows 0 to ``n_outputs`` are read).
    stats : ndarray of shape (n_stats, n_samples), float64
        Each sample's statistics: :math:`w`, then :math:`w y_k` of each output.
    n_outputs : int
    criterion : int
        :data:`SQUARED_ERROR`, :data:`FRIEDMAN_MSE` or :data:`POISSON`.
    step : int
        The NumPy sweep's block size, in stored values.
    min_samples_leaf, min_weight_leaf, use_mask, mask, use_rank, rank
        As for :func:`search_sparse`.
    out_proxy, out_feature, out_n_left, out_lower, out_upper, out_rank
        As for :func:`search_sparse`; filled in.

    Returns
    -------
    bool
        False if a proxy is NaN (the caller searches with NumPy), else True.
    """
    n_rows = 1 + n_outputs              # w and w y_k: what the proxies read
    nnz = col.shape[0]
    prefix = np.zeros(n_rows)           # the block's running sums, through the last group
    before = np.empty(n_rows)
    running = np.empty(n_rows)
    zero = np.empty(n_rows)
    left = np.empty(n_rows)
    s_left = np.empty(n_outputs)
    s_right = np.empty(n_outputs)
    block_end = 0                       # a group starting here or later opens a block
    a = 0
    while a < nnz:
        f, j = col[a], segment[a]
        b = _group_end(col, segment, a)
        if a >= block_end:
            block_end = a + step
            prefix[:] = 0.0
        for r in range(n_rows):
            before[r] = prefix[r]
        # The group's running sums (every group's, searched or not: the block's).
        n_negative = 0
        for i in range(a, b):
            for r in range(n_rows):
                prefix[r] += stats[r, row[i]]
            if value[i] < 0:
                n_negative += 1
        if (use_mask and not mask[j, f]) or sizes[j] < 2 * min_samples_leaf:
            a = b
            continue
        # The zero run: the segment's statistics minus the stored values'.
        n_zero = sizes[j] - (b - a)
        for r in range(n_rows):
            zero[r] = totals[r, j] - (prefix[r] - before[r]) if n_zero > 0 else 0.0
            running[r] = before[r]
        for i in range(a, b):
            if i == a + n_negative and n_zero > 0:
                # the cut after the zero run, where a stored value follows it
                for r in range(n_rows):
                    below = running[r] - before[r] if n_negative > 0 else 0.0
                    left[r] = below + zero[r]
                if not _sparse_regression_cut(j, f, left, totals, n_negative + n_zero, sizes[j],
                                              np.float32(0.0), value[i], criterion, n_outputs,
                                              min_samples_leaf, min_weight_leaf, use_rank, rank,
                                              s_left, s_right, out_proxy, out_feature,
                                              out_n_left, out_lower, out_upper, out_rank):
                    return False
            for r in range(n_rows):
                running[r] += stats[r, row[i]]
            upper = _upper_of_cut(value, i, b, n_zero)
            if upper != upper:
                continue                                  # tied values, or the last
            after_zeros = value[i] > 0 and n_zero > 0
            for r in range(n_rows):
                left[r] = running[r] - before[r]
                if after_zeros:
                    left[r] += zero[r]
            n_left = i - a + 1 + (n_zero if after_zeros else 0)
            if not _sparse_regression_cut(j, f, left, totals, n_left, sizes[j], value[i], upper,
                                          criterion, n_outputs, min_samples_leaf,
                                          min_weight_leaf, use_rank, rank, s_left, s_right,
                                          out_proxy, out_feature, out_n_left, out_lower,
                                          out_upper, out_rank):
                return False
        a = b
    return True


@_jit
def apply_dense(X, children_left, children_right, feature, threshold, missing_go_to_left,
                out):
    """The leaf each row of a dense ``X`` reaches (:meth:`dtree.tree.TreeArrays.apply`).

    Row by row, as scikit-learn's ``_apply_dense``: ``x <= threshold`` in
    float64, NaN to the side ``missing_go_to_left``; ``X`` float32 or
    float64 of shape (n_rows, n_features), in C or Fortran order.  ``out``
    (n_rows,) receives the leaves.
    """
    for i in range(X.shape[0]):
        t = 0
        while children_left[t] >= 0:
            x = np.float64(X[i, feature[t]])
            if x <= threshold[t]:
                t = children_left[t]
            elif x != x and missing_go_to_left[t]:
                t = children_left[t]
            else:
                t = children_right[t]
        out[i] = t


@_jit
def apply_sparse(indptr, indices, data, children_left, children_right, feature, threshold,
                 n_features, out):
    """The leaf each row of a CSR matrix reaches (:func:`dtree.sparse.sparse_apply`).

    Row by row, as scikit-learn's ``_apply_sparse_csr``: the row's stored
    values are written into a dense vector of ``n_features`` zeros, the row
    descends (``x <= threshold`` in float64; sparse ``X`` holds no NaN,
    :func:`dtree.sparse.check_sparse_X`), and the vector is cleared: :math:`O(\\mathrm{nnz}
    + \\text{depth})` a row.  ``out`` (n_rows,) receives the leaves.
    """
    # float64 (the values exactly): no conversion in the descent's chain of loads
    row = np.zeros(n_features)
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            row[indices[e]] = data[e]
        t = 0
        left = children_left[0]
        while left >= 0:             # each node's left child read once per step
            if row[feature[t]] <= threshold[t]:
                t = left
            else:
                t = children_right[t]
            left = children_left[t]
        out[i] = t
        for e in range(indptr[i], indptr[i + 1]):
            row[indices[e]] = 0.0


@_jit
def sparse_goes_left(col, row, value, segment_of, feature, threshold, goes_left):
    """Set ``goes_left`` of every sample with a stored value of its segment's split feature.

    ``x <= threshold`` (float64) for the stored values of the feature
    ``feature[segment]`` (-1: none), the samples without one being set by the
    caller (their value is 0); :meth:`dtree.sparse.SparseSplitter.split`.
    """
    for i in range(col.shape[0]):
        j = segment_of[row[i]]
        if col[i] == feature[j]:
            goes_left[row[i]] = np.float64(value[i]) <= threshold[j]


@_jit
def keep_entries(col, row, value, alive):
    """Move the entries of the ``alive`` samples to the front, in order; their number.

    :meth:`dtree.sparse.SparseSplitter.keep` in place (an entry never moves
    back): the stored values of the samples of finished nodes are dropped.
    """
    m = 0
    for i in range(col.shape[0]):
        if alive[row[i]]:
            col[m], row[m], value[m] = col[i], row[i], value[i]
            m += 1
    return m


@_jit
def partition_entries(col, row, value, segment_of, goes_left, out_col, out_row, out_value):
    """Stably move, in each run of equal (feature, segment), the entries going left first.

    The stored values sorted by (feature, segment, value) become sorted by
    (feature, child, value), the children laid out left, right: the order
    of a stable sort by (feature, segment, goes right)
    (:meth:`dtree.sparse.SparseSplitter._partition_entries`), in one pass.
    """
    nnz = col.shape[0]
    a = 0
    while a < nnz:
        f, j = col[a], segment_of[row[a]]
        b = a + 1
        while b < nnz and col[b] == f and segment_of[row[b]] == j:
            b += 1
        p = a
        for side in range(2):
            for i in range(a, b):
                if goes_left[row[i]] == (side == 0):
                    out_col[p], out_row[p], out_value[p] = col[i], row[i], value[i]
                    p += 1
        a = b


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


@_jit
def segment_medians(samples, starts, stats, n_outputs, out):
    r"""Each segment's weight, weighted medians and absolute deviations, in ``out``.

    ``AbsoluteError.node_stats`` (of one output or ``m = n_outputs``) where
    its sums are exact (``dtree.splitting._deviations_exact``): for the
    segments of ``samples`` (m,) starting at ``starts``, ``out`` (1 + 2m,
    n_segments) gets :math:`W`, each output's weighted median :math:`\tilde
    y_k` (scikit-learn's rule: the first target in increasing order whose
    cumulative weight reaches :math:`W/2`, or the midpoint of it and the next
    target if it is exactly :math:`W/2`) and :math:`D_k = \sum_i w_i |y_{ik}
    - \tilde y_k|`.  ``stats`` (1 + m, n_samples) holds each sample's weight
    and targets.  As :func:`dtree.order_statistics.segment_medians`, the
    targets are sorted stably (tied targets, such as 0.0 and -0.0, in the
    order of their positions: the same median, sign of zero included) and
    summed in that order, :math:`W` in the first output's: its floats.

    Parameters
    ----------
    samples : ndarray of shape (m,), int
        Sample ids, segment after segment.
    starts : ndarray of shape (n_segments,), int
        Start of each segment in ``samples`` (increasing, ``starts[0] == 0``).
    stats : ndarray of shape (1 + n_outputs, n_samples), float64
        Each sample's weight (whole, positive) and targets
        (``AbsoluteError.sample_stats``), in the units of ``y``.
    n_outputs : int
    out : ndarray of shape (1 + 2 n_outputs, n_segments), float64
        Filled in: row 0 :math:`W`, rows 1 to ``n_outputs`` the medians, the
        rest the deviations :math:`D_k` (an empty segment: zeros).

    References
    ----------
    Breiman, Friedman, Olshen and Stone, *Classification and Regression
    Trees* (1984), section 8.11; scikit-learn's ``WeightedMedianCalculator``
    for the midpoint rule.
    """
    n = samples.shape[0]
    for j in range(starts.shape[0]):
        start = starts[j]
        end = starts[j + 1] if j + 1 < starts.shape[0] else n
        size = end - start
        if size == 0:                       # no caller's segment is empty
            out[:, j] = 0.0
            continue
        targets = np.empty(size)
        for k in range(n_outputs):
            for i in range(size):
                targets[i] = stats[1 + k, samples[start + i]]
            by_target = np.argsort(targets, kind="mergesort")       # stable, as lexsort
            W = 0.0                         # W = sum_i w_i, in increasing target order
            for i in range(size):
                W += stats[0, samples[start + by_target[i]]]
            half = W / 2.0
            cumulative, median = 0.0, targets[by_target[size - 1]]
            for i in range(size):
                cumulative += stats[0, samples[start + by_target[i]]]
                if cumulative >= half:      # the first target reaching W/2
                    median = targets[by_target[i]]
                    if cumulative == half and i + 1 < size:   # exactly W/2: the midpoint
                        median = (median + targets[by_target[i + 1]]) / 2.0
                    break
            deviation = 0.0                 # D_k = sum_i w_i |y_ik - median_k|
            for i in range(size):
                at = by_target[i]
                deviation += stats[0, samples[start + at]] * abs(targets[at] - median)
            if k == 0:
                out[0, j] = W
            out[1 + k, j] = median
            out[1 + n_outputs + k, j] = deviation


# What grow_levels reports: the tree is grown; a proxy is NaN; an impurity
# decrease is too close to min_impurity_decrease for the C library's log2 to
# decide it as NumPy's does.  On the last two the caller grows the tree with
# the NumPy steps instead (dtree.growth.grow_depth_first).
GROWN, NAN_PROXY, CLOSE_DECREASE = 1, 0, -1
# Why grow_levels left each node as it is (grown_tree's out_reason): split;
# a leaf by depth, size or weight; by an impurity of at most EPSILON; with no
# cut allowed; with a decrease below min_impurity_decrease.
SPLIT, TOO_SMALL, PURE, NO_SPLIT_FOUND, TOO_SMALL_DECREASE = range(5)


@_jit
def _node_impurity(totals, j, criterion, n_outputs):
    """:math:`i(t)` of segment ``j`` of ``totals`` (n_stats, n): ``Criterion.impurity``'s floats.

    Gini (``1 - sum_k c_k^2 / W^2``) and the squared error (``S_2/W - (S/W)^2``;
    of ``m = n_outputs`` outputs ``(S_2/W - sum_k (S_k/W)^2) / m``) with
    NumPy's operations in NumPy's order (classes and outputs summed one after
    another), the same floats; entropy with the C library's ``log2``, and
    Poisson's half deviance (``(sum w y ln y - S ln(S/W)) / W``, the mean over
    outputs, ``inf`` where an output sums to at most ``EPSILON``;
    ``Poisson.impurity``) in NumPy's order with the C library's ``ln``.
    """
    if criterion == ABSOLUTE_ERROR:  # D / W; of m outputs sum_k D_k / (m W)
        if n_outputs == 1:
            return totals[2, j] / totals[0, j]
        total = totals[1 + n_outputs, j]
        for k in range(1, n_outputs):
            total += totals[1 + n_outputs + k, j]
        return total / (totals[0, j] * n_outputs)
    if criterion == POISSON:         # (sum w y ln y - S ln(S/W)) / W, inf where S <= eps
        w = totals[0, j]
        total = 0.0
        for k in range(n_outputs):
            s, sylny = totals[1 + k, j], totals[1 + n_outputs + k, j]
            impurity = np.inf if s <= EPSILON else (sylny - s * np.log(s / w)) / w
            total = impurity if k == 0 else total + impurity
        return total if n_outputs == 1 else total / n_outputs
    if criterion == SQUARED_ERROR or criterion == FRIEDMAN_MSE:
        w = totals[0, j]
        if n_outputs == 1:
            mean = totals[1, j] / w
            return totals[2, j] / w - mean * mean
        impurity = totals[1 + n_outputs, j] / w
        for k in range(n_outputs):
            mean = totals[1 + k, j] / w
            impurity = impurity - mean * mean
        return impurity / n_outputs
    total = 0.0
    for k in range(totals.shape[0]):
        total += totals[k, j]
    acc = 0.0
    if criterion == GINI:
        for k in range(totals.shape[0]):
            acc += totals[k, j] * totals[k, j]
        return 1.0 - acc / (total * total)
    for k in range(totals.shape[0]):
        p = totals[k, j] / total
        if p > 0:
            acc += p * np.log2(p)
    return -acc + 0.0


@_jit
def _poisson_terms(totals, j, n_outputs):
    r"""The size of the two terms whose difference is Poisson's impurity of segment ``j``.

    :math:`(|\sum w y \ln y| + |S \ln(S/W)|) / W`, averaged over outputs: the
    scale of the rounding of :func:`_node_impurity` (a difference of two
    such terms, which cancel in a pure node).
    """
    w = totals[0, j]
    total = 0.0
    for k in range(n_outputs):
        s, sylny = totals[1 + k, j], totals[1 + n_outputs + k, j]
        if s > EPSILON:
            total += (abs(sylny) + abs(s * np.log(s / w))) / w
    return total / n_outputs


@_jit
def _node_weight(totals, j, classes):
    """``Criterion.weight`` of segment ``j``: the classes' weights summed, or row 0."""
    if not classes:
        return totals[0, j]
    total = 0.0
    for k in range(totals.shape[0]):
        total += totals[k, j]
    return total


@_jit
def _doubled(a, n):
    """``a`` (rows first) with room for at least ``n`` rows, its rows kept."""
    if a.shape[0] >= n:
        return a
    bigger = np.empty((max(n, 2 * a.shape[0]),) + a.shape[1:], a.dtype)
    bigger[:a.shape[0]] = a
    return bigger


@_jit
def _preorder_nodes(left, right, feature, threshold, go_left, samples, node_stats, out_left,
                    out_right, out_feature, out_threshold, out_go_left, out_samples, out_stats):
    """Nodes numbered level by level (children after their parent), in depth-first pre-order.

    :func:`dtree.growth._preorder`: a node's subtree holds itself and its
    children's subtrees; its left child comes right after it, its right child
    after the left child's subtree.  Writes the arrays renumbered into the
    ``out_`` ones and returns ``pre`` (n,), each node's new number.
    """
    n = left.shape[0]
    subtree = np.ones(n, np.intp)
    for node in range(n - 1, -1, -1):
        if left[node] >= 0:
            subtree[node] += subtree[left[node]] + subtree[right[node]]
    pre = np.zeros(n, np.intp)
    for node in range(n):
        if left[node] >= 0:
            pre[left[node]] = pre[node] + 1
            pre[right[node]] = pre[node] + 1 + subtree[left[node]]
    for node in range(n):
        q = pre[node]
        out_left[q] = pre[left[node]] if left[node] >= 0 else -1
        out_right[q] = pre[right[node]] if right[node] >= 0 else -1
        out_feature[q], out_threshold[q] = feature[node], threshold[node]
        out_go_left[q], out_samples[q] = go_left[node], samples[node]
        out_stats[q] = node_stats[node]
    return pre


@_jit
def grow_levels(values, by_feature, order, codes, weight, has_weight, stats, classes,
                n_stats, n_outputs, criterion, min_samples_leaf, min_weight_leaf, min_samples_split,
                max_depth, min_impurity_decrease, use_rank, rng, state):
    r"""Grow a whole tree level by level, as :func:`dtree.growth.grow_depth_first` does.

    Every step of a level in one compiled loop: the leaf rules, the split
    search (:func:`search_classes`, :func:`search_regression`), the
    partition, the children's sums (:func:`segment_totals`; the absolute
    error's medians and deviations, :func:`segment_medians`) and the rule of
    ``min_impurity_decrease``, with the features found constant following
    their nodes (:func:`grown_tree` then numbers the nodes in depth-first
    pre-order).  For exact class weights of one output (Gini, entropy; for
    Gini also :math:`W^2 < 2^{53}`), float64 statistics of one output or
    several (squared error, Friedman's MSE, Poisson) and the absolute error's
    where its sums are exact (:func:`search_deviations`), no missing values, every
    feature searched (tie ranks drawn, but no ``max_features`` draws).

    The decisions are NumPy's: the impurities and decreases of Gini, the
    squared error and Friedman's MSE are computed with NumPy's operations in
    NumPy's order (the same floats), and a node is pure exactly when its
    entropy is 0; an entropy decrease within :math:`10^{-12}` (relative) of
    ``min_impurity_decrease`` stops the growth (``CLOSE_DECREASE``), as a NaN
    proxy does (``NAN_PROXY``; a safeguard: with finite statistics a node whose
    proxies could be NaN has a NaN impurity and stays a leaf), for the caller
    to grow the tree with NumPy.  Poisson's impurities and decreases are
    NumPy's operations in NumPy's order with the C library's ``ln`` (NumPy's
    own where it calls the C library, i.e. but for its AVX-512 code, which
    can differ in the last bit): a positive ``min_impurity_decrease`` within
    :math:`10^{-12}` of a decrease, relative to the size of the terms that
    make the impurities, stops the growth as for the entropy; the decisions
    that only rounding can take (whether a pure node's impurity, 0 up to
    rounding, exceeds ``EPSILON``; a decrease of 0 up to rounding against a
    rule of 0) are the C library's, and the caller checks them with NumPy's
    impurities (``out_reason`` of :func:`grown_tree`;
    ``dtree.growth._numpy_decides_alike``), growing the tree level by level
    where NumPy would decide otherwise.

    Parameters
    ----------
    values, by_feature, order, codes, weight, has_weight, stats
        As for :func:`search_classes` (``classes``: True) and
        :func:`search_regression` (False); ``order`` (n_features, n_samples)
        is the presorted index of all samples, and is overwritten.
    n_stats : int
        Rows of a node's statistics: classes, ``stats.shape[0]``, or for the
        absolute error :math:`1 + 2m` (:math:`W`, the medians, the deviations).
    n_outputs : int
        Outputs :math:`m` of a regression (rows 1 to ``n_outputs`` of ``stats``:
        their :math:`w y_k`, or the absolute error's targets :math:`y_k`;
        ``dtree.criteria.multi_output``); 1 for a classification.
    criterion : int
        :data:`GINI`, :data:`ENTROPY`, :data:`SQUARED_ERROR`, :data:`FRIEDMAN_MSE`,
        :data:`POISSON` or :data:`ABSOLUTE_ERROR` (``n_stats`` is then
        :math:`1 + 2m`: a node's :math:`W`, medians and deviations).
    min_samples_leaf, min_weight_leaf, min_samples_split, max_depth, min_impurity_decrease
        The rules of :func:`dtree.growth.grow_depth_first`.
    use_rank, rng : bool, numpy.random.Generator
        With ``use_rank``, the tie ranks are drawn from ``rng`` as
        :meth:`dtree.splitting.BestSplitter.options` draws them (a row of
        ``n_features`` per node searched, level after level: the same
        numbers, which Numba takes from the generator's own bit generator):
        ties between features go to the lower draw, as they go to the lower
        rank of it (two equal draws, which a 53-bit generator all but never
        gives: to the lower feature index).
    state : tuple
        What :func:`grow_start` returns.

    Returns
    -------
    status : int
        :data:`GROWN`, or :data:`NAN_PROXY` / :data:`CLOSE_DECREASE` (the
        tree is to be grown level by level instead).
    state : tuple
        The tree grown, for :func:`grown_tree`.

    :func:`grown_tree` writes the tree grown into arrays of shape
    (node_count,), in depth-first pre-order, left child first:
    ``children_left``, ``children_right``, ``feature`` (int), ``threshold``
    (float64), ``missing_go_to_left`` (bool) (the splits' fields as
    :class:`dtree.splitting.SplitResult` has them; -1, -2 and -2.0 at leaves),
    ``n_node_samples`` (int) and ``node_stats`` (node_count, n_stats); and
    returns ``pre``, the pre-order number of each node in creation order (level by
    level, a level's nodes in the order of their parents, left child first),
    and ``level_sizes`` (n_levels,), the nodes per level.  The impurities are
    the caller's to compute, from ``node_stats``, with NumPy.
    """
    n_features, n_samples = order.shape[0], order.shape[1]
    (counters, sizes, totals, constant, node_left, node_right, node_feature, node_threshold,
     node_go_left, node_samples, node_stats, level_sizes, node_reason) = state
    m, first, depth = counters[0], counters[1], counters[2]
    total_weight = _node_weight(np.ascontiguousarray(node_stats[:1].T), 0, classes)
    goes_left = np.zeros(n_samples, np.bool_)
    buffer = np.empty(n_samples, order.dtype)
    keep = np.empty(n_samples, np.bool_)
    while True:
        n_level = sizes.shape[0]
        level_sizes[depth] = n_level
        end = first + n_level
        if end > node_left.shape[0]:
            node_left = _doubled(node_left, end)
            node_right = _doubled(node_right, end)
            node_feature = _doubled(node_feature, end)
            node_threshold = _doubled(node_threshold, end)
            node_go_left = _doubled(node_go_left, end)
            node_samples = _doubled(node_samples, end)
            node_reason = _doubled(node_reason, end)
            node_stats = _doubled(node_stats, end)
            node_left[first:] = -1
            node_right[first:] = -1
            node_feature[first:] = -2
            node_threshold[first:] = -2.0
            node_go_left[first:] = False
        impurity = np.empty(n_level)
        is_open = np.zeros(n_level, np.bool_)
        n_open = 0
        for j in range(n_level):
            node_samples[first + j] = sizes[j]
            for k in range(n_stats):
                node_stats[first + j, k] = totals[k, j]
            impurity[j] = _node_impurity(totals, j, criterion, n_outputs)
            may_split = (depth < max_depth and sizes[j] >= min_samples_split
                         and sizes[j] >= 2 * min_samples_leaf
                         and _node_weight(totals, j, classes) >= 2 * min_weight_leaf)
            is_open[j] = may_split and impurity[j] > EPSILON
            node_reason[first + j] = (NO_SPLIT_FOUND if is_open[j]
                                      else PURE if may_split else TOO_SMALL)
            n_open += is_open[j]
        if n_open == 0:
            break
        # Keep only the segments that may split (their ids in `where`).
        where = np.flatnonzero(is_open)
        if n_open < n_level:
            p = 0
            for j in range(n_level):
                keep[p:p + sizes[j]] = is_open[j]
                p += sizes[j]
            m = keep_positions(order[:, :m], keep[:m])
        o_sizes = sizes[where]
        o_starts = np.zeros(n_open, np.intp)
        for j in range(1, n_open):
            o_starts[j] = o_starts[j - 1] + o_sizes[j - 1]
        o_totals = np.ascontiguousarray(totals[:, where])
        o_constant = constant[where]
        o_impurity = impurity[where]
        # The search (no draws: every feature, ties to the lowest index).
        proxy = np.full(n_open, -np.inf)
        feature = np.full(n_open, -1, np.intp)
        position = np.zeros(n_open, np.intp)
        rank = np.full(n_open, np.inf)
        threshold = np.full(n_open, -2.0)
        cut = np.zeros(n_open, np.intp)
        n_left = np.zeros(n_open, np.intp)
        go_left = np.zeros(n_open, np.bool_)
        no_mask = np.ones((1, 1), np.bool_)
        # Tie ranks: BestSplitter.options' draws, a row per node, and ranks them;
        # the draws themselves order the features as their ranks do.
        rank_of = rng.random((n_open, n_features)) if use_rank else np.zeros((1, 1))
        if classes:
            largest = 0.0
            for j in range(n_open):
                largest = max(largest, _node_weight(o_totals, j, True))
            ok = search_classes(values, by_feature, order, o_starts, o_sizes, codes,
                                np.zeros((0, 1), np.intp), np.array([0, n_stats]), weight,
                                has_weight, o_totals, criterion, min_samples_leaf,
                                min_weight_leaf, True, largest * largest < 2.0**53, False,
                                no_mask, use_rank, rank_of, o_constant, proxy, feature, position,
                                rank, threshold, cut, n_left, go_left)
        elif criterion == ABSOLUTE_ERROR:
            ok = search_deviations(values, by_feature, order, o_starts, o_sizes, stats, o_totals,
                                   n_outputs, min_samples_leaf, min_weight_leaf, False, no_mask,
                                   use_rank, rank_of, o_constant, proxy, feature, position, rank,
                                   threshold, cut, n_left, go_left)
        else:
            ok = search_regression(values, by_feature, order, o_starts, o_sizes, stats,
                                   o_totals, criterion, n_outputs, min_samples_leaf, min_weight_leaf,
                                   False, no_mask, use_rank, rank_of, o_constant, proxy, feature,
                                   position, rank, threshold, cut, n_left, go_left)
        if not ok:
            return NAN_PROXY, state
        split = np.flatnonzero(feature >= 0)
        n_split = split.shape[0]
        if n_split == 0:
            break
        if n_split < n_open:
            p = 0
            for j in range(n_open):
                keep[p:p + o_sizes[j]] = feature[j] >= 0
                p += o_sizes[j]
            m = keep_positions(order[:, :m], keep[:m])
        s_sizes = o_sizes[split]
        s_starts = np.zeros(n_split, np.intp)
        for j in range(1, n_split):
            s_starts[j] = s_starts[j - 1] + s_sizes[j - 1]
        partition_level(order[:, :m], s_starts, s_sizes, feature[split], cut[split],
                        np.zeros(n_split, np.intp), np.zeros(n_split, np.bool_), goes_left,
                        buffer)
        # The children, left, right, left, right, ... and their sums.
        c_sizes = np.empty(2 * n_split, np.intp)
        c_starts = np.empty(2 * n_split, np.intp)
        for i in range(n_split):
            c_sizes[2 * i] = n_left[split[i]]
            c_sizes[2 * i + 1] = s_sizes[i] - n_left[split[i]]
            c_starts[2 * i] = s_starts[i]
            c_starts[2 * i + 1] = s_starts[i] + n_left[split[i]]
        c_totals = np.empty((n_stats, 2 * n_split))
        if criterion == ABSOLUTE_ERROR:
            segment_medians(order[0, :m], c_starts, stats, n_outputs, c_totals)
        else:
            segment_totals(order[0, :m], c_starts, codes, weight, has_weight, stats, c_totals)
        # min_impurity_decrease, on the weighted impurity decrease (Criterion.improvement).
        kept = np.zeros(n_split, np.bool_)
        for i in range(n_split):
            j = split[i]
            w_node = _node_weight(o_totals, j, classes)
            w_left = _node_weight(c_totals, 2 * i, classes)
            w_right = _node_weight(c_totals, 2 * i + 1, classes)
            if criterion == FRIEDMAN_MSE:     # FriedmanMSE.improvement, on S = sum_k S_k
                s_left, s_right = c_totals[1, 2 * i], c_totals[1, 2 * i + 1]
                for k in range(1, n_outputs):
                    s_left += c_totals[1 + k, 2 * i]
                    s_right += c_totals[1 + k, 2 * i + 1]
                diff = (w_right * s_left - w_left * s_right) / n_outputs
                gain = diff * diff / (w_left * w_right * w_node)
                scale = 0.0
            else:
                i_left = _node_impurity(c_totals, 2 * i, criterion, n_outputs)
                i_right = _node_impurity(c_totals, 2 * i + 1, criterion, n_outputs)
                a, b = w_right / w_node * i_right, w_left / w_node * i_left
                gain = (w_node / total_weight) * (o_impurity[j] - a - b)
                scale = (w_node / total_weight) * (abs(o_impurity[j]) + abs(a) + abs(b))
            kept[i] = not (gain + EPSILON < min_impurity_decrease)
            if criterion == POISSON:
                # The impurities are differences of terms that cancel in a
                # pure node: their rounding is on the terms' scale.  With the
                # rule at 0 only that rounding can decide (a decrease is >= 0),
                # and it is decided with the C library's ln, as the kernels'
                # proxies are; a positive rule near a decrease goes to NumPy.
                if min_impurity_decrease <= 0.0:
                    continue
                scale = (w_node / total_weight) * (
                    _poisson_terms(o_totals, j, n_outputs)
                    + w_right / w_node * _poisson_terms(c_totals, 2 * i + 1, n_outputs)
                    + w_left / w_node * _poisson_terms(c_totals, 2 * i, n_outputs))
            if ((criterion == ENTROPY or criterion == POISSON)
                    and abs(gain + EPSILON - min_impurity_decrease) <= 1e-12 * scale):
                return CLOSE_DECREASE, state
        n_kept = 0
        for i in range(n_split):
            n_kept += kept[i]
            node_reason[first + where[split[i]]] = SPLIT if kept[i] else TOO_SMALL_DECREASE
        if n_kept == 0:
            break
        # Record the kept splits; their children make the next level.
        next_id = end
        for i in range(n_split):
            if kept[i]:
                j = split[i]
                node = first + where[j]
                node_feature[node], node_threshold[node] = feature[j], threshold[j]
                node_go_left[node] = go_left[j]
                node_left[node], node_right[node] = next_id, next_id + 1
                next_id += 2
        c_constant = np.empty((2 * n_split, n_features), np.bool_)
        for i in range(n_split):
            c_constant[2 * i] = o_constant[split[i]]
            c_constant[2 * i + 1] = o_constant[split[i]]
        if n_kept < n_split:
            p = 0
            for c in range(2 * n_split):
                keep[p:p + c_sizes[c]] = kept[c // 2]
                p += c_sizes[c]
            m = keep_positions(order[:, :m], keep[:m])
            kept_children = np.repeat(kept, 2)
            c_sizes = c_sizes[kept_children]
            c_totals = np.ascontiguousarray(c_totals[:, kept_children])
            c_constant = c_constant[kept_children]
        first = end
        sizes, totals, constant = c_sizes, c_totals, c_constant
        depth += 1
    level_sizes[depth] = sizes.shape[0]
    counters[0], counters[1], counters[2] = m, first, depth
    return GROWN, (counters, sizes, totals, constant, node_left, node_right, node_feature,
                   node_threshold, node_go_left, node_samples, node_stats, level_sizes,
                   node_reason)


@_jit
def grow_start(order, codes, weight, has_weight, stats, n_stats, n_features, criterion):
    """The state :func:`grow_levels` starts from: the root, all samples, no node grown yet.

    The arguments are :func:`grow_levels`' (``criterion`` decides how the
    root's statistics are made: :func:`segment_medians` for
    :data:`ABSOLUTE_ERROR`, else :func:`segment_totals`).
    """
    n_samples = order.shape[1]
    starts = np.zeros(1, np.intp)
    sizes = np.full(1, n_samples, np.intp)
    totals = np.empty((n_stats, 1))
    if criterion == ABSOLUTE_ERROR:
        segment_medians(order[0], starts, stats, (n_stats - 1) // 2, totals)
    else:
        segment_totals(order[0], starts, codes, weight, has_weight, stats, totals)
    capacity = 64       # nodes in creation order (level by level), grown by doubling
    node_stats = np.empty((capacity, n_stats))
    node_stats[0] = totals[:, 0]
    counters = np.zeros(3, np.intp)       # m (positions in use), first node of the level, depth
    counters[0] = n_samples
    return (counters, sizes, totals, np.zeros((1, n_features), np.bool_),
            np.full(capacity, -1, np.intp), np.full(capacity, -1, np.intp),
            np.full(capacity, -2, np.intp), np.full(capacity, -2.0),
            np.zeros(capacity, np.bool_), np.empty(capacity, np.intp), node_stats,
            np.zeros(n_samples + 1, np.intp),     # nodes per level: at most n levels
            np.zeros(capacity, np.int8))          # why each node is what it is (SPLIT, ...)


@_jit
def grown_tree(state, out_left, out_right, out_feature, out_threshold, out_go_left,
               out_samples, out_stats, out_reason):
    """The tree :func:`grow_levels` has grown (``state``), in depth-first pre-order.

    Fills the arrays of shape (node_count,) (``node_count`` is
    ``state[0][1] + state[1].size``) ``out_left``, ``out_right``,
    ``out_feature`` (int), ``out_threshold`` (float64), ``out_go_left``
    (bool), ``out_samples`` (int), ``out_stats`` (node_count, n_stats) and
    ``out_reason`` (int8: :data:`SPLIT`, :data:`TOO_SMALL`, :data:`PURE`,
    :data:`NO_SPLIT_FOUND` or :data:`TOO_SMALL_DECREASE`, the rule that made
    each node what it is), as :func:`grow_levels` describes them, and
    returns ``pre`` and ``level_sizes``.
    """
    (counters, sizes, totals, constant, node_left, node_right, node_feature, node_threshold,
     node_go_left, node_samples, node_stats, level_sizes, node_reason) = state
    first, depth = counters[1], counters[2]
    n = first + sizes.shape[0]
    pre = _preorder_nodes(node_left[:n], node_right[:n], node_feature[:n], node_threshold[:n],
                          node_go_left[:n], node_samples[:n], node_stats[:n], out_left,
                          out_right, out_feature, out_threshold, out_go_left, out_samples,
                          out_stats)
    for node in range(n):
        out_reason[pre[node]] = node_reason[node]
    return pre, level_sizes[:depth + 1].copy()
