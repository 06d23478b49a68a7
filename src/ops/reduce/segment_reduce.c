/* SPDX-License-Identifier: Apache-2.0 */
/* segment_reduce.c -- the engine of tf.sparse.segment_sum / segment_mean / segment_sqrt_n
 * (SparseSegmentReduction): a reduction threaded at segment boundaries that validates as it streams
 * (TensorFlow's checks rerun for the exact message only when it meets a fault). */
#include "ops/reduce/segment.h"

#include <math.h>

typedef struct {
    const void *data;
    const spt_dense *idx, *ids;
    void *out;
    int64_t inner, nrows; /* nrows: data's first dim (indices must be below it) */
    spt__seg_mode mode;
} seg_ctx;

static bool seg_start(const void *ctx, int64_t i) {
    const spt_dense *ids = ((const seg_ctx *)ctx)->ids;
    return spt__int_at(ids, i) != spt__int_at(ids, i - 1);
}

#define SEG_OK(KIND) SPT__KINDS_REAL(KIND)
#define SEG_IS_FLOAT(K) SEG_IS_FLOAT_(K)
#define SEG_IS_FLOAT_(K) SEG_IS_FLOAT_##K
#define SEG_IS_FLOAT_INT 0
#define SEG_IS_FLOAT_UINT 0
#define SEG_IS_FLOAT_FLOAT 1

/* How far ahead the kernels prefetch data rows. The address is formed in integer arithmetic (an index
 * not yet checked may lie outside data; a prefetch never faults). */
#define SEG_AHEAD 12
#define SEG_PREFETCH(c, base, i, hi, rowbytes)                                                                         \
    do {                                                                                                               \
        if ((i) + SEG_AHEAD < (hi))                                                                                    \
            __builtin_prefetch(                                                                                        \
                (const void *)((uintptr_t)(base) + (uintptr_t)spt__int_at((c)->idx, (i) + SEG_AHEAD) * (rowbytes)));   \
    } while (0)

/* The chunk pass per dtype (template/segment_rows.c says what it checks and computes). */
#define OK(KIND) SEG_OK(KIND)
#define SPT__TEMPLATE "ops/reduce/template/segment_rows.c"
#include "ops/each_dtype.h"

/* float32 / float64 rows of a fixed width: template/segment_fixed.c per (type, width). */
#define SEG_FN seg_f32_4
#define SEG_FT float
#define SEG_W 4
#include "ops/reduce/template/segment_fixed.c"
#undef SEG_FN
#undef SEG_FT
#undef SEG_W
#define SEG_FN seg_f32_8
#define SEG_FT float
#define SEG_W 8
#include "ops/reduce/template/segment_fixed.c"
#undef SEG_FN
#undef SEG_FT
#undef SEG_W
#define SEG_FN seg_f32_16
#define SEG_FT float
#define SEG_W 16
#include "ops/reduce/template/segment_fixed.c"
#undef SEG_FN
#undef SEG_FT
#undef SEG_W
#define SEG_FN seg_f32_32
#define SEG_FT float
#define SEG_W 32
#include "ops/reduce/template/segment_fixed.c"
#undef SEG_FN
#undef SEG_FT
#undef SEG_W
#define SEG_FN seg_f64_4
#define SEG_FT double
#define SEG_W 4
#include "ops/reduce/template/segment_fixed.c"
#undef SEG_FN
#undef SEG_FT
#undef SEG_W
#define SEG_FN seg_f64_8
#define SEG_FT double
#define SEG_W 8
#include "ops/reduce/template/segment_fixed.c"
#undef SEG_FN
#undef SEG_FT
#undef SEG_W
#define SEG_FN seg_f64_16
#define SEG_FT double
#define SEG_W 16
#include "ops/reduce/template/segment_fixed.c"
#undef SEG_FN
#undef SEG_FT
#undef SEG_W

typedef bool (*seg_fn)(const seg_ctx *, int64_t, int64_t, int64_t);
static const seg_fn seg_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(SEG_OK(KIND), [E] = seg_##E, )
#include "spt_dtypes.def"
#undef X
};

/* The kernel for data of `dt` with rows of `inner` elements. */
static seg_fn seg_pick(spt_dtype dt, int64_t inner) {
    if (dt == SPT_FLOAT32) {
        switch (inner) {
        case 4: return seg_f32_4;
        case 8: return seg_f32_8;
        case 16: return seg_f32_16;
        case 32: return seg_f32_32;
        default: break;
        }
    } else if (dt == SPT_FLOAT64) {
        switch (inner) {
        case 4: return seg_f64_4;
        case 8: return seg_f64_8;
        case 16: return seg_f64_16;
        default: break;
        }
    }
    return seg_table[dt];
}

static spt_status check_ivec(const char *fn, const char *what, const spt_dense *v) {
    if (!v) return spt__err(SPT_EINVAL, "%s: %s is NULL", fn, what);
    if (v->rank != 1)
        return spt__err(SPT_EINVAL, "%s: %s should be a vector (got rank %lld)", fn, what, (long long)v->rank);
    if (v->dtype != SPT_INT32 && v->dtype != SPT_INT64)
        return spt__err(SPT_EDTYPE, "%s: %s must be int32 or int64, not %s", fn, what, spt_dtype_name(v->dtype));
    return SPT_OK;
}

/* The ids' order (first decrease, SPT_EINVAL) then the indices' range (first outside data, SPT_ERANGE):
 * the exact checks, in TensorFlow's order, each a threaded pass. The fused kernels catch the same
 * faults; this finds the first one for the message. */
static spt_status seg_check_order(const char *fn, const spt_dense *segment_ids, int64_t n) {
    int64_t bad = n;
    int nth SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(static) num_threads(nth) reduction(min : bad) if (nth > 1)
    for (int64_t i = 1; i < n; i++)
        if (spt__int_at(segment_ids, i) < spt__int_at(segment_ids, i - 1) && i < bad) bad = i;
    if (bad < n)
        return spt__err(SPT_EINVAL, "%s: segment ids are not increasing: segment_ids[%lld] = %lld after %lld", fn,
                        (long long)bad, (long long)spt__int_at(segment_ids, bad),
                        (long long)spt__int_at(segment_ids, bad - 1));
    return SPT_OK;
}

static spt_status seg_check_indices(const char *fn, const spt_dense *indices, int64_t n, int64_t nrows) {
    int64_t bad_ix = n;
    int nthi SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(static) num_threads(nthi) reduction(min : bad_ix) if (nthi > 1)
    for (int64_t i = 0; i < n; i++) {
        int64_t v = spt__int_at(indices, i);
        if ((v < 0 || v >= nrows) && i < bad_ix) bad_ix = i;
    }
    if (bad_ix < n)
        return spt__err(SPT_ERANGE, "%s: indices[%lld] == %lld out of range [0, %lld)", fn, (long long)bad_ix,
                        (long long)spt__int_at(indices, bad_ix), (long long)nrows);
    return SPT_OK;
}

/* Both checks; SPT_EINTERNAL if neither finds the fault a fused kernel reported (cannot happen). */
static spt_status seg_check_all(const char *fn, const spt_dense *indices, const spt_dense *segment_ids, int64_t n,
                                int64_t nrows) {
    SPT__TRY(seg_check_order(fn, segment_ids, n));
    SPT__TRY(seg_check_indices(fn, indices, n, nrows));
    return SPT_OK;
}

spt_status spt__segment_reduce(const char *fn, spt__seg_mode mode, const spt_dense *data, const spt_dense *indices,
                               const spt_dense *segment_ids, int64_t num_segments, spt_dense **out) {
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!data) return spt__err(SPT_EINVAL, "%s: data is NULL", fn);
    if (data->rank < 1) return spt__err(SPT_EINVAL, "%s: data must be at least a vector (got rank 0)", fn);
    SPT__TRY(check_ivec(fn, "indices", indices));
    SPT__TRY(check_ivec(fn, "segment_ids", segment_ids));
    const int64_t n = indices->size;
    if (segment_ids->size != n)
        return spt__err(SPT_EINVAL, "%s: segment_ids and indices should have same size (%lld vs %lld)", fn,
                        (long long)segment_ids->size, (long long)n);
    if (num_segments < SPT_UNSET)
        return spt__err(SPT_EINVAL, "%s: num_segments must be >= 0 or SPT_UNSET, got %lld", fn,
                        (long long)num_segments);
    bool float_ok = data->dtype == SPT_FLOAT32 || data->dtype == SPT_FLOAT64;
    if (!seg_table[data->dtype] || (mode != SPT__SEG_SUM && !float_ok))
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported (%s)", fn, spt_dtype_name(data->dtype),
                        mode == SPT__SEG_SUM ? "integers and floats" : "float32 and float64");
    const int64_t nrows = data->shape[0];
    /* segment ids: >= 0, non-decreasing, < num_segments. The cheap ends here; the order and the indices
     * are checked by the kernels as they stream (or by seg_check_all where no kernel runs). */
    int64_t rows = num_segments == SPT_UNSET ? 0 : num_segments;
    if (n > 0) {
        int64_t last = spt__int_at(segment_ids, n - 1);
        if (num_segments != SPT_UNSET && last >= num_segments)
            return spt__err(SPT_ERANGE,
                            "%s: segment ids must be < num_segments: segment_ids[%lld] = %lld, num_segments = %lld", fn,
                            (long long)(n - 1), (long long)last, (long long)num_segments);
        int64_t first_id = spt__int_at(segment_ids, 0);
        if (first_id < 0)
            return spt__err(SPT_ERANGE, "%s: segment ids must be >= 0: segment_ids[0] = %lld", fn, (long long)first_id);
        if (num_segments == SPT_UNSET) {
            if (last == INT64_MAX) {
                SPT__TRY(seg_check_order(fn, segment_ids, n));
                return spt__err(SPT_EOVERFLOW, "%s: the last segment id %lld + 1 does not fit in int64", fn,
                                (long long)last);
            }
            rows = last + 1;
        }
    }
    int64_t oshape[SPT_MAX_RANK];
    oshape[0] = rows;
    int64_t inner = 1;
    bool inner_overflow = false; /* possible only when data.shape[0] == 0, and then there is no valid index */
    for (int64_t d = 1; d < data->rank; d++) {
        oshape[d] = data->shape[d];
        if (spt__mul_i64(inner, data->shape[d], &inner)) inner_overflow = true;
    }
    if (inner_overflow) inner = 0;
    const bool fused = n > 0 && inner > 0;
    if (!fused && n > 0) SPT__TRY(seg_check_all(fn, indices, segment_ids, n, nrows));
    spt_dense *o = NULL;
    spt_status st = spt__tf_dense_out(fn, data->dtype, data->rank, oshape, &o);
    if (st != SPT_OK) {
        /* a bad id or index is reported before the output's size */
        if (fused) SPT__TRY(seg_check_all(fn, indices, segment_ids, n, nrows));
        return st;
    }
    if (fused) {
        seg_ctx c = {data->data, indices, segment_ids, o->data, inner, nrows, mode};
        seg_fn f = seg_pick(data->dtype, inner);
        int nch = spt__nchunks(n, inner);
        int64_t bnd[SPT__MAX_CHUNKS + 1], lim[SPT__MAX_CHUNKS];
        spt__chunks(n, nch, bnd, seg_start, &c);
        /* chunk k writes rows [its first id, lim[k]) with lim[k] the next non-empty chunk's first id (or
         * rows): disjoint ranges when the first ids increase and the last is below rows */
        bool ok = true;
        int64_t next = rows;
        for (int k = nch - 1; k >= 0; k--) {
            lim[k] = next;
            if (bnd[k + 1] > bnd[k]) {
                int64_t f0 = spt__int_at(segment_ids, bnd[k]);
                if (f0 >= next) ok = false;
                next = f0;
            }
        }
        if (ok) {
#pragma omp parallel for schedule(static, 1) num_threads(nch) reduction(&& : ok) if (nch > 1)
            for (int k = 0; k < nch; k++)
                if (bnd[k + 1] > bnd[k]) ok = f(&c, bnd[k], bnd[k + 1], lim[k]) && ok;
        }
        if (!ok) {
            spt_dense_free(o);
            st = seg_check_all(fn, indices, segment_ids, n, nrows);
            return st != SPT_OK
                       ? st
                       : spt__err(SPT_EINTERNAL, "%s: the segment kernel found a fault the checks did not", fn);
        }
    }
    *out = o;
    return SPT_OK;
}
