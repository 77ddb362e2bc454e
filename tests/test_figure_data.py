"""Every figure of the book is regression-tested through the data it draws.

nbval does not compare images (pixels depend on fonts, FreeType and the CPU),
so each figure output of a chapter also holds its figure data: a text
listing of what it shows under :data:`dtree._book.FIGURE_DATA_MIME`, which
nbval compares like any text output (``dtree._book``'s module docstring
describes it).

- Every image output of a notebook carries figure data in the same bundle:
  the DOT source for a Graphviz drawing, :func:`dtree._book.figure_data` for a
  matplotlib figure.
- The HTML book skips no other output: MyST-NB renders every MIME type of the
  committed outputs except the figure data (whose "unknown MIME type"
  notice _config.yml silences).
- A figure of the book drawn again here gives the committed figure data
  (so it does not depend on the kernel, the inline backend or the CPU at
  :data:`dtree._book.FIGURE_DIGITS` digits), and mutants of ``plot_tree`` and
  ``export_graphviz`` (wrong class names, sample or class counts, colours)
  change it.
- Floats that differ in their last bits give the same figure data; a change
  in the 5th significant digit does not.
- End to end: nbval on the ID3 chapter passes, and fails when ``plot_tree``
  reverses the class names (the mutant of the issue that nbval once let
  through).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dtree.export
import dtree.plotting
from dtree import DecisionTreeClassifier, ID3Classifier, export_graphviz, plot_tree
from dtree._book import FIGURE_DATA_MIME, FIGURE_DIGITS, figure_data, show_graphviz
from dtree.datasets import load_animals
from dtree.plotting import use_book_style

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402 (after the importorskip)

# Checks the book's files and its pinned environment, not dtree across versions:
# `make test-compat` leaves the module out.
pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
# The notebooks nbval runs (make test-notebooks): all of book/ but the homework.
NOTEBOOKS = sorted(
    str(path.relative_to(ROOT)) for path in BOOK.rglob("*.ipynb")
    if "homework" not in path.relative_to(BOOK).parts and ".ipynb_checkpoints" not in path.parts
)


def _cells(notebook: str) -> list[dict]:
    return json.loads((ROOT / notebook).read_text(encoding="utf-8"))["cells"]


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def _committed(notebook: str, code: str, image: str) -> str:
    """The figure data stored beside the `image` output of the cell whose source holds `code`."""
    found = [
        _text(out["data"][FIGURE_DATA_MIME])
        for cell in _cells(notebook)
        if cell["cell_type"] == "code" and code in "".join(cell["source"])
        for out in cell.get("outputs", []) if image in out.get("data", {})
    ]
    assert len(found) == 1, f"{notebook}: {len(found)} {image} outputs of a cell with {code!r}"
    return found[0]


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_every_image_output_carries_its_figure_data(notebook):
    problems = []
    for i, cell in enumerate(_cells(notebook)):
        for out in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            data = out.get("data", {})
            images = sorted(key for key in data if key.startswith("image/"))
            if not images:
                continue
            record = _text(data.get(FIGURE_DATA_MIME, ""))
            if "image/svg+xml" in images and not record.startswith("digraph"):
                problems.append(f"cell {i}: an SVG without its DOT source "
                                "(draw it with dtree._book.show_graphviz)")
            elif "image/png" in images and not record.startswith("figure "):
                problems.append(f"cell {i}: a PNG without its figure data "
                                "(call dtree.plotting.use_book_style() before the first figure)")
    assert not problems, f"{notebook}:\n  " + "\n  ".join(problems)


def test_the_html_book_skips_no_other_output():
    """MyST-NB renders every MIME type of the outputs but the figure data (and glue records)."""
    render = pytest.importorskip("myst_nb.core.render")
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]["config"]
    assert "mystnb.unknown_mime_type" in config["suppress_warnings"]
    shown = set(render.get_mime_priority("html", config.get("nb_mime_priority_overrides", [])))
    skipped = set()
    for notebook in NOTEBOOKS:
        for cell in _cells(notebook):
            for out in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
                if "scrapbook" in out.get("metadata", {}):
                    continue  # a glue record: MyST-NB takes it out of the outputs
                data = set(out.get("data", {}))
                if FIGURE_DATA_MIME in data and not data & {"image/png", "image/svg+xml"}:
                    skipped.add(f"{notebook}: figure data without an image")
                skipped |= {f"{notebook}: {key}" for key in data - shown - {FIGURE_DATA_MIME}}
    assert not skipped, sorted(skipped)


# --- Figures of the book drawn again, honestly and by mutants -------------------

def _animal_tree():
    animals = load_animals()
    return ID3Classifier().fit(animals.drop(columns="animal"), animals["animal"])


def _petal_tree():
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split

    iris = load_iris()
    X_train, _, y_train, _ = train_test_split(iris.data, iris.target, test_size=30,
                                              random_state=1)
    return DecisionTreeClassifier(max_depth=3).fit(X_train[:, [2, 3]], y_train), list(
        iris.target_names)


def _id3_plot_tree():
    """fig-id3-animals-plot-tree, as book/part2/id3.ipynb draws it."""
    fig = Figure(figsize=(8, 3.6))
    tree = _animal_tree()
    plot_tree(tree, class_names=tree.classes_, ax=fig.subplots(), filled=True, rounded=True)
    return figure_data(fig)


def _real_data_plot_tree():
    """fig-real-data-plot-tree, as book/part4/real_data.ipynb draws it."""
    tree, classes = _petal_tree()
    fig = Figure(figsize=(9, 4.6))
    plot_tree(tree, feature_names=["petal_length", "petal_width"], class_names=classes,
              filled=True, ax=fig.subplots())
    return figure_data(fig)


def _id3_graphviz():
    """fig-id3-animals-graphviz."""
    tree = _animal_tree()
    return show_graphviz(export_graphviz(tree, class_names=tree.classes_, filled=True,
                                         rounded=True)).figure_data()


def _real_data_graphviz():
    """fig-real-data-graphviz."""
    tree, classes = _petal_tree()
    return show_graphviz(export_graphviz(
        tree, feature_names=["petal_length", "petal_width"], class_names=classes,
        impurity=False, filled=True, rounded=True, rotate=True)).figure_data()


FIGURES = {
    "id3 plot_tree": (_id3_plot_tree, "book/part2/id3.ipynb", "plot_tree(\n    animal_tree",
                      "image/png"),
    "real_data plot_tree": (_real_data_plot_tree, "book/part4/real_data.ipynb", "plot_tree(",
                            "image/png"),
    "id3 graphviz": (_id3_graphviz, "book/part2/id3.ipynb", "animal_tree, class_names",
                     "image/svg+xml"),
    "real_data graphviz": (_real_data_graphviz, "book/part4/real_data.ipynb",
                           "export_graphviz(", "image/svg+xml"),
}
PLOT_TREE = ["id3 plot_tree", "real_data plot_tree"]
GRAPHVIZ = ["id3 graphviz", "real_data graphviz"]


@pytest.fixture
def book_style():
    with matplotlib.rc_context():
        use_book_style()
        yield


def _changed_lines(drawn: str, committed: str) -> list[str]:
    return sorted(set(drawn.splitlines()) - set(committed.splitlines()))


@pytest.mark.parametrize("name", FIGURES)
def test_a_figure_drawn_again_gives_the_committed_figure_data(book_style, name):
    draw, notebook, code, image = FIGURES[name]
    assert draw() == _committed(notebook, code, image)


def _reverse_class_names(monkeypatch):
    box_labels = dtree.plotting.box_labels

    def reversed_names(estimator, *, class_names, **kwargs):
        return box_labels(estimator, class_names=list(class_names)[::-1], **kwargs)

    monkeypatch.setattr(dtree.plotting, "box_labels", reversed_names)
    return r"class = "


def _miscount_samples(monkeypatch):
    node_text = dtree.plotting._node_text

    def one_more(*args, **kwargs):
        return re.sub(r"samples = (\d+)",
                      lambda m: f"samples = {int(m.group(1)) + 1}", node_text(*args, **kwargs))

    monkeypatch.setattr(dtree.plotting, "_node_text", one_more)
    return r"samples = "


def _pale_fills(monkeypatch):
    over_white = dtree.export._over_white  # the one colour builder's last step
    monkeypatch.setattr(dtree.export, "_over_white", lambda rgb, alpha: over_white(rgb, alpha / 2))
    return r" box #"


@pytest.mark.parametrize("name", PLOT_TREE)
@pytest.mark.parametrize("mutant", [_reverse_class_names, _miscount_samples, _pale_fills])
def test_a_plot_tree_mutant_changes_the_figure_data(book_style, monkeypatch, name, mutant):
    draw, notebook, code, image = FIGURES[name]
    committed = _committed(notebook, code, image)
    what = mutant(monkeypatch)
    drawn = draw()
    assert drawn != committed
    changed = _changed_lines(drawn, committed)
    assert changed and all(re.search(what, line) for line in changed), changed


def _export_majority_of_the_last_class(monkeypatch):
    box_class_names = dtree.export._box_class_names
    monkeypatch.setattr(dtree.export, "_box_class_names",
                        lambda estimator, class_names:
                        box_class_names(estimator, class_names)[-1:] * estimator.n_classes_)
    return r"class = "


def _export_reversed_counts(monkeypatch):
    value_text = dtree.export._value_text
    monkeypatch.setattr(dtree.export, "_value_text",
                        lambda value, *args, **kwargs: value_text(value[::-1], *args, **kwargs))
    return r"value = "


def _export_opaque_fills(monkeypatch):
    over_white = dtree.export._over_white
    monkeypatch.setattr(dtree.export, "_over_white", lambda rgb, alpha: over_white(rgb, 1.0))
    return r"fillcolor="


@pytest.mark.parametrize("name", GRAPHVIZ)
@pytest.mark.parametrize("mutant", [_export_majority_of_the_last_class,
                                    _export_reversed_counts, _export_opaque_fills])
def test_an_export_graphviz_mutant_changes_the_figure_data(monkeypatch, name, mutant):
    draw, notebook, code, image = FIGURES[name]
    committed = _committed(notebook, code, image)
    what = mutant(monkeypatch)
    drawn = draw()
    assert drawn != committed
    changed = _changed_lines(drawn, committed)
    assert changed and all(re.search(what, line) for line in changed), changed


# --- The stated precision -------------------------------------------------------

def _line_figure(y, label="gain"):
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.plot(np.linspace(0, 1, y.size), y, label=label)
    ax.scatter(y[:5], y[5:10])
    ax.set(xlim=(0, 1), ylim=(-0.1, 1.1))
    ax.legend()
    return figure_data(fig)


def test_figure_data_is_kept_at_the_stated_precision():
    rng = np.random.default_rng(0)
    y = np.sort(rng.uniform(size=400))
    y[:3] = 0.0
    exact = _line_figure(y)
    # another CPU's summation order: the last bits, and round-off noise for zeros
    last_bits = y * (1 + rng.choice([-1, 1], size=y.size) * 2.0**-52)
    last_bits[:3] = [1e-17, -2e-17, 0.0]
    assert _line_figure(last_bits) == exact
    assert f"floats at {FIGURE_DIGITS} significant digits" in exact.splitlines()[0]
    # a real change: one value in its 5th significant digit, or a label
    changed = y.copy()
    changed[200] *= 1 + 1e-4
    assert _line_figure(changed) != exact
    assert _line_figure(y, label="gains") != exact


def test_short_arrays_are_listed_and_long_ones_summarised():
    data = figure_data(_figure_with_lines([0.5, 0.25], np.linspace(0, 1, 101)))
    assert "x [0 1] y [0.5 0.25]" in data
    assert re.search(r"y <101 values in \[0, 1\], sha256 [0-9a-f]{12}>", data)


def _figure_with_lines(short, long):
    fig = Figure()
    ax = fig.subplots()
    ax.plot([0, 1], short)
    ax.plot(np.linspace(0, 1, len(long)), long)
    return fig


# --- End to end: nbval on a chapter ---------------------------------------------

MUTANT = '''
import dtree.plotting

box_labels = dtree.plotting.box_labels


def _reversed_class_names(estimator, *, class_names, **kwargs):
    return box_labels(estimator, class_names=list(class_names)[::-1], **kwargs)


dtree.plotting.box_labels = _reversed_class_names
'''


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [False, True])
def test_nbval_on_the_id3_chapter_catches_a_plot_tree_mutant(tmp_path, mutant):
    """The kernel imports a sitecustomize module that reverses plot_tree's class names."""
    pytest.importorskip("nbval")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    folder = tmp_path / "book"
    folder.mkdir()
    shutil.copy(BOOK / "conftest.py", folder / "conftest.py")
    shutil.copytree(BOOK / "_ext", folder / "_ext")      # what the conftest imports
    shutil.copy(BOOK / "part2" / "id3.ipynb", folder / "id3.ipynb")
    env = dict(__import__("os").environ)
    if mutant:
        (tmp_path / "site").mkdir()
        (tmp_path / "site" / "sitecustomize.py").write_text(MUTANT, encoding="utf-8")
        env["PYTHONPATH"] = f"{tmp_path / 'site'}:{ROOT}:{env.get('PYTHONPATH', '')}"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--nbval", "--nbval-current-env", "--nbval-sanitize-with",
         str(ROOT / ".nbval-sanitize.cfg"), "--rootdir", str(tmp_path), str(folder)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env, check=False,
    )
    if not mutant:
        assert run.returncode == 0, run.stdout[-3000:]
        return
    assert run.returncode != 0, "nbval passed a plot_tree that reverses the class names"
    failed = re.findall(r"^FAILED .*::Cell (\d+)", run.stdout, flags=re.MULTILINE)
    assert failed, run.stdout[-3000:]
    assert FIGURE_DATA_MIME in run.stdout and "class = " in run.stdout, run.stdout[-3000:]
