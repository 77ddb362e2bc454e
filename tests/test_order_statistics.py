"""dtree.order_statistics: the weighted medians behind criterion="absolute_error".

Every function is checked against the definitions on small random inputs
(hypothesis): the smallest value reaching a cumulative weight by scanning all
values, and medians and deviations by ``dtree.information.weighted_median`` and
a direct sum of ``w |y - m|``.  Whole-number targets and weights keep every sum
exact, so the comparisons are equalities up to rounding of the final division.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtree.information import weighted_median
from dtree.order_statistics import (
    RangeDeviations,
    lowest_reaching,
    segment_medians,
    segment_ranks,
)


@st.composite
def segmented(draw, unit_weight, zero_weights=False):
    """Targets (with ties), weights and segments of a sequence of 1 to 40 entries
    (with ``zero_weights``, some weights are 0, but no segment's total)."""
    sizes = draw(st.lists(st.integers(1, 12), min_size=1, max_size=4))
    m = sum(sizes)
    y = np.array(draw(st.lists(st.integers(-5, 5), min_size=m, max_size=m)), dtype=float)
    if unit_weight:
        w = np.ones(m)
    else:
        low = 0 if zero_weights else 1
        w = np.array(draw(st.lists(st.integers(low, 4), min_size=m, max_size=m)), dtype=float)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
    if zero_weights and not unit_weight:
        w[starts] += 1
    return y, w, starts, np.array(sizes, dtype=np.intp)


def deviation(y, w):
    return float(np.sum(w * np.abs(y - weighted_median(y, sample_weight=w))))


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.integers(0, 20), min_size=1, max_size=30),
       data=st.data(), unit_weight=st.booleans())
def test_lowest_reaching_is_the_first_value_whose_cumulative_weight_reaches_the_target(
        values, data, unit_weight):
    values = np.array(values, dtype=np.int32)
    n = values.size
    weight = np.ones(n) if unit_weight else \
        np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    wsum = weight * np.arange(1.0, n + 1)                  # any per-entry value
    ranges = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n)),
                                min_size=1, max_size=8))
    lo = np.array([min(a, b - 1) for a, b in ranges], dtype=np.intp)
    hi = np.array([max(a + 1, b) for a, b in ranges], dtype=np.intp)
    total = np.array([weight[a:b].sum() for a, b in zip(lo, hi)])
    fraction = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
                                           min_size=lo.size, max_size=lo.size)))
    target = fraction * total
    x, weight_below, wsum_below = lowest_reaching(
        values[None], None if unit_weight else weight[None], wsum[None],
        np.zeros(lo.size, dtype=np.intp), lo, hi, target)
    for j, (a, b) in enumerate(zip(lo, hi)):
        v, w, s = values[a:b], weight[a:b], wsum[a:b]
        expected = next(c for c in range(2 ** 5) if w[v <= c].sum() >= target[j])
        assert x[j] == expected
        assert weight_below[j] == w[v < expected].sum()
        assert wsum_below[j] == s[v < expected].sum()


@settings(max_examples=150, deadline=None)
@given(data=st.data(), unit_weight=st.booleans())
def test_segment_medians_are_the_weighted_medians_and_deviations(data, unit_weight):
    """Zero weights included: both leave them out (fit drops them before growing)."""
    y, w, starts, sizes = data.draw(segmented(unit_weight, zero_weights=True))
    W, median, D = segment_medians(y, w, starts)
    for j, (a, n) in enumerate(zip(starts, sizes)):
        ys, ws = y[a:a + n], w[a:a + n]
        assert W[j] == ws.sum()
        assert median[j] == weighted_median(ys, sample_weight=ws)
        assert D[j] == pytest.approx(deviation(ys, ws), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), unit_weight=st.booleans())
def test_range_deviations_of_every_range_of_every_segment(data, unit_weight):
    """D = sum w |y - m| of [lo, hi) from ranks within the segment (eq. D = S - 2 S_le + ...)."""
    y, w, starts, sizes = data.draw(segmented(unit_weight))
    by_y, local = segment_ranks(y, starts, sizes)   # ties: by position
    deviations = RangeDeviations(local.astype(np.int32)[None], None if unit_weight else w[None],
                                 y[None], None if unit_weight else w[by_y], y[by_y])
    lo, hi, base = [], [], []
    for a, n in zip(starts, sizes):          # every non-empty range of every segment
        for i in range(a, a + n):
            for k in range(i + 1, a + n + 1):
                lo.append(i), hi.append(k), base.append(a)
    W, D = deviations(np.zeros(len(lo), dtype=np.intp), np.array(lo), np.array(hi),
                      np.array(base))
    for j, (a, b) in enumerate(zip(lo, hi)):
        assert W[j] == w[a:b].sum()
        assert D[j] == pytest.approx(deviation(y[a:b], w[a:b]), abs=1e-12)


def test_segment_ranks_sort_each_segment_by_key():
    key = np.array([5, 2, 9, 1, 7, 3])
    by_key, rank = segment_ranks(key, np.array([0, 2]), np.array([2, 4]))
    assert by_key.tolist() == [1, 0, 3, 5, 4, 2]
    assert rank.tolist() == [1, 0, 3, 0, 2, 1]


def test_hand_computed_deviations():
    # Segment y = 1, 2, 30, 31, 33 (weights 1): [0, 2) has median 1.5 and
    # D = 1 (an even count: D = S - 2 S_le, no median needed); [2, 5) has
    # median 31, D = 1 + 0 + 2 = 3; the whole segment, median 30, D = 29 + 28 + 0 + 1 + 3.
    y = np.array([1.0, 2.0, 30.0, 31.0, 33.0])
    deviations = RangeDeviations(np.arange(5, dtype=np.int32)[None], None, y[None], None, y)
    zero = np.zeros(3, dtype=np.intp)
    W, D = deviations(zero, np.array([0, 2, 0]), np.array([2, 5, 5]), zero)
    assert W.tolist() == [2.0, 3.0, 5.0]
    assert D.tolist() == [1.0, 3.0, 61.0]


def test_a_rows_results_do_not_depend_on_the_other_rows():
    """Every prefix sum starts at its row: row 1 alone or beside row 0, the same floats."""
    rng = np.random.default_rng(0)
    y = rng.normal(size=(2, 50)) * 1e3
    w = rng.random((2, 50))
    rank = np.argsort(np.argsort(y, axis=1), axis=1).astype(np.int32)
    by_rank = np.argsort(y, axis=1)
    lo, hi = np.arange(0, 40), np.arange(10, 50)
    row = np.ones(lo.size, dtype=np.intp)
    both = RangeDeviations(rank, w, y, w[1, by_rank[1]], y[1, by_rank[1]])
    alone = RangeDeviations(rank[1:], w[1:], y[1:], w[1, by_rank[1]], y[1, by_rank[1]])
    base = np.zeros(lo.size, dtype=np.intp)
    for a, b in zip(both(row, lo, hi, base), alone(row - 1, lo, hi, base)):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_nodes_median_does_not_depend_on_the_other_nodes(data):
    """Fractional weights: each segment's (W, median, D) bitwise as if it were alone."""
    sizes = data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=5))
    m = sum(sizes)
    y = np.array(data.draw(st.lists(st.integers(0, 9), min_size=m, max_size=m)), dtype=float)
    w = np.array(data.draw(st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.7]), min_size=m,
                                    max_size=m)))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
    level = segment_medians(y, w, starts)
    for j, (a, n) in enumerate(zip(starts, sizes)):
        alone = segment_medians(y[a:a + n], w[a:a + n], np.array([0]))
        np.testing.assert_array_equal(level[:, j], alone[:, 0])


def test_the_reviewers_example_median():
    # y 0, 8, 9, 9 (sorted) with weights .1, .2, .1, .2: W/2 = 0.3 is reached
    # exactly at 8 when summed within the node, so the median is (8 + 9) / 2.
    y, w = np.array([0.0, 9.0, 8.0, 9.0]), np.array([0.1, 0.2, 0.2, 0.1])
    other = np.array([5.0, 1.0, 2.0]), np.array([0.7, 0.3, 0.1])
    level = segment_medians(np.concatenate([other[0], y]), np.concatenate([other[1], w]),
                            np.array([0, 3]))
    assert level[1, 1] == segment_medians(y, w, np.array([0]))[1, 0]
