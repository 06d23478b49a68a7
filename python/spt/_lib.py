"""Loading libspt and the low-level ctypes layer: handles, errors, dtypes, dense arrays.

Nothing here computes an op; it only moves pointers and checks statuses.
"""
import builtins
import ctypes
import ctypes.util
import os

import numpy as np

# --------------------------------------------------------------------------------------------------
# Finding the library
# --------------------------------------------------------------------------------------------------


def _candidates():
    env = os.environ.get("SPT_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libspt.so")  # a copy next to the package
    try:  # written by `make install`
        from . import _install_config  # type: ignore

        yield _install_config.LIB
    except ImportError:
        pass
    # the repository layout: python/spt/ -> build/libspt.so
    yield os.path.normpath(os.path.join(here, "..", "..", "build", "libspt.so"))
    found = ctypes.util.find_library("spt")
    if found:
        yield found
    yield "/usr/local/lib/libspt.so"
    yield "/usr/lib/libspt.so"


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            if path == os.environ.get("SPT_LIB"):
                raise ImportError("spt: cannot load $SPT_LIB=%s: %s" % (path, e)) from None
            tried.append("%s (%s)" % (path, e))
    raise ImportError("spt: cannot find libspt.so (set SPT_LIB, or run `make` in the repository); tried: "
                      + ", ".join(tried))


lib, lib_path = _load()

c_int64_p = ctypes.POINTER(ctypes.c_int64)
vp = ctypes.c_void_p
vpp = ctypes.POINTER(ctypes.c_void_p)
i64 = ctypes.c_int64
cbool = ctypes.c_bool
cint = ctypes.c_int


class spt_str(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_int64)]


class spt_group(ctypes.Structure):
    _fields_ = [("key", c_int64_p), ("start", ctypes.c_int64), ("count", ctypes.c_int64),
                ("indices", c_int64_p), ("values", ctypes.c_void_p)]


def fn(name, restype, *argtypes):
    """Declare and return lib.<name>, or None when this build of libspt lacks it."""
    try:
        f = getattr(lib, name)
    except AttributeError:
        return None
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


def has(name):
    try:
        getattr(lib, name)
        return True
    except AttributeError:
        return False


# --------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------

_last_error = fn("spt_last_error", ctypes.c_char_p)
_clear_error = fn("spt_clear_error", None)
_status_name = fn("spt_status_name", ctypes.c_char_p, cint)


class SptError(Exception):
    """Base class of every error raised by the C library; `.status` is the spt_status value and
    `.message` the library's message (spt_last_error())."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


class InvalidArgumentError(SptError, ValueError):
    """SPT_EINVAL: a malformed argument (shape, rank, length, count)."""


class OutOfRangeError(SptError, IndexError):
    """SPT_ERANGE: an index, axis or id outside its range."""


class OverflowError(SptError, builtins.OverflowError):  # noqa: A001 - deliberately the TF-style name
    """SPT_EOVERFLOW: a size or count that does not fit in int64 / size_t."""


class FailedPreconditionError(SptError, RuntimeError):
    """SPT_EPRECONDITION: an order precondition does not hold (IndicesValid or group without order)."""


class DtypeError(SptError, TypeError):
    """SPT_EDTYPE: the dtype is mismatched or not supported by the op."""


class OutOfMemoryError(SptError, MemoryError):
    """SPT_ENOMEM: an allocation failed."""


class IOError(SptError, builtins.OSError):  # noqa: A001
    """SPT_EIO: a file could not be read or written."""


class ParseError(SptError, ValueError):
    """SPT_EPARSE: a file or text is malformed."""


class InternalError(SptError, RuntimeError):
    """SPT_EINTERNAL: an internal invariant failed (a bug in spt)."""


_ERRORS = {-1: OutOfMemoryError, -2: InvalidArgumentError, -3: OutOfRangeError, -4: OverflowError,
           -5: FailedPreconditionError, -6: DtypeError, -7: IOError, -8: ParseError, -9: InternalError}


def error_for(status):
    msg = _last_error().decode("utf-8", "replace")
    name = _status_name(status).decode()
    cls = _ERRORS.get(status, InternalError)
    return cls(msg or name, status)


def check(status):
    if status != 0:
        raise error_for(status)


# --------------------------------------------------------------------------------------------------
# Dtypes (the order of include/spt_dtypes.def)
# --------------------------------------------------------------------------------------------------

DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float32", "float64", "complex64", "complex128", "string"]
SPT_BOOL, SPT_INT64, SPT_FLOAT64, SPT_STRING = 0, 4, 10, 13
NP_OF = [np.dtype(n) for n in DTYPE_NAMES[:-1]] + [np.dtype(object)]
_SPT_OF = {d: i for i, d in enumerate(NP_OF[:-1])}

_dtype_name = fn("spt_dtype_name", ctypes.c_char_p, cint)
for _i, _n in enumerate(DTYPE_NAMES):  # the enum must agree with the library
    if _dtype_name(_i).decode() != _n:
        raise ImportError("spt: libspt dtype %d is %r, expected %r" % (_i, _dtype_name(_i), _n))


def is_string_dtype(dt):
    return dt.kind in "OSU"


def spt_dtype_of(np_dtype):
    """The spt dtype of a numpy dtype (object / bytes / str arrays are strings)."""
    dt = np.dtype(np_dtype)
    if is_string_dtype(dt):
        return SPT_STRING
    dt = dt.newbyteorder("=") if dt.byteorder not in "=|" else dt
    try:
        return _SPT_OF[dt]
    except KeyError:
        raise DtypeError("spt: numpy dtype %s has no spt dtype" % dt) from None


def as_dtype(dtype):
    """A numpy dtype from a numpy dtype, a type or a name ('string' / 'str' / 'bytes' -> object)."""
    if isinstance(dtype, str) and dtype in ("string", "str", "bytes"):
        return np.dtype(object)
    return np.dtype(dtype)


# --------------------------------------------------------------------------------------------------
# Zero-copy views
# --------------------------------------------------------------------------------------------------


class _View:
    """An __array_interface__ over foreign memory that keeps its owner alive (the numpy array's base)."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner, addr, shape, dtype, readonly=True):
        self.owner = owner
        self.__array_interface__ = {"shape": tuple(shape), "typestr": dtype.str, "data": (addr, readonly),
                                    "version": 3}


def view(owner, addr, shape, dtype, readonly=True):
    dtype = np.dtype(dtype)
    n = 1
    for s in shape:
        n *= s
    if not addr or n == 0:
        a = np.empty(shape, dtype)
        a.flags.writeable = not readonly
        return a
    return np.asarray(_View(owner, addr, shape, dtype, readonly))


def strings_from(addr, n):
    """Copy n spt_str values at addr into a numpy object array of bytes."""
    out = np.empty(n, dtype=object)
    if n == 0:
        return out
    arr = (spt_str * n).from_address(addr)
    string_at = ctypes.string_at
    for i in range(n):
        s = arr[i]
        out[i] = string_at(s.data, s.len) if s.len else b""
    return out


def to_bytes(v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytearray, memoryview, np.bytes_)):
        return bytes(v)
    if isinstance(v, np.str_):
        return str(v).encode("utf-8")
    raise DtypeError("spt: a string value must be bytes or str, got %s" % type(v).__name__)


class StrArray:
    """An spt_str array over a list of bytes objects (kept alive by this object)."""

    def __init__(self, values):
        vals = [to_bytes(v) for v in np.asarray(values, dtype=object).reshape(-1)]
        self.blob = ctypes.create_string_buffer(b"".join(vals), max(1, sum(len(v) for v in vals)))
        n = len(vals)
        self.arr = (spt_str * max(n, 1))()
        base = ctypes.addressof(self.blob)
        off = 0
        for i, v in enumerate(vals):
            self.arr[i].data = base + off
            self.arr[i].len = len(v)
            off += len(v)
        self.n = n

    @property
    def ptr(self):
        return ctypes.cast(self.arr, vp)


def contig(a, dtype=None):
    """`a` as a C-contiguous array of `dtype` (rank kept, 0-d included); copies only when needed."""
    a = np.asarray(a, dtype=dtype)
    if not a.flags.c_contiguous or not a.dtype.isnative:
        a = np.array(a, dtype=a.dtype.newbyteorder("=") if not a.dtype.isnative else a.dtype, order="C")
    return a


def ptr_of(a):
    """The data address of a numpy array (None for an empty one)."""
    return a.ctypes.data if a.size else None


def i64_array(x, name="argument"):
    """A C-contiguous int64 numpy array (copies only when needed); raises DtypeError for non-integers."""
    a = np.asarray(x)
    if a.dtype.kind not in "iu" and not (a.size == 0 and a.dtype.kind in "fbO"):
        raise DtypeError("spt: %s must be integers, got dtype %s" % (name, a.dtype))
    if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
        raise builtins.OverflowError("spt: %s holds a value above INT64_MAX" % name)
    return contig(a, np.int64)


def i64_ptr(a):
    return ctypes.cast(a.ctypes.data, c_int64_p) if a is not None and a.size else None


# --------------------------------------------------------------------------------------------------
# Dense arrays (spt_dense)
# --------------------------------------------------------------------------------------------------

dense_wrap = fn("spt_dense_wrap", cint, cint, i64, c_int64_p, vp, vp, vp, vpp)
dense_new_from = fn("spt_dense_new_from", cint, cint, i64, c_int64_p, vp, vpp)
dense_free = fn("spt_dense_free", None, vp)
dense_dtype = fn("spt_dense_dtype", cint, vp)
dense_rank = fn("spt_dense_rank", i64, vp)
dense_shape = fn("spt_dense_shape", c_int64_p, vp)
dense_size = fn("spt_dense_size", i64, vp)
dense_data = fn("spt_dense_data", vp, vp)


class Dense:
    """An spt_dense handle. Either borrowed over a numpy array (`from_numpy`, the array is kept alive)
    or owned (returned by an op; freed with the object)."""

    __slots__ = ("h", "keep", "__weakref__")

    def __init__(self, h, keep=None):
        self.h = h
        self.keep = keep

    def __del__(self):
        h, self.h = self.h, None
        if h and dense_free is not None:
            dense_free(h)

    @classmethod
    def from_numpy(cls, a, dtype=None):
        a = np.asarray(a, dtype=dtype) if dtype is not None else np.asarray(a)
        if a.dtype.kind in "OSU":
            sa = StrArray(a)
            shape = np.asarray(a.shape, dtype=np.int64)
            out = vp()
            check(dense_new_from(SPT_STRING, a.ndim, i64_ptr(shape), sa.ptr, ctypes.byref(out)))
            return cls(out.value)
        dt = spt_dtype_of(a.dtype)
        a = contig(a, NP_OF[dt])
        shape = np.asarray(a.shape, dtype=np.int64)
        out = vp()
        check(dense_wrap(dt, a.ndim, i64_ptr(shape), ptr_of(a), None, None, ctypes.byref(out)))
        return cls(out.value, a)

    @classmethod
    def claimed(cls, dtype, shape):
        """A dense array that claims `shape` over no buffer (only for size-check tests)."""
        shape = np.asarray(shape, dtype=np.int64)
        out = vp()
        check(dense_wrap(spt_dtype_of(as_dtype(dtype)) if not isinstance(dtype, int) else dtype,
                         len(shape), i64_ptr(shape), None, None, None, ctypes.byref(out)))
        return cls(out.value)

    def numpy(self, copy=False, readonly=True):
        """A numpy array over the C buffer (keeps this object alive); strings are copied."""
        h = self.h
        dt = dense_dtype(h)
        r = dense_rank(h)
        sp = dense_shape(h)
        shape = tuple(sp[i] for i in range(r))
        if dt == SPT_STRING:
            return strings_from(dense_data(h), dense_size(h)).reshape(shape)
        a = view(self, dense_data(h), shape, NP_OF[dt], readonly)
        return a.copy() if copy else a


def dense_arg(a, dtype=None):
    """A borrowed spt_dense over a numpy array or array-like (None stays None)."""
    if a is None:
        return None
    if isinstance(a, Dense):
        return a
    return Dense.from_numpy(a, dtype)


def h(x):
    """The C handle of a Dense/SparseTensor or None."""
    return None if x is None else x.h
