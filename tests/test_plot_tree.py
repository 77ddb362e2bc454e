"""plot_tree: boxes, texts, edge labels, colours, layout, matplotlib only, bad input."""

import shutil
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Annotation  # noqa: E402

from dtree import (DecisionTreeClassifier, DecisionTreeRegressor, ID3Classifier,  # noqa: E402
                   InvalidParameterError, NotFittedError, plot_tree)
from dtree.datasets import load_iris, load_weather  # noqa: E402
from dtree.tree import iter_nodes  # noqa: E402
from fitted_trees import MixedTree  # noqa: E402


@pytest.fixture
def weather_tree():
    weather = load_weather()
    return ID3Classifier().fit(weather.drop(columns="play"), weather["play"])


@pytest.fixture
def iris_tree():
    iris = load_iris()
    return DecisionTreeClassifier(random_state=0).fit(iris.drop(columns="species"),
                                                      iris["species"])


def new_axes(figsize=(10, 5)):
    return Figure(figsize=figsize).subplots()


def boxes(artists):
    return [a for a in artists if a.get_gid().startswith(("node", "truncated"))]


def edges(artists):
    return {a.get_gid(): a.get_text() for a in artists if a.get_gid().startswith("edge")}


def centre(annotation):
    """Centre of a box in axes fraction (the root has no arrow, so no xytext)."""
    return annotation.xyann if annotation.arrow_patch is not None else annotation.xy


def test_weather_boxes_texts_and_edge_labels(weather_tree):
    artists = plot_tree(weather_tree, ax=new_axes(), class_names=list(weather_tree.classes_))
    assert all(isinstance(a, Annotation) for a in artists)
    drawn = boxes(artists)
    assert len(drawn) == len(list(iter_nodes(weather_tree.root_))) == 8
    assert drawn[0].get_text() == ("outlook?\nentropy = 0.94\nsamples = 14\nvalue = [5, 9]\n"
                                   "class = yes")
    assert drawn[1].get_text() == "entropy = 0.0\nsamples = 4\nvalue = [0, 4]\nclass = yes"
    # without class_names no class line, as in scikit-learn
    plain = boxes(plot_tree(weather_tree, ax=new_axes()))
    assert plain[1].get_text() == "entropy = 0.0\nsamples = 4\nvalue = [0, 4]"
    assert drawn[2].get_text().startswith("windy?\nentropy = 0.971\nsamples = 5\nvalue = [2, 3]")
    # Node ids: 0 outlook, 1 overcast, 2 windy (3, 4), 5 humidity (6, 7).
    assert edges(artists) == {"edge 0->1": "overcast", "edge 0->2": "rainy", "edge 0->5": "sunny",
                              "edge 2->3": "False", "edge 2->4": "True",
                              "edge 5->6": "high", "edge 5->7": "normal"}


def test_iris_boxes_and_true_false_under_the_root_only(iris_tree):
    artists = plot_tree(iris_tree, ax=new_axes(), class_names=list(iris_tree.classes_))
    drawn = boxes(artists)
    assert len(drawn) == iris_tree.tree_.node_count
    root = iris_tree.root_
    threshold = round(root.threshold, 3)
    name = iris_tree.feature_names_in_[root.feature]
    assert drawn[0].get_text() == (f"{name} <= {threshold}\ngini = 0.667\nsamples = 150\n"
                                   "value = [50, 50, 50]\nclass = setosa")
    assert drawn[1].get_text() == "gini = 0.0\nsamples = 50\nvalue = [50, 0, 0]\nclass = setosa"
    right = root.children[1].node_id
    assert edges(artists) == {"edge 0->1": "True  ", f"edge 0->{right}": "  False"}


@pytest.mark.parametrize("max_depth", [0, 1, 2])
def test_max_depth_draws_truncated_boxes(iris_tree, max_depth):
    artists = plot_tree(iris_tree, ax=new_axes(), max_depth=max_depth)
    nodes = list(iter_nodes(iris_tree.root_))
    shown = [n for n in nodes if n.depth <= max_depth]
    hidden = [c for n in shown if n.depth == max_depth for c in n.children]
    assert [a.get_gid() for a in boxes(artists)] == [
        f"node {n.node_id}" if n.depth <= max_depth else f"truncated {n.node_id}"
        for n in nodes if n.depth <= max_depth + 1 and (n in shown or n in hidden)]
    truncated = [a for a in boxes(artists) if a.get_gid().startswith("truncated")]
    assert len(truncated) == len(hidden) > 0
    assert all(a.get_text() == "\n  (...)  \n" for a in truncated)


def test_multiway_max_depth(weather_tree):
    artists = plot_tree(weather_tree, ax=new_axes(), max_depth=0)
    assert [a.get_gid() for a in boxes(artists)] == ["node 0", "truncated 1", "truncated 2",
                                                     "truncated 5"]
    assert sorted(edges(artists).values()) == ["overcast", "rainy", "sunny"]


@pytest.mark.parametrize("kwargs", [
    {},
    {"max_depth": 1},
    {"proportion": True, "node_ids": True, "label": "root", "precision": 2},
    {"impurity": False, "label": "none"},
])
@pytest.mark.parametrize("regression", [False, True])
def test_texts_equal_scikit_learns(kwargs, regression):
    """Oracle: the same tree (best splits unique at depth 3) gives scikit-learn's texts."""
    from sklearn import tree as sk

    iris = load_iris()
    X = iris.drop(columns="species")
    y = iris["petal_width"] if regression else iris["species"]
    if regression:
        X = X.drop(columns="petal_width")
    ours = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(max_depth=3,
                                                                               random_state=0)
    theirs = (sk.DecisionTreeRegressor if regression else sk.DecisionTreeClassifier)(
        max_depth=3, random_state=0)
    ours.fit(X, y)
    theirs.fit(X.to_numpy(), y)
    names = list(X.columns)
    class_names = None if regression else list(theirs.classes_)
    fig, ax = plt.subplots()  # scikit-learn needs a canvas with a renderer
    try:
        expected = [a.get_text() for a in sk.plot_tree(theirs, ax=ax, feature_names=names,
                                                        class_names=class_names, **kwargs)]
    finally:
        plt.close(fig)
    got = [a.get_text() for a in plot_tree(ours, ax=new_axes(), feature_names=names,
                                           class_names=class_names, **kwargs)]
    assert got == expected


def test_class_names_and_feature_names(weather_tree):
    artists = plot_tree(weather_tree, ax=new_axes(), feature_names=["o", "t", "h", "w"],
                        class_names=["stay in", "play"])
    assert boxes(artists)[0].get_text().splitlines()[::4] == ["o?", "class = play"]
    symbolic = plot_tree(weather_tree, ax=new_axes(), class_names=True)
    assert boxes(symbolic)[0].get_text().endswith("class = y[1]")


def over_white(rgb, alpha):
    """scikit-learn's fill: the colour over white at opacity alpha, rounded to 8 bits."""
    return tuple(round(alpha * c + (1 - alpha) * 255) / 255 for c in rgb) + (1.0,)


# scikit-learn's palette for two classes and for a regressor (hues 25 and 205 degrees)
ORANGE, BLUE = (229, 129, 57), (57, 157, 229)


def fill_of(annotation):
    return tuple(annotation.get_bbox_patch().get_facecolor())


def test_filled_colours(weather_tree):
    artists = boxes(plot_tree(weather_tree, ax=new_axes(), filled=True))
    again = boxes(plot_tree(weather_tree, ax=new_axes(), filled=True))
    assert [fill_of(a) for a in artists] == [fill_of(a) for a in again]
    no, yes = ORANGE, BLUE  # classes_ = ["no", "yes"]
    # Root [5, 9]: majority yes, alpha (9/14 - 5/14) / (1 - 5/14) = 4/9.
    np.testing.assert_allclose(fill_of(artists[0]), over_white(yes, 4 / 9), atol=1e-9)
    np.testing.assert_allclose(fill_of(artists[1]), over_white(yes, 1.0), atol=1e-9)  # pure yes
    np.testing.assert_allclose(fill_of(artists[4]), over_white(no, 1.0), atol=1e-9)   # pure no
    unfilled = boxes(plot_tree(weather_tree, ax=new_axes()))
    assert {fill_of(a) for a in unfilled} == {(1.0, 1.0, 1.0, 1.0)}


def test_filled_tie_is_white_and_regressor_scale():
    tie = DecisionTreeClassifier(max_depth=1).fit([[0.0], [0.0], [1.0], [1.0]], [0, 1, 0, 1])
    assert fill_of(boxes(plot_tree(tie, ax=new_axes(), filled=True))[0]) == (1.0, 1.0, 1.0, 1.0)
    reg = DecisionTreeRegressor().fit([[1.0], [2.0], [3.0]], [0.0, 1.0, 2.0])
    drawn = {a.get_gid(): fill_of(a) for a in boxes(plot_tree(reg, ax=new_axes(), filled=True))}
    values = {f"node {n.node_id}": n.value[0] for n in iter_nodes(reg.root_)}
    lowest, highest = min(values, key=values.get), max(values, key=values.get)
    assert drawn[lowest] == (1.0, 1.0, 1.0, 1.0)
    np.testing.assert_allclose(drawn[highest], over_white(ORANGE, 1.0), atol=1e-9)
    np.testing.assert_allclose(drawn["node 0"], over_white(ORANGE, 0.5), atol=1e-9)  # 1 of 0..2


def contrast(text_colour, fill):
    """WCAG 2 contrast ratio of two colours."""
    def luminance(colour):
        c = np.array(to_rgba(colour)[:3])
        return float(np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
                     @ [0.2126, 0.7152, 0.0722])
    high, low = sorted([luminance(text_colour), luminance(fill)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_text_is_black_or_white_whichever_contrasts_more():
    X = np.arange(8.0).reshape(-1, 1)
    tree = DecisionTreeClassifier().fit(X, np.arange(8))
    drawn = boxes(plot_tree(tree, ax=new_axes(), filled=True, max_depth=2))
    for a in drawn:
        fill = a.get_bbox_patch().get_facecolor()
        other = "white" if a.get_color() == "black" else "black"
        assert contrast(a.get_color(), fill) >= contrast(other, fill)


def test_tidy_layout(iris_tree):
    artists = plot_tree(iris_tree, ax=new_axes())
    at = {int(a.get_gid().split()[1]): centre(a) for a in boxes(artists)}
    nodes = list(iter_nodes(iris_tree.root_))
    leaves = [n for n in nodes if n.is_leaf]
    xs = [at[n.node_id][0] for n in leaves]
    np.testing.assert_allclose(np.diff(xs), 1 / len(leaves))   # evenly spaced, in order
    for n in nodes:
        if not n.is_leaf:  # centred over the first and last child
            first, last = at[n.children[0].node_id][0], at[n.children[-1].node_id][0]
            assert at[n.node_id][0] == pytest.approx((first + last) / 2)
        assert at[n.node_id][1] == pytest.approx(1 - (n.depth + 0.5) / (iris_tree.get_depth() + 1))


def test_automatic_fontsize_keeps_boxes_apart(iris_tree):
    ax = new_axes((12, 6))
    drawn = boxes(plot_tree(iris_tree, ax=ax))
    ax.figure.draw_without_rendering()
    extents = [a.get_bbox_patch().get_window_extent() for a in drawn]
    for i, a in enumerate(extents):
        for b in extents[i + 1:]:
            assert not a.overlaps(b)
    assert len({a.get_fontsize() for a in drawn}) == 1


def test_fontsize_given(weather_tree):
    artists = plot_tree(weather_tree, ax=new_axes(), fontsize=7)
    assert {a.get_fontsize() for a in artists} == {7}


def test_ax_given_is_cleared_and_ax_none_uses_current_axes(weather_tree):
    ax = new_axes()
    ax.plot([0, 1], [0, 1])
    artists = plot_tree(weather_tree, ax=ax)
    assert len(ax.lines) == 0 and not ax.axison
    assert all(a.axes is ax for a in artists)
    fig, current = plt.subplots()
    try:
        artists = plot_tree(weather_tree)
        assert all(a.axes is current for a in artists)
    finally:
        plt.close(fig)


def test_needs_matplotlib_only(weather_tree, iris_tree, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", "")
    monkeypatch.setitem(sys.modules, "graphviz", None)  # `import graphviz` now fails
    assert shutil.which("dot") is None
    for name, tree in [("weather", weather_tree), ("iris", iris_tree)]:
        ax = new_axes()
        plot_tree(tree, ax=ax, filled=True, rounded=True)
        path = tmp_path / f"{name}.png"
        ax.figure.savefig(path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_any_root_tree_with_mixed_nodes_and_fractional_counts():
    artists = plot_tree(MixedTree(), ax=new_axes(), precision=2, class_names=["no", "yes"])
    texts = [a.get_text() for a in boxes(artists)]
    # Whole weighted counts print as integers, as in scikit-learn; others with precision.
    assert texts[1] == "humidity <= 75.0\nentropy = 1.0\nsamples = 5\nvalue = [3, 3]\nclass = no"
    assert texts[3] == "entropy = 0.65\nsamples = 3\nvalue = [3.0, 0.6]\nclass = no"
    assert texts[2].splitlines()[2] == "value = [0.0, 2.4]"
    # Categories on the multiway edges; no True/False below a non-root binary node.
    assert edges(artists) == {"edge 0->1": "sunny", "edge 0->4": "overcast"}


def test_single_leaf():
    tree = ID3Classifier().fit([["a"]], ["yes"])
    artists = plot_tree(tree, ax=new_axes())
    # a single class: its fraction, as scikit-learn writes it
    assert [a.get_text() for a in artists] == ["entropy = 0.0\nsamples = 1\nvalue = 1.0"]


def test_bad_input(weather_tree):
    ax = new_axes()
    with pytest.raises(NotFittedError):
        plot_tree(ID3Classifier(), ax=ax)
    with pytest.raises(NotFittedError):
        plot_tree(DecisionTreeClassifier(), ax=ax)
    with pytest.raises(ValueError, match="feature_names must have 4 entries .* got 2"):
        plot_tree(weather_tree, ax=ax, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="class_names must have 2 entries"):
        plot_tree(weather_tree, ax=ax, class_names=["a"])
    bad = [({"class_names": "yes"}, "class_names must be None, True or a sequence"),
           ({"label": "leaves"}, "label must be 'all', 'root' or 'none', got 'leaves'"),
           ({"max_depth": -1}, "max_depth must be None or an int >= 0, got -1"),
           ({"precision": 1.5}, "precision must be an int >= 0, got 1.5"),
           ({"fontsize": 0}, "fontsize must be None or a number > 0, got 0"),
           ({"filled": "yes"}, "filled must be True or False, got 'yes'"),
           ({"ax": "axes"}, "ax must be a matplotlib Axes or None, got 'axes'")]
    for kwargs, message in bad:
        with pytest.raises(InvalidParameterError, match=message):
            plot_tree(weather_tree, **{"ax": ax, **kwargs})


PLOT_OPTIONS = [
    {"filled": True},
    {"filled": True, "max_depth": 1, "class_names": True, "rounded": True},
    {"filled": True, "proportion": True, "node_ids": True, "label": "root", "precision": 1},
    {"impurity": False, "label": "none", "names": True},
    {"max_depth": 0, "filled": True},   # no True/False into the root's "(...)" children
]


@pytest.mark.parametrize("options", PLOT_OPTIONS, ids=str)
@pytest.mark.parametrize("case", [0, 1, 2, 3, -4, -1])
def test_texts_and_fills_equal_scikit_learns(case, options):
    """Oracle: the annotations of the same tree carry scikit-learn's texts and box colours."""
    from sklearn import tree as sk
    from test_export import CLASSIFIERS, REGRESSORS, _fitted_pair, _names_for

    ours, theirs = _fitted_pair(*(CLASSIFIERS + REGRESSORS)[case])
    options = _names_for(ours, options)
    fig, ax = plt.subplots()  # scikit-learn needs a canvas with a renderer
    try:
        expected = sk.plot_tree(theirs, ax=ax, **options)
        expected_texts = [a.get_text() for a in expected]
        expected_fills = [to_rgba(a.get_bbox_patch().get_facecolor()) for a in expected
                          if a.get_bbox_patch() is not None]
    finally:
        plt.close(fig)
    got = plot_tree(ours, ax=new_axes(), **options)
    assert [a.get_text() for a in got] == expected_texts
    assert [to_rgba(a.get_bbox_patch().get_facecolor()) for a in boxes(got)] == expected_fills
