"""The chapters as a reader meets them: captioned figures, code that teaches, sources by name.

These tests read the committed notebooks and the bibliography; the built
pages are checked in Chromium by tests/browser/test_pages.py (figures
numbered, no raw MyST, code lines that fit the column, legible tree drawings).

- Every figure (a code cell with an image output) has a caption and a name in
  its ``mystnb.figure`` metadata, and the chapter's prose refers to it by
  ``{numref}``.
- A PNG figure is stored at twice the resolution it is shown at (retina).
- A Graphviz tree drawing is an SVG (``dtree._book.show_graphviz(dot)``, whose text
  form holds no memory address) with the class ``tree-drawing`` (drawn
  at one scale in every chapter, see book/_static/dtree-book.css), not a PNG.
- A chapter shows at most MAX_SHOWN_LINES lines of code; checks and
  plotting boilerplate are folded (``hide-input`` / ``hide-cell``).
- Shown code lines are at most MAX_LINE_LENGTH characters (the column of the
  HTML book at 1280 px holds 90 at the 12 px code font).
- Library source is shown highlighted (``dtree._book.show_source``), never
  printed with ``inspect.getsource``.
- A helper function is defined in one notebook only (shared ones live in dtree).
- A cell folded in the HTML book (``hide-input``, ``hide-cell``, ...) is folded
  in JupyterLab: its ``jupyter.source_hidden`` / ``outputs_hidden`` metadata
  agrees with its tags, in every notebook under book/ (``book/_ext/fold_cells.py``
  writes it).
- Sources are cited by author and title: no file names ("seed 004") in prose,
  no "n.d." and no file names in the bibliography.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections import defaultdict

import pytest

from tests.test_book_config import ROOT, toc_files

# Checks the book's files and its pinned environment, not dtree across versions:
# `make test-compat` leaves the module out.
pytestmark = pytest.mark.book

MAX_SHOWN_LINES = 250
MAX_LINE_LENGTH = 88
FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}

NOTEBOOKS = [f for f in toc_files() if (ROOT / f"{f}.ipynb").is_file()]

sys.path.insert(0, str(ROOT / "book" / "_ext"))
try:
    import fold_cells
finally:
    sys.path.pop(0)


def cells(name):
    return json.loads((ROOT / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]


def source(cell) -> str:
    return "".join(cell["source"])


def image_types(cell) -> set[str]:
    return {k for out in cell.get("outputs", []) for k in out.get("data", {}) if k.startswith("image/")}


def shown(cell) -> bool:
    return cell["cell_type"] == "code" and not FOLDED & set(cell.get("metadata", {}).get("tags", []))


def prose(name) -> str:
    return "\n".join(source(c) for c in cells(name) if c["cell_type"] == "markdown")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_figure_is_captioned_named_and_referred_to(name):
    text = prose(name)
    problems = []
    for i, cell in enumerate(cells(name)):
        if cell["cell_type"] != "code" or not image_types(cell):
            continue
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        caption, label = figure.get("caption", ""), figure.get("name", "")
        if len(caption.split()) < 8:
            problems.append(f"cell {i}: no caption that says what to see ({caption!r})")
        if not re.fullmatch(r"fig-[a-z0-9-]+", label or ""):
            problems.append(f"cell {i}: no figure name fig-... ({label!r})")
        elif not re.search(r"\{numref\}`([^`<]*<)?" + re.escape(label) + r">?`", text):
            problems.append(f"cell {i}: the prose never refers to {label} with {{numref}}")
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_tree_drawings_are_svg_at_the_book_scale(name):
    problems = []
    for i, cell in enumerate(cells(name)):
        code = source(cell)
        if cell["cell_type"] != "code" or "export_graphviz" not in code or not image_types(cell):
            continue
        if "image/svg+xml" not in image_types(cell) or 'format="png"' in code:
            problems.append(f"cell {i}: a Graphviz drawing that is not an SVG output")
        classes = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("classes", "")
        if "tree-drawing" not in str(classes).split():
            problems.append(f"cell {i}: the drawing lacks the image class tree-drawing")
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_plot_tree_drawings_are_sized_as_tree_drawings(name):
    """A dtree.plot_tree figure has the image class tree-plot, which
    book/_static/dtree-tree-drawings.js keeps at its drawn size (or scrollable)."""
    problems = []
    for i, cell in enumerate(cells(name)):
        if cell["cell_type"] != "code" or "plot_tree(" not in source(cell) or not image_types(cell):
            continue
        classes = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("classes", "")
        if "tree-plot" not in str(classes).split():
            problems.append(f"cell {i}: a plot_tree drawing without the image class tree-plot")
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_code_shown_to_the_reader(name):
    problems = []
    lines = 0
    for i, cell in enumerate(cells(name)):
        if not shown(cell):
            continue
        code = source(cell)
        lines += len(code.splitlines())
        long = [line for line in code.splitlines() if len(line) > MAX_LINE_LENGTH]
        if long:
            problems.append(f"cell {i}: {len(long)} line(s) over {MAX_LINE_LENGTH} characters, "
                            f"e.g. {long[0][:60]!r}...")
        if "getsource" in code:
            problems.append(f"cell {i}: prints library source; use dtree._book.show_source")
    if lines > MAX_SHOWN_LINES:
        problems.append(f"{lines} lines of code shown (at most {MAX_SHOWN_LINES}): fold checks")
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", fold_cells.notebooks(),
                         ids=lambda path: path.relative_to(ROOT).as_posix())
def test_cells_folded_in_the_book_are_folded_in_jupyterlab(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    problems = fold_cells.disagreements(notebook)
    assert not problems, (
        f"{path.relative_to(ROOT)}: JupyterLab's folds (jupyter.source_hidden/outputs_hidden) "
        "disagree with the tags; run `python book/_ext/fold_cells.py` to write them:\n  "
        + "\n  ".join(problems))


def test_fold_cells_reads_the_tags():
    cell = {"cell_type": "code", "metadata": {"tags": ["hide-cell"]}, "source": ""}
    notebook = {"cells": [cell, {"cell_type": "markdown", "metadata": {}, "source": ""}]}
    assert fold_cells.disagreements(notebook)
    fold_cells.update(notebook)
    assert cell["metadata"]["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert not fold_cells.disagreements(notebook)
    cell["metadata"]["tags"] = []  # unfolded in the book: unfolded in the lab
    assert fold_cells.disagreements(notebook)
    fold_cells.update(notebook)
    assert "jupyter" not in cell["metadata"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_output_shows_a_memory_address(name):
    """E.g. a graphviz.Source as a cell's value: its text form is '<... at 0x7f...>'."""
    for i, cell in enumerate(cells(name)):
        text = json.dumps(cell.get("outputs", []))
        assert not re.search(r" at 0x[0-9a-f]{6,}", text), f"{name}, cell {i}: a memory address"


def test_a_helper_is_defined_in_one_notebook_only():
    where = defaultdict(set)
    for name in NOTEBOOKS:
        for cell in cells(name):
            if cell["cell_type"] != "code":
                continue
            try:
                tree = ast.parse(re.sub(r"^\s*[%!].*$", "", source(cell), flags=re.M))
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    where[node.name].add(name)
    repeated = {f: sorted(names) for f, names in where.items() if len(names) > 1}
    assert not repeated, f"defined in several notebooks (move to dtree): {repeated}"


FILE_NAME = re.compile(r"\bseeds?\s*0\d\d\b|\b0\d\d_[0-9a-f]{16}\b", re.I)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_sources_are_cited_by_name_not_file(name):
    assert not FILE_NAME.search(prose(name)), f"{name}: names a source by its file"


def test_the_bibliography_gives_authors_titles_and_where_to_find():
    bib = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    assert not FILE_NAME.search(bib) and "n.d." not in bib and "Source notes of this book" not in bib
    entries = re.findall(r"@(\w+)\{([^,]+),(.*?)\n\}", bib, flags=re.S)
    keys = [key for _, key, _ in entries]
    assert len(keys) == len(set(keys))
    works = [(re.search(r"title\s*=\s*\{(.*)\},?\n", body) or re.search("", "")).group(0)
             + (re.search(r"author\s*=\s*\{(.*)\},?\n", body) or re.search("", "")).group(0)
             for _, _, body in entries]
    assert len(works) == len(set(works)), "a work listed twice"
    for kind, key, body in entries:
        assert re.search(r"\btitle\s*=", body) and re.search(r"\byear\s*=", body), key
        # where to find it: a journal, proceedings, publisher, DOI or URL; the
        # Chinese source notes say how they were published, and in what language
        assert re.search(r"\b(journal|booktitle|publisher|doi|url|howpublished)\s*=", body), key
        if kind == "misc":
            assert "howpublished" in body and "Chinese" in body, key


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_figures_are_sharp_on_high_dpi_screens(name):
    """A PNG figure is stored at twice the resolution it is shown at ("retina"); trees are SVG."""
    import base64
    import struct

    problems = []
    for i, cell in enumerate(cells(name)):
        for out in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            png = out.get("data", {}).get("image/png")
            if not png:
                continue
            data = base64.b64decode("".join(png) if isinstance(png, list) else png)
            pixels = struct.unpack(">I", data[16:20])[0]          # IHDR width
            shown = out.get("metadata", {}).get("image/png", {}).get("width")
            if not shown or pixels < 2 * int(shown) - 1:
                problems.append(f"cell {i}: a PNG {pixels} px wide shown at {shown or pixels} px "
                                "(call dtree.plotting.use_book_style() before the first figure)")
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


def test_every_theorem_lemma_and_proposition_has_a_test_naming_it():
    """Each {prf:theorem}, lemma, proposition and corollary of the book is stated as a test.

    The test names the label (in its name or docstring) so that a reader of the
    proof can find the check, and a label without one is noticed.
    """
    statement = re.compile(r"(?:```|:::)\{prf:(?:theorem|lemma|proposition|corollary)\}[^\n]*\n"
                           r":label: ([\w-]+)")
    labels = {}
    for name in NOTEBOOKS:
        for label in statement.findall(prose(name)):
            labels[label] = name
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("*.py")
                      if p.name != "test_book_reader.py")
    assert len(labels) >= 50
    missing = {label: name for label, name in labels.items() if label not in tests}
    assert not missing, f"statements that no test names: {missing}"
