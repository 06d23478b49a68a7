# SPDX-License-Identifier: Apache-2.0
"""The feature ops (src/ops/features): to_indicator, bincount, cross and cross_hashed, and the embedding
lookups of tf.nn; each one call into the C library through the registry."""
import numpy as np

from . import _lib as L
from ._args import UNSET, _dense_operand, _is_minus_one, _opt_count
from ._export import exports
from ._registry import C, op, register
from ._tensor import SparseTensor, sparse_arg
from ._registry.kinds import (D, Entry, STATUS, T, boolean, buffer, bytes_, enum, handle, handles, i64, out, u64)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_to_indicator", STATUS, handle("sp_input", T), i64("vocab_size"), out("out", D)),
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
]
register("features", ENTRIES)


@op("spt_to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """tf.sparse.to_indicator: a dense bool numpy array of shape shape[:-1] + [vocab_size], True at
    [index[:-1]..., id] for each entry (integer ids in [0, vocab_size))."""
    return C.spt_to_indicator(sp_input, vocab_size)


# ---- bincount ------------------------------------------------------------------------------------


@op("spt_bincount", "spt_bincount_dense")
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """tf.sparse.bincount: the counts of the integer `values` (a SparseTensor or a dense array) as a
    SparseTensor. axis 0 (or None): over every value, shape [width]; axis -1: per row of dim 0, shape
    [rows, width]. width = maxlength when given, else max(largest value + 1, minlength). weights (of the
    same kind and shape as values) sum instead of counting; binary_output gives 1 per present value
    (not with weights). Values must be >= 0. maxlength 0 keeps nothing (width 0); -1, like None, means
    not given (as TensorFlow's attributes)."""
    fn = "bincount"
    axis = 0 if axis is None else axis
    minl = UNSET if _is_minus_one(minlength) else _opt_count(minlength, "minlength", fn)
    maxl = UNSET if _is_minus_one(maxlength) else _opt_count(maxlength, "maxlength", fn)
    if isinstance(values, SparseTensor):
        if weights is not None and not isinstance(weights, SparseTensor):
            raise L.err(L.InvalidArgumentError, fn, "weights must be a SparseTensor when values is one")
        return C.spt_bincount(values, weights, axis, minl, maxl, binary_output)
    if isinstance(weights, SparseTensor):
        raise L.err(L.InvalidArgumentError, fn, "weights must be dense when values is")
    v = _dense_operand(values, "values", fn)
    w = None if weights is None else _dense_operand(weights, "weights", fn)
    return C.spt_bincount_dense(v, w, axis, minl, maxl, binary_output)


# ---- cross, cross_hashed -------------------------------------------------------------------------


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
    num_buckets (0 = 2^63 - 1). hash_key: an unsigned 64-bit int; None or 0 = TensorFlow's default key
    (its Python layer takes `hash_key or default`)."""
    arr, n, keep = _cross_inputs(inputs, "cross_hashed")
    zero = isinstance(hash_key, (int, np.integer)) and not isinstance(hash_key, bool) and int(hash_key) == 0
    r = C.spt_cross_hashed(arr, n, num_buckets, DEFAULT_HASH_KEY if hash_key is None or zero else hash_key)
    del keep
    return r


# ---- embedding lookups (tf.nn) -------------------------------------------------------------------


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


@op("spt_embedding_lookup_sparse", tf="nn.embedding_lookup_sparse")
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


@op("spt_safe_embedding_lookup_sparse", tf="nn.safe_embedding_lookup_sparse")
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


__all__ = exports(__name__)
