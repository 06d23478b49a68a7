# SPDX-License-Identifier: Apache-2.0
"""The elementwise ops (src/ops/elementwise): add, subtract, multiply, divide, maximum, minimum, the sparse x
dense cwise ops, map_values with the unary math TensorFlow dispatches on SparseTensor values, and cast; each
one call into the C library through the registry."""
import ctypes

import numpy as np

from . import _lib as L
from ._args import _UNSET, _alias, _dense_like, _spt_dtype
from ._export import exports
from ._registry import C, op
from ._tensor import SparseTensor, sparse_arg


# ---- sparse + sparse, sparse + dense -------------------------------------------------------------


@op("spt_add", "spt_add_dense")
def add(a, b, threshold=_UNSET, name=None, thresh=_UNSET):
    """tf.sparse.add: sparse + sparse -> SparseTensor (sums with |a + b| < threshold dropped; entries held
    by one side are kept as they are); sparse + numpy array (either order) -> numpy array. `threshold`
    is a real scalar (TF1 spelling: thresh)."""
    threshold = _alias("add", threshold, "threshold", thresh, "thresh", 0.0)
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sp and b_sp:
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


@op("spt_sparse_dense_cwise_mul")
def sparse_dense_cwise_mul(sp_t, dense_t):
    """SparseDenseCwiseMul: value_i * dense[index_i] (dense broadcast to the sparse shape), same indices."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_mul")
    return C.spt_sparse_dense_cwise_mul(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_mul"))


@op("spt_sparse_dense_cwise_div")
def sparse_dense_cwise_div(sp_t, dense_t):
    """SparseDenseCwiseDiv: value_i / dense[index_i] (integer division truncates; by zero is an error)."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_div")
    return C.spt_sparse_dense_cwise_div(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_div"))


@op("spt_sparse_dense_cwise_add")
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


@op("spt_map_values", "spt_map_values2", "spt_cast", "spt_unary_op_from_name")
def map_values(op, *args, **kwargs):
    """tf.sparse.map_values(op, *args, **kwargs): op applied to the values of the SparseTensor arguments,
    which must all have the same indices (and shape); the result has those indices. spt runs it in C, so
    `op` must be one of spt's functions (spt.abs, spt.negative, spt.sign, spt.square, spt.sqrt, spt.rsqrt,
    spt.exp, spt.log1p, spt.sin, spt.tan, spt.asin, spt.atan, spt.asinh, spt.atanh, spt.tanh, spt.erf,
    spt.floor, spt.ceil, spt.round, spt.ones_like, spt.cast with a dtype, spt.math.add / subtract / multiply
    of two SparseTensors or add / multiply of a SparseTensor and a scalar) or the numpy ufunc that is one of
    them (np.abs, np.negative, ..., np.rint for round, np.add, np.multiply, ...). Any other op is an
    InvalidArgumentError naming it."""
    fn = "map_values"
    name = _fn_name(op)
    if name is None:
        raise L.err(L.InvalidArgumentError, fn, "op %s is not one spt computes in C (spt's unary math, spt.cast, "
                    "spt.math.add/subtract/multiply or the matching numpy ufunc)" % getattr(op, "__name__", repr(op)))
    sparse = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sparse:
        raise L.err(L.InvalidArgumentError, fn, "no SparseTensor among the arguments of %s" % name)
    if name == "cast":
        if len(args) + len(kwargs) != 2 or not isinstance(args[0], SparseTensor):
            raise L.err(L.InvalidArgumentError, fn, "cast takes (SparseTensor, dtype)")
        return cast(args[0], args[1] if len(args) > 1 else kwargs.get("dtype"))
    if name in BINARY:
        if kwargs or len(args) != 2:
            raise L.err(L.InvalidArgumentError, fn, "%s takes two arguments" % name)
        a, b = args
        if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
            return C.spt_map_values2(a, b, BINARY[name])
        sp, other = (a, b) if isinstance(a, SparseTensor) else (b, a)
        other = np.asarray(other, dtype=object if sp.dtype.kind == "O" else None)
        if name == "subtract" or other.ndim != 0:
            raise L.err(L.InvalidArgumentError, fn, "%s of a SparseTensor and a non-sparse value: only add and "
                        "multiply with a scalar are supported" % name)
        scalar = L.exact_cast(other, sp.dtype, "scalar", fn)
        return (sparse_dense_cwise_add if name == "add" else sparse_dense_cwise_mul)(sp, scalar)
    if kwargs or len(args) != 1:
        raise L.err(L.InvalidArgumentError, fn, "%s takes one SparseTensor argument" % name)
    return _UNARY_FN[name](args[0])


__all__ = exports(__name__)
