#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the parser seeds (fuzz/corpus/{tns,mtx,npy,npz}/seed-*). Byte 0 of each seed is the
allocation-failure mode of fz_begin, byte 1 the harness's option bits (see the harness)."""
import io, os, random
import numpy as np
import scipy.sparse as ss
try:
    import sparse
except ImportError:
    sparse = None

C = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

def put(h, name, b):
    os.makedirs(os.path.join(C, h), exist_ok=True)
    with open(os.path.join(C, h, name), "wb") as f:
        f.write(b)

tns = {
    "basic": b"1 1 1.5\n2 3 -2\n3 1 7\n",
    "ints": b"1 2 3 4\n2 2 2 7\n1 1 1 -9\n",
    "header": b"# dtype: int32\n# shape: 3 4\n1 1 5\n3 4 -1\n",
    "complex": b"# dtype: complex128\n# shape: 2 2\n1 1 1.5 -2\n2 2 0 1e300\n",
    "comments": b"# a comment\n\n  # another\n1 1\t2.5e-3\r\n2 2 nan\n3 3 -inf\n",
    "empty": b"# dtype: float64\n# shape: 0 5\n",
    "scalar": b"# dtype: float64\n# shape:\n 4.5\n",
    "big": b"9223372036854775807 1 1\n",
    "bad": b"1 x 2\n0 1 1\n",
    "bool": b"# dtype: bool\n# shape: 2\n1 1\n2 0\n",
}
for k, v in tns.items():
    put("tns", "seed-" + k, bytes([0, 0x30]) + v)
    put("tns", "seed-%s-opts" % k, bytes([0, 0x33, 9, 2, 3, 4, 0, 0, 0, 0, 0, 0]) + v)
    put("tns", "seed-%s-fail" % k, bytes([7, 0x30]) + v)

mtx = {
    "real": b"%%MatrixMarket matrix coordinate real general\n% c\n3 4 3\n1 1 1.5\n2 3 -2\n3 4 1e10\n",
    "int-sym": b"%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 5\n2 1 7\n3 2 -1\n",
    "cplx-herm": b"%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 1.5 -2\n",
    "pattern-skew": b"%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 2\n2 1\n3 1\n",
    "array": b"%%MatrixMarket matrix array real general\n2 3\n1\n2\n0\n4\n5\n0\n",
    "array-sym": b"%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
    "empty": b"%%MatrixMarket matrix coordinate real general\n5 5 0\n",
    "huge-claim": b"%%MatrixMarket matrix array real general\n100000000 100000000\n1\n",
    "count-claim": b"%%MatrixMarket matrix coordinate real general\n3 3 1000000000000\n1 1 1\n",
}
for k, v in mtx.items():
    put("mtx", "seed-" + k, bytes([0, 0x30]) + v)
    put("mtx", "seed-%s-dense" % k, bytes([0, 0x02]) + v)
    put("mtx", "seed-%s-fail" % k, bytes([11, 0x30]) + v)

def npy(a, version=None):
    b = io.BytesIO()
    np.lib.format.write_array(b, a, version=version)
    return b.getvalue()

arrs = {
    "f8": np.array([[1.5, 0], [0, -2]]),
    "i4": np.arange(6, dtype=np.int32).reshape(2, 3),
    "fortran": np.asfortranarray(np.arange(12, dtype=np.int16).reshape(3, 4)),
    "be": np.array([1, 2, 3], dtype=">i8"),
    "c16": np.array([1 + 2j, 0, -1j]),
    "c8be": np.array([1 + 2j, 3], dtype=">c8"),
    "bool": np.array([True, False, True]),
    "S": np.array([b"ab", b"", b"xyz\0"]),
    "scalar": np.array(3.5),
    "empty": np.zeros((0, 4)),
    "u8": np.array([2**64 - 1, 0], dtype=np.uint64),
    "f4-3d": np.ones((2, 2, 2), dtype=np.float32),
}
for k, a in arrs.items():
    put("npy", "seed-" + k, bytes([0, 3]) + npy(a))
put("npy", "seed-v2", bytes([0, 3]) + npy(np.arange(3.0), version=(2, 0)))
put("npy", "seed-v3", bytes([0, 3]) + npy(np.arange(3.0), version=(3, 0)))
put("npy", "seed-fail", bytes([15, 3]) + npy(np.arange(4.0).reshape(2, 2)))

def savez_scipy(m, compressed=True):
    b = io.BytesIO()
    ss.save_npz(b, m, compressed=compressed)
    return b.getvalue()

m = ss.coo_matrix(([1.5, 2, -3], ([0, 1, 2], [2, 0, 1])), shape=(3, 4))
put("npz", "seed-raw-scipy-coo", bytes([0, 0x31]) + savez_scipy(m))
put("npz", "seed-raw-scipy-csr", bytes([0, 0x31]) + savez_scipy(m.tocsr()))
put("npz", "seed-raw-scipy-csc", bytes([0, 0x31]) + savez_scipy(m.tocsc()))
put("npz", "seed-raw-scipy-csr-stored", bytes([0, 0x31]) + savez_scipy(m.tocsr(), False))
if sparse is not None:
    s = sparse.COO(np.array([[0, 1, 1], [2, 0, 3], [1, 1, 0]]), np.array([1.0, 2, 3]), shape=(2, 4, 2))
    b = io.BytesIO()
    sparse.save_npz(b, s)
    put("npz", "seed-raw-pydata", bytes([0, 0x31]) + b.getvalue())
rnd = random.Random("spt-npz")
for i in range(16):
    body = bytes([rnd.choice([0, 2, 0x30, 0x32]), rnd.choice([3, 4, 5])])
    for j in range(4):
        body += bytes([j % 4 if i % 2 else 4 + j % 4, 0, rnd.randrange(256), rnd.randrange(3)])
        body += bytes(rnd.randrange(16) for _ in range(24))
    put("npz", "seed-struct-%d" % i, bytes([0]) + body)

# binsparse: the package's files of tests/io/data/binsparse (valid and hostile) as whole files, and
# structured inputs (a descriptor and arrays decoded by fuzz_binsparse.c), stored and deflated
B = os.path.join(os.path.dirname(C), "..", "tests", "io", "data", "binsparse")
for fn in sorted(os.listdir(B)):
    if fn.endswith(".bsp.npz"):
        with open(os.path.join(B, fn), "rb") as f:
            put("binsparse", "seed-raw-" + fn[:-8], bytes([0, 0x31]) + f.read())
rnd = random.Random("spt-binsparse")
for i in range(24):
    # mode (structured, round trip, stored or not), then: descriptor byte (>= 40: built), format, rank,
    # dims, count, fill, structure, the seven data types, the arrays
    body = bytes([rnd.choice([0x30, 0x32]), 200, i % 13, rnd.choice([1, 2, 2, 3])])
    body += bytes(rnd.randrange(8) for _ in range(3)) + bytes([rnd.randrange(6), 0, 0])
    body += bytes(rnd.choice([0, 0, 9, 170]) for _ in range(7))
    body += bytes([rnd.randrange(8)])
    for j in range(8):
        body += bytes([j % 8, 0, 0, rnd.randrange(6)]) + bytes(rnd.randrange(5) for _ in range(10))
    put("binsparse", "seed-struct-%d" % i, bytes([0]) + body)
