# SPDX-License-Identifier: Apache-2.0
"""Registry entries: serialization (src/ops/serial): TensorFlow's form and spt's own packed form."""
from .kinds import (Entry, D, NDT, STATUS, T, VOID, buffer, enum, handle, i64, i64in, out)

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
