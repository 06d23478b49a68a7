# SPDX-License-Identifier: Apache-2.0
"""Differential specs derived from the list: an op needs no entry in ops.py when its row says TF.

src/ops/ops.def marks TF (in CHECKS) every op whose Python function TensorFlow has. For each such row that
no OpSpec of ops.py stands for, one is derived here. TensorFlow's function is tf.sparse.<python name>
(spt's Python functions carry tf.sparse's names), or the one the op's `@op(..., tf="...")` names in its
Python family module, a path under `tf` ("nn.embedding_lookup_sparse", "compat.v1.sparse_to_dense",
"raw_ops.SparseDenseCwiseMul"). The arguments are the parameters both functions take by name (an spt
parameter TF lacks keeps its default, a TF one spt lacks must have a default, a parameter of no kind
below keeps its default on both sides); a raw op takes spt's parameters in order, each sparse operand as
its <x>_indices, <x>_values, <x>_shape, and its result, when spt's is sparse, is the values at the first
operand's indices. Each argument is drawn by its name and, failing that, by the kind the Python registry
gives the C argument of that name:

    sp_input, sp_a, sp_b, a, b, t   (a tensor handle)  a random sparse operand of the case's dtype (all of one
                                    shape); where a rule of rules.py names the op, also what the rule
                                    judges: now and then an index outside the shape (P2-index), a shape
                                    whose volume passes int64 (P1-any-volume)
    sp_inputs   (tensor handles)    1 to 4 such operands of one shape
    a dense operand (dense handle)  of an op with no other operand (from_dense): an array of the dtype,
                                    rank 0 to 5, dims 0 to 7, often many zeros (b"" for strings), now and
                                    then a subnormal (rule subnormal-kept)
                 beside a sparse    the sparse shape, or its trailing dims each kept, 1 or (against 0 or 1)
                 operand            0, as TF's one-way broadcast takes them (sparse_dense_cwise_*, add's
                                    dense form); now and then a subnormal, or a length that fits no dim
                                    (fault shape_mismatch)
                 beside a sparse    of a product: (k, n), or (n, k) with adjoint_b, k the inner dim of the
                 one and adjoint_a  sparse operand (then of rank 2, small values); now and then k + 1
                 and adjoint_b      (fault shape_mismatch)
    data, indices, segment_ids      segment ids (sorted) beside dense operands: data [rows, k], indices
    (dense handles), num_segments   into its rows, num_segments None or past the last id; now and then
                                    num_segments -1, 0 or one short, an index outside the rows
    params (dense handles), sp_ids, an embedding lookup: params [V, d], ids [rows, 4] below V (with a
    sp_weights, combiner,           default_id, as the safe lookup: -1 and empty rows too), weights at the
    default_id                      ids' indices or None, a combiner, rows out of order now and then; the
                                    dtypes are then the floats
    inputs (buffer), separator,     cross: 1 to 3 rank-2 inputs of one batch, sparse or dense, strings or
    hash_key                        int64; a separator; a hash key at its edges (None, 0, 1, 2^63 - 1)
    sparse_indices, output_shape,   sparse_to_dense: indices of rank 0, 1 or 2 (int32 or int64), a shape of
    sparse_values, default_value    that type, values scalar or one per index, a default; now and then a
    (dense handles)                 negative output dim or an index outside
    sp_ids (tensor handles) beside  merge: values of rank 1 to 4, one tensor or a list of int64 ids at their
    vocab_size (int64 array)        indices, sizes; now and then an id past its size (fault bad_id)
    op, *args                       map_values: a function of ops.MAP_FNS (elementwise, numpy and TF alike)
                                    and 1 or 2 sparse operands of one set of indices; the dtypes are then
                                    the numbers
    axis                            None (when that is its default), an int in [-rank - 1, rank], now and then
                                    just outside (fault bad_axis)
    perm                            None (when nullable), a permutation of the dims, now and then not one
    keepdims and other flags        True or False
    default_value  (value)          None (when that is its default) or a value of the dtype
    dtype          (enum)           the case's dtype
    an int64 array of one entry per dim of the operand (i64in, n="<operand>.rank"), as slice's start and
                    size            each entry in [0, dim + 3) or, now and then, at an edge: dim, dim + 1 to
                                    dim + 4, 2^63 - 1 (a dim past int64's volume: 0, dim - 1, dim, one
                                    inside, 2^63 - 1); now and then one entry -1 to -3 (fault
                                    negative_<name>) or the length one off (fault <name>_length)
    shape          (int64 array)    a new shape of the operand's volume: a random factorization into 0 to 5
                                    dims, maybe one -1; now and then a volume off (fault volume) or two
                                    -1 (fault two_minus_one)
    vocab_size     (int)            1 to 8, now and then 0, -1, -7 (fault negative_vocab) or 2^62 (rank >= 2:
                                    the dense output's volume passes int64); the sparse operand's values,
                                    when integers, become ids below it, now and then one at or past it, or
                                    -1 (fault bad_id); the case's dtypes are then the integers (TF's
                                    documentation asks integer ids; spt refuses other values)
    a bool array   (boolin)         one flag per entry of the first sparse operand, now and then a length
                                    off (fault mask_length)
    an integer with a lower bound   [lo - 1, lo + 7]; None now and then when that is its default

An op takes operands of one of these kinds: a sparse one, a lone dense one (from_dense), segment ids,
embedding params, cross inputs, sparse_to_dense's indices, merge's values, map_values' *args or, when it
builds a tensor from sizes alone (eye), a dtype. A rule of rules.py with tf_dies marks the cases TF dies
on (TF then runs them in a subprocess).

An op with a parameter of another kind has its OpSpec in ops.py (which also holds every spec that does
more: faults of its own, gradients, several variants; OpSpec.stands_for says which rows' derived specs it
replaces, none for a variant run beside them). The run fails naming the op when a TF row has neither, and
when a spec compares a function whose row does not say TF."""
import inspect
import os
import sys

import numpy as np

import spt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import oplist  # noqa: E402

# spt_plan needs neither TensorFlow nor the harness (python/tests/test_oplist.py calls it); the rest does
if "harness" in sys.modules:
    import tensorflow as tf

    from harness import (ALL, FLOATS, INTS, NUMBER, Case, Sp, SpOut, gen_huge_sparse, gen_shape, gen_sparse,
                         gen_values, npdt, tfdt)
    from ops import MAP_FNS, NO_TF_COUNTERPART, P_HUGE, OpSpec, maybe_bad_index, put_subnormal

SPARSE_NAMES = {"sp_input", "sp_a", "sp_b", "a", "b", "t"}
P_FAULT = 0.1

# Kinds that give an op its operands (an op needs one of them)
OPERANDS = {"sparse", "sparse_list", "sparse_args", "dense", "dtype", "segment_data", "emb_params", "cross_inputs",
            "coo_indices", "merge_values"}
# Kinds drawn together, by one drawer (the segment reduction, embedding lookup, cross, sparse_to_dense and
# merge arguments depend on each other)
GROUP = {"segment_data": "segment", "segment_rows": "segment", "segment_ids": "segment", "num_segments": "segment",
         "emb_params": "embedding", "emb_ids": "embedding", "emb_weights": "embedding", "combiner": "embedding",
         "default_id": "embedding", "cross_inputs": "cross", "separator": "cross", "hash_key": "cross",
         "coo_indices": "coo", "coo_shape": "coo", "coo_values": "coo", "coo_default": "coo",
         "merge_values": "merge", "merge_ids": "merge", "vocab_sizes": "merge"}
COO = {"sparse_indices": "coo_indices", "output_shape": "coo_shape", "sparse_values": "coo_values",
       "default_value": "coo_default"}


def _registry_args(row):
    entry = spt._registry.BY_NAME.get(row.fn)
    if entry is None:
        return {}, None
    return {a.name: a for a in entry.args}, (entry.args[0] if entry.args else None)


# (parameter name, registry role or None for any) -> kind
BY_NAME = {("axis", None): "axis", ("perm", "i64in"): "perm", ("dtype", "enum"): "dtype",
           ("combiner", "enum"): "combiner", ("vocab_size", "int"): "vocab", ("vocab_size", "i64in"): "vocab_sizes",
           ("shape", "i64in"): "new_shape", ("inputs", "buffer"): "cross_inputs", ("separator", "bytes"): "separator",
           ("hash_key", "int"): "hash_key"}


def _kind(p, first, args, arg0):
    """The generator kind of the wrapper parameter p (an inspect.Parameter), or None."""
    a = args.get(p.name, arg0 if first else None)
    role = getattr(a, "role", None)
    if role == "handle" and a.cls == "tensor" or (role is None and p.name in SPARSE_NAMES):
        return "sparse"
    if role in ("handle", "handles") and a.cls in ("tensor", "dense"):
        return {"handles": {"tensor": "sparse_list", "dense": "emb_params"}, "handle": {"dense": "dense"}}[role][a.cls]
    named = BY_NAME.get((p.name, role)) or BY_NAME.get((p.name, None))
    if named:
        return named
    if role == "bool" or isinstance(p.default, bool):
        return "bool"
    if role in ("value", "boolin"):
        return {"value": "value", "boolin": "mask"}[role]
    if role == "i64in" and isinstance(a.n, str) and a.n.endswith(".rank"):
        return "per_dim"
    if role == "int" and a.lo is not None and a.lo > -(1 << 62):
        return "int"
    return None


def _refine(out):
    """The kinds that follow from the other parameters: a dense operand beside a sparse one (broadcast to it,
    or shaped by the adjoint flags of a product), segment ids and the rows they take, the ids and weights
    of an embedding lookup, sparse_to_dense's arguments, merge's ids and values."""
    names = {n: k for n, k, _, _ in out}
    kinds = set(names.values())
    res = []
    for n, k, p, a in out:
        if k == "dense" and names.get("segment_ids") == "dense":
            k = {"segment_ids": "segment_ids", "indices": "segment_rows"}.get(n, "segment_data")
        elif k == "int" and n == "num_segments" and names.get("segment_ids") == "dense":
            k = "num_segments"
        elif k == "dense" and set(COO) <= set(names):
            k = COO.get(n, k)
        elif k == "dense" and "sparse" in kinds:
            k = "dense_matmul" if names.get("adjoint_a") == names.get("adjoint_b") == "bool" else "dense_like"
        elif k == "sparse" and "emb_params" in kinds:
            k = "emb_weights" if "weight" in n else "emb_ids"
        elif n == "default_id" and "emb_params" in kinds:
            k = "default_id"
        elif k == "sparse" and "vocab_sizes" in kinds:
            k = "merge_values"
        elif k == "sparse_list" and "vocab_sizes" in kinds:
            k = "merge_ids"
        res.append((n, k, p, a))
    return res


def spt_plan(row, tf_params=None):
    """spt's side of the derivation: ([(parameter, kind, inspect.Parameter, registry Arg)], None), or
    (None, why not). tf_params: the parameter names of TensorFlow's function (None: assume spt's, since the
    wrappers carry TF 2's names; the differential run checks them)."""
    fn = getattr(spt, row.python, None)
    if fn is None:
        return None, "the package has no spt.%s" % row.python
    args, arg0 = _registry_args(row)
    out = []
    for i, p in enumerate(inspect.signature(fn).parameters.values()):
        if p.name == "name" or p.kind == p.VAR_KEYWORD:
            continue
        if p.kind == p.VAR_POSITIONAL:
            if arg0 is not None and arg0.role == "handle" and arg0.cls == "tensor":
                out.append((p.name, "sparse_args", p, arg0))  # map_values' operands
            continue
        if tf_params is not None and p.name not in tf_params:
            if p.default is p.empty:
                return None, "spt.%s's %s is not TF's" % (row.python, p.name)
            continue
        k = _kind(p, i == 0, args, arg0)
        if k is None and p.name == "op" and i == 0 and any(q.kind == q.VAR_POSITIONAL for q in
                                                           inspect.signature(fn).parameters.values()):
            k = "fn"  # map_values' function of the values
        if k is None:
            if p.default is not p.empty:
                continue  # a keyword of no kind derive.py draws, or spt's beyond TF's: left at its default
            return None, "spt.%s's %s is of no kind derive.py draws" % (row.python, p.name)
        out.append((p.name, k, p, args.get(p.name, arg0 if i == 0 else None)))
    out = _refine(out)
    kinds = [k for _, k, _, _ in out]
    if not set(kinds) & OPERANDS:
        return None, "spt.%s takes no sparse operand and no dtype" % row.python
    if kinds.count("dense") > 1:
        return None, "spt.%s's dense operands have shapes of their own" % row.python
    return out, None


def tf_function(row):
    """(TensorFlow's function of the row's Python function, its path under tf): the op's @op(..., tf=...)
    in its family module, else tf.sparse.<python name>."""
    path = spt._registry.TF_FUNCTION.get(row.python) or "sparse." + row.python
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None, path
    return obj, path


def _raw_slots(names):
    """A raw op's parameters with each <x>_indices, <x>_values, <x>_shape triple as one sparse slot <x>:
    [(name, is a triple)]."""
    slots = []
    for n in names:
        stem = n.rsplit("_", 1)[0]
        if n == "name" or (n.endswith(("_values", "_shape")) and stem + "_indices" in names):
            continue
        if n.endswith("_indices") and stem + "_values" in names and stem + "_shape" in names:
            slots.append((stem, True))
        else:
            slots.append((n, False))
    return slots


def plan(row):
    """(TF function, [(parameter, kind, inspect.Parameter, registry Arg, TF's keyword)]) or (None, why
    not). A raw op (tf.raw_ops.*) takes spt's parameters in order, a sparse operand as its three tensors
    (TF's keyword is then (stem, True)); its result, for a sparse result of spt's, is the values at the
    first sparse operand's indices."""
    tf_fn, path = tf_function(row)
    if tf_fn is None:
        return None, "tf.%s does not exist" % path
    try:
        tf_params = inspect.signature(inspect.unwrap(tf_fn)).parameters
    except (TypeError, ValueError):
        return None, "tf.%s has no signature" % path
    if path.startswith("raw_ops."):
        out, why = spt_plan(row)
        if out is None:
            return None, why
        slots = _raw_slots(list(tf_params))
        if len(slots) != len(out):
            return None, "tf.%s takes %d operands, spt.%s %d" % (path, len(slots), row.python, len(out))
        return tf_fn, [o + ((s, True) if t else s,) for o, (s, t) in zip(out, slots)]
    out, why = spt_plan(row, tf_params)
    if out is None:
        return None, why
    for n, q in tf_params.items():
        if n != "name" and q.default is q.empty and q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD) \
                and n not in [o[0] for o in out]:
            return None, "tf.%s's %s is not spt's" % (path, n)
    return tf_fn, [o + (o[0],) for o in out]


def _new_shape(rng, c, sp):
    """A shape of sp's volume (a random factorization into 0-5 dims, maybe one -1), or a fault."""
    vol = int(np.prod(sp.shape))
    dims = []
    rest = vol
    for _ in range(int(rng.integers(0, 5))):
        divs = [d for d in range(1, 8) if rest % d == 0] if rest else list(range(0, 8))
        d = divs[int(rng.integers(0, len(divs)))]
        dims.append(d)
        rest = rest // d if d else rest
    if vol == 0 and 0 not in dims:
        dims.append(0)
    elif vol and (int(np.prod(dims)) if dims else 1) != vol:
        dims.append(vol // (int(np.prod(dims)) if dims else 1))
    ns = np.array(dims, dtype=np.int64).reshape(-1)
    if ns.size and rng.random() < 0.4 and (vol or rng.random() < 0.3):
        ns = ns.copy()
        ns[int(rng.integers(0, ns.size))] = -1
    r = rng.random()
    if r < 0.06 and ns.size:
        ns = ns.copy()
        ns[int(rng.integers(0, ns.size))] += int(rng.integers(1, 3)) if ns.min() >= 0 else 0
        ns = np.append(ns, 2) if vol else np.append(ns, -1)
        c.fault = "volume"
    elif r < 0.1:
        ns = np.append(ns, [-1, -1])
        c.fault, c.expect = "two_minus_one", spt.InvalidArgumentError
    return ns


def _dense(rng, dt):
    """An array of the dtype, rank 0 to 5, often many zeros (b"" for strings), maybe a subnormal."""
    shape = gen_shape(rng, int(rng.integers(0, 6)))
    n = int(np.prod(shape))
    v = gen_values(rng, dt, n)
    if dt != "string" and rng.random() < 0.7:
        v[rng.random(n) < 0.6] = np.zeros(1, npdt(dt))[0]
    elif dt == "string":
        v[rng.random(n) < 0.5] = b""
    put_subnormal(rng, v)
    return v.reshape(tuple(shape))


def _per_dim(rng, c, name, sp):
    """One int64 per dim of sp: mostly inside [0, dim + 3), now and then at an edge, negative, or a length
    off (see the table above)."""
    top = 2 ** 63 - 1

    def one(d):
        d = int(d)
        if d > 2 ** 62:
            return [0, d - 1, d, int(rng.integers(0, d)), top][int(rng.integers(0, 5))]
        if rng.random() < 0.1:
            return [d, d + int(rng.integers(1, 5)), top][int(rng.integers(0, 3))]
        return int(rng.integers(0, d + 3))

    v = np.array([one(d) for d in sp.shape], dtype=np.int64).reshape(-1)
    r = 1.0 if "huge" in c.args else rng.random()  # a huge case is judged by its own rule (P1-...)
    if r < 0.08 and sp.rank:
        v[int(rng.integers(0, sp.rank))] = -int(rng.integers(1, 4))
        c.fault = c.fault or "negative_" + name
    elif r < 0.1:
        v = np.append(v, 0) if rng.random() < 0.5 or not sp.rank else v[:-1]
        c.fault, c.expect = name + "_length", spt.InvalidArgumentError
    return v


def _vocab(rng, c, key):
    """vocab_size, and the values of the sparse operand c.args[key] made ids below it (integer dtypes)."""
    x = c.args[key]
    vocab = int(rng.integers(1, 9)) if rng.random() < 0.9 else [0, -1, -7][int(rng.integers(0, 3))]
    if x.rank >= 2 and rng.random() < 0.04:
        vocab = 2 ** 62  # the dense output's volume passes int64 (unless a dim is 0)
    if npdt(c.dtype).kind in "iu":
        ids = rng.integers(0, max(min(vocab, 9), 1), x.nnz).astype(npdt(c.dtype))
        if 0 < vocab < 9 and x.nnz and rng.random() < 0.12:
            bad = [vocab, vocab + 3] + ([-1] if npdt(c.dtype).kind == "i" else [])
            ids[int(rng.integers(0, x.nnz))] = bad[int(rng.integers(0, len(bad)))]
            c.fault, c.expect = "bad_id", spt.OutOfRangeError
        x.values = ids
    if vocab == 2 ** 62:
        c.fault, c.expect = "huge_vocab", None
    elif vocab < 0:
        c.fault, c.expect = "negative_vocab", spt.InvalidArgumentError
    elif vocab == 0 and x.nnz:
        c.fault, c.expect = "bad_id", spt.OutOfRangeError
    return vocab


def _ruled(op):
    """The ids of the rules of rules.py that name the op."""
    import rules

    return {r.id for r in rules.RULES_LIST if op in r.ops}


def _tf_dies(op):
    """A case a rule of rules.py marks as one TensorFlow dies on (rule.tf_dies): TF runs it in a subprocess."""
    import rules

    rs = [r for r in rules.RULES_LIST if op in r.ops and r.tf_dies is not None]
    return lambda c: any(r.tf_dies(c) for r in rs)


def _dense_like(rng, c, sp, dt):
    """A dense operand beside the sparse sp: sp's shape, or its trailing dims each kept, 1 (broadcast) or,
    against a dim of 0 or 1, 0; now and then one of a length that fits no dim (fault shape_mismatch)."""
    if rng.random() < 0.5:
        ds = [int(d) for d in sp.shape]
    else:
        k = int(rng.integers(0, sp.rank + 1))
        ds = [int(d) if rng.random() < 0.7 else 0 if d <= 1 and rng.random() < 0.3 else 1
              for d in sp.shape[sp.rank - k:]]
    v = put_subnormal(rng, gen_values(rng, dt, int(np.prod(ds))))
    if rng.random() < 0.06 and sp.rank:
        c.fault, c.expect = "shape_mismatch", spt.InvalidArgumentError
        return gen_values(rng, dt, int(sp.shape[-1]) + 2)
    return v.reshape(tuple(ds))


def _dense_matmul(rng, c, sp, dt, adjoint_a, adjoint_b):
    """The dense factor of op(sp) @ op(b): (k, n), or (n, k) when adjoint_b, k the inner dim of op(sp); now
    and then k + 1 (fault shape_mismatch)."""
    k = int(sp.shape[0] if adjoint_a else sp.shape[1]) if sp.rank == 2 else int(rng.integers(0, 8))
    n = int(rng.integers(0, 8))
    if rng.random() < 0.07:
        k += 1
        c.fault, c.expect = "shape_mismatch", spt.InvalidArgumentError
    return gen_values(rng, dt, k * n, small=True).reshape((n, k) if adjoint_b else (k, n))


def _segment(rng, c, dt):
    """data [rows, k], indices into its rows, sorted segment ids, num_segments (None, or past the last id);
    now and then num_segments -1 / 0 / one short, or an index outside the rows."""
    rows, k = int(rng.integers(1, 8)), int(rng.integers(1, 4))
    n = int(rng.integers(0, 10))
    ids = np.sort(rng.integers(0, 6, n)).astype(np.int64)
    g = {"segment_data": gen_values(rng, dt, rows * k, special=0, small=True).reshape(rows, k),
         "segment_rows": rng.integers(0, rows, n).astype(np.int64), "segment_ids": ids,
         "num_segments": None if rng.random() < 0.5 else int((ids[-1] + 1 if n else 0) + rng.integers(0, 3))}
    r = rng.random()
    if r < 0.05:
        g["num_segments"], c.fault = -1 if rng.random() < 0.5 else 0, "num_segments"
    elif r < 0.1 and n:
        g["num_segments"], c.fault = int(ids[-1]), "bad_id"
    elif r < 0.15 and n:
        g["segment_rows"][int(rng.integers(0, n))] = [-1, rows][int(rng.integers(0, 2))]
        c.fault = "bad_index"
    return g


def _embedding(rng, c, dt, safe):
    """params [V, d] of the dtype, ids [rows, 4] (int64 below V, rows non-empty; with a default_id, safe: -1
    (pruned) and empty rows too), weights at the ids' indices or None (positive unless safe), a combiner, a
    default id; now and then rows out of order (rule rows-grouped) or empty last rows (embedding-rows)."""
    V, d, B = int(rng.integers(1, 7)), int(rng.integers(1, 4)), int(rng.integers(1, 5))
    ix, ids = [], []
    for b in range(B):
        for k in range(int(rng.integers(0 if safe else 1, 4))):
            ix.append([b, k])
            ids.append(int(rng.integers(-1 if safe else 0, V)))
    ix, ids = np.array(ix, np.int64).reshape(-1, 2), np.array(ids, np.int64)
    if rng.random() < 0.15 and len(ids) > 1:
        p = rng.permutation(len(ids))
        ix, ids = ix[p], ids[p]
    rows = B + (int(rng.integers(1, 3)) if not safe and rng.random() < 0.15 else 0)
    w = None
    if rng.random() < 0.5:
        wv = gen_values(rng, dt, len(ids), special=0, small=True)
        w = Sp(ix, wv if safe else np.abs(wv) + 0.5, [rows, 4], dt)
    return {"emb_params": gen_values(rng, dt, V * d, special=0, small=True).reshape(V, d),
            "emb_ids": Sp(ix, ids, [rows, 4], "int64"), "emb_weights": w,
            "combiner": ["sum", "mean", "sqrtn"][int(rng.integers(0, 3))],
            "default_id": None if rng.random() < 0.5 else int(rng.integers(0, V))}


def _cross(rng, c, dt):
    """1 to 3 inputs of one batch, each a rank-2 SparseTensor (rows in order mostly) or dense array of strings
    or int64; a separator; a hash key at its edges."""
    batch = int(rng.integers(1, 5))
    ins = []
    for _ in range(int(rng.integers(1, 4))):
        kind = ["string", "int64"][int(rng.integers(0, 2))]
        if rng.random() < 0.5:
            x = gen_sparse(rng, kind, shape=[batch, int(rng.integers(1, 4))],
                           mode="sorted" if rng.random() < 0.8 else "unsorted")
            if kind == "int64":
                x.values = rng.integers(-50, 50, x.nnz).astype(np.int64)
            ins.append(x)
        else:
            k = int(rng.integers(1, 3))
            vals = gen_values(rng, kind, batch * k, nonzero=True, special=0)
            ins.append(np.asarray(vals, dtype=object if kind == "string" else np.int64).reshape(batch, k))
    return {"cross_inputs": ins, "separator": None if rng.random() < 0.5 else ["_", "::", ""][int(rng.integers(0, 3))],
            "hash_key": [None, None, 0, 1, 2 ** 63 - 1, int(rng.integers(0, 2 ** 62))][int(rng.integers(0, 6))]}


def _coo(rng, c, dt):
    """sparse_to_dense's arguments: indices of rank 0, 1 or 2 (int32 or int64), the output shape in the same
    type, values a scalar or one per index, a default; now and then a negative output dim or an index
    outside the shape."""
    itype = np.int32 if rng.random() < 0.3 else np.int64
    form = int(rng.integers(0, 4))  # 0: a scalar index, 1: a vector of indices (rank 1), 2 and 3: a matrix
    if form == 0:
        shape = gen_shape(rng, 1, 1)
        ix, n = np.array(rng.integers(0, shape[0]), dtype=itype), 1
    elif form == 1:
        shape = gen_shape(rng, 1, 1)
        sp = gen_sparse(rng, dt, shape=shape, mode="sorted" if rng.random() < 0.7 else None)
        ix, n = sp.indices[:, 0].astype(itype), sp.nnz
    else:
        sp = gen_sparse(rng, dt, rmin=1, rmax=4, mode="sorted" if rng.random() < 0.6 else None)
        shape, ix, n = sp.shape, sp.indices.astype(itype), sp.nnz
    vals = gen_values(rng, dt, n) if rng.random() < 0.8 else np.array(gen_values(rng, dt, 1)[0], dtype=npdt(dt))
    g = {"coo_indices": ix, "coo_shape": shape.astype(itype), "coo_values": vals,
         "coo_default": np.array(gen_values(rng, dt, 1)[0], dtype=npdt(dt))}
    if rng.random() < 0.05:
        g["coo_shape"] = g["coo_shape"].copy()
        g["coo_shape"].reshape(-1)[int(rng.integers(0, g["coo_shape"].size))] = -1
        c.fault = "negative_dim"
    elif rng.random() < P_FAULT and ix.size:
        flat = ix.reshape(-1).copy()
        flat[int(rng.integers(0, flat.size))] = [-1, int(shape.max()) + 1][int(rng.integers(0, 2))]
        g["coo_indices"] = flat.reshape(ix.shape)
        c.fault = "bad_index"
    return g


def _merge(rng, c, dt, listy):
    """merge's values (rank 1 to 4, no repeated index), one or two sets of int64 ids at their indices (a
    list when the parameter takes one), vocab sizes; now and then an id past its size (fault bad_id) or,
    with no entries, a size of 0 or -1."""
    vals = gen_sparse(rng, dt, rmin=1, rmax=4, mode=["sorted", "unsorted"][int(rng.integers(0, 2))])
    k = int(rng.integers(1, 3))
    vocab = [int(rng.integers(1, 8)) for _ in range(k)]
    ids = [Sp(vals.indices, rng.integers(0, v, vals.nnz).astype(np.int64), vals.shape, "int64") for v in vocab]
    if vals.nnz == 0 and rng.random() < 0.3:
        vocab[0] = [0, -1][int(rng.integers(0, 2))]
    if rng.random() < 0.1 and vals.nnz:
        bad = ids[0].values.copy()
        bad[0] = vocab[0] + 1
        ids[0] = Sp(vals.indices, bad, vals.shape, "int64")
        c.fault = "bad_id"
    one = not listy or (k == 1 and rng.random() < 0.5)
    return {"merge_values": vals, "merge_ids": ids[0] if one else ids,
            "vocab_sizes": vocab[0] if one else vocab}


def _group(rng, c, dt, group, kinds):
    if group == "segment":
        return _segment(rng, c, dt)
    if group == "embedding":
        return _embedding(rng, c, dt, "default_id" in kinds)
    if group == "cross":
        return _cross(rng, c, dt)
    if group == "coo":
        return _coo(rng, c, dt)
    return _merge(rng, c, dt, "merge_ids" in kinds)


def _map_fn(rng, c, dt, nargs):
    """map_values' function: an elementwise function numpy and TensorFlow both apply (ops.MAP_FNS), of as many
    arguments as the case has sparse operands."""
    fns = [k for k, f in enumerate(MAP_FNS) if f[2] == nargs and npdt(dt).kind not in f[3]]
    k = fns[int(rng.integers(0, len(fns)))]
    if MAP_FNS[k][0].endswith("(one short)") and c.fault is None:
        c.fault = "result_length"
    return k


def _gen(op, params):
    ruled = _ruled(op)
    kinds = {k for _, k, _, _, _ in params}
    matmul = "dense_matmul" in kinds

    def gen(rng, dt):
        shape, huge = None, None
        c = Case(dt)
        rank, first = 0, None
        if "P1-any-volume" in ruled and rng.random() < P_HUGE:
            huge = []  # the huge dims, drawn with the first operand
            c.args["huge"] = True

        def sparse():
            nonlocal huge
            if matmul:
                return gen_sparse(rng, dt, rank=2 if rng.random() < 0.95 else None, small=True)
            if huge is None:
                return gen_sparse(rng, dt, shape=shape)
            sp = gen_huge_sparse(rng, dt, shape=shape, huge_dims=huge or None)
            huge = sp.huge_dims
            return sp

        for name, kind, p, _, _ in params:  # the sparse operands first: the others follow their rank
            if kind == "sparse":
                sp = sparse()
                shape, rank = sp.shape, sp.rank
                c.args[name] = sp
            elif kind == "sparse_list":
                sps = [sparse() for _ in range(int(rng.integers(1, 5)))]
                shape, rank = sps[0].shape, sps[0].rank
                c.args[name] = sps
            elif kind == "sparse_args":
                x = sparse()
                c.args[name] = [x] + [Sp(x.indices, gen_values(rng, dt, x.nnz), x.shape, dt)
                                      for _ in range(int(rng.integers(0, 2)))]
            else:
                continue
            first = first or c.args[name]
        drawn = {}
        for name, kind, p, a, _ in sorted(params, key=lambda q: q[1] == "dense_matmul"):
            if kind in GROUP:
                g = GROUP[kind]
                if g not in drawn:
                    drawn[g] = _group(rng, c, dt, g, kinds)
                c.args[name] = drawn[g][kind]
            elif kind == "axis":
                if p.default is None and rng.random() < 0.2:
                    c.args[name] = None
                elif rng.random() < P_FAULT:
                    c.args[name] = [rank + 1, -rank - 2][int(rng.integers(0, 2))]
                    c.fault = "bad_axis"
                else:
                    c.args[name] = int(rng.integers(-rank - 1, rank + 1))
            elif kind == "perm":
                if a.nullable and rng.random() < 0.25:
                    c.args[name] = None
                else:
                    perm = rng.permutation(rank).astype(np.int64)
                    if rank >= 2 and rng.random() < P_FAULT:
                        perm[0] = perm[1]
                        c.fault, c.expect = "not_a_permutation", spt.InvalidArgumentError
                    c.args[name] = perm
            elif kind == "bool":
                c.args[name] = bool(rng.random() < 0.5)
            elif kind == "value":
                c.args[name] = None if p.default is None and rng.random() < 0.4 else gen_values(rng, dt, 1)[0]
            elif kind == "dtype":
                c.args[name] = dt
            elif kind == "mask":
                n = (first[0] if isinstance(first, list) else first).nnz
                if rng.random() < P_FAULT:
                    n += int(rng.integers(1, 3))
                    c.fault, c.expect = "mask_length", spt.InvalidArgumentError
                c.args[name] = rng.random(n) < 0.5
            elif kind == "dense":
                c.args[name] = _dense(rng, dt)
            elif kind == "dense_like":
                c.args[name] = _dense_like(rng, c, first, dt)
            elif kind == "dense_matmul":
                c.args[name] = _dense_matmul(rng, c, first, dt, c.args["adjoint_a"], c.args["adjoint_b"])
            elif kind == "fn":
                c.args[name] = None  # drawn below, once the operands are known
            elif kind == "vocab":
                c.args[name] = _vocab(rng, c, next(n for n, k, _, _, _ in params if k == "sparse"))
            elif kind == "per_dim":
                c.args[name] = _per_dim(rng, c, name, first[0] if isinstance(first, list) else first)
            elif kind == "new_shape":
                c.args[name] = _new_shape(rng, c, first[0] if isinstance(first, list) else first)
            elif kind == "int":
                if p.default is None and rng.random() < 0.4:
                    c.args[name] = None
                else:
                    c.args[name] = int(rng.integers(a.lo - 1, a.lo + 8))
        for name, kind, _, _, _ in params:
            if kind == "fn":
                c.args[name] = _map_fn(rng, c, dt, len(next(v for n, v in c.args.items() if isinstance(v, list))))
        keys = [n for n, k, _, _, _ in params if k in ("sparse", "sparse_list")]
        # an index outside the shape only where the operands agree otherwise (a dense operand of the sparse
        # shape, a matrix to multiply): a broadcast one, or a rank a product refuses, may be reported first
        if "P2-index" in ruled and c.fault is None and huge is None and keys and all(
                np.shape(c.args[n]) == tuple(first.shape) if k == "dense_like" else first.rank == 2
                for n, k, _, _, _ in params if k in ("dense_like", "dense_matmul")):
            maybe_bad_index(rng, c, *keys)
        return c

    return gen


DENSE_KINDS = {"dense", "dense_like", "dense_matmul", "segment_data", "emb_params", "coo_values", "coo_default"}
SPARSE_KINDS = {"sparse", "emb_ids", "emb_weights", "merge_values"}
LIST_KINDS = {"sparse_list", "sparse_args", "merge_ids", "cross_inputs"}


def _call(fn, params, lib, sparse_out=False):
    """Call fn (spt's function or TF's) on the case: sparse operands as SparseTensors (or, to a raw op, as
    their three tensors), dense ones as arrays of the case's dtype (TF: constants), lists of them element by
    element; by keyword, or in order when the function takes its operands as *args."""
    to_tf = lib is tf
    positional = any(k == "sparse_args" for _, k, _, _, _ in params)

    def one(x, kind, dt):
        if isinstance(x, Sp):
            return x.tf() if to_tf else x.spt()
        if x is None or not to_tf:
            return x
        return tf.constant(x, tfdt(dt)) if kind in DENSE_KINDS else tf.constant(x)

    def call(c):
        pos, kw = [], {}
        for name, kind, _, _, key in params:
            v = c.args[name]
            if kind == "fn":
                f = MAP_FNS[v][1]
                v = f
            elif isinstance(key, tuple) and to_tf:  # a raw op's <stem>_indices, _values, _shape
                ix, vals, sh = v.raw()
                kw.update({key[0] + "_indices": ix, key[0] + "_values": vals, key[0] + "_shape": sh})
                continue
            elif kind in LIST_KINDS and isinstance(v, list):
                v = [one(x, kind, c.dtype) for x in v]
            elif kind in SPARSE_KINDS | DENSE_KINDS or kind == "merge_ids":
                v = one(v, kind, c.dtype)
            elif kind == "value" and v is not None:
                v = tf.constant(v, tfdt(c.dtype)) if to_tf else v
            elif kind == "dtype":
                v = tfdt(v) if to_tf else npdt(v)
            if kind == "sparse_args":
                pos.extend(v)
            elif positional and not pos and kind == "fn":
                pos.append(v)
            else:
                kw[key if to_tf and isinstance(key, str) else name] = v
        out = fn(*pos, **kw)
        if to_tf and sparse_out and isinstance(out, tf.Tensor):
            sp = next(c.args[n] for n, k, _, _, _ in params if k == "sparse")
            return SpOut(sp.indices, out.numpy(), sp.shape)
        return out

    return call


def _rows_by_python():
    out = {}
    for r in oplist.rows():
        if r.kind == "op" and r.python:
            out.setdefault(r.python, []).append(r)
    return out


def _replaced(hand):
    """The ops.def rows whose derived spec a spec of `hand` stands in for (OpSpec.stands_for: by default
    every row of the Python functions it covers; a variant run beside the derived spec stands for none)."""
    rows = _rows_by_python()
    out = set()
    for s in hand:
        if s.stands_for is not None:
            out |= set(s.stands_for)
        else:
            out |= {r.fn for n in s.covers for r in rows.get(n, [])}
    return out


def _dtypes(kinds):
    if "vocab" in kinds:
        return INTS  # ids (TF's documentation asks integer ids; spt refuses other values)
    if "emb_params" in kinds:
        return FLOATS  # embeddings: TF's lookups combine floats
    if "cross_inputs" in kinds:
        return ["string"]  # the inputs carry their own dtypes
    if "fn" in kinds:
        return NUMBER  # map_values' functions are arithmetic
    return ALL


def derived_specs(hand):
    """OpSpecs for the TF rows of ops.def that no spec of `hand` stands in for; a Python function of several
    rows gets one spec per row, named after the row's C function (one for rows whose parameters are of the
    same kinds, as map_values' unary and binary rows)."""
    replaced = _replaced(hand)
    out = []
    for name, rows in _rows_by_python().items():
        seen = set()
        for r in rows:
            if "TF" not in r.checks or r.fn in replaced:
                continue
            tf_fn, params = plan(r)
            if tf_fn is None:
                continue  # check() names it
            key = tuple((q[0], q[1]) for q in params)
            if key in seen:
                continue
            seen.add(key)
            kinds = {k for _, k, _, _, _ in params}
            entry = spt._registry.BY_NAME.get(r.fn)
            sparse_out = entry is not None and any(a.role == "out" and a.cls == "tensor" for a in entry.args)
            raw = any(isinstance(q[4], tuple) for q in params)
            op = name if len(rows) == 1 or r.fn == "spt_" + name else r.fn[4:]
            out.append(OpSpec(op, _gen(op, params), _call(tf_fn, params, tf, raw and sparse_out),
                              _call(getattr(spt, name), params, spt), dtypes=_dtypes(kinds), covers=[name],
                              tf_unsafe=_tf_dies(op)))
    return out


def check(specs):
    """Disagreements between ops.def's TF marks and the specs (hand-written or derived), as text lines."""
    import ops

    covered = {n for s in specs for n in s.covers}
    replaced = _replaced(ops.SPECS)
    bad = []
    for name, rows in _rows_by_python().items():
        marked = [r.fn for r in rows if "TF" in r.checks]
        missing = [r for r in rows if r.fn in marked and r.fn not in replaced and plan(r)[0] is None]
        if missing:
            bad.append("ops.def marks %s TF, but no spec of tests/tf/ops.py stands for it and none is derived (%s)"
                       % (", ".join(r.fn for r in missing), plan(missing[0])[1]))
        elif name in covered and len(marked) != len(rows):
            bad.append("a spec compares spt.%s with TensorFlow: mark TF in the ops.def rows of %s"
                       % (name, ", ".join(r.fn for r in rows if "TF" not in r.checks)))
        elif name in NO_TF_COUNTERPART and marked:
            bad.append("spt.%s is in NO_TF_COUNTERPART and marked TF in ops.def" % name)
    return bad


def all_specs():
    """ops.py's specs, then the derived ones."""
    import ops

    return ops.SPECS + derived_specs(ops.SPECS)


def no_counterpart_rows():
    """The Python names of ops.def rows not marked TF: they have no TensorFlow counterpart (the row says so)."""
    return {name for name, rows in _rows_by_python().items() if not any("TF" in r.checks for r in rows)}
