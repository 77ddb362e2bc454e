"""The theorems of the chapter "Post-pruning", stated as properties of dtree.

Each test names in its docstring the label of the theorem (or exercise) it
checks.  Trees are grown on small random data sets, so that every pruned
subtree can be enumerated and the optimality statements checked by brute
force; scikit-learn is the oracle for the pruning path.
"""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn import tree as sktree

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.inspection import same_tree
from dtree.pruning import cost_complexity_path, prune_to_alpha


@st.composite
def datasets(draw, max_samples=24):
    """(X, y, classification): 4 to max_samples samples, 1 to 3 features on a coarse grid."""
    n = draw(st.integers(min_value=4, max_value=max_samples))
    d = draw(st.integers(min_value=1, max_value=3))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    classification = draw(st.booleans())
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 8, size=(n, d)).astype(float)
    if classification:
        y = rng.integers(0, draw(st.integers(min_value=2, max_value=3)), size=n)
    else:
        y = np.round(rng.normal(size=n) * 10, 1)
    return X, y, classification


def grown(X, y, classification, **params):
    estimator = DecisionTreeClassifier(**params) if classification else DecisionTreeRegressor(**params)
    return estimator.fit(X, y)


def node_costs(tree):
    """R(t) = W_t / W * i(t) (eq-postpruning-node-cost)."""
    return tree.weighted_n_node_samples / tree.weighted_n_node_samples[0] * tree.impurity


def pruned_subtrees(tree, node=0):
    """Every pruned subtree of the branch of ``node``, as a frozenset of node ids."""
    left, right = tree.children_left[node], tree.children_right[node]
    subtrees = [frozenset([node])]
    if left >= 0:
        for a, b in itertools.product(pruned_subtrees(tree, left), pruned_subtrees(tree, right)):
            subtrees.append(frozenset([node]) | a | b)
    return subtrees


def leaves_of(tree, subtree):
    return [t for t in subtree if tree.children_left[t] < 0 or tree.children_left[t] not in subtree]


def cost_complexity(tree, subtree, alpha):
    """R_alpha(T') = R(T') + alpha |leaves of T'| (eq-postpruning-cost-complexity)."""
    leaves = leaves_of(tree, subtree)
    return node_costs(tree)[leaves].sum() + alpha * len(leaves)


def kept_nodes(tree, pruned):
    """Ids in ``tree`` of the nodes of its pruned subtree ``pruned`` (parallel pre-order walk)."""
    kept, stack = set(), [(0, 0)]
    while stack:
        node, node_pruned = stack.pop()
        kept.add(node)
        if pruned.children_left[node_pruned] >= 0:
            stack.extend([(tree.children_left[node], pruned.children_left[node_pruned]),
                          (tree.children_right[node], pruned.children_right[node_pruned])])
    return frozenset(kept)


def distinct_alphas(alphas, scale, rtol=1e-9):
    """The distinct effective alphas; a value within rtol (relative) or 1e-12 * scale (absolute) of
    the previous one is a tie split by rounding (e.g. -5.6e-17 for a split of zero decrease)."""
    alphas = np.sort(np.maximum(alphas, 0.0))
    return alphas[np.r_[True, np.diff(alphas) > rtol * alphas[1:] + 1e-12 * scale]]


def interval_alphas(tree):
    """One alpha strictly inside each interval of the path, far from every breakpoint."""
    alphas = distinct_alphas(cost_complexity_path(tree)[0], scale=tree.impurity[0])
    return np.r_[alphas[:-1] + np.diff(alphas) / 2, 2 * alphas[-1] + 1e-3]


@settings(max_examples=60, deadline=None)
@given(datasets(), st.floats(min_value=0.0, max_value=0.5))
def test_pruning_inequality(data, alpha):
    """thm-postpruning-inequality: pruning at t does not increase R_alpha iff g(t) <= alpha."""
    X, y, classification = data
    tree = grown(X, y, classification).tree_
    alpha = alpha * tree.impurity[0]  # on the scale of the costs
    whole = frozenset(range(tree.node_count))
    for t in np.flatnonzero(tree.children_left >= 0):
        branch = {t}
        stack = [t]
        while stack:
            node = stack.pop()
            if tree.children_left[node] >= 0:
                children = [tree.children_left[node], tree.children_right[node]]
                branch.update(children)
                stack.extend(children)
        pruned = (whole - branch) | {t}
        branch_leaves = leaves_of(tree, frozenset(branch))
        g = (node_costs(tree)[t] - node_costs(tree)[branch_leaves].sum()) / (len(branch_leaves) - 1)
        difference = cost_complexity(tree, pruned, alpha) - cost_complexity(tree, whole, alpha)
        scale = 1e-9 * (1 + tree.impurity[0])
        if abs(g - alpha) > scale:  # away from the boundary the two sides must agree
            assert (difference <= 0) == (g <= alpha)
        assert difference == pytest.approx((len(branch_leaves) - 1) * (g - alpha), abs=scale)


@settings(max_examples=40, deadline=None)
@given(datasets(max_samples=16))
def test_prune_to_alpha_is_the_smallest_optimal_subtree(data):
    """thm-postpruning-smallest and thm-postpruning-weakest-link: prune_to_alpha gives T(alpha)."""
    X, y, classification = data
    tree = grown(X, y, classification).tree_
    assume(tree.node_count <= 31)  # keep the enumeration small
    candidates = pruned_subtrees(tree)
    for alpha in interval_alphas(tree):
        values = np.array([cost_complexity(tree, s, alpha) for s in candidates])
        best = values.min()
        optimal = [s for s, v in zip(candidates, values) if v <= best + 1e-12 * (1 + abs(best))]
        ours = kept_nodes(tree, prune_to_alpha(tree, alpha))
        assert cost_complexity(tree, ours, alpha) <= best + 1e-12 * (1 + abs(best))  # optimal
        assert all(ours <= s for s in optimal)  # contained in every optimal subtree


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_optimal_subtrees_are_nested(data):
    """thm-postpruning-nested: alpha <= beta implies T(beta) is a pruned subtree of T(alpha)."""
    X, y, classification = data
    tree = grown(X, y, classification).tree_
    kept = [kept_nodes(tree, prune_to_alpha(tree, alpha)) for alpha in interval_alphas(tree)]
    assert all(later < earlier for earlier, later in zip(kept, kept[1:]))  # strictly smaller each time
    assert len(kept[-1]) == 1  # the last tree is the root alone


def test_two_equal_alphas_in_a_row_keep_the_path_and_the_leaves_monotone():
    """Found by hypothesis: two successive weakest links of equal g (0.056), the second
    computed an ulp below the first.  Unclamped, the path decreased there and pruning with
    the later (smaller) alpha left 7 leaves where the earlier one left 2."""
    X = np.array([[23, -12, -14], [-18, 36, -10], [-2, 6, 22], [-22, -30, -31], [15, -29, 2],
                  [-4, 7, 9], [48, 21, 20], [18, -16, -15], [39, 13, 11], [-13, -8, -6],
                  [10, -28, -42], [-21, 5, -5], [44, 4, 1], [-1, 29, 35], [17, -20, -9],
                  [-39, 8, -11], [-24, -45, 24], [-44, 45, -17], [-23, 19, 43], [0, 3, 12],
                  [-43, 40, 34], [14, 28, -3], [-7, -41, -19], [31, 37, 38], [16, -26, -27]],
                 dtype=float)
    y = np.array([2, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 2, 0, 2, 0, 2, 1, 0, 1, 2, 2, 0, 2, 0])
    alphas = DecisionTreeClassifier().cost_complexity_pruning_path(X, y)["ccp_alphas"]
    assert alphas[7] == pytest.approx(0.056, rel=1e-12) and alphas[8] == alphas[7]
    assert np.all(np.diff(alphas) >= 0)
    leaves = [DecisionTreeClassifier(ccp_alpha=a).fit(X, y).get_n_leaves() for a in alphas]
    assert leaves == sorted(leaves, reverse=True) and leaves[-1] == 1


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_path_increases_and_matches_sklearn(data):
    """thm-postpruning-weakest-link and prop-postpruning-ties: alphas and costs do not decrease;
    the path equals scikit-learn's whenever the two libraries grow the same tree (one feature,
    so that no tie between features can make them differ; two thresholds of exactly equal
    decrease still can, as rounding decides scikit-learn's choice and dtree takes the lower)."""
    X, y, classification = data
    X = X[:, :1]
    estimator = grown(X, y, classification)
    path = estimator.cost_complexity_pruning_path(X, y)
    assert path["ccp_alphas"][0] == 0
    assert np.all(np.diff(path["ccp_alphas"]) >= 0)   # exactly: a step an ulp below is clamped
    assert np.all(np.diff(path["impurities"]) >= -1e-12 * (1 + path["impurities"][-1]))
    sk = (sktree.DecisionTreeClassifier if classification else sktree.DecisionTreeRegressor)(random_state=0)
    sk_path = sk.cost_complexity_pruning_path(X, y)
    assume(same_tree(estimator, sk.fit(X, y)))
    scale = estimator.tree_.impurity[0]
    ours, theirs = distinct_alphas(path["ccp_alphas"], scale), distinct_alphas(sk_path["ccp_alphas"], scale)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    assert path["impurities"][-1] == pytest.approx(sk_path["impurities"][-1], rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_g_is_nonnegative(data):
    """ex-postpruning-monotone: R(t) >= R(T_t), so every effective alpha is >= 0."""
    X, y, classification = data
    for criterion in (["gini", "entropy"] if classification else ["squared_error"]):
        alphas, _ = cost_complexity_path(grown(X, y, classification, criterion=criterion).tree_)
        assert np.all(alphas >= -1e-12)


@settings(max_examples=40, deadline=None)
@given(datasets(), st.integers(min_value=-6, max_value=6))
def test_path_is_invariant_to_weight_scale(data, k):
    """ex-postpruning-weights: multiplying every sample weight by c > 0 leaves the path unchanged.

    c = 2**k, so that scaling is exact in floating point: with another c, rounding can break an
    exact tie between two splits differently and grow a different (equally good) tree.
    """
    X, y, classification = data
    estimator = DecisionTreeClassifier() if classification else DecisionTreeRegressor()
    base = estimator.cost_complexity_pruning_path(X, y)
    scaled = estimator.cost_complexity_pruning_path(X, y, sample_weight=np.full(len(y), 2.0**k))
    np.testing.assert_allclose(scaled["ccp_alphas"], base["ccp_alphas"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(scaled["impurities"], base["impurities"], rtol=1e-12, atol=0)


def smallest_optimal(tree, candidates, alpha):
    """The smallest alpha-optimal subtree among ``candidates``, by brute force: the
    intersection of all the optimal ones, which must itself be optimal."""
    values = np.array([cost_complexity(tree, s, alpha) for s in candidates])
    tolerance = 1e-12 * (1 + abs(values.min()))
    optimal = [s for s, v in zip(candidates, values) if v <= values.min() + tolerance]
    smallest = frozenset.intersection(*optimal)
    assert smallest in optimal  # the smallest optimal subtree exists (thm-postpruning-smallest)
    return smallest


def branch_leaves(tree, subtree, t):
    """The leaves of the branch of ``t`` in the pruned subtree ``subtree``."""
    leaves, stack = [], [t]
    while stack:
        node = stack.pop()
        left = tree.children_left[node]
        if left < 0 or left not in subtree:
            leaves.append(node)
        else:
            stack.extend([left, tree.children_right[node]])
    return leaves


def prune_at(tree, subtree, nodes):
    """``subtree`` pruned at every node of ``nodes``: their descendants removed."""
    removed = set()
    for t in nodes:
        stack = [tree.children_left[t], tree.children_right[t]]
        while stack:
            node = stack.pop()
            if node >= 0 and node in subtree:
                removed.add(node)
                stack.extend([tree.children_left[node], tree.children_right[node]])
    return frozenset(subtree - removed)


@settings(max_examples=40, deadline=None)
@given(datasets(max_samples=16), st.randoms(use_true_random=False))
def test_restriction_lemma(data, random):
    """lem-postpruning-restriction: if T(alpha) <= T' <= T, then T'(alpha) = T(alpha).

    T(alpha) is dtree's prune_to_alpha; T' is a random pruned subtree of T that contains
    it; T'(alpha) is found by brute force among the pruned subtrees of T'."""
    X, y, classification = data
    tree = grown(X, y, classification).tree_
    assume(tree.node_count <= 31)
    candidates = pruned_subtrees(tree)
    for alpha in interval_alphas(tree):
        smallest = kept_nodes(tree, prune_to_alpha(tree, alpha))
        between = [s for s in candidates if smallest <= s]
        restricted_to = random.choice(between)
        of_restricted = [s for s in candidates if s <= restricted_to]
        assert smallest_optimal(tree, of_restricted, alpha) == smallest


@settings(max_examples=40, deadline=None)
@given(datasets(max_samples=16), st.randoms(use_true_random=False))
def test_one_weakest_link_step(data, random):
    """lem-postpruning-one-step: with alpha* = min g'(t) over the internal nodes of a pruned
    subtree T', T'(alpha) = T' for alpha < alpha*, and T'(alpha*) is T' pruned at every node
    of g'(t) = alpha*.  For T' = T, alpha* is the first step of dtree's pruning path."""
    X, y, classification = data
    tree = grown(X, y, classification).tree_
    assume(2 < tree.node_count <= 31)
    candidates = pruned_subtrees(tree)
    costs = node_costs(tree)
    whole = frozenset(range(tree.node_count))
    chosen = [whole] + random.sample(candidates, min(3, len(candidates)))
    for subtree in chosen:
        inner = [t for t in subtree if tree.children_left[t] >= 0 and tree.children_left[t] in subtree]
        if not inner:
            continue
        g = {t: (costs[t] - costs[branch_leaves(tree, subtree, t)].sum())
             / (len(branch_leaves(tree, subtree, t)) - 1) for t in inner}
        alpha_star = min(g.values())
        scale = 1e-9 * (1 + tree.impurity[0])
        of_subtree = [s for s in candidates if s <= subtree]
        below = alpha_star - max(1e-6 * tree.impurity[0], 1e-3 * abs(alpha_star))
        assert smallest_optimal(tree, of_subtree, below) == subtree                  # part 1
        weakest = [t for t in inner if g[t] <= alpha_star + scale]
        assert smallest_optimal(tree, of_subtree, alpha_star) == prune_at(tree, subtree, weakest)  # part 2
        if subtree == whole:
            path_alphas = cost_complexity_path(tree)[0]
            assert path_alphas[1] == pytest.approx(max(alpha_star, 0.0), rel=1e-9, abs=scale)
