"""Inputs a fuzzer found answered wrongly or unclearly, each now a clear error or the right tree.

Found by probing with about 320 inputs (scikit-learn 1.7.2 as the oracle):
complex sample weights silently lost their imaginary part; weights of
1e-170 made a one-leaf classifier (their squares underflow); huge Python ints
as float or int parameters, class weights that are not numbers and ragged
lists raised errors that named nothing.
"""

import numpy as np
import pytest

import dtree
from dtree.exceptions import InvalidParameterError

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 4))
y = (X[:, 0] + X[:, 1] > 0).astype(int)
y_numeric = 3 * X[:, 0] + rng.normal(size=200)
w = rng.uniform(0.5, 2.0, 200)

ESTIMATORS = [dtree.DecisionTreeClassifier, dtree.DecisionTreeRegressor]


def _same_tree(a, b):
    return (a.node_count == b.node_count and np.array_equal(a.feature, b.feature)
            and np.array_equal(a.threshold, b.threshold) and np.array_equal(a.value, b.value))


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize("exponent", [-565, -1000, -200])
def test_tiny_weights_grow_the_tree_of_their_ratios(make, exponent):
    """Weights scaled by 2**exponent (exactly: the same ratios) grow the same tree; node weights scale."""
    target = y if make is dtree.DecisionTreeClassifier else y_numeric
    reference = make(random_state=0).fit(X, target, sample_weight=w).tree_
    tiny = make(random_state=0).fit(X, target, sample_weight=np.ldexp(w, exponent)).tree_
    assert reference.node_count > 5
    assert _same_tree(reference, tiny)
    np.testing.assert_array_equal(tiny.weighted_n_node_samples,
                                  np.ldexp(reference.weighted_n_node_samples, exponent))


def test_weights_of_1e_170_are_not_one_leaf():
    tiny = dtree.DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=w * 1e-170)
    rescaled = dtree.DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=w * 1e-170 * 2.0**565)
    assert tiny.tree_.node_count > 5 and _same_tree(tiny.tree_, rescaled.tree_)
    tiny_ccp = dtree.DecisionTreeRegressor(ccp_alpha=0.05).fit(X, y_numeric, sample_weight=w * 1e-170)
    normal_ccp = dtree.DecisionTreeRegressor(ccp_alpha=0.05).fit(X, y_numeric, sample_weight=w * 1e-170 * 2.0**565)
    assert _same_tree(tiny_ccp.tree_, normal_ccp.tree_)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_complex_sample_weight_is_refused(make):
    with pytest.raises(ValueError, match="Complex data not supported: sample_weight"):
        make().fit(X, y, sample_weight=w * (1 + 1j))
    with pytest.raises(ValueError, match="Complex data not supported: sample_weight"):
        make().fit(X, y, sample_weight=[1 + 0j] * 200)
    mixed = np.array([1.0] * 199 + [np.complex64(1 + 1j)], dtype=object)   # NumPy's complex scalars too
    with pytest.raises(ValueError, match="Complex data not supported: sample_weight"):
        make().fit(X, y, sample_weight=mixed)


@pytest.mark.parametrize("name", ["ccp_alpha", "min_impurity_decrease"])
def test_float_parameters_take_python_ints_of_any_size(name):
    big = dtree.DecisionTreeRegressor(**{name: 10**30}).fit(X, y_numeric)
    assert big.tree_.node_count == 1            # as 1e30 does
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter .* must be a finite float"):
        dtree.DecisionTreeRegressor(**{name: 10**400}).fit(X, y_numeric)


@pytest.mark.parametrize("name", ["max_depth", "min_samples_split", "min_samples_leaf", "max_leaf_nodes"])
@pytest.mark.parametrize("value", [2**63, 2**64, 10**30])
def test_int_parameters_beyond_any_array_mean_unbounded(name, value):
    """A depth, count or size past 2**63 means what the largest int does: no sample count reaches it."""
    fitted = dtree.DecisionTreeClassifier(**{name: value}, random_state=0).fit(X, y)
    limit = {"max_depth": 2**31 - 1, "min_samples_split": 2**31 - 1, "min_samples_leaf": 2**31 - 1,
             "max_leaf_nodes": 2**31 - 1}[name]
    same = dtree.DecisionTreeClassifier(**{name: limit}, random_state=0).fit(X, y)
    assert _same_tree(fitted.tree_, same.tree_)


@pytest.mark.parametrize("name", ["confidence_factor", "min_samples_leaf", "min_value_gap", "pruning_slack"])
def test_c45_parameters_given_huge_ints_name_themselves(name):
    with pytest.raises((InvalidParameterError, ValueError), match=name):
        dtree.C45Classifier(**{name: 10**400}).fit(X, y)


@pytest.mark.parametrize("value", ["abc", None, 1 + 1j, [1.0]])
def test_class_weight_values_that_are_not_numbers_are_named(value):
    with pytest.raises(ValueError, match=r"class_weight values must be real numbers .* got "):
        dtree.DecisionTreeClassifier(class_weight={0: value, 1: 1.0}).fit(X, y)


@pytest.mark.parametrize("where", ["X", "y", "sample_weight"])
def test_ragged_lists_are_named(where):
    inputs = {"X": [[1.0, 2.0], [3.0, 4.0]], "y": [0.0, 1.0], "sample_weight": [1.0, 1.0]}
    inputs[where] = {"X": [[1.0, 2.0], [3.0]], "y": [[0.0, 1.0], [1.0]], "sample_weight": [[1.0], [1.0, 2.0]]}[where]
    with pytest.raises(ValueError, match=f"^{where} is ragged"):
        dtree.DecisionTreeRegressor().fit(inputs["X"], inputs["y"], sample_weight=inputs["sample_weight"])


def test_weights_beyond_the_floats_range_are_named():
    with pytest.raises(ValueError, match="sample_weight must be finite"):
        dtree.DecisionTreeClassifier().fit(X[:2], [0, 1], sample_weight=[10**400, 1])
    with pytest.raises(ValueError, match="sample_weight"):
        dtree.DecisionTreeClassifier().fit(X[:2], [0, 1], sample_weight=10**400)
