"""export_text and export_graphviz: exact layout, escaping, rendering by Graphviz's dot."""

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from dtree import ID3Classifier, NotFittedError, export_graphviz, export_text
from dtree.c45 import TEXTBOOK
from dtree.datasets import load_weather
from dtree.tree import iter_nodes


@pytest.fixture
def weather_tree():
    weather = load_weather()
    return ID3Classifier().fit(weather.drop(columns="play"), weather["play"])


def test_export_text_of_the_weather_tree(weather_tree):
    assert export_text(weather_tree) == (
        "|--- outlook = overcast\n"
        "|   |--- class: yes\n"
        "|--- outlook = rainy\n"
        "|   |--- windy = False\n"
        "|   |   |--- class: yes\n"
        "|   |--- windy = True\n"
        "|   |   |--- class: no\n"
        "|--- outlook = sunny\n"
        "|   |--- humidity = high\n"
        "|   |   |--- class: no\n"
        "|   |--- humidity = normal\n"
        "|   |   |--- class: yes\n"
    )


def test_export_text_options(weather_tree):
    text = export_text(weather_tree, show_weights=True, max_depth=0,
                       class_names=["stay in", "play"])
    # scikit-learn's truncation: below max_depth + 1 levels a leaf is still a
    # leaf, an internal node a branch counted in levels (windy and its leaves: 2)
    assert text == ("|--- outlook = overcast\n|   |--- weights: [0.00, 4.00] class: play\n"
                    "|--- outlook = rainy\n|   |--- truncated branch of depth 2\n"
                    "|--- outlook = sunny\n|   |--- truncated branch of depth 2\n")
    assert export_text(weather_tree, spacing=1, decimals=1, show_weights=True).splitlines()[:2] \
        == ["|- outlook = overcast", "| |- weights: [0.0, 4.0] class: yes"]
    with pytest.raises(ValueError, match="class_names must have 2 entries"):
        export_text(weather_tree, class_names=["a"])
    with pytest.raises(ValueError, match="feature_names must have 4 entries"):
        export_text(weather_tree, feature_names=["a", "b"])


def test_single_leaf():
    tree = ID3Classifier().fit([["a"]], ["yes"])
    assert export_text(tree) == "|--- class: yes\n"
    assert export_graphviz(tree).count("->") == 0


def test_not_fitted():
    with pytest.raises(NotFittedError):
        export_text(ID3Classifier())
    with pytest.raises(NotFittedError):
        export_graphviz(ID3Classifier())


def test_graphviz_structure(weather_tree):
    dot = export_graphviz(weather_tree, class_names=weather_tree.classes_)
    assert dot.startswith('digraph Tree {\nnode [shape=box, fontname="helvetica"] ;\n')
    assert dot.endswith("\n}")
    assert dot.count("->") == 7
    assert '0 [label="outlook?\\nentropy = 0.94\\nsamples = 14\\nvalue = [5, 9]\\nclass = yes"] ;' in dot
    assert ('1 [label="entropy = 0.0\\nsamples = 4\\nvalue = [0, 4]\\nclass = yes"] ;\n'
            '0 -> 1 [label="overcast"] ;') in dot
    assert "class = " not in export_graphviz(weather_tree)   # no class_names: no class line


NASTY = 'say "hi" <b> & \\ back'


def nasty_tree():
    X = pd.DataFrame({NASTY: ["a<", "b&"], "x": ["1", "2"]})
    return ID3Classifier().fit(X, ['class "A" <&>', "B"])


def test_graphviz_labels_are_escaped():
    tree = nasty_tree()
    dot = export_graphviz(tree, class_names=tree.classes_)
    assert 'say \\"hi\\" <b> & \\\\ back?' in dot
    assert 'class = class \\"A\\" <&>' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_dot_renders_escaped_labels():
    tree = nasty_tree()
    dot = export_graphviz(tree, class_names=tree.classes_)
    result = subprocess.run(["dot", "-Tsvg"], input=dot,
                            capture_output=True, text=True, check=True)
    assert result.stderr == ""
    svg = result.stdout
    assert "say &quot;hi&quot; &lt;b&gt; &amp; \\ back?" in svg
    assert "class = class &quot;A&quot; &lt;&amp;&gt;" in svg


def test_cart_export_text_matches_scikit_learn_layout():
    from sklearn.tree import DecisionTreeClassifier as SkTree
    from sklearn.tree import export_text as sk_export_text

    from dtree import DecisionTreeClassifier
    from dtree.datasets import load_iris

    iris = load_iris()
    X, y = iris.drop(columns="species").iloc[:, [0, 1, 3]], iris["species"]  # no root tie
    ours = export_text(DecisionTreeClassifier(max_depth=3).fit(X, y))
    theirs = sk_export_text(SkTree(max_depth=3, random_state=0).fit(X, y),
                            feature_names=list(X.columns))
    assert ours == theirs


def test_cart_graphviz_and_regression_text():
    import numpy as np

    from dtree import DecisionTreeRegressor

    X = np.arange(8.0).reshape(-1, 1)
    y = np.array([1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 9.0])
    tree = DecisionTreeRegressor(max_depth=1).fit(X, y)
    assert export_text(tree) == (
        "|--- feature_0 <= 3.50\n|   |--- value: [1.00]\n"
        "|--- feature_0 >  3.50\n|   |--- value: [6.00]\n")
    dot = export_graphviz(tree)
    assert '0 [label="x[0] <= 3.5\\nsquared_error = 7.75\\nsamples = 8\\nvalue = 3.5"] ;' in dot
    assert '0 -> 1 [labeldistance=2.5, labelangle=45, headlabel="True"] ;' in dot
    assert '0 -> 2 [labeldistance=2.5, labelangle=-45, headlabel="False"] ;' in dot
    assert tree.root_.children[1].value.tolist() == [6.0]


def test_export_trace_for_every_estimator():
    from dtree import C45Classifier, DecisionTreeClassifier
    from dtree.export import export_trace

    weather = load_weather(numeric=True)
    X, y = weather.drop(columns="play"), weather["play"]
    c45 = C45Classifier(**TEXTBOOK, pruning=None).fit(X, y)
    trace = export_trace(c45)
    blocks = trace.strip().split("\n\n")
    assert len(blocks) == sum(1 for _ in iter_nodes(c45.root_))
    assert sum("  leaf: " in b for b in blocks) == c45.get_n_leaves()
    root = blocks[0].splitlines()
    assert root[1] == "  average gain 0.123"
    assert "temperature: gain 0.045, split info 0.940, ratio 0.048 (below average)" in root[3]
    assert root[-1] == "  chosen: outlook"
    assert "outlook = sunny and humidity <= 77.500: 2 samples" in trace
    # Release 8: the numeric gains are penalised, and a nominal feature with
    # many values (here a day number) stays out of the average.
    days = X.assign(day=[f"d{i}" for i in range(14)])
    release8 = C45Classifier(pruning=None, min_samples_leaf=1).fit(days, y)
    root = export_trace(release8).split("\n\n")[0].splitlines()
    scores = release8.root_.candidate_scores
    counted = [s.gain for j, s in scores.items() if j != 4]
    assert root[1] == f"  average gain {np.mean(counted):.3f}"
    assert any(line.startswith("  day: ") and line.endswith("(many values: not in the average)")
               for line in root)
    cart = DecisionTreeClassifier(max_depth=2).fit(X[["temperature", "humidity"]], y)
    cart_trace = export_trace(cart, decimals=2)
    assert cart_trace.startswith("root: 14 samples, counts [5, 9], impurity 0.46\n  chosen: ")


def test_counts_rebuilt_from_fractions_as_scikit_learn_prints_them():
    # CART stores class fractions: 0.37 * 400 can come back as 147.99999999999997,
    # which scikit-learn prints rounded, with decimals, as dtree does.
    from sklearn.datasets import load_breast_cancer
    from sklearn.tree import DecisionTreeClassifier as SkTree
    from sklearn.tree import export_graphviz as sk_export_graphviz
    from sklearn.tree import export_text as sk_export_text

    from dtree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    tree = DecisionTreeClassifier(max_depth=1).fit(X[:398], y[:398])
    theirs = SkTree(max_depth=1, random_state=0).fit(X[:398], y[:398])
    values = tree.tree_.value[:, 0] * tree.tree_.weighted_n_node_samples[:, None]
    assert not np.all(np.mod(values, 1) == 0)   # the case at stake
    assert export_graphviz(tree) == sk_export_graphviz(theirs)
    assert export_text(tree, show_weights=True) == sk_export_text(theirs, show_weights=True)
