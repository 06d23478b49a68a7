#!/usr/bin/python3
"""make bench: spt through the C program (bench_core, 1 thread and all cores), spt through its Python
package (peers.py spt_py: python/spt over build/libspt.so, all cores; --spt-py both adds 1 thread) and the
peers (peers.py: torch, pydata/sparse, scipy), alternating per workload, each in its own process, on
identical inputs; a memory-copy bandwidth bound measured at the start and the end of the same run. Writes
bench/results/latest.json, latest.md (the table: median, ratio to each peer, ratio to the bound, spt_py
over the C program; the targets of issue 8, computed on the C figures, each also checked through Python)
and latest.png (the chart).

    run.py [--quick] [--nnz N[,N...]] [--reps N] [--bench-core PATH] [--out DIR] [--only OP[,OP]]
           [--spt-py all|both|none] [--bw-bytes BYTES]

--nnz replaces every workload's sizes (e.g. --nnz 1e5 for a light check run); the targets are then read
at the largest of them.
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

# (op, dims, sizes, peers). Sizes are nnz per input; scipy runs the 2-D form of each op.
FULL = [1e5, 1e6, 1e7]
WORKLOADS = [
    ("reorder", 3, FULL, ["torch", "pydata"]),
    ("reorder", 2, FULL, ["scipy"]),
    ("reduce_axis1", 3, FULL, ["torch", "pydata"]),
    ("reduce_axis1", 2, FULL, ["scipy"]),
    ("reduce_all", 3, FULL, ["torch", "pydata"]),
    ("reduce_all", 2, FULL, ["scipy"]),
    ("concat1", 3, FULL, ["torch", "torch_sorted", "pydata"]),
    ("concat1", 2, FULL, ["scipy"]),
    ("add", 3, FULL, ["torch", "pydata"]),
    ("add", 2, FULL, ["scipy"]),
    ("spmm", 2, FULL, ["torch", "pydata", "scipy"]),
    ("to_dense", 3, [1e5, 1e6], ["torch", "pydata"]),
    ("to_dense", 2, [1e5, 1e6], ["scipy"]),
]

TITLES = {
    "reorder": "reorder (unsorted, ~0.5% dups)",
    "reduce_axis1": "reduce_sum axis 1",
    "reduce_all": "reduce_sum all axes",
    "concat1": "concat axis 1 (sorted out)",
    "add": "add",
    "spmm": "spmm [1e5,1e5] x [1e5,32]",
    "to_dense": "to_dense",
}


def peer_env():
    env = dict(os.environ)
    # see /work/.library/env/README.md: these slow a current numpy down; unset for benchmarking only
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    return env


def run_child(cmd, timeout, env=None):
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
    if rc != 0:
        sys.stderr.write("bench: %s exited %s: %s\n" % (" ".join(cmd), rc, err.strip()[-500:]))
    sys.stderr.write("bench: %-70s %6.1fs\n" % (" ".join(os.path.basename(c) for c in cmd[:6]), time.time() - t0))
    return recs


def ensure_shared_lib():
    """spt_py loads build/libspt.so, bench_core links build/libspt.a (`make bench` builds only the latter):
    relink the .so from the same objects when it is missing or older than the .a. Returns (path, fresh)."""
    so, ar = os.path.join(ROOT, "build", "libspt.so"), os.path.join(ROOT, "build", "libspt.a")

    def fresh():
        return os.path.exists(so) and (not os.path.exists(ar) or os.path.getmtime(so) >= os.path.getmtime(ar))

    if not fresh():
        sys.stderr.write("bench: build/libspt.so is missing or older than build/libspt.a: make build/libspt.so\n")
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


def fmt_t(s):
    if s is None:
        return "-"
    if s >= 1:
        return "%.2f s" % s
    if s >= 1e-3:
        return "%.1f ms" % (s * 1e3)
    return "%.0f µs" % (s * 1e6)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="nnz 1e6 only")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--bench-core", default=os.path.join(ROOT, "build", "bench", "bench_core"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--only", default="")
    ap.add_argument("--bw-bytes", type=int, default=1 << 30, help="bytes of the bandwidth memcpy (default 1 GiB)")
    ap.add_argument("--nnz", default="", help="comma-separated nnz replacing every workload's sizes")
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
    m = machine()
    sys.stderr.write("bench: machine %s\n" % json.dumps(m))
    records = []
    bw = []

    def bandwidth():
        r = run_child([args.bench_core, "bandwidth", "0", "1", str(args.bw_bytes), "5"], 300)
        if r and r[0].get("status") == "ok":
            bw.append(r[0])

    if args.spt_py != "none" and not os.environ.get("SPT_LIB"):
        m["spt_py_lib"], m["spt_py_lib_fresh"] = ensure_shared_lib()
    bandwidth()
    for op, dims, sizes, peers in WORKLOADS:
        if only and op not in only:
            continue
        sizes = sizes_of(sizes)
        sz = ",".join("%d" % s for s in sizes)
        # spt first (1 thread, all cores), then spt through Python, then each peer, in turn
        for th in sorted({1, nth}):
            records += run_child([args.bench_core, op, str(dims), str(th), sz, str(args.reps)], 900)
        if op == "add":  # the floor of any add with a fresh output: its inputs copied into fresh memory (largest size)
            records += run_child([args.bench_core, "copyfloor", str(dims), str(nth), "%d" % max(sizes), str(args.reps)],
                                 900)
        py_threads = {"all": [nth], "both": sorted({1, nth}), "none": []}[args.spt_py]
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
            if peer == "torch_sorted":
                cmd = [PY, os.path.join(HERE, "peers.py"), "torch", "concat1_sorted", str(dims), sz, str(args.reps),
                       "--threads", str(nth)]
            else:
                cmd = [PY, os.path.join(HERE, "peers.py"), peer, op, str(dims), sz, str(args.reps), "--threads", str(nth)]
            recs = run_child(cmd, 900, env)
            for r in recs:
                if peer == "torch_sorted":
                    r["impl"] = "torch_sorted"
                    r["op"] = "concat1"
            records += recs
        with open(os.path.join(args.out, "partial.json"), "w") as f:  # progress, in case the run is cut short
            json.dump({"machine": m, "bandwidth": bw, "records": records}, f)
    bandwidth()
    gbps = max(b["gbps"] for b in bw) if bw else None
    elapsed = time.time() - t_start

    # ---- analysis ----
    def get(impl, op, dims, n, threads=None):
        for r in records:
            if (r.get("impl") == impl and r.get("op") == op and r.get("dims") == dims and r.get("nnz") == int(n)
                    and r.get("status") == "ok" and (threads is None or r.get("threads") == threads)):
                return r
        return None

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
            row = {"op": op, "dims": dims, "nnz": n, "bound_s": bound, "bound_bytes": bb,
                   "spt_1": s1["median"] if s1 else None, "spt_all": sn["median"] if sn else None,
                   "spt_best": best, "spt_peak_extra": (sn or s1 or {}).get("op_peak_extra"),
                   "input_bytes": (sn or s1 or {}).get("input_bytes"), "peers": {}}
            # spt through its Python package: all cores (and 1 thread with --spt-py both); py_over_c = spt_py / C
            p1, pn = get("spt_py", op, dims, n, 1 if nth != 1 else -1), get("spt_py", op, dims, n, nth)
            pin = get("spt_py_inplace", op, dims, n, nth)
            cf = get("spt", "copyfloor", dims, n, nth) if op == "add" else None
            row["copy_floor"] = cf["median"] if cf else None
            py_all = pn["median"] if pn else None
            row.update(spt_py_1=p1["median"] if p1 else None, spt_py_all=py_all,
                       spt_py_inplace=pin["median"] if pin else None,
                       py_over_c=py_all / sn["median"] if pn and sn else None,
                       py_1_over_c=p1["median"] / s1["median"] if p1 and s1 else None,
                       py_inplace_over_c=pin["median"] / sn["median"] if pin and sn else None)
            for peer in peers:
                pr = get(peer, op, dims, n)
                if pr:
                    row["peers"][peer] = {"median": pr["median"], "min": pr["min"], "max": pr["max"],
                                          "ratio_to_spt": pr["median"] / spt_all if spt_all else None,
                                          "ratio_to_spt_py": pr["median"] / py_all if py_all else None,
                                          "peak_extra": pr.get("op_peak_extra")}
            rows.append(row)

    def row_of(op, dims, n):
        for r in rows:
            if r["op"] == op and r["dims"] == dims and r["nnz"] == n:
                return r
        return None

    big = int(max(nnz_override)) if nnz_override else 10**6 if args.quick else 10**7
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
    tgt("to_dense [200]^3 1e6 vs torch >= 2x", "to_dense", 3, big if nnz_override else 10**6, "torch", 2)
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
              "nnz_override": nnz_override, "spt_py": args.spt_py, "big": big,
              "bandwidth": {"gbps_used": gbps, "runs": bw}, "records": records, "rows": rows,
              "targets": targets, "reorder_memory": mem}
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


def table_md(res, nth):
    m = res["machine"]
    out = ["# spt benchmarks against the peers (`make bench`)", ""]
    out.append("Machine: %s, %s CPUs, %s GiB, Linux %s; %s; %s; load average at start %s. Run %s UTC, %.0f s." % (
        m.get("cpu"), m.get("cpus"), m.get("mem_gib"), m.get("kernel"), m.get("cc"),
        ", ".join("%s %s" % kv for kv in sorted(m.get("versions", {}).items())), m.get("loadavg_at_start"),
        m.get("date_utc"), res["elapsed_s"]))
    bw = res["bandwidth"]
    out.append("")
    mb = bw["runs"][0]["nnz"] if bw["runs"] else 1 << 30  # bench_core reports the copied bytes as "nnz"
    out.append("Bandwidth bound: one-thread memcpy of %s counted as twice that moved, best of start/end of the run: "
               "**%.2f GB/s** (%s)." % ("1 GiB" if mb == 1 << 30 else "%d MiB" % (mb >> 20), bw["gbps_used"] or 0,
                                        ", ".join("%.2f" % b["gbps"] for b in bw["runs"])))
    out.append("")
    out.append("Medians of %s runs after one warm-up. spt columns: time (x the bound). Peer columns: time (x = peer / "
               "spt with %d threads: how many times faster spt is). torch runs with %d threads; pydata/sparse and "
               "scipy are single-threaded. scipy runs the 2-D form ([1e6,1e6]; to_dense [40000,200]); torch_sorted is "
               "`cat().coalesce()`." % (res.get("reps", 5), nth, nth))
    rows = res["rows"]
    py1 = any(r.get("spt_py_1") for r in rows)
    pyn = any(r.get("spt_py_all") for r in rows)
    if pyn:
        out.append("")
        out.append("spt_py: the same calls through spt's Python package (python/spt, ctypes over build/libspt.so) with %d "
                   "threads: time (x = spt_py / spt C with the same threads: the Python overhead). In the peer columns "
                   "`py x` = peer / spt_py. spt_py's reorder is `spt.reorder(t)`, which returns a new sorted tensor (the "
                   "input is never modified; C spt_reordered); the in-place C reorder through the binding is listed "
                   "below the table."
                   % nth)
        if m.get("spt_py_lib_fresh") is False:
            out.append("")
            out.append("**Warning: spt_py ran on a build/libspt.so older than the libspt.a bench_core links; its "
                       "figures may not be the same code.**")
    out.append("")
    head = ["op", "dims", "nnz", "bound", "spt 1 thr", "spt %d thr" % nth]
    if py1:
        head.append("spt_py 1 thr")
    if pyn:
        head.append("spt_py %d thr" % nth)
    head += ["torch", "torch_sorted", "pydata", "scipy"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        def sp(v):
            if v is None:
                return "-"
            return "%s (x%.1f)" % (fmt_t(v), v / r["bound_s"]) if r["bound_s"] else fmt_t(v)

        def py(v, ratio):
            if v is None:
                return "-"
            return "%s (x%.*f)" % (fmt_t(v), 2 if ratio >= 0.1 else 3, ratio) if ratio else fmt_t(v)

        line = [TITLES.get(r["op"], r["op"]), "%d" % r["dims"], "%.0e" % r["nnz"], fmt_t(r["bound_s"]),
                sp(r["spt_1"]), sp(r["spt_all"])]
        if py1:
            line.append(py(r.get("spt_py_1"), r.get("py_1_over_c")))
        if pyn:
            line.append(py(r.get("spt_py_all"), r.get("py_over_c")))
        for peer in ("torch", "torch_sorted", "pydata", "scipy"):
            p = r["peers"].get(peer)
            if not p or not p["ratio_to_spt"]:
                line.append("-")
            elif p.get("ratio_to_spt_py"):
                line.append("%s (x%.1f, py x%.1f)" % (fmt_t(p["median"]), p["ratio_to_spt"], p["ratio_to_spt_py"]))
            else:
                line.append("%s (x%.1f)" % (fmt_t(p["median"]), p["ratio_to_spt"]))
        out.append("| " + " | ".join(line) + " |")
    inpl = [r for r in rows if r.get("spt_py_inplace")]
    if inpl:
        out.append("")
        out.append("spt_py reorder in place (the C spt_reorder on a per-run clone through the ctypes binding, exactly "
                   "bench_core's timed work), %d threads: " % nth + ", ".join(
                       "%d-D %.0e %s (x%.2f of C)" % (r["dims"], r["nnz"], fmt_t(r["spt_py_inplace"]),
                                                      r["py_inplace_over_c"] or 0) for r in inpl) + ".")
    floors = [r for r in rows if r.get("copy_floor")]
    if floors:
        out.append("")
        out.append("Copy floor of add (`bench_core copyfloor`: both inputs memcpy'd into a freshly allocated output of "
                   "the same size, huge pages advised as spt does, %d threads; what any add that writes a fresh output "
                   "pays at least): " % nth + ", ".join(
                       "%d-D %.0e %s (spt add = x%.2f of it)" % (r["dims"], r["nnz"], fmt_t(r["copy_floor"]),
                                                                (r["spt_all"] or 0) / r["copy_floor"]) for r in floors)
                   + ".")
    out.append("")
    if res.get("nnz_override"):
        at = "%.0e (--nnz)" % res["big"]
    else:
        at = "1e6 (QUICK)" if res["quick"] else "1e7"
    out.append("## Targets (issue 8), nnz %s" % at)
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
    return "\n".join(out)


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
    impls += [("torch", "torch", "#ee4c2c"), ("torch_sorted", "torch cat+coalesce", "#fdae6b"),
              ("pydata", "pydata/sparse", "#31a354"), ("scipy", "scipy (2-D)", "#756bb1"),
              ("bound", "bandwidth bound", "#bbbbbb")]
    fig, ax = plt.subplots(figsize=(max(10, 1.3 * len(sel)), 6))
    w = 0.8 / len(impls)
    for k, (key, label, color) in enumerate(impls):
        xs, ys = [], []
        for i, r in enumerate(sel):
            if key in ("spt_1", "spt_all", "spt_py_1", "spt_py_all"):
                v = r.get(key)
            elif key == "bound":
                v = r["bound_s"]
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
