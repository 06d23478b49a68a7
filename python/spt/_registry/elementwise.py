# SPDX-License-Identifier: Apache-2.0
"""Registry entries: the elementwise ops (src/ops/elementwise): add, subtract, multiply, divide, min/max, the
sparse x dense cwise ops, map_values and cast."""
from .kinds import (D, Entry, NDT, NUNARY, STATUS, T, buffer, double, enum, handle, out, text)

ENTRIES = [
    Entry("spt_add", STATUS, handle("a", T), handle("b", T), double("threshold"), out("out", T)),
    Entry("spt_add_dense", STATUS, handle("a", T), handle("b", D), out("out", D)),
    Entry("spt_sparse_dense_cwise_mul", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_sparse_dense_cwise_div", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_sparse_dense_cwise_add", STATUS, handle("sp_t", T), handle("dense_t", D), out("out", T)),
    Entry("spt_maximum", STATUS, handle("sp_a", T), handle("sp_b", T), out("out", T)),
    Entry("spt_minimum", STATUS, handle("sp_a", T), handle("sp_b", T), out("out", T)),
    Entry("spt_unary_op_from_name", STATUS, text("name"), buffer("out", "spt_unary_op *", nullable=False)),
    Entry("spt_map_values", STATUS, handle("t", T), enum("op", "spt_unary_op", NUNARY), out("out", T)),
    Entry("spt_map_values2", STATUS, handle("a", T), handle("b", T), enum("op", "spt_binary_op", 3), out("out", T)),
    Entry("spt_cast", STATUS, handle("t", T), enum("dtype", "spt_dtype", NDT), out("out", T)),
    Entry("spt_multiply", STATUS, handle("a", T), handle("b", T), out("out", T)),
    Entry("spt_subtract", STATUS, handle("a", T), handle("b", T), out("out", T)),
    Entry("spt_multiply_dense", STATUS, handle("a", T), handle("dense", D), out("out", T)),
    Entry("spt_divide_dense", STATUS, handle("a", T), handle("dense", D), out("out", T)),
]
