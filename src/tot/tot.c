/* SPDX-License-Identifier: Apache-2.0 */
/* tot.c -- spt_tot, the tensor-of-tensors: an outer shape whose every element is EMPTY or a dense
 * row-major inner tensor. Only the non-empty elements are stored, sorted by outer index. */
#include "tot_internal.h"
#include "sort/keys.h"

void spt_tot_free(spt_tot *t) {
    if (!t) return;
    spt__free(t->outer_shape);
    spt__free(t->outer);
    spt__free(t->inner_shape);
    spt__free(t->voff);
    spt__free(t->values);
    spt__free(t);
}

spt_status spt__tot_alloc(const char *fn, spt_dtype dtype, int64_t outer_rank, const int64_t *outer_shape,
                          int64_t inner_rank, int64_t n, int64_t total, spt_tot **out) {
    spt_status st = SPT_OK;
    int64_t vol;
    *out = NULL;
    if (!spt_dtype_is_numeric(dtype))
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not numeric", fn,
                        spt_dtype_name(dtype) ? spt_dtype_name(dtype) : "(invalid)");
    SPT__TRY(spt__check_dims(fn, outer_rank, outer_shape, &vol)); /* -1 past INT64_MAX */
    if (inner_rank < 0 || inner_rank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: inner rank %lld outside [0, %d]", fn, (long long)inner_rank, SPT_MAX_RANK);
    spt_tot *t = spt__calloc(1, sizeof *t);
    if (!t) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    t->dtype = dtype;
    t->outer_rank = outer_rank;
    t->inner_rank = inner_rank;
    t->outer_volume = vol;
    t->n = n;
    if (!(t->outer_shape = spt__alloc_array(fn, outer_rank, 1, sizeof(int64_t), false, &st))) goto fail;
    if (outer_rank) memcpy(t->outer_shape, outer_shape, (size_t)outer_rank * sizeof(int64_t));
    if (!(t->outer = spt__alloc_array(fn, n, outer_rank, sizeof(int64_t), false, &st))) goto fail;
    if (!(t->inner_shape = spt__alloc_array(fn, n, inner_rank, sizeof(int64_t), false, &st))) goto fail;
    if (!(t->voff = spt__alloc_array(fn, n + 1, 1, sizeof(int64_t), false, &st))) goto fail;
    if (!(t->values = spt__alloc_array(fn, total, 1, spt_dtype_size(dtype), true, &st))) goto fail;
    t->voff[0] = 0;
    *out = t;
    return SPT_OK;
fail:
    spt_tot_free(t);
    return st;
}

spt_status spt_tot_new(spt_dtype dtype, int64_t outer_rank, const int64_t *outer_shape, int64_t inner_rank, int64_t n,
                       const int64_t *outer, const int64_t *inner_shapes, const void *values, spt_tot **out) {
    static const char fn[] = "spt_tot_new";
    spt_status st = SPT_OK;
    spt_tot *t = NULL;
    int64_t *keys = NULL, *perm = NULL, *src_off = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!spt_dtype_is_numeric(dtype))
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not numeric", fn,
                        spt_dtype_name(dtype) ? spt_dtype_name(dtype) : "(invalid)");
    int64_t vol; /* -1 past INT64_MAX: an outer shape of any volume */
    SPT__TRY(spt__check_dims(fn, outer_rank, outer_shape, &vol));
    if (inner_rank < 0 || inner_rank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: inner rank %lld outside [0, %d]", fn, (long long)inner_rank, SPT_MAX_RANK);
    if (n < 0) return spt__err(SPT_EINVAL, "%s: n is negative (%lld)", fn, (long long)n);
    if (n > 0 && ((outer_rank > 0 && !outer) || (inner_rank > 0 && !inner_shapes)))
        return spt__err(SPT_EINVAL, "%s: outer or inner_shapes is NULL", fn);
    if (vol >= 0 && n > vol)
        return spt__err(SPT_EINVAL, "%s: %lld inner tensors for %lld outer elements", fn, (long long)n, (long long)vol);
    if (!(src_off = spt__alloc_array(fn, n + 1, 1, sizeof(int64_t), false, &st))) goto fail;
    src_off[0] = 0;
    for (int64_t e = 0; e < n; e++) {
        const int64_t *o = outer_rank ? outer + e * outer_rank : outer;
        for (int64_t k = 0; k < outer_rank; k++)
            if (o[k] < 0 || o[k] >= outer_shape[k]) {
                char a[SPT__IDXBUF], b[SPT__IDXBUF];
                spt__fmt_index(a, sizeof a, o, outer_rank);
                spt__fmt_index(b, sizeof b, outer_shape, outer_rank);
                st = spt__err(SPT_ERANGE, "%s: outer[%lld] = %s is outside the outer shape %s", fn, (long long)e, a, b);
                goto fail;
            }
        int64_t v;
        const int64_t *ish = inner_rank ? inner_shapes + e * inner_rank : inner_shapes;
        SPT__CHECK(spt__check_shape(fn, inner_rank, ish, &v));
        if (v == 0) { /* a present inner tensor has an element; EMPTY is expressed by leaving it out */
            char a[SPT__IDXBUF];
            spt__fmt_index(a, sizeof a, ish, inner_rank);
            st = spt__err(SPT_EINVAL,
                          "%s: inner_shapes[%lld] = %s has no element (leave the outer index out for EMPTY)", fn,
                          (long long)e, a);
            goto fail;
        }
        if (spt__add_i64(src_off[e], v, &src_off[e + 1])) {
            st = spt__err(SPT_EOVERFLOW, "%s: the inner tensors hold more than INT64_MAX values", fn);
            goto fail;
        }
    }
    if (src_off[n] > 0 && !values) {
        st = spt__err(SPT_EINVAL, "%s: values is NULL", fn);
        goto fail;
    }
    /* sort the entries by outer index with the key engine (keys.h: any outer volume); keys: the dense
     * ranks, equal for a repeated outer index */
    if (!(keys = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st))) goto fail;
    if (!(perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st))) goto fail;
    spt__keyplan kp;
    spt__keyplan_init(&kp, outer_shape, NULL, outer_rank);
    bool sorted, unique;
    SPT__CHECK(spt__key_sort_rows(fn, &kp, outer, outer_rank, n, perm, &sorted, (uint64_t *)keys, &unique));
    for (int64_t e = 1; e < n && !unique; e++)
        if (keys[e] == keys[e - 1]) {
            char a[SPT__IDXBUF];
            spt__fmt_index(a, sizeof a, outer_rank ? outer + perm[e] * outer_rank : outer, outer_rank);
            st = spt__err(SPT_EINVAL, "%s: outer index %s is given twice", fn, a);
            goto fail;
        }
    SPT__CHECK(spt__tot_alloc(fn, dtype, outer_rank, outer_shape, inner_rank, n, src_off[n], &t));
    const size_t es = spt_dtype_size(dtype);
    for (int64_t e = 0; e < n; e++) {
        int64_t p = perm[e], cnt = src_off[p + 1] - src_off[p];
        if (outer_rank) memcpy(t->outer + e * outer_rank, outer + p * outer_rank, (size_t)outer_rank * sizeof(int64_t));
        if (inner_rank)
            memcpy(t->inner_shape + e * inner_rank, inner_shapes + p * inner_rank,
                   (size_t)inner_rank * sizeof(int64_t));
        t->voff[e + 1] = t->voff[e] + cnt;
        if (cnt)
            memcpy((char *)t->values + (size_t)t->voff[e] * es, (const char *)values + (size_t)src_off[p] * es,
                   (size_t)cnt * es);
    }
    spt__free(keys);
    spt__free(perm);
    spt__free(src_off);
    *out = t;
    return SPT_OK;
fail:
    spt__free(keys);
    spt__free(perm);
    spt__free(src_off);
    spt_tot_free(t);
    return st;
}

spt_dtype spt_tot_dtype(const spt_tot *t) { return t ? t->dtype : SPT_FLOAT64; }
int64_t spt_tot_outer_rank(const spt_tot *t) { return t ? t->outer_rank : 0; }
const int64_t *spt_tot_outer_shape(const spt_tot *t) { return t ? t->outer_shape : NULL; }
int64_t spt_tot_inner_rank(const spt_tot *t) { return t ? t->inner_rank : 0; }
int64_t spt_tot_count(const spt_tot *t) { return t ? t->n : 0; }
int64_t spt_tot_total_size(const spt_tot *t) { return t ? t->voff[t->n] : 0; }

static void fill_inner(const spt_tot *t, int64_t e, spt_tot_inner *in) {
    in->present = true;
    in->outer = t->outer + e * t->outer_rank;
    in->rank = t->inner_rank;
    in->shape = t->inner_shape + e * t->inner_rank;
    in->size = t->voff[e + 1] - t->voff[e];
    in->data = (const char *)t->values + (size_t)t->voff[e] * spt_dtype_size(t->dtype);
}

spt_status spt_tot_entry(const spt_tot *t, int64_t i, spt_tot_inner *inner) {
    static const char fn[] = "spt_tot_entry";
    if (!t || !inner) return spt__err(SPT_EINVAL, "%s: tot or inner is NULL", fn);
    if (i < 0 || i >= t->n)
        return spt__err(SPT_ERANGE, "%s: entry %lld outside [0, %lld)", fn, (long long)i, (long long)t->n);
    fill_inner(t, i, inner);
    return SPT_OK;
}

spt_status spt_tot_get(const spt_tot *t, const int64_t *outer_index, spt_tot_inner *inner) {
    static const char fn[] = "spt_tot_get";
    if (!t || !inner || (t->outer_rank > 0 && !outer_index))
        return spt__err(SPT_EINVAL, "%s: tot, outer_index or inner is NULL", fn);
    const int64_t r = t->outer_rank;
    for (int64_t k = 0; k < r; k++)
        if (outer_index[k] < 0 || outer_index[k] >= t->outer_shape[k]) {
            char a[SPT__IDXBUF], b[SPT__IDXBUF];
            spt__fmt_index(a, sizeof a, outer_index, r);
            spt__fmt_index(b, sizeof b, t->outer_shape, r);
            return spt__err(SPT_ERANGE, "%s: outer index %s is outside the outer shape %s", fn, a, b);
        }
    const int64_t lo = spt__tot_lower_bound(t->outer, 0, t->n, r, outer_index);
    if (lo < t->n && spt__tot_cmp(t->outer + lo * r, outer_index, r) == 0) {
        fill_inner(t, lo, inner);
    } else {
        *inner = (spt_tot_inner){false, NULL, t->inner_rank, NULL, 0, NULL};
    }
    return SPT_OK;
}
