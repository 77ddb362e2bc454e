"""The public data sets on which dtree's C4.5 is compared with Release 8.

Each yields ``(name, X, y)`` with nominal columns as strings (None where
unknown) and numeric columns as floats (NaN where unknown), as both
``C45Classifier`` and ``oracle.run_c45`` read them.  Only data that ships
with dtree or scikit-learn is used, so that the comparison runs anywhere.
"""

from __future__ import annotations

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
