# SPDX-License-Identifier: Apache-2.0
"""spt.mpi against the serial package, run under mpirun (make test-mpi: np 1..4, then 8 and 16 with --small).

    mpirun -np 4 python3 tests/mpi_check.py [--small]

Every rank builds the same inputs (seeded), the distributed result is gathered and compared with the serial
package's result byte for byte (indices, values, shape, order, dtype; floats hold integer values, so every
sum is exact and the order of summation cannot show); MTTKRP of floats within 1e-12 relative. Hostile
arguments, arguments differing on one rank and a bad line in one rank's part of a file must raise the same
exception with the same message on every rank. Exit status 1 when a check failed (on any rank).
"""
import os
import shutil
import sys
import tempfile
import time

import numpy as np
from mpi4py import MPI

import spt
import spt.mpi as M

comm = MPI.COMM_WORLD
me, P = comm.rank, comm.size
SMALL = "--small" in sys.argv
checks = fails = 0


def check(cond, what):
    global checks, fails
    checks += 1
    if not cond:
        fails += 1
        print("[rank %d/%d] FAILED: %s" % (me, P, what), file=sys.stderr, flush=True)


def same(a, b):
    """Two SparseTensors hold the same bytes (None == None)."""
    if a is None or b is None:
        return a is None and b is None
    if a.dtype != b.dtype or not np.array_equal(a.dense_shape, b.dense_shape) or not np.array_equal(a.order, b.order):
        return False
    if not np.array_equal(a.indices, b.indices):
        return False
    if a.dtype.kind == "O":
        return list(a.values) == list(b.values)
    return np.asarray(a.values).tobytes() == np.asarray(b.values).tobytes()


def at_root(dt, want, what, root=0):
    g = dt.gather(root)
    if me == root:
        check(same(g, want), what)
    else:
        check(g is None, what + " (None off the root)")


def raises(fn, cls, text, what):
    """fn() raises cls with `text` in its message on every rank, the same message everywhere."""
    try:
        fn()
        got = None
    except Exception as e:  # noqa: BLE001 - the class is checked below
        got = e
    ok = isinstance(got, cls) and text in str(got)
    if not ok:
        print("[rank %d] %s: got %r" % (me, what, got), file=sys.stderr)
    check(ok, what)
    msgs = comm.allgather(str(got))
    check(all(m == msgs[0] for m in msgs), what + ": the same message on every rank")


def _last_exc(fn):
    """The exception fn() raises (None if none)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - returned to the caller
        return e
    return None


def rand_sparse(seed, shape, n, dtype=np.float64):
    rng = np.random.default_rng(seed)
    ix = np.stack([rng.integers(0, s, n) for s in shape], axis=1).astype(np.int64) if n else np.zeros((0, len(shape)),
                                                                                                    np.int64)
    vals = rng.integers(-9, 10, n).astype(dtype)
    return spt.SparseTensor(ix, vals, shape)


def piece(sp, p=None):
    """Rank p's share of sp's entries (uneven: rank q gets a share growing with q)."""
    p = me if p is None else p
    w = np.arange(1, P + 1)
    cut = np.concatenate([[0], np.cumsum(w)]) * sp.nnz // w.sum()
    lo, hi = int(cut[p]), int(cut[p + 1])
    return spt.SparseTensor(np.array(sp.indices[lo:hi]), np.array(sp.values[lo:hi]), sp.dense_shape)


# ---- inputs -----------------------------------------------------------------------------------------

scale = 1 if SMALL else 3
shape3 = [12 * scale, 9, 7]
A3 = rand_sparse(1, shape3, 120 * scale)
tmp = comm.bcast(tempfile.mkdtemp(prefix="spt-mpi-") if me == 0 else None, root=0)
tns = os.path.join(tmp, "a.tns")
if me == 0:
    spt.write(A3, tns)
comm.Barrier()

# ---- read, reorder, products, reduce, gather: identical to serial --------------------------------------

serial = spt.read(tns)
d = M.read(tns)
check(d.nnz == serial.nnz and list(d.shape) == list(serial.dense_shape) and d.dtype == serial.dtype, "read: metadata")
check(int(d.counts.sum()) == d.nnz and d.local.nnz == d.counts[me], "read: counts")
at_root(d, spt.reorder(serial), "read")
for order in ([2, 0, 1], [1, 2, 0], None):
    at_root(M.reorder(d, order), spt.reorder(serial, order), "reorder %s" % (order,))
loc = d.local
del d  # the local view keeps the distributed tensor's memory alive
check(loc.nnz >= 0 and np.asarray(loc.indices).shape == (loc.nnz, 3), "local outlives its DTensor")
d = M.from_local(piece(A3))
at_root(d, spt.reorder(A3), "from_local")
at_root(M.scatter(A3 if me == P - 1 else None, root=P - 1, order=[2, 1, 0]), spt.reorder(A3, [2, 1, 0]), "scatter")
inplace = M.from_local(piece(A3))
check(M.reorder_inplace(inplace, [1, 0, 2]) is inplace, "reorder_inplace returns its argument")
at_root(inplace, spt.reorder(A3, [1, 0, 2]), "reorder_inplace")

for axis, kd in (([1], False), ([0, 2], True), (None, False), ([], False)):
    s = M.reduce_sum(d, axis=axis, keepdims=kd, output_is_sparse=True)
    at_root(s, spt.reduce_sum(A3, axis=axis, keepdims=kd, output_is_sparse=True), "reduce_sum sparse %s" % (axis,))
    dense = M.reduce_sum(d, axis=axis, keepdims=kd)
    want = spt.reduce_sum(A3, axis=axis, keepdims=kd)
    check(dense.shape == want.shape and dense.tobytes() == want.tobytes(), "reduce_sum dense %s" % (axis,))
check(M.reduce_sum(d, axis=[1], root=0) is None or me == 0, "reduce_sum root")

B3 = rand_sparse(2, shape3, 90 * scale)
db = M.from_local(piece(B3), order=[2, 0, 1])
at_root(M.add(d, db), spt.add(A3, B3), "add")
at_root(M.add(d, db, threshold=3.0), spt.add(A3, B3, threshold=3.0), "add threshold")
at_root(M.concat(1, [d, db]), spt.concat(1, [A3, B3]), "concat")
at_root(M.concat(axis=-1, sp_inputs=[d, db, d]), spt.concat(-1, [A3, B3, A3]), "concat 3")

A2 = rand_sparse(3, [30 * scale, 20], 150 * scale)
B2 = rand_sparse(4, [20, 25], 120 * scale)
Bd = np.random.default_rng(5).integers(-5, 6, (20, 4)).astype(np.float64)
d2 = M.from_local(piece(A2))
got = M.sparse_dense_matmul(d2, Bd)
want = spt.sparse_dense_matmul(A2, Bd)
check(got.tobytes() == want.tobytes(), "sparse_dense_matmul")
got = M.sparse_dense_matmul(d2, Bd.T.copy(), adjoint_b=True, root=0)
check((got is None) if me else got.tobytes() == want.tobytes(), "sparse_dense_matmul adjoint_b root 0")
db2 = M.from_local(piece(B2), order=[1, 0])
for aa, ab in ((False, False), (True, False), (False, True), (True, True)):
    x = spt.reorder(A2, [1, 0]) if aa else A2
    xa = spt.SparseTensor(np.array(x.indices[:, ::-1]) if aa else np.array(x.indices), np.array(x.values),
                          [x.dense_shape[1], x.dense_shape[0]] if aa else x.dense_shape)
    y = spt.SparseTensor(np.array(B2.indices[:, ::-1]), np.array(B2.values), [25, 20]) if ab else B2
    dx, dy = M.from_local(piece(xa)), M.from_local(piece(y), order=[1, 0])
    gx, gy = dx.gather(), dy.gather()
    want = spt.sparse_sparse_matmul(gx, gy, adjoint_a=aa, adjoint_b=ab) if me == 0 else None
    at_root(M.sparse_sparse_matmul(dx, dy, adjoint_a=aa, adjoint_b=ab), want, "sparse_sparse_matmul %s %s" % (aa, ab))
Bb = rand_sparse(6, [12 * scale, 7, 5], 80 * scale)
gA, gB = d.gather(), M.from_local(piece(Bb)).gather()
want = spt.sparse_sparse_matmul(gA, gB) if me == 0 else None
at_root(M.sparse_sparse_matmul(d, M.from_local(piece(Bb))), want, "sparse_sparse_matmul batched")

rng = np.random.default_rng(7)
fac = [rng.integers(-3, 4, (s, 4)).astype(np.float64) for s in shape3]
for mode in range(3):
    got = M.mttkrp(d, fac, mode)
    want = spt.mttkrp(A3, fac, mode)
    check(got.shape == want.shape and np.allclose(got, want, rtol=1e-12, atol=0), "mttkrp mode %d" % mode)
    Ai = spt.SparseTensor(np.array(A3.indices), np.array(A3.values).astype(np.int64), shape3)
    fi = [f.astype(np.int64) for f in fac]
    fi[mode] = None
    got = M.mttkrp(M.from_local(piece(Ai)), fi, mode, root=P - 1)
    want = spt.mttkrp(Ai, fi, mode)
    check(got is None if me != P - 1 else got.tobytes() == want.tobytes(), "mttkrp int64 mode %d" % mode)
    # the factors in row blocks (rank q: rows [cut[q], cut[q+1]), the last rank none when P > 2): fetched
    # and replicated give the same bytes, and the serial result
    cuts = [[s * q // max(P - 1, 1) if P > 2 else s * q // P for q in range(P)] + [s] for s in shape3]
    blocks = [f[c[me]:c[me + 1]] for f, c in zip(fac, cuts)]
    begins = [c[me] for c in cuts]
    res = [M.mttkrp(d, blocks, mode, row_begin=begins, how=h) for h in ("fetch", "replicate", "auto")]
    check(all(r.tobytes() == res[0].tobytes() for r in res), "mttkrp rows mode %d: fetch == replicate == auto" % mode)
    want = spt.mttkrp(A3, fac, mode)
    check(np.allclose(res[0], want, rtol=1e-12, atol=0), "mttkrp rows mode %d" % mode)
    gi = M.mttkrp(M.from_local(piece(Ai)), [None if f is None else f[c[me]:c[me + 1]] for f, c in zip(fi, cuts)],
                  mode, root=0, row_begin=begins, how="fetch")
    check(gi is None if me != 0 else gi.tobytes() == spt.mttkrp(Ai, fi, mode).tobytes(), "mttkrp rows int64 mode %d" % mode)

# the tensor of tensors: blocks per rank, joined on the root
T2 = rand_sparse(8, [6, 5], 20)
pairs = {(0,): [(1,), (3,)], (2,): [(0,), (4,), (1,)], (5,): [(2,)]}
sm = spt.SparseMap(pairs, ind_rank=1, dep_rank=1)
blk = M.sparsify(M.from_local(piece(T2)), sm, {0: 0}, [6])
whole = M.tot_gather(blk, root=0)
if me == 0:
    want = spt.sparsify(T2, sm, {0: 0}, [6])
    check(len(whole) == len(want) and all(np.array_equal(whole[o], want[o]) for o, _ in want.items()), "sparsify")
else:
    check(whole is None, "sparsify: None off the root")

# write: byte-identical files
out_d, out_s = os.path.join(tmp, "d.tns"), os.path.join(tmp, "s.tns")
M.write(M.reorder(d, [2, 1, 0]), out_d)
if me == 0:
    spt.write(spt.reorder(A3, [2, 1, 0]), out_s)
    with open(out_d, "rb") as f1, open(out_s, "rb") as f2:
        check(f1.read() == f2.read(), "write: the same bytes as the serial writer")

# another communicator: the even and the odd ranks apart
sub = comm.Split(me % 2, me)
ds = M.from_local(piece(A3), comm=sub)
check(ds.comm is sub and ds.nnz == sum(piece(A3, p).nnz for p in range(P) if p % 2 == me % 2), "sub-communicator")
sub.Free()

# ---- hostile arguments: the same exception everywhere, never a hang -------------------------------------

raises(lambda: M.reorder(d, [0, 0, 1]), spt.InvalidArgumentError, "", "reorder: not a permutation")
raises(lambda: M.reorder(d, [1, 0]), spt.InvalidArgumentError, "order", "reorder: short order")
raises(lambda: M.reorder(d, [0, 1, 2] if me != P - 1 else [0, 1, 7]), spt.SptError,
       "rank %d" % (P - 1) if P > 1 else "", "reorder: a bad order on the last rank only")
raises(lambda: M.reorder(d, [0, 1, 2**70]), spt.OverflowError, "order", "reorder: order beyond int64")
for root in (P, -1, 2**31, 2**80):
    raises(lambda: M.gather(d, root), spt.SptError, "root", "gather root %d" % root)
raises(lambda: M.gather(d, "0"), spt.DtypeError, "root", "gather root '0'")
raises(lambda: M.gather(d, 1.5), spt.SptError, "root", "gather root 1.5")
raises(lambda: M.scatter(A3, root=P), spt.InvalidArgumentError, "root", "scatter root P")
raises(lambda: M.scatter("junk" if me == 0 else None, root=0), spt.DtypeError, "sp", "scatter junk on the root")
raises(lambda: M.from_local(piece(A3) if me != P - 1 else "junk"), spt.DtypeError, "sp",
       "from_local: junk on the last rank")
odd = rand_sparse(9, [12 * scale, 9, 8], 5)
raises(lambda: M.from_local(odd if me == P - 1 and P > 1 else piece(A3)),
       spt.InvalidArgumentError if P > 1 else type(None), "differs" if P > 1 else "", "from_local: one shape differs")
raises(lambda: M.add(d, 3), spt.DtypeError, "DTensor", "add: not a DTensor")
raises(lambda: M.add(d, d2), spt.InvalidArgumentError, "", "add: shapes differ")
raises(lambda: M.concat(5, [d, db]), spt.OutOfRangeError, "Concat dimension", "concat: axis")
raises(lambda: M.concat(0, []), spt.InvalidArgumentError, "empty", "concat: no inputs")
raises(lambda: M.reduce_sum(d, axis=[3]), spt.OutOfRangeError, "reduction", "reduce_sum: axis")
raises(lambda: M.sparse_dense_matmul(d2, np.ones((21, 3))), spt.InvalidArgumentError, "inner dimension",
       "sparse_dense_matmul: inner dims")
raises(lambda: M.sparse_dense_matmul(d2, np.ones((20, 3)) + (me == P - 1)), spt.InvalidArgumentError if P > 1 else
       type(None), "rank %d's differs from rank 0's: content checksum" % (P - 1) if P > 1 else "",
       "sparse_dense_matmul: b's values differ on one rank")
raises(lambda: M.sparse_dense_matmul(d2, np.ones((20, 3 if me != P - 1 else 4))),
       spt.InvalidArgumentError if P > 1 else type(None), "differs" if P > 1 else "",
       "sparse_dense_matmul: b differs on one rank")
raises(lambda: M.sparse_sparse_matmul(d2, d2), spt.InvalidArgumentError, "inner dimension",
       "sparse_sparse_matmul: inner dims")
raises(lambda: M.sparse_sparse_matmul(d2, M.from_local(piece(spt.SparseTensor(np.zeros((0, 2), np.int64),
                                                                                np.zeros(0, np.int32), [20, 3])))),
       spt.DtypeError, "", "sparse_sparse_matmul: dtypes")
raises(lambda: M.mttkrp(d, fac, 3), spt.OutOfRangeError, "mode", "mttkrp: mode")
for bad, cls in (([0, 0, 1], spt.InvalidArgumentError), ([0, 1], spt.InvalidArgumentError), ("x", spt.DtypeError),
                 ([0, 1, 7], spt.InvalidArgumentError)):
    try:
        M.reorder(d, order=bad)
        e = None
    except spt.SptError as x:
        e = x
    check(isinstance(e, cls) and str(e).startswith("spt.mpi.reorder: ") and e.message == str(e) and e.status,
          "reorder %r: the error names spt.mpi.reorder, got %r" % (bad, e))
raises(lambda: M.mttkrp(d, fac, "x"), spt.DtypeError, "mode", "mttkrp: mode 'x'")
raises(lambda: M.mttkrp(d, fac[:2], 0), spt.InvalidArgumentError, "factors", "mttkrp: two factors")
raises(lambda: M.mttkrp(d, fac, 0, row_begin=[0, 0, 0], how="all"), spt.InvalidArgumentError, "how",
       "mttkrp rows: how")
raises(lambda: M.mttkrp(d, fac, 0, row_begin=[0, 0, 0]), spt.InvalidArgumentError if P > 1 else type(None),
       "spt_dtensor_mttkrp_rows" if P > 1 else "", "mttkrp rows: every rank passes the whole factor")
raises(lambda: M.mttkrp(d, fac, 0, row_begin=[0, 0]), spt.InvalidArgumentError, "row_begin must have 3 entries",
       "mttkrp rows: row_begin")
check(str(_last_exc(lambda: M.mttkrp(d, fac, 0, row_begin=[0, 0]))).startswith("spt.mpi.mttkrp: "),
      "mttkrp rows: the error names spt.mpi.mttkrp")
raises(lambda: M.read(tns, format="mtx"), spt.InvalidArgumentError, "tns", "read: format")
raises(lambda: M.read(os.path.join(tmp, "missing.tns")), spt.IOError, "missing.tns", "read: no such file")
raises(lambda: M.read(tns + "\0x"), spt.InvalidArgumentError, "NUL", "read: NUL in the path")
raises(lambda: M.from_local(piece(A3), comm="world"), spt.DtypeError, "comm", "comm: not a communicator")
raises(lambda: M.DTensor(), TypeError, "from_local", "DTensor(): made by the constructors only")

# a bad line in the part of the file that the last rank parses
bad = os.path.join(tmp, "bad.tns")
if me == 0:
    lines = ["%d %d %d %d" % (i % 12 + 1, i % 9 + 1, i % 7 + 1, i) for i in range(400)]
    lines[395] = "3 2 x 1"
    with open(bad, "w") as f:
        f.write("\n".join(lines) + "\n")
comm.Barrier()
raises(lambda: M.read(bad), spt.ParseError, "bad.tns:396", "read: a bad line in the last rank's part")
# a file one rank cannot read (its path differs)
raises(lambda: M.read(tns if me != P - 1 else os.path.join(tmp, "gone.tns")), spt.IOError if P > 1 else spt.IOError,
       "gone.tns" if P > 1 else "gone.tns", "read: the last rank's file is missing")

# ---- per-call overhead of the binding (informative) ------------------------------------------------------

if not SMALL:
    tiny = M.from_local(piece(rand_sparse(10, [4, 4], 8)))
    comm.Barrier()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(200):
        M.reorder_inplace(tiny, [1, 0])
    t1, c1 = time.perf_counter(), time.process_time()
    if me == 0:
        print("spt.mpi.reorder_inplace of an 8-entry tensor at np %d: %.1f us per call (wall), %.1f us CPU"
              % (P, (t1 - t0) / 200 * 1e6, (c1 - c0) / 200 * 1e6))

comm.Barrier()
if me == 0:
    shutil.rmtree(tmp, ignore_errors=True)
tot = comm.allreduce(np.array([checks, fails]), op=MPI.SUM)
if me == 0:
    print("mpi_check.py at np=%d%s: %d checks, %d failed" % (P, " (small)" if SMALL else "", tot[0], tot[1]))
sys.exit(1 if tot[1] else 0)
