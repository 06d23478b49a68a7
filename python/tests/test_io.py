# SPDX-License-Identifier: Apache-2.0
"""Files: compressed and archived inputs (the fixtures of tests/io/data), the tar member, the progress
callback, compressed outputs, binary readers refusing a stream from its first bytes."""
import os
import time

import numpy as np
import pytest

import spt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "io", "data")


def data(name):
    p = os.path.join(DATA, name)
    if not os.path.exists(p):
        pytest.skip("tests/io/data is not next to this package (installed copy)")
    return p


def check_frostt(t):
    assert t.shape == (2, 3, 4)
    np.testing.assert_array_equal(t.indices, [[0, 0, 0], [1, 2, 0], [1, 2, 3]])
    np.testing.assert_array_equal(t.values, [1.5, 2.0, -1.0])


@pytest.mark.parametrize("ext", ["gz", "bz2", "xz", "zst"])
def test_compressed_tns(ext):
    check_frostt(spt.read(data("frostt.tns." + ext)))
    check_frostt(spt.read_tns(data("frostt.tns." + ext)))


def test_suitesparse_tar_and_member():
    t = spt.read(data("west0067.tar.gz"))
    assert t.shape == (3, 4) and t.nnz == 3
    np.testing.assert_array_equal(t.values, [2.5, -1.0, 4.0])
    b = spt.read(data("west0067.tar.gz"), member="west0067_b.mtx")
    assert b.shape == (3, 1)
    with pytest.raises(spt.InvalidArgumentError, match="several data files"):
        spt.read(data("several.tar"))
    assert spt.read(data("several.tar"), member=b"b.mtx").nnz == 3
    with pytest.raises(spt.InvalidArgumentError, match="no member 'zz'"):
        spt.read(data("several.tar"), member="zz")
    with pytest.raises(spt.InvalidArgumentError, match="NUL"):
        spt.read(data("several.tar"), member="a\0b")
    # the member is per call: the next read has the default again
    with pytest.raises(spt.InvalidArgumentError, match="several data files"):
        spt.read(data("several.tar"))


def test_corrupt():
    with pytest.raises(spt.ParseError, match="corrupt.tns.gz: corrupt or truncated gzip"):
        spt.read(data("corrupt.tns.gz"))
    with pytest.raises(spt.ParseError, match="truncated.tar.gz: corrupt or truncated"):
        spt.read(data("truncated.tar.gz"))


def test_progress_callback():
    seen = []
    check_frostt(spt.read_tns(data("frostt.tns.gz"), progress=seen.append))
    assert seen and seen[-1] == 1.0 and all(0.0 <= x <= 1.0 for x in seen)
    with pytest.raises(spt.DtypeError, match="progress must be callable"):
        spt.read(data("frostt.tns.gz"), progress=3)
    # a callback that raises does not break the read
    check_frostt(spt.read(data("frostt.tns.gz"), progress=lambda x: 1 / 0))


@pytest.mark.parametrize("ext", ["tns.gz", "mtx.bz2", "tns.xz", "mtx.zst"])
def test_compressed_outputs(tmp_path, ext):
    t = spt.read(data("west0067.tar.gz"))
    p = str(tmp_path / ("out." + ext))
    spt.write(t, p)
    with open(p, "rb") as f:
        assert f.read(1) not in (b"#", b"%")
    back = spt.read(p)
    np.testing.assert_array_equal(back.indices, t.indices)
    np.testing.assert_array_equal(back.values, t.values)


def test_dev_zero_refused_at_once():
    t0 = time.monotonic()
    with pytest.raises(spt.ParseError, match="expected a NumPy .npy file"):
        spt.read_npy("/dev/zero")
    with pytest.raises(spt.ParseError, match="expected a zip"):
        spt.read_npz("/dev/zero")
    assert time.monotonic() - t0 < 1.0


def test_npz_names_its_format(tmp_path):
    """pydata/sparse 0.15+ load_npz builds the class its format.npy names ('coo', NumPy unicode)."""
    t = spt.SparseTensor([[0, 1, 2], [1, 0, 3]], [1.5, -2.0], [2, 3, 4])
    p = str(tmp_path / "t.npz")
    spt.write_npz(t, p)
    with np.load(p) as z:
        assert z["format"].dtype == np.dtype("<U3") and z["format"].item() == "coo"
        np.testing.assert_array_equal(z["coords"], [[0, 1], [1, 0], [2, 3]])
    back = spt.read_npz(p)
    np.testing.assert_array_equal(back.indices, t.indices)


def test_binsparse_read_write(tmp_path):
    t = spt.read(data("binsparse/coo3_float64.bsp.npz"), format="binsparse")
    assert t.dtype == np.float64 and t.shape == (3, 4, 5)
    assert np.array_equal(np.asarray(t.values), [1.0, -2.0, 0.5, 1e-300])
    d = np.array([[0, 1 + 2j, 0], [3j, 0, -1]], dtype=np.complex64)
    for fmt in ("binsparse", "binsparse-csr", "binsparse-csc"):
        p = str(tmp_path / ("m_%s.npz" % fmt))
        spt.write(spt.from_dense(d), p, format=fmt)
        back = spt.read(p)  # a .npz holding binsparse.npy
        assert back.dtype == np.complex64
        assert np.array_equal(spt.to_dense(spt.reorder(back)), d)
    with pytest.raises(spt.ParseError, match=r"bad_length\.bsp\.npz\[indices_1\.npy\]: expected 3 elements"):
        spt.read(data("binsparse/bad_length.bsp.npz"))


def test_write_progress(tmp_path):
    t = spt.SparseTensor(np.stack([np.arange(300000) % 1000, np.arange(300000) // 1000], 1), np.arange(300000.0),
                         [1000, 300])
    for name, fn in (("a.tns", spt.write_tns), ("b.mtx", spt.write_mtx), ("c.tns", spt.write)):
        seen = []
        fn(t, str(tmp_path / name), progress=seen.append)
        assert len(seen) >= 2 and seen[-1] == 1.0 and seen == sorted(seen) and all(0 <= x <= 1 for x in seen)
    with pytest.raises(spt.DtypeError, match="progress must be callable"):
        spt.write(t, str(tmp_path / "d.tns"), progress=3)
    spt.write(t, str(tmp_path / "e.tns"), progress=lambda x: 1 / 0)  # a raising callback is ignored
    assert spt.read(str(tmp_path / "e.tns")).nnz == 300000
