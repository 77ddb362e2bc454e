"""The Chinese glyphs of the HTML book as a small web font (book/_static/fonts).

The book quotes Chinese (the glossary's terms, the Chinese sources' titles).
A reader whose machine has a CJK font sees it in that font (the stack in
book/_static/dtree-book.css); on a machine without one, the browser falls back
to this web font, which holds only the characters the book uses: a subset of
Noto Sans CJK SC Regular (SIL Open Font License 1.1, see OFL.txt beside it),
from Debian's fonts-noto-cjk package, made with fontTools' subsetter.  As the
licence asks of a modified version, the subset has its own family name
(FAMILY) and keeps the copyright and licence records of the original.

    python book/_ext/cjk_font.py            # write the font (needs fonts-noto-cjk)
    python book/_ext/cjk_font.py --check    # exit 1 if a character is missing

``make cjk-font`` installs Debian's package (as root) and writes the font;
``tests/test_book_config.py`` runs the check, so that a new Chinese word in the
book fails the tests until the font is rewritten.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FONT = ROOT / "book" / "_static" / "fonts" / "dtree-cjk-subset.woff"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SOURCE_FACE = "Noto Sans CJK SC"
FAMILY = "dtree book CJK subset"

# CJK punctuation, kana (none yet), CJK ideographs (and extension A), the
# compatibility ideographs and the full-width forms: what the system's Latin
# fonts lack and the book's CSS routes to this font (its unicode-range).
CJK = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
UNICODE_RANGE = "U+3000-30FF, U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF, U+FF00-FFEF"


def book_sources() -> list[Path]:
    """The files whose text the HTML book shows: pages, notebooks, bibliography, config."""
    book = ROOT / "book"
    found = [p for pattern in ("*.md", "*.ipynb", "*.bib", "*.rst", "*.html")
             for p in book.rglob(pattern)
             if not {".ipynb_checkpoints", "_build", "mathjax"} & set(p.parts)]
    return sorted(found + [ROOT / "_config.yml", ROOT / "_toc.yml"])


def characters() -> str:
    """Every CJK character of the book's sources, sorted."""
    chars = set()
    for path in book_sources():
        chars.update(CJK.findall(path.read_text(encoding="utf-8")))
    return "".join(sorted(chars))


def font_characters(path: Path = FONT) -> set[str]:
    from fontTools.ttLib import TTFont

    return {chr(code) for code in TTFont(path).getBestCmap()}


def write(source: Path = SOURCE, target: Path = FONT) -> None:
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    if not source.is_file():
        sys.exit(f"{source} is missing: install Debian's fonts-noto-cjk package "
                 "(sudo apt-get install fonts-noto-cjk, or `make cjk-font` as root)")
    faces = [face.get("name").getDebugName(1) for face in TTCollection(source).fonts]
    number = faces.index(SOURCE_FACE)
    options = subset.Options()
    options.flavor = "woff"  # zlib; WOFF2 would need the brotli module
    options.font_number = number
    options.layout_features = ["*"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # copyright and licence kept
    options.notdef_outline = True
    font = subset.load_font(str(source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=characters())
    subsetter.subset(font)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4, 16):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID,
                          record.langID)
        elif record.nameID == 6:
            names.setName(FAMILY.replace(" ", ""), 6, record.platformID, record.platEncID,
                          record.langID)
        elif record.nameID == 3:
            names.setName(f"{FAMILY}; subset of {SOURCE_FACE}", 3, record.platformID,
                          record.platEncID, record.langID)
    target.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(target), options)


def missing() -> str:
    """The book's CJK characters that the web font lacks."""
    have = font_characters() if FONT.is_file() else set()
    return "".join(c for c in characters() if c not in have)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only check that the font holds every character the book uses")
    args = parser.parse_args(argv)
    if not args.check:
        write()
        print(f"{FONT.relative_to(ROOT)}: {len(characters())} characters, "
              f"{FONT.stat().st_size} bytes", file=sys.stderr)
    gaps = missing()
    if gaps:
        print(f"{FONT.relative_to(ROOT)} lacks {gaps!r}: run `make cjk-font`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
