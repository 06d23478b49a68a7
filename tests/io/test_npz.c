/* SPDX-License-Identifier: Apache-2.0 */
/* test_npz.c -- .npz: archives written by pydata/sparse and SciPy (fixtures in tests/cli/data, made
 * with sparse 0.13 / scipy 1.10), round trips of every flavour and dtype, malformed archives. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "spt_test.h"

#define DATA "tests/cli/data/"
static char path[] = "/tmp/spt_test_npzXXXXXX.npz";

static void test_scipy_files(void **state) {
    (void)state;
    /* A = [[0, 1.5, 0, 0], [2, 0, 0, -3], [0, 0, 0, 0]] */
    int64_t s[2] = {3, 4}, ix[6] = {0, 1, 1, 0, 1, 3};
    double v[3] = {1.5, 2, -3};
    const char *files[3] = {DATA "scipy_csr.npz", DATA "scipy_coo.npz", DATA "scipy_csr_int32_uncompressed.npz"};
    for (int k = 0; k < 3; k++) {
        spt_tensor *t;
        ASSERT_OK(spt_read_npz(files[k], NULL, &t));
        if (k == 2) {
            int32_t v32[3] = {1, 2, -3};
            spt_test_expect_tensor(t, 2, s, 3, ix, v32);
        } else spt_test_expect_tensor(t, 2, s, 3, ix, v);
        assert_true(spt_tensor_known_valid(t));
        spt_tensor_free(t);
    }
    spt_tensor *t;
    ASSERT_OK(spt_read(DATA "scipy_csc.npz", SPT_FORMAT_AUTO, NULL, &t));
    int64_t ixc[6] = {1, 0, 0, 1, 1, 3}; /* column by column */
    double vc[3] = {2, 1.5, -3};
    spt_test_expect_tensor(t, 2, s, 3, ixc, vc);
    spt_tensor_free(t);
}

static void test_pydata_files(void **state) {
    (void)state;
    spt_tensor *t;
    ASSERT_OK(spt_read_npz(DATA "pydata3.npz", NULL, &t));
    int64_t s[3] = {2, 3, 4}, ix[9] = {0, 1, 2, 1, 0, 0, 1, 2, 3};
    int64_t v[3] = {7, 5, -1};
    spt_test_expect_tensor(t, 3, s, 3, ix, v);
    spt_tensor_free(t);
    ASSERT_OK(spt_read_npz(DATA "pydata_c64.npz", NULL, &t));
    int64_t s1[1] = {5}, ix1[2] = {0, 3};
    float complex v1[2] = {1 + 2 * I, CMPLXF(-0.0f, -1.0f)}; /* numpy's -1j has a -0 real part */
    spt_test_expect_tensor(t, 1, s1, 2, ix1, v1);
    spt_tensor_free(t);
    ASSERT_OK(spt_read_npz(DATA "pydata_empty.npz", NULL, &t));
    int64_t s2[2] = {3, 4};
    spt_test_expect_tensor(t, 2, s2, 0, NULL, NULL);
    spt_tensor_free(t);
    t = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_read_npz(DATA "pydata_fill1.npz", NULL, &t));
    assert_null(t);
    ASSERT_MSG("fill_value is not zero");
}

static void round_trip(spt_dtype d, int64_t rank, const int64_t *shape, int64_t n, const int64_t *ix, const void *vals,
                       spt_format f) {
    spt_tensor *t, *r;
    ASSERT_OK(spt_tensor_new(d, rank, shape, n, ix, vals, NULL, &t));
    ASSERT_OK(spt_write_npz(t, path, f));
    ASSERT_OK(spt_read_npz(path, NULL, &r));
    assert_int_equal(spt_tensor_dtype(r), d);
    spt_test_expect_tensor(r, rank, shape, n, ix, vals);
    spt_tensor_free(r);
    spt_tensor_free(t);
}

static void test_round_trips(void **state) {
    (void)state;
    int64_t s3[3] = {4, 5, 6}, ix3[6] = {3, 4, 5, 0, 0, 0};
    int64_t s2[2] = {4, 5}, ix2[6] = {0, 1, 2, 3, 3, 4}; /* row-major already, so CSR keeps the order */
    unsigned char vals[3 * 16];
    for (size_t i = 0; i < sizeof vals; i++) vals[i] = (unsigned char)(i * 29 + 3);
    for (int d = 0; d < SPT_NUM_DTYPES; d++) {
        if (d == SPT_STRING) {
            spt_str sv[3] = {{"ab", 2}, {"", 0}, {"xyz", 3}};
            round_trip(SPT_STRING, 3, s3, 2, ix3, sv, SPT_FORMAT_NPZ);
            round_trip(SPT_STRING, 2, s2, 3, ix2, sv, SPT_FORMAT_NPZ_SCIPY_COO);
            continue;
        }
        if (d == SPT_BOOL)
            for (int i = 0; i < 3; i++) vals[i] = (unsigned char)(i & 1);
        else if (d == SPT_FLOAT32 || d == SPT_COMPLEX64)
            for (int i = 0; i < 6; i++) ((float *)vals)[i] = (float)i * 0.25f;
        else if (d == SPT_FLOAT64 || d == SPT_COMPLEX128)
            for (int i = 0; i < 6; i++) ((double *)vals)[i] = (double)i * 0.1;
        round_trip((spt_dtype)d, 3, s3, 2, ix3, vals, SPT_FORMAT_NPZ);
        round_trip((spt_dtype)d, 2, s2, 3, ix2, vals, SPT_FORMAT_NPZ_SCIPY_COO);
        round_trip((spt_dtype)d, 2, s2, 3, ix2, vals, SPT_FORMAT_NPZ_SCIPY_CSR);
    }
    /* N = 0, rank 1, rank 0 */
    double one = 1.5;
    int64_t s1[1] = {7}, ix1[1] = {6};
    round_trip(SPT_FLOAT64, 3, s3, 0, NULL, NULL, SPT_FORMAT_NPZ);
    round_trip(SPT_FLOAT64, 2, s2, 0, NULL, NULL, SPT_FORMAT_NPZ_SCIPY_CSR);
    round_trip(SPT_FLOAT64, 1, s1, 1, ix1, &one, SPT_FORMAT_NPZ);
    round_trip(SPT_FLOAT64, 0, NULL, 1, NULL, &one, SPT_FORMAT_NPZ);
    /* CSR sorts rows (stably: duplicates keep their order) */
    int64_t ixu[8] = {3, 0, 0, 4, 3, 0, 1, 1};
    double vu[4] = {1, 2, 3, 4};
    spt_tensor *t, *r;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 4, ixu, vu, NULL, &t));
    ASSERT_OK(spt_write_npz(t, path, SPT_FORMAT_NPZ_SCIPY_CSR));
    ASSERT_OK(spt_read_npz(path, NULL, &r));
    int64_t ixs[8] = {0, 4, 1, 1, 3, 0, 3, 0};
    double vs[4] = {2, 4, 1, 3};
    spt_test_expect_tensor(r, 2, s2, 4, ixs, vs);
    spt_tensor_free(r);
    /* SciPy flavours need matrices; no stdout */
    ASSERT_OK(spt_write(t, "/tmp/spt_test_npz_x.npz", SPT_FORMAT_AUTO));
    ASSERT_OK(spt_read("/tmp/spt_test_npz_x.npz", SPT_FORMAT_AUTO, NULL, &r));
    spt_test_expect_tensor(r, 2, s2, 4, ixu, vu);
    spt_tensor_free(r);
    unlink("/tmp/spt_test_npz_x.npz");
    ASSERT_ST(SPT_EINVAL, spt_write_npz(t, "-", SPT_FORMAT_NPZ));
    spt_tensor_free(t);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s1, 1, ix1, &one, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_write_npz(t, path, SPT_FORMAT_NPZ_SCIPY_COO));
    spt_tensor_free(t);
}

/* Write an archive holding the given members (name, npy bytes). */
static void put_zip(int n, const char *const *names, const char *const *npy, const size_t *len) {
    int err = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    assert_non_null(z);
    for (int i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(z, npy[i], len[i], 0);
        assert_non_null(s);
        assert_true(zip_file_add(z, names[i], s, ZIP_FL_OVERWRITE) >= 0);
    }
    assert_int_equal(zip_close(z), 0);
}

static size_t npy(char *buf, const char *dict, const void *data, size_t n) {
    size_t hl = strlen(dict);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hl & 0xff);
    buf[9] = (char)(hl >> 8);
    memcpy(buf + 10, dict, hl);
    memcpy(buf + 10 + hl, data, n);
    return 10 + hl + n;
}

static void expect_err(spt_status st, const char *msg) {
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(st, spt_read_npz(path, NULL, &t));
    assert_null(t);
    if (!strstr(spt_last_error(), msg)) print_error("got: %s\nwant: %s\n", spt_last_error(), msg);
    ASSERT_MSG(msg);
}

/* Shapes whose volume passes INT64_MAX (issue: any volume): FROSTT nell-1's dims and rank 6 of 2^62 in
 * the pydata flavour, a [2^62, 2^62] matrix as SciPy COO, and as SciPy CSR a matrix whose column count
 * is 2^63 - 1 (CSR's indptr has rows + 1 slots, so the row count must stay small). */
static void test_any_volume(void **state) {
    (void)state;
    const int64_t P62 = (int64_t)1 << 62;
    int64_t nell[3] = {2902330, 2143368, 25495389}, ixn[6] = {0, 2143367, 7, 2902329, 0, 25495388};
    int64_t r6[6] = {P62, P62, P62, P62, P62, P62}, ix6[12] = {P62 - 1, 0, 1, 2, 3, P62 - 1, 0, 0, 0, 0, 0, 0};
    int64_t m2[2] = {P62, P62}, ixm[4] = {0, P62 - 1, P62 - 1, 0};
    int64_t c2[2] = {3, INT64_MAX}, ixc[4] = {0, INT64_MAX - 1, 2, 5};
    double v[2] = {1.5, -2};
    round_trip(SPT_FLOAT64, 3, nell, 2, ixn, v, SPT_FORMAT_NPZ);
    round_trip(SPT_FLOAT64, 6, r6, 2, ix6, v, SPT_FORMAT_NPZ);
    round_trip(SPT_FLOAT64, 2, m2, 2, ixm, v, SPT_FORMAT_NPZ_SCIPY_COO);
    round_trip(SPT_FLOAT64, 2, c2, 2, ixc, v, SPT_FORMAT_NPZ_SCIPY_CSR);
}

static void test_malformed(void **state) {
    (void)state;
    FILE *f = fopen(path, "wb");
    fputs("not a zip", f);
    fclose(f);
    expect_err(SPT_EPARSE, "expected a zip archive (.npz), found something else");
    char b[4][256];
    size_t l[4];
    int64_t shape[2] = {2, 3}, coords[4] = {0, 1, 0, 5};
    double data[2] = {1, 2}, zero = 0;
    l[0] = npy(b[0], "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", shape, 16);
    l[1] = npy(b[1], "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", coords, 32);
    l[2] = npy(b[2], "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", data, 16);
    l[3] = npy(b[3], "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", &zero, 8);
    const char *names[4] = {"shape.npy", "coords.npy", "data.npy", "fill_value.npy"};
    const char *bufs[4] = {b[0], b[1], b[2], b[3]};
    put_zip(4, names, bufs, l);
    expect_err(SPT_EPARSE, "[coords.npy]: expected an index in 0..2 at entry 1, found 5");
    coords[3] = 2;
    l[1] = npy(b[1], "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", coords, 32);
    put_zip(4, names, bufs, l);
    spt_tensor *t;
    ASSERT_OK(spt_read_npz(path, NULL, &t));
    spt_tensor_free(t);
    /* a member missing; a wrong coords shape */
    put_zip(3, names + 1, bufs + 1, l + 1);
    expect_err(SPT_EPARSE, "expected a member shape.npy, found none");
    l[1] = npy(b[1], "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 4), }", coords, 32);
    put_zip(4, names, bufs, l);
    expect_err(SPT_EPARSE, "[coords.npy]: expected integers of shape [2,2], found int64 [1,4]");
    /* a truncated member */
    l[1] = npy(b[1], "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", coords, 32) - 8;
    put_zip(4, names, bufs, l);
    expect_err(SPT_EPARSE, "[coords.npy]: expected 4 elements of 8 bytes for shape [2,2], found 24 bytes of data");
    /* SciPy CSR with a bad indptr */
    int32_t indptr[3] = {0, 2, 1}, ind[2] = {0, 1};
    const char *sn[5] = {"format.npy", "shape.npy", "data.npy", "indptr.npy", "indices.npy"};
    char c[5][256];
    size_t cl[5];
    cl[0] = npy(c[0], "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", "csr", 3);
    cl[1] = npy(c[1], "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", shape, 16);
    cl[2] = npy(c[2], "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", data, 16);
    cl[3] = npy(c[3], "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", indptr, 12);
    cl[4] = npy(c[4], "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", ind, 8);
    const char *cb[5] = {c[0], c[1], c[2], c[3], c[4]};
    put_zip(5, sn, cb, cl);
    expect_err(SPT_EPARSE, "[indptr.npy]: expected a value in 2..2 at 2, found 1");
    indptr[2] = 2;
    ind[1] = 3;
    cl[3] = npy(c[3], "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", indptr, 12);
    cl[4] = npy(c[4], "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", ind, 8);
    put_zip(5, sn, cb, cl);
    expect_err(SPT_EPARSE, "[indices.npy]: expected an index in 0..2 at entry 1, found 3");
    cl[0] = npy(c[0], "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", "bsr", 3);
    put_zip(5, sn, cb, cl);
    expect_err(SPT_EPARSE, "[format.npy]: expected 'coo', 'csr' or 'csc', found 'bsr'");
    /* a CSR shape[0] of INT64_MAX: the indptr length would overflow (fuzz finding I2) */
    int64_t hshape[2] = {INT64_MAX, 3};
    cl[0] = npy(c[0], "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", "csr", 3);
    cl[1] = npy(c[1], "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", hshape, 16);
    put_zip(5, sn, cb, cl);
    expect_err(SPT_EPARSE, "[shape.npy]: expected a row count below 9223372036854775807, found 9223372036854775807");
    /* neither flavour */
    put_zip(1, sn + 2, cb + 2, cl + 2);
    expect_err(SPT_EPARSE, "expected the members coords.npy or format.npy, found neither");
}

static spt_status sweep_read(void *c) { return spt_read_npz(DATA "scipy_csr.npz", NULL, (spt_tensor **)c); }
static spt_status sweep_read2(void *c) { return spt_read_npz(DATA "pydata3.npz", NULL, (spt_tensor **)c); }
static void sweep_clean(void *c) {
    spt_tensor_free(*(spt_tensor **)c);
    *(spt_tensor **)c = NULL;
}
typedef struct wctx {
    spt_tensor *t;
    spt_format f;
} wctx;
static spt_status sweep_write(void *c) {
    wctx *w = c;
    return spt_write_npz(w->t, path, w->f);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_tensor *t = NULL;
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_clean, &t) > 0);
    assert_true(spt_test_alloc_sweep(sweep_read2, sweep_clean, &t) > 0);
    int64_t s2[2] = {4, 5}, ixu[4] = {3, 0, 0, 4};
    double vu[2] = {1, 2};
    spt_set_allocator(NULL, NULL, NULL);
    wctx w = {NULL, SPT_FORMAT_NPZ_SCIPY_CSR};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 2, ixu, vu, NULL, &w.t));
    assert_true(spt_test_alloc_sweep(sweep_write, NULL, &w) > 0);
    w.f = SPT_FORMAT_NPZ;
    assert_true(spt_test_alloc_sweep(sweep_write, NULL, &w) > 0);
    spt_set_allocator(NULL, NULL, NULL);
    spt_tensor_free(w.t);
}

static int setup(void **state) {
    (void)state;
    int fd = mkstemps(path, 4);
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
        cmocka_unit_test(test_scipy_files), cmocka_unit_test(test_pydata_files), cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_any_volume),  cmocka_unit_test(test_malformed),    cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
