# SPDX-License-Identifier: Apache-2.0
"""File formats: FROSTT .tns, Matrix Market .mtx, NumPy .npy / .npz (pydata/sparse and SciPy flavours).
Each function is one call of the C reader or writer. Paths are str, bytes or os.PathLike; a NUL byte in
a path is refused (InvalidArgumentError naming the argument), never cut.

Every reader also takes compressed inputs (gzip, bzip2, xz, zstd) and tar archives, recognised by their
first bytes: `member` names the tar member to read (default: the archive's one data file, or the SuiteSparse
Matrix Collection's NAME/NAME.mtx); `progress`, a callable, is called with the fraction of the text parsed
(0..1, now and then, and 1 at the end; .tns and .mtx). Writers compress when the name ends in .gz, .bz2,
.xz or .zst; `progress` on write, write_tns and write_mtx is called with the fraction of the entries
written. binsparse (the sparse community's interchange format, in .npz) is read from any .npz holding
its descriptor and written with format="binsparse" (COO), "binsparse-csr" or "binsparse-csc", or to a
name ending in .bsp.npz."""
import contextlib
import ctypes

import numpy as np

from . import _lib as L
from ._lib import DtypeError
from ._export import exports
from ._registry import C, op, register
from ._registry.kinds import (D, Entry, NFMT, STATUS, T, VOID, buffer, bytes_, enum, handle, i64, out, path, size,
                              struct, text)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
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
    Entry("spt_write_spy_png", STATUS, handle("sp_input", T), i64("row_mode"), i64("col_mode"), i64("max_side"),
          path("path")),
    Entry("spt_write_spy_png_values", STATUS, handle("sp_input", T), i64("row_mode"), i64("col_mode"), i64("max_side"),
          path("path")),
]
register("io", ENTRIES)

_FORMATS = {None: 0, "auto": 0, "tns": 1, "frostt": 1, "mtx": 2, "mm": 2, "npy": 3, "npz": 4, "pydata": 4,
            "npz-scipy-coo": 5, "scipy-coo": 5, "npz-scipy-csr": 6, "scipy-csr": 6,
            "binsparse": 7, "bsp": 7, "binsparse-coo": 7, "binsparse-csr": 8, "binsparse-csc": 9}


def _fmt(f, arg, fn):
    if isinstance(f, (int, np.integer)) and not isinstance(f, bool):
        return f  # range-checked by the binding (spt_format)
    try:
        return _FORMATS[f if f is None else str(f).lower()]
    except KeyError:
        raise L.err(L.InvalidArgumentError, fn, "unknown file %s %r" % (arg, f)) from None


_PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_double, ctypes.c_void_p)


def _callback(progress, fn):
    """A ctypes callback calling progress(fraction), or None; the caller keeps it alive."""
    if progress is None:
        return None
    if not callable(progress):
        raise L.err(L.DtypeError, fn, "progress must be callable, got %s" % type(progress).__name__)

    def cb_py(done, ctx):
        try:
            progress(float(done))
        except Exception:  # a callback's error must not unwind through C
            pass
    return _PROGRESS_FN(cb_py)


@contextlib.contextmanager
def _writing(progress, fn):
    """The progress callback for the writes on this thread inside the block (.tns and .mtx)."""
    cb = _callback(progress, fn)
    if cb is not None:
        C.spt_set_write_progress(ctypes.cast(cb, ctypes.c_void_p).value, None)
    try:
        yield
    finally:
        if cb is not None:
            C.spt_set_write_progress(None, None)


@contextlib.contextmanager
def _reading(member, progress, fn):
    """The tar member and the progress callback for the reads on this thread inside the block."""
    m = b"" if member is None else L.path_arg(member, "member", fn)
    cb = _callback(progress, fn)  # kept alive by this frame until the read is done
    C.spt_set_read_member(m)
    if cb is not None:
        C.spt_set_read_progress(ctypes.cast(cb, ctypes.c_void_p).value, None)
    try:
        yield
    finally:
        C.spt_set_read_member(b"")
        if cb is not None:
            C.spt_set_read_progress(None, None)


def _opts(dtype=None, shape=None, fn="read"):
    o = L.spt_read_opts()
    keep = None
    if dtype is not None:
        o.has_dtype = True
        o.dtype = L.spt_dtype_of(L.as_dtype(dtype))
    if shape is not None:
        keep = L.i64_arg(shape, "shape", fn).reshape(-1)
        o.rank = keep.size
        o.shape = L.ctypes_i64p(keep) if keep.size else None
    return o, keep


@op("spt_read")
def read(path, format=None, dtype=None, shape=None, member=None, progress=None):
    """Read a sparse tensor; format None = from the extension (.tns, .mtx, .npy densified, .npz)."""
    o, keep = _opts(dtype, shape, "read")
    with _reading(member, progress, "read"):
        return C.spt_read(path, _fmt(format, "format", "read"), o)


@op("spt_write")
def write(sp_input, path, format=None, progress=None):
    """Write a sparse tensor; format None = from the extension (.npy writes the dense form; NAME.bsp.npz
    is binsparse). `progress`, a callable, is called with the fraction of the entries written (.tns and
    .mtx: after each batch of lines, and 1 at the end)."""
    with _writing(progress, "write"):
        C.spt_write(sp_input, path, _fmt(format, "format", "write"))


@op("spt_read_tns")
def read_tns(path, dtype=None, shape=None, member=None, progress=None):
    """Read a FROSTT .tns file (1-based indices); dtype / shape override what the file implies."""
    o, keep = _opts(dtype, shape, "read_tns")
    with _reading(member, progress, "read_tns"):
        return C.spt_read_tns(path, o)


@op("spt_parse_tns")
def parse_tns(text, name="<string>", dtype=None, shape=None):
    """Parse .tns text (str or bytes); `name` is used in error messages."""
    o, keep = _opts(dtype, shape, "parse_tns")
    return C.spt_parse_tns(text, name, o)


@op("spt_write_tns")
def write_tns(sp_input, path, progress=None):
    with _writing(progress, "write_tns"):
        C.spt_write_tns(sp_input, path)


@op("spt_read_mtx")
def read_mtx(path, dtype=None, member=None, progress=None):
    """Read a Matrix Market file as a rank-2 SparseTensor (symmetric kinds expanded)."""
    o, keep = _opts(dtype, None, "read_mtx")
    with _reading(member, progress, "read_mtx"):
        return C.spt_read_mtx(path, o)


@op("spt_read_mtx_dense")
def read_mtx_dense(path, dtype=None, member=None, progress=None):
    """Read a Matrix Market "array" file as a numpy array."""
    o, keep = _opts(dtype, None, "read_mtx_dense")
    with _reading(member, progress, "read_mtx_dense"):
        return C.spt_read_mtx_dense(path, o)


@op("spt_write_mtx")
def write_mtx(sp_input, path, progress=None):
    with _writing(progress, "write_mtx"):
        C.spt_write_mtx(sp_input, path)


@op("spt_read_npy")
def read_npy(path, member=None):
    """Read a .npy file into a numpy array (over the C buffer, no further copy)."""
    with _reading(member, None, "read_npy"):
        return C.spt_read_npy(path)


@op("spt_write_npy")
def write_npy(array, path):
    """Write a numpy array as .npy 1.0 through the C writer."""
    a = np.asarray(array)
    if a.dtype.kind in "SU":
        a = a.astype(object)
    C.spt_write_npy(a, path)


@op("spt_read_npz")
def read_npz(path, dtype=None, member=None):
    """Read a .npz written by pydata/sparse save_npz or scipy.sparse.save_npz (coo, csr, csc)."""
    o, keep = _opts(dtype, None, "read_npz")
    with _reading(member, None, "read_npz"):
        return C.spt_read_npz(path, o)


@op("spt_write_npz")
def write_npz(sp_input, path, flavour="pydata"):
    """Write .npz: flavour "pydata" (sparse.load_npz reads it), "scipy-coo" or "scipy-csr"
    (scipy.sparse.load_npz reads them; rank 2)."""
    C.spt_write_npz(sp_input, path, _fmt(flavour, "flavour", "write_npz"))


@op("spt_write_spy_png", "spt_write_spy_png_values")
def write_spy_png(sp_input, path, row_mode=0, col_mode=1, max_side=0, color_by_value=False):
    """A PNG spy plot of modes (row_mode, col_mode), with axes and square cells (max_side pixels on the
    longer side; 0 = 512). Grey by the number of entries a pixel covers, or with color_by_value=True an
    RGB picture coloured by the sum of their values (red positive, blue negative, grey where they cancel,
    green for NaN; numeric dtypes only)."""
    if not isinstance(color_by_value, (bool, np.bool_)):
        raise DtypeError("spt.write_spy_png: color_by_value must be a bool, found %r" % (color_by_value,), -6)
    f = C.spt_write_spy_png_values if color_by_value else C.spt_write_spy_png
    f(sp_input, row_mode, col_mode, max_side, path)


__all__ = exports(__name__)
