"""Property tests for the Part I lemmas and corollaries not covered by the chapter test files."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dtree.information import (conditional_entropy, entropy, gini, joint_entropy,
                               misclassification_error, second_order_impurity,
                               self_information, split_information)

tables = arrays(np.int64, st.tuples(st.integers(1, 5), st.integers(1, 5)),
                elements=st.integers(0, 20)).filter(lambda a: a.sum() > 0)
distributions = arrays(np.float64, st.integers(2, 6),
                       elements=st.floats(0.0, 1.0)).filter(lambda a: a.sum() > 0.1)


@given(st.floats(1e-9, 1.0), st.integers(1, 5))
def test_log_bounds(x, rest):
    """lem-impurity-log-bounds: 1-x <= (1-x) + (1-x)^2/2 <= -ln x <= (1-x) + (1-x)^2/(2x),
    with -ln x dtree's self-information in nats, and the lemma where the book uses it
    (thm-impurity-taylor's proof): for a node whose classes have fractions p_k, x = p_k
    times p_k, summed over k, are dtree's Gini, G2 and entropy in nats."""
    first = 1 - x
    second = first + first ** 2 / 2
    upper = first + first ** 2 / (2 * x)
    surprisal = self_information(x, base=np.e)
    tol = 1e-12 * max(1.0, upper)
    assert abs(surprisal - -math.log(x)) <= tol
    assert first <= second + tol
    assert second <= surprisal + tol
    assert surprisal <= upper + tol
    if x <= 0.99:   # strict where the gaps exceed rounding
        assert first < second < surprisal < upper

    # a node with one class of fraction x and `rest` classes sharing 1 - x
    p = np.array([x] + [(1 - x) / rest] * rest)
    p = p[p > 0]
    terms = np.array([[1 - q, (1 - q) + (1 - q) ** 2 / 2, self_information(q, base=np.e),
                       (1 - q) + (1 - q) ** 2 / (2 * q)] for q in p])
    gini_sum, g2_sum, nats_sum, upper_sum = p @ terms
    scale = 1e-12 * max(1.0, upper_sum)
    assert abs(gini(p) - gini_sum) <= scale
    assert abs(second_order_impurity(p) - g2_sum) <= scale
    assert abs(entropy(p, base=np.e) - nats_sum) <= scale
    assert gini(p) <= second_order_impurity(p) + scale
    assert second_order_impurity(p) <= entropy(p, base=np.e) + scale
    assert entropy(p, base=np.e) <= upper_sum + scale
    # eq-impurity-remainder: p_k (1-p_k)^2 / (2 p_k) summed is half the sum of (1-p_k)^2
    assert entropy(p, base=np.e) - gini(p) <= np.sum((1 - p) ** 2) / 2 + scale


@settings(max_examples=200)
@given(tables)
def test_conditioning_reduces_entropy(table):
    """cor-gain-conditioning: H(Y|A) <= H(Y) and H(A, Y) <= H(A) + H(Y)."""
    h_y = entropy(table.sum(axis=0))
    assert conditional_entropy(table) <= h_y + 1e-12
    assert joint_entropy(table) <= split_information(table) + h_y + 1e-12


@settings(max_examples=200)
@given(distributions, distributions, st.floats(0.05, 0.95))
def test_strict_concavity(p, q, lam):
    """lem-impurity-strictly-concave: entropy and Gini strictly concave; error only concave."""
    if p.size != q.size:
        return
    p, q = p / p.sum(), q / q.sum()
    mix = lam * p + (1 - lam) * q
    mix = mix / mix.sum()
    for phi in (entropy, gini):
        gap = phi(mix) - lam * phi(p) - (1 - lam) * phi(q)
        assert gap >= -1e-12
        if np.abs(p - q).max() > 1e-3:
            assert gap > 0
    error_gap = (misclassification_error(mix) - lam * misclassification_error(p)
                 - (1 - lam) * misclassification_error(q))
    assert error_gap >= -1e-12
