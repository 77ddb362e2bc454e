"""A student's "Run All" in a real JupyterLab.

Starts JupyterLab on loopback over a temporary copy of ``book/`` in which the
notebooks have no outputs, opens the chapter in Chromium, runs Run > Run All
Cells through the menu (the kernel is started by the server, its messages travel over the server's
websocket, exactly as for a reader), saves, reads the saved notebook back
through the server's contents API and compares its outputs with the committed
ones the way nbval does: ``text/plain`` (and the hidden
``application/papermill.record/text/plain`` records of ``dtree._book.glue``)
and stream text, with the project's nbval sanitize patterns applied and floats
compared at 12 significant digits (``book/conftest.py``); execution counts,
metadata and images are not compared.

Why the UI rather than the kernel REST/websocket API: the point is the path a
student takes; driving the interface also proves the frontend assets load
offline, the notebook opens with the right kernel and saving works.

The notebook is ``BOOK_LAB_NOTEBOOK`` (default ``book/first_tree.ipynb``).

Then every chapter of the book (every notebook in ``_toc.yml``) as a student
sees it with the ``jupyterlab-myst`` renderer: opened, Run All, saved. Its
rendered Markdown must show no raw MyST syntax (directive fences, roles,
labels) and no "Unknown Directive" box, its code cells are folded where the
HTML book folds them (``jupyter.source_hidden``), its display equations are
numbered (1), (2), ... in order as in the HTML book, and every number the prose quotes
(``{eval}`glued(...)```, see ``dtree._book``) must have been evaluated by the
kernel to the value the committed notebook records. Every figure shows as an
image, and its figure data (``dtree._book.FIGURE_DATA_MIME``) does not show.
"""

from __future__ import annotations

import ast
import configparser
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from dtree._book import stated_precision_text

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = os.environ.get("BOOK_LAB_NOTEBOOK", "book/first_tree.ipynb")
START_TIMEOUT_S = 120
RUN_TIMEOUT_MS = 600_000  # the book's per-notebook execution timeout

# JupyterLab runs as students get it: no user settings of the test's own, only
# what the environment ships.  The book's settings (.binder/overrides.json:
# every cell attached, so that Markdown cells below the viewport render their
# quoted numbers) are installed by `make lab`, `make browser-test` and Binder's
# postBuild into the environment's share/jupyter/lab/settings/overrides.json.
BOOK_LAB_OVERRIDES = ROOT / ".binder" / "overrides.json"
INSTALLED_LAB_OVERRIDES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 over a copy of book/.

    Yields ``(base_url, token)``; the server is always shut down.
    """
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    shutil.copytree(
        ROOT / "book",
        root / "book",
        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "_build", "__pycache__"),
    )
    # The appendix's speed page reads the committed benchmark runs, beside book/
    # in a clone (dtree._book.repository_file("benchmarks/results.csv")), and its
    # Release 8 page counts the agreement with Release 8 from tests/release8.
    shutil.copytree(ROOT / "benchmarks", root / "benchmarks")
    shutil.copytree(ROOT / "tests" / "release8", root / "tests" / "release8",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The student's copy has no outputs and no execution counts: whatever the
    # saved notebook holds afterwards was computed and saved by JupyterLab.
    for copy in (root / "book").rglob("*.ipynb"):
        blank = nbformat.read(copy, as_version=4)
        for cell in blank.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nbformat.write(blank, copy)

    if not INSTALLED_LAB_OVERRIDES.is_file() or json.loads(
        INSTALLED_LAB_OVERRIDES.read_text()
    ) != json.loads(BOOK_LAB_OVERRIDES.read_text()):
        pytest.fail(
            f"{INSTALLED_LAB_OVERRIDES} is missing or differs from {BOOK_LAB_OVERRIDES}: "
            "the environment lacks the book's JupyterLab settings; `make browser-test` "
            "(or `make lab`) installs them",
            pytrace=False,
        )
    # An empty folder: none of the developer's own settings.
    settings = tmp / "settings"
    settings.mkdir()

    runtime = tempfile.mkdtemp(prefix="jr-")
    port, token = _free_port(), secrets.token_hex(24)
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabServerApp.user_settings_dir={settings}",
        f"--LabServerApp.workspaces_dir={tmp / 'workspaces'}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # No calls to PyPI from the extension manager: the test is offline.
        "--LabApp.extension_manager=readonly",
        # Kernels on Unix domain sockets (files in the runtime directory),
        # not TCP ports, which the other worker's kernels may race for
        # (book/_ext/unix_socket_kernels.py).
        "--KernelManager.transport=ipc",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--ServerApp.allow_root=True")  # CI containers run as root
    env = {
        **os.environ,
        # Nothing from the user's own Jupyter configuration or runtime files.
        "JUPYTER_CONFIG_DIR": str(tmp / "config"),
        # Short: a kernel's socket files are "<dir>/kernel-<id>-ipc-<n>", and
        # a Unix socket's path has at most 107 bytes.
        "JUPYTER_RUNTIME_DIR": runtime,
        # The kernel must be this interpreter (the venv with dtree).
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    log_path = tmp / "jupyterlab.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for_status(base, token, server, log_path)
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(runtime, ignore_errors=True)


def _api(base: str, token: str, path: str, put=None):
    """GET `path` of the server's REST API (or PUT the JSON `put` there)."""
    request = urllib.request.Request(
        f"{base}{path}", headers={"Authorization": f"token {token}"},
        method="PUT" if put is not None else "GET",
        data=None if put is None else json.dumps(put).encode(),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def _wait_for_status(base, token, server, log_path):
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(
                f"JupyterLab exited with code {server.returncode}:\n"
                + log_path.read_text(errors="replace")[-3000:],
                pytrace=False,
            )
        try:
            _api(base, token, "/api/status")
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.5)
    pytest.fail(
        f"JupyterLab did not answer /api/status within {START_TIMEOUT_S} s:\n"
        + log_path.read_text(errors="replace")[-3000:],
        pytrace=False,
    )


# Comparison, as nbval does it -------------------------------------------------


def _sanitizers() -> list[tuple[re.Pattern, str]]:
    """The regex/replace pairs of the project's nbval sanitize file."""
    parser = configparser.ConfigParser()
    parser.read(ROOT / ".nbval-sanitize.cfg")
    return [
        (re.compile(parser[section]["regex"]), parser[section]["replace"])
        for section in parser.sections()
    ]


def comparable_outputs(cell, sanitizers=()) -> list:
    """The parts of a code cell's outputs that nbval compares.

    Consecutive stream outputs of one stream are merged (a kernel may split
    them differently from run to run); rich outputs keep their MIME types and
    the text of every ``.../text/plain`` one; errors keep name and value.
    """

    def clean(text: str) -> str:
        for regex, replace in sanitizers:
            text = regex.sub(replace, text)
        return stated_precision_text(text)  # as book/conftest.py has nbval do

    result: list = []
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            if result and result[-1][0] == "stream" and result[-1][1] == output["name"]:
                result[-1] = ("stream", output["name"], result[-1][2] + output["text"])
            else:
                result.append(("stream", output["name"], output["text"]))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            texts = {k: clean(v) for k, v in sorted(data.items()) if k.endswith("text/plain")}
            result.append(("rich", sorted(data), texts))
        elif kind == "error":
            result.append(("error", output["ename"], clean(output["evalue"])))
    return [
        (entry[0], entry[1], clean(entry[2])) if entry[0] == "stream" else entry
        for entry in result
    ]


def test_comparable_outputs_merges_streams_and_ignores_counts():
    """The comparison itself: what must match and what may differ."""
    a = nbformat.v4.new_code_cell(execution_count=3, outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="a\n"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "1", "image/png": "AAA"},
                               execution_count=3),
    ])
    b = nbformat.v4.new_code_cell(execution_count=7, outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="a\nb\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "1", "image/png": "BBB"},
                               execution_count=7),
    ])
    assert comparable_outputs(a) == comparable_outputs(b)
    b.outputs[1]["data"]["text/plain"] = "2"
    assert comparable_outputs(a) != comparable_outputs(b)
    b.outputs[1]["data"]["text/plain"] = "1"
    b.outputs[0]["name"] = "stderr"
    assert comparable_outputs(a) != comparable_outputs(b)


# The test -----------------------------------------------------------------------

# Done when no cell is queued or running ("[*]") and at least one has run:
# after a clean run every prompt is numbered; after an error Run All stops and
# the rest stay "[ ]" (the saved notebook then shows which).
RUN_FINISHED = """
() => {
  const prompts = [...document.querySelectorAll(
    ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt")].map(p => p.textContent);
  return prompts.length > 0 && !prompts.some(p => p.includes("*"))
    && prompts.some(p => /\\[\\d+\\]/.test(p));
}
"""


QUOTES_RENDER_MS = 30_000
QUOTES_RENDERED = """
() => ![...document.querySelectorAll(
    ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .jp-InputArea > .myst")
  ].some(e => e.textContent.includes("glued("))
"""


def _open_run_all_and_save(page, base, token, notebook, has_code=True) -> list[str]:
    """Open `notebook` in JupyterLab, Run > Run All Cells, File > Save Notebook,
    through the menus as a student does; return the rendered Markdown cells' text."""
    # "reset": a fresh workspace, not the tabs an earlier page left open.
    page.goto(f"{base}/lab/tree/{quote(notebook)}?reset&token={token}", timeout=120_000)
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first.wait_for(
        timeout=120_000
    )
    # The kernel the server started is connected once the status bar says
    # "Python 3 (ipykernel) | Idle" (the toolbar's indicator is "idle" earlier,
    # while there is no kernel yet, and a Run All then does nothing).
    kernel_idle = page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$"))
    kernel_idle.wait_for(timeout=120_000)

    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    if has_code:
        page.wait_for_function(RUN_FINISHED, timeout=RUN_TIMEOUT_MS, polling=500)
    kernel_idle.wait_for(timeout=RUN_TIMEOUT_MS)
    # jupyterlab-myst shows an inline expression's result a moment after the
    # kernel sent it (seen under load: several seconds for the Markdown cells
    # after a slow code cell); wait up to QUOTES_RENDER_MS for every quote, then
    # read what is shown (a quote still raw then fails the test).
    try:
        page.wait_for_function(QUOTES_RENDERED, timeout=QUOTES_RENDER_MS, polling=500)
    except PlaywrightTimeoutError:
        pass
    rendered = page.evaluate(RENDERED_MARKDOWN)

    # File > Save Notebook, then wait until the tab is no longer dirty.
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^File$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Save Notebook$")).click()
    page.locator(".lm-TabBar-tab.jp-mod-dirty").wait_for(state="detached", timeout=60_000)
    return rendered


def test_run_all_in_jupyterlab_reproduces_committed_outputs(
    lab, browser, offline_context, screenshot_dir
):
    base, token = lab
    context, offline = offline_context
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    shot = screenshot_dir / "jupyterlab" / Path(NOTEBOOK).with_suffix(".png").name
    shot.parent.mkdir(parents=True, exist_ok=True)

    try:
        before = _api(base, token, f"/api/contents/{quote(NOTEBOOK)}?content=0")["last_modified"]
        _open_run_all_and_save(page, base, token, NOTEBOOK)
    finally:
        page.screenshot(path=str(shot))

    model = _api(base, token, f"/api/contents/{quote(NOTEBOOK)}?content=1&type=notebook")
    assert model["last_modified"] != before, "JupyterLab did not save the notebook"
    ran = nbformat.from_dict(model["content"])
    committed = nbformat.read(ROOT / NOTEBOOK, as_version=4)

    ran_code = [c for c in ran.cells if c.cell_type == "code"]
    committed_code = [c for c in committed.cells if c.cell_type == "code"]
    assert [c.source for c in ran_code] == [c.source for c in committed_code], (
        "the notebook JupyterLab saved has other code cells than the committed one"
    )
    not_run = [i for i, c in enumerate(ran_code) if c.execution_count is None]
    errors = [
        f"cell {i}: {o.ename}: {o.evalue}"
        for i, c in enumerate(ran_code)
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors, f"{NOTEBOOK}: errors in JupyterLab's run: {errors}"
    assert not not_run, f"{NOTEBOOK}: code cells never executed: {not_run}"

    sanitizers = _sanitizers()
    mismatches = []
    for index, (got, want) in enumerate(zip(ran_code, committed_code)):
        got_outputs = comparable_outputs(got, sanitizers)
        want_outputs = comparable_outputs(want, sanitizers)
        if got_outputs != want_outputs:
            mismatches.append(
                f"code cell {index} ({got.source.splitlines()[0][:60]!r}):\n"
                f"    JupyterLab: {got_outputs!r}\n    committed:  {want_outputs!r}"
            )
    assert not mismatches, f"{NOTEBOOK}: outputs differ from the committed ones:\n" + "\n".join(
        mismatches
    )
    assert not offline.blocked, f"JupyterLab requested non-loopback URLs: {offline.blocked}"
    assert not page_errors, f"uncaught JavaScript errors in JupyterLab: {page_errors}"


# Every chapter, rendered as a student sees it ------------------------------------


def _fold_cells():
    """book/_ext/fold_cells.py: which cells the HTML book folds (by their tags)."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import fold_cells
    finally:
        sys.path.pop(0)
    return fold_cells


def _toc_notebooks() -> list[str]:
    """The notebooks of the book's table of contents, in reading order."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        from install_cell import toc_notebooks
    finally:
        sys.path.pop(0)
    return [path.relative_to(ROOT).as_posix() for path in toc_notebooks()]


CHAPTERS = _toc_notebooks()

# Raw MyST that a reader must never see in rendered Markdown: directive fences,
# roles, label targets and display-math fences.
# (In rendered text a role's backticks are gone: an unrendered role reads
# "{eval}glued(...)", its content set as code.)
RAW_MYST = re.compile(
    r":::\{|```\{|\{(?:glue|eval|eq|prf:ref|numref|ref|doc|term|footcite|cite|func|class|"
    r"mod|meth)[:a-z]*\}|\bglued\(|^\([\w:.-]+\)=\s*$|^\$\$",
    re.MULTILINE,
)
GLUED = re.compile(r'\{eval\}`(glued\("([A-Za-z0-9_]+)"(?:, "([^"`]*)")?\))`')

# jupyterlab-myst renders a Markdown cell into a ".myst" element beside the
# (hidden) editor, not into JupyterLab's own ".jp-MarkdownOutput".  Its text is
# read with the typeset maths hidden (KaTeX's MathML copy of "I(x) =" would
# read as a MyST label).
RENDERED_MARKDOWN = """
() => {
  const style = document.createElement("style");
  style.textContent = ".jp-MarkdownCell .myst .katex { display: none !important; }";
  document.head.appendChild(style);
  const texts = [...document.querySelectorAll(
      ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .jp-InputArea > .myst")
    ].map(e => e.innerText);
  style.remove();
  return texts;
}
"""

# The number jupyterlab-myst shows beside each display equation, in reading
# order (None for an unnumbered one).
EQUATION_NUMBERS = r"""
() => [...document.querySelectorAll(
    ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell .myst .katex-display")
  ].map(math => {
    const row = math.closest(".flex");
    const link = row ? row.querySelector("a[title='Link to this Equation']") : null;
    const match = link ? link.textContent.match(/^\((\d+)\)$/) : null;
    return match ? Number(match[1]) : null;
  })
"""

# What each code cell's output area shows: its text and how many images. A
# figure's output holds an image and its figure data (dtree._book.FIGURE_DATA_MIME),
# for which JupyterLab has no renderer: the image must show, the data not.
SHOWN_OUTPUTS = """
() => [...document.querySelectorAll(
    ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-OutputArea-output")
  ].map(e => ({text: e.innerText, images: e.querySelectorAll("img").length}))
"""
# Code cells whose input JupyterLab shows folded (a placeholder instead of the
# editor), in notebook order: those the HTML book folds (book/_ext/fold_cells.py).
FOLDED_INPUTS = """
() => [...document.querySelectorAll(
    ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell")
  ].map(cell => cell.querySelector(".jp-InputPlaceholder") !== null)
"""
FIGURE_DATA_SHOWN = re.compile(r"significant digits|digraph Tree|No renderer|figure-data")


def _recorded(notebook) -> dict[str, str]:
    """Name -> the record ``dtree._book.glue`` stored in the committed outputs."""
    records = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                records[name] = output["data"]["application/papermill.record/text/plain"]
    return records


def _as_number(text: str):
    try:
        return float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return None


def _expected_text(record: str, format_spec: str) -> str:
    """What ``glued(name, format_spec)`` shows for a value stored as `record`."""
    value = ast.literal_eval(record) if record[:1] in "'\"" else record
    for parse in (int, float):
        try:
            value = parse(record)
            break
        except ValueError:
            pass
    return format(value, format_spec)


def _last_place(text: str) -> float:
    """One unit in the last digit shown by a formatted number ("0.349" -> 0.001)."""
    mantissa, _, exponent = text.replace(",", "").rstrip("%").lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def _same_quote(got: str, want: str) -> bool:
    """Equal text, or numbers that differ by at most one unit in the last digit
    shown: `want` is formatted from a record kept at 12 significant digits, and
    a value on a rounding boundary (0.34875 at ".4f") may round either way."""
    if got == want:
        return True
    if got == want + ".0":  # a whole float: str(75.0), recorded at 12 digits as "75"
        return True
    a, b = _as_number(got), _as_number(want)
    if a is None or b is None or "." not in want:  # integers and words are exact
        return False
    return abs(a - b) <= _last_place(want) * (1 + 1e-9) + 1e-9 * max(abs(a), abs(b))


def test_quote_comparison():
    assert _expected_text("0.156483557479", ".3f") == "0.156"
    assert _expected_text("14", "") == "14" and _expected_text("'outlook'", "") == "outlook"
    assert _expected_text("0.25", ".1%") == "25.0%"
    assert _same_quote("0.15648355747948203", "0.156483557479")
    assert _same_quote("0.3487", "0.3488") and _same_quote("1.3e-05", "1.2e-05")
    assert not _same_quote("0.3486", "0.3488") and not _same_quote("a", "b")
    assert not _same_quote("15", "14") and not _same_quote("1,001", "1,000")
    assert _same_quote("75.0", "75") and not _same_quote("76.0", "75")
    assert RAW_MYST.search('the gain is {eval}glued("gain", ".3f") bits')
    assert RAW_MYST.search("see {prf:ref}thm-gain-kl") and RAW_MYST.search("(sec-x)=\n")
    assert not RAW_MYST.search("a set {1, 2} and f(x) = 3 (see Theorem 1)")
    assert not _same_quote("0.158", "0.156") and not _same_quote("25.2%", "25.0%")


def _shut_down_sessions(base, token):
    for session in _api(base, token, "/api/sessions"):
        request = urllib.request.Request(
            f"{base}/api/sessions/{session['id']}", method="DELETE",
            headers={"Authorization": f"token {token}"},
        )
        urllib.request.urlopen(request, timeout=30).close()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_renders_in_jupyterlab(chapter, lab, browser, offline_context, screenshot_dir):
    base, token = lab
    context, offline = offline_context
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    # jupyterlab-myst typesets with KaTeX, which lacks some of MathJax's TeX
    # (\textsc): it logs the formula and shows it in red.
    tex_errors: list[str] = []
    page.on("console", lambda msg: tex_errors.extend(
        line for line in msg.text.splitlines() if "Undefined control sequence" in line
    ) if msg.type == "error" else None)
    shot = screenshot_dir / "jupyterlab" / (chapter.replace("/", "__")[:-6] + ".png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    committed = nbformat.read(ROOT / chapter, as_version=4)
    has_code = any(c.cell_type == "code" for c in committed.cells)

    # The student's copy: no outputs (an earlier test may have run and saved it).
    blank = nbformat.from_dict(json.loads(json.dumps(committed)))
    for cell in blank.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    _api(base, token, f"/api/contents/{quote(chapter)}",
         {"type": "notebook", "format": "json", "content": blank})
    try:
        rendered = _open_run_all_and_save(page, base, token, chapter, has_code=has_code)
        shown = page.evaluate(SHOWN_OUTPUTS)
        folded = page.evaluate(FOLDED_INPUTS)
        numbers = page.evaluate(EQUATION_NUMBERS)
    finally:
        page.screenshot(path=str(shot), full_page=True)
        page.close()
        try:
            _shut_down_sessions(base, token)
        except OSError as error:  # never hide the test's own failure
            print(f"could not shut down the kernels: {error}")

    problems = []
    want_folded = [bool(_fold_cells().wanted(c).get("source_hidden"))
                   for c in committed.cells if c.cell_type == "code"]
    if folded != want_folded:
        problems.append(
            f"code cells folded in JupyterLab {[i for i, f in enumerate(folded) if f]}, "
            f"folded in the book {[i for i, f in enumerate(want_folded) if f]}")
    markdown_cells = sum(c.cell_type == "markdown" and bool(c.source.strip())
                         for c in committed.cells)
    if len(rendered) != markdown_cells:
        problems.append(f"{len(rendered)} rendered Markdown cells found, the notebook has "
                        f"{markdown_cells}")
    # The HTML book numbers the same equations the same way (test_pages.py).
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"display equations numbered {numbers}, not 1 to {len(numbers)} in order")
    for index, text in enumerate(rendered):
        for match in RAW_MYST.finditer(text):
            problems.append(f"rendered Markdown cell {index} shows raw MyST {match.group(0)!r}")
        for line in text.splitlines():
            if "Unknown Directive" in line or "Unknown Role" in line:
                problems.append(f"rendered Markdown cell {index}: {line.strip()!r}")

    model = _api(base, token, f"/api/contents/{quote(chapter)}?content=1&type=notebook")
    saved = nbformat.from_dict(model["content"])
    figures = sum(any(key.startswith("image/") for key in output.get("data", {}))
                  for cell in saved.cells if cell.cell_type == "code" for output in cell.outputs)
    if sum(output["images"] for output in shown) != figures:
        problems.append(f"{figures} figure outputs, "
                        f"{sum(output['images'] for output in shown)} images shown")
    problems += [f"an output shows figure data: {output['text'][:80]!r}"
                 for output in shown if FIGURE_DATA_SHOWN.search(output["text"])]
    for index, cell in enumerate(c for c in saved.cells if c.cell_type == "code"):
        for output in cell.outputs:
            if output.output_type == "error":
                problems.append(f"code cell {index}: {output.ename}: {output.evalue}")
        if cell.execution_count is None:
            problems.append(f"code cell {index} never ran")
            break
    records = _recorded(committed)
    quoted = 0
    for index, cell in enumerate(saved.cells):
        if cell.cell_type != "markdown":
            continue
        results = {
            entry["expression"]: entry["result"]
            for entry in cell.metadata.get("user_expressions", [])
        }
        for expression, name, format_spec in GLUED.findall(cell.source):
            quoted += 1
            result = results.get(expression)
            if result is None or result.get("status") != "ok":
                problems.append(f"cell {index}: {expression} was not evaluated: {result!r}")
                continue
            got = ast.literal_eval(result["data"]["text/plain"])
            want = _expected_text(records[name], format_spec or "")
            if not _same_quote(got, want):
                problems.append(f"cell {index}: {expression} shows {got!r}, recorded {want!r}")
    problems += [f"maths KaTeX cannot typeset: {line[:120]}" for line in sorted(set(tex_errors))]
    assert not problems, f"{chapter} in JupyterLab:\n" + "\n".join(problems)
    assert quoted or not records, f"{chapter} glues numbers that its prose never quotes"
    assert not offline.blocked, f"JupyterLab requested non-loopback URLs: {offline.blocked}"
    assert not page_errors, f"uncaught JavaScript errors in JupyterLab: {page_errors}"
