# SPDX-License-Identifier: Apache-2.0
"""TensorFlow's bytes and files in the Python package: serialize_sparse's TensorProto bytes (checked against
the golden bytes TensorFlow wrote, tests/tf_formats/data), TFRecord reading and writing in the three
compressions, DataLossError on damaged files, tf.train.Example parsing with TensorFlow's results and
errors, encode_example / encode_examples round trips, read_tfrecord in batches."""
import os

import numpy as np
import pytest

import spt

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "tf_formats", "data")


def golden(name, comp=None):
    return list(spt.tf_record_iterator(os.path.join(DATA, name), comp))


def test_serialize_is_tensorflows_bytes():
    recs = golden("serialized.tfrecord")
    sp = spt.SparseTensor([[0, 1], [2, 3]], np.array([1.5, -2.5], np.float32), [3, 4])
    assert spt.serialize_sparse(sp).tolist() == recs[0:3]
    s = spt.SparseTensor([[0], [1], [3]], np.array([b"a\0b", b"", b"\xff\xfe"], dtype=object), [5])
    assert spt.serialize_sparse(s).tolist() == recs[3:6]
    r0 = spt.SparseTensor(np.zeros((1, 0), np.int64), np.array([37], np.int32), [])
    assert spt.serialize_sparse(r0).tolist() == recs[12:15]
    e = spt.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0), [3, 0])
    assert spt.serialize_sparse(e).tolist() == recs[15:18]
    back = spt.deserialize_sparse(recs[3:6], object)
    assert back.values.tolist() == [b"a\0b", b"", b"\xff\xfe"] and back.indices.tolist() == [[0], [1], [3]]
    many = spt.serialize_many_sparse(spt.SparseTensor([[0, 1], [2, 0], [2, 3]], np.array([1, 2, 3]), [3, 4]))
    assert many.reshape(-1).tolist() == golden("many.tfrecord")


def test_deserialize_errors_are_tensorflows():
    s = spt.serialize_sparse(spt.SparseTensor([[0]], np.array([1], np.int64), [3]))
    with pytest.raises(spt.InvalidArgumentError, match="Requested SparseTensor of type int32 but SparseTensor"):
        spt.deserialize_sparse(s, np.int32)
    t2 = spt.serialize_sparse(spt.SparseTensor([[0, 0]], np.array([1], np.int64), [3, 3]))
    with pytest.raises(spt.InvalidArgumentError, match="Inconsistent shape across SparseTensors"):
        spt.deserialize_sparse([s, t2], np.int64)
    with pytest.raises(spt.ParseError, match=r"serialized_sparse\[0, 0\]"):
        spt.deserialize_sparse([b"\x08", s[1], s[2]], np.int64)
    stacked = spt.deserialize_sparse([[s, s], [s, s]], np.int64)
    assert stacked.shape == (2, 2, 3) and stacked.indices.tolist() == [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0]]


@pytest.mark.parametrize("comp,suffix", [(None, ""), ("ZLIB", "_zlib"), ("GZIP", "_gzip")])
def test_records_both_ways(tmp_path, comp, suffix):
    recs = golden("examples%s.tfrecord" % suffix, comp)
    assert recs == golden("examples.tfrecord")
    p = tmp_path / "x.tfrecord"
    with spt.TFRecordWriter(p, comp) as w:
        for r in recs:
            w.write(r)
        w.write(b"")
        w.write_batch([b"\0" * 100000, b"z"])
    assert list(spt.tf_record_iterator(p, comp)) == recs + [b"", b"\0" * 100000, b"z"]
    batches = list(spt.read_tfrecord(p, compression_type=comp, batch_size=2))
    assert [len(b) for b in batches] == [2, 2, 2]


def test_damaged_files_are_data_loss(tmp_path):
    raw = open(os.path.join(DATA, "examples.tfrecord"), "rb").read()
    p = tmp_path / "bad.tfrecord"
    p.write_bytes(raw[:50])
    with pytest.raises(spt.DataLossError, match="bad.tfrecord: corrupted record at byte 0"):
        list(spt.tf_record_iterator(p))
    flipped = bytearray(raw)
    flipped[len(raw) - 20] ^= 4
    p.write_bytes(bytes(flipped))
    with pytest.raises(spt.DataLossError, match="checksum"):
        list(spt.tf_record_iterator(p))
    with pytest.raises(spt.IOError):
        list(spt.tf_record_iterator(tmp_path / "missing.tfrecord"))
    with pytest.raises(spt.InvalidArgumentError):
        list(spt.tf_record_iterator(p, "BZIP2"))
    assert issubclass(spt.DataLossError, OSError)


FEATURES = {"ids": spt.VarLenFeature(np.int64), "tag": spt.VarLenFeature("string"),
            "sp": spt.SparseFeature("ix", "w", np.float32, 5), "fx": spt.FixedLenFeature([2], np.int64),
            "fd": spt.FixedLenFeature([1], np.float32, default_value=[9.0])}


def check_golden_parse(out):
    assert out["ids"].indices.tolist() == [[0, 0], [0, 1], [0, 2], [2, 0]]
    assert out["ids"].values.tolist() == [3, -1, 7, 9] and out["ids"].shape == (3, 3)
    assert out["tag"].values.tolist() == [b"a", b"\0b", b""] and out["tag"].shape == (3, 2)
    assert out["sp"].indices.tolist() == [[0, 0], [0, 1], [0, 2], [2, 4]]
    assert out["sp"].values.tolist() == [1.5, 2.0, 0.5, 3.0] and out["sp"].shape == (3, 5)
    assert out["fx"].tolist() == [[1, 2], [5, 6], [7, 8]] and out["fx"].dtype == np.int64
    assert out["fd"].tolist() == [[9.0]] * 3 and out["fd"].dtype == np.float32


def test_parse_example_as_tensorflow():
    check_golden_parse(spt.parse_example(golden("examples.tfrecord"), FEATURES))
    one = spt.parse_single_example(golden("examples.tfrecord")[0], FEATURES)
    assert one["ids"].indices.tolist() == [[0], [1], [2]] and one["fx"].tolist() == [1, 2]
    (batch,) = list(spt.read_tfrecord(os.path.join(DATA, "examples_gzip.tfrecord"), FEATURES, "GZIP"))
    check_golden_parse(batch)
    recs = golden("examples.tfrecord")
    with pytest.raises(spt.InvalidArgumentError, match=r"Feature: zz \(data type: int64\) is required"):
        spt.parse_example(recs, {"zz": spt.FixedLenFeature([1], np.int64)})
    with pytest.raises(spt.InvalidArgumentError, match="Data types don't match. Expected type: float, Actual type: int64"):
        spt.parse_example(recs, {"ids": spt.VarLenFeature(np.float32)})
    with pytest.raises(spt.InvalidArgumentError, match="Number of int64 values != expected"):
        spt.parse_example(recs, {"fx": spt.FixedLenFeature([3], np.int64)})
    with pytest.raises(spt.OutOfRangeError):
        spt.parse_example(recs, {"sp": spt.SparseFeature("ix", "w", np.float32, 4)})
    with pytest.raises(spt.ParseError, match=r"serialized\[1\]"):
        spt.parse_example([recs[0], recs[1][:-3]], {"ids": spt.VarLenFeature(np.int64)})
    with pytest.raises(spt.DtypeError):
        spt.parse_example(recs, {"ids": spt.VarLenFeature(np.float64)})
    with pytest.raises(spt.InvalidArgumentError, match="vector"):
        spt.parse_example(recs[0], FEATURES)


def test_encode_round_trips(tmp_path):
    b = spt.encode_example({"ids": [1, -2, 1 << 40], "w": np.array([0.25, -1], np.float32), "s": [b"x\0y", ""]})
    out = spt.parse_single_example(b, {"ids": spt.VarLenFeature(np.int64), "w": spt.VarLenFeature(np.float32),
                                       "s": spt.VarLenFeature(bytes)})
    assert out["ids"].values.tolist() == [1, -2, 1 << 40]
    assert out["w"].values.tolist() == [0.25, -1.0]
    assert out["s"].values.tolist() == [b"x\0y", b""]
    sp = spt.SparseTensor([[2, 1, 4], [0, 0, 3], [0, 1, 0], [2, 0, 0]], np.array([1, 2, 3, 4], np.float32), [3, 2, 5])
    recs = spt.encode_examples(sp, "val", ["r", "c"])
    p = tmp_path / "rows.tfrecord.gz"
    spt.write_tfrecord(p, recs, "GZIP")
    (got,) = spt.read_tfrecord(p, {"x": spt.SparseFeature(["r", "c"], "val", np.float32, [2, 5])}, "GZIP")
    assert got["x"].shape == (3, 2, 5)
    assert got["x"].indices.tolist() == [[0, 0, 3], [0, 1, 0], [2, 0, 0], [2, 1, 4]]
    assert got["x"].values.tolist() == [2, 3, 4, 1]
    with pytest.raises(spt.InvalidArgumentError):
        spt.encode_examples(sp, "val", ["r"])
    with pytest.raises(spt.DtypeError):
        spt.encode_example({"c": np.array([1j])})


def test_pack_is_spts_own_format():
    sp = spt.SparseTensor([[0, 1]], np.array([2.5]), [2, 2])
    b = spt.pack_sparse(sp)
    assert b[:4] == b"SPTS"
    assert spt.unpack_sparse(b, np.float64).indices.tolist() == [[0, 1]]
    with pytest.raises(spt.ParseError):
        spt.unpack_sparse(b[:-1], np.float64)


def test_large_batches_take_the_parallel_path():
    """Enough bytes for the threaded scan and decode: the result equals the Example-by-Example parse, and the
    first damaged Example is the one reported."""
    rng = np.random.default_rng(5)
    lens = rng.integers(0, 30, 20000)
    recs = [spt.encode_example({"ids": rng.integers(-5, 1 << 40, int(n)), "w": rng.random(int(rng.integers(0, 30)),
                                                                                        dtype=np.float32)})
            for n in lens]
    f = {"ids": spt.VarLenFeature(np.int64), "w": spt.VarLenFeature(np.float32)}
    spt.set_num_threads(2)
    out = spt.parse_example(recs, f)
    ids = out["ids"]
    rows = ids.indices[:, 0]
    for b in (0, 1, 777, 19999):
        one = spt.parse_single_example(recs[b], f)["ids"]
        assert ids.values[rows == b].tolist() == one.values.tolist()
    assert ids.nnz == lens.sum() and np.array_equal(np.bincount(rows, minlength=20000), lens)
    bad = list(recs)
    bad[15000] = bad[15000][:-1]
    bad[17000] = bad[17000][:-1]
    with pytest.raises(spt.ParseError, match=r"serialized\[15000\]"):
        spt.parse_example(bad, f)


def test_batches_of_bytes_objects_reach_c_without_a_copy(tmp_path):
    """A list or tuple of bytes objects is read by C in place (spt_strings_gather at the offsets checked at
    import); any other element takes the copying path, with the same result or the same error."""
    from spt import _tfio
    import platform
    if platform.python_implementation() == "CPython":
        assert _tfio._LAYOUT is not None
    recs = golden("examples.tfrecord")
    want = spt.parse_example(recs, FEATURES)
    check_golden_parse(want)
    f = {"ids": spt.VarLenFeature(np.int64)}
    for form in (tuple(recs), list(recs), np.array(recs + [b""], dtype=object)[:-1],
                 [bytearray(r) for r in recs], [recs[0], memoryview(recs[1]), recs[2]]):
        got = spt.parse_example(form, FEATURES)
        for k in want:
            a, b = want[k], got[k]
            if isinstance(a, np.ndarray):
                assert np.array_equal(a, b)
            else:
                assert a.shape == b.shape and np.array_equal(a.indices, b.indices) and np.array_equal(a.values, b.values)
    # empty batches, empty records, and a str among bytes (refused as before)
    assert spt.parse_example([], f)["ids"].shape == (0, 0)
    assert spt.parse_example((), f)["ids"].shape == (0, 0)
    assert spt.parse_example([b"", b""], f)["ids"].shape == (2, 0)
    with pytest.raises(spt.DtypeError):
        spt.parse_example([recs[0], "text"], f)
    with pytest.raises(spt.DtypeError):
        spt.parse_example([recs[0], None], f)
    # the gather itself: the first element that is not a bytes object is reported by its index
    assert _tfio._gathered([b"a", b"\0bc", b""]).numpy().tolist() == [b"a", b"\0bc", b""]
    assert _tfio._gathered([b"a", bytearray(b"b")]) is None and _tfio._gathered("ab") is None
    if _tfio._LAYOUT is not None:
        import ctypes
        from spt._registry import C
        items, typ, size, data = _tfio._LAYOUT
        t = (b"xy", b"z", "s", b"w")
        out = np.zeros((4, 2), np.int64)
        assert C.spt_strings_gather(id(t) + items, 4, typ, id(bytes), size, data, out.ctypes.data) == 2
        assert out[:2, 1].tolist() == [2, 1] and ctypes.string_at(int(out[0, 0]), 2) == b"xy"
        assert C.spt_strings_gather(id(t) + items, 4, typ, id(bytes), size, data, None) == -1
        assert C.spt_strings_gather(None, 0, typ, id(bytes), size, data, None) == 0
        # a larger batch, at any thread count: the first bad object is reported wherever it lies
        big = [bytes([i % 251]) * (i % 7) for i in range(20000)]
        nt = spt.get_num_threads()
        try:
            for threads in (1, 2):
                spt.set_num_threads(threads)
                for bad in ((), (19999,), (17000, 5000), (4096, 4095), (0, 12000)):
                    t = tuple(None if i in bad else b for i, b in enumerate(big))
                    out = np.zeros((len(t), 2), np.int64)
                    want = min(bad) if bad else len(t)
                    assert C.spt_strings_gather(id(t) + items, len(t), typ, id(bytes), size, data,
                                                out.ctypes.data) == want
                    assert out[:want, 1].tolist() == [len(b) for b in big[:want]]
                    assert all(ctypes.string_at(int(out[i, 0]), len(big[i])) == big[i] for i in range(0, want, 997))
        finally:
            spt.set_num_threads(nt)
    # the writer's batch path reads the same way
    p = tmp_path / "t.tfrecord"
    with spt.TFRecordWriter(p) as w:
        w.write_batch(tuple(recs))
        w.write_batch([b"", bytearray(b"x")])
    assert list(spt.tf_record_iterator(p)) == list(recs) + [b"", b"x"]
