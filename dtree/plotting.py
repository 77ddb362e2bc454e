"""The book's figure style, and trees drawn with matplotlib.

Figures have an opaque white background with dark ink and a colour-blind-safe
palette (Okabe & Ito), so they read the same on the light and the dark theme of
the HTML book.  ``plot_tree`` draws a fitted tree with matplotlib alone (no
Graphviz).  Matplotlib is imported only when a function here is called; it is
not a dependency of dtree itself but of its ``plot`` extra
(``pip install 'dtree[plot]'``), and a function called without it raises a
``ModuleNotFoundError`` that says so.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from dtree._helpers import _import_optional
from dtree.exceptions import InvalidParameterError
from dtree.export import MPL_CHARACTERS, box_labels, edge_labels, fill_colours

__all__ = ["BOOK_COLORS", "use_book_style", "plot_tree"]

#: The book's colours: the colour-blind-safe palette of Okabe & Ito (2008),
#: "Color Universal Design", as hex strings.
BOOK_COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
               "#F0E442", "#000000"]


def use_book_style() -> None:
    """Set matplotlib's rcParams to the book's style (idempotent).

    White, opaque figure and axes backgrounds; black text; the Okabe-Ito
    colour cycle; a fixed size and resolution so that figures are identical
    from run to run.  In a Jupyter kernel it also has the inline backend
    draw PNGs at twice that resolution, shown at the same size ("retina"),
    so that figures stay crisp on high-DPI screens, and stores beside each
    figure the data it shows (:func:`dtree._book.record_figure_data`), which
    notebook regression tests compare.

    Raises
    ------
    ModuleNotFoundError
        If matplotlib (or its dependency cycler) is not installed; the message
        names the extra that installs it: ``pip install 'dtree[plot]'``.

    Examples
    --------
    >>> use_book_style()
    >>> import matplotlib as mpl
    >>> mpl.rcParams["figure.facecolor"]
    'white'
    """
    mpl = _import_optional("matplotlib", "use_book_style")
    cycler = _import_optional("cycler", "use_book_style").cycler

    mpl.rcParams.update({
        "figure.figsize": (6.4, 4.0),
        "figure.dpi": 100,
        "savefig.dpi": 100,
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "savefig.facecolor": "white",
        "savefig.transparent": False,
        "text.color": "black",
        "axes.labelcolor": "black",
        "axes.edgecolor": "#333333",
        "xtick.color": "#333333",
        "ytick.color": "#333333",
        "axes.grid": True,
        "grid.color": "#dddddd",
        "grid.linewidth": 0.8,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": cycler(color=BOOK_COLORS),
        "lines.linewidth": 2.0,
        "font.size": 11,
        "legend.frameon": False,
    })
    _use_retina_figures()
    from dtree._book import record_figure_data

    record_figure_data()


def _use_retina_figures() -> None:
    """In an IPython kernel with matplotlib's inline backend: PNG at 2x resolution."""
    import sys

    ipython = sys.modules.get("IPython")
    if ipython is None or ipython.get_ipython() is None:
        return
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:     # an IPython without the inline backend: nothing to set
        return
    set_matplotlib_formats("retina")


# --- plot_tree -----------------------------------------------------------------

TRUNCATED_TEXT = "\n  (...)  \n"
TRUNCATED_FILL = "grey"


@dataclass(eq=False)
class _Box:
    """A node as drawn: its place in the tidy layout and the edge that leads to it."""

    index: int         # the node's position in the tree's view (pre-order)
    node_id: int
    parent: "_Box | None"
    edge: str          # label of the edge from the parent ("" for none)
    depth: int
    truncated: bool    # below max_depth: drawn as "(...)"
    first: bool        # the first child of its parent (children[0]: test true)
    binary: bool       # the edge from the parent is a branch of a binary test
    x: float = 0.0     # in leaf slots: leaves at 0, 1, 2, ...


def _edge_texts(view, i: int) -> list[str]:
    """The edge labels of :func:`dtree.export.edge_labels`, "True" and "False"
    padded towards their arrows (they are drawn beside them)."""
    labels = edge_labels(view, i)
    return ["True  ", "  False"] if labels == ["True", "False"] else labels


def _tidy_layout(view, max_depth) -> list[_Box]:
    """The visible boxes of the tree ``view`` in pre-order, placed as a tidy tree.

    Leaves (and "(...)" boxes) take the slots x = 0, 1, 2, ... from left to
    right; each parent is centred over its first and last child; the depth
    gives the row.  The tree is read from its view (``dtree.export._view``),
    so that any tree the exporters read is drawn: dtree's, or scikit-learn's
    fitted ``tree_``, single- or multi-output.
    """
    boxes: list[_Box] = []
    n_slots = 0

    def place(i, parent, edge, depth, first):
        nonlocal n_slots
        binary = parent is not None and view.threshold[parent.index] is not None
        box = _Box(i, view.node_id[i], parent, edge, depth,
                   truncated=max_depth is not None and depth > max_depth, first=first,
                   binary=binary)
        boxes.append(box)
        children = view.children[i]
        if not children or box.truncated:
            box.x = float(n_slots)
            n_slots += 1
        else:
            labels = _edge_texts(view, i)
            placed = [place(child, box, label, depth + 1, k == 0)
                      for k, (child, label) in enumerate(zip(children, labels))]
            box.x = (placed[0].x + placed[-1].x) / 2
        return box

    place(0, None, "", 0, True)
    return boxes


def _ink(fill: str) -> str:
    """Black or white text, whichever contrasts more with ``fill`` (WCAG 2 luminance)."""
    from matplotlib.colors import to_rgb

    c = np.array(to_rgb(fill))
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    luminance = float(linear @ [0.2126, 0.7152, 0.0722])
    return "black" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "white"


def _check_plot_params(max_depth, label, precision, fontsize, flags):
    if max_depth is not None and (isinstance(max_depth, bool)
                                  or not isinstance(max_depth, numbers.Integral) or max_depth < 0):
        raise InvalidParameterError(f"max_depth must be None or an int >= 0, got {max_depth!r}")
    if label not in ("all", "root", "none"):
        raise InvalidParameterError(f"label must be 'all', 'root' or 'none', got {label!r}")
    if isinstance(precision, bool) or not isinstance(precision, numbers.Integral) or precision < 0:
        raise InvalidParameterError(f"precision must be an int >= 0, got {precision!r}")
    if fontsize is not None and (isinstance(fontsize, bool)
                                 or not isinstance(fontsize, numbers.Real) or not fontsize > 0):
        raise InvalidParameterError(f"fontsize must be None or a number > 0, got {fontsize!r}")
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidParameterError(f"{name} must be True or False, got {value!r}")


def plot_tree(decision_tree, *, max_depth=None, feature_names=None, class_names=None, label="all",
              filled=False, impurity=True, node_ids=False, proportion=False, rounded=False,
              precision=3, ax=None, fontsize=None):
    """Draw a fitted tree with matplotlib: one box per node, an arrow per edge.

    The signature, the texts of the boxes and their fill colours are those
    of scikit-learn's ``sklearn.tree.plot_tree``: for the same CART tree and
    arguments the annotations carry the same texts, in the same order, and
    the boxes the same colours.  A box shows the node's id (``node_ids``),
    its test (``petal_length <= 2.45``; ``outlook?`` for a multiway node),
    impurity, number of training samples, (weighted) class counts or
    regression value and, with ``class_names``, its majority class (the
    lines of :func:`dtree.export_graphviz`).  The edges out of a binary root
    are labelled "True" (``children[0]``, test true) and "False"; the edges
    out of a multiway node (ID3, C4.5) with their categories.  Needs
    matplotlib only (not Graphviz).

    The layout is a tidy tree: leaves at evenly spaced positions from left
    to right (in the order of ``children``), each parent centred over its
    first and last child, one row per depth; the tree fills the axes.

    Parameters
    ----------
    decision_tree : fitted estimator
        ID3Classifier, DecisionTreeClassifier, DecisionTreeRegressor,
        C45Classifier, ..., or a fitted scikit-learn tree (read from its
        ``tree_`` arrays); single- or multi-output.  A multi-output tree's
        box shows the value of each output on its own row (class counts, or
        fractions with ``proportion``, zero-padded to the largest number of
        classes; the predictions of a regressor), as scikit-learn's.
    max_depth : int or None, default=None
        Draw nodes down to this depth (the root has depth 0); the children of
        deeper internal nodes are drawn as grey ``(...)`` boxes (as are
        deeper leaves, as scikit-learn draws them; as there, the binary
        edges into them carry no True/False).  ``None``
        draws the whole tree.
    feature_names : sequence of str of length n_features, default=None
        Names of the features; defaults to ``feature_names_in_`` if the
        estimator has it (scikit-learn ignores it), else ``x[0]``,
        ``x[1]``, ...
    class_names : sequence of str of length n_classes, or True, default=None
        Names of the classes in the order of ``classes_``: each box then
        names its majority class; ``True`` shows ``y[k]``; ``None`` leaves
        the class out.  Ignored for a regressor and for a multi-output tree
        (as by scikit-learn: no class line, the length unchecked).
    label : {"all", "root", "none"}, default="all"
        Where to write the field names (``samples =``, ...): at every node,
        at the root only, or nowhere.
    filled : bool, default=False
        Fill the boxes with the colours of ``dtree.export.fill_colours``
        (scikit-learn's rule and palette, as :func:`dtree.export_graphviz`):
        a classifier's node in the colour of its majority class, stronger
        the purer the node (opacity :math:`(p_1 - p_2)/(1 - p_2)` over white
        for its two largest class fractions); a regressor's node stronger
        the larger its value; a multi-output tree's node stronger the lower
        its impurity, in the palette's first colour (scikit-learn's rule for
        multi-output trees).  The text is black or white, whichever reads
        better on the fill.  Unfilled boxes have the colour of the axes.
    impurity : bool, default=True
        Show each node's impurity under the estimator's criterion (entropy
        in bits for ID3).
    node_ids : bool, default=False
        Show each node's ``node_id`` (its position in pre-order).
    proportion : bool, default=False
        Show samples as a percentage of the root's samples and class counts
        as class fractions.
    rounded : bool, default=False
        Draw boxes with rounded corners.
    precision : int, default=3
        Decimals of thresholds, impurities and values (class counts are
        shown without decimals when they are whole numbers, as for
        unweighted samples; fractional weighted counts, e.g. C4.5's, with
        ``precision`` decimals).
    ax : matplotlib Axes, default=None
        Axes to draw on (cleared first, its axis turned off); ``None`` uses
        ``matplotlib.pyplot.gca()``.
    fontsize : float, default=None
        Font size of the text; ``None`` chooses the largest size at which
        the boxes fit their slots of the axes.

    Returns
    -------
    list of matplotlib.text.Annotation
        The annotations drawn, in pre-order: each node's box (with the arrow
        from its parent), followed by the label of that edge if it has one.
        Box annotations have gid ``"node <node_id>"`` (``"truncated
        <node_id>"`` for a ``(...)`` box), edge labels ``"edge <parent
        node_id>-><child node_id>"``.

    Raises
    ------
    NotFittedError
        If the estimator is not fitted.
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length;
        ``InvalidParameterError`` (a ValueError) if ``max_depth``,
        ``label``, ``precision``, ``fontsize``, a flag or ``ax`` is invalid.
        With ``filled``, also for a multi-output tree whose nodes all have
        the same impurity (no colour scale; scikit-learn fails there with a
        ValueError too).
    ModuleNotFoundError
        If matplotlib is not installed; the message names the extra that
        installs it: ``pip install 'dtree[plot]'``.

    See Also
    --------
    dtree.export_graphviz : the same boxes as DOT source for Graphviz.
    dtree.export_text, dtree.export_rules : the tree as text.

    References
    ----------
    scikit-learn's ``sklearn.tree.plot_tree`` (box contents and arguments);
    the layout is the simple tidy tree of C. Wetherell and A. Shannon, "Tidy
    drawings of trees", *IEEE Trans. Software Engineering* 5 (1979) 514-520
    (leaves in order, parents centred).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from dtree import ID3Classifier, plot_tree
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> tree = ID3Classifier().fit(weather.drop(columns="play"), weather["play"])
    >>> fig = Figure(figsize=(8, 4))
    >>> artists = plot_tree(tree, ax=fig.subplots(), filled=True)
    >>> print(artists[0].get_text())
    outlook?
    entropy = 0.94
    samples = 14
    value = [5, 9]
    >>> [a.get_text() for a in artists if a.get_gid().startswith("edge 0->")]
    ['overcast', 'rainy', 'sunny']
    >>> sum(a.get_gid().startswith("node") for a in artists)
    8
    """
    flags = dict(filled=filled, impurity=impurity, node_ids=node_ids, proportion=proportion,
                 rounded=rounded)
    _check_plot_params(max_depth, label, precision, fontsize, flags)
    view, box_text = box_labels(decision_tree, feature_names=feature_names,
                                 class_names=class_names, label=label, impurity=impurity,
                                 node_ids=node_ids, proportion=proportion, precision=precision,
                                 characters=MPL_CHARACTERS, escape=str)
    mpl = _import_optional("matplotlib", "plot_tree")
    ax = _cleared_axes(ax)

    fills = fill_colours(view) if filled else None
    boxes = _tidy_layout(view, max_depth)
    canvas = _Canvas(ax, n_slots=1 + max(box.x for box in boxes),
                     n_rows=1 + max(box.depth for box in boxes), ink=mpl.rcParams["text.color"],
                     size=mpl.rcParams["font.size"] if fontsize is None else fontsize,
                     rounded=rounded)
    background = mpl.colors.to_hex(ax.get_facecolor())
    artists, box_artists = [], []
    for box in boxes:
        if box.truncated:
            text, fill, gid = TRUNCATED_TEXT, TRUNCATED_FILL, f"truncated {box.node_id}"
        else:
            text = _node_text(box_text, box.index)
            fill, gid = fills[box.index] if filled else background, f"node {box.node_id}"
        box_artists.append(canvas.draw_box(box, text, fill, gid))
        artists.append(box_artists[-1])
        if box.edge and not (box.truncated and box.binary):   # scikit-learn labels
            artists.append(canvas.draw_edge_label(box))          # no "(...)" True/False

    if fontsize is None:
        _fit_fontsize(ax, artists, box_artists, canvas.n_slots, canvas.n_rows)
    return artists


def _node_text(box_text, i: int) -> str:
    """The text of the box of node ``i`` (a hook: the figure-data tests mutate it)."""
    return box_text(i)


def _cleared_axes(ax):
    """``ax`` (``pyplot.gca()`` if None), cleared and its axis turned off."""
    Axes = _import_optional("matplotlib.axes", "plot_tree").Axes
    if ax is None:
        ax = _import_optional("matplotlib.pyplot", "plot_tree").gca()
    elif not isinstance(ax, Axes):
        raise InvalidParameterError(f"ax must be a matplotlib Axes or None, got {ax!r}")
    ax.clear()
    ax.set_axis_off()
    return ax


@dataclass
class _Canvas:
    """The axes a tree is drawn on, divided into ``n_slots`` columns and ``n_rows`` rows."""

    ax: object
    n_slots: float
    n_rows: int
    ink: str           # colour of the edges, their labels and the boxes' outlines
    size: float        # font size
    rounded: bool

    def position(self, box: _Box) -> tuple[float, float]:
        """Centre of the box's slot, in axes fraction."""
        return ((box.x + 0.5) / self.n_slots, 1.0 - (box.depth + 0.5) / self.n_rows)

    def draw_box(self, box: _Box, text: str, fill: str, gid: str):
        """The box of a node, with the arrow from its parent's box."""
        style = dict(ha="center", va="center", xycoords="axes fraction", fontsize=self.size,
                     color=_ink(fill), zorder=100 - 10 * box.depth,
                     bbox=dict(boxstyle="round" if self.rounded else "square", fc=fill,
                               ec=self.ink))
        if box.parent is None:
            annotation = self.ax.annotate(text, self.position(box), **style)
        else:
            annotation = self.ax.annotate(text, self.position(box.parent), self.position(box),
                                          arrowprops=dict(arrowstyle="<-", color=self.ink),
                                          **style)
        annotation.set_gid(gid)
        return annotation

    def draw_edge_label(self, box: _Box):
        """The label of the edge into ``box``, halfway along its arrow."""
        (x0, y0), (x1, y1) = self.position(box.parent), self.position(box)
        style = dict(va="center", xycoords="axes fraction", fontsize=self.size, color=self.ink,
                     zorder=100 - 10 * box.depth + 5)
        if box.binary:  # "True  " / "  False" beside the arrow
            style["ha"] = "right" if box.first else "left"
        else:  # a category, on a white patch over the arrow
            style.update(ha="center", bbox=dict(boxstyle="square,pad=0.1", fc="white",
                                                ec="none"))
        edge = self.ax.annotate(box.edge, ((x0 + x1) / 2, (y0 + y1) / 2), **style)
        edge.set_gid(f"edge {box.parent.node_id}->{box.node_id}")
        return edge


def _fit_fontsize(ax, artists, box_artists, n_slots, n_rows):
    """Scale all text: the largest box fills 90 % of a slot's width or 75 % of its height."""
    ax.figure.figure.draw_without_rendering()  # (the root figure) lays out the boxes
    extents = [a.get_bbox_patch().get_window_extent() for a in box_artists]
    axes = ax.get_window_extent()
    scale = min(0.90 * axes.width / n_slots / max(e.width for e in extents),
                0.75 * axes.height / n_rows / max(e.height for e in extents))
    for artist in artists:
        artist.set_fontsize(artist.get_fontsize() * scale)
