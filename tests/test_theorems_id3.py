"""Property tests for the statements of the ID3 chapter (book/part2/id3.ipynb).

Each test names the label of the statement it checks.  The trees are grown by
``dtree.ID3Classifier`` on random categorical data; scikit-learn's entropy
tree is the oracle on binary 0/1 features, where a multiway split is a binary
split, through quantities that do not depend on how ties are broken.
"""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkTree

from dtree import ID3Classifier
from dtree.information import entropy
from dtree.tree import iter_nodes

SETTINGS = settings(max_examples=40, deadline=None)


def make_data(seed, n, d, n_values=3, n_classes=3, noise=0.3):
    """Categorical features (small alphabets, so rows repeat) and a class that depends on them."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, n_values, size=(n, d))
    y = (X[:, 0] + X[:, -1]) % n_classes
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, n_classes, size=flip.sum())
    return X, y


def paths(root):
    """(features tested on the path, leaf) for every leaf."""
    stack = [(root, ())]
    while stack:
        node, used = stack.pop()
        if node.is_leaf:
            yield used, node
        else:
            stack.extend((child, used + (node.feature,)) for child in node.children)


def lookup_errors(X, y):
    """Training errors of the best function of the whole row: sum over groups of equal rows."""
    groups = {}
    for row, label in zip(map(tuple, X.tolist()), y.tolist()):
        groups.setdefault(row, []).append(label)
    return sum(len(labels) - max(Counter(labels).values()) for labels in groups.values())


def weighted_gain_sum(tree):
    total = tree.root_.weighted_n_samples
    return sum(node.weighted_n_samples / total * node.gain
               for node in iter_nodes(tree.root_) if not node.is_leaf)


def leaf_entropy(tree):
    total = tree.root_.weighted_n_samples
    return sum(node.weighted_n_samples / total * node.impurity
               for node in iter_nodes(tree.root_) if node.is_leaf)


def shape(node):
    """The tree's shape: (feature, categories, children's shapes), None for a leaf."""
    if node.is_leaf:
        return None
    return node.feature, node.categories, tuple(shape(child) for child in node.children)


def truncate(node, keep):
    """The shape of the tree cut at the first node on each path where keep(node) is false."""
    if node.is_leaf or not keep(node):
        return None
    return node.feature, node.categories, tuple(truncate(child, keep) for child in node.children)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), d=st.integers(1, 5),
       n_values=st.integers(2, 4))
def test_termination_bounds(seed, n, d, n_values):
    """thm-id3-termination: no feature twice on a path, depth <= n_features, leaves <= n_samples."""
    X, y = make_data(seed, n, d, n_values)
    tree = ID3Classifier().fit(X, y)
    for used, _ in paths(tree.root_):
        assert len(used) == len(set(used))
    assert tree.get_depth() <= d
    assert tree.get_n_leaves() <= n
    # The leaves partition the training rows: their sample counts add up to n.
    assert sum(leaf.n_samples for _, leaf in paths(tree.root_)) == n


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), d=st.integers(1, 5),
       n_values=st.integers(2, 4), noise=st.sampled_from([0.0, 0.3, 1.0]))
def test_training_error_is_lookup_error(seed, n, d, n_values, noise):
    """thm-id3-training-error: the unrestricted tree errs exactly as often as the best lookup table."""
    X, y = make_data(seed, n, d, n_values, noise=noise)
    tree = ID3Classifier().fit(X, y)
    errors = int(np.sum(tree.predict(X) != y))
    assert errors == lookup_errors(X, y)
    if lookup_errors(X, y) == 0:  # consistent data
        assert tree.score(X, y) == 1.0


def test_training_error_zero_gain_xor():
    """thm-id3-training-error on XOR with counts 4, 5, 5, 4: both root gains are exactly 0."""
    X = np.array([[0, 0]] * 4 + [[0, 1]] * 5 + [[1, 0]] * 5 + [[1, 1]] * 4)
    y = X[:, 0] ^ X[:, 1]
    assert ID3Classifier().fit(X, y).score(X, y) == 1.0


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), d=st.integers(1, 5),
       max_depth=st.sampled_from([None, 1, 2]))
def test_gains_telescope(seed, n, d, max_depth):
    """thm-id3-telescoping: the weighted gains add up to H(D) minus the leaves' weighted entropy."""
    X, y = make_data(seed, n, d)
    tree = ID3Classifier(max_depth=max_depth).fit(X, y)
    root_entropy = entropy(np.bincount(y))
    assert abs(weighted_gain_sum(tree) - (root_entropy - leaf_entropy(tree))) < 1e-9
    if max_depth is None:
        # ... which for the unrestricted tree is H(Y) - H(Y | whole row), the empirical I(X; Y).
        rows = [tuple(r) for r in X.tolist()]
        groups = Counter(rows)
        h_given_rows = sum(count / n * entropy(np.bincount(y[[r == g for r in rows]]))
                           for g, count in groups.items())
        assert abs(weighted_gain_sum(tree) - (root_entropy - h_given_rows)) < 1e-9


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), d=st.integers(1, 5),
       threshold=st.floats(0.0, 0.5))
def test_threshold_truncates_the_full_tree(seed, n, d, threshold):
    """prop-id3-truncation: min_impurity_decrease cuts the full tree where W_t/W Gain < threshold."""
    X, y = make_data(seed, n, d)
    full = ID3Classifier().fit(X, y)
    pruned = ID3Classifier(min_impurity_decrease=threshold).fit(X, y)
    keep = lambda node: node.weighted_n_samples / n * node.gain >= threshold  # noqa: E731
    assert shape(pruned.root_) == truncate(full.root_, keep)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), d=st.integers(1, 4))
def test_identifier_is_chosen_and_memorises(seed, n, d):
    """prop-id3-identifier: an identifier column wins the root and every new row gets the root's class."""
    X, y = make_data(seed, n, d)
    if len(np.unique(y)) < 2:
        y[0] = (y[0] + 1) % 3  # an impure root
    X_id = np.column_stack([X, np.arange(n)])  # the identifier comes last: it wins without the tie rule
    tree = ID3Classifier().fit(X_id, y)
    gains = tree.root_.candidate_scores
    if all(gains.get(j, 0.0) < gains[d] - 1e-12 for j in range(d)):  # constant features do not compete
        assert tree.root_.feature == d
        assert tree.get_depth() == 1 and tree.get_n_leaves() == n
        assert abs(tree.root_.gain - entropy(np.bincount(y))) < 1e-12
        new_rows = np.column_stack([X, np.arange(n, 2 * n)])  # unseen identifiers
        majority = np.argmax(np.bincount(y, minlength=tree.n_classes_)[tree.classes_])
        assert np.all(tree.predict(new_rows) == tree.classes_[majority])
    else:  # a feature separates the classes as well as the identifier and comes first
        assert abs(max(gains.values()) - entropy(np.bincount(y))) < 1e-12


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), d=st.integers(1, 4))
def test_unseen_category_gets_the_node_distribution(seed, n, d):
    """The leaf rule for an empty branch: a category without a branch stops at the node."""
    X, y = make_data(seed, n, d)
    tree = ID3Classifier().fit(X, y)
    row = np.full((1, d), 99)  # a category no training row had, in every feature
    assert np.allclose(tree.predict_proba(row), tree.root_.proba)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 80), d=st.integers(1, 6))
def test_binary_features_agree_with_sklearn(seed, n, d):
    """On 0/1 features, ID3 and scikit-learn's entropy tree agree on root gain and total gain."""
    X, y = make_data(seed, n, d, n_values=2)
    ours = ID3Classifier().fit(X, y)
    theirs = SkTree(criterion="entropy", random_state=0).fit(X, y).tree_
    if theirs.node_count == 1:
        assert ours.root_.is_leaf
        return
    w, imp = theirs.weighted_n_node_samples, theirs.impurity
    left, right = theirs.children_left, theirs.children_right
    decrease = (w * imp - np.where(left >= 0, w[left] * imp[left] + w[right] * imp[right], w * imp)) / w[0]
    assert abs(ours.root_.gain - decrease[0]) < 1e-9
    assert abs(weighted_gain_sum(ours) - decrease.sum()) < 1e-9
