# SPDX-License-Identifier: Apache-2.0
"""The products from Python (src/ops/products): each op against a dense numpy reference on small random
tensors (integers exact, floats within a stated tolerance), bad inputs as spt's exceptions, results pickled
by value. tensordot and einsum: test_products_tensordot.py."""
import pickle

import numpy as np
import pytest

import spt
from sparse_util import DTYPES, adj, check, dense, row_major_unique, rsparse, rvals


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("aa,ab", [(False, False), (True, False), (False, True), (True, True)])
def test_sparse_sparse_matmul_rank2(dt, aa, ab):
    rng = np.random.default_rng(1)
    for m, k, n in [(4, 5, 3), (1, 1, 1), (7, 2, 6)]:
        a = rsparse(rng, (k, m) if aa else (m, k), dt)
        b = rsparse(rng, (n, k) if ab else (k, n), dt, unsorted=True)
        c = spt.sparse_sparse_matmul(a, b, adjoint_a=aa, adjoint_b=ab)
        want = adj(dense(a), aa) @ adj(dense(b), ab)
        assert c.dtype == np.dtype(dt) and tuple(c.shape) == (m, n)
        check(dense(c), want, dt)
        assert row_major_unique(c)
        if np.dtype(dt).kind == "i":  # without keep_zeros no stored zero
            assert np.all(np.asarray(c.values) != 0)


@pytest.mark.parametrize("dt", DTYPES)
def test_sparse_sparse_matmul_batched_and_operator(dt):
    rng = np.random.default_rng(2)
    a = rsparse(rng, (3, 4, 5), dt)
    b = rsparse(rng, (3, 5, 2), dt)
    c = spt.sparse_sparse_matmul(a, b)
    check(dense(c), np.matmul(dense(a), dense(b)), dt)
    assert row_major_unique(c)
    a2, b2 = rsparse(rng, (4, 4), dt), rsparse(rng, (4, 3), dt)
    d = a2 @ b2
    assert isinstance(d, spt.SparseTensor)
    check(dense(d), dense(a2) @ dense(b2), dt)


def test_sparse_sparse_matmul_keep_zeros():
    # row 0 of a times b cancels: 1*1 + 1*(-1) = 0
    a = spt.SparseTensor([[0, 0], [0, 1]], np.array([1, 1], np.int64), [1, 2])
    b = spt.SparseTensor([[0, 0], [1, 0]], np.array([1, -1], np.int64), [2, 1])
    assert spt.sparse_sparse_matmul(a, b).nnz == 0
    kz = spt.sparse_sparse_matmul(a, b, keep_zeros=True)
    assert kz.indices.tolist() == [[0, 0]] and kz.values.tolist() == [0]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("aa,ab", [(False, False), (True, True), (False, True)])
def test_bmm(dt, aa, ab):
    rng = np.random.default_rng(6)
    p, m, k, n = 3, 4, 5, 2
    a = rsparse(rng, (p, k, m) if aa else (p, m, k), dt)
    for bshape in [(p, n, k) if ab else (p, k, n), (n, k) if ab else (k, n)]:
        b = rvals(rng, int(np.prod(bshape)), dt).reshape(bshape)
        r = spt.bmm(a, b, adjoint_a=aa, adjoint_b=ab)
        assert isinstance(r, np.ndarray) and r.shape == (p, m, n)
        check(r, np.matmul(adj(dense(a), aa), adj(b, ab)), dt)


# ---- contractions --------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", DTYPES)
def test_mttkrp(dt):
    rng = np.random.default_rng(7)
    shape, rank = (4, 3, 5), 3
    t = rsparse(rng, shape, dt, unsorted=True)
    fs = [rvals(rng, s * rank, dt).reshape(s, rank) for s in shape]
    td = dense(t)
    wants = [np.einsum("ijk,jr,kr->ir", td, fs[1], fs[2]), np.einsum("ijk,ir,kr->jr", td, fs[0], fs[2]),
             np.einsum("ijk,ir,jr->kr", td, fs[0], fs[1])]
    for mode in range(3):
        given = [None if m == mode else f for m, f in enumerate(fs)]
        r = spt.mttkrp(t, given, mode)
        assert r.shape == (shape[mode], rank)
        check(r, wants[mode], dt)
        check(spt.mttkrp(t, fs, mode), wants[mode], dt)  # factors[mode] given but not read


@pytest.mark.parametrize("dt", DTYPES)
def test_ttv_and_ttm(dt):
    rng = np.random.default_rng(8)
    shape = (3, 4, 2)
    t = rsparse(rng, shape, dt)
    td = dense(t)
    for mode in range(3):
        v = rvals(rng, shape[mode], dt)
        r = spt.ttv(t, v, mode)
        assert tuple(r.shape) == tuple(s for i, s in enumerate(shape) if i != mode)
        check(dense(r), np.tensordot(td, v, axes=([mode], [0])), dt)
        u = rvals(rng, 5 * shape[mode], dt).reshape(5, shape[mode])
        r = spt.ttm(t, u, mode)
        want = np.moveaxis(np.tensordot(td, u, axes=([mode], [1])), -1, mode)
        assert tuple(r.shape) == want.shape
        check(dense(r), want, dt)


# ---- bad inputs ----------------------------------------------------------------------------------


def test_shape_mismatches():
    f = spt.SparseTensor([[0, 0]], [1.0], [2, 3])
    g = spt.SparseTensor([[0, 0]], [1.0], [2, 3])
    with pytest.raises(spt.InvalidArgumentError, match="inner dimension"):
        spt.sparse_sparse_matmul(f, g)
    with pytest.raises(spt.InvalidArgumentError):
        spt.multiply(f, spt.SparseTensor([[0, 0]], [1.0], [3, 2]))
    with pytest.raises(spt.InvalidArgumentError):
        spt.subtract(f, spt.SparseTensor([[0]], [1.0], [6]))
    with pytest.raises(spt.InvalidArgumentError):
        spt.multiply(f, np.ones((4,)))  # does not broadcast
    with pytest.raises(spt.InvalidArgumentError):
        spt.bmm(spt.SparseTensor([[0, 0, 0]], [1.0], [1, 2, 3]), np.ones((4, 2)))
    t = spt.SparseTensor([[0, 0, 0]], [1.0], [2, 3, 4])
    with pytest.raises(spt.InvalidArgumentError):
        spt.ttv(t, np.ones(5), 1)
    with pytest.raises(spt.InvalidArgumentError):
        spt.ttm(t, np.ones((2, 5)), 1)
    with pytest.raises(spt.InvalidArgumentError):
        spt.mttkrp(t, [None, np.ones((3, 2)), np.ones((4, 3))], 0)  # two different R
    with pytest.raises(spt.InvalidArgumentError):
        spt.mttkrp(t, [None, np.ones((3, 2))], 0)  # nfactors != rank
    s = spt.add(f, g)
    with pytest.raises(spt.InvalidArgumentError):
        spt.add_grad(np.ones(s.nnz + 1), f, g, s)  # wrong length


def test_modes_out_of_range():
    t = spt.SparseTensor([[0, 0, 0]], [1.0], [2, 3, 4])
    for mode in (3, -1, 2 ** 40):
        with pytest.raises(spt.OutOfRangeError):
            spt.ttv(t, np.ones(3), mode)
        with pytest.raises(spt.OutOfRangeError):
            spt.ttm(t, np.ones((2, 3)), mode)
        with pytest.raises(spt.OutOfRangeError):
            spt.mttkrp(t, [None, np.ones((3, 2)), np.ones((4, 2))], mode)


@pytest.mark.parametrize("big", [2 ** 64, -(2 ** 63) - 1])
def test_ints_outside_int64(big):
    t = spt.SparseTensor([[0, 0, 0]], [1.0], [2, 3, 4])
    with pytest.raises(spt.SptError):
        spt.ttv(t, np.ones(3), big)
    with pytest.raises(spt.SptError):
        spt.ttm(t, np.ones((2, 3)), big)
    with pytest.raises(spt.SptError):
        spt.mttkrp(t, [np.ones((2, 2)), np.ones((3, 2)), np.ones((4, 2))], big)
    with pytest.raises(spt.SptError):
        spt.concat_grad([t, t], np.ones(2), big)
    with pytest.raises(spt.SptError):
        spt.slice_grad(np.ones(1), t, [0, big, 0], t)
    with pytest.raises(spt.SptError):
        spt.reduce_sum_grad(t, np.ones(3), axis=[big])
    with pytest.raises(spt.SptError):
        spt.ttv(t, np.ones(3), 1.5)  # not an integer
    with pytest.raises(spt.SptError):
        spt.sparse_sparse_matmul(t, t, adjoint_a=3)  # not a bool


def test_wrong_dtypes():
    f = spt.SparseTensor([[0, 0]], [1.0], [2, 2])
    i = spt.SparseTensor([[0, 0]], np.array([1], np.int64), [2, 2])
    with pytest.raises(spt.DtypeError):
        spt.sparse_sparse_matmul(f, i)
    with pytest.raises(spt.DtypeError):
        spt.multiply(f, i)
    with pytest.raises(spt.DtypeError):
        spt.subtract(f, i)
    with pytest.raises(spt.DtypeError):
        spt.multiply(f, np.ones(2, np.int64))
    with pytest.raises(spt.DtypeError):
        spt.ttv(f, np.ones(2, np.float32), 0)
    with pytest.raises(spt.DtypeError):
        spt.multiply(np.ones(2), np.ones(2))
    with pytest.raises(spt.DtypeError):
        spt.mttkrp(f, "not a list", 0)


def test_results_pickle_by_value():
    rng = np.random.default_rng(20)
    a, b = rsparse(rng, (3, 4), np.float64), rsparse(rng, (4, 2), np.float64)
    t = rsparse(rng, (3, 4, 2), np.complex128)
    for r in (spt.sparse_sparse_matmul(a, b), spt.multiply(a, a), spt.subtract(a, a), spt.ttv(t, np.ones(4, complex), 1),
              spt.ttm(t, np.ones((2, 2), complex), 2)):
        q = pickle.loads(pickle.dumps(r))
        assert q is not r and q.dtype == r.dtype and tuple(q.shape) == tuple(r.shape)
        assert np.array_equal(q.indices, r.indices) and np.array_equal(q.values, r.values)
        assert list(q.order) == list(r.order)
    m = spt.mttkrp(t, [None, np.ones((4, 2), complex), np.ones((2, 2), complex)], 0)
    assert np.array_equal(pickle.loads(pickle.dumps(m)), m)
