/* SPDX-License-Identifier: Apache-2.0 */
/* add_dense.c -- sparse + dense -> dense (SparseTensorDenseAdd): a copy of the dense operand with every
 * entry added to its cell; duplicates accumulate in storage order. Threaded when the entries are sorted
 * (chunks then own disjoint cells); otherwise one pass in storage order. */
#include "ops/elementwise/cwise.h"

/* All number types. */
#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), SPT__DEF_SCATTER_ADD(scat_##E, T, SPT__ADD_##KIND))
#include "spt_dtypes.def"
#undef X

typedef void (*scatter_fn)(const void *, const uint64_t *, int64_t, int64_t, void *);
static const scatter_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = scat_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_add_dense(const spt_tensor *a, const spt_dense *b, spt_dense **out) {
    static const char fn[] = "spt_add_dense";
    spt_status st = SPT_OK;
    spt_dense *o = NULL;
    uint64_t *offs = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: dense dtype %s differs from the sparse %s", fn, spt_dtype_name(b->dtype),
                        spt_dtype_name(a->dtype));
    scatter_fn f = table[a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int64_t r = a->rank, n = a->nnz;
    if (r != b->rank)
        return spt__err(SPT_EINVAL, "%s: Two operands have different ranks; received: %lld and %lld", fn, (long long)r,
                        (long long)b->rank);
    for (int64_t d = 0; d < r; d++)
        if (a->shape[d] != b->shape[d])
            return spt__err(
                SPT_EINVAL,
                "%s: Dimension %lld does not equal (no broadcasting is supported): sparse side %lld vs dense "
                "side %lld",
                fn, (long long)d, (long long)a->shape[d], (long long)b->shape[d]);
    int nch = spt__nchunks(n, r);
    offs = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    if (!offs) return st;
    int64_t first = INT64_MAX, unsorted = 0;
#pragma omp parallel for schedule(static) num_threads(nch) reduction(min : first)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = a->indices + i * r;
        uint64_t off = 0;
        for (int64_t d = 0; d < r; d++) {
            if ((uint64_t)row[d] >= (uint64_t)a->shape[d]) {
                if (i < first) first = i;
                break;
            }
            off = off * (uint64_t)a->shape[d] + (uint64_t)row[d];
        }
        offs[i] = off;
    }
    if (first != INT64_MAX) {
        const int64_t *row = a->indices + first * r;
        int64_t d = 0;
        while ((uint64_t)row[d] < (uint64_t)a->shape[d]) d++;
        char s[SPT__IDXBUF];
        spt__fmt_index(s, sizeof s, b->shape, r);
        st = spt__err(
            SPT_ERANGE,
            "%s: Sparse tensor has an invalid index on dimension %lld: a_indices(%lld,%lld) = %lld, dense tensor "
            "shape: %s",
            fn, (long long)d, (long long)first, (long long)d, (long long)row[d], s);
        goto fail;
    }
#pragma omp parallel for schedule(static) num_threads(nch) reduction(+ : unsorted)
    for (int64_t i = 1; i < n; i++) unsorted += offs[i - 1] > offs[i];
    SPT__CHECK(spt_dense_clone(b, &o));
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    if (unsorted) {
        nch = 1;
        bnd[0] = 0;
        bnd[1] = n;
    } else {
        spt__chunks(n, nch, bnd, spt__key_start, offs);
    }
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) f(a->values, offs, bnd[c], bnd[c + 1], o->data);
    spt__free(offs);
    *out = o;
    return SPT_OK;
fail:
    spt__free(offs);
    spt_dense_free(o);
    return st;
}
