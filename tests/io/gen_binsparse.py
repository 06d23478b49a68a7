# SPDX-License-Identifier: Apache-2.0
"""Writes the binsparse test files of tests/io/data/binsparse with the binsparse package from PyPI (and
NumPy for the hostile ones), each good file beside NAME.expect.tns: its entries (1-based, row-major
sorted, values as Python's repr, which reads back exactly) for test_binsparse.c.

Run once by `make io-test-data` in the io-bench venv (build/io-bench-venv); the outputs are committed,
nothing runs at test time."""
import json
import os
import sys

import numpy as np
import binsparse as bs

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "binsparse")

DT_NAME = {np.dtype(k): k for k in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                     "float32", "float64", "complex64", "complex128")}
DT_NAME[np.dtype(bool)] = "bool"


def fmt(v):
    if isinstance(v, (complex, np.complexfloating)):
        return "%s %s" % (fmt(v.real), fmt(v.imag))
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (float, np.floating)):
        return repr(float(v)) if v.dtype == np.float64 else repr(float(v))  # float32 values are exact doubles
    return str(int(v))


def expect(name, shape, coords, values):
    """coords: rank x n; written sorted row-major."""
    coords = np.asarray(coords, dtype=np.int64).reshape(len(shape), -1)
    values = np.asarray(values)
    order = np.lexsort(coords[::-1]) if coords.shape[1] else np.arange(0)
    with open(os.path.join(OUT, name + ".expect.tns"), "w") as f:
        f.write("# dtype: %s\n# shape: %s\n" % (DT_NAME[values.dtype], " ".join(map(str, shape))))
        for i in order:
            f.write(" ".join(str(c + 1) for c in coords[:, i]) + " " + fmt(values[i]) + "\n")


def save(name, tensor, coords, values, alias=None):
    bs.save_binsparse(tensor, os.path.join(OUT, name + ".bsp.npz"), alias=alias)
    expect(name, tensor.shape, coords, values)


def csr_of(shape, rows, cols, vals):
    o = np.lexsort((cols, rows))
    rows, cols, vals = rows[o], cols[o], vals[o]
    ptr = np.zeros(shape[0] + 1, dtype=np.uint64)
    np.add.at(ptr, rows + 1, 1)
    return np.cumsum(ptr).astype(np.uint64), cols.astype(np.uint64), vals


def good():
    r = np.array([0, 0, 2, 3, 3]); c = np.array([1, 4, 2, 0, 4]); shape = (4, 5)
    # one COO matrix per numeric dtype
    for dt, vals in [("int8", [-128, 127, 0, -1, 5]), ("int16", [-32768, 32767, 1, 2, 3]),
                     ("int32", [-2**31, 2**31 - 1, 7, 8, 9]), ("int64", [-2**63, 2**63 - 1, 1, 2, 3]),
                     ("uint8", [0, 255, 1, 2, 3]), ("uint16", [0, 65535, 1, 2, 3]), ("uint32", [0, 2**32 - 1, 1, 2, 3]),
                     ("uint64", [0, 2**64 - 1, 1, 2, 3]), ("float32", [0.1, -1.5, 3.4028235e38, 1e-45, -0.0]),
                     ("float64", [0.1, -2.5, 1.7976931348623157e308, 5e-324, np.inf]),
                     ("bool", [True, False, True, True, False])]:
        v = np.array(vals, dtype=dt)
        save("coo_" + dt, bs.COOMatrix(shape, 5, indices_0=r.astype(np.int32), indices_1=c.astype(np.uint16), values=v),
             [r, c], v)
    vc = np.array([1 + 2j, -3.5j, 0.25, 1e300 - 1j, -0.0 + 0j])
    save("coo_complex128", bs.COOMatrix(shape, 5, indices_0=r, indices_1=c, values=vc), [r, c], vc)
    # CSR / CSC / DCSR / DCSC with fill 0
    v = np.array([1.5, -2.0, 3.25, 4.0, 5.5], dtype=np.float32)
    ptr, ix, vv = csr_of(shape, r, c, v)
    save("csr_float32", bs.CSRMatrix(shape, 5, fill=True, fill_value=np.float32(0), pointers_to_1=ptr, indices_1=ix,
                                     values=vv), [r, c], v)
    ptr_t, ix_t, vt = csr_of((5, 4), c, r, v)
    save("csc_float32", bs.CSCMatrix(shape, 5, pointers_to_1=ptr_t, indices_1=ix_t, values=vt), [r, c], v)
    save("csc_custom", bs.CSCMatrix(shape, 5, pointers_to_1=ptr_t, indices_1=ix_t, values=vt), [r, c], v, alias=False)
    rows_ne = np.unique(r)
    dptr = np.concatenate([[0], np.cumsum([np.sum(r == q) for q in rows_ne])]).astype(np.int64)
    o = np.lexsort((c, r))
    save("dcsr_int64", bs.DCSRMatrix(shape, 5, indices_0=rows_ne, pointers_to_1=dptr, indices_1=c[o],
                                     values=np.arange(5, dtype=np.int64)[o]), [r, c], np.arange(5, dtype=np.int64))
    cols_ne = np.unique(c)
    o = np.lexsort((r, c))
    cptr = np.concatenate([[0], np.cumsum([np.sum(c == q) for q in cols_ne])]).astype(np.int64)
    save("dcsc_uint32", bs.DCSCMatrix(shape, 5, indices_0=cols_ne, pointers_to_1=cptr, indices_1=r[o],
                                      values=np.arange(5, dtype=np.uint32)[o]), [r, c], np.arange(5, dtype=np.uint32))
    # COO of rank 3 and 1 (custom sparse levels), COOC, iso values, complex64 CSR, dense formats
    co = np.array([[0, 1, 1, 2], [3, 0, 2, 1], [1, 1, 0, 4]])
    v3 = np.array([1.0, -2.0, 0.5, 1e-300])
    save("coo3_float64", bs.CustomTensor((3, 4, 5), 4, fill=True, fill_value=0.0,
                                         level=bs.SparseLevel(3, bs.ElementLevel(v3), tuple(co))), co, v3)
    i1 = np.array([0, 3, 6]); v1 = np.array([10, 20, 30], dtype=np.int16)
    save("cvec_int16", bs.CVECVector((7,), 3, indices_0=i1, values=v1), [i1], v1)
    o = np.lexsort((r, c))
    save("cooc_int32", bs.COOCMatrix(shape, 5, indices_0=c[o], indices_1=r[o], values=np.arange(1, 6, dtype=np.int32)[o]),
         [r, c], np.arange(1, 6, dtype=np.int32))
    iso = np.broadcast_to(np.array([7], dtype=np.int8), (5,))
    ptr, ix, _ = csr_of(shape, r, c, np.zeros(5))
    save("csr_iso_int8", bs.CSRMatrix(shape, 5, pointers_to_1=ptr, indices_1=ix, values=iso), [r, c], np.full(5, 7, np.int8))
    vc64 = np.array([1 + 1j, 2, 3j, -4, 0.5 - 0.5j], dtype=np.complex64)
    ptr, ix, vv = csr_of(shape, r, c, vc64)
    save("csr_complex64", bs.CSRMatrix(shape, 5, pointers_to_1=ptr, indices_1=ix, values=vv), [r, c], vc64)
    dv = np.array([0, 3, 0, -1], dtype=np.int8)
    save("dvec_int8", bs.DVECVector((4,), 4, values=dv), [np.arange(4)], dv)
    dm = np.arange(6, dtype=np.float64).reshape(2, 3)
    rr, cc = np.indices((2, 3)).reshape(2, -1)
    save("dmatc_float64", bs.DMATCMatrix((2, 3), 6, values=dm.T.reshape(-1)), [rr, cc], dm.reshape(-1))
    e = np.zeros(0)
    save("coo_empty", bs.COOMatrix((0, 3), 0, indices_0=e.astype(np.int64), indices_1=e.astype(np.int64), values=e),
         [e, e], e)


def hostile():
    """Archives spt must refuse with a message naming the file and the field."""
    base = {"version": "0.1.0", "format": "COO", "shape": [4, 5], "number_of_stored_values": 3,
            "data_types": {"indices_0": "int64", "indices_1": "int64", "values": "float64"}}
    arrays = {"indices_0": np.array([0, 1, 3]), "indices_1": np.array([4, 0, 2]), "values": np.array([1.0, 2.0, 3.0])}

    def bad(name, header=None, text=None, **changes):
        a = dict(arrays)
        a.update({k: v for k, v in changes.items() if v is not None})
        for k in [k for k, v in changes.items() if v is None]:
            del a[k]
        if text is None:
            text = json.dumps({"binsparse": header if header is not None else base})
        np.savez(os.path.join(OUT, "bad_" + name + ".bsp.npz"), binsparse=np.asarray(text), **a)

    def hdr(**kw):
        h = json.loads(json.dumps(base))
        for k, v in kw.items():
            if v is None:
                h.pop(k)
            else:
                h[k] = v
        return h

    bad("json", text='{"binsparse": {"format": "COO", "shape": [4, 5],')
    bad("json_trailing", text='{"binsparse": {}} x')
    bad("no_namespace", text=json.dumps(base))
    bad("shape_small", hdr(shape=[4, 3]))        # index 4 of column beyond the shape
    bad("shape_negative", hdr(shape=[4, -5]))
    bad("shape_float", hdr(shape=[4, 5.5]))
    bad("nnz_more", hdr(number_of_stored_values=4))
    bad("nnz_less", hdr(number_of_stored_values=2))
    bad("nnz_missing", hdr(number_of_stored_values=None))
    bad("dtype_name", hdr(data_types={"indices_0": "int64", "indices_1": "int64", "values": "double"}))
    bad("dtype_mismatch", hdr(data_types={"indices_0": "int32", "indices_1": "int64", "values": "float64"}))
    bad("dtype_index_float", hdr(data_types={"indices_0": "float64", "indices_1": "int64", "values": "float64"}),
        indices_0=np.array([0.0, 1.0, 3.0]))
    bad("dtype_missing", hdr(data_types={"indices_0": "int64", "values": "float64"}))
    bad("format", hdr(format="BSR"))
    bad("version", hdr(version="1.0.0"))
    bad("length", indices_1=np.array([4, 0]))
    bad("member_missing", values=None)
    bad("negative_index", indices_0=np.array([0, -1, 3]))
    bad("bint8", hdr(data_types={"indices_0": "int64", "indices_1": "int64", "values": "bint8"}),
        values=np.array([0, 1, 2], dtype=np.uint8))
    bad("fill_nonzero", hdr(fill=True, data_types={"indices_0": "int64", "indices_1": "int64", "values": "float64",
                                                   "fill_value": "float64"}), fill_value=np.array([5.0]))
    csr = {"version": "0.1.0", "format": "CSR", "shape": [3, 5], "number_of_stored_values": 3,
           "data_types": {"pointers_to_1": "int64", "indices_1": "int64", "values": "float64"}}
    bad("pointers_decreasing", csr, indices_0=None, pointers_to_1=np.array([0, 2, 1, 3]))
    bad("pointers_end", csr, indices_0=None, pointers_to_1=np.array([0, 1, 2, 2]))
    bad("pointers_length", csr, indices_0=None, pointers_to_1=np.array([0, 1, 3]))
    cust = hdr(format="custom", custom={"level": {"level_desc": "sparse", "rank": 2, "level": {"level_desc": "element"}},
                                        "transpose": [0, 0]})
    bad("transpose", cust)
    deep = {"level_desc": "element"}
    for _ in range(100):
        deep = {"level_desc": "sparse", "rank": 1, "level": deep}
    bad("deep", hdr(format="custom", custom={"level": deep}))
    bad("rank_sum", hdr(format="custom", custom={"level": {"level_desc": "sparse", "rank": 3,
                                                           "level": {"level_desc": "element"}}}))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    good()
    hostile()
    print("wrote", len(os.listdir(OUT)), "files to", OUT, file=sys.stderr)
