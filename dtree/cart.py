"""CART: binary decision trees for classification and regression.

``DecisionTreeClassifier`` and ``DecisionTreeRegressor`` take scikit-learn's
parameters with scikit-learn's meaning, and grow the same tree wherever the
best split is unique (the tests check this against scikit-learn).  The
algorithm is written from Breiman et al. (1984): it searches every feature and
every threshold with the sorted sweep of :mod:`dtree.splitting`, grows the
tree with :mod:`dtree.growth`, and prunes it with :mod:`dtree.pruning`.

Like scikit-learn, the features are compared as float32 (so a float64 value
and its float32 rounding are one value); thresholds are float64 midpoints and
are compared in float64.  Unlike scikit-learn, ``fit`` makes no float32 copy of
a float32 or float64 array: it reads ``float32(X[i, f])`` from the caller's
array (never writing to it), so that the presorted index of
:mod:`dtree.splitting` (of the smallest unsigned integer type that holds the
sample indices: at most half the size of a float32 copy of X up to 65,536
samples, the same size beyond) is the only array of shape (n_features, n_samples) that
``fit`` allocates.

Missing values (NaN in ``X``) are handled as in scikit-learn >= 1.3 (except
with ``criterion="absolute_error"``, which, as in scikit-learn, refuses them):
at every node, each threshold of a feature with missing values there is scored
with the missing samples sent left and sent right, and so is the split
"non-missing left, missing right" (threshold ``inf``); the winning direction
is stored in ``tree_.missing_go_to_left``, which ``predict`` follows.  Where a
node had no missing value of its feature in training, NaN goes to the child
with more training samples (right on a tie).  Infinite values are rejected.
"""

from __future__ import annotations

import numbers

import numpy as np

from dtree._base import BaseEstimator, Bunch, ClassifierMixin
from dtree._validation import (
    check_sparse_X,
    is_sparse,
    MAX_TOTAL_WEIGHT,
    as_float64,
    MAX_COUNT,
    as_array,
    as_python_float,
    check_float_param,
    check_int_param,
    check_is_fitted,
    check_feature_names,
    check_max_features,
    check_n_features,
    check_monotonic_cst,
    check_n_targets,
    check_numeric_predict_X,
    check_numeric_X,
    check_real,
    check_sample_weight,
    check_dense,
    check_target,
    encode,
    feature_names_of,
    missing_values_unsupported,
    parameter_error,
    random_generator,
    scale_tiny_weights,
)
from dtree.criteria import (
    CLASSIFICATION_CRITERIA,
    REGRESSION_CRITERIA,
    get_criterion,
    multi_output,
)
from dtree.growth import (SPLITTERS, WARM_UP_ESTIMATORS, GrowthParams, grow_best_first,
                          grow_depth_first, layout)
from dtree.pruning import cost_complexity_path, prune_to_alpha
from dtree.sparse import sparse_apply
from dtree.tree import TreeArrays

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor"]


class _BaseDecisionTree(BaseEstimator):
    """Shared fitting and inspection of the two CART estimators."""

    _classification = True

    # -- parameters ------------------------------------------------------------

    def _validated_params(self, n_samples, total_weight):
        owner = type(self).__name__
        if not (isinstance(self.splitter, str) and self.splitter in ("best", "random")):
            raise parameter_error("splitter", "a str among {'best', 'random'}", self.splitter,
                                  owner)
        max_depth = check_int_param(self.max_depth, "max_depth", low=1, allow_none=True,
                                    owner=owner)
        mss = self.min_samples_split
        if isinstance(mss, numbers.Integral) and not isinstance(mss, bool) and mss >= 2:
            min_samples_split = int(min(mss, MAX_COUNT))      # no node holds more samples
        elif isinstance(mss, numbers.Real) and not isinstance(mss, numbers.Integral) \
                and 0.0 < mss <= 1.0:
            min_samples_split = max(2, int(np.ceil(mss * n_samples)))
        else:
            raise parameter_error("min_samples_split", "an int in the range [2, inf) or a float "
                                  "in the range (0.0, 1.0]", mss, owner)
        msl = self.min_samples_leaf
        if isinstance(msl, numbers.Integral) and not isinstance(msl, bool) and msl >= 1:
            min_samples_leaf = int(min(msl, MAX_COUNT))
        elif isinstance(msl, numbers.Real) and not isinstance(msl, numbers.Integral) \
                and 0.0 < msl < 1.0:
            min_samples_leaf = int(np.ceil(msl * n_samples))
        else:
            raise parameter_error("min_samples_leaf", "an int in the range [1, inf) or a float "
                                  "in the range (0.0, 1.0)", msl, owner)
        fraction = self.min_weight_fraction_leaf
        if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) \
                or not 0.0 <= fraction <= 0.5:
            raise parameter_error("min_weight_fraction_leaf", "a float in the range [0.0, 0.5]",
                                  fraction, owner)
        fraction = float(fraction)
        max_leaf_nodes = check_int_param(self.max_leaf_nodes, "max_leaf_nodes", low=2,
                                         allow_none=True, owner=owner)
        return GrowthParams(
            max_depth=np.iinfo(np.int32).max if max_depth is None else max_depth,
            min_samples_split=max(min_samples_split, 2 * min_samples_leaf),
            min_samples_leaf=min_samples_leaf,
            min_weight_leaf=fraction * total_weight,
            min_impurity_decrease=check_float_param(self.min_impurity_decrease,
                                                    "min_impurity_decrease", owner=owner),
            max_leaf_nodes=max_leaf_nodes,
        )

    def _input_tags(self):
        # NaN is a missing value for every criterion but the absolute error,
        # without monotonicity constraints; sparse X is read without
        # densifying (dtree.sparse)
        return {"allow_nan": self._missing_error() is None, "sparse": True}

    def _missing_error(self, criterion_name=None):
        """Why NaN in X is refused (the criterion, monotonic_cst), or None."""
        return missing_values_unsupported(criterion_name or self.criterion,
                                          getattr(self, "monotonic_cst", None))

    def _monotonic_cst(self, n_features):
        """``monotonic_cst`` checked, as GrowthParams takes it (int8, or None).

        scikit-learn's rules (``BaseDecisionTree._fit``): one output only, one
        of -1, 0, 1 per feature, and a classifier of two classes at most.  A
        classifier's constraint is on the probability of ``classes_[1]``; the
        growth constrains the fraction of ``classes_[0]``
        (:meth:`dtree.criteria.Gini.monotonic_value`), so the signs are
        flipped, as scikit-learn does.
        """
        if self.monotonic_cst is None:
            return None
        monotonic_cst = check_monotonic_cst(self.monotonic_cst, n_features, type(self).__name__)
        if self._classification:
            if self.n_classes_ > 2:
                raise ValueError("Monotonicity constraints are not supported with multiclass "
                                 "classification")
            monotonic_cst = -monotonic_cst      # on the fraction of classes_[0]
        return monotonic_cst

    # -- fitting -----------------------------------------------------------------

    def _fit(self, X, y, sample_weight):
        owner = type(self).__name__
        names = CLASSIFICATION_CRITERIA if self._classification else REGRESSION_CRITERIA
        if not (isinstance(self.criterion, str) and self.criterion in names):
            raise parameter_error(
                "criterion", f"a str among {{{', '.join(map(repr, sorted(names)))}}}",
                self.criterion, owner)
        criterion = get_criterion(self.criterion, classification=self._classification)
        ccp_alpha = check_float_param(self.ccp_alpha, "ccp_alpha", owner=owner)
        names = feature_names_of(X)
        # The caller's array itself if it is float32/float64 (read, never
        # written), else a float32 copy; the split search reads a float32 X
        # in place and copies a float64 one to float32 (dtree.splitting.columns).
        sparse = is_sparse(X)
        if sparse:              # a private CSC copy, never densified (dtree.sparse)
            X_fit = check_sparse_X(X, fmt="csc",
                                   missing_error=self._missing_error(criterion.name))
        else:
            X_fit = check_numeric_X(X, missing_error=self._missing_error(criterion.name))
        n_samples, n_features = X_fit.shape
        if self.monotonic_cst is not None and np.ndim(y) == 2 and np.shape(y)[1] > 1:
            raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
        target = self._encode_target(y, n_samples, criterion)
        n_outputs = 1 if target.ndim == 1 else target.shape[1]   # y of shape (n,) or (n, m)
        weight = check_sample_weight(sample_weight, n_samples)
        weight = self._apply_class_weight(weight)
        # Weights whose squares would underflow, scaled by an exact power of two
        # (the same tree); the node weights are scaled back below.
        weight, weight_exponent = scale_tiny_weights(weight)
        if criterion.name in ("squared_error", "friedman_mse"):
            with np.errstate(over="ignore"):    # an overflow is refused below
                sum_of_squares = np.sum(weight * np.square(target).T)
        if criterion.name in ("squared_error", "friedman_mse") and not np.isfinite(sum_of_squares):
            raise ValueError(
                f"y is too large for criterion={criterion.name!r}: the weighted sum of y**2 "
                f"overflows (largest |y| = {np.max(np.abs(target)):.3g}); divide y by a common "
                "factor (the tree's splits do not change)")
        if criterion.name == "poisson" and np.sum(target.T * weight) <= 0:
            raise ValueError("Sum of y is not positive which is necessary for Poisson "
                             "regression (criterion='poisson' needs a positive weighted "
                             "sum of y)")
        params = self._validated_params(n_samples, weight.sum())
        max_features = check_max_features(self.max_features, n_features, owner)
        params.max_features, params.splitter = max_features, self.splitter
        params.monotonic_cst = self._monotonic_cst(n_features)
        rng = random_generator(self.random_state, owner=owner,
                               needed=max_features < n_features or self.splitter == "random")

        self.n_features_in_ = n_features
        self.n_outputs_ = n_outputs
        # The mean of the outputs' impurities for several (criteria.multi_output)
        criterion = multi_output(criterion, n_outputs,
                                 self.n_classes_ if self._classification else None)
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

        # Samples of zero weight take no part in growing the tree.
        keep = weight > 0
        if not keep.all():
            X_fit, target, weight = X_fit[keep], target[keep], weight[keep]
            if sparse:
                X_fit = check_sparse_X(X_fit, fmt="csc")     # canonical again
        stats = criterion.sample_stats(target, weight, getattr(self, "n_classes_", None))
        del target, weight       # in stats now; free them for the growth
        X_fit, data_layout = layout(X_fit, stats, criterion, sparse)
        grow = grow_depth_first if params.max_leaf_nodes is None else grow_best_first
        grown = grow(X_fit, stats, criterion, params, rng,
                     splitter=SPLITTERS[data_layout, self.splitter][0])
        del X_fit, stats         # the per-sample arrays are not needed to assemble the tree
        arrays = self._tree_arrays(grown, criterion, n_features, n_outputs, weight_exponent)
        if ccp_alpha > 0:
            arrays = prune_to_alpha(arrays, ccp_alpha)
        self.tree_ = arrays
        self.max_features_ = max_features
        return self

    def _tree_arrays(self, grown, criterion, n_features, n_outputs, weight_exponent=0):
        """The fitted TreeArrays: the grown arrays, and the node arrays made from the statistics.

        The ``"node"`` arrays of :data:`dtree.tree.NODE_FIELDS` that the
        growers do not compute are made here from each node's criterion
        statistics: ``weighted_n_node_samples`` and ``value`` of shape
        (node_count, n_outputs, max_n_classes) (zero-padded where an output
        has fewer classes).
        """
        # The grown arrays are handed over (copy=False), each owning its memory
        # (no view into stats: the fitted tree keeps nothing more, and nothing
        # writable), and the node statistics are dropped before apply's tables
        # are built: fit never holds an array of the tree twice.
        stats, grown.stats = grown.stats, None            # (node_count, n_stats)
        per_output = (stats.shape[0], n_outputs, -1)
        weights = np.array(criterion.weight(stats.T))     # a copy, not a view of stats
        # criterion.value: (..., node_count), the nodes last
        value = np.moveaxis(np.asarray(criterion.value(stats.T)), -1, 0)
        value = np.array(value.reshape(per_output))       # (node_count, n_outputs, n_values)
        if criterion.is_classification:                   # class fractions
            value /= weights[:, None, None]
        del stats
        if grown.bounds is not None:
            _clip_node_values(value, grown.bounds)
        if weight_exponent:              # the weights were scaled by 2**weight_exponent
            weights = np.ldexp(weights, -weight_exponent)
        return TreeArrays(
            **grown.arrays,
            weighted_n_node_samples=weights,
            value=value,
            n_features=n_features,
            n_classes=getattr(self, "n_classes_", np.ones(n_outputs, dtype=np.intp)),
            copy=False,
        )

    # -- prediction -----------------------------------------------------------------

    def _check_predict_X(self, X, return_any_missing=False):
        """``X`` checked for predict: a private CSR copy if sparse, else float32;
        with ``return_any_missing``, ``(X, any_missing)``: also whether a dense
        ``X`` holds a NaN (None for a sparse one)."""
        check_is_fitted(self, "tree_")
        if is_sparse(X):        # a private CSR copy, never densified (dtree.sparse)
            check_feature_names(self, X)
            check_n_features(X.shape[1], self)
            X = check_sparse_X(X, fmt="csr", missing_error=self._missing_error())
            return (X, None) if return_any_missing else X
        return check_numeric_predict_X(self, X, missing_error=self._missing_error(),
                                       return_any_missing=return_any_missing)

    def apply(self, X, check_input=True):
        """Index of the leaf that each sample reaches.

        Parameters
        ----------
        X : array_like, DataFrame or SciPy sparse matrix of shape (n_samples, n_features)
            Numeric samples; NaN goes the way ``tree_.missing_go_to_left`` says.
            A sparse matrix (any format) is read without being made dense.
        check_input : bool, default=True
            Accepted for scikit-learn's signature; dtree checks ``X`` either
            way, so ``False`` changes nothing.

        Returns
        -------
        ndarray of shape (n_samples,)
            Node ids (into the arrays of ``tree_``).

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            If ``X`` is not 2-D, is complex or has the wrong number of features
            or other names than in fit.
        TypeError
            For non-numeric ``X``.
        """
        X32, any_missing = self._check_predict_X(X, return_any_missing=True)
        if is_sparse(X32):
            return sparse_apply(self.tree_, X32)
        return self.tree_._apply_dense(X32, any_missing=any_missing)   # NaN known: no pass

    def decision_path(self, X, check_input=True):
        """Nodes visited by each sample, as a sparse CSR indicator matrix.

        Parameters
        ----------
        X : array_like, DataFrame or SciPy sparse matrix of shape (n_samples, n_features)
            Numeric samples (a sparse matrix is not made dense).
        check_input : bool, default=True
            Accepted for scikit-learn's signature; dtree checks ``X`` either
            way, so ``False`` changes nothing.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, node_count)
            Entry ``[i, j]`` is 1 if sample ``i`` passes through node ``j``.
        """
        X32 = self._check_predict_X(X)       # a sparse X: copied once, here
        return self.tree_._decision_path(X32)

    @property
    def root_(self):
        """The fitted tree as readable :class:`dtree.tree.Node` objects (built on first use)."""
        check_is_fitted(self, "tree_")
        cached = self.__dict__.get("_root_cache")
        if cached is None or cached[0] is not self.tree_:
            cached = (self.tree_, self.tree_.to_nodes(classification=self._classification))
            self.__dict__["_root_cache"] = cached
        return cached[1]

    def get_depth(self) -> int:
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease per feature, of shape (n_features,).

        The sum, over the splits on a feature, of :math:`W_t i(t) - W_L i(L) - W_R
        i(R)`, divided by the total over all features: scikit-learn's "mean
        decrease in impurity" (MDI), over the splits the tree uses.  (Breiman
        et al. 1984, section 5.3.4, define variable importance through the
        best *surrogate* split on each feature at every node instead.)  All
        zeros for a tree with no split.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.compute_feature_importances()

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Effective alphas and total leaf impurities of weakest-link pruning.

        Grows the tree on ``(X, y)`` with the estimator's parameters (but
        ``ccp_alpha=0``) and prunes it one weakest link at a time (Breiman et
        al. 1984, section 3.3): each step removes the subtree :math:`T_t` of
        smallest :math:`g(t) = (R(t) - R(T_t)) / (|T_t| - 1)`, where :math:`R`
        is the weighted impurity :math:`W_t / W \\cdot i(t)` summed over leaves.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Training samples.
        y : array_like of shape (n_samples,)
            Targets.
        sample_weight : array_like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        Bunch
            A dict whose keys are also attributes (as scikit-learn's
            ``Bunch``): ``ccp_alphas`` (increasing effective alphas, starting
            at 0) and ``impurities`` (total leaf impurity of the pruned tree
            after each step), both ndarrays of the same length.

        Examples
        --------
        >>> import numpy as np
        >>> from dtree import DecisionTreeRegressor
        >>> X = np.arange(4).reshape(-1, 1)
        >>> path = DecisionTreeRegressor().cost_complexity_pruning_path(X, [0.0, 0.0, 1.0, 3.0])
        >>> path.ccp_alphas.round(4).tolist(), path["impurities"].round(4).tolist()
        ([0.0, 0.1667, 1.3333], [0.0, 0.1667, 1.5])
        """
        grown = self.__class__(**{**self.get_params(), "ccp_alpha": 0.0})
        grown.fit(X, y, sample_weight=sample_weight)
        alphas, impurities = cost_complexity_path(grown.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)


def _target_columns(y):
    """The columns of a ``y`` of several outputs (shape (n_samples, m), m >= 2), or None.

    None for any other ``y`` (1-D, a column vector, or a shape that
    :func:`dtree._validation.check_target` then refuses by name).
    """
    if y is None:
        return None
    check_dense(y, "y")
    array = y.to_numpy() if hasattr(y, "to_numpy") else as_array(y, "y")
    if array.ndim > 2 or (array.ndim == 2 and array.shape[1] == 0):
        raise ValueError("y must be of shape (n_samples,) or (n_samples, n_outputs) with "
                         f"n_outputs >= 1, got shape {array.shape}")
    if array.ndim != 2 or array.shape[1] < 2:
        return None
    if hasattr(y, "iloc"):                 # a DataFrame: each column with its own dtype
        return [y.iloc[:, k].to_numpy() for k in range(array.shape[1])]
    return [array[:, k] for k in range(array.shape[1])]


def _clip_node_values(value, bounds):
    """Clip every node's value to its bounds, in place (monotonicity constraints).

    scikit-learn's ``Criterion.clip_node_value``: the constrained value (a
    regression's, or a binary classification's fraction of ``classes_[0]``)
    is clipped to the node's ``[lower, upper]`` (``bounds`` of shape
    (node_count, 2), :class:`dtree.growth.GrownTree`); a classification's
    other fraction becomes ``1 - value[:, 0, 0]``, so that they sum to 1.
    ``value`` has shape (node_count, 1, n_values).
    """
    lower, upper, constrained = bounds[:, 0], bounds[:, 1], value[:, 0, 0]
    # v < lower: lower; else v > upper: upper (scikit-learn's order of the tests)
    constrained[...] = np.where(constrained < lower, lower,
                                np.where(constrained > upper, upper, constrained))
    if value.shape[2] == 2:
        value[:, 0, 1] = 1.0 - value[:, 0, 0]


_SHARED_PARAMETERS = """
    splitter : {"best", "random"}, default="best"
        "best" scores every threshold of every feature; "random" draws one
        threshold per feature uniformly between the node's minimum and maximum
        non-missing value (and, where the node has missing values of the
        feature, sends them left or right by a fair coin).
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0); ``None`` grows until the leaves
        are pure or another rule stops them.
    min_samples_split : int or float, default=2
        Minimum samples a node needs to be split (a float is a fraction of
        ``n_samples``, rounded up).
    min_samples_leaf : int or float, default=1
        Minimum samples in each child of a split (a float is a fraction of
        ``n_samples``, rounded up).
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random at each node to search (the draw
        skips features that are constant in the node).
    random_state : int, numpy.random.RandomState, numpy.random.Generator or None, \
default=None
        Seeds the feature draws and random thresholds (a ``RandomState``
        seeds them with one draw from it).  With ``None`` and
        ``max_features=None`` the tree is fully deterministic: ties between
        equally good splits go to the lowest feature index, then the lowest
        threshold.
    max_leaf_nodes : int or None, default=None
        If set, grow best-first: repeatedly split the leaf whose split has the
        largest weighted impurity decrease, until there are this many leaves.
    min_impurity_decrease : float, default=0.0
        Split a node only if its weighted impurity decrease
        :math:`\\frac{W_t}{W}(i(t) - \\frac{W_L}{W_t} i(L) - \\frac{W_R}{W_t} i(R))`
        is at least this.
    ccp_alpha : float, default=0.0
        Complexity parameter of minimal cost-complexity pruning: after
        growing, prune every weakest link whose effective alpha is at most
        ``ccp_alpha``."""

_MONOTONIC_CST = """
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonicity constraint on the prediction, %s, per
        feature: 1, it may only increase with the feature; -1, only
        decrease; 0, no constraint.  ``None``: no constraints.  As in
        scikit-learn (>= 1.4), a split on a constrained feature is a
        candidate only if its children's values (%s)
        are in the constraint's order and within the node's bounds, which
        the split halves at the average of its children's values; every
        node's value is clipped to its bounds.  The predictions are then
        monotonic along each constrained feature.  Raises ``ValueError`` if
        ``monotonic_cst`` does not have one entry per feature or has an
        entry other than -1, 0, 1, if ``X`` has missing values (NaN)%s;
        ``InvalidParameterError`` if it is not an array-like.  Source:
        scikit-learn's ``_splitter.pyx`` and ``_criterion.pyx``
        (``check_monotonicity``, ``middle_value``, ``clip_node_value``) and
        ``_tree.pyx`` (the bounds of the children)."""


class DecisionTreeClassifier(ClassifierMixin, _BaseDecisionTree):
    __doc__ = """CART classification tree (Breiman et al. 1984), scikit-learn's API.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Impurity: Gini impurity, or Shannon entropy in bits ("log_loss" is
        the same as "entropy")."""  + _SHARED_PARAMETERS + """
    class_weight : dict, list of dict or None, "balanced" or None, default=None
        Multiplies each sample's weight by the weight of its class;
        "balanced" uses ``n_samples / (n_classes * count(class))``.  With
        several outputs, a list of one dict (or None) per output, or
        "balanced", and
        a sample's weight is multiplied by the product of its classes'
        weights (scikit-learn's ``compute_sample_weight``).""" + _MONOTONIC_CST % (
        "the probability of ``classes_[1]``", "their fractions of ``classes_[1]``",
        ", or if\n        ``y`` has more than two classes or several outputs") + """

    Attributes
    ----------
    tree_ : TreeArrays
        The fitted tree as read-only arrays with scikit-learn's names.
    classes_ : ndarray of shape (n_classes,) or list of ndarray
        Sorted class labels (with several outputs, a list of one array per
        output).
    n_classes_ : int or ndarray of shape (n_outputs,)
        Number of classes (of each output).
    n_features_in_ : int
        Number of features seen in ``fit``.
    n_outputs_ : int
        Number of outputs: 1 for a 1-D ``y``, ``m`` for a ``y`` of shape
        (n_samples, m).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.
    max_features_ : int
        Number of features searched per node.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised impurity decrease per feature.

    References
    ----------
    L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone, *Classification
    and Regression Trees*, Wadsworth 1984, chapters 2-4.

    Examples
    --------
    >>> from dtree import DecisionTreeClassifier
    >>> from dtree.datasets import load_iris
    >>> iris = load_iris()
    >>> X, y = iris.drop(columns="species"), iris["species"]
    >>> tree = DecisionTreeClassifier(max_depth=2).fit(X, y)
    >>> tree.tree_.feature[0], float(tree.tree_.threshold[0])
    (np.int64(2), 2.449999988079071)
    >>> tree.predict(X.iloc[[0, 50, 100]]).tolist()
    ['setosa', 'versicolor', 'virginica']
    """

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 monotonic_cst=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst

    def _encode_target(self, y, n_samples, criterion):
        columns = _target_columns(y)
        if columns is None:                                    # one output
            codes, self.classes_ = encode(check_target(y, n_samples))
            self.n_classes_ = len(self.classes_)
        else:                                                  # y of shape (n, m), m >= 2
            encoded = [encode(check_target(column, n_samples)) for column in columns]
            codes = np.column_stack([c for c, _ in encoded])
            self.classes_ = [classes for _, classes in encoded]
            self.n_classes_ = np.array([len(classes) for classes in self.classes_],
                                       dtype=np.intp)
        self._y_codes = codes
        return codes

    def _apply_class_weight(self, weight):
        codes = self.__dict__.pop("_y_codes")    # set by _encode_target; not kept after fit
        class_weight = self.class_weight
        if class_weight is None:
            return weight
        if codes.ndim == 1:
            per_sample = self._class_weight_of_output(class_weight, codes, self.classes_)
        else:
            # several outputs: the product of the outputs' weights (scikit-learn's
            # compute_sample_weight), from a list of one dict per output or "balanced"
            if isinstance(class_weight, str) and class_weight == "balanced":
                per_output = [class_weight] * codes.shape[1]
            elif isinstance(class_weight, list):
                if len(class_weight) != codes.shape[1]:
                    raise ValueError(
                        "For multi-output, number of elements in class_weight should match "
                        f"number of outputs. Got {len(class_weight)} element(s) while having "
                        f"{codes.shape[1]} outputs.")
                per_output = class_weight
            elif isinstance(class_weight, dict):
                raise ValueError("For multi-output, class_weight should be a list of dicts, "
                                 "or the string 'balanced'.")
            else:
                per_output = [class_weight] * codes.shape[1]     # refused below, named
            per_sample = np.ones(codes.shape[0])
            for k, weight_k in enumerate(per_output):
                if weight_k is None:        # this output unweighted (scikit-learn's rule)
                    continue
                per_sample = per_sample * self._class_weight_of_output(
                    weight_k, codes[:, k], self.classes_[k])
        with np.errstate(over="ignore"):    # an overflow is refused below
            weight = weight * per_sample
            total = weight.sum()
        if total <= 0:
            raise ValueError("sample_weight times class_weight sums to 0")
        if not total <= MAX_TOTAL_WEIGHT:
            raise ValueError(
                f"sample_weight times class_weight sums to {total:.3g}, above "
                f"{MAX_TOTAL_WEIGHT:.0e} (the criteria square weighted counts): divide the "
                "weights by a common factor (a tree depends only on their ratios)")
        return weight

    def _class_weight_of_output(self, class_weight, codes, classes):
        """The weight of each sample's class in one output, shape (n_samples,)."""
        n_classes = len(classes)
        if isinstance(class_weight, str) and class_weight == "balanced":
            counts = np.bincount(codes, minlength=n_classes)
            per_class = codes.size / (n_classes * counts)   # n / (K n_k)
        elif isinstance(class_weight, dict):
            unknown = [k for k in class_weight if k not in set(classes.tolist())]
            if unknown:
                raise ValueError(f"class_weight has labels {unknown} that are not in y "
                                 f"(classes are {classes.tolist()})")
            values = [class_weight.get(c, 1.0) for c in classes.tolist()]
            bad = [v for v in values if isinstance(v, bool) or not isinstance(v, numbers.Real)]
            if bad:
                raise ValueError(f"class_weight values must be real numbers (a weight per class), "
                                 f"got {bad[0]!r} of type {type(bad[0]).__name__}")
            per_class = np.array([as_python_float(v) for v in values])
            if np.any(per_class < 0) or not np.all(np.isfinite(per_class)):
                raise ValueError("class_weight values must be finite and non-negative, got "
                                 f"{per_class.tolist()}")
        else:
            expected = ("an instance of 'dict', a str among {'balanced'} or None"
                        if not isinstance(self.classes_, list) else
                        "a list of one dict per output, a str among {'balanced'} or None")
            raise parameter_error("class_weight", expected, class_weight, type(self).__name__)
        return per_class[codes]

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Grow the tree.

        Parameters
        ----------
        X : array_like, DataFrame or SciPy sparse matrix of shape (n_samples, n_features)
            Numeric features (compared as float32); NaN marks a missing value
            (dense ``X`` only); not modified.  A sparse matrix (any format;
            CSC is copied the least) is never made dense (``dtree.sparse``),
            and gives the tree of its dense copy.
        y : array_like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels; a 2-D ``y`` of several columns is several outputs,
            and the impurity of a node is the mean of its outputs'
            impurities (scikit-learn's rule; the CART chapter's
            "Several outputs").
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights; samples of weight 0 are ignored.
        check_input : bool, default=True
            Accepted for scikit-learn's signature; dtree checks ``X`` either
            way, so ``False`` changes nothing.

        Returns
        -------
        self : DecisionTreeClassifier
            The fitted estimator.

        Raises
        ------
        ValueError
            For a non-2-D, empty or complex ``X``, infinite values in ``X``, a
            ``y`` that is None, of the wrong length, with missing labels or
            continuous (non-integer floats: "Unknown label type: continuous")
            or infinite, invalid weights, or (as ``InvalidParameterError``) an
            invalid parameter.
        TypeError
            For non-numeric ``X``.

        Warns
        -----
        DataConversionWarning
            If ``y`` is a column vector of shape (n_samples, 1) (it is read as 1-D).
        """
        return self._fit(X, y, sample_weight)

    def predict_proba(self, X, check_input=True):
        """Class fractions of the leaf each sample reaches, of shape (n_samples, n_classes).

        Columns follow ``classes_``; rows sum to 1.  With several outputs, a
        list of one such array per output (columns: that output's classes).
        ``check_input`` is accepted for scikit-learn's signature (``X`` is checked either way).
        """
        leaves = self.apply(X)
        if self.n_outputs_ == 1:
            return self.tree_.value[:, 0, :][leaves]   # indexing copies: a writable array
        return [self.tree_.value[:, k, :n_k][leaves] for k, n_k in enumerate(self.n_classes_)]

    def predict_log_proba(self, X):
        """Natural logarithm of :meth:`predict_proba` (``-inf`` for zero fractions)."""
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if self.n_outputs_ == 1:
                return np.log(proba)
            return [np.log(p) for p in proba]

    def predict(self, X, check_input=True):
        """Majority class of the leaf each sample reaches (ties: first in ``classes_``).

        Of shape (n_samples,), or (n_samples, n_outputs) with several outputs
        (column ``k``: the majority class of output ``k``).
        ``check_input`` is accepted for scikit-learn's signature (``X`` is checked either way).
        """
        leaves = self.apply(X)
        if self.n_outputs_ == 1:
            majority = np.argmax(self.tree_.value[:, 0, :], axis=1)  # per node, not per sample
            return self.classes_[majority[leaves]]
        try:            # one dtype for the outputs' labels, as NumPy would give them
            dtype = np.result_type(*self.classes_)
        except TypeError:
            dtype = object
        predicted = np.empty((leaves.shape[0], self.n_outputs_), dtype=dtype)
        for k, n_k in enumerate(self.n_classes_):
            majority = np.argmax(self.tree_.value[:, k, :n_k], axis=1)
            predicted[:, k] = self.classes_[k][majority[leaves]]
        return predicted


class DecisionTreeRegressor(_BaseDecisionTree):
    __doc__ = """CART regression tree (Breiman et al. 1984, chapter 8), scikit-learn's API.

    Parameters
    ----------
    criterion : {"squared_error", "friedman_mse", "absolute_error", "poisson"}, \
default="squared_error"
        Impurity: weighted variance (leaf value: the mean; "friedman_mse"
        ranks the splits by Friedman's improvement
        :math:`\\frac{w_L w_R}{w_L + w_R}(\\bar y_L - \\bar y_R)^2` instead,
        Friedman (2001), eq. 35), mean absolute
        deviation :math:`\\frac{1}{W}\\sum_i w_i |y_i - \\tilde y|` from the
        weighted median :math:`\\tilde y` (leaf value: that median, the first
        value whose cumulative weight reaches half the total, or the midpoint
        of it and the next value if it reaches exactly half; Breiman et al.
        1984, section 8.11; no missing values), or half Poisson deviance (leaf
        value: the mean; needs ``y >= 0``)."""  + _SHARED_PARAMETERS + _MONOTONIC_CST % (
        "the mean\n        (the median with ``criterion=\"absolute_error\"``)", "their means, or medians",
        ", or if\n        ``y`` has several outputs") + """

    Attributes
    ----------
    tree_ : TreeArrays
        The fitted tree as read-only arrays with scikit-learn's names.
    n_features_in_ : int
        Number of features seen in ``fit``.
    n_outputs_ : int
        Number of outputs: 1 for a 1-D ``y``, ``m`` for a ``y`` of shape
        (n_samples, m).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.
    max_features_ : int
        Number of features searched per node.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised impurity decrease per feature.

    References
    ----------
    Breiman et al. (1984), chapter 8.

    Examples
    --------
    >>> import numpy as np
    >>> from dtree import DecisionTreeRegressor
    >>> X = np.arange(8).reshape(-1, 1)
    >>> y = np.array([1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0, 9.0])
    >>> tree = DecisionTreeRegressor(max_depth=1).fit(X, y)
    >>> float(tree.tree_.threshold[0]), tree.predict([[0], [7]]).tolist()
    (3.5, [1.0, 6.0])
    """

    _classification = False

    def __init__(self, *, criterion="squared_error", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, monotonic_cst=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst

    def _encode_target(self, y, n_samples, criterion):
        columns = _target_columns(y)
        array = (check_target(y, None, labels=False) if columns is None
                 else np.column_stack(columns))              # (n, m) of several outputs
        check_real(array, "y")
        array = as_float64(array, "y")
        if not np.all(np.isfinite(array)):
            raise ValueError("y must be finite (no NaN or inf)")
        # Poisson's y before its length, in scikit-learn's words (its tests match them)
        if criterion.name == "poisson":
            if np.any(array < 0):
                raise ValueError(
                    "Some value(s) of y are negative which is not allowed for Poisson "
                    f"regression (criterion='poisson' needs y >= 0; the smallest y is "
                    f"{float(np.min(array))!r})")
            if not np.any(array > 0):
                raise ValueError("Sum of y is not positive which is necessary for Poisson "
                                 "regression (criterion='poisson' needs a positive sum of y)")
        check_n_targets(array, n_samples)
        return array

    def _apply_class_weight(self, weight):
        return weight

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Grow the tree.

        Parameters
        ----------
        X : array_like, DataFrame or SciPy sparse matrix of shape (n_samples, n_features)
            Numeric features (compared as float32); NaN marks a missing value
            (dense ``X`` only, and not with ``criterion="absolute_error"``);
            not modified.  A sparse matrix (any format; CSC is copied the
            least) is never made dense (``dtree.sparse``), and gives the tree
            of its dense copy (up to near-ties of float targets).
        y : array_like of shape (n_samples,) or (n_samples, n_outputs)
            Numeric targets; a 2-D ``y`` of several columns is several
            outputs (the impurity of a node: the mean of its outputs').
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative weights; samples of weight 0 are ignored.
        check_input : bool, default=True
            Accepted for scikit-learn's signature; dtree checks ``X`` either
            way, so ``False`` changes nothing.

        Returns
        -------
        self : DecisionTreeRegressor
            The fitted estimator.

        Raises
        ------
        ValueError, TypeError
            As for :meth:`DecisionTreeClassifier.fit` (but ``y`` is a real
            number per sample); also for a non-finite or complex ``y``, a
            negative ``y`` with ``criterion="poisson"``, or NaN in ``X`` with
            ``criterion="absolute_error"``.

        Warns
        -----
        DataConversionWarning
            If ``y`` is a column vector of shape (n_samples, 1) (it is read as 1-D).
        """
        return self._fit(X, y, sample_weight)

    def predict(self, X, check_input=True):
        """The value (mean or median) of the leaf each sample reaches.

        Of shape (n_samples,), or (n_samples, n_outputs) with several outputs.
        ``check_input`` is accepted for scikit-learn's signature (``X`` is checked either way).
        """
        leaves = self.apply(X)
        if self.n_outputs_ == 1:
            return self.tree_.value[:, 0, 0][leaves]   # indexing copies: a writable array
        return self.tree_.value[:, :, 0][leaves]

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.target_tags.positive_only = self.criterion == "poisson"   # y >= 0, sum > 0
        return tags

    def score(self, X, y, sample_weight=None):
        """Coefficient of determination :math:`R^2` of :meth:`predict` (best 1.0).

        With several outputs, the mean of the outputs' :math:`R^2`
        (scikit-learn's ``r2_score`` with ``multioutput="uniform_average"``).
        """
        y = np.asarray(y, dtype=np.float64)
        weight = check_sample_weight(sample_weight, y.shape[0])
        predicted = self.predict(X)
        if y.ndim == 2 and y.shape[1] == 1 and predicted.ndim == 1:
            y = y.ravel()                          # a column vector: one output
        if y.shape != predicted.shape:
            raise ValueError(f"y must have shape {predicted.shape}, got {y.shape}")
        if y.ndim == 1:
            y, predicted = y[:, None], predicted[:, None]
        # R^2 of each output, then their mean (scikit-learn's "uniform_average")
        residual = np.sum(weight[:, None] * (y - predicted) ** 2, axis=0)
        total = np.sum(weight[:, None] * (y - np.average(y, axis=0, weights=weight)) ** 2,
                       axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(total > 0, 1.0 - residual / total, np.where(residual == 0, 1.0, 0.0))
        return float(np.mean(r2))


# The fits that compile a criterion's search in the background (dtree.growth).
WARM_UP_ESTIMATORS.update(classification=DecisionTreeClassifier, regression=DecisionTreeRegressor)
