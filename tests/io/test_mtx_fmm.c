/* SPDX-License-Identifier: Apache-2.0 */
/* test_mtx_fmm.c -- Matrix Market files written by fast_matrix_market (tests/io/gen_fmm.py, `make
 * io-test-data`): coordinate and array files of every field and symmetry, each read to exactly the dense
 * matrix fast_matrix_market reads from it (NAME.expect.npy beside it; pattern files as ones); and the
 * malformed files fast_matrix_market refuses, refused by spt with the file and line. (fast_matrix_market
 * also reads 1.5 in an integer file; spt refuses it, as tests/io/test_mtx.c checks.) */
#include <stdio.h>
#include <string.h>

#include "spt_test.h"

#define DATA "tests/io/data/fmm/"

static void expect_file(const char *name) {
    char mtx[256], npy[256];
    snprintf(mtx, sizeof mtx, DATA "%s.mtx", name);
    snprintf(npy, sizeof npy, DATA "%s.expect.npy", name);
    spt_tensor *t = NULL;
    spt_dense *got = NULL, *want = NULL;
    spt_status st = spt_read_mtx(mtx, NULL, &t);
    if (st != SPT_OK) print_error("%s: %s\n", mtx, spt_last_error());
    ASSERT_OK(st);
    ASSERT_OK(spt_to_dense(t, NULL, false, &got));
    ASSERT_OK(spt_read_npy(npy, &want));
    if (spt_dense_dtype(got) != spt_dense_dtype(want))
        print_error("%s: dtype %s\n", mtx, spt_dtype_name(spt_dense_dtype(got)));
    assert_int_equal(spt_dense_dtype(got), spt_dense_dtype(want));
    assert_int_equal(spt_dense_rank(got), 2);
    assert_memory_equal(spt_dense_shape(got), spt_dense_shape(want), 2 * sizeof(int64_t));
    assert_int_equal(spt_dense_size(got), spt_dense_size(want));
    /* equal values (== for floats: fast_matrix_market reads "-0" in an array file as +0, spt keeps -0) */
    const size_t n = (size_t)spt_dense_size(got) * (spt_dense_dtype(got) == SPT_COMPLEX128 ? 2 : 1);
    const double *g = spt_dense_data(got), *w = spt_dense_data(want);
    for (size_t i = 0; i < n; i++) {
        bool same = spt_dense_dtype(got) == SPT_INT64 ? ((const int64_t *)g)[i] == ((const int64_t *)w)[i]
                                                      : g[i] == w[i];
        if (!same) print_error("%s: element %zu differs\n", mtx, i);
        assert_true(same);
    }
    spt_tensor_free(t);
    spt_dense_free(got);
    spt_dense_free(want);
}

static void test_fmm_files(void **state) {
    (void)state;
    static const char *const names[] = {"coo_real_general",      "coo_integer_general",   "coo_complex_general",
                                        "coo_pattern_general",   "coo_real_symmetric",    "coo_integer_symmetric",
                                        "coo_pattern_symmetric", "coo_real_skew",         "coo_integer_skew",
                                        "coo_complex_hermitian", "coo_complex_symmetric", "coo_empty",
                                        "array_real_general",    "array_integer_general", "array_complex_general",
                                        "array_real_symmetric",  "array_real_skew",       "array_complex_hermitian"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) expect_file(names[i]);
}

static void expect_refused(const char *name, const char *msg) {
    char path[256];
    snprintf(path, sizeof path, DATA "%s.mtx", name);
    spt_tensor *t = (spt_tensor *)1;
    spt_status st = spt_read_mtx(path, NULL, &t);
    if (st != SPT_EPARSE || !strstr(spt_last_error(), msg))
        print_error("%s: got %d %s\nwant: %s\n", name, st, spt_last_error(), msg);
    ASSERT_ST(SPT_EPARSE, st);
    assert_null(t);
    ASSERT_MSG(msg);
}

static void test_fmm_refusals(void **state) {
    (void)state;
    expect_refused("bad_array_too_few", "bad_array_too_few.mtx:6: expected 4 values");
    expect_refused("bad_array_too_many",
                   "bad_array_too_many.mtx:5: expected the end of the file after the matrix's values");
    expect_refused("bad_banner", "bad_banner.mtx:1: expected the format 'coordinate' or 'array', found 'coordinat'");
    expect_refused("bad_col_zero", "bad_col_zero.mtx:3: expected an index >= 1");
    expect_refused("bad_complex_one_part", "bad_complex_one_part.mtx:3: expected 4 fields");
    expect_refused("bad_field", "bad_field.mtx:1: expected the field");
    expect_refused("bad_missing_value", "bad_missing_value.mtx:3: expected 3 fields");
    expect_refused("bad_no_banner", "bad_no_banner.mtx:1: expected '%%MatrixMarket'");
    expect_refused("bad_object", "bad_object.mtx:1: expected the object 'matrix', found 'vector'");
    expect_refused("bad_row_range", "bad_row_range.mtx:3: expected an index in 1..2 for mode 0, found '3'");
    expect_refused("bad_size_line", "bad_size_line.mtx:2: expected the entry count");
    expect_refused("bad_size_negative", "bad_size_negative.mtx:2: expected the row count");
    expect_refused("bad_symmetry", "bad_symmetry.mtx:1: expected the symmetry");
    expect_refused("bad_too_few", "bad_too_few.mtx:4: expected 3 entries");
    expect_refused("bad_too_many", "bad_too_many.mtx:4: expected 1 entries");
    expect_refused("bad_value", "bad_value.mtx:3: expected a real value, found 'x1.0'");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmm_files),
        cmocka_unit_test(test_fmm_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
