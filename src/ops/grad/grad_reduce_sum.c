/* SPDX-License-Identifier: Apache-2.0 */
/* grad_reduce_sum.c -- spt_reduce_sum_grad: the value gradient of spt_reduce_sum (each entry receives
 * the output gradient of the cell it was summed into). */
#include "ops/grad/grad_internal.h"

spt_status spt_reduce_sum_grad(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                               const spt_dense *out_grad, spt_dense **val_grad) {
    static const char fn[] = "spt_reduce_sum_grad";
    if (!val_grad) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *val_grad = NULL;
    if (!t || !out_grad || (naxes > 0 && !axes)) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(spt__grad_dtype(fn, t->dtype));
    if (out_grad->dtype != t->dtype) return spt__err(SPT_EDTYPE, "%s: out_grad's dtype differs from the tensor's", fn);
    const int64_t r = t->rank;
    if (naxes < 0) return spt__err(SPT_EINVAL, "%s: naxes = %lld is negative", fn, (long long)naxes);
    bool red[SPT_MAX_RANK] = {false};
    if (!axes)
        for (int64_t d = 0; d < r; d++) red[d] = true;
    for (int64_t k = 0; axes && k < naxes; k++) {
        if (axes[k] < -r || axes[k] >= r)
            return spt__err(SPT_ERANGE, "%s: Invalid reduction dimension %lld, for input with %lld dimensions.", fn,
                            (long long)axes[k], (long long)r);
        red[axes[k] < 0 ? axes[k] + r : axes[k]] = true;
    }
    /* the output's dims, and the stride of each input dim in the output (0 when reduced) */
    int64_t stride[SPT_MAX_RANK], exp[SPT_MAX_RANK], er = 0, s = 1;
    for (int64_t d = r; d-- > 0;) {
        stride[d] = red[d] ? 0 : s;
        /* <= out_grad's volume when that is non-zero; with a zero kept dim the others may multiply past
         * int64, but then t has no entry to place: saturate instead of overflowing */
        if (!red[d] && spt__mul_i64(s, t->shape[d], &s)) s = INT64_MAX;
    }
    for (int64_t d = 0; d < r; d++)
        if (!red[d] || keep_dims) exp[er++] = red[d] ? 1 : t->shape[d];
    bool ok = out_grad->rank == er;
    for (int64_t d = 0; ok && d < er; d++) ok = out_grad->shape[d] == exp[d];
    if (!ok) {
        char want[SPT__IDXBUF];
        spt__fmt_index(want, sizeof want, exp, er);
        return spt__err(SPT_EINVAL, "%s: out_grad must have the reduction's shape %s", fn, want);
    }
    SPT__TRY(spt__ensure_valid(fn, t));
    SPT__TRY(spt__grad_new_vec(t->dtype, t->nnz, val_grad));
    for (int64_t e = 0; e < t->nnz; e++) {
        int64_t off = 0;
        for (int64_t d = 0; d < r; d++) off += t->indices[e * r + d] * stride[d];
        spt__gs(t->dtype, (*val_grad)->data, e, spt__gv(t->dtype, out_grad->data, off));
    }
    return SPT_OK;
}
