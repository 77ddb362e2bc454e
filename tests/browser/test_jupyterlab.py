"""A student's "Run All" in a real JupyterLab.

Starts JupyterLab on loopback over a temporary copy of ``book/`` in which the
chapter notebook has no outputs, opens it in Chromium, runs Run > Run All Cells through the menu (the
kernel is started by the server, its messages travel over the server's
websocket, exactly as for a reader), saves, reads the saved notebook back
through the server's contents API and compares its outputs with the committed
ones the way nbval does: ``text/plain`` (and glue's
``application/papermill.record/text/plain``) and stream text, with the
project's nbval sanitize patterns applied; execution counts, metadata and
images are not compared.

Why the UI rather than the kernel REST/websocket API: the point is the path a
student takes; driving the interface also proves the frontend assets load
offline, the notebook opens with the right kernel and saving works.

The notebook is ``BOOK_LAB_NOTEBOOK`` (default ``book/first_tree.ipynb``).
"""

from __future__ import annotations

import configparser
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = os.environ.get("BOOK_LAB_NOTEBOOK", "book/first_tree.ipynb")
START_TIMEOUT_S = 120
RUN_TIMEOUT_MS = 600_000  # the book's per-notebook execution timeout

# JupyterLab user settings for the test server: no news prompt, no update
# check, and every cell kept in the DOM (no windowing) so prompts can be read.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
    },
}


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
    # The student's copy has no outputs and no execution counts: whatever the
    # saved notebook holds afterwards was computed and saved by JupyterLab.
    copy = root / NOTEBOOK
    blank = nbformat.read(copy, as_version=4)
    for cell in blank.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(blank, copy)

    settings = tmp / "settings"
    for name, value in LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))

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
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--ServerApp.allow_root=True")  # CI containers run as root
    env = {
        **os.environ,
        # Nothing from the user's own Jupyter configuration or runtime files.
        "JUPYTER_CONFIG_DIR": str(tmp / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
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


def _api(base: str, token: str, path: str):
    request = urllib.request.Request(
        f"{base}{path}", headers={"Authorization": f"token {token}"}
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
        return text

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
        page.goto(f"{base}/lab/tree/{quote(NOTEBOOK)}?token={token}", timeout=120_000)
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell").first.wait_for(
            timeout=120_000
        )
        # The kernel the server started is connected once the status bar says
        # "Python 3 (ipykernel) | Idle" (the toolbar's indicator is "idle" earlier,
        # while there is no kernel yet, and a Run All then does nothing).
        kernel_idle = page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$"))
        kernel_idle.wait_for(timeout=120_000)

        # Run > Run All Cells, as a student would.
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        page.wait_for_function(RUN_FINISHED, timeout=RUN_TIMEOUT_MS, polling=500)
        kernel_idle.wait_for(timeout=RUN_TIMEOUT_MS)

        # File > Save Notebook, then wait until the tab is no longer dirty.
        before = _api(base, token, f"/api/contents/{quote(NOTEBOOK)}?content=0")["last_modified"]
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^File$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Save Notebook$")).click()
        page.locator(".lm-TabBar-tab.jp-mod-dirty").wait_for(state="detached", timeout=60_000)
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
