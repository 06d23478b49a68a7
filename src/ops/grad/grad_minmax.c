/* SPDX-License-Identifier: Apache-2.0 */
/* grad_minmax.c -- spt_maximum_grad / spt_minimum_grad (TensorFlow has no gradient for
 * SparseSparseMaximum/Minimum): each output cell's gradient goes to the operand that gave its value, an
 * absent operand counting as an implicit 0; on ties it goes to a (as the dense maximum's gradient
 * sends it to x when x >= y). Operands must have no repeated index. */
#include "ops/grad/grad_internal.h"

static spt_status minmax_grad(const char *fn, bool is_max, const spt_tensor *a, const spt_tensor *b,
                              const spt_tensor *c, const spt_dense *grad, spt_dense **a_val_grad,
                              spt_dense **b_val_grad) {
    spt_status st = SPT_OK;
    SPT__TRY(spt__grad_binary_args(fn, a, b, c, grad, a_val_grad, b_val_grad));
    const spt_dtype dt = a->dtype;
    spt__keyidx ka = {0}, kb = {0}, kc = {0};
    SPT__CHECK(spt__keyidx_build(fn, a, &ka));
    SPT__CHECK(spt__keyidx_build(fn, b, &kb));
    SPT__CHECK(spt__keyidx_build(fn, c, &kc));
    if (!ka.unique || !kb.unique) {
        st = spt__err(SPT_EINVAL, "%s: operand %s has a repeated index", fn, ka.unique ? "b" : "a");
        goto fail;
    }
    SPT__CHECK(spt__grad_new_vec(dt, a->nnz, a_val_grad));
    SPT__CHECK(spt__grad_new_vec(dt, b->nnz, b_val_grad));
    for (int side = 0; side < 2; side++) {
        const spt_tensor *t = side ? b : a, *u = side ? a : b;
        const spt__keyidx *ku = side ? &ka : &kb;
        spt_dense *out = side ? *b_val_grad : *a_val_grad;
        for (int64_t e = 0; e < t->nnz; e++) {
            const int64_t *row = t->indices + e * t->rank;
            int64_t j = spt__keyidx_find(&kc, row), f = spt__keyidx_find(ku, row);
            if (j < 0) continue;
            double x = spt__gv(dt, t->values, e), y = f >= 0 ? spt__gv(dt, u->values, f) : 0;
            /* a wins when a >= other (max) / a <= other (min); b wins only strictly */
            bool wins = side == 0 ? (is_max ? x >= y : x <= y) : (is_max ? x > y : x < y);
            if (wins) spt__gs(dt, out->data, e, spt__gv(dt, grad->data, j));
        }
    }
    spt__keyidx_free(&ka);
    spt__keyidx_free(&kb);
    spt__keyidx_free(&kc);
    return SPT_OK;
fail:
    spt__keyidx_free(&ka);
    spt__keyidx_free(&kb);
    spt__keyidx_free(&kc);
    spt_dense_free(*a_val_grad);
    spt_dense_free(*b_val_grad);
    *a_val_grad = *b_val_grad = NULL;
    return st;
}

spt_status spt_maximum_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c, const spt_dense *grad,
                            spt_dense **a_val_grad, spt_dense **b_val_grad) {
    return minmax_grad("spt_maximum_grad", true, a, b, c, grad, a_val_grad, b_val_grad);
}

spt_status spt_minimum_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c, const spt_dense *grad,
                            spt_dense **a_val_grad, spt_dense **b_val_grad) {
    return minmax_grad("spt_minimum_grad", false, a, b, c, grad, a_val_grad, b_val_grad);
}
