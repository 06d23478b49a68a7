/* SPDX-License-Identifier: Apache-2.0 */
/* bmm.c -- spt_sparse_dense_bmm: a batch of sparse matrices (rank 3, batch first) times a batch of
 * dense matrices (rank 3) or one dense matrix (rank 2), as torch.bmm. The batch is flattened into one
 * sparse matrix of P*M rows whose columns index the stacked dense rows (P*K of them, or K when the dense
 * side is shared), and the row kernel of spt_sparse_dense_matmul runs over row groups split across
 * threads (each output row summed by one thread in the entries' stable order). */
#include "ops/kernel.h"
#include "ops/products/products_internal.h"

typedef struct {
    const int64_t *ix, *perm;
} row_ctx;

static bool row_start(const void *ctx, int64_t i) {
    const row_ctx *c = ctx;
    int64_t e = c->perm ? c->perm[i] : i, f = c->perm ? c->perm[i - 1] : i - 1;
    return c->ix[2 * e] != c->ix[2 * f];
}

spt_status spt_sparse_dense_bmm(const spt_tensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                spt_dense **out) {
    static const char fn[] = "spt_sparse_dense_bmm";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->rank != 3)
        return spt__err(SPT_EINVAL, "%s: a must have rank 3 (batch, rows, cols), not %lld", fn, (long long)a->rank);
    if (b->rank != 2 && b->rank != 3)
        return spt__err(SPT_EINVAL, "%s: b must have rank 2 or 3, not %lld", fn, (long long)b->rank);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: b's dtype %s differs from a's %s", fn, spt_dtype_name(b->dtype),
                        spt_dtype_name(a->dtype));
    spt__mm_rows_fn f = spt__mm_rows[a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int64_t P = a->shape[0], M = a->shape[1 + adjoint_a], K = a->shape[2 - adjoint_a];
    const bool shared = b->rank == 2;
    const int64_t *bs = b->shape + (shared ? 0 : 1);
    const int64_t b0 = bs[0], b1 = bs[1], BK = adjoint_b ? b1 : b0, N = adjoint_b ? b0 : b1;
    if (!shared && b->shape[0] != P)
        return spt__err(SPT_EINVAL, "%s: batch sizes differ: %lld vs %lld", fn, (long long)P, (long long)b->shape[0]);
    if (K != BK)
        return spt__err(SPT_EINVAL, "%s: Cannot multiply A and B because inner dimension does not match: %lld vs. %lld",
                        fn, (long long)K, (long long)BK);
    int64_t oshape[3] = {P, M, N}, vol;
    if (spt_shape_volume(3, oshape, &vol) != SPT_OK)
        return spt__err(SPT_EOVERFLOW, "%s: the output shape [%lld, %lld, %lld] does not fit in int64", fn,
                        (long long)P, (long long)M, (long long)N);
    SPT__TRY(spt__ensure_valid(fn, a));
    spt_dense *o = NULL;
    int64_t *ix2 = NULL, *perm = NULL;
    uint64_t *keys = NULL;
    void *bt = NULL;
    SPT__CHECK(spt__dense_new(fn, a->dtype, 3, oshape, &o));
    const int64_t n = a->nnz;
    if (n == 0 || vol == 0) goto done;
    /* the flattened matrix: row p*M + m, column (p*K or 0) + k; grouped by row unless already so */
    ix2 = spt__alloc_array(fn, n, 2, sizeof(int64_t), false, &st);
    if (!ix2) goto fail;
    bool grouped = true;
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = a->indices + 3 * i;
        int64_t m = row[1 + adjoint_a], k = row[2 - adjoint_a];
        ix2[2 * i] = row[0] * M + m;
        ix2[2 * i + 1] = (shared ? 0 : row[0] * K) + k;
        if (i && ix2[2 * i] < ix2[2 * i - 2]) grouped = false;
    }
    if (!grouped) {
        keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
        if (!keys) goto fail;
        perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!perm) goto fail;
        for (int64_t i = 0; i < n; i++) keys[i] = (uint64_t)ix2[2 * i];
        SPT__CHECK(spt__radix_sort(fn, keys, perm, n, (uint64_t)(P * M - 1)));
        spt__free(keys);
        keys = NULL;
    }
    const void *bp = b->data;
    const size_t es = spt_dtype_size(a->dtype);
    if (adjoint_b) { /* each batch's conj transpose, stacked */
        int64_t nb = shared ? 1 : P;
        bt = spt__alloc_array(fn, nb * b0, b1, es, false, &st);
        if (!bt) goto fail;
        for (int64_t p = 0; p < nb; p++)
            spt__mm_adjb[a->dtype]((const char *)b->data + (size_t)(p * b0 * b1) * es, b0, b1,
                                   (char *)bt + (size_t)(p * b0 * b1) * es);
        bp = bt;
    }
    int nch = spt__nchunks(n, 2 + N);
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    row_ctx rc = {ix2, perm};
    spt__chunks(n, nch, bnd, row_start, &rc);
    const bool conj = adjoint_a && spt_dtype_is_complex(a->dtype);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) f(a->values, ix2, perm, bnd[c], bnd[c + 1], 0, conj, bp, N, o->data);
done:
    spt__free(bt);
    spt__free(ix2);
    spt__free(perm);
    *out = o;
    return SPT_OK;
fail:
    spt__free(bt);
    spt__free(ix2);
    spt__free(perm);
    spt__free(keys);
    spt_dense_free(o);
    return st;
}
