r"""Scoring the split of one node of a multiway tree, as ID3 and C4.5 do.

The functions here are pure: given the rows that reach one node (their values
of one feature, class codes and weights), they return the score of the best
test on that feature, a :class:`SplitCandidate`, or ``None`` when the feature
cannot split the node.  Growing a tree (choosing among the features, sending
rows down the branches, stopping, pruning) is the estimators' business:
:class:`dtree.ID3Classifier` (``dtree.id3``) scores each feature with
:func:`nominal_split`, :class:`dtree.C45Classifier` (``dtree.c45``) with
:func:`nominal_split` or :func:`threshold_split`.

* :func:`nominal_split`: the multiway split on a nominal feature, one branch
  per category; its information gain :math:`\operatorname{Gain}(D, A) =
  H(D) - \sum_v \frac{W_v}{W} H(D_v)` and split information (bits), with
  C4.5's treatment of missing values (the gain is computed on the known rows
  and scaled by their weight fraction :math:`1 - \gamma`; the missing rows
  count as one more branch of the split information).
* :func:`threshold_split`: the best binary cut ``x <= t`` of a numeric
  feature, found with one sorted sweep of cumulative class weights, with the
  options of C4.5 Release 8 (the minimum weight each side, the threshold
  penalty, the minimum gap between values).

Counts are sums of weights throughout, so a row can carry a fractional
weight (C4.5 sends a row with a missing value down every branch).

References
----------
J. R. Quinlan, "Induction of Decision Trees", *Machine Learning* 1 (1986),
81-106 (the gain criterion of ID3).
J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann (1993),
ch. 2 (gain ratio, thresholds) and 3 (unknown values).
J. R. Quinlan, "Improved use of continuous attributes in C4.5", *Journal of
Artificial Intelligence Research* 4 (1996), 77-90 (the threshold penalty).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtree._helpers import _class_weights, _entropy_of_counts

__all__ = ["SplitCandidate", "nominal_split", "threshold_split", "threshold_splits"]

# Scores that differ by less than this are ties (the same counts summed in a
# different order can differ in the last bits).  Ties go to the lower feature
# index, then to the lower threshold.
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class SplitCandidate:
    """The best test on one feature at one node, as C4.5 scores it.

    Attributes
    ----------
    gain : float
        Information gain in bits, scaled by the known fraction:
        :math:`(1 - \\gamma)\\,(H(D_{known}) - \\sum_v \\frac{W_v}{W_{known}} H(D_v))`.
        For a numeric feature scored with Release 8's threshold penalty
        (``penalty=True`` in :func:`threshold_split`, ``threshold_penalty=True``
        in :class:`~dtree.C45Classifier`) it is the gain so reduced by the penalty.
    split_information : float
        Entropy in bits of the branch weights, with the rows whose value is
        missing counted as one more branch.
    threshold : float or None
        The cut ``x <= threshold`` of a numeric feature; ``None`` for a
        nominal one.
    """

    gain: float
    split_information: float
    threshold: float | None = None

    @property
    def gain_ratio(self) -> float:
        """Gain / split information (``nan`` when the split information is 0)."""
        if self.split_information <= TIE_TOLERANCE:
            return float("nan")
        return self.gain / self.split_information


def nominal_split(codes, y, w, n_categories, n_classes, min_samples_leaf=2.0):
    r"""Score the multiway split on a nominal feature, C4.5's way.

    Parameters
    ----------
    codes : ndarray of shape (n_rows,)
        Category codes ``0 .. n_categories - 1`` of the node's rows; ``-1``
        marks a missing value.
    y : ndarray of shape (n_rows,)
        Class codes ``0 .. n_classes - 1``.
    w : ndarray of shape (n_rows,)
        The rows' (possibly fractional) weights at this node.
    n_categories, n_classes : int
        Numbers of categories and classes.
    min_samples_leaf : float, default=2.0
        C4.5's minimum number of cases: at least two branches must carry this
        much known weight.

    Returns
    -------
    SplitCandidate or None
        ``None`` when fewer than two branches reach ``min_samples_leaf``.

    Examples
    --------
    Outlook on the 14-day weather data: gain 0.247 bits, split information
    1.577 bits, gain ratio 0.156.

    >>> import numpy as np
    >>> outlook = np.array([0, 0, 1, 2, 2, 2, 1, 0, 0, 2, 0, 1, 1, 2])  # sunny overcast rainy
    >>> play = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0])
    >>> s = nominal_split(outlook, play, np.ones(14), 3, 2)
    >>> round(s.gain, 3), round(s.split_information, 3), round(s.gain_ratio, 3)
    (0.247, 1.577, 0.156)
    """
    known = codes >= 0
    table = np.bincount(codes[known] * n_classes + y[known], weights=w[known],
                        minlength=n_categories * n_classes).reshape(n_categories, n_classes)
    branch = table.sum(axis=1)
    if np.count_nonzero((branch > 0) & (branch >= min_samples_leaf - TIE_TOLERANCE)) < 2:
        return None
    known_weight, total = branch.sum(), w.sum()
    # H(D_known) - sum_v W_v / W_known H(D_v), scaled by 1 - gamma = W_known / W
    children = np.dot(branch, _entropy_of_counts(table)) / known_weight
    gain = known_weight / total * (float(_entropy_of_counts(table.sum(axis=0))) - children)
    gain = max(gain, 0.0)  # a gain is >= 0; rounding can leave -1e-16 where it is 0
    split_info = float(_entropy_of_counts(np.append(branch, total - known_weight)))
    return SplitCandidate(float(gain), split_info)


def threshold_split(x, y, w, n_classes, min_samples_leaf=2.0, all_values=None, *,
                    min_split="min_samples_leaf", penalty=False, min_value_gap=0.0):
    r"""Score the best binary cut ``x <= t`` of a numeric feature, C4.5's way.

    The rows with a known value are sorted once; cumulative class weights give
    the class counts left of every cut between two distinct adjacent values
    (the sorted sweep), and the cut of largest gain wins (ties: the lowest).
    Both sides must carry at least ``min_samples_leaf`` known weight.

    Parameters
    ----------
    x : ndarray of shape (n_rows,)
        The feature's values at the node; ``nan`` marks a missing value.
    y, w, n_classes, min_samples_leaf
        As in :func:`nominal_split`.
    all_values : ndarray or None, default=None
        Sorted distinct values of the feature in the whole training set.  If
        given, the threshold is C4.5's: the largest of these values not above
        the midpoint; otherwise the midpoint of the two values either side of
        the cut.
    min_split : {"min_samples_leaf", "release8"}, default="min_samples_leaf"
        The known weight each side of a cut must carry: ``min_samples_leaf``,
        or (Release 8, ``contin.c``) :math:`\max(m, \min(25, 0.1\,W_{known} / K))`
        with :math:`m` = ``min_samples_leaf`` and :math:`K` = ``n_classes``,
        and no cut at all when :math:`W_{known} < 2m`.
    penalty : bool, default=False
        Release 8's threshold penalty (Quinlan 1996): every cut's gain is
        reduced by :math:`\log_2(\text{number of admissible cuts}) / W`,
        :math:`W` the node's total weight (unknown values included), the best
        cut is the one of largest reduced gain, and the feature is no
        candidate unless that gain is positive.  The candidate's ``gain`` is
        the reduced one.
    min_value_gap : float, default=0.0
        No cut between two values closer than this (Release 8: ``1e-5``).

    Returns
    -------
    SplitCandidate or None
        ``None`` when no cut leaves the minimum weight on both sides, or no
        cut has positive gain (a test that separates nothing is no test).

    Examples
    --------
    Humidity on the five sunny days of the weather data: the cut between 70
    and 85 separates the classes.

    >>> import numpy as np
    >>> humidity = np.array([85.0, 90.0, 70.0, 95.0, 70.0])
    >>> play = np.array([0, 0, 1, 0, 1])
    >>> s = threshold_split(humidity, play, np.ones(5), 2)
    >>> s.threshold, round(s.gain, 3)
    (77.5, 0.971)
    """
    known = ~np.isnan(x)
    order = np.argsort(x[known], kind="stable")
    xs, ys, ws = x[known][order], y[known][order], w[known][order]
    if xs.size < 2:
        return None
    # Weights left and right of every cut and W_L H(L) + W_R H(R), from the
    # cumulative class weights (the sorted sweep)
    known_counts = _class_weights(ys, ws, n_classes)
    w_left, w_right, children = _sweep_cuts(ys, ws, known_counts)
    known_weight, total = known_counts.sum(), w.sum()
    least = min_samples_leaf
    if min_split == "release8":  # contin.c: at least 10 % of the known cases per class, at most 25
        if known_weight < 2 * min_samples_leaf - TIE_TOLERANCE:
            return None
        least = max(min_samples_leaf, min(25.0, 0.1 * known_weight / n_classes))
    valid = ((xs[:-1] < xs[1:] - min_value_gap) & (w_left >= least - TIE_TOLERANCE)
             & (w_right >= least - TIE_TOLERANCE) & (w_left > 0) & (w_right > 0))
    if not valid.any():
        return None
    gains = float(_entropy_of_counts(known_counts)) - children / known_weight
    if penalty:  # Quinlan (1996): log2(cuts tried) / W, before the scaling by W_known / W below
        gains = gains - np.log2(np.count_nonzero(valid)) / known_weight
    gains = np.where(valid, gains, -np.inf)
    if not gains.max() > TIE_TOLERANCE:
        return None
    cut = int(np.flatnonzero(gains >= gains.max() - TIE_TOLERANCE)[0])
    return _candidate_at(xs, cut, all_values, w_left[cut], w_right[cut], known_weight, total,
                         gains[cut])


def _candidate_at(xs, cut, all_values, w_left, w_right, known_weight, total, gain):
    """The SplitCandidate of the cut after sorted position ``cut`` of a column.

    ``xs`` holds the column's known values in increasing order, ``w_left`` and
    ``w_right`` the known weight either side of the cut, ``gain`` its gain on
    the known rows (before the scaling by ``known_weight / total``).
    """
    threshold = xs[cut] / 2.0 + xs[cut + 1] / 2.0   # no overflow near the float maximum
    if not threshold < xs[cut + 1]:
        # Adjacent floats (or integers near 2**53): the midpoint rounds onto the
        # upper value and would send every row left; take the lower value, as
        # scikit-learn does.
        threshold = xs[cut]
    if all_values is not None:
        threshold = all_values[np.searchsorted(all_values, threshold, side="right") - 1]
        threshold = max(threshold, xs[cut])  # never below the value left of the cut
    split_info = float(_entropy_of_counts(np.array([w_left, w_right, total - known_weight])))
    gain = max(known_weight / total * gain, 0.0)  # >= 0 up to rounding
    return SplitCandidate(float(gain), split_info, float(threshold))


# Cells (cuts x classes) of the class-weight tables that _sweep_cuts builds at a
# time: each table takes at most 2 MiB, however many classes there are.
SWEEP_CELLS = 1 << 18


def threshold_splits(X, y, w, n_classes, min_samples_leaf=2.0, all_values=None, *,
                     min_split="min_samples_leaf", penalty=False, min_value_gap=0.0):
    """:func:`threshold_split` of every column of ``X``, several columns at a time.

    Each column's result is the one :func:`threshold_split` returns for it,
    float for float (``tests/test_theorems_c45.py`` holds them equal): the
    columns of a block are sorted together and their cumulative class
    weights form one table of shape (n_columns, n_rows, n_classes), so a
    node of C4.5 costs a few NumPy calls per block of features, not per
    feature.  A block's table has at most SWEEP_CELLS cells; a column whose
    table alone would fill half of that is scored by :func:`threshold_split`.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_columns)
        The numeric features' values at the node; ``nan`` marks a missing value.
    y, w, n_classes, min_samples_leaf, min_split, penalty, min_value_gap
        As in :func:`threshold_split`.
    all_values : sequence of n_columns ndarrays, or None, default=None
        Each column's ``all_values`` (see :func:`threshold_split`).

    Returns
    -------
    list of (SplitCandidate or None), one per column of ``X``

    Examples
    --------
    Humidity and a second, weaker feature on the five sunny days of the
    weather data (the first as in :func:`threshold_split`):

    >>> import numpy as np
    >>> X = np.array([[85.0, 1.0], [90.0, 2.0], [70.0, 1.0], [95.0, 2.0], [70.0, 2.0]])
    >>> play = np.array([0, 0, 1, 0, 1])
    >>> [(s.threshold, round(s.gain, 3)) for s in threshold_splits(X, play, np.ones(5), 2)]
    [(77.5, 0.971), (1.5, 0.02)]
    """
    n, d = X.shape
    if n < 2:                     # no cut: fewer than two known values anywhere
        return [None] * d
    options = {"min_split": min_split, "penalty": penalty, "min_value_gap": min_value_gap}
    if one_column_at_a_time(n, n_classes) or d == 1:
        return [threshold_split(X[:, j], y, w, n_classes, min_samples_leaf,
                                None if all_values is None else all_values[j], **options)
                for j in range(d)]
    total = w.sum()
    step = max(1, SWEEP_CELLS // (n * n_classes))
    out = []
    for lo in range(0, d, step):
        out += _threshold_block(X[:, lo:lo + step], y, w, total, n_classes, min_samples_leaf,
                                None if all_values is None else all_values[lo:lo + step],
                                **options)
    return out


def one_column_at_a_time(n_rows, n_classes) -> bool:
    """Whether :func:`threshold_splits` scores the columns of a node of
    ``n_rows`` rows one at a time: a single column's table would fill half of
    SWEEP_CELLS (C4.5's grower then reads the node's columns one by one)."""
    return 2 * n_rows * n_classes > SWEEP_CELLS


def _threshold_block(X, y, w, total, n_classes, min_samples_leaf, all_values, *, min_split,
                     penalty, min_value_gap):
    """:func:`threshold_splits` of the columns of ``X`` (b of them) in one table."""
    n, b = X.shape
    # Each column sorted with its missing values last: its known rows come
    # first, in the order of a stable sort of the known values alone.
    order = np.argsort(X, axis=0, kind="stable")
    xs = np.take_along_axis(X, order, axis=0).T                   # (b, n)
    n_known = np.count_nonzero(~np.isnan(X), axis=0)              # (b,)
    known = np.arange(n) < n_known[:, None]                       # (b, n)
    onehot = np.zeros((b, n, n_classes))        # weight of each known row in its class
    onehot[np.arange(b)[:, None], np.arange(n), y[order].T] = np.where(known, w[order].T, 0.0)
    left = np.cumsum(onehot, axis=1)            # class weights of positions 0 .. i
    del onehot
    # After the last row: each class's known weights summed in sorted order
    # (the floats of _class_weights; the missing rows add 0.0).
    known_counts = left[:, -1]                                     # (b, K)
    left = left[:, :-1]                         # the cut after position i, i < n - 1
    right = known_counts[:, None, :] - left
    w_left, w_right = left.sum(axis=2), right.sum(axis=2)        # (b, n - 1)
    with np.errstate(invalid="ignore"):         # cuts past the known rows (masked below)
        children = w_left * _entropy_of_counts(left) + w_right * _entropy_of_counts(right)
    del left, right
    known_weight = known_counts.sum(axis=1)                        # (b,)
    least = np.full(b, float(min_samples_leaf))
    ok = n_known >= 2
    if min_split == "release8":  # contin.c, as in threshold_split
        ok &= ~(known_weight < 2 * min_samples_leaf - TIE_TOLERANCE)
        least = np.maximum(min_samples_leaf, np.minimum(25.0, 0.1 * known_weight / n_classes))
    with np.errstate(invalid="ignore"):         # NaN past the known rows: no cut there
        valid = ((xs[:, :-1] < xs[:, 1:] - min_value_gap)
                 & (w_left >= least[:, None] - TIE_TOLERANCE)
                 & (w_right >= least[:, None] - TIE_TOLERANCE) & (w_left > 0) & (w_right > 0))
    ok &= valid.any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):   # columns not ok: not read
        gains = _entropy_of_counts(known_counts)[:, None] - children / known_weight[:, None]
        if penalty:
            gains = gains - (np.log2(np.count_nonzero(valid, axis=1)) / known_weight)[:, None]
    gains = np.where(valid, gains, -np.inf)
    best = gains.max(axis=1)
    ok &= best > TIE_TOLERANCE
    cuts = np.argmax(gains >= (best - TIE_TOLERANCE)[:, None], axis=1)
    out = []
    for j in range(b):
        if not ok[j]:
            out.append(None)
            continue
        cut = int(cuts[j])
        out.append(_candidate_at(xs[j], cut, None if all_values is None else all_values[j],
                                 w_left[j, cut], w_right[j, cut], known_weight[j], total,
                                 gains[j, cut]))
    return out


def _sweep_cuts(ys, ws, known_counts):
    """Weights and entropies either side of every cut of a sorted node.

    The cut after position ``i`` of the rows sorted by the feature leaves
    ``left[i]``, the class weights of rows ``0 .. i``, on the left and
    ``known_counts - left[i]`` on the right.  The tables ``left`` and ``right``
    of shape (n_rows - 1, n_classes) are built for a block of at most
    SWEEP_CELLS cells at a time, the cumulative sum carried from one block to
    the next (the same floats as one cumulative sum over all rows).

    Parameters
    ----------
    ys, ws : ndarray of shape (n_rows,)
        Class codes and weights of the rows, in increasing order of the feature.
    known_counts : ndarray of shape (n_classes,)
        Class weights of all the rows (``left`` after the last row).

    Returns
    -------
    w_left, w_right : ndarray of shape (n_rows - 1,)
        Total weight left and right of each cut.
    children : ndarray of shape (n_rows - 1,)
        :math:`W_L H(L) + W_R H(R)` (bits) at each cut.
    """
    n_cuts, n_classes = ys.size - 1, known_counts.size
    w_left, w_right, children = np.empty(n_cuts), np.empty(n_cuts), np.empty(n_cuts)
    carry = np.zeros(n_classes)            # class weights of the rows before the block
    step = max(1, SWEEP_CELLS // n_classes)
    for lo in range(0, n_cuts, step):
        hi = min(lo + step, n_cuts)
        onehot = np.zeros((hi - lo, n_classes))     # row i: weight of row lo + i in its class
        onehot[np.arange(hi - lo), ys[lo:hi]] = ws[lo:hi]
        onehot[0] += carry
        left = np.cumsum(onehot, axis=0)            # class weights of rows 0 .. lo + i
        del onehot
        carry = left[-1].copy()
        right = known_counts - left
        w_left[lo:hi], w_right[lo:hi] = left.sum(axis=1), right.sum(axis=1)
        children[lo:hi] = (w_left[lo:hi] * _entropy_of_counts(left)
                           + w_right[lo:hi] * _entropy_of_counts(right))
    return w_left, w_right, children
