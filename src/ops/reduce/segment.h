/* SPDX-License-Identifier: Apache-2.0 */
/* segment.h -- the segment reductions' engine (segment_reduce.c), shared by spt_segment_sum,
 * spt_segment_mean and spt_segment_sqrt_n. Internal, not installed. */
#ifndef SPT_OPS_REDUCE_SEGMENT_H
#define SPT_OPS_REDUCE_SEGMENT_H

#include "ops/kernel.h"

/* The reduction of a segment op. */
typedef enum { SPT__SEG_SUM, SPT__SEG_MEAN, SPT__SEG_SQRT_N } spt__seg_mode;

/* The engine of spt_segment_sum / _mean / _sqrt_n (segment_reduce.c): every check and the reduction,
 * messages naming `fn`. */
spt_status spt__segment_reduce(const char *fn, spt__seg_mode mode, const spt_dense *data, const spt_dense *indices,
                               const spt_dense *segment_ids, int64_t num_segments, spt_dense **out);

#endif
