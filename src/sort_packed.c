/* SPDX-License-Identifier: Apache-2.0 */
/* sort_packed.c -- the fast reorder: when the dims' bit widths fit in 64, each index gets its own
 * bit field of one 64-bit key, so the sorted keys decode back into the indices. */
#include "sort_internal.h"

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- the fast path: bit-packed keys, 8-byte payloads carried through the sort ------------------ */


bool spt__make_packing(const spt_tensor *t, const int64_t *order, packing *pk) {
    const int64_t r = t->rank;
    int w[SPT_MAX_RANK], total = 0;
    pk->r = r;
    for (int64_t k = 0; k < r; k++) {
        pk->ord[k] = order ? order[k] : k;
        int64_t dim = t->shape[pk->ord[k]];
        w[k] = dim > 1 ? 64 - __builtin_clzll((uint64_t)(dim - 1)) : 0;
        total += w[k];
    }
    if (total > 64) return false;
    int sh = 0;
    for (int64_t k = r - 1; k >= 0; k--) {
        /* a dim of size <= 1 has no bits (its index is 0): shift 0, never 64 when the others fill the key */
        pk->shift[k] = w[k] ? sh : 0;
        pk->mask[k] = w[k] == 64 ? ~0ull : (1ull << w[k]) - 1;
        sh += w[k];
    }
    pk->bits = total;
    return true;
}

#define FAST_MAX_DIGIT 11
#define WC_N 8 /* entries per write-combining buffer: one 64-byte line of keys, one of payloads */
#define FAST_MAX_CHUNKS 64

typedef struct radix_plan {
    int passes, digit, shift0; /* digit p covers bits [shift0 + p*digit, +digit) */
    int64_t n, chunks, chunk;
} radix_plan;

static int64_t chunk_lo(const radix_plan *rp, int64_t c) { return c * rp->chunk; }
static int64_t chunk_hi(const radix_plan *rp, int64_t c) {
    int64_t hi = (c + 1) * rp->chunk;
    return hi < rp->n ? hi : rp->n;
}

/* The packed key of one index row (known to lie inside the shape). */
static inline uint64_t pack_row(const packing *pk, const int64_t *row) {
    uint64_t key = 0;
    for (int64_t k = 0; k < pk->r; k++) key |= (uint64_t)row[pk->ord[k]] << pk->shift[k];
    return key;
}

/* Packed keys of every entry (stored when keys != NULL) with the bounds check (unless known valid), the sortedness facts and the
 * per-chunk digit histograms hist[pass][chunk][bucket], in one read of the indices. */
static spt_status packed_keys(const char *fn, const spt_tensor *t, const packing *pk, const radix_plan *rp,
                              uint64_t *keys, int64_t *hist, bool *sorted, bool *unique) {
    const int64_t r = t->rank, n = t->nnz, *ix = t->indices, *sh = t->shape;
    const bool check = !(t->flags & SPT__F_VALID);
    const int64_t nb = (int64_t)1 << rp->digit;
    const uint64_t dmask = (uint64_t)nb - 1;
    int64_t first_bad = INT64_MAX, unsorted = 0, repeated = 0;
    int nth SPT__OMP_VAR = spt__threads_for(n * r);
#pragma omp parallel for schedule(static, 1) num_threads(nth) reduction(min : first_bad) reduction(+ : unsorted, repeated)
    for (int64_t c = 0; c < rp->chunks; c++) {
        int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
        uint64_t prev = 0;
        for (int64_t i = lo; i < hi; i++) {
            const int64_t *row = ix + i * r;
            uint64_t key = 0;
            for (int64_t k = 0; k < r; k++) {
                int64_t d = pk->ord[k];
                if (check && (uint64_t)row[d] >= (uint64_t)sh[d]) {
                    if (i < first_bad) first_bad = i;
                    key = 0;
                    break;
                }
                key |= (uint64_t)row[d] << pk->shift[k];
            }
            if (keys) keys[i] = key;
            if (i > lo) {
                unsorted += prev > key;
                repeated += prev == key;
            }
            prev = key;
            for (int p = 0; p < rp->passes; p++)
                hist[((int64_t)p * rp->chunks + c) * nb + (int64_t)((key >> (rp->shift0 + p * rp->digit)) & dmask)]++;
        }
    }
    if (first_bad != INT64_MAX) return spt__oob_error(fn, t, first_bad, sh);
    for (int64_t c = 1; c < rp->chunks; c++) {
        int64_t lo = chunk_lo(rp, c);
        if (lo >= n || lo == 0) continue;
        uint64_t a = pack_row(pk, ix + (lo - 1) * r), b = pack_row(pk, ix + lo * r);
        unsorted += a > b;
        repeated += a == b;
    }
    if (check) spt__note_valid(t);
    *sorted = unsorted == 0;
    *unique = unsorted == 0 && repeated == 0;
    return SPT_OK;
}

/* Write 8 keys and 8 payloads to 64-byte aligned lines of tk and tp (streaming stores on x86-64). */
static inline void stream_line(uint64_t *k, uint64_t *p, const uint64_t *bb) {
#if defined(__x86_64__) && defined(__SSE2__)
    for (int j = 0; j < WC_N; j++) _mm_stream_si64((long long *)(k + j), (long long)bb[j]);
    for (int j = 0; j < WC_N; j++) _mm_stream_si64((long long *)(p + j), (long long)bb[WC_N + j]);
#else
    memcpy(k, bb, WC_N * sizeof *bb);
    memcpy(p, bb + WC_N, WC_N * sizeof *bb);
#endif
}

/* The MSD scatter of the hybrid sort straight from the index rows: each entry's key is packed again
 * (the rows were checked by packed_keys) and (key, payload) goes to its top-digit bucket in (tk, tp),
 * through software write-combining buffers (8 keys and 8 payloads per bucket, written 64 bytes at a
 * time). hist[chunk][bucket] holds the chunk's counts and becomes its write offsets. Stable. */
static void msd_from_indices(const radix_plan *rp, const packing *pk, const int64_t *ix, const uint64_t *pay,
                             int64_t *hist, uint64_t *tk, uint64_t *tp, uint64_t *wc) {
    const int64_t nb = (int64_t)1 << rp->digit, C = rp->chunks, r = pk->r;
    const int shift = rp->shift0;
    spt__scan_histograms(hist, C, nb, NULL);
    int nth = spt__threads_for(rp->n * r);
    if (nth > C) nth = (int)C;
    const int64_t o0 = pk->ord[0], o1 = r > 1 ? pk->ord[1] : 0, o2 = r > 2 ? pk->ord[2] : 0;
    const int s0 = pk->shift[0], s1 = r > 1 ? pk->shift[1] : 0, s2 = r > 2 ? pk->shift[2] : 0;
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int64_t c = 0; c < C; c++) {
        int64_t *off = hist + c * nb;
        const int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
        uint64_t *buf = wc + c * nb * 2 * WC_N;
        unsigned char fill[1 << FAST_MAX_DIGIT];
        memset(fill, 0, (size_t)nb);
        for (int64_t i = lo; i < hi; i++) {
            const int64_t *row = ix + i * r;
            uint64_t k;
            if (r == 3)
                k = (uint64_t)row[o0] << s0 | (uint64_t)row[o1] << s1 | (uint64_t)row[o2] << s2;
            else if (r == 2)
                k = (uint64_t)row[o0] << s0 | (uint64_t)row[o1] << s1;
            else
                k = pack_row(pk, row);
            int64_t b = (int64_t)(k >> shift);
            uint64_t *bb = buf + b * 2 * WC_N;
            unsigned f = fill[b];
            bb[f] = k;
            bb[WC_N + f] = pay[i];
            f++;
            int64_t pos = off[b];
            /* flush when the bucket reaches a 64-byte line of the destination: full lines go out with
             * streaming stores (no read for ownership of lines that are about to be overwritten) */
            if (f == WC_N || (((uintptr_t)(tk + pos + f)) & 63) == 0) {
                if (f == WC_N && (((uintptr_t)(tk + pos)) & 63) == 0)
                    stream_line(tk + pos, tp + pos, bb);
                else {
                    memcpy(tk + pos, bb, f * sizeof *bb);
                    memcpy(tp + pos, bb + WC_N, f * sizeof *bb);
                }
                off[b] = pos + f;
                f = 0;
            }
            fill[b] = (unsigned char)f;
        }
        for (int64_t b = 0; b < nb; b++) {
            unsigned f = fill[b];
            uint64_t *bb = buf + b * 2 * WC_N;
            memcpy(tk + off[b], bb, f * sizeof *bb);
            memcpy(tp + off[b], bb + WC_N, f * sizeof *bb);
            off[b] += f;
        }
#if defined(__x86_64__) && defined(__SSE2__)
        _mm_sfence(); /* the streaming stores are visible before the buckets are read */
#endif
    }
}

/* Stable LSD passes over (keys, pay) with the scratch (tk, tp); returns 1 when the result ended in the
 * scratch buffers, 0 when in (keys, pay). */
static int lsd_passes(const radix_plan *rp, int64_t *hist, uint64_t *keys, uint64_t *pay, uint64_t *tk,
                      uint64_t *tp) {
    const int64_t n = rp->n, nb = (int64_t)1 << rp->digit, C = rp->chunks;
    const uint64_t dmask = (uint64_t)nb - 1;
    uint64_t *sk = keys, *sp = pay, *dk = tk, *dp = tp;
    int in_scratch = 0;
    int nth = spt__threads_for(n);
    if (nth > C) nth = (int)C;
    bool moved = false;
    for (int p = 0; p < rp->passes; p++) {
        int64_t *h = hist + (int64_t)p * C * nb;
        const int shift = rp->shift0 + p * rp->digit;
        if (moved && C > 1) { /* the chunks now hold other entries: count this digit again per chunk */
            memset(h, 0, sizeof(int64_t) * (size_t)(C * nb));
#pragma omp parallel for schedule(static, 1) num_threads(nth)
            for (int64_t c = 0; c < C; c++) {
                int64_t *hc = h + c * nb;
                const int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
                for (int64_t i = lo; i < hi; i++) hc[(sk[i] >> shift) & dmask]++;
            }
        }
        bool constant = false;
        for (int64_t b = 0; b < nb && !constant; b++) {
            int64_t tot = 0;
            for (int64_t c = 0; c < C; c++) tot += h[c * nb + b];
            if (tot == n) constant = true;
            else if (tot) break;
        }
        if (constant) continue;
        spt__scan_histograms(h, C, nb, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int64_t c = 0; c < C; c++) {
            int64_t *off = h + c * nb;
            const int64_t lo = chunk_lo(rp, c), hi = chunk_hi(rp, c);
            for (int64_t i = lo; i < hi; i++) {
                uint64_t k = sk[i];
                int64_t pos = off[(k >> shift) & dmask]++;
                dk[pos] = k;
                dp[pos] = sp[i];
            }
        }
        uint64_t *x = sk; sk = dk; dk = x;
        x = sp; sp = dp; dp = x;
        in_scratch ^= 1;
        moved = true;
    }
    return in_scratch;
}
static void decode_span(const packing *pk, const uint64_t *keys, int64_t *ix, int64_t m) {
    const int64_t r = pk->r;
    if (r == 3) {
        const int64_t d0 = pk->ord[0], d1 = pk->ord[1], d2 = pk->ord[2];
        const int s0 = pk->shift[0], s1 = pk->shift[1], s2 = pk->shift[2];
        const uint64_t m0 = pk->mask[0], m1 = pk->mask[1], m2 = pk->mask[2];
        for (int64_t i = 0; i < m; i++) {
            uint64_t k = keys[i];
            int64_t *row = ix + i * 3;
            row[d0] = (int64_t)((k >> s0) & m0);
            row[d1] = (int64_t)((k >> s1) & m1);
            row[d2] = (int64_t)((k >> s2) & m2);
        }
    } else if (r == 2) {
        const int64_t d0 = pk->ord[0], d1 = pk->ord[1];
        const int s0 = pk->shift[0], s1 = pk->shift[1];
        const uint64_t m0 = pk->mask[0], m1 = pk->mask[1];
        for (int64_t i = 0; i < m; i++) {
            uint64_t k = keys[i];
            int64_t *row = ix + i * 2;
            row[d0] = (int64_t)((k >> s0) & m0);
            row[d1] = (int64_t)((k >> s1) & m1);
        }
    } else {
        for (int64_t i = 0; i < m; i++) {
            uint64_t k = keys[i];
            int64_t *row = ix + i * r;
            for (int64_t j = 0; j < r; j++) row[pk->ord[j]] = (int64_t)((k >> pk->shift[j]) & pk->mask[j]);
        }
    }
}

/* decode_span over all n keys, in parallel blocks. */
static void decode_keys(const packing *pk, const uint64_t *keys, int64_t *ix, int64_t n) {
    const int64_t B = 65536, nblk = (n + B - 1) / B;
    int nth SPT__OMP_VAR = spt__threads_for(n * pk->r);
#pragma omp parallel for schedule(static) num_threads(nth)
    for (int64_t b = 0; b < nblk; b++) {
        int64_t lo = b * B, m = lo + B < n ? B : n - lo;
        decode_span(pk, keys + lo, ix + lo * pk->r, m);
    }
}

/* Reorder through packed keys. Everything is allocated before the first write to the tensor; after
 * that nothing can fail.
 * Large inputs (hybrid): one read of the indices checks them and counts the top digit; one MSD scatter
 * packs the keys again from the indices into (key, payload) pairs by top digit (about 4k entries per
 * bucket); then each bucket is sorted by the remaining bits in a per-thread scratch that stays in
 * cache (LSD), decoded into the indices and its payload stored -- so the output is written once.
 * Extra memory: 2 x 8 bytes per entry (+ 8 more only when some bucket is too large for the scratch).
 * Small inputs or keys: keys array and LSD passes over it (3 x 8 bytes per entry).
 * The payload is the values themselves when they are 8 bytes wide (else the permutation, and the
 * values are gathered at the end). Both ways are stable.
 * Out of place (dst != t: a fresh owned tensor of t's dtype, shape and nnz, never strings): t is only
 * read, and the sorted entries are written straight into dst -- t is never copied first. */
spt_status spt__reorder_packed(const char *fn, const spt_tensor *t, spt_tensor *dst, const packing *pk,
                                 bool *unique_out) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, r = pk->r;
    const size_t es = spt_dtype_size(t->dtype);
    const bool direct = es == 8;
    radix_plan rp;
    rp.n = n;
    int lg = 63 - __builtin_clzll((uint64_t)n); /* floor(log2 n), n >= 2 */
    const bool hybrid = n >= 65536 && pk->bits > 16;
    if (hybrid) {
        int msd = lg - 12;
        if (msd > FAST_MAX_DIGIT) msd = FAST_MAX_DIGIT;
        if (msd < 4) msd = 4;
        if (msd > pk->bits - 1) msd = pk->bits - 1;
        rp.passes = 1;
        rp.digit = msd;
        rp.shift0 = pk->bits - msd;
    } else {
        rp.passes = (pk->bits + FAST_MAX_DIGIT - 1) / FAST_MAX_DIGIT;
        if (rp.passes < 1) rp.passes = 1;
        rp.digit = (pk->bits + rp.passes - 1) / rp.passes;
        if (rp.digit < 1) rp.digit = 1;
        rp.shift0 = 0;
    }
    int nth = spt_get_num_threads();
    const int64_t nthr = nth < 1 ? 1 : nth;
    rp.chunks = nthr > FAST_MAX_CHUNKS ? FAST_MAX_CHUNKS : nthr;
    if (rp.chunks > n) rp.chunks = n;
    rp.chunk = (n + rp.chunks - 1) / rp.chunks;
    const int64_t nb = (int64_t)1 << rp.digit;
    /* counters: per-chunk digit histograms, bucket bounds (nb + 1), per-thread bucket-sort counters */
    const int64_t bucket_scratch = (int64_t)BUCKET_MAX_PASSES << BUCKET_MAX_DIGIT;
    int64_t ncount = (int64_t)rp.passes * rp.chunks * nb + nb + 1 + nthr * bucket_scratch;
    const int64_t scap = hybrid ? 4 * (n >> rp.digit) + 1024 : 0; /* per-thread scratch entries */
    uint64_t *keys = NULL, *tk = NULL, *tp = NULL, *perm = NULL, *ts = NULL, *wc = NULL;
    void *newvals = NULL;
    bool sorted = false, unique = false;
    int64_t *hist = spt__alloc_array(fn, ncount, 1, sizeof(int64_t), true, &st);
    if (!hist) goto fail;
    if (!hybrid) {
        keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
        if (!keys) goto fail;
        spt__hint_huge(keys, (size_t)n * sizeof *keys);
    }
    SPT__CHECK(packed_keys(fn, t, pk, &rp, keys, hist, &sorted, &unique));
    if (sorted) {
        *unique_out = unique;
        if (dst != t) { /* nothing to move: the copy */
            memcpy(dst->indices, t->indices, (size_t)n * (size_t)r * sizeof(int64_t));
            memcpy(dst->values, t->values, (size_t)n * es);
        }
        goto fail; /* st == SPT_OK */
    }
    int64_t *bounds = hist + (int64_t)rp.passes * rp.chunks * nb, *bscratch = bounds + nb + 1;
    int64_t maxb = 0;
    if (hybrid) { /* bucket bounds from the top-digit histogram, before the scatter turns it into offsets */
        int64_t sum = 0;
        for (int64_t b = 0; b < nb; b++) {
            bounds[b] = sum;
            for (int64_t c = 0; c < rp.chunks; c++) sum += hist[c * nb + b];
            if (sum - bounds[b] > maxb) maxb = sum - bounds[b];
        }
        bounds[nb] = sum;
    }
    tk = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    tp = tk ? spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st) : NULL;
    if (!tp) goto fail;
    spt__hint_huge(tk, (size_t)n * sizeof *tk);
    spt__hint_huge(tp, (size_t)n * sizeof *tp);
    if (hybrid) {
        ts = spt__alloc_array(fn, nthr * 2, scap, sizeof(uint64_t), false, &st);
        wc = ts ? spt__alloc_array(fn, rp.chunks * nb, 2 * WC_N, sizeof(uint64_t), false, &st) : NULL;
        if (!wc) goto fail;
        if (maxb > scap) { /* skewed keys: the large buckets sort through a full-size key scratch */
            keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
            if (!keys) goto fail;
        }
    }
    if (!direct) {
        perm = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
        if (!perm) goto fail;
        if (dst == t) { /* out of place, the values are gathered straight into dst's */
            newvals = spt__alloc_array(fn, n, 1, es, false, &st);
            if (!newvals) goto fail;
        }
        for (int64_t i = 0; i < n; i++) perm[i] = (uint64_t)i;
    }
    /* from here on nothing fails. The payload is read from pay_in and its sorted order ends in pay
     * (the same array in place; dst's values out of place) */
    uint64_t *pay = direct ? (uint64_t *)dst->values : perm;
    const uint64_t *pay_in = direct ? (const uint64_t *)t->values : perm;
    int64_t repeated = 0;
    uint64_t *sp = pay;
    if (hybrid) {
        msd_from_indices(&rp, pk, t->indices, pay_in, hist, tk, tp, wc);
        /* each bucket: sort in cache, decode its keys into the indices, store its payload in `pay`
         * (free since the scatter) -- the output is written once */
        const int rem = rp.shift0;
        int nthb SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(dynamic, 8) num_threads(nthb) reduction(+ : repeated)
        for (int64_t b = 0; b < nb; b++) {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            int64_t lo = bounds[b], m = bounds[b + 1] - lo;
            if (m == 0) continue;
            const bool own = m <= scap;
            uint64_t *xk = own ? ts + (int64_t)tid * 2 * scap : keys + lo, *xp = own ? xk + scap : pay + lo;
            int where = spt__bucket_sort(tk + lo, tp + lo, xk, xp, m, rem, bscratch + (int64_t)tid * bucket_scratch);
            const uint64_t *fk = where ? xk : tk + lo, *fp = where ? xp : tp + lo;
            if (fp != pay + lo) memcpy(pay + lo, fp, (size_t)m * sizeof *fp);
            decode_span(pk, fk, dst->indices + lo * r, m);
            for (int64_t i = 1; i < m; i++) repeated += fk[i - 1] == fk[i];
        }
        /* keys of different buckets differ in the top digit: no repeat across buckets */
    } else {
        if (pay != pay_in) memcpy(pay, pay_in, (size_t)n * sizeof *pay); /* the LSD passes sort it in place */
        int in_scratch = lsd_passes(&rp, hist, keys, pay, tk, tp);
        const uint64_t *sk = in_scratch ? tk : keys;
        sp = in_scratch ? tp : pay;
        int nth2 SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(static) num_threads(nth2) reduction(+ : repeated)
        for (int64_t i = 1; i < n; i++) repeated += sk[i - 1] == sk[i];
        decode_keys(pk, sk, dst->indices, n);
    }
    if (direct) {
        if (sp != pay) {
            if (dst->owns_buffers) {
                spt__free(dst->values);
                dst->values = sp;
                tp = NULL; /* sp == tp */
            } else {
                memcpy(dst->values, sp, (size_t)n * es);
            }
        }
    } else if (dst != t) {
        spt__gather(dst->values, t->values, es, (const int64_t *)sp, n);
    } else { /* in place: dst is t */
        spt__gather(newvals, t->values, es, (const int64_t *)sp, n);
        if (dst->owns_buffers) {
            spt__free(dst->values);
            dst->values = newvals;
            newvals = NULL;
        } else {
            memcpy(dst->values, newvals, (size_t)n * es);
        }
    }
    *unique_out = repeated == 0;
fail:
    spt__free(wc);
    spt__free(ts);
    spt__free(newvals);
    spt__free(perm);
    spt__free(tp);
    spt__free(tk);
    spt__free(hist);
    spt__free(keys);
    return st;
}
