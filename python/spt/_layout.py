# SPDX-License-Identifier: Apache-2.0
"""The layout ops (src/ops/layout): dense conversion, concat, split, slice, retain, reset_shape,
fill_empty_rows, reshape, transpose, merge, expand_dims, eye and mask; each one call into the C library
through the registry. Names and keyword arguments are TensorFlow 2's (TF1 spellings kept as aliases)."""
import ctypes

import numpy as np

from . import _lib as L
from ._args import _UNSET, _alias, _opt_count, _opt_i64, _spt_dtype
from ._export import exports, public
from ._registry import C, op, register
from ._dense import Dense
from ._tensor import SparseTensor, sparse_arg
from ._registry.kinds import (D, Entry, NDT, STATUS, T, boolean, boolin, enum, handle, handles, i64, i64in, i64out,
                              out, out_array, value)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_to_dense_into", STATUS, handle("sp_input", T), handle("out", D, const=False), boolean("initialize"),
          value("default_value", like="sp_input")),
    Entry("spt_to_dense", STATUS, handle("sp_input", T), value("default_value", like="sp_input"), boolean("validate_indices"),
          out("out", D)),
    Entry("spt_from_dense", STATUS, handle("d", D), value("default_value", like="d"), out("out", T)),
    Entry("spt_sparse_to_dense", STATUS, handle("sparse_indices", D), handle("output_shape", D),
          handle("sparse_values", D), handle("default_value", D), boolean("validate_indices"), out("out", D)),
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
    Entry("spt_merge", STATUS, handles("sp_ids"), i64("n_ids", len_of="sp_ids"), handle("sp_values", T),
          i64in("vocab_size"), i64("n_vocab", len_of="vocab_size"), boolean("already_sorted"), out("out", T)),
    Entry("spt_expand_dims", STATUS, handle("t", T), i64("axis"), out("out", T)),
    Entry("spt_eye", STATUS, i64("num_rows", lo=0), i64("num_columns", lo=-1), enum("dtype", "spt_dtype", NDT),
          out("out", T)),
    Entry("spt_mask_indices", STATUS, i64in("indices"), i64("n", len_of="indices"), i64in("mask_indices"),
          i64("m", len_of="mask_indices"), i64out("keep", n="n"), i64out("nkeep", n=1)),
]
register("layout", ENTRIES)


# ---- dense conversion ----------------------------------------------------------------------------


@op("spt_to_dense")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """tf.sparse.to_dense: a new numpy array of the dense shape filled with `default_value` (None = 0,
    False or b"" for strings; it must be exact in the tensor's dtype: -1 for uint8 or 0.5 for int32 is
    InvalidArgumentError), then the entries (last write wins). validate_indices: the indices must also be
    strictly increasing in row-major order. The array owns a C buffer (no extra copy); string tensors give
    an object array of bytes."""
    return C.spt_to_dense(sp_input, default_value, validate_indices)


@op("spt_to_dense_into")
def to_dense_into(sp_input, out, initialize=True, default_value=None):
    """ToDense into the caller's numpy array `out` (same dtype and rank, every dim >= the tensor's;
    C-contiguous, writable), written in place without a copy. Not for string tensors."""
    sp = sparse_arg(sp_input)
    if not isinstance(out, np.ndarray) or not out.flags.c_contiguous or not out.flags.writeable:
        raise L.err(L.DtypeError, "to_dense_into", "out must be a writable C-contiguous numpy array")
    if out.dtype.kind == "O":
        raise L.err(L.DtypeError, "to_dense_into", "string tensors are not supported")
    d = Dense.from_numpy(out)
    if d.keep is not out:
        raise L.err(L.DtypeError, "to_dense_into", "out has dtype %s, the tensor %s" % (out.dtype, sp.dtype))
    C.spt_to_dense_into(sp, d, initialize, default_value)
    return out


@op("spt_from_dense")
def from_dense(tensor, default_value=None, name=None):
    """tf.sparse.from_dense: the entries of a numpy array that differ from `default_value` (None = 0;
    NaN always differs, -0.0 equals 0.0), row-major, as a SparseTensor known valid and sorted. The input
    is read in place when it is C-contiguous (a copy otherwise)."""
    a = np.asarray(tensor)
    if a.dtype.kind in "SU":
        a = a.astype(object)
    return C.spt_from_dense(a, default_value)


@op("spt_sparse_to_dense", tf="compat.v1.sparse_to_dense")
def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True,
                    name=None):
    """tf.sparse_to_dense: indices (int32 or int64, rank 0, 1 or 2), output_shape (same integer dtype),
    values (rank 0 = broadcast, or [N]), default_value (a scalar of the values' dtype). Every conversion
    is exact: an output_shape or default_value the target dtype cannot hold is refused."""
    op = "sparse_to_dense"
    ix = np.asarray(sparse_indices)
    if ix.dtype not in (np.int32, np.int64):
        ix = L.i64_arg(ix, "sparse_indices", op)
    osh = np.asarray(output_shape)
    if osh.dtype != ix.dtype:
        if osh.size and osh.dtype.kind not in "iuO":
            raise L.err(L.DtypeError, op, "output_shape must be integers, got %s" % osh.dtype)
        osh = L.exact_cast(osh if osh.dtype.kind != "O" else L.i64_arg(osh, "output_shape", op), ix.dtype,
                           "output_shape", op)
    vals = np.asarray(sparse_values)
    if vals.dtype.kind in "SU":
        vals = vals.astype(object)
    dv = default_value if default_value is not None else (b"" if vals.dtype.kind == "O" else 0)
    dv = np.asarray(dv, dtype=object if vals.dtype.kind == "O" else None)
    if dv.ndim != 0:
        raise L.err(L.InvalidArgumentError, op, "default_value must be a scalar, got shape %s" % (dv.shape,))
    dv = L.exact_cast(dv, vals.dtype, "default_value", op)
    return C.spt_sparse_to_dense(ix, osh, vals, dv, validate_indices)


# ---- concat, split, slice, retain, reshape, transpose, merge -------------------------------------


@op("spt_concat")
def concat(axis=_UNSET, sp_inputs=None, expand_nonconcat_dims=_UNSET, name=None, expand_nonconcat_dim=_UNSET,
           concat_dim=_UNSET):
    """tf.sparse.concat: concatenate along `axis` (negative counts from the end); the output is in
    row-major order. expand_nonconcat_dims: the other dims become the largest over the inputs. TF1
    spellings accepted: expand_nonconcat_dim, concat_dim (for axis)."""
    axis = _alias("concat", axis, "axis", concat_dim, "concat_dim", None)
    expand = _alias("concat", expand_nonconcat_dims, "expand_nonconcat_dims", expand_nonconcat_dim,
                    "expand_nonconcat_dim", False)
    if isinstance(sp_inputs, SparseTensor):
        sp_inputs = [sp_inputs]
    sp_inputs = L.as_list(sp_inputs, "sp_inputs", "concat")
    if not sp_inputs:
        raise L.err(L.InvalidArgumentError, "concat", "sp_inputs is empty")
    return C.spt_concat(sp_inputs, axis, expand)


@op("spt_concat_primary")
def concat_primary(sp_inputs):
    """SparseTensor::Concat of TensorFlow's C++ API along the primary dim order[0] (every input needs an
    order)."""
    sp_inputs = L.as_list(sp_inputs, "sp_inputs", "concat_primary")
    if not sp_inputs:
        raise L.err(L.InvalidArgumentError, "concat_primary", "sp_inputs is empty")
    return C.spt_concat_primary(sp_inputs)


@op("spt_split")
def split(sp_input=None, num_split=None, axis=_UNSET, name=None, split_dim=_UNSET):
    """tf.sparse.split: a list of num_split SparseTensors along `axis`; the first shape[axis] % num_split
    pieces are one larger. Each piece keeps the input's entry order. TF1 spelling: split_dim."""
    axis = _alias("split", axis, "axis", split_dim, "split_dim", None)
    sp = sparse_arg(sp_input, "sp_input", "split")
    # check num_split and axis first (C ranges), then size the output slots from the checked value
    n = num_split if type(num_split) is int else L.int_arg(num_split, "num_split", "split")
    if not -(1 << 63) <= n <= L_INT64_MAX:
        raise L.range_error(n, "num_split", "split", "int64_t", -(1 << 63), L_INT64_MAX, -(1 << 63), L_INT64_MAX)
    biggest = max(list(sp.shape) + [0])
    # the C library rejects num_split outside [1, shape[axis]] before writing a slot
    slots = n if 1 <= n <= biggest else 1
    outs = (ctypes.c_void_p * slots)()
    try:
        C.spt_split(sp, axis, n, outs)
    finally:
        owned = [SparseTensor._own(outs[k]) for k in range(slots) if outs[k]]
    return owned


L_INT64_MAX = (1 << 63) - 1


@op("spt_slice")
def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    """tf.sparse.slice: the entries with start <= index < start + size, shifted by -start; the output dims
    are clipped to the input (0 when start is beyond it). start >= 0."""
    return C.spt_slice(sp_input, _opt_i64(start, "start", "slice"), _opt_i64(size, "size", "slice"))


@op("spt_retain")
def retain(sp_input, to_retain):
    """tf.sparse.retain: the entries whose to_retain flag is true (len(to_retain) == nnz), same shape."""
    return C.spt_retain(sp_input, to_retain)


@op("spt_reset_shape")
def reset_shape(sp_input, new_shape=None):
    """tf.sparse.reset_shape: new_shape >= the current shape per dim, or None for the tight bounding box."""
    return C.spt_reset_shape(sp_input, _opt_i64(new_shape, "new_shape", "reset_shape"))


@op("spt_fill_empty_rows")
def fill_empty_rows(sp_input, default_value, return_reverse_index_map=False, name=None):
    """tf.sparse.fill_empty_rows: (output, empty_row_indicator) where every empty row r of dim 0 gets an
    entry [r, 0, ...] = default_value (exact in the tensor's dtype); with return_reverse_index_map also
    the output position of each input entry. Entries are stably bucketed by row (columns keep their input
    order)."""
    res, e, r = C.spt_fill_empty_rows(sp_input, default_value)
    return (res, e, r) if return_reverse_index_map else (res, e)


@op("spt_reshape")
def reshape(sp_input, shape, name=None):
    """tf.sparse.reshape: the same entries in a new shape (at most one -1, inferred)."""
    return C.spt_reshape(sp_input, L.i64_arg(shape, "shape", "reshape").reshape(-1))


@op("spt_transpose")
def transpose(sp_input, perm=None, name=None):
    """tf.sparse.transpose: index[k] = input index[perm[k]] (None = reversed dims), sorted row-major."""
    return C.spt_transpose(sp_input, _opt_i64(perm, "perm", "transpose"))


@op("spt_merge", tf="compat.v1.sparse.merge")
def merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """tf.sparse.merge (TF1): sp_ids (one tensor or a list) of integer ids and sp_values of any dtype into
    a tensor of shape sp_ids[0].shape[:-1] + vocab_size(s), sorted row-major unless already_sorted."""
    ids = [sp_ids] if isinstance(sp_ids, SparseTensor) else L.as_list(sp_ids, "sp_ids", "merge")
    return C.spt_merge(ids, sp_values, L.i64_arg(vocab_size, "vocab_size", "merge").reshape(-1), already_sorted)


# ---- expand_dims, eye ----------------------------------------------------------------------------


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


# ---- tf.sparse.mask ------------------------------------------------------------------------------


@public
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


__all__ = exports(__name__)
