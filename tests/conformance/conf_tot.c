/* SPDX-License-Identifier: Apache-2.0 */
/* conf_tot.c -- what the conformance handlers of several tot ops share (each handler lives in its
 * op's C test, under SPT_CONFORMANCE; declarations in conf.h). */
#include "conf.h"

#include <stdlib.h>
#include <string.h>

/* A row matrix [[..],[..]] flattened (rows x cols) into a malloc'd array; *rows, *cols. */
int64_t *conf_matrix(const json_t *j, int64_t *rows, int64_t *cols) {
    *rows = json_is_array(j) ? (int64_t)json_array_size(j) : 0;
    *cols = *rows > 0 ? (int64_t)json_array_size(json_array_get(j, 0)) : 0;
    int64_t *v = calloc((size_t)(*rows * *cols + 1), sizeof *v);
    if (!v) return NULL;
    for (int64_t i = 0; i < *rows; i++)
        for (int64_t k = 0; k < *cols; k++)
            v[i * *cols + k] = json_integer_value(json_array_get(json_array_get(j, (size_t)i), (size_t)k));
    return v;
}

/* map: {"ind_rank", "dep_rank", "pairs": [[key..., dep...], ...], "keys": [[..]], "npairs": claimed} */
spt_status conf_make_map(const json_t *j, spt_sparse_map **m) {
    int64_t ir = json_integer_value(json_object_get(j, "ind_rank")),
            dr = json_integer_value(json_object_get(j, "dep_rank"));
    int64_t np, w, nk, kw;
    int64_t *pairs = conf_matrix(json_object_get(j, "pairs"), &np, &w);
    int64_t *keys = json_object_get(j, "keys") ? conf_matrix(json_object_get(j, "keys"), &nk, &kw) : NULL;
    json_t *jn = json_object_get(j, "npairs");
    bool null_arrays = json_is_true(json_object_get(j, "null_arrays"));
    int64_t *ind = NULL, *dep = NULL;
    spt_status st = SPT_OK;
    if (!null_arrays && np > 0 && ir >= 0 && dr >= 0 && ir + dr == w) {
        ind = calloc((size_t)(np * ir + 1), sizeof *ind);
        dep = calloc((size_t)(np * dr + 1), sizeof *dep);
        if (!ind || !dep) st = SPT_ENOMEM;
        for (int64_t i = 0; st == SPT_OK && i < np; i++) {
            for (int64_t k = 0; k < ir; k++) ind[i * ir + k] = pairs[i * w + k];
            for (int64_t k = 0; k < dr; k++) dep[i * dr + k] = pairs[i * w + ir + k];
        }
    }
    if (jn) np = json_integer_value(jn);
    if (st == SPT_OK)
        st = keys ? spt_sparse_map_new_with_keys(ir, dr, nk, keys, np, ind, dep, m)
                  : spt_sparse_map_new(ir, dr, np, ind, dep, m);
    free(pairs);
    free(keys);
    free(ind);
    free(dep);
    return st;
}

/* Expected error names of the vectors -> spt status. */
spt_status conf_expected_status(const char *name) {
    if (!name) return SPT_OK;
    if (!strcmp(name, "rank_mismatch")) return SPT_EINVAL;
    if (!strcmp(name, "index_out_of_range")) return SPT_ERANGE;
    return SPT_EINTERNAL;
}

conf_result conf_judge_error(const conf_case *c, const char *what, spt_status got, const char *want) {
    spt_status w = conf_expected_status(want);
    if (got == w) return CONF_PASS;
    return conf_fail(c, "%s: expected %s (%s), got %s: %s", what, spt_status_name(w), want, spt_status_name(got),
                     spt_last_error());
}

/* A list of same-length int lists -> rows; returns the count, *rank the length (0 if empty). */
long conf_rows(const json_t *j, int64_t *rows, long cap, int64_t *rank) {
    *rank = 0;
    if (!json_is_array(j)) return -1;
    size_t n = json_array_size(j);
    if (n > 0) *rank = (int64_t)json_array_size(json_array_get(j, 0));
    for (size_t i = 0; i < n; i++) {
        long got = conf_ints(json_array_get(j, i), rows + (long)i * *rank, cap - (long)i * *rank);
        if (got != *rank) return -1;
    }
    return (long)n;
}

/* sparse_map: [{ind: [...], dep: [[...], ...]}] */
spt_status conf_build_map(const json_t *j, spt_sparse_map **out) {
    static int64_t ind[MAXN], dep[MAXN];
    int64_t nr = 0, dr = 0, npairs = 0;
    size_t nk = json_array_size(j);
    for (size_t k = 0; k < nk; k++) {
        json_t *e = json_array_get(j, k);
        int64_t key[SPT_MAX_RANK];
        long kr = conf_ints(json_object_get(e, "ind"), key, SPT_MAX_RANK);
        int64_t r;
        long nd = conf_rows(json_object_get(e, "dep"), dep + npairs * dr, MAXN - npairs * (dr ? dr : 1), &r);
        if (kr < 0 || nd < 0) return SPT_EINTERNAL;
        nr = kr;
        if (nd > 0) dr = r;
        for (long i = 0; i < nd; i++) memcpy(ind + (npairs + i) * nr, key, (size_t)nr * sizeof(int64_t));
        npairs += nd;
    }
    return spt_sparse_map_new(nr, dr, npairs, ind, dep, out);
}

/* Injections [[mode, value], ...] -> modes, values. */
long conf_injections(const json_t *j, int64_t *modes, int64_t *values) {
    for (size_t i = 0; i < json_array_size(j); i++) {
        json_t *p = json_array_get(j, i);
        modes[i] = json_integer_value(json_array_get(p, 0));
        values[i] = json_integer_value(json_array_get(p, 1));
    }
    return (long)json_array_size(j);
}

spt_status conf_make_domain(const json_t *j, spt_domain **out) {
    static int64_t rows[MAXN];
    int64_t rank;
    long n = conf_rows(j, rows, MAXN, &rank);
    if (n < 0) return SPT_EINTERNAL;
    return spt_domain_new(rank, n, rows, out);
}
