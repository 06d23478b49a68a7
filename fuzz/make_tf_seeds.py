#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the seeds of fuzz_tfrecord (fuzz/corpus/tfrecord/seed-*) from the golden files TensorFlow wrote
(tests/tf_formats/data). Byte 0 of each seed is the allocation-failure mode of fz_begin (0: none, 3 + 4k:
fail allocation k), byte 1 the target (0 file, 1 Example, 2 serialized SparseTensor; see the harness)."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "tf_formats", "data")
OUT = os.path.join(HERE, "corpus", "tfrecord")


def records(path):
    """The records of an uncompressed TFRecord file (no checks: the files are TensorFlow's)."""
    b, out, i = open(path, "rb").read(), [], 0
    while i < len(b):
        n = struct.unpack_from("<Q", b, i)[0]
        out.append(b[i + 12:i + 12 + n])
        i += 16 + n
    return out


def put(name, data):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "seed-" + name), "wb") as f:
        f.write(data)


for comp, suffix in ((0, ""), (1, "_zlib"), (2, "_gzip")):
    raw = open(os.path.join(DATA, "examples%s.tfrecord" % suffix), "rb").read()
    for mode in (0, 3, 7):
        put("file%s-%d" % (suffix, mode), bytes([mode, 0, comp, mode & 1]) + raw)
for k, ex in enumerate(records(os.path.join(DATA, "examples.tfrecord"))):
    put("example-%d" % k, bytes([0, 1]) + ex)
    put("example-%d-fail" % k, bytes([11, 1]) + ex)
ser = records(os.path.join(DATA, "serialized.tfrecord"))
dtypes = [9, 13, 0, 12, 3, 10, 8, 1]  # spt_dtype of each golden tensor (float32, string, bool, ...)
for k in range(len(ser) // 3):
    p = ser[3 * k:3 * k + 3]
    put("serialized-%d" % k, bytes([0, 2]) + struct.pack("<HHHB", len(p[0]), len(p[1]), len(p[2]), dtypes[k]) + b"".join(p))
