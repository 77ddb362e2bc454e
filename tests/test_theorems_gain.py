"""Theorems of the chapter "Conditional entropy and information gain" as properties of dtree.

A joint distribution is a 2-D table P; dtree reads its rows as a feature A and
its columns as the class Y, so conditional_entropy(P) = H(Y | A) and
information_gain(P) = H(Y) - H(Y | A).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dtree.information import (
    conditional_entropy,
    entropy,
    entropy_from_labels,
    gain_ratio,
    information_gain,
    information_gain_from_labels,
    joint_entropy,
    kl_divergence,
    split_information,
)

TOL = 1e-12

shapes = st.tuples(st.integers(1, 6), st.integers(1, 6))

# Counts with many zero cells (the cases the proofs must handle), not all zero.
count_tables = shapes.flatmap(
    lambda shape: arrays(np.int64, shape, elements=st.sampled_from([0, 0, 0, 1, 2, 3, 7, 20]))
).filter(lambda table: table.sum() > 0)

# Probability vectors with some zero entries.
marginals = st.lists(st.sampled_from([0.0, 0.0, 0.1, 0.25, 0.5, 1.0, 3.0]), min_size=1, max_size=6).filter(
    lambda weights: sum(weights) > 0
).map(lambda weights: np.array(weights) / sum(weights))


def _joint(table):
    return np.asarray(table, dtype=float) / np.sum(table)


def _product_of_marginals(P):
    return np.outer(P.sum(axis=1), P.sum(axis=0))


@settings(max_examples=100, deadline=None)
@given(count_tables)
def test_gain_is_kl_divergence_and_non_negative(table):
    """thm-gain-kl: G = H(Y) - H(Y|A) = D_KL(p(a, y) || p(a) p(y)) >= 0."""
    P = _joint(table)
    gain = information_gain(table)
    assert abs(gain - kl_divergence(P, _product_of_marginals(P))) < TOL
    assert gain >= -TOL


@settings(max_examples=100, deadline=None)
@given(marginals, marginals)
def test_gain_of_independent_variables_is_zero(p_a, p_y):
    """thm-gain-kl, equality case (if): independent variables have gain 0."""
    P = np.outer(p_a, p_y)
    P = P / P.sum()  # remove the rounding of the outer product's total
    assert abs(information_gain(P)) < TOL
    assert abs(information_gain(P.T)) < TOL


@settings(max_examples=100, deadline=None)
@given(count_tables)
def test_gain_is_positive_unless_independent(table):
    """thm-gain-kl, equality case (only if): a dependent table has positive gain.

    Quantitatively (Pinsker's inequality), G >= ||p - p(a)p(y)||_1^2 / (2 ln 2) bits.
    """
    P = _joint(table)
    distance = np.abs(P - _product_of_marginals(P)).sum()
    assert information_gain(table) >= distance**2 / (2 * np.log(2)) - TOL
    if distance > 1e-9:
        assert information_gain(table) > 0


@settings(max_examples=100, deadline=None)
@given(count_tables)
def test_chain_rule(table):
    """lem-gain-chain: H(A, Y) = H(A) + H(Y|A) = H(Y) + H(A|Y)."""
    h_a, h_y, h_ay = entropy(table.sum(axis=1)), entropy(table.sum(axis=0)), joint_entropy(table)
    assert abs(h_ay - h_a - conditional_entropy(table)) < TOL
    assert abs(h_ay - h_y - conditional_entropy(table.T)) < TOL


@settings(max_examples=100, deadline=None)
@given(count_tables)
def test_gain_identities_and_symmetry(table):
    """thm-gain-identities: G(Y, A) = G(A, Y) = H(A) + H(Y) - H(A, Y) = H(A, Y) - H(Y|A) - H(A|Y)."""
    h_a, h_y, h_ay = entropy(table.sum(axis=1)), entropy(table.sum(axis=0)), joint_entropy(table)
    h_y_given_a, h_a_given_y = conditional_entropy(table), conditional_entropy(table.T)
    gain = information_gain(table)
    assert abs(gain - information_gain(table.T)) < TOL
    assert abs(gain - (h_a - h_a_given_y)) < TOL
    assert abs(gain - (h_a + h_y - h_ay)) < TOL
    assert abs(gain - (h_ay - h_y_given_a - h_a_given_y)) < TOL
    assert gain <= min(h_a, h_y) + TOL


@settings(max_examples=100, deadline=None)
@given(count_tables)
def test_gain_ratio_between_zero_and_one(table):
    """thm-gain-ratio-bound: 0 <= GainRatio <= 1 where SplitInfo > 0 (nan otherwise)."""
    ratio = gain_ratio(table)
    if split_information(table) > 0:
        assert -TOL <= ratio <= 1 + TOL
        assert abs(ratio * split_information(table) - information_gain(table)) < TOL
    else:
        assert np.isnan(ratio)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_gain_ratio_is_one_when_class_determines_branch(data):
    """thm-gain-ratio-bound, equality case: if each class lies in one branch, the ratio is 1."""
    n_classes = data.draw(st.integers(2, 6))
    n_branches = data.draw(st.integers(2, 6))
    branch_of_class = data.draw(st.lists(st.integers(0, n_branches - 1), min_size=n_classes, max_size=n_classes))
    counts = data.draw(st.lists(st.integers(1, 30), min_size=n_classes, max_size=n_classes))
    table = np.zeros((n_branches, n_classes), dtype=np.int64)
    table[branch_of_class, np.arange(n_classes)] = counts
    if len(set(branch_of_class)) < 2:
        assert np.isnan(gain_ratio(table))  # one branch: SplitInfo = 0
    else:
        assert abs(gain_ratio(table) - 1) < TOL


@settings(max_examples=100, deadline=None)
@given(count_tables)
def test_gain_ratio_is_below_one_when_a_class_is_split(table):
    """thm-gain-ratio-bound, equality case: if some class spans two branches, the ratio is < 1."""
    if split_information(table) > 0 and np.any((table > 0).sum(axis=0) >= 2):
        assert gain_ratio(table) < 1 - 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["yes", "no", "maybe"]), min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_identifier_column_has_gain_equal_to_entropy(labels, random):
    """prop-gain-id-column: a column with a different value on every row gains H(D), the maximum."""
    identifier = list(range(len(labels)))
    random.shuffle(identifier)
    h = entropy_from_labels(labels)
    assert abs(information_gain_from_labels(identifier, labels) - h) < TOL
    # No feature does better: e.g. a coarser one that pairs up the rows.
    coarser = [i // 2 for i in identifier]
    assert information_gain_from_labels(coarser, labels) <= h + TOL
