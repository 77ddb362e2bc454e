"""export_rules and tree_rules: exact text, a rule per leaf, each rule selects its leaf's rows."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtree import (DecisionTreeClassifier, DecisionTreeRegressor, ID3Classifier, NotFittedError,
                   export_rules)
from dtree.datasets import load_iris, load_weather
from dtree.export import Condition, tree_rules
from fitted_trees import MixedTree


@pytest.fixture
def weather_tree():
    weather = load_weather()
    return ID3Classifier().fit(weather.drop(columns="play"), weather["play"])


def test_weather_rules_exact(weather_tree):
    # Quinlan (1986), Figure 2: outlook; sunny -> humidity, rainy -> windy.  Counts from
    # Table 1: overcast 4 yes; rainy 3 yes (not windy) + 2 no (windy); sunny 3 no (high
    # humidity) + 2 yes (normal).  Categories in sorted order, as the branches.
    assert export_rules(weather_tree) == (
        "if outlook = overcast then class: yes (samples: 4, fraction: 1.00)\n"
        "if outlook = rainy and windy = False then class: yes (samples: 3, fraction: 1.00)\n"
        "if outlook = rainy and windy = True then class: no (samples: 2, fraction: 1.00)\n"
        "if outlook = sunny and humidity = high then class: no (samples: 3, fraction: 1.00)\n"
        "if outlook = sunny and humidity = normal then class: yes (samples: 2, fraction: 1.00)\n"
    )


def test_weather_rules_options(weather_tree):
    text = export_rules(weather_tree, class_names=["stay in", "play"], show_weights=True,
                        feature_names=["o", "t", "h", "w"], decimals=1)
    lines = text.splitlines()
    assert lines[0] == ("if o = overcast then class: play "
                        "(samples: 4, weights: [0, 4], fraction: 1.0)")
    assert lines[2] == ("if o = rainy and w = True then class: stay in "
                        "(samples: 2, weights: [2, 0], fraction: 1.0)")


def test_small_cart_classifier_exact():
    # Classes 0, 0 | 1, 1 on x = 1, 2, 3, 4: one split at the midpoint 2.5.
    tree = DecisionTreeClassifier().fit([[1.0], [2.0], [3.0], [4.0]], ["a", "a", "b", "b"])
    assert export_rules(tree) == (
        "if feature_0 <= 2.50 then class: a (samples: 2, fraction: 1.00)\n"
        "if feature_0 > 2.50 then class: b (samples: 2, fraction: 1.00)\n"
    )


def test_small_cart_regressor_exact():
    # y = 1, 1, 3, 5 on x = 1..4.  Sum of squared errors of the root splits: 2.5 -> 0 + 2,
    # 1.5 -> 0 + 8, 3.5 -> 24/9 + 0, so 2.5 wins; then {3, 5} splits at 3.5.
    tree = DecisionTreeRegressor().fit(pd.DataFrame({"x": [1, 2, 3, 4]}), [1.0, 1.0, 3.0, 5.0])
    assert export_rules(tree, show_weights=True) == (
        "if x <= 2.50 then value: 1.00 (samples: 2)\n"
        "if x > 2.50 and x <= 3.50 then value: 3.00 (samples: 1)\n"
        "if x > 2.50 and x > 3.50 then value: 5.00 (samples: 1)\n"
    )


def test_iris_depth_two_matches_export_text():
    iris = load_iris()
    tree = DecisionTreeClassifier(max_depth=2).fit(iris.drop(columns="species"), iris["species"])
    # 49 of 54 versicolor and 45 of 46 virginica: fractions 0.907 and 0.978.
    assert export_rules(tree, show_weights=True) == (
        "if petal_length <= 2.45 then class: setosa "
        "(samples: 50, weights: [50, 0, 0], fraction: 1.00)\n"
        "if petal_length > 2.45 and petal_width <= 1.75 then class: versicolor "
        "(samples: 54, weights: [0, 49, 5], fraction: 0.91)\n"
        "if petal_length > 2.45 and petal_width > 1.75 then class: virginica "
        "(samples: 46, weights: [0, 1, 45], fraction: 0.98)\n"
    )


def test_one_rule_per_leaf_in_preorder(weather_tree):
    iris = load_iris()
    X, y = iris.drop(columns="species"), iris["species"]
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    for tree in (weather_tree, cart):
        rules = tree_rules(tree)
        assert len(rules) == tree.get_n_leaves() == len(export_rules(tree).splitlines())
        ids = [rule.leaf.node_id for rule in rules]
        assert ids == sorted(ids) and all(rule.leaf.is_leaf for rule in rules)
        assert [len(rule.conditions) for rule in rules] == [rule.leaf.depth for rule in rules]


def test_tree_rules_structure(weather_tree):
    rules = tree_rules(weather_tree)
    assert rules[1].conditions == (Condition(0, "=", "rainy"), Condition(3, "=", False))
    assert rules[1].leaf.n_samples == 3


def test_single_leaf():
    tree = ID3Classifier().fit([["a"]], ["yes"])
    assert export_rules(tree) == "if True then class: yes (samples: 1, fraction: 1.00)\n"


def test_bad_input(weather_tree):
    with pytest.raises(NotFittedError):
        export_rules(ID3Classifier())
    with pytest.raises(NotFittedError):
        export_rules(DecisionTreeClassifier())
    with pytest.raises(ValueError, match="feature_names must have 4 entries"):
        export_rules(weather_tree, feature_names=["a"])
    with pytest.raises(ValueError, match="class_names must have 2 entries"):
        export_rules(weather_tree, class_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="decimals must be an int >= 0, got -1"):
        export_rules(weather_tree, decimals=-1)


def test_mixed_multiway_and_binary_tree():
    assert export_rules(MixedTree(), show_weights=True) == (
        "if outlook = sunny and humidity <= 75.00 then class: yes "
        "(samples: 2, weights: [0.00, 2.40], fraction: 1.00)\n"
        "if outlook = sunny and humidity > 75.00 then class: no "
        "(samples: 3, weights: [3.00, 0.60], fraction: 0.83)\n"
        "if outlook = overcast then class: yes (samples: 4, weights: [0, 4], fraction: 1.00)\n"
    )


def _covered(rule, X):
    """Rows of X (as CART sees them: float32, compared in float64) that satisfy every condition."""
    X = np.asarray(X, dtype=np.float32).astype(np.float64)
    mask = np.ones(X.shape[0], dtype=bool)
    for c in rule.conditions:
        column = X[:, c.feature]
        mask &= column <= c.value if c.operator == "<=" else column > c.value
    return mask


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_samples=st.integers(2, 40), n_features=st.integers(1, 3),
       regression=st.booleans(), max_depth=st.one_of(st.none(), st.integers(1, 4)))
def test_rules_select_the_rows_of_their_leaf(data, n_samples, n_features, regression, max_depth):
    values = st.integers(-20, 20).map(lambda v: v / 4)  # exact in float32, with ties
    X = np.array(data.draw(st.lists(st.lists(values, min_size=n_features, max_size=n_features),
                                    min_size=n_samples, max_size=n_samples)))
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n_samples, max_size=n_samples)))
    Estimator = DecisionTreeRegressor if regression else DecisionTreeClassifier
    tree = Estimator(max_depth=max_depth, random_state=0).fit(X, y)
    leaf_of_row = tree.apply(X)
    rules = tree_rules(tree)
    assert len(rules) == tree.get_n_leaves()
    covered_once = np.zeros(n_samples, dtype=int)
    for rule in rules:
        mask = _covered(rule, X)
        np.testing.assert_array_equal(mask, leaf_of_row == rule.leaf.node_id)
        assert mask.sum() == rule.leaf.n_samples
        covered_once += mask
    assert np.all(covered_once == 1)  # the rules partition the training set


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n_samples=st.integers(1, 30), n_features=st.integers(1, 3))
def test_id3_rules_select_the_rows_of_their_leaf(data, n_samples, n_features):
    values = st.sampled_from(["a", "b", "c"])
    X = pd.DataFrame(data.draw(st.lists(st.lists(values, min_size=n_features,
                                                 max_size=n_features),
                                        min_size=n_samples, max_size=n_samples)))
    y = np.array(data.draw(st.lists(st.sampled_from(["p", "q"]), min_size=n_samples,
                                    max_size=n_samples)))
    tree = ID3Classifier().fit(X, y)
    covered_once = np.zeros(n_samples, dtype=int)
    for rule in tree_rules(tree):
        mask = np.ones(n_samples, dtype=bool)
        for c in rule.conditions:
            assert c.operator == "="
            mask &= X.iloc[:, c.feature].to_numpy() == c.value
        assert mask.sum() == rule.leaf.n_samples
        np.testing.assert_array_equal(np.bincount(np.searchsorted(tree.classes_, y[mask]),
                                                  minlength=tree.n_classes_), rule.leaf.value)
        covered_once += mask
    assert np.all(covered_once == 1)
