/* SPDX-License-Identifier: Apache-2.0 */
/* embedding_common.c -- the engine of tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse:
 * every entry of the id tensor adds weight * params[id] to its output row (ids resolved over the shards
 * with the "mod" strategy), then the row is divided by its weight sum (mean) or the square root of its
 * squared weight sum (sqrtn), 0 / 0 giving 0. Rows are accumulated in storage order, so entries need not
 * be sorted and nothing is ever sorted or linearized beyond the dense output's own row number. */
#include "ops/features/features_internal.h"

#include <math.h>

typedef struct {
    const spt_dense *const *shards;
    int64_t nshards, width; /* width: elements per embedding (product of params' trailing dims) */
    void *out;
    void *wsum, *w2sum; /* per row, in the params' dtype */
} emb_ctx;

/* Params rows are prefetched this many entries ahead. */
#define EMB_AHEAD 16
/* Fixed widths: the row loop in 16-byte vectors (GCC/Clang vector extensions). */
typedef float emb_v4f __attribute__((vector_size(16)));
typedef double emb_v2d __attribute__((vector_size(16)));

#define EMB_T float
#define EMB_V emb_v4f
#define EMB_NAME(x) x##_f32
#include "ops/features/template/embedding_rows.c"
#undef EMB_T
#undef EMB_V
#undef EMB_NAME
#define EMB_T double
#define EMB_V emb_v2d
#define EMB_NAME(x) x##_f64
#include "ops/features/template/embedding_rows.c"
#undef EMB_T
#undef EMB_V
#undef EMB_NAME

/* emb_add_<t>_<W>: the add loop for rows of W elements, in vectors. */
#define EMB_FIXED(E, W)                                                                                                \
    static void emb_add_##E##_##W(const emb_ctx *c, const void *const *src, const int64_t *row, const double *w,       \
                                  int64_t lo, int64_t hi) {                                                            \
        emb_add_rows_##E(c, src, row, w, lo, hi, W, true);                                                             \
    }
EMB_FIXED(f32, 16)
EMB_FIXED(f32, 32)
EMB_FIXED(f32, 64)
EMB_FIXED(f32, 128)
EMB_FIXED(f64, 8)
EMB_FIXED(f64, 16)
EMB_FIXED(f64, 32)
EMB_FIXED(f64, 64)

typedef void (*emb_add_fn)(const emb_ctx *, const void *const *, const int64_t *, const double *, int64_t, int64_t);
/* The add loop for float32 (f32) or float64 rows of `width` elements. */
static emb_add_fn emb_pick(bool f32, int64_t width) {
    if (f32) {
        switch (width) {
        case 16: return emb_add_f32_16;
        case 32: return emb_add_f32_32;
        case 64: return emb_add_f32_64;
        case 128: return emb_add_f32_128;
        default: return emb_add_f32;
        }
    }
    switch (width) {
    case 8: return emb_add_f64_8;
    case 16: return emb_add_f64_16;
    case 32: return emb_add_f64_32;
    case 64: return emb_add_f64_64;
    default: return emb_add_f64;
    }
}

static bool row_start(const void *ctx, int64_t i) {
    const int64_t *row = ctx;
    return row[i] != row[i - 1];
}

/* Weight i of a float32 / float64 tensor. */
static double weight_at(const spt_tensor *w, int64_t i) {
    return w->dtype == SPT_FLOAT32 ? (double)((const float *)w->values)[i] : ((const double *)w->values)[i];
}
/* Resolve an id over the shards ("mod"): shard id % P, row id / P. */
static inline spt_status resolve(const char *fn, const emb_ctx *c, int64_t id, const char *what, int64_t i,
                                 int64_t *shard, int64_t *prow) {
    if (id < 0) return spt__err(SPT_ERANGE, "%s: %s[%lld] = %lld is negative", fn, what, (long long)i, (long long)id);
    if (c->nshards == 1) { /* one table: no division */
        *shard = 0;
        *prow = id;
    } else {
        *shard = id % c->nshards;
        *prow = id / c->nshards;
    }
    if (*prow >= c->shards[*shard]->shape[0]) {
        int64_t vocab = 0;
        for (int64_t p = 0; p < c->nshards; p++) vocab += c->shards[p]->shape[0];
        return spt__err(SPT_ERANGE, "%s: %s[%lld] = %lld is not in [0, %lld) (%lld shard%s, mod strategy)", fn, what,
                        (long long)i, (long long)id, (long long)vocab, (long long)c->nshards,
                        c->nshards == 1 ? "" : "s");
    }
    return SPT_OK;
}

/* Every params array: float32 or float64 as params[0], rank >= 1 and params[0]'s trailing dims. */
static spt_status emb_check_params(const char *fn, const spt_dense *const *params, int64_t nparams) {
    const spt_dense *p0 = params[0];
    for (int64_t p = 0; p < nparams; p++) {
        const spt_dense *q = params[p];
        if (!q) return spt__err(SPT_EINVAL, "%s: params[%lld] is NULL", fn, (long long)p);
        if (q->dtype != SPT_FLOAT32 && q->dtype != SPT_FLOAT64)
            return spt__err(SPT_EDTYPE, "%s: params must be float32 or float64, params[%lld] is %s", fn, (long long)p,
                            spt_dtype_name(q->dtype));
        if (q->dtype != p0->dtype)
            return spt__err(SPT_EDTYPE, "%s: params[%lld] is %s, params[0] %s", fn, (long long)p,
                            spt_dtype_name(q->dtype), spt_dtype_name(p0->dtype));
        if (q->rank < 1) return spt__err(SPT_EINVAL, "%s: params[%lld] must have rank >= 1", fn, (long long)p);
        if (q->rank != p0->rank)
            return spt__err(SPT_EINVAL, "%s: params[%lld] has rank %lld, params[0] %lld", fn, (long long)p,
                            (long long)q->rank, (long long)p0->rank);
        for (int64_t d = 1; d < q->rank; d++)
            if (q->shape[d] != p0->shape[d])
                return spt__err(SPT_EINVAL, "%s: params[%lld] has dim %lld = %lld, params[0] %lld", fn, (long long)p,
                                (long long)d, (long long)q->shape[d], (long long)p0->shape[d]);
    }
    return SPT_OK;
}

/* The weights (NULL: none) match the ids: params' dtype, the same shape, entry count and indices. */
static spt_status emb_check_weights(const char *fn, const spt_tensor *ids, const spt_tensor *weights, spt_dtype dtype) {
    if (!weights) return SPT_OK;
    if (weights->dtype != dtype)
        return spt__err(SPT_EDTYPE, "%s: weights are %s but params %s", fn, spt_dtype_name(weights->dtype),
                        spt_dtype_name(dtype));
    bool same = weights->rank == ids->rank && weights->nnz == ids->nnz;
    for (int64_t d = 0; same && d < ids->rank; d++) same = weights->shape[d] == ids->shape[d];
    if (!same) return spt__err(SPT_EINVAL, "%s: weights must have the same dense shape and entry count as the ids", fn);
    for (int64_t i = 0; i < ids->nnz * ids->rank; i++)
        if (weights->indices[i] != ids->indices[i])
            return spt__err(SPT_EINVAL, "%s: weights must have the same indices as the ids (entry %lld differs)", fn,
                            (long long)(i / ids->rank));
    return SPT_OK;
}

/* Add every entry into its row and finish the rows as the combiner says: threads take whole runs of one
 * output row when the entries come row by row (rows_sorted); otherwise one pass, then the rows. */
static void emb_run(const emb_ctx *cp, const void *const *srcs, const int64_t *erow, const double *ew, int64_t n,
                    int64_t rows, int64_t width, bool f32, bool rows_sorted, spt_combiner combiner) {
    const emb_ctx c = *cp;
    int nch = rows_sorted ? spt__nchunks(n, width) : 1;
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    spt__chunks(n, nch, bnd, rows_sorted ? row_start : NULL, erow);
    const emb_add_fn add = emb_pick(f32, width);
#pragma omp parallel for schedule(static, 1) num_threads(nch) if (nch > 1)
    for (int k = 0; k < nch; k++) {
        add(&c, srcs, erow, ew, bnd[k], bnd[k + 1]);
        /* sorted rows: the chunk owns rows erow[first] .. erow[last] and finishes them in the same pass
         * (a row no entry reaches is 0 and stays 0) */
        if (rows_sorted && bnd[k + 1] > bnd[k]) {
            if (f32) emb_finish_f32(&c, erow[bnd[k]], erow[bnd[k + 1] - 1] + 1, combiner);
            else emb_finish_f64(&c, erow[bnd[k]], erow[bnd[k + 1] - 1] + 1, combiner);
        }
    }
    if (!rows_sorted) {
        int nfin = spt__nchunks(rows, width);
        int64_t fb[SPT__MAX_CHUNKS + 1];
        spt__chunks(rows, nfin, fb, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nfin) if (nfin > 1)
        for (int k = 0; k < nfin; k++) {
            if (f32) emb_finish_f32(&c, fb[k], fb[k + 1], combiner);
            else emb_finish_f64(&c, fb[k], fb[k + 1], combiner);
        }
    }
}

spt_status spt__embedding(const char *fn, const spt_dense *const *params, int64_t nparams, const spt_tensor *ids,
                          const spt_tensor *weights, spt_combiner combiner, bool safe, int64_t default_id,
                          spt_dense **out) {
    spt_status st = SPT_OK;
    spt_dense *o = NULL;
    void *wsum = NULL, *w2sum = NULL;
    unsigned char *seen = NULL;
    const void **srcs = NULL;
    int64_t *erow = NULL;
    double *ew = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (nparams < 1 || !params)
        return spt__err(SPT_EINVAL, "%s: params must hold at least one array (got %lld)", fn, (long long)nparams);
    if (!ids) return spt__err(SPT_EINVAL, "%s: the id tensor is NULL", fn);
    if (combiner != SPT_COMBINER_SUM && combiner != SPT_COMBINER_MEAN && combiner != SPT_COMBINER_SQRTN)
        return spt__err(SPT_EINVAL, "%s: combiner %d is not one of sum, mean, sqrtn", fn, (int)combiner);
    SPT__TRY(emb_check_params(fn, params, nparams));
    const spt_dense *p0 = params[0];
    if (!spt_dtype_is_integer(ids->dtype))
        return spt__err(SPT_EDTYPE, "%s: ids must be integers, not %s", fn, spt_dtype_name(ids->dtype));
    if (ids->rank < 2)
        return spt__err(SPT_EINVAL, "%s: the id tensor must have rank >= 2, got %lld", fn, (long long)ids->rank);
    SPT__TRY(emb_check_weights(fn, ids, weights, p0->dtype));
    SPT__TRY(spt__ensure_valid(fn, ids));
    /* output rows: dim 0 (embedding_lookup_sparse) or every dim but the last (safe_...) */
    const int64_t r = ids->rank, nrow_dims = safe ? r - 1 : 1;
    int64_t oshape[SPT_MAX_RANK * 2], rows = 1, width = 1;
    for (int64_t d = 0; d < nrow_dims; d++) {
        oshape[d] = ids->shape[d];
        if (spt__mul_i64(rows, ids->shape[d], &rows))
            return spt__err(SPT_EOVERFLOW, "%s: the output has more than 2^63-1 rows", fn);
    }
    if (nrow_dims + p0->rank - 1 > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: the output rank %lld exceeds SPT_MAX_RANK", fn,
                        (long long)(nrow_dims + p0->rank - 1));
    for (int64_t d = 1; d < p0->rank; d++) {
        oshape[nrow_dims + d - 1] = p0->shape[d];
        /* a factor of params[0]'s volume, unless params[0] has no row (then no id resolves, and the
         * output's size is checked when it is made) */
        if (spt__mul_i64(width, p0->shape[d], &width)) width = 0;
    }
    emb_ctx c = {params, nparams, width, NULL, NULL, NULL};
    /* every id checked before anything is allocated */
    for (int64_t i = 0; i < ids->nnz; i++) {
        bool huge;
        int64_t id = spt__int_value(ids->dtype, ids->values, i, &huge), sh, pr;
        /* pruned: ids < 0; weights <= 0 (or NaN) only for mean and sqrtn, as TensorFlow (sum keeps them) */
        if (safe && (id < 0 || (weights && combiner != SPT_COMBINER_SUM && !(weight_at(weights, i) > 0)))) continue;
        if (huge) return spt__err(SPT_ERANGE, "%s: ids[%lld] does not fit in int64", fn, (long long)i);
        SPT__TRY(resolve(fn, &c, id, "ids", i, &sh, &pr));
    }
    int64_t dsh = 0, dpr = 0;
    if (safe && default_id < SPT_UNSET)
        return spt__err(SPT_ERANGE, "%s: default_id %lld is negative", fn, (long long)default_id);
    if (safe && default_id != SPT_UNSET) SPT__TRY(resolve(fn, &c, default_id, "default_id", 0, &dsh, &dpr));
    SPT__TRY(spt__tf_dense_out(fn, p0->dtype, nrow_dims + p0->rank - 1, oshape, &o));
    const size_t es = spt_dtype_size(p0->dtype);
    wsum = spt__alloc_array(fn, rows, 1, es, true, &st);
    w2sum = wsum ? spt__alloc_array(fn, rows, 1, es, true, &st) : NULL;
    seen = w2sum ? spt__alloc_array(fn, rows, 1, 1, true, &st) : NULL;
    if (!seen) goto fail;
    c.out = o->data;
    c.wsum = wsum;
    c.w2sum = w2sum;
    const bool f32 = p0->dtype == SPT_FLOAT32;
    const int64_t n = ids->nnz;
    srcs = spt__alloc_array(fn, n, 1, sizeof(void *), false, &st);
    erow = srcs ? spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st) : NULL;
    ew = erow ? spt__alloc_array(fn, n, 1, sizeof(double), false, &st) : NULL;
    if (!ew) goto fail;
    /* resolve every entry: its output row, the params row it adds (NULL when pruned), its weight */
    bool rows_sorted = true;
    for (int64_t i = 0; i < n; i++) {
        bool huge;
        int64_t id = spt__int_value(ids->dtype, ids->values, i, &huge), sh = 0, pr = 0;
        double w = weights ? weight_at(weights, i) : 1.0;
        const int64_t *ix = ids->indices + i * r;
        int64_t row = ix[0];
        for (int64_t d = 1; d < nrow_dims; d++) row = row * ids->shape[d] + ix[d];
        erow[i] = row;
        ew[i] = w;
        if (i > 0 && row < erow[i - 1]) rows_sorted = false;
        if (safe && (id < 0 || (weights && combiner != SPT_COMBINER_SUM && !(w > 0)))) {
            srcs[i] = NULL;
            continue;
        }
        (void)resolve(fn, &c, id, "ids", i, &sh, &pr); /* checked above */
        srcs[i] = (const char *)params[sh]->data + (size_t)(pr * width) * es;
        seen[row] = 1;
    }
    emb_run(&c, (const void *const *)srcs, erow, ew, n, rows, width, f32, rows_sorted, combiner);
    if (safe && default_id != SPT_UNSET) /* rows left empty get params[default_id] (one entry of weight 1) */
        for (int64_t row = 0; row < rows; row++) {
            if (!seen[row])
                memcpy((char *)o->data + (size_t)(row * width) * es,
                       (const char *)params[dsh]->data + (size_t)(dpr * width) * es, (size_t)width * es);
        }
    *out = o;
    o = NULL;
fail:
    spt_dense_free(o);
    spt__free(wsum);
    spt__free(w2sum);
    spt__free(seen);
    spt__free(srcs);
    spt__free(erow);
    spt__free(ew);
    return st;
}
