# SPDX-License-Identifier: Apache-2.0
"""The kinds the registry entries are written in: argument kinds (each with its C spelling, ctypes type
and role), return kinds, and Entry, the description of one C function. Each family module of the package
declares its entries, a list of Entry, and hands them to register() (the package's __init__), which
generates the bindings from them."""
import ctypes

from .. import _lib as L

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
UINT64_MAX = (1 << 64) - 1
SIZE_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_size_t))) - 1

# ---------------------------------------------------------------------------------------------------
# Argument kinds
# ---------------------------------------------------------------------------------------------------

# role: how the generated code treats the argument
#   int     a C integer (ctype, C range ctype_lo..ctype_hi, declared range lo..hi, or len_of an array)
#   enum    a C enum (values 0..n-1)
#   bool    a C bool
#   double  a C double
#   handle  an spt object the caller passes as its Python object (cls: "tensor", "dense", ...)
#   handles an array of tensor handles (a list of SparseTensor)
#   out     an owned output (a handle C allocates and fills), returned wrapped by the generated function
#   i64in   an int64 array read by C (n: how many entries C reads: an int argument name or "rank:<arg>")
#   i64out  an int64 array written by C (the caller's writable int64 numpy array)
#   boolin  a bool array read by C
#   value   a pointer to one value of the dtype of the handle argument `like` (None = NULL)
#   buffer  raw memory the wrapper prepared (a numpy array, a StrArray or a ctypes array; None = NULL)
#   path    a file name (str, bytes or os.PathLike; NUL refused)
#   text    a C string that is not a path (NUL refused)
#   bytes   a byte buffer (its length is an int argument with len_of)
#   struct  a pointer to a ctypes Structure the wrapper fills (None = NULL)
#   null    always NULL (callbacks and their contexts the package does not use)


class Arg:
    __slots__ = ("name", "c", "role", "ctype", "lo", "hi", "clo", "chi", "cls", "nullable", "n", "len_of",
                 "like", "struct")

    def __init__(self, name, c, role, ctype, **kw):
        self.name, self.c, self.role, self.ctype = name, c, role, ctype
        self.lo = self.hi = self.clo = self.chi = None
        self.cls = self.n = self.len_of = self.like = self.struct = None
        self.nullable = False
        for k, v in kw.items():
            setattr(self, k, v)


def _int(name, c, ctype, clo, chi, lo=None, hi=None, len_of=None):
    return Arg(name, c, "int", ctype, clo=clo, chi=chi, lo=clo if lo is None else lo,
               hi=chi if hi is None else hi, len_of=len_of)


def i64(name, lo=None, hi=None, len_of=None):
    """int64_t; lo/hi narrow the accepted range (OutOfRangeError for an index, axis or id, else InvalidArgumentError: _lib.range_error); len_of: the length of that array arg."""
    return _int(name, "int64_t", ctypes.c_int64, INT64_MIN, INT64_MAX, lo, hi, len_of)


def u64(name, lo=None, hi=None):
    """uint64_t (a hash key: every value 0 .. 2^64 - 1)."""
    return _int(name, "uint64_t", ctypes.c_uint64, 0, UINT64_MAX, lo, hi)


def cint(name, lo=None, hi=None):
    return _int(name, "int", ctypes.c_int, INT_MIN, INT_MAX, lo, hi)


def size(name, len_of=None):
    return _int(name, "size_t", ctypes.c_size_t, 0, SIZE_MAX, len_of=len_of)


def enum(name, c, n, lo=0):
    """A C enum with the n values lo, lo+1, ... (ints outside them: InvalidArgumentError)."""
    return Arg(name, c, "enum", ctypes.c_int, clo=INT_MIN, chi=INT_MAX, lo=lo, hi=lo + n - 1)


def boolean(name):
    return Arg(name, "bool", "bool", ctypes.c_bool)


def double(name):
    return Arg(name, "double", "double", ctypes.c_double)


_HANDLE_C = {"tensor": "spt_tensor", "dense": "spt_dense", "dense_obj": "spt_dense", "domain": "spt_domain", "smap": "spt_sparse_map",
             "tot": "spt_tot", "iter": "spt_group_iter", "mpi_ctx": "spt_mpi_ctx", "dtensor": "spt_dtensor",
             "recreader": "spt_tfrecord_reader", "recwriter": "spt_tfrecord_writer"}


# Ownership: an output of each handle kind is released by this registry entry (called by the Owner that
# the Python object and its numpy views share).
FREE = {"tensor": "spt_tensor_free", "dense": "spt_dense_free", "dense_obj": "spt_dense_free",
        "domain": "spt_domain_free", "smap": "spt_sparse_map_free", "tot": "spt_tot_free",
        "iter": "spt_group_end", "mpi_ctx": "spt_mpi_ctx_free", "dtensor": "spt_dtensor_free",
        "recreader": "spt_tfrecord_reader_close", "recwriter": "spt_tfrecord_writer_free"}


def handle(name, cls, const=True, nullable=False):
    return Arg(name, ("const " if const else "") + _HANDLE_C[cls] + " *", "handle", ctypes.c_void_p, cls=cls,
               nullable=nullable)


def handles(name, cls="tensor"):
    return Arg(name, "const %s * const *" % _HANDLE_C[cls], "handles", ctypes.c_void_p, cls=cls)


def out(name, cls):
    """An owned output: C allocates it, the generated function returns it owned by a Python object."""
    return Arg(name, _HANDLE_C[cls] + " * *", "out", ctypes.c_void_p, cls=cls)


def out_array(name, cls="tensor"):
    """An array of outputs the wrapper allocates (a ctypes array) and takes ownership of."""
    return Arg(name, _HANDLE_C[cls] + " * *", "buffer", ctypes.c_void_p, cls=cls)


def i64in(name, n=None, nullable=False):
    return Arg(name, "const int64_t *", "i64in", ctypes.c_void_p, n=n, nullable=nullable)


def i64out(name, n=None, nullable=False):
    return Arg(name, "int64_t *", "i64out", ctypes.c_void_p, n=n, nullable=nullable)


def boolin(name, n=None):
    return Arg(name, "const bool *", "boolin", ctypes.c_void_p, n=n)


def value(name, like):
    return Arg(name, "const void *", "value", ctypes.c_void_p, like=like, nullable=True)


def buffer(name, c, nullable=True):
    return Arg(name, c, "buffer", ctypes.c_void_p, nullable=nullable)


def path(name):
    return Arg(name, "const char *", "path", ctypes.c_char_p)


def text(name):
    return Arg(name, "const char *", "text", ctypes.c_char_p)


def bytes_(name):
    return Arg(name, "const char *", "bytes", ctypes.c_char_p)


def struct(name, c, st, nullable=True):
    return Arg(name, c, "struct", ctypes.POINTER(st), struct=st, nullable=nullable)


def null(name, c):
    return Arg(name, c, "null", ctypes.c_void_p)


# return kinds: (C spelling, restype, how the value is returned)
STATUS = ("spt_status", ctypes.c_int, "status")
VOID = ("void", None, "void")
R_I64 = ("int64_t", ctypes.c_int64, "value")
R_INT = ("int", ctypes.c_int, "value")
R_BOOL = ("bool", ctypes.c_bool, "value")
R_DTYPE = ("spt_dtype", ctypes.c_int, "value")
R_PTR_I64 = ("const int64_t *", ctypes.c_void_p, "value")  # an address (int) or None
R_PTR = ("const void *", ctypes.c_void_p, "value")
R_CSTR = ("const char *", ctypes.c_char_p, "value")        # bytes or None


class Entry:
    __slots__ = ("name", "ret", "args", "py")

    def __init__(self, name, ret, *args, py=None):
        self.name, self.ret, self.args = name, ret, list(args)
        self.py = py or (name[4:] if name.startswith("spt_") else name)

    def params(self):
        """The arguments of the generated Python function (C order, without outputs, derived counts and
        NULLs)."""
        return [a for a in self.args if a.role not in ("out", "null") and not (a.role == "int" and a.len_of)]


NDT = len(L.DTYPE_NAMES)
NFMT = 10
NUNARY = 20  # SPT_NUM_UNARY_OPS (python/tests/test_elementwise.py checks it against spt_unary_op_from_name)
T, D = "tensor", "dense"
