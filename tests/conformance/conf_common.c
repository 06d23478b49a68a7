/* SPDX-License-Identifier: Apache-2.0 */
/* conf_common.c -- what several families' handlers share: the expected result, argument readers,
 * and the judging of a status and of a dense or sparse result. */
#include "conf.h"

#include <stdlib.h>
#include <string.h>

/* The expected result object: "expect" (tf_ops) or "result" (bad_inputs "ok" cases; may be absent). */
json_t *conf_result_of(const conf_case *c) { return c->bad_input ? json_object_get(c->root, "result") : c->expect; }

/* A sparse argument under the first of two names. */
spt_status conf_arg_sparse(const conf_case *c, const char *k1, const char *k2, spt_tensor **t) {
    json_t *j = json_object_get(c->args, k1);
    if (!j && k2) j = json_object_get(c->args, k2);
    return conf_sparse(j, false, t);
}

/* Compare a dense result: "dense" (values) and/or "dense_shape" (shape only). */
conf_result conf_check_dense(const conf_case *c, const spt_dense *d) {
    json_t *exp = conf_result_of(c);
    if (!exp) return CONF_PASS;
    json_t *jd = json_object_get(exp, "dense");
    if (jd) return conf_expect_dense(c, jd, d, exp);
    int64_t shape[SPT_MAX_RANK];
    long r = conf_ints(json_object_get(exp, "dense_shape"), shape, SPT_MAX_RANK);
    if (r >= 0) {
        if (r != spt_dense_rank(d))
            return conf_fail(c, "dense rank %lld, expected %ld", (long long)spt_dense_rank(d), r);
        for (long k = 0; k < r; k++)
            if (shape[k] != spt_dense_shape(d)[k]) return conf_fail(c, "dense dim %ld differs", k);
    }
    return CONF_PASS;
}

/* Compare a sparse result ({indices, values, shape|dense_shape}, optional indices_dims). */
conf_result conf_check_sparse(const conf_case *c, const spt_tensor *t) {
    json_t *exp = conf_result_of(c);
    if (!exp) return CONF_PASS;
    conf_result r = conf_expect_sparse(c, exp, t, exp);
    int64_t dims[2];
    if (r == CONF_PASS && conf_ints(json_object_get(exp, "indices_dims"), dims, 2) == 2 &&
        (dims[0] != spt_tensor_nnz(t) || dims[1] != spt_tensor_rank(t)))
        r = conf_fail(c, "indices dims [%lld,%lld], expected [%lld,%lld]", (long long)spt_tensor_nnz(t),
                      (long long)spt_tensor_rank(t), (long long)dims[0], (long long)dims[1]);
    return r;
}

conf_result conf_finish(const conf_case *c, spt_status st, const spt_dense *d, const spt_tensor *t) {
    conf_result r = conf_status(c, st);
    if (r != CONF_CONTINUE) return r;
    return d ? conf_check_dense(c, d) : t ? conf_check_sparse(c, t) : CONF_PASS;
}

/* sp/a and dense/b operands; the dense one takes the sparse dtype. */
spt_status conf_sparse_dense_args(const conf_case *c, spt_tensor **t, spt_dense **d) {
    *d = NULL;
    spt_status st = conf_arg_sparse(c, "sp", "a", t);
    if (st != SPT_OK) return st;
    json_t *jd = json_object_get(c->args, "dense");
    if (!jd) jd = json_object_get(c->args, "b");
    spt_dtype dt = conf_dtype(jd, spt_tensor_dtype(*t));
    return conf_dense(jd, dt, d);
}

conf_result conf_judge(const conf_case *c, spt_status st) {
    const char *e = json_string_value(c->expect);
    if (!c->bad_input || !e) return conf_status(c, st);
    if (!strcmp(e, "ok")) {
        if (st != SPT_OK) return conf_fail(c, "expected success, got %s: %s", spt_status_name(st), spt_last_error());
        return CONF_CONTINUE;
    }
    if (strncmp(e, "error:", 6)) return conf_fail(c, "malformed expect \"%s\"", e);
    const char *cls = e + 6;
    if (st == SPT_OK) return conf_fail(c, "expected %s, got success", cls);
    bool ok = !strcmp(cls, spt_status_name(st)) || (!strcmp(cls, "INVALID_ARGUMENT") && st == SPT_EDTYPE);
    if (!ok) return conf_fail(c, "expected %s, got %s: %s", cls, spt_status_name(st), spt_last_error());
    const char *m = json_string_value(json_object_get(c->root, "message_contains"));
    if (m && !strstr(spt_last_error(), m))
        return conf_fail(c, "message \"%s\" does not contain \"%s\"", spt_last_error(), m);
    return CONF_PASS;
}

json_t *conf_arg(const conf_case *c, const char *k) { return json_object_get(c->args, k); }

/* An int64 vector argument into a malloc'd array (*n its length; NULL array when absent/null). */
int64_t *conf_ints_new(const conf_case *c, const char *k, long *n) {
    json_t *j = conf_arg(c, k);
    *n = -1;
    if (!j || json_is_null(j)) return NULL;
    long cap = json_is_array(j) ? (long)json_array_size(j) + 1 : 1;
    int64_t *v = calloc((size_t)cap, sizeof *v);
    if (!v) return NULL;
    *n = conf_ints(j, v, cap);
    return v;
}

/* An optional integer keyword: `dflt` when absent or null. */
int64_t conf_opt_int(const json_t *args, const char *key, int64_t dflt) {
    json_t *v = json_object_get(args, key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* Judge st, then compare the sparse result with c->expect; frees out. */
conf_result conf_finish_sparse(const conf_case *c, spt_status st, spt_tensor *out) {
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_expect_sparse(c, c->expect, out, c->expect);
    spt_tensor_free(out);
    return r;
}
