# SPDX-License-Identifier: Apache-2.0
"""The elementwise ops from Python (src/ops/elementwise): multiply, divide and subtract against a numpy
reference, map_values and the unary math on SparseTensor values, cast; bad inputs as spt's exceptions."""
import ctypes
import math

import numpy as np
import pytest

import spt
from spt import _registry as R
from sparse_util import DTYPES, SP, check, dense, row_major_unique, rsparse, rvals, same, st


@pytest.mark.parametrize("dt", DTYPES)
def test_multiply_sparse_sparse_is_the_intersection(dt):
    rng = np.random.default_rng(3)
    for shape in [(4, 5), (3, 2, 4), ()]:
        a = rsparse(rng, shape, dt, density=0.5)
        b = rsparse(rng, shape, dt, density=0.5, unsorted=True)
        c = spt.multiply(a, b)
        check(dense(c), dense(a) * dense(b), dt)
        pa = set(map(tuple, np.asarray(a.indices).tolist()))
        pb = set(map(tuple, np.asarray(b.indices).tolist()))
        assert set(map(tuple, np.asarray(c.indices).tolist())) == pa & pb
        assert row_major_unique(c)
        check(dense(a * b), dense(c), dt)


@pytest.mark.parametrize("dt", DTYPES)
def test_multiply_and_divide_by_dense_broadcast(dt):
    rng = np.random.default_rng(4)
    for sshape, dshape in [((3, 4), (4,)), ((3, 1, 4), (5, 1)), ((2, 3), (2, 3)), ((4,), (3, 1))]:
        a = rsparse(rng, sshape, dt)
        d = rvals(rng, int(np.prod(dshape)), dt).reshape(dshape)
        if np.dtype(dt).kind == "i":
            d[d == 0] = 3
        out_shape = np.broadcast_shapes(sshape, dshape)
        mask = np.broadcast_to(dense(spt.SparseTensor(a.indices, np.ones(a.nnz), sshape)) != 0, out_shape)
        ad = np.broadcast_to(dense(a), out_shape)
        for r in (spt.multiply(a, d), spt.multiply(d, a)):
            assert tuple(r.shape) == out_shape and r.nnz == int(mask.sum())
            check(dense(r), np.where(mask, ad * d, 0).astype(dt), dt)
        q = spt.divide(a, d)
        if np.dtype(dt).kind == "i":  # truncation toward zero, exactly
            dd = np.broadcast_to(d, out_shape)
            want = np.where(mask, np.sign(ad) * np.sign(dd) * (np.abs(ad) // np.abs(dd)), 0)
        else:
            want = np.where(mask, ad / np.where(mask, d, 1), 0)
        check(dense(q), want.astype(dt), dt)


def test_divide_by_zero_names_the_index():
    a = spt.SparseTensor([[0, 1]], np.array([4], np.int64), [2, 2])
    with pytest.raises(spt.InvalidArgumentError):
        spt.divide(a, np.array([1, 0], np.int64))


@pytest.mark.parametrize("dt", DTYPES)
def test_subtract(dt):
    rng = np.random.default_rng(5)
    a = rsparse(rng, (4, 6), dt)
    b = rsparse(rng, (4, 6), dt)
    for c in (spt.subtract(a, b), a - b):
        check(dense(c), dense(a) - dense(b), dt)
        pa = set(map(tuple, np.asarray(a.indices).tolist()))
        pb = set(map(tuple, np.asarray(b.indices).tolist()))
        assert set(map(tuple, np.asarray(c.indices).tolist())) == pa | pb


# ---- map_values and the unary math ---------------------------------------------------------------


@pytest.mark.parametrize("name,ref", [("abs", np.abs), ("negative", np.negative), ("sign", np.sign),
                                      ("square", np.square), ("exp", np.exp), ("sin", np.sin), ("tanh", np.tanh),
                                      ("floor", np.floor), ("ceil", np.ceil), ("round", np.rint)])
def test_unary_functions_match_numpy(name, ref):
    f = getattr(spt, name)
    got = f(SP)
    assert got.indices.tolist() == SP.indices.tolist() and got.dtype == np.float32
    want = ref(np.asarray(SP.values, np.float64)).astype(np.float32)
    assert np.allclose(got.values, want, rtol=1e-6, atol=0)
    same(spt.map_values(f, SP), got)
    same(getattr(spt.math, name)(SP), got)


def test_sqrt_rsqrt_log1p_erf_exact_points():
    x = st([[0], [1], [2]], np.array([4.0, 0.25, 0.0]), [3])
    assert spt.sqrt(x).values.tolist() == [2.0, 0.5, 0.0]
    assert spt.rsqrt(x).values.tolist()[:2] == [0.5, 2.0] and math.isinf(spt.rsqrt(x).values[2])
    assert spt.log1p(x).values[2] == 0.0 and spt.erf(x).values[2] == 0.0
    assert spt.round(st([[0], [1]], [2.5, -0.5], [2])).values.tolist() == [2.0, -0.0]  # half to even


def test_numpy_ufuncs_map_to_c_ops():
    same(spt.map_values(np.abs, SP), spt.abs(SP))
    same(spt.map_values(np.rint, SP), spt.round(SP))
    a = st([[0], [2]], np.array([1, 2], np.int64), [3])
    b = st([[0], [2]], np.array([10, -3], np.int64), [3])
    assert spt.map_values(np.add, a, b).values.tolist() == [11, -1]
    assert spt.map_values(spt.math.multiply, a, b).values.tolist() == [10, -6]
    assert spt.math.subtract(a, b).values.tolist() == [-9, 5]
    assert spt.map_values(np.multiply, a, 3).values.tolist() == [3, 6]
    assert spt.map_values(spt.cast, a, np.float32).dtype == np.float32
    assert spt.map_values(spt.cast, a, dtype="int8").values.tolist() == [1, 2]


def test_map_values_calls_any_function_once_on_the_values():
    """As TensorFlow: op is called once with the values arrays; its result is the new values."""
    calls = []

    def f(v, w, k=0):
        calls.append((v.copy(), w.copy(), k))
        return v * 2 + w + k

    a = st([[0], [2]], np.array([1.5, -2.0], np.float32), [3])
    r = spt.map_values(f, a, a, k=1)
    assert len(calls) == 1 and calls[0][0].tolist() == [1.5, -2.0] and calls[0][2] == 1
    assert r.dtype == np.float32 and r.values.tolist() == [5.5, -5.0] and r.indices.tolist() == [[0], [2]]
    r = spt.map_values(lambda v: (v > 0), a)  # the result's dtype is the function's
    assert r.dtype == np.bool_ and r.values.tolist() == [True, False]
    assert np.allclose(spt.map_values(np.log, st([[1]], [np.e], [2])).values, [1.0])
    with pytest.raises(spt.InvalidArgumentError, match="returned shape \\(1,\\) values for 2 entries"):
        spt.map_values(lambda v: v[:1], a)
    with pytest.raises(spt.InvalidArgumentError, match="a scalar"):
        spt.map_values(lambda v: 3.0, a)
    with pytest.raises(ZeroDivisionError):  # the caller's own error passes through
        spt.map_values(lambda v: 1 // 0, a)
    assert a.values.tolist() == [1.5, -2.0]
    with pytest.raises(ValueError):  # the values given to the function are read-only views
        spt.map_values(lambda v: v.__setitem__(0, 7), a)
    # complex values with a scalar (no C kernel): TensorFlow computes, so does spt
    z = st([[0], [1]], np.array([1 + 1j, 2], np.complex64), [2])
    assert spt.map_values(spt.math.multiply, z, np.complex64(2j)).values.tolist() == [-2 + 2j, 4j]
    assert spt.map_values(spt.math.add, z, np.complex64(2j)).values.tolist() == [1 + 3j, 2 + 2j]
    r0 = spt.SparseTensor(np.zeros((1, 0), np.int64), np.array([3], np.int32), [])
    assert spt.map_values(spt.math.multiply, r0, 2).values.tolist() == [6]  # rank 0: numpy, not cwise
    assert spt.map_values(spt.math.subtract, z, np.complex64(1)).values.tolist() == [1j, 1]


def test_map_values_refusals():
    with pytest.raises(spt.InvalidArgumentError, match="no SparseTensor"):
        spt.map_values(spt.abs, np.ones(3))
    with pytest.raises(spt.DtypeError, match="callable"):
        spt.map_values(5, SP)
    a = st([[0], [2]], [1.0, 2.0], [3])
    with pytest.raises(spt.InvalidArgumentError, match="same indices"):
        spt.map_values(np.add, a, st([[0], [1]], [1.0, 2.0], [3]))
    with pytest.raises(spt.InvalidArgumentError, match="other indices or shape"):
        spt.map_values(lambda x, y: x + y, a, st([[0], [1]], [1.0, 2.0], [3]))
    with pytest.raises(spt.DtypeError):
        spt.map_values(np.add, a, st([[0], [2]], np.array([1, 2], np.int64), [3]))
    with pytest.raises(spt.InvalidArgumentError):
        spt.map_values(np.add, a, 0.5 + 1j)  # not exact in float64
    with pytest.raises(spt.DtypeError, match="SparseTensor"):
        spt.abs(np.array([-1.0]))


def test_unary_dtype_rules():
    with pytest.raises(spt.DtypeError):
        spt.sqrt(st([[0]], np.array([4], np.int32), [1]))  # floats and complex only
    with pytest.raises(spt.DtypeError):
        spt.abs(st([[0]], [b"x"], [1]))
    ints = st([[0], [1]], np.array([-128, 5], np.int8), [2])
    assert spt.abs(ints).values.tolist() == [-128, 5]  # |MIN| wraps, as TF's
    assert spt.ones_like(ints).values.tolist() == [1, 1]


def test_cast_rules():
    f = st([[0], [1], [2], [3]], [1.9, -1.9, float("nan"), 1e300], [4])
    assert spt.cast(f, np.int32).values.tolist() == [1, -1, 0, 2 ** 31 - 1]
    assert spt.cast(st([[0]], np.array([300], np.int64), [1]), "uint8").values.tolist() == [44]
    with pytest.raises(spt.DtypeError):
        spt.cast(f, "string")
    with pytest.raises(spt.DtypeError, match="dtype"):
        spt.cast(f, "no-such-dtype")


def test_unary_op_count_matches_the_header():
    names = spt._elementwise.UNARY
    assert len(names) == R.NUNARY
    codes = []
    for n in names:
        out = ctypes.c_int(-1)
        R.C.spt_unary_op_from_name(n, out)
        codes.append(out.value)
    assert codes == list(range(R.NUNARY))
    with pytest.raises(spt.InvalidArgumentError):
        R.C.spt_unary_op_from_name("no_such_op", ctypes.c_int(-1))
    with pytest.raises(spt.InvalidArgumentError, match="NUL"):
        R.C.spt_unary_op_from_name("abs\0", ctypes.c_int(-1))
