# SPDX-License-Identifier: Apache-2.0
"""Conversions to and from SciPy sparse matrices, pydata/sparse COO arrays, torch sparse COO tensors and
TensorFlow SparseTensors (duck-typed; TensorFlow imported by to_tf only).

What is copied:
  from_scipy   the row/col arrays are interleaved into an N x 2 indices array (a copy); `data` of a COO
               matrix is shared (wrapped) when native-endian and of a dtype spt has, CSR/CSC/... are
               first converted by SciPy (a copy).
  to_scipy     a COO matrix over copies of the columns of `.indices` and a copy of `.values`.
  from_pydata  coords (R x N) is transposed into an N x R array (a copy); `data` is shared.
  to_pydata    coords and data are copies.
  from_torch   indices are transposed (a copy); values share the torch CPU storage when contiguous.
  to_torch     indices and values are copies.
  from_tf      indices, values and dense_shape are copies (any object with those three attributes).
  to_tf        indices, values and dense_shape are copies (TensorFlow imported when called).
A shared values array must not be modified while the SparseTensor lives.
"""
import numpy as np

from . import _lib as L
from ._export import exports, public
from ._tensor import SparseTensor, sparse_arg


@public
def from_scipy(m):
    """A SparseTensor of rank 2 from any SciPy sparse matrix or array. Duplicates and the stored order
    are kept; a matrix in canonical format (sorted, no duplicates) records the row-major order.
    Copies the row/col arrays (interleaved into N x 2 indices); shares `data` of a COO matrix."""
    import scipy.sparse as ss

    if not ss.issparse(m):
        raise L.err(L.DtypeError, "from_scipy", "expected a scipy.sparse matrix, got %s" % type(m).__name__)
    canonical = m.format in ("csr", "coo") and bool(getattr(m, "has_canonical_format", False))
    c = m.tocoo(copy=False)
    ix = np.empty((c.nnz, 2), dtype=np.int64)
    ix[:, 0] = c.row
    ix[:, 1] = c.col
    return SparseTensor._adopting(ix, c.data, c.shape, order=[0, 1] if canonical else None)


@public
def to_scipy(sp_input, format="coo"):
    """A SciPy sparse matrix of a rank-2 tensor: format "coo" (duplicates kept, entries in storage
    order), or any format SciPy converts to ("csr", "csc", ...: duplicates summed by SciPy). Copies."""
    import scipy.sparse as ss

    sp = sparse_arg(sp_input)
    if sp.rank != 2:
        raise L.InvalidArgumentError("spt.to_scipy: a rank-2 tensor is needed, got rank %d" % sp.rank)
    if sp.dtype.kind == "O":
        raise L.DtypeError("spt.to_scipy: string tensors have no SciPy form")
    ix = sp.indices
    m = ss.coo_matrix((np.array(sp.values), (ix[:, 0].copy(), ix[:, 1].copy())), shape=sp.shape)
    return m if format == "coo" else m.asformat(format)


@public
def from_pydata(x):
    """A SparseTensor from a pydata/sparse array (COO, or any format it converts to COO). The fill
    value must be zero (InvalidArgumentError otherwise). A sorted COO records the row-major order.
    Copies coords (transposed to N x R); shares `data`."""
    import sparse

    if not isinstance(x, sparse.SparseArray):
        raise L.err(L.DtypeError, "from_pydata", "expected a sparse.SparseArray, got %s" % type(x).__name__)
    if not isinstance(x, sparse.COO):
        x = x.asformat("coo")
    fv = x.fill_value
    if fv is not None and not (fv == 0 or (isinstance(fv, (bytes, str)) and len(fv) == 0)):
        raise L.InvalidArgumentError("spt.from_pydata: fill_value %r is not zero" % (fv,))
    ix = np.array(x.coords.T, dtype=np.int64, order="C")
    rank = len(x.shape)
    order = list(range(rank)) if (getattr(x, "sorted", False) and rank > 0) else None
    return SparseTensor._adopting(ix.reshape(x.nnz, rank), x.data, x.shape, order=order)


@public
def to_pydata(sp_input):
    """A sparse.COO of the tensor (copies; duplicates are kept and summed by pydata when it needs to)."""
    import sparse

    sp = sparse_arg(sp_input)
    if sp.dtype.kind == "O":
        raise L.DtypeError("spt.to_pydata: string tensors are not supported by pydata/sparse")
    coords = np.array(sp.indices.T, order="C")
    return sparse.COO(coords, np.array(sp.values), shape=sp.shape, has_duplicates=True, sorted=False,
                      prune=False, fill_value=np.zeros((), sp.dtype)[()])


@public
def from_torch(t):
    """A SparseTensor from a torch sparse COO tensor (CPU; values 1-D, no hybrid dims) or a dense torch
    tensor (through from_dense). A coalesced tensor records the row-major order. Copies the indices
    (transposed); shares the values' CPU storage when contiguous."""
    import torch

    if not isinstance(t, torch.Tensor):
        raise L.err(L.DtypeError, "from_torch", "expected a torch.Tensor, got %s" % type(t).__name__)
    t = t.detach()
    if t.layout == torch.strided:
        from ._layout import from_dense

        return from_dense(t.cpu().numpy())
    if t.layout != torch.sparse_coo:
        t = t.to_sparse()
    t = t.cpu()
    if t.dense_dim() != 0:
        raise L.InvalidArgumentError("spt.from_torch: hybrid sparse tensors (dense dims) are not supported")
    coalesced = t.is_coalesced()
    ix = t._indices().numpy()
    vals = t._values().numpy()
    rank = t.sparse_dim()
    ix = np.array(ix.T, dtype=np.int64, order="C").reshape(vals.shape[0], rank)
    return SparseTensor._adopting(ix, vals, tuple(t.shape), order=list(range(rank)) if coalesced and rank > 0 else None)


@public
def to_torch(sp_input):
    """A torch.sparse_coo_tensor of the tensor (copies; duplicates kept, not coalesced). torch lacks
    uint16/32/64 and strings (DtypeError)."""
    import torch

    sp = sparse_arg(sp_input)
    if sp.dtype.kind == "O" or sp.dtype in (np.uint16, np.uint32, np.uint64):
        raise L.DtypeError("spt.to_torch: torch has no dtype for %s" % sp.spt_dtype)
    ix = torch.from_numpy(np.array(sp.indices.T, order="C"))
    vals = torch.from_numpy(np.array(sp.values))
    return torch.sparse_coo_tensor(ix, vals, size=sp.shape)


def _np_of(x, arg, fn):
    """A TensorFlow tensor (anything with .numpy()) or an array-like as a numpy array."""
    try:
        return np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    except Exception as e:  # noqa: BLE001 - whatever the object raises, reported as spt's error
        raise L.err(L.InvalidArgumentError, fn, "%s could not be read as an array: %s" % (arg, e)) from None


@public
def from_tf(st):
    """A SparseTensor from a tf.SparseTensor (or any object with `indices`, `values` and `dense_shape`
    that numpy can read; TensorFlow is not imported). Copies; the values' dtype is kept exactly (TF's
    strings become bytes). Every index is checked as for any new tensor."""
    fn = "from_tf"
    missing = [a for a in ("indices", "values", "dense_shape") if not hasattr(st, a)]
    if missing:
        raise L.err(L.DtypeError, fn, "expected a tf.SparseTensor-like object with indices, values and "
                    "dense_shape; %s has no %s" % (type(st).__name__, ", ".join(missing)))
    ix = _np_of(st.indices, "indices", fn)
    vals = _np_of(st.values, "values", fn)
    shape = _np_of(st.dense_shape, "dense_shape", fn)
    if vals.dtype.kind in "SU":
        vals = vals.astype(object)
    return SparseTensor(ix, vals, shape, dtype=vals.dtype)


@public
def to_tf(sp_input):
    """A tf.SparseTensor of the tensor (copies; entry order and duplicates kept; the dtype kept exactly,
    strings as tf.string). TensorFlow is imported here, only when this is called."""
    import tensorflow as tf

    sp = sparse_arg(sp_input, "sp_input", "to_tf")
    vals = np.array(sp.values)
    if sp.dtype.kind == "O":
        values = tf.constant(vals.reshape(-1).tolist() if vals.size else np.zeros(0, object), dtype=tf.string)
    else:
        values = tf.constant(vals, dtype=tf.as_dtype(sp.dtype))
    return tf.sparse.SparseTensor(tf.constant(np.array(sp.indices).reshape(sp.nnz, sp.rank), tf.int64), values,
                                  tf.constant(np.array(sp.dense_shape, dtype=np.int64).reshape(sp.rank), tf.int64))


__all__ = exports(__name__)
