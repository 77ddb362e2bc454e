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
feature (:func:`best_splits`), in :math:`O(n)` time per feature and level
instead of :math:`O(n^2)`.  Over a tree of depth :math:`h` the search costs
:math:`O(n\,d\,h)` after the :math:`O(n\,d \log n)` presort (the sorted sweep of
the GrowTree lecture notes).  The
sweep is vectorised over all nodes of a level *and* over a block of features
(arrays of shape (features, positions)), so its Python overhead per level does
not grow with the number of nodes or features.  A long level is swept in
chunks of positions, the running sum carried from one chunk into the next
(:func:`_sweep_in_chunks`): the result is the same float for float, and the
sweep's temporaries stay at a few MiB however large ``n`` is, and however many
classes there are (a chunk holds at most ``SWEEP_CELLS`` class weights).  ``X`` itself is
never copied: its values are read as float32 where they are needed
(:func:`feature_values`).

Candidate thresholds lie between two consecutive distinct values (distinct
as float32, the type scikit-learn stores ``X`` in) at their midpoint; when the
midpoint rounds onto the upper value, the lower value is used.  Every
comparison uses float64.  scikit-learn's source declares a tolerance
``FEATURE_THRESHOLD = 1e-7``, but its compiled trees (1.7) split any two
distinct float32 values, 1e-30 apart near 0 or one float32 step apart near 1
(``tests/test_cart.py`` measures it), and so does dtree: a feature whose values
all lie within 1e-7 is still split.

Missing values (scikit-learn >= 1.3).  Where a segment has samples whose
value of feature :math:`f` is missing, every threshold of :math:`f` is scored
twice -- the missing samples sent right, then sent left -- and one more split
is scored: all non-missing samples left, all missing ones right (threshold
:math:`+\infty`).  A feature whose non-missing values are constant in the
node (or all missing) is not a candidate.

Ties between candidates are broken deterministically: among splits of equal
score, the lowest feature index wins (or the lowest random rank, see
``feature_rank``), then, within a feature, missing-right before missing-left
before the :math:`+\infty` split, then the lowest threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtree.criteria import ClassWeights

__all__ = ["SplitResult", "best_splits", "partition", "presort", "FEATURE_THRESHOLD"]

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

# At most this many (statistic, feature, position) cells in one array of
# children's statistics (4 MiB of float64): with many classes (one statistic
# per class) the chunks and feature blocks get shorter, so that the sweep's
# memory does not grow with the number of classes.
SWEEP_CELLS = 1 << 19

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


def _gather_values(X, features, O):
    """``float32(X[O[i, j], features[i]])`` as an array of shape O.shape."""
    out = np.empty(O.shape, dtype=np.float32)
    for i, f in enumerate(features):
        out[i] = X[O[i], f]            # float64 -> float32 rounding, as feature_values
    return out


def _gather(rows, which, O, stacked=False):
    """``rows[which[i], O[j]]`` as an array of shape (len(which), *O.shape).

    ``numpy.take`` on one contiguous row at a time is several times faster
    than fancy indexing with a 2-D index.  With ``stacked=False``, ``O`` has
    one index row per entry of ``which``.  Class weights
    (:class:`dtree.criteria.ClassWeights`) are built as one-hot rows for the
    samples of ``O`` only.
    """
    if isinstance(rows, ClassWeights):
        out = rows.take(O)                   # (n_classes, *O.shape)
        return out if len(which) == out.shape[0] else out[which]
    if stacked:
        out = np.empty((len(which),) + O.shape, dtype=rows.dtype)
        for i, r in enumerate(which):
            for j in range(O.shape[0]):
                np.take(rows[r], O[j], out=out[i, j])
        return out
    out = np.empty(O.shape, dtype=rows.dtype)
    for i, r in enumerate(which):
        np.take(rows[r], O[i], out=out[i])
    return out


def _chunk_cells(m, n_swept=1):
    """Cells (features x positions) per chunk of _sweep_in_chunks for a level of
    ``m`` positions and ``n_swept`` statistics: at least BLOCK_CELLS and half the
    level (fewer chunks, less Python overhead on large levels), at most 8 *
    BLOCK_CELLS (temporaries of about 10 MiB), and at most SWEEP_CELLS //
    n_swept (many classes), but at least one."""
    return max(1, min(max(BLOCK_CELLS, m // 2), 8 * BLOCK_CELLS, SWEEP_CELLS // n_swept))


def _feature_blocks(n_features, m, cells=BLOCK_CELLS, max_size=None):
    """Consecutive blocks of features of about ``cells // m`` (at most ``max_size``) each."""
    size = max(1, min(n_features, cells // max(m, 1), max_size or n_features))
    return [np.arange(lo, min(lo + size, n_features)) for lo in range(0, n_features, size)]


def best_splits(X, order, starts, sizes, stats, totals, criterion, *,
                min_samples_leaf=1, min_weight_leaf=0.0, feature_mask=None,
                feature_rank=None, thresholds=None, missing_left=None,
                has_missing=None) -> SplitResult:
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
        Statistics of each segment (as :func:`dtree.growth.node_totals` gives).
    criterion : class from :mod:`dtree.criteria`
        Supplies ``proxy(left, right)`` and ``weight(stats)``; a criterion that
        is not ``additive`` (the absolute error) scores a block's cuts itself
        with ``children_score``.
    min_samples_leaf : int, default=1
        Splits leaving fewer samples in a child are not candidates.
    min_weight_leaf : float, default=0.0
        Splits leaving less weight in a child are not candidates.
    feature_mask : ndarray of shape (n_segments, n_features), bool, default=None
        Features each segment may use (``max_features``); ``None`` allows all.
    feature_rank : ndarray of shape (n_segments, n_features), int, default=None
        Order in which features win ties (lower rank first); ``None`` ranks
        features by index.
    thresholds : ndarray of shape (n_segments, n_features), float64, default=None
        If given (the random splitter), each segment and feature has this one
        candidate threshold instead of all midpoints.
    missing_left : ndarray of shape (n_segments, n_features), bool, default=None
        With ``thresholds``: where the random splitter sends missing values
        (the non-missing-vs-missing split is then not a candidate).
    has_missing : ndarray of shape (n_features,), bool, default=None
        Features with a missing value somewhere in ``X``; ``None``: none.

    Returns
    -------
    SplitResult
        The best split per segment, ``feature == -1`` if there is none.
    """
    n_features, m = order.shape
    n_segments = starts.size
    # The cut after position p of a segment leaves p - start + 1 samples left:
    # cuts leaving both children min_samples_leaf samples form one run per segment.
    too_few = np.minimum(min_samples_leaf - 1, sizes)
    allowed = np.maximum(sizes - 2 * min_samples_leaf + 1, 0)
    runs = np.column_stack([too_few, allowed, sizes - too_few - allowed]).ravel()
    shape_ok = np.repeat(np.tile([False, True, False], n_segments), runs)   # (m,) bool
    has_missing = np.zeros(n_features, bool) if has_missing is None else has_missing

    best = SplitResult(
        feature=np.full(n_segments, -1, dtype=np.intp), threshold=np.zeros(n_segments),
        cut=np.zeros(n_segments, dtype=np.intp), n_missing=np.zeros(n_segments, dtype=np.intp),
        missing_left=np.zeros(n_segments, bool), missing_go_to_left=np.zeros(n_segments, bool),
        n_left=np.zeros(n_segments, dtype=np.intp), proxy=np.full(n_segments, -np.inf))
    best_rank = np.full(n_segments, np.iinfo(np.intp).max)

    additive = getattr(criterion, "additive", True)
    # Many classes: fewer features per block (a position of a block holds one
    # statistic per class and feature: at most SWEEP_CELLS of them).
    n_swept = getattr(criterion, "n_swept", None) or stats.shape[0]
    max_block = max(1, SWEEP_CELLS // n_swept) if additive else n_features
    for fb in _feature_blocks(n_features, m, getattr(criterion, "block_cells", BLOCK_CELLS),
                              max_block):
        b = fb.size
        if additive and thresholds is None and not has_missing[fb].any():
            # The common case, swept a chunk of positions at a time (same result,
            # memory bounded by _chunk_cells instead of one feature's column).
            value, first = _sweep_in_chunks(X, order, fb, starts, sizes, stats, totals,
                                            criterion, shape_ok, feature_mask, min_weight_leaf)
            kind = np.zeros((b, n_segments), dtype=np.intp)
            n_missing = np.zeros((b, n_segments), dtype=np.intp)
            n_present = np.broadcast_to(sizes, (b, n_segments))
        else:
            value, kind, first, n_missing, n_present = _sweep_block(
                X, order, fb, starts, sizes, stats, totals, criterion, shape_ok, feature_mask,
                min_samples_leaf, min_weight_leaf, thresholds, missing_left, has_missing)

        # Best feature of the block per segment: largest score, then lowest rank.
        rank = (np.broadcast_to(fb[:, None], (b, n_segments)) if feature_rank is None
                else feature_rank[:, fb].T)
        top = value.max(axis=0)
        row = np.argmin(np.where(value == top, rank, np.iinfo(np.intp).max), axis=0)
        col = np.arange(n_segments)
        row_rank = rank[row, col]
        improves = ((top > best.proxy) | ((top == best.proxy) & (row_rank < best_rank))) \
            & (top > -np.inf)
        if not improves.any():
            continue
        segs = np.flatnonzero(improves)
        r, k = row[segs], kind[row, col][segs]
        p = first[r, segs]          # lowest threshold among the winner's equal scores
        n_miss = n_missing[r, segs]
        is_inf = k == NON_MISSING_LEFT
        p = np.where(is_inf, starts[segs] + n_present[r, segs] - 1, p)
        cut = p - starts[segs] + 1
        f = fb[r]
        if thresholds is None:
            lower = feature_values(X, order[f, p], f).astype(np.float64)
            upper = feature_values(X, order[f, np.minimum(p + 1, m - 1)], f).astype(np.float64)
            threshold = lower / 2.0 + upper / 2.0       # sum of halves: no overflow
            threshold = np.where((threshold == upper) | np.isinf(threshold), lower, threshold)
        else:
            threshold = thresholds[segs, f]
        threshold = np.where(is_inf, np.inf, threshold)
        went_left = k == MISSING_LEFT
        n_left = cut + np.where(went_left, n_miss, 0)
        best_rank[segs] = row_rank[segs]
        best.feature[segs] = f
        best.threshold[segs] = threshold
        best.cut[segs] = cut
        best.n_missing[segs] = n_miss
        best.missing_left[segs] = went_left
        # No missing value of this feature in training: NaN goes to the larger child.
        best.missing_go_to_left[segs] = np.where(n_miss > 0, went_left,
                                                 n_left > sizes[segs] - n_left)
        best.n_left[segs] = n_left
        best.proxy[segs] = top[segs]
    return best


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


def _sweep_in_chunks(X, order, fb, starts, sizes, stats, totals, criterion, shape_ok,
                     feature_mask, min_weight_leaf):
    """Best score per feature of ``fb`` and segment, and its first position, chunk by chunk.

    The same sweep as :func:`_children` and :func:`_score` (additive criterion,
    no missing value in the block, every midpoint a candidate), over at most
    ``_chunk_cells(m)`` cells at a time: the running prefix sum is carried from one
    chunk into the next, added to the chunk's first term *before* its cumulative
    sum, so that every prefix sum is the same float as in one sweep of the level.
    A segment may span several chunks; its best score so far and the first
    position reaching it are kept, and a later chunk replaces them only with a
    strictly larger score (ties: lowest position).  Returns ``value`` and
    ``first``, both of shape (b, n_segments).
    """
    b, m = fb.size, order.shape[1]
    n_segments = starts.size
    n_swept = getattr(criterion, "n_swept", None) or stats.shape[0]
    ends = starts + sizes
    value = np.full((b, n_segments), -np.inf)
    first = np.zeros((b, n_segments), dtype=np.intp)
    carry = np.zeros((n_swept, b))
    step = max(1, _chunk_cells(m, n_swept) // b)
    for lo in range(0, m, step):
        hi = min(lo + step, m)
        # The segments s0 .. s1 - 1 meet [lo, hi); their parts in the chunk.
        s0 = int(np.searchsorted(starts, lo, side="right")) - 1
        s1 = int(np.searchsorted(starts, hi, side="left"))
        part_starts = np.maximum(starts[s0:s1], lo) - lo
        part_sizes = np.minimum(ends[s0:s1], hi) - lo - part_starts
        O = order[fb, lo:min(hi + 1, m)].astype(np.intp)   # one more: the next value
        values = _gather_values(X, fb, O)
        cand = np.zeros((b, hi - lo), bool)
        np.greater(values[:, 1:], values[:, :-1] + FEATURE_THRESHOLD,
                   out=cand[:, :values.shape[1] - 1])
        del values
        if feature_mask is not None:
            cand &= np.repeat(feature_mask[s0:s1, fb].T, part_sizes, axis=1)
        cand &= shape_ok[lo:hi]
        # Prefix sums, restarting at every segment that starts in the chunk
        # (as in _children), continuing the previous chunk's running sum.
        left = _gather(stats, np.arange(n_swept), O[:, :hi - lo], stacked=True)  # (s, b, c)
        del O
        restart = starts[s0:s1] >= max(lo, 1)
        left[:, :, part_starts[restart]] -= totals[:n_swept, None, np.arange(s0, s1)[restart] - 1]
        left[:, :, 0] += carry
        np.cumsum(left, axis=2, out=left)
        carry = left[:, :, -1].copy()
        right = totals[:n_swept, None, s0:s1].repeat(part_sizes, axis=2) - left
        score = _score(criterion, left, right, cand, min_weight_leaf)
        del left, right, cand
        # Best of each part, and the first position reaching it.
        part_best = np.maximum.reduceat(score, part_starts, axis=1)      # (b, parts)
        part_first = _first_at_best(score, part_best, part_starts, part_sizes, lo)
        del score
        # Merge: a strictly better score moves the position; NaN propagates as
        # in a reduction over the whole segment.
        better = part_best > value[:, s0:s1]
        first[:, s0:s1] = np.where(better, part_first, first[:, s0:s1])
        value[:, s0:s1] = np.maximum(value[:, s0:s1], part_best)
    return value, first


def _sweep_block(X, order, fb, starts, sizes, stats, totals, criterion, shape_ok,
                 feature_mask, min_samples_leaf, min_weight_leaf, thresholds, missing_left,
                 has_missing):
    """Score every cut of the features ``fb`` at once (missing values, random thresholds,
    the absolute error).

    Returns, each of shape (b, n_segments): the best score per feature and
    segment, the kind of split that gives it (first kind on ties), the first
    position reaching it, and the counts of missing and present samples.
    """
    b = fb.size
    m = order.shape[1]
    n_segments = starts.size
    O = order[fb].astype(np.intp)                        # (b, m) sample ids
    values = _gather_values(X, fb, O)                    # (b, m) sorted values
    # Missing values: count per (feature, segment); they sit at the segment ends.
    block_missing = bool(has_missing[fb].any())
    if block_missing:
        n_missing = np.add.reduceat(np.isnan(values), starts, axis=1)  # (b, n_segments)
    else:
        n_missing = np.zeros((b, n_segments), dtype=np.intp)
    n_present = sizes - n_missing                                 # (b, n_segments)
    if thresholds is None:
        # A cut after position p is a candidate if the next sample in the
        # segment has a larger value (beyond FEATURE_THRESHOLD); NaN never is.
        cand = np.zeros((b, m), bool)
        np.greater(values[:, 1:], values[:, :-1] + FEATURE_THRESHOLD, out=cand[:, :-1])
    else:
        # One cut per segment: after the last non-missing sample <= threshold.
        limit = thresholds[:, fb].T                      # (b, n_segments)
        below = values <= np.repeat(limit, sizes, axis=1)     # float64 comparison
        n_below = np.add.reduceat(below, starts, axis=1)
        rows, segs = np.nonzero((n_below > 0) & (n_below < n_present))
        cand = np.zeros((b, m), bool)
        cand[rows, starts[segs] + n_below[rows, segs] - 1] = True
    if feature_mask is not None:
        cand &= np.repeat(feature_mask[:, fb].T, sizes, axis=1)
    cut_ok = cand.copy() if block_missing else None   # before the children's sizes
    cand &= shape_ok
    if not block_missing:
        del values                  # only the splits of missing values read it again

    if block_missing:
        # Samples left and right of the cut after position p.
        n_left_at = np.arange(1, m + 1) - np.repeat(starts, sizes)
        n_right_at = np.repeat(sizes, sizes) - n_left_at
        n_miss_at = np.repeat(n_missing, sizes, axis=1)
        # Missing sent left: n_left + n_missing samples left, the rest right.
        cand_left = cut_ok & (n_miss_at > 0)
        cand_left &= (n_left_at + n_miss_at >= min_samples_leaf) \
            & (n_right_at - n_miss_at >= min_samples_leaf)
        if missing_left is not None:   # random splitter: one direction, drawn
            choose = np.repeat(missing_left[:, fb].T, sizes, axis=1)
            cand_left &= choose
            drawn_left = choose & (n_miss_at > 0)    # their missing-right scores are dropped
        del n_miss_at, n_left_at, n_right_at, cut_ok
    else:
        cand_left = None

    # Statistics of the left child at every cut (prefix sums, eq. "left =
    # prefix of the segment") and of the right child (total - left), scored.
    if getattr(criterion, "additive", True):
        score, score_left, present = _additive_scores(
            criterion, stats, totals, O, starts, sizes, cand, cand_left, min_weight_leaf,
            n_present)
    else:   # the absolute error: order statistics, no missing values (refused by fit)
        score = criterion.children_score(stats, O, starts, sizes, cand, min_weight_leaf)
    del O, cand
    kinds = [score]
    if block_missing:
        if missing_left is not None:
            score[drawn_left] = -np.inf
        kinds.append(score_left)                 # missing samples sent left
        n_swept = present.shape[0]
        missing_stats = totals[:n_swept, None, :] - present          # (s, b, n_segments)
        del cand_left, score_left
    best_kind = [np.maximum.reduceat(s, starts, axis=1) for s in kinds]  # (b, n_segments)
    if block_missing and missing_left is None:
        # All non-missing samples left, all missing right (threshold +inf).
        first = np.take_along_axis(values, np.broadcast_to(starts, (b, n_segments)), axis=1)
        last = np.take_along_axis(values, np.maximum(starts + n_present - 1, 0), axis=1)
        ok = (n_missing > 0) & (n_present >= min_samples_leaf) \
            & (n_missing >= min_samples_leaf) & (last > first + FEATURE_THRESHOLD)
        if feature_mask is not None:
            ok &= feature_mask[:, fb].T
        with np.errstate(divide="ignore", invalid="ignore"):
            score_inf = np.where(ok, criterion.proxy(present, missing_stats), -np.inf)
        if min_weight_leaf > 0:
            heavy = (criterion.weight(present) >= min_weight_leaf) & \
                    (criterion.weight(missing_stats) >= min_weight_leaf)
            score_inf = np.where(heavy, score_inf, -np.inf)
        best_kind.append(score_inf)
    stacked = np.stack(best_kind)                         # (kinds, b, n_segments)
    kind = np.argmax(stacked, axis=0)                     # first kind on ties
    value = np.max(stacked, axis=0)                       # (b, n_segments)
    # The first position of the winning kind's best (the +inf split, a kind
    # without positions, is placed by the caller).
    firsts = [_first_at_best(scores, best, starts, sizes) for scores, best in zip(kinds, best_kind)]
    firsts += [np.zeros_like(firsts[0])] * (len(best_kind) - len(kinds))
    first = np.take_along_axis(np.stack(firsts), kind[None], axis=0)[0]
    return value, kind, first, n_missing, n_present


def _prefix_chunks(stats, totals, O, starts, n_swept, step):
    """The left children's statistics of :func:`_children`, ``step`` positions at a time.

    Yields ``(lo, hi, left)`` with ``left`` of shape (n_swept, b, hi - lo), the
    same floats as ``left[:, :, lo:hi]`` of one sweep of the level: the
    running sum is carried from one chunk into the next, added to the chunk's
    first term before its cumulative sum.
    """
    m = O.shape[1]
    carry = None
    for lo in range(0, m, step):
        hi = min(lo + step, m)
        left = _gather(stats, np.arange(n_swept), O[:, lo:hi], stacked=True)   # (s, b, c)
        # Segments j >= 1 starting in the chunk: subtract the total of segment j - 1.
        j = np.arange(np.searchsorted(starts, max(lo, 1)), np.searchsorted(starts, hi))
        left[:, :, starts[j] - lo] -= totals[:n_swept, None, j - 1]
        if carry is not None:
            left[:, :, 0] += carry
        np.cumsum(left, axis=2, out=left)
        carry = left[:, :, -1].copy()
        yield lo, hi, left


def _additive_scores(criterion, stats, totals, O, starts, sizes, cand, cand_left,
                     min_weight_leaf, n_present):
    """Proxy scores of every cut of a block, the missing samples sent right and sent left.

    Parameters
    ----------
    criterion, stats, totals, O, starts, sizes, cand
        As for :func:`_children`; ``cand`` (b, m) marks the candidate cuts with
        the missing samples (if any) sent right.
    cand_left : ndarray of shape (b, m), bool, or None
        Candidate cuts with the missing samples sent left (None: no missing values).
    min_weight_leaf : float
    n_present : ndarray of shape (b, n_segments)
        Non-missing samples of each feature and segment (they come first).

    Returns
    -------
    score, score_left : ndarray of shape (b, m)
        The proxy at every cut, -inf where it is no candidate (``score_left``:
        None without ``cand_left``).
    present : ndarray of shape (n_swept, b, n_segments) or None
        Statistics of each segment's non-missing samples (None without ``cand_left``).

    A block of at most SWEEP_CELLS statistics (features x positions x
    statistics) is swept at once with :func:`_children`; a larger one (many
    classes, or a long level) a chunk of positions at a time
    (:func:`_prefix_chunks`), in two passes where there are missing values
    (the first finds ``present``, which the missing-left scores of the cuts
    before it need).  Every float is the same either way.
    """
    n_swept = getattr(criterion, "n_swept", None) or stats.shape[0]
    b, m = O.shape
    last_present = np.maximum(starts + n_present - 1, 0)       # (b, n_segments)
    if n_swept * b * m <= SWEEP_CELLS:
        left, right, totals_b = _children(criterion, stats, totals, O, starts, sizes, cand)
        score = _score(criterion, left, right, cand, min_weight_leaf)
        if cand_left is None:
            return score, None, None
        present = np.take_along_axis(left, np.broadcast_to(
            last_present, (left.shape[0],) + last_present.shape), axis=2)
        present = np.where(n_present > 0, present, 0.0)            # (s, b, n_segments)
        del right
        # Missing values sent left: left + (statistics of the missing samples).
        left += (totals_b - present).repeat(sizes, axis=2)
        score_left = _score(criterion, left, totals_b.repeat(sizes, axis=2) - left, cand_left,
                            min_weight_leaf)
        return score, score_left, present

    step = max(1, SWEEP_CELLS // (n_swept * b))
    segment = np.repeat(np.arange(starts.size), sizes)     # segment of each position
    totals_b = totals[:n_swept, None, :]
    present = score_left = None
    if cand_left is not None:
        # First pass: the left statistics at each segment's last non-missing sample.
        present = np.zeros((n_swept, b, starts.size))
        for lo, hi, left in _prefix_chunks(stats, totals, O, starts, n_swept, step):
            for i in range(b):
                at = np.flatnonzero((last_present[i] >= lo) & (last_present[i] < hi))
                present[:, i, at] = left[:, i, last_present[i, at] - lo]
        present = np.where(n_present > 0, present, 0.0)
        missing_stats = totals_b - present
        score_left = np.empty((b, m))
    score = np.empty((b, m))
    for lo, hi, left in _prefix_chunks(stats, totals, O, starts, n_swept, step):
        seg = segment[lo:hi]
        score[:, lo:hi] = _score(criterion, left, totals_b[:, :, seg] - left, cand[:, lo:hi],
                                 min_weight_leaf)
        if cand_left is not None:
            left += missing_stats[:, :, seg]          # missing samples sent left
            score_left[:, lo:hi] = _score(criterion, left, totals_b[:, :, seg] - left,
                                          cand_left[:, lo:hi], min_weight_leaf)
    return score, score_left, present


def _children(criterion, stats, totals, O, starts, sizes, cand):
    """Statistics of the left and right child of every cut after position p.

    Returns ``left`` and ``right`` of shape (n_swept, b, m) and the segment
    totals of the swept statistics, of shape (n_swept, 1, n_segments).  An
    additive criterion sweeps the statistics it needs for its proxy
    (``criterion.n_swept``, default all): left = prefix sum of the segment,
    right = total - left.
    """
    n_swept = getattr(criterion, "n_swept", None) or stats.shape[0]
    left = _gather(stats, np.arange(n_swept), O, stacked=True)  # (s, b, m)
    # Segmented prefix sums: subtract the total of segment j - 1 at the first
    # position of segment j, so that one running sum along the level restarts
    # at every segment.
    left[:, :, starts[1:]] -= totals[:n_swept, None, :-1]
    np.cumsum(left, axis=2, out=left)
    totals_b = totals[:n_swept, None, :]
    right = totals_b.repeat(sizes, axis=2) - left
    return left, right, totals_b


def _score(criterion, left, right, cand, min_weight_leaf):
    """The criterion's proxy at every candidate cut, -inf elsewhere (shape of ``cand``).

    Computed BLOCK_CELLS cells at a time, so that the proxy's own temporaries
    stay small when one feature's column of the level is large.
    """
    if min_weight_leaf > 0:
        cand = cand & (criterion.weight(left) >= min_weight_leaf) \
            & (criterion.weight(right) >= min_weight_leaf)
    score = np.empty(cand.shape)
    step = max(1, BLOCK_CELLS // cand.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        for lo in range(0, cand.shape[1], step):
            chunk = slice(lo, lo + step)
            score[:, chunk] = criterion.proxy(left[:, :, chunk], right[:, :, chunk])
    np.copyto(score, -np.inf, where=~cand)
    return score


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
    mask = np.zeros(n_samples, dtype=bool)
    for f in np.unique(found.feature):   # the segments split on feature f, f's order
        on_f = np.repeat(found.feature == f, sizes)
        mask[order[f][on_f]] = left[on_f]
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
    for row in order:                        # a view: written in place
        g = goes_left[row]
        moved_left, moved_right = row[g], row[~g]
        row[left_slot] = moved_left
        row[right_slot] = moved_right
