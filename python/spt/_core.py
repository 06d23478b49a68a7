"""The core ops: reorder, validation, dense conversion, group."""
import ctypes

import numpy as np

from . import _lib as L
from ._lib import c_int64_p, cint, i64, vp, vpp, cbool
from ._tensor import SparseTensor, sparse_arg, own

_reorder = L.fn("spt_reorder", cint, vp, c_int64_p)
_reordered = L.fn("spt_reordered", cint, vp, c_int64_p, vpp)
_argsort = L.fn("spt_argsort", cint, vp, c_int64_p, c_int64_p)
_validate = L.fn("spt_validate", cint, vp)
_indices_valid = L.fn("spt_indices_valid", cint, vp)
_set_order = L.fn("spt_tensor_set_order", cint, vp, c_int64_p)
_to_dense = L.fn("spt_to_dense", cint, vp, vp, cbool, vpp)
_to_dense_into = L.fn("spt_to_dense_into", cint, vp, vp, cbool, vp)
_from_dense = L.fn("spt_from_dense", cint, vp, vp, vpp)
_sparse_to_dense = L.fn("spt_sparse_to_dense", cint, vp, vp, vp, vp, cbool, vpp)
_group_begin = L.fn("spt_group_begin", cint, vp, c_int64_p, i64, vpp)
_group_next = L.fn("spt_group_next", cbool, vp, ctypes.POINTER(L.spt_group))
_group_end = L.fn("spt_group_end", None, vp)


def _order_arg(order, rank, name="order"):
    if order is None:
        return None
    o = L.i64_array(order, name)
    if o.shape != (rank,):
        raise L.InvalidArgumentError("spt: %s must have %d entries (the rank), got shape %s" % (name, rank, o.shape))
    return o


def scalar_arg(value, dtype):
    """A (keep-alive object, pointer) pair for one element of `dtype` (None -> NULL = zero)."""
    if value is None:
        return None, None
    a = np.asarray(value, dtype=object if dtype == np.dtype(object) else None)
    if a.ndim != 0:
        raise L.InvalidArgumentError("spt: default_value must be a scalar, got shape %s" % (a.shape,))
    if dtype == np.dtype(object):
        s = L.spt_str()
        b = L.to_bytes(a.item())
        buf = ctypes.create_string_buffer(b, max(1, len(b)))
        s.data = ctypes.addressof(buf)
        s.len = len(b)
        return (s, buf), ctypes.cast(ctypes.pointer(s), vp)
    a = L.contig(a, dtype)
    return a, a.ctypes.data


def reorder(sp_input, order=None):
    """tf.sparse.reorder: a new tensor with the entries sorted by `order` (None = row-major; else a
    permutation, the seed's dimension order) and that order recorded. Stable. The input is never
    modified: the sorted entries are written straight into the new tensor (C spt_reordered).
    OutOfRangeError for an index outside the shape."""
    sp = sparse_arg(sp_input)
    o = _order_arg(order, sp.rank)
    out = vp()
    L.check(_reordered(sp.h, L.i64_ptr(o), ctypes.byref(out)))
    return own(out)


def argsort(sp_input, order=None):
    """The stable sorting permutation by `order` (None = row-major): perm[k] = the entry that goes to k."""
    sp = sparse_arg(sp_input)
    o = _order_arg(order, sp.rank)
    perm = np.empty(sp.nnz, dtype=np.int64)
    L.check(_argsort(sp.h, L.i64_ptr(o), L.i64_ptr(perm) if sp.nnz else ctypes.cast(None, c_int64_p)))
    return perm


def validate(sp_input):
    """Every index inside the shape, else OutOfRangeError (the message names the first bad entry).
    Caches the fact on the tensor. Returns the tensor."""
    sp = sparse_arg(sp_input)
    L.check(_validate(sp.h))
    return sp


def indices_valid(sp_input):
    """The seed's IndicesValid() with the tensor's own `order`: raises OutOfRangeError (out of bounds),
    InvalidArgumentError (out of order / repeated) or FailedPreconditionError (no order, rank != 1);
    returns True otherwise."""
    sp = sparse_arg(sp_input)
    L.check(_indices_valid(sp.h))
    return True


def with_order(sp_input, order):
    """A copy of the tensor claiming `order` (None = undefined) without sorting (the seed's order metadata)."""
    sp = sparse_arg(sp_input)
    o = _order_arg(order, sp.rank)
    t = sp.copy()
    L.check(_set_order(t.h, L.i64_ptr(o)))
    return t


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """tf.sparse.to_dense: a new numpy array of the dense shape filled with `default_value` (None = 0,
    False or b"" for strings), then the entries (last write wins). validate_indices: the indices must
    also be strictly increasing in row-major order. The array owns a C buffer (no extra copy); string
    tensors give an object array of bytes."""
    sp = sparse_arg(sp_input)
    keep, ptr = scalar_arg(default_value, sp.dtype)
    out = vp()
    L.check(_to_dense(sp.h, ptr, bool(validate_indices), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)


def to_dense_into(sp_input, out, initialize=True, default_value=None):
    """The seed's ToDense into the caller's numpy array `out` (same dtype and rank, every dim >= the
    tensor's; C-contiguous, writable), written in place without a copy. Not for string tensors."""
    sp = sparse_arg(sp_input)
    if not isinstance(out, np.ndarray) or not out.flags.c_contiguous or not out.flags.writeable:
        raise TypeError("spt.to_dense_into: out must be a writable C-contiguous numpy array")
    if out.dtype.kind == "O":
        raise L.DtypeError("spt.to_dense_into: string tensors are not supported")
    keep, ptr = scalar_arg(default_value, sp.dtype)
    d = L.Dense.from_numpy(out)
    if d.keep is not out:
        raise L.DtypeError("spt.to_dense_into: out has dtype %s, the tensor %s" % (out.dtype, sp.dtype))
    L.check(_to_dense_into(sp.h, d.h, bool(initialize), ptr))
    return out


def from_dense(tensor, default_value=None, name=None):
    """tf.sparse.from_dense: the entries of a numpy array that differ from `default_value` (None = 0;
    NaN always differs, -0.0 equals 0.0), row-major, as a SparseTensor known valid and sorted. The
    input is read in place when it is C-contiguous (a copy otherwise)."""
    a = np.asarray(tensor)
    if a.dtype.kind in "SU":
        a = a.astype(object)
    d = L.Dense.from_numpy(a)
    keep, ptr = scalar_arg(default_value, L.NP_OF[L.dense_dtype(d.h)])
    out = vp()
    L.check(_from_dense(d.h, ptr, ctypes.byref(out)))
    return own(out)


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True,
                    name=None):
    """tf.sparse_to_dense: indices (int32 or int64, rank 0, 1 or 2), output_shape (same integer dtype),
    values (rank 0 = broadcast, or [N]), default_value (a scalar of the values' dtype)."""
    ix = np.asarray(sparse_indices)
    if ix.dtype not in (np.int32, np.int64):
        ix = L.i64_array(ix, "sparse_indices")
    osh = np.asarray(output_shape)
    if osh.dtype != ix.dtype:
        if osh.dtype.kind not in "iu" and osh.size:
            raise L.DtypeError("spt.sparse_to_dense: output_shape must be integers, got %s" % osh.dtype)
        osh = osh.astype(ix.dtype)
    vals = np.asarray(sparse_values)
    if vals.dtype.kind in "SU":
        vals = vals.astype(object)
    dv = np.asarray(default_value if default_value is not None else (b"" if vals.dtype.kind == "O" else 0))
    if vals.dtype.kind == "O":
        dv = dv.astype(object)
    else:
        dv = dv.astype(vals.dtype)
    dix, dos, dval, ddv = (L.Dense.from_numpy(x) for x in (ix, osh, vals, dv))
    out = vp()
    L.check(_sparse_to_dense(dix.h, dos.h, dval.h, ddv.h, bool(validate_indices), ctypes.byref(out)))
    return L.Dense(out.value).numpy(readonly=False)


def group(sp, dims):
    """The seed's group(): an iterator of (key, indices, values) over the maximal runs of consecutive
    entries with equal values in `dims`. The tensor's order must start with `dims` (reorder it first),
    else FailedPreconditionError. `key` is a tuple of ints; `indices` (count x rank) and `values` are
    read-only views into the tensor (strings: a copy)."""
    sp = sparse_arg(sp)
    d = L.i64_array(list(dims) if not isinstance(dims, np.ndarray) else dims, "dims").reshape(-1)
    it = vp()
    L.check(_group_begin(sp.h, L.i64_ptr(d), d.size, ctypes.byref(it)))
    return _GroupIter(sp, it.value, d.size)


class _GroupIter:
    def __init__(self, sp, it, nd):
        self.sp, self.it, self.nd = sp, it, nd

    def __iter__(self):
        return self

    def __next__(self):
        if not self.it:
            raise StopIteration
        g = L.spt_group()
        if not _group_next(self.it, ctypes.byref(g)):
            self.close()
            raise StopIteration
        sp = self.sp
        r = sp.rank
        key = tuple(g.key[i] for i in range(self.nd))
        ixa = ctypes.cast(g.indices, vp).value
        ix = L.view(sp, ixa, (g.count, r), np.int64)
        dt = sp.dtype
        if dt.kind == "O":
            vals = L.strings_from(g.values, g.count)
        else:
            vals = L.view(sp, g.values, (g.count,), dt)
        return key, ix, vals

    def close(self):
        it, self.it = self.it, None
        if it and _group_end is not None:
            _group_end(it)

    __del__ = close


_set_num_threads = L.fn("spt_set_num_threads", None, cint)
_get_num_threads = L.fn("spt_get_num_threads", cint)


def set_num_threads(n):
    """The number of threads spt's ops may use (n <= 0 restores the default: OMP_NUM_THREADS)."""
    _set_num_threads(int(n))


def get_num_threads():
    return int(_get_num_threads())
