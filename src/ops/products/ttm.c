/* SPDX-License-Identifier: Apache-2.0 */
/* ttm.c -- spt_ttm: the mode-n product of a sparse tensor with a dense matrix. The entries are ordered
 * by every other mode, then the contracted one (a stable argsort); each run of entries sharing the other
 * modes (a fiber) gives one dense column of J results. Fibers are split across threads; each is written
 * by one thread at its own output position. */
#include "ops/kernel.h"
#include "ops/products/products_internal.h"

#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

/* Fibers [flo, fhi): fiber q holds sorted positions fs[q] .. fs[q+1]; out values at q*J + j =
 * sum_e v_e * ut[k_e * J + j]; index rows copied from the fiber's first entry with j at `mode`. */
#define SPT__TEMPLATE "ops/products/template/ttm_fibers.c"
#include "ops/each_dtype.h"

typedef void (*ttm_fn)(const void *, const int64_t *, int64_t, int64_t, const int64_t *, const int64_t *, int64_t,
                       int64_t, const void *, int64_t, int64_t *, void *);
static const ttm_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = ttm_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_ttm(const spt_tensor *t, const spt_dense *u, int64_t mode, spt_tensor **out) {
    static const char fn[] = "spt_ttm";
    spt_status st = SPT_OK;
    SPT__TRY(spt__mode_product_args(fn, t, u, mode, 2, out));
    const int64_t N = t->rank;
    ttm_fn f = table[t->dtype];
    const int64_t J = u->shape[0], K = u->shape[1], n = t->nnz;
    int64_t oshape[SPT_MAX_RANK], order[SPT_MAX_RANK], vol;
    memcpy(oshape, t->shape, (size_t)N * sizeof(int64_t));
    oshape[mode] = J;
    SPT__TRY(spt__check_dims(fn, N, oshape, &vol)); /* a sparse result: any volume (-1 past INT64_MAX) */
    for (int64_t d = 0, k = 0; d < N; d++)
        if (d != mode) order[k++] = d;
    order[N - 1] = mode;
    SPT__TRY(spt__ensure_valid(fn, t));
    int64_t *perm = NULL, *fs = NULL;
    void *ut = NULL;
    spt_tensor *o = NULL;
    const size_t es = spt_dtype_size(t->dtype);
    perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!perm) goto fail;
    SPT__CHECK(spt_argsort(t, order, perm));
    int64_t nf = 0;
    for (int64_t i = 0; i < n; i++) {
        bool start = i == 0;
        for (int64_t d = 0; d < N && !start; d++)
            if (d != mode && t->indices[perm[i] * N + d] != t->indices[perm[i - 1] * N + d]) start = true;
        nf += start;
    }
    fs = spt__alloc_array(fn, nf + 1, 1, sizeof(int64_t), false, &st);
    if (!fs) goto fail;
    for (int64_t i = 0, q = 0; i < n; i++) {
        bool start = i == 0;
        for (int64_t d = 0; d < N && !start; d++)
            if (d != mode && t->indices[perm[i] * N + d] != t->indices[perm[i - 1] * N + d]) start = true;
        if (start) fs[q++] = i;
    }
    fs[nf] = n;
    int64_t on;
    if (vol == 0) nf = 0;
    if (spt__mul_i64(nf, J, &on)) {
        st = spt__err(SPT_EOVERFLOW, "%s: %lld fibers x %lld do not fit in int64", fn, (long long)nf, (long long)J);
        goto fail;
    }
    ut = spt__alloc_array(fn, K, J, es, false, &st); /* ut[k, j] = u[j, k] */
    if (!ut) goto fail;
    for (int64_t k = 0; k < K && on > 0; k++) /* on == 0: J may be huge with K == 0, nothing to copy */
        for (int64_t j = 0; j < J; j++)
            memcpy((char *)ut + (size_t)(k * J + j) * es, (const char *)u->data + (size_t)(j * K + k) * es, es);
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, N, oshape, on, order, &o));
    int nch = spt__nchunks(nf, J * (n / (nf ? nf : 1) + 1));
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    spt__chunks(nf, nch, bnd, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++)
        f(t->values, t->indices, N, mode, perm, fs, bnd[c], bnd[c + 1], ut, J, o->indices, o->values);
    o->flags = SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE;
    spt__free(ut);
    spt__free(fs);
    spt__free(perm);
    *out = o;
    return SPT_OK;
fail:
    spt__free(ut);
    spt__free(fs);
    spt__free(perm);
    spt_tensor_free(o);
    return st;
}
