"""Quoted and printed floats are compared at a stated precision (12 digits).

nbval, run as ``make test`` runs it (with ``book/conftest.py``), on a small
notebook whose committed outputs differ from a fresh run's: in the last bits
of a float (another CPU's summation order), which must pass, or in the 9th
significant digit (a real change of a number), which must fail. Both for a
printed float and for a number the prose quotes (``dtree._book.glue``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from dtree._book import SIGNIFICANT_DIGITS, glue, glued, stated_precision, stated_precision_text

# Checks the book's files and its pinned environment, not dtree across versions:
# `make test-compat` leaves the module out.
pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
EXACT = 0.15648355747948203          # what the cell computes
LAST_BIT = 0.15648355747948206       # as stored by a CPU that summed in another order
NINTH_DIGIT = 0.15648355847948203    # a real change of the number

pytest.importorskip("nbval")


def _notebook(stored_print: str, stored_record: str):
    code = (
        "from dtree._book import glue\n"
        f"gain = float.fromhex({EXACT.hex()!r})\n"
        "glue('gain', gain, display=False)\n"
        "print(gain)"
    )
    cell = nbformat.v4.new_code_cell(code, execution_count=1, outputs=[
        nbformat.v4.new_output(
            "display_data",
            data={"application/papermill.record/text/plain": stored_record},
            metadata={"scrapbook": {"name": "gain",
                                    "mime_prefix": "application/papermill.record/"}},
        ),
        nbformat.v4.new_output("stream", name="stdout", text=stored_print + "\n"),
    ])
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def _nbval(tmp_path: Path, nb) -> subprocess.CompletedProcess:
    folder = tmp_path / "book"
    folder.mkdir()
    shutil.copy(ROOT / "book" / "conftest.py", folder / "conftest.py")
    # the module the conftest imports from beside it (kernels on Unix sockets)
    shutil.copytree(ROOT / "book" / "_ext", folder / "_ext")
    nbformat.write(nb, folder / "chapter.ipynb")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--nbval", "--nbval-current-env", "--rootdir", str(tmp_path), str(folder)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.slow
@pytest.mark.parametrize("stored, passes", [
    (repr(EXACT), True),
    (repr(LAST_BIT), True),
    (repr(NINTH_DIGIT), False),
])
def test_printed_float_compared_at_stated_precision(tmp_path, stored, passes):
    run = _nbval(tmp_path, _notebook(stored, stated_precision(EXACT)))
    assert (run.returncode == 0) is passes, run.stdout[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("stored, passes", [
    (stated_precision(LAST_BIT), True),
    (stated_precision(NINTH_DIGIT), False),
])
def test_glued_number_stored_at_stated_precision(tmp_path, stored, passes):
    run = _nbval(tmp_path, _notebook(repr(EXACT), stored))
    assert (run.returncode == 0) is passes, run.stdout[-3000:]


def test_stated_precision_keeps_twelve_digits():
    assert SIGNIFICANT_DIGITS == 12
    assert stated_precision(EXACT) == stated_precision(LAST_BIT) == "0.156483557479"
    assert stated_precision(NINTH_DIGIT) != stated_precision(EXACT)
    assert stated_precision(np_float := __import__("numpy").float32(0.5)) == "0.5", np_float
    assert stated_precision(7) == "7" and stated_precision(True) == "True"
    numpy = __import__("numpy")
    assert stated_precision(numpy.bool_(True)) == "True"
    assert stated_precision(numpy.int64(7)) == "7"
    assert stated_precision_text("[0.1, 2.5e-17, 1.2345678901234567e-05, v1.2.3]") == (
        "[0.1, 2.5e-17, 1.23456789012e-05, v1.2.3]"
    )
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="digits must be a positive integer"):
            stated_precision(1.0, digits=bad)
        with pytest.raises(ValueError, match="digits must be a positive integer"):
            stated_precision_text("1.0", digits=bad)


def test_glue_records_and_glued_formats():
    glue("test_precision_value", 2 / 3)
    assert glued("test_precision_value", ".3f") == "0.667"
    assert glued("test_precision_value") == str(2 / 3)
    glue("test_precision_value", 14)
    assert glued("test_precision_value", ",") == "14"
    with pytest.raises(KeyError, match="nothing is glued under name 'never_glued'"):
        glued("never_glued")
    for bad in ("", "a-b", "a b", "gain_\u03b1", "x\u00b2", 3, None):
        with pytest.raises(ValueError, match="name must be a non-empty string"):
            glue(bad, 1.0)
