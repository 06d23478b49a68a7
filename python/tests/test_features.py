# SPDX-License-Identifier: Apache-2.0
"""The feature ops from Python (src/ops/features): bincount, cross, cross_hashed and the embedding lookups
against TensorFlow's documented examples; bad inputs as spt's exceptions naming the argument."""
import math

import numpy as np
import pytest

import spt
from sparse_util import IDS, P, W, st


# ---- bincount ------------------------------------------------------------------------------------


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
    (dict(minlength=-2), spt.InvalidArgumentError, "minlength"),
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
    with pytest.raises(spt.InvalidArgumentError, match="negative") as ei:  # TF: InvalidArgument
        spt.bincount(np.array([1, -1]))
    assert not isinstance(ei.value, spt.OutOfRangeError)
    with pytest.raises(spt.InvalidArgumentError, match="negative"):
        spt.bincount(np.array([1, -1]), maxlength=0)  # checked even where maxlength drops it
    # maxlength 0 keeps nothing, width 0, whatever minlength (TensorFlow 2.21), dense and sparse
    for v in (np.array([1, 3]), st([[0], [1]], np.array([1, 3]), [2])):
        for kw in (dict(maxlength=0), dict(maxlength=0, minlength=5)):
            r = spt.bincount(v, **kw)
            assert list(r.shape) == [0] and r.nnz == 0
    # -1 means "not given", as TensorFlow's attributes
    assert list(spt.bincount(np.array([1, 3]), minlength=-1, maxlength=-1).shape) == [4]
    assert list(spt.bincount(np.array([1, 3]), minlength=5, maxlength=3).shape) == [3]
    with pytest.raises(spt.DtypeError):
        spt.bincount(np.array([1.0, 2.0]))
    with pytest.raises(spt.OverflowError):
        spt.bincount(np.array([2 ** 63 - 1]))
    with pytest.raises(spt.InvalidArgumentError, match="SparseTensor"):
        spt.bincount(st([[0]], np.array([1]), [1]), weights=np.ones(1))


# ---- cross, cross_hashed -------------------------------------------------------------------------


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
    with pytest.raises(spt.InvalidArgumentError, match="num_buckets") as ei:
        spt.cross_hashed([a, a], num_buckets=-1)
    assert not isinstance(ei.value, spt.OutOfRangeError)
    # hash_key 0 is TensorFlow's default key (its Python layer: hash_key or default)
    x = np.array([[b"a"], [b"b"]], dtype=object)
    assert spt.cross_hashed([x], hash_key=0).values.tolist() == [3550520439517529108, 5701958020731327761]
    assert spt.cross_hashed([x], hash_key=np.uint64(0)).values.tolist() == spt.cross_hashed([x]).values.tolist()
    with pytest.raises(spt.OverflowError, match="hash_key"):
        spt.cross_hashed([a, a], hash_key=2 ** 64)
    with pytest.raises(spt.OverflowError, match="hash_key"):
        spt.cross_hashed([a, a], hash_key=-1)
    with pytest.raises(spt.DtypeError, match="num_buckets"):
        spt.cross_hashed([a, a], num_buckets=2.0)


# ---- embedding lookups ---------------------------------------------------------------------------


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
