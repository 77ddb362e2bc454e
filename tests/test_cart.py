"""CART estimators: contract, textbook numbers, properties, bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dtree import (DecisionTreeClassifier, DecisionTreeRegressor, InvalidParameterError,
                   NotFittedError)
from dtree.datasets import load_iris, load_weather


def test_weather_gini_index_of_each_outlook_value():
    # Seed 004 (CART): Gini index of "outlook == v" vs the rest: 0.394, 0.357, 0.457.
    weather = load_weather()
    y = weather["play"]
    for value, expected in {"sunny": 0.394, "overcast": 0.357, "rainy": 0.457}.items():
        X = (weather[["outlook"]] == value).astype(int)
        tree = DecisionTreeClassifier(max_depth=1).fit(X, y)
        t = tree.tree_
        left, right = t.children_left[0], t.children_right[0]
        index = (t.weighted_n_node_samples[left] * t.impurity[left]
                 + t.weighted_n_node_samples[right] * t.impurity[right]) / 14
        assert round(index, 3) == expected


def test_iris_120_30_split_scores():
    from sklearn.model_selection import train_test_split

    iris = load_iris()
    X, y = iris.drop(columns="species"), iris["species"]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
    tree = DecisionTreeClassifier(min_samples_leaf=1).fit(X_train, y_train)
    assert tree.score(X_train, y_train) == 1.0
    assert tree.score(X_test, y_test) > 0.9


def test_estimator_contract():
    tree = DecisionTreeClassifier(max_depth=3)
    params = tree.get_params()
    assert params["max_depth"] == 3 and params["criterion"] == "gini" and len(params) == 13
    assert tree.set_params(max_depth=2) is tree
    assert repr(tree) == "DecisionTreeClassifier(max_depth=2)"
    with pytest.raises(TypeError):
        DecisionTreeClassifier(3)
    X, y = np.random.default_rng(0).random((20, 2)), np.arange(20) % 2
    assert tree.fit(X, y) is tree
    assert tree.classes_.tolist() == [0, 1] and tree.n_features_in_ == 2
    with pytest.raises(NotFittedError):
        DecisionTreeRegressor().predict(X)
    with pytest.raises(NotFittedError):
        _ = DecisionTreeClassifier().feature_importances_


def test_tree_arrays_are_read_only():
    X, y = np.random.default_rng(0).random((20, 2)), np.arange(20) % 2
    t = DecisionTreeClassifier().fit(X, y).tree_
    with pytest.raises(ValueError):
        t.threshold[0] = 1.0
    with pytest.raises(AttributeError):
        t.node_count = 3


ARRAY_NAMES = ["children_left", "children_right", "feature", "threshold", "impurity",
               "n_node_samples", "weighted_n_node_samples", "value", "missing_go_to_left"]


CRITERIA = ["gini", "entropy", "squared_error", "poisson", "absolute_error"]
GROWTH = [{}, {"ccp_alpha": 0.01}, {"max_leaf_nodes": 8}]   # depth-first, pruned, best-first


def _fit_small(criterion, params):
    rng = np.random.default_rng(1)
    X, y = rng.random((200, 3)), rng.integers(0, 3, 200)
    make = DecisionTreeClassifier if criterion in ("gini", "entropy") else DecisionTreeRegressor
    return make(criterion=criterion, **params).fit(X, y)


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("params", GROWTH)
def test_fitted_tree_arrays_are_contiguous_read_only_and_own_their_memory(criterion, params):
    # A view would keep a larger array alive (the node statistics, say) and
    # leave its writable base reachable through tree_.value.base.
    t = _fit_small(criterion, params).tree_
    for name in ARRAY_NAMES:
        array = getattr(t, name)
        assert array.flags.c_contiguous and not array.flags.writeable, name
        assert array.base is None, name


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("params", GROWTH)
def test_fit_and_pruning_hand_their_arrays_to_the_tree_without_a_copy(monkeypatch, criterion,
                                                                      params):
    import dtree.cart
    import dtree.pruning
    from dtree.tree import TreeArrays

    made = []

    class Spy(TreeArrays):
        def __init__(self, **given):
            super().__init__(**given)
            made.append((self, given))

    monkeypatch.setattr(dtree.cart, "TreeArrays", Spy)
    monkeypatch.setattr(dtree.pruning, "TreeArrays", Spy)
    model = _fit_small(criterion, params)
    assert len(made) == (2 if "ccp_alpha" in params else 1) and made[-1][0] is model.tree_
    for tree, passed in made:   # the arrays fit and pruning made, not copies of them
        for name in ARRAY_NAMES:
            assert getattr(tree, name) is passed[name], name


@pytest.mark.parametrize("make", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_predictions_are_the_callers_own_writable_arrays(make):
    rng = np.random.default_rng(2)
    X, y = rng.random((50, 2)), rng.integers(0, 2, 50)
    model = make(max_depth=3).fit(X, y)
    methods = [model.predict] + ([model.predict_proba] if make is DecisionTreeClassifier else [])
    for method in methods:
        out = method(X)
        assert out.flags.writeable and not np.shares_memory(out, model.tree_.value)
        out[...] = 0                     # changes no later prediction
        assert np.any(method(X) != 0)


def test_tree_arrays_copy_or_take_the_given_arrays():
    def arrays():
        return dict(children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
                    feature=np.array([0, -2, -2]), threshold=np.array([0.5, -2.0, -2.0]),
                    impurity=np.array([0.5, 0.0, 0.0]), n_node_samples=np.array([4, 2, 2]),
                    weighted_n_node_samples=np.array([4.0, 2.0, 2.0]),
                    value=np.array([[[0.5, 0.5]], [[1.0, 0.0]], [[0.0, 1.0]]]),
                    missing_go_to_left=np.array([True, False, False]))
    from dtree.tree import TreeArrays

    given = arrays()
    copied = TreeArrays(**given, n_features=1, n_classes=2)
    for name, array in given.items():   # the caller's arrays: untouched and writable
        assert array.flags.writeable and not np.shares_memory(array, getattr(copied, name))
        np.testing.assert_array_equal(array, getattr(copied, name))
    given = arrays()
    taken = TreeArrays(**given, n_features=1, n_classes=2, copy=False)
    for name, array in given.items():   # handed over: the same memory, now read-only
        assert getattr(taken, name) is array and not array.flags.writeable
    given = arrays()
    base = given["value"].reshape(3, 2)
    given["value"] = base[:, None, :]     # a view: copied, its base stays the caller's
    viewed = TreeArrays(**given, n_features=1, n_classes=2, copy=False)
    assert viewed.value.base is None and not np.shares_memory(viewed.value, base)
    assert base.flags.writeable
    np.testing.assert_array_equal(taken.apply(np.array([[0.2], [0.7], [np.nan]])), [1, 2, 1])


def test_single_class_gives_one_leaf():
    tree = DecisionTreeClassifier().fit([[1.0], [2.0]], ["a", "a"])
    assert tree.get_n_leaves() == 1 and tree.predict([[5.0]]).tolist() == ["a"]
    np.testing.assert_array_equal(tree.feature_importances_, [0.0])


# scikit-learn's wording: "The 'name' parameter of Estimator must be <expected>. Got <value> instead."
@pytest.mark.parametrize("params, message", [
    ({"criterion": "mse"}, "'criterion' parameter .* must be a str among {'entropy', 'gini'"),
    ({"splitter": "worst"}, "'splitter' parameter .* must be a str among {'best', 'random'}"),
    ({"max_depth": 0}, r"'max_depth' parameter .* an int in the range \[1, inf\) or None. Got 0"),
    ({"min_samples_split": 1}, r"'min_samples_split' .* an int in the range \[2, inf\)"),
    ({"min_samples_leaf": 0}, r"'min_samples_leaf' .* an int in the range \[1, inf\)"),
    ({"min_weight_fraction_leaf": 0.7}, r"'min_weight_fraction_leaf' .* \[0.0, 0.5\]. Got 0.7"),
    ({"max_leaf_nodes": 1}, r"'max_leaf_nodes' .* an int in the range \[2, inf\) or None"),
    ({"min_impurity_decrease": -1.0}, "'min_impurity_decrease' .* must be a finite float"),
    ({"ccp_alpha": -0.1}, "'ccp_alpha' .* must be a finite float"),
    ({"max_features": 0}, r"'max_features' .* \[1, n_features\] = \[1, 2\]"),
    ({"class_weight": "even"}, "'class_weight' parameter .* must be .*Got 'even' instead"),
])
def test_invalid_parameters(params, message):
    X, y = np.random.default_rng(0).random((20, 2)), np.arange(20) % 2
    with pytest.raises(InvalidParameterError, match=message):
        DecisionTreeClassifier(**params).fit(X, y)


def test_bad_input():
    rng = np.random.default_rng(0)
    X, y = rng.random((20, 3)), np.arange(20) % 2
    tree = DecisionTreeClassifier()
    with pytest.raises(ValueError, match="got a 1-D array"):
        tree.fit(X[:, 0], y)
    with pytest.raises(ValueError, match="X is empty"):
        tree.fit(np.empty((0, 3)), [])
    with pytest.raises(ValueError, match="infinite"):
        tree.fit(np.where(X > 0.9, np.inf, X), y)
    with pytest.raises(TypeError, match="X must be numeric"):
        tree.fit(np.array([["a", "b"]] * 20), y)
    with pytest.raises(TypeError, match="must be numeric; column"):
        tree.fit(pd.DataFrame({"a": ["x"] * 20}), y)
    with pytest.raises(ValueError, match="X has 20 samples but y has 19"):
        tree.fit(X, y[:-1])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        tree.fit(X, y, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        tree.fit(X, y, sample_weight=np.zeros(20))
    tree.fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but DecisionTreeClassifier is expecting 3 features"):
        tree.predict(X[:, :2])
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    named = DecisionTreeClassifier().fit(frame, y)
    with pytest.raises(ValueError, match="feature names of X"):
        named.predict(frame[["c", "b", "a"]])
    with pytest.raises(ValueError, match="y must be finite"):
        DecisionTreeRegressor().fit(X, np.where(y > 0, np.nan, 1.0))
    with pytest.raises(ValueError, match="poisson"):
        DecisionTreeRegressor(criterion="poisson").fit(X, y - 1.0)


def test_inputs_are_not_modified():
    rng = np.random.default_rng(1)
    X = rng.random((30, 3))
    y = rng.integers(0, 2, 30)
    w = rng.random(30)
    copies = X.copy(), y.copy(), w.copy()
    DecisionTreeClassifier(class_weight="balanced").fit(X, y, sample_weight=w).predict(X)
    for original, copy in zip((X, y, w), copies):
        np.testing.assert_array_equal(original, copy)


unique_rows = st.integers(2, 60).flatmap(lambda n: arrays(
    np.float64, (n, 3), elements=st.integers(-50, 50).map(float), unique=True))


@settings(max_examples=50, deadline=None)
@given(unique_rows, st.data())
def test_properties(X, data):
    n = X.shape[0]
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    tree = DecisionTreeClassifier().fit(X, y)
    proba = tree.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # No duplicate rows (unique values in every column): zero training error.
    assert tree.score(X, y) == 1.0
    t = tree.tree_
    leaves = t.children_left < 0
    assert np.all(t.impurity[~leaves] > 0)  # a pure node is never split
    importances = tree.feature_importances_
    assert np.all(importances >= 0)
    assert importances.sum() == pytest.approx(1.0) or importances.sum() == 0.0
    # Scaling a feature by a power of two and permuting rows change no prediction.
    scaled = X * np.array([4.0, 0.5, 1.0])
    np.testing.assert_array_equal(DecisionTreeClassifier().fit(scaled, y).predict(scaled),
                                  tree.predict(X))
    order = np.random.default_rng(0).permutation(n)
    np.testing.assert_array_equal(DecisionTreeClassifier().fit(X[order], y[order]).predict(X),
                                  tree.predict(X))
    # A larger ccp_alpha never gives more leaves.
    alphas = tree.cost_complexity_pruning_path(X, y)["ccp_alphas"]
    leaves_at = [DecisionTreeClassifier(ccp_alpha=a).fit(X, y).get_n_leaves() for a in alphas]
    assert all(b <= a for a, b in zip(leaves_at, leaves_at[1:]))


@pytest.mark.parametrize("max_features, expected", [
    (None, 16), ("sqrt", 4), ("log2", 4), (3, 3), (0.5, 8), (1.0, 16)])
def test_max_features_resolution(max_features, expected):
    X = np.random.default_rng(0).random((40, 16))
    y = np.arange(40) % 2
    tree = DecisionTreeClassifier(max_features=max_features, random_state=0).fit(X, y)
    assert tree.max_features_ == expected


@pytest.mark.parametrize("params", [{"splitter": "random"}, {"max_features": 2},
                                    {"splitter": "random", "max_features": 1}])
def test_randomised_trees_are_reproducible_and_valid(params):
    rng = np.random.default_rng(5)
    X = rng.random((300, 5))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    a = DecisionTreeClassifier(random_state=7, **params).fit(X, y)
    b = DecisionTreeClassifier(random_state=7, **params).fit(X, y)
    c = DecisionTreeClassifier(random_state=8, **params).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    assert not np.array_equal(a.tree_.threshold, c.tree_.threshold) or \
        a.tree_.node_count != c.tree_.node_count
    assert a.score(X, y) == 1.0  # unique rows: still grown to purity
    # Every split separates the node's samples (both children non-empty) and
    # its threshold lies within the node's range of the feature.
    t = a.tree_
    paths = a.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero(t.children_left >= 0):
        values = X[paths[:, node], t.feature[node]].astype(np.float32)
        assert values.min() <= t.threshold[node] < values.max()


def test_random_state_none_is_deterministic_with_exhaustive_search():
    X = np.random.default_rng(0).random((100, 4))
    y = (X[:, 0] > 0.5).astype(int) ^ (X[:, 3] > 0.3).astype(int)
    a = DecisionTreeClassifier().fit(X, y)
    b = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    with pytest.raises(InvalidParameterError, match="The .random_state. parameter of DecisionTreeClassifier must be"):
        DecisionTreeClassifier(random_state=-1).fit(X, y)


def _tree_arrays(tree):
    t = tree.tree_
    return (t.children_left, t.feature, t.threshold, t.impurity, t.n_node_samples,
            t.weighted_n_node_samples, t.value)


@pytest.mark.parametrize("make, params", [
    (DecisionTreeClassifier, {}),
    (DecisionTreeClassifier, {"splitter": "random", "random_state": 0}),
    (DecisionTreeClassifier, {"max_features": 2, "random_state": 1, "max_leaf_nodes": 9}),
    (DecisionTreeRegressor, {}),
    (DecisionTreeRegressor, {"criterion": "absolute_error", "max_depth": 4}),
])
@pytest.mark.parametrize("missing", [False, True])
def test_float64_X_is_read_as_float32(make, params, missing):
    # fit reads a float64 X in place, as float32: values that differ in float64
    # but round to one float32 are tied, exactly as in X.astype(np.float32),
    # a C- or F-ordered copy, a strided view, or a DataFrame of the same numbers.
    if missing and params.get("criterion") == "absolute_error":
        pytest.skip("absolute_error does not support missing values")
    rng = np.random.default_rng(3)
    base = np.round(rng.normal(size=(300, 4)), 1).astype(np.float32).astype(np.float64)
    X = base * (1 + rng.choice([0.0, 1e-12, -1e-12], size=base.shape))   # ties in float32 only
    assert (X != base).any() and (X.astype(np.float32) == base).all()
    y = (base[:, 0] + base[:, 1] > 0).astype(int)
    if make is DecisionTreeRegressor:
        y = base[:, 0] * 2 + base[:, 2] ** 2
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    wide = np.repeat(X, 2, axis=1)     # X == wide[:, ::2], a strided view
    forms = [X.astype(np.float32), np.asfortranarray(X), wide[:, ::2], pd.DataFrame(X)]
    before = X.copy()
    reference = make(**params).fit(X, y)
    np.testing.assert_array_equal(X, before)       # read, never written
    for other in forms:
        tree = make(**params).fit(other, y)
        for a, b in zip(_tree_arrays(reference), _tree_arrays(tree)):
            np.testing.assert_array_equal(a, b)
    assert reference.get_n_leaves() > 4


def test_values_beyond_float32_and_nan_are_refused_with_a_clear_error():
    # fit reads a float64 X without converting it: the float32 range and the
    # NaN policy are checked on the caller's values (strided views included).
    rng = np.random.default_rng(2)
    X, y = rng.random((20, 3)), np.arange(20) % 2
    big = X.copy()
    big[3, 1] = -1e39                      # finite in float64, -inf in float32
    for bad in (big, np.repeat(big, 2, axis=1)[:, ::2], np.asfortranarray(big)):
        with pytest.raises(ValueError, match=r"X has values too large for float32"):
            DecisionTreeClassifier().fit(bad, y)
    edge = X.copy()
    edge[0, 0] = np.finfo(np.float32).max  # the largest float32 is accepted
    assert DecisionTreeClassifier().fit(edge, y).tree_.node_count >= 3
    tree = DecisionTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match=r"X has values too large for float32"):
        tree.predict(big)
    missing = X.copy()
    missing[5, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN; criterion='absolute_error'"):
        DecisionTreeRegressor(criterion="absolute_error").fit(missing, y.astype(float))
    DecisionTreeRegressor().fit(missing, y.astype(float))   # NaN is a missing value here


@settings(max_examples=200, deadline=None)
@given(t=st.floats(allow_nan=False), x=st.floats(width=32, allow_nan=False))
def test_float32_thresholds_compare_exactly_like_the_float64_ones(t, x):
    """apply compares float32 rows with the largest float32 <= t: the same answer as x <= t."""
    from dtree.tree import _float32_at_most

    t32 = _float32_at_most(np.array([t]))[0]
    assert t32.dtype == np.float32 and float(t32) <= t
    x32 = np.float32(x)
    assert (x32 <= t32) == (float(x32) <= t)
    # ... and at the float32 neighbours of t, where rounding would go wrong
    # (t beyond float32's range: its nearest float32 is +-inf).
    with np.errstate(over="ignore"):
        nearest = np.float32(t)
        neighbours = (nearest, np.nextafter(nearest, np.float32(np.inf)),
                      np.nextafter(nearest, np.float32(-np.inf)))
    for near in neighbours:
        assert (near <= t32) == (float(near) <= t)


def test_apply_gives_the_same_leaves_for_float32_and_float64_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5)) * 10.0 ** rng.integers(-3, 4, size=5)
    y = X @ rng.normal(size=5) + rng.normal(size=400)
    tree = DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(tree.apply(X32), tree.apply(X32.astype(np.float64)))


@pytest.mark.parametrize("n, dtype", [(1, np.uint8), (256, np.uint8), (257, np.uint16),
                                      (65_536, np.uint16), (65_537, np.uint32)])
def test_presort_is_a_stable_argsort_in_the_smallest_index_type(n, dtype):
    from dtree.splitting import presort

    rng = np.random.default_rng(n)
    X = rng.integers(0, 7, size=(n, 2)).astype(np.float64)   # many ties
    X[rng.random(n) < 0.1, 1] = np.nan                         # NaN sorts last
    X[rng.random(n) < 0.5, 0] += 1e-9    # distinct in float64, tied in float32
    before = X.copy()
    order = presort(X)
    assert order.dtype == dtype and order.shape == (2, n)
    for f in range(2):
        # increasing float32 value (NaN last), ties by sample index
        expected = np.lexsort((np.arange(n), X[:, f].astype(np.float32)))
        np.testing.assert_array_equal(order[f], expected)
    np.testing.assert_array_equal(X, before)


def test_apply_of_the_tree_arrays_takes_empty_integer_and_object_rows():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 5, size=(200, 3)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, 0], nan=2.5) + X[:, 1].round() % 2 > 2).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    assert tree.apply(np.empty((0, 3))).shape == (0,)
    assert DecisionTreeClassifier().fit(X, y).predict(np.empty((0, 3))).shape == (0,)
    expected = tree.apply(X)
    np.testing.assert_array_equal(tree.apply(X.astype(object)), expected)   # NaN found in objects
    complete = ~np.isnan(X).any(axis=1)
    np.testing.assert_array_equal(tree.apply(X[complete].astype(np.int64)), expected[complete])


def _every(check):
    """A removal schedule for apply: after every ``check`` steps (instead of the planned one)."""
    return lambda descending, rows: frozenset(range(check, descending.size - 1, check))


@pytest.mark.parametrize("chunk, check", [(1 << 13, 8), (7, 1), (64, 3), (1, 100)])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "with NaN"])
def test_apply_in_any_chunking_reaches_the_leaf_of_the_plain_walk(monkeypatch, chunk, check,
                                                                  missing):
    """apply's chunks and its removals of finished rows change no leaf: every row
    ends where the one-level-at-a-time walk (``_walk``, behind decision_path) ends."""
    import dtree.tree as tree_module

    rng = np.random.default_rng(11)
    X = rng.normal(size=(500, 4))
    y = (X[:, 0] + np.sin(3 * X[:, 1]) > 0.3).astype(int)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_   # leaves at many depths
    assert len(np.unique(tree._depths()[tree.children_left < 0])) > 4
    monkeypatch.setattr(tree_module, "_APPLY_CHUNK", chunk)
    monkeypatch.setattr(tree_module, "_removal_steps", _every(check))
    walked = np.zeros(X.shape[0], dtype=np.intp)
    for rows, nodes in tree._walk(X):
        walked[rows] = nodes
    np.testing.assert_array_equal(tree.apply(X), walked)
    np.testing.assert_array_equal(tree.apply(X.astype(np.float32)), walked)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 80).flatmap(lambda n: arrays(
           np.float64, (n, 3),
           elements=st.one_of(st.integers(-9, 9).map(float), st.just(np.nan)))),
       st.sampled_from([1, 3, 64, 1 << 13]), st.sampled_from([1, 2, 8]), st.data())
def test_apply_equals_the_plain_walk_for_any_tree_and_schedule(X, chunk, check, data):
    """Random trees with NaN anywhere: apply ends every row, float64 or float32,
    at the leaf of the one-level-at-a-time walk, whatever the chunks and the
    removal schedule."""
    from unittest import mock

    import dtree.tree as tree_module

    n = X.shape[0]
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    tree = DecisionTreeClassifier().fit(X, y).tree_
    walked = np.zeros(n, dtype=np.intp)
    for rows, nodes in tree._walk(X):
        walked[rows] = nodes
    with mock.patch.object(tree_module, "_APPLY_CHUNK", chunk), \
            mock.patch.object(tree_module, "_removal_steps", _every(check)):
        np.testing.assert_array_equal(tree.apply(X), walked)
        np.testing.assert_array_equal(tree.apply(X.astype(np.float32)), walked)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=9), st.integers(1, 20_000))
def test_the_removal_plan_of_apply_is_the_cheapest_schedule(shares, rows):
    """_removal_steps (dynamic programming) costs no more, under apply's cost
    model, than any other set of removal steps (all of them, for depth <= 10)."""
    from itertools import combinations

    import dtree.tree as tree_module

    descending = np.concatenate([[1.0], np.sort(shares)[::-1], [0.0]])   # non-increasing
    depth = descending.size - 1

    def cost(removals):
        held, total = rows, 0.0
        for step in range(1, depth + 1):
            total += tree_module._STEP_FIXED + held
            if step in removals:
                total += tree_module._REMOVAL_FIXED + held
                held = rows * descending[step]
        return total

    plan = tree_module._removal_steps(descending, rows)
    assert plan <= set(range(1, depth))
    best = min(cost(set(c)) for k in range(depth) for c in combinations(range(1, depth), k))
    assert cost(plan) == pytest.approx(best)


@pytest.mark.parametrize("base, gap", [(0.0, 1e-30), (0.0, 5e-8), (1.0, 2e-7), (1.0, 1.2e-7)])
def test_values_distinct_in_float32_are_split_as_scikit_learn_does(base, gap):
    """scikit-learn's compiled splitter separates any two distinct float32 values."""
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    assert np.float32(base) != np.float32(base + gap)
    X, y = np.array([[base], [base + gap]] * 10), [0, 1] * 10
    theirs = SklearnTree(random_state=0).fit(X, y)
    ours = DecisionTreeClassifier().fit(X, y)
    assert theirs.get_n_leaves() == ours.get_n_leaves() == 2
    assert ours.tree_.threshold[0] == theirs.tree_.threshold[0]


def test_a_feature_within_a_micro_unit_is_split():
    """x uniform on [0, 1e-6], y = x > 5e-7: every gap is below 1e-7, the tree is exact."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1e-6, 1000)
    y = (x > 5e-7).astype(int)
    tree = DecisionTreeClassifier().fit(x[:, None], y)
    assert tree.score(x[:, None], y) == 1.0 and tree.get_n_leaves() == 2


@pytest.mark.parametrize("form", ["complete", "with NaN", "near float32's largest", "Fortran",
                                  "integers"])
def test_the_estimators_apply_reaches_the_leaf_of_the_plain_walk(form):
    """The estimator's apply, told by its validation whether X holds a NaN
    (no pass of its own), ends every row where ``_walk`` does."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 5)) * 10
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 2]) > 0).astype(int)
    estimator = DecisionTreeClassifier(random_state=0).fit(X, y)
    X_test = rng.normal(size=(300, 5)) * 10
    if form == "with NaN":
        X_test[rng.random(X_test.shape) < 0.1] = np.nan
    elif form == "near float32's largest":     # finite, but a float32 sum of them is not
        X_test[:, 1] = np.float32(3e38)
    elif form == "Fortran":
        X_test[rng.random(X_test.shape) < 0.1] = np.nan
        X_test = np.asfortranarray(X_test)
    elif form == "integers":
        X_test = X_test.round().astype(np.int64)
    walked = np.zeros(X_test.shape[0], dtype=np.intp)
    for rows, nodes in estimator.tree_._walk(np.asarray(X_test, dtype=np.float32)):
        walked[rows] = nodes
    np.testing.assert_array_equal(estimator.apply(X_test), walked)
    np.testing.assert_array_equal(estimator.apply(pd.DataFrame(X_test)), walked)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_fortran_ordered_X_predicts_as_c_ordered(dtype):
    """pandas 3 hands out column-major arrays: apply reads them in place, same leaves."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 7)) * 10
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 3]) > 0).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    X_test = rng.normal(size=(300, 7)) * 10
    if dtype is not np.int64:
        X_test[rng.random(X_test.shape) < 0.05] = np.nan
    X_test = X_test.astype(dtype)
    fortran = np.asfortranarray(X_test)
    assert fortran.flags.f_contiguous and not fortran.flags.c_contiguous
    np.testing.assert_array_equal(tree.apply(fortran), tree.apply(X_test))
    # strided views of both orders: every other row, rows reversed
    np.testing.assert_array_equal(tree.apply(fortran[::-2]), tree.apply(X_test)[::-2])
    np.testing.assert_array_equal(tree.apply(X_test[::-1]), tree.apply(X_test)[::-1])


def test_predict_finds_a_bad_value_in_the_last_block_of_rows():
    # predict checks X for infinite values and NaN a block of rows at a time
    # (dtree._validation._all_finite): a value in the last block is found too.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3000, 64))
    y = (X[:, 0] > 0).astype(int)
    tree = DecisionTreeClassifier(max_depth=3).fit(X, y)
    bad = X.copy()
    bad[-1, -1] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        tree.predict(bad)
    bad[-1, -1] = X[-1, -1]
    bad[-1, tree.tree_.feature[0]] = np.nan         # routed, not refused
    leaves = tree.apply(bad)
    assert leaves[-1] == tree.apply(bad[-1:])[0]
    assert tree.tree_.children_left[leaves[-1]] == -1


def _tree_floats(model):
    t = model.tree_
    return [t.children_left, t.children_right, t.feature, t.threshold, t.impurity,
            t.n_node_samples, t.weighted_n_node_samples, t.value, t.missing_go_to_left]


def test_siblings_searched_together_grow_the_tree_of_one_search_per_node():
    # Best-first growth searches a split node's two children in one call (the
    # sweep sums each node from 0: the floats of a search per node).  Bit for bit
    # the tree of one search per node, whatever the weights.
    import dtree.growth
    import dtree.splitting

    sweep_level = dtree.splitting.BestSplitter._sweep_level
    most_segments = []          # per fit: the most segments of one search

    def fit_counting(fit, X, y, *, together):
        searches = []

        def counted(self, starts, *args, **kwargs):
            searches.append(starts.size)
            return sweep_level(self, starts, *args, **kwargs)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(dtree.splitting.BestSplitter, "_sweep_level", counted)
            if not together:
                mp.setattr(dtree.growth, "_SIBLINGS_TOGETHER", False)
            model = fit(X, y)
        most_segments.append((together, max(searches, default=1)))
        return model

    @settings(max_examples=60, deadline=None)
    @given(seed=st.integers(0, 10_000), n=st.integers(8, 120), regression=st.booleans(),
           n_classes=st.sampled_from([2, 3, 9]), max_leaf_nodes=st.integers(2, 40),
           params=st.sampled_from([{}, {"min_samples_leaf": 3},
                                   {"max_features": 2, "random_state": 1},
                                   {"min_impurity_decrease": 0.02},
                                   {"monotonic_cst": [1, 0, -1]}]),
           missing=st.booleans(), fractional=st.booleans())
    # Siblings of which one only passes min_impurity_decrease (each is held to
    # its own gain).
    @example(seed=0, n=44, regression=False, n_classes=3, max_leaf_nodes=4,
             params={"min_impurity_decrease": 0.02}, missing=False, fractional=False)
    def check(seed, n, regression, n_classes, max_leaf_nodes, params, missing, fractional):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 6, size=(n, 3)).astype(float)
        if missing and "monotonic_cst" not in params:
            X[rng.random(X.shape) < 0.1] = np.nan
        w = rng.uniform(0.1, 3.0, size=n) if fractional else None
        if regression:
            model, y = DecisionTreeRegressor, rng.normal(size=n)
        else:
            k = 2 if "monotonic_cst" in params else n_classes
            model, y = DecisionTreeClassifier, rng.integers(0, k, size=n)

        def fit(X, y):               # a new estimator for each fit: fit returns self
            return model(max_leaf_nodes=max_leaf_nodes, **params).fit(X, y, sample_weight=w)

        together = fit_counting(fit, X, y, together=True)
        alone = fit_counting(fit, X, y, together=False)
        for a, b in zip(_tree_floats(together), _tree_floats(alone)):
            np.testing.assert_array_equal(a, b)

    check()
    assert max(m for together, m in most_segments if not together) == 1
    assert max(m for together, m in most_segments if together) == 2   # the joint search ran


@pytest.mark.parametrize("weights", ["fractional", "whole"])
def test_a_best_first_node_has_the_impurity_of_its_own_samples(weights):
    # Each node's impurity is the criterion's on that node's statistics alone
    # (a single column), whatever its sibling: NumPy sums one column's classes
    # pairwise and two columns' one after another, which differ for 9 classes
    # and fractional weights.
    from dtree.criteria import Gini

    rng = np.random.default_rng(7)
    n = 300
    X = rng.random((n, 4))
    y = rng.integers(0, 9, size=n)
    w = rng.exponential(size=n) if weights == "fractional" else rng.integers(1, 4, n) * 1.0
    model = DecisionTreeClassifier(max_leaf_nodes=25).fit(X, y, sample_weight=w)
    t = model.tree_
    X32 = X.astype(np.float32)
    path = model.decision_path(X).tocsc()
    stats = Gini.sample_stats(y, w, 9)
    differs = 0
    for node in range(t.node_count):
        rows = path[:, node].indices
        rows = rows[np.lexsort((rows, X32[rows, 0]))]      # the splitter's order: by feature 0
        totals = Gini.node_stats(stats, rows, np.array([0]))
        assert t.impurity[node] == Gini.impurity(totals)[0], node
        both = Gini.node_stats(stats, np.concatenate([rows, rows]), np.array([0, rows.size]))
        differs += Gini.impurity(both)[0] != t.impurity[node]
    assert differs > 0 or weights == "whole"   # the two-column floats are another thing


def _large_whole_weights(case):
    # Whole sample weights of total below 2**53 whose sums of squares (Gini), or
    # whose running sums over several features (the sparse search), pass 2**53.
    if case == "gini":       # two copies of a block of 10 classes: gains tie exactly
        rng = np.random.default_rng(41)
        k, nb = int(rng.choice([9, 10, 12])), int(rng.integers(60, 200))
        S = rng.integers(0, 4, size=(nb, 2)).astype(float)
        yS, wS = rng.integers(0, k, size=nb), rng.integers(10**8, 10**10, size=nb) * 1.0
        nu, nw = int(rng.integers(3, 20)), int(rng.integers(4, 20))
        U = np.column_stack([np.full(nu, 99.0), rng.integers(0, 4, nu)])    # pure sibling
        wU = rng.integers(10**11, 10**12, size=nu) * 1.0
        W = np.column_stack([np.full(nw, 99.0), rng.integers(0, 4, nw)])    # impure sibling
        yW, wW = rng.integers(1, 3, nw), rng.integers(10**11, 10**12, size=nw) * 1.0
        X = np.vstack([np.column_stack([np.zeros(nb + nu), np.vstack([S, U])]),
                       np.column_stack([np.ones(nb + nw), np.vstack([S, W])])])
        y = np.concatenate([yS, np.zeros(nu, int), yS, yW])
        return X, y, np.concatenate([wS, wU, wS, wW]), 7
    rng = np.random.default_rng(98 if case == "sparse" else 100)
    n, d = int(rng.integers(60, 200)), int(rng.integers(10, 40))
    density = 0.7 if case == "sparse" else 0.1      # 90 % zeros: searched as sparse
    X = rng.integers(1, 5, size=(n, d)).astype(float) * (rng.random((n, d)) < density)
    y = rng.integers(0, int(rng.integers(2, 5)), n)
    w = rng.integers(1, 2**20, n).astype(float)
    w = np.floor(w / w.sum() * (2.0**53 * 0.9))
    w[w == 0] = 1
    if case == "sparse":
        import scipy.sparse
        X = scipy.sparse.csc_matrix(X)
    return X, y, w, 16 if case == "sparse" else 8


@pytest.mark.parametrize("case", ["gini", "sparse", "mostly_zeros"])
def test_large_whole_weights_grow_the_tree_of_one_search_per_node(monkeypatch, case):
    # Found by review: the gains of two siblings computed together (Gini's sum
    # of squares over two columns), and the sparse search's running sum over
    # several features, changed these trees; gains are now computed node by
    # node and the bound on the sums counts the features.
    import dtree.growth

    X, y, w, max_leaf_nodes = _large_whole_weights(case)
    assert np.all(w == np.round(w)) and w.sum() < 2.0**53
    default = DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes).fit(X, y, sample_weight=w)
    monkeypatch.setattr(dtree.growth, "_SIBLINGS_TOGETHER", False)
    alone = DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes).fit(X, y, sample_weight=w)
    for a, b in zip(_tree_floats(default), _tree_floats(alone)):
        np.testing.assert_array_equal(a, b)
