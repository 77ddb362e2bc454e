"""The data sets on which dtree's C4.5 is compared with Release 8.

``data_sets()`` are public data; ``random_data_sets()`` are generated here,
with 10 % of the values unknown.  Each yields ``(name, X, y)`` with nominal columns as strings (None where
unknown) and numeric columns as floats (NaN where unknown), as both
``C45Classifier`` and ``oracle.run_c45`` read them.  Only data that ships
with dtree or scikit-learn, or that is generated from a seed, is used, so
that the comparison runs anywhere.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

from dtree.datasets import load_weather

# The program's options and the same settings of C45Classifier.
SETTINGS = {
    "defaults": ({}, {}),
    "-m 5": ({"m": 5}, {"min_samples_leaf": 5}),
    "-g": ({"g": True}, {"criterion": "gain"}),
    "-c 10": ({"c": 10}, {"confidence_factor": 0.10}),
}


def data_sets():
    """Quinlan's golf data with and without day 12's outlook, Iris, breast cancer, wine, digits."""
    golf = load_weather(numeric=True)
    X, y = golf.drop(columns="play"), golf["play"].astype(str)
    X = X.astype({"windy": str})
    yield "golf", X, y
    unknown = X.astype({"outlook": object}).copy()
    unknown.iloc[11, 0] = None  # day 12 (Quinlan 1993, ch. 3)
    yield "golf, day 12 unknown", unknown, y
    for name, loader in (("iris", load_iris), ("breast cancer", load_breast_cancer),
                         ("wine", load_wine), ("digits", load_digits)):
        data = loader(as_frame=True)
        yield name, data.data.astype(float), pd.Series(data.target.astype(str))


def random_data_sets():
    """Eleven random data sets with 10 % of the values unknown.

    Three nominal and two numeric features (one of integers, with many
    ties); 60 to 300 rows; two classes (even seeds) or three (odd seeds)
    from a noisy score.  Unknown values give cases fractional weights below
    the root, which is where float32 and float64 arithmetic part.
    """
    for seed in range(11):
        rng = np.random.default_rng(100 + seed)
        n = int(rng.integers(60, 300))
        X = pd.DataFrame({"a": rng.choice(list("pqr"), n), "b": rng.choice(list("stuvw"), n),
                          "x": rng.integers(0, 20, n).astype(float),
                          "z": rng.normal(size=n).round(2), "c": rng.choice(list("gh"), n)})
        score = X["x"] / 4 + 2 * (X["a"] == "p") + X["z"] + rng.normal(scale=1.5, size=n)
        if seed % 2:
            y = np.where(score > 4, "hi", np.where(score > 2, "mid", "lo"))
        else:
            y = np.where(score > 3, "hi", "lo")
        X = X.astype(object).mask(rng.random(X.shape) < 0.1)
        X["x"] = X["x"].astype(float)
        X["z"] = X["z"].astype(float)
        yield f"random {seed}", X, pd.Series(y)


#: Small random nominal data sets on which Release 8's pruner raises a subtree
#: into a branch that had no cases when it was grown (an empty leaf), found
#: among seeds 0-1499 of ``nominal_data_set``: 1197 (12 rows: the raised
#: test's empty leaf receives one case and changes class), 217 (47 rows: the
#: filled leaf's own error estimate makes the program prune a node to a leaf).
EMPTY_BRANCH_SEEDS = (1197, 217)


def nominal_data_set(seed):
    """A random nominal data set: 12 to 59 rows, 2 to 4 features of 2 to 4 values, 2 or 3 classes.

    The class is drawn independently of the features, so that the trees are
    small and pruning has much to do.  Returns ``(name, X, y)``.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 60))
    d = int(rng.integers(2, 5))
    X = pd.DataFrame({f"a{j}": rng.choice(list("pqrs")[: int(rng.integers(2, 5))], n)
                      for j in range(d)})
    k = int(rng.integers(2, 4))
    return f"nominal {seed}", X, pd.Series(rng.choice(list("xyz")[:k], n))
