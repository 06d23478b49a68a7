# SPDX-License-Identifier: Apache-2.0
"""Writes the Matrix Market test files of tests/io/data/fmm with fast_matrix_market from PyPI: coordinate
and array files of every field (real, integer, complex, pattern) and symmetry (general, symmetric,
skew-symmetric, hermitian), each beside NAME.expect.npy, the dense matrix fast_matrix_market reads back
from it (pattern: ones), for test_mtx_fmm.c; and malformed files that fast_matrix_market refuses to read
(the list of refusals is checked here, so a file it accepts is never kept as "malformed").

Run once by `make io-test-data` in the io-bench venv; the outputs are committed."""
import os
import sys

import numpy as np
import scipy.sparse as sp
import fast_matrix_market as fmm

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "fmm")


def dense_of(path, pattern=False):
    m = fmm.mmread(path)
    if sp.issparse(m):  # by assignment, not summation into zeros, so that a stored -0.0 keeps its sign
        m = m.tocoo()
        d = np.zeros(m.shape, dtype=m.dtype)
        d[m.row, m.col] = m.data
    else:
        d = np.asarray(m)
    if pattern:
        d = (d != 0).astype(np.float64)
    if d.dtype.kind in "iu":
        d = d.astype(np.int64)
    elif d.dtype.kind == "f":
        d = d.astype(np.float64)
    elif d.dtype.kind == "c":
        d = d.astype(np.complex128)
    return d


def write(name, a, **kw):
    path = os.path.join(OUT, name + ".mtx")
    fmm.mmwrite(path, a, **kw)
    np.save(os.path.join(OUT, name + ".expect.npy"), dense_of(path, kw.get("field") == "pattern"))


def good():
    g = sp.coo_matrix(([1.5, -2.25, 1e-300, 3e300, 0.1], ([0, 1, 3, 3, 2], [2, 0, 1, 3, 2])), shape=(4, 5))
    write("coo_real_general", g)
    write("coo_integer_general", sp.coo_matrix(([7, -9223372036854775807, 42], ([0, 2, 1], [1, 0, 2])), shape=(3, 3)),
          field="integer")
    write("coo_complex_general", sp.coo_matrix(([1 + 2j, -0.5j, 3], ([0, 1, 1], [0, 0, 2])), shape=(2, 3)))
    write("coo_pattern_general", g, field="pattern")
    s = sp.coo_matrix(([4.0, 1.25, -3.0, 2.0], ([0, 1, 2, 2], [0, 0, 1, 2])), shape=(3, 3))
    s = s + sp.triu(s.T, 1)
    write("coo_real_symmetric", s, symmetry="symmetric")
    write("coo_integer_symmetric", s.astype(np.int64), symmetry="symmetric")
    write("coo_pattern_symmetric", s, field="pattern", symmetry="symmetric")
    k = sp.coo_matrix(([2.5, -1.0, 4.0], ([1, 2, 2], [0, 0, 1])), shape=(3, 3))
    write("coo_real_skew", k - k.T, symmetry="skew-symmetric")
    write("coo_integer_skew", (k - k.T).astype(np.int64), symmetry="skew-symmetric")
    h = sp.coo_matrix(([2.0 + 0j, 1 - 2j, 5.0 + 0j, 3j], ([0, 1, 1, 2], [0, 0, 1, 1])), shape=(3, 3))
    write("coo_complex_hermitian", h + sp.triu(h.conj().T, 1), symmetry="hermitian")
    write("coo_complex_symmetric", h + sp.triu(h.T, 1), symmetry="symmetric")
    write("coo_empty", sp.coo_matrix((3, 4)))
    write("array_real_general", np.array([[1.0, 0.0, -2.5], [0.0, 3.75, 0.0]]))
    write("array_integer_general", np.array([[1, 0], [-5, 6], [0, 9]], dtype=np.int64))
    write("array_complex_general", np.array([[1 + 1j, 0], [2, -3j]]))
    sym = np.array([[1.0, 2.0, 0.0], [2.0, 5.0, -1.0], [0.0, -1.0, 7.0]])
    write("array_real_symmetric", sym, symmetry="symmetric")
    write("array_real_skew", np.array([[0.0, 2.0], [-2.0, 0.0]]), symmetry="skew-symmetric")
    write("array_complex_hermitian", np.array([[2, 1 - 1j], [1 + 1j, 3]]), symmetry="hermitian")


MALFORMED = {
    "bad_banner": "%%MatrixMarket matrix coordinat real general\n2 2 1\n1 1 1.0\n",
    "bad_field": "%%MatrixMarket matrix coordinate float general\n2 2 1\n1 1 1.0\n",
    "bad_symmetry": "%%MatrixMarket matrix coordinate real symmetrical\n2 2 1\n1 1 1.0\n",
    "bad_object": "%%MatrixMarket vector coordinate real general\n2 2 1\n1 1 1.0\n",
    "bad_size_line": "%%MatrixMarket matrix coordinate real general\n2 2\n1 1 1.0\n",
    "bad_size_negative": "%%MatrixMarket matrix coordinate real general\n-2 2 1\n1 1 1.0\n",
    "bad_too_many": "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n2 2 2.0\n",
    "bad_too_few": "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.0\n2 2 2.0\n",
    "bad_row_range": "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n",
    "bad_col_zero": "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 0 1.0\n",
    "bad_value": "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x1.0\n",
    "bad_integer_value": "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
    "bad_missing_value": "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n",
    "bad_complex_one_part": "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.0\n",
    "bad_array_too_few": "%%MatrixMarket matrix array real general\n2 2\n1.0\n2.0\n3.0\n",
    "bad_array_too_many": "%%MatrixMarket matrix array real general\n1 2\n1.0\n2.0\n3.0\n",
    "bad_no_banner": "2 2 1\n1 1 1.0\n",
}


def malformed():
    for name, text in MALFORMED.items():
        path = os.path.join(OUT, name + ".mtx")
        with open(path, "w") as f:
            f.write(text)
        try:
            fmm.mmread(path)
        except Exception:
            continue
        os.remove(path)
        print("gen_fmm: fast_matrix_market reads %s; not kept as malformed" % name, file=sys.stderr)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    good()
    malformed()
    print("wrote", len(os.listdir(OUT)), "files to", OUT, file=sys.stderr)
