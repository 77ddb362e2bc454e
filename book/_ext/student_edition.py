"""The student edition of the book: everything but the solutions.

``make student-book`` runs this twice around a Jupyter Book build::

    python book/_ext/student_edition.py OUT          # writes OUT/_config.yml and OUT/_toc.yml
    python book/_ext/student_edition.py --check HTML # fails if HTML contains a solution

The configuration is the book's ``_config.yml`` with three changes: the
``dtree_edition`` setting that ``dtree_book.py`` reads (no "Solution" links
under exercises, the ``student_edition`` tag for ``{only}`` blocks, and a
build error if a solution is read), the Solutions folder, the instructor guide and
the homework masters excluded. Its notebooks are executed as the book's are
("inline"), because the prose's quoted numbers (``{eval}`` roles) are evaluated
in each chapter's kernel. The table of contents is
``_toc.yml`` without its Solutions part and the instructor guide.
"""

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS_CAPTION = "Solutions"
INSTRUCTOR_PAGES = {"book/instructors"}  # for teachers, and full of paths to the solutions


def write_config(out):
    """Write the student edition's ``_config.yml`` and ``_toc.yml`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["title"] += " (student edition)"
    config["exclude_patterns"] += ["book/solutions", "book/homework", *(page + ".*" for page in INSTRUCTOR_PAGES)]
    sphinx = config["sphinx"]
    # Jupyter Book reads local extension paths relative to the config file.
    sphinx["local_extensions"] = {name: str(ROOT / path) for name, path in sphinx["local_extensions"].items()}
    sphinx.setdefault("config", {})["dtree_edition"] = "student"
    (out / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    parts = [part for part in toc["parts"] if part.get("caption") != SOLUTIONS_CAPTION]
    if len(parts) != len(toc["parts"]) - 1:
        sys.exit(f"student_edition: _toc.yml has no part captioned {SOLUTIONS_CAPTION!r}")
    for part in parts:
        part["chapters"] = [page for page in part["chapters"] if page["file"] not in INSTRUCTOR_PAGES]
    toc["parts"] = parts
    (out / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False, allow_unicode=True))
    print(f"student edition config and toc written to {out}")


def check(html):
    """Exit with an error if the built HTML in ``html`` contains a solution."""
    html = Path(html)
    problems = []
    if not (html / "index.html").exists():
        problems.append(f"{html} has no index.html")
    if (html / "book" / "solutions").exists():
        problems.append("the book/solutions pages were built")
    for page in sorted(html.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        if 'class="solution' in text or "dtree-solution-link" in text or "solutions/" in text:
            problems.append(f"{page.relative_to(html)} shows or links a solution")
    if problems:
        sys.exit("student edition check failed:\n  " + "\n  ".join(problems))
    print(f"student edition check: no solution in {html}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", help="output folder for the config (or, with --check, the built HTML)")
    parser.add_argument("--check", action="store_true", help="check built HTML instead of writing the config")
    args = parser.parse_args(argv)
    check(args.path) if args.check else write_config(args.path)


if __name__ == "__main__":
    main()
