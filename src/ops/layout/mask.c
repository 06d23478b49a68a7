/* SPDX-License-Identifier: Apache-2.0 */
/* mask.c -- tf.sparse.mask: the slices of an IndexedSlices whose index is not among mask_indices. */
#include <stdlib.h>

#include "ops/kernel.h"

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool in_sorted(const int64_t *s, int64_t m, int64_t x) {
    const int64_t lo = spt__lower_bound_i64(s, m, x);
    return lo < m && s[lo] == x;
}

spt_status spt_mask_indices(const int64_t *indices, int64_t n, const int64_t *mask_indices, int64_t m, int64_t *keep,
                            int64_t *nkeep) {
    static const char fn[] = "spt_mask_indices";
    spt_status st = SPT_OK;
    if (!nkeep) return spt__err(SPT_EINVAL, "%s: nkeep is NULL", fn);
    *nkeep = 0;
    if (n < 0 || m < 0)
        return spt__err(SPT_EINVAL, "%s: counts must be >= 0, got n = %lld, m = %lld", fn, (long long)n, (long long)m);
    if ((n > 0 && (!indices || !keep)) || (m > 0 && !mask_indices))
        return spt__err(SPT_EINVAL, "%s: NULL array with a positive count", fn);
    int64_t *s = NULL;
    if (m > 0) {
        s = spt__alloc_array(fn, m, 1, sizeof(int64_t), false, &st);
        if (!s) return st;
        memcpy(s, mask_indices, (size_t)m * sizeof(int64_t));
        qsort(s, (size_t)m, sizeof(int64_t), cmp_i64);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (!in_sorted(s, m, indices[i])) keep[k++] = i;
    spt__free(s);
    *nkeep = k;
    return SPT_OK;
}
