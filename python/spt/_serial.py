# SPDX-License-Identifier: Apache-2.0
"""Serialization (src/ops/serial): tf.io's serialize_sparse, serialize_many_sparse, deserialize_sparse and
deserialize_many_sparse, in TensorFlow's wire format, computed by the C library."""
import ctypes

import numpy as np

from . import _lib as L
from ._args import _spt_dtype
from ._export import exports
from ._registry import C, op
from ._tensor import sparse_arg


def _out_type(out_type, fn):
    if not ((isinstance(out_type, str) and out_type in ("string", "str", "bytes"))
            or any(out_type is t for t in (None, bytes, object, np.bytes_, np.object_))):
        raise L.err(L.DtypeError, fn, "out_type must be string (spt's format is a byte string), got %r" % (out_type,))


@op("spt_serialize_sparse", "spt_bytes_free")
def serialize_sparse(sp_input, out_type="string", name=None):
    """tf.io.serialize_sparse in spt's own format (documented in include/spt.h: versioned, checksummed,
    little-endian): the tensor as one bytes object. Read it back with deserialize_sparse."""
    fn = "serialize_sparse"
    _out_type(out_type, fn)
    sp = sparse_arg(sp_input, "sp_input", fn)
    data, n = ctypes.c_void_p(), ctypes.c_size_t()
    try:
        C.spt_serialize_sparse(sp, data, n)
        return ctypes.string_at(data.value, n.value) if n.value else b""
    finally:
        if data.value:
            C.spt_bytes_free(data.value)


@op("spt_serialize_many_sparse", "spt_serialized_free")
def serialize_many_sparse(sp_input, out_type="string", name=None):
    """tf.io.serialize_many_sparse: a rank >= 2 tensor as shape[0] byte strings (item i: the entries of
    row i of dim 0, without that coordinate), a numpy object array of bytes."""
    fn = "serialize_many_sparse"
    _out_type(out_type, fn)
    sp = sparse_arg(sp_input, "sp_input", fn)
    data, lens, n = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_int64()
    try:
        C.spt_serialize_many_sparse(sp, data, lens, n)
        out = np.empty(n.value, dtype=object)
        if n.value:
            ptrs = (ctypes.c_void_p * n.value).from_address(data.value)
            ls = (ctypes.c_size_t * n.value).from_address(lens.value)
            for i in range(n.value):
                out[i] = ctypes.string_at(ptrs[i], ls[i]) if ls[i] else b""
        return out
    finally:
        if data.value or lens.value:
            C.spt_serialized_free(data.value, lens.value, n.value)


def _items(serialized, fn, arg):
    """(the numpy object array of the items, the C pointer array, the C length array)."""
    if isinstance(serialized, (bytes, bytearray, memoryview, np.bytes_)):
        a = np.empty((), dtype=object)
        a[()] = bytes(serialized)
    else:
        if isinstance(serialized, str):
            raise L.err(L.DtypeError, fn, "%s must be bytes (spt's serialized form), got str" % arg)
        if isinstance(serialized, np.ndarray) and serialized.dtype.kind != "O":
            # numpy's fixed-width bytes ('S') drop trailing NUL bytes: the data would be cut silently
            raise L.err(L.DtypeError, fn, "%s must be bytes objects (a list or an object array), got a numpy %s "
                        "array" % (arg, serialized.dtype))
        a = np.asarray(serialized, dtype=object)
    flat = a.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, (bytearray, memoryview, np.bytes_)):
            flat[i] = v = bytes(v)
        if not isinstance(v, bytes):
            raise L.err(L.DtypeError, fn, "%s[%d] must be bytes, got %s" % (arg, i, type(v).__name__))
    n = flat.size
    ptrs = (ctypes.c_void_p * max(1, n))()
    lens = (ctypes.c_size_t * max(1, n))()
    for i, v in enumerate(flat):
        ptrs[i] = ctypes.cast(ctypes.c_char_p(v), ctypes.c_void_p).value
        lens[i] = len(v)
    return a, flat, ptrs, lens


def _check_rank(t, rank, batch_rank, fn):
    if rank is not None:
        r = rank if type(rank) is int else L.int_arg(rank, "rank", fn)
        if t.rank - batch_rank != r:
            raise L.err(L.InvalidArgumentError, fn, "rank=%d, but the serialized tensors have rank %d"
                        % (r, t.rank - batch_rank))
    return t


@op("spt_deserialize_sparse")
def deserialize_sparse(serialized, dtype, rank=None, name=None):
    """tf.io.deserialize_sparse: one bytes object (of serialize_sparse) gives its tensor; an array of them
    of shape B gives one tensor of rank len(B) + R with the items stacked (each dim the largest of the
    items'). The items' dtype must be `dtype`; rank, when given, must be their rank R. Malformed bytes
    are a ParseError; nothing in them is trusted."""
    fn = "deserialize_sparse"
    a, flat, ptrs, lens = _items(serialized, fn, "serialized")
    dt = _spt_dtype(dtype, "dtype", fn)
    t = C.spt_deserialize_sparse(ptrs, lens, np.asarray(a.shape, dtype=np.int64), dt)
    return _check_rank(t, rank, a.ndim, fn)


@op("spt_deserialize_many_sparse")
def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """tf.io.deserialize_many_sparse: a vector of n byte strings (serialize_many_sparse's) stacked along a
    new first dim of size n."""
    fn = "deserialize_many_sparse"
    a, flat, ptrs, lens = _items(serialized_sparse, fn, "serialized_sparse")
    if a.ndim != 1:
        raise L.err(L.InvalidArgumentError, fn, "serialized_sparse must be a vector, got shape %s" % (a.shape,))
    t = C.spt_deserialize_many_sparse(ptrs, lens, flat.size, _spt_dtype(dtype, "dtype", fn))
    return _check_rank(t, rank, 1, fn)


__all__ = exports(__name__)
