r"""The split search's interface: splitters, their state, and the partition of a level.

The samples of the nodes being split are kept, for every feature, in an
index array ``order[f]`` in which each node owns a contiguous *segment*,
sorted by the feature's value, missing values (NaN) last.  The features are
sorted once, at the root (:func:`presort`); splitting a node partitions its
segment stably into a left and a right part, which keeps both parts sorted
(:func:`dtree.kernels.partition_level`).  The search of a segment is the
sorted sweep of :mod:`dtree.sweep`, one plain loop compiled by Numba: for a
tree of depth :math:`h` it costs :math:`O(n\,d\,h)` after the
:math:`O(n\,d \log n)` presort (the sorted sweep of the GrowTree lecture
notes).

Candidate thresholds lie between two consecutive distinct values (distinct
as float32, the type scikit-learn stores ``X`` in) at their midpoint; when the
midpoint rounds onto the upper value, the lower value is used.
scikit-learn's source declares a tolerance ``FEATURE_THRESHOLD = 1e-7``, but
its compiled trees (1.7) split any two distinct float32 values, 1e-30 apart
near 0 or one float32 step apart near 1 (``tests/test_cart.py`` measures it),
and so does dtree.

Missing values (scikit-learn >= 1.3), monotonicity constraints (>= 1.4), the
tie rules and the random splitter's draws are those of
:func:`dtree.sweep.best_split`.  The growth (:mod:`dtree.growth`) reaches the
search through a *splitter* object, :class:`BestSplitter` (or
:class:`RandomSplitter`; :class:`dtree.sparse.SparseSplitter` for a sparse
``X``), which owns the presorted index and documents the interface a new
splitter implements.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from dtree import kernels
from dtree.criteria import (
    AbsoluteError,
    ClassWeights,
    Criterion,
)

__all__ = [
    "FEATURE_THRESHOLD",
    "BestSplitter",
    "RandomSplitter",
    "SearchOptions",
    "SplitResult",
    "partition",
    "columns",
    "presort",
]

# Values that differ by at most this much (in float32) are one value: none,
# as in scikit-learn's compiled trees (see the module docstring).
FEATURE_THRESHOLD = np.float32(0.0)

# At most this many (feature, position) cells of an index are partitioned at
# once by partition (a boolean and an index temporary of this size).
PARTITION_CELLS = 1 << 14

# The presorted index's type: one type, one compiled search.
_ORDER_DTYPE = np.uint32



@dataclass
class SplitResult:
    """The best split of each segment; ``feature == -1`` where none is valid.

    The non-missing samples sent left are the first ``cut`` of the segment in
    the order of ``feature``; its last ``n_missing`` samples are the missing
    ones, sent left if ``missing_left``.
    """

    feature: np.ndarray             # (n_segments,) int
    threshold: np.ndarray           # (n_segments,) float64 (inf: non-missing vs missing)
    cut: np.ndarray                 # (n_segments,) int, non-missing samples sent left
    n_missing: np.ndarray           # (n_segments,) int, samples missing the feature
    missing_left: np.ndarray        # (n_segments,) bool, missing samples went left in training
    missing_go_to_left: np.ndarray  # (n_segments,) bool, where NaN goes at predict time
    n_left: np.ndarray              # (n_segments,) int, samples sent left
    proxy: np.ndarray               # (n_segments,) the criterion's proxy score

    @classmethod
    def from_sweep(cls, out):
        """The splits that :mod:`dtree.sweep` wrote into ``out`` (n_segments, 8)."""
        feature = out[:, 1].astype(np.intp)
        return cls(feature=feature, threshold=np.where(feature >= 0, out[:, 2], 0.0),
                   cut=out[:, 3].astype(np.intp), n_missing=out[:, 5].astype(np.intp),
                   missing_left=out[:, 6] != 0, missing_go_to_left=out[:, 7] != 0,
                   n_left=out[:, 4].astype(np.intp), proxy=out[:, 0])

    def select(self, mask):
        """The splits of the segments where ``mask`` (n_segments,) is true."""
        return SplitResult(**{name: values[mask] for name, values in vars(self).items()})


@dataclass
class SearchOptions:
    """What a randomised search draws for each segment (``None``: not drawn).

    Each array has shape (n_segments, n_features); see
    :meth:`BestSplitter.options` for how they are drawn.
    """

    feature_mask: np.ndarray | None = None   # bool: features the segment may use
    feature_rank: np.ndarray | None = None   # int: order of features on ties (lower first)
    thresholds: np.ndarray | None = None     # float64: the one candidate threshold
    missing_left: np.ndarray | None = None   # bool: where missing values are sent




def columns(X):
    """``float32(X).T``, the values the sweep reads (by features), and its layout "C" or "F".

    A float32 ``X`` is read in place (``X.T``, F-ordered for a C-ordered
    ``X``); any other as a float32 copy in C order, as scikit-learn copies it.
    """
    in_place = X.dtype == np.float32 and (X.flags.c_contiguous or X.flags.f_contiguous)
    values = X.T if in_place else np.ascontiguousarray(X.T, dtype=np.float32)
    return values, columns_layout(X)


def columns_layout(X):
    """The memory order of :func:`columns`' values of ``X``: "F" for a C-ordered float32
    ``X`` (read in place), else "C"."""
    c_only = X.flags.c_contiguous and not X.flags.f_contiguous
    return "F" if X.dtype == np.float32 and c_only else "C"


def presort(X) -> np.ndarray:
    """Per feature, the samples in increasing order of the feature (stable; NaN last).

    ``X`` of shape (n_samples, n_features) is compared as float32 (values that
    round to one float32 are tied, and keep the order of the samples).
    Returns an array of shape (n_features, n_samples) of the smallest unsigned
    integer type that holds every sample index (``numpy.min_scalar_type``:
    uint16 up to 65,536 samples, a quarter of an int64 index), because it is
    the largest array of the fit.  Readers convert it before any arithmetic.
    """
    n_samples, n_features = X.shape
    dtype = np.min_scalar_type(max(n_samples - 1, 0))
    order = np.empty((n_features, n_samples), dtype=dtype)
    for f in range(n_features):  # one feature at a time: no int64 (d, n) temporary
        order[f] = np.argsort(X[:, f].astype(np.float32), kind="stable")
    return order


def feature_values(X, samples, features):
    """``float32(X[samples, features])``: the values the tree compares, as float32.

    ``X`` of shape (n_samples, n_features) is the caller's float32 or float64
    array, read in place; ``samples`` and ``features`` broadcast together.
    """
    return X[samples, features].astype(np.float32, copy=False)



def partition(order, starts, sizes, n_left, goes_left) -> None:
    """Stably split every segment of ``order`` into its left and right part, in place.

    Parameters
    ----------
    order : ndarray of shape (n_features, m), int
        Segmented, per-feature sorted sample indices (modified in place).
    starts, sizes : ndarray of shape (n_segments,), int
        The segments.
    n_left : ndarray of shape (n_segments,), int
        Samples of each segment that go left.
    goes_left : ndarray of shape (n_samples,), bool
        For every sample of the segments, whether it goes left.

    After the call, segment ``j`` holds its left samples at
    ``starts[j]:starts[j] + n_left[j]`` and its right samples after them,
    each part still sorted by every feature.
    """
    # The slots of the left parts are the same for every feature; the samples
    # that go left fill them in their current (sorted) order, those that go
    # right fill the other slots: a stable partition, one feature at a time.
    runs = np.column_stack([n_left, sizes - n_left]).ravel()
    left_slot = np.repeat(np.tile([True, False], sizes.size), runs)    # (m,) bool
    right_slot = ~left_slot
    n_features, m = order.shape
    step = max(1, PARTITION_CELLS // max(m, 1))    # features per block: bounded temporaries
    for lo in range(0, n_features, step):
        block = order[lo:lo + step]          # a view: written in place
        g = goes_left[block].ravel()
        # Every row has the same samples, so the same number going left: the
        # flat block's entries that go left (right) are row after row, each row
        # in its order.  (numpy.compress: twice as fast as a boolean index.)
        moved_left = np.compress(g, block).reshape(block.shape[0], -1)
        moved_right = np.compress(~g, block).reshape(block.shape[0], -1)
        block[:, left_slot] = moved_left
        block[:, right_slot] = moved_right



def has_missing(X):
    """Features with a NaN somewhere in ``X`` of shape (n_samples, n_features), shape (n_features,)."""
    return np.array([np.isnan(X[:, f]).any() for f in range(X.shape[1])])  # no (n, d) temporary


def _segment_ranges(X, order, starts, sizes, missing):
    """Each segment's lowest and highest non-missing value of every feature, shape (n_seg, d).

    Also whether the feature is constant in the segment (no two values apart,
    or all missing).  A segment of ``order`` is sorted by the feature, missing
    values last, so its lowest value is its first and its highest the last
    non-missing one; only a feature with missing values (``missing``, shape
    (n_features,)) is read whole, to count them.
    """
    n_segments, n_features = starts.size, X.shape[1]
    lowest = np.empty((n_segments, n_features), dtype=np.float32)
    highest = np.empty((n_segments, n_features), dtype=np.float32)
    n_present = np.empty((n_segments, n_features), dtype=np.intp)
    for f in range(n_features):
        if missing[f]:
            values = feature_values(X, order[f], f)             # (m,) sorted, NaN last
            n_present[:, f] = np.add.reduceat(~np.isnan(values), starts)
        else:
            values = None
            n_present[:, f] = sizes
        last = starts + np.maximum(n_present[:, f] - 1, 0)      # the last non-missing
        ends = np.concatenate((starts, last))
        ends_values = (values[ends] if values is not None
                       else feature_values(X, order[f, ends], f))
        lowest[:, f], highest[:, f] = ends_values[:n_segments], ends_values[n_segments:]
    constant = (n_present == 0) | ~(highest > lowest + FEATURE_THRESHOLD)
    return lowest, highest, constant


# Placeholders for the kernels' arguments that a case does not use (one type each).
NO_FLOATS, NO_CODES, NO_STATS = np.ones(1), np.zeros(0, np.uint8), np.zeros((0, 0))
# Criterion.node_stats itself (sums of the statistics), not a criterion's own.
_SUMMED_NODE_STATS = Criterion.node_stats.__func__



def deviations_exact(stats) -> bool:
    r"""Whether every sum of the absolute error's search is an exact float.

    Its per-sample statistics (``stats``, rows :math:`w` and the
    targets :math:`y_k`) must have whole positive weights and targets that
    are multiples of :math:`2^{-b}` (:math:`b \le 30`, e.g. integers, or
    counts rounded to halves), with :math:`2^b m (3 \max_k \sum_i w_i
    |y_{ik}| + \max |y| \sum_i w_i) < 2^{52}` for :math:`m` outputs: every
    sum, difference and product that gives a deviation :math:`D` is then a multiple of :math:`2^{-b}`
    below :math:`2^{52 - b}`, exact in float64, whatever the order of the
    additions.  A median at the midpoint of two targets is a multiple of
    :math:`2^{-b-1}`, and the deviations from it are too: their sum is at
    most :math:`\sum_i w_i |y_i|` (the median minimises it; 0 would give that
    sum), below :math:`2^{51 - b}`, so exact as well.  (If every target is 0
    the bound holds whatever the weights; every node is then pure and never
    searched, and its :math:`W`, which may then be a rounded sum, is added in
    the NumPy order by both: ``dtree.kernels.segment_medians``.)  :meth:`BestSplitter.start`
    computes it once (``deviations_exact``), for the windows of best-first
    growth too.
    """
    weight, y = stats[0], stats[1:]
    exact = bool(isinstance(stats, np.ndarray) and stats.dtype == np.float64
                 and np.all(weight > 0) and np.all(weight == np.floor(weight))
                 and np.all(np.isfinite(y)))
    if exact:
        for bits in range(31):
            scaled = y * 2.0**bits                   # exact: a power of 2
            if np.all(scaled == np.floor(scaled)):
                break
        else:
            exact = False
    if exact:
        bound = 3.0 * float((weight * np.abs(y)).sum(axis=1).max(initial=0.0))
        bound += float(np.abs(y).max(initial=0.0)) * float(weight.sum())
        exact = 2.0**bits * y.shape[0] * bound < 2.0**52
    return exact



class BestSplitter:
    """The split search of CART (scikit-learn's ``splitter="best"``): every midpoint.

    A splitter owns what the search keeps between the calls of the growth (here
    the presorted index ``order``, of shape (n_features, m)), and the growth
    (:mod:`dtree.growth`) reaches it only through the methods below, which is
    the interface a new splitter (e.g. one on histograms) implements.  Nodes
    are *segments* of positions: node ``j`` of a call is
    ``starts[j] : starts[j] + sizes[j]``, the segments laid out one after
    another from position 0; a split node's left child comes first in its
    segment, then its right child.

    Parameters
    ----------
    criterion : subclass of :class:`dtree.criteria.Criterion`
    stats : ndarray of shape (n_stats, n_samples) or ClassWeights
        The criterion's per-sample statistics.
    min_samples_leaf : int, default=1
    min_weight_leaf : float, default=0.0
        Splits leaving fewer samples or less weight in a child are no candidates.
    max_features : int or None, default=None
        Features drawn per node (None: all).
    rng : numpy.random.Generator or None, default=None
        Feature draws and tie ranks (see :meth:`options`); None: every feature,
        ties to the lowest index.
    monotonic_cst : ndarray of shape (n_features,), int, default=None
        Monotonicity constraints (1: increasing, -1: decreasing, 0: none) on
        the criterion's :meth:`~dtree.criteria.Criterion.monotonic_value`;
        ``search`` then takes each segment's bounds (see :func:`dtree.sweep.best_split`).

    Methods
    -------
    start(X, sort=presort)
        Take the training features ``X`` of shape (n_samples, n_features):
        one segment of all samples (the root), sorted by each feature.
    totals(starts)
        Statistics of the segments, shape (n_stats, n_segments).
    search(starts, sizes, totals, bounds=None)
        The best split of each segment, a :class:`SplitResult`; ``bounds``
        (2, n_segments), each segment's lower and upper bound on its
        children's values, is given (only) with ``monotonic_cst``.
    split(starts, sizes, found)
        Partition each segment by its split: left child first, then right.
    keep(mask)
        Keep the positions where ``mask`` (m,) is true, in their order (drop
        the segments of nodes that stay leaves).
    window(start, size)
        A splitter over positions ``start : start + size`` only, sharing the
        state (the best-first growth's node, or a split node's two children).

    Examples
    --------
    >>> from dtree.criteria import Gini
    >>> X = np.array([[3.0, 0.0], [1.0, 0.0], [4.0, 1.0], [2.0, 1.0]])
    >>> stats = Gini.sample_stats(np.array([1, 0, 1, 0]), np.ones(4), 2)
    >>> splitter = BestSplitter(Gini, stats).start(X)
    >>> starts, sizes = np.array([0]), np.array([4])
    >>> found = splitter.search(starts, sizes, splitter.totals(starts))
    >>> found.feature, found.threshold, found.n_left
    (array([0]), array([2.5]), array([2]))
    >>> splitter.split(starts, sizes, found)     # the root's samples: left child first
    >>> splitter.order[0].tolist()
    [1, 3, 0, 2]
    """

    random_thresholds = False     # whether _draw draws thresholds (RandomSplitter)

    def __init__(self, criterion, stats, *, min_samples_leaf=1, min_weight_leaf=0.0,
                 max_features=None, rng=None, monotonic_cst=None):
        self.criterion, self.stats = criterion, stats
        self.min_samples_leaf, self.min_weight_leaf = min_samples_leaf, min_weight_leaf
        self.max_features, self.rng = max_features, rng
        self.monotonic_cst = monotonic_cst

    def start(self, X, sort=presort):
        """Presort ``X`` (``sort(X)`` of shape (n_features, n_samples)); return self."""
        self.X = X
        self.columns, self._layout = columns(X)
        self.order = np.ascontiguousarray(sort(X), dtype=_ORDER_DTYPE)
        self._order_full = self.order       # what the sweep reads: self.order is a view of it
        self._offset = 0                    # where self.order starts in it (a window's start)
        self.has_missing = has_missing(X)
        self._sweep = None
        self._compiled = kernels.available() if self.compiled is None else bool(self.compiled)
        self._constant = None     # (starts, sizes, constant) of the last segments seen
        # The absolute error: whether the compiled search may take it (exact sums).
        self.deviations_exact = (AbsoluteError in (self.criterion,
                                                   getattr(self.criterion, "base", None))
                                 and deviations_exact(self.stats))
        return self

    def totals(self, starts):
        """``criterion.node_stats`` of the segments starting at ``starts``, (n_stats, n_segments).

        Compiled (:func:`dtree.kernels.segment_totals`, the same floats) for
        the criteria that sum their statistics: exact class weights, or a
        float64 array of statistics; and for the absolute error where its
        sums are exact (:func:`dtree.kernels.segment_medians`).
        """
        stats, criterion = self.stats, self.criterion
        if self.deviations_exact and self._compiled:
            n_outputs = stats.shape[0] - 1          # rows: w, then the targets
            out = np.empty((1 + 2 * n_outputs, starts.size))
            kernels.segment_medians(self.order[0], starts, stats, n_outputs, out)
            return out
        compiled = (self._compiled
                    and getattr(criterion.node_stats, "__func__", None) is _SUMMED_NODE_STATS)
        if compiled and type(stats) is ClassWeights and stats.exact_sums:
            out = np.empty((stats.shape[0], starts.size))
            has_weight = stats.weight is not None
            kernels.segment_totals(self.order[0], starts, stats.codes,
                                   stats.weight if has_weight else NO_FLOATS, has_weight,
                                   NO_STATS, out)
            return out
        if compiled and isinstance(stats, np.ndarray) and stats.dtype == np.float64:
            out = np.empty((stats.shape[0], starts.size))
            kernels.segment_totals(self.order[0], starts, NO_CODES, NO_FLOATS, False, stats, out)
            return out
        return criterion.node_stats(stats, self.order[0], starts)

    def search(self, starts, sizes, totals, bounds=None):
        """Each segment's best split (``feature == -1``: none): :func:`dtree.sweep.search_level`."""
        constant = self._known_constant(starts, sizes)
        options = self.options(starts, sizes)
        found = self._sweep_level(starts, sizes, totals, options, constant, bounds)
        self._constant = (starts, sizes, constant)
        return found

    #: Whether the search runs compiled (None: where Numba is available).
    compiled = None

    def _sweep_level(self, starts, sizes, totals, options, constant, bounds):
        """:func:`dtree.sweep.search_level` on the segments, as a :class:`SplitResult`."""
        from dtree import sweep

        if self._sweep is None:        # the criterion's arrays, made once per fit
            data = self.criterion.sweep_data(self.stats)
            self._sweep = (sweep.searcher(self.criterion, self._compiled, self._layout), data,
                           self.criterion.sweep_state(self.stats))
        search, data, state = self._sweep
        masks, ranks, thresholds, coins, monotonic_cst, bounds = self._search_arrays(
            starts.size, options, bounds)
        out = np.zeros((starts.size, 8))
        starts = starts + self._offset
        with np.errstate(all="ignore"):
            search.search_level(
                self.columns, self._order_full, np.ascontiguousarray(starts, dtype=np.intp),
                np.ascontiguousarray(sizes, dtype=np.intp),
                np.ascontiguousarray(totals, dtype=np.float64), *data, state, masks, ranks,
                thresholds, coins, monotonic_cst, bounds, int(self.min_samples_leaf),
                float(self.min_weight_leaf), constant, out)
        return SplitResult.from_sweep(out)

    def _search_arrays(self, n_segments, options, bounds):
        """The options, constraints and bounds as the sweep takes them: one array type each.

        ``masks`` (bool), ``ranks`` (float64), ``thresholds`` (float64, NaN:
        every gap), ``coins`` (int8, -1: both sides) of shape (n_segments,
        n_features); ``monotonic_cst`` (n_features,) int8; ``bounds`` (2,
        n_segments).
        """
        n_features = self.X.shape[1]
        shape = (n_segments, n_features)
        masks = (np.ones(shape, bool) if options.feature_mask is None
                 else np.ascontiguousarray(options.feature_mask, dtype=bool))
        ranks = (np.tile(np.arange(n_features, dtype=np.float64), (n_segments, 1))
                 if options.feature_rank is None
                 else np.ascontiguousarray(options.feature_rank, dtype=np.float64))
        thresholds = (np.full(shape, np.nan) if options.thresholds is None
                      else np.ascontiguousarray(options.thresholds, dtype=np.float64))
        coins = (np.full(shape, -1, np.int8) if options.missing_left is None
                 else np.ascontiguousarray(options.missing_left, dtype=np.int8))
        monotonic_cst = (np.zeros(n_features, np.int8) if self.monotonic_cst is None
                         else np.ascontiguousarray(self.monotonic_cst, dtype=np.int8))
        if bounds is None:
            bounds = np.array([[-np.inf], [np.inf]]).repeat(n_segments, axis=1)
        return (masks, ranks, thresholds, coins, monotonic_cst,
                np.ascontiguousarray(bounds, dtype=np.float64))

    def _known_constant(self, starts, sizes):
        """The features known constant in each segment, (n_segments, n_features) bool.

        A feature constant in a node is constant in its descendants: the rows
        of the segments last searched follow them through :meth:`split` and
        :meth:`keep`; other segments know none.
        """
        if self._constant is not None:
            known_starts, known_sizes, constant = self._constant
            if np.array_equal(known_starts, starts) and np.array_equal(known_sizes, sizes):
                return constant
        return np.zeros((starts.size, self.X.shape[1]), bool)

    def split(self, starts, sizes, found: SplitResult):
        """Partition every segment by ``found`` (every segment splits), in place."""
        self._kernel("partition_level")(
            self.order, starts, sizes, found.feature, found.cut, found.n_missing,
            found.missing_left, np.zeros(self.X.shape[0], bool),
            np.empty(self.order.shape[1], self.order.dtype))
        constant = self._known_constant(starts, sizes)
        child_sizes = np.column_stack([found.n_left, sizes - found.n_left]).ravel()
        child_starts = np.concatenate(([0], np.cumsum(child_sizes)[:-1]))
        self._constant = (child_starts, child_sizes, np.repeat(constant, 2, axis=0))

    def keep(self, mask):
        """Keep the positions where ``mask`` of shape (m,) is true."""
        if self.order.shape[0]:
            self.order = self.order[:, :self._kernel("keep_positions")(self.order, mask)]
        else:
            self.order = self.order[:, mask]
        if self._constant is not None:      # whole segments are kept or dropped
            starts, sizes, constant = self._constant
            kept = mask[starts] if mask.size else np.zeros(starts.size, bool)
            sizes = sizes[kept]
            self._constant = (np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes,
                              constant[kept])

    def _kernel(self, name):
        """:mod:`dtree.kernels`' function ``name``: compiled where this search is, else as written."""
        function = getattr(kernels, name)
        return function if self._compiled else getattr(function, "py_func", function)

    def window(self, start, size):
        """This splitter restricted to positions ``start : start + size`` (shared state)."""
        view = copy.copy(self)
        view.order = self.order[:, start:start + size]
        view._offset = self._offset + start
        view._constant = None
        return view

    def options(self, starts, sizes) -> SearchOptions:
        """Per-segment feature draws (``max_features``) and tie ranks.

        With no random generator the search is exhaustive and ties go to the
        lowest feature index.  Otherwise every segment gets a random priority
        per feature: the ``max_features`` non-constant features of lowest
        priority are searched, and ties between equally good splits go to the
        lower priority.
        """
        if self.rng is None:
            return SearchOptions()
        n_features = self.X.shape[1]
        priority = self.rng.random((starts.size, n_features))
        options = SearchOptions(feature_rank=np.argsort(np.argsort(priority, axis=1), axis=1))
        if (self.max_features or n_features) < n_features or self.random_thresholds:
            # Only then are the feature values needed.
            self._draw(options, priority,
                       *_segment_ranges(self.X, self.order, starts, sizes, self.has_missing))
        return options

    def _draw(self, options, priority, lowest, highest, constant):
        """Draw ``max_features`` of the non-constant features of each segment."""
        k = self.max_features or priority.shape[1]
        if k < priority.shape[1]:
            drawn = np.argsort(np.where(constant, np.inf, priority), axis=1)[:, :k]
            mask = np.zeros_like(constant)
            np.put_along_axis(mask, drawn, True, axis=1)
            options.feature_mask = mask & ~constant


class RandomSplitter(BestSplitter):
    """scikit-learn's ``splitter="random"``: one random threshold per feature and node.

    The threshold is drawn uniformly between the segment's lowest and highest
    non-missing value (the highest itself is replaced by the lowest, so that
    both children are non-empty) and, where ``X`` has missing values, a fair
    coin sends them left or right.  Otherwise as :class:`BestSplitter`.
    """

    random_thresholds = True

    def _draw(self, options, priority, lowest, highest, constant):
        super()._draw(options, priority, lowest, highest, constant)
        low, high = lowest.astype(np.float64), highest.astype(np.float64)
        threshold = low + self.rng.random(low.shape) * (high - low)
        options.thresholds = np.where(threshold >= high, low, threshold)
        if self.has_missing.any():
            options.missing_left = self.rng.random(low.shape) < 0.5
