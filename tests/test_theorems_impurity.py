"""The theorems of the chapter "Impurity measures", stated as properties of dtree.

Each test names in its docstring the label of the theorem it checks.
"""

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtree.information import (
    absolute_error,
    entropy,
    gini,
    information_gain,
    misclassification_error,
    squared_error,
    weighted_median,
)

TOL = 1e-12

# Class counts of a node: 1 to 8 classes, at least one sample.
counts = st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=8).filter(
    lambda c: sum(c) > 0
)


@st.composite
def probabilities(draw):
    """A distribution with 1 to 8 classes, possibly with empty classes and tiny entries."""
    raw = draw(st.lists(st.floats(min_value=0.0, max_value=1.0, allow_subnormal=False),
                        min_size=1, max_size=8))
    assume(sum(raw) > 1e-6)
    p = np.array(raw) / sum(raw)
    return p


@st.composite
def split_tables(draw):
    """A split as a table of counts: rows are 1 to 4 non-empty children, columns 2 to 4 classes."""
    n_classes = draw(st.integers(min_value=2, max_value=4))
    n_children = draw(st.integers(min_value=1, max_value=4))
    rows = draw(st.lists(
        st.lists(st.integers(min_value=0, max_value=30), min_size=n_classes, max_size=n_classes)
        .filter(lambda r: sum(r) > 0),
        min_size=n_children, max_size=n_children))
    return np.array(rows)


def decrease(table, impurity):
    """phi(parent) - sum_v w_v phi(child v) (the chapter's eq. eq-impurity-decrease)."""
    table = np.asarray(table, dtype=float)
    sizes = table.sum(axis=1)
    children = sum(n / sizes.sum() * impurity(row / n) for n, row in zip(sizes, table))
    return impurity(table.sum(axis=0) / sizes.sum()) - children


def second_order(p):
    """G2(p) = sum_k p_k [(1 - p_k) + (1 - p_k)^2 / 2] (the chapter's def-impurity-second-order)."""
    p = np.asarray(p, dtype=float)
    p = p / p.sum()
    return float(np.sum(p * ((1 - p) + (1 - p) ** 2 / 2)))


def proportions_change(table):
    """True if some child's class proportions differ from the parent's (exact integer test)."""
    table = np.asarray(table)
    return bool(np.any(table * table.sum() != np.outer(table.sum(axis=1), table.sum(axis=0))))


# --------------------------------------------------------------------------
# thm-impurity-taylor
# --------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(probabilities())
def test_taylor_chain_and_remainder(p):
    """thm-impurity-taylor: E <= Gini <= G2 <= H_nats = ln 2 * H_bits, and
    H_nats - Gini <= (1/2) sum_{p_k > 0} (1 - p_k)^2."""
    e, g, g2 = misclassification_error(p), gini(p), second_order(p)
    h_nats, h_bits = entropy(p, base=np.e), entropy(p)
    assert e <= g + TOL
    assert g <= g2 + TOL
    assert g2 <= h_nats + TOL
    assert math.isclose(h_nats, math.log(2) * h_bits, rel_tol=0, abs_tol=TOL)
    assert h_nats - g <= 0.5 * np.sum((1 - p[p > 0]) ** 2) + TOL


@settings(max_examples=150, deadline=None)
@given(counts)
def test_gini_equals_entropy_iff_point_mass(c):
    """thm-impurity-taylor: Gini = H_nats exactly for a point mass (both 0), strictly below otherwise."""
    g, h_nats = gini(c), entropy(c, base=np.e)
    if np.count_nonzero(c) == 1:
        assert g == 0.0 and h_nats == 0.0 and misclassification_error(c) == 0.0
    else:
        # Counts <= 50 over <= 8 classes keep every p_k in [1/400, 1 - 1/400]: a clear margin.
        assert h_nats - g > 1e-6


@settings(max_examples=150, deadline=None)
@given(counts)
def test_error_equals_gini_iff_uniform_on_support(c):
    """thm-impurity-taylor: E = Gini exactly when the non-zero proportions are all equal."""
    c = np.array(c)
    nonzero = c[c > 0]
    uniform_on_support = bool(np.all(nonzero == nonzero[0]))
    gap = gini(c) - misclassification_error(c)
    if uniform_on_support:
        assert abs(gap) < TOL
    else:
        assert gap > 1e-6


# --------------------------------------------------------------------------
# thm-impurity-concave-gain (and thm-impurity-error-flat)
# --------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(split_tables())
def test_entropy_and_gini_decrease_is_nonnegative_and_strict(table):
    """thm-impurity-concave-gain: entropy, Gini and G2 decreases are >= 0, and > 0 exactly when
    some child's class proportions differ from the parent's."""
    decreases = [information_gain(table), decrease(table, gini), decrease(table, second_order)]
    if proportions_change(table):
        assert all(d > 1e-10 for d in decreases)  # the smallest possible is about 5e-9
    else:
        assert all(abs(d) < TOL for d in decreases)


@settings(max_examples=150, deadline=None)
@given(split_tables())
def test_error_decrease_is_nonnegative_zero_iff_common_majority(table):
    """thm-impurity-concave-gain / thm-impurity-error-flat: the misclassification-error decrease
    is >= 0, and 0 exactly when some class is a majority class in every child."""
    d = decrease(table, misclassification_error)
    common_majority = bool(np.any(np.all(table == table.max(axis=1, keepdims=True), axis=0)))
    assert d >= -TOL
    assert (abs(d) < TOL) == common_majority
    # In counts: N_t * decrease = J(parent) - sum_v J(child v).
    errors = lambda row: row.sum() - row.max()  # noqa: E731
    expected = errors(table.sum(axis=0)) - sum(errors(row) for row in table)
    assert math.isclose(table.sum() * d, expected, rel_tol=0, abs_tol=1e-9)


def test_error_blind_to_a_split_that_changes_proportions():
    """thm-impurity-concave-gain: 80/20 into (40/20) and (40/0) changes the proportions; the error
    decrease is 0 (error is not strictly concave), the entropy and Gini decreases are positive."""
    table = np.array([[40, 20], [40, 0]])
    assert proportions_change(table)
    assert abs(decrease(table, misclassification_error)) < TOL
    assert information_gain(table) > 0.1
    assert decrease(table, gini) > 0.05


# --------------------------------------------------------------------------
# thm-impurity-regression-minimisers
# --------------------------------------------------------------------------

@st.composite
def weighted_targets(draw):
    n = draw(st.integers(min_value=1, max_value=25))
    y = draw(st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_subnormal=False),
                      min_size=n, max_size=n))
    w = draw(st.lists(st.one_of(st.just(0.0), st.floats(min_value=0.01, max_value=10.0)),
                      min_size=n, max_size=n))
    assume(sum(w) > 0)
    return np.array(y), np.array(w)


@settings(max_examples=100, deadline=None)
@given(weighted_targets(), st.floats(min_value=-100.0, max_value=100.0, allow_subnormal=False))
def test_mean_minimises_weighted_squares(data, delta):
    """thm-impurity-regression-minimisers (1): F2(mean + delta) = F2(mean) + W delta^2, and
    squared_error = F2(mean) / W."""
    y, w = data
    W = w.sum()
    mean = np.average(y, weights=w)
    f2 = lambda c: float(np.sum(w * (y - c) ** 2))  # noqa: E731
    scale = 1.0 + f2(mean) + W * delta**2
    assert abs(f2(mean + delta) - f2(mean) - W * delta**2) <= 1e-10 * scale
    assert f2(mean) <= f2(mean + delta) + 1e-10 * scale
    assert math.isclose(squared_error(y, sample_weight=w), f2(mean) / W, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=100, deadline=None)
@given(weighted_targets(), st.floats(min_value=-100.0, max_value=100.0, allow_subnormal=False))
def test_weighted_median_minimises_weighted_absolute_deviations(data, delta):
    """thm-impurity-regression-minimisers (2): F1(weighted_median) <= F1(c) for every data point c
    (where a piecewise linear convex function attains its minimum) and for perturbed values,
    the median meets W(y < m) <= W/2 <= W(y <= m), and absolute_error = F1(m) / W."""
    y, w = data
    W = w.sum()
    m = weighted_median(y, sample_weight=w)
    f1 = lambda c: float(np.sum(w * np.abs(y - c)))  # noqa: E731
    tol = 1e-9 * (1.0 + W * (np.abs(y).max() + abs(delta)))
    assert f1(m) <= min(f1(c) for c in y) + tol
    assert f1(m) <= f1(m + delta) + tol
    assert w[y < m].sum() <= W / 2 + 1e-9 * W
    assert w[y <= m].sum() >= W / 2 - 1e-9 * W
    assert math.isclose(absolute_error(y, sample_weight=w), f1(m) / W, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=100, deadline=None)
@given(weighted_targets(), st.data())
def test_regression_decrease_is_nonnegative(data, draw):
    """thm-impurity-regression-minimisers (3): splitting never increases the weighted squared or
    absolute error."""
    y, w = data
    assume(y.size >= 2)
    left = np.array(draw.draw(st.lists(st.booleans(), min_size=y.size, max_size=y.size)))
    assume(w[left].sum() > 0 and w[~left].sum() > 0)
    W = w.sum()
    for impurity in (squared_error, absolute_error):
        parent = impurity(y, sample_weight=w)
        children = sum(w[m].sum() / W * impurity(y[m], sample_weight=w[m]) for m in (left, ~left))
        assert parent - children >= -1e-9 * (1.0 + parent)
