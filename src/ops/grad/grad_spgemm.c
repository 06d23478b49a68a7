/* SPDX-License-Identifier: Apache-2.0 */
/* grad_spgemm.c -- spt_sparse_sparse_matmul_grad: the value gradients of both operands of
 * spt_sparse_sparse_matmul (C = A B, no adjoints; rank 2 or batched rank 3) from the gradient of C's
 * values. With G the sparse matrix of C's pattern holding those gradients, A's entry (i, k) receives
 * (G B^T)[i, k] and B's entry (k, j) receives (A^T G)[k, j]; both products are computed by
 * spt_sparse_sparse_matmul and read at the operands' entries. */
#include "ops/grad/grad_internal.h"

/* out[e] = value of p at t's entry e index (0 when p lacks it). */
static spt_status gather(const char *fn, const spt_tensor *t, const spt_tensor *p, spt_dense **out) {
    spt_status st = SPT_OK;
    spt__keyidx kp = {0};
    SPT__TRY(spt__grad_new_vec(t->dtype, t->nnz, out));
    SPT__CHECK(spt__keyidx_build(fn, p, &kp));
    for (int64_t e = 0; e < t->nnz; e++) {
        int64_t j = spt__keyidx_find(&kp, t->indices + e * t->rank);
        if (j >= 0) spt__gs(t->dtype, (*out)->data, e, spt__gv(t->dtype, p->values, j));
    }
    spt__keyidx_free(&kp);
    return SPT_OK;
fail:
    spt_dense_free(*out);
    *out = NULL;
    return st;
}

spt_status spt_sparse_sparse_matmul_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c,
                                         const spt_dense *grad, spt_dense **a_val_grad, spt_dense **b_val_grad) {
    static const char fn[] = "spt_sparse_sparse_matmul_grad";
    spt_status st = SPT_OK;
    if (!a_val_grad || !b_val_grad) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *a_val_grad = *b_val_grad = NULL;
    if (!a || !b || !c) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(spt__grad_dtype(fn, a->dtype));
    if (b->dtype != a->dtype || c->dtype != a->dtype) return spt__err(SPT_EDTYPE, "%s: dtypes differ", fn);
    const int64_t r = a->rank;
    if ((r != 2 && r != 3) || b->rank != r || c->rank != r)
        return spt__err(SPT_EINVAL, "%s: a, b and c must all have rank 2 or all rank 3", fn);
    if (a->shape[r - 1] != b->shape[r - 2] || c->shape[r - 2] != a->shape[r - 2] ||
        c->shape[r - 1] != b->shape[r - 1] || (r == 3 && (b->shape[0] != a->shape[0] || c->shape[0] != a->shape[0])))
        return spt__err(SPT_EINVAL, "%s: c's shape is not the shape of a x b", fn);
    SPT__TRY(spt__grad_vec(fn, "grad", grad, a->dtype, c->nnz));
    SPT__TRY(spt__ensure_valid(fn, a));
    SPT__TRY(spt__ensure_valid(fn, b));
    spt_tensor *g = NULL, *p = NULL;
    /* G: c's entries with the gradient as values */
    SPT__CHECK(spt_tensor_new(a->dtype, r, c->shape, c->nnz, c->indices, grad->data, NULL, &g));
    SPT__CHECK(spt_sparse_sparse_matmul(g, b, false, true, true, &p));
    SPT__CHECK(gather(fn, a, p, a_val_grad));
    spt_tensor_free(p);
    p = NULL;
    SPT__CHECK(spt_sparse_sparse_matmul(a, g, true, false, true, &p));
    SPT__CHECK(gather(fn, b, p, b_val_grad));
    spt_tensor_free(p);
    spt_tensor_free(g);
    return SPT_OK;
fail:
    spt_tensor_free(p);
    spt_tensor_free(g);
    spt_dense_free(*a_val_grad);
    *a_val_grad = NULL;
    return st;
}
