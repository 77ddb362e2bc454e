"""CART regression with criterion="absolute_error" (least absolute deviation).

A node predicts the weighted median of its targets and its impurity is the
weighted mean absolute deviation from it; a split is scored by the children's
summed absolute deviations.  Three oracles: the definitions
(``dtree.information.weighted_median`` and ``absolute_error``, on the samples
each node receives), an exhaustive search over every split of every node, and
scikit-learn 1.7.

scikit-learn keeps its children's medians with an incremental calculator that
can lose track of the median when sample weights are used (the stored node
value, computed afresh, is right; the child impurity, computed from the
incremental median, is then too large, and a split can be scored too low).
The comparison therefore walks both trees, checks dtree's nodes against the
definitions everywhere, skips scikit-learn's subtrees below a node whose
stored impurity its samples do not give, and where the splits differ requires
dtree's split to be at least as good by the definitions.
"""

import numpy as np
import pytest
from sklearn import tree as sk

from dtree import DecisionTreeRegressor
from dtree.information import absolute_error, weighted_median


def make_data(seed, n=600, d=4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    y = 3 * X[:, 0] + np.sin(6 * X[:, 1]) + 0.3 * rng.random(n) + 1.5
    weight = rng.integers(1, 1001, n).astype(float)
    return X, y, weight


def members(estimator, X):
    return estimator.decision_path(X).toarray().astype(bool)


def definition(y, w, rows):
    return (weighted_median(y[rows], sample_weight=w[rows]),
            absolute_error(y[rows], sample_weight=w[rows]))


def decrease(y, w, rows, left):
    """W_t i(t) - W_L i(L) - W_R i(R) = D_t - D_L - D_R, from the definitions."""
    def d(r):  # sum of w |y - median| (exact for whole numbers)
        if not r.any():
            return 0.0
        return np.sum(w[r] * np.abs(y[r] - weighted_median(y[r], sample_weight=w[r])))
    return d(rows) - d(rows & left) - d(rows & ~left)


def compare(ours, theirs, X, y, w):
    """Walk both trees; return (matched, better, skipped) (see the module docstring)."""
    a, b = ours.tree_, theirs.tree_
    w = np.ones(y.size) if w is None else w
    ours_at, theirs_at = members(ours, X), members(theirs, X)
    matched = better = skipped = 0
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        rows = ours_at[:, i]
        median, impurity = definition(y, w, rows)
        assert rows.sum() == a.n_node_samples[i]
        assert a.value[i, 0, 0] == pytest.approx(median, abs=1e-12)
        assert a.impurity[i] == pytest.approx(impurity, abs=1e-9)
        their_median, their_impurity = definition(y, w, theirs_at[:, j])
        if not (np.isclose(b.impurity[j], their_impurity, atol=1e-9, rtol=0)
                and np.isclose(b.value[j, 0, 0], their_median, atol=1e-12, rtol=0)
                and a.n_node_samples[i] == b.n_node_samples[j]):
            skipped += 1
            continue
        a_leaf, b_leaf = a.children_left[i] < 0, b.children_left[j] < 0
        if b_leaf and not a_leaf:
            # scikit-learn's too-large child impurities can make every decrease negative.
            x_ours = X[:, a.feature[i]].astype(np.float64) <= a.threshold[i]
            assert decrease(y, w, rows, x_ours) >= 0
            better += 1
            continue
        if a_leaf or b_leaf:
            assert a_leaf == b_leaf, f"node {i}: dtree stops where scikit-learn splits"
            matched += 1
            continue
        if a.feature[i] == b.feature[j] and abs(a.threshold[i] - b.threshold[j]) <= 1e-6:
            matched += 1
            stack += [(a.children_right[i], b.children_right[j]),
                      (a.children_left[i], b.children_left[j])]
            continue
        x_ours = X[:, a.feature[i]].astype(np.float64) <= a.threshold[i]
        x_theirs = X[:, b.feature[j]].astype(np.float64) <= b.threshold[j]
        ours_decrease, their_decrease = decrease(y, w, rows, x_ours), decrease(y, w, rows, x_theirs)
        assert ours_decrease >= their_decrease - 1e-9 * abs(their_decrease), \
            f"node {i}: dtree's split is worse than scikit-learn's"
        better += 1
    return matched, better, skipped


PARAMS = [{"max_depth": 3}, {"max_depth": 5}, {"min_samples_leaf": 40},
          {"min_samples_leaf": 15, "max_depth": 6}, {"max_leaf_nodes": 10}]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(p))
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_absolute_error_tree_matches_scikit_learn(seed, params, weighted):
    X, y, weight = make_data(seed)
    w = weight if weighted else None
    ours = DecisionTreeRegressor(criterion="absolute_error", **params).fit(X, y, sample_weight=w)
    theirs = sk.DecisionTreeRegressor(criterion="absolute_error", random_state=0, **params).fit(
        X, y, sample_weight=w)
    matched, better, skipped = compare(ours, theirs, X, y, w)
    # Weighted, scikit-learn's tree can go astray near the root (module docstring).
    assert matched >= (3 if weighted else 0.5 * theirs.tree_.node_count), \
        (matched, better, skipped)
    if better == 0 and skipped == 0:   # the very same tree
        a, b = ours.tree_, theirs.tree_
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_allclose(a.threshold, b.threshold, atol=1e-6)
        np.testing.assert_allclose(a.value, b.value, atol=1e-12)
        np.testing.assert_allclose(a.impurity, b.impurity, atol=1e-9)
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                                   atol=1e-9)
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-12)


def test_unweighted_trees_are_scikit_learns():
    # Unweighted, scikit-learn's medians are right: the same trees, exactly.
    for seed in range(3):
        X, y, _ = make_data(seed)
        for params in ({"max_depth": 3}, {"min_samples_leaf": 40}):
            ours = DecisionTreeRegressor(criterion="absolute_error", **params).fit(X, y)
            theirs = sk.DecisionTreeRegressor(criterion="absolute_error", random_state=0,
                                              **params).fit(X, y)
            assert compare(ours, theirs, X, y, None)[1:] == (0, 0)
            np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                                       atol=1e-9)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_cost_complexity_pruning_path_matches(weighted):
    X, y, weight = make_data(4, n=400)
    w = np.round(weight / 100) + 1 if weighted else None
    ours = DecisionTreeRegressor(criterion="absolute_error", min_samples_leaf=20)
    theirs = sk.DecisionTreeRegressor(criterion="absolute_error", min_samples_leaf=20,
                                      random_state=0)
    a = ours.cost_complexity_pruning_path(X, y, sample_weight=w)
    tree = ours.fit(X, y, sample_weight=w)
    reference = theirs.fit(X, y, sample_weight=w)
    if compare(tree, reference, X, y, w)[1:] == (0, 0):
        b = theirs.cost_complexity_pruning_path(X, y, sample_weight=w)
        np.testing.assert_allclose(a["ccp_alphas"], b["ccp_alphas"], atol=1e-12)
        np.testing.assert_allclose(a["impurities"], b["impurities"], atol=1e-12)
    # From the definitions: the total leaf impurity of the full tree comes first.
    t = tree.tree_
    leaves = t.children_left < 0
    total = (t.weighted_n_node_samples[leaves] * t.impurity[leaves]).sum() / t.weighted_n_node_samples[0]
    assert a["impurities"][0] == pytest.approx(total, abs=1e-12)
    assert np.all(np.diff(a["ccp_alphas"]) >= 0)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_every_split_is_the_best_by_exhaustive_search(seed, weighted):
    # Every threshold of every feature at every node, scored from the definitions.
    rng = np.random.default_rng(seed)
    n = 60
    X = rng.integers(0, 8, (n, 3)).astype(float)          # repeated values
    y = rng.integers(-10, 10, n).astype(float)             # repeated targets; exact sums
    w = rng.integers(1, 4, n).astype(float) if weighted else np.ones(n)
    tree = DecisionTreeRegressor(criterion="absolute_error", min_samples_leaf=3).fit(
        X, y, sample_weight=w)
    t = tree.tree_
    at = members(tree, X)
    for i in np.flatnonzero(t.children_left >= 0):
        rows = at[:, i]
        candidates = []
        for f in range(X.shape[1]):
            values = np.unique(X[rows, f])
            for lo, hi in zip(values[:-1], values[1:]):
                left = X[:, f] <= lo
                if min((rows & left).sum(), (rows & ~left).sum()) >= 3:
                    candidates.append((decrease(y, w, rows, left), f, (lo + hi) / 2))
        best = max(c[0] for c in candidates)
        first = next(c for c in candidates if c[0] == best)  # lowest feature, then threshold
        ours = decrease(y, w, rows, X[:, t.feature[i]] <= t.threshold[i])
        assert ours == pytest.approx(best, abs=1e-9)
        assert (t.feature[i], t.threshold[i]) == (first[1], first[2])


def test_hand_computed_medians():
    # y = 1, 2, 3, 10 (weights 1): the median 2.5 is the midpoint (exactly half
    # the weight below); D = 1.5 + 0.5 + 0.5 + 7.5 = 10, impurity 10 / 4 = 2.5.
    X = np.array([[0.0], [0.0], [0.0], [0.0]])
    tree = DecisionTreeRegressor(criterion="absolute_error").fit(X, [1.0, 2.0, 3.0, 10.0])
    assert tree.tree_.value[0, 0, 0] == 2.5 and tree.tree_.impurity[0] == 2.5
    # Weights 1, 1, 2, 0.5: W = 4.5, cumulative 1, 2, 4 -> the median is 3.
    tree.fit(X, [1.0, 2.0, 3.0, 10.0], sample_weight=[1, 1, 2, 0.5])
    assert tree.tree_.value[0, 0, 0] == 3.0
    assert tree.tree_.impurity[0] == pytest.approx((2 + 1 + 0 + 3.5) / 4.5)
    # One split: {1, 2} | {30, 31, 33}: medians 1.5 and 31, D = 1 + 3 = 4.
    X = np.arange(5.0).reshape(-1, 1)
    tree = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(
        X, [1.0, 2.0, 30.0, 31.0, 33.0])
    t = tree.tree_
    assert t.threshold[0] == 1.5
    np.testing.assert_allclose(t.value[1:, 0, 0], [1.5, 31.0])
    np.testing.assert_allclose(t.impurity[1:], [0.5, 1.0])
    assert tree.predict([[0.0], [4.0]]).tolist() == [1.5, 31.0]


def test_inputs_are_not_modified_and_random_splitter_works():
    X, y, w = make_data(5, n=200)
    copies = X.copy(), y.copy(), w.copy()
    tree = DecisionTreeRegressor(criterion="absolute_error", splitter="random", random_state=0,
                                 max_features=2).fit(X, y, sample_weight=w)
    for original, copy in zip((X, y, w), copies):
        np.testing.assert_array_equal(original, copy)
    at = members(tree, X)
    t = tree.tree_
    for i in range(t.node_count):  # every node holds the median of its samples
        assert t.value[i, 0, 0] == pytest.approx(definition(y, w, at[:, i])[0], abs=1e-12)


