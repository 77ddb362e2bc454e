"""The teaching chapters stay lessons (issue 44), checked on their Markdown.

* **Length.** A lesson's prose stays under 5,000 words (d2l and QuantEcon pages
  run 2,000 to 6,000): a longer chapter is split into sections, each its own
  notebook in ``_toc.yml``.
* **No engineering.** How dtree is built (compiled code, floating-point
  formats, benchmarks, memory) is told once, in the appendix "How dtree is
  built" (``book/appendix``); a teaching chapter says it in a sentence with a
  link, in words a student knows.
* **Numbers are computed.** A number in a chapter's prose is a ``glued()``
  value the chapter computed, a piece of mathematics (inside ``$...$``), or a
  declared constant: a small count, a year, a section, step or release number,
  or a value listed in :data:`DECLARED` with the reason it is typed.

The teaching chapters are the notebooks of ``_toc.yml`` under
``book/first_tree`` and ``book/part*/``. The counting rules are those of the
project's before-stop checks: Markdown cells, with display maths, inline maths
and inline code removed.
"""

import json
import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
MAX_WORDS = 5000


def _toc_notebooks():
    """The notebooks of _toc.yml in reading order (book/_ext/install_cell.py walks it)."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        from install_cell import toc_notebooks
    finally:
        sys.path.pop(0)
    return [path.relative_to(ROOT).with_suffix("").as_posix() for path in toc_notebooks()]


TEACHING = [name for name in _toc_notebooks()
            if name == "book/first_tree" or re.match(r"book/part\d/", name)]


def _markdown(name):
    cells = json.loads((ROOT / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def _without_maths_and_code(markdown):
    return re.sub(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`", " ", markdown, flags=re.S)


def words(markdown):
    """Words of prose: runs of Latin letters outside maths and inline code."""
    return len(re.findall(r"[A-Za-z]+", _without_maths_and_code(markdown)))


ENGINE = re.compile(
    r"\b(Numba|numba|Fenwick|float32|float64|MiB|KiB|GiB|benchmarks?|kernels?|compiled?|compiler|"
    r"Cython|SIMD|AVX\w*|wavelet|JIT|bytes|vectori[sz]ed|machine code|single precision|"
    r"double precision|single-precision|double-precision)\b|2\^\{?53\}?|2⁵³")


def engine_words(markdown):
    """Engineering vocabulary in prose (inline code such as `benchmarks/` included: a path is a word too)."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", markdown, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)          # a link's target is not prose
    text = re.sub(r"\{doc\}`[^`]*`", " ", text)       # nor is a link to the appendix
    text = re.sub(r"\{eval\}`[^`]*`", " ", text)      # nor a glued number's name
    return sorted({match.group() for match in ENGINE.finditer(text)})


# A number that needs no computing: a small count or ordinal ("two", "step 3"),
# a year, or a number named as a section, step, equation, release or version.
_NAMED = re.compile(r"(?:step|steps|rule|rules|section|sections|§|chapter|chapters|part|parts|equation|"
                    r"eq\.|release|version|versions|python|numpy|scikit-learn|table|figure|exercise|"
                    r"exercises|theorem|lemma|line|lines|set|sets|level|levels|page|pages|c4\.5|id3|day|seed|column|issue|request)\s*$",
                    re.I)

# Typed numbers that stay typed: {chapter: {number: why}}. What a chapter sets
# (a sample size, a split, a parameter of the data it draws) is typed where it
# is set; what it finds is computed.
WEATHER = "the days of Quinlan's weather table, printed in the chapter"
DECLARED: dict[str, dict[str, str]] = {
    "book/first_tree": {"14": WEATHER},
    "book/part1/entropy": {"14": WEATHER, "20": "the most classes the property test draws (its parameter)",
                           "10": "the classes of a node in an example"},
    "book/part1/gain": {"14": WEATHER, "0.3": "the chance of an empty cell in the drawn tables (a parameter)",
                        "50": "the sample size of the noise-feature experiment (a parameter)"},
    "book/part1/impurity": {
        "0.05": "the range of the drawn Dirichlet parameter (a parameter)",
        "20": "the constructed node of 80 and 20 samples; the largest count drawn",
        "80": "the constructed node of 80 and 20 samples", "80%": "the constructed node, as a share",
        "40": "the constructed splits of that node", "10": "the constructed splits of that node",
        "30": "the largest count the property test draws (a parameter)",
        "2%": "Raileanu and Stoffel's finding, cited",
        "400": "Breiman et al.'s example node, cited"},
    "book/part1/weights_missing": {
        "30": "the drawn data sets' size (a parameter); the worked example's weights",
        "40": "the thresholds tried (a parameter); the worked example's class weight",
        "400": "the noisy sample's size (a parameter)", "15%": "the label noise (a parameter)",
        "1%": "a node's share in an argument", "75%": "1 - (1/2)(1/2), stated beside its formula",
        "50%": "1/2, stated beside its formula"},
    "book/part2/id3": {
        "14": WEATHER, "300": "the random data sets of the property test (a parameter)",
        "80%": "the informative feature's agreement with the class (a parameter)",
        "5%": "delta = 0.05 as a share, stated beside its formula",
        "70": "the 70/30 train/test split (a parameter)", "30": "the 70/30 train/test split (a parameter)",
        "0.01": "a threshold the reader sets (a parameter)"},
    "book/part2/c45": {
        "14": WEATHER, "70": "the sunny days' humidities, printed from the weather table",
        "85": "the sunny days' humidities, printed from the weather table",
        "90": "the sunny days' humidities, printed from the weather table; day 12's humidity",
        "95": "the sunny days' humidities, printed from the weather table",
        "72": "day 12's temperature, printed with its row of the weather table",
        "76": "a humidity between the two cuts, picked as the example's input",
        "1000": "the random nodes the folded check draws (a parameter)",
        "30%": "the share of missing cells in the folded check's rows (a parameter)",
        "60": "the random data sets of the folded check (a parameter)"},
    "book/part2/c45_pruning": {
        "20": "the worked example's node (its input)", "13": "the worked example's node (its input)",
        "10": "the worked example's leaves (its input)", "16": "Quinlan's example node, cited"},
    "book/part4/objective": {"40": "the sample's size (a parameter)",
                             "70": "the 70/30 train/test split (a parameter)",
                             "30": "the 70/30 train/test split (a parameter)"},
}


def typed_numbers(name, markdown):
    """Numbers in prose that are neither computed, mathematics, nor declared."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", markdown, flags=re.S)
    text = re.sub(r"\{[a-z:-]+\}`[^`]*`|`[^`]*`", " ", text)        # roles (glued, refs, cites), code
    text = re.sub(r"^\s*:[a-z-]+:.*$|^\s*[(:]{1}.*\)=\s*$", " ", text, flags=re.M)  # options, labels
    text = re.sub(r"\]\([^)]*\)|<[^>]+>", " ", text)                  # link targets, HTML
    declared = DECLARED.get(name, {})
    found = []
    for match in re.finditer(r"(?<![\w.\-])\d[\d,.]*\d(?:\s?%)?|(?<![\w.\-])\d(?:\s?%)?", text):
        number = match.group()
        plain = number.replace(",", "")
        if re.fullmatch(r"\d", plain):                                # 0 to 9: counts, ordinals
            continue
        if re.fullmatch(r"(19|20)\d\d", plain):                        # a year
            continue
        if re.fullmatch(r"\d+(\.\d+)+", plain) and _NAMED.search(text[:match.start()][-24:]):
            continue                                                 # "step 2.1", "Section 5.3.4"
        if _NAMED.search(text[:match.start()][-24:]):
            continue                                                 # "Release 8", "Exercise 12"
        if number.replace(" ", "") in declared:
            continue
        found.append(number)
    return found


@pytest.mark.parametrize("name", TEACHING)
def test_a_lesson_stays_under_five_thousand_words(name):
    assert words(_markdown(name)) <= MAX_WORDS, f"{name}: split it into sections"


# The worked solutions are lessons too (the exercises' answers, read beside the chapter).
SOLUTIONS = [name for name in _toc_notebooks() if name.startswith("book/solutions/")]


@pytest.mark.parametrize("name", TEACHING + SOLUTIONS)
def test_a_lesson_leaves_the_engineering_to_the_appendix(name):
    assert engine_words(_markdown(name)) == [], f"{name}: say it in the appendix (book/appendix), link there"


@pytest.mark.parametrize("name", TEACHING)
def test_numbers_in_prose_are_computed_or_declared(name):
    assert typed_numbers(name, _markdown(name)) == [], (
        f"{name}: compute and glue these numbers, or declare them in DECLARED with the reason")


def test_the_checks_can_fail():
    """Each check flags what it is for, and passes what it allows."""
    assert words("one two $x + y$ `code words` three") == 3
    assert engine_words("the loop is compiled with Numba ($2^{53}$ is maths)") == ["Numba", "compiled"]
    assert engine_words("see {doc}`../appendix/engine`") == []
    assert engine_words('{eval}`glued("float32_eps")` and float32') == ["float32"]
    typed = typed_numbers("none", 'In 1984, step 2.1 of Release 8 split 150 samples '
                                  '(a {eval}`glued("n", "d")` and $n = 150$) at 0.43, 30 % left, two by 3.')
    assert typed == ["150", "0.43", "30 %"]
    DECLARED["none"] = {"150": "the size of a textbook table"}
    try:
        assert typed_numbers("none", "150 samples") == []
    finally:
        del DECLARED["none"]


def test_every_teaching_chapter_is_checked():
    assert "book/part2/cart" in TEACHING and "book/first_tree" in TEACHING
    assert not any(name.startswith("book/appendix") for name in TEACHING)
    assert "book/solutions/cart" in SOLUTIONS


def _glue_order_problems(path):
    """Names quoted by ``glued()`` in a Markdown cell before any earlier code cell glued them.

    MyST-NB evaluates a Markdown cell's ``{eval}`` roles when execution reaches
    it, so a number glued further down is missing from the HTML book (and the
    student edition) although nbval, which does not read prose, passes.
    """
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    glued_so_far, problems = set(), []
    for cell in cells:
        if cell["cell_type"] == "markdown":
            for name in re.findall(r"""glued\(\s*["']([^"']+)["']""", "".join(cell["source"])):
                if name not in glued_so_far:
                    problems.append(f"{cell.get('id')}: {name}")
        elif cell["cell_type"] == "code":
            for output in cell.get("outputs", []):
                name = output.get("metadata", {}).get("scrapbook", {}).get("name")
                if name:
                    glued_so_far.add(name)
    return problems


GLUING = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "book").rglob("*.ipynb")
                if "_build" not in path.parts and ".ipynb_checkpoints" not in path.parts
                and "homework" not in path.parts)


@pytest.mark.parametrize("name", GLUING)
def test_a_number_is_glued_before_the_prose_quotes_it(name):
    assert _glue_order_problems(ROOT / name) == []


def test_the_glue_order_check_can_fail(tmp_path):
    def cell(kind, text, glued_name=None):
        outputs = [{"output_type": "display_data", "data": {}, "metadata": {"scrapbook": {"name": glued_name}}}]
        return {"cell_type": kind, "id": text[:8], "metadata": {}, "source": [text],
                **({"outputs": outputs if glued_name else []} if kind == "code" else {})}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": [cell("markdown", 'early {eval}`glued("x")`'),
                                          cell("code", "glue('x', 1)", "x"),
                                          cell("markdown", 'late {eval}`glued("x", ".3f")`')]}))
    assert _glue_order_problems(path) == ['early {e: x']
