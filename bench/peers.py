#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The spt benchmark workloads on the peers (torch, pydata/sparse, scipy: Debian's packages) and on spt's
own Python package (spt_py: python/spt, ctypes over build/libspt.so).

    peers.py PEER OP DIMS NNZ[,NNZ...] [REPS] [--threads T]

    peers.py tf density 2 0 [REPS] [--threads T]

PEER: torch | pydata | scipy | tf | tf_sparse | spt_py. The same file runs under Debian's python3 (torch
1.13, pydata/sparse 0.13, scipy) and under the bench venv's python (build/bench-venv: TensorFlow 2.x,
torch 2.x, pydata/sparse 0.19); each record names the interpreter and the peer's version. tf calls
TensorFlow's kernels through tf.raw_ops, tf_sparse through the tf.sparse API (CPU, T intra- and inter-op
threads). The density op is the timing table of tf.sparse.sparse_dense_matmul's documentation (dense
tf.matmul against SparseTensorDenseMatMul as A's density grows; bench_core density is spt's side).

OP as bench_core: reorder, reduce_axis1, reduce_all, concat1, add, spmm, to_dense (torch also concat1_sorted: cat + coalesce; spt_py also reorder_inplace, see below). The
inputs come from bench/gen.py, bit for bit the data bench_core.c builds. Building the peer objects is not
timed, except for reorder, where building the sorted object is the op. Warm-up calls until they have taken
WARM_S seconds (at least one, at most WARM_MAX: bench_gen.h's BG_WARM_S, the same for every implementation;
the first call's time is reported as `first`), then REPS timed runs
(time.perf_counter, gc off); a workload may have a per-run setup (untimed, before each run). Prints one
JSON object per size, as bench_core does (median/min/max seconds, peak RSS, the op's own peak over the
RSS before it; spt_py also the CPU seconds, cpu_median, as bench_core).

spt_py times the same call bench_core times, through the package's public function: the input tensors are
built from the NumPy arrays untimed (the sorted inputs reordered once untimed, as bench_core does, so they
are known valid and sorted); the timed call is spt.reduce_sum / concat / add / sparse_dense_matmul /
to_dense(validate_indices=False) with bench_core's arguments. reorder: the untimed per-run setup clones the
unsorted input (bench_core's clone); the timed call is spt.reorder(t), which returns a new sorted tensor
(TF semantics: the input is not modified; C spt_reordered writes the sorted entries straight into it, so
unlike bench_core's in-place sort it fills a fresh output). reorder_inplace: the per-run clone, then only the C spt_reorder on it through the package's ctypes binding
(spt._core._reorder; not public API), exactly bench_core's timed work. --threads T calls
spt.set_num_threads(T). The library is $SPT_LIB if set, else the repository's build/libspt.so (SPT_LIB is
set to it before the import, so no other copy can be picked up); the record names it ("lib").
SPT_BENCH_CHECKSUM=1 prints, for spt_py, the sums of the indices and values held by the spt tensors in
bench_core's format ("checksum input K: ..." on stderr) to compare with bench_core's.
"""
import gc
import json
import os
import resource
import sys
import time

import numpy as np

PERM = (2, 0, 1)  # transpose's permutation (3-D)
WARM_S, WARM_MAX = 0.2, 200  # the warm-up: bench_gen.h's BG_WARM_S and BG_WARM_MAX
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen  # noqa: E402


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def reset_hwm():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def prepare(peer, op, dims, n, threads):
    """Return (run, input_bytes, setup): run() performs the op once and returns its result; setup (None or
    a function) is called, untimed, before each run."""
    shape = gen.shape_for(op, dims, n)
    if op == "to_dense_n":  # the cost curves' to_dense, on a cube that grows with n (gen.shape_for)
        op = "to_dense"
    e = 8 * len(shape) + 8
    if peer in ("torch_csr", "scipy_nd") or op in ("spgemm", "transpose"):
        return prepare_more(peer, op, shape, n, threads, e)
    if peer == "torch":
        import torch

        torch.set_num_threads(threads)

        def coo(inp, canonical=True):
            c, v = (gen.canonical if canonical else gen.unsorted)(inp, shape, n)
            t = torch.sparse_coo_tensor(torch.from_numpy(c), torch.from_numpy(v), shape)
            return t.coalesce() if canonical else (torch.from_numpy(c), torch.from_numpy(v))

        if op == "reorder":
            ci, cv = coo(0, canonical=False)
            return (lambda: torch.sparse_coo_tensor(ci, cv, shape).coalesce()), n * e, None
        if op == "reduce_axis1":
            a = coo(0)
            return (lambda: torch.sparse.sum(a, dim=1).to_dense()), n * e, None
        if op == "reduce_all":
            a = coo(0)
            return (lambda: torch.sparse.sum(a)), n * e, None
        if op in ("concat1", "concat1_sorted"):
            a, b = coo(0), coo(1)
            if op == "concat1":
                return (lambda: torch.cat([a, b], 1)), 2 * n * e, None
            return (lambda: torch.cat([a, b], 1).coalesce()), 2 * n * e, None
        if op == "add":
            a, b = coo(0), coo(1)
            return (lambda: a + b), 2 * n * e, None
        if op == "spmm":
            a = coo(0)
            bd = torch.from_numpy(gen.dense_b(shape[1], n))
            return (lambda: torch.sparse.mm(a, bd)), n * e, None
        if op == "to_dense":
            a = coo(0)
            return (lambda: a.to_dense()), n * e, None
    elif peer == "pydata":
        import sparse

        def coo(inp):
            c, v = gen.canonical(inp, shape, n)
            return sparse.COO(c, v, shape=shape, has_duplicates=False, sorted=True)

        if op == "reorder":
            c, v = gen.unsorted(0, shape, n)
            return (lambda: sparse.COO(c, v, shape=shape, sorted=False, has_duplicates=True)), n * e, None
        if op == "reduce_axis1":
            a = coo(0)
            return (lambda: a.sum(axis=1).todense()), n * e, None
        if op == "reduce_all":
            a = coo(0)
            return (lambda: a.sum()), n * e, None
        if op == "concat1":
            a, b = coo(0), coo(1)
            return (lambda: sparse.concatenate([a, b], axis=1)), 2 * n * e, None
        if op == "add":
            a, b = coo(0), coo(1)
            return (lambda: a + b), 2 * n * e, None
        if op == "spmm":
            a = coo(0)
            bd = gen.dense_b(shape[1], n)
            return (lambda: a @ bd), n * e, None
        if op == "to_dense":
            a = coo(0)
            return (lambda: a.todense()), n * e, None
    elif peer == "scipy":
        import scipy.sparse as ss

        if len(shape) != 2:
            return None, 0, None

        def csr(inp):
            c, v = gen.canonical(inp, shape, n)
            return ss.coo_matrix((v, (c[0], c[1])), shape=shape).tocsr()

        if op == "reorder":
            c, v = gen.unsorted(0, shape, n)
            m = ss.coo_matrix((v, (c[0], c[1])), shape=shape)
            return (lambda: m.tocsr()), n * e, None
        if op == "reduce_axis1":
            a = csr(0)
            return (lambda: a.sum(axis=1)), n * e, None
        if op == "reduce_all":
            a = csr(0)
            return (lambda: a.sum()), n * e, None
        if op == "concat1":
            a, b = csr(0), csr(1)
            return (lambda: ss.hstack([a, b], format="csr")), 2 * n * e, None
        if op == "add":
            a, b = csr(0), csr(1)
            return (lambda: a + b), 2 * n * e, None
        if op == "spmm":
            a = csr(0)
            bd = gen.dense_b(shape[1], n)
            return (lambda: a @ bd), n * e, None
        if op == "to_dense":
            a = csr(0)
            return (lambda: a.toarray()), n * e, None
    elif peer in ("tf", "tf_sparse"):
        return prepare_tf(peer, op, shape, n, threads, e)
    elif peer == "spt_py":
        return prepare_spt_py(op, shape, n, threads, e)
    return None, 0, None


def prepare_more(peer, op, shape, n, threads, e):
    """torch_csr, scipy_nd, and the ops spgemm and transpose (bench/curve_point.py's cost curves and run.py)."""
    if peer == "torch_csr":
        import torch

        torch.set_num_threads(threads)

        def csr(inp):
            c, v = gen.canonical(inp, shape, n)
            return torch.sparse_coo_tensor(torch.from_numpy(c), torch.from_numpy(v), shape).coalesce().to_sparse_csr()

        if op == "spmm":
            a = csr(0)
            bd = torch.from_numpy(gen.dense_b(shape[1], n))
            return (lambda: a @ bd), n * e, None
        if op == "spgemm":
            a, b = csr(0), csr(1)
            return (lambda: a @ b), 2 * n * e, None
        return None, 0, None
    if peer == "scipy_nd":
        return prepare_scipy_nd(op, shape, n, e)
    if op == "spgemm":
        c0, v0 = gen.canonical(0, shape, n)
        c1, v1 = gen.canonical(1, shape, n)
        if peer == "spt_py":
            spt = load_spt()
            spt.set_num_threads(threads)
            a = spt.reorder(spt.SparseTensor(np.ascontiguousarray(c0.T), v0, shape))
            b = spt.reorder(spt.SparseTensor(np.ascontiguousarray(c1.T), v1, shape))
            del c0, v0, c1, v1
            return (lambda: spt.sparse_sparse_matmul(a, b)), 2 * n * e, None
        if peer == "torch":
            import torch

            torch.set_num_threads(threads)
            a = torch.sparse_coo_tensor(torch.from_numpy(c0), torch.from_numpy(v0), shape).coalesce()
            b = torch.sparse_coo_tensor(torch.from_numpy(c1), torch.from_numpy(v1), shape).coalesce()
            return (lambda: torch.sparse.mm(a, b)), 2 * n * e, None
        if peer == "pydata":
            import sparse

            a = sparse.COO(c0, v0, shape=shape, has_duplicates=False, sorted=True)
            b = sparse.COO(c1, v1, shape=shape, has_duplicates=False, sorted=True)
            return (lambda: a @ b), 2 * n * e, None
        return None, 0, None
    if op == "transpose":
        c, v = gen.canonical(0, shape, n)
        if peer == "spt_py":
            spt = load_spt()
            spt.set_num_threads(threads)
            a = spt.reorder(spt.SparseTensor(np.ascontiguousarray(c.T), v, shape))
            del c, v
            return (lambda: spt.transpose(a, list(PERM))), n * e, None
        if peer == "torch":
            import torch

            torch.set_num_threads(threads)
            a = torch.sparse_coo_tensor(torch.from_numpy(c), torch.from_numpy(v), shape).coalesce()
            return (lambda: a.permute(*PERM).coalesce()), n * e, None
        if peer == "tf":
            tf = load_tf(threads)
            a = tf.sparse.SparseTensor(tf.constant(np.ascontiguousarray(c.T)), tf.constant(v),
                                       tf.constant(shape, dtype=tf.int64))
            return (lambda: tf.sparse.transpose(a, list(PERM))), n * e, None
        return None, 0, None
    return None, 0, None


def prepare_scipy_nd(op, shape, n, e):
    """SciPy's sparse arrays: coo_array in n dimensions (scipy >= 1.15) for the 3-D ops, csr_array for the
    matrix products. Every call's output is in the sorted, duplicate-free form the op asks for."""
    import scipy.sparse as ss

    def coo(inp):
        c, v = gen.canonical(inp, shape, n)
        a = ss.coo_array((v, tuple(c)), shape=shape)
        a.has_canonical_format = True  # sorted row-major, no duplicates (gen.canonical)
        return a

    if op == "reorder":
        c, v = gen.unsorted(0, shape, n)

        def run():
            a = ss.coo_array((v, tuple(c)), shape=shape)
            a.sum_duplicates()  # sorts row-major and sums the duplicates
            return a

        return run, n * e, None
    if op == "reduce_axis1":
        a = coo(0)
        def rsum():
            r = a.sum(axis=1)
            return r.toarray() if hasattr(r, "toarray") else r

        return rsum, n * e, None
    if op == "reduce_all":
        a = coo(0)
        return (lambda: a.sum()), n * e, None
    if op == "add":
        a, b = coo(0), coo(1)

        def add():
            r = a + b  # n-D: the entries of both, duplicates not yet summed
            r.sum_duplicates()
            return r

        return add, 2 * n * e, None
    if op == "to_dense":
        a = coo(0)
        return (lambda: a.toarray()), n * e, None
    if op == "transpose":
        a = coo(0)

        def run():
            t = a.transpose(axes=PERM)
            t.sum_duplicates()  # the sorted order of the output
            return t

        return run, n * e, None
    if op in ("spmm", "spgemm"):
        c, v = gen.canonical(0, shape, n)
        a = ss.csr_array((v, (c[0], c[1])), shape=shape)
        if op == "spmm":
            bd = gen.dense_b(shape[1], n)
            return (lambda: a @ bd), n * e, None
        c, v = gen.canonical(1, shape, n)
        b = ss.csr_array((v, (c[0], c[1])), shape=shape)
        return (lambda: a @ b), 2 * n * e, None
    return None, 0, None


def load_tf(threads):
    """TensorFlow on the CPU with `threads` intra-op and inter-op threads (set before any op runs)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    return tf


def prepare_tf(peer, op, shape, n, threads, e):
    """TensorFlow 2.x: peer "tf" calls the kernels through tf.raw_ops (no Python wrapper work), "tf_sparse"
    through the public tf.sparse API on tf.sparse.SparseTensor objects (what a user writes). Eager, CPU."""
    tf = load_tf(threads)
    raw = tf.raw_ops
    sh = tf.constant(shape, dtype=tf.int64)

    def arrays(inp, canonical=True):
        c, v = (gen.canonical if canonical else gen.unsorted)(inp, shape, n)
        return tf.constant(np.ascontiguousarray(c.T)), tf.constant(v)

    def st(inp, canonical=True):
        i, v = arrays(inp, canonical)
        return tf.sparse.SparseTensor(i, v, sh)

    if op == "reorder":
        i, v = arrays(0, canonical=False)
        if peer == "tf":
            return (lambda: raw.SparseReorder(input_indices=i, input_values=v, input_shape=sh)), n * e, None
        return (lambda: tf.sparse.reorder(tf.sparse.SparseTensor(i, v, sh))), n * e, None
    if op in ("reduce_axis1", "reduce_all"):
        axes = [1] if op == "reduce_axis1" else list(range(len(shape)))
        if peer == "tf":
            i, v = arrays(0)
            ax = tf.constant(axes, dtype=tf.int32)
            return (lambda: raw.SparseReduceSum(input_indices=i, input_values=v, input_shape=sh, reduction_axes=ax,
                                                keep_dims=False)), n * e, None
        a = st(0)
        if op == "reduce_axis1":
            return (lambda: tf.sparse.reduce_sum(a, axis=1)), n * e, None
        return (lambda: tf.sparse.reduce_sum(a)), n * e, None
    if op == "concat1":
        if peer == "tf":
            (ia, va), (ib, vb) = arrays(0), arrays(1)
            return (lambda: raw.SparseConcat(indices=[ia, ib], values=[va, vb], shapes=[sh, sh], concat_dim=1)), \
                2 * n * e, None
        a, b = st(0), st(1)
        return (lambda: tf.sparse.concat(1, [a, b])), 2 * n * e, None
    if op == "add":
        if peer == "tf":
            (ia, va), (ib, vb) = arrays(0), arrays(1)
            th = tf.constant(0.0, dtype=tf.float64)
            return (lambda: raw.SparseAdd(a_indices=ia, a_values=va, a_shape=sh, b_indices=ib, b_values=vb,
                                          b_shape=sh, thresh=th)), 2 * n * e, None
        a, b = st(0), st(1)
        return (lambda: tf.sparse.add(a, b, threshold=0)), 2 * n * e, None
    if op == "spmm":
        bd = tf.constant(gen.dense_b(shape[1], n))
        if peer == "tf":
            i, v = arrays(0)
            return (lambda: raw.SparseTensorDenseMatMul(a_indices=i, a_values=v, a_shape=sh, b=bd)), n * e, None
        a = st(0)
        return (lambda: tf.sparse.sparse_dense_matmul(a, bd)), n * e, None
    if op == "to_dense":
        if peer == "tf":
            i, v = arrays(0)
            zero = tf.constant(0.0, dtype=tf.float64)
            return (lambda: raw.SparseToDense(sparse_indices=i, output_shape=sh, sparse_values=v, default_value=zero,
                                              validate_indices=False)), n * e, None
        a = st(0)
        return (lambda: tf.sparse.to_dense(a, validate_indices=False)), n * e, None
    return None, 0, None


DENSITIES, DENSITY_NS, DENSITY_MK = [0.01, 0.2, 0.5, 0.8], [1, 10, 25], [100, 1000]


def density_run(peer, threads, reps):
    """The timing table of tf.sparse.sparse_dense_matmul's documentation on TensorFlow: for each (density, n,
    m, k), dense = tf.matmul of A densified (untimed) with B, sparse = SparseTensorDenseMatMul (tf.raw_ops);
    per call, the median of `reps` samples, each a loop of calls lasting >= 2 ms (as bench_core density)."""
    if peer != "tf":
        print(json.dumps({"impl": peer, "op": "density", "status": "unavailable"}), flush=True)
        return
    tf = load_tf(threads)
    raw = tf.raw_ops

    def per_call(fn):
        def sample(calls):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            return (time.perf_counter() - t0) / calls
        fn()  # warm-up
        t1 = min(sample(1) for _ in range(3))
        calls = 1 if t1 >= 2e-3 else int(2e-3 / max(t1, 1e-8)) + 1
        ts = sorted(sample(calls) for _ in range(reps))
        return ts[len(ts) // 2], ts[0], ts[-1], calls

    for d in DENSITIES:
        for nc in DENSITY_NS:
            for m in DENSITY_MK:
                for k in DENSITY_MK:
                    ix, v = gen.density_a(m, k, d)
                    dense_a = np.zeros((m, k))
                    dense_a[ix[:, 0], ix[:, 1]] = v
                    ti, tv, tsh = tf.constant(ix), tf.constant(v), tf.constant([m, k], dtype=tf.int64)
                    tb, tda = tf.constant(gen.density_b(k, nc)), tf.constant(dense_a)
                    gc.disable()
                    sm, smin, smax, sc = per_call(lambda: raw.SparseTensorDenseMatMul(a_indices=ti, a_values=tv,
                                                                                      a_shape=tsh, b=tb))
                    dm, dmin, dmax, dc = per_call(lambda: tf.linalg.matmul(tda, tb))
                    gc.enable()
                    print(json.dumps({"impl": peer, "threads": threads, "op": "density", "density": d, "n": nc,
                                      "m": m, "k": k, "nnz": int(v.size), "status": "ok", "reps": reps,
                                      "sparse_median": sm, "sparse_min": smin, "sparse_max": smax, "sparse_calls": sc,
                                      "dense_median": dm, "dense_min": dmin, "dense_max": dmax, "dense_calls": dc,
                                      "version": tf.__version__}), flush=True)


def peer_version(peer):
    """The version of the peer's package in this interpreter (Debian's or the bench venv's)."""
    mod = {"torch": "torch", "torch_sorted": "torch", "pydata": "sparse", "scipy": "scipy", "tf": "tensorflow",
           "tf_sparse": "tensorflow"}.get(peer)
    m = sys.modules.get(mod) if mod else None
    return getattr(m, "__version__", None) if m else None


def load_spt():
    """The spt package of this repository (python/) over $SPT_LIB or the repository's build/libspt.so."""
    os.environ.setdefault("SPT_LIB", os.path.join(ROOT, "build", "libspt.so"))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import spt

    return spt


def checksum(spt_t, inp):
    """bench_core's SPT_BENCH_CHECKSUM line, from the indices and values the spt tensor holds."""
    if os.environ.get("SPT_BENCH_CHECKSUM"):
        v = spt_t.values
        sv = float(np.cumsum(v)[-1]) if v.size else 0.0  # sequential, as bench_core sums
        sys.stderr.write("checksum input %d: %d %.17g\n" % (inp, int(spt_t.indices.sum(dtype=np.int64)), sv))


def prepare_spt_py(op, shape, n, threads, e):
    spt = load_spt()
    spt.set_num_threads(threads)
    need = {"reduce_axis1": "reduce_sum", "reduce_all": "reduce_sum", "concat1": "concat", "add": "add",
            "spmm": "sparse_dense_matmul"}.get(op)
    if need and not spt.has_op(need):  # this libspt lacks the op (bench_core reports it unavailable too)
        return None, 0, None

    def tensor(inp, canonical=True):
        c, v = (gen.canonical if canonical else gen.unsorted)(inp, shape, n)
        t = spt.SparseTensor(np.ascontiguousarray(c.T), v, shape)  # N x R indices (a copy), values wrapped
        del c, v
        if canonical:
            t = spt.reorder(t)  # as bench_core: one pass records that it is valid and sorted
            if not (t.known_valid and t.known_sorted):
                raise RuntimeError("spt_py: the sorted input is not known valid and sorted after reorder")
        checksum(t, inp)
        return t

    if op in ("reorder", "reorder_inplace"):
        base = tensor(0, canonical=False)
        box = {}

        def setup():  # bench_core's untimed clone before each run
            box.pop("t", None)
            box["t"] = base.copy()

        if op == "reorder":
            return (lambda: spt.reorder(box["t"])), n * e, setup
        from spt import _core, _lib

        def inplace():
            _lib.check(_core._reorder(box["t"].h, None))
            return box["t"]

        return inplace, n * e, setup
    if op == "reduce_axis1":
        a = tensor(0)
        return (lambda: spt.reduce_sum(a, axis=1)), n * e, None
    if op == "reduce_all":
        a = tensor(0)
        return (lambda: spt.reduce_sum(a)), n * e, None
    if op == "concat1":
        a, b = tensor(0), tensor(1)
        return (lambda: spt.concat(1, [a, b])), 2 * n * e, None
    if op == "add":
        a, b = tensor(0), tensor(1)
        return (lambda: spt.add(a, b, 0.0)), 2 * n * e, None
    if op == "spmm":
        a = tensor(0)
        bd = np.ascontiguousarray(gen.dense_b(shape[1], n))
        return (lambda: spt.sparse_dense_matmul(a, bd)), n * e, None
    if op == "to_dense":
        a = tensor(0)
        return (lambda: spt.to_dense(a, validate_indices=False)), n * e, None
    return None, 0, None


def main(argv):
    threads = 1
    if "--threads" in argv:
        k = argv.index("--threads")
        threads = int(argv[k + 1])
        del argv[k:k + 2]
    peer, op, dims, sizes = argv[1], argv[2], int(argv[3]), argv[4]
    reps = int(argv[5]) if len(argv) > 5 else 5
    if op == "density":
        density_run(peer, threads, reps)
        return
    for tok in sizes.split(","):
        n = int(float(tok))
        rec = {"impl": peer, "threads": threads if peer in ("torch", "spt_py", "tf", "tf_sparse") else 1, "op": op,
               "dims": dims, "nnz": n}
        try:
            run, ib, setup = prepare(peer, op, dims, n, threads)
        except Exception as ex:  # a peer that cannot take the workload is reported, not fatal
            run, ib, setup = None, 0, None
            rec["error"] = repr(ex)[:200]
        if peer == "spt_py" and "spt" in sys.modules:
            rec["lib"] = sys.modules["spt"].lib_path
        rec["version"] = peer_version(peer)
        rec["python"] = sys.executable
        rec["input_bytes"] = ib
        if run is None:
            rec["status"] = "unavailable"
            print(json.dumps(rec), flush=True)
            continue
        times, cpu, extra = [], [], 0
        gc.collect()
        gc.disable()
        warm, wcalls, first = 0.0, 0, None
        try:
            k = 0
            while k < reps + 1:
                if setup is not None:
                    setup()
                reset_hwm()
                before = status_kb("VmRSS")
                c0 = time.process_time()
                t0 = time.perf_counter()
                out = run()
                t1 = time.perf_counter()
                c1 = time.process_time()
                extra = max(extra, status_kb("VmHWM") - before)
                del out
                if k > 0 or t1 - t0 > 60:  # a warm-up over 60 s: report the one run
                    times.append(t1 - t0)
                    cpu.append(c1 - c0)
                if k == 0 and t1 - t0 > 60:
                    break
                if k == 0:  # warm-up calls until WARM_S seconds, as bench_gen.h's BG_WARM_S
                    first = t1 - t0 if wcalls == 0 else first
                    warm += t1 - t0
                    wcalls += 1
                    if warm < WARM_S and wcalls < WARM_MAX:
                        continue
                k += 1
        except Exception as ex:
            rec["status"] = "error"
            rec["error"] = repr(ex)[:200]
            print(json.dumps(rec), flush=True)
            gc.enable()
            continue
        gc.enable()
        times.sort()
        rec.update(first=first, warmup_calls=wcalls)
        rec.update(status="ok", reps=len(times), median=times[len(times) // 2], min=times[0], max=times[-1],
                   peak_rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, op_peak_extra=extra * 1024)
        if peer == "spt_py":  # as bench_core: the process CPU seconds of the op (all threads)
            cpu.sort()
            rec["cpu_median"] = cpu[len(cpu) // 2]
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main(sys.argv)
