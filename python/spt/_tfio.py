# SPDX-License-Identifier: Apache-2.0
"""TensorFlow's files and records without TensorFlow (src/tf): TFRecord files (tf.io.TFRecordWriter,
tf.data.TFRecordDataset) and tf.train.Example parsing (tf.io.parse_example with VarLenFeature,
SparseFeature, FixedLenFeature) and encoding, each one call into the C library."""
import collections
import ctypes
import os

import numpy as np

from . import _lib as L
from ._export import exports, public
from ._registry import C, op, provide, raw, FREE, register
from ._serial import _bytes_array, _bytes_list, _strings_dense
from ._tensor import SparseTensor, sparse_arg
from ._dense import Dense
from ._registry.kinds import (Entry, D, R_I64, STATUS, T, VOID, buffer, bytes_, enum, handle, i64, out, out_array,
                              path, size, text)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_tfrecord_reader_open", STATUS, path("path"), enum("compression", "spt_tfrecord_compression", 3),
          out("out", "recreader")),
    Entry("spt_tfrecord_read", STATUS, handle("r", "recreader", const=False),
          buffer("data", "const void * *", nullable=False), buffer("len", "size_t *", nullable=False),
          buffer("eof", "bool *", nullable=False)),
    Entry("spt_tfrecord_read_batch", STATUS, handle("r", "recreader", const=False), i64("max_records", lo=1),
          out("out", D)),
    Entry("spt_tfrecord_reader_offset", R_I64, handle("r", "recreader")),
    Entry("spt_tfrecord_reader_close", VOID, handle("r", "recreader", const=False)),
    Entry("spt_tfrecord_writer_open", STATUS, path("path"), enum("compression", "spt_tfrecord_compression", 3),
          out("out", "recwriter")),
    Entry("spt_tfrecord_write", STATUS, handle("w", "recwriter", const=False), bytes_("data"),
          size("len", len_of="data")),
    Entry("spt_tfrecord_write_batch", STATUS, handle("w", "recwriter", const=False), handle("records", D)),
    Entry("spt_tfrecord_writer_close", STATUS, handle("w", "recwriter", const=False)),
    Entry("spt_tfrecord_writer_free", VOID, handle("w", "recwriter", const=False)),
    Entry("spt_parse_example", STATUS, handle("serialized", D), buffer("features", "const spt_feature *", nullable=False),
          i64("nfeatures", lo=0), out_array("sparse_out"), out_array("dense_out", D)),
    Entry("spt_example_describe", STATUS, buffer("data", "const void *"), size("len"),
          buffer("keys", "spt_example_key * *", nullable=False), buffer("n", "int64_t *", nullable=False)),
    Entry("spt_encode_example", STATUS, buffer("features", "const spt_example_feature *", nullable=False),
          i64("n", lo=0), buffer("data", "void * *", nullable=False), buffer("len", "size_t *", nullable=False)),
    Entry("spt_encode_examples", STATUS, handle("t", T), text("value_key"),
          buffer("index_keys", "const char * const *"), out("out", D)),
]
register("tfio", ENTRIES)


# ---- a batch of bytes objects as a string vector, without copying -------------------------------------


def _object_layout():
    """(tuple items, type, size, data) offsets of CPython's tuple and bytes objects, each checked on known
    objects by reading inside them, or None (another Python, or a layout the checks do not confirm): then
    batches take the copying path."""
    import platform
    import sys
    if platform.python_implementation() != "CPython" or ctypes.sizeof(ctypes.c_void_p) != 8 \
            or ctypes.sizeof(ctypes.c_ssize_t) != 8:
        return None
    items, typ, size, data = tuple.__basicsize__, object.__basicsize__ - 8, object.__basicsize__, bytes.__basicsize__ - 1
    try:
        samples = (b"", b"\0", b"tf.train.Example\x80\xff" * 40)
        t = tuple(samples)
        if sys.getsizeof(t) < items + 8 * len(t):
            return None
        for i, b in enumerate(t):
            if ctypes.c_void_p.from_address(id(t) + items + 8 * i).value != id(b) or sys.getsizeof(b) < data + len(b) \
                    or ctypes.c_void_p.from_address(id(b) + typ).value != id(bytes) \
                    or ctypes.c_ssize_t.from_address(id(b) + size).value != len(b) \
                    or ctypes.string_at(id(b) + data, len(b)) != b:
                return None
    except Exception:  # noqa: BLE001  (any surprise: the copying path)
        return None
    return items, typ, size, data


_LAYOUT = _object_layout()


def _gathered(x):
    """A string vector Dense over the bytes objects of a list or tuple (borrowed: the Dense keeps a tuple of
    them alive), read by C in one pass (spt_strings_gather); None when x is not a list or tuple of bytes
    objects only (the general path then converts it, or says what is wrong)."""
    if _LAYOUT is None or type(x) not in (list, tuple):
        return None
    t = x if type(x) is tuple else tuple(x)  # a snapshot: C reads it with the GIL released
    n = len(t)
    items, typ, size, data = _LAYOUT
    arr = np.empty((max(n, 1), 2), dtype=np.int64)
    if n and raw("spt_strings_gather")(id(t) + items, n, typ, id(bytes), size, data, arr.ctypes.data) != n:
        return None
    if not n:
        arr[0] = 0
    d = C.spt_dense_wrap(L.SPT_STRING, np.asarray([n], dtype=np.int64), arr)
    d.keep = (arr, t)
    d._c.keep = (arr, t)
    return d


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


@public
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
        d = _gathered(records)
        if d is None:
            d = _strings_dense(_bytes_array(records, self._fn, "records").reshape(-1), self._fn, "records")
        C.spt_tfrecord_write_batch(self._w, d)

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


@public
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


@public
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


@public
def write_tfrecord(path, records, compression_type=None):
    """Write records (bytes objects, e.g. encode_examples' output) to a TFRecord file."""
    with TFRecordWriter(path, compression_type) as w:
        w.write_batch(records)


# ---- tf.train.Example ----------------------------------------------------------------------------------

VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
VarLenFeature.__doc__ = "tf.io.VarLenFeature(dtype): a list of any length per Example, parsed into a SparseTensor."
VarLenFeature.__module__ = __name__
public(VarLenFeature)


@public
class SparseFeature(collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size",
                                                             "already_sorted"])):
    """tf.io.SparseFeature(index_key, value_key, dtype, size, already_sorted=False): the values under
    value_key placed at the indices under index_key (one key, or a list of keys for several dims, each
    index below its size), a SparseTensor of dense_shape [batch] + size."""
    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@public
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
    d = _gathered(serialized)
    if d is not None:
        return specs.parse(d, fn)
    a = _bytes_list(serialized)
    if a is None:
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


@op("spt_encode_example")  # its buffer is released with spt_bytes_free (the serial family's)
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


__all__ = exports(__name__)
