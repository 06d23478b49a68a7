# SPDX-License-Identifier: Apache-2.0
"""The tf.sparse layout and math ops, each one call into the C library through the registry."""
import numpy as np

from . import _lib as L
from ._registry import C, op, AVAILABLE, ALL  # noqa: F401
from ._tensor import SparseTensor, sparse_arg

__all__ = []

_UNSET = object()


def available_ops():
    """The names of the ops (module functions) this libspt provides."""
    core = ["reorder", "argsort", "validate", "indices_valid", "to_dense", "to_dense_into", "from_dense",
            "sparse_to_dense", "group", "from_scipy", "to_scipy", "from_pydata", "to_pydata", "from_torch",
            "to_torch", "from_tf", "to_tf"]
    return sorted(set(core) | set(AVAILABLE))


def _export(f):
    __all__.append(f.__name__)
    return f


def _alias(fn, new, new_name, old, old_name, default):
    """TF2 keyword `new_name` with the TF1 spelling `old_name` kept as an alias (not both)."""
    if old is not _UNSET:
        if new is not _UNSET:
            raise L.err(L.InvalidArgumentError, fn, "give %s or its TF1 alias %s, not both" % (new_name, old_name))
        return old
    return default if new is _UNSET else new


def _opt_i64(x, name, fn):
    return None if x is None else L.i64_arg(x, name, fn).reshape(-1)


# ---- layout ops ------------------------------------------------------------------------------------


@_export
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


@_export
@op("spt_concat_primary")
def concat_primary(sp_inputs):
    """SparseTensor::Concat of TensorFlow's C++ API along the primary dim order[0] (every input needs an
    order)."""
    sp_inputs = L.as_list(sp_inputs, "sp_inputs", "concat_primary")
    if not sp_inputs:
        raise L.err(L.InvalidArgumentError, "concat_primary", "sp_inputs is empty")
    return C.spt_concat_primary(sp_inputs)


@_export
@op("spt_split")
def split(sp_input=None, num_split=None, axis=_UNSET, name=None, split_dim=_UNSET):
    """tf.sparse.split: a list of num_split SparseTensors along `axis`; the first shape[axis] % num_split
    pieces are one larger. Each piece keeps the input's entry order. TF1 spelling: split_dim."""
    import ctypes

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


@_export
@op("spt_slice")
def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    """tf.sparse.slice: the entries with start <= index < start + size, shifted by -start; the output dims
    are clipped to the input (0 when start is beyond it). start >= 0."""
    return C.spt_slice(sp_input, _opt_i64(start, "start", "slice"), _opt_i64(size, "size", "slice"))


@_export
@op("spt_retain")
def retain(sp_input, to_retain):
    """tf.sparse.retain: the entries whose to_retain flag is true (len(to_retain) == nnz), same shape."""
    return C.spt_retain(sp_input, to_retain)


@_export
@op("spt_reset_shape")
def reset_shape(sp_input, new_shape=None):
    """tf.sparse.reset_shape: new_shape >= the current shape per dim, or None for the tight bounding box."""
    return C.spt_reset_shape(sp_input, _opt_i64(new_shape, "new_shape", "reset_shape"))


@_export
@op("spt_fill_empty_rows")
def fill_empty_rows(sp_input, default_value, return_reverse_index_map=False, name=None):
    """tf.sparse.fill_empty_rows: (output, empty_row_indicator) where every empty row r of dim 0 gets an
    entry [r, 0, ...] = default_value (exact in the tensor's dtype); with return_reverse_index_map also
    the output position of each input entry. Entries are stably bucketed by row (columns keep their input
    order)."""
    res, e, r = C.spt_fill_empty_rows(sp_input, default_value)
    return (res, e, r) if return_reverse_index_map else (res, e)


@_export
@op("spt_reshape")
def reshape(sp_input, shape, name=None):
    """tf.sparse.reshape: the same entries in a new shape (at most one -1, inferred)."""
    return C.spt_reshape(sp_input, L.i64_arg(shape, "shape", "reshape").reshape(-1))


@_export
@op("spt_transpose")
def transpose(sp_input, perm=None, name=None):
    """tf.sparse.transpose: index[k] = input index[perm[k]] (None = reversed dims), sorted row-major."""
    return C.spt_transpose(sp_input, _opt_i64(perm, "perm", "transpose"))


@_export
@op("spt_to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """tf.sparse.to_indicator: a dense bool numpy array of shape shape[:-1] + [vocab_size], True at
    [index[:-1]..., id] for each entry (integer ids in [0, vocab_size))."""
    return C.spt_to_indicator(sp_input, vocab_size)


@_export
@op("spt_merge")
def merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """tf.sparse.merge (TF1): sp_ids (one tensor or a list) of integer ids and sp_values of any dtype into
    a tensor of shape sp_ids[0].shape[:-1] + vocab_size(s), sorted row-major unless already_sorted."""
    ids = [sp_ids] if isinstance(sp_ids, SparseTensor) else L.as_list(sp_ids, "sp_ids", "merge")
    return C.spt_merge(ids, sp_values, L.i64_arg(vocab_size, "vocab_size", "merge").reshape(-1), already_sorted)


# ---- math ops --------------------------------------------------------------------------------------


def _dense_like(x, sp, arg, fn):
    """A dense operand: numpy arrays are passed as they are (the C library checks the dtype); lists and
    scalars are converted exactly to the sparse operand's dtype."""
    if isinstance(x, np.ndarray):
        return x
    return L.exact_cast(np.asarray(x, dtype=object if sp.dtype.kind == "O" else None), sp.dtype, arg, fn)


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


@_export
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


@_export
@op("spt_reduce_sum_sparse")
def reduce_sum_sparse(sp_input, axis=_UNSET, keepdims=_UNSET, name=None, reduction_axes=_UNSET, keep_dims=_UNSET):
    """SparseReduceSumSparse: reduce_sum with a SparseTensor result (one entry per non-empty cell)."""
    ax, kd = _reduce_args("reduce_sum_sparse", axis, keepdims, reduction_axes, keep_dims)
    return C.spt_reduce_sum_sparse(sp_input, ax, kd)


@_export
@op("spt_reduce_max", "spt_reduce_max_sparse")
def reduce_max(sp_input, axis=_UNSET, keepdims=_UNSET, output_is_sparse=False, name=None, reduction_axes=_UNSET,
               keep_dims=_UNSET):
    """tf.sparse.reduce_max: the max of the STORED values per output cell (implicit zeros never take part;
    an empty cell is 0)."""
    ax, kd = _reduce_args("reduce_max", axis, keepdims, reduction_axes, keep_dims)
    if output_is_sparse:
        return C.spt_reduce_max_sparse(sp_input, ax, kd)
    return C.spt_reduce_max(sp_input, ax, kd)


@_export
@op("spt_reduce_max_sparse")
def reduce_max_sparse(sp_input, axis=_UNSET, keepdims=_UNSET, name=None, reduction_axes=_UNSET, keep_dims=_UNSET):
    """SparseReduceMaxSparse: reduce_max with a SparseTensor result."""
    ax, kd = _reduce_args("reduce_max_sparse", axis, keepdims, reduction_axes, keep_dims)
    return C.spt_reduce_max_sparse(sp_input, ax, kd)


@_export
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


@_export
@op("spt_sparse_dense_cwise_mul")
def sparse_dense_cwise_mul(sp_t, dense_t):
    """SparseDenseCwiseMul: value_i * dense[index_i] (dense broadcast to the sparse shape), same indices."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_mul")
    return C.spt_sparse_dense_cwise_mul(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_mul"))


@_export
@op("spt_sparse_dense_cwise_div")
def sparse_dense_cwise_div(sp_t, dense_t):
    """SparseDenseCwiseDiv: value_i / dense[index_i] (integer division truncates; by zero is an error)."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_div")
    return C.spt_sparse_dense_cwise_div(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_div"))


@_export
@op("spt_sparse_dense_cwise_add")
def sparse_dense_cwise_add(sp_t, dense_t):
    """SparseDenseCwiseAdd: value_i + dense[index_i] at the stored entries only."""
    sp = sparse_arg(sp_t, "sp_t", "sparse_dense_cwise_add")
    return C.spt_sparse_dense_cwise_add(sp, _dense_like(dense_t, sp, "dense_t", "sparse_dense_cwise_add"))


@_export
@op("spt_maximum")
def maximum(sp_a, sp_b, name=None):
    """tf.sparse.maximum: element-wise max over the union of entries (the implicit zero takes part)."""
    return C.spt_maximum(sp_a, sp_b)


@_export
@op("spt_minimum")
def minimum(sp_a, sp_b, name=None):
    """tf.sparse.minimum: element-wise min over the union of entries (the implicit zero takes part)."""
    return C.spt_minimum(sp_a, sp_b)


@_export
@op("spt_softmax")
def softmax(sp_input, name=None):
    """tf.sparse.softmax over the last dim of the stored values (rank >= 2), sorted row-major."""
    return C.spt_softmax(sp_input)


@_export
@op("spt_sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """tf.sparse.sparse_dense_matmul: op(A) @ op(B) as a numpy array (op = conjugate transpose when the
    adjoint flag is set). A sparse and B a numpy matrix, or A a numpy matrix and B sparse."""
    if not isinstance(sp_a, SparseTensor) and isinstance(b, SparseTensor):
        # op(A) op(B) = (op'(B) op'(A))^H with the adjoint flags flipped
        r = sparse_dense_matmul(b, sp_a, adjoint_a=not L.bool_arg(adjoint_b, "adjoint_b", "sparse_dense_matmul"),
                                adjoint_b=not L.bool_arg(adjoint_a, "adjoint_a", "sparse_dense_matmul"))
        return np.ascontiguousarray(r.conj().T)
    sp = sparse_arg(sp_a, "sp_a", "sparse_dense_matmul")
    return C.spt_sparse_dense_matmul(sp, _dense_like(b, sp, "b", "sparse_dense_matmul"), adjoint_a, adjoint_b)


@_export
@op("spt_sparse_dense_matvec")
def sparse_dense_matvec(sp_a, x, adjoint_a=False):
    """op(A) @ x for a rank-2 sparse A and a vector x, as a numpy vector."""
    sp = sparse_arg(sp_a, "sp_a", "sparse_dense_matvec")
    return C.spt_sparse_dense_matvec(sp, _dense_like(x, sp, "x", "sparse_dense_matvec"), adjoint_a)
