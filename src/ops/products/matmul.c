/* SPDX-License-Identifier: Apache-2.0 */
/* matmul.c -- tf.sparse.sparse_dense_matmul (SparseTensorDenseMatMul) and the matrix-vector case.
 * Work is split by output rows across threads without atomics: when A's entries are grouped by output
 * row in non-decreasing order (checked in one pass, or known from the order) they are used as they are,
 * otherwise a stable radix sort by output row gives the grouping. Each output element accumulates its
 * terms in storage order, so the result does not depend on the thread count. */
#include "ops/kernel.h"
#include "ops/products/products_internal.h"

/* Every integer, float and complex type (TF's CPU kernel: int32, float, double, complex). */
#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

#define SPT__TEMPLATE "ops/products/template/matmul_rows.c"
#include "ops/each_dtype.h"

/* the tables of products_internal.h: the one instantiation of the row kernel, which bmm.c and contract_common.c
 * call too */
const spt__mm_rows_fn spt__mm_rows[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = mm_rows_##E, )
#include "spt_dtypes.def"
#undef X
};
const spt__mm_adjb_fn spt__mm_adjb[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = mm_adjb_##E, )
#include "spt_dtypes.def"
#undef X
};

typedef struct {
    const int64_t *ix, *perm;
    int mcol;
} row_ctx;

static bool row_start(const void *ctx, int64_t i) {
    const row_ctx *c = ctx;
    int64_t e = c->perm ? c->perm[i] : i, f = c->perm ? c->perm[i - 1] : i - 1;
    return c->ix[2 * e + c->mcol] != c->ix[2 * f + c->mcol];
}

/* b: b0 x b1 row-major data of a's dtype; out: a dense array of outer x (adj_b ? b0 : b1) elements. */
static spt_status matmul(const char *fn, const spt_tensor *a, const void *bdata, int64_t b0, int64_t b1, bool adj_a,
                         bool adj_b, int64_t orank, spt_dense **out) {
    spt_status st = SPT_OK;
    spt_dense *o = NULL;
    uint64_t *keys = NULL;
    int64_t *perm = NULL;
    void *bt = NULL;
    spt__mm_rows_fn f = spt__mm_rows[a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int mcol = adj_a ? 1 : 0, kcol = 1 - mcol;
    const int64_t outer = a->shape[mcol], inner = a->shape[kcol], binner = adj_b ? b1 : b0, ocols = adj_b ? b0 : b1;
    const int64_t n = a->nnz, *ix = a->indices;
    if (inner != binner)
        return spt__err(SPT_EINVAL,
                        "%s: Cannot multiply A and B because inner dimension does not match: %lld vs. %lld.  Did you "
                        "forget a transpose?  Dimensions of A: [%lld, %lld).  Dimensions of B: [%lld,%lld]",
                        fn, (long long)inner, (long long)binner, (long long)a->shape[0], (long long)a->shape[1],
                        (long long)b0, (long long)b1);
    int64_t oshape[2] = {outer, ocols};
    if (orank == 1) oshape[0] = outer;
    SPT__TRY(spt__dense_new(fn, a->dtype, orank, oshape, &o));
    if (n == 0) goto done;
    int nch = spt__nchunks(n, 2 + ocols);
    /* bounds, entry by entry, k before m (TF's order) */
    if (!(a->flags & SPT__F_VALID)) {
        int64_t first = INT64_MAX;
#pragma omp parallel for schedule(static) num_threads(nch) reduction(min : first)
        for (int64_t i = 0; i < n; i++)
            if ((uint64_t)ix[2 * i + kcol] >= (uint64_t)inner || (uint64_t)ix[2 * i + mcol] >= (uint64_t)outer)
                if (i < first) first = i;
        if (first != INT64_MAX) {
            int64_t k = ix[2 * first + kcol], m = ix[2 * first + mcol];
            if ((uint64_t)k >= (uint64_t)inner)
                st = spt__err(SPT_ERANGE, "%s: k (%lld) from index[%lld,%d] out of bounds (>=%lld)", fn, (long long)k,
                              (long long)first, kcol, (long long)inner);
            else
                st = spt__err(SPT_ERANGE, "%s: m (%lld) from index[%lld,%d] out of bounds (>=%lld)", fn, (long long)m,
                              (long long)first, mcol, (long long)outer);
            goto fail;
        }
        spt__note_valid(a);
    }
    if (o->size == 0) goto done; /* after the checks: every index is checked (spt's policy) */
    /* rows grouped? */
    bool grouped = (a->flags & SPT__F_SORTED) && a->order[0] == mcol;
    if (!grouped) {
        int64_t bad = 0;
#pragma omp parallel for schedule(static) num_threads(nch) reduction(+ : bad)
        for (int64_t i = 1; i < n; i++) bad += ix[2 * (i - 1) + mcol] > ix[2 * i + mcol];
        grouped = bad == 0;
    }
    if (!grouped) {
        keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
        if (!keys) goto fail;
        perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!perm) goto fail;
        for (int64_t i = 0; i < n; i++) keys[i] = (uint64_t)ix[2 * i + mcol];
        SPT__CHECK(spt__radix_sort(fn, keys, perm, n, (uint64_t)(outer - 1)));
        spt__free(keys);
        keys = NULL;
    }
    const void *bp = bdata;
    if (adj_b && ocols > 1 && binner > 1) {
        bt = spt__alloc_array(fn, b0, b1, spt_dtype_size(a->dtype), false, &st);
        if (!bt) goto fail;
        spt__mm_adjb[a->dtype](bdata, b0, b1, bt);
        bp = bt;
    } else if (adj_b && spt_dtype_is_complex(a->dtype)) { /* a vector: transposing moves nothing, conj does */
        bt = spt__alloc_array(fn, b0, b1, spt_dtype_size(a->dtype), false, &st);
        if (!bt) goto fail;
        spt__mm_adjb[a->dtype](bdata, b0, b1, bt);
        bp = bt;
    }
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    row_ctx rc = {ix, perm, mcol};
    spt__chunks(n, nch, bnd, row_start, &rc);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) f(a->values, ix, perm, bnd[c], bnd[c + 1], mcol, adj_a, bp, ocols, o->data);
done:
    spt__free(bt);
    spt__free(perm);
    spt__free(keys);
    *out = o;
    return SPT_OK;
fail:
    spt__free(bt);
    spt__free(perm);
    spt__free(keys);
    spt_dense_free(o);
    return st;
}

spt_status spt_sparse_dense_matmul(const spt_tensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                   spt_dense **out) {
    static const char fn[] = "spt_sparse_dense_matmul";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (b->rank != 2) return spt__err(SPT_EINVAL, "%s: Tensor 'b' is not a matrix (rank %lld)", fn, (long long)b->rank);
    if (a->rank != 2)
        return spt__err(SPT_EINVAL, "%s: Tensor 'a_shape' must have 2 elements (rank %lld)", fn, (long long)a->rank);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: b's dtype %s differs from a's %s", fn, spt_dtype_name(b->dtype),
                        spt_dtype_name(a->dtype));
    return matmul(fn, a, b->data, b->shape[0], b->shape[1], adjoint_a, adjoint_b, 2, out);
}

spt_status spt_sparse_dense_matvec(const spt_tensor *a, const spt_dense *x, bool adjoint_a, spt_dense **out) {
    static const char fn[] = "spt_sparse_dense_matvec";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !x) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (x->rank != 1) return spt__err(SPT_EINVAL, "%s: x is not a vector (rank %lld)", fn, (long long)x->rank);
    if (a->rank != 2)
        return spt__err(SPT_EINVAL, "%s: Tensor 'a_shape' must have 2 elements (rank %lld)", fn, (long long)a->rank);
    if (a->dtype != x->dtype)
        return spt__err(SPT_EDTYPE, "%s: x's dtype %s differs from a's %s", fn, spt_dtype_name(x->dtype),
                        spt_dtype_name(a->dtype));
    return matmul(fn, a, x->data, x->shape[0], 1, adjoint_a, false, 1, out);
}
