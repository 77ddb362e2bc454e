"""Test oracle: run Quinlan's original C4.5 Release 8 (the binary named by $C45_PROGRAM) on a
pandas DataFrame and parse the trees it prints.

API
---
run_c45(X, y, *, m=2, c=25, g=False, prune=True, classes=None,
        keep_dir=False, c45=C45_BINARY) -> dict

    X : pandas DataFrame.  Numeric (non-bool) columns -> continuous attributes;
        object / category / bool / string columns -> discrete attributes whose
        values are the sorted distinct non-missing values.  NaN / None -> '?'.
    y : labels (sequence/Series, no missing values).  Class order given to
        C4.5 = sorted distinct labels, unless `classes=` (a list) is passed.
    m : -m option (MINOBJS), c : -c option (CF in percent), g : -g (gain
        instead of gain ratio).  `prune=False` only changes what is returned
        under "pruned" (None); C4.5 always prunes.

Returns {
    "unpruned": tree,        # parsed from the printed "Decision Tree:"
    "pruned":   tree,        # parsed from "Simplified Decision Tree:"; C4.5
                             # prints that only when pruning changed the tree,
                             # otherwise built from the saved .tree file (same
                             # structure as unpruned; errors = pruning estimates)
    "pruned_printed": bool,  # whether "Simplified Decision Tree:" was printed
    "exact": {"unpruned": xtree, "pruned": xtree},   # from binary .unpruned/.tree
    "stdout": str,           # full C4.5 output
    "names": str, "data": str,   # the files that were fed to C4.5
}

tree (text form, printed order, numbers as printed with %.1f):
    leaf = {"class": label, "n": float, "errors": float}
    test = {"attribute": column name, "kind": "discrete" | "threshold",
            "branches": [(value, subtree), ...]}       # discrete: original value
                        [("<=t", subtree), (">t", subtree)]  # t = "%g" string
    Branches are in C4.5's *printed* order: leaf branches first, then branches
    with subtrees (each group in value order).

xtree (exact, internal branch order = value order 1..k, floats are the exact
float32 values stored by C4.5, converted to Python float):
    leaf = {"class", "n", "errors", "dist": {label: weight}}
    test = {"attribute", "kind", "n", "errors", "dist", "class",
            "cut": float (threshold only), "branches": [(label, xtree), ...]}
    An internal node's "errors" is C4.5's Errors field (sum of leaf errors for
    the unpruned tree, pessimistic estimate for the pruned tree).

tree_to_text(tree) -> str : C4.5-like rendering for eyeballing.

Notes on the encoding (see README.md):
  * names/values/classes are written as safe tokens [A-Za-z0-9_-] (other
    characters -> '_', de-duplicated with a numeric suffix) and mapped back.
  * a discrete attribute with < 2 distinct known values is declared `ignore`
    (C4.5 refuses a one-valued discrete attribute); it could never be split.
  * continuous values are written with repr(float); C4.5 reads them with
    strtod into a C float (float32).  The value -999 means "unknown" inside
    C4.5 (types.i: #define Unknown -999), so a real -999 is flagged with an error.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import struct
import subprocess
import tempfile

import numpy as np
import pandas as pd

# The compiled program (see README.md): $C45_PROGRAM, or ./c4.5 beside this file.
C45_BINARY = os.environ.get(
    "C45_PROGRAM", os.path.join(os.path.dirname(os.path.abspath(__file__)), "c4.5"))

_TOKEN_BAD = re.compile(r"[^A-Za-z0-9_\-]")


class _Namer:
    """Map arbitrary objects to unique C4.5-safe tokens and back."""

    def __init__(self):
        self.fwd = {}
        self.back = {}

    def token(self, obj):
        key = (type(obj).__name__, repr(obj)) if not isinstance(obj, str) else ("str", obj)
        if key in self.fwd:
            return self.fwd[key]
        base = _TOKEN_BAD.sub("_", str(obj)) or "_"
        tok, k = base, 1
        while tok in self.back:
            k += 1
            tok = f"{base}_{k}"
        self.fwd[key] = tok
        self.back[tok] = obj
        return tok


def _is_missing(v):
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    try:
        return bool(isinstance(v, float) and math.isnan(v)) or (
            isinstance(v, (np.floating,)) and np.isnan(v))
    except TypeError:
        return False


def _sorted_values(vals):
    vals = list(vals)
    try:
        return sorted(vals)
    except TypeError:
        return sorted(vals, key=lambda v: (type(v).__name__, str(v)))


def _is_continuous(s: pd.Series) -> bool:
    return (pd.api.types.is_numeric_dtype(s.dtype)
            and not pd.api.types.is_bool_dtype(s.dtype)
            and not isinstance(s.dtype, pd.CategoricalDtype))


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def _write_files(X: pd.DataFrame, y, classes):
    y = [_py(v) for v in y]
    if len(y) != len(X):
        raise ValueError("X and y lengths differ")
    if any(_is_missing(v) for v in y):
        raise ValueError("missing class labels are not allowed")
    if classes is None:
        classes = _sorted_values(set(y))
    else:
        classes = [_py(v) for v in classes]
        if set(y) - set(classes):
            raise ValueError("labels not in `classes`: %r" % (set(y) - set(classes)))
    cls_namer = _Namer()
    cls_tok = [cls_namer.token(c) for c in classes]

    att_namer = _Namer()
    atts = []          # dicts: name, token, kind, values, val_namer
    names_lines = [", ".join(cls_tok) + "."]
    names_lines.append("")
    for col in X.columns:
        s = X[col]
        tok = att_namer.token(col)
        if _is_continuous(s):
            arr = s.to_numpy(dtype=float)
            if np.isinf(arr).any():
                raise ValueError(f"column {col!r} has infinite values")
            if (arr == -999).any():
                raise ValueError(f"column {col!r} has the value -999, which C4.5 reads as unknown")
            atts.append(dict(name=col, token=tok, kind="continuous"))
            names_lines.append(f"{tok}: continuous.")
        else:
            vals = _sorted_values({_py(v) for v in s.tolist() if not _is_missing(v)})
            vn = _Namer()
            vtoks = [vn.token(v) for v in vals]
            if len(vals) < 2:
                atts.append(dict(name=col, token=tok, kind="ignore", values=vals, namer=vn))
                names_lines.append(f"{tok}: ignore.")
            else:
                atts.append(dict(name=col, token=tok, kind="discrete", values=vals, namer=vn))
                names_lines.append(f"{tok}: " + ", ".join(vtoks) + ".")
    names = "\n".join(names_lines) + "\n"

    cols = []
    for a in atts:
        s = X[a["name"]]
        if a["kind"] == "continuous":
            arr = s.to_numpy(dtype=float)
            cols.append(["?" if np.isnan(v) else repr(float(v)) for v in arr])
        elif a["kind"] == "ignore":
            cols.append(["?"] * len(s))
        else:
            cols.append(["?" if _is_missing(v) else a["namer"].token(_py(v)) for v in s.tolist()])
    ytok = [cls_namer.token(v) for v in y]
    rows = [", ".join([c[i] for c in cols] + [ytok[i]]) for i in range(len(y))]
    data = "\n".join(rows) + "\n"
    return names, data, atts, classes, cls_namer


# ----------------------------------------------------------------------------
#  Parsing the printed trees
# ----------------------------------------------------------------------------

_LEAF_RE = re.compile(r"^ (?P<cls>\S+) \((?P<n>[-0-9.e+]+)(?:/(?P<e>[-0-9.e+]+))?\)$")
_DISC_RE = re.compile(r"^(?P<ind>(?:\|   )*)(?P<att>\S+) = (?P<val>\S+):(?P<rest>.*)$")
_THR_RE = re.compile(r"^(?P<ind>(?:\|   )*)(?P<att>\S+) (?P<op><=|>) (?P<thr>\S+) (?:\[\S+\])?:(?P<rest>.*)$")
_SUBREF_RE = re.compile(r"^\[S(\d+)\]$")


class _Ctx:
    def __init__(self, atts, cls_namer):
        self.att_by_tok = {a["token"]: a for a in atts}
        self.cls_namer = cls_namer


def _leaf_from(rest, ctx):
    m = _LEAF_RE.match(rest)
    if not m:
        raise ValueError(f"cannot parse leaf {rest!r}")
    return {"class": ctx.cls_namer.back[m["cls"]], "n": float(m["n"]),
            "errors": float(m["e"]) if m["e"] else 0.0}


def _parse_lines(lines, ctx, subtrees_raw):
    """lines: list of (depth, match, kind).  Returns tree."""
    pos = 0

    def node(depth):
        nonlocal pos
        first = lines[pos]
        att_tok = first[1]["att"]
        a = ctx.att_by_tok[att_tok]
        kind = "threshold" if first[2] == "thr" else "discrete"
        branches = []
        while pos < len(lines) and lines[pos][0] == depth:
            d, m, k = lines[pos]
            if m["att"] != att_tok:
                raise ValueError("inconsistent attribute at one depth")
            label = (m["op"] + m["thr"]) if k == "thr" else a["namer"].back[m["val"]]
            rest = m["rest"]
            pos += 1
            if rest == "":
                if pos >= len(lines) or lines[pos][0] != depth + 1:
                    raise ValueError("expected subtree lines")
                sub = node(depth + 1)
            elif _SUBREF_RE.match(rest):
                sub = ("SUBREF", int(_SUBREF_RE.match(rest).group(1)))
            else:
                sub = _leaf_from(rest, ctx)
            branches.append((label, sub))
        return {"attribute": a["name"], "kind": kind, "branches": branches}

    t = node(0)
    if pos != len(lines):
        raise ValueError("trailing lines in tree")
    return t


def _block_to_tree(block, ctx):
    """block: text after 'Decision Tree:\\n' up to the end of this tree."""
    if "[S??]" in block:
        raise ValueError("more than 99 subtrees: printed tree is incomplete")
    parts = re.split(r"\n\nSubtree \[S(\d+)\]\n", block)
    main, subs = parts[0], {}
    for i in range(1, len(parts), 2):
        subs[int(parts[i])] = parts[i + 1]

    def parse_text(txt):
        ls = [ln for ln in txt.split("\n") if ln.strip() != ""]
        if len(ls) == 1 and _LEAF_RE.match(ls[0]):
            return _leaf_from(ls[0], ctx)
        parsed = []
        for ln in ls:
            m = _THR_RE.match(ln)
            if m:
                parsed.append((len(m["ind"]) // 4, m, "thr"))
                continue
            m = _DISC_RE.match(ln)
            if m:
                parsed.append((len(m["ind"]) // 4, m, "disc"))
                continue
            raise ValueError(f"cannot parse tree line {ln!r}")
        return _parse_lines(parsed, ctx, subs)

    sub_trees = {k: parse_text(v) for k, v in subs.items()}

    def resolve(t):
        if isinstance(t, tuple) and t and t[0] == "SUBREF":
            return resolve(sub_trees[t[1]])
        if "branches" in t:
            t["branches"] = [(lab, resolve(s)) for lab, s in t["branches"]]
        return t

    return resolve(parse_text(main))


def _extract_blocks(out):
    """Return (unpruned_block, pruned_block_or_None)."""
    i = out.index("\nRead ")
    j = out.index("Decision Tree:\n", i)
    start = j + len("Decision Tree:\n")
    k_simpl = out.find("\nSimplified Decision Tree:\n", start)
    k_saved = out.find("\nTree saved", start)
    end_unpr = k_simpl if k_simpl >= 0 else k_saved
    unpr = out[start:end_unpr]
    pr = None
    if k_simpl >= 0:
        s2 = k_simpl + len("\nSimplified Decision Tree:\n")
        pr = out[s2:out.find("\nTree saved", s2)]
    return unpr.rstrip("\n"), (pr.rstrip("\n") if pr is not None else None)


# ----------------------------------------------------------------------------
#  Exact trees from the binary files written by SaveTree (trees.c: OutTree)
# ----------------------------------------------------------------------------

def _fmt_g(x):
    """printf("%g") of a C float (promoted to double)."""
    return "%g" % x


def _read_binary_tree(path, atts, classes):
    buf = open(path, "rb").read()
    if not buf or buf[0:1] != b"\n":
        raise ValueError("unexpected tree file format")
    pos = 1
    nclass = len(classes)
    f32 = np.float32

    def rd(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, buf, pos)
        pos += struct.calcsize("<" + fmt)
        return v

    def node():
        ntype, leaf = rd("hh")
        items, errors = rd("ff")
        dist = rd("%df" % nclass)
        d = {"class": classes[leaf], "n": float(f32(items)), "errors": float(f32(errors)),
             "dist": {classes[c]: float(f32(dist[c])) for c in range(nclass)}}
        if ntype == 0:
            return d
        tested, forks = rd("hh")
        a = atts[tested]
        if ntype == 2:
            cut, lower, upper = rd("fff")
            d.update(attribute=a["name"], kind="threshold", cut=float(f32(cut)))
            labels = ["<=" + _fmt_g(f32(cut)), ">" + _fmt_g(f32(cut))]
        elif ntype == 1:
            d.update(attribute=a["name"], kind="discrete")
            labels = list(a["values"])
        else:
            raise ValueError("subset tests (-s) are not supported")
        kids = [node() for _ in range(forks)]
        d["branches"] = list(zip(labels, kids))
        return d

    return node()


def exact_to_printed(xt):
    """Convert an exact tree to the text form (printed order, %.1f numbers)."""
    if "branches" not in xt:
        return {"class": xt["class"], "n": float("%.1f" % xt["n"]),
                "errors": float("%.1f" % xt["errors"]) if xt["errors"] > 0 else 0.0}
    br = [(lab, exact_to_printed(s)) for lab, s in xt["branches"]]
    leaves = [b for b in br if "branches" not in b[1]]
    subs = [b for b in br if "branches" in b[1]]
    return {"attribute": xt["attribute"], "kind": xt["kind"], "branches": leaves + subs}


# ----------------------------------------------------------------------------

def run_c45(X, y, *, m=2, c=25, g=False, prune=True, classes=None,
            keep_dir=False, c45=C45_BINARY):
    if not isinstance(X, pd.DataFrame):
        X = pd.DataFrame(X)
    names, data, atts, classes, cls_namer = _write_files(X, y, classes)
    tmp = tempfile.mkdtemp(prefix="c45_")
    try:
        stem = "d"
        with open(os.path.join(tmp, stem + ".names"), "w") as fh:
            fh.write(names)
        with open(os.path.join(tmp, stem + ".data"), "w") as fh:
            fh.write(data)
        cmd = [c45, "-f", stem, "-v", "0", "-m", str(int(m)), "-c", str(c)]
        if g:
            cmd.append("-g")
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600)
        out = proc.stdout
        if proc.returncode != 0 or "\nERROR:" in out:
            raise RuntimeError(f"c4.5 failed (rc={proc.returncode}):\n{out}\n{proc.stderr}")
        ctx = _Ctx(atts, cls_namer)
        ub, pb = _extract_blocks(out)
        cls_list = list(classes)
        x_unpr = _read_binary_tree(os.path.join(tmp, stem + ".unpruned"), atts, cls_list)
        x_pr = _read_binary_tree(os.path.join(tmp, stem + ".tree"), atts, cls_list)
        unpr = _block_to_tree(ub, ctx)
        if pb is not None:
            pr = _block_to_tree(pb, ctx)
        else:
            pr = exact_to_printed(x_pr)
        # cross-checks between printed text and binary trees
        if exact_to_printed(x_unpr) != unpr:
            raise AssertionError("printed unpruned tree differs from .unpruned file")
        if exact_to_printed(x_pr) != pr:
            raise AssertionError("printed pruned tree differs from .tree file")
        res = {"unpruned": unpr, "pruned": pr if prune else None,
               "pruned_printed": pb is not None,
               "exact": {"unpruned": x_unpr, "pruned": x_pr if prune else None},
               "stdout": out, "names": names, "data": data}
        if keep_dir:
            res["dir"] = tmp
        return res
    finally:
        if not keep_dir:
            shutil.rmtree(tmp, ignore_errors=True)


def tree_to_text(tree, indent=0):
    """Render a (text-form or exact) tree C4.5-style."""
    def leaf_str(t):
        s = f" {t['class']} ({t['n']:.1f}"
        if t["errors"] > 0:
            s += f"/{t['errors']:.1f}"
        return s + ")"

    if tree is None:
        return "(none)"
    if "branches" not in tree:
        return leaf_str(tree).lstrip()
    lines = []

    def rec(t, d):
        for lab, sub in t["branches"]:
            if t["kind"] == "threshold":
                op = "<=" if lab.startswith("<=") else ">"
                head = f"{t['attribute']} {op} {lab[len(op):]} :"
            else:
                head = f"{t['attribute']} = {lab}:"
            pre = "|   " * d
            if "branches" in sub:
                lines.append(pre + head)
                rec(sub, d + 1)
            else:
                lines.append(pre + head + leaf_str(sub))

    rec(tree, indent)
    return "\n".join(lines)


def predict_c45(X, y, X_test, *, m=2, c=25, g=False, c45=C45_BINARY):
    """The class the program's pruned tree gives each row of ``X_test``.

    The program prints no predictions; it evaluates its trees on a ``.test``
    file (option ``-u``) and prints a confusion matrix.  Each test case is
    written alone, labelled with the first class, and the column of that
    matrix row that holds the 1 is the predicted class.  Unknown values in
    ``X_test`` (NaN, None) are written as ``?``; a nominal value must occur
    in ``X``.

    Returns
    -------
    list
        The predicted class labels, one per row of ``X_test``.
    """
    X, X_test = pd.DataFrame(X), pd.DataFrame(X_test)
    names, data, atts, classes, cls_namer = _write_files(X, y, None)
    tmp = tempfile.mkdtemp(prefix="c45_")
    try:
        with open(os.path.join(tmp, "d.names"), "w") as fh:
            fh.write(names)
        with open(os.path.join(tmp, "d.data"), "w") as fh:
            fh.write(data)
        cmd = [c45, "-f", "d", "-u", "-m", str(int(m)), "-c", str(c)] + (["-g"] if g else [])
        predicted = []
        for i in range(len(X_test)):
            fields = []
            for a in atts:
                v = _py(X_test[a["name"]].iloc[i])
                if a["kind"] == "ignore" or _is_missing(v):
                    fields.append("?")
                elif a["kind"] == "continuous":
                    fields.append(repr(float(v)))
                else:
                    fields.append(a["namer"].fwd[("str", v) if isinstance(v, str)
                                                 else (type(v).__name__, repr(v))])
            with open(os.path.join(tmp, "d.test"), "w") as fh:
                fh.write(", ".join(fields + [cls_namer.token(classes[0])]) + "\n")
            out = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600).stdout
            block = out[out.index("Evaluation on test data"):]
            row = next(line for line in block.splitlines() if line.endswith("(a): class "
                                                                              + cls_namer.token(classes[0])))
            cells = row.split("\t")[1]
            column = [cells[5 * k:5 * k + 5].strip() for k in range(len(classes))]
            predicted.append(classes[column.index("1")])
        return predicted
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
