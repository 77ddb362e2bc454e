"""Numbers quoted in the book's prose: record them in code, show them in Markdown.

The book's chapters compute every number their prose quotes. A code cell
records a value under a name with :func:`glue`; a Markdown cell shows it with
MyST's inline ``{eval}`` role and :func:`glued`::

    glue("gain_outlook", gain, display=False)          # code cell

    The gain of outlook is {eval}`glued("gain_outlook", ".3f")` bits.

Both places a reader meets a chapter render that role: the HTML book (MyST-NB
evaluates it in the chapter's kernel while it executes the notebook) and
JupyterLab with the ``jupyterlab-myst`` renderer (the kernel evaluates it when
the Markdown cell is run, e.g. by Run All). MyST-NB's own ``{glue}`` role
renders only in the HTML book.

Every recorded value is also written into the code cell's outputs, as a
hidden record at :data:`SIGNIFICANT_DIGITS` significant digits, so that
nbval's comparison of a fresh run with the committed notebook regression-tests
each quoted number without failing on the last bits of a float, which depend
on the CPU's vector width.

Figures are regression-tested the same way, through the data they draw
rather than their pixels (which depend on fonts, FreeType and the CPU). Every
figure output of a chapter carries, in the same display bundle as its image,
an entry of MIME type :data:`FIGURE_DATA_MIME`: a text listing of what the
figure shows, with floats at :data:`FIGURE_DIGITS` significant digits, which
nbval compares like any text output while JupyterLab and the HTML book show
the image only.

* A matplotlib figure gets it from :func:`record_figure_data`, which
  :func:`dtree.plotting.use_book_style` calls: an IPython display formatter
  adds :func:`figure_data` of the figure (its texts, tick labels, legend
  entries, the data of its lines, collections, patches and images, axis
  limits and scales, colours) to every figure the inline backend shows.
* A Graphviz drawing of a tree is made with :func:`show_graphviz`
  (``show_graphviz(export_graphviz(tree))``), whose display bundle holds the
  SVG and, as its figure data, the DOT source that the drawing renders.

Neither JupyterLab nor MyST-NB has a renderer for :data:`FIGURE_DATA_MIME`,
so both show the image beside which it is stored; the book's ``_config.yml``
silences MyST-NB's notice that it skips the entry
(``mystnb.unknown_mime_type``), and ``tests/test_figure_data.py`` checks
that every image output carries figure data and that no other MIME type is
skipped.

This module needs only IPython (present in every Jupyter kernel) and imports
it when it first displays something; :func:`figure_data` needs matplotlib,
:func:`show_graphviz` the ``graphviz`` package and Graphviz's ``dot`` to
render.
"""

from __future__ import annotations

import numbers
import re
from typing import Any

__all__ = [
    "FIGURE_DATA_MIME", "FIGURE_DIGITS", "SIGNIFICANT_DIGITS", "GraphvizDrawing",
    "figure_data", "glue", "glued", "record_figure_data", "repository_file",
    "show_graphviz", "show_source", "source_without_docstring", "stated_precision",
    "stated_precision_text",
]

#: Significant digits at which a recorded float is stored in a notebook's
#: outputs (and at which nbval compares the floats it prints; see
#: ``book/conftest.py``). A float has 15-17; its last one or two depend on the
#: order of a sum, so 12 leaves a margin of three digits either way.
SIGNIFICANT_DIGITS = 12

# The MIME prefix of MyST-NB's hidden glue records (papermill/scrapbook
# convention): neither JupyterLab nor the HTML book displays such an output.
_RECORD_PREFIX = "application/papermill.record/"

_values: dict[str, Any] = {}

# A glued name: what the prose's {eval}`glued("name")` may quote (the same
# character class as nb_eval_name_regex in _config.yml).
_NAME = re.compile(r"[A-Za-z0-9_]+")


def _check_digits(digits) -> None:
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or digits < 1:
        raise ValueError(f"digits must be a positive integer, got {digits!r}")


def stated_precision(value: Any, digits: int = SIGNIFICANT_DIGITS) -> str:
    """Text of `value` with every float at `digits` significant digits.

    Parameters
    ----------
    value : object
        A number (Python or NumPy), a string, or any object.
    digits : int, default SIGNIFICANT_DIGITS
        Significant digits of a float, at least 1.

    Returns
    -------
    str
        ``format(value, f".{digits}g")`` for a real non-integral number (NumPy
        floats included); the digits of an integer (NumPy's too); ``repr`` of
        a string, a bool and anything else.

    Raises
    ------
    ValueError
        If `digits` is not a positive integer.

    Examples
    --------
    >>> stated_precision(0.029222565658954647)
    '0.029222565659'
    >>> stated_precision(0.029222565658954536)
    '0.029222565659'
    >>> stated_precision(3), stated_precision("outlook")
    ('3', "'outlook'")
    """
    _check_digits(digits)
    if isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b":
        return repr(bool(value))  # NumPy bools too (their repr is "np.True_")
    if isinstance(value, numbers.Integral):
        return str(int(value))  # NumPy integers too (their repr is "np.int64(3)")
    if isinstance(value, numbers.Real):
        return format(float(value), f".{int(digits)}g")
    if isinstance(value, str):
        return repr(str(value))  # NumPy strings too
    return repr(value)


# A decimal float literal in printed text: digits, a point, digits, an optional
# exponent, not part of a longer word, dotted version or number.
_FLOAT = re.compile(r"(?<![\w.])[-+]?\d+\.\d+(?:[eE][-+]?\d+)?(?![\w.])")


def stated_precision_text(text: str, digits: int = SIGNIFICANT_DIGITS) -> str:
    """`text` with every float literal of more than `digits` significant digits rounded.

    The comparison nbval makes between a notebook's committed outputs and a
    fresh run applies this to both (``book/conftest.py``): a difference in the
    last bits of a printed float (the CPU's summation order) then passes,
    while a change in an earlier digit still fails.

    Parameters
    ----------
    text : str
        Printed output.
    digits : int, default SIGNIFICANT_DIGITS
        Significant digits kept, at least 1.

    Returns
    -------
    str
        `text` with each literal such as ``0.15648355747948203`` replaced by
        ``format(float(literal), f".{digits}g")``; shorter literals, integers
        and everything else unchanged.

    Raises
    ------
    ValueError
        If `digits` is not a positive integer.

    Examples
    --------
    >>> stated_precision_text("gain 0.15648355747948203, n = 14, p = 0.25")
    'gain 0.156483557479, n = 14, p = 0.25'
    >>> (stated_precision_text("0.15648355747948203")
    ...  == stated_precision_text("0.15648355747948206"))
    True
    >>> (stated_precision_text("0.15648355747948203")
    ...  == stated_precision_text("0.15648355847948203"))
    False
    """
    _check_digits(digits)

    def shorten(match: re.Match) -> str:
        literal = match.group(0)
        mantissa = literal.lstrip("+-").split("e")[0].split("E")[0]
        significant = mantissa.replace(".", "").lstrip("0")
        if len(significant) <= digits:
            return literal
        return format(float(literal), f".{int(digits)}g")

    return _FLOAT.sub(shorten, text)


def glue(name: str, value: Any, display: bool = False) -> None:
    """Record `value` under `name` for the prose to quote with :func:`glued`.

    The call of MyST-NB's ``glue`` (whose `display` defaults to True, here
    False); the prose reads the value back with
    ``{eval}`glued(name, format_spec)``` instead of ``{glue:text}``.

    Parameters
    ----------
    name : str
        The key the prose uses: ASCII letters, digits and underscores.
    value : object
        The value, kept as it is (formatting happens in :func:`glued`).
    display : bool, default False
        Also display `value` as the cell's visible output.

    Raises
    ------
    ValueError
        If `name` is not a non-empty string of ASCII letters, digits and
        underscores.
    ModuleNotFoundError
        If IPython (which every Jupyter kernel has) is missing; the message
        names the extra that installs it, ``dtree[notebooks]``.

    Notes
    -----
    The cell's outputs receive a hidden record of the value at
    :data:`SIGNIFICANT_DIGITS` significant digits (see
    :func:`stated_precision`); notebook regression tests compare it.
    Re-gluing a name replaces its value.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            "name must be a non-empty string of ASCII letters, digits and underscores, "
            f"got {name!r}"
        )
    try:
        from IPython.display import display as ipy_display
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            "glue needs IPython, which is not installed: pip install 'dtree[notebooks]'",
            name=error.name,
        ) from error
    _values[name] = value

    if display:
        ipy_display(value)
    ipy_display(
        {_RECORD_PREFIX + "text/plain": stated_precision(value)},
        raw=True,
        metadata={"scrapbook": {"name": name, "mime_prefix": _RECORD_PREFIX}},
    )


def glued(name: str, format_spec: str = "") -> str:
    """The value recorded under `name`, formatted for the prose.

    Parameters
    ----------
    name : str
        A name recorded earlier in the session by :func:`glue`.
    format_spec : str, default ""
        A format specification as for the built-in ``format`` (``".3f"``, ``".1%"``,
        ``","``); empty gives ``str(value)``.

    Returns
    -------
    str
        ``format(value, format_spec)``.

    Raises
    ------
    KeyError
        If nothing was glued under `name` (for instance, the cell that
        computes it has not run yet).
    ValueError, TypeError
        From the built-in ``format``, if `format_spec` does not fit the value.

    Examples
    --------
    >>> from dtree._book import glue, glued
    >>> glue("n_rows", 14)  # doctest: +SKIP
    >>> glued("n_rows")  # doctest: +SKIP
    '14'
    """
    try:
        value = _values[name]
    except KeyError:
        raise KeyError(
            f"nothing is glued under name {name!r}: run the cell that computes it first"
        ) from None
    return format(value, format_spec)


def repository_file(path: str, branch: str = "main") -> str:
    """Where a chapter reads a file committed to the book's repository.

    Inside a clone (``make lab``, ``make test``, Binder) it is the file itself,
    the first ``folder/path`` found from the working directory upwards; elsewhere (a chapter
    opened in Colab or downloaded) it is the file's URL in the repository that
    dtree's metadata names (``[project.urls] Repository`` in pyproject.toml).

    Parameters
    ----------
    path : str
        The file's path from the repository's root, with ``/`` separators,
        e.g. ``"benchmarks/results.csv"``.
    branch : str, default "main"
        The branch to read from outside a clone.

    Returns
    -------
    str
        A local path, or an ``https`` URL that :func:`pandas.read_csv` and
        ``urllib.request.urlopen`` read.

    Raises
    ------
    ValueError
        If `path` is absolute or climbs out of the repository (``..``).
    LookupError
        If the file is not found locally and dtree's metadata names no
        repository.
    """
    from pathlib import Path, PurePosixPath

    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
        raise ValueError(f"path must be relative to the repository's root, got {path!r}")
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        candidate = folder.joinpath(*parts)
        if candidate.is_file():
            return str(candidate)
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("dtree").get_all("Project-URL") or []
    except PackageNotFoundError:
        urls = []
    repository = next(
        (u.split(",", 1)[1].strip() for u in urls if u.split(",", 1)[0].strip() == "Repository"),
        None,
    )
    if repository is None:
        raise LookupError(
            f"{path} is not in a clone of the book's repository here, and dtree's "
            "metadata names no repository to read it from"
        )
    return f"{repository.rstrip('/')}/raw/{branch}/{'/'.join(parts)}"


def source_without_docstring(obj) -> str:
    """The source code of a function, method or class, its docstring replaced by ``...``.

    Parameters
    ----------
    obj : function, method or class
        Anything ``inspect.getsource`` reads.

    Returns
    -------
    str
        The dedented source; the docstring, if there is one, becomes the
        line ``...  # docstring omitted``.

    Raises
    ------
    TypeError
        If ``obj`` has no Python source (a built-in, an instance).

    Examples
    --------
    >>> from dtree.information import gini
    >>> source_without_docstring(gini).splitlines()[1].strip()
    '...  # docstring omitted'
    """
    import ast
    import inspect
    import textwrap

    lines = textwrap.dedent(inspect.getsource(obj)).splitlines(keepends=True)
    definition = ast.parse("".join(lines)).body[0]
    body = getattr(definition, "body", [])
    first = body[0] if body else None
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        start, end = first.lineno - 1, first.end_lineno     # the docstring's lines, 0-based
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        lines[start:end] = [f"{indent}...  # docstring omitted\n"]
    return "".join(lines)


def show_source(obj):
    """Display a dtree function's source, syntax-highlighted, docstring omitted.

    What a chapter shows when it prints the library code it teaches: the
    same highlighting as the book's own code cells in the HTML book, in
    JupyterLab and in Colab.

    Parameters
    ----------
    obj : function, method or class
        The object whose source is shown.

    Returns
    -------
    IPython.display.Code
        Displays as highlighted Python (HTML with its own Pygments styles,
        scoped to the output, so that JupyterLab, Colab and the HTML book
        all colour it); its plain-text form is :func:`source_without_docstring`
        of ``obj``.

    Raises
    ------
    TypeError
        If ``obj`` has no Python source.
    ModuleNotFoundError
        If IPython is not installed.

    Examples
    --------
    >>> from dtree.information import gini
    >>> print(show_source(gini).data.splitlines()[0])
    def gini(pk):
    """
    from IPython.display import Code

    class _HighlightedSource(Code):
        def _repr_html_(self):
            from pygments import highlight
            from pygments.formatters import HtmlFormatter

            formatter = HtmlFormatter()
            # the style rules scoped to this output (Pygments also emits global
            # rules for pre and line numbers: left out), without comments
            css = "\n".join(
                re.sub(r"\s*/\*.*?\*/", "", rule)
                for rule in formatter.get_style_defs(".dtree-source").splitlines()
                if rule.startswith(".dtree-source"))
            code = highlight(self.data, self._get_lexer(), formatter)
            return f'<style>{css}</style><div class="dtree-source">{code}</div>'

    return _HighlightedSource(source_without_docstring(obj), language="python")


# --- Figure data: what a figure shows, compared by nbval ------------------------

#: MIME type of a figure's data in a notebook output. It is stored in the same
#: display bundle as the figure's ``image/png`` or ``image/svg+xml``; no
#: notebook front end renders it, so each shows the image.
FIGURE_DATA_MIME = "text/vnd.dtree.figure-data"

#: Significant digits of the floats in figure data. A figure resolves about a
#: thousandth of an axis, so every change that shows changes a digit that is
#: kept; the last bits that another CPU's summation order or BLAS changes (a
#: relative 1e-16) lie ten orders of magnitude below the last digit kept.
FIGURE_DIGITS = 6

# Arrays of at most this many numbers are listed; longer ones are given by
# their shape, least and greatest value and a digest of all their values.
_LISTED = 16
# A value smaller than this fraction of the largest magnitude in its array is
# written as 0: round-off noise around zero, whose digits and sign depend on
# the order of a sum.
_NOISE = 1e-9


def _number(x, digits: int) -> str:
    """``x`` at `digits` significant digits; -0.0 as 0, a non-number as its repr."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return repr(x)
    return format(x + 0.0, f".{digits}g")   # + 0.0 turns -0.0 into 0.0


def _numbers(values, digits: int) -> str:
    """An array at `digits` significant digits: listed if short, else summarised."""
    import hashlib

    import numpy as np

    try:
        array = np.ma.filled(np.ma.asarray(values, dtype=np.float64), np.nan)
    except (TypeError, ValueError):
        return repr(values)
    magnitudes = np.abs(array[np.isfinite(array)])
    if magnitudes.size:
        array = np.where(np.abs(array) < magnitudes.max() * _NOISE, 0.0, array)
    texts = [_number(x, digits) for x in array.ravel()]
    if len(texts) <= _LISTED:
        return "[" + " ".join(texts) + "]"
    shape = "x".join(str(n) for n in array.shape)
    digest = hashlib.sha256(" ".join(texts).encode()).hexdigest()[:12]
    if magnitudes.size:
        finite = array[np.isfinite(array)]
        span = f"in [{_number(finite.min(), digits)}, {_number(finite.max(), digits)}]"
    else:
        span = "none finite"
    return f"<{shape} values {span}, sha256 {digest}>"


def _point(xy, digits: int) -> str:
    return "(" + ", ".join(_number(v, digits) for v in xy) + ")"


def _colour(colour) -> str:
    from matplotlib.colors import to_hex

    try:
        return to_hex(colour, keep_alpha=True)
    except (TypeError, ValueError):
        return repr(colour)


def _colours(colours) -> str:
    """The colours of a collection's members: one, a short list, or a summary."""
    import hashlib

    import numpy as np

    rgba = np.asarray(colours, dtype=np.float64).reshape(-1, 4)
    hexes = [_colour(row) for row in rgba]
    distinct = list(dict.fromkeys(hexes))
    if not hexes:
        return "none"
    if len(distinct) == 1:
        return distinct[0]
    if len(hexes) <= _LISTED:
        return "[" + " ".join(hexes) + "]"
    digest = hashlib.sha256(" ".join(hexes).encode()).hexdigest()[:12]
    return f"<{len(hexes)} colours, {len(distinct)} distinct, sha256 {digest}>"


def _label(artist) -> str:
    """`` 'label'`` of a labelled artist (what a legend would show), else ``""``."""
    label = artist.get_label()
    return f" {label!r}" if label and not str(label).startswith("_") else ""


def _describe_text(text, digits: int, *, placed: bool = True) -> str | None:
    """A text artist: its string, and where the figure's code put it (`placed`)."""
    from matplotlib.text import Annotation

    string = text.get_text()
    arrow = isinstance(text, Annotation) and text.arrowprops is not None
    if not (string or arrow) or not text.get_visible():
        return None
    parts = [f"text {string!r}"]
    if placed:
        at = _point(text.get_position(), digits)
        parts.append(f"at {at}")
        if isinstance(text, Annotation) and _point(text.xy, digits) != at:
            parts.append(f"for {_point(text.xy, digits)}")
        if arrow:
            parts.append(f"arrow {text.arrowprops.get('arrowstyle', 'simple')!r}")
    parts.append(f"colour {_colour(text.get_color())}")
    box = text.get_bbox_patch()
    if box is not None:
        parts.append(f"box {_colour(box.get_facecolor())}")
    return " ".join(parts)


def _describe_line(line, digits: int) -> str:
    xy = line.get_xydata()
    parts = [f"line{_label(line)} {_colour(line.get_color())}",
             f"style {line.get_linestyle()!r} marker {str(line.get_marker())!r}"]
    if line.get_drawstyle() not in (None, "default"):
        parts.append(f"drawn {line.get_drawstyle()!r}")
    parts.append(f"x {_numbers(xy[:, 0], digits)} y {_numbers(xy[:, 1], digits)}")
    return " ".join(parts)


def _describe_collection(collection, digits: int) -> str:
    import numpy as np

    parts = [f"{type(collection).__name__}{_label(collection)}"]
    levels = getattr(collection, "levels", None)
    if levels is not None:   # a contour set
        parts.append(f"levels {_numbers(levels, digits)}")
    offsets = np.asarray(collection.get_offsets())
    if offsets.size and (offsets.shape[0] > 1 or np.any(offsets)):
        parts.append(f"offsets {_numbers(offsets, digits)}")
        sizes = collection.get_sizes() if hasattr(collection, "get_sizes") else None
        if sizes is not None and len(sizes):
            parts.append(f"sizes {_numbers(sizes, digits)}")
    paths = collection.get_paths()
    if paths:
        vertices = np.concatenate([path.vertices for path in paths])
        parts.append(f"{len(paths)} paths {_numbers(vertices, digits)}")
    values = collection.get_array()
    if values is not None:
        low, high = collection.get_clim()
        parts.append(f"values {_numbers(values, digits)} colour map "
                     f"{collection.get_cmap().name!r} from {_number(low, digits)} "
                     f"to {_number(high, digits)}")
    parts.append(f"face {_colours(collection.get_facecolor())}")
    parts.append(f"edge {_colours(collection.get_edgecolor())}")
    return " ".join(parts)


def _describe_patch(patch, digits: int) -> str:
    from matplotlib import patches

    def num(x):
        return _number(x, digits)

    if isinstance(patch, patches.Rectangle):
        geometry = (f"at {_point((patch.get_x(), patch.get_y()), digits)} "
                    f"width {num(patch.get_width())} height {num(patch.get_height())}")
        if patch.get_angle():
            geometry += f" angle {num(patch.get_angle())}"
    elif isinstance(patch, patches.Ellipse):
        geometry = (f"centre {_point(patch.get_center(), digits)} width "
                    f"{num(patch.get_width())} height {num(patch.get_height())}")
        if patch.get_angle():
            geometry += f" angle {num(patch.get_angle())}"
    elif isinstance(patch, patches.Wedge):
        geometry = (f"centre {_point(patch.center, digits)} radius {num(patch.r)} "
                    f"from {num(patch.theta1)} to {num(patch.theta2)}")
    elif isinstance(patch, patches.Polygon):
        geometry = f"vertices {_numbers(patch.get_xy(), digits)}"
    elif isinstance(patch, patches.FancyBboxPatch):
        geometry = (f"at {_point((patch.get_x(), patch.get_y()), digits)} "
                    f"width {num(patch.get_width())} height {num(patch.get_height())}")
    else:   # a path in the patch's own coordinates (not a drawn arrow's shape)
        try:
            vertices = patch.get_patch_transform().transform(patch.get_path().vertices)
            geometry = f"vertices {_numbers(vertices, digits)}"
        except Exception:  # noqa: BLE001 - e.g. an arrow that needs a renderer
            geometry = ""
    fill = _colour(patch.get_facecolor()) if patch.get_fill() else "none"
    parts = [f"{type(patch).__name__}{_label(patch)}", geometry,
             f"face {fill} edge {_colour(patch.get_edgecolor())}"]
    if patch.get_hatch():
        parts.append(f"hatch {patch.get_hatch()!r}")
    return " ".join(part for part in parts if part)


def _describe_image(image, digits: int) -> str:
    import numpy as np

    values = np.ma.asarray(image.get_array())
    low, high = image.get_clim()
    return (f"{type(image).__name__}{_label(image)} shape "
            f"{'x'.join(str(n) for n in values.shape)} extent "
            f"{_numbers(image.get_extent(), digits)} values {_numbers(values, digits)} "
            f"colour map {image.get_cmap().name!r} from {_number(low, digits)} "
            f"to {_number(high, digits)}")


def _describe_artist(artist, digits: int) -> str | None:
    from matplotlib.collections import Collection
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    if not artist.get_visible():
        return None
    if isinstance(artist, Text):
        return _describe_text(artist, digits)
    if isinstance(artist, Line2D):
        return _describe_line(artist, digits)
    if isinstance(artist, Collection):
        return _describe_collection(artist, digits)
    if isinstance(artist, Patch):
        return _describe_patch(artist, digits)
    if isinstance(artist, AxesImage):
        return _describe_image(artist, digits)
    return f"{type(artist).__name__}{_label(artist)}"


def _describe_legend(legend) -> str:
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    entries = []
    for text, handle in zip(legend.get_texts(), legend.legend_handles):
        if isinstance(handle, Line2D):
            key = (f"{_colour(handle.get_color())} {handle.get_linestyle()!r} "
                   f"{str(handle.get_marker())!r}")
        elif isinstance(handle, Patch):
            key = _colour(handle.get_facecolor())
        elif isinstance(handle, Collection):
            key = _colours(handle.get_facecolor())
        else:
            key = type(handle).__name__
        entries.append(f"{text.get_text()!r} {key}")
    title = legend.get_title().get_text()
    return "legend" + (f" {title!r}" if title else "") + ": " + ", ".join(entries)


def _describe_axis(axis, name: str, digits: int, *, ticks: bool) -> list[str]:
    low, high = axis.get_view_interval()
    lines = [(f"  {name} axis {axis.get_scale()} from {_number(low, digits)} to "
              f"{_number(high, digits)}")]
    label = axis.get_label().get_text()
    if label:
        lines[0] += f" label {label!r}"
    if not ticks or not axis.get_visible():
        return lines
    low, high = sorted((low, high))
    slack = (high - low) * 1e-9

    def shown_ticks(locations, ticks_of, only_labelled):
        shown = []
        for location, tick in zip(locations, ticks_of(len(locations))):
            if not low - slack <= location <= high + slack:
                continue
            text = next((t.get_text() for t in (tick.label1, tick.label2) if t.get_visible()), "")
            if text or not only_labelled:
                shown.append(f"{_number(location, digits)} {text!r}")
        return shown

    axis.get_majorticklabels()   # sets the ticks' positions and labels, as drawing does
    axis.get_minorticklabels()
    major = shown_ticks(axis.get_majorticklocs(), axis.get_major_ticks, False)
    minor = shown_ticks(axis.get_minorticklocs(), axis.get_minor_ticks, True)
    if major:
        lines.append(f"  {name} ticks " + ", ".join(major))
    if minor:
        lines.append(f"  {name} minor ticks " + ", ".join(minor))
    offset = axis.get_offset_text().get_text()
    if offset:
        lines.append(f"  {name} offset {offset!r}")
    return lines


def figure_data(fig, digits: int = FIGURE_DIGITS) -> str:
    """What a matplotlib figure shows, as text with floats at `digits` significant digits.

    The record that :func:`record_figure_data` stores beside each figure of a
    chapter (MIME type :data:`FIGURE_DATA_MIME`), so that nbval compares what
    the figure shows. One line per item: the figure's size, its texts and
    legends, then for each axes its titles, the scale, limits, label and
    ticks (position and label) of each axis, and its artists in the order
    drawn: lines (label, colour, style, marker, x and y data), collections
    (scatter offsets and sizes, segments and polygons, contour levels,
    colour-mapped values), patches (rectangles, circles, polygons, with
    colours), images (shape, extent and values), texts and annotations
    (string, position, colour, box colour) and the legend (entries with the
    colour and style of their keys). Arrays of more than 16 numbers are
    given by their shape, range and a SHA-256 digest of all their values.

    Left out is what depends on fonts and the renderer rather than on the
    data: font sizes, the extents of texts and where a layout engine puts
    axes and labels.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; it is laid out with ``draw_without_rendering`` first
        (tick labels are only set when a figure is drawn).
    digits : int, default FIGURE_DIGITS
        Significant digits of every float, at least 1. A value smaller than
        1e-9 times the largest magnitude of its array is written as 0.

    Returns
    -------
    str
        Lines of text, the first naming the figure's size and `digits`.

    Raises
    ------
    ValueError
        If `digits` is not a positive integer.
    ModuleNotFoundError
        If matplotlib is not installed.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(4, 3))
    >>> ax = fig.subplots()
    >>> _ = ax.plot([0, 1, 2], [0.1, 0.4, 1 / 3], color="black", label="gain")
    >>> _ = ax.set(xlim=(0, 2), ylim=(0, 0.5), yticks=[0, 0.25, 0.5], title="a line")
    >>> print(figure_data(fig))  # doctest: +ELLIPSIS
    figure 4 x 3 in, floats at 6 significant digits
    axes 1 of 1 title 'a line'
      x axis linear from 0 to 2
      x ticks 0 '0.0', ..., 2 '2.0'
      y axis linear from 0 to 0.5
      y ticks 0 '0.00', 0.25 '0.25', 0.5 '0.50'
      line 'gain' #000000ff style '-' marker 'None' x [0 1 2] y [0.1 0.4 0.333333]
    """
    _check_digits(digits)
    fig.draw_without_rendering()
    width, height = fig.get_size_inches()
    lines = [(f"figure {_number(width, digits)} x {_number(height, digits)} in, "
              f"floats at {digits} significant digits")]
    for text in fig.texts:   # suptitle and fig.text: their place may be the layout's
        described = _describe_text(text, digits, placed=False)
        if described:
            lines.append(described)
    for artist in [*fig.lines, *fig.patches, *fig.images, *fig.artists]:
        described = _describe_artist(artist, digits)
        if described:
            lines.append(described)
    lines.extend(_describe_legend(legend) for legend in fig.legends)
    for i, ax in enumerate(fig.axes):
        header = f"axes {i + 1} of {len(fig.axes)}"
        for loc in ("left", "center", "right"):
            title = ax.get_title(loc)
            if title:
                header += f" title {title!r}" + ("" if loc == "center" else f" ({loc})")
        if ax.get_aspect() != "auto":
            header += f" aspect {_number(ax.get_aspect(), digits)}"
        if not ax.axison:
            header += " axis off"
        lines.append(header)
        lines.extend(_describe_axis(ax.xaxis, "x", digits, ticks=ax.axison))
        lines.extend(_describe_axis(ax.yaxis, "y", digits, ticks=ax.axison))
        for artist in [*ax.images, *ax.collections, *ax.patches, *ax.lines, *ax.texts,
                       *ax.artists]:
            described = _describe_artist(artist, digits)
            if described:
                lines.append("  " + described)
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            lines.append("  " + _describe_legend(legend))
    return "\n".join(lines)


_formatter_class = None


def _figure_data_formatter():
    """An IPython display formatter producing :data:`FIGURE_DATA_MIME` (class made once)."""
    global _formatter_class
    if _formatter_class is None:
        from IPython.core.formatters import BaseFormatter
        from traitlets import ObjectName, Unicode

        class FigureDataFormatter(BaseFormatter):
            """Figure data of the objects registered with ``for_type`` (none by default)."""

            format_type = Unicode(FIGURE_DATA_MIME)
            print_method = ObjectName("_repr_figure_data_")

        _formatter_class = FigureDataFormatter
    return _formatter_class


def record_figure_data() -> bool:
    """Store :func:`figure_data` beside every matplotlib figure the kernel displays.

    In an IPython kernel, registers a display formatter for the MIME type
    :data:`FIGURE_DATA_MIME` that formats a matplotlib Figure with
    :func:`figure_data`. Every way a figure reaches a notebook's outputs
    goes through IPython's display formatters (``plt.show()`` and the
    figures the inline backend shows at the end of a cell, ``display(fig)``,
    a figure as a cell's value), so each such output holds the image and its
    figure data side by side. :func:`dtree.plotting.use_book_style` calls
    this; calling it again changes nothing.

    Returns
    -------
    bool
        True in an IPython session (the formatter is registered), False
        elsewhere (nothing to do).

    Examples
    --------
    >>> record_figure_data()     # a doctest runs outside IPython
    False
    """
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return False
    formatters = shell.display_formatter.formatters
    if FIGURE_DATA_MIME not in formatters:
        formatters[FIGURE_DATA_MIME] = _figure_data_formatter()(parent=shell.display_formatter)
    formatters[FIGURE_DATA_MIME].for_type_by_name("matplotlib.figure", "Figure", figure_data)
    return True


class GraphvizDrawing:
    """DOT source drawn by Graphviz, displayed as SVG with the DOT source as figure data.

    What :func:`show_graphviz` returns; see there.

    Parameters
    ----------
    dot : str
        DOT source, e.g. from :func:`dtree.export_graphviz`.

    Attributes
    ----------
    dot : str
        The DOT source.
    """

    def __init__(self, dot: str):
        if not isinstance(dot, str):
            raise TypeError(f"dot must be DOT source as a str, got {type(dot).__name__}")
        self.dot = dot
        self._svg = None

    def svg(self) -> str:
        """The drawing as SVG markup (Graphviz's ``dot``, run once).

        Returns
        -------
        str
            The ``<svg>`` element, as ``IPython.display.SVG`` displays it.

        Raises
        ------
        ModuleNotFoundError
            If the ``graphviz`` package is not installed (``dtree[plot]``).
        graphviz.ExecutableNotFound
            If Graphviz's ``dot`` program is not on the PATH.
        """
        if self._svg is None:
            from dtree._helpers import _import_optional

            graphviz = _import_optional("graphviz", "show_graphviz")
            from IPython.display import SVG

            self._svg = SVG(graphviz.Source(self.dot).pipe(format="svg")).data
        return self._svg

    def figure_data(self, digits: int = FIGURE_DIGITS) -> str:
        """The DOT source with every float of more than `digits` significant digits rounded.

        Parameters
        ----------
        digits : int, default FIGURE_DIGITS
            Significant digits kept, at least 1.

        Returns
        -------
        str
            :func:`stated_precision_text` of the DOT source.
        """
        return stated_precision_text(self.dot, digits)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"image/svg+xml": self.svg(), "text/plain": repr(self),
                FIGURE_DATA_MIME: self.figure_data()}

    def __repr__(self) -> str:
        boxes = len(re.findall(r'^\s*(?!(?:node|edge|graph)\b)(?:\w+|"[^"]*")\s*\[',
                               self.dot, flags=re.MULTILINE))
        edges = len(re.findall(r"->|--", self.dot))
        return f"<Graphviz drawing: {boxes} boxes, {edges} edges>"


def show_graphviz(dot: str) -> GraphvizDrawing:
    """Display DOT source as Graphviz's drawing, with the DOT source as its figure data.

    The chapters draw a tree with ``show_graphviz(export_graphviz(tree,
    ...))``. In a notebook the result displays as the SVG that Graphviz's
    ``dot`` draws (what ``IPython.display.SVG(graphviz.Source(dot).pipe(
    format="svg"))`` shows); its display bundle also holds the DOT source,
    floats at :data:`FIGURE_DIGITS` significant digits, under
    :data:`FIGURE_DATA_MIME`, so that nbval compares what the drawing shows
    (the SVG markup itself depends on Graphviz's version and is not
    compared).

    Parameters
    ----------
    dot : str
        DOT source, e.g. from :func:`dtree.export_graphviz`.

    Returns
    -------
    GraphvizDrawing
        Rendered when it is displayed (needs the ``graphviz`` package and
        Graphviz's ``dot``).

    Raises
    ------
    TypeError
        If `dot` is not a str.

    Examples
    --------
    >>> from dtree import ID3Classifier, export_graphviz
    >>> from dtree.datasets import load_animals
    >>> animals = load_animals()
    >>> tree = ID3Classifier().fit(animals.drop(columns="animal"), animals["animal"])
    >>> drawing = show_graphviz(export_graphviz(tree))
    >>> drawing
    <Graphviz drawing: 7 boxes, 6 edges>
    >>> drawing.figure_data() == drawing.dot     # export_graphviz rounds to 3 decimals
    True
    """
    return GraphvizDrawing(dot)
