/* SPDX-License-Identifier: Apache-2.0 */
/* conf_features.c -- what the conformance handlers of several features ops share (each handler lives in its
 * op's C test, under SPT_CONFORMANCE; declarations in conf.h). */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */

#include <stdlib.h>
#include <string.h>
/* ---- cross, cross_hashed ---- */

/* The dtype of a dense operand without a "dtype" key: string leaves -> string, else int64. */
spt_dtype conf_leaf_dtype(const json_t *j) {
    while (json_is_array(j) && json_array_size(j) > 0) j = json_array_get(j, 0);
    return json_is_string(j) ? SPT_STRING : SPT_INT64;
}

void conf_free_cross_inputs(spt_cross_input *in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        spt_tensor_free((spt_tensor *)in[i].sparse);
        spt_dense_free((spt_dense *)in[i].dense);
    }
    free(in);
}

/* inputs: {"sparse": {...}} / {"dense": [...]} (tf_ops*.jsonl) or bare sparse objects (bad_inputs). */
spt_status conf_cross_inputs(const json_t *j, spt_cross_input **out, size_t *n) {
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
            st = conf_dense(dj, conf_dtype(x, conf_leaf_dtype(dj)), &d);
        } else {
            st = conf_sparse(json_object_get(x, "sparse") ? json_object_get(x, "sparse") : x, false, &sp);
        }
        (*out)[i].sparse = sp;
        (*out)[i].dense = d;
        if (st != SPT_OK) {
            conf_free_cross_inputs(*out, i + 1);
            *out = NULL;
            return st;
        }
    }
    return SPT_OK;
}

conf_result conf_cross_common(const conf_case *c, bool hashed) {
    spt_cross_input *in = NULL;
    size_t n = 0;
    spt_tensor *out = NULL;
    spt_status st = conf_cross_inputs(json_object_get(c->args, "inputs"), &in, &n);
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
    conf_free_cross_inputs(in, n);
    if (c->bad_input) {
        conf_result r = conf_status(c, st);
        spt_tensor_free(out);
        return r == CONF_CONTINUE ? CONF_PASS : r;
    }
    return conf_finish_sparse(c, st, out);
}

/* ---- embedding lookups ---- */

conf_result conf_embedding(const conf_case *c, bool safe) {
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
        spt_combiner comb = !cb || !strcmp(cb, "mean") ? SPT_COMBINER_MEAN
                            : !strcmp(cb, "sum")       ? SPT_COMBINER_SUM
                            : !strcmp(cb, "sqrtn")     ? SPT_COMBINER_SQRTN
                                                       : (spt_combiner)-1;
        const spt_dense *const tables[1] = {params};
        st = safe ? spt_safe_embedding_lookup_sparse(tables, 1, ids, w, comb,
                                                     conf_opt_int(c->args, "default_id", SPT_UNSET), &out)
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
