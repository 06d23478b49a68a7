/* SPDX-License-Identifier: Apache-2.0 */
/* ops_features.c -- conformance handlers of the feature ops: to_indicator, bincount (and SparseCountSparseOutput), cross, cross_hashed,
 * the embedding lookups.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */

#include <stdlib.h>
#include <string.h>

static conf_result sparse_to_indicator(const conf_case *c) {
    spt_tensor *t;
    spt_dense *d = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    st = spt_to_indicator(t, json_integer_value(json_object_get(c->args, "vocab_size")), &d);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        json_t *dense = exp ? json_object_get(exp, "dense") : NULL;
        r = dense ? conf_expect_dense(c, dense, d, NULL) : CONF_PASS;
    }
    spt_dense_free(d);
    spt_tensor_free(t);
    return r;
}

/* ---- bincount ---- */

/* A sparse ({"indices", ...} or {"sparse": {...}}) or dense ({"dense": [...]}) operand; exactly one of
 * *sp / *d is set on success. */
static spt_status operand(const json_t *j, spt_tensor **sp, spt_dense **d) {
    *sp = NULL;
    *d = NULL;
    if (json_object_get(j, "sparse")) return conf_sparse(json_object_get(j, "sparse"), false, sp);
    if (json_object_get(j, "indices")) return conf_sparse(j, false, sp);
    if (json_object_get(j, "dense")) return conf_dense(json_object_get(j, "dense"), conf_dtype(j, SPT_INT64), d);
    if (json_object_get(j, "dims")) return conf_dense(j, conf_dtype(j, SPT_INT64), d);
    return SPT_EINVAL;
}

/* tf.sparse.bincount (tf_ops_v2.jsonl); in bad_inputs.jsonl the raw SparseBincount op with a `size`. */
static conf_result bincount(const conf_case *c) {
    if (c->bad_input) {
        json_t *size = json_object_get(c->args, "size");
        if (size && !json_is_integer(size)) /* the C API takes an integer: what a binding would refuse */
            return conf_status(c, spt__err(SPT_EINVAL, "spt_bincount: size must be a scalar"));
        return CONF_SKIP; /* the raw dense-output SparseBincount op is not spt's */
    }
    spt_tensor *vs = NULL, *ws = NULL, *out = NULL;
    spt_dense *vd = NULL, *wd = NULL;
    spt_status st = operand(json_object_get(c->args, "values"), &vs, &vd);
    json_t *jw = json_object_get(c->args, "weights");
    if (st == SPT_OK && jw && !json_is_null(jw)) st = operand(jw, &ws, &wd);
    conf_result r;
    if (st != SPT_OK) {
        r = conf_fail(c, "cannot build the arguments");
    } else {
        int64_t axis = conf_opt_int(c->args, "axis", 0); /* absent or null: 0 */
        int64_t minl = conf_opt_int(c->args, "minlength", SPT_UNSET), maxl = conf_opt_int(c->args, "maxlength", SPT_UNSET);
        bool bin = json_is_true(json_object_get(c->args, "binary_output"));
        if (vs && wd) st = spt__err(SPT_EINVAL, "spt_bincount: weights must be a SparseTensor when values is one");
        else if (vd && ws) st = spt__err(SPT_EINVAL, "spt_bincount_dense: weights must be dense when values is");
        else st = vs ? spt_bincount(vs, ws, axis, minl, maxl, bin, &out) : spt_bincount_dense(vd, wd, axis, minl, maxl, bin, &out);
        r = conf_finish_sparse(c, st, out);
    }
    spt_tensor_free(vs);
    spt_tensor_free(ws);
    spt_dense_free(vd);
    spt_dense_free(wd);
    return r;
}

/* bad_inputs.jsonl's raw SparseCountSparseOutput(indices, values, dense_shape, weights, minlength,
 * maxlength, binary_output): per row of dim 0 (axis -1); weights a list aligned with values (empty =
 * none; ignored with binary_output, as the kernel does). */
static conf_result count_sparse_output(const conf_case *c) {
    json_t *vj = json_deep_copy(c->args);
    json_object_set_new(vj, "dtype", json_string("int64"));
    json_object_del(vj, "weights");
    spt_tensor *vs = NULL, *ws = NULL, *out = NULL;
    spt_status st = conf_sparse(vj, false, &vs);
    json_t *jw = json_object_get(c->args, "weights");
    bool bin = json_is_true(json_object_get(c->args, "binary_output"));
    if (st == SPT_OK && json_array_size(jw) > 0 && !bin) {
        json_object_set(vj, "values", jw);
        json_object_set_new(vj, "dtype", json_string("float64"));
        st = conf_sparse(vj, false, &ws);
    }
    json_decref(vj);
    if (st == SPT_OK)
        st = spt_bincount(vs, ws, -1, conf_opt_int(c->args, "minlength", SPT_UNSET), conf_opt_int(c->args, "maxlength", SPT_UNSET),
                          bin, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = json_object_get(c->root, "result");
        r = exp ? conf_expect_sparse(c, exp, out, NULL) : CONF_PASS;
        int64_t dims[2];
        if (r == CONF_PASS && conf_ints(json_object_get(exp, "indices_dims"), dims, 2) == 2 &&
            (dims[0] != spt_tensor_nnz(out) || dims[1] != spt_tensor_rank(out)))
            r = conf_fail(c, "indices dims [%lld,%lld], expected [%lld,%lld]", (long long)spt_tensor_nnz(out),
                          (long long)spt_tensor_rank(out), (long long)dims[0], (long long)dims[1]);
    }
    spt_tensor_free(vs);
    spt_tensor_free(ws);
    spt_tensor_free(out);
    return r;
}

/* ---- cross, cross_hashed ---- */

/* The dtype of a dense operand without a "dtype" key: string leaves -> string, else int64. */
static spt_dtype leaf_dtype(const json_t *j) {
    while (json_is_array(j) && json_array_size(j) > 0) j = json_array_get(j, 0);
    return json_is_string(j) ? SPT_STRING : SPT_INT64;
}

static void free_cross_inputs(spt_cross_input *in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        spt_tensor_free((spt_tensor *)in[i].sparse);
        spt_dense_free((spt_dense *)in[i].dense);
    }
    free(in);
}

/* inputs: {"sparse": {...}} / {"dense": [...]} (tf_ops*.jsonl) or bare sparse objects (bad_inputs). */
static spt_status cross_inputs(const json_t *j, spt_cross_input **out, size_t *n) {
    *n = json_array_size(j);
    *out = calloc(*n ? *n : 1, sizeof **out);
    if (!*out) return SPT_ENOMEM;
    for (size_t i = 0; i < *n; i++) {
        json_t *x = json_array_get(j, i);
        spt_tensor *sp = NULL;
        spt_dense *d = NULL;
        spt_status st;
        if (json_object_get(x, "dense")) {
            json_t *dj = json_object_get(x, "dense");
            st = conf_dense(dj, conf_dtype(x, leaf_dtype(dj)), &d);
        } else {
            st = conf_sparse(json_object_get(x, "sparse") ? json_object_get(x, "sparse") : x, false, &sp);
        }
        (*out)[i].sparse = sp;
        (*out)[i].dense = d;
        if (st != SPT_OK) {
            free_cross_inputs(*out, i + 1);
            *out = NULL;
            return st;
        }
    }
    return SPT_OK;
}

static conf_result cross_common(const conf_case *c, bool hashed) {
    spt_cross_input *in = NULL;
    size_t n = 0;
    spt_tensor *out = NULL;
    spt_status st = cross_inputs(json_object_get(c->args, "inputs"), &in, &n);
    if (st != SPT_OK) return conf_status(c, st);
    json_t *sep = json_object_get(c->args, "separator");
    const char *itype = json_string_value(json_object_get(c->args, "internal_type"));
    if (json_object_get(c->args, "hashed_output")) hashed = json_is_true(json_object_get(c->args, "hashed_output"));
    if (sep && !json_is_string(sep)) { /* the C API takes one string: what a binding would refuse */
        st = spt__err(SPT_EINVAL, "spt_cross: separator must be a scalar string");
    } else if (itype) { /* the raw op's declared internal type must be the inputs' (type confusion advisory) */
        for (size_t i = 0; i < n && st == SPT_OK; i++) {
            spt_dtype dt = in[i].sparse ? spt_tensor_dtype(in[i].sparse) : spt_dense_dtype(in[i].dense);
            if (strcmp(spt_dtype_name(dt), itype) != 0)
                st = spt__err(SPT_EINVAL, "spt_cross: internal_type %s does not match input %zu of dtype %s", itype, i,
                              spt_dtype_name(dt));
        }
    }
    if (st == SPT_OK) {
        if (hashed) {
            json_t *hk = json_object_get(c->args, "hash_key");
            uint64_t key = json_is_integer(hk) ? (uint64_t)json_integer_value(hk) : SPT_CROSS_DEFAULT_HASH_KEY;
            st = spt_cross_hashed(in, (int64_t)n, conf_opt_int(c->args, "num_buckets", 0), key, &out);
        } else {
            const char *s = sep ? json_string_value(sep) : "_X_";
            st = spt_cross(in, (int64_t)n, s, (int64_t)strlen(s), &out);
        }
    }
    free_cross_inputs(in, n);
    if (c->bad_input) {
        conf_result r = conf_status(c, st);
        spt_tensor_free(out);
        return r == CONF_CONTINUE ? CONF_PASS : r;
    }
    return conf_finish_sparse(c, st, out);
}

static conf_result cross(const conf_case *c) { return cross_common(c, false); }

static conf_result cross_hashed(const conf_case *c) { return cross_common(c, true); }

/* ---- embedding lookups ---- */

static conf_result embedding(const conf_case *c, bool safe) {
    const char *pk = safe ? "embedding_weights" : "params", *ik = safe ? "sparse_ids" : "sp_ids",
               *wk = safe ? "sparse_weights" : "sp_weights";
    spt_dense *params = NULL, *out = NULL;
    spt_tensor *ids = NULL, *w = NULL;
    spt_status st = conf_dense(json_object_get(c->args, pk), conf_dtype(c->args, SPT_FLOAT32), &params);
    if (st == SPT_OK) st = conf_sparse(json_object_get(c->args, ik), false, &ids);
    json_t *jw = json_object_get(c->args, wk);
    if (st == SPT_OK && jw && !json_is_null(jw)) st = conf_sparse(jw, false, &w);
    conf_result r;
    if (st != SPT_OK) {
        r = conf_fail(c, "cannot build the arguments");
    } else {
        const char *cb = json_string_value(json_object_get(c->args, "combiner"));
        spt_combiner comb = !cb || !strcmp(cb, "mean") ? SPT_COMBINER_MEAN : !strcmp(cb, "sum") ? SPT_COMBINER_SUM
                            : !strcmp(cb, "sqrtn")   ? SPT_COMBINER_SQRTN
                                                     : (spt_combiner)-1;
        const spt_dense *const tables[1] = {params};
        st = safe ? spt_safe_embedding_lookup_sparse(tables, 1, ids, w, comb, conf_opt_int(c->args, "default_id", SPT_UNSET), &out)
                  : spt_embedding_lookup_sparse(tables, 1, ids, w, comb, &out);
        r = conf_status(c, st);
        if (r == CONF_CONTINUE) r = conf_expect_dense(c, json_object_get(c->expect, "dense"), out, c->expect);
    }
    spt_dense_free(params);
    spt_dense_free(out);
    spt_tensor_free(ids);
    spt_tensor_free(w);
    return r;
}

static conf_result embedding_lookup_sparse(const conf_case *c) { return embedding(c, false); }

static conf_result safe_embedding_lookup_sparse(const conf_case *c) { return embedding(c, true); }

const conf_op conf_ops_features[] = {
    {"sparse_to_indicator", sparse_to_indicator, CONF_OP(spt_to_indicator)},
    {"sparse_bincount", bincount, CONF_OP(spt_bincount)},
    {"sparse_count_sparse_output", count_sparse_output, CONF_OP(spt_bincount)},
    {"sparse_cross", cross, CONF_OP(spt_cross)},
    {"sparse_cross_hashed", cross_hashed, CONF_OP(spt_cross_hashed)},
    {"embedding_lookup_sparse", embedding_lookup_sparse, CONF_OP(spt_embedding_lookup_sparse)},
    {"safe_embedding_lookup_sparse", safe_embedding_lookup_sparse, CONF_OP(spt_safe_embedding_lookup_sparse)},
    {NULL, NULL, 0},
};
