# SPDX-License-Identifier: Apache-2.0
"""Differential specs derived from the list: an op needs no entry in ops.py when its row says TF.

src/ops/ops.def marks TF (in CHECKS) every op whose Python function TensorFlow has. When ops.py has no
OpSpec covering that Python name, one is derived here: TensorFlow's function is tf.sparse.<python name>
(spt's Python functions carry tf.sparse's names), the arguments are the parameters both functions take by
name (an spt parameter TF lacks keeps its default, a TF one spt lacks must have a default), and each is
drawn by its name and, failing that, by the kind the Python registry gives the C argument of that name:

    sp_input, sp_a, sp_b, a, b, t   (a tensor handle)  a random sparse operand of the case's dtype (all of one
                                    shape); where a rule of rules.py names the op, also what the rule
                                    judges: now and then an index outside the shape (P2-index), a shape
                                    whose volume passes int64 (P1-any-volume)
    sp_inputs   (tensor handles)    1 to 4 such operands of one shape
    a dense operand (dense handle)  of an op with no other operand (from_dense): an array of the dtype,
                                    rank 0 to 5, dims 0 to 7, often many zeros (b"" for strings), now and
                                    then a subnormal (rule subnormal-kept); beside another operand its
                                    shape is the op's own (matmul, broadcasting, segment ids): ops.py then
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

An op takes a sparse operand, a lone dense one (from_dense) or, when it builds a tensor from sizes alone
(eye), a dtype.

An op with a parameter of another kind, or whose TF function is elsewhere, has its OpSpec in ops.py
(which also holds every spec that does more: faults of its own, raw ops, gradients, several variants). The
run fails naming the op when a TF row has neither, and when a spec compares a function whose row does not
say TF."""
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

    from harness import ALL, INTS, Case, gen_huge_sparse, gen_shape, gen_sparse, gen_values, npdt, tfdt
    from ops import NO_TF_COUNTERPART, P_HUGE, OpSpec, maybe_bad_index, put_subnormal

SPARSE_NAMES = {"sp_input", "sp_a", "sp_b", "a", "b", "t"}
P_FAULT = 0.1


def _registry_args(row):
    entry = spt._registry.BY_NAME.get(row.fn)
    if entry is None:
        return {}, None
    return {a.name: a for a in entry.args}, (entry.args[0] if entry.args else None)


def _kind(p, first, args, arg0):
    """The generator kind of the wrapper parameter p (an inspect.Parameter), or None."""
    a = args.get(p.name, arg0 if first else None)
    role = getattr(a, "role", None)
    if role == "handle" and a.cls == "tensor" or (role is None and p.name in SPARSE_NAMES):
        return "sparse"
    if role == "handles" and a.cls == "tensor":
        return "sparse_list"
    if role == "handle" and a.cls == "dense":
        return "dense"
    if p.name == "axis":
        return "axis"
    if p.name == "perm" and role == "i64in":
        return "perm"
    if role == "bool" or isinstance(p.default, bool):
        return "bool"
    if role == "value":
        return "value"
    if role == "enum" and p.name == "dtype":
        return "dtype"
    if role == "boolin":
        return "mask"
    if p.name == "vocab_size" and role == "int":
        return "vocab"
    if p.name == "shape" and role == "i64in":
        return "new_shape"
    if role == "i64in" and isinstance(a.n, str) and a.n.endswith(".rank"):
        return "per_dim"
    if role == "int" and a.lo is not None and a.lo > -(1 << 62):
        return "int"
    return None


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
        if p.name == "name" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if tf_params is not None and p.name not in tf_params:
            if p.default is p.empty:
                return None, "spt.%s's %s is not TF's" % (row.python, p.name)
            continue
        k = _kind(p, i == 0, args, arg0)
        if k is None:
            if tf_params is None and p.default is not p.empty:
                continue  # a keyword spt has beyond TF's, or an alias of one: left at its default
            return None, "spt.%s's %s is of no kind derive.py draws" % (row.python, p.name)
        out.append((p.name, k, p, args.get(p.name, arg0 if i == 0 else None)))
    kinds = {k for _, k, _, _ in out}
    if not kinds & {"sparse", "sparse_list", "dense", "dtype"}:
        return None, "spt.%s takes no sparse operand and no dtype" % row.python
    if "dense" in kinds and (kinds & {"sparse", "sparse_list"} or [k for _, k, _, _ in out].count("dense") > 1):
        return None, "spt.%s's dense operands have shapes of their own (beside a sparse one, or several)" % row.python
    return out, None


def plan(row):
    """(TF function, [(parameter, kind, inspect.Parameter, registry Arg)]) or (None, why not)."""
    tf_fn = getattr(tf.sparse, row.python, None)
    if tf_fn is None:
        return None, "tf.sparse has no %s" % row.python
    try:
        tf_params = inspect.signature(inspect.unwrap(tf_fn)).parameters
    except (TypeError, ValueError):
        return None, "tf.sparse.%s has no signature" % row.python
    out, why = spt_plan(row, tf_params)
    if out is None:
        return None, why
    for n, q in tf_params.items():
        if n != "name" and q.default is q.empty and n not in [o[0] for o in out]:
            return None, "tf.sparse.%s's %s is not spt's" % (row.python, n)
    return tf_fn, out


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


def _gen(op, params):
    ruled = _ruled(op)

    def gen(rng, dt):
        shape, huge = None, None
        c = Case(dt)
        rank, first = 0, None
        if "P1-any-volume" in ruled and rng.random() < P_HUGE:
            huge = []  # the huge dims, drawn with the first operand
            c.args["huge"] = True

        def sparse():
            nonlocal huge
            if huge is None:
                return gen_sparse(rng, dt, shape=shape)
            sp = gen_huge_sparse(rng, dt, shape=shape, huge_dims=huge or None)
            huge = sp.huge_dims
            return sp

        for name, kind, p, _ in params:  # the sparse operands first: the others follow their rank
            if kind == "sparse":
                sp = sparse()
                shape, rank = sp.shape, sp.rank
                c.args[name] = sp
            elif kind == "sparse_list":
                sps = [sparse() for _ in range(int(rng.integers(1, 5)))]
                shape, rank = sps[0].shape, sps[0].rank
                c.args[name] = sps
            else:
                continue
            first = first or c.args[name]
        for name, kind, p, a in params:
            if kind == "axis":
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
            elif kind == "vocab":
                c.args[name] = _vocab(rng, c, next(n for n, k, _, _ in params if k == "sparse"))
            elif kind == "per_dim":
                c.args[name] = _per_dim(rng, c, name, first[0] if isinstance(first, list) else first)
            elif kind == "new_shape":
                c.args[name] = _new_shape(rng, c, first[0] if isinstance(first, list) else first)
            elif kind == "int":
                if p.default is None and rng.random() < 0.4:
                    c.args[name] = None
                else:
                    c.args[name] = int(rng.integers(a.lo - 1, a.lo + 8))
        if "P2-index" in ruled and c.fault is None and huge is None:
            maybe_bad_index(rng, c, *[n for n, k, _, _ in params if k in ("sparse", "sparse_list")])
        return c

    return gen


def _call(fn, params, lib):
    def call(c):
        kw = {}
        for name, kind, _, _ in params:
            v = c.args[name]
            if kind == "sparse":
                v = v.tf() if lib is tf else v.spt()
            elif kind == "sparse_list":
                v = [s.tf() if lib is tf else s.spt() for s in v]
            elif kind == "dense":
                v = tf.constant(v, tfdt(c.dtype)) if lib is tf else v
            elif kind == "value" and v is not None:
                v = tf.constant(v, tfdt(c.dtype)) if lib is tf else v
            elif kind == "dtype":
                v = tfdt(v) if lib is tf else npdt(v)
            kw[name] = v
        return fn(**kw)

    return call


def _rows_by_python():
    out = {}
    for r in oplist.rows():
        if r.kind == "op" and r.python:
            out.setdefault(r.python, []).append(r)
    return out


def derived_specs(hand):
    """OpSpecs for the TF rows of ops.def whose Python function no spec of `hand` covers."""
    covered = {n for s in hand for n in s.covers}
    out = []
    for name, rows in _rows_by_python().items():
        if name in covered or not any("TF" in r.checks for r in rows):
            continue
        tf_fn, params = plan(rows[0])
        if tf_fn is None:
            continue  # check() names it
        out.append(OpSpec(name, _gen(name, params), _call(tf_fn, params, tf), _call(getattr(spt, name), params, spt),
                          dtypes=INTS if any(k == "vocab" for _, k, _, _ in params) else ALL))
    return out


def check(specs):
    """Disagreements between ops.def's TF marks and the specs (hand-written or derived), as text lines."""
    covered = {n for s in specs for n in s.covers}
    bad = []
    for name, rows in _rows_by_python().items():
        marked = [r.fn for r in rows if "TF" in r.checks]
        if marked and name not in covered:
            bad.append("ops.def marks %s TF, but no spec of tests/tf/ops.py covers spt.%s and none is derived (%s)"
                       % (", ".join(marked), name, plan(rows[0])[1]))
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
