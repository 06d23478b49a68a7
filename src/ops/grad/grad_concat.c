/* SPDX-License-Identifier: Apache-2.0 */
/* grad_concat.c -- spt_concat_grad: the value gradients of spt_concat's inputs from the gradient of its
 * output values. spt_concat's output is the stable row-major sort of the inputs' entries taken in input
 * order with the concat coordinate offset (entries of different inputs never share an index), so the
 * same stable sort of the same keys pairs every output position with its source entry. */
#include "ops/grad/grad_internal.h"

spt_status spt_concat_grad(const spt_tensor *const *inputs, int64_t n, int64_t axis, bool expand_nonconcat_dim,
                           const spt_dense *grad, spt_dense **val_grads) {
    static const char fn[] = "spt_concat_grad";
    spt_status st = SPT_OK;
    if (!val_grads) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    if (!inputs || n < 1) return spt__err(SPT_EINVAL, "%s: at least one input is needed", fn);
    for (int64_t i = 0; i < n; i++) val_grads[i] = NULL;
    for (int64_t i = 0; i < n; i++)
        if (!inputs[i]) return spt__err(SPT_EINVAL, "%s: input %lld is NULL", fn, (long long)i);
    const spt_tensor *t0 = inputs[0];
    const int64_t r = t0->rank;
    SPT__TRY(spt__grad_dtype(fn, t0->dtype));
    if (axis < -r || axis >= r)
        return spt__err(SPT_ERANGE, "%s: axis %lld is out of range for rank %lld", fn, (long long)axis, (long long)r);
    if (axis < 0) axis += r;
    int64_t oshape[SPT_MAX_RANK], total = 0;
    memcpy(oshape, t0->shape, (size_t)r * sizeof(int64_t));
    oshape[axis] = 0;
    for (int64_t i = 0; i < n; i++) {
        const spt_tensor *t = inputs[i];
        if (t->dtype != t0->dtype) return spt__err(SPT_EDTYPE, "%s: input %lld's dtype differs", fn, (long long)i);
        if (t->rank != r) return spt__err(SPT_EINVAL, "%s: Ranks of all input tensors must match", fn);
        for (int64_t d = 0; d < r; d++) {
            if (d == axis) continue;
            if (t->shape[d] != t0->shape[d] && !expand_nonconcat_dim)
                return spt__err(SPT_EINVAL, "%s: Input shapes must match: input %lld differs in dim %lld", fn,
                                (long long)i, (long long)d);
            if (t->shape[d] > oshape[d]) oshape[d] = t->shape[d];
        }
        if (spt__add_i64(oshape[axis], t->shape[axis], &oshape[axis]) || spt__add_i64(total, t->nnz, &total))
            return spt__err(SPT_EOVERFLOW, "%s: the output's size does not fit in int64", fn);
        SPT__TRY(spt__ensure_valid(fn, t));
    }
    SPT__TRY(spt__grad_vec(fn, "grad", grad, t0->dtype, total));
    /* the entries with the concat coordinate offset, in input order, sorted row-major by the key
     * engine (stable, any volume of the output shape) */
    int64_t *rows = spt__alloc_array(fn, total, r ? r : 1, sizeof(int64_t), false, &st);
    int64_t *perm = rows ? spt__alloc_array(fn, total, 1, sizeof(int64_t), false, &st) : NULL;
    int64_t *first = perm ? spt__alloc_array(fn, n + 1, 1, sizeof(int64_t), false, &st) : NULL;
    if (!first) goto fail;
    int64_t w = 0, off = 0;
    for (int64_t i = 0; i < n; i++) {
        const spt_tensor *t = inputs[i];
        first[i] = w;
        for (int64_t e = 0; e < t->nnz; e++, w++) {
            int64_t *row = rows + w * r;
            memcpy(row, t->indices + e * r, (size_t)r * sizeof(int64_t));
            row[axis] += off;
        }
        off += t->shape[axis];
    }
    first[n] = total;
    spt__keyplan kp;
    spt__keyplan_init(&kp, oshape, NULL, r);
    bool sorted, unique;
    SPT__CHECK(spt__key_sort_rows(fn, &kp, rows, r, total, perm, &sorted, NULL, &unique));
    for (int64_t i = 0; i < n; i++) SPT__CHECK(spt__grad_new_vec(t0->dtype, inputs[i]->nnz, &val_grads[i]));
    for (int64_t k = 0, i = 0; k < total; k++) {
        int64_t src = perm[k];
        /* the input holding global entry src */
        i = spt__lower_bound_i64(first + 1, n - 1, src + 1); /* the last input starting at or before src */
        while (i + 1 < n && first[i + 1] <= src) i++;
        spt__gs(t0->dtype, val_grads[i]->data, src - first[i], spt__gv(t0->dtype, grad->data, k));
    }
    spt__free(rows);
    spt__free(perm);
    spt__free(first);
    return SPT_OK;
fail:
    spt__free(rows);
    spt__free(perm);
    spt__free(first);
    for (int64_t i = 0; i < n; i++) {
        spt_dense_free(val_grads[i]);
        val_grads[i] = NULL;
    }
    return st;
}
