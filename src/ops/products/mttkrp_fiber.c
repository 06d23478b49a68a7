/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber.c -- the float path of spt_mttkrp (mttkrp_fiber_tmpl.h has the kernel). Entries grouped by
 * the kept mode's index take the grouped form: each output row summed by one thread and stored once.
 * Others take the scatter form: fixed chunks of the stored order, each adding into rows of its own, added
 * in chunk order (or, when those rows would be large, a grouped copy first). At ranks 2 and 3 each entry's
 * product is added whole; from rank 4 consecutive entries equal in every index but the leaf mode form a
 * fiber (the CSF format's innermost level, read from the order without building one) whose values times
 * the leaf factor's rows are summed, and that partial sum multiplied by the other factors' rows once. The
 * rows an entry names are prefetched a fixed distance ahead. Compiled for AVX-512, AVX2 and the baseline
 * (simd.h): same bytes. */
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

/* Positions [lo, hi) of the job into the [shape[mode], R] rows o: the grouped or the scatter form. */
static void fiber_run(spt_dtype dt, const spt__mttkrp_job *j, bool scatter, int64_t lo, int64_t hi, void *o,
                      void *scratch) {
    if (dt == SPT_FLOAT64) run_f64(j, scatter, lo, hi, o, scratch);
    else run_f32(j, scatter, lo, hi, o, scratch);
}

static void combine(spt_dtype dt, void *out, const void *bufs, int64_t nb, int64_t stride, int64_t lo, int64_t hi) {
    if (dt == SPT_FLOAT64) combine_f64(out, bufs, nb, stride, lo, hi);
    else combine_f32(out, bufs, nb, stride, lo, hi);
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

/* The scatter form's chunk count, from the sizes alone and never the thread count, so that its sums are
 * the same bytes at every thread count: a chunk per SCATTER_MIN entries, at most SCATTER_MAX. Chunk 0 adds
 * into the output, every other chunk into rows of its own (D x R), added into the output in chunk order.
 * 0 when those private rows would take more than a quarter of the grouped copy's bytes (n index rows and
 * values): the copy is then cheaper, and the rows would spill from the caches anyway. */
#define SCATTER_MIN 16384
#define SCATTER_MAX 16
static int scatter_chunks(int64_t n, int64_t N, int64_t D, int64_t R, size_t es) {
    int64_t k = n / SCATTER_MIN, priv, copy;
    k = k < 1 ? 1 : k > SCATTER_MAX ? SCATTER_MAX : k;
    if (spt__mul_i64(k - 1, D, &priv) || spt__mul_i64(priv, R, &priv) || spt__mul_i64(priv, (int64_t)es, &priv))
        return 0;
    if (spt__mul_i64(n, N + 1, &copy) || spt__mul_i64(copy, 8, &copy)) copy = INT64_MAX;
    return priv <= copy / 4 ? (int)k : 0;
}

spt_status spt__mttkrp_fibers(const char *fn, const spt_tensor *t, int64_t mode, const void *const *fd, int64_t R,
                              void *out) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, N = t->rank, D = t->shape[mode];
    if (n == 0 || R == 0) return SPT_OK;
    const size_t es = spt_dtype_size(t->dtype);
    const bool grouped = grouped_by(t, mode);
    const int K = grouped ? 0 : scatter_chunks(n, N, D, R, es);
    /* the leaf: the mode that varies fastest in the stored order (the last of the sort order when sorted);
     * the grouped forms need one other than `mode`: then the last of the order but `mode` (the grouping is
     * stable, so that mode still varies fastest within each group) */
    int64_t leaf = N - 1;
    if (t->flags & SPT__F_SORTED) leaf = t->order[N - 1];
    if (!K && leaf == mode) {
        leaf = N - 1 == mode ? N - 2 : N - 1;
        if (t->flags & SPT__F_SORTED) leaf = t->order[N - 2];
    }
    int64_t *cix = NULL, *hist = NULL;
    void *cval = NULL, *scr = NULL, *priv = NULL;
    const int64_t *ix = t->indices;
    const void *vals = t->values;
    if (!grouped && !K) {
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
    spt__mttkrp_job j = {vals, ix, n, N, mode, leaf, R, fd};
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    (void)spt__simd(); /* chosen before the threads start */
    if (!K) {
        int nch = spt__nchunks(n, N + R);
        scr = spt__alloc_array(fn, nch, 2 * R, es, false, &st);
        if (!scr) goto done;
        row_ctx rc = {ix, N, mode};
        spt__chunks(n, nch, bnd, row_start, &rc);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
        for (int c = 0; c < nch; c++)
            fiber_run(t->dtype, &j, false, bnd[c], bnd[c + 1], out, (char *)scr + (size_t)c * 2 * R * es);
        goto done;
    }
    /* scatter: K fixed chunks over the threads there are; chunk c > 0 zeroes its rows on its own thread */
    int nth = spt__nchunks(n, N + R);
    nth = nth < K ? nth : K;
    const int64_t DR = D * R;
    scr = spt__alloc_array(fn, K, 2 * R, es, false, &st);
    if (!scr) goto done;
    if (K > 1) {
        priv = spt__alloc_array(fn, K - 1, DR, es, false, &st);
        if (!priv) goto done;
    }
    spt__chunks(n, K, bnd, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int c = 0; c < K; c++) {
        void *o = out;
        if (c) {
            o = (char *)priv + (size_t)(c - 1) * (size_t)DR * es;
            memset(o, 0, (size_t)DR * es);
        }
        fiber_run(t->dtype, &j, true, bnd[c], bnd[c + 1], o, (char *)scr + (size_t)c * 2 * R * es);
    }
    if (K > 1) {
        const int64_t blk = 4096, nblk = (DR + blk - 1) / blk;
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t b = 0; b < nblk; b++)
            combine(t->dtype, out, priv, K - 1, DR, b * blk, b + 1 == nblk ? DR : (b + 1) * blk);
    }
done:
    spt__free(priv);
    spt__free(scr);
    spt__free(hist);
    spt__free(cix);
    spt__free(cval);
    return st;
}
