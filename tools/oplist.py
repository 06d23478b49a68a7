# SPDX-License-Identifier: Apache-2.0
"""oplist.py -- src/ops/ops.def and the conformance registrations of the C tests, read from Python.

The one reader of the list for the Python side of the checks: python/tests/test_oplist.py (the list against
every place it drives), python/tests/test_conformance.py (which Python function runs a vector) and
tests/tf/derive.py (which ops the TensorFlow differential test compares). It needs nothing but the
standard library and the source tree.

    rows()                 every row of ops.def, in order (Row: kind, family, fn, python, command, checks)
    conformance_handlers() op -> {C test -> [vector op names]} of every CONF_HANDLERS registration
    vector_ops()           vector op name -> the ops.def rows whose handlers take it
"""
import os
import re

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OPS_DEF = os.path.join(ROOT, "src", "ops", "ops.def")


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


class Row:
    """One row: kind "op" (SPT_OP) or "api" (SPT_API); checks is the set of CHECKS flags (CONF, FUZZ, TF)."""

    def __init__(self, kind, family, fn, python=None, command=None, checks=""):
        self.kind, self.family, self.fn, self.python = kind, family, fn, python
        self.command = None if command in (None, "none") else command
        self.checks = set(re.findall(r"[A-Z]+", checks or ""))

    def __repr__(self):
        return self.fn


def rows():
    out = []
    for line in strip_c_comments(read("src", "ops", "ops.def")).splitlines():
        line = line.strip()
        if not line:
            continue
        m = re.fullmatch(r'SPT_OP\((\w+), (spt_\w+), "(\w*)", (\w+), ([A-Z| 0]+)\)', line)
        if m:
            out.append(Row("op", m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)))
            continue
        m = re.fullmatch(r"SPT_API\((\w+), (spt_\w+)\)", line)
        assert m, "src/ops/ops.def: a line that is no row: %r" % line
        out.append(Row("api", m.group(1), m.group(2)))
    return out


def c_tests():
    """Every C test program: tests/<dir>/test_*.c and tests/<dir>/<family>/test_*.c (relative paths)."""
    out = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "tests")):
        out += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in files if f.startswith("test_") and f.endswith(".c")]
    return sorted(out)


def conformance_handlers():
    """op -> {test file -> [vector op names]} for every CONF_HANDLERS entry of the C tests."""
    found = {}
    for path in c_tests():
        text = strip_c_comments(read(path))
        for block in re.findall(r"\bCONF_HANDLERS\((.*?)\)\n#endif", text, re.S):
            for vec, fn in re.findall(r'\{"(\w+)", \w+, CONF_OP\((spt_\w+)\)\}', block):
                found.setdefault(fn, {}).setdefault(path, []).append(vec)
    return found


def vector_ops():
    """vector op name -> [Row] of the ops whose C handlers take it (ops.def order)."""
    by_fn = {r.fn: r for r in rows()}
    out = {}
    for fn, files in conformance_handlers().items():
        for vecs in files.values():
            for v in vecs:
                if fn in by_fn and by_fn[fn] not in out.setdefault(v, []):
                    out[v].append(by_fn[fn])
    return out


# ---- the README's generated list of ops ------------------------------------------------------------------

BEGIN = "<!-- the list of ops: generated from src/ops/ops.def by `make readme-ops` (tools/oplist.py); do not edit -->"
END = "<!-- end of the generated list of ops -->"


def readme_table():
    """The README's list of every op, one line per row of ops.def, in its order."""
    lines = [BEGIN, "", "| family | C (`spt_*`) | Python (`spt.*`) | `spt` command | checked by |", "| --- | --- | --- | --- | --- |"]
    names = {"CONF": "conformance vectors", "FUZZ": "fuzzing", "TF": "TensorFlow (`make test-tf`)"}
    for r in rows():
        if r.kind != "op":
            continue
        checks = ", ".join(names[c] for c in ("CONF", "FUZZ", "TF") if c in r.checks) or "its tests"
        lines.append("| %s | `%s` | %s | %s | %s |" % (r.family, r.fn[4:], "`%s`" % r.python if r.python else "—",
                                                       "`%s`" % r.command.replace("_", "-") if r.command else "—",
                                                       checks))
    return "\n".join(lines + ["", END])


def readme_with_table(text):
    """README.md's text with its generated list replaced by the current one."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + readme_table() + text[end:]


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] != ["--readme"] or len(sys.argv) != 3:
        sys.exit("usage: tools/oplist.py --readme README.md   (rewrites its generated list of ops)")
    with open(sys.argv[2], encoding="utf-8") as f:
        old = f.read()
    new = readme_with_table(old)
    if new != old:
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            f.write(new)
