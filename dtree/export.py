"""Text and Graphviz renderings of a fitted tree.

``export_text`` prints the tree as indented rules and ``export_graphviz``
returns DOT source for Graphviz's ``dot`` (render it with the ``graphviz``
package or the ``dot`` command), both with scikit-learn's signatures and, for
a CART tree, scikit-learn's text byte for byte (the rules of its module
``sklearn/tree/_export.py``, including how boxes are coloured).  Neither needs Graphviz
installed to produce its text.  ``tree_rules`` lists the tree as one rule per
leaf (the conjunction of the tests on the path to it) and ``export_rules``
prints those rules.  (``plot_tree``, which draws the tree with matplotlib, is
in :mod:`dtree.plotting`.)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from dtree._validation import check_is_fitted
from dtree.exceptions import InvalidParameterError
from dtree.tree import Node, TreeArrays, iter_nodes

__all__ = ["export_text", "export_graphviz", "export_rules", "export_trace", "tree_rules", "Condition",
           "Rule"]


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
    return class_names[int(np.argmax(_fractions(node, len(node.value))))]


def edge_labels(view: "_View", i: int) -> list[str]:
    """Labels of the edges out of internal node ``i`` of ``view``, in the order of its children.

    A multiway node's categories; "True" and "False" under a binary root, as
    scikit-learn writes them; no label (``""``) under other binary nodes.
    """
    if view.threshold[i] is None:
        return [str(category) for category in view.categories[i]]
    return ["True", "False"] if i == 0 else ["", ""]


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


# --- one view of a fitted tree, for the exporters ------------------------------

@dataclass
class _View:
    """A fitted tree as the exporters read it, node by node in pre-order.

    A CART tree is read from its arrays ``tree_`` exactly as scikit-learn's
    exporters read theirs (class counts are the stored fractions times
    ``weighted_n_node_samples``), so that the same tree gives the same text;
    an ID3 or C4.5 tree (multiway :class:`~dtree.tree.Node` objects) from
    ``root_``.  ``children[i]`` lists the positions of node ``i``'s children;
    ``threshold[i]`` is None for a multiway test, whose branches are
    ``categories[i]``.

    A multi-output tree (``n_outputs > 1``, CART only) keeps each node's
    values as scikit-learn's ``tree_.value[i]``: ``fractions[i]`` and
    ``counts[i]`` are arrays of shape ``(n_outputs, max_n_classes)`` (class
    fractions and weighted counts, zero-padded for an output with fewer
    classes; for a regressor the ``n_outputs`` predictions as a column);
    a single-output tree's are 1-D.  ``n_classes`` is the number of
    classes of the first output (scikit-learn's ``tree_.n_classes[0]``,
    which its exporters test); 1 for a regressor.
    """

    node_id: list
    children: list
    feature: list
    threshold: list
    categories: list
    impurity: list
    n_samples: list
    fractions: list     # class fractions (classifier) or the prediction (regressor)
    counts: list        # weighted class counts (classifier) or the prediction (regressor)
    classifier: bool
    n_classes: int      # classes of the (first) output; 1 for a regressor
    n_outputs: int = 1


def _check_estimator(estimator):
    """A fitted estimator, not its tree: scikit-learn's TypeError for a ``tree_``.

    dtree's estimators and scikit-learn's fitted trees, single- or
    multi-output (read from their ``tree_`` arrays, which have the same
    fields), are accepted.
    """
    if isinstance(estimator, (TreeArrays, Node, type)) or hasattr(estimator, "children_left"):
        raise TypeError(f"decision_tree must be a fitted estimator, got {estimator!r}, which "
                        "is not an estimator instance")
    arrays = getattr(estimator, "tree_", None)
    if getattr(arrays, "children_left", None) is None:
        check_is_fitted(estimator, "root_")


def _fractions(node: Node, n_classes: int) -> np.ndarray:
    """A classifier node's class fractions; a C4.5 leaf of no cases: all on its class.

    C4.5 Release 8 keeps a leaf for a value with no training cases (an empty
    branch); it holds no weight, and its class, kept in ``extra["leaf"]``,
    takes every case that reaches it (the program's ``classify.c``).
    """
    if node.is_leaf and not node.value.sum() > 0 and "leaf" in node.extra:
        return np.eye(n_classes)[node.extra["leaf"]]
    return node.proba


def _view(estimator) -> _View:
    _check_estimator(estimator)
    classifier = _is_classifier(estimator)
    arrays = getattr(estimator, "tree_", None)
    n_outputs = int(getattr(arrays, "n_outputs", 1))
    if not classifier:
        n_classes = 1
    elif n_outputs == 1:
        n_classes = len(estimator.classes_)
    else:               # classes_ is a list of arrays: the first output's, as scikit-learn
        n_classes = int(arrays.n_classes[0])
    if arrays is not None and hasattr(arrays, "children_left"):
        left, right = arrays.children_left, arrays.children_right
        n = arrays.node_count
        fractions = [arrays.value[i][0, :] if n_outputs == 1 else arrays.value[i]
                     for i in range(n)]
        counts = ([f * arrays.weighted_n_node_samples[i] for i, f in enumerate(fractions)]
                  if classifier else fractions)
        inner = [bool(left[i] != -1) for i in range(n)]
        return _View(node_id=list(range(n)),
                     children=[[int(left[i]), int(right[i])] if inner[i] else [] for i in range(n)],
                     feature=[int(arrays.feature[i]) if inner[i] else None for i in range(n)],
                     threshold=[arrays.threshold[i] if inner[i] else None for i in range(n)],
                     categories=[()] * n, impurity=list(arrays.impurity),
                     n_samples=[int(s) for s in arrays.n_node_samples], fractions=fractions,
                     counts=counts, classifier=classifier, n_classes=n_classes,
                     n_outputs=n_outputs)
    nodes = list(iter_nodes(estimator.root_))
    position = {id(node): i for i, node in enumerate(nodes)}
    return _View(node_id=[node.node_id for node in nodes],
                 children=[[position[id(c)] for c in node.children] for node in nodes],
                 feature=[node.feature for node in nodes],
                 threshold=[None if node.is_leaf or node.threshold is None
                            else np.float64(node.threshold) for node in nodes],
                 categories=[tuple(node.categories) for node in nodes],
                 impurity=[np.float64(node.impurity) for node in nodes],
                 n_samples=[int(node.n_samples) for node in nodes],
                 fractions=[_fractions(node, n_classes) if classifier
                            else np.asarray(node.value, dtype=np.float64) for node in nodes],
                 counts=[np.asarray(node.value, dtype=np.float64) for node in nodes],
                 classifier=classifier, n_classes=n_classes)


# --- the colours of filled boxes -----------------------------------------------

def _color_brew(n: int) -> list[tuple[int, int, int]]:
    """``n`` colours of equally spaced hues, scikit-learn's class palette.

    Hues 25, 25 + 360/n, ... degrees at saturation 0.75 and value 0.9,
    converted from HSV to RGB and truncated to integers (the palette of
    ``sklearn.tree.export_graphviz``).

    Parameters
    ----------
    n : int
        Number of colours (classes), >= 1.

    Returns
    -------
    list of (int, int, int)
        The colours as (red, green, blue) in 0..255.

    Examples
    --------
    >>> _color_brew(3)
    [(229, 129, 57), (57, 229, 129), (129, 57, 229)]
    """
    saturation, brightness = 0.75, 0.9
    chroma = saturation * brightness
    lift = brightness - chroma
    colours = []
    for hue in np.arange(25, 385, 360.0 / n).astype(int)[:n]:
        sector = hue / 60.0
        x = chroma * (1 - abs(sector % 2 - 1))
        r, g, b = [(chroma, x, 0), (x, chroma, 0), (0, chroma, x), (0, x, chroma),
                   (x, 0, chroma), (chroma, 0, x), (chroma, x, 0)][int(sector)]
        colours.append(tuple(int(255 * (c + lift)) for c in (r, g, b)))
    return colours


def _hex_to_rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def fill_colours(view: _View, palette=None) -> list[str]:
    """The fill colour of every node of a tree, by scikit-learn's rule.

    The one colour builder of :func:`export_graphviz` and
    :func:`dtree.plot_tree`.  A node's colour is a palette colour laid over
    white with opacity ``alpha`` and rounded to integers:
    ``round(alpha * c + (1 - alpha) * 255)`` for each channel ``c``.

    * Classifier: the colour of the majority class (the first of tied
      classes) and ``alpha = (p1 - p2) / (1 - p2)`` for the node's two
      largest class fractions ``p1 >= p2``: 1 for a pure node, 0 (white)
      when the two largest tie; 0 when there is a single class.
    * Regressor: the first palette colour and ``alpha = (v - min) / (max -
      min)``, with ``v`` the node's value and ``min`` and ``max`` taken over
      all nodes of the tree; white everywhere when all values are equal.
    * Multi-output tree (classifier or regressor): the first palette colour
      and ``alpha = (v - min) / (max - min)`` with ``v`` minus the node's
      impurity and ``min`` and ``max`` taken over all nodes: the purer the
      node, the stronger its colour.

    Parameters
    ----------
    view : _View
        The tree (from ``_view(estimator)``).
    palette : sequence of str ``"#rrggbb"``, default=None
        Colour of class ``k`` is ``palette[k % len(palette)]``; ``None`` is
        scikit-learn's palette of ``n_classes`` equally spaced hues
        (:func:`_color_brew`).

    Returns
    -------
    list of str
        ``"#rrggbb"`` for each node of ``view``, in its order.

    Raises
    ------
    ValueError
        For a multi-output tree whose nodes all have the same impurity (a
        single leaf, say): the opacity is 0 / 0.  scikit-learn raises a
        ValueError there too (``cannot convert float NaN to integer``).

    References
    ----------
    The rule is that of scikit-learn's ``sklearn/tree/_export.py``
    (``_BaseTreeExporter.get_color`` and ``get_fill_color``, scikit-learn
    1.7), so that ``export_graphviz`` gives scikit-learn's DOT text byte
    for byte.

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0], [1], [2]], [0, 0, 1])
    >>> fill_colours(_view(tree))   # root [2, 1]: alpha 0.5; two pure leaves
    ['#f2c09c', '#e58139', '#399de5']
    """
    if palette is None:
        rgbs = _color_brew(view.n_classes)
    else:
        rgbs = [_hex_to_rgb(colour) for colour in palette]
    if view.n_outputs != 1:
        # scikit-learn's bounds and arithmetic: v = -impurity, (v - low) / (high - low)
        impurity = np.asarray(view.impurity, dtype=np.float64)
        low, high = -np.max(impurity), -np.min(impurity)
        if low == high:
            raise ValueError("filled boxes of a multi-output tree are coloured by impurity, "
                             "and all its nodes have the same impurity "
                             f"({float(impurity[0])!r}): no colour scale")
        return [_over_white(rgbs[0], (-v - low) / (high - low)) for v in impurity]
    if view.classifier:
        colours = []
        for fractions in view.fractions:
            p = sorted(fractions, reverse=True)
            alpha = 0.0 if len(p) == 1 else (p[0] - p[1]) / (1 - p[1])
            colours.append(_over_white(rgbs[int(np.argmax(fractions)) % len(rgbs)], alpha))
        return colours
    values = np.array([np.asarray(v, dtype=np.float64).reshape(-1)[0] for v in view.fractions])
    low, high = values.min(), values.max()
    if low == high:
        return [_over_white(rgbs[0], 0.0) for _ in values]
    return [_over_white(rgbs[0], (v - low) / (high - low)) for v in values]


def _over_white(rgb, alpha) -> str:
    """``rgb`` laid over white with opacity ``alpha``, as ``#rrggbb``."""
    return "#" + "".join(f"{int(round(alpha * c + (1 - alpha) * 255, 0)):02x}" for c in rgb)


# --- the text of a node's box ----------------------------------------------------

# scikit-learn's characters: node id mark, subscript open/close, <=, line
# break, end and start of a label.
_DOT_CHARACTERS = ("#", "[", "]", "<=", "\\n", '"', '"')
_HTML_CHARACTERS = ("&#35;", "<SUB>", "</SUB>", "&le;", "<br/>", ">", "<")
MPL_CHARACTERS = ("#", "[", "]", "<=", "\n", "", "")


def _value_text(value, precision, *, regression, proportion, newline, single_output=True) -> str:
    """A node's value as scikit-learn writes it (numpy's array text, bytes quotes removed).

    A multi-output value is a 2-D array, one row per output, written as
    numpy writes it (``[[2, 4]`` newline ``[1, 5]]``), brackets kept also
    for a regressor.
    """
    value = np.asarray(value, dtype=np.float64)
    if regression or proportion or not np.all(np.equal(np.mod(value, 1), 0)):
        shown = np.around(value, precision)
    else:
        shown = value.astype(int)
    text = str(shown.astype("S32")).replace("b'", "'")
    text = text.replace("' '", ", ").replace("'", "")
    if regression and single_output:
        text = text.replace("[", "").replace("]", "")
    return text.replace("\n ", newline)


def _node_label(view: _View, i: int, *, characters, feature_names, class_names, label,
                impurity, node_ids, proportion, precision, criterion, escape) -> str:
    """The text of node ``i``'s box, as scikit-learn's exporters write it.

    In this order, each line ended by ``characters[4]``: the node id
    (``node #3``), the test (``petal_length <= 2.45``; ``outlook?`` for a
    multiway test), the impurity, the samples (a percentage of the root's
    with ``proportion``), the value (class counts, class fractions with
    ``proportion``, or the prediction) and the majority class (only with
    ``class_names``, and only for a single-output classifier).  A
    multi-output tree's value is one row per output (scikit-learn's
    ``tree_.value[i]``, counts or fractions of each output's classes,
    zero-padded), and it has no class line.  Field names (``samples =``) are written at every
    node (``label="all"``), at the root only (``"root"``) or nowhere.
    Without ``feature_names`` a feature is ``x[j]``; with ``class_names=True``
    a class is ``y[k]``.
    """
    labels = label == "all" or (label == "root" and i == 0)
    text = characters[6]
    if node_ids:
        text += ("node " if labels else "") + characters[0] + str(view.node_id[i]) + characters[4]
    if view.children[i]:
        j = view.feature[i]
        feature = (escape(feature_names[j]) if feature_names is not None
                   else f"x{characters[1]}{j}{characters[2]}")
        if view.threshold[i] is None:
            text += f"{feature}?{characters[4]}"
        else:
            threshold = round(np.float64(view.threshold[i]), precision)
            text += f"{feature} {characters[3]} {threshold}{characters[4]}"
    if impurity:
        text += (f"{criterion} = " if labels else "")
        text += str(round(np.float64(view.impurity[i]), precision)) + characters[4]
    text += "samples = " if labels else ""
    if proportion:
        percent = 100.0 * view.n_samples[i] / float(view.n_samples[0])
        text += str(round(percent, 1)) + "%" + characters[4]
    else:
        text += str(view.n_samples[i]) + characters[4]
    # A classifier of a single class is written as scikit-learn writes it: as
    # a regressor, its value the class fraction 1.0.
    one_value = not view.classifier or view.n_classes == 1
    value = view.fractions[i] if proportion or one_value else view.counts[i]
    text += "value = " if labels else ""
    text += _value_text(value, precision, regression=one_value, proportion=proportion,
                        newline=characters[4], single_output=view.n_outputs == 1)
    text += characters[4]
    if (class_names is not None and view.classifier and view.n_classes != 1
            and view.n_outputs == 1):
        text += "class = " if labels else ""
        k = int(np.argmax(value))
        text += (f"y{characters[1]}{k}{characters[2]}" if class_names is True
                 else escape(class_names[k]))
    if text.endswith(characters[4]):
        text = text[:-len(characters[4])]
    return text + characters[5]


def _criterion_label(estimator) -> str:
    """The impurity's name in a box: the criterion (``entropy`` for ID3 and C4.5)."""
    name = _criterion_name(estimator)
    return name if isinstance(name, str) else "impurity"


def _check_flags(**flags):
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidParameterError(f"{name} must be True or False, got {value!r}")


def _check_int(name, value, low, *, none=False):
    if value is None and none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        expected = f"an int >= {low}" + (" or None" if none else "")
        raise InvalidParameterError(f"{name} must be {expected}, got {value!r}")


def _check_label(label):
    if not isinstance(label, str) or label not in ("all", "root", "none"):
        raise InvalidParameterError(f"label must be 'all', 'root' or 'none', got {label!r}")


def _feature_names(estimator, feature_names, length_message=None):
    """The names given, else ``feature_names_in_``, else None (``x[j]``), as str.

    ``length_message(expected, got)`` words the error of a wrong length (the
    exporters use scikit-learn's words).
    """
    n_features = estimator.n_features_in_
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
        if feature_names is None:
            return None
    if isinstance(feature_names, str) or not np.iterable(feature_names):
        raise InvalidParameterError(
            f"feature_names must be None or a sequence of str, got {feature_names!r}")
    feature_names = [str(name) for name in feature_names]
    if len(feature_names) != n_features:
        if length_message is None:
            raise ValueError(f"feature_names must have {n_features} entries (one per feature), "
                             f"got {len(feature_names)}")
        raise ValueError(length_message(n_features, len(feature_names)))
    return feature_names


class _LengthError(ValueError, IndexError):
    """A list of names of the wrong length: a ``ValueError``, and the ``IndexError``
    scikit-learn's exporters raise when they index past a short ``class_names``."""


def _box_class_names(estimator, class_names):
    """None (no class line), True (``y[k]``) or one name per class, as str.

    A multi-output tree has no class line: its ``class_names`` are checked
    for their type only and then ignored, as scikit-learn ignores them.
    """
    if class_names is None or class_names is True or not _is_classifier(estimator):
        return class_names if _is_classifier(estimator) else None
    if isinstance(class_names, (bool, np.bool_, str)) or not np.iterable(class_names):
        raise InvalidParameterError(
            f"class_names must be None, True or a sequence of str, got {class_names!r}")
    if getattr(getattr(estimator, "tree_", None), "n_outputs", 1) != 1:
        return None
    class_names = [str(name) for name in class_names]
    if len(class_names) != estimator.n_classes_:
        raise _LengthError(f"class_names must have {estimator.n_classes_} entries (one per "
                           f"class), got {len(class_names)}")
    return class_names


def box_labels(estimator, *, feature_names, class_names, label, impurity, node_ids,
                proportion, precision, characters, escape, length_message=None):
    """The tree's view and a function giving node ``i``'s box text (after checking arguments)."""
    _check_estimator(estimator)
    _check_label(label)
    _check_int("precision", precision, 0)
    feature_names = _feature_names(estimator, feature_names, length_message)
    class_names = _box_class_names(estimator, class_names)
    view = _view(estimator)
    criterion = _criterion_label(estimator)

    def box(i):
        return _node_label(view, i, characters=characters, feature_names=feature_names,
                           class_names=class_names, label=label, impurity=impurity,
                           node_ids=node_ids, proportion=proportion, precision=precision,
                           criterion=criterion, escape=escape)
    return view, box


# --- export_text ---------------------------------------------------------------

def export_text(decision_tree, *, feature_names=None, class_names=None, max_depth=10, spacing=3,
                decimals=2, show_weights=False) -> str:
    """The fitted tree as indented if/else text, one line per edge and leaf.

    The signature and, for a CART tree, the text are those of
    scikit-learn's ``sklearn.tree.export_text``: the same tree gives the
    same string byte for byte.  A multiway node (ID3, C4.5) writes one line
    ``name = category`` per branch.

    A multi-output tree is written as scikit-learn writes it, from the
    first entry of each output's row of ``tree_.value``: a regressor's leaf
    shows its ``n_outputs`` predictions (``value: [1.50, 3.50]``); a
    classifier's leaf shows, for each output, the fraction (``weights``:
    the weighted count) of that output's *first* class, and ``class: k``
    with ``k`` the index of the output where that fraction is largest (not
    a class: scikit-learn's rule, reproduced as it is).

    Parameters
    ----------
    decision_tree : fitted ID3Classifier, C45Classifier, DecisionTreeClassifier or DecisionTreeRegressor
        The tree to print (or a fitted scikit-learn tree; single- or
        multi-output).
    feature_names : sequence of str of length n_features, default=None
        Names of the features; defaults to ``feature_names_in_`` if the
        estimator has it (scikit-learn ignores it), else ``feature_0``,
        ``feature_1``, ...
    class_names : sequence of str of length n_classes, default=None
        Names of the classes, in the order of ``classes_``; defaults to
        ``classes_``.  For a multi-output classifier its length must be
        ``len(classes_)``, the number of outputs, and the names are not
        used (scikit-learn's check and behaviour).
    max_depth : int, default=10
        Only the first ``max_depth`` levels below the root are written in
        full; below them a leaf is written as a leaf and an internal node as
        ``truncated branch of depth d``, ``d`` the number of levels of its
        subtree (2 for a node whose children are leaves).
    spacing : int, default=3
        Width of one level of indentation (``|`` and ``spacing`` spaces).
    decimals : int, default=2
        Decimals of thresholds, regression values and class weights.
    show_weights : bool, default=False
        If True, each leaf of a classifier also shows its (weighted) class
        counts: ``weights: [3.00, 0.00] class: yes``.

    Returns
    -------
    str
        The rendering, one line per edge and per leaf, each ending in a
        newline.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length
        (for a multi-output classifier: ``class_names`` not of length
        ``n_outputs``); ``InvalidParameterError`` (a ValueError) if
        ``max_depth``, ``spacing``, ``decimals`` or ``show_weights`` is
        invalid.

    References
    ----------
    scikit-learn's ``sklearn.tree.export_text`` (layout and arguments).

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
    >>> print(export_text(tree, max_depth=0, show_weights=True), end="")
    |--- has_feathers = no
    |   |--- truncated branch of depth 2
    |--- has_feathers = yes
    |   |--- truncated branch of depth 2
    """
    _check_estimator(decision_tree)
    _check_int("max_depth", max_depth, 0)
    _check_int("spacing", spacing, 1)
    _check_int("decimals", decimals, 0)
    _check_flags(show_weights=show_weights)
    names = _feature_names(decision_tree, feature_names,
                           lambda n, got: f"feature_names must contain {n} elements, got {got}")
    if names is None:
        names = [f"feature_{j}" for j in range(decision_tree.n_features_in_)]
    view = _view(decision_tree)
    if view.classifier:
        # scikit-learn compares with len(classes_): the number of outputs of a
        # multi-output tree, whose leaves then name no class (the names are unused)
        expected = len(decision_tree.classes_)
        classes = list(decision_tree.classes_ if class_names is None else class_names)
        if len(classes) != expected:   # scikit-learn's words
            raise ValueError("When `class_names` is an array, it should contain as many items "
                             f"as `decision_tree.classes_`. Got {len(classes)} while the tree "
                             f"was fitted with {expected} classes.")
        classes = [str(name) for name in classes] if view.n_outputs == 1 else None

    def number(x):
        return f"{x:.{decimals}f}"

    def shown(values, i):
        # a multi-output tree: the first entry of each output (tree_.value[i].T[0])
        return values[i] if view.n_outputs == 1 else values[i].T[0]

    def leaf(i):
        if not view.classifier:
            return " value: [" + ", ".join(number(v) for v in shown(view.fractions, i)) + "]"
        k = int(np.argmax(shown(view.fractions, i)))
        text = " class: " + (classes[k] if classes is not None else str(k))
        if show_weights:
            text = " weights: [" + ", ".join(number(v) for v in shown(view.counts, i)) + "]" + text
        return text

    def subtree_depth(i):
        deepest, stack = 0, [(i, 1)]
        while stack:
            j, d = stack.pop()
            deepest = max(deepest, d)
            stack.extend((child, d + 1) for child in view.children[j])
        return deepest

    lines = []
    stack = [(0, 1)]
    while stack:
        i, depth = stack.pop()
        if isinstance(i, str):          # an edge's line, written before its subtree
            lines.append(i)
            continue
        indent = ("|" + " " * spacing) * depth
        indent = indent[:-spacing] + "-" * spacing
        if depth > max_depth + 1 and subtree_depth(i) > 1:
            lines.append(f"{indent} truncated branch of depth {subtree_depth(i)}")
        elif not view.children[i]:
            lines.append(indent + leaf(i))
        else:
            name = names[view.feature[i]]
            if view.threshold[i] is None:
                edges = [f"{indent} {name} = {category}" for category in view.categories[i]]
            else:
                threshold = number(view.threshold[i])
                edges = [f"{indent} {name} <= {threshold}", f"{indent} {name} >  {threshold}"]
            for edge, child in reversed(list(zip(edges, view.children[i]))):
                stack.append((child, depth + 1))
                stack.append((edge, None))
    return "".join(line + "\n" for line in lines)


# --- export_graphviz -----------------------------------------------------------

def _dot_escape(text: str) -> str:
    """Escape text for a double-quoted DOT string (``"`` and ``\\``; ``\\n`` breaks lines)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _html_escape(text: str) -> str:
    """scikit-learn's escaping of names in HTML-like labels: ``"`` only."""
    return text.replace('"', '\\"')


def export_graphviz(decision_tree, out_file=None, *, max_depth=None, feature_names=None,
                    class_names=None, label="all", filled=False, leaves_parallel=False,
                    impurity=True, node_ids=False, proportion=False, rotate=False, rounded=False,
                    special_characters=False, precision=3, fontname="helvetica"):
    """The fitted tree in Graphviz's DOT language.

    The signature and, for a CART tree, the text are those of
    scikit-learn's ``sklearn.tree.export_graphviz``: the same tree and
    arguments give the same DOT source byte for byte (but for names that
    contain a backslash, which dtree escapes so that Graphviz shows it).
    Each node's box holds its test, impurity, samples, value and, with
    ``class_names``, its majority class (see :func:`dtree.plot_tree`); the
    edges out of a binary root are labelled True and False.  A multiway
    node (ID3, C4.5) shows ``name?`` and labels each edge with its category.
    A multi-output tree (CART) is drawn as scikit-learn draws it: its value
    is one row per output (class counts, or fractions with ``proportion``,
    zero-padded to the largest number of classes; a regressor's
    predictions in brackets), there is no class line, and ``filled`` boxes
    are coloured by impurity.  Render the text with ``graphviz.Source(dot)`` or ``dot -Tpng tree.dot
    -o tree.png``; producing it needs no Graphviz.

    Parameters
    ----------
    decision_tree : fitted ID3Classifier, C45Classifier, DecisionTreeClassifier or DecisionTreeRegressor
        The tree to draw (or a fitted scikit-learn tree; single- or
        multi-output).
    out_file : str, file object or None, default=None
        Path or text file to write the DOT source to; ``None`` returns it.
    max_depth : int or None, default=None
        Draw nodes down to this depth (the root has depth 0); deeper nodes
        are drawn as ``(...)`` boxes (grey when ``filled``).
    feature_names : sequence of str of length n_features, default=None
        Names of the features; defaults to ``feature_names_in_`` if the
        estimator has it (scikit-learn ignores it), else ``x[0]``, ``x[1]``, ...
    class_names : sequence of str of length n_classes, or True, default=None
        Names of the classes in the order of ``classes_``: each box then
        names its majority class; ``True`` writes ``y[k]``; ``None``
        leaves the class out.  Ignored (its length unchecked) for a
        regressor and for a multi-output tree, as by scikit-learn.
    label : {"all", "root", "none"}, default="all"
        Where to write the field names (``samples =``, ...).
    filled : bool, default=False
        Fill the boxes as scikit-learn does, in its palette: a classifier's
        node in the colour of its majority class over white at opacity
        :math:`(p_1 - p_2)/(1 - p_2)` for its two largest class fractions
        (white when they tie, the full colour when the node is pure); a
        regressor's node at opacity :math:`(v - v_{min})/(v_{max} - v_{min})`
        over the values of the tree's nodes; a multi-output tree's node
        likewise with :math:`v` minus its impurity (``fill_colours``, the
        builder that :func:`dtree.plot_tree` shares).
    leaves_parallel : bool, default=False
        Draw all leaves at the bottom.
    impurity : bool, default=True
        Show each node's impurity (entropy in bits for ID3 and C4.5).
    node_ids : bool, default=False
        Show each node's id (its position in pre-order).
    proportion : bool, default=False
        Show samples as a percentage of the root's and class counts as
        fractions.
    rotate : bool, default=False
        Draw the tree left to right instead of top down: a deep tree then
        grows down the page, which keeps its boxes legible in a narrow text
        column or on a phone.
    rounded : bool, default=False
        Rounded boxes.
    special_characters : bool, default=False
        Write HTML-like labels (``&le;``, subscripts) instead of plain ones.
    precision : int, default=3
        Decimals of thresholds, impurities and values (numbers are written
        in their shortest form: ``0.5``, not ``0.500``).
    fontname : str, default="helvetica"
        Font of the boxes and edges.

    Returns
    -------
    str or None
        The DOT source (``digraph Tree {...}``, without a final newline),
        or None when written to ``out_file``.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length;
        ``InvalidParameterError`` (a ValueError) if another argument is
        invalid; with ``filled``, for a multi-output tree whose nodes all
        have the same impurity (no colour scale; scikit-learn fails there
        with a ValueError too).

    References
    ----------
    scikit-learn's ``sklearn.tree.export_graphviz`` (DOT text and arguments).

    Examples
    --------
    >>> from dtree import ID3Classifier, export_graphviz
    >>> from dtree.datasets import load_animals
    >>> animals = load_animals()
    >>> tree = ID3Classifier().fit(animals.drop(columns="animal"), animals["animal"])
    >>> dot = export_graphviz(tree, class_names=tree.classes_)
    >>> print(dot[:dot.index("1 [")], end="")
    digraph Tree {
    node [shape=box, fontname="helvetica"] ;
    edge [fontname="helvetica"] ;
    0 [label="has_feathers?\\nentropy = 2.0\\nsamples = 4\\nvalue = [1, 1, 1, 1]\\nclass = bear"] ;
    >>> dot.count("->")
    6
    """
    _check_flags(filled=filled, leaves_parallel=leaves_parallel, impurity=impurity,
                 node_ids=node_ids, proportion=proportion, rotate=rotate, rounded=rounded,
                 special_characters=special_characters)
    _check_int("max_depth", max_depth, 0, none=True)
    if not isinstance(fontname, str):
        raise InvalidParameterError(f"fontname must be a str, got {fontname!r}")
    if out_file is not None and not isinstance(out_file, str) and not hasattr(out_file, "write"):
        raise InvalidParameterError(
            f"out_file must be None, a path or a file object with write, got {out_file!r}")
    characters = _HTML_CHARACTERS if special_characters else _DOT_CHARACTERS
    escape = _html_escape if special_characters else _dot_escape
    view, box = box_labels(decision_tree, feature_names=feature_names, class_names=class_names,
                            label=label, impurity=impurity, node_ids=node_ids,
                            proportion=proportion, precision=precision, characters=characters,
                            escape=escape, length_message=lambda n, got: (
                                f"Length of feature_names, {got} does not match number of "
                                f"features, {n}"))
    fills = fill_colours(view) if filled else None
    style = ["filled"] * filled + ["rounded"] * rounded
    out = ["digraph Tree {\n", "node [shape=box"]
    if style:
        out.append(f', style="{", ".join(style)}", color="black"')
    out.append(f', fontname="{fontname}"] ;\n')
    if leaves_parallel:
        out.append("graph [ranksep=equally, splines=polyline] ;\n")
    out.append(f'edge [fontname="{fontname}"] ;\n')
    if rotate:
        out.append("rankdir=LR ;\n")
    ranks = {"leaves": []}
    angles = (-45, 45) if rotate else (45, -45)
    stack = [(0, None, 0, None)]       # (node, parent, depth, branch taken from the parent)
    while stack:
        i, parent, depth, branch = stack.pop()
        node_id = view.node_id[i]
        edge = "" if parent is None else f"{view.node_id[parent]} -> {node_id}"
        if max_depth is not None and depth > max_depth:
            ranks["leaves"].append(str(node_id))
            out.append(f'{node_id} [label="(...)"' + (', fillcolor="#C0C0C0"' if filled else "")
                       + "] ;\n")
            if view.threshold[parent] is None:
                edge += f' [label="{escape(str(view.categories[parent][branch]))}"]'
            out.append(edge + " ;\n")
            continue
        if not view.children[i]:
            ranks["leaves"].append(str(node_id))
        else:
            ranks.setdefault(str(depth), []).append(str(node_id))
        out.append(f"{node_id} [label={box(i)}")
        if filled:
            out.append(f', fillcolor="{fills[i]}"')
        out.append("] ;\n")
        if parent is not None:
            if view.threshold[parent] is None:
                edge += f' [label="{escape(str(view.categories[parent][branch]))}"]'
            elif parent == 0:
                head = "True" if branch == 0 else "False"
                edge += f' [labeldistance=2.5, labelangle={angles[branch]}, headlabel="{head}"]'
            out.append(edge + " ;\n")
        stack.extend((child, i, depth + 1, k) for k, child in reversed(list(enumerate(view.children[i]))))
    if leaves_parallel:
        for rank in sorted(ranks):
            out.append("{rank=same ; " + "; ".join(ranks[rank]) + "} ;\n")
    out.append("}")
    dot = "".join(out)
    if out_file is None:
        return dot
    if isinstance(out_file, str):
        with open(out_file, "w", encoding="utf-8") as file:
            file.write(dot)
    else:
        out_file.write(dot)
    return None


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
            # an empty leaf of C4.5 (no samples) predicts its class with probability 1
            support.append(f"fraction: {_fractions(leaf, len(leaf.value)).max():.{decimals}f}")
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
