# SPDX-License-Identifier: Apache-2.0
"""The op registry: the one description of every C function the Python package calls.

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

tests/test_registry.py parses include/spt.h and fails when a prototype and its entry disagree, and checks
every integer argument of every entry against out-of-range values.

Adding an op costs one entry and a small wrapper. For a C function

    spt_status spt_foo(const spt_tensor *t, int64_t axis, const int64_t *perm, bool flag, spt_tensor **out);

the entry is

    Entry("spt_foo", STATUS, handle("sp_input", T), i64("axis"), i64in("perm", n="sp_input.rank", nullable=True),
          boolean("flag"), out("out", T)),

and the wrapper (in _ops.py) is

    @_export
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

from . import _lib as L

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
    """int64_t; lo/hi narrow the accepted range (OutOfRangeError); len_of: the length of that array arg."""
    return _int(name, "int64_t", ctypes.c_int64, INT64_MIN, INT64_MAX, lo, hi, len_of)


def u64(name, lo=None, hi=None):
    """uint64_t (a hash key: every value 0 .. 2^64 - 1)."""
    return _int(name, "uint64_t", ctypes.c_uint64, 0, UINT64_MAX, lo, hi)


def cint(name, lo=None, hi=None):
    return _int(name, "int", ctypes.c_int, INT_MIN, INT_MAX, lo, hi)


def size(name, len_of=None):
    return _int(name, "size_t", ctypes.c_size_t, 0, SIZE_MAX, len_of=len_of)


def enum(name, c, n, lo=0):
    """A C enum with the n values lo, lo+1, ... (ints outside them: OutOfRangeError)."""
    return Arg(name, c, "enum", ctypes.c_int, clo=INT_MIN, chi=INT_MAX, lo=lo, hi=lo + n - 1)


def boolean(name):
    return Arg(name, "bool", "bool", ctypes.c_bool)


def double(name):
    return Arg(name, "double", "double", ctypes.c_double)


_HANDLE_C = {"tensor": "spt_tensor", "dense": "spt_dense", "dense_obj": "spt_dense", "domain": "spt_domain", "smap": "spt_sparse_map",
             "tot": "spt_tot", "iter": "spt_group_iter"}


# Ownership: an output of each handle kind is released by this registry entry (called by the Owner that
# the Python object and its numpy views share).
FREE = {"tensor": "spt_tensor_free", "dense": "spt_dense_free", "dense_obj": "spt_dense_free",
        "domain": "spt_domain_free", "smap": "spt_sparse_map_free", "tot": "spt_tot_free",
        "iter": "spt_group_end"}


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
NFMT = 7
NUNARY = 20  # SPT_NUM_UNARY_OPS (python/tests/test_tfsparse_ops.py checks it against spt_unary_op_from_name)
T, D = "tensor", "dense"
C_IDX = "spt_tensor * *"

ENTRIES = [
    # errors, dtypes, threads
    Entry("spt_last_error", R_CSTR),
    Entry("spt_clear_error", VOID),
    Entry("spt_status_name", R_CSTR, enum("s", "spt_status", 10, lo=-9)),
    Entry("spt_dtype_name", R_CSTR, enum("d", "spt_dtype", NDT)),
    Entry("spt_set_num_threads", VOID, cint("n")),
    Entry("spt_get_num_threads", R_INT),
    # dense arrays
    Entry("spt_dense_new_from", STATUS, enum("dtype", "spt_dtype", NDT), i64("rank", 0, len_of="shape"),
          i64in("shape", nullable=True), buffer("data", "const void *"), out("out", "dense_obj")),
    Entry("spt_dense_wrap", STATUS, enum("dtype", "spt_dtype", NDT), i64("rank", 0, len_of="shape"),
          i64in("shape", nullable=True), buffer("data", "void *"), null("release", "spt_release_fn"),
          null("ctx", "void *"), out("out", "dense_obj")),
    Entry("spt_dense_free", VOID, buffer("d", "spt_dense *")),
    Entry("spt_dense_dtype", R_DTYPE, handle("d", "dense_obj")),
    Entry("spt_dense_rank", R_I64, handle("d", "dense_obj")),
    Entry("spt_dense_shape", R_PTR_I64, handle("d", "dense_obj")),
    Entry("spt_dense_size", R_I64, handle("d", "dense_obj")),
    Entry("spt_dense_data", R_PTR, handle("d", "dense_obj")),
    # tensors
    Entry("spt_tensor_new", STATUS, enum("dtype", "spt_dtype", NDT), i64("rank", 0, len_of="shape"),
          i64in("shape", nullable=True), i64("nnz", 0), i64in("indices", n="nnz * rank", nullable=True),
          buffer("values", "const void *"), i64in("order", n="rank", nullable=True), out("out", T)),
    Entry("spt_tensor_wrap", STATUS, enum("dtype", "spt_dtype", NDT), i64("rank", 0, len_of="shape"),
          i64in("shape", nullable=True), i64("nnz", 0), buffer("indices", "int64_t *"), buffer("values", "void *"),
          i64in("order", n="rank", nullable=True), null("release", "spt_release_fn"), null("ctx", "void *"),
          out("out", T)),
    Entry("spt_tensor_create", STATUS, handle("indices", D), handle("values", D), handle("shape", D),
          handle("order", D, nullable=True), out("out", T)),
    Entry("spt_tensor_clone", STATUS, handle("t", T), out("out", T)),
    Entry("spt_tensor_free", VOID, buffer("t", "spt_tensor *")),
    Entry("spt_tensor_dtype", R_DTYPE, handle("t", T)),
    Entry("spt_tensor_rank", R_I64, handle("t", T)),
    Entry("spt_tensor_nnz", R_I64, handle("t", T)),
    Entry("spt_tensor_shape", R_PTR_I64, handle("t", T)),
    Entry("spt_tensor_order", R_PTR_I64, handle("t", T)),
    Entry("spt_tensor_indices", R_PTR_I64, handle("t", T)),
    Entry("spt_tensor_values", R_PTR, handle("t", T)),
    Entry("spt_tensor_known_valid", R_BOOL, handle("t", T)),
    Entry("spt_tensor_known_sorted", R_BOOL, handle("t", T)),
    Entry("spt_tensor_set_order", STATUS, handle("sp_input", T, const=False), i64in("order", n="sp_input.rank", nullable=True)),
    Entry("spt_validate", STATUS, handle("sp_input", T, const=False)),
    Entry("spt_indices_valid", STATUS, handle("sp_input", T, const=False)),
    Entry("spt_reorder", STATUS, handle("sp_input", T, const=False), i64in("order", n="sp_input.rank", nullable=True),
          py="reorder_inplace"),
    Entry("spt_reordered", STATUS, handle("sp_input", T), i64in("order", n="sp_input.rank", nullable=True), out("out", T),
          py="reorder"),
    Entry("spt_argsort", STATUS, handle("sp_input", T), i64in("order", n="sp_input.rank", nullable=True),
          i64out("perm", n="sp_input.nnz", nullable=True)),
    Entry("spt_group_begin", STATUS, handle("sp_input", T), i64in("dims", nullable=True), i64("ndims", 0, len_of="dims"),
          out("out", "iter"), py="group"),
    Entry("spt_group_next", R_BOOL, handle("it", "iter", const=False), struct("g", "spt_group *", L.spt_group, False)),
    Entry("spt_group_end", VOID, buffer("it", "spt_group_iter *")),
    # dense conversion
    Entry("spt_to_dense_into", STATUS, handle("sp_input", T), handle("out", D, const=False), boolean("initialize"),
          value("default_value", like="sp_input")),
    Entry("spt_to_dense", STATUS, handle("sp_input", T), value("default_value", like="sp_input"), boolean("validate_indices"),
          out("out", D)),
    Entry("spt_from_dense", STATUS, handle("d", D), value("default_value", like="d"), out("out", T)),
    Entry("spt_sparse_to_dense", STATUS, handle("sparse_indices", D), handle("output_shape", D),
          handle("sparse_values", D), handle("default_value", D), boolean("validate_indices"), out("out", D)),
    # layout ops
    Entry("spt_concat_primary", STATUS, handles("sp_inputs"), i64("n", len_of="sp_inputs"), out("out", T)),
    Entry("spt_concat", STATUS, handles("sp_inputs"), i64("n", len_of="sp_inputs"), i64("axis"),
          boolean("expand_nonconcat_dims"), out("out", T)),
    Entry("spt_split", STATUS, handle("sp_input", T), i64("axis"), i64("num_split"), out_array("outs")),
    Entry("spt_slice", STATUS, handle("sp_input", T), i64in("start", n="sp_input.rank"),
          i64in("size", n="sp_input.rank"), out("out", T)),
    Entry("spt_retain", STATUS, handle("sp_input", T), boolin("to_retain"), i64("mask_len", len_of="to_retain"),
          out("out", T)),
    Entry("spt_reset_shape", STATUS, handle("sp_input", T), i64in("new_shape", n="sp_input.rank", nullable=True),
          out("out", T)),
    Entry("spt_fill_empty_rows", STATUS, handle("sp_input", T), value("default_value", like="sp_input"),
          out("out", T), out("empty_row_indicator", D), out("reverse_index_map", D)),
    Entry("spt_reshape", STATUS, handle("sp_input", T), i64("new_rank", len_of="shape"), i64in("shape"),
          out("out", T)),
    Entry("spt_transpose", STATUS, handle("sp_input", T), i64in("perm", n="sp_input.rank", nullable=True),
          out("out", T)),
    Entry("spt_to_indicator", STATUS, handle("sp_input", T), i64("vocab_size"), out("out", D)),
    Entry("spt_merge", STATUS, handles("sp_ids"), i64("n_ids", len_of="sp_ids"), handle("sp_values", T),
          i64in("vocab_size"), i64("n_vocab", len_of="vocab_size"), boolean("already_sorted"), out("out", T)),
    # math ops
    Entry("spt_reduce_sum", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", D)),
    Entry("spt_reduce_sum_sparse", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", T)),
    Entry("spt_reduce_max", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", D)),
    Entry("spt_reduce_max_sparse", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", T)),
    Entry("spt_add", STATUS, handle("a", T), handle("b", T), double("threshold"), out("out", T)),
    Entry("spt_add_dense", STATUS, handle("a", T), handle("b", D), out("out", D)),
    Entry("spt_sparse_dense_cwise_mul", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_sparse_dense_cwise_div", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_sparse_dense_cwise_add", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_maximum", STATUS, handle("sp_a", T), handle("sp_b", T), out("out", T)),
    Entry("spt_minimum", STATUS, handle("sp_a", T), handle("sp_b", T), out("out", T)),
    Entry("spt_softmax", STATUS, handle("sp_input", T), out("out", T)),
    Entry("spt_sparse_dense_matmul", STATUS, handle("sp_a", T), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), out("out", D)),
    Entry("spt_sparse_dense_matvec", STATUS, handle("sp_a", T), handle("x", D), boolean("adjoint_a"), out("out", D)),
    # tensors of tensors
    Entry("spt_domain_new", STATUS, i64("rank", 0), i64("n", 0), i64in("indices", n="rank * n"), out("out", "domain")),
    Entry("spt_domain_free", VOID, buffer("d", "spt_domain *")),
    Entry("spt_domain_rank", R_I64, handle("d", "domain")),
    Entry("spt_domain_size", R_I64, handle("d", "domain")),
    Entry("spt_domain_indices", R_PTR_I64, handle("d", "domain")),
    Entry("spt_domain_contains", R_BOOL, handle("d", "domain"), i64in("index", n="d.rank")),
    Entry("spt_domain_result_extents", VOID, handle("d", "domain"), i64out("extents", n="d.rank")),
    Entry("spt_domain_result_index", STATUS, handle("d", "domain"), i64("rank", len_of="index"), i64in("index"),
          i64out("out", n="rank")),
    Entry("spt_inject_index", STATUS, i64("rank", len_of="index"), i64in("index"), i64("ninj", len_of="modes"),
          i64in("modes"), i64in("values", n="ninj"), i64out("out", n="rank + ninj")),
    Entry("spt_uninject_index", STATUS, i64("rank", len_of="index"), i64in("index"), i64("ninj", len_of="modes"),
          i64in("modes"), i64out("out", n="rank - ninj")),
    Entry("spt_domain_inject", STATUS, handle("d", "domain"), i64("ninj", len_of="modes"), i64in("modes"),
          i64in("values", n="ninj"), out("out", "domain")),
    Entry("spt_sparse_map_new_with_keys", STATUS, i64("ind_rank", 0), i64("dep_rank", 0), i64("nkeys", 0),
          i64in("keys", n="nkeys * ind_rank"), i64("npairs", 0), i64in("ind", n="npairs * ind_rank"),
          i64in("dep", n="npairs * dep_rank"), out("out", "smap")),
    Entry("spt_sparse_map_free", VOID, buffer("m", "spt_sparse_map *")),
    Entry("spt_sparse_map_ind_rank", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_dep_rank", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_nkeys", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_size", R_I64, handle("m", "smap")),
    Entry("spt_sparse_map_key", R_PTR_I64, handle("m", "smap"), i64("i", 0)),
    Entry("spt_sparse_map_find", R_BOOL, handle("m", "smap"), i64in("key", n="m.ind_rank"), i64out("i", n=1)),
    Entry("spt_sparse_map_domain", STATUS, handle("m", "smap"), i64("i", 0), out("out", "domain")),
    Entry("spt_tot_new", STATUS, enum("dtype", "spt_dtype", NDT), i64("outer_rank", 0, len_of="outer_shape"),
          i64in("outer_shape"), i64("inner_rank", 0), i64("n", 0), i64in("outer", n="n * outer_rank"),
          i64in("inner_shapes", n="n * inner_rank"),
          buffer("values", "const void *"), out("out", "tot")),
    Entry("spt_tot_free", VOID, buffer("t", "spt_tot *")),
    Entry("spt_tot_dtype", R_DTYPE, handle("t", "tot")),
    Entry("spt_tot_outer_rank", R_I64, handle("t", "tot")),
    Entry("spt_tot_outer_shape", R_PTR_I64, handle("t", "tot")),
    Entry("spt_tot_inner_rank", R_I64, handle("t", "tot")),
    Entry("spt_tot_count", R_I64, handle("t", "tot")),
    Entry("spt_tot_entry", STATUS, handle("t", "tot"), i64("i", 0), struct("inner", "spt_tot_inner *", L.spt_tot_inner,
                                                                            False)),
    Entry("spt_tot_get", STATUS, handle("t", "tot"), i64in("outer_index", n="t.outer_rank"),
          struct("inner", "spt_tot_inner *", L.spt_tot_inner, False)),
    Entry("spt_sparsify_dense", STATUS, handle("T", D), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), out("out", "tot")),
    Entry("spt_sparsify", STATUS, handle("T", T), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), out("out", "tot")),
    Entry("spt_sparsify_dense_block", STATUS, handle("T", D), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), i64("begin"), i64("end"),
          out("out", "tot")),
    Entry("spt_sparsify_block", STATUS, handle("T", T), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), i64("begin"), i64("end"),
          out("out", "tot")),
    Entry("spt_reduce_tot_sum", STATUS, handle("tot", "tot"), handle("sm", "smap"), i64("rank", len_of="shape"),
          i64in("shape"), out("out", D)),
    # files
    Entry("spt_read", STATUS, path("path"), enum("format", "spt_format", NFMT),
          struct("opts", "const spt_read_opts *", L.spt_read_opts), out("out", T)),
    Entry("spt_write", STATUS, handle("sp_input", T), path("path"), enum("format", "spt_format", NFMT)),
    Entry("spt_read_tns", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", T)),
    Entry("spt_parse_tns", STATUS, bytes_("text"), size("len", len_of="text"), text("name"),
          struct("opts", "const spt_read_opts *", L.spt_read_opts), out("out", T)),
    Entry("spt_write_tns", STATUS, handle("sp_input", T), path("path")),
    Entry("spt_read_mtx", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", T)),
    Entry("spt_read_mtx_dense", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", D)),
    Entry("spt_write_mtx", STATUS, handle("sp_input", T), path("path")),
    Entry("spt_read_npy", STATUS, path("path"), out("out", D)),
    Entry("spt_write_npy", STATUS, handle("array", D), path("path")),
    Entry("spt_read_npz", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", T)),
    Entry("spt_write_npz", STATUS, handle("sp_input", T), path("path"), enum("flavour", "spt_format", NFMT)),
    Entry("spt_write_spy_png", STATUS, handle("sp_input", T), i64("row_mode"), i64("col_mode"), i64("max_side"),
          path("path")),
    # the rest of tf.sparse: counts documented "or SPT_UNSET" take -1 (the wrappers map None to it)
    Entry("spt_segment_sum", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
    Entry("spt_segment_mean", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
    Entry("spt_segment_sqrt_n", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
    Entry("spt_expand_dims", STATUS, handle("t", T), i64("axis"), out("out", T)),
    Entry("spt_eye", STATUS, i64("num_rows", lo=0), i64("num_columns", lo=-1), enum("dtype", "spt_dtype", NDT),
          out("out", T)),
    Entry("spt_unary_op_from_name", STATUS, text("name"), buffer("out", "spt_unary_op *", nullable=False)),
    Entry("spt_map_values", STATUS, handle("t", T), enum("op", "spt_unary_op", NUNARY), out("out", T)),
    Entry("spt_map_values2", STATUS, handle("a", T), handle("b", T), enum("op", "spt_binary_op", 3), out("out", T)),
    Entry("spt_cast", STATUS, handle("t", T), enum("dtype", "spt_dtype", NDT), out("out", T)),
    Entry("spt_bincount", STATUS, handle("values", T), handle("weights", T, nullable=True), i64("axis"),
          i64("minlength", lo=-1), i64("maxlength", lo=-1), boolean("binary_output"), out("out", T)),
    Entry("spt_bincount_dense", STATUS, handle("values", D), handle("weights", D, nullable=True), i64("axis"),
          i64("minlength", lo=-1), i64("maxlength", lo=-1), boolean("binary_output"), out("out", T)),
    Entry("spt_cross", STATUS, buffer("inputs", "const spt_cross_input *", nullable=False), i64("n", lo=0),
          bytes_("separator"), i64("separator_len", len_of="separator"), out("out", T)),
    Entry("spt_cross_hashed", STATUS, buffer("inputs", "const spt_cross_input *", nullable=False), i64("n", lo=0),
          i64("num_buckets", lo=0), u64("hash_key"), out("out", T)),
    Entry("spt_embedding_lookup_sparse", STATUS, handles("params", D), i64("nparams", len_of="params"),
          handle("sp_ids", T), handle("sp_weights", T, nullable=True), enum("combiner", "spt_combiner", 3),
          out("out", D)),
    Entry("spt_safe_embedding_lookup_sparse", STATUS, handles("params", D), i64("nparams", len_of="params"),
          handle("sparse_ids", T), handle("sparse_weights", T, nullable=True), enum("combiner", "spt_combiner", 3),
          i64("default_id", lo=-1), out("out", D)),
    Entry("spt_serialize_sparse", STATUS, handle("t", T), buffer("data", "void * *", nullable=False),
          buffer("len", "size_t *", nullable=False)),
    Entry("spt_bytes_free", VOID, buffer("p", "void *")),
    Entry("spt_serialize_many_sparse", STATUS, handle("t", T), buffer("data", "void * * *", nullable=False),
          buffer("lens", "size_t * *", nullable=False), buffer("n", "int64_t *", nullable=False)),
    Entry("spt_serialized_free", VOID, buffer("data", "void * *"), buffer("lens", "size_t *"), i64("n", lo=0)),
    Entry("spt_deserialize_sparse", STATUS, buffer("data", "const void * const *", nullable=False),
          buffer("lens", "const size_t *", nullable=False), i64("batch_rank", 0, len_of="batch_shape"),
          i64in("batch_shape"), enum("dtype", "spt_dtype", NDT), out("out", T)),
    Entry("spt_deserialize_many_sparse", STATUS, buffer("data", "const void * const *", nullable=False),
          buffer("lens", "const size_t *", nullable=False), i64("n", lo=0), enum("dtype", "spt_dtype", NDT),
          out("out", T)),
    Entry("spt_mask_indices", STATUS, i64in("indices"), i64("n", len_of="indices"), i64in("mask_indices"),
          i64("m", len_of="mask_indices"), i64out("keep", n="n"), i64out("nkeep", n=1)),
    Entry("spt_write_spy_png_values", STATUS, handle("sp_input", T), i64("row_mode"), i64("col_mode"), i64("max_side"),
          path("path")),
]

BY_NAME = {e.name: e for e in ENTRIES}

# The sparse-algebra family keeps its entries in _registry_algebra.py (it imports the kinds
# above, so it is imported here, after them).
from ._registry_algebra import ALGEBRA_ENTRIES  # noqa: E402
ENTRIES += ALGEBRA_ENTRIES
BY_NAME.update((e.name, e) for e in ALGEBRA_ENTRIES)

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


def _bind():
    for e in ENTRIES:
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


_bind()


# ---------------------------------------------------------------------------------------------------
# Which Python ops this libspt supports
# ---------------------------------------------------------------------------------------------------

AVAILABLE = {}
ALL = []


def op(*c_names):
    """Register a Python op that calls the C functions `c_names`; when this libspt lacks one of them the op
    raises NotImplementedError (and spt.has_op(name) is False)."""

    def deco(f):
        ALL.append(f.__name__)
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
