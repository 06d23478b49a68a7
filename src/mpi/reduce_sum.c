/* reduce_sum.c -- distributed tf.sparse.reduce_sum with a sparse result: local sums by output key, the
 * partial sums sent to the owners of their keys (one exchange), summed again there in rank order. */
#include "priv/mpi_priv.h"

/* dst[i] += src[j], generated per numeric dtype; integers wrap (unsigned arithmetic). */
#define ADD_GEN(E, T, EXPR)                                                                        \
    static void add_##E(void *dst, int64_t i, const void *src, int64_t j) {                        \
        T *d = (T *)dst + i;                                                                       \
        const T s = ((const T *)src)[j];                                                           \
        *d = EXPR;                                                                                 \
    }
#define GEN_BOOL(E, T)
#define GEN_STRING(E, T)
#define GEN_INT(E, T) ADD_GEN(E, T, (T)((uint64_t)*d + (uint64_t)s))
#define GEN_UINT(E, T) ADD_GEN(E, T, (T)((uint64_t)*d + (uint64_t)s))
#define GEN_FLOAT(E, T) ADD_GEN(E, T, *d + s)
#define GEN_COMPLEX(E, T) ADD_GEN(E, T, *d + s)
#define X(E, name, T, KIND) GEN_##KIND(E, T)
#include "spt_dtypes.def"
#undef X

typedef void (*add_fn)(void *, int64_t, const void *, int64_t);
#define TAB_BOOL(E) NULL
#define TAB_STRING(E) NULL
#define TAB_INT(E) add_##E
#define TAB_UINT(E) add_##E
#define TAB_FLOAT(E) add_##E
#define TAB_COMPLEX(E) add_##E
static const add_fn add_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) [E] = TAB_##KIND(E),
#include "spt_dtypes.def"
#undef X
};

/* Sum runs of equal consecutive index rows of t (sorted row-major) into a new tensor. */
static spt_status combine(const char *fn, const spt_tensor *t, spt_tensor **out) {
    const int64_t r = t->rank, n = t->nnz;
    const size_t es = spt_dtype_size(t->dtype);
    add_fn add = add_table[t->dtype];
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || memcmp(t->indices + i * r, t->indices + (i - 1) * r, (size_t)r * 8) != 0) m++;
    spt_tensor *o = NULL;
    SPT__TRY(spt__tensor_alloc(fn, t->dtype, r, t->shape, m, NULL, &o));
    int64_t k = -1;
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || memcmp(t->indices + i * r, t->indices + (i - 1) * r, (size_t)r * 8) != 0) {
            k++;
            if (r) memcpy(o->indices + k * r, t->indices + i * r, (size_t)r * 8);
            spt__copy_elem(o->values, k, t->values, i, es);
        } else {
            add(o->values, k, t->values, i);
        }
    }
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    *out = o;
    return SPT_OK;
}

spt_status spt_dtensor_reduce_sum(const spt_dtensor *dt, const int64_t *axes, int64_t naxes,
                                  bool keep_dims, spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_reduce_sum";
    spt_status st = SPT_OK;
    if (!dt) return spt__err(SPT_EINVAL, "%s: dtensor is NULL", fn);
    spt_mpi_ctx *ctx = dt->ctx;
    const spt_tensor *t = dt->local;
    const int64_t R = t->rank, n = t->nnz;
    spt_tensor *proj = NULL, *part = NULL, *recv = NULL, *fin = NULL;
    bool red[SPT_MAX_RANK] = {false};
    int64_t oshape[SPT_MAX_RANK], map[SPT_MAX_RANK];
    int64_t orank = 0;
    if (out) *out = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (naxes < 0 || (naxes > 0 && !axes)) st = spt__err(SPT_EINVAL, "%s: naxes = %lld with %s axes", fn, (long long)naxes, axes ? "non-NULL" : "NULL");
    else if (!add_table[t->dtype])
        st = spt__err(SPT_EDTYPE, "%s: dtype %s is not supported (integers, floats, complex)", fn, spt_dtype_name(t->dtype));
    if (st == SPT_OK) {
        if (!axes) {
            for (int64_t d = 0; d < R; d++) red[d] = true;
        } else {
            for (int64_t i = 0; i < naxes; i++) {
                if (axes[i] < -R || axes[i] >= R) {
                    st = spt__err(SPT_ERANGE, "%s: Invalid reduction dimension %lld, for input with %lld dimensions.", fn,
                                  (long long)axes[i], (long long)R);
                    break;
                }
                red[axes[i] < 0 ? axes[i] + R : axes[i]] = true;
            }
        }
    }
    SPT__AGREE(ctx, fn);
    for (int64_t d = 0; d < R; d++) {
        if (!red[d] || keep_dims) {
            map[orank] = red[d] ? -1 : d;
            oshape[orank++] = red[d] ? 1 : t->shape[d];
        }
    }
    /* the local entries projected to the output coordinates, then sorted and summed locally */
    st = spt__tensor_alloc(fn, t->dtype, orank, oshape, n, NULL, &proj);
    if (st == SPT_OK) {
        const size_t es = spt_dtype_size(t->dtype);
        for (int64_t i = 0; i < n; i++) {
            for (int64_t k = 0; k < orank; k++) proj->indices[i * orank + k] = map[k] < 0 ? 0 : t->indices[i * R + map[k]];
            spt__copy_elem(proj->values, i, t->values, i, es);
        }
        proj->flags |= SPT__F_VALID;
        st = spt__reorder(fn, proj, NULL);
    }
    if (st == SPT_OK) st = combine(fn, proj, &part);
    spt_tensor_free(proj);
    proj = NULL;
    SPT__AGREE(ctx, fn);
    /* partial sums to the owners of their keys (no key split between ranks), summed again */
    SPT__CHECK(spt__mpi_sort(ctx, fn, part, NULL, true, &recv));
    spt_tensor_free(part);
    part = NULL;
    st = combine(fn, recv, &fin);
    spt_tensor_free(recv);
    recv = NULL;
    SPT__AGREE(ctx, fn);
    st = spt__dtensor_make(ctx, fn, fin, out);
    fin = NULL;
fail:
    spt_tensor_free(fin);
    spt_tensor_free(recv);
    spt_tensor_free(part);
    spt_tensor_free(proj);
    return st;
}
