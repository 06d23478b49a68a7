# SPDX-License-Identifier: Apache-2.0
"""Junk in any one argument of any public op is refused with one of spt's exception classes
(never numpy's or ctypes' errors, never a crash, never a silent wrap)."""
import numpy as np
import pytest

import spt

JUNK = [None, 2 ** 64 + 3, -(2 ** 64) - 1, 2 ** 63, 1.5, float("nan"), "x\x00y", b"\x00", [1.5, 2],
        [2 ** 64], np.array([0.0, 0.0]), np.array([[1, 2], [3, 4]]), object(), {"a": 1}, 1j, -1]


def m2():
    return spt.reorder(spt.SparseTensor([[0, 0], [1, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 4]))


def ids():
    return spt.SparseTensor([[0, 0], [1, 0]], np.array([1, 3], np.int64), [2, 1])


# (op, valid positional arguments)
CALLS = [
    ("reorder", lambda: (m2(), None)),
    ("argsort", lambda: (m2(), None)),
    ("to_dense", lambda: (m2(), 0.0, True)),
    ("from_dense", lambda: (np.eye(2), 0.0)),
    ("sparse_to_dense", lambda: (np.array([0, 1]), [3], np.array([1.0, 2.0]), 0.0, True)),
    ("concat", lambda: (0, [m2(), m2()], False)),
    ("split", lambda: (m2(), 3, 0)),
    ("slice", lambda: (m2(), [0, 0], [2, 2])),
    ("retain", lambda: (m2(), [True, False, True])),
    ("reset_shape", lambda: (m2(), [4, 4])),
    ("fill_empty_rows", lambda: (m2(), 0.0)),
    ("reshape", lambda: (m2(), [4, 3])),
    ("transpose", lambda: (m2(), [1, 0])),
    ("to_indicator", lambda: (ids(), 4)),
    ("merge", lambda: (ids(), ids(), 4)),
    ("reduce_sum", lambda: (m2(), 1, False)),
    ("reduce_max", lambda: (m2(), 1, False)),
    ("add", lambda: (m2(), m2(), 0.0)),
    ("maximum", lambda: (m2(), m2())),
    ("softmax", lambda: (m2(),)),
    ("sparse_dense_cwise_mul", lambda: (m2(), np.ones((3, 4)))),
    ("sparse_dense_matmul", lambda: (m2(), np.ones((4, 2)), False, False)),
    ("group", lambda: (m2(), [0])),
    ("inject_index", lambda: ((1, 2), {0: 5})),
    ("sparsify", lambda: (np.ones((2, 3)), [((0,), [(1,)])], {0: 0}, [2])),
    ("set_num_threads", lambda: (0,)),
    ("Domain", lambda: ([(0, 1), (2, 3)],)),
    ("SparseMap", lambda: ({(0,): [(1,)]},)),
    ("SparseTensor", lambda: ([[0]], [1.0], [2], [0], np.float64)),
    ("write", lambda: (m2(), "/nonexistent-dir/x.tns", "tns")),
    ("read_tns", lambda: ("/nonexistent-dir/x.tns", np.float64, [2])),
    # segment reductions, expand_dims, eye, map_values, bincount, cross, embeddings, serialization
    ("segment_sum", lambda: (np.ones((3, 2)), [0, 2], [0, 1], 3)),
    ("segment_mean", lambda: (np.ones((3, 2)), [0, 2], [0, 1], None)),
    ("expand_dims", lambda: (m2(), 1)),
    ("eye", lambda: (3, 2, np.float64)),
    ("map_values", lambda: (spt.abs, m2())),
    ("map_values", lambda: (np.add, m2(), m2())),
    ("cast", lambda: (m2(), np.int32)),
    ("bincount", lambda: (np.array([[1, 2], [3, 3]]), np.ones((2, 2)), -1, 2, 8, False)),
    ("bincount", lambda: (ids(), None, 0, None, None, True)),
    ("cross", lambda: ([ids(), np.array([["a"], ["b"]])], None, "_")),
    ("cross_hashed", lambda: ([ids(), ids()], 7, 3)),
    ("embedding_lookup_sparse", lambda: (np.ones((4, 2)), ids(), None, "sum", None, None, False)),
    ("safe_embedding_lookup_sparse", lambda: ([np.ones((2, 2)), np.ones((2, 2))], ids(), None, "mean", 0)),
    ("serialize_sparse", lambda: (m2(), "string")),
    ("serialize_many_sparse", lambda: (m2(), "string")),
    ("deserialize_sparse", lambda: (spt.serialize_sparse(m2()), np.float64, 2)),
    ("deserialize_many_sparse", lambda: (spt.serialize_many_sparse(m2()), np.float64, 1)),
]

CASES = [(k, i, j) for k, (name, make) in enumerate(CALLS) for i in range(len(make())) for j in range(len(JUNK))]


@pytest.mark.parametrize("k,pos,junk", CASES, ids=["%s-%d-%d-%d" % (CALLS[k][0], k, i, j) for k, i, j in CASES])
def test_junk_argument(k, pos, junk):
    name, make = CALLS[k]
    args = list(make())
    args[pos] = JUNK[junk]
    try:
        r = getattr(spt, name)(*args)
        if name == "group":
            list(r)
    except spt.SptError:
        pass
    finally:
        spt.set_num_threads(0)
