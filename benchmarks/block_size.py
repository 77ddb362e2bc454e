"""The sorted sweep's block size at small n: dtree's fit time against its peak memory.

dtree's sweep scores at most ``dtree.splitting.BLOCK_CELLS`` (feature,
position) cells at once (2**14 by default; a fit of fewer than
``splitting.SMALL_FIT`` samples takes ``SMALL_FIT_BLOCKS`` times as many, 2**16,
which this script turns off, so that the block measured is the one given;
the float32 copy of X that small fits read, ``splitting.feature_columns``,
stays, and counts in their memory).  On a level of fewer positions
than that, one block holds several features: fewer Python steps per level,
but about ten float64 temporaries per cell.  At n = 10**3 this block is most
of dtree's peak memory, and the Python overhead that smaller blocks add
weighs most on the fit time; this script measures the trade-off.  For each
block size, criterion and depth it prints dtree's fit time over
scikit-learn's (best of ``--repeat``, the two alternating, as in
``bench_fit.py``) and the peak RSS of one fit of each, by
``bench_fit.peak_fit_mib`` (a fresh process, peak minus the RSS just before
the fit, in MiB).  Before timing, it checks that every block size grows the
same tree as the default (the block size must never change a result).  The
first line names the versions and the machine (``bench_fit.environment``);
``block_size.txt`` is a committed run.

The absolute error scores its own blocks (``AbsoluteError.block_cells``),
which this script leaves as they are.  The block size is a parameter of the
NumPy sweep: the script turns the compiled one off (``DTREE_NUMBA=0``, here and
in the processes that measure memory), which has no blocks.

    .venv/bin/python benchmarks/block_size.py                      # n = 1e3, blocks 2^8, 2^11, 2^12, 2^14, 2^16
    .venv/bin/python benchmarks/block_size.py --blocks 2048 16384 --criteria gini

Nothing is asserted about time or memory: these are measurements to read.
"""

from __future__ import annotations

import argparse
import os

os.environ["DTREE_NUMBA"] = "0"           # the NumPy sweep, before dtree is imported

import numpy as np  # noqa: E402

import dtree.splitting  # noqa: E402
from bench_fit import CRITERIA, best_times, data, environment, estimators, peak_fit_mib  # noqa: E402

DEFAULT_BLOCK = dtree.splitting.BLOCK_CELLS
dtree.splitting.SMALL_FIT_BLOCKS = 1      # the block is BLOCK_CELLS at every n


def fitted_tree(estimator, X, y, block_cells):
    """The arrays of ``estimator`` fitted with blocks of ``block_cells`` cells."""
    dtree.splitting.BLOCK_CELLS = block_cells
    try:
        t = estimator.fit(X, y).tree_
    finally:
        dtree.splitting.BLOCK_CELLS = DEFAULT_BLOCK
    return [t.children_left, t.children_right, t.feature, t.threshold, t.value]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000, help="number of samples")
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--blocks", type=int, nargs="+", default=[2**8, 2**11, 2**12, 2**14, 2**16],
                        help="values of dtree.splitting.BLOCK_CELLS to measure")
    parser.add_argument("--criteria", nargs="+", default=["gini", "entropy", "squared_error",
                                                          "poisson"], choices=list(CRITERIA))
    parser.add_argument("--depths", nargs="+", default=["None", "10"])
    parser.add_argument("--repeat", type=int, default=7, help="best of this many fits")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory columns")
    args = parser.parse_args()
    depths = [None if d == "None" else int(d) for d in args.depths]

    env = environment()
    print(f"# n = {args.n}, {args.features} features; dtree {env['dtree_version']}, scikit-learn "
          f"{env['sklearn_version']}, NumPy {env['numpy_version']}, Python "
          f"{env['python_version']}; {env['machine']}")
    print(f"{'block':>7}{'criterion':>15}{'depth':>6}{'fit ratio':>10}"
          f"{'mem dtree':>11}{'mem sk':>8}{'mem ratio':>10}", flush=True)
    for criterion in args.criteria:
        X, y = data(CRITERIA[criterion], args.n, args.features)
        for depth in depths:
            ours, theirs = estimators(criterion, depth)
            reference = fitted_tree(ours, X, y, DEFAULT_BLOCK)
            m_theirs = None
            for block in args.blocks:
                same = all(np.array_equal(a, b, equal_nan=True) for a, b in
                           zip(fitted_tree(ours, X, y, block), reference))
                if not same:
                    raise SystemExit(f"BLOCK_CELLS={block} grew another tree than "
                                     f"{DEFAULT_BLOCK} ({criterion}, max_depth={depth})")
                dtree.splitting.BLOCK_CELLS = block
                try:
                    t_ours, t_theirs = best_times([lambda: ours.fit(X, y),
                                                   lambda: theirs.fit(X, y)], args.repeat)
                finally:
                    dtree.splitting.BLOCK_CELLS = DEFAULT_BLOCK
                line = f"{block:>7}{criterion:>15}{str(depth):>6}{t_ours / t_theirs:>10.2f}"
                if not args.no_memory:
                    m_ours = peak_fit_mib("dtree", criterion, args.n, args.features, depth,
                                          block_cells=block)
                    if m_theirs is None:   # scikit-learn's does not depend on the block
                        m_theirs = peak_fit_mib("sklearn", criterion, args.n, args.features,
                                                depth)
                    line += (f"{m_ours:>10.2f}M{m_theirs:>7.2f}M"
                             f"{m_ours / max(m_theirs, 0.1):>10.2f}")
                print(line, flush=True)


if __name__ == "__main__":
    main()
