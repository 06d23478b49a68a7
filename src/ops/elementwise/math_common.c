/* SPDX-License-Identifier: Apache-2.0 */
/* math_common.c -- helpers shared by the math ops (internal): fixed chunking, sorted row-major keys,
 * and the sparse-sparse union merge driver used by spt_add, spt_maximum and spt_minimum. */
#include "ops/kernel.h"
#include "sort/keys.h"

void spt__chunks(int64_t n, int nch, int64_t *bnd, spt__seg_start_fn start, const void *ctx) {
    bnd[0] = 0;
    for (int c = 1; c < nch; c++) {
        int64_t i = n / nch * c + n % nch * c / nch;
        if (i < bnd[c - 1]) i = bnd[c - 1];
        if (start)
            while (i > 0 && i < n && !start(ctx, i)) i++;
        bnd[c] = i;
    }
    bnd[nch] = n;
}

bool spt__key_start(const void *keys, int64_t i) {
    const uint64_t *k = keys;
    return k[i] != k[i - 1];
}

int spt__nchunks(int64_t n, int64_t w) {
    int64_t work;
    if (spt__mul_i64(n, w < 1 ? 1 : w, &work)) work = INT64_MAX;
    int nth = spt__threads_for(work);
    if (nth > SPT__MAX_CHUNKS) nth = SPT__MAX_CHUNKS;
    if (nth < 1) nth = 1;
    return nth;
}

spt_status spt__sorted_keys(const char *fn, const spt_tensor *t, uint64_t **keys, int64_t **perm, bool *unique,
                            bool *ordinal) {
    spt_status st;
    *keys = NULL;
    *perm = NULL;
    uint64_t *k = spt__alloc_array(fn, t->nnz, 1, sizeof(uint64_t), false, &st);
    if (!k) return st;
    spt__keyplan kp;
    spt__keyplan_init(&kp, t->shape, NULL, t->rank);
    st = spt__key_sort(fn, t, &kp, k, perm, unique, ordinal);
    if (st != SPT_OK) {
        spt__free(k);
        return st;
    }
    *keys = k;
    return SPT_OK;
}

spt_status spt__mode_operand_check(const char *fn, const spt_tensor *t, const spt_dense *d, int64_t mode,
                                   const char *what, spt_tensor **out) {
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t || !d) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (mode < 0 || mode >= t->rank)
        return spt__err(SPT_ERANGE, "%s: mode %lld is out of range [0, %lld)", fn, (long long)mode, (long long)t->rank);
    if (d->dtype != t->dtype)
        return spt__err(SPT_EDTYPE, "%s: the %s's dtype %s differs from the tensor's %s", fn, what,
                        spt_dtype_name(d->dtype), spt_dtype_name(t->dtype));
    return SPT_OK;
}

spt_status spt__sorted_keys2(const char *fn, const spt_tensor *a, const spt_tensor *b, uint64_t **ka, uint64_t **kb,
                             int64_t **pa, int64_t **pb, bool *ua, bool *ub) {
    spt_status st = SPT_OK;
    *ka = *kb = NULL;
    *pa = *pb = NULL;
    spt__keyplan kp;
    spt__keyplan_init(&kp, a->shape, NULL, a->rank);
    const spt_tensor *ts[2] = {a, b};
    uint64_t *ks[2] = {NULL, NULL};
    int64_t *ps[2] = {NULL, NULL};
    bool us[2], ordinal;
    ks[0] = spt__alloc_array(fn, a->nnz, 1, sizeof(uint64_t), false, &st);
    if (ks[0]) ks[1] = spt__alloc_array(fn, b->nnz, 1, sizeof(uint64_t), false, &st);
    if (ks[1]) st = spt__key_sort_joint(fn, ts, 2, &kp, ks, ps, us, &ordinal);
    if (st != SPT_OK) {
        spt__free(ks[0]);
        spt__free(ks[1]);
        spt__free(ps[0]);
        spt__free(ps[1]);
        return st;
    }
    *ka = ks[0], *kb = ks[1], *pa = ps[0], *pb = ps[1], *ua = us[0], *ub = us[1];
    return SPT_OK;
}

spt_status spt__merge2(const char *fn, const spt_tensor *a, const spt_tensor *b, double thresh, spt__merge_fn merge,
                       spt_tensor **out) {
    spt_status st = SPT_OK;
    uint64_t *ka = NULL, *kb = NULL;
    int64_t *pa = NULL, *pb = NULL;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if (a->rank != b->rank) {
        char sa[SPT__IDXBUF], sb[SPT__IDXBUF];
        spt__fmt_index(sa, sizeof sa, a->shape, a->rank);
        spt__fmt_index(sb, sizeof sb, b->shape, b->rank);
        return spt__err(SPT_EINVAL, "%s: Operands do not have the same ranks; got shapes: %s and %s", fn, sa, sb);
    }
    if (a->rank == 0) return spt__err(SPT_EINVAL, "%s: Tensors must not be empty (rank 0 operands)", fn);
    for (int64_t d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d])
            return spt__err(SPT_EINVAL, "%s: Operands' shapes do not match: got %lld and %lld for dimension %lld", fn,
                            (long long)a->shape[d], (long long)b->shape[d], (long long)d);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: operand dtypes differ (%s and %s)", fn, spt_dtype_name(a->dtype),
                        spt_dtype_name(b->dtype));
    if (!merge) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    if (thresh != thresh) return spt__err(SPT_EINVAL, "%s: the magnitude threshold is NaN", fn);
    bool ua, ub;
    const int64_t na = a->nnz, nb = b->nnz;
    SPT__CHECK(spt__sorted_keys2(fn, a, b, &ka, &kb, &pa, &pb, &ua, &ub));
    int nch = spt__nchunks(na + nb, 4);
    int64_t alo[SPT__MAX_CHUNKS + 1], blo[SPT__MAX_CHUNKS + 1], cnt[SPT__MAX_CHUNKS + 1] = {0};
    /* split keys taken from the longer operand; a key's entries never straddle two chunks */
    const uint64_t *sk = na >= nb ? ka : kb;
    const int64_t ns = na >= nb ? na : nb;
    alo[0] = blo[0] = 0;
    for (int c = 1; c < nch; c++) {
        uint64_t s = sk[ns / nch * c + ns % nch * c / nch];
        alo[c] = spt__key_lower_bound(ka, na, s);
        blo[c] = spt__key_lower_bound(kb, nb, s);
    }
    alo[nch] = na;
    blo[nch] = nb;
    spt__merge_ctx m = {ka, kb, pa, pb, a->values, b->values, a->indices, b->indices, a->rank, thresh, NULL, NULL};
    int64_t cap, base[SPT__MAX_CHUNKS + 1];
    if (spt__add_i64(na, nb, &cap)) {
        st = spt__err(SPT_EOVERFLOW, "%s: %lld + %lld entries do not fit in int64", fn, (long long)na, (long long)nb);
        goto fail;
    }
    /* one merge pass: chunk c writes from alo[c] + blo[c] (room for all its entries), then the chunks
     * are moved together and the tensor shrunk to the entries kept */
    SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, a->rank, a->shape, cap, NULL, &o));
    m.oi = o->indices;
    m.ov = o->values;
    for (int c = 0; c < nch; c++) base[c] = alo[c] + blo[c];
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) cnt[c] = merge(&m, alo[c], alo[c + 1], blo[c], blo[c + 1], base[c], true);
    const size_t es = spt_dtype_size(a->dtype), rb = (size_t)a->rank * sizeof(int64_t);
    int64_t total = cnt[0];
    for (int c = 1; c < nch; c++) {
        if (base[c] != total && cnt[c] > 0) {
            memmove(o->indices + total * a->rank, o->indices + base[c] * a->rank, (size_t)cnt[c] * rb);
            memmove((char *)o->values + (size_t)total * es, (char *)o->values + (size_t)base[c] * es,
                    (size_t)cnt[c] * es);
        }
        total += cnt[c];
    }
    spt__tensor_truncate(o, total);
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | (ua && ub ? SPT__F_UNIQUE : 0u));
    *out = o;
    o = NULL;
fail:
    spt_tensor_free(o);
    spt__free(ka);
    spt__free(kb);
    spt__free(pa);
    spt__free(pb);
    return st;
}
