# SPDX-License-Identifier: Apache-2.0
"""bench/readers.py -- spt's file readers and writers against the fastest peers, on the same files, in the
same run, each measurement in its own process (best of REPS after a warm-up; wall and CPU seconds):

- .mtx read and write: spt vs fast_matrix_market (PyPI `fast-matrix-market`: mmread / mmwrite);
- .tns read: spt vs Apache Arrow's CSV reader (PyPI `pyarrow`: pyarrow.csv.read_csv, space delimiter,
  into columns);
- .npz read and write: spt vs pydata/sparse's load_npz / save_npz (PyPI `sparse`), the same tensor;
- gzip input: spt reading .tns.gz vs `zcat FILE > /dev/null` (the decompressor alone);
- `spt info` vs a plain read of the same file (`spt validate`).

Usage: python3 bench/readers.py [--venv DIR] [--nnz N] [--reps R] [--out PREFIX]
The peers come from the virtual environment DIR (default build/io-bench-venv: `python3 -m venv DIR &&
DIR/bin/pip install fast_matrix_market pyarrow sparse numpy scipy`); a missing peer is reported as
unavailable. Results: PREFIX.json and PREFIX.md (default bench/results/trial/readers). On a loaded
machine compare the CPU seconds and the ratios taken back to back, and state the load (it is printed)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import os, resource, sys, time
sys.path.insert(0, os.path.join(%(root)r, "python"))
os.environ.setdefault("SPT_LIB", os.path.join(%(root)r, "build", "libspt.so"))
def cpu():  # this process and its finished children (zcat, the spt command)
    r, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime
%(setup)s
best = None
for rep in range(%(reps)d + 1):
    w0, c0 = time.perf_counter(), cpu()
    %(stmt)s
    w, c = time.perf_counter() - w0, cpu() - c0
    if rep and (best is None or w < best[0]):
        best = (w, c)
print(best[0], best[1])
'''

CASES = {
    # name: (implementation, setup, statement); {f} is the file
    "mtx_read": [
        ("spt", "import spt", "spt.read_mtx({mtx!r})"),
        ("fast_matrix_market", "import fast_matrix_market as fmm", "fmm.mmread({mtx!r})"),
    ],
    "mtx_write": [
        ("spt", "import spt; t = spt.read_mtx({mtx!r})", "spt.write_mtx(t, {out}+'.mtx')"),
        ("fast_matrix_market", "import fast_matrix_market as fmm; m = fmm.mmread({mtx!r})",
         "fmm.mmwrite({out}+'.mtx', m)"),
    ],
    "tns_read": [
        ("spt", "import spt", "spt.read_tns({tns!r})"),
        ("pyarrow_csv", "import pyarrow.csv as pc, itertools; "
         "skip = sum(1 for _ in itertools.takewhile(lambda l: l.startswith('#'), open({tns!r}))); "
         "ro = pc.ReadOptions(column_names=['i','j','k','v'], skip_rows=skip); "
         "po = pc.ParseOptions(delimiter=' ')", "pc.read_csv({tns!r}, read_options=ro, parse_options=po)"),
    ],
    "npz_read": [
        ("spt", "import spt", "spt.read_npz({npz!r})"),
        ("pydata_sparse", "import sparse", "sparse.load_npz({npz!r})"),
    ],
    "npz_write": [
        ("spt", "import spt; t = spt.read_npz({npz!r})", "spt.write_npz(t, {out}+'.npz')"),
        ("pydata_sparse", "import sparse; s = sparse.load_npz({npz!r})", "sparse.save_npz({out}+'.npz', s)"),
    ],
    "gzip_read": [
        ("spt", "import spt", "spt.read_tns({tnsgz!r})"),
        ("zcat", "import subprocess", "subprocess.run(['sh', '-c', 'zcat ' + {tnsgz!r} + ' > /dev/null'], check=True)"),
    ],
    "info": [
        ("spt_info", "import subprocess", "subprocess.run([{spt!r}, 'info', {tns!r}], stdout=subprocess.DEVNULL, check=True)"),
        ("spt_read", "import subprocess", "subprocess.run([{spt!r}, 'validate', {tns!r}], stdout=subprocess.DEVNULL, check=True)"),
    ],
}

# the target of each case: spt's time over the peer's at most this
TARGETS = {"mtx_read": 1.0, "mtx_write": 1.0, "tns_read": 1.0, "npz_read": 0.5, "npz_write": 0.5, "gzip_read": None,
           "info": 1.5}


def run(py, setup, stmt, reps, files):
    src = CHILD % {"root": ROOT, "setup": setup.format(**files), "stmt": stmt.format(**files), "reps": reps}
    t0 = time.time()
    r = subprocess.run([py, "-c", src], capture_output=True, text=True)
    if r.returncode:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    w, c = map(float, r.stdout.split()[-2:])
    return {"wall": w, "cpu": c, "elapsed": time.time() - t0}


def make_files(py, nnz, d):
    files = {"tns": os.path.join(d, "t.tns"), "mtx": os.path.join(d, "m.mtx"), "npz": os.path.join(d, "t.npz"),
             "tnsgz": os.path.join(d, "t.tns.gz"), "out": repr(os.path.join(d, "out")),
             "spt": os.path.join(ROOT, "build", "spt")}
    gen = r'''
import os, sys
sys.path.insert(0, os.path.join(%(root)r, "python"))
os.environ.setdefault("SPT_LIB", os.path.join(%(root)r, "build", "libspt.so"))
import numpy as np, spt, subprocess
rng = np.random.default_rng(7)
n = %(nnz)d
ix = np.stack([rng.integers(0, 100000, n), rng.integers(0, 100000, n), rng.integers(0, 1000, n)], 1)
v = np.round(rng.standard_normal(n), 6)
t = spt.SparseTensor(ix, v, [100000, 100000, 1000])
spt.write_tns(t, %(tns)r)
spt.write_npz(t, %(npz)r)
m = spt.SparseTensor(ix[:, :2].copy(), v, [100000, 100000])
spt.write_mtx(m, %(mtx)r)
subprocess.run(["sh", "-c", "gzip -c %(tns)s > %(tnsgz)s"], check=True)
''' % dict(files, root=ROOT, nnz=nnz)
    subprocess.run([py, "-c", gen], check=True)
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv", default=os.path.join(ROOT, "build", "io-bench-venv"))
    ap.add_argument("--nnz", type=int, default=10 ** 7)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "trial", "readers"))
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated cases to run (default: all)")
    a = ap.parse_args()
    cases = {c: CASES[c] for c in a.cases.split(",") if c}
    py = os.path.join(a.venv, "bin", "python")
    if not os.path.exists(py):
        print("readers: no %s; the peers are unavailable, spt runs with %s" % (py, sys.executable))
        py = sys.executable
    res = {"nnz": a.nnz, "reps": a.reps, "threads": os.cpu_count(), "load_before": os.getloadavg(), "cases": {}}
    with tempfile.TemporaryDirectory(prefix="spt_readers_") as d:
        files = make_files(py, a.nnz, d)
        res["bytes"] = {k: os.path.getsize(files[k]) for k in ("tns", "mtx", "npz", "tnsgz")}
        for case, impls in cases.items():
            row = {"load": os.getloadavg()[0]}
            for name, setup, stmt in impls:
                row[name] = run(py, setup, stmt, a.reps, files)
            res["cases"][case] = row
            print(case, json.dumps(row))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as f:
        json.dump(res, f, indent=1)
    lines = ["# spt readers vs peers (nnz %d, %d cores, load before %.1f)" % (a.nnz, res["threads"], res["load_before"][0]),
             "", "| case | spt wall s | spt CPU s | peer | peer wall s | peer CPU s | spt/peer wall | spt/peer CPU | target | load |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for case, row in res["cases"].items():
        names = [n for n, _, _ in CASES[case]]
        s, p = row[names[0]], row[names[1]]
        ratio = s["wall"] / p["wall"] if "wall" in s and "wall" in p else float("nan")
        cratio = s["cpu"] / p["cpu"] if "cpu" in s and p.get("cpu") else float("nan")
        tgt = TARGETS[case]
        lines.append("| %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s | %.1f |" % (
            case, "%.3f" % s["wall"] if "wall" in s else s.get("error"), "%.3f" % s["cpu"] if "cpu" in s else "-",
            names[1], "%.3f" % p["wall"] if "wall" in p else p.get("error"), "%.3f" % p["cpu"] if "cpu" in p else "-",
            ratio, cratio, "<= %.2f" % tgt if tgt else "report", row["load"]))
    lines.append("")
    lines.append("CPU seconds include the child processes (zcat, the spt command). Ratios are of wall times taken "
                 "back to back; on a loaded machine the CPU columns are the steadier figure.")
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
