/* SPDX-License-Identifier: Apache-2.0 */
/* cwise.c -- SparseDenseCwiseMul / Div / Add: each stored value combined with the dense operand broadcast
 * to the sparse shape. Entries are independent, so threads split them evenly. */
#include "ops/elementwise/cwise.h"

/* Real number types only (TF). */
#define OK(KIND) SPT__KINDS_REAL(KIND)

/* OP(T, x, y, bad) per kind */
#define MUL_INT(T, x, y, bad) SPT__MUL_INT(T, x, y)
#define MUL_UINT MUL_INT
#define MUL_FLOAT(T, x, y, bad) SPT__MUL_FLOAT(T, x, y)
#define ADD_INT(T, x, y, bad) SPT__ADD_INT(T, x, y)
#define ADD_UINT ADD_INT
#define ADD_FLOAT(T, x, y, bad) SPT__ADD_FLOAT(T, x, y)
/* truncating integer division; y == 0 is an error; MIN / -1 wraps to MIN */
#define DIV_INT(T, x, y, bad) ((y) == 0 ? ((bad) = true, (T)0) : (y) == -1 ? (T)(0 - (uint64_t)(x)) : (T)((x) / (y)))
#define DIV_UINT(T, x, y, bad) ((y) == 0 ? ((bad) = true, (T)0) : (T)((x) / (y)))
#define DIV_FLOAT(T, x, y, bad) ((T)((x) / (y)))

#define DEF(E, T, KIND)                                                                                                \
    SPT__DEF_CWISE(mul_##E, T, MUL_##KIND)                                                                             \
    SPT__DEF_CWISE(div_##E, T, DIV_##KIND)                                                                             \
    SPT__DEF_CWISE(add_##E, T, ADD_##KIND)
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

typedef int64_t (*cwise_fn)(const void *, const void *, const int64_t *, int64_t, const int64_t *, int64_t, int64_t,
                            void *);
enum { OP_MUL, OP_DIV, OP_ADD, NOPS };
static const cwise_fn table[NOPS][SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = mul_##E, )
    {
#include "spt_dtypes.def"
    },
#undef X
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = div_##E, )
    {
#include "spt_dtypes.def"
    },
#undef X
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = add_##E, )
    {
#include "spt_dtypes.def"
    },
#undef X
};

static spt_status cwise(const char *fn, int op, const spt_tensor *a, const spt_dense *dense, spt_tensor **out) {
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !dense) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->dtype != dense->dtype)
        return spt__err(SPT_EDTYPE, "%s: dense dtype %s differs from the sparse %s", fn, spt_dtype_name(dense->dtype),
                        spt_dtype_name(a->dtype));
    cwise_fn f = table[op][a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int64_t sr = a->rank, dr = dense->rank, n = a->nnz;
    if (sr == 0)
        return spt__err(SPT_EINVAL,
                        "%s: the sparse operand must have rank >= 1 (the shape argument requires at least one element)",
                        fn);
    /* TensorFlow's rule: the shapes broadcast (numpy's rule, aligned from the right) and every dense dim
     * is <= the sparse dim, so the dense side broadcasts to the sparse shape only (a dense 1 against a
     * sparse 0 is refused; a dense 0 against a sparse 1 is taken, and then no entry can meet a value) */
    bool ok = dr <= sr, empty_side = false;
    for (int64_t j = 0; ok && j < dr; j++) {
        int64_t dd = dense->shape[dr - 1 - j], sd = a->shape[sr - 1 - j];
        ok = dd == sd || (dd == 1 && sd >= 1) || (dd == 0 && sd == 1);
        empty_side |= dd == 0;
    }
    if (!ok) {
        char s1[SPT__IDXBUF], s2[SPT__IDXBUF];
        spt__fmt_index(s1, sizeof s1, a->shape, sr);
        spt__fmt_index(s2, sizeof s2, dense->shape, dr);
        return spt__err(
            SPT_EINVAL,
            "%s: SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: %s vs. %s", fn, s1,
            s2);
    }
    int nch = spt__nchunks(n, sr);
    if (!(a->flags & SPT__F_VALID)) {
        int64_t first = INT64_MAX;
#pragma omp parallel for schedule(static) num_threads(nch) reduction(min : first)
        for (int64_t i = 0; i < n; i++)
            for (int64_t d = 0; d < sr; d++)
                if ((uint64_t)a->indices[i * sr + d] >= (uint64_t)a->shape[d]) {
                    if (i < first) first = i;
                    break;
                }
        if (first != INT64_MAX) {
            char s1[SPT__IDXBUF], s2[SPT__IDXBUF];
            spt__fmt_index(s1, sizeof s1, a->indices + first * sr, sr);
            spt__fmt_index(s2, sizeof s2, a->shape, sr);
            return spt__err(SPT_ERANGE,
                            "%s: Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape: "
                            "indices[%lld] = %s, shape %s",
                            fn, (long long)first, s1, s2);
        }
        spt__note_valid(a);
    }
    if (empty_side && n > 0) {
        char s1[SPT__IDXBUF], s2[SPT__IDXBUF];
        spt__fmt_index(s1, sizeof s1, a->indices, sr);
        spt__fmt_index(s2, sizeof s2, dense->shape, dr);
        return spt__err(SPT_EINVAL, "%s: indices[0] = %s meets no element of the dense operand of shape %s", fn, s1,
                        s2);
    }
    /* strides of the broadcast dense operand, per sparse dim */
    int64_t strides[SPT_MAX_RANK], s = 1;
    for (int64_t k = sr - 1; k >= 0; k--) {
        int64_t j = k - (sr - dr); /* dense dim aligned with sparse dim k */
        if (j < 0 || dense->shape[j] == 1) strides[k] = 0;
        else strides[k] = s;
        /* the product overflows only past a zero-size dim, and then there is no entry to address (an
         * entry against an empty dense operand was refused above) */
        if (j >= 0 && spt__mul_i64(s, dense->shape[j], &s)) s = 0;
    }
    /* a's indices, shape, order and flags; the values are all written by the kernel (numeric dtypes) */
    SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, sr, a->shape, n, a->order, &o));
    if (n > 0 && sr > 0) memcpy(o->indices, a->indices, (size_t)n * (size_t)sr * sizeof(int64_t));
    o->flags = a->flags;
    int64_t bnd[SPT__MAX_CHUNKS + 1], bad[SPT__MAX_CHUNKS];
    spt__chunks(n, nch, bnd, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++)
        bad[c] = f(a->values, dense->data, a->indices, sr, strides, bnd[c], bnd[c + 1], o->values);
    for (int c = 0; c < nch; c++)
        if (bad[c] >= 0) {
            st = spt__err(SPT_EINVAL, "%s: integer division by zero at entry %lld", fn, (long long)bad[c]);
            goto fail;
        }
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}

spt_status spt_sparse_dense_cwise_mul(const spt_tensor *a, const spt_dense *dense, spt_tensor **out) {
    return cwise("spt_sparse_dense_cwise_mul", OP_MUL, a, dense, out);
}

spt_status spt_sparse_dense_cwise_div(const spt_tensor *a, const spt_dense *dense, spt_tensor **out) {
    return cwise("spt_sparse_dense_cwise_div", OP_DIV, a, dense, out);
}

spt_status spt_sparse_dense_cwise_add(const spt_tensor *a, const spt_dense *dense, spt_tensor **out) {
    return cwise("spt_sparse_dense_cwise_add", OP_ADD, a, dense, out);
}
