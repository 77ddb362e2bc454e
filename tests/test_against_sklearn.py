"""Oracle tests: dtree's CART grows scikit-learn's tree where the best split is unique.

Ties between candidate splits (for example two features that separate a
three-sample node in the same way, or two splits with equal class counts) are
broken by scikit-learn in a random feature order and by dtree by feature
index, so the data below avoid them: continuous random features, a continuous
target or weights drawn from a wide range, and parameters that keep nodes large
enough for every best split to be unique.

Weights are whole numbers (1 to 1000): with fractional weights, scikit-learn
computes a pure child's class counts as "total - left" and can be left with a
rounding residue of 1e-16 that makes it split a pure node; dtree sums every
child afresh and never splits a pure node.
"""

import numpy as np
import pytest
from sklearn import tree as sk

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.information import entropy_from_labels, gini_from_labels, squared_error
from dtree.inspection import same_tree

IMPURITY = {
    "gini": lambda y, w: gini_from_labels(y, sample_weight=w),
    "entropy": lambda y, w: entropy_from_labels(y, sample_weight=w),
    "squared_error": lambda y, w: squared_error(y, sample_weight=w),
}

PRE_PRUNING = [
    {"max_depth": 3},
    {"min_samples_split": 120},
    {"min_samples_leaf": 40},
    {"min_weight_fraction_leaf": 0.06},
    {"max_leaf_nodes": 8},
    {"min_impurity_decrease": 0.02},
    {"ccp_alpha": 0.01, "min_samples_leaf": 20},
]


def make_data(seed, n=600, d=4):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    y_class = ((X[:, 0] + 0.4 * rng.random(n) > 0.7).astype(int)
               + (X[:, 1] + 0.2 * rng.random(n) > 0.5).astype(int))
    y_reg = 3 * X[:, 0] + np.sin(6 * X[:, 1]) + 0.3 * rng.random(n) + 1.5
    weight = rng.integers(1, 1001, n).astype(float)
    return X, y_class, y_reg, weight


def assert_same_tree(ours, theirs):
    """The same tree (dtree.inspection.same_tree), numbered alike, with the same importances."""
    assert same_tree(ours, theirs, rtol=1e-7, atol=1e-6)
    for name in ("children_left", "children_right"):  # with same_tree: the same numbering
        np.testing.assert_array_equal(getattr(ours.tree_, name), getattr(theirs.tree_, name))
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-9)


def _decrease(impurity, X, y, w, rows, feature, threshold):
    """W_t i(t) - W_L i(L) - W_R i(R) of a split, recomputed from the definitions."""
    left = rows & (X[:, feature].astype(np.float64) <= threshold)
    right = rows & ~left
    return (w[rows].sum() * impurity(y[rows], w[rows])
            - w[left].sum() * impurity(y[left], w[left])
            - w[right].sum() * impurity(y[right], w[right]))


def assert_same_tree_up_to_ties(ours, theirs, X, y, w, criterion, min_matched=0.5):
    """Walk both trees; where the splits differ, they must be equally good (a tie).

    Below a tie the subtrees are not compared.  A node that scikit-learn splits
    and dtree does not must be pure (see the module docstring).  At least
    ``min_matched`` of scikit-learn's nodes must be compared and equal.
    """
    a, b = ours.tree_, theirs.tree_
    impurity = IMPURITY[criterion]
    w = np.ones(X.shape[0]) if w is None else w
    paths = ours.decision_path(X).toarray().astype(bool)
    matched, ties, stack = 0, 0, [(0, 0)]
    while stack:
        i, j = stack.pop()
        a_leaf, b_leaf = a.children_left[i] < 0, b.children_left[j] < 0
        assert a.n_node_samples[i] == b.n_node_samples[j]
        np.testing.assert_allclose(a.value[i], b.value[j], atol=1e-9)
        if a_leaf or b_leaf:
            if a_leaf and not b_leaf:
                assert a.impurity[i] == 0.0 and b.impurity[j] < 1e-12, "dtree stopped early"
            assert not (b_leaf and not a_leaf), "scikit-learn stopped where dtree split"
            matched += 1
            continue
        if a.feature[i] != b.feature[j] or abs(a.threshold[i] - b.threshold[j]) > 1e-6:
            rows = paths[:, i]
            ours_decrease = _decrease(impurity, X, y, w, rows, a.feature[i], a.threshold[i])
            their_decrease = _decrease(impurity, X, y, w, rows, b.feature[j], b.threshold[j])
            assert ours_decrease == pytest.approx(their_decrease, rel=1e-9, abs=1e-12), \
                f"node {i}: dtree's split is not as good as scikit-learn's"
            ties += 1
            continue
        matched += 1
        stack += [(a.children_right[i], b.children_right[j]), (a.children_left[i], b.children_left[j])]
    assert matched >= min_matched * b.node_count, (matched, ties, b.node_count)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", PRE_PRUNING, ids=lambda p: ",".join(p))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_classifier_matches(seed, params, criterion, weighted):
    X, y, _, weight = make_data(seed)
    w = weight if weighted else None
    ours = DecisionTreeClassifier(criterion=criterion, **params).fit(X, y, sample_weight=w)
    theirs = sk.DecisionTreeClassifier(criterion=criterion, random_state=0, **params).fit(
        X, y, sample_weight=w)
    if weighted:  # continuous enough: no ties, the very same tree
        assert_same_tree(ours, theirs)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    else:  # whole-number class counts tie often; compare up to ties
        assert_same_tree_up_to_ties(ours, theirs, X, y, w, criterion)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", PRE_PRUNING, ids=lambda p: ",".join(p))
@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_regressor_matches(seed, params, criterion, weighted):
    X, _, y, weight = make_data(seed)
    w = weight if weighted else None
    ours = DecisionTreeRegressor(criterion=criterion, **params).fit(X, y, sample_weight=w)
    theirs = sk.DecisionTreeRegressor(criterion=criterion, random_state=0, **params).fit(
        X, y, sample_weight=w)
    assert_same_tree(ours, theirs)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-12)


@pytest.mark.parametrize("class_weight", ["balanced", {0: 2.0, 1: 1.0, 2: 3.0}])
def test_class_weight_matches(class_weight):
    X, y, _, weight = make_data(3)
    for w in (None, weight):
        ours = DecisionTreeClassifier(class_weight=class_weight, min_samples_leaf=40).fit(
            X, y, sample_weight=w)
        theirs = sk.DecisionTreeClassifier(class_weight=class_weight, min_samples_leaf=40,
                                           random_state=0).fit(X, y, sample_weight=w)
        total = w if w is not None else np.ones_like(weight)
        from sklearn.utils.class_weight import compute_sample_weight
        effective = total * compute_sample_weight(class_weight, y)
        assert_same_tree_up_to_ties(ours, theirs, X, y, effective, "gini")


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_full_depth_regression_with_one_feature(seed, weighted):
    # One feature: no two features can tie, so even full depth must agree.
    rng = np.random.default_rng(seed)
    X = rng.random((400, 1)).astype(np.float32)
    y = np.sin(8 * X[:, 0]) + 0.2 * rng.random(400)
    w = rng.random(400) + 0.5 if weighted else None
    ours = DecisionTreeRegressor().fit(X, y, sample_weight=w)
    theirs = sk.DecisionTreeRegressor(random_state=0).fit(X, y, sample_weight=w)
    assert_same_tree(ours, theirs)


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_cost_complexity_pruning_path_matches(estimator, weighted):
    X, y_class, y_reg, weight = make_data(4)
    w = weight if weighted else None
    if estimator == "classifier":
        ours, theirs, y = (DecisionTreeClassifier(min_samples_leaf=20),
                           sk.DecisionTreeClassifier(min_samples_leaf=20, random_state=0), y_class)
    else:
        ours, theirs, y = (DecisionTreeRegressor(min_samples_leaf=20),
                           sk.DecisionTreeRegressor(min_samples_leaf=20, random_state=0), y_reg)
    a = ours.cost_complexity_pruning_path(X, y, sample_weight=w)
    b = theirs.cost_complexity_pruning_path(X, y, sample_weight=w)
    np.testing.assert_allclose(a["ccp_alphas"], b["ccp_alphas"], atol=1e-12)
    np.testing.assert_allclose(a["impurities"], b["impurities"], atol=1e-12)
    # Pruning at each alpha gives scikit-learn's pruned tree.
    criterion = "gini" if estimator == "classifier" else "squared_error"
    # (Between two effective alphas: at an effective alpha itself, rounding decides.)
    midpoints = (b["ccp_alphas"][1:] + b["ccp_alphas"][:-1]) / 2
    for alpha in midpoints[::3]:
        assert_same_tree_up_to_ties(ours.set_params(ccp_alpha=alpha).fit(X, y, sample_weight=w),
                                    theirs.set_params(ccp_alpha=alpha).fit(X, y, sample_weight=w),
                                    X, y, w, criterion)


@pytest.mark.parametrize("n", [256, 257, 65_536, 65_537])
def test_every_presort_index_type_grows_the_same_tree(n):
    """The presorted index is uint8, uint16 or uint32 by n (``presort``): at the
    boundaries between them (n = 256 and 65,536 samples: indices up to 255 and
    65,535) the tree is still scikit-learn's."""
    X, y_class, y_reg, weight = make_data(5, n=n, d=3)
    params = {"max_depth": 4, "min_samples_leaf": max(20, n // 100)}
    ours = DecisionTreeRegressor(**params).fit(X, y_reg, sample_weight=weight)
    theirs = sk.DecisionTreeRegressor(random_state=0, **params).fit(X, y_reg, sample_weight=weight)
    assert_same_tree(ours, theirs)


PRESORT_PATHS = [
    ("classifier", {"max_leaf_nodes": 12}, False),                     # best-first growth
    ("classifier", {"splitter": "random", "random_state": 0}, False),  # random thresholds
    ("classifier", {"max_features": 2, "random_state": 0}, False),     # drawn features
    ("classifier", {"criterion": "entropy"}, True),                    # missing values
    ("regressor", {"criterion": "absolute_error", "max_depth": 6}, False),   # node_stats
    ("regressor", {"criterion": "poisson", "min_samples_leaf": 5}, True),
]


@pytest.mark.parametrize("n", [256, 257])
@pytest.mark.parametrize("estimator, params, missing", PRESORT_PATHS,
                         ids=lambda v: ",".join(map(str, v)) if isinstance(v, dict) else str(v))
def test_the_presort_index_type_changes_no_tree(monkeypatch, n, estimator, params, missing):
    """Every path that reads the presorted index (uint8 at n = 256, uint16 at 257)
    grows the tree it grows from an int64 index."""
    import dtree.growth
    from dtree.splitting import presort

    X, y_class, y_reg, weight = make_data(6, n=n, d=3)
    if missing:
        X[np.random.default_rng(7).random(X.shape) < 0.1] = np.nan
    make = DecisionTreeClassifier if estimator == "classifier" else DecisionTreeRegressor
    y = y_class if estimator == "classifier" else y_reg
    ours = make(**params).fit(X, y, sample_weight=weight)
    assert presort(X).dtype == (np.uint8 if n == 256 else np.uint16)
    monkeypatch.setattr(dtree.growth, "presort", lambda X: presort(X).astype(np.int64))
    wide = make(**params).fit(X, y, sample_weight=weight)
    for name in ("children_left", "feature", "threshold", "n_node_samples", "value",
                 "missing_go_to_left"):
        np.testing.assert_array_equal(getattr(ours.tree_, name), getattr(wide.tree_, name),
                                      err_msg=name)
