r"""Weighted medians and absolute deviations of many ranges at once.

The absolute-error criterion needs, for every candidate split of every node,
the weighted median :math:`\tilde y` of the left and of the right child and
their sums of absolute deviations

.. math:: D = \sum_i w_i\,|y_i - \tilde y|,

which, unlike sums of :math:`w`, :math:`wy` and :math:`wy^2`, are not prefix
sums.  Both children are *ranges* of a sequence (a node's samples in the order
of a feature), so the question is: given a sequence and many ranges, the
weighted median of each range.

A *wavelet matrix* (Claude, Navarro and Ordóñez, "The wavelet matrix", SPIRE
2012 / Information Systems 2015) answers it in :math:`O(\log n)` steps per
range, and every step is one vectorised NumPy operation over all ranges.  The
values are the ranks :math:`r_i \in [0, 2^L)` of the targets.  Level
:math:`\ell` (from the most significant bit down) stores, for every prefix of
the sequence as reordered at that level, how many of its values have bit
:math:`\ell` equal to 0 and their total weight and weighted sum; then the
sequence is stably partitioned by that bit (zeros first).  A range of one
level maps to one range of the next level on either side, so descending from
the top bit to the bottom one finds the smallest rank :math:`x` whose
cumulative weight in the range reaches a target, collecting on the way the
weight and weighted sum of all values of rank below :math:`x`.

From those, with :math:`W_\le, S_\le` the weight and weighted sum of the
range's values of rank :math:`\le x` and :math:`W, S` those of the whole
range, the deviation from the median :math:`m` is

.. math:: D = (m W_\le - S_\le) + (S - S_\le) - m (W - W_\le),

since every value of rank :math:`\le x` is :math:`\le m` and every other is
:math:`\ge m`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["WaveletMatrix", "range_medians"]


class WaveletMatrix:
    """Weighted wavelet matrix over integer ``values`` (ranks, all distinct within a range).

    Parameters
    ----------
    values : ndarray of shape (n,), int
        Non-negative integers (the ranks of the targets).
    weight, wsum : ndarray of shape (n,), float64
        The weight :math:`w_i` and weighted value :math:`w_i y_i` of each entry.
    """

    def __init__(self, values, weight, wsum):
        self.n_levels = max(1, int(values.max(initial=0)).bit_length())
        self.zeros, self.zero_weight, self.zero_wsum, self.n_zeros = [], [], [], []
        v, w, s = values, weight, wsum
        for level in reversed(range(self.n_levels)):
            is_zero = ((v >> level) & 1) == 0
            self.zeros.append(_prefix(is_zero, np.intp))
            self.zero_weight.append(_prefix(np.where(is_zero, w, 0.0), np.float64))
            self.zero_wsum.append(_prefix(np.where(is_zero, s, 0.0), np.float64))
            self.n_zeros.append(int(self.zeros[-1][-1]))
            # Stable partition by the bit: zeros first (the next level's sequence).
            order = np.concatenate((np.flatnonzero(is_zero), np.flatnonzero(~is_zero)))
            v, w, s = v[order], w[order], s[order]

    def lowest_reaching(self, lo, hi, target, *, strict=False):
        """Per range ``[lo, hi)``: the smallest value whose cumulative weight reaches ``target``.

        Returns ``(x, weight_below, wsum_below)``: the value :math:`x` (the
        smallest with :math:`W(\\text{values} \\le x) \\ge` ``target``, or
        ``>`` if ``strict``), and the weight and weighted sum of the range's
        values below :math:`x`.
        """
        lo, hi = lo.copy(), hi.copy()
        x = np.zeros(lo.shape, dtype=np.intp)
        weight_below = np.zeros(lo.shape)
        wsum_below = np.zeros(lo.shape)
        for k, level in enumerate(reversed(range(self.n_levels))):
            zeros, zero_weight, zero_wsum = self.zeros[k], self.zero_weight[k], self.zero_wsum[k]
            z_lo, z_hi = zeros[lo], zeros[hi]
            reach = weight_below + (zero_weight[hi] - zero_weight[lo])  # W(values with bit 0 here)
            to_zero = reach > target if strict else reach >= target
            to_one = ~to_zero
            # Going to the one side: the zero side's values all lie below x.
            weight_below = np.where(to_one, reach, weight_below)
            wsum_below += np.where(to_one, zero_wsum[hi] - zero_wsum[lo], 0.0)
            x |= to_one.astype(np.intp) << level
            lo = np.where(to_zero, z_lo, self.n_zeros[k] + lo - z_lo)
            hi = np.where(to_zero, z_hi, self.n_zeros[k] + hi - z_hi)
        return x, weight_below, wsum_below


def _prefix(values, dtype):
    out = np.zeros(values.size + 1, dtype=dtype)
    np.cumsum(values, out=out[1:])
    return out


def range_medians(rank, weight, y, lo, hi):
    """Weight, weighted median and sum of absolute deviations of ranges of a sequence.

    Parameters
    ----------
    rank : ndarray of shape (n,), int
        Rank of each entry's target among all targets (distinct ranks).
    weight, y : ndarray of shape (n,), float64
        Each entry's weight and target.
    lo, hi : ndarray of shape (q,), int
        The ranges ``[lo, hi)`` (non-empty).

    Returns
    -------
    ndarray of shape (3, q)
        Rows :math:`W`, the weighted median :math:`m` (scikit-learn's: the
        first value whose cumulative weight reaches :math:`W/2`, or the
        midpoint of it and the next value if that cumulative weight is exactly
        :math:`W/2`) and :math:`D = \\sum_i w_i |y_i - m|`.
    """
    wsum = weight * y
    wavelet = WaveletMatrix(rank, weight, wsum)
    total_weight = _prefix(weight, np.float64)
    total_wsum = _prefix(wsum, np.float64)
    W = total_weight[hi] - total_weight[lo]
    S = total_wsum[hi] - total_wsum[lo]
    half = W / 2.0
    # The target and weight of every rank (ranks are distinct).
    y_of = np.empty(rank.max(initial=0) + 1)
    w_of = np.empty_like(y_of)
    y_of[rank], w_of[rank] = y, weight
    x, weight_below, wsum_below = wavelet.lowest_reaching(lo, hi, half)
    W_le = weight_below + w_of[x]                  # cumulative weight up to rank x
    S_le = wsum_below + w_of[x] * y_of[x]
    median = y_of[x].copy()
    split = np.flatnonzero(W_le == half)           # exactly half: midpoint with the next value
    if split.size:
        nxt, _, _ = wavelet.lowest_reaching(lo[split], hi[split], half[split], strict=True)
        median[split] = (y_of[nxt] + y_of[x[split]]) / 2.0
    deviation = (median * W_le - S_le) + (S - S_le) - median * (W - W_le)
    return np.vstack([W, median, np.maximum(deviation, 0.0)])
