r"""Weighted medians and absolute deviations of many ranges at once.

The absolute-error criterion needs, for every candidate split of every node,
the sums of absolute deviations of the left and of the right child from their
weighted medians :math:`\tilde y`,

.. math:: D = \sum_i w_i\,|y_i - \tilde y|,

which, unlike sums of :math:`w`, :math:`wy` and :math:`wy^2`, are not prefix
sums.  Both children are *ranges* of a sequence (a node's samples in the order
of a feature), so the question is: given a sequence and many ranges, the
weighted median of each range and the deviation from it.

A *wavelet matrix* (Claude, Navarro and Ordóñez, "The wavelet matrix", SPIRE
2012 / Information Systems 2015) answers it in :math:`O(\log s)` steps per
range, every step one vectorised NumPy operation over all ranges, where the
values are the ranks :math:`r_i \in [0, s)` of the targets *within their
node* (:math:`s`: the largest node), so that small nodes take few steps.
Level :math:`\ell` (from the most significant bit down) stores, for every
prefix of the sequence as reordered at that level, how many of its values
have bit :math:`\ell` equal to 0 and their total weight and weighted sum;
then the sequence is stably partitioned by that bit (zeros first).  A range
of one level maps to one range of the next level on either side, so
descending from the top bit to the bottom one finds the smallest rank
:math:`x` whose cumulative weight in the range reaches a target, collecting
on the way the weight and weighted sum of all values of rank below :math:`x`.

With :math:`W_\le, S_\le` the weight and weighted sum of the range's values
of rank :math:`\le x` (all :math:`\le m`, every other value :math:`\ge m`)
and :math:`W, S` those of the whole range, the deviation from a median
:math:`m` is

.. math:: D = (m W_\le - S_\le) + (S - S_\le) - m (W - W_\le)
            = S - 2 S_\le + m\,(2 W_\le - W).

When :math:`W_\le = W/2` exactly, the median is the midpoint of two values but
the last term vanishes: :math:`D = S - 2 S_\le` for any :math:`m` between them,
so the deviations of the children need no second search.  The medians and
deviations of whole nodes come from sorting (:func:`segment_medians`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RangeDeviations", "lowest_reaching", "segment_medians", "segment_ranks"]


def lowest_reaching(values, weight, wsum, row, lo, hi, target):
    """Per range ``[lo, hi)`` of a row of ``values``: the smallest value whose cumulative weight reaches ``target``.

    One weighted wavelet matrix per row of ``values``, side by side, built and
    descended one level at a time: each level's prefix tables serve every
    range's step and are then dropped, so the memory is :math:`O(n + q)`,
    not the :math:`O(n \\log s)` of a kept matrix.  Every prefix sum starts
    at its row's start, so a range's sums do not depend on the other rows.

    Parameters
    ----------
    values : ndarray of shape (b, m), int
        Non-negative integers (ranks); one level per bit of the largest.
    weight : ndarray of shape (b, m), float64, or None
        The weight :math:`w_i` of each entry; ``None``: all 1 (a count is then
        the weight, and no weight table is kept).
    wsum : ndarray of shape (b, m), float64
        The weighted value :math:`w_i y_i` of each entry.
    row, lo, hi : ndarray of shape (q,), int
        The ranges: positions ``lo`` to ``hi - 1`` of row ``row``.
    target : ndarray of shape (q,), float64
        The cumulative weight to reach in each range.

    Returns
    -------
    x : ndarray of shape (q,), int
        The smallest value with :math:`W(\\text{values} \\le x) \\ge` ``target``.
    weight_below, wsum_below : ndarray of shape (q,), float64
        Weight and weighted sum of the range's values below :math:`x`.
    """
    b, m = values.shape
    unit_weight = weight is None
    x = np.zeros(lo.shape, dtype=lo.dtype)
    weight_below = np.zeros(lo.shape)
    wsum_below = np.zeros(lo.shape)
    at_row = row * (m + 1)                   # where the row's prefix tables start
    index = np.int32 if b * (m + 1) < 2**31 else np.intp
    v, w, s = values, weight, wsum
    for level in reversed(range(max(1, int(values.max(initial=0)).bit_length()))):
        # This level, per row: how many entries of each prefix have bit `level`
        # 0, and their weight and weighted sum.
        is_zero = ((v >> level) & 1) == 0
        zeros = _row_prefix(is_zero, index)
        n_zeros = zeros[:, -1]
        zero_wsum = _row_prefix(s, np.float64, is_zero).ravel()
        z_lo, z_hi = zeros.ravel()[at_row + lo], zeros.ravel()[at_row + hi]
        if unit_weight:
            zero_w = z_hi - z_lo              # weight of the range's values with bit 0 here
        else:
            zero_weight = _row_prefix(w, np.float64, is_zero).ravel()
            zero_w = zero_weight[at_row + hi] - zero_weight[at_row + lo]
            del zero_weight
        reach = weight_below + zero_w
        to_one = reach < target
        # Going to the one side: the zero side's values all lie below x.
        weight_below = np.where(to_one, reach, weight_below)
        wsum_below += (zero_wsum[at_row + hi] - zero_wsum[at_row + lo]) * to_one
        x |= to_one.astype(x.dtype) << level
        # The range on the next level (per row: zeros first, then ones, each stable).
        lo = np.where(to_one, n_zeros[row] + lo - z_lo, z_lo)
        hi = np.where(to_one, n_zeros[row] + hi - z_hi, z_hi)
        del zero_wsum, z_lo, z_hi, zero_w, reach, to_one
        if level:
            # Where each entry goes: after the zeros before it in its row, or
            # after all of its row's zeros and the ones before it.
            before = zeros[:, :-1]
            dest = np.where(is_zero, before, n_zeros[:, None] + np.arange(m, dtype=index) - before)
            dest += np.arange(0, b * m, m, dtype=index)[:, None]
            del zeros, before
            v, s = _scatter(v, dest), _scatter(s, dest)
            w = w if unit_weight else _scatter(w, dest)
            del dest
    return x, weight_below, wsum_below


def _row_prefix(values, dtype, mask=None):
    """Prefix sums along each row of ``values`` (where ``mask``), shape (b, m + 1), first column 0."""
    out = np.zeros((values.shape[0], values.shape[1] + 1), dtype=dtype)
    if mask is not None:
        values = np.multiply(values, mask, out=out[:, 1:])   # in place: no temporary
    np.cumsum(values, axis=1, dtype=dtype, out=out[:, 1:])
    return out


def _scatter(values, dest):
    """The entries of ``values`` moved to the flat positions ``dest``."""
    out = np.empty_like(values)
    out.ravel()[dest.ravel()] = values.ravel()
    return out


def segment_ranks(key, starts, sizes):
    """Order and rank of ``key`` within each segment.

    Parameters
    ----------
    key : ndarray of shape (m,)
        Sort keys (the targets); equal keys keep their order of position.
    starts, sizes : ndarray of shape (n_segments,), int
        Contiguous segments covering ``0 .. m - 1``.

    Returns
    -------
    by_key : ndarray of shape (m,), int
        Positions sorted by (segment, key): segment ``j``'s positions in
        increasing ``key`` occupy ``by_key[starts[j]:starts[j] + sizes[j]]``.
    rank : ndarray of shape (m,), int
        Rank of each position's key within its segment (0 = smallest).
    """
    segment = np.repeat(np.arange(starts.size), sizes)
    by_key = np.lexsort((key, segment))
    rank = np.empty(key.size, dtype=np.intp)
    rank[by_key] = np.arange(key.size) - np.repeat(starts, sizes)
    return by_key, rank


def segment_medians(y, weight, starts):
    """Weight, weighted median and sum of absolute deviations of each segment.

    Parameters
    ----------
    y, weight : ndarray of shape (m,), float64
        Targets and weights of a sequence of segments.
    starts : ndarray of shape (n_segments,), int
        Start of each segment (increasing, ``starts[0] == 0``).

    Returns
    -------
    ndarray of shape (3, n_segments)
        Rows :math:`W`, the weighted median :math:`m` (scikit-learn's: the
        first value in increasing order whose cumulative weight reaches
        :math:`W/2`, or the midpoint of it and the next value of larger
        cumulative weight if it is exactly :math:`W/2`) and
        :math:`D = \\sum_i w_i |y_i - m|`, in the units of ``y``.

    References
    ----------
    Breiman, Friedman, Olshen and Stone, *Classification and Regression
    Trees* (1984), section 8.11 (least absolute deviation regression);
    scikit-learn's ``WeightedMedianCalculator`` for the midpoint rule.

    Examples
    --------
    >>> y = np.array([3.0, 1.0, 2.0, 10.0, 4.0, 6.0])
    >>> segment_medians(y, np.ones(6), np.array([0, 3]))
    array([[3., 3.],
           [2., 6.],
           [2., 6.]])
    """
    sizes = np.diff(np.append(starts, y.size))
    by_y, _ = segment_ranks(y, starts, sizes)
    ys, ws = y[by_y], weight[by_y]
    # Cumulative weight within each segment, summed from its own start (so a
    # node's median does not depend on the other nodes); W is its last value.
    cum_in = _segmented_cumsum(ws, starts, sizes)
    W = cum_in[starts + sizes - 1]
    half = (W / 2.0).repeat(sizes)
    position = np.arange(y.size)
    end = y.size
    first = np.minimum.reduceat(np.where(cum_in >= half, position, end), starts)
    after = np.minimum.reduceat(np.where(cum_in > half, position, end), starts)
    after = np.where(after < end, after, first)   # none larger (zero weights): m = ys[first]
    median = ys[first]
    exact = cum_in[first] == W / 2.0
    median[exact] = (ys[first[exact]] + ys[after[exact]]) / 2.0
    D = np.add.reduceat(ws * np.abs(ys - median.repeat(sizes)), starts)
    return np.vstack([W, median, D])


def _segmented_cumsum(values, starts, sizes):
    """Cumulative sums of ``values`` restarting at every segment, shape (m,).

    The same floats as ``np.cumsum`` of each segment alone: segments whose
    sizes lie within a factor of 2 are stacked into one 2-D array, padded with
    zeros after their ends, and summed along its rows (at most twice the
    entries, one NumPy step per size class).
    """
    out = np.empty_like(values)
    size_class = np.frexp(sizes.astype(np.float64))[1]        # bit length of each size
    for c in np.unique(size_class):
        segs = np.flatnonzero(size_class == c)
        offset = np.arange(int(sizes[segs].max()))
        inside = offset < sizes[segs, None]
        at = (starts[segs, None] + offset)[inside]
        block = np.zeros(inside.shape)
        block[inside] = values[at]
        np.cumsum(block, axis=1, out=block)
        out[at] = block[inside]
    return out


class RangeDeviations:
    """Weight and sum of absolute deviations from the weighted median of ranges of rows.

    Built once per block of rows; each call answers a batch of ranges with one
    descent of :func:`lowest_reaching` (so a caller bounds the working memory
    by the batch size).  A range's sums start at its row's start: its result
    does not depend on the other rows of the block.

    Parameters
    ----------
    rank : ndarray of shape (b, m), int
        Rank of each entry's target, distinct within every range asked for.
    weight : ndarray of shape (b, m), float64, or None
        Each entry's weight; ``None``: all 1 (no weight tables are kept).
    y : ndarray of shape (b, m), float64
        Each entry's target.
    w_by_rank, y_by_rank : ndarray of shape (m,), float64
        Weights (``None`` with ``weight``) and targets by rank: the entry of
        rank ``x`` in a range with base ``c`` (see ``__call__``) has weight
        ``w_by_rank[c + x]`` and target ``y_by_rank[c + x]`` (for a level: each
        segment's samples sorted by target, at the segment's positions).
    """

    def __init__(self, rank, weight, y, w_by_rank, y_by_rank):
        self.rank = rank
        # Unweighted (weight None): a weight is a count, W = hi - lo, every w is 1.
        self.unit_weight = weight is None
        self.wsum = y if self.unit_weight else weight * y
        self.prefix_wsum = _row_prefix(self.wsum, np.float64).ravel()
        self.y_by_rank = y_by_rank
        self.weight = weight
        self.prefix_weight = None if self.unit_weight else _row_prefix(weight, np.float64).ravel()
        self.w_by_rank = w_by_rank

    def __call__(self, row, lo, hi, base):
        """:math:`W` and :math:`D = \\sum_i w_i |y_i - m|` of each range (non-empty).

        The ranges are positions ``lo`` to ``hi - 1`` of row ``row``; ``base``
        locates each range's ranks in ``w_by_rank`` and ``y_by_rank`` (all of
        shape (q,)).  :math:`m` is the weighted median (the deviation formula
        of the module docstring).  Returns two arrays of shape (q,).
        """
        at_row = row * (self.rank.shape[1] + 1)
        if self.unit_weight:
            W = (hi - lo).astype(np.float64)
        else:
            W = self.prefix_weight[at_row + hi] - self.prefix_weight[at_row + lo]
        S = self.prefix_wsum[at_row + hi] - self.prefix_wsum[at_row + lo]
        x, weight_below, wsum_below = lowest_reaching(self.rank, self.weight, self.wsum,
                                                      row, lo, hi, W / 2.0)
        at = base + x
        m = self.y_by_rank[at]
        w_x = 1.0 if self.unit_weight else self.w_by_rank[at]
        W_le = weight_below + w_x                      # cumulative weight up to rank x
        S_le = wsum_below + w_x * m
        deviation = (S - 2.0 * S_le) + m * (2.0 * W_le - W)
        return W, np.maximum(deviation, 0.0)
