"""Property-based tests of the theorems of the chapter "Trees on real data".

Samples have small integer features, and the maps use scales that are powers
of two and integer shifts, so that every transformed value and every midpoint
is exact in 32-bit floats: the theorems, stated in exact arithmetic, can then
be checked with equality.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import tree as sk

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.export import tree_rules

PARAMS = st.sampled_from([{}, {"max_depth": 3}, {"min_samples_leaf": 3}, {"ccp_alpha": 0.02}])


@st.composite
def data(draw, regression=False):
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(5, 40))
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 16, size=(n, d)).astype(float)
    y = rng.normal(size=n).round(3) if regression else rng.integers(0, 3, size=n)
    return X, y, rng


def assert_same_nodes(a, b):
    assert a.node_count == b.node_count
    for name in ("feature", "children_left", "children_right", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_allclose(a.value, b.value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(data=data(), params=PARAMS, regression=st.booleans())
def test_positive_affine_invariance(data, params, regression):
    """thm-real-data-affine: same nodes, thresholds t' = a t + b, same predictions everywhere."""
    X, y, rng = data
    if regression:
        y = X[:, 0] * 0.5 + rng.normal(size=len(y)).round(2)
    Estimator = DecisionTreeRegressor if regression else DecisionTreeClassifier
    d = X.shape[1]
    a = 2.0 ** rng.integers(-3, 4, size=d)
    b = rng.integers(-50, 51, size=d).astype(float)
    original = Estimator(**params).fit(X, y)
    mapped = Estimator(**params).fit(a * X + b, y)
    assert_same_nodes(original.tree_, mapped.tree_)
    internal = original.tree_.children_left >= 0
    j = original.tree_.feature[internal]
    np.testing.assert_array_equal(mapped.tree_.threshold[internal],
                                  a[j] * original.tree_.threshold[internal] + b[j])
    X_new = rng.integers(-2, 18, size=(50, d)) + rng.integers(0, 4, size=(50, d)) / 4
    np.testing.assert_array_equal(original.predict(X_new), mapped.predict(a * X_new + b))


@settings(max_examples=40, deadline=None)
@given(data=data(), params=PARAMS)
def test_monotone_invariance(data, params):
    """thm-real-data-affine (remark; ex-real-data-monotone): a strictly increasing map keeps every partition."""
    X, y, _ = data
    original = DecisionTreeClassifier(**params).fit(X, y)
    cubed = DecisionTreeClassifier(**params).fit(X**3, y)  # values up to 15**3: exact in float32
    assert_same_nodes(original.tree_, cubed.tree_)
    np.testing.assert_array_equal(original.apply(X), cubed.apply(X**3))


@settings(max_examples=40, deadline=None)
@given(data=data())
def test_leaf_boxes_partition_space(data):
    """thm-real-data-boxes: each point lies in exactly one leaf box, the box of the leaf it reaches."""
    X, y, rng = data
    model = DecisionTreeClassifier(max_depth=4).fit(X, y)
    t = model.tree_
    d = X.shape[1]
    boxes, stack = {}, [(0, np.full(d, -np.inf), np.full(d, np.inf))]
    while stack:
        node, lower, upper = stack.pop()
        if t.children_left[node] < 0:
            boxes[node] = (lower, upper)
            continue
        j, threshold = t.feature[node], t.threshold[node]
        left_upper, right_lower = upper.copy(), lower.copy()
        left_upper[j], right_lower[j] = min(upper[j], threshold), max(lower[j], threshold)
        stack += [(t.children_left[node], lower, left_upper), (t.children_right[node], right_lower, upper)]
    assert len(boxes) == model.get_n_leaves()
    points = np.vstack([X, rng.uniform(-1, 17, size=(100, d))]).astype(np.float32)
    leaves = model.apply(points)
    for point, leaf in zip(points, leaves):
        containing = [node for node, (lo, hi) in boxes.items() if np.all((lo < point) & (point <= hi))]
        assert containing == [leaf]


@settings(max_examples=40, deadline=None)
@given(data=data())
def test_decision_path_is_leaf_rule(data):
    """Chapter section "Reading decision_path": the path's tests are the conditions of the leaf's rule."""
    X, y, _ = data
    model = DecisionTreeClassifier().fit(X, y)
    t = model.tree_
    rules = {rule.leaf.node_id: rule for rule in tree_rules(model)}
    paths = model.decision_path(X)
    for i, leaf in enumerate(model.apply(X)):
        path = paths[i].indices
        assert path[0] == 0 and path[-1] == leaf
        from_path = [(int(t.feature[v]), "<=" if t.children_left[v] == w else ">", float(t.threshold[v]))
                     for v, w in zip(path[:-1], path[1:])]
        from_rule = [(c.feature, c.operator, float(c.value)) for c in rules[leaf].conditions]
        assert from_path == from_rule


@settings(max_examples=30, deadline=None)
@given(data=data())
def test_duplicate_feature_never_used(data):
    """ex-real-data-duplicate: a copy of a feature ties with it and loses by index; sklearn oracle fits alike."""
    X, y, _ = data
    four = DecisionTreeClassifier().fit(X, y)
    five = DecisionTreeClassifier().fit(np.column_stack([X, X[:, 0]]), y)
    assert_same_nodes(four.tree_, five.tree_)
    assert five.feature_importances_[-1] == 0.0
    theirs = sk.DecisionTreeClassifier(random_state=0).fit(np.column_stack([X, X[:, 0]]), y)
    np.testing.assert_array_equal(five.predict(np.column_stack([X, X[:, 0]])),
                                  theirs.predict(np.column_stack([X, X[:, 0]])))
