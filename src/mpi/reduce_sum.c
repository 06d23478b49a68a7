/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_sum.c -- distributed tf.sparse.reduce_sum with a sparse result: the serial op on each rank's
 * entries, the partial sums sent to the owners of their keys (one exchange), summed there in rank order
 * during the merge. */
#include "priv/mpi_priv.h"

/* dst[i] += src[j], generated per numeric dtype; integers wrap (unsigned arithmetic). */
#define ADD_GEN(E, T, EXPR)                                                                                            \
    static void add_##E(void *dst, int64_t i, const void *src, int64_t j) {                                            \
        T *d = (T *)dst + i;                                                                                           \
        const T s = ((const T *)src)[j];                                                                               \
        *d = EXPR;                                                                                                     \
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

spt__mpi_add_fn spt__mpi_add_for(spt_dtype dtype) {
    return dtype >= 0 && dtype < SPT_NUM_DTYPES ? add_table[dtype] : NULL;
}

spt_status spt_dtensor_reduce_sum(const spt_dtensor *dt, const int64_t *axes, int64_t naxes, bool keep_dims,
                                  spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_reduce_sum";
    spt_status st = SPT_OK;
    if (!dt) return spt__err(SPT_EINVAL, "%s: dtensor is NULL", fn);
    spt_mpi_ctx *ctx = dt->ctx;
    const spt_tensor *t = dt->local;
    const int64_t R = t->rank;
    const int P = ctx->size;
    spt_tensor *part = NULL, *fin = NULL;
    int64_t *pos = NULL;
    if (out) *out = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (naxes < 0 || (naxes > 0 && !axes))
        st = spt__err(SPT_EINVAL, "%s: naxes = %lld with %s axes", fn, (long long)naxes, axes ? "non-NULL" : "NULL");
    else if (!add_table[t->dtype])
        st = spt__err(SPT_EDTYPE, "%s: dtype %s is not supported (integers, floats, complex)", fn,
                      spt_dtype_name(t->dtype));
    if (st == SPT_OK) {
        for (int64_t i = 0; axes && i < naxes; i++) {
            if (axes[i] < -R || axes[i] >= R) {
                st = spt__err(SPT_ERANGE, "%s: Invalid reduction dimension %lld, for input with %lld dimensions.", fn,
                              (long long)axes[i], (long long)R);
                break;
            }
        }
    }
    SPT__AGREE(ctx, fn);
    /* the serial op on the local entries (P = 1: that is all); the partial sums are row-major, one per
     * output key */
    double t0 = spt__mpi_now();
    st = spt_reduce_sum_sparse(t, axes, naxes, keep_dims, &part);
    ctx->phase[SPT_MPI_PHASE_LOCAL] += spt__mpi_now() - t0;
    if (st == SPT_OK && P > 1) pos = spt__alloc_array(fn, P + 1, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    if (P == 1) {
        fin = part;
        part = NULL;
    } else {
        /* to the owners of their keys (no key split between ranks), equal keys summed in rank order */
        const spt_tensor *s = part;
        spt_tensor **donor[1] = {&part}; /* kept whole when no key moves to or from this rank */
        int64_t ord[SPT_MAX_RANK];
        for (int64_t d = 0; d < part->rank; d++) ord[d] = d;
        SPT__CHECK(spt__mpi_split(ctx, fn, 1, &s, ord, true, pos));
        SPT__CHECK(spt__mpi_exchange_sorted(ctx, fn, 1, &s, pos, ord, add_table[t->dtype], donor, &fin));
        spt__set_row_major(fin, fin->flags);
    }
    st = spt__dtensor_make(ctx, fn, fin, out);
    fin = NULL;
fail:
    spt__free(pos);
    spt_tensor_free(fin);
    spt_tensor_free(part);
    return st;
}
