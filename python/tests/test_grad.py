# SPDX-License-Identifier: Apache-2.0
"""The gradient kernels from Python (src/ops/grad) against central finite differences in float64; float32
accepted, integers refused."""
import numpy as np
import pytest

import spt
from sparse_util import dense, rsparse


EPS = 1e-6


GTOL = 1e-6  # central differences of functions at most quadratic in the values: error ~ EPS^2 * scale


def fd(loss, x):
    """The gradient of loss at x by central differences."""
    x = np.array(x, dtype=np.float64)
    g = np.empty_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += EPS
        xm[i] -= EPS
        g[i] = (loss(xp) - loss(xm)) / (2 * EPS)
    return g


def weights(rng, shape):
    return rng.uniform(-1, 1, shape)


def sp_loss(w):
    """loss(sparse output) = sum over cells of w * the output's dense value; its value gradient is w
    at each output entry's index."""
    return lambda out: float(np.sum(w * dense(out)))


def g_of(out, w):
    return w[tuple(np.asarray(out.indices).T)] if out.nnz else np.zeros(0)


def close(a, b):
    assert np.allclose(a, b, rtol=GTOL, atol=GTOL), (a, b)


def test_add_grad():
    rng = np.random.default_rng(10)
    a, b = rsparse(rng, (3, 4), np.float64), rsparse(rng, (3, 4), np.float64)
    s = spt.add(a, b)
    w = weights(rng, (3, 4))
    ga, gb = spt.add_grad(g_of(s, w), a, b, s)
    L = sp_loss(w)
    close(ga, fd(lambda v: L(spt.add(a.with_values(v), b)), a.values))
    close(gb, fd(lambda v: L(spt.add(a, b.with_values(v))), b.values))
    # an entry dropped by the threshold gets 0
    a1 = spt.SparseTensor([[0, 0], [0, 1]], [1.0, 1.0], [1, 2])
    b1 = spt.SparseTensor([[0, 0]], [-0.999], [1, 2])
    s1 = spt.add(a1, b1, threshold=0.01)
    ga, gb = spt.add_grad(np.ones(s1.nnz), a1, b1, s1)
    assert s1.nnz == 1 and ga.tolist() == [0.0, 1.0] and gb.tolist() == [0.0]


def test_slice_grad():
    rng = np.random.default_rng(11)
    x = rsparse(rng, (4, 5), np.float64)
    start, size = [1, 1], [2, 3]
    o = spt.slice(x, start, size)
    w = weights(rng, (2, 3))
    g = spt.slice_grad(g_of(o, w), x, start, o)
    close(g, fd(lambda v: sp_loss(w)(spt.slice(x.with_values(v), start, size)), x.values))


def test_fill_empty_rows_grad():
    rng = np.random.default_rng(12)
    x = spt.SparseTensor([[0, 1], [2, 0], [2, 3]], [1.0, 2.0, 3.0], [5, 4])
    out, _, rim = spt.fill_empty_rows(x, 0.5, return_reverse_index_map=True)
    w = weights(rng, (5, 4))
    dv, dd = spt.fill_empty_rows_grad(rim, g_of(out, w))
    L = sp_loss(w)
    close(dv, fd(lambda v: L(spt.fill_empty_rows(x.with_values(v), 0.5)[0]), x.values))
    close(np.array([dd]), fd(lambda d: L(spt.fill_empty_rows(x, float(d[0]))[0]), [0.5]))
    assert np.ndim(dd) == 0


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), ([0, 2], False)])
def test_reduce_sum_grad(axis, keepdims):
    rng = np.random.default_rng(13)
    x = rsparse(rng, (3, 4, 2), np.float64, unsorted=True)
    out = spt.reduce_sum(x, axis=axis, keepdims=keepdims)
    w = weights(rng, np.shape(out))
    g = spt.reduce_sum_grad(x, w, axis=axis, keepdims=keepdims)
    close(g, fd(lambda v: float(np.sum(w * spt.reduce_sum(x.with_values(v), axis=axis, keepdims=keepdims))),
                x.values))


def test_softmax_grad():
    rng = np.random.default_rng(14)
    x = rsparse(rng, (3, 5), np.float64, density=0.6)
    sm = spt.softmax(x)
    w = weights(rng, (3, 5))
    g = spt.softmax_grad(sm, g_of(sm, w))
    close(g, fd(lambda v: sp_loss(w)(spt.softmax(x.with_values(v))), x.values))


@pytest.mark.parametrize("aa,ab", [(False, False), (True, False), (False, True), (True, True)])
def test_sparse_dense_matmul_grad(aa, ab):
    rng = np.random.default_rng(15)
    m, k, n = 3, 4, 2
    a = rsparse(rng, (k, m) if aa else (m, k), np.float64)
    b = rng.uniform(-1, 1, (n, k) if ab else (k, n))
    w = weights(rng, (m, n))
    ga, gb = spt.sparse_dense_matmul_grad(a, b, w, adjoint_a=aa, adjoint_b=ab)
    f = lambda aa_, bb: float(np.sum(w * spt.sparse_dense_matmul(aa_, bb, adjoint_a=aa, adjoint_b=ab)))  # noqa: E731
    close(ga, fd(lambda v: f(a.with_values(v), b), a.values))
    close(gb, fd(lambda bb: f(a, bb), b))
    assert gb.shape == b.shape


@pytest.mark.parametrize("shape_a,shape_b", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 3))])
def test_sparse_sparse_matmul_grad(shape_a, shape_b):
    rng = np.random.default_rng(16)
    a, b = rsparse(rng, shape_a, np.float64, 0.5), rsparse(rng, shape_b, np.float64, 0.5)
    c = spt.sparse_sparse_matmul(a, b)
    w = weights(rng, tuple(c.shape))
    ga, gb = spt.sparse_sparse_matmul_grad(a, b, c, g_of(c, w))
    L = sp_loss(w)
    close(ga, fd(lambda v: L(spt.sparse_sparse_matmul(a.with_values(v), b)), a.values))
    close(gb, fd(lambda v: L(spt.sparse_sparse_matmul(a, b.with_values(v))), b.values))


def test_multiply_grad():
    rng = np.random.default_rng(17)
    a, b = rsparse(rng, (4, 4), np.float64, 0.6), rsparse(rng, (4, 4), np.float64, 0.6)
    c = spt.multiply(a, b)
    w = weights(rng, (4, 4))
    ga, gb = spt.multiply_grad(a, b, c, g_of(c, w))
    L = sp_loss(w)
    close(ga, fd(lambda v: L(spt.multiply(a.with_values(v), b)), a.values))
    close(gb, fd(lambda v: L(spt.multiply(a, b.with_values(v))), b.values))


@pytest.mark.parametrize("axis,expand", [(0, False), (1, False), (1, True)])
def test_concat_grad(axis, expand):
    rng = np.random.default_rng(18)
    xs = [rsparse(rng, (3, 2), np.float64), rsparse(rng, (3 if not expand else 2, 4), np.float64)]
    if axis == 0 and not expand:
        xs[1] = rsparse(rng, (2, 2), np.float64)
    out = spt.concat(axis, xs, expand_nonconcat_dims=expand)
    w = weights(rng, tuple(out.shape))
    gs = spt.concat_grad(xs, g_of(out, w), axis, expand_nonconcat_dims=expand)
    assert len(gs) == 2
    for i in range(2):
        def loss(v, i=i):
            ys = list(xs)
            ys[i] = xs[i].with_values(v)
            return sp_loss(w)(spt.concat(axis, ys, expand_nonconcat_dims=expand))
        close(gs[i], fd(loss, xs[i].values))


@pytest.mark.parametrize("fname", ["maximum", "minimum"])
def test_maximum_minimum_grad(fname):
    rng = np.random.default_rng(19)
    fwd, grad = getattr(spt, fname), getattr(spt, fname + "_grad")
    a, b = rsparse(rng, (4, 5), np.float64, 0.5), rsparse(rng, (4, 5), np.float64, 0.5)
    c = fwd(a, b)
    w = weights(rng, (4, 5))
    ga, gb = grad(a, b, c, g_of(c, w))
    L = sp_loss(w)
    close(ga, fd(lambda v: L(fwd(a.with_values(v), b)), a.values))
    close(gb, fd(lambda v: L(fwd(a, b.with_values(v))), b.values))
    # a tie goes to a
    t = spt.SparseTensor([[0]], [1.0], [1])
    ga, gb = grad(t, t, fwd(t, t), [2.0])
    assert ga.tolist() == [2.0] and gb.tolist() == [0.0]


def test_float32_gradients_and_int_refused():
    a = spt.SparseTensor([[0, 0], [1, 1]], np.array([1.0, 2.0], np.float32), [2, 2])
    c = spt.multiply(a, a)
    ga, gb = spt.multiply_grad(a, a, c, np.array([1.0, 1.0], np.float32))
    assert ga.tolist() == [1.0, 2.0] and gb.tolist() == [1.0, 2.0]
    ai = spt.SparseTensor([[0, 0]], np.array([1], np.int64), [2, 2])
    with pytest.raises(spt.DtypeError):
        spt.multiply_grad(ai, ai, spt.multiply(ai, ai), np.array([1], np.int64))
    with pytest.raises(spt.DtypeError):
        spt.softmax_grad(ai, np.array([1.0]))
