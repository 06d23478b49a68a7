"""Registry entries of the sparse-algebra ops (the last section of include/spt.h, "sparse algebra").

Kept apart from _registry.ENTRIES so that this family can grow without touching the main list; the
registry appends ALGEBRA_ENTRIES to ENTRIES before it generates the bindings, so every entry here gets the
same checked C.<name> function, the same prototype check and the same out-of-range sweep
(tests/test_registry.py) as the others.
"""
from ._registry import (Entry, STATUS, T, D, boolean, handle, handles, i64, i64in, out, out_array, text)

ALGEBRA_ENTRIES = [
    # products and elementwise ops with sparse results
    Entry("spt_sparse_sparse_matmul", STATUS, handle("a", T), handle("b", T), boolean("adjoint_a"),
          boolean("adjoint_b"), boolean("keep_zeros"), out("out", T)),
    Entry("spt_multiply", STATUS, handle("a", T), handle("b", T), out("out", T)),
    Entry("spt_subtract", STATUS, handle("a", T), handle("b", T), out("out", T)),
    Entry("spt_multiply_dense", STATUS, handle("a", T), handle("dense", D), out("out", T)),
    Entry("spt_divide_dense", STATUS, handle("a", T), handle("dense", D), out("out", T)),
    Entry("spt_sparse_dense_bmm", STATUS, handle("a", T), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), out("out", D)),
    # contractions with dense factors
    Entry("spt_mttkrp", STATUS, handle("t", T), handles("factors", D), i64("nfactors", len_of="factors"),
          i64("mode"), out("out", D)),
    Entry("spt_ttv", STATUS, handle("t", T), handle("v", D), i64("mode"), out("out", T)),
    Entry("spt_ttm", STATUS, handle("t", T), handle("u", D), i64("mode"), out("out", T)),
    Entry("spt_tensordot", STATUS, handle("a", T), handle("b", D), i64in("axes_a", nullable=True),
          i64in("axes_b", n="naxes", nullable=True), i64("naxes", len_of="axes_a"), out("out", D)),
    Entry("spt_einsum", STATUS, text("subscripts"), handle("a", T), handle("b", D), out("out", D)),
    # gradient kernels
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
