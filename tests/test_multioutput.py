"""Multi-output CART: a y of shape (n_samples, n_outputs) (issue 23).

The three kinds of evidence:

* hand-computed: a four-sample tree whose impurities and cut are worked out
  below;
* properties (hypothesis) that state what a multi-output tree is: every
  node's impurity is the mean of its outputs' impurities, every leaf predicts
  each output's mean (class fractions), and a y whose outputs are copies of
  one column grows that column's tree;
* the oracle: scikit-learn's multi-output trees, node for node, on data whose
  best splits are unique (tests/test_against_sklearn.py says why).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import tree as sk
from sklearn.metrics import r2_score

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.criteria import multi_output, Gini, SquaredError
from dtree.information import entropy_from_labels, gini_from_labels, squared_error
from dtree.inspection import weighted_impurity_decrease
from tests.test_against_sklearn import PRE_PRUNING, assert_same_tree

CLASS_CRITERIA = ["gini", "entropy"]
REG_CRITERIA = ["squared_error", "friedman_mse", "absolute_error", "poisson"]


def make_data(seed, n=400, d=4):
    """Continuous features, three class outputs (3, 2 and 4 classes) and two numeric ones."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    y_class = np.column_stack([
        (X[:, 0] + 0.4 * rng.random(n) > 0.7).astype(int) + (X[:, 1] + 0.2 * rng.random(n) > 0.5),
        (X[:, 2] + 0.3 * rng.random(n) > 0.6).astype(int),
        (3.99 * X[:, 3] * rng.random(n) ** 0.1).astype(int),
    ])
    y_reg = np.column_stack([3 * X[:, 0] + np.sin(6 * X[:, 1]) + 0.3 * rng.random(n) + 1.5,
                             X[:, 2] ** 2 + 0.5 * rng.random(n) + 0.1])
    weight = rng.integers(1, 1001, n).astype(float)
    return X, y_class, y_reg, weight


# --- hand-computed -------------------------------------------------------------------

def test_a_hand_computed_two_output_tree():
    # x = 0, 1, 2, 3; output 1: 0 0 1 1; output 2: 0 1 1 1.
    # Root: Gini 1/2 and 1 - (1/16 + 9/16) = 3/8, mean 7/16.
    # Cut x <= 0.5: 3/4 * mean(4/9, 0) = 1/6; x <= 1.5: 1/2 * mean(0, 1/2) = 1/8;
    # x <= 2.5: 3/4 * mean(4/9, 4/9) = 1/3.  The best cut is 1.5.
    X = np.arange(4.0).reshape(-1, 1)
    y = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    tree = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert tree.n_outputs_ == 2
    assert tree.tree_.threshold[0] == 1.5
    assert tree.tree_.impurity.tolist() == [7 / 16, 1 / 4, 0.0]
    # the left leaf: output 1 all 0; output 2 half 0, half 1 (a tie: the first class)
    np.testing.assert_array_equal(tree.tree_.value[1], [[1.0, 0.0], [0.5, 0.5]])
    assert tree.predict([[0.0], [3.0]]).tolist() == [[0, 0], [1, 1]]


def test_the_multi_output_criterion_is_the_mean_of_the_outputs():
    # Gini of (2, 2) is 1/2, of (4, 0, 0) is 0: the mean 1/4 (the doctest's numbers)
    both = multi_output(Gini, 2, [2, 3])
    counts = np.array([[2.0], [2.0], [4.0], [0.0], [0.0]])
    assert both.impurity(counts).tolist() == [0.25]
    assert multi_output(Gini, 1) is Gini
    assert multi_output(SquaredError, 2) is multi_output(SquaredError, 2)   # cached
    # squared error of y1 = (0, 2), y2 = (1, 1): variances 1 and 0, the mean 1/2
    two = multi_output(SquaredError, 2)
    stats = two.sample_stats(np.array([[0.0, 1.0], [2.0, 1.0]]), np.ones(2)).sum(axis=1)
    assert two.impurity(stats[:, None]).tolist() == [0.5]


# --- properties ----------------------------------------------------------------------

IMPURITY = {"gini": gini_from_labels, "entropy": entropy_from_labels,
            "squared_error": squared_error, "friedman_mse": squared_error}


@st.composite
def multi_output_data(draw, classification):
    n = draw(st.integers(4, 40))
    m = draw(st.integers(2, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (n, 2)).astype(float)
    if classification:
        y = np.column_stack([rng.integers(0, draw(st.integers(1, 4)), n) for _ in range(m)])
    else:
        y = rng.integers(0, 9, (n, m)) / 4.0
    weight = rng.integers(1, 5, n).astype(float) if draw(st.booleans()) else None
    return X, y, weight


@pytest.mark.parametrize("criterion", CLASS_CRITERIA + ["squared_error", "friedman_mse"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_node_impurity_is_the_mean_of_its_outputs(criterion, data):
    """eq-cart-multioutput at every node, and prop-cart-multioutput.

    (a) every split's weighted impurity decrease is the mean of the outputs'
    decreases; (b) every node's value is each output's mean (class fractions).
    """
    classification = criterion in CLASS_CRITERIA
    X, y, weight = data.draw(multi_output_data(classification))
    Estimator = DecisionTreeClassifier if classification else DecisionTreeRegressor
    tree = Estimator(criterion=criterion).fit(X, y, sample_weight=weight)
    w = np.ones(len(y)) if weight is None else weight
    paths = tree.decision_path(X).toarray().astype(bool)
    for node in range(tree.tree_.node_count):
        rows = paths[:, node]
        mean = np.mean([IMPURITY[criterion](y[rows, k], sample_weight=w[rows])
                        for k in range(y.shape[1])])
        assert tree.tree_.impurity[node] == pytest.approx(mean, rel=1e-9, abs=1e-12)
        for k in range(y.shape[1]):       # what the node predicts for output k
            if classification:
                classes = tree.classes_[k]
                fractions = [w[rows][y[rows, k] == c].sum() / w[rows].sum() for c in classes]
                np.testing.assert_allclose(tree.tree_.value[node, k, :len(classes)], fractions,
                                           rtol=1e-12)
            else:
                assert tree.tree_.value[node, k, 0] == pytest.approx(
                    np.average(y[rows, k], weights=w[rows]), rel=1e-12, abs=1e-12)
    # (a): Delta R(s, t) = (1/m) sum_k Delta R_k(s, t) at every split
    decreases = weighted_impurity_decrease(tree)
    total = w.sum()
    for node in np.flatnonzero(tree.tree_.children_left >= 0):
        parts = [paths[:, c] for c in (node, tree.tree_.children_left[node],
                                       tree.tree_.children_right[node])]
        per_output = [
            (w[parts[0]].sum() * IMPURITY[criterion](y[parts[0], k], sample_weight=w[parts[0]])
             - sum(w[p].sum() * IMPURITY[criterion](y[p, k], sample_weight=w[p])
                   for p in parts[1:])) / total
            for k in range(y.shape[1])]
        assert decreases[node] == pytest.approx(np.mean(per_output), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("criterion", CLASS_CRITERIA + REG_CRITERIA)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_copies_of_one_output_grow_that_outputs_tree(criterion, data):
    # The mean of two equal impurities is the impurity, and every proxy is
    # the single output's times 2: exact in floating point, so the same tree,
    # ties and all.  (With three copies, (i + i + i) / 3 can miss i by an
    # ulp and break an exact tie of two cuts the other way.)
    classification = criterion in CLASS_CRITERIA
    X, y, weight = data.draw(multi_output_data(classification))
    column = y[:, 0] + (1.0 if criterion == "poisson" else 0)
    copies = np.column_stack([column, column])
    Estimator = DecisionTreeClassifier if classification else DecisionTreeRegressor
    one = Estimator(criterion=criterion).fit(X, column, sample_weight=weight)
    many = Estimator(criterion=criterion).fit(X, copies, sample_weight=weight)
    for name in ("children_left", "children_right", "feature", "threshold", "n_node_samples"):
        np.testing.assert_array_equal(getattr(many.tree_, name), getattr(one.tree_, name))
    np.testing.assert_allclose(many.tree_.impurity, one.tree_.impurity, rtol=1e-9, atol=1e-12)
    for k in range(2):
        np.testing.assert_allclose(many.tree_.value[:, k], one.tree_.value[:, 0], rtol=1e-12)
    predicted = many.predict(X)
    for k in range(2):
        np.testing.assert_array_equal(predicted[:, k], one.predict(X))


# --- the oracle: scikit-learn's trees --------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("params", PRE_PRUNING, ids=lambda p: next(iter(p)))
@pytest.mark.parametrize("criterion", CLASS_CRITERIA)
@pytest.mark.parametrize("class_weight", [None, "balanced", "list"])
def test_classifier_matches_scikit_learn(seed, params, criterion, class_weight):
    X, y, _, weight = make_data(seed)
    if class_weight == "list":
        class_weight = [{0: 2.0, 1: 1.0}, {1: 3.0}, {0: 0.5, 3: 2.0}]
    ours = DecisionTreeClassifier(criterion=criterion, class_weight=class_weight, **params)
    theirs = sk.DecisionTreeClassifier(criterion=criterion, class_weight=class_weight, **params)
    assert_same_tree(ours.fit(X, y, sample_weight=weight), theirs.fit(X, y, sample_weight=weight))
    assert ours.n_classes_.tolist() == theirs.n_classes_.tolist()
    for ours_k, theirs_k in zip(ours.classes_, theirs.classes_):
        np.testing.assert_array_equal(ours_k, theirs_k)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    for ours_k, theirs_k in zip(ours.predict_proba(X), theirs.predict_proba(X)):
        np.testing.assert_allclose(ours_k, theirs_k, rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("params", PRE_PRUNING, ids=lambda p: next(iter(p)))
# Unweighted only for the absolute error: scikit-learn's weighted medians of
# children differ from the definition (tests/test_cart_absolute_error.py),
# with one output as with several.
@pytest.mark.parametrize("criterion, weighted",
                         [(c, w) for c in REG_CRITERIA for w in (False, True)
                          if not (c == "absolute_error" and w)])
def test_regressor_matches_scikit_learn(seed, params, criterion, weighted):
    if criterion == "friedman_mse" and "min_impurity_decrease" in params:
        # Friedman's improvement is not divided by the total weight: 0.02 lets
        # nodes of a few samples split, where two features make the same
        # partition (an exact tie, broken by scikit-learn's random feature
        # order); the weights (1 to 1000) scale the improvement.
        params = {"min_impurity_decrease": 200.0 if weighted else 0.2}
    X, _, y, weight = make_data(seed)
    weight = weight if weighted else None
    ours = DecisionTreeRegressor(criterion=criterion, **params).fit(X, y, sample_weight=weight)
    theirs = sk.DecisionTreeRegressor(criterion=criterion, **params).fit(X, y,
                                                                       sample_weight=weight)
    assert_same_tree(ours, theirs)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    assert ours.score(X, y, weight) == pytest.approx(
        r2_score(y, theirs.predict(X), sample_weight=weight), rel=1e-12)


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_the_pruning_path_matches_scikit_learn(estimator):
    X, y_class, y_reg, weight = make_data(3, n=200)
    pair = ((DecisionTreeClassifier, sk.DecisionTreeClassifier, y_class)
            if estimator == "classifier" else
            (DecisionTreeRegressor, sk.DecisionTreeRegressor, y_reg))
    ours = pair[0](min_samples_leaf=5).cost_complexity_pruning_path(X, pair[2], weight)
    theirs = pair[1](min_samples_leaf=5).cost_complexity_pruning_path(X, pair[2], weight)
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("fmt", ["csc", "csr"])
@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_sparse_X_grows_the_dense_tree(fmt, estimator):
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, (300, 12)) * (rng.random((300, 12)) < 0.2)
    y = np.column_stack([X[:, 0] + X[:, 1] > 1, X[:, 2] > 0, X[:, 3] % 3]).astype(int)
    Estimator = DecisionTreeClassifier if estimator == "classifier" else DecisionTreeRegressor
    dense = Estimator(max_depth=6).fit(X, y)
    sparse = Estimator(max_depth=6).fit(sp.csc_matrix(X).asformat(fmt), y)
    for name in ("children_left", "feature", "threshold", "value", "impurity"):
        np.testing.assert_array_equal(getattr(sparse.tree_, name), getattr(dense.tree_, name))
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


# --- the API ----------------------------------------------------------------------------

def test_predictions_have_one_column_per_output():
    X, y, _, _ = make_data(0, n=120)
    labels = np.column_stack([np.array(["no", "yes", "maybe"])[y[:, 0]], y[:, 1]]).astype(object)
    labels[:, 1] = y[:, 1]                           # strings and ints: an object array
    tree = DecisionTreeClassifier(max_depth=3).fit(X, labels)
    predicted = tree.predict(X)
    assert predicted.shape == (120, 2) and predicted.dtype == object
    assert set(predicted[:, 0]) <= {"maybe", "no", "yes"} and set(predicted[:, 1]) <= {0, 1}
    proba = tree.predict_proba(X)
    assert [p.shape for p in proba] == [(120, 3), (120, 2)]
    np.testing.assert_allclose([p.sum(axis=1) for p in proba], 1.0)
    log_proba = tree.predict_log_proba(X)
    np.testing.assert_allclose(np.exp(log_proba[1]), proba[1])
    assert tree.tree_.value.shape == (tree.tree_.node_count, 2, 3)
    assert tree.tree_.value[:, 1, 2].tolist() == [0.0] * tree.tree_.node_count   # padding
    # a DataFrame y of two columns is two outputs; a column vector is one
    frame = DecisionTreeClassifier(max_depth=3).fit(X, pd.DataFrame(y[:, :2], columns=["a", "b"]))
    assert frame.n_outputs_ == 2
    with pytest.warns(Warning, match="column-vector y"):
        assert DecisionTreeRegressor().fit(X, y[:, :1].astype(float)).n_outputs_ == 1


@pytest.mark.parametrize("second", [{1: 3.0}, None])
def test_class_weight_of_several_outputs_multiplies_the_outputs_weights(second):
    # None: that output's classes weigh 1 (scikit-learn's compute_sample_weight)
    X, y, _, _ = make_data(1, n=200)
    y = y[:, :2]
    class_weight = [{0: 2.0, 1: 5.0}, second]
    product = (np.where(y[:, 0] == 0, 2.0, np.where(y[:, 0] == 1, 5.0, 1.0))
               * (1.0 if second is None else np.where(y[:, 1] == 1, 3.0, 1.0)))
    weighted = DecisionTreeClassifier(class_weight=class_weight, max_depth=4).fit(X, y)
    by_sample = DecisionTreeClassifier(max_depth=4).fit(X, y, sample_weight=product)
    np.testing.assert_array_equal(weighted.tree_.value, by_sample.tree_.value)
    np.testing.assert_array_equal(weighted.tree_.threshold, by_sample.tree_.threshold)
    # scikit-learn's sample weights for the same class_weight
    from sklearn.utils.class_weight import compute_sample_weight

    np.testing.assert_array_equal(compute_sample_weight(class_weight, y), product)


def test_bad_multi_output_input_is_refused_by_name():
    X, y, y_reg, _ = make_data(0, n=50)
    with pytest.raises(ValueError, match="number of elements in class_weight should match "
                                         "number of outputs. Got 1 element"):
        DecisionTreeClassifier(class_weight=[{0: 1.0}]).fit(X, y)
    with pytest.raises(ValueError, match="For multi-output, class_weight should be a list"):
        DecisionTreeClassifier(class_weight={0: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight has labels \\[7\\]"):
        DecisionTreeClassifier(class_weight=[{7: 1.0}, {}, {}]).fit(X, y)
    with pytest.raises(ValueError, match="'class_weight' parameter"):
        DecisionTreeClassifier(class_weight=["balanced", 3, {}]).fit(X, y)
    with pytest.raises(ValueError, match="Monotonicity constraints are not supported with "
                                         "multiple outputs"):
        DecisionTreeRegressor(monotonic_cst=[1, 0, 0, 0]).fit(X, y_reg)
    with pytest.raises(ValueError, match="y must be finite"):
        DecisionTreeRegressor().fit(X, np.column_stack([y_reg[:, 0], np.full(50, np.nan)]))
    with pytest.raises(ValueError, match="y has missing values"):
        DecisionTreeClassifier().fit(X, np.column_stack([y[:, 0], np.full(50, np.nan)]))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        DecisionTreeClassifier().fit(X, np.column_stack([y[:, 0], y_reg[:, 0]]))
    with pytest.raises(ValueError, match="X has 50 samples but y has 49"):
        DecisionTreeRegressor().fit(X, y_reg[:49])
    for shape in [(50, 0), (50, 2, 1)]:
        with pytest.raises(ValueError, match=r"y must be of shape \(n_samples,\) or "
                                             r"\(n_samples, n_outputs\)"):
            DecisionTreeRegressor().fit(X, np.zeros(shape))
    with pytest.raises(ValueError, match="negative"):
        DecisionTreeRegressor(criterion="poisson").fit(X, y_reg - 2)
    # score: 0/1 labels by exact match of every output; other labels refused
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="multiclass-multioutput is not supported"):
        tree.score(X, y)
    binary = (y > 0).astype(int)
    tree = DecisionTreeClassifier(max_depth=2).fit(X, binary)
    exact = np.mean(np.all(tree.predict(X) == binary, axis=1))
    assert tree.score(X, binary) == exact < np.mean(tree.predict(X) == binary)


def test_the_callers_y_is_not_modified():
    X, y, y_reg, weight = make_data(0, n=60)
    y_copy, reg_copy = y.copy(), y_reg.copy()
    DecisionTreeClassifier(class_weight="balanced").fit(X, y, sample_weight=weight)
    DecisionTreeRegressor(criterion="poisson").fit(X, y_reg, sample_weight=weight)
    np.testing.assert_array_equal(y, y_copy)
    np.testing.assert_array_equal(y_reg, reg_copy)


def test_check_input_is_accepted_and_changes_nothing():
    # scikit-learn's signatures: fit, predict, predict_proba, apply and
    # decision_path take check_input; dtree checks X either way.
    X, y, y_reg, _ = make_data(0, n=80)
    checked = DecisionTreeClassifier(max_depth=3).fit(X, y)
    unchecked = DecisionTreeClassifier(max_depth=3).fit(X, y, check_input=False)
    np.testing.assert_array_equal(checked.tree_.value, unchecked.tree_.value)
    np.testing.assert_array_equal(unchecked.predict(X, check_input=False), checked.predict(X))
    np.testing.assert_array_equal(unchecked.apply(X, check_input=False), checked.apply(X))
    assert (unchecked.decision_path(X, check_input=False) != checked.decision_path(X)).nnz == 0
    for a, b in zip(unchecked.predict_proba(X, check_input=False), checked.predict_proba(X)):
        np.testing.assert_array_equal(a, b)
    regressor = DecisionTreeRegressor(max_depth=3).fit(X, y_reg, check_input=False)
    with pytest.raises(ValueError, match="features"):       # still checked
        regressor.predict(X[:, :2], check_input=False)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_class_weights_of_several_outputs_are_the_stacked_one_hot_rows(weighted):
    from dtree.criteria import ClassWeights, OutputsClassWeights

    rng = np.random.default_rng(2)
    codes = np.column_stack([rng.integers(0, 2, 50), rng.integers(0, 4, 50)])
    weight = rng.integers(1, 5, 50).astype(float) if weighted else np.ones(50)
    stats = OutputsClassWeights(codes, weight, [2, 4])
    dense = np.vstack([ClassWeights(codes[:, k], weight, n_k).take(np.arange(50))
                       for k, n_k in enumerate([2, 4])])
    assert stats.shape == (6, 50) and dense[:, 7].tolist().count(0.0) == 4
    samples = rng.permutation(50)[:30].reshape(3, 10)
    np.testing.assert_array_equal(stats.take(samples), dense[:, samples])
    flat, starts = samples.ravel(), np.array([0, 4, 19])
    np.testing.assert_array_equal(stats.segment_sums(flat, starts),
                                  np.add.reduceat(dense[:, flat], starts, axis=1))
    run = np.repeat(np.arange(3), [4, 15, 11])
    np.testing.assert_array_equal(stats.run_counts(flat, run, 3),
                                  np.add.reduceat(dense[:, flat], starts, axis=1).T)
