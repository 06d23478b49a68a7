/* SPDX-License-Identifier: Apache-2.0 */
/* tot_internal.h -- what the tensor-of-tensors sources share: the layouts of spt_sparse_map, spt_domain
 * and spt_tot, a view of one domain, and the row sort. Not installed. */
#ifndef SPT_TOT_INTERNAL_H
#define SPT_TOT_INTERNAL_H

#include "core/internal.h"

/* Compact (CSR-like) storage of a sparse map:
 *   keys   nkeys x ind_rank, strictly increasing lexicographically (= row-major order);
 *   off    nkeys + 1: the dependent indices of key i are dep[off[i] .. off[i+1]) (rows of dep_rank),
 *          strictly increasing lexicographically within a key;
 *   moff   nkeys * dep_rank + 1: the sorted distinct values of mode m of key i's domain are
 *          mvals[moff[i*dep_rank + m] .. moff[i*dep_rank + m + 1]).
 * A domain is a sparse map of ind_rank 0 with at most one key. */
struct spt_sparse_map {
    int64_t ind_rank, dep_rank;
    int64_t nkeys, ndep;
    int64_t *keys;
    int64_t *off;
    int64_t *dep;
    int64_t *moff;
    int64_t *mvals;
};

struct spt_domain {
    spt_sparse_map *map; /* ind_rank 0; nkeys 0 (the empty domain) or 1 */
};

/* The ToT: only the non-empty outer elements are stored, sorted by their row-major outer index. */
struct spt_tot {
    spt_dtype dtype;
    int64_t outer_rank, inner_rank;
    int64_t *outer_shape; /* outer_rank dims */
    int64_t outer_volume;
    int64_t n;            /* non-empty outer elements */
    int64_t *outer;       /* n x outer_rank, strictly increasing */
    int64_t *inner_shape; /* n x inner_rank */
    int64_t *voff;        /* n + 1: inner tensor e is values[voff[e] .. voff[e+1]) */
    void *values;
};

/* One domain seen inside a map (or a standalone domain). */
typedef struct spt__dview {
    int64_t rank, n;
    const int64_t *idx;  /* n x rank, sorted unique */
    const int64_t *moff; /* rank + 1 offsets into mvals */
    const int64_t *mvals;
} spt__dview;

static inline spt__dview spt__map_view(const spt_sparse_map *m, int64_t i) {
    spt__dview v;
    v.rank = m->dep_rank;
    v.n = m->off[i + 1] - m->off[i];
    v.idx = m->dep + m->off[i] * m->dep_rank;
    v.moff = m->moff + i * m->dep_rank;
    v.mvals = m->mvals;
    return v;
}

/* Position of v among the sorted distinct values vals[0..n) (lower bound); -1 if absent. */
static inline int64_t spt__tot_rank_of(const int64_t *vals, int64_t n, int64_t v) {
    const int64_t lo = spt__lower_bound_i64(vals, n, v);
    return lo < n && vals[lo] == v ? lo : -1;
}

/* Position of v among the sorted distinct values vals[0..n), n >= 1, when v is known to be one of them
 * (branch-free lower bound: no mispredicted branches in the copy loops). */
static inline int64_t spt__tot_rank_known(const int64_t *vals, int64_t n, int64_t v) {
    const int64_t *base = vals;
    while (n > 1) {
        int64_t half = n / 2;
        base = base[half - 1] < v ? base + half : base;
        n -= half;
    }
    return base - vals;
}

/* Build a map (see spt_sparse_map_new_with_keys) naming `fn` in errors. */
spt_status spt__sparse_map_build(const char *fn, int64_t ind_rank, int64_t dep_rank, int64_t nextra,
                                 const int64_t *extra, int64_t npairs, const int64_t *ind, const int64_t *dep,
                                 spt_sparse_map **out);
/* A new domain from n indices of `rank` (any order, duplicates collapsed), naming `fn` in errors. */
spt_status spt__domain_new(const char *fn, int64_t rank, int64_t n, const int64_t *indices, spt_domain **out);
/* Check an injection map (ninj distinct modes, each in [0, out_rank); values >= 0 unless values is NULL). */
spt_status spt__check_injections(const char *fn, int64_t out_rank, int64_t ninj, const int64_t *modes,
                                 const int64_t *values);
/* A new ToT with room for n non-empty outer elements holding `total` values (zeroed); the caller fills
 * outer, inner_shape and voff. Checks the outer shape (naming fn). */
spt_status spt__tot_alloc(const char *fn, spt_dtype dtype, int64_t outer_rank, const int64_t *outer_shape,
                          int64_t inner_rank, int64_t n, int64_t total, spt_tot **out);
/* Compare two rows lexicographically: -1, 0, 1. */
static inline int spt__tot_cmp(const int64_t *a, const int64_t *b, int64_t n) {
    for (int64_t k = 0; k < n; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

typedef struct {
    const int64_t *rows, *key;
    int64_t w;
} spt__tot_target;
static inline bool spt__tot_below(const void *ctx, int64_t i) {
    const spt__tot_target *t = ctx;
    return spt__tot_cmp(t->rows + i * t->w, t->key, t->w) < 0;
}
/* First position in [lo, hi) of the rows of w coordinates (row i at rows + i * w, ascending) whose row is
 * >= key. */
static inline int64_t spt__tot_lower_bound(const int64_t *rows, int64_t lo, int64_t hi, int64_t w, const int64_t *key) {
    const spt__tot_target t = {rows, key, w};
    return spt__lower_bound(lo, hi, spt__tot_below, &t);
}

#endif
