"""One declaration of the per-node arrays (dtree.tree.NODE_FIELDS) drives every use of them.

A throw-away field is added to the declaration, and nothing else: it must
appear in the trees that depth-first and best-first growth make, survive
pruning, pickling and copying, and reach the Node objects of ``to_nodes``.
The field is the number of samples each split sends left, which the growers
read from the split search's result (SplitResult.n_left), so its values can
be checked against the tree: at an inner node it is ``n_node_samples`` of the
left child, at a leaf the declared leaf value.
"""

import copy
import pickle

import numpy as np
import pytest
import sklearn.tree

import dtree.tree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.pruning import prune_to_alpha
from dtree.tree import NODE_FIELDS, NodeField, TreeArrays, iter_nodes

LEAF = -7      # a leaf value no other field uses


@pytest.fixture
def n_left_field(monkeypatch):
    field = NodeField("n_left", np.intp, LEAF, "Samples the split sends left.", "split")
    monkeypatch.setattr(dtree.tree, "NODE_FIELDS", NODE_FIELDS + (field,))
    return field


def data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.1] = np.nan          # missing values too
    y = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) + rng.normal(0, 0.7, n) > 0)
    return X, y.astype(int)


def check_n_left(tree):
    """tree.n_left is a declared array of the tree, with the values the field means."""
    n_left = tree.n_left
    assert n_left.dtype == np.intp and n_left.shape == (tree.node_count,)
    assert not n_left.flags.writeable
    inner = tree.children_left >= 0
    np.testing.assert_array_equal(n_left[inner], tree.n_node_samples[tree.children_left[inner]])
    assert np.all(n_left[~inner] == LEAF)


@pytest.mark.parametrize("make", [DecisionTreeClassifier, DecisionTreeRegressor])
@pytest.mark.parametrize("params", [{}, {"max_leaf_nodes": 12}, {"ccp_alpha": 0.01},
                                    {"max_leaf_nodes": 30, "ccp_alpha": 0.005},
                                    {"splitter": "random", "random_state": 0}])
def test_a_declared_field_flows_through_growth_pruning_pickling_and_nodes(
        n_left_field, make, params):
    X, y = data()
    model = make(**params).fit(X, y)
    tree = model.tree_
    check_n_left(tree)
    if "max_leaf_nodes" in params and "ccp_alpha" not in params:
        assert tree.n_leaves == params["max_leaf_nodes"]        # best-first growth
    if "ccp_alpha" in params:                                   # pruning cut some splits
        assert tree.node_count < make(**{**params, "ccp_alpha": 0.0}).fit(X, y).tree_.node_count
    for copied in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert copied.tree_ is not tree
        np.testing.assert_array_equal(copied.tree_.n_left, tree.n_left)
        check_n_left(copied.tree_)
    for node in iter_nodes(model.root_):
        if node.is_leaf:
            assert node.extra["n_left"] == LEAF
        else:
            assert node.extra["n_left"] == node.children[0].n_samples
        assert isinstance(node.extra["n_left"], int)


def test_pruning_a_tree_cuts_a_declared_split_field_to_its_leaf_value(n_left_field):
    X, y = data()
    full = DecisionTreeClassifier().fit(X, y).tree_
    for alpha in (0.0, 0.002, 0.01, 1.0):
        pruned = prune_to_alpha(full, alpha)
        check_n_left(pruned)
    assert prune_to_alpha(full, 1.0).n_left.tolist() == [LEAF]


def test_the_declaration_is_enforced(n_left_field):
    t = DecisionTreeClassifier(max_depth=2).fit(*data()).tree_
    given = {f.name: getattr(t, f.name) for f in dtree.tree.NODE_FIELDS}
    TreeArrays(**given, n_features=4, n_classes=2)
    del given["n_left"]
    with pytest.raises(TypeError, match=r"missing \['n_left'\]"):
        TreeArrays(**given, n_features=4, n_classes=2)
    with pytest.raises(TypeError, match=r"unknown \['depth'\]"):
        TreeArrays(**given, n_left=t.n_left, depth=t.n_left, n_features=4, n_classes=2)
    with pytest.raises(ValueError, match="n_left has 2 entries along node_count"):
        TreeArrays(**given, n_left=t.n_left[:2], n_features=4, n_classes=2)


def test_without_the_throw_away_field_nothing_of_it_is_left():
    t = DecisionTreeClassifier(max_depth=2).fit(*data()).tree_
    assert not hasattr(t, "n_left") and "n_left" not in t.to_nodes(classification=True).extra


def test_the_declaration_names_scikit_learns_tree_arrays():
    """Every declared array is an attribute of scikit-learn's tree_, of the same shape."""
    X, y = data()
    X = np.nan_to_num(X)
    ours = DecisionTreeClassifier(max_depth=3).fit(X, y).tree_
    theirs = sklearn.tree.DecisionTreeClassifier(max_depth=3).fit(X, y).tree_
    for f in NODE_FIELDS:
        assert getattr(ours, f.name).shape == getattr(theirs, f.name).shape, f.name
        if f.name != "missing_go_to_left":              # scikit-learn: uint8
            assert getattr(ours, f.name).dtype == getattr(theirs, f.name).dtype, f.name
        if f.leaf is not None:
            leaves = theirs.children_left < 0
            assert np.all(getattr(theirs, f.name)[leaves] == f.leaf), f.name
    for name in ("node_count", "n_outputs", "max_n_classes", "n_features", "max_depth"):
        assert getattr(ours, name) == getattr(theirs, name), name
    np.testing.assert_array_equal(ours.n_classes, theirs.n_classes)


def test_room_for_several_outputs():
    """A TreeArrays of two outputs: n_outputs, n_classes, pruning, pickling and nodes."""
    t = DecisionTreeClassifier(max_depth=3).fit(*data()).tree_
    arrays = {f.name: getattr(t, f.name) for f in NODE_FIELDS}
    arrays["value"] = np.concatenate([t.value, t.value[:, :, ::-1]], axis=1)  # (n, 2, 2)
    two = TreeArrays(**arrays, n_features=4, n_classes=[2, 2])
    assert two.n_outputs == 2 and two.n_classes.tolist() == [2, 2] and two.max_n_classes == 2
    copied = pickle.loads(pickle.dumps(two))
    assert copied.n_outputs == 2 and copied.n_classes.tolist() == [2, 2]
    np.testing.assert_array_equal(copied.value, two.value)
    pruned = prune_to_alpha(two, 0.01)
    assert pruned.value.shape == (pruned.node_count, 2, 2) and pruned.n_outputs == 2
    root = two.to_nodes(classification=True)
    np.testing.assert_allclose(root.value, two.value[0] * two.weighted_n_node_samples[0])
    with pytest.raises(ValueError, match="one number per output|each of the 2 outputs"):
        TreeArrays(**arrays, n_features=4, n_classes=2)


def test_subtree_keeps_leaves_and_refuses_a_split_node_without_children():
    """Leaves stay leaves (their -1 is not renumbered), and a node that is not
    cut must keep its children."""
    tree = DecisionTreeClassifier().fit([[0], [1], [2], [3]], [0, 1, 1, 0]).tree_
    everything = tree.subtree(np.arange(tree.node_count), np.zeros(tree.node_count, bool))
    for name in ("children_left", "children_right", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(everything, name), getattr(tree, name))
    with pytest.raises(ValueError, match="children"):
        tree.subtree(np.array([0]), np.array([False]))
