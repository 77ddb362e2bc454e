r"""Binary split search on numeric features: the sorted sweep.

The samples of the nodes being split are kept, for every feature, in an
index array ``order[f]`` in which each node owns a contiguous *segment*,
sorted by the feature's value.  The features are sorted once, at the root;
splitting a node partitions its segment stably into a left and a right part,
which keeps both parts sorted (:func:`partition`).

Along a sorted segment, moving the threshold past one sample moves that
sample from the right child to the left, so the statistics of every left
child are prefix sums and those of the right child are the node's total minus
the left: all thresholds of all nodes are scored with one cumulative sum per
feature (:func:`best_splits`), in :math:`O(n)` time per feature and level
instead of :math:`O(n^2)`.  Over a tree of depth :math:`h` the search costs
:math:`O(n\,d\,h)` after the :math:`O(n\,d \log n)` presort (seed 003).

Candidate thresholds lie between two consecutive distinct values (values
closer than 1e-7 in float32 count as equal, as in scikit-learn) at their
midpoint; when the midpoint rounds onto the upper value, the lower value is
used.  Every comparison uses float64.

Ties between candidates are broken deterministically: among splits of equal
score, the lowest feature index wins, then the lowest threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SplitResult", "best_splits", "partition", "FEATURE_THRESHOLD"]

# Values that differ by at most this much (in float32) are one value.
FEATURE_THRESHOLD = np.float32(1e-7)


@dataclass
class SplitResult:
    """The best split of each segment; ``feature == -1`` where none is valid."""

    feature: np.ndarray      # (n_segments,) int
    threshold: np.ndarray    # (n_segments,) float64
    n_left: np.ndarray       # (n_segments,) int, samples sent left
    left: np.ndarray         # (n_segments, n_stats) statistics of the left child
    right: np.ndarray        # (n_segments, n_stats) statistics of the right child
    proxy: np.ndarray        # (n_segments,) the criterion's proxy score


def segment_ids(sizes: np.ndarray) -> np.ndarray:
    """Segment index of every position of a segmented array."""
    return np.repeat(np.arange(sizes.size), sizes)


def best_splits(Xt, order, starts, sizes, stats, totals, criterion, *,
                min_samples_leaf=1, min_weight_leaf=0.0, feature_mask=None,
                feature_rank=None, thresholds=None) -> SplitResult:
    """Score every threshold of every segment and keep each segment's best.

    Parameters
    ----------
    Xt : ndarray of shape (n_features, n_samples), float32
        The training features, one row per feature.
    order : ndarray of shape (n_features, m), int
        Per feature, the samples of the segments, each segment sorted by the
        feature; segment ``j`` occupies ``starts[j]:starts[j] + sizes[j]``.
    starts, sizes : ndarray of shape (n_segments,), int
        Where each segment starts in ``order`` and how many samples it has.
    stats : ndarray of shape (n_samples, n_stats)
        Per-sample statistics of the criterion.
    totals : ndarray of shape (n_segments, n_stats)
        Summed statistics of each segment.
    criterion : class from :mod:`dtree.criteria`
        Supplies ``proxy(left, right)``.
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

    Returns
    -------
    SplitResult
        The best split per segment, ``feature == -1`` if there is none.
    """
    n_features, m = order.shape
    n_segments = starts.size
    n_stats = stats.shape[1]
    seg = segment_ids(sizes)
    seg_start = starts[seg]
    before_end = starts + sizes - 1                   # last position of each segment
    n_left_at = np.arange(1, m + 1) - seg_start       # samples left of a cut after position p
    n_right_at = sizes[seg] - n_left_at
    shape_ok = (n_left_at >= min_samples_leaf) & (n_right_at >= min_samples_leaf)

    best = SplitResult(
        feature=np.full(n_segments, -1, dtype=np.intp),
        threshold=np.zeros(n_segments),
        n_left=np.zeros(n_segments, dtype=np.intp),
        left=np.zeros((n_segments, n_stats)),
        right=np.zeros((n_segments, n_stats)),
        proxy=np.full(n_segments, -np.inf),
    )
    best_rank = np.full(n_segments, np.iinfo(np.intp).max)
    for f in range(n_features):
        o = order[f]
        x = Xt[f, o]
        if thresholds is None:
            # A cut after position p is a candidate if the next sample in the
            # segment has a larger value (beyond FEATURE_THRESHOLD).
            candidate = shape_ok.copy()
            candidate[:-1] &= x[1:] > x[:-1] + FEATURE_THRESHOLD
            candidate[before_end] = False
        else:
            # One cut per segment: after the last sample with x <= threshold.
            below = x.astype(np.float64) <= thresholds[seg, f]
            n_below = np.add.reduceat(below, starts) if m else np.zeros(0, dtype=np.intp)
            inside = (n_below > 0) & (n_below < sizes)
            candidate = np.zeros(m, dtype=bool)
            candidate[(starts + n_below - 1)[inside]] = True
            candidate &= shape_ok
        if feature_mask is not None:
            candidate &= feature_mask[seg, f]
        idx = np.flatnonzero(candidate)
        if idx.size == 0:
            continue
        sid = seg[idx]
        cumulative = np.cumsum(stats[o], axis=0)
        # Left child = prefix of the segment; right child = total - left.
        prefix_before = np.zeros((n_segments, n_stats))
        has_before = starts > 0
        prefix_before[has_before] = cumulative[starts[has_before] - 1]
        left = cumulative[idx] - prefix_before[sid]
        right = totals[sid] - left
        if min_weight_leaf > 0:
            w_left = left[:, 0] if not criterion.is_classification else left.sum(axis=1)
            w_right = right[:, 0] if not criterion.is_classification else right.sum(axis=1)
            heavy = (w_left >= min_weight_leaf) & (w_right >= min_weight_leaf)
            idx, sid, left, right = idx[heavy], sid[heavy], left[heavy], right[heavy]
            if idx.size == 0:
                continue
        score = criterion.proxy(left, right)
        # Per segment: the largest score, first (lowest threshold) on ties.
        group_starts = np.flatnonzero(np.r_[True, sid[1:] != sid[:-1]])
        group_seg = sid[group_starts]
        group_best = np.maximum.reduceat(score, group_starts)
        is_best = score == np.repeat(group_best, np.diff(np.r_[group_starts, idx.size]))
        first = np.minimum.reduceat(np.where(is_best, np.arange(idx.size), idx.size), group_starts)
        rank = f if feature_rank is None else feature_rank[group_seg, f]
        # Strictly better, or as good and of lower rank (earlier features win ties).
        improves = (group_best > best.proxy[group_seg]) | (
            (group_best == best.proxy[group_seg]) & (rank < best_rank[group_seg]))
        improves &= group_best > -np.inf
        if not np.any(improves):
            continue
        chosen = first[improves]
        segs = group_seg[improves]
        p = idx[chosen]
        if thresholds is None:
            lower, upper = x[p].astype(np.float64), x[p + 1].astype(np.float64)
            threshold = lower / 2.0 + upper / 2.0
            threshold = np.where((threshold == upper) | np.isinf(threshold), lower, threshold)
        else:
            threshold = thresholds[segs, f]
        best_rank[segs] = rank if np.ndim(rank) == 0 else rank[improves]
        best.feature[segs] = f
        best.threshold[segs] = threshold
        best.n_left[segs] = n_left_at[p]
        best.left[segs] = left[chosen]
        best.right[segs] = right[chosen]
        best.proxy[segs] = group_best[improves]
    return best


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
    m = order.shape[1]
    seg = segment_ids(sizes)
    seg_start = starts[seg]
    position = np.arange(m) - seg_start
    for f in range(order.shape[0]):
        o = order[f]
        g = goes_left[o]
        lefts_so_far = np.cumsum(g)                                # inclusive count
        lefts_before = (lefts_so_far[starts] - g[starts])[seg]     # before the segment
        rank_left = lefts_so_far - lefts_before - 1
        rank_right = position - (lefts_so_far - lefts_before)
        destination = np.where(g, seg_start + rank_left, seg_start + n_left[seg] + rank_right)
        reordered = np.empty_like(o)
        reordered[destination] = o
        order[f] = reordered
