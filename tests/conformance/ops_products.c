/* SPDX-License-Identifier: Apache-2.0 */
/* ops_products.c -- conformance handlers of the products: sparse x dense matmul.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"

static conf_result sparse_tensor_dense_matmul(const conf_case *c) {
    spt_tensor *t = NULL;
    spt_dense *d = NULL, *o = NULL;
    spt_status st = conf_sparse_dense_args(c, &t, &d);
    if (st == SPT_OK)
        st = spt_sparse_dense_matmul(t, d, json_is_true(json_object_get(c->args, "adjoint_a")),
                                     json_is_true(json_object_get(c->args, "adjoint_b")), &o);
    conf_result r = conf_finish(c, st, o, NULL);
    spt_tensor_free(t);
    spt_dense_free(d);
    spt_dense_free(o);
    return r;
}

const conf_op conf_ops_products[] = {
    {"sparse_tensor_dense_matmul", sparse_tensor_dense_matmul, CONF_OP(spt_sparse_dense_matmul)},
    {NULL, NULL, 0},
};
