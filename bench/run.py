#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""make bench: spt through the C program (bench_core, 1 thread and all cores), spt through its Python
package (peers.py spt_py), the machine's floors (bench_core radixfloor / gatherfloor / copyfloor, the memcpy
bandwidth bound) and the peers, alternating per workload, each in its own process, on identical inputs:
Debian's torch, pydata/sparse and scipy (/usr/bin/python3), TensorFlow 2.x (tf.raw_ops and tf.sparse),
torch 2.x and pydata/sparse 0.19 from PyPI (the bench venv, --venv), SuiteSparse:GraphBLAS (bench_graphblas).
Peers that are not installed are reported as unavailable, and the table says which ran. Also the density
table of tf.sparse.sparse_dense_matmul's documentation for TensorFlow and spt (op "density").
Writes bench/results/latest.json, latest.md (per op: median, the fastest peer, spt's ratio to it and to its
floor, the worst repetition; the peers' table; the targets against the peers and floors, and against Debian's peers; the density table) and
latest.png (the chart).

    run.py [--quick] [--nnz N[,N...]] [--reps N] [--bench-core PATH] [--out DIR] [--only OP[,OP]]
           [--spt-py all|both|none] [--bw-bytes BYTES] [--venv DIR] [--no-pypi]

--nnz replaces every workload's sizes (e.g. --nnz 1e5 for a light check run); the targets are then read
at the largest of them. --only takes op names, "density" among them.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"

# (op, dims, sizes, peers). Sizes are nnz per input. N-D peers run the 3-D form; scipy and GraphBLAS
# (2-D only) the 2-D form; TensorFlow's kernels (tf) both.
FULL = [1e5, 1e6, 1e7]
ND_PEERS = ["torch", "pydata", "torch_pypi", "pydata_pypi", "scipy_nd", "tf", "tf_sparse"]
WORKLOADS = [
    ("reorder", 3, FULL, ND_PEERS),
    ("reorder", 2, FULL, ["scipy", "graphblas", "tf"]),
    ("reduce_axis1", 3, FULL, ND_PEERS),
    ("reduce_axis1", 2, FULL, ["scipy", "graphblas", "tf"]),
    ("reduce_all", 3, FULL, ND_PEERS),
    ("reduce_all", 2, FULL, ["scipy", "graphblas", "tf"]),
    ("concat1", 3, FULL, ["torch", "torch_sorted", "pydata", "torch_pypi", "pydata_pypi", "tf", "tf_sparse"]),
    ("concat1", 2, FULL, ["scipy", "graphblas", "tf"]),
    ("add", 3, FULL, ND_PEERS),
    ("add", 2, FULL, ["scipy", "graphblas", "tf"]),
    ("spmm", 2, FULL, ["torch", "pydata", "scipy", "graphblas", "graphblas_acc", "torch_pypi", "torch_csr",
                       "pydata_pypi", "scipy_nd", "tf", "tf_sparse"]),
    # SpGEMM of two [n/4, n/4] matrices of n entries (gen.shape_for): spt through its Python package only
    ("spgemm", 2, FULL, ["torch_pypi", "torch_csr", "scipy_nd", "pydata_pypi"]),
    ("to_dense", 3, [1e5, 1e6], ND_PEERS),
    ("to_dense", 2, [1e5, 1e6], ["scipy", "graphblas", "tf"]),
    # MTTKRP of a [1e4]^3 tensor with rank-16 factors, mode 0 and a CP-ALS sweep (every mode); spt's C
    # program only (SPLATT, the reference, is not packaged: results/NOTES.md has its figures)
    ("mttkrp", 3, [1e6, 1e7], []),
    ("mttkrp_all", 3, [1e6, 1e7], []),
]
# The floor each op is read against: bench_core's floors, or the bandwidth bound.
FLOOR_OF = {"reorder": "radixfloor", "spmm": "gatherfloor", "add": "copyfloor", "concat1": "copyfloor",
            "reduce_axis1": "bound", "reduce_all": "bound", "to_dense": "bound", "mttkrp": "mttkrpfloor"}
C_ONLY = {"mttkrp", "mttkrp_all"}  # no spt_py form in peers.py
PY_ONLY = {"spgemm"}  # no bench_core form: spt's figure is spt_py's
PYPI_PEERS = {"torch_pypi", "pydata_pypi", "torch_csr", "scipy_nd", "tf", "tf_sparse"}
# Peers that are not the op TF semantics ask for: listed, but not counted as "the fastest peer".
NOT_COUNTED = {"torch": {"concat1"}, "torch_pypi": {"concat1"}}  # torch.cat's output is not sorted
PEER_LABEL = {
    "torch": "torch (Debian)", "torch_sorted": "torch cat+coalesce (Debian)", "pydata": "pydata (Debian)",
    "scipy": "scipy", "graphblas": "GraphBLAS", "graphblas_acc": "GraphBLAS C+=A*B", "torch_pypi": "torch (PyPI)",
    "pydata_pypi": "pydata (PyPI)", "torch_csr": "torch CSR (PyPI, MKL)", "scipy_nd": "scipy (PyPI, n-D)",
    "tf": "TF raw_ops", "tf_sparse": "TF tf.sparse",
}

TITLES = {
    "reorder": "reorder (unsorted, ~0.5% dups)",
    "reduce_axis1": "reduce_sum axis 1",
    "reduce_all": "reduce_sum all axes",
    "concat1": "concat axis 1 (sorted out)",
    "add": "add",
    "spmm": "spmm [1e5,1e5] x [1e5,32]",
    "mttkrp": "mttkrp mode 0 [1e4]^3 R16",
    "mttkrp_all": "mttkrp every mode [1e4]^3 R16",
    "to_dense": "to_dense",
    "spgemm": "spgemm [n/4,n/4]^2, 4 a row",
}


def peer_env():
    env = dict(os.environ)
    # see /work/.library/env/README.md: these slow a current numpy down; unset for benchmarking only
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    return env


def run_records(cmd, timeout, env=None):
    """Run one benchmark child; returns (its JSON records, exit code, stderr, wall seconds). A child that
    overruns timeout is killed: exit code -9, its records so far kept."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as ex:
        out = ex.stdout.decode() if isinstance(ex.stdout, bytes) else (ex.stdout or "")
        err, rc = "timeout after %ds" % timeout, -9
    recs = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                recs.append(json.loads(line))
            except ValueError:
                pass
    return recs, rc, err, time.time() - t0


def run_child(cmd, timeout, env=None):
    recs, rc, err, wall = run_records(cmd, timeout, env)
    if rc != 0:
        sys.stderr.write("bench: %s exited %s: %s\n" % (" ".join(cmd), rc, err.strip()[-500:]))
    sys.stderr.write("bench: %-70s %6.1fs\n" % (" ".join(os.path.basename(c) for c in cmd[:6]), wall))
    return recs


def ensure_shared_lib():
    """spt_py loads build/libspt.so, bench_core links build/libspt.a (`make bench` builds only the latter):
    relink the .so from the same objects when it is missing or older than the .a. Returns (path, fresh)."""
    so, ar = os.path.join(ROOT, "build", "libspt.so"), os.path.join(ROOT, "build", "libspt.a")

    def fresh():
        return os.path.exists(so) and (not os.path.exists(ar) or os.path.getmtime(so) >= os.path.getmtime(ar))

    if not fresh():
        sys.stderr.write("bench: build/libspt.so is missing or older than build/libspt.a: make build/libspt.so\n")
        # make alone would not relink it when its objects are older than the .so (the .a can be newer
        # only because it was archived after the .so from the same objects): remove it, then link
        if os.path.exists(so):
            os.remove(so)
        subprocess.run(["make", "-s", "-C", ROOT, "build/libspt.so"])
    ok = fresh()
    if not ok:
        sys.stderr.write("bench: WARNING: spt_py uses a build/libspt.so older than bench_core's libspt.a\n")
    return so, ok


def machine():
    m = {"date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M:%S"), "cpus": os.cpu_count(),
         "kernel": platform.release(), "python": platform.python_version()}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                m["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                m["mem_gib"] = round(int(line.split()[1]) / 2**20, 1)
                break
    except OSError:
        pass
    try:
        m["cc"] = subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        pass
    code = ("import json,numpy,scipy\nv={'numpy':numpy.__version__,'scipy':scipy.__version__}\n"
            "try:\n import sparse;v['pydata_sparse']=sparse.__version__\nexcept Exception: pass\n"
            "try:\n import torch;v['torch']=torch.__version__\nexcept Exception: pass\nprint(json.dumps(v))")
    try:
        m["versions"] = json.loads(subprocess.run([PY, "-c", code], capture_output=True, text=True,
                                                  env=peer_env()).stdout)
    except ValueError:
        pass
    try:
        la = open("/proc/loadavg").read().split()[:3]
        m["loadavg_at_start"] = " ".join(la)
    except OSError:
        pass
    return m


def bound_bytes(op, dims, n, shape_cells):
    e = 8 * dims + 8
    if op == "reorder":
        return 2 * n * e
    if op == "reduce_axis1":
        return n * e + 8 * shape_cells
    if op == "reduce_all":
        return 8 * n
    if op == "concat1":
        return 4 * n * e
    if op == "add":
        return 4 * n * e  # two inputs in, about 2 nnz out (overlap ~1%)
    if op == "to_dense":
        return n * e + 8 * shape_cells
    if op == "spmm":  # the gather bound of peers.md: each nonzero pulls one 256-byte row of B
        return 24 * n + 256 * n + 256 * 100000
    return 0


def cells(op, dims):
    if op == "reduce_axis1":
        return 1000 * 1000 if dims == 3 else 1000000
    if op == "to_dense":
        return 200 ** 3 if dims == 3 else 40000 * 200
    return 0


def worst_rep(rec, nth):
    """bench_core's slowest and median repetitions of rec: wall seconds, the process's CPU seconds, the time
    its nth threads spent off the CPU (nth x wall - CPU: descheduled, or waiting without spinning) and its
    involuntary context switches; None without per-repetition figures."""
    if not rec or not rec.get("times") or len(rec.get("cpu_times") or []) != len(rec["times"]):
        return None
    t, c, sw = rec["times"], rec["cpu_times"], rec.get("nivcsw") or [None] * len(rec["times"])
    order = sorted(range(len(t)), key=lambda i: t[i])

    def one(i):
        return {"wall": t[i], "cpu": c[i], "off_cpu": max(nth * t[i] - c[i], 0.0), "nivcsw": sw[i]}

    return {"threads": nth, "worst": one(order[-1]), "median": one(order[len(order) // 2])}


def worst_text(w):
    """One clause on the worst repetition against the median one, from worst_rep."""
    if not w:
        return ""
    a, m = w["worst"], w["median"]
    sw = lambda x: "" if x["nivcsw"] is None else ", %d involuntary switches" % x["nivcsw"]  # noqa: E731
    return ("; the worst repetition (%d thr): %s wall, %s CPU, %s off the CPU%s; the median one: %s wall, "
            "%s CPU, %s off the CPU%s" % (w["threads"], fmt_t(a["wall"]), fmt_t(a["cpu"]), fmt_t(a["off_cpu"]),
                                          sw(a), fmt_t(m["wall"]), fmt_t(m["cpu"]), fmt_t(m["off_cpu"]), sw(m)))


def fmt_t(s):
    if s is None:
        return "-"
    if s >= 1:
        return "%.2f s" % s
    if s >= 1e-3:
        return "%.1f ms" % (s * 1e3)
    return "%.0f µs" % (s * 1e6)


def venv_versions(venv_py, env, tf_py=None):
    """The PyPI peers' versions in the bench venv (TensorFlow's in tf_py's venv when given), or None when the
    venv or any of them is missing."""
    if not venv_py or not os.path.exists(venv_py) or (tf_py and not os.path.exists(tf_py)):
        return None
    code = ("import json,os\nos.environ['TF_CPP_MIN_LOG_LEVEL']='3'\nimport numpy,sparse,torch,scipy%s\n"
            "print(json.dumps({'numpy':numpy.__version__,'pydata_sparse':sparse.__version__,"
            "'torch':torch.__version__,'scipy':scipy.__version__%s}))")
    tfc = ("import json,os\nos.environ['TF_CPP_MIN_LOG_LEVEL']='3'\nimport tensorflow\n"
           "print(json.dumps({'tensorflow':tensorflow.__version__}))")
    v = {}
    for py, c in ([(venv_py, code % ("", "")), (tf_py, tfc)] if tf_py else
                  [(venv_py, code % (",tensorflow", ",'tensorflow':tensorflow.__version__"))]):
        try:
            p = subprocess.run([py, "-c", c], capture_output=True, text=True, env=env, timeout=300)
            got = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
        except (OSError, ValueError, subprocess.TimeoutExpired):
            got = []
        if not got:
            return None
        v.update(got[0])
    return v


def loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="nnz 1e6 only")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--bench-core", default=os.path.join(ROOT, "build", "bench", "bench_core"))
    ap.add_argument("--bench-graphblas", default=os.path.join(ROOT, "build", "bench", "bench_graphblas"))
    ap.add_argument("--venv", default=os.path.join(ROOT, "build", "bench-venv"),
                    help="the virtual environment of the PyPI peers (bench/install-peers.sh makes it)")
    ap.add_argument("--no-pypi", action="store_true", help="the Debian peers and GraphBLAS only")
    ap.add_argument("--tf-venv", default="", help="TensorFlow from this venv (e.g. make test-tf's) instead of --venv")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--only", default="")
    ap.add_argument("--bw-bytes", type=int, default=1 << 30, help="bytes of the bandwidth memcpy (default 1 GiB)")
    ap.add_argument("--nnz", default="", help="comma-separated nnz replacing every workload's sizes")
    ap.add_argument("--reanalyse", default="", metavar="JSON",
                    help="write the tables again from a run's latest.json (its records), measuring nothing")
    ap.add_argument("--peer-timeout", type=int, default=900,
                    help="seconds a peer's process may run (all its sizes); the size it is on then is reported stopped")
    ap.add_argument("--spt-py", default="all", choices=["all", "both", "none"],
                    help="spt through its Python package: all cores (default), both 1 thread and all, or none")
    args = ap.parse_args()
    nnz_override = [float(x) for x in args.nnz.split(",") if x]

    def sizes_of(sizes):
        if nnz_override:
            return nnz_override
        return [1e6] if args.quick else sizes

    os.makedirs(args.out, exist_ok=True)
    nth = os.cpu_count() or 1
    env = peer_env()
    only = set(x for x in args.only.split(",") if x)
    t_start = time.time()
    old = None
    if args.reanalyse:  # the tables again from a run's latest.json, nothing measured
        with open(args.reanalyse) as f:
            old = json.load(f)
    m = old["machine"] if old else machine()
    venv_py = None if args.no_pypi else os.path.join(os.path.abspath(args.venv), "bin", "python")
    tf_py = os.path.join(os.path.abspath(args.tf_venv), "bin", "python") if args.tf_venv and venv_py else None
    if not old:
        m["pypi_versions"] = venv_versions(venv_py, env, tf_py)
    tf_py = tf_py or venv_py
    pypi = m["pypi_versions"] is not None
    if not pypi:
        venv_py = None
        m["pypi_note"] = ("the PyPI peers (TensorFlow 2.x, torch 2.x, pydata/sparse 0.19) are not available (%s): "
                          "the Debian peers and GraphBLAS alone" % ("--no-pypi" if args.no_pypi else
                                                                    "no usable venv at %s" % args.venv))
        sys.stderr.write("bench: %s\n" % m["pypi_note"])
    gb = old["graphblas"] if old else os.path.exists(args.bench_graphblas)
    m["graphblas"] = gb
    if not gb:
        sys.stderr.write("bench: no %s: the GraphBLAS peer is unavailable\n" % args.bench_graphblas)
    sys.stderr.write("bench: machine %s\n" % json.dumps(m))
    records = old["records"] if old else []
    bw = old["bandwidth"]["runs"] if old else []
    loads = old["loads"] if old else []

    def bandwidth():
        r = run_child([args.bench_core, "bandwidth", "0", "1", str(args.bw_bytes), "5"], 300)
        if r and r[0].get("status") == "ok":
            bw.append(r[0])

    def peer_cmd(peer, op, dims, sz):
        """(command, env, impl name to record) of one peer's child, or None when that peer is not installed."""
        pp = os.path.join(HERE, "peers.py")
        if peer in ("graphblas", "graphblas_acc"):
            if not gb:
                return None
            gop = "spmm_acc" if peer == "graphblas_acc" else op
            return [args.bench_graphblas, gop, str(dims), str(nth), sz, str(args.reps)], None, peer
        if peer in PYPI_PEERS:
            if not venv_py:
                return None
            name = {"torch_pypi": "torch", "pydata_pypi": "pydata"}.get(peer, peer)
            return [tf_py if peer in ("tf", "tf_sparse") else venv_py, pp, name, op, str(dims), sz, str(args.reps), "--threads", str(nth)], env, peer
        if peer == "torch_sorted":
            return [PY, pp, "torch", "concat1_sorted", str(dims), sz, str(args.reps), "--threads", str(nth)], env, peer
        return [PY, pp, peer, op, str(dims), sz, str(args.reps), "--threads", str(nth)], env, peer

    def save_partial():
        with open(os.path.join(args.out, "partial.json"), "w") as f:  # progress, in case the run is cut short
            json.dump({"machine": m, "bandwidth": bw, "records": records, "loads": loads}, f)

    if args.spt_py != "none" and not os.environ.get("SPT_LIB") and not old:
        m["spt_py_lib"], m["spt_py_lib_fresh"] = ensure_shared_lib()
    if not old:
        bandwidth()
    for op, dims, sizes, peers in [] if old else WORKLOADS:
        if only and op not in only:
            continue
        sizes = sizes_of(sizes)
        sz = ",".join("%d" % s for s in sizes)
        loads.append({"op": op, "dims": dims, "loadavg": loadavg()})
        # spt first (1 thread, all cores), its floor, spt through Python, then each peer, in turn
        for th in sorted({1, nth}) if op not in PY_ONLY else []:
            records += run_child([args.bench_core, op, str(dims), str(th), sz, str(args.reps)], 900)
        fl = FLOOR_OF.get(op)
        if fl and fl != "bound":
            recs = run_child([args.bench_core, fl, str(dims), str(nth), sz, str(args.reps)], 900)
            for r in recs:
                r["floor_for"] = op
            records += recs
        if fl == "copyfloor":  # the same copies into a reused, faulted-in pair: what add's output costs from the block cache
            recs = run_child([args.bench_core, "copywarm", str(dims), str(nth), sz, str(args.reps)], 900)
            for r in recs:
                r["floor_for"] = op
            records += recs
        py_threads = {"all": [nth], "both": sorted({1, nth}), "none": []}[args.spt_py] if op not in C_ONLY else []
        if op in PY_ONLY and not py_threads:
            py_threads = [nth]
        for th in py_threads:
            records += run_child([PY, os.path.join(HERE, "peers.py"), "spt_py", op, str(dims), sz, str(args.reps),
                                  "--threads", str(th)], 900, env)
        if op == "reorder" and py_threads:  # the in-place C reorder through the binding (spt.reorder returns a new tensor)
            recs = run_child([PY, os.path.join(HERE, "peers.py"), "spt_py", "reorder_inplace", str(dims), sz,
                              str(args.reps), "--threads", str(nth)], 900, env)
            for r in recs:
                r["impl"], r["op"] = "spt_py_inplace", "reorder"
            records += recs
        for peer in peers:
            pc = peer_cmd(peer, op, dims, sz)
            if pc is None:
                continue
            cmd, cenv, name = pc
            t_peer = time.time()
            recs = run_child(cmd, args.peer_timeout, cenv)
            for r in recs:
                r["impl"] = name
                r["op"] = op
                r["dims"] = dims
            # a peer's process stopped at --peer-timeout (every size together): the size it was running is
            # recorded as stopped, the ones after it are not reached
            if time.time() - t_peer >= args.peer_timeout and len(recs) < len(sizes):
                recs.append({"impl": name, "op": op, "dims": dims, "nnz": int(sizes[len(recs)]), "status": "stopped",
                             "over_s": args.peer_timeout})
            records += recs
        save_partial()
    density = []
    if not old and (not only or "density" in only):  # the density table: spt (1 thread, all cores) and TensorFlow (all cores)
        loads.append({"op": "density", "dims": 2, "loadavg": loadavg()})
        for th in sorted({1, nth}):
            density += run_child([args.bench_core, "density", "2", str(th), "0", str(args.reps)], 900)
        if venv_py:
            density += run_child([tf_py, os.path.join(HERE, "peers.py"), "tf", "density", "2", "0", str(args.reps),
                                  "--threads", str(nth)], 900, env)
        save_partial()
    if not old:
        bandwidth()
        loads.append({"op": "end", "loadavg": loadavg()})
    gbps = max(b["gbps"] for b in bw) if bw else None
    elapsed = old["elapsed_s"] if old else time.time() - t_start

    # ---- analysis ----
    def get(impl, op, dims, n, threads=None):
        for r in records:
            if (r.get("impl") == impl and r.get("op") == op and r.get("dims") == dims and r.get("nnz") == int(n)
                    and r.get("status") == "ok" and (threads is None or r.get("threads") == threads)):
                return r
        return None

    def get_floor(kind, op, dims, n):
        """The floor measured for this op (add and concat each measure the copy floor in their own turn, and
        fresh pages cost differently from one minute to the next), else any record of that floor."""
        mine = [r for r in records if r.get("floor_for") == op and r.get("op") == kind and r.get("dims") == dims
                and r.get("nnz") == int(n) and r.get("status") == "ok" and r.get("threads") == nth]
        return mine[0] if mine else get("spt", kind, dims, n, nth)

    rows = []
    for op, dims, sizes, peers in WORKLOADS:
        if only and op not in only:
            continue
        for n in sizes_of(sizes):
            n = int(n)
            bb = bound_bytes(op, dims, n, cells(op, dims))
            bound = bb / (gbps * 1e9) if gbps else None
            s1, sn = get("spt", op, dims, n, 1), get("spt", op, dims, n, nth)
            best = min([r["median"] for r in (s1, sn) if r], default=None)
            spt_all = sn["median"] if sn else best
            if op in PY_ONLY:  # no C program for it: spt's figure is its Python package's
                pq = get("spt_py", op, dims, n, nth)
                spt_all = pq["median"] if pq else None
            row = {"op": op, "dims": dims, "nnz": n, "bound_s": bound, "bound_bytes": bb,
                   "spt_1": s1["median"] if s1 else None,
                   "spt_all": spt_all if op in PY_ONLY else sn["median"] if sn else None,
                   "spt_best": best, "spt_peak_extra": (sn or s1 or {}).get("op_peak_extra"),
                   "spt_all_max": sn["max"] if sn else None, "spt_1_max": s1["max"] if s1 else None,
                   "spt_all_worst": worst_rep(sn, nth), "spt_1_worst": worst_rep(s1, 1),
                   "input_bytes": (sn or s1 or {}).get("input_bytes"), "peers": {},
                   # reduce: the first call on a fresh tensor (2-D row sums build the cached row pointer there)
                   "spt_first_all": sn.get("first") if sn else None, "spt_first_1": s1.get("first") if s1 else None}
            # spt through its Python package: all cores (and 1 thread with --spt-py both); py_over_c = spt_py / C
            p1, pn = get("spt_py", op, dims, n, 1 if nth != 1 else -1), get("spt_py", op, dims, n, nth)
            pin = get("spt_py_inplace", op, dims, n, nth)
            fk = FLOOR_OF.get(op)
            fr = get_floor(fk, op, dims if fk != "gatherfloor" else 2, n) if fk and fk != "bound" else None
            row["floor_kind"] = fk
            row["floor_s"] = fr["median"] if fr else (bound if fk == "bound" else None)
            row["copy_floor"] = fr["median"] if fr and fk == "copyfloor" else None
            fw = get_floor("copywarm", op, dims, n) if fk == "copyfloor" else None
            row["copy_warm"] = fw["median"] if fw else None
            py_all = pn["median"] if pn else None
            row.update(spt_py_1=p1["median"] if p1 else None, spt_py_all=py_all,
                       spt_py_inplace=pin["median"] if pin else None,
                       py_over_c=py_all / sn["median"] if pn and sn else None,
                       py_1_over_c=p1["median"] / s1["median"] if p1 and s1 else None,
                       py_inplace_over_c=pin["median"] / sn["median"] if pin and sn else None)
            for peer in peers:
                pr = get(peer, op, dims, n)
                stop = next((r for r in records if r.get("impl") == peer and r.get("op") == op and r.get("dims") == dims
                             and r.get("nnz") == n and r.get("status") == "stopped"), None)
                if stop and not pr:
                    row.setdefault("stopped", {})[peer] = stop["over_s"]
                if pr:
                    row["peers"][peer] = {"median": pr["median"], "min": pr["min"], "max": pr["max"],
                                          "threads": pr.get("threads"), "version": pr.get("version"),
                                          "ratio_to_spt": pr["median"] / spt_all if spt_all else None,
                                          "ratio_to_spt_py": pr["median"] / py_all if py_all else None,
                                          "peak_extra": pr.get("op_peak_extra")}
            counted = {k: v for k, v in row["peers"].items() if op not in NOT_COUNTED.get(k, ())}
            if counted:
                fp = min(counted, key=lambda k: counted[k]["median"])
                row["fastest_peer"] = fp
                row["fastest_peer_s"] = counted[fp]["median"]
                row["spt_over_fastest"] = spt_all / counted[fp]["median"] if spt_all else None
            row["spt_over_floor"] = spt_all / row["floor_s"] if spt_all and row["floor_s"] else None
            row["worst_over_median"] = max([r["max"] / r["median"] for r in (s1, sn) if r and r["median"]],
                                           default=None)
            rows.append(row)

    def row_of(op, dims, n):
        for r in rows:
            if r["op"] == op and r["dims"] == dims and r["nnz"] == n:
                return r
        return None

    big = int(max(nnz_override)) if nnz_override else 10**6 if args.quick else 10**7
    dbig = big if nnz_override else 10**6  # to_dense's largest size
    targets18 = []

    def t18(name, r, measured, need, text):
        if measured is None:
            targets18.append({"target": name, "status": "not measured"})
            return
        holds = measured <= need
        targets18.append({"target": name, "measured": measured, "need": need, "holds": holds,
                          "misses_by": None if holds else measured / need, "text": text})

    for op, dims, _, _ in WORKLOADS:
        if only and op not in only:
            continue
        r = row_of(op, dims, dbig if op == "to_dense" else big)
        if not r:
            continue
        fp = r.get("fastest_peer")
        t18("%s %d-D: spt at least as fast as the fastest peer" % (op, dims), r, r.get("spt_over_fastest"), 1.0,
            "spt %s, fastest peer %s %s: spt / peer = %.2f" % (fmt_t(r["spt_all"]), PEER_LABEL.get(fp, fp),
                                                               fmt_t(r.get("fastest_peer_s")),
                                                               r.get("spt_over_fastest") or 0))
    for op, dims, need, what in [("reorder", 3, 1.5, "the two-pass radix floor"),
                                 ("reorder", 2, 1.5, "the two-pass radix floor"),
                                 ("reduce_axis1", 3, 2.0, "the bandwidth bound"),
                                 ("reduce_axis1", 2, 2.0, "the bandwidth bound"),
                                 ("spmm", 2, 1.5, "the gather floor"),
                                 ("add", 3, 1.2, "the copy floor"), ("add", 2, 1.2, "the copy floor"),
                                 ("concat1", 3, 1.2, "the copy floor"), ("concat1", 2, 1.2, "the copy floor")]:
        if only and op not in only:
            continue
        r = row_of(op, dims, big)
        if not r:
            continue
        t18("%s %d-D within %gx of %s" % (op, dims, need, what), r, r.get("spt_over_floor"), need,
            "spt %s, floor %s: %.2fx" % (fmt_t(r["spt_all"]), fmt_t(r["floor_s"]), r.get("spt_over_floor") or 0))
    for op, dims in [("add", 3), ("add", 2), ("concat1", 3), ("concat1", 2)]:  # against the copy into faulted-in memory
        r = row_of(op, dims, big)
        if not r or not r.get("copy_warm") or not r.get("spt_all"):
            continue
        t18("%s %d-D within 1.3x of the copy into faulted-in memory" % (op, dims), r, r["spt_all"] / r["copy_warm"],
            1.3, "spt %s, copy %s: %.2fx (into fresh pages %s)" % (fmt_t(r["spt_all"]), fmt_t(r["copy_warm"]),
                                                                   r["spt_all"] / r["copy_warm"],
                                                                   fmt_t(r.get("copy_floor"))))
    for r in rows:
        if r["nnz"] != (dbig if r["op"] == "to_dense" else big):
            continue
        worst = r.get("worst_over_median")
        t18("%s %d-D: worst repetition <= 1.5x the median" % (r["op"], r["dims"]), r, worst, 1.5,
            "worst/median: %d thr %s, 1 thr %s%s" % (
                nth, "%.2f" % (r["spt_all_max"] / r["spt_all"]) if r["spt_all"] and r["spt_all_max"] else "-",
                "%.2f" % (r["spt_1_max"] / r["spt_1"]) if r["spt_1"] else "-",
                worst_text(r.get("spt_all_worst") if worst and r["spt_all"] and r["spt_all_max"] and
                           r["spt_all_max"] / r["spt_all"] > 1.5 else r.get("spt_1_worst") if worst and worst > 1.5
                           else None)))

    for dims in (3, 2):  # to_dense through Python faster than every peer (spt_py against the fastest peer)
        r = row_of("to_dense", dims, dbig)
        if r and r.get("spt_py_all") and r.get("fastest_peer_s"):
            fp = r["fastest_peer"]
            t18("to_dense %d-D through Python faster than every peer" % dims, r,
                r["spt_py_all"] / r["fastest_peer_s"], 1.0, "spt_py %s, fastest peer %s %s" % (
                    fmt_t(r["spt_py_all"]), PEER_LABEL.get(fp, fp), fmt_t(r["fastest_peer_s"])))
    targets = debian_targets(rows, row_of, big, args, nth)
    mem = []
    for n in sizes_of(FULL):
        for d in (3, 2):
            r = row_of("reorder", d, int(n))
            if r and r["spt_peak_extra"] is not None and r["input_bytes"]:
                tot = (r["input_bytes"] + r["spt_peak_extra"]) / r["input_bytes"]
                mem.append({"dims": d, "nnz": int(n), "peak_over_input": tot})
    big_mem = [x for x in mem if x["nnz"] == big]
    if big_mem:
        worst = max(x["peak_over_input"] for x in big_mem)
        targets.append({"target": "reorder peak memory <= 2x the input bytes", "measured": worst, "need": 2,
                        "holds": worst <= 2.0,
                        "text": "input + the op's peak extra RSS = %.2fx the input" % worst})

    result = {"machine": m, "elapsed_s": elapsed, "threads_all": nth, "quick": args.quick, "reps": args.reps,
              "nnz_override": nnz_override, "spt_py": args.spt_py, "big": big, "pypi": pypi, "graphblas": gb,
              "loads": loads, "bandwidth": {"gbps_used": gbps, "runs": bw}, "records": records, "rows": rows,
              "targets18": targets18, "targets": targets, "reorder_memory": mem, "density": old["density"] if old else density_rows(density, nth)}
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(result, f, indent=1)
    try:
        os.remove(os.path.join(args.out, "partial.json"))
    except OSError:
        pass
    md = table_md(result, nth)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(md)
    sys.stdout.write(md)
    try:
        chart(result, nth, os.path.join(args.out, "latest.png"))
    except Exception as ex:  # the chart is a convenience; the JSON and table are the record
        sys.stderr.write("bench: chart failed: %r\n" % (ex,))


def density_rows(recs, nth):
    """The density table: per (density, n, m, k), TensorFlow's dense and sparse times and spt's, with the
    ratios; plus, per (n, m, k), the crossover: the density at which the sparse product gets slower than TF's
    dense matmul (linear interpolation between the grid's densities, of the log of the time ratio)."""
    import math

    by = {}
    for r in recs:
        if r.get("status") != "ok" or r.get("op") != "density":
            continue
        key = (r["density"], r["n"], r["m"], r["k"])
        e = by.setdefault(key, {"density": r["density"], "n": r["n"], "m": r["m"], "k": r["k"], "nnz": r["nnz"]})
        if r["impl"] == "tf":
            e.update(tf_dense=r["dense_median"], tf_sparse=r["sparse_median"], tf_threads=r.get("threads"),
                     tf_sparse_max=r["sparse_max"], tf_dense_max=r["dense_max"])
        elif r["impl"] == "spt":
            e["spt_%s" % ("1" if r["threads"] == 1 else "all")] = r["sparse_median"]
            e["spt_%s_max" % ("1" if r["threads"] == 1 else "all")] = r["sparse_max"]
    table = sorted(by.values(), key=lambda e: (e["density"], e["n"], e["m"], e["k"]))
    for e in table:
        td, ts = e.get("tf_dense"), e.get("tf_sparse")
        if td and ts:
            e["tf_sparse_over_dense"] = ts / td
        for s in ("spt_1", "spt_all"):
            if e.get(s) and td:
                e[s + "_over_tf_dense"] = e[s] / td
            if e.get(s) and ts:
                e[s + "_over_tf_sparse"] = e[s] / ts

    def crossover(series):  # [(density, ratio)] sorted: where ratio crosses 1
        prev = None
        for d, x in series:
            if x is None:
                continue
            if x >= 1:
                if prev is None:
                    return {"density": d, "text": "<= %g" % d}
                (d0, x0) = prev
                l0, l1 = math.log(x0), math.log(x)
                dc = d0 + (d - d0) * (0 - l0) / (l1 - l0) if l1 != l0 else d
                return {"density": dc, "text": "%.2f (between %g and %g)" % (dc, d0, d)}
            prev = (d, x)
        return {"density": None, "text": "> %g (not reached)" % series[-1][0]} if series else None

    cross = []
    shapes = sorted({(e["n"], e["m"], e["k"]) for e in table})
    for (nc, mm, kk) in shapes:
        ser = [e for e in table if (e["n"], e["m"], e["k"]) == (nc, mm, kk)]
        c = {"n": nc, "m": mm, "k": kk}
        for key in ("tf_sparse_over_dense", "spt_1_over_tf_dense", "spt_all_over_tf_dense"):
            s = [(e["density"], e.get(key)) for e in ser if e.get(key) is not None]
            c[key] = crossover(s) if s else None
        cross.append(c)
    return {"table": table, "crossover": cross, "threads_all": nth}


def debian_targets(rows, row_of, big, args, nth):
    """The targets against Debian's torch, pydata/sparse and scipy (the first benchmark's peers)."""
    targets = []

    def py_check(r, peer, need, kind):
        """The same target read on spt_py (the Python package, all cores) instead of the C program."""
        if args.spt_py == "none":
            return None
        v = r.get("spt_py_all")
        if not v:
            return {"status": "not measured"}
        if kind == "bound":
            val = v / r["bound_s"] if r["bound_s"] else None
            if val is None:
                return {"status": "not measured"}
            return {"measured": val, "holds": val <= need,
                    "text": "spt_py %s = %.2fx the bound" % (fmt_t(v), val)}
        p = r["peers"].get(peer)
        if not p:
            return {"status": "not measured"}
        val = p["median"] / v
        return {"measured": val, "holds": val >= need,
                "text": "%s %s / spt_py %s = %.2fx" % (peer, fmt_t(p["median"]), fmt_t(v), val)}

    def tgt(name, op, dims, n, peer, need, kind="faster"):
        # the target itself is about the library: read on the C program's figures, as always
        r = row_of(op, dims, n)
        if not r:
            targets.append({"target": name, "status": "not measured"})
            return
        if kind == "bound":
            val = r["spt_all"] / r["bound_s"] if r["spt_all"] and r["bound_s"] else None
            ok = val is not None and val <= need
            targets.append({"target": name, "measured": val, "need": need, "holds": ok,
                            "text": "spt %s = %.2fx the bound (need <= %.1fx)" % (fmt_t(r["spt_all"]), val or 0, need),
                            "python": py_check(r, peer, need, kind)})
            return
        p = r["peers"].get(peer)
        if not p or not r["spt_all"]:
            targets.append({"target": name, "status": "not measured", "python": py_check(r, peer, need, kind)})
            return
        val = p["ratio_to_spt"]
        text = "%s %s / spt %s = %.2fx (need >= %gx)" % (peer, fmt_t(p["median"]), fmt_t(r["spt_all"]), val, need)
        if r.get("copy_floor"):  # what the target asks against what a plain copy into fresh memory costs
            text += "; the target asks for <= %s, a plain copy of the inputs into a fresh output takes %s" % (
                fmt_t(p["median"] / need), fmt_t(r["copy_floor"]))
        targets.append({"target": name, "measured": val, "need": need, "holds": val >= need, "text": text,
                        "copy_floor_s": r.get("copy_floor"), "python": py_check(r, peer, need, kind)})

    tgt("reorder 3-D vs torch coalesce >= 10x", "reorder", 3, big, "torch", 10)
    tgt("reorder 3-D vs pydata >= 10x", "reorder", 3, big, "pydata", 10)
    tgt("reorder 2-D vs scipy tocsr >= 3x", "reorder", 2, big, "scipy", 3)
    tgt("reduce axis 1 3-D vs torch >= 10x", "reduce_axis1", 3, big, "torch", 10)
    tgt("reduce axis 1 2-D not slower than scipy", "reduce_axis1", 2, big, "scipy", 1)
    tgt("reduce all within 1.5x of the bound", "reduce_all", 3, big, None, 1.5, kind="bound")
    tgt("concat 3-D vs pydata >= 5x", "concat1", 3, big, "pydata", 5)
    tgt("concat 3-D faster than torch's unsorted cat", "concat1", 3, big, "torch", 1)
    tgt("add 3-D vs torch >= 10x", "add", 3, big, "torch", 10)
    tgt("add 2-D vs scipy >= 3x", "add", 2, big, "scipy", 3)
    tgt("spmm vs scipy CSR >= 2x", "spmm", 2, big, "scipy", 2)
    tgt("to_dense [200]^3 1e6 vs torch >= 2x", "to_dense", 3, big if args.nnz else 10**6, "torch", 2)
    return targets


def table_md(res, nth):
    m = res["machine"]
    out = ["# spt benchmarks against the peers (`make bench`)", ""]
    out.append("Machine: %s, %s CPUs, %s GiB, Linux %s; %s. Run %s UTC, %.0f s." % (
        m.get("cpu"), m.get("cpus"), m.get("mem_gib"), m.get("kernel"), m.get("cc"), m.get("date_utc"),
        res["elapsed_s"]))
    out.append("")
    out.append("Load average (1, 5, 15 min) at the start %s; before each workload: %s." % (
        m.get("loadavg_at_start"), "; ".join("%s %s: %s" % (x["op"], "%d-D" % x["dims"] if x.get("dims") else "",
                                                           x["loadavg"]) for x in res.get("loads", []))))
    out.append("")
    out.append("Peers: Debian (/usr/bin/python3): %s." % ", ".join(
        "%s %s" % kv for kv in sorted(m.get("versions", {}).items())))
    if res.get("pypi"):
        out.append("PyPI (the bench venv): %s." % ", ".join("%s %s" % kv for kv in sorted(m["pypi_versions"].items())))
    else:
        out.append("**PyPI peers not run: %s.**" % m.get("pypi_note", "not available"))
    out.append("GraphBLAS: %s." % ("SuiteSparse:GraphBLAS %s (Debian libgraphblas-dev, bench_graphblas)" % next(
        (r.get("version") for r in res["records"] if r.get("impl", "").startswith("graphblas") and r.get("version")),
        "?") if res.get("graphblas") else "**not run** (no build/bench/bench_graphblas: libgraphblas-dev missing)"))
    bw = res["bandwidth"]
    out.append("")
    mb = bw["runs"][0]["nnz"] if bw["runs"] else 1 << 30  # bench_core reports the copied bytes as "nnz"
    out.append("Bandwidth bound: one-thread memcpy of %s counted as twice that moved, best of start/end of the run: "
               "**%.2f GB/s** (%s)." % ("1 GiB" if mb == 1 << 30 else "%d MiB" % (mb >> 20), bw["gbps_used"] or 0,
                                        ", ".join("%.2f" % b["gbps"] for b in bw["runs"])))
    out.append("")
    out.append("## spt against the fastest peer and its floor")
    out.append("")
    out.append("Medians of %s runs after the warm-up (calls until 200 ms, the same for every implementation: "
               "bench/README.md); spt with %d threads unless said (every peer that threads runs "
               "with %d). Fastest peer: the least median among the peers of that row (torch's unsorted `cat` is listed "
               "with the peers but not counted for concat). Floor: reorder the two-pass radix floor, spmm the gather "
               "floor, add and concat the copy floor (bench_core, %d threads, same run), the reduces and to_dense the "
               "bandwidth bound (bench/README.md defines each). worst/median: spt's slowest repetition over its "
               "median, the larger of 1 and %d threads." % (res.get("reps", 5), nth, nth, nth, nth))
    if res.get("nnz_override"):
        out.append("")
        out.append("Sizes replaced by --nnz %s: a check of the machinery, not the published sizes." % ",".join(
            "%.0e" % x for x in res["nnz_override"]))
    out.append("")
    rows = res["rows"]
    pyn = any(r.get("spt_py_all") for r in rows)
    head = ["op", "dims", "nnz", "spt %d thr" % nth, "spt 1 thr"] + (["spt_py (x of C)"] if pyn else []) + [
        "fastest peer", "spt / fastest", "floor", "spt / floor", "worst/median"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        fp = r.get("fastest_peer")
        line = [TITLES.get(r["op"], r["op"]), "%d" % r["dims"], "%.0e" % r["nnz"], fmt_t(r["spt_all"]),
                fmt_t(r["spt_1"])]
        if pyn:
            line.append("%s (x%.3g)" % (fmt_t(r["spt_py_all"]), r["py_over_c"]) if r.get("py_over_c") else "-")
        line += ["%s %s" % (PEER_LABEL.get(fp, fp), fmt_t(r.get("fastest_peer_s"))) if fp else "-",
                 "%.3g" % r["spt_over_fastest"] if r.get("spt_over_fastest") else "-",
                 "%s %s" % ({"radixfloor": "radix", "gatherfloor": "gather", "copyfloor": "copy",
                             "mttkrpfloor": "stream", "bound": "bound"}.get(r.get("floor_kind"), "-"), fmt_t(r.get("floor_s"))),
                 "%.3g" % r["spt_over_floor"] if r.get("spt_over_floor") else "-",
                 "%.2f" % r["worst_over_median"] if r.get("worst_over_median") else "-"]
        out.append("| " + " | ".join(line) + " |")
    firsts = [r for r in rows if r.get("spt_first_all") is not None or r.get("spt_first_1") is not None]
    if firsts:
        out.append("")
        out.append("spt's first call on fresh inputs (bench_core's first warm-up call, not in the medians above): "
                   "it faults in the output's pages the later calls take from the block cache, and for 2-D row sums "
                   "it also builds the tensor's cached row pointer, which the later calls read.")
        out.append("")
        out.append("| op | dims | nnz | first call %d thr | median after it | first call 1 thr | median after it |"
                   % nth)
        out.append("|---|---|---|---|---|---|---|")
        for r in firsts:
            out.append("| %s | %d | %.0e | %s | %s | %s | %s |" % (
                TITLES.get(r["op"], r["op"]), r["dims"], r["nnz"], fmt_t(r.get("spt_first_all")),
                fmt_t(r.get("spt_all")), fmt_t(r.get("spt_first_1")), fmt_t(r.get("spt_1"))))
    out.append("")
    out.append("## Every peer")
    out.append("")
    out.append("Median (x = peer / spt with %d threads: how many times faster spt is; below 1 the peer is faster)."
               % nth)
    out.append("")
    present = [p for p in PEER_LABEL if any(p in r["peers"] or p in r.get("stopped", {}) for r in rows)]
    out.append("| op | dims | nnz | " + " | ".join(PEER_LABEL[p] for p in present) + " |")
    out.append("|" + "---|" * (3 + len(present)))
    for r in rows:
        line = [TITLES.get(r["op"], r["op"]), "%d" % r["dims"], "%.0e" % r["nnz"]]
        for p in present:
            x = r["peers"].get(p)
            if not x and p in r.get("stopped", {}):
                line.append("stopped (its process over %d s)" % r["stopped"][p])
                continue
            line.append("%s (x%.3g)" % (fmt_t(x["median"]), x["ratio_to_spt"]) if x and x.get("ratio_to_spt")
                        else fmt_t(x["median"]) if x else "-")
        out.append("| " + " | ".join(line) + " |")
    inpl = [r for r in rows if r.get("spt_py_inplace")]
    if inpl:
        out.append("")
        out.append("spt_py reorder in place (the C spt_reorder on a per-run clone through the ctypes binding, exactly "
                   "bench_core's timed work), %d threads: " % nth + ", ".join(
                       "%d-D %.0e %s (x%.2f of C)" % (r["dims"], r["nnz"], fmt_t(r["spt_py_inplace"]),
                                                      r["py_inplace_over_c"] or 0) for r in inpl) + ".")
    if m.get("spt_py_lib_fresh") is False:
        out.append("")
        out.append("**Warning: spt_py ran on a build/libspt.so older than the libspt.a bench_core links; its "
                   "figures may not be the same code.**")
    out.append("")
    if res.get("nnz_override"):
        at = "%.0e (--nnz)" % res["big"]
    else:
        at = "1e6 (QUICK)" if res["quick"] else "1e7 (to_dense 1e6)"
    out.append("## Targets against the fastest peer and the floors, nnz %s" % at)
    out.append("")
    for t in res.get("targets18", []):
        if "holds" in t:
            out.append("- %s: **%s** -- %s" % (t["target"], "holds" if t["holds"] else "misses by %.2fx" %
                                               t["misses_by"], t["text"]))
        else:
            out.append("- %s: %s" % (t["target"], t.get("status")))
    out.append("")
    out.append("## Targets against Debian's peers, nnz %s" % at)
    out.append("")
    if res.get("spt_py", "none") != "none":
        out.append("Each target is read on the C program (spt %d threads); the indented line reads it on spt_py "
                   "(the Python package, %d threads)." % (nth, nth))
        out.append("")
    for t in res["targets"]:
        if "holds" in t:
            out.append("- %s: **%s** -- %s" % (t["target"], "holds" if t["holds"] else "does NOT hold", t["text"]))
        else:
            out.append("- %s: %s" % (t["target"], t.get("status")))
        pt = t.get("python")
        if pt is not None:
            if "holds" in pt:
                out.append("  - through Python: %s -- %s" % ("holds" if pt["holds"] else "does NOT hold", pt["text"]))
            else:
                out.append("  - through Python: %s" % pt.get("status"))
    out.append("")
    if res["reorder_memory"]:
        out.append("Reorder peak memory (input + the op's peak extra RSS, / input bytes): " + ", ".join(
            "%d-D %.0e: %.2fx" % (x["dims"], x["nnz"], x["peak_over_input"]) for x in res["reorder_memory"]))
        out.append("")
    out += density_md(res.get("density"), nth)
    return "\n".join(out)


def density_md(d, nth):
    if not d or not d.get("table"):
        return []
    out = ["## sparse x dense matmul against dense matmul as the density grows", ""]
    out.append("The timing table of tf.sparse.sparse_dense_matmul's documentation (A sparse [m,k] with the given "
               "fraction of entries, B dense [k,n]; the time to densify A is not counted), for TensorFlow (%d "
               "threads) and spt (1 and %d threads) in the same run. Per call, the median of the samples, each a "
               "loop of calls lasting >= 2 ms. TF dense = tf.matmul of A densified; TF sparse = "
               "SparseTensorDenseMatMul; spt = spt_sparse_dense_matmul." % (nth, nth))
    if not any(e.get("tf_dense") for e in d["table"]):
        out.append("")
        out.append("**TensorFlow was not run (no PyPI peers): spt's times alone, no crossover.**")
    out.append("")
    out.append("| density | n | m | k | TF dense | TF sparse | TF sparse / dense | spt 1 thr | spt %d thr | "
               "spt 1 thr / TF dense | spt 1 thr / TF sparse |" % nth)
    out.append("|" + "---|" * 11)

    def us(x):
        return "%.1f µs" % (x * 1e6) if x else "-"

    def rt(x):
        return "%.2f" % x if x else "-"

    for e in d["table"]:
        out.append("| %g | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            e["density"], e["n"], e["m"], e["k"], us(e.get("tf_dense")), us(e.get("tf_sparse")),
            rt(e.get("tf_sparse_over_dense")), us(e.get("spt_1")), us(e.get("spt_all")),
            rt(e.get("spt_1_over_tf_dense")), rt(e.get("spt_1_over_tf_sparse"))))
    out.append("")
    out.append("Crossover: the density at which the sparse product becomes slower than TensorFlow's dense matmul "
               "(interpolated between the grid's densities on the log of the time ratio):")
    out.append("")
    out.append("| n | m | k | TF sparse | spt 1 thr | spt %d thr |" % nth)
    out.append("|---|---|---|---|---|---|")
    for c in d["crossover"]:
        def tx(k):
            return c[k]["text"] if c.get(k) else "-"
        out.append("| %d | %d | %d | %s | %s | %s |" % (c["n"], c["m"], c["k"], tx("tf_sparse_over_dense"),
                                                        tx("spt_1_over_tf_dense"), tx("spt_all_over_tf_dense")))
    out.append("")
    return out


def chart(res, nth, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res["rows"]
    big = max((r["nnz"] for r in rows), default=0)
    sel = []
    for r in rows:  # the largest size of each (op, dims)
        same = [x for x in rows if x["op"] == r["op"] and x["dims"] == r["dims"]]
        if r["nnz"] == max(x["nnz"] for x in same):
            sel.append(r)
    impls = [("spt_1", "spt 1 thread", "#9ecae1"), ("spt_all", "spt %d threads" % nth, "#08519c")]
    if any(r.get("spt_py_1") for r in sel):
        impls.append(("spt_py_1", "spt_py (Python) 1 thread", "#c6dbef"))
    if any(r.get("spt_py_all") for r in sel):
        impls.append(("spt_py_all", "spt_py (Python) %d threads" % nth, "#6baed6"))
    colors = {"torch": "#ee4c2c", "torch_sorted": "#fdae6b", "pydata": "#31a354", "scipy": "#756bb1",
              "graphblas": "#8c510a", "graphblas_acc": "#d8b365", "torch_pypi": "#a50f15", "pydata_pypi": "#006d2c",
              "tf": "#ff7f00", "tf_sparse": "#ffd92f", "torch_csr": "#67000d", "scipy_nd": "#54278f"}
    impls += [(p, PEER_LABEL[p], colors[p]) for p in PEER_LABEL if any(p in r["peers"] for r in sel)]
    impls += [("floor", "floor (radix / gather / copy / bound)", "#bbbbbb")]
    fig, ax = plt.subplots(figsize=(max(10, 1.3 * len(sel)), 6))
    w = 0.8 / len(impls)
    for k, (key, label, color) in enumerate(impls):
        xs, ys = [], []
        for i, r in enumerate(sel):
            if key in ("spt_1", "spt_all", "spt_py_1", "spt_py_all"):
                v = r.get(key)
            elif key == "floor":
                v = r.get("floor_s")
            else:
                v = r["peers"].get(key, {}).get("median")
            if v:
                xs.append(i - 0.4 + w * (k + 0.5))
                ys.append(v)
        ax.bar(xs, ys, w, label=label, color=color)
    ax.set_yscale("log")
    ax.set_xticks(range(len(sel)))
    ax.set_xticklabels(["%s\n%d-D nnz %.0e" % (TITLES.get(r["op"], r["op"]), r["dims"], r["nnz"]) for r in sel],
                       fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("median time, s (log)")
    ax.set_title("spt vs peers (%s, %s CPUs, %s)" % (res["machine"].get("date_utc", ""), res["machine"].get("cpus"),
                                                     "QUICK" if res["quick"] and not res.get("nnz_override")
                                                     else "nnz up to %.0e" % big))
    ax.legend(fontsize=8, ncol=4)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
