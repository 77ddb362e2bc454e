"""Fitted estimators survive pickle, joblib and deepcopy at any depth, unchanged and read-only.

A tree of Node objects is nested as deep as the tree; pickling it naively
recurses once per level and fails near depth 200 (Python's recursion limit).
dtree stores node trees as flat tables (dtree.tree.flatten_nodes) and
rebuilds a TreeArrays through its constructor, so a copy is read-only and
routes with tables computed from its own arrays.
"""

import copy
import io
import pickle
import sys

import joblib
import numpy as np
import pytest

import dtree
from dtree.datasets import load_weather
from dtree.inspection import same_tree
from dtree.tree import Node, flatten_nodes, iter_nodes, unflatten_nodes

DEPTH = 10_000


def chain(depth, n_classes=2):
    """A Node tree of the given depth: every internal node has a leaf and a deeper node."""
    def leaf(i, d):
        return Node(node_id=i, depth=d, n_samples=1, value=np.eye(n_classes)[d % n_classes],
                    impurity=0.0)
    root = node = Node(node_id=0, depth=0, n_samples=depth + 1, value=np.ones(n_classes),
                       impurity=1.0, feature=0, threshold=0.5, gain=1.0)
    for d in range(1, depth + 1):
        inner = d < depth
        child = Node(node_id=2 * d, depth=d, n_samples=depth + 1 - d, value=np.ones(n_classes),
                     impurity=1.0 if inner else 0.0, feature=0 if inner else None,
                     threshold=d + 0.5 if inner else None, gain=1.0 if inner else None)
        node.children = [leaf(2 * d - 1, d), child]
        node = child
    return root


def round_trips(estimator):
    buffer = io.BytesIO()
    joblib.dump(estimator, buffer)
    buffer.seek(0)
    return [pickle.loads(pickle.dumps(estimator)), copy.deepcopy(estimator), joblib.load(buffer)]


@pytest.fixture
def low_recursion_limit():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)     # the default: a deep tree must not need more
    yield
    sys.setrecursionlimit(limit)


def test_flatten_round_trip_keeps_shared_nodes():
    weather = load_weather()
    tree = dtree.C45Classifier().fit(weather.drop(columns="play"), weather["play"])
    records, rows = flatten_nodes([tree.root_, tree.unpruned_root_, tree.root_])
    root, unpruned, again = unflatten_nodes(records, rows)
    assert root is again and same_tree(root, tree.root_) and same_tree(unpruned, tree.unpruned_root_)
    shared = {id(n) for n in iter_nodes(tree.root_)} & {id(n) for n in iter_nodes(tree.unpruned_root_)}
    shared_copy = {id(n) for n in iter_nodes(root)} & {id(n) for n in iter_nodes(unpruned)}
    assert len(shared_copy) == len(shared)


@pytest.mark.slow
def test_cart_of_depth_ten_thousand(low_recursion_limit):
    X = np.arange(DEPTH + 1, dtype=float)[:, None]
    y = np.arange(DEPTH + 1) % 2
    tree = dtree.DecisionTreeClassifier().fit(X, y)
    assert tree.get_depth() == DEPTH
    _ = tree.root_        # the cached node tree must not be pickled
    for copied in round_trips(tree):
        assert same_tree(copied, tree) and copied.get_depth() == DEPTH
        np.testing.assert_array_equal(copied.predict(X), y)
        # read-only, like the original: no stale routing after an edit
        assert not copied.tree_.threshold.flags.writeable
        with pytest.raises(ValueError):
            copied.tree_.threshold[0] = 1e9
        assert copied.root_.children[1].threshold == tree.tree_.threshold[2]


@pytest.mark.slow
@pytest.mark.parametrize("make", [dtree.ID3Classifier, dtree.C45Classifier])
def test_node_trees_of_depth_ten_thousand(make, low_recursion_limit):
    """ID3 and C4.5 store Node trees; a deep one (built directly) is pickled like a fitted one."""
    X = np.array([[0.0], [1.0]]) if make is dtree.C45Classifier else np.array([["a"], ["b"]])
    estimator = make().fit(X, [0, 1])
    estimator.root_ = chain(DEPTH)
    if make is dtree.C45Classifier:
        estimator.unpruned_root_ = estimator.root_
    for copied in round_trips(estimator):
        assert same_tree(copied.root_, estimator.root_)
        assert max(n.depth for n in iter_nodes(copied.root_)) == DEPTH
        if make is dtree.C45Classifier:
            assert copied.unpruned_root_ is copied.root_       # sharing kept
        assert set(copied.__dict__) == set(estimator.__dict__)


@pytest.mark.parametrize("make", [dtree.ID3Classifier, dtree.C45Classifier,
                                  dtree.DecisionTreeClassifier])
def test_fitted_estimators_predict_the_same_after_a_round_trip(make):
    weather = load_weather(numeric=make is not dtree.ID3Classifier)
    X, y = weather.drop(columns="play"), weather["play"]
    if make is dtree.DecisionTreeClassifier:
        X = X.select_dtypes("number")
    estimator = make().fit(X, y)
    for copied in round_trips(estimator):
        np.testing.assert_array_equal(copied.predict_proba(X), estimator.predict_proba(X))
        assert dtree.export_text(copied) == dtree.export_text(estimator)
