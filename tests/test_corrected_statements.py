"""Statements of the chapters that a review found wrong, each held by a test as corrected.

* appendix/ties, rem-ties-float: features are compared as float32, with no
  tolerance: values 1e-9 apart are split where float32 tells them apart.
* prepruning (the exclusive or) and postpruning: a subtree is collapsed from
  alpha >= g(t) on, and collapsing it does not increase R_alpha exactly when
  g(t) <= alpha (it is unchanged at g(t) = alpha).
* cart, the sorted sweep: scikit-learn's Gini proxy -W_L i_L - W_R i_R is the
  chapter's Q_L / W_L + Q_R / W_R minus W_t (same ranking).
* c45, def-c45-upper-limit: U is the Beta(E + 1, N - E) quantile for real E;
  it increases in real E and is not the binomial sum up to floor(E).
(cart's thm-cart-order with its tie-rule hypothesis: tests/test_theorems_cart.py.)
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom
from sklearn import tree as sk

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.pessimistic import upper_error_rate

SETTINGS = settings(max_examples=40, deadline=None)


@pytest.mark.parametrize("make", [DecisionTreeClassifier, sk.DecisionTreeClassifier])
def test_features_are_compared_as_float32_without_a_tolerance(make):
    y = [0, 1]
    assert make().fit([[0.0], [1e-9]], y).tree_.node_count == 3           # distinct float32: split
    assert make().fit([[1.0], [1.0 + 1e-9]], y).tree_.node_count == 1     # one float32 number: not
    assert make().fit([[1.0], [1.0 + 2.0**-23]], y).tree_.node_count == 3  # the next float32 up


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_a_subtree_is_collapsed_from_alpha_equal_to_its_g(seed):
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(60, 3)), rng.normal(size=60)
    path = DecisionTreeRegressor().cost_complexity_pruning_path(X, y)
    g_root = path.ccp_alphas[-1]                   # the root's g when the last split goes
    assert DecisionTreeRegressor(ccp_alpha=g_root).fit(X, y).tree_.node_count == 1
    below = np.nextafter(g_root, 0)
    assert DecisionTreeRegressor(ccp_alpha=below).fit(X, y).tree_.node_count > 1


@SETTINGS
@given(seed=st.integers(0, 10_000), alpha_offset=st.sampled_from([-0.01, 0.0, 0.01]))
def test_collapsing_changes_r_alpha_by_leaves_times_g_minus_alpha(seed, alpha_offset):
    """R_alpha(collapsed) - R_alpha(T_t) = (|T_t leaves| - 1)(g(t) - alpha): <= 0 iff g <= alpha."""
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    t = DecisionTreeRegressor(max_depth=3).fit(X, y).tree_
    w = t.weighted_n_node_samples / t.weighted_n_node_samples[0]
    leaves = t.children_left == -1
    r_tree, n_leaves = float(np.sum(w[leaves] * t.impurity[leaves])), int(leaves.sum())
    r_root = float(w[0] * t.impurity[0])
    g = (r_root - r_tree) / (n_leaves - 1)
    alpha = max(g + alpha_offset, 0.0)
    change = (r_root + alpha) - (r_tree + alpha * n_leaves)
    assert change == pytest.approx((n_leaves - 1) * (g - alpha), abs=1e-12)
    if alpha_offset == 0.0:
        assert change == pytest.approx(0.0, abs=1e-12)    # unchanged at g = alpha: not lowered


@SETTINGS
@given(counts=st.lists(st.tuples(st.floats(0, 50), st.floats(0, 50)), min_size=2, max_size=5))
def test_scikit_learns_gini_proxy_is_the_chapters_minus_the_node_weight(counts):
    left = np.array([c[0] for c in counts])
    right = np.array([c[1] for c in counts])
    w_l, w_r = left.sum(), right.sum()
    if w_l == 0 or w_r == 0:
        w_l, w_r, left, right = w_l + 1, w_r + 1, left + 1 / len(counts), right + 1 / len(counts)
    gini = lambda c: 1 - np.sum((c / c.sum()) ** 2)  # noqa: E731
    sklearn_proxy = -w_l * gini(left) - w_r * gini(right)
    chapter_proxy = np.sum(left**2) / w_l + np.sum(right**2) / w_r
    assert sklearn_proxy == pytest.approx(chapter_proxy - (w_l + w_r), rel=1e-9, abs=1e-9)


def test_the_pessimistic_rate_of_a_fractional_error_count_is_the_beta_quantile():
    u_half, u_zero, u_one = upper_error_rate(0.5, 3), upper_error_rate(0, 3), upper_error_rate(1, 3)
    assert u_zero < u_half < u_one
    assert u_zero == pytest.approx(1 - 0.25 ** (1 / 3))           # the sum up to floor(0.5) = 0
    assert abs(u_half - u_zero) > 0.1                              # not that sum
    for e in (0, 1, 2):                                            # whole E: the binomial bound
        assert binom.cdf(e, 3, upper_error_rate(e, 3)) == pytest.approx(0.25)


@SETTINGS
@given(n=st.floats(0.5, 60), fractions=st.tuples(st.floats(0, 0.99), st.floats(0, 0.99)),
       cf=st.sampled_from([0.05, 0.25, 0.5]))
def test_the_pessimistic_rate_increases_in_real_error_counts(n, fractions, cf):
    low, high = sorted(fractions)
    e_low, e_high = low * n, high * n
    if e_high - e_low < 1e-6:
        e_high = min(e_low + 1e-3, 0.999 * n)
    u_low, u_high = upper_error_rate(e_low, n, cf), upper_error_rate(e_high, n, cf)
    assert u_low <= u_high
    # strictly, until both are 1 up to rounding (E near N < 1: the quantile lies within the
    # last bits below 1, where SciPy's releases return 1.0 or 0.9999999999999999)
    assert u_low < u_high or 1.0 - u_low <= 4 * np.finfo(float).eps, (u_low, u_high)
