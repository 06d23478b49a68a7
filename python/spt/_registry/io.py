# SPDX-License-Identifier: Apache-2.0
"""Registry entries: files (src/io): read, write and the per-format readers and writers."""
from .. import _lib as L
from .kinds import (D, Entry, NFMT, STATUS, T, VOID, boolean, buffer, bytes_, cint, enum, handle, i64, out, path, size,
                    struct, text)

ENTRIES = [
    Entry("spt_read", STATUS, path("path"), enum("format", "spt_format", NFMT),
          struct("opts", "const spt_read_opts *", L.spt_read_opts), out("out", T)),
    Entry("spt_write", STATUS, handle("sp_input", T), path("path"), enum("format", "spt_format", NFMT)),
    Entry("spt_read_tns", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", T)),
    Entry("spt_parse_tns", STATUS, bytes_("text"), size("len", len_of="text"), text("name"),
          struct("opts", "const spt_read_opts *", L.spt_read_opts), out("out", T)),
    Entry("spt_write_tns", STATUS, handle("sp_input", T), path("path")),
    Entry("spt_read_mtx", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", T)),
    Entry("spt_read_mtx_dense", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", D)),
    Entry("spt_write_mtx", STATUS, handle("sp_input", T), path("path")),
    Entry("spt_read_npy", STATUS, path("path"), out("out", D)),
    # the tar member and the progress callback of the reads on the calling thread (_io.read's member=,
    # progress=: the callback is a ctypes function the caller keeps alive, passed by address)
    Entry("spt_set_read_member", STATUS, text("member")),
    Entry("spt_set_read_progress", VOID, buffer("fn", "spt_progress_fn"), buffer("ctx", "void *")),
    Entry("spt_write_npy", STATUS, handle("array", D), path("path")),
    Entry("spt_read_npz", STATUS, path("path"), struct("opts", "const spt_read_opts *", L.spt_read_opts),
          out("out", T)),
    Entry("spt_write_npz", STATUS, handle("sp_input", T), path("path"), enum("flavour", "spt_format", NFMT)),
    Entry("spt_write_npz_level", STATUS, handle("sp_input", T), path("path"), enum("flavour", "spt_format", NFMT),
          cint("level", 0, 12)),
    Entry("spt_set_read_copy", VOID, boolean("copy")),
    Entry("spt_write_spy_png", STATUS, handle("sp_input", T), i64("row_mode"), i64("col_mode"), i64("max_side"),
          path("path")),
    Entry("spt_write_spy_png_values", STATUS, handle("sp_input", T), i64("row_mode"), i64("col_mode"), i64("max_side"),
          path("path")),
]
