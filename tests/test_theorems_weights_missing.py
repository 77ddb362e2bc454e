"""Chapter "Weighted samples and missing values": its theorems as properties of dtree.

Each test names, in its docstring, the label of the statement it checks.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkDecisionTreeClassifier
from sklearn.utils.class_weight import compute_sample_weight

from dtree import DecisionTreeClassifier, ID3Classifier
from dtree.datasets import load_weather
from dtree.information import (
    entropy_from_labels,
    gain_with_missing_values,
    information_gain,
    information_gain_from_labels,
    split_information_from_labels,
)
from dtree.inspection import same_tree
from dtree.tree import iter_nodes

TOL = 1e-12


@st.composite
def labelled_columns(draw, max_values=4, max_classes=4, max_size=25):
    """A categorical feature column x and class labels y of the same length."""
    n = draw(st.integers(1, max_size))
    x = draw(st.lists(st.integers(0, max_values - 1), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, max_classes - 1), min_size=n, max_size=n))
    return np.array(x), np.array(y)


@st.composite
def columns_with_integer_weights(draw):
    x, y = draw(labelled_columns())
    w = draw(st.lists(st.integers(0, 6), min_size=len(x), max_size=len(x)))
    assume(sum(w) > 0)
    return x, y, np.array(w)


positive_weights = st.floats(0.01, 100.0, allow_nan=False, allow_infinity=False)


@st.composite
def columns_with_real_weights(draw, allow_zero=True):
    x, y = draw(labelled_columns())
    element = st.one_of(st.just(0.0), positive_weights) if allow_zero else positive_weights
    w = np.array(draw(st.lists(element, min_size=len(x), max_size=len(x))))
    assume(w.sum() > 0)
    return x, y, w


# --------------------------------------------------------------------------
# thm-weights-replication
# --------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(columns_with_integer_weights())
def test_integer_weights_are_replication(data):
    """thm-weights-replication (1): with whole-number weights, the weighted entropy and
    gain equal the unweighted ones of the data set with sample i repeated w_i times."""
    x, y, w = data
    xr, yr = np.repeat(x, w), np.repeat(y, w)
    assert abs(information_gain_from_labels(x, y, sample_weight=w)
               - information_gain_from_labels(xr, yr)) < TOL
    assert abs(entropy_from_labels(y, sample_weight=w) - entropy_from_labels(yr)) < TOL


@settings(max_examples=50, deadline=None)
@given(columns_with_real_weights(), st.floats(1e-3, 1e3))
def test_scaling_weights_changes_nothing(data, c):
    """thm-weights-replication (2): weights c * w give the entropy and gain of w, c > 0."""
    x, y, w = data
    assert abs(information_gain_from_labels(x, y, sample_weight=c * w)
               - information_gain_from_labels(x, y, sample_weight=w)) < TOL
    assert abs(entropy_from_labels(y, sample_weight=c * w)
               - entropy_from_labels(y, sample_weight=w)) < TOL


def test_weights_matter_when_not_uniform():
    """thm-weights-replication: non-uniform weights do change the gain (the tests above can fail)."""
    weather = load_weather()
    windy_twice = np.where(weather["windy"], 2.0, 1.0)
    plain = information_gain_from_labels(weather["outlook"], weather["play"])
    weighted = information_gain_from_labels(weather["outlook"], weather["play"], sample_weight=windy_twice)
    assert abs(plain - weighted) > 1e-3


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.05, 20.0), min_size=14, max_size=14), st.floats(1e-2, 1e2),
       st.floats(0.0, 0.4))
def test_id3_tree_is_scale_invariant(weights, c, threshold):
    """thm-weights-replication (2) and def-weights-relative-gain: ID3 grows the same tree
    from weights w and c * w, for any min_impurity_decrease."""
    weather = load_weather()
    X, y = weather.drop(columns="play"), weather["play"]
    w = np.array(weights)

    def shape(tree):
        return [(n.depth, n.feature, n.categories) for n in iter_nodes(tree.root_)]

    first = ID3Classifier(min_impurity_decrease=threshold).fit(X, y, sample_weight=w)
    scaled = ID3Classifier(min_impurity_decrease=threshold).fit(X, y, sample_weight=c * w)
    # A threshold within rounding of a relative gain could go either way; skip such draws.
    relative = [n.weighted_n_samples / first.root_.weighted_n_samples * n.gain
                for n in iter_nodes(first.root_) if not n.is_leaf] + [
                n.weighted_n_samples / first.root_.weighted_n_samples * g
                for n in iter_nodes(first.root_) for g in n.candidate_scores.values()]
    assume(all(abs(r - threshold) > 1e-9 for r in relative))
    assert shape(first) == shape(scaled)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=14, max_size=14))
def test_id3_tree_of_integer_weights_is_the_tree_of_copies(counts):
    """thm-weights-replication (1), for the whole tree: ID3 fitted with whole-number
    weights (some 0: "the same as deleting it") predicts what ID3 fitted on the
    copies predicts, on every row of the weather data, and never NaN."""
    assume(sum(counts) > 0)
    weather = load_weather()
    X, y = weather.drop(columns="play"), weather["play"]
    w = np.array(counts)
    copies = np.repeat(np.arange(len(w)), w)
    assume(y.iloc[copies].nunique() == y.nunique())   # the same classes_ in both fits
    weighted = ID3Classifier().fit(X, y, sample_weight=w)
    replicated = ID3Classifier().fit(X.iloc[copies], y.iloc[copies])
    proba = weighted.predict_proba(X)
    assert not np.isnan(proba).any()
    np.testing.assert_allclose(proba, replicated.predict_proba(X), rtol=0, atol=TOL)


# --------------------------------------------------------------------------
# prop-weights-tree-impurity
# --------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.0, 10.0), min_size=14, max_size=14))
def test_relative_gains_add_up_to_the_tree_reduction(weights):
    """prop-weights-tree-impurity (2): H_w(D) - R(T) = sum of the weighted decreases Delta R(t) = W_t/W Gain."""
    w = np.array(weights)
    assume(w.sum() > 0.1)
    weather = load_weather()
    X, y = weather.drop(columns="play"), weather["play"]
    tree = ID3Classifier().fit(X, y, sample_weight=w)
    W = tree.root_.weighted_n_samples
    nodes = list(iter_nodes(tree.root_))
    leaf_entropy = sum(n.weighted_n_samples / W * n.impurity for n in nodes if n.is_leaf)
    relative = sum(n.weighted_n_samples / W * n.gain for n in nodes if not n.is_leaf)
    assert abs(entropy_from_labels(y, sample_weight=w) - leaf_entropy - relative) < 1e-10


# --------------------------------------------------------------------------
# class_weight arithmetic (prop-weights-balanced)
# --------------------------------------------------------------------------

@st.composite
def labels_and_weights(draw):
    """A feature column X of shape (n, 1), labels y and positive sample weights w."""
    n = draw(st.integers(1, 40))
    X = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), float)[:, None]
    y = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(positive_weights, min_size=n, max_size=n)))
    return X, y, w


def assert_grown_on(tree, X, y, effective):
    """A fitted dtree classifier is the tree of the sample weights ``effective``: its root's
    weight and class fractions, every leaf's weight, and the whole tree are those of the tree
    fitted with ``sample_weight=effective`` and no class weight."""
    t = tree.tree_
    W = effective.sum()
    assert t.weighted_n_node_samples[0] == pytest.approx(W, rel=1e-12)
    totals = np.array([effective[y == k].sum() for k in tree.classes_])
    assert np.allclose(t.value[0, 0], totals / W, rtol=1e-12, atol=1e-15)
    leaf = tree.apply(X)
    for node in np.unique(leaf):
        assert t.weighted_n_node_samples[node] == pytest.approx(effective[leaf == node].sum(),
                                                                rel=1e-12)
    assert same_tree(tree, DecisionTreeClassifier().fit(X, y, sample_weight=effective))


def assert_root_as_scikit_learn(tree, X, y, w, class_weight):
    """scikit-learn's tree with the same class_weight has the same root weight and fractions."""
    theirs = SkDecisionTreeClassifier(class_weight=class_weight, random_state=0)
    theirs = theirs.fit(X, y, sample_weight=w).tree_
    assert tree.tree_.weighted_n_node_samples[0] == pytest.approx(
        theirs.weighted_n_node_samples[0], rel=1e-12)
    assert np.allclose(tree.tree_.value[0], theirs.value[0], rtol=1e-12, atol=1e-15)


@settings(max_examples=50, deadline=None)
@given(labels_and_weights(), st.data())
def test_class_weight_dict_multiplies_sample_weights(data, draw):
    """eq-weights-class-weight: dtree's tree with a dict class_weight is grown on the weights
    w_i * omega_{y_i} (classes missing from the dict weigh 1), as scikit-learn's."""
    X, y, w = data
    present = np.unique(y)
    given_classes = draw.draw(st.lists(st.sampled_from(present.tolist()), unique=True))
    omega = {int(k): draw.draw(positive_weights) for k in given_classes}
    effective = w * np.array([omega.get(int(k), 1.0) for k in y])
    tree = DecisionTreeClassifier(class_weight=omega).fit(X, y, sample_weight=w)
    assert_grown_on(tree, X, y, effective)
    assert_root_as_scikit_learn(tree, X, y, w, omega)
    assert np.allclose(effective, w * compute_sample_weight(omega, y), rtol=TOL, atol=0)


@settings(max_examples=50, deadline=None)
@given(labels_and_weights())
def test_balanced_class_weight(data):
    """prop-weights-balanced: dtree's class_weight="balanced" is omega_k = n / (K n_k); its root's
    class totals are (n/K) times the class's mean sample weight, n/K for unit weights, where the
    root is uniform over the K classes (entropy log2 K)."""
    X, y, w = data
    classes, n_k = np.unique(y, return_counts=True)
    n, K = len(y), len(classes)
    omega = n / (K * n_k)
    effective = w * omega[np.searchsorted(classes, y)]
    tree = DecisionTreeClassifier(class_weight="balanced").fit(X, y, sample_weight=w)
    assert_grown_on(tree, X, y, effective)
    assert_root_as_scikit_learn(tree, X, y, w, "balanced")
    totals = tree.tree_.value[0, 0] * tree.tree_.weighted_n_node_samples[0]
    means = np.array([w[y == k].mean() for k in classes])
    assert np.allclose(totals, n / K * means, rtol=1e-10, atol=0)
    unit = DecisionTreeClassifier(class_weight="balanced", criterion="entropy").fit(X, y).tree_
    assert unit.weighted_n_node_samples[0] == pytest.approx(n, rel=1e-12)
    assert np.allclose(unit.value[0, 0], 1 / K, rtol=1e-10, atol=0)
    assert abs(unit.impurity[0] - math.log2(K)) < 1e-10


def test_class_weight_worked_example():
    """eq-weights-class-weight, eq-weights-balanced: the notes' example (Geng 2021, set B, Q11),
    the weights of dtree's trees."""
    X, w, y = np.array([[0.0], [1.0], [2.0]]), np.array([20.0, 30.0, 10.0]), np.array([0, 0, 1])
    for class_weight, effective in [({0: 40, 1: 60}, [800.0, 1200.0, 600.0]),
                                    ("balanced", [15.0, 22.5, 15.0])]:
        tree = DecisionTreeClassifier(class_weight=class_weight).fit(X, y, sample_weight=w)
        assert_grown_on(tree, X, y, np.array(effective))
        assert_root_as_scikit_learn(tree, X, y, w, class_weight)
        assert np.allclose(w * compute_sample_weight(class_weight, y), effective, rtol=TOL)
    # the dict's root: W = 2600, fractions (2000, 600) / 2600
    tree = DecisionTreeClassifier(class_weight={0: 40, 1: 60}).fit(X, y, sample_weight=w)
    assert tree.tree_.weighted_n_node_samples[0] == 2600.0
    assert np.allclose(tree.tree_.value[0, 0], [2000 / 2600, 600 / 2600], rtol=TOL)


# --------------------------------------------------------------------------
# thm-weights-missing-penalty and lem-weights-missing-branch
# --------------------------------------------------------------------------

@st.composite
def columns_with_missing(draw):
    x, y, w = draw(columns_with_real_weights())
    missing = np.array(draw(st.lists(st.booleans(), min_size=len(x), max_size=len(x))))
    with_gaps = x.astype(object)
    with_gaps[missing] = None
    return x, with_gaps, missing, y, w


@settings(max_examples=60, deadline=None)
@given(columns_with_missing())
def test_missing_penalty_bounds_and_definition(data):
    """thm-weights-missing-penalty (1), def-weights-missing-gain: the penalised gain is
    (1 - gamma) Gain(D~), lies in [0, Gain(D~)] and below (1 - gamma) log2 K."""
    x, with_gaps, missing, y, w = data
    penalised = gain_with_missing_values(with_gaps, y, sample_weight=w)
    gamma = w[missing].sum() / w.sum()
    if w[~missing].sum() > 0:   # gamma < 1 (tested on the weights: the ratio may round to 1 - ulp)
        known = information_gain_from_labels(x[~missing], y[~missing], sample_weight=w[~missing])
        assert abs(penalised - (1 - gamma) * known) < TOL
        assert -TOL <= penalised <= known + TOL
        assert penalised <= (1 - gamma) * math.log2(np.unique(y).size) + TOL
    else:
        assert penalised == 0.0


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(columns_with_missing())
def test_gain_ratio_with_missing_values_is_at_most_one(data):
    """rem-weights-missing-gain-ratio: with the missing part as a branch of its own,
    SplitInfo = h(gamma) + (1 - gamma) H^(A) >= (1 - gamma) H^(A) >= Gain_miss, so the
    gain ratio with unknown values is at most 1 (it would not be without 1 - gamma)."""
    x, with_gaps, missing, y, w = data
    penalised = gain_with_missing_values(with_gaps, y, sample_weight=w)
    # the missing values as one more branch (-1 is no value of x)
    branches = np.where(missing, -1, x)
    split_info = split_information_from_labels(branches, sample_weight=w)
    gamma = w[missing].sum() / w.sum()
    if w[~missing].sum() > 0:
        known_split = split_information_from_labels(x[~missing], sample_weight=w[~missing])
        h = 0.0 if gamma in (0.0, 1.0) else (
            -gamma * math.log2(gamma) - (1 - gamma) * math.log2(1 - gamma))
        assert abs(split_info - (h + (1 - gamma) * known_split)) < 1e-9
    assert penalised <= split_info + TOL
    if split_info > 1e-9:
        assert penalised / split_info <= 1 + 1e-9


@settings(max_examples=50, deadline=None)
@given(columns_with_real_weights())
def test_no_missing_values_gives_the_ordinary_gain(data):
    """thm-weights-missing-penalty (2): with gamma = 0 the penalised gain is the weighted gain."""
    x, y, w = data
    ordinary = information_gain_from_labels(x, y, sample_weight=w)
    assert abs(gain_with_missing_values(x.astype(object), y, sample_weight=w) - ordinary) < TOL
    # values missing only where the weight is 0 still give gamma = 0
    with_gaps = x.astype(object)
    with_gaps[w == 0] = None
    if (w > 0).any():
        assert abs(gain_with_missing_values(with_gaps, y, sample_weight=w) - ordinary) < TOL


@settings(max_examples=50, deadline=None)
@given(labelled_columns())
def test_all_missing_gives_zero(data):
    """thm-weights-missing-penalty (3): with every value missing (gamma = 1) the gain is 0."""
    _, y = data
    assert gain_with_missing_values([None] * len(y), y) == 0.0
    assert gain_with_missing_values(np.full(len(y), np.nan), y) == 0.0


def test_quinlan_missing_outlook_example():
    """def-weights-missing-gain: Quinlan (1993): hide day 12's outlook, 13/14 * 0.214 = 0.199."""
    weather = load_weather()
    outlook = weather["outlook"].mask(weather.index == 12)
    known = outlook.notna()
    gain_known = information_gain_from_labels(outlook[known], weather["play"][known])
    assert round(gain_known, 3) == 0.214
    assert abs(gain_with_missing_values(outlook, weather["play"]) - 13 / 14 * gain_known) < TOL
    assert round(gain_with_missing_values(outlook, weather["play"]), 3) == 0.199


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 8), min_size=3, max_size=3), min_size=1, max_size=4),
       st.floats(0.0, 0.99))
def test_penalty_is_an_uninformative_branch(rows, gamma):
    """lem-weights-missing-branch: adding an 'unknown' row with the known class proportions
    and weight share gamma gives the gain (1 - gamma) Gain(D~)."""
    known = np.array(rows, dtype=float)
    assume(known.sum() > 0)
    total = known.sum() / (1 - gamma)
    unknown = (total - known.sum()) * known.sum(axis=0) / known.sum()
    enlarged = np.vstack([known, unknown])
    assert abs(information_gain(enlarged / enlarged.sum()) - (1 - gamma) * information_gain(known)) < TOL


def test_gamma_squared_is_a_weaker_penalty():
    """eq-weights-gamma-squared: 1 - gamma^2 >= 1 - gamma on [0, 1], equal only at the ends."""
    gamma = np.linspace(0, 1, 1001)
    gap = (1 - gamma**2) - (1 - gamma)
    assert np.all(gap >= 0)
    assert np.all(gap[1:-1] > 0)
    assert gap.max() == pytest.approx(0.25, abs=1e-12)
