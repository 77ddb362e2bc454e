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
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

# Sandboxed grading of the homework (bubblewrap): most of `make test-unit`'s time;
# `make test-fast` and `make test-compat` leave it out.
pytestmark = pytest.mark.homework

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


HOSTILE = ROOT / "tests" / "hostile_homework"
# Seconds per submission in the class folder: an honest one needs 1.0-2.4 s on an
# idle machine, and two submissions wait the whole limit out.  Not less: the fork
# bomb's grading once took over 15 s in a fresh-clone CI run (its processes share
# the two cores with the kernel that answers) and scored 0.
FOLDER_TIMEOUT = 30


def _hack(path, **places):
    """``(header, code)`` of a hostile cell in tests/hostile_homework, its {placeholders} filled in."""
    first, code = path.read_text().split("\n", 1)
    header = dict(item.strip().split(": ") for item in first.lstrip("# ").split(";"))
    for key, value in places.items():
        code = code.replace("{" + key + "}", str(value))
    return header, code


def _with_cell(notebook, code, at_start):
    """A copy of ``notebook`` with a code cell ``code`` after its setup cell or at its end."""
    notebook = nbformat.from_dict(json.loads(json.dumps(notebook)))
    cell = nbformat.v4.new_code_cell(code)
    if at_start:
        setup = next(i for i, c in enumerate(notebook.cells) if c.cell_type == "code" and "import numpy" in c.source)
        notebook.cells.insert(setup + 1, cell)
    else:
        notebook.cells.append(cell)
    return notebook


def _host_processes(marker):
    """Command lines of this machine's processes that contain ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in command and entry.name != str(os.getpid()):
            found.append(command)
    return found


@pytest.fixture(scope="module")
def graded_class(assigned, tmp_path_factory):
    """A class folder of honest and hostile submissions to gain, graded once: its rows, files and timings."""
    student, reference, autograder = assigned["gain"]
    root = tmp_path_factory.mktemp("class")
    submissions, scores_csv = root / "submissions", root / "scores.csv"
    submissions.mkdir()
    shutil.copyfile(reference, submissions / "alice.ipynb")
    shutil.copyfile(reference, submissions / "zoe.ipynb")
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
    # Honest notebooks the grader once scored 0: one carrying 70 MB of
    # outputs, one in nbformat 3 (Jupyter opens it), and names that a
    # spreadsheet would run as a formula or a terminal as an escape sequence.
    heavy = nbformat.read(reference, as_version=4)
    heavy.cells[0 if heavy.cells[0].cell_type == "code" else 1].outputs = [
        nbformat.v4.new_output("display_data", data={"text/plain": "x" * (70 << 20)})]
    nbformat.write(heavy, submissions / "heavy.ipynb")
    nbformat.write(nbformat.convert(nbformat.read(reference, as_version=4), 3), submissions / "old_format.ipynb",
                   version=3)
    shutil.copyfile(reference, submissions / f"{FORMULA_NAME}.ipynb")
    shutil.copyfile(reference, submissions / f"{ESCAPE_NAME}.ipynb")
    # Files that are not notebooks: links to the master notebook and to a
    # classmate's, a FIFO (opening it would wait forever) and a folder.
    (submissions / "link_master.ipynb").symlink_to(ROOT / "book" / "homework" / "gain.ipynb")
    (submissions / "link_classmate.ipynb").symlink_to(submissions / "alice.ipynb")
    os.mkfifo(submissions / "fifo.ipynb")
    (submissions / "folder.ipynb").mkdir()
    bases = {"student": nbformat.read(student, as_version=4), "reference": nbformat.read(reference, as_version=4)}
    places = {"scores": scores_csv, "submissions": submissions, "grader_pid": os.getpid(), "repository": ROOT}
    for path in sorted(HOSTILE.glob("*.py")):
        header, code = _hack(path, **places)
        if header.get("homework", "gain") == "gain":
            notebook = _with_cell(bases[header["base"]], code, at_start=header["base"] == "reference"
                                  and "def " not in code and "class " not in code)
            nbformat.write(notebook, submissions / f"{path.stem}.ipynb")
    zoe_before = (submissions / "zoe.ipynb").read_bytes()
    started = time.monotonic()
    homework.grade("gain", submissions, scores_csv, timeout=FOLDER_TIMEOUT, autograder=autograder)
    elapsed = time.monotonic() - started
    written = scores_csv.read_bytes()
    time.sleep(3)  # the daemon would rewrite the scores every second
    with open(scores_csv, newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    return {"rows": rows, "submissions": submissions, "zoe_before": zoe_before, "elapsed": elapsed,
            "written": written, "scores_csv": scores_csv, "count": len(list(submissions.glob("*.ipynb")))}


FORMULA_NAME = '=HYPERLINK("evil.invalid","click")'
ESCAPE_NAME = "\x1b[2Jclear"


def _scores(row):
    return {question: float(row[question]) for question, _ in homework.questions("gain")}


FULL = dict(homework.questions("gain"))
NOTHING = dict.fromkeys(FULL, 0.0)


def test_honest_submissions_are_graded(graded_class):
    rows = graded_class["rows"]
    assert list(next(iter(rows.values()))) == ["student", *FULL, "total", "max_total", "status"]
    assert {"alice", "bob", "carol", "zoe"} <= set(rows)
    for student in ("alice", "zoe"):
        assert rows[student]["status"] == "graded"
        assert _scores(rows[student]) == FULL
    # bob: 4 of the 5 entropy checks pass (3 points shared out evenly), the
    # base-e check of conditional_entropy is one of its 3 (the hidden one
    # compares both bases: 2 of 3 pass), gains and ratios never use `base`,
    # and joint_entropy is undefined.
    assert rows["bob"]["status"] == "graded"
    assert float(rows["bob"]["entropy"]) == pytest.approx(3 * 4 / 5)
    assert float(rows["bob"]["conditional_entropy"]) == pytest.approx(3 * 2 / 3)
    assert float(rows["bob"]["gain_and_ratio"]) == FULL["gain_and_ratio"]
    assert float(rows["bob"]["joint_entropy"]) == 0.0
    # The grader reads only the code of a notebook, older formats converted.
    for student in ("heavy", "old_format"):
        assert (rows[student]["status"], _scores(rows[student])) == ("graded", FULL), student
    # Names are written as text: a formula gets an apostrophe, control characters become spaces.
    assert (rows["'" + FORMULA_NAME]["status"], _scores(rows["'" + FORMULA_NAME])) == ("graded", FULL)
    assert (rows[" [2Jclear"]["status"], _scores(rows[" [2Jclear"])) == ("graded", FULL)
    assert "\x1b" not in graded_class["written"].decode()
    assert rows["carol"]["status"] == "timeout"
    assert float(rows["carol"]["total"]) == 0.0
    for row in rows.values():
        assert float(row["total"]) == pytest.approx(sum(float(row[q]) for q in FULL))
        assert float(row["max_total"]) == sum(FULL.values())


# What each hostile submission must score: as if its attack did nothing.
EXPECTED = {
    "patch": (NOTHING, "tampering: imported otter.test_files"),
    "rewrite": (NOTHING, "graded"),
    "copy": (NOTHING, "graded"),
    "thief": (NOTHING, "graded"),
    "vandal": (FULL, "graded"),
    "daemon": (FULL, "graded"),
    "killer": (FULL, "graded"),
    "forkbomb": (FULL, "graded"),
    "memory_hog": (FULL, "graded"),
    "disk_hog": (FULL, "graded"),
    "staller": (NOTHING, "timeout"),
    "delegate": (NOTHING, "tampering: graded code called dtree.information."),
    "forger": (NOTHING, "tampering: the grading channel carried something that is not a message"),
    "escape": (NOTHING, "graded"),
    "escape_channel": (NOTHING, "tampering: a library call the homework does not allow came through the channel"),
    "mutate": (NOTHING, "graded"),
    "host_paths": (FULL, "graded"),
}
# Files in the class folder that are not notebooks to run: scored 0, said why.
NOT_NOTEBOOKS = {
    "link_master": "error: the submission is a symbolic link, not a file",
    "link_classmate": "error: the submission is a symbolic link, not a file",
    "fifo": "error: the submission is not a regular file",
    "folder": "error: the submission is not a regular file",
}


def test_hostile_submissions_gain_nothing(graded_class):
    rows = graded_class["rows"]
    hostile = {path.stem for path in HOSTILE.glob("*.py") if "homework: cart" not in path.read_text()}
    assert hostile == set(EXPECTED)
    for student, (scores, status) in EXPECTED.items():
        assert _scores(rows[student]) == scores, (student, rows[student])
        assert rows[student]["status"].startswith(status), (student, rows[student]["status"])
    for student, status in NOT_NOTEBOOKS.items():
        assert (_scores(rows[student]), rows[student]["status"]) == (NOTHING, status), student


def test_hostile_submissions_harm_nobody(graded_class):
    submissions = graded_class["submissions"]
    # The vandal could not touch zoe's notebook, the disk hog wrote nothing
    # into the folder, and the daemon never rewrote the scores.
    assert (submissions / "zoe.ipynb").read_bytes() == graded_class["zoe_before"]
    assert not (submissions / "hog.bin").exists()
    # Nothing ran on the host on a submission's behalf (the escape's shell would have left this file).
    assert not Path(f"{graded_class['scores_csv']}.escaped").exists()
    assert graded_class["scores_csv"].read_bytes() == graded_class["written"]
    # Nothing outlived its sandbox: no daemon, no bomb, no sleeper, no cgroup.
    assert _host_processes("sleep 100000") == []
    assert _host_processes("bomb") == []
    assert [p for p in _host_processes("bwrap") if "--die-with-parent" in p] == []
    assert not list(Path("/sys/fs/cgroup").glob("**/dtree-grade-*"))
    # The grader was neither stalled nor killed: three submissions ran into
    # the time limit (carol, the staller, the forger's sleep is cut short by
    # the refused message), every other one finished.
    # (The FIFO did not stall it: reading one would wait forever.)
    assert graded_class["elapsed"] < 3 * FOLDER_TIMEOUT + 20 * graded_class["count"]


@pytest.mark.parametrize("hack", ["wrapper_dtree", "wrapper_sklearn", "wrapper_compiled"])
def test_wrappers_around_a_library_tree_fail(assigned, hack, tmp_path):
    _, reference, autograder = assigned["cart"]
    header, code = _hack(HOSTILE / f"{hack}.py")
    assert header["homework"] == "cart"
    notebook = _with_cell(nbformat.read(reference, as_version=4), code, at_start=False)
    nbformat.write(notebook, tmp_path / "cart.ipynb")
    scores, status = homework.grade_one(tmp_path / "cart.ipynb", "cart", autograder, TIMEOUT)
    points = dict(homework.questions("cart"))
    assert scores == {**points, "classifier": 0.0}
    library = "sklearn" if hack == "wrapper_sklearn" else "dtree"
    assert status.startswith(f"tampering: graded code called {library}."), status


def test_grade_refuses_an_empty_folder(tmp_path):
    with pytest.raises(SystemExit, match="no .ipynb files"):
        homework.grade("gain", tmp_path, tmp_path / "scores.csv", timeout=TIMEOUT, autograder=tmp_path / "none.zip")


def test_command_line_usage():
    script = ROOT / "book" / "homework" / "homework.py"
    result = subprocess.run([sys.executable, str(script), "grade", "nope", "x"], capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice" in result.stderr


# The grading channel: values cross it as data, and the grader refuses
# anything else with ChannelError (a submission cannot make it decode an
# object, an unbounded value or a callback of its own).
wire = homework.sandbox.wire


def _round_trip(value):
    handles = []
    tree = wire.encode(value, lambda obj: handles.append(obj) or len(handles))
    return wire.decode(json.loads(json.dumps(tree)), lambda n: handles[n - 1])


def test_channel_round_trips_the_values_checks_use():
    import numpy as np
    import pandas as pd

    assert _round_trip(None) is None and _round_trip(True) is True
    assert type(_round_trip(3)) is int and _round_trip(2**80) == 2**80
    assert _round_trip(0.1) == 0.1 and np.isnan(_round_trip(float("nan")))
    assert _round_trip((1, [2.5, "a"], {"k": (None,)})) == (1, [2.5, "a"], {"k": (None,)})
    for array in (np.arange(6.0).reshape(2, 3), np.array([True, False]), np.array([1, 2], dtype=np.int32),
                  np.array(["a", None], dtype=object), np.array(["yes", "no"])):
        back = _round_trip(array)
        assert back.dtype == array.dtype and back.shape == array.shape and (back == array).all()
    assert _round_trip(np.float64(0.25)) == 0.25 and isinstance(_round_trip(np.float64(0.25)), np.float64)
    series = pd.Series(["sunny", "rain"], name="outlook", index=[3, 7])
    pd.testing.assert_series_equal(_round_trip(series), series)
    function = _round_trip(len)
    assert function is len  # not data: sent as a handle


@pytest.mark.parametrize("tree", [
    {"pickle": "gASV"},  # no other kinds of value
    {"v": [1, 2]},  # a bare JSON list is not a value
    {"int": "1" * 5000},  # an integer too long to be an answer
    {"ndarray": {"dtype": "|O", "shape": [1], "data": ""}},  # object arrays only item by item
    {"ndarray": {"dtype": "<f8", "shape": [3], "data": "AAAAAAAAAAA="}},  # data shorter than the shape
    {"ndarray": {"dtype": "<f8", "shape": [-1], "data": ""}},
    {"dict": [[{"list": []}, {"v": 1}]]},  # an unhashable key
    {"v": 1, "int": "1"},
])
def test_channel_refuses_what_is_not_a_value(tree):
    with pytest.raises(wire.ChannelError):
        wire.decode(tree, lambda n: None)


def test_channel_refuses_deep_nesting():
    tree = {"v": None}
    for _ in range(wire.MAX_DEPTH + 5):
        tree = {"list": [tree]}
    with pytest.raises(wire.ChannelError, match="nested too deeply"):
        wire.decode(tree, lambda n: None)


def test_grading_without_bubblewrap_says_how_to_get_it(assigned, tmp_path, monkeypatch):
    monkeypatch.setattr(homework.sandbox.shutil, "which", lambda name: None)
    shutil.copyfile(assigned["gain"][0], tmp_path / "alice.ipynb")
    with pytest.raises(SystemExit, match="apt-get install bubblewrap"):
        homework.grade("gain", tmp_path, tmp_path / "scores.csv", timeout=TIMEOUT, autograder=assigned["gain"][2])
    assert not (tmp_path / "scores.csv").exists()


def test_an_answer_that_changes_its_arguments_fails_that_check(assigned, tmp_path):
    """The checks' arrays are copied into the sandbox; an answer that changes its copy in place fails."""
    _, reference, autograder = assigned["impurity"]
    notebook = nbformat.read(reference, as_version=4)
    cell = next(cell for cell in notebook.cells if "def effective_weights" in cell.source)
    cell.source = cell.source.replace("weights = np.asarray(sample_weight, dtype=float)",
                                      "weights = np.asarray(sample_weight, dtype=float)\n    weights *= 1.0001")
    assert "weights *= 1.0001" in cell.source
    nbformat.write(notebook, tmp_path / "impurity.ipynb")
    scores, status = homework.grade_one(tmp_path / "impurity.ipynb", "impurity", autograder, TIMEOUT)
    assert status == "graded"
    assert scores["class_weight"] < dict(homework.questions("impurity"))["class_weight"]


def test_a_full_request_pipe_does_not_stall_the_grader(assigned, tmp_path):
    """A submission that shrinks its request pipe and never reads it: the grader's write times out."""
    student, _, _ = assigned["gain"]
    notebook = nbformat.read(student, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(
        "import fcntl, sys, time\n"
        "def entropy(p, base=2):\n"
        "    time.sleep(1000)\n"
        "fcntl.fcntl(int(sys.argv[1]), 1031, 4096)  # F_SETPIPE_SZ\n"))
    nbformat.write(notebook, tmp_path / "gain.ipynb")
    box = homework.sandbox.Submission(tmp_path / "gain.ipynb", "gain", time.monotonic() + 15,
                                      allowed=homework.ALLOWED["gain"])
    started = time.monotonic()
    try:
        answers = box.start("gain", ["entropy"], homework.sandbox.LIBRARIES, homework.ALLOWED["gain"])
        with pytest.raises(homework.sandbox.SubmissionGone, match="timeout"):
            answers["entropy"](list(range(100000)))
    finally:
        box.close()
    assert box.timed_out and time.monotonic() - started < 30


def test_the_allowed_library_calls_are_exact_public_functions():
    """No pattern, module or private name: each entry is one public function of dtree."""
    import importlib

    for allowed in homework.ALLOWED.values():
        for qualified in allowed:
            assert not any(ch in qualified for ch in "*?[]"), qualified
            module, _, function = qualified.rpartition(".")
            assert not any(part.startswith("_") for part in qualified.split(".")), qualified
            target = getattr(importlib.import_module(module), function)
            assert callable(target) and not isinstance(target, type(importlib)), qualified
            assert function in importlib.import_module(module).__all__, qualified


def test_a_call_names_its_changed_arguments():
    """An answer's in-place change is found on the values the submission received and sent back."""
    import numpy as np
    import pandas as pd

    sandbox = homework.sandbox
    changed, not_data = sandbox._changed, sandbox._not_data

    def round_trip(value, change=None):  # what the sandbox receives, changes and sends back
        received = wire.decode(json.loads(json.dumps(wire.encode(value, not_data))), lambda n: None)
        if change is not None:
            change(received)
        return json.loads(json.dumps(wire.encode(received, not_data)))

    frame = pd.DataFrame({"a": [1.0, np.nan], "b": ["x", "y"]}, index=pd.Index([3, 7], name="day"))
    unchanged = [np.array([1.0, np.nan, -0.0]), [1, 2.5, "a"], {"k": (1, None)}, pd.Series([1, 2], name="x"),
                 np.array(["a", None], dtype=object), frame, [frame], (np.arange(3.0), "t"),
                 pd.Series(["a", "b"], dtype="category")]
    for value in unchanged:
        assert not changed(value, round_trip(value)), value

    def zero(array):
        array[0] = 0

    assert changed(np.array([1.0, 2.0]), round_trip(np.array([1.0, 2.0]), zero))
    assert changed([1, 2], round_trip([1, 2], lambda received: received.append(3)))
    assert changed((np.arange(1.0, 4.0), "t"), round_trip((np.arange(1.0, 4.0), "t"), lambda got: zero(got[0])))
    assert changed(frame, round_trip(frame, lambda received: received.iloc.__setitem__((0, 0), 5.0)))
    assert not changed([len], {"list": [{"handle": 1}]})  # not data: not compared


def test_only_regular_notebook_files_are_read(tmp_path, assigned):
    """Links, FIFOs and folders are refused without waiting; outputs never reach the sandbox."""
    read, refused = homework.sandbox.read_notebook, homework.sandbox.NotASubmission
    reference = assigned["gain"][1]
    (tmp_path / "link.ipynb").symlink_to(reference)
    os.mkfifo(tmp_path / "fifo.ipynb")
    (tmp_path / "folder.ipynb").mkdir()
    (tmp_path / "bad.ipynb").write_text("{" * 100000)
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "cells.ipynb").write_text(json.dumps(
        {"nbformat": 4, "cells": [{"cell_type": "markdown", "source": ""}] * (homework.sandbox.MAX_CELLS + 1)}))
    for name, why in (("link", "symbolic link"), ("fifo", "not a regular file"), ("folder", "not a regular file"),
                      ("bad", "not a notebook"), ("list", "not a notebook"), ("missing", "cannot be opened"),
                      ("cells", "not a notebook")):
        started = time.monotonic()
        with pytest.raises(refused, match=why):
            read(tmp_path / f"{name}.ipynb")
        assert time.monotonic() - started < 5, name
    notebook = nbformat.read(reference, as_version=4)
    sources = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    next(cell for cell in notebook.cells if cell.cell_type == "code").outputs = [
        nbformat.v4.new_output("stream", text="x" * 1000)]
    nbformat.write(nbformat.convert(notebook, 3), tmp_path / "v3.ipynb", version=3)  # converts in place
    assert "x" * 1000 in (tmp_path / "v3.ipynb").read_text()
    code = json.loads(read(tmp_path / "v3.ipynb"))
    assert [cell["source"] for cell in code["cells"]] == sources
    assert "x" * 1000 not in json.dumps(code)
    with pytest.raises(refused, match="code is larger"):
        read(reference, limit=100)


def test_the_sandbox_shows_no_host_path():
    """The repository's path is in no variable, search path or file the sandbox sees; dtree is absent."""
    sandbox = homework.sandbox
    config = sandbox._config_fd()
    args = sandbox.command(None, None, None, None, config_fd=config)
    probe = (
        "import importlib.util, os, sys\n"
        f"repository = {str(ROOT)!r}\n"
        "seen = [v for v in (*os.environ.values(), sys.executable, sys.prefix, *sys.path) if repository in v]\n"
        "for site in [p for p in sys.path if p.endswith('site-packages')]:\n"
        "    for entry in os.listdir(site):\n"
        "        path = os.path.join(site, entry)\n"
        "        paths = [path]\n"
        "        if entry.endswith('.dist-info'):\n"
        "            paths = [os.path.join(path, n) for n in os.listdir(path)]\n"
        "        for one in paths + [os.path.join(sys.prefix, 'pyvenv.cfg')]:\n"
        "            try:\n"
        "                seen += [one] if repository in open(one, errors='ignore').read() else []\n"
        "            except OSError:\n"
        "                pass\n"
        "find = importlib.util.find_spec\n"
        "print(seen, find('dtree'), find('sklearn'), os.path.exists(repository))\n"
        "import numpy, pandas, IPython\n")
    try:
        result = subprocess.run(args[: args.index("-I") + 1] + ["-c", probe], capture_output=True, text=True,
                                timeout=120, pass_fds=() if config is None else (config,))
    finally:
        if config is not None:
            os.close(config)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "None", "None", "False"], result.stdout


def test_grading_works_from_an_environment_reached_through_a_link(assigned, tmp_path, monkeypatch):
    """A .venv that is a symbolic link (or lies below one) is resolved before it is bound."""
    _, reference, autograder = assigned["gain"]
    link = tmp_path / "linked-venv"
    link.symlink_to(os.path.realpath(sys.prefix), target_is_directory=True)
    executable = link / os.path.relpath(sys.executable, sys.prefix)
    monkeypatch.setattr(sys, "prefix", str(link))
    monkeypatch.setattr(sys, "executable", str(executable))
    scores, status = homework.grade_one(reference, "gain", autograder, TIMEOUT)
    assert (status, scores) == ("graded", FULL)


def test_spreadsheet_cells_are_text():
    safe = homework.spreadsheet_safe
    assert safe('=HYPERLINK("x")') == '\'=HYPERLINK("x")'
    assert [safe(text) for text in ("+1", "-1", "@SUM(A1)", "\tx")] == ["'+1", "'-1", "'@SUM(A1)", " x"]
    assert safe("alice") == "alice" and safe(3.5) == 3.5 and safe("a\x1b[2Jb") == "a [2Jb"


def test_library_calls_run_in_a_child_with_the_sandboxs_limits():
    """An allowed call that would take more memory than the sandbox may fails there, not in the grader."""
    import numpy as np

    sandbox = homework.sandbox
    box = object.__new__(sandbox.Submission)
    box.memory, box.deadline, box.timed_out, box.ended = 256 << 20, time.monotonic() + 60, False, None
    from dtree.information import contingency_table

    reply = box._call_in_child(contingency_table, [np.arange(3), np.arange(3) % 2], {})
    table, _, _ = wire.decode(reply["reply"], lambda n: None)
    assert table.shape == (3, 2)
    huge = box._call_in_child(contingency_table, [np.arange(60_000), np.arange(60_000)], {})
    assert huge["reply"] is None and "Memory" in huge["error"], huge
    assert box._call_in_child(lambda: len, [], {})["error"].startswith("TypeError: the library returned")
    assert box._call_in_child(lambda: 1 / 0, [], {})["error"].startswith("ZeroDivisionError")
