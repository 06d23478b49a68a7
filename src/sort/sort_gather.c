/* SPDX-License-Identifier: Apache-2.0 */
/* sort_gather.c -- gathers of entries by a permutation (values of any width, index rows), shared by
 * the sorts and the ops. */
#include "sort/sort_internal.h"

/* dst[k] = src[perm[k]] for elements of es bytes (no parallel region for a short run). */
void spt__gather(void *dst, const void *src, size_t es, const int64_t *perm, int64_t n) {
    int nth SPT__OMP_VAR = spt__threads_for(n);
#define GATHER(T)                                                                                                      \
    do {                                                                                                               \
        T *d_ = dst;                                                                                                   \
        const T *s_ = src;                                                                                             \
        if (nth <= 1) /* a short run (concat's merge gathers many): no parallel region at all */                       \
            for (int64_t k = 0; k < n; k++) d_[k] = s_[perm[k]];                                                       \
        else                                                                                                           \
            _Pragma("omp parallel for schedule(static) num_threads(nth)") for (int64_t k = 0; k < n; k++)              \
                d_[k] = s_[perm[k]];                                                                                   \
    } while (0)
    typedef struct {
        uint64_t a, b;
    } u128;
    switch (es) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    case 16: GATHER(u128); break;
    default:
        if (nth <= 1) {
            for (int64_t k = 0; k < n; k++)
                memcpy((char *)dst + (size_t)k * es, (const char *)src + (size_t)perm[k] * es, es);
            break;
        }
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t k = 0; k < n; k++)
            memcpy((char *)dst + (size_t)k * es, (const char *)src + (size_t)perm[k] * es, es);
    }
#undef GATHER
}

spt_status spt__permute_values(const char *fn, void *values, size_t es, const int64_t *perm, int64_t n) {
    spt_status st;
    void *tmp = spt__alloc_array(fn, n, 1, es, false, &st);
    if (!tmp) return st;
    spt__gather(tmp, values, es, perm, n);
    memcpy(values, tmp, (size_t)n * es);
    spt__free(tmp);
    return SPT_OK;
}

/* Gather the rows of an N x r index matrix by perm. */
void spt__gather_rows(int64_t *dst, const int64_t *src, int64_t r, const int64_t *perm, int64_t n) {
    int nth SPT__OMP_VAR = spt__threads_for(n * r);
    switch (r) {
    case 1: spt__gather(dst, src, 8, perm, n); return;
    case 2: spt__gather(dst, src, 16, perm, n); return;
    default:
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t k = 0; k < n; k++) {
            const int64_t *s = src + perm[k] * r;
            int64_t *d = dst + k * r;
            for (int64_t j = 0; j < r; j++) d[j] = s[j];
        }
    }
}
