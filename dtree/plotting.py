"""The book's figure style.

Figures have an opaque white background with dark ink and a colour-blind-safe
palette (Okabe & Ito), so they read the same on the light and the dark theme of
the HTML book.  Matplotlib is imported only when a function here is called.
"""

from __future__ import annotations

__all__ = ["BOOK_COLORS", "use_book_style"]

# Okabe & Ito (2008), "Color Universal Design".
BOOK_COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
               "#F0E442", "#000000"]


def use_book_style() -> None:
    """Set matplotlib's rcParams to the book's style (idempotent).

    White, opaque figure and axes backgrounds; black text; the Okabe-Ito
    colour cycle; a fixed size and resolution so that figures are identical
    from run to run.

    Examples
    --------
    >>> use_book_style()
    >>> import matplotlib as mpl
    >>> mpl.rcParams["figure.facecolor"]
    'white'
    """
    import matplotlib as mpl
    from cycler import cycler

    mpl.rcParams.update({
        "figure.figsize": (6.4, 4.0),
        "figure.dpi": 100,
        "savefig.dpi": 100,
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "savefig.facecolor": "white",
        "savefig.transparent": False,
        "text.color": "black",
        "axes.labelcolor": "black",
        "axes.edgecolor": "#333333",
        "xtick.color": "#333333",
        "ytick.color": "#333333",
        "axes.grid": True,
        "grid.color": "#dddddd",
        "grid.linewidth": 0.8,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": cycler(color=BOOK_COLORS),
        "lines.linewidth": 2.0,
        "font.size": 11,
        "legend.frameon": False,
    })
