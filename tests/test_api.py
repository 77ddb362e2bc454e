"""The estimator contract and bad-input behaviour, for every dtree estimator.

Each estimator gets the same checks: keyword-only ``__init__`` that only
stores, get/set_params and scikit-learn's ``clone``, ``fit`` returning
``self``, fitted attributes ending in ``_``, ``NotFittedError`` before fit,
and a clear error for each kind of bad input that names what is wrong.
"""

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import dtree
from dtree import (
    C45Classifier,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
    NotFittedError,
)
from dtree.exceptions import InvalidParameterError

ESTIMATORS = [ID3Classifier, C45Classifier, DecisionTreeClassifier, DecisionTreeRegressor]
NUMERIC = [C45Classifier, DecisionTreeClassifier, DecisionTreeRegressor]


def data_for(cls, n=30, seed=0):
    """Categorical data for ID3, numeric data (class or real target) for the others."""
    rng = np.random.default_rng(seed)
    if cls is ID3Classifier:
        X = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("uv"), n)})
        return X, rng.choice(["p", "q"], n)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    if cls is DecisionTreeRegressor:
        return X, rng.normal(size=n)
    return X, rng.choice(["p", "q"], n)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_init_is_keyword_only_and_only_stores(cls):
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert parameters and all(p.kind is p.KEYWORD_ONLY for p in parameters)
    name = parameters[0].name
    odd = cls(**{name: "not a valid value"})  # no validation before fit
    assert getattr(odd, name) == "not a valid value"
    with pytest.raises((ValueError, TypeError), match=name):
        odd.fit(*data_for(cls))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_params_clone_and_fitted_attributes(cls):
    est = cls()
    params = est.get_params()
    assert set(params) == {p for p in inspect.signature(cls.__init__).parameters if p != "self"}
    copy = clone(est.set_params(max_depth=2))
    assert copy.get_params()["max_depth"] == 2 and copy is not est
    with pytest.raises(ValueError, match="Invalid parameter 'depth'"):
        est.set_params(depth=3)
    before = set(vars(est))
    X, y = data_for(cls)
    assert est.fit(X, y) is est
    learned = set(vars(est)) - before
    public = {name for name in learned if not name.startswith("_")}  # private state is allowed
    assert public and all(name.endswith("_") for name in public)
    assert est.n_features_in_ == X.shape[1]
    assert list(est.feature_names_in_) == list(X.columns)
    assert "feature_names_in_" not in vars(clone(est).fit(X.to_numpy(), y))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_not_fitted(cls):
    X, _ = data_for(cls)
    methods = ["predict", "get_depth", "get_n_leaves"]
    if cls is not DecisionTreeRegressor:
        methods.append("predict_proba")
    for method in methods:
        with pytest.raises(NotFittedError, match="not fitted"):
            args = () if method.startswith("get_") else (X,)
            getattr(cls(), method)(*args)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_shapes_and_sizes(cls):
    X, y = data_for(cls)
    est = cls()
    with pytest.raises(ValueError, match="2-D"):
        est.fit(X.iloc[:, 0].to_numpy(), y)
    with pytest.raises(ValueError, match="2-D"):
        est.fit(X.to_numpy()[:, :, None], y)
    with pytest.raises(ValueError, match="empty"):
        est.fit(X.iloc[:0], y[:0])
    with pytest.raises(ValueError, match="samples"):
        est.fit(X, y[:-1])
    if cls.__name__.startswith("Decision"):   # CART: a y of two columns is two outputs
        assert est.fit(X, np.column_stack([y, y])).n_outputs_ == 2
    else:                                     # ID3 and C4.5 fit one output
        with pytest.raises(ValueError):
            est.fit(X, np.column_stack([y, y]))
    est.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X.to_numpy()[:, :1])
    with pytest.raises(ValueError, match="feature names"):
        est.predict(X.rename(columns={X.columns[0]: "renamed"}))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_sample_weight_errors(cls):
    X, y = data_for(cls)
    for bad, match in [(-np.ones(len(y)), "non-negative"), (np.zeros(len(y)), "sums to 0"),
                       (np.ones(len(y) + 1), "sample_weight"),
                       (np.full(len(y), np.nan), "sample_weight")]:
        with pytest.raises(ValueError, match=match):
            cls().fit(X, y, sample_weight=bad)


@pytest.mark.parametrize("cls", NUMERIC)
def test_inf_and_strings_in_numeric_X(cls):
    X, y = data_for(cls)
    with pytest.raises(ValueError, match="inf"):
        cls().fit(X.assign(a=np.where(np.arange(len(y)) == 3, np.inf, X["a"])), y)
    est = cls().fit(X, y)
    with pytest.raises(ValueError, match="inf"):
        est.predict(X.assign(a=np.inf))
    text = X.astype(object)
    text.iloc[0, 0] = "high"
    with pytest.raises((ValueError, TypeError)):
        est.predict(text)
    if cls is not C45Classifier:  # C4.5 reads a text column as nominal
        with pytest.raises((ValueError, TypeError)):
            cls().fit(text, y)


def test_missing_values_where_not_supported():
    X, y = data_for(ID3Classifier)
    X.iloc[2, 1] = None
    with pytest.raises(ValueError, match="missing"):
        ID3Classifier().fit(X, y)
    with pytest.raises(ValueError, match="missing"):
        ID3Classifier().fit(*data_for(ID3Classifier)).predict(X)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_single_class_gives_one_leaf(cls):
    X, y = data_for(cls)
    y = np.full(len(y), 4.0 if cls is DecisionTreeRegressor else "only")
    est = cls().fit(X, y)
    assert est.get_n_leaves() == 1 and est.get_depth() == 0
    assert (est.predict(X) == y).all()


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_inputs_never_modified(cls):
    X, y = data_for(cls)
    w = np.linspace(0.5, 2.0, len(y))
    copies = X.copy(), y.copy(), w.copy()
    est = cls().fit(X, y, sample_weight=w)
    est.predict(X)
    pd.testing.assert_frame_equal(X, copies[0])
    np.testing.assert_array_equal(y, copies[1])
    np.testing.assert_array_equal(w, copies[2])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_unknown_parameter_values_name_the_parameter(cls):
    X, y = data_for(cls)
    for name, value in [("max_depth", -1), ("max_depth", "deep")]:
        with pytest.raises(InvalidParameterError, match=name):
            cls(**{name: value}).fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_sparse_X_is_refused_by_id3_and_c45_and_complex_by_all(cls):
    import scipy.sparse

    X, y = data_for(cls)
    numbers = np.arange(len(y) * 2, dtype=float).reshape(-1, 2)
    cart = cls in (DecisionTreeClassifier, DecisionTreeRegressor)   # tests/test_sparse.py
    for sparse in (scipy.sparse.csr_matrix(numbers), scipy.sparse.csr_array(numbers)):
        if cart:
            np.testing.assert_array_equal(cls().fit(sparse, y).predict(sparse),
                                          cls().fit(numbers, y).predict(numbers))
        else:
            with pytest.raises(TypeError, match="sparse input is not supported"):
                cls().fit(sparse, y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        cls().fit(numbers + 1j, y)
    est = cls().fit(X.to_numpy(), y)
    if not cart:
        with pytest.raises(TypeError, match="sparse input is not supported"):
            est.predict(scipy.sparse.csr_matrix(numbers))
    with pytest.raises(ValueError, match="Complex data not supported"):   # never dropped silently
        est.predict(np.ones(X.shape) + 1j)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_shape_messages_say_how_to_reshape(cls):
    X, y = data_for(cls)
    with pytest.raises(ValueError, match=r"got a 1-D array of shape \(30,\)\. Reshape your data"):
        cls().fit(X.to_numpy()[:, 0], y)
    with pytest.raises(ValueError, match=r"X is empty: it has 0 feature\(s\) \(shape=\(30, 0\)\)"):
        cls().fit(X.to_numpy()[:, :0], y)
    est = cls().fit(X, y)
    with pytest.raises(ValueError, match="Reshape your data"):
        est.predict(X.to_numpy()[0])
    with pytest.raises(ValueError, match=f"X has 1 features, but {cls.__name__} is expecting "
                                         f"{X.shape[1]} features as input"):
        est.predict(X.to_numpy()[:, :1])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_y_none_is_refused(cls):
    X, _ = data_for(cls)
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        cls().fit(X, None)


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if c is not DecisionTreeRegressor])
def test_classifiers_refuse_a_continuous_or_infinite_target(cls):
    X, _ = data_for(cls)
    n = len(X)
    with pytest.raises(ValueError, match=r"Unknown label type: continuous.*such as 0\.5"):
        cls().fit(X, np.arange(n) / 2)           # 0, 0.5, 1, ...: a regression target
    with pytest.raises(ValueError, match="y contains infinity"):
        cls().fit(X, np.where(np.arange(n) < 3, np.inf, 1.0))
    labels = np.arange(n) % 2 * 1.0              # whole floats are class labels
    assert list(cls().fit(X, labels).classes_) == [0.0, 1.0]


def test_regressor_refuses_a_complex_target():
    X, y = data_for(DecisionTreeRegressor)
    with pytest.raises(ValueError, match="Complex data not supported: y"):
        DecisionTreeRegressor().fit(X, y + 1j)


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if c is not DecisionTreeRegressor])
def test_continuous_labels_in_other_containers(cls):
    X, _ = data_for(cls)
    halves = np.arange(len(X)) % 2 / 2 + 0.25                    # 0.25, 0.75, ...
    with pytest.raises(ValueError, match="continuous"):
        cls().fit(X, halves.astype(object))                   # floats stored as objects
    declared = pd.Series(halves).astype("category")            # labels by declaration
    assert list(cls().fit(X, declared).classes_) == [0.25, 0.75]


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_cart_never_drops_imaginary_parts_or_accepts_dates(cls):
    X, y = data_for(cls)
    with pytest.raises(ValueError, match=r"Complex data not supported: X column\(s\) \['a'\]"):
        cls().fit(X.assign(a=X["a"] + 1j), y)
    est = cls().fit(X, y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        est.predict(X.assign(a=X["a"] + 1j))
    with pytest.raises(ValueError, match="Complex data not supported: X holds complex"):
        est.predict(np.array(list(X.to_numpy() + 1j), dtype=object))   # complex objects
    with pytest.raises(TypeError, match="must be numeric, got dtype datetime64"):
        est.predict(X.to_numpy().astype("datetime64[D]"))       # fit and predict agree
    if cls is DecisionTreeRegressor:
        with pytest.raises(ValueError, match="Complex data not supported: y holds complex"):
            cls().fit(X, np.array(list(y + 1j), dtype=object))


@pytest.mark.parametrize("cls", [ID3Classifier, C45Classifier])
def test_ragged_rows_are_named(cls):
    with pytest.raises(ValueError, match=r"rows have different lengths: \[1, 2\]"):
        cls().fit([["x", "u"], ["y"]], ["p", "q"])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_a_column_vector_y_warns_and_is_read_as_1d(cls):
    from dtree.exceptions import DataConversionWarning

    X, y = data_for(cls)
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        column = cls().fit(X, np.asarray(y)[:, None])
    np.testing.assert_array_equal(column.predict(X), cls().fit(X, y).predict(X))


@pytest.mark.parametrize("make", [dtree.ID3Classifier, dtree.C45Classifier,
                                  dtree.DecisionTreeClassifier])
@pytest.mark.parametrize("y", [[True, 1, 0, False], np.array([True, 1, 0, False], dtype=object),
                               ["a", 1, "b", 2], pd.Series([1.0, "x", 1.0, "x"])])
def test_labels_of_mixed_types_are_refused(make, y):
    """True == 1 == 1.0 in Python: such labels would silently become one class."""
    X = [["a"], ["b"], ["c"], ["d"]] if make is dtree.ID3Classifier else [[0.0], [1.0], [2.0], [3.0]]
    with pytest.raises(ValueError, match="Mix of label input types"):
        make().fit(X, y)


@pytest.mark.parametrize("make", [dtree.ID3Classifier, dtree.C45Classifier])
def test_categories_of_mixed_types_are_refused(make):
    X = pd.DataFrame({"c": [True, 1, 1.0, 0]})
    with pytest.raises(ValueError, match=r"Mix of label input types \(bool, number\) in column 0"):
        make().fit(X, [0, 1, 1, 0])


@pytest.mark.parametrize("make", [dtree.ID3Classifier, dtree.DecisionTreeClassifier])
def test_unhashable_labels_and_categories_get_a_clear_error(make):
    X = [["a"], ["b"]] if make is dtree.ID3Classifier else [[0.0], [1.0]]
    with pytest.raises(TypeError, match="y must be hashable values .* got a list"):
        make().fit(X, pd.Series([[1], [2]]))
    if make is dtree.ID3Classifier:
        with pytest.raises(TypeError, match="column 0 of X must be hashable"):
            make().fit(pd.DataFrame({"c": [[1], [2]]}), [0, 1])


def test_missing_values_do_not_count_as_a_kind():
    X = pd.DataFrame({"c": ["a", None, "b", np.nan], "n": [1.0, np.nan, 2.0, 3.0],
                      "d": pd.array(["x", pd.NA, "y", "x"], dtype=object)})
    assert dtree.C45Classifier().fit(X, ["x", "y", "y", "x"]).classes_.tolist() == ["x", "y"]


@pytest.mark.parametrize("make", [dtree.ID3Classifier, dtree.C45Classifier,
                                  dtree.DecisionTreeClassifier])
def test_weights_whose_sum_overflows_are_refused(make):
    """Before: NaN probabilities (CART), a bare StopIteration (ID3), an IndexError (C4.5)."""
    X = [["a"], ["b"], ["a"], ["b"]] if make is dtree.ID3Classifier else [[0.0], [1.0], [2.0], [3.0]]
    for weight in (1e308, 1e300):
        with pytest.raises(ValueError, match=r"sample_weight sums to .*, above 1e\+150"):
            make().fit(X, [0, 1, 0, 1], sample_weight=[weight] * 4)
    # large weights below the limit give the tree of moderate equal weights (C4.5's
    # minimum branch weight of 2 is met by both)
    big = make().fit(X, [0, 1, 0, 1], sample_weight=[1e140] * 4)
    moderate = make().fit(X, [0, 1, 0, 1], sample_weight=[1e3] * 4)
    np.testing.assert_allclose(big.predict_proba(X), moderate.predict_proba(X), rtol=1e-12)


def test_class_weights_that_overflow_are_refused():
    with pytest.raises(ValueError, match="class_weight sums to .*, above 1e\\+150"):
        dtree.DecisionTreeClassifier(class_weight={0: 1e308, 1: 1e308}).fit(
            [[0.0], [1.0]], [0, 1], sample_weight=[10.0, 10.0])


def test_a_target_whose_squares_overflow_is_refused_by_the_squared_error():
    """Before: a single leaf or wrong leaf values, with only a RuntimeWarning."""
    X, y = [[0.0], [1.0], [2.0], [3.0]], [1e155, -1e155, 1e155, -1e155]
    with pytest.raises(ValueError, match="y is too large for criterion='squared_error'"):
        dtree.DecisionTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match=r"sample_weight sums to .*, above 1e\+150"):
        dtree.DecisionTreeRegressor().fit(X, [0.0, 1.0, 2.0, 3.0], sample_weight=[1e300] * 4)
    median = dtree.DecisionTreeRegressor(criterion="absolute_error").fit(X, y)
    np.testing.assert_array_equal(median.predict(X), y)    # no squares: no limit
    scaled = dtree.DecisionTreeRegressor().fit(X, np.array(y) / 1e10)
    np.testing.assert_array_equal(scaled.predict(X), np.array(y) / 1e10)
