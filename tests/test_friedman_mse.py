"""criterion="friedman_mse" of DecisionTreeRegressor: Friedman's improvement score.

Checked by hand on a tiny example and against scikit-learn (the oracle) on
weighted continuous data, where no two splits tie: the same trees, numbered
alike, with the same feature importances.
"""

import numpy as np
import pytest
from sklearn import tree as sk
from test_against_sklearn import PRE_PRUNING, assert_same_tree, make_data

from dtree import DecisionTreeRegressor
from dtree.criteria import FriedmanMSE, SquaredError, get_criterion


def test_registered_for_the_regressor_only():
    assert get_criterion("friedman_mse", classification=False) is FriedmanMSE
    with pytest.raises(ValueError, match="friedman_mse"):
        get_criterion("friedman_mse", classification=True)


def test_proxy_by_hand():
    # left: y = 0, 2 (w = 1 each); right: y = 4, 8 with weights 1 and 3
    left = np.array([[2.0], [2.0]])                  # (W, S)
    right = np.array([[4.0], [4.0 + 24.0]])
    # Friedman (2001, eq. 35): w_L w_R / (w_L + w_R) * (mean_L - mean_R)**2 = 8/6 * 36
    improvement = 2.0 * 4.0 / 6.0 * (1.0 - 7.0) ** 2
    assert FriedmanMSE.proxy(left, right)[0] == pytest.approx(6.0 * improvement, rel=1e-15)


def test_tiny_tree_by_hand():
    # y = 0, 0, 1, 3: the best first cut isolates 3 (improvement 3*1/4 * (1/3 - 3)**2 =
    # 16/3 against 2*2/4 * (0 - 2)**2 = 4 and 1*3/4 * (0 - 4/3)**2 = 4/3).
    X = np.arange(4.0).reshape(-1, 1)
    y = np.array([0.0, 0.0, 1.0, 3.0])
    tree = DecisionTreeRegressor(criterion="friedman_mse", max_depth=1).fit(X, y)
    assert tree.tree_.threshold[0] == 2.5
    # node impurity is the mean squared error, leaf values are means
    assert tree.tree_.impurity.tolist() == pytest.approx([1.5, 2 / 9, 0.0])
    assert tree.predict([[0.0], [3.0]]).tolist() == pytest.approx([1 / 3, 3.0])
    assert tree.feature_importances_.tolist() == [1.0]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "params", [p for p in PRE_PRUNING if "min_impurity_decrease" not in p],
    ids=lambda p: ",".join(p))
def test_matches_sklearn(seed, params):
    # (Full depth is left out, as for squared_error: a node of two samples is
    # split alike by every feature that separates them, and scikit-learn breaks
    # such ties by its random order of the features.)
    X, _, y, weight = make_data(seed)
    ours = DecisionTreeRegressor(criterion="friedman_mse", **params).fit(X, y, sample_weight=weight)
    theirs = sk.DecisionTreeRegressor(criterion="friedman_mse", random_state=0, **params).fit(
        X, y, sample_weight=weight)
    assert_same_tree(ours, theirs)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-12)


@pytest.mark.parametrize("dataset", ["diabetes", "friedman1"])
def test_matches_sklearn_on_real_and_synthetic_data(dataset):
    from sklearn.datasets import load_diabetes, make_friedman1

    if dataset == "diabetes":
        X, y = load_diabetes(return_X_y=True)
    else:
        X, y = make_friedman1(n_samples=400, noise=1.0, random_state=0)
    weight = np.random.default_rng(0).random(y.size) + 0.5   # continuous: no ties
    ours = DecisionTreeRegressor(criterion="friedman_mse", min_samples_leaf=10).fit(
        X, y, sample_weight=weight)
    theirs = sk.DecisionTreeRegressor(criterion="friedman_mse", min_samples_leaf=10,
                                      random_state=0).fit(X, y, sample_weight=weight)
    assert theirs.tree_.node_count > 40
    assert_same_tree(ours, theirs)


def test_same_impurities_as_squared_error():
    X, _, y, weight = make_data(3)
    ours = DecisionTreeRegressor(criterion="friedman_mse", max_depth=4).fit(X, y, weight)
    plain = DecisionTreeRegressor(criterion="squared_error", max_depth=4).fit(X, y, weight)
    assert FriedmanMSE.impurity is SquaredError.impurity
    np.testing.assert_array_equal(ours.tree_.threshold, plain.tree_.threshold)
    np.testing.assert_allclose(ours.tree_.impurity, plain.tree_.impurity, rtol=1e-12)


def test_min_impurity_decrease_matches_sklearn():
    X, _, y, _ = make_data(0)
    params = {"criterion": "friedman_mse", "min_impurity_decrease": 0.02}
    ours = DecisionTreeRegressor(**params).fit(X, y)
    theirs = sk.DecisionTreeRegressor(random_state=0, **params).fit(X, y)
    assert ours.tree_.node_count == theirs.tree_.node_count
