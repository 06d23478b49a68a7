#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check-src-shape.py -- the shape of src/: its include graph, where its files sit, how long its
functions and macros are.

  tools/check-src-shape.py              check; exit 1 on a violation (listed)
  tools/check-src-shape.py --functions [N]   list every function of N lines or more (default 80), longest first
  tools/check-src-shape.py --macros [N]      list every macro of N lines or more (default 10), longest first

Checks: (1) the graph of `#include "..."` among the files of src/ (a name is looked up beside the
including file, then under src/, then include/) has no cycle; (2) src/ops/ has no .c file at its top
level and every op file sits in a family folder src/ops/<family>/; (3) no file under a template/ folder is
a compiled source that does not say so (templates are #included, never compiled on their own: the
Makefile globs src/ops/*/*.c, which does not reach src/ops/<family>/template/); (4) src/ops/each_dtype.h
lists the dtypes of include/spt_dtypes.def, in order, with their C types and kinds; (5) no function over
MAX_FN lines and no macro over MAX_MACRO lines in src/, except in the folders listed in OWNED_ELSEWHERE.
Function extents come from Universal Ctags (`ctags --fields=+e`); a macro is a #define with its
continuation lines.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
MAX_FN = 120
MAX_MACRO = 15
OWNED_ELSEWHERE = ()  # every folder of src/ is held to the same limits

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rel(p):
    return os.path.relpath(p, ROOT)


def src_files():
    out = []
    for d, _, names in os.walk(SRC):
        for n in names:
            if n.endswith((".c", ".h")):
                out.append(os.path.join(d, n))
    return sorted(out)


def resolve(inc, frm):
    for base in (os.path.dirname(frm), SRC, os.path.join(ROOT, "include")):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(p):
            return p
    return None


def include_cycles(files):
    graph = {}
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        graph[f] = [p for p in (resolve(i, f) for i in INCLUDE.findall(text)) if p and p.startswith(SRC + os.sep)]
    cycles, state = [], {}

    def visit(n, stack):
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, []):
            if state.get(m) == 1:
                cycles.append(stack[stack.index(m):] + [m])
            elif not state.get(m):
                visit(m, stack)
        stack.pop()
        state[n] = 2

    for f in files:
        if not state.get(f):
            visit(f, [])
    return cycles


def functions(files):
    cfiles = [f for f in files if f.endswith(".c") or f.endswith(".h")]
    res = subprocess.run(["ctags", "-x", "--c-kinds=f", "--language-force=C", "--_xformat=%n %{end} %N %F"] + cfiles,
                         capture_output=True, text=True, check=True)
    out = []
    for line in res.stdout.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[1].isdigit():
            start, end = int(parts[0]), int(parts[1])
            out.append((end - start + 1, rel(parts[3]), start, parts[2]))
    return sorted(out, reverse=True)


def macros(files):
    out = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"\s*#\s*define\s+(\w+)", lines[i])
            if m:
                j = i
                while lines[j].rstrip().endswith("\\") and j + 1 < len(lines):
                    j += 1
                out.append((j - i + 1, rel(f), i + 1, m.group(1)))
                i = j
            i += 1
    return sorted(out, reverse=True)


def owned_here(path):
    return not path.startswith(OWNED_ELSEWHERE)


def main(argv):
    files = src_files()
    if len(argv) > 1 and argv[1] in ("--functions", "--macros"):
        n = int(argv[2]) if len(argv) > 2 else (80 if argv[1] == "--functions" else 10)
        rows = functions(files) if argv[1] == "--functions" else macros(files)
        for length, path, line, name in rows:
            if length >= n:
                print(f"{length:5d}  {path}:{line}  {name}")
        return 0
    bad = []
    for c in include_cycles(files):
        bad.append("include cycle: " + " -> ".join(rel(p) for p in c))
    ops = os.path.join(SRC, "ops")
    for n in sorted(os.listdir(ops)):
        if n.endswith(".c"):
            bad.append(f"src/ops/{n}: an op file outside a family folder")
    for f in files:
        parts = rel(f).split(os.sep)
        if "template" in parts[:-1] and not f.endswith(".c"):
            bad.append(f"{rel(f)}: a template folder holds only template .c files")
    with open(os.path.join(ROOT, "include", "spt_dtypes.def"), encoding="utf-8") as fh:
        want = [(e, t.strip(), k) for e, t, k in re.findall(r'^X\((\w+),\s*"[^"]*",\s*([^,]+?),\s*(\w+)\)', fh.read(), re.M)]
    each = os.path.join(SRC, "ops", "each_dtype.h")
    if os.path.isfile(each):
        with open(each, encoding="utf-8") as fh:
            text = fh.read()
        got = [(e, t.strip(), k) for k, e, t, k2 in re.findall(
            r"#if OK\((\w+)\)\n#define SPT__E (\w+)\n#define SPT__T ([^\n]+)\n#define SPT__KIND (\w+)\n", text) if k == k2]
        if got != want:
            bad.append("src/ops/each_dtype.h: its rows differ from include/spt_dtypes.def")
    for length, path, line, name in functions(files):
        if length > MAX_FN and owned_here(path):
            bad.append(f"{path}:{line}: function {name} is {length} lines (over {MAX_FN})")
    for length, path, line, name in macros(files):
        if length > MAX_MACRO and owned_here(path):
            bad.append(f"{path}:{line}: macro {name} is {length} lines (over {MAX_MACRO})")
    for b in bad:
        print(b)
    print(f"check-src-shape: {len(files)} files, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
