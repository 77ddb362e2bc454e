"""CART with missing values (NaN in X), as scikit-learn >= 1.3 grows it.

At every node and for every feature with missing values there, each
threshold is scored twice (missing values sent right, then left), plus the
split "non-missing left, missing right" (threshold +inf); the winner records
``missing_go_to_left``.  Where a node had no missing value of the chosen
feature in training, NaN goes to the child with more samples.

scikit-learn 1.7 is the oracle, with one caveat: its final partition of a
node's samples is sometimes wrong when missing values are present (a few
samples land in the other child than its own threshold and its own
``predict`` send them; fixed upstream in scikit-learn PR #32351, after 1.7).
Below such a node scikit-learn's tree describes other samples than its
splits do, so the comparison walks both trees and stops at nodes whose stored
statistics scikit-learn's own routing does not reproduce.  Its impurity
decrease with missing values is also sometimes wrong (scikit-learn issue
#32178), which reorders best-first growth (``max_leaf_nodes``), and its
Poisson children impurities skip the missing samples; so whole trees are
compared for gini, entropy and squared_error without ``max_leaf_nodes``, and
every split of every criterion is compared with scikit-learn's best split of
the same node's samples (a depth-1 tree fitted on them), which these bugs do
not touch.  Its ``decision_path`` also ignores ``missing_go_to_left`` in 1.7,
so the tests route samples themselves.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import tree as sk

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.information import entropy_from_labels, gini_from_labels, squared_error

IMPURITY = {
    "gini": lambda y, w: gini_from_labels(y, sample_weight=w),
    "entropy": lambda y, w: entropy_from_labels(y, sample_weight=w),
    "squared_error": lambda y, w: squared_error(y, sample_weight=w),
    "poisson": lambda y, w: _half_poisson_deviance(y, w),
}


def _half_poisson_deviance(y, w):
    """(1/W) sum_i w_i y_i ln(y_i / mean), the half Poisson deviance of the mean."""
    mean = np.average(y, weights=w)
    terms = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mean), 0.0)
    return float(np.average(terms, weights=w))

PRE_PRUNING = [
    {"max_depth": 3},
    {"min_samples_leaf": 20},
    {"min_samples_split": 120},
    {"min_weight_fraction_leaf": 0.06},
    {"min_impurity_decrease": 0.02},
]


def make_data(seed, n=600, d=4, missing=0.15, columns=None):
    """Continuous features; a fraction ``missing`` of the cells of ``columns`` (all: None) is NaN.

    Both targets depend on features 0, 1 and 2 (so that splits on a feature
    with missing values win often).
    """
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    y_class = ((X[:, 0] + 0.4 * rng.random(n) > 0.7).astype(int)
               + (X[:, 1] + 0.3 * X[:, 2] + 0.2 * rng.random(n) > 0.6).astype(int))
    y_reg = 3 * X[:, 0] + np.sin(6 * X[:, 1]) + 2 * X[:, 2] + 0.3 * rng.random(n) + 1.5
    weight = rng.integers(1, 1001, n).astype(float)
    holes = rng.random((n, d)) < missing
    if columns is not None:
        holes[:, [c for c in range(d) if c not in columns]] = False
    X[holes] = np.nan
    return X, y_class, y_reg, weight


def routes(t, X):
    """Boolean (n_samples, node_count): the nodes each row passes, NaN by missing_go_to_left."""
    X = np.asarray(X, dtype=np.float32)
    member = np.zeros((X.shape[0], t.node_count), dtype=bool)
    node = np.zeros(X.shape[0], dtype=np.intp)
    active = np.arange(X.shape[0])
    while active.size:
        member[active, node[active]] = True
        inner = t.children_left[node[active]] >= 0
        active = active[inner]
        current = node[active]
        x = X[active, t.feature[current]].astype(np.float64)
        left = np.where(np.isnan(x), t.missing_go_to_left[current].astype(bool),
                        x <= t.threshold[current])
        node[active] = np.where(left, t.children_left[current], t.children_right[current])
    return member


def node_stats(y, w, rows, criterion):
    """(value, impurity) of the samples ``rows``, from the definitions."""
    if criterion in ("gini", "entropy"):
        counts = np.bincount(y[rows], weights=w[rows], minlength=3)
        value = counts / counts.sum()
    else:
        value = np.array([np.average(y[rows], weights=w[rows])])
    return value, IMPURITY[criterion](y[rows], w[rows])


def _decrease(impurity, y, w, rows, left):
    right = rows & ~left
    left = rows & left
    return (w[rows].sum() * impurity(y[rows], w[rows])
            - w[left].sum() * impurity(y[left], w[left])
            - w[right].sum() * impurity(y[right], w[right]))


def _goes_left(t, node, X):
    x = np.asarray(X, dtype=np.float32)[:, t.feature[node]].astype(np.float64)
    return np.where(np.isnan(x), bool(t.missing_go_to_left[node]), x <= t.threshold[node])


def compare_with_missing(ours, theirs, X, y, w, criterion, min_matched=0.5, lenient=False):
    """Walk both trees; return (matched, ties, skipped).

    Equal nodes must have the same size, value and impurity and, if inner,
    the same feature, threshold and missing_go_to_left.  Where the splits
    differ they must decrease the impurity equally (a tie).  A scikit-learn
    node whose stored value its own routing does not reproduce is skipped,
    with its subtree (see the module docstring).  With whole-number class
    counts (``lenient``) a misplaced sample of the same class changes no
    statistic; a size that differs below a faithful-looking node is then
    skipped too.
    """
    a, b = ours.tree_, theirs.tree_
    w = np.ones(X.shape[0]) if w is None else w
    ours_at, theirs_at = routes(a, X), routes(b, X)
    matched = ties = skipped = 0
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        # dtree's trees always describe the samples they route.
        value, impurity = node_stats(y, w, ours_at[:, i], criterion)
        assert ours_at[:, i].sum() == a.n_node_samples[i]
        np.testing.assert_allclose(a.value[i].ravel(), value, atol=1e-9)
        np.testing.assert_allclose(a.impurity[i], impurity, atol=1e-9)
        their_value, their_impurity = node_stats(y, w, theirs_at[:, j], criterion)
        faithful = (theirs_at[:, j].sum() == b.n_node_samples[j]
                    and np.allclose(their_value, b.value[j].ravel(), atol=1e-9)
                    and np.isclose(their_impurity, b.impurity[j], atol=1e-9))
        if not faithful or (lenient and a.n_node_samples[i] != b.n_node_samples[j]):
            skipped += 1
            continue
        assert a.n_node_samples[i] == b.n_node_samples[j]
        np.testing.assert_allclose(a.value[i], b.value[j], atol=1e-9)
        np.testing.assert_allclose(a.impurity[i], b.impurity[j], atol=1e-9)
        a_leaf, b_leaf = a.children_left[i] < 0, b.children_left[j] < 0
        if a_leaf or b_leaf:
            assert a_leaf == b_leaf, f"node {i}: one tree splits, the other does not"
            matched += 1
            continue
        same = (a.feature[i] == b.feature[j] and (a.threshold[i] == b.threshold[j]
                                                  or abs(a.threshold[i] - b.threshold[j]) <= 1e-6)) \
            and bool(a.missing_go_to_left[i]) == bool(b.missing_go_to_left[j])
        if not same:
            rows = ours_at[:, i]
            impurity = IMPURITY[criterion]
            ours_decrease = _decrease(impurity, y, w, rows, _goes_left(a, i, X))
            their_decrease = _decrease(impurity, y, w, rows, _goes_left(b, j, X))
            assert ours_decrease == pytest.approx(their_decrease, rel=1e-9, abs=1e-12), \
                f"node {i}: dtree's split is not as good as scikit-learn's"
            ties += 1
            continue
        matched += 1
        stack += [(a.children_right[i], b.children_right[j]),
                  (a.children_left[i], b.children_left[j])]
    assert matched >= min_matched * b.node_count, (matched, ties, skipped, b.node_count)
    return matched, ties, skipped


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", PRE_PRUNING, ids=lambda p: ",".join(p))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_classifier_with_missing_values_matches(seed, params, criterion, weighted):
    # Missing values in one (informative) feature: scikit-learn 1.7 partitions
    # correctly there (nearly always), so whole trees can be compared.
    X, y, _, weight = make_data(seed, missing=0.25, columns=[2])
    w = weight if weighted else None
    ours = DecisionTreeClassifier(criterion=criterion, **params).fit(X, y, sample_weight=w)
    theirs = sk.DecisionTreeClassifier(criterion=criterion, random_state=0, **params).fit(
        X, y, sample_weight=w)
    matched, ties, skipped = compare_with_missing(ours, theirs, X, y, w, criterion,
                                                  lenient=not weighted)
    if weighted:
        assert ties == 0  # continuous weights: no two splits are equally good
    if ties == 0 and skipped == 0:  # the very same tree
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                                   atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", PRE_PRUNING, ids=lambda p: ",".join(p))
@pytest.mark.parametrize("criterion", ["squared_error"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_regressor_with_missing_values_matches(seed, params, criterion, weighted):
    X, _, y, weight = make_data(seed, missing=0.25, columns=[2])
    w = weight if weighted else None
    ours = DecisionTreeRegressor(criterion=criterion, **params).fit(X, y, sample_weight=w)
    theirs = sk.DecisionTreeRegressor(criterion=criterion, random_state=0, **params).fit(
        X, y, sample_weight=w)
    matched, ties, skipped = compare_with_missing(ours, theirs, X, y, w, criterion)
    assert ties == 0
    if skipped == 0:
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-12)
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                                   atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("params", [{"max_depth": 4}, {"min_samples_leaf": 25},
                                    {"min_weight_fraction_leaf": 0.05}],
                         ids=lambda p: ",".join(p))
@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_every_split_is_scikit_learns_best_split_of_the_node(seed, params, criterion, weighted):
    # Missing values in every feature; each node's split is compared with the
    # root split scikit-learn finds on the node's samples.
    X, y_class, y_reg, weight = make_data(seed, missing=0.15)
    classification = criterion in ("gini", "entropy")
    y = y_class if classification else y_reg
    w = weight if weighted else np.ones(X.shape[0])
    ours_cls = DecisionTreeClassifier if classification else DecisionTreeRegressor
    their_cls = sk.DecisionTreeClassifier if classification else sk.DecisionTreeRegressor
    ours = ours_cls(criterion=criterion, **params).fit(X, y, sample_weight=w)
    t = ours.tree_
    at = routes(t, X)
    min_weight_leaf = params.get("min_weight_fraction_leaf", 0.0) * w.sum()
    depth = np.zeros(t.node_count, dtype=int)
    compared = ties = 0
    for i in range(t.node_count):
        if t.children_left[i] >= 0:
            depth[t.children_left[i]] = depth[t.children_right[i]] = depth[i] + 1
        rows = at[:, i]
        if depth[i] >= params.get("max_depth", 99) or t.impurity[i] <= 1e-12:
            continue
        if w[rows].sum() < 2 * min_weight_leaf:  # too light for two children
            assert t.children_left[i] < 0
            continue
        theirs = their_cls(
            criterion=criterion, max_depth=1, random_state=0,
            min_samples_leaf=params.get("min_samples_leaf", 1),
            min_weight_fraction_leaf=min(0.5, min_weight_leaf / w[rows].sum()),
        ).fit(X[rows], y[rows], sample_weight=w[rows])
        s = theirs.tree_
        if criterion == "poisson" and s.node_count == 1:
            continue  # scikit-learn's Poisson improvement with missing values is unreliable
        if t.children_left[i] < 0 or s.node_count == 1:
            assert (t.children_left[i] < 0) == (s.node_count == 1), f"node {i}"
            continue
        compared += 1
        same = (t.feature[i] == s.feature[0]
                and (t.threshold[i] == s.threshold[0]
                     or abs(t.threshold[i] - s.threshold[0]) <= 1e-6)
                and bool(t.missing_go_to_left[i]) == bool(s.missing_go_to_left[0]))
        if same:
            left = t.children_left[i]
            assert t.n_node_samples[left] == s.n_node_samples[1]
            continue
        impurity = IMPURITY[criterion]
        assert _decrease(impurity, y, w, rows, _goes_left(t, i, X)) == pytest.approx(
            _decrease(impurity, y, w, rows, _goes_left(s, 0, X)), rel=1e-9, abs=1e-12), \
            f"node {i}: dtree's split is not as good as scikit-learn's"
        ties += 1
    assert compared >= 3 and ties <= compared // 3


def test_best_first_splits_are_the_depth_first_splits():
    # With max_leaf_nodes the tree is a top part of the full tree: same splits.
    X, y, _, w = make_data(3, missing=0.2)
    full = DecisionTreeClassifier().fit(X, y, sample_weight=w).tree_
    best = DecisionTreeClassifier(max_leaf_nodes=12).fit(X, y, sample_weight=w).tree_
    assert best.n_leaves == 12
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        assert best.n_node_samples[i] == full.n_node_samples[j]
        if best.children_left[i] < 0:
            continue
        assert (best.feature[i], best.threshold[i], best.missing_go_to_left[i]) == \
            (full.feature[j], full.threshold[j], full.missing_go_to_left[j])
        stack += [(best.children_left[i], full.children_left[j]),
                  (best.children_right[i], full.children_right[j])]


def test_hand_made_example_sends_missing_left():
    # x:  1    2    3    4    NaN  NaN      y: 0 0 1 1 0 0
    # Missing right: the best threshold 2.5 leaves {1,2} | {3,4,NaN,NaN}: Gini 0.667 on the right.
    # Missing left: threshold 2.5 gives {1,2,NaN,NaN} | {3,4}: both children pure.
    X = np.array([[1.0], [2.0], [3.0], [4.0], [np.nan], [np.nan]])
    y = np.array([0, 0, 1, 1, 0, 0])
    tree = DecisionTreeClassifier().fit(X, y)
    t = tree.tree_
    assert t.node_count == 3 and t.feature[0] == 0 and t.threshold[0] == 2.5
    assert bool(t.missing_go_to_left[0]) is True
    np.testing.assert_array_equal(t.n_node_samples, [6, 4, 2])
    assert tree.predict([[np.nan], [1.5], [3.5]]).tolist() == [0, 0, 1]
    theirs = sk.DecisionTreeClassifier(random_state=0).fit(X, y)
    assert bool(theirs.tree_.missing_go_to_left[0]) and theirs.tree_.threshold[0] == 2.5


def test_hand_made_example_splits_missing_from_non_missing():
    # Only the missing values differ from the rest: the split "non-missing left,
    # missing right" has threshold +inf.
    X = np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan]])
    y = np.array([0.0, 0.2, 0.1, 5.0, 5.0])
    t = DecisionTreeRegressor(max_depth=1).fit(X, y).tree_
    assert t.threshold[0] == np.inf and not t.missing_go_to_left[0]
    np.testing.assert_array_equal(t.n_node_samples, [5, 3, 2])
    s = sk.DecisionTreeRegressor(max_depth=1, random_state=0).fit(X, y).tree_
    assert s.threshold[0] == np.inf


def test_nan_at_predict_without_missing_in_training_goes_to_the_larger_child():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    y = np.array([0] * 3 + [1] * 7)
    tree = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert tree.tree_.threshold[0] == 2.5 and not tree.tree_.missing_go_to_left[0]
    assert tree.predict([[np.nan]]).tolist() == [1]
    flipped = DecisionTreeClassifier(max_depth=1).fit(X[::-1] * -1, y[::-1])
    assert bool(flipped.tree_.missing_go_to_left[0]) and flipped.predict([[np.nan]]).tolist() == [1]
    # A tie in size goes right, as in scikit-learn.
    even = DecisionTreeClassifier(max_depth=1).fit(X, np.array([0] * 5 + [1] * 5))
    assert not even.tree_.missing_go_to_left[0]


def test_constant_non_missing_values_are_not_a_candidate():
    # scikit-learn 1.7: a feature whose non-missing values are constant in a
    # node is skipped, even though "missing vs non-missing" would separate.
    X = np.array([[1.0, 0.0], [1.0, 1.0], [np.nan, 0.0], [np.nan, 1.0]])
    y = np.array([0, 0, 1, 1])
    t = DecisionTreeClassifier().fit(X, y).tree_
    s = sk.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    assert 0 not in t.feature and 0 not in s.feature
    np.testing.assert_array_equal(t.feature, s.feature)


def test_random_splitter_with_missing_values():
    X, y, _, _ = make_data(4, missing=0.2)
    a = DecisionTreeClassifier(splitter="random", random_state=3).fit(X, y)
    b = DecisionTreeClassifier(splitter="random", random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.tree_.missing_go_to_left, b.tree_.missing_go_to_left)
    t = a.tree_
    at = routes(t, X)
    np.testing.assert_array_equal(at.sum(axis=0), t.n_node_samples)
    inner = t.children_left >= 0
    assert np.all(np.isfinite(t.threshold[inner]))  # no +inf split with the random splitter
    assert t.missing_go_to_left[inner].any() and not t.missing_go_to_left[inner].all()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 0.6), st.sampled_from(["gini", "entropy"]))
def test_properties_with_missing_values(seed, missing, criterion):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    X = rng.normal(size=(n, 3))
    X[rng.random((n, 3)) < missing] = np.nan
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    X_copy, frame_copy, y_copy = X.copy(), frame.copy(), y.copy()
    tree = DecisionTreeClassifier(criterion=criterion).fit(frame, y)
    proba = tree.predict_proba(frame)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Rows with a NaN everywhere are predicted too.
    all_missing = pd.DataFrame(np.full((2, 3), np.nan), columns=["a", "b", "c"])
    np.testing.assert_allclose(tree.predict_proba(all_missing).sum(axis=1), 1.0)
    # Training counts are what the routing (with missing_go_to_left) gives.
    t = tree.tree_
    np.testing.assert_array_equal(routes(t, X).sum(axis=0), t.n_node_samples)
    # Regression counterpart.
    DecisionTreeRegressor().fit(X, rng.normal(size=n)).predict(X)
    np.testing.assert_array_equal(X, X_copy)
    pd.testing.assert_frame_equal(frame, frame_copy)
    np.testing.assert_array_equal(y, y_copy)


def test_bad_input_with_missing_values():
    X, y, y_reg, _ = make_data(5, missing=0.1)
    with pytest.raises(ValueError, match="X contains infinite values"):
        DecisionTreeClassifier().fit(np.where(np.isnan(X), np.inf, X), y)
    with pytest.raises(ValueError, match="X contains infinite values"):
        DecisionTreeClassifier().fit(X, y).predict(np.where(np.isnan(X), -np.inf, X))
    with pytest.raises(ValueError, match="criterion='absolute_error' does not support missing"):
        DecisionTreeRegressor(criterion="absolute_error").fit(X, y_reg)
    complete = np.nan_to_num(X)
    fitted = DecisionTreeRegressor(criterion="absolute_error", max_depth=2).fit(complete, y_reg)
    with pytest.raises(ValueError, match="X contains NaN; criterion='absolute_error'"):
        fitted.predict(X)
