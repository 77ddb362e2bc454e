"""ID3: multiway trees on categorical features, grown by information gain."""

from __future__ import annotations

import numpy as np

from dtree._base import BaseEstimator, ClassifierMixin, NodeTreeMixin
from dtree._validation import (
    check_categorical_X,
    check_float_param,
    check_int_param,
    check_is_fitted,
    check_predict_X,
    check_sample_weight,
    check_target,
    encode,
    feature_names_of,
)
from dtree._helpers import _entropy_of_counts
from dtree.multiway import nominal_split
from dtree.tree import Node

__all__ = ["ID3Classifier"]

# Gains that differ by less than this many bits are ties (they are computed
# from the same counts summed in different orders, so "equal" gains can differ
# in the last bits).  Ties go to the feature that comes first in X.
GAIN_TIE_TOLERANCE = 1e-12


class ID3Classifier(NodeTreeMixin, ClassifierMixin, BaseEstimator):
    r"""ID3 decision tree: one branch per category, chosen by information gain.

    The tree grows by Quinlan's recursion (``generateTree``): a node becomes a
    leaf if its samples all have one class, if no feature is left to test, or
    if the samples agree on every remaining feature; otherwise it tests the
    feature of largest information gain

    .. math:: \operatorname{Gain}(D, A) = H(D) - \sum_v \frac{|D_v|}{|D|} H(D_v)

    (entropies in bits), gives every category of that feature present in the
    node a branch, and grows each branch on the remaining features.

    Parameters
    ----------
    max_depth : int or None, default=None
        Maximum depth of the tree (the root has depth 0); ``None`` grows until
        the recursion stops by itself.
    min_impurity_decrease : float, default=0.0
        A node is split only if its weighted gain
        :math:`\frac{W_t}{W} \operatorname{Gain}(D_t, A) \ge`
        ``min_impurity_decrease``, where :math:`W_t` is the weight of the
        node's samples and :math:`W` that of all training samples: the
        relative-gain threshold of the source notes, in scikit-learn's
        weighted form.

    Attributes
    ----------
    root_ : Node
        The fitted tree (see :class:`dtree.tree.Node`).
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names of ``X``; set only when ``X`` was a DataFrame with
        string column names.
    categories_ : list of ndarray
        The categories of each feature seen in ``fit``, sorted.

    Notes
    -----
    Deterministic rules:

    * **Ties between features.**  Among features whose gains agree to within
      1e-12 bits, the one that comes first in ``X`` is chosen.
    * **Ties between classes.**  A node predicts the class of largest
      (weighted) count; among equal counts, the first in ``classes_``.
    * **Categories without a branch.**  A sample whose category was not seen
      at a node during fit (an unseen value, or one absent from that node's
      training samples) stops there and gets the node's class distribution:
      the majority class of the node.  This is Quinlan's rule for an empty
      branch.

    Features are compared with ``==``: numbers are treated as categories too
    (use :class:`C45Classifier` or CART for thresholds).  Missing values are
    not accepted.

    References
    ----------
    J. R. Quinlan, "Induction of Decision Trees", *Machine Learning* 1 (1986),
    81-106, sections 3-4.

    Examples
    --------
    >>> from dtree import ID3Classifier
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> X, y = weather.drop(columns="play"), weather["play"]
    >>> tree = ID3Classifier().fit(X, y)
    >>> tree.feature_names_in_[tree.root_.feature]
    'outlook'
    >>> round(tree.root_.gain, 3)
    0.247
    >>> tree.score(X, y), tree.get_depth(), tree.get_n_leaves()
    (1.0, 2, 5)
    """

    _impurity_name = "entropy"

    def __init__(self, *, max_depth=None, min_impurity_decrease=0.0):
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease

    # -- fitting -------------------------------------------------------------

    def _input_tags(self):
        # categories of any type (strings too), no missing value
        return {"categorical": True, "string": True, "allow_nan": False}

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on categorical features.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Categorical features (any hashable values, no missing values).
            Not modified.
        y : array_like of shape (n_samples,)
            Class labels.
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights; every count in the criterion becomes a sum
            of weights, and a sample of weight 0 takes no part in the tree (as
            if deleted).  ``None`` weighs every sample 1.

        Returns
        -------
        self : ID3Classifier
            The fitted estimator.

        Raises
        ------
        ValueError
            If ``X`` is not 2-D, is empty, of complex dtype or has missing values; if
            ``y`` is None, has the wrong length or missing labels, or is
            continuous or infinite (float labels must be whole numbers); if
            ``sample_weight`` is invalid; or (``InvalidParameterError``) if a
            parameter is invalid.
        TypeError
            If ``X`` is sparse.

        Warns
        -----
        DataConversionWarning
            If ``y`` is a column vector of shape (n_samples, 1) (it is read as 1-D).
        """
        max_depth = check_int_param(self.max_depth, "max_depth", low=1, allow_none=True)
        min_decrease = check_float_param(self.min_impurity_decrease, "min_impurity_decrease")
        names = feature_names_of(X)
        array = check_categorical_X(X, estimator_name="ID3Classifier")
        labels = check_target(y, array.shape[0])
        weight = check_sample_weight(sample_weight, array.shape[0])

        y_codes, self.classes_ = encode(labels)
        self.n_classes_ = len(self.classes_)
        self.n_features_in_ = array.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        encoded = [encode(array[:, j]) for j in range(array.shape[1])]
        self.categories_ = [categories for _, categories in encoded]
        codes = np.column_stack([c for c, _ in encoded])

        # Samples of zero weight take no part in growing the tree: a weight of 0
        # is the same as deleting the sample (book, "Weights are multiplicities"),
        # and a branch of zero weight would have no class distribution.
        keep = weight > 0
        grower = _Grower(codes[keep], y_codes[keep], weight[keep], self.n_classes_,
                         self.categories_, max_depth, min_decrease)
        self.root_ = grower.grow()
        return self

    # -- prediction ----------------------------------------------------------

    def _leaf_proba(self, codes: np.ndarray) -> np.ndarray:
        """Class distribution of the node where each row stops (codes: see _encode_for_predict)."""
        lookups = self._category_lookups()
        proba = np.empty((codes.shape[0], self.n_classes_))
        stack = [(self.root_, np.arange(codes.shape[0]))]
        while stack:
            node, rows = stack.pop()
            if rows.size == 0:
                continue
            if node.is_leaf:
                proba[rows] = node.proba
                continue
            column = codes[rows, node.feature]
            routed = np.zeros(rows.size, dtype=bool)
            for category, child in zip(node.categories, node.children):
                mask = column == lookups[node.feature][category]
                routed |= mask
                stack.append((child, rows[mask]))
            proba[rows[~routed]] = node.proba  # no branch for this category here
        return proba

    def _category_lookups(self) -> list[dict]:
        return [{value: code for code, value in enumerate(categories.tolist())}
                for categories in self.categories_]

    def _encode_for_predict(self, X) -> np.ndarray:
        """Each value's index in ``categories_`` (-1 for a category unseen in fit)."""
        array = check_predict_X(self, X)
        codes = np.empty(array.shape, dtype=np.intp)
        for j, lookup in enumerate(self._category_lookups()):
            codes[:, j] = [lookup.get(value, -1) for value in array[:, j].tolist()]
        return codes

    def predict_proba(self, X):
        """Class probabilities: the class fractions of the node where each sample stops.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Samples with the features seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1; columns follow ``classes_``.

        Raises
        ------
        NotFittedError
            If called before ``fit``.
        ValueError
            If ``X`` has another number of features, or other feature names,
            than in ``fit``, or has missing values, or is of complex dtype.
        TypeError
            If ``X`` is sparse.
        """
        check_is_fitted(self, "root_")
        return self._leaf_proba(self._encode_for_predict(X))


class _Grower:
    """The generateTree recursion, run with an explicit stack (depth first)."""

    def __init__(self, codes, y_codes, weight, n_classes, categories, max_depth, min_decrease):
        self.codes = codes
        self.categories = categories
        self.n_categories = [len(c) for c in categories]
        self.y = y_codes
        self.weight = weight
        self.n_classes = n_classes
        self.max_depth = max_depth
        self.min_decrease = min_decrease
        self.total_weight = weight.sum()
        self.n_nodes = 0

    def _class_counts(self, rows):
        return np.bincount(self.y[rows], weights=self.weight[rows], minlength=self.n_classes)

    def _gain(self, rows, feature):
        """Gain(D, A) = H(D) - sum_v |D_v|/|D| H(D_v) (multiway.nominal_split's), or None."""
        split = nominal_split(self.codes[rows, feature], self.y[rows], self.weight[rows],
                              self.n_categories[feature], self.n_classes, min_samples_leaf=0.0)
        return None if split is None else split.gain

    def _new_node(self, rows, depth):
        value = self._class_counts(rows)
        node = Node(node_id=self.n_nodes, depth=depth, n_samples=int(rows.size),
                    value=value, impurity=float(_entropy_of_counts(value)))
        self.n_nodes += 1
        return node

    def grow(self) -> Node:
        """Grow depth first; nodes are numbered in pre-order as they are created."""
        root = None
        stack = [(None, 0, np.arange(self.y.shape[0]), tuple(range(self.codes.shape[1])), 0)]
        while stack:
            parent, index, rows, features, depth = stack.pop()
            node = self._new_node(rows, depth)
            if parent is None:
                root = node
            else:
                parent.children[index] = node
            split = self._choose_split(node, rows, features)
            if split is None:
                continue
            node.feature, node.gain = split
            column = self.codes[rows, node.feature]
            categories = np.unique(column)
            node.categories = tuple(self.categories[node.feature][categories].tolist())
            node.children = [None] * categories.size
            remaining = tuple(f for f in features if f != node.feature)
            # Push in reverse so that the first category is grown first.
            for i in reversed(range(categories.size)):
                stack.append((node, i, rows[column == categories[i]], remaining, depth + 1))
        return root

    def _choose_split(self, node, rows, features):
        """The stopping rules, then (feature, gain) of the best split or None."""
        if np.count_nonzero(node.value) <= 1:                          # pure node
            return None
        if self.max_depth is not None and node.depth >= self.max_depth:
            return None
        # Features that still take two or more values here; none left means
        # "no features left" or "all rows equal on the remaining features".
        candidates = [f for f in features if np.unique(self.codes[rows, f]).size > 1]
        if not candidates:
            return None
        scores = {f: self._gain(rows, f) for f in candidates}
        scores = {f: gain for f, gain in scores.items() if gain is not None}
        if not scores:  # only zero-weight rows differ
            return None
        node.candidate_scores = scores
        best_gain = max(scores.values())
        best = next(f for f in scores if scores[f] >= best_gain - GAIN_TIE_TOLERANCE)
        if node.weighted_n_samples / self.total_weight * scores[best] < self.min_decrease:
            return None
        return best, scores[best]
