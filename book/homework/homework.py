"""Hand out the book's homework with otter-grader and grade it in sandboxes.

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
per student: the points of each question, the total, and a status. Grading
does not use ``otter run``, whose checks run inside the student's kernel,
where a submission can patch them. Instead:

* each submission runs in a bubblewrap sandbox of its own (``sandbox.py``):
  no network, no other process, no view of the repository, the checks, the
  grader or the other submissions, a private copy of its notebook, limits
  on memory, CPU time, disk and processes, and everything it started is
  killed at its time limit;
* after its notebook has run, the checks (otter's OK-format files from the
  autograder, hidden ones included, run by otter's own ``OKTestFile``) run
  here, in the grader's process, on the homework's setup code and the
  student's answers, which they call through a channel that carries only
  data (``sandbox_runner.py``); while they run, the student's code may not
  call dtree or scikit-learn beyond the functions :data:`ALLOWED` names;
* the status is "graded", "timeout" (the limit was reached: 0 points),
  "tampering: ..." (what was detected: a refused library call, an import of
  otter's internals, a malformed message; the points are what the checks
  gave, which the attempt cannot have raised) or "error: ..." (the
  sandbox ended early);
* the CSV is written once, after every sandbox is gone.

The Makefile wraps both: ``make homework`` and ``make grade HW=NAME
SUBMISSIONS=DIR``; the book's instructor guide explains the workflow.
"""

import argparse
import csv
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # sandbox.py and sandbox_runner.py

import sandbox  # noqa: E402
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


# Library functions a submission may call, per homework: exact public names,
# each a function that takes and returns data (no pattern, no module, no
# private name: what a name reaches is what is listed). dtree and
# scikit-learn are not in the sandbox: their imports give stubs, and a call of
# an allowed function is run by the grader on data arguments only; any other
# call raises in the submission (and is reported when an answer makes it
# while the checks run), so an answer that wraps a library's tree or
# delegates to dtree.information fails its checks. The homework's
# instructions name what is allowed.
DATASETS = tuple(f"dtree.datasets.{function}" for function in
                 ("load_animals", "load_weather", "load_student_scores", "load_iris", "make_xor"))
ALLOWED = {
    "gain": [*DATASETS, "dtree.information.contingency_table"],
    "impurity": [*DATASETS, "dtree.information.contingency_table"],
    "cart": [*DATASETS],
}


def _master_cells(name):
    """``[(cell, question or None, in a solution block), ...]`` of the master notebook ``name``."""
    cells, question, solution = [], None, False
    for cell in nbformat.read(HERE / f"{name}.ipynb", as_version=4).cells:
        if cell.cell_type == "raw":
            first = cell.source.strip().split("\n", 1)[0]
            if first == "# BEGIN QUESTION":
                question = yaml.safe_load(cell.source.split("\n", 1)[1])["name"]
            elif first == "# END QUESTION":
                question = None
            elif first == "# BEGIN SOLUTION":
                solution = True
            elif first == "# END SOLUTION":
                solution = False
            continue
        cells.append((cell, question, solution))
    return cells


def setup_code(name):
    """The code cells of master ``name`` outside its questions: what the checks run before them."""
    return "\n\n".join(cell.source for cell, question, _ in _master_cells(name)
                        if cell.cell_type == "code" and question is None)


def answer_names(name):
    """The names the solutions of master ``name`` define at top level (what the checks call)."""
    import ast

    names = []
    for cell, _, solution in _master_cells(name):
        if cell.cell_type != "code" or not solution:
            continue
        for node in ast.parse(cell.source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.append(node.name)
            elif isinstance(node, ast.Assign):
                names.extend(target.id for target in node.targets if isinstance(target, ast.Name))
    return list(dict.fromkeys(names))


def _checks(autograder):
    """``{question: OKTestFile}`` read from the autograder zip (hidden checks included)."""
    import zipfile

    from otter.test_files import OKTestFile

    found = {}
    with zipfile.ZipFile(autograder) as archive:
        for member in sorted(archive.namelist()):
            if member.startswith("tests/") and member.endswith(".py"):
                namespace = {}
                exec(archive.read(member).decode(), namespace)  # otter's own OK-format file
                test_file = OKTestFile.from_spec(namespace["test"], path=member)
                found[test_file.name] = test_file
    return found


def grade_one(submission, name, autograder, timeout, memory=None):
    """Grade one notebook in a sandbox of its own; return ``(scores, status)``.

    The submission's cells run in a bubblewrap sandbox (``sandbox.py``);
    the checks of the autograder run here, in the grader's process, after
    the notebook has run: they call the submission's answers through the
    grading channel and get plain data back, so the submission can neither
    see nor patch them. ``scores`` maps question names to points (empty when
    nothing could be graded); ``status`` is "graded", "timeout",
    "tampering: <what was detected>" (the scores are those the checks gave:
    what was detected had no effect on them) or "error: <why the sandbox
    ended>".
    """
    deadline = time.monotonic() + timeout
    limits = {} if memory is None else {"memory": memory}
    wanted = answer_names(name)
    try:
        submission_box = sandbox.Submission(submission, name, deadline, allowed=ALLOWED.get(name, []), **limits)
    except sandbox.NotASubmission as why:
        return {}, f"error: {why}"
    try:
        try:
            answers = submission_box.start(name, wanted, sandbox.LIBRARIES, ALLOWED.get(name, []))
        except sandbox.SubmissionGone as gone:
            return {}, "timeout" if submission_box.timed_out else str(gone)
        checks = _checks(autograder)  # loaded only now, after the submission's code has run
        scores = {}
        for question, test_file in checks.items():
            environment = {}
            exec(compile(setup_code(name), f"<{name} setup>", "exec"), environment)
            environment.update(answers)
            test_file.run(environment)
            scores[question] = float(test_file.score)
            if submission_box.ended is not None:
                break
    finally:
        submission_box.close()
    if submission_box.timed_out:
        return {}, "timeout"
    problems = list(submission_box.tampering)
    problems += [f"graded code called {function}" for function in submission_box.refused]
    if problems:
        return scores, "tampering: " + "; ".join(problems)
    if submission_box.ended is not None:
        return scores, submission_box.ended
    return scores, "graded"


def spreadsheet_safe(value):
    """``value`` as a CSV cell that a spreadsheet shows as text, never runs as a formula.

    Control characters (tabs, carriage returns and escape sequences
    included) become spaces, and a text that then begins with ``=``, ``+``,
    ``-`` or ``@`` (a student's file name, a status quoting the submission)
    gets a leading apostrophe (OWASP's rule against CSV injection); numbers
    are left as they are.
    """
    if not isinstance(value, str):
        return value
    value = sandbox._printable(value)
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


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
    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as error:
        raise SystemExit(f"homework: {error}") from None
    rows = []
    # A grader stopped by SIGTERM still kills its sandbox and removes its cgroup.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for notebook in notebooks:
        started = time.monotonic()
        try:
            scores, status = grade_one(notebook, name, autograder, timeout)
        except Exception as error:  # one submission never stops the class's grading
            scores, status = {}, f"error: grader: {type(error).__name__}: {sandbox._printable(str(error))[:200]}"
        row = {"student": notebook.stem}
        row.update({question: scores.get(question, 0.0) for question, _ in asked})
        row["total"] = sum(row[question] for question, _ in asked)
        row["max_total"] = sum(points for _, points in asked)
        row["status"] = status
        rows.append(row)
        print(f"{sandbox._printable(notebook.stem)}: {row['total']:g} / {row['max_total']:g} "
              f"({sandbox._printable(status)}) in {time.monotonic() - started:.1f} s")
    # Written once, after every sandbox is gone, and replaced in one step.
    partial = Path(f"{out}.partial")
    with open(partial, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({key: spreadsheet_safe(value) for key, value in row.items()} for row in rows)
    partial.replace(out)
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
