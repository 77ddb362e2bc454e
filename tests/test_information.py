"""dtree.information: textbook values, theorems as properties, scipy as oracle, bad input."""

import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dtree.datasets import load_animals, load_weather
from dtree.information import (
    conditional_entropy,
    conditional_entropy_from_labels,
    contingency_table,
    entropy,
    entropy_from_labels,
    gain_ratio,
    gain_ratio_from_labels,
    gini,
    gini_from_labels,
    information_gain,
    information_gain_from_labels,
    joint_entropy,
    kl_divergence,
    misclassification_error,
    misclassification_error_from_labels,
    self_information,
    split_information,
    split_information_from_labels,
)

# --------------------------------------------------------------------------
# Hand-computed textbook values
# --------------------------------------------------------------------------

WEATHER_GAINS = {"outlook": 0.247, "temperature": 0.029, "humidity": 0.152, "windy": 0.048}


def test_weather_entropy_is_0940_bits():
    # H(9/14, 5/14) = -(9/14) log2(9/14) - (5/14) log2(5/14), Quinlan (1986) section 4.
    expected = -(9 / 14) * math.log2(9 / 14) - (5 / 14) * math.log2(5 / 14)
    assert entropy([9, 5]) == pytest.approx(expected, abs=1e-15)
    assert round(entropy([9, 5]), 3) == 0.940
    assert entropy_from_labels(load_weather()["play"]) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("feature, gain", sorted(WEATHER_GAINS.items()))
def test_weather_information_gains(feature, gain):
    weather = load_weather()
    assert round(information_gain_from_labels(weather[feature], weather["play"]), 3) == gain


def test_weather_outlook_by_hand():
    # Branches sunny (2 yes, 3 no), overcast (4, 0), rainy (3, 2).
    h_sunny = -(2 / 5) * math.log2(2 / 5) - (3 / 5) * math.log2(3 / 5)
    h_cond = 5 / 14 * h_sunny + 4 / 14 * 0.0 + 5 / 14 * h_sunny
    table = [[3, 2], [0, 4], [2, 3]]
    assert conditional_entropy(table) == pytest.approx(h_cond, abs=1e-15)
    assert information_gain(table) == pytest.approx(entropy([9, 5]) - h_cond, abs=1e-15)
    split = -2 * (5 / 14) * math.log2(5 / 14) - (4 / 14) * math.log2(4 / 14)
    assert split_information(table) == pytest.approx(split, abs=1e-15)
    assert round(split_information(table), 3) == 1.577
    assert gain_ratio(table) == pytest.approx((entropy([9, 5]) - h_cond) / split, abs=1e-15)
    assert round(gain_ratio(table), 3) == 0.156


def test_weather_table_from_labels_matches_crosstab():
    weather = load_weather()
    table, values, classes = contingency_table(weather["outlook"], weather["play"])
    expected = pd.crosstab(weather["outlook"], weather["play"])
    np.testing.assert_array_equal(table, expected.to_numpy())
    assert values.tolist() == expected.index.tolist()
    assert classes.tolist() == expected.columns.tolist()
    assert information_gain(expected) == information_gain(table)


def test_four_animals():
    # Seed 001: H = 2 bits; gain of "has feathers" 1.0, of "can fly" and "has fins" 0.811.
    animals = load_animals()
    assert entropy_from_labels(animals["animal"]) == 2.0
    assert information_gain_from_labels(animals["has_feathers"], animals["animal"]) == 1.0
    for feature in ("can_fly", "has_fins"):
        gain = information_gain_from_labels(animals[feature], animals["animal"])
        assert gain == pytest.approx(2 - 0.75 * math.log2(3), abs=1e-15)
        assert round(gain, 3) == 0.811
    # An ID column: every branch pure, gain = H(D) = 2 bits.
    assert information_gain_from_labels(np.arange(4), animals["animal"]) == 2.0


def test_weather_gini_of_outlook_values():
    # CART's Gini index of the binary split "outlook == v" (Zhou Yong 2015: 0.394, 0.357, 0.457).
    weather = load_weather()
    expected = {"sunny": 0.394, "overcast": 0.357, "rainy": 0.457}
    for value, gini_index in expected.items():
        left = weather["play"][weather["outlook"] == value]
        right = weather["play"][weather["outlook"] != value]
        weighted = (len(left) * gini_from_labels(left) + len(right) * gini_from_labels(right)) / 14
        assert round(weighted, 3) == gini_index


def test_self_information_coding_examples():
    assert self_information(1 / 4) == 2.0
    assert self_information(1 / 8) == 3.0
    assert self_information(1.0) == 0.0
    assert self_information(0.0) == math.inf
    np.testing.assert_allclose(self_information([0.5, 0.25]), [1.0, 2.0])


def test_gini_and_misclassification_values():
    assert gini([1, 1]) == 0.5
    assert gini([9, 5]) == pytest.approx(1 - (9 / 14) ** 2 - (5 / 14) ** 2)
    assert misclassification_error([9, 5]) == pytest.approx(5 / 14)
    assert misclassification_error_from_labels(["a", "a", "b"]) == pytest.approx(1 / 3)


def test_weighted_labels_equal_repeated_samples():
    # A weight of 2 counts like a repeated sample.
    x, y = ["p", "p", "q"], [0, 1, 1]
    weighted = information_gain_from_labels(x, y, sample_weight=[1, 2, 3])
    repeated = information_gain_from_labels(["p"] * 3 + ["q"] * 3, [0, 1, 1, 1, 1, 1])
    assert weighted == pytest.approx(repeated, abs=1e-15)
    assert entropy_from_labels(y, sample_weight=[2, 1, 1]) == 1.0
    # Non-integer weights are fine (they are normalised internally).
    assert gain_ratio_from_labels(x, y, sample_weight=[0.5, 0.25, 0.25]) >= 0


def test_base_changes_units_only():
    assert entropy([9, 5], base=math.e) == pytest.approx(entropy([9, 5]) * math.log(2))
    assert gain_ratio([[3, 2], [0, 4], [2, 3]], base=10) == pytest.approx(
        gain_ratio([[3, 2], [0, 4], [2, 3]]))


# --------------------------------------------------------------------------
# Oracle: scipy
# --------------------------------------------------------------------------

counts_1d = arrays(np.int64, st.integers(1, 8), elements=st.integers(0, 50)).filter(
    lambda a: a.sum() > 0)
tables = arrays(np.int64, st.tuples(st.integers(1, 6), st.integers(1, 6)),
                elements=st.integers(0, 30)).filter(lambda a: a.sum() > 0)


@given(counts_1d)
def test_entropy_matches_scipy(counts):
    assert entropy(counts) == pytest.approx(scipy.stats.entropy(counts, base=2), abs=1e-12)


@given(tables)
def test_information_gain_is_mutual_information_of_scipy(table):
    p = table / table.sum()
    product = np.outer(p.sum(axis=1), p.sum(axis=0))
    expected = scipy.stats.entropy(p.ravel(), product.ravel(), base=2)
    assert information_gain(table) == pytest.approx(expected, abs=1e-12)
    assert kl_divergence(p, product) == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------
# Theorems as properties
# --------------------------------------------------------------------------

@given(counts_1d)
def test_entropy_bounds(counts):
    """thm-entropy-bounds: 0 <= H <= log2 K, zero iff one class, log2 K iff uniform."""
    h = entropy(counts)
    k = counts.size
    assert -1e-12 <= h <= math.log2(k) + 1e-12
    nonzero = np.count_nonzero(counts)
    if nonzero == 1:
        assert h == 0.0
    else:
        assert h > 0
    if np.all(counts == counts[0]):
        assert h == pytest.approx(math.log2(k), abs=1e-12)
    elif nonzero > 0:
        assert h < math.log2(k)


@given(tables)
def test_gain_is_nonnegative_and_bounded(table):
    """thm-gain-kl: Gain = D_KL(p(a, y) || p(a) p(y)) >= 0 and Gain <= min(H(Y), H(A))."""
    gain = information_gain(table)
    assert gain >= -1e-12
    assert gain <= entropy(table.sum(axis=0)) + 1e-12
    assert gain <= split_information(table) + 1e-12


@given(tables)
def test_gain_zero_iff_rows_proportional(table):
    """thm-gain-kl: equality Gain = 0 exactly when feature and class are independent."""
    p = table / table.sum()
    independent = np.allclose(p, np.outer(p.sum(axis=1), p.sum(axis=0)), atol=1e-12)
    assert (abs(information_gain(table)) < 1e-10) == independent


@given(tables)
def test_gain_ratio_at_most_one(table):
    """thm-gain-ratio-bound: 0 <= GainRatio <= 1 wherever SplitInfo > 0."""
    ratio = gain_ratio(table)
    if split_information(table) == 0:
        assert math.isnan(ratio)
    else:
        assert -1e-12 <= ratio <= 1 + 1e-12


@given(tables)
def test_chain_rule_identities(table):
    """Gain = H(Y) - H(Y|A) = H(A) + H(Y) - H(A, Y)."""
    h_a, h_y = split_information(table), entropy(table.sum(axis=0))
    gain = information_gain(table)
    assert gain == pytest.approx(h_y - conditional_entropy(table), abs=1e-12)
    assert gain == pytest.approx(h_a + h_y - joint_entropy(table), abs=1e-12)


@settings(max_examples=200)
@given(st.floats(1e-150, 1.0), st.floats(1e-150, 1.0))  # p*q stays a normal float
def test_self_information_is_additive(p, q):
    """thm-information-unique: I(pq) = I(p) + I(q) for -log2."""
    assert self_information(p * q) == pytest.approx(
        self_information(p) + self_information(q), rel=1e-12, abs=1e-12)


@given(counts_1d)
def test_gini_and_error_bounds(counts):
    k = counts.size
    g, e = gini(counts), misclassification_error(counts)
    assert -1e-12 <= e <= g + 1e-12  # 1 - max p <= 1 - sum p^2
    assert g <= 1 - 1 / k + 1e-12


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------

@pytest.mark.parametrize("bad, message", [
    ([], "pk is empty"),
    ([3, -1], "non-negative"),
    ([0.2, 0.3], "sum to 1"),
    ([0, 0], "sums to 0"),
    ([1, np.nan], "finite"),
    ([1, np.inf], "finite"),
    ([[1, 2]], "1-D"),
])
def test_entropy_rejects_bad_distributions(bad, message):
    with pytest.raises(ValueError, match=message):
        entropy(bad)


def test_non_numeric_distribution_is_a_type_error():
    with pytest.raises(TypeError, match="pk must hold numbers"):
        entropy(["a", "b"])


@pytest.mark.parametrize("function", [conditional_entropy, information_gain, gain_ratio,
                                      joint_entropy])
def test_table_functions_reject_bad_tables(function):
    with pytest.raises(ValueError, match="table must be 2-D"):
        function([1, 2, 3])
    with pytest.raises(ValueError, match="non-negative"):
        function([[1, -2], [3, 4]])
    with pytest.raises(ValueError, match="table is empty"):
        function(np.zeros((0, 2)))


@pytest.mark.parametrize("base", [0, 1, -2, math.inf])
def test_bad_base(base):
    with pytest.raises(ValueError, match="base must be"):
        entropy([1, 1], base=base)


def test_mismatched_lengths_name_the_arguments():
    with pytest.raises(ValueError, match="x and y must have the same length, got 3 and 2"):
        information_gain_from_labels(["a", "b", "c"], [0, 1])
    with pytest.raises(ValueError, match="sample_weight has 2 entries but there are 3"):
        conditional_entropy_from_labels(["a", "b", "c"], [0, 1, 1], sample_weight=[1, 1])
    with pytest.raises(ValueError, match="pk and qk must have the same shape"):
        kl_divergence([1, 1], [1, 1, 1])


def test_bad_weights_and_missing_labels():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        entropy_from_labels([0, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        entropy_from_labels([0, 1], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="y has 1 missing value"):
        entropy_from_labels([0, None, 1])
    with pytest.raises(ValueError, match="x is empty"):
        split_information_from_labels([])


def test_self_information_rejects_non_probabilities():
    with pytest.raises(ValueError, match=r"p must hold probabilities in \[0, 1\]"):
        self_information(1.5)


def test_inputs_are_not_modified():
    counts = np.array([3, 1])
    table = np.array([[3, 2], [0, 4]])
    y = pd.Series(["a", "b", "a"])
    entropy(counts)
    information_gain(table)
    entropy_from_labels(y)
    np.testing.assert_array_equal(counts, [3, 1])
    np.testing.assert_array_equal(table, [[3, 2], [0, 4]])
    assert y.tolist() == ["a", "b", "a"]


# --------------------------------------------------------------------------
# Regression impurities and missing values
# --------------------------------------------------------------------------

from dtree.information import (  # noqa: E402
    absolute_error,
    gain_with_missing_values,
    squared_error,
    weighted_median,
)

targets = arrays(np.float64, st.integers(1, 30),
                 elements=st.floats(-100, 100, allow_nan=False).map(lambda v: round(v, 2)))


@settings(max_examples=60, deadline=None)
@given(targets, st.data())
def test_regression_impurities_match_scikit_learn_root(y, data):
    """The root impurity and value of scikit-learn's regressors (oracle)."""
    from sklearn.tree import DecisionTreeRegressor

    weight = np.array(data.draw(st.lists(st.integers(1, 5), min_size=y.size, max_size=y.size)),
                      dtype=float)
    X = np.zeros((y.size, 1))
    for criterion, impurity, centre in [("squared_error", squared_error, None),
                                        ("absolute_error", absolute_error, weighted_median)]:
        tree = DecisionTreeRegressor(criterion=criterion).fit(X, y, sample_weight=weight)
        assert impurity(y, sample_weight=weight) == pytest.approx(
            tree.tree_.impurity[0], rel=1e-9, abs=1e-9)
        if centre is not None:
            assert centre(y, sample_weight=weight) == pytest.approx(tree.tree_.value[0, 0, 0])


@settings(max_examples=100, deadline=None)
@given(targets, st.data())
def test_samples_of_zero_weight_change_no_median(y, data):
    """A zero-weight sample carries no mass: adding some, anywhere and of any
    value, changes neither the weighted median nor the absolute error."""
    n = y.size
    weight = np.array(data.draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), dtype=float)
    extra = np.array(data.draw(st.lists(st.integers(-100, 100), min_size=1, max_size=5)),
                     dtype=float)
    where = data.draw(st.permutations(range(n + extra.size)))
    y_all = np.concatenate([y, extra])[list(where)]
    w_all = np.concatenate([weight, np.zeros(extra.size)])[list(where)]
    assert weighted_median(y_all, sample_weight=w_all) == weighted_median(y, sample_weight=weight)
    assert absolute_error(y_all, sample_weight=w_all) == pytest.approx(
        absolute_error(y, sample_weight=weight), rel=1e-12, abs=1e-12)


def test_regression_impurity_values():
    assert squared_error([1, 2, 3, 10]) == pytest.approx(np.var([1, 2, 3, 10]))
    assert weighted_median([3, 1, 2]) == 2.0
    assert weighted_median([1, 2, 3, 10]) == np.median([1, 2, 3, 10])
    assert absolute_error([1, 2, 3, 10]) == pytest.approx(np.mean(np.abs(np.array([1, 2, 3, 10]) - 2.5)))
    with pytest.raises(ValueError, match="y must be finite"):
        squared_error([1.0, np.nan])


def test_gain_with_missing_values():
    weather = load_weather()
    outlook = weather["outlook"].mask(weather.index == 12)
    known = outlook.notna()
    expected = 13 / 14 * information_gain_from_labels(outlook[known], weather["play"][known])
    assert gain_with_missing_values(outlook, weather["play"]) == pytest.approx(expected)
    assert gain_with_missing_values(weather["outlook"], weather["play"]) == pytest.approx(
        information_gain_from_labels(weather["outlook"], weather["play"]))
    assert gain_with_missing_values([None, None], ["a", "b"]) == 0.0


# --- second-order impurity and impurity decrease ----------------------------------

def test_second_order_impurity_hand_values():
    from dtree.information import second_order_impurity

    assert second_order_impurity([1, 1]) == pytest.approx(0.625)
    assert second_order_impurity([5, 0]) == 0.0
    # three equal classes: 3 * 1/3 * (2/3 + 2/9) = 8/9
    assert second_order_impurity([1, 1, 1]) == pytest.approx(8 / 9)


@given(st.lists(st.integers(0, 50), min_size=2, max_size=6).filter(lambda c: sum(c) > 0))
def test_second_order_impurity_lies_between_gini_and_entropy_in_nats(counts):
    """def-impurity-second-order, thm-impurity-taylor: Gini <= G2 <= H (nats): the series has positive terms."""
    from dtree.information import second_order_impurity

    g2 = second_order_impurity(counts)
    assert gini(counts) - 1e-12 <= g2 <= entropy(counts, base=np.e) + 1e-12


@given(st.lists(st.lists(st.integers(0, 30), min_size=3, max_size=3), min_size=2, max_size=5)
       .filter(lambda t: sum(map(sum, t)) > 0))
def test_impurity_decrease_is_gain_with_entropy_and_non_negative(table):
    """thm-impurity-concave-gain: a concave impurity never increases under a split."""
    from dtree.information import impurity_decrease, misclassification_error, \
        second_order_impurity

    assert impurity_decrease(table, entropy) == pytest.approx(information_gain(table), abs=1e-12)
    for phi in (gini, entropy, misclassification_error, second_order_impurity):
        assert impurity_decrease(table, phi) >= -1e-12


def test_impurity_decrease_rejects_bad_tables():
    from dtree.information import impurity_decrease

    with pytest.raises(ValueError, match="table"):
        impurity_decrease([1, 2, 3])
    with pytest.raises(ValueError, match="non-negative"):
        impurity_decrease([[1, -2], [3, 4]])
    with pytest.raises(ValueError, match="sums to 0"):
        impurity_decrease([[0, 0], [0, 0]])


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["bool", "int8", "uint8", "int64", "uint64"]), st.integers(1, 40),
       st.integers(0, 2**32 - 1))
def test_encoding_integers_gives_pandas_sorted_factorize(dtype, n, seed):
    # dtree._validation.encode's NumPy path for booleans and integers: the
    # codes and sorted distinct values of pandas' factorize(sort=True).
    from dtree._validation import encode

    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype) if dtype != "bool" else None
    values = (rng.random(n) < 0.5 if info is None
              else rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True))
    values = values[rng.integers(0, n, size=n)]           # repeated values
    codes, uniques = encode(values)
    expected_codes, expected_uniques = pd.factorize(values, sort=True)
    np.testing.assert_array_equal(codes, expected_codes)
    np.testing.assert_array_equal(uniques, np.asarray(expected_uniques))
    assert codes.dtype == np.intp and uniques.dtype == values.dtype


def test_big_endian_integer_labels_are_encoded_like_native_ones():
    # pandas' factorize refuses big-endian buffers; NumPy's unique takes them.
    from dtree._validation import encode

    labels = np.array([7, -2, 7, 300, -2], dtype=">i4")
    codes, uniques = encode(labels)
    native_codes, native_uniques = encode(labels.astype("<i4"))
    np.testing.assert_array_equal(codes, native_codes)
    assert uniques.tolist() == native_uniques.tolist() == [-2, 7, 300]
    assert information_gain_from_labels(np.array([0, 1, 0, 1, 1], dtype=">i8"), labels) == \
        information_gain_from_labels(np.array([0, 1, 0, 1, 1]), labels.astype("<i4"))
