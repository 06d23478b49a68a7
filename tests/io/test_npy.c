/* SPDX-License-Identifier: Apache-2.0 */
/* test_npy.c -- .npy: every dtype round trip, NumPy-written files (Fortran order, big endian, bool,
 * bytes, complex scalar), malformed headers and sizes. Fixtures: tests/cli/data (run from the repo root). */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spt_test.h"

#define DATA "tests/cli/data/"
static char path[] = "/tmp/spt_test_npyXXXXXX";

static void put_bytes(const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(b, 1, n, f);
    fclose(f);
}

/* A .npy image from a header dict (padded) and `n` data bytes. */
static void put_npy(const char *dict, const void *data, size_t n) {
    unsigned char buf[512];
    size_t hl = strlen(dict);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hl & 0xff);
    buf[9] = (unsigned char)(hl >> 8);
    memcpy(buf + 10, dict, hl);
    memcpy(buf + 10 + hl, data, n);
    put_bytes(buf, 10 + hl + n);
}

static void test_round_trip(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3};
    unsigned char vals[6 * 16];
    for (size_t i = 0; i < sizeof vals; i++) vals[i] = (unsigned char)(i * 37 + 11);
    for (int d = 0; d < SPT_NUM_DTYPES; d++) {
        spt_dense *a, *b;
        if (d == SPT_STRING) {
            spt_str s[6] = {{"ab", 2}, {"", 0}, {"xyz", 3}, {"a\0b", 3}, {"q", 1}, {"hello", 5}};
            ASSERT_OK(spt_dense_new_from(SPT_STRING, 2, shape, s, &a));
        } else {
            if (d == SPT_BOOL)
                for (int i = 0; i < 6; i++) vals[i] = (unsigned char)(i & 1);
            if (d == SPT_FLOAT32 || d == SPT_COMPLEX64)
                for (int i = 0; i < 12; i++) ((float *)vals)[i] = (float)i * 0.5f - 1;
            if (d == SPT_FLOAT64 || d == SPT_COMPLEX128)
                for (int i = 0; i < 12; i++) ((double *)vals)[i] = (double)i * 0.1 - 1;
            ASSERT_OK(spt_dense_new_from((spt_dtype)d, 2, shape, vals, &a));
        }
        ASSERT_OK(spt_write_npy(a, path));
        ASSERT_OK(spt_read_npy(path, &b));
        assert_int_equal(spt_dense_dtype(b), d);
        assert_int_equal(spt_dense_rank(b), 2);
        assert_int_equal(spt_dense_shape(b)[0], 2);
        assert_int_equal(spt_dense_shape(b)[1], 3);
        if (d == SPT_STRING) {
            const spt_str *x = spt_dense_data(a), *y = spt_dense_data(b);
            for (int i = 0; i < 6; i++) {
                assert_int_equal(x[i].len, y[i].len);
                assert_memory_equal(x[i].data, y[i].data, (size_t)x[i].len);
            }
        } else assert_memory_equal(spt_dense_data(a), spt_dense_data(b), 6 * spt_dtype_size((spt_dtype)d));
        spt_dense_free(a);
        spt_dense_free(b);
    }
    /* rank 0, rank 1, a zero dim; the header is 64-byte aligned */
    spt_dense *a, *b;
    double x = 2.5;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 0, NULL, &x, &a));
    ASSERT_OK(spt_write_npy(a, path));
    ASSERT_OK(spt_read_npy(path, &b));
    assert_int_equal(spt_dense_rank(b), 0);
    assert_true(*(const double *)spt_dense_data(b) == 2.5);
    spt_dense_free(a);
    spt_dense_free(b);
    int64_t s1[1] = {3}, s0[2] = {0, 4};
    int16_t v[3] = {1, -2, 3};
    ASSERT_OK(spt_dense_new_from(SPT_INT16, 1, s1, v, &a));
    ASSERT_OK(spt_write_npy(a, path));
    FILE *f = fopen(path, "rb");
    unsigned char hdr[128];
    assert_int_equal(fread(hdr, 1, 128, f), 128);
    fclose(f);
    assert_int_equal((hdr[8] + 10) % 64, 0);
    assert_memory_equal(hdr + 10, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", 57);
    ASSERT_OK(spt_read_npy(path, &b));
    assert_memory_equal(spt_dense_data(b), v, sizeof v);
    spt_dense_free(a);
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_UINT32, 2, s0, &a));
    ASSERT_OK(spt_write_npy(a, path));
    ASSERT_OK(spt_read_npy(path, &b));
    assert_int_equal(spt_dense_shape(b)[0], 0);
    assert_int_equal(spt_dense_shape(b)[1], 4);
    spt_dense_free(a);
    spt_dense_free(b);
}

static void test_numpy_files(void **state) {
    (void)state;
    spt_dense *d;
    ASSERT_OK(spt_read_npy(DATA "fortran_f64.npy", &d));
    double wf[6] = {0, 1, 2, 3, 4, 5};
    assert_memory_equal(spt_dense_data(d), wf, sizeof wf);
    spt_dense_free(d);
    ASSERT_OK(spt_read_npy(DATA "bigendian_i4.npy", &d));
    int32_t wb[6] = {0, 1, 2, 3, 4, 5};
    assert_int_equal(spt_dense_dtype(d), SPT_INT32);
    assert_memory_equal(spt_dense_data(d), wb, sizeof wb);
    spt_dense_free(d);
    ASSERT_OK(spt_read_npy(DATA "bool.npy", &d));
    bool wbo[4] = {true, false, false, true};
    assert_memory_equal(spt_dense_data(d), wbo, sizeof wbo);
    spt_dense_free(d);
    ASSERT_OK(spt_read_npy(DATA "bytes.npy", &d));
    const spt_str *s = spt_dense_data(d);
    assert_int_equal(s[0].len, 2);
    assert_int_equal(s[1].len, 0);
    assert_int_equal(s[2].len, 3);
    assert_memory_equal(s[2].data, "xyz", 3);
    spt_dense_free(d);
    ASSERT_OK(spt_read_npy(DATA "scalar_c16.npy", &d));
    assert_int_equal(spt_dense_rank(d), 0);
    assert_true(*(const double complex *)spt_dense_data(d) == 1.5 - 2 * I);
    spt_dense_free(d);
    /* NumPy unicode ('<U2', UCS-4 code points) reads as UTF-8 strings */
    ASSERT_OK(spt_read_npy(DATA "unicode.npy", &d));
    assert_int_equal(spt_dense_dtype(d), SPT_STRING);
    assert_int_equal(spt_dense_size(d), 1);
    assert_int_equal(((const spt_str *)spt_dense_data(d))[0].len, 2);
    assert_memory_equal(((const spt_str *)spt_dense_data(d))[0].data, "ab", 2);
    spt_dense_free(d);
    /* as a sparse tensor through spt_read */
    spt_tensor *t;
    ASSERT_OK(spt_read(DATA "bool.npy", SPT_FORMAT_AUTO, NULL, &t));
    int64_t sh[2] = {2, 2}, ix[4] = {0, 0, 1, 1};
    bool tv[2] = {true, true};
    spt_test_expect_tensor(t, 2, sh, 2, ix, tv);
    spt_tensor_free(t);
}

static void expect_err(spt_status st, const char *msg) {
    spt_dense *d = (spt_dense *)1;
    ASSERT_ST(st, spt_read_npy(path, &d));
    assert_null(d);
    if (!strstr(spt_last_error(), msg)) print_error("got: %s\nwant: %s\n", spt_last_error(), msg);
    ASSERT_MSG(msg);
}

static void test_malformed(void **state) {
    (void)state;
    put_bytes("PK\x03\x04junkjunk", 12);
    expect_err(SPT_EPARSE, "expected the .npy magic '\\x93NUMPY', found 'PK?"
                           "?ju'");
    put_bytes("", 0);
    expect_err(SPT_EPARSE, "found an empty file");
    put_bytes("\x93NUMPY\x01\x00\xff\x00{}", 12);
    expect_err(SPT_EPARSE, "expected a 255-byte .npy header, found 2 bytes");
    put_bytes("\x93NUMPY\x04\x00\x02\x00{}", 12);
    expect_err(SPT_EPARSE, "expected .npy format version 1, 2 or 3, found 4");
    double z[2] = {1, 2};
    put_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", z, 16);
    expect_err(SPT_EPARSE, "expected 3 elements of 8 bytes for shape [3], found 16 bytes of data");
    put_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000, 1000000), }", z, 16);
    expect_err(SPT_EPARSE, "expected 1000000000000000000 elements of 8 bytes");
    put_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000, 10000000000), }", z, 16);
    expect_err(SPT_EOVERFLOW, "does not fit in int64");
    put_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", z, 16);
    expect_err(SPT_EPARSE, "expected a dimension (an integer >= 0) in the .npy header, found '-1,), }'");
    put_npy("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", z, 16);
    expect_err(SPT_EPARSE, "expected True or False for 'fortran_order'");
    put_npy("{'descr': '<f8', 'shape': (2,), }", z, 16);
    expect_err(SPT_EPARSE, "found 'fortran_order' missing");
    put_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1}", z, 16);
    expect_err(SPT_EPARSE, "expected one of the keys 'descr', 'fortran_order', 'shape'");
    put_npy("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", z, 4);
    expect_err(SPT_EDTYPE, "'<f2' is not supported");
    put_npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", z, 16);
    expect_err(SPT_EDTYPE, "'|O' is not supported");
    put_npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }", z, 8);
    expect_err(SPT_EDTYPE, "structured");
    /* the header ends right after the key (fuzz finding I1: read one byte past the header) */
    put_npy("{'descr':", z, 0);
    expect_err(SPT_EPARSE, "expected a dtype string for 'descr' in the .npy header, found end of line");
}

static spt_status sweep_read(void *c) { return spt_read_npy(DATA "bytes.npy", (spt_dense **)c); }
static void sweep_clean(void *c) {
    spt_dense_free(*(spt_dense **)c);
    *(spt_dense **)c = NULL;
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_dense *d = NULL;
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_clean, &d) > 0);
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

/* The largest single allocation, through spt_set_allocator. */
static size_t big_alloc;
static void *track_malloc(size_t n) {
    if (n > big_alloc) big_alloc = n;
    return malloc(n);
}
static void *track_realloc(void *p, size_t n) {
    if (n > big_alloc) big_alloc = n;
    return realloc(p, n);
}

/* spt_write_npy streams the array after its header: no second copy of the data (it once built the
 * whole file in memory); strings longer than the padding block round-trip. */
static void test_write_streams(void **state) {
    (void)state;
    int64_t shape[1] = {1 << 20};
    spt_dense *a, *b;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, shape, &a));
    double *x = spt_dense_data_mut(a);
    for (int64_t i = 0; i < shape[0]; i++) x[i] = (double)i * 0.25;
    spt_set_allocator(track_malloc, track_realloc, NULL);
    big_alloc = 0;
    ASSERT_OK(spt_write_npy(a, path));
    spt_set_allocator(NULL, NULL, NULL);
    assert_true(big_alloc < 4096);
    ASSERT_OK(spt_read_npy(path, &b));
    assert_memory_equal(spt_dense_data(b), x, (size_t)shape[0] * sizeof(double));
    spt_dense_free(a);
    spt_dense_free(b);
    char longs[700];
    for (int i = 0; i < 700; i++) longs[i] = (char)('a' + i % 26);
    spt_str sv[3] = {{longs, 700}, {"", 0}, {longs + 5, 300}};
    int64_t s3[1] = {3};
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, s3, sv, &a));
    ASSERT_OK(spt_write_npy(a, path));
    ASSERT_OK(spt_read_npy(path, &b));
    const spt_str *y = spt_dense_data(b);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(y[i].len, sv[i].len);
        assert_memory_equal(y[i].data, sv[i].data, (size_t)sv[i].len);
    }
    spt_dense_free(a);
    spt_dense_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),  cmocka_unit_test(test_numpy_files),   cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_alloc_sweep), cmocka_unit_test(test_write_streams),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
