#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""make bench-curves: the cost curves. Every op at 1e5, 1e6, 1e7 and 1e8 entries (--sizes), each (op, peer,
size) in its own process, recording time (first call, warm median, worst repetition), minor page faults per
call and peak memory over the process's baseline (bench/curve_point.py; spt's C program through
bench_core); the results checked equal to spt's; one PNG per op (time and peak memory against entries,
log-log, every peer); a table flagging growth faster than n log n and peak memory over 2x input+output.

    curves.py [--sizes 1e5,1e6,1e7,1e8] [--ops OP,...] [--peers P,...] [--reps 5] [--out DIR]
              [--venv DIR] [--tf-venv DIR] [--budget-gb 16] [--leave-gb 8] [--min-avail-gb 14]
              [--point-budget-s 600] [--replot]

Before each point above the smallest size the driver estimates the process's peak RSS from the
previous size (its peak at the smallest size plus the growth since, scaled linearly in n) and its
time (the previous point's wall time scaled by n log n); it skips the point, with the reason recorded,
when the memory estimate exceeds --budget-gb or the memory available now less --leave-gb, when less
than --min-avail-gb is available for a point of 1e8 entries or more, or when the time estimate exceeds
--point-budget-s. --replot redraws the plots and the table from DIR/curves.json without running.
"""
import argparse
import datetime
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"
sys.path.insert(0, HERE)
import run  # noqa: E402  (bench/run.py: the peers' environment, the load average)
from run import loadavg  # noqa: E402

# op -> the peers that run it. "spt" is the C program (bench_core, the ops it has), the rest curve_point.py.
OPS = {
    "reorder": ["spt", "spt_py", "torch", "scipy_nd", "pydata", "tf"],
    "reduce_axis1": ["spt", "spt_py", "torch", "scipy_nd", "pydata", "tf"],
    "reduce_all": ["spt", "spt_py", "torch", "scipy_nd", "pydata", "tf"],
    "concat1": ["spt", "spt_py", "torch_sorted", "pydata", "tf"],
    "add": ["spt", "spt_py", "torch", "scipy_nd", "pydata", "tf"],
    "transpose": ["spt_py", "torch", "scipy_nd", "tf"],
    "to_dense_n": ["spt_py", "torch", "scipy_nd", "pydata", "tf"],
    "spmm": ["spt", "spt_py", "torch", "torch_csr", "scipy_nd", "pydata", "tf"],
    "spgemm": ["spt_py", "torch", "torch_csr", "scipy_nd", "pydata"],
}
LABEL = {"spt": "spt (C, bench_core)", "spt_py": "spt (Python)", "torch": "torch COO", "torch_sorted":
         "torch cat+coalesce", "torch_csr": "torch CSR", "scipy_nd": "scipy (coo_array / csr_array)",
         "pydata": "pydata/sparse", "tf": "TensorFlow"}
COLOR = {"spt": "#08519c", "spt_py": "#6baed6", "torch": "#ee4c2c", "torch_sorted": "#ee4c2c",
         "torch_csr": "#a50f15", "scipy_nd": "#756bb1", "pydata": "#31a354", "tf": "#ff7f00"}
TITLE = {"reorder": "reorder: unsorted COO [1000]^3, ~0.5% duplicates", "reduce_axis1": "reduce_sum axis 1, [1000]^3",
         "reduce_all": "reduce_sum all axes, [1000]^3", "concat1": "concat axis 1 of two [1000]^3, sorted out",
         "add": "add of two sorted [1000]^3", "transpose": "transpose (2,0,1) of [1000]^3, sorted out",
         "to_dense_n": "to_dense, cube of ~8n cells", "spmm": "spmm [1e5,1e5] x dense [1e5,32]",
         "spgemm": "spgemm [n/4,n/4] x [n/4,n/4], 4 a row"}
DIMS = {"spmm": 2, "spgemm": 2}


def avail_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def peer_env():
    env = run.peer_env()
    env.setdefault("SPT_LIB", os.path.join(ROOT, "build", "libspt.so"))
    return env


def run_point(cmd, timeout, env):
    recs, rc, err, wall = run.run_records(cmd, timeout, env)
    if rc != 0:
        sys.stderr.write("curves: %s exited %s: %s\n" % (" ".join(cmd[1:6]), rc, err.strip()[-400:]))
    if not recs:
        recs = [{"status": "error", "error": ("exit %s: " % rc) + err.strip()[-300:]}]
    for r in recs:
        r["wall_s"] = wall
        if rc < 0:
            r["status"], r["error"] = "error", ("killed (%s)" % rc) + (": " + err.strip()[-200:] if err else "")
    return recs[0]


def c_point(bench_core, op, n, reps, nth, env, timeout):
    """spt's C program for the ops bench_core has (its record converted to curve_point's fields)."""
    r = run_point([bench_core, op, str(DIMS.get(op, 3)), str(nth), "%d" % n, str(reps)], timeout, env)
    if r.get("status") == "ok":
        t = r.get("times") or []
        r["peak_over_base"] = r.get("op_peak_extra")  # VmHWM over the RSS before each call, the largest
        r["proc_maxrss"] = r.get("peak_rss")
        r["reps"] = len(t)
    r["impl"], r["op"], r["nnz"] = "spt", op, n
    return r


def estimate(prev, n):
    """(peak RSS bytes, seconds) of a point of n entries, extrapolated linearly from the same peer's two
    largest smaller points (the fixed part, the imports and the interpreter, cancels; the time's slope is
    scaled by log n as well). With fewer than two points: no estimate (the smallest sizes are cheap)."""
    if len(prev) < 2:
        return None, None
    a, b = prev[-2], prev[-1]
    ma, mb = a.get("proc_maxrss") or 0, b.get("proc_maxrss") or 0
    mem = mb + max(mb - ma, 0) * (n - b["nnz"]) / (b["nnz"] - a["nnz"])
    wa, wb = a.get("wall_s", 0), b.get("wall_s", 0)
    sec = wb + max(wb - wa, 0) * (n - b["nnz"]) / (b["nnz"] - a["nnz"]) * math.log(n) / math.log(b["nnz"])
    return mem, sec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e5,1e6,1e7,1e8")
    ap.add_argument("--ops", default="")
    ap.add_argument("--peers", default="")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "curves"))
    ap.add_argument("--venv", default=os.path.join(ROOT, "build", "bench-venv"))
    ap.add_argument("--tf-venv", default="", help="TensorFlow's venv when the bench venv has none")
    ap.add_argument("--bench-core", default=os.path.join(ROOT, "build", "bench", "bench_core"))
    ap.add_argument("--budget-gb", type=float, default=16.0)
    ap.add_argument("--leave-gb", type=float, default=8.0)
    ap.add_argument("--min-avail-gb", type=float, default=14.0)
    ap.add_argument("--point-budget-s", type=float, default=600.0)
    ap.add_argument("--label", default="", help="a line on the load or the run, printed in the table")
    ap.add_argument("--replot", action="store_true")
    ap.add_argument("--merge", default="", help="add another run's curves.json points missing here, then replot")
    ap.add_argument("--resume", action="store_true", help="keep the points DIR/curves.json has measured")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "curves.json")
    if args.replot or args.merge:
        with open(path) as f:
            res = json.load(f)
        if args.merge:  # another run's points (e.g. the 1e8 ones, run apart) replace those not measured here
            with open(args.merge) as f:
                other = json.load(f)
            have = {(p["op"], p["impl"], p["nnz"]) for p in res["points"] if p.get("status") == "ok"}
            add = [p for p in other["points"] if p.get("status") in ("ok", "skipped")
                   and (p["op"], p["impl"], p["nnz"]) not in have]
            keys = {(p["op"], p["impl"], p["nnz"]) for p in add}
            res["points"] = [p for p in res["points"] if (p["op"], p["impl"], p["nnz"]) not in keys] + add
            res.setdefault("merged", []).append({"from": args.merge, "points": len(add),
                                                 "machine": other.get("machine"), "label": other.get("label"),
                                                 "held": other.get("merged", []), "warmup": other.get("warmup")})
        report(res, args.out)
        return
    sizes = [int(float(x)) for x in args.sizes.split(",") if x]
    ops = [o for o in OPS if not args.ops or o in args.ops.split(",")]
    want = set(x for x in args.peers.split(",") if x)
    nth = os.cpu_count() or 1
    env = peer_env()
    venv_py = os.path.join(os.path.abspath(args.venv), "bin", "python")
    tf_py = os.path.join(os.path.abspath(args.tf_venv), "bin", "python") if args.tf_venv else venv_py
    interp = {"spt_py": PY}
    for p in ("torch", "torch_sorted", "torch_csr", "scipy_nd", "pydata"):
        interp[p] = venv_py if os.path.exists(venv_py) else None
    interp["tf"] = tf_py if os.path.exists(tf_py) else None
    res = {"machine": machine(), "sizes": sizes, "reps": args.reps, "threads": nth, "label": args.label,
           "warmup": "calls until 0.2 s",
           "budget_gb": args.budget_gb, "leave_gb": args.leave_gb, "points": [], "loads": []}
    resumed = {}
    if args.resume and os.path.exists(path):
        with open(path) as f:
            for p in json.load(f).get("points", []):
                if p.get("status") == "ok":
                    resumed[(p["op"], p["impl"], p["nnz"])] = p
    t_start = time.time()
    for op in ops:
        res["loads"].append({"op": op, "loadavg": loadavg()})
        for peer in OPS[op]:
            if want and peer not in want:
                continue
            done = []
            for n in sizes:
                old = resumed.get((op, peer, n))
                if old is not None:  # --resume: the point measured by an earlier run into the same DIR
                    res["points"].append(old)
                    done.append(old)
                    continue
                mem, sec = estimate(done, n)
                av = avail_bytes()
                why = None
                if peer != "spt" and interp.get(peer) is None:
                    why = "not installed (no interpreter for %s)" % peer
                elif mem is not None and mem > args.budget_gb * 1e9:
                    why = "estimated peak RSS %.1f GB > the %.0f GB budget" % (mem / 1e9, args.budget_gb)
                elif mem is not None and mem > av - args.leave_gb * 1e9:
                    why = "estimated peak RSS %.1f GB > %.1f GB available less %.0f GB left to others" % (
                        mem / 1e9, av / 1e9, args.leave_gb)
                elif n >= 10**8 and av < args.min_avail_gb * 1e9:
                    why = "%.1f GB available < %.0f GB" % (av / 1e9, args.min_avail_gb)
                elif sec is not None and sec > args.point_budget_s:
                    why = "estimated %.0f s > the %.0f s budget of a point" % (sec, args.point_budget_s)
                if why:
                    rec = {"impl": peer, "op": op, "nnz": n, "status": "skipped", "reason": why}
                    sys.stderr.write("curves: %s %s %.0e skipped: %s\n" % (op, peer, n, why))
                else:
                    timeout = max(300, int(3 * (sec or 100)) + 120)
                    if peer == "spt":
                        rec = c_point(args.bench_core, op, n, args.reps, nth, env, timeout)
                    else:
                        pname = "torch" if peer == "torch_sorted" else peer
                        pop = "concat1_sorted" if peer == "torch_sorted" else op
                        cmd = [interp[peer], os.path.join(HERE, "curve_point.py"), pname, pop, "%d" % n,
                               str(args.reps), "--threads", str(nth), "--budget-s", str(args.point_budget_s / 2)]
                        rec = run_point(cmd, timeout, env)
                        rec["impl"], rec["op"], rec["nnz"] = peer, op, n
                    rec["est_mem"], rec["est_s"], rec["avail_before"] = mem, sec, av
                    rec["loadavg"] = loadavg()
                    sys.stderr.write("curves: %-12s %-12s %.0e %s median %s peak %s (%.0f s)\n" % (
                        op, peer, n, rec.get("status"), rec.get("median"), rec.get("peak_over_base"),
                        rec.get("wall_s", 0)))
                    if rec.get("status") == "ok":
                        done.append(rec)
                res["points"].append(rec)
                res["elapsed_s"] = time.time() - t_start
                with open(path, "w") as f:
                    json.dump(res, f, indent=1)
    res["loads"].append({"op": "end", "loadavg": loadavg()})
    res["elapsed_s"] = time.time() - t_start
    with open(path, "w") as f:
        json.dump(res, f, indent=1)
    report(res, args.out)


def machine():
    m = {"date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(),
         "loadavg_at_start": loadavg()}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                m["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    m["mem_total_gb"] = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9, 1)
    return m


# ---------------------------------------------------------------------------------------- the report


def fmt_t(s):
    if s is None:
        return "-"
    return "%.2f s" % s if s >= 1 else "%.1f ms" % (s * 1e3) if s >= 1e-3 else "%.0f µs" % (s * 1e6)


def fmt_b(b):
    if b is None:
        return "-"
    return "%.2f GB" % (b / 1e9) if abs(b) >= 1e9 else "%.1f MB" % (b / 1e6)


def checks(pts):
    """Each peer's digest against spt's (spt_py) at the same (op, size): equal entries, sums within 1e-8."""
    ref = {(p["op"], p["nnz"]): p["check"] for p in pts if p["impl"] == "spt_py" and p.get("check")}
    for p in pts:
        c, r = p.get("check"), ref.get((p["op"], p["nnz"]))
        if not c or not r or p["impl"] == "spt_py":
            continue
        ok = all(abs(c[k] - r[k]) <= 1e-8 * max(abs(r[k]), 1e-300) for k in ("sum", "wsum"))
        if ok and p["op"] == "reorder" and c["entries"] < r["entries"]:
            p["equal_to_spt"] = "sums"  # the peer sums the duplicates; TensorFlow's reorder (and spt's) keeps them
            continue
        if c["kind"] == r["kind"]:
            ok = ok and c["entries"] == r["entries"]
        p["equal_to_spt"] = ok


def out_bytes(pts, op, n):
    """The output's bytes, from spt's digest (or any peer's) at that size."""
    for impl in ("spt_py",) + tuple(LABEL):
        for p in pts:
            if p["impl"] == impl and p["op"] == op and p["nnz"] == n and p.get("check"):
                return p["check"]["bytes"]
    return None


def flags(pts):
    """Per point: grows faster than n log n from the previous size (time ratio over (n2 log n2)/(n1 log n1),
    flagged above 1.3), and peak memory input + peak_over_base over 2 x (input + output)."""
    by = {}
    for p in pts:
        if p.get("status") == "ok":
            by.setdefault((p["op"], p["impl"]), []).append(p)
    for (op, impl), lst in by.items():
        lst.sort(key=lambda p: p["nnz"])
        for a, b in zip(lst, lst[1:]):
            nlogn = b["nnz"] * math.log(b["nnz"]) / (a["nnz"] * math.log(a["nnz"]))
            b["growth_over_nlogn"] = (b["median"] / a["median"]) / nlogn if a["median"] else None
            if a.get("cpu_median") and b.get("cpu_median"):  # the same on CPU time (the loaded machine's measure)
                b["cpu_growth_over_nlogn"] = (b["cpu_median"] / a["cpu_median"]) / nlogn
        for p in lst:
            ob = out_bytes(pts, op, p["nnz"])
            ib = p.get("input_bytes")
            if ob is not None and ib and p.get("peak_over_base") is not None:
                p["output_bytes"] = ob
                p["mem_over_2io"] = (ib + p["peak_over_base"]) / (2.0 * (ib + ob))


def report(res, outdir):
    pts = res["points"]
    checks(pts)
    flags(pts)
    with open(os.path.join(outdir, "curves.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = table(res)
    with open(os.path.join(outdir, "curves.md"), "w") as f:
        f.write(md)
    try:
        plots(res, outdir)
    except ImportError:  # no matplotlib in this interpreter: the bench venv's draws them
        venv_py = os.path.join(ROOT, "build", "bench-venv", "bin", "python")
        if os.path.exists(venv_py) and os.path.realpath(sys.executable) != os.path.realpath(venv_py):
            subprocess.run([venv_py, os.path.abspath(__file__), "--replot", "--out", outdir])
        else:
            sys.stderr.write("curves: no matplotlib: no plots\n")


def table(res):
    m = res["machine"]
    o = ["# Cost curves: time and peak memory from 1e5 to 1e8 entries (`make bench-curves`)", ""]
    o.append("Machine: %s, %s CPUs, %s GB; run %s UTC, %.0f s; load average at the start %s, before each op: %s." % (
        m.get("cpu"), m.get("cpus"), m.get("mem_total_gb"), m.get("date_utc"), res.get("elapsed_s", 0),
        m.get("loadavg_at_start"), "; ".join("%s %s" % (x["op"], x["loadavg"]) for x in res.get("loads", []))))
    if res.get("label"):
        o += ["", "**%s**" % res["label"]]
    for mg in res.get("merged", []):
        o += ["", "Merged: %d points from another run (%s UTC, load %s: %s)." % (
            mg["points"], (mg.get("machine") or {}).get("date_utc"), (mg.get("machine") or {}).get("loadavg_at_start"),
            mg.get("label") or "")]
        if not mg.get("warmup"):  # a run before curve_point.py's warm-up
            o[-1] += " Its points were warmed up by the first call alone (the rule before 2026-11-29 20:00 UTC)."
        for h in mg.get("held", []):  # that run's own merges: its points came from these runs too
            o[-1] += " Its file held %d points merged from a run of %s UTC (load %s: %s)." % (
                h["points"], (h.get("machine") or {}).get("date_utc"), (h.get("machine") or {}).get("loadavg_at_start"),
                h.get("label") or "")
    o += ["", "Each (op, peer, size) ran in its own process with %d threads: the first call and more "
          "warm-up calls until they had taken 0.2 s (at most 200 in all; as run.py's), then %d more "
          "(median, worst/median); CPU median: the process's CPU seconds per call, every thread, spin-waiting "
          "included (on a loaded machine the fairer time); minflt: minor page faults per call (median of the repeated calls; first "
          "call apart); peak: VmHWM over the RSS after the imports and the inputs were built (curve_point.py; "
          "for spt (C) bench_core's largest VmHWM over the RSS before a call); mem/2(in+out): (input + peak) "
          "over twice input plus output, flagged above 1; growth: the time ratio to the previous size over "
          "n log n's, flagged above 1.3, wall / CPU; equal: the output's entries and sums against spt's (Python) "
          "(reorder: torch, SciPy and pydata sum the ~0.5%% duplicates, TensorFlow and spt keep them)."
          % (res.get("threads", 2), res.get("reps", 5)), ""]
    o.append("| op | peer | nnz | first | median | CPU median | worst/median | minflt first / call | peak over base | "
             "mem/2(in+out) | growth / nlogn | equal | note |")
    o.append("|" + "---|" * 13)
    for op in OPS:
        for p in [p for p in res["points"] if p["op"] == op]:
            if p.get("status") != "ok":
                o.append("| %s | %s | %.0e | | | | | | | | | | %s |" % (op, LABEL.get(p["impl"], p["impl"]), p["nnz"],
                                                               p.get("status", "") + ": " + (p.get("reason") or
                                                                                             p.get("error", ""))[:120]))
                continue
            fl = p.get("minflt") or []
            mf = sorted(fl)[len(fl) // 2] if fl else None
            g, gc, mm = p.get("growth_over_nlogn"), p.get("cpu_growth_over_nlogn"), p.get("mem_over_2io")
            o.append("| %s | %s | %.0e | %s | %s | %s | %.2f%s | %s / %s | %s | %s | %s | %s | |" % (
                op, LABEL.get(p["impl"], p["impl"]), p["nnz"], fmt_t(p.get("first")), fmt_t(p["median"]),
                fmt_t(p.get("cpu_median")),
                p["max"] / p["median"] if p["median"] else 0, " **>1.5**" if p["median"] and p["max"] > 1.5 * p["median"]
                else "", p.get("first_minflt", "-"), mf if mf is not None else "-", fmt_b(p.get("peak_over_base")),
                ("%.2f%s" % (mm, " **>1**" if mm > 1 else "")) if mm is not None else "-",
                (("%.2f%s" % (g, " **>1.3**" if g > 1.3 else "")) if g is not None else "-") + " / " +
                (("%.2f%s" % (gc, " **>1.3**" if gc > 1.3 else "")) if gc is not None else "-"),
                {True: "yes", False: "**NO**", "sums": "sums (duplicates summed)"}.get(p.get("equal_to_spt"), "-")))
    o.append("")
    o.append("Plots (time and peak memory against entries, log-log): " + ", ".join(
        "[%s](%s.png)" % (op, op) for op in OPS if any(p["op"] == op for p in res["points"])) + ".")
    o.append("")
    return "\n".join(o)


def plots(res, outdir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for op in OPS:
        pts = [p for p in res["points"] if p["op"] == op]
        if not pts:
            continue
        fig, (ax1, ax3, ax2) = plt.subplots(1, 3, figsize=(17, 5))
        for impl in OPS[op]:
            ok = sorted([p for p in pts if p["impl"] == impl and p.get("status") == "ok"], key=lambda p: p["nnz"])
            if not ok:
                continue
            style = "-" if impl.startswith("spt") else "--"
            lw = 2.4 if impl.startswith("spt") else 1.4
            xs = [p["nnz"] for p in ok]
            ax1.plot(xs, [p["median"] for p in ok], style, marker="o", lw=lw, color=COLOR.get(impl), label=LABEL[impl])
            cpu = [(p["nnz"], p["cpu_median"]) for p in ok if p.get("cpu_median")]
            if cpu:
                ax3.plot([x for x, _ in cpu], [y for _, y in cpu], style, marker="o", lw=lw, color=COLOR.get(impl),
                         label=LABEL[impl])
            mem = [(p["nnz"], p["peak_over_base"]) for p in ok if p.get("peak_over_base") and p["peak_over_base"] > 0]
            if mem:
                ax2.plot([x for x, _ in mem], [y / 1e6 for _, y in mem], style, marker="o", lw=lw,
                         color=COLOR.get(impl), label=LABEL[impl])
            skipped = [p for p in pts if p["impl"] == impl and p.get("status") == "skipped"]
            for p in skipped:
                ax1.plot([p["nnz"]], [ok[-1]["median"]], marker="x", color=COLOR.get(impl), ms=8, lw=0)
        io = [(p["nnz"], 2 * (p["input_bytes"] + p["output_bytes"])) for p in pts
              if p["impl"] == "spt_py" and p.get("output_bytes") is not None and p.get("input_bytes")]
        if io:
            ax2.plot([x for x, _ in io], [y / 1e6 for _, y in io], ":", color="#888888", label="2 x (input + output)")
        ns = sorted({p["nnz"] for p in pts})
        ok_all = [p for p in pts if p.get("status") == "ok" and p["impl"].startswith("spt")]
        if ok_all and len(ns) > 1:
            p0 = min(ok_all, key=lambda p: p["nnz"])
            ax1.plot(ns, [p0["median"] * (n * math.log(n)) / (p0["nnz"] * math.log(p0["nnz"])) for n in ns], ":",
                     color="#888888", label="n log n from spt's first point")
        for ax, yl in ((ax1, "median wall time per call, s"), (ax3, "median CPU time per call, s (every thread)"),
                       (ax2, "peak memory over the baseline, MB")):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("entries (nnz per input)")
            ax.set_ylabel(yl)
            ax.grid(which="both", alpha=0.3)
        ax1.legend(fontsize=7)
        ax3.legend(fontsize=7)
        ax2.legend(fontsize=7)
        label = res.get("label") or ""
        fig.suptitle("%s (%s, %s CPUs, %s UTC; x: not run at that size)%s" % (
            TITLE.get(op, op), res["machine"].get("cpu"), res["machine"].get("cpus"), res["machine"].get("date_utc"),
            "\n" + (label if len(label) < 150 else label[:147] + "...") if label else ""), fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "%s.png" % op), dpi=90)
        plt.close(fig)


if __name__ == "__main__":
    main()
