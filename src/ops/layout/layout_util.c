/* SPDX-License-Identifier: Apache-2.0 */
/* layout_util.c -- helpers shared by the layout ops: gathers, string ownership, axes, order marks. */
#include "ops/layout/layout_internal.h"
#include "sort/sort_internal.h"

void spt__layout_gather(void *dst, const void *src, size_t es, const int64_t *perm, int64_t n) {
    if (n <= 0) return;
    if (!perm) memcpy(dst, src, (size_t)n * es);
    else spt__gather(dst, src, es, perm, n); /* the one gather (sort_gather.c) */
}

spt_status spt__layout_own_strings(spt_tensor *t) {
    if (t->dtype != SPT_STRING) return SPT_OK;
    return spt__arena_adopt_all(&t->strings, t->values, t->nnz);
}

spt_status spt__layout_axis(const char *fn, const char *what, int64_t axis, int64_t rank, int64_t *out) {
    int64_t a = axis < 0 ? axis + rank : axis;
    if (axis < -rank || a < 0 || a >= rank)
        return spt__err(SPT_ERANGE, "%s: %s should be in range [-%lld, %lld), got %lld", fn, what, (long long)rank,
                        (long long)rank, (long long)axis);
    *out = a;
    return SPT_OK;
}

void spt__layout_mark_sorted(spt_tensor *t) {
    const int64_t r = t->rank, n = t->nnz;
    bool sorted = true, unique = true;
    for (int64_t i = 1; i < n && sorted; i++) {
        int c = spt__cmp_rows(t->indices + (i - 1) * r, t->indices + i * r, r, NULL);
        if (c > 0) sorted = false;
        else if (c == 0) unique = false;
    }
    if (sorted) {
        spt__set_row_major(t, SPT__F_VALID | SPT__F_SORTED | (unique ? SPT__F_UNIQUE : 0u));
    } else {
        for (int64_t d = 0; d < r; d++) t->order[d] = -1;
        t->flags = SPT__F_VALID;
    }
}

spt_status spt__layout_select(const char *fn, const spt_tensor *src, const int64_t *shape, const int64_t *keep,
                              int64_t n, const int64_t *shift, spt_tensor **out) {
    spt_status st;
    spt_tensor *t = NULL;
    const int64_t r = src->rank;
    *out = NULL;
    SPT__TRY(spt__tensor_alloc_uninit(fn, src->dtype, r, shape ? shape : src->shape, n, NULL, &t));
    const size_t es = spt_dtype_size(src->dtype);
    if (!keep) {
        if (n > 0 && r > 0) memcpy(t->indices, src->indices, (size_t)n * (size_t)r * sizeof(int64_t));
    } else {
        for (int64_t k = 0; k < n; k++) {
            const int64_t *s = src->indices + keep[k] * r;
            int64_t *d = t->indices + k * r;
            for (int64_t j = 0; j < r; j++) d[j] = s[j];
        }
    }
    if (shift)
        for (int64_t k = 0; k < n; k++)
            for (int64_t j = 0; j < r; j++) t->indices[k * r + j] -= shift[j];
    spt__layout_gather(t->values, src->values, es, keep, n);
    SPT__CHECK(spt__layout_own_strings(t));
    *out = t;
    return SPT_OK;
fail:
    spt_tensor_free(t);
    return st;
}

/* Per-dtype id readers, generated for the integer kinds: the index of the first id outside [0, vocab)
 * or -1; ids are stored when `ids` is non-NULL. */
#define ID_INT(E, T)                                                                                                   \
    static int64_t ids_##E(const void *v, int64_t n, int64_t vocab, int64_t *ids) {                                    \
        const T *x = v;                                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                                              \
            if (x[i] < 0 || (int64_t)x[i] >= vocab) return i;                                                          \
            if (ids) ids[i] = (int64_t)x[i];                                                                           \
        }                                                                                                              \
        return -1;                                                                                                     \
    }
#define ID_UINT(E, T)                                                                                                  \
    static int64_t ids_##E(const void *v, int64_t n, int64_t vocab, int64_t *ids) {                                    \
        const T *x = v;                                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                                              \
            if ((uint64_t)x[i] >= (uint64_t)vocab) return i;                                                           \
            if (ids) ids[i] = (int64_t)x[i];                                                                           \
        }                                                                                                              \
        return -1;                                                                                                     \
    }
#define ID_BOOL(E, T)
#define ID_FLOAT(E, T)
#define ID_COMPLEX(E, T)
#define ID_STRING(E, T)
#define X(E, name, T, KIND) ID_##KIND(E, T)
#include "spt_dtypes.def"
#undef X

typedef int64_t (*ids_fn)(const void *, int64_t, int64_t, int64_t *);
#define IDS_INT(E) [E] = ids_##E,
#define IDS_UINT(E) [E] = ids_##E,
#define IDS_BOOL(E)
#define IDS_FLOAT(E)
#define IDS_COMPLEX(E)
#define IDS_STRING(E)
static const ids_fn ids_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) IDS_##KIND(E)
#include "spt_dtypes.def"
#undef X
};

spt_status spt__layout_ids(const char *fn, const spt_tensor *t, int64_t vocab, int64_t *ids) {
    ids_fn f = (unsigned)t->dtype < SPT_NUM_DTYPES ? ids_table[t->dtype] : NULL;
    if (!f) return spt__err(SPT_EDTYPE, "%s: ids must have an integer dtype, got %s", fn, spt_dtype_name(t->dtype));
    int64_t bad = f(t->values, t->nnz, vocab, ids);
    if (bad >= 0) {
        char a[SPT__IDXBUF];
        spt__fmt_index(a, sizeof a, t->indices + bad * t->rank, t->rank);
        size_t es = spt_dtype_size(t->dtype);
        long long v = 0;
        unsigned long long u = 0;
        const char *p = (const char *)t->values + (size_t)bad * es;
        bool is_unsigned = t->dtype == SPT_UINT8 || t->dtype == SPT_UINT16 || t->dtype == SPT_UINT32 ||
                           t->dtype == SPT_UINT64;
        switch (es) {
        case 1: v = is_unsigned ? (long long)*(const uint8_t *)p : *(const int8_t *)p; break;
        case 2: v = is_unsigned ? (long long)*(const uint16_t *)p : *(const int16_t *)p; break;
        case 4: v = is_unsigned ? (long long)*(const uint32_t *)p : *(const int32_t *)p; break;
        default:
            if (is_unsigned) u = *(const uint64_t *)p;
            else v = *(const int64_t *)p;
        }
        if (is_unsigned && es == 8)
            return spt__err(SPT_ERANGE, "%s: id %llu of entry %lld (index %s) is outside [0, %lld)", fn, u,
                            (long long)bad, a, (long long)vocab);
        return spt__err(SPT_ERANGE, "%s: id %lld of entry %lld (index %s) is outside [0, %lld)", fn, v, (long long)bad,
                        a, (long long)vocab);
    }
    return SPT_OK;
}
