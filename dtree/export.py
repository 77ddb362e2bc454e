"""Text and Graphviz renderings of a fitted tree.

``export_text`` prints the tree as indented rules in scikit-learn's layout;
``export_graphviz`` returns DOT source for Graphviz's ``dot`` (render it with
the ``graphviz`` package or the ``dot`` command).  Neither needs Graphviz
installed to produce its text.  ``tree_rules`` lists the tree as one rule per
leaf (the conjunction of the tests on the path to it) and ``export_rules``
prints those rules.  (``plot_tree``, which draws the tree with matplotlib, is
in :mod:`dtree.plotting`.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dtree._validation import check_is_fitted
from dtree.tree import Node, iter_nodes

__all__ = ["export_text", "export_graphviz", "export_rules", "export_trace", "tree_rules", "Condition",
           "Rule"]

# Colour-blind-safe palette (Okabe & Ito, 2008), one colour per class.
_PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
            "#999999"]


def _names(estimator, feature_names, class_names):
    check_is_fitted(estimator, "root_")
    n_features = estimator.n_features_in_
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"feature_{j}" for j in range(n_features)]
    feature_names = [str(name) for name in feature_names]
    if len(feature_names) != n_features:
        raise ValueError(
            f"feature_names must have {n_features} entries (one per feature), got {len(feature_names)}"
        )
    if not _is_classifier(estimator):
        return feature_names, None
    if class_names is None:
        class_names = estimator.classes_
    class_names = [str(name) for name in class_names]
    if len(class_names) != estimator.n_classes_:
        raise ValueError(
            f"class_names must have {estimator.n_classes_} entries (one per class), "
            f"got {len(class_names)}"
        )
    return feature_names, class_names


def _is_classifier(estimator) -> bool:
    return hasattr(estimator, "classes_")


def _edge_texts(node: Node, feature_names, decimals=2) -> list[str]:
    """The condition on each edge out of ``node``: ``outlook = sunny`` or ``x <= 2.45``."""
    name = feature_names[node.feature]
    if node.threshold is not None:
        return [f"{name} <= {node.threshold:.{decimals}f}", f"{name} >  {node.threshold:.{decimals}f}"]
    return [f"{name} = {category}" for category in node.categories]


def _majority(node: Node, class_names) -> str:
    return class_names[int(np.argmax(node.value))]


def _node_lines(node: Node, feature_names, *, number, value: str, criterion=None, samples=None,
                class_name=None, show_labels: bool = True) -> list[str]:
    """The lines of a node's box, shared by :func:`export_graphviz` and ``plot_tree``.

    In this order: the test of an internal node (``name <= threshold`` for a
    binary node, ``name?`` for a multiway one), the impurity (if ``criterion``
    names it), the samples, the value and the class (if ``class_name`` is
    given).  With ``show_labels`` each line but the test reads
    ``field = text`` (``samples = 14``), else only ``text``.

    Parameters
    ----------
    node : Node
        The node.
    feature_names : list of str
        Names of the features.
    number : callable
        Formats a threshold or an impurity (a float) as text.
    value : str
        The value as text (class counts or fractions, or a regression value).
    criterion : str or None, default=None
        Name of the impurity; ``None`` leaves the impurity out.
    samples : str or None, default=None
        The samples as text; ``None`` writes ``node.n_samples``.
    class_name : str or None, default=None
        The predicted class; ``None`` (a regressor) leaves the line out.
    show_labels : bool, default=True
        Write the field names.

    Returns
    -------
    list of str
    """
    def line(field, text):
        return f"{field} = {text}" if show_labels else text

    lines = []
    if not node.is_leaf:
        name = feature_names[node.feature]
        lines.append(f"{name} <= {number(node.threshold)}" if node.threshold is not None
                     else f"{name}?")
    if criterion is not None:
        lines.append(line(criterion, number(node.impurity)))
    lines.append(line("samples", str(node.n_samples) if samples is None else samples))
    lines.append(line("value", value))
    if class_name is not None:
        lines.append(line("class", class_name))
    return lines


def _edge_labels(node: Node, is_root: bool) -> list[str]:
    """Labels of the edges out of an internal node, in the order of its children.

    A multiway node's categories; "True" and "False" under a binary root, as
    scikit-learn writes them; no label (``""``) under other binary nodes.
    """
    if node.threshold is None:
        return [str(category) for category in node.categories]
    return ["True", "False"] if is_root else ["", ""]


def _criterion_name(estimator) -> str:
    """The impurity's name in a node's box: ``entropy`` for ID3 and C4.5, else ``criterion``."""
    return (getattr(estimator, "_impurity_name", None)
            or getattr(estimator, "criterion", "impurity"))


def _leaf_label(estimator, node: Node, class_names, decimals) -> str:
    if _is_classifier(estimator):
        return f"class: {_majority(node, class_names)}"
    return f"value: [{node.value[0]:.{decimals}f}]"


def _format_value(value: np.ndarray, decimals: int) -> str:
    # Whole counts print as integers, also when rebuilt from class fractions
    # (CART stores fractions: 0.37 * 400 can come back as 147.99999999999997).
    rounded = np.round(value)
    if np.allclose(value, rounded, rtol=1e-12, atol=1e-9):
        return "[" + ", ".join(str(int(v)) for v in rounded) + "]"
    return "[" + ", ".join(f"{v:.{decimals}f}" for v in value) + "]"


def export_text(estimator, *, feature_names=None, class_names=None, max_depth=10,
                decimals=2, show_weights=False) -> str:
    """The fitted tree as indented if/else text, one line per edge and leaf.

    Parameters
    ----------
    estimator : fitted ID3Classifier, DecisionTreeClassifier or DecisionTreeRegressor
        The tree to print.
    feature_names : sequence of str of length n_features, default=None
        Names of the features; defaults to ``feature_names_in_`` if the
        estimator has it, else ``feature_0``, ``feature_1``, ...
    class_names : sequence of str of length n_classes, default=None
        Names of the classes, in the order of ``classes_``; defaults to
        ``classes_``.
    max_depth : int, default=10
        Deeper subtrees are abbreviated as ``truncated branch of depth d``.
    decimals : int, default=2
        Decimals of thresholds, regression values and non-integer class weights.
    show_weights : bool, default=False
        If True, each leaf also shows its (weighted) class counts.

    Returns
    -------
    str
        The rendering, one line per edge and per leaf, ending in a newline.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length.

    Examples
    --------
    >>> from dtree import ID3Classifier, export_text
    >>> from dtree.datasets import load_animals
    >>> animals = load_animals()
    >>> tree = ID3Classifier().fit(animals.drop(columns="animal"), animals["animal"])
    >>> print(export_text(tree), end="")
    |--- has_feathers = no
    |   |--- has_fins = no
    |   |   |--- class: bear
    |   |--- has_fins = yes
    |   |   |--- class: dolphin
    |--- has_feathers = yes
    |   |--- can_fly = no
    |   |   |--- class: penguin
    |   |--- can_fly = yes
    |   |   |--- class: hawk
    """
    feature_names, class_names = _names(estimator, feature_names, class_names)
    lines: list[str] = []

    def leaf_text(node: Node) -> str:
        text = _leaf_label(estimator, node, class_names, decimals)
        if show_weights and _is_classifier(estimator):
            text = f"weights: {_format_value(node.value, decimals)} {text}"
        return text

    def walk(node: Node, depth: int) -> None:
        indent = "|   " * depth + "|--- "
        if node.is_leaf:
            lines.append(indent + leaf_text(node))
            return
        if depth >= max_depth:
            subtree_depth = max(n.depth for n in iter_nodes(node)) - node.depth
            lines.append(indent + f"truncated branch of depth {subtree_depth}")
            return
        for text, child in zip(_edge_texts(node, feature_names, decimals), node.children):
            lines.append(indent + text)
            walk(child, depth + 1)

    if estimator.root_.is_leaf:
        lines.append("|--- " + leaf_text(estimator.root_))
    else:
        walk(estimator.root_, 0)
    return "\n".join(lines) + "\n"


def _dot_escape(text: str) -> str:
    """Escape text for a double-quoted DOT string (``"`` and ``\\``; ``\\n`` breaks lines)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _fill_colour(node: Node) -> str:
    """Class colour, more opaque the purer the node (white when uniform)."""
    proba = node.proba
    k = proba.size
    purity = 0.0 if k == 1 else (proba.max() - 1.0 / k) / (1.0 - 1.0 / k)
    alpha = int(round(255 * max(0.0, min(1.0, purity))))
    return f"{_PALETTE[int(np.argmax(proba)) % len(_PALETTE)]}{alpha:02x}"


def _dot_header(*, filled, rounded, rotate) -> list[str]:
    """The first lines of the DOT source: the graph, the boxes' style, the direction."""
    style = ["filled"] if filled else []
    if rounded:
        style.append("rounded")
    node_attrs = ['shape=box']
    if style:
        node_attrs.append(f'style="{", ".join(style)}"')
    if rounded:
        node_attrs.append('fontname="helvetica"')
    lines = ["digraph Tree {", f"node [{', '.join(node_attrs)}] ;"]
    if rotate:
        lines.append("rankdir=LR ;")
    if rounded:
        lines.append('edge [fontname="helvetica"] ;')
    return lines


def export_graphviz(estimator, *, feature_names=None, class_names=None, impurity=True,
                    filled=True, rounded=True, precision=3, rotate=False) -> str:
    """DOT source drawing the fitted tree, for Graphviz's ``dot``.

    Internal nodes show the tested feature; edges show its categories;
    every node shows its impurity, sample count, class counts and majority
    class.  Labels are escaped, so feature and class names may contain
    quotes, backslashes, ``<``, ``>`` or ``&``.

    Parameters
    ----------
    estimator : fitted ID3Classifier, DecisionTreeClassifier or DecisionTreeRegressor
        The tree to draw.
    feature_names : sequence of str of length n_features, default=None
        As in :func:`export_text`.
    class_names : sequence of str of length n_classes, default=None
        As in :func:`export_text`.
    impurity : bool, default=True
        Show each node's impurity (entropy in bits for ID3).
    filled : bool, default=True
        Colour nodes by majority class, stronger the purer the node.
    rounded : bool, default=True
        Rounded boxes in Helvetica.
    precision : int, default=3
        Decimals of impurities.
    rotate : bool, default=False
        Draw the tree left to right instead of top down (as scikit-learn's
        ``rotate``): a deep tree then grows down the page, which keeps its
        boxes legible in a narrow text column or on a phone.

    Returns
    -------
    str
        DOT source (``digraph Tree { ... }``).

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length.

    Examples
    --------
    >>> from dtree import ID3Classifier, export_graphviz
    >>> from dtree.datasets import load_animals
    >>> animals = load_animals()
    >>> tree = ID3Classifier().fit(animals.drop(columns="animal"), animals["animal"])
    >>> dot = export_graphviz(tree)
    >>> dot.splitlines()[0], dot.count("->")
    ('digraph Tree {', 6)

    Render it with ``graphviz.Source(dot)`` or ``dot -Tpng tree.dot -o tree.png``.
    """
    feature_names, class_names = _names(estimator, feature_names, class_names)
    if not isinstance(rotate, (bool, np.bool_)):
        raise TypeError(f"rotate must be True or False, got {rotate!r}")
    lines = _dot_header(filled=filled, rounded=rounded, rotate=rotate)
    criterion = _criterion_name(estimator) if impurity else None
    classifier = _is_classifier(estimator)
    for node in iter_nodes(estimator.root_):
        parts = _node_lines(node, feature_names, number=lambda x: f"{x:.{precision}f}",
                            criterion=criterion, value=_format_value(node.value, precision),
                            class_name=_majority(node, class_names) if classifier else None)
        label = "\\n".join(_dot_escape(p) for p in parts)
        attrs = f'label="{label}"'
        if filled and classifier:
            attrs += f', fillcolor="{_fill_colour(node)}"'
        lines.append(f"{node.node_id} [{attrs}] ;")
        if not node.is_leaf:
            for edge, child in zip(_edge_labels(node, node.node_id == 0), node.children):
                label = f' [label="{_dot_escape(edge)}"]' if edge else ""
                lines.append(f"{node.node_id} -> {child.node_id}{label} ;")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --- rules: one conjunction of tests per leaf ---------------------------------

@dataclass(frozen=True)
class Condition:
    """One test on the path from the root to a leaf.

    Attributes
    ----------
    feature : int
        Index of the tested feature (column of ``X``).
    operator : {"<=", ">", "="}
        ``"<="`` and ``">"`` for the two branches of a binary test
        ``x[feature] <= threshold``; ``"="`` for a branch of a multiway test.
    value : float or object
        The threshold (binary test) or the category of the branch (multiway).
    """

    feature: int
    operator: str
    value: object

    def format(self, feature_names, decimals: int = 2) -> str:
        """The condition as text: ``petal_length <= 2.45`` or ``outlook = sunny``."""
        name = feature_names[self.feature]
        if self.operator == "=":
            return f"{name} = {self.value}"
        return f"{name} {self.operator} {self.value:.{decimals}f}"


@dataclass(frozen=True)
class Rule:
    """The path to one leaf: ``if`` all ``conditions`` hold ``then`` the leaf predicts.

    Attributes
    ----------
    conditions : tuple of Condition
        The tests on the path from the root, in path order (empty when the
        root is a leaf).
    leaf : Node
        The leaf the path ends in; its ``value``, ``n_samples`` and ``proba``
        give the prediction and its support.
    """

    conditions: tuple
    leaf: Node


def tree_rules(estimator) -> list[Rule]:
    """One :class:`Rule` per leaf, in pre-order (leaves from left to right).

    A leaf's rule is the conjunction of the tests on the path from the root
    to it: for a binary node ``x[j] <= t`` for ``children[0]`` and
    ``x[j] > t`` for ``children[1]``; for a multiway node ``x[j] = c`` for
    the child of category ``c``.  The rules of a tree are mutually exclusive
    and, on the categories and values seen in ``fit``, exhaustive (Quinlan,
    *C4.5: Programs for Machine Learning*, 1993, chapter 5).

    Parameters
    ----------
    estimator : fitted estimator with a ``root_`` tree of :class:`~dtree.tree.Node`
        ID3Classifier, DecisionTreeClassifier, DecisionTreeRegressor, C45Classifier, ...

    Returns
    -------
    list of Rule
        ``len(rules) == estimator.get_n_leaves()``.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.

    Examples
    --------
    >>> from dtree import ID3Classifier
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> tree = ID3Classifier().fit(weather.drop(columns="play"), weather["play"])
    >>> rules = tree_rules(tree)
    >>> len(rules), rules[1].conditions
    (5, (Condition(feature=0, operator='=', value='rainy'),
         Condition(feature=3, operator='=', value=False)))
    """
    check_is_fitted(estimator, "root_")
    rules: list[Rule] = []
    stack = [(estimator.root_, ())]
    while stack:  # depth first, first child first: pre-order
        node, conditions = stack.pop()
        if node.is_leaf:
            rules.append(Rule(conditions=conditions, leaf=node))
            continue
        if node.threshold is not None:
            tests = [Condition(node.feature, "<=", node.threshold),
                     Condition(node.feature, ">", node.threshold)]
        else:
            tests = [Condition(node.feature, "=", category) for category in node.categories]
        for test, child in reversed(list(zip(tests, node.children))):
            stack.append((child, conditions + (test,)))
    return rules


def export_rules(estimator, *, feature_names=None, class_names=None, decimals=2,
                 show_weights=False) -> str:
    """The fitted tree as ``if ... then ...`` rules, one line per leaf.

    Each line is the rule of one leaf (see :func:`tree_rules`), leaves in
    pre-order (left to right in the drawn tree), conditions in path order::

        if <condition> and <condition> ... then <prediction> (<support>)

    A condition is ``name <= threshold`` or ``name > threshold`` for a binary
    test, ``name = category`` for a multiway one; a tree that is a single
    leaf gives one line ``if True then ...``.

    What is shown after ``then``:

    * classifiers: ``class: <majority class>`` and, in parentheses, the
      leaf's number of training samples ``samples: n`` and the fraction
      ``fraction: p`` of the leaf's (weighted) training samples that are of
      the predicted class (the rule's accuracy on the training set, and the
      ``predict_proba`` of that class); with ``show_weights=True`` also the
      leaf's (weighted) class counts ``weights: [...]`` in the order of
      ``classes_``.
    * regressors: ``value: <prediction>`` and ``samples: n``
      (``show_weights`` has no effect, as in :func:`export_text`).

    Parameters
    ----------
    estimator : fitted estimator with a ``root_`` tree
        ID3Classifier, DecisionTreeClassifier, DecisionTreeRegressor or any
        other dtree estimator whose ``root_`` is a :class:`~dtree.tree.Node`.
    feature_names : sequence of str of length n_features, default=None
        As in :func:`export_text`.
    class_names : sequence of str of length n_classes, default=None
        As in :func:`export_text` (ignored for a regressor).
    decimals : int, default=2
        Decimals of thresholds, regression values, fractions and non-integer
        class weights.
    show_weights : bool, default=False
        Also show the leaf's (weighted) class counts (classifiers only).

    Returns
    -------
    str
        One line per leaf, each ending in a newline.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length, or
        ``decimals`` is not an int >= 0.

    Notes
    -----
    The conditions describe observed values: where a CART tree sends a
    missing value (NaN) is not part of them.  For CART, a threshold is
    compared with the float32 rounding of the feature (see
    the module ``dtree.cart``), as in ``predict``.

    Examples
    --------
    >>> from dtree import ID3Classifier, export_rules
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> tree = ID3Classifier().fit(weather.drop(columns="play"), weather["play"])
    >>> print(export_rules(tree), end="")
    if outlook = overcast then class: yes (samples: 4, fraction: 1.00)
    if outlook = rainy and windy = False then class: yes (samples: 3, fraction: 1.00)
    if outlook = rainy and windy = True then class: no (samples: 2, fraction: 1.00)
    if outlook = sunny and humidity = high then class: no (samples: 3, fraction: 1.00)
    if outlook = sunny and humidity = normal then class: yes (samples: 2, fraction: 1.00)
    """
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
        raise ValueError(f"decimals must be an int >= 0, got {decimals!r}")
    feature_names, class_names = _names(estimator, feature_names, class_names)
    classifier = _is_classifier(estimator)
    lines = []
    for rule in tree_rules(estimator):
        conditions = " and ".join(c.format(feature_names, decimals) for c in rule.conditions)
        leaf = rule.leaf
        support = [f"samples: {leaf.n_samples}"]
        if classifier:
            prediction = f"class: {_majority(leaf, class_names)}"
            if show_weights:
                support.append(f"weights: {_format_value(leaf.value, decimals)}")
            support.append(f"fraction: {leaf.proba.max():.{decimals}f}")
        else:
            prediction = f"value: {leaf.value[0]:.{decimals}f}"
        lines.append(f"if {conditions or 'True'} then {prediction} ({', '.join(support)})")
    return "\n".join(lines) + "\n"


def _score_text(score, decimals: int) -> str:
    """One candidate's score: a gain (float) or C4.5's gain / split information / ratio."""
    if hasattr(score, "split_information"):
        return (f"gain {score.gain:.{decimals}f}, split info {score.split_information:.{decimals}f}"
                f", ratio {score.gain_ratio:.{decimals}f}")
    return f"gain {score:.{decimals}f}"


def export_trace(estimator, *, feature_names=None, class_names=None, decimals=3) -> str:
    """How the tree was grown: each node's data, every candidate's score and the choice.

    One block per node in pre-order.  Its first line gives the path from the
    root (``root`` or the conditions, as in :func:`export_rules`), the number
    of samples, the (weighted) class counts and the node's impurity (entropy
    in bits for ID3 and C4.5).  Then one line per feature that competed at
    the node with its score — the information gain for ID3; gain, split
    information and gain ratio for C4.5, marking the features whose gain is
    below the average (they may not compete on ratio) — and a final line
    naming the chosen test, or why the node is a leaf.

    Parameters
    ----------
    estimator : fitted ID3Classifier, C45Classifier, DecisionTreeClassifier or DecisionTreeRegressor
        CART trees record no candidates: only the chosen test is shown.
    feature_names, class_names : sequence of str, default=None
        As in :func:`export_text`.
    decimals : int, default=3
        Decimals of the numbers.

    Returns
    -------
    str
        The trace, lines separated by newlines.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length.

    References
    ----------
    J. R. Quinlan, "Induction of Decision Trees", *Machine Learning* 1 (1986),
    81-106 (the weather data's trace, section 4).

    Examples
    --------
    >>> from dtree import ID3Classifier
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> tree = ID3Classifier().fit(weather.drop(columns="play"), weather["play"])
    >>> print(export_trace(tree).split("\\n\\n")[0])
    root: 14 samples, counts [5, 9], impurity 0.940
      outlook: gain 0.247
      temperature: gain 0.029
      humidity: gain 0.152
      windy: gain 0.048
      chosen: outlook
    """
    names, classes = _names(estimator, feature_names, class_names)
    blocks = []
    stack = [(estimator.root_, [])]
    while stack:
        node, path = stack.pop()
        where = "root" if not path else " and ".join(path)
        counts = _format_value(node.value, decimals)
        lines = [f"{where}: {node.n_samples} samples, "
                 f"{'counts' if classes is not None else 'value'} {counts}, "
                 f"impurity {node.impurity:.{decimals}f}"]
        scores = node.candidate_scores
        average = None
        # C4.5 leaves many-valued nominal features out of its average (Release 8)
        left_out = getattr(estimator, "_left_out_of_average", None)
        if scores and all(hasattr(s, "split_information") for s in scores.values()):
            counted = [s.gain for j, s in scores.items() if left_out is None or not left_out[j]]
            if counted:
                average = float(np.mean(counted))
                lines.append(f"  average gain {average:.{decimals}f}")
        for feature, score in scores.items():
            mark = " (below average)" if average is not None and \
                score.gain < average - 1e-12 else ""
            if left_out is not None and left_out[feature]:
                mark = " (many values: not in the average)"
            lines.append(f"  {names[feature]}: {_score_text(score, decimals)}{mark}")
        if node.is_leaf:
            lines.append(f"  leaf: {_leaf_label(estimator, node, classes, decimals)}")
        else:
            test = names[node.feature] if node.threshold is None else \
                f"{names[node.feature]} <= {node.threshold:.{decimals}f}"
            lines.append(f"  chosen: {test}")
        blocks.append("\n".join(lines))
        if not node.is_leaf:
            edges = _edge_texts(node, names, decimals)
            stack.extend((child, path + [edge])
                         for child, edge in reversed(list(zip(node.children, edges))))
    return "\n\n".join(blocks) + "\n"
