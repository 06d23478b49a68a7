# SPDX-License-Identifier: Apache-2.0
"""Where spt deliberately differs from TensorFlow: the code of every rule, by id. The text of each rule (the
case, TensorFlow's behaviour, spt's, why) is the table of README.md's section "Where TensorFlow is lax, spt
is strict", read from there: a rule exists once in the table and once here, and the run fails when the two
sets of ids differ (check_table).

A rule applies to a case (an op and the drawn input) whatever the two libraries do; the harness then checks
what the rule states instead of comparing with TensorFlow:
  spt_error: spt must raise that class (exactly; TensorFlow accepts the input, or fails in another way);
  check:     spt must succeed and pass the check (a numpy or exact-integer reference);
  transform: spt must equal TensorFlow run on `transform(case)` (TensorFlow's answer on the raw input is
             not meaningful, e.g. a merge of unsorted operands).
A rule with none of these (`class-*`, `hostile-vectors`) is applied by harness.py or hostile.py under its id.
The harness prints how often each rule fired; a rule that never fires is listed at the end.
"""
import os
import re

import numpy as np

import harness
import spt
from harness import Sp, canonical, compare, from_tf, in_bounds, row_major_sort, short

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
SECTION = "## Where TensorFlow is lax, spt is strict"


def read_table(path=README):
    """{id: (case, tf, spt, why)} from the README's table of differences."""
    text = open(path, encoding="utf-8").read()
    i = text.index(SECTION)
    j = text.find("\n## ", i + len(SECTION))
    rows = {}
    for line in text[i:j if j >= 0 else len(text)].splitlines():
        m = re.match(r"\| `([^`]+)` \|(.*)\|\s*$", line)
        if m:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", m.group(2))]
            if len(cells) != 4:
                raise ValueError("README.md table row %s has %d cells, not 4" % (m.group(1), len(cells)))
            if m.group(1) in rows:
                raise ValueError("README.md table: rule %s twice" % m.group(1))
            rows[m.group(1)] = tuple(cells)
    return rows


TABLE = read_table()


class Rule:
    def __init__(self, id, ops, when, spt_error=None, transform=None, check=None, untransform=None,
                 tf_dies=None):
        self.id, self.ops, self.when = id, set(ops), when
        # tf_dies(case): TF may die on the case (a derived spec then runs TF on it in a subprocess)
        self.tf_dies = tf_dies
        self.spt_error, self.transform, self.check = spt_error, transform, check
        self.untransform = untransform
        row = TABLE.get(id, ("?", "?", "?", "?"))
        self.case, self.tf, self.spt, self.reason = row

    def judge(self, spec, case, tf_out, tf_err, spt_out, spt_err):
        if self.spt_error is not None:
            if spt_err is not None and type(spt_err) is self.spt_error:
                return None
            got = "succeeds" if spt_err is None else "raises %s (%s)" % (type(spt_err).__name__, short(spt_err))
            return "rule %s: spt should raise %s, %s" % (self.id, self.spt_error.__name__, got)
        if self.check is not None:
            if spt_err is not None:
                return "rule %s: spt raises %s (%s)" % (self.id, type(spt_err).__name__, short(spt_err))
            m = self.check(spec, case, spt_out)
            return "rule %s: %s" % (self.id, m) if m else None
        c2 = self.transform(case)
        try:
            want = from_tf(spec.tf(c2))
            if self.untransform is not None:
                want = self.untransform(case, c2, want)
        except Exception as e:  # noqa: BLE001
            if spt_err is not None:
                return None
            return "rule %s: TF on the transformed input raises %s (%s), spt succeeds" % (
                self.id, type(e).__name__, short(e))
        if spt_err is not None:
            return "rule %s: spt raises %s (%s); TF on the transformed input succeeds" % (
                self.id, type(spt_err).__name__, short(spt_err))
        m = compare(want, spt_out, case.dtype, case.scale)
        return "rule %s: %s" % (self.id, m) if m else None


def sparse_args(case):
    out = []
    for v in case.args.values():
        for x in (v if isinstance(v, (list, tuple)) else [v]):
            if hasattr(x, "indices") and hasattr(x, "shape") and hasattr(x, "dtype"):
                out.append(x)
    return out


def any_oob(case):
    return any(not in_bounds(s) for s in sparse_args(case))


def fault(*names):
    return lambda case: case.fault in names


def in_order(sp):
    """Row-major order, duplicates allowed."""
    if sp.nnz < 2 or sp.rank == 0:
        return True
    p = row_major_sort(sp.indices)
    return bool(np.array_equal(sp.indices[p], sp.indices))


def all_sorted(case):
    return all(in_order(s) for s in sparse_args(case))


def map_sparse(case, f):
    """A copy of the case with f applied to every sparse operand (alone or in a list)."""
    import copy

    c2 = copy.copy(case)
    c2.args = {}
    for k, v in case.args.items():
        if isinstance(v, Sp):
            v = f(v)
        elif isinstance(v, list) and any(isinstance(s, Sp) for s in v):
            v = [f(s) if isinstance(s, Sp) else s for s in v]
        c2.args[k] = v
    return c2


def sorted_case(case):
    """The case with every sparse operand stably sorted in row-major order (duplicates kept)."""
    return map_sparse(case, canonical)


def by_row(sp):
    """sp stably sorted by row (index[0]) only: the order within a row kept."""
    if sp.nnz < 2 or sp.rank == 0:
        return sp
    p = np.argsort(sp.indices[:, 0], kind="stable")
    return Sp(sp.indices[p], sp.values[p], sp.shape, sp.dtype)


def rows_sorted_case(case):
    return map_sparse(case, by_row)


def rows_in_order(case):
    return all(s.nnz < 2 or s.rank == 0 or bool(np.all(np.diff(s.indices[:, 0]) >= 0)) for s in sparse_args(case))


def densify_sum(sp):
    d = np.zeros(tuple(sp.shape), dtype=sp.values.dtype)
    if sp.nnz:
        np.add.at(d, tuple(sp.indices.T), sp.values)
    return d


def operands(c):
    return __import__("ops").operands(c)


def check_add_dense(c, out):
    a, d = operands(c)
    want = np.asarray(d).copy()
    if a.nnz and a.rank == 0:
        want = (want + np.add.reduce(a.values, dtype=want.dtype)).astype(want.dtype)
    elif a.nnz:
        np.add.at(want, tuple(a.indices.T), a.values)
    return compare(want, out, c.dtype, c.scale)


def cwise_broadcasts(c):
    """TF's one-way rule (SparseDenseBinaryOpShared): the dense operand broadcasts to the sparse shape."""
    a, dense = operands(c)
    ds = np.asarray(dense).shape
    if len(ds) > a.rank or a.rank == 0:
        return False
    return all(d == s or (d == 1 and s >= 1) or (d == 0 and s == 1) for d, s in zip(ds[::-1], a.shape[::-1]))


def check_cwise(c, out):
    """values op dense[broadcast index], at the stored entries, same indices and shape."""
    a, dense = operands(c)
    d = np.broadcast_to(np.asarray(dense), tuple(a.shape)) if a.rank else np.asarray(dense)
    other = d[tuple(a.indices.T)] if a.nnz else np.zeros(0, a.values.dtype)
    op = {"sparse_dense_cwise_mul": np.multiply, "sparse_dense_cwise_add": np.add}.get(c.op, np.divide)
    with np.errstate(all="ignore"):
        want = op(a.values, other).astype(a.values.dtype)
    from harness import SpOut

    return compare(SpOut(a.indices, want, a.shape), out, c.dtype, c.scale)


def check_matmul_dense_first(c, out):
    d = np.conj(c.b.T) if c.adjoint_a else c.b
    s = densify_sum(c.a)
    s = np.conj(s.T) if c.adjoint_b else s
    return compare((d @ s).astype(c.b.dtype), out, c.dtype, c.scale)


def check_reduce_max(c, out):
    """numpy reference: per output cell the max of its stored values (NaN if any is NaN); an empty cell is
    0 (dense output) or absent (sparse output)."""
    from harness import SpOut

    x = c.x
    r = x.rank
    if c.axis is None:
        axes = list(range(r))
    else:
        axes = sorted({(a + r) % r for a in np.atleast_1d(np.asarray(c.axis, dtype=np.int64)).tolist()})
    kept = [d for d in range(r) if d not in axes]
    cells = {}
    for i in range(x.nnz):
        key = tuple(int(x.indices[i, d]) for d in kept)
        cells.setdefault(key, []).append(x.values[i])
    keys = sorted(cells)
    vals = np.array([np.max(np.array(cells[k])) for k in keys], dtype=x.values.dtype)
    oshape = [1 if (d in axes) else int(x.shape[d]) for d in range(r)] if c.keepdims else [int(x.shape[d]) for d in kept]

    def full(k):
        if not c.keepdims:
            return list(k)
        it = iter(k)
        return [0 if d in axes else next(it) for d in range(r)]

    if isinstance(out, SpOut):
        ix = np.array([full(k) for k in keys], dtype=np.int64).reshape(len(keys), len(oshape))
        return compare(SpOut(ix, vals, oshape), out, c.dtype, 0.0)
    want = np.zeros(oshape, dtype=x.values.dtype)
    for k, v in zip(keys, vals):
        want[tuple(full(k))] = v
    return compare(want, out, c.dtype, 0.0)


def dense_arg(case):
    """The case's dense operand: its arg `dense`, else its first numpy array."""
    if "dense" in case.args:
        return case.args["dense"]
    return next(v for v in case.args.values() if isinstance(v, np.ndarray))


def check_from_dense_0d(case, out):
    d = dense_arg(case)
    v = d[()]
    nonzero = (v != b"") if d.dtype.kind == "O" else bool(v != 0 or v != v)
    want_n = 1 if nonzero else 0
    if out.indices.shape != (want_n, 0) or out.shape.shape != (0,) or out.values.shape != (want_n,):
        return "expected %d entries of rank 0, got indices %s shape %s" % (want_n, out.indices.shape, out.shape)
    if want_n and compare(np.asarray([v], dtype=d.dtype), out.values, case.dtype):
        return "value %r vs %r" % (out.values, v)
    return ""


RULES_LIST = [
    Rule("P2-index", ["reorder", "slice", "reshape", "transpose", "retain", "reset_shape", "concat", "split",
                      "reduce_sum", "reduce_max", "reduce_sum_sparse", "reduce_max_sparse", "softmax", "add",
                      "add_dense", "maximum", "minimum", "fill_empty_rows", "merge", "sparse_dense_matmul",
                      "sparse_dense_matvec", "sparse_dense_cwise_mul", "sparse_dense_cwise_div",
                      "sparse_dense_cwise_add", "to_indicator", "to_dense", "sparse_dense_matmul_dense_first",
                      "add_dense_first"],
         lambda c: c.fault == "bad_index" and any_oob(c), spt_error=spt.OutOfRangeError),
    Rule("P4-slice-start", ["slice"], fault("negative_start"), spt_error=spt.InvalidArgumentError),
    Rule("merge-ids", ["merge"], fault("bad_id"), spt_error=spt.OutOfRangeError),
    Rule("merge-vocab", ["merge"], lambda c: min(np.atleast_1d(c.args.get("vocab_size", c.args.get("vocab")))) < 0,
         spt_error=spt.InvalidArgumentError),
    Rule("sorted-first", ["add", "maximum", "minimum", "softmax"], lambda c: not all_sorted(c),
         transform=lambda c: sorted_case(c)),
    Rule("concat-one", ["concat"], lambda c: len(c.sps) == 1 and not in_order(c.sps[0]) and c.fault is None,
         transform=lambda c: sorted_case(c)),
    Rule("from_dense-0d", ["from_dense"], lambda c: dense_arg(c).ndim == 0, check=lambda s, c, out: check_from_dense_0d(c, out)),
    Rule("P3-single-concat", ["concat"], fault("axis_single"), spt_error=spt.OutOfRangeError),
]

RULES_LIST += [
    Rule("fill-zero-dim", ["fill_empty_rows"],
         lambda c: c.x.rank >= 2 and c.x.shape[0] > 0 and (c.x.shape[1:] == 0).any() and in_bounds(c.x),
         spt_error=spt.OutOfRangeError),
    Rule("axis-int32", ["reduce_sum", "reduce_max", "reduce_sum_sparse", "reduce_max_sparse"],
         lambda c: c.fault == "bad_axis" and isinstance(c.axis, int) and abs(c.axis) >= 2 ** 31,
         spt_error=spt.OutOfRangeError),
    Rule("reduce_max-nan", ["reduce_max", "reduce_max_sparse"],
         lambda c: c.x.values.dtype.kind == "f" and bool(np.isnan(c.x.values).any()) and in_bounds(c.x)
         and c.fault is None, check=lambda s, c, out: check_reduce_max(c, out)),
    Rule("add_dense-rank", ["add_dense", "add_dense_first"],
         lambda c: operands(c)[0].rank == 0 or operands(c)[0].rank > 5,
         check=lambda s, c, out: check_add_dense(c, out)),
    Rule("cwise-float-div0", ["sparse_dense_cwise_div"],
         lambda c: c.dtype in ("float32", "float64") and (np.asarray(operands(c)[1]) == 0).any()
         and cwise_broadcasts(c) and in_bounds(operands(c)[0]), check=lambda s, c, out: check_cwise(c, out)),
    Rule("matmul-dense-first-complex", ["sparse_dense_matmul_dense_first"],
         lambda c: c.dtype.startswith("complex") and c.fault is None and in_bounds(c.a),
         check=lambda s, c, out: check_matmul_dense_first(c, out)),
]

RULES_LIST += [
    Rule("transpose-perm", ["transpose"], fault("not_a_permutation"), spt_error=spt.InvalidArgumentError),
]

def both_held_min(c):
    """The indices held by both operands of add whose wrapped sum is the dtype's minimum (int32/int64)."""
    if c.dtype not in ("int32", "int64") or c.fault is not None or c.a.rank == 0:
        return set()
    mn = np.iinfo(c.dtype).min
    a, b = canonical(c.a), canonical(c.b)
    bi = {}
    for i in range(b.nnz):
        bi.setdefault(tuple(b.indices[i].tolist()), []).append(b.values[i])
    out = set()
    used = {}
    for i in range(a.nnz):
        k = tuple(a.indices[i].tolist())
        j = used.get(k, 0)
        if k in bi and j < len(bi[k]):
            used[k] = j + 1
            with np.errstate(over="ignore"):
                if (a.values[i] + bi[k][j]) == mn:
                    out.add(k)
    return out


def check_add_int_min(spec, c, out):
    from harness import SpOut

    want = from_tf(spec.tf(sorted_case(c)))
    held = both_held_min(c)
    mn = np.iinfo(c.dtype).min
    drop = np.array([not (v == mn and tuple(ix) in held) for ix, v in zip(out.indices.tolist(), out.values)], bool)
    if drop.all():
        return "spt dropped a sum equal to the dtype's minimum"
    return compare(want, SpOut(out.indices[drop], out.values[drop], out.shape), c.dtype, c.scale)


RULES_LIST.insert(0, Rule(
    "add-int-min", ["add"], lambda c: bool(both_held_min(c)), check=check_add_int_min))

# The hostile inputs (hostile.py) are judged by their own vectors: tests/conformance/bad_inputs.jsonl gives the
# class spt must raise for each, and its `why` says why; hostile.py prints every vector where TF accepts
# what spt rejects, or crashes on it.
HOSTILE_VECTORS = Rule(
    "hostile-vectors", ["hostile"], lambda c: False)

def compress_case(case):
    """The case with every huge dim compressed: the coordinates used in that dim (over all operands) are
    renumbered 0, 1, ... in order and the dim becomes their count. Ops that pass coordinates through (or
    only compare and group them) give the same result up to that renumbering."""
    sps = sparse_args(case)
    hd = sorted(set(d for s in sps for d in getattr(s, "huge_dims", [])))
    maps = {}
    for d in hd:
        vals = sorted(set(int(v) for s in sps for v in s.indices[:, d].tolist()))
        maps[d] = vals

    def comp(s):
        ix = s.indices.copy()
        sh = s.shape.copy()
        for d, vals in maps.items():
            lut = {v: i for i, v in enumerate(vals)}
            ix[:, d] = [lut[int(v)] for v in s.indices[:, d]]
            sh[d] = max(1, len(vals))
        return Sp(ix, s.values, sh, s.dtype)

    c2 = map_sparse(case, comp)
    c2.maps = maps
    return c2


def huge_volume(c):
    """Some operand's shape, or the output shape of reset_shape or concat, has a volume above 2^63 - 1."""
    shapes = [sp.shape.tolist() for sp in sparse_args(c)]
    if c.op == "reset_shape" and c.new_shape is not None:
        shapes.append(list(c.new_shape))
    if c.op == "concat" and all(len(s) == len(shapes[0]) for s in shapes) and shapes[0]:
        ax = c.axis % len(shapes[0]) if -len(shapes[0]) <= c.axis < len(shapes[0]) else None
        if ax is not None:
            out = [max(s[d] for s in shapes) for d in range(len(shapes[0]))]
            out[ax] = sum(s[ax] for s in shapes)
            shapes.append(out)
    for sh in shapes:
        v = 1
        for d in sh:
            v *= int(d)
        if v > 2 ** 63 - 1:
            return True
    return False


def slice_overflows(c):
    return any(int(a) + int(b) > 2 ** 63 - 1 for a, b in zip(c.start.tolist(), c.size.tolist()))


def check_slice(spec, c, out):
    """numpy reference of slice with exact (Python integer) bounds: entries with start <= index <
    start + size, shifted by -start, in input order; each output dim max(0, min(size, dim - start))."""
    from harness import SpOut

    x = sparse_args(c)[0]
    keep = []
    for i in range(x.nnz):
        keep.append(all(int(st) <= int(v) < int(st) + int(sz) for v, st, sz in zip(x.indices[i].tolist(),
                                                                                  c.start.tolist(), c.size.tolist())))
    keep = np.array(keep, bool)
    ix = (x.indices[keep] - c.start.astype(np.int64)) if x.nnz else x.indices
    shape = [max(0, min(int(sz), int(d) - int(st))) for d, st, sz in zip(x.shape.tolist(), c.start.tolist(),
                                                                      c.size.tolist())]
    return compare(SpOut(ix.reshape(-1, x.rank), x.values[keep] if x.nnz else x.values, shape), out, c.dtype,
                   c.scale)


def p1_transform(c):
    c2 = compress_case(c)
    if c.op in ("add", "maximum", "minimum", "softmax") or (c.op == "concat" and len(c.sps) == 1):
        c2 = sorted_case(c2)  # as the rules sorted-first and concat-one
    return c2


def out_sources(case):
    """For each output dim of the op, the input dim its coordinates come from (None: not an input
    coordinate, e.g. a reduced dim kept as 0)."""
    x = sparse_args(case)[0]
    r = x.rank
    if case.op == "transpose":
        return list(case.perm) if case.perm is not None else list(range(r))[::-1]
    if case.op in ("reduce_sum_sparse", "reduce_max_sparse"):
        axes = list(range(r)) if case.axis is None else sorted(
            {(a + r) % r for a in np.atleast_1d(np.asarray(case.axis, dtype=np.int64)).tolist()})
        if case.keepdims:
            return [None if d in axes else d for d in range(r)]
        return [d for d in range(r) if d not in axes]
    return list(range(r))


def expand_out(case, c2, out):
    """TF's result on the compressed case, with the coordinates and dims of the huge dims put back."""
    from harness import SpOut

    if isinstance(out, list):
        return [expand_out(case, c2, o) for o in out]
    if not isinstance(out, SpOut):
        return out
    src = out_sources(case)
    orig = sparse_args(case)[0].shape
    ix, sh = out.indices.copy(), out.shape.copy()
    for k, d in enumerate(src):
        if d is not None and d in c2.maps and k < ix.shape[1]:
            vals = np.array(c2.maps[d] or [0], dtype=np.int64)
            ix[:, k] = vals[ix[:, k]] if ix.shape[0] else ix[:, k]
            sh[k] = orig[d]
    return SpOut(ix, out.values, sh)


RULES_LIST.insert(0, Rule(
    "P1-any-volume", ["concat", "split", "retain", "reset_shape", "transpose", "reduce_sum_sparse",
                      "reduce_max_sparse", "add", "maximum", "minimum", "softmax", "reorder", "slice"],
    lambda c: getattr(c, "huge", False) and huge_volume(c) and harness.ANY_VOLUME
    and c.op not in ("reorder", "slice", "reset_shape"),
    transform=lambda c: p1_transform(c), untransform=expand_out))

RULES_LIST += [
    Rule("P1-slice", ["slice"], lambda c: getattr(c, "huge", False) and huge_volume(c) and harness.ANY_VOLUME,
         check=check_slice),
    Rule("slice-end-overflow", ["slice"], lambda c: c.fault is None and slice_overflows(c) and
         (harness.ANY_VOLUME or not huge_volume(c)), check=check_slice),
]

def check_div_min(spec, c, out):
    """Integer division truncating toward zero, MIN / -1 = MIN (wraps), at the stored entries."""
    from harness import SpOut
    from ops import cwise_other

    sp = operands(c)[0]
    a = sp.values.astype(object)
    b = cwise_other(c).astype(object)
    q = []
    for x, y in zip(a, b):
        if y == 0:
            return "divisor 0 in a MIN / -1 case (the generator marks those as faults)"
        v = abs(int(x)) // abs(int(y)) * (1 if (x >= 0) == (y > 0) else -1)
        q.append(v)
    bits = np.iinfo(c.dtype).bits
    q = [((v + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1) for v in q]
    return compare(SpOut(sp.indices, np.array(q, dtype=c.dtype), sp.shape), out, c.dtype, 0.0)


RULES_LIST += [
    Rule("cwise-div-min", ["sparse_dense_cwise_div"], lambda c: c.fault is None and operands(c)[0].rank > 0
         and in_bounds(operands(c)[0]) and
         __import__("ops").div_min_by_minus_one(c) and not (__import__("ops").cwise_other(c) == 0).any(),
         check=check_div_min,
         tf_dies=lambda c: __import__("ops").div_min_by_minus_one(c)),
]

def double_thresh_case(c):
    """The case, sorted as rule sorted-first does, with the threshold the double spt_add receives."""
    c2 = sorted_case(c)
    c2.args["thresh"] = int(float(c.thresh))
    return c2


RULES_LIST += [
    Rule("add-nan-thresh", ["add"], fault("nan_threshold"), spt_error=spt.InvalidArgumentError),
    Rule("add-thresh-double", ["add"], lambda c: isinstance(c.thresh, int) and float(c.thresh) != c.thresh
         and c.fault is None, transform=double_thresh_case),
]

def is_subnormal(a):
    a = np.asarray(a)
    if a.dtype.kind not in "fc" or a.size == 0:
        return False
    parts = [a.real, a.imag] if a.dtype.kind == "c" else [a]
    tiny = np.finfo(a.real.dtype).tiny
    return any(bool(np.any((p != 0) & (np.abs(p) < tiny))) for p in parts)


def check_from_dense(case, out):
    """numpy reference of from_dense: the entries whose value is not zero by IEEE (a subnormal included)."""
    from harness import SpOut

    d = dense_arg(case)
    nz = d != 0 if d.dtype.kind != "O" else np.vectorize(lambda x: x != b"")(d)
    nz = nz | (d != d) if d.dtype.kind in "fc" else nz
    ix = np.argwhere(nz).astype(np.int64).reshape(-1, d.ndim)
    return compare(SpOut(ix, d[nz], d.shape), out, case.dtype, 0.0)


def bincount_rows(c):
    v = c.v
    shape = v.shape if isinstance(v, Sp) else np.asarray(v).shape
    return len(shape) == 2 and shape[0] == 0


def check_bincount_zero_rows(spec, c, out):
    if not hasattr(out, "indices"):
        return "expected a sparse result, got %s" % type(out).__name__
    if out.shape.tolist()[:1] != [0] or len(out.shape) != 2 or out.indices.shape[0] != 0:
        return "expected an empty [0, width] result, got shape %s with %d entries" % (out.shape.tolist(),
                                                                                   out.indices.shape[0])
    return ""


def trailing_empty_rows(c):
    """The ids' last rows (below dense_shape[0]) hold no id: TF's plain lookup returns fewer rows."""
    ids = sparse_args(c)[0]
    rows = ids.indices[:, 0] if ids.nnz else np.zeros(0, np.int64)
    return (int(rows.max()) + 1 if rows.size else 0) < int(ids.shape[0])


def pad_rows(case, c2, out):
    """TF's result padded with zero rows to dense_shape[0] rows."""
    out = np.asarray(out)
    B = int(sparse_args(case)[0].shape[0])
    if out.ndim != 2 or out.shape[0] >= B:
        return out
    return np.concatenate([out, np.zeros((B - out.shape[0], out.shape[1]), out.dtype)])


RULES_LIST += [
    Rule("bincount-zero-rows", ["bincount"], lambda c: c.axis == -1 and bincount_rows(c) and c.fault is None,
         check=check_bincount_zero_rows),
    Rule("embedding-rows", ["embedding_lookup_sparse"], lambda c: trailing_empty_rows(c) and c.fault is None,
         transform=lambda c: rows_sorted_case(c), untransform=pad_rows),
    Rule("rows-grouped", ["cross", "cross_hashed", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"],
         lambda c: not rows_in_order(c) and c.fault is None, transform=lambda c: rows_sorted_case(c)),
    Rule("subnormal-kept", ["from_dense"], lambda c: is_subnormal(dense_arg(c)),
         check=lambda s, c, out: check_from_dense(c, out)),
    Rule("subnormal-kept", ["sparse_dense_cwise_div", "sparse_dense_cwise_mul"],
         lambda c: c.fault is None and is_subnormal(operands(c)[1]) and cwise_broadcasts(c)
         and in_bounds(operands(c)[0]), check=lambda s, c, out: check_cwise(c, out)),
]

def map_nonfinite_complex(c):
    vals = [s.values for s in sparse_args(c)] + ([np.asarray(c.scalar)] if "known" in c.args else [])
    return c.dtype.startswith("complex") and any((~np.isfinite(np.asarray(v))).any() for v in vals)


def check_map_numpy(spec, c, out):
    """numpy reference: the function applied to the values as numpy arrays (numpy's complex arithmetic).
    The function: ops.MAP_FNS[k], k the case's `fn` (ops.py's spec) or `op` (the derived spec)."""
    from harness import SpOut
    from ops import MAP_FNS

    sps = sparse_args(c)
    with np.errstate(all="ignore"):
        if "known" in c.args:
            want = getattr(np, c.known)(sps[0].values, c.scalar)
        else:
            name, f, nargs, _ = MAP_FNS[c.args["fn"] if "fn" in c.args else c.args["op"]]
            want = f(*[s.values for s in sps[:nargs]])
    want = np.asarray(want)
    if want.shape != (sps[0].nnz,):
        return "numpy's result has shape %s" % (want.shape,)
    return compare(SpOut(sps[0].indices, want, sps[0].shape), out, c.dtype, c.scale)


RULES_LIST += [
    Rule("map-values-numpy", ["map_values", "map_values_fns"], lambda c: c.fault is None and map_nonfinite_complex(c),
         check=check_map_numpy),
]

# Applied by harness.py's comparison of error classes (harness.accepted_classes), not to cases
CLASS_RULES = [Rule("class-out-of-range", [], lambda c: False), Rule("class-overflow", [], lambda c: False)]

# rules are tried in this order; the first whose condition holds decides
_FIRST = ["add-nan-thresh", "add-int-min", "add-thresh-double", "reduce_max-nan", "P1-any-volume", "slice-end-overflow"]
RULES_LIST.sort(key=lambda r: _FIRST.index(r.id) if r.id in _FIRST else len(_FIRST))

RULES_BY_ID = {r.id: r for r in RULES_LIST + CLASS_RULES + [HOSTILE_VECTORS]}


def check_table():
    """'' when README.md's table and this file have the same rules, else what differs."""
    have, want = set(RULES_BY_ID), set(TABLE)
    out = []
    if have - want:
        out.append("rules with no row in README.md's table: %s" % ", ".join(sorted(have - want)))
    if want - have:
        out.append("README.md's table rows with no rule here: %s" % ", ".join(sorted(want - have)))
    return "; ".join(out)


class _Rules:
    def __init__(self, rules):
        self.rules = rules
        self.hits = {}

    def match(self, op, case, tf_err, spt_err):
        for r in self.rules:
            if op in r.ops and r.when(case):
                self.hits[r.id] = self.hits.get(r.id, 0) + 1
                return r
        return None


RULES = _Rules(RULES_LIST)


def print_unused():
    unused = sorted({r.id for r in RULES_LIST + CLASS_RULES if r.id not in RULES.hits})
    if unused:
        print("rules that fired on no case in this run: %s" % ", ".join(unused))


def table():
    """The rules as text (python tests/tf/rules.py prints them)."""
    out = []
    for rid, (case, tf, sp, why) in TABLE.items():
        ops = sorted(set().union(*[r.ops for r in RULES_LIST if r.id == rid]))
        out.append("%s  [%s]\n  case: %s\n  TF:   %s\n  spt:  %s\n  why:  %s" % (rid, ", ".join(ops) or "-", case,
                                                                               tf, sp, why))
    m = check_table()
    return "\n".join(out + (["MISMATCH: " + m] if m else []))


if __name__ == "__main__":
    print(table())
