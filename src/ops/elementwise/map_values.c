/* SPDX-License-Identifier: Apache-2.0 */
/* map_values.c -- tf.sparse.map_values with TensorFlow's unary math (abs, negative, sign, square, sqrt,
 * rsqrt, exp, log1p, sin, tan, asin, atan, asinh, atanh, tanh, erf, floor, ceil, round, ones_like) and
 * with add / subtract / multiply of two tensors holding the same indices. Only the stored values change;
 * indices, shape, order and flags are kept. Per-dtype loops generated from spt_dtypes.def. */
#include "ops/kernel.h"

#include <complex.h>
#include <math.h>

enum { K_BOOL, K_INT, K_UINT, K_FLOAT, K_COMPLEX, K_STRING };
static const int kind_of[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) [E] = K_##KIND,
#include "spt_dtypes.def"
#undef X
};

static const char *const op_names[SPT_NUM_UNARY_OPS] = {
    [SPT_OP_ABS] = "abs",       [SPT_OP_NEGATIVE] = "negative",   [SPT_OP_SIGN] = "sign",
    [SPT_OP_SQUARE] = "square", [SPT_OP_SQRT] = "sqrt",           [SPT_OP_RSQRT] = "rsqrt",
    [SPT_OP_EXP] = "exp",       [SPT_OP_LOG1P] = "log1p",         [SPT_OP_SIN] = "sin",
    [SPT_OP_TAN] = "tan",       [SPT_OP_ASIN] = "asin",           [SPT_OP_ATAN] = "atan",
    [SPT_OP_ASINH] = "asinh",   [SPT_OP_ATANH] = "atanh",         [SPT_OP_TANH] = "tanh",
    [SPT_OP_ERF] = "erf",       [SPT_OP_FLOOR] = "floor",         [SPT_OP_CEIL] = "ceil",
    [SPT_OP_ROUND] = "round",   [SPT_OP_ONES_LIKE] = "ones_like",
};

/* Which kinds each op accepts (bit K_*). */
#define B(k) (1u << (k))
static const unsigned op_kinds[SPT_NUM_UNARY_OPS] = {
    [SPT_OP_ABS] = B(K_INT) | B(K_UINT) | B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_NEGATIVE] = B(K_INT) | B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_SIGN] = B(K_INT) | B(K_UINT) | B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_SQUARE] = B(K_INT) | B(K_UINT) | B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_SQRT] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_RSQRT] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_EXP] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_LOG1P] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_SIN] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_TAN] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_ASIN] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_ATAN] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_ASINH] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_ATANH] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_TANH] = B(K_FLOAT) | B(K_COMPLEX),
    [SPT_OP_ERF] = B(K_FLOAT),
    [SPT_OP_FLOOR] = B(K_FLOAT),
    [SPT_OP_CEIL] = B(K_FLOAT),
    [SPT_OP_ROUND] = B(K_INT) | B(K_UINT) | B(K_FLOAT),
    [SPT_OP_ONES_LIKE] = B(K_BOOL) | B(K_INT) | B(K_UINT) | B(K_FLOAT) | B(K_COMPLEX),
};

const char *spt_unary_op_name(spt_unary_op op) { return (unsigned)op < SPT_NUM_UNARY_OPS ? op_names[op] : NULL; }

spt_status spt_unary_op_from_name(const char *name, spt_unary_op *out) {
    if (!name || !out) return spt__err(SPT_EINVAL, "spt_unary_op_from_name: NULL argument");
    for (int k = 0; k < SPT_NUM_UNARY_OPS; k++)
        if (!strcmp(name, op_names[k])) {
            *out = (spt_unary_op)k;
            return SPT_OK;
        }
    return spt__err(SPT_EINVAL, "spt_unary_op_from_name: unknown op \"%s\"", name);
}

/* Round half to even, independent of the floating-point environment. */
static double round_even(double x) {
    double r = floor(x), d = x - r;
    if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0)) r += 1.0;
    return r == 0 ? copysign(0.0, x) : r; /* -0.4 -> -0, as rint */
}

static double real_op(int op, double x) {
    switch (op) {
    case SPT_OP_ABS: return fabs(x);
    case SPT_OP_NEGATIVE: return -x;
    case SPT_OP_SIGN: return x > 0 ? 1.0 : x < 0 ? -1.0 : x; /* 0 keeps its sign bit; NaN stays NaN */
    case SPT_OP_SQUARE: return x * x;
    case SPT_OP_SQRT: return sqrt(x);
    case SPT_OP_RSQRT: return 1.0 / sqrt(x);
    case SPT_OP_EXP: return exp(x);
    case SPT_OP_LOG1P: return log1p(x);
    case SPT_OP_SIN: return sin(x);
    case SPT_OP_TAN: return tan(x);
    case SPT_OP_ASIN: return asin(x);
    case SPT_OP_ATAN: return atan(x);
    case SPT_OP_ASINH: return asinh(x);
    case SPT_OP_ATANH: return atanh(x);
    case SPT_OP_TANH: return tanh(x);
    case SPT_OP_ERF: return erf(x);
    case SPT_OP_FLOOR: return floor(x);
    case SPT_OP_CEIL: return ceil(x);
    case SPT_OP_ROUND: return round_even(x);
    default: return 1.0; /* ones_like */
    }
}

static double _Complex complex_op(int op, double _Complex z) {
    switch (op) {
    case SPT_OP_NEGATIVE: return -z;
    case SPT_OP_SIGN: {
        double m = cabs(z);
        return m == 0 ? 0 : z / m;
    }
    case SPT_OP_SQUARE: return z * z;
    case SPT_OP_SQRT: return csqrt(z);
    case SPT_OP_RSQRT: return 1.0 / csqrt(z);
    case SPT_OP_EXP: return cexp(z);
    case SPT_OP_LOG1P: return clog(1.0 + z);
    case SPT_OP_SIN: return csin(z);
    case SPT_OP_TAN: return ctan(z);
    case SPT_OP_ASIN: return casin(z);
    case SPT_OP_ATAN: return catan(z);
    case SPT_OP_ASINH: return casinh(z);
    case SPT_OP_ATANH: return catanh(z);
    case SPT_OP_TANH: return ctanh(z);
    default: return 1.0; /* ones_like */
    }
}

/* Integers: abs and negative wrap (|MIN| = MIN, as two's complement), square wraps, round is the
 * identity. Computed in uint64_t, so never signed-overflow UB. */
#define INT_BODY(T, x)                                                                                                 \
    (op == SPT_OP_ABS        ? ((x) < 0 ? (T)(0 - (uint64_t)(x)) : (x))                                                \
     : op == SPT_OP_NEGATIVE ? (T)(0 - (uint64_t)(x))                                                                  \
     : op == SPT_OP_SIGN     ? (T)((x) > 0   ? 1                                                                       \
                                   : (x) < 0 ? -1                                                                      \
                                             : 0)                                                                      \
     : op == SPT_OP_SQUARE   ? (T)((uint64_t)(x) * (uint64_t)(x))                                                      \
     : op == SPT_OP_ROUND    ? (x)                                                                                     \
                             : (T)1)
#define UINT_BODY(T, x)                                                                                                \
    (op == SPT_OP_ABS      ? (x)                                                                                       \
     : op == SPT_OP_SIGN   ? (T)((x) > 0)                                                                              \
     : op == SPT_OP_SQUARE ? (T)((uint64_t)(x) * (uint64_t)(x))                                                        \
     : op == SPT_OP_ROUND  ? (x)                                                                                       \
                           : (T)1)

#define UN_BOOL(E, T)                                                                                                  \
    static void un_##E(int op, const void *in, void *out, int64_t lo, int64_t hi) {                                    \
        (void)op, (void)in;                                                                                            \
        for (int64_t i = lo; i < hi; i++) ((T *)out)[i] = true;                                                        \
    }
#define UN_INT(E, T)                                                                                                   \
    static void un_##E(int op, const void *in, void *out, int64_t lo, int64_t hi) {                                    \
        const T *x_ = in;                                                                                              \
        T *y_ = out;                                                                                                   \
        for (int64_t i = lo; i < hi; i++) y_[i] = INT_BODY(T, x_[i]);                                                  \
    }
#define UN_UINT(E, T)                                                                                                  \
    static void un_##E(int op, const void *in, void *out, int64_t lo, int64_t hi) {                                    \
        const T *x_ = in;                                                                                              \
        T *y_ = out;                                                                                                   \
        for (int64_t i = lo; i < hi; i++) y_[i] = UINT_BODY(T, x_[i]);                                                 \
    }
/* Floats are computed in double and rounded once to the dtype. */
#define UN_FLOAT(E, T)                                                                                                 \
    static void un_##E(int op, const void *in, void *out, int64_t lo, int64_t hi) {                                    \
        const T *x_ = in;                                                                                              \
        T *y_ = out;                                                                                                   \
        for (int64_t i = lo; i < hi; i++) y_[i] = (T)real_op(op, (double)x_[i]);                                       \
    }
/* Complex abs has a real result (its own loop below). */
#define UN_COMPLEX(E, T)                                                                                               \
    static void un_##E(int op, const void *in, void *out, int64_t lo, int64_t hi) {                                    \
        const T *x_ = in;                                                                                              \
        T *y_ = out;                                                                                                   \
        for (int64_t i = lo; i < hi; i++) y_[i] = (T)complex_op(op, (double _Complex)x_[i]);                           \
    }
#define UN_STRING(E, T)

#define X(E, name, T, KIND) UN_##KIND(E, T)
#include "spt_dtypes.def"
#undef X

typedef void (*un_fn)(int, const void *, void *, int64_t, int64_t);
static const un_fn un_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(UN_HAS_##KIND, [E] = un_##E, )
#define UN_HAS_BOOL 1
#define UN_HAS_INT 1
#define UN_HAS_UINT 1
#define UN_HAS_FLOAT 1
#define UN_HAS_COMPLEX 1
#define UN_HAS_STRING 0
#include "spt_dtypes.def"
#undef X
};

/* A new tensor with t's indices, shape, order and flags and room for nnz values of `dtype`. */
static spt_status same_pattern(const char *fn, const spt_tensor *t, spt_dtype dtype, spt_tensor **out) {
    spt_status st = spt__tensor_alloc_uninit(fn, dtype, t->rank, t->shape, t->nnz, t->order, out);
    if (st != SPT_OK) return st;
    if (t->nnz > 0 && t->rank > 0)
        memcpy((*out)->indices, t->indices, (size_t)t->nnz * (size_t)t->rank * sizeof(int64_t));
    (*out)->flags = t->flags;
    return SPT_OK;
}

spt_status spt_map_values(const spt_tensor *t, spt_unary_op op, spt_tensor **out) {
    static const char fn[] = "spt_map_values";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if ((unsigned)op >= SPT_NUM_UNARY_OPS) return spt__err(SPT_EINVAL, "%s: unknown op %d", fn, (int)op);
    if (!(op_kinds[op] & B(kind_of[t->dtype])))
        return spt__err(SPT_EDTYPE, "%s: %s is not defined for dtype %s", fn, op_names[op], spt_dtype_name(t->dtype));
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t n = t->nnz;
    if (op == SPT_OP_ABS && kind_of[t->dtype] == K_COMPLEX) {
        spt_dtype rd = t->dtype == SPT_COMPLEX64 ? SPT_FLOAT32 : SPT_FLOAT64;
        SPT__CHECK(same_pattern(fn, t, rd, &o));
        if (rd == SPT_FLOAT32)
            for (int64_t i = 0; i < n; i++)
                ((float *)o->values)[i] = (float)cabs((double _Complex)((const float _Complex *)t->values)[i]);
        else
            for (int64_t i = 0; i < n; i++) ((double *)o->values)[i] = cabs(((const double _Complex *)t->values)[i]);
    } else {
        SPT__CHECK(same_pattern(fn, t, t->dtype, &o));
        un_fn f = un_table[t->dtype];
        int nch = spt__nchunks(n, op == SPT_OP_ONES_LIKE || kind_of[t->dtype] != K_FLOAT ? 1 : 16);
        int64_t bnd[SPT__MAX_CHUNKS + 1];
        spt__chunks(n, nch, bnd, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nch) if (nch > 1)
        for (int k = 0; k < nch; k++) f((int)op, t->values, o->values, bnd[k], bnd[k + 1]);
    }
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}

/* ---- two operands with the same indices ---- */

#define BIN_OK(KIND) SPT__KINDS_NUMERIC(KIND)
#define SUB_INT(T, a, b) ((T)((uint64_t)(a) - (uint64_t)(b)))
#define SUB_UINT SUB_INT
#define SUB_FLOAT(T, a, b) ((T)((a) - (b)))
#define SUB_COMPLEX SUB_FLOAT
#define BIN_DEF(E, T, KIND)                                                                                            \
    static void bin_##E(int op, const void *a, const void *b, void *out, int64_t n) {                                  \
        const T *a_ = a, *b_ = b;                                                                                      \
        T *o_ = out;                                                                                                   \
        for (int64_t i = 0; i < n; i++)                                                                                \
            o_[i] = op == SPT_OP_ADD        ? SPT__ADD_##KIND(T, a_[i], b_[i])                                         \
                    : op == SPT_OP_SUBTRACT ? SUB_##KIND(T, a_[i], b_[i])                                              \
                                            : SPT__MUL_##KIND(T, a_[i], b_[i]);                                        \
    }
#define X(E, name, T, KIND) SPT__WHEN(BIN_OK(KIND), BIN_DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X
typedef void (*bin_fn)(int, const void *, const void *, void *, int64_t);
static const bin_fn bin_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(BIN_OK(KIND), [E] = bin_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_map_values2(const spt_tensor *a, const spt_tensor *b, spt_binary_op op, spt_tensor **out) {
    static const char fn[] = "spt_map_values2";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if (op != SPT_OP_ADD && op != SPT_OP_SUBTRACT && op != SPT_OP_MULTIPLY)
        return spt__err(SPT_EINVAL, "%s: unknown op %d", fn, (int)op);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: operand dtypes differ (%s and %s)", fn, spt_dtype_name(a->dtype),
                        spt_dtype_name(b->dtype));
    bin_fn f = bin_table[a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    if (a->rank != b->rank)
        return spt__err(SPT_EINVAL, "%s: the operands must have the same dense shape (ranks %lld and %lld)", fn,
                        (long long)a->rank, (long long)b->rank);
    for (int64_t d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d])
            return spt__err(SPT_EINVAL, "%s: the operands must have the same dense shape (dim %lld: %lld vs %lld)", fn,
                            (long long)d, (long long)a->shape[d], (long long)b->shape[d]);
    if (a->nnz != b->nnz)
        return spt__err(SPT_EINVAL, "%s: the operands must have the same indices (%lld vs %lld entries)", fn,
                        (long long)a->nnz, (long long)b->nnz);
    const int64_t n = a->nnz, r = a->rank;
    for (int64_t i = 0; i < n; i++)
        if (spt__cmp_rows(a->indices + i * r, b->indices + i * r, r, NULL) != 0)
            return spt__err(SPT_EINVAL, "%s: the operands must have the same indices (entry %lld differs)", fn,
                            (long long)i);
    SPT__TRY(spt__ensure_valid(fn, a));
    SPT__CHECK(same_pattern(fn, a, a->dtype, &o));
    f((int)op, a->values, b->values, o->values, n);
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}
