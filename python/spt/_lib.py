# SPDX-License-Identifier: Apache-2.0
"""Loading libspt and the low-level ctypes layer: handles, errors, dtypes, dense arrays.

Nothing here computes an op; it only moves pointers and checks statuses.
"""
import builtins
import ctypes
import ctypes.util
import os

import numpy as np

from ._export import export_name, exports, public

# --------------------------------------------------------------------------------------------------
# Finding the library
# --------------------------------------------------------------------------------------------------


def _mpi_launched():
    """True in a process started by an MPI launcher (Open MPI's mpirun, or a PMI/PMIx one)."""
    return any(v in os.environ for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))


def _with_mpi(paths):
    """Under an MPI launcher each libspt.so is preceded by libspt_mpi.so of the same folder (the whole
    library with the distributed layer, which spt.mpi needs), when that file exists."""
    for path in paths:
        if _mpi_launched() and os.path.basename(path) == "libspt.so":
            mpi = os.path.join(os.path.dirname(path), "libspt_mpi.so")
            if os.path.exists(mpi):
                yield mpi
        yield path


def _candidates():
    env = os.environ.get("SPT_LIB")
    if env:
        yield env
    yield from _with_mpi(_default_candidates())


def _default_candidates():
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
export_name(__name__, "lib_path")


def _version():
    """The version, written once: include/spt.h's SPT_VERSION_MAJOR.MINOR.PATCH. Read from the header of
    the repository this package sits in, else from the installed library's file name (libspt.so.X.Y.Z,
    make install), else from the wheel's metadata; "unknown" when none says."""
    import re

    from ._version import from_header

    here = os.path.dirname(os.path.abspath(__file__))
    v = from_header(os.path.join(here, "..", "..", "include", "spt.h"))
    if v:
        return v
    m = re.search(r"libspt\.so\.(\d+\.\d+\.\d+)$", os.path.realpath(lib_path))
    if m:
        return m.group(1)
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("spt")
    except (ImportError, PackageNotFoundError):
        return "unknown"


VERSION = _version()

# ---------------------------------------------------------------------------------------------------
# Structs of include/spt.h (the functions are declared by the _registry package)
# ---------------------------------------------------------------------------------------------------

c_int64_p = ctypes.POINTER(ctypes.c_int64)


class spt_str(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_int64)]


class spt_group(ctypes.Structure):
    _fields_ = [("key", c_int64_p), ("start", ctypes.c_int64), ("count", ctypes.c_int64),
                ("indices", c_int64_p), ("values", ctypes.c_void_p)]


class spt_tot_inner(ctypes.Structure):
    _fields_ = [("present", ctypes.c_bool), ("outer", c_int64_p), ("rank", ctypes.c_int64), ("shape", c_int64_p),
                ("size", ctypes.c_int64), ("data", ctypes.c_void_p)]


class spt_cross_input(ctypes.Structure):
    _fields_ = [("sparse", ctypes.c_void_p), ("dense", ctypes.c_void_p)]


class spt_read_opts(ctypes.Structure):
    _fields_ = [("has_dtype", ctypes.c_bool), ("dtype", ctypes.c_int), ("rank", ctypes.c_int64),
                ("shape", c_int64_p)]


# ---------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------


@public
class SptError(Exception):
    """Base class of every error spt raises; `.status` is the spt_status value and `.message` the message
    (the C library's spt_last_error(), or the binding's for an argument refused before the call)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


@public
class InvalidArgumentError(SptError, ValueError):
    """SPT_EINVAL: a malformed argument (shape, rank, length, count, a value that does not fit the dtype,
    a path with NUL)."""

    status_name = "INVALID_ARGUMENT"


@public
class OutOfRangeError(InvalidArgumentError, IndexError):
    """SPT_ERANGE: an index, axis or id outside its range. A subclass of InvalidArgumentError (TensorFlow
    reports these as InvalidArgumentError, so code catching that class catches both) and of IndexError."""

    status_name = "OUT_OF_RANGE"


@public
class OverflowError(SptError, builtins.OverflowError):  # noqa: A001 - deliberately the TF-style name
    """SPT_EOVERFLOW: a size or count that does not fit in int64 / size_t, or a Python int that does not
    fit the C type of the argument it is given for."""

    status_name = "OVERFLOW"


@public
class FailedPreconditionError(SptError, RuntimeError):
    """SPT_EPRECONDITION: an order precondition does not hold (IndicesValid or group without order), or
    an object used in a way its life cycle forbids (__init__ called twice)."""

    status_name = "FAILED_PRECONDITION"


@public
class DtypeError(SptError, TypeError):
    """SPT_EDTYPE: the dtype is mismatched or not supported by the op (also: an argument of the wrong
    Python type, e.g. a float where an integer is required)."""

    status_name = "DTYPE"


@public
class OutOfMemoryError(SptError, MemoryError):
    """SPT_ENOMEM: an allocation failed."""

    status_name = "OUT_OF_MEMORY"


@public
class IOError(SptError, builtins.OSError):  # noqa: A001
    """SPT_EIO: a file could not be read or written."""

    status_name = "IO"


@public
class ParseError(SptError, ValueError):
    """SPT_EPARSE: a file or text is malformed."""

    status_name = "PARSE"


@public
class InternalError(SptError, RuntimeError):
    """SPT_EINTERNAL: an internal invariant failed (a bug in spt)."""

    status_name = "INTERNAL"


@public
class DataLossError(SptError, builtins.OSError):
    """SPT_EDATALOSS: a file's records are damaged or truncated (TensorFlow's DataLossError: a bad checksum,
    a truncated record, a length larger than what follows)."""

    status_name = "DATA_LOSS"


# The status values come from the library itself (spt_status_name over the values it knows, generated in
# C from include/spt_status.def), never from a copy here: each class names its status by that name.
_CLASS_OF_NAME = {cls.status_name: cls for cls in (OutOfMemoryError, InvalidArgumentError, OutOfRangeError,
                                                    OverflowError, FailedPreconditionError, DtypeError, IOError,
                                                    ParseError, InternalError, DataLossError)}


def _status_table():
    """{value: name} of every spt_status the library knows (OK and the negative codes)."""
    f = lib.spt_status_name
    f.restype, f.argtypes = ctypes.c_char_p, [ctypes.c_int]
    table = {}
    for v in range(0, -256, -1):
        name = f(v).decode()
        if name == "UNKNOWN":
            break
        table[v] = name
    return table


STATUS_NAMES = _status_table()  # {0: "OK", -1: "OUT_OF_MEMORY", ...}
STATUS_MIN = min(STATUS_NAMES)
_ERRORS = {v: _CLASS_OF_NAME.get(n, InternalError) for v, n in STATUS_NAMES.items() if v != 0}
_STATUS = {cls: st for st, cls in _ERRORS.items()}


def error_for(status, op=None):
    """The exception of a non-OK status, with the C library's message of this thread."""
    from ._registry import C

    msg = (C.spt_last_error() or b"").decode("utf-8", "replace")
    if not msg:
        msg = "spt.%s: %s" % (op, (C.spt_status_name(status) or b"UNKNOWN").decode())
    return _ERRORS.get(status, InternalError)(msg, status)


def check(status):
    if status != 0:
        raise error_for(status)


def err(cls, op, msg):
    """An exception of class `cls` for op `op` (status set to the matching spt_status)."""
    return cls("spt.%s: %s" % (op, msg), _STATUS.get(cls))


# ---------------------------------------------------------------------------------------------------
# Dtypes (the order of include/spt_dtypes.def; checked against the library by _dense.py)
# ---------------------------------------------------------------------------------------------------

DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float32", "float64", "complex64", "complex128", "string"]
SPT_BOOL, SPT_INT64, SPT_FLOAT64, SPT_STRING = 0, 4, 10, 13
NP_OF = [np.dtype(n) for n in DTYPE_NAMES[:-1]] + [np.dtype(object)]
_SPT_OF = {d: i for i, d in enumerate(NP_OF[:-1])}


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
        raise DtypeError("spt: numpy dtype %s has no spt dtype" % dt, -6) from None


def as_dtype(dtype):
    """A numpy dtype from a numpy dtype, a type or a name ('string' / 'str' / 'bytes' -> object)."""
    if isinstance(dtype, str) and dtype in ("string", "str", "bytes"):
        return np.dtype(object)
    try:
        return np.dtype(dtype)
    except TypeError:
        raise DtypeError("spt: %r is not a dtype" % (dtype,), -6) from None


# ---------------------------------------------------------------------------------------------------
# Ownership of C objects and zero-copy views
# ---------------------------------------------------------------------------------------------------


class Owner:
    """The one owner of a C object: frees it (with `free`) when the last reference goes. Python objects
    (SparseTensor, Domain, ...) and every numpy view over the C memory hold a reference to it, so a view
    stays valid for its whole life, whatever happens to the object it came from. `keep` holds what the C
    object borrows (a wrapped numpy values array)."""

    __slots__ = ("h", "free", "keep", "__weakref__")

    def __init__(self, h, free, keep=None):
        self.h = h
        self.free = free
        self.keep = keep

    def __del__(self):
        h, self.h = self.h, None
        if h and self.free is not None:
            self.free(h)


class _View:
    """An __array_interface__ over foreign memory that keeps its owner alive (the numpy array's base)."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner, addr, shape, dtype, readonly=True):
        self.owner = owner
        self.__array_interface__ = {"shape": tuple(shape), "typestr": dtype.str, "data": (addr, readonly),
                                    "version": 3}


def numpy_limit(shape, e):
    """The spt error for a result numpy cannot hold (`e`: numpy's ValueError): more dims than numpy allows,
    or a zero-size shape whose other dims overflow numpy's size. Named "numpy" until wrap_out names the op."""
    detail = "numpy cannot hold the result of shape %s (rank %d: %s)" % (_show(list(shape)), len(shape), e)
    cls = InvalidArgumentError if "dimension" in str(e) else OverflowError
    x = err(cls, "numpy", detail)
    x.numpy_detail = detail
    return x


def renamed(e, op):
    """A numpy_limit error named after op."""
    x = type(e)("spt.%s: %s" % (op, e.numpy_detail), e.status)
    x.numpy_detail = e.numpy_detail
    return x


def view(owner, addr, shape, dtype, readonly=True):
    """A numpy array over `addr` whose base keeps `owner` (an Owner) alive."""
    dtype = np.dtype(dtype)
    n = 1
    for s in shape:
        n *= s
    try:
        if not addr or n == 0:
            a = np.empty(shape, dtype)
            a.flags.writeable = not readonly
            return a
        return np.asarray(_View(owner, addr, shape, dtype, readonly))
    except ValueError as e:
        raise numpy_limit(shape, e) from None


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


def object_values(a, arg, op):
    """The values of an object array (numpy's dtype for a list of Python objects): strings stay objects
    (a string tensor); numbers become the numeric array numpy infers from them; anything else, and
    integers outside int64 / uint64, is refused naming what was found."""
    if a.ndim == 0 and not isinstance(a.item(), (bytes, str, np.bytes_, np.str_)):
        x = a.item()
        if x is None:
            raise err(InvalidArgumentError, op, "%s must not be None" % arg)
        raise err(DtypeError, op, "%s must be an array or a sequence, got %s" % (arg, type(x).__name__))
    flat = a.reshape(-1)
    if flat.size == 0 or any(isinstance(v, (bytes, str, bytearray, memoryview, np.bytes_, np.str_)) for v in flat):
        return a
    for v in flat:
        if not isinstance(v, (bool, int, float, complex, np.bool_, np.number)):
            raise err(DtypeError, op, "%s must be numbers, or bytes or str for a string tensor, got %s %s"
                      % (arg, type(v).__name__, _show(v)))
    try:
        b = np.array(flat.tolist())
    except (TypeError, ValueError, builtins.OverflowError):
        b = flat
    if b.dtype.kind == "O":  # integers beyond int64 and uint64
        big = next((v for v in flat if isinstance(v, int) and not -(1 << 63) <= v < (1 << 64)), None)
        if big is not None:
            raise err(OverflowError, op, "%s holds %d, which fits no integer dtype" % (arg, big))
        raise err(DtypeError, op, "%s must be numbers of one kind, got %s" % (arg, _show(flat.tolist())))
    return b.reshape(a.shape)


def to_bytes(v, arg="value", op="SparseTensor"):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytearray, memoryview, np.bytes_)):
        return bytes(v)
    if isinstance(v, np.str_):
        return str(v).encode("utf-8")
    raise err(DtypeError, op, "%s must be bytes or str for a string tensor, got %s" % (arg, type(v).__name__))


class StrArray:
    """An spt_str array over a list of bytes objects (kept alive by this object)."""

    def __init__(self, values, arg="values", op="SparseTensor"):
        vals = [to_bytes(v, arg, op) for v in np.asarray(values, dtype=object).reshape(-1)]
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
        self.ptr = ctypes.addressof(self.arr)


def contig(a, dtype=None):
    """`a` as a C-contiguous native-endian array of `dtype` (rank kept); copies only when needed. Only
    for conversions already known exact (see exact_cast)."""
    a = np.asarray(a, dtype=dtype)
    if not a.flags.c_contiguous or not a.dtype.isnative:
        a = np.array(a, dtype=a.dtype.newbyteorder("=") if not a.dtype.isnative else a.dtype, order="C")
    if a.dtype == np.bool_ and a.size:
        # a bool byte other than 0 or 1 (a uint8 array viewed as bool) would be read as is by C: normalised
        u = a.view(np.uint8)
        if u.max() > 1:
            a = u != 0
    return a


# ---------------------------------------------------------------------------------------------------
# Conversion at the boundary (used by the bindings the _registry package generates)
# ---------------------------------------------------------------------------------------------------


def _show(x):
    r = repr(x)
    return r if len(r) <= 80 else r[:77] + "..."


def int_arg(x, arg, op):
    """A Python int from an integer argument: int, numpy integer, 0-d integer array. Refused (spt errors):
    bool, float (even 2.0), strings, arrays of other shapes."""
    if isinstance(x, (bool, np.bool_)):
        raise err(DtypeError, op, "%s must be an integer, got the bool %r" % (arg, x))
    if isinstance(x, int):
        return int(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, (list, tuple)):
        x = np.asarray(x, dtype=object)
    if isinstance(x, np.ndarray):
        if x.ndim != 0:
            raise err(InvalidArgumentError, op, "%s should be a scalar, got shape %s" % (arg, x.shape))
        if x.dtype.kind in "iu":
            return int(x)
        if x.dtype.kind == "O":
            return int_arg(x.item(), arg, op)
    raise err(DtypeError, op, "%s must be an integer, got %s %s" % (arg, type(x).__name__, _show(x)))


def range_error(v, arg, op, ctype, clo, chi, lo, hi):
    """The error of an integer outside its C type (OverflowError) or the declared range: OutOfRangeError
    for an index, axis or id (an argument whose name says so), InvalidArgumentError for any other value
    (a negative count or size), as TensorFlow's classes."""
    if not clo <= v <= chi:
        return err(OverflowError, op, "%s=%d does not fit in the C type %s [%d, %d]" % (arg, v, ctype, clo, chi))
    return err(range_class(arg), op, "%s=%d is outside [%d, %d]" % (arg, v, lo, hi))


def range_class(arg):
    """The class of an in-type integer outside an argument's declared range: OutOfRangeError for an
    index, axis or id (by the argument's name), InvalidArgumentError for a count, size or other value."""
    return OutOfRangeError if arg == "axis" or arg.endswith(("_id", "_axis", "index")) else InvalidArgumentError


def length_error(a, n, arg, op, at_least=False):
    return err(InvalidArgumentError, op, "%s must have %s%d entries, got %d"
               % (arg, "at least " if at_least else "", n, a.size))


def bool_arg(x, arg, op):
    """A bool from True/False, numpy bools or the integers 0 and 1; anything else is refused."""
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "biu":
        x = x.item()
    if isinstance(x, (int, np.integer)) and int(x) in (0, 1):
        return bool(x)
    raise err(InvalidArgumentError, op, "%s must be a bool, got %s %s" % (arg, type(x).__name__, _show(x)))


def double_arg(x, arg, op):
    """A float from a real scalar (int, float, numpy scalar or 0-d array); arrays and complex refused."""
    if isinstance(x, (bool, np.bool_)):
        return float(x)
    if isinstance(x, (int, float, np.integer, np.floating)):
        try:
            return float(x)  # a huge int becomes the nearest double, as C converts it
        except builtins.OverflowError:
            raise err(OverflowError, op, "%s=%s does not fit in a double" % (arg, _show(x))) from None
    if isinstance(x, np.ndarray):
        if x.ndim != 0:
            raise err(InvalidArgumentError, op, "%s must be a scalar, got an array of shape %s" % (arg, x.shape))
        if x.dtype.kind in "biuf":
            return float(x)
    raise err(InvalidArgumentError, op, "%s must be a real number, got %s %s" % (arg, type(x).__name__, _show(x)))


def path_arg(p, arg, op):
    """A file name as bytes (str, bytes or os.PathLike); a NUL byte is refused (C would cut the name)."""
    try:
        b = os.fsencode(os.fspath(p))
    except TypeError:
        raise err(DtypeError, op, "%s must be a path (str, bytes or os.PathLike), got %s"
                  % (arg, type(p).__name__)) from None
    if b"\0" in b:
        raise err(InvalidArgumentError, op, "%s contains a NUL byte: %s" % (arg, _show(p)))
    return b


def text_arg(s, arg, op):
    b = s.encode("utf-8") if isinstance(s, str) else s
    if not isinstance(b, bytes):
        raise err(DtypeError, op, "%s must be str or bytes, got %s" % (arg, type(s).__name__))
    if b"\0" in b:
        raise err(InvalidArgumentError, op, "%s contains a NUL byte: %s" % (arg, _show(s)))
    return b


def bytes_arg(s, arg, op):
    if isinstance(s, str):
        return s.encode("utf-8")
    if isinstance(s, (bytes, bytearray, memoryview)):
        return bytes(s)
    raise err(DtypeError, op, "%s must be str or bytes, got %s" % (arg, type(s).__name__))


_I64 = np.dtype(np.int64)
_I64_MAX = (1 << 63) - 1


def i64_arg(x, arg, op="SparseTensor", nullable=False):
    """A C-contiguous int64 array from integers (copies only when needed). Refused: floats (even 1.0),
    bools, strings (DtypeError); integers outside int64 (OverflowError)."""
    if x is None:
        if nullable:
            return None
        raise err(InvalidArgumentError, op, "%s must not be None" % arg)
    if type(x) is np.ndarray and x.dtype == _I64 and x.flags.c_contiguous:
        return x
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    k = a.dtype.kind
    if k == "i":
        return contig(a, np.int64)
    if k == "u":
        if a.size and int(a.max()) > _I64_MAX:
            raise err(OverflowError, op, "%s holds %d, above INT64_MAX" % (arg, int(a.max())))
        return contig(a, np.int64)
    if a.size == 0 and k in "fbO":
        return np.zeros(a.shape, np.int64)
    if k == "O":  # Python ints beyond int64, or mixed objects
        flat = a.reshape(-1)
        out = np.empty(flat.size, np.int64)
        for i, v in enumerate(flat):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise err(DtypeError, op, "%s must be integers, got %s %s" % (arg, type(v).__name__, _show(v)))
            v = int(v)
            if not -(1 << 63) <= v <= _I64_MAX:
                raise err(OverflowError, op, "%s holds %d, outside int64" % (arg, v))
            out[i] = v
        return out.reshape(a.shape)
    raise err(DtypeError, op, "%s must be integers, got dtype %s%s"
              % (arg, a.dtype, " (%s)" % _show(a.reshape(-1)[:4].tolist()) if a.size else ""))


i64_array = i64_arg


def i64_out_arg(x, arg, op, nullable=False):
    if x is None:
        if nullable:
            return None
        raise err(InvalidArgumentError, op, "%s must not be None" % arg)
    if not (isinstance(x, np.ndarray) and x.dtype == _I64 and x.flags.c_contiguous and x.flags.writeable):
        raise err(DtypeError, op, "%s must be a writable C-contiguous int64 numpy array" % arg)
    return x


def bool_array_arg(x, arg, op, nullable=False):
    a = np.asarray(x)
    if a.ndim != 1:
        raise err(InvalidArgumentError, op, "%s must be a vector, got shape %s" % (arg, a.shape))
    if a.dtype.kind != "b":
        if a.size and a.dtype.kind not in "iu":
            raise err(DtypeError, op, "%s must be bools, got dtype %s" % (arg, a.dtype))
        if a.size and not np.all((a == 0) | (a == 1)):
            raise err(InvalidArgumentError, op, "%s must be bools (0 or 1)" % arg)
        a = a.astype(np.bool_)
    return contig(a, np.bool_)


def addr(x):
    """The address C gets for an array argument (None = NULL). Empty numpy arrays still have a valid
    address (C distinguishes NULL from 0 entries in places, e.g. reduction axes)."""
    if x is None:
        return None
    if isinstance(x, np.ndarray):
        return x.ctypes.data
    if isinstance(x, StrArray):
        return x.ptr
    if isinstance(x, int):
        return x
    return ctypes.addressof(x)


def struct_arg(x, arg, op, nullable):
    if x is None:
        if nullable:
            return None
        raise err(InvalidArgumentError, op, "%s must not be None" % arg)
    return ctypes.byref(x)


def count_of(x):
    if x is None:
        return 0
    if isinstance(x, np.ndarray):
        return x.size
    return len(x)


# ---- values against a dtype -----------------------------------------------------------------------


def _exact_int(v, dt, arg, op):
    info = np.iinfo(dt)
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        v = int(v)
    elif isinstance(v, (float, np.floating)):
        if v != v:
            raise err(InvalidArgumentError, op, "%s=nan has no value in %s" % (arg, dt))
        if v in (float("inf"), float("-inf")) or v != int(v):
            raise err(InvalidArgumentError, op, "%s=%r is not an integer (the dtype is %s)" % (arg, v, dt))
        v = int(v)
    elif isinstance(v, (complex, np.complexfloating)):
        if v.imag != 0:
            raise err(InvalidArgumentError, op, "%s=%r is complex (the dtype is %s)" % (arg, v, dt))
        return _exact_int(v.real, dt, arg, op)
    else:
        raise err(DtypeError, op, "%s must be a number for dtype %s, got %s" % (arg, dt, type(v).__name__))
    if not info.min <= v <= info.max:
        raise err(InvalidArgumentError, op, "%s=%d does not fit in %s [%d, %d]" % (arg, v, dt, info.min, info.max))
    return v


def exact_cast(a, dt, arg, op):
    """`a` (array-like) as an array of numpy dtype `dt`, refusing every conversion that would change a
    value: integers outside dt's range, non-integral / NaN / infinite floats into integers, values other
    than 0/1 into bool, complex with an imaginary part into reals, finite values beyond a float dtype's
    range, numbers into strings and strings into numbers."""
    dt = np.dtype(dt)
    a = a if isinstance(a, np.ndarray) else np.asarray(a, dtype=object if dt.kind == "O" else None)
    src = a.dtype
    if src == dt:
        return a
    if dt.kind == "O":
        if src.kind not in "OSU" and a.size:
            raise err(DtypeError, op, "%s of dtype %s cannot become strings" % (arg, src))
        return a.astype(object)
    if src.kind in "SUV" or (src.kind == "O" and a.size and any(isinstance(v, (bytes, str)) for v in a.flat)):
        raise err(DtypeError, op, "%s holds strings, the dtype is %s" % (arg, dt))
    if a.size == 0:
        return a.astype(dt)
    if src.kind == "O":
        if dt.kind in "iub":
            vals = [_exact_int(v, dt if dt.kind != "b" else np.dtype(np.uint8), arg, op) for v in a.flat]
            if dt.kind == "b" and any(v not in (0, 1) for v in vals):
                raise err(InvalidArgumentError, op, "%s must be 0 or 1 for dtype bool" % arg)
            return np.array(vals, dtype=dt).reshape(a.shape)
        try:
            a = a.astype(np.complex128 if dt.kind == "c" else np.float64)
        except (TypeError, ValueError):
            raise err(DtypeError, op, "%s cannot become %s" % (arg, dt)) from None
        src = a.dtype
    if dt.kind in "iu":
        if src.kind == "c":
            if np.any(a.imag != 0):
                raise err(InvalidArgumentError, op, "%s has complex values, the dtype is %s" % (arg, dt))
            a = a.real
            src = a.dtype
        if src.kind == "f":
            if not np.all(np.isfinite(a)):
                raise err(InvalidArgumentError, op, "%s has NaN or infinite values, the dtype is %s" % (arg, dt))
            if np.any(a != np.floor(a)):
                raise err(InvalidArgumentError, op, "%s has non-integral values, the dtype is %s" % (arg, dt))
            lo, hi = float(a.min()), float(a.max())
            info = np.iinfo(dt)
            # compare as floats against the range's exact float bounds (2**63 is exact; INT64_MAX is not)
            if lo < float(info.min) or hi >= float(info.max) + 1.0:
                raise err(InvalidArgumentError, op, "%s has values outside %s [%d, %d]"
                          % (arg, dt, info.min, info.max))
            return a.astype(dt)
        if src.kind in "iu":
            info = np.iinfo(dt)
            lo, hi = int(a.min()), int(a.max())
            if lo < info.min or hi > info.max:
                bad = lo if lo < info.min else hi
                raise err(InvalidArgumentError, op, "%s holds %d, outside %s [%d, %d]"
                          % (arg, bad, dt, info.min, info.max))
        return a.astype(dt)
    if dt.kind == "b":
        if src.kind == "c":
            ok = np.all(a.imag == 0) and np.all((a.real == 0) | (a.real == 1))
        else:
            ok = np.all((a == 0) | (a == 1))
        if not ok:
            raise err(InvalidArgumentError, op, "%s must be 0 or 1 (False or True) for dtype bool" % arg)
        return a.astype(dt)
    if dt.kind == "f":
        if src.kind == "c":
            if np.any(a.imag != 0):
                raise err(InvalidArgumentError, op, "%s has complex values, the dtype is %s" % (arg, dt))
            a = a.real
            src = a.dtype
        if src.kind == "f" and src.itemsize > dt.itemsize:
            fin = np.isfinite(a)
            big = np.finfo(dt).max
            if np.any(np.abs(a[fin]) > big):
                raise err(InvalidArgumentError, op, "%s has finite values beyond %s's range" % (arg, dt))
        return a.astype(dt)
    if dt.kind == "c":
        if src.kind == "c" and src.itemsize > dt.itemsize:
            fin = np.isfinite(a)
            big = np.finfo(dt).max
            if np.any(np.abs(a.real[fin]) > big) or np.any(np.abs(a.imag[fin]) > big):
                raise err(InvalidArgumentError, op, "%s has finite values beyond %s's range" % (arg, dt))
        return a.astype(dt)
    raise err(DtypeError, op, "%s: no conversion to %s" % (arg, dt))  # pragma: no cover


def scalar_value(value, dtype, arg, op):
    """(keep-alive object, address) of one element of `dtype` holding `value` exactly."""
    if dtype.kind == "O":
        if isinstance(value, np.ndarray):
            if value.ndim != 0:
                raise err(InvalidArgumentError, op, "%s must be a scalar, got shape %s" % (arg, value.shape))
            value = value.item()
        s = spt_str()
        b = to_bytes(value, arg, op)
        buf = ctypes.create_string_buffer(b, max(1, len(b)))
        s.data = ctypes.addressof(buf)
        s.len = len(b)
        return (s, buf), ctypes.addressof(s)
    a = value if isinstance(value, np.ndarray) else np.asarray(value)
    if a.ndim != 0:
        raise err(InvalidArgumentError, op, "%s must be a scalar, got shape %s" % (arg, a.shape))
    if dtype.kind in "iu":
        a = np.array([_exact_int(a.item(), dtype, arg, op)], dtype)
    else:
        a = contig(exact_cast(a.reshape(1), dtype, "%s=%s" % (arg, _show(value)), op), dtype)
    return a, a.ctypes.data


def addr_of_ptr(p):
    """The address held by a ctypes pointer (0 for NULL)."""
    return ctypes.cast(p, ctypes.c_void_p).value or 0


def ctypes_i64p(a):
    """A ctypes int64 pointer to the data of an int64 numpy array (for struct fields)."""
    return ctypes.cast(a.ctypes.data, c_int64_p)


def as_list(x, arg, op):
    """list(x) for a sequence argument (a list of tensors, dims, index components); DtypeError otherwise."""
    if isinstance(x, (str, bytes)):
        raise err(DtypeError, op, "%s must be a sequence, got %s" % (arg, type(x).__name__))
    try:
        return list(x)
    except TypeError:
        raise err(DtypeError, op, "%s must be a sequence, got %s %s" % (arg, type(x).__name__, _show(x))) from None


def pairs_arg(x, arg, op):
    """[(a, b), ...] from a dict {a: b} or a sequence of pairs; DtypeError / InvalidArgumentError otherwise."""
    items = list(x.items()) if isinstance(x, dict) else as_list(x, arg, op)
    out = []
    for p in items:
        p = as_list(p, arg, op) if not isinstance(p, tuple) else p
        if len(p) != 2:
            raise err(InvalidArgumentError, op, "%s must hold (key, value) pairs, got %s" % (arg, _show(p)))
        out.append(tuple(p))
    return out


__all__ = exports(__name__)
