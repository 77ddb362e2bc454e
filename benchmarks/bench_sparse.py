"""Time dtree's trees against scikit-learn's on a sparse, bag-of-words-shaped matrix.

Issue 23's shape: n = 10⁴ documents, d = 10⁴ words, 0.5 % of the entries
stored (about 50 words per document), each a word count from 1 to 5; the
class (or the regression target) is a noisy linear score of 5 % of the words.
Both libraries fit the same CSC matrix and predict on its CSR copy, in the
same run, alternating, best of ``--repeat`` (predict: at least 15); the ratio is
dtree / scikit-learn.  Both depths (full, ``max_depth=10``); Gini, entropy and
squared error.

``--scale`` instead fits dtree alone on 10⁵ x 10⁵ at 0.1 % (10⁷ stored values;
dense, 40 GB in float32) with ``max_depth=5`` and prints the time and the peak
resident memory of the process: it shows that the matrix is never densified.

    .venv/bin/python benchmarks/bench_sparse.py --repeat 3 --csv results_sparse.csv
    .venv/bin/python benchmarks/bench_sparse.py --scale

Nothing here is asserted: the ratios are measurements to read, not tests.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np

from bench_fit import PREDICT_REPEAT, environment, run_writing, timed_pair

CRITERIA = {"classification": ["gini", "entropy"], "regression": ["squared_error"]}
DEPTHS = [None, 10]
CSV_COLUMNS = ["task", "criterion", "n_samples", "n_features", "density", "max_depth",
               "dtree_fit_s", "sklearn_fit_s", "fit_ratio", "dtree_predict_s",
               "sklearn_predict_s", "predict_ratio", "dtree_nodes", "sklearn_nodes",
               "dtree_version", "sklearn_version", "numpy_version", "python_version",
               "machine"]


def bag_of_words(task, n=10_000, d=10_000, density=0.005, seed=0):
    """A CSC matrix of word counts 1..5 at ``density``, and a target from 5 % of the words."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    k = int(round(n * d * density))
    X = sp.coo_matrix((rng.integers(1, 6, k).astype(np.float64),
                       (rng.integers(0, n, k), rng.integers(0, d, k))), shape=(n, d)).tocsc()
    X.sum_duplicates()
    weights = rng.normal(size=d) * (rng.random(d) < 0.05)
    score = X @ weights + rng.normal(scale=0.5, size=n)
    y = (score > 0).astype(int) if task == "classification" else score
    return X, y


def estimators(task, criterion, depth):
    from sklearn import tree as sk

    import dtree

    name = "DecisionTreeClassifier" if task == "classification" else "DecisionTreeRegressor"
    return (getattr(dtree, name)(criterion=criterion, max_depth=depth),
            getattr(sk, name)(criterion=criterion, max_depth=depth, random_state=0))


def run(repeat, writer, size=10_000):
    env = environment()
    print(f"{'task':15s}{'criterion':15s}{'depth':>6s}{'fit ratio':>11s}{'predict ratio':>15s}")
    for task, names in CRITERIA.items():
        X, y = bag_of_words(task, n=size, d=size)
        X_csr = X.tocsr()
        for criterion in names:
            for depth in DEPTHS:
                ours, theirs = estimators(task, criterion, depth)
                row = {"task": task, "criterion": criterion, "n_samples": X.shape[0],
                       "n_features": X.shape[1], "density": 0.005, "max_depth": depth,
                       **timed_pair(ours, theirs, X, y, X_csr, repeat,
                                    max(repeat, PREDICT_REPEAT)), **env}
                print(f"{task:15s}{criterion:15s}{str(depth):>6s}{row['fit_ratio']:>11.3g}"
                      f"{row['predict_ratio']:>15.3g}", flush=True)
                if writer is not None:
                    writer.writerow(row)


def scale():
    import scipy.sparse as sp

    import dtree

    n = d = 100_000
    rng = np.random.default_rng(0)
    k = n * d // 1000
    X = sp.coo_matrix((rng.integers(1, 6, k).astype(np.float32),
                       (rng.integers(0, n, k), rng.integers(0, d, k))), shape=(n, d)).tocsc()
    X.sum_duplicates()
    y = (X @ (rng.normal(size=d) * (rng.random(d) < 0.01)) > 0).astype(int)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    tree = dtree.DecisionTreeClassifier(max_depth=5).fit(X, y)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n} x {d}, {X.nnz} stored values ({X.data.nbytes / 2**20:.0f} MiB of float32 "
          f"values; dense: {n * d * 4 / 2**30:.0f} GiB): fit max_depth=5 in {seconds:.1f} s, "
          f"{tree.tree_.node_count} nodes; peak resident memory {peak:.0f} MiB "
          f"({before:.0f} MiB before the fit)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many fits")
    parser.add_argument("--csv", metavar="PATH", help="also write the rows to this CSV file")
    parser.add_argument("--size", type=int, default=10_000, metavar="N",
                        help="n = d = N (the committed run: 10^4)")
    parser.add_argument("--scale", action="store_true",
                        help="fit 10^5 x 10^5 at 0.1 %% once and print time and memory")
    args = parser.parse_args()
    if args.scale:
        scale()
        return
    run_writing(args.csv, CSV_COLUMNS, lambda writer: run(args.repeat, writer, args.size))


if __name__ == "__main__":
    sys.exit(main())
