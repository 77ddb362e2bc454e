"""Property tests for the theorems of the CART chapter (book/part2/cart.ipynb).

Each test names the label of the statement it checks.  The trees are grown by
``dtree``; scikit-learn is the oracle where the best split is unique
(continuous targets, or weights drawn from a wide range).
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import tree as sk
from sklearn.utils.class_weight import compute_class_weight

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.inspection import impurity_decreases, leaf_impurity
from dtree.information import gini, weighted_median

SETTINGS = settings(max_examples=25, deadline=None)


def make_data(seed, n, d, n_classes=3, distinct=8):
    """Features with repeated values, labels that depend on them, positive weights."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, distinct, size=(n, d)).astype(float)
    y_class = np.clip((X[:, 0] / distinct * n_classes + rng.normal(scale=0.7, size=n)).astype(int),
                      0, n_classes - 1)
    y_reg = X[:, 0] + np.sin(X[:, -1]) + rng.normal(scale=0.5, size=n)
    weight = rng.uniform(0.2, 3.0, size=n)
    return X, y_class, y_reg, weight


def decreases(t):
    """The inner nodes and their weighted impurity decreases (dtree.inspection's)."""
    inner = np.flatnonzero(t.children_left >= 0)
    return inner, impurity_decreases(t, weighted=True)[inner]


def node_sets(tree, X):
    """The tree as the family of training-row sets of its nodes (independent of the numbering).

    Two splits that divide a node's rows in the same way (for example two features that both cut
    off the same two rows) are equally good, a tie; they give the same family, so the comparison
    does not depend on how exact ties are broken.
    """
    reach = tree.decision_path(X).toarray().astype(bool)
    return {frozenset(np.flatnonzero(reach[:, i]).tolist()) for i in range(tree.tree_.node_count)}


# ---------------------------------------------------------------------------
# thm-cart-count-splits
# ---------------------------------------------------------------------------

def stump_division(x, y, sample_weight=None):
    """The division of the rows that dtree's depth-1 tree on the one feature ``x`` makes.

    A frozenset of two frozensets of row indices (left and right exchanged count once),
    or None if the root is a leaf.  Also returns the stump.
    """
    stump = DecisionTreeClassifier(max_depth=1).fit(x[:, None], y, sample_weight=sample_weight)
    t = stump.tree_
    if t.node_count == 1:
        return None, stump
    leaf = stump.apply(x[:, None])
    left = frozenset(np.flatnonzero(leaf == t.children_left[0]).tolist())
    right = frozenset(np.flatnonzero(leaf == t.children_right[0]).tolist())
    return frozenset([left, right]), stump


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), distinct=st.integers(1, 10))
def test_numeric_feature_has_m_minus_1_splits(seed, n, distinct):
    """thm-cart-count-splits, part 1, for dtree's CART: a numeric feature with m distinct values
    gives exactly m - 1 divisions, one per gap, each reached at the gap's midpoint.

    For each gap k, the labels "x above v_k" make that gap's division the only perfect split, so
    a stump must find it (every gap is a candidate); random labels and weights must give one of
    these divisions or no split (no other candidate: never between tied values, never empty).
    """
    rng = np.random.default_rng(seed)
    x = rng.integers(0, distinct, size=n).astype(float)
    values = np.unique(x)
    gap_divisions = {frozenset([frozenset(np.flatnonzero(x <= v).tolist()),
                                frozenset(np.flatnonzero(x > v).tolist())])
                     for v in values[:-1]}
    found = set()
    for k in range(values.size - 1):
        division, stump = stump_division(x, (x > values[k]).astype(int))
        assert division is not None
        assert stump.tree_.threshold[0] == (values[k] + values[k + 1]) / 2
        found.add(division)
    assert found == gap_divisions
    assert len(found) == values.size - 1
    for _ in range(5):
        y, w = rng.integers(0, 3, size=n), rng.uniform(0.5, 2.0, size=n)
        division, _ = stump_division(x, y, w)
        if division is None:
            assert values.size == 1 or np.unique(y).size == 1
        else:
            assert division in gap_divisions


@pytest.mark.parametrize("m", range(1, 8))
def test_categorical_feature_has_2_to_the_m_minus_1_minus_1_splits(m):
    """thm-cart-count-splits, part 2, with dtree's numeric-only CART: the binary splits of m
    categories are the 2^(m-1) - 1 divisions {A, not A}; each is the stump dtree grows on the
    labels "category in A" once the categories are coded in an order that puts A first; a
    one-hot coding reaches only the min(m, 2^(m-1) - 1) one-against-the-rest ones (the
    chapter's remark after the weather example).
    """
    category = np.repeat(np.arange(m), np.arange(1, m + 1))     # category c on c + 1 rows
    expected, ordinal, one_hot = set(), set(), set()
    for r in range(1, m):
        for subset in itertools.combinations(range(m), r):
            inside = np.isin(category, subset)
            division = frozenset([frozenset(np.flatnonzero(inside).tolist()),
                                  frozenset(np.flatnonzero(~inside).tolist())])
            expected.add(division)
            # an ordinal code that lists A's categories first
            order = [*subset, *(c for c in range(m) if c not in subset)]
            code = np.argsort(order)[category].astype(float)
            found, _ = stump_division(code, inside.astype(int))
            assert found == division
            ordinal.add(found)
            stump = DecisionTreeClassifier(max_depth=1).fit(
                np.eye(m)[category], inside.astype(int))
            leaf = stump.apply(np.eye(m)[category])
            if stump.tree_.node_count == 3 and all(
                    np.unique(inside[leaf == node]).size == 1 for node in (1, 2)):
                one_hot.add(division)
    assert len(expected) == len(ordinal) == 2 ** (m - 1) - 1
    assert len(one_hot) == min(m, 2 ** (m - 1) - 1)


def test_weather_outlook_gini_indices():
    """def-cart-split on the weather data: the three splits of outlook (Zhou Yong 2015)."""
    from dtree.datasets import load_weather

    weather = load_weather()
    index = {}
    for v in ["sunny", "overcast", "rainy"]:
        inside = weather["outlook"] == v
        counts_in = weather.loc[inside, "play"].value_counts().reindex(["yes", "no"], fill_value=0).to_numpy()
        counts_out = weather.loc[~inside, "play"].value_counts().reindex(["yes", "no"], fill_value=0).to_numpy()
        index[v] = inside.sum() / 14 * gini(counts_in) + (~inside).sum() / 14 * gini(counts_out)
    assert index["sunny"] == pytest.approx(124 / 315, abs=1e-12)
    assert index["overcast"] == pytest.approx(5 / 14, abs=1e-12)
    assert index["rainy"] == pytest.approx(16 / 35, abs=1e-12)
    assert [round(index[v], 3) for v in ["sunny", "overcast", "rainy"]] == [0.394, 0.357, 0.457]


# ---------------------------------------------------------------------------
# thm-cart-training-loss
# ---------------------------------------------------------------------------

@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), depth=st.sampled_from([1, 2, 3, None]),
       criterion=st.sampled_from(["gini", "entropy"]), weighted=st.booleans())
def test_classification_impurity_is_training_loss(seed, n, depth, criterion, weighted):
    """thm-cart-training-loss: R(T) = weighted Brier score (Gini) or log loss in bits (entropy)."""
    X, y, _, w = make_data(seed, n, 3)
    w = w if weighted else np.ones(n)
    tree = DecisionTreeClassifier(criterion=criterion, max_depth=depth).fit(X, y, sample_weight=w)
    proba = tree.predict_proba(X)
    codes = np.searchsorted(tree.classes_, y)
    if criterion == "gini":
        loss = np.sum((np.eye(len(tree.classes_))[codes] - proba) ** 2, axis=1)
    else:
        loss = -np.log2(proba[np.arange(n), codes])
    t = tree.tree_
    assert leaf_impurity(t) == pytest.approx(np.average(loss, weights=w), rel=1e-9, abs=1e-12)
    assert t.impurity[0] - leaf_impurity(t) == pytest.approx(decreases(t)[1].sum(), rel=1e-9, abs=1e-12)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), depth=st.sampled_from([1, 2, 4, None]),
       weighted=st.booleans())
def test_squared_error_leaves_are_means_and_impurity_is_mse(seed, n, depth, weighted):
    """thm-cart-training-loss (squared error): leaf = weighted mean, R(T) = weighted MSE, part 2."""
    X, _, y, w = make_data(seed, n, 2)
    w = w if weighted else np.ones(n)
    tree = DecisionTreeRegressor(max_depth=depth).fit(X, y, sample_weight=w)
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        m = leaves == leaf
        assert tree.predict(X[m][:1])[0] == pytest.approx(np.average(y[m], weights=w[m]), rel=1e-9, abs=1e-9)
    t = tree.tree_
    mse = np.average((y - tree.predict(X)) ** 2, weights=w)
    assert leaf_impurity(t) == pytest.approx(mse, rel=1e-9, abs=1e-12)
    assert t.impurity[0] - leaf_impurity(t) == pytest.approx(decreases(t)[1].sum(), rel=1e-9, abs=1e-12)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), depth=st.sampled_from([1, 2, 3]),
       weighted=st.booleans())
def test_absolute_error_leaves_are_medians_and_impurity_is_mae(seed, n, depth, weighted):
    """thm-cart-training-loss (absolute error): leaf = weighted median, R(T) = weighted MAE."""
    X, _, y, w = make_data(seed, n, 2)
    w = w if weighted else np.ones(n)
    tree = DecisionTreeRegressor(max_depth=depth, criterion="absolute_error")
    tree.fit(X, y, sample_weight=w)
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        m = leaves == leaf
        assert tree.predict(X[m][:1])[0] == pytest.approx(weighted_median(y[m], sample_weight=w[m]), abs=1e-9)
    mae = np.average(np.abs(y - tree.predict(X)), weights=w)
    assert leaf_impurity(tree.tree_) == pytest.approx(mae, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------------
# thm-cart-sweep
# ---------------------------------------------------------------------------

@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(4, 80), distinct=st.integers(2, 15))
def test_stump_is_the_best_of_all_midpoints(seed, n, distinct):
    """thm-cart-sweep, part 1: the sweep finds the largest Gini decrease over all m - 1 thresholds,
    and the lowest threshold among equal ones."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, distinct, size=n).astype(float)
    if np.unique(x).size < 2:
        return
    k = rng.integers(0, 3, size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    values = np.unique(x)
    midpoints = (values[:-1] + values[1:]) / 2

    def score(s):
        left = x <= s
        return sum(sign * w[m].sum() * gini(np.bincount(k[m], weights=w[m], minlength=3) / w[m].sum())
                   for sign, m in [(1, np.ones(n, bool)), (-1, left), (-1, ~left)])

    scores = np.array([score(s) for s in midpoints])
    t = DecisionTreeClassifier(max_depth=1).fit(x[:, None], k, sample_weight=w).tree_
    if t.node_count == 1:  # pure node: nothing to split
        assert np.unique(k).size == 1
        return
    ours = t.weighted_n_node_samples[0] * t.impurity[0] - t.weighted_n_node_samples[1:] @ t.impurity[1:]
    assert ours == pytest.approx(scores.max(), rel=1e-9, abs=1e-12)
    first_best = midpoints[np.flatnonzero(scores >= scores.max() - 1e-9 * max(1.0, abs(scores.max())))[0]]
    assert t.threshold[0] == pytest.approx(first_best)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(5, 120))
def test_samples_per_depth_at_most_n(seed, n):
    """thm-cart-sweep, part 3: the nodes of one depth hold disjoint samples (at most n per depth)."""
    X, y, _, _ = make_data(seed, n, 3, distinct=30)
    tree = DecisionTreeClassifier().fit(X, y)
    reach = tree.decision_path(X).toarray().astype(bool)
    t = tree.tree_
    depth = np.zeros(t.node_count, dtype=int)
    for i in range(t.node_count):
        if t.children_left[i] >= 0:
            depth[[t.children_left[i], t.children_right[i]]] = depth[i] + 1
    for d in range(depth.max() + 1):
        assert reach[:, depth == d].sum(axis=1).max() <= 1  # each sample in at most one node per depth


# ---------------------------------------------------------------------------
# thm-cart-order
# ---------------------------------------------------------------------------

@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(5, 80), regression=st.booleans(),
       params=st.sampled_from([{}, {"max_depth": 3}, {"min_samples_leaf": 4}, {"min_impurity_decrease": 0.01}]))
def test_best_first_without_binding_budget_is_depth_first(seed, n, regression, params):
    """thm-cart-order: with max_leaf_nodes >= the number of leaves, best-first grows the same tree
    (the same nodes, as sets of training rows, and the same predictions)."""
    X, y_class, y_reg, w = make_data(seed, n, 3)
    estimator, y = (DecisionTreeRegressor, y_reg) if regression else (DecisionTreeClassifier, y_class)
    full = estimator(**params).fit(X, y, sample_weight=w)
    for budget in (full.get_n_leaves(), full.get_n_leaves() + 7):
        if budget < 2:
            continue
        best_first = estimator(max_leaf_nodes=budget, **params).fit(X, y, sample_weight=w)
        assert node_sets(best_first, X) == node_sets(full, X)
        np.testing.assert_allclose(best_first.predict(X) if regression else best_first.predict_proba(X),
                                   full.predict(X) if regression else full.predict_proba(X), atol=1e-12)


def test_the_growth_order_matters_where_ties_are_broken_at_random():
    """thm-cart-order's hypothesis (a fixed tie rule) is needed: with tied splits, growth in
    another order (best-first with a budget that never binds) grows another tree once ties
    are broken by a random stream, scikit-learn's (a permutation of the features at every
    node, whatever max_features is) and dtree's given a random_state; with dtree's fixed
    rule (random_state=None) it never does."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(300, 6)).astype(float)
    X[:, 3:] = X[:, :3]                     # every feature has an exact twin: ties everywhere
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 300) > 2).astype(int)

    def tests(model):  # each node as (its training rows, its feature, its threshold): numbering-free
        reach, t = model.decision_path(X).toarray().astype(bool), model.tree_
        return {(frozenset(np.flatnonzero(reach[:, i]).tolist()), int(t.feature[i]), float(t.threshold[i]))
                for i in range(t.node_count)}

    def same(a, b):
        return tests(a) == tests(b)

    fixed = [same(DecisionTreeClassifier().fit(X, y), DecisionTreeClassifier(max_leaf_nodes=10**5).fit(X, y))]
    seeded = [same(DecisionTreeClassifier(random_state=k).fit(X, y),
                   DecisionTreeClassifier(random_state=k, max_leaf_nodes=10**5).fit(X, y)) for k in range(10)]
    theirs = [same(sk.DecisionTreeClassifier(random_state=k).fit(X, y),
                   sk.DecisionTreeClassifier(random_state=k, max_leaf_nodes=10**5).fit(X, y)) for k in range(10)]
    assert all(fixed)
    assert not all(seeded) and not all(theirs)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(10, 80), budget=st.integers(2, 8))
def test_budgeted_tree_is_a_top_part_of_the_full_tree(seed, n, budget):
    """thm-cart-order (budget): every node of the max_leaf_nodes tree is a node of the full tree,
    and the splits made are those of largest decrease in best-first order."""
    X, _, y, w = make_data(seed, n, 3)
    full = DecisionTreeRegressor().fit(X, y, sample_weight=w)
    budgeted = DecisionTreeRegressor(max_leaf_nodes=budget).fit(X, y, sample_weight=w)
    assert node_sets(budgeted, X) <= node_sets(full, X)
    assert budgeted.get_n_leaves() == min(budget, full.get_n_leaves())
    # replay best-first on the full tree
    t = full.tree_
    inner, dec = decreases(t)
    decrease = np.zeros(t.node_count)
    decrease[inner] = dec
    frontier, made, tick = [], [], 0
    if t.children_left[0] >= 0:
        frontier.append((0, 0))
    while frontier and len(made) + 1 < budget:
        i = max(range(len(frontier)), key=lambda j: (decrease[frontier[j][0]], -frontier[j][1]))
        node, _ = frontier.pop(i)
        made.append(node)
        for child in (t.children_left[node], t.children_right[node]):
            if t.children_left[child] >= 0:
                tick += 1
                frontier.append((child, tick))
    b_inner, b_dec = decreases(budgeted.tree_)
    assert b_dec.sum() == pytest.approx(decrease[made].sum(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("budget", [3, 6, 12])
def test_best_first_matches_scikit_learn(seed, budget):
    """thm-cart-order: best-first with max_leaf_nodes is scikit-learn's rule (continuous data, no ties)."""
    rng = np.random.default_rng(seed)
    X = rng.random((300, 4))
    y = 3 * X[:, 0] + np.sin(6 * X[:, 1]) + 0.3 * rng.random(300)
    ours = DecisionTreeRegressor(max_leaf_nodes=budget).fit(X, y)
    theirs = sk.DecisionTreeRegressor(max_leaf_nodes=budget, random_state=0).fit(X, y)
    for name in ("children_left", "children_right", "feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(ours.tree_, name), getattr(theirs.tree_, name))
    np.testing.assert_allclose(ours.tree_.threshold, theirs.tree_.threshold, atol=1e-6)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-12)


# ---------------------------------------------------------------------------
# def-cart-importance
# ---------------------------------------------------------------------------

@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(5, 80), regression=st.booleans(),
       depth=st.sampled_from([2, 4, None]))
def test_importances_from_tree_arrays(seed, n, regression, depth):
    """def-cart-importance: normalised sums of weighted decreases per feature; they add to 1 and
    the unnormalised ones add up to R(root) - R(T)."""
    X, y_class, y_reg, w = make_data(seed, n, 4)
    estimator, y = (DecisionTreeRegressor, y_reg) if regression else (DecisionTreeClassifier, y_class)
    tree = estimator(max_depth=depth).fit(X, y, sample_weight=w)
    t = tree.tree_
    inner, dec = decreases(t)
    mdi = np.bincount(t.feature[inner], weights=dec, minlength=X.shape[1])
    if inner.size == 0:
        np.testing.assert_array_equal(tree.feature_importances_, np.zeros(X.shape[1]))
        return
    assert np.all(mdi >= -1e-12)
    assert mdi.sum() == pytest.approx(t.impurity[0] - leaf_impurity(t), rel=1e-9, abs=1e-12)
    if mdi.sum() > 0:
        np.testing.assert_allclose(tree.feature_importances_, mdi / mdi.sum(), atol=1e-12)
        assert tree.feature_importances_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_importances_match_scikit_learn(seed):
    """def-cart-importance: equal to scikit-learn's feature_importances_ (continuous data, no ties)."""
    rng = np.random.default_rng(seed)
    X = rng.random((400, 5))
    y = 3 * X[:, 0] + np.sin(6 * X[:, 1]) + X[:, 2] ** 2 + 0.3 * rng.random(400)
    # min_samples_leaf keeps nodes large: in a node of two or three samples several features can
    # divide the samples in the same way, a tie that the two libraries may break differently.
    ours = DecisionTreeRegressor(max_depth=5, min_samples_leaf=10).fit(X, y)
    theirs = sk.DecisionTreeRegressor(max_depth=5, min_samples_leaf=10, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-12)


# ---------------------------------------------------------------------------
# class_weight and predict_proba (eq-cart-reweighted-proba)
# ---------------------------------------------------------------------------

@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(6, 60),
       omega=st.lists(st.floats(0.1, 10.0), min_size=3, max_size=3), weighted=st.booleans())
def test_class_weight_is_a_sample_weight(seed, n, omega, weighted):
    """class_weight section: a tree with class_weight is the tree with weights w_i * omega[y_i]."""
    X, y, _, w = make_data(seed, n, 3)
    w = w if weighted else np.ones(n)
    class_weight = {c: omega[c] for c in np.unique(y).tolist()}
    a = DecisionTreeClassifier(max_depth=3, class_weight=class_weight).fit(X, y, sample_weight=w)
    b = DecisionTreeClassifier(max_depth=3).fit(X, y, sample_weight=w * np.array(omega)[y])
    for name in ("children_left", "feature", "threshold", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
    np.testing.assert_allclose(a.tree_.value, b.tree_.value, atol=1e-12)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(6, 60))
def test_balanced_root_is_uniform_and_matches_compute_class_weight(seed, n):
    """class_weight='balanced' (prop-weights-balanced): omega_k = n / (K n_k); uniform root."""
    X, y, _, _ = make_data(seed, n, 3)
    tree = DecisionTreeClassifier(max_depth=2, class_weight="balanced").fit(X, y)
    classes = np.unique(y)
    omega = compute_class_weight("balanced", classes=classes, y=y)
    np.testing.assert_allclose(omega, n / (classes.size * np.bincount(np.searchsorted(classes, y))), rtol=1e-12)
    np.testing.assert_allclose(tree.tree_.value[0, 0], np.full(classes.size, 1 / classes.size), atol=1e-12)
    assert tree.tree_.weighted_n_node_samples[0] == pytest.approx(n)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(6, 60), depth=st.sampled_from([1, 2, 3, None]),
       weighted=st.booleans())
def test_predict_proba_is_leaf_fractions_and_undoing_class_weights(seed, n, depth, weighted):
    """eq-cart-reweighted-proba: predict_proba = weighted leaf fractions of the reweighted samples;
    dividing by omega and renormalising gives the fractions without class weights."""
    X, y, _, w = make_data(seed, n, 3)
    w = w if weighted else np.ones(n)
    tree = DecisionTreeClassifier(max_depth=depth, class_weight="balanced").fit(X, y, sample_weight=w)
    codes = np.searchsorted(tree.classes_, y)
    omega = n / (tree.classes_.size * np.bincount(codes))
    leaves = tree.apply(X)
    proba = tree.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    for leaf in np.unique(leaves):
        m = leaves == leaf
        reweighted = np.bincount(codes[m], weights=(w * omega[codes])[m], minlength=omega.size)
        plain = np.bincount(codes[m], weights=w[m], minlength=omega.size)
        np.testing.assert_allclose(proba[m], np.tile(reweighted / reweighted.sum(), (m.sum(), 1)), atol=1e-12)
        undone = proba[m][0] / omega
        np.testing.assert_allclose(undone / undone.sum(), plain / plain.sum(), atol=1e-12)
    np.testing.assert_array_equal(tree.predict(X), tree.classes_[proba.argmax(axis=1)])


# ---------------------------------------------------------------------------
# thm-cart-friedman, eq-cart-poisson (the regression criteria of the chapter)
# ---------------------------------------------------------------------------

@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40))
def test_friedman_improvement_is_the_squared_error_decrease(seed, n):
    """thm-cart-friedman: W_t R2(t) - W_L R2(L) - W_R R2(R) = W_L W_R / W_t (mean_L - mean_R)^2
    for every split, so friedman_mse grows the squared error's tree (same tie rule, no
    min_impurity_decrease)."""
    _, _, y, w = make_data(seed, n, 1)
    rng = np.random.default_rng(seed)
    left = rng.random(n) < 0.5
    left[0], left[-1] = True, False
    sse = lambda m: np.sum(w[m] * (y[m] - np.average(y[m], weights=w[m])) ** 2)  # noqa: E731
    decrease = sse(np.ones(n, bool)) - sse(left) - sse(~left)
    w_l, w_r = w[left].sum(), w[~left].sum()
    diff = np.average(y[left], weights=w[left]) - np.average(y[~left], weights=w[~left])
    assert decrease == pytest.approx(w_l * w_r / (w_l + w_r) * diff**2, rel=1e-9, abs=1e-9)
    # the same tree; where two features divide a node's rows alike (an exact tie), the float
    # rounding of the two scores may pick either feature: compare the trees as row sets
    X, _, y, w = make_data(seed, max(n, 10), 3)
    a = DecisionTreeRegressor(max_depth=4).fit(X, y, sample_weight=w)
    b = DecisionTreeRegressor(max_depth=4, criterion="friedman_mse").fit(X, y, sample_weight=w)
    assert node_sets(a, X) == node_sets(b, X)


@pytest.mark.parametrize("seed", range(3))
def test_friedman_differs_from_the_squared_error_for_several_outputs(seed):
    """thm-cart-friedman holds for a target of one output only: for m outputs both libraries
    score friedman_mse by (W_R sum_k S_L,k - W_L sum_k S_R,k)^2 / (W_L W_R), the improvement of
    the outputs' sums, not the mean of the outputs' squared-error decreases.  Here the outputs
    x0 + noise and -x0 + x1 + noise: the squared error splits the root on feature 0,
    friedman_mse on feature 1, in dtree as in scikit-learn (dtree equals scikit-learn for each
    criterion)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 3))
    y = np.column_stack([X[:, 0] + rng.normal(scale=0.5, size=200),
                         -X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=200)])
    roots = {}
    for criterion in ["squared_error", "friedman_mse"]:
        ours = DecisionTreeRegressor(max_depth=2, criterion=criterion).fit(X, y).tree_
        theirs = sk.DecisionTreeRegressor(max_depth=2, criterion=criterion, random_state=0)
        theirs = theirs.fit(X, y).tree_
        np.testing.assert_array_equal(ours.feature, theirs.feature)
        np.testing.assert_allclose(ours.threshold, theirs.threshold, rtol=1e-12)
        np.testing.assert_allclose(ours.value, theirs.value, rtol=1e-12)
        roots[criterion] = ours.feature[0]
    assert roots == {"squared_error": 0, "friedman_mse": 1}
    # friedman_mse's root maximises the summed improvement, not the squared-error decrease
    stump = DecisionTreeRegressor(max_depth=1, criterion="friedman_mse").fit(X, y).tree_
    left = X[:, stump.feature[0]] <= stump.threshold[0]
    summed = y.sum(axis=1)
    improvement = lambda m: (  # noqa: E731
        m.sum() * (~m).sum() / len(m) * (summed[m].mean() - summed[~m].mean()) ** 2)
    decrease = lambda m: sum(  # noqa: E731
        np.sum((y[:, k] - y[:, k].mean()) ** 2) - np.sum((y[m, k] - y[m, k].mean()) ** 2)
        - np.sum((y[~m, k] - y[~m, k].mean()) ** 2) for k in range(y.shape[1]))
    best = {"improvement": -np.inf, "decrease": -np.inf}
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for cut in (values[:-1] + values[1:]) / 2:
            m = X[:, j] <= cut
            best["improvement"] = max(best["improvement"], improvement(m))
            best["decrease"] = max(best["decrease"], decrease(m))
    assert stump.feature[0] == 1
    assert improvement(left) == pytest.approx(best["improvement"], rel=1e-9)
    assert decrease(left) < best["decrease"] * (1 - 1e-6)


@SETTINGS
@given(seed=st.integers(0, 10_000), n=st.integers(4, 40))
def test_poisson_impurity_is_the_half_deviance_and_no_child_sums_to_zero(seed, n):
    """eq-cart-poisson: the stored impurity of every node is (1/W) sum w (y log(y/mean) - y + mean);
    no node of a Poisson tree has a zero target sum (a zero mean cannot be a Poisson leaf), in
    dtree as in scikit-learn."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    y = rng.poisson(np.where(X[:, 0] < 3, 0.3, 3.0)).astype(float)
    if y.sum() == 0:
        y[0] = 1.0
    w = rng.uniform(0.5, 2.0, size=n)
    tree = DecisionTreeRegressor(criterion="poisson").fit(X, y, sample_weight=w)
    reach = tree.decision_path(X).toarray().astype(bool)
    for node in range(tree.tree_.node_count):
        yy, ww = y[reach[:, node]], w[reach[:, node]]
        mean = np.average(yy, weights=ww)
        assert mean > 0
        ylogy = np.where(yy > 0, yy * np.log(np.where(yy > 0, yy, 1.0) / mean), 0.0)
        deviance = np.sum(ww * (ylogy - yy + mean)) / ww.sum()
        assert tree.tree_.impurity[node] == pytest.approx(deviance, rel=1e-9, abs=1e-12)
    theirs = sk.DecisionTreeRegressor(criterion="poisson", random_state=0).fit(X, y, sample_weight=w)
    assert np.all(theirs.tree_.value[:, 0, 0] > 0)
