/* SPDX-License-Identifier: Apache-2.0 */
/* segment_mean.c -- tf.sparse.segment_mean: the mean of each segment's rows (0 for an empty segment). The checks and the kernel are in segment_reduce.c. */
#include "ops/reduce/segment.h"

spt_status spt_segment_mean(const spt_dense *data, const spt_dense *indices, const spt_dense *segment_ids,
                            int64_t num_segments, spt_dense **out) {
    return spt__segment_reduce("spt_segment_mean", SPT__SEG_MEAN, data, indices, segment_ids, num_segments, out);
}
