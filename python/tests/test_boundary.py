# SPDX-License-Identifier: Apache-2.0
"""Conversion at the boundary: every finding that reached C with a wrapped, truncated or cast
value is refused in Python with one of spt's exceptions naming the argument and the value."""
import os

import numpy as np
import pytest

import spt


def sp2():
    return spt.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])


def test_split_num_split_beyond_int64_is_refused_not_wrapped():
    with pytest.raises(spt.OverflowError) as ei:
        spt.split(sp_input=sp2(), num_split=2 ** 64 + 3, axis=0)
    assert "num_split" in str(ei.value) and str(2 ** 64 + 3) in str(ei.value)
    # in range but larger than the dim: the C library's error, no slot written past the array
    with pytest.raises(spt.InvalidArgumentError):
        spt.split(sp_input=sp2(), num_split=2 ** 62, axis=0)
    parts = spt.split(sp_input=sp2(), num_split=3, axis=0)
    assert [p.shape for p in parts] == [(1, 4), (1, 4), (1, 4)]


def test_concat_axis_beyond_int64():
    with pytest.raises(spt.OverflowError, match="axis"):
        spt.concat(axis=2 ** 64 + 1, sp_inputs=[sp2(), sp2()])
    assert spt.concat(axis=1, sp_inputs=[sp2(), sp2()]).shape == (3, 8)


def test_to_indicator_vocab_size_beyond_int64():
    ids = spt.SparseTensor([[0, 0]], np.array([1], np.int64), [1, 1])
    with pytest.raises(spt.OverflowError, match="vocab_size"):
        spt.to_indicator(ids, vocab_size=2 ** 64 + 2)
    assert spt.to_indicator(ids, 2).tolist() == [[False, True]]


def test_set_num_threads_beyond_int():
    before = spt.get_num_threads()
    for bad in (2 ** 32 + 1, 2 ** 31, -(2 ** 31) - 1):
        with pytest.raises(spt.OverflowError, match="n="):
            spt.set_num_threads(bad)
    assert spt.get_num_threads() == before
    with pytest.raises(spt.DtypeError):
        spt.set_num_threads(2.0)


def test_sparse_to_dense_output_shape_beyond_int32_indices():
    ix = np.array([[0]], np.int32)
    with pytest.raises(spt.InvalidArgumentError, match="output_shape"):
        spt.sparse_to_dense(ix, [2 ** 32 + 3], np.array([1.0]))
    with pytest.raises(spt.InvalidArgumentError, match="output_shape"):
        spt.sparse_to_dense(ix, np.array([2 ** 31], np.int64), np.array([1.0]))
    assert spt.sparse_to_dense(ix, np.array([3], np.int64), np.array([1.0])).tolist() == [1.0, 0.0, 0.0]


def test_sparse_to_dense_default_value_must_fit():
    ix = np.array([0], np.int64)
    with pytest.raises(spt.InvalidArgumentError, match="default_value"):
        spt.sparse_to_dense(ix, [2], np.array([1], np.uint8), default_value=-1)


def test_uint64_indices_above_int64_max():
    ix = np.array([[2 ** 63]], np.uint64)
    with pytest.raises(spt.OverflowError, match="indices"):
        spt.SparseTensor(ix, [1.0], [4])
    with pytest.raises(spt.OverflowError, match="indices"):
        spt.SparseTensor([[2 ** 64 + 1]], [1.0], [4])
    with pytest.raises(spt.OverflowError, match="dense_shape"):
        spt.SparseTensor([[0]], [1.0], [2 ** 63])


def test_float_indices_are_refused():
    for ix in ([[0.0]], [[1.5]], np.array([[1.0]])):
        with pytest.raises(spt.DtypeError, match="indices"):
            spt.SparseTensor(ix, [1.0], [4])
    with pytest.raises(spt.DtypeError, match="dense_shape"):
        spt.SparseTensor([[0]], [1.0], [4.0])
    with pytest.raises(spt.DtypeError, match="axis"):
        spt.reduce_sum(sp2(), axis=[0.5])
    with pytest.raises(spt.DtypeError, match="perm"):
        spt.transpose(sp2(), perm=[1.0, 0.0])


def test_domain_refuses_non_integral_indices():
    with pytest.raises(spt.DtypeError):
        spt.Domain([(1.5, 2)])
    with pytest.raises(spt.DtypeError):
        spt.Domain([(1.0, 2)])
    with pytest.raises(spt.OverflowError):
        spt.Domain([(2 ** 63, 2)])
    assert list(spt.Domain([(1, 2), (0, 5)])) == [(0, 5), (1, 2)]
    with pytest.raises(spt.DtypeError):
        spt.SparseMap([((0.5,), [(1,)])])
    with pytest.raises(spt.DtypeError):
        spt.inject_index((1, 2), {0: 1.5})


@pytest.mark.parametrize("dtype,bad", [(np.uint8, -1), (np.uint8, 256), (np.int8, 128), (np.int32, 0.5),
                                       (np.int64, float("nan")), (np.int64, float("inf")), (np.uint64, -1),
                                       (np.int64, 2 ** 63), (np.bool_, 2), (np.float64, 1j),
                                       (np.float32, 1e300)])
def test_to_dense_default_value_must_fit_the_dtype(dtype, bad):
    sp = spt.SparseTensor([[0]], np.array([1], dtype), [3])
    with pytest.raises(spt.InvalidArgumentError) as ei:
        spt.to_dense(sp, default_value=bad)
    assert "default_value" in str(ei.value)


def test_to_dense_default_value_exact_conversions_are_kept():
    sp = spt.SparseTensor([[0]], np.array([1], np.int32), [3])
    assert spt.to_dense(sp, default_value=7.0).tolist() == [1, 7, 7]
    assert spt.to_dense(sp, default_value=np.uint8(5)).tolist() == [1, 5, 5]
    f = spt.SparseTensor([[0]], np.array([1.5]), [2])
    assert spt.to_dense(f, default_value=2).tolist() == [1.5, 2.0]
    u = spt.SparseTensor([[0]], np.array([1], np.uint8), [2])
    assert spt.to_dense(u, default_value=255).tolist() == [1, 255]
    with pytest.raises(spt.InvalidArgumentError):
        spt.to_dense(u, default_value=[1])
    with pytest.raises(spt.InvalidArgumentError):
        spt.fill_empty_rows(spt.SparseTensor([[0, 0]], np.array([1], np.uint8), [2, 2]), -1)
    with pytest.raises(spt.InvalidArgumentError):
        spt.from_dense(np.zeros(3, np.uint8), default_value=-1)


def test_values_with_a_dtype_must_fit():
    with pytest.raises(spt.InvalidArgumentError, match="values"):
        spt.SparseTensor([[0]], [-1], [2], dtype=np.uint8)
    with pytest.raises(spt.InvalidArgumentError, match="values"):
        spt.SparseTensor([[0]], [0.5], [2], dtype=np.int64)
    with pytest.raises(spt.InvalidArgumentError, match="values"):
        spt.SparseTensor([[0]], [float("nan")], [2], dtype=np.int16)
    assert spt.SparseTensor([[0]], [2.0], [2], dtype=np.int64).values.tolist() == [2]
    with pytest.raises(spt.InvalidArgumentError):
        spt.SparseTensor([[0]], np.array([1]), [4]) * [2 ** 70, 1, 1, 1]
    with pytest.raises(spt.InvalidArgumentError):
        spt.SparseTensor([[0]], np.array([1], np.int8), [2]) * 0.5


def test_add_threshold_must_be_a_real_scalar():
    a = sp2()
    for kw in ("thresh", "threshold"):
        with pytest.raises(spt.InvalidArgumentError) as ei:
            spt.add(a, a, **{kw: np.array([0.0, 0.0])})
        assert "threshold" in str(ei.value)
    with pytest.raises(spt.InvalidArgumentError):
        spt.add(a, a, threshold=1j)
    with pytest.raises(spt.InvalidArgumentError, match="not both"):
        spt.add(a, a, threshold=1.0, thresh=1.0)
    assert spt.to_dense(spt.add(a, a, thresh=3.0)).tolist()[1][2] == 4.0
    assert spt.add(a, a, thresh=3.0).nnz == 1


def test_bool_flags_are_checked():
    with pytest.raises(spt.InvalidArgumentError, match="validate_indices"):
        spt.to_dense(sp2(), validate_indices="no")
    with pytest.raises(spt.InvalidArgumentError, match="keepdims"):
        spt.reduce_sum(sp2(), 0, keepdims=2)
    assert spt.to_dense(sp2(), validate_indices=np.bool_(True)).shape == (3, 4)


@pytest.mark.parametrize("writer", ["write", "write_tns", "write_mtx", "write_npz"])
def test_nul_in_a_path_is_refused_and_the_victim_untouched(tmp_path, writer):
    victim = tmp_path / "victim.tns"
    victim.write_bytes(b"original")
    with pytest.raises(spt.InvalidArgumentError) as ei:
        getattr(spt, writer)(sp2(), str(victim) + "\x00.npz")
    assert "path" in str(ei.value) and "NUL" in str(ei.value)
    assert isinstance(ei.value, ValueError)
    assert victim.read_bytes() == b"original"
    with pytest.raises(spt.InvalidArgumentError):
        getattr(spt, writer)(sp2(), os.fsencode(str(victim)) + b"\x00.npz")


@pytest.mark.parametrize("reader", ["read", "read_tns", "read_mtx", "read_mtx_dense", "read_npy", "read_npz"])
def test_nul_in_a_path_is_refused_by_readers(tmp_path, reader):
    with pytest.raises(spt.InvalidArgumentError, match="NUL"):
        getattr(spt, reader)(str(tmp_path / "x.tns") + "\x00")


def test_nul_in_parse_name_and_bad_path_types():
    with pytest.raises(spt.InvalidArgumentError, match="name"):
        spt.parse_tns("1 1 1.0\n", name="a\x00b")
    with pytest.raises(spt.DtypeError, match="path"):
        spt.write(sp2(), 5)
    with pytest.raises(spt.InvalidArgumentError):
        spt.write_npy(np.zeros(2), "x\x00.npy")


def test_wrong_types_are_spt_errors():
    with pytest.raises(spt.DtypeError, match="sp_input"):
        spt.reorder([1, 2, 3])
    with pytest.raises(spt.DtypeError):
        spt.split(sp2(), num_split=2, axis="0")
    with pytest.raises(spt.InvalidArgumentError, match="order"):
        spt.reorder(sp2(), [0])
    with pytest.raises(spt.InvalidArgumentError, match="start"):
        spt.slice(sp2(), [0], [1, 1])


def test_declared_ranges_follow_the_header(tmp_path):
    # spt_write_spy_png: max_side <= 0 means the default size, so negative values are valid
    p = tmp_path / "a.png"
    spt.write_spy_png(sp2(), str(p), max_side=-1)
    assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(spt.OverflowError, match="max_side"):
        spt.write_spy_png(sp2(), str(p), max_side=2 ** 63)


def test_threshold_beyond_double():
    with pytest.raises(spt.OverflowError, match="threshold"):
        spt.add(sp2(), sp2(), threshold=10 ** 400)


def test_spy_color_by_value(tmp_path):
    """write_spy_png(color_by_value=True) writes an RGB PNG (colour type 2 in IHDR); grey otherwise (0);
    strings are refused with DtypeError, a non-bool flag too."""
    p = tmp_path / "v.png"
    spt.write_spy_png(sp2(), str(p), color_by_value=True)
    assert p.read_bytes()[25] == 2
    spt.write_spy_png(sp2(), str(p))
    assert p.read_bytes()[25] == 0
    s = spt.SparseTensor(indices=[[0, 0]], values=np.array([b"a"], dtype=object), dense_shape=[2, 2])
    with pytest.raises(spt.DtypeError):
        spt.write_spy_png(s, str(p), color_by_value=True)
    with pytest.raises(spt.DtypeError):
        spt.write_spy_png(sp2(), str(p), color_by_value=1)
