/* SPDX-License-Identifier: Apache-2.0 */
/* test_mttkrp.c -- spt_mttkrp against a direct reference. */
#include "../math_test_util.h"

#include "ops/elementwise/simd.h"

#include <float.h>

static spt_dense *rand_dense(spt_dtype dt, int64_t r, const int64_t *shape) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new(dt, r, shape, &d));
    for (int64_t i = 0; i < spt_dense_size(d); i++) mt_set(dt, spt_dense_data_mut(d), i, mt_value(dt));
    return d;
}

/* An integer reference wrapped modulo 2^bits as the op's integer arithmetic does (little-endian). */
static double complex wrap(spt_dtype dt, double complex x) {
    if (!spt_dtype_is_integer(dt)) return x;
    uint64_t u = (uint64_t)(int64_t)creal(x);
    _Alignas(16) unsigned char buf[16] = {0};
    memcpy(buf, &u, 8);
    return mt_get(dt, buf, 0);
}

static void check(const spt_tensor *t, spt_dense *const *F, int64_t mode, const spt_dense *o) {
    spt_dtype dt = spt_tensor_dtype(t);
    int64_t N = spt_tensor_rank(t), Im = spt_tensor_shape(t)[mode], R = spt_dense_shape(o)[1];
    assert_int_equal(spt_dense_shape(o)[0], Im);
    double complex *ref = calloc((size_t)(Im * R + 1), sizeof *ref);
    for (int64_t e = 0; e < spt_tensor_nnz(t); e++) {
        const int64_t *ix = spt_tensor_indices(t) + e * N;
        for (int64_t r = 0; r < R; r++) {
            double complex p = mt_get(dt, spt_tensor_values(t), e);
            for (int64_t m = 0; m < N; m++)
                if (m != mode) p *= mt_get(dt, spt_dense_data(F[m]), ix[m] * R + r);
            ref[ix[mode] * R + r] += p;
        }
    }
    for (int64_t i = 0; i < Im * R; i++)
        mt_assert_close(dt, mt_get(dt, spt_dense_data(o), i), wrap(dt, ref[i]), "mttkrp", i);
    free(ref);
}

static void test_example(void **state) {
    (void)state;
    /* t[0,1,0] = 2, t[1,0,1] = 3; A1 = [[1,2],[3,4]], A2 = [[5,6],[7,8]] -> mode 0:
     * row 0 = 2 * A1[1] * A2[0] = [30, 48]; row 1 = 3 * A1[0] * A2[1] = [21, 48] */
    int64_t s[3] = {2, 2, 2}, ix[6] = {0, 1, 0, 1, 0, 1}, fs[2] = {2, 2};
    double v[2] = {2, 3}, a1[4] = {1, 2, 3, 4}, a2[4] = {5, 6, 7, 8};
    spt_tensor *t;
    spt_dense *F[3] = {NULL, NULL, NULL}, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, s, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, fs, a1, &F[1]));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, fs, a2, &F[2]));
    ASSERT_OK(spt_mttkrp(t, (const spt_dense *const *)F, 3, 0, &o));
    const double want[4] = {30, 48, 21, 48};
    assert_memory_equal(spt_dense_data(o), want, sizeof want);
    spt_dense_free(o);
    spt_dense_free(F[1]);
    spt_dense_free(F[2]);
    spt_tensor_free(t);
}

static void test_random(void **state) {
    (void)state;
    mt_seed(31);
    for (int di = 0; di < MT_NNUMERIC; di++) {
        spt_dtype dt = MT_NUMERIC[di];
        bool narrow = spt_dtype_size(dt) == 1;
        for (int trial = 0; trial < 12; trial++) {
            int64_t N = 2 + trial % 3, shape[4], R = mt_int(4);
            for (int64_t d = 0; d < N; d++) shape[d] = 1 + mt_int(4);
            int64_t mode = mt_int(N);
            spt_tensor *t = mt_rand_tensor(dt, N, shape, mt_int(narrow ? 3 : 12), !narrow, trial & 1);
            spt_dense *F[4] = {NULL, NULL, NULL, NULL}, *o;
            for (int64_t m = 0; m < N; m++)
                if (m != mode) F[m] = rand_dense(dt, 2, (int64_t[]){shape[m], R});
            ASSERT_OK(spt_mttkrp(t, (const spt_dense *const *)F, N, mode, &o));
            check(t, F, mode, o);
            spt_dense_free(o);
            for (int64_t m = 0; m < N; m++) spt_dense_free(F[m]);
            spt_tensor_free(t);
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *t, *t1;
    spt_dense *F[3] = {NULL, NULL, NULL}, *o = (spt_dense *)1;
    int64_t s[3] = {2, 3, 4}, bad[3] = {0, 3, 0};
    double v = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, s, 0, NULL, NULL, NULL, &t));
    F[1] = rand_dense(SPT_FLOAT64, 2, (int64_t[]){3, 5});
    F[2] = rand_dense(SPT_FLOAT64, 2, (int64_t[]){4, 6});
    const spt_dense *const *cf = (const spt_dense *const *)F;
    ASSERT_ST(SPT_EINVAL, spt_mttkrp(t, cf, 3, 0, &o));
    assert_null(o);
    ASSERT_MSG("factor 2 has 6 columns, the factors before it 5");
    ASSERT_ST(SPT_ERANGE, spt_mttkrp(t, cf, 3, 3, &o));
    ASSERT_MSG("mode 3 is out of range");
    ASSERT_ST(SPT_ERANGE, spt_mttkrp(t, cf, 3, -1, &o));
    ASSERT_ST(SPT_EINVAL, spt_mttkrp(t, cf, 2, 0, &o));
    ASSERT_ST(SPT_EINVAL, spt_mttkrp(t, cf, 3, 1, &o));
    ASSERT_MSG("factor 0 is NULL");
    spt_dense_free(F[2]);
    F[2] = rand_dense(SPT_FLOAT64, 2, (int64_t[]){5, 5});
    ASSERT_ST(SPT_EINVAL, spt_mttkrp(t, cf, 3, 0, &o));
    ASSERT_MSG("factor 2 has 5 rows, mode 2 of the tensor has size 4");
    spt_dense_free(F[2]);
    F[2] = rand_dense(SPT_FLOAT32, 2, (int64_t[]){4, 5});
    ASSERT_ST(SPT_EDTYPE, spt_mttkrp(t, cf, 3, 0, &o));
    spt_dense_free(F[2]);
    F[2] = rand_dense(SPT_FLOAT64, 2, (int64_t[]){4, 5});
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, s, 1, bad, &v, NULL, &t1));
    ASSERT_ST(SPT_ERANGE, spt_mttkrp(t1, cf, 3, 0, &o));
    spt_tensor_free(t1);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s, 0, NULL, NULL, NULL, &t1));
    ASSERT_ST(SPT_EINVAL, spt_mttkrp(t1, cf, 1, 0, &o));
    spt_tensor_free(t1);
    ASSERT_OK(spt_mttkrp(t, cf, 3, 0, &o)); /* no entries: zeros */
    assert_int_equal(spt_dense_size(o), 10);
    for (int i = 0; i < 10; i++) assert_true(((const double *)spt_dense_data(o))[i] == 0);
    spt_dense_free(o);
    for (int m = 0; m < 3; m++) spt_dense_free(F[m]);
    spt_tensor_free(t);
}


/* Long fibers: a small [I, J, K] box filled densely at random, so that runs of entries share every index
 * but the last. Values and factors of both signs. */
static spt_tensor *fiber_tensor(spt_dtype dt, const int64_t *shape, int64_t n, bool sorted) {
    spt_tensor *t;
    ASSERT_OK(spt_tensor_alloc(dt, 3, shape, n, &t));
    int64_t *ix = spt_tensor_indices_mut(t);
    void *v = spt_tensor_values_mut(t);
    for (int64_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) ix[i * 3 + d] = mt_int(shape[d]);
        mt_set(dt, v, i, (double)mt_int(2001) / 1000.0 - 1.0);
    }
    if (sorted) ASSERT_OK(spt_reorder(t, NULL));
    return t;
}

static spt_dense *signed_dense(spt_dtype dt, int64_t rows, int64_t R) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new(dt, 2, (int64_t[]){rows, R}, &d));
    for (int64_t i = 0; i < rows * R; i++) mt_set(dt, spt_dense_data_mut(d), i, (double)mt_int(2001) / 1000.0 - 1.0);
    return d;
}

/* The float path sums each fiber's entries before multiplying by the other factors: against the per-entry
 * reference (long double) every element is within c * eps * sum |terms|, c = 4 (entries of its row + 4). */
static void check_fibers(const spt_tensor *t, spt_dense *const *F, int64_t mode, const spt_dense *o) {
    spt_dtype dt = spt_tensor_dtype(t);
    const int64_t N = spt_tensor_rank(t);
    int64_t Im = spt_tensor_shape(t)[mode], R = spt_dense_shape(o)[1], n = spt_tensor_nnz(t);
    long double *ref = calloc((size_t)(Im * R + 1), sizeof *ref), *mag = calloc((size_t)(Im * R + 1), sizeof *mag);
    int64_t *cnt = calloc((size_t)Im + 1, sizeof *cnt);
    for (int64_t e = 0; e < n; e++) {
        const int64_t *ix = spt_tensor_indices(t) + e * N;
        cnt[ix[mode]]++;
        for (int64_t r = 0; r < R; r++) {
            long double p = creal(mt_get(dt, spt_tensor_values(t), e));
            for (int64_t m = 0; m < N; m++)
                if (m != mode) p *= creal(mt_get(dt, spt_dense_data(F[m]), ix[m] * R + r));
            ref[ix[mode] * R + r] += p;
            mag[ix[mode] * R + r] += fabsl(p);
        }
    }
    const double eps = dt == SPT_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
    for (int64_t i = 0; i < Im * R; i++) {
        double got = creal(mt_get(dt, spt_dense_data(o), i));
        long double tol = 4.0L * (long double)(cnt[i / R] + 4) * eps * mag[i];
        if (fabsl((long double)got - ref[i]) > tol) {
            fprintf(stderr, "mttkrp fibers: element %lld: %.17g, reference %.17Lg (tolerance %.3Lg)\n", (long long)i,
                    got, ref[i], tol);
            fail();
        }
    }
    free(ref);
    free(mag);
    free(cnt);
}

/* spt_mttkrp of `mode` within check_fibers' tolerance of the reference, and the same bytes at 1..max_threads
 * threads and every instruction set the processor has as at one thread on the baseline. */
static void check_every_form(const spt_tensor *t, spt_dense *const *F, int64_t mode, int max_threads) {
    const int64_t N = spt_tensor_rank(t);
    const size_t bytes = spt_dtype_size(spt_tensor_dtype(t));
    spt_dense *o0 = NULL;
    spt__simd_force(SPT__SIMD_SCALAR);
    spt_set_num_threads(1);
    ASSERT_OK(spt_mttkrp(t, (const spt_dense *const *)F, N, mode, &o0));
    check_fibers(t, F, mode, o0);
    for (int lvl = SPT__SIMD_SCALAR; lvl <= SPT__SIMD_AVX512; lvl++) {
        if (spt__simd_force(lvl) != lvl) continue; /* not on this processor */
        for (int th = 1; th <= max_threads; th++) {
            spt_dense *o1 = NULL;
            spt_set_num_threads(th);
            ASSERT_OK(spt_mttkrp(t, (const spt_dense *const *)F, N, mode, &o1));
            assert_memory_equal(spt_dense_data(o1), spt_dense_data(o0), (size_t)spt_dense_size(o0) * bytes);
            spt_dense_free(o1);
        }
    }
    spt__simd_force(-1);
    spt_set_num_threads(0);
    spt_dense_free(o0);
}

/* Every mode, sorted and unsorted input, ranks on and off the unrolled sizes (8, 16, 32), float32 and
 * float64; every instruction set the processor has gives the same bytes as the baseline, and so does every
 * thread count. */
static void test_fibers(void **state) {
    (void)state;
    mt_seed(34);
    const int64_t ranks[] = {1, 5, 8, 16, 17, 32, 40};
    for (int di = 0; di < 2; di++) {
        spt_dtype dt = di ? SPT_FLOAT32 : SPT_FLOAT64;
        for (int k = 0; k < 7; k++) {
            int64_t shape[3] = {7 + k, 5, 60 + 13 * k}, R = ranks[k];
            spt_tensor *t = fiber_tensor(dt, shape, 1500 + 300 * k, k % 2 == 0);
            spt_dense *F[3];
            for (int m = 0; m < 3; m++) F[m] = signed_dense(dt, shape[m], R);
            for (int64_t mode = 0; mode < 3; mode++) check_every_form(t, F, mode, 3);
            for (int m = 0; m < 3; m++) spt_dense_free(F[m]);
            spt_tensor_free(t);
        }
    }
}

/* The scatter form (entries not grouped by the mode's index) over several fixed chunks: n >= 2 * 16384
 * entries, ranks 3 and 4 (per-entry products; fibers and runs), sorted and unsorted, every mode, float64 and
 * float32: each result within the reference's tolerance, the same bytes at 1-4 threads and every
 * instruction set. The last case's mode 1 is so long that the chunks' private rows would pass their
 * budget, so it takes the grouped copy instead. */
static void test_scatter(void **state) {
    (void)state;
    mt_seed(36);
    const struct {
        int64_t N, shape[4], n, R;
        bool sorted;
    } cases[] = {
        {3, {40, 30, 50}, 70000, 16, true}, {3, {40, 30, 50}, 70000, 5, false},  {2, {300, 200}, 40000, 8, false},
        {4, {6, 7, 5, 40}, 50000, 8, true}, {4, {6, 7, 5, 40}, 50000, 3, false}, {3, {30, 30000, 7}, 40000, 4, false},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const int64_t N = cases[ci].N, n = cases[ci].n, R = cases[ci].R;
        spt_dtype dt = ci % 2 ? SPT_FLOAT32 : SPT_FLOAT64;
        spt_tensor *t;
        ASSERT_OK(spt_tensor_alloc(dt, N, cases[ci].shape, n, &t));
        int64_t *ix = spt_tensor_indices_mut(t);
        for (int64_t i = 0; i < n; i++) {
            for (int64_t d = 0; d < N; d++) ix[i * N + d] = mt_int(cases[ci].shape[d]);
            mt_set(dt, spt_tensor_values_mut(t), i, (double)mt_int(2001) / 1000.0 - 1.0);
        }
        if (cases[ci].sorted) ASSERT_OK(spt_reorder(t, NULL));
        spt_dense *F[4] = {NULL, NULL, NULL, NULL};
        for (int64_t m = 0; m < N; m++) F[m] = signed_dense(dt, cases[ci].shape[m], R);
        for (int64_t mode = 0; mode < N; mode++) check_every_form(t, F, mode, 4);
        for (int64_t m = 0; m < N; m++) spt_dense_free(F[m]);
        spt_tensor_free(t);
    }
}

/* Integer results are exact whichever path sums them: the fiber order (float path) and the per-entry
 * order agree for an integer-valued float64 input within 2^53. */
static void test_fibers_exact(void **state) {
    (void)state;
    mt_seed(35);
    int64_t shape[4] = {6, 4, 5, 30};
    spt_tensor *t;
    int64_t n = 2000;
    ASSERT_OK(spt_tensor_alloc(SPT_FLOAT64, 4, shape, n, &t));
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    for (int64_t i = 0; i < n; i++) {
        for (int d = 0; d < 4; d++) ix[i * 4 + d] = mt_int(shape[d]);
        v[i] = (double)mt_int(21) - 10;
    }
    ASSERT_OK(spt_reorder(t, NULL));
    spt_dense *F[4];
    for (int m = 0; m < 4; m++) {
        ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){shape[m], 3}, &F[m]));
        for (int64_t i = 0; i < shape[m] * 3; i++) ((double *)spt_dense_data_mut(F[m]))[i] = (double)mt_int(7) - 3;
    }
    for (int64_t mode = 0; mode < 4; mode++) {
        spt_dense *o;
        ASSERT_OK(spt_mttkrp(t, (const spt_dense *const *)F, 4, mode, &o));
        check(t, F, mode, o);
        spt_dense_free(o);
    }
    for (int m = 0; m < 4; m++) spt_dense_free(F[m]);
    spt_tensor_free(t);
}

static spt_dense *g_F[3];
static spt_status call_mttkrp(mt_call *c) {
    return spt_mttkrp(c->a, (const spt_dense *const *)g_F, 3, c->flag ? 1 : 0, &c->od);
}

static void test_threads(void **state) {
    (void)state;
    mt_seed(32);
    int64_t s[3] = {300, 200, 100};
    spt_tensor *t = mt_big_tensor(SPT_FLOAT64, 3, s, 100000, false);
    for (int m = 0; m < 3; m++) g_F[m] = rand_dense(SPT_FLOAT64, 2, (int64_t[]){s[m], 8});
    mt_call c = {.op = call_mttkrp, .a = t, .flag = true};
    mt_call_threads(&c);
    for (int m = 0; m < 3; m++) spt_dense_free(g_F[m]);
    spt_tensor_free(t);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(33);
    int64_t s[3] = {3, 4, 5};
    spt_tensor *t = mt_rand_tensor(SPT_FLOAT32, 3, s, 10, true, false);
    for (int m = 0; m < 3; m++) g_F[m] = rand_dense(SPT_FLOAT32, 2, (int64_t[]){s[m], 3});
    mt_call c = {.op = call_mttkrp, .a = t, .flag = true};
    mt_call_sweep(&c);
    for (int m = 0; m < 3; m++) spt_dense_free(g_F[m]);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),      cmocka_unit_test(test_random),      cmocka_unit_test(test_errors),
        cmocka_unit_test(test_threads),      cmocka_unit_test(test_alloc_sweep), cmocka_unit_test(test_fibers),
        cmocka_unit_test(test_fibers_exact), cmocka_unit_test(test_scatter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
