/* SPDX-License-Identifier: Apache-2.0 */
/* keys.c -- the key engine: key plans, sorting by any number of key bits, dense ranks (see keys.h). */
#include "sort/keys.h"

void spt__keyplan_init(spt__keyplan *kp, const int64_t *shape, const int64_t *dims, int64_t nd) {
    kp->nd = nd;
    kp->bits = 0;
    kp->empty = false;
    for (int64_t k = 0; k < nd; k++) {
        int64_t d = dims ? dims[k] : k, s = shape[d];
        kp->dims[k] = d;
        kp->size[k] = s;
        kp->width[k] = s > 1 ? 64 - __builtin_clzll((uint64_t)(s - 1)) : 0;
        kp->top[k] = kp->bits;
        kp->bits += kp->width[k];
        if (s == 0) kp->empty = true;
    }
    /* the mixed-radix volume, exact while it is at most 2^64 (each dim < 2^63: no 128-bit overflow) */
    const unsigned __int128 lim = (unsigned __int128)1 << 64;
    unsigned __int128 vol = 1;
    for (int64_t k = 0; k < nd && vol <= lim; k++) vol *= (uint64_t)kp->size[k];
    if (kp->empty) {
        kp->kind = SPT__KEY64;
        kp->max_key = 0;
    } else if (vol <= lim) {
        kp->kind = SPT__KEY64;
        kp->max_key = (uint64_t)(vol - 1);
    } else {
        kp->kind = kp->bits <= 128 ? SPT__KEY128 : SPT__KEYWIDE;
        kp->max_key = UINT64_MAX;
    }
}

/* ---- chunks of the packed key ---------------------------------------------------------------- */

/* Bits [p, p + c) of the packed key (counted from its top, c <= 64) as a number: one (column, shift,
 * mask) segment per component that overlaps them. */
typedef struct chunkplan {
    int nseg;
    int64_t col[SPT_MAX_RANK];
    int rsh[SPT_MAX_RANK], lsh[SPT_MAX_RANK];
    uint64_t mask[SPT_MAX_RANK];
} chunkplan;

static void chunk_plan(const spt__keyplan *kp, int p, int c, chunkplan *cp) {
    cp->nseg = 0;
    for (int64_t k = 0; k < kp->nd; k++) {
        int w = kp->width[k];
        if (!w) continue;
        int a = kp->top[k] > p ? kp->top[k] : p, b = kp->top[k] + w < p + c ? kp->top[k] + w : p + c;
        if (a >= b) continue;
        int s = cp->nseg++;
        cp->col[s] = kp->dims[k];
        cp->rsh[s] = kp->top[k] + w - b;
        cp->mask[s] = b - a == 64 ? ~0ull : (1ull << (b - a)) - 1;
        cp->lsh[s] = p + c - b;
    }
}

static inline uint64_t chunk_key(const chunkplan *cp, const int64_t *row) {
    uint64_t v = 0;
    for (int s = 0; s < cp->nseg; s++) v |= (((uint64_t)row[cp->col[s]] >> cp->rsh[s]) & cp->mask[s]) << cp->lsh[s];
    return v;
}

static uint64_t chunk_max(int c) { return c >= 64 ? ~0ull : (1ull << c) - 1; }

/* ---- the sort past 64 bits ------------------------------------------------------------------- */

/* Stable insertion sort of the row numbers p[0, m) by the rows. */
static void insertion_rows(const spt__keyplan *kp, const int64_t *ix, int64_t stride, int64_t *p, int64_t m) {
    for (int64_t i = 1; i < m; i++) {
        int64_t x = p[i], j = i;
        const int64_t *rx = ix + x * stride;
        while (j > 0 && spt__keyplan_cmp(kp, ix + p[j - 1] * stride, rx) > 0) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

#define TIE_SMALL 32

static spt_status sort_runs(const char *fn, const spt__keyplan *kp, const int64_t *ix, int64_t stride, int64_t *p,
                            const uint64_t *k, int64_t m, int next);

/* Order p[0, m) (rows equal in the key bits above `pos`) by the key bits from `pos` on. */
static spt_status tie_sort(const char *fn, const spt__keyplan *kp, const int64_t *ix, int64_t stride, int64_t *p,
                           int64_t m, int pos) {
    if (m < 2 || pos >= kp->bits) return SPT_OK;
    if (m <= TIE_SMALL) {
        insertion_rows(kp, ix, stride, p, m);
        return SPT_OK;
    }
    spt_status st = SPT_OK;
    int c = kp->bits - pos < 64 ? kp->bits - pos : 64;
    chunkplan cp;
    chunk_plan(kp, pos, c, &cp);
    uint64_t *k = spt__alloc_array(fn, m, 1, sizeof *k, false, &st);
    int64_t *q = k ? spt__alloc_array(fn, m, 2, sizeof *q, false, &st) : NULL;
    if (!q) goto done;
    for (int64_t i = 0; i < m; i++) k[i] = chunk_key(&cp, ix + p[i] * stride);
    SPT__CHECK(spt__radix_sort(fn, k, q, m, chunk_max(c)));
    int64_t *np = q + m;
    for (int64_t i = 0; i < m; i++) np[i] = p[q[i]];
    memcpy(p, np, (size_t)m * sizeof *p);
    st = sort_runs(fn, kp, ix, stride, p, k, m, pos + c);
fail:
done:
    spt__free(q);
    spt__free(k);
    return st;
}

/* p[0, m) is sorted by the chunk keys k; order each run of equal keys by the bits from `next` on. */
static spt_status sort_runs(const char *fn, const spt__keyplan *kp, const int64_t *ix, int64_t stride, int64_t *p,
                            const uint64_t *k, int64_t m, int next) {
    if (next >= kp->bits) return SPT_OK;
    for (int64_t i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && k[j] == k[i];) j++;
        if (j - i > 1) SPT__TRY(tie_sort(fn, kp, ix, stride, p + i, j - i, next));
    }
    return SPT_OK;
}

/* Dense ranks (ranks != NULL) and uniqueness of rows sorted by perm, from the sorted top-chunk keys k
 * (rows with different top chunks differ; within a run of equal chunks the rows are compared, unless
 * the chunk is the whole key). */
static bool ranks_from_chunks(const spt__keyplan *kp, const int64_t *ix, int64_t stride, const int64_t *perm,
                              const uint64_t *k, int64_t n, bool whole, uint64_t *ranks) {
    int64_t repeated = 0;
    int nth SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(static) num_threads(nth) reduction(+ : repeated)
    for (int64_t i = 1; i < n; i++) {
        bool differ = k[i] != k[i - 1] ||
                      (!whole && spt__keyplan_cmp(kp, ix + perm[i - 1] * stride, ix + perm[i] * stride) != 0);
        repeated += !differ;
        if (ranks) ranks[i] = differ;
    }
    if (ranks && n > 0) {
        ranks[0] = 0;
        for (int64_t i = 1; i < n; i++) ranks[i] += ranks[i - 1];
    }
    return repeated == 0;
}

/* spt__key_sort_rows; when `check` is given (the tensor whose indices ix are), the plan's columns are
 * checked against the plan's dims in the same read of the rows that builds the keys (SPT_ERANGE). */
static spt_status sort_rows(const char *fn, const spt__keyplan *kp, const int64_t *ix, int64_t stride, int64_t n,
                            int64_t *perm, bool *sorted, uint64_t *ranks, bool *unique, const spt_tensor *check) {
    spt_status st = SPT_OK;
    /* the top chunk: the whole key when it fits in 64 bits (SPT__KEY64 plans: the linear key); else
     * enough bits to separate random entries (lg n + 12, in whole 11-bit digits), at most 64, the runs
     * it leaves ordered by the next bits */
    int c = 64;
    chunkplan cp;
    uint64_t maxk;
    if (kp->kind == SPT__KEY64) {
        maxk = kp->max_key;
    } else {
        int lg = n > 1 ? 64 - __builtin_clzll((uint64_t)(n - 1)) : 1;
        c = ((lg + 12 + 10) / 11) * 11;
        if (c > 64) c = 64;
        if (c > kp->bits) c = kp->bits;
        chunk_plan(kp, 0, c, &cp);
        maxk = chunk_max(c);
    }
    const bool whole = kp->kind == SPT__KEY64 || c >= kp->bits;
    uint64_t *k = spt__alloc_array(fn, n, 1, sizeof *k, false, &st);
    if (!k) return st;
    /* one read of the rows: the keys (and the bounds check) */
    int nth SPT__OMP_VAR = spt__threads_for(n * (kp->nd ? kp->nd : 1));
    int64_t first = INT64_MAX;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(min : first)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * stride;
        if (check)
            for (int64_t j = 0; j < kp->nd; j++)
                if ((uint64_t)row[kp->dims[j]] >= (uint64_t)kp->size[j]) {
                    if (i < first) first = i;
                    break;
                }
        k[i] = kp->kind == SPT__KEY64 ? spt__keyplan_linear(kp, row) : chunk_key(&cp, row);
    }
    if (first != INT64_MAX) {
        st = spt__oob_error(fn, check, first, check->shape);
        goto fail;
    }
    /* already in order? from the keys; rows compared only where the top chunks tie */
    int64_t unsorted = 0, repeated = 0;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(+ : unsorted, repeated)
    for (int64_t i = 1; i < n; i++) {
        int cmp = k[i - 1] < k[i]   ? -1
                  : k[i - 1] > k[i] ? 1
                  : whole           ? 0
                                    : spt__keyplan_cmp(kp, ix + (i - 1) * stride, ix + i * stride);
        unsorted += cmp > 0;
        repeated += cmp == 0;
        if (ranks) ranks[i] = cmp != 0;
    }
    *sorted = unsorted == 0;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    if (*sorted) {
        *unique = repeated == 0;
        if (ranks && n > 0) {
            ranks[0] = 0;
            for (int64_t i = 1; i < n; i++) ranks[i] += ranks[i - 1];
        }
        goto fail; /* st == SPT_OK */
    }
    if (kp->kind == SPT__KEY64) {
        SPT__CHECK(spt__radix_sort(fn, k, perm, n, maxk));
    } else {
        SPT__CHECK(spt__sort_pairs(fn, k, (uint64_t *)perm, n, c));
    }
    if (!whole) SPT__CHECK(sort_runs(fn, kp, ix, stride, perm, k, n, c));
    *unique = ranks_from_chunks(kp, ix, stride, perm, k, n, whole, ranks);
fail:
    spt__free(k);
    return st;
}

spt_status spt__key_sort_rows(const char *fn, const spt__keyplan *kp, const int64_t *ix, int64_t stride, int64_t n,
                              int64_t *perm, bool *sorted, uint64_t *ranks, bool *unique) {
    return sort_rows(fn, kp, ix, stride, n, perm, sorted, ranks, unique, NULL);
}

/* ---- entry points ------------------------------------------------------------------------------ */

/* The plan's columns of every entry of t inside the shape (unless t is known valid). */
static spt_status check_columns(const char *fn, const spt_tensor *t, const spt__keyplan *kp) {
    if (t->flags & SPT__F_VALID) return SPT_OK;
    const int64_t r = t->rank, n = t->nnz, *ix = t->indices;
    int64_t first = INT64_MAX;
    int nth SPT__OMP_VAR = spt__threads_for(n * (kp->nd ? kp->nd : 1));
#pragma omp parallel for schedule(static) num_threads(nth) reduction(min : first)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * r;
        for (int64_t k = 0; k < kp->nd; k++)
            if ((uint64_t)row[kp->dims[k]] >= (uint64_t)kp->size[k]) {
                if (i < first) first = i;
                break;
            }
    }
    if (first != INT64_MAX) return spt__oob_error(fn, t, first, t->shape);
    if (kp->nd == r) spt__note_valid(t); /* the plan's dims are distinct: every column was checked */
    return SPT_OK;
}

spt_status spt__key_sort(const char *fn, const spt_tensor *t, const spt__keyplan *kp, uint64_t *keys, int64_t **perm,
                         bool *unique, bool *ordinal) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, r = t->rank, *ix = t->indices;
    *perm = NULL;
    *ordinal = kp->kind != SPT__KEY64;
    int64_t *p = NULL;
    uint64_t *k = keys;
    if (kp->kind == SPT__KEY64) {
        if (!k) {
            k = spt__alloc_array(fn, n, 1, sizeof *k, false, &st);
            if (!k) return st;
        }
        int64_t unsorted = 0, repeated = 0;
        int nth SPT__OMP_VAR = spt__threads_for(n * (kp->nd ? kp->nd : 1));
        if (t->flags & SPT__F_VALID) {
#pragma omp parallel for schedule(static) num_threads(nth)
            for (int64_t i = 0; i < n; i++) k[i] = spt__keyplan_linear(kp, ix + i * r);
        } else { /* keys and the bounds check in one read of the indices */
            int64_t first = INT64_MAX;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(min : first)
            for (int64_t i = 0; i < n; i++) {
                const int64_t *row = ix + i * r;
                uint64_t key = 0;
                for (int64_t c = 0; c < kp->nd; c++) {
                    int64_t d = kp->dims[c];
                    if ((uint64_t)row[d] >= (uint64_t)kp->size[c]) {
                        if (i < first) first = i;
                        break;
                    }
                    key = key * (uint64_t)kp->size[c] + (uint64_t)row[d];
                }
                k[i] = key;
            }
            if (first != INT64_MAX) {
                st = spt__oob_error(fn, t, first, t->shape);
                goto fail;
            }
            if (kp->nd == r) spt__note_valid(t);
        }
#pragma omp parallel for schedule(static) num_threads(nth) reduction(+ : unsorted, repeated)
        for (int64_t i = 1; i < n; i++) {
            unsorted += k[i - 1] > k[i];
            repeated += k[i - 1] == k[i];
        }
        if (unsorted) {
            p = spt__alloc_array(fn, n, 1, sizeof *p, false, &st);
            if (!p) goto fail;
            SPT__CHECK(spt__radix_sort(fn, k, p, n, kp->max_key));
            repeated = 0;
            for (int64_t i = 1; i < n && !repeated; i++) repeated = k[i - 1] == k[i];
        }
        *unique = repeated == 0;
    } else {
        p = spt__alloc_array(fn, n, 1, sizeof *p, false, &st);
        if (!p) goto fail;
        bool sorted;
        const bool check = !(t->flags & SPT__F_VALID);
        SPT__CHECK(sort_rows(fn, kp, ix, r, n, p, &sorted, k, unique, check ? t : NULL));
        if (check && kp->nd == r) spt__note_valid(t);
        if (sorted) {
            spt__free(p);
            p = NULL;
        }
    }
    *perm = p;
    p = NULL;
fail:
    spt__free(p);
    if (k != keys) spt__free(k);
    return st;
}

spt_status spt__key_sort_joint(const char *fn, const spt_tensor *const *ts, int64_t m, const spt__keyplan *kp,
                               uint64_t **keys, int64_t **perm, bool *unique, bool *ordinal) {
    spt_status st = SPT_OK;
    int64_t *rows = NULL, *p = NULL, *cnt = NULL;
    uint64_t *rk = NULL;
    for (int64_t i = 0; i < m; i++) perm[i] = NULL;
    *ordinal = kp->kind != SPT__KEY64;
    if (kp->kind == SPT__KEY64) {
        for (int64_t i = 0; i < m; i++) {
            bool o;
            SPT__CHECK(spt__key_sort(fn, ts[i], kp, keys[i], &perm[i], &unique[i], &o));
        }
        return SPT_OK;
    }
    /* past 64 bits: the union's rows (plan columns only) in one buffer, sorted once, ranked once */
    int64_t total = 0, nd = kp->nd;
    for (int64_t i = 0; i < m; i++) {
        SPT__CHECK(check_columns(fn, ts[i], kp));
        if (spt__add_i64(total, ts[i]->nnz, &total)) {
            st = spt__err(SPT_EOVERFLOW, "%s: the total number of entries overflows int64", fn);
            goto fail;
        }
    }
    spt__keyplan cp = *kp; /* the same plan over the packed columns 0..nd-1 */
    for (int64_t k = 0; k < nd; k++) cp.dims[k] = k;
    rows = spt__alloc_array(fn, total, nd ? nd : 1, sizeof(int64_t), false, &st);
    p = rows ? spt__alloc_array(fn, total, 1, sizeof(int64_t), false, &st) : NULL;
    rk = p ? spt__alloc_array(fn, total, 1, sizeof(uint64_t), false, &st) : NULL;
    cnt = rk ? spt__alloc_array(fn, m, 1, sizeof(int64_t), true, &st) : NULL;
    if (!cnt) goto fail;
    for (int64_t i = 0, base = 0; i < m; base += ts[i]->nnz, i++) {
        const int64_t r = ts[i]->rank, *ix = ts[i]->indices;
        for (int64_t e = 0; e < ts[i]->nnz; e++)
            for (int64_t k = 0; k < nd; k++) rows[(base + e) * nd + k] = ix[e * r + kp->dims[k]];
    }
    bool sorted, all_unique;
    SPT__CHECK(spt__key_sort_rows(fn, &cp, rows, nd, total, p, &sorted, rk, &all_unique));
    for (int64_t i = 0; i < m; i++) {
        if (ts[i]->nnz == 0) continue;
        perm[i] = spt__alloc_array(fn, ts[i]->nnz, 1, sizeof(int64_t), false, &st);
        if (!perm[i]) goto fail;
        unique[i] = true;
    }
    /* split the sorted union back into its inputs, in order (stable: an input's own order is kept) */
    for (int64_t k = 0; k < total; k++) {
        int64_t e = p[k], i = 0, base = 0;
        while (e >= base + ts[i]->nnz) base += ts[i++]->nnz;
        int64_t w = cnt[i]++;
        if (w > 0 && keys[i][w - 1] == rk[k]) unique[i] = false;
        keys[i][w] = rk[k];
        perm[i][w] = e - base;
    }
    for (int64_t i = 0; i < m; i++)
        if (ts[i]->nnz == 0) unique[i] = true;
fail:
    if (st != SPT_OK)
        for (int64_t i = 0; i < m; i++) {
            spt__free(perm[i]);
            perm[i] = NULL;
        }
    spt__free(cnt);
    spt__free(rk);
    spt__free(p);
    spt__free(rows);
    return st;
}
