"""The theorems of the chapter "Entropy" (book/part1/entropy.ipynb) as properties of dtree.

Each test names, in its docstring, the label of the result it checks.  Distributions
are drawn either as whole-number counts (exact, so that equality cases can be tested
strictly) or as normalised non-negative floats (possibly with empty classes).
"""

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from dtree.information import entropy, kl_divergence

TOL = 1e-12

counts = (st.lists(st.integers(0, 60), min_size=1, max_size=10)
          .filter(lambda c: sum(c) > 0).map(np.array))


@st.composite
def float_distributions(draw, min_size=1, max_size=10):
    """Normalised floats, about a quarter of the entries set to exactly 0."""
    k = draw(st.integers(min_size, max_size))
    weights = draw(st.lists(st.floats(1e-6, 1.0), min_size=k, max_size=k))
    empty = draw(st.lists(st.booleans(), min_size=k, max_size=k))
    w = np.array([0.0 if e and i > 0 else x for i, (x, e) in enumerate(zip(weights, empty))])
    return w / w.sum()


@st.composite
def count_pairs(draw):
    """Two count vectors with the same number of classes."""
    k = draw(st.integers(1, 8))
    c = st.lists(st.integers(0, 40), min_size=k, max_size=k).filter(lambda v: sum(v) > 0)
    return np.array(draw(c)), np.array(draw(c))


def same_distribution(a, b):
    """Exact test that two count vectors are proportional (a / sum a == b / sum b)."""
    return bool(np.all(a * int(b.sum()) == b * int(a.sum())))


# --------------------------------------------------------------------------
# lem-entropy-plogp: the convention 0 log 0 = 0
# --------------------------------------------------------------------------

@given(float_distributions(), st.integers(1, 5))
def test_empty_classes_contribute_nothing(p, n_empty):
    """lem-entropy-plogp: appending classes of probability 0 leaves H unchanged."""
    assert entropy(np.append(p, np.zeros(n_empty))) == pytest.approx(entropy(p), abs=TOL)


def test_plogp_tends_to_zero():
    """lem-entropy-plogp: H(1 - e, e) -> 0 = H(1, 0) as e -> 0+ (continuity at the boundary)."""
    values = [entropy([1 - 10.0**-k, 10.0**-k]) for k in range(1, 16)]
    assert all(a > b > 0 for a, b in zip(values, values[1:]))
    assert values[-1] < 1e-13
    assert entropy([1, 0]) == 0.0


# --------------------------------------------------------------------------
# thm-entropy-bounds
# --------------------------------------------------------------------------

@given(float_distributions())
def test_bounds_on_float_distributions(p):
    """thm-entropy-bounds: 0 <= H(p) <= log2 K for distributions with empty classes."""
    h = entropy(p)
    assert 0.0 <= h <= math.log2(p.size) + TOL
    assert h <= math.log2(np.count_nonzero(p)) + TOL  # rem-entropy-jensen: log2 |support|


@given(counts)
def test_bounds_and_equality_cases(c):
    """thm-entropy-bounds: H = 0 iff point mass, H = log2 K iff uniform, strict otherwise."""
    h, k = entropy(c), c.size
    if np.count_nonzero(c) == 1:
        assert h == 0.0
    else:
        assert h > 0.0
    if np.all(c == c[0]):
        assert h == pytest.approx(math.log2(k), abs=TOL)
    else:
        assert h < math.log2(k)


@given(st.integers(1, 200))
def test_uniform_and_point_masses(k):
    """thm-entropy-bounds: the two equality cases for every K."""
    assert entropy(np.ones(k)) == pytest.approx(math.log2(k), abs=TOL)
    assert entropy(np.full(k, 1 / k)) == pytest.approx(math.log2(k), abs=TOL)
    assert all(entropy(np.eye(k)[j]) == 0.0 for j in range(0, k, max(1, k // 7)))


@given(float_distributions(min_size=2), st.integers(0, 9), st.floats(1e-4, 0.5))
def test_mass_into_an_empty_class_raises_entropy(p, j, fraction):
    """thm-entropy-bounds (step 2 of the first proof): no maximum on the boundary."""
    i = int(np.argmax(p))
    j = j % p.size
    if j == i:
        j = (i + 1) % p.size
    if p[j] != 0:
        p = p.copy()
        p[i] += p[j]
        p[j] = 0.0
    m = math.log2(2 / p[i]) + 1 / math.log(2)
    eps = fraction * min(p[i] / 2, 2.0**-m)
    moved = p.copy()
    moved[i] -= eps
    moved[j] += eps
    assert entropy(moved) - entropy(p) >= eps * (math.log2(1 / eps) - m) - TOL
    assert entropy(moved) > entropy(p)


@given(float_distributions())
def test_entropy_matches_scipy(p):
    """def-entropy-shannon: dtree agrees with scipy.stats.entropy (bits and nats)."""
    assert entropy(p) == pytest.approx(scipy.stats.entropy(p, base=2), abs=TOL)
    assert entropy(p, base=math.e) == pytest.approx(scipy.stats.entropy(p), abs=TOL)


# --------------------------------------------------------------------------
# lem-entropy-gibbs
# --------------------------------------------------------------------------

@given(count_pairs())
def test_gibbs_inequality(pair):
    """lem-entropy-gibbs: D(p||q) >= 0, with equality iff p = q (exact, from counts)."""
    a, b = pair
    d = kl_divergence(a, b)
    if np.any((a > 0) & (b == 0)):
        assert d == math.inf
    elif same_distribution(a, b):
        assert d == pytest.approx(0.0, abs=TOL)
    else:
        assert d > 0.0
    assert kl_divergence(a, a) == 0.0


@given(float_distributions())
def test_divergence_from_uniform(p):
    """lem-entropy-gibbs (second proof of thm-entropy-bounds): D(p||u) = log2 K - H(p)."""
    k = p.size
    assert kl_divergence(p, np.ones(k)) == pytest.approx(math.log2(k) - entropy(p), abs=TOL)
    assert kl_divergence(p, np.full(k, 1 / k)) == pytest.approx(math.log2(k) - entropy(p), abs=TOL)


@given(float_distributions(), float_distributions())
def test_divergence_matches_scipy(p, q):
    """def-entropy-kl: dtree's D(p||q) agrees with scipy.stats.entropy(p, q)."""
    k = min(p.size, q.size)
    p, q = p[:k], q[:k]
    if p.sum() == 0 or q.sum() == 0:
        return
    p, q = p / p.sum(), q / q.sum()
    expected = scipy.stats.entropy(p, q, base=2)
    actual = kl_divergence(p, q)
    if math.isinf(expected):
        assert actual == math.inf
    else:
        assert actual == pytest.approx(expected, abs=TOL)


# --------------------------------------------------------------------------
# The grouping identity (ex-entropy-grouping)
# --------------------------------------------------------------------------

@given(float_distributions(min_size=3), st.integers(1, 9))
def test_grouping_identity(p, m):
    """ex-entropy-grouping: H(p) = H(s, p_{m+1}, ...) + s H(p_1/s, ..., p_m/s), s = p_1 + ... + p_m.

    (The grouping identity; labelled in the exercises, proved in their solutions.)
    """
    m = 1 + m % (p.size - 1)  # 1 <= m < K
    s = p[:m].sum()
    if s == 0:
        return
    rhs = entropy(np.append(s, p[m:])) + s * entropy(p[:m] / s)
    assert entropy(p) == pytest.approx(rhs, abs=TOL)


@given(counts.filter(lambda c: c.size >= 3))
def test_merging_never_increases_entropy(c):
    """ex-entropy-grouping: merging two classes lowers H, strictly unless one is empty."""
    merged = np.append(c[0] + c[1], c[2:])
    if c[0] == 0 or c[1] == 0:
        assert entropy(merged) == pytest.approx(entropy(c), abs=TOL)
    else:
        assert entropy(merged) < entropy(c)


# --------------------------------------------------------------------------
# lem-entropy-concave
# --------------------------------------------------------------------------

@given(count_pairs(), st.floats(0.0, 1.0))
def test_concavity(pair, lam):
    """lem-entropy-concave: H(lam p + (1 - lam) q) >= lam H(p) + (1 - lam) H(q)."""
    a, b = pair
    p, q = a / a.sum(), b / b.sum()
    mix = lam * p + (1 - lam) * q
    assert entropy(mix) >= lam * entropy(p) + (1 - lam) * entropy(q) - TOL


@given(count_pairs(), st.floats(0.05, 0.95))
def test_strict_concavity(pair, lam):
    """lem-entropy-concave: the inequality is strict when p != q and 0 < lam < 1."""
    a, b = pair
    p, q = a / a.sum(), b / b.sum()
    gap = entropy(lam * p + (1 - lam) * q) - (lam * entropy(p) + (1 - lam) * entropy(q))
    if same_distribution(a, b):
        assert gap == pytest.approx(0.0, abs=TOL)
    else:
        assert gap > TOL


# --------------------------------------------------------------------------
# Units (eq-entropy-units)
# --------------------------------------------------------------------------

@given(float_distributions(), st.one_of(st.floats(1.01, 1e6), st.floats(1e-6, 0.99)))
def test_base_change(p, base):
    """eq-entropy-units: H_b = H_2 / log2 b; in particular H_nats = ln 2 * H_bits."""
    assert entropy(p, base=base) == pytest.approx(entropy(p) / math.log2(base), rel=1e-12, abs=TOL)
    assert entropy(p, base=math.e) == pytest.approx(math.log(2) * entropy(p), abs=TOL)
    q = np.ones(p.size)
    assert kl_divergence(p, q, base=base) == pytest.approx(
        kl_divergence(p, q) / math.log2(base), rel=1e-12, abs=TOL)


def test_node_entropies_of_the_running_examples():
    """def-entropy-shannon: the weather root has 0.940 bits, the four animals log2 4 = 2 bits."""
    expected = -(9 / 14) * math.log2(9 / 14) - (5 / 14) * math.log2(5 / 14)
    assert entropy([9, 5]) == pytest.approx(expected, abs=1e-15)
    assert round(entropy([9, 5]), 3) == 0.940
    assert entropy([1, 1, 1, 1]) == 2.0
