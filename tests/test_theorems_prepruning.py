"""The theorems of the chapter "Pre-pruning" (book/part3/prepruning.ipynb) as properties of dtree.

Each test names, in its docstring, the label of the statement it checks.
Random data are small integer grids, so that duplicated feature rows (with
equal or different labels) occur often; scikit-learn is the oracle where the
result cannot depend on how ties are broken.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import tree as sk

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.inspection import impurity_decreases, node_depths

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def grid_data(draw, max_n=40, max_features=3, max_value=3, n_classes=3):
    """Integer features in [0, max_value], labels in [0, n_classes), integer weights 1..5 or none."""
    n = draw(st.integers(2, max_n))
    d = draw(st.integers(1, max_features))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, max_value + 1, size=(n, d)).astype(float)
    y = rng.integers(0, n_classes, size=n)
    w = rng.integers(1, 6, size=n).astype(float) if draw(st.booleans()) else None
    return X, y, w


def groups_of(X):
    _, group = np.unique(X, axis=0, return_inverse=True)
    return group.ravel()


def error_floor(X, y, w):
    """E* of eq. (eq-prepruning-error-floor): sum over groups of equal rows of W_G - max_k W_{G,k}, over W."""
    w = np.ones(len(y)) if w is None else w
    group = groups_of(X)
    counts = np.zeros((group.max() + 1, y.max() + 1))
    np.add.at(counts, (group, y), w)
    return float(np.sum(counts.sum(axis=1) - counts.max(axis=1)) / w.sum())


def weighted_error(model, X, y, w):
    w = np.ones(len(y)) if w is None else w
    return float(np.sum(w * (model.predict(X) != y)) / w.sum())


@SETTINGS
@given(grid_data())
def test_unrestricted_tree_reaches_the_error_floor(data):
    """thm-prepruning-zero-error (parts 1-3), with scikit-learn as oracle for the training error."""
    X, y, w = data
    ours = DecisionTreeClassifier().fit(X, y, sample_weight=w)
    floor = error_floor(X, y, w)
    assert weighted_error(ours, X, y, w) == pytest.approx(floor, abs=1e-12)
    # Part 1: every leaf is pure or holds identical feature rows.
    leaf_of = ours.apply(X)
    for leaf in np.unique(leaf_of):
        rows = leaf_of == leaf
        assert len(np.unique(y[rows])) == 1 or len(np.unique(X[rows], axis=0)) == 1
    # Part 3: zero error exactly when no group of equal rows has two labels.
    group = groups_of(X)
    consistent = all(len(np.unique(y[group == g])) == 1 for g in np.unique(group))
    assert (floor == 0) == consistent
    theirs = sk.DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=w)
    assert weighted_error(theirs, X, y, w) == pytest.approx(floor, abs=1e-12)


@SETTINGS
@given(grid_data(n_classes=2), st.integers(0, 2**32 - 1))
def test_unrestricted_regression_tree_reaches_the_within_group_error(data, seed):
    """thm-prepruning-zero-error (regression): training MSE = weighted within-group sum of squares / W."""
    X, _, w = data
    y = np.round(np.random.default_rng(seed).normal(size=len(X)), 3)
    w1 = np.ones(len(y)) if w is None else w
    group = groups_of(X)
    means = np.bincount(group, weights=w1 * y) / np.bincount(group, weights=w1)
    floor = np.sum(w1 * (y - means[group]) ** 2) / w1.sum()
    model = DecisionTreeRegressor().fit(X, y, sample_weight=w)
    mse = np.sum(w1 * (y - model.predict(X)) ** 2) / w1.sum()
    assert mse == pytest.approx(floor, rel=1e-9, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2**32 - 1))
def test_distinct_rows_give_zero_training_error(n, seed):
    """thm-prepruning-zero-error, part 3, and lem-prepruning-threshold: distinct rows, any labels."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.permutation(n) / 7.0, rng.integers(0, 3, size=n)])  # first column all distinct
    y = rng.integers(0, 4, size=n)  # pure noise labels
    assert DecisionTreeClassifier().fit(X, y).score(X, y) == 1.0


@st.composite
def pre_pruning(draw):
    return {
        "max_depth": draw(st.one_of(st.none(), st.integers(1, 6))),
        "min_samples_split": draw(st.integers(2, 20)),
        "min_samples_leaf": draw(st.integers(1, 8)),
        "min_weight_fraction_leaf": draw(st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.2, 0.3])),
        "max_leaf_nodes": draw(st.one_of(st.none(), st.integers(2, 12))),
        "min_impurity_decrease": draw(st.sampled_from([0.0, 0.001, 0.01, 0.05])),
    }


def depths_and_decreases(model):
    """Every node's depth, and the inner nodes' weighted impurity decreases (dtree.inspection's)."""
    inner = model.tree_.children_left >= 0
    return node_depths(model), impurity_decreases(model, weighted=True)[inner]


@SETTINGS
@given(grid_data(max_n=80, max_value=6), pre_pruning())
def test_every_parameter_keeps_its_promise(data, params):
    """def-prepruning-parameters and prop-prepruning-size: the rules hold at every node of the fitted tree."""
    X, y, w = data
    model = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    t = model.tree_
    W = t.weighted_n_node_samples[0]
    depth, decrease = depths_and_decreases(model)
    leaf, inner = t.children_left < 0, t.children_left >= 0
    n_leaves = int(leaf.sum())
    if params["max_depth"] is not None:
        assert depth.max() <= params["max_depth"]
        assert n_leaves <= 2 ** params["max_depth"]
    assert np.all(t.n_node_samples[inner] >= max(params["min_samples_split"], 2 * params["min_samples_leaf"]))
    if n_leaves > 1:
        assert np.all(t.n_node_samples[leaf] >= params["min_samples_leaf"])
        f = params["min_weight_fraction_leaf"]
        assert np.all(t.weighted_n_node_samples[leaf] >= f * W * (1 - 1e-12))
        if f > 0:
            assert n_leaves <= int(np.floor(1 / f))
    assert n_leaves <= max(1, len(y) // params["min_samples_leaf"])
    assert np.all(decrease >= params["min_impurity_decrease"] - 1e-12)
    if params["max_leaf_nodes"] is not None:
        assert n_leaves <= params["max_leaf_nodes"]


@SETTINGS
@given(grid_data(max_n=80, max_value=6), st.sampled_from([0.01, 0.03, 0.05, 0.1, 0.2]))
def test_weight_fraction_is_a_leaf_size_without_weights(data, f):
    """Remark after def-prepruning-parameters: unweighted, min_weight_fraction_leaf=f is min_samples_leaf=ceil(f n)."""
    X, y, _ = data
    a = DecisionTreeClassifier(min_weight_fraction_leaf=f).fit(X, y).tree_
    b = DecisionTreeClassifier(min_samples_leaf=max(1, int(np.ceil(f * len(y))))).fit(X, y).tree_
    assert a.node_count == b.node_count
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)


@SETTINGS
@given(st.integers(20, 120), st.integers(0, 2**32 - 1), pre_pruning())
def test_one_feature_trees_match_scikit_learn(n, seed, params):
    """Agreement with scikit-learn (section "Agreement with scikit-learn"): one feature, continuous target."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, 1))
    y = np.sin(X[:, 0]) + rng.normal(scale=0.3, size=n)
    params = {**params, "min_impurity_decrease": params["min_impurity_decrease"] / 10}
    ours = DecisionTreeRegressor(**params).fit(X, y)
    theirs = sk.DecisionTreeRegressor(random_state=0, **params).fit(X, y)
    assert ours.tree_.node_count == theirs.tree_.node_count
    X_new = rng.uniform(0, 10, size=(50, 1))
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), atol=1e-12)


@SETTINGS
@given(st.integers(20, 200), st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 5, 10, 25]))
def test_min_samples_leaf_makes_local_averages(n, seed, m):
    """prop-prepruning-smoothing: each prediction is the mean of >= m targets; at most n // m steps."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, size=(n, 1))
    y = rng.normal(size=n)
    model = DecisionTreeRegressor(min_samples_leaf=m).fit(x, y)
    leaf_of = model.apply(x)
    assert model.get_n_leaves() <= max(1, n // m)
    for leaf in np.unique(leaf_of):
        rows = leaf_of == leaf
        assert rows.sum() >= min(m, n)
        assert model.tree_.value[leaf, 0, 0] == pytest.approx(y[rows].mean(), abs=1e-12)
    grid = np.linspace(0, 10, 1001)[:, None]
    n_steps = 1 + np.count_nonzero(np.diff(model.predict(grid)))
    assert n_steps <= model.get_n_leaves()


def xor_lattice(a, b):
    X, y = [], []
    for h1 in (0, 1):
        for h2 in (0, 1):
            rows = (a if h2 == 0 else b) // 10
            c1 = h1 / 2 + (np.arange(10) + 0.5) / 20
            c2 = h2 / 2 + (np.arange(rows) + 0.5) / (2 * rows)
            X.append(np.array(np.meshgrid(c1, c2)).reshape(2, -1).T)
            y.append(np.full(10 * rows, h1 ^ h2))
    return np.vstack(X), np.concatenate(y)


@pytest.mark.parametrize("a, b", [(120, 80), (110, 90), (70, 130)])
def test_xor_horizon_effect(a, b):
    """eq-prepruning-xor: root decrease (a-b)^2 / (2 (a+b)^2); above it pre-pruning stops, post-pruning does not."""
    X, y = xor_lattice(a, b)
    full = DecisionTreeClassifier().fit(X, y)
    assert full.get_n_leaves() == 4
    _, decrease = depths_and_decreases(full)
    root = (a - b) ** 2 / (2 * (a + b) ** 2)
    child = a * b / (a + b) ** 2
    np.testing.assert_allclose(np.sort(decrease), [root, child, child], atol=1e-12)
    assert DecisionTreeClassifier(min_impurity_decrease=root * 0.99).fit(X, y).get_n_leaves() == 4
    assert DecisionTreeClassifier(min_impurity_decrease=root * 1.01).fit(X, y).get_n_leaves() == 1
    assert DecisionTreeClassifier(ccp_alpha=min(1 / 6, child) * 0.99).fit(X, y).get_n_leaves() == 4
