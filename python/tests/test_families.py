# SPDX-License-Identifier: Apache-2.0
"""Results of ops of every family pickle by value, and every op is listed by spt.has_op."""
import pickle

import numpy as np

import spt
from sparse_util import DATA, IDS, P, SP, same


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
              "deserialize_sparse", "serialize_many_sparse", "deserialize_many_sparse", "cast", "abs", "erf"):
        assert spt.has_op(n), n
