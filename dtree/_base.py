"""Estimator plumbing: parameters, input checks and the fitted-state check.

dtree follows scikit-learn's estimator contract without importing
scikit-learn: ``__init__`` takes keyword-only parameters and only stores them;
``get_params`` / ``set_params`` read and write them; ``fit`` validates them,
learns attributes whose names end in ``_`` and returns ``self``.
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np
import pandas as pd

from dtree._validation import (
    check_2d_shape,
    check_dense,
    check_n_features,
    check_real,
    check_sample_weight,
)
from dtree.exceptions import DataConversionWarning, InvalidParameterError, NotFittedError
from dtree.tree import Node, flatten_nodes, unflatten_nodes


class BaseEstimator:
    """Parameter handling shared by every dtree estimator.

    Fitted estimators pickle (pickle, joblib, ``copy.deepcopy``) at any depth:
    their :class:`~dtree.tree.Node` trees are stored as flat tables
    (:func:`~dtree.tree.flatten_nodes`), and a CART tree's cached nodes are
    dropped and rebuilt from ``tree_`` on first use.
    """

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_root_cache", None)      # CART's readable nodes: rebuilt from tree_
        names = [name for name, value in state.items() if isinstance(value, Node)]
        if names:
            records, rows = flatten_nodes([state.pop(name) for name in names])
            state["_flat_node_trees"] = (records, dict(zip(names, rows)))
        return state

    def __setstate__(self, state):
        state = dict(state)
        flat = state.pop("_flat_node_trees", None)
        if flat is not None:
            records, rows = flat
            state.update(zip(rows, unflatten_nodes(records, list(rows.values()))))
        self.__dict__.update(state)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return sorted(
            name for name, p in signature.parameters.items()
            if name != "self" and p.kind == p.KEYWORD_ONLY
        )

    def get_params(self, deep: bool = True) -> dict:
        """Return the constructor parameters as a dict (``deep`` is accepted for compatibility)."""
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Set constructor parameters; unknown names raise ``ValueError``. Returns ``self``."""
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for {type(self).__name__}; "
                    f"valid parameters are {valid}"
                )
            setattr(self, name, value)
        return self

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (scikit-learn >= 1.6 reads them; nothing in dtree does).

        scikit-learn's model selection and meta-estimators ask every estimator
        for its tags (``sklearn.utils.get_tags``): whether it is a classifier
        (``cross_val_score`` then stratifies its folds), which inputs it
        accepts.  Only scikit-learn calls this method, so only then is
        scikit-learn imported: dtree itself does not depend on it.

        Returns
        -------
        sklearn.utils.Tags
            A supervised estimator (``target_tags.required``); subclasses add
            what they are (classifier, regressor) and what input they accept
            (``_input_tags``).
        """
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=True),
                    input_tags=InputTags(**self._input_tags()))

    def _input_tags(self) -> dict:
        """Keyword arguments of scikit-learn's ``InputTags``: numeric 2-D arrays by default."""
        return {}

    def __repr__(self) -> str:
        defaults = {
            name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()
        }
        changed = [
            f"{name}={value!r}" for name, value in self.get_params().items()
            if not _same(value, defaults.get(name))
        ]
        return f"{type(self).__name__}({', '.join(changed)})"


def _same(a, b) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return a is b


class ClassifierMixin:
    """``score`` for classifiers: the (weighted) accuracy of ``predict``; the classifier tags."""

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        return tags

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y``.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Samples, as for ``predict``.
        y : array_like of shape (n_samples,)
            True class labels.
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights of the samples in the average.

        Returns
        -------
        float
            The fraction (weighted, if ``sample_weight`` is given) of samples
            whose predicted class equals ``y``.
        """
        y = np.asarray(y)
        predicted = self.predict(X)
        if y.shape != predicted.shape:
            raise ValueError(f"y must have shape {predicted.shape}, got {y.shape}")
        weight = check_sample_weight(sample_weight, y.shape[0])
        return float(np.average(predicted == y, weights=weight))


def check_is_fitted(estimator, attribute: str) -> None:
    """Raise ``NotFittedError`` unless ``estimator`` has the fitted ``attribute``."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet: "
            "call 'fit' with appropriate arguments before using this estimator."
        )


class NodeTreeMixin:
    """``predict``, ``get_depth`` and ``get_n_leaves`` for estimators whose fitted tree is ``root_``.

    Used by the multiway classifiers (ID3, C4.5), whose fitted tree is a
    :class:`dtree.tree.Node` and whose ``predict_proba`` gives the class
    probabilities.
    """

    def predict(self, X):
        """Predicted class: the largest probability, the first in ``classes_`` on a tie.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Samples with the features seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Raises
        ------
        NotFittedError
            If called before ``fit``.
        ValueError
            As for ``predict_proba``.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def get_depth(self) -> int:
        """Depth of the fitted tree (a single leaf has depth 0)."""
        from dtree.tree import iter_nodes

        check_is_fitted(self, "root_")
        return max(node.depth for node in iter_nodes(self.root_))

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree."""
        from dtree.tree import iter_nodes

        check_is_fitted(self, "root_")
        return sum(node.is_leaf for node in iter_nodes(self.root_))


# --- parameter validation (called by fit, never by __init__) ---------------

def check_int_param(value, name: str, *, low: int, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        expected = f"None or an int >= {low}" if allow_none else f"an int >= {low}"
        raise InvalidParameterError(f"{name} must be {expected}, got {value!r}")
    return int(value)


def check_float_param(value, name: str, *, low: float = 0.0):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= low \
            or not np.isfinite(value):
        raise InvalidParameterError(f"{name} must be a finite float >= {low}, got {value!r}")
    return float(value)


# --- input validation --------------------------------------------------------

def feature_names_of(X):
    """Column names of a DataFrame whose column names are all strings, else None."""
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        return np.asarray(X.columns, dtype=object)
    return None


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
    """
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None")
    if (labels and isinstance(y, (list, tuple))
            and not any(isinstance(v, (list, tuple, np.ndarray)) for v in y)):
        check_value_kinds(y, "y")       # before NumPy turns [True, 1] into [1, 1]
    array = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
    if array.ndim == 2 and array.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples,), for example using ravel().",
                      DataConversionWarning, stacklevel=4)
        array = array.ravel()
    if array.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,), got shape {array.shape}")
    if array.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {array.shape[0]}")
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


def check_predict_X(estimator, X, *, allow_missing: bool = False) -> np.ndarray:
    """Validate ``X`` at predict time against what ``fit`` saw."""
    array = check_categorical_X(X, estimator_name=type(estimator).__name__,
                                allow_missing=allow_missing)
    check_n_features(array.shape[1], estimator)
    names = feature_names_of(X)
    fitted_names = getattr(estimator, "feature_names_in_", None)
    if names is not None and fitted_names is not None and list(names) != list(fitted_names):
        raise ValueError(
            f"The feature names of X {list(names)} differ from those seen in fit "
            f"{list(fitted_names)} (names and order must match)"
        )
    return array
