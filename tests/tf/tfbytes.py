# SPDX-License-Identifier: Apache-2.0
"""spt's TensorFlow bytes and files against TensorFlow itself (run by `make test-tf` after harness.py):

  * serialize_sparse / serialize_many_sparse of random SparseTensors (every dtype both have, ranks 0-5,
    no entries, strings with NUL and non-UTF-8 bytes) give TensorFlow's bytes exactly, and round-trip both
    ways (spt's bytes read by tf.io.deserialize_sparse, TF's by spt), stacks of any batch shape included;
  * TF's error cases of deserialize_sparse (wrong dtype, inconsistent rank, garbage) raise TF's classes;
  * random tf.train.Example records written by tf.io.TFRecordWriter (NONE, ZLIB, GZIP) parse in spt exactly
    as tf.io.parse_example parses them (VarLenFeature, SparseFeature with one or two index keys,
    FixedLenFeature with and without defaults), and files spt writes are read by tf.data.TFRecordDataset
    and parsed by TF to the same tensors; parse errors raise TF's classes.

Environment: SPT_TF_CASES (serialization cases, default 300; Example files: a tenth), SPT_TF_SEED."""
import os
import sys
import tempfile

import numpy as np
import tensorflow as tf

import spt

CASES = int(os.environ.get("SPT_TF_CASES", "300"))
SEED = int(os.environ.get("SPT_TF_SEED", "20261129"))
rng = np.random.default_rng(SEED)
fails = []
counts = {}

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32,
          np.float64, np.complex64, np.complex128, object]


def note(kind, ok, msg=""):
    counts.setdefault(kind, [0, 0])[0 if ok else 1] += 1
    if not ok:
        fails.append("%s: %s" % (kind, msg))


def rand_values(dt, n):
    if dt is object:
        pool = [b"", b"\0", b"a\0b", b"\xff\xfe\x80", "é".encode(), b"x" * 300]
        return np.array([pool[i] for i in rng.integers(0, len(pool), n)] if n else [], dtype=object)
    if dt is np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=np.int64 if info.min < 0 else np.uint64, endpoint=True)
        return v.astype(dt)
    if np.issubdtype(dt, np.complexfloating):
        return (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dt)
    v = rng.normal(size=n).astype(dt)
    if n:
        v[rng.integers(0, n)] = [np.inf, -np.inf, np.nan, -0.0][rng.integers(0, 4)]
    return v


def rand_sparse(dt, rank=None, sorted_=True):
    rank = int(rng.integers(0, 6)) if rank is None else rank
    shape = [int(x) for x in rng.integers(0, 6, rank)]
    vol = int(np.prod(shape)) if rank else 1
    n = int(rng.integers(0, min(vol, 12) + 1)) if vol else 0
    flat = np.sort(rng.choice(vol, n, replace=False)) if n else np.zeros(0, np.int64)
    ix = np.array(np.unravel_index(flat, shape)).T.reshape(n, rank).astype(np.int64) if rank else np.zeros((n, 0), np.int64)
    if not sorted_ and n > 1:
        ix = ix[rng.permutation(n)]
    return ix, rand_values(dt, n), shape


def tf_sparse(ix, vals, shape, dt):
    tdt = tf.string if dt is object else tf.as_dtype(dt)
    return tf.SparseTensor(tf.constant(ix, tf.int64, shape=ix.shape), tf.constant(vals, tdt, shape=[len(vals)]),
                           tf.constant(shape, tf.int64, shape=[len(shape)]))


def tf_deserialize(ser, tdt):
    """tf.compat.v1.deserialize_sparse (TF 2 keeps it as the raw op DeserializeSparse)."""
    i, v, sh = tf.raw_ops.DeserializeSparse(serialized_sparse=ser, dtype=tdt)
    return tf.SparseTensor(i, v, sh)


def same_sparse(a, b, dup_order_free=False):
    """spt SparseTensor a vs tf.SparseTensor b. dup_order_free: the order of the values of one repeated index
    is free (TF reorders with an unstable sort; spt's is stable)."""
    ia = a.indices.tolist()
    if ia != b.indices.numpy().tolist() or list(a.shape) != b.dense_shape.numpy().tolist():
        return False
    x, y = np.asarray(a.values), b.values.numpy()
    if x.dtype == object or y.dtype == object:
        xs, ys = list(x), list(y)
    elif x.dtype != y.dtype:
        return False
    elif not dup_order_free:
        return np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
    else:
        xs, ys = [repr(v) for v in x.tolist()], [repr(v) for v in y.tolist()]
    if not dup_order_free:
        return xs == ys
    i = 0
    while i < len(ia):
        j = i
        while j < len(ia) and ia[j] == ia[i]:
            j += 1
        if sorted(map(repr, xs[i:j])) != sorted(map(repr, ys[i:j])):
            return False
        i = j
    return True


def check_serialization():
    for case in range(CASES):
        dt = DTYPES[case % len(DTYPES)]
        ix, vals, shape = rand_sparse(dt)
        t_tf = tf_sparse(ix, vals, shape, dt)
        t_spt = spt.SparseTensor(ix, vals, shape)
        want = tf.io.serialize_sparse(t_tf).numpy()
        got = spt.serialize_sparse(t_spt)
        note("serialize_sparse bytes", got.tolist() == want.tolist(), "dtype %s shape %s n %d" % (dt, shape, len(vals)))
        back = spt.deserialize_sparse(want, dt, rank=len(shape))
        note("deserialize TF's bytes", same_sparse(back, t_tf), "dtype %s shape %s" % (dt, shape))
        tdt = tf.string if dt is object else tf.as_dtype(dt)
        t2 = tf_deserialize(got, tdt)
        note("TF reads spt's bytes", same_sparse(t_spt, t2), "dtype %s shape %s" % (dt, shape))
        if len(shape) >= 1:
            want_m = tf.io.serialize_many_sparse(t_tf).numpy() if len(shape) >= 2 else None
            if want_m is not None:
                got_m = spt.serialize_many_sparse(t_spt)
                note("serialize_many_sparse bytes", got_m.tolist() == want_m.tolist(), "dtype %s shape %s" % (dt, shape))
                if len(want_m):
                    b1 = spt.deserialize_many_sparse(want_m, dt)
                    b2 = tf.io.deserialize_many_sparse(want_m, tdt)
                    note("deserialize_many_sparse", same_sparse(b1, b2), "dtype %s shape %s" % (dt, shape))
        # a stack of items of different shapes and any batch shape (TF pads each dim to the largest)
        if case % 3 == 0:
            r = len(shape)
            items = [spt.serialize_sparse(spt.SparseTensor(*rand_sparse(dt, r))) for _ in range(6)]
            bshape = [(6,), (2, 3), (3, 1, 2)][case // 3 % 3]
            stack = np.array([list(x) for x in items], dtype=object).reshape(bshape + (3,))
            s1 = spt.deserialize_sparse(stack, dt)
            s2 = tf_deserialize(stack, tdt)
            note("deserialize_sparse stack", same_sparse(s1, s2), "batch %s rank %d" % (bshape, r))


def tf_error(f):
    try:
        f()
    except tf.errors.OpError as e:
        return type(e).__name__
    except UnicodeDecodeError:
        # TF's parse error quotes the record's bytes and then fails to decode its own message: an
        # InvalidArgumentError that never reaches Python as one
        return "InvalidArgumentError"
    return None


def spt_error(f):
    try:
        f()
    except spt.SptError as e:
        return type(e).__name__
    return None


def check_deserialize_errors():
    a = tf.io.serialize_sparse(tf.SparseTensor([[0]], tf.constant([1], tf.int64), [3])).numpy()
    b = tf.io.serialize_sparse(tf.SparseTensor([[0, 1]], tf.constant([1], tf.int64), [3, 3])).numpy()
    cases = [("wrong dtype", a, np.int32, tf.int32), ("inconsistent rank", np.stack([a, b]), np.int64, tf.int64),
             ("garbage proto", np.array([b"\x08", a[1], a[2]], dtype=object), np.int64, tf.int64),
             ("not 3 columns", a[:2], np.int64, tf.int64)]
    for name, ser, dt, tdt in cases:
        e_tf = tf_error(lambda: tf_deserialize(ser, tdt))
        e_spt = spt_error(lambda: spt.deserialize_sparse(ser, dt))
        ok = e_tf is not None and (e_spt == e_tf or (e_tf == "InvalidArgumentError" and e_spt == "ParseError"))
        note("deserialize error class", ok, "%s: TF %s, spt %s" % (name, e_tf, e_spt))


# ---- Examples ---------------------------------------------------------------------------------------


def rand_example():
    n = int(rng.integers(0, 6))
    m = int(rng.integers(0, 4))
    f = {}
    if rng.random() < 0.9:
        f["ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=rng.integers(-2**62, 2**62, n).tolist()))
    if rng.random() < 0.9:
        f["w"] = tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=n).astype(np.float32).tolist()))
    f["i0"] = tf.train.Feature(int64_list=tf.train.Int64List(value=rng.integers(0, 7, m).tolist()))
    f["i1"] = tf.train.Feature(int64_list=tf.train.Int64List(value=rng.integers(0, 3, m).tolist()))
    f["v"] = tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=m).astype(np.float32).tolist()))
    if rng.random() < 0.8:
        f["s"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes(rng.integers(0, 256, int(k)).astype(np.uint8))
                                                                       for k in rng.integers(0, 5, int(rng.integers(0, 4)))]))
    f["fx"] = tf.train.Feature(int64_list=tf.train.Int64List(value=rng.integers(-9, 9, 2).tolist()))
    if rng.random() < 0.5:
        f["fd"] = tf.train.Feature(float_list=tf.train.FloatList(value=[float(rng.normal())] * 3))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


TF_FEATURES = {"ids": tf.io.VarLenFeature(tf.int64), "w": tf.io.VarLenFeature(tf.float32), "s": tf.io.VarLenFeature(tf.string),
               "one": tf.io.SparseFeature("i0", "v", tf.float32, 7),
               "two": tf.io.SparseFeature(["i0", "i1"], "v", tf.float32, [7, 3]),
               "fx": tf.io.FixedLenFeature([2], tf.int64),
               "fd": tf.io.FixedLenFeature([3], tf.float32, default_value=[1.0, 2.0, 3.0])}
SPT_FEATURES = {"ids": spt.VarLenFeature(np.int64), "w": spt.VarLenFeature(np.float32), "s": spt.VarLenFeature(bytes),
                "one": spt.SparseFeature("i0", "v", np.float32, 7),
                "two": spt.SparseFeature(["i0", "i1"], "v", np.float32, [7, 3]),
                "fx": spt.FixedLenFeature([2], np.int64),
                "fd": spt.FixedLenFeature([3], np.float32, default_value=[1.0, 2.0, 3.0])}


def same_parse(a, b):
    for k in b:
        x, y = a[k], b[k]
        if isinstance(y, tf.SparseTensor):
            if not same_sparse(x, y, dup_order_free=k in ("one", "two")):
                return k
        elif not (x.dtype == y.numpy().dtype and np.array_equal(x, y.numpy())):
            return k
    return None


def check_examples(tmp):
    nfiles = max(3, CASES // 10)
    for case in range(nfiles):
        comp = ["", "ZLIB", "GZIP"][case % 3]
        recs = [rand_example() for _ in range(int(rng.integers(1, 40)))]
        p = os.path.join(tmp, "tf_%d.tfrecord" % case)
        with tf.io.TFRecordWriter(p, comp) as w:
            for r in recs:
                w.write(r)
        got_recs = list(spt.tf_record_iterator(p, comp))
        note("read TF's TFRecord", got_recs == recs, "compression %r" % comp)
        want = tf.io.parse_example(recs, TF_FEATURES)
        (got,) = list(spt.read_tfrecord(p, SPT_FEATURES, comp))
        bad = same_parse(got, want)
        note("parse_example", bad is None, "feature %s (compression %r)" % (bad, comp))
        one = tf.io.parse_single_example(recs[0], TF_FEATURES)
        bad = same_parse(spt.parse_single_example(recs[0], SPT_FEATURES), one)
        note("parse_single_example", bad is None, "feature %s" % bad)
        q = os.path.join(tmp, "spt_%d.tfrecord" % case)
        with spt.TFRecordWriter(q, comp) as w:
            for r in recs:
                w.write(r)
        back = [x.numpy() for x in tf.data.TFRecordDataset(q, compression_type=comp)]
        note("TF reads spt's TFRecord", back == recs, "compression %r" % comp)
        # rows of a SparseTensor written by spt, parsed by TF
        ix, vals, shape = rand_sparse(np.float32, 3)
        if shape[0] > 0:
            sp = spt.SparseTensor(ix, vals, shape)
            ex = spt.encode_examples(sp, "val", ["r", "c"])
            parsed = tf.io.parse_example(ex, {"x": tf.io.SparseFeature(["r", "c"], "val", tf.float32, shape[1:])})["x"]
            note("TF parses spt's Examples", same_sparse(spt.reorder(sp), parsed), "shape %s" % shape)
    recs = [rand_example() for _ in range(4)]
    errs = [("missing required", {"zz": tf.io.FixedLenFeature([1], tf.int64)}, {"zz": spt.FixedLenFeature([1], np.int64)}),
            ("type mismatch", {"ids": tf.io.VarLenFeature(tf.float32)}, {"ids": spt.VarLenFeature(np.float32)}),
            ("wrong count", {"fx": tf.io.FixedLenFeature([3], tf.int64)}, {"fx": spt.FixedLenFeature([3], np.int64)}),
            ("truncated record", None, None)]
    for name, tff, sptf in errs:
        if tff is None:
            data, tff, sptf = [recs[0][:-2]], TF_FEATURES, SPT_FEATURES
        else:
            data = recs
        e_tf = tf_error(lambda: tf.io.parse_example(data, tff))
        e_spt = spt_error(lambda: spt.parse_example(data, sptf))
        ok = e_tf is not None and (e_spt == e_tf or (e_tf == "InvalidArgumentError" and e_spt == "ParseError"))
        note("parse_example error class", ok, "%s: TF %s, spt %s" % (name, e_tf, e_spt))
    # a damaged file: TF and spt both report data loss
    p = os.path.join(tmp, "damaged.tfrecord")
    with tf.io.TFRecordWriter(p) as w:
        for r in recs:
            w.write(r)
    raw = bytearray(open(p, "rb").read())
    raw[len(raw) // 2] ^= 0x10
    open(p, "wb").write(bytes(raw))
    e_tf = tf_error(lambda: [x for x in tf.data.TFRecordDataset(p)])
    e_spt = spt_error(lambda: list(spt.tf_record_iterator(p)))
    note("damaged file error class", e_tf == e_spt == "DataLossError", "TF %s, spt %s" % (e_tf, e_spt))


def main():
    check_serialization()
    check_deserialize_errors()
    with tempfile.TemporaryDirectory() as tmp:
        check_examples(tmp)
    total_f = 0
    for k, (p, f) in counts.items():
        print("tfbytes %-32s %6d passed %4d failed" % (k, p, f))
        total_f += f
    for m in fails[:40]:
        print("  FAIL", m)
    print("tfbytes: %d checks, %d failed (seed %d)" % (sum(p + f for p, f in counts.values()), total_f, SEED))
    return 1 if total_f else 0


if __name__ == "__main__":
    sys.exit(main())
