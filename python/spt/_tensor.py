"""spt.SparseTensor: a Python object over one C spt_tensor, with zero-copy numpy views."""
import ctypes

import numpy as np

from . import _lib as L
from ._lib import c_int64_p, cint, i64, vp, vpp, cbool

_new = L.fn("spt_tensor_new", cint, cint, i64, c_int64_p, i64, c_int64_p, vp, c_int64_p, vpp)
_wrap = L.fn("spt_tensor_wrap", cint, cint, i64, c_int64_p, i64, c_int64_p, vp, c_int64_p, vp, vp, vpp)
_create = L.fn("spt_tensor_create", cint, vp, vp, vp, vp, vpp)
_clone = L.fn("spt_tensor_clone", cint, vp, vpp)
_free = L.fn("spt_tensor_free", None, vp)
_dtype = L.fn("spt_tensor_dtype", cint, vp)
_rank = L.fn("spt_tensor_rank", i64, vp)
_nnz = L.fn("spt_tensor_nnz", i64, vp)
_shape = L.fn("spt_tensor_shape", vp, vp)
_order = L.fn("spt_tensor_order", vp, vp)
_indices = L.fn("spt_tensor_indices", vp, vp)
_values = L.fn("spt_tensor_values", vp, vp)
_known_valid = L.fn("spt_tensor_known_valid", cbool, vp)
_known_sorted = L.fn("spt_tensor_known_sorted", cbool, vp)


class SparseTensor:
    """A sparse tensor with TensorFlow's SparseTensor semantics, backed by a C `spt_tensor`.

    SparseTensor(indices, values, dense_shape, order=None, dtype=None)

    indices      N x R integer array (int64, C-contiguous arrays are used as they are)
    values       N values: bool, (u)int8..64, float32/64, complex64/128, or bytes/str (an object array)
    dense_shape  R non-negative dims whose product fits in int64
    order        R ints: the dimension order the entries claim to be sorted in (None = undefined, all -1)

    Zero copy: a C-contiguous native-endian numeric `values` array is wrapped without copying
    (spt_tensor_wrap); the tensor keeps it alive (changing it changes the tensor's values). `indices`
    are always private to the tensor: a caller's array is copied, because the tensor caches that its
    indices were validated and a later change to them would make the C ops write out of bounds. Other
    value layouts or dtypes are converted (a copy); string values are always copied.

    `.indices`, `.values`, `.dense_shape` and `.order` are read-only numpy arrays over the C buffers
    (they keep the tensor alive); `.values` of a string tensor is a new object array of bytes.
    """

    __slots__ = ("h", "_keep", "_svals", "__weakref__")

    def __init__(self, indices, values, dense_shape, order=None, dtype=None):
        self._init(indices, values, dense_shape, order, dtype, False)

    @classmethod
    def _adopting(cls, indices, values, dense_shape, order=None):
        """Like the constructor, but wraps `indices` without a copy: only for an int64 array nobody
        else holds (built by the caller inside this package)."""
        t = cls.__new__(cls)
        t._init(indices, values, dense_shape, order, None, True)
        return t

    def _init(self, indices, values, dense_shape, order, dtype, adopt):
        self.h = None
        self._keep = None
        self._svals = None
        shape = L.i64_array(dense_shape, "dense_shape")
        if dtype is not None:
            values = np.asarray(values, dtype=L.as_dtype(dtype))
        else:
            values = np.asarray(values)
            if values.dtype.kind in "SU":
                values = values.astype(object)
            elif values.dtype.kind == "f" and values.size == 0 and not isinstance(values, np.ndarray):
                pass
        ix = np.asarray(indices)
        # an array numpy builds from a list or tuple is private; any other may be shared with the caller
        private = adopt or isinstance(indices, (list, tuple))
        given = ix
        rank = shape.size if shape.ndim == 1 else -1
        if ix.size == 0 and ix.ndim == 1 and rank >= 0:  # [] : no entries
            ix = ix.reshape(0, rank)
        ix = L.i64_array(ix, "indices")
        if not private and ix.size and np.may_share_memory(ix, given):
            ix = ix.copy()  # never borrow the caller's indices (see the class comment)
        ordr = None if order is None else L.i64_array(order, "order")
        ok = (shape.ndim == 1 and ix.ndim == 2 and values.ndim == 1 and ix.shape[0] == values.shape[0]
              and ix.shape[1] == rank and (ordr is None or ordr.shape == (rank,)))
        out = vp()
        if not ok:
            # Not the N x R / N layout: TF's SparseTensor::Create checks, in its order, from the C library.
            dix = L.Dense.from_numpy(ix)
            dval = L.Dense.from_numpy(values)
            dsh = L.Dense.from_numpy(shape)
            dord = L.Dense.from_numpy(ordr) if ordr is not None else None
            L.check(_create(dix.h, dval.h, dsh.h, L.h(dord), ctypes.byref(out)))
            self.h = out.value
            return
        nnz = values.shape[0]
        if values.dtype.kind == "O":
            sa = L.StrArray(values)
            L.check(_new(L.SPT_STRING, rank, L.i64_ptr(shape), nnz, L.i64_ptr(ix), sa.ptr, L.i64_ptr(ordr),
                         ctypes.byref(out)))
            self.h = out.value
            return
        dt = L.spt_dtype_of(values.dtype)
        values = L.contig(values, L.NP_OF[dt])
        L.check(_wrap(dt, rank, L.i64_ptr(shape), nnz, L.i64_ptr(ix), L.ptr_of(values), L.i64_ptr(ordr),
                      None, None, ctypes.byref(out)))
        self.h = out.value
        self._keep = (ix, values)

    @classmethod
    def create(cls, indices, values, dense_shape, order=None):
        """TensorFlow's SparseTensor::Create: the arrays are taken as they are (no dtype conversion; indices
        must be int64, values rank 1, ...), checked in TF's order by spt_tensor_create, and copied."""
        ds = [L.Dense.from_numpy(np.asarray(x)) for x in (indices, values, dense_shape)]
        dord = L.Dense.from_numpy(np.asarray(order)) if order is not None else None
        out = vp()
        L.check(_create(ds[0].h, ds[1].h, ds[2].h, L.h(dord), ctypes.byref(out)))
        return cls._own(out.value)

    @classmethod
    def _own(cls, handle, keep=None):
        """A SparseTensor owning a C handle returned by an op."""
        t = cls.__new__(cls)
        t.h = handle
        t._keep = keep
        t._svals = None
        return t

    def __del__(self):
        hd, self.h = getattr(self, "h", None), None
        if hd and _free is not None:
            _free(hd)

    # ---- attributes -------------------------------------------------------------------------------
    @property
    def dtype(self):
        """The numpy dtype of the values (object for strings)."""
        return L.NP_OF[_dtype(self.h)]

    @property
    def spt_dtype(self):
        """The spt dtype name ("float64", "string", ...)."""
        return L.DTYPE_NAMES[_dtype(self.h)]

    @property
    def rank(self):
        return int(_rank(self.h))

    ndim = rank

    @property
    def nnz(self):
        return int(_nnz(self.h))

    @property
    def dense_shape(self):
        return L.view(self, _shape(self.h), (self.rank,), np.int64)

    @property
    def shape(self):
        """The dense shape as a tuple of ints."""
        return tuple(int(s) for s in self.dense_shape)

    @property
    def order(self):
        return L.view(self, _order(self.h), (self.rank,), np.int64)

    @property
    def indices(self):
        return L.view(self, _indices(self.h), (self.nnz, self.rank), np.int64)

    @property
    def values(self):
        dt = _dtype(self.h)
        if dt == L.SPT_STRING:
            if self._svals is None:
                self._svals = L.strings_from(_values(self.h), self.nnz)
                self._svals.flags.writeable = False
            return self._svals
        return L.view(self, _values(self.h), (self.nnz,), L.NP_OF[dt])

    @property
    def known_valid(self):
        """True when every index is known to lie inside the shape (cached by validation)."""
        return bool(_known_valid(self.h))

    @property
    def known_sorted(self):
        """True when the entries are known to be sorted by `.order`."""
        return bool(_known_sorted(self.h))

    def copy(self):
        """A deep copy owned by the C library."""
        out = vp()
        L.check(_clone(self.h, ctypes.byref(out)))
        return SparseTensor._own(out.value)

    def to_dense(self, default_value=None, validate_indices=False):
        """spt.to_dense(self, default_value, validate_indices) (validation off by default here)."""
        from ._core import to_dense

        return to_dense(self, default_value, validate_indices)

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            np.array2string(self.indices, separator=", ").replace("\n", ""),
            np.array2string(self.values, separator=", ").replace("\n", ""),
            list(self.shape))


def sparse_arg(sp, name="sp_input"):
    """The SparseTensor behind an argument: a SparseTensor, or an (indices, values, dense_shape) triple,
    or an object with .indices/.values/.dense_shape (a tf.SparseTensor-like value)."""
    if isinstance(sp, SparseTensor):
        return sp
    if isinstance(sp, tuple) and len(sp) == 3:
        return SparseTensor(*sp)
    if all(hasattr(sp, a) for a in ("indices", "values", "dense_shape")):
        return SparseTensor(np.asarray(sp.indices), np.asarray(sp.values), np.asarray(sp.dense_shape))
    raise TypeError("%s must be a spt.SparseTensor, got %s" % (name, type(sp).__name__))


def own(out):
    """A SparseTensor from a filled ctypes out-parameter."""
    return SparseTensor._own(out.value)
