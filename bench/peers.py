#!/usr/bin/python3
"""The spt benchmark workloads on the peers: torch, pydata/sparse, scipy (Debian's packages).

    peers.py PEER OP DIMS NNZ[,NNZ...] [REPS] [--threads T]

PEER: torch | pydata | scipy. OP as bench_core: reorder, reduce_axis1, reduce_all, concat1, add, spmm,
to_dense (torch also concat1_sorted: cat + coalesce). The inputs come from bench/gen.py, bit for bit
the data bench_core.c builds. Building the peer objects is not timed, except for reorder, where
building the sorted object is the op. One warm-up, then REPS timed runs (time.perf_counter, gc off).
Prints one JSON object per size, as bench_core does (median/min/max seconds, peak RSS, the op's own
peak over the RSS before it).
"""
import gc
import json
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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
    """Return (run, input_bytes): run() performs the op once and returns its result."""
    shape = gen.shape_for(op, dims)
    e = 8 * len(shape) + 8
    if peer == "torch":
        import torch

        torch.set_num_threads(threads)

        def coo(inp, canonical=True):
            c, v = (gen.canonical if canonical else gen.unsorted)(inp, shape, n)
            t = torch.sparse_coo_tensor(torch.from_numpy(c), torch.from_numpy(v), shape)
            return t.coalesce() if canonical else (torch.from_numpy(c), torch.from_numpy(v))

        if op == "reorder":
            ci, cv = coo(0, canonical=False)
            return (lambda: torch.sparse_coo_tensor(ci, cv, shape).coalesce()), n * e
        if op == "reduce_axis1":
            a = coo(0)
            return (lambda: torch.sparse.sum(a, dim=1).to_dense()), n * e
        if op == "reduce_all":
            a = coo(0)
            return (lambda: torch.sparse.sum(a)), n * e
        if op in ("concat1", "concat1_sorted"):
            a, b = coo(0), coo(1)
            if op == "concat1":
                return (lambda: torch.cat([a, b], 1)), 2 * n * e
            return (lambda: torch.cat([a, b], 1).coalesce()), 2 * n * e
        if op == "add":
            a, b = coo(0), coo(1)
            return (lambda: a + b), 2 * n * e
        if op == "spmm":
            a = coo(0)
            bd = torch.from_numpy(gen.dense_b(shape[1], n))
            return (lambda: torch.sparse.mm(a, bd)), n * e
        if op == "to_dense":
            a = coo(0)
            return (lambda: a.to_dense()), n * e
    elif peer == "pydata":
        import sparse

        def coo(inp):
            c, v = gen.canonical(inp, shape, n)
            return sparse.COO(c, v, shape=shape, has_duplicates=False, sorted=True)

        if op == "reorder":
            c, v = gen.unsorted(0, shape, n)
            return (lambda: sparse.COO(c, v, shape=shape, sorted=False, has_duplicates=True)), n * e
        if op == "reduce_axis1":
            a = coo(0)
            return (lambda: a.sum(axis=1).todense()), n * e
        if op == "reduce_all":
            a = coo(0)
            return (lambda: a.sum()), n * e
        if op == "concat1":
            a, b = coo(0), coo(1)
            return (lambda: sparse.concatenate([a, b], axis=1)), 2 * n * e
        if op == "add":
            a, b = coo(0), coo(1)
            return (lambda: a + b), 2 * n * e
        if op == "spmm":
            a = coo(0)
            bd = gen.dense_b(shape[1], n)
            return (lambda: a @ bd), n * e
        if op == "to_dense":
            a = coo(0)
            return (lambda: a.todense()), n * e
    elif peer == "scipy":
        import scipy.sparse as ss

        if len(shape) != 2:
            return None, 0

        def csr(inp):
            c, v = gen.canonical(inp, shape, n)
            return ss.coo_matrix((v, (c[0], c[1])), shape=shape).tocsr()

        if op == "reorder":
            c, v = gen.unsorted(0, shape, n)
            m = ss.coo_matrix((v, (c[0], c[1])), shape=shape)
            return (lambda: m.tocsr()), n * e
        if op == "reduce_axis1":
            a = csr(0)
            return (lambda: a.sum(axis=1)), n * e
        if op == "reduce_all":
            a = csr(0)
            return (lambda: a.sum()), n * e
        if op == "concat1":
            a, b = csr(0), csr(1)
            return (lambda: ss.hstack([a, b], format="csr")), 2 * n * e
        if op == "add":
            a, b = csr(0), csr(1)
            return (lambda: a + b), 2 * n * e
        if op == "spmm":
            a = csr(0)
            bd = gen.dense_b(shape[1], n)
            return (lambda: a @ bd), n * e
        if op == "to_dense":
            a = csr(0)
            return (lambda: a.toarray()), n * e
    return None, 0


def main(argv):
    threads = 1
    if "--threads" in argv:
        k = argv.index("--threads")
        threads = int(argv[k + 1])
        del argv[k:k + 2]
    peer, op, dims, sizes = argv[1], argv[2], int(argv[3]), argv[4]
    reps = int(argv[5]) if len(argv) > 5 else 5
    for tok in sizes.split(","):
        n = int(float(tok))
        rec = {"impl": peer, "threads": threads if peer == "torch" else 1, "op": op, "dims": dims, "nnz": n}
        try:
            run, ib = prepare(peer, op, dims, n, threads)
        except Exception as ex:  # a peer that cannot take the workload is reported, not fatal
            run, ib = None, 0
            rec["error"] = repr(ex)[:200]
        rec["input_bytes"] = ib
        if run is None:
            rec["status"] = "unavailable"
            print(json.dumps(rec), flush=True)
            continue
        times, extra = [], 0
        gc.collect()
        gc.disable()
        try:
            for k in range(reps + 1):
                reset_hwm()
                before = status_kb("VmRSS")
                t0 = time.perf_counter()
                out = run()
                t1 = time.perf_counter()
                extra = max(extra, status_kb("VmHWM") - before)
                del out
                if k > 0:
                    times.append(t1 - t0)
                if k == 0 and t1 - t0 > 60:  # warm-up over 60 s: report the one run
                    times.append(t1 - t0)
                    break
        except Exception as ex:
            rec["status"] = "error"
            rec["error"] = repr(ex)[:200]
            print(json.dumps(rec), flush=True)
            gc.enable()
            continue
        gc.enable()
        times.sort()
        rec.update(status="ok", reps=len(times), median=times[len(times) // 2], min=times[0], max=times[-1],
                   peak_rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, op_peak_extra=extra * 1024)
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main(sys.argv)
