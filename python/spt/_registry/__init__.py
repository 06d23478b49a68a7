# SPDX-License-Identifier: Apache-2.0
"""The op registry: the one description of every C function the Python package calls.

The entries are kept per family, mirroring src/: each family module of the package (_layout.py,
_elementwise.py, _reduce.py, _products.py, _features.py, _serial.py, _grad.py for src/ops/<family>,
_tot.py for src/tot, _io.py for src/io, _tfio.py for src/tf) declares, above its wrappers, a list ENTRIES
of Entry written in the kinds of kinds.py and hands it to register(family, ENTRIES). Only the core
family's entries (src/core, src/sort: the handles, accessors and free functions every module and this
generator need before any op module is imported) stay here, in core.py. This module joins them and holds
the one code generator.

Each entry names a C function of include/spt.h, its return kind and, for every argument in the C order, a
kind: a tensor / dense / domain / sparse-map / ToT / iterator handle (in), an owned output (out), an
integer with its C type and range, an enum, a bool, a double, a path, a byte buffer, an int64 array (with
the number of entries C reads from it), a pointer to one value of a tensor's dtype, or a struct. From that
description this module generates, once at import:

  * the ctypes declaration (argtypes / restype) of the C function, and
  * a Python function C.<name> that converts and checks every argument (integers against the C type's
    range and the declared range, bools, doubles, paths without NUL, arrays integral and long enough,
    values exact in the tensor's dtype), calls the C function, raises the spt exception for a non-OK
    status, and returns the outputs already owned by Python objects (SparseTensor, numpy array, Domain,
    SparseMap, ToT). Output parameters are not arguments of the generated function; counts declared as
    the length of an array (len_of) are computed from that array.

python/tests/test_registry.py parses include/spt.h and fails when a prototype and its entry disagree, and checks
every integer argument of every entry against out-of-range values.

Adding an op costs one entry and a small wrapper. For a C function

    spt_status spt_foo(const spt_tensor *t, int64_t axis, const int64_t *perm, bool flag, spt_tensor **out);

the entry (in the ENTRIES list of its family's module, e.g. _layout.py, beside the wrapper) is

    Entry("spt_foo", STATUS, handle("sp_input", T), i64("axis"), i64in("perm", n="sp_input.rank", nullable=True),
          boolean("flag"), out("out", T)),

and the wrapper (in the module of its family, e.g. _layout.py) is

    @op("spt_foo")
    def foo(sp_input, axis, perm=None, flag=False, name=None):
        # docstring: what it does, in TF's words
        return C.spt_foo(sp_input, axis, perm, flag)

C.spt_foo(sp_input, axis, perm, flag) checks axis against int64_t, flag is a bool, perm integral with
rank entries, sp_input a SparseTensor (or a triple), calls the C function, raises the spt exception of a
failed status and returns the output as a SparseTensor.
"""
import ctypes
import functools
import keyword

from .. import _lib as L
from .._export import public
from .kinds import *  # noqa: F401,F403  (the kinds, Entry and the return kinds, for the family modules and tests)
from .kinds import _HANDLE_C  # noqa: F401  (the C spelling of each handle kind; read by the tests)
from . import core

# Filled by register(): family -> its entries; every entry; entry by C name; family by C name.
FAMILIES = {}
ENTRIES = []
BY_NAME = {}
FAMILY_OF = {}

# ---------------------------------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------------------------------

# What the generated code refers to: the converters of _lib and the Python classes of the handle kinds,
# which their modules register with provide() when they are imported. Every generated function has this
# dict as its globals, so it sees them at call time.
NS = {"_vp": ctypes.c_void_p, "_byref": ctypes.byref, "_L": L, "_int": L.int_arg, "_bool": L.bool_arg,
      "_double": L.double_arg, "_path": L.path_arg, "_text": L.text_arg, "_bytes": L.bytes_arg,
      "_i64in": L.i64_arg, "_i64out": L.i64_out_arg, "_boolin": L.bool_array_arg, "_range": L.range_error,
      "_len": L.length_error, "_addr": L.addr, "_struct": L.struct_arg, "_n": L.count_of}
_COERCE = {}


def provide(kind, pycls, wrap, coerce=None):
    """Register the Python class of a handle kind, the function that takes ownership of a C output of that
    kind, and (optionally) the function that turns another argument into that class (e.g. a numpy array
    into a Dense, a (indices, values, shape) triple into a SparseTensor)."""
    NS["_C_" + kind] = pycls
    NS["_W_" + kind] = wrap
    if coerce is not None:
        _COERCE[kind] = coerce


def handle_arg(x, kind, arg, op, nullable):
    """The object of handle kind `kind` behind an argument (its class, a subclass or something its
    coercer accepts); None only when the argument may be NULL."""
    if x is None:
        if nullable:
            return None
        raise L.InvalidArgumentError("spt.%s: %s must not be None" % (op, arg))
    cls = NS.get("_C_" + kind)
    if cls is not None and isinstance(x, cls):
        return x
    co = _COERCE.get(kind)
    if co is not None:
        return co(x, arg, op)
    raise L.DtypeError("spt.%s: %s must be a %s, got %s" % (op, arg, cls.__name__ if cls else kind,
                                                             type(x).__name__))


def handles_arg(xs, kind, arg, op):
    """A list of handle objects and the C array of their handles."""
    if xs is None:
        raise L.InvalidArgumentError("spt.%s: %s must not be None" % (op, arg))
    objs = [handle_arg(x, kind, arg, op, False) for x in xs]
    return objs, (ctypes.c_void_p * max(1, len(objs)))(*[o.h for o in objs])


def value_arg(x, owner, arg, op):
    if x is None:
        return None, None
    return L.scalar_value(x, owner.dtype, arg, op)


def wrap_out(wrap, h, op):
    """The Python object of a C output h (None for NULL); a result numpy cannot hold is an spt error naming
    op (the handle is freed by the object wrap made)."""
    if not h:
        return None
    try:
        return wrap(h)
    except L.SptError as e:
        if getattr(e, "numpy_detail", None):
            raise L.renamed(e, op) from None
        raise


NS.update({"_handle": handle_arg, "_handles": handles_arg, "_value": value_arg, "_wrap_out": wrap_out})


def _ident(name):
    return name + "_" if keyword.iskeyword(name) else name


def _range_check(a, v, py):
    return ("if not %d <= %s <= %d: raise _range(%s, %r, %r, %r, %d, %d, %d, %d)"
            % (a.lo, v, a.hi, v, a.name, py, a.c, a.clo, a.chi, a.lo, a.hi))


def _generate(entry):
    """The Python source of the binding of one entry."""
    name, py = entry.name, entry.py
    params = [_ident(a.name) for a in entry.params()]
    scalars, convs, derived, checks, call, outs = [], [], [], [], [], []
    for a in entry.args:
        v = _ident(a.name)
        role = a.role
        if role in ("int", "enum"):
            if a.len_of:  # a count: the length of an array argument
                derived.append("%s = _n(%s)" % (v, _ident(a.len_of)))
                if a.hi < (1 << 62):  # a length always fits int64_t and size_t; a narrower type is checked
                    derived.append(_range_check(a, v, py))
            else:
                scalars.append("if type(%s) is not int: %s = _int(%s, %r, %r)" % (v, v, v, a.name, py))
                scalars.append(_range_check(a, v, py))
            call.append(v)
        elif role == "bool":
            scalars.append("if %s is not True and %s is not False: %s = _bool(%s, %r, %r)" % (v, v, v, v, a.name, py))
            call.append(v)
        elif role == "double":
            scalars.append("if type(%s) is not float: %s = _double(%s, %r, %r)" % (v, v, v, a.name, py))
            call.append(v)
        elif role == "handle":
            convs.append("if type(%s) is not _C_%s: %s = _handle(%s, %r, %r, %r, %r)"
                         % (v, a.cls, v, v, a.cls, a.name, py, a.nullable))
            call.append("%s.h" % v if not a.nullable else "(None if %s is None else %s.h)" % (v, v))
        elif role == "handles":
            convs.append("%s, %s_arr = _handles(%s, %r, %r, %r)" % (v, v, v, a.cls, a.name, py))
            call.append("%s_arr" % v)
        elif role in ("i64in", "i64out", "boolin"):
            conv = {"i64in": "_i64in", "i64out": "_i64out", "boolin": "_boolin"}[role]
            convs.append("%s = %s(%s, %r, %r, %r)" % (v, conv, v, a.name, py, a.nullable))
            if a.n is not None:
                cmp = "!=" if role != "i64out" else "<"
                checks.append("if %s is not None and %s.size %s %s: raise _len(%s, %s, %r, %r, %r)"
                              % (v, v, cmp, a.n, v, a.n, a.name, py, role == "i64out"))
            call.append("_addr(%s)" % v)
        elif role == "value":
            convs.append("%s_keep, %s_ptr = _value(%s, %s, %r, %r)" % (v, v, v, _ident(a.like), a.name, py))
            call.append("%s_ptr" % v)
        elif role == "buffer":
            call.append("_addr(%s)" % v)
        elif role in ("path", "text", "bytes"):
            convs.append("%s = _%s(%s, %r, %r)" % (v, role, v, a.name, py))
            call.append(v)
        elif role == "struct":
            convs.append("%s = _struct(%s, %r, %r, %r)" % (v, v, a.name, py, a.nullable))
            call.append(v)
        elif role == "null":
            call.append("None")
        elif role == "out":
            convs.append("%s = _vp()" % v)
            call.append("_byref(%s)" % v)
            outs.append(v)
        else:  # pragma: no cover - a new role needs code here
            raise AssertionError("registry: unknown role %r" % role)
    body = scalars + convs + derived + checks
    body.append("_r = _f_%s(%s)" % (name, ", ".join(call)))
    if entry.ret[2] == "status":
        # an output C filled is owned by Python at once (so a failure after it cannot leak it)
        for a in entry.args:
            if a.role == "out":
                v = _ident(a.name)
                body.append("%s = _wrap_out(_W_%s, %s.value, %r)" % (v, a.cls, v, py))
        body.append("if _r: raise _L.error_for(_r, %r)" % py)
        if len(outs) == 1:
            body.append("return %s" % outs[0])
        elif outs:
            body.append("return (%s)" % ", ".join(outs))
    else:
        body.append("return _r")
    return "def %s(%s):\n%s\n" % (name, ", ".join(params), "\n".join("    " + s for s in body))


class _Namespace:
    """C.<name>: the generated bindings; C.<name> raises NotImplementedError when this libspt lacks it."""


C = _Namespace()
AVAILABLE_C = set()
SOURCE = {}


def _missing(name, py):
    def f(*a, **k):
        raise NotImplementedError("spt.%s: this libspt lacks %s" % (py, name))

    f.__name__ = name
    return f


def signature(e):
    return "%s %s(%s)" % (e.ret[0], e.name, ", ".join("%s %s" % (a.c, a.name) for a in e.args))


def bind(entries):
    """Generate and bind C.<name> for each entry (the package's ENTRIES at import; spt.mpi binds the
    entries of the distributed layer, which only libspt_mpi.so has, itself)."""
    for e in entries:
        try:
            f = getattr(L.lib, e.name)
        except AttributeError:
            setattr(C, e.name, _missing(e.name, e.py))
            continue
        f.restype = e.ret[1]
        f.argtypes = [a.ctype for a in e.args]
        NS["_f_" + e.name] = f
        src = SOURCE[e.name] = _generate(e)
        exec(compile(src, "<spt registry: %s>" % e.name, "exec"), NS)  # noqa: S102 - generated from ENTRIES
        fn = NS.pop(e.name)
        fn.__doc__ = "Generated binding of %s." % signature(e)
        setattr(C, e.name, fn)
        AVAILABLE_C.add(e.name)


def has(name):
    return name in AVAILABLE_C


def raw(name):
    """The ctypes function of entry `name` as the registry declared it, without the generated checks: only
    for accessors called with a handle the package itself owns (hot paths such as building a view)."""
    return NS["_f_" + name]


def register(family, entries):
    """Add the entries of `family` (declared in the family's module, above the wrappers that call them) to
    the registry and bind C.<name> for each; returns them. A C function is registered by one family once."""
    for e in entries:
        if e.name in BY_NAME:
            raise AssertionError("registry: %s registered twice (%s, %s)" % (e.name, FAMILY_OF[e.name], family))
        BY_NAME[e.name] = e
        FAMILY_OF[e.name] = family
    FAMILIES.setdefault(family, []).extend(entries)
    ENTRIES.extend(entries)
    bind(entries)
    return entries


register("core", core.ENTRIES)


# ---------------------------------------------------------------------------------------------------
# Which Python ops this libspt supports
# ---------------------------------------------------------------------------------------------------

AVAILABLE = {}
ALL = []
OP_C_NAMES = {}  # "module.op" -> the C functions it calls (the family test reads it)
TF_FUNCTION = {}  # op -> TensorFlow's function where it is not tf.sparse.<op> (tests/tf/derive.py reads it)


def op(*c_names, tf=None):
    """Register a Python op that calls the C functions `c_names` and mark it public API of its module;
    when this libspt lacks one of them the op raises NotImplementedError (and spt.has_op(name) is False).
    tf: TensorFlow's function the op follows, as a path under `tf` ("nn.embedding_lookup_sparse",
    "raw_ops.SparseDenseCwiseMul"), when it is not tf.sparse.<the op's name>."""

    def deco(f):
        ALL.append(f.__name__)
        if tf is not None:
            TF_FUNCTION[f.__name__] = tf
        OP_C_NAMES["%s.%s" % (f.__module__, f.__name__)] = c_names
        public(f)
        missing = [n for n in c_names if n not in AVAILABLE_C]
        unknown = [n for n in c_names if n not in BY_NAME]
        if unknown:
            raise AssertionError("spt: op %s names C functions missing from the registry: %s" % (f.__name__, unknown))
        if not missing:
            @functools.wraps(f)
            def named(*a, **k):  # a result numpy cannot hold, met in the op's Python part, named after it
                try:
                    return f(*a, **k)
                except L.SptError as e:
                    if getattr(e, "numpy_detail", None) and not str(e).startswith("spt.%s:" % f.__name__):
                        raise L.renamed(e, f.__name__) from None
                    raise

            AVAILABLE[f.__name__] = named
            return named

        @functools.wraps(f)
        def unavailable(*a, **k):
            raise NotImplementedError("spt.%s: this libspt lacks %s" % (f.__name__, ", ".join(missing)))

        return unavailable

    return deco
