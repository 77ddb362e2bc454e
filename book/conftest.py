"""nbval on the book's notebooks compares floats at a stated precision.

``make test`` re-runs every notebook and compares each code cell's outputs
with the committed ones (nbval). The last one or two digits of a float depend
on the order of a sum, which depends on the CPU's vector width; a notebook
stored on one machine would then fail on another for no reason. So every
text output, committed and fresh, passes through
:func:`dtree._book.stated_precision_text` after the project's sanitize
patterns (``.nbval-sanitize.cfg``): floats printed with more than
:data:`dtree._book.SIGNIFICANT_DIGITS` (12) significant digits are compared at
12. Values that the prose quotes are already stored at 12 digits by
:func:`dtree._book.glue`. ``tests/test_book_precision.py`` shows that a
last-bit change passes and a change in the 9th digit fails.

Images are not compared: nbval skips PNG itself, and this file adds SVG (the
Graphviz drawings of trees), whose markup depends on the Graphviz version.
Pixels and markup depend on fonts, FreeType and the CPU. What a figure shows
is compared instead: every image output holds, in the same bundle, its figure
data under :data:`dtree._book.FIGURE_DATA_MIME` (``text/vnd.dtree.figure-data``),
a text listing of its texts and data with floats at
:data:`dtree._book.FIGURE_DIGITS` (6) significant digits for a matplotlib
figure, the DOT source for a Graphviz drawing. nbval compares it like any
text output (through the sanitizer above, which leaves 6-digit floats
alone); see dtree._book's module docstring and tests/test_figure_data.py.

nbval's kernels talk over Unix domain sockets, not TCP ports
(``book/_ext/unix_socket_kernels.py`` says why: two kernels started at once
may race for a port).
"""

from __future__ import annotations

import sys
from pathlib import Path

from dtree._book import stated_precision_text

sys.path.insert(0, str(Path(__file__).parent / "_ext"))
from unix_socket_kernels import use_unix_sockets  # noqa: E402


def pytest_configure(config):
    use_unix_sockets()
    try:
        from nbval.plugin import IPyNbCell
    except ImportError:  # nbval not installed: nothing to adjust
        return
    if getattr(IPyNbCell.sanitize, "_stated_precision", False):
        return
    sanitize = IPyNbCell.sanitize

    def sanitize_at_stated_precision(self, s):
        s = sanitize(self, s)
        return stated_precision_text(s) if isinstance(s, str) else s

    sanitize_at_stated_precision._stated_precision = True
    IPyNbCell.sanitize = sanitize_at_stated_precision

    compare_outputs = IPyNbCell.compare_outputs

    def compare_outputs_without_svg(self, test, ref, skip_compare=None):
        skip = tuple(skip_compare or self.parent.skip_compare) + ("image/svg+xml",)
        return compare_outputs(self, test, ref, skip_compare=skip)

    IPyNbCell.compare_outputs = compare_outputs_without_svg

