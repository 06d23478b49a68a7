# SPDX-License-Identifier: Apache-2.0
"""The op table of the differential test: one OpSpec per op that spt and TensorFlow both have and whose spec
tests/tf/derive.py does not derive from src/ops/ops.def (a row marked TF, its Python function tf.sparse's
of the same name, its parameters all of the kinds derive.py draws: expand_dims is one). A spec here
overrides the derived one and is needed when the op does more: huge shapes, faults of its own, raw ops,
TensorFlow functions outside tf.sparse, gradients.

An op registers with one entry in SPECS:
    OpSpec(name, gen, tf_call, spt_call, dtypes=..., covers=[spt function names it exercises])
gen(rng, dtype) -> Case (or None to draw again); tf_call(case) and spt_call(case) -> the results (sparse
tensors, numpy arrays, or lists of them), compared by harness.compare. A generator that puts a fault into
a case sets case.fault (its name, for rules.py) and case.expect (the spt error class spt must raise when
TensorFlow raises too). spt is called through its public API with TensorFlow 2's keyword names.
"""
import numpy as np
import tensorflow as tf

import spt
from harness import (ALL, FLOATS, NUMBER, REAL, Case, Sp, gen_huge_sparse, gen_shape, gen_sparse, gen_values,
                     inject_bad_index, from_tf,
                     npdt, tfdt, SpOut)

P_FAULT = 0.15
P_HUGE = 0.06  # share of cases whose shapes have a volume above int64 (spt's any-volume policy)


class OpSpec:
    def __init__(self, name, gen, tf_call, spt_call, dtypes=ALL, covers=None, needs=None, tf_unsafe=None,
                 stands_for=None):
        self.name = name
        # the ops.def rows (C functions) whose derived spec this one replaces: None, every row of the Python
        # functions it covers; [] for a variant run beside the derived spec (an operand order, say)
        self.stands_for = stands_for
        self.tf_unsafe = tf_unsafe or (lambda case: False)  # True: TF may crash on it, run in a subprocess
        self.gen = gen
        self.tf = tf_call
        self.spt = spt_call
        self.dtypes = dtypes
        self.covers = covers or [name]
        self.needs = needs or self.covers

    def fault_can_hide_dtype(self, case):
        return False


def maybe_bad_index(rng, c, *keys):
    """With probability P_FAULT, one sparse operand gets an index outside its shape."""
    if rng.random() < P_FAULT:
        k = keys[int(rng.integers(0, len(keys)))]
        sp = c.args[k]
        if isinstance(sp, list):
            j = int(rng.integers(0, len(sp)))
            bad = inject_bad_index(rng, sp[j])
            if bad is not None:
                sp[j] = bad
        else:
            bad = inject_bad_index(rng, sp)
            if bad is not None:
                c.args[k] = bad
        if bad is not None and c.fault is None:
            c.fault, c.expect = "bad_index", spt.OutOfRangeError
    return c


def bad_axis(rng, rank):
    return [rank, rank + 1, -rank - 1, -rank - 3, 2 ** 40][int(rng.integers(0, 5))]


def put_subnormal(rng, v, p=0.12):
    """With probability p, one float (or complex) value becomes a subnormal (rule subnormal-kept)."""
    if v.size and v.dtype.kind in "fc" and rng.random() < p:
        part = np.float32 if v.dtype in (np.float32, np.complex64) else np.float64
        sub = np.finfo(part).smallest_subnormal * int(rng.integers(1, 1000)) * (1 if rng.random() < 0.5 else -1)
        v.reshape(-1)[int(rng.integers(0, v.size))] = sub
    return v


def scalar(rng, dt):
    v = gen_values(rng, dt, 1)[0]
    return v


# ---- layout ops ------------------------------------------------------------------------------------

def huge(rng):
    return rng.random() < P_HUGE


def g_reorder(rng, dt):
    if huge(rng):
        return Case(dt, x=gen_huge_sparse(rng, dt), huge=True)
    return maybe_bad_index(rng, Case(dt, x=gen_sparse(rng, dt)), "x")


def g_to_dense(rng, dt):
    c = Case(dt, x=gen_sparse(rng, dt), default=scalar(rng, dt) if rng.random() < 0.6 else None,
             validate=bool(rng.random() < 0.6))
    return maybe_bad_index(rng, c, "x")


def tf_to_dense(c):
    kw = {} if c.default is None else {"default_value": tf.constant(c.default, tfdt(c.dtype))}
    return tf.sparse.to_dense(c.x.tf(), validate_indices=c.validate, **kw)


def spt_to_dense(c):
    kw = {} if c.default is None else {"default_value": c.default}
    return spt.to_dense(c.x.spt(), validate_indices=c.validate, **kw)


def g_concat(rng, dt):
    if huge(rng):
        rank = int(rng.integers(2, 6))
        axis = int(rng.integers(-rank, rank))
        x = gen_huge_sparse(rng, dt, rank=rank, small_dims=(axis % rank,))
        sps = [x]
        for _ in range(int(rng.integers(0, 3))):
            s2 = x.shape.copy()
            s2[axis] = rng.integers(0, 8)
            sps.append(gen_huge_sparse(rng, dt, shape=s2, huge_dims=x.huge_dims))
        return Case(dt, axis=axis, sps=sps, expand=bool(rng.random() < 0.3), huge=True)
    rank = int(rng.integers(1, 6))
    k = int(rng.integers(1, 5))
    base = gen_shape(rng, rank)
    axis = int(rng.integers(-rank, rank))
    expand = bool(rng.random() < 0.3)
    sps = []
    for _ in range(k):
        s = base.copy()
        s[axis] = rng.integers(0, 8)
        if expand:
            s = gen_shape(rng, rank)
        sps.append(gen_sparse(rng, dt, shape=s))
    c = Case(dt, axis=axis, sps=sps, expand=expand)
    r = rng.random()
    if r < 0.1:
        c.args["axis"] = bad_axis(rng, rank)
        c.fault, c.expect = ("axis_single" if k == 1 else "bad_axis"), spt.OutOfRangeError
    elif r < 0.15 and k > 1 and not expand:
        j = int(rng.integers(1, k))
        s = sps[j].shape.copy()
        others = [d for d in range(rank) if d != axis % rank]
        if others:
            d = others[int(rng.integers(0, len(others)))]
            s[d] += 1
            sps[j] = gen_sparse(rng, dt, shape=s)
            c.fault, c.expect = "shape_mismatch", spt.InvalidArgumentError
    elif r < 0.2 and k > 1:
        j = int(rng.integers(1, k))
        sps[j] = gen_sparse(rng, dt, rank=(rank % 5) + 1)
        c.fault, c.expect = "rank_mismatch", spt.InvalidArgumentError
    else:
        maybe_bad_index(rng, c, "sps")
    return c


def g_split(rng, dt):
    if huge(rng):
        rank = int(rng.integers(2, 6))
        axis = int(rng.integers(0, rank))
        x = gen_huge_sparse(rng, dt, rank=rank, small_dims=(axis,))
        dim = int(x.shape[axis])
        return Case(dt, x=x, axis=axis - (rank if rng.random() < 0.3 else 0), n=int(rng.integers(1, dim + 1)), huge=True)
    x = gen_sparse(rng, dt, rmin=1)
    rank = x.rank
    axis = int(rng.integers(-rank, rank))
    dim = int(x.shape[axis])
    c = Case(dt, x=x, axis=axis, n=int(rng.integers(1, dim + 1)) if dim else 1)
    r = rng.random()
    if r < 0.08:
        c.args["axis"] = bad_axis(rng, rank)
        c.fault, c.expect = "bad_axis", spt.OutOfRangeError
    elif r < 0.16:
        c.args["n"] = [0, dim + 1, -1][int(rng.integers(0, 3))]
        c.fault, c.expect = "bad_num_split", spt.InvalidArgumentError
    else:
        maybe_bad_index(rng, c, "x")
    return c


def g_reset_shape(rng, dt):
    if huge(rng):
        x = gen_huge_sparse(rng, dt)
        return Case(dt, x=x, new_shape=None if rng.random() < 0.5 else
                    np.minimum(x.shape + rng.integers(0, 3, x.rank), 2 ** 63 - 1), huge=True)
    x = gen_sparse(rng, dt)
    r = rng.random()
    if r < 0.3:
        ns = None
    else:
        ns = x.shape + rng.integers(0, 3, x.rank)
    c = Case(dt, x=x, new_shape=ns)
    if r > 0.88 and x.rank and x.shape.max() > 0:
        ns = x.shape.copy()
        d = int(np.argmax(x.shape))
        ns[d] -= 1
        c.args["new_shape"] = ns
        c.fault, c.expect = "shrink", spt.InvalidArgumentError
    else:
        maybe_bad_index(rng, c, "x")
    return c


def g_fill_empty_rows(rng, dt):
    x = gen_sparse(rng, dt, rmin=0 if rng.random() < 0.05 else 1)  # rank 0: no rows to fill (both refuse)
    return maybe_bad_index(rng, Case(dt, x=x, default=scalar(rng, dt)), "x")


def tf_fill_empty_rows(c):
    ix, v, sh = c.x.raw()
    oi, ov, eri, rim = tf.raw_ops.SparseFillEmptyRows(indices=ix, values=v, dense_shape=sh,
                                                      default_value=tf.constant(c.default, tfdt(c.dtype)))
    return [SpOut(oi.numpy(), ov.numpy(), sh.numpy()), eri, rim]


def g_transpose(rng, dt):
    if huge(rng):
        x = gen_huge_sparse(rng, dt)
        return Case(dt, x=x, perm=None if rng.random() < 0.25 else rng.permutation(x.rank).astype(np.int64), huge=True)
    x = gen_sparse(rng, dt)
    perm = None if rng.random() < 0.25 else rng.permutation(x.rank).astype(np.int64)
    c = Case(dt, x=x, perm=perm)
    r = rng.random()
    if r < 0.06 and x.rank >= 2:
        p = np.arange(x.rank)
        p[0] = p[1]
        c.args["perm"] = p
        c.fault, c.expect = "not_a_permutation", spt.InvalidArgumentError
    elif r < 0.1 and x.rank >= 1:
        p = np.arange(x.rank)
        p[-1] = x.rank
        c.args["perm"] = p
        c.fault = "perm_out_of_range"
    else:
        maybe_bad_index(rng, c, "x")
    return c


# ---- math ops --------------------------------------------------------------------------------------

def g_reduce(rng, dt, sparse_out=False):
    # huge shapes only with a sparse output: a dense one of a huge shape is not for TF's process
    x = gen_huge_sparse(rng, dt) if sparse_out and huge(rng) else gen_sparse(rng, dt)
    r = rng.random()
    if r < 0.2:
        axis = None
    elif r < 0.55 and x.rank:
        axis = int(rng.integers(-x.rank, x.rank))
    else:
        k = int(rng.integers(0, x.rank + 1))
        axis = [int(a) - (x.rank if rng.random() < 0.3 else 0) for a in rng.permutation(x.rank)[:k]]
    c = Case(dt, x=x, axis=axis, keepdims=bool(rng.random() < 0.4))
    if hasattr(x, "huge_dims"):
        c.huge = True
    elif rng.random() < 0.08:
        c.args["axis"] = bad_axis(rng, x.rank)
        c.fault, c.expect = "bad_axis", spt.OutOfRangeError
    else:
        maybe_bad_index(rng, c, "x")
    return c


def tf_reduce(fn, sparse_out):
    def call(c):
        return fn(c.x.tf(), axis=c.axis, keepdims=c.keepdims, output_is_sparse=sparse_out)
    return call


def spt_reduce(fn, sparse_out, kw=True):
    def call(c):
        if kw:
            return fn(c.x.spt(), axis=c.axis, keepdims=c.keepdims, output_is_sparse=sparse_out)
        return fn(c.x.spt(), axis=c.axis, keepdims=c.keepdims)
    return call


def g_add(rng, dt):
    if huge(rng):
        a = gen_huge_sparse(rng, dt, small=True)
        b = gen_huge_sparse(rng, dt, shape=a.shape, huge_dims=a.huge_dims, small=True)
        thr = 0.0 if rng.random() < 0.5 else float(rng.integers(0, 4))
        return Case(dt, a=a, b=b, thresh=thr, huge=True)
    a = gen_sparse(rng, dt, small=rng.random() < 0.5)
    b = gen_sparse(rng, dt, shape=a.shape, small=rng.random() < 0.5)
    r = rng.random()
    if npdt(dt).kind in "iu":
        # TF converts the threshold to the values' dtype: an int, -1 keeps every sum, the dtype's max drops
        # them; a float (0.5, 1.0, inf, NaN) is TF's TypeError and spt's DtypeError
        # (int64: 2^62, exact in the double spt_add takes, and 2^53 + 1, which is not: rule add-thresh-double)
        big = [2 ** 62, 2 ** 53 + 1][int(rng.integers(0, 2))] if dt == "int64" else int(np.iinfo(npdt(dt)).max)
        thr = [0, 0, 1, 2, 3, -1 if npdt(dt).kind == "i" else 0, big][int(rng.integers(0, 7))]
        if r < 0.1:
            thr = [0.5, 1.0, float("inf"), float("nan"), -0.0][int(rng.integers(0, 5))]
    else:
        thr = [0, 0.0, 0.5, 1.0, 1.5, -1.0, float("inf"), float("-inf"), 1e40][int(rng.integers(0, 9))]
        if r < 0.04:
            thr = float("nan")
    c = Case(dt, a=a, b=b, thresh=thr)
    if thr != thr and npdt(dt).kind in "fc":
        c.fault, c.expect = "nan_threshold", spt.InvalidArgumentError
        return c
    if isinstance(thr, float) and npdt(dt).kind in "iu":
        c.fault = "float_threshold"  # TF: TypeError before any other check; spt: DtypeError (a TypeError)
        return c
    if rng.random() < 0.08:
        c.args["b"] = gen_sparse(rng, dt, shape=a.shape + 1)
        c.fault, c.expect = "shape_mismatch", spt.InvalidArgumentError
    else:
        maybe_bad_index(rng, c, "a", "b")
    return c


def tf_add(c):
    return tf.sparse.add(c.a.tf(), c.b.tf(), threshold=c.thresh)


def g_add_dense(rng, dt):
    """dense + sparse (the derived spec of spt_add_dense draws sparse + dense)."""
    a = gen_sparse(rng, dt)
    d = gen_values(rng, dt, int(np.prod(a.shape))).reshape(tuple(a.shape))
    c = Case(dt, a=a, dense=d)
    if rng.random() < 0.08:
        c.args["dense"] = gen_values(rng, dt, int(np.prod(a.shape + 1))).reshape(tuple(a.shape + 1))
        c.fault, c.expect = "shape_mismatch", spt.InvalidArgumentError
    else:
        maybe_bad_index(rng, c, "a")
    return c


def tf_add_dense(c):
    return tf.sparse.add(tf.constant(c.dense, tfdt(c.dtype)), c.a.tf())


def spt_add_dense(c):
    return spt.add(c.dense, c.a.spt())


def operands(c):
    """The case's first sparse operand and its dense one (its arg `dense`, else its first numpy array), in
    the hand specs' cases and the derived ones alike."""
    sp = next(v for v in c.args.values() if isinstance(v, Sp))
    d = c.args["dense"] if "dense" in c.args else next(v for v in c.args.values() if isinstance(v, np.ndarray))
    return sp, d


def cwise_other(c):
    """The dense value each stored entry meets (the dense operand broadcast to the sparse shape)."""
    a, d = operands(c)
    d = np.asarray(d)
    if a.nnz == 0:
        return np.zeros(0, d.dtype)
    k = d.ndim
    ix = a.indices[:, a.rank - k:] if k else np.zeros((a.nnz, 0), np.int64)
    ix = np.where(np.array(d.shape) == 1, 0, ix) if k else ix
    ok = np.all((ix >= 0) & (ix < np.array(d.shape)), axis=1) if k else np.ones(a.nnz, bool)
    out = np.zeros(a.nnz, d.dtype)
    out[ok] = d[tuple(ix[ok].T)] if k else d[()]
    return out


def div_min_by_minus_one(c):
    """An int32/int64 entry MIN meets the divisor -1 (TF's SparseDenseCwiseDiv dies of SIGFPE there)."""
    a, d = operands(c)
    if c.dtype not in ("int32", "int64", "int8", "int16") or a.nnz == 0:
        return False
    if np.asarray(d).ndim > a.rank:
        return False
    try:
        other = cwise_other(c)
    except (IndexError, ValueError):
        return False
    return bool(np.any((a.values == np.iinfo(c.dtype).min) & (other == -1)))


def g_minmax(rng, dt):
    if huge(rng):
        a = gen_huge_sparse(rng, dt)
        return Case(dt, a=a, b=gen_huge_sparse(rng, dt, shape=a.shape, huge_dims=a.huge_dims), huge=True)
    a = gen_sparse(rng, dt)
    b = gen_sparse(rng, dt, shape=a.shape)
    c = Case(dt, a=a, b=b)
    if rng.random() < 0.08:
        c.args["b"] = gen_sparse(rng, dt, shape=a.shape + 1)
        c.fault, c.expect = "shape_mismatch", spt.InvalidArgumentError
    else:
        maybe_bad_index(rng, c, "a", "b")
    return c


def g_softmax(rng, dt):
    if huge(rng):
        return Case(dt, x=gen_huge_sparse(rng, dt, rank=int(rng.integers(2, 6))), huge=True)
    x = gen_sparse(rng, dt, rmin=2 if rng.random() < 0.95 else 0)
    c = Case(dt, x=x)
    if x.rank < 2:
        c.fault, c.expect = "rank", spt.InvalidArgumentError
    return maybe_bad_index(rng, c, "x")


def g_matmul_dense_first(rng, dt):
    """op(D) @ op(S): D a dense (p, q) matrix (stored (q, p) with adjoint_a), S a sparse (q, r) one
    (stored (r, q) with adjoint_b)."""
    p, q, r = (int(v) for v in rng.integers(0, 8, 3))
    aa, ab = bool(rng.random() < 0.3), bool(rng.random() < 0.3)
    d = gen_values(rng, dt, p * q, small=True).reshape((q, p) if aa else (p, q))
    s = gen_sparse(rng, dt, shape=[r, q] if ab else [q, r], small=True)
    c = Case(dt, a=s, b=d, adjoint_a=aa, adjoint_b=ab, dense_first=True)
    if rng.random() < 0.07:
        c.args["b"] = gen_values(rng, dt, p * (q + 1), small=True).reshape((q + 1, p) if aa else (p, q + 1))
        c.fault, c.expect = "shape_mismatch", spt.InvalidArgumentError
    else:
        maybe_bad_index(rng, c, "a")
    return c


def tf_matmul(c):
    if c.dense_first:
        return tf.sparse.sparse_dense_matmul(tf.constant(c.b, tfdt(c.dtype)), c.a.tf(), adjoint_a=c.adjoint_a,
                                             adjoint_b=c.adjoint_b)
    return tf.sparse.sparse_dense_matmul(c.a.tf(), tf.constant(c.b, tfdt(c.dtype)), adjoint_a=c.adjoint_a,
                                         adjoint_b=c.adjoint_b)


def spt_matmul(c):
    if c.dense_first:
        return spt.sparse_dense_matmul(c.b, c.a.spt(), adjoint_a=c.adjoint_a, adjoint_b=c.adjoint_b)
    return spt.sparse_dense_matmul(c.a.spt(), c.b, adjoint_a=c.adjoint_a, adjoint_b=c.adjoint_b)


def g_matvec(rng, dt):
    m, k = (int(v) for v in rng.integers(0, 8, 2))
    aa = bool(rng.random() < 0.3)
    a = gen_sparse(rng, dt, shape=[k, m] if aa else [m, k], small=True)
    c = Case(dt, a=a, x=gen_values(rng, dt, k, small=True), adjoint_a=aa)
    return maybe_bad_index(rng, c, "a")


def tf_matvec(c):
    r = tf.sparse.sparse_dense_matmul(c.a.tf(), tf.constant(c.x.reshape(-1, 1), tfdt(c.dtype)), adjoint_a=c.adjoint_a)
    return r[:, 0]


# ---- the table -------------------------------------------------------------------------------------

SPECS = [
    OpSpec("reorder", g_reorder, lambda c: tf.sparse.reorder(c.x.tf()), lambda c: spt.reorder(c.x.spt())),
    OpSpec("to_dense", g_to_dense, tf_to_dense, spt_to_dense),
    # TF 2.21's SparseConcat dies of a CHECK failure when the output shape's volume overflows (huge shapes)
    OpSpec("concat", g_concat,
           lambda c: tf.sparse.concat(c.axis, [s.tf() for s in c.sps], expand_nonconcat_dims=c.expand),
           # spt's third parameter is TF 1's expand_nonconcat_dim: passed by position (see README in tests/tf)
           lambda c: spt.concat(c.axis, [s.spt() for s in c.sps], c.expand),
           tf_unsafe=lambda c: getattr(c, "huge", False)),
    OpSpec("split", g_split, lambda c: tf.sparse.split(sp_input=c.x.tf(), num_split=c.n, axis=c.axis),
           lambda c: spt.split(sp_input=c.x.spt(), num_split=c.n, axis=c.axis)),
    OpSpec("reset_shape", g_reset_shape, lambda c: tf.sparse.reset_shape(c.x.tf(), new_shape=c.new_shape),
           lambda c: spt.reset_shape(c.x.spt(), new_shape=c.new_shape)),
    OpSpec("fill_empty_rows", g_fill_empty_rows, tf_fill_empty_rows,
           lambda c: list(spt.fill_empty_rows(c.x.spt(), c.default, return_reverse_index_map=True))),
    OpSpec("transpose", g_transpose, lambda c: tf.sparse.transpose(c.x.tf(), perm=c.perm),
           lambda c: spt.transpose(c.x.spt(), perm=c.perm)),
    OpSpec("reduce_sum", g_reduce, tf_reduce(tf.sparse.reduce_sum, False), spt_reduce(spt.reduce_sum, False),
           dtypes=NUMBER),
    OpSpec("reduce_sum_sparse", lambda rng, dt: g_reduce(rng, dt, True), tf_reduce(tf.sparse.reduce_sum, True),
           spt_reduce(spt.reduce_sum, True), dtypes=NUMBER, covers=["reduce_sum_sparse", "reduce_sum"],
           needs=["reduce_sum"]),
    OpSpec("reduce_max", g_reduce, tf_reduce(tf.sparse.reduce_max, False), spt_reduce(spt.reduce_max, False),
           dtypes=REAL),
    OpSpec("reduce_max_sparse", lambda rng, dt: g_reduce(rng, dt, True), tf_reduce(tf.sparse.reduce_max, True),
           spt_reduce(spt.reduce_max, True), dtypes=REAL, covers=["reduce_max_sparse", "reduce_max"],
           needs=["reduce_max"]),
    OpSpec("add", g_add, tf_add, lambda c: spt.add(c.a.spt(), c.b.spt(), threshold=c.thresh), dtypes=NUMBER,
           stands_for=["spt_add"]),
    # beside the derived spec of spt_add_dense (sparse + dense): the other order, dense + sparse
    OpSpec("add_dense_first", g_add_dense, tf_add_dense, spt_add_dense, dtypes=NUMBER, covers=["add"],
           stands_for=[]),
    OpSpec("maximum", g_minmax, lambda c: tf.sparse.maximum(c.a.tf(), c.b.tf()),
           lambda c: spt.maximum(c.a.spt(), c.b.spt()), dtypes=REAL),
    OpSpec("minimum", g_minmax, lambda c: tf.sparse.minimum(c.a.tf(), c.b.tf()),
           lambda c: spt.minimum(c.a.spt(), c.b.spt()), dtypes=REAL),
    OpSpec("softmax", g_softmax, lambda c: tf.sparse.softmax(c.x.tf()), lambda c: spt.softmax(c.x.spt()),
           dtypes=FLOATS),
    # beside the derived spec (sparse @ dense): the other order, dense @ sparse
    OpSpec("sparse_dense_matmul_dense_first", g_matmul_dense_first, tf_matmul, spt_matmul, dtypes=NUMBER,
           covers=["sparse_dense_matmul"], stands_for=[]),
    OpSpec("sparse_dense_matvec", g_matvec, tf_matvec,
           lambda c: spt.sparse_dense_matvec(c.a.spt(), c.x, adjoint_a=c.adjoint_a), dtypes=NUMBER),
]


# ---- the rest of tf.sparse, the unary math on SparseTensor values, embeddings -------------------
# Generators draw valid inputs in the form TensorFlow's kernels assume (rows in order where they need it);
# the error paths of these ops are pinned by tests/conformance (tf_ops_v2.jsonl) and python/tests.

UNARY_TF = {"abs": tf.math.abs, "negative": tf.math.negative, "sign": tf.math.sign, "square": tf.math.square,
            "sqrt": tf.math.sqrt, "rsqrt": tf.math.rsqrt, "exp": tf.math.exp, "log1p": tf.math.log1p,
            "sin": tf.math.sin, "tan": tf.math.tan, "asin": tf.math.asin, "atan": tf.math.atan,
            "asinh": tf.math.asinh, "atanh": tf.math.atanh, "tanh": tf.math.tanh, "erf": tf.math.erf,
            "floor": tf.math.floor, "ceil": tf.math.ceil, "round": tf.math.round, "ones_like": tf.ones_like}
INT_UNARY = {"abs", "negative", "sign", "square", "ones_like"}


def g_unary(rng, dt):
    x = gen_sparse(rng, dt)
    x.values = gen_values(rng, dt, x.nnz, special=0, small=True)  # boundary values: C tests pin them
    return Case(dt, x=x)


def g_exp(rng, dt):
    c = g_unary(rng, dt)
    # |x| <= 4: the comparison's tolerance scales with the inputs, exp's rounding (1 ulp) with its output
    c.x.values = np.clip(c.x.values, -4, 4).astype(c.x.values.dtype)
    return c


def unary_spec(name):
    return OpSpec(name, g_exp if name == "exp" else g_unary, lambda c: tf.sparse.map_values(UNARY_TF[name], c.x.tf()),
                  lambda c: spt.map_values(getattr(spt, name), c.x.spt()),
                  dtypes=FLOATS + (["int32", "int64"] if name in INT_UNARY else []),
                  covers=[name, "map_values"] if name == "abs" else [name], stands_for=[])


def g_cast(rng, dt):
    c = g_unary(rng, dt)
    c.args["to"] = REAL[int(rng.integers(0, len(REAL)))]
    if np.dtype(c.args["to"]).kind == "u":
        c.x.values = np.abs(c.x.values)  # a negative value into an unsigned type: platform-defined in TF
    return c


def g_bincount(rng, dt):
    sparse = rng.random() < 0.5
    if sparse:
        v = gen_sparse(rng, dt, rank=int(rng.integers(1, 3)), mode="sorted", dmin=1)
        v.values = rng.integers(0, 9, v.nnz).astype(np.dtype(dt))
        w = Sp(v.indices, gen_values(rng, "float32", v.nnz, special=0, small=True), v.shape, "float32")
    else:
        shape = gen_shape(rng, int(rng.integers(1, 3)), 1, 6)
        v = rng.integers(0, 9, tuple(shape)).astype(np.dtype(dt))
        w = gen_values(rng, "float32", v.size, special=0, small=True).reshape(v.shape)
    if not sparse and rng.random() < 0.08:  # zero rows (rule bincount-zero-rows with axis -1)
        v = np.zeros((0, int(rng.integers(0, 4))), np.dtype(dt))
        w = np.zeros(v.shape, np.float32)
    binary = rng.random() < 0.3
    # the lengths at their boundaries: None, -1 (TF's "not given"), 0 (maxlength 0 keeps nothing), small,
    # minlength above maxlength
    lengths = [None, None, None, -1, 0, 1, 3, 11]
    c = Case(dt, v=v, w=None if binary or rng.random() < 0.5 else w,
             axis=[0, -1, 0, -1, None][int(rng.integers(0, 5))],
             minlength=lengths[int(rng.integers(0, len(lengths)))],
             maxlength=lengths[int(rng.integers(0, len(lengths)))], binary=binary)
    r = rng.random()
    vals = v.values if isinstance(v, Sp) else v
    if r < 0.06 and vals.size and np.dtype(dt).kind == "i":
        vals.reshape(-1)[int(rng.integers(0, vals.size))] = -int(rng.integers(1, 3))  # TF: InvalidArgument
        c.fault = "negative_value"
    elif r < 0.1:
        c.args["axis"] = [1, -2, 2][int(rng.integers(0, 3))]  # TF's Python layer: ValueError
        c.fault = "bad_axis_value"
    return c


# Functions given to map_values: each works on numpy arrays and TensorFlow tensors alike; TF calls it once on
# the values tensor, spt once on the values array. (name, function, number of sparse arguments, the dtype
# kinds it is not drawn for)
MAP_FNS = [
    ("v * 2 + 1", lambda v: v * 2 + 1, 1, ""),
    ("v * v - v", lambda v: v * v - v, 1, ""),
    ("abs(v)", lambda v: abs(v), 1, "u"),  # TF has no Abs of unsigned types
    ("v > 1", lambda v: v > 1, 1, "c"),  # complex values have no order
    ("v[::-1]", lambda v: v[::-1], 1, ""),
    ("v[1:] (one short)", lambda v: v[1:], 1, ""),
    ("x * y + x", lambda x, y: x * y + x, 2, ""),
]


def g_map_fn(rng, dt):
    """map_values with a function of the caller's (MAP_FNS) or spt's / TF's multiply and add with a scalar of
    the values' dtype (complex included); any rank, zero-size dims."""
    x = gen_sparse(rng, dt)
    if rng.random() < 0.3:
        return Case(dt, x=x, known=["multiply", "add"][int(rng.integers(0, 2))], scalar=gen_values(rng, dt, 1)[0])
    fns = [k for k, f in enumerate(MAP_FNS) if npdt(dt).kind not in f[3]]
    k = fns[int(rng.integers(0, len(fns)))]
    y = Sp(x.indices, gen_values(rng, dt, x.nnz), x.shape, dt)
    c = Case(dt, x=x, y=y, fn=k)
    if MAP_FNS[k][0].endswith("(one short)") and x.nnz:
        c.fault = "result_length"  # TF: a SparseTensor with one value fewer than indices (ValueError)
    return c


def map_fn_call(c, lib):
    conv = Sp.tf if lib is tf else Sp.spt
    if "known" in c.args:
        f = getattr(tf.math, c.known) if lib is tf else getattr(spt.math, c.known)
        return lib.sparse.map_values(f, conv(c.x), c.scalar) if lib is tf else spt.map_values(f, conv(c.x), c.scalar)
    name, f, nargs, _ = MAP_FNS[c.fn]
    args = [conv(c.x)] + ([conv(c.y)] if nargs == 2 else [])
    return tf.sparse.map_values(f, *args) if lib is tf else spt.map_values(f, *args)


def g_from_tf(rng, dt):
    return Case(dt, x=gen_sparse(rng, dt))


def _tf_or_np(x, f):
    return f(x) if isinstance(x, Sp) else (None if x is None else tf.constant(x) if f is Sp.tf else x)


def bincount_call(lib):
    def call(c):
        f = Sp.tf if lib is tf else Sp.spt
        return lib.sparse.bincount(_tf_or_np(c.v, f), weights=_tf_or_np(c.w, f), axis=c.axis,
                                   minlength=c.minlength, maxlength=c.maxlength, binary_output=c.binary) \
            if lib is tf else spt.bincount(_tf_or_np(c.v, f), weights=_tf_or_np(c.w, f), axis=c.axis,
                                           minlength=c.minlength, maxlength=c.maxlength, binary_output=c.binary)
    return call


def g_mask(rng, dt):
    n = int(rng.integers(0, 8))
    vals = gen_values(rng, dt, 2 * n, special=0).reshape(n, 2)
    return Case(dt, ix=rng.integers(0, 6, n).astype(np.int64), vals=vals,
                m=rng.integers(0, 6, int(rng.integers(0, 4))).astype(np.int64))


def tf_mask(c):
    r = tf.sparse.mask(tf.IndexedSlices(tf.constant(c.vals, tfdt(c.dtype)), tf.constant(c.ix),
                                        tf.constant([6, 2], tf.int64)), tf.constant(c.m))
    return [r.values, r.indices]


def spt_mask(c):
    r = spt.mask(spt.IndexedSlices(c.vals, c.ix, [6, 2]), c.m)
    return [r.values, r.indices]


SPECS += [
    OpSpec("mask", g_mask, tf_mask, spt_mask, dtypes=NUMBER),
] + [unary_spec(n) for n in UNARY_TF] + [
    # beside the derived spec (a function of MAP_FNS): spt's and TF's multiply and add with a scalar too
    OpSpec("map_values_fns", g_map_fn, lambda c: map_fn_call(c, tf), lambda c: map_fn_call(c, spt), dtypes=NUMBER,
           covers=["map_values"], stands_for=[]),
    OpSpec("from_tf", g_from_tf, lambda c: c.x.tf(), lambda c: from_tf(spt.to_tf(spt.from_tf(c.x.tf()))),
           covers=["from_tf", "to_tf"]),
    OpSpec("cast", g_cast, lambda c: tf.sparse.map_values(tf.cast, c.x.tf(), tfdt(c.to)),
           lambda c: spt.map_values(spt.cast, c.x.spt(), npdt(c.to)), dtypes=REAL),
    OpSpec("bincount", g_bincount, bincount_call(tf), bincount_call(spt), dtypes=["int32", "int64"]),
]


# ---- gradient kernels -------------------------------------------------------------------------
# TensorFlow's own backward ops where it has them as raw ops (SparseAddGrad, SparseSliceGrad,
# SparseFillEmptyRowsGrad), else the gradient TensorFlow registers for the forward op, taken with
# tf.GradientTape with respect to the values (loss = sum(weights * output)). spt's kernels are float32 /
# float64 only; operands are unique and row-major, as TensorFlow's merge-based kernels assume.

def _flat(sp):
    return np.ravel_multi_index(tuple(sp.indices.T), tuple(sp.shape)) if sp.nnz else np.zeros(0, np.int64)


def g_add_grad(rng, dt):
    a = gen_sparse(rng, dt, rmin=1, rmax=4, mode="sorted", small=True)
    b = gen_sparse(rng, dt, shape=a.shape, mode="sorted", small=True)
    n = len(np.union1d(_flat(a), _flat(b)))  # the sum's entries (threshold 0 keeps every one)
    return Case(dt, a=a, b=b, g=gen_values(rng, dt, n, small=True))


def tf_add_grad(c):
    s = tf.sparse.add(c.a.tf(), c.b.tf())
    return list(tf.raw_ops.SparseAddGrad(backprop_val_grad=tf.constant(c.g, tfdt(c.dtype)),
                                         a_indices=c.a.indices, b_indices=c.b.indices, sum_indices=s.indices))


def spt_add_grad(c):
    a, b = c.a.spt(), c.b.spt()
    return list(spt.add_grad(c.g, a, b, spt.add(a, b)))


def g_slice_grad(rng, dt):
    x = gen_sparse(rng, dt, rmin=1, rmax=4, mode="sorted", small=True)
    start = np.array([int(rng.integers(0, d + 1)) for d in x.shape], np.int64)
    size = np.array([int(rng.integers(0, d - s + 1)) for d, s in zip(x.shape, start)], np.int64)
    inside = int(np.sum(np.all((x.indices >= start) & (x.indices < start + size), axis=1))) if x.nnz else 0
    return Case(dt, x=x, start=start, size=size, g=gen_values(rng, dt, inside, small=True))


def tf_slice_grad(c):
    out = tf.sparse.slice(c.x.tf(), c.start, c.size)
    return tf.raw_ops.SparseSliceGrad(backprop_val_grad=tf.constant(c.g, tfdt(c.dtype)), input_indices=c.x.indices,
                                      input_start=c.start, output_indices=out.indices)


def spt_slice_grad(c):
    x = c.x.spt()
    return spt.slice_grad(c.g, x, c.start, spt.slice(x, c.start, c.size))


def g_fill_grad(rng, dt):
    n = int(rng.integers(0, 10))
    m = n + int(rng.integers(0, 5))  # the output has the input's entries and the filled rows
    rim = rng.permutation(m)[:n].astype(np.int64)
    return Case(dt, rim=rim, g=gen_values(rng, dt, m, small=True))


def g_sdmm_grad(rng, dt):
    m, k, n = (int(v) for v in rng.integers(0, 6, 3))
    aa, ab = bool(rng.random() < 0.3), bool(rng.random() < 0.3)
    a = gen_sparse(rng, dt, shape=[k, m] if aa else [m, k], mode="sorted", small=True)
    b = gen_values(rng, dt, k * n, small=True).reshape((n, k) if ab else (k, n))
    return Case(dt, a=a, b=b, adjoint_a=aa, adjoint_b=ab, w=gen_values(rng, dt, m * n, small=True).reshape(m, n))


def tf_sdmm_grad(c):
    vals, b = tf.constant(c.a.values, tfdt(c.dtype)), tf.constant(c.b, tfdt(c.dtype))
    with tf.GradientTape() as tape:
        tape.watch([vals, b])
        out = tf.sparse.sparse_dense_matmul(tf.sparse.SparseTensor(c.a.indices, vals, c.a.shape), b,
                                            adjoint_a=c.adjoint_a, adjoint_b=c.adjoint_b)
        loss = tf.reduce_sum(out * tf.constant(c.w, tfdt(c.dtype)))
    ga, gb = tape.gradient(loss, [vals, b])
    return [ga if ga is not None else tf.zeros_like(vals), gb if gb is not None else tf.zeros_like(b)]


def spt_sdmm_grad(c):
    return list(spt.sparse_dense_matmul_grad(c.a.spt(), c.b, c.w, adjoint_a=c.adjoint_a, adjoint_b=c.adjoint_b))


def g_reduce_sum_grad(rng, dt):
    # dims >= 1: TensorFlow's registered gradients of SparseReduceSum and SparseSoftmax fail on a
    # zero-sized dim (a FloorDiv by zero, a refused broadcast) where the forward op succeeds
    x = gen_sparse(rng, dt, rmin=1, rmax=4, dmin=1, mode="sorted", small=True)
    axis = None if rng.random() < 0.3 else int(rng.integers(0, x.rank))
    keepdims = bool(rng.random() < 0.5)
    oshape = [1] * x.rank if axis is None and keepdims else [] if axis is None else \
        [1 if d == axis else int(s) for d, s in enumerate(x.shape)] if keepdims else \
        [int(s) for d, s in enumerate(x.shape) if d != axis]
    w = gen_values(rng, dt, int(np.prod(oshape)), small=True).reshape(oshape)
    return Case(dt, x=x, axis=axis, keepdims=keepdims, w=w)


def tf_reduce_sum_grad(c):
    vals = tf.constant(c.x.values, tfdt(c.dtype))
    with tf.GradientTape() as tape:
        tape.watch(vals)
        out = tf.sparse.reduce_sum(tf.sparse.SparseTensor(c.x.indices, vals, c.x.shape), axis=c.axis,
                                   keepdims=c.keepdims)
        loss = tf.reduce_sum(out * tf.constant(c.w, tfdt(c.dtype)))
    g = tape.gradient(loss, vals)
    return g if g is not None else tf.zeros_like(vals)


def spt_reduce_sum_grad(c):
    return spt.reduce_sum_grad(c.x.spt(), c.w, axis=c.axis, keepdims=c.keepdims)


def g_softmax_grad(rng, dt):
    x = gen_sparse(rng, dt, rmin=2, rmax=4, dmin=1, mode="sorted", small=True)  # dims >= 1: see above
    return Case(dt, x=x, g=gen_values(rng, dt, x.nnz, small=True))


def tf_softmax_grad(c):
    vals = tf.constant(c.x.values, tfdt(c.dtype))
    with tf.GradientTape() as tape:
        tape.watch(vals)
        sm = tf.sparse.softmax(tf.sparse.SparseTensor(c.x.indices, vals, c.x.shape))
        loss = tf.reduce_sum(sm.values * tf.constant(c.g, tfdt(c.dtype)))
    g = tape.gradient(loss, vals)
    return g if g is not None else tf.zeros_like(vals)


def spt_softmax_grad(c):
    x = c.x.spt()
    return spt.softmax_grad(spt.softmax(x), c.g)


SPECS += [
    OpSpec("add_grad", g_add_grad, tf_add_grad, spt_add_grad, dtypes=FLOATS, needs=["add_grad", "add"]),
    OpSpec("slice_grad", g_slice_grad, tf_slice_grad, spt_slice_grad, dtypes=FLOATS, needs=["slice_grad", "slice"]),
    OpSpec("fill_empty_rows_grad", g_fill_grad,
           lambda c: list(tf.raw_ops.SparseFillEmptyRowsGrad(reverse_index_map=c.rim,
                                                              grad_values=tf.constant(c.g, tfdt(c.dtype)))),
           lambda c: list(spt.fill_empty_rows_grad(c.rim, c.g)), dtypes=FLOATS),
    OpSpec("sparse_dense_matmul_grad", g_sdmm_grad, tf_sdmm_grad, spt_sdmm_grad, dtypes=FLOATS),
    OpSpec("reduce_sum_grad", g_reduce_sum_grad, tf_reduce_sum_grad, spt_reduce_sum_grad, dtypes=FLOATS,
           needs=["reduce_sum_grad", "reduce_sum"]),
    OpSpec("softmax_grad", g_softmax_grad, tf_softmax_grad, spt_softmax_grad, dtypes=FLOATS,
           needs=["softmax_grad", "softmax"]),
]

# spt functions that have no TensorFlow counterpart to compare with (spt's own extensions, I/O, interop,
# the tensor-of-tensors layer); each is tested by python/tests and the C tests instead. For an op of
# src/ops/ops.def its row decides (no TF in CHECKS: no counterpart); the names here are the package's
# functions outside the list (interop) and, for older ops, the reasons.
NO_TF_COUNTERPART = {
    "argsort", "validate", "indices_valid", "to_dense_into", "group", "concat_primary", "from_scipy", "to_scipy",
    "from_pydata", "to_pydata", "from_torch", "to_torch", "inject_index", "uninject_index", "sparsify",
    "reduce_tot_sum", "read", "write", "read_tns", "parse_tns", "write_tns", "read_mtx", "read_mtx_dense",
    "write_mtx", "read_npy", "write_npy", "read_npz", "write_npz", "write_spy_png",
    # TensorFlow's bytes and files: byte-for-byte and parse-for-parse against TF in tests/tf/tfbytes.py
    "serialize_sparse", "deserialize_sparse", "serialize_many_sparse", "deserialize_many_sparse",
    "parse_example", "parse_single_example", "encode_example", "encode_examples",
    # spt's own packed format (include/spt.h), not TensorFlow's: round trips are in python/tests
    "pack_sparse", "unpack_sparse", "pack_many_sparse", "unpack_many_sparse",
    # sparse algebra: tf.sparse has no sparse x sparse product with a sparse result
    # (sparse_sparse_matmul), no sparse * sparse or sparse - sparse with a sparse result (multiply,
    # subtract), no numpy-broadcast sparse / dense (divide; its SparseDenseCwise ops broadcast one way
    # only), no rank-3 sparse_dense_matmul (bmm) and no MTTKRP / TTV / TTM contraction; and it has no
    # kernel for the gradients of SpGEMM and multiply, SparseConcat is registered as not differentiable
    # and the gradients registered for SparseSparseMaximum / Minimum raise NotImplementedError (TF 2.x).
    # python/tests/test_grad.py checks these against numpy and finite differences.
    "sparse_sparse_matmul", "multiply", "subtract", "divide", "bmm", "mttkrp", "ttv", "ttm",
    "sparse_sparse_matmul_grad", "multiply_grad", "concat_grad", "maximum_grad", "minimum_grad",
    # tf.tensordot and tf.einsum take dense tensors only (tf.sparse has neither); spt's sparse x dense forms
    # are checked against numpy.tensordot / numpy.einsum in python/tests/test_tensordot.py
    "tensordot", "einsum",
}

# TF 2's public functions whose keywords spt's functions should accept (harness.py prints the differences;
# they are reported, not counted as failures, since the harness passes a differing keyword by position).
API_PAIRS = [
    ("reorder", tf.sparse.reorder), ("to_dense", tf.sparse.to_dense), ("from_dense", tf.sparse.from_dense),
    ("concat", tf.sparse.concat), ("split", tf.sparse.split), ("slice", tf.sparse.slice),
    ("retain", tf.sparse.retain), ("reset_shape", tf.sparse.reset_shape),
    ("fill_empty_rows", tf.sparse.fill_empty_rows), ("reshape", tf.sparse.reshape),
    ("transpose", tf.sparse.transpose), ("to_indicator", tf.sparse.to_indicator),
    ("reduce_sum", tf.sparse.reduce_sum), ("reduce_max", tf.sparse.reduce_max), ("add", tf.sparse.add),
    ("maximum", tf.sparse.maximum), ("minimum", tf.sparse.minimum), ("softmax", tf.sparse.softmax),
    ("sparse_dense_matmul", tf.sparse.sparse_dense_matmul), ("merge", tf.compat.v1.sparse.merge),
]
