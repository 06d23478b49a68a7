/* SPDX-License-Identifier: Apache-2.0 */
/* keys.h -- the key engine (internal): how the entries of a tensor are ordered and compared by a list
 * of its dims, whatever the volume of the shape.
 *
 * A key plan is made from the dims that take part (most significant first) and their sizes. Its kind:
 * - SPT__KEY64: the mixed-radix volume of those dims is at most 2^64, so the row-major linear index
 *   (key = key * size + index) is a 64-bit key; the radix sort of sort.c orders it;
 * - SPT__KEY128: the indices packed into bit fields (each dim's field as wide as its largest index) fit
 *   in 128 bits: the packed key is two words;
 * - SPT__KEYWIDE: the packed key is up to 64 words (rank 64, every dim up to 2^63-1).
 * Past 64 bits the engine sorts by the top word of the packed key (a radix sort over the bits that
 * separate the entries, at most 64) and orders the runs of equal top words by the next word, recursively
 * (small runs by comparing the index rows), so a random input costs one 64-bit sort and a scan.
 * Ops that need 64-bit keys beyond that get the dense rank of each row (equal rows equal keys, order
 * kept): valid for comparisons, equality, binary search and run detection, never for decoding. */
#ifndef SPT_KEYS_H
#define SPT_KEYS_H

#include "core/internal.h"

enum { SPT__KEY64 = 1, SPT__KEY128 = 2, SPT__KEYWIDE = 3 };

typedef struct spt__keyplan {
    int64_t nd;                 /* components, most significant first */
    int64_t dims[SPT_MAX_RANK]; /* the index column of each component */
    int64_t size[SPT_MAX_RANK]; /* its dim */
    int width[SPT_MAX_RANK];    /* bits of its largest index (0 for a dim <= 1) */
    int top[SPT_MAX_RANK];      /* its first bit, counted from the top of the packed key */
    int bits;                   /* sum of the widths */
    int kind;                   /* SPT__KEY64, SPT__KEY128 or SPT__KEYWIDE */
    bool empty;                 /* a dim is 0: no entry can be valid */
    uint64_t max_key;           /* SPT__KEY64: the largest linear key (volume - 1; 0 when empty) */
} spt__keyplan;

/* The plan for dims[0..nd) of `shape` (dims NULL: 0..nd-1 in order). */
void spt__keyplan_init(spt__keyplan *kp, const int64_t *shape, const int64_t *dims, int64_t nd);

/* Compare two index rows by the plan's components: -1, 0, 1. */
static inline int spt__keyplan_cmp(const spt__keyplan *kp, const int64_t *a, const int64_t *b) {
    for (int64_t k = 0; k < kp->nd; k++) {
        int64_t d = kp->dims[k];
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    }
    return 0;
}

/* The linear key of one row (SPT__KEY64 plans only; the row inside the shape). */
static inline uint64_t spt__keyplan_linear(const spt__keyplan *kp, const int64_t *row) {
    uint64_t key = 0;
    for (int64_t k = 0; k < kp->nd; k++) key = key * (uint64_t)kp->size[k] + (uint64_t)row[kp->dims[k]];
    return key;
}

/* Sort t's entries by the plan (stable), checking the plan's columns of every entry against the shape
 * unless t is known valid (SPT_ERANGE naming fn).
 * keys (n slots, or NULL when not wanted): the keys in sorted order, linear for SPT__KEY64, else dense
 * ranks (*ordinal set).
 * *perm: NULL when the entries are already in order, else a new array (spt__free) whose k-th element is
 * the entry at sorted position k. *unique: no two entries have equal keys. */
spt_status spt__key_sort(const char *fn, const spt_tensor *t, const spt__keyplan *kp, uint64_t *keys, int64_t **perm,
                         bool *unique, bool *ordinal);

/* spt__key_sort of m tensors with one plan (the same shape in the plan's dims), keys comparable across
 * them: for SPT__KEY64 the linear keys; beyond, the dense ranks over the union of their entries.
 * keys[i] has ts[i]->nnz slots (required); perm[i], unique[i] as in spt__key_sort. */
spt_status spt__key_sort_joint(const char *fn, const spt_tensor *const *ts, int64_t m, const spt__keyplan *kp,
                               uint64_t **keys, int64_t **perm, bool *unique, bool *ordinal);

/* A stable sorting permutation of n index rows (row i at ix + i * stride, inside the shape) by the plan,
 * for any kind: perm[k] is the row at sorted position k. *sorted when it is the identity; *unique when
 * no two rows are equal; ranks (n slots, or NULL): the dense rank of the row at each sorted position. */
spt_status spt__key_sort_rows(const char *fn, const spt__keyplan *kp, const int64_t *ix, int64_t stride, int64_t n,
                              int64_t *perm, bool *sorted, uint64_t *ranks, bool *unique);

/* First position in the sorted keys[0, n) whose key is >= s. */
typedef struct {
    const uint64_t *keys;
    uint64_t s;
} spt__key_target;
static inline bool spt__key_below(const void *ctx, int64_t i) {
    const spt__key_target *t = ctx;
    return t->keys[i] < t->s;
}
static inline int64_t spt__key_lower_bound(const uint64_t *keys, int64_t n, uint64_t s) {
    const spt__key_target t = {keys, s};
    return spt__lower_bound(0, n, spt__key_below, &t);
}

#endif /* SPT_KEYS_H */
