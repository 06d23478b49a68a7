/* SPDX-License-Identifier: Apache-2.0 */
/* inject.c -- index injection: insert outer coordinates at given modes (the dependent components fill
 * the other modes in increasing order), its inverse, and the injection of a whole domain. */
#include "tot_internal.h"

spt_status spt__check_injections(const char *fn, int64_t out_rank, int64_t ninj, const int64_t *modes,
                                 const int64_t *values) {
    if (ninj < 0) return spt__err(SPT_EINVAL, "%s: negative number of injections (%lld)", fn, (long long)ninj);
    if (ninj > 0 && !modes) return spt__err(SPT_EINVAL, "%s: modes is NULL", fn);
    uint64_t seen[(SPT_MAX_RANK + 63) / 64 + 1] = {0};
    for (int64_t k = 0; k < ninj; k++) {
        int64_t m = modes[k];
        if (m < 0 || m >= out_rank)
            return spt__err(SPT_ERANGE, "%s: injection %lld targets mode %lld, outside [0, %lld)", fn, (long long)k,
                            (long long)m, (long long)out_rank);
        if (seen[m / 64] >> (m % 64) & 1)
            return spt__err(SPT_EINVAL, "%s: mode %lld is injected twice", fn, (long long)m);
        seen[m / 64] |= (uint64_t)1 << (m % 64);
        if (values && values[k] < 0)
            return spt__err(SPT_EINVAL, "%s: injection %lld has a negative value (%lld)", fn, (long long)k,
                            (long long)values[k]);
    }
    return SPT_OK;
}

/* out_rank = rank + ninj, checked against SPT_MAX_RANK. */
static spt_status out_rank_of(const char *fn, int64_t rank, int64_t ninj, int64_t *out_rank) {
    if (rank < 0 || rank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: rank %lld outside [0, %d]", fn, (long long)rank, SPT_MAX_RANK);
    if (ninj < 0 || ninj > SPT_MAX_RANK - rank)
        return spt__err(SPT_EINVAL, "%s: %lld injections into rank %lld exceed rank %d", fn, (long long)ninj,
                        (long long)rank, SPT_MAX_RANK);
    *out_rank = rank + ninj;
    return SPT_OK;
}

/* y = x with values[k] at modes[k]; the caller has checked the injections. */
static void inject_row(int64_t out_rank, const int64_t *x, int64_t ninj, const int64_t *modes, const int64_t *values,
                       int64_t *y) {
    int64_t slot[SPT_MAX_RANK];
    for (int64_t p = 0; p < out_rank; p++) slot[p] = -1;
    for (int64_t k = 0; k < ninj; k++) slot[modes[k]] = k;
    for (int64_t p = 0, next = 0; p < out_rank; p++) y[p] = slot[p] >= 0 ? values[slot[p]] : x[next++];
}

spt_status spt_inject_index(int64_t rank, const int64_t *index, int64_t ninj, const int64_t *modes,
                            const int64_t *values, int64_t *out) {
    static const char fn[] = "spt_inject_index";
    int64_t R = 0;
    SPT__TRY(out_rank_of(fn, rank, ninj, &R));
    if ((rank > 0 && !index) || (R > 0 && !out) || (ninj > 0 && !values))
        return spt__err(SPT_EINVAL, "%s: an array argument is NULL", fn);
    SPT__TRY(spt__check_injections(fn, R, ninj, modes, values));
    inject_row(R, index, ninj, modes, values, out);
    return SPT_OK;
}

spt_status spt_uninject_index(int64_t rank, const int64_t *index, int64_t ninj, const int64_t *modes, int64_t *out) {
    static const char fn[] = "spt_uninject_index";
    if (rank < 0 || rank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: rank %lld outside [0, %d]", fn, (long long)rank, SPT_MAX_RANK);
    SPT__TRY(spt__check_injections(fn, rank, ninj, modes, NULL));
    if ((rank > 0 && !index) || (rank > ninj && !out)) return spt__err(SPT_EINVAL, "%s: an array argument is NULL", fn);
    bool injected[SPT_MAX_RANK] = {false};
    for (int64_t k = 0; k < ninj; k++) injected[modes[k]] = true;
    for (int64_t p = 0, next = 0; p < rank; p++)
        if (!injected[p]) out[next++] = index[p];
    return SPT_OK;
}

spt_status spt_domain_inject(const spt_domain *d, int64_t ninj, const int64_t *modes, const int64_t *values,
                             spt_domain **out) {
    static const char fn[] = "spt_domain_inject";
    spt_status st;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!d) return spt__err(SPT_EINVAL, "%s: domain is NULL", fn);
    int64_t rank = spt_domain_rank(d), n = spt_domain_size(d), R = 0;
    SPT__TRY(out_rank_of(fn, rank, ninj, &R));
    if (ninj > 0 && !values) return spt__err(SPT_EINVAL, "%s: values is NULL", fn);
    SPT__TRY(spt__check_injections(fn, R, ninj, modes, values));
    int64_t *rows = spt__alloc_array(fn, n, R, sizeof(int64_t), false, &st);
    if (!rows) return st;
    const int64_t *x = spt_domain_indices(d);
    for (int64_t i = 0; i < n; i++) inject_row(R, x + i * rank, ninj, modes, values, rows + i * R);
    /* injection keeps the lexicographic order, so the rows are already sorted */
    st = spt__domain_new(fn, R, n, rows, out);
    spt__free(rows);
    return st;
}
