r"""Impurity criteria for CART, written on *sufficient statistics*.

The sorted sweep of :mod:`dtree.splitting` scores every threshold of a node
at once.  It can do so because each criterion needs only a few sums over the
samples of a node, which are additive: the statistics of a left child are a
prefix sum of per-sample statistics along the sorted feature, and those of the
right child are the node's total minus the left.  A criterion here therefore
consists of

* ``sample_stats`` -- the per-sample statistics, an array of shape
  (n_stats, n_samples) (one contiguous row per statistic);
* ``weight(stats)`` -- the total weight of a node from its statistics;
* ``impurity(stats)`` -- the impurity of a node from its summed statistics;
* ``proxy(left, right)`` -- a score that ranks the splits of one node in the
  same order as the impurity decrease, but is cheaper to compute (the
  constant terms of the node are dropped);
* ``value(...)`` -- what a leaf predicts.

Every function works on the first axis (the statistics), so one call scores
all candidate splits of all nodes of a tree level, for a block of features.  The statistics per criterion:

============== ================================ ===================================
criterion       statistics per sample            impurity of a node (weights w)
============== ================================ ===================================
gini            :math:`w\,e_{y}` (K columns)     :math:`1 - \sum_k (c_k/W)^2`
entropy         :math:`w\,e_{y}` (K columns)     :math:`-\sum_k (c_k/W) \log_2 (c_k/W)`
squared_error   :math:`(w, wy, wy^2)`            :math:`\overline{y^2} - \bar y^2`
poisson         :math:`(w, wy, w\,y\ln y)`       :math:`\frac{1}{W}\sum w\, y \ln(y/\bar y)`
============== ================================ ===================================

(:math:`e_y` is the one-hot vector of the class, :math:`c_k` the weighted
count of class :math:`k` and :math:`W` the total weight.)  The absolute error
is not additive: :class:`AbsoluteError` computes the weighted medians and
absolute deviations of nodes and children with :mod:`dtree.order_statistics`,
and scores the cuts of a block itself (``children_score``, ``node_stats``).
The formulas are those of scikit-learn's ``_criterion.pyx``, so that the two
libraries rank candidate splits identically.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CLASSIFICATION_CRITERIA", "REGRESSION_CRITERIA", "get_criterion"]

# Below this, an impurity counts as zero (scikit-learn's EPSILON).
EPSILON = np.finfo(np.float64).eps


class Gini:
    """Gini impurity on weighted class counts (Breiman et al. 1984, section 4.3)."""

    name = "gini"
    is_classification = True

    @staticmethod
    def sample_stats(y_codes, weight, n_classes):
        stats = np.zeros((n_classes, y_codes.shape[0]))
        stats[y_codes, np.arange(y_codes.shape[0])] = weight
        return stats

    @staticmethod
    def weight(counts):
        return counts.sum(axis=0)

    @staticmethod
    def impurity(counts):
        # 1 - sum_k c_k^2 / W^2 (scikit-learn's order of operations)
        total = counts.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1.0 - np.square(counts).sum(axis=0) / np.square(total)

    @classmethod
    def proxy(cls, left, right):
        # -W_L * i(L) - W_R * i(R): the impurity decrease up to the node's constants.
        score = cls.weighted_impurity(right)
        np.negative(score, out=score)
        score -= cls.weighted_impurity(left)
        return score

    @staticmethod
    def weighted_impurity(counts):
        """W * (1 - sum_k c_k^2 / W^2), the same numbers as ``W * impurity(counts)``."""
        total = counts.sum(axis=0)
        squares = np.square(counts[0])
        for c in counts[1:]:                 # sum_k c_k^2, one class at a time
            squares += c * c
        squares /= total * total
        np.subtract(1.0, squares, out=squares)
        squares *= total
        return squares

    @staticmethod
    def value(counts):
        return counts


class Entropy(Gini):
    """Shannon entropy in bits on weighted class counts (Quinlan 1986)."""

    name = "entropy"

    @classmethod
    def weighted_impurity(cls, counts):
        return counts.sum(axis=0) * cls.impurity(counts)

    @staticmethod
    def impurity(counts):
        # -sum_k p_k log2 p_k with p_k = c_k / W (terms with c_k = 0 are 0)
        total = counts.sum(axis=0)
        result = np.zeros(np.shape(total))
        with np.errstate(divide="ignore", invalid="ignore"):
            for c in counts:  # one class at a time: no (K, ...) temporaries
                p = c / total
                result -= np.where(p > 0, p * np.log2(p), 0.0)
        return result + 0.0


class SquaredError:
    """Weighted variance, the mean squared error of the node mean (Breiman et al. 1984, ch. 8)."""

    name = "squared_error"
    is_classification = False
    n_swept = 2          # the proxy needs only (w, wy)

    @staticmethod
    def sample_stats(y, weight, n_classes=None):
        return np.vstack([weight, weight * y, weight * y * y])

    @staticmethod
    def weight(stats):
        return stats[0]

    @staticmethod
    def impurity(stats):
        w, s, ss = stats[0], stats[1], stats[2]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = s / w
            return ss / w - mean * mean

    @staticmethod
    def proxy(left, right):
        # sum_L^2 / W_L + sum_R^2 / W_R: the decrease of the weighted sum of squares.
        with np.errstate(divide="ignore", invalid="ignore"):
            return left[1] ** 2 / left[0] + right[1] ** 2 / right[0]

    @staticmethod
    def value(stats):
        return stats[1:2] / stats[0:1]


class Poisson(SquaredError):
    """Half Poisson deviance, for non-negative counts (scikit-learn's ``poisson``)."""

    name = "poisson"

    @staticmethod
    def sample_stats(y, weight, n_classes=None):
        with np.errstate(divide="ignore", invalid="ignore"):
            y_log_y = np.where(y > 0, y * np.log(y), 0.0)
        return np.vstack([weight, weight * y, weight * y_log_y])

    @staticmethod
    def impurity(stats):
        # (1/W) sum_i w_i y_i ln(y_i / ybar) = (sum w y ln y - S ln(S/W)) / W
        w, s, sylny = stats[0], stats[1], stats[2]
        with np.errstate(divide="ignore", invalid="ignore"):
            result = (sylny - s * np.log(s / w)) / w
        return np.where(s <= EPSILON, np.inf, result)

    @staticmethod
    def proxy(left, right):
        # -S_L ln(mean_L) - S_R ln(mean_R) ranks like the deviance decrease;
        # children with a non-positive sum are forbidden (-inf).
        s_left, s_right = left[1], right[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (s_left * np.log2(s_left / left[0])
                     + s_right * np.log2(s_right / right[0]))
        return np.where((s_left <= EPSILON) | (s_right <= EPSILON), -np.inf, score)


class AbsoluteError:
    r"""Mean absolute deviation from the weighted median (least absolute deviation).

    The impurity of a node is :math:`\frac{1}{W}\sum_i w_i |y_i - \tilde y|`
    and its value the weighted median :math:`\tilde y` (scikit-learn's
    ``MAE`` criterion: the first value, in increasing order, whose cumulative
    weight reaches :math:`W/2`, or the midpoint of it and the next value if
    the cumulative weight is exactly :math:`W/2`; Breiman et al. 1984, section
    8.11).  The proxy of a split is :math:`-(D_L + D_R)`, minus the children's
    sums of absolute deviations, i.e. :math:`-W_L i(L) - W_R i(R)`; it is
    computed by :meth:`children_score` (there is no ``proxy(left, right)``:
    the children's statistics are never materialised).

    Medians are not sums, so this criterion is not additive: its per-sample
    statistics are (w, y) and a node's statistics (W, median, D)
    come from sorting for nodes (:func:`dtree.order_statistics.segment_medians`)
    and from a wavelet matrix for the children of every candidate split
    (:class:`dtree.order_statistics.RangeDeviations`).
    """

    name = "absolute_error"
    is_classification = False
    additive = False
    block_cells = 1 << 12    # cells of a block of features, scored in one wavelet descent
    QUERY_CHUNK = 1 << 12    # ranges per descent in a longer column: ~150 bytes of memory each
    MAX_DESCENTS = 5         # ... unless that takes more descents (each rebuilds the levels)

    @staticmethod
    def sample_stats(y, weight, n_classes=None):
        return np.vstack([weight, y])

    @staticmethod
    def weight(stats):
        return stats[0]

    @staticmethod
    def impurity(stats):
        with np.errstate(divide="ignore", invalid="ignore"):
            return stats[2] / stats[0]

    @staticmethod
    def value(stats):
        return stats[1:2]

    @staticmethod
    def node_stats(stats, samples, starts):
        """(W, median, D) of each segment ``samples[starts[j]:starts[j+1]]``, shape (3, n_segments)."""
        from dtree.order_statistics import segment_medians

        return segment_medians(stats[1, samples], stats[0, samples], starts)

    @staticmethod
    def children_score(stats, O, starts, sizes, cand, min_weight_leaf=0.0):
        """The proxy :math:`-(D_L + D_R)` at every candidate cut, -inf elsewhere, shape (b, m).

        Row ``i`` of ``O`` holds the segments in the order of one feature; the
        cut after position ``p`` of a segment makes ``[start, p]`` the left and
        ``(p, end)`` the right child.  A cut leaving a child lighter than
        ``min_weight_leaf`` is no candidate.

        A block of at most ``block_cells`` cells is scored in one wavelet
        descent.  A longer block (one feature's column of a large level) is
        scored in descents over ``QUERY_CHUNK // 2`` positions at a time (two
        ranges per cut), or over a fifth of it (``MAX_DESCENTS``) if that is
        more: each descent rebuilds the column's wavelet levels, O(m log m), so
        their number stays bounded, while the ranges' working memory stays a
        fraction of the O(m) tables the column needs anyway.
        """
        from dtree.order_statistics import RangeDeviations, segment_ranks

        b, m = O.shape
        # Every row holds the same samples per segment: rank their targets
        # within the segment once (fewer wavelet levels than global ranks).
        by_y, local = segment_ranks(stats[1, O[0]], starts, sizes)
        rank_of = np.empty(stats.shape[1], dtype=np.int32)
        rank_of[O[0]] = local
        unit = bool(np.all(stats[0, O[0]] == 1.0))        # no sample_weight: counts
        deviations = RangeDeviations(rank_of[O], None if unit else stats[0, O], stats[1, O],
                                     None if unit else stats[0, O[0, by_y]],
                                     stats[1, O[0, by_y]])
        del rank_of, by_y, local

        score = np.full(b * m, -np.inf)
        # Positions per descent (see the docstring).
        if b * m <= AbsoluteError.block_cells:
            step = b * m
        else:
            step = max(AbsoluteError.QUERY_CHUNK // 2, -(-b * m // AbsoluteError.MAX_DESCENTS))
        flat_cand = cand.ravel()
        # A long column's ranges hold int32 positions (half the memory); a
        # small block's hold intp (NumPy gathers faster with native indices).
        long_column = b * m > AbsoluteError.block_cells and b * (m + 1) < 2**31
        index = np.int32 if long_column else np.intp
        starts_i, sizes_i = starts.astype(index), sizes.astype(index)
        for lo in range(0, flat_cand.size, step):
            idx = np.flatnonzero(flat_cand[lo:lo + step]) + lo    # flat positions in (b, m)
            if not idx.size:
                continue
            row, p = np.divmod(idx.astype(index), index(m))
            seg = np.searchsorted(starts_i, p, side="right") - 1
            start = starts_i[seg]
            # Left child [start, p], right child (p, end) of the cut after p.
            W, D = deviations(np.tile(row, 2), np.concatenate([start, p + 1]),
                              np.concatenate([p + 1, start + sizes_i[seg]]), np.tile(start, 2))
            k = idx.size
            ok = (W[:k] >= min_weight_leaf) & (W[k:] >= min_weight_leaf)
            score[idx] = np.where(ok, -(D[:k] + D[k:]), -np.inf)
        return score.reshape(b, m)


CLASSIFICATION_CRITERIA = {"gini": Gini, "entropy": Entropy, "log_loss": Entropy}
REGRESSION_CRITERIA = {"squared_error": SquaredError, "absolute_error": AbsoluteError,
                       "poisson": Poisson}


def get_criterion(name, *, classification: bool):
    """The criterion class for ``name``; raises ``InvalidParameterError`` for an unknown name."""
    from dtree.exceptions import InvalidParameterError

    table = CLASSIFICATION_CRITERIA if classification else REGRESSION_CRITERIA
    if not isinstance(name, str) or name not in table:
        raise InvalidParameterError(
            f"criterion must be one of {sorted(table)}, got {name!r}"
        )
    return table[name]
