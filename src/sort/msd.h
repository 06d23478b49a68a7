/* SPDX-License-Identifier: Apache-2.0 */
/* msd.h -- what sort_packed.c (the packed-key sorts, the distributed MSD sort's steps) and msd_plan.c
 * (the distributed MSD sort's plan) share (internal). */
#ifndef SPT_SORT_MSD_H
#define SPT_SORT_MSD_H

#include "sort/sort_internal.h"

#define FAST_MAX_DIGIT 11
#define FAST_MAX_CHUNKS 64

typedef struct radix_plan {
    int passes, digit, shift0; /* digit p covers bits [shift0 + p*digit, +digit) */
    int64_t n, chunks, chunk;
} radix_plan;

struct spt__msd {
    packing pk;
    radix_plan rp; /* passes 1, digit = the bucket digit, shift0 = bits - digit; n and chunks local */
    int64_t *hist; /* rp.chunks x 2^digit per-chunk counts of the top digit */
    /* the finish (spt__msd_prepare): sources, buckets, their counts (borrowed), piece offsets and bucket
     * starts, per-thread scratch of 4 x maxm words and bucket-sort counters */
    int nsrc, nthb;
    int64_t nbk, maxm;
    const int64_t *cnt;
    int64_t *off, *hs;
    uint64_t *ts;
};

#endif /* SPT_SORT_MSD_H */
