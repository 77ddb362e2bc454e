"""Sparse ``X`` for CART: the split search on CSC, the descent on CSR, never densified.

A bag-of-words matrix of :math:`10^5` documents and :math:`10^5` words at
0.1 % density holds :math:`10^7` values; dense, it would hold
:math:`10^{10}`.  So a sparse ``X`` is never converted to a dense array.
The split search (:class:`SparseSplitter`, the interface of
:class:`dtree.splitting.BestSplitter`) reads only the stored values of the
node's samples: in a node, the zeros of a feature are one run of tied
values, so the sorted sequence of a feature is

.. math::

    \\underbrace{x_{(1)} \\le \\dots < 0}_{\\text{stored, negative}}
    \\;<\\; \\underbrace{0, \\dots, 0}_{n_t - \\mathrm{nnz}}
    \\;<\\; \\underbrace{0 < \\dots \\le x_{(\\mathrm{nnz})}}_{\\text{stored, positive}}

and the zero run's statistics are the node's minus the stored values' (a
feature with no stored value in a node is constant there and costs
nothing).  The sweep over that sequence is :func:`dtree.sweep.sweep_sparse`,
with the cuts, left children and tie rules of the dense one
(:func:`dtree.sweep.best_split`), so that a tree grown on a sparse matrix is
the tree grown on its dense copy wherever the statistics' sums are exact
(a node's zeros are added as one block, not one sample after another).
This is scikit-learn's ``BestSparseSplitter``
(``sklearn/tree/_splitter.pyx``) written level-wise: per level, one gather
of the stored values of the samples still splitting and one sort by
(feature, node, value); the partition of the stored values and the descent
of CSR rows are compiled.  The absolute error, whose sweep ranks every
sample of a node, searches a dense copy instead.

Values are compared as float32 (as for dense ``X``); stored zeros are
zeros; NaN is refused (as in scikit-learn, which supports missing values
for dense ``X`` only).
"""

from __future__ import annotations

import copy

import numpy as np

from dtree import kernels
from dtree._validation import check_sparse_X, check_width
from dtree.criteria import ClassWeights
from dtree.splitting import (
    FEATURE_THRESHOLD,
    BestSplitter,
    RandomSplitter,
    SearchOptions,
    SplitResult,
    partition,
)

__all__ = ["SparseRandomSplitter", "SparseSplitter", "dense_to_csc", "mostly_zeros", "sparse_values"]

#: A dense X at least this fraction of whose values are 0 is searched as a
#: sparse matrix (:func:`mostly_zeros`); set above 1 to never do so.
SPARSE_ZERO_FRACTION = 0.85

#: Cells of a dense ``X`` that :func:`mostly_zeros` and :func:`dense_to_csc`
#: read at a time: their temporaries (a float32 copy of the block, masks)
#: stay near a MiB, however large ``X`` is.
DENSE_BLOCK_CELLS = 1 << 18


def mostly_zeros(X, stats) -> bool:
    """Whether the dense ``X`` is better searched as a CSC matrix, with the same tree.

    Yes when at least ``SPARSE_ZERO_FRACTION`` of its values are 0, it has no
    NaN (the sparse search has no missing values), and the statistics are
    class weights whose every partial sum is an exact float
    (:attr:`dtree.criteria.ClassWeights.exact_sums`: no sample weights, or
    whole-number ones): then both searches score every cut with the same
    float and grow the same tree, and the sparse one skips the zeros (a
    node's zeros of a feature are one run).  One pass over ``X``, a block of
    columns at a time.
    """
    if not (isinstance(stats, ClassWeights) and stats.exact_sums) or X.size == 0:
        return False
    nonzero = 0
    step = max(1, DENSE_BLOCK_CELLS // max(X.shape[0], 1))
    for lo in range(0, X.shape[1], step):
        block = X[:, lo:lo + step]
        if np.isnan(block).any():
            return False
        nonzero += int(np.count_nonzero(block))
    return X.size - nonzero >= SPARSE_ZERO_FRACTION * X.size


def dense_to_csc(X):
    """The canonical float32 CSC copy of a dense ``X`` (:func:`check_sparse_X`), built by columns.

    A block of columns at a time is copied to float32, transposed (a
    column's values contiguous), and its nonzero values are taken in
    (column, row) order, CSC's: no sort, and temporaries of about
    ``DENSE_BLOCK_CELLS`` values.
    """
    import scipy.sparse as sp

    n, d = X.shape
    data, indices, counts = [], [], []
    step = max(1, DENSE_BLOCK_CELLS // max(n, 1))
    for lo in range(0, d, step):
        block = np.array(X[:, lo:lo + step].T, dtype=np.float32, order="C")   # (columns, n)
        column, row = np.nonzero(block)          # by column, then row
        data.append(block[column, row])
        indices.append(row.astype(np.int32 if n < 2**31 else np.int64))
        counts.append(np.bincount(column, minlength=block.shape[0]))
    indptr = np.zeros(d + 1, dtype=np.int64)
    if d:
        np.cumsum(np.concatenate(counts), out=indptr[1:])
    matrix = sp.csc_matrix((np.concatenate(data) if d else np.zeros(0, np.float32),
                            np.concatenate(indices) if d else np.zeros(0, np.int32), indptr),
                           shape=(n, d))
    return check_sparse_X(matrix, fmt="csc")


def _entry_keys(X):
    """Sorted int64 keys ``major * n_minor + minor`` of the stored entries (CSC or CSR)."""
    n_minor = X.shape[0] if X.format == "csc" else X.shape[1]
    major = np.repeat(np.arange(X.indptr.size - 1, dtype=np.int64), np.diff(X.indptr))
    return major * n_minor + X.indices.astype(np.int64)


def sparse_values(X, rows, cols, keys=None) -> np.ndarray:
    """``X[rows[i], cols[i]]`` of a canonical CSC or CSR ``X``, float32 (0 if not stored).

    One binary search per query in the sorted keys of the stored entries
    (:func:`_entry_keys`; pass them as ``keys`` to reuse them).
    """
    if keys is None:
        keys = _entry_keys(X)
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    query = cols * X.shape[0] + rows if X.format == "csc" else rows * X.shape[1] + cols
    at = np.searchsorted(keys, query)
    inside = at < keys.size
    found = np.zeros(query.shape, bool)
    found[inside] = keys[at[inside]] == query[inside]
    out = np.zeros(query.shape, np.float32)
    out[found] = X.data[at[found]]
    return out


class SparseSplitter(BestSplitter):
    """:class:`dtree.splitting.BestSplitter` on a sparse CSC ``X`` (:mod:`dtree.sparse`).

    The positions hold the samples, segment after segment (``samples``);
    :meth:`search` gathers the stored values of those samples, sorts them
    by (feature, segment, value), and scores every cut of every feature
    that has a stored value in a segment, the zero run included.  The same
    draws (:meth:`options`) and the same tie rules as the dense search
    (:class:`SparseRandomSplitter` draws the thresholds).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from dtree.criteria import Gini
    >>> X = sp.csc_matrix(np.array([[0.0, 3.0], [1.0, 0.0], [0.0, 4.0], [2.0, 0.0]]))
    >>> stats = Gini.sample_stats(np.array([1, 0, 1, 0]), np.ones(4), 2)
    >>> splitter = SparseSplitter(Gini, stats).start(check_sparse_X(X, fmt="csc"))
    >>> starts, sizes = np.array([0]), np.array([4])
    >>> found = splitter.search(starts, sizes, splitter.totals(starts))
    >>> found.feature, found.threshold, found.n_left
    (array([0]), array([0.5]), array([2]))
    """

    def start(self, X, sort=None):
        """Index the stored values of the canonical CSC ``X`` (:func:`check_sparse_X`)."""
        n, d = X.shape
        self.X, self.n_samples = X, n
        self._sweep = None
        self._compiled = kernels.available() if self.compiled is None else bool(self.compiled)
        self._bounds = None
        self.has_missing = np.zeros(d, bool)
        self._constant = None
        self._keys = None               # the windows' value lookups, built on first use
        col = np.repeat(np.arange(d, dtype=np.int32 if d < 2**31 else np.int64),
                        np.diff(X.indptr))
        self._by_row = None             # the gather's index, built on its first use
        # The positions in the order of the first feature (ties: by sample), as
        # the dense search keeps them (presort's row 0), so that a node's
        # statistics are summed in the same order, to the same float.
        first = np.zeros(n, np.float32)
        first[X.indices[:X.indptr[1]]] = X.data[:X.indptr[1]]
        self.samples = np.argsort(first, kind="stable").astype(np.intp)
        # The stored values of the live samples sorted by (feature, segment,
        # value), kept up to date by split and keep (the level-wise growth);
        # None in a window (the best-first growth), which gathers instead.
        # by feature, then value; ties by sample (a column's rows are sorted, lexsort is stable)
        by_value = np.lexsort((X.data, col))
        row_type = np.int32 if n < 2**31 else np.int64
        self.entries = (col[by_value], X.indices[by_value].astype(row_type), X.data[by_value])
        return self

    def _index_rows(self):
        """The stored values sample by sample (CSR order) with their rank in their feature."""
        X = self.X
        n, nnz = X.shape[0], X.data.size
        col = np.repeat(np.arange(X.shape[1], dtype=np.int64), np.diff(X.indptr))
        row = X.indices.astype(np.int64)
        by_value = np.lexsort((X.data, col))
        rank = np.empty(nnz, np.int64)          # rank among the feature's values
        rank[by_value] = np.arange(nnz) - X.indptr[col[by_value]]
        by_row = np.argsort(row, kind="stable")
        self.row_ptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(row, minlength=n), out=self.row_ptr[1:])
        self.entry_col, self.entry_rank = col[by_row], rank[by_row]
        self.entry_value = X.data[by_row]
        self.max_rank = int(np.diff(X.indptr).max(initial=0)) + 1
        self._by_row = by_row

    def totals(self, starts):
        return self.criterion.node_stats(self.stats, self.samples, starts)

    def keep(self, mask):
        if self.entries is not None:
            alive = np.zeros(self.n_samples, bool)
            alive[self.samples[mask]] = True
            if self._compiled:          # in place, in one pass
                m = kernels.keep_entries(*self.entries, alive)
                self.entries = tuple(a[:m] for a in self.entries)
            else:
                live = alive[self.entries[1]]
                self.entries = tuple(a[live] for a in self.entries)
        self.samples = self.samples[mask]

    def window(self, start, size):
        if self._by_row is None:        # built once, shared by every window
            self._index_rows()
            self._keys = _entry_keys(self.X)
        view = copy.copy(self)
        view.samples = self.samples[start:start + size]     # a view: split writes through
        view.entries = None
        return view

    def _segment_of_samples(self, starts, sizes):
        segment = np.empty(self.n_samples, np.intp)
        segment[self.samples] = np.repeat(np.arange(starts.size), sizes)
        return segment

    # -- the gather ----------------------------------------------------------

    def _gather(self, starts, sizes):
        """Stored values of the segments' samples, sorted by (feature, segment, value)."""
        if self._by_row is None:
            self._index_rows()
        samples = self.samples
        counts = self.row_ptr[samples + 1] - self.row_ptr[samples]
        k = int(counts.sum())
        before = np.cumsum(counts) - counts
        # entry index of the j-th stored value of each sample, in position order
        entry = np.arange(k) - np.repeat(before - self.row_ptr[samples], counts)
        segment = np.repeat(np.repeat(np.arange(starts.size), sizes), counts)
        col, rank = self.entry_col[entry], self.entry_rank[entry]
        n_features = self.X.shape[1]
        if n_features * starts.size * self.max_rank < 2**62:
            order = np.argsort((col * starts.size + segment) * self.max_rank + rank)
        else:                                   # keys would overflow int64
            order = np.lexsort((rank, segment, col))
        entry = entry[order]
        return (self.entry_col[entry], segment[order], np.repeat(samples, counts)[order],
                self.entry_value[entry])

    @staticmethod
    def _groups(col, segment):
        """First and last index of each run of equal (feature, segment)."""
        k = col.size
        first = np.flatnonzero(np.r_[True, (col[1:] != col[:-1]) | (segment[1:] != segment[:-1])]) \
            if k else np.zeros(0, np.intp)
        last = np.r_[first[1:] - 1, k - 1] if k else np.zeros(0, np.intp)
        return first, last

    def options(self, starts, sizes, gathered=None) -> SearchOptions:
        if self.rng is None:
            return SearchOptions()
        n_features = self.X.shape[1]
        priority = self.rng.random((starts.size, n_features))
        # The dense search ranks the priorities (argsort twice, O(d log d) per
        # segment); comparing the priorities themselves orders the same way.
        options = SearchOptions(feature_rank=priority)
        if (self.max_features or n_features) < n_features or self.random_thresholds:
            self._draw(options, priority, *self._ranges(starts, sizes, gathered))
        return options

    def _ranges(self, starts, sizes, gathered):
        """Lowest and highest value of every feature in every segment, and constancy (S, d)."""
        col, segment, _, value = gathered
        first, last = self._groups(col, segment)
        shape = (starts.size, self.X.shape[1])
        lowest, highest = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
        seg, f = segment[first], col[first]
        has_zero = sizes[seg] > last - first + 1
        lowest[seg, f] = np.where(has_zero, np.minimum(value[first], 0), value[first])
        highest[seg, f] = np.where(has_zero, np.maximum(value[last], 0), value[last])
        constant = ~(highest > lowest + FEATURE_THRESHOLD)
        return lowest, highest, constant

    # -- the search ----------------------------------------------------------

    def search(self, starts, sizes, totals, bounds=None):
        """Each segment's best split (``feature == -1``: none).

        ``bounds`` (2, n_segments): with monotonicity constraints, each
        segment's bounds on its children's values, as for the dense search.
        """
        self._bounds = bounds
        if self.entries is None:
            gathered = self._gather(starts, sizes)
        else:
            col, row, value = self.entries
            gathered = (col, self._segment_of_samples(starts, sizes)[row], row, value)
        options = self.options(starts, sizes, gathered)
        constant = self._known_constant(starts, sizes)
        found = self._sweep_sparse_level(gathered, sizes, totals, options, constant, bounds)
        self._constant = (starts, sizes, constant)
        return found

    def _sweep_sparse_level(self, gathered, sizes, totals, options, constant, bounds):
        """:func:`dtree.sweep.search_sparse_level` on the segments, as a :class:`SplitResult`."""
        from dtree import sweep

        if self._sweep is None:        # the criterion's arrays, made once per fit
            self._sweep = (sweep.searcher(self.criterion, self._compiled),
                           self.criterion.sweep_data(self.stats),
                           self.criterion.sweep_state(self.stats))
        search, data, state = self._sweep
        col, segment, row, value = gathered
        n_segments = sizes.size
        masks, ranks, thresholds, _, monotonic_cst, bounds = self._search_arrays(
            n_segments, options, bounds)
        out = np.zeros((n_segments, 8))
        with np.errstate(all="ignore"):
            search.search_sparse_level(
                np.ascontiguousarray(col, dtype=np.intp), np.ascontiguousarray(segment, np.intp),
                np.ascontiguousarray(row, dtype=np.intp),
                np.ascontiguousarray(value, dtype=np.float32),
                np.ascontiguousarray(sizes, dtype=np.intp),
                np.ascontiguousarray(totals, dtype=np.float64), *data, state, masks, ranks,
                thresholds, monotonic_cst, bounds, int(self.min_samples_leaf),
                float(self.min_weight_leaf), constant, out)
        return SplitResult.from_sweep(out)

    # -- the partition -------------------------------------------------------

    def split(self, starts, sizes, found: SplitResult):
        """Partition every segment by ``found``: left samples first, both in their order."""
        samples = self.samples
        goes_left = np.zeros(self.n_samples, bool)
        if self.entries is not None:
            # x <= threshold: the zeros of each segment, then its stored values
            # of the split feature (found among the entries, O(nnz))
            goes_left[samples] = np.repeat(0.0 <= found.threshold, sizes)
            col, row, value = self.entries
            segment_of = self._segment_of_samples(starts, sizes)
            if self._compiled:
                kernels.sparse_goes_left(col, row, value, segment_of, found.feature,
                                         found.threshold, goes_left)
            else:
                segment = segment_of[row]
                tested = col == found.feature[segment]
                goes_left[row[tested]] = value[tested] <= found.threshold[segment[tested]]
        else:
            if self._keys is None:
                self._keys = _entry_keys(self.X)
            feature = np.repeat(found.feature, sizes)
            values = sparse_values(self.X, samples, feature, self._keys).astype(np.float64)
            goes_left[samples] = values <= np.repeat(found.threshold, sizes)   # x <= threshold
        if self.entries is not None:
            self._partition_entries(segment_of, goes_left, starts.size)
        partition(samples[None, :], starts, sizes, found.n_left, goes_left)

    def _partition_entries(self, segment_of, goes_left, n_segments):
        """Stably move, in every (feature, segment) run, the entries going left first.

        The runs (feature, segment) become (feature, left child) and
        (feature, right child), each still sorted by value: the entries'
        order for the children's segments, laid out left, right.  A stable
        sort by (feature, segment, goes right), whose runs are already
        sorted (NumPy's stable sort, a timsort, merges them in O(nnz)).
        """
        col, row, value = self.entries
        if not col.size:
            return
        if self._compiled:
            moved = (np.empty_like(col), np.empty_like(row), np.empty_like(value))
            kernels.partition_entries(col, row, value, segment_of, goes_left, *moved)
            self.entries = moved
            return
        key = col.astype(np.int64) * (2 * n_segments)
        key += 2 * segment_of[row]
        key += ~goes_left[row]
        moved = np.argsort(key, kind="stable")
        self.entries = (col[moved], row[moved], value[moved])


class SparseRandomSplitter(SparseSplitter, RandomSplitter):
    """:class:`dtree.splitting.RandomSplitter` (one drawn threshold per feature) on sparse ``X``.

    The same draws as on the dense copy of ``X`` (the lowest and highest
    value of a feature in a node count its zeros), so the same tree.
    """


#: Cells (rows x the tree's features) of the dense block sparse_apply reads at a time.
APPLY_BLOCK_CELLS = 1 << 22


def sparse_apply(tree, X, *, path=False):
    """Leaf reached by each row of the canonical CSR ``X`` (or the visited nodes, ``path``).

    Compiled where Numba is (:func:`dtree.kernels.apply_sparse`: row by row,
    the row's stored values in a dense vector, as scikit-learn does).
    Otherwise only the features the tree tests matter: their columns are taken from
    ``X`` (O(nnz)) and a block of rows of them at a time (at most
    ``APPLY_BLOCK_CELLS`` values) is made dense and descends as a dense
    ``X`` does (:meth:`dtree.tree.TreeArrays.apply`).  With ``path``, rows
    descend level by level reading ``X[i, feature[t]]`` with
    :func:`sparse_values`, and the pairs (rows, nodes) of every visit are
    returned.
    """

    check_width(X, tree._max_feature())
    n = X.shape[0]
    if not path and kernels.available():
        leaf = np.zeros(n, dtype=np.intp)
        if n and tree.node_count > 1:
            kernels.apply_sparse(X.indptr, X.indices, X.data, tree.children_left,
                                 tree.children_right, tree.feature, tree.threshold,
                                 X.shape[1], leaf)
        return leaf
    if not path:
        used = np.unique(tree.feature[tree.children_left >= 0])
        leaf = np.zeros(n, dtype=np.intp)
        if not used.size or not n:
            return leaf
        column_of = np.zeros(X.shape[1], dtype=np.intp)
        column_of[used] = np.arange(used.size)
        X_used = X[:, used]
        any_missing = bool(np.isnan(X_used.data).any())   # once, not a pass per dense block
        step = max(1, APPLY_BLOCK_CELLS // used.size)
        for lo in range(0, n, step):
            block = X_used[lo:lo + step].toarray()
            leaf[lo:lo + step] = tree._apply_dense(block, column_of, any_missing=any_missing)
        return leaf
    keys = _entry_keys(X)
    node = np.zeros(n, dtype=np.intp)
    rows = np.arange(n)
    visits = [(rows, node[rows])]
    while rows.size:
        current = node[rows]
        inner = tree.children_left[current] >= 0
        rows, current = rows[inner], current[inner]
        if not rows.size:
            break
        values = sparse_values(X, rows, tree.feature[current], keys).astype(np.float64)
        go_left = values <= tree.threshold[current]
        node[rows] = np.where(go_left, tree.children_left[current], tree.children_right[current])
        visits.append((rows, node[rows]))
    return visits
