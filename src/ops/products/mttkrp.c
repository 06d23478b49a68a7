/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp.c -- spt_mttkrp: the matricized tensor times Khatri-Rao product, the kernel of CP
 * decomposition. float32/float64 go to mttkrp_fiber.c. Other dtypes: entries are grouped by their index in
 * the kept mode (used as they are when already grouped, else a stable radix sort by that index); the groups
 * are split across threads, so each output row is summed by one thread in the entries' stable order,
 * without atomics. */
#include "ops/kernel.h"
#include "ops/products/mttkrp_fiber.h"

#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

/* For sorted positions [lo, hi): e = perm ? perm[i] : i; tmp = v_e * prod_{m != mode} F_m[ix[e, m], :];
 * out[ix[e, mode], :] += tmp. */
#define SPT__TEMPLATE "ops/products/template/mttkrp_rows.c"
#include "ops/each_dtype.h"

typedef void (*mttkrp_fn)(const void *, const int64_t *, int64_t, int64_t, const int64_t *, int64_t, int64_t,
                          const void *const *, int64_t, void *, void *);
static const mttkrp_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = mttkrp_##E, )
#include "spt_dtypes.def"
#undef X
};

typedef struct {
    const int64_t *ix, *perm;
    int64_t N, mode;
} row_ctx;

static bool row_start(const void *ctx, int64_t i) {
    const row_ctx *c = ctx;
    int64_t e = c->perm ? c->perm[i] : i, f = c->perm ? c->perm[i - 1] : i - 1;
    return c->ix[e * c->N + c->mode] != c->ix[f * c->N + c->mode];
}

spt_status spt_mttkrp(const spt_tensor *t, const spt_dense *const *factors, int64_t nfactors, int64_t mode,
                      spt_dense **out) {
    static const char fn[] = "spt_mttkrp";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t || !factors) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    const int64_t N = t->rank;
    if (N < 2) return spt__err(SPT_EINVAL, "%s: the tensor must have rank >= 2, not %lld", fn, (long long)N);
    if (nfactors != N)
        return spt__err(SPT_EINVAL,
                        "%s: %lld factors given for a rank-%lld tensor (one per mode, the kept mode's ignored)", fn,
                        (long long)nfactors, (long long)N);
    if (mode < 0 || mode >= N)
        return spt__err(SPT_ERANGE, "%s: mode %lld is out of range [0, %lld)", fn, (long long)mode, (long long)N);
    mttkrp_fn f = table[t->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(t->dtype));
    int64_t R = -1;
    const void *fd[SPT_MAX_RANK] = {0};
    for (int64_t m = 0; m < N; m++) {
        if (m == mode) continue;
        const spt_dense *F = factors[m];
        if (!F) return spt__err(SPT_EINVAL, "%s: factor %lld is NULL", fn, (long long)m);
        if (F->dtype != t->dtype)
            return spt__err(SPT_EDTYPE, "%s: factor %lld has dtype %s, the tensor %s", fn, (long long)m,
                            spt_dtype_name(F->dtype), spt_dtype_name(t->dtype));
        if (F->rank != 2)
            return spt__err(SPT_EINVAL, "%s: factor %lld must be a matrix, not rank %lld", fn, (long long)m,
                            (long long)F->rank);
        if (F->shape[0] != t->shape[m])
            return spt__err(SPT_EINVAL, "%s: factor %lld has %lld rows, mode %lld of the tensor has size %lld", fn,
                            (long long)m, (long long)F->shape[0], (long long)m, (long long)t->shape[m]);
        if (R >= 0 && F->shape[1] != R)
            return spt__err(SPT_EINVAL, "%s: factor %lld has %lld columns, the factors before it %lld", fn,
                            (long long)m, (long long)F->shape[1], (long long)R);
        R = F->shape[1];
        fd[m] = F->data;
    }
    int64_t oshape[2] = {t->shape[mode], R};
    spt_dense *o = NULL;
    int64_t *perm = NULL;
    uint64_t *keys = NULL;
    void *tmp = NULL;
    SPT__TRY(spt__ensure_valid(fn, t));
    SPT__CHECK(spt__dense_new(fn, t->dtype, 2, oshape, &o));
    const int64_t n = t->nnz;
    if (n == 0 || R == 0) goto done;
    if (spt__mttkrp_fiber_has(t->dtype)) { /* floats: by fibers (mttkrp_fiber.c) */
        SPT__CHECK(spt__mttkrp_fibers(fn, t, mode, fd, R, o->data));
        goto done;
    }
    bool grouped = (t->flags & SPT__F_SORTED) && t->order[0] == mode;
    if (!grouped) {
        grouped = true;
        for (int64_t i = 1; i < n && grouped; i++)
            if (t->indices[i * N + mode] < t->indices[(i - 1) * N + mode]) grouped = false;
    }
    if (!grouped) {
        keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
        if (!keys) goto fail;
        perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!perm) goto fail;
        for (int64_t i = 0; i < n; i++) keys[i] = (uint64_t)t->indices[i * N + mode];
        SPT__CHECK(spt__radix_sort(fn, keys, perm, n, (uint64_t)(t->shape[mode] - 1)));
        spt__free(keys);
        keys = NULL;
    }
    int nch = spt__nchunks(n, N + R);
    tmp = spt__alloc_array(fn, nch, R, spt_dtype_size(t->dtype), false, &st);
    if (!tmp) goto fail;
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    row_ctx rc = {t->indices, perm, N, mode};
    spt__chunks(n, nch, bnd, row_start, &rc);
    const size_t es = spt_dtype_size(t->dtype);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++)
        f(t->values, t->indices, N, mode, perm, bnd[c], bnd[c + 1], fd, R, o->data, (char *)tmp + (size_t)c * R * es);
done:
    spt__free(tmp);
    spt__free(perm);
    *out = o;
    return SPT_OK;
fail:
    spt__free(tmp);
    spt__free(perm);
    spt__free(keys);
    spt_dense_free(o);
    return st;
}
