"""The sorted sweep (dtree.sweep): one loop, run as written and compiled, and what it finds.

Three kinds of evidence, as for every algorithm of the book:

* the definition: on small data, a brute-force search that recounts the
  children of every cut from scratch (the O(n^2) search the sweep replaces)
  finds the split the sweep finds, with the same impurity decrease;
* the loop as written (plain Python, the source the book prints) and the same
  source compiled by Numba choose the same split with the same floats, on
  random levels with weights, missing values, feature draws, random
  thresholds, monotonicity constraints and every criterion; and a tree grown
  uncompiled is the tree ``fit`` grows;
* the function a default fit runs is the one the CART chapter prints.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dtree.splitting
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, kernels, sweep
from dtree.criteria import (
    CLASSIFICATION_CRITERIA,
    EPSILON,
    REGRESSION_CRITERIA,
    Entropy,
    Gini,
    Misclassification,
    _children_weights,
    multi_output,
)
from dtree.splitting import presort

CRITERIA = sorted(set(CLASSIFICATION_CRITERIA) - {"log_loss"}) + sorted(REGRESSION_CRITERIA)
N_CLASSES = 3


def criterion_and_stats(name, rng, n, exact, n_outputs=1):
    """The criterion ``name`` (of ``n_outputs``) and the statistics of random targets."""
    weight = rng.integers(1, 7, n) / 2.0 if exact else rng.uniform(0.1, 3.0, n)
    if name in CLASSIFICATION_CRITERIA:
        n_classes = [N_CLASSES, 2][:n_outputs]           # outputs of unequal class counts
        y = np.column_stack([rng.integers(0, k, n) for k in n_classes])
        criterion = multi_output(CLASSIFICATION_CRITERIA[name], n_outputs, n_classes)
    else:
        y = rng.integers(0, 10, (n, n_outputs)).astype(float) if exact \
            else rng.gamma(2.0, size=(n, n_outputs))
        y[0] = np.maximum(y[0], 1.0)                 # poisson: positive sums
        if name == "absolute_error":
            weight = rng.integers(1, 4, n).astype(float)
        criterion = multi_output(REGRESSION_CRITERIA[name], n_outputs)
    y = y[:, 0] if n_outputs == 1 else y
    return criterion, criterion.sample_stats(y, weight, N_CLASSES)


def level(rng, X, n_segments):
    """A level of ``n_segments`` nodes: the samples partitioned, sorted per feature."""
    n = X.shape[0]
    node = rng.integers(0, n_segments, n)
    sizes = np.bincount(node, minlength=n_segments)
    keep = sizes > 0
    node = np.searchsorted(np.flatnonzero(keep), node)
    sizes = sizes[keep]
    order = presort(X)
    # stably by node: each node's samples stay sorted by every feature
    order = np.stack([row[np.argsort(node[row], kind="stable")] for row in order])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
    return order.astype(np.uint32), starts, sizes.astype(np.intp)


def search(criterion, stats, X, order, starts, sizes, *, compiled, options):
    """dtree.sweep.search_level of the level, compiled or not: (out, constant)."""
    n_segments, d = sizes.size, X.shape[1]
    totals = np.ascontiguousarray(criterion.node_stats(stats, order[0], starts), dtype=float)
    out = np.zeros((n_segments, 8))
    constant = np.zeros((n_segments, d), bool)
    with np.errstate(all="ignore"):
        sweep.searcher(criterion, compiled).search_level(
            np.ascontiguousarray(X.T, dtype=np.float32), order, starts, sizes, totals,
            *criterion.sweep_data(stats), criterion.sweep_state(stats), *options,
            constant, out)
    return out, constant


def options_of(rng, n_segments, d, X, missing, draws, constrained):
    masks = np.ones((n_segments, d), bool)
    ranks = np.tile(np.arange(d, dtype=float), (n_segments, 1))
    thresholds = np.full((n_segments, d), np.nan)
    coins = np.full((n_segments, d), -1, np.int8)
    cst = np.zeros(d, np.int8)
    bounds = np.array([[-np.inf], [np.inf]]).repeat(n_segments, axis=1)
    if draws in ("rank", "mask", "random"):
        ranks = rng.random((n_segments, d))
    if draws == "mask":
        masks = rng.random((n_segments, d)) < 0.6
    if draws == "random":
        lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
        thresholds = lo + rng.random((n_segments, d)) * (hi - lo)
        if missing:
            coins = (rng.random((n_segments, d)) < 0.5).astype(np.int8)
    if constrained:
        cst = rng.integers(-1, 2, d).astype(np.int8)
        bounds = np.sort(rng.normal(size=(2, n_segments)) * 3, axis=0)
    return masks, ranks, thresholds, coins, cst, bounds, int(rng.integers(1, 4)), \
        float(rng.choice([0.0, 0.0, 1.5]))


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 40), d=st.integers(1, 4),
       n_segments=st.integers(1, 4), name=st.sampled_from(CRITERIA), exact=st.booleans(),
       missing=st.booleans(), draws=st.sampled_from(["none", "rank", "mask", "random"]),
       constrained=st.booleans(), n_outputs=st.sampled_from([1, 1, 2]))
def test_the_loop_compiled_is_the_loop_as_written(seed, n, d, n_segments, name, exact, missing,
                                                  draws, constrained, n_outputs):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (n, d)).astype(float)
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    criterion, stats = criterion_and_stats(name, rng, n, exact, n_outputs)
    order, starts, sizes = level(rng, X, n_segments)
    options = options_of(rng, sizes.size, d, X, missing, draws,
                         constrained and n_outputs == 1)
    written, constant_w = search(criterion, stats, X, order, starts, sizes, compiled=False,
                                 options=options)
    compiled, constant_c = search(criterion, stats, X, order, starts, sizes, compiled=True,
                                  options=options)
    np.testing.assert_array_equal(written, compiled)     # the same floats, NaN included
    np.testing.assert_array_equal(constant_w, constant_c)


def brute_force(X, stats, criterion, name, min_samples_leaf=1):
    """The largest weighted impurity decrease over all cuts, recounted from scratch per cut."""
    n = X.shape[0]
    everything = np.arange(n)

    def node(rows):
        return criterion.node_stats(stats, rows, np.array([0]))

    total = node(everything)
    w_t = float(criterion.weight(total)[0])
    i_t = float(criterion.impurity(total)[0])
    best = -np.inf
    for f in range(X.shape[1]):
        x = X[:, f].astype(np.float32)
        values = np.unique(x)
        for a, b in zip(values[:-1], values[1:]):
            left, right = everything[x <= a], everything[x >= b]
            if min(left.size, right.size) < min_samples_leaf:
                continue
            sl, sr = node(left), node(right)
            if name == "poisson" and min(sl[1, 0], sr[1, 0]) <= EPSILON:
                continue                 # a child summing to 0: Poisson forbids the cut
            decrease = w_t * i_t - float(criterion.weight(sl)[0] * criterion.impurity(sl)[0]) \
                - float(criterion.weight(sr)[0] * criterion.impurity(sr)[0])
            best = max(best, decrease)
    return best


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 30), d=st.integers(1, 3),
       name=st.sampled_from(CRITERIA), min_samples_leaf=st.integers(1, 3))
def test_the_sweep_finds_the_split_of_largest_decrease(seed, n, d, name, min_samples_leaf):
    # The definition: the chosen cut's W_t i(t) - W_L i(L) - W_R i(R) is the largest
    # of all cuts, each recounted from its samples (the O(n^2) search).
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, (n, d)).astype(float)
    criterion, stats = criterion_and_stats(name, rng, n, exact=True)
    order, starts, sizes = level(rng, X, 1)
    d_opts = options_of(rng, 1, d, X, False, "none", False)
    options = d_opts[:6] + (min_samples_leaf, 0.0)
    out, _ = search(criterion, stats, X, order, starts, sizes, compiled=False, options=options)
    expected = brute_force(X, stats, criterion, name, min_samples_leaf)
    if out[0, sweep.FEATURE] < 0:     # no cut allowed: none in the brute force either
        assert expected == -np.inf
        return
    f, n_left = int(out[0, sweep.FEATURE]), int(out[0, sweep.N_LEFT])
    x = X[:, f].astype(np.float32)
    left = np.flatnonzero(x <= out[0, sweep.THRESHOLD])
    assert left.size == n_left
    right = np.setdiff1d(np.arange(n), left)
    all_rows = criterion.node_stats(stats, np.arange(n), np.array([0]))
    sl = criterion.node_stats(stats, left, np.array([0]))
    sr = criterion.node_stats(stats, right, np.array([0]))
    found = (float(criterion.weight(all_rows)[0] * criterion.impurity(all_rows)[0])
             - float(criterion.weight(sl)[0] * criterion.impurity(sl)[0])
             - float(criterion.weight(sr)[0] * criterion.impurity(sr)[0]))
    # (Friedman's score ranks the cuts as the squared error's decrease does)
    assert found == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_a_node_by_hand():
    # Classes 1, 0, 1, 0 at x = 3, 1, 4, 2 (Gini): the cut at 2.5 leaves two pure
    # children, proxy -W_L Gini(L) - W_R Gini(R) = 0; at 1.5 and 3.5 the impure
    # child of 3 samples (2 of one class) has Gini 4/9: proxy -3 * 4/9 = -4/3.
    X = np.array([[3.0], [1.0], [4.0], [2.0]])
    stats = Gini.sample_stats(np.array([1, 0, 1, 0]), np.ones(4), 2)
    order, starts, sizes = presort(X).astype(np.uint32), np.array([0]), np.array([4])
    options = options_of(np.random.default_rng(0), 1, 1, X, False, "none", False)[:6] + (1, 0.0)
    for compiled in (False, True):
        out, _ = search(Gini, stats, X, order, starts, sizes, compiled=compiled, options=options)
        assert out[0, sweep.THRESHOLD] == 2.5 and out[0, sweep.N_LEFT] == 2
        assert out[0, sweep.PROXY] == 0.0
    # min_samples_leaf = 2 still allows it; 3 allows nothing
    options = options[:6] + (3, 0.0)
    out, _ = search(Gini, stats, X, order, starts, sizes, compiled=False, options=options)
    assert out[0, sweep.FEATURE] == -1


@pytest.mark.parametrize("make, params, missing", [
    (DecisionTreeClassifier, {}, False),
    (DecisionTreeClassifier, {"criterion": "entropy", "max_leaf_nodes": 9}, True),
    (DecisionTreeClassifier, {"splitter": "random", "random_state": 3}, True),
    (DecisionTreeClassifier, {"max_features": 2, "random_state": 1, "min_samples_leaf": 3},
     False),
    (DecisionTreeRegressor, {}, True),
    (DecisionTreeRegressor, {"criterion": "absolute_error", "max_depth": 4}, False),
    (DecisionTreeRegressor, {"criterion": "poisson", "max_leaf_nodes": 12}, False),
])
def test_a_tree_grown_uncompiled_is_the_fitted_tree(monkeypatch, make, params, missing):
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(150, 4)), 1)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(scale=0.5, size=150) > 0).astype(int)
    if make is DecisionTreeRegressor:
        y = np.abs(np.nan_to_num(X[:, 1]) * 3 + rng.normal(size=150)) + 0.1
    w = rng.uniform(0.5, 2.0, 150)
    fitted = make(**params).fit(X, y, sample_weight=w).tree_
    monkeypatch.setattr(dtree.splitting.BestSplitter, "compiled", False)
    monkeypatch.setattr(dtree.growth, "_USE_GROW_LEVELS", False)
    written = make(**params).fit(X, y, sample_weight=w).tree_
    for name in ("children_left", "feature", "threshold", "impurity", "value",
                 "missing_go_to_left"):
        np.testing.assert_array_equal(getattr(fitted, name), getattr(written, name))


def test_the_printed_loop_is_the_loop_a_default_fit_runs(monkeypatch):
    # The appendix "How dtree is built" prints dtree.sweep.best_split (the library
    # form of the CART chapter's sorted sweep).  A default fit of iris (and
    # of diabetes) runs that very source: uncompiled, its code object is called
    # (traced); compiled, the compiled function's source is that code object and
    # it has run (it holds a compiled signature).
    from sklearn.datasets import load_diabetes, load_iris

    from dtree.criteria import SquaredError

    printed = sweep.best_split.__code__
    for make, data, criterion in [(DecisionTreeClassifier, load_iris, Gini),
                                  (DecisionTreeRegressor, load_diabetes, SquaredError)]:
        X, y = data(return_X_y=True)
        compiled = sweep.searcher(criterion, compiled=True)
        calls = []
        with monkeypatch.context() as mp:     # the fit calls the compiled growth ...
            mp.setattr(compiled, "grow_levels",
                       lambda *a, real=compiled.grow_levels: calls.append(1) or real(*a))
            make().fit(X, y)
        assert calls == [1]
        # ... which calls the compiled search_level, which calls best_split, compiled
        # from the printed source
        assert compiled.grow_levels.py_func.__globals__["search_level"] is compiled.search_level
        assert compiled.search_level.py_func.__globals__["best_split"] is compiled.best_split
        assert compiled.best_split.py_func.__code__ is printed
        called = []

        def trace(frame, event, arg):
            if event == "call":
                called.append(frame.f_code)

        with monkeypatch.context() as mp:
            mp.setattr(kernels, "ENABLED", False)
            mp.setitem(kernels._STATE, "numba", None)
            sys.setprofile(trace)
            try:
                make().fit(X[:60], y[:60])
            finally:
                sys.setprofile(None)
        assert printed in called
    assert dtree.growth.SPLITTERS[("dense", "best")][1] is sweep.best_split
    engine = json.loads((Path(__file__).parents[1] / "book/appendix/engine.ipynb").read_text())
    assert any("show_source(sweep.best_split)" in "".join(cell["source"])
               for cell in engine["cells"] if cell["cell_type"] == "code")


def test_misclassification_by_hand():
    # E = 1 - max_k p_k: 0.25 for (3, 1), 0.5 for (2, 2)
    counts = np.array([[3.0, 2.0], [1.0, 2.0]])
    np.testing.assert_array_equal(Misclassification.impurity(counts), [0.25, 0.5])
    # The weakness the impurity chapter proves: from a node of 6 of class 0 and 2
    # of class 1, every cut leaves class 0 the majority of both children, so no
    # cut lowers the error (decrease 0), while Gini's decrease is positive.
    X = np.arange(8.0)[:, None]
    y = np.array([0, 0, 1, 0, 0, 1, 0, 0])
    stump = DecisionTreeClassifier(criterion="misclassification", max_depth=1).fit(X, y)
    t = stump.tree_
    assert t.impurity[0] == 0.25
    w = t.weighted_n_node_samples
    decrease = w[0] * t.impurity[0] - w[1] * t.impurity[1] - w[2] * t.impurity[2]
    assert decrease == 0.0
    gini = DecisionTreeClassifier(criterion="gini", max_depth=1).fit(X, y).tree_
    g = gini.weighted_n_node_samples
    assert g[0] * gini.impurity[0] - g[1] * gini.impurity[1] - g[2] * gini.impurity[2] > 0
    # a tree it grows to purity predicts its training data
    full = DecisionTreeClassifier(criterion="misclassification").fit(X, y)
    assert (full.predict(X) == y).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 80), d=st.integers(1, 4),
       name=st.sampled_from(["gini", "entropy", "misclassification", "squared_error",
                             "friedman_mse", "poisson", "absolute_error"]),
       params=st.sampled_from([{}, {"max_depth": 3}, {"min_samples_leaf": 3},
                               {"min_impurity_decrease": 0.01}, {"random_state": 4}]))
def test_the_compiled_growth_grows_the_trees_of_the_level_loop(seed, n, d, name, params):
    # kernels.grow_levels grows a whole tree in one compiled call, calling the
    # same search; dtree.growth.grow_depth_first's loop over levels, one search
    # per level: the same tree, array for array.
    rng = np.random.default_rng(seed)
    # no zeros (a dense X of mostly zeros is searched as a sparse one, without
    # grow_levels), and a feature that is not constant: the fit searches
    X = rng.integers(1, 6, (n, d)).astype(float)
    X[:2, 0] = 1, 2
    if name in CLASSIFICATION_CRITERIA:
        make, y = DecisionTreeClassifier, rng.integers(0, 3, n)
    else:
        make, y = DecisionTreeRegressor, rng.integers(1, 9, n).astype(float)
    from dtree.criteria import REGRESSION_CRITERIA as R

    criterion = CLASSIFICATION_CRITERIA.get(name) or R[name]
    search = sweep.searcher(criterion, compiled=True)
    calls = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search, "grow_levels",
                   lambda *a, real=search.grow_levels: calls.append(1) or real(*a))
        whole = make(criterion=name, **params).fit(X, y).tree_
        assert calls == [1]                   # grown in one compiled call
        mp.setattr(dtree.growth, "_USE_GROW_LEVELS", False)
        levels = make(criterion=name, **params).fit(X, y).tree_
        assert calls == [1]                   # level by level
    for field in ("children_left", "feature", "threshold", "impurity", "value",
                  "n_node_samples", "weighted_n_node_samples"):
        np.testing.assert_array_equal(getattr(whole, field), getattr(levels, field))


@pytest.mark.slow
def test_a_small_first_fit_runs_as_written_while_the_search_compiles(tmp_path):
    # In a fresh process with an empty compiled-code cache, iris is fitted by the
    # loop as written (no compilation to wait for) while a background thread
    # compiles the search; the fits after it run compiled, with the same tree.
    import subprocess
    import textwrap

    script = textwrap.dedent("""
        import numpy as np
        from sklearn.datasets import load_iris
        from dtree import DecisionTreeClassifier, kernels, sweep
        from dtree.criteria import Gini
        X, y = load_iris(return_X_y=True)
        first = DecisionTreeClassifier().fit(X, y).tree_
        search = sweep.searcher(Gini, compiled=True)
        assert not search.grow_levels.signatures          # not compiled for the first fit
        assert len(kernels._WARMING) == 1
        for thread in kernels._WARMING.values():
            thread.join()
        assert kernels.ready(search.grow_levels, search.search_level)
        second = DecisionTreeClassifier().fit(X, y).tree_
        assert search.grow_levels.signatures               # compiled now
        for name in ("children_left", "feature", "threshold", "impurity", "value"):
            assert np.array_equal(getattr(first, name), getattr(second, name)), name
        print("ok")
    """)
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_whole_growth_calls_the_criterions_declaration():
    # grow_levels holds no criterion of its own: a criterion declares the
    # functions it calls (Criterion.GROW), and the bound copies call them.
    import inspect

    from dtree.criteria import REGRESSION_CRITERIA, Criterion

    for function in (kernels.grow_levels, kernels.grow_start):
        code = inspect.getsource(getattr(function, "py_func", function)).split('"""')[-1]
        assert "criterion.node_totals(" in code
        for name in ("Gini", "Entropy", "Poisson", "AbsoluteError", "criterion =="):
            assert name not in code, name
    assert set(Criterion.GROW) == {"node_totals", "node_impurity", "decrease"}
    for criterion in set(CLASSIFICATION_CRITERIA.values()) | set(REGRESSION_CRITERIA.values()):
        assert criterion.grows_whole and set(Criterion.GROW) <= set(criterion.sweep_functions())
        # its own impurity, not the default (NaN: every node a leaf)
        assert criterion.node_impurity is not Criterion.node_impurity, criterion


def test_a_criterion_of_several_outputs_binds_the_functions_of_its_base():
    # dtree.kernels.bind keeps one set of copies per criterion class name and
    # layout: a criterion of several outputs (whose score is its base's) must
    # declare the same functions as its base, or whichever is bound first
    # would lack the other's (the whole growth's node_totals, say).
    from dtree.criteria import REGRESSION_CRITERIA, multi_output

    for base in set(CLASSIFICATION_CRITERIA.values()) | set(REGRESSION_CRITERIA.values()):
        several = multi_output(base, 2, [2, 3] if base.is_classification else None)
        if several.sweep_key()[0] == base.sweep_key()[0]:
            assert several.sweep_functions().keys() == base.sweep_functions().keys(), base


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), d=st.integers(1, 4),
       n_segments=st.integers(1, 5), missing=st.booleans())
def test_the_drawn_ranges_are_each_segments_lowest_and_highest_value(seed, n, d, n_segments,
                                                                     missing):
    """The random splitter draws between a segment's lowest and highest value: read at the
    segment's ends where a feature has no missing value, counted where it has."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, d)).astype(float)
    if missing:
        X[rng.random(X.shape) < 0.3] = np.nan
    n_segments = min(n_segments, n)
    cuts = np.sort(rng.choice(np.arange(1, n), n_segments - 1, replace=False)) if n > 1 else []
    starts = np.concatenate(([0], cuts)).astype(np.intp)
    sizes = np.diff(np.append(starts, n))
    # Each segment sorted by each feature, NaN last: the splitter's order.
    order = np.empty((d, n), np.intp)
    for f in range(d):
        for a, size in zip(starts, sizes):
            segment = np.arange(a, a + size)
            order[f, a:a + size] = segment[np.argsort(X[segment, f], kind="stable")]
    lowest, highest, constant = dtree.splitting._segment_ranges(
        X, order, starts, sizes, np.isnan(X).any(axis=0))
    for j, (a, size) in enumerate(zip(starts, sizes)):
        values = X[a:a + size]
        for f in range(d):
            present = values[:, f][~np.isnan(values[:, f])]
            assert constant[j, f] == (present.size == 0 or present.max() == present.min())
            if present.size:
                assert (lowest[j, f], highest[j, f]) == (present.min(), present.max())


class _EntropyOfEveryClass(Entropy):
    """Entropy scored over every class, present in the node or not (scikit-learn's loop)."""

    @staticmethod
    def score(left, total, state, layout):
        m = layout.shape[0] - 1
        w_left, w_right = _children_weights(left, total, layout)
        h_left, h_right = 0.0, 0.0
        for o in range(m):
            a_left, a_right = 0.0, 0.0
            for k in range(layout[o], layout[o + 1]):
                p = left[k] / w_left
                if p > 0:
                    a_left += p * math.log2(p)
                p = (total[k] - left[k]) / w_right
                if p > 0:
                    a_right += p * math.log2(p)
            h_left = a_left if o == 0 else h_left + a_left
            h_right = a_right if o == 0 else h_right + a_right
        return -(w_right * (-h_right / m + 0.0)) - w_left * (-h_left / m + 0.0)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 80), d=st.integers(1, 3),
       n_classes=st.sampled_from([2, 5, 60, 300]), weights=st.sampled_from(
           ["unit", "halves", "spread", "huge", "tiny"]),
       tied=st.booleans(), missing=st.booleans(), n_outputs=st.sampled_from([1, 1, 2]),
       draws=st.sampled_from(["none", "rank", "random"]))
def test_scoring_the_classes_present_finds_what_scoring_every_class_finds(
        seed, n, d, n_classes, weights, tied, missing, n_outputs, draws):
    # Entropy.score (and Gini's) reads only the classes of positive weight in the
    # node (Gini.prepare); an absent class adds 0.0 to every sum, so the search
    # finds the same split with the same floats as scoring every class.
    rng = np.random.default_rng(seed)
    X = (rng.integers(0, 6, (n, d)) if tied else rng.normal(size=(n, d))).astype(float)
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    weight = {"unit": np.ones(n), "halves": rng.integers(1, 7, n) / 2.0,
              "spread": 10.0 ** rng.uniform(-3, 3, n), "huge": 1e12 * rng.uniform(1, 2, n),
              "tiny": 1e-9 * rng.uniform(1, 2, n)}[weights]
    classes = [n_classes, 3][:n_outputs]
    y = np.column_stack([rng.integers(0, k, n) for k in classes])
    y = y[:, 0] if n_outputs == 1 else y
    order, starts, sizes = level(rng, X, int(rng.integers(1, 3)))
    options = options_of(rng, sizes.size, d, X, missing, draws, False)[:6] + (1, 0.0)
    found = {}
    for base in (Entropy, _EntropyOfEveryClass):
        criterion = multi_output(base, n_outputs, classes)
        stats = criterion.sample_stats(y, weight, n_classes)
        found[base] = search(criterion, stats, X, order, starts, sizes, compiled=False,
                             options=options)
    np.testing.assert_array_equal(found[Entropy][0], found[_EntropyOfEveryClass][0])
    if draws != "random":     # a node with two distinct values splits (it was searched)
        for j, (a, size) in enumerate(zip(starts, sizes)):
            rows = order[0, a:a + size]
            distinct = [np.unique(v[~np.isnan(v)]).size > 1 for v in X[rows].T]
            assert (found[Entropy][0][j, sweep.FEATURE] >= 0) == any(distinct)
