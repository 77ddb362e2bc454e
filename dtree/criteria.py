r"""Impurity criteria for CART, written on *sufficient statistics*.

The sorted sweep (:mod:`dtree.sweep`) moves a node's samples one at a time
from its right child to its left, in increasing order of a feature.  It can
do so in :math:`O(1)` per sample because each criterion needs only a few sums
over the samples of a node: the statistics of the left child are a running
sum of per-sample statistics, and those of the right child are the node's
total minus the left.  A criterion here subclasses :class:`Criterion` and
declares, once:

* ``sample_stats`` -- the per-sample statistics, an array of shape
  (n_stats, n_samples); for the class counts, a :class:`ClassWeights` that
  stands for the one-hot array of shape (n_classes, n_samples) without
  building it;
* the sweep's functions (:data:`Criterion.SWEEP`): ``add`` (move one sample
  left), ``score`` (the proxy of a cut: a score that ranks the splits of one
  node as the impurity decrease does, without the node's constant terms),
  ``split_weights``, ``split_values`` (what monotonicity constraints
  compare), ``reset``, ``prepare`` and ``add_rest`` -- plain functions that
  Numba compiles for the sweep, and that the tests and the book run as
  written;
* ``node_stats``, ``weight``, ``impurity``, ``proxy``, ``value`` -- the same
  quantities on arrays of nodes (statistics along the first axis), for the
  growth, the tree's arrays and pruning;
* ``monotonic_value``, ``middle_value``, ``check_monotonicity`` --
  scikit-learn's functions of the same names in ``_criterion.pyx``.

============== ================================ ===================================
criterion       statistics per sample            impurity of a node (weights w)
============== ================================ ===================================
gini            :math:`w\,e_{y}` (K columns)     :math:`1 - \sum_k (c_k/W)^2`
entropy         :math:`w\,e_{y}` (K columns)     :math:`-\sum_k (c_k/W) \log_2 (c_k/W)`
misclassif.     :math:`w\,e_{y}` (K columns)     :math:`1 - \max_k c_k/W`
squared_error   :math:`(w, wy, wy^2)`            :math:`\overline{y^2} - \bar y^2`
poisson         :math:`(w, wy, w\,y\ln y)`       :math:`\frac{1}{W}\sum w\, y \ln(y/\bar y)`
============== ================================ ===================================

(:math:`e_y` is the one-hot vector of the class, :math:`c_k` the weighted
count of class :math:`k` and :math:`W` the total weight.)  The absolute error
is not a sum of per-sample statistics: :class:`AbsoluteError`'s sweep keeps
the node's samples ranked by target and finds each child's weighted median.
The formulas are those of scikit-learn's ``_criterion.pyx``, so that the two
libraries rank candidate splits identically.
"""

from __future__ import annotations

import math

import numpy as np

from dtree import kernels

__all__ = ["CLASSIFICATION_CRITERIA", "REGRESSION_CRITERIA", "Criterion", "get_criterion"]

# Below this, an impurity counts as zero (scikit-learn's EPSILON).
EPSILON = np.finfo(np.float64).eps
# The sweep's class codes of a regression: none (one type for every criterion).
NO_CODES = np.zeros((0, 1), dtype=np.intp)


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
    methods); :mod:`dtree.sweep`, :mod:`dtree.splitting` and
    :mod:`dtree.growth` call only what is declared here.  A new criterion is
    a subclass and an entry of :data:`CLASSIFICATION_CRITERIA` or
    :data:`REGRESSION_CRITERIA`; its sweep functions run compiled.

    Attributes
    ----------
    name : str
        The estimators' ``criterion`` parameter that selects it.
    is_classification : bool
        Whether the statistics are class weights (a leaf predicts class
        fractions) rather than those of a numeric target.
    n_swept : int or None, default=None
        How many leading statistics (rows) the sweep adds up (``sweep_data``).
        ``None``: all.
    MONOTONIC_ROW : int or None, default=None
        The statistic whose ratio to the weight is :meth:`monotonic_value`
        (read by the default :meth:`middle_value`).
    grows_whole : bool, default=False
        Whether it declares the functions of :data:`GROW`, with which
        :func:`dtree.kernels.grow_levels` grows a whole tree in one compiled
        call; otherwise its trees grow level by level, each level's search
        compiled.
    squares_weights : bool, default=False
        Whether its impurity squares class weights (Gini): the compiled
        growth takes the same floats as NumPy only while :math:`W^2 < 2^{53}`.
    """

    name: str
    is_classification: bool
    n_swept = None
    MONOTONIC_ROW = None
    grows_whole = False
    squares_weights = False

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

    # -- The sorted sweep's declaration (dtree.sweep) ------------------------
    # Plain functions of floats and arrays, which dtree.sweep calls through
    # the name ``criterion`` and Numba compiles.  ``left`` is the left child's
    # running statistics, ``total`` the node's (right = total - left);
    # ``codes``, ``floats`` and ``layout`` come from sweep_data, ``state``
    # from sweep_state.

    #: Whether a sparse ``X`` is searched as it is (:func:`dtree.sweep.sweep_sparse`).
    sparse_search = True

    #: The names of the declaration, each a static method.
    SWEEP = ("prepare", "reset", "add", "add_rest", "split_weights", "split_values", "score")

    #: The names of the whole growth's declaration (:func:`dtree.kernels.grow_levels`),
    #: each a static method, where :attr:`grows_whole`.
    GROW = ("node_totals", "node_impurity", "decrease")

    @classmethod
    def sweep_functions(cls):
        """The declaration's functions, by name (:data:`SWEEP` and :data:`GROW`).

        Every criterion has :data:`GROW`'s (the defaults below where it
        declares none; :attr:`grows_whole` says whether the compiled growth may
        call them), so that two criteria of the same functions, such as one
        of several outputs and its base, bind the same copies.
        """
        return {name: getattr(cls, name) for name in cls.SWEEP + cls.GROW}

    @staticmethod
    def node_totals(samples, starts, codes, weight, has_weight, stats, n_outputs, out):
        """:meth:`node_stats` of the segments of ``samples`` starting at ``starts``, into ``out``.

        The compiled growth's form (:func:`dtree.kernels.segment_totals`: the
        statistics summed, the floats of NumPy's sums).
        """
        kernels.segment_totals(samples, starts, codes, weight, has_weight, stats, out)

    @staticmethod
    def node_impurity(totals, j, n_outputs):
        """:meth:`impurity` of segment ``j`` of ``totals`` (n_stats, n), the same float."""
        return math.nan

    @staticmethod
    def decrease(parent, j, impurity, children, i, i_left, i_right, w_node, w_left, w_right,
                 total_weight, n_outputs, min_impurity_decrease):
        """:meth:`improvement` of one split, and whether rounding could decide its rule.

        The split of segment ``j`` of ``parent`` (impurity ``impurity``) into
        segments ``2 i`` and ``2 i + 1`` of ``children`` (impurities
        ``i_left``, ``i_right``; weights ``w_node``, ``w_left``,
        ``w_right``).  Returns ``(decrease, undecided)``: ``undecided`` where
        the decrease is too close to ``min_impurity_decrease`` for the
        compiled growth to decide as NumPy does (the growth then goes level
        by level).
        """
        a, b = w_right / w_node * i_right, w_left / w_node * i_left
        return (w_node / total_weight) * (impurity - a - b), False

    @classmethod
    def sweep_key(cls):
        """What identifies the compiled search of this criterion: its functions and their owner."""
        functions = cls.sweep_functions()
        return (cls.score.__qualname__.split(".")[0],) + tuple(functions.values())

    @classmethod
    def sweep_data(cls, stats):
        """The per-sample arrays the sweep reads: ``(codes, floats, layout)``.

        For a regression, ``floats`` is the first ``n_swept`` rows of
        ``stats`` (n_stats, n_samples), ``codes`` empty and ``layout`` the
        number of outputs ``[m]``.
        """
        rows = stats.shape[0] if cls.n_swept is None else cls.n_swept
        floats = np.ascontiguousarray(stats[:rows], dtype=np.float64)
        return NO_CODES, floats, np.array([getattr(cls, "n_outputs", 1)], dtype=np.intp)

    @classmethod
    def sweep_state(cls, stats):
        """The sweep's working arrays (a tuple; none here)."""
        return (np.zeros(0),)

    @staticmethod
    def prepare(state, samples, total, codes, floats, layout):
        """Make ``state`` ready for the node of ``samples`` and statistics ``total``.

        :func:`dtree.sweep.best_split` calls it once per node with the node's
        samples; :func:`dtree.sweep.sweep_sparse` once per feature and node
        with the node's stored samples only, so a criterion that needs every
        sample of the node (the absolute error) is not searched sparse
        (:attr:`sparse_search`).
        """

    @staticmethod
    def reset(left, state, layout, samples):
        """Empty the left child before the sweep of a feature (``samples``: the
        node's samples in the feature's order)."""
        for k in range(left.shape[0]):
            left[k] = 0.0

    @staticmethod
    def add(left, state, codes, floats, s):
        """Move sample ``s`` from the right child to the left: ``left += stats[:, s]``."""
        for k in range(floats.shape[0]):
            left[k] += floats[k, s]

    @staticmethod
    def add_rest(left, total, stored):
        """Move the samples of ``total - stored`` left (a sparse node's zeros, summed as one)."""
        for k in range(left.shape[0]):
            left[k] += total[k] - stored[k]

    @staticmethod
    def split_weights(left, total, layout):
        """The children's weights :math:`(W_L, W_R)`."""
        return left[0], total[0] - left[0]

    @staticmethod
    def split_values(left, total, state, layout):
        """The children's values that a monotonicity constraint compares: their means."""
        return left[1] / left[0], (total[1] - left[1]) / (total[0] - left[0])

    @staticmethod
    def score(left, total, state, layout):
        """The proxy of the cut (:meth:`proxy`, for one cut)."""
        raise NotImplementedError
def _children_weights(left, total, layout):
    """The children's weights :math:`(W_L, W_R)`: the first output's class weights summed."""
    w_left, w_right = 0.0, 0.0
    for k in range(layout[1]):
        w_left += left[k]
        w_right += total[k] - left[k]
    return w_left, w_right


class Gini(Criterion):
    """Gini impurity on weighted class counts (Breiman et al. 1984, section 4.3)."""

    name = "gini"
    is_classification = True
    grows_whole = True
    squares_weights = True

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

    @staticmethod
    def node_impurity(totals, j, n_outputs):
        # 1 - sum_k c_k^2 / W^2, the classes added one after another
        total = 0.0
        for k in range(totals.shape[0]):
            total += totals[k, j]
        squares = 0.0
        for k in range(totals.shape[0]):
            squares += totals[k, j] * totals[k, j]
        return 1.0 - squares / (total * total)

    @classmethod
    def sweep_data(cls, stats):
        """``codes`` (n_outputs, n_samples): each sample's row of the class weights
        in each output; ``floats`` (1, n_samples) its weight; ``layout`` each
        output's first row, then the number of rows."""
        outputs = getattr(stats, "outputs", [stats])
        edges = getattr(stats, "edges", [0, stats.shape[0]])
        codes = np.empty((len(outputs), stats.shape[1]), dtype=np.intp)
        for k, output in enumerate(outputs):
            codes[k] = output.codes
            codes[k] += int(edges[k])
        weight = np.ones(stats.shape[1]) if stats.weight is None else stats.weight
        return codes, weight.reshape(1, -1), np.asarray(edges, dtype=np.intp)

    @classmethod
    def sweep_state(cls, stats):
        """``(present,)``: ``present`` of shape (n_rows + 1,), intp, lists the rows
        (classes, of every output) of positive weight in the node, their number in
        the last slot (:meth:`prepare` fills it once per node)."""
        return (np.zeros(stats.shape[0] + 1, dtype=np.intp),)

    @staticmethod
    def prepare(state, samples, total, codes, floats, layout):
        # the classes of positive weight in the node: the score reads only
        # these (an absent class adds 0.0 to every sum: the same floats)
        present = state[0]
        n = 0
        for k in range(total.shape[0]):
            if total[k] > 0:
                present[n] = k
                n += 1
        present[present.shape[0] - 1] = n

    @staticmethod
    def add(left, state, codes, floats, s):
        # the sample's weight onto its class, in every output
        for o in range(codes.shape[0]):
            left[codes[o, s]] += floats[0, s]

    SWEEP = Criterion.SWEEP + ("_children_weights",)
    _children_weights = staticmethod(_children_weights)

    @staticmethod
    def split_weights(left, total, layout):
        # W: the first output's class weights summed
        return _children_weights(left, total, layout)

    @staticmethod
    def split_values(left, total, state, layout):
        # the fraction of the first class (scikit-learn's classes_[0])
        w_left, w_right = _children_weights(left, total, layout)
        return left[0] / w_left, (total[0] - left[0]) / w_right

    @staticmethod
    def score(left, total, state, layout):
        # -W_R Gini(R) - W_L Gini(L), Gini = 1 - sum_k c_k^2 / (m W^2) over m outputs
        m = layout.shape[0] - 1
        present = state[0]
        w_left, w_right, q_left, q_right = 0.0, 0.0, 0.0, 0.0
        for i in range(present[present.shape[0] - 1]):      # the classes in the node
            k = present[i]
            c_left = left[k]
            c_right = total[k] - c_left
            if k < layout[1]:
                w_left += c_left
                w_right += c_right
            q_left += c_left * c_left
            q_right += c_right * c_right
        return (-((1.0 - q_right / (w_right * w_right * m)) * w_right)
                - (1.0 - q_left / (w_left * w_left * m)) * w_left)

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

    @staticmethod
    def score(left, total, state, layout):
        # -W_R H(R) - W_L H(L), H = -sum_k p_k log2 p_k (the mean over m outputs)
        m = layout.shape[0] - 1
        present = state[0]
        n_present = present[present.shape[0] - 1]
        w_left, w_right = 0.0, 0.0             # the first output's classes summed
        for i in range(n_present):
            k = present[i]
            if k < layout[1]:
                w_left += left[k]
                w_right += total[k] - left[k]
        h_left, h_right = 0.0, 0.0             # sum_k p_k log2 p_k, outputs added
        i = 0                                  # the classes in the node, in order
        for o in range(m):
            a_left, a_right = 0.0, 0.0
            while i < n_present and present[i] < layout[o + 1]:
                k = present[i]
                i += 1
                p = left[k] / w_left
                if p > 0:
                    a_left += p * math.log2(p)
                p = (total[k] - left[k]) / w_right
                if p > 0:
                    a_right += p * math.log2(p)
            h_left = a_left if o == 0 else h_left + a_left
            h_right = a_right if o == 0 else h_right + a_right
        return -(w_right * (-h_right / m + 0.0)) - w_left * (-h_left / m + 0.0)

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

    squares_weights = False

    @staticmethod
    def node_impurity(totals, j, n_outputs):
        # -sum_k p_k log2 p_k, the classes added one after another
        total = 0.0
        for k in range(totals.shape[0]):
            total += totals[k, j]
        acc = 0.0
        for k in range(totals.shape[0]):
            p = totals[k, j] / total
            if p > 0:
                acc += p * math.log2(p)
        return -acc + 0.0

    @staticmethod
    def decrease(parent, j, impurity, children, i, i_left, i_right, w_node, w_left, w_right,
                 total_weight, n_outputs, min_impurity_decrease):
        # Criterion.decrease; the logarithms are the C library's, which may
        # differ from NumPy's in the last bit: a decrease within 1e-12 of the
        # rule, relative to its terms, is left to NumPy
        a, b = w_right / w_node * i_right, w_left / w_node * i_left
        gain = (w_node / total_weight) * (impurity - a - b)
        scale = (w_node / total_weight) * (abs(impurity) + abs(a) + abs(b))
        return gain, abs(gain + EPSILON - min_impurity_decrease) <= 1e-12 * scale


class Misclassification(Gini):
    r"""Misclassification error :math:`E = 1 - \max_k p_k` on weighted class counts.

    The impurity of Part I (Breiman et al. 1984, section 4.1): a node's
    error rate when it predicts its majority class.  It is not strictly
    concave, and the impurity chapter proves the weakness that follows: a
    split can lower the error of neither child's majority and so show no
    decrease while Gini or entropy shows one.  scikit-learn has no such
    criterion; ``criterion="misclassification"`` grows those trees.  The
    proxy is :math:`-W_L E(L) - W_R E(R) = \max_k L_k + \max_k R_k - W_t`
    (the mean over the outputs of several).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[3.0, 2.0], [1.0, 2.0]])      # two nodes, two classes
    >>> Misclassification.impurity(counts).tolist()
    [0.25, 0.5]
    """

    name = "misclassification"

    @staticmethod
    def impurity(counts):
        # 1 - max_k c_k / W
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1.0 - counts.max(axis=0) / counts.sum(axis=0)

    @staticmethod
    def weighted_impurity(counts):
        """W E = W - max_k c_k."""
        return counts.sum(axis=0) - counts.max(axis=0)

    squares_weights = False

    @staticmethod
    def node_impurity(totals, j, n_outputs):
        # 1 - max_k c_k / W
        total, top = 0.0, 0.0
        for k in range(totals.shape[0]):
            total += totals[k, j]
            top = max(top, totals[k, j])
        return 1.0 - top / total

    @staticmethod
    def score(left, total, state, layout):
        # -(W_R - mean_o max_k R_k) - (W_L - mean_o max_k L_k)
        m = layout.shape[0] - 1
        w_left, w_right = _children_weights(left, total, layout)
        top_left, top_right = 0.0, 0.0
        for o in range(m):
            best_left, best_right = 0.0, 0.0
            for k in range(layout[o], layout[o + 1]):
                best_left = max(best_left, left[k])
                best_right = max(best_right, total[k] - left[k])
            top_left += best_left
            top_right += best_right
        return -(w_right - top_right / m) - (w_left - top_left / m)


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

    grows_whole = True

    @staticmethod
    def node_impurity(totals, j, n_outputs):
        # S_2/W - (S/W)^2; of m outputs (S_2/W - sum_k (S_k/W)^2) / m
        w = totals[0, j]
        if n_outputs == 1:
            mean = totals[1, j] / w
            return totals[2, j] / w - mean * mean
        impurity = totals[1 + n_outputs, j] / w
        for k in range(n_outputs):
            mean = totals[1 + k, j] / w
            impurity = impurity - mean * mean
        return impurity / n_outputs

    @staticmethod
    def score(left, total, state, layout):
        # sum_k S_L,k^2 / W_L + sum_k S_R,k^2 / W_R over the m outputs
        w_left = left[0]
        w_right = total[0] - w_left
        q_left, q_right = 0.0, 0.0
        for k in range(1, 1 + layout[0]):
            s_left = left[k]
            s_right = total[k] - s_left
            q_left = s_left * s_left if k == 1 else q_left + s_left * s_left
            q_right = s_right * s_right if k == 1 else q_right + s_right * s_right
        return q_left / w_left + q_right / w_right

    MONOTONIC_ROW = 1    # the weighted sum of y

    @staticmethod
    def monotonic_value(stats):
        # S / W: the mean, sum_left[0] / weighted_n_left in scikit-learn
        with np.errstate(divide="ignore", invalid="ignore"):
            return stats[1] / stats[0]


def _poisson_terms(totals, j, n_outputs):
    """(|sum w y ln y| + |S ln(S/W)|) / W of segment ``j``, the mean over outputs.

    The size of the two terms whose difference is Poisson's impurity (they
    cancel in a pure node): the scale of its rounding (:meth:`Poisson.decrease`).
    """
    w = totals[0, j]
    total = 0.0
    for k in range(n_outputs):
        s, sylny = totals[1 + k, j], totals[1 + n_outputs + k, j]
        if s > EPSILON:
            total += (abs(sylny) + abs(s * math.log(s / w))) / w
    return total / n_outputs


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

    GROW = SquaredError.GROW + ("_poisson_terms",)

    @staticmethod
    def node_impurity(totals, j, n_outputs):
        # (sum w y ln y - S ln(S/W)) / W, inf where S <= EPSILON; the mean over outputs
        w = totals[0, j]
        total = 0.0
        for k in range(n_outputs):
            s, sylny = totals[1 + k, j], totals[1 + n_outputs + k, j]
            impurity = math.inf if s <= EPSILON else (sylny - s * math.log(s / w)) / w
            total = impurity if k == 0 else total + impurity
        return total if n_outputs == 1 else total / n_outputs

    _poisson_terms = staticmethod(_poisson_terms)

    @staticmethod
    def decrease(parent, j, impurity, children, i, i_left, i_right, w_node, w_left, w_right,
                 total_weight, n_outputs, min_impurity_decrease):
        # Criterion.decrease with the C library's ln: only rounding decides a
        # rule at 0 (a decrease is >= 0), as the proxies do; a positive rule
        # within 1e-12 of the decrease, relative to the terms, is left to NumPy
        a, b = w_right / w_node * i_right, w_left / w_node * i_left
        gain = (w_node / total_weight) * (impurity - a - b)
        if min_impurity_decrease <= 0.0:
            return gain, False
        scale = (w_node / total_weight) * (
            _poisson_terms(parent, j, n_outputs)
            + w_right / w_node * _poisson_terms(children, 2 * i + 1, n_outputs)
            + w_left / w_node * _poisson_terms(children, 2 * i, n_outputs))
        return gain, abs(gain + EPSILON - min_impurity_decrease) <= 1e-12 * scale

    @staticmethod
    def score(left, total, state, layout):
        # sum over outputs of S_L log2(S_L / W_L) + S_R log2(S_R / W_R); a child
        # of an output summing to at most EPSILON forbids the cut (-inf)
        w_left = left[0]
        w_right = total[0] - w_left
        score = 0.0
        for k in range(1, 1 + layout[0]):
            s_left = left[k]
            s_right = total[k] - s_left
            if s_left <= EPSILON or s_right <= EPSILON:
                term = -math.inf
            else:
                term = s_left * math.log2(s_left / w_left) + s_right * math.log2(s_right / w_right)
            score = term if k == 1 else score + term
        return score

    @staticmethod
    def proxy(left, right):
        # S_L log2(mean_L) + S_R log2(mean_R): the children's deviance is a
        # constant of the node minus this (eq. cart-poisson-decrease), so it
        # ranks the cuts as the deviance decrease does; children with a
        # non-positive sum are forbidden (-inf).
        s_left, s_right = left[1], right[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = (s_left * np.log2(s_left / left[0])
                     + s_right * np.log2(s_right / right[0]))
        return np.where((s_left <= EPSILON) | (s_right <= EPSILON), -np.inf, score)


def _weighted_median(state, k, on_left, weight):
    """Placeholder of :meth:`AbsoluteError._weighted_median` (bound by the sweep)."""
    return AbsoluteError._weighted_median(state, k, on_left, weight)


class AbsoluteError(Criterion):
    r"""Mean absolute deviation from the weighted median (least absolute deviation).

    The impurity of a node is :math:`\frac{1}{W}\sum_i w_i |y_i - \tilde y|`
    and its value the weighted median :math:`\tilde y` (scikit-learn's
    ``MAE`` criterion: the first value, in increasing order, whose cumulative
    weight reaches :math:`W/2`, or the midpoint of it and the next value if
    the cumulative weight is exactly :math:`W/2`; Breiman et al. 1984, section
    8.11).  The proxy of a split is :math:`-(D_L + D_R)`, minus the children's
    sums of absolute deviations, i.e. :math:`-W_L i(L) - W_R i(R)`.

    Medians are not sums: the per-sample statistics are (w, y), a node's
    statistics (W, median, D) come from sorting the node
    (:func:`dtree.order_statistics.segment_medians`), and the sweep keeps the
    node's samples ranked by target, finds each child's weighted median by
    scikit-learn's rule and sums :math:`D` over the child's samples, as
    scikit-learn's ``MAE`` does: :math:`O(n)` per cut.
    """

    name = "absolute_error"
    is_classification = False

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

    grows_whole = True

    @staticmethod
    def node_totals(samples, starts, codes, weight, has_weight, stats, n_outputs, out):
        # (W, medians, deviations) of each segment, where the sums are exact
        # (deviations_exact): dtree.kernels.segment_medians
        kernels.segment_medians(samples, starts, stats, n_outputs, out)

    @staticmethod
    def node_impurity(totals, j, n_outputs):
        # D / W; of m outputs sum_k D_k / (m W)
        if n_outputs == 1:
            return totals[2, j] / totals[0, j]
        total = totals[1 + n_outputs, j]
        for k in range(1, n_outputs):
            total += totals[1 + n_outputs + k, j]
        return total / (totals[0, j] * n_outputs)

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

        For splits whose children's statistics are at hand.
        """
        return -(left[2] + right[2])

    @staticmethod
    def node_stats(stats, samples, starts):
        """(W, median, D) of each segment ``samples[starts[j]:starts[j+1]]``, shape (3, n_segments)."""
        from dtree.order_statistics import segment_medians

        return segment_medians(stats[1, samples], stats[0, samples], starts)

    # The sweep, as scikit-learn's MAE computes it: each child's weighted
    # median from the node's samples in increasing order of the target, and
    # D = sum_i w_i |y_i - median| summed over the child's samples in the
    # feature's order: O(n) per cut (scikit-learn's cost too), its floats.
    SWEEP = Criterion.SWEEP + ("_weighted_median",)
    sparse_search = False       # a node's zeros are samples to rank, one by one

    @staticmethod
    def add_rest(left, total, stored):
        raise NotImplementedError("the absolute error searches a dense X")

    @classmethod
    def sweep_data(cls, stats):
        """``floats``: the weight and targets of each sample, (1 + m, n_samples)."""
        floats = np.ascontiguousarray(stats, dtype=np.float64)
        return NO_CODES, floats, np.array([stats.shape[0] - 1], dtype=np.intp)

    @classmethod
    def sweep_state(cls, stats):
        """The node's samples by target (per output), the feature's order, who is
        left, the counts (left, node) and the samples' weights and targets."""
        m, n = stats.shape[0] - 1, stats.shape[1]
        return (np.zeros((m, n), dtype=np.intp), np.zeros(n, dtype=np.intp),
                np.zeros(n, dtype=np.bool_), np.zeros(2, dtype=np.intp),
                np.ascontiguousarray(stats, dtype=np.float64))

    @staticmethod
    def prepare(state, samples, total, codes, floats, layout):
        # the node's samples in increasing order of each target (stable)
        by_target, in_order, is_left, counts, values = state
        size = samples.shape[0]
        counts[1] = size
        targets = np.empty(size)
        for k in range(layout[0]):
            for i in range(size):
                targets[i] = floats[1 + k, samples[i]]
            ranked = np.argsort(targets, kind="mergesort")
            for i in range(size):
                by_target[k, i] = samples[ranked[i]]

    @staticmethod
    def reset(left, state, layout, samples):
        # every sample right, in the feature's order
        by_target, in_order, is_left, counts, values = state
        for k in range(left.shape[0]):
            left[k] = 0.0
        counts[0] = 0
        for i in range(samples.shape[0]):
            in_order[i] = samples[i]
            is_left[samples[i]] = False

    @staticmethod
    def add(left, state, codes, floats, s):
        by_target, in_order, is_left, counts, values = state
        is_left[s] = True
        counts[0] += 1
        left[0] += floats[0, s]

    @staticmethod
    def _weighted_median(state, k, on_left, weight):
        # scikit-learn's rule: the first target whose cumulative weight reaches
        # W/2, or its midpoint with the next if the cumulative weight is W/2
        by_target, in_order, is_left, counts, values = state
        half, cumulative, median, exactly_half = weight / 2.0, 0.0, 0.0, False
        for i in range(counts[1]):
            s = by_target[k, i]
            if is_left[s] != on_left:
                continue
            y = values[1 + k, s]
            if exactly_half:
                return (median + y) / 2.0
            cumulative += values[0, s]
            if cumulative >= half:
                median = y
                if cumulative != half:
                    return median
                exactly_half = True
        return median

    @staticmethod
    def split_values(left, total, state, layout):
        # the children's weighted medians of the first output
        return (_weighted_median(state, 0, True, left[0]),
                _weighted_median(state, 0, False, total[0] - left[0]))

    @staticmethod
    def score(left, total, state, layout):
        # -(D_L + D_R), each output's deviations summed, in the feature's order
        by_target, in_order, is_left, counts, values = state
        d_left, d_right = 0.0, 0.0
        for k in range(layout[0]):
            median_left = _weighted_median(state, k, True, left[0])
            median_right = _weighted_median(state, k, False, total[0] - left[0])
            for i in range(counts[1]):
                s = in_order[i]
                if is_left[s]:
                    d_left += values[0, s] * abs(values[1 + k, s] - median_left)
                else:
                    d_right += values[0, s] * abs(values[1 + k, s] - median_right)
        return -(d_left + d_right)


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

    @staticmethod
    def score(left, total, state, layout):
        # d^2 / (W_L W_R), d = W_R S_L - W_L S_R, S summed over the outputs
        w_left = left[0]
        w_right = total[0] - w_left
        s_left, s_right = left[1], total[1] - left[1]
        for k in range(2, 1 + layout[0]):
            s_left += left[k]
            s_right += total[k] - left[k]
        diff = w_right * s_left - w_left * s_right
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

    @staticmethod
    def decrease(parent, j, impurity, children, i, i_left, i_right, w_node, w_left, w_right,
                 total_weight, n_outputs, min_impurity_decrease):
        # improvement, on S = sum_k S_k
        s_left, s_right = children[1, 2 * i], children[1, 2 * i + 1]
        for k in range(1, n_outputs):
            s_left += children[1 + k, 2 * i]
            s_right += children[1 + k, 2 * i + 1]
        diff = (w_right * s_left - w_left * s_right) / n_outputs
        return diff * diff / (w_left * w_right * w_node), False


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

    grows_whole = False      # its statistics are not ClassWeights: level by level

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
            if cls.base is Misclassification:     # the mean of 1 - max_c c / W
                error = 0.0
                for rows in cls.blocks:
                    error = error + (1.0 - counts[rows].max(axis=0) / total)
                return error / cls.n_outputs
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


CLASSIFICATION_CRITERIA = {"gini": Gini, "entropy": Entropy, "log_loss": Entropy,
                           "misclassification": Misclassification}
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

