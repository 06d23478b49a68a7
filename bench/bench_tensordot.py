# SPDX-License-Identifier: Apache-2.0
"""spt.tensordot / spt.einsum against numpy.tensordot on the dense form and pydata/sparse's
sparse.tensordot (when `import sparse` works, e.g. Debian's python3-sparse), on a random rank-3 tensor.

Workloads (float64, one process, the same arrays for every library, alternating repetitions, median of
REPS after one warm-up each; spt with spt.set_num_threads(THREADS)):

  mode1   tensordot(X, U, axes=([1], [0])), U dense [J, R]  -> [I, K, R]   (einsum "ijk,jr->ikr")
  modes12 tensordot(X, W, axes=([1, 2], [0, 1])), W dense [J, K, R] -> [I, R]  ("ijk,jkr->ir")
  einsum  einsum("ijk,jr->irk", X, U) (the same product, the result transposed)

X is [I, J, K] with NNZ entries at distinct uniform random cells, in random order (spt sorts by the kept
modes itself); numpy gets X as a dense array (its time excludes the densification), pydata/sparse a COO
built from the same coordinates. Each result is checked against numpy's (1e-9 relative) before timing.
Writes the table to stdout and to --out (a markdown file) with the load average before and after.

  PYTHONPATH=python SPT_LIB=build/libspt.so python3 bench/bench_tensordot.py [--nnz 1e7] [--shape 400 400 400]
      [--rank 16] [--reps 5] [--threads 2] [--out bench/results/tensordot.md]
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "python"))  # after $PYTHONPATH

import numpy as np  # noqa: E402

import spt  # noqa: E402

try:
    import sparse  # noqa: E402
except ImportError:  # pydata/sparse is optional
    sparse = None


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nnz", type=float, default=1e7)
    ap.add_argument("--shape", type=int, nargs=3, default=[400, 400, 400])
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-dense", action="store_true", help="skip numpy on the dense form")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    I, J, K = a.shape
    R, nnz = a.rank, int(a.nnz)
    rng = np.random.default_rng(7)
    vol = I * J * K
    flat = rng.choice(vol, size=nnz, replace=False) if nnz < vol // 4 else rng.permutation(vol)[:nnz]
    idx = np.stack(np.unravel_index(flat, (I, J, K)), axis=1).astype(np.int64)
    vals = rng.standard_normal(nnz)
    X = spt.SparseTensor(idx, vals, [I, J, K])
    U = rng.standard_normal((J, R))
    W = rng.standard_normal((J, K, R))
    spt.set_num_threads(a.threads)
    load0 = load()

    Xd = None if a.no_dense else np.zeros((I, J, K))
    if Xd is not None:
        Xd[idx[:, 0], idx[:, 1], idx[:, 2]] = vals
    Xs = sparse.COO(idx.T, vals, shape=(I, J, K)) if sparse is not None else None

    work = {
        "mode1": (lambda: spt.tensordot(X, U, axes=([1], [0])),
                  lambda: np.tensordot(Xd, U, axes=([1], [0])),
                  lambda: sparse.tensordot(Xs, U, axes=([1], [0]))),
        "modes12": (lambda: spt.tensordot(X, W, axes=([1, 2], [0, 1])),
                    lambda: np.tensordot(Xd, W, axes=([1, 2], [0, 1])),
                    lambda: sparse.tensordot(Xs, W, axes=([1, 2], [0, 1]))),
        "einsum": (lambda: spt.einsum("ijk,jr->irk", X, U),
                   lambda: np.einsum("ijk,jr->irk", Xd, U, optimize=True),
                   lambda: np.moveaxis(np.asarray(sparse.tensordot(Xs, U, axes=([1], [0]))), 2, 1)),
    }
    rows = []
    for name, (f_spt, f_np, f_pd) in work.items():
        ref = f_np() if Xd is not None else None
        got = f_spt()
        if ref is not None:
            assert np.allclose(got, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max()), name
        libs = [("spt", f_spt)]
        if Xd is not None:
            libs.append(("numpy (dense)", f_np))
        if Xs is not None:
            pd = np.asarray(f_pd())
            assert np.allclose(got, pd, rtol=1e-9, atol=1e-9 * np.abs(pd).max()), name
            libs.append(("pydata/sparse %s" % sparse.__version__, f_pd))
        times = {n: [] for n, _ in libs}
        for n, f in libs:  # warm-up
            f()
        for _ in range(a.reps):
            for n, f in libs:
                times[n].append(median_time(f, 1))
        med = {n: statistics.median(t) for n, t in times.items()}
        rows.append((name, med))
        print(name, " ".join("%s=%.4fs" % (n, t) for n, t in med.items()), flush=True)
    load1 = load()
    lines = ["# spt.tensordot / spt.einsum vs numpy.tensordot (dense form) and pydata/sparse",
             "",
             "X: [%d, %d, %d] float64, %d entries (density %.3g), R = %d; spt threads %d; median of %d; "
             "load average %s before, %s after." % (I, J, K, nnz, nnz / vol, R, a.threads, a.reps, load0, load1),
             "",
             "| workload | spt (s) | numpy dense (s) | pydata/sparse (s) | numpy / spt | pydata / spt |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, med in rows:
        s = med["spt"]
        nd = med.get("numpy (dense)")
        pdk = [k for k in med if k.startswith("pydata")]
        pd = med[pdk[0]] if pdk else None
        f = lambda x: "%.4f" % x if x is not None else "-"  # noqa: E731
        r = lambda x: "%.1fx" % (x / s) if x is not None else "-"  # noqa: E731
        lines.append("| %s | %s | %s | %s | %s | %s |" % (name, f(s), f(nd), f(pd), r(nd), r(pd)))
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
