r"""Impurity criteria for CART, written on *sufficient statistics*.

The sorted sweep of :mod:`dtree.splitting` scores every threshold of a node
at once.  It can do so because each criterion needs only a few sums over the
samples of a node, which are additive: the statistics of a left child are a
prefix sum of per-sample statistics along the sorted feature, and those of the
right child are the node's total minus the left.  A criterion here therefore
subclasses :class:`Criterion`, which declares what it provides:

* ``sample_stats`` -- the per-sample statistics, an array of shape
  (n_stats, n_samples) (one contiguous row per statistic); for the class
  counts, a :class:`ClassWeights` that stands for the one-hot array of shape
  (n_classes, n_samples) without building it;
* ``node_stats`` -- the statistics of nodes (sums of their samples');
* ``weight(stats)`` -- the total weight of a node from its statistics;
* ``impurity(stats)`` -- the impurity of a node from its summed statistics;
* ``proxy(left, right)`` -- a score that ranks the splits of one node in the
  same order as the impurity decrease, but is cheaper to compute (the
  constant terms of the node are dropped);
* ``value(...)`` -- what a leaf predicts;
* ``monotonic_value``, ``middle_value``, ``check_monotonicity`` -- what
  monotonicity constraints compare, scikit-learn's functions of the same
  names in ``_criterion.pyx``;
* ``additive``, ``n_swept``, ``block_cells`` -- how the sweep of
  :mod:`dtree.splitting` treats it.

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

import copy

import numpy as np

__all__ = ["CLASSIFICATION_CRITERIA", "REGRESSION_CRITERIA", "Criterion", "get_criterion"]

# Below this, an impurity counts as zero (scikit-learn's EPSILON).
EPSILON = np.finfo(np.float64).eps


def _running_sums_exact(total, n_sums=1) -> bool:
    """Whether ``n_sums`` running sums of whole numbers of total magnitude ``total`` stay exact.

    Every partial sum of whole numbers below :math:`2^{53}` is an exact float,
    and then any order of summation gives the same float.  A sweep's running
    sum may span ``n_sums`` features (the sparse search's does) before it
    restarts by subtracting what came before, so their total must stay below
    the bound as well (:math:`2^{52}`: a factor of two to spare).  ``total``
    is the sum of the magnitudes; that they are whole numbers is the
    caller's check.
    """
    return float(total) * n_sums < 2.0**52


def _sum_over_classes(a):
    """Sum of ``a`` of shape (n_classes, ...) over its first axis, one class after another.

    The float of ``a[0] + a[1] + ...`` added in a loop, whatever the number of
    classes or the shape of the rest.  NumPy adds the rows of a reduction over
    the first axis one after another where that axis is not the contiguous
    one (``a`` in C order with more than one column); where it is (a single
    column, or an array in Fortran order, as ``a[:, mask]`` gives) it sums
    pairwise, in another order.  A single column is therefore summed by a
    cumulative sum, which is always sequential; the callers keep the other
    arrays in C order.
    """
    rows = a.reshape(a.shape[0], -1)
    total = np.cumsum(rows, axis=0)[-1] if rows.shape[1] == 1 else rows.sum(axis=0)
    return total.reshape(a.shape[1:])


def _p_log2_p(p):
    """:math:`p \\log_2 p` elementwise, 0 where ``p`` is 0 (or NaN: no weight), shape of ``p``.

    The logarithm is taken only where ``p > 0``: with many classes most
    counts of a small node are 0, and where NumPy's float64 ``log2`` is not
    vectorised (measured on an AVX2 CPU: 7 ns per value) it costs several
    times the rest of the proxy.
    Each value is the float of ``numpy.where(p > 0, p * numpy.log2(p), 0.0)``.
    """
    positive = p > 0
    terms = np.zeros_like(p, dtype=np.float64)    # p's memory layout: the same later sums
    np.log2(p, out=terms, where=positive)
    np.multiply(p, terms, out=terms, where=positive)      # p log2 p, in this order
    return terms


class ClassWeights:
    r"""Per-sample statistics :math:`w_i e_{y_i}` of a classification criterion, kept as (class, weight).

    The statistics of sample ``i`` form column ``i`` of an array of shape
    (n_classes, n_samples) holding ``weight[i]`` in row ``codes[i]`` and zeros
    elsewhere.  That array is ``n_classes`` times the size of ``y`` (75 GiB
    for :math:`10^5` samples of :math:`10^5` classes), so it is never built:
    :meth:`take` builds its columns for a block of samples, :meth:`segment_sums`
    sums its rows a block of classes at a time, and each gives the floats the
    whole array would.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,), int
        Class of each sample, ``0 .. n_classes - 1``.
    weight : ndarray of shape (n_samples,), float64
        Weight of each sample (positive).
    n_classes : int
    """

    #: Cells (classes x positions) of the one-hot block that :meth:`segment_sums`
    #: builds at a time: 8 MiB of float64.
    BLOCK_CELLS = 1 << 20

    def __init__(self, codes, weight, n_classes):
        n_classes = int(n_classes)
        # The smallest unsigned type that holds a class code (uint8 up to 256
        # classes), and no weights at all when every weight is 1 (no
        # sample_weight): the statistics take 1 to 9 bytes per sample.
        self.codes = np.asarray(codes).astype(np.min_scalar_type(max(n_classes - 1, 0)))
        weight = np.asarray(weight, dtype=np.float64)
        self.weight = None if np.all(weight == 1.0) else weight
        self.shape = (n_classes, self.codes.shape[0])
        # Whole-number weights whose total is below 2**53 (counts, when there is
        # no sample_weight): every partial sum of them is an exact float, so any
        # order of summation gives the same float.
        self.exact_sums = self.weight is None or bool(
            np.all(weight == np.round(weight)) and weight.sum() < 2.0**53)

    def relabelled(self, codes, n_classes):
        """The same weights under new class codes ``0 .. n_classes - 1`` (a shallow copy).

        ``codes`` of shape (n_samples,) replaces :attr:`codes`; the weights and
        :attr:`exact_sums` are shared.  For :func:`dtree.splitting.best_splits`,
        which renumbers the classes present in each node.
        """
        out = copy.copy(self)
        out.codes = np.asarray(codes).astype(np.min_scalar_type(max(int(n_classes) - 1, 0)),
                                             copy=False)
        out.shape = (int(n_classes), out.codes.shape[0])
        return out

    def _weights_of(self, samples):
        return 1.0 if self.weight is None else self.weight[samples]

    def take(self, samples, out=None):
        """The statistics of ``samples`` (any shape), of shape (n_classes, *samples.shape).

        ``out``: a zero array of that shape to write them into.
        """
        if out is None:
            out = np.zeros(self.shape[:1] + np.shape(samples))
        samples = np.ravel(samples)
        # out[codes[s], j] = weight[s] for the j-th sample s, through the flat index
        flat = self.codes[samples].astype(np.intp) * samples.size + np.arange(samples.size)
        out.reshape(-1)[flat] = self._weights_of(samples)
        return out

    def segment_sums(self, samples, starts):
        """``np.add.reduceat(row[samples], starts)`` for every row, shape (n_classes, n_segments).

        The same floats as the reduction of the one-hot rows (NumPy sums a
        segment pairwise): with :attr:`exact_sums` every order gives them, and
        the classes' weights are binned directly; otherwise the one-hot rows
        are built for a block of classes at a time and reduced as they are.
        """
        n_classes, m, n_segments = self.shape[0], samples.shape[0], starts.size
        if self.exact_sums:
            # bin of a sample: class * n_segments + segment
            key = self.codes[samples].astype(np.intp)
            key *= n_segments
            key += np.repeat(np.arange(n_segments), np.diff(np.append(starts, m)))
            weights = None if self.weight is None else self.weight[samples]
            sums = np.bincount(key, weights=weights, minlength=n_classes * n_segments)
            return sums.reshape(n_classes, n_segments).astype(np.float64, copy=False)
        classes = self.codes[samples].astype(np.intp)       # class at each position
        out = np.empty((n_classes, n_segments))
        # (not exact: the one-hot rows reduced as they are)
        by_class = np.argsort(classes, kind="stable")       # positions, class by class
        step = max(1, self.BLOCK_CELLS // max(m, 1))
        edges = np.searchsorted(classes[by_class], np.arange(0, n_classes + step, step))
        for i, lo in enumerate(range(0, n_classes, step)):
            at = by_class[edges[i]:edges[i + 1]]             # positions of these classes
            rows = np.zeros((min(step, n_classes - lo), m))
            rows[classes[at] - lo, at] = self.weight[samples[at]]
            out[lo:lo + step] = np.add.reduceat(rows, starts, axis=1)
        return out


    def run_counts(self, samples, run, n_runs):
        """The class weights of runs of ``samples``, shape (n_runs, n_classes).

        ``run[j]`` is the run (0 .. n_runs - 1) of ``samples[j]``; one
        ``bincount`` over (run, class) bins.  For :attr:`exact_sums` (any order
        of summation gives the same floats).
        """
        n_classes = self.shape[0]
        key = run * n_classes
        key += self.codes[samples]
        weights = None if self.weight is None else self.weight[samples]
        counts = np.bincount(key, weights=weights, minlength=n_runs * n_classes)
        return counts.reshape(n_runs, n_classes).astype(np.float64, copy=False)


class OutputsClassWeights(ClassWeights):
    r"""The class weights of several outputs, one block of rows per output.

    Sample ``i`` has the statistics :math:`w_i e_{y_{i1}}`, ...,
    :math:`w_i e_{y_{im}}` stacked: an array of shape
    (:math:`K_1 + \dots + K_m`, n_samples) with one nonzero per block,
    never built whole (as :class:`ClassWeights`, which it extends to several
    outputs).  The statistics of a multi-output classification
    (:func:`multi_output`).

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_outputs), int
        Class of each sample in each output.
    weight : ndarray of shape (n_samples,), float64
    n_classes : sequence of int
        :math:`K_k` of each output.
    """

    def __init__(self, codes, weight, n_classes):
        self.outputs = [ClassWeights(codes[:, k], weight, n_k)
                        for k, n_k in enumerate(n_classes)]
        self.weight = self.outputs[0].weight
        self.exact_sums = self.outputs[0].exact_sums
        self.edges = np.cumsum([0] + [int(n_k) for n_k in n_classes])
        self.shape = (int(self.edges[-1]), codes.shape[0])

    def take(self, samples, out=None):
        if out is None:
            out = np.zeros(self.shape[:1] + np.shape(samples))
        for k, output in enumerate(self.outputs):
            output.take(samples, out=out[self.edges[k]:self.edges[k + 1]])
        return out

    def segment_sums(self, samples, starts):
        return np.vstack([output.segment_sums(samples, starts) for output in self.outputs])

    def run_counts(self, samples, run, n_runs):
        return np.hstack([output.run_counts(samples, run, n_runs) for output in self.outputs])


class Criterion:
    r"""What a CART criterion provides to the split search and the growth.

    A criterion is used as a class (its methods are static or class
    methods); :mod:`dtree.splitting` and :mod:`dtree.growth` call only what is
    declared here.  A criterion is *additive* when the statistics of a node are
    the sum of its samples' (class weights, :math:`(w, wy, wy^2)`): the sweep
    then scores every cut by prefix sums and :meth:`proxy`.  A criterion that
    is not (the absolute error) provides :meth:`node_stats` and
    :meth:`children_score` instead of sums.

    Attributes
    ----------
    name : str
        The estimators' ``criterion`` parameter that selects it.
    is_classification : bool
        Whether the statistics are class weights (a leaf predicts class
        fractions) rather than those of a numeric target.
    additive : bool, default=True
        Whether node statistics are sums of per-sample statistics.
    n_swept : int or None, default=None
        How many leading statistics (rows) :meth:`proxy` and :meth:`weight`
        read; the sweep sums only those.  ``None``: all.
    block_cells : int or None, default=None
        (feature, position) cells the sweep scores at once; ``None``:
        ``dtree.splitting.BLOCK_CELLS``.
    MONOTONIC_ROW : int or None, default=None
        The statistic whose ratio to the weight is :meth:`monotonic_value`
        (read by the default :meth:`middle_value`).
    """

    name: str
    is_classification: bool
    additive = True
    n_swept = None
    block_cells = None
    MONOTONIC_ROW = None

    @staticmethod
    def sample_stats(y, weight, n_classes=None):
        """Per-sample statistics.

        Parameters
        ----------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Targets (class codes ``0 .. n_classes - 1`` for a classification;
            one column per output for the criteria of :func:`multi_output`).
        weight : ndarray of shape (n_samples,), float64
            Sample weights (positive).
        n_classes : int or None
            Number of classes (classification only; the criteria of
            :func:`multi_output` know their outputs' classes).

        Returns
        -------
        ndarray of shape (n_stats, n_samples) or ClassWeights
        """
        raise NotImplementedError

    @classmethod
    def node_stats(cls, stats, samples, starts):
        """Statistics of each segment ``samples[starts[j]:starts[j + 1]]``.

        For an additive criterion, the sums of the per-sample statistics,
        added one sample after another in the order of ``samples`` (as
        scikit-learn sums a node) and afresh (not as "total - left": the
        difference leaves rounding residue, and a pure child would show a
        class count of 1e-16 and look impure); class weights
        (:class:`ClassWeights`) sum their one-hot rows a block of classes at a
        time.

        Parameters
        ----------
        stats : ndarray of shape (n_stats, n_samples) or ClassWeights
            Per-sample statistics (:meth:`sample_stats`).
        samples : ndarray of shape (m,), int
            Sample ids, segment after segment.
        starts : ndarray of shape (n_segments,), int
            Start of each segment in ``samples`` (``starts[0] == 0``).

        Returns
        -------
        ndarray of shape (n_stats, n_segments)
        """
        if isinstance(stats, ClassWeights):      # one-hot class weights, never built whole
            return stats.segment_sums(samples, starts)
        # One statistic at a time (a temporary of one row, not of all n_stats
        # rows), each segment summed one sample after another, in the order of
        # ``samples``, as scikit-learn sums a node (bincount adds in order).
        segment = np.repeat(np.arange(starts.size), np.diff(np.append(starts, samples.size)))
        return np.array([np.bincount(segment, weights=row[samples], minlength=starts.size)
                         for row in stats])

    @staticmethod
    def weight(stats):
        """Total weight :math:`W` of nodes, shape ``stats.shape[1:]``.

        ``stats`` is of shape (n_stats, ...): node statistics along the first
        axis, any shape after it (nodes, or features x cuts).
        """
        raise NotImplementedError

    @staticmethod
    def impurity(stats):
        """Impurity :math:`i(t)` of nodes from their statistics (n_stats, ...).

        Returns an array of shape ``stats.shape[1:]``.
        """
        raise NotImplementedError

    @staticmethod
    def proxy(left, right):
        r"""Score of splits, ranking them as their impurity decrease does.

        Parameters
        ----------
        left, right : ndarray of shape (n_stats, ...)
            Statistics of the left and right children (at least the first
            ``n_swept`` rows).

        Returns
        -------
        ndarray of shape ``left.shape[1:]``
            :math:`-W_L\, i(L) - W_R\, i(R)` up to terms and factors that are
            the same for every split of a node (-inf: a forbidden split).
        """
        raise NotImplementedError

    @classmethod
    def improvement(cls, totals, impurity, left, right, total_weight):
        """Weighted impurity decrease W_t/W (i(t) - W_L/W_t i(L) - W_R/W_t i(R)).

        What ``min_impurity_decrease`` is compared with, and the priority of
        best-first growth: the decrease of impurity :math:`\\Delta i(s, t)` of
        Breiman et al. (1984) weighted by the node's share of the weight, the
        book's :math:`\\Delta R(t)`, as scikit-learn's
        ``Criterion.impurity_improvement`` computes it.
        ``totals``, ``left`` and ``right`` are node statistics (n_stats, n)
        of ``n`` parents and their children, ``impurity`` the parents'
        :math:`i(t)` (n,), ``total_weight`` the root's :math:`W`; returns (n,).
        """
        w_node = cls.weight(totals)
        w_left, w_right = cls.weight(left), cls.weight(right)
        impurity_left, impurity_right = cls.impurity(left), cls.impurity(right)
        with np.errstate(invalid="ignore"):
            return (w_node / total_weight) * (
                impurity - w_right / w_node * impurity_right - w_left / w_node * impurity_left)

    @staticmethod
    def value(stats):
        """What leaves predict, from their statistics (n_stats, n_nodes).

        Returns an array whose last axis is the nodes: for one output, the
        statistics themselves for a classification (class weights, (n_classes,
        n_nodes)), the mean or median of a regression ((1, n_nodes)); for
        several outputs (:func:`multi_output`), (n_outputs, max_n_classes,
        n_nodes) and (n_outputs, n_nodes).
        """
        raise NotImplementedError

    @staticmethod
    def monotonic_value(stats):
        """The node value a monotonicity constraint bounds, shape ``stats.shape[1:]``.

        ``stats`` of shape (n_stats, ...) are node statistics (at least the
        first ``n_swept`` rows).  scikit-learn's ``Criterion.check_monotonicity``
        compares these values of the two children of a split: the fraction of
        the first class (classes_[0]) of a classification, the mean of a
        regression, the median of the absolute error.
        """
        raise NotImplementedError

    @classmethod
    def middle_value(cls, left, right):
        """The bound that a split on a constrained feature passes to its children, shape (n,).

        scikit-learn's ``Criterion.middle_value``: the average of the two
        children's :meth:`monotonic_value`, computed as
        :math:`S_L / (2 W_L) + S_R / (2 W_R)` (a classification's :math:`S`: the
        weight of the first class; a regression's: the weighted sum of y).
        ``left`` and ``right`` are the children's statistics (n_stats, n).
        """
        return left[cls.MONOTONIC_ROW] / (2.0 * cls.weight(left)) \
            + right[cls.MONOTONIC_ROW] / (2.0 * cls.weight(right))

    @staticmethod
    def check_monotonicity(monotonic_cst, lower, upper, value_left, value_right):
        r"""Whether splits respect a monotonicity constraint and their node's bounds.

        scikit-learn's ``Criterion._check_monotonicity`` (``_criterion.pyx``),
        elementwise on broadcast arrays: both children's values lie in
        :math:`[\text{lower}, \text{upper}]` and
        :math:`(v_L - v_R) \cdot c \le 0` for the constraint :math:`c \in
        \{-1, 0, 1\}` (1: the left child's value is at most the right's).
        Returns a bool array (False where a value is NaN).
        """
        with np.errstate(invalid="ignore"):
            return ((value_left >= lower) & (value_right >= lower)
                    & (value_left <= upper) & (value_right <= upper)
                    & ((value_left - value_right) * monotonic_cst <= 0))

    @staticmethod
    def children_score(stats, O, starts, sizes, cand, min_weight_leaf=0.0):
        """A non-additive criterion's proxy at every candidate cut of a block, shape (b, m).

        Parameters
        ----------
        stats : ndarray of shape (n_stats, n_samples)
            Per-sample statistics.
        O : ndarray of shape (b, m), int
            For each of ``b`` features, the samples of the segments in the
            feature's order.
        starts, sizes : ndarray of shape (n_segments,), int
            The segments of ``O``'s rows.
        cand : ndarray of shape (b, m), bool
            The candidate cuts (after position p of a segment).
        min_weight_leaf : float
            Cuts leaving a child lighter are no candidates.

        Returns
        -------
        ndarray of shape (b, m)
            The proxy of every candidate cut, -inf elsewhere.
        """
        raise NotImplementedError("an additive criterion is scored with proxy")


class Gini(Criterion):
    """Gini impurity on weighted class counts (Breiman et al. 1984, section 4.3)."""

    name = "gini"
    is_classification = True

    @staticmethod
    def sample_stats(y_codes, weight, n_classes):
        return ClassWeights(y_codes, weight, n_classes)

    @staticmethod
    def weight(counts):
        return counts.sum(axis=0)

    @staticmethod
    def impurity(counts):
        # 1 - sum_k c_k^2 / W^2 (scikit-learn's order of operations).  The same
        # impurity as dtree.information._gini_of_counts (1 - sum_k p_k^2, on the
        # last axis), which the book's Part 1 prints; they round differently, and
        # each keeps its order so that neither CART's trees (scikit-learn's
        # floats) nor the printed numbers change.  tests/test_criteria.py checks
        # that they agree to 1e-12.
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
        squares = _sum_over_classes(np.square(counts))      # sum_k c_k^2
        squares /= total * total
        np.subtract(1.0, squares, out=squares)
        squares *= total
        return squares

    @staticmethod
    def value(counts):
        return counts

    MONOTONIC_ROW = 0    # the weight of the first class

    @staticmethod
    def monotonic_value(counts):
        # c_0 / W: the fraction of classes_[0] (scikit-learn constrains it, the
        # sign of the constraint flipped, for the fraction of classes_[1])
        with np.errstate(divide="ignore", invalid="ignore"):
            return counts[0] / counts.sum(axis=0)


class Entropy(Gini):
    """Shannon entropy in bits on weighted class counts (Quinlan 1986)."""

    name = "entropy"

    @classmethod
    def weighted_impurity(cls, counts):
        return counts.sum(axis=0) * cls.impurity(counts)

    @staticmethod
    def impurity(counts):
        # -sum_k p_k log2 p_k with p_k = c_k / W (terms with c_k = 0 are 0), the
        # classes summed one after another as scikit-learn does.  The same
        # entropy as dtree.information._entropy_of_counts (natural log over
        # log(base), pairwise sums on the last axis), which ID3 and C4.5 use:
        # both are kept, so that no tree of either family changes by a float;
        # tests/test_criteria.py checks that they agree to 1e-12.
        total = counts.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = counts / total
            terms = _p_log2_p(p)                               # p_k log2 p_k, shape of counts
        # -sum_k p_k log2 p_k (+ 0.0 turns -0.0 into 0.0)
        return -_sum_over_classes(terms) + 0.0


class SquaredError(Criterion):
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

    MONOTONIC_ROW = 1    # the weighted sum of y

    @staticmethod
    def monotonic_value(stats):
        # S / W: the mean, sum_left[0] / weighted_n_left in scikit-learn
        with np.errstate(divide="ignore", invalid="ignore"):
            return stats[1] / stats[0]


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


class AbsoluteError(Criterion):
    r"""Mean absolute deviation from the weighted median (least absolute deviation).

    The impurity of a node is :math:`\frac{1}{W}\sum_i w_i |y_i - \tilde y|`
    and its value the weighted median :math:`\tilde y` (scikit-learn's
    ``MAE`` criterion: the first value, in increasing order, whose cumulative
    weight reaches :math:`W/2`, or the midpoint of it and the next value if
    the cumulative weight is exactly :math:`W/2`; Breiman et al. 1984, section
    8.11).  The proxy of a split is :math:`-(D_L + D_R)`, minus the children's
    sums of absolute deviations, i.e. :math:`-W_L i(L) - W_R i(R)`; the sweep
    computes it with :meth:`children_score` (the children's statistics are
    never materialised), :meth:`proxy` from statistics at hand.

    Medians are not sums, so this criterion is not additive: its per-sample
    statistics are (w, y) and a node's statistics (W, median, D)
    come from sorting for nodes (:func:`dtree.order_statistics.segment_medians`)
    and from a wavelet matrix for the children of every candidate split
    (:class:`dtree.order_statistics.RangeDeviations`), or, where every sum is
    an exact float (whole weights, targets of few binary digits), from
    Fenwick trees swept along each feature (:func:`dtree.kernels.search_deviations`,
    the same proxies).
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
    def monotonic_value(stats):
        """The weighted median (row 1 of the statistics (W, median, D))."""
        return stats[1]

    @staticmethod
    def middle_value(left, right):
        """scikit-learn's ``MAE.middle_value``: the children's medians' average."""
        return (left[1] + right[1]) / 2

    @staticmethod
    def proxy(left, right):
        """:math:`-(D_L + D_R)` from the children's (W, median, D), shape ``left.shape[1:]``.

        For a split whose children's statistics are at hand (the reference
        splitter of :mod:`dtree.splitting`); the sweep never builds them and
        scores its cuts with :meth:`children_score`.
        """
        return -(left[2] + right[2])

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


    @staticmethod
    def children_medians(stats, O, starts, sizes, row, p):
        """The weighted medians of the two children of the cuts after positions ``p`` of rows ``row``.

        The cut after position ``p`` of a segment of row ``row`` of ``O``
        (shape (b, m), the segments ``starts``, ``sizes`` in the order of a
        feature, as in :meth:`children_score`) makes ``[start, p]`` the left
        and ``(p, end)`` the right child.  Returns an array of shape (2, k) for
        the ``k`` cuts: the left and right children's medians, by the rule of
        :func:`dtree.order_statistics.segment_medians` (scikit-learn's
        ``WeightedMedianCalculator``): the lowest value whose cumulative
        weight reaches :math:`W/2`, or the midpoint of it and the lowest
        value whose cumulative weight exceeds :math:`W/2` if it reaches it
        exactly.  The medians are what a monotonicity constraint compares
        (scikit-learn's ``MAE.check_monotonicity``); both come from one
        wavelet descent each (:func:`dtree.order_statistics.lowest_reaching`).
        """
        from dtree.order_statistics import lowest_reaching, segment_ranks

        b, m = O.shape
        by_y, local = segment_ranks(stats[1, O[0]], starts, sizes)
        rank_of = np.empty(stats.shape[1], dtype=np.intp)
        rank_of[O[0]] = local
        y_by_rank = stats[1, O[0, by_y]]     # the target of rank x in segment c: [start_c + x]
        weight, y = stats[0, O], stats[1, O]
        prefix = np.zeros((b, m + 1))
        np.cumsum(weight, axis=1, out=prefix[:, 1:])
        seg = np.searchsorted(starts, p, side="right") - 1
        start = starts[seg]
        rows = np.tile(row, 2)
        lo = np.concatenate([start, p + 1])               # left child [start, p], right (p, end)
        hi = np.concatenate([p + 1, start + sizes[seg]])
        half = (prefix[rows, hi] - prefix[rows, lo]) / 2.0     # W / 2 of each child
        ranks = rank_of[O]
        first, _, _ = lowest_reaching(ranks, weight, weight * y, rows, lo, hi, half)
        # The lowest value whose cumulative weight exceeds W/2 (>= the next float).
        after, _, _ = lowest_reaching(ranks, weight, weight * y, rows, lo, hi,
                                      np.nextafter(half, np.inf))
        base = np.tile(start, 2)
        low, high = y_by_rank[base + first], y_by_rank[base + after]
        # Exactly W/2 up to `first`: the midpoint with the next value.
        median = np.where(after != first, (low + high) / 2.0, low)
        return median.reshape(2, -1)


class FriedmanMSE(SquaredError):
    r"""Squared error with Friedman's improvement score (scikit-learn's ``friedman_mse``).

    The impurity of a node and the value of a leaf are those of
    :class:`SquaredError` (weighted variance, mean); only the score that ranks
    the splits of a node differs: Friedman's improvement (J. H. Friedman,
    "Greedy function approximation: a gradient boosting machine", *Ann.
    Statist.* 29(5), 2001, eq. 35),

    .. math:: \frac{w_L w_R}{w_L + w_R} (\bar y_L - \bar y_R)^2 .

    The proxy is scikit-learn's :math:`d^2 / (w_L w_R)` with
    :math:`d = w_R S_L - w_L S_R` (:math:`S` the weighted sums of y), which is
    :math:`w_L w_R (\bar y_L - \bar y_R)^2`, :math:`W_t` times the
    improvement, computed with the same floats as scikit-learn so that ties
    between splits fall the same way.  The two scores rank splits alike in
    exact arithmetic (the decrease of the weighted sum of squares is this
    improvement); they can differ in the last bits, where the proxy of
    :class:`SquaredError` would break a near-tie otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> left = np.array([[2.0], [2.0]])      # (w, S): y = 0, 2
    >>> right = np.array([[1.0], [4.0]])     # y = 4
    >>> float(FriedmanMSE.proxy(left, right)[0])    # w_L w_R (1 - 4)**2
    18.0
    """

    name = "friedman_mse"

    @staticmethod
    def proxy(left, right):
        w_left, w_right = left[0], right[0]
        diff = w_right * left[1] - w_left * right[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return diff * diff / (w_left * w_right)

    @classmethod
    def improvement(cls, totals, impurity, left, right, total_weight):
        r"""Friedman's improvement :math:`w_L w_R (\bar y_L - \bar y_R)^2 / W_t`.

        scikit-learn's ``FriedmanMSE.impurity_improvement``, which
        ``min_impurity_decrease`` is compared with: not divided by the total
        weight :math:`W`, unlike the other criteria's decrease.
        """
        w_node, w_left, w_right = cls.weight(totals), cls.weight(left), cls.weight(right)
        diff = w_right * left[1] - w_left * right[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return diff * diff / (w_left * w_right * w_node)


class _MultiOutputClassification:
    r"""A classification criterion of several outputs: the mean of the outputs' impurities.

    The statistics of a sample are its class weights of every output, one
    block of rows per output (:math:`K_1 + \dots + K_m` rows); a node's
    impurity is :math:`\frac{1}{m}\sum_k i_k(t)`, the mean of the impurities
    of its outputs' class counts, and its weight that of the first output
    (every output sees the same samples).  scikit-learn's ``Gini`` and
    ``Entropy`` with ``n_outputs > 1`` (``_criterion.pyx``): the outputs'
    impurities summed one after another, then divided by :math:`m`.  Made by
    :func:`multi_output`; ``base`` is :class:`Gini` or :class:`Entropy`.
    """

    base: type
    n_outputs: int
    n_classes: tuple          # K_k of each output
    blocks: tuple             # the rows of each output's class weights

    @classmethod
    def sample_stats(cls, codes, weight, n_classes=None):
        """Class weights of every output (:class:`OutputsClassWeights`)."""
        return OutputsClassWeights(codes, weight, cls.n_classes)

    @classmethod
    def weight(cls, counts):
        return counts[cls.blocks[0]].sum(axis=0)

    @classmethod
    def impurity(cls, counts):
        # (1/m) sum_k i_k(t): every block at once, then the outputs summed one
        # after another (W, the same for every output, computed once)
        total = cls.weight(counts)
        with np.errstate(divide="ignore", invalid="ignore"):
            if cls.base is Gini:
                # 1 - sum_k sum_c c^2 / (m W^2): the mean of the outputs' 1 - sum_c c^2 / W^2
                squares = _sum_over_classes(np.square(counts))
                squares /= total * total * cls.n_outputs
                return 1.0 - squares
            p = counts / total
            terms = _p_log2_p(p)                             # p log2 p of every class
        entropy = _sum_over_classes(terms[cls.blocks[0]])
        for rows in cls.blocks[1:]:
            entropy = entropy + _sum_over_classes(terms[rows])
        return -entropy / cls.n_outputs + 0.0

    @classmethod
    def weighted_impurity(cls, counts):
        """W times the mean impurity of the outputs (what the proxy sums)."""
        return cls.weight(counts) * cls.impurity(counts)

    @classmethod
    def proxy(cls, left, right):
        # -W_L i(L) - W_R i(R), i the mean over the outputs
        return -cls.weighted_impurity(right) - cls.weighted_impurity(left)

    @classmethod
    def value(cls, counts):
        """Class weights of every output, (n_outputs, max K, n_nodes), zero-padded."""
        out = np.zeros((cls.n_outputs, max(cls.n_classes)) + counts.shape[1:])
        for k, rows in enumerate(cls.blocks):
            out[k, :cls.n_classes[k]] = counts[rows]
        return out


class _MultiOutputRegression:
    r"""A regression criterion of several outputs: the mean of the outputs' impurities.

    Made by :func:`multi_output` from :class:`SquaredError`,
    :class:`FriedmanMSE`, :class:`Poisson` or :class:`AbsoluteError`, with
    scikit-learn's formulas for ``n_outputs = m > 1`` (``_criterion.pyx``):

    * squared error, statistics :math:`(w, w y_1, \dots, w y_m, w \sum_k y_k^2)`:
      :math:`i(t) = \frac{1}{m}\bigl(\overline{\textstyle\sum_k y_k^2}
      - \sum_k \bar y_k^2\bigr)`, the mean of the outputs' variances; proxy
      :math:`\sum_k S_{L,k}^2 / W_L + \sum_k S_{R,k}^2 / W_R`;
    * Friedman's improvement on the sums over outputs :math:`S = \sum_k S_k`;
    * Poisson, statistics :math:`(w, w y_1, \dots, w y_m, w y_1 \ln y_1,
      \dots)`: the mean of the outputs' half deviances, a split forbidden if
      any output of a child sums to 0;
    * absolute error, statistics :math:`(w, y_1, \dots, y_m)` and node
      statistics :math:`(W, \tilde y_1, \dots, \tilde y_m, D_1, \dots, D_m)`:
      :math:`i(t) = \sum_k D_k / (m W)`, proxy :math:`-\sum_k (D_{L,k} +
      D_{R,k})`.

    A leaf predicts each output's mean (median for the absolute error).
    """

    base: type
    n_outputs: int

    @classmethod
    def sample_stats(cls, y, weight, n_classes=None):
        """Per-sample statistics of the outputs (the class docstring's), (n_stats, n_samples)."""
        if cls.base is AbsoluteError:
            return np.vstack([weight, y.T])
        wy = weight[:, None] * y                            # w y_k, (n_samples, m)
        if cls.base is Poisson:
            with np.errstate(divide="ignore", invalid="ignore"):
                y_log_y = np.where(y > 0, y * np.log(y), 0.0)
            return np.vstack([weight, wy.T, (weight[:, None] * y_log_y).T])
        # w * sum_k y_k^2, the outputs added one after another
        squares = np.cumsum(wy * y, axis=1)[:, -1]
        return np.vstack([weight, wy.T, squares])

    @staticmethod
    def weight(stats):
        return stats[0]

    @classmethod
    def _sums(cls, stats):
        return stats[1:1 + cls.n_outputs]

    @classmethod
    def impurity(cls, stats):
        m, w = cls.n_outputs, stats[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            if cls.base is AbsoluteError:                   # sum_k D_k / (m W)
                return _sum_over_classes(stats[1 + m:1 + 2 * m]) / (w * m)
            if cls.base is Poisson:                         # (1/m) sum_k i_k
                total = cls.base.impurity(stats[[0, 1, 1 + m]])
                for k in range(1, m):
                    total = total + cls.base.impurity(stats[[0, 1 + k, 1 + m + k]])
                return total / m
            # (sum w y^2 / W - sum_k (S_k / W)^2) / m
            impurity = stats[1 + m] / w
            for k in range(m):
                mean = stats[1 + k] / w
                impurity = impurity - mean * mean
            return impurity / m

    @classmethod
    def proxy(cls, left, right):
        m = cls.n_outputs
        if cls.base is AbsoluteError:                       # -(sum_k D_L,k + sum_k D_R,k)
            return -(_sum_over_classes(left[1 + m:1 + 2 * m])
                     + _sum_over_classes(right[1 + m:1 + 2 * m]))
        if cls.base is Poisson:
            score = cls.base.proxy(left[[0, 1]], right[[0, 1]])
            for k in range(1, m):
                score = score + cls.base.proxy(left[[0, 1 + k]], right[[0, 1 + k]])
            return score
        if cls.base is FriedmanMSE:                         # on S = sum_k S_k
            return FriedmanMSE.proxy(cls._summed(left), cls._summed(right))
        # sum_k S_L,k^2 / W_L + sum_k S_R,k^2 / W_R
        with np.errstate(divide="ignore", invalid="ignore"):
            return (_sum_over_classes(np.square(cls._sums(left))) / left[0]
                    + _sum_over_classes(np.square(cls._sums(right))) / right[0])

    @classmethod
    def _summed(cls, stats):
        """(W, sum_k S_k): the statistics Friedman's improvement reads."""
        return np.stack([stats[0], _sum_over_classes(cls._sums(stats))])

    @classmethod
    def improvement(cls, totals, impurity, left, right, total_weight):
        if cls.base is FriedmanMSE:
            # scikit-learn's FriedmanMSE.impurity_improvement: the difference of
            # the children's sums over outputs, divided by m, squared
            w_node, w_left, w_right = totals[0], left[0], right[0]
            diff = (w_right * _sum_over_classes(cls._sums(left))
                    - w_left * _sum_over_classes(cls._sums(right))) / cls.n_outputs
            with np.errstate(divide="ignore", invalid="ignore"):
                return diff * diff / (w_left * w_right * w_node)
        return Criterion.improvement.__func__(cls, totals, impurity, left, right, total_weight)

    @classmethod
    def value(cls, stats):
        """Each output's mean (median), shape (n_outputs, n_nodes)."""
        if cls.base is AbsoluteError:
            return stats[1:1 + cls.n_outputs]
        return cls._sums(stats) / stats[0:1]

    @classmethod
    def node_stats(cls, stats, samples, starts):
        if cls.base is not AbsoluteError:
            return Criterion.node_stats.__func__(cls, stats, samples, starts)
        m = cls.n_outputs
        per_output = [AbsoluteError.node_stats(stats[[0, 1 + k]], samples, starts)
                      for k in range(m)]
        return np.vstack([per_output[0][:1]] + [s[1:2] for s in per_output]
                         + [s[2:3] for s in per_output])

    @classmethod
    def children_score(cls, stats, O, starts, sizes, cand, min_weight_leaf=0.0):
        # the outputs' -(D_L + D_R), summed (-inf stays -inf)
        score = AbsoluteError.children_score(stats[[0, 1]], O, starts, sizes, cand,
                                             min_weight_leaf)
        for k in range(1, cls.n_outputs):
            score += AbsoluteError.children_score(stats[[0, 1 + k]], O, starts, sizes, cand,
                                                  min_weight_leaf)
        return score


_MULTI_OUTPUT = {}


def multi_output(criterion, n_outputs, n_classes=None):
    """The criterion ``criterion`` for ``n_outputs`` outputs (itself for one).

    Parameters
    ----------
    criterion : type
        A criterion of this module (:class:`Gini`, :class:`Entropy`,
        :class:`SquaredError`, :class:`FriedmanMSE`, :class:`Poisson`,
        :class:`AbsoluteError`).
    n_outputs : int
        Number of outputs :math:`m` (columns of ``y``).
    n_classes : sequence of int, default=None
        Number of classes of each output (classification).

    Returns
    -------
    type
        A subclass of ``criterion`` whose impurity is the mean of the
        outputs' impurities (scikit-learn's rule for ``n_outputs > 1``),
        cached per layout.

    Examples
    --------
    >>> import numpy as np
    >>> both = multi_output(Gini, 2, [2, 3])
    >>> counts = np.array([[2.0], [2.0], [4.0], [0.0], [0.0]])   # output 1 is pure
    >>> float(both.impurity(counts)[0])                          # (0.5 + 0) / 2
    0.25
    """
    n_outputs = int(n_outputs)
    if n_outputs == 1:
        return criterion
    n_classes = None if n_classes is None else tuple(int(k) for k in n_classes)
    key = (criterion, n_outputs, n_classes)
    if key not in _MULTI_OUTPUT:
        if criterion.is_classification:
            edges = np.cumsum((0,) + n_classes)
            attrs = dict(base=criterion, n_outputs=n_outputs, n_classes=n_classes,
                         blocks=tuple(slice(int(a), int(b)) for a, b in zip(edges, edges[1:])),
                         n_swept=None)
            mixin = _MultiOutputClassification
        else:
            attrs = dict(base=criterion, n_outputs=n_outputs,
                         n_swept=None if criterion is AbsoluteError else 1 + n_outputs)
            mixin = _MultiOutputRegression
        attrs["__doc__"] = (f"{criterion.__name__} of {n_outputs} outputs "
                            f"(see :func:`dtree.criteria.multi_output`).")
        _MULTI_OUTPUT[key] = type(f"{criterion.__name__}x{n_outputs}", (mixin, criterion), attrs)
    return _MULTI_OUTPUT[key]


CLASSIFICATION_CRITERIA = {"gini": Gini, "entropy": Entropy, "log_loss": Entropy}
REGRESSION_CRITERIA = {"squared_error": SquaredError, "absolute_error": AbsoluteError,
                       "poisson": Poisson, "friedman_mse": FriedmanMSE}


def get_criterion(name, *, classification: bool):
    """The criterion class for ``name``; raises ``InvalidParameterError`` for an unknown name."""
    from dtree.exceptions import InvalidParameterError

    table = CLASSIFICATION_CRITERIA if classification else REGRESSION_CRITERIA
    if not isinstance(name, str) or name not in table:
        raise InvalidParameterError(
            f"criterion must be one of {sorted(table)}, got {name!r}"
        )
    return table[name]

