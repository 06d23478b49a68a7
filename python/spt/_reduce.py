# SPDX-License-Identifier: Apache-2.0
"""The reductions (src/ops/reduce): reduce_sum and reduce_max (dense or sparse result), the segment
reductions and softmax; each one call into the C library through the registry."""
from . import _lib as L
from ._args import _UNSET, _alias, _dense_operand, _opt_count
from ._export import exports
from ._registry import C, op, register
from ._registry.kinds import (D, Entry, STATUS, T, boolean, handle, i64, i64in, out)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_reduce_sum", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", D)),
    Entry("spt_reduce_sum_sparse", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", T)),
    Entry("spt_reduce_max", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", D)),
    Entry("spt_reduce_max_sparse", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", T)),
    Entry("spt_softmax", STATUS, handle("sp_input", T), out("out", T)),
    Entry("spt_segment_sum", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
    Entry("spt_segment_mean", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
    Entry("spt_segment_sqrt_n", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
]
register("reduce", ENTRIES)


def _axes(axis, fn):
    if axis is None:
        return None  # every dim (python's axis=None)
    ax = L.i64_arg(axis, "axis", fn)
    if ax.ndim > 1:
        raise L.err(L.InvalidArgumentError, fn, "axis must be a scalar or a vector, got shape %s" % (ax.shape,))
    return ax.reshape(-1)  # [] reduces nothing: a non-NULL pointer to 0 axes


def _reduce_args(fn, axis, keepdims, reduction_axes, keep_dims):
    axis = _alias(fn, axis, "axis", reduction_axes, "reduction_axes", None)
    keepdims = _alias(fn, keepdims, "keepdims", keep_dims, "keep_dims", False)
    return _axes(axis, fn), False if keepdims is None else keepdims


@op("spt_reduce_sum", "spt_reduce_sum_sparse")
def reduce_sum(sp_input, axis=_UNSET, keepdims=_UNSET, output_is_sparse=False, name=None, reduction_axes=_UNSET,
               keep_dims=_UNSET):
    """tf.sparse.reduce_sum: the sum over `axis` (None = every dim; [] = none, only duplicates merge) as a
    numpy array (0-d for a full reduction), or a SparseTensor with output_is_sparse. TF1 spellings:
    reduction_axes, keep_dims."""
    ax, kd = _reduce_args("reduce_sum", axis, keepdims, reduction_axes, keep_dims)
    if output_is_sparse:
        return C.spt_reduce_sum_sparse(sp_input, ax, kd)
    return C.spt_reduce_sum(sp_input, ax, kd)


@op("spt_reduce_sum_sparse")
def reduce_sum_sparse(sp_input, axis=_UNSET, keepdims=_UNSET, name=None, reduction_axes=_UNSET, keep_dims=_UNSET):
    """SparseReduceSumSparse: reduce_sum with a SparseTensor result (one entry per non-empty cell)."""
    ax, kd = _reduce_args("reduce_sum_sparse", axis, keepdims, reduction_axes, keep_dims)
    return C.spt_reduce_sum_sparse(sp_input, ax, kd)


@op("spt_reduce_max", "spt_reduce_max_sparse")
def reduce_max(sp_input, axis=_UNSET, keepdims=_UNSET, output_is_sparse=False, name=None, reduction_axes=_UNSET,
               keep_dims=_UNSET):
    """tf.sparse.reduce_max: the max of the STORED values per output cell (implicit zeros never take part;
    an empty cell is 0)."""
    ax, kd = _reduce_args("reduce_max", axis, keepdims, reduction_axes, keep_dims)
    if output_is_sparse:
        return C.spt_reduce_max_sparse(sp_input, ax, kd)
    return C.spt_reduce_max(sp_input, ax, kd)


@op("spt_reduce_max_sparse")
def reduce_max_sparse(sp_input, axis=_UNSET, keepdims=_UNSET, name=None, reduction_axes=_UNSET, keep_dims=_UNSET):
    """SparseReduceMaxSparse: reduce_max with a SparseTensor result."""
    ax, kd = _reduce_args("reduce_max_sparse", axis, keepdims, reduction_axes, keep_dims)
    return C.spt_reduce_max_sparse(sp_input, ax, kd)


# ---- segment reductions --------------------------------------------------------------------------


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


# ---- softmax -------------------------------------------------------------------------------------


@op("spt_softmax")
def softmax(sp_input, name=None):
    """tf.sparse.softmax over the last dim of the stored values (rank >= 2), sorted row-major."""
    return C.spt_softmax(sp_input)


__all__ = exports(__name__)
