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

__all__ = ["WaveletMatrix", "range_deviations", "segment_medians", "segment_ranks"]


class WaveletMatrix:
    """Weighted wavelet matrix over small non-negative integers.

    Parameters
    ----------
    values : ndarray of shape (n,), int
        Non-negative integers (ranks); the matrix has one level per bit of the
        largest.
    weight, wsum : ndarray of shape (n,), float64
        The weight :math:`w_i` and weighted value :math:`w_i y_i` of each entry.
        All weights 1 (no ``sample_weight``) keep no weight table: a count is
        then the weight.
    """

    def __init__(self, values, weight, wsum):
        self.n_levels = max(1, int(values.max(initial=0)).bit_length())
        self.unit_weight = bool(np.all(weight == 1.0))
        self.zeros, self.zero_weight, self.zero_wsum, self.n_zeros = [], [], [], []
        v, w, s = values, weight, wsum
        for level in reversed(range(self.n_levels)):
            is_zero = ((v >> level) & 1) == 0
            self.zeros.append(_prefix(is_zero, np.intp))
            self.zero_weight.append(None if self.unit_weight
                                    else _prefix(np.where(is_zero, w, 0.0), np.float64))
            self.zero_wsum.append(_prefix(np.where(is_zero, s, 0.0), np.float64))
            self.n_zeros.append(int(self.zeros[-1][-1]))
            # Stable partition by the bit: zeros first (the next level's sequence).
            order = np.concatenate((np.flatnonzero(is_zero), np.flatnonzero(~is_zero)))
            v, s = v[order], s[order]
            w = w if self.unit_weight else w[order]

    def lowest_reaching(self, lo, hi, target):
        """Per range ``[lo, hi)``: the smallest value whose cumulative weight reaches ``target``.

        Returns ``(x, weight_below, wsum_below)``: the value :math:`x` (the
        smallest with :math:`W(\\text{values} \\le x) \\ge` ``target``), and
        the weight and weighted sum of the range's values below :math:`x`.
        """
        x = np.zeros(lo.shape, dtype=np.intp)
        weight_below = np.zeros(lo.shape)
        wsum_below = np.zeros(lo.shape)
        for k, level in enumerate(reversed(range(self.n_levels))):
            zeros, zero_weight, zero_wsum = self.zeros[k], self.zero_weight[k], self.zero_wsum[k]
            z_lo, z_hi = zeros[lo], zeros[hi]
            # Weight of the range's values with bit 0 here (their count if unweighted).
            zero_w = z_hi - z_lo if zero_weight is None else zero_weight[hi] - zero_weight[lo]
            reach = weight_below + zero_w
            to_one = reach < target
            # Going to the one side: the zero side's values all lie below x.
            weight_below = np.where(to_one, reach, weight_below)
            wsum_below += (zero_wsum[hi] - zero_wsum[lo]) * to_one
            x |= to_one.astype(np.intp) << level
            lo = np.where(to_one, self.n_zeros[k] + lo - z_lo, z_lo)
            hi = np.where(to_one, self.n_zeros[k] + hi - z_hi, z_hi)
        return x, weight_below, wsum_below


def _prefix(values, dtype):
    out = np.zeros(values.size + 1, dtype=dtype)
    np.cumsum(values, out=out[1:])
    return out


def segment_ranks(key, starts, sizes):
    """Order and rank of ``key`` within each segment.

    Parameters
    ----------
    key : ndarray of shape (m,)
        Distinct sort keys (the global ranks of the targets).
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


def segment_medians(y, weight, rank, starts):
    """Weight, weighted median and sum of absolute deviations of each segment.

    Parameters
    ----------
    y, weight : ndarray of shape (m,), float64
        Targets and weights of a sequence of segments.
    rank : ndarray of shape (m,), int
        Distinct ranks of the targets (ties in ``y`` broken by rank).
    starts : ndarray of shape (n_segments,), int
        Start of each segment (increasing, ``starts[0] == 0``).

    Returns
    -------
    ndarray of shape (3, n_segments)
        Rows :math:`W`, the weighted median :math:`m` (scikit-learn's: the
        first value in increasing order whose cumulative weight reaches
        :math:`W/2`, or the midpoint of it and the next value of larger
        cumulative weight if it is exactly :math:`W/2`) and
        :math:`D = \\sum_i w_i |y_i - m|`.

    Examples
    --------
    >>> y = np.array([3.0, 1.0, 2.0, 10.0, 4.0, 6.0])
    >>> segment_medians(y, np.ones(6), np.argsort(np.argsort(y)), np.array([0, 3]))
    array([[3., 3.],
           [2., 6.],
           [2., 6.]])
    """
    sizes = np.diff(np.append(starts, y.size))
    by_y, _ = segment_ranks(rank, starts, sizes)
    ys, ws = y[by_y], weight[by_y]
    # Cumulative weight within each segment, from one running sum (exact for
    # whole-number weights); the segment's W is its last value.
    cum = np.cumsum(ws)
    before = np.concatenate(([0.0], cum))[starts].repeat(sizes)
    cum_in = cum - before
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


def range_deviations(values, weight, y, lo, hi, base, w_by_rank, y_by_rank):
    """Weight and sum of absolute deviations from the weighted median of ranges.

    Parameters
    ----------
    values : ndarray of shape (n,), int
        Rank of each entry's target, distinct within every range.
    weight, y : ndarray of shape (n,), float64
        Each entry's weight and target.
    lo, hi : ndarray of shape (q,), int
        The ranges ``[lo, hi)`` (non-empty).
    base : ndarray of shape (q,), int
        Where the ranks of range ``j`` start in ``w_by_rank`` and ``y_by_rank``:
        the entry of rank ``x`` has weight ``w_by_rank[base[j] + x]`` and target
        ``y_by_rank[base[j] + x]``.
    w_by_rank, y_by_rank : ndarray, float64
        Weights and targets by rank (see ``base``).

    Returns
    -------
    ndarray of shape (2, q)
        Rows :math:`W` and :math:`D = \\sum_i w_i |y_i - m|`, :math:`m` the
        weighted median (the deviation formula of the module docstring).
    """
    wsum = weight * y
    wavelet = WaveletMatrix(values, weight, wsum)
    total_weight = _prefix(weight, np.float64)
    total_wsum = _prefix(wsum, np.float64)
    W = total_weight[hi] - total_weight[lo]
    S = total_wsum[hi] - total_wsum[lo]
    x, weight_below, wsum_below = wavelet.lowest_reaching(lo, hi, W / 2.0)
    at = base + x
    w_x, m = w_by_rank[at], y_by_rank[at]
    W_le = weight_below + w_x                      # cumulative weight up to rank x
    S_le = wsum_below + w_x * m
    deviation = (S - 2.0 * S_le) + m * (2.0 * W_le - W)
    return np.vstack([W, np.maximum(deviation, 0.0)])
