# SPDX-License-Identifier: Apache-2.0
"""Where TensorFlow 2.21 is the judge: the cases the differential harness (tests/tf) found, pinned here with
exact values so that they hold without TensorFlow installed."""
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import spt


def st(ix, vals, shape, dtype=None):
    return spt.SparseTensor(ix, vals, shape, dtype=dtype)


def test_to_indicator_rank0():
    r0 = st(np.zeros((2, 0), np.int64), np.array([3, 1], np.int64), [])
    assert spt.to_indicator(r0, 4).tolist() == [False, True, False, True]
    assert spt.to_indicator(st(np.zeros((0, 0), np.int64), np.zeros(0, np.int64), []), 2).tolist() == [False, False]
    with pytest.raises(spt.OutOfRangeError):
        spt.to_indicator(r0, 3)


def test_dense_result_beyond_numpy_is_spt_overflow():
    """An empty dense result whose dims multiply past numpy's limit (TF: 'array is too big' too)."""
    x = st(np.zeros((0, 3), np.int64), np.zeros(0, np.int64), [0, 3, 3])  # result [0, 3, 2^62]
    with pytest.raises(spt.OverflowError, match="numpy cannot hold"):
        spt.to_indicator(x, 2 ** 62)


def test_cwise_broadcasts_dense_to_sparse_only():
    a = st(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [3, 0])
    with pytest.raises(spt.InvalidArgumentError, match="broadcasts dense to sparse only"):
        spt.sparse_dense_cwise_mul(a, np.ones((1, 1), np.float32))  # dense 1 against sparse 0
    assert spt.sparse_dense_cwise_mul(a, np.ones((3, 0), np.float32)).nnz == 0
    b = st([[1, 0]], np.array([2.0], np.float32), [2, 1])
    with pytest.raises(spt.InvalidArgumentError, match="meets no element"):
        spt.sparse_dense_cwise_add(b, np.ones(0, np.float32))
    with pytest.raises(spt.InvalidArgumentError, match="rank >= 1"):
        spt.sparse_dense_cwise_mul(st(np.zeros((1, 0), np.int64), np.array([2.0], np.float32), []), np.float32(3))
    assert spt.sparse_dense_cwise_div(b, np.array([4.0], np.float32)).values.tolist() == [0.5]


def test_slice_negative_size_past_the_end_is_empty():
    x = st([[1]], [1.0], [3])
    r = spt.slice(x, [5], [-1])
    assert list(r.shape) == [0] and r.nnz == 0
    assert list(spt.slice(x, [4], [-1]).shape) == [0]
    for start, size in (([1], [-1]), ([3], [-2])):
        with pytest.raises(spt.InvalidArgumentError, match="size"):
            spt.slice(x, start, size)
    with pytest.raises(spt.InvalidArgumentError, match="start"):
        spt.slice(x, [-1], [2])


def test_add_threshold_in_the_values_dtype():
    a = st([[0]], np.array([1], np.int32), [2])
    assert spt.add(a, a, threshold=3).nnz == 0
    assert spt.add(a, a, threshold=np.int64(2)).values.tolist() == [2]
    for t in (0.5, 1.0, float("inf"), float("nan"), np.float32(2)):
        with pytest.raises(spt.DtypeError, match="must be an integer"):
            spt.add(a, a, threshold=t)
    f = st([[0]], np.array([1], np.float32), [2])
    assert spt.add(f, f, threshold=1e40).nnz == 0  # +inf in float32: every sum dropped, as TF
    assert spt.add(f, f, threshold=float("-inf")).values.tolist() == [2.0]
    with pytest.raises(spt.InvalidArgumentError, match="NaN"):
        spt.add(f, f, threshold=float("nan"))  # TF silently drops every sum: a documented difference


def test_error_classes():
    assert issubclass(spt.OutOfRangeError, spt.InvalidArgumentError)
    assert issubclass(spt.OutOfRangeError, IndexError)
    try:
        spt.to_dense(st([[0, 7]], [1.0], [3, 4]))
    except spt.InvalidArgumentError as e:  # code written against TF's class catches it
        assert isinstance(e, spt.OutOfRangeError)
    for f in (lambda: spt.eye(-1), lambda: spt.cross_hashed([np.array([[b"a"]], object)], num_buckets=-1),
              lambda: spt.bincount(np.array([-1]))):
        with pytest.raises(spt.InvalidArgumentError) as ei:
            f()
        assert not isinstance(ei.value, spt.OutOfRangeError)


def test_matmul_operator_follows_numpy():
    rng = np.random.default_rng(5)
    d = rng.integers(-2, 3, (3, 4, 5)).astype(np.float64)
    d[d < 1] = 0
    sp = spt.from_dense(d)
    b = rng.normal(size=(3, 5, 2))
    assert np.allclose(sp @ b, d @ b)
    assert np.allclose(sp @ b[1], d @ b[1])
    a = rng.normal(size=(3, 6, 4))
    assert np.allclose(a @ sp, a @ d)
    m = spt.from_dense(d[0])
    assert np.allclose(m @ b[0, :, 0], d[0] @ b[0, :, 0])
    assert np.allclose(a[0, 0] @ m, a[0, 0] @ d[0])
    c = (d + 1j * np.roll(d, 1)).astype(np.complex128)
    ac = a + 2j * a
    assert np.allclose(ac @ spt.from_dense(c), ac @ c)  # no conjugation
    with pytest.raises(spt.InvalidArgumentError, match="batch"):
        sp @ rng.normal(size=(2, 5, 2))


def test_from_tf_is_duck_typed():
    # importing spt, and from_tf, never import TensorFlow
    code = ("import sys, types, spt; spt.from_tf(types.SimpleNamespace(indices=[[0]], values=[1.0], "
            "dense_shape=[1])); assert 'tensorflow' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))
    for dt in (np.uint16, np.int8, np.complex64, np.bool_, np.float64):
        like = types.SimpleNamespace(indices=np.array([[0, 1], [2, 0]]), values=np.array([1, 0], dt),
                                     dense_shape=np.array([3, 2]))
        x = spt.from_tf(like)
        assert x.dtype == np.dtype(dt) and x.indices.tolist() == [[0, 1], [2, 0]] and list(x.shape) == [3, 2]
    s = spt.from_tf(types.SimpleNamespace(indices=[[0]], values=np.array([b"a\x00"], object), dense_shape=[1]))
    assert s.values.tolist() == [b"a\x00"]
    with pytest.raises(spt.DtypeError, match="dense_shape"):
        spt.from_tf(types.SimpleNamespace(indices=[[0]], values=[1.0]))
    with pytest.raises(spt.OutOfRangeError):  # indices are checked as for any tensor
        spt.validate(spt.from_tf(types.SimpleNamespace(indices=[[5]], values=[1.0], dense_shape=[2])))


def test_to_tf_round_trip():
    tf = pytest.importorskip("tensorflow")
    for x in (st([[0, 1], [1, 0]], np.array([3, 4], np.uint16), [2, 2]),
              st([[2], [0]], np.array([b"a\x00", b""], object), [3]),
              st(np.zeros((1, 0), np.int64), np.array([1 + 2j], np.complex128), [])):
        t = spt.to_tf(x)
        assert isinstance(t, tf.sparse.SparseTensor) and t.values.dtype.as_numpy_dtype == x.dtype.type or \
            x.dtype.kind == "O"
        y = spt.from_tf(t)
        assert y.dtype == x.dtype and y.indices.tolist() == x.indices.tolist()
        assert y.values.tolist() == x.values.tolist() and list(y.shape) == list(x.shape)


def test_differences_table_and_harness_rules_are_one_set():
    """README.md's table of differences and tests/tf/rules.py's rules have the same ids (the harness checks
    this too when it runs, with TensorFlow; this check needs neither TensorFlow nor the harness)."""
    import re

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    i = readme.index("## Where TensorFlow is lax, spt is strict")
    j = readme.find("\n## ", i + 10)
    table = re.findall(r"^\| `([^`]+)` \|", readme[i:j], re.M)
    assert len(table) == len(set(table)), "a rule twice in the table"
    rules = set(re.findall(r'Rule\(\s*"([^"]+)"', open(os.path.join(root, "tests", "tf", "rules.py")).read()))
    assert set(table) == rules, (sorted(set(table) - rules), sorted(rules - set(table)))
