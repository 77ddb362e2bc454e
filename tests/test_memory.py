"""Peak memory of fit and predict (issue 19), measured with tracemalloc.

NumPy reports its allocations to :mod:`tracemalloc`, so the peak traced
between ``tracemalloc.start()`` and ``tracemalloc.stop()`` around a call is
the most memory the call held at once beyond what existed before it (the
data, made before the measurement, is not counted).  Each test asserts a
bound in bytes: what the data itself needs, times a small factor, plus, where
the code works in blocks, the fixed budget of those blocks (a constant of the
module, independent of the number of samples and of classes).  Each failed on
the code before the fix (by a factor of 1.15 to 15); none measures time.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from dtree import C45Classifier, DecisionTreeClassifier, multiway, splitting
from dtree.criteria import ClassWeights

MiB = 1 << 20


def peak_bytes(call):
    """Largest memory (bytes) traced while ``call()`` runs, the second time it runs.

    The first, untraced call loads what a process loads once: Numba and the
    compiled sweep (:mod:`dtree.kernels`) for the arrays' types, whose Python
    objects tracemalloc would count.  ``benchmarks/`` measures the same way
    (a warm-up fit first).
    """
    call()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("criterion, weighted, search", [
    ("gini", False, "best"), ("entropy", False, "best"), ("gini", True, "best"),
    ("entropy", True, "best"), ("gini", False, "missing values"), ("gini", True, "random"),
])
def test_cart_memory_does_not_grow_with_samples_times_classes(criterion, weighted, search):
    # 3000 samples of 1500 classes: the per-sample one-hot class weights would
    # take n * K * 8 = 34 MiB, and the old sweep held blocks of 16,384
    # positions (a whole level with missing values or the random splitter)
    # times K classes: 206 to 344 MiB in all.  The statistics are now kept as
    # (class, weight) per sample, and the sweep's arrays of children's class
    # weights are one node's at a time (dtree.sweep).
    n, n_classes = 3000, 1500
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2)).astype(np.float32)
    if search == "missing values":
        X[rng.random(X.shape) < 0.1] = np.nan
    y = np.arange(n) % n_classes
    weight = rng.random(n) + 0.5 if weighted else None
    splitter = "random" if search == "random" else "best"
    tree = DecisionTreeClassifier(criterion=criterion, max_depth=3, splitter=splitter,
                                  random_state=0)
    peak = peak_bytes(lambda: tree.fit(X, y, sample_weight=weight))
    # Data: X, y, the weights and each node's class weights (the fitted tree).
    data = X.nbytes + y.nbytes + n * 8 + tree.tree_.node_count * n_classes * 8
    # The sweep (dtree.sweep) holds one node's running class weights at a time
    # (K float64) and a level's options (nodes x features); the nodes' sums of
    # fractional weights build blocks of at most ClassWeights.BLOCK_CELLS
    # one-hot cells (8 MiB): whatever n and K.
    budget = 4 * MiB + 2 * ClassWeights.BLOCK_CELLS * 8
    assert peak < 8 * data + budget, f"peak {peak / MiB:.1f} MiB"


def test_c45_memory_does_not_grow_with_samples_times_classes():
    # threshold_split built (n, K) tables of class weights for every cut at
    # once: 3000 rows of 1500 classes took 211 MiB.  They are now built for
    # blocks of at most multiway.SWEEP_CELLS cells (2 MiB per table).
    n, n_classes = 3000, 1500
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    y = np.arange(n) % n_classes
    tree = C45Classifier(max_depth=2)
    peak = peak_bytes(lambda: tree.fit(X, y))
    # Data: X, y, C4.5's float and code copies of X, and the class weights of a
    # node (one row of K per node on the path of the depth-first growth).
    data = X.nbytes + y.nbytes + 2 * X.nbytes + 4 * n_classes * 8
    # At most 8 tables of SWEEP_CELLS float64 cells are alive at once (the
    # cumulative weights, their complement and the entropy's temporaries).
    budget = 8 * multiway.SWEEP_CELLS * 8
    assert peak < 8 * data + budget, f"peak {peak / MiB:.1f} MiB"


@pytest.mark.slow
def test_int_random_state_builds_no_sorted_values():
    # With an int random_state but max_features=None and splitter="best",
    # only the tie ranks between features are random: the tree needs no
    # feature values beyond the sweep's.  The old code built a float32 array of
    # every sorted value (the size of X) at every level: 8.4 MiB here, against
    # 4.4 MiB with random_state=None.
    n, n_features = 50_000, 10
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    seeded = peak_bytes(lambda: DecisionTreeClassifier(random_state=0).fit(X, y))
    unseeded = peak_bytes(lambda: DecisionTreeClassifier(random_state=None).fit(X, y))
    # The presorted index (uint16, half of X) and the sweep's chunk (a few
    # float64 arrays of n / 2 cells, 2 X in all) fit in 2.5 X; a seed adds at
    # most the per-level random priorities and tie ranks, small beside X.
    assert seeded < 2.5 * X.nbytes, f"peak {seeded / MiB:.1f} MiB"
    assert seeded < unseeded + X.nbytes / 4, (seeded / MiB, unseeded / MiB)


def test_random_splitter_builds_no_sorted_values_of_all_features():
    # max_features and the random splitter need each segment's lowest and
    # highest value per feature: read one feature at a time, not as a
    # (n_features, n_samples) array of sorted values per level.
    n, n_features = 50_000, 10
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    for params in ({"max_features": 3}, {"splitter": "random"}):
        tree = DecisionTreeClassifier(random_state=0, max_depth=8, **params)
        peak = peak_bytes(lambda: tree.fit(X, y))
        assert peak < 2.5 * X.nbytes, (params, peak / MiB)


def test_predict_checks_wide_X_without_a_temporary_of_its_size():
    # predict's validation checks that every value is finite a block of rows at
    # a time: one (n, d) boolean array took a predict at n = 5e4, d = 64 from
    # 1.15 to 3.06 MiB (a quarter of a float32 X, beyond the leaf ids' 8 bytes
    # per sample).  The bound: leaf ids and labels, 2 int64 per sample, and the
    # chunks' arrays, with no room for X / 4.
    n, n_features = 50_000, 64
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    tree = DecisionTreeClassifier(max_depth=3).fit(X[:2000], y[:2000])
    predict_peak = peak_bytes(lambda: tree.predict(X))
    assert predict_peak < X.nbytes / 4, f"predict peak {predict_peak / MiB:.2f} MiB"


@pytest.mark.parametrize("as_frame", [False, True])
def test_float32_input_is_not_copied(as_frame):
    # A float32 array (or a DataFrame of float32 columns) is read as it is:
    # no float64 up-cast and no float32 copy in fit, no copy in predict.  For
    # an X of 3.8 MiB the old code took 12.6 MiB to fit a DataFrame (float64
    # and float32 copies of X) and 8.8 MiB to fit the array (16 bytes per
    # sample of one-hot class weights and 8 of class codes, now 1 byte), and
    # 11.5 and 4.9 MiB to predict (copies of X).
    n, n_features = 100_000, 10
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n) > 0).astype(int)
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(n_features)]) if as_frame else X
    tree = DecisionTreeClassifier(max_depth=6)
    fit_peak = peak_bytes(lambda: tree.fit(data, y))
    # fit: the presorted index (uint32 beyond 65,536 samples: the size of X),
    # one byte per sample of class codes and the sweep's chunk (< X here).
    assert fit_peak < 2 * X.nbytes, f"fit peak {fit_peak / MiB:.1f} MiB"
    predict_peak = peak_bytes(lambda: tree.predict(data))
    # predict: the leaf ids and the labels are n int64 each and the rows descend
    # in chunks: 4 int64 per sample (3.1 MiB) leave no room for a copy of X
    # (10 float32 per sample, 3.8 MiB).
    assert predict_peak < 4 * 8 * n, f"predict peak {predict_peak / MiB:.1f} MiB"


@pytest.mark.parametrize("n_features", [20, 60])
def test_partition_holds_a_bounded_block_of_temporaries(n_features):
    # partition moves the index a block of at most
    # PARTITION_CELLS cells at a time: a block of 2^17 cells took a fit at
    # n = 10^4, d = 20 from 2.2 to 3.3 MiB, beyond twice scikit-learn's peak.
    # Their temporaries must stay below half of the index itself.
    n = 10_000
    rng = np.random.default_rng(0)
    order = np.stack([rng.permutation(n) for _ in range(n_features)]).astype(np.uint16)
    # One segment; about half of the samples go left (the same in every row).
    goes_left = rng.random(n) < 0.5
    starts, sizes = np.array([0]), np.array([n])
    n_left = np.array([int(goes_left.sum())])
    peak = peak_bytes(lambda: splitting.partition(order, starts, sizes, n_left, goes_left))
    assert peak < order.nbytes / 2, (peak, order.nbytes)
    assert goes_left[order[:, :n_left[0]]].all() and not goes_left[order[:, n_left[0]:]].any()

