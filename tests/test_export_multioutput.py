"""Multi-output trees: export_graphviz, export_text and plot_tree give scikit-learn's output.

The trees are scikit-learn's own fitted multi-output trees, which dtree's
exports read from their ``tree_`` arrays (the layout dtree's multi-output
trees share): every text is compared with scikit-learn's for the same tree,
byte for byte.
"""

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import sklearn.tree as sk  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import dtree  # noqa: E402
from dtree import export_graphviz, export_text, plot_tree  # noqa: E402
from dtree.export import _view  # noqa: E402
from dtree.tree import TreeArrays, node_fields  # noqa: E402


def _data(name):
    """X, a 2-D y and sample weights (or None) of one multi-output case."""
    rng = np.random.default_rng(0)
    X = rng.random((80, 3))
    two_and_four = np.c_[(X[:, 0] + 0.3 * rng.random(80) > 0.5).astype(int),
                         rng.integers(0, 4, 80)]            # 2 and 4 classes
    if name == "classes 2 and 4":
        return X, two_and_four, None
    if name == "classes 2 and 4, weighted":
        return X, two_and_four, rng.integers(1, 4, 80).astype(float)
    if name == "classes 2 and 4, fractional weights":
        return X, two_and_four, rng.uniform(0.5, 2.0, 80)
    if name == "classes 3, 2 and 5, strings":                 # three outputs, string labels
        return X, np.c_[np.array(["a", "b", "c"])[rng.integers(0, 3, 80)],
                        np.array(["no", "yes"])[two_and_four[:, 0]],
                        np.array(list("vwxyz"))[rng.integers(0, 5, 80)]], None
    if name == "regression 2":
        return X, np.c_[3 * X[:, 0] + rng.random(80), np.sin(6 * X[:, 1])], None
    if name == "regression 3, weighted":
        return (X, np.c_[X[:, 0], 10 * X[:, 1] ** 2, -X[:, 2] + 0.1 * rng.random(80)],
                rng.integers(1, 4, 80).astype(float))
    raise ValueError(name)


CASES = [("classes 2 and 4", "gini", 3), ("classes 2 and 4, weighted", "entropy", 3),
         ("classes 2 and 4, fractional weights", "gini", 3),
         ("classes 3, 2 and 5, strings", "log_loss", 2),
         ("regression 2", "squared_error", 3), ("regression 3, weighted", "absolute_error", 3),
         ("regression 2", "friedman_mse", 2)]


def fitted(name, criterion, max_depth):
    """scikit-learn's multi-output tree of one case."""
    X, Y, w = _data(name)
    estimator = (sk.DecisionTreeRegressor if name.startswith("regression")
                 else sk.DecisionTreeClassifier)
    tree = estimator(criterion=criterion, max_depth=max_depth, random_state=0).fit(
        X, Y, sample_weight=w)
    assert tree.n_outputs_ == Y.shape[1] > 1
    return tree


@pytest.fixture(params=CASES, ids=lambda case: f"{case[0]}, {case[1]}")
def tree(request):
    return fitted(*request.param)


def test_the_view_keeps_each_outputs_values(tree):
    view = _view(tree)
    assert view.n_outputs == tree.n_outputs_
    assert view.n_classes == tree.tree_.n_classes[0]
    for i in range(tree.tree_.node_count):
        np.testing.assert_array_equal(view.fractions[i], tree.tree_.value[i])
        assert view.fractions[i].shape == (tree.n_outputs_, tree.tree_.max_n_classes)


GRAPHVIZ_FLAGS = ["filled", "impurity", "proportion", "node_ids", "rounded", "leaves_parallel",
                  "rotate"]


def test_export_graphviz_is_scikit_learns_for_every_combination_of_options(tree):
    for flags in itertools.product([False, True], repeat=len(GRAPHVIZ_FLAGS)):
        for label, precision, max_depth in itertools.product(["all", "root", "none"], [0, 2, 3],
                                                             [None, 0, 1]):
            options = dict(zip(GRAPHVIZ_FLAGS, flags), label=label, precision=precision,
                           max_depth=max_depth)
            assert export_graphviz(tree, **options) == sk.export_graphviz(tree, **options), \
                options


@pytest.mark.parametrize("options", [
    {"special_characters": True, "node_ids": True, "filled": True},
    {"feature_names": ['f"0', "f<1>", "f&2"], "special_characters": True},
    {"feature_names": ['f"0', "f1", "f2"], "fontname": "Times", "proportion": True},
    {"class_names": True, "filled": True},             # no class line for multi-output
    {"class_names": ["any", "number", "of", "names"]},  # ignored, length unchecked
    {"precision": 6, "proportion": True, "impurity": False},
], ids=str)
def test_export_graphviz_other_options(tree, options):
    assert export_graphviz(tree, **options) == sk.export_graphviz(tree, **options)


def test_value_rows_as_scikit_learn_writes_them():
    tree = fitted("classes 2 and 4", "gini", 3)
    root = export_graphviz(tree).split("\n")[3]
    counts = tree.tree_.value[0] * tree.tree_.weighted_n_node_samples[0]
    rows = "\\n".join("[" + ", ".join(str(int(round(c))) for c in row) + "]" for row in counts)
    assert f"value = [{rows}]" in root       # [[a, b, 0, 0]\n[c, d, e, f]]
    assert "class =" not in export_graphviz(tree, class_names=True)
    regressor = fitted("regression 2", "squared_error", 3)
    assert "\\nvalue = [[" in export_graphviz(regressor)    # brackets kept


TEXT_OPTIONS = list(itertools.product([False, True], [0, 2, 5], [0, 1, 10], [1, 3, 6]))


def test_export_text_is_scikit_learns_for_every_combination_of_options(tree):
    for show_weights, decimals, max_depth, spacing in TEXT_OPTIONS:
        options = dict(show_weights=show_weights, decimals=decimals, max_depth=max_depth,
                       spacing=spacing)
        assert export_text(tree, **options) == sk.export_text(tree, **options), options
    names = ["a", "b b", "c"]
    assert export_text(tree, feature_names=names) == sk.export_text(tree, feature_names=names)


def test_export_text_writes_the_first_entry_of_each_output():
    """scikit-learn's rule: tree_.value[i].T[0], and the argmax's index as the class."""
    tree = fitted("classes 2 and 4", "gini", 1)
    left = tree.tree_.children_left[0]
    first = tree.tree_.value[left].T[0]
    weights = first * tree.tree_.weighted_n_node_samples[left]
    line = export_text(tree, show_weights=True).splitlines()[1]
    assert line == (f"|   |--- weights: [{weights[0]:.2f}, {weights[1]:.2f}] "
                    f"class: {np.argmax(first)}")


def test_class_names_of_a_multi_output_classifier_as_scikit_learn():
    tree = fitted("classes 2 and 4", "gini", 3)
    # export_text: the length must be len(classes_) (the number of outputs), then unused
    assert export_text(tree, class_names=["p", "q"]) == sk.export_text(
        tree, class_names=["p", "q"]) == export_text(tree)
    for names in (["p"], ["p", "q", "r", "s"]):
        with pytest.raises(ValueError) as theirs:
            sk.export_text(tree, class_names=names)
        with pytest.raises(ValueError) as ours:
            export_text(tree, class_names=names)
        assert str(ours.value) == str(theirs.value)
    # export_graphviz and plot_tree: any names are ignored
    for names in ([], ["p"], True):
        assert export_graphviz(tree, class_names=names) == sk.export_graphviz(
            tree, class_names=names)
    # a str is not a sequence of names: both refuse it (InvalidParameterError, a ValueError)
    for function in (export_graphviz, sk.export_graphviz):
        with pytest.raises(ValueError):
            function(tree, class_names="pq")


def test_filled_with_equal_impurities_is_a_value_error_as_in_scikit_learn():
    """scikit-learn divides 0 by 0 and fails converting NaN to an int; dtree says why."""
    X = np.arange(6.0).reshape(-1, 1)
    leaf = sk.DecisionTreeRegressor().fit(X, np.ones((6, 2)))
    root_only = sk.DecisionTreeClassifier().fit(np.zeros((6, 1)),
                                                np.c_[[0, 0, 0, 1, 1, 1], [2, 2, 3, 3, 4, 4]])
    for fitted_tree in (leaf, root_only):
        assert np.ptp(fitted_tree.tree_.impurity) == 0
        assert export_graphviz(fitted_tree) == sk.export_graphviz(fitted_tree)
        with pytest.warns(RuntimeWarning), pytest.raises(ValueError):
            sk.export_graphviz(fitted_tree, filled=True)
        with pytest.raises(ValueError, match="same impurity"):
            export_graphviz(fitted_tree, filled=True)
        with pytest.raises(ValueError, match="same impurity"):
            plot_tree(fitted_tree, ax=Figure().subplots(), filled=True)


def test_fill_colours_by_impurity():
    """Multi-output: the first palette colour at opacity (-imp - low) / (high - low)."""
    from dtree.export import fill_colours, _over_white

    tree = fitted("regression 2", "squared_error", 2)
    impurity = tree.tree_.impurity
    low, high = -impurity.max(), -impurity.min()
    assert fill_colours(_view(tree)) == [_over_white((229, 129, 57), (-v - low) / (high - low))
                                          for v in impurity]


PLOT_OPTIONS = [
    {},
    {"filled": True},
    {"filled": True, "max_depth": 1, "class_names": True, "rounded": True},
    {"filled": True, "proportion": True, "node_ids": True, "label": "root", "precision": 1},
    {"impurity": False, "label": "none", "feature_names": ["a", "b", "c"]},
    {"max_depth": 0, "proportion": True, "precision": 5},
]


@pytest.mark.parametrize("options", PLOT_OPTIONS, ids=str)
def test_plot_tree_texts_and_fills_are_scikit_learns(tree, options):
    fig, ax = plt.subplots()  # scikit-learn needs a canvas with a renderer
    try:
        expected = sk.plot_tree(tree, ax=ax, **options)
        expected_texts = [a.get_text() for a in expected]
        expected_fills = [to_rgba(a.get_bbox_patch().get_facecolor()) for a in expected
                          if a.get_bbox_patch() is not None]
    finally:
        plt.close(fig)
    got = plot_tree(tree, ax=Figure().subplots(), **options)
    assert [a.get_text() for a in got] == expected_texts
    boxes = [a for a in got if a.get_gid().startswith(("node", "truncated"))]
    assert [to_rgba(a.get_bbox_patch().get_facecolor()) for a in boxes] == expected_fills


class _ArraysTree:
    """A fitted-looking dtree estimator holding scikit-learn's arrays in dtree's TreeArrays."""

    def __init__(self, fitted_tree):
        arrays = fitted_tree.tree_
        self.tree_ = TreeArrays(n_features=arrays.n_features, n_classes=arrays.n_classes,
                                **{f.name: getattr(arrays, f.name) for f in node_fields()})
        self.n_features_in_ = fitted_tree.n_features_in_
        self.n_outputs_ = fitted_tree.n_outputs_
        self.criterion = fitted_tree.criterion
        if hasattr(fitted_tree, "classes_"):
            self.classes_ = fitted_tree.classes_
            self.n_classes_ = fitted_tree.n_classes_


@pytest.mark.parametrize("case", [CASES[1], CASES[3], CASES[5]], ids=lambda case: case[0])
def test_dtrees_tree_arrays_export_the_same(case):
    """The same arrays in dtree's TreeArrays (what dtree's multi-output fit will hold)."""
    theirs = fitted(*case)
    ours = _ArraysTree(theirs)
    for options in [{}, {"filled": True, "proportion": True, "node_ids": True}]:
        assert export_graphviz(ours, **options) == sk.export_graphviz(theirs, **options)
    assert export_text(ours, show_weights=True) == sk.export_text(theirs, show_weights=True)
    assert ([a.get_text() for a in plot_tree(ours, ax=Figure().subplots())]
            == [a.get_text() for a in plot_tree(theirs, ax=Figure().subplots())])


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n_samples=st.integers(2, 25), n_outputs=st.integers(2, 3),
       regression=st.booleans(), weighted=st.booleans(),
       max_depth=st.one_of(st.none(), st.integers(1, 4)))
def test_random_multi_output_trees_export_as_scikit_learns(data, n_samples, n_outputs,
                                                          regression, weighted, max_depth):
    n_features = data.draw(st.integers(1, 2))
    X = np.array(data.draw(st.lists(st.lists(st.integers(-5, 5), min_size=n_features,
                                             max_size=n_features),
                                    min_size=n_samples, max_size=n_samples)), dtype=float)
    Y = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=n_outputs,
                                             max_size=n_outputs),
                                    min_size=n_samples, max_size=n_samples)), dtype=float)
    w = (np.array(data.draw(st.lists(st.integers(1, 3), min_size=n_samples,
                                     max_size=n_samples)), dtype=float) if weighted else None)
    estimator = sk.DecisionTreeRegressor if regression else sk.DecisionTreeClassifier
    tree = estimator(max_depth=max_depth, random_state=0).fit(X, Y, sample_weight=w)
    options = data.draw(st.fixed_dictionaries({
        "filled": st.booleans(), "proportion": st.booleans(), "node_ids": st.booleans(),
        "label": st.sampled_from(["all", "root", "none"]), "precision": st.integers(0, 4),
        "max_depth": st.one_of(st.none(), st.integers(0, 2)), "rotate": st.booleans(),
        "leaves_parallel": st.booleans(), "impurity": st.booleans()}))
    if options["filled"] and np.ptp(tree.tree_.impurity) == 0:
        with pytest.raises(ValueError):
            export_graphviz(tree, **options)
    else:
        assert export_graphviz(tree, **options) == sk.export_graphviz(tree, **options)
    shown = data.draw(st.fixed_dictionaries({
        "show_weights": st.booleans(), "decimals": st.integers(0, 3),
        "max_depth": st.integers(0, 3), "spacing": st.integers(1, 4)}))
    assert export_text(tree, **shown) == sk.export_text(tree, **shown)


def test_the_exports_are_dtrees_public_functions():
    assert dtree.export_graphviz is export_graphviz and dtree.plot_tree is plot_tree
