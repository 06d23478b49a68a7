/* SPDX-License-Identifier: Apache-2.0 */
/* from_dense.c -- tf.sparse.from_dense: the entries that differ from a default, in row-major order. */
#include "core/internal.h"

/* Per-dtype "differs" test, generated from the dtype list. Floats use C's != (NaN differs, -0 == 0). */
#define NE_NUM(a, b) ((a) != (b))
#define NE_BOOL(a, b) ((a) != (b))
#define NE_INT NE_NUM
#define NE_UINT NE_NUM
#define NE_FLOAT NE_NUM
#define NE_COMPLEX NE_NUM
#define NE_STRING(a, b) ((a).len != (b).len || ((a).len > 0 && memcmp((a).data, (b).data, (size_t)(a).len) != 0))

/* Positions of differing elements: counts them, and writes them when pos != NULL. */
#define X(E, name, T, KIND)                                                                                            \
    static int64_t scan_##E(const void *data, int64_t n, const void *dv, int64_t *pos) {                               \
        const T *x = data;                                                                                             \
        const T d = *(const T *)dv;                                                                                    \
        int64_t c = 0;                                                                                                 \
        for (int64_t i = 0; i < n; i++)                                                                                \
            if (NE_##KIND(x[i], d)) {                                                                                  \
                if (pos) pos[c] = i;                                                                                   \
                c++;                                                                                                   \
            }                                                                                                          \
        return c;                                                                                                      \
    }
#include "spt_dtypes.def"
#undef X

typedef int64_t (*scan_fn)(const void *, int64_t, const void *, int64_t *);
static const scan_fn scan_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) [E] = scan_##E,
#include "spt_dtypes.def"
#undef X
};

spt_status spt_from_dense(const spt_dense *d, const void *default_value, spt_tensor **out) {
    static const char fn[] = "spt_from_dense";
    spt_status st;
    spt_tensor *t = NULL;
    int64_t *pos = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!d) return spt__err(SPT_EINVAL, "%s: dense array is NULL", fn);
    static const spt_str empty = {"", 0};
    const void *dv = default_value ? default_value : d->dtype == SPT_STRING ? (const void *)&empty : spt__zero_elem;
    scan_fn scan = scan_table[d->dtype];
    int64_t n = scan(d->data, d->size, dv, NULL);
    pos = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!pos) return st;
    scan(d->data, d->size, dv, pos);
    SPT__CHECK(spt__tensor_alloc_uninit(fn, d->dtype, d->rank, d->shape, n, NULL, &t)); /* every entry written below */
    const size_t es = spt_dtype_size(d->dtype);
    const int64_t r = d->rank;
    for (int64_t i = 0; i < n; i++) {
        int64_t p = pos[i];
        for (int64_t k = r - 1; k >= 0; k--) {
            t->indices[i * r + k] = p % d->shape[k];
            p /= d->shape[k];
        }
        spt__copy_elem(t->values, i, d->data, pos[i], es);
    }
    if (d->dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&t->strings, t->values, n));
    spt__set_row_major(t, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    spt__free(pos);
    *out = t;
    return SPT_OK;
fail:
    spt__free(pos);
    spt_tensor_free(t);
    return st;
}
