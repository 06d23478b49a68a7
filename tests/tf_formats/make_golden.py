# SPDX-License-Identifier: Apache-2.0
"""Writes the golden files of tests/tf_formats/ with TensorFlow itself (run once, by hand, with a Python that
has TensorFlow 2; the files are committed so that `make test` needs no TensorFlow):

  serialized.tfrecord   tf.io.serialize_sparse of the tensors below, three records (indices, values,
                        dense_shape) per tensor, in this order
  many.tfrecord         tf.io.serialize_many_sparse of a [3, 4] int64 tensor, row by row (9 records)
  examples{,_zlib,_gzip}.tfrecord   the three Examples below, written by tf.io.TFRecordWriter

    python3 tests/tf_formats/make_golden.py tests/tf_formats/data
"""
import os
import sys

import numpy as np
import tensorflow as tf

out = sys.argv[1]
SPARSE = [
    tf.SparseTensor([[0, 1], [2, 3]], tf.constant([1.5, -2.5], tf.float32), [3, 4]),
    tf.SparseTensor([[0], [1], [3]], tf.constant([b"a\x00b", b"", b"\xff\xfe"]), [5]),
    tf.SparseTensor([[1, 0, 2]], tf.constant([True]), [2, 1, 3]),
    tf.SparseTensor([[0]], tf.constant([1 - 2j], tf.complex128), [1]),
    tf.SparseTensor(tf.zeros([1, 0], tf.int64), tf.constant([37], tf.int32), []),
    tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.constant([], tf.float64), [3, 0]),
    tf.SparseTensor([[0], [1]], tf.constant([np.iinfo(np.uint64).max, 7], tf.uint64), [2]),
    tf.SparseTensor([[0], [1]], tf.constant([-128, 127], tf.int8), [2]),
]
with tf.io.TFRecordWriter(os.path.join(out, "serialized.tfrecord")) as w:
    for sp in SPARSE:
        for s in tf.io.serialize_sparse(sp).numpy():
            w.write(s)
many = tf.io.serialize_many_sparse(tf.SparseTensor([[0, 1], [2, 0], [2, 3]], tf.constant([1, 2, 3], tf.int64), [3, 4]))
with tf.io.TFRecordWriter(os.path.join(out, "many.tfrecord")) as w:
    for s in many.numpy().reshape(-1):
        w.write(s)


def feature(v, kind):
    if kind == "bytes":
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=v))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=v))


EXAMPLES = [
    {"ids": ([3, -1, 7], "int64"), "w": ([0.5, 1.5, 2.0], "float"), "ix": ([2, 0, 1], "int64"),
     "tag": ([b"a", b"\x00b"], "bytes"), "fx": ([1, 2], "int64")},
    {"ids": ([], "int64"), "w": ([], "float"), "ix": ([], "int64"), "fx": ([5, 6], "int64")},
    {"ids": ([9], "int64"), "w": ([3.0], "float"), "ix": ([4], "int64"), "tag": ([b""], "bytes"), "fx": ([7, 8], "int64")},
]
recs = [tf.train.Example(features=tf.train.Features(feature={k: feature(v, t) for k, (v, t) in e.items()}))
        .SerializeToString() for e in EXAMPLES]
for suffix, comp in (("", ""), ("_zlib", "ZLIB"), ("_gzip", "GZIP")):
    with tf.io.TFRecordWriter(os.path.join(out, "examples%s.tfrecord" % suffix), comp) as w:
        for r in recs:
            w.write(r)
