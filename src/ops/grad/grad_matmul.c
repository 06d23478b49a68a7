/* SPDX-License-Identifier: Apache-2.0 */
/* grad_matmul.c -- spt_sparse_dense_matmul_grad: the gradients of both operands of
 * spt_sparse_dense_matmul (C = op(A) op(B)) from the gradient G of C: for A's entry at op(A)[m, k],
 * dA = sum_n G[m, n] op(B)[k, n]; dB = op^-1(op(A)^T G), computed by spt_sparse_dense_matmul itself. */
#include "ops/grad/grad_internal.h"

spt_status spt_sparse_dense_matmul_grad(const spt_tensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                        const spt_dense *grad, spt_dense **a_val_grad, spt_dense **b_grad) {
    static const char fn[] = "spt_sparse_dense_matmul_grad";
    spt_status st = SPT_OK;
    if (!a_val_grad && !b_grad) return spt__err(SPT_EINVAL, "%s: both outputs are NULL", fn);
    if (a_val_grad) *a_val_grad = NULL;
    if (b_grad) *b_grad = NULL;
    if (!a || !b || !grad) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(spt__grad_dtype(fn, a->dtype));
    if (b->dtype != a->dtype || grad->dtype != a->dtype) return spt__err(SPT_EDTYPE, "%s: dtypes differ", fn);
    if (a->rank != 2 || b->rank != 2 || grad->rank != 2)
        return spt__err(SPT_EINVAL, "%s: a, b and grad must be matrices", fn);
    const int64_t M = a->shape[adjoint_a], K = a->shape[1 - adjoint_a], bk = b->shape[adjoint_b],
                  N = b->shape[1 - adjoint_b];
    if (K != bk)
        return spt__err(SPT_EINVAL, "%s: Cannot multiply A and B because inner dimension does not match: %lld vs. %lld",
                        fn, (long long)K, (long long)bk);
    if (grad->shape[0] != M || grad->shape[1] != N)
        return spt__err(SPT_EINVAL, "%s: grad must be [%lld, %lld], the product's shape", fn, (long long)M,
                        (long long)N);
    SPT__TRY(spt__ensure_valid(fn, a));
    spt_dense *ga = NULL, *gb = NULL, *t = NULL;
    const spt_dtype dt = a->dtype;
    if (a_val_grad) {
        SPT__CHECK(spt__grad_new_vec(dt, a->nnz, &ga));
        const int64_t b1 = b->shape[1];
        for (int64_t e = 0; e < a->nnz; e++) {
            int64_t m = a->indices[2 * e + adjoint_a], k = a->indices[2 * e + 1 - adjoint_a];
            double s = 0;
            for (int64_t n = 0; n < N; n++)
                s += spt__gv(dt, grad->data, m * N + n) * spt__gv(dt, b->data, adjoint_b ? n * b1 + k : k * b1 + n);
            spt__gs(dt, ga->data, e, s);
        }
    }
    if (b_grad) {
        /* op(A)^T G: A^T G when op is the identity, A G when op(A) = A^T */
        SPT__CHECK(spt_sparse_dense_matmul(a, grad, !adjoint_a, false, &t));
        if (!adjoint_b) gb = t;
        else { /* dB = (op(A)^T G)^T, a [N, K] matrix */ SPT__CHECK(spt__dense_new(fn, dt, 2, (int64_t[]){N, K}, &gb));
            for (int64_t k = 0; k < K; k++)
                for (int64_t n = 0; n < N; n++) spt__gs(dt, gb->data, n * K + k, spt__gv(dt, t->data, k * N + n));
            spt_dense_free(t);
        }
        t = NULL;
    }
    if (a_val_grad) *a_val_grad = ga;
    if (b_grad) *b_grad = gb;
    return SPT_OK;
fail:
    spt_dense_free(ga);
    spt_dense_free(gb);
    spt_dense_free(t);
    return st;
}
