"""The compiled sweep (dtree.kernels) finds the splits of the NumPy sweep.

``dtree.splitting.compiled_splits`` scores a level node by node and feature by
feature in one Numba call; ``dtree.splitting.best_splits`` scores it with NumPy,
vectorised over nodes and features, and ``tests/test_reference_splitter.py``
holds that one equal to the readable ``reference_split``.  Here the compiled
search must return best_splits' SplitResult field for field, float for float
(for entropy and Poisson, whose ``log2`` the kernels take from the C library,
with NumPy's sweep given the same ``log2``: NumPy's vectorised code differs in
the last bit for some values, and a near-tie can then fall the other way), on
random levels with ties in ``x``,
whole and fractional weights, feature draws, tie ranks, ``min_samples_leaf``,
``min_weight_leaf`` and features known constant; the compiled partition must
leave the presorted index as NumPy's does, and so must the compiled compaction
of a level's kept positions; the compiled sums of a level's nodes must be
``node_stats``' floats; and whole trees must come out
identical, array for array, with the kernels on and off.
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
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, growth, kernels, splitting
from dtree.criteria import (EPSILON, AbsoluteError, Entropy, FriedmanMSE, Gini, Poisson,
                            SquaredError, multi_output)
from dtree.splitting import (
    BestSplitter,
    SearchOptions,
    SplitResult,
    _deviations_exact,
    _keep_columns,
    _squares_exact,
    best_splits,
    compiled_splits,
    goes_left,
    partition,
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


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 70), n_features=st.integers(1, 5),
       n_segments=st.integers(1, 5), criterion=st.sampled_from(SEARCHED),
       exact=st.booleans(), ties=st.booleans(), min_samples_leaf=st.integers(1, 4),
       min_weight_leaf=st.sampled_from([0.0, 2.0, 6.5]),
       draws=st.sampled_from(["none", "ranks", "mask"]), by_feature=st.booleans(),
       known=st.booleans(), n_outputs=st.sampled_from([1, 1, 2, 3, 9]))
@example(seed=0, n=40, n_features=3, n_segments=3, criterion=Gini, exact=True, ties=True,
         min_samples_leaf=1, min_weight_leaf=0.0, draws="none", by_feature=True, known=True,
         n_outputs=1)
@example(seed=2, n=60, n_features=3, n_segments=3, criterion=SquaredError, exact=False,
         ties=True, min_samples_leaf=1, min_weight_leaf=0.0, draws="ranks", by_feature=False,
         known=True, n_outputs=9)
@example(seed=3, n=70, n_features=4, n_segments=4, criterion=AbsoluteError, exact=True,
         ties=True, min_samples_leaf=2, min_weight_leaf=6.5, draws="ranks", by_feature=True,
         known=True, n_outputs=3)
def test_compiled_splits_are_best_splits(seed, n, n_features, n_segments, criterion, exact,
                                         ties, min_samples_leaf, min_weight_leaf, draws,
                                         by_feature, known, n_outputs):
    """The kernels' splits are best_splits', field for field (of several outputs too)."""
    if n_outputs > 1:
        criterion = multi_output(criterion, n_outputs, [N_CLASSES] * n_outputs
                                 if criterion in (Gini, Entropy) else None)
    rng = np.random.default_rng(seed)
    n_segments = min(n_segments, n)
    splitter, starts, sizes = level(rng, n, n_features, n_segments, criterion, exact, ties)
    splitter.min_samples_leaf, splitter.min_weight_leaf = min_samples_leaf, min_weight_leaf
    if not by_feature:
        splitter.columns = None            # read X in place, as large fits do
    options = SearchOptions()
    shape = (n_segments, n_features)
    if draws != "none":
        options.feature_rank = np.argsort(rng.random(shape), axis=1).argsort(axis=1)
    if draws == "mask":
        options.feature_mask = rng.random(shape) < 0.6
    truth = truly_constant(splitter, starts, sizes)
    # Features known constant (from an ancestor): some of the truly constant ones.
    constant = truth & (rng.random(shape) < 0.5) if known else np.zeros(shape, bool)
    totals = criterion.node_stats(splitter.stats, splitter.order[0], starts)
    with pytest.MonkeyPatch.context() as patch:
        # Entropy and Poisson: NumPy's log2 (vectorised, AVX-512 where the CPU
        # has it) and the C library's differ in the last bit for some values;
        # the NumPy sweep is given the kernels' log2 so that both are exact.
        libm_log2(patch, criterion)
        expected = best_splits(splitter.X, splitter.order, starts, sizes, splitter.stats,
                               totals, criterion, min_samples_leaf=min_samples_leaf,
                               min_weight_leaf=min_weight_leaf, options=options,
                               constant=constant.copy(), columns=splitter.columns)
    found_constant = constant.copy()
    found = compiled_splits(splitter, starts, sizes, totals, options, found_constant)
    # Classes of several outputs: exact sums only (Gini: exact squares); the
    # absolute error: exact deviations only (whole weights, targets of few bits).
    base = getattr(criterion, "base", None)
    if (base is Gini and not (splitter.stats.exact_sums and _squares_exact(totals))
            or base is Entropy and not splitter.stats.exact_sums
            or AbsoluteError in (criterion, base) and not exact):
        assert found is None
        return
    assert found is not None
    np.testing.assert_array_equal(found.proxy, expected.proxy)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(found, field), getattr(expected, field),
                                      err_msg=field)
    # Features found constant are constant; unmasked features of segments large
    # enough to split are all examined.
    assert not (found_constant & ~truth).any()
    examined = np.repeat((sizes >= 2 * min_samples_leaf)[:, None], n_features, axis=1)
    if options.feature_mask is not None:
        examined &= options.feature_mask
    np.testing.assert_array_equal(found_constant[examined], truth[examined])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 400),
       n_classes=st.sampled_from([2, 3, 10, 100, 300]),
       weights=st.sampled_from(["none", "whole", "huge", "zeros"]), ties=st.booleans(),
       ranks=st.booleans())
def test_the_entropys_bound_skips_no_best_cut(seed, n, n_classes, weights, ties, ranks):
    """The entropy with exact sums scores only the cuts whose O(1) bound may reach the
    best (``search_classes``): its splits stay best_splits', however many classes,
    whatever the weights (whole ones near 2**27, zeros whose children are NaN)."""
    rng = np.random.default_rng(seed)
    X = (rng.integers(0, 6, size=(n, 3)) if ties else rng.normal(size=(n, 3))).astype(float)
    y = (rng.integers(0, n_classes, n) + (X[:, 0] > X[:, 0].mean()) * rng.integers(0, 3)) % n_classes
    weight = {"none": np.ones(n), "whole": rng.integers(1, 9, n).astype(float),
              "huge": rng.integers(10**7, 10**8, n).astype(float),
              "zeros": rng.integers(0, 3, n).astype(float)}[weights]
    stats = Entropy.sample_stats(y, weight, n_classes)
    splitter = BestSplitter(Entropy, stats).start(X)
    n_segments = min(n, 3)
    node = np.sort(rng.integers(0, n_segments, n))
    node[:n_segments] = np.arange(n_segments)
    node.sort()
    splitter.order = np.array([row[np.argsort(node[row], kind="stable")]
                               for row in splitter.order], dtype=splitter.order.dtype)
    sizes = np.bincount(node, minlength=n_segments)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    options = SearchOptions()
    if ranks:
        options.feature_rank = np.argsort(rng.random((n_segments, 3)), axis=1).argsort(axis=1)
    totals = splitter.totals(starts)
    with pytest.MonkeyPatch.context() as patch:
        libm_log2(patch, Entropy)
        expected = best_splits(splitter.X, splitter.order, starts, sizes, stats, totals,
                               Entropy, options=options, columns=splitter.columns)
    found = compiled_splits(splitter, starts, sizes, totals, options,
                            np.zeros((n_segments, 3), bool))
    if found is None:               # a NaN proxy (a child of weight 0): NumPy's level
        assert weights == "zeros"
        return
    np.testing.assert_array_equal(found.proxy, expected.proxy)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(found, field), getattr(expected, field),
                                      err_msg=field)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), n_features=st.integers(1, 4),
       n_segments=st.integers(1, 5), missing=st.booleans())
def test_the_compiled_partition_is_partition(seed, n, n_features, n_segments, missing):
    rng = np.random.default_rng(seed)
    n_segments = min(n_segments, n)
    splitter, starts, sizes = level(rng, n, n_features, n_segments, Gini, True, True)
    order = splitter.order
    # Any split of each segment: a feature, the non-missing samples sent left,
    # and (with missing values) the last samples of the segment sent left or right.
    found = SplitResult.empty(n_segments)
    found.feature = rng.integers(0, n_features, n_segments)
    found.n_missing = rng.integers(0, sizes + 1) if missing else np.zeros(n_segments, np.intp)
    found.cut = rng.integers(0, sizes - found.n_missing + 1)
    found.missing_left = rng.random(n_segments) < 0.5
    found.n_left = found.cut + np.where(found.missing_left, found.n_missing, 0)
    expected = order.copy()
    partition(expected, starts, sizes, found.n_left,
              goes_left(expected, starts, sizes, found, n))
    kernels.partition_level(order, starts, sizes, found.feature, found.cut, found.n_missing,
                            found.missing_left, np.zeros(n, bool), np.empty(order.shape[1],
                                                                            order.dtype))
    np.testing.assert_array_equal(order, expected)


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


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_features=st.integers(1, 4), m=st.integers(0, 50),
       dtype=st.sampled_from([np.uint8, np.uint16, np.uint32]), view=st.booleans())
def test_the_compiled_keep_is_keep_columns(seed, n_features, m, dtype, view):
    rng = np.random.default_rng(seed)
    order = rng.integers(0, 200, size=(n_features, m + 3)).astype(dtype)
    if view:                                     # a view of a wider array, as after a keep
        order = order[:, :m]
    keep = rng.random(order.shape[1]) < 0.6
    expected = _keep_columns(order.copy(), keep)
    n_kept = kernels.keep_positions(order, keep)
    np.testing.assert_array_equal(order[:, :n_kept], expected)


@pytest.mark.parametrize("criterion", SEARCHED)
def test_a_child_of_exactly_min_weight_leaf_is_allowed(criterion):
    # The best cut leaves two samples of weight 1 on the left: min_weight_leaf=2
    # allows it (a child lighter than min_weight_leaf is refused, not one as heavy).
    X = np.arange(6.0)[:, None]
    y = np.array([0, 0, 1, 1, 1, 1]) if criterion in (Gini, Entropy) else \
        np.array([1.0, 1.0, 5.0, 6.0, 5.0, 6.0])
    stats = criterion.sample_stats(y, np.ones(6), 2)
    splitter = BestSplitter(criterion, stats, min_weight_leaf=2.0).start(X)
    starts, sizes = np.array([0]), np.array([6])
    totals = splitter.totals(starts)
    found = compiled_splits(splitter, starts, sizes, totals, SearchOptions(),
                            np.zeros((1, 1), bool))
    expected = best_splits(X, splitter.order, starts, sizes, stats, totals, criterion,
                           min_weight_leaf=2.0)
    assert found.cut[0] == expected.cut[0] == 2
    assert found.proxy[0] == expected.proxy[0]


def test_the_absolute_errors_cuts_by_hand():
    # y = 1, 2, 10, 4 along x = 0..3.  Cut after x=0: D_L = 0, D_R = |2-4| + |10-4| = 8
    # (median 4 of {2, 4, 10}); after x=1: D_L = 1 (median 1 of {1, 2}: any point
    # of [1, 2] gives 1), D_R = 6; after x=2: D_L = |1-2| + |10-2| = 9, D_R = 0.
    # The best is the cut after x=1, proxy -(1 + 6) = -7.
    X = np.arange(4.0)[:, None]
    y = np.array([1.0, 2.0, 10.0, 4.0])
    stats = AbsoluteError.sample_stats(y, np.ones(4))
    splitter = BestSplitter(AbsoluteError, stats).start(X)
    starts, sizes = np.array([0]), np.array([4])
    found = compiled_splits(splitter, starts, sizes, splitter.totals(starts), SearchOptions(),
                            np.zeros((1, 1), bool))
    assert (found.cut[0], found.proxy[0], found.threshold[0]) == (2, -7.0, 1.5)


@pytest.mark.parametrize("y, weight, exact", [
    ([1.0, 2.0, 10.0], None, True),
    ([0.5, 2.25, -3.0], [1.0, 2.0, 7.0], True),            # multiples of 2**-2
    ([0.1, 2.0, 3.0], None, False),                        # 0.1: no short binary fraction
    ([1.0, 2.0, 3.0], [1.0, 0.5, 2.0], False),             # a fractional weight
    ([1.0, 2.0, 3.0], [1.0, 0.0, 2.0], False),             # a zero weight
    ([1.0, 2.0, 2.0**50], None, False),                    # sums beyond 2**52
    ([1.0, 2.0, 2.0**-31], None, False),                   # too many binary digits
])
def test_the_absolute_error_is_compiled_only_where_its_sums_are_exact(y, weight, exact):
    y = np.array(y)
    weight = np.ones(y.size) if weight is None else np.array(weight)
    splitter = BestSplitter(AbsoluteError, AbsoluteError.sample_stats(y, weight)).start(
        np.arange(y.size, dtype=float)[:, None])
    assert _deviations_exact(splitter.stats) is exact
    assert splitter.deviations_exact is exact
    starts, sizes = np.array([0]), np.array([y.size])
    found = compiled_splits(splitter, starts, sizes, splitter.totals(starts), SearchOptions(),
                            np.zeros((1, 1), bool))
    assert (found is not None) is exact


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


def test_a_nan_proxy_leaves_the_level_to_numpy(monkeypatch):
    # A NaN statistic makes a proxy NaN: best_splits' rules for NaN (a
    # reduction over the level's arrays) decide that level, not the kernel.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    stats = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, np.nan, 1.0, 2.0], [0.0, 1.0, 1.0, 4.0]])
    splitter = BestSplitter(SquaredError, stats).start(X)
    starts, sizes = np.array([0]), np.array([4])
    totals = SquaredError.node_stats(stats, splitter.order[0], starts)
    constant = np.zeros((1, 1), bool)
    assert compiled_splits(splitter, starts, sizes, totals, SearchOptions(), constant) is None
    calls = []
    monkeypatch.setattr("dtree.splitting.best_splits",
                        lambda *args, **kwargs: calls.append(1) or SplitResult.empty(1))
    splitter.search(starts, sizes, totals)
    assert calls == [1]


@pytest.mark.parametrize("case", ["missing", "monotonic", "random", "absolute_error",
                                  "outputs", "disabled"])
def test_the_other_cases_go_to_numpy(monkeypatch, case):
    """What the kernels do not compute reaches best_splits: compiled_splits declines it."""
    X, y = load_iris(return_X_y=True)
    params, fit_y, weight = {}, y, None
    if case == "missing":
        X = X.copy()
        X[::7, 2] = np.nan
    elif case == "monotonic":
        params = {"monotonic_cst": [1, 0, 0, 0]}
        fit_y = y == 2
    elif case == "random":
        params = {"splitter": "random", "random_state": 0}
    elif case == "outputs":          # fractional weights (inexact sums) of several outputs
        fit_y, weight = np.column_stack([y, y == 1]), np.linspace(0.5, 1.5, y.size)
    elif case == "disabled":
        monkeypatch.setattr(kernels, "ENABLED", False)
    make = DecisionTreeRegressor if case == "absolute_error" else DecisionTreeClassifier
    if case == "absolute_error":     # targets of many binary digits: inexact deviations
        params, fit_y = {"criterion": "absolute_error"}, y / 10
    calls = []
    real = splitting.best_splits

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    compiled = []
    real_compiled = splitting.compiled_splits

    def recorded(*args, **kwargs):
        compiled.append(real_compiled(*args, **kwargs))
        return compiled[-1]

    monkeypatch.setattr(splitting, "best_splits", counted)
    monkeypatch.setattr(splitting, "compiled_splits", recorded)
    make(**params).fit(X, fit_y, sample_weight=weight)
    assert calls
    assert all(found is None for found in compiled)


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


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 120), n_features=st.integers(1, 5),
       criterion=st.sampled_from(["gini", "entropy", "squared_error", "friedman_mse", "poisson",
                                  "absolute_error"]),
       n_classes=st.sampled_from([2, 3, 11]), ties=st.booleans(),
       weights=st.sampled_from(["none", "whole"]),
       max_depth=st.sampled_from([None, 1, 3]), min_samples_leaf=st.integers(1, 4),
       min_samples_split=st.integers(2, 9), min_weight_fraction_leaf=st.sampled_from([0.0, 0.1]),
       min_impurity_decrease=st.sampled_from([0.0, 0.0, 0.005, 0.05]),
       random_state=st.sampled_from([None, 0, "generator"]),
       n_outputs=st.sampled_from([1, 1, 2, 9]))
@example(seed=0, n=4, n_features=2, criterion="entropy", n_classes=2, ties=True,
         weights="none", max_depth=None, min_samples_leaf=1, min_samples_split=2,
         min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, random_state=None, n_outputs=1)
@example(seed=1, n=120, n_features=5, criterion="gini", n_classes=3, ties=True,
         weights="none", max_depth=None, min_samples_leaf=1, min_samples_split=2,
         min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, random_state="generator", n_outputs=1)
@example(seed=1284, n=2, n_features=1, criterion="gini", n_classes=2, ties=True,
         weights="none", max_depth=None, min_samples_leaf=1, min_samples_split=2,
         min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, random_state=None, n_outputs=1)
@example(seed=5, n=80, n_features=3, criterion="friedman_mse", n_classes=2, ties=False,
         weights="whole", max_depth=None, min_samples_leaf=1, min_samples_split=2,
         min_weight_fraction_leaf=0.0, min_impurity_decrease=0.005, random_state=0,
         n_outputs=9)
@example(seed=6, n=60, n_features=3, criterion="absolute_error", n_classes=2, ties=False,
         weights="whole", max_depth=None, min_samples_leaf=2, min_samples_split=2,
         min_weight_fraction_leaf=0.0, min_impurity_decrease=0.005, random_state="generator",
         n_outputs=2)
def test_grow_levels_grows_the_trees_of_the_level_loop(
        seed, n, n_features, criterion, n_classes, ties, weights, max_depth,
        min_samples_leaf, min_samples_split, min_weight_fraction_leaf, min_impurity_decrease,
        random_state, n_outputs):
    """grow_levels' trees, array for array, are those of the loop over levels and of NumPy.

    With a seed, the tie ranks come from the same draws; a generator of the
    caller's is left as the loop over levels leaves it.  A regression has
    ``n_outputs`` targets (a classification one); the absolute error's are
    quarters, whose sums are exact (grow_levels grows it only then).
    """
    rng = np.random.default_rng(seed)
    # No zeros (ties: 1 to 4): a matrix of mostly zeros is searched sparse.
    X = rng.integers(1, 5, size=(n, n_features)) if ties else rng.normal(size=(n, n_features))
    X = X.astype(float)
    classification = criterion in ("gini", "entropy")
    if classification:
        y = (rng.integers(0, n_classes, n) + (X[:, 0] > 2)) % n_classes
    else:
        noise = rng.integers(0, 3, (n, n_outputs))
        y = X[:, :1] * 3 + noise * (1.0 if ties else rng.normal(size=(n, n_outputs)))
        y = np.abs(y) if criterion == "poisson" else y       # counts: y >= 0
        y = np.round(y * 4) / 4 if criterion == "absolute_error" else y
        y = y[:, 0] if n_outputs == 1 else y
    sample_weight = None if weights == "none" else rng.integers(1, 5, n).astype(float)
    make = DecisionTreeClassifier if classification else DecisionTreeRegressor
    params = dict(criterion=criterion, max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                  min_samples_split=min_samples_split,
                  min_weight_fraction_leaf=min_weight_fraction_leaf,
                  min_impurity_decrease=min_impurity_decrease)

    generators = []

    def fitted():
        state = random_state
        if random_state == "generator":
            state = np.random.default_rng(seed)
            generators.append(state)
        return make(random_state=state, **params).fit(X, y, sample_weight=sample_weight).tree_

    with pytest.MonkeyPatch.context() as patch:
        libm_log2(patch, criterion)
        statuses = _counting_grow_levels(patch)
        grown = fitted()
        assert len(statuses) == 1 and statuses[0] in (kernels.GROWN, kernels.CLOSE_DECREASE)
        _without_grow_levels(patch)
        assert_same_tree(grown, fitted())
        patch.setattr(kernels, "ENABLED", False)
        assert_same_tree(grown, fitted())
    if generators:                  # each generator advanced alike: the same next draw
        assert len({g.random() for g in generators}) == 1


@pytest.mark.parametrize("weights", ["none", "huge"])
def test_the_absolute_errors_medians_are_numpys_to_the_sign_of_zero(monkeypatch, weights):
    """Targets 0.0 and -0.0 (tied) and one 1.0: the root's median is a zero
    whose sign is that of the stable sort's middle target, as NumPy's; with
    whole weights near 2^50 (every target 0 but one: exact deviations) the
    root's W, a rounded sum, is added in NumPy's order too."""
    n = 31
    X = (np.arange(n) % 2).astype(float)[:, None]
    y = np.array([0.0, -0.0] * 15 + [1.0])
    weight = None if weights == "none" else np.arange(1, n + 1) * 2.0**45 + np.arange(n) % 2
    if weights == "huge":
        y[-1] = 0.0
    statuses = _counting_grow_levels(monkeypatch)
    grown = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(
        X, y, sample_weight=weight).tree_
    assert statuses == [kernels.GROWN]
    monkeypatch.setattr(kernels, "ENABLED", False)
    numpy = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(
        X, y, sample_weight=weight).tree_
    assert_same_tree(grown, numpy)
    np.testing.assert_array_equal(np.signbit(grown.value), np.signbit(numpy.value))


def test_grow_levels_on_real_data_with_min_impurity_decrease(monkeypatch):
    # Digits, 10 classes: the children dropped by min_impurity_decrease leave a
    # level whose impurities the loop computes on a C-ordered array (before it
    # did, NumPy's column-ordered a[:, mask] rounded some entropies differently).
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    statuses = _counting_grow_levels(monkeypatch)
    for criterion in ("gini", "entropy"):
        params = dict(criterion=criterion, min_impurity_decrease=0.01)
        grown = DecisionTreeClassifier(**params).fit(X, y).tree_
        with monkeypatch.context() as patch:
            _without_grow_levels(patch)
            assert_same_tree(grown, DecisionTreeClassifier(**params).fit(X, y).tree_)
    assert statuses == [kernels.GROWN, kernels.GROWN]


def test_an_entropy_decrease_close_to_the_rule_goes_to_the_level_loop(monkeypatch):
    # XOR: every split of the root leaves both children as mixed as the root,
    # a decrease of 0 up to rounding, which NumPy's log2 must decide.
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 3)
    y = np.array([0, 1, 1, 0] * 3)
    statuses = _counting_grow_levels(monkeypatch)
    grown = DecisionTreeClassifier(criterion="entropy").fit(X, y).tree_
    assert statuses == [kernels.CLOSE_DECREASE]
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert_same_tree(grown, DecisionTreeClassifier(criterion="entropy").fit(X, y).tree_)


def test_a_generator_is_left_as_the_level_loop_leaves_it_after_a_fallback(monkeypatch):
    # XOR again, with the caller's generator: grow_levels draws the root's tie
    # ranks before it hands the tree back; the draws are undone, so that the
    # loop over levels draws the same numbers and leaves the generator alike.
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 3)
    y = np.array([0, 1, 1, 0] * 3)
    statuses = _counting_grow_levels(monkeypatch)
    generator = np.random.default_rng(7)
    grown = DecisionTreeClassifier(criterion="entropy", random_state=generator).fit(X, y).tree_
    assert statuses == [kernels.CLOSE_DECREASE]
    monkeypatch.setattr(kernels, "ENABLED", False)
    reference = np.random.default_rng(7)
    assert_same_tree(grown, DecisionTreeClassifier(criterion="entropy",
                                                   random_state=reference).fit(X, y).tree_)
    assert generator.random() == reference.random()


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


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("criterion", [Gini, SquaredError])
def test_grow_levels_decides_min_impurity_decrease_at_its_boundary(monkeypatch, seed, criterion):
    r"""A split is kept while its decrease plus the machine epsilon is not below the rule.

    The rule set at the root's decrease :math:`\Delta` plus epsilon (kept)
    and one float above (dropped), and at :math:`\Delta` plus half an
    epsilon (kept: not the rule ``decrease < min_impurity_decrease``), each
    decided as the loop over levels decides it.
    """
    rng = np.random.default_rng(seed)
    X = rng.integers(1, 9, size=(30 + seed, 3)).astype(float)
    classification = criterion is Gini
    y = rng.integers(0, 3 + seed % 4, X.shape[0])
    if not classification:
        y = X[:, 0] * 3 + rng.integers(0, 5, X.shape[0])    # exact sums: the same floats
    make = DecisionTreeClassifier if classification else DecisionTreeRegressor
    name = "gini" if classification else "squared_error"
    decrease = _root_decrease(criterion, X, y, make(criterion=name, max_depth=1).fit(X, y).tree_)
    at = decrease + EPSILON
    statuses = _counting_grow_levels(monkeypatch)
    for rule, splits in [(at, True), (np.nextafter(at, np.inf), False),
                         (decrease + EPSILON / 2, True)]:
        params = dict(criterion=name, max_depth=1, min_impurity_decrease=rule)
        grown = make(**params).fit(X, y).tree_
        assert (grown.node_count == 3) == splits, rule - decrease
        with monkeypatch.context() as patch:
            _without_grow_levels(patch)
            assert_same_tree(grown, make(**params).fit(X, y).tree_)
    assert statuses == [kernels.GROWN] * 3


@pytest.mark.parametrize("n_outputs", [1, 3])
def test_a_poisson_decrease_at_a_positive_rule_goes_to_the_level_loop(monkeypatch, n_outputs):
    """A positive ``min_impurity_decrease`` within rounding of a Poisson decrease
    (its impurities are differences of terms computed with ``ln``) is decided
    by NumPy: grow_levels hands the tree back, the loop over levels keeps the
    split at ``decrease + EPSILON`` and drops it one float above."""
    rng = np.random.default_rng(4)
    X = rng.integers(1, 9, size=(40, 3)).astype(float)
    y = X[:, :1] * 2 + rng.integers(0, 4, (40, n_outputs))
    y = y[:, 0] if n_outputs == 1 else y
    tree = DecisionTreeRegressor(criterion="poisson", max_depth=1).fit(X, y).tree_
    share = tree.weighted_n_node_samples / tree.weighted_n_node_samples[0]
    decrease = tree.impurity[0] - share[2] * tree.impurity[2] - share[1] * tree.impurity[1]
    at = decrease + EPSILON
    statuses = _counting_grow_levels(monkeypatch)
    for rule, splits in [(at, True), (np.nextafter(at, np.inf), False)]:
        params = dict(criterion="poisson", max_depth=1, min_impurity_decrease=rule)
        grown = DecisionTreeRegressor(**params).fit(X, y).tree_
        assert (grown.node_count == 3) == splits
        with monkeypatch.context() as patch:
            _without_grow_levels(patch)
            assert_same_tree(grown, DecisionTreeRegressor(**params).fit(X, y).tree_)
    assert statuses == [kernels.CLOSE_DECREASE] * 2
    # a rule far from the decrease: grown in one call
    DecisionTreeRegressor(criterion="poisson", max_depth=1,
                          min_impurity_decrease=decrease / 2).fit(X, y)
    assert statuses[-1] == kernels.GROWN


def test_poisson_trees_with_pure_nodes_are_the_level_loops(monkeypatch):
    """Counts with many repeats: pure nodes, whose impurity (0 up to rounding) is
    decided against ``EPSILON`` with the kernels' ``ln``; given the same ``ln``
    the trees are the loop's and NumPy's, with and without weights."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(300, 4)).astype(float) + 1
    y = rng.poisson(X[:, 0] + X[:, 1] % 2).astype(float)
    libm_log2(monkeypatch, "poisson")
    statuses = _counting_grow_levels(monkeypatch)
    for weight in (None, rng.integers(1, 4, 300).astype(float)):
        grown = DecisionTreeRegressor(criterion="poisson").fit(X, y, sample_weight=weight).tree_
        with monkeypatch.context() as patch:
            _without_grow_levels(patch)
            assert_same_tree(grown, DecisionTreeRegressor(criterion="poisson").fit(
                X, y, sample_weight=weight).tree_)
            patch.setattr(kernels, "ENABLED", False)
            assert_same_tree(grown, DecisionTreeRegressor(criterion="poisson").fit(
                X, y, sample_weight=weight).tree_)
    assert statuses == [kernels.GROWN] * 2


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


def test_grow_levels_splits_a_node_of_twice_the_least_leaf_weight(monkeypatch):
    # min_weight_fraction_leaf 0.2 of 10 samples: leaves of weight >= 2; the
    # root's left child holds 4 = 2 * 2 and may split (scikit-learn: >=).
    X = np.arange(10.0)[:, None]
    y = np.array([0, 1, 1, 0, 1, 1, 1, 1, 1, 1])
    params = dict(min_weight_fraction_leaf=0.2)
    statuses = _counting_grow_levels(monkeypatch)
    grown = DecisionTreeClassifier(**params).fit(X, y).tree_
    assert statuses == [kernels.GROWN]
    assert 4 in grown.n_node_samples[grown.children_left >= 0].tolist()
    with monkeypatch.context() as patch:
        _without_grow_levels(patch)
        assert_same_tree(grown, DecisionTreeClassifier(**params).fit(X, y).tree_)
    from sklearn.tree import DecisionTreeClassifier as SkDecisionTreeClassifier

    oracle = SkDecisionTreeClassifier(**params).fit(X, y).tree_
    np.testing.assert_array_equal(grown.children_left, oracle.children_left)
    np.testing.assert_array_equal(grown.threshold, oracle.threshold)


@pytest.mark.parametrize("case", ["float32", "fortran", "strided", "class_weight",
                                  "300_classes", "fractional_min_samples"])
def test_grow_levels_on_other_inputs(monkeypatch, case):
    """Inputs the estimator converts (dtype, layout), class weights, many classes."""
    rng = np.random.default_rng(3)
    X = rng.integers(1, 6, size=(400, 5)).astype(float)
    y = (X[:, 0] + rng.integers(0, 3, 400)).astype(int)
    params = {}
    if case == "float32":
        X = X.astype(np.float32) / 3
    elif case == "fortran":
        X = np.asfortranarray(X)
    elif case == "strided":
        X = np.repeat(X, 2, axis=1)[:, ::2]
    elif case == "class_weight":
        params = {"class_weight": {k: k + 1 for k in np.unique(y)}}
    elif case == "300_classes":
        X = rng.normal(size=(900, 4))
        y = rng.integers(0, 300, 900)
    elif case == "fractional_min_samples":
        params = {"min_samples_split": 0.05, "min_samples_leaf": 0.01}
    X_before = X.copy()
    statuses = _counting_grow_levels(monkeypatch)
    grown = DecisionTreeClassifier(**params).fit(X, y).tree_
    assert statuses == [kernels.GROWN]
    np.testing.assert_array_equal(X, X_before)
    with monkeypatch.context() as patch:
        _without_grow_levels(patch)
        assert_same_tree(grown, DecisionTreeClassifier(**params).fit(X, y).tree_)
        patch.setattr(kernels, "ENABLED", False)
        assert_same_tree(grown, DecisionTreeClassifier(**params).fit(X, y).tree_)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_trees_of_several_outputs_are_numpys(monkeypatch, seed, criterion):
    """Several outputs of a classification (searched by the kernels, level by
    level) and of a regression: NumPy's trees (given the kernels' log2)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(1, 6, size=(300, 4)).astype(float)
    y = np.column_stack([(X[:, 0] + rng.integers(0, 3, 300)) % 3, rng.integers(0, 2, 300),
                         (X[:, 1] > 2) ^ (rng.random(300) < 0.2)])
    weight = [None, rng.integers(1, 4, 300).astype(float)][seed % 2]
    libm_log2(monkeypatch, criterion)        # NumPy's entropies too, both fits
    found = []                      # what the kernels found, level by level
    real = splitting.compiled_splits
    monkeypatch.setattr(splitting, "compiled_splits",
                        lambda *args: found.append(real(*args)) or found[-1])
    params = dict(criterion=criterion, max_depth=[None, 3][seed // 3])
    grown = DecisionTreeClassifier(**params).fit(X, y, sample_weight=weight).tree_
    assert found and all(result is not None for result in found)
    regression = DecisionTreeRegressor(max_depth=params["max_depth"]).fit(X, y[:, ::-1] * 1.5)
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert_same_tree(grown, DecisionTreeClassifier(**params).fit(X, y, sample_weight=weight).tree_)
    assert_same_tree(regression.tree_, DecisionTreeRegressor(
        max_depth=params["max_depth"]).fit(X, y[:, ::-1] * 1.5).tree_)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_several_outputs_with_many_classes(monkeypatch, criterion):
    # 254 classes, then an output of 3: the second output's rows start at 254,
    # past uint8 (its codes once wrapped at 256 under NumPy 1, a wrong tree).
    rng = np.random.default_rng(1)
    n = 508
    X = rng.normal(size=(n, 2))
    y = np.column_stack([np.arange(n) % 254, (X[:, 1] > 0.3).astype(int) + (X[:, 1] > 1)])
    libm_log2(monkeypatch, criterion)
    found = []
    real = splitting.compiled_splits
    monkeypatch.setattr(splitting, "compiled_splits",
                        lambda *args: found.append(real(*args)) or found[-1])
    params = dict(criterion=criterion, max_depth=3)
    grown = DecisionTreeClassifier(**params).fit(X, y).tree_
    assert found and all(result is not None for result in found)
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert_same_tree(grown, DecisionTreeClassifier(**params).fit(X, y).tree_)
    assert grown.feature[0] == 1


@pytest.mark.parametrize("case", ["fractional", "max_features", "absolute_error",
                                  "missing", "monotonic", "random", "outputs", "max_leaf_nodes",
                                  "sparse", "huge_whole_weights", "disabled"])
def test_grow_levels_declines_the_other_cases(monkeypatch, case):
    """What grow_levels does not grow is grown level by level (and it is not called)."""
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    make, params, fit = DecisionTreeClassifier, {}, {}
    if case == "fractional":
        fit = {"sample_weight": np.linspace(0.5, 1.5, y.size)}
    elif case == "huge_whole_weights":      # Gini's W^2 >= 2**53
        fit = {"sample_weight": np.full(y.size, 1e6)}
    elif case == "max_features":
        params = {"max_features": 2, "random_state": 0}
    elif case == "absolute_error":         # targets of many binary digits: inexact sums
        make, params, y = DecisionTreeRegressor, {"criterion": case}, X[:, 0].copy()
    elif case == "missing":
        X[::7, 2] = np.nan
    elif case == "monotonic":
        params, y = {"monotonic_cst": [1, 0, 0, 0]}, y == 2
    elif case == "random":
        params = {"splitter": "random", "random_state": 0}
    elif case == "outputs":
        y = np.column_stack([y, y == 1])
    elif case == "max_leaf_nodes":
        params = {"max_leaf_nodes": 5}
    elif case == "sparse":
        import scipy.sparse
        X = scipy.sparse.csc_matrix(X)
    elif case == "disabled":
        monkeypatch.setattr(kernels, "ENABLED", False)
    statuses = _counting_grow_levels(monkeypatch)
    levels = []
    real = growth._splitter
    monkeypatch.setattr(growth, "_splitter", lambda *a, **k: levels.append(1) or real(*a, **k))
    make(**params).fit(X, y, **fit)
    assert statuses == [] and levels == [1]


def test_grow_levels_is_used_on_the_common_case(monkeypatch):
    X, y = load_iris(return_X_y=True)
    statuses = _counting_grow_levels(monkeypatch)
    levels = []
    real = growth._splitter
    monkeypatch.setattr(growth, "_splitter", lambda *a, **k: levels.append(1) or real(*a, **k))
    DecisionTreeClassifier(random_state=0).fit(X, y)      # tie ranks drawn
    DecisionTreeRegressor(criterion="friedman_mse").fit(X[:, 1:], X[:, 0])
    DecisionTreeRegressor().fit(X[:, 2:], X[:, :2])                # two outputs
    absolute = DecisionTreeRegressor(criterion="absolute_error")
    absolute.fit(X[:, 1:], X[:, 0] * 10)                # whole targets (sepal length in mm)
    absolute.fit(X[:, 2:], X[:, :2] * 10)
    assert statuses == [kernels.GROWN] * 5 and levels == []


# -- the sparse search (dtree.sparse.SparseSplitter, kernels.search_sparse) ----

def _counting(monkeypatch, name):
    """Count the calls of ``kernels.<name>`` (compiled first)."""
    assert kernels.available()
    calls = []
    real = getattr(kernels, name)
    monkeypatch.setattr(kernels, name, lambda *a: calls.append(1) or real(*a))
    return calls


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 120), d=st.integers(1, 8),
       density=st.floats(0.0, 1.0), n_classes=st.integers(2, 6),
       sign=st.sampled_from(["mixed", "positive", "negative"]),
       criterion=st.sampled_from(["gini", "entropy"]), min_samples_leaf=st.integers(1, 4),
       weighted=st.booleans(), max_features=st.sampled_from([None, 1, 2]),
       dense=st.booleans(), seeded=st.booleans(),
       min_weight_fraction_leaf=st.sampled_from([0.0, 0.1, 0.25]))
@example(seed=0, n=50, d=3, density=0.5, n_classes=3, sign="mixed", criterion="entropy",
         min_samples_leaf=1, weighted=True, max_features=2, dense=False, seeded=True,
         min_weight_fraction_leaf=0.0)
@example(seed=1, n=60, d=4, density=0.3, n_classes=2, sign="positive", criterion="gini",
         min_samples_leaf=1, weighted=False, max_features=None, dense=False, seeded=False,
         min_weight_fraction_leaf=0.0)
def test_the_compiled_sparse_search_is_numpys(seed, n, d, density, n_classes, sign, criterion,
                                              min_samples_leaf, weighted, max_features, dense,
                                              seeded, min_weight_fraction_leaf):
    """The compiled search of sparse X (and of a mostly-zero dense X) grows the
    NumPy search's tree: negative values, the zero run, tied values, whole
    weights, min_samples_leaf and min_weight_fraction_leaf, ties to the lowest
    feature (no random_state) or to drawn feature orders (the NumPy search
    with the C library's log2, as the kernel takes it)."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    X = rng.integers(1, 4, size=(n, d)) * (rng.random((n, d)) < density) \
        * {"mixed": rng.choice([-1, 1], size=(n, d)), "positive": 1, "negative": -1}[sign]
    X = X.astype(float) if dense else scipy.sparse.csc_matrix(X.astype(float))
    y = rng.integers(0, n_classes, n)
    weight = rng.integers(1, 4, n).astype(float) if weighted else None
    max_features = None if max_features is None else min(max_features, d)
    params = dict(criterion=criterion, min_samples_leaf=min_samples_leaf,
                  min_weight_fraction_leaf=min_weight_fraction_leaf, max_features=max_features,
                  # without random_state (and every feature drawn) ties go to the lowest feature
                  random_state=seed % 1000 if seeded or max_features is not None else None)
    with pytest.MonkeyPatch.context() as patch:
        calls = _counting(patch, "search_sparse")
        compiled = DecisionTreeClassifier(**params).fit(X, y, sample_weight=weight)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels, "ENABLED", False)
        libm_log2(patch, criterion)
        numpy = DecisionTreeClassifier(**params).fit(X, y, sample_weight=weight)
    if not dense and X.nnz and len(set(y)) > 1 and n >= 2 * min_samples_leaf:
        assert calls                        # (a dense X with few zeros stays dense)
    ta, tb = compiled.tree_, numpy.tree_
    assert ta.node_count == tb.node_count
    for name in ("children_left", "feature", "threshold", "n_node_samples", "value"):
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    # The nodes' impurities come from NumPy in both fits, but the second's log2
    # is the C library's (the patch): the entropy's may differ in the last bit.
    np.testing.assert_allclose(ta.impurity, tb.impurity, rtol=0 if criterion == "gini" else 1e-15,
                               atol=0)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 120), d=st.integers(1, 8),
       density=st.floats(0.0, 1.0), sign=st.sampled_from(["mixed", "positive", "negative"]),
       criterion=st.sampled_from(["squared_error", "friedman_mse", "poisson"]),
       n_outputs=st.sampled_from([1, 1, 2, 3]), min_samples_leaf=st.integers(1, 4),
       weights=st.sampled_from(["none", "whole", "fractional"]),
       max_features=st.sampled_from([None, 1, 2]), seeded=st.booleans(),
       min_weight_fraction_leaf=st.sampled_from([0.0, 0.1]),
       block_cells=st.sampled_from([1 << 22, 1, 8, 40, 200]))
@example(seed=2, n=90, d=5, density=0.4, sign="mixed", criterion="squared_error", n_outputs=1,
         min_samples_leaf=1, weights="fractional", max_features=None, seeded=False,
         min_weight_fraction_leaf=0.0, block_cells=40)
@example(seed=3, n=100, d=6, density=0.3, sign="positive", criterion="poisson", n_outputs=2,
         min_samples_leaf=2, weights="whole", max_features=2, seeded=True,
         min_weight_fraction_leaf=0.1, block_cells=1 << 22)
@example(seed=2, n=2, d=2, density=1.0, sign="mixed", criterion="poisson", n_outputs=3,
         min_samples_leaf=1, weights="none", max_features=None, seeded=False,
         min_weight_fraction_leaf=0.0, block_cells=1 << 22)   # an output of zeros: -inf, no cut
def test_the_compiled_sparse_regression_is_numpys(seed, n, d, density, sign, criterion,
                                                  n_outputs, min_samples_leaf, weights,
                                                  max_features, seeded,
                                                  min_weight_fraction_leaf, block_cells):
    """The compiled sparse search of a regression grows the NumPy search's
    tree, float for float, on fractional targets and weights too: it keeps
    the NumPy search's running sums block by block (``block_cells``: the
    NumPy search's block size, small here so that a level spans several
    blocks), with one output or several and ties broken alike; a cut whose
    proxy is -inf (Poisson: a child's output sums to 0) is never taken."""
    import scipy.sparse

    import dtree.sparse

    rng = np.random.default_rng(seed)
    X = rng.integers(1, 4, size=(n, d)) * (rng.random((n, d)) < density) \
        * {"mixed": rng.choice([-1, 1], size=(n, d)), "positive": 1, "negative": -1}[sign]
    X = scipy.sparse.csc_matrix(X.astype(float))
    y = rng.gamma(2.0, size=(n, n_outputs)) * (rng.random((n, n_outputs)) < 0.8)
    y[0] = np.maximum(y[0], 1.0)                   # Poisson: a positive sum of each output
    y = y[:, 0] if n_outputs == 1 else y
    weight = {"none": None, "whole": rng.integers(1, 4, n).astype(float),
              "fractional": rng.uniform(0.2, 3.0, n)}[weights]
    max_features = None if max_features is None else min(max_features, d)
    params = dict(criterion=criterion, min_samples_leaf=min_samples_leaf,
                  min_weight_fraction_leaf=min_weight_fraction_leaf, max_features=max_features,
                  random_state=seed % 1000 if seeded or max_features is not None else None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dtree.sparse, "SPARSE_BLOCK_CELLS", block_cells)
        calls = _counting(patch, "search_sparse_regression")
        compiled = DecisionTreeRegressor(**params).fit(X, y, sample_weight=weight)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dtree.sparse, "SPARSE_BLOCK_CELLS", block_cells)
        patch.setattr(kernels, "ENABLED", False)
        libm_log2(patch, criterion)
        numpy = DecisionTreeRegressor(**params).fit(X, y, sample_weight=weight)
    if X.nnz and n >= 2 * min_samples_leaf and np.ptp(y, axis=0).max() > 0:
        assert calls
    ta, tb = compiled.tree_, numpy.tree_
    assert ta.node_count == tb.node_count
    for name in ("children_left", "feature", "threshold", "n_node_samples", "value"):
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    # Poisson's impurities: NumPy's log in one fit, the C library's in the other
    # (a difference of terms that cancel: a few units of the terms' last bit).
    tolerance = 1e-12 if criterion == "poisson" else 0
    np.testing.assert_allclose(ta.impurity, tb.impurity, rtol=tolerance, atol=tolerance)


def test_the_compiled_sparse_regression_by_hand(monkeypatch):
    """One feature, values -2 -1 0 0 0 1, targets 1 1 4 4 4 1 (W = 6, S = 15).
    Proxies S_L^2/W_L + S_R^2/W_R: after -2, 1 + 14^2/5 = 40.2; after -1,
    2^2/2 + 13^2/4 = 44.25; after the zero run, 14^2/5 + 1 = 40.2.  The best
    cut is after -1 (threshold -0.5), leaves predicting 1 and 13/4; with
    min_samples_leaf=3 no cut is allowed.  Friedman's MSE picks the same cut
    (W_L W_R (mean_L - mean_R)^2 / W: 2 * 4 * 2.25^2 / 6 = 6.75, the largest)."""
    import scipy.sparse

    calls = _counting(monkeypatch, "search_sparse_regression")
    X = scipy.sparse.csc_matrix(np.array([[-2.0], [-1.0], [0.0], [0.0], [0.0], [1.0]]))
    y = [1.0, 1.0, 4.0, 4.0, 4.0, 1.0]
    for criterion in ("squared_error", "friedman_mse"):
        tree = DecisionTreeRegressor(criterion=criterion, max_depth=1).fit(X, y).tree_
        assert tree.threshold[0] == -0.5 and list(tree.n_node_samples) == [6, 2, 4]
        assert list(tree.value[:, 0, 0]) == [2.5, 1.0, 3.25]
    assert len(calls) == 2
    tree = DecisionTreeRegressor(max_depth=1, min_samples_leaf=3).fit(X, y).tree_
    assert tree.node_count == 1


def test_the_compiled_sparse_search_by_hand(monkeypatch):
    """One feature, values -2 -1 0 0 0 1 (the zero run in the middle), classes
    0 0 1 1 1 0.  Proxies -W_L i(L) - W_R i(R) with W i = W - sum_k c_k^2 / W:
    after -2, -(1 - 1) - (5 - 17/5) = -1.6; after -1, -(2 - 2) - (4 - 10/4) =
    -1.5; after the zero run, -(5 - 13/5) - (1 - 1) = -2.4.  The best cut is
    after -1, at the threshold -0.5."""
    import scipy.sparse

    calls = _counting(monkeypatch, "search_sparse")
    X = scipy.sparse.csc_matrix(np.array([[-2.0], [-1.0], [0.0], [0.0], [0.0], [1.0]]))
    tree = DecisionTreeClassifier(max_depth=1).fit(X, [0, 0, 1, 1, 1, 0]).tree_
    assert calls and tree.threshold[0] == -0.5 and list(tree.n_node_samples) == [6, 2, 4]
    # min_samples_leaf=3: no cut leaves 3 on both sides (the zeros are one run)
    tree = DecisionTreeClassifier(max_depth=1, min_samples_leaf=3).fit(
        X, [0, 0, 1, 1, 1, 0]).tree_
    assert tree.node_count == 1
    # A tie within a feature goes to the lowest cut: values 1 2 3 4, classes 0 1 1 0,
    # the cuts after 1 and after 3 both score -(0) - (3 - 5/3) = -4/3 (after 2: -2).
    # A tie between features goes to the lowest feature: two copies of the column.
    X = scipy.sparse.csc_matrix(np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]]))
    tree = DecisionTreeClassifier(max_depth=1).fit(X, [0, 1, 1, 0]).tree_
    assert (tree.feature[0], tree.threshold[0]) == (0, 1.5)


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
