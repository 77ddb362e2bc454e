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


def test_segment_ranks_sort_each_segment_by_key():
    key = np.array([5, 2, 9, 1, 7, 3])
    by_key, rank = segment_ranks(key, np.array([0, 2]), np.array([2, 4]))
    assert by_key.tolist() == [1, 0, 3, 5, 4, 2]
    assert rank.tolist() == [1, 0, 3, 0, 2, 1]


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
