# SPDX-License-Identifier: Apache-2.0
"""Registry entries: the reductions (src/ops/reduce): reduce_sum / reduce_max, the segment reductions, softmax."""
from .kinds import (D, Entry, STATUS, T, boolean, handle, i64, i64in, out)

ENTRIES = [
    Entry("spt_reduce_sum", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", D)),
    Entry("spt_reduce_sum_sparse", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", T)),
    Entry("spt_reduce_max", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", D)),
    Entry("spt_reduce_max_sparse", STATUS, handle("sp_input", T), i64in("axis", nullable=True),
          i64("naxes", len_of="axis"), boolean("keepdims"), out("out", T)),
    Entry("spt_softmax", STATUS, handle("sp_input", T), out("out", T)),
    Entry("spt_segment_sum", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
    Entry("spt_segment_mean", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
    Entry("spt_segment_sqrt_n", STATUS, handle("data", D), handle("indices", D), handle("segment_ids", D),
          i64("num_segments", lo=-1), out("out", D)),
]
