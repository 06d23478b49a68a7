# SPDX-License-Identifier: Apache-2.0
"""Registry entries: the feature ops (src/ops/features): to_indicator, bincount, cross, embeddings."""
from .kinds import (D, Entry, STATUS, T, boolean, buffer, bytes_, enum, handle, handles, i64, out, u64)

ENTRIES = [
    Entry("spt_to_indicator", STATUS, handle("sp_input", T), i64("vocab_size"), out("out", D)),
    Entry("spt_bincount", STATUS, handle("values", T), handle("weights", T, nullable=True), i64("axis"),
          i64("minlength", lo=-1), i64("maxlength", lo=-1), boolean("binary_output"), out("out", T)),
    Entry("spt_bincount_dense", STATUS, handle("values", D), handle("weights", D, nullable=True), i64("axis"),
          i64("minlength", lo=-1), i64("maxlength", lo=-1), boolean("binary_output"), out("out", T)),
    Entry("spt_cross", STATUS, buffer("inputs", "const spt_cross_input *", nullable=False), i64("n", lo=0),
          bytes_("separator"), i64("separator_len", len_of="separator"), out("out", T)),
    Entry("spt_cross_hashed", STATUS, buffer("inputs", "const spt_cross_input *", nullable=False), i64("n", lo=0),
          i64("num_buckets", lo=0), u64("hash_key"), out("out", T)),
    Entry("spt_embedding_lookup_sparse", STATUS, handles("params", D), i64("nparams", len_of="params"),
          handle("sp_ids", T), handle("sp_weights", T, nullable=True), enum("combiner", "spt_combiner", 3),
          out("out", D)),
    Entry("spt_safe_embedding_lookup_sparse", STATUS, handles("params", D), i64("nparams", len_of="params"),
          handle("sparse_ids", T), handle("sparse_weights", T, nullable=True), enum("combiner", "spt_combiner", 3),
          i64("default_id", lo=-1), out("out", D)),
]
