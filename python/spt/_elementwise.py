# SPDX-License-Identifier: Apache-2.0
"""The elementwise ops (src/ops/elementwise): add, subtract, multiply, divide, maximum, minimum, the sparse x
dense cwise ops, map_values with the unary math TensorFlow dispatches on SparseTensor values, and cast; each
one call into the C library through the registry."""
import ctypes

import numpy as np

from . import _lib as L
from ._args import _UNSET, _alias, _dense_like, _spt_dtype
from ._export import exports
from ._registry import C, op, register
from ._tensor import SparseTensor, sparse_arg
from ._registry.kinds import (D, Entry, NDT, NUNARY, STATUS, T, buffer, double, enum, handle, out, text)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_add", STATUS, handle("a", T), handle("b", T), double("threshold"), out("out", T)),
    Entry("spt_add_dense", STATUS, handle("a", T), handle("b", D), out("out", D)),
    Entry("spt_sparse_dense_cwise_mul", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_sparse_dense_cwise_div", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_sparse_dense_cwise_add", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_maximum", STATUS, handle("sp_a", T), handle("sp_b", T), out("out", T)),
    Entry("spt_minimum", STATUS, handle("sp_a", T), handle("sp_b", T), out("out", T)),
    Entry("spt_unary_op_from_name", STATUS, text("name"), buffer("out", "spt_unary_op *", nullable=False)),
    Entry("spt_map_values", STATUS, handle("t", T), enum("op", "spt_unary_op", NUNARY), out("out", T)),
    Entry("spt_map_values2", STATUS, handle("a", T), handle("b", T), enum("op", "spt_binary_op", 3), out("out", T)),
    Entry("spt_cast", STATUS, handle("t", T), enum("dtype", "spt_dtype", NDT), out("out", T)),
    Entry("spt_multiply", STATUS, handle("a", T), handle("b", T), out("out", T)),
    Entry("spt_subtract", STATUS, handle("a", T), handle("b", T), out("out", T)),
    Entry("spt_multiply_dense", STATUS, handle("a", T), handle("dense", D), out("out", T)),
    Entry("spt_divide_dense", STATUS, handle("a", T), handle("dense", D), out("out", T)),
]
register("elementwise", ENTRIES)


# ---- sparse + sparse, sparse + dense -------------------------------------------------------------


@op("spt_add", "spt_add_dense")
def add(a, b, threshold=_UNSET, name=None, thresh=_UNSET):
    """tf.sparse.add: sparse + sparse -> SparseTensor (sums with |a + b| < threshold dropped; entries held
    by one side are kept as they are); sparse + numpy array (either order) -> numpy array. `threshold`
    is a real scalar (TF1 spelling: thresh); for integer values an integer (a float there, even 1.0, is a
    DtypeError, as TensorFlow's TypeError when it converts the threshold to the values' dtype)."""
    given = threshold is not _UNSET or thresh is not _UNSET
    threshold = _alias("add", threshold, "threshold", thresh, "thresh", 0.0)
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sp and b_sp:
        if given and a.dtype.kind in "iu" and isinstance(threshold, (float, np.floating)):
            raise L.err(L.DtypeError, "add", "threshold %r is a float; the values are %s, so it must be an integer"
                        % (threshold, a.spt_dtype))
        return C.spt_add(a, b, threshold)
    if not a_sp and not b_sp:
        raise L.err(L.DtypeError, "add", "at least one operand must be a SparseTensor")
    sp, d = (a, b) if a_sp else (b, a)
    return C.spt_add_dense(sp, _dense_like(d, sp, "b", "add"))


@op("spt_subtract")
def subtract(a, b, name=None):
    """a - b of two SparseTensors of one shape with a sparse result (tf.math.subtract): the union of the
    entries; a cell held by both operands is kept even when the difference is zero."""
    return C.spt_subtract(a, b)


@op("spt_multiply", "spt_multiply_dense")
def multiply(a, b, name=None):
    """Elementwise product with a sparse result (tf.math.multiply / torch.mul semantics on the stored
    cells). Two SparseTensors of one shape: the intersection of their patterns. A SparseTensor and a numpy
    array (either order): numpy broadcasting, the sparse pattern kept (implicit zeros stay absent)."""
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sp and b_sp:
        return C.spt_multiply(a, b)
    if not a_sp and not b_sp:
        raise L.err(L.DtypeError, "multiply", "at least one operand must be a SparseTensor")
    sp, d = (a, b) if a_sp else (b, a)
    return C.spt_multiply_dense(sp, _dense_like(d, sp, "b" if a_sp else "a", "multiply"))


@op("spt_divide_dense")
def divide(a, b, name=None):
    """A SparseTensor divided by a numpy array under numpy broadcasting, the sparse pattern kept
    (tf.math.divide on the stored cells; integer division truncates toward zero, a zero divisor is an
    InvalidArgumentError)."""
    sp = sparse_arg(a, "a", "divide")
    return C.spt_divide_dense(sp, _dense_like(b, sp, "b", "divide"))


@op("spt_sparse_dense_cwise_mul", tf="raw_ops.SparseDenseCwiseMul")
def sparse_dense_cwise_mul(sp_t, dense_t):
    """SparseDenseCwiseMul: value_i * dense[index_i] (dense broadcast to the sparse shape), same indices."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_mul")
    return C.spt_sparse_dense_cwise_mul(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_mul"))


@op("spt_sparse_dense_cwise_div", tf="raw_ops.SparseDenseCwiseDiv")
def sparse_dense_cwise_div(sp_t, dense_t):
    """SparseDenseCwiseDiv: value_i / dense[index_i] (integer division truncates; by zero is an error)."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_div")
    return C.spt_sparse_dense_cwise_div(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_div"))


@op("spt_sparse_dense_cwise_add", tf="raw_ops.SparseDenseCwiseAdd")
def sparse_dense_cwise_add(sp_t, dense_t):
    """SparseDenseCwiseAdd: value_i + dense[index_i] at the stored entries only."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_add")
    return C.spt_sparse_dense_cwise_add(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_add"))


@op("spt_maximum")
def maximum(sp_a, sp_b, name=None):
    """tf.sparse.maximum: element-wise max over the union of entries (the implicit zero takes part)."""
    return C.spt_maximum(sp_a, sp_b)


@op("spt_minimum")
def minimum(sp_a, sp_b, name=None):
    """tf.sparse.minimum: element-wise min over the union of entries (the implicit zero takes part)."""
    return C.spt_minimum(sp_a, sp_b)


# ---- map_values, the unary math on SparseTensor values, cast -------------------------------------


# The unary functions of TensorFlow that dispatch on a SparseTensor (tf.math.abs(sp) is
# tf.sparse.map_values(tf.math.abs, sp)), by their TensorFlow names (C's spt_unary_op_from_name).
UNARY = ["abs", "negative", "sign", "square", "sqrt", "rsqrt", "exp", "log1p", "sin", "tan", "asin", "atan",
         "asinh", "atanh", "tanh", "erf", "floor", "ceil", "round", "ones_like"]


_UNARY_CODE = {}


def _unary_code(name):
    code = _UNARY_CODE.get(name)
    if code is None:
        out = ctypes.c_int(-1)
        C.spt_unary_op_from_name(name, out)
        code = _UNARY_CODE[name] = out.value
    return code


def _make_unary(name):
    def f(x, name=None):
        if not isinstance(x, SparseTensor):
            raise L.err(L.DtypeError, fname, "spt.%s takes a SparseTensor (its stored values are mapped); for a "
                        "dense array use numpy, got %s" % (fname, type(x).__name__))
        return C.spt_map_values(x, _unary_code(fname))

    fname = name
    f.__name__ = f.__qualname__ = name
    f.__doc__ = ("tf.math.%s on a SparseTensor: a new SparseTensor with the same indices and %s of each stored "
                 "value (implicit zeros are not touched), computed by the C library." % (name, name))
    return op("spt_map_values", "spt_unary_op_from_name")(f)


_UNARY_FN = {n: _make_unary(n) for n in UNARY}


globals().update(_UNARY_FN)


@op("spt_cast")
def cast(x, dtype, name=None):
    """tf.cast of a SparseTensor's values: a new tensor of `dtype` with the same indices (every conversion
    defined: integers wrap, floats to integers truncate and saturate, NaN -> 0; strings only to strings).
    See include/spt.h spt_cast."""
    sp = sparse_arg(x, "x", "cast")
    return C.spt_cast(sp, _spt_dtype(dtype, "dtype", "cast"))


BINARY = {"add": 0, "subtract": 1, "multiply": 2}  # enum spt_binary_op


def _make_binary(name):
    def f(x, y, name=None):
        return map_values(_BINARY_FN[fname], x, y)

    fname = name
    f.__name__ = f.__qualname__ = name
    f.__doc__ = ("tf.math.%s of the values of two SparseTensors with the same indices (map_values), or of a "
                 "SparseTensor's values and a scalar." % name)
    return f


_BINARY_FN = {n: _make_binary(n) for n in BINARY}


# numpy's ufuncs that are one of these functions
_NUMPY = {np.absolute: "abs", np.negative: "negative", np.sign: "sign", np.square: "square", np.sqrt: "sqrt",
          np.exp: "exp", np.log1p: "log1p", np.sin: "sin", np.tan: "tan", np.arcsin: "asin", np.arctan: "atan",
          np.arcsinh: "asinh", np.arctanh: "atanh", np.tanh: "tanh", np.floor: "floor", np.ceil: "ceil",
          np.rint: "round", np.ones_like: "ones_like", np.add: "add", np.subtract: "subtract",
          np.multiply: "multiply"}


def _fn_name(fn):
    """The C op behind a function map_values was given, or None."""
    for table in (_UNARY_FN, _BINARY_FN):
        for n, f in table.items():
            if fn is f:
                return n
    if fn is cast:
        return "cast"
    try:
        return _NUMPY.get(fn)
    except TypeError:  # unhashable
        return None


# numpy's function for each of spt's, for map_values's numpy path (the C kernels do not apply)
_NUMPY_OF = {"abs": np.absolute, "negative": np.negative, "sign": np.sign, "square": np.square, "sqrt": np.sqrt,
             "exp": np.exp, "log1p": np.log1p, "sin": np.sin, "tan": np.tan, "asin": np.arcsin,
             "atan": np.arctan, "asinh": np.arcsinh, "atanh": np.arctanh, "tanh": np.tanh, "floor": np.floor,
             "ceil": np.ceil, "round": np.rint, "ones_like": np.ones_like, "add": np.add, "subtract": np.subtract,
             "multiply": np.multiply}


def _map_in_c(name, args, kwargs, fn):
    """map_values of one of spt's functions by its C kernel, or None where no kernel applies (then the
    values go through numpy, as TensorFlow applies the op to the values tensor)."""
    if name == "cast":
        if len(args) + len(kwargs) != 2 or not isinstance(args[0], SparseTensor):
            raise L.err(L.InvalidArgumentError, fn, "cast takes (SparseTensor, dtype)")
        return cast(args[0], args[1] if len(args) > 1 else kwargs.get("dtype"))
    if kwargs:
        return None
    if name in BINARY and len(args) == 2:
        a, b = args
        if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
            return C.spt_map_values2(a, b, BINARY[name])
        sp, other = (a, b) if isinstance(a, SparseTensor) else (b, a)
        try:
            other = np.asarray(other, dtype=object if sp.dtype.kind == "O" else None)
        except (TypeError, ValueError, OverflowError) as e:
            raise L.err(L.InvalidArgumentError, fn, "the second argument of %s is not a value: %s" % (name, e)) from None
        if other.ndim != 0 or other.dtype.kind == "O":
            return None
        # the scalar converted exactly to the values' dtype (TensorFlow converts it so, or refuses)
        scalar = L.exact_cast(other, sp.dtype, "scalar", fn)
        if name != "subtract" and sp.rank > 0 and sp.dtype.kind in "iuf":
                return (sparse_dense_cwise_add if name == "add" else sparse_dense_cwise_mul)(sp, scalar)
        x = np.asarray(sp.values)
        with np.errstate(all="ignore"):
            out = _NUMPY_OF[name](x, scalar) if sp is a else _NUMPY_OF[name](scalar, x)
        return sp.with_values(np.asarray(out, dtype=sp.dtype))
    if name in _UNARY_FN and len(args) == 1 and isinstance(args[0], SparseTensor):
        return _UNARY_FN[name](args[0])
    return None


@op("spt_map_values", "spt_map_values2", "spt_cast", "spt_unary_op_from_name")
def map_values(op, *args, **kwargs):
    """tf.sparse.map_values(op, *args, **kwargs): op applied to the values of the SparseTensor arguments,
    which must all have the same indices and shape; the result has those indices. As in TensorFlow, `op`
    is called once, on the whole values (numpy arrays; other arguments are passed as given), and must
    return one array with a value per entry (its dtype is the result's; another length or rank is an
    InvalidArgumentError naming both). spt's own functions (spt.abs, ..., spt.round, spt.ones_like,
    spt.cast, spt.math.add / subtract / multiply) and the numpy ufuncs that are one of them (np.abs, ...,
    np.rint for round, np.add, np.multiply) run in C where a kernel applies; elsewhere (complex values
    times a scalar, a rank-0 tensor, keyword arguments) their numpy equivalent is applied to the values."""
    fn = "map_values"
    sparse = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sparse:
        raise L.err(L.InvalidArgumentError, fn, "no SparseTensor among the arguments of %s"
                    % getattr(op, "__name__", repr(op)))
    if not callable(op):
        raise L.err(L.DtypeError, fn, "op must be callable, got %s" % type(op).__name__)
    name = _fn_name(op)
    if name is not None:
        r = _map_in_c(name, args, kwargs, fn)
        if r is not None:
            return r
    first = sparse[0]
    for k, s in enumerate(sparse[1:], 1):
        if s.shape != first.shape or s.nnz != first.nnz or not np.array_equal(s.indices, first.indices):
            raise L.err(L.InvalidArgumentError, fn, "SparseTensor argument %d has other indices or shape than the "
                        "first (shape %s vs %s, %d vs %d entries)" % (k, s.shape, first.shape, s.nnz, first.nnz))
    f = _NUMPY_OF.get(name, op) if name is not None and name != "cast" else op

    def vals(a):
        return np.asarray(a.values) if isinstance(a, SparseTensor) else a

    if name is None:  # the caller's own function: what it raises is its own
        out = np.asarray(op(*[vals(a) for a in args], **{k: vals(v) for k, v in kwargs.items()}))
    else:
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(f(*[vals(a) for a in args], **{k: vals(v) for k, v in kwargs.items()}))
        except Exception as e:  # noqa: BLE001 - numpy's errors on bad arguments, as spt's classes
            cls = L.DtypeError if isinstance(e, TypeError) else L.InvalidArgumentError
            raise L.err(cls, fn, "%s of these arguments: %s" % (name, e)) from None
    if out.ndim != 1 or out.shape[0] != first.nnz:
        raise L.err(L.InvalidArgumentError, fn, "%s returned %s values for %d entries: the result must be one "
                    "array of %d values" % (getattr(op, "__name__", repr(op)),
                                            "a scalar" if out.ndim == 0 else "shape %s" % (out.shape,),
                                            first.nnz, first.nnz))
    return first.with_values(out)


__all__ = exports(__name__)
