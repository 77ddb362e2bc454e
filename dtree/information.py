r"""Information measures and impurities: the mathematics of choosing a split.

Every function here is a pure function of a distribution or a contingency
table; the estimators only call them.  Two families:

* **from a distribution or a table** -- ``entropy(pk)``, ``gini(pk)``,
  ``information_gain(table)`` ... where ``pk`` holds class counts or
  probabilities and ``table[v, k]`` is the count (or joint probability) of
  feature value :math:`a_v` with class :math:`c_k`: rows are the branches of a
  split, columns the classes, exactly what ``pandas.crosstab(x, y)`` returns.
* **from columns of labels** -- ``entropy_from_labels(y)``,
  ``information_gain_from_labels(x, y)`` ... which count the table first
  (with optional sample weights) and then call the function above.

Counts or probabilities?  If every entry is a whole number the input is taken
as counts and divided by its total; otherwise it must already sum to 1.
Logarithms are to base 2 by default, so entropies and gains are in **bits**;
pass ``base=np.e`` for nats.  By the convention :math:`0 \log 0 = 0` (the limit
of :math:`p \log p` as :math:`p \to 0^+`) empty classes contribute nothing.

Notation (the book's): a node holds the sample set :math:`D`; the class
:math:`Y` takes values :math:`c_1, \dots, c_K` with proportions :math:`p_k`; a
feature :math:`A` takes values :math:`a_1, \dots, a_V` and splits :math:`D`
into :math:`D_1, \dots, D_V`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dtree._helpers import _class_weights, _entropy_of_counts
from dtree._validation import (
    as_distribution,
    as_float_array,
    as_labels,
    check_base,
    check_sample_weight,
    encode,
)

__all__ = [
    "self_information",
    "entropy",
    "joint_entropy",
    "conditional_entropy",
    "information_gain",
    "split_information",
    "gain_ratio",
    "kl_divergence",
    "gini",
    "misclassification_error",
    "second_order_impurity",
    "impurity_decrease",
    "contingency_table",
    "entropy_from_labels",
    "gini_from_labels",
    "misclassification_error_from_labels",
    "conditional_entropy_from_labels",
    "information_gain_from_labels",
    "split_information_from_labels",
    "gain_ratio_from_labels",
    "weighted_median",
    "squared_error",
    "absolute_error",
    "gain_with_missing_values",
]


# ---------------------------------------------------------------------------
# Vectorised kernels on already-validated, non-negative counts.  They work on
# the last axis, so one call scores many nodes or many candidate splits.
# ---------------------------------------------------------------------------

# CART's dtree.criteria.Entropy.impurity computes the same entropy on the
# first axis in scikit-learn's order of operations (log2, classes summed in
# sequence); this one is ID3's and C4.5's.  Each keeps its rounding so that
# neither family's trees nor the book's numbers change;
# tests/test_criteria.py checks that the two agree to 1e-12.
def _conditional_entropy_of_table(table: np.ndarray, base: float = 2.0) -> float:
    """H(Y|A) = sum_v |D_v|/|D| H(D_v): weighted entropy of the rows (eq. conditional entropy)."""
    row_totals = table.sum(axis=1)
    return float(np.dot(row_totals / row_totals.sum(), _entropy_of_counts(table, base)))


# The same impurity as dtree.criteria.Gini.impurity (1 - sum_k c_k^2 / W^2,
# scikit-learn's order, on the first axis), rounded differently: both are
# kept so that neither CART's trees nor the numbers the book prints change;
# tests/test_criteria.py checks that they agree to 1e-12.
def _gini_of_counts(counts: np.ndarray) -> np.ndarray:
    """Gini = 1 - sum_k p_k^2 along the last axis."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / total, 0.0)
    return 1.0 - np.square(p).sum(axis=-1)


# ---------------------------------------------------------------------------
# From a distribution or a contingency table
# ---------------------------------------------------------------------------

def self_information(p, *, base=2):
    r"""Self-information (surprisal) of an event of probability ``p``.

    .. math:: I(p) = -\log_b p, \qquad 0 < p \le 1,

    with :math:`I(0) = +\infty`.  It is, up to the choice of unit, the only
    differentiable function of the probability that is decreasing, zero for a
    sure event and additive over independent events (the book's chapter
    "Information").

    Parameters
    ----------
    p : float or array_like of float
        Probabilities in :math:`[0, 1]`, any shape.
    base : float, default=2
        Base :math:`b` of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float or ndarray
        :math:`-\log_b p` in bits (``base=2``), a float for a scalar ``p``
        and an array of the same shape otherwise; ``inf`` where ``p == 0``.

    Raises
    ------
    ValueError
        If a probability lies outside :math:`[0, 1]` or is NaN, or ``base`` is
        not a positive number other than 1.

    References
    ----------
    C. E. Shannon, "A Mathematical Theory of Communication", *Bell System
    Technical Journal* 27 (1948), section 6.

    Examples
    --------
    An event of probability 1/4 is one of four equally likely outcomes, which
    a binary code names with 2 bits; 1/8 needs 3 bits:

    >>> self_information(1 / 4), self_information(1 / 8)
    (2.0, 3.0)
    >>> self_information(1.0)
    0.0
    >>> import numpy as np
    >>> np.isclose(self_information(0.5, base=np.e), np.log(2))
    np.True_
    """
    base = check_base(base)
    array = np.asarray(p, dtype=float)
    if np.any(np.isnan(array)) or np.any((array < 0) | (array > 1)):
        raise ValueError(f"p must hold probabilities in [0, 1], got {p!r}")
    with np.errstate(divide="ignore"):
        result = -np.log(array) / np.log(base)
    result = result + 0.0  # turn -0.0 (for p = 1) into 0.0
    return float(result) if result.ndim == 0 else result


def entropy(pk, *, base=2):
    r"""Shannon entropy of a discrete distribution.

    .. math:: H(Y) = -\sum_{k=1}^{K} p_k \log_b p_k, \qquad 0 \log 0 = 0.

    It is the expected self-information, :math:`H(Y) = \mathbb{E}[-\log_b
    p(Y)]`, and satisfies :math:`0 \le H(Y) \le \log_b K`, with 0 exactly for
    a one-point distribution and :math:`\log_b K` exactly for the uniform one.

    Parameters
    ----------
    pk : array_like of shape (n_classes,)
        Class counts (whole numbers, divided by their total) or probabilities
        (summing to 1).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The entropy, in bits for ``base=2``.

    Raises
    ------
    ValueError
        If ``pk`` is empty, not 1-D, has a negative, NaN or infinite entry,
        sums to 0, or holds non-integer values that do not sum to 1.
    TypeError
        If ``pk`` does not hold numbers.

    See Also
    --------
    entropy_from_labels : the same from a column of class labels.
    scipy.stats.entropy : normalises any non-negative input.

    References
    ----------
    C. E. Shannon (1948), section 6; T. M. Cover and J. A. Thomas, *Elements
    of Information Theory*, 2nd ed., Wiley 2006, eq. (2.1) and Theorem 2.6.4.

    Examples
    --------
    Quinlan's weather data has 9 days of "play" and 5 of "don't play":

    >>> round(entropy([9, 5]), 3)
    0.94

    The four animals are four classes of one sample each: :math:`\log_2 4`.

    >>> entropy([1, 1, 1, 1])
    2.0
    >>> entropy([0.5, 0.5]), entropy([7, 0])
    (1.0, 0.0)

    The same measure in nats is the bits value times :math:`\ln 2`:

    >>> import numpy as np
    >>> bool(np.isclose(entropy([9, 5], base=np.e), entropy([9, 5]) * np.log(2)))
    True
    """
    base = check_base(base)
    p = as_distribution(pk, "pk")
    return float(_entropy_of_counts(p, base))


def joint_entropy(table, *, base=2):
    r"""Joint entropy :math:`H(A, Y)` of the cells of a contingency table.

    .. math:: H(A, Y) = -\sum_{v=1}^{V} \sum_{k=1}^{K} p(a_v, c_k) \log_b p(a_v, c_k).

    Parameters
    ----------
    table : array_like of shape (n_values, n_classes)
        Counts (whole numbers) or joint probabilities (summing to 1);
        ``table[v, k]`` belongs to feature value :math:`a_v` and class
        :math:`c_k`.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        :math:`H(A, Y)`, in bits for ``base=2``.

    Raises
    ------
    ValueError
        As for :func:`entropy`, and if ``table`` is not 2-D.

    References
    ----------
    Cover and Thomas (2006), eq. (2.8).

    Examples
    --------
    >>> joint_entropy([[1, 1], [1, 1]])
    2.0
    >>> t = [[2, 3], [4, 0], [3, 2]]
    >>> bool(np.isclose(joint_entropy(t), entropy([5, 4, 5]) + conditional_entropy(t)))
    True
    """
    base = check_base(base)
    p = as_distribution(table, "table", ndim=(2,))
    return float(_entropy_of_counts(p.ravel(), base))


def conditional_entropy(table, *, base=2):
    r"""Conditional entropy :math:`H(Y \mid A)` of the class given a feature.

    .. math::

        H(Y \mid A) = \sum_{v=1}^{V} p(a_v)\, H(Y \mid A = a_v)
                    = \sum_{v=1}^{V} \frac{|D_v|}{|D|} H(D_v).

    Empty rows (values with no samples) have weight 0 and contribute nothing.

    Parameters
    ----------
    table : array_like of shape (n_values, n_classes)
        Counts (whole numbers) or joint probabilities (summing to 1);
        rows are feature values (the branches), columns are classes, as in
        ``pandas.crosstab(x, y)``.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        :math:`H(Y \mid A)`, in bits for ``base=2``.

    Raises
    ------
    ValueError
        If ``table`` is not 2-D, is empty, has a negative, NaN or infinite
        entry, sums to 0, or holds non-integer values not summing to 1.

    References
    ----------
    Cover and Thomas (2006), eq. (2.10); J. R. Quinlan, "Induction of
    Decision Trees", *Machine Learning* 1 (1986), 81-106, section 4.

    Examples
    --------
    The weather data split by outlook (rows sunny, overcast, rainy; columns
    don't play, play):

    >>> round(conditional_entropy([[3, 2], [0, 4], [2, 3]]), 3)
    0.694
    """
    base = check_base(base)
    p = as_distribution(table, "table", ndim=(2,))
    return _conditional_entropy_of_table(p, base)


def information_gain(table, *, base=2):
    r"""Information gain of splitting on a feature (Quinlan's ID3 criterion).

    .. math::

        \operatorname{Gain}(D, A) = H(Y) - H(Y \mid A)
            = \sum_{v,k} p(a_v, c_k) \log_b \frac{p(a_v, c_k)}{p(a_v)\,p(c_k)},

    the mutual information of :math:`A` and :math:`Y`: the Kullback-Leibler
    divergence of the joint distribution from the product of its marginals.
    It is :math:`\ge 0`, with equality exactly when the table's rows are
    proportional (feature and class independent in the table), and at most
    :math:`\min(H(Y), H(A))`.  Computed as a difference of entropies, it can
    fall below 0 by a rounding error of order 1e-16.

    Parameters
    ----------
    table : array_like of shape (n_values, n_classes)
        Counts (whole numbers) or joint probabilities (summing to 1);
        rows are feature values (the branches), columns are classes.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The gain, in bits for ``base=2``.

    Raises
    ------
    ValueError
        As for :func:`conditional_entropy`.

    References
    ----------
    Quinlan (1986), section 4; Cover and Thomas (2006), eq. (2.28) and
    Theorem 2.6.3.

    Examples
    --------
    The gains of the four weather features (Quinlan 1986, section 4):

    >>> outlook = [[3, 2], [0, 4], [2, 3]]
    >>> temperature = [[1, 3], [2, 2], [2, 4]]
    >>> humidity = [[4, 3], [1, 6]]
    >>> windy = [[2, 6], [3, 3]]
    >>> [round(information_gain(t), 3) for t in (outlook, temperature, humidity, windy)]
    [0.247, 0.029, 0.152, 0.048]

    The four animals split by "has feathers" (two pure pairs of classes):

    >>> information_gain([[1, 0, 1, 0], [0, 1, 0, 1]])
    1.0
    """
    base = check_base(base)
    p = as_distribution(table, "table", ndim=(2,))
    return float(_entropy_of_counts(p.sum(axis=0), base)) - _conditional_entropy_of_table(p, base)


def split_information(table, *, base=2):
    r"""Split information (Quinlan's intrinsic value) of a split.

    .. math::

        \operatorname{SplitInfo}(D, A) = -\sum_{v=1}^{V} \frac{|D_v|}{|D|}
            \log_b \frac{|D_v|}{|D|} = H(A),

    the entropy of the branch sizes, whatever the classes.  It is large for
    features that scatter the samples over many small branches.

    Parameters
    ----------
    table : array_like of shape (n_values,) or (n_values, n_classes)
        Branch sizes, or a contingency table whose rows are summed.  Counts
        (whole numbers) or probabilities (summing to 1).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The split information, in bits for ``base=2``.

    Raises
    ------
    ValueError
        If ``table`` is not 1-D or 2-D, or as for :func:`entropy`.

    References
    ----------
    J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann
    1993, section 2.2 ("split info"); Quinlan (1986), section 5 ("IV(A)").

    Examples
    --------
    Outlook splits the 14 weather days 5 / 4 / 5:

    >>> round(split_information([5, 4, 5]), 3)
    1.577
    >>> split_information([[3, 2], [0, 4], [2, 3]]) == split_information([5, 4, 5])
    True
    """
    base = check_base(base)
    p = as_distribution(table, "table", ndim=(1, 2))
    sizes = p.sum(axis=1) if p.ndim == 2 else p
    return float(_entropy_of_counts(sizes, base))


def gain_ratio(table, *, base=2):
    r"""Gain ratio of a split (Quinlan's C4.5 criterion).

    .. math::

        \operatorname{GainRatio}(D, A) =
            \frac{\operatorname{Gain}(D, A)}{\operatorname{SplitInfo}(D, A)}
            = \frac{I(A; Y)}{H(A)} \in [0, 1].

    The ratio does not depend on ``base``.  It is undefined when the split
    information is 0 (every sample in one branch); the function then returns
    ``nan``, and C4.5 never scores such a split.

    Parameters
    ----------
    table : array_like of shape (n_values, n_classes)
        Counts (whole numbers) or joint probabilities (summing to 1);
        rows are feature values (the branches), columns are classes.
    base : float, default=2
        Base of the logarithm; it cancels in the ratio.

    Returns
    -------
    float
        The gain ratio (dimensionless), or ``nan`` for a one-branch split.

    Raises
    ------
    ValueError
        As for :func:`conditional_entropy`.

    References
    ----------
    Quinlan (1993), section 2.2; Quinlan (1986), section 5.

    Examples
    --------
    Outlook on the weather data: gain 0.247 bits over split information
    1.577 bits.  (Rounding both before dividing gives the 0.157 quoted in some
    notes; the ratio itself is 0.156.)

    >>> round(gain_ratio([[3, 2], [0, 4], [2, 3]]), 3)
    0.156
    >>> gain_ratio([[3, 5]])
    nan
    """
    base = check_base(base)
    p = as_distribution(table, "table", ndim=(2,))
    split_info = float(_entropy_of_counts(p.sum(axis=1), base))
    if split_info == 0.0:
        return float("nan")
    gain = float(_entropy_of_counts(p.sum(axis=0), base)) - _conditional_entropy_of_table(p, base)
    return gain / split_info


def kl_divergence(pk, qk, *, base=2):
    r"""Kullback-Leibler divergence (relative entropy) of ``pk`` from ``qk``.

    .. math:: D(p \,\|\, q) = \sum_k p_k \log_b \frac{p_k}{q_k},

    with :math:`0 \log (0/q) = 0` and :math:`D = +\infty` when some
    :math:`p_k > 0` has :math:`q_k = 0`.  Gibbs' inequality: :math:`D \ge 0`,
    with equality exactly when :math:`p = q`.

    Parameters
    ----------
    pk, qk : array_like, same shape (1-D or 2-D)
        Two distributions, each as counts (whole numbers) or probabilities
        (summing to 1).  A 2-D pair is compared cell by cell, e.g. a joint
        table against the product of its marginals.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The divergence, in bits for ``base=2`` (``inf`` if not absolutely
        continuous).

    Raises
    ------
    ValueError
        If the shapes differ, or either input fails the checks of
        :func:`entropy`.

    References
    ----------
    S. Kullback and R. A. Leibler, "On Information and Sufficiency", *Annals
    of Mathematical Statistics* 22 (1951); Cover and Thomas (2006), eq. (2.26)
    and Theorem 2.6.3.

    Examples
    --------
    Information gain is the divergence of the joint table from the product of
    its margins:

    >>> t = np.array([[3, 2], [0, 4], [2, 3]]) / 14
    >>> product = np.outer(t.sum(axis=1), t.sum(axis=0))
    >>> bool(np.isclose(kl_divergence(t, product), information_gain(t)))
    True
    >>> kl_divergence([1, 1], [1, 1])
    0.0
    """
    base = check_base(base)
    p = as_distribution(pk, "pk", ndim=(1, 2))
    q = as_distribution(qk, "qk", ndim=(1, 2))
    if p.shape != q.shape:
        raise ValueError(f"pk and qk must have the same shape, got {p.shape} and {q.shape}")
    support = p > 0
    if np.any(q[support] == 0):
        return float("inf")
    return float(np.sum(p[support] * np.log(p[support] / q[support])) / np.log(base))


def gini(pk):
    r"""Gini impurity of a class distribution (CART's criterion).

    .. math:: \operatorname{Gini}(D) = \sum_{k=1}^{K} p_k (1 - p_k) = 1 - \sum_{k=1}^{K} p_k^2.

    It is the probability that two samples drawn independently (with
    replacement) from the node have different classes, and the expectation of
    :math:`1 - p(Y)`, the first-order Taylor expansion of :math:`-\ln p(Y)` at
    :math:`p = 1`.  Bounds: :math:`0 \le \operatorname{Gini} \le 1 - 1/K`.

    Parameters
    ----------
    pk : array_like of shape (n_classes,)
        Class counts (whole numbers) or probabilities (summing to 1).

    Returns
    -------
    float
        The Gini impurity (dimensionless).

    Raises
    ------
    ValueError
        As for :func:`entropy`.

    References
    ----------
    L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone,
    *Classification and Regression Trees*, Wadsworth 1984, section 4.3.

    Examples
    --------
    >>> gini([1, 1])
    0.5
    >>> round(gini([9, 5]), 4)
    0.4592
    >>> gini([4, 0])
    0.0
    """
    p = as_distribution(pk, "pk")
    return float(_gini_of_counts(p))


def misclassification_error(pk):
    r"""Misclassification error (resubstitution error rate) of a node.

    .. math:: E(D) = 1 - \max_k p_k,

    the fraction of the node's samples that its majority class gets wrong.
    Bounds: :math:`0 \le E \le 1 - 1/K`.  It is concave but not strictly, so
    a split can improve the class proportions without lowering it.

    Parameters
    ----------
    pk : array_like of shape (n_classes,)
        Class counts (whole numbers) or probabilities (summing to 1).

    Returns
    -------
    float
        The error rate (dimensionless).

    Raises
    ------
    ValueError
        As for :func:`entropy`.

    References
    ----------
    Breiman et al. (1984), section 4.1.

    Examples
    --------
    >>> round(misclassification_error([9, 5]), 4)
    0.3571
    >>> misclassification_error([1, 1, 1, 1])
    0.75
    """
    p = as_distribution(pk, "pk")
    return float(1.0 - p.max())


# ---------------------------------------------------------------------------
# From columns of labels
# ---------------------------------------------------------------------------

def second_order_impurity(pk):
    r"""Second-order Taylor approximation of entropy (in nats) around :math:`p = 1`.

    .. math::

        G_2(D) = \sum_{k=1}^{K} p_k \Bigl[(1 - p_k) + \tfrac12 (1 - p_k)^2\Bigr],

    the expectation of the first two terms of
    :math:`-\ln p = \sum_{m \ge 1} (1 - p)^m / m`.  Its first term alone is the
    Gini impurity; with all terms the sum is the entropy in nats, so
    :math:`\operatorname{Gini} \le G_2 \le H_{\text{nats}}`.

    Parameters
    ----------
    pk : array_like of shape (n_classes,)
        Class counts (whole numbers) or probabilities (summing to 1).

    Returns
    -------
    float
        :math:`G_2` (nats, like the entropy it approximates).

    Raises
    ------
    ValueError
        As for :func:`entropy`.

    References
    ----------
    Seed notes 000 (exercise B5); the Taylor series is standard, e.g.
    T. M. Cover and J. A. Thomas, *Elements of Information Theory* (2006).

    Examples
    --------
    Two equally frequent classes: Gini 0.5, :math:`G_2 = 0.5 + 0.125`,
    entropy :math:`\ln 2 \approx 0.693` nats.

    >>> second_order_impurity([1, 1])
    0.625
    >>> gini([1, 1]) <= second_order_impurity([1, 1]) <= entropy([1, 1], base=np.e)
    True
    """
    p = as_distribution(pk, "pk")
    p = p / p.sum()
    return float(np.sum(p * ((1.0 - p) + 0.5 * (1.0 - p) ** 2)))


def impurity_decrease(table, impurity=None):
    r"""Decrease of an impurity measure by a split, from its contingency table.

    .. math::

        \Delta\varphi = \varphi(D) - \sum_{v} \frac{|D_v|}{|D|}\, \varphi(D_v),

    where the rows of ``table`` are the children :math:`D_v` of the split,
    its columns the classes, and :math:`\varphi` any impurity of a class
    distribution.  With :func:`entropy` it is the information gain, with
    :func:`gini` CART's Gini decrease.  Children with no samples are skipped.

    Parameters
    ----------
    table : array_like of shape (n_children, n_classes)
        Class counts or weights of each child.
    impurity : callable, default=None
        A function of a class distribution of shape (n_classes,) returning a
        float, such as :func:`gini`, :func:`entropy`,
        :func:`misclassification_error` or :func:`second_order_impurity`;
        ``None`` means :func:`gini`.

    Returns
    -------
    float
        The decrease, in the units of ``impurity`` (bits for
        :func:`entropy`); non-negative for a concave impurity.

    Raises
    ------
    ValueError
        If ``table`` is not 2-D, has negative, NaN or inf entries, or sums
        to 0.

    References
    ----------
    L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone,
    *Classification and Regression Trees*, Wadsworth 1984, section 2.4.

    Examples
    --------
    Outlook on the weather data: the entropy decrease is the gain 0.247 bits.

    >>> table = [[2, 3], [4, 0], [3, 2]]
    >>> round(impurity_decrease(table, entropy), 3), round(information_gain(table), 3)
    (0.247, 0.247)
    >>> round(impurity_decrease(table), 4)
    0.1163
    """
    counts = as_float_array(table, "table", ndim=(2,))
    if np.any(counts < 0):
        raise ValueError(f"table must hold non-negative counts or weights, got {counts.min()!r}")
    sizes = counts.sum(axis=1)
    total = sizes.sum()
    if total <= 0:
        raise ValueError("table sums to 0: expected at least one positive count")
    phi = gini if impurity is None else impurity
    children = sum(size / total * phi(row / size) for size, row in zip(sizes, counts) if size > 0)
    return float(phi(counts.sum(axis=0) / total) - children)


def contingency_table(x, y, *, sample_weight=None):
    r"""Count (or weigh) how often each feature value meets each class.

    Parameters
    ----------
    x : array_like of shape (n_samples,)
        A categorical feature column (any hashable values, no missing ones).
    y : array_like of shape (n_samples,)
        Class labels.
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` counts every sample once.

    Returns
    -------
    table : ndarray of shape (n_values, n_classes)
        ``table[v, k]`` is the total weight of samples with ``x == values[v]``
        and ``y == classes[k]``.
    values : ndarray of shape (n_values,)
        The distinct values of ``x``, sorted (order of first appearance if
        they cannot be sorted).
    classes : ndarray of shape (n_classes,)
        The distinct values of ``y``, sorted likewise.

    Raises
    ------
    ValueError
        If ``x`` or ``y`` is empty, not 1-D or has missing values, if their
        lengths differ, or if ``sample_weight`` is invalid (wrong length,
        negative, non-finite, all zero).

    Examples
    --------
    >>> table, values, classes = contingency_table(
    ...     ["sunny", "rain", "sunny", "rain", "rain"], ["no", "yes", "no", "no", "yes"])
    >>> table
    array([[1., 2.],
           [2., 0.]])
    >>> values.tolist(), classes.tolist()
    (['rain', 'sunny'], ['no', 'yes'])
    """
    x = as_labels(x, "x")
    y = as_labels(y, "y")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    weight = check_sample_weight(sample_weight, x.shape[0])
    x_codes, values = encode(x)
    y_codes, classes = encode(y)
    table = np.zeros((values.size, classes.size))
    np.add.at(table, (x_codes, y_codes), weight)
    return table, values, classes


def _label_weights(y, sample_weight) -> np.ndarray:
    """Total weight of each distinct label of ``y`` (labels sorted), after checking ``y``."""
    y = as_labels(y, "y")
    weight = check_sample_weight(sample_weight, y.shape[0])
    codes, classes = encode(y)
    return _class_weights(codes, weight, classes.size)


def entropy_from_labels(y, *, sample_weight=None, base=2):
    r"""Entropy of the (weighted) empirical class distribution of ``y``.

    .. math:: H(D) = -\sum_k \hat p_k \log_b \hat p_k, \qquad
              \hat p_k = \frac{\sum_{i: y_i = c_k} w_i}{\sum_i w_i}.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Class labels (no missing values).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The entropy, in bits for ``base=2``.

    Raises
    ------
    ValueError
        If ``y`` is empty, not 1-D or has missing values, or
        ``sample_weight`` is invalid.

    Examples
    --------
    >>> round(entropy_from_labels(["yes"] * 9 + ["no"] * 5), 3)
    0.94
    >>> entropy_from_labels([0, 0, 1], sample_weight=[1, 1, 2])
    1.0
    """
    base = check_base(base)
    return float(_entropy_of_counts(_label_weights(y, sample_weight), base))


def gini_from_labels(y, *, sample_weight=None):
    r"""Gini impurity of the (weighted) empirical class distribution of ``y``.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Class labels (no missing values).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.

    Returns
    -------
    float
        :math:`1 - \sum_k \hat p_k^2` (dimensionless).

    Raises
    ------
    ValueError
        As for :func:`entropy_from_labels`.

    Examples
    --------
    >>> gini_from_labels(["a", "b", "a", "b"])
    0.5
    """
    return float(_gini_of_counts(_label_weights(y, sample_weight)))


def misclassification_error_from_labels(y, *, sample_weight=None):
    r"""Misclassification error :math:`1 - \max_k \hat p_k` of the labels ``y``.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Class labels (no missing values).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.

    Returns
    -------
    float
        The error rate of the majority class (dimensionless).

    Raises
    ------
    ValueError
        As for :func:`entropy_from_labels`.

    Examples
    --------
    >>> misclassification_error_from_labels(["a", "a", "a", "b"])
    0.25
    """
    counts = _label_weights(y, sample_weight)
    return float(1.0 - counts.max() / counts.sum())


def conditional_entropy_from_labels(x, y, *, sample_weight=None, base=2):
    r"""Conditional entropy :math:`H(Y \mid A)` from a feature column and labels.

    Parameters
    ----------
    x : array_like of shape (n_samples,)
        Categorical feature column.
    y : array_like of shape (n_samples,)
        Class labels.
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        :math:`H(Y \mid A)`, in bits for ``base=2``.

    Raises
    ------
    ValueError
        As for :func:`contingency_table`.

    Examples
    --------
    >>> conditional_entropy_from_labels(["p", "p", "q", "q"], [0, 0, 1, 1])
    0.0
    """
    base = check_base(base)
    table, _, _ = contingency_table(x, y, sample_weight=sample_weight)
    return _conditional_entropy_of_table(table, base)


def information_gain_from_labels(x, y, *, sample_weight=None, base=2):
    r"""Information gain :math:`H(Y) - H(Y \mid A)` of splitting ``y`` on ``x``.

    Parameters
    ----------
    x : array_like of shape (n_samples,)
        Categorical feature column (one branch per distinct value).
    y : array_like of shape (n_samples,)
        Class labels.
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.  With weights
        every probability is a weighted proportion.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The gain, in bits for ``base=2``.

    Raises
    ------
    ValueError
        As for :func:`contingency_table`.

    References
    ----------
    Quinlan (1986), section 4.

    Examples
    --------
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> round(information_gain_from_labels(weather["outlook"], weather["play"]), 3)
    0.247
    """
    table, _, _ = contingency_table(x, y, sample_weight=sample_weight)
    return information_gain(table / table.sum(), base=base)


def split_information_from_labels(x, *, sample_weight=None, base=2):
    r"""Split information :math:`H(A)` of the branches that ``x`` defines.

    Parameters
    ----------
    x : array_like of shape (n_samples,)
        Categorical feature column.
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The split information, in bits for ``base=2``.

    Raises
    ------
    ValueError
        As for :func:`entropy_from_labels` (applied to ``x``).

    Examples
    --------
    A column with a different value on every one of 4 rows:

    >>> split_information_from_labels([10, 11, 12, 13])
    2.0
    """
    base = check_base(base)
    x = as_labels(x, "x")
    weight = check_sample_weight(sample_weight, x.shape[0])
    codes, values = encode(x)
    return float(_entropy_of_counts(np.bincount(codes, weights=weight, minlength=values.size), base))


def gain_ratio_from_labels(x, y, *, sample_weight=None, base=2):
    r"""Gain ratio of splitting ``y`` on ``x``; ``nan`` if ``x`` is constant.

    Parameters
    ----------
    x : array_like of shape (n_samples,)
        Categorical feature column.
    y : array_like of shape (n_samples,)
        Class labels.
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.
    base : float, default=2
        Base of the logarithm; it cancels in the ratio.

    Returns
    -------
    float
        Gain over split information (dimensionless), ``nan`` for one branch.

    Raises
    ------
    ValueError
        As for :func:`contingency_table`.

    References
    ----------
    Quinlan (1993), section 2.2.

    Examples
    --------
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> round(gain_ratio_from_labels(weather["outlook"], weather["play"]), 3)
    0.156
    """
    table, _, _ = contingency_table(x, y, sample_weight=sample_weight)
    return gain_ratio(table / table.sum(), base=base)


# ---------------------------------------------------------------------------
# Regression impurities
# ---------------------------------------------------------------------------

def _check_targets(y, sample_weight):
    y = as_float_array(y, "y", ndim=(1,))
    return y, check_sample_weight(sample_weight, y.shape[0])


def weighted_median(y, *, sample_weight=None):
    r"""Weighted median: the leaf value of a regression tree under absolute error.

    With the values sorted, :math:`y_{(1)} \le \dots \le y_{(n)}`, and
    :math:`S_j` the total weight of the first :math:`j` of them, the median is
    the first :math:`y_{(j)}` with :math:`S_j \ge W/2`, where :math:`W` is the
    total weight; if :math:`S_j = W/2` exactly, it is the midpoint of
    :math:`y_{(j)}` and :math:`y_{(j+1)}`.  Unweighted, this is the usual
    median (``numpy.median``).  Every point between those two values
    minimises :math:`\sum_i w_i |y_i - m|`; the midpoint is scikit-learn's
    choice.  Samples of zero weight carry no mass and are left out first (so
    :math:`y_{(j+1)}` is the next value of positive weight), as the tree's
    ``fit`` leaves them out.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Target values (finite).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.

    Returns
    -------
    float
        The weighted median (in the units of ``y``).

    Raises
    ------
    ValueError
        If ``y`` is empty, not 1-D or not finite, or ``sample_weight`` is
        invalid.

    Examples
    --------
    >>> weighted_median([1, 2, 3, 10])
    2.5
    >>> weighted_median([1, 2, 3, 10], sample_weight=[1, 1, 2, 0.5])
    3.0
    >>> weighted_median([1, 2, 3], sample_weight=[1, 0, 1])   # midpoint of 1 and 3
    2.0
    """
    y, weight = _check_targets(y, sample_weight)
    y, weight = y[weight > 0], weight[weight > 0]
    order = np.argsort(y, kind="stable")
    y, weight = y[order], weight[order]
    cumulative = np.cumsum(weight)
    half = cumulative[-1] / 2.0
    j = int(np.searchsorted(cumulative, half))  # first j with S_j >= W/2
    if cumulative[j] == half and j + 1 < y.size:
        return float((y[j] + y[j + 1]) / 2.0)
    return float(y[j])


def squared_error(y, *, sample_weight=None):
    r"""Squared-error impurity of a regression node: the weighted variance.

    .. math::

        R_2(D) = \frac{1}{W} \sum_{i \in D} w_i (y_i - \bar y)^2, \qquad
        \bar y = \frac{1}{W} \sum_{i \in D} w_i y_i, \quad W = \sum_{i \in D} w_i.

    The mean :math:`\bar y` is the constant that minimises the weighted sum
    of squares, so it is the leaf's prediction; CART's regression criterion
    (scikit-learn's ``criterion="squared_error"``).

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Target values (finite).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.

    Returns
    -------
    float
        The impurity, in squared units of ``y``.

    Raises
    ------
    ValueError
        If ``y`` is empty, not 1-D or not finite, or ``sample_weight`` is
        invalid.

    References
    ----------
    Breiman et al. (1984), chapter 8.

    Examples
    --------
    >>> squared_error([1, 2, 3, 10])
    12.5
    >>> squared_error([1, 3], sample_weight=[3, 1])
    0.75
    """
    y, weight = _check_targets(y, sample_weight)
    mean = np.average(y, weights=weight)
    return float(np.average((y - mean) ** 2, weights=weight))


def absolute_error(y, *, sample_weight=None):
    r"""Absolute-error impurity of a regression node: mean absolute deviation from the median.

    .. math::

        R_1(D) = \frac{1}{W} \sum_{i \in D} w_i \,|y_i - \tilde y|,

    where :math:`\tilde y` is the weighted median (:func:`weighted_median`),
    the constant that minimises the weighted sum of absolute deviations and so
    the leaf's prediction (scikit-learn's ``criterion="absolute_error"``).

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Target values (finite).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.

    Returns
    -------
    float
        The impurity, in the units of ``y``.

    Raises
    ------
    ValueError
        If ``y`` is empty, not 1-D or not finite, or ``sample_weight`` is
        invalid.

    References
    ----------
    Breiman et al. (1984), section 8.11 (least absolute deviation).

    Examples
    --------
    >>> absolute_error([1, 2, 3, 10])
    2.5
    >>> round(absolute_error([1, 2, 3, 10], sample_weight=[1, 1, 2, 0.5]), 4)
    1.4444
    """
    y, weight = _check_targets(y, sample_weight)
    median = weighted_median(y, sample_weight=weight)
    return float(np.average(np.abs(y - median), weights=weight))


# ---------------------------------------------------------------------------
# Missing values
# ---------------------------------------------------------------------------

def gain_with_missing_values(x, y, *, sample_weight=None, base=2):
    r"""C4.5's information gain of a feature with missing values.

    .. math::

        \operatorname{Gain}(D, A) = (1 - \gamma)\,
            \operatorname{Gain}(\tilde D, A), \qquad
        \gamma = \frac{\sum_{i:\, x_i \text{ missing}} w_i}{\sum_i w_i},

    where :math:`\tilde D` is the set of samples whose value of :math:`A` is
    known: the gain is computed on the known values only and then scaled by
    the (weighted) fraction :math:`1 - \gamma` of samples it could be computed
    on.  With no missing values it is the ordinary gain; with all missing it
    is 0.

    Parameters
    ----------
    x : array_like of shape (n_samples,)
        Categorical feature column; missing values are ``None`` or NaN.
    y : array_like of shape (n_samples,)
        Class labels (no missing values).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights; ``None`` weighs every sample 1.
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
        The scaled gain, in bits for ``base=2``.

    Raises
    ------
    ValueError
        If ``y`` has missing values, the lengths differ, or
        ``sample_weight`` is invalid.

    References
    ----------
    Quinlan (1993), section 3.1; J. R. Quinlan, "Unknown Attribute Values in
    Induction", *Proc. 6th International Workshop on Machine Learning* (1989).

    Examples
    --------
    Quinlan's example: hide the outlook of one overcast day (day 12) of the
    weather data.  The gain on the 13 known days, 0.961 - 0.747 = 0.214 bits,
    is scaled by 13/14 (Quinlan 1993, section 3.1):

    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> outlook = weather["outlook"].mask(weather.index == 12)
    >>> round(gain_with_missing_values(outlook, weather["play"]), 3)
    0.199
    """
    check_base(base)
    x_array = x.to_numpy() if hasattr(x, "to_numpy") else np.asarray(x, dtype=object)
    y_array = as_labels(y, "y")
    if x_array.ndim != 1 or x_array.shape[0] != y_array.shape[0]:
        raise ValueError(
            f"x must be 1-D with the length of y ({y_array.shape[0]}), got shape {x_array.shape}"
        )
    weight = check_sample_weight(sample_weight, y_array.shape[0])
    known = ~np.asarray(pd.isna(x_array), dtype=bool)
    known_weight = weight[known].sum()
    if known_weight == 0:
        return 0.0
    gamma = 1.0 - known_weight / weight.sum()
    gain = information_gain_from_labels(x_array[known], y_array[known],
                                        sample_weight=weight[known], base=base)
    return float((1.0 - gamma) * gain)
