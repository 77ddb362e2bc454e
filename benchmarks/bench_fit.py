"""Time dtree's CART against scikit-learn's on the same data, in the same run.

Prints, for each size, depth and criterion, the fit and predict times of both
libraries and their ratios (dtree / scikit-learn; below 1 means dtree is
faster), and the peak memory of one fit of each library: a fresh child
process imports both libraries, makes the data, resets its peak resident set
size (Linux ``/proc/self/clear_refs``), records its RSS, fits once and
reports its peak RSS; the table shows peak minus that baseline (MiB), so the
data and the imports count for neither library.

    .venv/bin/python benchmarks/bench_fit.py                     # n = 1e3 .. 1e5
    .venv/bin/python benchmarks/bench_fit.py --sizes 1000000 --criteria gini squared_error --depths 10 --repeat 1
    .venv/bin/python benchmarks/bench_fit.py --sizes 1000 10000 --criteria absolute_error

Timings are the best of ``--repeat`` runs, dtree and scikit-learn alternating
(a machine shared with other work slows both alike).  Nothing here is
asserted: the ratios are measurements to read, not tests.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CRITERIA = {"gini": "classification", "entropy": "classification",
            "squared_error": "regression", "poisson": "regression",
            "absolute_error": "regression"}


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

    Linux: writing 5 to /proc/self/clear_refs resets the peak (VmHWM) to the
    current RSS, so the peak of making the data does not count.
    """
    code = f"""
import json, sys
sys.path.insert(0, {sys.path[0]!r})
from bench_fit import data, estimators, CRITERIA
def status_kib(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))
X, y = data(CRITERIA[{criterion!r}], {n}, {d})
ours, theirs = estimators({criterion!r}, {depth!r})
estimator = ours if {library!r} == "dtree" else theirs
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
baseline = status_kib("VmRSS")
estimator.fit(X, y)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--criteria", nargs="+", default=["gini", "entropy", "squared_error",
                                                          "poisson"], choices=list(CRITERIA))
    parser.add_argument("--depths", nargs="+", default=["None", "10"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-memory", action="store_true", help="skip the memory column")
    args = parser.parse_args()
    depths = [None if d == "None" else int(d) for d in args.depths]

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
                p_ours, p_theirs = best_times([lambda: ours.predict(X), lambda: theirs.predict(X)],
                                              max(args.repeat, 3))
                line = (f"{criterion:<15}{n:>9}{str(depth):>6}"
                        f"{t_ours:>10.3f}s{t_theirs:>8.3f}s{t_ours / t_theirs:>7.2f}"
                        f"{p_ours / p_theirs:>11.2f}")
                if not args.no_memory:
                    m_ours = peak_fit_mib("dtree", criterion, n, args.features, depth)
                    m_theirs = peak_fit_mib("sklearn", criterion, n, args.features, depth)
                    line += (f"{m_ours:>10.1f}M{m_theirs:>7.1f}M"
                             f"{m_ours / max(m_theirs, 0.1):>10.2f}")
                print(line, flush=True)


if __name__ == "__main__":
    main()
