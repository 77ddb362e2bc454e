"""The homework as instructors and students use it (book/homework, otter-grader).

* ``assign`` makes every student notebook and autograder; otter assign runs
  every check against the reference solution and fails if one does not pass.
* Each student notebook, as handed out (empty bodies), fails every question:
  run in a kernel, each ``grader.check`` cell reports the failed checks with
  their messages; graded, it scores 0.
* The reference solution filled in scores full marks on every question,
  hidden checks included.
* Grading a folder of three submissions (correct; wrong and raising; looping
  forever) writes the expected CSV, and the endless one is stopped by the
  time limit without affecting the others.
"""

import csv
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("homework", ROOT / "book" / "homework" / "homework.py")
homework = importlib.util.module_from_spec(spec)
spec.loader.exec_module(homework)

NAMES = homework.masters()
TIMEOUT = 120  # seconds per submission: a correct one needs ~15 s, more on a busy machine


@pytest.fixture(scope="module")
def assigned(tmp_path_factory):
    """``{name: (student notebook, autograder notebook, autograder zip)}`` for every homework."""
    out = tmp_path_factory.mktemp("homework")
    zips = homework.assign(NAMES, out)
    return {name: (out / name / "student" / f"{name}.ipynb", out / name / "autograder" / f"{name}.ipynb", zips[name])
            for name in NAMES}


def test_every_homework_is_found():
    assert NAMES == ["cart", "gain", "impurity"]
    for name in NAMES:
        assert homework.questions(name), f"{name} has no questions"
        assert all(points > 0 for _, points in homework.questions(name))


def test_unknown_homework_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="no master notebook nope.ipynb"):
        homework.assign(["nope"], tmp_path)


def _solution_free(path):
    """True if the student notebook has neither solution markers nor hidden checks (in cells or metadata)."""
    text = path.read_text()
    return "SOLUTION" not in text and '"hidden": true' not in text and '"hidden": false' in text


@pytest.mark.parametrize("name", NAMES)
def test_student_notebook_fails_its_checks_as_handed_out(assigned, name, tmp_path):
    student, _, _ = assigned[name]
    assert _solution_free(student)
    notebook = nbformat.read(student, as_version=4)
    # Run it as a student would in JupyterLab: every grader.check cell prints
    # which checks failed and the message that says why.
    work = tmp_path / student.name
    shutil.copyfile(student, work)
    NotebookClient(notebook, timeout=TIMEOUT, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    feedback = {}
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.startswith("grader.check("):
            question = cell.source.split('"')[1]
            feedback[question] = "".join(output.get("data", {}).get("text/plain", "") + output.get("text", "")
                                         for output in cell.outputs)
    asked = [question for question, _ in homework.questions(name)]
    assert sorted(feedback) == sorted(asked)
    for question, text in feedback.items():
        assert "Test case failed" in text, f"{name}/{question}: no failed check reported:\n{text}"
        assert "message:" in text, f"{name}/{question}: the failure does not say why:\n{text}"
    # Graded, it scores nothing.
    scores, status = homework.grade_one(student, name, assigned[name][2], TIMEOUT)
    assert status == "graded"
    assert {question: scores[question] for question in asked} == {question: 0.0 for question in asked}


@pytest.mark.parametrize("name", NAMES)
def test_reference_solution_scores_full_marks(assigned, name):
    _, reference, autograder = assigned[name]
    scores, status = homework.grade_one(reference, name, autograder, TIMEOUT)
    assert status == "graded"
    assert {question: scores[question] for question, _ in homework.questions(name)} == dict(homework.questions(name))


def _edit(notebook, marker, source):
    """Replace the source of the first code cell containing ``marker``."""
    cell = next(cell for cell in notebook.cells if cell.cell_type == "code" and marker in cell.source)
    cell.source = source


def test_grading_a_folder_of_submissions(assigned, tmp_path):
    student, reference, autograder = assigned["gain"]
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    # alice: the reference solution.
    shutil.copyfile(reference, submissions / "alice.ipynb")
    # bob: entropy ignores `base` (fails the nats checks, passes the rest of
    # question 1), and his joint_entropy cell raises: that question scores 0,
    # the cells after it still run.
    bob = nbformat.read(reference, as_version=4)
    entropy_cell = next(cell for cell in bob.cells if "def entropy" in cell.source)
    entropy_cell.source = entropy_cell.source.replace("np.log(base)", "np.log(2)")
    _edit(bob, "def joint_entropy", "raise NotImplementedError('I ran out of time')")
    nbformat.write(bob, submissions / "bob.ipynb")
    # carol: loops forever at the top level of her first answer.
    carol = nbformat.read(student, as_version=4)
    _edit(carol, "def entropy", "while True:\n    pass")
    nbformat.write(carol, submissions / "carol.ipynb")

    scores_csv = tmp_path / "scores.csv"
    homework.grade("gain", submissions, scores_csv, timeout=TIMEOUT, autograder=autograder)
    with open(scores_csv, newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}

    points = dict(homework.questions("gain"))
    assert list(next(iter(rows.values()))) == ["student", *points, "total", "max_total", "status"]
    assert sorted(rows) == ["alice", "bob", "carol"]
    assert rows["alice"]["status"] == "graded"
    assert {q: float(rows["alice"][q]) for q in points} == points
    # bob: 4 of the 5 entropy checks pass (3 points shared out evenly), the
    # base-e check of conditional_entropy is one of its 3 (the hidden one
    # compares both bases: 2 of 3 pass), gains and ratios never use `base`,
    # and joint_entropy is undefined.
    assert rows["bob"]["status"] == "graded"
    assert float(rows["bob"]["entropy"]) == pytest.approx(3 * 4 / 5)
    assert float(rows["bob"]["conditional_entropy"]) == pytest.approx(3 * 2 / 3)
    assert float(rows["bob"]["gain_and_ratio"]) == points["gain_and_ratio"]
    assert float(rows["bob"]["joint_entropy"]) == 0.0
    assert rows["carol"]["status"] == "timeout"
    assert float(rows["carol"]["total"]) == 0.0
    for row in rows.values():
        assert float(row["total"]) == pytest.approx(sum(float(row[q]) for q in points))
        assert float(row["max_total"]) == sum(points.values())


def test_grade_refuses_an_empty_folder(tmp_path):
    with pytest.raises(SystemExit, match="no .ipynb files"):
        homework.grade("gain", tmp_path, tmp_path / "scores.csv", timeout=TIMEOUT, autograder=tmp_path / "none.zip")


def test_command_line_usage():
    script = ROOT / "book" / "homework" / "homework.py"
    result = subprocess.run([sys.executable, str(script), "grade", "nope", "x"], capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice" in result.stderr
