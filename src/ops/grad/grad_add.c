/* SPDX-License-Identifier: Apache-2.0 */
/* grad_add.c -- spt_add_grad (TensorFlow's SparseAddGrad): the value gradients of spt_add's operands
 * from the gradient of its result, by looking each operand entry up in the sum's entries. */
#include "ops/grad/grad_internal.h"

/* out[e] = grad[position in sum of t's entry e], or 0 when the sum does not hold its index. */
static spt_status pass_back(const char *fn, const spt_tensor *t, const spt__keyidx *ks, const spt_dense *grad,
                            spt_dense **out) {
    SPT__TRY(spt__ensure_valid(fn, t));
    SPT__TRY(spt__grad_new_vec(t->dtype, t->nnz, out));
    for (int64_t e = 0; e < t->nnz; e++) {
        int64_t j = spt__keyidx_find(ks, t->indices + e * t->rank);
        if (j >= 0) spt__gs(t->dtype, (*out)->data, e, spt__gv(t->dtype, grad->data, j));
    }
    return SPT_OK;
}

spt_status spt_add_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *sum,
                        const spt_dense *backprop_val_grad, spt_dense **a_val_grad, spt_dense **b_val_grad) {
    static const char fn[] = "spt_add_grad";
    spt_status st = SPT_OK;
    if (!a_val_grad || !b_val_grad) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *a_val_grad = *b_val_grad = NULL;
    if (!a || !b || !sum) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(spt__grad_dtype(fn, sum->dtype));
    if (a->dtype != sum->dtype || b->dtype != sum->dtype)
        return spt__err(SPT_EDTYPE, "%s: a, b and sum must share one dtype", fn);
    if (a->rank != sum->rank || b->rank != sum->rank)
        return spt__err(SPT_EINVAL, "%s: a, b and sum must have the same rank", fn);
    for (int64_t d = 0; d < sum->rank; d++)
        if (a->shape[d] != sum->shape[d] || b->shape[d] != sum->shape[d])
            return spt__err(SPT_EINVAL, "%s: a, b and sum differ in dimension %lld", fn, (long long)d);
    SPT__TRY(spt__grad_vec(fn, "backprop_val_grad", backprop_val_grad, sum->dtype, sum->nnz));
    spt__keyidx ks = {0};
    SPT__CHECK(spt__keyidx_build(fn, sum, &ks));
    SPT__CHECK(pass_back(fn, a, &ks, backprop_val_grad, a_val_grad));
    SPT__CHECK(pass_back(fn, b, &ks, backprop_val_grad, b_val_grad));
    spt__keyidx_free(&ks);
    return SPT_OK;
fail:
    spt__keyidx_free(&ks);
    spt_dense_free(*a_val_grad);
    spt_dense_free(*b_val_grad);
    *a_val_grad = *b_val_grad = NULL;
    return st;
}
