"""The fast split search is the reference splitter, node by node and tree by tree.

``dtree.splitting.best_splits`` scores every cut of every node of a tree level
at once, over blocks of features and chunks of positions, with three kinds of
split where values are missing.  ``dtree.splitting.reference_split`` does the
same for one node and one feature in a few readable lines (argsort, cumulative
sums, the criterion's proxy, a loop over the candidates).  These tests check
that the two choose the same split -- feature, threshold, samples sent left,
the side of the missing values -- with the same proxy, on random data with
sample weights, missing values, feature draws and tie ranks, random
thresholds, ``min_samples_leaf``, ``min_weight_leaf``, several segments and
every criterion; and that a whole tree grown with the reference splitter
(``ReferenceSplitter``) is the tree ``fit`` grows.

Where the weights and targets are small integers and halves, every sum is
exact, so the two compute every proxy from the same statistics and must agree
float for float, ties included.  With arbitrary floats the segmented prefix
sums of the fast search and the node's own cumulative sum round differently;
the proxies then agree to rounding.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dtree.cart
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA, ClassWeights
from dtree.growth import grow_best_first, grow_depth_first
from dtree.splitting import (
    RandomSplitter,
    ReferenceSplitter,
    SearchOptions,
    best_splits,
    presort,
    reference_node_split,
)

SETTINGS = settings(max_examples=150, deadline=None)
CRITERIA = sorted(CLASSIFICATION_CRITERIA) + sorted(REGRESSION_CRITERIA)
N_CLASSES = 3
FIELDS = ("threshold", "n_left", "cut", "n_missing", "missing_left", "missing_go_to_left")


def criterion_and_stats(name, rng, n, exact, pattern="random"):
    """The criterion ``name`` and the per-sample statistics of random targets and weights.

    ``pattern="constant"``: one target value, and every split of a node ties.
    """
    if name in CLASSIFICATION_CRITERIA:
        criterion, y = CLASSIFICATION_CRITERIA[name], rng.integers(0, N_CLASSES, n)
    else:
        criterion = REGRESSION_CRITERIA[name]
        y = rng.integers(0, 10, n).astype(float) if exact else rng.gamma(2.0, size=n)
        y[0] = max(y[0], 1.0)                       # poisson: a positive sum
    if pattern == "constant":
        y[:] = y[0]
    weight = rng.integers(1, 7, n) / 2.0 if exact else rng.uniform(0.1, 3.0, n)
    if pattern == "constant" and rng.random() < 0.5:
        weight[:] = 1.0
    return criterion, criterion.sample_stats(y, weight, N_CLASSES)


def dense(stats, samples):
    """The statistics of ``samples`` as an array of shape (n_stats, len(samples))."""
    return stats.take(samples) if isinstance(stats, ClassWeights) else stats[:, samples]


def segments(rng, X, n_segments):
    """A random level: some of the samples, in ``n_segments`` nodes, sorted per feature.

    Returns ``order`` (n_features, m), ``starts`` and ``sizes``, laid out as
    the growth lays out a level (presorted once, then stably partitioned).
    """
    n = X.shape[0]
    used = rng.permutation(n)[:rng.integers(max(n_segments, n // 2), n + 1)]
    node = np.full(n, -1)
    node[used] = np.sort(rng.integers(0, n_segments, used.size))
    node[used[:n_segments]] = np.arange(n_segments)            # no empty node
    order = presort(X).astype(np.intp)
    order = np.array([row[np.argsort(node[row], kind="stable")][n - used.size:]
                      for row in order])
    sizes = np.bincount(node[used], minlength=n_segments)
    return order, np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes


def random_options(rng, X, starts, draws, has_missing):
    """Search options as the random splitters draw them (any values will do)."""
    n_segments, n_features = starts.size, X.shape[1]
    shape = (n_segments, n_features)
    options = SearchOptions()
    if draws in ("ranks", "mask", "thresholds"):
        options.feature_rank = np.argsort(rng.random(shape), axis=1).argsort(axis=1)
    if draws == "mask":
        options.feature_mask = rng.random(shape) < 0.6
    if draws == "thresholds":
        # Values of X and points between them, so that thresholds hit values too.
        options.thresholds = rng.integers(-1, 12, shape) / 2.0
        if has_missing.any():
            options.missing_left = rng.random(shape) < 0.5
    return options


def assert_same_split(found, j, reference, exact):
    if reference is None:
        assert found.feature[j] == -1
        return
    feature, split = reference
    assert found.feature[j] == feature
    for field in FIELDS:
        assert getattr(found, field)[j] == getattr(split, field), field
    assert np.isclose(found.proxy[j], split.proxy, rtol=0 if exact else 1e-12, atol=0)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), n_features=st.integers(1, 4),
       n_segments=st.integers(1, 5), criterion=st.sampled_from(CRITERIA),
       missing=st.sampled_from([0.0, 0.2, 0.6]), min_samples_leaf=st.integers(1, 4),
       min_weight_leaf=st.sampled_from([0.0, 2.0, 6.5]),
       draws=st.sampled_from(["none", "ranks", "mask", "thresholds"]),
       pattern=st.sampled_from(["random", "constant", "copies"]))
def test_best_splits_is_the_reference_node_by_node(seed, n, n_features, n_segments, criterion,
                                                   missing, min_samples_leaf, min_weight_leaf,
                                                   draws, pattern):
    # pattern: "constant" targets make every split of a node tie, "copies" of a
    # feature make features tie.
    rng = np.random.default_rng(seed)
    n_segments = min(n_segments, n)
    X = rng.integers(0, 6, size=(n, n_features)) / 2.0      # few values: ties in x
    if criterion != "absolute_error":                        # which refuses missing values
        X[rng.random(X.shape) < missing] = np.nan
    if pattern == "copies":
        X[:, rng.integers(0, n_features, n_features)] = X[:, [0]]
    criterion, stats = criterion_and_stats(criterion, rng, n, exact=True, pattern=pattern)
    order, starts, sizes = segments(rng, X, n_segments)
    has_missing = np.isnan(X).any(axis=0)
    options = random_options(rng, X, starts, draws, has_missing)
    rules = {"min_samples_leaf": min_samples_leaf, "min_weight_leaf": min_weight_leaf}
    totals = criterion.node_stats(stats, order[0], starts)
    found = best_splits(X, order, starts, sizes, stats, totals, criterion,
                        has_missing=has_missing, options=options, **rules)
    for j, (start, size) in enumerate(zip(starts, sizes)):
        samples = np.sort(order[0, start:start + size])
        reference = reference_node_split(X[samples], dense(stats, samples), criterion,
                                         **rules, **options.of_segment(j))
        assert_same_split(found, j, reference, exact=True)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 80), criterion=st.sampled_from(CRITERIA),
       missing=st.sampled_from([0.0, 0.3]), min_samples_leaf=st.integers(1, 3))
def test_the_proxies_agree_to_rounding_on_any_floats(seed, n, criterion, missing,
                                                     min_samples_leaf):
    # Arbitrary weights, targets and values: the sums are rounded, differently
    # in the fast search (one running sum along the level) and in the reference
    # (one per node); the best proxies agree to rounding, and so do the splits
    # unless two candidates tie to rounding.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[:, 2] = np.round(X[:, 2])                              # ties in x
    if criterion != "absolute_error":
        X[rng.random(X.shape) < missing] = np.nan
    criterion, stats = criterion_and_stats(criterion, rng, n, exact=False)
    order, starts, sizes = segments(rng, X, min(3, n))
    totals = criterion.node_stats(stats, order[0], starts)
    found = best_splits(X, order, starts, sizes, stats, totals, criterion,
                        min_samples_leaf=min_samples_leaf, has_missing=np.isnan(X).any(axis=0))
    for j, (start, size) in enumerate(zip(starts, sizes)):
        samples = np.sort(order[0, start:start + size])
        reference = reference_node_split(X[samples], dense(stats, samples), criterion,
                                         min_samples_leaf=min_samples_leaf)
        if reference is None:
            assert found.feature[j] == -1
        else:
            assert np.isclose(found.proxy[j], reference[1].proxy, rtol=1e-9, atol=1e-9)


class RandomReferenceSplitter(ReferenceSplitter, RandomSplitter):
    """The reference search with the random splitter's thresholds."""


@pytest.mark.parametrize("make, params", [
    (DecisionTreeClassifier, {}),
    (DecisionTreeClassifier, {"criterion": "entropy", "min_samples_leaf": 3}),
    (DecisionTreeClassifier, {"max_features": 2, "random_state": 4}),
    (DecisionTreeClassifier, {"splitter": "random", "random_state": 1}),
    (DecisionTreeClassifier, {"max_leaf_nodes": 9, "min_weight_fraction_leaf": 0.05}),
    (DecisionTreeRegressor, {"min_impurity_decrease": 0.01}),
    (DecisionTreeRegressor, {"criterion": "poisson", "max_depth": 5}),
    (DecisionTreeRegressor, {"criterion": "absolute_error", "max_depth": 4}),
    (DecisionTreeRegressor, {"splitter": "random", "max_leaf_nodes": 12, "random_state": 2}),
])
@pytest.mark.parametrize("missing", [False, True])
def test_a_tree_grown_by_the_reference_splitter_is_the_fitted_tree(monkeypatch, make, params,
                                                                   missing):
    if missing and params.get("criterion") == "absolute_error":
        pytest.skip("the absolute error refuses missing values")
    rng = np.random.default_rng(11)
    n = 150
    X = rng.integers(0, 12, size=(n, 4)) / 4.0
    if missing:
        X[rng.random(X.shape) < 0.15] = np.nan
    signal = np.nan_to_num(X[:, 0] + X[:, 1], nan=1.0)
    if make is DecisionTreeClassifier:
        y = (signal + rng.integers(0, 3, n) > 3).astype(int) + (X[:, 2] > 1)
    else:
        y = np.round(signal * 2 + rng.integers(0, 4, n))
    weight = rng.integers(1, 5, n) / 2.0                    # exact sums
    fast = make(**params).fit(X, y, sample_weight=weight)
    splitter = (RandomReferenceSplitter if params.get("splitter") == "random"
                else ReferenceSplitter)
    for name in ("grow_depth_first", "grow_best_first"):
        grow = {"grow_depth_first": grow_depth_first, "grow_best_first": grow_best_first}[name]
        monkeypatch.setattr(dtree.cart, name, functools.partial(grow, splitter=splitter))
    reference = make(**params).fit(X, y, sample_weight=weight)
    assert fast.tree_.node_count > 7
    for name in ("children_left", "children_right", "feature", "threshold", "n_node_samples",
                 "missing_go_to_left", "impurity", "value"):
        np.testing.assert_array_equal(getattr(fast.tree_, name), getattr(reference.tree_, name),
                                      err_msg=name)
