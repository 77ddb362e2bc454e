"""Property tests for the Part I lemmas and corollaries not covered by the chapter test files."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dtree.information import (conditional_entropy, entropy, gini, joint_entropy,
                               misclassification_error, split_information)

tables = arrays(np.int64, st.tuples(st.integers(1, 5), st.integers(1, 5)),
                elements=st.integers(0, 20)).filter(lambda a: a.sum() > 0)
distributions = arrays(np.float64, st.integers(2, 6),
                       elements=st.floats(0.0, 1.0)).filter(lambda a: a.sum() > 0.1)


@given(st.floats(1e-9, 1.0))
def test_log_bounds(x):
    """lem-impurity-log-bounds: 1-x <= (1-x) + (1-x)^2/2 <= -ln x <= (1-x) + (1-x)^2/(2x)."""
    first = 1 - x
    second = first + first ** 2 / 2
    upper = first + first ** 2 / (2 * x)
    tol = 1e-12 * max(1.0, upper)
    assert first <= second + tol
    assert second <= -math.log(x) + tol
    assert -math.log(x) <= upper + tol


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
