# SPDX-License-Identifier: Apache-2.0
"""spt.SparseTensor: a Python object over one C spt_tensor, with zero-copy numpy views."""
import numpy as np

from . import _lib as L
from ._registry import C, FREE, provide, raw
from ._dense import Dense
from ._export import exports, public

_free = raw(FREE["tensor"])

# TF's truediv table: integer values become this float dtype before a division (TensorFlow's
# _TRUEDIV_TABLE); floats and complex stay, bool is refused.
_TRUEDIV = {np.dtype(np.int8): np.float32, np.dtype(np.uint8): np.float32, np.dtype(np.int16): np.float32,
            np.dtype(np.uint16): np.float32, np.dtype(np.int32): np.float64, np.dtype(np.uint32): np.float64,
            np.dtype(np.int64): np.float64, np.dtype(np.uint64): np.float64}


@public
class SparseTensor:
    """A sparse tensor with TensorFlow's SparseTensor semantics, backed by a C `spt_tensor`.

    SparseTensor(indices, values, dense_shape, order=None, dtype=None)

    indices      N x R integer array (int64, C-contiguous arrays are used as they are); floats are refused
    values       N values: bool, (u)int8..64, float32/64, complex64/128, or bytes/str (an object array);
                 with `dtype`, converted to it exactly (a value the dtype cannot hold is refused)
    dense_shape  R non-negative dims whose product fits in int64
    order        R ints: the dimension order the entries claim to be sorted in (None = undefined, all -1)

    Zero copy: a C-contiguous native-endian numeric `values` array is wrapped without copying
    (spt_tensor_wrap); the tensor keeps it alive (changing it changes the tensor's values). `indices`
    are always private to the tensor: a caller's array is copied, because the tensor caches that its
    indices were validated and a later change to them would make the C ops write out of bounds. Other
    value layouts or dtypes are converted (a copy); string values are always copied.

    `.indices`, `.values`, `.dense_shape` and `.order` are read-only numpy arrays over the C buffers; each
    keeps the C tensor alive for its whole life (they hold its owner, not this object).

    Ownership: copy.copy, copy.deepcopy and pickle copy the data (a new C tensor; pickling carries the
    indices, values, shape and order), so tensors travel to multiprocessing workers. __init__ runs once.

    Operators (TensorFlow's SparseTensor semantics): `sp * x` and `sp / x` with a dense numpy array or a
    scalar x give a SparseTensor with the same indices (sparse_dense_cwise_mul / _div; `/` first turns
    integer values into floats as TF's truediv does); `sp + sp2` is spt.add (a SparseTensor), `sp + x`
    with a numpy array is the dense sum; `-sp`, `abs(sp)`; `sp @ x` is sparse_dense_matmul. `.T`,
    `.sum(axis)`, `.astype(dtype)`, `.with_values(values)`.

    numpy: `np.asarray(sp)` raises DtypeError (a TypeError): a sparse tensor is not silently densified;
    call spt.to_dense(sp) (or sp.to_dense()) for the dense array.
    """

    __slots__ = ("h", "_c", "_svals", "__weakref__")
    __array_ufunc__ = None  # numpy defers `array * sp` etc. to our reflected operators

    def __init__(self, indices, values, dense_shape, order=None, dtype=None):
        if getattr(self, "_c", None) is not None:
            raise L.err(L.FailedPreconditionError, "SparseTensor", "__init__ was already called on this tensor")
        self._init(indices, values, dense_shape, order, dtype, False)

    @classmethod
    def _adopting(cls, indices, values, dense_shape, order=None):
        """Like the constructor, but wraps `indices` without a copy: only for an int64 array nobody else
        holds (built by the caller inside this package)."""
        t = cls.__new__(cls)
        t._init(indices, values, dense_shape, order, None, True)
        return t

    def _set(self, other):
        self.h, self._c, self._svals = other.h, other._c, None

    def _init(self, indices, values, dense_shape, order, dtype, adopt):
        self.h = None
        self._c = None
        self._svals = None
        op = "SparseTensor"
        shape = L.i64_arg(dense_shape, "dense_shape", op)
        if dtype is not None:
            values = L.exact_cast(values, L.as_dtype(dtype), "values", op)
        else:
            if values is None:
                raise L.err(L.InvalidArgumentError, op, "values must not be None")
            values = np.asarray(values)
            if values.dtype.kind in "SU":
                values = values.astype(object)
            elif values.dtype.kind == "O":
                values = L.object_values(values, "values", op)
        ix = np.asarray(indices)
        # an array numpy builds from a list or tuple is private; any other may be shared with the caller
        private = adopt or isinstance(indices, (list, tuple))
        given = ix
        rank = shape.size if shape.ndim == 1 else -1
        if ix.size == 0 and ix.ndim == 1 and rank >= 0:  # [] : no entries
            ix = ix.reshape(0, rank)
        ix = L.i64_arg(ix, "indices", op)
        if not private and ix.size and np.may_share_memory(ix, given):
            ix = ix.copy()  # never borrow the caller's indices (see the class comment)
        ordr = None if order is None else L.i64_arg(order, "order", op)
        ok = (shape.ndim == 1 and ix.ndim == 2 and values.ndim == 1 and ix.shape[0] == values.shape[0]
              and ix.shape[1] == rank and (ordr is None or ordr.shape == (rank,)))
        if not ok:
            # Not the N x R / N layout: TF's SparseTensor::Create checks, in its order, from the C library.
            t = C.spt_tensor_create(ix, values, shape, ordr)
            self._set(t)
            return
        nnz = values.shape[0]
        if values.dtype.kind == "O":
            t = C.spt_tensor_new(L.SPT_STRING, shape, nnz, ix, L.StrArray(values, "values", op), ordr)
            self._set(t)
            return
        dt = L.spt_dtype_of(values.dtype)
        values = L.contig(values, L.NP_OF[dt])
        t = C.spt_tensor_wrap(dt, shape, nnz, ix, values, ordr)
        t._c.keep = (ix, values)  # the C tensor borrows them: its owner keeps them alive
        self._set(t)

    @classmethod
    def create(cls, indices, values, dense_shape, order=None):
        """TensorFlow's SparseTensor::Create: the arrays are taken as they are (no dtype conversion; indices
        must be int64, values rank 1, ...), checked in TF's order by spt_tensor_create, and copied."""
        return C.spt_tensor_create(np.asarray(indices), np.asarray(values), np.asarray(dense_shape),
                                   None if order is None else np.asarray(order))

    @classmethod
    def _own(cls, handle, keep=None):
        """A SparseTensor owning a C handle returned by an op."""
        t = cls.__new__(cls)
        t.h = handle
        t._c = L.Owner(handle, _free, keep)
        t._svals = None
        return t

    # ---- copying and pickling: by value -----------------------------------------------------------
    def __reduce__(self):
        order = np.array(self.order)
        return (_rebuild, (np.array(self.indices), np.array(self.values), np.array(self.dense_shape),
                           order, self.dtype.str if self.dtype.kind != "O" else "string"))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ---- attributes -------------------------------------------------------------------------------
    @property
    def dtype(self):
        """The numpy dtype of the values (object for strings)."""
        return L.NP_OF[C.spt_tensor_dtype(self)]

    @property
    def spt_dtype(self):
        """The spt dtype name ("float64", "string", ...)."""
        return L.DTYPE_NAMES[C.spt_tensor_dtype(self)]

    @property
    def rank(self):
        return C.spt_tensor_rank(self)

    ndim = rank

    @property
    def nnz(self):
        return C.spt_tensor_nnz(self)

    @property
    def dense_shape(self):
        return L.view(self._c, C.spt_tensor_shape(self), (self.rank,), np.int64)

    @property
    def shape(self):
        """The dense shape as a tuple of ints."""
        return tuple(self.dense_shape.tolist())

    @property
    def order(self):
        return L.view(self._c, C.spt_tensor_order(self), (self.rank,), np.int64)

    @property
    def indices(self):
        return L.view(self._c, C.spt_tensor_indices(self), (self.nnz, self.rank), np.int64)

    @property
    def values(self):
        dt = C.spt_tensor_dtype(self)
        if dt == L.SPT_STRING:
            if self._svals is None:
                self._svals = L.strings_from(C.spt_tensor_values(self), self.nnz)
                self._svals.flags.writeable = False
            return self._svals
        return L.view(self._c, C.spt_tensor_values(self), (self.nnz,), L.NP_OF[dt])

    @property
    def known_valid(self):
        """True when every index is known to lie inside the shape (cached by validation)."""
        return bool(C.spt_tensor_known_valid(self))

    @property
    def known_sorted(self):
        """True when the entries are known to be sorted by `.order`."""
        return bool(C.spt_tensor_known_sorted(self))

    def copy(self):
        """A deep copy owned by the C library."""
        return C.spt_tensor_clone(self)

    def to_dense(self, default_value=None, validate_indices=False):
        """spt.to_dense(self, default_value, validate_indices) (validation off by default here)."""
        from ._layout import to_dense

        return to_dense(self, default_value, validate_indices)

    def with_values(self, new_values):
        """TF's SparseTensor.with_values: the same indices, shape and order with `new_values` (nnz of
        them, any dtype spt has)."""
        v = np.asarray(new_values)
        if v.dtype.kind in "SU":
            v = v.astype(object)
        if v.shape != (self.nnz,):
            raise L.err(L.InvalidArgumentError, "with_values", "new_values must have shape (%d,), got %s"
                        % (self.nnz, v.shape))
        t = SparseTensor._adopting(np.array(self.indices), v, np.array(self.dense_shape), np.array(self.order))
        return t

    def astype(self, dtype):
        """A tensor with the values cast to `dtype` as numpy's astype (tf.cast) casts them."""
        dt = L.as_dtype(dtype)
        to_str = L.is_string_dtype(dt)  # str, bytes, 'U', 'S' and object: a string tensor
        if to_str != (self.dtype.kind == "O"):
            raise L.err(L.DtypeError, "astype", "cannot cast %s values to %s" % (self.spt_dtype, dt))
        return self.with_values(np.asarray(self.values).astype(object if to_str else dt))

    @property
    def T(self):  # noqa: N802 - numpy's name
        """tf.sparse.transpose(self): the dims reversed."""
        from ._layout import transpose

        return transpose(self)

    def sum(self, axis=None, keepdims=False):
        """tf.sparse.reduce_sum(self, axis, keepdims) as a numpy array."""
        from ._reduce import reduce_sum

        return reduce_sum(self, axis, keepdims)

    # ---- numpy and operators ----------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise L.err(L.DtypeError, "SparseTensor",
                    "a SparseTensor is not converted to a dense array implicitly; call spt.to_dense(sp)")

    def __mul__(self, other):
        if isinstance(other, SparseTensor):
            from ._elementwise import multiply

            return multiply(self, other)
        from ._elementwise import sparse_dense_cwise_mul

        return sparse_dense_cwise_mul(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, SparseTensor):
            return NotImplemented
        from ._elementwise import sparse_dense_cwise_div

        sp = self
        fdt = _TRUEDIV.get(self.dtype)
        if self.dtype.kind in "bO":
            raise L.err(L.DtypeError, "truediv", "%s values cannot be divided" % self.spt_dtype)
        if fdt is not None:
            sp = self.astype(fdt)
            other = np.asarray(other)
            if other.dtype.kind in "iub":
                other = other.astype(fdt)
            else:
                other = L.exact_cast(other, fdt, "y", "truediv") if other.dtype != fdt else other
        return sparse_dense_cwise_div(sp, other)

    def __add__(self, other):
        if not isinstance(other, (SparseTensor, np.ndarray)):
            return NotImplemented
        from ._elementwise import add

        return add(self, other)

    def __radd__(self, other):
        if not isinstance(other, np.ndarray):
            return NotImplemented
        from ._elementwise import add

        return add(other, self)

    def __sub__(self, other):
        if not isinstance(other, SparseTensor):
            return NotImplemented
        from ._elementwise import subtract

        return subtract(self, other)

    def __neg__(self):
        if self.dtype.kind in "bO":
            raise L.err(L.DtypeError, "negative", "%s values cannot be negated" % self.spt_dtype)
        return self.with_values(-np.asarray(self.values))

    def __abs__(self):
        if self.dtype.kind in "O":
            raise L.err(L.DtypeError, "abs", "string values have no absolute value")
        return self.with_values(np.abs(np.asarray(self.values)))

    def __matmul__(self, other):
        """numpy's matmul rule: rank 2 @ matrix (sparse_dense_matmul), rank 2 @ vector (a vector,
        sparse_dense_matvec), rank 3 @ a stack [P, K, N] or one matrix [K, N] (the batched product,
        spt.bmm); sparse @ sparse is sparse_sparse_matmul."""
        if isinstance(other, SparseTensor):
            from ._products import sparse_sparse_matmul

            return sparse_sparse_matmul(self, other)
        nd = np.ndim(other)
        if self.rank == 3 and nd in (2, 3):
            from ._products import bmm

            return bmm(self, other)
        if self.rank == 2 and nd == 1:
            from ._products import sparse_dense_matvec

            return sparse_dense_matvec(self, other)
        from ._products import sparse_dense_matmul

        return sparse_dense_matmul(self, other)

    def __rmatmul__(self, other):
        """other @ self by numpy's rule: a stack [P, M, K] (or one matrix [M, K]) @ rank 3 is the batched
        product, computed as (self^H @ other^H)^H; a vector @ rank 2 is a vector."""
        nd = np.ndim(other)
        if self.rank == 3 and nd in (2, 3):
            from ._products import bmm

            d = np.asarray(other)
            r = bmm(self, np.ascontiguousarray(np.conj(d).swapaxes(-1, -2)), adjoint_a=True)
            return np.ascontiguousarray(np.conj(r).swapaxes(-1, -2))
        if self.rank == 2 and nd == 1:
            from ._products import sparse_dense_matvec

            return np.conj(sparse_dense_matvec(self, np.conj(np.asarray(other)), adjoint_a=True))
        from ._products import sparse_dense_matmul

        return sparse_dense_matmul(other, self)

    def __repr__(self):
        n = self.nnz
        head = "SparseTensor(dtype=%s, shape=%s, nnz=%d" % (self.spt_dtype, self.shape, n)
        if n <= 6:
            return head + ", indices=%s, values=%s)" % (
                np.array2string(self.indices, separator=", ").replace("\n", ""),
                np.array2string(self.values, separator=", ").replace("\n", ""))
        return head + ")"


def _rebuild(indices, values, dense_shape, order, dtype):
    """Unpickle a SparseTensor (a new C tensor from the carried data)."""
    t = SparseTensor._adopting(indices, values, dense_shape, order)
    return t


def sparse_arg(sp, name="sp_input", op=None):
    """The SparseTensor behind an argument: a SparseTensor, or an (indices, values, dense_shape) triple,
    or an object with .indices/.values/.dense_shape (a tf.SparseTensor-like value)."""
    if isinstance(sp, SparseTensor):
        return sp
    if isinstance(sp, tuple) and len(sp) == 3:
        return SparseTensor(*sp)
    if all(hasattr(sp, a) for a in ("indices", "values", "dense_shape")):
        return SparseTensor(np.asarray(sp.indices), np.asarray(sp.values), np.asarray(sp.dense_shape))
    raise L.DtypeError("spt%s: %s must be a spt.SparseTensor, got %s"
                       % ("." + op if op else "", name, type(sp).__name__), -6)


def own(h):
    return SparseTensor._own(h)


provide("tensor", SparseTensor, SparseTensor._own, lambda x, arg, op: sparse_arg(x, arg, op))


__all__ = exports(__name__)
