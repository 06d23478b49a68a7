# SPDX-License-Identifier: Apache-2.0
"""src/ops/ops.def, the one list of spt's public functions, against every place it drives or that must
agree with it: include/spt.h, the op's source file and C test, the Python registry and wrappers, the `spt`
command table, the conformance and fuzz tables, the README's op tables. Each test names what is missing.

Adding an op touches, by hand: its C file (src/ops/<family>/), its contract in include/spt.h, its row in
src/ops/ops.def, its C test (tests/ops/<family>/test_<op>.c, which also holds its conformance handler when
the row says CONF), its vectors (tests/conformance/*.jsonl) and its Python module (python/spt/_<family>.py:
the registry entry and the wrapper). Everything else follows from the row: the command table, the
conformance dispatch, the Python run of the vectors (test_conformance.py's derived handler), the
TensorFlow differential spec (tests/tf/derive.py, for rows marked TF), the README's list of ops (make
readme-ops), the coverage checks below; test_adding_an_op_touches_at_most_six_files counts them."""
import os
import re
import sys

import pytest

import spt
from spt import _registry as R

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPS_DEF = os.path.join(ROOT, "src", "ops", "ops.def")
FAMILIES = ["core", "layout", "elementwise", "reduce", "products", "features", "serial", "grad", "tot", "io", "tfio"]
OP_FAMILIES = ["layout", "elementwise", "reduce", "products", "features", "serial", "grad"]  # src/ops/<family>

pytestmark = pytest.mark.skipif(not os.path.exists(OPS_DEF), reason="not in the repository (installed copy)")

sys.path.insert(0, os.path.join(ROOT, "tools"))
if os.path.exists(OPS_DEF):
    import oplist  # noqa: E402  (tools/oplist.py: the reader of ops.def and of the C tests' registrations)


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def _strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


ROWS = oplist.rows() if os.path.exists(OPS_DEF) else []
OPS = [r for r in ROWS if r.kind == "op"]
BY_FN = {r.fn: r for r in ROWS}


def _header_functions():
    from test_registry import prototypes

    return prototypes(_read("include", "spt.h"))


def test_each_function_once_and_families_in_order():
    names = [r.fn for r in ROWS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    fams = [r.family for r in ROWS]
    assert set(fams) <= set(FAMILIES)
    order = [f for i, f in enumerate(fams) if i == 0 or fams[i - 1] != f]
    assert order == [f for f in FAMILIES if f in fams], "a family is split or out of order: %s" % order


def test_the_list_is_the_header():
    header = set(_header_functions())
    listed = set(BY_FN)
    assert not header - listed, "public functions of include/spt.h missing from ops.def: %s" % sorted(header - listed)
    assert not listed - header, "ops.def rows that include/spt.h does not declare: %s" % sorted(listed - header)


def test_op_families_define_their_ops():
    """Every op of a src/ops family is defined in a .c file of that family's folder."""
    defined = {}
    for fam in OP_FAMILIES:
        folder = os.path.join(ROOT, "src", "ops", fam)
        for fn in sorted(os.listdir(folder)):
            if fn.endswith(".c"):
                for name in re.findall(r"^\w[\w ]*?\b(spt_\w+)\(", _strip_c_comments(_read("src", "ops", fam, fn)),
                                       re.M):
                    defined.setdefault(name, fam)
    for r in OPS:
        if r.family in OP_FAMILIES:
            assert defined.get(r.fn) == r.family, "%s (%s) is not defined in src/ops/%s/" % (r.fn, r.family, r.family)


def test_op_families_have_c_tests():
    text = {fam: "".join(_read("tests", "ops", fam, f) for f in os.listdir(os.path.join(ROOT, "tests", "ops", fam))
                         if f.endswith(".c"))
            for fam in OP_FAMILIES}
    missing = [r.fn for r in OPS if r.family in OP_FAMILIES and not re.search(r"\b%s\(" % r.fn, text[r.family])]
    assert not missing, "ops no test of tests/ops/<family>/ calls: %s" % missing


def test_registry_follows_the_list():
    for e in R.ENTRIES:
        assert e.name in BY_FN, "registry entry %s is not in ops.def" % e.name
        assert R.FAMILY_OF[e.name] == BY_FN[e.name].family, "%s: registry family %s, ops.def %s" % (
            e.name, R.FAMILY_OF[e.name], BY_FN[e.name].family)


def test_python_wrappers_follow_the_list():
    calls = {}  # C function -> {python name}
    for key, c_names in R.OP_C_NAMES.items():
        mod, name = key.rsplit(".", 1)
        for c in c_names:
            assert c in BY_FN, "spt.%s calls %s, which ops.def does not list" % (name, c)
            calls.setdefault(c, set()).add(name)
    for r in OPS:
        if r.python:
            assert hasattr(spt, r.python), "ops.def names spt.%s for %s; the package has none" % (r.python, r.fn)
            assert r.python in calls.get(r.fn, ()), "spt.%s does not call %s (ops.def)" % (r.python, r.fn)
            assert r.fn in R.BY_NAME
        else:
            assert r.fn not in calls, "%s is called by spt.%s; ops.def says no Python" % (r.fn, sorted(calls[r.fn]))
    # every public op of the package is the Python name of a row (aliases: the unary math on values)
    listed = {r.python for r in OPS if r.python}
    unary = set(spt._elementwise.UNARY)
    for name in spt.available_ops():
        if name in listed or name in unary or name in spt._export.exports("spt._interop"):
            continue
        fns = [c for key, cs in R.OP_C_NAMES.items() if key.endswith("." + name) for c in cs]
        assert fns and all(BY_FN[c].kind == "op" for c in fns[:1]), "spt.%s: no row of ops.def" % name


def test_commands_follow_the_list():
    defined = set()
    for fn in os.listdir(os.path.join(ROOT, "cli")):
        if fn.endswith(".c"):
            defined |= set(re.findall(r"^const cli_cmd cli_cmd_(\w+) =", _read("cli", fn), re.M))
    defined.discard("none")
    listed = [r.command for r in OPS if r.command]
    assert len(listed) == len(set(listed)), "a command listed twice"
    assert set(listed) == defined, "cli/ defines %s; ops.def lists %s" % (sorted(defined - set(listed)),
                                                                          sorted(set(listed) - defined))


def _table_ops(folder, macro):
    found = {}
    for fn in sorted(os.listdir(os.path.join(ROOT, folder))):
        if fn.endswith(".c"):
            for name in re.findall(r"\b%s\((spt_\w+)\)" % macro, _strip_c_comments(_read(folder, fn))):
                found.setdefault(name, set()).add(fn)
    return found


def _c_tests():
    return oplist.c_tests()


def _conformance_handlers():
    return oplist.conformance_handlers()


def _family_folder(path, family):
    parts = path.split(os.sep)
    return family in parts[1:-1] or (family == "core" and "sort" in parts[1:-1])


def test_conformance_handlers_follow_the_list():
    """Each op's conformance handlers live in one C test of its family (the one that tests the op)."""
    found = _conformance_handlers()
    assert not [f for f in os.listdir(os.path.join(ROOT, "tests", "conformance"))
                if f.endswith(".c") and re.search(r"\bCONF_OP\(", _strip_c_comments(_read("tests", "conformance", f)))], \
        "tests/conformance/*.c holds a handler: handlers live in the ops' C tests"
    for name, files in found.items():
        assert name in BY_FN, "tests/ registers a handler of %s, not in ops.def" % name
        assert len(files) == 1, "%s has handlers in %s" % (name, sorted(files))
        path = next(iter(files))
        assert _family_folder(path, BY_FN[name].family), "%s (%s) has its handler in %s" % (
            name, BY_FN[name].family, path)
        cmocka = _strip_c_comments(_read(path)).split("#ifndef SPT_CONFORMANCE", 1)[1].split("\n#else", 1)[0]
        assert re.search(r"\b%s\(" % name, cmocka), "%s: its handler's file %s does not test it" % (name, path)
    for r in OPS:
        assert ("CONF" in r.checks) == (r.fn in found), "%s: ops.def says %s, the C tests %s a handler" % (
            r.fn, "CONF" if "CONF" in r.checks else "no CONF", "have" if r.fn in found else "lack")


def test_fuzz_tables_follow_the_list():
    found = _table_ops("fuzz", "FZ_OP")
    for name in found:
        assert name in BY_FN, "fuzz/ names %s, not in ops.def" % name
    for r in OPS:
        assert ("FUZZ" in r.checks) == (r.fn in found), "%s: ops.def says %s, the fuzz action tables %s" % (
            r.fn, "FUZZ" if "FUZZ" in r.checks else "no FUZZ", "have it" if r.fn in found else "lack it")


def _readme_ops_section():
    text = _read("README.md")
    start = text.index("\n## Ops")
    end = text.index("\n## ", start + 5)
    return text[start:end]


def test_readme_op_tables_name_every_op():
    section = _readme_ops_section()
    tokens = set()
    for cell in re.findall(r"`([^`]+)`", section):
        for t in re.split(r"[ ,/()+]+", cell):
            tokens.add(t.strip(".").replace("spt_", "", 1))
    wild = [t[:-1] for t in tokens if t.endswith("*")]

    def named(name):
        return name in tokens or any(name.startswith(w) for w in wild)

    missing = [r.fn for r in OPS if not named(r.fn[4:])]
    assert not missing, "ops the README's op tables do not name: %s" % missing
    missing = sorted({r.python for r in OPS if r.python and not named(r.python)})
    assert not missing, "Python names the README's op tables do not name: %s" % missing
    missing = sorted({r.command.replace("_", "-") for r in OPS if r.command
                      if not named(r.command.replace("_", "-")) and not named(r.command)})
    assert not missing, "commands the README's op tables do not name: %s" % missing



def test_header_sections_follow_the_families():
    """include/spt.h declares the functions family by family, in the list's family order, one section each."""
    text = _strip_c_comments(_read("include", "spt.h"))
    seen = []
    for name in re.findall(r"\b(spt_\w+)\s*\(", text):
        if name in BY_FN and name not in seen:
            seen.append(name)
    fams = [BY_FN[n].family for n in seen]
    runs = [f for i, f in enumerate(fams) if i == 0 or fams[i - 1] != f]
    assert runs == [f for f in FAMILIES if f in fams], "include/spt.h's family order: %s" % runs
    titles = re.findall(r"^/\* ([A-Z][^*]*?)\s*\*/\n/\* -{20,}", _read("include", "spt.h"), re.M)
    assert not [t for t in titles if re.search(r"issue \d|wave|completion", t, re.I)], titles



# ---- adding an op touches at most six files ------------------------------------------------------------


def _defining_file(fn):
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src")):
        for f in files:
            if f.endswith(".c"):
                path = os.path.relpath(os.path.join(dirpath, f), ROOT)
                if re.search(r"^\w[\w \*]*?\b%s\([^;]*?\)\s*\{" % fn, _strip_c_comments(_read(path)), re.M):
                    return path
    return None


def _python_files(fn):
    """The package files that name fn in an Entry (the registry) and in an @op (the wrapper)."""
    out = set()
    folder = os.path.join(ROOT, "python", "spt")
    for dirpath, _, files in os.walk(folder):
        for f in files:
            if f.endswith(".py"):
                text = _read(os.path.relpath(os.path.join(dirpath, f), ROOT))
                if re.search(r'\bEntry\("%s"' % fn, text) or re.search(r'@op\([^)]*"%s"' % fn, text):
                    out.add(os.path.relpath(os.path.join(dirpath, f), ROOT))
    return out


def _vector_files():
    """vector op name -> the tests/conformance/*.jsonl files holding its vectors."""
    import json

    out = {}
    folder = os.path.join(ROOT, "tests", "conformance")
    for f in sorted(os.listdir(folder)):
        if f.endswith(".jsonl"):
            for line in _read("tests", "conformance", f).splitlines():
                if line.strip() and not line.startswith("#"):
                    j = json.loads(line)
                    out.setdefault(j.get("op") or j.get("kind"), set()).add(os.path.join("tests", "conformance", f))
    return out


RECIPE_LIMIT = 6


def _c_test_of(r, handlers):
    """The op's C test: the one holding its conformance handler, else tests/**/test_<op>.c, else the first C
    test of its family's folder that calls it (test_op_families_have_c_tests requires one)."""
    if r.fn in handlers:
        return next(iter(handlers[r.fn]))
    tests = _c_tests()
    named = [t for t in tests if os.path.basename(t) == "test_%s.c" % r.fn[4:]]
    calling = [t for t in tests if re.search(r"\b%s\(" % r.fn, _read(t))]
    return (named or [t for t in calling if _family_folder(t, r.family)] or calling or [None])[0]


def _python_tests_needed():
    """op -> {python/tests/test_conformance.py} for the ops with a Python function and vectors of which the
    derived handler runs none (test_conformance.derive_plan): their vectors reach Python only through a
    hand handler there. An op with a derived vector is tested from Python without one; hand handlers of
    its other vectors (older vectors in TensorFlow's raw-op form) are adapters of those vectors."""
    import test_conformance as TC

    derived, vectors = set(), {}
    for c in TC.CASES:
        for r in oplist.vector_ops().get(c["_op"], []):
            if r.python:
                vectors.setdefault(r.fn, []).append(c)
                if TC.derive_plan(c)[0] is not None:
                    derived.add(r.fn)
    return {fn: {"python/tests/test_conformance.py"} for fn in vectors if fn not in derived}


def _tf_spec_needed(r):
    """tests/tf/ops.py when the row says TF and tests/tf/derive.py cannot derive the op's spec on spt's side
    (a parameter of a kind it does not draw): its hand spec there is then needed, not an override."""
    if "TF" not in r.checks or not r.python:
        return set()
    sys.path.insert(0, os.path.join(ROOT, "tests", "tf"))
    import derive

    return set() if derive.spt_plan(r)[0] is not None else {"tests/tf/ops.py"}


def recipe_files(r, handlers, vectors, py_needed):
    """The files adding the op r touches by hand, found the way the checks find them."""
    files = {"include/spt.h", "src/ops/ops.def"}
    src = _defining_file(r.fn)
    assert src, "%s: no source file of src/ defines it" % r.fn
    files.add(src)
    test = _c_test_of(r, handlers)
    assert test, "%s: no C test calls it" % r.fn
    files.add(test)
    if r.fn in handlers:
        data = set()
        for vec in handlers[r.fn][test]:
            data |= vectors.get(vec, set())
        assert all(os.path.dirname(d) == os.path.join("tests", "conformance") for d in data), data
        files.add("tests/conformance/*.jsonl")
    py = _python_files(r.fn)
    if r.python:
        assert len(py) == 1, "%s: its registry entry and wrapper are in %s, not one family module" % (r.fn, sorted(py))
    files |= py
    files |= py_needed.get(r.fn, set())
    files |= _tf_spec_needed(r)
    return files


def test_adding_an_op_touches_at_most_six_files():
    """The files of an op that CONTRIBUTING.md's recipe writes by hand, found the way the checks find
    them: the source defining it, include/spt.h, its row in ops.def, its C test (holding its conformance
    handler when it has vectors), its vectors, the Python module holding both its registry entry and its
    wrapper; and the tests the Python layer and TensorFlow need of it when they cannot be derived from the
    row: a hand handler in python/tests/test_conformance.py for vectors the derived handler cannot run, a
    hand spec in tests/tf/ops.py for an op marked TF whose spec tests/tf/derive.py cannot draw. A hand
    handler or spec for an op the derivations serve is an override (test_conformance.py's
    test_derived_handler_agrees and make test-tf check that the derived ones pass too) and is not counted.
    At most RECIPE_LIMIT per op, every op of the list included, the vectors counting as one: a new op appends its vectors to one file of
    tests/conformance/ (tf_ops.jsonl for TensorFlow's cases), although older ops have cases in several of
    them (TensorFlow's tests, the bad-input catalogues). README.md's list of ops is generated from the row
    (make readme-ops) and CHANGELOG.md is written once per change, not per op; a fuzz action or a
    command, when the op has one, adds its harness or cmd_<name>.c."""
    handlers = _conformance_handlers()
    vectors = _vector_files()
    py_needed = _python_tests_needed()
    too_many = {}
    for r in OPS:
        files = recipe_files(r, handlers, vectors, py_needed)
        if len(files) > RECIPE_LIMIT:
            too_many[r.fn] = sorted(files)
    assert not too_many, "ops whose recipe files number more than %d: %s" % (RECIPE_LIMIT, too_many)


def test_readme_list_of_ops_is_generated():
    """README.md's list of ops is tools/oplist.py's table of ops.def (make readme-ops writes it)."""
    text = _read("README.md")
    assert oplist.readme_with_table(text) == text, "README.md's list of ops is stale: run make readme-ops"
