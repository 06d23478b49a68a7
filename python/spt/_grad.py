# SPDX-License-Identifier: Apache-2.0
"""The gradient kernels (src/ops/grad): each takes the forward op's inputs (and output where needed) and the
gradient of a scalar loss with respect to the forward output's values; float32 and float64 only."""
import ctypes

import numpy as np

from . import _lib as L
from ._args import _dense_like
from ._dense import Dense
from ._export import exports
from ._registry import C, op, register
from ._tensor import sparse_arg
from ._registry.kinds import (D, Entry, STATUS, T, boolean, handle, handles, i64, i64in, out, out_array)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_add_grad", STATUS, handle("a", T), handle("b", T), handle("sum", T), handle("backprop_val_grad", D),
          out("a_val_grad", D), out("b_val_grad", D)),
    Entry("spt_slice_grad", STATUS, handle("backprop_val_grad", D), handle("input", T),
          i64in("start", n="input.rank"), handle("output", T), out("val_grad", D)),
    Entry("spt_fill_empty_rows_grad", STATUS, handle("reverse_index_map", D), handle("grad_values", D),
          out("d_values", D), out("d_default_value", D)),
    Entry("spt_reduce_sum_grad", STATUS, handle("t", T), i64in("axes", nullable=True), i64("naxes", len_of="axes"),
          boolean("keep_dims"), handle("out_grad", D), out("val_grad", D)),
    Entry("spt_softmax_grad", STATUS, handle("sm", T), handle("grad", D), out("val_grad", D)),
    Entry("spt_sparse_dense_matmul_grad", STATUS, handle("a", T), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), handle("grad", D), out("a_val_grad", D), out("b_grad", D)),
    Entry("spt_sparse_sparse_matmul_grad", STATUS, handle("a", T), handle("b", T), handle("c", T),
          handle("grad", D), out("a_val_grad", D), out("b_val_grad", D)),
    Entry("spt_multiply_grad", STATUS, handle("a", T), handle("b", T), handle("c", T), handle("grad", D),
          out("a_val_grad", D), out("b_val_grad", D)),
    Entry("spt_concat_grad", STATUS, handles("inputs"), i64("n", len_of="inputs"), i64("axis"),
          boolean("expand_nonconcat_dim"), handle("grad", D), out_array("val_grads", D)),
    Entry("spt_maximum_grad", STATUS, handle("a", T), handle("b", T), handle("c", T), handle("grad", D),
          out("a_val_grad", D), out("b_val_grad", D)),
    Entry("spt_minimum_grad", STATUS, handle("a", T), handle("b", T), handle("c", T), handle("grad", D),
          out("a_val_grad", D), out("b_val_grad", D)),
]
register("grad", ENTRIES)


def _g(x):
    return x if isinstance(x, (np.ndarray, Dense)) else np.asarray(x)


@op("spt_add_grad")
def add_grad(backprop_val_grad, a, b, sum, name=None):  # noqa: A002 - TF's argument name
    """SparseAddGrad: the value gradients (a_val_grad, b_val_grad) of sum = spt.add(a, b, threshold) from
    backprop_val_grad (sum's nnz values); an entry dropped by the threshold gets 0."""
    return C.spt_add_grad(a, b, sum, _g(backprop_val_grad))


@op("spt_slice_grad")
def slice_grad(backprop_val_grad, input, start, output, name=None):  # noqa: A002 - TF's argument name
    """SparseSliceGrad: the value gradient of output = spt.slice(input, start, size) from backprop_val_grad
    (output's nnz values); entries outside the slice get 0."""
    inp = sparse_arg(input, "input", "slice_grad")
    st = L.i64_arg(start, "start", "slice_grad").reshape(-1)
    return C.spt_slice_grad(_g(backprop_val_grad), inp, st, output)


@op("spt_fill_empty_rows_grad")
def fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """SparseFillEmptyRowsGrad: (d_values, d_default_value) from the reverse_index_map of
    spt.fill_empty_rows and grad_values (the gradient of its output values); d_default_value is a 0-d
    array, the sum of the gradients of the filled entries."""
    return C.spt_fill_empty_rows_grad(_g(reverse_index_map), _g(grad_values))


@op("spt_reduce_sum_grad")
def reduce_sum_grad(sp_input, out_grad, axis=None, keepdims=False, name=None):
    """The value gradient of spt.reduce_sum(sp_input, axis, keepdims) from out_grad (the reduction's
    output shape): each entry gets out_grad at the cell it was summed into."""
    ax = None if axis is None else L.i64_arg(axis, "axis", "reduce_sum_grad").reshape(-1)
    return C.spt_reduce_sum_grad(sp_input, ax, keepdims, _g(out_grad))


@op("spt_softmax_grad")
def softmax_grad(sm, grad, name=None):
    """The value gradient of sm = spt.softmax(x) from sm and grad (sm's nnz values): within each row
    dx_i = y_i (g_i - sum_j g_j y_j), in sm's entry order."""
    return C.spt_softmax_grad(sm, _g(grad))


@op("spt_sparse_dense_matmul_grad")
def sparse_dense_matmul_grad(sp_a, b, grad, adjoint_a=False, adjoint_b=False, name=None):
    """The gradients (a_val_grad, b_grad) of spt.sparse_dense_matmul(sp_a, b, adjoint_a, adjoint_b) from
    grad, the gradient of the product: a_val_grad has sp_a's nnz values, b_grad b's shape."""
    sp = sparse_arg(sp_a, "sp_a", "sparse_dense_matmul_grad")
    return C.spt_sparse_dense_matmul_grad(sp, _dense_like(b, sp, "b", "sparse_dense_matmul_grad"), adjoint_a,
                                          adjoint_b, _g(grad))


@op("spt_sparse_sparse_matmul_grad")
def sparse_sparse_matmul_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.sparse_sparse_matmul(a, b) (no adjoints;
    rank 2 or batched rank 3) from grad (c's nnz values)."""
    return C.spt_sparse_sparse_matmul_grad(a, b, c, _g(grad))


@op("spt_multiply_grad")
def multiply_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.multiply(a, b) (two SparseTensors) from grad
    (c's nnz values)."""
    return C.spt_multiply_grad(a, b, c, _g(grad))


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


@op("spt_maximum_grad")
def maximum_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.maximum(a, b) from grad (c's nnz values): each
    cell's gradient goes to the operand whose value c holds (to a on a tie). TensorFlow has no such
    gradient."""
    return C.spt_maximum_grad(a, b, c, _g(grad))


@op("spt_minimum_grad")
def minimum_grad(a, b, c, grad, name=None):
    """The value gradients (a_val_grad, b_val_grad) of c = spt.minimum(a, b) from grad, as maximum_grad."""
    return C.spt_minimum_grad(a, b, c, _g(grad))


__all__ = exports(__name__)
