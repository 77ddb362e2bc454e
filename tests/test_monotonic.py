"""Monotonicity constraints (``monotonic_cst``, scikit-learn >= 1.4) of the CART estimators.

scikit-learn is the oracle: on data where every best split is unique
(continuous random features and target, nodes kept large), dtree grows its
tree, with the same clipped node values.  A property test checks on random
data that the predictions are monotone along every constrained feature, a
hand-computed example the bounds rule itself, and the bad inputs are refused
in scikit-learn's words.
"""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import tree as sk

import dtree.cart
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.exceptions import InvalidParameterError
from dtree.inspection import same_tree


def make_data(seed, n=500, d=4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    y_reg = 3 * X[:, 0] - 2 * X[:, 1] + np.sin(6 * X[:, 2]) + 0.5 * rng.random(n) + 3.5
    y_class = (X[:, 0] - X[:, 1] + 0.6 * rng.random(n) > 0.3).astype(int)
    weight = rng.integers(1, 1001, n).astype(float)
    return X, y_class, y_reg, weight


# Nodes large enough for every best split to be unique.
GROWTH = [
    {"max_depth": 4},
    {"min_samples_leaf": 25},
    {"max_leaf_nodes": 12},
    {"max_leaf_nodes": 12, "min_samples_leaf": 10},
]
CONSTRAINTS = [[1, -1, 0, 0], [1, 1, 1, 1], [-1, 0, 1, 0], [0, 0, 0, 0]]


def assert_same(ours, theirs):
    assert same_tree(ours, theirs, rtol=1e-7, atol=1e-9)
    for name in ("children_left", "children_right", "feature"):
        np.testing.assert_array_equal(getattr(ours.tree_, name), getattr(theirs.tree_, name))
    np.testing.assert_allclose(ours.tree_.value, theirs.tree_.value, rtol=1e-9, atol=1e-12)


def _absolute_deviation(v):
    return np.abs(v - np.median(v)).sum()


def assert_same_up_to_ties(ours, theirs, X, y, min_matched=0.3):
    """The absolute error's trees: equal, but where two cuts are equally good.

    The sum of absolute deviations is piecewise linear in the cut: moving a
    sample across can leave it unchanged, and the two libraries break such
    exact ties by rounding differently.  Where the splits differ, both must
    leave the same deviation; the subtrees below are not compared.
    """
    a, b = ours.tree_, theirs.tree_
    paths = ours.decision_path(X).toarray().astype(bool)
    matched, stack = 0, [(0, 0)]
    while stack:
        i, j = stack.pop()
        assert a.n_node_samples[i] == b.n_node_samples[j]
        np.testing.assert_allclose(a.value[i], b.value[j], rtol=1e-9)
        if a.children_left[i] < 0 or b.children_left[j] < 0:
            assert a.children_left[i] < 0 and b.children_left[j] < 0
            matched += 1
            continue
        if a.feature[i] != b.feature[j] or a.threshold[i] != b.threshold[j]:
            rows = paths[:, i]
            deviations = []
            for t in (a, b):
                left = rows & (X[:, t.feature[i if t is a else j]] <= t.threshold[i if t is a else j])
                deviations.append(_absolute_deviation(y[left]) + _absolute_deviation(y[rows & ~left]))
            assert deviations[0] == pytest.approx(deviations[1], rel=1e-9), f"node {i}"
            continue
        matched += 1
        stack += [(a.children_right[i], b.children_right[j]), (a.children_left[i], b.children_left[j])]
    assert matched >= min_matched * b.node_count, (matched, b.node_count)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("params", GROWTH)
@pytest.mark.parametrize("cst", CONSTRAINTS)
@pytest.mark.parametrize("criterion", ["squared_error", "friedman_mse", "poisson",
                                       "absolute_error"])
def test_regressor_grows_sklearns_tree(seed, params, cst, criterion):
    X, _, y, weight = make_data(seed)
    if criterion == "absolute_error":
        weight = None    # scikit-learn's weighted medians differ from dtree's (without constraints too)
    kwargs = dict(criterion=criterion, monotonic_cst=cst, random_state=0, **params)
    ours = DecisionTreeRegressor(**kwargs).fit(X, y, sample_weight=weight)
    theirs = sk.DecisionTreeRegressor(**kwargs).fit(X, y, sample_weight=weight)
    if criterion == "absolute_error":
        assert_same_up_to_ties(ours, theirs, X, y)
    else:
        assert_same(ours, theirs)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("params", [{"max_depth": 3}, {"min_samples_leaf": 25},
                                    {"max_leaf_nodes": 8, "min_samples_leaf": 5},
                                    {"max_leaf_nodes": 12, "min_samples_leaf": 10}])
@pytest.mark.parametrize("cst", CONSTRAINTS)
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_grows_sklearns_tree(seed, params, cst, criterion):
    X, y, _, weight = make_data(seed)
    kwargs = dict(criterion=criterion, monotonic_cst=cst, random_state=0, **params)
    ours = DecisionTreeClassifier(**kwargs).fit(X, y, sample_weight=weight)
    theirs = sk.DecisionTreeClassifier(**kwargs).fit(X, y, sample_weight=weight)
    assert_same(ours, theirs)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


def test_the_constraint_changes_the_tree():
    """The oracle tests are not vacuous: the constraints do change the trees compared."""
    X, y_class, y, _ = make_data(0)
    free = DecisionTreeRegressor(max_depth=4).fit(X, y)
    bound = DecisionTreeRegressor(max_depth=4, monotonic_cst=[-1, 1, 0, 0]).fit(X, y)
    assert not same_tree(free, bound)
    free = DecisionTreeClassifier(max_depth=4).fit(X, y_class)
    bound = DecisionTreeClassifier(max_depth=4, monotonic_cst=[-1, 1, 0, 0]).fit(X, y_class)
    assert not same_tree(free, bound)
    # ... and some node values are clipped (they differ from the nodes' means)
    model = DecisionTreeRegressor(min_samples_leaf=25, monotonic_cst=[1, -1, 0, 0]).fit(X, y)
    paths = model.decision_path(X).toarray().astype(bool)
    means = np.array([y[paths[:, i]].mean() for i in range(model.tree_.node_count)])
    assert not np.allclose(means, model.tree_.value[:, 0, 0], rtol=1e-9)


@pytest.mark.parametrize("Tree", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_all_zero_constraints_grow_the_unconstrained_tree(Tree):
    X, y_class, y_reg, _ = make_data(2)
    y = y_class if Tree is DecisionTreeClassifier else y_reg
    for params in [{}, {"max_leaf_nodes": 20}, {"splitter": "random", "random_state": 3}]:
        free = Tree(**params).fit(X, y)
        zero = Tree(monotonic_cst=[0, 0, 0, 0], **params).fit(X, y)
        # The same splits; a classifier's fractions of classes_[1] are computed
        # as 1 - fraction of classes_[0] (scikit-learn's clip_node_value).
        assert same_tree(free, zero, rtol=0, atol=1e-15)
        for name in ("feature", "threshold", "children_left", "impurity"):
            np.testing.assert_array_equal(getattr(free.tree_, name), getattr(zero.tree_, name))


def _monotone_along(model, X, feature, sign, proba):
    """Predictions at X with feature moved over a grid: monotone in the direction ``sign``."""
    grid = np.linspace(-0.1, 1.1, 25)
    k = min(20, X.shape[0])
    rows = np.repeat(X[:k], grid.size, axis=0)
    rows[:, feature] = np.tile(grid, k)
    pred = model.predict_proba(rows)[:, -1] if proba else model.predict(rows)
    steps = np.diff(pred.reshape(k, grid.size), axis=1) * sign
    return bool(np.all(steps >= 0))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cst=st.lists(st.sampled_from([-1, 0, 1]), min_size=3,
                                                      max_size=3),
       growth=st.sampled_from([{}, {"max_leaf_nodes": 15}, {"splitter": "random"},
                               {"min_samples_leaf": 3}]),
       criterion=st.sampled_from(["squared_error", "absolute_error", "poisson", "gini"]),
       n=st.integers(2, 60))
def test_predictions_are_monotone(seed, cst, growth, criterion, n):
    """prop-cart-monotonic: along a constrained feature the predictions are monotone."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    classify = criterion == "gini"
    if classify:
        y = rng.integers(0, 2, n)
        model = DecisionTreeClassifier(monotonic_cst=cst, random_state=seed % 1000, **growth)
    else:
        y = rng.random(n) * 10
        model = DecisionTreeRegressor(criterion=criterion, monotonic_cst=cst,
                                      random_state=seed % 1000, **growth)
    model.fit(X, y)
    for feature, sign in enumerate(cst):
        if sign:
            assert _monotone_along(model, X, feature, sign, classify)
    if classify:
        proba = model.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_hand_computed_example():
    r"""One feature, y = 1, 5, 2, 7 at x = 0, 1, 2, 3, an increasing constraint.

    The root's cuts (proxy :math:`S_L^2/W_L + S_R^2/W_R`): x <= 0.5 gives
    1 + 14^2/3 = 66.3, x <= 1.5 gives 6^2/2 + 9^2/2 = 58.5, x <= 2.5 gives
    8^2/3 + 7^2 = 70.3: the best, and increasing (means 8/3 < 7).  Its middle
    value 8/6 + 7/2 = 29/6 bounds the left child {1, 5, 2} above.  There,
    x <= 1.5 (means 3 > 2) is decreasing, so the left child splits at
    x <= 0.5 (means 1 < 3.5, both below 29/6), whose middle value 1/2 + 3.5/2
    = 2.25 bounds {5, 2} below; its only cut (means 5 > 2) is decreasing: a
    leaf.  Five nodes, where the unconstrained tree has seven.  A decreasing
    constraint rejects every cut of the root (all three are increasing).
    """
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, 5.0, 2.0, 7.0])
    tree = DecisionTreeRegressor(monotonic_cst=[1]).fit(X, y)
    np.testing.assert_array_equal(tree.tree_.threshold[tree.tree_.feature >= 0], [2.5, 0.5])
    np.testing.assert_allclose(tree.tree_.value[:, 0, 0], [15 / 4, 8 / 3, 1.0, 3.5, 7.0])
    np.testing.assert_allclose(tree.predict(X), [1.0, 3.5, 3.5, 7.0])
    assert DecisionTreeRegressor().fit(X, y).tree_.node_count == 7
    assert DecisionTreeRegressor(monotonic_cst=[-1]).fit(X, y).tree_.node_count == 1
    for params in [{"max_leaf_nodes": 10}, {"splitter": "best"}]:
        assert_same(DecisionTreeRegressor(monotonic_cst=[1], **params).fit(X, y),
                    sk.DecisionTreeRegressor(monotonic_cst=[1], **params).fit(X, y))


def test_node_values_are_clipped_to_the_bounds():
    """A node whose mean lies outside its bounds takes the bound (``clip_node_value``).

    x0 (increasing) and x1 (free): the root splits on x0 <= 2.5 into
    {3, 4} (mean 3.5) and {3, 4, 7} (mean 14/3), middle value 3.5/2 + 14/6 =
    49/12, the right child's lower bound.  The right child splits on the free
    feature x1 <= 1 (not checked), sending y = 4 alone left: its mean 4 is
    below 49/12 and is clipped to it.  (The other child, {3, 7}, mean 5, is
    above its mean 4: a split on a free feature is not checked.)
    """
    X = np.array([[3.0, 2.0], [2.0, 1.0], [3.0, 0.0], [2.0, 2.0], [3.0, 2.0]])
    y = np.array([3.0, 3.0, 4.0, 4.0, 7.0])
    ours = DecisionTreeRegressor(monotonic_cst=[1, 0]).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, [0, 1, -2, -2, 1, -2, -2])
    np.testing.assert_allclose(ours.tree_.value[:, 0, 0],
                               [4.2, 3.5, 3.0, 4.0, 14 / 3, 49 / 12, 5.0])
    assert ours.predict([[3.0, 0.0]])[0] == pytest.approx(49 / 12)
    # (x1 <= 1.5 ties with x0 <= 2.5 at the root: scikit-learn picks either,
    # by its random order of features; the oracle tests avoid such ties.)


@pytest.mark.parametrize("Tree", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_bad_constraints_are_refused(Tree):
    X, y = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]], [1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="monotonic_cst has shape 3 but the input data X has 2 "
                                         "features."):
        Tree(monotonic_cst=np.array([-1, 1, 0])).fit(X, y)
    with pytest.raises(ValueError, match=r"monotonic_cst must be None or an array-like of -1, 0 "
                                         r"or 1, but got \[-2  2\]"):
        Tree(monotonic_cst=[-2, 2]).fit(X, y)
    with pytest.raises(ValueError, match=r"monotonic_cst must be None .*0\.8\]"):
        Tree(monotonic_cst=[-1, 0.8]).fit(X, y)
    with pytest.raises(ValueError, match="monotonic_cst must be 1-D"):
        Tree(monotonic_cst=[[1, 0]]).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'monotonic_cst' parameter of "
                                                    f"{Tree.__name__} must be an array-like"):
        Tree(monotonic_cst=1).fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN; monotonic_cst does not support"):
        Tree(monotonic_cst=[1, 0]).fit([[np.nan, 2], [3, 4], [5, 6]], [0, 1, 1])
    fitted = Tree(monotonic_cst=[1, 0]).fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        fitted.predict([[np.nan, 1.0]])
    with pytest.raises(ValueError, match="not supported with multiple outputs"):
        Tree(monotonic_cst=[1, 0]).fit(X, np.column_stack([y, y]))


def test_multiclass_is_refused():
    X, y = np.arange(12.0).reshape(6, 2), [0, 1, 2, 0, 1, 2]
    with pytest.raises(ValueError, match="not supported with multiclass classification"):
        DecisionTreeClassifier(monotonic_cst=[1, 0]).fit(X, y)
    DecisionTreeClassifier().fit(X, y)      # without constraints: fine


def test_classifier_constrains_the_second_class():
    """+1 raises the probability of classes_[1] with the feature, whatever the labels."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array(["b", "b", "a", "a", "b", "b"])          # classes_ = ["a", "b"]
    for sign in (1, -1):
        model = DecisionTreeClassifier(monotonic_cst=[sign]).fit(X, y)
        proba = model.predict_proba(np.linspace(-1, 6, 50)[:, None])[:, 1]
        assert np.all(np.diff(proba) * sign >= 0)
        theirs = sk.DecisionTreeClassifier(monotonic_cst=[sign]).fit(X, y)
        np.testing.assert_allclose(model.predict_proba(X), theirs.predict_proba(X))


@pytest.mark.parametrize("make, params", [
    (DecisionTreeClassifier, {}),
    (DecisionTreeClassifier, {"criterion": "entropy", "max_leaf_nodes": 12}),
    (DecisionTreeClassifier, {"splitter": "random", "random_state": 1}),
    (DecisionTreeRegressor, {}),
    (DecisionTreeRegressor, {"criterion": "poisson", "max_leaf_nodes": 15}),
    (DecisionTreeRegressor, {"criterion": "absolute_error", "max_depth": 5}),
    (DecisionTreeRegressor, {"splitter": "random", "max_features": 2, "random_state": 2}),
])
@pytest.mark.parametrize("cst", [[1, -1, 0, 0], [0, 1, 1, -1]])
def test_the_sweep_finds_the_reference_splitters_constrained_splits(monkeypatch, make, params,
                                                                     cst):
    """The sweep compiled and as written (:func:`dtree.sweep.best_split`) reject the
    same cuts: the same trees, node for node."""
    rng = np.random.default_rng(5)
    n = 150
    X = rng.integers(0, 12, size=(n, 4)) / 4.0
    if make is DecisionTreeClassifier:
        y = (X[:, 0] - X[:, 1] + rng.integers(0, 3, n) > 1).astype(int)
    else:
        y = np.round(X[:, 0] * 2 - X[:, 1] + rng.integers(0, 4, n)) + 3
    weight = rng.integers(1, 5, n) / 2.0                    # exact sums
    fast = make(monotonic_cst=cst, **params).fit(X, y, sample_weight=weight)
    assert not same_tree(fast, make(**params).fit(X, y, sample_weight=weight))  # constrained
    monkeypatch.setattr(dtree.splitting.BestSplitter, "compiled", False)
    monkeypatch.setattr(dtree.growth, "_USE_GROW_LEVELS", False)
    reference = make(monotonic_cst=cst, **params).fit(X, y, sample_weight=weight)
    assert fast.tree_.node_count > 7
    for name in ("children_left", "children_right", "feature", "threshold", "n_node_samples",
                 "impurity", "value"):
        np.testing.assert_array_equal(getattr(fast.tree_, name), getattr(reference.tree_, name),
                                      err_msg=name)
