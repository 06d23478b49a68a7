# SPDX-License-Identifier: Apache-2.0
"""Registry entries: the products and contractions (src/ops/products): matmul, SpGEMM, bmm, MTTKRP, TTV, TTM,
tensordot, einsum."""
from .kinds import (D, Entry, STATUS, T, boolean, handle, handles, i64, i64in, out, text)

ENTRIES = [
    Entry("spt_sparse_dense_matmul", STATUS, handle("sp_a", T), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), out("out", D)),
    Entry("spt_sparse_dense_matvec", STATUS, handle("sp_a", T), handle("x", D), boolean("adjoint_a"), out("out", D)),
    Entry("spt_sparse_sparse_matmul", STATUS, handle("a", T), handle("b", T), boolean("adjoint_a"),
          boolean("adjoint_b"), boolean("keep_zeros"), out("out", T)),
    Entry("spt_sparse_dense_bmm", STATUS, handle("a", T), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), out("out", D)),
    Entry("spt_mttkrp", STATUS, handle("t", T), handles("factors", D), i64("nfactors", len_of="factors"),
          i64("mode"), out("out", D)),
    Entry("spt_ttv", STATUS, handle("t", T), handle("v", D), i64("mode"), out("out", T)),
    Entry("spt_ttm", STATUS, handle("t", T), handle("u", D), i64("mode"), out("out", T)),
    Entry("spt_tensordot", STATUS, handle("a", T), handle("b", D), i64in("axes_a", nullable=True),
          i64in("axes_b", n="naxes", nullable=True), i64("naxes", len_of="axes_a"), out("out", D)),
    Entry("spt_einsum", STATUS, text("subscripts"), handle("a", T), handle("b", D), out("out", D)),
]
