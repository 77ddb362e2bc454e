"""Property-based tests of the theorems of the chapter "What does a tree optimise?".

Each test names the label of the result it checks (book/part4/objective.ipynb).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.information import gini


def _data(seed, n, d, k):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float)  # few values: ties and repeated values
    y = rng.integers(0, k, size=n)
    return X, y


def _leaf_cost(tree_):
    leaves = tree_.children_left < 0
    share = tree_.weighted_n_node_samples[leaves] / tree_.weighted_n_node_samples[0]
    return float(np.sum(share * tree_.impurity[leaves]))


def _decreases(tree_):
    left, right = tree_.children_left, tree_.children_right
    inner = np.flatnonzero(left >= 0)
    w = tree_.weighted_n_node_samples / tree_.weighted_n_node_samples[0]
    i = tree_.impurity
    return w[inner] * i[inner] - w[left[inner]] * i[left[inner]] - w[right[inner]] * i[right[inner]]


def _gini_cost(counts, n):
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    return 0.0 if total == 0 else total / n * gini(counts)


def _best_cost(X, y, depth, n, n_classes):
    """Exhaustive search: smallest Gini cost over all trees of depth <= depth (midpoint thresholds)."""
    best = _gini_cost(np.bincount(y, minlength=n_classes), n)
    if depth == 0 or best == 0.0:
        return best
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for t in (values[:-1] + values[1:]) / 2:
            go = X[:, j] <= t
            best = min(best, _best_cost(X[go], y[go], depth - 1, n, n_classes)
                       + _best_cost(X[~go], y[~go], depth - 1, n, n_classes))
    return best


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 60), d=st.integers(1, 4), k=st.integers(2, 4),
       depth=st.none() | st.integers(1, 6), criterion=st.sampled_from(["gini", "entropy"]))
def test_telescoping_classification(seed, n, d, k, depth, criterion):
    """thm-objective-telescoping: R(T) = i(root) - sum of the decreases, and = i(root) - importances."""
    X, y = _data(seed, n, d, k)
    for model in (DecisionTreeClassifier(criterion=criterion, max_depth=depth),
                  SklearnTree(criterion=criterion, max_depth=depth, random_state=0)):
        t = model.fit(X, y).tree_
        assert abs(_leaf_cost(t) - (t.impurity[0] - _decreases(t).sum())) < 1e-10
        assert np.all(_decreases(t) >= -1e-12)
        assert abs(_decreases(t).sum() - t.compute_feature_importances(normalize=False).sum()) < 1e-10


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 60), depth=st.integers(1, 5))
def test_telescoping_regression(seed, n, depth):
    """thm-objective-telescoping (squared error): R(T) = training MSE = var(y) - sum of decreases."""
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(n, 3)), rng.normal(size=n)
    model = DecisionTreeRegressor(max_depth=depth).fit(X, y)
    t = model.tree_
    assert abs(_leaf_cost(t) - (t.impurity[0] - _decreases(t).sum())) < 1e-10
    assert abs(_leaf_cost(t) - np.mean((y - model.predict(X)) ** 2)) < 1e-10


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 25), d=st.integers(1, 3), k=st.integers(2, 3))
def test_greedy_optimal_at_depth_one_not_beyond(seed, n, d, k):
    """thm-objective-telescoping / ex-objective-stump: the greedy stump is the Gini-optimal depth-1 tree,
    and at depth 2 the exhaustive optimum is never worse than greedy (prop-objective-xor: it can be better)."""
    X, y = _data(seed, n, d, k)
    stump = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert abs(_leaf_cost(stump.tree_) - _best_cost(X, y, 1, n, k)) < 1e-12
    two = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert _best_cost(X, y, 2, n, k) <= _leaf_cost(two.tree_) + 1e-12


def test_xor_greedy_is_not_optimal():
    """prop-objective-xor: on the exact XOR table with a 3/4-noisy hint, greedy depth 2 errs, optimum does not."""
    cells = np.array([(a, b) for a in (0, 1) for b in (0, 1) for _ in range(4)])
    y = cells[:, 0] ^ cells[:, 1]
    flip = np.tile([0, 0, 0, 1], 4).astype(bool)
    X = np.column_stack([cells, np.where(flip, 1 - y, y)]).astype(float)
    greedy = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert greedy.tree_.feature[0] == 2
    assert np.mean(greedy.predict(X) != y) == 0.25
    assert _best_cost(X, y, 2, len(y), 2) == 0.0
    assert DecisionTreeClassifier().fit(X, y).get_depth() == 3


def _pruned_subtrees(tree_, node=0):
    share = tree_.weighted_n_node_samples[node] / tree_.weighted_n_node_samples[0]
    own = (share * tree_.impurity[node], 1)
    left, right = tree_.children_left[node], tree_.children_right[node]
    if left < 0:
        return [own]
    return [own] + [(a + b, p + q) for a, p in _pruned_subtrees(tree_, left)
                    for b, q in _pruned_subtrees(tree_, right)]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 40), alpha=st.floats(0.0, 0.2))
def test_mccp_is_exact_over_pruned_subtrees(seed, n, alpha):
    """thm-objective-mccp: ccp_alpha pruning attains min R_alpha over all pruned subtrees of the grown tree."""
    X, y = _data(seed, n, 3, 2)
    grown = DecisionTreeClassifier(max_depth=3).fit(X, y)
    best = min(r + alpha * k for r, k in _pruned_subtrees(grown.tree_))
    pruned = DecisionTreeClassifier(max_depth=3, ccp_alpha=alpha).fit(X, y)
    assert abs(_leaf_cost(pruned.tree_) + alpha * pruned.get_n_leaves() - best) < 1e-12
