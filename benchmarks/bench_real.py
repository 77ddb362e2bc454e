"""Time dtree's trees against scikit-learn's on data shaped like real data.

``bench_fit.py`` times one shape (continuous ``make_classification`` data,
20 features, two classes), which hides the slow paths: features constant in a
node, runs of tied values, many classes, one-hot columns, small data. This
script times the shapes of issue 22, each a named data set (``DATASETS``):

* the real data sets bundled with scikit-learn: iris, wine, breast cancer,
  digits (classification) and diabetes (regression);
* many classes (10 and 100), integer-valued features with few distinct values
  (ties), binary one-hot columns (d = 100), a covertype-shaped table (10 numeric
  and 44 one-hot columns, 7 classes), a wide table (d = 500), a tall one
  (n = 10⁶, d = 10), and regression on values rounded to 0.01 (ties).

For each data set, criterion and depth (full depth, ``max_depth=10``) it prints
and optionally writes (``--csv``) the fit and predict times of dtree and
scikit-learn, best of ``--repeat`` (predict, and the fits of the data sets below
``MEMORY_MIN_N`` rows, most of which last milliseconds: at least ``PREDICT_REPEAT``), the
two libraries alternating, their ratios dtree / scikit-learn, and from
n = 10⁴ on the peak memory of one fit in a fresh process (as ``bench_fit.py``
measures it). ``--multiway`` instead times ID3 and C4.5 on 10⁵ rows with a
1000-valued nominal feature and 20 numeric features, against dtree's own CART
on the same rows (``multiway_data``).

    .venv/bin/python benchmarks/bench_real.py                       # every data set
    .venv/bin/python benchmarks/bench_real.py --datasets iris digits --repeat 3
    .venv/bin/python benchmarks/bench_real.py --multiway

Nothing here is asserted: the ratios are measurements to read, not tests.
"""

from __future__ import annotations

import argparse

from bench_fit import PREDICT_REPEAT, best_times, environment, measure_peak_fit, significant

CLASSIFICATION = ["gini", "entropy"]
REGRESSION = ["squared_error", "friedman_mse", "poisson", "absolute_error"]
# scikit-learn's absolute error keeps sorted medians: O(n²) per node and feature,
# minutes beyond a few thousand rows; it is timed on the small data sets only.
ABSOLUTE_ERROR_MAX_N = 10_000
# Below it scikit-learn's whole fit is a fraction of a MiB (no memory is measured),
# and fits are the best of at least PREDICT_REPEAT: the bundled data sets' last
# milliseconds, where a best of 3 is the machine's noise (the wide table's take seconds).
MEMORY_MIN_N = 10_000

CSV_COLUMNS = ["dataset", "task", "criterion", "n_samples", "n_features", "n_classes",
               "max_depth", "dtree_fit_s", "sklearn_fit_s", "fit_ratio",
               "dtree_predict_s", "sklearn_predict_s", "predict_ratio",
               "dtree_peak_rss_mb", "sklearn_peak_rss_mb", "memory_ratio",
               "dtree_version", "sklearn_version", "numpy_version", "python_version", "machine"]
MULTIWAY_COLUMNS = ["estimator", "n_samples", "n_features", "nominal_values", "fit_s",
                    "cart_fit_s", "cart_ratio", "n_leaves", "dtree_version", "numpy_version",
                    "python_version", "machine"]


def _one_hot(codes, levels):
    """Binary columns, one per (feature, level): codes (n, k) in [0, levels) -> (n, k·levels)."""
    import numpy as np

    n, k = codes.shape
    out = np.zeros((n, k * levels))
    out[np.arange(n)[:, None], np.arange(k) * levels + codes] = 1.0
    return out


def _classes(score, n_classes):
    """Classes by quantiles of a score, so that every class has about n / n_classes rows."""
    import numpy as np

    cuts = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    return np.searchsorted(cuts, score)


def dataset(name):
    """``(X, y, task)`` of the named data set; every random one is seeded."""
    import numpy as np
    from sklearn import datasets as sk

    rng = np.random.default_rng(0)
    if name in ("iris", "wine", "breast_cancer", "digits"):
        X, y = getattr(sk, f"load_{name}")(return_X_y=True)
        return X, y, "classification"
    if name == "diabetes":
        X, y = sk.load_diabetes(return_X_y=True)
        return X, y, "regression"
    if name in ("classes_10", "classes_100"):
        k = int(name.split("_")[1])
        X, y = sk.make_classification(n_samples=10_000 * (1 + (k > 10)), n_features=20,
                                      n_informative=10, n_classes=k, n_clusters_per_class=1,
                                      random_state=0)
        return X, y, "classification"
    if name == "tied_integers":
        # make_classification rounded: about ten distinct values per feature
        X, y = sk.make_classification(n_samples=50_000, n_features=20, n_informative=10,
                                      random_state=0)
        return np.round(X * 2), y, "classification"
    if name == "one_hot":
        codes = rng.integers(0, 10, size=(20_000, 10))
        noise = rng.random(20_000) < 0.1
        y = ((codes[:, 0] + codes[:, 1] % 3 + (codes[:, 2] > 6)) % 2) ^ noise
        return _one_hot(codes, 10), y.astype(int), "classification"
    if name == "covertype_like":
        n = 100_000
        numeric = rng.normal(size=(n, 10)).round(2) * 100
        codes = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 40, n)])
        X = np.hstack([numeric, _one_hot(codes[:, :1], 4), _one_hot(codes[:, 1:], 40)])
        score = numeric[:, 0] + 0.5 * numeric[:, 1] + 30 * codes[:, 0] + codes[:, 1]
        y = _classes(score + rng.normal(scale=40, size=n), 7)
        return X, y, "classification"
    if name == "wide":
        X, y = sk.make_classification(n_samples=5_000, n_features=500, n_informative=20,
                                      random_state=0)
        return X, y, "classification"
    if name == "tall":
        X, y = sk.make_classification(n_samples=1_000_000, n_features=10, n_informative=5,
                                      random_state=0)
        return X, y, "classification"
    if name == "friedman_rounded":
        X, y = sk.make_friedman1(n_samples=50_000, n_features=10, noise=1.0, random_state=0)
        return X.round(2), y - y.min() + 1.0, "regression"   # poisson needs y >= 0
    if name == "tall_regression":
        X, y = sk.make_regression(n_samples=1_000_000, n_features=10, noise=1.0, random_state=0)
        return X, y - y.min() + 1.0, "regression"
    if name in SETTINGS:
        # the settings users run, on continuous data of 5·10⁴ rows and 20 features
        # (binary_20: 2·10⁴ rows of 100 binary columns, 20 % ones)
        if name == "binary_20":
            X = (rng.random((20_000, 100)) < 0.2).astype(float)
            score = X[:, :10] @ rng.normal(size=10) + rng.normal(scale=0.5, size=20_000)
            return X, (score > np.median(score)).astype(int), "classification"
        X, y = sk.make_classification(n_samples=50_000, n_features=20, n_informative=10,
                                      random_state=0)
        if name == "missing_10":
            X[rng.random(X.shape) < 0.1] = np.nan
        return X, y, "classification"
    raise ValueError(f"dataset: unknown name {name!r}; expected one of "
                     f"{DATASETS + SETTING_DATASETS}")


# The settings users run beyond the defaults (issue 41), each a data set of its
# own: estimator parameters and the sample weights of fit ("poisson": a
# bootstrap's counts, as a random forest draws them; "fractional": uniform on
# [0.5, 2]).  Both libraries get the same parameters and weights.
SETTINGS = {
    "missing_10": ({}, None),
    "forest_draw": ({"max_features": "sqrt"}, "poisson"),
    "extra_trees_draw": ({"splitter": "random", "max_features": "sqrt"}, None),
    "fractional_weights": ({}, "fractional"),
    "max_leaf_nodes": ({"max_leaf_nodes": 1000}, None),
    "binary_20": ({}, None),
}


def sample_weight(name, n):
    """The sample weights of the setting ``name`` (None: none)."""
    import numpy as np

    kind = SETTINGS.get(name, ({}, None))[1]
    rng = np.random.default_rng(1)
    if kind == "poisson":
        return rng.poisson(1.0, n).astype(float)
    if kind == "fractional":
        return rng.uniform(0.5, 2.0, n)
    return None


DATASETS = ["iris", "wine", "breast_cancer", "digits", "diabetes", "classes_10", "classes_100",
            "tied_integers", "one_hot", "covertype_like", "wide", "friedman_rounded", "tall",
            "tall_regression"]
# The settings users run (SETTINGS), timed with --datasets naming them;
# benchmarks/results_settings.csv is their committed run.
SETTING_DATASETS = ["missing_10", "forest_draw", "extra_trees_draw", "fractional_weights",
                    "max_leaf_nodes", "binary_20"]
# the tall tables are grown to max_depth=10 only (a full-depth tree of 10⁶ rows
# is 10⁵ leaves of noise, which nobody grows) and with one criterion per task
TALL = {"tall": ["gini"], "tall_regression": ["squared_error"]}


def criteria(name, task, n):
    """The criteria timed on a data set: every one of its task, within the limits above."""
    if name in TALL:
        return TALL[name]
    if task == "classification":
        return CLASSIFICATION
    return [c for c in REGRESSION if c != "absolute_error" or n <= ABSOLUTE_ERROR_MAX_N]


def depths(name):
    return [10] if name in TALL else [None, 10]


def estimators(task, criterion, depth, name=None):
    """dtree's and scikit-learn's estimators (with the setting ``name``'s parameters)."""
    from sklearn import tree as sk

    import dtree

    params = {"criterion": criterion, "max_depth": depth,
              **SETTINGS.get(name, ({}, None))[0]}
    if task == "classification":
        return (dtree.DecisionTreeClassifier(**params, random_state=0),
                sk.DecisionTreeClassifier(**params, random_state=0))
    return (dtree.DecisionTreeRegressor(**params, random_state=0),
            sk.DecisionTreeRegressor(**params, random_state=0))


def peak_fit_mib(library, name, criterion, depth):
    """Peak RSS (MiB) of one fit in a fresh process, above its RSS just before the fit.

    ``bench_fit.measure_peak_fit`` on the data set ``name`` (:func:`dataset`).
    """
    return measure_peak_fit(f"""from bench_real import dataset, estimators, sample_weight
X, y, task = dataset({name!r})
ours, theirs = estimators(task, {criterion!r}, {depth!r}, {name!r})
estimator = ours if {library!r} == "dtree" else theirs
fit_kwargs = {{"sample_weight": sample_weight({name!r}, len(y))}}
""")


def multiway_data(n=100_000, values=1000, numeric=20, seed=0):
    """10⁵ rows: one nominal feature with ``values`` values and ``numeric`` numeric ones.

    Returns ``(frame, codes, binned, y)``: a DataFrame for C4.5 (the nominal
    column as strings, the numeric ones as floats), the same table with the
    nominal column as integer codes (for CART, which has no nominal features),
    and the table with every numeric feature cut into 10 quantile bins (ID3
    takes nominal features only). The class depends on the nominal value and
    two numeric features, with 10 % noise.
    """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    nominal = rng.integers(0, values, n)
    X = rng.normal(size=(n, numeric))
    y = ((nominal % 7 < 3) ^ (X[:, 0] + X[:, 1] > 0) ^ (rng.random(n) < 0.1)).astype(int)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(numeric)])
    frame.insert(0, "nominal", [f"v{v}" for v in nominal])
    codes = np.column_stack([nominal, X])
    edges = np.quantile(X, np.linspace(0, 1, 11)[1:-1], axis=0)
    bins = np.column_stack([np.searchsorted(edges[:, j], X[:, j]) for j in range(numeric)])
    binned = pd.DataFrame(np.column_stack([nominal, bins]).astype(str),
                          columns=frame.columns)
    return frame, codes, binned, y


def run_multiway(repeat, writer, n):
    import dtree

    frame, codes, binned, y = multiway_data(n)
    cart = dtree.DecisionTreeClassifier(criterion="entropy")
    runs = [("ID3", dtree.ID3Classifier(), binned), ("C4.5", dtree.C45Classifier(), frame)]
    machine = environment()
    print(f"{'estimator':<10}{'fit':>9}{'CART fit':>10}{'ratio':>7}{'leaves':>8}", flush=True)
    for label, estimator, X in runs:
        t, t_cart = best_times([lambda: estimator.fit(X, y), lambda: cart.fit(codes, y)], repeat)
        leaves = estimator.get_n_leaves() if hasattr(estimator, "get_n_leaves") else ""
        print(f"{label:<10}{t:>8.2f}s{t_cart:>9.2f}s{t / t_cart:>7.2f}{leaves:>8}", flush=True)
        if writer:
            writer.writerow({"estimator": label, "n_samples": len(y), "n_features": X.shape[1],
                             "nominal_values": 1000, "fit_s": significant(t, 6),
                             "cart_fit_s": significant(t_cart, 6),
                             "cart_ratio": significant(t / t_cart, 4), "n_leaves": leaves,
                             **{k: v for k, v in machine.items() if k != "sklearn_version"}})


def main():
    import dtree.kernels

    # compiled code, compiled before it is timed (a small fit on a machine that
    # has not compiled it yet would otherwise run the loop as written)
    dtree.kernels.COMPILE_IN_FOREGROUND = True
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS,
                        choices=DATASETS + SETTING_DATASETS)
    parser.add_argument("--repeat", type=int, default=5,
                        help=f"best of this many fits (predict, and fits below "
                             f"{MEMORY_MIN_N} rows: at least {PREDICT_REPEAT})")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory columns")
    parser.add_argument("--multiway", action="store_true",
                        help="time ID3 and C4.5 against CART instead (multiway_data)")
    parser.add_argument("--multiway-samples", type=int, default=100_000, metavar="N",
                        help="with --multiway: the number of rows (default 10⁵)")
    parser.add_argument("--csv", metavar="PATH", help="also write the rows to this CSV file")
    args = parser.parse_args()
    import csv

    columns = MULTIWAY_COLUMNS if args.multiway else CSV_COLUMNS
    csv_file = open(args.csv, "w", newline="") if args.csv else None
    writer = csv.DictWriter(csv_file, fieldnames=columns) if csv_file else None
    if writer:
        writer.writeheader()
    if args.multiway:
        run_multiway(args.repeat, writer, args.multiway_samples)
        return
    machine = environment()
    print(f"{'dataset':<17}{'criterion':<15}{'n':>8}{'d':>5}{'depth':>6}"
          f"{'fit dtree':>11}{'fit sk':>9}{'ratio':>7}{'pred ratio':>11}{'mem ratio':>10}",
          flush=True)
    for name in args.datasets:
        X, y, task = dataset(name)
        n, d = X.shape
        n_classes = len(set(y.tolist())) if task == "classification" else ""
        for criterion in criteria(name, task, n):
            for depth in depths(name):
                ours, theirs = estimators(task, criterion, depth, name)
                w = sample_weight(name, n)
                repeat = args.repeat if n < 10**6 else min(args.repeat, 3)
                # below MEMORY_MIN_N rows, at least PREDICT_REPEAT fits (see there)
                fit_repeat = max(repeat, PREDICT_REPEAT) if n < MEMORY_MIN_N else repeat
                t_ours, t_theirs = best_times([lambda: ours.fit(X, y, sample_weight=w),
                                               lambda: theirs.fit(X, y, sample_weight=w)],
                                              fit_repeat)
                p_ours, p_theirs = best_times([lambda: ours.predict(X),
                                               lambda: theirs.predict(X)],
                                              max(repeat, PREDICT_REPEAT))
                line = (f"{name:<17}{criterion:<15}{n:>8}{d:>5}{str(depth):>6}"
                        f"{t_ours:>10.3f}s{t_theirs:>8.3f}s{t_ours / t_theirs:>7.2f}"
                        f"{p_ours / p_theirs:>11.2f}")
                t_ours, t_theirs, p_ours, p_theirs = (significant(t, 6) for t in
                                                      (t_ours, t_theirs, p_ours, p_theirs))
                row = {"dataset": name, "task": task, "criterion": criterion, "n_samples": n,
                       "n_features": d, "n_classes": n_classes, "max_depth": str(depth),
                       "dtree_fit_s": t_ours, "sklearn_fit_s": t_theirs,
                       "fit_ratio": significant(t_ours / t_theirs, 4),
                       "dtree_predict_s": p_ours, "sklearn_predict_s": p_theirs,
                       "predict_ratio": significant(p_ours / p_theirs, 4),
                       "dtree_peak_rss_mb": "", "sklearn_peak_rss_mb": "", "memory_ratio": "",
                       **machine}
                if not args.no_memory and n >= MEMORY_MIN_N:
                    m_ours = peak_fit_mib("dtree", name, criterion, depth)
                    m_theirs = peak_fit_mib("sklearn", name, criterion, depth)
                    m_ratio = m_ours / max(m_theirs, 0.1)  # below 0.1 MiB: the resolution
                    line += f"{m_ratio:>10.2f}"
                    row.update(dtree_peak_rss_mb=m_ours, sklearn_peak_rss_mb=m_theirs,
                               memory_ratio=significant(m_ratio, 4))
                print(line, flush=True)
                if writer:
                    writer.writerow(row)
                    csv_file.flush()
    if csv_file:
        csv_file.close()


if __name__ == "__main__":
    main()
