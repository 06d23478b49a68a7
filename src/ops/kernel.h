/* SPDX-License-Identifier: Apache-2.0 */
/* kernel.h -- what the op families share: the per-kind arithmetic, the dtype-kind sets and the template
 * naming used by the per-dtype kernels, fixed chunking for deterministic threading, the row-major
 * sorted-key helpers, the reduce engine's and the sparse-sparse merge's interfaces. Internal, not
 * installed.
 *
 * Per-dtype kernels are template files (src/ops/<family>/template/<name>.c) that ops/each_dtype.h includes
 * once per dtype an op supports, or small X-macros over include/spt_dtypes.def; an op names the dtype
 * kinds it supports once (OK(KIND), a SPT__KINDS_<SET> below), so an unsupported dtype leaves an empty
 * (NULL) table slot = SPT_EDTYPE. */
#ifndef SPT_OPS_KERNEL_H
#define SPT_OPS_KERNEL_H

#include "core/internal.h"

#include <math.h>

/* ---- compile-time selection ---------------------------------------------------------------------- */
#define SPT__WHEN_1(...) __VA_ARGS__
#define SPT__WHEN_0(...)
#define SPT__WHEN_(c, ...) SPT__WHEN_##c(__VA_ARGS__)
#define SPT__WHEN(c, ...) SPT__WHEN_(c, __VA_ARGS__)
/* SPT__PICK(c, a, b): a when c is 1, b when c is 0. */
#define SPT__PICK_1(a, b) a
#define SPT__PICK_0(a, b) b
#define SPT__PICK_(c, a, b) SPT__PICK_##c(a, b)
#define SPT__PICK(c, a, b) SPT__PICK_(c, a, b)

/* ---- templates (ops/each_dtype.h) ----------------------------------------------------------------- */
#define SPT__CAT_(a, b) a##_##b
#define SPT__CAT(a, b) SPT__CAT_(a, b)
/* Within a template instantiated by ops/each_dtype.h: the function name x_<enum> (x_SPT_FLOAT64). */
#define SPT__NAME(x) SPT__CAT(x, SPT__E)
/* The per-kind arithmetic below for the instantiation's kind: SPT__KOP(ADD)(T, a, b) is SPT__ADD_<KIND>. */
#define SPT__KOP_(OP, K) SPT__##OP##_##K
#define SPT__KOP__(OP, K) SPT__KOP_(OP, K)
#define SPT__KOP(OP) SPT__KOP__(OP, SPT__KIND)

/* ---- the dtype kinds an op supports ------------------------------------------------------------ */
/* SPT__KINDS_<SET>(KIND) is 1 when KIND (BOOL, INT, UINT, FLOAT, COMPLEX, STRING) is in the set, else 0.
 * An op file names its set once, `#define OK(KIND) SPT__KINDS_NUMERIC(KIND)`, and keeps the dtypes of its
 * kinds with SPT__WHEN(OK(KIND), ...) in its X-macros over include/spt_dtypes.def. */
/* every integer, float and complex type */
#define SPT__KINDS_NUMERIC(K) SPT__KINDS_NUMERIC_##K
#define SPT__KINDS_NUMERIC_BOOL 0
#define SPT__KINDS_NUMERIC_INT 1
#define SPT__KINDS_NUMERIC_UINT 1
#define SPT__KINDS_NUMERIC_FLOAT 1
#define SPT__KINDS_NUMERIC_COMPLEX 1
#define SPT__KINDS_NUMERIC_STRING 0
/* integers and floats (no complex) */
#define SPT__KINDS_REAL(K) SPT__KINDS_REAL_##K
#define SPT__KINDS_REAL_BOOL 0
#define SPT__KINDS_REAL_INT 1
#define SPT__KINDS_REAL_UINT 1
#define SPT__KINDS_REAL_FLOAT 1
#define SPT__KINDS_REAL_COMPLEX 0
#define SPT__KINDS_REAL_STRING 0
/* signed integers, floats and complex (no unsigned) */
#define SPT__KINDS_SIGNED(K) SPT__KINDS_SIGNED_##K
#define SPT__KINDS_SIGNED_BOOL 0
#define SPT__KINDS_SIGNED_INT 1
#define SPT__KINDS_SIGNED_UINT 0
#define SPT__KINDS_SIGNED_FLOAT 1
#define SPT__KINDS_SIGNED_COMPLEX 1
#define SPT__KINDS_SIGNED_STRING 0
/* floats only */
#define SPT__KINDS_FLOAT(K) SPT__KINDS_FLOAT_##K
#define SPT__KINDS_FLOAT_BOOL 0
#define SPT__KINDS_FLOAT_INT 0
#define SPT__KINDS_FLOAT_UINT 0
#define SPT__KINDS_FLOAT_FLOAT 1
#define SPT__KINDS_FLOAT_COMPLEX 0
#define SPT__KINDS_FLOAT_STRING 0
/* every type but string */
#define SPT__KINDS_NONSTRING(K) SPT__KINDS_NONSTRING_##K
#define SPT__KINDS_NONSTRING_BOOL 1
#define SPT__KINDS_NONSTRING_INT 1
#define SPT__KINDS_NONSTRING_UINT 1
#define SPT__KINDS_NONSTRING_FLOAT 1
#define SPT__KINDS_NONSTRING_COMPLEX 1
#define SPT__KINDS_NONSTRING_STRING 0

/* ---- arithmetic per kind ------------------------------------------------------------------------- */
/* Integers wrap modulo 2^bits (computed in uint64_t, so never signed-overflow UB); floats and complex
 * follow IEEE. */
#define SPT__ADD_INT(T, a, b) ((T)((uint64_t)(a) + (uint64_t)(b)))
#define SPT__ADD_UINT SPT__ADD_INT
#define SPT__ADD_FLOAT(T, a, b) ((T)((a) + (b)))
#define SPT__ADD_COMPLEX SPT__ADD_FLOAT
#define SPT__MUL_INT(T, a, b) ((T)((uint64_t)(a) * (uint64_t)(b)))
#define SPT__MUL_UINT SPT__MUL_INT
#define SPT__MUL_FLOAT(T, a, b) ((T)((a) * (b)))
#define SPT__MUL_COMPLEX SPT__MUL_FLOAT
/* Complex conjugate (identity for real kinds). */
#define SPT__CONJ_INT(T, x) (x)
#define SPT__CONJ_UINT(T, x) (x)
#define SPT__CONJ_FLOAT(T, x) (x)
#define SPT__CONJ_COMPLEX(T, x) ((T)conj((double _Complex)(x)))
/* std::max / std::min as Eigen's scalar_max_op / scalar_min_op use them (NaN: the first argument
 * wins unless the comparison is true). */
#define SPT__MAXV(a, b) ((a) < (b) ? (b) : (a))
#define SPT__MINV(a, b) ((b) < (a) ? (b) : (a))
/* NaN-propagating max / min (TF's SparseSparseMaximum/Minimum and tf.math.reduce_max: a NaN on either
 * side gives NaN, whatever the order); x != x only holds for a float NaN, so integers are unaffected. */
#define SPT__MAXV_NAN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : SPT__MAXV(a, b))
#define SPT__MINV_NAN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : SPT__MINV(a, b))

/* ---- threads: fixed chunking ----------------------------------------------------------------------- */
#define SPT__MAX_CHUNKS 64

/* True when entry i (> 0) starts a new segment. */
typedef bool (*spt__seg_start_fn)(const void *ctx, int64_t i);

/* Split [0, n) into nch chunks of near-equal size: bnd[0] = 0, bnd[nch] = n, and each inner boundary
 * moved forward to the next i with start(ctx, i) (or n), so no segment straddles two chunks. start NULL
 * = any i. The split depends only on n and nch, so the result of an op is the same for a given thread
 * count. */
void spt__chunks(int64_t n, int nch, int64_t *bnd, spt__seg_start_fn start, const void *ctx);
/* start() for a sorted key array: keys[i] != keys[i-1]. */
bool spt__key_start(const void *keys, int64_t i);
/* Chunk count for n units of work of weight w each (1 .. SPT__MAX_CHUNKS). */
int spt__nchunks(int64_t n, int64_t w);

/* Row-major keys of t's entries from the key engine (keys.h: linear keys, or dense ranks past 2^64,
 * then *ordinal), every index checked (SPT_ERANGE naming fn), in ascending order: when the entries are already sorted *perm is NULL and keys[i] belongs to entry i; otherwise a
 * stable radix sort gives keys sorted and perm[k] = the entry at sorted position k. *unique: no
 * repeated index. The caller frees *keys and *perm. */
spt_status spt__sorted_keys(const char *fn, const spt_tensor *t, uint64_t **keys, int64_t **perm, bool *unique,
                            bool *ordinal);
/* The common prologue of a sparse tensor times a dense operand along one mode (spt_ttv, spt_ttm): *out
 * cleared; SPT_EINVAL for a NULL argument, SPT_ERANGE for a mode outside [0, rank), SPT_EDTYPE when d's
 * dtype differs from t's (`what` names d in the message: "vector", "matrix"). */
spt_status spt__mode_operand_check(const char *fn, const spt_tensor *t, const spt_dense *d, int64_t mode,
                                   const char *what, spt_tensor **out);
/* The same for two tensors of one shape with keys comparable across them (linear, or dense ranks over
 * both past 2^64): ka/kb (a->nnz / b->nnz keys), pa/pb, ua/ub as above. The caller frees all four. */
spt_status spt__sorted_keys2(const char *fn, const spt_tensor *a, const spt_tensor *b, uint64_t **ka, uint64_t **kb,
                             int64_t **pa, int64_t **pb, bool *ua, bool *ub);

/* Internal reduce engine shared by spt_reduce_sum(_sparse) and spt_reduce_max(_sparse). */
struct spt__reduce_src;
typedef struct spt__reduce_kernel {
    /* *acc = reduction of vals[e] for e = perm ? perm[i] : i, i in [lo, hi) (hi > lo). */
    void (*seg)(const void *vals, const int64_t *perm, int64_t lo, int64_t hi, void *acc);
    /* *acc = op(*acc, *x). */
    void (*combine)(void *acc, const void *x);
    /* For i in [lo, hi): out[keys[i]] = seen ? op(out[keys[i]], vals[i]) : vals[i]; seen = 1. */
    void (*scatter)(const void *vals, const uint64_t *keys, int64_t lo, int64_t hi, void *out, unsigned char *seen);
    /* *acc = reduction of vals[lo, hi) (hi > lo) in a fixed grouping other than storage order (faster);
     * NULL when the op's result depends on the order (then seg is used). */
    void (*lanes)(const void *vals, int64_t lo, int64_t hi, void *acc);
    /* The dense-output loops that read the index rows directly (no key array): see ops/reduce/reduce.h. */
    void (*runs)(const struct spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, void *out);
    void (*blocks)(const struct spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, void *out,
                   unsigned char *seen);
    /* Row sums of a row-major sorted 2-D tensor and its cached row pointer (ops/reduce/reduce.h):
     * runs_rp is runs for a one-dim key that also fills the row pointer of its cells; rows reads the
     * row pointer and the values only. */
    void (*runs_rp)(const struct spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, void *out,
                    uint32_t *rp);
    void (*rows)(const void *vals, const uint32_t *rp, uint64_t r0, uint64_t r1, void *out);
} spt__reduce_kernel;

/* kern NULL: the dtype is not supported (SPT_EDTYPE). Exactly one of dout / sout is non-NULL. */
spt_status spt__reduce(const char *fn, const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                       const spt__reduce_kernel *kern, spt_dense **dout, spt_tensor **sout);

/* Internal sparse-sparse union merge shared by spt_add, spt_maximum, spt_minimum. */
typedef struct spt__merge_ctx {
    const uint64_t *ka, *kb; /* sorted keys */
    const int64_t *pa, *pb;  /* perms (NULL = identity) */
    const void *va, *vb;     /* values */
    const int64_t *ia, *ib;  /* index rows */
    int64_t rank;
    double thresh;
    int64_t *oi; /* output rows */
    void *ov;    /* output values */
} spt__merge_ctx;
/* Merge a[alo,ahi) with b[blo,bhi); write from output position w (when `write`), return the count. */
typedef int64_t (*spt__merge_fn)(const spt__merge_ctx *m, int64_t alo, int64_t ahi, int64_t blo, int64_t bhi, int64_t w,
                                 bool write);
/* The checks of SparseAdd / SparseSparseMinimum/Maximum in TF's order, then the merge. merge NULL:
 * dtype not supported. */
spt_status spt__merge2(const char *fn, const spt_tensor *a, const spt_tensor *b, double thresh, spt__merge_fn merge,
                       spt_tensor **out);

/* Value i of an array v of an integer dtype dt (signed or unsigned) as int64. A uint64 above INT64_MAX:
 * with huge NULL its bits are kept (a negative int64); otherwise *huge is set and INT64_MAX returned
 * (*huge is false for every other value). */
static inline int64_t spt__int_value(spt_dtype dt, const void *v, int64_t i, bool *huge) {
    if (huge) *huge = false;
    switch (dt) {
    case SPT_INT8: return ((const int8_t *)v)[i];
    case SPT_INT16: return ((const int16_t *)v)[i];
    case SPT_INT32: return ((const int32_t *)v)[i];
    case SPT_INT64: return ((const int64_t *)v)[i];
    case SPT_UINT8: return ((const uint8_t *)v)[i];
    case SPT_UINT16: return ((const uint16_t *)v)[i];
    case SPT_UINT32: return ((const uint32_t *)v)[i];
    default: {
        uint64_t u = ((const uint64_t *)v)[i];
        if (!huge) return (int64_t)u;
        *huge = u > (uint64_t)INT64_MAX;
        return *huge ? INT64_MAX : (int64_t)u;
    }
    }
}
/* The rank-1 index arrays' reader: element i of an int32 or int64 array (the caller has checked the
 * dtype), without the general switch of spt__int_value. */
static inline int64_t spt__int_at(const spt_dense *d, int64_t i) {
    return d->dtype == SPT_INT32 ? (int64_t)((const int32_t *)d->data)[i] : ((const int64_t *)d->data)[i];
}

#endif /* SPT_OPS_KERNEL_H */
