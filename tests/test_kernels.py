"""The compiled kernels of dtree.kernels: the nodes' sums, the descents, the sparse partition.

The compiled sums of a level's nodes must be ``node_stats``' floats, the
compiled descents NumPy's, and whole trees must come out identical, array
for array, with the kernels on and off (the split search itself, one loop
compiled or run as written, is tests/test_sweep.py's).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine

import dtree.criteria
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, growth, kernels
from dtree.criteria import (AbsoluteError, Entropy, FriedmanMSE, Gini, Poisson,
                            SquaredError, multi_output)
from dtree.splitting import (
    BestSplitter,
    presort,
)

pytestmark = pytest.mark.skipif(not kernels.available(), reason="Numba is not installed")

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=200, deadline=None)
CRITERIA = [Gini, Entropy, SquaredError, FriedmanMSE, Poisson]
# With the absolute error (searched by the kernels where its sums are exact).
SEARCHED = CRITERIA + [AbsoluteError]
LOGARITHMIC = (Entropy, Poisson)
N_CLASSES = 4
FIELDS = ("feature", "threshold", "cut", "n_missing", "missing_left", "missing_go_to_left",
          "n_left")


class _LibmLog2:
    """NumPy, but for ``log2`` and ``log``: the C library's, as the compiled kernels take them.

    Compiled by Numba (with ``out=`` and ``where=`` as NumPy's ``log2`` takes
    them), so that the NumPy sweep computes the entropy and Poisson proxies
    (and Poisson's impurities) with the kernels' logarithms: the two must
    then agree float for float.
    """

    def __init__(self):
        import numba

        def elementwise_log2(x):
            out = np.empty_like(x)
            for i in range(x.size):
                out[i] = np.log2(x[i])
            return out

        def elementwise_log(x):
            out = np.empty_like(x)
            for i in range(x.size):
                out[i] = np.log(x[i])
            return out

        self._log2 = numba.njit(error_model="numpy")(elementwise_log2)
        self._log = numba.njit(error_model="numpy")(elementwise_log)

    @staticmethod
    def _apply(function, x, out, where):
        x = np.asarray(x, dtype=np.float64)
        result = function(x.ravel()).reshape(x.shape)
        if out is None:
            return result
        np.copyto(out, result, where=where)
        return out

    def log2(self, x, out=None, where=True):
        return self._apply(self._log2, x, out, where)

    def log(self, x, out=None, where=True):
        return self._apply(self._log, x, out, where)

    def __getattr__(self, name):
        return getattr(np, name)


_LIBM = {}


def libm_log2(patch, criterion):
    """Give ``dtree.criteria`` the C library's log2 and log (``patch``: a
    MonkeyPatch) for the criteria that take logarithms."""
    criterion = getattr(criterion, "base", criterion)         # of several outputs
    if criterion in LOGARITHMIC or criterion in ("entropy", "log_loss", "poisson"):
        if not _LIBM:
            _LIBM["np"] = _LibmLog2()
        patch.setattr(dtree.criteria, "np", _LIBM["np"])


def level(rng, n, n_features, n_segments, criterion, exact, ties):
    """A splitter on random data and a random level of it (segments sorted per feature).

    Returns the splitter (its ``order`` the level's) and ``starts``, ``sizes``;
    a regression of several outputs (``multi_output``) has that many targets.
    """
    if ties:
        X = rng.integers(0, 5, size=(n, n_features)) / 2.0       # few values: tied runs
    else:
        X = rng.normal(size=(n, n_features))
    X[:, rng.integers(0, n_features)] = rng.integers(0, 2) / 3   # a constant feature
    draw = rng.random()
    if draw < 0.6:
        weight = rng.integers(1, 5, n) / (1.0 if exact else 2.0)
    elif draw < 0.8:       # whole weights whose squared totals pass 2**53 (Gini's squares)
        weight = rng.integers(10**6, 10**8, n).astype(float)
    else:
        weight = np.ones(n)
    if not exact:
        weight = weight * rng.uniform(0.3, 3.0, n)
    if criterion in (Gini, Entropy) or getattr(criterion, "base", None) in (Gini, Entropy):
        shape = (n, getattr(criterion, "n_outputs", 1))
        y = rng.integers(0, rng.integers(1, N_CLASSES + 1), shape)
        y = y[:, 0] if shape[1] == 1 else y
    else:
        shape = (n, getattr(criterion, "n_outputs", 1))
        y = rng.integers(0, 6, shape).astype(float) if exact else rng.gamma(2.0, size=shape)
        y[0] = np.maximum(y[0], 1.0)                             # Poisson: a positive sum
        y = y[:, 0] if shape[1] == 1 else y
    stats = criterion.sample_stats(y, weight, N_CLASSES)
    splitter = BestSplitter(criterion, stats).start(X)
    # Some samples, in n_segments nodes, each sorted by every feature (as the
    # growth lays out a level: presorted once, then partitioned stably).
    used = rng.permutation(n)[:rng.integers(max(n_segments, n // 2), n + 1)]
    node = np.full(n, -1)
    node[used] = np.sort(rng.integers(0, n_segments, used.size))
    node[used[:n_segments]] = np.arange(n_segments)             # no empty node
    order = np.array([row[np.argsort(node[row], kind="stable")][n - used.size:]
                      for row in presort(X)], dtype=splitter.order.dtype)
    splitter.order = order
    sizes = np.bincount(node[used], minlength=n_segments)
    return splitter, np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp), sizes


def truly_constant(splitter, starts, sizes):
    """Whether each feature takes one value (as float32) in each segment, (n_segments, d)."""
    X = splitter.X.astype(np.float32)
    return np.array([[np.unique(X[splitter.order[f, s:s + k], f]).size == 1
                      for f in range(X.shape[1])] for s, k in zip(starts, sizes)])


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 70), n_segments=st.integers(1, 5),
       criterion=st.sampled_from(SEARCHED), exact=st.booleans(),
       n_outputs=st.sampled_from([1, 1, 2, 3]))
@example(seed=4, n=9, n_segments=2, criterion=AbsoluteError, exact=True, n_outputs=1)
@example(seed=5, n=60, n_segments=4, criterion=AbsoluteError, exact=True, n_outputs=3)
def test_the_compiled_totals_are_node_stats(seed, n, n_segments, criterion, exact, n_outputs):
    # Class weights with exact sums (any order gives them) and every array of
    # statistics, summed one sample after another as numpy.bincount does; the
    # absolute error's weights, medians and deviations where its sums are exact.
    if n_outputs > 1 and criterion not in (Gini, Entropy):
        criterion = multi_output(criterion, n_outputs)
    rng = np.random.default_rng(seed)
    splitter, starts, sizes = level(rng, n, 2, min(n_segments, n), criterion, exact, True)
    if AbsoluteError in (criterion, getattr(criterion, "base", None)) and exact:
        # Medians at midpoints too: each node's weight even in some nodes; and
        # zeros of both signs (tied targets: the median's sign is the stable sort's).
        splitter.stats[0] = rng.integers(1, 3, n).astype(float)
        targets = splitter.stats[1:]
        targets[(targets == 0) & (rng.random(targets.shape) < 0.5)] = -0.0
    expected = criterion.node_stats(splitter.stats, splitter.order[0], starts)
    with pytest.MonkeyPatch.context() as patch:
        medians = _counting(patch, "segment_medians")
        compiled = splitter.totals(starts)
    np.testing.assert_array_equal(compiled, expected)
    np.testing.assert_array_equal(np.signbit(compiled), np.signbit(expected))
    assert bool(medians) == splitter.deviations_exact


@pytest.mark.parametrize("dtype, layout", [(np.float32, "C"), (np.float64, "F")])
def test_x_read_in_place_with_a_wide_index(monkeypatch, dtype, layout):
    # 70,000 samples: the presorted index is uint32, codes and X are read in
    # place (no float32 copy by features), from float32 or Fortran-ordered X.
    rng = np.random.default_rng(1)
    X = np.asarray(rng.integers(0, 40, size=(70_000, 3)) / 4, dtype=dtype, order=layout)
    y = (X[:, 0] + rng.normal(size=70_000) > 5).astype(int) + (X[:, 1] > 6)

    def fitted():
        return DecisionTreeClassifier(max_depth=6).fit(X, y).tree_

    compiled = fitted()
    monkeypatch.setattr(kernels, "ENABLED", False)
    numpy = fitted()
    for name in ("feature", "threshold", "impurity", "value", "children_left"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(numpy, name))


DATA = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer,
        "diabetes": load_diabetes}


@pytest.mark.parametrize("data, criterion", [
    ("iris", "gini"), ("iris", "entropy"), ("wine", "gini"), ("wine", "entropy"),
    ("breast_cancer", "gini"), ("breast_cancer", "entropy"),
    ("diabetes", "squared_error"), ("diabetes", "friedman_mse"), ("diabetes", "poisson"),
    ("diabetes", "absolute_error")])
@pytest.mark.parametrize("params", [{}, {"max_depth": 3, "min_samples_leaf": 4},
                                    {"min_weight_fraction_leaf": 0.02},
                                    {"max_features": 3, "random_state": 0},
                                    {"max_leaf_nodes": 12, "random_state": 1}])
@pytest.mark.parametrize("weights", ["none", "whole", "fractional"])
def test_trees_are_the_trees_of_the_numpy_sweep(monkeypatch, data, criterion, params, weights):
    X, y = DATA[data](return_X_y=True)
    rng = np.random.default_rng(0)
    sample_weight = {"none": None, "whole": rng.integers(1, 4, y.size).astype(float),
                     "fractional": rng.uniform(0.2, 2.0, y.size)}[weights]
    make = DecisionTreeRegressor if data == "diabetes" else DecisionTreeClassifier

    def fitted():
        return make(criterion=criterion, **params).fit(X, y, sample_weight=sample_weight).tree_

    libm_log2(monkeypatch, criterion)      # both fits: the kernels' log2 (see above)
    compiled = fitted()
    monkeypatch.setattr(kernels, "ENABLED", False)
    numpy = fitted()
    for name in ("children_left", "children_right", "feature", "threshold", "impurity",
                 "n_node_samples", "weighted_n_node_samples", "value", "missing_go_to_left"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(numpy, name),
                                      err_msg=name)


def test_import_dtree_does_not_import_numba():
    """Numba (about 0.3 s to import) comes with the first fit, not with ``import dtree``."""
    code = textwrap.dedent("""
        import sys
        import dtree
        assert "numba" not in sys.modules
        from sklearn.datasets import load_iris
        dtree.DecisionTreeClassifier().fit(*load_iris(return_X_y=True))
        assert "numba" in sys.modules
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr


# --- The whole growth in one call (kernels.grow_levels, growth._grow_compiled) ---

def _without_grow_levels(monkeypatch):
    """Grow level by level (the compiled search per level), not with grow_levels."""
    monkeypatch.setattr(growth, "_grow_compiled", lambda *args, **kwargs: None)


def _counting_grow_levels(monkeypatch):
    """Record grow_levels' status of every call (the tree grown by it or not)."""
    statuses = []
    kernels.available()
    real = kernels.grow_levels

    def counted(*args):
        result = real(*args)
        statuses.append(result[0])
        return result

    monkeypatch.setattr(kernels, "grow_levels", counted)
    return statuses


TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "impurity",
               "n_node_samples", "weighted_n_node_samples", "value", "missing_go_to_left")


def assert_same_tree(a, b):
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def _root_decrease(criterion, X, y, tree):
    """The root split's weighted impurity decrease, as ``Criterion.improvement`` computes it."""
    goes_left = X[:, tree.feature[0]] <= tree.threshold[0]
    if criterion is Gini:
        def stats(mask):
            return np.bincount(y[mask], minlength=y.max() + 1).astype(float)[:, None]
    else:
        def stats(mask):
            return np.array([[mask.sum()], [y[mask].sum()], [(y[mask] ** 2).sum()]], float)
    root, left, right = stats(np.ones(y.size, bool)), stats(goes_left), stats(~goes_left)
    total_weight = float(criterion.weight(root)[0])
    return float(criterion.improvement(root, criterion.impurity(root), left, right,
                                       total_weight)[0])


@pytest.mark.parametrize("seed", range(30))
def test_poisson_trees_are_numpys_where_the_c_library_log_differs(monkeypatch, seed):
    """94869 is a value whose NumPy ``log`` (AVX-512) and C library ``log`` differ
    in the last bit: a pure node's impurity is then 0 for NumPy and above
    EPSILON for grow_levels (a reviewer's case, seed 0).  The fit checks
    grow_levels' decisions with NumPy's impurities and grows the tree level by
    level where they differ: the trees are NumPy's, unpatched.  (On a CPU
    whose NumPy calls the C library's ``log`` there is nothing to differ.)"""
    rng = np.random.default_rng(seed)
    if seed == 0:
        X = np.array([[0.126], [-0.132], [0.64], [0.105]])
        y = np.array([94869.0, 1.0, 94869.0, 94869.0])
    else:
        X = rng.normal(size=(12, 2))
        y = np.where(rng.random(12) < 0.7, 94869.0, 1.0)
    checked = []
    real = growth._numpy_decides_alike
    monkeypatch.setattr(growth, "_numpy_decides_alike",
                        lambda *args: checked.append(real(*args)) or checked[-1])
    grown = DecisionTreeRegressor(criterion="poisson").fit(X, y).tree_
    assert len(checked) == 1
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert_same_tree(grown, DecisionTreeRegressor(criterion="poisson").fit(X, y).tree_)


@pytest.mark.parametrize("case", ["alike", "split_pure", "pure_not", "refused_at_0",
                                  "decrease_below"])
def test_numpy_decides_alike_checks_each_rule(case):
    # A root split into two pure leaves (Poisson statistics w, w y, w y ln y).
    stats = Poisson.sample_stats(np.array([1.0, 1.0, 3.0, 3.0]), np.ones(4))
    node_stats = np.column_stack([stats.sum(axis=1), stats[:, :2].sum(axis=1),
                                  stats[:, 2:].sum(axis=1)]).T
    impurity = Poisson.impurity(np.ascontiguousarray(node_stats.T))
    grown = {"impurity": impurity, "children_left": np.array([1, -1, -1]),
             "children_right": np.array([2, -1, -1])}
    reason = np.array([kernels.SPLIT, kernels.PURE, kernels.PURE], np.int8)
    rules = dict(max_depth=5, min_samples_split=2, min_samples_leaf=1, min_weight_leaf=0.0,
                 max_leaf_nodes=None)
    params = growth.GrowthParams(min_impurity_decrease=0.0, **rules)
    if case == "split_pure":
        grown["impurity"] = np.array([0.0, 0.0, 0.0])
    elif case == "pure_not":
        grown["impurity"] = impurity + np.array([0.0, 1e-3, 0.0])
    elif case == "refused_at_0":
        reason[0] = kernels.TOO_SMALL_DECREASE
    elif case == "decrease_below":
        params = growth.GrowthParams(min_impurity_decrease=10.0, **rules)
    assert growth._numpy_decides_alike(Poisson, grown, node_stats, reason, params) is (
        case == "alike")


@pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0",
                    reason="NumPy 1.x: seen to fail once in 3 runs with NumPy 1.24 (test-compat's "
                           "oldest environment), its vectorised log differing in the last bit from "
                           "a lone value's; the Poisson impurities of growth._level_impurities can "
                           "then differ from the node-by-node ones in their last bit")
def test_numpy_logarithms_do_not_depend_on_the_position():
    """NumPy's ``log`` and ``log2`` of a value are the same floats wherever it
    sits in an array (offset, length, stride: its vectorised loop's main
    part, remainder or a lone value), which lets ``growth._level_impurities``
    compute all nodes' Poisson impurities in one call."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.random(3000) * 100, rng.integers(1, 1000, 3000) / 7,
                        rng.random(3000), [1.0, 2.0, 0.5, 1e-300, 1e300]])
    for log in (np.log, np.log2):
        alone = np.array([log(x[i:i + 1])[0] for i in range(x.size)])
        for offset in range(9):
            for length in (1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 1000, x.size - offset):
                np.testing.assert_array_equal(log(x[offset:offset + length]),
                                              alone[offset:offset + length])
        np.testing.assert_array_equal(log(x[::3]), alone[::3])
        np.testing.assert_array_equal(log(x.reshape(-1, 1)).ravel(), alone)


def _counting(monkeypatch, name):
    """Count the calls of ``kernels.<name>`` (compiled first)."""
    assert kernels.available()
    calls = []
    real = getattr(kernels, name)
    monkeypatch.setattr(kernels, name, lambda *a: calls.append(1) or real(*a))
    return calls


def test_partition_entries_is_the_stable_sort():
    """kernels.partition_entries orders the entries as NumPy's stable sort by
    (feature, segment, goes right) does."""
    assert kernels.available()
    rng = np.random.default_rng(5)
    n, d, n_segments = 200, 6, 7
    segment_of = np.sort(rng.integers(0, n_segments, n)).astype(np.intp)
    col = np.repeat(np.arange(d, dtype=np.int32), n)
    row = np.tile(np.arange(n, dtype=np.int32), d)
    value = rng.integers(1, 5, col.size).astype(np.float32)
    keep = rng.random(col.size) < 0.4
    col, row, value = col[keep], row[keep], value[keep]
    by = np.lexsort((value, segment_of[row], col))           # sorted by (feature, segment, value)
    col, row, value = col[by], row[by], value[by]
    goes_left = rng.random(n) < 0.5
    out = (np.empty_like(col), np.empty_like(row), np.empty_like(value))
    kernels.partition_entries(col, row, value, segment_of, goes_left, *out)
    key = col.astype(np.int64) * (2 * n_segments) + 2 * segment_of[row] + ~goes_left[row]
    moved = np.argsort(key, kind="stable")
    for got, expected in zip(out, (col[moved], row[moved], value[moved])):
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 150), d=st.integers(1, 25),
       density=st.floats(0.0, 1.0), max_depth=st.integers(0, 8), fmt=st.sampled_from(["csr", "csc"]))
def test_the_compiled_sparse_apply_is_numpys(seed, n, d, density, max_depth, fmt):
    """kernels.apply_sparse sends every row of a sparse X to the leaf that the
    NumPy descent (dtree.sparse.sparse_apply without Numba) and the dense
    descent send it to."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    # whole values: every threshold (k + 1/2) is a float32, so rows on it reach the kernel
    X = rng.integers(-3, 4, size=(n, d)) * (rng.random((n, d)) < density)
    y = rng.integers(0, 3, n)
    model = DecisionTreeClassifier(max_depth=max_depth or None, random_state=0).fit(X, y)
    X_test = np.round(rng.normal(size=(60, d)), 1) * (rng.random((60, d)) < 0.5)
    X_test[:5] = X[:5] if n >= 5 else X_test[:5]          # training rows: thresholds' sides
    X_test = np.vstack([X_test, _on_thresholds(model.tree_, d)])
    sparse = getattr(scipy.sparse, f"{fmt}_matrix")(X_test.astype(np.float32))
    with pytest.MonkeyPatch.context() as patch:
        calls = _counting(patch, "apply_sparse")
        compiled = model.apply(sparse)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels, "ENABLED", False)
        numpy = model.apply(sparse)
    assert calls or model.tree_.node_count == 1
    np.testing.assert_array_equal(compiled, numpy)
    np.testing.assert_array_equal(compiled, model.apply(X_test.astype(np.float32)))


def _on_thresholds(tree, d):
    """Rows whose every feature is the threshold of one inner node (one row per node),
    float64: each meets its node's test with equality."""
    thresholds = tree.threshold[tree.children_left >= 0]
    thresholds = thresholds[np.isfinite(thresholds)]      # not the +inf of missing-value splits
    return np.repeat(thresholds[:, None], d, axis=1)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), d=st.integers(1, 8),
       max_depth=st.integers(0, 8), missing=st.booleans(),
       layout=st.sampled_from(["C", "F", "strided", "float32", "int"]))
def test_the_compiled_dense_apply_is_numpys(seed, n, d, max_depth, missing, layout):
    """kernels.apply_dense sends every row to the leaf of the NumPy descent
    (level by level, TreeArrays._apply_dense without Numba): missing values
    to their learned side, float32 rows against the float64 thresholds,
    C, Fortran and strided layouts, integer X."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)
    if missing:
        X[rng.random((n, d)) < 0.2] = np.nan
    model = DecisionTreeClassifier(max_depth=max_depth or None, random_state=0).fit(
        X, rng.integers(0, 3, n))
    X_test = np.vstack([X[:10], np.round(rng.normal(size=(50, d)), 1)])
    if missing and layout != "int":
        X_test[rng.random(X_test.shape) < 0.1] = np.nan
    if layout != "int":                 # x == threshold goes left (x <= threshold)
        X_test = np.vstack([X_test, _on_thresholds(model.tree_, d)])
    X_test = {"C": X_test, "F": np.asfortranarray(X_test), "strided": X_test[::2],
              "float32": X_test.astype(np.float32),
              "int": np.nan_to_num(X_test * 10).astype(int)}[layout]
    # tree_.apply takes X as it is (float64, strided); the estimator's apply, as float32
    for apply in (model.tree_.apply, model.apply):
        with pytest.MonkeyPatch.context() as patch:
            calls = _counting(patch, "apply_dense")
            compiled = apply(X_test)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(kernels, "ENABLED", False)
            numpy = apply(X_test)
        assert calls or model.tree_.node_count == 1
        np.testing.assert_array_equal(compiled, numpy)
    # too narrow an X: a ValueError naming the widths, never a read past a row
    if model.tree_.node_count > 1:
        widest = model.tree_.feature[model.tree_.children_left >= 0].max()
        with pytest.raises(ValueError, match=f"X has {widest} features, but the tree tests"):
            model.tree_.apply(np.ascontiguousarray(X_test[:, :widest]))
