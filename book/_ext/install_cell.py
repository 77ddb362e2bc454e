"""The first cell of every chapter: install dtree where it is missing (Colab).

(Every chapter but the instructors' guide, which needs a clone: CLONE_ONLY.)

A chapter opened in Colab, on Binder or downloaded from the HTML book runs in
an environment that may not have dtree. Its first code cell installs dtree,
with the ``notebooks`` extra (what the chapters import: scikit-learn,
matplotlib, graphviz), from the book's repository, and only when ``import
dtree`` fails: in the project's own environment (``make lab``, ``make test``)
it does nothing and prints nothing. The HTML book hides it (tag
``remove-cell``).

The repository URL and branch have one home, ``repository`` in _config.yml
(which also makes the HTML book's repository, issue, Binder and Colab
buttons); this script writes them into the cells::

    python book/_ext/install_cell.py            # write or refresh the cells
    python book/_ext/install_cell.py --check    # exit 1 if any is missing or stale

``tests/test_book_config.py`` runs the check.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CELL_ID = "install-dtree"
TAG = "remove-cell"


def repository() -> tuple[str, str]:
    """``(url, branch)`` of the book's repository, from _config.yml."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repo = config["repository"]
    return repo["url"].rstrip("/"), repo.get("branch", "main")


def cell_source(url: str, branch: str) -> str:
    """The install cell's code."""
    return (
        "# Where dtree is missing (Colab, a downloaded chapter), install it and what the\n"
        "# chapters import; in the book's own environment this does nothing.\n"
        "try:\n"
        "    import dtree  # noqa: F401 (only whether it imports)\n"
        "except ModuleNotFoundError:\n"
        f'    %pip install --quiet "dtree[notebooks] @ git+{url}@{branch}"'
    )


def toc_notebooks() -> list[Path]:
    """Every notebook of _toc.yml, in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("chapters"))
            walk(entry.get("sections"))

    walk(toc.get("parts"))
    return [ROOT / (name + ".ipynb") for name in files if (ROOT / (name + ".ipynb")).is_file()]


# Pages that need a clone of the repository, not only dtree: the instructors'
# guide imports book/homework/homework.py.
CLONE_ONLY = {"book/instructors.ipynb"}


def chapters() -> list[Path]:
    """Every notebook of the table of contents that has a code cell and can
    run outside a clone."""
    return [
        path for path in toc_notebooks()
        if path.relative_to(ROOT).as_posix() not in CLONE_ONLY
        and any(c["cell_type"] == "code" for c in json.loads(path.read_text("utf-8"))["cells"])
    ]


def wanted_cell(url: str, branch: str) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": CELL_ID,
        "metadata": {"tags": [TAG]},
        "outputs": [],
        "source": cell_source(url, branch).splitlines(keepends=True),
    }


def first_code_index(cells: list[dict]) -> int:
    return next(i for i, c in enumerate(cells) if c["cell_type"] == "code")


def update(path: Path, url: str, branch: str, check: bool) -> bool:
    """Write (or, with `check`, compare) the install cell; True if it was right."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook["cells"]
    cell = wanted_cell(url, branch)
    index = first_code_index(cells)
    current = cells[index]
    ok = current.get("id") == CELL_ID and "".join(current["source"]) == "".join(cell["source"])
    ok = ok and TAG in current.get("metadata", {}).get("tags", [])
    if ok or check:
        return ok
    if current.get("id") == CELL_ID:  # a refresh: keep its place in the run's numbering
        cell["execution_count"] = current.get("execution_count")
    cells[:] = [c for c in cells if c.get("id") != CELL_ID]  # one install cell, first
    cells.insert(first_code_index(cells), cell)
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    url, branch = repository()
    stale = [p for p in chapters() if not update(p, url, branch, args.check)]
    for path in stale:
        verb = "lacks an up-to-date" if args.check else "updated:"
        print(f"{path.relative_to(ROOT)} {verb} install cell", file=sys.stderr)
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
