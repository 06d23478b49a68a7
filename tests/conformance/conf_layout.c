/* SPDX-License-Identifier: Apache-2.0 */
/* conf_layout.c -- what the conformance handlers of several layout ops share (each handler lives in its
 * op's C test, under SPT_CONFORMANCE; declarations in conf.h). */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */

#include <stdlib.h>
conf_result conf_check_dense_result(const conf_case *c, const spt_dense *d) {
    json_t *exp = c->bad_input ? json_object_get(c->root, "result") : c->expect;
    json_t *dense = exp ? json_object_get(exp, "dense") : NULL;
    return dense ? conf_expect_dense(c, dense, d, c->expect) : CONF_PASS;
}

/* conf_expect_sparse plus bad_inputs' "indices_dims" [nnz, rank]. */
conf_result conf_layout_sparse(const conf_case *c, const json_t *exp, const spt_tensor *t) {
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
spt_status conf_sparse_list(const json_t *j, spt_tensor ***out, int64_t *n) {
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

void conf_free_list(spt_tensor **ts, int64_t n) {
    for (int64_t i = 0; i < n; i++) spt_tensor_free(ts[i]);
    free(ts);
}
