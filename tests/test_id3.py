"""ID3Classifier: the textbook trees, the stopping rules, the estimator contract, bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtree import ID3Classifier, InvalidParameterError, NotFittedError
from dtree.datasets import load_animals, load_weather
from dtree.information import information_gain_from_labels
from dtree.tree import iter_nodes


def weather_xy():
    weather = load_weather()
    return weather.drop(columns="play"), weather["play"]


def describe(node, names):
    """The tree as nested tuples (feature, {category: subtree}) / class-count leaves."""
    if node.is_leaf:
        return tuple(int(v) for v in node.value)
    return (names[node.feature],
            {c: describe(child, names) for c, child in zip(node.categories, node.children)})


def test_quinlans_weather_tree():
    # Quinlan (1986), Figure 2: outlook at the root; sunny -> humidity; rain -> windy.
    X, y = weather_xy()
    tree = ID3Classifier().fit(X, y)
    assert tree.classes_.tolist() == ["no", "yes"]
    assert describe(tree.root_, list(X.columns)) == (
        "outlook", {
            "overcast": (0, 4),
            "rainy": ("windy", {False: (0, 3), True: (2, 0)}),
            "sunny": ("humidity", {"high": (3, 0), "normal": (0, 2)}),
        })
    gains = tree.root_.candidate_scores
    assert [round(gains[j], 3) for j in range(4)] == [0.247, 0.029, 0.152, 0.048]
    assert tree.score(X, y) == 1.0
    assert (tree.get_depth(), tree.get_n_leaves()) == (2, 5)
    assert [n.node_id for n in iter_nodes(tree.root_)] == list(range(8))


def test_root_gains_equal_the_information_module():
    X, y = weather_xy()
    tree = ID3Classifier().fit(X, y)
    for j, column in enumerate(X.columns):
        assert tree.root_.candidate_scores[j] == pytest.approx(
            information_gain_from_labels(X[column], y), abs=1e-15)


def test_four_animals_tree_asks_about_feathers_first():
    animals = load_animals()
    X, y = animals.drop(columns="animal"), animals["animal"]
    tree = ID3Classifier().fit(X, y)
    assert tree.root_.feature == 0 and tree.root_.gain == 1.0
    # can_fly and has_fins tie at 0.811 bits under "no feathers": has_fins is the
    # only one that still varies there; under "feathers", only can_fly varies.
    assert (tree.get_depth(), tree.get_n_leaves()) == (2, 4)
    assert tree.predict(X).tolist() == y.tolist()


def test_ties_go_to_the_first_column():
    # Two identical columns: equal gains; the first is chosen, whichever it is.
    X = pd.DataFrame({"b": ["u", "u", "v", "v"], "a": ["u", "u", "v", "v"]})
    y = [0, 0, 1, 1]
    assert ID3Classifier().fit(X, y).root_.feature == 0
    assert ID3Classifier().fit(X[["a", "b"]], y).root_.feature == 0


def test_stopping_rule_all_rows_equal():
    # Same features, different classes: no feature can split -> majority leaf.
    X = [["a", "x"], ["a", "x"], ["a", "x"]]
    tree = ID3Classifier().fit(X, ["p", "q", "q"])
    assert tree.root_.is_leaf
    assert tree.predict([["a", "x"]]).tolist() == ["q"]
    np.testing.assert_allclose(tree.predict_proba([["a", "x"]]), [[1 / 3, 2 / 3]])


def test_stopping_rule_no_features_left():
    # XOR needs both features; every path uses each feature once and stops.
    X = [[0, 0], [0, 1], [1, 0], [1, 1], [0, 0]]
    y = [0, 1, 1, 0, 1]
    tree = ID3Classifier().fit(X, y)
    assert tree.get_depth() == 2
    for node in iter_nodes(tree.root_):
        if node.depth == 2:
            assert node.is_leaf


def test_single_class_gives_one_leaf():
    tree = ID3Classifier().fit([["a"], ["b"]], ["only", "only"])
    assert tree.root_.is_leaf and tree.predict([["c"]]).tolist() == ["only"]
    assert tree.predict_proba([["a"]]).tolist() == [[1.0]]


def test_max_depth_and_min_impurity_decrease():
    X, y = weather_xy()
    stump = ID3Classifier(max_depth=1).fit(X, y)
    assert stump.get_depth() == 1 and stump.get_n_leaves() == 3
    # The root's weighted gain is 0.247; the children's are 5/14 * 0.971 = 0.347.
    assert ID3Classifier(min_impurity_decrease=0.25).fit(X, y).get_n_leaves() == 1
    pruned = ID3Classifier(min_impurity_decrease=0.2).fit(X, y)
    assert pruned.get_n_leaves() == 5
    assert ID3Classifier(min_impurity_decrease=0.35).fit(X, y).get_n_leaves() == 1


def test_min_impurity_decrease_uses_the_weighted_gain():
    # Children of the root carry weight 5/14: their gain 0.971 bits counts 0.347.
    X, y = weather_xy()
    tree = ID3Classifier(min_impurity_decrease=0.24).fit(X, y)
    sunny = tree.root_.children[tree.root_.categories.index("sunny")]
    assert not sunny.is_leaf
    tree = ID3Classifier(min_impurity_decrease=0.248).fit(X, y)
    assert tree.root_.is_leaf


def test_unseen_category_gets_the_majority_of_the_node():
    X, y = weather_xy()
    tree = ID3Classifier().fit(X, y)
    unseen = pd.DataFrame([["foggy", "hot", "high", False]], columns=X.columns)
    assert tree.predict(unseen).tolist() == ["yes"]
    np.testing.assert_allclose(tree.predict_proba(unseen), [[5 / 14, 9 / 14]])
    # Under "sunny", an unseen humidity stops at the sunny node (3 no, 2 yes).
    odd = pd.DataFrame([["sunny", "hot", "muggy", False]], columns=X.columns)
    np.testing.assert_allclose(tree.predict_proba(odd), [[3 / 5, 2 / 5]])


def test_sample_weight_equals_repetition():
    X, y = weather_xy()
    weight = np.arange(1, 15)
    weighted = ID3Classifier().fit(X, y, sample_weight=weight)
    repeated = ID3Classifier().fit(X.loc[X.index.repeat(weight)], y.loc[y.index.repeat(weight)])
    assert describe(weighted.root_, list(X.columns)) == describe(repeated.root_, list(X.columns))


def test_numpy_input_and_feature_names():
    X, y = weather_xy()
    tree = ID3Classifier().fit(X.to_numpy(), y.to_numpy())
    assert not hasattr(tree, "feature_names_in_")
    assert tree.n_features_in_ == 4
    assert tree.predict(X.to_numpy()).tolist() == y.tolist()
    named = ID3Classifier().fit(X, y)
    assert named.feature_names_in_.tolist() == list(X.columns)


def test_estimator_contract():
    tree = ID3Classifier(max_depth=3)
    assert tree.get_params() == {"max_depth": 3, "min_impurity_decrease": 0.0}
    assert tree.set_params(max_depth=2) is tree and tree.max_depth == 2
    assert repr(tree) == "ID3Classifier(max_depth=2)"
    with pytest.raises(ValueError, match="Invalid parameter 'depth'"):
        tree.set_params(depth=2)
    with pytest.raises(TypeError):
        ID3Classifier(3)  # keyword-only
    X, y = weather_xy()
    assert tree.fit(X, y) is tree


def test_not_fitted():
    with pytest.raises(NotFittedError, match="not fitted yet"):
        ID3Classifier().predict([["a"]])
    with pytest.raises(NotFittedError):
        ID3Classifier().get_depth()


@pytest.mark.parametrize("params, message", [
    ({"max_depth": 0}, (r"'max_depth' parameter must be an int in the range "
                        r"\[1, inf\) or None. Got 0 instead")),
    ({"max_depth": 1.5}, r"'max_depth' parameter must be an int in the range \[1, inf\) or None"),
    ({"min_impurity_decrease": -0.1}, (r"'min_impurity_decrease' parameter must be a "
                                       r"finite float in the range \[0.0, inf\)")),
    ({"min_impurity_decrease": "big"}, "'min_impurity_decrease' parameter must be a finite float"),
])
def test_invalid_parameters(params, message):
    X, y = weather_xy()
    with pytest.raises(InvalidParameterError, match=message):
        ID3Classifier(**params).fit(X, y)


def test_bad_input():
    X, y = weather_xy()
    with pytest.raises(ValueError, match="X has 14 samples but y has 13"):
        ID3Classifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="got a 1-D array"):
        ID3Classifier().fit(X["outlook"], y)
    with pytest.raises(ValueError, match="X is empty"):
        ID3Classifier().fit(np.empty((0, 2)), [])
    with pytest.raises(ValueError, match="missing value.*does not handle missing values"):
        ID3Classifier().fit(X.mask(X == "hot"), y)
    with pytest.raises(ValueError, match="y has missing values"):
        ID3Classifier().fit(X, y.mask(y == "no"))
    tree = ID3Classifier().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but ID3Classifier is expecting 4 features"):
        tree.predict(X.iloc[:, :3])
    with pytest.raises(ValueError, match="feature names of X"):
        tree.predict(X[["temperature", "outlook", "humidity", "windy"]])


def test_inputs_are_not_modified():
    X, y = weather_xy()
    X_before, y_before = X.copy(), y.copy()
    weight = np.ones(14)
    tree = ID3Classifier().fit(X, y, sample_weight=weight)
    tree.predict(X)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)
    np.testing.assert_array_equal(weight, np.ones(14))


categorical_data = st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.sampled_from("abc"), min_size=3, max_size=3), min_size=n, max_size=n),
    st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(categorical_data)
def test_properties_on_random_categorical_data(data):
    X, y = data
    tree = ID3Classifier().fit(X, y)
    proba = tree.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    for node in iter_nodes(tree.root_):
        if np.count_nonzero(node.value) <= 1:
            assert node.is_leaf  # a pure node is never split
        if not node.is_leaf:
            assert node.gain >= -1e-12
    # Training error is 0 unless two identical rows have different classes.
    rows = {}
    for row, label in zip(map(tuple, X), y):
        rows.setdefault(row, set()).add(label)
    if all(len(labels) == 1 for labels in rows.values()):
        assert tree.score(X, y) == 1.0
    # Permuting the rows changes no prediction.
    order = np.random.default_rng(0).permutation(len(y))
    permuted = ID3Classifier().fit([X[i] for i in order], [y[i] for i in order])
    np.testing.assert_allclose(permuted.predict_proba(X), proba)
