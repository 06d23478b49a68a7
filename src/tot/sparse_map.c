/* SPDX-License-Identifier: Apache-2.0 */
/* sparse_map.c -- spt_sparse_map: independent index -> domain of dependent indices, stored CSR-like
 * (sorted keys, offsets, one block of dependent indices, one block of per-mode distinct values). */
#include "tot_internal.h"

#include <stdlib.h>

/* The entries being sorted: pairs (key, dep) first, then the extra keys (no dep). */
typedef struct entries {
    int64_t NI, D, npairs;
    const int64_t *ind, *dep, *extra;
} entries;

/* Row i of a block of rows of width w (no pointer arithmetic on a NULL block of width 0). */
static inline const int64_t *row_of(const int64_t *base, int64_t i, int64_t w) { return w ? base + i * w : base; }

static const int64_t *entry_key(const entries *e, int64_t i) {
    return i < e->npairs ? row_of(e->ind, i, e->NI) : row_of(e->extra, i - e->npairs, e->NI);
}

/* key, then "extra key" before "pair", then dep. */
static int entry_cmp(const entries *e, int64_t a, int64_t b) {
    int c = spt__tot_cmp(entry_key(e, a), entry_key(e, b), e->NI);
    if (c) return c;
    bool pa = a < e->npairs, pb = b < e->npairs;
    if (pa != pb) return pa ? 1 : -1;
    if (!pa) return 0;
    return spt__tot_cmp(row_of(e->dep, a, e->D), row_of(e->dep, b, e->D), e->D);
}

/* Stable bottom-up merge sort of perm[0..n) (scratch has n slots). */
static void merge_sort(const entries *e, int64_t *perm, int64_t *scratch, int64_t n) {
    int64_t *src = perm, *dst = scratch;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = entry_cmp(e, src[j], src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != perm) memcpy(perm, src, (size_t)n * sizeof *perm);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static spt_status check_rows(const char *fn, const char *what, const int64_t *rows, int64_t n, int64_t w) {
    for (int64_t i = 0; i < n && w > 0; i++)
        for (int64_t k = 0; k < w; k++)
            if (rows[i * w + k] < 0) {
                char buf[SPT__IDXBUF];
                spt__fmt_index(buf, sizeof buf, rows + i * w, w);
                return spt__err(SPT_EINVAL, "%s: %s[%lld] = %s has a negative component", fn, what, (long long)i, buf);
            }
    return SPT_OK;
}

void spt_sparse_map_free(spt_sparse_map *m) {
    if (!m) return;
    spt__free(m->keys);
    spt__free(m->off);
    spt__free(m->dep);
    spt__free(m->moff);
    spt__free(m->mvals);
    spt__free(m);
}

/* The arguments of spt__sparse_map_build (out already checked); *n the number of entries to sort. */
static spt_status build_args(const char *fn, int64_t NI, int64_t D, int64_t nextra, const int64_t *extra,
                             int64_t npairs, const int64_t *ind, const int64_t *dep, int64_t *n) {
    if (NI < 0 || NI > SPT_MAX_RANK || D < 0 || D > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: ind_rank %lld / dep_rank %lld outside [0, %d]", fn, (long long)NI,
                        (long long)D, SPT_MAX_RANK);
    if (npairs < 0 || nextra < 0)
        return spt__err(SPT_EINVAL, "%s: negative count (npairs %lld, nkeys %lld)", fn, (long long)npairs,
                        (long long)nextra);
    if ((npairs > 0 && NI > 0 && !ind) || (npairs > 0 && D > 0 && !dep) || (nextra > 0 && NI > 0 && !extra))
        return spt__err(SPT_EINVAL, "%s: an index array is NULL", fn);
    size_t bytes;
    if (spt__add_i64(npairs, nextra, n) || spt__bytes3(npairs, NI + D, sizeof(int64_t), &bytes) ||
        spt__bytes3(nextra, NI, sizeof(int64_t), &bytes))
        return spt__err(SPT_EOVERFLOW, "%s: %lld pairs do not fit in memory sizes", fn, (long long)npairs);
    SPT__TRY(check_rows(fn, "ind", ind, npairs, NI));
    SPT__TRY(check_rows(fn, "dep", dep, npairs, D));
    return check_rows(fn, "keys", extra, nextra, NI);
}

/* *perm: the n entries in entry_cmp's order (the identity when they already are). */
static spt_status sorted_perm(const char *fn, const entries *e, int64_t n, int64_t **perm) {
    spt_status st = SPT_OK;
    int64_t *p = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!p) return st;
    for (int64_t i = 0; i < n; i++) p[i] = i;
    bool sorted = true;
    for (int64_t i = 1; i < n && sorted; i++)
        if (entry_cmp(e, i - 1, i) > 0) sorted = false;
    if (!sorted) {
        int64_t *scratch = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!scratch) {
            spt__free(p);
            return st;
        }
        merge_sort(e, p, scratch, n);
        spt__free(scratch);
    }
    *perm = p;
    return SPT_OK;
}

/* Classify each sorted entry once: bit 0 of cls[i] starts a new key, bit 1 is a new (key, dep) pair;
 * the counts of keys and of pairs, and the largest domain. */
static void classify(const entries *e, const int64_t *perm, int64_t n, unsigned char *cls, int64_t *nkeys,
                     int64_t *ndep, int64_t *maxdom) {
    const int64_t NI = e->NI, D = e->D;
    int64_t cur = 0;
    *nkeys = *ndep = *maxdom = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t p = perm[i];
        bool newkey = i == 0 || spt__tot_cmp(entry_key(e, perm[i - 1]), entry_key(e, p), NI) != 0;
        bool newpair = p < e->npairs && (newkey || perm[i - 1] >= e->npairs ||
                                         spt__tot_cmp(row_of(e->dep, perm[i - 1], D), row_of(e->dep, p, D), D) != 0);
        cls[i] = (unsigned char)(newkey | newpair << 1);
        if (newkey) {
            (*nkeys)++;
            cur = 0;
        }
        if (newpair) {
            (*ndep)++;
            if (++cur > *maxdom) *maxdom = cur;
        }
    }
}

/* A new map of nkeys keys and ndep pairs, its arrays allocated (not filled). */
static spt_status map_alloc(const char *fn, int64_t NI, int64_t D, int64_t nkeys, int64_t ndep, spt_sparse_map **out) {
    spt_status st = SPT_OK;
    int64_t nmodes;
    if (spt__mul_i64(nkeys, D, &nmodes) || spt__add_i64(nmodes, 1, &nmodes))
        return spt__err(SPT_EOVERFLOW, "%s: %lld keys of dep_rank %lld overflow", fn, (long long)nkeys, (long long)D);
    spt_sparse_map *m = spt__calloc(1, sizeof *m);
    if (!m) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    m->ind_rank = NI;
    m->dep_rank = D;
    m->nkeys = nkeys;
    m->ndep = ndep;
    if (!(m->keys = spt__alloc_array(fn, nkeys, NI, sizeof(int64_t), false, &st))) goto fail;
    if (!(m->off = spt__alloc_array(fn, nkeys + 1, 1, sizeof(int64_t), false, &st))) goto fail;
    if (!(m->dep = spt__alloc_array(fn, ndep, D, sizeof(int64_t), false, &st))) goto fail;
    if (!(m->moff = spt__alloc_array(fn, nmodes, 1, sizeof(int64_t), false, &st))) goto fail;
    if (!(m->mvals = spt__alloc_array(fn, ndep, D, sizeof(int64_t), false, &st))) goto fail;
    *out = m;
    return SPT_OK;
fail:
    spt_sparse_map_free(m);
    return st;
}

/* The keys, offsets and dependent indices of m from the classified sorted entries. */
static void fill_pairs(spt_sparse_map *m, const entries *e, const int64_t *perm, const unsigned char *cls, int64_t n) {
    const int64_t NI = e->NI, D = e->D;
    int64_t k = -1, d = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t p = perm[i];
        if (cls[i] & 1) {
            k++;
            if (NI) memcpy(m->keys + k * NI, entry_key(e, p), (size_t)NI * sizeof(int64_t));
            m->off[k] = d;
        }
        if (cls[i] & 2) {
            if (D) memcpy(m->dep + d * D, e->dep + p * D, (size_t)D * sizeof(int64_t));
            d++;
        }
    }
    m->off[m->nkeys] = d;
}

/* Per key and mode: the sorted distinct values (scratch holds the largest domain). */
static void fill_mode_values(spt_sparse_map *m, int64_t *scratch) {
    const int64_t D = m->dep_rank, nkeys = m->nkeys;
    int64_t mv = 0;
    for (int64_t k = 0; k < nkeys; k++) {
        int64_t lo = m->off[k], cnt = m->off[k + 1] - lo;
        for (int64_t j = 0; j < D; j++) {
            m->moff[k * D + j] = mv;
            for (int64_t r = 0; r < cnt; r++) scratch[r] = m->dep[(lo + r) * D + j];
            if (j > 0) qsort(scratch, (size_t)cnt, sizeof *scratch, cmp_i64); /* mode 0 is already sorted */
            for (int64_t r = 0; r < cnt; r++)
                if (r == 0 || scratch[r] != scratch[r - 1]) m->mvals[mv++] = scratch[r];
        }
    }
    m->moff[nkeys * D] = mv;
    if (mv > 0 && mv < m->ndep * D) { /* give back what the distinct values did not need */
        int64_t *shrunk = spt__realloc(m->mvals, (size_t)mv * sizeof(int64_t));
        if (shrunk) m->mvals = shrunk;
    }
}

spt_status spt__sparse_map_build(const char *fn, int64_t NI, int64_t D, int64_t nextra, const int64_t *extra,
                                 int64_t npairs, const int64_t *ind, const int64_t *dep, spt_sparse_map **out) {
    spt_status st = SPT_OK;
    spt_sparse_map *m = NULL;
    int64_t *perm = NULL, *scratch = NULL;
    unsigned char *cls = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    int64_t n = 0;
    SPT__TRY(build_args(fn, NI, D, nextra, extra, npairs, ind, dep, &n));
    entries e = {NI, D, npairs, ind, dep, extra};
    SPT__CHECK(sorted_perm(fn, &e, n, &perm));
    if (!(cls = spt__alloc_array(fn, n, 1, 1, false, &st))) goto fail;
    int64_t nkeys, ndep, maxdom;
    classify(&e, perm, n, cls, &nkeys, &ndep, &maxdom);
    SPT__CHECK(map_alloc(fn, NI, D, nkeys, ndep, &m));
    if (!(scratch = spt__alloc_array(fn, maxdom, 1, sizeof(int64_t), false, &st))) goto fail;
    fill_pairs(m, &e, perm, cls, n);
    fill_mode_values(m, scratch);
    spt__free(cls);
    spt__free(scratch);
    spt__free(perm);
    *out = m;
    return SPT_OK;
fail:
    spt__free(cls);
    spt__free(scratch);
    spt__free(perm);
    spt_sparse_map_free(m);
    return st;
}

spt_status spt_sparse_map_new(int64_t ind_rank, int64_t dep_rank, int64_t npairs, const int64_t *ind,
                              const int64_t *dep, spt_sparse_map **out) {
    return spt__sparse_map_build("spt_sparse_map_new", ind_rank, dep_rank, 0, NULL, npairs, ind, dep, out);
}

spt_status spt_sparse_map_new_with_keys(int64_t ind_rank, int64_t dep_rank, int64_t nkeys, const int64_t *keys,
                                        int64_t npairs, const int64_t *ind, const int64_t *dep, spt_sparse_map **out) {
    return spt__sparse_map_build("spt_sparse_map_new_with_keys", ind_rank, dep_rank, nkeys, keys, npairs, ind, dep,
                                 out);
}

int64_t spt_sparse_map_ind_rank(const spt_sparse_map *m) { return m ? m->ind_rank : 0; }
int64_t spt_sparse_map_dep_rank(const spt_sparse_map *m) { return m ? m->dep_rank : 0; }
int64_t spt_sparse_map_nkeys(const spt_sparse_map *m) { return m ? m->nkeys : 0; }
int64_t spt_sparse_map_size(const spt_sparse_map *m) { return m ? m->ndep : 0; }

const int64_t *spt_sparse_map_key(const spt_sparse_map *m, int64_t i) {
    if (!m || i < 0 || i >= m->nkeys) return NULL;
    return m->keys + i * m->ind_rank;
}

const int64_t *spt_sparse_map_deps(const spt_sparse_map *m, int64_t i, int64_t *count) {
    if (count) *count = 0;
    if (!m || i < 0 || i >= m->nkeys) return NULL;
    if (count) *count = m->off[i + 1] - m->off[i];
    return m->dep + m->off[i] * m->dep_rank;
}

bool spt_sparse_map_find(const spt_sparse_map *m, const int64_t *key, int64_t *i) {
    if (i) *i = -1;
    if (!m || (!key && m->ind_rank > 0)) return false;
    const int64_t NI = m->ind_rank, lo = spt__tot_lower_bound(m->keys, 0, m->nkeys, NI, key);
    if (lo < m->nkeys && spt__tot_cmp(m->keys + lo * NI, key, NI) == 0) {
        if (i) *i = lo;
        return true;
    }
    return false;
}

bool spt_sparse_map_contains(const spt_sparse_map *m, const int64_t *key, const int64_t *dep) {
    int64_t i;
    if (!spt_sparse_map_find(m, key, &i)) return false;
    if (!dep && m->dep_rank > 0) return false;
    const int64_t D = m->dep_rank, lo = spt__tot_lower_bound(m->dep, m->off[i], m->off[i + 1], D, dep);
    return lo < m->off[i + 1] && spt__tot_cmp(m->dep + lo * D, dep, D) == 0;
}
