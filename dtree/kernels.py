r"""Numba for the split search: compiling it, and the compiled steps around it.

The split search is written once, as plain Python loops over sorted values
(:mod:`dtree.sweep`), and a criterion as plain functions
(:class:`dtree.criteria.Criterion`).  :func:`bind` makes copies of those
loops in which the name ``criterion`` is one criterion's functions, and has
Numba compile them (``compiled=True``) or leaves them as written; Numba
caches the machine code on disk, under names that carry a digest of the
source, one version per criterion and memory layout.  :func:`available`
imports Numba on first use (``import dtree`` does not), :func:`ready` says
whether a compiled function's code is at hand, and :func:`warm_up` compiles
in a background thread (the policy is :func:`dtree.growth.compiled`).

The other functions here are the steps of a level that are not the search:
the partition of the presorted index (:func:`partition_level`), the
compaction of the nodes that go on (:func:`keep_positions`), the nodes' sums
(:func:`segment_totals`; the absolute error's weighted medians,
:func:`segment_medians`), the sparse index's partition
(:func:`sparse_goes_left`, :func:`partition_entries`, :func:`keep_entries`),
the descents of dense and CSR rows (:func:`apply_dense`,
:func:`apply_sparse`), and :func:`grow_levels`, which grows a whole tree
level by level in one compiled call (its search :func:`dtree.sweep.search_level`,
bound to the criterion); ``tests/test_sweep.py`` and ``tests/test_kernels.py``
hold each equal to the same steps run level by level, or to NumPy.  Without
Numba (or with the environment variable ``DTREE_NUMBA=0``) every loop runs
as written, with the same trees.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import warnings

import numpy as np

__all__ = ["ENABLED", "CacheUnavailableWarning", "GROWN", "NAN_PROXY", "CLOSE_DECREASE", "SPLIT", "TOO_SMALL", "PURE",
           "NO_SPLIT_FOUND", "TOO_SMALL_DECREASE", "apply_dense", "apply_sparse", "available", "grow_levels",
           "grow_start", "grown_tree",
           "keep_entries", "keep_positions", "partition_entries", "partition_level",
           "sparse_goes_left", "segment_medians", "segment_totals"]

#: Whether the compiled sweep is used (where Numba is installed); the
#: environment variable ``DTREE_NUMBA=0`` turns it off, and tests set it to
#: False to run every loop as written.
ENABLED = os.environ.get("DTREE_NUMBA", "1") != "0"

EPSILON = np.finfo(np.float64).eps          # dtree.criteria.EPSILON: the impurity of a pure node

_COMPILED = []         # the functions below, in order: compiled together on first use
_STATE = {}            # "numba": the module, or None where it cannot be imported
_LOCK = threading.Lock()   # one thread decorates the functions; the others wait for it


def _jit(function):
    """Mark ``function`` for compilation (numba.njit) when :func:`available` is first asked."""
    _COMPILED.append(function.__name__)
    return function


class CacheUnavailableWarning(UserWarning):
    """Numba cannot keep compiled code on disk here: dtree compiles in every new process."""


def _decorate(numba, functions, inline=()):
    """``{name: compiled function}`` of ``functions``, cached on disk where Numba can.

    The functions named in ``inline`` are inlined into their callers (Numba's
    ``inline="always"``: a criterion's ``add`` and ``score``, called once per
    sample, cost no call).

    Numba refuses ``cache=True`` where neither the package's folder nor a
    cache folder of the user's is writable (a read-only install with a
    read-only home); then the functions are compiled without a cache, with
    one :class:`CacheUnavailableWarning`.
    """
    def options(name):
        return {"inline": "always"} if name in inline else {}

    try:
        return {name: numba.njit(cache=True, nogil=True, error_model="numpy",
                                 **options(name))(function)
                for name, function in functions.items()}
    except RuntimeError as error:
        if "cannot cache" not in str(error):
            raise
    warnings.warn("dtree: Numba cannot cache compiled code here (no writable cache folder: set NUMBA_CACHE_DIR "
                  "to one); the split search is compiled again in every new process",
                  CacheUnavailableWarning, stacklevel=4)
    return {name: numba.njit(cache=False, nogil=True, error_model="numpy", **options(name))(function)
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
                except ImportError:          # every loop runs as written
                    numba = None
                if numba is not None:
                    _install(numba)
                _STATE["numba"] = numba      # last: no other thread sees True before the functions
    return _STATE["numba"] is not None


#: Compile every function a fit or a descent needs before using it, whatever
#: its size (the tests set it, so that which code a test runs does not depend
#: on what earlier tests compiled); otherwise :func:`dtree.growth.compiled`
#: decides, and a small descent whose code is not :func:`ready` runs in NumPy.
COMPILE_IN_FOREGROUND = False

_BOUND = {}             # bind's copies, by (tag, digest, compiled)
_WARMING = {}           # warm_up's threads, by key


def ready(*functions) -> bool:
    """Whether each compiled function has machine code at hand: in memory or in Numba's cache.

    A function with a compiled signature, or whose cache index is on disk
    (where the first call loads the code in a fraction of a second), is
    ready; one that would be compiled on its first call (seconds) is not.
    """
    for function in functions:
        if getattr(function, "signatures", None):
            continue
        cache_file = getattr(getattr(function, "_cache", None), "_cache_file", None)
        index = getattr(cache_file, "_index_path", None)
        if not (index and os.path.exists(index)):
            return False
    return True


def warm_up(key, function):
    """Run ``function`` (a small fit that compiles) in a background thread, once per ``key``.

    While it compiles, the fits that :func:`dtree.growth.compiled` finds
    small run the search as written; the next fits find it ready.
    """
    with _LOCK:
        if key in _WARMING:
            return _WARMING[key]
        thread = threading.Thread(target=function, name=f"dtree-compile-{key}", daemon=True)
        _WARMING[key] = thread
    thread.start()
    return thread


def bind(functions, tag, family, *, compiled):
    """Copies of the functions ``family`` in which the global name ``criterion`` is ``functions``.

    The split search (:mod:`dtree.sweep`) calls a criterion through the name
    ``criterion``: ``criterion.add(...)``, ``criterion.score(...)``.  Each
    function of ``family`` (``{name: function}``) and of ``functions``
    (``{name: function}``, a criterion's declaration) is copied with its
    module's global names, with ``criterion`` bound to a namespace of the
    copies of ``functions``, and with every name of either dictionary bound
    to its copy (so that they call one another; this module's helpers are
    taken uncompiled where the copies are).  With ``compiled``, every copy
    is compiled by Numba (cached on disk under a name that holds ``tag`` and a
    digest of the declaration's source: another criterion, or a changed
    one, is another entry); else the copies are the plain Python functions,
    the same source, run as written.

    Returns
    -------
    dict
        ``{name: copy}`` for the names of ``family``.
    """
    import hashlib
    import inspect
    import types

    # The digest names the cache entries: it covers every module whose code
    # the copies run (the declaration's, the family's, this one), for Numba
    # checks a cached function against its own file only, not its callees'.
    modules = {getattr(f, "py_func", f).__module__
               for f in list(functions.values()) + list(family.values())} | {__name__}
    source = "".join(inspect.getsource(sys.modules[m]) for m in sorted(modules))
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    key = (tag, digest, tuple(family), compiled)
    if key in _BOUND:
        return _BOUND[key]
    if compiled and not available():
        raise RuntimeError("dtree.kernels.bind(compiled=True) needs Numba (and DTREE_NUMBA != 0)")
    namespace = types.ModuleType(f"dtree.criteria.{tag}")
    copies, scopes = {}, []         # scopes: (globals of a copy, whether it is a declaration's)
    for name, function in list(functions.items()) + list(family.items()):
        function = getattr(function, "py_func", function)     # the source, not a compiled one
        names = dict(function.__globals__)
        if not compiled:   # this module's helpers as written, not compiled
            names.update({n: getattr(f, "py_func", f) for n, f in names.items()
                          if n in _COMPILED})
        names["criterion"] = namespace
        scopes.append((names, name in functions))
        copy = types.FunctionType(function.__code__, names, function.__name__,
                                  function.__defaults__, function.__closure__)
        copy.__qualname__ = f"{function.__qualname__}_{tag}_{digest}"
        copy.__module__, copy.__doc__ = function.__module__, function.__doc__
        copies[name] = copy
    if compiled:
        copies = _decorate(_STATE["numba"], copies, inline=tuple(functions))
    namespace.__dict__.update({name: copies[name] for name in functions})
    for names, declared in scopes:
        # the family's names in every copy; the declaration's helpers ("_...") in its own
        names.update({n: c for n, c in copies.items()
                      if n in family or (declared and n.startswith("_"))})
    _BOUND[key] = {name: copies[name] for name in family}
    return _BOUND[key]


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
    :func:`dtree._validation.check_sparse_X`), and the vector is cleared: :math:`O(\\mathrm{nnz}
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

    :func:`dtree.splitting.partition` with the sides computed in the same
    pass: segment ``j``'s first ``cut[j]`` samples in the order of
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

    In place and in their order (:meth:`dtree.splitting.BestSplitter.keep`);
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
    its sums are exact (``dtree.splitting.deviations_exact``): for the
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


# The split search grow_levels calls: dtree.sweep.search_level, bound to the
# criterion by dtree.sweep.searcher, which copies grow_levels and grow_start
# with it; and the criterion's declaration (node_totals, node_impurity,
# decrease: dtree.criteria.Criterion.GROW) they call.
search_level = None
criterion = None


def grow_levels(values, order, codes, weight, has_weight, stats, classes,
                n_stats, n_outputs, min_samples_leaf, min_weight_leaf, min_samples_split,
                max_depth, min_impurity_decrease, use_rank, rng, state, sweep_codes, sweep_floats,
                sweep_layout, sweep_state):
    r"""Grow a whole tree level by level, as :func:`dtree.growth.grow_depth_first` does.

    Every step of a level in one compiled loop: the leaf rules, the split
    search (:func:`dtree.sweep.search_level`, bound to the criterion), the
    partition, the children's sums and impurities and the rule of
    ``min_impurity_decrease`` (the criterion's ``node_totals``,
    ``node_impurity`` and ``decrease``: :data:`dtree.criteria.Criterion.GROW`),
    with the features found constant following their nodes
    (:func:`grown_tree` then numbers the nodes in depth-first pre-order).
    For exact class weights of one output (Gini, entropy, misclassification; for
    Gini also :math:`W^2 < 2^{53}`), float64 statistics of one output or
    several (squared error, Friedman's MSE, Poisson) and the absolute error's
    where its sums are exact (``dtree.splitting.deviations_exact``), no
    missing values, every feature searched (tie ranks drawn, but no
    ``max_features`` draws).

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
    values : ndarray of shape (n_features, n_samples), float32
        ``X`` by features (:func:`dtree.splitting.columns`).
    order : ndarray of shape (n_features, n_samples), uint32
        The presorted index of all samples; overwritten.
    codes, weight, has_weight, stats
        The per-sample statistics for the nodes' sums (:func:`segment_totals`):
        class codes and weights (``classes``: True), else the rows ``stats``.
    n_stats : int
        Rows of a node's statistics: classes, ``stats.shape[0]``, or for the
        absolute error :math:`1 + 2m` (:math:`W`, the medians, the deviations).
    n_outputs : int
        Outputs :math:`m` of a regression (rows 1 to ``n_outputs`` of ``stats``:
        their :math:`w y_k`, or the absolute error's targets :math:`y_k`;
        ``dtree.criteria.multi_output``); 1 for a classification.
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
    sweep_codes, sweep_floats, sweep_layout, sweep_state
        The criterion's arrays for the search (``Criterion.sweep_data``,
        ``sweep_state``).

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
            impurity[j] = criterion.node_impurity(totals, j, n_outputs)
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
        # The search (dtree.sweep.search_level, bound to the criterion): every
        # feature; tie ranks are BestSplitter.options' draws, a row per node
        # (the draws order the features as their ranks do), else the index.
        if use_rank:
            ranks = rng.random((n_open, n_features))
        else:
            ranks = np.empty((n_open, n_features))
            for j in range(n_open):
                for f in range(n_features):
                    ranks[j, f] = f
        found = np.zeros((n_open, 8))
        search_level(values, order, o_starts, o_sizes, o_totals, sweep_codes, sweep_floats,
                     sweep_layout, sweep_state, np.ones((n_open, n_features), np.bool_), ranks,
                     np.full((n_open, n_features), np.nan),
                     np.full((n_open, n_features), -1, np.int8), np.zeros(n_features, np.int8),
                     no_bounds(n_open), min_samples_leaf, min_weight_leaf, o_constant, found)
        feature = np.empty(n_open, np.intp)
        threshold = np.empty(n_open)
        cut = np.empty(n_open, np.intp)
        n_left = np.empty(n_open, np.intp)
        go_left = np.empty(n_open, np.bool_)
        for j in range(n_open):
            feature[j], threshold[j] = int(found[j, 1]), found[j, 2]
            cut[j], n_left[j], go_left[j] = int(found[j, 3]), int(found[j, 4]), found[j, 7] != 0
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
        criterion.node_totals(order[0, :m], c_starts, codes, weight, has_weight, stats, n_outputs,
                              c_totals)
        # min_impurity_decrease, on the weighted impurity decrease (Criterion.improvement).
        kept = np.zeros(n_split, np.bool_)
        for i in range(n_split):
            j = split[i]
            w_node = _node_weight(o_totals, j, classes)
            w_left = _node_weight(c_totals, 2 * i, classes)
            w_right = _node_weight(c_totals, 2 * i + 1, classes)
            i_left = criterion.node_impurity(c_totals, 2 * i, n_outputs)
            i_right = criterion.node_impurity(c_totals, 2 * i + 1, n_outputs)
            gain, undecided = criterion.decrease(o_totals, j, o_impurity[j], c_totals, i, i_left,
                                                 i_right, w_node, w_left, w_right, total_weight,
                                                 n_outputs, min_impurity_decrease)
            kept[i] = not (gain + EPSILON < min_impurity_decrease)
            if undecided:
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
def no_bounds(n):
    """Bounds of ``n`` nodes without monotonicity constraints: (-inf, inf), shape (2, n)."""
    bounds = np.empty((2, n))
    bounds[0, :] = -np.inf
    bounds[1, :] = np.inf
    return bounds


def grow_start(order, codes, weight, has_weight, stats, n_stats, n_outputs, n_features):
    """The state :func:`grow_levels` starts from: the root, all samples, no node grown yet.

    The arguments are :func:`grow_levels`'; the root's statistics are the
    criterion's ``node_totals`` (bound with grow_levels by
    :func:`dtree.sweep.searcher`).
    """
    n_samples = order.shape[1]
    starts = np.zeros(1, np.intp)
    sizes = np.full(1, n_samples, np.intp)
    totals = np.empty((n_stats, 1))
    criterion.node_totals(order[0], starts, codes, weight, has_weight, stats, n_outputs, totals)
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
