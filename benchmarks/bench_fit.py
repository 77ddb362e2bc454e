"""Time dtree's CART against scikit-learn's on the same data, in the same run.

Prints, for each size, depth and criterion, the fit and predict times of both
libraries, their ratio (dtree / scikit-learn; below 1 means dtree is faster)
and the peak memory that each fit allocates (tracemalloc, in MiB).

    .venv/bin/python benchmarks/bench_fit.py                 # n = 1e3 .. 1e5
    .venv/bin/python benchmarks/bench_fit.py --sizes 1000 1000000 --repeat 1

Timings are the best of ``--repeat`` runs.  Nothing here is asserted: the
ratios are measurements to read, not tests.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from sklearn import tree as sk
from sklearn.datasets import make_classification, make_regression

import dtree

CRITERIA = {"classification": ["gini", "entropy"],
            "regression": ["squared_error", "poisson"]}


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_mib(fn):
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def data(task, n, d, seed=0):
    if task == "classification":
        return make_classification(n_samples=n, n_features=d, n_informative=d // 2,
                                   random_state=seed)
    X, y = make_regression(n_samples=n, n_features=d, noise=1.0, random_state=seed)
    return X, y - y.min() + 1.0  # poisson needs y >= 0; a shift changes no squared-error split


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    print(f"{'task':<15}{'n':>9}{'depth':>6}{'criterion':>15}"
          f"{'fit dtree':>11}{'fit sk':>9}{'ratio':>7}{'pred ratio':>11}"
          f"{'mem dtree':>11}{'mem sk':>8}{'mem ratio':>10}")
    for n in args.sizes:
        for task, criteria in CRITERIA.items():
            X, y = data(task, n, args.features)
            ours_cls = dtree.DecisionTreeClassifier if task == "classification" else dtree.DecisionTreeRegressor
            their_cls = sk.DecisionTreeClassifier if task == "classification" else sk.DecisionTreeRegressor
            for depth in (None, 10):
                for criterion in criteria:
                    ours = ours_cls(criterion=criterion, max_depth=depth)
                    theirs = their_cls(criterion=criterion, max_depth=depth, random_state=0)
                    t_ours = best_time(lambda: ours.fit(X, y), args.repeat)
                    t_theirs = best_time(lambda: theirs.fit(X, y), args.repeat)
                    p_ours = best_time(lambda: ours.predict(X), args.repeat)
                    p_theirs = best_time(lambda: theirs.predict(X), args.repeat)
                    m_ours = peak_mib(lambda: ours.fit(X, y))
                    m_theirs = peak_mib(lambda: theirs.fit(X, y))
                    print(f"{task:<15}{n:>9}{str(depth):>6}{criterion:>15}"
                          f"{t_ours:>10.3f}s{t_theirs:>8.3f}s{t_ours / t_theirs:>7.2f}"
                          f"{p_ours / p_theirs:>11.2f}"
                          f"{m_ours:>10.1f}M{m_theirs:>7.1f}M{m_ours / max(m_theirs, 1e-9):>10.2f}",
                          flush=True)


if __name__ == "__main__":
    main()
