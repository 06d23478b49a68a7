# SPDX-License-Identifier: Apache-2.0
"""The rest of tf.sparse (segment reductions, bincount, cross, expand_dims, eye, map_values) and the sparse
functions TensorFlow keeps elsewhere (the unary math it dispatches on SparseTensor values, tf.cast, the
embedding lookups of tf.nn; tf.io's serialization is in _tfio.py), each one call into the C library through the registry.
Names and keyword arguments are TensorFlow 2's."""
import ctypes

import numpy as np

from . import _lib as L
from ._registry import C, op
from ._tensor import SparseTensor, sparse_arg
from ._dense import Dense

__all__ = ["IndexedSlices", "mask", "segment_sum", "segment_mean", "segment_sqrt_n", "expand_dims", "eye", "map_values", "cast",
           "bincount", "cross", "cross_hashed", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

UNSET = -1  # SPT_UNSET: TensorFlow's None for a count


def _opt_count(x, arg, fn):
    """None -> SPT_UNSET; an explicit value must be an integer >= 0 (so -1 never silently means None)."""
    if x is None:
        return UNSET
    v = x if type(x) is int else L.int_arg(x, arg, fn)
    if v < 0:
        raise L.err(L.InvalidArgumentError, fn, "%s must be >= 0 or None, got %d" % (arg, v))
    return v


def _spt_dtype(dtype, arg, fn):
    try:
        return L.spt_dtype_of(L.as_dtype(dtype))
    except L.DtypeError:
        raise L.err(L.DtypeError, fn, "%s=%r is not a dtype spt has" % (arg, dtype)) from None


def _dense_operand(x, arg, fn):
    """A dense operand as a Dense handle over a numpy array (lists become arrays as numpy converts them;
    strings become spt strings)."""
    if isinstance(x, SparseTensor):
        raise L.err(L.DtypeError, fn, "%s must be a dense array, got a SparseTensor" % arg)
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    if a.dtype.kind not in "biufcOSU":
        raise L.err(L.DtypeError, fn, "%s has dtype %s, which spt has not" % (arg, a.dtype))
    return Dense.from_numpy(a, arg=arg, op=fn)


# ---- segment reductions ----------------------------------------------------------------------------


def _segment(cfn, fn, data, indices, segment_ids, num_segments):
    return cfn(_dense_operand(data, "data", fn), _dense_operand(indices, "indices", fn),
               _dense_operand(segment_ids, "segment_ids", fn), _opt_count(num_segments, "num_segments", fn))


@op("spt_segment_sum")
def segment_sum(data, indices, segment_ids, num_segments=None, name=None):
    """tf.sparse.segment_sum: out[s] = the sum of data[indices[i]] over the positions i whose segment_ids[i]
    is s (a numpy array of data's dtype, shape [rows] + data.shape[1:]; rows = num_segments, or the last
    id + 1). indices and segment_ids are int32 or int64 vectors of one length; the ids must be sorted,
    >= 0 and < num_segments, the indices inside data's first dim (TensorFlow's checks)."""
    return _segment(C.spt_segment_sum, "segment_sum", data, indices, segment_ids, num_segments)


@op("spt_segment_mean")
def segment_mean(data, indices, segment_ids, num_segments=None, name=None):
    """tf.sparse.segment_mean: segment_sum divided by each segment's count (float32 / float64 data; an
    empty segment is 0)."""
    return _segment(C.spt_segment_mean, "segment_mean", data, indices, segment_ids, num_segments)


@op("spt_segment_sqrt_n")
def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None):
    """tf.sparse.segment_sqrt_n: segment_sum divided by the square root of each segment's count (float32 /
    float64 data; an empty segment is 0)."""
    return _segment(C.spt_segment_sqrt_n, "segment_sqrt_n", data, indices, segment_ids, num_segments)


# ---- expand_dims, eye ------------------------------------------------------------------------------


@op("spt_expand_dims")
def expand_dims(sp_input, axis=None, name=None):
    """tf.sparse.expand_dims: a dim of size 1 inserted at `axis` (in [-rank-1, rank]; None = -1, appended
    as TensorFlow 2 does), every index getting a 0 there."""
    return C.spt_expand_dims(sparse_arg(sp_input, "sp_input", "expand_dims"), -1 if axis is None else axis)


@op("spt_eye")
def eye(num_rows, num_columns=None, dtype=np.float32, name=None):
    """tf.sparse.eye: a [num_rows, num_columns] SparseTensor (num_columns None = num_rows) with 1 on the
    diagonal, in `dtype` (every dtype but string; TensorFlow's default float32)."""
    return C.spt_eye(num_rows, _opt_count(num_columns, "num_columns", "eye"), _spt_dtype(dtype, "dtype", "eye"))


# ---- map_values and the unary math on SparseTensor values -------------------------------------------

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
__all__ += [n for n in UNARY if n not in ("abs", "round")]  # `from spt import *` keeps the builtins


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
        from ._ops import sparse_dense_cwise_add, sparse_dense_cwise_mul

        return (sparse_dense_cwise_add if name == "add" else sparse_dense_cwise_mul)(sp, scalar)
    if kwargs or len(args) != 1:
        raise L.err(L.InvalidArgumentError, fn, "%s takes one SparseTensor argument" % name)
    return _UNARY_FN[name](args[0])


# ---- bincount ----------------------------------------------------------------------------------------


@op("spt_bincount", "spt_bincount_dense")
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """tf.sparse.bincount: the counts of the integer `values` (a SparseTensor or a dense array) as a
    SparseTensor. axis 0 (or None): over every value, shape [width]; axis -1: per row of dim 0, shape
    [rows, width]. width = maxlength when given, else max(largest value + 1, minlength). weights (of the
    same kind and shape as values) sum instead of counting; binary_output gives 1 per present value
    (not with weights). Values must be >= 0."""
    fn = "bincount"
    axis = 0 if axis is None else axis
    minl = _opt_count(minlength, "minlength", fn)
    maxl = _opt_count(maxlength, "maxlength", fn)
    if isinstance(values, SparseTensor):
        if weights is not None and not isinstance(weights, SparseTensor):
            raise L.err(L.InvalidArgumentError, fn, "weights must be a SparseTensor when values is one")
        return C.spt_bincount(values, weights, axis, minl, maxl, binary_output)
    if isinstance(weights, SparseTensor):
        raise L.err(L.InvalidArgumentError, fn, "weights must be dense when values is")
    v = _dense_operand(values, "values", fn)
    w = None if weights is None else _dense_operand(weights, "weights", fn)
    return C.spt_bincount_dense(v, w, axis, minl, maxl, binary_output)


# ---- cross, cross_hashed -----------------------------------------------------------------------------


def _cross_inputs(inputs, fn):
    """The C array of spt_cross_input and the objects it points into (kept alive by the caller)."""
    if isinstance(inputs, (SparseTensor, np.ndarray)):
        raise L.err(L.DtypeError, fn, "inputs must be a list of SparseTensors and dense arrays")
    items = L.as_list(inputs, "inputs", fn)
    arr = (L.spt_cross_input * max(1, len(items)))()
    keep = []
    for i, x in enumerate(items):
        if isinstance(x, SparseTensor):
            arr[i].sparse = x.h
        else:
            d = _dense_operand(x, "inputs[%d]" % i, fn)
            arr[i].dense = d.h
            x = d
        keep.append(x)
    return arr, len(items), keep


@op("spt_cross")
def cross(inputs, name=None, separator=None):
    """tf.sparse.cross: per row of the batch, every combination of one feature of each input (SparseTensors
    of rank 2 and dense rank-2 arrays of strings or integers), joined with `separator` (None = "_X_"), as a
    string SparseTensor [batch, crosses]. The sparse inputs come first, then the dense ones (TensorFlow's
    order)."""
    fn = "cross"
    sep = b"_X_" if separator is None else separator
    if not isinstance(sep, (str, bytes)):
        raise L.err(L.InvalidArgumentError, fn, "separator must be one string, got %s" % type(sep).__name__)
    arr, n, keep = _cross_inputs(inputs, fn)
    r = C.spt_cross(arr, n, sep)
    del keep
    return r


DEFAULT_HASH_KEY = 0xDECAFCAFFE  # SPT_CROSS_DEFAULT_HASH_KEY, TensorFlow's default


@op("spt_cross_hashed")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """tf.sparse.cross_hashed: the combinations of tf.sparse.cross as int64 fingerprints (FarmHash
    Fingerprint64 chained with FingerprintCat64 from hash_key, bit-exact with TensorFlow), modulo
    num_buckets (0 = 2^63 - 1). hash_key: an unsigned 64-bit int (None = TensorFlow's default)."""
    arr, n, keep = _cross_inputs(inputs, "cross_hashed")
    r = C.spt_cross_hashed(arr, n, num_buckets, DEFAULT_HASH_KEY if hash_key is None else hash_key)
    del keep
    return r


# ---- embedding lookups (tf.nn) -----------------------------------------------------------------------

_COMBINERS = {"sum": 0, "mean": 1, "sqrtn": 2}  # enum spt_combiner


def _combiner(c, fn):
    if not isinstance(c, str) or c not in _COMBINERS:
        raise L.err(L.InvalidArgumentError, fn, "combiner must be 'sum', 'mean' or 'sqrtn', got %r" % (c,))
    return _COMBINERS[c]


def _tables(params, fn, arg, strategy):
    """The table(s) C gets. A Python list is a list of shards, as in TensorFlow (anything else is one
    table). TensorFlow 2 places ids in shards with the "div" strategy: shard k holds a contiguous id range,
    so the shards stacked in order (a copy) are the whole table (their sizes must be TensorFlow's div
    sizes, their dtypes one);
    "mod" (ids id % P in shard id % P) is passed to C as it is."""
    if not isinstance(params, list):
        return [params]
    if not params:
        raise L.err(L.InvalidArgumentError, fn, "%s is an empty list" % arg)
    if not isinstance(strategy, str) or strategy not in ("div", "mod"):
        raise L.err(L.InvalidArgumentError, fn, "partition_strategy must be 'div' or 'mod', got %r" % (strategy,))
    if len(params) == 1 or strategy == "mod":
        return params
    shards = [np.asarray(p) for p in params]
    if any(s.ndim < 1 for s in shards):
        raise L.err(L.InvalidArgumentError, fn, "every shard of %s must have rank >= 1" % arg)
    if len({s.dtype for s in shards}) != 1:  # stacking would silently convert them to one dtype
        raise L.err(L.DtypeError, fn, "the shards of %s have different dtypes %s"
                    % (arg, sorted({str(s.dtype) for s in shards})))
    sizes = [s.shape[0] for s in shards]
    total, P = sum(sizes), len(shards)
    want = [total // P + (1 if k < total % P else 0) for k in range(P)]
    if sizes != want:
        raise L.err(L.InvalidArgumentError, fn, "%s: shard sizes %s are not the 'div' partition of %d ids into %d "
                    "shards %s" % (arg, sizes, total, P, want))
    try:
        return [np.concatenate(shards, axis=0)]
    except ValueError:
        raise L.err(L.InvalidArgumentError, fn, "the shards of %s disagree after their first dim" % arg) from None


def _no_max_norm(max_norm, allow_fast_lookup, fn):
    if max_norm is not None:
        raise L.err(L.InvalidArgumentError, fn, "max_norm is not supported by spt (give None)")
    L.bool_arg(allow_fast_lookup, "allow_fast_lookup", fn)  # a speed hint only: the result is the same


@op("spt_embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup=False, *, partition_strategy="div"):
    """tf.nn.embedding_lookup_sparse: row b of the result combines params[id] over the ids of row b of
    sp_ids (weighted by sp_weights, or 1): combiner 'sum', 'mean' (None: TensorFlow's default) or 'sqrtn'.
    params: one float32/float64 table (a numpy array) or a Python list of shards. Shards follow
    TensorFlow 2's "div" placement (stacked in order); partition_strategy="mod" (spt's keyword, TF1's
    other strategy) looks ids up in shard id % P at row id // P without stacking. max_norm is not
    supported (InvalidArgumentError unless None). Returns a numpy array [sp_ids.shape[0]] + row shape."""
    fn = "embedding_lookup_sparse"
    _no_max_norm(max_norm, allow_fast_lookup, fn)
    comb = _combiner("mean" if combiner is None else combiner, fn)
    return C.spt_embedding_lookup_sparse(_tables(params, fn, "params", partition_strategy),
                                         sparse_arg(sp_ids, "sp_ids", fn),
                                         None if sp_weights is None else sparse_arg(sp_weights, "sp_weights", fn),
                                         comb)


@op("spt_safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, max_norm=None, name=None, allow_fast_lookup=False, *,
                                 partition_strategy="div"):
    """tf.nn.safe_embedding_lookup_sparse: embedding_lookup_sparse after pruning ids < 0 (and, with
    weights, entries of weight <= 0); the rows are every dim of sparse_ids but the last (the result has
    shape sparse_ids.shape[:-1] + row shape); a row left empty is embedding_weights[default_id] (None:
    zeros). Shards and partition_strategy as embedding_lookup_sparse; max_norm is not supported."""
    fn = "safe_embedding_lookup_sparse"
    _no_max_norm(max_norm, allow_fast_lookup, fn)
    comb = _combiner(combiner, fn)
    ids = sparse_arg(sparse_ids, "sparse_ids", fn)
    w = None if sparse_weights is None else sparse_arg(sparse_weights, "sparse_weights", fn)
    return C.spt_safe_embedding_lookup_sparse(_tables(embedding_weights, fn, "embedding_weights", partition_strategy),
                                              ids, w, comb, _opt_count(default_id, "default_id", fn))


# ---- tf.sparse.mask ---------------------------------------------------------------------------------------

class IndexedSlices:
    """TensorFlow's IndexedSlices as plain numpy data: `values` (slices stacked along dim 0), `indices`
    (the int64 index of each slice in the dense tensor) and `dense_shape` (or None)."""

    __slots__ = ("values", "indices", "dense_shape")

    def __init__(self, values, indices, dense_shape=None):
        self.values, self.indices, self.dense_shape = values, indices, dense_shape

    def __reduce__(self):
        return (IndexedSlices, (self.values, self.indices, self.dense_shape))

    def __repr__(self):
        return "IndexedSlices(indices=%r, values=%r, dense_shape=%r)" % (self.indices, self.values, self.dense_shape)


@op("spt_mask_indices")
def mask(a, mask_indices, name=None):
    """tf.sparse.mask: the slices of the IndexedSlices `a` (an spt.IndexedSlices or any object with
    .values, .indices and .dense_shape) whose index is not in mask_indices, in order (a repeated index is
    kept each time, as TensorFlow's setdiff1d). The C library finds the positions; numpy gathers them."""
    fn = "mask"
    if not all(hasattr(a, k) for k in ("values", "indices", "dense_shape")):
        raise L.err(L.DtypeError, fn, "a must be an IndexedSlices (values, indices, dense_shape), got %s"
                    % type(a).__name__)
    ix = L.i64_arg(np.asarray(a.indices), "a.indices", fn)
    if ix.ndim != 1:
        raise L.err(L.InvalidArgumentError, fn, "a.indices must be a vector, got shape %s" % (ix.shape,))
    vals = np.asarray(a.values)
    if vals.ndim < 1 or vals.shape[0] != ix.size:
        raise L.err(L.InvalidArgumentError, fn, "a.values must have one slice per index (%d), got shape %s"
                    % (ix.size, vals.shape))
    m = L.i64_arg(mask_indices, "mask_indices", fn).reshape(-1)
    keep = np.empty(ix.size, np.int64)
    nkeep = np.zeros(1, np.int64)
    C.spt_mask_indices(ix, m, keep, nkeep)
    k = keep[:int(nkeep[0])]
    return IndexedSlices(vals[k], ix[k], a.dense_shape)


