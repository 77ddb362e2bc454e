"""Sparse X (dtree.sparse): the tree of the dense copy, never a dense copy.

Evidence of three kinds: a hand-computed split (the doctest of
SparseSplitter and test_the_zero_run_is_one_run below), properties (the
tree grown on any sparse format equals the tree grown on the dense array,
for every criterion, splitter and growth; hypothesis draws the matrices),
and scikit-learn as the oracle (its sparse trees).
"""

from __future__ import annotations

import tracemalloc
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.criteria import get_criterion
from dtree._validation import check_sparse_X
from dtree.sparse import sparse_values

sp = pytest.importorskip("scipy.sparse")

FORMATS = [sp.csc_matrix, sp.csr_matrix, sp.coo_matrix, sp.csc_array, sp.csr_array]


def _random_sparse(rng, n, d, density, sign="mixed"):
    X = rng.integers(1, 6, size=(n, d)).astype(float) * (rng.random((n, d)) < density)
    if sign == "mixed":
        X *= rng.choice([-1.0, 1.0], size=(n, d))
    elif sign == "negative":
        X = -X
    return X


def _same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    assert ta.node_count == tb.node_count
    for name in ("children_left", "children_right", "feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_array_equal(ta.value, tb.value)
    np.testing.assert_array_equal(ta.impurity, tb.impurity)


CASES = [
    (DecisionTreeClassifier, "gini", {}),
    (DecisionTreeClassifier, "entropy", {"max_depth": 3}),
    (DecisionTreeClassifier, "log_loss", {"min_samples_leaf": 3}),
    (DecisionTreeClassifier, "gini", {"max_features": 2, "random_state": 0}),
    (DecisionTreeClassifier, "gini", {"max_leaf_nodes": 5}),
    (DecisionTreeClassifier, "entropy", {"splitter": "random", "random_state": 3}),
    (DecisionTreeClassifier, "gini", {"min_weight_fraction_leaf": 0.1}),
    (DecisionTreeRegressor, "squared_error", {}),
    (DecisionTreeRegressor, "friedman_mse", {"max_depth": 4}),
    (DecisionTreeRegressor, "absolute_error", {"min_samples_leaf": 2}),
    (DecisionTreeRegressor, "poisson", {"max_features": 3, "random_state": 1}),
    (DecisionTreeRegressor, "squared_error", {"splitter": "random", "random_state": 2,
                                              "max_leaf_nodes": 6}),
]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("sign", ["mixed", "positive", "negative"])
@pytest.mark.parametrize("Estimator, criterion, params", CASES,
                         ids=[f"{c}-{sorted(p)}" for _, c, p in CASES])
def test_the_tree_of_the_dense_copy(fmt, sign, Estimator, criterion, params):
    # Integer-valued targets and weights: every sum is exact, so the dense and
    # the sparse search score every cut with the same float and break ties alike.
    rng = np.random.default_rng(zlib.crc32(f"{fmt.__name__} {sign} {criterion}".encode()))
    X = _random_sparse(rng, 60, 7, 0.3, sign)
    if Estimator is DecisionTreeClassifier:
        y = rng.integers(0, 3, 60)
    else:
        y = rng.integers(1, 9, 60).astype(float)
    w = rng.integers(1, 4, 60).astype(float)
    dense = Estimator(criterion=criterion, **params).fit(X, y, sample_weight=w)
    sparse = Estimator(criterion=criterion, **params).fit(fmt(X), y, sample_weight=w)
    _same_tree(dense, sparse)
    for test_fmt in FORMATS:
        np.testing.assert_array_equal(sparse.apply(test_fmt(X)), dense.apply(X))
        np.testing.assert_array_equal(sparse.predict(test_fmt(X)), dense.predict(X))
        assert (sparse.decision_path(test_fmt(X)) != dense.decision_path(X)).nnz == 0
    np.testing.assert_array_equal(sparse.tree_.apply(sp.csr_matrix(X)), dense.apply(X))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), d=st.integers(1, 6),
       density=st.floats(0.0, 1.0), classification=st.booleans(),
       min_samples_leaf=st.integers(1, 4))
def test_any_sparse_matrix_grows_the_dense_tree(seed, n, d, density, classification,
                                                 min_samples_leaf):
    rng = np.random.default_rng(seed)
    X = _random_sparse(rng, n, d, density)
    Estimator = DecisionTreeClassifier if classification else DecisionTreeRegressor
    y = rng.integers(0, 3, n) if classification else rng.integers(-4, 5, n).astype(float)
    dense = Estimator(min_samples_leaf=min_samples_leaf).fit(X, y)
    sparse = Estimator(min_samples_leaf=min_samples_leaf).fit(sp.csc_matrix(X), y)
    _same_tree(dense, sparse)


def test_float_targets_differ_only_at_exact_ties():
    """With float targets the two searches sum in other orders: they differ only at near-ties.

    Wherever the trees part, the two chosen splits of that node have the
    same proxy to within its rounding (here: to 1e-9), so either is a best
    split as far as the proxy's floats can tell (the dense search's own
    choice between them is decided by rounding too).
    """
    criterion = get_criterion("squared_error", classification=False)
    rng = np.random.default_rng(1)
    parted = 0
    for _ in range(60):
        n, d = int(rng.integers(5, 60)), int(rng.integers(1, 6))
        X = rng.normal(size=(n, d)).round(1) * (rng.random((n, d)) < 0.5)
        y = rng.normal(size=n)
        a, b = DecisionTreeRegressor().fit(X, y), DecisionTreeRegressor().fit(sp.csc_matrix(X), y)
        ta, tb = a.tree_, b.tree_
        differs = [i for i in range(min(ta.node_count, tb.node_count))
                   if (ta.feature[i], ta.threshold[i], ta.n_node_samples[i])
                   != (tb.feature[i], tb.threshold[i], tb.n_node_samples[i])]
        if not differs:
            continue
        parted += 1
        i = differs[0]
        rows = a.decision_path(X)[:, i].toarray().ravel().nonzero()[0]
        assert np.array_equal(rows, b.decision_path(X)[:, i].toarray().ravel().nonzero()[0])
        stats = criterion.sample_stats(y[rows], np.ones(rows.size), None)
        proxies = []
        for t in (ta, tb):      # each split's proxy, from its children's sums
            left = X[rows, t.feature[i]].astype(np.float32) <= t.threshold[i]
            children = [criterion.node_stats(stats, np.flatnonzero(side), np.array([0]))
                        for side in (left, ~left)]
            proxies.append(float(criterion.proxy(*children)[0]))
        assert proxies[0] == pytest.approx(proxies[1], rel=1e-9, abs=1e-12)
    assert parted > 0       # the check above ran


def test_the_zero_run_is_one_run():
    # x = (0, 0, 0, 2, -1, 3), classes (a, a, a, b, b, b).  Sorted: -1 (b), the
    # zero run (a, a, a), 2 (b), 3 (b): three cuts, whose weighted Gini is
    #   x <= -0.5: 0 + 5 (1 - (3^2 + 2^2) / 5^2) = 2.4
    #   x <=  1.0: 4 (1 - (1 + 3^2) / 4^2) + 0 = 1.5   (after the zero run)
    #   x <=  2.5: 5 (1 - (2^2 + 3^2) / 5^2) + 0 = 2.4
    X = sp.csc_matrix(np.array([[0.0], [0.0], [0.0], [2.0], [-1.0], [3.0]]))
    y = np.array([0, 0, 0, 1, 1, 1])
    tree = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert tree.tree_.feature[0] == 0
    assert tree.tree_.threshold[0] == 1.0           # midpoint of 0 and 2
    np.testing.assert_array_equal(tree.tree_.n_node_samples, [6, 4, 2])


def test_explicit_zeros_are_zeros_and_the_callers_matrix_is_untouched():
    rng = np.random.default_rng(0)
    X = _random_sparse(rng, 30, 4, 0.4)
    y = rng.integers(0, 2, 30)
    coo = sp.coo_matrix(X)
    zero_rows, zero_cols = np.nonzero(X == 0)
    explicit = sp.csc_matrix((np.r_[coo.data, np.zeros(5)],
                              (np.r_[coo.row, zero_rows[:5]], np.r_[coo.col, zero_cols[:5]])),
                             shape=X.shape)
    assert explicit.nnz == coo.nnz + 5           # five stored zeros
    before = (explicit.data.copy(), explicit.indices.copy(), explicit.indptr.copy())
    tree = DecisionTreeClassifier().fit(explicit, y)
    for array, kept in zip((explicit.data, explicit.indices, explicit.indptr), before):
        np.testing.assert_array_equal(array, kept)
    _same_tree(DecisionTreeClassifier().fit(X, y), tree)
    np.testing.assert_array_equal(tree.apply(explicit.tocsr()), tree.apply(X))


def test_sparse_values_reads_stored_and_implicit_entries():
    X = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])
    for fmt in ("csc", "csr"):
        M = check_sparse_X(sp.coo_matrix(X), fmt=fmt)
        rows, cols = np.array([0, 0, 0, 1, 1, 1]), np.array([0, 1, 2, 0, 1, 2])
        np.testing.assert_array_equal(sparse_values(M, rows, cols), X[rows, cols])


def test_a_matrix_too_large_to_densify_fits():
    # 20,000 x 200,000 at 0.0025 %: dense it would take 16 GB (float32) and its
    # presorted index 8 GB; the fit holds a few copies of its 100,000 values.
    rng = np.random.default_rng(0)
    n, d, k = 20_000, 200_000, 100_000
    X = sp.csc_matrix((rng.integers(1, 4, k).astype(np.float32),
                       (rng.integers(0, n, k), rng.integers(0, d, k))), shape=(n, d))
    y = (np.asarray(X[:, :1000].sum(axis=1)).ravel() > 0).astype(int)
    tracemalloc.start()
    tree = DecisionTreeClassifier(max_depth=4).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert tree.get_depth() >= 1
    assert peak < 64 * 2**20, f"fit took {peak / 2**20:.0f} MiB"
    np.testing.assert_array_equal(tree.predict(X.tocsr()), tree.predict(X))


@pytest.mark.parametrize("bad, message", [
    (np.nan, "Input X contains NaN"),
    (np.inf, "infinite"),
    (1e39, "too large for float32"),
])
def test_bad_values_are_refused_by_name(bad, message):
    X = sp.csc_matrix(np.array([[0.0, 1.0], [bad, 0.0], [1.0, 2.0]]))
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier().fit(X, [0, 1, 0])
    tree = DecisionTreeClassifier().fit(np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 2.0]]), [0, 1, 0])
    with pytest.raises(ValueError, match=message):
        tree.predict(sp.csr_matrix(np.array([[bad, 0.0]])))


def test_complex_and_wrong_width_are_refused():
    tree = DecisionTreeRegressor().fit(sp.csc_matrix(np.eye(3)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Complex data not supported"):
        DecisionTreeRegressor().fit(sp.csc_matrix(np.eye(3, dtype=complex)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="features"):
        tree.predict(sp.csr_matrix(np.eye(4)))


def test_scikit_learn_grows_the_same_sparse_tree():
    """The oracle: scikit-learn's tree on the same sparse matrix (classification, exact sums)."""
    sklearn_tree = pytest.importorskip("sklearn.tree")
    rng = np.random.default_rng(5)
    dense = rng.normal(size=(1000, 30)) * (rng.random((1000, 30)) < 0.2)   # distinct values
    y = (dense[:, 0] - dense[:, 1] + 0.5 * dense[:, 2] + 0.3 * rng.normal(size=1000) > 0)
    X = sp.csc_matrix(dense)
    # Two levels: nodes of hundreds of samples, where no two splits tie (in
    # small nodes scikit-learn's random feature order breaks ties its own way).
    ours = DecisionTreeClassifier(max_depth=2).fit(X, y)
    theirs = sklearn_tree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
    np.testing.assert_array_equal(ours.tree_.n_node_samples, theirs.tree_.n_node_samples)
    np.testing.assert_allclose(ours.predict_proba(X.tocsr()), theirs.predict_proba(X.tocsr()))


@pytest.mark.parametrize("Estimator, criterion", [
    (DecisionTreeClassifier, "gini"), (DecisionTreeRegressor, "squared_error"),
    (DecisionTreeRegressor, "absolute_error")])
@pytest.mark.parametrize("params", [{}, {"max_leaf_nodes": 6}, {"splitter": "random",
                                                                "random_state": 0}])
def test_monotonic_constraints_on_sparse_X(Estimator, criterion, params):
    rng = np.random.default_rng(7)
    X = _random_sparse(rng, 80, 4, 0.5)
    if Estimator is DecisionTreeClassifier:
        y = (X[:, 0] - X[:, 1] + rng.integers(-2, 3, 80) > 0).astype(int)
    else:
        y = (2 * X[:, 0] - X[:, 1] + rng.integers(-2, 3, 80)).astype(float)
    cst = [1, -1, 0, 1]
    dense = Estimator(criterion=criterion, monotonic_cst=cst, **params).fit(X, y)
    sparse = Estimator(criterion=criterion, monotonic_cst=cst, **params).fit(sp.csc_matrix(X), y)
    _same_tree(dense, sparse)


def test_a_mostly_zero_dense_X_is_searched_as_sparse_with_the_same_tree(monkeypatch):
    import dtree.sparse as sparse_module

    rng = np.random.default_rng(3)
    levels = rng.integers(0, 10, size=(500, 12))
    X = np.zeros((500, 120))
    X[np.arange(500)[:, None], levels + 10 * np.arange(12)] = 1.0     # 12 one-hot blocks
    y = (levels[:, 0] + levels[:, 1] + rng.integers(0, 3, 500)) % 3
    started = []
    fraction = sparse_module.SPARSE_ZERO_FRACTION
    original = sparse_module.SparseSplitter.start
    monkeypatch.setattr(sparse_module.SparseSplitter, "start",
                        lambda self, X, sort=None: started.append(X.nnz) or original(self, X))
    for params in ({}, {"max_depth": 4, "max_features": 30, "random_state": 0},
                   {"max_leaf_nodes": 9}, {"splitter": "random", "random_state": 1}):
        auto = DecisionTreeClassifier(**params).fit(X, y)
        assert started and started.pop() == 6000            # the sparse search ran
        monkeypatch.setattr(sparse_module, "SPARSE_ZERO_FRACTION", 2.0)   # never
        dense = DecisionTreeClassifier(**params).fit(X, y)
        monkeypatch.setattr(sparse_module, "SPARSE_ZERO_FRACTION", fraction)
        assert not started
        _same_tree(dense, auto)


def test_only_exact_class_weights_without_nan_switch_to_the_sparse_search():
    from dtree.criteria import ClassWeights
    from dtree.sparse import mostly_zeros

    X = np.zeros((40, 5))
    X[::5, 0] = 1.0
    counts = ClassWeights(np.arange(40) % 2, np.ones(40), 2)
    assert mostly_zeros(X, counts)
    assert not mostly_zeros(X, ClassWeights(np.arange(40) % 2, np.full(40, 0.5), 2))
    assert not mostly_zeros(X, np.ones((3, 40)))                  # a regression's sums
    X[3, 2] = np.nan
    assert not mostly_zeros(X, counts)
    assert not mostly_zeros(np.ones((40, 5)), counts)


def test_non_canonical_input_zero_weights_and_small_blocks(monkeypatch):
    """Duplicates summed as the dense copy sums them, rows of weight 0 dropped, tiny blocks."""
    import dtree.sparse as sparse_module

    rng = np.random.default_rng(11)
    X = _random_sparse(rng, 50, 6, 0.4)
    coo = sp.coo_matrix(X)
    # each stored value split into two duplicates, in a shuffled order
    order = rng.permutation(coo.nnz)
    halves = np.r_[coo.data / 2, coo.data / 2][np.r_[order, order]]
    rows = np.r_[coo.row, coo.row][np.r_[order, order]]
    cols = np.r_[coo.col, coo.col][np.r_[order, order]]
    duplicated = sp.csr_matrix((halves, (rows, cols)), shape=X.shape)
    duplicated.has_canonical_format = False
    y = rng.integers(0, 3, 50)
    w = rng.integers(0, 3, 50).astype(float)        # some samples weigh 0
    monkeypatch.setattr(sparse_module, "APPLY_BLOCK_CELLS", 16)
    for params in ({}, {"max_leaf_nodes": 7}):
        dense = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
        sparse = DecisionTreeClassifier(**params).fit(duplicated, y, sample_weight=w)
        _same_tree(dense, sparse)
        np.testing.assert_array_equal(sparse.predict(duplicated), dense.predict(X))


def test_duplicates_are_summed_before_the_float32_cast():
    # 2**24 + 1 is not a float32; summed first (as toarray sums), the two rows differ
    X = sp.csc_matrix((np.array([2.0**24 + 1, 1.0, 2.0**24]), np.array([0, 0, 1]),
                       np.array([0, 3])), shape=(2, 1))
    assert DecisionTreeClassifier().fit(X, [0, 1]).tree_.node_count == 3
    overflow = sp.csc_matrix((np.array([3e38, 3e38]), np.array([0, 0]), np.array([0, 2])),
                             shape=(2, 1))
    with pytest.raises(ValueError, match="too large for float32"):
        DecisionTreeClassifier().fit(overflow, [0, 1])


@pytest.mark.parametrize("method", ["decision_path", "apply", "predict"])
def test_a_sparse_X_is_copied_once_per_call(monkeypatch, method):
    # The private CSR copy made by the estimator's check is the one the tree
    # reads: a second copy would double the memory of a large matrix.
    import dtree._validation
    import dtree.cart
    import dtree.sparse
    import dtree.tree

    rng = np.random.default_rng(0)
    X = sp.random(200, 50, density=0.05, format="csr", random_state=1, dtype=np.float64)
    y = rng.integers(0, 2, 200)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    calls = []
    original = dtree._validation.check_sparse_X

    def counted(*args, **kwargs):
        calls.append(kwargs.get("fmt"))
        return original(*args, **kwargs)

    for module in (dtree.sparse, dtree.cart, dtree.tree):
        monkeypatch.setattr(module, "check_sparse_X", counted)
    result = getattr(tree, method)(X)
    assert calls == ["csr"], f"{method} copied X {len(calls)} times"
    expected = getattr(tree, method)(X.toarray())
    if method == "decision_path":
        assert (result != expected).nnz == 0
    else:
        np.testing.assert_array_equal(result, expected)
