/* SPDX-License-Identifier: Apache-2.0 */
/* test_mtx_others.c -- Matrix Market files written by other tools: scipy.io.mmwrite's symmetric,
 * skew-symmetric, hermitian, pattern, integer, complex and array files, and hand-written ones with
 * comments and blank lines, CRLF line ends and a symmetric array; each read to the matrix SciPy's mmread
 * gives. The malformed files SciPy rejects (too many or too few entries, an index past the size, a value
 * that is not a number) are refused with the file and line; so is a misspelt symmetry, which SciPy takes
 * as general (spt is stricter). Fixtures in tests/io/data. */
#include <complex.h>
#include <string.h>

#include "spt_test.h"

#define DATA "tests/io/data/"

static spt_dense *dense_of(const char *name, spt_dtype want) {
    spt_tensor *t = NULL;
    spt_dense *d = NULL;
    ASSERT_OK(spt_read_mtx(name, NULL, &t));
    assert_int_equal(spt_tensor_dtype(t), want);
    ASSERT_OK(spt_to_dense(t, NULL, false, &d)); /* mirrored entries follow the stored ones: not row-major */
    spt_tensor_free(t);
    return d;
}

static void expect_f64(const char *name, int64_t rows, int64_t cols, const double *v) {
    spt_dense *d = dense_of(name, SPT_FLOAT64);
    assert_int_equal(spt_dense_shape(d)[0], rows);
    assert_int_equal(spt_dense_shape(d)[1], cols);
    assert_memory_equal(spt_dense_data(d), v, (size_t)(rows * cols) * sizeof(double));
    spt_dense_free(d);
}

static void expect_i64(const char *name, int64_t rows, int64_t cols, const int64_t *v) {
    spt_dense *d = dense_of(name, SPT_INT64);
    assert_int_equal(spt_dense_shape(d)[0], rows);
    assert_int_equal(spt_dense_shape(d)[1], cols);
    assert_memory_equal(spt_dense_data(d), v, (size_t)(rows * cols) * sizeof(int64_t));
    spt_dense_free(d);
}

static void expect_c128(const char *name, int64_t rows, int64_t cols, const double *re_im) {
    spt_dense *d = dense_of(name, SPT_COMPLEX128);
    assert_int_equal(spt_dense_shape(d)[0], rows);
    assert_int_equal(spt_dense_shape(d)[1], cols);
    const double *got = spt_dense_data(d);
    for (int64_t i = 0; i < 2 * rows * cols; i++) assert_true(got[i] == re_im[i]);
    spt_dense_free(d);
}

static void test_scipy_files(void **state) {
    (void)state;
    static const double sym[] = {1.5, 0, 2, 0, 0, 0, 2, 0, -3};
    expect_f64(DATA "scipy_symmetric.mtx", 3, 3, sym);
    static const int64_t skew[] = {0, 4, 0, -4, 0, -5, 0, 5, 0};
    expect_i64(DATA "scipy_skew.mtx", 3, 3, skew);
    static const double herm[] = {2, 0, 1, 2, 1, -2, 3, 0};
    expect_c128(DATA "scipy_hermitian.mtx", 2, 2, herm);
    static const double pat[] = {1, 0, 1, 1};
    expect_f64(DATA "scipy_pattern.mtx", 2, 2, pat);
    static const int64_t in[] = {0, -7, 9, 0, 0, (int64_t)1 << 40};
    expect_i64(DATA "scipy_integer.mtx", 3, 2, in);
    static const double cx[] = {0, 0, 1.5, -2, 0, -1, 0, 0};
    expect_c128(DATA "scipy_complex.mtx", 2, 2, cx);
    static const double arr[] = {1, 0, 0, -2.5, 3, 0};
    expect_f64(DATA "scipy_array.mtx", 3, 2, arr);
}

static void test_hand_written(void **state) {
    (void)state;
    static const double com[] = {0, 0.5, 0, 0, 0, 0, 0, 0, -2000};
    expect_f64(DATA "hand_comments.mtx", 3, 3, com);
    static const int64_t crlf[] = {5, -3, -3, 0};
    expect_i64(DATA "hand_crlf.mtx", 2, 2, crlf);
    static const double asym[] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    expect_f64(DATA "hand_array_symmetric.mtx", 3, 3, asym);
}

static void expect_refused(const char *name, const char *msg) {
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(SPT_EPARSE, spt_read_mtx(name, NULL, &t));
    assert_null(t);
    if (!strstr(spt_last_error(), msg)) print_error("got: %s\nwant: %s\n", spt_last_error(), msg);
    ASSERT_MSG(msg);
}

static void test_malformed(void **state) {
    (void)state;
    expect_refused(DATA "bad_more_entries.mtx", "bad_more_entries.mtx:4: expected 1 entries");
    expect_refused(DATA "bad_fewer_entries.mtx", "bad_fewer_entries.mtx:3: expected 2 entries");
    expect_refused(DATA "bad_index_range.mtx",
                   "bad_index_range.mtx:3: expected an index in 1..3 for mode 0, found '4'");
    expect_refused(DATA "bad_value.mtx", "bad_value.mtx:3: expected a real value, found 'abc'");
    expect_refused(DATA "bad_banner_symmetry.mtx", "bad_banner_symmetry.mtx:1: expected the symmetry");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scipy_files),
        cmocka_unit_test(test_hand_written),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
