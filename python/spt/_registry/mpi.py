# SPDX-License-Identifier: Apache-2.0
"""Registry entries of the distributed layer (include/spt_mpi.h, src/mpi), bound by spt.mpi.

They are not part of ENTRIES: only libspt_mpi.so has these functions, and spt.mpi binds them (through the
same generator, so every argument is converted and range-checked as in the serial binding) when it is
imported. python/tests/mpi_check.py compares each entry with its prototype in include/spt_mpi.h.
"""
import ctypes

from .. import _lib as L
from .kinds import (Entry, STATUS, VOID, R_I64, R_DTYPE, R_PTR_I64, T, D, boolean, buffer, cint, double, enum,
                    handle, handles, i64, i64in, i64out, null, out, path, struct)

CTX, DT = "mpi_ctx", "dtensor"
R_TENSOR = ("const spt_tensor *", ctypes.c_void_p, "value")  # a borrowed tensor's address

ENTRIES = [
    # context and distributed tensors
    Entry("spt_mpi_ctx_new", STATUS, buffer("comm", "MPI_Comm", nullable=False), out("out", CTX)),
    Entry("spt_mpi_ctx_free", VOID, buffer("ctx", "spt_mpi_ctx *")),
    Entry("spt_dtensor_free", VOID, buffer("dt", "spt_dtensor *")),
    Entry("spt_dtensor_from_local", STATUS, handle("ctx", CTX, const=False), handle("piece", T),
          i64in("order", n="piece.rank", nullable=True), out("out", DT)),
    Entry("spt_dtensor_scatter", STATUS, handle("ctx", CTX, const=False), cint("root"), handle("t", T, nullable=True),
          i64in("order", nullable=True), out("out", DT)),
    Entry("spt_dtensor_gather", STATUS, handle("dt", DT), cint("root"), out("out", T)),
    Entry("spt_dtensor_dtype", R_DTYPE, handle("dt", DT)),
    Entry("spt_dtensor_rank", R_I64, handle("dt", DT)),
    Entry("spt_dtensor_shape", R_PTR_I64, handle("dt", DT)),
    Entry("spt_dtensor_order", R_PTR_I64, handle("dt", DT)),
    Entry("spt_dtensor_nnz", R_I64, handle("dt", DT)),
    Entry("spt_dtensor_count", R_I64, handle("dt", DT), cint("p")),
    Entry("spt_dtensor_offset", R_I64, handle("dt", DT), cint("p")),
    Entry("spt_dtensor_local", R_TENSOR, handle("dt", DT)),
    # ops
    Entry("spt_dtensor_reorder", STATUS, handle("dt", DT, const=False), i64in("order", n="dt.rank", nullable=True)),
    Entry("spt_dtensor_concat", STATUS, handles("inputs", DT), i64("n", len_of="inputs"), i64("axis"),
          boolean("expand_nonconcat_dim"), out("out", DT)),
    Entry("spt_dtensor_add", STATUS, handle("a", DT), handle("b", DT), double("thresh"), out("out", DT)),
    Entry("spt_dtensor_reduce_sum", STATUS, handle("dt", DT), i64in("axes", nullable=True),
          i64("naxes", len_of="axes"), boolean("keep_dims"), out("out", DT)),
    Entry("spt_dtensor_sparse_dense_matmul", STATUS, handle("a", DT), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), cint("root", lo=-1), out("out", D)),
    Entry("spt_dtensor_sparse_sparse_matmul", STATUS, handle("a", DT), handle("b", DT), boolean("adjoint_a"),
          boolean("adjoint_b"), boolean("keep_zeros"), out("out", DT)),
    Entry("spt_dtensor_mttkrp", STATUS, handle("t", DT), handles("factors", D), i64("nfactors", len_of="factors"),
          i64("mode"), cint("root", lo=-1), out("out", D)),
    Entry("spt_dtensor_mttkrp_rows", STATUS, handle("t", DT), handles("factor_rows", D), i64in("row_begin", n="nfactors"),
          i64("nfactors", len_of="factor_rows"), i64("mode"), enum("how", "spt_mpi_factors", 3), cint("root", lo=-1),
          out("out", D), null("taken", "spt_mpi_factors *")),
    Entry("spt_dtensor_sparsify", STATUS, handle("T", DT), handle("sm", "smap"), i64("nmap", 0),
          i64in("ind2mode", n="2 * nmap"), i64in("outer_shape", n="sm.ind_rank"), i64out("begin", n=1),
          i64out("end", n=1), out("out", "tot")),
    Entry("spt_mpi_tot_gather", STATUS, handle("ctx", CTX, const=False), handle("local", "tot"), cint("root"),
          out("out", "tot")),
    # files
    Entry("spt_dtensor_read_tns", STATUS, handle("ctx", CTX, const=False), path("path"),
          struct("opts", "const spt_read_opts *", L.spt_read_opts), out("out", DT)),
    Entry("spt_dtensor_write_tns", STATUS, handle("dt", DT), path("path")),
]

_PY = {"spt_dtensor_read_tns": "mpi.read", "spt_dtensor_write_tns": "mpi.write", "spt_mpi_tot_gather": "mpi.tot_gather",
       "spt_dtensor_reorder": "mpi.reorder_inplace", "spt_dtensor_mttkrp_rows": "mpi.mttkrp"}
for _e in ENTRIES:
    _e.py = _PY.get(_e.name, "mpi." + _e.name.replace("spt_dtensor_", "").replace("spt_mpi_", ""))

# The functions every rank must call together (the others are local).
COLLECTIVE = {e.name for e in ENTRIES} - {"spt_mpi_ctx_free", "spt_dtensor_free", "spt_dtensor_dtype",
                                          "spt_dtensor_rank", "spt_dtensor_shape", "spt_dtensor_order",
                                          "spt_dtensor_nnz", "spt_dtensor_count", "spt_dtensor_offset",
                                          "spt_dtensor_local", "spt_mpi_ctx_new"}
