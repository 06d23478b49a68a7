/* SPDX-License-Identifier: Apache-2.0 */
/* test_add_simd.c -- add's block merge in every instruction-set form the processor has (the AVX-512 lane
 * of merge_simd.c, the scalar lanes) gives the same bytes, and the right sum, on canonical operands of
 * ranks 1-5 with runs, coinciding entries, cancelling pairs and thresholds, for the 8-byte dtypes the
 * vector lane moves and a 4-byte one it leaves to the scalar lanes. */
#include "../merge_test_common.h"

#include "ops/elementwise/simd.h"

/* A canonical tensor from `cells` cells of the shape in row-major order, from the first (far false) or
 * from the last one down (far true: the largest keys of a shape too large to walk): cell c kept when its
 * draw is below p (clustered: stretches of dense and of empty cells, so runs from one side and coinciding
 * pairs both occur). */
static spt_tensor *draws(spt_dtype dt, int64_t r, const int64_t *shape, int64_t cells, bool far, double p,
                         bool negate_half, uint64_t salt) {
    int64_t *ix = malloc((size_t)(cells * r + 1) * sizeof *ix);
    char *v = malloc((size_t)(cells + 1) * 16);
    int64_t n = 0;
    for (int64_t c = 0; c < cells; c++) {
        double q = ((c / 64 + salt) % 5 == 0) ? 0.9 : p; /* dense stretches */
        if ((double)mt_int(1000000) / 1e6 >= q) continue;
        for (int64_t d = r - 1, x = c; d >= 0; x /= shape[d], d--)
            ix[n * r + d] = far ? shape[d] - 1 - x % shape[d] : x % shape[d];
        double val = (double)(1 + mt_int(9));
        if (negate_half && (c & 1)) val = -val;
        mt_set(dt, v, n, val);
        n++;
    }
    spt_tensor *t = mk(dt, r, shape, n, ix, v);
    ASSERT_OK(spt_reorder(t, NULL));
    free(ix);
    free(v);
    return t;
}

/* Every cell of a small shape. */
static spt_tensor *canon(spt_dtype dt, int64_t r, const int64_t *shape, double p, bool negate_half, uint64_t salt) {
    int64_t vol = 1;
    for (int64_t d = 0; d < r; d++) vol *= shape[d];
    return draws(dt, r, shape, vol, false, p, negate_half, salt);
}

static void run_pair(spt_tensor *a, spt_tensor *b, double thresh);

static void run_case(spt_dtype dt, int64_t r, const int64_t *shape, double thresh, uint64_t salt) {
    run_pair(canon(dt, r, shape, 0.3, false, salt), canon(dt, r, shape, 0.3, true, salt + 2), thresh);
}

/* mg_check for float64 operands too large for its dense reference: the serial two-pointer merge of the
 * index rows (row-major order), a coinciding pair kept when |sum| >= thresh, as mg_check does. */
static void sparse_check(const spt_tensor *a, const spt_tensor *b, double thresh, const spt_tensor *o) {
    const int64_t r = spt_tensor_rank(a), na = spt_tensor_nnz(a), nb = spt_tensor_nnz(b), no = spt_tensor_nnz(o);
    const int64_t *ia = spt_tensor_indices(a), *ib = spt_tensor_indices(b), *io = spt_tensor_indices(o);
    const double *va = spt_tensor_values(a), *vb = spt_tensor_values(b), *vo = spt_tensor_values(o);
    int64_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : 0;
        for (int64_t d = 0; d < r && c == 0; d++)
            c = ia[i * r + d] < ib[j * r + d] ? -1 : ia[i * r + d] > ib[j * r + d] ? 1 : 0;
        const int64_t *row = c <= 0 ? ia + i * r : ib + j * r;
        const double want = c < 0 ? va[i] : c > 0 ? vb[j] : va[i] + vb[j];
        i += c <= 0;
        j += c >= 0;
        if (c == 0 && !(thresh <= fabs(want))) continue;
        assert_true(k < no);
        assert_memory_equal(io + k * r, row, (size_t)r * sizeof(int64_t));
        assert_true(vo[k] == want);
        k++;
    }
    assert_int_equal(k, no);
}

/* Every form gives the scalar lanes' bytes at 1 and 2 threads, and the scalar output is the right sum;
 * frees a and b. */
static void run_pair(spt_tensor *a, spt_tensor *b, double thresh) {
    spt_tensor *o0 = NULL;
    spt__simd_force(SPT__SIMD_SCALAR);
    ASSERT_OK(spt_add(a, b, thresh, &o0));
    if (spt_tensor_volume(a) > ((int64_t)1 << 24) || spt_tensor_volume(a) < 0) sparse_check(a, b, thresh, o0);
    else mg_check(MG_ADD, a, b, thresh, o0);
    for (int lvl = SPT__SIMD_AVX2; lvl <= SPT__SIMD_AVX512; lvl++) {
        if (spt__simd_force(lvl) != lvl) continue;
        for (int th = 1; th <= 2; th++) {
            spt_tensor *o1 = NULL;
            spt_set_num_threads(th);
            ASSERT_OK(spt_add(a, b, thresh, &o1));
            mt_assert_same_tensor(o0, o1);
            spt_tensor_free(o1);
        }
    }
    spt__simd_force(-1);
    spt_set_num_threads(0);
    spt_tensor_free(o0);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_forms(void **state) {
    (void)state;
    mt_seed(41);
    const spt_dtype dts[] = {SPT_FLOAT64, SPT_INT64, SPT_COMPLEX64, SPT_FLOAT32};
    for (int k = 0; k < 4; k++) {
        run_case(dts[k], 1, (int64_t[]){70000}, 0, 1);
        run_case(dts[k], 2, (int64_t[]){300, 211}, 0, 2);
        run_case(dts[k], 3, (int64_t[]){40, 37, 41}, 0, 3);
        run_case(dts[k], 3, (int64_t[]){40, 37, 41}, 5.0, 4); /* sums below 5 dropped */
        run_case(dts[k], 4, (int64_t[]){12, 13, 11, 17}, 0, 5);
        run_case(dts[k], 5, (int64_t[]){6, 7, 5, 9, 11}, 0, 6);
    }
}

/* Keys at the top of the 64-bit range: a volume of exactly 2^60 (the largest whose keys the AVX-512 step
 * packs with their source), just past it, and past 2^63 (keys compared unsigned). */
static void test_wide_keys(void **state) {
    (void)state;
    mt_seed(43);
    const int64_t s60[3] = {(int64_t)1 << 20, (int64_t)1 << 20, (int64_t)1 << 20};
    const int64_t s61[3] = {((int64_t)1 << 20) + 1, (int64_t)1 << 20, (int64_t)1 << 20};
    const int64_t s63[3] = {(int64_t)1 << 31, (int64_t)1 << 31, 3};
    const int64_t *shapes[3] = {s60, s61, s63};
    for (int k = 0; k < 3; k++)
        for (int salt = 0; salt < 2; salt++)
            run_pair(draws(SPT_FLOAT64, 3, shapes[k], 60000, true, 0.3, false, (uint64_t)salt),
                     draws(SPT_FLOAT64, 3, shapes[k], 60000, true, 0.3, true, (uint64_t)salt + 2), salt ? 5.0 : 0.0);
}

/* Operands whose entries interleave one by one, share every sixth cell, or coincide (cancelling to 0, dropped). */
static void test_patterns(void **state) {
    (void)state;
    const int64_t n = 50000, shape[2] = {1000, 1000};
    int64_t *ia = malloc(sizeof(int64_t) * 2 * n), *ib = malloc(sizeof(int64_t) * 2 * n);
    double *va = malloc(sizeof(double) * n), *vb = malloc(sizeof(double) * n);
    for (int pat = 0; pat < 3; pat++) {
        for (int64_t e = 0; e < n; e++) {
            int64_t ca = pat == 0   ? 2 * e
                         : pat == 1 ? 3 * e
                                    : e,
                    cb = pat == 0     ? 2 * e + 1
                         : pat == 1   ? 6 * e
                         : e % 7 == 0 ? n + e
                                      : e;
            ia[2 * e] = ca / 1000, ia[2 * e + 1] = ca % 1000, ib[2 * e] = cb / 1000, ib[2 * e + 1] = cb % 1000;
            va[e] = (double)e, vb[e] = pat == 2 ? -(double)e : 0.5;
        }
        spt_tensor *a = mk(SPT_FLOAT64, 2, shape, n, ia, va), *b = mk(SPT_FLOAT64, 2, shape, n, ib, vb), *o0, *o1;
        ASSERT_OK(spt_reorder(a, NULL));
        ASSERT_OK(spt_reorder(b, NULL));
        spt__simd_force(SPT__SIMD_SCALAR);
        ASSERT_OK(spt_add(a, b, 0.5, &o0));
        mg_check(MG_ADD, a, b, 0.5, o0);
        spt__simd_force(-1);
        ASSERT_OK(spt_add(a, b, 0.5, &o1));
        mt_assert_same_tensor(o0, o1);
        spt_tensor_free(o0);
        spt_tensor_free(o1);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
    free(ia);
    free(ib);
    free(va);
    free(vb);
}

static spt_status add0(const spt_tensor *a, const spt_tensor *b, spt_tensor **o) { return spt_add(a, b, 0.0, o); }

/* Thread counts and the allocation-failure sweep with the processor's own form. */
static void test_threads_sweep(void **state) {
    (void)state;
    mt_seed(42);
    mg_threads(add0, SPT_FLOAT64);
    mg_sweep(add0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_forms), cmocka_unit_test(test_wide_keys),
                                       cmocka_unit_test(test_patterns), cmocka_unit_test(test_threads_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
