/* SPDX-License-Identifier: Apache-2.0 */
/* cwise_bcast.c -- spt_multiply_dense and spt_divide_dense: a sparse tensor times (or over) a dense
 * array under numpy's broadcasting rules, keeping the sparse pattern. Each sparse entry is repeated
 * along the dims where the sparse side has size 1 (or is missing) and the result is larger; the result
 * is in the sparse input's order when nothing is repeated, else sorted into row-major order. */
#include "ops/kernel.h"

#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

/* Integer division truncates; y == 0 is an error; MIN / -1 wraps to MIN. */
#define DIV_INT(T, x, y, bad) ((y) == 0 ? ((bad) = true, (T)0) : (y) == -1 ? (T)(0 - (uint64_t)(x)) : (T)((x) / (y)))
#define DIV_UINT(T, x, y, bad) ((y) == 0 ? ((bad) = true, (T)0) : (T)((x) / (y)))
#define DIV_FLOAT(T, x, y, bad) ((T)((x) / (y)))
#define DIV_COMPLEX DIV_FLOAT
#define MUL_OP(KIND) MULB_##KIND
#define MULB_INT(T, x, y, bad) SPT__MUL_INT(T, x, y)
#define MULB_UINT(T, x, y, bad) SPT__MUL_UINT(T, x, y)
#define MULB_FLOAT(T, x, y, bad) SPT__MUL_FLOAT(T, x, y)
#define MULB_COMPLEX(T, x, y, bad) SPT__MUL_COMPLEX(T, x, y)

/* ov[k] = OP(sv[src[k] or k / rep], dv[doff[k]]) for k in [lo, hi); returns the first k that failed or -1. */
#define DEF_APPLY(NAME, T, OP)                                                                                         \
    static int64_t NAME(const void *sv, const void *dv, const int64_t *doff, int64_t rep, int64_t lo, int64_t hi,      \
                        void *ov) {                                                                                    \
        const T *s_ = sv, *d_ = dv;                                                                                    \
        T *o_ = ov;                                                                                                    \
        for (int64_t k_ = lo; k_ < hi; k_++) {                                                                         \
            bool bad_ = false;                                                                                         \
            o_[k_] = OP(T, s_[k_ / rep], d_[doff[k_]], bad_);                                                          \
            if (bad_) return k_;                                                                                       \
        }                                                                                                              \
        return -1;                                                                                                     \
    }
#define DEF(E, T, KIND) DEF_APPLY(mul_##E, T, MULB_##KIND) DEF_APPLY(div_##E, T, DIV_##KIND)
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

typedef int64_t (*apply_fn)(const void *, const void *, const int64_t *, int64_t, int64_t, int64_t, void *);
static const apply_fn tables[2][SPT_NUM_DTYPES] = {
    {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = mul_##E, )
#include "spt_dtypes.def"
#undef X
    },
    {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = div_##E, )
#include "spt_dtypes.def"
#undef X
    },
};

static spt_status bcast(const char *fn, int op, const spt_tensor *a, const spt_dense *d, spt_tensor **out) {
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    int64_t *doff = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !d) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->dtype != d->dtype)
        return spt__err(SPT_EDTYPE, "%s: the dense operand's dtype %s differs from the sparse one's %s", fn,
                        spt_dtype_name(d->dtype), spt_dtype_name(a->dtype));
    apply_fn f = tables[op][a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int64_t ra = a->rank, rd = d->rank, R = ra > rd ? ra : rd;
    int64_t as[SPT_MAX_RANK] = {0}, ds[SPT_MAX_RANK] = {0}, os[SPT_MAX_RANK] = {0}, dstr[SPT_MAX_RANK] = {0};
    for (int64_t k = 0; k < R; k++) {
        as[k] = k < R - ra ? 1 : a->shape[k - (R - ra)];
        ds[k] = k < R - rd ? 1 : d->shape[k - (R - rd)];
        if (as[k] == ds[k] || ds[k] == 1) os[k] = as[k];
        else if (as[k] == 1) os[k] = ds[k];
        else {
            char sa[SPT__IDXBUF], sd[SPT__IDXBUF];
            spt__fmt_index(sa, sizeof sa, a->shape, ra);
            spt__fmt_index(sd, sizeof sd, d->shape, rd);
            return spt__err(SPT_EINVAL,
                            "%s: shapes %s (sparse) and %s (dense) do not broadcast: dim %lld is %lld vs %lld", fn, sa,
                            sd, (long long)k, (long long)as[k], (long long)ds[k]);
        }
    }
    int64_t vol, rep = 1;
    /* the output is sparse: a valid shape of any volume (vol -1 past INT64_MAX, 0 when a dim is 0) */
    SPT__TRY(spt__check_dims(fn, R, os, &vol));
    /* Dense strides (broadcast dims read stride 0) and the repeat count. Both products are bounded by a
     * non-zero volume (the dense one, the output one); when a volume is 0 (a zero dim) the other dims
     * may multiply past int64, but then there is no entry to place: saturate instead of overflowing. */
    for (int64_t k = R; k-- > 0;) {
        dstr[k] = ds[k] == 1 ? 0 : rep;
        if (spt__mul_i64(rep, ds[k], &rep)) rep = INT64_MAX;
    }
    rep = 1;
    for (int64_t k = 0; k < R; k++)
        if (as[k] == 1 && os[k] != 1 && spt__mul_i64(rep, os[k], &rep)) rep = INT64_MAX;
    if (vol == 0) rep = 1; /* no entry: nothing is repeated */
    SPT__TRY(spt__ensure_valid(fn, a));
    int64_t n;
    if (vol == 0) n = 0;
    else if (spt__mul_i64(a->nnz, rep, &n))
        return spt__err(SPT_EOVERFLOW, "%s: %lld entries repeated %lld times do not fit in int64", fn,
                        (long long)a->nnz, (long long)rep);
    SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, R, os, n, NULL, &o));
    doff = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
    if (!doff) goto fail;
    /* indices and dense offsets: entry i's copy q takes the digits of q (row-major) in the repeated dims */
    for (int64_t i = 0; n && i < a->nnz; i++) {
        const int64_t *src = a->indices + i * ra;
        for (int64_t q = 0; q < rep; q++) {
            int64_t k = i * rep + q, *dst = o->indices + k * R, x = q, off = 0;
            for (int64_t dd = R; dd-- > 0;) {
                int64_t v;
                if (as[dd] == 1 && os[dd] != 1) {
                    v = x % os[dd];
                    x /= os[dd];
                } else v = dd < R - ra ? 0 : src[dd - (R - ra)];
                dst[dd] = v;
                off += v * dstr[dd];
            }
            doff[k] = off;
        }
    }
    int nch = spt__nchunks(n, 4);
    int64_t bnd[SPT__MAX_CHUNKS + 1], first = INT64_MAX;
    spt__chunks(n, nch, bnd, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nch) reduction(min : first)
    for (int c = 0; c < nch; c++) {
        int64_t b = f(a->values, d->data, doff, rep, bnd[c], bnd[c + 1], o->values);
        if (b >= 0 && b < first) first = b;
    }
    if (first != INT64_MAX) {
        char ix[SPT__IDXBUF];
        spt__fmt_index(ix, sizeof ix, o->indices + first * R, R);
        st = spt__err(SPT_EINVAL, "%s: integer division by zero at output index %s (sparse entry %lld)", fn, ix,
                      (long long)(first / rep));
        goto fail;
    }
    spt__free(doff);
    doff = NULL;
    if (rep == 1 && R == ra) { /* the same entries in the same places */
        memcpy(o->order, a->order, (size_t)R * sizeof(int64_t));
        o->flags = a->flags | SPT__F_VALID;
    } else {
        o->flags = SPT__F_VALID;
        SPT__CHECK(spt__reorder(fn, o, NULL));
    }
    *out = o;
    return SPT_OK;
fail:
    spt__free(doff);
    spt_tensor_free(o);
    return st;
}

spt_status spt_multiply_dense(const spt_tensor *a, const spt_dense *dense, spt_tensor **out) {
    return bcast("spt_multiply_dense", 0, a, dense, out);
}

spt_status spt_divide_dense(const spt_tensor *a, const spt_dense *dense, spt_tensor **out) {
    return bcast("spt_divide_dense", 1, a, dense, out);
}
