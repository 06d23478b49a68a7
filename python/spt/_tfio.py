# SPDX-License-Identifier: Apache-2.0
"""TensorFlow's bytes and files without TensorFlow: serialized SparseTensors (tf.io.serialize_sparse and
friends, the bytes TensorFlow writes), TFRecord files (tf.io.TFRecordWriter, tf.data.TFRecordDataset) and
tf.train.Example parsing (tf.io.parse_example with VarLenFeature, SparseFeature, FixedLenFeature), each
one call into the C library; and spt's own checksummed packed form (pack_sparse / unpack_sparse)."""
import collections
import ctypes
import os

import numpy as np

from . import _lib as L
from ._registry import C, op, provide, raw, FREE
from ._tensor import SparseTensor, sparse_arg
from ._dense import Dense

__all__ = ["serialize_sparse", "deserialize_sparse", "serialize_many_sparse", "deserialize_many_sparse",
           "pack_sparse", "unpack_sparse", "pack_many_sparse", "unpack_many_sparse",
           "TFRecordWriter", "tf_record_iterator", "read_tfrecord", "write_tfrecord",
           "VarLenFeature", "SparseFeature", "FixedLenFeature", "parse_example", "parse_single_example",
           "encode_example", "encode_examples", "DataLossError"]

DataLossError = L.DataLossError


def _spt_dtype(dtype, arg, fn):
    try:
        return L.spt_dtype_of(L.as_dtype(dtype))
    except L.DtypeError:
        raise L.err(L.DtypeError, fn, "%s=%r is not a dtype spt has" % (arg, dtype)) from None


def _out_type(out_type, fn):
    if not ((isinstance(out_type, str) and out_type in ("string", "str", "bytes"))
            or any(out_type is t for t in (None, bytes, object, np.bytes_, np.object_))
            or getattr(out_type, "name", None) == "string"):
        raise L.err(L.DtypeError, fn, "out_type must be string (spt has no variant tensors), got %r" % (out_type,))


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
    """A string Dense over the bytes of an object array (borrowed: the Dense keeps them alive). Built with
    numpy (one join, one length pass) rather than element by element, for large batches."""
    flat = a.reshape(-1)
    n = flat.size
    blob = b"".join(flat.tolist()) if n else b""
    lens = np.fromiter(map(len, flat.tolist()), dtype=np.int64, count=n)
    base = ctypes.cast(ctypes.c_char_p(blob), ctypes.c_void_p).value or 0
    arr = np.empty((max(n, 1), 2), dtype=np.int64)
    if n:
        arr[0, 0] = 0
        np.cumsum(lens[:-1], out=arr[1:n, 0])
        arr[:n, 0] += base
        arr[:n, 1] = lens
    d = C.spt_dense_wrap(L.SPT_STRING, np.asarray(a.shape, dtype=np.int64), arr)
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


# ---- TFRecord files ----------------------------------------------------------------------------------

_COMPRESSION = {None: 0, "": 0, "NONE": 0, "ZLIB": 1, "GZIP": 2}


def _compression(c, fn):
    c = getattr(c, "compression_type", c)  # a TFRecordOptions-like object
    if isinstance(c, bytes):
        c = c.decode("ascii", "replace")
    if c is not None and not isinstance(c, str):
        raise L.err(L.DtypeError, fn, "compression_type must be None, '', 'ZLIB' or 'GZIP', got %r" % (c,))
    key = c.upper() if isinstance(c, str) else c
    if key not in _COMPRESSION:
        raise L.err(L.InvalidArgumentError, fn, "compression_type must be None, '', 'ZLIB' or 'GZIP', got %r" % (c,))
    return _COMPRESSION[key]


class _ReaderHandle:
    __slots__ = ("h", "_c")

    def __init__(self, h):
        self.h = h
        self._c = L.Owner(h, raw(FREE["recreader"]))


class _WriterHandle:
    __slots__ = ("h", "_c")

    def __init__(self, h):
        self.h = h
        self._c = L.Owner(h, raw(FREE["recwriter"]))


provide("recreader", _ReaderHandle, _ReaderHandle)
provide("recwriter", _WriterHandle, _WriterHandle)


class TFRecordWriter:
    """tf.io.TFRecordWriter: writes records (bytes) to a TFRecord file, compressed as
    options / compression_type says (None, 'ZLIB', 'GZIP'). A context manager; close() finishes the file
    and raises IOError if a write failed."""

    def __init__(self, path, options=None):
        self._fn = "TFRecordWriter"
        self._w = C.spt_tfrecord_writer_open(os.fspath(path) if isinstance(path, os.PathLike) else path,
                                             _compression(options, self._fn))

    def write(self, record):
        if self._w is None:
            raise L.err(L.FailedPreconditionError, self._fn, "the writer is closed")
        if isinstance(record, str):
            record = record.encode()
        if not isinstance(record, bytes):
            try:
                record = bytes(memoryview(record))
            except TypeError:
                raise L.err(L.DtypeError, self._fn, "a record must be bytes, got %s" % type(record).__name__) from None
        C.spt_tfrecord_write(self._w, record)

    def write_batch(self, records):
        """Write every bytes object of `records` (a list or object array) as one record each."""
        if self._w is None:
            raise L.err(L.FailedPreconditionError, self._fn, "the writer is closed")
        a = _bytes_array(records, self._fn, "records").reshape(-1)
        C.spt_tfrecord_write_batch(self._w, _strings_dense(a, self._fn, "records"))

    def flush(self):
        pass

    def close(self):
        w, self._w = self._w, None
        if w is None:
            return
        h, w._c.h = w._c.h, None  # closed here, once: the owner must not close it again
        st = raw("spt_tfrecord_writer_close")(h)
        if st:
            raise L.error_for(st, "TFRecordWriter.close")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _open_reader(path, compression_type, fn):
    return C.spt_tfrecord_reader_open(os.fspath(path) if isinstance(path, os.PathLike) else path,
                                      _compression(compression_type, fn))


def tf_record_iterator(path, compression_type=None):
    """The records of a TFRecord file, one bytes object at a time (tf.compat.v1.io.tf_record_iterator,
    tf.data.TFRecordDataset). The file is streamed; a damaged or truncated record raises DataLossError
    naming the file and the byte offset."""
    fn = "tf_record_iterator"
    r = _open_reader(path, compression_type, fn)
    data, n, eof = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_bool()
    read = raw("spt_tfrecord_read")
    bd, bn, be = ctypes.byref(data), ctypes.byref(n), ctypes.byref(eof)
    string_at = ctypes.string_at
    while True:
        st = read(r.h, bd, bn, be)
        if st:
            raise L.error_for(st, fn)
        if eof.value:
            return
        yield string_at(data.value, n.value) if n.value else b""


def _record_batches(path, compression_type, batch_size, fn):
    """The file as string Dense batches of up to batch_size records (None: the whole file)."""
    r = _open_reader(path, compression_type, fn)
    size = 1 << 62 if batch_size is None else batch_size
    if batch_size is not None:
        size = size if type(size) is int else L.int_arg(size, "batch_size", fn)
        if size < 1:
            raise L.err(L.InvalidArgumentError, fn, "batch_size must be >= 1 or None, got %d" % size)
    from ._dense import _own
    while True:
        st_out = ctypes.c_void_p()
        st = raw("spt_tfrecord_read_batch")(r.h, size, ctypes.byref(st_out))
        d = _own(st_out.value) if st_out.value else None
        if st:
            raise L.error_for(st, fn)
        if C.spt_dense_size(d) == 0:
            return
        yield d
        if batch_size is None:
            return


def read_tfrecord(path, features=None, compression_type=None, batch_size=None):
    """Read a TFRecord file in batches: yields, for each batch of up to batch_size records (None: one batch
    of the whole file), parse_example(batch, features) (a dict of name -> SparseTensor / numpy array), or,
    without features, the batch's records as a numpy object array of bytes. Streaming: memory holds one
    batch."""
    fn = "read_tfrecord"
    specs = _Specs(features, fn) if features is not None else None
    for d in _record_batches(path, compression_type, batch_size, fn):
        if specs is None:
            yield d.numpy()
        else:
            yield specs.parse(d, fn)


def write_tfrecord(path, records, compression_type=None):
    """Write records (bytes objects, e.g. encode_examples' output) to a TFRecord file."""
    with TFRecordWriter(path, compression_type) as w:
        w.write_batch(records)


# ---- tf.train.Example ----------------------------------------------------------------------------------

VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
VarLenFeature.__doc__ = "tf.io.VarLenFeature(dtype): a list of any length per Example, parsed into a SparseTensor."


class SparseFeature(collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size",
                                                             "already_sorted"])):
    """tf.io.SparseFeature(index_key, value_key, dtype, size, already_sorted=False): the values under
    value_key placed at the indices under index_key (one key, or a list of keys for several dims, each
    index below its size), a SparseTensor of dense_shape [batch] + size."""
    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """tf.io.FixedLenFeature(shape, dtype, default_value=None): exactly prod(shape) values per Example, a
    dense array [batch] + shape; a missing feature takes default_value, or is an error when it is None."""
    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class _spt_feature(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("key", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int64),
                ("shape", ctypes.c_void_p), ("index_keys", ctypes.c_void_p), ("already_sorted", ctypes.c_bool),
                ("default_value", ctypes.c_void_p)]


class _spt_example_feature(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("dtype", ctypes.c_int), ("n", ctypes.c_int64), ("values", ctypes.c_void_p)]


_EX_DTYPES = {"int64": L.SPT_INT64, "float32": 9, "string": L.SPT_STRING}


def _ex_dtype(dtype, fn, key):
    name = getattr(dtype, "name", None)
    if isinstance(dtype, str):
        name = dtype
    if name in ("string", "bytes", "str", "object"):
        return L.SPT_STRING
    try:
        dt = L.as_dtype(dtype)
    except L.DtypeError:
        raise L.err(L.DtypeError, fn, "feature %r: dtype %r is not int64, float32 or string" % (key, dtype)) from None
    if dt.kind in "OSU":
        return L.SPT_STRING
    if dt.name not in _EX_DTYPES:
        raise L.err(L.DtypeError, fn, "feature %r: an Example holds int64, float32 or string values, not %s" % (key, dt))
    return _EX_DTYPES[dt.name]


def _key(k, fn):
    if isinstance(k, bytes):
        b = k
    elif isinstance(k, str):
        b = k.encode("utf-8")
    else:
        raise L.err(L.DtypeError, fn, "a feature key must be str, got %s" % type(k).__name__)
    if b"\0" in b:
        raise L.err(L.InvalidArgumentError, fn, "feature key %r contains a NUL byte" % (k,))
    return b


class _Specs:
    """The C description of a features dict, built once (read_tfrecord parses many batches with it)."""

    def __init__(self, features, fn):
        if not isinstance(features, dict):
            raise L.err(L.DtypeError, fn, "features must be a dict of name -> feature, got %s" % type(features).__name__)
        self.names = list(features)
        n = len(self.names)
        self.arr = (_spt_feature * max(1, n))()
        self.keep = []
        for i, name in enumerate(self.names):
            f = features[name]
            c = self.arr[i]
            if isinstance(f, VarLenFeature) or type(f).__name__ == "VarLenFeature":
                c.kind, key = 0, _key(name, fn)
                c.dtype = _ex_dtype(f.dtype, fn, name)
            elif isinstance(f, SparseFeature) or type(f).__name__ == "SparseFeature":
                c.kind, key = 1, _key(f.value_key, fn)
                c.dtype = _ex_dtype(f.dtype, fn, name)
                ik = [f.index_key] if isinstance(f.index_key, (str, bytes)) else list(f.index_key)
                size = [f.size] if np.ndim(f.size) == 0 else list(f.size)
                if len(ik) != len(size) or not ik:
                    raise L.err(L.InvalidArgumentError, fn, "SparseFeature %r: %d index keys but %d sizes"
                                % (name, len(ik), len(size)))
                keys = [_key(k, fn) for k in ik]
                karr = (ctypes.c_char_p * len(keys))(*keys)
                sz = np.asarray([L.int_arg(s, "size", fn) for s in size], dtype=np.int64)
                c.rank, c.shape, c.index_keys = len(keys), sz.ctypes.data, ctypes.addressof(karr)
                c.already_sorted = bool(f.already_sorted)
                self.keep += [keys, karr, sz]
            elif isinstance(f, FixedLenFeature) or type(f).__name__ == "FixedLenFeature":
                c.kind, key = 2, _key(name, fn)
                c.dtype = _ex_dtype(f.dtype, fn, name)
                shape = np.asarray([L.int_arg(s, "shape", fn) for s in (f.shape if np.ndim(f.shape) else [f.shape])]
                                   if f.shape is not None and np.size(f.shape) else [], dtype=np.int64)
                c.rank, c.shape = shape.size, shape.ctypes.data if shape.size else None
                self.keep.append(shape)
                if f.default_value is not None:
                    npdt = object if c.dtype == L.SPT_STRING else (np.int64 if c.dtype == L.SPT_INT64 else np.float32)
                    dv = np.asarray(f.default_value, dtype=npdt)
                    per = int(np.prod(shape)) if shape.size else 1
                    if dv.size == 1 and per != 1:
                        dv = np.full(per, dv.reshape(-1)[0], dtype=npdt)
                    if dv.size != per:
                        raise L.err(L.InvalidArgumentError, fn, "FixedLenFeature %r: default_value has %d values, the "
                                    "shape %s needs %d" % (name, dv.size, list(shape), per))
                    dd = Dense.from_numpy(dv.reshape(-1), arg="default_value", op=fn)
                    c.default_value = dd.h
                    self.keep.append(dd)
            else:
                raise L.err(L.DtypeError, fn, "features[%r] must be a VarLenFeature, SparseFeature or FixedLenFeature, got "
                            "%s" % (name, type(f).__name__))
            c.key = key
            self.keep.append(key)

    def parse(self, dense, fn):
        n = len(self.names)
        souts = (ctypes.c_void_p * max(1, n))()
        douts = (ctypes.c_void_p * max(1, n))()
        try:
            C.spt_parse_example(dense, self.arr, n, souts, douts)
        finally:
            from ._dense import _dense_np
            got = [SparseTensor._own(souts[i]) if souts[i] else (_dense_np(douts[i]) if douts[i] else None)
                   for i in range(n)]
        return dict(zip(self.names, got))


@op("spt_parse_example")
def parse_example(serialized, features, example_names=None, name=None):
    """tf.io.parse_example: a vector of serialized tf.train.Example bytes parsed as `features` (a dict of
    name -> VarLenFeature / SparseFeature / FixedLenFeature), a dict of name -> SparseTensor (indices
    [example, i...], dense_shape [batch, longest list] or [batch] + size) or numpy array ([batch] + shape),
    exactly as TensorFlow parses them, with TensorFlow's errors (a missing required feature, a type
    mismatch, a wrong count: InvalidArgumentError; an index outside a SparseFeature's size:
    OutOfRangeError; malformed bytes: ParseError naming the Example and the field)."""
    fn = "parse_example"
    specs = _Specs(features, fn)
    a = _bytes_array(serialized, fn, "serialized")
    if a.ndim != 1:
        raise L.err(L.InvalidArgumentError, fn, "serialized must be a vector, got shape %s" % (a.shape,))
    return specs.parse(_strings_dense(a, fn, "serialized"), fn)


@op("spt_parse_example")
def parse_single_example(serialized, features, example_names=None, name=None):
    """tf.io.parse_single_example: one serialized Example (bytes), the batch dim dropped (SparseTensor
    indices [i...], dense arrays of the feature's shape)."""
    fn = "parse_single_example"
    specs = _Specs(features, fn)
    a = _bytes_array(serialized, fn, "serialized")
    if a.ndim != 0:
        raise L.err(L.InvalidArgumentError, fn, "serialized must be a scalar, got shape %s" % (a.shape,))
    return specs.parse(_strings_dense(a, fn, "serialized"), fn)


def _ex_values(key, v, fn):
    """(spt dtype, numpy array or bytes list) of one feature's values for encode_example."""
    if isinstance(v, (bytes, str)):
        v = [v]
    if isinstance(v, np.ndarray) and v.dtype.kind in "SU":
        v = v.tolist()
    a = None if isinstance(v, list) and v and isinstance(v[0], (bytes, str)) else np.asarray(v)
    if a is None or a.dtype.kind in "OSU":
        items = [x.encode("utf-8") if isinstance(x, str) else x for x in (v if a is None else a.reshape(-1).tolist())]
        for x in items:
            if not isinstance(x, bytes):
                raise L.err(L.DtypeError, fn, "feature %r: %s in a bytes list" % (key, type(x).__name__))
        return L.SPT_STRING, items
    if a.dtype.kind in "biu":
        if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
            raise L.err(L.OverflowError, fn, "feature %r: a value does not fit in int64" % (key,))
        return L.SPT_INT64, np.ascontiguousarray(a.reshape(-1), dtype=np.int64)
    if a.dtype.kind == "f":
        return 9, np.ascontiguousarray(a.reshape(-1), dtype=np.float32)
    raise L.err(L.DtypeError, fn, "feature %r: an Example holds int64, float or bytes lists, not %s" % (key, a.dtype))


@op("spt_encode_example", "spt_bytes_free")
def encode_example(features):
    """The bytes of one tf.train.Example holding `features`, a dict of key -> values (integers -> an int64 list,
    floats -> a float list (float32), bytes / str -> a bytes list), which tf.io.parse_example and spt read."""
    fn = "encode_example"
    if not isinstance(features, dict):
        raise L.err(L.DtypeError, fn, "features must be a dict, got %s" % type(features).__name__)
    n = len(features)
    arr = (_spt_example_feature * max(1, n))()
    keep = []
    for i, (k, v) in enumerate(features.items()):
        key = _key(k, fn)
        dt, vals = _ex_values(k, v, fn)
        if dt == L.SPT_STRING:
            sa = L.StrArray(np.asarray(vals + [b""], dtype=object)[:len(vals)] if vals else np.empty(0, object), k, fn)
            keep.append(sa)
            ptr, cnt = sa.ptr, len(vals)
        else:
            keep.append(vals)
            ptr, cnt = vals.ctypes.data, vals.size
        arr[i].key, arr[i].dtype, arr[i].n, arr[i].values = key, dt, cnt, ptr
        keep.append(key)
    data, ln = ctypes.c_void_p(), ctypes.c_size_t()
    try:
        C.spt_encode_example(arr, n, data, ln)
        return ctypes.string_at(data.value, ln.value) if ln.value else b""
    finally:
        if data.value:
            C.spt_bytes_free(data.value)


@op("spt_encode_examples")
def encode_examples(sp_input, value_key, index_keys=None):
    """One tf.train.Example per row of dim 0 of a SparseTensor (values int64, float32 or bytes): row b's
    values under value_key and, for each other dim, the coordinates under index_keys (the layout a
    SparseFeature(index_keys, value_key, dtype, shape[1:]) reads back; without index_keys, a rank-2 tensor's
    rows as a VarLenFeature). A numpy object array of bytes, for TFRecordWriter.write_batch."""
    fn = "encode_examples"
    sp = sparse_arg(sp_input, "sp_input", fn)
    vk = _key(value_key, fn).decode("utf-8")
    if index_keys is None:
        return C.spt_encode_examples(sp, vk, None)
    ik = [index_keys] if isinstance(index_keys, (str, bytes)) else list(index_keys)
    if len(ik) != sp.rank - 1:
        raise L.err(L.InvalidArgumentError, fn, "a rank-%d tensor needs %d index keys, got %d" % (sp.rank, sp.rank - 1,
                                                                                                 len(ik)))
    keys = [_key(k, fn) for k in ik]
    karr = (ctypes.c_char_p * len(keys))(*keys)
    return C.spt_encode_examples(sp, vk, karr)
