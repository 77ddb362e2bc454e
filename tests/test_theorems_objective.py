"""Property-based tests of the theorems of the chapter "What does a tree optimise?".

Each test names the label of the result it checks (book/part4/objective.ipynb).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.information import gini
from dtree.inspection import leaf_impurity, weighted_impurity_decrease


def _data(seed, n, d, k):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float)  # few values: ties and repeated values
    y = rng.integers(0, k, size=n)
    return X, y


def _leaf_cost(tree_):
    """R(T), eq-objective-cost."""
    return leaf_impurity(tree_)


def _decreases(tree_):
    """Delta R(t) of the internal nodes, eq-objective-decrease."""
    return weighted_impurity_decrease(tree_)[tree_.children_left >= 0]


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


def _midpoint_left_sets(x):
    """The left sets {x <= theta} for theta = -inf, +inf and every midpoint of consecutive distinct values."""
    v = np.unique(x)
    thetas = np.concatenate([[-np.inf], (v[:-1] + v[1:]) / 2, [np.inf]])
    return {tuple(x <= t) for t in thetas}


@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.integers(-6, 6), min_size=1, max_size=30),
       theta=st.floats(-5.0, 5.0, allow_nan=False) | st.integers(-12, 12).map(lambda k: k / 2))
def test_midpoints_suffice_for_one_threshold(values, theta):
    """lem-objective-midpoints: any threshold sends the same samples left as -inf, +inf or a midpoint,
    namely the midpoint (v_s + v_{s+1}) / 2 with v_s <= theta < v_{s+1}."""
    x = np.array(values, dtype=float) / 2  # repeated values; thresholds may equal a value
    left = tuple(x <= theta)
    assert left in _midpoint_left_sets(x)
    v = np.unique(x)
    if v[0] <= theta < v[-1]:
        s = np.searchsorted(v, theta, side="right") - 1
        assert v[s] <= theta < v[s + 1]
        assert left == tuple(x <= (v[s] + v[s + 1]) / 2)


def _random_threshold_tree(rng, X, depth):
    """A random tree of depth <= depth with arbitrary real thresholds (inside, outside or on the data)."""
    if depth == 0 or rng.random() < 0.25:
        return None
    j = int(rng.integers(X.shape[1]))
    if rng.random() < 0.3:
        theta = float(rng.choice(X[:, j]))  # exactly a data value
    else:
        theta = float(rng.uniform(X[:, j].min() - 1, X[:, j].max() + 1))
    return {"feature": j, "theta": theta,
            "left": _random_threshold_tree(rng, X, depth - 1),
            "right": _random_threshold_tree(rng, X, depth - 1)}


def _leaves(tree, X, rows, snap):
    """Sample sets of the leaves, left to right; with snap, every threshold is replaced as in the proof
    of lem-objective-midpoints (-inf, +inf or the midpoint of the samples that reach the node)."""
    if tree is None:
        return [rows]
    j, theta = tree["feature"], tree["theta"]
    v = np.unique(X[rows, j])
    if snap and v.size:
        if theta < v[0]:
            theta = -np.inf
        elif theta >= v[-1]:
            theta = np.inf
        else:
            s = np.searchsorted(v, theta, side="right") - 1
            theta = (v[s] + v[s + 1]) / 2
    go = X[rows, j] <= theta
    return _leaves(tree["left"], X, rows[go], snap) + _leaves(tree["right"], X, rows[~go], snap)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 14), d=st.integers(1, 3), k=st.integers(2, 3),
       depth=st.integers(1, 2))
def test_midpoint_trees_attain_the_global_optimum(seed, n, d, k, depth):
    """lem-objective-midpoints: replacing every threshold of any tree by -inf, +inf or a midpoint keeps
    its leaves, so no threshold tree of depth <= D beats the best midpoint-only tree (exhaustive search)."""
    X, y = _data(seed, n, d, k)
    rng = np.random.default_rng(seed + 1)
    best = _best_cost(X, y, depth, n, k)
    for _ in range(10):
        tree = _random_threshold_tree(rng, X, depth)
        rows = np.arange(n)
        leaves = _leaves(tree, X, rows, snap=False)
        snapped = _leaves(tree, X, rows, snap=True)
        assert [list(a) for a in leaves] == [list(b) for b in snapped]
        cost = sum(_gini_cost(np.bincount(y[leaf], minlength=k), n) for leaf in leaves)
        assert best <= cost + 1e-12
