/* SPDX-License-Identifier: Apache-2.0 */
/* segment_sqrt_n.c -- tf.sparse.segment_sqrt_n: each segment's sum divided by the square root of its count (0 for an empty segment). The checks and the kernel are in segment_reduce.c. */
#include "ops/reduce/segment.h"

spt_status spt_segment_sqrt_n(const spt_dense *data, const spt_dense *indices, const spt_dense *segment_ids,
                              int64_t num_segments, spt_dense **out) {
    return spt__segment_reduce("spt_segment_sqrt_n", SPT__SEG_SQRT_N, data, indices, segment_ids, num_segments, out);
}
