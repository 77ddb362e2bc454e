"""Time dtree's CART against scikit-learn's on the same data, in the same run.

Prints, for each size, depth and criterion, the fit and predict times of both
libraries and their ratios (dtree / scikit-learn; below 1 means dtree is
faster), and the peak memory of one fit of each library: a fresh child
process imports both libraries, makes the data, fits a clone of the estimator
on 50 rows (so that code imported lazily by ``fit`` is loaded), returns the
heap's free memory to the system (glibc ``malloc_trim``), resets its peak
resident set size (Linux ``/proc/self/clear_refs``), records its RSS, fits once
and reports its peak RSS; the table shows peak minus that baseline (MiB), so
the data and the imports count for neither library, and memory freed while
the data were made cannot hide an allocation of the fit.

    .venv/bin/python benchmarks/bench_fit.py                     # n = 1e3 .. 1e5
    .venv/bin/python benchmarks/bench_fit.py --sizes 1000000 --criteria gini squared_error --depths 10 --repeat 1
    .venv/bin/python benchmarks/bench_fit.py --sizes 1000 10000 --criteria absolute_error
    .venv/bin/python benchmarks/bench_fit.py --sizes 1000 --csv my_run.csv    # also a CSV file

With ``--csv PATH`` every row of the table is also written to a CSV file (one
row per task, criterion, n and max_depth; the columns are ``CSV_COLUMNS``),
with the versions of the libraries and the machine's architecture and number
of CPUs, never its name or the date; ``--append`` adds the rows to an existing
file instead, so that several runs make one file (benchmarks/README.md).
Times are in seconds and peak memory in MiB (the ``_mb`` columns).

Timings are the best of ``--repeat`` runs (of at least ``PREDICT_REPEAT`` for
predict), dtree and scikit-learn alternating (a machine shared with other work
slows both alike).  Nothing here is
asserted: the ratios are measurements to read, not tests.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import time

CRITERIA = {"gini": "classification", "entropy": "classification",
            "squared_error": "regression", "poisson": "regression",
            "absolute_error": "regression"}

PREDICT_REPEAT = 15      # predict timings: best of at least this many runs

CSV_COLUMNS = ["task", "criterion", "n_samples", "n_features", "max_depth",
               "dtree_fit_s", "sklearn_fit_s", "fit_ratio",
               "dtree_predict_s", "sklearn_predict_s", "predict_ratio",
               "dtree_peak_rss_mb", "sklearn_peak_rss_mb", "memory_ratio",
               "dtree_version", "sklearn_version", "numpy_version", "python_version", "machine"]


def data(task, n, d, seed=0):
    from sklearn.datasets import make_classification, make_regression

    if task == "classification":
        return make_classification(n_samples=n, n_features=d, n_informative=d // 2,
                                   random_state=seed)
    X, y = make_regression(n_samples=n, n_features=d, noise=1.0, random_state=seed)
    return X, y - y.min() + 1.0  # poisson needs y >= 0; a shift changes no squared-error split


def estimators(criterion, depth):
    from sklearn import tree as sk

    import dtree

    if CRITERIA[criterion] == "classification":
        return (dtree.DecisionTreeClassifier(criterion=criterion, max_depth=depth),
                sk.DecisionTreeClassifier(criterion=criterion, max_depth=depth, random_state=0))
    return (dtree.DecisionTreeRegressor(criterion=criterion, max_depth=depth),
            sk.DecisionTreeRegressor(criterion=criterion, max_depth=depth, random_state=0))


def peak_fit_mib(library, criterion, n, d, depth):
    """Peak RSS of one fit in a fresh process, above the process's RSS before the fit.

    The data of :func:`data` and the estimators of :func:`estimators`, measured
    by :func:`measure_peak_fit`.
    """
    return measure_peak_fit(f"""from bench_fit import data, estimators, CRITERIA
X, y = data(CRITERIA[{criterion!r}], {n}, {d})
ours, theirs = estimators({criterion!r}, {depth!r})
estimator = ours if {library!r} == "dtree" else theirs
""")


def measure_peak_fit(setup):
    """Peak RSS (MiB) of ``estimator.fit(X, y)`` in a fresh process, above its RSS just before.

    ``setup`` is Python code, run in that process with this folder on its
    path, that defines ``X``, ``y`` and ``estimator`` (and, optionally, ``fit_kwargs``).  Linux: writing 5 to
    /proc/self/clear_refs resets the peak (VmHWM) to the current RSS, so the
    peak of making the data does not count.  Before it, a fit on 50 rows loads
    whatever ``fit`` imports lazily, and a fit of the same ``X`` loads the
    compiled sweep of ``X``'s types (``dtree.kernels``: Numba compiles, or loads
    from its cache, one version per array type, once per process, as
    scikit-learn loads its compiled code on import); glibc's ``malloc_trim(0)`` then hands the
    heap's free pages back to the system: without it, a fit that reuses pages
    freed while the data were made (scikit-learn's float32 copy of X, for one)
    would not show them in its RSS.
    """
    code = f"""
import ctypes, json, sys
sys.path.insert(0, {sys.path[0]!r})
from sklearn.base import clone
import dtree.kernels
dtree.kernels.COMPILE_IN_FOREGROUND = True
{setup}
def status_kib(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))
fit_kwargs = globals().get("fit_kwargs", {{}})
warm = {{k: (None if v is None else v[:50]) for k, v in fit_kwargs.items()}}
clone(estimator).fit(X[:50], y[:50], **warm)
clone(estimator).fit(X, y, **fit_kwargs)
try:
    ctypes.CDLL("libc.so.6").malloc_trim(0)
except (OSError, AttributeError):   # not glibc: the baseline may include free heap pages
    pass
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
baseline = status_kib("VmRSS")
estimator.fit(X, y, **fit_kwargs)
print(json.dumps((status_kib("VmHWM") - baseline) / 1024))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def best_times(fns, repeat):
    """Best time of each function, running them in turn ``repeat`` times."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def environment():
    """The CSV's version and machine columns: no host name, no date."""
    import numpy
    import sklearn

    import dtree

    return {"dtree_version": dtree.__version__, "sklearn_version": sklearn.__version__,
            "numpy_version": numpy.__version__, "python_version": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"}


def significant(x, digits):
    """``x`` rounded to ``digits`` significant digits, for a readable CSV."""
    return float(f"{x:.{digits}g}")


def csv_writer(path, append):
    """A csv.DictWriter on ``path``; writes the header unless it appends to a file that has one."""
    if append and os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, newline="") as f:
            header = next(csv.reader(f))
        if header != CSV_COLUMNS:
            sys.exit(f"--append: {path} has the columns {header}, expected {CSV_COLUMNS}")
        f = open(path, "a", newline="")
        return f, csv.DictWriter(f, fieldnames=CSV_COLUMNS)
    f = open(path, "w", newline="")
    writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    return f, writer


def timed_pair(ours, theirs, X, y, X_predict, fit_repeat, predict_repeat):
    """Best fit and predict times of dtree's and scikit-learn's estimator, as CSV fields.

    The two are timed alternately (:func:`best_times`), fit on ``(X, y)`` and predict
    on ``X_predict``; the fields are the times, their ratios (dtree / scikit-learn)
    and the two trees' node counts.
    """
    fit = best_times([lambda: ours.fit(X, y), lambda: theirs.fit(X, y)], fit_repeat)
    predict = best_times([lambda: ours.predict(X_predict), lambda: theirs.predict(X_predict)],
                         predict_repeat)
    return {"dtree_fit_s": significant(fit[0], 6), "sklearn_fit_s": significant(fit[1], 6),
            "fit_ratio": significant(fit[0] / fit[1], 4),
            "dtree_predict_s": significant(predict[0], 6),
            "sklearn_predict_s": significant(predict[1], 6),
            "predict_ratio": significant(predict[0] / predict[1], 4),
            "dtree_nodes": ours.tree_.node_count, "sklearn_nodes": theirs.tree_.node_count}


def run_writing(path, columns, run):
    """Call ``run(writer)`` with a ``csv.DictWriter`` on a new CSV file ``path`` (its
    header written), or with None when ``path`` is empty: the ``--csv`` option of the
    benchmark scripts."""
    if not path:
        return run(None)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        return run(writer)


def main():
    import dtree.kernels

    dtree.kernels.COMPILE_IN_FOREGROUND = True     # time compiled code (see bench_real.py)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--criteria", nargs="+", default=["gini", "entropy", "squared_error",
                                                          "poisson"], choices=list(CRITERIA))
    parser.add_argument("--depths", nargs="+", default=["None", "10"])
    parser.add_argument("--repeat", type=int, default=3,
                        help=f"best of this many fits (predict: at least {PREDICT_REPEAT})")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory column")
    parser.add_argument("--csv", metavar="PATH", help="also write the rows to this CSV file")
    parser.add_argument("--append", action="store_true",
                        help="with --csv: add the rows to an existing file (same columns)")
    args = parser.parse_args()
    depths = [None if d == "None" else int(d) for d in args.depths]
    csv_file, writer = csv_writer(args.csv, args.append) if args.csv else (None, None)
    machine = environment()

    print(f"{'criterion':<15}{'n':>9}{'depth':>6}"
          f"{'fit dtree':>11}{'fit sk':>9}{'ratio':>7}{'pred ratio':>11}"
          f"{'mem dtree':>11}{'mem sk':>8}{'mem ratio':>10}", flush=True)
    for n in args.sizes:
        for criterion in args.criteria:
            X, y = data(CRITERIA[criterion], n, args.features)
            for depth in depths:
                ours, theirs = estimators(criterion, depth)
                t_ours, t_theirs = best_times([lambda: ours.fit(X, y), lambda: theirs.fit(X, y)],
                                              args.repeat)
                # predict lasts a fraction of fit: at least PREDICT_REPEAT runs, cheap
                # and steadier than --repeat alone (best of 3 moved ratios by 0.2)
                p_ours, p_theirs = best_times([lambda: ours.predict(X), lambda: theirs.predict(X)],
                                              max(args.repeat, PREDICT_REPEAT))
                line = (f"{criterion:<15}{n:>9}{str(depth):>6}"
                        f"{t_ours:>10.3f}s{t_theirs:>8.3f}s{t_ours / t_theirs:>7.2f}"
                        f"{p_ours / p_theirs:>11.2f}")
                # times to 6 significant digits, ratios to 4, of the times as written
                t_ours, t_theirs, p_ours, p_theirs = (significant(t, 6) for t in
                                                      (t_ours, t_theirs, p_ours, p_theirs))
                row = {"task": CRITERIA[criterion], "criterion": criterion, "n_samples": n,
                       "n_features": args.features, "max_depth": str(depth),
                       "dtree_fit_s": t_ours, "sklearn_fit_s": t_theirs,
                       "fit_ratio": significant(t_ours / t_theirs, 4),
                       "dtree_predict_s": p_ours, "sklearn_predict_s": p_theirs,
                       "predict_ratio": significant(p_ours / p_theirs, 4),
                       "dtree_peak_rss_mb": "", "sklearn_peak_rss_mb": "", "memory_ratio": "",
                       **machine}
                if not args.no_memory:
                    m_ours = peak_fit_mib("dtree", criterion, n, args.features, depth)
                    m_theirs = peak_fit_mib("sklearn", criterion, n, args.features, depth)
                    # a peak below 0.1 MiB is below the method's resolution: divide by 0.1
                    m_ratio = m_ours / max(m_theirs, 0.1)
                    line += f"{m_ours:>10.1f}M{m_theirs:>7.1f}M{m_ratio:>10.2f}"
                    row.update(dtree_peak_rss_mb=m_ours, sklearn_peak_rss_mb=m_theirs,
                               memory_ratio=significant(m_ratio, 4))  # MiB: KiB / 1024, exact
                print(line, flush=True)
                if writer:
                    writer.writerow(row)
                    csv_file.flush()  # a long run that is stopped keeps its rows
    if csv_file:
        csv_file.close()


if __name__ == "__main__":
    main()
