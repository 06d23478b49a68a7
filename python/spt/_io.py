"""File formats: FROSTT .tns, Matrix Market .mtx, NumPy .npy / .npz (pydata/sparse and SciPy flavours).
Each function is one call of the C reader or writer."""
import ctypes
import os

import numpy as np

from . import _lib as L
from ._lib import c_int64_p, cint, i64, vp, vpp
from ._tensor import sparse_arg, own
from ._registry import op

__all__ = ["read", "write", "read_tns", "parse_tns", "write_tns", "read_mtx", "read_mtx_dense", "write_mtx",
           "read_npy", "write_npy", "read_npz", "write_npz", "write_spy_png"]


class _ReadOpts(ctypes.Structure):
    _fields_ = [("has_dtype", ctypes.c_bool), ("dtype", cint), ("rank", ctypes.c_int64), ("shape", c_int64_p)]


_FORMATS = {None: 0, "auto": 0, "tns": 1, "frostt": 1, "mtx": 2, "mm": 2, "npy": 3, "npz": 4, "pydata": 4,
            "npz-scipy-coo": 5, "scipy-coo": 5, "npz-scipy-csr": 6, "scipy-csr": 6}

_read = L.fn("spt_read", cint, ctypes.c_char_p, cint, ctypes.POINTER(_ReadOpts), vpp)
_write = L.fn("spt_write", cint, vp, ctypes.c_char_p, cint)
_read_tns = L.fn("spt_read_tns", cint, ctypes.c_char_p, ctypes.POINTER(_ReadOpts), vpp)
_parse_tns = L.fn("spt_parse_tns", cint, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                  ctypes.POINTER(_ReadOpts), vpp)
_write_tns = L.fn("spt_write_tns", cint, vp, ctypes.c_char_p)
_read_mtx = L.fn("spt_read_mtx", cint, ctypes.c_char_p, ctypes.POINTER(_ReadOpts), vpp)
_read_mtx_dense = L.fn("spt_read_mtx_dense", cint, ctypes.c_char_p, ctypes.POINTER(_ReadOpts), vpp)
_write_mtx = L.fn("spt_write_mtx", cint, vp, ctypes.c_char_p)
_read_npy = L.fn("spt_read_npy", cint, ctypes.c_char_p, vpp)
_write_npy = L.fn("spt_write_npy", cint, vp, ctypes.c_char_p)
_read_npz = L.fn("spt_read_npz", cint, ctypes.c_char_p, ctypes.POINTER(_ReadOpts), vpp)
_write_npz = L.fn("spt_write_npz", cint, vp, ctypes.c_char_p, cint)
_spy = L.fn("spt_write_spy_png", cint, vp, i64, i64, i64, ctypes.c_char_p)


def _path(p):
    return os.fsencode(os.fspath(p))


def _fmt(f):
    if isinstance(f, int):
        return f
    try:
        return _FORMATS[f if f is None else str(f).lower()]
    except KeyError:
        raise L.InvalidArgumentError("spt: unknown file format %r" % (f,)) from None


def _opts(dtype=None, shape=None):
    o = _ReadOpts()
    keep = None
    if dtype is not None:
        o.has_dtype = True
        o.dtype = L.spt_dtype_of(L.as_dtype(dtype))
    if shape is not None:
        keep = L.i64_array(shape, "shape").reshape(-1)
        o.rank = keep.size
        o.shape = L.i64_ptr(keep) if keep.size else None
    return o, keep


@op("spt_read")
def read(path, format=None, dtype=None, shape=None):
    """Read a sparse tensor; format None = from the extension (.tns, .mtx, .npy densified, .npz)."""
    o, keep = _opts(dtype, shape)
    out = vp()
    L.check(_read(_path(path), _fmt(format), ctypes.byref(o), ctypes.byref(out)))
    return own(out)


@op("spt_write")
def write(sp_input, path, format=None):
    """Write a sparse tensor; format None = from the extension (.npy writes the dense form)."""
    L.check(_write(sparse_arg(sp_input).h, _path(path), _fmt(format)))


@op("spt_read_tns")
def read_tns(path, dtype=None, shape=None):
    """Read a FROSTT .tns file (1-based indices); dtype / shape override what the file implies."""
    o, keep = _opts(dtype, shape)
    out = vp()
    L.check(_read_tns(_path(path), ctypes.byref(o), ctypes.byref(out)))
    return own(out)


@op("spt_parse_tns")
def parse_tns(text, name="<string>", dtype=None, shape=None):
    """Parse .tns text (str or bytes)."""
    b = text.encode() if isinstance(text, str) else bytes(text)
    o, keep = _opts(dtype, shape)
    out = vp()
    L.check(_parse_tns(b, len(b), name.encode(), ctypes.byref(o), ctypes.byref(out)))
    return own(out)


@op("spt_write_tns")
def write_tns(sp_input, path):
    L.check(_write_tns(sparse_arg(sp_input).h, _path(path)))


@op("spt_read_mtx")
def read_mtx(path, dtype=None):
    """Read a Matrix Market file as a rank-2 SparseTensor (symmetric kinds expanded)."""
    o, keep = _opts(dtype)
    out = vp()
    L.check(_read_mtx(_path(path), ctypes.byref(o), ctypes.byref(out)))
    return own(out)


@op("spt_read_mtx_dense")
def read_mtx_dense(path, dtype=None):
    """Read a Matrix Market "array" file as a numpy array."""
    o, keep = _opts(dtype)
    out = vp()
    L.check(_read_mtx_dense(_path(path), ctypes.byref(o), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)


@op("spt_write_mtx")
def write_mtx(sp_input, path):
    L.check(_write_mtx(sparse_arg(sp_input).h, _path(path)))


@op("spt_read_npy")
def read_npy(path):
    """Read a .npy file into a numpy array (over the C buffer, no further copy)."""
    out = vp()
    L.check(_read_npy(_path(path), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)


@op("spt_write_npy")
def write_npy(array, path):
    """Write a numpy array as .npy 1.0 through the C writer."""
    a = np.asarray(array)
    if a.dtype.kind in "SU":
        a = a.astype(object)
    d = L.Dense.from_numpy(a)
    L.check(_write_npy(d.h, _path(path)))


@op("spt_read_npz")
def read_npz(path, dtype=None):
    """Read a .npz written by pydata/sparse save_npz or scipy.sparse.save_npz (coo, csr, csc)."""
    o, keep = _opts(dtype)
    out = vp()
    L.check(_read_npz(_path(path), ctypes.byref(o), ctypes.byref(out)))
    return own(out)


@op("spt_write_npz")
def write_npz(sp_input, path, flavour="pydata"):
    """Write .npz: flavour "pydata" (sparse.load_npz reads it), "scipy-coo" or "scipy-csr"
    (scipy.sparse.load_npz reads them; rank 2)."""
    L.check(_write_npz(sparse_arg(sp_input).h, _path(path), _fmt(flavour)))


@op("spt_write_spy_png")
def write_spy_png(sp_input, path, row_mode=0, col_mode=1, max_side=0):
    """A PNG spy plot of modes (row_mode, col_mode)."""
    L.check(_spy(sparse_arg(sp_input).h, row_mode, col_mode, max_side, _path(path)))
