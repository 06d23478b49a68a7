/* SPDX-License-Identifier: Apache-2.0 */
/* conf_elementwise.c -- what the conformance handlers of several elementwise ops share (each handler lives in its
 * op's C test, under SPT_CONFORMANCE; declarations in conf.h). */
#include "conf.h"

#include <string.h>

/* ---- sparse + sparse ---- */

conf_result conf_binary(const conf_case *c, int op) {
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

conf_result conf_cwise(const conf_case *c, int op) {
    spt_tensor *t = NULL, *o = NULL;
    spt_dense *d = NULL;
    spt_status st = conf_sparse_dense_args(c, &t, &d);
    if (st == SPT_OK)
        st = op == 0   ? spt_sparse_dense_cwise_mul(t, d, &o)
             : op == 1 ? spt_sparse_dense_cwise_div(t, d, &o)
                       : spt_sparse_dense_cwise_add(t, d, &o);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        json_t *jv = exp ? json_object_get(exp, "values") : NULL;
        r = jv ? conf_expect_values(c, jv, spt_tensor_dtype(o), spt_tensor_values(o), spt_tensor_nnz(o), exp)
               : CONF_PASS;
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
