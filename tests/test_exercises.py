"""The exercises as the issue asks: homed, solved, linked, and kept out of the student edition.

* Every exercise (sphinx-exercise ``exercise`` directive, book/exercises) has
  exactly one solution (``solution-start``/``solution`` naming its label,
  book/solutions) in the notebook of the same chapter, and every solution
  names an existing exercise.
* The table on book/exercises/index.md homes every question of the source
  notes' sets A (6) and B (12) in an existing exercise.
* The student edition's configuration leaves out the Solutions part and the
  instructor guide, and its check fails on HTML that shows or links a solution.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

# Checks the book's files and its pinned environment, not dtree across versions:
# `make test-compat` leaves the module out.
pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"


def _sources(folder):
    """``{chapter: markdown and code text}`` of the notebooks in a folder."""
    return {path.stem: "\n".join("".join(cell["source"]) for cell in json.loads(path.read_text())["cells"])
            for path in sorted((BOOK / folder).glob("*.ipynb"))}


EXERCISES = {chapter: re.findall(r"\{exercise\}[^\n]*\n:label: (\S+)", text)
             for chapter, text in _sources("exercises").items()}
SOLUTIONS = {chapter: re.findall(r"\{solution(?:-start)?\} (\S+)", text)
             for chapter, text in _sources("solutions").items()}


def test_every_chapter_has_exercises_and_solutions():
    assert sorted(EXERCISES) == sorted(SOLUTIONS)
    assert all(EXERCISES.values())


@pytest.mark.parametrize("chapter", sorted(EXERCISES))
def test_every_exercise_has_exactly_one_solution(chapter):
    assert sorted(EXERCISES[chapter]) == sorted(SOLUTIONS[chapter])
    assert len(set(SOLUTIONS[chapter])) == len(SOLUTIONS[chapter])


def test_source_questions_are_all_homed():
    table = (BOOK / "exercises" / "index.md").read_text()
    rows = dict(re.findall(r"^\| ([AB]\d+) \|.*\|(.*)\|$", table, flags=re.M))
    assert sorted(rows) == sorted([f"A{i}" for i in range(1, 7)] + [f"B{i}" for i in range(1, 13)])
    labels = {label for chapter in EXERCISES.values() for label in chapter}
    for question, cell in rows.items():
        homes = re.findall(r"\{ref\}`([^`]+)`", cell)
        assert homes, f"{question} has no exercise"
        assert set(homes) <= labels, f"{question} points to a missing exercise: {set(homes) - labels}"


spec = importlib.util.spec_from_file_location("student_edition", BOOK / "_ext" / "student_edition.py")
student_edition = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student_edition)


def test_student_edition_config(tmp_path):
    student_edition.write_config(tmp_path)
    config = yaml.safe_load((tmp_path / "_config.yml").read_text())
    toc = yaml.safe_load((tmp_path / "_toc.yml").read_text())
    assert config["sphinx"]["config"]["dtree_edition"] == "student"
    assert "book/solutions" in config["exclude_patterns"]
    assert Path(config["sphinx"]["local_extensions"]["dtree_book"]).is_absolute()
    files = [page["file"] for part in toc["parts"] for page in part["chapters"]]
    assert "Solutions" not in [part["caption"] for part in toc["parts"]]
    assert not any(page.startswith("book/solutions/") for page in files)
    assert "book/instructors" not in files
    assert "book/exercises/cart" in files
    # Everything else of the full book is kept.
    full = yaml.safe_load((ROOT / "_toc.yml").read_text())
    full_files = [page["file"] for part in full["parts"] for page in part["chapters"]]
    solutions = {f for f in full_files if f.startswith("book/solutions/")}
    assert set(full_files) - set(files) == solutions | {"book/instructors"}


def test_student_edition_check(tmp_path, capsys):
    (tmp_path / "index.html").write_text("<p>the book</p>")
    student_edition.check(tmp_path)
    (tmp_path / "ex.html").write_text('<p class="dtree-solution-link"><a href="../solutions/x.html">Solution</a></p>')
    with pytest.raises(SystemExit, match="ex.html shows or links a solution"):
        student_edition.check(tmp_path)
