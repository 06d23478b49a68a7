# SPDX-License-Identifier: Apache-2.0
"""Registry entries: TensorFlow's files and records (src/tf): TFRecord reader and writer, tf.train.Example."""
from .kinds import (Entry, D, R_I64, STATUS, T, VOID, buffer, bytes_, enum, handle, i64, out, out_array, path,
                    size, text)

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
    Entry("spt_strings_gather", R_I64, buffer("objs", "const void * const *"), i64("n"), size("tag_off"),
          buffer("tag", "const void *"), size("len_off"), size("data_off"), buffer("out", "spt_str *")),
    Entry("spt_example_describe", STATUS, buffer("data", "const void *"), size("len"),
          buffer("keys", "spt_example_key * *", nullable=False), buffer("n", "int64_t *", nullable=False)),
    Entry("spt_encode_example", STATUS, buffer("features", "const spt_example_feature *", nullable=False),
          i64("n", lo=0), buffer("data", "void * *", nullable=False), buffer("len", "size_t *", nullable=False)),
    Entry("spt_encode_examples", STATUS, handle("t", T), text("value_key"),
          buffer("index_keys", "const char * const *"), out("out", D)),
]
