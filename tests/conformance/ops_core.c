/* SPDX-License-Identifier: Apache-2.0 */
/* ops_core.c -- conformance handlers of the core: the SparseTensor class of TensorFlow's C++ API (st_*: DimComparator, IndicesValid, Reorder,
 * group, construction) and spt's own reorder, argsort, order metadata and construction counts.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"

#include <stdlib.h>

static conf_result st_dim_comparator_sort(const conf_case *c) {
    json_t *a = c->args;
    json_t *sp = json_pack("{s:O,s:[],s:O,s:s}", "indices", json_object_get(a, "indices"), "values", "shape",
                           json_object_get(a, "shape"), "dtype", "int64");
    /* values: one per row */
    json_t *vals = json_object_get(sp, "values");
    for (size_t i = 0; i < json_array_size(json_object_get(a, "indices")); i++) json_array_append_new(vals, json_integer((json_int_t)i));
    spt_tensor *t;
    spt_status st = conf_sparse(sp, false, &t);
    json_decref(sp);
    JUDGE(c, st);
    int64_t order[SPT_MAX_RANK], perm[64];
    conf_ints(json_object_get(a, "order"), order, SPT_MAX_RANK);
    st = spt_argsort(t, order, perm);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        int64_t want[64];
        long n = conf_ints(json_object_get(c->expect, "permutation"), want, 64);
        r = CONF_PASS;
        for (long i = 0; i < n && r == CONF_PASS; i++)
            if (perm[i] != want[i]) r = conf_fail(c, "perm[%ld] = %lld, expected %lld", i, (long long)perm[i], (long long)want[i]);
    }
    spt_tensor_free(t);
    return r;
}

/* A sparse operand with an "order" argument applied as metadata. */
static spt_status sparse_with_order(const conf_case *c, spt_tensor **t) {
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, t);
    if (st != SPT_OK) return st;
    int64_t order[SPT_MAX_RANK];
    long n = conf_ints(json_object_get(c->args, "order"), order, SPT_MAX_RANK);
    if (n >= 0) st = spt_tensor_set_order(*t, order);
    return st;
}

static conf_result st_indices_valid(const conf_case *c) {
    spt_tensor *t;
    spt_status st = sparse_with_order(c, &t);
    if (st == SPT_OK) st = spt_indices_valid(t);
    spt_tensor_free(t);
    conf_result r = conf_status(c, st);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

static conf_result st_reorder(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t order[SPT_MAX_RANK];
    conf_ints(json_object_get(c->args, "order"), order, SPT_MAX_RANK);
    st = spt_reorder(t, order);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        r = conf_expect_sparse(c, c->expect, t, NULL);
        if (r == CONF_PASS && json_is_true(json_object_get(c->expect, "indices_valid")) && spt_indices_valid(t) != SPT_OK)
            r = conf_fail(c, "IndicesValid failed after reorder: %s", spt_last_error());
    }
    spt_tensor_free(t);
    return r;
}

static conf_result st_create(const conf_case *c) {
    json_t *a = c->args;
    int64_t ishape[8], vshape[8], shape[SPT_MAX_RANK], order[SPT_MAX_RANK];
    long ir = conf_ints(json_object_get(a, "indices_shape"), ishape, 8);
    long vr = conf_ints(json_object_get(a, "values_shape"), vshape, 8);
    long sr = conf_ints(json_object_get(a, "shape"), shape, SPT_MAX_RANK);
    long orr = conf_ints(json_object_get(a, "order"), order, SPT_MAX_RANK);
    spt_dtype idt = SPT_INT64;
    const char *ids = json_string_value(json_object_get(a, "indices_dtype"));
    if (ids) spt_dtype_from_name(ids, &idt);
    spt_dense *ix = NULL, *vals = NULL, *sh = NULL, *ord = NULL;
    spt_tensor *t = NULL;
    int64_t one = sr, onr = orr;
    spt_status st = spt_dense_new(idt, ir, ishape, &ix);
    if (st == SPT_OK) st = spt_dense_new(SPT_STRING, vr, vshape, &vals);
    if (st == SPT_OK) st = spt_dense_new_from(SPT_INT64, 1, &one, shape, &sh);
    if (st == SPT_OK && orr >= 0) st = spt_dense_new_from(SPT_INT64, 1, &onr, order, &ord);
    if (st == SPT_OK) st = spt_tensor_create(ix, vals, sh, ord, &t);
    spt_tensor_free(t);
    spt_dense_free(ix);
    spt_dense_free(vals);
    spt_dense_free(sh);
    spt_dense_free(ord);
    conf_result r = conf_status(c, st);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

static conf_result st_group(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t order[SPT_MAX_RANK], dims[SPT_MAX_RANK];
    conf_result r = CONF_PASS;
    if (conf_ints(json_object_get(c->args, "reorder"), order, SPT_MAX_RANK) >= 0) st = spt_reorder(t, order);
    long nd = conf_ints(json_object_get(c->args, "group_dims"), dims, SPT_MAX_RANK);
    spt_group_iter *it = NULL;
    if (st == SPT_OK) st = spt_group_begin(t, dims, nd, &it);
    r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *groups = json_object_get(c->expect, "groups");
        spt_group g;
        size_t k = 0;
        r = CONF_PASS;
        while (r == CONF_PASS && spt_group_next(it, &g)) {
            json_t *e = json_array_get(groups, k++);
            if (!e) {
                r = conf_fail(c, "more groups than expected");
                break;
            }
            int64_t key[SPT_MAX_RANK];
            long kn = conf_ints(json_object_get(e, "group"), key, SPT_MAX_RANK);
            for (long i = 0; i < kn; i++)
                if (key[i] != g.key[i]) r = conf_fail(c, "group %zu key differs", k - 1);
            spt_tensor *view;
            if (r == CONF_PASS &&
                spt_tensor_new(spt_tensor_dtype(t), spt_tensor_rank(t), spt_tensor_shape(t), g.count, g.indices, g.values,
                               NULL, &view) == SPT_OK) {
                r = conf_expect_sparse(c, e, view, NULL);
                spt_tensor_free(view);
            }
        }
        if (r == CONF_PASS && k != json_array_size(groups)) r = conf_fail(c, "%zu groups, expected %zu", k, json_array_size(groups));
    }
    spt_group_end(it);
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_reorder(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    if (st == SPT_OK) st = spt_reorder(t, NULL);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = c->bad_input ? json_object_get(c->root, "result") : c->expect;
        r = exp ? conf_expect_sparse(c, exp, t, NULL) : CONF_PASS;
        int64_t dims[2];
        if (r == CONF_PASS && exp && conf_ints(json_object_get(exp, "indices_dims"), dims, 2) == 2 &&
            (dims[0] != spt_tensor_nnz(t) || dims[1] != spt_tensor_rank(t)))
            r = conf_fail(c, "indices dims differ");
    }
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_tensor_create(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), true, &t);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        r = CONF_PASS;
        json_t *res = json_object_get(c->root, "result");
        json_t *ne = res ? json_object_get(res, "num_elements") : NULL;
        if (ne && json_integer_value(ne) != spt_tensor_volume(t)) r = conf_fail(c, "volume %lld", (long long)spt_tensor_volume(t));
    }
    spt_tensor_free(t);
    return r;
}

/* ---- order, reorder, argsort, group ---- */

static conf_result h_reorder(const conf_case *c) {
    spt_tensor *t = NULL;
    long n;
    int64_t *order = conf_ints_new(c, "order", &n);
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK) st = spt_reorder(t, order);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        r = res ? conf_expect_sparse(c, res, t, NULL) : CONF_PASS;
        if (r == CONF_PASS && !spt_tensor_known_sorted(t)) r = conf_fail(c, "not flagged sorted after reorder");
    }
    spt_tensor_free(t);
    free(order);
    return r;
}

static conf_result h_argsort(const conf_case *c) {
    spt_tensor *t = NULL;
    long n;
    int64_t *order = conf_ints_new(c, "order", &n), perm[64];
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK && spt_tensor_nnz(t) > 64) st = SPT_EINTERNAL;
    if (st == SPT_OK) st = spt_argsort(t, order, perm);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        int64_t want[64];
        long m = conf_ints(json_object_get(json_object_get(c->root, "result"), "permutation"), want, 64);
        r = CONF_PASS;
        for (long i = 0; i < m && r == CONF_PASS; i++)
            if (perm[i] != want[i]) r = conf_fail(c, "perm[%ld] = %lld, expected %lld", i, (long long)perm[i], (long long)want[i]);
    }
    spt_tensor_free(t);
    free(order);
    return r;
}

static conf_result h_set_order(const conf_case *c) {
    spt_tensor *t = NULL;
    long n;
    int64_t *order = conf_ints_new(c, "order", &n);
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK) st = spt_tensor_set_order(t, order);
    conf_result r = conf_judge(c, st);
    spt_tensor_free(t);
    free(order);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

static conf_result h_group(const conf_case *c) {
    spt_tensor *t = NULL;
    long nr, nd;
    int64_t *reorder = conf_ints_new(c, "reorder", &nr), *dims = conf_ints_new(c, "group_dims", &nd);
    spt_group_iter *it = NULL;
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK && reorder) st = spt_reorder(t, reorder);
    if (st == SPT_OK) {
        json_t *jn = conf_arg(c, "ndims");
        st = spt_group_begin(t, dims, jn ? (int64_t)json_integer_value(jn) : nd < 0 ? 0 : nd, &it);
    }
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *want = json_object_get(json_object_get(c->root, "result"), "groups");
        spt_group g;
        int64_t k = 0;
        while (spt_group_next(it, &g)) k++;
        r = want && k != json_integer_value(want) ? conf_fail(c, "%lld groups, expected %lld", (long long)k, (long long)json_integer_value(want)) : CONF_PASS;
    }
    spt_group_end(it);
    spt_tensor_free(t);
    free(reorder);
    free(dims);
    return r;
}

/* ---- construction from counts (claimed sizes with NULL buffers) ---- */

static conf_result h_tensor_new(const conf_case *c) {
    long ns, no;
    int64_t *shape = conf_ints_new(c, "shape", &ns), *order = conf_ints_new(c, "order", &no);
    spt_dtype dt = conf_dtype(c->args, SPT_FLOAT64);
    json_t *jr = conf_arg(c, "rank");
    int64_t rank = jr ? (int64_t)json_integer_value(jr) : ns, nnz = json_integer_value(conf_arg(c, "nnz"));
    spt_tensor *t = (spt_tensor *)&t;
    spt_status st = json_is_true(conf_arg(c, "wrap")) ? spt_tensor_wrap(dt, rank, shape, nnz, NULL, NULL, order, NULL, NULL, &t)
                                                 : spt_tensor_new(dt, rank, shape, nnz, NULL, NULL, order, &t);
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && t != NULL) r = conf_fail(c, "out-parameter not NULL after an error");
    if (st == SPT_OK) spt_tensor_free(t);
    free(shape);
    free(order);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

const conf_op conf_ops_core[] = {
    {"st_dim_comparator_sort", st_dim_comparator_sort, CONF_OP(spt_argsort)},
    {"st_indices_valid", st_indices_valid, CONF_OP(spt_indices_valid)},
    {"st_reorder", st_reorder, CONF_OP(spt_reorder)},
    {"st_create", st_create, CONF_OP(spt_tensor_create)},
    {"st_group", st_group, CONF_OP(spt_group_begin)},
    {"sparse_reorder", sparse_reorder, CONF_OP(spt_reorder)},
    {"sparse_tensor_create", sparse_tensor_create, CONF_OP(spt_tensor_create)},
    {"spt_reorder", h_reorder, CONF_OP(spt_reorder)},
    {"spt_argsort", h_argsort, CONF_OP(spt_argsort)},
    {"spt_tensor_set_order", h_set_order, CONF_OP(spt_tensor_set_order)},
    {"spt_group", h_group, CONF_OP(spt_group_begin)},
    {"spt_tensor_new", h_tensor_new, CONF_OP(spt_tensor_new)},
    {NULL, NULL, 0},
};
