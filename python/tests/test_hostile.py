# SPDX-License-Identifier: Apache-2.0
"""Reproducers of the second hostile review, and the wider nets around them:

- every op of hostile_worker.OPS while another thread switches spt.set_num_threads between 1 and 16
  (results equal to a run with a fixed count);
- every op under RLIMIT_AS stepped from 1 to 64 MB above the current size, in child processes (an spt
  error, MemoryError or the result; never an exit or abort from a runtime library);
- the first error of a thread under `ulimit -v` (the message buffer is not dynamic TLS);
- numpy inputs of every odd layout (non-contiguous, Fortran, read-only, big-endian, memory-mapped, object,
  bool bytes other than 0 and 1) give the result of their canonical copy, or an spt error;
- bool bytes, astype(str), results numpy cannot hold, error names, object values."""
import contextlib
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import spt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hostile_worker as W  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."))


@pytest.fixture(scope="module")
def x():
    return W.inputs(1.0)


# ---- the thread count changed while ops run -------------------------------------------------------


@contextlib.contextmanager
def count_flipping():
    """Another thread switches the thread count between 1 and 16 every half millisecond."""
    stop = threading.Event()

    def toggle():
        i = 0
        while not stop.is_set():
            spt.set_num_threads(1 if i % 2 else 16)
            i += 1
            time.sleep(0.0005)

    th = threading.Thread(target=toggle)
    th.start()
    try:
        yield
    finally:
        stop.set()
        th.join()
        spt.set_num_threads(0)


def test_set_num_threads_during_every_op(x):
    spt.set_num_threads(4)
    ref = {k: W.checksum(f(x)) for k, f in W.OPS.items()}
    with count_flipping():
        for _ in range(2):
            for k, f in W.OPS.items():
                got = W.checksum(f(x))
                assert abs(got - ref[k]) <= 1e-12 * abs(ref[k]), (k, got, ref[k])


def test_reorder_while_count_changes():
    """The review's reproducer: 2*10^6 entries reordered 25 times while the count flips every 0.5 ms
    (heap corruption in the bucket sort's per-thread scratch before)."""
    rng = np.random.default_rng(0)
    n = 2 * 10**6
    idx = rng.integers(0, 1000, (n, 3))
    t = spt.SparseTensor(idx, rng.random(n), [1000, 1000, 1000])
    ref = spt.reorder(t)
    with count_flipping():
        for _ in range(25):
            r = spt.reorder(t)
            assert np.array_equal(r.indices, ref.indices)


# ---- the address space limited (RLIMIT_AS) ------------------------------------------------------------


@pytest.mark.parametrize("names", [list(W.OPS)[i::4] for i in range(4)], ids=lambda n: n[0] + "...")
def test_every_op_under_rlimit_as(names):
    env = dict(ENV, OMP_NUM_THREADS="4")
    p = subprocess.run([sys.executable, os.path.join(HERE, "hostile_worker.py"), "rlimit"] + names,
                       env=env, capture_output=True, text=True, timeout=600)
    done = [ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("done ")]
    assert p.returncode == 0 and done == names, (p.returncode, done, p.stderr[-2000:])


def test_reduce_sum_rlimit_as_reproducer():
    code = """if 1:
        import resource, numpy as np, spt
        n = 400000
        rng = np.random.default_rng(0)
        t = spt.SparseTensor(np.stack([rng.integers(0, 1000, n), rng.integers(0, 1000, n)], 1), rng.random(n), [1000, 1000])
        vm = int(open('/proc/self/statm').read().split()[0]) * 4096
        for mb in (2, 4, 6, 12):
            resource.setrlimit(resource.RLIMIT_AS, (vm + (mb << 20), resource.RLIM_INFINITY))
            try:
                spt.reduce_sum(t, axis=0)
            except (spt.SptError, MemoryError):
                pass
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print('ok')
    """
    p = subprocess.run([sys.executable, "-c", code], env=dict(ENV, OMP_NUM_THREADS="4"), capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "ok", (p.returncode, p.stderr[-1000:])


def test_first_error_of_a_thread_under_ulimit_v():
    """The review's reproducer: the first error of the process under `ulimit -v 800000` (glibc aborted
    with "cannot allocate memory for thread-local data" when the message buffer was dynamic TLS)."""
    code = ("import spt\ntry:\n    spt.serialize_many_sparse(spt.SparseTensor([[0,0]],[1.],[2*10**7,1]))\n"
            "except (spt.SptError, MemoryError) as e:\n    print('error', type(e).__name__)\nelse:\n    print('ok')\n")
    p = subprocess.run(["sh", "-c", 'ulimit -v 800000; exec "$0" -c "$1"', sys.executable, code], env=ENV,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.split()[0] in ("ok", "error"), (p.returncode, p.stderr[-1000:])
    assert "thread-local" not in p.stderr


def test_omp_stacksize_huge():
    code = "import numpy as np, spt\nt = spt.SparseTensor(np.stack([np.arange(400000) % 1000, np.arange(400000) // 1000], 1), np.ones(400000), [1000, 400])\nprint(spt.reduce_sum(t, axis=0).sum())\n"
    p = subprocess.run([sys.executable, "-c", code], env=dict(ENV, OMP_STACKSIZE="4G", OMP_NUM_THREADS="4"),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and float(p.stdout) == 400000.0, (p.returncode, p.stderr[-1000:])


# ---- numpy inputs of every layout ---------------------------------------------------------------------


def _layouts(a, tmp_path):
    """(label, array) variants of `a` holding the same values."""
    out = [("noncontig", np.repeat(a, 2, axis=0)[::2]), ("fortran", np.asfortranarray(a))]
    ro = a.copy()
    ro.flags.writeable = False
    out.append(("readonly", ro))
    if a.dtype.kind in "iufc" and a.dtype.itemsize > 1:
        out.append(("bigendian", a.astype(a.dtype.newbyteorder(">"))))
    path = str(tmp_path / ("m%d.npy" % len(os.listdir(tmp_path))))
    np.save(path, a)
    out.append(("memmap", np.load(path, mmap_mode="r")))
    out.append(("object", a.astype(object)))
    if a.dtype == np.bool_:
        u = a.view(np.uint8) * np.uint8(7)  # true bytes 7, false 0
        out.append(("boolbytes", u.view(np.bool_)))
    return out


def _same_or_spt_error(f, canon, variant):
    want = f(canon)
    try:
        got = f(variant)
    except spt.SptError:
        return
    assert W.checksum(got) == W.checksum(want)


CASES = {
    "values f64": (np.arange(1, 41, dtype=np.float64),
                   lambda v: spt.reduce_sum(spt.SparseTensor(np.stack([np.arange(40) % 8, np.arange(40) // 8], 1), v, [8, 5]), axis=0)),
    "values i32": (np.arange(-20, 20, dtype=np.int32),
                   lambda v: spt.cast(spt.SparseTensor(np.arange(40)[:, None], v, [40]), np.float64)),
    "values bool": (np.arange(40) % 3 == 0,
                    lambda v: spt.cast(spt.SparseTensor(np.arange(40)[:, None], v, [40]), np.float64)),
    "indices": (np.stack([np.arange(40) % 8, np.arange(40) // 8], 1).astype(np.int64),
                lambda ix: spt.reorder(spt.SparseTensor(ix, np.arange(40.0), [8, 5]))),
    "dense rhs": ((np.arange(20) % 7).reshape(5, 4).astype(np.float64),
                  lambda d: spt.sparse_dense_matmul(spt.SparseTensor([[0, 1], [3, 4]], [2.0, 3.0], [4, 5]), d)),
    "dense bool": ((np.arange(20) % 3 == 0).reshape(4, 5),
                   lambda d: spt.from_dense(d)),
    "dense add": ((np.arange(20) % 5).reshape(4, 5).astype(np.float64),
                  lambda d: spt.add(spt.SparseTensor([[0, 1], [3, 4]], [2.0, 3.0], [4, 5]), d)),
    "segment data": ((np.arange(24) % 5).reshape(6, 4).astype(np.float64),
                     lambda d: spt.segment_sum(d, [0, 2, 5], [0, 0, 1], 2)),
    "segment ids": (np.array([0, 0, 1], np.int64),
                    lambda s: spt.segment_sum(np.ones((6, 4)), [0, 2, 5], s, 2)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_numpy_layouts(case, tmp_path):
    a, f = CASES[case]
    for label, v in _layouts(a, tmp_path):
        _same_or_spt_error(f, a, v)


# ---- the review's other findings ----------------------------------------------------------------------


def test_bool_bytes_normalised(tmp_path):
    b = np.array([2, 1, 0, 255], np.uint8).view(bool)
    s = spt.SparseTensor([[0], [1], [2], [3]], b, [4])
    assert spt.cast(s, np.float64).values.tolist() == [1.0, 1.0, 0.0, 1.0]
    assert spt.cast(s, np.int8).values.tolist() == [1, 1, 0, 1]
    p = str(tmp_path / "b.tns")
    spt.write(s, p)
    assert spt.read(p).values.tolist() == [True, True, False, True]
    r = spt.deserialize_sparse(spt.serialize_sparse(s), np.bool_)
    assert r.values.tolist() == [True, True, False, True]
    d = np.array([[3, 0]], np.uint8).view(bool)
    assert spt.from_dense(d).values.tolist() == [True]


def test_astype_str_only_between_strings():
    t = spt.SparseTensor([[0]], [1.5], [1])
    for dt in (str, "U5", "S3", bytes, object, "string"):
        with pytest.raises(spt.DtypeError):
            t.astype(dt)
    with pytest.raises(spt.DtypeError):
        spt.cast(t, "string")
    s = spt.SparseTensor([[0]], [b"x"], [1])
    assert s.astype(str).values.tolist() == [b"x"]


def test_results_numpy_cannot_hold_name_the_op(tmp_path):
    with pytest.raises(spt.OverflowError, match=r"^spt\.segment_sum: numpy cannot hold"):
        spt.segment_sum(np.zeros((4, 0)), [0, 1], [0, 2**62])
    a = spt.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0), [2**62, 3])
    with pytest.raises(spt.OverflowError, match=r"^spt\.einsum: numpy cannot hold"):
        spt.einsum("ij,jk->ik", a, np.ones((3, 0)))
    with pytest.raises(spt.OverflowError, match=r"^spt\.mttkrp: numpy cannot hold"):
        spt.mttkrp(spt.SparseTensor([[0, 0, 0]], [1.0], [2**62, 3, 4]), [None, np.ones((3, 0)), np.ones((4, 0))], 0)
    L = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
    a20 = spt.SparseTensor([[0] * 20], [1.0], [1] * 20)
    with pytest.raises(spt.InvalidArgumentError, match=r"^spt\.einsum: numpy cannot hold .*rank 40"):
        spt.einsum(L[:20] + "," + L[20:40] + "->" + L[:40], a20, np.ones([1] * 20))
    hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % ", ".join(["1"] * 64)
    hdr = hdr.ljust(((len(hdr) + 11) // 64 + 1) * 64 - 11) + "\n"
    p = tmp_path / "d64.npy"
    p.write_bytes(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode() + np.ones(1).tobytes())
    t = spt.read(str(p))
    assert t.rank == 64 and t.nnz == 1
    with pytest.raises(spt.InvalidArgumentError, match=r"^spt\.to_dense: numpy cannot hold .*rank 64"):
        spt.to_dense(t)


def test_mttkrp_error_names_the_public_function():
    with pytest.raises(spt.OverflowError) as e:
        spt.mttkrp(spt.SparseTensor([[0, 0, 0]], [1.0], [2**62, 3, 4]), [None, np.ones((3, 2)), np.ones((4, 2))], 0)
    assert str(e.value).startswith("spt_mttkrp:"), str(e.value)
    assert "spt_dense_new" not in str(e.value)


def test_object_values():
    assert spt.SparseTensor([[0]], np.array([1.5], object), [1]).values.dtype == np.float64
    assert spt.SparseTensor([[0]], np.array([3], object), [1]).values.tolist() == [3]
    with pytest.raises(spt.OverflowError, match="values holds 1180591620717411303424"):
        spt.SparseTensor([[0]], [2**70], [1])
    with pytest.raises(spt.InvalidArgumentError, match="values must not be None"):
        spt.SparseTensor([[0]], None, [1])
    with pytest.raises(spt.DtypeError, match="got generator"):
        spt.SparseTensor([[0]], (v for v in [1.0]), [1])
    with pytest.raises(spt.DtypeError, match="got dict"):
        spt.SparseTensor([[0]], np.array([{}], object), [1])
    assert spt.SparseTensor([[0]], np.array([b"a"], object), [1]).values.tolist() == [b"a"]


def test_npy_descr_with_nul(tmp_path):
    hdr = "{'descr': '<f8\0zz', 'fortran_order': False, 'shape': (2,), }"
    hdr = hdr.ljust(((len(hdr) + 11) // 64 + 1) * 64 - 11) + "\n"
    p = tmp_path / "nul.npy"
    p.write_bytes(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode() + np.ones(2).tobytes())
    with pytest.raises(spt.ParseError, match="descr"):
        spt.read(str(p))


def test_spy_huge_dims(tmp_path):
    for shape, side in (([2**63 - 1, 1], 1), ([2**63 - 1, 2**63 - 1], None), ([10**18, 1], 1)):
        t = spt.SparseTensor([[0, 0]], [1.0], shape)
        p = str(tmp_path / "a.png")
        if side:
            spt.write_spy_png(t, p, max_side=side)
        else:
            spt.write_spy_png(t, p)
        assert open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_tns_dtype_contradicting_header(tmp_path):
    p = tmp_path / "f.tns"
    p.write_text("# dtype: float64\n1 1 1.5\n2 2 2.5\n")
    with pytest.raises(spt.InvalidArgumentError, match="header says dtype float64"):
        spt.read(str(p), dtype=np.complex128)
    assert spt.read(str(p), dtype=np.float32).dtype == np.float32
