/* SPDX-License-Identifier: Apache-2.0 */
/* ttv.c -- spt_ttv: tensor times vector along one mode. Each value is scaled by the vector element its
 * index in that mode names, then the mode is summed away by spt_reduce_sum_sparse. */
#include "ops/kernel.h"
#include "ops/products/products_internal.h"

#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

#define DEF_SCALE(E, T, KIND)                                                                                          \
    static void scale_##E(const void *vals, const int64_t *ix, int64_t N, int64_t mode, const void *vec, int64_t n,    \
                          void *out) {                                                                                 \
        const T *v_ = vals, *x_ = vec;                                                                                 \
        T *o_ = out;                                                                                                   \
        for (int64_t i_ = 0; i_ < n; i_++) o_[i_] = SPT__MUL_##KIND(T, v_[i_], x_[ix[i_ * N + mode]]);                 \
    }
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), DEF_SCALE(E, T, KIND))
#include "spt_dtypes.def"
#undef X

typedef void (*scale_fn)(const void *, const int64_t *, int64_t, int64_t, const void *, int64_t, void *);
static const scale_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = scale_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt__mode_product_args(const char *fn, const spt_tensor *t, const spt_dense *d, int64_t mode, int64_t drank,
                                  spt_tensor **out) {
    SPT__TRY(spt__mode_operand_check(fn, t, d, mode, drank == 1 ? "vector" : "matrix", out));
    if (!spt__mm_rows[t->dtype])
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(t->dtype));
    if (drank == 1 && (d->rank != 1 || d->shape[0] != t->shape[mode]))
        return spt__err(SPT_EINVAL, "%s: the vector must have rank 1 and length %lld (mode %lld's size)", fn,
                        (long long)t->shape[mode], (long long)mode);
    if (drank == 2 && (d->rank != 2 || d->shape[1] != t->shape[mode]))
        return spt__err(SPT_EINVAL, "%s: the matrix must be [J, %lld] (mode %lld's size as its columns)", fn,
                        (long long)t->shape[mode], (long long)mode);
    return SPT_OK;
}

spt_status spt_ttv(const spt_tensor *t, const spt_dense *v, int64_t mode, spt_tensor **out) {
    static const char fn[] = "spt_ttv";
    spt_status st = SPT_OK;
    SPT__TRY(spt__mode_product_args(fn, t, v, mode, 1, out));
    const int64_t N = t->rank;
    scale_fn f = table[t->dtype];
    SPT__TRY(spt__ensure_valid(fn, t));
    spt_tensor *s = NULL;
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, N, t->shape, t->nnz, t->order, &s));
    if (t->nnz) {
        memcpy(s->indices, t->indices, (size_t)t->nnz * (size_t)N * sizeof(int64_t));
        f(t->values, t->indices, N, mode, v->data, t->nnz, s->values);
    }
    s->flags = t->flags | SPT__F_VALID;
    SPT__CHECK(spt_reduce_sum_sparse(s, &mode, 1, false, out));
    spt_tensor_free(s);
    return SPT_OK;
fail:
    spt_tensor_free(s);
    return st;
}
