# SPDX-License-Identifier: Apache-2.0
"""Differential tests: hypothesis-generated sparse tensors (ranks 1-4, N from 0 to a few hundred, duplicates
and unsorted entries, every numeric dtype) through each spt op, against numpy on the densified tensor, and
against pydata/sparse and torch where they have the op.

Reference densification: `dsum` adds duplicates (np.add.at; order-independent, so it is the right view of
ops that move entries around), `dlast` writes in storage order (last write wins, as to_dense). Values are
small integers (halves for floats), so float sums are exact and integer arithmetic wraps the same way."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import spt

try:  # pydata/sparse comparisons are made when it is installed
    import sparse
except ImportError:
    sparse = None

NUMERIC = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
           "complex64", "complex128"]
SIGNED = ["int8", "int16", "int32", "int64"]
INTS = SIGNED + ["uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
REAL = INTS + FLOATS
SUMMABLE = INTS + FLOATS + ["complex64", "complex128"]

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def needs(*ops):
    missing = [o for o in ops if not spt.has_op(o)]
    return pytest.mark.skipif(bool(missing), reason="this libspt lacks %s" % missing)


def gen_values(rng, dt, n, nonzero=False):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool) | bool(nonzero)
    if dt.kind == "u":
        v = rng.integers(1 if nonzero else 0, 6, n)
    else:
        v = rng.integers(-5, 6, n)
        if nonzero:
            v[v == 0] = 3
    if dt.kind == "f":
        return (v / 2).astype(dt)
    if dt.kind == "c":
        w = rng.integers(-5, 6, n)
        return (v / 2 + 1j * w / 2).astype(dt)
    return v.astype(dt)


@st.composite
def tensors(draw, dtypes=NUMERIC, min_rank=1, max_rank=4, max_nnz=300, unique=False, shape=None, dtype=None,
            sort=None):
    dt = np.dtype(dtype or draw(st.sampled_from(dtypes)))
    if shape is None:
        r = draw(st.integers(min_rank, max_rank))
        shape = tuple(draw(st.lists(st.integers(0, 6 if r <= 2 else 4), min_size=r, max_size=r)))
    shape = tuple(shape)
    vol = int(np.prod(shape, dtype=np.int64))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    n = 0 if vol == 0 else draw(st.integers(0, max_nnz))
    if unique:
        n = min(n, vol)
        flat = rng.choice(vol, n, replace=False) if n else np.zeros(0, np.int64)
        ix = np.stack(np.unravel_index(flat, shape), axis=1) if shape else np.zeros((n, 0))
    else:
        ix = rng.integers(0, np.maximum(shape, 1), size=(n, len(shape)))
    ix = np.asarray(ix, dtype=np.int64).reshape(n, len(shape))
    sp = spt.SparseTensor(ix, gen_values(rng, dt, n), shape)
    if sort or (sort is None and draw(st.booleans())):
        sp = spt.reorder(sp)
    return sp


def dsum(sp, dtype=None):
    d = np.zeros(sp.shape, dtype or sp.dtype)
    if sp.rank == 0:
        for v in sp.values:
            d[()] += v
    elif sp.nnz:
        np.add.at(d, tuple(sp.indices.T), sp.values)
    return d


def dlast(sp):
    d = np.zeros(sp.shape, sp.dtype)
    for i, ix in enumerate(sp.indices):
        d[tuple(ix)] = sp.values[i]
    return d


def rowmajor_sorted(sp):
    ix = sp.indices
    if len(ix) < 2:
        return True
    keys = np.ravel_multi_index(tuple(ix.T), sp.shape) if sp.rank else np.zeros(len(ix))
    return bool(np.all(np.diff(keys) >= 0))


def assert_same(got, want):
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "fc":
        assert np.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True), (got, want)
    else:
        assert np.array_equal(got, want), (got, want)


# ---- core -----------------------------------------------------------------------------------------------

@SETTINGS
@given(tensors())
def test_reorder_is_a_stable_sort(sp):
    r = spt.reorder(sp)
    assert rowmajor_sorted(r) and r.known_sorted and r.order.tolist() == list(range(sp.rank))
    perm = np.lexsort(sp.indices.T[::-1]) if sp.nnz else np.zeros(0, int)  # stable
    assert np.array_equal(r.indices, sp.indices[perm])
    assert np.array_equal(r.values, sp.values[perm])
    assert np.array_equal(spt.argsort(sp), perm)


@SETTINGS
@given(tensors(), st.randoms(use_true_random=False))
def test_reorder_any_order(sp, rnd):
    order = list(range(sp.rank))
    rnd.shuffle(order)
    r = spt.reorder(sp, order)
    keys = sp.indices[:, order]
    perm = np.lexsort(keys.T[::-1]) if sp.nnz else np.zeros(0, int)
    assert np.array_equal(r.indices, sp.indices[perm]) and r.order.tolist() == order


@SETTINGS
@given(tensors())
def test_to_dense_last_write_wins(sp):
    assert_same(spt.to_dense(sp, validate_indices=False), dlast(sp))


@SETTINGS
@given(tensors(unique=True))
def test_to_dense_validated_and_pydata(sp):
    r = spt.reorder(sp)
    d = spt.to_dense(r)
    assert_same(d, dlast(sp))
    if sparse is not None:
        assert_same(spt.to_pydata(r).todense(), d)


@SETTINGS
@given(tensors())
def test_from_dense_round_trip(sp):
    d = dlast(sp)
    f = spt.from_dense(d)
    nz = np.argwhere(d != 0)
    assert np.array_equal(f.indices, nz.reshape(-1, sp.rank))
    assert_same(f.values, d[tuple(nz.T)] if len(nz) else np.zeros(0, d.dtype))
    assert_same(spt.to_dense(f), d)


# ---- layout ---------------------------------------------------------------------------------------------

@needs("concat")
@SETTINGS
@given(st.data())
def test_concat(data):
    base = data.draw(tensors())
    axis = data.draw(st.integers(0, base.rank - 1))
    parts = [base]
    for _ in range(data.draw(st.integers(0, 2))):
        shape = list(base.shape)
        shape[axis] = data.draw(st.integers(0, 4))
        parts.append(data.draw(tensors(shape=shape, dtype=base.dtype)))
    neg = data.draw(st.booleans())
    out = spt.concat(axis - base.rank if neg else axis, parts)
    assert rowmajor_sorted(out)
    assert_same(dsum(out), np.concatenate([dsum(p) for p in parts], axis=axis))
    if sparse is not None and base.dtype.kind != "b" and len(parts) > 1:
        x = sparse.concatenate([spt.to_pydata(p) for p in parts], axis=axis)
        assert_same(x.todense(), dsum(out))


@needs("concat")
@SETTINGS
@given(st.data())
def test_concat_expand_nonconcat_dim(data):
    a = data.draw(tensors(max_rank=3))
    b = data.draw(tensors(min_rank=a.rank, max_rank=a.rank, dtype=a.dtype))
    axis = data.draw(st.integers(0, a.rank - 1))
    out = spt.concat(axis, [a, b], expand_nonconcat_dim=True)
    shape = [max(x, y) for x, y in zip(a.shape, b.shape)]
    pa, pb = list(shape), list(shape)
    pa[axis], pb[axis] = a.shape[axis], b.shape[axis]

    def padded(sp, s):
        d = np.zeros(s, sp.dtype)
        d[tuple(slice(0, k) for k in sp.shape)] = dsum(sp)
        return d

    assert_same(dsum(out), np.concatenate([padded(a, pa), padded(b, pb)], axis=axis))


@needs("split")
@SETTINGS
@given(st.data())
def test_split(data):
    sp = data.draw(tensors())
    axis = data.draw(st.integers(0, sp.rank - 1))
    if sp.shape[axis] == 0:
        with pytest.raises(spt.InvalidArgumentError):
            spt.split(sp, 1, axis)
        return
    k = data.draw(st.integers(1, sp.shape[axis]))
    pieces = spt.split(sp_input=sp, num_split=k, axis=axis)
    assert len(pieces) == k
    assert_same(np.concatenate([dsum(p) for p in pieces], axis=axis), dsum(sp))
    want = np.array_split(dsum(sp), k, axis=axis)  # the first size % k pieces are one larger, as TF
    for p, w in zip(pieces, want):
        assert_same(dsum(p), w)
    with pytest.raises(spt.InvalidArgumentError):
        spt.split(sp, sp.shape[axis] + 1, axis)


@needs("slice")
@SETTINGS
@given(st.data())
def test_slice(data):
    sp = data.draw(tensors())
    start = [data.draw(st.integers(0, s + 1)) for s in sp.shape]
    size = [data.draw(st.integers(0, s + 2)) for s in sp.shape]
    out = spt.slice(sp, start, size)
    want = dsum(sp)[tuple(slice(b, b + z) for b, z in zip(start, size))]
    assert_same(dsum(out), want)
    if sparse is not None and sp.dtype.kind != "b" and all(b < s for b, s in zip(start, sp.shape)):
        x = spt.to_pydata(sp)[tuple(slice(b, b + z) for b, z in zip(start, size))]
        assert_same(x.todense(), want)


@needs("retain")
@SETTINGS
@given(tensors(), st.integers(0, 2 ** 32 - 1))
def test_retain(sp, seed):
    mask = np.random.default_rng(seed).integers(0, 2, sp.nnz).astype(bool)
    out = spt.retain(sp, mask)
    assert np.array_equal(out.indices, sp.indices[mask]) and np.array_equal(out.values, sp.values[mask])
    with pytest.raises(spt.InvalidArgumentError):
        spt.retain(sp, np.ones(sp.nnz + 1, bool))


@needs("reset_shape")
@SETTINGS
@given(tensors(), st.integers(0, 3))
def test_reset_shape(sp, grow):
    tight = spt.reset_shape(sp)
    want = (sp.indices.max(axis=0) + 1).tolist() if sp.nnz else [0] * sp.rank
    assert list(tight.shape) == want
    big = [s + grow for s in sp.shape]
    out = spt.reset_shape(sp, big)
    d = np.zeros(big, sp.dtype)
    d[tuple(slice(0, s) for s in sp.shape)] = dsum(sp)
    assert_same(dsum(out), d)
    if any(s > 0 for s in sp.shape):
        small = [max(0, s - 1) for s in sp.shape]
        with pytest.raises(spt.InvalidArgumentError):
            spt.reset_shape(sp, small)


@needs("fill_empty_rows")
@SETTINGS
@given(tensors(dtypes=REAL + ["bool"]))
def test_fill_empty_rows(sp):
    dv = np.ones((), sp.dtype)[()]
    if sp.shape[0] > 0 and 0 in sp.shape[1:]:
        # an empty row's new entry [r, 0, ...] cannot exist in a zero-volume shape: spt refuses
        with pytest.raises(spt.OutOfRangeError):
            spt.fill_empty_rows(sp, dv)
        return
    out, empty, rim = spt.fill_empty_rows(sp, dv, return_reverse_index_map=True)
    rows = np.zeros(sp.shape[0], bool)
    rows[sp.indices[:, 0]] = True
    assert np.array_equal(empty, ~rows)
    want = dsum(sp)
    for r in np.nonzero(~rows)[0]:
        want[(r,) + (0,) * (sp.rank - 1)] = dv
    assert_same(dsum(out), want)
    assert np.array_equal(out.indices[rim], sp.indices) and np.array_equal(out.values[rim], sp.values)
    assert np.all(np.diff(out.indices[:, 0]) >= 0)


@needs("reshape")
@SETTINGS
@given(st.data())
def test_reshape(data):
    sp = data.draw(tensors())
    vol = int(np.prod(sp.shape))
    shapes = [[vol], list(sp.shape[::-1])]
    if vol:
        shapes.append([-1] + list(sp.shape[1:]) if sp.rank > 1 else [-1])
    new = data.draw(st.sampled_from(shapes))
    out = spt.reshape(sp, new)
    want = dsum(sp).reshape(new)
    assert_same(dsum(out), want)
    if sparse is not None and sp.dtype.kind != "b":
        assert_same(spt.to_pydata(sp).reshape(want.shape).todense(), want)
    with pytest.raises(spt.InvalidArgumentError):
        spt.reshape(sp, [vol + 1])


@needs("transpose")
@SETTINGS
@given(tensors(), st.randoms(use_true_random=False))
def test_transpose(sp, rnd):
    perm = list(range(sp.rank))
    rnd.shuffle(perm)
    out = spt.transpose(sp, perm)
    assert rowmajor_sorted(out)
    assert_same(dsum(out), dsum(sp).transpose(perm))
    assert_same(dsum(spt.transpose(sp)), dsum(sp).transpose())
    if sparse is not None and sp.dtype.kind != "b":
        assert_same(spt.to_pydata(sp).transpose(perm).todense(), dsum(sp).transpose(perm))


@needs("to_indicator", "merge")
@SETTINGS
@given(st.data())
def test_to_indicator_and_merge(data):
    sp = data.draw(tensors(dtypes=INTS, max_rank=3))
    vocab = 6
    ids = spt.SparseTensor(sp.indices, np.abs(sp.values.astype(np.int64)) % vocab, sp.shape)
    ind = spt.to_indicator(ids, vocab)
    want = np.zeros(sp.shape[:-1] + (vocab,), bool)
    for ix, v in zip(ids.indices, ids.values):
        want[tuple(ix[:-1]) + (v,)] = True
    assert np.array_equal(ind, want)
    vals = spt.SparseTensor(sp.indices, np.arange(sp.nnz, dtype=np.float64), sp.shape)
    m = spt.merge(ids, vals, vocab)
    assert m.shape == sp.shape[:-1] + (vocab,) and rowmajor_sorted(m)
    exp_ix = np.concatenate([ids.indices[:, :-1], ids.values[:, None]], axis=1)
    perm = np.lexsort(exp_ix.T[::-1]) if sp.nnz else np.zeros(0, int)
    assert np.array_equal(m.indices, exp_ix[perm]) and np.array_equal(m.values, vals.values[perm])
    if sp.nnz:
        bad = spt.SparseTensor(sp.indices, np.full(sp.nnz, vocab), sp.shape)
        with pytest.raises(spt.OutOfRangeError):
            spt.to_indicator(bad, vocab)


# ---- math -----------------------------------------------------------------------------------------------

def axes_strategy(rank):
    return st.one_of(st.none(), st.lists(st.integers(-rank, rank - 1), max_size=rank + 1))


def norm_axes(axes, rank):
    return tuple(range(rank)) if axes is None else tuple(sorted(set(a % rank for a in axes)))


@needs("reduce_sum", "reduce_sum_sparse")
@SETTINGS
@given(st.data())
def test_reduce_sum(data):
    sp = data.draw(tensors(dtypes=SUMMABLE))
    axes = data.draw(axes_strategy(sp.rank))
    keep = data.draw(st.booleans())
    ax = norm_axes(axes, sp.rank)
    want = dsum(sp).sum(axis=ax, keepdims=keep, dtype=sp.dtype)
    got = spt.reduce_sum(sp, axes, keepdims=keep)
    assert_same(np.asarray(got), np.asarray(want))
    s = spt.reduce_sum_sparse(sp, axes, keepdims=keep)
    assert rowmajor_sorted(s) and s.shape == np.shape(want)
    assert_same(dsum(s), np.asarray(want))
    if sparse is not None and ax and len(ax) < sp.rank and sp.dtype.kind in "if" and sp.dtype != np.uint64:
        x = spt.to_pydata(sp).sum(axis=ax, keepdims=keep, dtype=sp.dtype)
        assert_same(np.asarray(x.todense()), np.asarray(want))


@needs("reduce_max", "reduce_max_sparse")
@SETTINGS
@given(st.data())
def test_reduce_max(data):
    sp = data.draw(tensors(dtypes=REAL))
    axes = data.draw(axes_strategy(sp.rank))
    keep = data.draw(st.booleans())
    ax = norm_axes(axes, sp.rank)
    kept = [d for d in range(sp.rank) if d not in ax]
    out_shape = [1 if (d in ax) else s for d, s in enumerate(sp.shape)] if keep else [sp.shape[d] for d in kept]
    want = np.zeros(out_shape, sp.dtype)
    seen = {}
    for ix, v in zip(sp.indices, sp.values):  # the max of the stored values (implicit zeros excluded)
        key = tuple(0 if (keep and d in ax) else ix[d] for d in range(sp.rank) if keep or d in kept)
        seen[key] = v if key not in seen or seen[key] < v else seen[key]
    for k, v in seen.items():
        want[k] = v
    assert_same(np.asarray(spt.reduce_max(sp, axes, keepdims=keep)), want)
    s = spt.reduce_max_sparse(sp, axes, keepdims=keep)
    assert s.nnz == len(seen) and rowmajor_sorted(s)
    assert_same(dlast(s), want)


@needs("add")
@SETTINGS
@given(st.data())
def test_add(data):
    a = data.draw(tensors(dtypes=SIGNED + FLOATS + ["complex64", "complex128"]))
    b = data.draw(tensors(shape=a.shape, dtype=a.dtype))
    out = spt.add(a, b)
    assert rowmajor_sorted(out) and out.shape == a.shape
    assert_same(dsum(out), dsum(a) + dsum(b))
    d = gen_values(np.random.default_rng(1), a.dtype, int(np.prod(a.shape))).reshape(a.shape)
    assert_same(spt.add(a, d), d + dsum(a))
    assert_same(spt.add(d, a), d + dsum(a))
    if sparse is not None and a.dtype.kind == "f":
        x = spt.to_pydata(a) + spt.to_pydata(b)
        assert_same(x.todense(), dsum(out))


@needs("add")
@SETTINGS
@given(st.data())
def test_add_threshold(data):
    a = data.draw(tensors(dtypes=["int32", "float64"], unique=True))
    b = data.draw(tensors(shape=a.shape, dtype=a.dtype, unique=True))
    t = data.draw(st.sampled_from([0, 0.5, 1, 2.5]))
    if a.dtype.kind == "i" and t != int(t):
        # integer values take an integer threshold (TensorFlow converts it to their dtype)
        with pytest.raises(spt.DtypeError, match="must be an integer"):
            spt.add(a, b, threshold=t)
        return
    out = spt.add(a, b, threshold=t)
    da, db = dlast(a), dlast(b)
    pa, pb = np.zeros(a.shape, bool), np.zeros(a.shape, bool)
    pa[tuple(a.indices.T)] = True
    pb[tuple(b.indices.T)] = True
    s = da + db
    keep = (pa ^ pb) | (pa & pb & (np.abs(s) >= t))
    assert np.array_equal(np.argwhere(keep), out.indices) and np.array_equal(s[keep], out.values)


@needs("maximum", "minimum")
@SETTINGS
@given(st.data())
def test_maximum_minimum(data):
    a = data.draw(tensors(dtypes=REAL, unique=True))
    b = data.draw(tensors(shape=a.shape, dtype=a.dtype, unique=True))
    da, db = dlast(a), dlast(b)
    mx, mn = spt.maximum(a, b), spt.minimum(a, b)
    assert rowmajor_sorted(mx) and rowmajor_sorted(mn)
    assert_same(dlast(mx), np.maximum(da, db))
    assert_same(dlast(mn), np.minimum(da, db))
    union = np.zeros(a.shape, bool)
    union[tuple(a.indices.T)] = True
    union[tuple(b.indices.T)] = True
    assert mx.nnz == int(union.sum())
    if sparse is not None and a.dtype.kind == "f":
        x = sparse.elemwise(np.maximum, spt.to_pydata(a), spt.to_pydata(b))
        assert_same(x.todense(), np.maximum(da, db))


@needs("softmax")
@SETTINGS
@given(tensors(dtypes=FLOATS, min_rank=2, unique=True))
def test_softmax(sp):
    out = spt.softmax(sp)
    assert rowmajor_sorted(out)
    r = spt.reorder(sp)
    assert np.array_equal(out.indices, r.indices)
    want = np.zeros(r.nnz, np.float64)
    groups = {}
    for i, ix in enumerate(r.indices):
        groups.setdefault(tuple(ix[:-1]), []).append(i)
    for idx in groups.values():
        v = r.values[idx].astype(np.float64)
        e = np.exp(v - v.max())
        want[idx] = e / e.sum()
    assert np.allclose(out.values, want, rtol=1e-5, atol=1e-6)
    torch = pytest.importorskip("torch")
    if r.nnz:
        tt = spt.to_torch(r).coalesce()
        ts = torch.sparse.softmax(tt, dim=r.rank - 1).coalesce()
        assert np.allclose(ts.values().numpy(), out.values, rtol=1e-5, atol=1e-6)


@needs("sparse_dense_cwise_mul", "sparse_dense_cwise_div", "sparse_dense_cwise_add")
@SETTINGS
@given(st.data())
def test_cwise(data):
    sp = data.draw(tensors(dtypes=REAL))
    k = data.draw(st.integers(0, sp.rank))
    dshape = [data.draw(st.sampled_from([1, s])) for s in sp.shape[sp.rank - k:]]
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    d = gen_values(rng, sp.dtype, int(np.prod(dshape)), nonzero=True).reshape(dshape)
    at = np.broadcast_to(d, sp.shape)[tuple(sp.indices.T)] if sp.nnz else np.zeros(0, sp.dtype)
    v = sp.values
    for fn, want in ((spt.sparse_dense_cwise_mul, v * at), (spt.sparse_dense_cwise_add, v + at)):
        out = fn(sp, d)
        assert np.array_equal(out.indices, sp.indices)
        assert_same(out.values, want.astype(sp.dtype))
    q = spt.sparse_dense_cwise_div(sp, d).values
    if sp.dtype.kind == "f":
        assert_same(q, v / at)
    else:
        with np.errstate(all="ignore"):
            assert np.array_equal(q, np.trunc(v.astype(np.float64) / at.astype(np.float64)).astype(sp.dtype))
    if sp.dtype.kind in "iu" and sp.nnz:
        with pytest.raises(spt.InvalidArgumentError):
            spt.sparse_dense_cwise_div(sp, np.zeros(sp.shape, sp.dtype))
    if sp.rank > 0 and all(s > 1 for s in sp.shape):
        with pytest.raises(spt.InvalidArgumentError):
            spt.sparse_dense_cwise_mul(sp, np.ones([s + 1 for s in sp.shape], sp.dtype))


@needs("sparse_dense_matmul")
@SETTINGS
@given(st.data())
def test_matmul(data):
    a = data.draw(tensors(dtypes=SUMMABLE, min_rank=2, max_rank=2))
    adj_a, adj_b = data.draw(st.booleans()), data.draw(st.booleans())
    A = dsum(a)
    opA = A.conj().T if adj_a else A
    n = data.draw(st.integers(0, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    Bshape = (n, opA.shape[1]) if adj_b else (opA.shape[1], n)
    B = gen_values(rng, a.dtype, int(np.prod(Bshape))).reshape(Bshape)
    opB = B.conj().T if adj_b else B
    got = spt.sparse_dense_matmul(a, B, adjoint_a=adj_a, adjoint_b=adj_b)
    assert_same(got, opA @ opB)
    # the dense x sparse form
    C = gen_values(rng, a.dtype, 3 * A.shape[0]).reshape(3, A.shape[0])
    assert_same(spt.sparse_dense_matmul(C, a), C @ A)
    if A.shape[1] > 0:
        with pytest.raises(spt.InvalidArgumentError):
            spt.sparse_dense_matmul(a, np.zeros((A.shape[1] + 1, 2), a.dtype))
    if a.dtype.kind == "f" and a.nnz and not adj_a and not adj_b:
        torch = pytest.importorskip("torch")
        tm = torch.sparse.mm(spt.to_torch(a), torch.from_numpy(np.ascontiguousarray(B)))
        assert np.allclose(tm.numpy(), A @ B)


@needs("sparse_dense_matvec")
@SETTINGS
@given(st.data())
def test_matvec(data):
    a = data.draw(tensors(dtypes=FLOATS + SIGNED, min_rank=2, max_rank=2))
    adj = data.draw(st.booleans())
    A = dsum(a)
    opA = A.conj().T if adj else A
    x = gen_values(np.random.default_rng(0), a.dtype, opA.shape[1])
    assert_same(spt.sparse_dense_matvec(a, x, adjoint_a=adj), opA @ x)


@needs("reduce_sum")
@SETTINGS
@given(tensors(dtypes=FLOATS, unique=True))
def test_torch_sum_and_dense(sp):
    torch = pytest.importorskip("torch")
    t = spt.to_torch(sp)
    assert np.allclose(t.to_dense().numpy(), dlast(sp))
    if sp.nnz and sp.rank > 1:
        assert np.allclose(torch.sparse.sum(t, dim=0).to_dense().numpy(), spt.reduce_sum(sp, 0))
    back = spt.from_torch(t)
    assert_same(dsum(back), dlast(sp))


# ---- unsupported dtypes and bad arguments never crash ---------------------------------------------------

@pytest.mark.parametrize("dt, fn", [
    ("bool", lambda s: spt.reduce_sum(s)),
    ("complex64", lambda s: spt.reduce_max(s)),
    ("uint8", lambda s: spt.add(s, s)),
    ("int32", lambda s: spt.softmax(s)),
    ("bool", lambda s: spt.maximum(s, s)),
    ("complex128", lambda s: spt.sparse_dense_cwise_mul(s, np.ones((2, 2), np.complex128))),
])
def test_unsupported_dtypes(dt, fn):
    s = spt.SparseTensor([[0, 0]], np.ones(1, dt), [2, 2])
    try:
        fn(s)
    except NotImplementedError:
        pytest.skip("op not in this libspt")
    except spt.DtypeError:
        return
    pytest.fail("no DtypeError for %s" % dt)


BAD = [
    lambda: spt.concat(5, [spt.SparseTensor([[0]], [1.0], [2])]),
    lambda: spt.concat(0, [spt.SparseTensor([[0]], [1.0], [2]), spt.SparseTensor([[0]], [1], [2])]),
    lambda: spt.concat(0, [spt.SparseTensor([[0, 0]], [1.0], [2, 2]), spt.SparseTensor([[0]], [1.0], [2])]),
    lambda: spt.split(spt.SparseTensor([[0]], [1.0], [2]), 0, 0),
    lambda: spt.split(spt.SparseTensor([[0]], [1.0], [2]), 2 ** 62, 0),
    lambda: spt.split(spt.SparseTensor([[0]], [1.0], [2]), 1, 3),
    lambda: spt.slice(spt.SparseTensor([[0]], [1.0], [2]), [-1], [1]),
    lambda: spt.slice(spt.SparseTensor([[0]], [1.0], [2]), [0, 0], [1, 1]),
    lambda: spt.reshape(spt.SparseTensor([[0]], [1.0], [2]), [-1, -1]),
    lambda: spt.reshape(spt.SparseTensor([[0]], [1.0], [2]), [2 ** 40, 2 ** 40]),
    lambda: spt.transpose(spt.SparseTensor([[0, 0]], [1.0], [2, 2]), [0, 0]),
    lambda: spt.to_indicator(spt.SparseTensor([[0]], [1.0], [2]), 3),
    lambda: spt.to_indicator(spt.SparseTensor([[0]], [1], [2]), -1),
    lambda: spt.merge([spt.SparseTensor([[0]], [1], [2])], spt.SparseTensor([[0]], [1.0], [2]), [2, 3]),
    lambda: spt.reduce_sum(spt.SparseTensor([[0]], [1.0], [2]), [1]),
    lambda: spt.reduce_sum(spt.SparseTensor([[5]], [1.0], [2])),
    lambda: spt.add(spt.SparseTensor([[0]], [1.0], [2]), spt.SparseTensor([[0]], [1.0], [3])),
    lambda: spt.add(spt.SparseTensor([[0]], [1.0], [2]), np.zeros(3)),
    lambda: spt.sparse_dense_matmul(spt.SparseTensor([[0]], [1.0], [2]), np.zeros((2, 2))),
    lambda: spt.sparse_dense_matmul(spt.SparseTensor([[0, 9]], [1.0], [2, 2]), np.zeros((2, 2))),
    lambda: spt.softmax(spt.SparseTensor([[0]], [1.0], [2])),
    lambda: spt.fill_empty_rows(spt.SparseTensor(np.zeros((1, 0), np.int64), [1.0], []), 0.0),
    lambda: spt.fill_empty_rows(spt.SparseTensor([[7, 0]], [1.0], [2, 2]), 0.0),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_arguments_raise_cleanly(i):
    try:
        BAD[i]()
    except NotImplementedError:
        pytest.skip("op not in this libspt")
    except (spt.SptError, ValueError, TypeError, IndexError, OverflowError, MemoryError) as e:
        assert str(e)
        return
    pytest.fail("no error")


# ---- strings through the layout ops -----------------------------------------------------------------------

@st.composite
def string_tensors(draw, shape=None):
    sp = draw(tensors(dtypes=["int64"], unique=True, shape=shape, max_rank=3))
    vals = np.array([("s%d" % v).encode() * (abs(int(v)) % 3) + b"\x00" * (int(v) % 2) for v in sp.values],
                    dtype=object)
    return spt.SparseTensor(sp.indices, vals, sp.shape)


def sdense(sp):
    d = np.full(sp.shape, b"", dtype=object)
    for ix, v in zip(sp.indices, sp.values):
        d[tuple(ix)] = v
    return d


@needs("concat", "split", "slice", "transpose", "reshape", "retain", "fill_empty_rows")
@SETTINGS
@given(st.data())
def test_string_layout_ops(data):
    sp = data.draw(string_tensors())
    d = sdense(sp)
    assert np.array_equal(spt.to_dense(spt.reorder(sp)), d)
    axis = data.draw(st.integers(0, sp.rank - 1))
    other = data.draw(string_tensors(shape=sp.shape))
    assert np.array_equal(sdense(spt.concat(axis, [sp, other])), np.concatenate([d, sdense(other)], axis=axis))
    if sp.shape[axis]:
        k = data.draw(st.integers(1, sp.shape[axis]))
        for p, w in zip(spt.split(sp, k, axis), np.array_split(d, k, axis=axis)):
            assert np.array_equal(sdense(p), w)
    start = [data.draw(st.integers(0, s)) for s in sp.shape]
    assert np.array_equal(sdense(spt.slice(sp, start, [2] * sp.rank)),
                          d[tuple(slice(b, b + 2) for b in start)])
    perm = list(range(sp.rank))[::-1]
    assert np.array_equal(sdense(spt.transpose(sp, perm)), d.transpose(perm))
    assert np.array_equal(sdense(spt.reshape(sp, [-1] if d.size else [0])), d.reshape(-1))
    mask = np.arange(sp.nnz) % 2 == 0
    assert spt.retain(sp, mask).values.tolist() == sp.values[mask].tolist()
    if 0 not in sp.shape:
        out, empty = spt.fill_empty_rows(sp, b"fill")
        want = d.copy()
        for r in np.nonzero(empty)[0]:
            want[(r,) + (0,) * (sp.rank - 1)] = b"fill"
        assert np.array_equal(sdense(out), want)
