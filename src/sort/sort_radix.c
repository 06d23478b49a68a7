/* SPDX-License-Identifier: Apache-2.0 */
/* sort_radix.c -- the radix sorts on 64-bit keys: the generic parallel LSD sort carrying a
 * permutation, the in-cache bucket sort, and the MSD-then-buckets sort of (key, payload) pairs. */
#include "sort/sort_internal.h"

#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)
#define MAX_THREADS 64

spt_status spt__radix_sort(const char *fn, uint64_t *keys, int64_t *perm, int64_t n, uint64_t max_key) {
    spt_status st = SPT_OK;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    if (n < 2) return SPT_OK;
    int bits = max_key ? 64 - __builtin_clzll(max_key) : 0;
    int passes = (bits + RADIX_BITS - 1) / RADIX_BITS;
    if (passes == 0) return SPT_OK;
    int nth = spt__threads_for(n);
    if (nth > MAX_THREADS) nth = MAX_THREADS;
    uint64_t *tk = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    int64_t *tp = tk ? spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st) : NULL;
    /* hist[thread][bucket], recounted for every pass over the keys as they then lie */
    int64_t *hist = tp ? spt__alloc_array(fn, nth, RADIX_SIZE, sizeof(int64_t), false, &st) : NULL;
    if (!hist) goto done;
    int64_t chunk = (n + nth - 1) / nth;
    uint64_t *src_k = keys, *dst_k = tk;
    int64_t *src_p = perm, *dst_p = tp;
    for (int p = 0; p < passes; p++) {
        int shift = p * RADIX_BITS;
        int64_t *h = hist;
        memset(h, 0, (size_t)nth * RADIX_SIZE * sizeof *h);
        /* one iteration per chunk, so the result does not depend on how many threads OpenMP grants */
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int tid = 0; tid < nth; tid++) {
            int64_t *mine = h + (int64_t)tid * RADIX_SIZE;
            int64_t lo = tid * chunk, hi = lo + chunk < n ? lo + chunk : n;
            for (int64_t i = lo; i < hi; i++) mine[(src_k[i] >> shift) & (RADIX_SIZE - 1)]++;
        }
        /* skip a digit that is the same for every key */
        bool constant = false;
        for (int b = 0; b < RADIX_SIZE && !constant; b++) {
            int64_t tot = 0;
            for (int t = 0; t < nth; t++) tot += h[(int64_t)t * RADIX_SIZE + b];
            if (tot == n) constant = true;
            else if (tot) break;
        }
        if (constant) continue;
        /* exclusive offsets: bucket-major, thread-minor (keeps the sort stable) */
        spt__scan_histograms(h, nth, RADIX_SIZE, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int tid = 0; tid < nth; tid++) {
            int64_t *off = h + (int64_t)tid * RADIX_SIZE;
            int64_t lo = tid * chunk, hi = lo + chunk < n ? lo + chunk : n;
            for (int64_t i = lo; i < hi; i++) {
                uint64_t k = src_k[i];
                int64_t pos = off[(k >> shift) & (RADIX_SIZE - 1)]++;
                dst_k[pos] = k;
                dst_p[pos] = src_p[i];
            }
        }
        uint64_t *sk = src_k;
        src_k = dst_k;
        dst_k = sk;
        int64_t *sp = src_p;
        src_p = dst_p;
        dst_p = sp;
    }
    if (src_k != keys) {
        memcpy(keys, src_k, (size_t)n * sizeof *keys);
        memcpy(perm, src_p, (size_t)n * sizeof *perm);
    }
done:
    spt__free(hist);
    spt__free(tp);
    spt__free(tk);
    return st;
}


/* Stable sort of one bucket (m pairs in k/p, all equal above bit `rem`) by its low `rem` bits, with
 * the scratch sk/sp of m slots and h of BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT counters. Returns 0 when
 * the result is in k/p, 1 when in sk/sp. Buckets are small enough to stay in cache. */
int spt__bucket_sort(uint64_t *k, uint64_t *p, uint64_t *sk, uint64_t *sp, int64_t m, int rem, int64_t *h) {
    return spt__bucket_sort3(k, p, sk, sp, NULL, NULL, m, rem, h);
}

int spt__bucket_sort3(uint64_t *k, uint64_t *p, uint64_t *sk, uint64_t *sp, uint64_t *k2, uint64_t *p2, int64_t m,
                      int rem, int64_t *h) {
    if (m < 2 || rem <= 0) return 0;
    if (m <= 48) { /* insertion sort: stable */
        for (int64_t i = 1; i < m; i++) {
            uint64_t key = k[i], pay = p[i];
            int64_t j = i;
            while (j > 0 && k[j - 1] > key) {
                k[j] = k[j - 1];
                p[j] = p[j - 1];
                j--;
            }
            k[j] = key;
            p[j] = pay;
        }
        return 0;
    }
    int passes = (rem + BUCKET_MAX_DIGIT - 1) / BUCKET_MAX_DIGIT;
    int digit = (rem + passes - 1) / passes;
    /* small buckets: narrower digits so the counters do not dominate */
    while (digit > 4 && ((int64_t)1 << digit) > 2 * m) {
        passes++;
        digit = (rem + passes - 1) / passes;
    }
    if (passes > BUCKET_MAX_PASSES) {
        passes = BUCKET_MAX_PASSES;
        digit = (rem + passes - 1) / passes;
    }
    const int64_t nb = (int64_t)1 << digit;
    const uint64_t dm = (uint64_t)nb - 1;
    memset(h, 0, sizeof(int64_t) * (size_t)(passes * nb));
    for (int64_t i = 0; i < m; i++) {
        uint64_t key = k[i];
        for (int q = 0; q < passes; q++) h[q * nb + (int64_t)((key >> (q * digit)) & dm)]++;
    }
    /* a: where the pairs are; b: where the next pass writes. With k2, k/p are only read: the passes
     * after the first alternate between sk/sp and k2/p2 */
    uint64_t *a = k, *ap = p, *b = sk, *bp = sp;
    for (int q = 0; q < passes; q++) {
        int64_t *hq = h + q * nb;
        const int sh = q * digit;
        if (hq[(a[0] >> sh) & dm] == m) continue; /* constant digit */
        spt__scan_exclusive(hq, nb);
        for (int64_t i = 0; i < m; i++) {
            uint64_t key = a[i];
            int64_t pos = hq[(key >> sh) & dm]++;
            b[pos] = key;
            bp[pos] = ap[i];
        }
        uint64_t *x = a, *xp = ap;
        a = b;
        ap = bp;
        b = k2 && x == k ? k2 : x;
        bp = k2 && x == k ? p2 : xp;
    }
    return a == k ? 0 : a == sk ? 1 : 2;
}

spt_status spt__sort_pairs(const char *fn, uint64_t *keys, uint64_t *pay, int64_t n, int bits) {
    spt_status st = SPT_OK;
    if (n < 2 || bits <= 0) return SPT_OK;
    const int64_t bscr = (int64_t)BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT;
    int lg = 63 - __builtin_clzll((uint64_t)n);
    if (n < 65536 || bits <= 16) { /* small: one in-cache LSD sort, the scratch the size of the input */
        uint64_t *sk = spt__alloc_array(fn, n, 2, sizeof(uint64_t), false, &st);
        int64_t *h = sk ? spt__alloc_array(fn, bscr, 1, sizeof(int64_t), false, &st) : NULL;
        if (h && spt__bucket_sort(keys, pay, sk, sk + n, n, bits, h)) {
            memcpy(keys, sk, (size_t)n * sizeof *keys);
            memcpy(pay, sk + n, (size_t)n * sizeof *pay);
        }
        spt__free(h);
        spt__free(sk);
        return st;
    }
    /* one MSD scatter by the top digit into (tk, tp), then each bucket sorted in cache by the rest
     * with (keys, pay) -- free after the scatter -- as its scratch and final place */
    int digit = lg - 12;
    if (digit > 11) digit = 11;
    if (digit < 4) digit = 4;
    if (digit > bits - 1) digit = bits - 1;
    const int shift = bits - digit;
    const int64_t nb = (int64_t)1 << digit;
    int nth = spt__threads_for(n);
    if (nth > 64) nth = 64;
    if (nth < 1) nth = 1;
    const int64_t C = nth, chunk = (n + C - 1) / C;
    uint64_t *tk = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    uint64_t *tp = tk ? spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st) : NULL;
    int64_t *hist = tp ? spt__alloc_array(fn, C * nb + nb + 1 + C * bscr, 1, sizeof(int64_t), true, &st) : NULL;
    if (!hist) goto done;
    int64_t *bounds = hist + C * nb, *hs = bounds + nb + 1;
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int64_t c = 0; c < C; c++) {
        int64_t *hc = hist + c * nb, lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        for (int64_t i = lo; i < hi; i++) hc[keys[i] >> shift]++;
    }
    spt__scan_histograms(hist, C, nb, bounds); /* bounds[nb] == n */
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int64_t c = 0; c < C; c++) {
        int64_t *off = hist + c * nb, lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        for (int64_t i = lo; i < hi; i++) {
            uint64_t k = keys[i];
            int64_t pos = off[k >> shift]++;
            tk[pos] = k;
            tp[pos] = pay[i];
        }
    }
#pragma omp parallel for schedule(dynamic, 8) num_threads(nth)
    for (int64_t b = 0; b < nb; b++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        int64_t lo = bounds[b], m = bounds[b + 1] - lo;
        if (m == 0) continue;
        if (!spt__bucket_sort(tk + lo, tp + lo, keys + lo, pay + lo, m, shift, hs + (int64_t)tid * bscr)) {
            memcpy(keys + lo, tk + lo, (size_t)m * sizeof *keys);
            memcpy(pay + lo, tp + lo, (size_t)m * sizeof *pay);
        }
    }
done:
    spt__free(hist);
    spt__free(tp);
    spt__free(tk);
    return st;
}
