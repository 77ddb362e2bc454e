"""The fitted tree as readable node objects.

A node stores what it learned from the training samples that reached it
(their number, their weighted class counts, their impurity) and, if it is an
internal node, the test it applies and its children.  A multiway node on a
categorical feature has one child per category; ``categories[i]`` leads to
``children[i]``.

A binary CART tree is stored as arrays instead, one entry per node
(:class:`TreeArrays`, scikit-learn's ``tree_``).  Which arrays there are is
declared once, in :data:`NODE_FIELDS`: the growers of ``dtree.growth``,
pruning (:mod:`dtree.pruning`), pickling and :meth:`TreeArrays.to_nodes` all
read that list, so that a new per-node array is one entry there (and the code
that computes its values).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from dtree import kernels
from dtree._validation import check_sparse_X, check_width, is_sparse

# Up to this many rows, a descent whose compiled code is not at hand yet goes
# level by level in NumPy (compiling it takes a second, once per machine).
_SMALL_APPLY = 1000

__all__ = ["NODE_FIELDS", "Node", "NodeField", "iter_nodes"]


# The fields of a Node other than its children (a flat record of one node).
_NODE_FIELDS = ("node_id", "depth", "n_samples", "value", "impurity", "feature", "threshold",
                "categories", "gain", "candidate_scores", "extra")


@dataclass(eq=False)
class Node:
    """One node of a fitted tree.

    Attributes
    ----------
    node_id : int
        Position in pre-order (the root is 0).
    depth : int
        Number of edges from the root.
    n_samples : int
        Number of training samples that reached the node.
    value : ndarray of shape (n_classes,) or (1,)
        Weighted class counts of those samples (counts when unweighted), or
        for a regression tree the node's prediction (of shape
        (n_outputs, n_classes) for a tree of several outputs).
    impurity : float
        The criterion's impurity of the node (entropy in bits for ID3).
    feature : int or None
        Index of the feature the node tests; ``None`` for a leaf.
    threshold : float or None
        Binary test ``x[feature] <= threshold`` (``children[0]`` if true,
        ``children[1]`` if false); ``None`` for a multiway test.
    categories : tuple
        Multiway test: the category that leads to each child.
    children : list of Node
        The children, in the order of ``categories``.
    gain : float or None
        The criterion's score of the chosen test (information gain in bits
        for ID3); ``None`` for a leaf.
    candidate_scores : dict
        The score of every feature that competed at this node, by feature
        index (empty when no feature could split the node).
    extra : dict
        For a node of a :class:`TreeArrays` tree (:meth:`TreeArrays.to_nodes`):
        its entry in every array of :data:`NODE_FIELDS` that has no attribute
        above, by name (``weighted_n_node_samples``, ``missing_go_to_left``, ...).
        Empty for ID3 and C4.5 trees.
    """

    node_id: int
    depth: int
    n_samples: int
    value: np.ndarray
    impurity: float
    feature: int | None = None
    threshold: float | None = None
    categories: tuple = ()
    children: list["Node"] = field(default_factory=list)
    gain: float | None = None
    candidate_scores: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    @property
    def is_leaf(self) -> bool:
        """True if the node has no children."""
        return not self.children

    @property
    def weighted_n_samples(self) -> float:
        """Total weight of the training samples at the node."""
        return float(self.value.sum())

    @property
    def proba(self) -> np.ndarray:
        """Class fractions at the node, of shape (n_classes,)."""
        return self.value / self.value.sum()

    def __repr__(self) -> str:
        kind = "Leaf" if self.is_leaf else f"Split(feature={self.feature}, {len(self.children)} branches)"
        return f"Node({self.node_id}, {kind}, n_samples={self.n_samples})"


def iter_nodes(root: Node) -> Iterator[Node]:
    """Yield every node of the tree below ``root`` (inclusive) in pre-order."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def flatten_nodes(roots):
    """The nodes below ``roots`` as flat records, for pickling without recursion.

    A tree of :class:`Node` objects is nested as deep as the tree, and pickle,
    joblib and ``copy.deepcopy`` recurse once per level (Python's limit, about
    1000 frames, is reached near depth 200).  A table of records whose
    children are row numbers has no nesting.  A node reachable from several
    roots (a pruned tree sharing subtrees with the unpruned one) is stored once.

    Parameters
    ----------
    roots : list of Node

    Returns
    -------
    records : list of (dict, list of int)
        Each node's fields (but its children) and its children's row numbers.
    root_rows : list of int
        The row of each root.

    Examples
    --------
    >>> from dtree import ID3Classifier
    >>> from dtree.datasets import load_weather
    >>> weather = load_weather()
    >>> tree = ID3Classifier().fit(weather.drop(columns="play"), weather["play"])
    >>> records, rows = flatten_nodes([tree.root_])
    >>> len(records), len(records[0][1])   # 8 nodes; the root (row 0) has 3 children
    (8, 3)
    >>> unflatten_nodes(records, rows)[0].feature == tree.root_.feature
    True
    """
    row, table, stack = {}, [], list(roots)
    while stack:
        node = stack.pop()
        if id(node) not in row:
            row[id(node)] = len(table)
            table.append(node)
            stack.extend(node.children)
    records = [({f: getattr(node, f) for f in _NODE_FIELDS}, [row[id(c)] for c in node.children])
               for node in table]
    return records, [row[id(root)] for root in roots]


def unflatten_nodes(records, root_rows):
    """The roots that :func:`flatten_nodes` flattened, rebuilt (shared nodes shared again)."""
    nodes = [Node(**fields) for fields, _ in records]
    for node, (_, children) in zip(nodes, records):
        node.children = [nodes[c] for c in children]
    return [nodes[r] for r in root_rows]


# -- the per-node arrays of a binary tree ---------------------------------------

TREE_LEAF = -1          # children_left and children_right of a leaf (scikit-learn's name)
TREE_UNDEFINED = -2     # feature (and, as -2.0, threshold) of a leaf (scikit-learn's name)

_KINDS = ("child", "split", "node")


@dataclass(frozen=True)
class NodeField:
    """The declaration of one per-node array of a binary tree (see :data:`NODE_FIELDS`).

    Attributes
    ----------
    name : str
        The attribute of :class:`TreeArrays` (scikit-learn's ``tree_`` name).
    dtype : numpy dtype
        Its dtype (arrays given to :class:`TreeArrays` are converted to it).
    leaf : scalar or None
        Its value at a leaf, and at a node before it is split: filled in by the
        growers and restored by pruning.  ``None`` for a ``"node"`` field.
    doc : str
        One sentence or two for the :class:`TreeArrays` docstring.
    kind : {"child", "split", "node"}
        How the generic code treats it.  ``"child"``: a node id, renumbered
        whenever the nodes are (``children_left``, ``children_right``).
        ``"split"``: part of the test of an inner node; the growers read it
        from the split search's result (the attribute of the same name of
        ``dtree.splitting.SplitResult``), and pruning a node to a leaf
        resets it to ``leaf``.  ``"node"``: a number about the node's training
        samples, defined at every node and kept by pruning; its values come
        from the grower (``n_node_samples``, ``impurity``) or from the
        estimator's criterion statistics (``weighted_n_node_samples``,
        ``value``).
    axes : tuple of str, default=()
        Names of the array's axes after the node axis (``value``:
        ``("n_outputs", "max_n_classes")``); arrays that name an axis agree on
        its length.  Only ``"node"`` fields have any.
    """

    name: str
    dtype: type
    leaf: object
    doc: str
    kind: str
    axes: tuple = ()

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {self.kind!r}")
        if (self.leaf is None) != (self.kind == "node") or (self.axes and self.kind != "node"):
            raise ValueError(f"{self.name}: a {self.kind!r} field needs "
                             + ("leaf=None" if self.kind == "node" else "a leaf value and no axes"))

    def shape_doc(self) -> str:
        """``(node_count, ...)``: the array's shape, as the docstrings write it."""
        return f"({', '.join(('node_count',) + self.axes)}{'' if self.axes else ','})"

    def full(self, n_nodes, **axis_lengths) -> np.ndarray:
        """An array of ``n_nodes`` leaves: ``leaf`` everywhere (0 for a "node" field)."""
        shape = (n_nodes,) + tuple(axis_lengths[a] for a in self.axes)
        return np.full(shape, 0 if self.leaf is None else self.leaf, dtype=self.dtype)


#: The per-node arrays of a binary tree, in the order of scikit-learn's ``Tree``
#: attributes: the one declaration that the growers (``dtree.growth``),
#: :class:`TreeArrays` (its constructor, docstring and pickling), pruning
#: (:func:`dtree.pruning.prune_to_alpha`) and :meth:`TreeArrays.to_nodes` read:
#: ``children_left``, ``children_right``, ``feature``, ``threshold``,
#: ``impurity``, ``n_node_samples``, ``weighted_n_node_samples``, ``value`` and
#: ``missing_go_to_left``, documented under :class:`TreeArrays`.
#:
#: :meta hide-value:
NODE_FIELDS = (
    NodeField("children_left", np.intp, TREE_LEAF, "Id of the left child (samples with "
              "``X[:, feature] <= threshold``), -1 at leaves.", "child"),
    NodeField("children_right", np.intp, TREE_LEAF, "Id of the right child, -1 at leaves.",
              "child"),
    NodeField("feature", np.intp, TREE_UNDEFINED, "Tested feature, -2 at leaves.", "split"),
    NodeField("threshold", np.float64, float(TREE_UNDEFINED),
              "Threshold of the test, -2.0 at leaves.", "split"),
    NodeField("impurity", np.float64, None,
              "Impurity of each node under the fitted criterion.", "node"),
    NodeField("n_node_samples", np.intp, None,
              "Training samples (of positive weight) reaching each node.", "node"),
    NodeField("weighted_n_node_samples", np.float64, None,
              "Total weight of those samples.", "node"),
    NodeField("value", np.float64, None, "Class fractions (classifier) or the prediction "
              "(regressor) of each node, for each output.", "node",
              axes=("n_outputs", "max_n_classes")),
    NodeField("missing_go_to_left", np.bool_, False,
              "Where a missing value (NaN) goes at each split: the side the missing "
              "training samples of the node went to, or, if the node had none, the child "
              "with more training samples (right on a tie), as in scikit-learn.  False at "
              "leaves.", "split"),
)


def node_fields(*kinds) -> tuple:
    """The fields of :data:`NODE_FIELDS` of the given kinds (all without any), in order.

    Read at every call, so that a field added to the declaration (in a test,
    by ``monkeypatch``) reaches every user of it.
    """
    return tuple(f for f in NODE_FIELDS if not kinds or f.kind in kinds)


def _fields_doc(indent=4) -> str:
    """The numpydoc entries of the declared arrays, for the TreeArrays docstring."""
    pad = " " * indent
    return "\n".join(
        f"{pad}{f.name} : ndarray of shape {f.shape_doc()}, {np.dtype(f.dtype).name}\n"
        + textwrap.fill(f.doc, 88, initial_indent=pad * 2, subsequent_indent=pad * 2)
        for f in NODE_FIELDS)


# TreeArrays.apply: rows per chunk; from _APPLY_TAKE rows on, a step gathers
# with ndarray.take rather than [] (NumPy 2.2: [] is the faster below about 600
# indices, take above, by up to 30%).
_APPLY_CHUNK = 1 << 13
_APPLY_TAKE = 512
# apply's cost model, in units of the time a step spends per row (NumPy 2.2,
# measured from 1 to 8192 rows): a step over m rows costs _STEP_FIXED + m, a
# removal of the finished rows among m costs _REMOVAL_FIXED + m.
_STEP_FIXED = 350
_REMOVAL_FIXED = 230


def _removal_steps(descending, rows):
    """The steps after which :meth:`TreeArrays.apply` removes the finished rows.

    The schedule of least expected cost under the model above (dynamic
    programming over the step of the next removal): a removal pays when enough
    rows have finished and enough steps remain, so that a tree whose leaves are
    all deep removes late, and a small chunk rarely.

    Parameters
    ----------
    descending : ndarray of shape (max_depth + 1,)
        Expected share of the rows still at an inner node after ``s`` steps
        (``descending[0] == 1``; the training samples' share, from
        ``n_node_samples`` at the leaves).
    rows : int
        Number of rows of the chunk.

    Returns
    -------
    frozenset of int
        Steps in ``1 .. max_depth - 1``.

    Examples
    --------
    >>> sorted(_removal_steps(np.array([1, 1, 0.9, 0.2, 0.1, 0.05, 0]), 8192))
    [3]
    >>> sorted(_removal_steps(np.array([1, 1, 0.9, 0.2, 0.1, 0.05, 0]), 10))
    []
    """
    depth = descending.size - 1
    # a step, and a removal, over the rows held after a removal at step s
    step_cost = _STEP_FIXED + rows * descending
    removal_cost = _REMOVAL_FIXED + rows * descending
    cost = np.zeros(depth + 1)      # cost[s]: least cost of the steps after a removal at s
    next_removal = np.zeros(depth + 1, dtype=np.intp)   # its next removal (0: none)
    for s in range(depth - 1, -1, -1):
        k = np.arange(s + 1, depth)                 # the next removal: after step k ...
        costs = (k - s) * step_cost[s] + removal_cost[s] + cost[k]
        cost[s] = (depth - s) * step_cost[s]        # ... or none
        if k.size and costs.min() < cost[s]:
            cost[s], next_removal[s] = costs.min(), k[costs.argmin()]
    steps, s = [], next_removal[0]
    while s:
        steps.append(int(s))
        s = next_removal[s]
    return frozenset(steps)


def _float32_at_most(threshold):
    """The largest float32 that is <= each float64 ``threshold`` (inf and NaN kept)."""
    with np.errstate(over="ignore"):        # beyond float32's range: +-inf, stepped below
        t32 = threshold.astype(np.float32)
    above = t32.astype(np.float64) > threshold        # rounded up: step one float32 down
    t32[above] = np.nextafter(t32[above], np.float32(-np.inf))
    return t32


class TreeArrays:
    """Read-only arrays of a fitted binary tree, named as in scikit-learn's ``Tree``.

    Code written against ``estimator.tree_`` of a scikit-learn tree reads the
    same attributes here.  Node ``i`` tests ``X[:, feature[i]] <= threshold[i]``
    and sends the sample to ``children_left[i]`` if true, else to
    ``children_right[i]``; a sample whose value is missing (NaN) goes left if
    ``missing_go_to_left[i]``.  Leaves have ``children_left == children_right
    == -1``, ``feature == -2`` and ``threshold == -2.0``.  The arrays are those
    declared in :data:`NODE_FIELDS`.

    Parameters
    ----------
    n_features : int
        Number of features.
    n_classes : int or array_like of shape (n_outputs,)
        Number of classes of each output (1 for a regression tree).
    copy : bool, default=True
        Keep private copies of the arrays.  ``False`` keeps each given array
        that is an ndarray of the declared dtype owning its memory (a view or
        anything else is still copied) and makes it read-only: for a caller
        that hands over arrays nobody else holds (``fit``, pruning), so that
        the tree is not held twice.
    **arrays : array_like
        One per field of :data:`NODE_FIELDS`, by name (the attributes below of
        the shapes given there), converted to the field's dtype.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    max_depth : int
        Depth of the deepest leaf (a single leaf has depth 0).
    n_leaves : int
        Number of leaves.
    n_features : int
        Number of features seen in ``fit``.
    n_outputs : int
        Number of outputs (``value.shape[1]``; 1 for every tree ``fit`` grows).
    n_classes : ndarray of shape (n_outputs,)
        Number of classes of each output (1 for a regression tree).
    max_n_classes : int
        ``value.shape[2]``: the largest number of classes of an output.
{fields}

    Raises
    ------
    TypeError
        If an array of :data:`NODE_FIELDS` is missing or an unknown one is given.
    ValueError
        If the arrays disagree on the number of nodes or on the length of an
        axis, or ``n_classes`` does not give one number per output.
    """

    def __init__(self, *, n_features, n_classes, copy=True, **arrays):
        fields = node_fields()
        missing = [f.name for f in fields if f.name not in arrays]
        unknown = sorted(set(arrays) - {f.name for f in fields})
        if missing or unknown:
            raise TypeError(f"TreeArrays needs one array per field of NODE_FIELDS: "
                            f"missing {missing}, unknown {unknown}")
        lengths = {}        # node_count and the named axes, as the arrays give them
        for f in fields:
            array = arrays[f.name]
            # a private copy (or, with copy=False, an array handed over by its
            # only holder: fit does not hold the tree twice; a view is copied,
            # since its base would stay writable) ...
            if (copy or type(array) is not np.ndarray or array.base is not None
                    or array.dtype != f.dtype):
                array = np.array(array, dtype=f.dtype)
            if array.ndim != 1 + len(f.axes):
                raise ValueError(f"{f.name} must have shape {f.shape_doc()}, "
                                 f"got {array.shape}")
            for axis, length in zip(("node_count",) + f.axes, array.shape):
                if lengths.setdefault(axis, length) != length:
                    raise ValueError(f"{f.name} has {length} entries along {axis}, "
                                     f"other arrays {lengths[axis]}")
            array.flags.writeable = False  # ... that nobody can change
            object.__setattr__(self, f.name, array)
        n_outputs = lengths.get("n_outputs", 1)
        n_classes = np.array(n_classes, dtype=np.intp).reshape(-1)
        if n_classes.size != n_outputs:
            raise ValueError(f"n_classes must give the number of classes of each of the "
                             f"{n_outputs} outputs, got {n_classes.tolist()}")
        object.__setattr__(self, "node_count", int(self.children_left.size))
        object.__setattr__(self, "n_features", int(n_features))
        object.__setattr__(self, "n_outputs", int(n_outputs))
        object.__setattr__(self, "n_classes", n_classes)
        object.__setattr__(self, "max_n_classes", int(lengths.get("max_n_classes", 1)))
        object.__setattr__(self, "n_leaves", int(np.sum(self.children_left == -1)))
        depth = self._depths()
        object.__setattr__(self, "max_depth", int(depth.max()))
        # apply's tables, indexed by 2 t (node t): child2[2 t + go_left] is
        # twice the child that a row at t goes to (t itself at a leaf).
        is_leaf = self.children_left < 0
        child2 = np.empty(2 * self.node_count, dtype=np.intp)   # filled in place
        child2[0::2], child2[1::2] = self.children_right, self.children_left
        child2.reshape(-1, 2)[is_leaf] = np.flatnonzero(is_leaf)[:, None]   # a leaf: itself
        child2 *= 2
        feature2 = np.repeat(self.feature, 2)
        np.maximum(feature2, 0, out=feature2)   # any column at a leaf (feature -2)
        routing = dict(
            child2=child2,
            feature2=feature2,
            threshold2=np.repeat(self.threshold, 2),
            # For float32 rows: the largest float32 <= each threshold, so that
            # x <= t32 exactly when x <= t for every float32 x (no cast per step).
            threshold2_32=np.repeat(_float32_at_most(self.threshold), 2),
            is_inner2=np.repeat(~is_leaf, 2),
            missing_go_to_left2=np.repeat(self.missing_go_to_left, 2))
        for array in routing.values():
            array.flags.writeable = False
        object.__setattr__(self, "_routing", routing)
        # the largest feature index the tree tests (-1 for a single leaf): apply's width check
        inner = ~is_leaf
        object.__setattr__(self, "_largest_feature",
                           int(self.feature[inner].max()) if inner.any() else -1)
        # apply's removals of finished rows: the share of the training samples
        # (of the leaves, if none is counted) still at an inner node after s steps
        finished = np.bincount(depth[is_leaf], minlength=self.max_depth + 1,
                               weights=self.n_node_samples[is_leaf])
        if finished.sum() <= 0:
            finished = np.bincount(depth[is_leaf], minlength=self.max_depth + 1)
        descending = np.clip(1 - np.cumsum(finished) / finished.sum(), 0, 1)
        object.__setattr__(self, "_descending", descending)
        object.__setattr__(self, "_removal_plans", {})  # by chunk size, filled by apply

    def __setattr__(self, name, value):
        raise AttributeError(f"TreeArrays is read-only: cannot set {name!r}")

    def __reduce__(self):
        # Pickle and copy the arrays, and rebuild through __init__: the copy is
        # read-only again and its routing tables are recomputed from the arrays.
        arrays = {f.name: getattr(self, f.name) for f in node_fields()}
        n_classes = int(self.n_classes[0]) if self.n_outputs == 1 else self.n_classes.tolist()
        return _tree_arrays_from, (arrays, self.n_features, n_classes)

    def __repr__(self) -> str:
        return (f"TreeArrays(node_count={self.node_count}, n_leaves={self.n_leaves}, "
                f"max_depth={self.max_depth})")

    def _depths(self) -> np.ndarray:
        """Depth of every node (the root has depth 0)."""
        depth = np.zeros(self.children_left.size, dtype=np.intp)
        level, d = np.array([0]), 0
        while level.size:  # one NumPy step per depth: the children of this level's nodes
            inner = level[self.children_left[level] >= 0]
            level = np.concatenate([self.children_left[inner], self.children_right[inner]])
            d += 1
            depth[level] = d
        return depth

    def _walk(self, X):
        """Route every row from the root; yield (rows, nodes) after each level of descent."""
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        yield rows, node[rows]
        while rows.size:
            current = node[rows]
            inner = self.children_left[current] >= 0
            rows, current = rows[inner], current[inner]
            if rows.size == 0:
                break
            # Compare in float64 (X holds float32 values, thresholds are float64).
            values = X[rows, self.feature[current]].astype(np.float64)
            go_left = values <= self.threshold[current]
            missing = np.isnan(values)
            go_left[missing] = self.missing_go_to_left[current[missing]]
            node[rows] = np.where(go_left, self.children_left[current],
                                  self.children_right[current])
            yield rows, node[rows]

    def apply(self, X) -> np.ndarray:
        """Leaf id reached by each row of ``X`` (float, shape (n_samples, n_features)).

        Where Numba is installed and enabled, row by row in compiled code
        (``dtree.kernels.apply_dense``, as scikit-learn descends).
        Otherwise rows descend together, one tree level per NumPy step, in chunks of
        ``_APPLY_CHUNK`` rows (their arrays stay in cache).  A leaf leads to
        itself, so a row that reached one may take a few more (idle) steps:
        finished rows leave the chunk after the steps that
        ``_removal_steps`` plans from the depths of the training samples'
        leaves (where a removal is expected to save more than it costs).  Row ``i``
        at node ``t`` reads ``X[i, feature[t]]`` from the flat buffer of ``X``:
        ``flat[i * d + feature[t]]`` in C order, ``flat[i + n * feature[t]]``
        in Fortran order (pandas 3's DataFrames), so that neither is copied.
        """
        from dtree.sparse import sparse_apply

        if is_sparse(X):            # never densified: dtree.sparse
            return sparse_apply(self, check_sparse_X(X, fmt="csr"))
        return self._apply_dense(X)

    def _max_feature(self) -> int:
        """The largest feature index the tree tests (-1 for a single leaf)."""
        return self._largest_feature

    def _apply_dense(self, X, column_of=None, any_missing=None):
        """:meth:`apply` on a dense ``X``; with ``column_of`` (n_features,), feature
        ``f`` is column ``column_of[f]`` of ``X`` (an ``X`` of the tree's features only).
        ``any_missing``: whether ``X`` holds a NaN, if the caller knows (else one
        pass over ``X`` finds out); False skips the NaN routing."""
        X = np.asarray(X)
        if X.dtype.kind != "f":     # integers, objects: compared as float64 (and NaN found)
            X, any_missing = X.astype(np.float64), None
        if column_of is None:
            check_width(X, self._max_feature())
        if (column_of is None and X.dtype in (np.float32, np.float64) and kernels.available()
                and (X.shape[0] > _SMALL_APPLY or kernels.COMPILE_IN_FOREGROUND
                     or kernels.ready(kernels.apply_dense))):
            # compiled, row by row (kernels.apply_dense): the same leaves
            leaf = np.zeros(X.shape[0], dtype=np.intp)
            if X.shape[0] and self.node_count > 1:
                if not (X.flags.c_contiguous or X.flags.f_contiguous):
                    X = np.ascontiguousarray(X)
                kernels.apply_dense(X, self.children_left, self.children_right, self.feature,
                                    self.threshold, self.missing_go_to_left, leaf)
            return leaf
        n, d = X.shape
        if X.flags.f_contiguous and not X.flags.c_contiguous:
            flat, row_step, feature_step = X.ravel(order="F"), 1, n   # views, no copy
        else:
            X = np.ascontiguousarray(X)
            flat, row_step, feature_step = X.ravel(), d, 1
        if self.max_depth == 0 or n == 0:      # a single leaf, or no rows
            return np.zeros(n, dtype=np.intp)
        if any_missing is None:     # a float min is NaN if any entry is: one pass, no (n, d) mask
            any_missing = bool(np.isnan(X.min()))
        r = self._routing
        child2, is_inner2 = r["child2"], r["is_inner2"]
        feature2 = r["feature2"] if column_of is None else column_of[r["feature2"]]
        if feature_step != 1:
            feature2 = feature2 * feature_step       # where a node's feature starts in flat
        threshold2 = r["threshold2_32"] if X.dtype == np.float32 else r["threshold2"]
        leaf2 = np.empty(n, dtype=np.intp)           # twice the leaf of each row
        for lo in range(0, n, _APPLY_CHUNK):
            hi = min(lo + _APPLY_CHUNK, n)
            rows = np.arange(lo, hi)
            offset = np.arange(lo * row_step, hi * row_step, row_step)   # where each row starts in flat
            node2 = np.zeros(rows.size, dtype=np.intp)   # twice the node of each row
            removals = self._removals(rows.size)
            # the same gathers by ndarray.take (the faster on long index arrays) or by []
            take = rows.size >= _APPLY_TAKE
            for step in range(1, self.max_depth + 1):
                # x[feature[t]] <= threshold[t], then the child
                if take:
                    values = flat.take(offset + feature2.take(node2))
                    go_left = values <= threshold2.take(node2)
                else:
                    values = flat[offset + feature2[node2]]
                    go_left = values <= threshold2[node2]
                if any_missing:
                    missing = np.isnan(values)
                    go_left[missing] = r["missing_go_to_left2"][node2[missing]]
                node2 = child2.take(node2 + go_left) if take else child2[node2 + go_left]
                if step in removals:
                    leaf2[rows] = node2              # final for the rows at a leaf
                    keep = is_inner2.take(node2).nonzero()[0]    # the rows still descending
                    if not keep.size:
                        break
                    rows, offset, node2 = rows.take(keep), offset.take(keep), node2.take(keep)
                    take = rows.size >= _APPLY_TAKE
            else:                   # after max_depth steps every row is at a leaf
                leaf2[rows] = node2
        return leaf2 >> 1

    def _removals(self, rows):
        """:func:`_removal_steps` for a chunk of ``rows`` rows (computed once per
        power of two: the plan of its smallest size)."""
        size = 1 << (int(rows).bit_length() - 1)
        plan = self._removal_plans.get(size)
        if plan is None:
            plan = self._removal_plans[size] = _removal_steps(self._descending, size)
        return plan

    def decision_path(self, X):
        """Sparse indicator (CSR) of shape (n_samples, node_count) of the nodes each row visits."""

        if is_sparse(X):            # never densified: dtree.sparse
            X = check_sparse_X(X, fmt="csr")
        return self._decision_path(X)

    def _decision_path(self, X):
        """:meth:`decision_path` of an ``X`` already checked: a sparse one is the
        private CSR copy of :func:`dtree._validation.check_sparse_X` (not copied again)."""
        from scipy.sparse import csr_matrix

        from dtree.sparse import sparse_apply

        if is_sparse(X):
            steps = sparse_apply(self, X, path=True)
        else:
            X = np.asarray(X)
            steps = list(self._walk(X))
        r = np.concatenate([rows for rows, _ in steps])
        c = np.concatenate([nodes for _, nodes in steps])
        order = np.lexsort((c, r))
        return csr_matrix((np.ones(r.size, dtype=np.intp), (r[order], c[order])),
                          shape=(X.shape[0], self.node_count))

    def subtree(self, nodes, cut) -> TreeArrays:
        """The tree of the given nodes, in their given order, some of them cut to leaves.

        Every array of :data:`NODE_FIELDS` is taken at ``nodes``; child ids
        are renumbered to positions in ``nodes``, and at the nodes cut to
        leaves the ``"child"`` and ``"split"`` arrays are reset to their leaf
        values (:func:`dtree.pruning.prune_to_alpha`).

        Parameters
        ----------
        nodes : ndarray of shape (n_kept,), int
            Ids of the kept nodes, in their new order (the root first); the
            children of a kept node that is not cut must be kept.
        cut : ndarray of shape (n_kept,), bool
            Which kept nodes become leaves (their descendants are not kept).

        Returns
        -------
        TreeArrays
            With ``node_count == n_kept``; the arrays are new.
        """
        nodes = np.asarray(nodes, dtype=np.intp)
        cut = np.asarray(cut, dtype=bool)
        new_id = np.full(self.node_count, TREE_LEAF, dtype=np.intp)
        new_id[nodes] = np.arange(nodes.size)
        arrays = {}
        for f in node_fields():
            kept = getattr(self, f.name)[nodes]
            if f.kind == "child":
                # renumbered; a leaf's -1 stays -1 (new_id[-1] would be the last node)
                kept = np.where(kept >= 0, new_id[np.maximum(kept, 0)], TREE_LEAF)
                if np.any((kept < 0) & (getattr(self, f.name)[nodes] >= 0) & ~cut):
                    raise ValueError("nodes: a node that is not cut must keep its children")
            if f.kind != "node":
                kept = np.where(cut, np.array(f.leaf, dtype=f.dtype), kept)
            arrays[f.name] = kept
        n_classes = int(self.n_classes[0]) if self.n_outputs == 1 else self.n_classes
        return type(self)(**arrays, n_features=self.n_features, n_classes=n_classes,
                          copy=False)     # every array above is new

    def to_nodes(self, *, classification: bool) -> Node:
        """The same tree as linked :class:`Node` objects (pre-order ids of this tree).

        Parameters
        ----------
        classification : bool
            Whether ``value`` holds class fractions (a :class:`Node` holds
            weighted class counts: the fractions times
            ``weighted_n_node_samples``) or predictions (kept as they are).

        Returns
        -------
        Node
            The root.  Each array of :data:`NODE_FIELDS` is a :class:`Node`
            attribute (``n_node_samples`` as ``n_samples``; ``feature`` and
            ``threshold`` None at leaves; ``value`` of shape (n_classes,) for
            one output) or an entry of its ``extra`` dict.
        """
        own = {"children_left", "children_right", "feature", "threshold", "impurity",
               "n_node_samples", "value"}
        extra = [f for f in node_fields() if f.name not in own]
        columns = {f.name: getattr(self, f.name) if f.axes else getattr(self, f.name).tolist()
                   for f in extra}
        nodes = []
        depth = self._depths()
        for i in range(self.node_count):
            value = self.value[i, 0] if self.n_outputs == 1 else self.value[i]
            if classification:
                value = value * self.weighted_n_node_samples[i]  # fractions -> weighted counts
            inner = self.children_left[i] >= 0
            nodes.append(Node(node_id=i, depth=int(depth[i]), n_samples=int(self.n_node_samples[i]),
                              value=np.array(value), impurity=float(self.impurity[i]),
                              feature=int(self.feature[i]) if inner else None,
                              threshold=float(self.threshold[i]) if inner else None,
                              extra={name: np.array(column[i]) if isinstance(column, np.ndarray)
                                     else column[i] for name, column in columns.items()}))
        for i in np.flatnonzero(self.children_left >= 0):
            nodes[i].children = [nodes[self.children_left[i]], nodes[self.children_right[i]]]
        return nodes[0]

    def compute_feature_importances(self, normalize=True) -> np.ndarray:
        """Total weighted impurity decrease per feature (scikit-learn's MDI importance).

        For every split node :math:`t` on feature :math:`j`, adds
        :math:`W_t i(t) - W_L i(L) - W_R i(R)` to feature :math:`j`, divides by
        the root weight and, if ``normalize``, by the sum over features (all
        zeros stay zeros). This is scikit-learn's mean decrease in impurity,
        not the surrogate-split importance of Breiman et al. (1984, section
        5.3.4).
        """
        inner = np.flatnonzero(self.children_left >= 0)
        w, imp = self.weighted_n_node_samples, self.impurity
        left, right = self.children_left[inner], self.children_right[inner]
        decrease = w[inner] * imp[inner] - w[left] * imp[left] - w[right] * imp[right]
        importances = np.bincount(self.feature[inner], weights=decrease,
                                  minlength=self.n_features) / w[0]
        if normalize:
            total = importances.sum()
            if total > 0:
                importances = importances / total
        return importances


if TreeArrays.__doc__:  # None under python -OO
    TreeArrays.__doc__ = TreeArrays.__doc__.replace("{fields}", _fields_doc())


def _tree_arrays_from(arrays, n_features, n_classes):
    """Unpickle a TreeArrays (its arrays are new and owned: kept, made read-only).

    ``arrays`` holds one array per field of :data:`NODE_FIELDS` by name, and
    ``n_classes`` is an int (one output) or a list (one per output); pickles
    of earlier versions (an int, the same nine arrays) load unchanged.
    """
    return TreeArrays(**arrays, n_features=n_features, n_classes=n_classes, copy=False)
