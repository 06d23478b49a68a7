/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber.c -- MTTKRP by fibers, the float path of spt_mttkrp. Within an output row, consecutive
 * entries equal in every index but the leaf mode form a fiber (the CSF format's innermost level, read
 * from the grouped order without building one): the fiber's values times the leaf factor's rows are
 * summed, and that partial sum is multiplied by the other factors' rows once per fiber instead of once
 * per entry. The factor rows are prefetched a fixed distance ahead; each output row is accumulated in a
 * local buffer and stored once. Compiled for AVX-512, AVX2 and the baseline (simd.h): same bytes. */
#include "ops/products/mttkrp_fiber.h"

#include "ops/elementwise/simd.h"
#include "ops/kernel.h"

#include <string.h>

#define T double
#define SUF f64
#include "ops/products/mttkrp_fiber_tmpl.h"
#undef T
#undef SUF
#define T float
#define SUF f32
#include "ops/products/mttkrp_fiber_tmpl.h"
#undef T
#undef SUF

bool spt__mttkrp_fiber_has(spt_dtype dt) { return dt == SPT_FLOAT64 || dt == SPT_FLOAT32; }

void spt__mttkrp_fiber(spt_dtype dt, const spt__mttkrp_job *j, int64_t lo, int64_t hi, void *scratch) {
    if (dt == SPT_FLOAT64) run_f64(j, lo, hi, scratch);
    else run_f32(j, lo, hi, scratch);
}

typedef struct {
    const int64_t *ix;
    int64_t N, mode;
} row_ctx;

static bool row_start(const void *ctx, int64_t i) {
    const row_ctx *c = ctx;
    return c->ix[i * c->N + c->mode] != c->ix[(i - 1) * c->N + c->mode];
}

/* Whether the entries are grouped by their index in `mode` (non-decreasing). */
static bool grouped_by(const spt_tensor *t, int64_t mode) {
    if ((t->flags & SPT__F_SORTED) && t->order[0] == mode) return true;
    const int64_t N = t->rank, *ix = t->indices;
    for (int64_t i = 1; i < t->nnz; i++)
        if (ix[i * N + mode] < ix[(i - 1) * N + mode]) return false;
    return true;
}

/* The entries (index rows and values) copied into cix/cval grouped by their index in `mode`, each group in
 * stored order: a counting sort, nch threads each counting then placing a contiguous share. hist holds
 * nch * D counters (D = shape[mode]). */
static void group_copy(const spt_tensor *t, int64_t mode, int nch, int64_t *hist, int64_t *cix, void *cval) {
    const int64_t n = t->nnz, N = t->rank, D = t->shape[mode], *ix = t->indices;
    const size_t es = spt_dtype_size(t->dtype);
    const char *val = t->values;
#pragma omp parallel num_threads(nch)
    {
#pragma omp for schedule(static, 1)
        for (int c = 0; c < nch; c++) {
            int64_t *h = hist + (int64_t)c * D;
            for (int64_t e = n / nch * c, hi = c == nch - 1 ? n : n / nch * (c + 1); e < hi; e++) h[ix[e * N + mode]]++;
        }
#pragma omp single
        {
            int64_t pos = 0;
            for (int64_t d = 0; d < D; d++)
                for (int c = 0; c < nch; c++) {
                    int64_t k = hist[(int64_t)c * D + d];
                    hist[(int64_t)c * D + d] = pos;
                    pos += k;
                }
        }
#pragma omp for schedule(static, 1)
        for (int c = 0; c < nch; c++) {
            int64_t *h = hist + (int64_t)c * D;
            for (int64_t e = n / nch * c, hi = c == nch - 1 ? n : n / nch * (c + 1); e < hi; e++) {
                int64_t p = h[ix[e * N + mode]]++;
                for (int64_t m = 0; m < N; m++) cix[p * N + m] = ix[e * N + m];
                if (es == 8) memcpy((char *)cval + p * 8, val + e * 8, 8); /* fixed sizes: inlined moves */
                else memcpy((char *)cval + p * 4, val + e * 4, 4);
            }
        }
    }
}

spt_status spt__mttkrp_fibers(const char *fn, const spt_tensor *t, int64_t mode, const void *const *fd, int64_t R,
                              void *out) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, N = t->rank;
    if (n == 0 || R == 0) return SPT_OK;
    const size_t es = spt_dtype_size(t->dtype);
    /* the leaf: the mode other than `mode` that varies fastest in the grouped order (the last of the
     * sort order when sorted, the grouping being stable) */
    int64_t leaf = N - 1 == mode ? N - 2 : N - 1;
    if (t->flags & SPT__F_SORTED)
        for (int64_t k = N - 1; k >= 0; k--)
            if (t->order[k] != mode) {
                leaf = t->order[k];
                break;
            }
    int64_t *cix = NULL, *hist = NULL;
    void *cval = NULL, *scr = NULL;
    const int64_t *ix = t->indices;
    const void *vals = t->values;
    if (!grouped_by(t, mode)) {
        const int64_t D = t->shape[mode];
        int nch = spt__nchunks(n, N + 1);
        while (nch > 1 && D > (n + 65536) / nch) nch--; /* counters no larger than the entries */
        hist = spt__alloc_array(fn, nch, D, sizeof(int64_t), true, &st);
        if (!hist) goto done;
        cix = spt__alloc_array(fn, n, N, sizeof(int64_t), false, &st);
        if (!cix) goto done;
        cval = spt__alloc_array(fn, n, 1, es, false, &st);
        if (!cval) goto done;
        spt__hint_huge(cix, (size_t)(n * N) * sizeof(int64_t)); /* fewer faults on the fresh copy */
        spt__hint_huge(cval, (size_t)n * es);
        group_copy(t, mode, nch, hist, cix, cval);
        spt__free(hist);
        hist = NULL;
        ix = cix;
        vals = cval;
    }
    int nch = spt__nchunks(n, N + R);
    scr = spt__alloc_array(fn, nch, 2 * R, es, false, &st);
    if (!scr) goto done;
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    row_ctx rc = {ix, N, mode};
    spt__chunks(n, nch, bnd, row_start, &rc);
    spt__mttkrp_job j = {vals, ix, NULL, n, N, mode, leaf, R, fd, out};
    (void)spt__simd(); /* chosen before the threads start */
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++)
        spt__mttkrp_fiber(t->dtype, &j, bnd[c], bnd[c + 1], (char *)scr + (size_t)c * 2 * R * es);
done:
    spt__free(scr);
    spt__free(hist);
    spt__free(cix);
    spt__free(cval);
    return st;
}
