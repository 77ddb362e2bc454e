"""Time a Run All of every notebook of the book, as a reader's kernel runs it.

Issue 22 asks that every chapter run in at most 30 s (Run All).  Each notebook
of the table of contents (``_toc.yml``), or each one named on the command line,
is run top to bottom by nbclient in a fresh ``python3`` kernel, from its own
folder, as JupyterLab's *Run All Cells* runs it.  The time is the reader's
wait: from the start of the first code cell to the end of the last one, read
from the cells' execution timestamps (the kernel's start-up is not in it: a
reader's kernel is running before Run All).  The best of ``--repeat`` runs is
kept, and the slowest cell of that run is named.

    .venv/bin/python benchmarks/bench_chapters.py --csv results_chapters.csv
    .venv/bin/python benchmarks/bench_chapters.py book/part3/prepruning.ipynb

Nothing here is asserted: the times are measurements to read, not tests.  Run
it on an idle machine: chapters that fit trees in parallel (joblib) use every
core.
"""

from __future__ import annotations

import argparse
import os
from datetime import datetime
from pathlib import Path

from bench_fit import environment

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 30.0
CSV_COLUMNS = ["notebook", "code_cells", "run_all_s", "slowest_cell", "slowest_cell_s",
               "dtree_version", "sklearn_version", "numpy_version", "python_version", "machine"]


def toc_notebooks(root=ROOT):
    """The notebooks of ``_toc.yml``, in its order, as paths relative to ``root``."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(entries):                     # chapters, and the sections of a chapter
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    return [f"{name}.ipynb" for name in files if (root / f"{name}.ipynb").exists()]


def _seconds(start, end):
    return (datetime.fromisoformat(end.replace("Z", "+00:00"))
            - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()


def run_all(path):
    """Run the notebook ``path``; return (code cells, Run All seconds, slowest cell, its seconds).

    The slowest cell is named by its cell id.
    """
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(Path(path).parent)}})
    client.execute()
    timed = [(i, cell.metadata["execution"]) for i, cell in enumerate(nb.cells)
             if cell.cell_type == "code" and "execution" in cell.metadata]
    if not timed:
        return 0, 0.0, "", 0.0
    first, last = timed[0][1], timed[-1][1]
    total = _seconds(first["iopub.execute_input"], last["shell.execute_reply"])
    cell, seconds = max(((i, _seconds(e["iopub.execute_input"], e["shell.execute_reply"]))
                         for i, e in timed), key=lambda item: item[1])
    return len(timed), total, nb.cells[cell].get("id", str(cell)), seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*",
                        help="notebooks to run (default: every notebook of _toc.yml)")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--csv", metavar="PATH", help="also write the rows to this CSV file")
    args = parser.parse_args(argv)

    machine = environment()     # the versions and the machine, as in the other benchmarks
    names = args.notebooks or toc_notebooks()
    rows = []
    print(f"{'notebook':<40}{'cells':>6}{'Run All (s)':>13}{'slowest cell (s)':>18}", flush=True)
    for name in names:
        path = Path(name) if Path(name).is_absolute() or Path(name).exists() else ROOT / name
        runs = [run_all(path) for _ in range(args.repeat)]
        cells, total, slowest, slowest_s = min(runs, key=lambda run: run[1])
        label = os.path.relpath(path.resolve(), ROOT)
        flag = "  over the goal" if total > GOAL_S else ""
        print(f"{label:<40}{cells:>6}{total:>13.1f}{slowest_s:>12.1f} ({slowest}){flag}",
              flush=True)
        rows.append({"notebook": label, "code_cells": cells, "run_all_s": round(total, 1),
                     "slowest_cell": slowest, "slowest_cell_s": round(slowest_s, 1), **machine})
    if args.csv:
        import csv

        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    return rows


if __name__ == "__main__":
    main()
