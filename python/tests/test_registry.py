# SPDX-License-Identifier: Apache-2.0
"""The op registry against include/spt.h, and the boundary checks it generates for every entry."""
import ctypes
import os
import re

import numpy as np
import pytest

import spt
from spt import _registry as R
from spt._registry import mpi as R_MPI
from spt import _lib as L

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "spt.h")
PKG = os.path.join(os.path.dirname(__file__), "..", "spt")


def _norm(p, strip_name=True):
    toks = re.findall(r"\w+|\*", p)
    if strip_name and len(toks) > 1 and toks[-1] != "*" and toks[-1] not in ("int", "double", "bool", "char",
                                                                           "int64_t", "size_t"):
        toks = toks[:-1]
    return " ".join(toks)


def prototypes(text):
    """{name: (return type, [argument types])} of the function prototypes of a C header."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
    text = re.sub(r"\{[^{}]*\}", ";", text)
    out = {}
    for stmt in text.split(";"):
        s = " ".join(stmt.split())
        if not s or s.startswith("typedef") or "(" not in s:
            continue
        m = re.match(r"^(?:extern\s+)?(.*?)\b(spt_\w+)\s*\((.*)\)$", s)
        if not m:
            continue
        ret, name, params = m.groups()
        ps = [] if params.strip() in ("", "void") else [p.strip() for p in params.split(",")]
        out[name] = (_norm(ret, False), [_norm(p) for p in ps])
    return out


@pytest.fixture(scope="module")
def header():
    if not os.path.exists(HEADER):
        pytest.skip("include/spt.h is not next to this package (installed copy)")
    with open(HEADER) as f:
        return prototypes(f.read())


def test_parser_reads_the_header(header):
    assert header["spt_split"] == ("spt_status", ["const spt_tensor *", "int64_t", "int64_t", "spt_tensor * *"])
    assert header["spt_concat"][1][0] == "const spt_tensor * const *"
    assert len(header) > 100


@pytest.mark.parametrize("entry", R.ENTRIES, ids=lambda e: e.name)
def test_entry_matches_header(header, entry):
    assert entry.name in header, "%s is in the registry but not in include/spt.h" % entry.name
    ret, args = header[entry.name]
    assert _norm(entry.ret[0], False) == ret, "%s returns %s in the header, %s in the registry" % (
        entry.name, ret, entry.ret[0])
    assert len(entry.args) == len(args), "%s: %d arguments in the header, %d in the registry" % (
        entry.name, len(args), len(entry.args))
    for i, (a, c) in enumerate(zip(entry.args, args)):
        assert _norm(a.c, False) == c, "%s argument %d (%s): header %r, registry %r" % (entry.name, i, a.name, c, a.c)


_CTYPE_OF_C = {"int64_t": ctypes.c_int64, "int": ctypes.c_int, "size_t": ctypes.c_size_t, "bool": ctypes.c_bool,
               "double": ctypes.c_double, "spt_dtype": ctypes.c_int, "spt_format": ctypes.c_int,
               "spt_status": ctypes.c_int, "uint64_t": ctypes.c_uint64, "spt_unary_op": ctypes.c_int,
               "spt_binary_op": ctypes.c_int, "spt_combiner": ctypes.c_int, "spt_tfrecord_compression": ctypes.c_int}


@pytest.mark.parametrize("entry", R.ENTRIES, ids=lambda e: e.name)
def test_ctypes_declaration_follows_the_c_type(entry):
    for a in entry.args:
        if "*" in a.c or a.c.endswith("_fn"):
            assert a.ctype in (ctypes.c_void_p, ctypes.c_char_p) or issubclass(a.ctype, ctypes._Pointer), a.name
        else:
            assert a.ctype is _CTYPE_OF_C[a.c], (entry.name, a.name)
    if entry.name in R.AVAILABLE_C:
        f = getattr(spt._lib.lib, entry.name)
        assert f.argtypes == [a.ctype for a in entry.args]
        assert f.restype is entry.ret[1]


def _package_files():
    """The package's .py files, relative to it (the registry package included)."""
    for root, _, files in os.walk(PKG):
        for fn in sorted(files):
            if fn.endswith(".py"):
                yield os.path.relpath(os.path.join(root, fn), PKG)


def test_every_c_function_the_package_names_is_in_the_registry():
    used = set()
    for fn in _package_files():
        with open(os.path.join(PKG, fn)) as f:
            src = re.sub(r'^((?:#[^\n]*\n)*)""".*?"""', r"\1", f.read(), count=1, flags=re.S)  # the module docstring (after comments)
        used |= set(re.findall(r"\b(spt_[a-z0-9_]+)\b", src))
        if fn not in ("_lib.py", os.path.join("_registry", "__init__.py")):
            assert ".argtypes" not in src and ".restype" not in src and "CDLL" not in src, fn
    structs = {"spt_str", "spt_group", "spt_tot_inner", "spt_read_opts", "spt_dtype", "spt_format", "spt_status",
               "spt_tensor", "spt_dense", "spt_domain", "spt_sparse_map", "spt_tot", "spt_group_iter",
               "spt_release_fn", "spt_progress_fn", "spt_dtype_of", "spt_error", "spt_sparse_map_arg", "spt_dtypes",
               "spt_cross_input", "spt_unary_op", "spt_binary_op", "spt_combiner", "spt_dtensor", "spt_mpi_ctx",
               "spt_mpi_factors",
               "spt_feature", "spt_example_feature", "spt_example_key", "spt_tfrecord_compression",
               "spt_tfrecord_reader", "spt_tfrecord_writer"}
    structs |= {e.name for e in R_MPI.ENTRIES}  # the distributed layer's (bound by spt.mpi; test_mpi_registry.py)
    prefixes = ("spt_dense_", "spt_tensor_", "spt_sparse_map_", "spt_domain_", "spt_tot_")
    missing = sorted(n for n in used - structs if n not in R.BY_NAME and not n.endswith("_")
                     and not (n.startswith(prefixes) and n[:-1] in prefixes))
    assert not missing, "C names used by the package but absent from the registry: %s" % missing


def test_registry_names_are_unique_and_generated():
    names = [e.name for e in R.ENTRIES]
    assert len(names) == len(set(names))
    for n in R.AVAILABLE_C:
        assert "def %s(" % n in R.SOURCE[n]


def _int_params(entry):
    return [a for a in entry.params() if a.role in ("int", "enum")]


def _call(entry, **over):
    args = []
    for a in entry.params():
        if a.name in over:
            args.append(over[a.name])
        elif a.role in ("int", "enum"):
            args.append(max(a.lo, min(0, a.hi)))
        elif a.role == "bool":
            args.append(False)
        elif a.role == "double":
            args.append(0.0)
        else:
            args.append(None)
    return getattr(R.C, entry.name)(*args)


_INT_CASES = [(e, a) for e in R.ENTRIES if e.name in R.AVAILABLE_C for a in _int_params(e)]


@pytest.mark.parametrize("entry,arg", _INT_CASES, ids=lambda x: getattr(x, "name", None))
def test_every_integer_argument_is_range_checked(entry, arg):
    """Generated from the registry: each integer argument refuses values outside its C type (OverflowError)
    and outside its declared range (OutOfRangeError for an index, axis or id, else InvalidArgumentError), floats and bools (DtypeError), before C is called
    (every other pointer argument is None here: reaching C would be a NULL dereference)."""
    for bad in (arg.clo - 1, arg.chi + 1, 2 ** 64 + 3, -(2 ** 64) - 1):
        with pytest.raises(spt.OverflowError) as ei:
            _call(entry, **{arg.name: bad})
        assert arg.name in str(ei.value) and str(bad) in str(ei.value)
        with pytest.raises(spt.OverflowError):
            _call(entry, **{arg.name: np.array(bad, dtype=object)})
    if arg.lo > arg.clo:
        with pytest.raises(L.range_class(arg.name)) as ei:
            _call(entry, **{arg.name: arg.lo - 1})
        assert arg.name in str(ei.value) and type(ei.value) is L.range_class(arg.name)
    if arg.hi < arg.chi:
        with pytest.raises(L.range_class(arg.name)) as ei:
            _call(entry, **{arg.name: arg.hi + 1})
        assert type(ei.value) is L.range_class(arg.name)
    for bad in (1.0, 1.5, True, "1", float("nan")):
        with pytest.raises(spt.DtypeError):
            _call(entry, **{arg.name: bad})
    with pytest.raises(spt.InvalidArgumentError):
        _call(entry, **{arg.name: np.array([1, 2])})


_BOOL_CASES = [(e, a) for e in R.ENTRIES if e.name in R.AVAILABLE_C for a in e.params() if a.role == "bool"]


@pytest.mark.parametrize("entry,arg", _BOOL_CASES, ids=lambda x: getattr(x, "name", None))
def test_every_bool_argument_is_checked(entry, arg):
    for bad in (2, -1, "yes", np.array([True, False]), 0.5):
        with pytest.raises(spt.InvalidArgumentError) as ei:
            _call(entry, **{arg.name: bad})
        assert arg.name in str(ei.value)


_DOUBLE_CASES = [(e, a) for e in R.ENTRIES if e.name in R.AVAILABLE_C for a in e.params() if a.role == "double"]


@pytest.mark.parametrize("entry,arg", _DOUBLE_CASES, ids=lambda x: getattr(x, "name", None))
def test_every_double_argument_is_checked(entry, arg):
    for bad in (np.array([0.0, 0.0]), 1j, "0", None):
        with pytest.raises(spt.InvalidArgumentError) as ei:
            _call(entry, **{arg.name: bad})
        assert arg.name in str(ei.value)


def test_a_missing_c_function_makes_the_op_unavailable(monkeypatch):
    f = R._missing("spt_nothing", "nothing")
    with pytest.raises(NotImplementedError, match="spt_nothing"):
        f()


def structs(text):
    """{name: [(C type, field name)]} of the `typedef struct name {...} name;` definitions of a header."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    out = {}
    for name, body in re.findall(r"typedef struct (\w+)\s*\{(.*?)\}\s*\w+\s*;", text, flags=re.S):
        fields = []
        for f in body.split(";"):
            toks = re.findall(r"\w+|\*", f)
            if toks:
                fields.append((" ".join(toks[:-1]), toks[-1]))
        out[name] = fields
    return out


_SIZE_OF_C = {"bool": 1, "int64_t": 8, "spt_dtype": 4, "int": 4}


@pytest.mark.parametrize("struct", [spt._lib.spt_str, spt._lib.spt_group, spt._lib.spt_tot_inner,
                                    spt._lib.spt_read_opts, spt._lib.spt_cross_input], ids=lambda s: s.__name__)
def test_structs_match_header(struct):
    if not os.path.exists(HEADER):
        pytest.skip("no include/spt.h")
    with open(HEADER) as f:
        fields = structs(f.read())[struct.__name__]
    assert [n for _, n in fields] == [n for n, _ in struct._fields_]
    for (ctype, name), (_, pytype) in zip(fields, struct._fields_):
        size = ctypes.sizeof(ctypes.c_void_p) if "*" in ctype else _SIZE_OF_C[ctype]
        assert ctypes.sizeof(pytype) == size, (struct.__name__, name)


try:
    from hypothesis import given, settings, strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:
    @pytest.mark.parametrize("entry,arg", _INT_CASES, ids=lambda x: getattr(x, "name", None))
    @settings(max_examples=15, deadline=None, derandomize=True)
    @given(data=st.data())
    def test_random_out_of_range_integers_are_refused(entry, arg, data):
        """Property: any int outside the argument's declared range is refused with OverflowError (outside
        the C type) or, inside it, OutOfRangeError / InvalidArgumentError (_lib.range_class), whatever its size."""
        v = data.draw(st.one_of(st.integers(max_value=arg.lo - 1), st.integers(min_value=arg.hi + 1),
                                st.integers(min_value=2 ** 64, max_value=2 ** 200)))
        v = -v if v >= 2 ** 64 and data.draw(st.booleans()) else v
        with pytest.raises((spt.OverflowError, spt.InvalidArgumentError)) as ei:
            _call(entry, **{arg.name: v})
        want = spt.OverflowError if not arg.clo <= v <= arg.chi else L.range_class(arg.name)
        assert type(ei.value) is want and arg.name in str(ei.value)


_HANDLE_CASES = [(e, a) for e in R.ENTRIES if e.name in R.AVAILABLE_C for a in e.params()
                 if a.role in ("handle", "handles") and not a.nullable]


def _empty_file():
    import tempfile
    fd, p = tempfile.mkstemp(suffix=".tfrecord")
    os.close(fd)
    return p


def _good(a):
    """A value of kind `a` the conversion accepts (C is never reached: the tested argument fails first)."""
    if a.role == "handle":
        return {"tensor": lambda: spt.SparseTensor([[0]], [1.0], [1]),
                "dense": lambda: np.zeros(1), "dense_obj": lambda: spt._dense.Dense.from_numpy(np.zeros(1)),
                "domain": lambda: spt.Domain([(0,)]), "smap": lambda: spt.SparseMap({(0,): [(0,)]}),
                "tot": lambda: spt.ToT.from_dict({(0,): np.ones(1)}, [1]),
                "iter": lambda: spt.group(spt.SparseTensor([[0]], [1.0], [1], order=[0]), [0])._it,
                "recreader": lambda: spt._registry.C.spt_tfrecord_reader_open(_empty_file(), 0),
                "recwriter": lambda: spt._registry.C.spt_tfrecord_writer_open(_empty_file(), 0)}[a.cls]()
    if a.role == "handles":
        return [np.zeros((1, 1))] if a.cls == "dense" else [spt.SparseTensor([[0]], [1.0], [1])]
    if a.role in ("i64in", "i64out"):
        return np.zeros(0, np.int64)
    if a.role == "boolin":
        return np.zeros(0, bool)
    if a.role in ("path", "text", "bytes"):
        return "x"
    if a.role == "struct":
        return a.struct()
    return None


@pytest.mark.parametrize("entry,arg", _HANDLE_CASES, ids=lambda x: getattr(x, "name", None))
def test_every_handle_argument_refuses_none_and_foreign_objects(entry, arg):
    """Generated from the registry: a handle argument that is None or an object of another kind is an spt
    error naming the argument, raised before C is called."""
    good = {a.name: _good(a) for a in entry.params() if a.role not in ("int", "enum", "bool", "double")}
    good[arg.name] = None
    with pytest.raises(spt.InvalidArgumentError) as ei:
        _call(entry, **good)
    assert arg.name in str(ei.value)
    good[arg.name] = object() if arg.role == "handle" else [object()]
    with pytest.raises(spt.SptError):
        _call(entry, **good)


def test_every_output_kind_has_its_release_function_in_the_registry():
    kinds = {a.cls for e in R.ENTRIES for a in e.args if a.role == "out"}
    for k in kinds:
        assert k in R.FREE and R.FREE[k] in R.BY_NAME, k
        e = R.BY_NAME[R.FREE[k]]
        assert e.ret[0] == "void" and len(e.args) == 1 and e.args[0].c.rstrip(" *") in R._HANDLE_C[k]
