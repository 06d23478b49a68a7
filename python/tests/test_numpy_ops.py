# SPDX-License-Identifier: Apache-2.0
"""Numpy-native and TF2-exact: operators, methods, np.asarray, TF2 keyword spellings, repr."""
import numpy as np
import pytest

import spt


def sp_i():
    return spt.SparseTensor([[0, 0], [1, 2], [2, 3]], np.array([2, -4, 6], np.int64), [3, 4])


def sp_f():
    return spt.SparseTensor([[0, 0], [1, 2], [2, 3]], np.array([2.0, -4.0, 6.0]), [3, 4])


def test_mul_by_dense_and_scalar_is_sparse_cwise():
    d = np.arange(12, dtype=np.float64).reshape(3, 4)
    for r in (sp_f() * d, d * sp_f()):
        assert isinstance(r, spt.SparseTensor)
        assert r.indices.tolist() == [[0, 0], [1, 2], [2, 3]] and r.values.tolist() == [0.0, -24.0, 66.0]
    r = sp_f() * 3
    assert r.values.tolist() == [6.0, -12.0, 18.0] and r.dtype == np.float64
    r = 2 * sp_i()
    assert (np.float64(2.0) * sp_f()).values.tolist() == [4.0, -8.0, 12.0]
    assert r.values.tolist() == [4, -8, 12] and r.dtype == np.int64
    row = np.array([1.0, 2.0, 3.0, 4.0])  # broadcast as TF does
    assert (sp_f() * row).values.tolist() == [2.0, -12.0, 24.0]


def test_truediv_follows_tf():
    d = np.full((3, 4), 4.0)
    r = sp_f() / d
    assert isinstance(r, spt.SparseTensor) and r.values.tolist() == [0.5, -1.0, 1.5]
    r = sp_i() / 4  # integers become float64 (TF's truediv table), no truncation
    assert r.dtype == np.float64 and r.values.tolist() == [0.5, -1.0, 1.5]
    r8 = spt.SparseTensor([[0]], np.array([3], np.int8), [2]) / 2
    assert r8.dtype == np.float32 and r8.values.tolist() == [1.5]
    with pytest.raises(spt.DtypeError):
        spt.SparseTensor([[0]], np.array([True]), [2]) / 2


def test_add_neg_abs():
    a = sp_f()
    s = a + a
    assert isinstance(s, spt.SparseTensor) and s.values.tolist() == [4.0, -8.0, 12.0]
    d = np.ones((3, 4))
    for r in (a + d, d + a):
        assert isinstance(r, np.ndarray) and r[1, 2] == -3.0 and r[0, 1] == 1.0
    assert (-a).values.tolist() == [-2.0, 4.0, -6.0]
    assert abs(a).values.tolist() == [2.0, 4.0, 6.0]
    c = spt.SparseTensor([[0]], np.array([3 + 4j]), [1])
    assert abs(c).dtype == np.float64 and abs(c).values.tolist() == [5.0]
    with pytest.raises(TypeError):
        a + 1  # TF's SparseTensor has no sparse + scalar


def test_matmul():
    a = sp_f()
    b = np.arange(8, dtype=np.float64).reshape(4, 2)
    dense = spt.to_dense(spt.reorder(a))
    assert np.array_equal(a @ b, dense @ b)
    c = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert np.array_equal(c @ a, c @ dense)


def test_methods():
    a = sp_f()
    t = a.T
    assert t.shape == (4, 3) and spt.to_dense(t).tolist() == spt.to_dense(spt.reorder(a)).T.tolist()
    assert a.sum().tolist() == 4.0
    assert a.sum(axis=1).tolist() == [2.0, -4.0, 6.0]
    assert a.sum(axis=0, keepdims=True).shape == (1, 4)
    i = a.astype(np.int32)
    assert i.dtype == np.int32 and i.values.tolist() == [2, -4, 6] and i.indices.tolist() == a.indices.tolist()
    w = a.with_values(np.array([b"x", b"y", b"z"], dtype=object))
    assert w.spt_dtype == "string" and w.shape == (3, 4) and w.values.tolist() == [b"x", b"y", b"z"]
    with pytest.raises(spt.InvalidArgumentError):
        a.with_values([1.0])


def test_asarray_is_a_clear_error():
    with pytest.raises(spt.DtypeError, match="to_dense"):
        np.asarray(sp_f())
    with pytest.raises(TypeError):
        np.array(sp_f())
    assert "to_dense" in spt.SparseTensor.__doc__


def test_repr_shows_dtype_shape_nnz():
    r = repr(sp_f())
    assert "dtype=float64" in r and "shape=(3, 4)" in r and "nnz=3" in r
    big = spt.SparseTensor(np.arange(100).reshape(100, 1), np.ones(100), [100])
    r = repr(big)
    assert "nnz=100" in r and len(r) < 200


def test_tf2_keyword_spellings_and_tf1_aliases():
    a = spt.SparseTensor([[0, 0]], [1.0], [1, 2])
    b = spt.SparseTensor([[0, 0]], [2.0], [2, 3])
    for kw in ({"expand_nonconcat_dims": True}, {"expand_nonconcat_dim": True}):
        r = spt.concat(axis=0, sp_inputs=[a, b], **kw)
        assert r.shape == (3, 3)
    assert spt.concat(concat_dim=1, sp_inputs=[a, a]).shape == (1, 4)
    with pytest.raises(spt.InvalidArgumentError, match="not both"):
        spt.concat(0, [a, b], expand_nonconcat_dims=True, expand_nonconcat_dim=True)
    f = sp_f()
    assert spt.reduce_sum(f, reduction_axes=1, keep_dims=True).shape == (3, 1)
    assert spt.reduce_max(f, axis=1, keepdims=True).shape == (3, 1)
    assert [p.shape for p in spt.split(sp_input=f, num_split=2, split_dim=1)] == [(3, 2), (3, 2)]
    assert spt.reorder(f, name="x").shape == (3, 4)
