"""Input checks shared by the package.

Every check names the argument it rejects, says what was expected and shows
what came, and never modifies its input (arrays are copied or only read).
"""

from __future__ import annotations

import numbers
import sys
import warnings

import numpy as np
import pandas as pd

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


def as_float_array(values, name: str, *, ndim: tuple[int, ...]) -> np.ndarray:
    """Convert ``values`` to a finite float array with one of the given ranks."""
    try:
        array = np.asarray(values, dtype=float)
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


# The largest total weight: the Gini index and the squared error square weighted
# counts and sums, and (1e150)**2 = 1e300 is still finite.
MAX_TOTAL_WEIGHT = 1e150


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Return sample weights of shape (n_samples,), all ones when ``None``."""
    if sample_weight is None:
        return np.ones(n_samples)
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
_ComplexWarning = getattr(getattr(np, "exceptions", np), "ComplexWarning")


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
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.intp), np.asarray(uniques)
