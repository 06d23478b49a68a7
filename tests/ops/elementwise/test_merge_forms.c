/* SPDX-License-Identifier: Apache-2.0 */
/* test_merge_forms.c -- the blocked merge engine (merge_blocks.h) of spt_add, spt_subtract, spt_maximum,
 * spt_minimum and spt_multiply (an intersection) against their plain paths (spt__merge2, and multiply's
 * sorted-key intersection, taken when the operands are not known canonical),
 * byte for byte, in every instruction-set form the processor has (SPT_SIMD scalar, avx2, avx512) and with
 * 1 and 2 threads: every dtype of each op, ranks 1-5, empty operands and zero-size dimensions, runs from
 * one side and coinciding pairs, hostile values (NaN, +-0, +-inf, the integer limits), a shape whose
 * row-major key needs more than 64 bits (the plain merge for both). */
#include "../merge_test_common.h"

#include "ops/elementwise/simd.h"

#include <float.h>
#include <math.h>

enum { OP_ADD, OP_ADD_THRESH, OP_SUB, OP_MAX, OP_MIN, OP_MUL, N_OPS };

static spt_status run_op(int op, const spt_tensor *a, const spt_tensor *b, spt_tensor **o) {
    switch (op) {
    case OP_ADD: return spt_add(a, b, 0.0, o);
    case OP_ADD_THRESH: return spt_add(a, b, 3.0, o);
    case OP_SUB: return spt_subtract(a, b, o);
    case OP_MAX: return spt_maximum(a, b, o);
    case OP_MIN: return spt_minimum(a, b, o);
    default: return spt_multiply(a, b, o);
    }
}

/* One value, now and then a hostile one for its dtype. */
static void put_value(spt_dtype dt, void *v, int64_t i, bool neg) {
    const int64_t pick = mt_int(16);
    char *p = (char *)v + (size_t)i * spt_dtype_size(dt);
    if (pick == 0 && (dt == SPT_FLOAT64 || dt == SPT_FLOAT32 || dt == SPT_COMPLEX64 || dt == SPT_COMPLEX128)) {
        static const double sp[] = {NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY, DBL_MIN, -3.0};
        const double x = sp[mt_int(8)], y = sp[mt_int(8)];
        if (dt == SPT_FLOAT64) memcpy(p, &x, 8);
        else if (dt == SPT_FLOAT32) {
            const float f = (float)x;
            memcpy(p, &f, 4);
        } else if (dt == SPT_COMPLEX64) {
            const float c[2] = {(float)x, (float)y};
            memcpy(p, c, 8);
        } else {
            const double c[2] = {x, y};
            memcpy(p, c, 16);
        }
        return;
    }
    if (pick == 0 && dt == SPT_INT64) {
        static const int64_t sp[] = {INT64_MIN, INT64_MAX, -1, 0};
        memcpy(p, &sp[mt_int(4)], 8);
        return;
    }
    if (pick == 0 && dt == SPT_UINT64) {
        static const uint64_t sp[] = {UINT64_MAX, 0, 1u, (uint64_t)1 << 63};
        memcpy(p, &sp[mt_int(4)], 8);
        return;
    }
    double complex val = mt_value(dt);
    if (neg && !mt_unsigned(dt)) val = -val;
    mt_set(dt, v, i, val);
}

/* A canonical tensor (sorted row-major, flags set by spt_reorder) of about p of the cells, with dense and
 * empty stretches, and its twin in reversed storage order (not known sorted: the plain merge). */
static void canon_pair(spt_dtype dt, int64_t r, const int64_t *shape, double p, bool neg, uint64_t salt, spt_tensor **c,
                       spt_tensor **u) {
    const int64_t vol = mt_volume(r, shape);
    int64_t *ix = malloc((size_t)(vol * r + 1) * sizeof *ix), *rx = malloc((size_t)(vol * r + 1) * sizeof *rx);
    const size_t es = spt_dtype_size(dt);
    char *v = malloc((size_t)(vol + 1) * es), *rv = malloc((size_t)(vol + 1) * es);
    int64_t n = 0;
    for (int64_t cell = 0; cell < vol; cell++) {
        const double q = ((cell / 48 + salt) % 5 == 0) ? 0.95 : ((cell / 48 + salt) % 5 == 1) ? 0.0 : p;
        if ((double)mt_int(1000000) / 1e6 >= q) continue;
        for (int64_t d = r - 1, x = cell; d >= 0; x /= shape[d], d--) ix[n * r + d] = x % shape[d];
        put_value(dt, v, n, neg && (cell & 1));
        n++;
    }
    for (int64_t e = 0; e < n; e++) {
        memcpy(rx + (n - 1 - e) * r, ix + e * r, (size_t)r * sizeof(int64_t));
        memcpy(rv + (size_t)(n - 1 - e) * es, v + (size_t)e * es, es);
    }
    *c = mk(dt, r, shape, n, ix, v);
    ASSERT_OK(spt_reorder(*c, NULL));
    *u = mk(dt, r, shape, n, rx, rv);
    free(ix);
    free(rx);
    free(v);
    free(rv);
}

static int64_t cases_run = 0;

/* Same indices and shape; same value bytes except that two NaNs match whatever their sign and payload
 * (which NaN x + y returns when both are NaN is the compiler's choice of operand order, in both paths). */
static void same_but_nan(const spt_tensor *a, const spt_tensor *b) {
    assert_int_equal(spt_tensor_nnz(a), spt_tensor_nnz(b));
    const int64_t n = spt_tensor_nnz(a), r = spt_tensor_rank(a);
    if (n && r) assert_memory_equal(spt_tensor_indices(a), spt_tensor_indices(b), (size_t)(n * r) * sizeof(int64_t));
    const spt_dtype dt = spt_tensor_dtype(a);
    const size_t es = spt_dtype_size(dt);
    const bool fl = spt_dtype_is_float(dt) || spt_dtype_is_complex(dt), f32 = dt == SPT_FLOAT32 || dt == SPT_COMPLEX64;
    const size_t cs = fl ? (f32 ? 4 : 8) : es; /* one component */
    const char *va = spt_tensor_values(a), *vb = spt_tensor_values(b);
    for (size_t k = 0; k < (size_t)n * es; k += cs) {
        if (fl) {
            double x, y;
            if (f32) {
                float fx, fy;
                memcpy(&fx, va + k, 4);
                memcpy(&fy, vb + k, 4);
                x = fx, y = fy;
            } else {
                memcpy(&x, va + k, 8);
                memcpy(&y, vb + k, 8);
            }
            if (x != x && y != y) continue;
        }
        assert_memory_equal(va + k, vb + k, cs);
    }
}

/* Every op the dtype has, every form and thread count, against the plain merge of the twins. */
static void check_all(spt_dtype dt, int64_t r, const int64_t *shape, double pa, double pb, uint64_t salt) {
    spt_tensor *a, *ua, *b, *ub;
    canon_pair(dt, r, shape, pa, false, salt, &a, &ua);
    canon_pair(dt, r, shape, pb, true, salt + 2, &b, &ub);
    for (int op = 0; op < N_OPS; op++) {
        spt_tensor *plain = NULL, *ref = NULL;
        if (run_op(op, ua, ub, &plain) != SPT_OK) {
            assert_null(plain);
            continue; /* the op does not take this dtype */
        }
        /* the engine's scalar form with 1 thread against the plain merge; every other form and thread
         * count against it, byte for byte */
        spt__simd_force(SPT__SIMD_SCALAR);
        spt_set_num_threads(1);
        ASSERT_OK(run_op(op, a, b, &ref));
        same_but_nan(plain, ref);
        spt_tensor_free(plain);
        for (int lvl = SPT__SIMD_SCALAR; lvl <= SPT__SIMD_AVX512; lvl++) {
            if (spt__simd_force(lvl) != lvl) continue;
            for (int th = 1; th <= 2; th++) {
                spt_tensor *o = NULL;
                spt_set_num_threads(th);
                ASSERT_OK(run_op(op, a, b, &o));
                if (getenv("MF_DEBUG"))
                    fprintf(stderr, "op %d dtype %s rank %lld level %d threads %d\n", op, spt_dtype_name(dt),
                            (long long)r, lvl, th);
                mt_assert_same_tensor(ref, o);
                spt_tensor_free(o);
                cases_run++;
            }
        }
        spt__simd_force(-1);
        spt_set_num_threads(0);
        spt_tensor_free(ref);
    }
    spt_tensor_free(a);
    spt_tensor_free(ua);
    spt_tensor_free(b);
    spt_tensor_free(ub);
}

static void test_dtypes_ranks(void **state) {
    (void)state;
    mt_seed(77);
    for (int k = 0; k < MT_NNUMERIC; k++) {
        const spt_dtype dt = MT_NUMERIC[k];
        check_all(dt, 1, (int64_t[]){30000}, 0.3, 0.3, 1);
        check_all(dt, 2, (int64_t[]){173, 151}, 0.3, 0.4, 2);
        check_all(dt, 3, (int64_t[]){31, 29, 37}, 0.25, 0.3, 3);
        check_all(dt, 4, (int64_t[]){9, 11, 7, 13}, 0.3, 0.2, 4);
        check_all(dt, 5, (int64_t[]){5, 6, 4, 7, 9}, 0.3, 0.3, 5);
    }
    assert_true(cases_run > 0);
}

/* Empty operands, zero-size dimensions, one side much denser, and a single cell. */
static void test_edges(void **state) {
    (void)state;
    mt_seed(78);
    const spt_dtype dts[] = {SPT_FLOAT64, SPT_INT64, SPT_COMPLEX64, SPT_UINT64, SPT_FLOAT32};
    for (int k = 0; k < 5; k++) {
        check_all(dts[k], 2, (int64_t[]){100, 100}, 0.0, 0.3, 7); /* a empty */
        check_all(dts[k], 2, (int64_t[]){100, 100}, 0.3, 0.0, 8); /* b empty */
        check_all(dts[k], 2, (int64_t[]){100, 100}, 0.0, 0.0, 9);
        check_all(dts[k], 3, (int64_t[]){10, 0, 10}, 0.5, 0.5, 10);
        check_all(dts[k], 1, (int64_t[]){1}, 1.0, 1.0, 11);
        check_all(dts[k], 2, (int64_t[]){300, 200}, 0.9, 0.02, 12);
        check_all(dts[k], 3, (int64_t[]){40, 40, 40}, 0.6, 0.6, 13); /* many coinciding pairs */
    }
}

/* A shape whose row-major key needs more than 64 bits: both operands take the plain merge. */
static void test_wide_keys(void **state) {
    (void)state;
    const int64_t big = (int64_t)1 << 40, shape[2] = {big, big};
    const int64_t ia[] = {0, 5, 7, big - 1, 3, big - 1}, ib[] = {0, 5, 9, 1, big - 1, big - 1};
    const double va[] = {1, 2, -0.0}, vb[] = {4, -0.0, NAN};
    spt_tensor *a = mk(SPT_FLOAT64, 2, shape, 3, ia, va), *b = mk(SPT_FLOAT64, 2, shape, 3, ib, vb);
    ASSERT_OK(spt_reorder(a, NULL));
    ASSERT_OK(spt_reorder(b, NULL));
    for (int op = 0; op < N_OPS; op++) {
        spt_tensor *o0 = NULL, *o1 = NULL;
        spt__simd_force(SPT__SIMD_SCALAR);
        ASSERT_OK(run_op(op, a, b, &o0));
        spt__simd_force(-1);
        ASSERT_OK(run_op(op, a, b, &o1));
        mt_assert_same_tensor(o0, o1);
        /* one pair (1 + 4, above the threshold 3), four alone; the product keeps the pair only */
        assert_int_equal(spt_tensor_nnz(o1), op == OP_MUL ? 1 : 5);
        spt_tensor_free(o0);
        spt_tensor_free(o1);
    }
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* Exact values of the one-sided entries in the engine (canonical operands of 8-byte dtypes, where the
 * vector lane transforms them): 0 - y, max / min with an implicit zero (NaN kept, -0 as TF's order gives). */
static void test_one_sided_values(void **state) {
    (void)state;
    const int64_t n = 64, shape[1] = {256};
    int64_t ia[64], ib[64];
    double va[64], vb[64];
    for (int64_t e = 0; e < n; e++) {
        ia[e] = 2 * e; /* a on even cells, b on odd ones: nothing coincides */
        ib[e] = 2 * e + 1;
        static const double sp[] = {-2.5, 3.0, -0.0, 0.0, NAN, -INFINITY, INFINITY, 7.0};
        va[e] = sp[e % 8];
        vb[e] = sp[(e + 3) % 8];
    }
    spt_tensor *a = mk(SPT_FLOAT64, 1, shape, n, ia, va), *b = mk(SPT_FLOAT64, 1, shape, n, ib, vb);
    ASSERT_OK(spt_reorder(a, NULL));
    ASSERT_OK(spt_reorder(b, NULL));
    for (int lvl = SPT__SIMD_SCALAR; lvl <= SPT__SIMD_AVX512; lvl++) {
        if (spt__simd_force(lvl) != lvl) continue;
        spt_tensor *s = NULL, *mx = NULL, *mn = NULL;
        ASSERT_OK(spt_subtract(a, b, &s));
        ASSERT_OK(spt_maximum(a, b, &mx));
        ASSERT_OK(spt_minimum(a, b, &mn));
        assert_int_equal(spt_tensor_nnz(s), 2 * n);
        const double *sv = spt_tensor_values(s), *xv = spt_tensor_values(mx), *nv = spt_tensor_values(mn);
        for (int64_t e = 0; e < 2 * n; e++) {
            const bool from_b = e & 1;
            const double x = from_b ? vb[e / 2] : va[e / 2];
            const double ws = from_b ? 0 - x : x;
            const double wx = from_b ? (x != x ? x : 0 < x ? x : 0.0) : (x != x ? x : x < 0 ? 0.0 : x);
            const double wn = from_b ? (x != x ? x : x < 0 ? x : 0.0) : (x != x ? x : 0 < x ? 0.0 : x);
            assert_memory_equal(&sv[e], &ws, 8);
            assert_memory_equal(&xv[e], &wx, 8);
            assert_memory_equal(&nv[e], &wn, 8);
        }
        spt_tensor_free(s);
        spt_tensor_free(mx);
        spt_tensor_free(mn);
    }
    spt__simd_force(-1);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static spt_status sub2(const spt_tensor *a, const spt_tensor *b, spt_tensor **o) { return spt_subtract(a, b, o); }

/* The allocation-failure sweep through the engine (canonical operands without repeats) and the plain merge. */
static void sweep_canonical(mg_fn f) {
    spt_test_alloc_install();
    mt_seed(6);
    const int64_t shape[2] = {50, 60};
    spt_tensor *a = mt_rand_tensor(SPT_FLOAT64, 2, shape, 400, false, true);
    spt_tensor *b = mt_rand_tensor(SPT_FLOAT64, 2, shape, 300, false, true);
    mt_call c = {.op = mt_call_binary, .bin = f, .a = a, .b = b};
    mt_call_sweep(&c);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* Thread counts and the allocation-failure sweeps for subtract, maximum and minimum. */
static void test_threads_sweep(void **state) {
    (void)state;
    mt_seed(79);
    mg_threads(sub2, SPT_FLOAT64);
    mg_sweep(sub2);
    sweep_canonical(sub2);
    mg_threads(spt_maximum, SPT_INT64);
    mg_sweep(spt_maximum);
    sweep_canonical(spt_maximum);
    sweep_canonical(spt_minimum);
}

int main(void) {
    (void)mg_check; /* the shared header's dense model: the plain merge is this file's reference */
    (void)mt_assert_same_tensor;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_dtypes_ranks), cmocka_unit_test(test_edges),
                                       cmocka_unit_test(test_wide_keys), cmocka_unit_test(test_one_sided_values),
                                       cmocka_unit_test(test_threads_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
