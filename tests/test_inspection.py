"""dtree.inspection, dtree.pruning.distinct_alphas, dtree.datasets.make_xor, dtree._book.show_source.

The helpers the chapters share: each is checked against a hand value, a
theorem (the decreases telescope to R(T)) and scikit-learn.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import tree as sk_tree
from sklearn.datasets import load_breast_cancer

import dtree
from dtree._book import show_source, source_without_docstring
from dtree.datasets import load_weather, make_xor
from dtree.inspection import (
    impurity_decreases,
    leaf_impurity,
    node_depths,
    same_tree,
    weighted_impurity_decrease,
)
from dtree.pruning import distinct_alphas


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def test_hand_values():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    tree = dtree.DecisionTreeClassifier().fit(X, [0, 1, 1, 1])
    # root Gini 2 * 1/4 * 3/4 = 3/8; children pure
    np.testing.assert_allclose(weighted_impurity_decrease(tree), [0.375, 0.0, 0.0])
    assert leaf_impurity(tree) == 0.0
    stump = dtree.DecisionTreeRegressor(max_depth=1).fit(X, [0.0, 2.0, 4.0, 6.0])
    assert leaf_impurity(stump) == 1.0  # leaves {0, 2}, {4, 6}: variance 1 each
    assert weighted_impurity_decrease(stump)[0] == 4.0  # root variance 5 minus 1


def test_decreases_are_scikit_learns_importances(cancer):
    X, y = cancer
    for estimator in (
        dtree.DecisionTreeClassifier(max_depth=4).fit(X, y),
        sk_tree.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y),
    ):
        by_feature = np.bincount(
            estimator.tree_.feature[estimator.tree_.children_left >= 0],
            weights=weighted_impurity_decrease(estimator)[estimator.tree_.children_left >= 0],
            minlength=X.shape[1],
        )
        np.testing.assert_allclose(
            by_feature / by_feature.sum(), estimator.feature_importances_, rtol=1e-12
        )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(5, 60), st.sampled_from(["gini", "entropy"]))
def test_decreases_telescope_to_leaf_impurity(seed, n, criterion):
    """R(T) = i(root) - sum of the weighted decreases, for dtree's and scikit-learn's trees."""
    rng = np.random.default_rng(seed)
    X, y = rng.integers(0, 4, size=(n, 3)).astype(float), rng.integers(0, 3, size=n)
    w = rng.integers(1, 4, size=n).astype(float)
    for estimator in (
        dtree.DecisionTreeClassifier(criterion=criterion),
        sk_tree.DecisionTreeClassifier(criterion=criterion, random_state=0),
    ):
        estimator.fit(X, y, sample_weight=w)
        t = estimator.tree_
        assert leaf_impurity(t) == pytest.approx(
            t.impurity[0] - weighted_impurity_decrease(t).sum(), rel=1e-9, abs=1e-12
        )
        path = estimator.cost_complexity_pruning_path(X, y, sample_weight=w)
        assert leaf_impurity(estimator) == pytest.approx(
            path["impurities"][0], rel=1e-9, abs=1e-12
        )


def test_same_tree(cancer):
    rng = np.random.default_rng(0)
    X_normal = rng.normal(size=(200, 4))
    y_normal = (X_normal[:, 0] + X_normal[:, 1] ** 2 + rng.normal(scale=0.5, size=200) > 1).astype(
        int
    )
    ours = dtree.DecisionTreeClassifier(min_samples_leaf=8).fit(X_normal, y_normal)  # no ties here
    theirs = sk_tree.DecisionTreeClassifier(min_samples_leaf=8, random_state=0).fit(
        X_normal, y_normal
    )
    assert ours.get_n_leaves() > 5 and same_tree(ours, theirs) and same_tree(ours.tree_, theirs)
    X, y = cancer
    # at depth 2 node 4 is a tie between two features, broken differently
    assert not same_tree(
        dtree.DecisionTreeClassifier(max_depth=2).fit(X, y),
        sk_tree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y),
    )
    ours = dtree.DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert not same_tree(ours, dtree.DecisionTreeClassifier(max_depth=1).fit(X, y))
    # best-first growth numbers the nodes differently: the same tree all the same
    depth_first = dtree.DecisionTreeClassifier(max_depth=2).fit(X, y)
    best_first = dtree.DecisionTreeClassifier(max_depth=2, max_leaf_nodes=4).fit(X, y)
    assert same_tree(depth_first, best_first)
    weather = load_weather()
    id3 = dtree.ID3Classifier().fit(weather.drop(columns="play"), weather["play"])
    assert same_tree(id3, id3.root_) and not same_tree(id3, ours)
    assert not same_tree(
        id3, dtree.ID3Classifier(max_depth=1).fit(weather.drop(columns="play"), weather["play"])
    )
    with pytest.raises(TypeError, match="b must be a fitted binary tree"):
        same_tree(ours, "tree")
    with pytest.raises(TypeError, match="tree must be a fitted binary tree"):
        leaf_impurity(np.zeros(3))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(5, 60), st.sampled_from(["gini", "entropy"]))
def test_impurity_decreases_weighted_and_not(seed, n, criterion):
    """Delta R(t) = W_t / W Delta i(t); Delta i(t) >= 0 (concavity), for dtree and scikit-learn."""
    rng = np.random.default_rng(seed)
    X, y = rng.integers(0, 4, size=(n, 3)).astype(float), rng.integers(0, 3, size=n)
    w = rng.uniform(0.5, 3.0, size=n)
    for estimator in (
        dtree.DecisionTreeClassifier(criterion=criterion),
        sk_tree.DecisionTreeClassifier(criterion=criterion, random_state=0),
    ):
        t = estimator.fit(X, y, sample_weight=w).tree_
        share = t.weighted_n_node_samples / t.weighted_n_node_samples[0]
        np.testing.assert_allclose(impurity_decreases(estimator, weighted=True),
                                   share * impurity_decreases(t), rtol=1e-12, atol=1e-15)
        assert np.array_equal(impurity_decreases(t, weighted=True), weighted_impurity_decrease(t))
        assert np.all(impurity_decreases(t) >= -1e-12)
        assert np.all(impurity_decreases(t)[t.children_left < 0] == 0)
    with pytest.raises(TypeError, match="weighted must be True or False"):
        impurity_decreases(estimator, weighted="yes")


def test_node_depths():
    weather = load_weather(numeric=True)
    X, y = weather.drop(columns="play"), weather["play"]
    for estimator in (dtree.ID3Classifier().fit(load_weather().drop(columns="play"), y),
                      dtree.C45Classifier(pruning=None).fit(X, y)):
        depths = node_depths(estimator)
        nodes = list(dtree.tree.iter_nodes(estimator.root_))
        assert depths.tolist() == [n.depth for n in sorted(nodes, key=lambda n: n.node_id)]
        assert np.array_equal(node_depths(estimator.root_), depths)
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 3)), rng.integers(0, 3, size=300)
    for estimator in (
        dtree.DecisionTreeClassifier(max_depth=6).fit(X, y),
        dtree.DecisionTreeClassifier(max_leaf_nodes=20).fit(X, y),  # best first
        sk_tree.DecisionTreeClassifier(max_leaf_nodes=20, random_state=0).fit(X, y),
    ):
        t, depths = estimator.tree_, node_depths(estimator)
        assert depths.shape == (t.node_count,) and depths[0] == 0
        assert depths.max() == estimator.get_depth()
        inner = np.flatnonzero(t.children_left >= 0)
        assert np.all(depths[t.children_left[inner]] == depths[inner] + 1)
        assert np.all(depths[t.children_right[inner]] == depths[inner] + 1)
    assert node_depths(dtree.DecisionTreeClassifier().fit(X, np.zeros(300))).tolist() == [0]
    with pytest.raises(TypeError, match="tree must be a fitted"):
        node_depths("tree")


def test_same_tree_of_weighted_and_repeated_rows():
    weather = load_weather(numeric=True)
    X, y = weather.drop(columns="play"), weather["play"]
    w = np.tile([1, 2, 3], 5)[:14]
    weighted = dtree.C45Classifier(min_samples_leaf=1).fit(X, y, sample_weight=w)
    repeated = dtree.C45Classifier(min_samples_leaf=1).fit(X.loc[X.index.repeat(w)],
                                                           np.repeat(y, w))
    assert weighted.get_n_leaves() > 1
    assert not same_tree(weighted, repeated)  # the rows at the nodes differ
    assert same_tree(weighted, repeated, n_samples=False)


def test_distinct_alphas():
    np.testing.assert_array_equal(
        distinct_alphas([0.05, 0.0, 0.01, 0.01 * (1 + 1e-15)]), [0.0, 0.01, 0.05]
    )
    assert distinct_alphas([0.0, 0.01, 0.0101], rtol=0.02).tolist() == [0.0, 0.01]
    with pytest.raises(ValueError, match="rtol must be a non-negative number"):
        distinct_alphas([0.0, 1.0], rtol=-1.0)
    for bad in ([], [[0.0, 1.0]], [0.0, np.nan]):
        with pytest.raises(ValueError, match="ccp_alphas"):
            distinct_alphas(bad)


def test_make_xor():
    X, y = make_xor([3, 1, 2, 4], random_state=5)
    assert X.shape == (10, 2) and y.tolist() == [0] * 3 + [1] * 3 + [0] * 4
    high = X >= 0.5
    np.testing.assert_array_equal(y, high[:, 0] ^ high[:, 1])
    np.testing.assert_array_equal(make_xor([3, 1, 2, 4], random_state=5)[0], X)
    with pytest.raises(ValueError, match="counts must be 4 non-negative integers"):
        make_xor([1, 2, 3])
    with pytest.raises(ValueError, match="counts"):
        make_xor([1, -2, 3, 4])


def test_show_source_omits_the_docstring():
    text = source_without_docstring(impurity_decreases)
    assert text.startswith("def impurity_decreases(tree, *, weighted")
    assert "...  # docstring omitted" in text and "Examples" not in text
    assert "# (W_t i(t) - W_L i(L) - W_R i(R)) / W" in text
    assert show_source(impurity_decreases).data == text
    html = show_source(impurity_decreases)._repr_html_()
    assert 'class="highlight"' in html and '<span class="k">def</span>' in html
    # its styles are scoped to the output (no global rule restyles the page's code)
    rules = re.search(r"<style>(.*)</style>", html, flags=re.S).group(1).splitlines()
    assert rules and all(rule.startswith(".dtree-source") for rule in rules)
    assert "Traceback" not in html and "/*" not in html
    no_docstring = source_without_docstring(lambda x: x + 1)  # noqa: E731
    assert "docstring omitted" not in no_docstring
    with pytest.raises(TypeError):
        source_without_docstring(len)


def test_graphviz_rotate():
    weather = load_weather()
    tree = dtree.ID3Classifier().fit(weather.drop(columns="play"), weather["play"])
    assert "rankdir=LR" in dtree.export_graphviz(tree, rotate=True)
    assert "rankdir" not in dtree.export_graphviz(tree)
    with pytest.raises(TypeError, match="rotate must be True or False"):
        dtree.export_graphviz(tree, rotate="yes")


def test_same_tree_refuses_a_non_bool_n_samples(cancer):
    tree = dtree.DecisionTreeClassifier(max_depth=2).fit(*cancer)
    with pytest.raises(TypeError, match="n_samples must be True or False"):
        same_tree(tree, tree, n_samples="no")
