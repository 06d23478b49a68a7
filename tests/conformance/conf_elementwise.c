/* SPDX-License-Identifier: Apache-2.0 */
/* ops_elementwise.c -- conformance handlers of the elementwise ops: add (sparse + sparse, sparse + dense), maximum, minimum, the
 * sparse-dense cwise ops, map_values.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"

#include <string.h>

/* ---- sparse + sparse ---- */

enum { OP_ADD, OP_MAX, OP_MIN };

static conf_result binary(const conf_case *c, int op) {
    spt_tensor *a = NULL, *b = NULL, *o = NULL;
    spt_status st = conf_arg_sparse(c, "a", NULL, &a);
    if (st == SPT_OK) st = conf_arg_sparse(c, "b", NULL, &b);
    if (st == SPT_OK) {
        json_t *jt = json_object_get(c->args, "threshold");
        if (!jt) jt = json_object_get(c->args, "thresh");
        double thresh = jt ? json_number_value(jt) : 0.0;
        st = op == OP_ADD ? spt_add(a, b, thresh, &o) : op == OP_MAX ? spt_maximum(a, b, &o) : spt_minimum(a, b, &o);
    }
    conf_result r = conf_finish(c, st, NULL, o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(o);
    return r;
}

static conf_result sparse_add(const conf_case *c) { return binary(c, OP_ADD); }

static conf_result sparse_maximum(const conf_case *c) { return binary(c, OP_MAX); }

static conf_result sparse_minimum(const conf_case *c) { return binary(c, OP_MIN); }

static conf_result sparse_add_dense(const conf_case *c) {
    spt_tensor *t = NULL;
    spt_dense *d = NULL, *o = NULL;
    spt_status st = conf_sparse_dense_args(c, &t, &d);
    if (st == SPT_OK) st = spt_add_dense(t, d, &o);
    conf_result r = conf_finish(c, st, o, NULL);
    spt_tensor_free(t);
    spt_dense_free(d);
    spt_dense_free(o);
    return r;
}

static conf_result cwise(const conf_case *c, int op) {
    spt_tensor *t = NULL, *o = NULL;
    spt_dense *d = NULL;
    spt_status st = conf_sparse_dense_args(c, &t, &d);
    if (st == SPT_OK)
        st = op == 0 ? spt_sparse_dense_cwise_mul(t, d, &o) : op == 1 ? spt_sparse_dense_cwise_div(t, d, &o)
                                                                     : spt_sparse_dense_cwise_add(t, d, &o);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        json_t *jv = exp ? json_object_get(exp, "values") : NULL;
        r = jv ? conf_expect_values(c, jv, spt_tensor_dtype(o), spt_tensor_values(o), spt_tensor_nnz(o), exp) : CONF_PASS;
        /* indices and shape are the input's */
        if (r == CONF_PASS && (spt_tensor_nnz(o) != spt_tensor_nnz(t) ||
                               memcmp(spt_tensor_indices(o), spt_tensor_indices(t),
                                      (size_t)(spt_tensor_nnz(t) * spt_tensor_rank(t)) * sizeof(int64_t)) != 0))
            r = conf_fail(c, "indices changed");
    }
    spt_tensor_free(t);
    spt_tensor_free(o);
    spt_dense_free(d);
    return r;
}

static conf_result cwise_mul(const conf_case *c) { return cwise(c, 0); }

static conf_result cwise_div(const conf_case *c) { return cwise(c, 1); }

static conf_result cwise_add(const conf_case *c) { return cwise(c, 2); }

static conf_result map_values(const conf_case *c) {
    const char *name = json_string_value(json_object_get(c->args, "op"));
    json_t *a = json_object_get(c->args, "args");
    spt_tensor *x = NULL, *y = NULL, *out = NULL;
    spt_dense *scalar = NULL;
    if (!name || !json_is_array(a) || json_array_size(a) < 1) return conf_fail(c, "malformed map_values case");
    JUDGE(c, conf_sparse(json_array_get(a, 0), false, &x));
    spt_status st;
    spt_unary_op uop;
    if (json_array_size(a) == 1) {
        if (spt_unary_op_from_name(name, &uop) != SPT_OK) {
            spt_tensor_free(x);
            return CONF_SKIP;
        }
        st = spt_map_values(x, uop, &out);
    } else {
        bool add = !strcmp(name, "add"), mul = !strcmp(name, "multiply"), sub = !strcmp(name, "subtract");
        if (!add && !mul && !sub) {
            spt_tensor_free(x);
            return CONF_SKIP;
        }
        json_t *b = json_array_get(a, 1);
        if (json_is_object(b)) { /* fn(sp, sp): the same indices */
            st = conf_sparse(b, false, &y);
            if (st == SPT_OK)
                st = spt_map_values2(x, y, add ? SPT_OP_ADD : mul ? SPT_OP_MULTIPLY : SPT_OP_SUBTRACT, &out);
        } else if (!sub) { /* fn(sp, scalar): the scalar broadcast over the stored values */
            st = conf_dense(b, spt_tensor_dtype(x), &scalar);
            if (st == SPT_OK)
                st = add ? spt_sparse_dense_cwise_add(x, scalar, &out) : spt_sparse_dense_cwise_mul(x, scalar, &out);
        } else {
            spt_tensor_free(x);
            return CONF_SKIP;
        }
    }
    spt_tensor_free(x);
    spt_tensor_free(y);
    spt_dense_free(scalar);
    return conf_finish_sparse(c, st, out);
}

const conf_op conf_ops_elementwise[] = {
    {"sparse_add", sparse_add, CONF_OP(spt_add)},
    {"sparse_maximum", sparse_maximum, CONF_OP(spt_maximum)},
    {"sparse_minimum", sparse_minimum, CONF_OP(spt_minimum)},
    {"sparse_sparse_maximum", sparse_maximum, CONF_OP(spt_maximum)},
    {"sparse_sparse_minimum", sparse_minimum, CONF_OP(spt_minimum)},
    {"sparse_add_dense", sparse_add_dense, CONF_OP(spt_add_dense)},
    {"sparse_tensor_dense_add", sparse_add_dense, CONF_OP(spt_add_dense)},
    {"sparse_dense_cwise_mul", cwise_mul, CONF_OP(spt_sparse_dense_cwise_mul)},
    {"sparse_dense_cwise_div", cwise_div, CONF_OP(spt_sparse_dense_cwise_div)},
    {"sparse_dense_cwise_add", cwise_add, CONF_OP(spt_sparse_dense_cwise_add)},
    {"map_values", map_values, CONF_OP(spt_map_values)},
    {NULL, NULL, 0},
};
