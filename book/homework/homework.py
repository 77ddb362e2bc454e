"""Hand out and grade the book's homework with otter-grader.

The homework notebooks in this folder are otter-assign *master* notebooks:
each question carries its reference solution and its checks (public ones,
which students run in JupyterLab with ``grader.check``, and hidden ones, which
only grading runs). This script is the instructor's side of them::

    python book/homework/homework.py assign [NAME ...] [--out DIR]
    python book/homework/homework.py grade NAME SUBMISSIONS [--out CSV] [--timeout SECONDS]

``assign`` runs ``otter assign`` on each master (which also runs every check
against the reference solution and fails if one does not pass) and leaves,
for each NAME, ``DIR/NAME/student/NAME.ipynb`` to hand out and
``DIR/NAME/autograder/autograder.zip`` to grade with.

``grade`` grades every ``*.ipynb`` in the folder SUBMISSIONS (one notebook
per student, the file name being the student's name) and writes one CSV row
per student: the points of each question, the total, and a status. Each
submission runs with ``otter run`` in a process of its own, in a temporary
folder of its own, under a time limit: a submission that raises gets the
points of the checks that still pass, one that runs for longer than the
limit is killed and gets 0 with the status "timeout", and neither affects
the grading of the others. This isolates submissions from one another, not
the machine from a submission: grade untrusted code as an unprivileged user
or in a container (``otter grade`` runs each submission in Docker).

The Makefile wraps both: ``make homework`` and ``make grade HW=NAME
SUBMISSIONS=DIR``; the book's instructor guide explains the workflow.
"""

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import yaml

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parents[1] / "_build" / "homework"
DEFAULT_TIMEOUT = 600  # seconds for one submission, execution and checks together


def masters():
    """The names of the homework master notebooks in this folder, sorted."""
    return sorted(path.stem for path in HERE.glob("*.ipynb"))


def questions(name):
    """``[(question name, points), ...]`` in the order of the master notebook ``name``."""
    found = []
    for cell in nbformat.read(HERE / f"{name}.ipynb", as_version=4).cells:
        if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
            config = yaml.safe_load(cell.source.split("\n", 1)[1])
            found.append((config["name"], float(config["points"])))
    return found


def _otter(*args, **kwargs):
    """Run the otter command line of this Python environment."""
    return subprocess.run([sys.executable, "-m", "otter", *args], **kwargs)


def assign(names, out):
    """Run ``otter assign`` on each master; return ``{name: autograder zip}``."""
    zips = {}
    for name in names:
        if name not in masters():
            raise SystemExit(f"homework: no master notebook {name}.ipynb in {HERE}; there are: {', '.join(masters())}")
        target = Path(out) / name
        shutil.rmtree(target, ignore_errors=True)
        result = _otter("assign", str(HERE / f"{name}.ipynb"), str(target), capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"homework: otter assign failed for {name}:\n{result.stdout}{result.stderr}")
        # otter names the zip after the time it was made; give it a stable name.
        (made,) = (target / "autograder").glob(f"{name}-autograder_*.zip")
        zips[name] = made.rename(made.with_name("autograder.zip"))
        print(f"{name}: hand out {target / 'student' / f'{name}.ipynb'}; grade with {zips[name]}")
    return zips


def grade_one(submission, name, autograder, timeout):
    """Grade one notebook in a fresh folder and process; return ``(scores, status)``.

    ``scores`` maps question names to points (empty when nothing could be
    graded); ``status`` is "graded", "timeout" or "error: <last line of output>".
    """
    with tempfile.TemporaryDirectory(prefix="dtree-grade-") as tmp:
        work = Path(tmp)
        notebook = work / f"{name}.ipynb"
        shutil.copyfile(submission, notebook)
        # A session of its own, so that the time limit kills the submission's
        # kernel and everything it started, not only otter.
        process = subprocess.Popen(
            [sys.executable, "-m", "otter", "run", "--no-logo", "-a", str(autograder), "-o", str(work), str(notebook)],
            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return {}, "timeout"
        results = work / "results.json"
        if process.returncode != 0 or not results.exists():
            last = (output.strip().splitlines() or ["no output"])[-1]
            return {}, f"error: {last}"
        tests = json.loads(results.read_text())["tests"]
        return {test["name"]: float(test["score"]) for test in tests if "score" in test}, "graded"


def grade(name, submissions, out, timeout, autograder=None):
    """Grade every notebook in the folder ``submissions``; write and return the CSV rows."""
    folder = Path(submissions)
    notebooks = sorted(folder.glob("*.ipynb"))
    if not notebooks:
        raise SystemExit(f"homework: no .ipynb files in {folder}")
    if autograder is None:
        autograder = Path(DEFAULT_OUT) / name / "autograder" / "autograder.zip"
        if not autograder.exists():
            autograder = assign([name], DEFAULT_OUT)[name]
    asked = questions(name)
    rows = []
    for notebook in notebooks:
        scores, status = grade_one(notebook, name, autograder, timeout)
        row = {"student": notebook.stem}
        row.update({question: scores.get(question, 0.0) for question, _ in asked})
        row["total"] = sum(row[question] for question, _ in asked)
        row["max_total"] = sum(points for _, points in asked)
        row["status"] = status
        rows.append(row)
        print(f"{notebook.stem}: {row['total']:g} / {row['max_total']:g} ({status})")
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"scores written to {out}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    hand_out = commands.add_parser("assign", help="make the student notebooks and the autograders")
    hand_out.add_argument("names", nargs="*", help=f"homework names (default: all of {', '.join(masters())})")
    hand_out.add_argument("--out", default=DEFAULT_OUT, help="output folder (default: _build/homework)")
    grading = commands.add_parser("grade", help="grade a folder of submitted notebooks into a CSV")
    grading.add_argument("name", choices=masters(), help="which homework")
    grading.add_argument("submissions", help="folder of submitted notebooks, one per student")
    grading.add_argument("--out", default="scores.csv", help="CSV file to write (default: scores.csv)")
    grading.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                         help=f"seconds allowed per submission (default: {DEFAULT_TIMEOUT})")
    grading.add_argument("--autograder", type=Path, help="autograder zip (default: made by assign)")
    args = parser.parse_args(argv)
    if args.command == "assign":
        assign(args.names or masters(), args.out)
    else:
        grade(args.name, args.submissions, args.out, args.timeout, args.autograder)


if __name__ == "__main__":
    main()
