"""C45Classifier and dtree.pessimistic: textbook numbers, properties, bad input."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtree import C45Classifier, ID3Classifier, NotFittedError, export_text
from dtree.c45 import TEXTBOOK, nominal_split, threshold_split
from dtree.datasets import load_animals, load_weather
from dtree.exceptions import InvalidParameterError
from dtree.inspection import same_tree
from dtree.pessimistic import confidence_prune, pessimistic_prune, upper_error_rate
from dtree.tree import Node, iter_nodes


def weather(numeric=True):
    data = load_weather(numeric=numeric)
    return data.drop(columns="play"), data["play"]


def weather_with_missing_outlook():
    """Quinlan (1993), ch. 3: day 12 (overcast, 72, 90, windy, play) loses its outlook."""
    X, y = weather()
    X = X.astype({"outlook": object})
    assert tuple(X.loc[12]) == ("overcast", 72, 90, True)
    X.loc[12, "outlook"] = None
    return X, y


# --- textbook numbers ----------------------------------------------------------

def test_gain_ratio_of_outlook_on_the_weather_data():
    X, y = weather(numeric=False)
    tree = C45Classifier(pruning=None).fit(X, y)
    scores = tree.root_.candidate_scores
    outlook = list(X.columns).index("outlook")
    assert tree.root_.feature == outlook
    assert scores[outlook].gain == pytest.approx(0.2467, abs=1e-4)
    assert scores[outlook].split_information == pytest.approx(1.5774, abs=1e-4)
    assert scores[outlook].gain_ratio == pytest.approx(0.1564, abs=1e-4)
    assert tree.root_.gain == pytest.approx(scores[outlook].gain_ratio)


def test_quinlans_tree_on_the_numeric_weather_data():
    X, y = weather()
    text = export_text(C45Classifier(threshold="training_value", pruning=None).fit(X, y))
    assert "humidity <= 75.00" in text and "windy = True" in text
    midpoint = C45Classifier(pruning=None, threshold="midpoint").fit(X, y)
    sunny = midpoint.root_.children[midpoint.root_.categories.index("sunny")]
    assert sunny.threshold == 77.5  # midpoint of 70 and 85
    assert midpoint.score(X, y) == 1.0


def test_average_gain_rule_keeps_a_tiny_split_out():
    """A feature true on one 'no' day has small gain but tiny split information."""
    X, y = weather(numeric=False)
    X["rare"] = np.where(np.arange(14) == 0, "b", "a")
    tree = C45Classifier(pruning=None, min_samples_leaf=1).fit(X, y)
    scores = tree.root_.candidate_scores
    rare, outlook = list(X.columns).index("rare"), list(X.columns).index("outlook")
    average = np.mean([s.gain for s in scores.values()])
    assert scores[rare].gain_ratio == max(s.gain_ratio for s in scores.values())
    assert scores[rare].gain < average
    assert tree.root_.feature == outlook


def test_gain_ratio_still_takes_an_id_column_on_14_rows():
    """Gain 0.940 / SplitInfo log2(14) = 0.247 beats outlook's 0.156: the average rule admits it."""
    X, y = weather(numeric=False)
    X["day"] = np.arange(14).astype(str)
    tree = C45Classifier(pruning=None, min_samples_leaf=1).fit(X, y)
    day = list(X.columns).index("day")
    assert tree.root_.feature == day
    assert tree.root_.gain == pytest.approx(0.9403 / np.log2(14), abs=1e-4)
    # with C4.5's default of two cases per branch the ID column cannot split at all
    assert day not in C45Classifier(pruning=None).fit(X, y).root_.candidate_scores


def test_unknown_outlook_is_scored_as_in_quinlans_book():
    """Gain = 13/14 (0.961 - 0.747) = 0.199; split info (unknowns as a group) = 1.809."""
    X, y = weather_with_missing_outlook()
    split = C45Classifier(pruning=None).fit(X, y).root_.candidate_scores[0]
    assert split.gain == pytest.approx(0.199, abs=5e-4)
    assert split.split_information == pytest.approx(1.809, abs=5e-4)


def test_fractional_weights_follow_quinlans_example():
    """With outlook at the root, the unknown case goes to every branch with weight 5/13, 3/13, 5/13."""
    X, y = weather_with_missing_outlook()
    tree = C45Classifier(criterion="gain", threshold="training_value", pruning=None).fit(X, y)
    root = tree.root_
    assert root.feature == 0 and root.categories == ("overcast", "rainy", "sunny")
    overcast, rainy, sunny = root.children
    np.testing.assert_allclose(overcast.value, [0, 3 + 3 / 13])
    np.testing.assert_allclose(sunny.value, [3, 2 + 5 / 13])
    low, high = sunny.children
    assert sunny.threshold == 75
    np.testing.assert_allclose(low.value, [0, 2])                  # "Play (2.0)"
    np.testing.assert_allclose(high.value, [3, 5 / 13])            # "Don't Play (3.4/0.4)"
    windy_true = rainy.children[rainy.categories.index(True)]
    np.testing.assert_allclose(windy_true.value, [2, 5 / 13])      # "Don't Play (2.4/0.4)"
    # A sunny day with unknown humidity: P(play) = (2.0 + 0.4) / 5.4
    query = pd.DataFrame([{"outlook": "sunny", "temperature": 70, "humidity": np.nan,
                           "windy": False}])
    proba = tree.predict_proba(query)[0]
    assert proba[1] == pytest.approx((2 + 5 / 13) / (5 + 5 / 13))
    assert tree.predict(query)[0] == "no"


def test_upper_error_rate_matches_quinlans_table_and_binomial_definition():
    from scipy.stats import binom

    assert upper_error_rate(0, 6) == pytest.approx(0.206, abs=5e-4)
    assert upper_error_rate(0, 9) == pytest.approx(0.143, abs=5e-4)
    assert upper_error_rate(0, 1) == pytest.approx(0.750, abs=5e-4)
    for e, n in [(1, 16), (3, 20), (7, 50)]:
        p = upper_error_rate(e, n, 0.25)
        assert binom.cdf(e, n, p) == pytest.approx(0.25, abs=1e-9)
    assert upper_error_rate(5, 5) == 1.0


def test_confidence_pruning_of_quinlans_example():
    leaves = [Node(node_id=i, depth=1, n_samples=n, value=np.array(v, dtype=float), impurity=0)
              for i, (n, v) in enumerate([(6, [6, 0]), (9, [9, 0]), (1, [0, 1])], start=1)]
    root = Node(node_id=0, depth=0, n_samples=16, value=np.array([15.0, 1.0]), impurity=0,
                feature=0, categories=("y", "n", "u"), children=leaves)
    pruned = confidence_prune(root)
    assert pruned.is_leaf and not root.is_leaf  # the input is not modified
    # a smaller confidence factor prunes at least as much here; a huge one keeps the subtree
    assert not confidence_prune(root, 0.99).is_leaf


def test_pessimistic_pruning_rule_by_hand():
    def tree(errors_left, errors_right):
        left = Node(node_id=1, depth=1, n_samples=10, value=np.array([10.0 - errors_left, errors_left]),
                    impurity=0)
        right = Node(node_id=2, depth=1, n_samples=10,
                     value=np.array([errors_right, 10.0 - errors_right]), impurity=0)
        return Node(node_id=0, depth=0, n_samples=20, value=left.value + right.value, impurity=0,
                    feature=0, threshold=0.5, children=[left, right])

    # leaves 1 and 4 errors: E'(T) = 6, SE = sqrt(6*14/20) = 2.05; as a leaf 7 + 0.5 <= 8.05
    assert pessimistic_prune(tree(1, 4)).is_leaf
    # leaves 0 and 1 errors: E'(T) = 2, SE = sqrt(2*18/20) = 1.34; as a leaf 9 + 0.5 > 3.34
    assert not pessimistic_prune(tree(0, 1)).is_leaf


# --- behaviour -----------------------------------------------------------------

def test_c45_with_gain_on_nominal_data_grows_id3s_tree():
    for data in (load_weather(), load_animals()):
        target = data.columns[-1]
        X, y = data.drop(columns=target), data[target]
        c45 = C45Classifier(criterion="gain", pruning=None, min_samples_leaf=0).fit(X, y)
        assert export_text(c45) == export_text(ID3Classifier().fit(X, y))


def test_pruning_options_and_unpruned_tree():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    trees = {p: C45Classifier(pruning=p).fit(X, y) for p in (None, "pessimistic", "confidence")}
    full = trees[None].get_n_leaves()
    assert trees["confidence"].get_n_leaves() < full
    assert trees["pessimistic"].get_n_leaves() < full
    assert trees["confidence"].unpruned_root_ is not trees["confidence"].root_
    ids = [node.node_id for node in iter_nodes(trees["confidence"].root_)]
    assert ids == list(range(len(ids)))


def test_threshold_options_agree_on_training_rows():
    X, y = weather()
    a = C45Classifier(pruning=None).fit(X, y)
    b = C45Classifier(pruning=None, threshold="training_value").fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_unseen_category_stops_at_the_node():
    """Release 8 classifies it by the node's majority class (an empty leaf); the textbook by its distribution."""
    X, y = weather()
    query = X.iloc[[0]].astype({"outlook": object})
    query.iloc[0, 0] = "foggy"
    tree = C45Classifier(pruning=None).fit(X, y)
    np.testing.assert_array_equal(tree.predict_proba(query)[0], [0.0, 1.0])  # 9 yes / 5 no at the root
    textbook = C45Classifier(pruning=None, empty_branch="distribution").fit(X, y)
    np.testing.assert_allclose(textbook.predict_proba(query)[0], textbook.root_.proba)


def test_missing_value_at_predict_mixes_the_branches():
    X, y = weather()
    tree = C45Classifier(pruning=None).fit(X, y)
    query = X.iloc[[0]].astype({"outlook": object})
    query.iloc[0, 0] = None
    expected = sum(child.value.sum() / tree.root_.value.sum()
                   * tree.predict_proba(query.assign(outlook=c))[0]
                   for c, child in zip(tree.root_.categories, tree.root_.children))
    np.testing.assert_allclose(tree.predict_proba(query)[0], expected)


def test_categorical_features_spec():
    X, y = weather()
    as_names = C45Classifier(categorical_features=["outlook", "windy"]).fit(X, y)
    as_mask = C45Classifier(categorical_features=[True, False, False, True]).fit(X, y)
    auto = C45Classifier().fit(X, y)
    for tree in (as_names, as_mask):
        np.testing.assert_array_equal(tree.is_categorical_, auto.is_categorical_)
    # numbers treated as categories: multiway on temperature values
    every = C45Classifier(categorical_features=[0, 1, 2, 3], pruning=None).fit(X, y)
    assert all(node.threshold is None for node in iter_nodes(every.root_))


def test_inputs_are_not_modified():
    X, y = weather_with_missing_outlook()
    w = np.linspace(1, 2, 14)
    X0, y0, w0 = X.copy(), y.copy(), w.copy()
    C45Classifier().fit(X, y, sample_weight=w).predict(X)
    pd.testing.assert_frame_equal(X, X0)
    pd.testing.assert_series_equal(y, y0)
    np.testing.assert_array_equal(w, w0)


# --- properties ------------------------------------------------------------------

def small_data():
    return st.integers(0, 10_000).map(_random_data)


def _random_data(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    X = pd.DataFrame({
        "a": rng.normal(size=n).round(1),
        "b": rng.choice(["u", "v", "w"], size=n).astype(object),
        "c": rng.integers(0, 5, size=n).astype(float),
    })
    X.loc[rng.random(n) < 0.2, "a"] = np.nan
    X.loc[rng.random(n) < 0.2, "b"] = None
    y = rng.choice(["p", "q", "r"], size=n)
    return X, y, rng


@settings(max_examples=40, deadline=None)
@given(small_data())
def test_proba_rows_sum_to_one_and_pure_nodes_stay_leaves(data):
    X, y, _ = data
    tree = C45Classifier(pruning=None, min_samples_leaf=1).fit(X, y)
    np.testing.assert_allclose(tree.predict_proba(X).sum(axis=1), 1.0)
    for node in iter_nodes(tree.root_):
        if np.count_nonzero(node.value > 1e-12) <= 1:
            assert node.is_leaf


@settings(max_examples=30, deadline=None)
@given(small_data())
def test_integer_weights_equal_repeated_rows(data):
    X, y, rng = data
    w = rng.integers(1, 4, size=len(y))
    weighted = C45Classifier(min_samples_leaf=1).fit(X, y, sample_weight=w)
    repeated = C45Classifier(min_samples_leaf=1).fit(X.loc[X.index.repeat(w)], np.repeat(y, w))
    assert same_tree(weighted, repeated, n_samples=False)  # the same weights, not rows


@settings(max_examples=30, deadline=None)
@given(small_data())
def test_row_order_and_positive_scaling_change_nothing(data):
    X, y, rng = data
    base = C45Classifier(pruning="pessimistic").fit(X, y)
    perm = rng.permutation(len(y))
    permuted = C45Classifier(pruning="pessimistic").fit(X.iloc[perm], y[perm])
    np.testing.assert_allclose(permuted.predict_proba(X), base.predict_proba(X), atol=1e-12)
    scaled_X = X.assign(a=X["a"] * 3.5)
    scaled = C45Classifier(pruning="pessimistic").fit(scaled_X, y)
    np.testing.assert_array_equal(scaled.predict(scaled_X), base.predict(X))


@settings(max_examples=30, deadline=None)
@given(small_data(), st.sampled_from(["pessimistic", "confidence"]))
def test_pruned_tree_is_a_pruned_subtree(data, pruning):
    """Without subtree raising, pruning only cuts; with it, it never adds a leaf."""
    X, y, _ = data
    raised = C45Classifier(pruning=pruning, min_samples_leaf=1).fit(X, y)
    assert raised.get_n_leaves() <= sum(n.is_leaf for n in iter_nodes(raised.unpruned_root_))
    tree = C45Classifier(pruning=pruning, min_samples_leaf=1, subtree_raising=False).fit(X, y)

    def paths(root):
        out, stack = set(), [(root, ())]
        while stack:
            node, path = stack.pop()
            out.add((path, node.feature))
            stack.extend((c, path + (i,)) for i, c in enumerate(node.children))
        return out

    pruned, full = paths(tree.root_), paths(tree.unpruned_root_)
    full_paths = {p for p, _ in full}
    assert {p for p, _ in pruned} <= full_paths
    assert tree.get_n_leaves() <= sum(n.is_leaf for n in iter_nodes(tree.unpruned_root_))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 100), st.integers(1, 100), st.floats(0.01, 0.5))
def test_upper_error_rate_is_a_binomial_bound(errors, extra, cf):
    from scipy.stats import binom

    n = errors + extra
    p = upper_error_rate(errors, n, cf)
    assert errors / n <= p <= 1
    assert binom.cdf(errors, n, p) == pytest.approx(cf, abs=1e-7)


def test_split_functions_on_tiny_inputs():
    assert threshold_split(np.array([1.0, 1.0]), np.array([0, 1]), np.ones(2), 2, 1) is None
    assert nominal_split(np.array([0, 0, 1]), np.array([0, 1, 1]), np.ones(3), 2, 2, 2) is None
    s = threshold_split(np.array([1.0, np.nan, 2.0]), np.array([0, 1, 1]), np.ones(3), 2, 1)
    assert s.gain == pytest.approx(2 / 3 * 1.0) and s.threshold == 1.5


# --- bad input --------------------------------------------------------------------

def test_not_fitted():
    with pytest.raises(NotFittedError):
        C45Classifier().predict([[1.0]])


@pytest.mark.parametrize("params, match", [
    ({"criterion": "gini"}, "criterion"),
    ({"threshold": "mean"}, "threshold"),
    ({"pruning": "mccp"}, "pruning"),
    ({"confidence_factor": 1.5}, "confidence_factor"),
    ({"confidence_factor": 0.0}, "confidence_factor"),
    ({"min_samples_leaf": -1}, "min_samples_leaf"),
    ({"max_depth": 1.5}, "max_depth"),
    ({"categorical_features": ["nope"]}, "categorical_features"),
    ({"categorical_features": [True, False]}, "categorical_features"),
    ({"categorical_features": [7]}, "categorical_features"),
])
def test_invalid_parameters(params, match):
    X, y = weather()
    with pytest.raises(InvalidParameterError, match=match):
        C45Classifier(**params).fit(X, y)


def test_bad_data():
    X, y = weather()
    tree = C45Classifier().fit(X, y)
    with pytest.raises(ValueError, match="inf"):
        C45Classifier().fit(X.assign(humidity=X["humidity"] * np.inf), y)
    with pytest.raises(ValueError, match="non-number"):
        tree.predict(X.astype({"humidity": object}).assign(humidity="high"))
    with pytest.raises(ValueError, match="features"):
        tree.predict(X.iloc[:, :3])
    with pytest.raises(ValueError, match="feature names"):
        tree.predict(X.rename(columns={"windy": "wind"}))
    with pytest.raises(ValueError, match="empty"):
        C45Classifier().fit(X.iloc[:0], y.iloc[:0])
    with pytest.raises(ValueError, match="sample_weight"):
        C45Classifier().fit(X, y, sample_weight=-np.ones(14))
    with pytest.raises(ValueError, match="y has"):
        C45Classifier().fit(X, y.iloc[:3])


def test_single_class_gives_one_leaf():
    X, _ = weather()
    tree = C45Classifier().fit(X, ["yes"] * 14)
    assert tree.get_n_leaves() == 1 and tree.get_depth() == 0
    assert (tree.predict(X) == "yes").all()


def test_zero_weight_is_a_deleted_case_also_for_training_value_thresholds():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [10.0], [11.0], [12.0], [13.0], [7.0]])
    y = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    tree = C45Classifier(threshold="training_value", pruning=None)
    weighted = tree.fit(X, y, sample_weight=[1] * 8 + [0]).root_.threshold
    assert weighted == tree.fit(X[:8], y[:8]).root_.threshold == 4.0


def test_zero_weight_is_a_deleted_case_for_the_many_valued_rule():
    """A row of weight 0 with a value of its own does not make a feature many-valued.

    Release 8 leaves nominal features with at least 0.3 x (cases) values out of
    the average gain; ten cases and two values of A are below it, and a third
    value carried only by a row of weight 0 must not tip it.
    """
    X = pd.DataFrame({"A": list("pqpqpqpqpq") + ["r"], "B": list("xxxxxyyyyy") + ["x"]})
    y = list("aabababbbb") + ["a"]
    weights = [1.0] * 10 + [0.0]
    tree = C45Classifier(pruning=None)
    weighted = tree.fit(X, y, sample_weight=weights)
    assert not weighted._left_out_of_average.any()
    deleted = C45Classifier(pruning=None).fit(X.iloc[:10], y[:10])
    assert not deleted._left_out_of_average.any()
    assert weighted.root_.feature == deleted.root_.feature


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False), st.integers(1, 3))
def test_adjacent_values_are_split(a, ulps):
    """Two distinct values, however close, are told apart by one cut that separates them.

    The midpoint of adjacent floats rounds onto the upper value (and would send
    every row left, a split that splits nothing, forever); C4.5 then cuts at the
    lower value, as scikit-learn does.  (Release 8 treats values closer than
    ``min_value_gap`` = 1e-5 as equal; with the gap 0 every distinct pair is cut.)
    """
    b = a
    for _ in range(ulps):
        b = np.nextafter(b, np.inf)
    X = np.array([[a], [b]] * 5)
    tree = C45Classifier(**TEXTBOOK).fit(X, [0, 1] * 5)
    assert tree.get_depth() == 1 and tree.score(X, [0, 1] * 5) == 1.0
    assert a <= tree.root_.threshold < b


@pytest.mark.parametrize("low", [2**53, 2**53 + 2])
def test_integers_near_two_to_the_53_are_split(low):
    """(2**53 + 2 + 2**53 + 4) / 2 rounds up to 2**53 + 4 (ties to even)."""
    X = np.array([[low], [low + 2]] * 10, dtype=np.int64)
    tree = C45Classifier().fit(X, [0, 1] * 10)
    assert tree.get_depth() == 1 and tree.score(X, [0, 1] * 10) == 1.0
