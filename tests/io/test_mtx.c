/* SPDX-License-Identifier: Apache-2.0 */
/* test_mtx.c -- Matrix Market: fields, symmetric kinds, array files, round trips, malformed files. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spt_test.h"

static char path[] = "/tmp/spt_test_mtxXXXXXX";

static void put(const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static spt_tensor *read_text(const char *text, const spt_read_opts *o) {
    put(text);
    spt_tensor *t = NULL;
    ASSERT_OK(spt_read_mtx(path, o, &t));
    return t;
}

/* Expect a parse error whose message, after the path, is `msg` (":LINE: ..."). */
static void read_err(const char *text, spt_status st, const char *msg) {
    put(text);
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(st, spt_read_mtx(path, NULL, &t));
    assert_null(t);
    const char *m = spt_last_error();
    if (strncmp(m, path, strlen(path)) || strcmp(m + strlen(path), msg))
        print_error("got: %s\nwant: %s%s\n", m, path, msg);
    assert_true(!strncmp(m, path, strlen(path)) && !strcmp(m + strlen(path), msg));
}

static void test_fields(void **state) {
    (void)state;
    spt_tensor *t =
        read_text("%%MatrixMarket matrix coordinate real general\n% a comment\n%\n3 4 2\n1 1 1.5\n3 4 -2e1\n", NULL);
    int64_t s[2] = {3, 4}, ix[4] = {0, 0, 2, 3};
    double v[2] = {1.5, -20};
    spt_test_expect_tensor(t, 2, s, 2, ix, v);
    assert_true(spt_tensor_known_valid(t));
    spt_tensor_free(t);
    t = read_text("%%MatrixMarket matrix coordinate integer general\n3 4 2\n1 1 7\n3 4 -9\n", NULL);
    int64_t vi[2] = {7, -9};
    spt_test_expect_tensor(t, 2, s, 2, ix, vi);
    spt_tensor_free(t);
    t = read_text("%%MatrixMarket matrix coordinate complex general\n3 4 2\n1 1 1 2\n3 4 0 -1\n", NULL);
    double complex vc[2] = {1 + 2 * I, CMPLX(0.0, -1.0)};
    spt_test_expect_tensor(t, 2, s, 2, ix, vc);
    spt_tensor_free(t);
    t = read_text("%%MatrixMarket matrix coordinate pattern general\n3 4 2\n1 1\n3 4\n", NULL);
    double vp[2] = {1, 1};
    spt_test_expect_tensor(t, 2, s, 2, ix, vp);
    spt_tensor_free(t);
    /* dtype override; case-insensitive banner */
    spt_read_opts o = {.has_dtype = true, .dtype = SPT_INT16};
    t = read_text("%%matrixmarket MATRIX Coordinate Integer General\n3 4 2\n1 1 7\n3 4 -9\n", &o);
    int16_t v16[2] = {7, -9};
    spt_test_expect_tensor(t, 2, s, 2, ix, v16);
    spt_tensor_free(t);
    /* empty matrix */
    t = read_text("%%MatrixMarket matrix coordinate real general\n0 5 0\n", NULL);
    int64_t s0[2] = {0, 5};
    spt_test_expect_tensor(t, 2, s0, 0, NULL, NULL);
    spt_tensor_free(t);
}

static void test_symmetric(void **state) {
    (void)state;
    spt_tensor *t = read_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n3 2 3\n", NULL);
    int64_t s[2] = {3, 3}, ix[10] = {0, 0, 2, 0, 0, 2, 2, 1, 1, 2};
    double v[5] = {1, 2, 2, 3, 3};
    spt_test_expect_tensor(t, 2, s, 5, ix, v);
    spt_tensor_free(t);
    t = read_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n3 2 -5\n", NULL);
    int64_t ix2[8] = {1, 0, 0, 1, 2, 1, 1, 2};
    int64_t v2[4] = {4, -4, -5, 5};
    spt_test_expect_tensor(t, 2, s, 4, ix2, v2);
    spt_tensor_free(t);
    t = read_text("%%MatrixMarket matrix coordinate complex hermitian\n3 3 2\n1 1 2 0\n2 1 1 3\n", NULL);
    int64_t ix3[6] = {0, 0, 1, 0, 0, 1};
    double complex v3[3] = {2, 1 + 3 * I, 1 - 3 * I};
    spt_test_expect_tensor(t, 2, s, 3, ix3, v3);
    spt_tensor_free(t);
    t = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n", NULL);
    int64_t s2[2] = {2, 2}, ix4[4] = {1, 0, 0, 1};
    double v4[2] = {1, 1};
    spt_test_expect_tensor(t, 2, s2, 2, ix4, v4);
    spt_tensor_free(t);
}

static void test_array(void **state) {
    (void)state;
    put("%%MatrixMarket matrix array real general\n% c\n2 3\n1\n2\n3\n4\n5\n6\n");
    spt_dense *d = NULL;
    ASSERT_OK(spt_read_mtx_dense(path, NULL, &d));
    assert_int_equal(spt_dense_rank(d), 2);
    const double *x = spt_dense_data(d);
    double want[6] = {1, 3, 5, 2, 4, 6}; /* column-major in the file */
    for (int i = 0; i < 6; i++) assert_true(x[i] == want[i]);
    spt_dense_free(d);
    put("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
    ASSERT_OK(spt_read_mtx_dense(path, NULL, &d));
    const int64_t *y = spt_dense_data(d);
    int64_t wy[9] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    for (int i = 0; i < 9; i++) assert_int_equal(y[i], wy[i]);
    spt_dense_free(d);
    put("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
    ASSERT_OK(spt_read_mtx_dense(path, NULL, &d));
    const double *z = spt_dense_data(d);
    double wz[9] = {0, -1, -2, 1, 0, -3, 2, 3, 0};
    for (int i = 0; i < 9; i++) assert_true(z[i] == wz[i]);
    spt_dense_free(d);
    /* as sparse: the non-zero elements */
    spt_tensor *t = read_text("%%MatrixMarket matrix array real general\n2 2\n0\n2\n0\n4\n", NULL);
    int64_t s[2] = {2, 2}, ix[4] = {1, 0, 1, 1};
    double v[2] = {2, 4};
    spt_test_expect_tensor(t, 2, s, 2, ix, v);
    spt_tensor_free(t);
    /* too few / too many values; a coordinate file is not an array */
    put("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n");
    ASSERT_ST(SPT_EPARSE, spt_read_mtx_dense(path, NULL, &d));
    ASSERT_MSG(":6: expected 4 values, found the end of the file");
    put("%%MatrixMarket matrix array real general\n1 1\n1\n2\n");
    ASSERT_ST(SPT_EPARSE, spt_read_mtx_dense(path, NULL, &d));
    ASSERT_MSG(":4: expected the end of the file after the matrix's values, found '2'");
    put("%%MatrixMarket matrix coordinate real general\n1 1 0\n");
    ASSERT_ST(SPT_EPARSE, spt_read_mtx_dense(path, NULL, &d));
    assert_null(d);
}

static void test_malformed(void **state) {
    (void)state;
    read_err("", SPT_EPARSE, ":1: expected '%%MatrixMarket', found end of line");
    read_err("%%MatrixMarket tensor coordinate real general\n", SPT_EPARSE,
             ":1: expected the object 'matrix', found 'tensor'");
    read_err("%%MatrixMarket matrix coord real general\n", SPT_EPARSE,
             ":1: expected the format 'coordinate' or 'array', found 'coord'");
    read_err("%%MatrixMarket matrix coordinate float general\n", SPT_EPARSE,
             ":1: expected the field 'real', 'integer', 'complex' or 'pattern', found 'float'");
    read_err("%%MatrixMarket matrix coordinate real hermitian\n", SPT_EPARSE,
             ":1: expected the symmetry 'general', 'symmetric', 'skew-symmetric', found 'hermitian'");
    read_err("%%MatrixMarket matrix coordinate real general\n% only comments\n", SPT_EPARSE,
             ":3: expected the size line, found the end of the file");
    read_err("%%MatrixMarket matrix coordinate real general\n3 x 1\n", SPT_EPARSE,
             ":2: expected the column count (an integer >= 0), found 'x'");
    read_err("%%MatrixMarket matrix coordinate real general\n3 3\n", SPT_EPARSE,
             ":2: expected the entry count (an integer >= 0), found end of line");
    read_err("%%MatrixMarket matrix coordinate real general\n3 3 1 1\n", SPT_EPARSE,
             ":2: expected 3 numbers on the size line, found more: '1'");
    read_err("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n", SPT_EPARSE,
             ":3: expected 2 entries (the size line's count), found 1");
    read_err("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n", SPT_EPARSE,
             ":4: expected 1 entries (the size line's count), found 2");
    read_err("%%MatrixMarket matrix coordinate real general\n3 3 1\n0 1 1\n", SPT_EPARSE,
             ":3: expected an index >= 1 (indices are 1-based), found '0'");
    read_err("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n", SPT_EPARSE,
             ":3: expected an index in 1..3 for mode 1, found '4'");
    read_err("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1\n", SPT_EPARSE,
             ":3: expected 3 fields (2 indices and a value), found 2");
    read_err("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", SPT_EPARSE,
             ":3: expected an integer value, found '1.5'");
    read_err("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n", SPT_EPARSE,
             ":2: expected a square matrix for a symmetric kind, found 3 x 4");
    read_err("%%MatrixMarket matrix array real general\n4294967296 4294967296\n", SPT_EPARSE,
             ":2: expected an array matrix whose size fits in int64, found 4294967296 x 4294967296");
    /* a coordinate matrix may have any size (volume 2^64 here) */
    spt_tensor *big = read_text("%%MatrixMarket matrix coordinate real general\n4294967296 4294967296 2\n"
                                "4294967296 1 2.5\n1 4294967296 -1\n",
                                NULL);
    assert_int_equal(spt_tensor_shape(big)[0], 4294967296LL);
    assert_int_equal(spt_tensor_volume(big), -1);
    assert_int_equal(spt_tensor_indices(big)[0], 4294967295LL);
    assert_int_equal(spt_tensor_indices(big)[3], 4294967295LL);
    ASSERT_OK(spt_validate(big));
    spt_tensor_free(big);
    /* a huge claimed count is rejected before anything is allocated */
    read_err("%%MatrixMarket matrix coordinate real general\n3 3 1000000000000\n1 1 1\n", SPT_EPARSE,
             ":2: expected at most 4 entries for the 6 bytes that follow, found a claim of 1000000000000");
    put("%%MatrixMarket matrix array real general\n100000 100000\n1\n");
    spt_dense *d = (spt_dense *)1;
    ASSERT_ST(SPT_EPARSE, spt_read_mtx_dense(path, NULL, &d));
    assert_null(d);
    ASSERT_MSG("found a claim of 10000000000");
    /* 0 rows and 2^62 columns: no values, answered at once (fuzz finding I3: looped over the columns) */
    put("%%MatrixMarket matrix array real general\n0 4611686018427387904\n");
    ASSERT_OK(spt_read_mtx_dense(path, NULL, &d));
    assert_int_equal(spt_dense_size(d), 0);
    spt_dense_free(d);
}

static void test_round_trip(void **state) {
    (void)state;
    int64_t s[2] = {4, 3}, ix[6] = {3, 2, 0, 0, 1, 2};
    spt_dtype dts[6] = {SPT_FLOAT64, SPT_FLOAT32, SPT_INT32, SPT_INT64, SPT_COMPLEX128, SPT_COMPLEX64};
    for (int k = 0; k < 6; k++) {
        unsigned char vals[48] = {0};
        switch (dts[k]) {
        case SPT_FLOAT64: ((double *)vals)[0] = 0.1, ((double *)vals)[1] = -2.5e300, ((double *)vals)[2] = 3; break;
        case SPT_FLOAT32: ((float *)vals)[0] = 0.1f, ((float *)vals)[1] = -2.5e30f; break;
        case SPT_INT32: ((int32_t *)vals)[0] = INT32_MIN, ((int32_t *)vals)[2] = 5; break;
        case SPT_INT64: ((int64_t *)vals)[0] = INT64_MAX, ((int64_t *)vals)[1] = -1; break;
        case SPT_COMPLEX128: ((double complex *)vals)[0] = 0.1 + 0.2 * I; break;
        case SPT_COMPLEX64: ((float complex *)vals)[1] = 0.1f - 0.2f * I; break;
        default: break;
        }
        spt_tensor *t, *r;
        ASSERT_OK(spt_tensor_new(dts[k], 2, s, 3, ix, vals, NULL, &t));
        ASSERT_OK(spt_write_mtx(t, path));
        spt_read_opts o = {.has_dtype = true, .dtype = dts[k]};
        ASSERT_OK(spt_read_mtx(path, &o, &r));
        spt_test_expect_tensor(r, 2, s, 3, ix, vals);
        spt_tensor_free(r);
        ASSERT_OK(spt_read(path, SPT_FORMAT_MTX, &o, &r));
        spt_test_expect_tensor(r, 2, s, 3, ix, vals);
        spt_tensor_free(r);
        spt_tensor_free(t);
    }
    /* N = 0 */
    spt_tensor *t, *r;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_write_mtx(t, path));
    ASSERT_OK(spt_read_mtx(path, NULL, &r));
    spt_test_expect_tensor(r, 2, s, 0, NULL, NULL);
    spt_tensor_free(r);
    spt_tensor_free(t);
    /* only matrices */
    int64_t s1[1] = {3};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s1, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_write_mtx(t, path));
    spt_tensor_free(t);
}

/* A matrix whose volume passes INT64_MAX (issue: any volume): [2^62, 2^62] and [2^63 - 1, 2^63 - 1]
 * (1-based indices up to 2^63 - 1 in the file) round trip. */
static void test_any_volume(void **state) {
    (void)state;
    const int64_t P62 = (int64_t)1 << 62;
    int64_t shapes[2][2] = {{P62, P62}, {INT64_MAX, INT64_MAX}};
    for (int k = 0; k < 2; k++) {
        const int64_t a = shapes[k][0] - 1;
        int64_t ix[6] = {0, a, a, 0, a, a};
        double v[3] = {1.5, -2, 4};
        spt_tensor *t, *r;
        ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shapes[k], 3, ix, v, NULL, &t));
        ASSERT_OK(spt_write_mtx(t, path));
        ASSERT_OK(spt_read_mtx(path, NULL, &r));
        spt_test_expect_tensor(r, 2, shapes[k], 3, ix, v);
        spt_tensor_free(r);
        spt_tensor_free(t);
    }
}

static spt_status sweep_read(void *c) { return spt_read_mtx(path, NULL, (spt_tensor **)c); }
static void sweep_clean(void *c) {
    spt_tensor_free(*(spt_tensor **)c);
    *(spt_tensor **)c = NULL;
}

static void test_alloc_sweep(void **state) {
    (void)state;
    put("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n3 2 3\n");
    spt_tensor *t = NULL;
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_clean, &t) > 0);
    put("%%MatrixMarket matrix array real general\n2 2\n0\n2\n0\n4\n");
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_clean, &t) > 0);
    spt_set_allocator(NULL, NULL, NULL);
}

static int setup(void **state) {
    (void)state;
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}
static int teardown(void **state) {
    (void)state;
    unlink(path);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),     cmocka_unit_test(test_symmetric),  cmocka_unit_test(test_array),
        cmocka_unit_test(test_malformed),  cmocka_unit_test(test_round_trip), cmocka_unit_test(test_alloc_sweep),
        cmocka_unit_test(test_any_volume),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
