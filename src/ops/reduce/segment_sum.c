/* SPDX-License-Identifier: Apache-2.0 */
/* segment_sum.c -- tf.sparse.segment_sum: the sum of each segment's rows. The checks and the kernel are in segment_reduce.c. */
#include "ops/reduce/segment.h"

spt_status spt_segment_sum(const spt_dense *data, const spt_dense *indices, const spt_dense *segment_ids,
                           int64_t num_segments, spt_dense **out) {
    return spt__segment_reduce("spt_segment_sum", SPT__SEG_SUM, data, indices, segment_ids, num_segments, out);
}
