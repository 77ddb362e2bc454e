"""The CART criteria: the Criterion interface, and one impurity written twice.

The entropy and the Gini impurity exist twice: in ``dtree.information`` (on
the last axis, for ID3, C4.5 and the book's Part 1) and in ``dtree.criteria``
(on the first axis, in scikit-learn's order of operations, for CART).  They
round differently and are both kept, so that no tree of either family and no
printed number changes; these tests check that they compute the same function.
"""

from __future__ import annotations

import inspect

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dtree import criteria
from dtree.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA, Criterion, Entropy, Gini
from dtree.information import _entropy_of_counts, _gini_of_counts

SETTINGS = settings(max_examples=200, deadline=None)

counts = st.integers(1, 12).flatmap(lambda k: st.lists(
    st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 1e6)), min_size=k, max_size=k)
    .filter(lambda row: sum(row) > 0), min_size=1, max_size=6))


@SETTINGS
@given(table=counts)
def test_criteria_and_information_compute_the_same_impurities(table):
    nodes = np.array(table)                     # (n_nodes, n_classes): information's axis
    np.testing.assert_allclose(Gini.impurity(nodes.T), _gini_of_counts(nodes),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(Entropy.impurity(nodes.T), _entropy_of_counts(nodes),
                               rtol=0, atol=1e-12)
    weight = nodes.sum(axis=1)
    for criterion, kernel in ((Gini, _gini_of_counts), (Entropy, _entropy_of_counts)):
        np.testing.assert_allclose(criterion.weighted_impurity(nodes.T), weight * kernel(nodes),
                                   rtol=1e-12, atol=1e-12 * weight.max())


def defined_by(cls, name):
    """The class of ``cls``'s MRO that defines the attribute ``name``."""
    return next(c for c in cls.__mro__ if name in vars(c))


def test_every_criterion_subclasses_criterion_and_declares_its_interface():
    for criterion in {**CLASSIFICATION_CRITERIA, **REGRESSION_CRITERIA}.values():
        assert issubclass(criterion, Criterion)
        assert isinstance(criterion.name, str) and isinstance(criterion.is_classification, bool)
        for method in ("sample_stats", "weight", "impurity", "proxy", "value"):
            assert defined_by(criterion, method) is not Criterion, (criterion.name, method)
        # the sweep's declaration: a proxy of its own, every function static
        assert defined_by(criterion, "score") is not Criterion, criterion.name
        for name in criterion.SWEEP:
            assert isinstance(vars(defined_by(criterion, name))[name], staticmethod), name
    # Every class of the module that is a criterion is in a table.
    tables = set(CLASSIFICATION_CRITERIA.values()) | set(REGRESSION_CRITERIA.values())
    for _, cls in inspect.getmembers(criteria, inspect.isclass):
        if issubclass(cls, Criterion) and cls is not Criterion:
            assert cls in tables or any(issubclass(t, cls) for t in tables)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 60), st.integers(0, 2**31 - 1))
def test_p_log2_p_takes_logs_only_of_positive_values_and_gives_the_same_floats(k, c, seed):
    """The masked ``p log2 p`` is bit for bit the unmasked one: zeros, NaN columns, strides."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(k, 2 * c)) * (rng.random((k, 2 * c)) < 0.4)
    counts[:, 0] = 0                                    # a node of no weight: p is NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        strided = (counts / counts.sum(axis=0))[:, ::2]       # a strided view
    for p in (strided, strided.T):                              # C and Fortran layouts
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = np.where(p > 0, p * np.log2(p), 0.0)
        got = criteria._p_log2_p(p)
        assert not np.isnan(got).any()
        np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))
        # In np.where's layout: the sum over the classes adds in the same order
        # (NumPy sums pairwise along a contiguous axis, in sequence across rows).
        sums = [criteria._sum_over_classes(a) for a in (got, expected)]
        np.testing.assert_array_equal(sums[0].view(np.int64), sums[1].view(np.int64))
