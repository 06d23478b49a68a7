# SPDX-License-Identifier: Apache-2.0
"""Serialization (src/ops/serial): tf.io's serialize_sparse, serialize_many_sparse, deserialize_sparse and
deserialize_many_sparse in TensorFlow's bytes (three TensorProtos per tensor, identical to what TensorFlow
writes), and spt's own checksummed packed form (pack_sparse / unpack_sparse), computed by the C library."""
import ctypes

import numpy as np

from . import _lib as L
from ._export import exports
from ._registry import C, op, register
from ._tensor import sparse_arg


from ._args import _spt_dtype
from ._registry.kinds import (Entry, D, NDT, STATUS, T, VOID, buffer, enum, handle, i64, i64in, out)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    # TensorFlow's serialized SparseTensor (string arrays of TensorProto bytes)
    Entry("spt_serialize_sparse", STATUS, handle("t", T), out("out", D)),
    Entry("spt_serialize_many_sparse", STATUS, handle("t", T), out("out", D)),
    Entry("spt_deserialize_sparse", STATUS, handle("serialized", D), enum("dtype", "spt_dtype", NDT), out("out", T)),
    Entry("spt_deserialize_many_sparse", STATUS, handle("serialized", D), enum("dtype", "spt_dtype", NDT),
          out("out", T)),
    # spt's own packed form
    Entry("spt_pack_sparse", STATUS, handle("t", T), buffer("data", "void * *", nullable=False),
          buffer("len", "size_t *", nullable=False)),
    Entry("spt_bytes_free", VOID, buffer("p", "void *")),
    Entry("spt_pack_many_sparse", STATUS, handle("t", T), buffer("data", "void * * *", nullable=False),
          buffer("lens", "size_t * *", nullable=False), buffer("n", "int64_t *", nullable=False)),
    Entry("spt_packed_free", VOID, buffer("data", "void * *"), buffer("lens", "size_t *"), i64("n", lo=0)),
    Entry("spt_unpack_sparse", STATUS, buffer("data", "const void * const *", nullable=False),
          buffer("lens", "const size_t *", nullable=False), i64("batch_rank", 0, len_of="batch_shape"),
          i64in("batch_shape"), enum("dtype", "spt_dtype", NDT), out("out", T)),
    Entry("spt_unpack_many_sparse", STATUS, buffer("data", "const void * const *", nullable=False),
          buffer("lens", "const size_t *", nullable=False), i64("n", lo=0), enum("dtype", "spt_dtype", NDT),
          out("out", T)),
]
register("serial", ENTRIES)


def _out_type(out_type, fn):
    if not ((isinstance(out_type, str) and out_type in ("string", "str", "bytes"))
            or any(out_type is t for t in (None, bytes, object, np.bytes_, np.object_))
            or getattr(out_type, "name", None) == "string"):
        raise L.err(L.DtypeError, fn, "out_type must be string (spt has no variant tensors), got %r" % (out_type,))


def _bytes_list(x):
    """x itself when it is a list of bytes objects only (the fast path of large batches), else None."""
    if type(x) is list and all(type(v) is bytes for v in x):
        return x
    return None


def _bytes_array(x, fn, arg):
    """x (bytes, or nested lists / an object array of bytes) as a numpy object array of bytes."""
    if isinstance(x, (bytes, bytearray, memoryview, np.bytes_)):
        a = np.empty((), dtype=object)
        a[()] = bytes(x)
        return a
    if isinstance(x, str):
        raise L.err(L.DtypeError, fn, "%s must be bytes, got str" % arg)
    if isinstance(x, np.ndarray) and x.dtype.kind == "S":
        # numpy's fixed-width bytes drop trailing NUL bytes: TensorProto bytes would be cut silently
        raise L.err(L.DtypeError, fn, "%s must be bytes objects (a list or an object array), got a numpy %s array"
                    % (arg, x.dtype))
    try:
        a = np.asarray(x, dtype=object)
    except ValueError as e:
        raise L.err(L.InvalidArgumentError, fn, "%s is not a rectangular array of bytes: %s" % (arg, e)) from None
    flat = a.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, (bytearray, memoryview, np.bytes_)):
            flat[i] = v = bytes(v)
        if not isinstance(v, bytes):
            raise L.err(L.DtypeError, fn, "%s[%d] must be bytes, got %s" % (arg, i, type(v).__name__))
    return a


def _strings_dense(a, fn, arg):
    """A string Dense over the bytes of an object array, or of a list of bytes (a vector; borrowed: the Dense
    keeps them alive). Built with numpy (one join, one length pass) rather than element by element, for
    large batches."""
    if isinstance(a, list):
        items, shape = a, (len(a),)
    else:
        items, shape = a.reshape(-1).tolist(), a.shape
    n = len(items)
    blob = b"".join(items) if n else b""
    lens = np.fromiter(map(len, items), dtype=np.int64, count=n)
    base = ctypes.cast(ctypes.c_char_p(blob), ctypes.c_void_p).value or 0
    arr = np.empty((max(n, 1), 2), dtype=np.int64)
    if n:
        arr[0, 0] = 0
        np.cumsum(lens[:-1], out=arr[1:n, 0])
        arr[:n, 0] += base
        arr[:n, 1] = lens
    d = C.spt_dense_wrap(L.SPT_STRING, np.asarray(shape, dtype=np.int64), arr)
    d.keep = (arr, blob)
    d._c.keep = (arr, blob)
    return d


# ---- serialized SparseTensors: TensorFlow's form ---------------------------------------------------


@op("spt_serialize_sparse")
def serialize_sparse(sp_input, out_type="string", name=None):
    """tf.io.serialize_sparse: a numpy object array of 3 bytes, the TensorProtos of the indices, the values and
    the dense_shape, identical to the bytes TensorFlow 2 writes (every dtype spt has, rank 0 and no entries
    included). Read them back here or with tf.io.deserialize_sparse."""
    fn = "serialize_sparse"
    _out_type(out_type, fn)
    return C.spt_serialize_sparse(sparse_arg(sp_input, "sp_input", fn))


@op("spt_serialize_many_sparse")
def serialize_many_sparse(sp_input, out_type="string", name=None):
    """tf.io.serialize_many_sparse: a rank >= 2 tensor as a [shape[0], 3] object array of bytes; row i is the
    serialized tensor of the entries of row i (without that coordinate), as TensorFlow writes it."""
    fn = "serialize_many_sparse"
    _out_type(out_type, fn)
    return C.spt_serialize_many_sparse(sparse_arg(sp_input, "sp_input", fn))


def _check_rank(t, rank, batch_rank, fn):
    if rank is not None:
        r = rank if type(rank) is int else L.int_arg(rank, "rank", fn)
        if t.rank - batch_rank != r:
            raise L.err(L.InvalidArgumentError, fn, "rank=%d, but the serialized tensors have rank %d"
                        % (r, t.rank - batch_rank))
    return t


@op("spt_deserialize_sparse")
def deserialize_sparse(serialized_sparse, dtype, rank=None, name=None):
    """tf.io.deserialize_sparse: `serialized_sparse` has shape [..., 3] (TensorFlow's serialized form, e.g.
    serialize_sparse's output, or a stack of them); [3] gives its SparseTensor, more leading dims B stack
    the items into one tensor of rank len(B) + R whose other dims are the largest of the items'. The items'
    values must have `dtype` (InvalidArgumentError naming both, as TensorFlow); malformed bytes are a
    ParseError naming the item and the field."""
    fn = "deserialize_sparse"
    a = _bytes_array(serialized_sparse, fn, "serialized_sparse")
    t = C.spt_deserialize_sparse(_strings_dense(a, fn, "serialized_sparse"), _spt_dtype(dtype, "dtype", fn))
    return _check_rank(t, rank, max(a.ndim - 1, 0), fn)


@op("spt_deserialize_many_sparse")
def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """tf.io.deserialize_many_sparse: a [N, 3] array of serialized tensors stacked along a new first dim."""
    fn = "deserialize_many_sparse"
    a = _bytes_array(serialized_sparse, fn, "serialized_sparse")
    t = C.spt_deserialize_many_sparse(_strings_dense(a, fn, "serialized_sparse"), _spt_dtype(dtype, "dtype", fn))
    return _check_rank(t, rank, 1, fn)


# ---- spt's own packed form -------------------------------------------------------------------------


@op("spt_pack_sparse", "spt_bytes_free")
def pack_sparse(sp_input):
    """The tensor as one bytes object in spt's own packed form (documented in include/spt.h: versioned,
    checksummed, little-endian; not TensorFlow's form). Read it back with unpack_sparse."""
    fn = "pack_sparse"
    sp = sparse_arg(sp_input, "sp_input", fn)
    data, n = ctypes.c_void_p(), ctypes.c_size_t()
    try:
        C.spt_pack_sparse(sp, data, n)
        return ctypes.string_at(data.value, n.value) if n.value else b""
    finally:
        if data.value:
            C.spt_bytes_free(data.value)


@op("spt_pack_many_sparse", "spt_packed_free")
def pack_many_sparse(sp_input):
    """A rank >= 2 tensor as shape[0] packed byte strings (item i: the entries of row i of dim 0, without that
    coordinate), a numpy object array of bytes."""
    fn = "pack_many_sparse"
    sp = sparse_arg(sp_input, "sp_input", fn)
    data, lens, n = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_int64()
    try:
        C.spt_pack_many_sparse(sp, data, lens, n)
        out = np.empty(n.value, dtype=object)
        if n.value:
            ptrs = (ctypes.c_void_p * n.value).from_address(data.value)
            ls = (ctypes.c_size_t * n.value).from_address(lens.value)
            for i in range(n.value):
                out[i] = ctypes.string_at(ptrs[i], ls[i]) if ls[i] else b""
        return out
    finally:
        if data.value or lens.value:
            C.spt_packed_free(data.value, lens.value, n.value)


def _items(serialized, fn, arg):
    a = _bytes_array(serialized, fn, arg)
    flat = a.reshape(-1)
    n = flat.size
    ptrs = (ctypes.c_void_p * max(1, n))()
    lens = (ctypes.c_size_t * max(1, n))()
    for i, v in enumerate(flat):
        ptrs[i] = ctypes.cast(ctypes.c_char_p(v), ctypes.c_void_p).value
        lens[i] = len(v)
    return a, flat, ptrs, lens


@op("spt_unpack_sparse")
def unpack_sparse(packed, dtype, rank=None):
    """One packed bytes object (pack_sparse's) gives its tensor; an array of them of shape B gives one tensor
    of rank len(B) + R with the items stacked (each dim the largest of the items'). Malformed or damaged
    bytes are a ParseError; nothing in them is trusted."""
    fn = "unpack_sparse"
    a, flat, ptrs, lens = _items(packed, fn, "packed")
    t = C.spt_unpack_sparse(ptrs, lens, np.asarray(a.shape, dtype=np.int64), _spt_dtype(dtype, "dtype", fn))
    return _check_rank(t, rank, a.ndim, fn)


@op("spt_unpack_many_sparse")
def unpack_many_sparse(packed, dtype, rank=None):
    """A vector of n packed byte strings (pack_many_sparse's) stacked along a new first dim of size n."""
    fn = "unpack_many_sparse"
    a, flat, ptrs, lens = _items(packed, fn, "packed")
    if a.ndim != 1:
        raise L.err(L.InvalidArgumentError, fn, "packed must be a vector, got shape %s" % (a.shape,))
    t = C.spt_unpack_many_sparse(ptrs, lens, flat.size, _spt_dtype(dtype, "dtype", fn))
    return _check_rank(t, rank, 1, fn)


__all__ = exports(__name__)
