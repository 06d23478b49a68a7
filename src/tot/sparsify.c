/* SPDX-License-Identifier: Apache-2.0 */
/* sparsify.c -- build a tensor-of-tensors from a tensor T (dense or sparse) and a sparse map:
 *   tot[o] = EMPTY if o has no (non-empty) domain, else the dense grid A of shape result_extents(sm[o])
 *   with A[result_index(x)] = T[inject(x, {ind2mode[k]: o[k]})] for every x in sm[o], zeros elsewhere.
 * The outer index space is processed in blocks of consecutive outer elements; each block is built
 * independently (in parallel with OpenMP), every inner tensor by exactly one thread, so the result does
 * not depend on the number of threads. */
#include "tot_internal.h"
#include "sort/keys.h"

/* Dependent indices per block of outer elements (a fixed rule, independent of the thread count). */
#define BLOCK_WORK 8192

/* Where the elements of T come from. A sparse T is searched in the order its entries are sorted by (a
 * key plan of the key engine, keys.h): its own storage when it is known sorted (by any full order), else
 * a row-major sort of its entries (the sorting permutation). When the plan's volume is at most 2^64
 * (SPT__KEY64) an entry is searched for by its linear key in that order (exact in uint64 arithmetic);
 * past that, by its index row, compared component by component in the plan's order (no key). */
typedef struct source {
    size_t es;
    const char *dense; /* dense T: row-major data; NULL for sparse T */
    int64_t nnz, R;
    bool rows;                      /* past 64 bits: entries compared as index rows (keys unused) */
    const uint64_t *keys;           /* sorted keys, or NULL: computed from the indices of T (known sorted) */
    const int64_t *ix;              /* T's indices */
    const int64_t *perm;            /* entry at sorted position p (NULL = identity) */
    const char *vals;               /* T's values */
    uint64_t ostride[SPT_MAX_RANK]; /* key = sum of y[m] * ostride[m] (mod 2^64: exact, every key < 2^64) */
    int64_t d0;                     /* the most significant mode of the order */
    bool monotone;                  /* the order is row-major: the targets of one key increase */
    bool unique;                    /* no two entries share an index */
    const int64_t *slice;           /* optional: entries with y[d0] == r are [slice[r], slice[r+1]) */
    uint64_t sstride;               /* keys of slice r lie in [r*sstride, (r+1)*sstride) */
    double span;                    /* the number of keys (max_key + 1) */
    spt__keyplan kp;                /* the order searched in */
} source;

/* What is searched for: a linear key, or (rows) an index row of T. */
typedef struct target {
    uint64_t key;
    const int64_t *row;
} target;

/* The fixed geometry of one call. */
typedef struct geometry {
    int64_t R, NI, D;
    const int64_t *S;             /* shape of T */
    int64_t stride[SPT_MAX_RANK]; /* row-major strides of T (0 when T has no element) */
    int64_t fm[SPT_MAX_RANK];     /* the D non-injected modes of T, increasing */
    int64_t pin[SPT_MAX_RANK];    /* T mode of independent mode k, or -1 */
} geometry;

static inline void copy_elem(char *dst, const char *src, size_t es) {
    switch (es) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, es); break;
    }
}

static inline uint64_t key_at(const source *s, int64_t p) {
    if (s->keys) return s->keys[p];
    const int64_t *row = s->ix + p * s->R;
    uint64_t k = 0;
    for (int64_t m = 0; m < s->R; m++) k += (uint64_t)row[m] * s->ostride[m];
    return k;
}

/* The search functions take `rows` (== s->rows) as a parameter; the ones on the hot path are always
 * inlined, so that fill_body is compiled once per mode and the 64-bit path carries no test of the mode.
 * The galloping searches (called only when the interpolated guess misses) stay out of line. */
#define SEARCH static inline __attribute__((always_inline))

/* The sign of (entry at sorted position p) - target. */
SEARCH int probe(const source *s, int64_t p, target t, bool rows) {
    if (rows) return spt__keyplan_cmp(&s->kp, s->ix + (s->perm ? s->perm[p] : p) * s->R, t.row);
    uint64_t k = key_at(s, p);
    return (k > t.key) - (k < t.key);
}
SEARCH bool below(const source *s, int64_t p, target t, bool rows) { return probe(s, p, t, rows) < 0; }

typedef struct {
    const source *s;
    target t;
    bool rows;
} gallop_target;
static bool gallop_below(const void *ctx, int64_t p) {
    const gallop_target *g = ctx;
    return below(g->s, p, g->t, g->rows);
}
/* First position p in [from, n) with key >= target (n if none), galloping from `from`. */
static __attribute__((noinline)) int64_t gallop(const source *s, int64_t n, int64_t from, target t, bool rows) {
    if (from >= n || !below(s, from, t, rows)) return from;
    int64_t lo = from, hi, step = 1; /* invariant: key(lo) < target */
    for (;;) {
        hi = lo + step;
        if (hi >= n) {
            hi = n;
            break;
        }
        if (!below(s, hi, t, rows)) break;
        lo = hi;
        step *= 2;
    }
    /* key(lo) < target <= key(hi) (or hi == n) */
    const gallop_target g = {s, t, rows};
    return spt__lower_bound(lo + 1, hi, gallop_below, &g);
}

/* First position p in [lo, hi) with key >= target (hi if none), searching outwards from the guess g
 * (a good guess costs O(1) probes, a bad one O(log distance)). */
static __attribute__((noinline)) int64_t search_from(const source *s, int64_t lo, int64_t hi, int64_t g, target t,
                                                     bool rows) {
    if (hi <= lo) return lo;
    if (g < lo) g = lo;
    if (g >= hi) g = hi - 1;
    if (below(s, g, t, rows)) return gallop(s, hi, g + 1, t, rows);
    int64_t r = g, l, step = 1; /* key(r) >= target: gallop to the left */
    for (;;) {
        l = r - step;
        if (l < lo) {
            l = lo - 1;
            break;
        }
        if (below(s, l, t, rows)) break;
        r = l;
        step *= 2;
    }
    while (r - l > 1) { /* key(l) < target <= key(r) (l == lo - 1 stands for -infinity) */
        int64_t mid = l + (r - l) / 2;
        if (below(s, mid, t, rows)) l = mid;
        else r = mid;
    }
    return r;
}

/* The slice [*lo, *hi) of T's entries that can hold the target (whose d0 component is yd0), and the
 * interpolated guess of its position: exact for a full slice, close for an evenly spread one. Rows are
 * interpolated by their leading components in the plan's order (the key's fraction, in floating point). */
SEARCH int64_t locate(const source *s, target t, int64_t yd0, int64_t *lo, int64_t *hi, bool rows) {
    double pos;
    *lo = 0;
    *hi = s->nnz;
    if (rows) {
        int64_t k = 0;
        if (s->slice) {
            *lo = s->slice[yd0];
            *hi = s->slice[yd0 + 1];
            k = 1;
        }
        double f = 0, scale = 1;
        for (; k < s->kp.nd && scale > 0x1p-60; k++) {
            scale /= (double)s->kp.size[k];
            f += (double)t.row[s->kp.dims[k]] * scale;
        }
        pos = f;
    } else {
        uint64_t vlo = 0;
        double vspan = s->span;
        if (s->slice) {
            *lo = s->slice[yd0];
            *hi = s->slice[yd0 + 1];
            vlo = (uint64_t)yd0 * s->sstride;
            vspan = (double)s->sstride;
        }
        pos = (double)(t.key - vlo) / vspan;
    }
    if (*hi <= *lo) return *lo;
    return *lo + (int64_t)(pos * (double)(*hi - *lo));
}

/* Copy T[y] (y given by its target, its slice [lo, hi) and a guess) into dst, if T has it. */
SEARCH void lookup(const source *s, target t, int64_t lo, int64_t hi, int64_t guess, int64_t *cursor, char *dst,
                   bool rows) {
    if (hi <= lo) return;
    if (s->monotone && *cursor > lo) lo = *cursor < hi ? *cursor : hi;
    if (s->unique && guess >= lo && guess < hi && probe(s, guess, t, rows) == 0) { /* a direct hit */
        *cursor = guess + 1;
        int64_t src = s->perm ? s->perm[guess] : guess;
        copy_elem(dst, s->vals + (size_t)src * s->es, s->es);
        return;
    }
    int64_t p = search_from(s, lo, hi, guess, t, rows);
    *cursor = p;
    if (p < hi && probe(s, p, t, rows) == 0) {
        while (p + 1 < hi && probe(s, p + 1, t, rows) == 0) p++; /* duplicates: the last stored wins */
        int64_t src = s->perm ? s->perm[p] : p;
        copy_elem(dst, s->vals + (size_t)src * s->es, s->es);
    }
}

/* Elements handled per batch: their addresses are computed and prefetched first, then they are copied,
 * so that the memory accesses of a batch overlap instead of waiting for each other. */
#define BATCH 32

/* Fill the inner tensor of key `ki` into `buf` (zeroed, of extents given by the key's mode values).
 * ybuf (BATCH x rank(T) slots) holds the injected indices of a batch when T is searched by rows. */
SEARCH void fill_body(const geometry *g, const source *s, const spt_sparse_map *sm, int64_t ki, char *buf,
                      int64_t *ybuf, bool dense, bool rows) {
    const int64_t D = g->D, NI = g->NI, R = g->R;
    const int64_t *o = sm->keys + ki * NI;
    spt__dview v = spt__map_view(sm, ki);
    uint64_t base = 0, fstride[SPT_MAX_RANK]; /* dense: row-major offsets; sparse: keys in T's search order */
    int64_t istride[SPT_MAX_RANK];
    int64_t d0_pin = -1, d0_j = -1; /* T's mode d0 is pinned to o[k] (value d0_pin) or is x[d0_j] */
    for (int64_t k = 0; k < NI; k++)
        if (g->pin[k] >= 0) {
            base += (uint64_t)o[k] * (dense ? (uint64_t)g->stride[g->pin[k]] : s->ostride[g->pin[k]]);
            if (!dense && g->pin[k] == s->d0) d0_pin = o[k];
            if (rows)
                for (int64_t b = 0; b < BATCH; b++) ybuf[b * R + g->pin[k]] = o[k];
        }
    for (int64_t j = 0; j < D; j++) {
        fstride[j] = dense ? (uint64_t)g->stride[g->fm[j]] : s->ostride[g->fm[j]];
        if (!dense && g->fm[j] == s->d0) d0_j = j;
    }
    int64_t acc = 1;
    for (int64_t j = D - 1; j >= 0; j--) {
        istride[j] = acc;
        acc *= v.moff[j + 1] - v.moff[j];
    }
    const size_t es = s->es;
    int64_t cursor = 0, r0 = -1, prev0 = -1;
    int64_t pos[BATCH], lo[BATCH], hi[BATCH], guess[BATCH];
    uint64_t off[BATCH];
    for (int64_t e0 = 0; e0 < v.n; e0 += BATCH) {
        const int64_t nb = v.n - e0 < BATCH ? v.n - e0 : BATCH;
        for (int64_t b = 0; b < nb; b++) {
            const int64_t *x = v.idx + (e0 + b) * D;
            uint64_t t = base;
            int64_t p = 0;
            for (int64_t j = 0; j < D; j++) {
                t += (uint64_t)x[j] * fstride[j];
                int64_t r;
                if (j == 0) { /* mode 0 of sorted rows is non-decreasing: its rank only moves forward */
                    if (x[0] != prev0) {
                        r0++;
                        prev0 = x[0];
                    }
                    r = r0;
                } else {
                    r = spt__tot_rank_known(v.mvals + v.moff[j], v.moff[j + 1] - v.moff[j], x[j]);
                }
                p += r * istride[j];
            }
            pos[b] = p;
            off[b] = t;
            if (dense) {
                __builtin_prefetch(s->dense + (size_t)t * es);
            } else {
                target tg = {t, NULL};
                if (rows) { /* the injected index itself */
                    int64_t *y = ybuf + b * R;
                    for (int64_t j = 0; j < D; j++) y[g->fm[j]] = x[j];
                    tg.row = y;
                }
                guess[b] = locate(s, tg, d0_j >= 0 ? x[d0_j] : d0_pin, &lo[b], &hi[b], rows);
                if (guess[b] >= lo[b] && guess[b] < hi[b]) {
                    if (s->keys) __builtin_prefetch(s->keys + guess[b]);
                    else __builtin_prefetch(s->ix + (rows && s->perm ? s->perm[guess[b]] : guess[b]) * s->R);
                    if (!s->perm) __builtin_prefetch(s->vals + (size_t)guess[b] * es);
                }
            }
        }
        if (dense) {
            for (int64_t b = 0; b < nb; b++) copy_elem(buf + (size_t)pos[b] * es, s->dense + (size_t)off[b] * es, es);
        } else {
            for (int64_t b = 0; b < nb; b++) {
                const target tg = {off[b], rows ? ybuf + b * R : NULL};
                lookup(s, tg, lo[b], hi[b], guess[b], &cursor, buf + (size_t)pos[b] * es, rows);
            }
        }
    }
}

static void fill_dense(const geometry *g, const source *s, const spt_sparse_map *sm, int64_t ki, char *buf) {
    fill_body(g, s, sm, ki, buf, NULL, true, false);
}
static void fill_keys(const geometry *g, const source *s, const spt_sparse_map *sm, int64_t ki, char *buf) {
    fill_body(g, s, sm, ki, buf, NULL, false, false);
}
static void fill_rows(const geometry *g, const source *s, const spt_sparse_map *sm, int64_t ki, char *buf,
                      int64_t *ybuf) {
    fill_body(g, s, sm, ki, buf, ybuf, false, true);
}

/* Error for the first dependent index of key ki whose injection falls outside T. */
static spt_status report_outside(const char *fn, const geometry *g, const spt_sparse_map *sm, int64_t ki) {
    const int64_t *o = sm->keys + ki * g->NI;
    spt__dview v = spt__map_view(sm, ki);
    int64_t y[SPT_MAX_RANK];
    for (int64_t e = 0; e < v.n; e++) {
        const int64_t *x = v.idx + e * g->D;
        for (int64_t j = 0; j < g->D; j++) y[g->fm[j]] = x[j];
        for (int64_t k = 0; k < g->NI; k++)
            if (g->pin[k] >= 0) y[g->pin[k]] = o[k];
        for (int64_t m = 0; m < g->R; m++)
            if (y[m] >= g->S[m]) {
                char a[SPT__IDXBUF], b[SPT__IDXBUF], c[SPT__IDXBUF], d[SPT__IDXBUF];
                spt__fmt_index(a, sizeof a, y, g->R);
                spt__fmt_index(b, sizeof b, o, g->NI);
                spt__fmt_index(c, sizeof c, x, g->D);
                spt__fmt_index(d, sizeof d, g->S, g->R);
                return spt__err(SPT_ERANGE,
                                "%s: injected index %s (key %s, dependent index %s) is outside T's shape %s", fn, a, b,
                                c, d);
            }
    }
    return spt__err(SPT_EINTERNAL, "%s: inconsistent bounds check", fn);
}

/* Argument checks shared by the dense and sparse entry points. */
static spt_status check_args(const char *fn, spt_dtype dtype, int64_t R, const int64_t *S, const spt_sparse_map *sm,
                             int64_t nmap, const int64_t *ind2mode, const int64_t *outer_shape, geometry *g,
                             int64_t *ovol) {
    if (!sm) return spt__err(SPT_EINVAL, "%s: sparse map is NULL", fn);
    if (!spt_dtype_is_numeric(dtype))
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not numeric", fn,
                        spt_dtype_name(dtype) ? spt_dtype_name(dtype) : "(invalid)");
    const int64_t NI = sm->ind_rank, D = sm->dep_rank;
    if (nmap < 0 || nmap > SPT_MAX_RANK || D + nmap != R)
        return spt__err(SPT_EINVAL, "%s: ranks don't work out: dep_rank %lld + %lld ind2mode pairs != rank(T) %lld", fn,
                        (long long)D, (long long)nmap, (long long)R);
    if (nmap > 0 && !ind2mode) return spt__err(SPT_EINVAL, "%s: ind2mode is NULL", fn);
    g->R = R;
    g->NI = NI;
    g->D = D;
    g->S = S;
    int64_t ind_of[SPT_MAX_RANK];
    for (int64_t m = 0; m < R; m++) ind_of[m] = -1;
    for (int64_t k = 0; k < NI; k++) g->pin[k] = -1;
    for (int64_t p = 0; p < nmap; p++) {
        int64_t k = ind2mode[2 * p], m = ind2mode[2 * p + 1];
        if (k < 0 || k >= NI)
            return spt__err(SPT_ERANGE, "%s: ind2mode[%lld] = (%lld, %lld): independent mode %lld outside [0, %lld)",
                            fn, (long long)p, (long long)k, (long long)m, (long long)k, (long long)NI);
        if (m < 0 || m >= R)
            return spt__err(SPT_ERANGE, "%s: ind2mode[%lld] = (%lld, %lld): mode %lld of T outside [0, %lld)", fn,
                            (long long)p, (long long)k, (long long)m, (long long)m, (long long)R);
        if (g->pin[k] >= 0)
            return spt__err(SPT_EINVAL, "%s: ind2mode maps independent mode %lld twice", fn, (long long)k);
        if (ind_of[m] >= 0)
            return spt__err(SPT_EINVAL, "%s: ind2mode maps two independent modes to mode %lld of T", fn, (long long)m);
        g->pin[k] = m;
        ind_of[m] = k;
    }
    for (int64_t m = 0, j = 0; m < R; m++)
        if (ind_of[m] < 0) g->fm[j++] = m;
    /* the outer shape is never materialized: any valid shape (*ovol -1 past INT64_MAX) */
    SPT__TRY(spt__check_dims(fn, NI, outer_shape, ovol));
    /* every key inside the outer shape; every injected index inside T */
    for (int64_t i = 0; i < sm->nkeys; i++) {
        const int64_t *o = sm->keys + i * NI;
        for (int64_t k = 0; k < NI; k++)
            if (o[k] >= outer_shape[k]) {
                char a[SPT__IDXBUF], b[SPT__IDXBUF];
                spt__fmt_index(a, sizeof a, o, NI);
                spt__fmt_index(b, sizeof b, outer_shape, NI);
                return spt__err(SPT_ERANGE, "%s: key %s of the sparse map is outside the outer shape %s", fn, a, b);
            }
        spt__dview v = spt__map_view(sm, i);
        if (v.n == 0) continue;
        bool bad = false;
        for (int64_t k = 0; k < NI; k++)
            if (g->pin[k] >= 0 && o[k] >= S[g->pin[k]]) bad = true;
        for (int64_t j = 0; j < D; j++) /* the largest value of mode j is the last distinct one */
            if (v.mvals[v.moff[j + 1] - 1] >= S[g->fm[j]]) bad = true;
        if (bad) return report_outside(fn, g, sm, i);
    }
    return SPT_OK;
}

/* The common body once T is reduced to a source. whole: every key; else only the keys whose row-major
 * linear outer index is in [begin, end) (the outer volume then fits in int64). */
static spt_status build(const char *fn, spt_dtype dtype, const geometry *g, const source *s, const spt_sparse_map *sm,
                        const int64_t *outer_shape, bool whole, int64_t begin, int64_t end, spt_tot **out) {
    spt_status st = SPT_OK;
    spt_tot *t = NULL;
    int64_t *ek = NULL, *blk = NULL, *ybuf = NULL;
    const int64_t NI = g->NI, D = g->D;
    spt__keyplan okp; /* the outer shape's row-major linear index (a block's outer volume fits in int64) */
    spt__keyplan_init(&okp, outer_shape, NULL, NI);
    /* the keys of the block with a non-empty domain, in outer order */
    if (!(ek = spt__alloc_array(fn, sm->nkeys, 1, sizeof(int64_t), false, &st))) goto fail;
    int64_t ne = 0, total = 0, work = 0;
    for (int64_t i = 0; i < sm->nkeys; i++) {
        if (sm->off[i + 1] == sm->off[i]) continue;
        if (!whole) {
            uint64_t lin = spt__keyplan_linear(&okp, sm->keys + i * NI);
            if (lin < (uint64_t)begin || lin >= (uint64_t)end) continue;
        }
        spt__dview v = spt__map_view(sm, i);
        int64_t vol = 1;
        for (int64_t j = 0; j < D; j++)
            if (spt__mul_i64(vol, v.moff[j + 1] - v.moff[j], &vol)) vol = -1;
        if (vol < 0 || spt__add_i64(total, vol, &total)) {
            st = spt__err(SPT_EOVERFLOW, "%s: the inner tensors hold more than INT64_MAX elements", fn);
            goto fail;
        }
        work += v.n;
        ek[ne++] = i;
    }
    SPT__CHECK(spt__tot_alloc(fn, dtype, NI, outer_shape, D, ne, total, &t));
    for (int64_t e = 0; e < ne; e++) {
        spt__dview v = spt__map_view(sm, ek[e]);
        if (NI) memcpy(t->outer + e * NI, sm->keys + ek[e] * NI, (size_t)NI * sizeof(int64_t));
        int64_t vol = 1;
        for (int64_t j = 0; j < D; j++) {
            t->inner_shape[e * D + j] = v.moff[j + 1] - v.moff[j];
            vol *= t->inner_shape[e * D + j];
        }
        t->voff[e + 1] = t->voff[e] + vol;
    }
    /* outer blocks: consecutive outer elements with about BLOCK_WORK dependent indices each */
    if (!(blk = spt__alloc_array(fn, ne + 1, 1, sizeof(int64_t), false, &st))) goto fail;
    int64_t nb = 0, acc = 0;
    for (int64_t e = 0; e < ne; e++) {
        if (acc == 0) blk[nb++] = e;
        acc += sm->off[ek[e] + 1] - sm->off[ek[e]];
        if (acc >= BLOCK_WORK) acc = 0;
    }
    blk[nb] = ne;
    char *vals = t->values;
    const size_t es = s->es;
    const int nth = spt__threads_for(work);
    /* searching by rows: the injected indices of a batch, one buffer per thread */
    if (s->rows && !(ybuf = spt__alloc_array(fn, nth, BATCH * g->R, sizeof(int64_t), false, &st))) goto fail;
#pragma omp parallel num_threads(nth) if (nth > 1 && nb > 1)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        int64_t *yb = ybuf ? ybuf + (int64_t)tid * BATCH * g->R : NULL;
#pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < nb; b++)
            for (int64_t e = blk[b]; e < blk[b + 1]; e++)
                if (s->dense) fill_dense(g, s, sm, ek[e], vals + (size_t)t->voff[e] * es);
                else if (yb) fill_rows(g, s, sm, ek[e], vals + (size_t)t->voff[e] * es, yb);
                else fill_keys(g, s, sm, ek[e], vals + (size_t)t->voff[e] * es);
    }
    spt__free(ek);
    spt__free(blk);
    spt__free(ybuf);
    *out = t;
    return SPT_OK;
fail:
    spt__free(ek);
    spt__free(blk);
    spt__free(ybuf);
    spt_tot_free(t);
    return st;
}

/* A block's bounds: inside [0, outer volume]; the bounds are linear outer indices, so a block needs an
 * outer volume that fits in int64 (the whole-shape calls take any outer shape). */
static spt_status check_range(const char *fn, const int64_t *outer_shape, int64_t NI, int64_t begin, int64_t end,
                              int64_t ovol) {
    if (ovol < 0) {
        char a[SPT__IDXBUF];
        spt__fmt_index(a, sizeof a, outer_shape, NI);
        return spt__err(SPT_EOVERFLOW,
                        "%s: the outer shape %s has more than INT64_MAX elements, past the reach of the int64 block "
                        "bounds [%lld, %lld) (the whole-shape sparsify takes any outer shape)",
                        fn, a, (long long)begin, (long long)end);
    }
    if (begin < 0 || begin > end || end > ovol)
        return spt__err(SPT_ERANGE, "%s: outer block [%lld, %lld) is not inside [0, %lld)", fn, (long long)begin,
                        (long long)end, (long long)ovol);
    return SPT_OK;
}

static spt_status dense_impl(const char *fn, const spt_dense *T, const spt_sparse_map *sm, int64_t nmap,
                             const int64_t *ind2mode, const int64_t *outer_shape, bool whole, int64_t begin,
                             int64_t end, spt_tot **out) {
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!T) return spt__err(SPT_EINVAL, "%s: T is NULL", fn);
    geometry g;
    int64_t ovol;
    SPT__TRY(check_args(fn, T->dtype, T->rank, T->shape, sm, nmap, ind2mode, outer_shape, &g, &ovol));
    if (!whole) SPT__TRY(check_range(fn, outer_shape, g.NI, begin, end, ovol));
    /* row-major strides of the dense T (its element count fits in int64) */
    int64_t acc = T->size > 0 ? 1 : 0;
    for (int64_t m = T->rank - 1; m >= 0; m--) {
        g.stride[m] = acc;
        acc *= T->size > 0 ? T->shape[m] : 0;
    }
    source s;
    memset(&s, 0, sizeof s);
    s.es = spt_dtype_size(T->dtype);
    s.dense = T->data;
    return build(fn, T->dtype, &g, &s, sm, outer_shape, whole, begin, end, out);
}

static spt_status sparse_impl(const char *fn, const spt_tensor *T, const spt_sparse_map *sm, int64_t nmap,
                              const int64_t *ind2mode, const int64_t *outer_shape, bool whole, int64_t begin,
                              int64_t end, spt_tot **out) {
    spt_status st = SPT_OK;
    uint64_t *keys = NULL;
    int64_t *perm = NULL, *slice = NULL;
    source *s = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!T) return spt__err(SPT_EINVAL, "%s: T is NULL", fn);
    geometry g;
    int64_t ovol;
    SPT__TRY(check_args(fn, T->dtype, T->rank, T->shape, sm, nmap, ind2mode, outer_shape, &g, &ovol));
    if (!whole) SPT__TRY(check_range(fn, outer_shape, g.NI, begin, end, ovol));
    const int64_t n = T->nnz, R = T->rank;
    if (!(s = spt__calloc(1, sizeof *s))) {
        st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        goto fail;
    }
    s->es = spt_dtype_size(T->dtype);
    s->nnz = n;
    s->R = R;
    s->ix = T->indices;
    s->vals = T->values;
    const bool in_place = (T->flags & SPT__F_SORTED) && spt__order_defined(R, T->order);
    /* the order searched in: T's own (searched where it is, nothing to prepare), else row-major */
    spt__keyplan_init(&s->kp, T->shape, in_place ? T->order : NULL, R);
    s->rows = s->kp.kind != SPT__KEY64;
    if (in_place) {
        SPT__CHECK(spt__ensure_valid(fn, T));
        s->unique = (T->flags & SPT__F_UNIQUE) != 0;
    } else {
        /* the (stable) sorting permutation, so that among duplicates the last stored one wins, as in
         * spt_to_dense; and the sorted linear keys when they fit in 64 bits */
        if (!s->rows && !(keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st))) goto fail;
        bool unique, ordinal;
        SPT__CHECK(spt__key_sort(fn, T, &s->kp, keys, &perm, &unique, &ordinal));
        s->keys = keys;
        s->perm = perm;
        s->unique = unique;
    }
    s->d0 = R > 0 ? s->kp.dims[0] : 0;
    s->monotone = true;
    for (int64_t k = 0; k < R; k++) s->monotone &= s->kp.dims[k] == k;
    unsigned __int128 span = (unsigned __int128)s->kp.max_key + 1; /* the number of keys (SPT__KEY64) */
    if (!s->rows) {
        uint64_t acc = 1; /* mod 2^64: a stride of 2^64 only multiplies an index that is 0 */
        for (int64_t k = R - 1; k >= 0; k--) {
            s->ostride[s->kp.dims[k]] = acc;
            acc *= s->kp.size[k] > 0 ? (uint64_t)s->kp.size[k] : 1;
        }
        s->span = (double)span;
    }
    /* slice pointers over the leading mode when they are cheap next to the entries */
    if (R > 0 && n > 0 && T->shape[s->d0] <= n + 4096 && (s->rows || span / (uint64_t)T->shape[s->d0] <= UINT64_MAX)) {
        const int64_t S0 = T->shape[s->d0];
        if (!(slice = spt__alloc_array(fn, S0 + 1, 1, sizeof(int64_t), false, &st))) goto fail;
        if (!s->rows) s->sstride = (uint64_t)(span / (uint64_t)S0);
        int64_t zero_row[SPT_MAX_RANK] = {0}, p = 0; /* rows: (r, 0, ..., 0) in the plan's order */
        target tg = {0, zero_row};
        for (int64_t r = 0; r < S0; r++) {
            tg.key = (uint64_t)r * s->sstride;
            zero_row[s->d0] = r;
            p = gallop(s, n, p, tg, s->rows);
            slice[r] = p;
        }
        slice[S0] = n;
        s->slice = slice;
    }
    st = build(fn, T->dtype, &g, s, sm, outer_shape, whole, begin, end, out);
fail:
    spt__free(keys);
    spt__free(perm);
    spt__free(slice);
    spt__free(s);
    return st;
}

spt_status spt_sparsify_dense(const spt_dense *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                              const int64_t *outer_shape, spt_tot **out) {
    return dense_impl("spt_sparsify_dense", T, sm, nmap, ind2mode, outer_shape, true, 0, 0, out);
}

spt_status spt_sparsify_dense_block(const spt_dense *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                                    const int64_t *outer_shape, int64_t begin, int64_t end, spt_tot **out) {
    return dense_impl("spt_sparsify_dense_block", T, sm, nmap, ind2mode, outer_shape, false, begin, end, out);
}

spt_status spt_sparsify(const spt_tensor *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                        const int64_t *outer_shape, spt_tot **out) {
    return sparse_impl("spt_sparsify", T, sm, nmap, ind2mode, outer_shape, true, 0, 0, out);
}

spt_status spt_sparsify_block(const spt_tensor *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                              const int64_t *outer_shape, int64_t begin, int64_t end, spt_tot **out) {
    return sparse_impl("spt_sparsify_block", T, sm, nmap, ind2mode, outer_shape, false, begin, end, out);
}
