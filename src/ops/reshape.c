/* reshape.c -- SparseReshape: each index -> its row-major offset in the input shape -> unravelled in
 * the new shape. At most one -1 (inferred). The entry order is kept (row-major sorted stays sorted). */
#include "layout_internal.h"

spt_status spt_reshape(const spt_tensor *t, int64_t new_rank, const int64_t *new_shape, spt_tensor **out) {
    static const char fn[] = "spt_reshape";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if (new_rank < 0 || new_rank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: new rank %lld outside [0, %d]", fn, (long long)new_rank, SPT_MAX_RANK);
    if (new_rank > 0 && !new_shape) return spt__err(SPT_EINVAL, "%s: new_shape is NULL", fn);
    int64_t shape[SPT_MAX_RANK], unknown = -1, product = 1;
    bool zero = false;
    for (int64_t d = 0; d < new_rank; d++) {
        shape[d] = new_shape[d];
        if (new_shape[d] == -1) {
            if (unknown >= 0)
                return spt__err(SPT_EINVAL, "%s: only one output dimension may be -1, not both %lld and %lld", fn,
                                (long long)unknown, (long long)d);
            unknown = d;
        } else if (new_shape[d] < 0) {
            return spt__err(SPT_EINVAL, "%s: size %lld must be non-negative, not %lld", fn, (long long)d,
                            (long long)new_shape[d]);
        } else if (new_shape[d] == 0) {
            zero = true;
        }
    }
    for (int64_t d = 0; d < new_rank && !zero; d++)
        if (d != unknown && spt__mul_i64(product, new_shape[d], &product))
            return spt__err(SPT_EOVERFLOW, "%s: the product of the requested sizes overflows int64", fn);
    if (zero) product = 0;
    const int64_t volume = t->volume;
    if (unknown >= 0) {
        if (product == 0)
            return spt__err(SPT_EINVAL,
                            "%s: reshape cannot infer the missing input size for an empty tensor unless all specified "
                            "input sizes are non-zero",
                            fn);
        if (volume % product != 0)
            return spt__err(SPT_EINVAL,
                            "%s: Input to reshape is a SparseTensor with %lld dense values, but the requested shape "
                            "requires a multiple of %lld",
                            fn, (long long)volume, (long long)product);
        shape[unknown] = volume / product;
    } else if (product != volume) {
        return spt__err(SPT_EINVAL, "%s: Input to reshape is a tensor with %lld dense values, but the requested shape has %lld",
                        fn, (long long)volume, (long long)product);
    }
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t n = t->nnz, r = t->rank;
    bool same = new_rank == r;
    for (int64_t d = 0; d < r && same; d++) same = shape[d] == t->shape[d];
    if (same) {
        SPT__TRY(spt__layout_select(fn, t, NULL, NULL, n, NULL, out));
        for (int64_t d = 0; d < r; d++) (*out)->order[d] = t->order[d];
        (*out)->flags = t->flags;
        return SPT_OK;
    }
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, new_rank, shape, n, NULL, &o));
    const int64_t nr = new_rank;
    const int nth SPT__OMP_VAR = spt__threads_for(n * (r + nr));
#pragma omp parallel for schedule(static) num_threads(nth)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = t->indices + i * r;
        int64_t off = 0; /* < volume: fits */
        for (int64_t d = 0; d < r; d++) off = off * t->shape[d] + row[d];
        int64_t *dst = o->indices + i * nr;
        for (int64_t d = nr - 1; d >= 0; d--) {
            dst[d] = off % shape[d];
            off /= shape[d];
        }
    }
    if (n > 0) memcpy(o->values, t->values, (size_t)n * spt_dtype_size(t->dtype));
    SPT__CHECK(spt__layout_own_strings(o));
    /* the row-major offset is unchanged, so row-major sortedness carries over */
    if (spt_tensor_is_row_major(t, true)) spt__set_row_major(o, SPT__F_VALID | (t->flags & (SPT__F_SORTED | SPT__F_UNIQUE)));
    else o->flags = SPT__F_VALID;
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}
