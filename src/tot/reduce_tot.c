/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_tot.c -- reduce_tot_sum, the inverse of sparsify without injection:
 *   A[x] = sum over keys o with x in sm[o] of tot[o][result_index_o(x)],
 * accumulated in key order (so the result is the same on every run). */
#include "tot_internal.h"

/* acc[dpos[i]] += src[spos[i]] for one key, generated per dtype. Integers wrap (computed in uint64). */
#define ADD_INT(T, a, b) ((T)((uint64_t)(a) + (uint64_t)(b)))
#define ADD_UINT ADD_INT
#define ADD_FLOAT(T, a, b) ((a) + (b))
#define ADD_COMPLEX ADD_FLOAT
#define ADD_BOOL(T, a, b) ((a) || (b))       /* unreachable: numeric dtypes only */
#define ADD_STRING(T, a, b) ((void)(b), (a)) /* unreachable */

#define X(E, name, T, KIND)                                                                                            \
    static void acc_##E(void *acc, const int64_t *dpos, const void *src, const int64_t *spos, int64_t n) {             \
        T *a = acc;                                                                                                    \
        const T *s = src;                                                                                              \
        for (int64_t i = 0; i < n; i++) a[dpos[i]] = ADD_##KIND(T, a[dpos[i]], s[spos[i]]);                            \
    }
#include "spt_dtypes.def"
#undef X

typedef void (*acc_fn)(void *, const int64_t *, const void *, const int64_t *, int64_t);
static const acc_fn acc_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) [E] = acc_##E,
#include "spt_dtypes.def"
#undef X
};

spt_status spt_reduce_tot_sum(const spt_tot *tot, const spt_sparse_map *sm, int64_t rank, const int64_t *shape,
                              spt_dense **out) {
    static const char fn[] = "spt_reduce_tot_sum";
    spt_status st = SPT_OK;
    spt_dense *A = NULL;
    int64_t *dpos = NULL, *spos = NULL;
    char a[SPT__IDXBUF], b[SPT__IDXBUF];
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!tot || !sm) return spt__err(SPT_EINVAL, "%s: tot or sparse map is NULL", fn);
    const int64_t NI = sm->ind_rank, D = sm->dep_rank;
    if (rank != D)
        return spt__err(SPT_EINVAL, "%s: output rank %lld differs from the map's dep_rank %lld", fn, (long long)rank,
                        (long long)D);
    if (tot->outer_rank != NI)
        return spt__err(SPT_EINVAL, "%s: the ToT's outer rank %lld differs from the map's ind_rank %lld", fn,
                        (long long)tot->outer_rank, (long long)NI);
    if (tot->inner_rank != D)
        return spt__err(SPT_EINVAL, "%s: the ToT's inner rank %lld differs from the map's dep_rank %lld", fn,
                        (long long)tot->inner_rank, (long long)D);
    int64_t volume; /* the output is dense: its element count must fit in int64 (SPT_EOVERFLOW naming it) */
    SPT__TRY(spt__check_shape(fn, rank, shape, &volume));
    /* walk keys and ToT entries together (both sorted by outer index): they must match one to one */
    int64_t e = 0, maxdom = 0;
    for (int64_t i = 0; i < sm->nkeys; i++) {
        const int64_t *o = sm->keys + i * NI;
        spt__dview v = spt__map_view(sm, i);
        for (int64_t k = 0; k < NI; k++)
            if (o[k] >= tot->outer_shape[k]) {
                spt__fmt_index(a, sizeof a, o, NI);
                spt__fmt_index(b, sizeof b, tot->outer_shape, NI);
                return spt__err(SPT_ERANGE, "%s: key %s of the sparse map is outside the ToT's outer shape %s", fn, a,
                                b);
            }
        int c = e < tot->n ? spt__tot_cmp(tot->outer + e * NI, o, NI) : 1;
        if (c < 0) break; /* a ToT entry without a key: reported below */
        if (v.n == 0) {
            if (c == 0) break;
            continue;
        }
        spt__fmt_index(a, sizeof a, o, NI);
        if (c > 0) return spt__err(SPT_EINVAL, "%s: the ToT is empty at key %s of the sparse map", fn, a);
        for (int64_t j = 0; j < D; j++) {
            int64_t ext = v.moff[j + 1] - v.moff[j];
            if (tot->inner_shape[e * D + j] != ext) {
                spt__fmt_index(b, sizeof b, tot->inner_shape + e * D, D);
                return spt__err(SPT_EINVAL, "%s: the inner tensor at %s has shape %s; dim %lld should be %lld", fn, a,
                                b, (long long)j, (long long)ext);
            }
            if (v.mvals[v.moff[j + 1] - 1] >= shape[j]) {
                spt__fmt_index(b, sizeof b, shape, D);
                return spt__err(SPT_ERANGE, "%s: a dependent index of key %s is outside the output shape %s", fn, a, b);
            }
        }
        if (v.n > maxdom) maxdom = v.n;
        e++;
    }
    if (e < tot->n) {
        spt__fmt_index(a, sizeof a, tot->outer + e * NI, NI);
        return spt__err(SPT_EINVAL, "%s: the ToT has an inner tensor at %s where the sparse map has no domain", fn, a);
    }
    if ((st = spt_dense_new(tot->dtype, rank, shape, &A)) != SPT_OK) { /* the errors named after this op */
        spt__fmt_index(b, sizeof b, shape, rank);
        if (st == SPT_ENOMEM || st == SPT_EOVERFLOW)
            st = spt__err(st, "%s: the dense output of shape %s (%lld %s elements) %s", fn, b, (long long)volume,
                          spt_dtype_name(tot->dtype),
                          st == SPT_ENOMEM ? "cannot be allocated" : "does not fit in size_t bytes");
        goto fail;
    }
    if (!(dpos = spt__alloc_array(fn, maxdom, 1, sizeof(int64_t), false, &st))) goto fail;
    if (!(spos = spt__alloc_array(fn, maxdom, 1, sizeof(int64_t), false, &st))) goto fail;
    const size_t es = spt_dtype_size(tot->dtype);
    acc_fn acc = acc_table[tot->dtype];
    e = 0;
    for (int64_t i = 0; i < sm->nkeys; i++) {
        spt__dview v = spt__map_view(sm, i);
        if (v.n == 0) continue;
        int64_t istride[SPT_MAX_RANK], s = 1;
        for (int64_t j = D - 1; j >= 0; j--) {
            istride[j] = s;
            s *= v.moff[j + 1] - v.moff[j];
        }
        for (int64_t r = 0; r < v.n; r++) {
            const int64_t *x = v.idx + r * D;
            int64_t lin = 0, pos = 0;
            for (int64_t j = 0; j < D; j++) {
                lin = lin * shape[j] + x[j];
                pos += spt__tot_rank_known(v.mvals + v.moff[j], v.moff[j + 1] - v.moff[j], x[j]) * istride[j];
            }
            dpos[r] = lin;
            spos[r] = pos;
        }
        acc(A->data, dpos, (const char *)tot->values + (size_t)tot->voff[e] * es, spos, v.n);
        e++;
    }
    spt__free(dpos);
    spt__free(spos);
    *out = A;
    return SPT_OK;
fail:
    spt__free(dpos);
    spt__free(spos);
    spt_dense_free(A);
    return st;
}
