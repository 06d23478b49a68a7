# SPDX-License-Identifier: Apache-2.0
"""The issue-19 ops through the Python API: exact values (TensorFlow's documented examples), TF2 keyword
arguments, every bad input an spt exception naming the argument, and results that pickle by value."""
import ctypes
import math
import pickle

import numpy as np
import pytest

import spt
from spt import _registry as R

DATA = np.arange(1, 41, dtype=np.float32).reshape(10, 4)


def st(ix, vals, shape, dtype=None):
    return spt.SparseTensor(ix, vals, shape, dtype=dtype)


def same(a, b):
    assert a.dtype == b.dtype and list(a.shape) == list(b.shape)
    assert a.indices.tolist() == b.indices.tolist()
    assert np.asarray(a.values).tolist() == np.asarray(b.values).tolist()


# ---- segment reductions ----------------------------------------------------------------------------------

def test_segment_sum_mean_sqrt_n_exact():
    got = spt.segment_sum(DATA, [8, 3, 0, 9], [0, 2, 2, 2])
    assert got.dtype == np.float32 and got.tolist() == [[33, 34, 35, 36], [0, 0, 0, 0], [51, 54, 57, 60]]
    got = spt.segment_mean(DATA, indices=np.array([8, 3, 0, 9], np.int32), segment_ids=[0, 2, 2, 2], num_segments=4)
    assert got.tolist() == [[33, 34, 35, 36], [0] * 4, [17, 18, 19, 20], [0] * 4]
    got = spt.segment_sqrt_n(DATA.astype(np.float64), [8, 3, 0, 9], [0, 2, 2, 2])
    assert np.allclose(got[2], np.array([51, 54, 57, 60]) / math.sqrt(3), rtol=1e-15, atol=0)
    # integers wrap in their dtype; a repeated index counts each time
    assert spt.segment_sum(np.array([[2 ** 31 - 1]], np.int32), [0, 0], [0, 0]).tolist() == [[-2]]


@pytest.mark.parametrize("kw,err,text", [
    (dict(indices=[8, 3, 0, 10], segment_ids=[0, 1, 2, 2]), spt.OutOfRangeError, "indices[3] == 10"),
    (dict(indices=[0, 1], segment_ids=[1, 0]), spt.InvalidArgumentError, "not increasing"),
    (dict(indices=[0, 1], segment_ids=[0, -1]), spt.SptError, ""),
    (dict(indices=[0, 1], segment_ids=[0, 5], num_segments=5), spt.OutOfRangeError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0]), spt.InvalidArgumentError, "same size"),
    (dict(indices=[0.0, 1.0], segment_ids=[0, 0]), spt.DtypeError, ""),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=-1), spt.InvalidArgumentError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=2 ** 63), spt.OverflowError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=1.0), spt.DtypeError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=True), spt.DtypeError, "num_segments"),
])
def test_segment_bad_inputs(kw, err, text):
    with pytest.raises(err) as ei:
        spt.segment_sum(DATA, **kw)
    assert text in str(ei.value)


def test_segment_mean_refuses_integers():
    with pytest.raises(spt.DtypeError):
        spt.segment_mean(np.ones((2, 2), np.int32), [0, 1], [0, 0])


# ---- expand_dims, eye --------------------------------------------------------------------------------------

def test_expand_dims_every_axis():
    sp = st([[3, 4, 1]], np.array([7], np.int32), [10, 10, 3])
    assert list(spt.expand_dims(sp, axis=0).shape) == [1, 10, 10, 3]
    assert spt.expand_dims(sp, 1).indices.tolist() == [[3, 0, 4, 1]]
    assert list(spt.expand_dims(sp).shape) == [10, 10, 3, 1]  # TF2's default axis -1
    assert list(spt.expand_dims(sp, axis=-4).shape) == [1, 10, 10, 3]
    for bad in (4, -5):
        with pytest.raises(spt.OutOfRangeError):
            spt.expand_dims(sp, bad)
    with pytest.raises(spt.OverflowError, match="axis"):
        spt.expand_dims(sp, 2 ** 64 + 1)
    with pytest.raises(spt.DtypeError, match="axis"):
        spt.expand_dims(sp, 1.0)


def test_eye():
    e = spt.eye(2, num_columns=4)
    assert e.dtype == np.float32 and list(e.shape) == [2, 4] and e.indices.tolist() == [[0, 0], [1, 1]]
    assert spt.eye(3, dtype=np.complex64).values.tolist() == [1 + 0j] * 3
    assert spt.eye(0).nnz == 0
    with pytest.raises(spt.OutOfRangeError, match="num_rows"):
        spt.eye(-1)
    with pytest.raises(spt.InvalidArgumentError, match="num_columns"):
        spt.eye(2, -1)  # -1 is not None
    with pytest.raises(spt.OverflowError, match="num_rows"):
        spt.eye(2 ** 63)
    big = spt.eye(2 ** 62, 4)  # a volume beyond int64 stores nothing per cell (spt's any-volume shapes)
    assert list(big.shape) == [2 ** 62, 4] and big.indices.tolist() == [[k, k] for k in range(4)]
    with pytest.raises(spt.DtypeError):
        spt.eye(2, dtype="string")
    with pytest.raises(spt.DtypeError, match="dtype"):
        spt.eye(2, dtype="float16")


# ---- map_values and the unary math ---------------------------------------------------------------------------

SP = st([[0, 1], [1, 0], [1, 1]], np.array([1.0, -2.25, 0.5], np.float32), [2, 3])


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


def test_map_values_refuses_what_is_not_a_c_op():
    with pytest.raises(spt.InvalidArgumentError, match="<lambda>"):
        spt.map_values(lambda v: v * 2, SP)
    with pytest.raises(spt.InvalidArgumentError, match="log"):
        spt.map_values(np.log, SP)
    with pytest.raises(spt.InvalidArgumentError, match="no SparseTensor"):
        spt.map_values(spt.abs, np.ones(3))
    a = st([[0], [2]], [1.0, 2.0], [3])
    with pytest.raises(spt.InvalidArgumentError, match="same indices"):
        spt.map_values(np.add, a, st([[0], [1]], [1.0, 2.0], [3]))
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
    names = spt._tfsparse.UNARY
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


# ---- bincount -------------------------------------------------------------------------------------------------

def test_bincount_dense_and_sparse():
    v = np.array([[3, 2, 1], [5, 4, 4]], np.int32)
    r = spt.bincount(v, axis=-1)
    assert r.dtype == np.int32 and list(r.shape) == [2, 6]
    assert r.indices.tolist() == [[0, 1], [0, 2], [0, 3], [1, 4], [1, 5]] and r.values.tolist() == [1, 1, 1, 2, 1]
    r = spt.bincount(v)  # axis 0: every value
    assert r.indices.tolist() == [[1], [2], [3], [4], [5]] and r.values.tolist() == [1, 1, 1, 2, 1]
    assert spt.bincount(v, axis=None).values.tolist() == [1, 1, 1, 2, 1]
    r = spt.bincount(v, weights=np.array([[0.5, 1, 2], [3, 4, 5]], np.float32), axis=-1)
    assert r.values.tolist() == [2.0, 1.0, 0.5, 9.0, 3.0]
    r = spt.bincount(v, axis=-1, maxlength=5, binary_output=True)
    assert list(r.shape) == [2, 5] and r.values.tolist() == [1, 1, 1, 1]
    assert list(spt.bincount(v, minlength=9).shape) == [9]
    sv = st([[0, 0], [0, 2], [1, 1]], np.array([7, 7, 1], np.int64), [2, 3])
    sw = st([[0, 0], [0, 2], [1, 1]], [0.25, 0.5, 2.0], [2, 3])
    r = spt.bincount(sv, sw, axis=-1)
    assert r.indices.tolist() == [[0, 7], [1, 1]] and r.values.tolist() == [0.75, 2.0]


@pytest.mark.parametrize("kw,err,text", [
    (dict(minlength=-1), spt.InvalidArgumentError, "minlength"),
    (dict(maxlength=-2), spt.InvalidArgumentError, "maxlength"),
    (dict(minlength=2 ** 63), spt.OverflowError, "minlength"),
    (dict(maxlength=2 ** 64 + 1), spt.OverflowError, "maxlength"),
    (dict(axis=1), spt.InvalidArgumentError, ""),
    (dict(axis=2 ** 63), spt.OverflowError, "axis"),
    (dict(binary_output=2), spt.InvalidArgumentError, "binary_output"),
    (dict(binary_output=True, weights=np.ones((2, 3))), spt.InvalidArgumentError, ""),
    (dict(weights=np.ones((3, 2))), spt.InvalidArgumentError, "same shape"),
    (dict(weights=st([[0, 0]], [1.0], [2, 3])), spt.InvalidArgumentError, "dense"),
])
def test_bincount_bad_inputs(kw, err, text):
    with pytest.raises(err) as ei:
        spt.bincount(np.array([[3, 2, 1], [5, 4, 4]], np.int32), **kw)
    assert text in str(ei.value)


def test_bincount_value_checks():
    with pytest.raises(spt.OutOfRangeError, match="negative"):
        spt.bincount(np.array([1, -1]))
    with pytest.raises(spt.DtypeError):
        spt.bincount(np.array([1.0, 2.0]))
    with pytest.raises(spt.OverflowError):
        spt.bincount(np.array([2 ** 63 - 1]))
    with pytest.raises(spt.InvalidArgumentError, match="SparseTensor"):
        spt.bincount(st([[0]], np.array([1]), [1]), weights=np.ones(1))


# ---- cross, cross_hashed -----------------------------------------------------------------------------------

def test_cross_strings_ints_and_order():
    a = st([[0, 0], [1, 0], [1, 1]], ["a0", "b0", "b1"], [2, 2])
    d = np.array([[1, 2], [3, 4]], np.int64)
    r = spt.cross([d, a])  # sparse inputs first, then dense: TF's order
    assert r.dtype == object and list(r.shape) == [2, 4]
    assert r.values.tolist() == [b"a0_X_1", b"a0_X_2", b"b0_X_3", b"b0_X_4", b"b1_X_3", b"b1_X_4"]
    assert r.indices.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]]
    r = spt.cross([a, [["x"], ["y"]]], separator="\0")  # the separator is bytes with a length: NUL is data
    assert r.values.tolist() == [b"a0\0x", b"b0\0y", b"b1\0y"]


def test_cross_hashed_matches_tensorflow():
    ins = [st([[0, 0]], ["batch1-FC%d-F1" % k], [1, 1]) for k in (1, 2, 3)]
    assert spt.cross_hashed(ins).values.tolist() == [1971693436396284976]
    assert spt.cross_hashed(ins, num_buckets=100).values.tolist() == [83]
    assert spt.cross_hashed(ins, 100, hash_key=956888297471).values.tolist() == [31]
    assert spt.cross_hashed(ins, hash_key=2 ** 64 - 1).dtype == np.int64


def test_cross_bad_inputs():
    a = st([[0, 0]], np.array([1]), [2, 1])
    with pytest.raises(spt.InvalidArgumentError, match="batch size"):
        spt.cross([a, st([[0, 0]], np.array([1]), [3, 1])])
    with pytest.raises(spt.InvalidArgumentError, match="separator"):
        spt.cross([a, a], separator=["_X_", "_Y_"])
    with pytest.raises(spt.InvalidArgumentError):
        spt.cross([])
    with pytest.raises(spt.DtypeError):
        spt.cross(a)
    with pytest.raises(spt.DtypeError):
        spt.cross([a, st([[0, 0]], [1.5], [2, 1])])
    with pytest.raises(spt.OutOfRangeError, match="num_buckets"):
        spt.cross_hashed([a, a], num_buckets=-1)
    with pytest.raises(spt.OverflowError, match="hash_key"):
        spt.cross_hashed([a, a], hash_key=2 ** 64)
    with pytest.raises(spt.OverflowError, match="hash_key"):
        spt.cross_hashed([a, a], hash_key=-1)
    with pytest.raises(spt.DtypeError, match="num_buckets"):
        spt.cross_hashed([a, a], num_buckets=2.0)


# ---- embedding lookups --------------------------------------------------------------------------------------

P = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
IDS = st([[0, 0], [0, 1], [1, 0], [2, 0]], np.array([0, 1, 3, 2]), [3, 2])
W = st([[0, 0], [0, 1], [1, 0], [2, 0]], np.array([0.5, 1.0, 0.5, 2.0], np.float32), [3, 2])


def test_embedding_lookup_sparse_combiners():
    assert spt.embedding_lookup_sparse(P, IDS, None, combiner="sum").tolist() == [[4, 6], [7, 8], [5, 6]]
    assert spt.embedding_lookup_sparse(P, IDS, None).tolist() == [[2, 3], [7, 8], [5, 6]]  # mean
    got = spt.embedding_lookup_sparse(P, IDS, W, combiner="sqrtn")
    assert np.allclose(got[0], (0.5 * P[0] + P[1]) / math.sqrt(1.25), rtol=1e-6)
    assert got.dtype == np.float32


def test_embedding_lookup_sparse_shards():
    whole = spt.embedding_lookup_sparse(P, IDS, W, combiner="sum")
    # TF2 places ids in shards with "div" (contiguous ranges: sizes 2, 1, 1 for 4 ids in 3 shards)
    assert spt.embedding_lookup_sparse([P[:2], P[2:3], P[3:]], IDS, W, combiner="sum").tolist() == whole.tolist()
    assert spt.embedding_lookup_sparse([P[0::2], P[1::2]], IDS, W, combiner="sum",
                                       partition_strategy="mod").tolist() == whole.tolist()
    with pytest.raises(spt.InvalidArgumentError, match="div"):
        spt.embedding_lookup_sparse([P[:1], P[1:]], IDS, W)  # sizes 1, 3 are not a div partition
    with pytest.raises(spt.InvalidArgumentError, match="partition_strategy"):
        spt.embedding_lookup_sparse([P[:2], P[2:]], IDS, W, partition_strategy="hash")
    with pytest.raises(spt.InvalidArgumentError, match="empty"):
        spt.embedding_lookup_sparse([], IDS, W)
    with pytest.raises(spt.DtypeError, match="dtypes"):
        spt.embedding_lookup_sparse([P[:2], P[2:].astype(np.float64)], IDS, None)
    with pytest.raises(spt.DtypeError):  # "mod" shards go to C, which checks their dtypes too
        spt.embedding_lookup_sparse([P[:2], P[2:].astype(np.float64)], IDS, None, partition_strategy="mod")


def test_embedding_lookup_sparse_bad_inputs():
    with pytest.raises(spt.InvalidArgumentError, match="max_norm"):
        spt.embedding_lookup_sparse(P, IDS, None, max_norm=1.0)
    with pytest.raises(spt.InvalidArgumentError, match="combiner"):
        spt.embedding_lookup_sparse(P, IDS, None, combiner="max")
    with pytest.raises(spt.InvalidArgumentError, match="allow_fast_lookup"):
        spt.embedding_lookup_sparse(P, IDS, None, allow_fast_lookup="yes")
    with pytest.raises(spt.OutOfRangeError):
        spt.embedding_lookup_sparse(P, st([[0, 0]], np.array([4]), [1, 1]), None)
    with pytest.raises(spt.OutOfRangeError):
        spt.embedding_lookup_sparse(P, st([[0, 0]], np.array([-1]), [1, 1]), None)
    with pytest.raises(spt.DtypeError):
        spt.embedding_lookup_sparse(P.astype(np.int32), IDS, None)
    with pytest.raises(spt.DtypeError):
        spt.embedding_lookup_sparse(P, IDS, st(IDS.indices, np.ones(4), [3, 2]))  # float64 weights, float32 table
    with pytest.raises(spt.DtypeError, match="sp_ids"):
        spt.embedding_lookup_sparse(P, np.array([0, 1]), None)


def test_safe_embedding_lookup_sparse():
    p = np.arange(1, 17, dtype=np.float32).reshape(4, 4)
    ix = [[0, 0], [0, 1], [0, 2], [1, 0], [3, 0], [4, 0], [4, 1]]
    ids = st(ix, np.array([0, 1, -1, -1, 2, 0, 1]), [5, 4])
    w = st(ix, np.array([1.0, 2.0, 1.0, 1.0, 3.0, 0.0, -0.5], np.float32), [5, 4])
    got = spt.safe_embedding_lookup_sparse(p, ids, w, default_id=3)
    assert np.allclose(got[0], (p[0] + 2 * p[1]) / 3, rtol=1e-6)
    assert got[1].tolist() == p[3].tolist() and got[2].tolist() == p[3].tolist() and got[4].tolist() == p[3].tolist()
    assert got[3].tolist() == p[2].tolist()
    assert spt.safe_embedding_lookup_sparse(p, ids, w)[1].tolist() == [0, 0, 0, 0]
    # TensorFlow prunes weights <= 0 only for mean and sqrtn: sum keeps them (row 4 = 0 p[0] - 0.5 p[1])
    got = spt.safe_embedding_lookup_sparse(p, ids, w, combiner="sum", default_id=3)
    assert got[4].tolist() == (-0.5 * p[1]).tolist() and got[0].tolist() == (p[0] + 2 * p[1]).tolist()
    assert got[1].tolist() == p[3].tolist()
    with pytest.raises(spt.OutOfRangeError):
        spt.safe_embedding_lookup_sparse(p, ids, default_id=4)
    with pytest.raises(spt.InvalidArgumentError, match="default_id"):
        spt.safe_embedding_lookup_sparse(p, ids, default_id=-1)
    with pytest.raises(spt.OverflowError, match="default_id"):
        spt.safe_embedding_lookup_sparse(p, ids, default_id=2 ** 63)
    with pytest.raises(spt.InvalidArgumentError, match="max_norm"):
        spt.safe_embedding_lookup_sparse(p, ids, max_norm=2.0)


# ---- serialization --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("t", [
    st([[0, 0], [1, 3], [3, 2]], np.array([0, 13, 32], np.int32), [5, 6]),
    st([[0], [2]], [b"ab", b"\0c"], [3]),
    st([[1, 1]], np.array([1 - 2j], np.complex64), [2, 2]),
    st(np.zeros((0, 2), np.int64), np.zeros(0), [0, 4]),
])
def test_serialize_round_trip(t):
    b = spt.serialize_sparse(t)  # TensorFlow's form: three TensorProto byte strings
    assert b.shape == (3,) and all(isinstance(x, bytes) for x in b)
    same(spt.deserialize_sparse(b, t.dtype, rank=t.rank), t)
    two = spt.deserialize_sparse([b, b], t.dtype)
    assert list(two.shape) == [2] + list(t.shape) and two.nnz == 2 * t.nnz
    p = spt.pack_sparse(t)  # spt's own form
    assert isinstance(p, bytes) and p[:4] == b"SPTS"
    same(spt.unpack_sparse(p, t.dtype, rank=t.rank), t)
    two = spt.unpack_sparse([p, p], t.dtype)
    assert list(two.shape) == [2] + list(t.shape) and two.nnz == 2 * t.nnz


def test_serialize_many_round_trip():
    t = st([[0, 0], [1, 3], [3, 2]], np.array([1.5, 2.5, 3.5]), [4, 6])
    items = spt.serialize_many_sparse(t)
    assert items.shape == (4, 3) and all(isinstance(x, bytes) for x in items.reshape(-1))
    assert spt.deserialize_sparse(items[1], np.float64).indices.tolist() == [[3]]
    same(spt.deserialize_many_sparse(items, np.float64, rank=1), t)
    packed = spt.pack_many_sparse(t)
    assert packed.shape == (4,)
    assert spt.unpack_sparse(packed[1], np.float64).indices.tolist() == [[3]]
    same(spt.unpack_many_sparse(packed, np.float64, rank=1), t)


def test_deserialize_trusts_nothing():
    s = spt.serialize_sparse(st([[0, 1]], [1.0], [2, 2]))
    with pytest.raises(spt.ParseError, match=r"serialized_sparse\[0, 1\]"):
        spt.deserialize_sparse([s[0], s[1][:-1], s[2]], np.float64)
    with pytest.raises(spt.InvalidArgumentError, match="Requested SparseTensor of type float but"):
        spt.deserialize_sparse(s, np.float32)
    with pytest.raises(spt.InvalidArgumentError, match="3 as the last dimension"):
        spt.deserialize_sparse(s[:2], np.float64)
    with pytest.raises(spt.DtypeError):
        spt.deserialize_sparse("abc", np.float64)
    with pytest.raises(spt.DtypeError, match=r"serialized_sparse\[1\]"):
        spt.deserialize_sparse([s[0], 3, s[2]], np.float64)
    with pytest.raises(spt.InvalidArgumentError):
        spt.deserialize_sparse(np.empty((0, 3), object), np.float64)
    with pytest.raises(spt.DtypeError, match="object array"):
        spt.deserialize_sparse(np.array(list(s)), np.float64)  # 'S' arrays drop trailing NUL bytes
    with pytest.raises(spt.InvalidArgumentError, match="rank"):
        spt.deserialize_sparse(s, np.float64, rank=3)
    with pytest.raises(spt.InvalidArgumentError, match="matrix"):
        spt.deserialize_many_sparse(s, np.float64)
    with pytest.raises(spt.DtypeError, match="out_type"):
        spt.serialize_sparse(st([[0]], [1.0], [1]), out_type=np.int64)
    with pytest.raises(spt.InvalidArgumentError, match="should be > 1"):
        spt.serialize_many_sparse(st([[0]], [1.0], [1]))  # rank >= 2
    b = spt.pack_sparse(st([[0, 1]], [1.0], [2, 2]))
    with pytest.raises(spt.ParseError):
        spt.unpack_sparse(b[:-1], np.float64)
    with pytest.raises(spt.ParseError):
        spt.unpack_sparse(b[:-9] + bytes([b[-9] ^ 1]) + b[-8:], np.float64)  # checksum
    with pytest.raises(spt.ParseError):
        spt.unpack_sparse(b"", np.float64)
    with pytest.raises(spt.DtypeError):
        spt.unpack_sparse(b, np.float32)
    with pytest.raises(spt.DtypeError, match=r"packed\[1\]"):
        spt.unpack_sparse([b, 3], np.float64)
    with pytest.raises(spt.InvalidArgumentError):
        spt.unpack_sparse([], np.float64)
    with pytest.raises(spt.InvalidArgumentError, match="vector"):
        spt.unpack_many_sparse([[b]], np.float64)


# ---- tf.sparse.mask ---------------------------------------------------------------------------------------

def test_mask_tensorflow_example():
    a = spt.IndexedSlices(np.arange(10.0).reshape(5, 2), np.array([12, 26, 37, 45, 12]), [100, 2])
    r = spt.mask(a, [12, 45])  # TensorFlow's docstring example, with a repeated kept-out index
    assert r.indices.tolist() == [26, 37] and r.values.tolist() == [[2, 3], [4, 5]] and r.dense_shape == [100, 2]
    r = spt.mask(a, [])
    assert r.indices.tolist() == [12, 26, 37, 45, 12]
    r = spt.mask(spt.IndexedSlices(np.ones(3), [7, 7, 8]), np.array([8]))
    assert r.indices.tolist() == [7, 7]
    assert pickle.loads(pickle.dumps(r)).indices.tolist() == [7, 7]
    with pytest.raises(spt.DtypeError):
        spt.mask(np.ones(3), [1])
    with pytest.raises(spt.InvalidArgumentError, match="one slice per index"):
        spt.mask(spt.IndexedSlices(np.ones(2), [1, 2, 3]), [1])
    with pytest.raises(spt.OverflowError):
        spt.mask(a, [2 ** 63])
    with pytest.raises(spt.DtypeError):
        spt.mask(a, [1.5])


# ---- results are plain objects: pickling is by value -------------------------------------------------------

def test_results_pickle_by_value():
    results = [spt.expand_dims(SP), spt.eye(3), spt.abs(SP), spt.bincount(np.array([1, 1, 2])),
               spt.cross([np.array([["a", "b"]])]), spt.cross_hashed([np.array([[1, 2]])], 10),
               spt.deserialize_sparse(spt.serialize_sparse(SP), np.float32)]
    for r in results:
        back = pickle.loads(pickle.dumps(r))
        assert back.h != r.h
        same(back, r)
    d = spt.segment_sum(DATA, [0, 1], [0, 0])
    assert pickle.loads(pickle.dumps(d)).tolist() == d.tolist()
    e = spt.embedding_lookup_sparse(P, IDS, None)
    assert pickle.loads(pickle.dumps(e)).tolist() == e.tolist()


def test_ops_are_listed():
    for n in ("segment_sum", "segment_mean", "segment_sqrt_n", "expand_dims", "eye", "map_values", "bincount",
              "cross", "cross_hashed", "embedding_lookup_sparse", "safe_embedding_lookup_sparse", "serialize_sparse",
              "deserialize_sparse", "serialize_many_sparse", "deserialize_many_sparse", "pack_sparse", "unpack_sparse",
              "cast", "abs", "erf"):
        assert spt.has_op(n), n
