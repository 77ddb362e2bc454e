"""Estimator plumbing: parameters, pickling, scikit-learn's tags, ``score`` and ``predict``.

dtree follows scikit-learn's estimator contract without importing
scikit-learn: ``__init__`` takes keyword-only parameters and only stores them;
``get_params`` / ``set_params`` read and write them; ``fit`` validates them,
learns attributes whose names end in ``_`` and returns ``self``.  The checks
of data and parameters that ``fit`` and ``predict`` run are in
:mod:`dtree._validation`.
"""

from __future__ import annotations

import inspect

import numpy as np

from dtree._validation import check_is_fitted, check_sample_weight
from dtree.tree import Node, flatten_nodes, unflatten_nodes


class Bunch(dict):
    """A dict whose keys are also attributes, as scikit-learn's ``sklearn.utils.Bunch``.

    Returned by :meth:`~dtree.DecisionTreeClassifier.cost_complexity_pruning_path`.
    A key is read as ``bunch["key"]`` or ``bunch.key``; setting an attribute
    sets the key; a missing attribute raises ``AttributeError`` (so
    ``hasattr`` and ``getattr(bunch, name, default)`` work).

    Examples
    --------
    >>> path = Bunch(ccp_alphas=[0.0, 0.5], impurities=[0.0, 0.5])
    >>> path.ccp_alphas, path["impurities"]
    ([0.0, 0.5], [0.0, 0.5])
    >>> path.total = 1.0
    >>> sorted(path)
    ['ccp_alphas', 'impurities', 'total']
    """

    def __init__(self, **kwargs):
        super().__init__(kwargs)

    def __setattr__(self, key, value):
        self[key] = value

    def __dir__(self):
        return list(self.keys())

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no key {key!r} "
                                 f"(its keys are {sorted(map(str, self))})") from None

    def __setstate__(self, state):
        # Pickles of old versions stored a __dict__; the keys are the state.
        pass


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
        y : array_like of shape (n_samples,) or (n_samples, n_outputs)
            True class labels (0/1 labels only, for several outputs).
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights of the samples in the average.

        Returns
        -------
        float
            The fraction (weighted, if ``sample_weight`` is given) of samples
            whose predicted class equals ``y`` (in every output).

        Raises
        ------
        ValueError
            If ``y`` does not have the shape of ``predict(X)``, or has several
            outputs with labels other than 0 and 1.
        """
        y = np.asarray(y)
        predicted = self.predict(X)
        if y.shape != predicted.shape:
            raise ValueError(f"y must have shape {predicted.shape}, got {y.shape}")
        weight = check_sample_weight(sample_weight, y.shape[0])
        correct = predicted == y
        if y.ndim == 2:
            # several outputs: scikit-learn's accuracy_score scores 0/1 labels
            # (multilabel) by exact match of every output, and refuses others
            if not (np.isin(y, [0, 1]).all() and np.isin(predicted, [0, 1]).all()):
                raise ValueError("multiclass-multioutput is not supported (score needs 0/1 "
                                 "labels in every output; compare predict(X) with y per output)")
            correct = correct.all(axis=1)
        return float(np.average(correct, weights=weight))


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
