/* SPDX-License-Identifier: Apache-2.0 */
/* grad_multiply.c -- spt_multiply_grad: the value gradients of spt_multiply's operands. A's entry at a
 * cell held by both receives g * (sum of b's entries there), b's likewise with a; an entry at a cell the
 * other side lacks receives 0. */
#include "ops/grad/grad_internal.h"

/* out[e] = grad[c's entry at t's index e] * (sum of u's entries there), 0 when c lacks it. */
static spt_status side(const char *fn, const spt_tensor *t, const spt_tensor *u, const spt__keyidx *kc,
                       const spt_dense *grad, spt_dense **out) {
    spt_status st = SPT_OK;
    spt__keyidx ku = {0};
    const spt_dtype dt = t->dtype;
    SPT__TRY(spt__grad_new_vec(dt, t->nnz, out));
    SPT__CHECK(spt__keyidx_build(fn, u, &ku));
    for (int64_t e = 0; e < t->nnz; e++) {
        const int64_t *row = t->indices + e * t->rank;
        int64_t j = spt__keyidx_find(kc, row);
        if (j < 0) continue;
        /* sum of u's run of entries with this index */
        int64_t lo, hi = spt__keyidx_range(&ku, row, &lo);
        double s = 0;
        for (; lo < hi; lo++) s += spt__gv(dt, u->values, spt__keyidx_entry(&ku, lo));
        spt__gs(dt, (*out)->data, e, spt__gv(dt, grad->data, j) * s);
    }
    spt__keyidx_free(&ku);
    return SPT_OK;
fail:
    spt_dense_free(*out);
    *out = NULL;
    return st;
}

spt_status spt_multiply_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c, const spt_dense *grad,
                             spt_dense **a_val_grad, spt_dense **b_val_grad) {
    static const char fn[] = "spt_multiply_grad";
    spt_status st = SPT_OK;
    SPT__TRY(spt__grad_binary_args(fn, a, b, c, grad, a_val_grad, b_val_grad));
    SPT__TRY(spt__ensure_valid(fn, a));
    SPT__TRY(spt__ensure_valid(fn, b));
    spt__keyidx kc = {0};
    SPT__CHECK(spt__keyidx_build(fn, c, &kc));
    SPT__CHECK(side(fn, a, b, &kc, grad, a_val_grad));
    SPT__CHECK(side(fn, b, a, &kc, grad, b_val_grad));
    spt__keyidx_free(&kc);
    return SPT_OK;
fail:
    spt__keyidx_free(&kc);
    spt_dense_free(*a_val_grad);
    *a_val_grad = NULL;
    return st;
}
