/* SPDX-License-Identifier: Apache-2.0 */
/* sort_internal.h -- what the files of the sort engine share (internal): sort.c (reorder, argsort),
 * sort_radix.c (the radix sorts), sort_packed.c (the packed-key reorder), sort_gather.c (gathers). */
#ifndef SPT_SORT_INTERNAL_H
#define SPT_SORT_INTERNAL_H

#include "sort/keys.h"

/* When the bit widths of the dims (in sort order) add up to at most 64, the key packs each index into
 * its own bit field, so the sorted keys decode back into the indices with shifts and masks: the sort
 * moves (key, payload) pairs and the index rows are never gathered. The payload is the values
 * themselves when they are 8 bytes wide, otherwise the permutation.
 * Up to 64 + 11 bits (two-word keys, at least PACKED128_MIN_N entries) the same: the MSD scatter's
 * top digit (msd bits) is the bucket, the bits below it fit in the one word the sort carries. */
typedef struct packing {
    int64_t r;
    int64_t ord[SPT_MAX_RANK];
    int shift[SPT_MAX_RANK]; /* from the bottom of the key, up to 127 */
    uint64_t mask[SPT_MAX_RANK];
    int bits;
    int msd; /* bits > 64: the width of the top digit (bits - msd <= 64); else 0 */
} packing;

#define PACKED128_MIN_N 65536

/* The packing of t's dims in `order` (NULL = row-major) when their bit widths add up to at most 64, or
 * to at most 64 + the top digit of the hybrid sort for t->nnz >= PACKED128_MIN_N entries. */
bool spt__make_packing(const spt_tensor *t, const int64_t *order, packing *pk);

/* Reorder through packed keys, in place (dst == t) or into dst (a fresh owned tensor of t's dtype, shape
 * and nnz, never strings); *unique_out says whether the keys are distinct. See sort_packed.c. */
spt_status spt__reorder_packed(const char *fn, const spt_tensor *t, spt_tensor *dst, const packing *pk,
                               bool *unique_out);

#define BUCKET_MAX_DIGIT 11
#define BUCKET_MAX_PASSES 6 /* 64 bits in digits of at most 11 */
/* Stable in-cache LSD sort of one bucket (m pairs in k/p, equal above bit `rem`) by its low `rem` bits,
 * with the scratch sk/sp of m slots and h of BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT counters. Returns 0
 * when the result is in k/p, 1 when in sk/sp. */
int spt__bucket_sort(uint64_t *k, uint64_t *p, uint64_t *sk, uint64_t *sp, int64_t m, int rem, int64_t *h);
/* The same with a second scratch k2/p2 of m slots (NULL: spt__bucket_sort): k/p are then written only by
 * the insertion sort of small buckets (m <= 48), never by a radix pass, so a bucket read from memory is
 * not written back to it. Returns 0 (result in k/p), 1 (sk/sp) or 2 (k2/p2). */
int spt__bucket_sort3(uint64_t *k, uint64_t *p, uint64_t *sk, uint64_t *sp, uint64_t *k2, uint64_t *p2, int64_t m,
                      int rem, int64_t *h);

/* dst[k] = src[perm[k]] for n elements of es bytes; the rows of an n x r index matrix likewise. */
void spt__gather(void *dst, const void *src, size_t es, const int64_t *perm, int64_t n);
void spt__gather_rows(int64_t *dst, const int64_t *src, int64_t r, const int64_t *perm, int64_t n);

#endif /* SPT_SORT_INTERNAL_H */
