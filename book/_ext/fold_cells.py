"""Cells folded in the HTML book are folded in JupyterLab too.

The HTML book folds a code cell by its tag (``hide-input``, ``hide-cell``,
``hide-output``: sphinx-togglebutton's toggles; ``remove-input`` shows no
code at all); JupyterLab does not read tags, it reads the cell metadata
``jupyter.source_hidden`` and ``jupyter.outputs_hidden`` (nbformat's
documented keys for a collapsed input and output).  This script writes that
metadata from the tags, so that the two agree::

    python book/_ext/fold_cells.py                 # write it into every notebook
    python book/_ext/fold_cells.py --check         # exit 1 if any notebook disagrees
    python book/_ext/fold_cells.py book/part1/entropy.ipynb   # only these

``tests/test_book_reader.py`` runs the check over every notebook under book/.
A cell folded in JupyterLab without a tag (folded by hand in the lab and
saved) is a disagreement as well: the tag is the one place the fold is
decided.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Tag -> the JupyterLab metadata it implies.
SOURCE_HIDDEN = {"hide-input", "hide-cell", "remove-input"}
OUTPUTS_HIDDEN = {"hide-output", "hide-cell"}


def notebooks() -> list[Path]:
    """Every notebook under book/ (not checkpoints or build output)."""
    return sorted(
        path for path in (ROOT / "book").rglob("*.ipynb")
        if not {".ipynb_checkpoints", "_build"} & set(path.parts)
    )


def wanted(cell: dict) -> dict:
    """The ``jupyter`` metadata the cell's tags imply (without other keys)."""
    tags = set(cell.get("metadata", {}).get("tags", []))
    folded = {}
    if cell["cell_type"] == "code" and tags & SOURCE_HIDDEN:
        folded["source_hidden"] = True
    if cell["cell_type"] == "code" and tags & OUTPUTS_HIDDEN:
        folded["outputs_hidden"] = True
    return folded


def disagreements(notebook: dict) -> list[str]:
    """The cells whose ``jupyter`` metadata and tags disagree, described."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        current = cell.get("metadata", {}).get("jupyter", {})
        want = wanted(cell)
        for key in ("source_hidden", "outputs_hidden"):
            if bool(current.get(key)) != bool(want.get(key)):
                tags = cell.get("metadata", {}).get("tags", [])
                found.append(f"cell {index} (id {cell.get('id')}, tags {tags}): "
                             f"jupyter.{key} is {current.get(key)!r}, "
                             f"its tags say {want.get(key, False)!r}")
    return found


def update(notebook: dict) -> None:
    """Set (or remove) each cell's ``jupyter.source_hidden``/``outputs_hidden``."""
    for cell in notebook["cells"]:
        metadata = cell.setdefault("metadata", {})
        jupyter = {k: v for k, v in metadata.get("jupyter", {}).items()
                   if k not in ("source_hidden", "outputs_hidden")}
        jupyter.update(wanted(cell))
        if jupyter:
            metadata["jupyter"] = jupyter
        else:
            metadata.pop("jupyter", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if any disagrees")
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: all under book/)")
    args = parser.parse_args(argv)
    stale = 0
    for path in [p.resolve() for p in args.paths] or notebooks():
        text = path.read_text(encoding="utf-8")
        notebook = json.loads(text)
        problems = disagreements(notebook)
        if not problems:
            continue
        stale += 1
        if args.check:
            print(f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(problems), file=sys.stderr)
            continue
        update(notebook)
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: folds updated", file=sys.stderr)
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
