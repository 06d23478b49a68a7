/* SPDX-License-Identifier: Apache-2.0 */
/* domain.c -- spt_domain: a sorted set of same-rank indices with its per-mode distinct values
 * (result_extents / result_index). Stored as a sparse map of ind_rank 0 with at most one key. */
#include "tot_internal.h"

static spt__dview dom_view(const spt_domain *d) {
    static const int64_t zero = 0;
    if (d->map->nkeys == 0) return (spt__dview){0, 0, NULL, &zero, NULL};
    return spt__map_view(d->map, 0);
}

static spt_status wrap_map(const char *fn, spt_sparse_map *m, spt_domain **out) {
    spt_domain *d = spt__calloc(1, sizeof *d);
    if (!d) {
        spt_sparse_map_free(m);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    d->map = m;
    *out = d;
    return SPT_OK;
}

spt_status spt__domain_new(const char *fn, int64_t rank, int64_t n, const int64_t *indices, spt_domain **out) {
    spt_sparse_map *m;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    /* every pair has the key [] (ind_rank 0) */
    SPT__TRY(spt__sparse_map_build(fn, 0, rank, 0, NULL, n, NULL, indices, &m));
    return wrap_map(fn, m, out);
}

spt_status spt_domain_new(int64_t rank, int64_t n, const int64_t *indices, spt_domain **out) {
    return spt__domain_new("spt_domain_new", rank, n, indices, out);
}

spt_status spt_sparse_map_domain(const spt_sparse_map *m, int64_t i, spt_domain **out) {
    static const char fn[] = "spt_sparse_map_domain";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!m) return spt__err(SPT_EINVAL, "%s: map is NULL", fn);
    if (i < 0 || i >= m->nkeys)
        return spt__err(SPT_ERANGE, "%s: key number %lld outside [0, %lld)", fn, (long long)i, (long long)m->nkeys);
    spt__dview v = spt__map_view(m, i);
    return spt__domain_new(fn, v.rank, v.n, v.idx, out);
}

void spt_domain_free(spt_domain *d) {
    if (!d) return;
    spt_sparse_map_free(d->map);
    spt__free(d);
}

int64_t spt_domain_rank(const spt_domain *d) { return d && d->map->nkeys ? d->map->dep_rank : 0; }
int64_t spt_domain_size(const spt_domain *d) { return d ? d->map->ndep : 0; }
const int64_t *spt_domain_indices(const spt_domain *d) { return d ? d->map->dep : NULL; }

bool spt_domain_contains(const spt_domain *d, const int64_t *index) {
    if (!d || d->map->nkeys == 0) return false;
    return spt_sparse_map_contains(d->map, NULL, index);
}

void spt_domain_result_extents(const spt_domain *d, int64_t *extents) {
    if (!d || !extents) return;
    spt__dview v = dom_view(d);
    for (int64_t j = 0; j < v.rank; j++) extents[j] = v.moff[j + 1] - v.moff[j];
}

spt_status spt_domain_result_index(const spt_domain *d, int64_t rank, const int64_t *index, int64_t *out) {
    static const char fn[] = "spt_domain_result_index";
    if (!d) return spt__err(SPT_EINVAL, "%s: domain is NULL", fn);
    spt__dview v = dom_view(d);
    if (rank != v.rank)
        return spt__err(SPT_ERANGE, "%s: index of rank %lld, the domain has rank %lld", fn, (long long)rank,
                        (long long)v.rank);
    if (rank > 0 && (!index || !out)) return spt__err(SPT_EINVAL, "%s: index or out is NULL", fn);
    for (int64_t j = 0; j < rank; j++) {
        int64_t r = spt__tot_rank_of(v.mvals + v.moff[j], v.moff[j + 1] - v.moff[j], index[j]);
        if (r < 0) {
            char buf[SPT__IDXBUF];
            spt__fmt_index(buf, sizeof buf, index, rank);
            return spt__err(SPT_ERANGE, "%s: component %lld of %s (value %lld) appears in no index of the domain", fn,
                            (long long)j, buf, (long long)index[j]);
        }
        out[j] = r;
    }
    return SPT_OK;
}
