"""Input checks shared by the package: every check of data and parameters.

Every check names the argument it rejects, says what was expected and shows
what came, and never modifies its input (arrays are copied or only read).
The sections: numbers and distributions (:mod:`dtree.information`), sample
weights, shapes, dtypes and labels; the fitted state and parameters; feature
names; categorical ``X`` and class labels (ID3, C4.5); numeric ``X`` (CART).
Parameters are checked by ``fit``, never by ``__init__``.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings

import numpy as np
import pandas as pd

from dtree.exceptions import DataConversionWarning, InvalidParameterError, NotFittedError

# Tolerance for "probabilities sum to 1": a few thousand ulps, far below any
# difference a reader could mean.
SUM_TOLERANCE = 1e-9


def check_base(base) -> float:
    """Return ``base`` as a float after checking that it is a valid log base."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"base must be a real number (2 for bits, e for nats), got {base!r}")
    base = float(base)
    if not np.isfinite(base) or base <= 0 or base == 1:
        raise ValueError(f"base must be a positive number other than 1, got {base!r}")
    return base


def _describe(value) -> str:
    text = np.array2string(np.asarray(value), threshold=8, edgeitems=3)
    return text if len(text) <= 80 else text[:77] + "..."


def as_array(values, name: str, **kwargs) -> np.ndarray:
    """``np.asarray(values, **kwargs)``, with an error naming ``name`` for a ragged list.

    NumPy refuses a nested list whose rows have different lengths ("an
    inhomogeneous shape"); the error says which input it is.
    """
    try:
        return np.asarray(values, **kwargs)
    except ValueError as error:
        if "inhomogeneous" not in str(error) and "sequence" not in str(error):
            raise
        raise ValueError(f"{name} is ragged: its rows (or entries) have different lengths, "
                         f"and {name} must be rectangular ({error})") from None


def as_float_array(values, name: str, *, ndim: tuple[int, ...]) -> np.ndarray:
    """Convert ``values`` to a finite float array with one of the given ranks.

    Complex numbers are refused (``ValueError``: casting would drop the
    imaginary parts), as are ragged lists and numbers beyond the floats' range.
    """
    raw = as_array(values, name) if not isinstance(values, np.ndarray) else values
    if np.iscomplexobj(raw) or (raw.dtype == object and any(
            isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real) for v in raw.ravel().tolist())):
        raise ValueError(f"Complex data not supported: {name} holds complex numbers")
    try:
        array = np.asarray(raw, dtype=float)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got a number beyond the floats' range "
                         f"in {_describe(np.asarray(values, dtype=object))}") from None
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers, got {_describe(np.asarray(values, dtype=object))}") from None
    if array.ndim not in ndim:
        want = " or ".join(f"{d}-D" for d in ndim)
        raise ValueError(f"{name} must be {want}, got an array of shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty: expected at least one value")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {_describe(array)}")
    return array


def as_distribution(values, name: str, *, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """Return counts or probabilities as probabilities that sum to 1.

    The rule: if every entry is a whole number, ``values`` are counts and are
    divided by their total; otherwise they must already be probabilities, i.e.
    sum to 1 (within ``SUM_TOLERANCE``).  Negative entries, an all-zero input,
    NaN, inf and empty input raise ``ValueError``.
    """
    array = as_float_array(values, name, ndim=ndim)
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative counts or probabilities, got {_describe(array)}")
    total = array.sum()
    if total == 0:
        raise ValueError(f"{name} sums to 0: expected at least one positive count or probability")
    whole = np.all(array == np.round(array))
    if not whole and abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(
            f"{name} must be whole-number counts or probabilities that sum to 1; "
            f"got non-integer values summing to {total:.12g}"
        )
    return array / total


# The largest count, depth or size a parameter can mean (check_int_param).
MAX_COUNT = np.iinfo(np.int32).max

# The largest total weight: the Gini index and the squared error square weighted
# counts and sums, and (1e150)**2 = 1e300 is still finite.
MAX_TOTAL_WEIGHT = 1e150


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Return sample weights of shape (n_samples,), all ones when ``None``.

    A number is the weight of every sample (as in scikit-learn); a 0-d array
    raises ``TypeError`` with scikit-learn's words.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    if isinstance(sample_weight, numbers.Real):   # one weight for all, as in scikit-learn
        sample_weight = np.full(n_samples, as_python_float(sample_weight), dtype=float)
    elif not isinstance(sample_weight, str) and as_array(sample_weight, "sample_weight").ndim == 0:
        # (np.ndim would call __array_function__); a real 0-d array is shown as a
        # float, as scikit-learn shows it, anything else as it came
        scalar = np.asarray(sample_weight)
        shown = scalar.astype(float) if scalar.dtype.kind in "biuf" else scalar
        raise TypeError(
            "sample_weight must be None, a real number or 1-D of shape (n_samples,): Input should "
            "have at least 1 dimension i.e. satisfy `len(x.shape) > 0`, got scalar "
            f"`{shown!r}` instead.")
    weight = as_float_array(sample_weight, "sample_weight", ndim=(1,))
    if weight.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight has {weight.shape[0]} entries but there are {n_samples} samples"
        )
    if np.any(weight < 0):
        raise ValueError(f"sample_weight must be non-negative, got {_describe(weight)}")
    with np.errstate(over="ignore"):    # an overflowing sum is refused below
        total = weight.sum()
    if total <= 0:
        raise ValueError("sample_weight sums to 0: at least one sample needs a positive weight")
    if not total <= MAX_TOTAL_WEIGHT:
        raise ValueError(
            f"sample_weight sums to {total:.3g}, above {MAX_TOTAL_WEIGHT:.0e} (the criteria square "
            "weighted counts, which would overflow): divide the weights by a common factor "
            "(a tree depends only on their ratios)")
    return weight


#: Sample weights whose largest is below this are scaled up (:func:`scale_tiny_weights`).
TINY_WEIGHT = 2.0 ** -100


def scale_tiny_weights(weight: np.ndarray) -> tuple[np.ndarray, int]:
    """``(weight * 2**k, k)``: weights so small that their squares underflow, scaled by a power of two.

    The criteria square weighted counts and sums (the Gini index's
    :math:`\\sum_k c_k^2 / W^2`, the squared error's :math:`(\\sum w y)^2 / W`):
    with weights of :math:`10^{-170}` those squares are below the smallest
    float and become 0, so that every split looks alike (one leaf) or a
    regression tree splits elsewhere. A tree depends only on the ratios of
    the weights (but for Poisson's guard against a child whose weighted sum
    of :math:`y` is at most ``EPSILON``, scikit-learn's rule, which looks at
    their scale), and multiplying by :math:`2^k` changes no ratio and rounds
    nothing (it moves the floats' exponent only): where the largest weight
    is below :data:`TINY_WEIGHT`, the weights are scaled so that it lies in
    :math:`[1/2, 1)`; otherwise they are returned as they are with ``k = 0``.
    The caller scales node weights back by :math:`2^{-k}`.

    Examples
    --------
    >>> w, k = scale_tiny_weights(np.array([1e-170, 3e-170]))
    >>> k, bool(w[1] == 3 * w[0] or abs(w[1] / w[0] - 3) < 1e-15), bool(0.5 <= w.max() < 1)
    (563, True, True)
    """
    largest = float(weight.max())
    if not 0 < largest < TINY_WEIGHT:
        return weight, 0
    exponent = -int(np.frexp(largest)[1])     # largest = m 2**e with m in [1/2, 1)
    return np.ldexp(weight, exponent), exponent


def check_dense(X, name: str = "X") -> None:
    """Raise ``TypeError`` if ``X`` is a SciPy sparse matrix or array (dtree needs dense data)."""
    # X can only be sparse if SciPy's sparse module is loaded: dtree does not import it
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(X):
        raise TypeError(
            f"{name} is a sparse {type(X).__name__}; sparse input is not supported: "
            f"pass a dense array ({name}.toarray())")


def check_real(array: np.ndarray, name: str = "X") -> None:
    """Raise ``ValueError`` for an array of complex dtype (never drop imaginary parts)."""
    if array.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {array.dtype}; "
                         "a tree compares real numbers")


# numpy.exceptions appeared in NumPy 1.25; pyproject allows 1.24, where the class is top-level
_ComplexWarning = getattr(np, "exceptions", np).ComplexWarning


def as_float64(array: np.ndarray, name: str) -> np.ndarray:
    """``array.astype(float64)`` for an array of objects or strings that should be numbers.

    Raises ``ValueError`` for complex numbers (NumPy would drop their
    imaginary parts with only a ``ComplexWarning``) and ``TypeError``, naming
    the first offending message, for anything else that is not a number.
    """
    complex_error = ValueError(f"Complex data not supported: {name} holds complex numbers")
    with warnings.catch_warnings():
        warnings.simplefilter("error", _ComplexWarning)   # NumPy complex scalars
        try:
            return array.astype(np.float64)
        except _ComplexWarning:
            raise complex_error from None
        except (TypeError, ValueError) as error:
            if any(isinstance(v, complex) for v in array.flat):   # Python complex numbers
                raise complex_error from None
            raise TypeError(f"{name} must be numeric ({error}), got values such as "
                            f"{array.flat[0]!r}") from None


def check_2d_shape(shape, name: str = "X", *, min_samples: int = 1) -> None:
    """Raise ``ValueError`` unless ``shape`` is (n_samples, n_features) with
    ``n_samples >= min_samples`` and ``n_features >= 1`` (scikit-learn's wording)."""
    if len(shape) == 1:
        raise ValueError(
            f"{name} must be 2-D of shape (n_samples, n_features), got a 1-D array of shape "
            f"{shape}. Reshape your data: {name}.reshape(-1, 1) if it holds a single feature, "
            f"{name}.reshape(1, -1) if it holds a single sample")
    if len(shape) != 2:
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features), got shape {shape}")
    if shape[1] == 0:
        raise ValueError(f"{name} is empty: it has 0 feature(s) (shape={shape}) while a "
                         "minimum of 1 is required.")
    if shape[0] < min_samples:
        raise ValueError(f"{name} is empty: it has {shape[0]} sample(s) (shape={shape}) while a "
                         f"minimum of {min_samples} is required.")


def check_n_features(n_features: int, estimator) -> None:
    """Raise ``ValueError`` unless ``X`` at predict time has the features ``fit`` saw."""
    if n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input (the number it was fitted with)")


def as_labels(values, name: str) -> np.ndarray:
    """Return a 1-D column of labels (any hashable values, no missing ones)."""
    if isinstance(values, (pd.Series, pd.Index)):
        array = values.to_numpy()
    else:
        array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty: expected at least one value")
    missing = pd.isna(array)
    if np.any(missing):
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{name} has {int(missing.sum())} missing value(s) (first at position {first}); "
            "these measures need complete columns"
        )
    return array


def encode(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and the distinct values, sorted when the values can be sorted.

    Sorting makes every output independent of row order; values of mixed,
    unorderable types keep their order of first appearance.
    """
    if values.dtype.kind in "biu":
        # Booleans and integers: NumPy's sorted distinct values, the codes and
        # values pandas' sorted factorize gives, a tenth of its cost on small
        # columns (tests/test_information.py holds them equal).
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1).astype(np.intp, copy=False), uniques
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.intp), np.asarray(uniques)


# --- the fitted state and parameters --------------------------------------------------

def check_is_fitted(estimator, attribute: str) -> None:
    """Raise ``NotFittedError`` unless ``estimator`` has the fitted ``attribute``."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet: "
            "call 'fit' with appropriate arguments before using this estimator."
        )


def parameter_error(name: str, expected: str, value, owner=None) -> InvalidParameterError:
    """The error for a parameter ``name`` that is not ``expected``, in scikit-learn's words.

    scikit-learn's own tests match its ``InvalidParameterError`` messages by
    regular expression, so dtree words them alike: the parameter, what was
    expected and what came.

    Examples
    --------
    >>> print(parameter_error("max_depth", "an int in the range [1, inf) or None", 0,
    ...                       "DecisionTreeClassifier"))
    The 'max_depth' parameter of DecisionTreeClassifier must be an int in the range [1, inf) or None. Got 0 instead.
    """
    of = f" of {owner}" if owner else ""
    return InvalidParameterError(
        f"The {name!r} parameter{of} must be {expected}. Got {value!r} instead.")


def check_int_param(value, name: str, *, low: int, allow_none: bool = False, owner=None):
    """Return the parameter ``value`` as an int >= ``low`` (or None if allowed).

    ``owner`` (the estimator's class name) is named in the error.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        expected = f"an int in the range [{low}, inf)" + (" or None" if allow_none else "")
        raise parameter_error(name, expected, value, owner)
    # A count, depth or size beyond any array's (a huge Python int) means what
    # the largest array index means: no sample count or depth reaches either.
    return int(min(value, MAX_COUNT))


def check_float_param(value, name: str, *, low: float = 0.0, owner=None):
    """Return the parameter ``value`` as a finite float >= ``low``.

    Any real number is taken, Python ints of any size included (``10**30``
    is ``1e30``); one beyond the floats' range (``10**400``) is refused as
    not finite.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= low \
            or not math.isfinite(as_python_float(value)):
        raise parameter_error(name, f"a finite float in the range [{float(low)}, inf)", value,
                              owner)
    return float(value)


def as_python_float(value) -> float:
    """``float(value)`` of a real number, ``inf`` (with its sign) where it is beyond the floats' range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# --- feature names --------------------------------------------------------------------

def feature_names_of(X):
    """Column names of a DataFrame whose column names are all strings, else None."""
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        return np.asarray(X.columns, dtype=object)
    return None


def check_feature_names(estimator, X) -> None:
    """Raise ``ValueError`` if ``X`` has column names other than those ``fit`` saw.

    Only when both are known: ``X`` a DataFrame with string column names and
    the estimator fitted on one (``feature_names_in_``).
    """
    names = feature_names_of(X)
    fitted_names = getattr(estimator, "feature_names_in_", None)
    if names is not None and fitted_names is not None and list(names) != list(fitted_names):
        raise ValueError(
            f"The feature names of X {list(names)} differ from those seen in fit "
            f"{list(fitted_names)} (names and order must match)")


# --- categorical X and class labels (ID3, C4.5) ---------------------------------------

def _is_missing(value) -> bool:
    return (value is None or value is pd.NA or value is pd.NaT
            or (isinstance(value, (float, np.floating)) and value != value))


def _value_kind(kind: type) -> str:
    if issubclass(kind, (bool, np.bool_)):
        return "bool"
    if issubclass(kind, numbers.Number):
        return "number"
    if issubclass(kind, (str, bytes)):
        return "string"
    return kind.__name__


def check_value_kinds(values, what: str) -> None:
    """Refuse values that are unhashable, or that mix kinds Python would call equal.

    ``True == 1 == 1.0`` and they hash alike, so a dict or ``np.unique`` would
    merge such labels or categories into one; strings and numbers cannot even
    be sorted together.  scikit-learn refuses a mix of label types too.
    Missing values (None, NaN) are left out.

    Raises
    ------
    TypeError
        If a value is unhashable (a list, a dict, an array).
    ValueError
        If the values mix bools, other numbers, strings or other types.
    """
    types = set(map(type, values))
    for kind in types:
        if kind.__hash__ is None:
            example = next(v for v in values if type(v) is kind)
            raise TypeError(f"{what} must be hashable values (numbers, strings, ...), got a "
                            f"{kind.__name__}: {example!r}")
    kinds = {_value_kind(kind) for kind in types}
    if len(kinds) > 1:      # look again without the missing values (None, NaN, pd.NA, NaT)
        kinds = {_value_kind(type(v)) for v in values if not _is_missing(v)}
    if len(kinds) > 1:
        why = ("Python calls True == 1, so they would be merged into one"
               if {"bool", "number"} <= kinds else "they cannot be ordered together")
        raise ValueError(f"Mix of label input types ({', '.join(sorted(kinds))}) in {what}: "
                         f"{why}; convert them to one type")


def check_categorical_X(X, *, estimator_name: str, allow_missing: bool = False) -> np.ndarray:
    """Return ``X`` as a 2-D object array (a copy; the caller's data is never touched).

    Values of any hashable type are categories (a complex number inside a
    list or an object array too); an array of complex *dtype*, a sparse
    matrix, ragged rows and a shape other than (n >= 1, d >= 1) are refused.
    """
    check_dense(X)
    if isinstance(X, pd.DataFrame):
        array = X.to_numpy(dtype=object, copy=True)
    else:
        if not isinstance(X, (list, tuple)):   # an array or array-like (lists keep their types)
            X = np.asarray(X)
            check_real(X)
        array = np.array(X, dtype=object, copy=True)
        if array.ndim == 1 and array.size and isinstance(array[0], (list, tuple, np.ndarray)):
            lengths = sorted({len(row) for row in array})
            raise ValueError(f"X must be 2-D of shape (n_samples, n_features), but its rows "
                             f"have different lengths: {lengths}")
    check_2d_shape(array.shape)
    for j in range(array.shape[1]):
        check_value_kinds(array[:, j].tolist(), f"column {j} of X")
    if not allow_missing:
        missing = pd.isna(array)
        if missing.any():
            row, col = map(int, np.argwhere(missing)[0])
            raise ValueError(
                f"X has {int(missing.sum())} missing value(s) (first at row {row}, column {col}); "
                f"{estimator_name} does not handle missing values"
            )
    return array


def check_target(y, n_samples: int, *, labels: bool = True) -> np.ndarray:
    """Return the target ``y`` as a 1-D array of length ``n_samples``.

    With ``labels`` (classifiers), ``y`` holds class labels of any hashable
    type, none missing; float labels must be finite whole numbers (a
    classifier refuses a continuous target, as scikit-learn's do: a regression
    target passed by mistake would otherwise make one class per value), unless
    ``y`` is a pandas categorical, whose categories are labels by declaration.
    Without, only the shape is checked (the regressor checks the values).
    ``n_samples=None`` leaves the length to the caller (:func:`check_n_targets`).
    """
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None")
    check_dense(y, "y")
    if (labels and isinstance(y, (list, tuple))
            and not any(isinstance(v, (list, tuple, np.ndarray)) for v in y)):
        check_value_kinds(y, "y")       # before NumPy turns [True, 1] into [1, 1]
    array = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else as_array(y, "y")
    if array.ndim == 2 and array.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples,), for example using ravel().",
                      DataConversionWarning, stacklevel=4)
        array = array.ravel()
    if array.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,), got shape {array.shape}")
    if n_samples is not None:
        check_n_targets(array, n_samples)
    if not labels:
        return array
    if array.dtype.kind == "O":
        check_value_kinds(array.tolist(), "y")
    if np.any(pd.isna(array)):
        raise ValueError("y has missing values; every sample needs a class label")
    if isinstance(getattr(y, "dtype", None), pd.CategoricalDtype):
        return array              # declared categories are labels, whatever their values
    numbers = array
    if array.dtype.kind == "O" and all(isinstance(v, (float, np.floating))
                                       for v in array.tolist()):
        numbers = array.astype(np.float64)      # floats stored as objects: the same rule
    if numbers.dtype.kind == "f":
        if not np.all(np.isfinite(numbers)):
            raise ValueError("y contains infinity; class labels must be finite")
        fractional = numbers != np.round(numbers)
        if np.any(fractional):
            raise ValueError(
                "Unknown label type: continuous. y holds non-integer numbers such as "
                f"{float(numbers[fractional][0])!r}; a classifier needs class labels "
                "(use DecisionTreeRegressor for a numeric target, or pass y as a "
                "categorical Series if these numbers are labels)")
    return array


def check_n_targets(y: np.ndarray, n_samples: int) -> None:
    """Raise ``ValueError`` unless ``y`` has one entry per sample."""
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {y.shape[0]}")


def check_predict_X(estimator, X, *, allow_missing: bool = False) -> np.ndarray:
    """Validate ``X`` at predict time against what ``fit`` saw."""
    array = check_categorical_X(X, estimator_name=type(estimator).__name__,
                                allow_missing=allow_missing)
    check_n_features(array.shape[1], estimator)
    check_feature_names(estimator, X)
    return array


# --- numeric X and the parameters of CART ---------------------------------------------

def as_numeric_array(X, name="X", *, min_samples=1) -> np.ndarray:
    """``X`` as a real NumPy array of shape (n_samples, n_features), of bool, int or float dtype.

    The caller's array itself where it is one (no copy), a DataFrame's values
    as they are if all its columns are float32, else a float64 array.
    Refuses sparse matrices and non-numeric values (``TypeError``), complex
    numbers and shapes other than (n >= ``min_samples``, d >= 1)
    (``ValueError``).  Shared by fit and predict, which then check the values.
    """
    check_dense(X, name)
    if isinstance(X, pd.DataFrame):
        non_numeric = [c for c, t in X.dtypes.items() if not (pd.api.types.is_numeric_dtype(t)
                                                            or pd.api.types.is_bool_dtype(t))]
        if non_numeric:
            raise TypeError(
                f"{name} must be numeric; column(s) {non_numeric[:5]} are not "
                "(encode categories as numbers, or use ID3Classifier / C45Classifier)"
            )
        complex_columns = [c for c, t in X.dtypes.items() if pd.api.types.is_complex_dtype(t)]
        if complex_columns:
            raise ValueError(f"Complex data not supported: {name} column(s) "
                             f"{complex_columns[:5]} are complex")
        if X.shape[1] and all(t == np.float32 for t in X.dtypes):
            array = X.to_numpy()     # float32 as it is: no float64 copy (same values)
        else:
            array = X.to_numpy(dtype=np.float64)
    else:
        array = as_array(X, name)
        check_real(array, name)
        if array.dtype.kind in "OUS":
            array = as_float64(array, name)
        elif array.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be numeric, got dtype {array.dtype}")
    check_2d_shape(array.shape, name, min_samples=min_samples)
    return array


def check_numeric_X(X, *, name="X", missing_error=None) -> np.ndarray:
    """``X`` as a float array of shape (n_samples, n_features), its values float32's.

    A float32 or float64 NumPy array, and the values of a DataFrame whose
    columns are all float32, are returned as they are (no copy: the tree
    reads ``float32(X[i, f])``, the value scikit-learn's float32 copy of X
    holds); anything else is converted once to float32, feature-major.
    Strings, infinite values and values beyond float32's range are rejected;
    NaN (a missing value) is kept, unless ``missing_error`` is given: then NaN
    raises ``ValueError`` with that reason appended.
    """
    array = as_numeric_array(X, name)
    if array.dtype.kind != "f":     # integers and booleans: always finite
        return np.ascontiguousarray(array.T, dtype=np.float32).T
    with np.errstate(over="ignore", invalid="ignore"):
        overall = float(np.sum(array))   # inf, or NaN, if any entry is: one pass, no copy
        # The extreme values, cast to float32: infinite if they leave its range.
        extremes = np.array([np.fmin.reduce(array, axis=None),
                             np.fmax.reduce(array, axis=None)]).astype(np.float32)
    if not np.isfinite(overall):
        if np.isinf(array).any():
            raise ValueError(f"{name} contains infinite values; finite numbers (or NaN for "
                             "a missing value) are required")
        if missing_error is not None and np.isnan(array).any():
            raise ValueError(f"Input {name} contains NaN; {missing_error}")
    if np.isinf(extremes).any():
        raise ValueError(f"{name} has values too large for float32 (|x| > 3.4e38)")
    if array.dtype.isnative and (array.dtype == np.float32 or (
            isinstance(X, np.ndarray) and array.dtype == np.float64)):
        # The caller's array (or float32 DataFrame's values), read in place (never written)
        return array
    # Feature-major storage (an F-ordered view of a C-ordered (n_features,
    # n_samples) array): the tree reads one feature at a time.
    return np.ascontiguousarray(array.T, dtype=np.float32).T


# _all_finite checks this many values at a time: a bool temporary of 64 KiB, not of X's size.
FINITE_BLOCK_CELLS = 1 << 16


def _all_finite(X):
    """Whether every value of the 2-D ``X`` is finite, a block of rows at a time."""
    step = max(1, FINITE_BLOCK_CELLS // max(X.shape[1], 1))
    return all(np.isfinite(X[lo:lo + step]).all() for lo in range(0, X.shape[0], step))


def check_numeric_predict_X(estimator, X, *, missing_error=None, return_any_missing=False):
    """``X`` at CART's predict time, as float32 (no copy if it already is float32).

    Checks the feature names and their number against ``fit``, refuses
    infinite values and values beyond float32's range, and NaN if
    ``missing_error`` (the reason, appended to the message) is given.  With
    ``return_any_missing``, returns ``(X32, any_missing)``: also whether ``X``
    holds a NaN (found by the same pass, for ``TreeArrays._apply_dense``).
    """
    check_feature_names(estimator, X)
    array = as_numeric_array(X, min_samples=0)
    check_n_features(array.shape[1], estimator)
    with np.errstate(over="ignore", invalid="ignore"):
        # beyond float32's range: inf, refused below; float32 X is read as it is
        X32 = array.astype(np.float32, copy=False)
    any_missing = False
    if not _all_finite(X32):        # one fast pass (faster than a sum); then find which
        if np.isinf(array).any():
            raise ValueError("X contains infinite values; finite numbers (or NaN for a "
                             "missing value) are required")
        if not np.isfinite(X32[~np.isnan(X32)]).all():
            raise ValueError("X has values too large for float32 (|x| > 3.4e38)")
        any_missing = bool(np.isnan(X32).any())
        if missing_error is not None and any_missing:
            raise ValueError(f"Input X contains NaN; {missing_error}")
    return (X32, any_missing) if return_any_missing else X32


def missing_values_unsupported(criterion_name, monotonic_cst=None):
    """Why NaN in X is refused with this criterion (and constraints), or None if it is not."""
    if monotonic_cst is not None:
        return ("monotonic_cst does not support missing values (as in scikit-learn); impute "
                "them, or fit without monotonicity constraints")
    if criterion_name == "absolute_error":
        return ("criterion='absolute_error' does not support missing values (as in "
                "scikit-learn); impute them, or use criterion='squared_error' or 'poisson'")
    return None


def check_monotonic_cst(value, n_features, owner=None) -> np.ndarray:
    """The parameter ``monotonic_cst`` as an int8 array of shape (n_features,).

    scikit-learn's checks (``BaseDecisionTree._fit``) and words: an array-like
    (else ``InvalidParameterError``) of one entry per feature, each -1, 0 or 1
    (else ``ValueError``).

    Examples
    --------
    >>> check_monotonic_cst([1, 0, -1], 3).tolist()
    [1, 0, -1]
    >>> check_monotonic_cst([1, 2], 2)
    Traceback (most recent call last):
    ...
    ValueError: monotonic_cst must be None or an array-like of -1, 0 or 1, but got [1 2]
    """
    array_like = (not isinstance(value, (str, bytes)) and not np.isscalar(value)
                  and (hasattr(value, "__len__") or hasattr(value, "shape")
                       or hasattr(value, "__array__")))
    if not array_like:
        raise parameter_error("monotonic_cst", "an array-like or None", value, owner)
    array = value.to_numpy() if isinstance(value, (pd.Series, pd.Index)) else np.asarray(value)
    if array.ndim != 1:
        raise ValueError(f"monotonic_cst must be 1-D of shape (n_features,) = ({n_features},), "
                         f"got shape {array.shape}")
    if array.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {array.shape[0]} but the input data X has "
                         f"{n_features} features.")
    if not np.all(np.isin(array, (-1, 0, 1))):
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but got "
                         f"{np.unique(array)}")
    return array.astype(np.int8)


def check_max_features(value, n_features, owner=None):
    """The number of features a CART split draws, from the parameter ``max_features``."""
    if value is None:
        return n_features
    if isinstance(value, str):
        if value == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        if value == "log2":
            return max(1, int(np.log2(n_features)))
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if 1 <= value <= n_features:
            return int(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        if 0.0 < value <= 1.0:
            return max(1, int(value * n_features))
    raise parameter_error(
        "max_features", "None, a str among {'sqrt', 'log2'}, an int in the range "
        f"[1, n_features] = [1, {n_features}] or a float in the range (0.0, 1.0]", value, owner)


def random_generator(random_state, *, needed, owner=None):
    """The generator behind feature draws, tie ranks and random thresholds.

    ``None`` gives no generator (exhaustive, deterministic search; ties to the
    lowest feature index) unless randomness is needed (``max_features`` below
    the number of features, or the random splitter), in which case a freshly
    seeded one; an int seeds a new generator; a ``numpy.random.Generator`` is
    used as it is; a ``numpy.random.RandomState`` (scikit-learn's kind) seeds a
    new generator with one draw from it, so that it advances, as a
    ``RandomState`` handed to scikit-learn does, and the same state gives the
    same tree.

    Examples
    --------
    >>> import numpy as np
    >>> a = random_generator(np.random.RandomState(0), needed=True).random()
    >>> b = random_generator(np.random.RandomState(0), needed=True).random()
    >>> a == b, random_generator(7, needed=True).random() == np.random.default_rng(7).random()
    (True, True)
    """
    if random_state is None:
        return np.random.default_rng() if needed else None
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(np.iinfo(np.int32).max)))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return np.random.default_rng(int(random_state))
    raise parameter_error(
        "random_state", "an int in the range [0, inf), an instance of 'numpy.random.RandomState' "
        "or 'numpy.random.Generator', or None", random_state, owner)


def check_width(X, max_feature):
    """ValueError unless ``X`` is 2-D with a column for every feature the tree
    tests (``max_feature``, 0-based): the descents read ``X[i, feature[t]]``."""
    if np.ndim(X) != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {np.shape(X)}")
    if max_feature >= X.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features, but the tree tests feature "
                         f"{max_feature} (0-based): at least {max_feature + 1} are needed")


def is_sparse(X) -> bool:
    """Whether ``X`` is a SciPy sparse matrix or array (without importing SciPy)."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and module.issparse(X)


def check_sparse_X(X, *, fmt, name="X", missing_error=None):
    """A private float32 copy of the sparse ``X`` in format ``fmt`` ("csc" or "csr").

    Indices sorted, explicit zeros removed, values checked: a complex dtype,
    a non-numeric dtype, NaN, infinite values and values beyond float32's
    range raise ``ValueError`` naming ``name``.  The caller's matrix is not
    modified.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    fmt : {"csc", "csr"}
        CSC for the split search (a feature's values are contiguous), CSR for
        the descent (a sample's values are).
    name : str, default="X"
    missing_error : str or None, default=None
        Why NaN is refused, appended to the message (the estimator's
        reason); None: the sparse search has no missing values.

    Returns
    -------
    scipy.sparse.csc_matrix or csr_matrix, float32
        Duplicate entries summed first (in float64 for integer or boolean
        data, else in the data's own float type, as ``toarray`` does), then
        checked and cast.
    """
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got a sparse array of shape {X.shape}")
    kind = np.dtype(X.dtype).kind
    if kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {X.dtype}")
    if kind not in "biuf":
        raise ValueError(f"{name} must hold numbers; got a sparse matrix of dtype {X.dtype}")
    converted = X.tocsc(copy=True) if fmt == "csc" else X.tocsr(copy=True)
    import scipy.sparse as sp

    out = (sp.csc_matrix if fmt == "csc" else sp.csr_matrix)(converted)
    if kind != "f":                 # integers and booleans: summed without overflow
        out.data = out.data.astype(np.float64)
    out.sum_duplicates()            # the values of the dense copy; also sorts the indices
    data = out.data
    if np.isnan(data).any():
        reason = missing_error or ("missing values are supported for dense X only (as in "
                                   "scikit-learn)")
        raise ValueError(f"Input {name} contains NaN; {reason}")
    if np.isinf(data).any():
        raise ValueError(f"{name} contains infinite values; finite numbers are required")
    with np.errstate(over="ignore"):
        data32 = data.astype(np.float32)
    if np.isinf(data32).any():
        raise ValueError(f"{name} has values too large for float32 (|x| > 3.4e38)")
    out.data = data32
    out.eliminate_zeros()           # a stored zero is a zero
    return out
