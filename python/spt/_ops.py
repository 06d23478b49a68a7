"""The tf.sparse layout and math ops, each one call into the C library."""
import ctypes

import numpy as np

from . import _lib as L
from ._lib import c_int64_p, cint, i64, vp, vpp, cbool
from ._tensor import SparseTensor, sparse_arg, own
from ._core import scalar_arg
from ._registry import op, AVAILABLE, ALL

__all__ = []


def available_ops():
    """The names of the ops (module functions) this libspt provides."""
    core = ["reorder", "argsort", "validate", "indices_valid", "to_dense", "to_dense_into", "from_dense",
            "sparse_to_dense", "group", "from_scipy", "to_scipy", "from_pydata", "to_pydata", "from_torch",
            "to_torch"]
    return sorted(set(core) | set(AVAILABLE))


def _export(f):
    __all__.append(f.__name__)
    return f


def _handles(sps, name):
    ts = [sparse_arg(s, name) for s in sps]
    arr = (vp * max(1, len(ts)))(*[t.h for t in ts])
    return ts, arr


def _axis(axis, name="axis"):
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, (bool, np.bool_)):
        return int(axis)
    a = np.asarray(axis)
    if a.shape != ():
        raise L.InvalidArgumentError("spt: %s should be a scalar, got shape %s" % (name, a.shape))
    if a.dtype.kind not in "iu":
        raise TypeError("spt: %s must be an integer, got %r" % (name, axis))
    return int(a)


def _opt_i64(x, name):
    return None if x is None else L.i64_array(x, name).reshape(-1)


def _exact_len(a, n, name, fn):
    if a is not None and a.size != n:
        raise L.InvalidArgumentError("spt.%s: %s must have %d entries (the rank), got %d" % (fn, name, n, a.size))


# ---- layout ops ------------------------------------------------------------------------------------

_concat_primary = L.fn("spt_concat_primary", cint, vpp, i64, vpp)
_concat = L.fn("spt_concat", cint, vpp, i64, i64, cbool, vpp)
_split = L.fn("spt_split", cint, vp, i64, i64, vpp)
_slice = L.fn("spt_slice", cint, vp, c_int64_p, c_int64_p, vpp)
_retain = L.fn("spt_retain", cint, vp, ctypes.POINTER(ctypes.c_bool), i64, vpp)
_reset_shape = L.fn("spt_reset_shape", cint, vp, c_int64_p, vpp)
_fill_empty_rows = L.fn("spt_fill_empty_rows", cint, vp, vp, vpp, vpp, vpp)
_reshape = L.fn("spt_reshape", cint, vp, i64, c_int64_p, vpp)
_transpose = L.fn("spt_transpose", cint, vp, c_int64_p, vpp)
_to_indicator = L.fn("spt_to_indicator", cint, vp, i64, vpp)
_merge = L.fn("spt_merge", cint, vpp, i64, vp, c_int64_p, i64, cbool, vpp)


@_export
@op("spt_concat")
def concat(axis, sp_inputs, expand_nonconcat_dim=False, name=None):
    """tf.sparse.concat: concatenate along `axis` (negative counts from the end); the output is in
    row-major order. expand_nonconcat_dim: the other dims become the largest over the inputs."""
    if isinstance(sp_inputs, SparseTensor):
        sp_inputs = [sp_inputs]
    ts, arr = _handles(list(sp_inputs), "sp_inputs")
    if not ts:
        raise L.InvalidArgumentError("spt.concat: sp_inputs is empty")
    out = vp()
    L.check(_concat(arr, len(ts), _axis(axis), bool(expand_nonconcat_dim), ctypes.byref(out)))
    return own(out)


@_export
@op("spt_concat_primary")
def concat_primary(sp_inputs):
    """The seed's SparseTensor::Concat along the primary dim order[0] (every input needs an order)."""
    ts, arr = _handles(list(sp_inputs), "sp_inputs")
    if not ts:
        raise L.InvalidArgumentError("spt.concat_primary: sp_inputs is empty")
    out = vp()
    L.check(_concat_primary(arr, len(ts), ctypes.byref(out)))
    return own(out)


@_export
@op("spt_split")
def split(sp_input=None, num_split=None, axis=None, name=None):
    """tf.sparse.split: a list of num_split SparseTensors along `axis`; the first shape[axis] % num_split
    pieces are one larger. Each piece keeps the input's entry order."""
    sp = sparse_arg(sp_input)
    n = _axis(num_split, "num_split")
    ax = _axis(axis)
    biggest = max([int(s) for s in sp.shape] + [0])
    slots = n if 1 <= n <= biggest else 1  # the C library rejects the others before writing a slot
    outs = (vp * slots)()
    L.check(_split(sp.h, ax, n, outs))
    return [SparseTensor._own(outs[k]) for k in range(n)]


@_export
@op("spt_slice")
def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    """tf.sparse.slice: the entries with start <= index < start + size, shifted by -start; the output
    dims are clipped to the input (0 when start is beyond it). start >= 0."""
    sp = sparse_arg(sp_input)
    st, sz = _opt_i64(start, "start"), _opt_i64(size, "size")
    _exact_len(st, sp.rank, "start", "slice")
    _exact_len(sz, sp.rank, "size", "slice")
    out = vp()
    L.check(_slice(sp.h, L.i64_ptr(st), L.i64_ptr(sz), ctypes.byref(out)))
    return own(out)


@_export
@op("spt_retain")
def retain(sp_input, to_retain):
    """tf.sparse.retain: the entries whose to_retain flag is true (len(to_retain) == nnz), same shape."""
    sp = sparse_arg(sp_input)
    m = np.asarray(to_retain)
    if m.ndim != 1:
        raise L.InvalidArgumentError("spt.retain: to_retain must be a vector, got shape %s" % (m.shape,))
    m = L.contig(m.astype(bool, copy=False), np.bool_)
    out = vp()
    L.check(_retain(sp.h, ctypes.cast(L.ptr_of(m), ctypes.POINTER(ctypes.c_bool)), m.size, ctypes.byref(out)))
    return own(out)


@_export
@op("spt_reset_shape")
def reset_shape(sp_input, new_shape=None):
    """tf.sparse.reset_shape: new_shape >= the current shape per dim, or None for the tight bounding box."""
    sp = sparse_arg(sp_input)
    ns = _opt_i64(new_shape, "new_shape")
    _exact_len(ns, sp.rank, "new_shape", "reset_shape")
    out = vp()
    L.check(_reset_shape(sp.h, L.i64_ptr(ns) if ns is not None else None, ctypes.byref(out)))
    return own(out)


@_export
@op("spt_fill_empty_rows")
def fill_empty_rows(sp_input, default_value, return_reverse_index_map=False, name=None):
    """tf.sparse.fill_empty_rows: (output, empty_row_indicator) where every empty row r of dim 0 gets an
    entry [r, 0, ...] = default_value; with return_reverse_index_map also the output position of each
    input entry. Entries are stably bucketed by row (columns keep their input order)."""
    from ._core import scalar_arg

    sp = sparse_arg(sp_input)
    keep, ptr = scalar_arg(default_value, sp.dtype)
    out, eri, rim = vp(), vp(), vp()
    L.check(_fill_empty_rows(sp.h, ptr, ctypes.byref(out), ctypes.byref(eri), ctypes.byref(rim)))
    res = own(out)
    e = L.Dense(eri.value).numpy(readonly=False)
    r = L.Dense(rim.value).numpy(readonly=False)
    return (res, e, r) if return_reverse_index_map else (res, e)


@_export
@op("spt_reshape")
def reshape(sp_input, shape, name=None):
    """tf.sparse.reshape: the same entries in a new shape (at most one -1, inferred)."""
    sp = sparse_arg(sp_input)
    ns = L.i64_array(shape, "shape").reshape(-1)
    out = vp()
    L.check(_reshape(sp.h, ns.size, L.i64_ptr(ns), ctypes.byref(out)))
    return own(out)


@_export
@op("spt_transpose")
def transpose(sp_input, perm=None, name=None):
    """tf.sparse.transpose: index[k] = input index[perm[k]] (None = reversed dims), sorted row-major."""
    sp = sparse_arg(sp_input)
    p = _opt_i64(perm, "perm")
    _exact_len(p, sp.rank, "perm", "transpose")
    out = vp()
    L.check(_transpose(sp.h, L.i64_ptr(p) if p is not None else None, ctypes.byref(out)))
    return own(out)


@_export
@op("spt_to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """tf.sparse.to_indicator: a dense bool numpy array of shape shape[:-1] + [vocab_size], True at
    [index[:-1]..., id] for each entry (integer ids in [0, vocab_size))."""
    sp = sparse_arg(sp_input)
    out = vp()
    L.check(_to_indicator(sp.h, _axis(vocab_size, "vocab_size"), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)


@_export
@op("spt_merge")
def merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """tf.sparse.merge: sp_ids (one tensor or a list) of integer ids and sp_values of any dtype into a
    tensor of shape sp_ids[0].shape[:-1] + vocab_size(s), sorted row-major unless already_sorted."""
    ids = [sp_ids] if isinstance(sp_ids, SparseTensor) else list(sp_ids)
    ts, arr = _handles(ids, "sp_ids")
    vs = sparse_arg(sp_values, "sp_values")
    voc = L.i64_array(vocab_size, "vocab_size").reshape(-1)
    out = vp()
    L.check(_merge(arr, len(ts), vs.h, L.i64_ptr(voc), voc.size, bool(already_sorted), ctypes.byref(out)))
    return own(out)


# ---- math ops --------------------------------------------------------------------------------------

_reduce_sum = L.fn("spt_reduce_sum", cint, vp, c_int64_p, i64, cbool, vpp)
_reduce_sum_sparse = L.fn("spt_reduce_sum_sparse", cint, vp, c_int64_p, i64, cbool, vpp)
_reduce_max = L.fn("spt_reduce_max", cint, vp, c_int64_p, i64, cbool, vpp)
_reduce_max_sparse = L.fn("spt_reduce_max_sparse", cint, vp, c_int64_p, i64, cbool, vpp)
_add = L.fn("spt_add", cint, vp, vp, ctypes.c_double, vpp)
_add_dense = L.fn("spt_add_dense", cint, vp, vp, vpp)
_cwise_mul = L.fn("spt_sparse_dense_cwise_mul", cint, vp, vp, vpp)
_cwise_div = L.fn("spt_sparse_dense_cwise_div", cint, vp, vp, vpp)
_cwise_add = L.fn("spt_sparse_dense_cwise_add", cint, vp, vp, vpp)
_maximum = L.fn("spt_maximum", cint, vp, vp, vpp)
_minimum = L.fn("spt_minimum", cint, vp, vp, vpp)
_softmax = L.fn("spt_softmax", cint, vp, vpp)
_matmul = L.fn("spt_sparse_dense_matmul", cint, vp, vp, cbool, cbool, vpp)
_matvec = L.fn("spt_sparse_dense_matvec", cint, vp, vp, cbool, vpp)


def _dense_like(x, sp):
    """A dense operand: numpy arrays are passed as they are (the C library checks the dtype); lists and
    scalars are converted to the sparse operand's dtype."""
    if isinstance(x, np.ndarray):
        return L.Dense.from_numpy(x)
    return L.Dense.from_numpy(np.asarray(x, dtype=sp.dtype))


def _reduce(cfn, sp_input, axis, keepdims, sparse_out):
    sp = sparse_arg(sp_input)
    if axis is None:
        ptr, n = None, 0  # every dim (python's axis=None)
    else:
        ax = L.i64_array(axis, "axis")
        if ax.ndim > 1:
            raise L.InvalidArgumentError("spt: reduction axes must be a scalar or a vector, got shape %s" % (ax.shape,))
        ax = ax.reshape(-1)
        n = ax.size
        ptr = L.i64_ptr(ax) if n else (ctypes.c_int64 * 1)()  # [] reduces nothing: non-NULL, 0 axes
    out = vp()
    L.check(cfn(sp.h, ctypes.cast(ptr, c_int64_p) if ptr is not None else None, n, bool(keepdims),
                ctypes.byref(out)))
    return own(out) if sparse_out else L.Dense(out.value).numpy(readonly=False)


@_export
@op("spt_reduce_sum", "spt_reduce_sum_sparse")
def reduce_sum(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """tf.sparse.reduce_sum: the sum over `axis` (None = every dim; [] = none, only duplicates merge) as a
    numpy array (0-d for a full reduction), or a SparseTensor with output_is_sparse."""
    return _reduce(_reduce_sum_sparse if output_is_sparse else _reduce_sum, sp_input, axis, keepdims,
                   output_is_sparse)


@_export
@op("spt_reduce_sum_sparse")
def reduce_sum_sparse(sp_input, axis=None, keepdims=False, name=None):
    """SparseReduceSumSparse: reduce_sum with a SparseTensor result (one entry per non-empty cell)."""
    return _reduce(_reduce_sum_sparse, sp_input, axis, keepdims, True)


@_export
@op("spt_reduce_max", "spt_reduce_max_sparse")
def reduce_max(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """tf.sparse.reduce_max: the max of the STORED values per output cell (implicit zeros never take
    part; an empty cell is 0)."""
    return _reduce(_reduce_max_sparse if output_is_sparse else _reduce_max, sp_input, axis, keepdims,
                   output_is_sparse)


@_export
@op("spt_reduce_max_sparse")
def reduce_max_sparse(sp_input, axis=None, keepdims=False, name=None):
    """SparseReduceMaxSparse: reduce_max with a SparseTensor result."""
    return _reduce(_reduce_max_sparse, sp_input, axis, keepdims, True)


@_export
@op("spt_add", "spt_add_dense")
def add(a, b, threshold=0, name=None):
    """tf.sparse.add: sparse + sparse -> SparseTensor (sums with |a + b| < threshold dropped; entries held
    by one side are kept as they are); sparse + numpy array (either order) -> numpy array."""
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    out = vp()
    if a_sp and b_sp:
        L.check(_add(a.h, b.h, float(threshold), ctypes.byref(out)))
        return own(out)
    if not a_sp and not b_sp:
        raise TypeError("spt.add: at least one operand must be a SparseTensor")
    sp, d = (a, b) if a_sp else (b, a)
    dd = _dense_like(d, sp)
    L.check(_add_dense(sp.h, dd.h, ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)


def _cwise(cfn, sp_t, dense_t):
    sp = sparse_arg(sp_t)
    dd = _dense_like(dense_t, sp)
    out = vp()
    L.check(cfn(sp.h, dd.h, ctypes.byref(out)))
    return own(out)


@_export
@op("spt_sparse_dense_cwise_mul")
def sparse_dense_cwise_mul(sp_t, dense_t):
    """SparseDenseCwiseMul: value_i * dense[index_i] (dense broadcast to the sparse shape), same indices."""
    return _cwise(_cwise_mul, sp_t, dense_t)


@_export
@op("spt_sparse_dense_cwise_div")
def sparse_dense_cwise_div(sp_t, dense_t):
    """SparseDenseCwiseDiv: value_i / dense[index_i] (integer division truncates; by zero is an error)."""
    return _cwise(_cwise_div, sp_t, dense_t)


@_export
@op("spt_sparse_dense_cwise_add")
def sparse_dense_cwise_add(sp_t, dense_t):
    """SparseDenseCwiseAdd: value_i + dense[index_i] at the stored entries only."""
    return _cwise(_cwise_add, sp_t, dense_t)


@_export
@op("spt_maximum")
def maximum(sp_a, sp_b, name=None):
    """tf.sparse.maximum: element-wise max over the union of entries (the implicit zero takes part)."""
    a, b = sparse_arg(sp_a, "sp_a"), sparse_arg(sp_b, "sp_b")
    out = vp()
    L.check(_maximum(a.h, b.h, ctypes.byref(out)))
    return own(out)


@_export
@op("spt_minimum")
def minimum(sp_a, sp_b, name=None):
    """tf.sparse.minimum: element-wise min over the union of entries (the implicit zero takes part)."""
    a, b = sparse_arg(sp_a, "sp_a"), sparse_arg(sp_b, "sp_b")
    out = vp()
    L.check(_minimum(a.h, b.h, ctypes.byref(out)))
    return own(out)


@_export
@op("spt_softmax")
def softmax(sp_input, name=None):
    """tf.sparse.softmax over the last dim of the stored values (rank >= 2), sorted row-major."""
    sp = sparse_arg(sp_input)
    out = vp()
    L.check(_softmax(sp.h, ctypes.byref(out)))
    return own(out)


@_export
@op("spt_sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """tf.sparse.sparse_dense_matmul: op(A) @ op(B) as a numpy array (op = conjugate transpose when the
    adjoint flag is set). A sparse and B a numpy matrix, or A a numpy matrix and B sparse."""
    out = vp()
    if not isinstance(sp_a, SparseTensor) and isinstance(b, SparseTensor):
        # op(A) op(B) = (op'(B) op'(A))^H with the adjoint flags flipped
        r = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
        return np.ascontiguousarray(r.conj().T)
    sp = sparse_arg(sp_a, "sp_a")
    dd = _dense_like(b, sp)
    L.check(_matmul(sp.h, dd.h, bool(adjoint_a), bool(adjoint_b), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)


@_export
@op("spt_sparse_dense_matvec")
def sparse_dense_matvec(sp_a, x, adjoint_a=False):
    """op(A) @ x for a rank-2 sparse A and a vector x, as a numpy vector."""
    sp = sparse_arg(sp_a, "sp_a")
    dd = _dense_like(x, sp)
    out = vp()
    L.check(_matvec(sp.h, dd.h, bool(adjoint_a), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)
