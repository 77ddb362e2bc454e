"""The theorems of the C4.5 chapter and its pruning section (book/part2/c45.ipynb,
book/part2/c45_pruning.ipynb), stated as properties.

Each test names the label of the statement it checks.
"""

from unittest.mock import patch

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from dtree import C45Classifier
from dtree.c45 import TEXTBOOK, nominal_split, threshold_split
from dtree import multiway
from dtree.multiway import threshold_splits
from dtree.information import entropy, gain_with_missing_values, information_gain_from_labels
from dtree.pessimistic import confidence_prune, pessimistic_prune, upper_error_rate
from dtree.tree import Node, iter_nodes


def h(x):
    return float(entropy([x, 1.0 - x]))


def random_frame(seed, missing=0.2, n_classes=3):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 40))
    X = pd.DataFrame({
        "a": rng.normal(size=n).round(1),
        "b": rng.choice(["u", "v", "w"], size=n).astype(object),
        "c": rng.integers(0, 5, size=n).astype(float),
    })
    X.loc[rng.random(n) < missing, "a"] = np.nan
    X.loc[rng.random(n) < missing, "b"] = None
    y = rng.choice(["p", "q", "r"][:n_classes], size=n)
    return X, y, rng


seeds = st.integers(0, 100_000)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6), seeds, st.floats(0.01, 1.0))
def test_small_pure_branch(n_classes, seed, fraction):
    """thm-c45-small-branch: SplitInfo = h(q), Gain = h(q) - p_k h(q/p_k)."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(n_classes))
    k = int(rng.integers(n_classes))
    q = p[k] * fraction
    if q >= 1 - 1e-9 or p[k] - q < 0:
        return
    codes = np.r_[np.zeros(n_classes, dtype=int), 1]
    labels = np.r_[np.arange(n_classes), k]
    weights = np.r_[p - q * (np.arange(n_classes) == k), q]
    split = nominal_split(codes, labels, weights, 2, n_classes, min_samples_leaf=0)
    assert split.split_information == pytest.approx(h(q), abs=1e-12)
    assert split.gain == pytest.approx(h(q) - p[k] * h(q / p[k]), abs=1e-12)
    assert split.gain <= split.split_information + 1e-12


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_selection_rule(seed):
    """def-c45-rule: the chosen test has gain >= average and the largest ratio among those."""
    X, y, _ = random_frame(seed, missing=0.0)
    tree = C45Classifier(**TEXTBOOK, pruning=None, min_samples_leaf=1).fit(X, y)
    for node in iter_nodes(tree.root_):
        scores = node.candidate_scores
        if node.is_leaf or not scores:
            continue
        average = np.mean([s.gain for s in scores.values()])
        chosen = scores[node.feature]
        assert chosen.gain >= average - 1e-12 and chosen.gain > 0
        eligible = [s.gain_ratio for s in scores.values() if s.gain >= average - 1e-12 and s.gain > 1e-12]
        assert chosen.gain_ratio == pytest.approx(max(eligible), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(seeds)
def test_sorted_sweep_is_the_brute_force(seed):
    """prop-c45-cuts and eq-c45-sweep: the sweep's best cut is the best gap midpoint."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    x = rng.integers(0, int(rng.integers(2, 10)), size=n).astype(float)
    y = rng.integers(0, 3, size=n)
    w = rng.exponential(size=n)
    split = threshold_split(x, y, w, 3, min_samples_leaf=0)
    values = np.unique(x)
    if values.size < 2:
        assert split is None
        return
    cuts = (values[:-1] + values[1:]) / 2
    gains = [information_gain_from_labels(x <= t, y, sample_weight=w) for t in cuts]
    if max(gains) <= 1e-12:  # no cut separates anything: no candidate
        assert split is None
        return
    assert split.gain == pytest.approx(max(gains), abs=1e-12)
    assert split.threshold in cuts


@settings(max_examples=300, deadline=None)
@given(seeds, st.sampled_from([2, 3, 9]), st.booleans(), st.booleans(), st.booleans(),
       st.sampled_from([0.0, 1e-5, 0.15]), st.sampled_from([None, 1024, 64]))
def test_columns_scored_together_as_one_at_a_time(seed, n_classes, release8, penalty,
                                                 all_values, min_value_gap, cells):
    # threshold_splits (a node's numeric features in one table, as C4.5
    # grows) returns, float for float, threshold_split of each column: tied
    # values, missing values, fractional and tiny weights, 9 classes (summed
    # pairwise by NumPy), columns with fewer than two known values; in one
    # block, in several (cells=1024) or a column at a time (cells=64).
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 40)), int(rng.integers(2, 7))
    X = rng.normal(size=(n, d)).round(int(rng.integers(0, 3)))
    X[rng.random((n, d)) < rng.choice([0.0, 0.2, 0.9])] = np.nan
    y = rng.integers(0, n_classes, size=n)
    w = rng.choice([np.ones(n), rng.integers(1, 4, size=n).astype(float),
                    rng.random(n) + 1e-3])
    m = float(rng.choice([0.0, 1.0, 2.0, 2.5]))
    values = [np.unique(np.r_[X[:, j][~np.isnan(X[:, j])], rng.normal(size=5).round(1)])
              for j in range(d)] if all_values else None
    options = {"min_split": "release8" if release8 else "min_samples_leaf",
               "penalty": penalty, "min_value_gap": min_value_gap}
    with patch.object(multiway, "SWEEP_CELLS", cells or multiway.SWEEP_CELLS):
        together = threshold_splits(X, y, w, n_classes, m, values, **options)
    one_at_a_time = [threshold_split(X[:, j], y, w, n_classes, m,
                                     None if values is None else values[j], **options)
                     for j in range(d)]
    assert together == one_at_a_time


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_root_cut_equals_sklearn(seed):
    """Agreement asserted in the chapter: a one-level tree's numeric cut is scikit-learn's."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3)).round(2)
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    ours = C45Classifier(**TEXTBOOK, criterion="gain", max_depth=1, min_samples_leaf=3, pruning=None).fit(X, y)
    theirs = DecisionTreeClassifier(criterion="entropy", max_depth=1, min_samples_leaf=3,
                                    random_state=0).fit(X, y)
    t = theirs.tree_
    if ours.root_.is_leaf or t.node_count == 1:
        return
    left, right = t.children_left[0], t.children_right[0]
    gain = t.impurity[0] - (t.weighted_n_node_samples[left] * t.impurity[left]
                            + t.weighted_n_node_samples[right] * t.impurity[right]) / 60
    assert ours.root_.candidate_scores[ours.root_.feature].gain == pytest.approx(gain, abs=1e-12)
    if ours.root_.feature == t.feature[0]:
        assert ours.root_.threshold == pytest.approx(t.threshold[0], rel=1e-6, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_missing_scores(seed):
    """def-c45-missing-scores: gain = (1 - gamma) Gain(known), unknowns a branch of SplitInfo."""
    X, y, _ = random_frame(seed, missing=0.3)
    column = X["b"].to_numpy()
    known = ~pd.isna(column)
    if known.sum() == 0:
        return
    categories = sorted(set(column[known]))
    codes = np.array([categories.index(v) if k else -1 for v, k in zip(column, known)])
    classes = sorted(set(y))
    split = nominal_split(codes, np.array([classes.index(v) for v in y]), np.ones(len(y)),
                          len(categories), len(classes), min_samples_leaf=0)
    if split is None:
        return
    assert split.gain == pytest.approx(gain_with_missing_values(column, y), abs=1e-12)
    sizes = np.array([np.sum(codes == c) for c in range(len(categories))] + [np.sum(~known)], float)
    assert split.split_information == pytest.approx(entropy(sizes[sizes > 0] / sizes.sum()), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_routing_conserves_weight_and_predictions_are_distributions(seed):
    """prop-c45-routing and eq-c45-predict."""
    X, y, rng = random_frame(seed, missing=0.3)
    tree = C45Classifier(**TEXTBOOK, pruning=None, min_samples_leaf=1).fit(X, y)
    for node in iter_nodes(tree.unpruned_root_):
        if not node.is_leaf:
            np.testing.assert_allclose(sum(c.value for c in node.children), node.value, atol=1e-10)
    holes = X.astype(object).mask(rng.random(X.shape) < 0.5)
    np.testing.assert_allclose(tree.predict_proba(holes).sum(axis=1), 1.0, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from(["midpoint", "training_value"]),
       st.sampled_from([None, "pessimistic", "confidence"]))
def test_integer_weights_are_repetitions(seed, threshold, pruning):
    """prop-c45-integer-weights."""
    X, y, rng = random_frame(seed)
    w = rng.integers(1, 4, size=len(y))
    params = {"threshold": threshold, "pruning": pruning}
    weighted = C45Classifier(**{**TEXTBOOK, **params}).fit(X, y, sample_weight=w)
    repeated = C45Classifier(**{**TEXTBOOK, **params}).fit(X.loc[X.index.repeat(w)], np.repeat(y, w))
    a, b = list(iter_nodes(weighted.root_)), list(iter_nodes(repeated.root_))
    assert len(a) == len(b)
    for x, z in zip(a, b):
        assert (x.feature, x.threshold, x.categories) == (z.feature, z.threshold, z.categories)
        np.testing.assert_allclose(x.value, z.value, rtol=1e-9)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(1, 60), st.floats(0.01, 0.95))
def test_upper_error_rate_properties(errors, extra, cf):
    """thm-c45-upper-limit: the binomial equation, E = 0 formula, monotone in E and CF."""
    n = errors + extra
    u = upper_error_rate(errors, n, cf)
    assert binom.cdf(errors, n, u) == pytest.approx(cf, abs=1e-9)
    if errors == 0:
        assert u == pytest.approx(1 - cf ** (1 / n), abs=1e-15)
    if errors + 1 < n:
        assert upper_error_rate(errors + 1, n, cf) > u
    assert upper_error_rate(errors, n, cf / 2) > u
    if cf <= 0.5:
        assert u >= errors / n


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 15), st.integers(1, 15), st.integers(0, 15), st.integers(0, 15))
def test_pessimistic_rule(n1, n2, a, b):
    """def-c45-pep: prune iff E(t) + 1/2 <= E'(T_t) + SE on a two-leaf subtree."""
    a, b = min(a, n1), min(b, n2)
    leaves = [Node(node_id=1, depth=1, n_samples=n1, value=np.array([a, n1 - a], float), impurity=0.0),
              Node(node_id=2, depth=1, n_samples=n2, value=np.array([b, n2 - b], float), impurity=0.0)]
    value = leaves[0].value + leaves[1].value
    root = Node(node_id=0, depth=0, n_samples=n1 + n2, value=value, impurity=0.0, feature=0,
                threshold=0.5, children=leaves)
    n = n1 + n2
    subtree = sum(leaf.value.sum() - leaf.value.max() + 0.5 for leaf in leaves)
    se = np.sqrt(subtree * (n - subtree) / n)
    assert pessimistic_prune(root).is_leaf == (n - value.max() + 0.5 <= subtree + se)


@settings(max_examples=30, deadline=None)
@given(seeds, st.sampled_from([0.05, 0.25, 0.5]))
def test_error_based_pruning_is_bottom_up_optimal(seed, cf):
    """alg-c45-ebp: every node kept has a subtree predicting fewer errors than it would as a leaf."""
    X, y, _ = random_frame(seed, missing=0.1)
    tree = C45Classifier(**TEXTBOOK, pruning=None, min_samples_leaf=1).fit(X, y)
    pruned = confidence_prune(tree.root_, cf)

    def predicted(node):
        return node.value.sum() * upper_error_rate(node.value.sum() - node.value.max(),
                                                   node.value.sum(), cf)

    def subtree_errors(node):
        if node.is_leaf:
            return predicted(node)
        total = sum(subtree_errors(c) for c in node.children)
        assert predicted(node) > total
        return total

    subtree_errors(pruned)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.lists(st.integers(1, 60), min_size=2, max_size=6))
def test_pure_leaves_cost_at_most_log_one_over_cf(k, sizes):
    """ex-c45-pure-leaves: N U(0, N) < ln(1/CF); k pure leaves are kept when E(t) > k ln(1/CF)."""
    cf = 0.25
    for n in sizes:
        assert n * upper_error_rate(0, n, cf) < np.log(1 / cf)
    classes = [i % 2 for i in range(len(sizes))]
    leaves = [Node(node_id=i + 1, depth=1, n_samples=s, value=np.array([s * (c == 0), s * (c == 1)], float),
                   impurity=0.0) for i, (s, c) in enumerate(zip(sizes, classes))]
    value = sum(leaf.value for leaf in leaves)
    root = Node(node_id=0, depth=0, n_samples=int(value.sum()), value=value, impurity=0.0, feature=0,
                categories=tuple(range(len(sizes))), children=leaves)
    if value.sum() - value.max() > len(sizes) * np.log(1 / cf):
        assert not confidence_prune(root, cf).is_leaf
