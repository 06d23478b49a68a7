/* SPDX-License-Identifier: Apache-2.0 */
/* ops_tot.c -- conformance handlers of tensors of tensors: domains, sparse maps, injection, ToT construction, sparsify, reduce_tot_sum.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"

#include <stdlib.h>
#include <string.h>

/* A row matrix [[..],[..]] flattened (rows x cols) into a malloc'd array; *rows, *cols. */
static int64_t *matrix(const json_t *j, int64_t *rows, int64_t *cols) {
    *rows = json_is_array(j) ? (int64_t)json_array_size(j) : 0;
    *cols = *rows > 0 ? (int64_t)json_array_size(json_array_get(j, 0)) : 0;
    int64_t *v = calloc((size_t)(*rows * *cols + 1), sizeof *v);
    if (!v) return NULL;
    for (int64_t i = 0; i < *rows; i++)
        for (int64_t k = 0; k < *cols; k++) v[i * *cols + k] = json_integer_value(json_array_get(json_array_get(j, (size_t)i), (size_t)k));
    return v;
}

/* ---- tensor-of-tensors ---- */

static conf_result h_domain_new(const conf_case *c) {
    int64_t n, cols;
    int64_t *ix = matrix(conf_arg(c, "indices"), &n, &cols);
    json_t *jr = conf_arg(c, "rank"), *jn = conf_arg(c, "n");
    spt_domain *d = NULL;
    spt_status st = spt_domain_new(jr ? (int64_t)json_integer_value(jr) : cols, jn ? (int64_t)json_integer_value(jn) : n,
                                   json_is_true(conf_arg(c, "null_indices")) ? NULL : ix, &d);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *want = json_object_get(json_object_get(c->root, "result"), "size");
        r = want && spt_domain_size(d) != json_integer_value(want) ? conf_fail(c, "size %lld", (long long)spt_domain_size(d)) : CONF_PASS;
    }
    spt_domain_free(d);
    free(ix);
    return r;
}

static conf_result h_inject_index(const conf_case *c) {
    long nr, nm, nv;
    int64_t *index = conf_ints_new(c, "index", &nr), *modes = conf_ints_new(c, "modes", &nm), *vals = conf_ints_new(c, "values", &nv), out[2 * SPT_MAX_RANK + 2];
    json_t *jr = conf_arg(c, "rank"), *jn = conf_arg(c, "ninj");
    int64_t rank = jr ? (int64_t)json_integer_value(jr) : nr, ninj = jn ? (int64_t)json_integer_value(jn) : nm;
    spt_status st;
    if (json_is_true(conf_arg(c, "uninject"))) st = spt_uninject_index(rank, index, ninj, modes, out);
    else st = spt_inject_index(rank, index, ninj, modes, vals, out);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        int64_t want[2 * SPT_MAX_RANK];
        long m = conf_ints(json_object_get(json_object_get(c->root, "result"), "index"), want, 2 * SPT_MAX_RANK);
        r = CONF_PASS;
        for (long i = 0; i < m && r == CONF_PASS; i++)
            if (out[i] != want[i]) r = conf_fail(c, "out[%ld] = %lld, expected %lld", i, (long long)out[i], (long long)want[i]);
    }
    free(index);
    free(modes);
    free(vals);
    return r;
}

/* map: {"ind_rank", "dep_rank", "pairs": [[key..., dep...], ...], "keys": [[..]], "npairs": claimed} */
static spt_status make_map(const json_t *j, spt_sparse_map **m) {
    int64_t ir = json_integer_value(json_object_get(j, "ind_rank")), dr = json_integer_value(json_object_get(j, "dep_rank"));
    int64_t np, w, nk, kw;
    int64_t *pairs = matrix(json_object_get(j, "pairs"), &np, &w);
    int64_t *keys = json_object_get(j, "keys") ? matrix(json_object_get(j, "keys"), &nk, &kw) : NULL;
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
        st = keys ? spt_sparse_map_new_with_keys(ir, dr, nk, keys, np, ind, dep, m) : spt_sparse_map_new(ir, dr, np, ind, dep, m);
    free(pairs);
    free(keys);
    free(ind);
    free(dep);
    return st;
}

static conf_result h_sparse_map_new(const conf_case *c) {
    spt_sparse_map *m = NULL;
    spt_status st = make_map(conf_arg(c, "map"), &m);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        json_t *nk = json_object_get(res, "nkeys"), *sz = json_object_get(res, "size");
        r = CONF_PASS;
        if (nk && spt_sparse_map_nkeys(m) != json_integer_value(nk)) r = conf_fail(c, "nkeys %lld", (long long)spt_sparse_map_nkeys(m));
        if (sz && spt_sparse_map_size(m) != json_integer_value(sz)) r = conf_fail(c, "size %lld", (long long)spt_sparse_map_size(m));
    }
    spt_sparse_map_free(m);
    return r;
}

static conf_result h_tot_new(const conf_case *c) {
    long no;
    int64_t *osh = conf_ints_new(c, "outer_shape", &no), n, orank, n2, irank;
    int64_t *outer = matrix(conf_arg(c, "outer"), &n, &orank), *ish = matrix(conf_arg(c, "inner_shapes"), &n2, &irank);
    json_t *jor = conf_arg(c, "outer_rank"), *jir = conf_arg(c, "inner_rank");
    if (jor) orank = json_integer_value(jor);
    else if (n == 0) orank = no;
    if (jir) irank = json_integer_value(jir);
    spt_dense *vals = NULL;
    spt_dtype dt = conf_dtype(c->args, SPT_FLOAT64);
    spt_status st = conf_arg(c, "values") ? conf_dense(conf_arg(c, "values"), dt, &vals) : SPT_OK;
    spt_tot *t = (spt_tot *)&t;
    if (st == SPT_OK) st = spt_tot_new(dt, orank, osh, irank, n, outer, ish, vals ? spt_dense_data(vals) : NULL, &t);
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && t != NULL && t != (spt_tot *)&t) r = conf_fail(c, "out-parameter not NULL after an error");
    if (st == SPT_OK) {
        json_t *cnt = json_object_get(json_object_get(c->root, "result"), "count");
        if (r == CONF_CONTINUE) r = cnt && spt_tot_count(t) != json_integer_value(cnt) ? conf_fail(c, "count differs") : CONF_PASS;
        spt_tot_free(t);
    }
    spt_dense_free(vals);
    free(osh);
    free(outer);
    free(ish);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

static conf_result h_sparsify(const conf_case *c) {
    spt_sparse_map *m = NULL;
    spt_tensor *T = NULL;
    spt_tot *tot = NULL;
    long ni, no;
    int64_t *i2m = conf_ints_new(c, "ind2mode", &ni), *osh = conf_ints_new(c, "outer_shape", &no);
    spt_status st = make_map(conf_arg(c, "map"), &m);
    if (st == SPT_OK) st = conf_sparse(conf_arg(c, "T"), false, &T);
    if (st == SPT_OK) {
        json_t *jn = conf_arg(c, "nmap");
        int64_t nmap = jn ? (int64_t)json_integer_value(jn) : ni / 2;
        if (json_is_true(conf_arg(c, "dense"))) {
            spt_dense *D = NULL;
            st = spt_to_dense(T, NULL, false, &D);
            if (st == SPT_OK) st = spt_sparsify_dense(D, m, nmap, i2m, osh, &tot);
            spt_dense_free(D);
        } else {
            st = spt_sparsify(T, m, nmap, i2m, osh, &tot);
        }
    }
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *cnt = json_object_get(json_object_get(c->root, "result"), "count");
        r = cnt && spt_tot_count(tot) != json_integer_value(cnt) ? conf_fail(c, "count %lld", (long long)spt_tot_count(tot)) : CONF_PASS;
    }
    spt_tot_free(tot);
    spt_tensor_free(T);
    spt_sparse_map_free(m);
    free(i2m);
    free(osh);
    return r;
}

#define MAXN 4096

/* Expected error names of the vectors -> spt status. */
static spt_status expected_status(const char *name) {
    if (!name) return SPT_OK;
    if (!strcmp(name, "rank_mismatch")) return SPT_EINVAL;
    if (!strcmp(name, "index_out_of_range")) return SPT_ERANGE;
    return SPT_EINTERNAL;
}

static conf_result judge_error(const conf_case *c, const char *what, spt_status got, const char *want) {
    spt_status w = expected_status(want);
    if (got == w) return CONF_PASS;
    return conf_fail(c, "%s: expected %s (%s), got %s: %s", what, spt_status_name(w), want, spt_status_name(got),
                     spt_last_error());
}

/* A list of same-length int lists -> rows; returns the count, *rank the length (0 if empty). */
static long conf_rows(const json_t *j, int64_t *rows, long cap, int64_t *rank) {
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
static spt_status build_map(const json_t *j, spt_sparse_map **out) {
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

/* Compare a ToT with the expected list covering every outer index in row-major order. */
static conf_result expect_tot(const conf_case *c, const char *what, const spt_tot *t, const json_t *exp) {
    int64_t nonempty = 0;
    for (size_t i = 0; i < json_array_size(exp); i++) {
        json_t *e = json_array_get(exp, i);
        int64_t outer[SPT_MAX_RANK], shape[SPT_MAX_RANK];
        static double vals[MAXN];
        long r = conf_ints(json_object_get(e, "outer"), outer, SPT_MAX_RANK);
        if (r != spt_tot_outer_rank(t)) return conf_fail(c, "%s: outer rank %lld, expected %ld", what, (long long)spt_tot_outer_rank(t), r);
        spt_tot_inner in;
        spt_status st = spt_tot_get(t, outer, &in);
        if (st != SPT_OK) return conf_fail(c, "%s: spt_tot_get: %s", what, spt_last_error());
        if (json_is_true(json_object_get(e, "empty"))) {
            if (in.present) return conf_fail(c, "%s: outer element %zu should be EMPTY", what, i);
            continue;
        }
        nonempty++;
        if (!in.present) return conf_fail(c, "%s: outer element %zu is EMPTY", what, i);
        long ir = conf_ints(json_object_get(e, "inner_shape"), shape, SPT_MAX_RANK);
        if (ir != in.rank) return conf_fail(c, "%s: outer element %zu: inner rank %lld, expected %ld", what, i, (long long)in.rank, ir);
        for (long k = 0; k < ir; k++)
            if (shape[k] != in.shape[k])
                return conf_fail(c, "%s: outer element %zu: inner dim %ld is %lld, expected %lld", what, i, k,
                                 (long long)in.shape[k], (long long)shape[k]);
        json_t *jv = json_object_get(e, "values");
        if ((int64_t)json_array_size(jv) != in.size) return conf_fail(c, "%s: outer element %zu: %lld values", what, i, (long long)in.size);
        for (int64_t k = 0; k < in.size && k < MAXN; k++) vals[k] = json_number_value(json_array_get(jv, (size_t)k));
        const double *got = in.data;
        for (int64_t k = 0; k < in.size; k++)
            if (got[k] != vals[k])
                return conf_fail(c, "%s: outer element %zu value %lld is %g, expected %g", what, i, (long long)k, got[k], vals[k]);
    }
    if (spt_tot_count(t) != nonempty)
        return conf_fail(c, "%s: %lld non-empty elements, expected %lld", what, (long long)spt_tot_count(t), (long long)nonempty);
    return CONF_PASS;
}

static conf_result sparsify_case(const conf_case *c) {
    json_t *root = c->root, *jd = json_object_get(root, "dense");
    static double tv[MAXN];
    int64_t shape[SPT_MAX_RANK], oshape[SPT_MAX_RANK], i2m[2 * SPT_MAX_RANK], r;
    long R = conf_ints(json_object_get(jd, "shape"), shape, SPT_MAX_RANK);
    json_t *jv = json_object_get(jd, "values");
    for (size_t i = 0; i < json_array_size(jv) && i < MAXN; i++) tv[i] = json_number_value(json_array_get(jv, i));
    long nmap = conf_rows(json_object_get(root, "ind2mode"), i2m, 2 * SPT_MAX_RANK, &r);
    long orank = conf_ints(json_object_get(root, "outer_shape"), oshape, SPT_MAX_RANK);
    if (R < 0 || nmap < 0 || orank < 0) return conf_fail(c, "malformed vector");
    const char *want_err = json_string_value(json_object_get(root, "expect_error"));
    spt_dense *T = NULL;
    spt_tensor *sp = NULL, *sp_rev = NULL;
    spt_sparse_map *sm = NULL;
    spt_tot *a = NULL, *b = NULL, *cc = NULL;
    conf_result res = CONF_PASS;
    if (spt_dense_new_from(SPT_FLOAT64, R, shape, tv, &T) != SPT_OK || spt_from_dense(T, NULL, &sp) != SPT_OK ||
        build_map(json_object_get(root, "sparse_map"), &sm) != SPT_OK) {
        res = conf_fail(c, "building inputs: %s", spt_last_error());
        goto done;
    }
    /* the same sparse T stored in reverse order with no order claimed (exercises the sorted permutation) */
    {
        int64_t n = spt_tensor_nnz(sp);
        int64_t *ix = malloc((size_t)(n * R + 1) * sizeof(int64_t));
        double *v = malloc((size_t)(n + 1) * sizeof(double));
        for (int64_t i = 0; i < n; i++) {
            memcpy(ix + i * R, spt_tensor_indices(sp) + (n - 1 - i) * R, (size_t)R * sizeof(int64_t));
            v[i] = ((const double *)spt_tensor_values(sp))[n - 1 - i];
        }
        spt_status st = spt_tensor_new(SPT_FLOAT64, R, shape, n, ix, v, NULL, &sp_rev);
        free(ix);
        free(v);
        if (st != SPT_OK) {
            res = conf_fail(c, "building inputs: %s", spt_last_error());
            goto done;
        }
    }
    spt_status s1 = spt_sparsify_dense(T, sm, nmap, i2m, oshape, &a);
    spt_status s2 = spt_sparsify(sp, sm, nmap, i2m, oshape, &b);
    spt_status s3 = spt_sparsify(sp_rev, sm, nmap, i2m, oshape, &cc);
    if (want_err) {
        res = judge_error(c, "dense T", s1, want_err);
        if (res == CONF_PASS) res = judge_error(c, "sparse T", s2, want_err);
        if (res == CONF_PASS) res = judge_error(c, "unsorted sparse T", s3, want_err);
        goto done;
    }
    if (s1 != SPT_OK || s2 != SPT_OK || s3 != SPT_OK) {
        res = conf_fail(c, "expected success, got %s/%s/%s: %s", spt_status_name(s1), spt_status_name(s2),
                        spt_status_name(s3), spt_last_error());
        goto done;
    }
    json_t *exp = json_object_get(root, "expected");
    res = expect_tot(c, "dense T", a, exp);
    if (res == CONF_PASS) res = expect_tot(c, "sparse T", b, exp);
    if (res == CONF_PASS) res = expect_tot(c, "unsorted sparse T", cc, exp);
done:
    spt_tot_free(a);
    spt_tot_free(b);
    spt_tot_free(cc);
    spt_sparse_map_free(sm);
    spt_tensor_free(sp);
    spt_tensor_free(sp_rev);
    spt_dense_free(T);
    return res;
}

static conf_result reduce_case(const conf_case *c) {
    json_t *root = c->root, *jt = json_object_get(root, "tot");
    static int64_t outer[MAXN], ishape[MAXN];
    static double vals[MAXN];
    int64_t oshape[SPT_MAX_RANK] = {0}, shape[SPT_MAX_RANK];
    int64_t orank = 0, irank = 0, nv = 0;
    size_t n = json_array_size(jt);
    for (size_t e = 0; e < n; e++) {
        json_t *x = json_array_get(jt, e);
        orank = conf_ints(json_object_get(x, "outer"), outer + e * (size_t)orank, SPT_MAX_RANK);
        irank = conf_ints(json_object_get(x, "inner_shape"), ishape + e * (size_t)irank, SPT_MAX_RANK);
        json_t *jv = json_object_get(x, "values");
        for (size_t k = 0; k < json_array_size(jv); k++) vals[nv++] = json_number_value(json_array_get(jv, k));
    }
    spt_sparse_map *sm = NULL;
    spt_tot *t = NULL;
    spt_dense *A = NULL;
    conf_result res = CONF_PASS;
    if (build_map(json_object_get(root, "sparse_map"), &sm) != SPT_OK) return conf_fail(c, "bad map");
    /* the vectors give no outer shape: use the bounding box of the ToT entries and the keys */
    for (size_t e = 0; e < n; e++)
        for (int64_t k = 0; k < orank; k++)
            if (outer[e * (size_t)orank + (size_t)k] + 1 > oshape[k]) oshape[k] = outer[e * (size_t)orank + (size_t)k] + 1;
    for (int64_t i = 0; i < spt_sparse_map_nkeys(sm); i++)
        for (int64_t k = 0; k < orank; k++)
            if (spt_sparse_map_key(sm, i)[k] + 1 > oshape[k]) oshape[k] = spt_sparse_map_key(sm, i)[k] + 1;
    long rank = conf_ints(json_object_get(root, "output_shape"), shape, SPT_MAX_RANK);
    spt_status st = spt_tot_new(SPT_FLOAT64, orank, oshape, irank, (int64_t)n, outer, ishape, vals, &t);
    if (st == SPT_OK) st = spt_reduce_tot_sum(t, sm, rank, shape, &A);
    if (st != SPT_OK) {
        res = conf_fail(c, "expected success, got %s: %s", spt_status_name(st), spt_last_error());
    } else {
        json_t *exp = json_object_get(root, "expected");
        int64_t es[SPT_MAX_RANK];
        long er = conf_ints(json_object_get(exp, "shape"), es, SPT_MAX_RANK);
        json_t *ev = json_object_get(exp, "values");
        if (er != spt_dense_rank(A) || (int64_t)json_array_size(ev) != spt_dense_size(A)) {
            res = conf_fail(c, "result shape differs");
        } else {
            for (long k = 0; k < er; k++)
                if (es[k] != spt_dense_shape(A)[k]) res = conf_fail(c, "result dim %ld differs", k);
            const double *d = spt_dense_data(A);
            for (int64_t k = 0; k < spt_dense_size(A) && res == CONF_PASS; k++)
                if (d[k] != json_number_value(json_array_get(ev, (size_t)k)))
                    res = conf_fail(c, "result[%lld] = %g, expected %g", (long long)k, d[k],
                                    json_number_value(json_array_get(ev, (size_t)k)));
        }
    }
    spt_dense_free(A);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    return res;
}

/* Injections [[mode, value], ...] -> modes, values. */
static long injections(const json_t *j, int64_t *modes, int64_t *values) {
    for (size_t i = 0; i < json_array_size(j); i++) {
        json_t *p = json_array_get(j, i);
        modes[i] = json_integer_value(json_array_get(p, 0));
        values[i] = json_integer_value(json_array_get(p, 1));
    }
    return (long)json_array_size(j);
}

static spt_status make_domain(const json_t *j, spt_domain **out) {
    static int64_t rows[MAXN];
    int64_t rank;
    long n = conf_rows(j, rows, MAXN, &rank);
    if (n < 0) return SPT_EINTERNAL;
    return spt_domain_new(rank, n, rows, out);
}

/* Compare a domain with a list of indices (as a set). */
static bool domain_equals(const spt_domain *d, const json_t *j) {
    spt_domain *e;
    if (make_domain(j, &e) != SPT_OK) return false;
    bool eq = spt_domain_size(d) == spt_domain_size(e) && spt_domain_rank(d) == spt_domain_rank(e) &&
              (spt_domain_size(d) * spt_domain_rank(d) == 0 ||
               !memcmp(spt_domain_indices(d), spt_domain_indices(e),
                       (size_t)(spt_domain_size(d) * spt_domain_rank(d)) * sizeof(int64_t)));
    spt_domain_free(e);
    return eq;
}

static conf_result domain_inject_case(const conf_case *c) {
    json_t *cases = json_object_get(c->root, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *x = json_array_get(cases, i);
        int64_t modes[SPT_MAX_RANK], values[SPT_MAX_RANK];
        long ninj = injections(json_object_get(x, "injections"), modes, values);
        spt_domain *d = NULL, *r = NULL;
        if (make_domain(json_object_get(x, "domain"), &d) != SPT_OK) return conf_fail(c, "case %zu: bad domain", i);
        spt_status st = spt_domain_inject(d, ninj, modes, values, &r);
        const char *want = json_string_value(json_object_get(x, "expect_error"));
        conf_result res = CONF_PASS;
        if (want) res = judge_error(c, "domain_inject", st, want);
        else if (st != SPT_OK) res = conf_fail(c, "case %zu: %s", i, spt_last_error());
        else if (!domain_equals(r, json_object_get(x, "expected"))) res = conf_fail(c, "case %zu: result differs", i);
        spt_domain_free(d);
        spt_domain_free(r);
        if (res != CONF_PASS) return res;
    }
    return CONF_PASS;
}

static conf_result domain_result_case(const conf_case *c) {
    json_t *cases = json_object_get(c->root, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *x = json_array_get(cases, i);
        spt_domain *d = NULL;
        if (make_domain(json_object_get(x, "domain"), &d) != SPT_OK) return conf_fail(c, "case %zu: bad domain", i);
        conf_result res = CONF_PASS;
        int64_t ext[SPT_MAX_RANK], want[SPT_MAX_RANK], in[SPT_MAX_RANK], got[SPT_MAX_RANK];
        long er = conf_ints(json_object_get(x, "result_extents"), want, SPT_MAX_RANK);
        spt_domain_result_extents(d, ext);
        if (er != spt_domain_rank(d)) res = conf_fail(c, "case %zu: rank %lld, expected %ld", i, (long long)spt_domain_rank(d), er);
        for (long k = 0; k < er && res == CONF_PASS; k++)
            if (ext[k] != want[k]) res = conf_fail(c, "case %zu: extent %ld is %lld, expected %lld", i, k, (long long)ext[k], (long long)want[k]);
        json_t *ri = json_object_get(x, "result_index");
        for (size_t k = 0; k < json_array_size(ri) && res == CONF_PASS; k++) {
            long n = conf_ints(json_array_get(json_array_get(ri, k), 0), in, SPT_MAX_RANK);
            conf_ints(json_array_get(json_array_get(ri, k), 1), want, SPT_MAX_RANK);
            if (spt_domain_result_index(d, n, in, got) != SPT_OK) res = conf_fail(c, "case %zu: %s", i, spt_last_error());
            for (long m = 0; m < n && res == CONF_PASS; m++)
                if (got[m] != want[m]) res = conf_fail(c, "case %zu: result_index %zu differs", i, k);
        }
        json_t *bad = json_object_get(x, "bad_index");
        for (size_t k = 0; k < json_array_size(bad) && res == CONF_PASS; k++) {
            long n = conf_ints(json_array_get(bad, k), in, SPT_MAX_RANK);
            res = judge_error(c, "result_index of a bad index", spt_domain_result_index(d, n, in, got), "index_out_of_range");
        }
        spt_domain_free(d);
        if (res != CONF_PASS) return res;
    }
    return CONF_PASS;
}

static conf_result uninject_case(const conf_case *c) {
    json_t *cases = json_object_get(c->root, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *x = json_array_get(cases, i);
        int64_t modes[SPT_MAX_RANK], values[SPT_MAX_RANK], ix[SPT_MAX_RANK], out[SPT_MAX_RANK], want[SPT_MAX_RANK];
        long ninj = injections(json_object_get(x, "injections"), modes, values);
        long r = conf_ints(json_object_get(x, "index"), ix, SPT_MAX_RANK);
        spt_status st = spt_uninject_index(r, ix, ninj, modes, out);
        const char *werr = json_string_value(json_object_get(x, "expect_error"));
        if (werr) {
            conf_result res = judge_error(c, "uninject", st, werr);
            if (res != CONF_PASS) return res;
            continue;
        }
        if (st != SPT_OK) return conf_fail(c, "case %zu: %s", i, spt_last_error());
        long n = conf_ints(json_object_get(x, "expected"), want, SPT_MAX_RANK);
        if (n != r - ninj) return conf_fail(c, "case %zu: result rank %ld, expected %ld", i, r - ninj, n);
        for (long k = 0; k < n; k++)
            if (out[k] != want[k]) return conf_fail(c, "case %zu: component %ld differs", i, k);
    }
    return CONF_PASS;
}

const conf_op conf_ops_tot[] = {
    {"spt_domain_new", h_domain_new, CONF_OP(spt_domain_new)},
    {"spt_inject_index", h_inject_index, CONF_OP(spt_inject_index)},
    {"spt_sparse_map_new", h_sparse_map_new, CONF_OP(spt_sparse_map_new)},
    {"spt_tot_new", h_tot_new, CONF_OP(spt_tot_new)},
    {"spt_sparsify", h_sparsify, CONF_OP(spt_sparsify)},
    {"sparsify", sparsify_case, CONF_OP(spt_sparsify)},
    {"reduce_tot_sum", reduce_case, CONF_OP(spt_reduce_tot_sum)},
    {"domain_inject", domain_inject_case, CONF_OP(spt_domain_inject)},
    {"domain_result", domain_result_case, CONF_OP(spt_domain_result_index)},
    {"uninject", uninject_case, CONF_OP(spt_uninject_index)},
    {NULL, NULL, 0},
};
