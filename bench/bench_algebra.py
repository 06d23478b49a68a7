#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_algebra.py -- spt's sparse algebra against the Python peers, alternating in one process.

The inputs are the fixed-seed ones of bench/bench_algebra.c, written by it as .npy coordinate arrays
(`build/bench_algebra --dump DIR --dump-only`; this script runs that when DIR lacks them). Every
repetition times each implementation once, in turn (spt, then the peers), so that a change in the
machine's load hits all of them alike; the median, min and max wall seconds and the median CPU seconds
of the process are printed, with /proc/loadavg before and after each workload. Run with
OMP_WAIT_POLICY=PASSIVE when a multi-threaded peer shares the process: otherwise its OpenMP workers
spin after each call and are charged to (and slow) whatever runs next.

Peers (each only where importable; the versions are printed):
  spgemm_rand / spgemm_aat  scipy.sparse CSR `A @ B` (its output rows are NOT sorted; `+sort` adds
                            `.sort_indices()`, which spt's sorted output corresponds to), torch
                            `torch.sparse.mm` on coalesced COO and `@` on CSR. A^T is formed inside the
                            timed call for every implementation (spt: adjoint_b).
  mttkrp                    the straightforward numpy formulation (gather the factor rows, multiply,
                            `np.add.at`; blocks of 10^6 entries to bound memory), numpy with the entries
                            grouped by output row (`np.add.reduceat`); pydata/sparse (`sparse.einsum`) on the
                            first 10^6 entries only (its memory), with spt and numpy on the same entries.
  bmm                       torch `torch.bmm` on a sparse COO batch and the dense operand expanded to
                            [64, 1000, 64].
Run (from the repository root, after `make` and building build/bench_algebra):
  PY=/path/to/python  $PY bench/bench_algebra.py [--reps 5] [--threads 1,2] [--peers scipy,torch,pydata] [workload ...]
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("SPT_LIB", os.path.join(ROOT, "build", "libspt.so"))
import spt  # noqa: E402

try:
    import scipy.sparse as ssp
except ImportError:
    ssp = None
try:
    import torch
except ImportError:
    torch = None
try:
    import sparse as pydata
except ImportError:
    pydata = None


def load(d, name, rank):
    ix = [np.load(os.path.join(d, "%s_i%d.npy" % (name, k))) for k in range(rank)]
    return ix, np.load(os.path.join(d, "%s_val.npy" % name)), tuple(int(s) for s in np.load(os.path.join(d, "%s_shape.npy" % name)))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def st_of(ix, v, shape):
    return spt.SparseTensor(np.ascontiguousarray(np.stack(ix, 1)), v, shape)


def timed(f):
    w0, c0 = time.perf_counter(), time.process_time()
    r = f()
    w1, c1 = time.perf_counter(), time.process_time()
    del r
    return w1 - w0, c1 - c0


def run(name, impls, reps, check=None):
    """impls: list of (label, threads, fn); each rep runs every impl once, in turn (after one warm-up)."""
    print("%s: load before %s" % (name, loadavg()), flush=True)
    kept = []
    for lab, th, f in impls:
        set_threads(th)
        try:
            timed(f)
            kept.append((lab, th, f))
        except (RuntimeError, NotImplementedError, TypeError, ValueError, MemoryError) as e:
            print("%-12s %-26s unavailable: %s" % (name, lab, str(e).splitlines()[0][:120]), flush=True)
    impls = kept
    res = {lab: ([], []) for lab, _, _ in impls}
    for _ in range(reps):
        for lab, th, f in impls:
            set_threads(th)
            time.sleep(0.2)  # let the previous implementation's idle worker threads stop spinning
            w, c = timed(f)
            res[lab][0].append(w)
            res[lab][1].append(c)
    for lab, _, _ in impls:
        w, c = sorted(res[lab][0]), sorted(res[lab][1])
        print("%-12s %-26s median %.4f s  (min %.4f, max %.4f)  cpu median %.4f s" %
              (name, lab, w[len(w) // 2], w[0], w[-1], c[len(c) // 2]), flush=True)
    print("%s: load after %s" % (name, loadavg()), flush=True)


def set_threads(th):
    spt.set_num_threads(th)
    if torch is not None:
        torch.set_num_threads(th)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workloads", nargs="*", default=["spgemm_rand", "spgemm_aat", "mttkrp", "mttkrp_1e6", "bmm"])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "bench-algebra-data"))
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench_algebra"))
    ap.add_argument("--peers", default="scipy,torch,pydata", help="which peers to time (default: all importable)")
    args = ap.parse_args()
    global ssp, torch, pydata
    peers = set(args.peers.split(","))
    ssp = ssp if "scipy" in peers else None
    torch = torch if "torch" in peers else None
    pydata = pydata if "pydata" in peers else None
    ths = [int(t) for t in args.threads.split(",")]
    if not os.path.exists(os.path.join(args.dir, "bmm_a_val.npy")):
        os.makedirs(args.dir, exist_ok=True)
        subprocess.check_call([args.bench, "--dump", args.dir, "--dump-only"])
    print("python %s, numpy %s, scipy %s, torch %s, pydata/sparse %s; spt %s" % (
        sys.version.split()[0], np.__version__, ssp and __import__("scipy").__version__,
        torch and torch.__version__, pydata and pydata.__version__, os.environ["SPT_LIB"]), flush=True)
    wl = set(args.workloads)

    if wl & {"spgemm_rand", "spgemm_aat"}:
        def csr(ix, v, shape):
            return ssp.csr_matrix((v, (ix[0], ix[1])), shape=shape)

        def tcoo(ix, v, shape):
            return torch.sparse_coo_tensor(torch.from_numpy(np.stack(ix)), torch.from_numpy(v), shape).coalesce()

        def same_as_scipy(ref, o):  # scipy's product, rows sorted, holds spt's entries (values to 1e-12)
            ref.sort_indices()
            rows = np.repeat(np.arange(ref.shape[0]), np.diff(ref.indptr))
            assert ref.nnz == o.indices.shape[0] and np.array_equal(rows, o.indices[:, 0]) and \
                np.array_equal(ref.indices, o.indices[:, 1]) and np.allclose(ref.data, o.values, rtol=1e-12, atol=0)

        def scipy_sorted(f):
            def g():
                c = f()
                c.sort_indices()
                return c
            return g

    if "spgemm_rand" in wl:
        a, b = load(args.dir, "spgemm_rand_a", 2), load(args.dir, "spgemm_rand_b", 2)
        sa, sb = st_of(*a), st_of(*b)
        impls = [("spt threads=%d" % t, t, lambda: spt.sparse_sparse_matmul(sa, sb)) for t in ths]
        if ssp is not None:
            ca, cb = csr(*a), csr(*b)
            impls += [("scipy (unsorted)", 1, lambda: ca @ cb), ("scipy+sort_indices", 1, scipy_sorted(lambda: ca @ cb))]
        if torch is not None:
            ta, tb = tcoo(*a), tcoo(*b)
            ra, rb = ta.to_sparse_csr(), tb.to_sparse_csr()
            for t in ths:
                impls += [("torch coo threads=%d" % t, t, lambda: torch.sparse.mm(ta, tb)),
                          ("torch csr threads=%d" % t, t, lambda: ra @ rb)]
        o = spt.sparse_sparse_matmul(sa, sb)
        print("spgemm_rand: output %d entries" % o.indices.shape[0])
        if ssp is not None:
            same_as_scipy(ca @ cb, o)
        del o
        run("spgemm_rand", impls, args.reps)

    if "spgemm_aat" in wl:
        p = load(args.dir, "spgemm_aat_a", 2)
        sp_ = st_of(*p)
        impls = [("spt threads=%d" % t, t, lambda: spt.sparse_sparse_matmul(sp_, sp_, adjoint_b=True)) for t in ths]
        if ssp is not None:
            cp = csr(*p)
            impls += [("scipy (unsorted)", 1, lambda: cp @ cp.T),
                      ("scipy+sort_indices", 1, scipy_sorted(lambda: cp @ cp.T))]
        if torch is not None:
            tp = tcoo(*p)
            rp = tp.to_sparse_csr()
            for t in ths:
                impls += [("torch coo threads=%d" % t, t, lambda: torch.sparse.mm(tp, tp.t())),
                          ("torch csr threads=%d" % t, t, lambda: rp @ rp.t().to_sparse_csr())]
        o = spt.sparse_sparse_matmul(sp_, sp_, adjoint_b=True)
        print("spgemm_aat: A %d entries, output %d entries" % (len(p[1]), o.indices.shape[0]))
        if ssp is not None:
            same_as_scipy(cp @ cp.T, o)
        del o
        run("spgemm_aat", impls, args.reps)

    if wl & {"mttkrp", "mttkrp_1e6"}:
        t = load(args.dir, "mttkrp_t", 3)
        (i, j, k), v, shape = t
        rng = np.random.default_rng(5)
        fb = rng.random((shape[1], 16))
        fc = rng.random((shape[2], 16))
        st_ = st_of(*t) if "mttkrp" in wl else None
        impls = [("spt threads=%d" % th, th, lambda: spt.mttkrp(st_, [None, fb, fc], 0)) for th in ths]

        def np_addat():
            out = np.zeros((shape[0], 16))
            for s in range(0, len(v), 1000000):
                e = slice(s, s + 1000000)
                np.add.at(out, i[e], v[e, None] * fb[j[e]] * fc[k[e]])
            return out

        order = np.argsort(i, kind="stable")
        io, jo, ko, vo = i[order], j[order], k[order], v[order]

        def np_reduceat():  # the entries grouped by output row beforehand (untimed); blocks as above
            out = np.zeros((shape[0], 16))
            for s in range(0, len(vo), 1000000):
                e = slice(s, s + 1000000)
                ib = io[e]
                starts = np.flatnonzero(np.r_[True, ib[1:] != ib[:-1]])
                out[ib[starts]] += np.add.reduceat(vo[e, None] * fb[jo[e]] * fc[ko[e]], starts, axis=0)
            return out

        if "mttkrp" in wl:
            ref = spt.mttkrp(st_, [None, fb, fc], 0)
            assert np.allclose(ref, np_reduceat(), rtol=1e-9)
            impls += [("numpy add.at", 1, np_addat), ("numpy sorted+reduceat", 1, np_reduceat)]
            run("mttkrp", impls, max(3, args.reps))
        if "mttkrp_1e6" in wl and pydata is not None and hasattr(pydata, "einsum"):
            # pydata's einsum holds ~2 KB per entry (2.3 GB peak RSS and 23 s at 10^6 entries here): it
            # runs on the first 10^6 entries only, spt and numpy beside it on the same entries
            m = 1000000
            sub = ([x[:m] for x in t[0]], v[:m], shape)
            ss = st_of(*sub)
            pt = pydata.COO(np.stack(sub[0]), sub[1], shape=shape)

            def np_addat_sub():
                out = np.zeros((shape[0], 16))
                np.add.at(out, sub[0][0], sub[1][:, None] * fb[sub[0][1]] * fc[sub[0][2]])
                return out

            assert np.allclose(spt.mttkrp(ss, [None, fb, fc], 0), pydata.einsum("ijk,jr,kr->ir", pt, fb, fc).todense(),
                               rtol=1e-9)
            run("mttkrp_1e6", [("spt threads=%d" % th, th, lambda: spt.mttkrp(ss, [None, fb, fc], 0)) for th in ths] +
                [("numpy add.at", 1, np_addat_sub), ("pydata sparse.einsum", 1,
                                                     lambda: pydata.einsum("ijk,jr,kr->ir", pt, fb, fc))], 3)

    if "bmm" in wl:
        t = load(args.dir, "bmm_a", 3)
        rng = np.random.default_rng(8)
        d = rng.random((1000, 64))
        st_ = st_of(*t)
        impls = [("spt threads=%d" % th, th, lambda: spt.bmm(st_, d)) for th in ths]
        if torch is not None:
            ta = torch.sparse_coo_tensor(torch.from_numpy(np.stack(t[0])), torch.from_numpy(t[1]), t[2]).coalesce()
            td = torch.from_numpy(d).expand(64, 1000, 64).contiguous()
            ref = spt.bmm(st_, d)
            assert np.allclose(ref, torch.bmm(ta, td).numpy(), rtol=1e-9)
            for th in ths:
                impls.append(("torch.bmm coo threads=%d" % th, th, lambda: torch.bmm(ta, td)))
        run("bmm", impls, args.reps)


if __name__ == "__main__":
    main()
