/* SPDX-License-Identifier: Apache-2.0 */
/* sort.c -- reorder, reordered and argsort by any dimension order, and the linear keys of the 64-bit
 * path. spt__reorder takes the packed-key fast path (sort_packed.c) whenever the dims' bit widths fit
 * in 64 (or in 64 + its top digit, for large inputs), else the key engine's sort (keys.c), and gathers
 * the entries (sort_gather.c). */
#include "sort/sort_internal.h"

spt_status spt__linear_keys(const char *fn, const spt_tensor *t, const int64_t *order, uint64_t *keys, bool *sorted,
                            bool *unique) {
    const int64_t r = t->rank, n = t->nnz, *ix = t->indices, *sh = t->shape;
    int64_t ord[SPT_MAX_RANK];
    for (int64_t k = 0; k < r; k++) ord[k] = order ? order[k] : k;
    const bool check = !(t->flags & SPT__F_VALID);
    int64_t first_bad = INT64_MAX;
    int nth SPT__OMP_VAR = spt__threads_for(n * (r ? r : 1));
    int64_t unsorted = 0, repeated = 0;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(min : first_bad)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * r;
        uint64_t key = 0;
        for (int64_t k = 0; k < r; k++) {
            int64_t d = ord[k];
            if (check && (uint64_t)row[d] >= (uint64_t)sh[d]) {
                if (i < first_bad) first_bad = i;
                key = 0;
                break;
            }
            key = key * (uint64_t)sh[d] + (uint64_t)row[d];
        }
        keys[i] = key;
    }
    if (first_bad != INT64_MAX) return spt__oob_error(fn, t, first_bad, sh);
#pragma omp parallel for schedule(static) num_threads(nth) reduction(+ : unsorted, repeated)
    for (int64_t i = 1; i < n; i++) {
        unsorted += keys[i - 1] > keys[i];
        repeated += keys[i - 1] == keys[i];
    }
    if (check) spt__note_valid(t);
    *sorted = unsorted == 0;
    *unique = unsorted == 0 && repeated == 0;
    return SPT_OK;
}


static spt_status check_perm_order(const char *fn, int64_t rank, const int64_t *order) {
    if (!order) return SPT_OK;
    SPT__TRY(spt__check_order(fn, rank, order));
    if (rank > 0 && !spt__order_defined(rank, order))
        return spt__err(SPT_EINVAL, "%s: order must be a permutation of the %lld dims", fn, (long long)rank);
    return SPT_OK;
}

static bool same_order(const spt_tensor *t, const int64_t *order) {
    for (int64_t d = 0; d < t->rank; d++)
        if (t->order[d] != (order ? order[d] : d)) return false;
    return true;
}

/* t is known valid and sorted by `order` (NULL = row-major): nothing to do. */
static bool known_sorted_by(const spt_tensor *t, const int64_t *order) {
    return (t->flags & SPT__F_SORTED) && (t->flags & SPT__F_VALID) && same_order(t, order);
}

/* After a sort of t's entries by `order`: record the order and the flags (valid, sorted, unique or not). */
static void record_order(spt_tensor *t, const int64_t *order, bool unique) {
    spt__rowptr_drop(t); /* the entries moved */
    for (int64_t d = 0; d < t->rank; d++) t->order[d] = order ? order[d] : d;
    t->flags |= SPT__F_VALID | SPT__F_SORTED;
    if (unique) t->flags |= SPT__F_UNIQUE;
    else t->flags &= ~(unsigned)SPT__F_UNIQUE;
}

spt_status spt__reorder(const char *fn, spt_tensor *t, const int64_t *order) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, r = t->rank;
    SPT__TRY(check_perm_order(fn, r, order));
    if (known_sorted_by(t, order)) return SPT_OK;
    spt__rowptr_drop(t); /* the entries are about to move */
    packing pk;
    if (r > 0 && n > 1 && spt__make_packing(t, order, &pk)) {
        bool uniq = false;
        SPT__TRY(spt__reorder_packed(fn, t, t, &pk, &uniq));
        record_order(t, order, uniq);
        return SPT_OK;
    }
    /* keys wider than the packed 64 bits: the key engine's sort (linear keys when the volume allows) */
    spt__keyplan kp;
    spt__keyplan_init(&kp, t->shape, order, r);
    int64_t *perm = NULL;
    void *newbuf = NULL;
    bool unique, ordinal;
    SPT__CHECK(spt__key_sort(fn, t, &kp, NULL, &perm, &unique, &ordinal));
    if (perm) {
        size_t es = spt_dtype_size(t->dtype);
        /* indices: gather into a new block, then adopt it (owned) or copy it back (wrapped) */
        if (r > 0) {
            newbuf = spt__alloc_array(fn, n, r, sizeof(int64_t), false, &st);
            if (!newbuf) goto fail;
            spt__gather_rows(newbuf, t->indices, r, perm, n);
        }
        /* values next; from here on nothing can fail except this allocation, done before any write */
        void *newvals = spt__alloc_array(fn, n, 1, es, false, &st);
        if (!newvals) goto fail;
        spt__gather(newvals, t->values, es, perm, n);
        if (t->owns_buffers) {
            if (r > 0) {
                spt__free(t->indices);
                t->indices = newbuf;
                newbuf = NULL;
            }
            spt__free(t->values);
            t->values = newvals;
        } else {
            if (r > 0) memcpy(t->indices, newbuf, (size_t)n * (size_t)r * sizeof(int64_t));
            memcpy(t->values, newvals, (size_t)n * es);
            spt__free(newvals);
        }
    }
    record_order(t, order, unique);
fail:
    spt__free(newbuf);
    spt__free(perm);
    return st;
}

spt_status spt_reorder(spt_tensor *t, const int64_t *order) {
    if (!t) return spt__err(SPT_EINVAL, "spt_reorder: tensor is NULL");
    return spt__reorder("spt_reorder", t, order);
}

spt_status spt_reordered(const spt_tensor *t, const int64_t *order, spt_tensor **out) {
    static const char fn[] = "spt_reordered";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    SPT__TRY(check_perm_order(fn, t->rank, order));
    packing pk;
    if (!known_sorted_by(t, order) && t->dtype != SPT_STRING && t->rank > 0 && t->nnz > 1 &&
        spt__make_packing(t, order, &pk)) {
        /* sorted straight from t into a fresh tensor */
        bool uniq = false;
        SPT__TRY(spt__tensor_alloc_uninit(fn, t->dtype, t->rank, t->shape, t->nnz, NULL, &o));
        SPT__CHECK(spt__reorder_packed(fn, t, o, &pk, &uniq));
        record_order(o, order, uniq);
    } else if (!known_sorted_by(t, order) && t->dtype != SPT_STRING && t->rank > 0 && t->nnz > 1) {
        /* keys wider than the packed 64 bits: the engine's permutation, gathered straight into o */
        spt__keyplan kp;
        spt__keyplan_init(&kp, t->shape, order, t->rank);
        int64_t *perm = NULL;
        bool uniq, ordinal;
        SPT__TRY(spt__key_sort(fn, t, &kp, NULL, &perm, &uniq, &ordinal));
        st = spt__tensor_alloc_uninit(fn, t->dtype, t->rank, t->shape, t->nnz, NULL, &o);
        if (st != SPT_OK) {
            spt__free(perm);
            return st;
        }
        const size_t es = spt_dtype_size(t->dtype);
        if (perm) {
            spt__gather_rows(o->indices, t->indices, t->rank, perm, t->nnz);
            spt__gather(o->values, t->values, es, perm, t->nnz);
        } else {
            memcpy(o->indices, t->indices, (size_t)t->nnz * (size_t)t->rank * sizeof(int64_t));
            memcpy(o->values, t->values, (size_t)t->nnz * es);
        }
        spt__free(perm);
        record_order(o, order, uniq);
    } else { /* strings, small or known sorted tensors, keys wider than 64 bits: a copy sorted in place */
        SPT__TRY(spt_tensor_clone(t, &o));
        SPT__CHECK(spt__reorder(fn, o, order));
    }
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}

spt_status spt_argsort(const spt_tensor *t, const int64_t *order, int64_t *perm) {
    static const char fn[] = "spt_argsort";
    spt_status st = SPT_OK;
    if (!t || (!perm && t->nnz > 0)) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(check_perm_order(fn, t->rank, order));
    spt__keyplan kp;
    spt__keyplan_init(&kp, t->shape, order, t->rank);
    int64_t *p = NULL;
    bool unique, ordinal;
    SPT__TRY(spt__key_sort(fn, t, &kp, NULL, &p, &unique, &ordinal));
    for (int64_t i = 0; i < t->nnz; i++) perm[i] = p ? p[i] : i;
    spt__free(p);
    return st;
}
