# SPDX-License-Identifier: Apache-2.0
"""Files spt writes, read back by the other tools that read them (`make test-io-peers`, in the io-bench
venv, build/io-bench-venv): binsparse archives by the binsparse package from PyPI (COO of ranks 1 to 3,
CSR, CSC, every numeric dtype), Matrix Market files by fast_matrix_market. Exact comparisons."""
import os
import sys
import tempfile

import numpy as np

import spt

failures = []


def check(what, ok, detail=""):
    if not ok:
        failures.append("%s %s" % (what, detail))


def dense_of_binsparse(path):
    import binsparse as bs
    t = bs.load_binsparse(path)
    shape = tuple(t.shape)
    out = np.zeros(shape, dtype=np.asarray(t.values if hasattr(t, "values") else t.level.level.values).dtype)
    if isinstance(t, bs.CSRMatrix):
        ptr = np.asarray(t.pointers_to_1)
        rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        ix = (rows, np.asarray(t.indices_1)) if t.format == "CSR" else (np.asarray(t.indices_1), rows)
        out[ix] = t.values
    elif isinstance(t, bs.COORMatrix):
        out[np.asarray(t.indices_0), np.asarray(t.indices_1)] = t.values
    elif isinstance(t, bs.CVECVector):
        out[np.asarray(t.indices_0)] = t.values
    else:  # a custom sparse level of the whole rank
        out[tuple(np.asarray(i) for i in t.level.indices)] = t.level.level.values
    check(path + " fill", t.fill is True and t.fill_value == 0)
    return out


def binsparse_peers(tmp):
    rng = np.random.default_rng(7)
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
               "complex64", "complex128", "bool"]:
        for shape, fmt in [((6, 7), "binsparse"), ((6, 7), "binsparse-csr"), ((6, 7), "binsparse-csc"),
                           ((4, 3, 5), "binsparse"), ((9,), "binsparse")]:
            d = rng.integers(-3, 4, size=shape)
            d[rng.random(shape) < 0.6] = 0
            if dt.startswith("complex"):
                d = d + 1j * np.roll(d, 1)
            if dt == "bool":
                d = d != 0
            elif dt.startswith("uint"):
                d = np.abs(d)
            d = d.astype(dt)
            path = os.path.join(tmp, "%s_%s_%d.bsp.npz" % (dt, fmt, len(shape)))
            spt.write(spt.from_dense(d), path, format=fmt)
            got = dense_of_binsparse(path)
            check(path, got.dtype == d.dtype and np.array_equal(got, d), "%s vs %s" % (got, d))


def fmm_peers(tmp):
    try:
        import fast_matrix_market as fmm
    except ImportError:
        print("peers: fast_matrix_market missing, skipped")
        return
    rng = np.random.default_rng(3)
    for dt in ["int64", "float64", "float32", "complex128", "bool", "uint64"]:
        d = rng.standard_normal((8, 5)) * 1e5
        d[rng.random((8, 5)) < 0.5] = 0
        if dt.startswith("complex"):
            d = d + 1j * np.roll(d, 2)
        if dt in ("int64", "bool", "uint64"):
            d = np.round(np.abs(d) if dt == "uint64" else d)
        d = d.astype(dt)
        path = os.path.join(tmp, "m_%s.mtx" % dt)
        spt.write(spt.from_dense(d), path)
        got = fmm.mmread(path)
        got = got.toarray() if hasattr(got, "toarray") else got
        want = d.astype(np.int64) if dt == "bool" else d
        check(path, np.array_equal(np.asarray(got, dtype=want.dtype), want), "%s vs %s" % (got, want))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        binsparse_peers(tmp)
        fmm_peers(tmp)
    if failures:
        print("peers: %d failures:\n  %s" % (len(failures), "\n  ".join(failures[:20])))
        sys.exit(1)
    print("peers: binsparse and fast_matrix_market read spt's files exactly")


if __name__ == "__main__":
    main()
