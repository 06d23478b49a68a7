# SPDX-License-Identifier: Apache-2.0
"""Where spt deliberately differs from TensorFlow: every rule in one table, with its reason.

A rule applies to a case (an op and the drawn input) whatever the two libraries do; the harness then checks
what the rule states instead of comparing with TensorFlow:
  kind "stricter": spt must raise `spt_error` (TensorFlow accepts the input, or fails in another way);
  kind "oracle":   spt must equal TensorFlow run on `transform(case)` (TensorFlow's answer on the raw input
                   is not meaningful, e.g. a merge of unsorted operands).
The policies are those of ../shared/conformance/README.md ("spt's policy where TensorFlow is lax") and
include/spt.h. The harness prints how often each rule fired; a rule that never fires is listed at the end.
"""
import numpy as np

import harness
import spt
from harness import Sp, canonical, compare, from_tf, in_bounds, row_major_sort, short


class Rule:
    def __init__(self, id, ops, when, spt_error=None, transform=None, check=None, tf="", reason="",
                 untransform=None):
        self.id, self.ops, self.when = id, set(ops), when
        self.spt_error, self.transform, self.check = spt_error, transform, check
        self.untransform = untransform
        self.tf, self.reason = tf, reason

    def judge(self, spec, case, tf_out, tf_err, spt_out, spt_err):
        if self.spt_error is not None:
            if isinstance(spt_err, self.spt_error):
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


def sorted_case(case):
    """The case with every sparse operand stably sorted in row-major order (duplicates kept)."""
    import copy

    c2 = copy.copy(case)
    c2.args = {}
    for k, v in case.args.items():
        if isinstance(v, Sp):
            v = canonical(v)
        elif isinstance(v, list) and v and isinstance(v[0], Sp):
            v = [canonical(s) for s in v]
        c2.args[k] = v
    return c2


def densify_sum(sp):
    d = np.zeros(tuple(sp.shape), dtype=sp.values.dtype)
    if sp.nnz:
        np.add.at(d, tuple(sp.indices.T), sp.values)
    return d


def check_add_dense(c, out):
    want = np.asarray(c.dense).copy()
    if c.a.nnz and c.a.rank == 0:
        want = (want + np.add.reduce(c.a.values, dtype=want.dtype)).astype(want.dtype)
    elif c.a.nnz:
        np.add.at(want, tuple(c.a.indices.T), c.a.values)
    return compare(want, out, c.dtype, c.scale)


def cwise_broadcasts(c):
    ds = np.asarray(c.dense).shape
    if len(ds) > c.a.rank:
        return False
    return all(d == s or d == 1 for d, s in zip(ds[::-1], c.a.shape[::-1]))


def check_cwise(c, out):
    """values op dense[broadcast index], at the stored entries, same indices and shape."""
    d = np.broadcast_to(np.asarray(c.dense), tuple(c.a.shape)) if c.a.rank else np.asarray(c.dense)
    other = d[tuple(c.a.indices.T)] if c.a.nnz else np.zeros(0, c.a.values.dtype)
    op = {"sparse_dense_cwise_mul": np.multiply, "sparse_dense_cwise_add": np.add}.get(c.op, np.divide)
    with np.errstate(all="ignore"):
        want = op(c.a.values, other).astype(c.a.values.dtype)
    from harness import SpOut

    return compare(SpOut(c.a.indices, want, c.a.shape), out, c.dtype, c.scale)


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


def check_from_dense_0d(case, out):
    v = case.dense[()]
    nonzero = (v != b"") if case.dense.dtype.kind == "O" else bool(v != 0 or v != v)
    want_n = 1 if nonzero else 0
    if out.indices.shape != (want_n, 0) or out.shape.shape != (0,) or out.values.shape != (want_n,):
        return "expected %d entries of rank 0, got indices %s shape %s" % (want_n, out.indices.shape, out.shape)
    if want_n and compare(np.asarray([v], dtype=case.dense.dtype), out.values, case.dtype):
        return "value %r vs %r" % (out.values, v)
    return ""


RULES_LIST = [
    Rule("P2-index", ["reorder", "slice", "reshape", "transpose", "retain", "reset_shape", "concat", "split",
                      "reduce_sum", "reduce_max", "reduce_sum_sparse", "reduce_max_sparse", "softmax", "add",
                      "add_dense", "maximum", "minimum", "fill_empty_rows", "merge", "sparse_dense_matmul",
                      "sparse_dense_matvec", "sparse_dense_cwise_mul", "sparse_dense_cwise_div",
                      "sparse_dense_cwise_add", "to_indicator", "to_dense", "sparse_dense_matmul_dense_first"],
         lambda c: c.fault == "bad_index" and any_oob(c), spt_error=spt.OutOfRangeError,
         tf="several kernels do not check indices against the shape (SparseReorder, SparseSlice, SparseReshape, "
            "the columns in SparseFillEmptyRows, the Python-level transpose/retain/reset_shape, ...): they return "
            "a tensor with entries outside its shape, or an InvalidArgument",
         reason="conformance README policy 2: every op checks every index against the shape; an index outside "
                "it is an out-of-range error (spt.h: OutOfRange for coordinates)"),
    Rule("P4-slice-start", ["slice"], fault("negative_start", "negative_size"), spt_error=spt.InvalidArgumentError,
         tf="SparseSlice accepts a negative start and emits indices index-start that can exceed the output shape "
            "(an invalid SparseTensor); a negative size past the end of the dim gives an empty slice",
         reason="conformance README policy 4 and spec/bad_inputs.md section 5 rule 6: slice start >= 0 and "
                "size >= 0, else an invalid argument"),
    Rule("merge-ids", ["merge"], fault("bad_id"), spt_error=spt.OutOfRangeError,
         tf="tf.compat.v1.sparse.merge does not check the ids: an id >= vocab_size (or < 0) becomes an index "
            "outside the output shape, an invalid SparseTensor",
         reason="an id is a coordinate of the output (conformance README: an index or id outside its range is "
                "an out-of-range error; spec/bad_inputs.md section 5 rule 4)"),
    Rule("sorted-first", ["add", "maximum", "minimum", "softmax"], lambda c: not all_sorted(c),
         transform=lambda c: sorted_case(c),
         tf="SparseAdd, SparseSparseMaximum/Minimum merge their operands with two pointers and SparseSoftmax "
            "groups consecutive entries: each assumes row-major order, and on unsorted input gives a wrong "
            "result (entries not merged, softmax over split groups) without an error",
         reason="include/spt.h (spt_add, spt_maximum, spt_softmax): an operand not in row-major order is sorted "
                "first (stably), never merged wrongly; so spt equals TF on the stably sorted operands "
                "(spec/bad_inputs.md section 5 rule 5)"),
    Rule("concat-one", ["concat"], lambda c: len(c.sps) == 1 and not in_order(c.sps[0]) and c.fault is None,
         transform=lambda c: sorted_case(c),
         tf="tf.sparse.concat with one input returns that input as it is, in its own entry order",
         reason="spt.concat (spt_concat) always returns its output in row-major order, for one input as for "
                "several (TF's SparseConcat kernel, which runs for two or more inputs, also does)"),
    Rule("from_dense-0d", ["from_dense"], lambda c: c.dense.ndim == 0, check=lambda s, c, out: check_from_dense_0d(c, out),
         tf="tf.sparse.from_dense of a 0-d tensor fails in its Where kernel (\"WhereOp: Unhandled input "
            "dimensions: 0\")",
         reason="a rank-0 sparse tensor is valid (spec/bad_inputs.md section 5 rule 10: rank-0 tensors where "
                "meaningful): spt returns indices [1, 0] or [0, 0] holding the value when it is not zero"),
    Rule("P3-single-concat", ["concat"], fault("axis_single"), spt_error=spt.OutOfRangeError,
         tf="tf.sparse.concat with one input returns it unchecked, whatever the axis",
         reason="conformance README policy 3: parameters are checked even where TF's Python layer "
                "short-circuits"),
]

RULES_LIST += [
    Rule("fill-zero-dim", ["fill_empty_rows"],
         lambda c: c.x.rank >= 2 and c.x.shape[0] > 0 and (c.x.shape[1:] == 0).any() and in_bounds(c.x),
         spt_error=spt.OutOfRangeError,
         tf="SparseFillEmptyRows fills an empty row r with the entry [r, 0, ...] even when another dim is 0, "
            "so the result holds indices outside its own shape (an invalid SparseTensor)",
         reason="policy 2 / spec/bad_inputs.md section 5 rule 4: no op produces an index outside the shape; "
                "spt_fill_empty_rows reports that the filled entries have no element to go to"),
    Rule("axis-int32", ["reduce_sum", "reduce_max", "reduce_sum_sparse", "reduce_max_sparse"],
         lambda c: c.fault == "bad_axis" and isinstance(c.axis, int) and abs(c.axis) >= 2 ** 31,
         spt_error=spt.OutOfRangeError,
         tf="the reduction axes are int32 in TF's kernels: an axis such as 2^40 is truncated to a valid one "
            "(2^40 -> 0) and the reduction runs over the wrong axis without an error",
         reason="policy: an axis outside [-rank, rank) is an out-of-range error; spt takes the axis as int64 and "
                "never truncates it (developers' guide: no silent truncation)"),
    Rule("reduce_max-nan", ["reduce_max", "reduce_max_sparse"],
         lambda c: c.x.values.dtype.kind == "f" and bool(np.isnan(c.x.values).any()) and in_bounds(c.x)
         and c.fault is None, check=lambda s, c, out: check_reduce_max(c, out),
         tf="SparseReduceMax over a cell that holds a NaN depends on the order of the entries: [3.5, NaN, 1.0] "
            "gives 1.0, [1.0, 3.5, NaN] gives NaN",
         reason="spt_reduce_max returns NaN for a cell holding a NaN, in any order (as tf.math.reduce_max and "
                "numpy.max do); checked against numpy"),
    Rule("add_dense-rank", ["add_dense"], lambda c: c.a.rank == 0 or c.a.rank > 5,
         check=lambda s, c, out: check_add_dense(c, out),
         tf="SparseTensorDenseAdd only supports ranks 1 to 5 (\"Only tensors with ranks between 1 and 5 are "
            "currently supported\")",
         reason="spt_add_dense takes any rank (include/spt.h); checked against numpy"),
    Rule("cwise-zero-dim", ["sparse_dense_cwise_mul", "sparse_dense_cwise_div", "sparse_dense_cwise_add"],
         lambda c: (c.a.shape == 0).any() and cwise_broadcasts(c) and in_bounds(c.a),
         check=lambda s, c, out: check_cwise(c, out),
         tf="SparseDenseBinaryOpShared refuses to broadcast a dense operand to a sparse shape with a 0 dim "
            "(\"broadcasts dense to sparse only; got incompatible shapes\") even where numpy broadcasting "
            "holds (a dense dim 1 against a sparse dim 0)",
         reason="spt broadcasts by numpy's rule (include/spt.h, SparseDenseCwise*): the result is the empty "
                "sparse tensor; checked against numpy"),
    Rule("cwise-float-div0", ["sparse_dense_cwise_div"],
         lambda c: c.dtype in ("float32", "float64") and (np.asarray(c.dense) == 0).any() and cwise_broadcasts(c)
         and in_bounds(c.a), check=lambda s, c, out: check_cwise(c, out),
         tf="SparseDenseCwiseDiv rejects a dense operand that contains a zero for every dtype since the fix of "
            "CVE-2021-37636 (\"cannot divide by zero\"), floats included",
         reason="spec/bad_inputs.md section 5 rule 8: only an integer division by zero is an error; float "
                "division follows IEEE (inf, NaN); checked against numpy"),
    Rule("matmul-dense-first-complex", ["sparse_dense_matmul_dense_first"],
         lambda c: c.dtype.startswith("complex") and c.fault is None and in_bounds(c.a),
         check=lambda s, c, out: check_matmul_dense_first(c, out),
         tf="tf.sparse.sparse_dense_matmul(dense, sparse) for complex values returns the complex conjugate of "
            "op(A) op(B): it computes (op'(B) op'(A)) with adjoints and then a plain transpose, not an adjoint",
         reason="spt returns op(A) op(B) (its dense-first path takes the conjugate transpose); checked "
                "against numpy"),
]

RULES_LIST += [
    Rule("transpose-perm", ["transpose"], fault("not_a_permutation"), spt_error=spt.InvalidArgumentError,
         tf="tf.sparse.transpose does not check that perm is a permutation: perm [1, 1] copies dim 1 twice and "
            "returns a tensor whose indices and shape no longer describe the input",
         reason="include/spt.h (spt_transpose): perm must be a permutation of the dims, else an invalid argument"),
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
    "add-int-min", ["add"], lambda c: bool(both_held_min(c)), check=check_add_int_min,
    tf="SparseAdd keeps a sum s iff thresh <= std::abs(s); for int32/int64 a sum equal to the minimum "
       "(-2^31, -2^63) has no representable absolute value (undefined behaviour; in practice negative), so TF "
       "drops it even with threshold 0",
    reason="spt compares |s| exactly (|MIN| = 2^(n-1) >= any threshold of the type), so it keeps the entry; "
           "checked: spt's result minus those entries equals TF's"))

# The hostile inputs (hostile.py) are judged by their own vectors: tests/conformance/bad_inputs.jsonl gives the
# class spt must raise for each, and its `why` says why; hostile.py prints every vector where TF accepts
# what spt rejects, or crashes on it.
HOSTILE_VECTORS = Rule(
    "hostile-vectors", ["hostile"], lambda c: False,
    tf="TF accepts some advisory inputs (unchecked reorder/slice/concat/add indices, volume overflow in "
       "SparseReorder) and still crashes on others (SparseTensorDenseMatMul with a negative dim aborts in 2.21)",
    reason="each vector's `why` in tests/conformance/bad_inputs.jsonl (spec/bad_inputs.md section 5)")

def compress_case(case):
    """The case with every huge dim compressed: the coordinates used in that dim (over all operands) are
    renumbered 0, 1, ... in order and the dim becomes their count. Ops that pass coordinates through (or
    only compare and group them) give the same result up to that renumbering."""
    import copy

    sps = sparse_args(case)
    hd = sorted(set(d for s in sps for d in getattr(s, "huge_dims", [])))
    maps = {}
    for d in hd:
        vals = sorted(set(int(v) for s in sps for v in s.indices[:, d].tolist()))
        maps[d] = vals
    c2 = copy.copy(case)
    c2.args = {}

    def comp(s):
        ix = s.indices.copy()
        sh = s.shape.copy()
        for d, vals in maps.items():
            lut = {v: i for i, v in enumerate(vals)}
            ix[:, d] = [lut[int(v)] for v in s.indices[:, d]]
            sh[d] = max(1, len(vals))
        return Sp(ix, s.values, sh, s.dtype)

    for k, v in case.args.items():
        if isinstance(v, Sp):
            v = comp(v)
        elif isinstance(v, list) and v and isinstance(v[0], Sp):
            v = [comp(s) for s in v]
        c2.args[k] = v
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

    x = c.x
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
    transform=lambda c: p1_transform(c), untransform=expand_out,
    tf="kernels that build a TensorShape from the sparse shape reject a volume above 2^63-1 (\"Encountered "
       "overflow when multiplying\"), SparseSlice included in 2.21 (the conformance README says it does not); "
       "SparseReorder and tf.sparse.reset_shape take it (and are compared directly)",
    reason="conformance README policy 1: a shape is valid when every dim is in [0, 2^63-1], its volume need "
           "not fit (FROSTT tensors); ops that materialize nothing dense work on it. Checked: spt equals TF on "
           "the case with each huge dim compressed to the coordinates it uses (renumbered in order), the "
           "coordinates and dims then put back"))

RULES_LIST += [
    Rule("P1-pending", ["reorder", "concat", "split", "slice", "retain", "reset_shape", "transpose",
                        "reduce_sum_sparse", "reduce_max_sparse", "add", "maximum", "minimum", "softmax"],
         lambda c: getattr(c, "huge", False) and huge_volume(c) and not harness.ANY_VOLUME,
         spt_error=spt.OverflowError,
         tf="SparseReorder and SparseSlice take a shape whose volume exceeds int64; other kernels reject it",
         reason="a libspt from before the any-volume policy documents that a shape's volume must fit "
                "in int64 (include/spt.h, SPT_EOVERFLOW); the harness switches to P1-any-volume as soon as the "
                "library takes such a shape"),
    Rule("P1-slice", ["slice"], lambda c: getattr(c, "huge", False) and huge_volume(c) and harness.ANY_VOLUME,
         check=check_slice,
         tf="SparseSlice rejects a shape whose volume exceeds int64 (\"Encountered overflow when multiplying\")",
         reason="conformance README policy 1 (slice materializes nothing dense); checked against a reference with "
                "exact integers"),
    Rule("slice-end-overflow", ["slice"], lambda c: c.fault is None and slice_overflows(c) and
         (harness.ANY_VOLUME or not huge_volume(c)), check=check_slice,
         tf="SparseSlice computes start + size in int64: when it overflows (start 7.9e18, size 2^63-1) the end "
            "wraps negative and the slice comes back empty",
         reason="spec/bad_inputs.md section 5 rule 7: the end is clamped to the dim without overflow; checked "
                "against a reference with exact integers"),
]

def check_div_min(spec, c, out):
    """Integer division truncating toward zero, MIN / -1 = MIN (wraps), at the stored entries."""
    from harness import SpOut
    from ops import cwise_other

    a = c.a.values.astype(object)
    b = cwise_other(c).astype(object)
    q = []
    for x, y in zip(a, b):
        if y == 0:
            return "divisor 0 in a MIN / -1 case (the generator marks those as faults)"
        v = abs(int(x)) // abs(int(y)) * (1 if (x >= 0) == (y > 0) else -1)
        q.append(v)
    bits = np.iinfo(c.dtype).bits
    q = [((v + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1) for v in q]
    return compare(SpOut(c.a.indices, np.array(q, dtype=c.dtype), c.a.shape), out, c.dtype, 0.0)


RULES_LIST += [
    Rule("cwise-div-min", ["sparse_dense_cwise_div"], lambda c: c.fault is None and in_bounds(c.a) and
         __import__("ops").div_min_by_minus_one(c), check=check_div_min,
         tf="SparseDenseCwiseDiv dies with SIGFPE when an int32/int64 value MIN meets the divisor -1 (the x86 "
            "division traps); the harness runs TF in a subprocess for such a case and records the crash",
         reason="include/spt.h (SparseDenseCwise*): integer division truncates toward zero and MIN / -1 wraps to "
                "MIN, as TF's other integer arithmetic wraps; checked against exact integer arithmetic"),
]

RULES_LIST += [
    Rule("add-nan-thresh", ["add"], fault("nan_threshold"), spt_error=spt.InvalidArgumentError,
         tf="tf.sparse.add with a NaN threshold runs: no sum passes thresh <= |a + b|, so every entry held by "
            "both operands silently disappears",
         reason="include/spt.h (spt_add): a NaN threshold is an invalid argument (it cannot be what the caller "
                "meant)"),
]

# rules are tried in this order; the first whose condition holds decides
_FIRST = ["P1-pending", "add-nan-thresh", "add-int-min", "reduce_max-nan", "P1-any-volume", "slice-end-overflow"]
RULES_LIST.sort(key=lambda r: _FIRST.index(r.id) if r.id in _FIRST else len(_FIRST))

RULES_BY_ID = {r.id: r for r in RULES_LIST}


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
    unused = [r.id for r in RULES_LIST if r.id not in RULES.hits]
    if unused:
        print("rules that fired on no case in this run: %s" % ", ".join(unused))


def table():
    """The rules as text (python tests/tf/rules.py prints them)."""
    out = []
    for r in RULES_LIST + [HOSTILE_VECTORS]:
        out.append("%s  [%s]\n  TF:  %s\n  spt: %s\n  why: %s" % (
            r.id, ", ".join(sorted(r.ops)), r.tf,
            "raises %s" % r.spt_error.__name__ if r.spt_error else
            ("succeeds; checked as stated under why" if r.check else "equals TF on the transformed input"),
            r.reason))
    return "\n".join(out)


if __name__ == "__main__":
    print(table())
