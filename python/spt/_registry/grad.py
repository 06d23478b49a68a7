# SPDX-License-Identifier: Apache-2.0
"""Registry entries: the gradient kernels (src/ops/grad)."""
from .kinds import (D, Entry, STATUS, T, boolean, handle, handles, i64, i64in, out, out_array)

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
