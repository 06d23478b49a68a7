/* SPDX-License-Identifier: Apache-2.0 */
/* grad_softmax.c -- spt_softmax_grad: the value gradient of spt_softmax from its output y and the
 * gradient g of y: within each group (entries sharing all but the last coordinate)
 * dx_i = y_i * (g_i - sum_j g_j y_j). */
#include "ops/grad/grad_internal.h"

spt_status spt_softmax_grad(const spt_tensor *sm, const spt_dense *grad, spt_dense **val_grad) {
    static const char fn[] = "spt_softmax_grad";
    spt_status st = SPT_OK;
    if (!val_grad) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *val_grad = NULL;
    if (!sm) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(spt__grad_dtype(fn, sm->dtype));
    const int64_t r = sm->rank, n = sm->nnz;
    if (r < 2) return spt__err(SPT_EINVAL, "%s: Input should have rank >= 2 (rank %lld)", fn, (long long)r);
    SPT__TRY(spt__grad_vec(fn, "grad", grad, sm->dtype, n));
    SPT__TRY(spt__ensure_valid(fn, sm));
    uint64_t *keys = NULL;
    int64_t *perm = NULL;
    keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    if (!keys) return st;
    /* the groups (all dims but the last) by the key engine: equal keys, equal groups, at any volume */
    spt__keyplan kp;
    spt__keyplan_init(&kp, sm->shape, NULL, r - 1);
    bool unique, ordinal;
    SPT__CHECK(spt__key_sort(fn, sm, &kp, keys, &perm, &unique, &ordinal));
    SPT__CHECK(spt__grad_new_vec(sm->dtype, n, val_grad));
    for (int64_t lo = 0, hi; lo < n; lo = hi) {
        double s = 0;
        for (hi = lo; hi < n && keys[hi] == keys[lo]; hi++) {
            int64_t e = perm ? perm[hi] : hi;
            s += spt__gv(sm->dtype, grad->data, e) * spt__gv(sm->dtype, sm->values, e);
        }
        for (int64_t i = lo; i < hi; i++) {
            int64_t e = perm ? perm[i] : i;
            double y = spt__gv(sm->dtype, sm->values, e);
            spt__gs(sm->dtype, (*val_grad)->data, e, y * (spt__gv(sm->dtype, grad->data, e) - s));
        }
    }
    spt__free(keys);
    spt__free(perm);
    return SPT_OK;
fail:
    spt__free(keys);
    spt__free(perm);
    return st;
}
