/* SPDX-License-Identifier: Apache-2.0 */
/* test_tns.c -- FROSTT .tns reading and writing: values, dtypes, headers, round trips, malformed files,
 * threads, the allocation sweep. */
#ifndef SPT_CONFORMANCE
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spt_test.h"

static spt_tensor *parse(const char *text, const spt_read_opts *o) {
    spt_tensor *t = NULL;
    ASSERT_OK(spt_parse_tns(text, strlen(text), "t.tns", o, &t));
    return t;
}

/* Parse `text`, expect status st and exactly the message `msg`. */
static void parse_err(const char *text, const spt_read_opts *o, spt_status st, const char *msg) {
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(st, spt_parse_tns(text, strlen(text), "t.tns", o, &t));
    assert_null(t);
    if (strcmp(spt_last_error(), msg)) print_error("got message: %s\nexpected:    %s\n", spt_last_error(), msg);
    assert_string_equal(spt_last_error(), msg);
}

static void test_basic(void **state) {
    (void)state;
    spt_tensor *t = parse("# comment\n1 1 1 1.5\n\n2 3 1 2\n  # indented comment\n1 2 2 -3e-1\r\n", NULL);
    int64_t shape[3] = {2, 3, 2}, ix[9] = {0, 0, 0, 1, 2, 0, 0, 1, 1};
    double v[3] = {1.5, 2, -0.3};
    spt_test_expect_tensor(t, 3, shape, 3, ix, v);
    assert_int_equal(spt_tensor_dtype(t), SPT_FLOAT64);
    assert_true(spt_tensor_known_valid(t));
    assert_int_equal(spt_tensor_order(t)[0], -1);
    spt_tensor_free(t);
    /* integers only: int64; tabs; no final newline */
    t = parse("3\t1\t-7\n1 2 9223372036854775807", NULL);
    int64_t s2[2] = {3, 2}, ix2[4] = {2, 0, 0, 1}, v2[2] = {-7, INT64_MAX};
    spt_test_expect_tensor(t, 2, s2, 2, ix2, v2);
    assert_int_equal(spt_tensor_dtype(t), SPT_INT64);
    spt_tensor_free(t);
    /* an integer too large for int64 makes the values float64 */
    t = parse("1 99999999999999999999\n2 1\n", NULL);
    assert_int_equal(spt_tensor_dtype(t), SPT_FLOAT64);
    assert_true(((const double *)spt_tensor_values(t))[0] == 1e20);
    assert_true(((const double *)spt_tensor_values(t))[1] == 1.0);
    spt_tensor_free(t);
}

static void test_numbers(void **state) {
    (void)state;
    spt_tensor *t = parse("1 0.1\n2 -0\n3 1e-300\n4 inf\n5 -Infinity\n6 nan\n7 .5\n8 5.\n9 +2.5E+3\n10 "
                          "123456789012345678901234567890\n11 4.9e-324\n12 0.30000000000000004\n",
                          NULL);
    const double *v = spt_tensor_values(t);
    assert_true(v[0] == 0.1);
    assert_true(v[1] == 0 && signbit(v[1]) == 0); /* "-0" is the integer 0 */
    assert_true(v[2] == 1e-300);
    assert_true(isinf(v[3]) && v[3] > 0);
    assert_true(isinf(v[4]) && v[4] < 0);
    assert_true(isnan(v[5]));
    assert_true(v[6] == 0.5 && v[7] == 5.0 && v[8] == 2500.0);
    assert_true(v[9] == 123456789012345678901234567890.0);
    assert_true(v[10] == 4.9e-324);
    assert_true(v[11] == 0.30000000000000004);
    spt_tensor_free(t);
    t = parse("1 -0.0\n", NULL);
    assert_true(signbit(((const double *)spt_tensor_values(t))[0]));
    spt_tensor_free(t);
}

static void test_header_and_opts(void **state) {
    (void)state;
    /* the header fixes dtype and shape; rank and shape survive N = 0 */
    spt_tensor *t = parse("# dtype: int16\n# shape: 4 0 2\n", NULL);
    int64_t s[3] = {4, 0, 2};
    spt_test_expect_tensor(t, 3, s, 0, NULL, NULL);
    assert_int_equal(spt_tensor_dtype(t), SPT_INT16);
    spt_tensor_free(t);
    t = parse("# dtype: float32\n# shape: 5 6\n2 3 0.25\n", NULL);
    int64_t s2[2] = {5, 6}, ix[2] = {1, 2};
    float v[1] = {0.25f};
    spt_test_expect_tensor(t, 2, s2, 1, ix, v);
    spt_tensor_free(t);
    /* options win over the header */
    int64_t shape[2] = {10, 10};
    spt_read_opts o = {.has_dtype = true, .dtype = SPT_UINT8, .rank = 2, .shape = shape};
    t = parse("# dtype: float32\n# shape: 5 6\n2 3 255\n", &o);
    uint8_t v8[1] = {255};
    spt_test_expect_tensor(t, 2, shape, 1, ix, v8);
    spt_tensor_free(t);
    /* an empty text: rank 0, no entries */
    t = parse("", NULL);
    assert_int_equal(spt_tensor_rank(t), 0);
    assert_int_equal(spt_tensor_nnz(t), 0);
    spt_tensor_free(t);
    /* a scalar: a line with only the value */
    t = parse("42\n", NULL);
    int64_t v42[1] = {42};
    spt_test_expect_tensor(t, 0, NULL, 1, NULL, v42);
    spt_tensor_free(t);
    /* complex values are "re im" */
    spt_read_opts oc = {.has_dtype = true, .dtype = SPT_COMPLEX128};
    t = parse("1 2 1.5 -2\n2 1 0 1e3\n", &oc);
    double complex cv[2] = {1.5 - 2 * I, 1000 * I};
    int64_t s3[2] = {2, 2}, ix3[4] = {0, 1, 1, 0};
    spt_test_expect_tensor(t, 2, s3, 2, ix3, cv);
    spt_tensor_free(t);
    /* a string dtype is refused */
    spt_read_opts os = {.has_dtype = true, .dtype = SPT_STRING};
    spt_tensor *bad = (spt_tensor *)1;
    ASSERT_ST(SPT_EDTYPE, spt_parse_tns("1 1\n", 4, "t.tns", &os, &bad));
    assert_null(bad);
}

static void test_malformed(void **state) {
    (void)state;
    parse_err("1 1 1 1.5\n2 3 1\n", NULL, SPT_EPARSE, "t.tns:2: expected 4 fields (3 indices and a value), found 3");
    parse_err("1 1 1 1.5\n2 3 1 2 5\n", NULL, SPT_EPARSE,
              "t.tns:2: expected 4 fields (3 indices and a value), found 5");
    parse_err("# c\n1 1 1.5\n0 2 2\n", NULL, SPT_EPARSE,
              "t.tns:3: expected an index >= 1 (indices are 1-based), found '0'");
    parse_err("1 -3 2\n", NULL, SPT_EPARSE, "t.tns:1: expected an index >= 1 (indices are 1-based), found '-3'");
    parse_err("1 x 2\n", NULL, SPT_EPARSE, "t.tns:1: expected an index (a positive integer), found 'x'");
    parse_err("1 2.0 2\n", NULL, SPT_EPARSE, "t.tns:1: expected an index (a positive integer), found '2.0'");
    parse_err("1 99999999999999999999 2\n", NULL, SPT_EPARSE,
              "t.tns:1: expected an index that fits in int64, found '99999999999999999999'");
    parse_err("1 1 1.2.3\n", NULL, SPT_EPARSE, "t.tns:1: expected a number, found '1.2.3'");
    parse_err("1 1 1e999\n", NULL, SPT_EPARSE, "t.tns:1: expected in range a number, found '1e999'");
    parse_err("1 1 0x10\n", NULL, SPT_EPARSE, "t.tns:1: expected a number, found '0x10'");
    spt_read_opts o8 = {.has_dtype = true, .dtype = SPT_INT8};
    parse_err("1 1 127\n1 2 128\n", &o8, SPT_EPARSE, "t.tns:2: expected in range an int8 value, found '128'");
    parse_err("1 1 1.5\n", &o8, SPT_EPARSE, "t.tns:1: expected an int8 value, found '1.5'");
    spt_read_opts ob = {.has_dtype = true, .dtype = SPT_BOOL};
    parse_err("1 1 2\n", &ob, SPT_EPARSE, "t.tns:1: expected in range a bool value (0 or 1), found '2'");
    spt_read_opts ou = {.has_dtype = true, .dtype = SPT_UINT64};
    parse_err("1 1 -1\n", &ou, SPT_EPARSE, "t.tns:1: expected a uint64 value, found '-1'");
    spt_read_opts oc = {.has_dtype = true, .dtype = SPT_COMPLEX64};
    parse_err("1 1 1.5 2\n1 2 3\n", &oc, SPT_EPARSE,
              "t.tns:2: expected 4 fields (2 indices and a complex value as 're im'), found 3");
    int64_t shape[2] = {2, 2};
    spt_read_opts os = {.rank = 2, .shape = shape};
    parse_err("1 1 1\n3 1 1\n", &os, SPT_EPARSE, "t.tns:2: expected an index in 1..2 for mode 0, found '3'");
    parse_err("# shape: 3 x\n1 1 1\n", NULL, SPT_EPARSE, "t.tns:1: expected a dimension (an integer >= 0), found 'x'");
    parse_err("# shape: 3 -1\n", NULL, SPT_EPARSE, "t.tns:1: expected a dimension (an integer >= 0), found '-1'");
    parse_err("# dtype: float99\n", NULL, SPT_EPARSE,
              "t.tns:1: expected a dtype name after '# dtype:', found 'float99'");
    parse_err("# shape: 3\n1 1 1\n", NULL, SPT_EPARSE, "t.tns:2: expected 2 fields (1 index and a value), found 3");
    parse_err("# shape: 2 2\n1 3 1\n", NULL, SPT_EPARSE, "t.tns:2: expected an index in 1..2 for mode 1, found '3'");
    /* the volume of the inferred shape need not fit anywhere (any-volume policy) */
    spt_tensor *t = (spt_tensor *)1;
    const char *big = "4000000000 4000000000 4000000000 1\n";
    ASSERT_OK(spt_parse_tns(big, strlen(big), "t.tns", NULL, &t));
    assert_int_equal(spt_tensor_shape(t)[0], 4000000000);
    assert_int_equal(spt_tensor_shape(t)[2], 4000000000);
    assert_int_equal(spt_tensor_volume(t), -1);
    spt_tensor_free(t);
    t = NULL;
    /* truncated line: a lone index with no value on the last line */
    parse_err("1 2 3\n4", NULL, SPT_EPARSE, "t.tns:2: expected 3 fields (2 indices and a value), found 1");
    /* a missing file */
    ASSERT_ST(SPT_EIO, spt_read_tns("/nonexistent/x.tns", NULL, &t));
    assert_null(t);
}

/* Every dtype through write and read (header keeps dtype and shape). */
static void test_round_trip_dtypes(void **state) {
    (void)state;
    char path[] = "/tmp/spt_test_tnsXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    int64_t shape[3] = {3, 4, 5}, ix[9] = {0, 0, 0, 2, 3, 4, 1, 2, 3};
    unsigned char vals[3 * 16];
    for (int d = 0; d < SPT_NUM_DTYPES; d++) {
        if (d == SPT_STRING) continue;
        memset(vals, 0, sizeof vals);
        switch (d) {
        case SPT_BOOL: ((bool *)vals)[0] = true, ((bool *)vals)[2] = true; break;
        case SPT_INT8: ((int8_t *)vals)[0] = -128, ((int8_t *)vals)[1] = 127, ((int8_t *)vals)[2] = 5; break;
        case SPT_INT16: ((int16_t *)vals)[0] = INT16_MIN, ((int16_t *)vals)[1] = INT16_MAX; break;
        case SPT_INT32: ((int32_t *)vals)[0] = INT32_MIN, ((int32_t *)vals)[1] = INT32_MAX; break;
        case SPT_INT64: ((int64_t *)vals)[0] = INT64_MIN, ((int64_t *)vals)[1] = INT64_MAX; break;
        case SPT_UINT8: ((uint8_t *)vals)[0] = 255; break;
        case SPT_UINT16: ((uint16_t *)vals)[0] = UINT16_MAX; break;
        case SPT_UINT32: ((uint32_t *)vals)[0] = UINT32_MAX; break;
        case SPT_UINT64: ((uint64_t *)vals)[0] = UINT64_MAX, ((uint64_t *)vals)[1] = 1; break;
        case SPT_FLOAT32:
            ((float *)vals)[0] = 0.1f, ((float *)vals)[1] = -3.4028235e38f, ((float *)vals)[2] = 1e-45f;
            break;
        case SPT_FLOAT64:
            ((double *)vals)[0] = 0.1, ((double *)vals)[1] = -1.7976931348623157e308, ((double *)vals)[2] = INFINITY;
            break;
        case SPT_COMPLEX64: ((float complex *)vals)[0] = 1.25f - 0.1f * I, ((float complex *)vals)[2] = -7; break;
        case SPT_COMPLEX128:
            ((double complex *)vals)[0] = 1e-310 + 1e300 * I, ((double complex *)vals)[1] = -0.0;
            break;
        }
        spt_tensor *t, *r;
        ASSERT_OK(spt_tensor_new((spt_dtype)d, 3, shape, 3, ix, vals, NULL, &t));
        ASSERT_OK(spt_write_tns(t, path));
        ASSERT_OK(spt_read_tns(path, NULL, &r));
        assert_int_equal(spt_tensor_dtype(r), d);
        spt_test_expect_tensor(r, 3, shape, 3, ix, vals);
        /* also through spt_write / spt_read with the format given */
        spt_tensor_free(r);
        ASSERT_OK(spt_write(t, path, SPT_FORMAT_TNS));
        ASSERT_OK(spt_read(path, SPT_FORMAT_TNS, NULL, &r));
        spt_test_expect_tensor(r, 3, shape, 3, ix, vals);
        spt_tensor_free(r);
        spt_tensor_free(t);
    }
    /* N = 0 with rank 3, rank 1, rank 0 */
    spt_tensor *t, *r;
    int64_t s0[3] = {2, 0, 7};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, s0, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_write_tns(t, path));
    ASSERT_OK(spt_read_tns(path, NULL, &r));
    spt_test_expect_tensor(r, 3, s0, 0, NULL, NULL);
    spt_tensor_free(r);
    spt_tensor_free(t);
    int64_t s1[1] = {9}, i1[2] = {8, 0};
    int32_t v1[2] = {-1, 2};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 1, s1, 2, i1, v1, NULL, &t));
    ASSERT_OK(spt_write_tns(t, path));
    ASSERT_OK(spt_read_tns(path, NULL, &r));
    spt_test_expect_tensor(r, 1, s1, 2, i1, v1);
    spt_tensor_free(r);
    spt_tensor_free(t);
    double sv = 2.5;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 0, NULL, 1, NULL, &sv, NULL, &t));
    ASSERT_OK(spt_write_tns(t, path));
    ASSERT_OK(spt_read_tns(path, NULL, &r));
    spt_test_expect_tensor(r, 0, NULL, 1, NULL, &sv);
    spt_tensor_free(r);
    spt_tensor_free(t);
    /* strings are refused, and an out-of-bounds index is refused without touching the file */
    spt_str s = {"a", 1};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, s1, 1, i1, &s, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_write_tns(t, path));
    spt_tensor_free(t);
    int64_t ib[1] = {9};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 1, s1, 1, ib, v1, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_write_tns(t, path));
    spt_tensor_free(t);
    ASSERT_OK(spt_read_tns(path, NULL, &r)); /* still the scalar */
    assert_int_equal(spt_tensor_rank(r), 0);
    spt_tensor_free(r);
    unlink(path);
}

typedef struct prog {
    int calls;
    double last;
} prog;
static void on_progress(double done, void *ctx) {
    prog *p = ctx;
    assert_true(done >= p->last && done >= 0 && done <= 1);
    p->last = done;
    p->calls++;
}

/* A large text parsed with 1 and 2 threads gives the same tensor; errors report the right line. */
/* Read a whole file into a malloc'd string. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = calloc(1, 1 << 16);
    size_t m = fread(b, 1, (1 << 16) - 1, f);
    b[m] = 0;
    fclose(f);
    return b;
}

/* 0-based files (spt_*_tns_base) and shapes whose volume passes 2^63 (FROSTT's nell-1). */
static void test_index_base_and_any_volume(void **state) {
    (void)state;
    spt_tensor *t = NULL, *u = NULL;
    const char *z = "0 0 1.5\n3 2 -2\n";
    ASSERT_OK(spt_parse_tns_base(z, strlen(z), "z.tns", NULL, 0, &t));
    int64_t want_sh[] = {4, 3}, want_ix[] = {0, 0, 3, 2};
    double want_v[] = {1.5, -2};
    spt_test_expect_tensor(t, 2, want_sh, 2, want_ix, want_v);
    char path[] = "/tmp/spt_test_baseXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    ASSERT_OK(spt_write_tns_base(t, path, 0));
    char *text = slurp(path);
    assert_string_equal(text, "# dtype: float64\n# shape: 4 3\n0 0 1.5\n3 2 -2\n");
    free(text);
    ASSERT_OK(spt_read_tns_base(path, NULL, 0, &u));
    spt_test_expect_tensor(u, 2, want_sh, 2, want_ix, want_v);
    spt_tensor_free(u);
    ASSERT_OK(spt_write_tns_base(t, path, 1)); /* the same tensor 1-based */
    text = slurp(path);
    assert_string_equal(text, "# dtype: float64\n# shape: 4 3\n1 1 1.5\n4 3 -2\n");
    free(text);
    spt_tensor_free(t);
    /* errors: the base, a negative 0-based index, an index beyond a given shape, INT64_MAX */
    t = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_parse_tns_base(z, strlen(z), "z.tns", NULL, 2, &t));
    assert_null(t);
    ASSERT_MSG("the index base must be 0 or 1, not 2");
    const char *neg = "0 -1 1\n";
    ASSERT_ST(SPT_EPARSE, spt_parse_tns_base(neg, strlen(neg), "z.tns", NULL, 0, &t));
    ASSERT_MSG("z.tns:1: expected an index >= 0 (indices are 0-based), found '-1'");
    const char *beyond = "# shape: 4 3\n0 3 1\n";
    ASSERT_ST(SPT_EPARSE, spt_parse_tns_base(beyond, strlen(beyond), "z.tns", NULL, 0, &t));
    ASSERT_MSG("z.tns:2: expected an index in 0..2 for mode 1, found '3'");
    const char *maxi = "9223372036854775807 1\n";
    ASSERT_ST(SPT_EPARSE, spt_parse_tns_base(maxi, strlen(maxi), "z.tns", NULL, 0, &t));
    ASSERT_MSG("expected a 0-based index below 9223372036854775807");
    const char *maxi1 = "9223372036854775806 1\n";
    ASSERT_OK(spt_parse_tns_base(maxi1, strlen(maxi1), "z.tns", NULL, 0, &t));
    assert_int_equal(spt_tensor_shape(t)[0], INT64_MAX);
    spt_tensor_free(t);
    /* nell-1's shape (volume ~1.6e20) round trip, 0-based, with the entries at the far corners */
    const char *nell = "# shape: 2902330 2143368 25495389\n2902329 2143367 25495388 7\n0 0 0 -1\n";
    ASSERT_OK(spt_parse_tns_base(nell, strlen(nell), "n.tns", NULL, 0, &t));
    assert_int_equal(spt_tensor_volume(t), -1);
    ASSERT_OK(spt_reorder(t, NULL));
    ASSERT_OK(spt_write_tns_base(t, path, 0));
    ASSERT_OK(spt_read_tns_base(path, NULL, 0, &u));
    int64_t nsh[] = {2902330, 2143368, 25495389}, nix[] = {0, 0, 0, 2902329, 2143367, 25495388};
    int64_t nv[] = {-1, 7};
    spt_test_expect_tensor(u, 3, nsh, 2, nix, nv);
    spt_tensor_free(u);
    spt_tensor_free(t);
    unlink(path);
}

static void test_threads(void **state) {
    (void)state;
    const int n = 200000;
    size_t cap = (size_t)n * 40 + 64, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    uint64_t s = 12345;
    for (int i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        if (i % 1000 == 7) len += (size_t)snprintf(buf + len, cap - len, "# comment %d\n\n", i);
        len += (size_t)snprintf(buf + len, cap - len, "%u %u %u %d.%02u\n", (unsigned)(s >> 40) % 1000 + 1,
                                (unsigned)(s >> 20) % 50 + 1, (unsigned)(s >> 10) % 7 + 1, (int)(s >> 33) % 100,
                                (unsigned)(s >> 3) % 100);
    }
    spt_tensor *a, *b;
    spt_set_num_threads(1);
    ASSERT_OK(spt_parse_tns(buf, len, "big.tns", NULL, &a));
    spt_set_num_threads(2);
    ASSERT_OK(spt_parse_tns(buf, len, "big.tns", NULL, &b));
    assert_int_equal(spt_tensor_nnz(a), n);
    spt_test_expect_tensor(b, 3, spt_tensor_shape(a), n, spt_tensor_indices(a), spt_tensor_values(a));
    spt_tensor_free(b);
    /* the progress callback: non-decreasing fractions ending with 1 */
    prog p = {0, -1};
    spt_set_read_progress(on_progress, &p);
    ASSERT_OK(spt_parse_tns(buf, len, "big.tns", NULL, &b));
    spt_set_read_progress(NULL, NULL);
    assert_true(p.calls >= 2);
    assert_true(p.last == 1.0);
    /* the parallel writer gives the same bytes for any thread count, and reads back */
    char p1[] = "/tmp/spt_test_tns1XXXXXX", p2[] = "/tmp/spt_test_tns2XXXXXX";
    int f1 = mkstemp(p1), f2 = mkstemp(p2);
    assert_true(f1 >= 0 && f2 >= 0);
    close(f1);
    close(f2);
    spt_set_num_threads(1);
    ASSERT_OK(spt_write_tns(a, p1));
    spt_set_num_threads(2);
    prog wp = {0, -1}; /* the write progress: non-decreasing fractions of the entries, ending with 1 */
    spt_set_write_progress(on_progress, &wp);
    ASSERT_OK(spt_write_tns(a, p2));
    spt_set_write_progress(NULL, NULL);
    assert_true(wp.calls >= 2);
    assert_true(wp.last == 1.0);
    FILE *g1 = fopen(p1, "rb"), *g2 = fopen(p2, "rb");
    int c1, c2;
    long pos = 0;
    do {
        c1 = fgetc(g1);
        c2 = fgetc(g2);
        pos++;
    } while (c1 == c2 && c1 != EOF);
    assert_int_equal(c1, c2);
    assert_true(pos > 1000000);
    fclose(g1);
    fclose(g2);
    spt_tensor *back;
    ASSERT_OK(spt_read_tns(p2, NULL, &back));
    spt_test_expect_tensor(back, 3, spt_tensor_shape(a), n, spt_tensor_indices(a), spt_tensor_values(a));
    spt_tensor_free(back);
    unlink(p1);
    unlink(p2);
    spt_tensor_free(a);
    spt_tensor_free(b);
    /* break a line near the end: the line number must count every line before it */
    char *last = buf + len - 2;
    while (*last != '\n') last--;
    last[1] = 'x';
    int64_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(SPT_EPARSE, spt_parse_tns(buf, len, "big.tns", NULL, &t));
    char want[64];
    snprintf(want, sizeof want, "big.tns:%lld: expected an index", (long long)lines);
    assert_non_null(strstr(spt_last_error(), want));
    /* and an error in the first half wins over one in the second */
    buf[0] = 'y';
    ASSERT_ST(SPT_EPARSE, spt_parse_tns(buf, len, "big.tns", NULL, &t));
    ASSERT_MSG("big.tns:1: expected an index");
    spt_set_num_threads(0);
    free(buf);
}

typedef struct sweep_ctx {
    const char *text;
    spt_tensor *out;
} sweep_ctx;
static spt_status sweep_parse(void *c) {
    sweep_ctx *x = c;
    return spt_parse_tns(x->text, strlen(x->text), "s.tns", NULL, &x->out);
}
static void sweep_clean(void *c) {
    sweep_ctx *x = c;
    spt_tensor_free(x->out);
    x->out = NULL;
}

static void test_alloc_sweep(void **state) {
    (void)state;
    sweep_ctx c = {"# dtype: float32\n1 2 3 4.5\n2 2 2 1\n", NULL};
    assert_true(spt_test_alloc_sweep(sweep_parse, sweep_clean, &c) > 0);
    sweep_ctx c2 = {"1 2 3 4\n2 2 2 1.5\n", NULL};
    assert_true(spt_test_alloc_sweep(sweep_parse, sweep_clean, &c2) > 0);
    spt_set_allocator(NULL, NULL, NULL);
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

/* Blank and comment lines do not size the entry arrays: one rank-64 entry followed by 1M blank lines
 * once asked for 1M x 64 x 8 bytes (512x the file); and a malformed line right after the fewest-byte
 * entries a chunk can hold is rejected without writing past the arrays (ASan), with any thread count. */
static void test_blank_lines_memory(void **state) {
    (void)state;
    size_t nblank = 1 << 20, len = 0;
    char *buf = malloc(64 * 2 + 8 + nblank);
    assert_non_null(buf);
    for (int k = 0; k < 64; k++) len += (size_t)sprintf(buf + len, "1 ");
    len += (size_t)sprintf(buf + len, "7\n");
    memset(buf + len, '\n', nblank);
    len += nblank;
    spt_set_allocator(track_malloc, track_realloc, NULL);
    big_alloc = 0;
    spt_tensor *t = NULL;
    ASSERT_OK(spt_parse_tns(buf, len, "blank.tns", NULL, &t));
    spt_set_allocator(NULL, NULL, NULL);
    assert_true(big_alloc < 4 * len);
    assert_int_equal(spt_tensor_rank(t), 64);
    assert_int_equal(spt_tensor_nnz(t), 1);
    spt_tensor_free(t);
    free(buf);
    for (int th = 1; th <= 4; th++) {
        spt_set_num_threads(th);
        for (int tail = 0; tail < 3; tail++) {
            size_t m = 4000;
            char *b = malloc(m * 4 + 8);
            assert_non_null(b);
            size_t l = 0;
            for (size_t i = 0; i < m; i++) l += (size_t)sprintf(b + l, "1 1\n");
            l += (size_t)sprintf(b + l, "%s", tail == 0 ? "1" : tail == 1 ? "1 1 1" : "1 ");
            t = (spt_tensor *)1;
            ASSERT_ST(SPT_EPARSE, spt_parse_tns(b, l, "min.tns", NULL, &t));
            assert_null(t);
            free(b);
        }
    }
    spt_set_num_threads(0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_header_and_opts),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_round_trip_dtypes),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
        cmocka_unit_test(test_blank_lines_memory),
        cmocka_unit_test(test_index_base_and_any_volume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

static conf_result h_parse_tns(const conf_case *c) {
    size_t len;
    char *buf = conf_bytes_of(c->args, &len);
    int64_t shape[SPT_MAX_RANK];
    spt_read_opts o = conf_read_opts(c, shape);
    spt_tensor *t = (spt_tensor *)&t;
    spt_status st = buf ? spt_parse_tns(buf, len, "case.tns", &o, &t) : SPT_ENOMEM;
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && t != NULL) r = conf_fail(c, "out-parameter not NULL after an error");
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        r = res ? conf_expect_sparse(c, res, t, NULL) : CONF_PASS;
    }
    if (st == SPT_OK) spt_tensor_free(t);
    free(buf);
    return r;
}

/* {"format": "mtx"|"mtx_dense"|"npy"|"npz"|"tns", "text"|"hex": file bytes, or "members": {name: {"hex"|"text"}}} */
static conf_result h_read_file(const conf_case *c) {
    const char *fmt = json_string_value(conf_arg(c, "format"));
    char path[64];
    snprintf(path, sizeof path, "/tmp/spt-conf-%ld.%s", (long)getpid(),
             fmt && !strcmp(fmt, "mtx_dense") ? "mtx"
             : fmt                            ? fmt
                                              : "bin");
    json_t *members = conf_arg(c, "members");
    spt_status st = SPT_OK;
    if (members) {
        int err = 0;
        zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
        const char *name;
        json_t *v;
        if (!z) return conf_fail(c, "cannot create %s", path);
        json_object_foreach(members, name, v) {
            size_t len;
            char *b = conf_bytes_of(v, &len);
            zip_source_t *src = b ? zip_source_buffer(z, len ? b : NULL, len, len ? 1 : 0) : NULL;
            if (!len) free(b);
            if (!src || zip_file_add(z, name, src, ZIP_FL_OVERWRITE) < 0) {
                if (src) zip_source_free(src);
                zip_discard(z);
                return conf_fail(c, "cannot add member %s", name);
            }
        }
        if (zip_close(z) != 0) return conf_fail(c, "cannot write %s", path);
    } else {
        size_t len;
        char *b = conf_bytes_of(c->args, &len);
        FILE *f = b ? fopen(path, "wb") : NULL;
        if (!f || (len && fwrite(b, 1, len, f) != len)) st = SPT_EIO;
        if (f) fclose(f);
        free(b);
        if (st != SPT_OK) return conf_fail(c, "cannot write %s", path);
    }
    int64_t shape[SPT_MAX_RANK];
    spt_read_opts o = conf_read_opts(c, shape);
    spt_tensor *t = (spt_tensor *)&t;
    spt_dense *d = (spt_dense *)&d;
    bool dense = !strcmp(fmt, "npy") || !strcmp(fmt, "mtx_dense");
    if (!strcmp(fmt, "npy")) st = spt_read_npy(path, &d);
    else if (!strcmp(fmt, "mtx_dense")) st = spt_read_mtx_dense(path, &o, &d);
    else if (!strcmp(fmt, "mtx")) st = spt_read_mtx(path, &o, &t);
    else if (!strcmp(fmt, "npz")) st = spt_read_npz(path, &o, &t);
    else st = spt_read_tns(path, &o, &t);
    remove(path);
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && (dense ? (void *)d : (void *)t) != NULL)
        r = conf_fail(c, "out-parameter not NULL after an error");
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        if (res && json_object_get(res, "nnz") && !dense)
            r = spt_tensor_nnz(t) == json_integer_value(json_object_get(res, "nnz"))
                    ? CONF_PASS
                    : conf_fail(c, "nnz %lld", (long long)spt_tensor_nnz(t));
        else if (res && json_object_get(res, "indices") && !dense) r = conf_expect_sparse(c, res, t, NULL);
        else if (res && json_object_get(res, "dense") && dense)
            r = conf_expect_dense(c, json_object_get(res, "dense"), d, NULL);
        else r = CONF_PASS;
    }
    if (st == SPT_OK) {
        if (dense) spt_dense_free(d);
        else spt_tensor_free(t);
    }
    return r;
}

CONF_HANDLERS(test_tns, {"spt_parse_tns", h_parse_tns, CONF_OP(spt_parse_tns)},
              {"spt_read_file", h_read_file, CONF_OP(spt_read_tns)})
#endif
