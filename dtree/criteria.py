r"""Impurity criteria for CART, written on *sufficient statistics*.

The sorted sweep of :mod:`dtree.splitting` scores every threshold of a node
at once.  It can do so because each criterion needs only a few sums over the
samples of a node, which are additive: the statistics of a left child are a
prefix sum of per-sample statistics along the sorted feature, and those of the
right child are the node's total minus the left.  A criterion here therefore
consists of

* ``sample_stats`` -- the per-sample statistics, an array of shape
  (n_samples, n_stats);
* ``impurity(stats)`` -- the impurity of a node from its summed statistics;
* ``proxy(left, right)`` -- a score that ranks the splits of one node in the
  same order as the impurity decrease, but is cheaper to compute (the
  constant terms of the node are dropped);
* ``value(...)`` -- what a leaf predicts.

Every function works on the last axis, so one call scores all candidate
splits of all nodes of a tree level.  The statistics per criterion:

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
is not additive; it is scored by :func:`dtree.splitting` with a median sweep.
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
        stats = np.zeros((y_codes.shape[0], n_classes))
        stats[np.arange(y_codes.shape[0]), y_codes] = weight
        return stats

    @staticmethod
    def impurity(counts):
        total = counts.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1.0 - np.square(counts).sum(axis=-1) / np.square(total)

    @classmethod
    def proxy(cls, left, right):
        # -W_L * i(L) - W_R * i(R): the impurity decrease up to the node's constants.
        w_left, w_right = left.sum(axis=-1), right.sum(axis=-1)
        return -w_left * cls.impurity(left) - w_right * cls.impurity(right)

    @staticmethod
    def value(counts):
        return counts


class Entropy(Gini):
    """Shannon entropy in bits on weighted class counts (Quinlan 1986)."""

    name = "entropy"

    @staticmethod
    def impurity(counts):
        total = counts.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = counts / total
            terms = np.where(p > 0, p * np.log2(p), 0.0)
        return -terms.sum(axis=-1) + 0.0


class SquaredError:
    """Weighted variance, the mean squared error of the node mean (Breiman et al. 1984, ch. 8)."""

    name = "squared_error"
    is_classification = False

    @staticmethod
    def sample_stats(y, weight, n_classes=None):
        return np.column_stack([weight, weight * y, weight * y * y])

    @staticmethod
    def impurity(stats):
        w, s, ss = stats[..., 0], stats[..., 1], stats[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = s / w
            return ss / w - mean * mean

    @staticmethod
    def proxy(left, right):
        # sum_L^2 / W_L + sum_R^2 / W_R: the decrease of the weighted sum of squares.
        with np.errstate(divide="ignore", invalid="ignore"):
            return left[..., 1] ** 2 / left[..., 0] + right[..., 1] ** 2 / right[..., 0]

    @staticmethod
    def value(stats):
        return stats[..., 1:2] / stats[..., 0:1]


class Poisson(SquaredError):
    """Half Poisson deviance, for non-negative counts (scikit-learn's ``poisson``)."""

    name = "poisson"

    @staticmethod
    def sample_stats(y, weight, n_classes=None):
        with np.errstate(divide="ignore", invalid="ignore"):
            y_log_y = np.where(y > 0, y * np.log(y), 0.0)
        return np.column_stack([weight, weight * y, weight * y_log_y])

    @staticmethod
    def impurity(stats):
        # (1/W) sum_i w_i y_i ln(y_i / ybar) = (sum w y ln y - S ln(S/W)) / W
        w, s, sylny = stats[..., 0], stats[..., 1], stats[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            result = (sylny - s * np.log(s / w)) / w
        return np.where(s <= EPSILON, np.inf, result)

    @staticmethod
    def proxy(left, right):
        # -S_L ln(mean_L) - S_R ln(mean_R) ranks like the deviance decrease;
        # children with a non-positive sum are forbidden (-inf).
        s_left, s_right = left[..., 1], right[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (s_left * np.log2(s_left / left[..., 0])
                     + s_right * np.log2(s_right / right[..., 0]))
        return np.where((s_left <= EPSILON) | (s_right <= EPSILON), -np.inf, score)


class AbsoluteError:
    """Mean absolute deviation from the weighted median (least absolute deviation)."""

    name = "absolute_error"
    is_classification = False


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
