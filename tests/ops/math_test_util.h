/* SPDX-License-Identifier: Apache-2.0 */
/* math_test_util.h -- shared helpers for the math-op tests (tests/ops/test_<op>.c): a fixed-seed PRNG,
 * random tensors of any numeric dtype with small integral values (so integer references are exact),
 * generic element get/set through double _Complex, dense references and comparisons. Header-only. */
#ifndef MATH_TEST_UTIL_H
#define MATH_TEST_UTIL_H

#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

static uint64_t mt_state = 0x9e3779b97f4a7c15ull;
static inline void mt_seed(uint64_t s) { mt_state = s ? s : 1; }
static inline uint64_t mt_next(void) {
    mt_state ^= mt_state << 13;
    mt_state ^= mt_state >> 7;
    mt_state ^= mt_state << 17;
    return mt_state;
}
/* uniform in [0, n), n > 0 */
static inline int64_t mt_int(int64_t n) { return (int64_t)(mt_next() % (uint64_t)n); }

/* Every numeric dtype. */
static const spt_dtype MT_NUMERIC[] = {SPT_INT8,   SPT_INT16,  SPT_INT32,   SPT_INT64,   SPT_UINT8,     SPT_UINT16,
                                       SPT_UINT32, SPT_UINT64, SPT_FLOAT32, SPT_FLOAT64, SPT_COMPLEX64, SPT_COMPLEX128};
#define MT_NNUMERIC ((int)(sizeof MT_NUMERIC / sizeof MT_NUMERIC[0]))

static inline double complex mt_get(spt_dtype dt, const void *p, int64_t i) {
    switch (dt) {
    case SPT_BOOL: return ((const bool *)p)[i];
    case SPT_INT8: return ((const int8_t *)p)[i];
    case SPT_INT16: return ((const int16_t *)p)[i];
    case SPT_INT32: return ((const int32_t *)p)[i];
    case SPT_INT64: return (double)((const int64_t *)p)[i];
    case SPT_UINT8: return ((const uint8_t *)p)[i];
    case SPT_UINT16: return ((const uint16_t *)p)[i];
    case SPT_UINT32: return ((const uint32_t *)p)[i];
    case SPT_UINT64: return (double)((const uint64_t *)p)[i];
    case SPT_FLOAT32: return ((const float *)p)[i];
    case SPT_FLOAT64: return ((const double *)p)[i];
    case SPT_COMPLEX64: return ((const float complex *)p)[i];
    case SPT_COMPLEX128: return ((const double complex *)p)[i];
    default: return 0;
    }
}

static inline void mt_set(spt_dtype dt, void *p, int64_t i, double complex v) {
    double r = creal(v);
    switch (dt) {
    case SPT_BOOL: ((bool *)p)[i] = r != 0; break;
    case SPT_INT8: ((int8_t *)p)[i] = (int8_t)r; break;
    case SPT_INT16: ((int16_t *)p)[i] = (int16_t)r; break;
    case SPT_INT32: ((int32_t *)p)[i] = (int32_t)r; break;
    case SPT_INT64: ((int64_t *)p)[i] = (int64_t)r; break;
    case SPT_UINT8: ((uint8_t *)p)[i] = (uint8_t)r; break;
    case SPT_UINT16: ((uint16_t *)p)[i] = (uint16_t)r; break;
    case SPT_UINT32: ((uint32_t *)p)[i] = (uint32_t)r; break;
    case SPT_UINT64: ((uint64_t *)p)[i] = (uint64_t)r; break;
    case SPT_FLOAT32: ((float *)p)[i] = (float)r; break;
    case SPT_FLOAT64: ((double *)p)[i] = r; break;
    case SPT_COMPLEX64: ((float complex *)p)[i] = (float complex)v; break;
    case SPT_COMPLEX128: ((double complex *)p)[i] = v; break;
    default: break;
    }
}

static inline bool mt_unsigned(spt_dtype dt) { return dt >= SPT_UINT8 && dt <= SPT_UINT64; }

/* A small random value: integral, in [-4, 4] ([0, 8] for unsigned), complex with an imaginary part. */
static inline double complex mt_value(spt_dtype dt) {
    double re = mt_unsigned(dt) ? (double)mt_int(9) : (double)(mt_int(9) - 4);
    if (spt_dtype_is_complex(dt)) return re + (double)(mt_int(9) - 4) * I;
    if (spt_dtype_is_float(dt)) return re + (double)mt_int(4) / 4.0;
    return re;
}

/* Exact for integers; relative/absolute tolerance 1e-4 (float32, complex64) or 1e-9 otherwise. */
static inline bool mt_close(spt_dtype dt, double complex got, double complex want) {
    if (!spt_dtype_is_float(dt) && !spt_dtype_is_complex(dt)) return got == want;
    double tol = dt == SPT_FLOAT32 || dt == SPT_COMPLEX64 ? 1e-4 : 1e-9;
    return cabs(got - want) <= tol * (1 + cabs(want));
}

static inline void mt_assert_close(spt_dtype dt, double complex got, double complex want, const char *what, int64_t i) {
    if (!mt_close(dt, got, want)) {
        print_error("%s [%s] element %lld: got %g%+gi, want %g%+gi\n", what, spt_dtype_name(dt), (long long)i,
                    creal(got), cimag(got), creal(want), cimag(want));
        fail();
    }
}

static inline int64_t mt_volume(int64_t r, const int64_t *shape) {
    int64_t v = 1;
    for (int64_t d = 0; d < r; d++) v *= shape[d];
    return v;
}

/* A random tensor: n entries (some repeated when dups), in random storage order, or sorted row-major
 * when `sorted`. Returns NULL when the volume is 0 and n > 0 is asked (n is then taken as 0). */
static inline spt_tensor *mt_rand_tensor(spt_dtype dt, int64_t r, const int64_t *shape, int64_t n, bool dups,
                                         bool sorted) {
    int64_t vol = mt_volume(r, shape);
    if (vol == 0) n = 0;
    if (!dups && n > vol) n = vol;
    spt_tensor *t;
    ASSERT_OK(spt_tensor_alloc(dt, r, shape, n, &t));
    int64_t *ix = spt_tensor_indices_mut(t);
    void *v = spt_tensor_values_mut(t);
    /* distinct cells unless dups: pick a random subset of linear offsets */
    int64_t *offs = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        int64_t o;
        for (;;) {
            o = mt_int(vol);
            if (dups) break;
            bool seen = false;
            for (int64_t j = 0; j < i && !seen; j++) seen = offs[j] == o;
            if (!seen) break;
        }
        offs[i] = o;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t o = offs[i];
        for (int64_t d = r - 1; d >= 0; d--) {
            ix[i * r + d] = o % shape[d];
            o /= shape[d];
        }
        mt_set(dt, v, i, mt_value(dt));
    }
    free(offs);
    if (sorted) ASSERT_OK(spt_reorder(t, NULL));
    return t;
}

/* Row-major offset of entry i. */
static inline int64_t mt_offset(const spt_tensor *t, int64_t i) {
    int64_t r = spt_tensor_rank(t), o = 0;
    for (int64_t d = 0; d < r; d++) o = o * spt_tensor_shape(t)[d] + spt_tensor_indices(t)[i * r + d];
    return o;
}

/* Dense reference: the sum of the entries of each cell (duplicates summed), and per-cell counts. */
static inline double complex *mt_dense_sum(const spt_tensor *t, int64_t **count) {
    int64_t vol = spt_tensor_volume(t);
    double complex *d = calloc((size_t)(vol ? vol : 1), sizeof *d);
    int64_t *c = calloc((size_t)(vol ? vol : 1), sizeof *c);
    for (int64_t i = 0; i < spt_tensor_nnz(t); i++) {
        int64_t o = mt_offset(t, i);
        d[o] += mt_get(spt_tensor_dtype(t), spt_tensor_values(t), i);
        c[o]++;
    }
    if (count) *count = c;
    else free(c);
    return d;
}

/* Bytewise equality of two tensors (indices, values, shape). */
static inline void mt_assert_same_tensor(const spt_tensor *a, const spt_tensor *b) {
    assert_int_equal(spt_tensor_rank(a), spt_tensor_rank(b));
    assert_int_equal(spt_tensor_nnz(a), spt_tensor_nnz(b));
    size_t r = (size_t)spt_tensor_rank(a), n = (size_t)spt_tensor_nnz(a);
    assert_memory_equal(spt_tensor_shape(a), spt_tensor_shape(b), r * sizeof(int64_t) + (r == 0));
    if (n && r) assert_memory_equal(spt_tensor_indices(a), spt_tensor_indices(b), n * r * sizeof(int64_t));
    if (n) assert_memory_equal(spt_tensor_values(a), spt_tensor_values(b), n * spt_dtype_size(spt_tensor_dtype(a)));
}

static inline void mt_assert_same_dense(const spt_dense *a, const spt_dense *b) {
    assert_int_equal(spt_dense_rank(a), spt_dense_rank(b));
    assert_int_equal(spt_dense_size(a), spt_dense_size(b));
    if (spt_dense_size(a))
        assert_memory_equal(spt_dense_data(a), spt_dense_data(b),
                            (size_t)spt_dense_size(a) * spt_dtype_size(spt_dense_dtype(a)));
}

/* One call of a math op, for the thread and allocation-sweep helpers below: `op` reads a, b, d and
 * flag (or calls bin(a, b) through mt_call_binary) and writes its result into o (a tensor) or od (a
 * dense array). */
typedef struct mt_call mt_call;
struct mt_call {
    spt_status (*op)(mt_call *c);
    spt_status (*bin)(const spt_tensor *, const spt_tensor *, spt_tensor **);
    const spt_tensor *a, *b;
    const spt_dense *d;
    bool flag;
    spt_tensor *o;
    spt_dense *od;
};

static inline spt_status mt_call_binary(mt_call *c) { return c->bin(c->a, c->b, &c->o); }

static inline spt_status mt_call_run(void *p) {
    mt_call *c = p;
    return c->op(c);
}

/* Free the call's results (and reset them). */
static inline void mt_call_clean(void *p) {
    mt_call *c = p;
    spt_tensor_free(c->o);
    spt_dense_free(c->od);
    c->o = NULL;
    c->od = NULL;
}

/* The allocation sweep of the call (spt_test_alloc_sweep; install the allocator first). */
static inline void mt_call_sweep(mt_call *c) { spt_test_alloc_sweep(mt_call_run, mt_call_clean, c); }

/* Threaded vs serial: the call gives byte-identical results with 1 and with 2 threads. */
static inline void mt_call_threads(mt_call *c) {
    spt_set_num_threads(1);
    ASSERT_OK(c->op(c));
    spt_tensor *o1 = c->o;
    spt_dense *od1 = c->od;
    c->o = NULL;
    c->od = NULL;
    spt_set_num_threads(2);
    ASSERT_OK(c->op(c));
    spt_set_num_threads(0);
    if (o1) mt_assert_same_tensor(o1, c->o);
    if (od1) mt_assert_same_dense(od1, c->od);
    spt_tensor_free(o1);
    spt_dense_free(od1);
    mt_call_clean(c);
}

/* A big random int64 tensor for the thread tests (enough work for 2 threads). */
static inline spt_tensor *mt_big_tensor(spt_dtype dt, int64_t r, const int64_t *shape, int64_t n, bool sorted) {
    spt_tensor *t;
    ASSERT_OK(spt_tensor_alloc(dt, r, shape, n, &t));
    int64_t *ix = spt_tensor_indices_mut(t);
    void *v = spt_tensor_values_mut(t);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t d = 0; d < r; d++) ix[i * r + d] = mt_int(shape[d]);
        mt_set(dt, v, i, mt_value(dt));
    }
    if (sorted) ASSERT_OK(spt_reorder(t, NULL));
    return t;
}

/* Reduction reference: normalise the axes (NULL = all) into red[]; for every output cell (row-major over
 * the kept dims) the sum (max=false) or the max of the stored values, and the count of entries. The
 * caller frees *val and *cnt; returns the number of output cells. */
static inline int64_t mt_reduce_ref(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool max,
                                    double complex **val, int64_t **cnt) {
    int64_t r = spt_tensor_rank(t);
    bool red[SPT_MAX_RANK] = {false};
    if (!axes)
        for (int64_t d = 0; d < r; d++) red[d] = true;
    else
        for (int64_t j = 0; j < naxes; j++) red[(axes[j] + r) % r] = true;
    int64_t ovol = 1;
    for (int64_t d = 0; d < r; d++)
        if (!red[d]) ovol *= spt_tensor_shape(t)[d];
    double complex *v = calloc((size_t)(ovol ? ovol : 1), sizeof *v);
    int64_t *c = calloc((size_t)(ovol ? ovol : 1), sizeof *c);
    for (int64_t i = 0; i < spt_tensor_nnz(t); i++) {
        int64_t o = 0;
        for (int64_t d = 0; d < r; d++)
            if (!red[d]) o = o * spt_tensor_shape(t)[d] + spt_tensor_indices(t)[i * r + d];
        double complex x = mt_get(spt_tensor_dtype(t), spt_tensor_values(t), i);
        if (!max) v[o] += x;
        else if (!c[o] || creal(v[o]) < creal(x)) v[o] = x;
        c[o]++;
    }
    *val = v;
    *cnt = c;
    return ovol;
}

#endif /* MATH_TEST_UTIL_H */
