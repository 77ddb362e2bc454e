r"""Binary split search on numeric features: the sorted sweep.

The samples of the nodes being split are kept, for every feature, in an
index array ``order[f]`` in which each node owns a contiguous *segment*,
sorted by the feature's value, missing values (NaN) last.  The features are
sorted once, at the root (:func:`presort`); splitting a node partitions its
segment stably into a left and a right part, which keeps both parts sorted
(:func:`partition`).

Along a sorted segment, moving the threshold past one sample moves that
sample from the right child to the left, so the statistics of every left
child are prefix sums and those of the right child are the node's total minus
the left: all thresholds of all nodes are scored with one cumulative sum per
feature (:func:`segment_prefix_sums`, called by :func:`best_splits`), in
:math:`O(n)` time per feature and level instead of :math:`O(n^2)`.  Over a
tree of depth :math:`h` the search costs :math:`O(n\,d\,h)` after the
:math:`O(n\,d \log n)` presort (the sorted sweep of the GrowTree lecture
notes).  The sweep is vectorised over all nodes of a level *and* over a block
of features (arrays of shape (features, positions)), so its Python overhead
per level does not grow with the number of nodes or features.  A long level
is swept in chunks of positions, the running sum carried from one chunk into
the next: the result is the same float for float, and the sweep's
temporaries stay at a few MiB however large ``n`` is, and however many
classes there are (a chunk holds at most ``SWEEP_CELLS`` class weights).
With many classes and whole-number weights, the classes present in each
node of a level are numbered from 0 in their order, so that the statistics
have as many rows as the level's node with most classes has classes, not
``n_classes`` (``_present_classes``: the same floats).  ``X`` itself is read
as float32 where its values are needed (:func:`feature_values`), in place,
except where a float32 copy laid out by features is faster and its memory is
small or no goal (:func:`feature_columns`).

:func:`reference_split` is the same search written for one node and one
feature, short enough to read (the book prints it); the tests check that
:func:`best_splits` returns the split it returns, node by node.

Candidate thresholds lie between two consecutive distinct values (distinct
as float32, the type scikit-learn stores ``X`` in) at their midpoint; when the
midpoint rounds onto the upper value, the lower value is used
(:func:`midpoint`).  Every comparison uses float64.  scikit-learn's source
declares a tolerance ``FEATURE_THRESHOLD = 1e-7``, but its compiled trees
(1.7) split any two distinct float32 values, 1e-30 apart near 0 or one
float32 step apart near 1 (``tests/test_cart.py`` measures it), and so does
dtree: a feature whose values all lie within 1e-7 is still split.

Missing values (scikit-learn >= 1.3).  Where a segment has samples whose
value of feature :math:`f` is missing, every threshold of :math:`f` is scored
twice -- the missing samples sent right, then sent left -- and one more split
is scored: all non-missing samples left, all missing ones right (threshold
:math:`+\infty`).  A feature whose non-missing values are constant in the
node (or all missing) is not a candidate.

Ties between candidates are broken deterministically: among splits of equal
score, the lowest feature index wins (or the lowest random rank, see
``SearchOptions.feature_rank``), then, within a feature, missing-right before
missing-left before the :math:`+\infty` split, then the lowest threshold.

Monotonicity constraints (scikit-learn >= 1.4, ``monotonic_cst``).  Each
segment then has bounds :math:`[l, u]` on its children's values (the
criterion's :meth:`~dtree.criteria.Criterion.monotonic_value`: a mean, a
median, a class fraction), and a cut on a feature with constraint
:math:`c \ne 0` is a candidate only if its children's values :math:`v_L, v_R`
satisfy :math:`l \le v_L, v_R \le u` and :math:`(v_L - v_R)\,c \le 0`
(scikit-learn's ``Criterion.check_monotonicity``).  The values come from the
same prefix sums as the proxy (:func:`_additive_scores`), or from the
children's medians for the absolute error
(:meth:`dtree.criteria.AbsoluteError.children_medians`); a block of features
with a constraint is therefore swept whole (:func:`_sweep_block`), not in
chunks.  Cuts on unconstrained features are not checked, as in scikit-learn.

The growth (:mod:`dtree.growth`) reaches all of this through a *splitter*
object, :class:`BestSplitter` (or :class:`RandomSplitter`), which owns the
presorted index and documents the interface a new splitter implements.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from dtree import kernels
from dtree.criteria import (
    AbsoluteError,
    ClassWeights,
    Criterion,
    Entropy,
    FriedmanMSE,
    Gini,
    OutputsClassWeights,
    Poisson,
    SquaredError,
    _running_sums_exact,
)

__all__ = [
    "FEATURE_THRESHOLD",
    "BestSplitter",
    "RandomSplitter",
    "ReferenceSplitter",
    "SearchOptions",
    "SplitResult",
    "best_splits",
    "midpoint",
    "partition",
    "presort",
    "reference_node_split",
    "reference_split",
    "segment_prefix_sums",
]

# Values that differ by at most this much (in float32) are one value: none,
# as in scikit-learn's compiled trees (see the module docstring).
FEATURE_THRESHOLD = np.float32(0.0)

# At most this many (feature, position) cells are scored at once: bounds the
# memory of the sweep's temporaries (about 10 float64 arrays of this size).
# Blocks of several features (levels of fewer than 2^13 positions) save Python
# overhead on small data; a long feature column is swept in chunks of positions
# (_sweep_in_chunks, _chunk_cells), except where it has missing values, for the
# random splitter and for the absolute error, whose sweep (_sweep_block) holds
# arrays of one whole feature of the level (its statistics, though, in chunks
# of SWEEP_CELLS: _additive_scores).
BLOCK_CELLS = 1 << 14

# Fits of fewer samples than SMALL_FIT sweep SMALL_FIT_BLOCKS times as many cells
# at once (fewer blocks and chunks: Python's cost per block dominates there,
# and the temporaries of a few MiB are no concern; _Level.cells).
SMALL_FIT, SMALL_FIT_BLOCKS = 1 << 13, 4

# At most this many (statistic, cut) cells of children's statistics are scored
# by the proxy at once (_score, _counted_scores): with many classes the proxy's
# temporaries then stay in the CPU's cache (benchmarks/bench_real.py's
# classes_100, entropy, max_depth=10: 19.6 s with pieces of BLOCK_CELLS cuts
# of 100 classes, 9.8 s with these; measured on an AVX2 EPYC).
PROXY_CELLS = 1 << 17
# With 3 to MANY_STATS statistics, a quarter of it (_proxy_cells): pieces of
# 1 MiB then made glibc's malloc hand the freed temporaries back to the system
# and fault them in anew at every piece (classes_10, gini: 1.1 s a fit with
# 1 MiB pieces, 0.5 s with 256 KiB ones, and 0.5 s with 1 MiB pieces when
# MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ keep the memory), while
# two statistics (breast cancer: a level in one piece) and more than
# MANY_STATS (classes_100: a few cuts per piece) are faster with the larger pieces.

# At most this many (statistic, feature, position) cells in one array of
# children's statistics (4 MiB of float64): with many classes (one statistic
# per class) the chunks and feature blocks get shorter, so that the sweep's
# memory does not grow with the number of classes.  Beyond MANY_STATS
# statistics, a quarter of it (_sweep_cells): classes_100, gini,
# max_depth=10 took 7.7 s and 23 MiB with 4 MiB arrays, 3.4 s and 7 MiB with
# 1 MiB ones, while digits (10 classes) took a quarter more time with them.
SWEEP_CELLS, MANY_STATS = 1 << 19, 16


def _sweep_cells(n_swept):
    """SWEEP_CELLS for ``n_swept`` statistics per position (a quarter beyond MANY_STATS)."""
    return SWEEP_CELLS if n_swept <= MANY_STATS else SWEEP_CELLS // 4


def _proxy_cells(n_stats):
    """PROXY_CELLS for ``n_stats`` statistics per cut (a quarter for 3 to MANY_STATS)."""
    return PROXY_CELLS // 4 if 2 < n_stats <= MANY_STATS else PROXY_CELLS

# A float32 copy of X by features (feature_columns) for X of at least this many
# features and bytes: each row then spans four or more cache lines of float64,
# and X does not fit in the cache, so that reading it in node order misses
# (covertype-shaped data: a quarter less fit time).  Narrower X is read in
# place: at n = 10^5 and d = 20 the copy (7.6 MiB) would come on top of a
# regression's peak of 14.8 MiB at max_depth=10, against scikit-learn's 9.0
# (benchmarks/results.csv), for no gain in time measurable there.
COLUMNS_MIN_FEATURES, COLUMNS_MIN_BYTES = 32, 1 << 22
# A small fit's copy takes at most this many bytes (a bound on the memory it adds).
SMALL_FIT_COLUMNS_BYTES = 1 << 24

# Up to this many values, X is read with one 2-D index (_gather_values);
# beyond, one feature's column at a time (each a contiguous read of X[:, f]).
GATHER_CELLS = 1 << 12

# At most this many (feature, position) cells of the presorted index are
# partitioned at once (a boolean and an index temporary of this size): several
# features at once on small levels; at n = 10^4 one, as 2^17 cells took a fit
# at n = 10^4, d = 20 from 2.2 to 3.3 MiB (tests/test_memory.py).
PARTITION_CELLS = 1 << 14

# Kinds of candidate split (the order in which they win ties within a feature).
MISSING_RIGHT, MISSING_LEFT, NON_MISSING_LEFT = 0, 1, 2


@dataclass
class SplitResult:
    """The best split of each segment; ``feature == -1`` where none is valid.

    The non-missing samples sent left are the first ``cut`` of the segment in
    the order of ``feature``; its last ``n_missing`` samples are the missing
    ones, sent left if ``missing_left``.
    """

    feature: np.ndarray             # (n_segments,) int
    threshold: np.ndarray           # (n_segments,) float64 (inf: non-missing vs missing)
    cut: np.ndarray                 # (n_segments,) int, non-missing samples sent left
    n_missing: np.ndarray           # (n_segments,) int, samples missing the feature
    missing_left: np.ndarray        # (n_segments,) bool, missing samples went left in training
    missing_go_to_left: np.ndarray  # (n_segments,) bool, where NaN goes at predict time
    n_left: np.ndarray              # (n_segments,) int, samples sent left
    proxy: np.ndarray               # (n_segments,) the criterion's proxy score

    @classmethod
    def empty(cls, n_segments):
        """No split yet for ``n_segments`` segments (feature -1, proxy -inf)."""
        def zeros(dtype):
            return np.zeros(n_segments, dtype=dtype)

        return cls(feature=np.full(n_segments, -1, dtype=np.intp), threshold=zeros(float),
                   cut=zeros(np.intp), n_missing=zeros(np.intp), missing_left=zeros(bool),
                   missing_go_to_left=zeros(bool), n_left=zeros(np.intp),
                   proxy=np.full(n_segments, -np.inf))

    def update(self, segments, **fields):
        """Set ``fields`` (names of the attributes) at the given segments."""
        for name, values in fields.items():
            getattr(self, name)[segments] = values

    def select(self, mask):
        """The splits of the segments where ``mask`` (n_segments,) is true."""
        return SplitResult(**{name: values[mask] for name, values in vars(self).items()})


@dataclass
class SearchOptions:
    """What a randomised search draws for each segment (``None``: not drawn).

    Each array has shape (n_segments, n_features); see
    :meth:`BestSplitter.options` for how they are drawn.
    """

    feature_mask: np.ndarray | None = None   # bool: features the segment may use
    feature_rank: np.ndarray | None = None   # int: order of features on ties (lower first)
    thresholds: np.ndarray | None = None     # float64: the one candidate threshold
    missing_left: np.ndarray | None = None   # bool: where missing values are sent

    def of_segment(self, j):
        """The options of segment ``j``, rows of shape (n_features,) or None."""
        return {name: None if value is None else value[j] for name, value in vars(self).items()}


def midpoint(lower, upper):
    """The threshold between two consecutive distinct values (float64 arrays or scalars).

    Their midpoint, or ``lower`` where the midpoint rounds onto ``upper``
    (or overflows), so that ``lower <= threshold < upper``.
    """
    threshold = lower / 2.0 + upper / 2.0       # sum of halves: no overflow
    return np.where((threshold == upper) | np.isinf(threshold), lower, threshold)


class NodeSplit(NamedTuple):
    """The best split of one node on one feature (:func:`reference_split`)."""

    proxy: float               # the criterion's proxy of the split
    threshold: float           # x <= threshold goes left (inf: non-missing left, missing right)
    n_left: int                # samples sent left
    cut: int                   # non-missing samples sent left (the lowest values)
    n_missing: int             # samples whose value is missing
    missing_left: bool         # whether the missing ones go left
    missing_go_to_left: bool   # where NaN goes at predict time


def reference_split(x, stats, criterion, *, min_samples_leaf=1, min_weight_leaf=0.0,
                    threshold=None, missing_left=None, monotonic_cst=0,
                    bounds=(-np.inf, np.inf)):
    """The best split of one node on one feature: argsort, cumulative sums, proxy.

    ``x`` of shape (n,) holds the node's values of the feature (NaN: missing),
    ``stats`` of shape (n_stats, n) its samples' statistics (dense),
    ``criterion`` a :class:`dtree.criteria.Criterion`; ``threshold`` and
    ``missing_left`` are the random splitter's draws; ``monotonic_cst``
    (-1, 0 or 1) the feature's monotonicity constraint and ``bounds`` the
    node's ``(lower, upper)`` (see :func:`best_splits`).  Returns a
    :class:`NodeSplit`, or None if no split is allowed.  It finds the split
    :func:`best_splits` finds, with the same tie rules (see the module
    docstring), in :math:`O(n)` array operations and a loop over candidates.

    Examples
    --------
    >>> from dtree.criteria import Gini
    >>> x = np.array([3.0, 1.0, 4.0, 2.0])
    >>> stats = np.array([[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]])  # classes 1, 0, 1, 0
    >>> split = reference_split(x, stats, Gini)
    >>> split.threshold, split.n_left          # two pure children
    (2.5, 2)
    """
    x = np.asarray(x).astype(np.float32)              # the tree compares float32 values
    order = np.argsort(x, kind="stable")              # increasing x, missing (NaN) last
    x, stats = x[order].astype(np.float64), stats[:, order]
    n, n_present = x.size, int(np.count_nonzero(~np.isnan(x)))
    n_missing = n - n_present
    # A cut sends its first `cut` non-missing samples left, all below the threshold.
    if threshold is None:                             # a gap between distinct values
        cuts = [i + 1 for i in range(n_present - 1) if x[i + 1] > x[i]]
    else:                                             # the random splitter's threshold
        below = int(np.count_nonzero(x[:n_present] <= threshold))
        cuts = [below] if 0 < below < n_present else []
    sides = [MISSING_RIGHT, MISSING_LEFT] if n_missing else [MISSING_RIGHT]
    if missing_left is not None and n_missing:        # the random splitter's coin
        sides = [MISSING_LEFT if missing_left else MISSING_RIGHT]
    splits = [(side, cut) for side in sides for cut in cuts]   # in the order of ties
    if n_missing and missing_left is None and n_present and x[n_present - 1] > x[0]:
        splits.append((NON_MISSING_LEFT, n_present))  # non-missing left, missing right
    prefix = np.cumsum(stats, axis=1)                 # prefix[:, i]: samples 0 .. i
    total = stats.sum(axis=1)
    missing = total - prefix[:, n_present - 1] if n_present else total
    best = None
    for kind, cut in splits:
        went_left = kind == MISSING_LEFT
        n_left = cut + n_missing * went_left
        if criterion.additive:                        # the left child: a prefix sum
            left = prefix[:, cut - 1] + missing if went_left else prefix[:, cut - 1]
            right = total - left
        else:                                         # the absolute error: medians
            two = criterion.node_stats(stats, np.arange(n), np.array([0, n_left]))
            left, right = two.T
        weight = min(criterion.weight(left), criterion.weight(right))
        if min(n_left, n - n_left) < min_samples_leaf or weight < min_weight_leaf:
            continue
        if monotonic_cst and not criterion.check_monotonicity(
                monotonic_cst, *bounds, criterion.monotonic_value(left),
                criterion.monotonic_value(right)):
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            proxy = float(criterion.proxy(left[:, None], right[:, None])[0])
        if proxy > -np.inf and (best is None or proxy > best.proxy):   # ties: the first
            at = midpoint(x[cut - 1], x[cut]) if threshold is None else threshold
            at = np.inf if kind == NON_MISSING_LEFT else float(at)
            best = NodeSplit(proxy, at, n_left, cut, n_missing, went_left,
                             went_left if n_missing else n_left > n - n_left)
    return best


def reference_node_split(X, stats, criterion, *, feature_mask=None, feature_rank=None,
                         thresholds=None, missing_left=None, monotonic_cst=None, **rules):
    """The best split of one node: :func:`reference_split` of every allowed feature.

    ``X`` of shape (n, n_features) holds the node's samples; the options are
    rows of :class:`SearchOptions` (shape (n_features,)), ``monotonic_cst``
    the features' constraints (None: none) and ``rules`` the keywords
    ``min_samples_leaf``, ``min_weight_leaf`` and ``bounds``.  The largest proxy
    wins, ties going to the lowest ``feature_rank`` (default: the lowest
    feature index).  Returns ``(feature, NodeSplit)``, or None.
    """
    best = None
    for f in range(X.shape[1]):
        if feature_mask is not None and not feature_mask[f]:
            continue
        found = reference_split(
            X[:, f], stats, criterion, **rules,
            threshold=None if thresholds is None else thresholds[f],
            missing_left=None if missing_left is None else missing_left[f],
            monotonic_cst=0 if monotonic_cst is None else int(monotonic_cst[f]))
        rank = f if feature_rank is None else feature_rank[f]
        if found is not None and (best is None or found.proxy > best[2].proxy
                                  or (found.proxy == best[2].proxy and rank < best[1])):
            best = (f, rank, found)
    return None if best is None else (best[0], best[2])


def presort(X) -> np.ndarray:
    """Per feature, the samples in increasing order of the feature (stable; NaN last).

    ``X`` of shape (n_samples, n_features) is compared as float32 (values that
    round to one float32 are tied, and keep the order of the samples).
    Returns an array of shape (n_features, n_samples) of the smallest unsigned
    integer type that holds every sample index (``numpy.min_scalar_type``:
    uint16 up to 65,536 samples, a quarter of an int64 index), because it is
    the largest array of the fit.  Readers convert it before any arithmetic.
    """
    n_samples, n_features = X.shape
    dtype = np.min_scalar_type(max(n_samples - 1, 0))
    order = np.empty((n_features, n_samples), dtype=dtype)
    for f in range(n_features):  # one feature at a time: no int64 (d, n) temporary
        order[f] = np.argsort(X[:, f].astype(np.float32), kind="stable")
    return order


def feature_values(X, samples, features):
    """``float32(X[samples, features])``: the values the tree compares, as float32.

    ``X`` of shape (n_samples, n_features) is the caller's float32 or float64
    array, read in place; ``samples`` and ``features`` broadcast together.
    """
    return X[samples, features].astype(np.float32, copy=False)


def _gather_values(X, features, O, live=None, columns=None):
    """``float32(X[O[i, j], features[i]])`` as an array of shape O.shape.

    Where ``live`` (shape O.shape, bool) is given, the other positions are 0
    (they are read too: reading a whole row and zeroing is two to three times
    as fast as reading through a mask).  ``columns``, if given, is
    ``float32(X).T`` in C order (:func:`feature_columns`): read from it, a
    feature's values are contiguous.
    """
    features = np.asarray(features)
    if columns is not None:          # flat index f * n_samples + sample: one read
        out = np.take(columns, O + (features * columns.shape[1])[:, None])
    elif O.size <= GATHER_CELLS:     # small: one 2-D index, not a call per feature
        out = X[O, features[:, None]].astype(np.float32)
    else:
        out = np.empty(O.shape, dtype=np.float32)
        for i, f in enumerate(features):
            out[i] = X[O[i], f]        # float64 -> float32 rounding, as feature_values
    if live is not None:
        out[~live] = 0
    return out


def feature_columns(X):
    """``float32(X).T`` in C order, or None: where reading it beats reading ``X``.

    The sweep reads each feature's values in the order of a node's samples.
    From ``X`` (n_samples, n_features) in C order, every read is another row;
    from this copy (n_features, n_samples) a feature's values are contiguous,
    two to three times as fast to gather where ``X`` is wide and does not fit
    in the cache.  The copy (the size of a float32 ``X``, as scikit-learn's
    own copy of a float64 ``X``) is made for fits of fewer than SMALL_FIT
    samples, where memory is no goal, if it takes at most
    SMALL_FIT_COLUMNS_BYTES, and for a float64 ``X`` of at least
    COLUMNS_MIN_FEATURES features and more than COLUMNS_MIN_BYTES bytes (of a
    float32 ``X`` scikit-learn makes no copy, nor does this function beyond the
    small fits); otherwise None (read ``X`` in place).
    """
    n_samples, n_features = X.shape
    copy_bytes = 4 * n_samples * n_features
    small = n_samples < SMALL_FIT and copy_bytes <= SMALL_FIT_COLUMNS_BYTES
    wide_and_large = (X.dtype != np.float32 and n_features >= COLUMNS_MIN_FEATURES
                      and X.nbytes > COLUMNS_MIN_BYTES)
    if not (small or wide_and_large):
        return None
    return np.ascontiguousarray(X.T, dtype=np.float32)


def _gather_rows(stats, n_rows, O):
    """``stats[k, O[i, j]]`` for the first ``n_rows`` rows, shape (n_rows, *O.shape).

    ``stats`` of shape (n_stats, n_samples) holds per-sample statistics, or is
    :class:`dtree.criteria.ClassWeights`, whose one-hot rows are built for the
    samples of ``O`` only.  One ``numpy.take`` along the samples axis of the
    first rows (a view): four to eight times as fast as a take per row.
    """
    if isinstance(stats, ClassWeights):
        out = stats.take(O)                  # (n_classes, *O.shape)
        return out if n_rows == out.shape[0] else out[:n_rows]
    return np.take(stats[:n_rows], O, axis=1)


def _chunk_cells(m, n_swept=1, cells=None):
    """Cells (features x positions) per chunk of _sweep_in_chunks for a level of
    ``m`` positions and ``n_swept`` statistics: at least ``cells`` (default
    BLOCK_CELLS) and half the level (fewer chunks, less Python overhead on large
    levels), at most 8 * BLOCK_CELLS (temporaries of about 10 MiB), and at most
    SWEEP_CELLS // n_swept (many classes), but at least one."""
    cells = cells or BLOCK_CELLS
    return max(1, min(max(cells, m // 2), 8 * BLOCK_CELLS, _sweep_cells(n_swept) // n_swept))


def _feature_blocks(n_features, m, cells=BLOCK_CELLS, max_size=None):
    """Consecutive blocks of features of about ``cells // m`` (at most ``max_size``) each."""
    size = max(1, min(n_features, cells // max(m, 1), max_size or n_features))
    return [np.arange(lo, min(lo + size, n_features)) for lo in range(0, n_features, size)]



def segment_prefix_sums(stats, totals, O, starts, lo=0, carry=None):
    r"""Statistics of the left child of every cut: prefix sums that restart at every segment.

    Parameters
    ----------
    stats : ndarray of shape (n_stats, n_samples) or ClassWeights
        Per-sample statistics of the criterion.
    totals : ndarray of shape (n_swept, n_segments)
        Statistics of each segment (the first ``n_swept`` rows of
        :meth:`dtree.criteria.Criterion.node_stats`).
    O : ndarray of shape (b, c), int
        For each of ``b`` features, the samples at positions ``lo .. lo + c - 1``
        of the level, segment after segment, each in increasing order of the
        feature.
    starts : ndarray of shape (n_segments,), int
        Where each segment starts (``starts[0] == 0``).
    lo : int, default=0
        The position of ``O``'s first column.
    carry : ndarray of shape (n_swept, b), default=None
        The running sum at position ``lo - 1`` (the last column this function
        returned for the positions before ``lo``); None at ``lo == 0``.

    Returns
    -------
    ndarray of shape (n_swept, b, c)
        Column ``p - lo``: the sums of the statistics of the samples of ``p``'s
        segment up to position ``p`` -- the left child of the cut after ``p``.
        The floats do not depend on how the level is cut into chunks.
    """
    n_swept = totals.shape[0]
    left = _gather_rows(stats, n_swept, O)      # (s, b, c), per sample
    # Segments j >= 1 that start in the chunk: at j's first position, subtract the
    # total of segment j - 1, so that one running sum along the level restarts there.
    hi = lo + O.shape[1]
    j = np.arange(np.searchsorted(starts, max(lo, 1)), np.searchsorted(starts, hi))
    left[:, :, starts[j] - lo] -= totals[:, None, j - 1]
    if carry is not None:
        left[:, :, 0] += carry                  # the running sum before position lo
    # left[:, :, p] = sum of stats[q] for q = start(p) .. p: step 2.1 of the sweep
    np.cumsum(left, axis=2, out=left)
    return left


@dataclass
class _Level:
    """The arguments of one :func:`best_splits` call, shared by the sweep's helpers."""

    X: np.ndarray                 # (n_samples, n_features)
    order: np.ndarray             # (n_features, m) segments sorted by each feature
    starts: np.ndarray            # (n_segments,)
    sizes: np.ndarray             # (n_segments,)
    stats: object                 # (n_stats, n_samples) or ClassWeights
    totals: np.ndarray            # (n_stats, n_segments)
    criterion: type
    min_samples_leaf: int
    min_weight_leaf: float
    has_missing: np.ndarray       # (n_features,) bool
    options: SearchOptions
    constant: np.ndarray | None = None   # (n_segments, n_features) bool, known constant
    monotonic_cst: np.ndarray | None = None   # (n_features,) int in {-1, 0, 1}, or None
    bounds: np.ndarray | None = None     # (2, n_segments): each node's [lower, upper] value
    columns: np.ndarray | None = None    # (n_features, n_samples): float32(X).T, or None

    def __post_init__(self):
        # The statistics the proxy reads (with many classes, all of them).
        self.n_swept = self.criterion.n_swept or self.stats.shape[0]
        # (feature, position) cells swept at once (see SMALL_FIT).
        self.cells = BLOCK_CELLS * (SMALL_FIT_BLOCKS if self.X.shape[0] < SMALL_FIT else 1)
        self.swept_totals = self.totals[:self.n_swept]
        # Class counts whose partial sums (over a block's rows too) are exact floats.
        self.exact_counts = (isinstance(self.stats, ClassWeights) and self.stats.exact_sums
                             and _running_sums_exact(self.totals.sum(), self.order.shape[0]))
        # The cut after position p of a segment leaves p - start + 1 samples left:
        # cuts leaving both children min_samples_leaf samples form one run per segment.
        # In segment j the allowed cuts are after positions starts[j] + msl - 1 ..
        # starts[j] + sizes[j] - msl - 1: +1 where a run begins, -1 after it ends
        # (distinct positions, in increasing order), and a running sum.
        msl, starts, sizes = self.min_samples_leaf, self.starts, self.sizes
        has_run = sizes >= 2 * msl
        edges = np.zeros(self.order.shape[1] + 1, dtype=np.int8)
        edges[starts[has_run] + (msl - 1)] = 1
        edges[(starts + sizes)[has_run] - msl] = -1
        self.leaf_ok = np.cumsum(edges[:-1], dtype=np.int8).view(bool)   # (m,)

    def feature_blocks(self):
        """Blocks of features swept together: at most SWEEP_CELLS statistics per position."""
        n_features, m = self.order.shape
        additive = self.criterion.additive
        max_block = max(1, _sweep_cells(self.n_swept) // self.n_swept) if additive else n_features
        return _feature_blocks(n_features, m, self.criterion.block_cells or self.cells,
                               max_block)

    def constrains(self, fb):
        """Whether a feature of the block ``fb`` has a monotonicity constraint."""
        return self.monotonic_cst is not None and bool(self.monotonic_cst[fb].any())

    def respects_monotonicity(self, fb, value_left, value_right, lo, hi):
        """Cuts after positions ``lo .. hi - 1`` that a monotonicity constraint allows, (b, hi - lo).

        ``value_left`` and ``value_right`` (b, hi - lo) are the children's
        :meth:`~dtree.criteria.Criterion.monotonic_value`.  A cut on a
        constrained feature must order its children's values by the
        constraint and keep both within its node's bounds
        (:meth:`~dtree.criteria.Criterion.check_monotonicity`, scikit-learn's
        rule); a cut on an unconstrained feature is not checked (scikit-learn
        checks only ``monotonic_cst[feature] != 0``: its children's values are
        clipped to the bounds instead).
        """
        cst = self.monotonic_cst[fb][:, None]                            # (b, 1)
        lower = self.over_positions(self.bounds[0], lo, hi)              # (hi - lo,)
        upper = self.over_positions(self.bounds[1], lo, hi)
        ok = self.criterion.check_monotonicity(cst, lower, upper, value_left, value_right)
        return ok | (cst == 0)

    def per_position(self, per_segment):
        """Repeat (b, n_segments) values over the segments' positions: (b, m)."""
        return np.repeat(per_segment, self.sizes, axis=1)

    def parts(self, lo, hi):
        """The segments ``s0 .. s1 - 1`` that meet positions ``lo .. hi - 1``, and their parts.

        Returns ``s0, s1`` and the parts' starts (relative to ``lo``) and sizes.
        """
        s0 = int(np.searchsorted(self.starts, lo, side="right")) - 1
        s1 = int(np.searchsorted(self.starts, hi, side="left"))
        part_starts = np.maximum(self.starts[s0:s1], lo) - lo
        part_ends = np.minimum(self.starts[s0:s1] + self.sizes[s0:s1], hi) - lo
        return s0, s1, part_starts, part_ends - part_starts

    def over_positions(self, per_segment, lo, hi):
        """``per_segment[..., j]`` at the positions ``lo .. hi - 1`` of segment j, (..., hi - lo)."""
        s0, s1, _, part_sizes = self.parts(lo, hi)
        return np.repeat(per_segment[..., s0:s1], part_sizes, axis=-1)


class _BlockBest(NamedTuple):
    """Per feature of a block and segment, each of shape (b, n_segments)."""

    value: np.ndarray       # the best proxy (-inf: no candidate)
    kind: np.ndarray        # the kind of split that reaches it (first kind on ties)
    first: np.ndarray       # the first position reaching it
    n_missing: np.ndarray   # samples missing the feature
    n_present: np.ndarray   # the others


def best_splits(X, order, starts, sizes, stats, totals, criterion, *, min_samples_leaf=1,
                min_weight_leaf=0.0, has_missing=None, options=None,
                constant=None, monotonic_cst=None, bounds=None, columns=None) -> SplitResult:
    """Score every threshold of every segment and keep each segment's best.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32 or float64
        The training features (NaN where missing), compared as float32 (see
        :func:`feature_values`); read, never written.
    order : ndarray of shape (n_features, m), int
        Per feature, the samples of the segments, each segment sorted by the
        feature with its missing values last; segment ``j`` occupies
        ``starts[j]:starts[j] + sizes[j]``.
    starts, sizes : ndarray of shape (n_segments,), int
        Where each segment starts in ``order`` and how many samples it has.
    stats : ndarray of shape (n_stats, n_samples) or ClassWeights
        Per-sample statistics of the criterion, one row per statistic (class
        weights: :class:`dtree.criteria.ClassWeights`).
    totals : ndarray of shape (n_stats, n_segments)
        Statistics of each segment (``criterion.node_stats``).
    criterion : subclass of :class:`dtree.criteria.Criterion`
        Supplies ``proxy(left, right)`` and ``weight(stats)``; a criterion that
        is not ``additive`` (the absolute error) scores a block's cuts itself
        with ``children_score``.
    min_samples_leaf : int, default=1
        Splits leaving fewer samples in a child are not candidates.
    min_weight_leaf : float, default=0.0
        Splits leaving less weight in a child are not candidates.
    has_missing : ndarray of shape (n_features,), bool, default=None
        Features with a missing value somewhere in ``X``; ``None``: none.
    options : SearchOptions, default=None
        Random feature subsets, tie ranks and thresholds; ``None``: the
        exhaustive search, ties to the lowest feature index.
    constant : ndarray of shape (n_segments, n_features), bool, default=None
        Features known to be constant in a segment (in an ancestor): their
        values there are not read (scikit-learn's ``n_constant_features``).
        Updated in place: set where the sweep finds a feature constant (the
        features swept in chunks; see :func:`_sweep_in_chunks`), so that the
        children of a segment can inherit its row.
    monotonic_cst : ndarray of shape (n_features,), int, default=None
        Monotonicity constraints on the criterion's
        :meth:`~dtree.criteria.Criterion.monotonic_value` (1: increasing, -1:
        decreasing, 0: none); ``None``: no constraint.  A cut on a constrained
        feature whose children's values violate it, or leave the segment's
        ``bounds``, is no candidate (scikit-learn's
        ``Criterion.check_monotonicity``).
    bounds : ndarray of shape (2, n_segments), default=None
        Each segment's lower and upper bound on its children's values (with
        ``monotonic_cst``).
    columns : ndarray of shape (n_features, n_samples), float32, default=None
        ``float32(X).T`` in C order (:func:`feature_columns`), from which the
        sweep reads the values faster; None: read ``X``.  The same splits.

    Returns
    -------
    SplitResult
        The best split per segment, ``feature == -1`` if there is none.
    """
    if has_missing is None:
        has_missing = np.zeros(order.shape[0], bool)
    if (type(stats) is ClassWeights and stats.exact_sums and stats.shape[0] > 2
            and issubclass(criterion, Gini) and (monotonic_cst is None or not np.any(monotonic_cst))):
        stats, totals = _present_classes(stats, totals, order[0], starts, sizes)
    level = _Level(X, order, starts, sizes, stats, totals, criterion, min_samples_leaf,
                   min_weight_leaf, has_missing, options or SearchOptions(), constant,
                   monotonic_cst, bounds, columns)
    best = SplitResult.empty(starts.size)
    best_rank = np.full(starts.size, np.iinfo(np.intp).max)
    for fb in level.feature_blocks():
        if (criterion.additive and level.options.thresholds is None
                and not has_missing[fb].any() and not level.constrains(fb)):
            # The common case, swept a chunk of positions at a time (same result,
            # memory bounded by _chunk_cells instead of one feature's column).
            block = _sweep_in_chunks(level, fb)
        else:
            block = _sweep_block(level, fb)
        _keep_better(level, fb, block, best, best_rank)
    return best


def _present_classes(stats, totals, samples, starts, sizes):
    """The class weights of a level over the classes present in each segment: fewer rows.

    A class of no weight in a segment adds exact zeros to every sum over the
    classes there (left child, right child, node), and Gini and entropy sum
    the classes one after another (:func:`dtree.criteria._sum_over_classes`),
    so numbering the classes of positive weight ``0, 1, ...`` in each segment,
    in their order, gives every proxy the same float with as many rows as the
    segment with most classes has classes, instead of ``n_classes``: with many
    classes, nodes below the top few levels hold only some of them.  For
    :attr:`~dtree.criteria.ClassWeights.exact_sums` only: the sweep's running
    sum restarts at a segment by subtracting the previous segment's total
    (:func:`segment_prefix_sums`), which leaves exactly 0 in each row only if
    the sums are exact (otherwise a residue of one class would pass into
    another class's row), and some totals over the classes are summed
    pairwise, in an order that the renumbering changes, which is harmless
    only for exact sums.  Gini and entropy only (their proxies do not depend
    on which class is which).

    ``samples`` (m,) are the samples at the positions of the segments
    ``starts``, ``sizes``; ``totals`` (n_classes, n_segments).  Returns the
    relabelled statistics and totals, or ``stats, totals`` themselves where
    that would save fewer than two rows.
    """
    present = totals > 0                                    # (n_classes, n_segments)
    width = max(int(present.sum(axis=0).max()) if starts.size else 0, 1)
    if width > stats.shape[0] - 2:           # a row or none saved: not worth a relabelling
        return stats, totals
    # Row of each present class in its segment; a class of no weight in the
    # segment (samples of weight 0) gets any row: it adds 0.0 there.
    rank = np.maximum(np.cumsum(present, axis=0) - 1, 0)   # (n_classes, n_segments)
    m = int(sizes.sum())
    codes = np.zeros(stats.shape[1], dtype=np.min_scalar_type(width - 1))
    segment = np.repeat(np.arange(starts.size), sizes)      # (m,)
    codes[samples[:m]] = rank[stats.codes[samples[:m]], segment]
    local_totals = np.zeros((width, starts.size))
    k, j = np.nonzero(present)
    local_totals[rank[k, j], j] = totals[k, j]
    return stats.relabelled(codes, width), local_totals


def _keep_better(level, fb, block: _BlockBest, best: SplitResult, best_rank):
    """Replace ``best`` where a feature of the block ``fb`` scores higher (ties: lower rank)."""
    b, n_segments = block.value.shape
    feature_rank = level.options.feature_rank
    rank = (np.broadcast_to(fb[:, None], (b, n_segments)) if feature_rank is None
            else feature_rank[:, fb].T)
    # Best feature of the block per segment: largest score, then lowest rank.
    top = block.value.max(axis=0)
    row = np.argmin(np.where(block.value == top, rank, np.iinfo(np.intp).max), axis=0)
    row_rank = rank[row, np.arange(n_segments)]
    improves = ((top > best.proxy) | ((top == best.proxy) & (row_rank < best_rank))) \
        & (top > -np.inf)
    segs = np.flatnonzero(improves)
    if not segs.size:
        return
    r = row[segs]
    kind, n_missing, n_present = block.kind[r, segs], block.n_missing[r, segs], \
        block.n_present[r, segs]
    is_inf = kind == NON_MISSING_LEFT      # placed after the last non-missing sample
    p = np.where(is_inf, level.starts[segs] + n_present - 1, block.first[r, segs])
    cut = p - level.starts[segs] + 1
    f = fb[r]
    if level.options.thresholds is None:
        X, order, m = level.X, level.order, level.order.shape[1]
        lower = feature_values(X, order[f, p], f).astype(np.float64)
        upper = feature_values(X, order[f, np.minimum(p + 1, m - 1)], f).astype(np.float64)
        threshold = midpoint(lower, upper)
    else:
        threshold = level.options.thresholds[segs, f]
    went_left = kind == MISSING_LEFT
    n_left = cut + np.where(went_left, n_missing, 0)
    best_rank[segs] = row_rank[segs]
    # No missing value of this feature in training: NaN goes to the larger child.
    go_left = np.where(n_missing > 0, went_left, n_left > level.sizes[segs] - n_left)
    best.update(segs, feature=f, threshold=np.where(is_inf, np.inf, threshold), cut=cut,
                n_missing=n_missing, missing_left=went_left, missing_go_to_left=go_left,
                n_left=n_left, proxy=top[segs])


def _gaps(values, c):
    """Cuts after positions 0 .. c - 1 between two distinct values, shape (b, c).

    ``values`` of shape (b, c) or (b, c + 1) holds sorted values (NaN last) and,
    if given, the value after the last position.  A cut after position p is a
    candidate if the next sample has a larger value (beyond FEATURE_THRESHOLD);
    NaN never is.
    """
    gaps = np.zeros((values.shape[0], c), bool)
    np.greater(values[:, 1:], values[:, :-1] + FEATURE_THRESHOLD,
               out=gaps[:, :values.shape[1] - 1])
    return gaps


def _sweep_in_chunks(level, fb) -> _BlockBest:
    """Best score per feature of ``fb`` and segment, and its first position, chunk by chunk.

    An additive criterion, no missing value in the block, every midpoint a
    candidate: at most ``_chunk_cells(m)`` cells at a time, the running prefix
    sum carried from one chunk into the next (:func:`segment_prefix_sums`), so
    that every prefix sum is the same float as in one sweep of the level.  A
    segment may span several chunks; its best score so far and the first
    position reaching it are kept, and a later chunk replaces them only with a
    strictly larger score (ties: lowest position).

    With ``level.constant``, the positions of a segment in which a feature is
    known to be constant are not read, and the features found constant in a
    segment (no two distinct values) are recorded there.
    """
    b, m = fb.size, level.order.shape[1]
    n_segments = level.starts.size
    value = np.full((b, n_segments), -np.inf)
    first = np.zeros((b, n_segments), dtype=np.intp)
    varies = np.zeros((b, n_segments), bool)
    carry = None
    step = max(1, _chunk_cells(m, level.n_swept, level.cells) // b)
    for lo in range(0, m, step):
        hi = min(lo + step, m)
        parts = level.parts(lo, hi)
        s0, s1, part_starts, part_sizes = parts
        score, carry, part_varies = _chunk_scores(level, fb, lo, hi, parts, carry)
        varies[:, s0:s1] |= part_varies
        part_best = np.maximum.reduceat(score, part_starts, axis=1)      # (b, s1 - s0)
        part_first = _first_at_best(score, part_best, part_starts, part_sizes, lo)
        del score                    # memory: not alive beside the next chunk's sums
        # Merge: a strictly better score moves the position; NaN propagates as
        # in a reduction over the whole segment.
        better = part_best > value[:, s0:s1]
        first[:, s0:s1] = np.where(better, part_first, first[:, s0:s1])
        value[:, s0:s1] = np.maximum(value[:, s0:s1], part_best)
    if level.constant is not None:
        level.constant[:, fb] = ~varies.T
    zeros = np.zeros((b, n_segments), dtype=np.intp)
    return _BlockBest(value, zeros, first, zeros, np.repeat(level.sizes[None], b, axis=0))


def _chunk_scores(level, fb, lo, hi, parts, carry):
    """The proxy at the cuts after positions ``lo .. hi - 1`` (-inf: no candidate), (b, hi - lo).

    ``parts`` is ``level.parts(lo, hi)``.  Also returns the running sum after
    position ``hi - 1``, the ``carry`` of the next chunk (see
    :func:`segment_prefix_sums`), and whether each feature takes two values in
    each part of a segment, (b, s1 - s0).
    """
    m = level.order.shape[1]
    s0, s1, part_starts, part_sizes = parts
    O = level.order[fb, lo:min(hi + 1, m)].astype(np.intp)   # one more: the next value
    live = None
    if level.constant is not None and level.constant[s0:s1, fb].any():
        # Positions of segments where the feature is not known constant; the
        # next value (column hi - lo) belongs to the segment of position hi - 1
        # or starts another segment (the cut between them is no candidate).
        live = np.repeat(~level.constant[s0:s1, fb].T, part_sizes, axis=1)
        live = np.concatenate([live, live[:, -1:]], axis=1)[:, :O.shape[1]]
    cand = _gaps(_gather_values(level.X, fb, O, live, level.columns), hi - lo)
    # A segment varies where a cut inside it separates two values (the cut
    # after its last position compares it with the next segment).
    inside = cand.copy()
    ends = level.starts[s0:s1] + level.sizes[s0:s1] - 1 - lo      # segments' last positions
    inside[:, ends[ends < hi - lo]] = False
    part_varies = np.logical_or.reduceat(inside, part_starts, axis=1)
    del inside
    if level.options.feature_mask is not None:
        cand &= np.repeat(level.options.feature_mask[s0:s1, fb].T, part_sizes, axis=1)
    cand &= level.leaf_ok[lo:hi]
    node = np.repeat(level.swept_totals[:, None, s0:s1], part_sizes, axis=2)   # (s, 1, c)
    n_runs = np.count_nonzero(cand) + cand.shape[0] * (s1 - s0)     # at most
    if level.exact_counts and 4 * n_runs <= cand.size:
        # Few runs between cuts (tied values, constant features, many classes):
        # count them rather than sum one-hot rows (the same floats, and carry).
        return (*_counted_scores(level, O[:, :hi - lo], cand, node, lo, carry), part_varies)
    if lo == 0 and hi == m:
        # The whole level in one chunk, no carry: the features without a
        # candidate (constant in every segment, or tied) need no sums.
        rows = np.flatnonzero(cand.any(axis=1))
        score = np.full(cand.shape, -np.inf)
        if rows.size:
            left = segment_prefix_sums(level.stats, level.swept_totals, O[rows, :hi - lo],
                                       level.starts)
            del O
            score[rows] = _score(level.criterion, left, node, cand[rows], level.min_weight_leaf,
                                 cells=level.cells)
        return score, None, part_varies
    left = segment_prefix_sums(level.stats, level.swept_totals, O[:, :hi - lo], level.starts,
                               lo, carry)
    del O                            # memory (tests/test_memory.py): the sums replace it
    score = _score(level.criterion, left, node, cand, level.min_weight_leaf, cells=level.cells)
    return score, left[:, :, -1].copy(), part_varies


def _counted_scores(level, O, cand, node, lo, carry):
    """:func:`_chunk_scores` for exact class counts (:func:`_class_counts_at_cuts`)."""
    b, c = cand.shape
    score = np.full((b, c), -np.inf)
    whole = c == level.order.shape[1]
    if whole:                            # one chunk: rows without a candidate are skipped
        rows = np.flatnonzero(cand.any(axis=1))
        O, cand = O[rows], cand[rows]
        if not rows.size:
            return score, None
    else:                                # every row carries its counts into the next chunk
        rows = slice(None)
    at = np.flatnonzero(cand)
    cut_left, carry = _class_counts_at_cuts(level.stats, O, cand, level.starts, lo, carry)
    flat_node = node.reshape(node.shape[0], c)
    scored = np.empty(at.size)
    step = max(1, min(level.cells, _proxy_cells(level.n_swept) // level.n_swept))
    for i in range(0, at.size, step):
        piece = slice(i, i + step)
        scored[piece] = _proxy_at(level.criterion, cut_left[:, piece],
                                  flat_node[:, at[piece] % c], level.min_weight_leaf)
    part = score[rows]
    part.reshape(-1)[at] = scored
    score[rows] = part
    return score, carry


def _sweep_block(level, fb) -> _BlockBest:
    """Score every cut of the features ``fb`` at once: missing values, random
    thresholds, the absolute error.

    Each kind of split (missing values right, left, and the non-missing-vs-missing
    split) has its best score per feature and segment; the best kind wins (the
    first on ties), and the first position reaching its score.
    """
    O = level.order[fb].astype(np.intp)                     # (b, m) sample ids
    cand, n_missing, varies = _block_cuts(level, fb, O)
    n_present = level.sizes - n_missing                     # (b, n_segments)
    has_missing = bool(level.has_missing[fb].any())
    cand_left = drawn_left = None
    if has_missing:
        cand_left, drawn_left = _missing_left_cuts(level, fb, cand, n_missing)
    cand &= level.leaf_ok                                   # the missing samples go right
    if level.criterion.additive:
        score, score_left, present = _additive_scores(level, fb, O, cand, cand_left,
                                                      n_present)
    else:   # the absolute error: order statistics, no missing values (refused by fit)
        score = level.criterion.children_score(level.stats, O, level.starts, level.sizes,
                                               cand, level.min_weight_leaf)
        if level.constrains(fb):
            _reject_nonmonotonic_medians(level, fb, O, score)
    kinds = [score]
    if has_missing:
        if drawn_left is not None:
            score[drawn_left] = -np.inf        # the random splitter sent them left
        kinds.append(score_left)
    best_kind = [np.maximum.reduceat(s, level.starts, axis=1) for s in kinds]
    if has_missing and level.options.missing_left is None:
        best_kind.append(_non_missing_left_scores(level, fb, present, n_missing, n_present,
                                                  varies))
    stacked = np.stack(best_kind)                         # (kinds, b, n_segments)
    kind = np.argmax(stacked, axis=0)                     # first kind on ties
    # The first position of the winning kind's best (the non-missing-vs-missing
    # split, a kind without positions, is placed by _keep_better).
    firsts = [_first_at_best(s, best, level.starts, level.sizes)
              for s, best in zip(kinds, best_kind)]
    firsts += [np.zeros_like(firsts[0])] * (len(best_kind) - len(kinds))
    first = np.take_along_axis(np.stack(firsts), kind[None], axis=0)[0]
    return _BlockBest(np.max(stacked, axis=0), kind, first, n_missing, n_present)


def _reject_nonmonotonic_medians(level, fb, O, score):
    """Set to -inf the absolute error's cuts (``score`` (b, m)) that a monotonicity constraint forbids.

    The children's medians (:meth:`dtree.criteria.AbsoluteError.children_medians`)
    of the candidate cuts of the constrained features only.
    """
    rows = np.flatnonzero(level.monotonic_cst[fb] != 0)
    row, p = np.nonzero(score[rows] > -np.inf)
    if not row.size:
        return
    row = rows[row]
    value_left, value_right = level.criterion.children_medians(
        level.stats, O, level.starts, level.sizes, row, p)
    seg = np.searchsorted(level.starts, p, side="right") - 1
    ok = level.criterion.check_monotonicity(level.monotonic_cst[fb[row]], level.bounds[0, seg],
                                            level.bounds[1, seg], value_left, value_right)
    score[row[~ok], p[~ok]] = -np.inf


def _block_cuts(level, fb, O):
    """The candidate cuts of a block before the children's sizes are checked.

    Returns ``cand`` (b, m), the cuts between distinct values (or the random
    splitter's one cut per segment) of the features each segment may use;
    ``n_missing`` (b, n_segments), the samples missing each feature; and
    ``varies`` (b, n_segments), whether the non-missing values are not all
    equal (None without missing values in the block).
    """
    starts, sizes = level.starts, level.sizes
    values = _gather_values(level.X, fb, O, columns=level.columns)   # (b, m) sorted
    if level.has_missing[fb].any():   # missing values sit at the segment ends
        n_missing = np.add.reduceat(np.isnan(values), starts, axis=1)
        n_present = sizes - n_missing
        lowest = np.take_along_axis(values, np.broadcast_to(starts, n_missing.shape), axis=1)
        highest = np.take_along_axis(values, np.maximum(starts + n_present - 1, 0), axis=1)
        varies = highest > lowest + FEATURE_THRESHOLD
    else:
        n_missing, n_present = np.zeros((fb.size, starts.size), dtype=np.intp), sizes
        varies = None
    thresholds = level.options.thresholds
    if thresholds is None:
        cand = _gaps(values, values.shape[1])
    else:   # one cut per segment: after the last non-missing sample <= threshold
        below = values <= level.per_position(thresholds[:, fb].T)    # float64 comparison
        n_below = np.add.reduceat(below, starts, axis=1)
        rows, segs = np.nonzero((n_below > 0) & (n_below < n_present))
        cand = np.zeros(values.shape, bool)
        cand[rows, starts[segs] + n_below[rows, segs] - 1] = True
    if level.options.feature_mask is not None:
        cand &= level.per_position(level.options.feature_mask[:, fb].T)
    return cand, n_missing, varies


def _missing_left_cuts(level, fb, cand, n_missing):
    """The cuts of ``cand`` scored with the missing samples sent left, shape (b, m).

    Also ``drawn_left`` (b, m), the cuts whose missing samples the random
    splitter sent left (None for the exhaustive search): their missing-right
    scores are dropped.
    """
    m, msl = level.order.shape[1], level.min_samples_leaf
    n_left = np.arange(1, m + 1) - np.repeat(level.starts, level.sizes)   # (m,)
    n_right = np.repeat(level.sizes, level.sizes) - n_left
    n_miss = level.per_position(n_missing)                                # (b, m)
    # n_left + n_missing samples left, the rest right.
    cand_left = cand & (n_miss > 0) & (n_left + n_miss >= msl) & (n_right - n_miss >= msl)
    if level.options.missing_left is None:
        return cand_left, None
    choose = level.per_position(level.options.missing_left[:, fb].T)
    return cand_left & choose, choose & (n_miss > 0)


def _non_missing_left_scores(level, fb, present, n_missing, n_present, varies):
    """Scores of the split "all non-missing samples left, all missing right", (b, n_segments).

    ``present`` of shape (n_swept, b, n_segments) holds the statistics of each
    segment's non-missing samples; the missing ones have the rest of the total.
    """
    msl, mwl = level.min_samples_leaf, level.min_weight_leaf
    missing = level.swept_totals[:, None, :] - present
    ok = (n_missing > 0) & (n_present >= msl) & (n_missing >= msl) & varies
    if level.options.feature_mask is not None:
        ok &= level.options.feature_mask[:, fb].T
    present, missing = _row_by_row(present, missing)
    if mwl > 0:
        ok &= ((level.criterion.weight(present) >= mwl)
               & (level.criterion.weight(missing) >= mwl))[..., :ok.shape[-1]]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, level.criterion.proxy(present, missing)[..., :ok.shape[-1]], -np.inf)


def _prefix_chunks(level, O, step):
    """:func:`segment_prefix_sums` of the block ``O`` (b, m), ``step`` positions at a time.

    Yields ``(lo, hi, left)`` with ``left`` of shape (n_swept, b, hi - lo).
    """
    carry = None
    for lo in range(0, O.shape[1], step):
        hi = min(lo + step, O.shape[1])
        left = segment_prefix_sums(level.stats, level.swept_totals, O[:, lo:hi],
                                   level.starts, lo, carry)
        carry = left[:, :, -1].copy()
        yield lo, hi, left


def _additive_scores(level, fb, O, cand, cand_left, n_present):
    """Proxy scores of every cut of a block, the missing samples sent right and sent left.

    Parameters
    ----------
    level : _Level
    fb : ndarray of shape (b,), int
        The block's features.
    O : ndarray of shape (b, m), int
        The block's sample ids, one row per feature.
    cand : ndarray of shape (b, m), bool
        The candidate cuts with the missing samples (if any) sent right.
    cand_left : ndarray of shape (b, m), bool, or None
        Candidate cuts with the missing samples sent left (None: no missing values).
    n_present : ndarray of shape (b, n_segments)
        Non-missing samples of each feature and segment (they come first).

    Returns
    -------
    score, score_left : ndarray of shape (b, m)
        The proxy at every cut, -inf where it is no candidate (``score_left``:
        None without ``cand_left``).
    present : ndarray of shape (n_swept, b, n_segments) or None
        Statistics of each segment's non-missing samples (None without ``cand_left``).

    The block's statistics are swept at most SWEEP_CELLS (statistic, feature,
    position) cells at a time (:func:`_prefix_chunks`); with missing values,
    a first pass finds ``present``, which the missing-left scores of the cuts
    before it need (a block of one chunk is swept once, read twice).
    """
    b, m = O.shape
    step = max(1, _sweep_cells(level.n_swept) // (level.n_swept * b))
    chunks = _prefix_chunks(level, O, step)
    if cand_left is not None and step >= m:
        chunks = list(chunks)
    totals = level.swept_totals[:, None, :]                 # (s, 1, n_segments)
    present = score_left = None
    if cand_left is not None:
        present = _present_stats(chunks, level.starts, n_present)
        missing = totals - present
        score_left = np.empty((b, m))
        if step < m:
            chunks = _prefix_chunks(level, O, step)         # the second pass
    score = np.empty((b, m))
    for lo, hi, left in chunks:
        node = level.over_positions(totals, lo, hi)             # (s, 1, hi - lo)
        _score(level.criterion, left, node, cand[:, lo:hi], level.min_weight_leaf,
               out=score[:, lo:hi], cells=level.cells)
        if level.constrains(fb):
            # The children's values v_L, v_R (the right child: node - left).
            value_left = level.criterion.monotonic_value(left)
            value_right = level.criterion.monotonic_value(node - left)
            ok = level.respects_monotonicity(fb, value_left, value_right, lo, hi)
            score[:, lo:hi][~ok] = -np.inf
        if cand_left is not None:
            left += level.over_positions(missing, lo, hi)       # missing samples sent left
            _score(level.criterion, left, node, cand_left[:, lo:hi], level.min_weight_leaf,
                   out=score_left[:, lo:hi], cells=level.cells)
    return score, score_left, present


def _present_stats(chunks, starts, n_present):
    """The left statistics at each segment's last non-missing sample, (n_swept, b, n_segments).

    Zero where a segment has no non-missing sample.
    """
    last_present = np.maximum(starts + n_present - 1, 0)       # (b, n_segments)
    present = None
    for lo, hi, left in chunks:
        if present is None:
            present = np.zeros(left.shape[:2] + starts.shape)
        for i in range(left.shape[1]):
            at = np.flatnonzero((last_present[i] >= lo) & (last_present[i] < hi))
            present[:, i, at] = left[:, i, last_present[i, at] - lo]
    return np.where(n_present > 0, present, 0.0)


def _first_at_best(score, best, starts, sizes, offset=0):
    """First position reaching each segment's best score, shape (b, n_segments).

    ``score`` of shape (b, c) holds the scores of consecutive positions
    ``offset .. offset + c - 1``, the segments being ``starts`` (relative to
    ``offset``) and ``sizes``; ``best`` of shape (b, n_segments) is each
    segment's maximum.  Where ``best`` is -inf or NaN (no candidate) the
    result is ``offset + c``, which never wins.
    """
    end = offset + score.shape[1]
    target = np.where(best > -np.inf, best, np.nan).repeat(sizes, axis=1)   # NaN: never a hit
    at = np.where(score == target, np.arange(offset, end), end)   # position of each hit
    return np.minimum.reduceat(at, starts, axis=1)


def _score(criterion, left, totals, cand, min_weight_leaf, out=None, cells=None):
    """The criterion's proxy at every candidate cut, -inf elsewhere (shape of ``cand``).

    ``left`` of shape (n_swept, b, c) holds the left children's statistics
    and ``totals`` (n_swept, 1, c) their nodes'; the right child is
    ``totals - left``.  Only the candidates are scored (the cuts between
    distinct values, a few where values are tied or features constant), in
    pieces of about ``cells`` cuts (default BLOCK_CELLS; a quarter of it where
    few are candidates) and at most ``_proxy_cells(n_stats)`` (statistic, cut)
    cells, so that the proxy's temporaries stay small: every score is the float the proxy gives
    on the whole arrays (it works elementwise after the statistics axis, which
    it sums one row after another; a piece of one cut is scored twice, as
    NumPy would sum a single column pairwise).  Written into ``out`` if given.
    """
    cells = cells or BLOCK_CELLS
    score = np.empty(cand.shape) if out is None else out
    score.fill(-np.inf)
    b, c = cand.shape
    n_cand = np.count_nonzero(cand)
    if 4 * n_cand > cand.size:       # mostly candidates: score every cut, in blocks
        step = max(1, min(cells, _proxy_cells(left.shape[0]) // left.shape[0]) // b)
        with np.errstate(divide="ignore", invalid="ignore"):
            for lo in range(0, c, step):
                chunk = slice(lo, lo + step)
                piece_left = left[:, :, chunk]
                width = piece_left.shape[2]
                piece_left, right = _row_by_row(piece_left, totals[:, :, chunk])
                right = right - piece_left
                score[:, chunk] = criterion.proxy(piece_left, right)[:, :width]
                if min_weight_leaf > 0:
                    light = (criterion.weight(piece_left) < min_weight_leaf) \
                        | (criterion.weight(right) < min_weight_leaf)
                    score[:, chunk][light[:, :width]] = -np.inf
        np.copyto(score, -np.inf, where=~cand)
        return score
    # Few candidates: all at once; many: a block of positions at a time.
    cells = min(cells // 4, _proxy_cells(left.shape[0]) // left.shape[0])
    step = c if n_cand <= cells else max(1, cells // b)
    for lo in range(0, c, step):
        row, col = np.nonzero(cand[:, lo:lo + step])
        if row.size:
            col += lo
            score[row, col] = _proxy_at(criterion, left[:, row, col], totals[:, 0, col],
                                        min_weight_leaf)
    return score


def _row_by_row(left, node):
    """``left`` and ``node`` (n_swept, ...) as scored: one cut is scored twice.

    NumPy sums the statistics axis (axis 0) of an array one row after another,
    but pairwise where the other axes hold a single element, which can give
    another float (criteria._sum_over_classes).  A single cut is therefore
    repeated along the last axis, so that its score is the float every wider
    piece gives; the caller keeps the scores of its own width.
    """
    if left[0].size != 1:
        return left, node
    return np.repeat(left, 2, axis=-1), np.repeat(node, 2, axis=-1)


def _proxy_at(criterion, cut_left, cut_node, min_weight_leaf):
    """The proxy of cuts given by their statistics, columns of (n_swept, k): shape (k,).

    -inf where a child weighs less than ``min_weight_leaf``.
    """
    # C order: NumPy sums the statistics axis of a (n_swept, k) array one row
    # after another (the float of the whole arrays' proxy), but pairwise where
    # that axis is the contiguous one (a gathered or transposed array).
    cut_left, cut_node = np.ascontiguousarray(cut_left), np.ascontiguousarray(cut_node)
    k = cut_left.shape[1]
    cut_left, cut_node = _row_by_row(cut_left, cut_node)
    cut_right = cut_node - cut_left                       # right = node - left
    with np.errstate(divide="ignore", invalid="ignore"):
        proxy = criterion.proxy(cut_left, cut_right)
        if min_weight_leaf > 0:
            light = (criterion.weight(cut_left) < min_weight_leaf) \
                | (criterion.weight(cut_right) < min_weight_leaf)
            proxy[light] = -np.inf
    return proxy[:k]


def _class_counts_at_cuts(stats: ClassWeights, O, cand, starts, lo=0, carry=None):
    """Class weights of the left child of every candidate cut, without a one-hot prefix sum.

    For class weights whose partial sums are exact floats (whole-number
    weights: any order of summation gives the float of
    :func:`segment_prefix_sums`).  ``O`` (b, c) holds the samples at positions
    ``lo .. lo + c - 1``, ``cand`` (b, c) the cuts, ``starts`` the segments,
    ``carry`` (n_classes, b) the counts before ``lo`` of the segment going on
    at ``lo`` (None at ``lo == 0``).  Returns the counts at the cuts, of shape
    (n_classes, n_cuts) in the order of ``numpy.flatnonzero(cand)``, and the
    counts at the last position of each row (the next chunk's ``carry``).

    The positions form *runs* that end at a cut or before a segment starts;
    one ``bincount`` gives each run's class weights (O(b c), not
    O(n_classes b c)), and a cumulative sum over the runs of a segment the
    left child at each cut.
    """
    b, c = cand.shape
    n_classes = stats.shape[0]
    part_start = np.zeros(c, bool)                        # a segment starts at the column
    part_start[starts[(starts >= lo) & (starts < lo + c)] - lo] = True
    part_start[0] = True
    begins = np.zeros((b, c), bool)
    begins[:, 1:] = cand[:, :-1]                          # a run begins after a cut ...
    begins |= part_start                                  # ... or where a segment begins
    run = np.cumsum(begins.ravel()) - 1                   # run of each position, (b c,)
    del begins
    n_runs = int(run[-1]) + 1
    cut_runs, last_runs = run[np.flatnonzero(cand)], run[c - 1::c].copy()   # runs ending there
    row_first = run[::c].copy()                           # first run of each row
    first = np.zeros(n_runs, dtype=np.intp)               # first run of each run's segment
    part_runs = run.reshape(b, c)[:, part_start].ravel()
    first[part_runs] = part_runs
    np.maximum.accumulate(first, out=first)
    counts = stats.run_counts(O.ravel(), run, n_runs)      # (n_runs, n_classes)
    if carry is not None and lo not in starts:            # the segment before lo goes on
        counts[row_first] += carry.T
    # running[r + 1] = sum of runs 0 .. r; the left child at the end of run r is
    # the sum of its segment's runs up to r: running[r + 1] - running[first[r]].
    running = np.zeros((n_runs + 1, n_classes))
    np.cumsum(counts, axis=0, out=running[1:])
    del counts

    def left_at(runs):
        return (running[runs + 1] - running[first[runs]]).T

    return left_at(cut_runs), left_at(last_runs)


def goes_left(order, starts, sizes, found: SplitResult, n_samples) -> np.ndarray:
    """Mark the samples that each segment's chosen split sends left, shape (n_samples,)."""
    # In the order of its split feature, a segment is: the first ``cut`` samples
    # (left), the other non-missing ones (right), its missing ones (left if
    # missing_left): one boolean run per part, no index array per position.
    n_right = sizes - found.cut - found.n_missing
    runs = np.column_stack([found.cut, n_right, found.n_missing]).ravel()
    missing_left = found.missing_left
    run_left = np.column_stack([np.ones_like(missing_left), np.zeros_like(missing_left),
                                missing_left]).ravel()
    left = np.repeat(run_left, runs)                              # (m,) bool
    # The sample at each position in the order of its segment's split feature.
    position = np.arange(left.size)
    samples = order[np.repeat(found.feature, sizes), position]
    mask = np.zeros(n_samples, dtype=bool)
    mask[samples] = left
    return mask


def partition(order, starts, sizes, n_left, goes_left) -> None:
    """Stably split every segment of ``order`` into its left and right part, in place.

    Parameters
    ----------
    order : ndarray of shape (n_features, m), int
        Segmented, per-feature sorted sample indices (modified in place).
    starts, sizes : ndarray of shape (n_segments,), int
        The segments.
    n_left : ndarray of shape (n_segments,), int
        Samples of each segment that go left.
    goes_left : ndarray of shape (n_samples,), bool
        For every sample of the segments, whether it goes left.

    After the call, segment ``j`` holds its left samples at
    ``starts[j]:starts[j] + n_left[j]`` and its right samples after them,
    each part still sorted by every feature.
    """
    # The slots of the left parts are the same for every feature; the samples
    # that go left fill them in their current (sorted) order, those that go
    # right fill the other slots: a stable partition, one feature at a time.
    runs = np.column_stack([n_left, sizes - n_left]).ravel()
    left_slot = np.repeat(np.tile([True, False], sizes.size), runs)    # (m,) bool
    right_slot = ~left_slot
    n_features, m = order.shape
    step = max(1, PARTITION_CELLS // max(m, 1))    # features per block: bounded temporaries
    for lo in range(0, n_features, step):
        block = order[lo:lo + step]          # a view: written in place
        g = goes_left[block].ravel()
        # Every row has the same samples, so the same number going left: the
        # flat block's entries that go left (right) are row after row, each row
        # in its order.  (numpy.compress: twice as fast as a boolean index.)
        moved_left = np.compress(g, block).reshape(block.shape[0], -1)
        moved_right = np.compress(~g, block).reshape(block.shape[0], -1)
        block[:, left_slot] = moved_left
        block[:, right_slot] = moved_right


def _keep_columns(order, keep):
    """``order[:, keep]`` without a second (n_features, m) array: a view of ``order``.

    Each row is compacted in place (the kept entries move to its front, in
    their order), so the presorted index is never held twice.
    """
    n_kept = int(np.count_nonzero(keep))
    step = max(1, PARTITION_CELLS // max(order.shape[1], 1))   # features per block
    for lo in range(0, order.shape[0], step):
        block = order[lo:lo + step]
        block[:, :n_kept] = block[:, keep]      # the right side is a new array
    return order[:, :n_kept]


def _has_missing(X):
    """Features with a NaN somewhere in ``X`` of shape (n_samples, n_features), shape (n_features,)."""
    return np.array([np.isnan(X[:, f]).any() for f in range(X.shape[1])])  # no (n, d) temporary


def _segment_ranges(X, order, starts):
    """Each segment's lowest and highest non-missing value of every feature, shape (n_seg, d).

    Also whether the feature is constant in the segment (no two values apart,
    or all missing).  One feature at a time: temporaries of one feature's column.
    """
    n_segments, n_features = starts.size, X.shape[1]
    lowest = np.empty((n_segments, n_features), dtype=np.float32)
    highest = np.empty((n_segments, n_features), dtype=np.float32)
    n_present = np.empty((n_segments, n_features), dtype=np.intp)
    for f in range(n_features):
        values = feature_values(X, order[f], f)                 # (m,) sorted, NaN last
        n_present[:, f] = np.add.reduceat(~np.isnan(values), starts)
        lowest[:, f] = values[starts]
        highest[:, f] = values[starts + np.maximum(n_present[:, f] - 1, 0)]  # last non-missing
    constant = (n_present == 0) | ~(highest > lowest + FEATURE_THRESHOLD)
    return lowest, highest, constant



# The criteria of dtree.kernels, by class (one output; the kernels' proxies).
_KERNEL_CRITERIA = {Gini: kernels.GINI, Entropy: kernels.ENTROPY,
                    SquaredError: kernels.SQUARED_ERROR, FriedmanMSE: kernels.FRIEDMAN_MSE,
                    Poisson: kernels.POISSON}
# Those whose proxy the kernels also compute for several outputs (regressions).
_KERNEL_OUTPUTS = (SquaredError, FriedmanMSE, Poisson)


def kernel_criterion(criterion, criteria=None, outputs=_KERNEL_OUTPUTS):
    """The kernels' code of ``criterion`` and its number of outputs, or ``(None, 0)``.

    One output: ``criteria`` (default ``_KERNEL_CRITERIA``) by class.
    Several (``dtree.criteria.multi_output``): the code of its base where
    the base is one of ``outputs`` (default: the regressions whose
    statistics hold :math:`w y_k` in rows 1 to :math:`m`).
    """
    criteria = _KERNEL_CRITERIA if criteria is None else criteria
    n_outputs = getattr(criterion, "n_outputs", 1)
    if n_outputs == 1:
        code = criteria.get(criterion)
    else:
        base = getattr(criterion, "base", None)
        code = criteria.get(base) if base in outputs else None
    return (None, 0) if code is None else (code, n_outputs)


# Placeholders for the kernels' arguments that a case does not use (one type each).
_NO_FLOATS, _NO_CODES, _NO_STATS = np.ones(1), np.zeros(0, np.uint8), np.zeros((0, 0))
_NO_MASK, _NO_RANKS = np.ones((1, 1), bool), np.zeros((1, 1), np.intp)
_NO_MORE_CODES = np.zeros((0, 1), np.intp)          # search_classes: one output
# Criterion.node_stats itself (sums of the statistics), not a criterion's own.
_SUMMED_NODE_STATS = Criterion.node_stats.__func__


def _output_codes(stats):
    """The first output's codes, the rows of the other outputs' classes and each
    output's first row, of :class:`OutputsClassWeights` (kernels' ``codes``,
    ``more_codes``, ``edges``)."""
    more = np.empty((len(stats.outputs) - 1, stats.shape[1]), dtype=np.intp)
    for k, output in enumerate(stats.outputs[1:], start=1):
        # the row of the class in its block, added in intp (NumPy 1 would add
        # an int to uint8 codes in uint8, wrapping at 256)
        more[k - 1] = output.codes
        more[k - 1] += stats.edges[k]
    return stats.outputs[0].codes, more, np.asarray(stats.edges, dtype=np.intp)


def _squares_exact(totals):
    r"""Whether every sum of squared class weights of the segments is an exact float.

    Whole-number class weights (exact sums) whose segment totals :math:`W`
    have :math:`W^2 < 2^{53}`: each :math:`\sum_k c_k^2 \le W^2` and every
    partial sum of it is then an exact integer.  (With several outputs
    :math:`W` is the sum over all their rows, :math:`m` times a node's
    weight: a stricter test than needed.)
    """
    largest = float(totals.sum(axis=0).max(initial=0.0))
    return largest * largest < 2.0**53


def compiled_splits(splitter, starts, sizes, totals, options, constant, bounds=None):
    """:func:`best_splits` in one compiled call (:mod:`dtree.kernels`), or None.

    For the common case: dense ``X`` without missing values, one of the
    criteria of ``_KERNEL_CRITERIA`` (of one output, or a regression's of
    several: :func:`kernel_criterion`; Gini and entropy of several outputs
    where their sums, and Gini's sums of squares, are exact), no monotonicity
    constraint
    (``bounds`` None), no random thresholds, Numba installed and enabled
    (:func:`dtree.kernels.available`).  Otherwise, or where a proxy is NaN,
    None: the caller runs :func:`best_splits`.  ``constant`` (n_segments,
    n_features) is read, and set where a feature is found constant (as
    :func:`best_splits` does, except for the features a segment may not use
    and the segments too small to split, which the kernels do not sweep).
    """
    criterion, stats = splitter.criterion, splitter.stats
    code, n_outputs = kernel_criterion(criterion)
    outputs = (type(stats) is OutputsClassWeights
               and getattr(criterion, "base", None) in (Gini, Entropy))
    if outputs:                     # several outputs: exact sums (Gini: squares) only
        code = _KERNEL_CRITERIA[criterion.base]
    classes = type(stats) is ClassWeights or outputs
    deviations = AbsoluteError in (criterion, getattr(criterion, "base", None))
    if deviations:
        n_outputs = getattr(criterion, "n_outputs", 1)
    if ((code is None and not deviations) or not kernels.available() or bounds is not None
            or options.thresholds is not None or splitter.has_missing.any()
            or classes != (code in (kernels.GINI, kernels.ENTROPY))
            or not starts.size or not np.all(sizes > 0)
            or (deviations and not getattr(splitter, "deviations_exact", False))):
        return None
    n_segments, n_features = constant.shape
    found = SplitResult.empty(n_segments)
    position = np.zeros(n_segments, dtype=np.intp)
    rank = np.full(n_segments, np.iinfo(np.intp).max)
    by_feature = splitter.columns is not None
    values = splitter.columns if by_feature else splitter.X
    use_mask, use_rank = options.feature_mask is not None, options.feature_rank is not None
    mask = options.feature_mask if use_mask else _NO_MASK
    ranks = options.feature_rank.astype(np.intp, copy=False) if use_rank else _NO_RANKS
    rules = (splitter.min_samples_leaf, float(splitter.min_weight_leaf))
    totals = np.ascontiguousarray(totals, dtype=np.float64)
    # The kernels fill found's arrays: proxy, feature, threshold, cut, n_left
    # and missing_go_to_left (n_missing 0, missing_left False).
    out = (found.proxy, found.feature, position, rank, found.threshold, found.cut,
           found.n_left, found.missing_go_to_left)
    if classes:
        exact = bool(stats.exact_sums)
        squares_exact = exact and _squares_exact(totals)
        has_weight = stats.weight is not None
        weight = stats.weight if has_weight else _NO_FLOATS
        if outputs:
            if not (squares_exact if code == kernels.GINI else exact):
                return None
            codes, more_codes, edges = _output_codes(stats)
        else:
            codes, more_codes = stats.codes, _NO_MORE_CODES
            edges = np.array([0, totals.shape[0]], dtype=np.intp)
        ok = kernels.search_classes(
            values, by_feature, splitter.order, starts, sizes, codes, more_codes, edges,
            weight, has_weight, totals, code, *rules, exact, squares_exact, use_mask, mask,
            use_rank, ranks, constant, *out)
    elif deviations:
        ok = kernels.search_deviations(
            values, by_feature, splitter.order, starts, sizes, stats, totals, n_outputs,
            *rules, use_mask, mask, use_rank, ranks, constant, *out)
    else:
        ok = kernels.search_regression(
            values, by_feature, splitter.order, starts, sizes, stats, totals, code, n_outputs,
            *rules, use_mask, mask, use_rank, ranks, constant, *out)
    return found if ok else None


def _deviations_exact(stats) -> bool:
    r"""Whether every sum of the absolute error's search is an exact float.

    Its per-sample statistics (``stats``, rows :math:`w` and the
    targets :math:`y_k`) must have whole positive weights and targets that
    are multiples of :math:`2^{-b}` (:math:`b \le 30`, e.g. integers, or
    counts rounded to halves), with :math:`2^b m (3 \max_k \sum_i w_i
    |y_{ik}| + \max |y| \sum_i w_i) < 2^{52}` for :math:`m` outputs: every
    sum, difference and product that gives a deviation :math:`D` (the NumPy
    sweep's prefix sums over a level, :math:`S - 2 S_\le + \tilde y (2 W_\le
    - W)`; the kernel's running sums) is then a multiple of :math:`2^{-b}`
    below :math:`2^{52 - b}`, exact in float64, whatever the order of the
    additions.  A median at the midpoint of two targets is a multiple of
    :math:`2^{-b-1}`, and the deviations from it are too: their sum is at
    most :math:`\sum_i w_i |y_i|` (the median minimises it; 0 would give that
    sum), below :math:`2^{51 - b}`, so exact as well.  (If every target is 0
    the bound holds whatever the weights; every node is then pure and never
    searched, and its :math:`W`, which may then be a rounded sum, is added in
    the NumPy order by both: ``dtree.kernels.segment_medians``.)  :meth:`BestSplitter.start`
    computes it once (``deviations_exact``), for the windows of best-first
    growth too.
    """
    weight, y = stats[0], stats[1:]
    exact = bool(isinstance(stats, np.ndarray) and stats.dtype == np.float64
                 and np.all(weight > 0) and np.all(weight == np.floor(weight))
                 and np.all(np.isfinite(y)))
    if exact:
        for bits in range(31):
            scaled = y * 2.0**bits                   # exact: a power of 2
            if np.all(scaled == np.floor(scaled)):
                break
        else:
            exact = False
    if exact:
        bound = 3.0 * float((weight * np.abs(y)).sum(axis=1).max(initial=0.0))
        bound += float(np.abs(y).max(initial=0.0)) * float(weight.sum())
        exact = 2.0**bits * y.shape[0] * bound < 2.0**52
    return exact


class BestSplitter:
    """The split search of CART (scikit-learn's ``splitter="best"``): every midpoint.

    A splitter owns what the search keeps between the calls of the growth (here
    the presorted index ``order``, of shape (n_features, m)), and the growth
    (:mod:`dtree.growth`) reaches it only through the methods below, which is
    the interface a new splitter (e.g. one on histograms) implements.  Nodes
    are *segments* of positions: node ``j`` of a call is
    ``starts[j] : starts[j] + sizes[j]``, the segments laid out one after
    another from position 0; a split node's left child comes first in its
    segment, then its right child.

    Parameters
    ----------
    criterion : subclass of :class:`dtree.criteria.Criterion`
    stats : ndarray of shape (n_stats, n_samples) or ClassWeights
        The criterion's per-sample statistics.
    min_samples_leaf : int, default=1
    min_weight_leaf : float, default=0.0
        Splits leaving fewer samples or less weight in a child are no candidates.
    max_features : int or None, default=None
        Features drawn per node (None: all).
    rng : numpy.random.Generator or None, default=None
        Feature draws and tie ranks (see :meth:`options`); None: every feature,
        ties to the lowest index.
    monotonic_cst : ndarray of shape (n_features,), int, default=None
        Monotonicity constraints (1: increasing, -1: decreasing, 0: none) on
        the criterion's :meth:`~dtree.criteria.Criterion.monotonic_value`;
        ``search`` then takes each segment's bounds (see :func:`best_splits`).

    Methods
    -------
    start(X, sort=presort)
        Take the training features ``X`` of shape (n_samples, n_features):
        one segment of all samples (the root), sorted by each feature.
    totals(starts)
        Statistics of the segments, shape (n_stats, n_segments).
    search(starts, sizes, totals, bounds=None)
        The best split of each segment, a :class:`SplitResult`; ``bounds``
        (2, n_segments), each segment's lower and upper bound on its
        children's values, is given (only) with ``monotonic_cst``.
    split(starts, sizes, found)
        Partition each segment by its split: left child first, then right.
    keep(mask)
        Keep the positions where ``mask`` (m,) is true, in their order (drop
        the segments of nodes that stay leaves).
    window(start, size)
        A splitter over positions ``start : start + size`` only, sharing the
        state (the best-first growth's node, or a split node's two children).

    Examples
    --------
    >>> from dtree.criteria import Gini
    >>> X = np.array([[3.0, 0.0], [1.0, 0.0], [4.0, 1.0], [2.0, 1.0]])
    >>> stats = Gini.sample_stats(np.array([1, 0, 1, 0]), np.ones(4), 2)
    >>> splitter = BestSplitter(Gini, stats).start(X)
    >>> starts, sizes = np.array([0]), np.array([4])
    >>> found = splitter.search(starts, sizes, splitter.totals(starts))
    >>> found.feature, found.threshold, found.n_left
    (array([0]), array([2.5]), array([2]))
    >>> splitter.split(starts, sizes, found)     # the root's samples: left child first
    >>> splitter.order[0].tolist()
    [1, 3, 0, 2]
    """

    random_thresholds = False     # whether _draw draws thresholds (RandomSplitter)

    def __init__(self, criterion, stats, *, min_samples_leaf=1, min_weight_leaf=0.0,
                 max_features=None, rng=None, monotonic_cst=None):
        self.criterion, self.stats = criterion, stats
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        self.max_features, self.rng = max_features, rng
        self.monotonic_cst = monotonic_cst

    def start(self, X, sort=presort):
        """Presort ``X`` (``sort(X)`` of shape (n_features, n_samples)); return self."""
        self.X = X
        self.columns = feature_columns(X)
        self.order = sort(X)
        self.has_missing = _has_missing(X)
        self._constant = None     # (starts, sizes, constant) of the last segments seen
        # The absolute error: whether the compiled search may take it (exact sums).
        self.deviations_exact = (AbsoluteError in (self.criterion,
                                                   getattr(self.criterion, "base", None))
                                 and _deviations_exact(self.stats))
        return self

    def totals(self, starts):
        """``criterion.node_stats`` of the segments starting at ``starts``, (n_stats, n_segments).

        Compiled (:func:`dtree.kernels.segment_totals`, the same floats) for
        the criteria that sum their statistics: exact class weights, or a
        float64 array of statistics; and for the absolute error where its
        sums are exact (:func:`dtree.kernels.segment_medians`).
        """
        stats, criterion = self.stats, self.criterion
        if self.deviations_exact and kernels.available():
            n_outputs = stats.shape[0] - 1          # rows: w, then the targets
            out = np.empty((1 + 2 * n_outputs, starts.size))
            kernels.segment_medians(self.order[0], starts, stats, n_outputs, out)
            return out
        compiled = (kernels.available()
                    and getattr(criterion.node_stats, "__func__", None) is _SUMMED_NODE_STATS)
        if compiled and type(stats) is ClassWeights and stats.exact_sums:
            out = np.empty((stats.shape[0], starts.size))
            has_weight = stats.weight is not None
            kernels.segment_totals(self.order[0], starts, stats.codes,
                                   stats.weight if has_weight else _NO_FLOATS, has_weight,
                                   _NO_STATS, out)
            return out
        if compiled and isinstance(stats, np.ndarray) and stats.dtype == np.float64:
            out = np.empty((stats.shape[0], starts.size))
            kernels.segment_totals(self.order[0], starts, _NO_CODES, _NO_FLOATS, False, stats, out)
            return out
        return criterion.node_stats(stats, self.order[0], starts)

    def search(self, starts, sizes, totals, bounds=None):
        """Each segment's best split (``feature == -1``: none), with :func:`best_splits`.

        Where :func:`compiled_splits` applies (the common case, with Numba),
        it finds the same splits in one compiled call.
        """
        constant = self._known_constant(starts, sizes)
        options = self.options(starts, sizes)
        found = compiled_splits(self, starts, sizes, totals, options, constant, bounds)
        if found is None:
            found = best_splits(self.X, self.order, starts, sizes, self.stats, totals,
                                self.criterion, min_samples_leaf=self.min_samples_leaf,
                                min_weight_leaf=self.min_weight_leaf,
                                has_missing=self.has_missing, options=options,
                                constant=constant, monotonic_cst=self.monotonic_cst,
                                bounds=bounds, columns=self.columns)
        self._constant = (starts, sizes, constant)
        return found

    def _known_constant(self, starts, sizes):
        """The features known constant in each segment, (n_segments, n_features) bool.

        A feature constant in a node is constant in its descendants: the rows
        of the segments last searched follow them through :meth:`split` and
        :meth:`keep`; other segments know none.
        """
        if self._constant is not None:
            known_starts, known_sizes, constant = self._constant
            if np.array_equal(known_starts, starts) and np.array_equal(known_sizes, sizes):
                return constant
        return np.zeros((starts.size, self.X.shape[1]), bool)

    def split(self, starts, sizes, found: SplitResult):
        """Partition every segment by ``found`` (every segment splits), in place."""
        if kernels.available():      # goes_left and partition, compiled: the same order
            kernels.partition_level(self.order, starts, sizes, found.feature, found.cut,
                                    found.n_missing, found.missing_left,
                                    np.zeros(self.X.shape[0], bool),
                                    np.empty(self.order.shape[1], self.order.dtype))
        else:
            left = goes_left(self.order, starts, sizes, found, self.X.shape[0])
            partition(self.order, starts, sizes, found.n_left, left)
        constant = self._known_constant(starts, sizes)
        child_sizes = np.column_stack([found.n_left, sizes - found.n_left]).ravel()
        child_starts = np.concatenate(([0], np.cumsum(child_sizes)[:-1]))
        self._constant = (child_starts, child_sizes, np.repeat(constant, 2, axis=0))

    def keep(self, mask):
        """Keep the positions where ``mask`` of shape (m,) is true."""
        if kernels.available() and self.order.shape[0]:
            self.order = self.order[:, :kernels.keep_positions(self.order, mask)]
        else:
            self.order = _keep_columns(self.order, mask)
        if self._constant is not None:      # whole segments are kept or dropped
            starts, sizes, constant = self._constant
            kept = mask[starts] if mask.size else np.zeros(starts.size, bool)
            sizes = sizes[kept]
            self._constant = (np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes,
                              constant[kept])

    def window(self, start, size):
        """This splitter restricted to positions ``start : start + size`` (shared state)."""
        view = copy.copy(self)
        view.order = self.order[:, start:start + size]
        view._constant = None
        return view

    def options(self, starts, sizes) -> SearchOptions:
        """Per-segment feature draws (``max_features``) and tie ranks.

        With no random generator the search is exhaustive and ties go to the
        lowest feature index.  Otherwise every segment gets a random priority
        per feature: the ``max_features`` non-constant features of lowest
        priority are searched, and ties between equally good splits go to the
        lower priority.
        """
        if self.rng is None:
            return SearchOptions()
        n_features = self.X.shape[1]
        priority = self.rng.random((starts.size, n_features))
        options = SearchOptions(feature_rank=np.argsort(np.argsort(priority, axis=1), axis=1))
        if (self.max_features or n_features) < n_features or self.random_thresholds:
            # Only then are the feature values needed.
            self._draw(options, priority, *_segment_ranges(self.X, self.order, starts))
        return options

    def _draw(self, options, priority, lowest, highest, constant):
        """Draw ``max_features`` of the non-constant features of each segment."""
        k = self.max_features or priority.shape[1]
        if k < priority.shape[1]:
            drawn = np.argsort(np.where(constant, np.inf, priority), axis=1)[:, :k]
            mask = np.zeros_like(constant)
            np.put_along_axis(mask, drawn, True, axis=1)
            options.feature_mask = mask & ~constant


class RandomSplitter(BestSplitter):
    """scikit-learn's ``splitter="random"``: one random threshold per feature and node.

    The threshold is drawn uniformly between the segment's lowest and highest
    non-missing value (the highest itself is replaced by the lowest, so that
    both children are non-empty) and, where ``X`` has missing values, a fair
    coin sends them left or right.  Otherwise as :class:`BestSplitter`.
    """

    random_thresholds = True

    def _draw(self, options, priority, lowest, highest, constant):
        super()._draw(options, priority, lowest, highest, constant)
        low, high = lowest.astype(np.float64), highest.astype(np.float64)
        threshold = low + self.rng.random(low.shape) * (high - low)
        options.thresholds = np.where(threshold >= high, low, threshold)
        if self.has_missing.any():
            options.missing_left = self.rng.random(low.shape) < 0.5


class ReferenceSplitter(BestSplitter):
    """:class:`BestSplitter` with the search of :func:`reference_node_split`, node by node.

    The same draws (:meth:`~BestSplitter.options`) and the same splits, in
    :math:`O(n_t^2)` per node and feature: for tests and for reading, not for
    fitting.  Combine it with :class:`RandomSplitter` (a subclass of both)
    for the random thresholds.
    """

    def search(self, starts, sizes, totals, bounds=None):
        options = self.options(starts, sizes)
        constraints = {}
        found = SplitResult.empty(starts.size)
        for j, (start, size) in enumerate(zip(starts, sizes)):
            samples = np.sort(self.order[0, start:start + size]).astype(np.intp)
            stats = (self.stats.take(samples) if isinstance(self.stats, ClassWeights)
                     else self.stats[:, samples])
            if bounds is not None:
                constraints = {"monotonic_cst": self.monotonic_cst, "bounds": tuple(bounds[:, j])}
            best = reference_node_split(self.X[samples], stats, self.criterion,
                                        min_samples_leaf=self.min_samples_leaf,
                                        min_weight_leaf=self.min_weight_leaf,
                                        **options.of_segment(j), **constraints)
            if best is not None:
                found.update([j], feature=best[0], **best[1]._asdict())
        return found
