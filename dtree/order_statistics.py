r"""Weighted medians and absolute deviations of nodes: the absolute error's node statistics.

The absolute-error criterion predicts a node's weighted median
:math:`\tilde y` and measures its impurity by the sum of absolute deviations

.. math:: D = \sum_i w_i\,|y_i - \tilde y|,

which, unlike sums of :math:`w`, :math:`wy` and :math:`wy^2`, are not sums
of per-sample statistics.  :func:`segment_medians` computes both for many
nodes at once by sorting each node by target (:func:`segment_ranks`); the
children of candidate splits are the sweep's
(:class:`dtree.criteria.AbsoluteError`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["segment_medians", "segment_ranks"]


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
