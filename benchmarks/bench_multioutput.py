"""Time dtree's trees against scikit-learn's on multi-output y (n_samples, n_outputs).

The shapes (``datasets``; every one grown at full depth and at ``max_depth=10``):

* ``regression``: ``make_regression(n_targets=3)``, d = 15 continuous features,
  the three targets shifted to a minimum of 1 (Poisson needs y >= 0; a shift
  changes no squared-error split); squared error, Friedman MSE and Poisson at
  every ``--sizes`` n, absolute error at n = 10^3 only (``ABSOLUTE_ERROR_N``:
  scikit-learn's criterion is quadratic per node, 18 s a fit at 10^4);
* ``classification``: d = 15 standard normal features and three outputs of
  2, 5 and 10 classes, each the quantile bins of its own noisy linear score;
  Gini and entropy at every ``--sizes`` n;
* ``multilabel``: ``make_multilabel_classification(n_samples=10^4, n_classes=5)``
  (20 integer count features, 5 binary outputs), the shape of scikit-learn's
  own multilabel tests; Gini and entropy;
* ``linnerud``: scikit-learn's bundled 20 x 3 data set with 3 outputs; every
  regression criterion.  Its fits last a millisecond: they take the best of at
  least ``PREDICT_REPEAT`` runs, as predict does everywhere.

Both libraries fit the same arrays and predict on the training X, alternating,
best of ``--repeat`` (predict: at least 15); the ratio is dtree / scikit-learn.
The node counts of both trees are written next to the times and a line is
printed for every setting where they differ (ties between equally good splits
are broken differently).

    .venv/bin/python benchmarks/bench_multioutput.py --repeat 3 --csv results_multioutput.csv
    .venv/bin/python benchmarks/bench_multioutput.py --sizes 1000 --repeat 1   # a quick look

Nothing here is asserted: the ratios are measurements to read, not tests.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from bench_fit import PREDICT_REPEAT, environment, run_writing, timed_pair

CRITERIA = {"regression": ["squared_error", "friedman_mse", "poisson", "absolute_error"],
            "classification": ["gini", "entropy"]}
DEPTHS = [None, 10]
SIZES = [10_000]                 # the default --sizes
ABSOLUTE_ERROR_N = 1_000         # the synthetic regression's absolute error: this n only
MULTILABEL_N = 10_000
CLASS_COUNTS = (2, 5, 10)
N_FEATURES = 15
CSV_COLUMNS = ["dataset", "task", "criterion", "n_samples", "n_features", "n_outputs",
               "n_classes", "max_depth", "dtree_fit_s", "sklearn_fit_s", "fit_ratio",
               "dtree_predict_s", "sklearn_predict_s", "predict_ratio", "dtree_nodes",
               "sklearn_nodes", "dtree_version", "sklearn_version", "numpy_version",
               "python_version", "machine"]


def regression(n, seed=0):
    from sklearn.datasets import make_regression

    X, y = make_regression(n_samples=n, n_features=N_FEATURES, n_informative=10, n_targets=3,
                           noise=1.0, random_state=seed)
    return X, y - y.min(axis=0) + 1.0


def classification(n, seed=0):
    """Three outputs of 2, 5 and 10 classes: quantile bins of three noisy linear scores."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, N_FEATURES))
    outputs = []
    for k in CLASS_COUNTS:
        score = X @ rng.normal(size=N_FEATURES) + rng.normal(size=n)
        outputs.append(np.searchsorted(np.quantile(score, np.arange(1, k) / k), score))
    return X, np.column_stack(outputs)


def multilabel(n=MULTILABEL_N, seed=0):
    from sklearn.datasets import make_multilabel_classification

    return make_multilabel_classification(n_samples=n, n_classes=5, random_state=seed)


def linnerud():
    from sklearn.datasets import load_linnerud

    X, y = load_linnerud(return_X_y=True)
    return X, y


def datasets(sizes):
    """(name, task, criteria, X, y) in the order of the run; the data are made lazily."""
    for n in sizes:
        yield "regression", "regression", CRITERIA["regression"][:3], lambda n=n: regression(n)
    yield ("regression", "regression", ["absolute_error"],
           lambda: regression(ABSOLUTE_ERROR_N))
    for n in sizes:
        yield ("classification", "classification", CRITERIA["classification"],
               lambda n=n: classification(n))
    yield "multilabel", "classification", CRITERIA["classification"], multilabel
    yield "linnerud", "regression", CRITERIA["regression"], linnerud


def grid(sizes):
    """The (dataset, criterion, n_samples, max_depth) of every row, in order."""
    n_of = {"multilabel": MULTILABEL_N, "linnerud": 20}
    rows = []
    for n in sizes:
        rows += [("regression", c, n, d) for c in CRITERIA["regression"][:3] for d in DEPTHS]
    rows += [("regression", "absolute_error", ABSOLUTE_ERROR_N, d) for d in DEPTHS]
    for n in sizes:
        rows += [("classification", c, n, d) for c in CRITERIA["classification"]
                 for d in DEPTHS]
    for name, task in [("multilabel", "classification"), ("linnerud", "regression")]:
        rows += [(name, c, n_of[name], d) for c in CRITERIA[task] for d in DEPTHS]
    return rows


def _gain(tree, node, criterion):
    """The split's score as the criterion ranks it, from the fitted arrays."""
    left, right = tree.children_left[node], tree.children_right[node]
    w = tree.weighted_n_node_samples
    if criterion == "friedman_mse":  # n_L n_R (mean over outputs of mean_L - mean_R)^2
        diff = (tree.value[left, :, 0] - tree.value[right, :, 0]).mean()
        return w[left] * w[right] * diff ** 2
    return (w[node] * tree.impurity[node] - w[left] * tree.impurity[left]
            - w[right] * tree.impurity[right])


def divergences(ours, theirs, criterion):
    """Where the two trees first part, on each path: (node pair, tie?) for each place.

    The trees are walked together from the root; where the splits differ (another
    feature or another number of samples to the left, or a leaf against a split), the two splits' scores are
    compared: equal up to rounding means scikit-learn and dtree broke a tie
    differently.  Below such a place the subtrees are not compared.
    """
    a, b = ours.tree_, theirs.tree_
    found, stack = [], [(0, 0)]
    while stack:
        i, j = stack.pop()
        leaf_a, leaf_b = a.children_left[i] < 0, b.children_left[j] < 0
        if leaf_a and leaf_b:
            continue
        # the same node's samples cut on the same feature with as many going left
        # is the same cut (thresholds differ: scikit-learn's X is float32)
        if (leaf_a != leaf_b or a.feature[i] != b.feature[j]
                or a.n_node_samples[a.children_left[i]] != b.n_node_samples[b.children_left[j]]):
            gains = [0.0 if leaf else _gain(t, k, criterion)
                     for leaf, t, k in [(leaf_a, a, i), (leaf_b, b, j)]]
            scale = max(abs(gains[0]), abs(gains[1]), 1e-300)
            found.append(((i, j), abs(gains[0] - gains[1]) <= 1e-7 * scale))
            continue
        stack += [(a.children_left[i], b.children_left[j]),
                  (a.children_right[i], b.children_right[j])]
    return found


def estimators(task, criterion, depth):
    from sklearn import tree as sk

    import dtree

    name = "DecisionTreeClassifier" if task == "classification" else "DecisionTreeRegressor"
    return (getattr(dtree, name)(criterion=criterion, max_depth=depth),
            getattr(sk, name)(criterion=criterion, max_depth=depth, random_state=0))


def run(repeat, writer, sizes=SIZES):
    env = environment()
    print(f"{'dataset':16s}{'criterion':16s}{'n':>8s}{'depth':>6s}{'fit ratio':>11s}"
          f"{'predict ratio':>15s}{'nodes dtree/sk':>16s}")
    differ = []
    for name, task, names, make in datasets(sizes):
        X, y = make()
        n_classes = (" ".join(str(len(np.unique(column))) for column in y.T)
                     if task == "classification" else "")
        fit_repeat = repeat if X.shape[0] >= 1000 else max(repeat, PREDICT_REPEAT)
        for criterion in names:
            for depth in DEPTHS:
                ours, theirs = estimators(task, criterion, depth)
                row = {"dataset": name, "task": task, "criterion": criterion,
                       "n_samples": X.shape[0], "n_features": X.shape[1],
                       "n_outputs": y.shape[1], "n_classes": n_classes, "max_depth": depth,
                       **timed_pair(ours, theirs, X, y, X, fit_repeat,
                                    max(repeat, PREDICT_REPEAT)), **env}
                nodes = f"{row['dtree_nodes']}/{row['sklearn_nodes']}"
                print(f"{name:16s}{criterion:16s}{X.shape[0]:>8d}{str(depth):>6s}"
                      f"{row['fit_ratio']:>11.3g}{row['predict_ratio']:>15.3g}{nodes:>16s}",
                      flush=True)
                parts = divergences(ours, theirs, criterion)
                if parts:
                    ties = sum(tie for _, tie in parts)
                    differ.append(f"{name} {criterion} n={X.shape[0]} max_depth={depth}: "
                                  f"{len(parts)} places, {ties} of them ties")
                if writer is not None:
                    writer.writerow(row)
    # Not a timing: the two libraries grow the same tree up to ties between
    # equally good splits; every place where the trees part is listed.
    if differ:
        print("the trees part (equal scores: a tie broken differently) in:")
        for line in differ:
            print("  " + line)
    else:
        print("the trees are the same in every setting")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many fits")
    parser.add_argument("--csv", metavar="PATH", help="also write the rows to this CSV file")
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES, metavar="N",
                        help="n of the synthetic regression and classification data "
                             "(default 10^4; the committed run: 10^4 10^5)")
    args = parser.parse_args()
    run_writing(args.csv, CSV_COLUMNS, lambda writer: run(args.repeat, writer, args.sizes))


if __name__ == "__main__":
    sys.exit(main())
