r"""C4.5: gain ratio, numeric thresholds, missing values and pessimistic pruning.

The scoring of one feature at a node is a pure function of the node's rows
(:func:`~dtree.multiway.nominal_split` and
:func:`~dtree.multiway.threshold_split`, in :mod:`dtree.multiway`, which ID3
shares; both, and :class:`~dtree.multiway.SplitCandidate`, can still be
imported from here); :class:`C45Classifier` validates, grows the tree depth
first, and prunes it with :mod:`dtree.pessimistic`.

Weights carry everything C4.5 does with missing values (Quinlan 1993, ch. 3):
a row whose value of the tested feature is missing goes down every branch
with its weight multiplied by the branch's share of the known weight, so a
row can reach a node with a fractional weight, and every count below is a sum
of such weights.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

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
from dtree.exceptions import InvalidParameterError
from dtree._helpers import _class_weights, _entropy_of_counts, _make_leaf, _renumber
from dtree.multiway import (
    TIE_TOLERANCE,
    SplitCandidate,
    nominal_split,
    one_column_at_a_time,
    threshold_split,
    threshold_splits,
)
from dtree.pessimistic import confidence_prune, pessimistic_prune
from dtree.tree import Node

__all__ = ["C45Classifier", "RELEASE8_EPSILON", "SplitCandidate", "TEXTBOOK", "nominal_split",
           "threshold_split"]

#: ``Epsilon`` of C4.5 Release 8 (``defns.i``): the tolerance of its
#: average-gain rule, the smallest split information it accepts, and the
#: margin by which a grown subtree must beat a leaf.
RELEASE8_EPSILON = 1e-3

#: Parameters that turn off every behaviour of Quinlan's program beyond the
#: textbook rule: ``C45Classifier(**TEXTBOOK)`` grows the tree of the book's
#: C4.5 chapter (Quinlan 1993, ch. 2-4, with midpoint thresholds and without
#: subtree raising).
TEXTBOOK = {
    "threshold": "midpoint",
    "collapse": False,
    "min_split": "min_samples_leaf",
    "zero_gain": False,
    "exclude_many_valued": False,
    "threshold_penalty": False,
    "min_value_gap": 0.0,
    "subtree_raising": False,
    "pruning_slack": 0.0,
    "error_estimate": "exact",
    "empty_branch": "distribution",
}


def _missing_mask(array: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(array), dtype=bool)


class C45Classifier(NodeTreeMixin, ClassifierMixin, BaseEstimator):
    r"""C4.5 decision tree: gain ratio, numeric thresholds, missing values, pessimistic pruning.

    At each node every feature is scored by its information gain
    :math:`\operatorname{Gain}(D, A)` and split information
    :math:`\operatorname{SplitInfo}(D, A)` (bits).  Quinlan's rule picks,
    among the features whose gain is at least the average gain of the
    features that can split the node, the one of largest gain ratio
    :math:`\operatorname{Gain} / \operatorname{SplitInfo}`.  A nominal
    feature splits multiway, one branch per category present at the node; a
    numeric feature splits in two at the threshold of largest gain.

    Missing values (``NaN``, ``None``) are handled as in C4.5: the gain is
    computed on the rows whose value is known and multiplied by their weight
    fraction :math:`1 - \gamma`; the split information counts the missing
    rows as one more branch; a row with a missing value follows every branch
    with its weight multiplied by the branch's share of the known weight, and
    at prediction its class distribution is the so weighted sum of the
    branches' distributions.

    Parameters
    ----------
    criterion : {"gain_ratio", "gain"}, default="gain_ratio"
        ``"gain_ratio"`` is C4.5's rule above; ``"gain"`` picks the feature of
        largest gain (ID3's criterion, with C4.5's thresholds and missing
        values).
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0); ``None`` for no limit.
    min_samples_leaf : float, default=2
        C4.5's minimum number of cases (its ``-m`` option): a nominal split
        needs two branches, and a threshold both sides, with at least this
        (weighted) number of known cases; a node with less than twice this
        weight is a leaf.
    threshold : {"training_value", "midpoint"}, default="training_value"
        Where a numeric cut between adjacent values :math:`v_i < v_{i+1}`
        goes: (``"training_value"``, as C4.5's program does) the largest
        value of the feature in the whole training set that does not exceed
        their midpoint, or the midpoint itself.  Both send the training rows
        the same way; they differ for new values between the two.
    pruning : {"confidence", "pessimistic", None}, default="confidence"
        ``"confidence"``: C4.5's error-based pruning with ``confidence_factor``,
        by Release 8's pruner, which sends the training cases down the tree
        again and follows ``subtree_raising``, ``pruning_slack`` and
        ``error_estimate``; only when all three are off
        (``subtree_raising=False``, ``pruning_slack=0``,
        ``error_estimate="exact"``, as in ``TEXTBOOK``) does the rule of
        Quinlan's book text run instead
        (:func:`dtree.pessimistic.confidence_prune`).  ``"pessimistic"``:
        Quinlan's (1987) pessimistic error pruning with the 0.5 continuity
        correction and the one-standard-error rule
        (:func:`dtree.pessimistic.pessimistic_prune`); ``None``: no pruning.
        ``subtree_raising``, ``pruning_slack`` and ``error_estimate`` act only
        when ``pruning="confidence"``.
    confidence_factor : float, default=0.25
        C4.5's CF in (0, 1); used only when ``pruning="confidence"``.
    categorical_features : "auto" or array_like, default="auto"
        Which features are nominal.  ``"auto"``: columns of a DataFrame with a
        non-numeric dtype (object, string, category, bool), and columns of an
        array that hold any non-number; the others are numeric.  Otherwise a
        list of column indices or names, or a boolean mask of shape
        (n_features,).
    collapse : bool, default=True
        Release 8 (``build.c``): after growing a subtree, turn it back into a
        leaf unless it makes fewer training errors than the leaf, by more
        than ``RELEASE8_EPSILON``; the unpruned tree is already so trimmed.
    min_split : {"release8", "min_samples_leaf"}, default="release8"
        Known weight each side of a numeric cut must carry: Release 8's
        :math:`\max(m, \min(25, 0.1\,W_{known}/K))` (``contin.c``; :math:`m`
        = ``min_samples_leaf``, :math:`K` classes), or :math:`m`.
    zero_gain : bool, default=True
        Release 8 (``build.c``, ``Worth``): a test of gain 0 competes, and the
        average-gain rule and the split information have the program's
        tolerance ``RELEASE8_EPSILON``; a tree can then learn XOR.  ``False``:
        only tests of positive gain compete (the textbook).
    exclude_many_valued : bool, default=True
        Release 8: nominal features with at least 0.3 x (training weight)
        values stay out of the average gain (they still compete); with no
        other candidate, the node is a leaf.  It acts only with
        ``zero_gain=True`` and ``criterion="gain_ratio"`` (the program's
        average-gain rule), and not at all when every feature has that many
        values (the program then counts them all).
    threshold_penalty : bool, default=True
        Release 8 (Quinlan 1996): a numeric cut's gain is reduced by
        :math:`\log_2(\text{admissible cuts})/W`, :math:`W` the node's weight
        with unknown values, and the feature competes only if that is positive.
    min_value_gap : float, default=1e-5
        No cut between values closer than this (Release 8); ``0`` cuts
        between any two distinct values.
    subtree_raising : bool, default=True
        Release 8 (``prune.c``): when pruning, a node may also be replaced by
        its largest branch, pruned again with all the node's cases.
    pruning_slack : float, default=0.1
        Release 8 accepts a replacement that predicts up to 0.1 more errors.
    error_estimate : {"normal", "exact"}, default="normal"
        The pessimistic errors of a leaf: the program's normal approximation
        (:func:`dtree.pessimistic.added_errors`, ``AddErrs``) or the exact
        binomial bound of Quinlan's book (:func:`dtree.pessimistic.upper_error_rate`).
        The default follows the program, so that its pruned trees are
        reproduced; the two differ by a few hundredths of an error for small
        leaves and by up to a few tenths for large ones.
    empty_branch : {"majority", "distribution"}, default="majority"
        A value with no training case at a node.  ``"majority"`` (Release 8,
        ``build.c``): a nominal test has a branch for every category of the
        feature, and a category without cases at the node gets an *empty
        leaf*: no cases (``value`` all zero, ``n_samples=0``) and the node's
        majority class, kept in the leaf's ``extra["leaf"]`` (a class index;
        the program's ``Leaf``).  A case that reaches it gets that class
        with its whole weight (``classify.c``).  Subtree raising can send
        cases into it (``prune.c``): it then holds their weights, its class
        is their majority (its own on a tie) and its predicted errors are
        those of a leaf with these cases.  ``"distribution"`` (the
        textbook): a test has branches for the categories present at the
        node only, and a case whose category has none gets the node's class
        distribution.  Either way a category unseen in ``fit`` stops at the
        node: its majority class, or its distribution.

    Attributes
    ----------
    root_ : Node
        The fitted (and pruned) tree; ``value`` holds weighted class counts,
        ``gain`` the chosen test's score (gain ratio, or gain), and
        ``candidate_scores`` maps each competing feature to the
        :class:`~dtree.multiway.SplitCandidate` that scored it.
    unpruned_root_ : Node
        The tree before pruning.
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Set only when ``X`` was a DataFrame with string column names.
    is_categorical_ : ndarray of shape (n_features_in_,), dtype=bool
        Which features were treated as nominal.
    categories_ : list of ndarray or None
        For each nominal feature its sorted categories; ``None`` for numeric
        features.

    Notes
    -----
    ``TEXTBOOK`` (in :mod:`dtree.c45`) holds ``threshold="midpoint"`` and
    the values of the last ten parameters that switch every Release 8
    behaviour off: ``C45Classifier(**TEXTBOOK)`` grows the tree of the book's
    C4.5 chapter.  Because it holds ``threshold``, change that parameter
    with ``C45Classifier(**TEXTBOOK).set_params(threshold=...)``.

    Deterministic rules: among features whose scores agree to within 1e-12,
    the lower index wins; among equally good cuts, the lower threshold; a node
    predicts the class of largest weight, the first in ``classes_`` on a tie.
    A numeric feature without a cut of positive gain is no candidate.

    Remaining differences from Release 8 (``tests/release8/README.md``
    lists each measured one with its data set and node):

    * Arithmetic.  dtree computes in float64, the program in float32.
      Where two quantities are equal in exact arithmetic, the program's
      rounding decides and dtree decides by the rules above: tests of
      exactly equal gain (``crx`` and ``monk2`` with ``-g``; ``soybean``
      with ``-g``, where ``roots`` and ``external decay`` tie) or gain ratio
      (``soybean``: three ratios of exactly 1 below ``leaves = norm``), a
      numeric cut that leaves exactly the minimum weight on one side (a
      float32 weight sum lands 1e-7 past it), and a float32 midpoint that
      falls below a training value.  float64 is kept on purpose: the
      program's float32 results depend on the order in which it sums case
      weights (left by its swaps and an unstable Quicksort) and on
      ``Weight *= Factor`` ... ``/= Factor`` round trips that do not restore
      a weight, so emulating them means replaying its control flow, not
      changing a rule; rounding dtree's inputs to float32 alone lowers the
      agreement (68 of the 88 trees of the random data in
      ``tests/release8`` identical, against 73).
    * The program's subset tests (``-s``), windowing (``-t``) and soft
      thresholds (``-p``) are not implemented.
    * After pruning, a leaf's class on a tie of its class weights is the
      first class, where the program keeps the class the node had (an empty
      leaf keeps its own, as the program's); only the class a leaf names
      differs, not a prediction (both classify from the class weights).

    References
    ----------
    J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann
    (1993), ch. 2 (gain ratio), 3 (unknown values), 4 (pruning), and the
    program's source, Release 8 (1996).
    J. R. Quinlan, "Improved use of continuous attributes in C4.5",
    *Journal of Artificial Intelligence Research* 4 (1996), 77-90.
    J. R. Quinlan, "Simplifying decision trees", *International Journal of
    Man-Machine Studies* 27 (1987), 221-234.

    Examples
    --------
    The numeric weather data gives Quinlan's tree, with ``humidity <= 75``
    under "sunny" (thresholds are training values):

    >>> from dtree import C45Classifier, export_text
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather(numeric=True)
    >>> X, y = weather.drop(columns="play"), weather["play"]
    >>> tree = C45Classifier(pruning=None).fit(X, y)
    >>> print(export_text(tree))
    |--- outlook = overcast
    |   |--- class: yes
    |--- outlook = rainy
    |   |--- windy = False
    |   |   |--- class: yes
    |   |--- windy = True
    |   |   |--- class: no
    |--- outlook = sunny
    |   |--- humidity <= 75.00
    |   |   |--- class: yes
    |   |--- humidity >  75.00
    |   |   |--- class: no
    <BLANKLINE>
    """

    def __init__(self, *, criterion="gain_ratio", max_depth=None, min_samples_leaf=2,
                 threshold="training_value", pruning="confidence", confidence_factor=0.25,
                 categorical_features="auto", collapse=True, min_split="release8", zero_gain=True,
                 exclude_many_valued=True, threshold_penalty=True, min_value_gap=1e-5,
                 subtree_raising=True, pruning_slack=0.1, error_estimate="normal",
                 empty_branch="majority"):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.threshold = threshold
        self.pruning = pruning
        self.confidence_factor = confidence_factor
        self.categorical_features = categorical_features
        self.collapse = collapse
        self.min_split = min_split
        self.zero_gain = zero_gain
        self.exclude_many_valued = exclude_many_valued
        self.threshold_penalty = threshold_penalty
        self.min_value_gap = min_value_gap
        self.subtree_raising = subtree_raising
        self.pruning_slack = pruning_slack
        self.error_estimate = error_estimate
        self.empty_branch = empty_branch

    # -- parameters and input ------------------------------------------------

    def _check_params(self):
        def choice(name, options):
            value = getattr(self, name)
            if not any(value is option or value == option for option in options):
                raise InvalidParameterError(
                    f"{name} must be one of {options}, got {value!r}")
            return value

        choice("criterion", ("gain_ratio", "gain"))
        choice("threshold", ("midpoint", "training_value"))
        choice("pruning", ("confidence", "pessimistic", None))
        choice("min_split", ("release8", "min_samples_leaf"))
        choice("error_estimate", ("normal", "exact"))
        choice("empty_branch", ("majority", "distribution"))
        for name in ("collapse", "zero_gain", "exclude_many_valued", "threshold_penalty",
                     "subtree_raising"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise InvalidParameterError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name in ("min_value_gap", "pruning_slack"):
            check_float_param(getattr(self, name), name)
        max_depth = check_int_param(self.max_depth, "max_depth", low=0, allow_none=True)
        min_leaf = check_float_param(self.min_samples_leaf, "min_samples_leaf")
        cf = check_float_param(self.confidence_factor, "confidence_factor")
        if not 0 < cf < 1:
            raise InvalidParameterError(
                f"confidence_factor must lie in (0, 1), got {self.confidence_factor!r}")
        return max_depth, min_leaf

    def _categorical_mask(self, X, array, names) -> np.ndarray:
        n_features = array.shape[1]
        spec = self.categorical_features
        if isinstance(spec, str) and spec == "auto":
            if isinstance(X, pd.DataFrame):
                return np.array([not pd.api.types.is_numeric_dtype(dtype)
                                 or pd.api.types.is_bool_dtype(dtype) for dtype in X.dtypes])
            if getattr(X, "dtype", None) is not None and X.dtype.kind in "iuf":
                return np.zeros(n_features, dtype=bool)     # a numeric array: all numbers
            return np.array([not all(_is_number(v) for v in array[:, j] if not pd.isna(v))
                             for j in range(n_features)])
        values = np.asarray(spec)
        if values.dtype == bool:
            if values.shape != (n_features,):
                raise InvalidParameterError(
                    f"categorical_features as a mask must have shape ({n_features},), "
                    f"got {values.shape}")
            return values.copy()
        mask = np.zeros(n_features, dtype=bool)
        for item in values.ravel().tolist():
            if isinstance(item, str):
                if names is None or item not in list(names):
                    raise InvalidParameterError(
                        f"categorical_features names {item!r}, which is not a column of X")
                mask[list(names).index(item)] = True
            elif isinstance(item, int) and -n_features <= item < n_features:
                mask[item] = True
            else:
                raise InvalidParameterError(
                    "categorical_features must be 'auto', a boolean mask, or column indices "
                    f"in [0, {n_features}) or names; got {item!r}")
        return mask

    def _encode_X(self, array, fitting: bool):
        """Nominal columns to codes (-1 = missing or unseen), numeric to float (nan = missing)."""
        n, d = array.shape
        codes = np.full((n, d), -1, dtype=np.intp)
        numbers = np.full((n, d), np.nan)
        missing = _missing_mask(array)
        if fitting:
            self.categories_ = [None] * d
        for j in range(d):
            column, known = array[:, j], ~missing[:, j]
            if self.is_categorical_[j]:
                if fitting:
                    codes[known, j], self.categories_[j] = encode(column[known])
                else:
                    lookup = {v: c for c, v in enumerate(self.categories_[j].tolist())}
                    codes[known, j] = [lookup.get(v, -2) for v in column[known].tolist()]
            else:
                try:
                    numbers[known, j] = column[known].astype(float)
                except (TypeError, ValueError):
                    raise ValueError(
                        f"X column {j} is numeric (as in fit) but holds a non-number "
                        f"such as {next(v for v in column[known] if not _is_number(v))!r}"
                    ) from None
                if np.isinf(numbers[:, j]).any():
                    raise ValueError(f"X column {j} holds inf; numeric values must be finite")
        return codes, numbers

    # -- fitting -------------------------------------------------------------

    def _input_tags(self):
        # categories of any type (strings too); NaN is a missing value
        return {"categorical": True, "string": True, "allow_nan": True}

    def fit(self, X, y, sample_weight=None):
        """Grow a C4.5 tree and prune it.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Nominal and numeric features; missing values as ``NaN`` or
            ``None``.  Not modified.
        y : array_like of shape (n_samples,)
            Class labels (no missing values).
        sample_weight : array_like of shape (n_samples,), default=None
            Non-negative case weights; ``None`` weighs every case 1.

        Returns
        -------
        self : C45Classifier
            The fitted estimator.

        Raises
        ------
        ValueError
            If ``X`` is not 2-D, is empty or of complex dtype, a numeric column holds a
            string or inf, ``y`` is None, has the wrong length or missing
            labels, or is continuous or infinite (float labels must be whole
            numbers), or ``sample_weight`` is invalid;
            ``InvalidParameterError`` (a ``ValueError``) for an invalid
            parameter.
        TypeError
            If ``X`` is sparse.

        Warns
        -----
        DataConversionWarning
            If ``y`` is a column vector of shape (n_samples, 1) (it is read as 1-D).
        """
        max_depth, min_leaf = self._check_params()
        names = feature_names_of(X)
        array = check_categorical_X(X, estimator_name="C45Classifier", allow_missing=True)
        labels = check_target(y, array.shape[0])
        weight = check_sample_weight(sample_weight, array.shape[0])
        self.is_categorical_ = self._categorical_mask(X, array, names)
        y_codes, self.classes_ = encode(labels)
        self.n_classes_ = len(self.classes_)
        self.n_features_in_ = array.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        codes, numbers = self._encode_X(array, fitting=True)
        keep = weight > 0  # a case of weight 0 is a deleted case
        codes, numbers, y_codes, weight = codes[keep], numbers[keep], y_codes[keep], weight[keep]
        values = None
        if self.threshold == "training_value":
            values = [np.unique(numbers[~np.isnan(numbers[:, j]), j])
                      for j in range(array.shape[1])]
        grower = _Grower(codes, numbers, y_codes, weight, self, max_depth, min_leaf, values)
        self.unpruned_root_ = grower.grow()
        if self.pruning == "confidence" and (self.subtree_raising or self.pruning_slack > 0
                                             or self.error_estimate == "normal"):
            pruner = _Release8Pruner(codes, numbers, y_codes, self.categories_, self.n_classes_,
                                     self.confidence_factor, slack=self.pruning_slack,
                                     raising=self.subtree_raising, error_estimate=self.error_estimate)
            self.root_ = pruner.prune(self.unpruned_root_, np.arange(y_codes.size), weight)
        elif self.pruning == "confidence":
            self.root_ = confidence_prune(self.unpruned_root_, self.confidence_factor)
        elif self.pruning == "pessimistic":
            self.root_ = pessimistic_prune(self.unpruned_root_)
        else:
            self.root_ = self.unpruned_root_
        return self

    # -- prediction ----------------------------------------------------------

    def predict_proba(self, X):
        """Class probabilities, summing over branches for missing values.

        A row with a known value follows its branch; a row whose tested value
        is missing follows every branch, each weighted by the branch's share
        of the node's training weight (an empty leaf has none); a row that
        reaches an empty leaf (``empty_branch="majority"``, the default) gets
        the leaf's class; a row whose category has no branch at a node (no
        training case there with ``"distribution"``, or unseen in ``fit``)
        stops there: with ``"majority"`` it gets the node's majority class,
        with ``"distribution"`` the node's class distribution.

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
            If ``X`` has another number of features or other feature names
            than in ``fit``, is of complex dtype, or a numeric column holds a
            non-number or inf.
        TypeError
            If ``X`` is sparse.
        """
        check_is_fitted(self, "root_")
        array = check_predict_X(self, X, allow_missing=True)
        codes, numbers = self._encode_X(array, fitting=False)
        proba = np.zeros((array.shape[0], self.n_classes_))
        stack = [(self.root_, np.arange(array.shape[0]), np.ones(array.shape[0]))]
        while stack:
            node, rows, share = stack.pop()
            if rows.size == 0:
                continue
            if node.is_leaf:
                if node.value.sum() > 0:
                    proba[rows] += share[:, None] * node.proba
                else:  # an empty leaf: its class (classify.c)
                    proba[rows, node.extra["leaf"]] += share
                continue
            j = node.feature
            if node.threshold is None:
                branch_of = {self.categories_[j].tolist().index(c): i
                             for i, c in enumerate(node.categories)}
                branch = np.array([-2 if c == -1 else branch_of.get(c, -1)
                                   for c in codes[rows, j].tolist()], dtype=np.intp)
            else:
                x = numbers[rows, j]
                branch = np.where(np.isnan(x), -2, np.where(x <= node.threshold, 0, 1))
            stopped = branch == -1  # a category with no branch here
            if self.empty_branch == "majority":  # the program's empty leaf: the node's class
                proba[rows[stopped], int(np.argmax(node.value))] += share[stopped]
            else:
                proba[rows[stopped]] += share[stopped, None] * node.proba
            missing = branch == -2
            fractions = _branch_fractions(node)
            for i, child in enumerate(node.children):
                mine = (branch == i) | missing
                stack.append((child, rows[mine],
                              share[mine] * np.where(missing[mine], fractions[i], 1.0)))
        return proba


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def _branch_fractions(node: Node) -> np.ndarray:
    """Each branch's share of the node's training weight (= its share of the known weight)."""
    weights = np.array([child.value.sum() for child in node.children])
    return weights / weights.sum()


class _Grower:
    """Depth-first growth; nodes are numbered in pre-order as they are created."""

    def __init__(self, codes, numbers, y, weight, estimator, max_depth, min_leaf, values):
        self.codes, self.numbers, self.y, self.w0 = codes, numbers, y, weight
        self.categorical = estimator.is_categorical_
        self.categories = estimator.categories_
        self.n_classes = estimator.n_classes_
        self.use_ratio = estimator.criterion == "gain_ratio"
        self.max_depth, self.min_leaf, self.values = max_depth, min_leaf, values
        self.n_nodes = 0
        self.collapse = estimator.collapse
        self.numeric = np.flatnonzero(~np.asarray(self.categorical, dtype=bool))
        self.zero_gain = estimator.zero_gain
        # Release 8 (build.c, FormTree): a nominal test has a branch per value of
        # the attribute; a value without known cases at the node is a leaf of the
        # node's class with no cases (an "empty leaf").
        self.empty_leaves = estimator.empty_branch == "majority"
        self.split_options = {"min_split": estimator.min_split, "penalty": estimator.threshold_penalty,
                              "min_value_gap": estimator.min_value_gap}
        # Nominal features with at least 0.3 x (number of training cases) values
        # stay out of the average gain, unless every feature is such (build.c);
        # cases are counted by weight, so that integer weights are repetitions,
        # and values by the cases fit kept (those of positive weight), not by
        # categories_, so that a row of weight 0 is a deleted case here too.
        many = np.array([self.categorical[j] and np.unique(
            codes[codes[:, j] >= 0, j]).size >= 0.3 * weight.sum()
            for j in range(codes.shape[1])], dtype=bool)
        self.left_out_of_average = many if estimator.exclude_many_valued and not many.all() else \
            np.zeros_like(many)
        estimator._left_out_of_average = self.left_out_of_average  # for export_trace

    def _new_node(self, rows, w, depth):
        value = _class_weights(self.y[rows], w, self.n_classes)
        node = Node(node_id=self.n_nodes, depth=depth, n_samples=int(rows.size),
                    value=value, impurity=float(_entropy_of_counts(value)))
        self.n_nodes += 1
        return node

    def _candidates(self, rows, w):
        y = self.y[rows]
        found = {}
        for j in np.flatnonzero(self.categorical):
            found[j] = nominal_split(self.codes[rows, j], y, w, len(self.categories[j]),
                                     self.n_classes, self.min_leaf)
        numeric, values = self.numeric, self.values
        if one_column_at_a_time(rows.size, self.n_classes):
            # a large node: each column read and scored alone (no copy of all of them)
            for j in numeric:
                found[j] = threshold_split(self.numbers[rows, j], y, w, self.n_classes,
                                           self.min_leaf, None if values is None else values[j],
                                           **self.split_options)
        elif numeric.size:  # threshold_split of each numeric feature, several at a time
            splits = threshold_splits(self.numbers[np.ix_(rows, numeric)], y, w,
                                      self.n_classes, self.min_leaf,
                                      None if values is None else [values[j] for j in numeric],
                                      **self.split_options)
            found.update(zip(numeric, splits))
        return {int(j): found[j] for j in sorted(found) if found[j] is not None}

    def _choose(self, scores):
        """Quinlan's rule: largest gain ratio among features with at least average gain.

        With ``zero_gain`` (Release 8's ``FormTree`` and ``Worth``): a test of
        gain 0 competes, the average leaves out the many-valued nominal
        features (``left_out_of_average``; no feature counted: no test), and
        the comparisons have the program's tolerance ``RELEASE8_EPSILON``.
        Without it (the textbook rule): only tests of positive gain compete.
        """
        if not scores:
            return None
        gains = {j: s.gain for j, s in scores.items()}
        if self.zero_gain:
            eps = RELEASE8_EPSILON
            counted = [gains[j] for j in gains if not self.left_out_of_average[j]]
            if self.use_ratio:
                if not counted:
                    return None
                average = sum(counted) / len(counted)
                eligible = {j: scores[j].gain / scores[j].split_information for j in scores
                            if gains[j] >= average - eps and scores[j].split_information > eps}
            else:
                eligible = {j: g for j, g in gains.items()
                            if scores[j].split_information > 0 and g > -eps}
        elif self.use_ratio:
            average = sum(gains.values()) / len(gains)
            eligible = {j: scores[j].gain_ratio for j in scores
                        if gains[j] >= average - TIE_TOLERANCE and gains[j] > TIE_TOLERANCE
                        and not np.isnan(scores[j].gain_ratio)}
        else:
            eligible = {j: g for j, g in gains.items() if g > TIE_TOLERANCE}
        if not eligible:
            return None
        best = max(eligible.values())
        return next(j for j in sorted(eligible) if eligible[j] >= best - TIE_TOLERANCE)

    def _children(self, rows, w, j, split: SplitCandidate):
        """(branch label, rows, weights) of each branch; missing rows go everywhere.

        A nominal test has a branch per category present at the node, or, with
        ``empty_leaves`` (Release 8), per category of the feature: a category
        without known cases here gets a branch with no rows (an empty leaf).
        """
        if split.threshold is None:
            column = self.codes[rows, j]
            labels = [c for c in range(len(self.categories[j]))
                      if self.empty_leaves or np.any(column == c)]
            masks = [column == c for c in labels]
            labels = [self.categories[j][c] for c in labels]
            missing = column < 0
        else:
            column = self.numbers[rows, j]
            missing = np.isnan(column)
            masks = [~missing & (column <= split.threshold), ~missing & (column > split.threshold)]
            labels = [None, None]
        known = np.array([w[m].sum() for m in masks])
        out = []
        for label, mask, share in zip(labels, masks, known / known.sum()):
            if not mask.any():  # an empty leaf (only with empty_leaves)
                out.append((label, rows[:0], w[:0]))
                continue
            take = mask | missing
            child_w = w[take] * np.where(missing[take], share, 1.0)
            positive = child_w > 0
            out.append((label, rows[take][positive], child_w[positive]))
        return out

    def grow(self) -> Node:
        n = self.y.shape[0]
        root = None
        stack = [(None, 0, np.arange(n), self.w0.copy(), 0)]
        while stack:
            parent, index, rows, w, depth = stack.pop()
            if rows.size == 0:  # a value with no cases: the parent's class, no cases
                parent.children[index] = _empty_leaf(self, parent, depth)
                continue
            node = self._new_node(rows, w, depth)
            if parent is None:
                root = node
            else:
                parent.children[index] = node
            if (np.count_nonzero(node.value > TIE_TOLERANCE) <= 1
                    or node.weighted_n_samples < 2 * self.min_leaf - TIE_TOLERANCE
                    or (self.max_depth is not None and depth >= self.max_depth)):
                continue
            scores = self._candidates(rows, w)
            node.candidate_scores = scores
            j = self._choose(scores)
            if j is None:
                continue
            split = scores[j]
            node.feature = j
            node.gain = split.gain_ratio if self.use_ratio else split.gain
            node.threshold = split.threshold
            branches = self._children(rows, w, j, split)
            if split.threshold is None:
                node.categories = tuple(label for label, _, _ in branches)
            node.children = [None] * len(branches)
            for i in reversed(range(len(branches))):
                _, child_rows, child_w = branches[i]
                stack.append((node, i, child_rows, child_w, depth + 1))
        if self.collapse:
            _collapse(root)
        return root


def _empty_leaf(grower: "_Grower", parent: Node, depth: int) -> Node:
    """Release 8's leaf for a value with no training cases at ``parent`` (build.c, ``FormTree``).

    It has no cases (``value`` all zero) and the class of its parent, the
    first of the largest weight; that class is kept in ``extra["leaf"]`` (a
    class index, the program's ``Leaf`` field), as no weight records it.  The
    pruner can fill it with cases (subtree raising); until then it classifies
    every case that reaches it as that class (``classify.c``).
    """
    leaf = Node(node_id=grower.n_nodes, depth=depth, n_samples=0,
                value=np.zeros(grower.n_classes), impurity=0.0,
                extra={"leaf": int(np.argmax(parent.value))})
    grower.n_nodes += 1
    return leaf


def _collapse(root: Node) -> None:
    r"""Turn back into a leaf every subtree with no fewer training errors than a leaf (build.c).

    After growing a subtree, C4.5 Release 8 compares its training errors
    (the sum over its branches, each branch counted after its own collapse)
    with those of the node as a leaf, :math:`N - \max_k n_k`, and keeps the
    leaf unless the subtree makes fewer errors by more than
    ``RELEASE8_EPSILON``.  Visits the nodes in post-order with an explicit
    stack (deep trees need no recursion).
    """
    errors = {}
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        as_leaf = float(node.value.sum() - node.value.max())
        if node.is_leaf:
            errors[id(node)] = as_leaf
        elif not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in node.children)
        else:
            subtree = sum(errors.pop(id(child)) for child in node.children)
            if subtree >= as_leaf - RELEASE8_EPSILON:
                _make_leaf(node)
            errors[id(node)] = subtree
    _renumber(root)


class _Release8Pruner:
    """C4.5 Release 8's pruning (``EstimateErrors`` of ``prune.c``), with the training cases.

    A node's predicted errors as a leaf are :math:`E + \\text{extra}(N, E)`
    (``error_estimate``: ``"normal"`` is the program's approximation
    :func:`dtree.pessimistic.added_errors`, ``"exact"`` the binomial bound of
    :func:`dtree.pessimistic.upper_error_rate`); a subtree's are the sum over
    its branches.  Visiting the tree from the root, each subtree is first
    pruned below, then replaced by a leaf if that predicts at most ``slack``
    more errors than both the subtree and its largest branch; otherwise,
    with ``raising``, by its largest branch (which then receives all the
    node's cases and is pruned again) if that predicts at most ``slack``
    more errors than the subtree.

    A branch that no case reaches is left out of the sums and keeps what it
    holds, as in the program.  Raising can send cases into an empty leaf
    (``_empty_leaf``: a value with no case where the raised test was grown);
    it then counts as a leaf of those cases, is updated to hold them, and
    takes their majority class, its own on a tie.  With
    ``empty_branch="distribution"`` there are no empty leaves, and the cases
    of a value with no branch at a node are estimated together as one leaf
    that the tree does not keep.

    References
    ----------
    J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann
    (1993), ch. 4, and the program's ``prune.c`` (``EstimateErrors``) and
    ``build.c`` (``FormTree``), Release 8 (1996).
    """

    def __init__(self, codes, numbers, y, categories, n_classes, confidence_factor, *, slack, raising,
                 error_estimate):
        from dtree.pessimistic import added_errors, upper_error_rate

        self.codes, self.numbers, self.y = codes, numbers, y
        self.categories, self.n_classes = categories, n_classes
        self.slack, self.raising = slack, raising
        if error_estimate == "normal":
            self.extra = lambda n, e: added_errors(n, e, confidence_factor)
        else:
            self.extra = lambda n, e: n * upper_error_rate(e, n, confidence_factor) - e if n > 0 else 0.0

    def route(self, node, rows, w):
        """``[(child, rows, weights) or None, ...]`` and the (rows, weights) of known cases with no branch."""
        j = node.feature
        if node.threshold is None:
            column = self.codes[rows, j]
            lookup = {category: code for code, category in enumerate(self.categories[j].tolist())}
            masks = [column == lookup[category] for category in node.categories]
            missing = column < 0
        else:
            column = self.numbers[rows, j]
            missing = np.isnan(column)
            masks = [~missing & (column <= node.threshold), ~missing & (column > node.threshold)]
        known_weight = w[~missing].sum()
        branches = []
        for mask in masks:
            if not mask.any():
                branches.append(None)
                continue
            factor = w[mask].sum() / known_weight  # the branch's share of the known cases
            take = mask | missing
            branches.append((rows[take], w[take] * np.where(missing[take], factor, 1.0), factor))
        stray = ~missing & ~np.logical_or.reduce(masks)
        return branches, (rows[stray], w[stray])

    def _leaf_errors(self, rows, w):
        dist = np.bincount(self.y[rows], weights=w, minlength=self.n_classes)
        cases = float(w.sum())
        errors = cases - float(dist.max()) if cases > 0 else 0.0
        return dist, errors, errors + self.extra(cases, errors)

    def estimate(self, node, rows, w, update):
        """Predicted errors of the subtree at ``node`` for the cases (rows, w); prune it if ``update``."""
        dist, _, as_leaf = self._leaf_errors(rows, w)
        if update:
            node.value = dist
            node.n_samples = int(rows.size)
            node.impurity = float(_entropy_of_counts(dist))
            if "leaf" in node.extra:  # an empty leaf that cases reach (raising fills it):
                best = node.extra["leaf"]  # its class is theirs, its own on a tie (prune.c)
                node.extra = {"leaf": best if dist[best] == dist.max() else int(np.argmax(dist))}
        if node.is_leaf:
            return as_leaf
        branches, (stray_rows, stray_w) = self.route(node, rows, w)
        tree_errors, max_factor, largest = 0.0, 0.0, None
        for child, branch in zip(node.children, branches):
            if branch is None:
                continue
            child_rows, child_w, factor = branch
            if factor >= max_factor:  # the last of equally large branches, as the program does
                largest, max_factor = child, factor
            tree_errors += self.estimate(child, child_rows, child_w, update)
        if stray_rows.size:  # known values with no branch here: the program's empty leaf
            tree_errors += self._leaf_errors(stray_rows, stray_w)[2]
        if not update:
            return tree_errors
        branch_errors = self.estimate(largest, rows, w, False) if self.raising else np.inf
        if as_leaf <= branch_errors + self.slack and as_leaf <= tree_errors + self.slack:
            _make_leaf(node)
            return as_leaf
        if branch_errors <= tree_errors + self.slack:  # subtree raising
            raised = self.estimate(largest, rows, w, True)
            for name in ("feature", "threshold", "categories", "children", "gain", "candidate_scores",
                         "value", "n_samples", "impurity", "extra"):
                setattr(node, name, getattr(largest, name))
            return raised
        return tree_errors

    def prune(self, root, rows, w):
        """A pruned deep copy of ``root`` (pre-order renumbered, depths recomputed)."""
        import copy
        import sys

        from dtree.tree import iter_nodes

        depth = max(node.depth for node in iter_nodes(root))
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * depth + 1000))  # deepcopy and estimate recurse
        try:
            pruned = copy.deepcopy(root)
            self.estimate(pruned, rows, w, True)
        finally:
            sys.setrecursionlimit(limit)
        stack = [(pruned, 0)]
        while stack:
            node, node_depth = stack.pop()
            node.depth = node_depth
            stack.extend((child, node_depth + 1) for child in node.children)
        return _renumber(pruned)
