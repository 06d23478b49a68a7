# SPDX-License-Identifier: Apache-2.0
"""Files kept mapped instead of copied: stored .npz members and .npy files give read-only numpy views of a
private mapping the tensor (or array) keeps alive; copy=True copies; a .npz through a pipe is spooled."""
import gc
import os
import threading

import numpy as np
import pytest

import spt

NUMERIC = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
           "complex64", "complex128"]


def mapped_from(arr, path):
    """Whether the array's memory lies in a mapping of `path` (Linux /proc/self/maps)."""
    addr = arr.__array_interface__["data"][0]
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if lo <= addr < hi:
                return line.rstrip().endswith(path) or (path + " (deleted)") in line
    return False


def sample(dtype, n=2000):
    rng = np.random.default_rng(5)
    ix = np.stack([rng.integers(0, d, n) for d in (40, 50, 60)], axis=1)
    vals = (rng.integers(0, 2, n) if dtype == "bool" else rng.integers(0, 100, n)).astype(dtype)
    return spt.SparseTensor(ix, vals, (40, 50, 60))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_stored_npz_is_mapped(tmp_path, dtype):
    p = str(tmp_path / "t.npz")
    t = sample(dtype)
    spt.write_npz(t, p, compress=False)
    r = spt.read_npz(p)
    assert mapped_from(r.values, p) and mapped_from(r.indices, p)
    assert not r.values.flags.writeable and not r.indices.flags.writeable
    np.testing.assert_array_equal(r.indices, t.indices)
    np.testing.assert_array_equal(r.values, t.values)
    c = spt.read_npz(p, copy=True)
    assert not mapped_from(c.values, p) and not mapped_from(c.indices, p)
    np.testing.assert_array_equal(c.values, t.values)
    spt.write_npz(t, p)  # deflated: inflated into memory
    d = spt.read_npz(p)
    assert not mapped_from(d.values, p)
    np.testing.assert_array_equal(d.values, t.values)


def test_view_outlives_tensor_and_name(tmp_path):
    p = str(tmp_path / "t.npz")
    t = sample("float64", 50000)
    spt.write_npz(t, p, compress=False)
    r = spt.read_npz(p)
    v, ix = r.values, r.indices
    del r
    gc.collect()
    os.unlink(p)  # the mapping keeps the file's pages
    np.testing.assert_array_equal(v, t.values)
    np.testing.assert_array_equal(ix, t.indices)


def test_pydata_and_scipy_read_stored(tmp_path):
    sparse = pytest.importorskip("sparse")
    p = str(tmp_path / "t.npz")
    t = sample("float64")
    spt.write_npz(t, p, compress=False)
    s = sparse.load_npz(p)
    np.testing.assert_array_equal(s.coords.T, t.indices)
    np.testing.assert_array_equal(s.data, t.values)
    s = sparse.COO(t.indices.T, t.values, shape=t.shape)
    q = str(tmp_path / "p.npz")
    sparse.save_npz(q, s, compressed=False)  # members not aligned: copied, still right
    r = spt.read_npz(q)
    np.testing.assert_array_equal(r.values, s.data)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_npy_is_mapped(tmp_path, dtype):
    p = str(tmp_path / "a.npy")
    a = np.arange(24).reshape(4, 6).astype(dtype)
    np.save(p, a)
    r = spt.read_npy(p)
    assert mapped_from(r, p)
    np.testing.assert_array_equal(r, np.load(p))
    c = spt.read_npy(p, copy=True)
    assert not mapped_from(c, p)
    np.testing.assert_array_equal(c, a)
    q = str(tmp_path / "f.npy")
    np.save(q, np.asfortranarray(a))  # Fortran order: read into memory
    f = spt.read_npy(q)
    assert not mapped_from(f, q)
    np.testing.assert_array_equal(f, a)
    spt.write_npy(a[::-1].copy(), p)  # spt's writers replace a file by renaming: the mapped array is unchanged
    np.testing.assert_array_equal(r, a)
    np.testing.assert_array_equal(spt.read_npy(p), a[::-1])


def test_npz_from_a_pipe(tmp_path):
    p = str(tmp_path / "t.npz")
    t = sample("int32", 30000)
    spt.write_npz(t, p)
    rd, wr = os.pipe()

    def feed():
        with open(p, "rb") as f, os.fdopen(wr, "wb") as w:
            w.write(f.read())

    th = threading.Thread(target=feed)
    th.start()
    try:
        r = spt.read_npz("/dev/fd/%d" % rd)
    finally:
        th.join()
        os.close(rd)
    np.testing.assert_array_equal(r.indices, t.indices)
    np.testing.assert_array_equal(r.values, t.values)


def test_write_npz_compress_argument(tmp_path):
    p = str(tmp_path / "t.npz")
    t = sample("float32")
    for c in (True, False, 0, 9, 12):
        spt.write_npz(t, p, compress=c)
        np.testing.assert_array_equal(spt.read_npz(p).values, t.values)
    with pytest.raises(spt.InvalidArgumentError):
        spt.write_npz(t, p, compress=13)
    with pytest.raises(spt.DtypeError):
        spt.write_npz(t, p, compress="yes")
    with pytest.raises(spt.DtypeError):
        spt.read_npz(p, copy="no")


def test_cli_info_from_a_pipe(tmp_path):
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "spt")
    if not os.path.exists(exe):
        pytest.skip("the spt command is not built next to this package")
    import subprocess
    p = str(tmp_path / "t.npz")
    spt.write_npz(sample("float64", 1000), p)
    import shlex
    r = subprocess.run("cat %s | %s info --format npz -" % (shlex.quote(p), shlex.quote(exe)), shell=True,
                       capture_output=True, text=True)  # a real pipe: spooled
    assert r.returncode == 0, r.stderr
    assert "npz" in r.stdout and "float64" in r.stdout
