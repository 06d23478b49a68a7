#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""One point of the cost curves (bench/curves.py runs each (op, peer, size) in its own process):

    curve_point.py PEER OP NNZ [REPS] [--threads T] [--budget-s S]

Builds the inputs (bench/gen.py, untimed), measures the process's RSS after the imports and the inputs
(the baseline, `rss_base`), resets the RSS high-water mark (/proc/self/clear_refs), then calls the op once
(the first call, `first`, its CPU seconds and minor page faults), more warm-up calls until they have taken
peers.WARM_S seconds (at most peers.WARM_MAX calls in all, `warmup_calls`; as bench_gen.h's and peers.py's
warm-up), and REPS more times (run order:
`times`, `cpu_times` (the process's, every thread), `minflt`; the median, the worst). After the calls VmHWM minus the baseline is the op's peak
memory (`peak_over_base`: its work memory and one output; each output is dropped before the next call,
the last one is kept for the check). Then a digest of the last output (entries, sum, a position-weighted
sum) lets the driver check that every peer computed what spt computed. Prints one JSON line.

PEER: spt_py, torch (COO), torch_csr (torch.sparse_csr: spmm and spgemm), scipy_nd (scipy.sparse's n-D
coo_array, 1.15 or newer; csr_array for spmm and spgemm), pydata, tf (tf.raw_ops; tf.sparse.transpose).
OP: reorder, reduce_axis1, reduce_all, concat1, add (3-D [1000]^3), spmm ([1e5,1e5] x [1e5,32]),
to_dense_n (a cube of ~8 n cells), spgemm ([n/4,n/4] x [n/4,n/4], 4 entries a row), transpose (3-D, perm
(2, 0, 1), sorted output).
"""
import gc
import json
import os
import resource
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import peers  # noqa: E402

DIMS = {"spmm": 2, "spgemm": 2}


def minflt():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def prepare(peer, op, n, threads):
    return peers.prepare(peer, op, DIMS.get(op, 3), n, threads)


def as_parts(out, shape=None):
    """The output as ("scalar", x), ("dense", array) or ("sparse", coords [ndim, k], values [k], shape)."""
    mod = type(out).__module__ or ""
    if isinstance(out, (float, int)) or (isinstance(out, np.ndarray) and out.ndim == 0) or isinstance(out, np.generic):
        return ("scalar", float(out))
    if isinstance(out, np.ndarray):
        return ("dense", np.asarray(out))
    if mod.startswith("sparse") and getattr(out, "ndim", None) == 0:  # pydata's sum of every entry
        return ("scalar", float(out.todense()))
    if mod.startswith("torch"):
        import torch

        if out.layout == torch.strided:
            return ("scalar", float(out)) if out.dim() == 0 else ("dense", out.numpy())
        if out.layout == torch.sparse_csr:
            crow = out.crow_indices().numpy()
            rows = np.repeat(np.arange(crow.size - 1, dtype=np.int64), np.diff(crow))
            return ("sparse", np.vstack([rows, out.col_indices().numpy()]), out.values().numpy(), tuple(out.shape))
        return ("sparse", out._indices().numpy(), out._values().numpy(), tuple(out.shape))
    if mod.startswith("scipy"):
        if hasattr(out, "format") and out.format != "coo":
            out = out.tocoo()
        if hasattr(out, "coords"):
            return ("sparse", np.vstack(out.coords), out.data, tuple(out.shape))
        return ("dense", np.asarray(out))
    if mod.startswith("sparse"):  # pydata/sparse
        if hasattr(out, "coords"):
            return ("sparse", out.coords, out.data, tuple(out.shape))
        return ("dense", np.asarray(out.todense()))
    if mod.startswith("spt"):
        return ("sparse", np.ascontiguousarray(out.indices.T), out.values, tuple(out.shape))
    if hasattr(out, "indices") and hasattr(out, "values") and hasattr(out, "dense_shape"):  # tf.sparse
        return ("sparse", out.indices.numpy().T, out.values.numpy(), tuple(int(x) for x in out.dense_shape.numpy()))
    if hasattr(out, "_fields"):  # a tf.raw_ops result
        f = {k: getattr(out, k) for k in out._fields}
        ix = next(v for k, v in f.items() if k.endswith("indices"))
        vals = next(v for k, v in f.items() if k.endswith("values"))
        sh = next((v for k, v in f.items() if k.endswith("shape")), None)  # SparseReorder returns none
        return ("sparse", ix.numpy().T, vals.numpy(), tuple(int(x) for x in sh.numpy()) if sh is not None else shape)
    if hasattr(out, "numpy"):
        a = out.numpy()
        return ("scalar", float(a)) if a.ndim == 0 else ("dense", a)
    return ("dense", np.asarray(out))


def digest(out, shape=None):
    """Entries, sum and a position-weighted sum (weight key % 1009 + 1 of the row-major position) of an
    output, whatever its form, in blocks (bounded temporaries). Dense outputs count their nonzero cells."""
    parts = as_parts(out, shape)
    if parts[0] == "scalar":
        return {"kind": "scalar", "sum": parts[1], "wsum": parts[1], "entries": 1, "bytes": 8}
    blk = 1 << 22
    s = ws = 0.0
    if parts[0] == "dense":
        a = np.ascontiguousarray(parts[1]).reshape(-1)
        nz = 0
        for i in range(0, a.size, blk):
            x = a[i:i + blk].astype(np.float64)
            w = (np.arange(i, i + x.size, dtype=np.int64) % 1009 + 1).astype(np.float64)
            s += float(x.sum())
            ws += float((x * w).sum())
            nz += int(np.count_nonzero(x))
        return {"kind": "dense", "sum": s, "wsum": ws, "entries": nz, "bytes": int(a.nbytes),
                "shape": list(parts[1].shape)}
    coords, vals, shape = parts[1], parts[2], parts[3]
    k = vals.size
    for i in range(0, k, blk):
        key = np.ravel_multi_index(tuple(np.asarray(coords[d, i:i + blk], dtype=np.int64) for d in range(len(shape))),
                                   shape)
        x = np.asarray(vals[i:i + blk], dtype=np.float64)
        s += float(x.sum())
        ws += float((x * ((key % 1009) + 1).astype(np.float64)).sum())
    return {"kind": "sparse", "sum": s, "wsum": ws, "entries": int(k), "bytes": int(k * (8 * len(shape) + 8)),
            "shape": list(shape)}


def main(argv):
    threads, budget = 1, 300.0
    for flag in ("--threads", "--budget-s"):
        if flag in argv:
            k = argv.index(flag)
            if flag == "--threads":
                threads = int(argv[k + 1])
            else:
                budget = float(argv[k + 1])
            del argv[k:k + 2]
    peer, op, n = argv[1], argv[2], int(float(argv[3]))
    reps = int(argv[4]) if len(argv) > 4 else 5
    rec = {"impl": peer, "op": op, "dims": DIMS.get(op, 3), "nnz": n, "threads": threads, "python": sys.executable}
    t_build = time.perf_counter()
    try:
        run, ib, setup = prepare(peer, op, n, threads)
    except Exception as ex:  # a peer that cannot take the workload is reported, not fatal
        run, ib = None, 0
        rec["error"] = repr(ex)[:300]
    rec["build_s"] = time.perf_counter() - t_build
    rec["version"] = peers.peer_version("scipy" if peer == "scipy_nd" else "torch" if peer == "torch_csr" else peer)
    if peer == "spt_py" and "spt" in sys.modules:
        rec["lib"] = sys.modules["spt"].lib_path
        rec["version"] = getattr(sys.modules["spt"], "__version__", None)
    rec["input_bytes"] = ib
    if run is None:
        rec["status"] = "unavailable"
        print(json.dumps(rec), flush=True)
        return
    gc.collect()
    base = peers.status_kb("VmRSS")
    peers.reset_hwm()
    times, cpus, flts, first, first_flt, first_cpu, out = [], [], [], None, None, None, None
    wcalls, warm = 0, 0.0
    gc.disable()
    t_all = time.perf_counter()
    try:
        while len(times) < reps:
            if setup is not None:
                setup()
            out = None
            f0, c0, t0 = minflt(), time.process_time(), time.perf_counter()
            out = run()
            t1, c1, f1 = time.perf_counter(), time.process_time(), minflt()
            if wcalls == 0:
                first, first_flt, first_cpu = t1 - t0, f1 - f0, c1 - c0
            if wcalls == 0 or (warm < peers.WARM_S and wcalls < peers.WARM_MAX and not times):
                # the warm-up, as bench_gen.h's and peers.py's: calls until WARM_S seconds (the first one
                # reported apart), at least one, at most WARM_MAX
                warm += t1 - t0
                wcalls += 1
                continue
            times.append(t1 - t0)
            cpus.append(c1 - c0)
            flts.append(f1 - f0)
            if time.perf_counter() - t_all > budget and len(times) >= 1:
                break  # the time budget of one point: fewer repetitions, said in "reps"
    except Exception as ex:
        rec.update(status="error", error=repr(ex)[:300])
        print(json.dumps(rec), flush=True)
        return
    hwm = peers.status_kb("VmHWM")
    gc.enable()
    srt = sorted(times)
    rec.update(status="ok", reps=len(times), first=first, first_minflt=first_flt, first_cpu=first_cpu, warmup_calls=wcalls,
               times=times,
               cpu_times=cpus, cpu_median=sorted(cpus)[len(cpus) // 2], minflt=flts,
               median=srt[len(srt) // 2], min=srt[0], max=srt[-1], rss_base=base * 1024,
               peak_over_base=(hwm - base) * 1024)
    try:
        rec["check"] = digest(out, tuple(gen.shape_for(op, DIMS.get(op, 3), n)))
    except Exception as ex:
        rec["check_error"] = repr(ex)[:300]
    rec["proc_maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main(sys.argv)
