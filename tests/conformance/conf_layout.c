/* SPDX-License-Identifier: Apache-2.0 */
/* ops_layout.c -- conformance handlers of the layout ops: dense conversion, concat (C++ and tf.sparse), split, slice, retain,
 * reset_shape, fill_empty_rows, reshape, transpose, merge, expand_dims, eye.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */

#include <stdlib.h>

static conf_result st_to_dense(const conf_case *c) {
    spt_tensor *t;
    spt_dense *d = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t oshape[SPT_MAX_RANK];
    long r = conf_ints(json_object_get(c->args, "out_shape"), oshape, SPT_MAX_RANK);
    st = spt_dense_new(spt_tensor_dtype(t), r, oshape, &d);
    if (st == SPT_OK) st = spt_to_dense_into(t, d, json_is_true(json_object_get(c->args, "initialize")), NULL);
    conf_result res;
    if (json_is_false(json_object_get(c->expect, "returns")))
        res = st != SPT_OK ? CONF_PASS : conf_fail(c, "expected a refusal, got success");
    else if (st != SPT_OK)
        res = conf_fail(c, "%s: %s", spt_status_name(st), spt_last_error());
    else
        res = conf_expect_dense(c, json_object_get(c->expect, "dense"), d, NULL);
    spt_dense_free(d);
    spt_tensor_free(t);
    return res;
}

static conf_result check_dense_result(const conf_case *c, const spt_dense *d) {
    json_t *exp = c->bad_input ? json_object_get(c->root, "result") : c->expect;
    json_t *dense = exp ? json_object_get(exp, "dense") : NULL;
    return dense ? conf_expect_dense(c, dense, d, c->expect) : CONF_PASS;
}

static conf_result sparse_to_dense(const conf_case *c) {
    json_t *a = c->args;
    spt_dtype dt = conf_dtype(a, SPT_FLOAT64), it = SPT_INT64;
    const char *its = json_string_value(json_object_get(a, "index_dtype"));
    if (its) spt_dtype_from_name(its, &it);
    spt_dense *ix = NULL, *os = NULL, *sv = NULL, *dv = NULL, *out = NULL;
    spt_status st = conf_dense(json_object_get(a, "sparse_indices"), it, &ix);
    if (st == SPT_OK) st = conf_dense(json_object_get(a, "output_shape"), it, &os);
    if (st == SPT_OK) st = conf_dense(json_object_get(a, "sparse_values"), dt, &sv);
    if (st == SPT_OK) st = conf_dense(json_object_get(a, "default_value"), dt, &dv);
    if (st == SPT_OK) {
        json_t *vi = json_object_get(a, "validate_indices");
        st = spt_sparse_to_dense(ix, os, sv, dv, vi ? json_is_true(vi) : true, &out);
    }
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = check_dense_result(c, out);
    spt_dense_free(ix);
    spt_dense_free(os);
    spt_dense_free(sv);
    spt_dense_free(dv);
    spt_dense_free(out);
    return r;
}

static conf_result sparse_tensor_to_dense(const conf_case *c) {
    spt_tensor *t;
    spt_dense *d = NULL, *dv = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    json_t *jd = json_object_get(c->args, "default_value");
    if (jd && !json_is_null(jd)) st = conf_dense(jd, spt_tensor_dtype(t), &dv);
    json_t *vi = json_object_get(c->args, "validate_indices");
    if (st == SPT_OK) st = spt_to_dense(t, dv ? spt_dense_data(dv) : NULL, vi ? json_is_true(vi) : true, &d);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = check_dense_result(c, d);
    spt_dense_free(d);
    spt_dense_free(dv);
    spt_tensor_free(t);
    return r;
}

static conf_result from_dense(const conf_case *c) {
    spt_dense *d;
    spt_tensor *t = NULL;
    spt_status st = conf_dense(json_object_get(c->args, "dense"), conf_dtype(c->args, SPT_INT64), &d);
    if (st == SPT_OK) st = spt_from_dense(d, NULL, &t);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_expect_sparse(c, c->expect, t, NULL);
    spt_tensor_free(t);
    spt_dense_free(d);
    return r;
}

/* conf_expect_sparse plus bad_inputs' "indices_dims" [nnz, rank]. */
static conf_result expect_sparse(const conf_case *c, const json_t *exp, const spt_tensor *t) {
    if (!exp) return CONF_PASS;
    conf_result r = conf_expect_sparse(c, exp, t, c->bad_input ? NULL : c->expect);
    int64_t dims[2];
    if (r == CONF_PASS && conf_ints(json_object_get(exp, "indices_dims"), dims, 2) == 2 &&
        (dims[0] != spt_tensor_nnz(t) || dims[1] != spt_tensor_rank(t)))
        r = conf_fail(c, "indices dims [%lld,%lld], expected [%lld,%lld]", (long long)spt_tensor_nnz(t),
                      (long long)spt_tensor_rank(t), (long long)dims[0], (long long)dims[1]);
    return r;
}

/* A list of sparse operands (or one object, as a list of one). */
static spt_status sparse_list(const json_t *j, spt_tensor ***out, int64_t *n) {
    *out = NULL;
    *n = 0;
    bool single = json_is_object(j);
    size_t m = single ? 1 : json_array_size(j);
    spt_tensor **ts = calloc(m ? m : 1, sizeof *ts);
    if (!ts) return SPT_ENOMEM;
    for (size_t i = 0; i < m; i++) {
        spt_status st = conf_sparse(single ? j : json_array_get(j, i), false, &ts[i]);
        if (st != SPT_OK) {
            for (size_t k = 0; k < i; k++) spt_tensor_free(ts[k]);
            free(ts);
            return st;
        }
    }
    *out = ts;
    *n = (int64_t)m;
    return SPT_OK;
}

static void free_list(spt_tensor **ts, int64_t n) {
    for (int64_t i = 0; i < n; i++) spt_tensor_free(ts[i]);
    free(ts);
}

static conf_result st_concat(const conf_case *c) {
    spt_tensor **ts, *out = NULL;
    int64_t n;
    spt_status st = sparse_list(json_object_get(c->args, "inputs"), &ts, &n);
    JUDGE(c, st);
    st = spt_concat_primary((const spt_tensor *const *)ts, n, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    free_list(ts, n);
    return r;
}

static conf_result sparse_concat(const conf_case *c) {
    spt_tensor **ts, *out = NULL;
    int64_t n;
    spt_status st = sparse_list(json_object_get(c->args, "sp_inputs"), &ts, &n);
    JUDGE(c, st);
    int64_t axis = 0;
    conf_ints(json_object_get(c->args, "axis"), &axis, 1);
    /* TF 1 spells the keyword expand_nonconcat_dim, TF 2 (tf_ops_v2.jsonl) expand_nonconcat_dims */
    bool expand = json_is_true(json_object_get(c->args, "expand_nonconcat_dim")) ||
                  json_is_true(json_object_get(c->args, "expand_nonconcat_dims"));
    st = spt_concat((const spt_tensor *const *)ts, n, axis, expand, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    free_list(ts, n);
    return r;
}

static conf_result split_common(const conf_case *c) {
    json_t *a = c->args;
    json_t *jaxis = json_object_get(a, "axis");
    if (!jaxis) jaxis = json_object_get(a, "split_dim");
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(a, "sp"), false, &t);
    JUDGE(c, st);
    int64_t num = json_integer_value(json_object_get(a, "num_split")), axis = 0;
    if (!json_is_integer(jaxis)) {
        spt_tensor_free(t);
        return conf_status(c, spt__err(SPT_EINVAL, "spt_split: Input axis should be a scalar but received shape [%zu]",
                                       json_array_size(jaxis)));
    }
    axis = json_integer_value(jaxis);
    if (num > (1 << 20)) { /* the harness does not provide that many slots */
        spt_tensor_free(t);
        return CONF_SKIP;
    }
    spt_tensor **outs = calloc((size_t)(num > 0 ? num : 1), sizeof *outs);
    st = outs ? spt_split(t, axis, num, outs) : SPT_ENOMEM;
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        json_t *list = exp && json_is_array(exp) ? exp : exp ? json_object_get(exp, "outputs") : NULL;
        r = CONF_PASS;
        if (list && (int64_t)json_array_size(list) != num) r = conf_fail(c, "%lld pieces, expected %zu", (long long)num, json_array_size(list));
        for (int64_t k = 0; list && r == CONF_PASS && k < num; k++) r = expect_sparse(c, json_array_get(list, (size_t)k), outs[k]);
    }
    if (st == SPT_OK)
        for (int64_t k = 0; k < num; k++) spt_tensor_free(outs[k]);
    free(outs);
    spt_tensor_free(t);
    return r;
}

static conf_result slice_common(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t start[SPT_MAX_RANK], size[SPT_MAX_RANK];
    long ns = conf_ints(json_object_get(c->args, "start"), start, SPT_MAX_RANK);
    long nz = conf_ints(json_object_get(c->args, "size"), size, SPT_MAX_RANK);
    if (ns != spt_tensor_rank(t))
        st = spt__err(SPT_EINVAL, "spt_slice: Expected start to be a vector of length %lld but got length %ld",
                      (long long)spt_tensor_rank(t), ns);
    else if (nz != spt_tensor_rank(t))
        st = spt__err(SPT_EINVAL, "spt_slice: Expected size to be a vector of length %lld but got length %ld",
                      (long long)spt_tensor_rank(t), nz);
    else
        st = spt_slice(t, start, size, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_retain(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    json_t *m = json_object_get(c->args, "to_retain");
    size_t n = json_array_size(m);
    bool *mask = calloc(n ? n : 1, sizeof *mask);
    for (size_t i = 0; mask && i < n; i++) mask[i] = json_is_true(json_array_get(m, i));
    st = mask ? spt_retain(t, mask, (int64_t)n, &out) : SPT_ENOMEM;
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    free(mask);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_reset_shape(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    json_t *js = json_object_get(c->args, "new_shape");
    int64_t shape[SPT_MAX_RANK];
    if (js && !json_is_null(js)) {
        long k = conf_ints(js, shape, SPT_MAX_RANK);
        if (k != spt_tensor_rank(t))
            st = spt__err(SPT_EINVAL, "spt_reset_shape: new_shape has %ld dims, the tensor has rank %lld", k,
                          (long long)spt_tensor_rank(t));
        else
            st = spt_reset_shape(t, shape, &out);
    } else {
        st = spt_reset_shape(t, NULL, &out);
    }
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_fill_empty_rows(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_dense *dv = NULL, *ind = NULL, *rev = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    st = conf_dense(json_object_get(c->args, "default_value"), spt_tensor_dtype(t), &dv);
    if (st == SPT_OK && spt_dense_rank(dv) != 0)
        st = spt__err(SPT_EINVAL, "spt_fill_empty_rows: default_value must be a scalar, saw rank %lld", (long long)spt_dense_rank(dv));
    if (st == SPT_OK) st = spt_fill_empty_rows(t, spt_dense_data(dv), &out, &ind, &rev);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        r = expect_sparse(c, exp, out);
        json_t *je = exp ? json_object_get(exp, "empty_row_indicator") : NULL;
        if (r == CONF_PASS && je) r = conf_expect_values(c, je, SPT_BOOL, spt_dense_data(ind), spt_dense_size(ind), NULL);
        json_t *jr = exp ? json_object_get(exp, "reverse_index_map") : NULL;
        if (r == CONF_PASS && jr) r = conf_expect_values(c, jr, SPT_INT64, spt_dense_data(rev), spt_dense_size(rev), NULL);
    }
    spt_tensor_free(out);
    spt_dense_free(dv);
    spt_dense_free(ind);
    spt_dense_free(rev);
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_reshape(const conf_case *c) {
    json_t *a = c->args;
    spt_tensor *t = NULL, *out = NULL;
    spt_status st;
    json_t *jshape = json_object_get(a, "shape");
    if (json_object_get(a, "sp")) {
        st = conf_sparse(json_object_get(a, "sp"), false, &t);
    } else { /* raw-op form: input_indices, input_shape, new_shape (values do not matter) */
        json_t *ji = json_object_get(a, "input_indices");
        size_t n = json_is_array(ji) ? json_array_size(ji) : (size_t)json_integer_value(json_array_get(json_object_get(ji, "dims"), 0));
        json_t *vals = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(vals, json_real(0));
        json_t *sp = json_pack("{s:O,s:o,s:O}", "indices", ji, "values", vals, "shape", json_object_get(a, "input_shape"));
        st = conf_sparse(sp, false, &t);
        json_decref(sp);
        jshape = json_object_get(a, "new_shape");
    }
    JUDGE(c, st);
    int64_t shape[SPT_MAX_RANK];
    long k = conf_ints(jshape, shape, SPT_MAX_RANK);
    st = spt_reshape(t, k, shape, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_transpose(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t perm[SPT_MAX_RANK];
    json_t *jp = json_object_get(c->args, "perm");
    bool given = jp && !json_is_null(jp);
    if (given && conf_ints(jp, perm, SPT_MAX_RANK) != spt_tensor_rank(t))
        st = spt__err(SPT_EINVAL, "spt_transpose: perm length differs from the rank");
    else
        st = spt_transpose(t, given ? perm : NULL, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

static conf_result sparse_merge(const conf_case *c) {
    spt_tensor **ids, *vals = NULL, *out = NULL;
    int64_t n;
    spt_status st = sparse_list(json_object_get(c->args, "sp_ids"), &ids, &n);
    JUDGE(c, st);
    st = conf_sparse(json_object_get(c->args, "sp_values"), false, &vals);
    int64_t vocab[SPT_MAX_RANK];
    long nv = conf_ints(json_object_get(c->args, "vocab_size"), vocab, SPT_MAX_RANK);
    if (st == SPT_OK)
        st = spt_merge((const spt_tensor *const *)ids, n, vals, vocab, nv, json_is_true(json_object_get(c->args, "already_sorted")),
                       &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = expect_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(vals);
    free_list(ids, n);
    return r;
}

static conf_result expand_dims(const conf_case *c) {
    spt_tensor *sp = NULL, *out = NULL;
    JUDGE(c, conf_sparse(json_object_get(c->args, "sp"), false, &sp));
    spt_status st = spt_expand_dims(sp, conf_opt_int(c->args, "axis", -1), &out); /* TF 2's default axis is -1 */
    spt_tensor_free(sp);
    return conf_finish_sparse(c, st, out);
}

static conf_result eye(const conf_case *c) {
    spt_tensor *out = NULL;
    spt_status st = spt_eye(conf_opt_int(c->args, "num_rows", 0), conf_opt_int(c->args, "num_columns", SPT_UNSET),
                            conf_dtype(c->args, SPT_FLOAT32), &out);
    return conf_finish_sparse(c, st, out);
}

const conf_op conf_ops_layout[] = {
    {"st_to_dense", st_to_dense, CONF_OP(spt_to_dense_into)},
    {"sparse_to_dense", sparse_to_dense, CONF_OP(spt_sparse_to_dense)},
    {"sparse_tensor_to_dense", sparse_tensor_to_dense, CONF_OP(spt_to_dense)},
    {"from_dense", from_dense, CONF_OP(spt_from_dense)},
    {"st_concat", st_concat, CONF_OP(spt_concat_primary)},
    {"sparse_concat", sparse_concat, CONF_OP(spt_concat)},
    {"st_split", split_common, CONF_OP(spt_split)},
    {"sparse_split", split_common, CONF_OP(spt_split)},
    {"st_slice", slice_common, CONF_OP(spt_slice)},
    {"sparse_slice", slice_common, CONF_OP(spt_slice)},
    {"sparse_retain", sparse_retain, CONF_OP(spt_retain)},
    {"sparse_reset_shape", sparse_reset_shape, CONF_OP(spt_reset_shape)},
    {"sparse_fill_empty_rows", sparse_fill_empty_rows, CONF_OP(spt_fill_empty_rows)},
    {"sparse_reshape", sparse_reshape, CONF_OP(spt_reshape)},
    {"sparse_transpose", sparse_transpose, CONF_OP(spt_transpose)},
    {"sparse_merge", sparse_merge, CONF_OP(spt_merge)},
    {"sparse_expand_dims", expand_dims, CONF_OP(spt_expand_dims)},
    {"sparse_eye", eye, CONF_OP(spt_eye)},
    {NULL, NULL, 0},
};
