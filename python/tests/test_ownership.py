# SPDX-License-Identifier: Apache-2.0
"""Ownership: every class copies, deep-copies and pickles by value (multiprocessing works),
__init__ runs once, views stay valid for their whole life, a group iterator may be shared by threads."""
import copy
import gc
import multiprocessing
import pickle
import threading

import numpy as np
import pytest

import spt
import mp_worker


def tensor():
    ix = np.array([[2, 1], [0, 3], [0, 1], [1, 0], [2, 2]], np.int64)
    return spt.SparseTensor(ix, np.array([5.0, 1.0, 2.0, 3.0, 4.0]), [3, 4])


def objects():
    sp = tensor()
    strs = spt.SparseTensor([[1], [0]], np.array([b"b", b"a\x00c"], dtype=object), [2])
    dom = spt.Domain([(1, 2), (0, 5), (1, 2)])
    sm = spt.SparseMap({(0,): [(1, 2), (0, 0)], (2,): [(3, 1)], (1,): []})
    a = np.arange(24, dtype=np.float64).reshape(3, 2, 4)
    tot = spt.sparsify(a, [((0,), [(0, 1), (1, 3)]), ((2,), [(1, 0)])], {0: 0}, [3])
    it = spt.group(spt.reorder(sp), [0])
    next(it)  # a position to carry
    return [sp, strs, dom, sm, tot, it]


def same(a, b):
    assert mp_worker.describe(a) == mp_worker.describe(b)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_copies_are_by_value(how):
    for obj in objects():
        want = mp_worker.describe(copy.copy(obj))
        if how == "copy":
            c = copy.copy(obj)
        elif how == "deepcopy":
            c = copy.deepcopy(obj)
        else:
            c = pickle.loads(pickle.dumps(obj))
        if hasattr(obj, "h"):
            assert c.h != obj.h  # a new C object, never the same pointer twice
        assert mp_worker.describe(c) == want
        del c
        gc.collect()
        assert mp_worker.describe(copy.copy(obj)) == want  # the original survives the copy's end


def test_pickle_carries_data_not_pointers():
    sp = tensor()
    data = pickle.dumps(sp)
    assert str(sp.h).encode() not in data
    del sp
    gc.collect()
    sp2 = pickle.loads(data)
    assert spt.to_dense(spt.reorder(sp2))[2, 1] == 5.0


def test_group_iterator_copy_is_independent():
    it = spt.group(spt.reorder(tensor()), [0])
    first = next(it)
    c = copy.copy(it)
    rest_c = [k for k, _, _ in c]
    rest = [k for k, _, _ in it]
    assert first[0] == (0,) and rest == rest_c == [(1,), (2,)]


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_multiprocessing_round_trip(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip("no %s start method" % method)
    objs = objects()
    want = [mp_worker.describe(copy.copy(o)) for o in objs]
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2) as pool:
        got = pool.map(mp_worker.describe, objs)
    assert got == want
    # and the objects come back from the workers by value too
    with ctx.Pool(2) as pool:
        back = pool.map(copy.copy, objs[:5])
    for o, b in zip(objs, back):
        same(o, b)


def test_init_runs_once():
    sp = tensor()
    v = sp.values
    with pytest.raises(spt.FailedPreconditionError):
        sp.__init__([[0]], [9.0], [1])
    assert sp.shape == (3, 4) and v.tolist() == [5.0, 1.0, 2.0, 3.0, 4.0]
    d = spt.Domain([(1,)])
    with pytest.raises(spt.FailedPreconditionError):
        d.__init__([(2,)])
    m = spt.SparseMap({(0,): [(1,)]})
    with pytest.raises(spt.FailedPreconditionError):
        m.__init__({(0,): [(2,)]})
    with pytest.raises(spt.DtypeError):
        spt.ToT()


def test_views_outlive_their_object():
    sp = spt.reorder(tensor())
    views = [sp.values, sp.indices, sp.dense_shape, sp.order]
    want = [np.array(v) for v in views]
    it = spt.group(sp, [0])
    k, gix, gv = next(it)
    d = spt.to_dense(sp)
    for obj in (sp, it):
        if hasattr(obj, "__del__"):
            obj.__del__()  # calling it directly must not free what the views read
    del sp, it
    gc.collect()
    junk = [np.ones(1000) for _ in range(100)]  # reuse freed memory, if any was freed
    for v, w in zip(views, want):
        assert np.array_equal(v, w)
    assert gix.tolist() == [[0, 1], [0, 3]] and gv.tolist() == [2.0, 1.0]
    assert d[2, 1] == 5.0
    dom = spt.Domain([(3, 4), (1, 2)])
    dv = dom.indices
    del dom
    gc.collect()
    assert dv.tolist() == [[1, 2], [3, 4]]
    a = np.arange(24, dtype=np.float64).reshape(3, 2, 4)
    tot = spt.sparsify(a, [((0,), [(0, 1), (1, 3)])], {0: 0}, [3])
    tv = tot[(0,)]
    want_t = np.array(tv)
    del tot
    gc.collect()
    del junk
    assert np.array_equal(tv, want_t)


def test_eight_threads_share_one_tensor_and_one_iterator():
    n = 4000
    rng = np.random.default_rng(1)
    ix = np.stack([np.repeat(np.arange(n // 4), 4), np.tile(np.arange(4), n // 4)], 1).astype(np.int64)
    vals = rng.standard_normal(n)
    sp = spt.SparseTensor(ix[::-1].copy(), vals[::-1].copy(), [n // 4, 4])
    srt = spt.reorder(sp)
    want_dense = spt.to_dense(srt)
    want_sum = spt.reduce_sum(sp, axis=1)
    it = spt.group(srt, [0])
    seen = []
    lock = threading.Lock()
    errors = []
    start = threading.Barrier(8)

    def work(i):
        try:
            start.wait()
            for _ in range(20):
                assert np.array_equal(spt.to_dense(spt.reorder(sp)), want_dense)
                assert np.allclose(spt.reduce_sum(sp, axis=1), want_sum, rtol=0, atol=1e-12)
                assert sp.values.shape == (n,)
            mine = []
            for key, gix, gv in it:
                assert gix.shape == (4, 2) and np.all(gix[:, 0] == key[0])
                assert np.array_equal(gv, want_dense[key[0]])
                mine.append(key[0])
            with lock:
                seen.extend(mine)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert sorted(seen) == list(range(n // 4))  # every group exactly once
