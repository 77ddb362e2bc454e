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

This module needs only IPython (present in every Jupyter kernel) and imports
it when :func:`glue` first displays a record.
"""

from __future__ import annotations

import numbers
import re
from typing import Any

__all__ = [
    "SIGNIFICANT_DIGITS", "glue", "glued", "repository_file", "show_source",
    "source_without_docstring", "stated_precision",
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
    >>> from dtree.book import glue, glued
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
