/* SPDX-License-Identifier: Apache-2.0 */
/* cast.c -- tf.cast on the stored values of a sparse tensor (what map_values(tf.cast, sp) does), between
 * every pair of non-string dtypes, with every conversion defined (see spt_cast in spt.h). Each source
 * dtype has a loader into a wide value that keeps it exactly (int64, uint64, double or double complex);
 * each destination dtype has a storer that converts from the wide value in one step, so nothing is
 * rounded twice. Both are generated from spt_dtypes.def. */
#include "ops/kernel.h"

#include <complex.h>
#include <math.h>

enum { W_INT, W_UINT, W_FLOAT, W_COMPLEX };
typedef struct {
    int kind;
    int64_t i;
    uint64_t u;
    double f;
    double _Complex c;
} wide;

#define LOAD_BOOL(w, x) ((w).kind = W_UINT, (w).u = (x) ? 1u : 0u)
#define LOAD_INT(w, x) ((w).kind = W_INT, (w).i = (int64_t)(x))
#define LOAD_UINT(w, x) ((w).kind = W_UINT, (w).u = (uint64_t)(x))
#define LOAD_FLOAT(w, x) ((w).kind = W_FLOAT, (w).f = (double)(x))
#define LOAD_COMPLEX(w, x) ((w).kind = W_COMPLEX, (w).c = (double _Complex)(x))
#define LOAD_DEF(E, T, KIND)                                                                                           \
    static void load_##E(const void *in, int64_t lo, int64_t n, wide *w) {                                             \
        const T *x_ = (const T *)in + lo;                                                                              \
        for (int64_t k = 0; k < n; k++) LOAD_##KIND(w[k], x_[k]);                                                      \
    }
#define NOT_STRING_BOOL 1
#define NOT_STRING_INT 1
#define NOT_STRING_UINT 1
#define NOT_STRING_FLOAT 1
#define NOT_STRING_COMPLEX 1
#define NOT_STRING_STRING 0
#define X(E, name, T, KIND) SPT__WHEN(NOT_STRING_##KIND, LOAD_DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

/* float -> signed integer of `bits`: truncation toward zero, NaN -> 0, saturating at the limits. */
static int64_t sat_signed(double f, int bits) {
    if (f != f) return 0;
    double t = trunc(f), lim = ldexp(1.0, bits - 1);
    int64_t max = (int64_t)(((uint64_t)1 << (bits - 1)) - 1);
    if (t >= lim) return max;
    if (t < -lim) return -max - 1;
    return (int64_t)t;
}
/* float -> unsigned integer of `bits`: truncation toward zero, NaN and negatives -> 0, saturating. */
static uint64_t sat_unsigned(double f, int bits) {
    if (f != f) return 0;
    double t = trunc(f);
    if (t <= 0) return 0;
    if (t >= ldexp(1.0, bits)) return bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    return (uint64_t)t;
}

#define BITS(T) ((int)(sizeof(T) * 8))
/* STORE_<KIND>(T, w): the value of w as T. Integer <- integer wraps modulo 2^bits. */
#define STORE_BOOL(T, w)                                                                                               \
    ((w).kind == W_INT ? (w).i != 0 : (w).kind == W_UINT ? (w).u != 0 : (w).kind == W_FLOAT ? (w).f != 0 : (w).c != 0)
#define STORE_INT(T, w)                                                                                                \
    ((w).kind == W_INT     ? (T)(uint64_t)(w).i                                                                        \
     : (w).kind == W_UINT  ? (T)(w).u                                                                                  \
     : (w).kind == W_FLOAT ? (T)sat_signed((w).f, BITS(T))                                                             \
                           : (T)sat_signed(creal((w).c), BITS(T)))
#define STORE_UINT(T, w)                                                                                               \
    ((w).kind == W_INT     ? (T)(uint64_t)(w).i                                                                        \
     : (w).kind == W_UINT  ? (T)(w).u                                                                                  \
     : (w).kind == W_FLOAT ? (T)sat_unsigned((w).f, BITS(T))                                                           \
                           : (T)sat_unsigned(creal((w).c), BITS(T)))
#define STORE_FLOAT(T, w)                                                                                              \
    ((w).kind == W_INT ? (T)(w).i : (w).kind == W_UINT ? (T)(w).u : (w).kind == W_FLOAT ? (T)(w).f : (T)creal((w).c))
#define STORE_COMPLEX(T, w)                                                                                            \
    ((w).kind == W_INT ? (T)(w).i : (w).kind == W_UINT ? (T)(w).u : (w).kind == W_FLOAT ? (T)(w).f : (T)(w).c)
#define STORE_DEF(E, T, KIND)                                                                                          \
    static void store_##E(const wide *w, void *out, int64_t lo, int64_t n) {                                           \
        T *y_ = (T *)out + lo;                                                                                         \
        for (int64_t k = 0; k < n; k++) y_[k] = STORE_##KIND(T, w[k]);                                                 \
    }
#define X(E, name, T, KIND) SPT__WHEN(NOT_STRING_##KIND, STORE_DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

typedef void (*load_fn)(const void *, int64_t, int64_t, wide *);
typedef void (*store_fn)(const wide *, void *, int64_t, int64_t);
static const load_fn loaders[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(NOT_STRING_##KIND, [E] = load_##E, )
#include "spt_dtypes.def"
#undef X
};
static const store_fn storers[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(NOT_STRING_##KIND, [E] = store_##E, )
#include "spt_dtypes.def"
#undef X
};

#define CAST_BLOCK 256

spt_status spt_cast(const spt_tensor *t, spt_dtype dtype, spt_tensor **out) {
    static const char fn[] = "spt_cast";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if ((unsigned)dtype >= SPT_NUM_DTYPES) return spt__err(SPT_EDTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    if ((t->dtype == SPT_STRING) != (dtype == SPT_STRING))
        return spt__err(SPT_EDTYPE, "%s: cannot cast %s to %s", fn, spt_dtype_name(t->dtype), spt_dtype_name(dtype));
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t n = t->nnz;
    SPT__CHECK(spt__tensor_alloc_uninit(fn, dtype, t->rank, t->shape, n, t->order, &o));
    if (n > 0 && t->rank > 0) memcpy(o->indices, t->indices, (size_t)n * (size_t)t->rank * sizeof(int64_t));
    o->flags = t->flags;
    if (dtype == t->dtype) {
        if (n > 0) memcpy(o->values, t->values, (size_t)n * spt_dtype_size(dtype));
        if (dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&o->strings, o->values, n));
    } else {
        load_fn ld = loaders[t->dtype];
        store_fn sto = storers[dtype];
        int64_t nblocks = (n + CAST_BLOCK - 1) / CAST_BLOCK;
        int nth SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(static) num_threads(nth) if (nth > 1)
        for (int64_t b = 0; b < nblocks; b++) {
            wide w[CAST_BLOCK];
            int64_t lo = b * CAST_BLOCK, m = n - lo < CAST_BLOCK ? n - lo : CAST_BLOCK;
            ld(t->values, lo, m, w);
            sto(w, o->values, lo, m);
        }
    }
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}
