"""Sparse algebra: products and elementwise ops with sparse results, batched products, contractions with
dense factors (MTTKRP, tensor-times-vector, tensor-times-matrix) and the gradient kernels of the sparse
ops, each one call into the C library through the registry (entries in _registry_algebra.py).

Names and keywords follow TensorFlow where it has the op (tf.sparse, tf.raw_ops.Sparse*Grad) and PyTorch
otherwise (torch.bmm, torch.mul of sparse tensors). The gradient kernels return the gradient with
respect to the input *values* (one element per stored entry, in the input's entry order) as float32 or
float64 numpy arrays.
"""
import ctypes

import numpy as np

from . import _lib as L
from ._registry import C, op
from ._tensor import SparseTensor, sparse_arg
from ._dense import Dense
from ._ops import _dense_like

__all__ = []


def _export(f):
    __all__.append(f.__name__)
    return f


# ---- products and elementwise ops with sparse results -------------------------------------------


@_export
@op("spt_sparse_sparse_matmul")
def sparse_sparse_matmul(a, b, adjoint_a=False, adjoint_b=False, keep_zeros=False, name=None):
    """op(a) @ op(b) of two sparse matrices (rank 2) or two batches of them (rank 3, batch dim first) as a
    SparseTensor (torch.sparse.mm; TensorFlow's SparseMatMul with two sparse operands). op(x) is the
    conjugate transpose when the adjoint flag is set. The result is row-major without duplicates; cells
    whose sum is zero are dropped unless keep_zeros. Also `a @ b` for two SparseTensors."""
    return C.spt_sparse_sparse_matmul(a, b, adjoint_a, adjoint_b, keep_zeros)


@_export
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


@_export
@op("spt_subtract")
def subtract(a, b, name=None):
    """a - b of two SparseTensors of one shape with a sparse result (tf.math.subtract): the union of the
    entries; a cell held by both operands is kept even when the difference is zero."""
    return C.spt_subtract(a, b)


@_export
@op("spt_divide_dense")
def divide(a, b, name=None):
    """A SparseTensor divided by a numpy array under numpy broadcasting, the sparse pattern kept
    (tf.math.divide on the stored cells; integer division truncates toward zero, a zero divisor is an
    InvalidArgumentError)."""
    sp = sparse_arg(a, "a", "divide")
    return C.spt_divide_dense(sp, _dense_like(b, sp, "b", "divide"))


@_export
@op("spt_sparse_dense_bmm")
def bmm(a, b, adjoint_a=False, adjoint_b=False, name=None):
    """Batched sparse x dense product (torch.bmm): a is a SparseTensor [P, M, K] (batch dim first), b a numpy
    array [P, K, N] or one matrix [K, N] shared by the batch; the adjoint flags take the conjugate
    transpose of each matrix. Returns a numpy array [P, M, N]."""
    sp = sparse_arg(a, "a", "bmm")
    return C.spt_sparse_dense_bmm(sp, _dense_like(b, sp, "b", "bmm"), adjoint_a, adjoint_b)


# ---- contractions with dense factors ------------------------------------------------------------


@_export
@op("spt_mttkrp")
def mttkrp(t, factors, mode):
    """MTTKRP (matricized tensor times Khatri-Rao product, the kernel of CP decomposition): for a rank-N
    SparseTensor t and factor matrices factors[m] [shape[m], R] (factors[mode] is not read and may be
    None), the numpy array out[i, r] = sum over entries with index[mode] == i of
    value * prod_{m != mode} factors[m][index[m], r]. mode is in [0, N)."""
    sp = sparse_arg(t, "t", "mttkrp")
    factors = L.as_list(factors, "factors", "mttkrp")
    # factors[mode] is not read: None there becomes an empty placeholder (and, when mode is outside
    # [0, N), every None does, so that C reports the mode rather than a missing factor)
    bad_mode = type(mode) is int and not 0 <= mode < len(factors)
    fs = []
    for k, f in enumerate(factors):
        if f is None and type(mode) is int and (k == mode or bad_mode):
            fs.append(np.zeros((0, 0), dtype=sp.dtype))
        elif f is None:
            fs.append(None)  # refused by the registry, naming factors
        else:
            fs.append(_dense_like(f, sp, "factors", "mttkrp"))
    return C.spt_mttkrp(sp, fs, mode)


@_export
@op("spt_ttv")
def ttv(t, v, mode):
    """Tensor times vector along `mode` (summed away): a SparseTensor of rank N-1 holding, for every
    non-empty cell of the other modes, sum value * v[index[mode]]. mode is in [0, N)."""
    sp = sparse_arg(t, "t", "ttv")
    return C.spt_ttv(sp, _dense_like(v, sp, "v", "ttv"), mode)


@_export
@op("spt_ttm")
def ttm(t, m, mode):
    """Tensor times matrix along `mode` (the mode-n product): m is [J, shape[mode]]; the result is a
    SparseTensor of t's shape with shape[mode] replaced by J, out[..., j, ...] = sum_k t[..., k, ...] m[j, k],
    holding all J entries of every non-empty fiber of t. mode is in [0, N)."""
    sp = sparse_arg(t, "t", "ttm")
    return C.spt_ttm(sp, _dense_like(m, sp, "m", "ttm"), mode)


def _operands(a, b, fn):
    """(sparse, dense, swapped) of a sparse x dense op given in either order."""
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sp and b_sp:
        raise L.err(L.DtypeError, fn, "both operands are SparseTensors; one must be dense (a numpy array)")
    if not a_sp and not b_sp:
        raise L.err(L.DtypeError, fn, "one operand must be a SparseTensor, got %s and %s"
                    % (type(a).__name__, type(b).__name__))
    sp, d = (a, b) if a_sp else (b, a)
    return sp, _dense_like(d, sp, "b" if a_sp else "a", fn), not a_sp


def _axis_list(x, arg):
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return np.array([x], dtype=np.int64)
    ax = L.i64_arg(x, arg, "tensordot")
    if ax.ndim > 1:
        raise L.err(L.InvalidArgumentError, "tensordot", "%s must be an int or a list of ints, got shape %s"
                    % (arg, ax.shape))
    return ax.reshape(-1)


@_export
@op("spt_tensordot")
def tensordot(a, b, axes=2, name=None):
    """numpy.tensordot of a SparseTensor and a numpy array (in either order), returning a numpy array whose
    dims are a's free dims followed by b's. axes: an int n (the last n dims of a with the first n of b), or
    a pair (axes_a, axes_b) of ints or equal-length lists of dims (negative dims count from the end)."""
    sp, d, swapped = _operands(a, b, "tensordot")
    ra, rb = (sp.rank, np.ndim(d)) if not swapped else (np.ndim(d), sp.rank)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, (bool, np.bool_)):
        n = int(axes)
        if not 0 <= n <= min(ra, rb):
            raise L.err(L.InvalidArgumentError, "tensordot", "axes=%d must be in [0, %d] (the operands have ranks "
                        "%d and %d)" % (n, min(ra, rb), ra, rb))
        xa, xb = np.arange(ra - n, ra, dtype=np.int64), np.arange(n, dtype=np.int64)
    else:
        try:
            pa, pb = axes
        except (TypeError, ValueError):
            raise L.err(L.InvalidArgumentError, "tensordot", "axes must be an int or a pair (axes_a, axes_b), got %r"
                        % (axes,)) from None
        xa, xb = _axis_list(pa, "axes[0]"), _axis_list(pb, "axes[1]")
        if xa.size != xb.size:
            raise L.err(L.InvalidArgumentError, "tensordot", "axes[0] has %d dims and axes[1] %d; they must pair up"
                        % (xa.size, xb.size))
    if not swapped:
        return C.spt_tensordot(sp, d, xa, xb)
    # dense x sparse: the sparse-first product, its dims moved back (the dense operand's free dims first)
    r = C.spt_tensordot(sp, d, xb, xa)
    fs, fd = rb - xa.size, ra - xa.size
    return r.transpose(list(range(fs, fs + fd)) + list(range(fs))).copy(order="C")


@_export
@op("spt_einsum")
def einsum(subscripts, a, b, name=None):
    """numpy.einsum for one SparseTensor and one numpy array (in either order): "ijk,jr->ikr",
    "ijk,k->ij", "ij,jk" (numpy's implicit output)... Indices are letters; an index in both operands and
    not the output is summed over, in both and the output is a batch index. Repeated indices within one
    operand (diagonals) and ellipses are refused. Returns a numpy array."""
    sp, d, swapped = _operands(a, b, "einsum")
    if swapped and isinstance(subscripts, (str, bytes)):
        # the sparse operand's term goes first; the output (explicit, or implicit: sorted) is unchanged
        raw = isinstance(subscripts, bytes)
        s = subscripts.decode("latin-1") if raw else subscripts
        lhs, arrow, rhs = s.partition("->")
        terms = lhs.split(",")
        if len(terms) == 2:
            s = terms[1] + "," + terms[0] + arrow + rhs
        subscripts = s.encode("latin-1") if raw else s
    return C.spt_einsum(subscripts, sp, d)


# ---- gradient kernels ---------------------------------------------------------------------------
# Each takes the forward op's inputs (and output where needed) and the gradient of a scalar loss with
# respect to the forward output's values; float32 and float64 only.


def _g(x):
    return x if isinstance(x, (np.ndarray, Dense)) else np.asarray(x)


@_export
@op("spt_add_grad")
def add_grad(backprop_val_grad, a, b, sum, name=None):  # noqa: A002 - TF's argument name
    """SparseAddGrad: the value gradients (a_val_grad, b_val_grad) of sum = spt.add(a, b, threshold) from
    backprop_val_grad (sum's nnz values); an entry dropped by the threshold gets 0."""
    return C.spt_add_grad(a, b, sum, _g(backprop_val_grad))


@_export
@op("spt_slice_grad")
def slice_grad(backprop_val_grad, input, start, output, name=None):  # noqa: A002 - TF's argument name
    """SparseSliceGrad: the value gradient of output = spt.slice(input, start, size) from backprop_val_grad
    (output's nnz values); entries outside the slice get 0."""
    inp = sparse_arg(input, "input", "slice_grad")
    st = L.i64_arg(start, "start", "slice_grad").reshape(-1)
    return C.spt_slice_grad(_g(backprop_val_grad), inp, st, output)


@_export
@op("spt_fill_empty_rows_grad")
def fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """SparseFillEmptyRowsGrad: (d_values, d_default_value) from the reverse_index_map of
    spt.fill_empty_rows and grad_values (the gradient of its output values); d_default_value is a 0-d
    array, the sum of the gradients of the filled entries."""
    return C.spt_fill_empty_rows_grad(_g(reverse_index_map), _g(grad_values))


@_export
@op("spt_reduce_sum_grad")
def reduce_sum_grad(sp_input, out_grad, axis=None, keepdims=False, name=None):
    """The value gradient of spt.reduce_sum(sp_input, axis, keepdims) from out_grad (the reduction's
    output shape): each entry gets out_grad at the cell it was summed into."""
    ax = None if axis is None else L.i64_arg(axis, "axis", "reduce_sum_grad").reshape(-1)
    return C.spt_reduce_sum_grad(sp_input, ax, keepdims, _g(out_grad))


@_export
@op("spt_softmax_grad")
def softmax_grad(sm, grad, name=None):
    """The value gradient of sm = spt.softmax(x) from sm and grad (sm's nnz values): within each row
    dx_i = y_i (g_i - sum_j g_j y_j), in sm's entry order."""
    return C.spt_softmax_grad(sm, _g(grad))


@_export
@op("spt_sparse_dense_matmul_grad")
def sparse_dense_matmul_grad(sp_a, b, grad, adjoint_a=False, adjoint_b=False, name=None):
    """The gradients (a_val_grad, b_grad) of spt.sparse_dense_matmul(sp_a, b, adjoint_a, adjoint_b) from
    grad, the gradient of the product: a_val_grad has sp_a's nnz values, b_grad b's shape."""
    sp = sparse_arg(sp_a, "sp_a", "sparse_dense_matmul_grad")
    return C.spt_sparse_dense_matmul_grad(sp, _dense_like(b, sp, "b", "sparse_dense_matmul_grad"), adjoint_a,
                                          adjoint_b, _g(grad))


@_export
@op("spt_sparse_sparse_matmul_grad")
def sparse_sparse_matmul_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.sparse_sparse_matmul(a, b) (no adjoints;
    rank 2 or batched rank 3) from grad (c's nnz values)."""
    return C.spt_sparse_sparse_matmul_grad(a, b, c, _g(grad))


@_export
@op("spt_multiply_grad")
def multiply_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.multiply(a, b) (two SparseTensors) from grad
    (c's nnz values)."""
    return C.spt_multiply_grad(a, b, c, _g(grad))


@_export
@op("spt_concat_grad")
def concat_grad(sp_inputs, grad, axis, expand_nonconcat_dims=False, name=None):
    """The value gradients of spt.concat(axis, sp_inputs, expand_nonconcat_dims) from grad (the output's nnz
    values): a list with one array per input."""
    sp_inputs = L.as_list(sp_inputs, "sp_inputs", "concat_grad")
    if not sp_inputs:
        raise L.err(L.InvalidArgumentError, "concat_grad", "sp_inputs is empty")
    outs = (ctypes.c_void_p * len(sp_inputs))()
    try:
        C.spt_concat_grad(sp_inputs, axis, expand_nonconcat_dims, _g(grad), outs)
    finally:
        owned = [Dense(outs[k]).numpy(readonly=False) for k in range(len(sp_inputs)) if outs[k]]
    return owned


@_export
@op("spt_maximum_grad")
def maximum_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.maximum(a, b) from grad (c's nnz values): each
    cell's gradient goes to the operand whose value c holds (to a on a tie). TensorFlow has no such
    gradient."""
    return C.spt_maximum_grad(a, b, c, _g(grad))


@_export
@op("spt_minimum_grad")
def minimum_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.minimum(a, b) from grad, as maximum_grad."""
    return C.spt_minimum_grad(a, b, c, _g(grad))
