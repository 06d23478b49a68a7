/* SPDX-License-Identifier: Apache-2.0 */
/* test_binsparse.c -- binsparse in .npz: files written by the binsparse package from PyPI (made once by
 * tests/io/gen_binsparse.py, `make io-test-data`), each compared exactly with the entries the script wrote
 * beside it (NAME.expect.tns); round trips of COO (ranks 0 to 3), CSR and CSC for every numeric dtype;
 * hostile archives refused with the file and the field; what the writer refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spt_test.h"

#define DATA "tests/io/data/binsparse/"

/* a and b hold the same entries (sorted row-major first), dtype, shape, values bit for bit. */
static void expect_same(spt_tensor *a, spt_tensor *b) {
    const int64_t r = spt_tensor_rank(a), n = spt_tensor_nnz(a);
    int64_t order[SPT_MAX_RANK];
    for (int64_t k = 0; k < r; k++) order[k] = k;
    assert_int_equal(spt_tensor_dtype(a), spt_tensor_dtype(b));
    assert_int_equal(r, spt_tensor_rank(b));
    assert_int_equal(n, spt_tensor_nnz(b));
    if (r) assert_memory_equal(spt_tensor_shape(a), spt_tensor_shape(b), (size_t)r * sizeof(int64_t));
    if (r && n) {
        ASSERT_OK(spt_reorder(a, order));
        ASSERT_OK(spt_reorder(b, order));
        assert_memory_equal(spt_tensor_indices(a), spt_tensor_indices(b), (size_t)(r * n) * sizeof(int64_t));
    }
    if (n)
        assert_memory_equal(spt_tensor_values(a), spt_tensor_values(b),
                            (size_t)n * spt_dtype_size(spt_tensor_dtype(a)));
}

static void test_package_files(void **state) {
    (void)state;
    static const char *const names[] = {"coo_int8",     "coo_int16",     "coo_int32",  "coo_int64",
                                        "coo_uint8",    "coo_uint16",    "coo_uint32", "coo_uint64",
                                        "coo_float32",  "coo_float64",   "coo_bool",   "coo_complex128",
                                        "csr_float32",  "csc_float32",   "csc_custom", "dcsr_int64",
                                        "dcsc_uint32",  "coo3_float64",  "cvec_int16", "cooc_int32",
                                        "csr_iso_int8", "csr_complex64", "dvec_int8",  "dmatc_float64",
                                        "coo_empty"};
    char bsp[256], tns[256];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(bsp, sizeof bsp, DATA "%s.bsp.npz", names[i]);
        snprintf(tns, sizeof tns, DATA "%s.expect.tns", names[i]);
        spt_tensor *a = NULL, *b = NULL;
        spt_status st = spt_read(bsp, SPT_FORMAT_AUTO, NULL, &a);
        if (st != SPT_OK) print_error("%s: %s\n", bsp, spt_last_error());
        ASSERT_OK(st);
        assert_true(spt_tensor_known_valid(a));
        ASSERT_OK(spt_read_tns(tns, NULL, &b));
        expect_same(a, b);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
    /* the same archive under a plain .npz name: recognised by its binsparse.npy member */
    spt_tensor *a = NULL, *b = NULL;
    char plain[] = "/tmp/spt_test_bspXXXXXX.npz";
    int fd = mkstemps(plain, 4);
    assert_true(fd >= 0);
    FILE *in = fopen(DATA "coo3_float64.bsp.npz", "rb"), *out = fdopen(fd, "wb");
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, got, out);
    fclose(in);
    fclose(out);
    ASSERT_OK(spt_read(plain, SPT_FORMAT_AUTO, NULL, &a));
    ASSERT_OK(spt_read_npz(plain, NULL, &b));
    expect_same(a, b);
    assert_true(spt_tensor_known_sorted(a)); /* the file's row-major order was verified and kept */
    spt_tensor_free(a);
    spt_tensor_free(b);
    unlink(plain);
}

static void round_trip(spt_dtype d, int64_t rank, const int64_t *shape, int64_t n, const int64_t *ix, spt_format f) {
    char path[] = "/tmp/spt_test_bspXXXXXX.bsp.npz";
    int fd = mkstemps(path, 8);
    assert_true(fd >= 0);
    close(fd);
    unsigned char vals[64 * 16];
    for (size_t i = 0; i < sizeof vals; i++) vals[i] = (unsigned char)(d == SPT_BOOL ? (i * 7 / 3) % 2 : i * 37 + 1);
    if (d == SPT_FLOAT32 || d == SPT_COMPLEX64)
        for (int64_t i = 0; i < 2 * n; i++) ((float *)vals)[i] = (float)i * 0.1f - 1.5f;
    if (d == SPT_FLOAT64 || d == SPT_COMPLEX128)
        for (int64_t i = 0; i < 2 * n; i++) ((double *)vals)[i] = (double)i * 0.1 - 1.5;
    spt_tensor *t = NULL, *back = NULL;
    ASSERT_OK(spt_tensor_new(d, rank, shape, n, ix, vals, NULL, &t));
    spt_status st = spt_write(t, path, f);
    if (st != SPT_OK) print_error("%s: %s\n", spt_dtype_name(d), spt_last_error());
    ASSERT_OK(st);
    ASSERT_OK(spt_read(path, SPT_FORMAT_AUTO, NULL, &back));
    expect_same(back, t);
    spt_tensor_free(t);
    spt_tensor_free(back);
    unlink(path);
}

static void test_round_trips(void **state) {
    (void)state;
    const int64_t s2[2] = {4, 5}, ix2[8] = {3, 4, 0, 2, 2, 0, 0, 1}; /* unsorted */
    const int64_t s3[3] = {2, 3, 4}, ix3[9] = {1, 2, 3, 0, 0, 0, 1, 0, 2};
    const int64_t s1[1] = {9}, ix1[3] = {8, 0, 4}, s0[1] = {0};
    for (int d = 0; d < SPT_NUM_DTYPES; d++) {
        if (d == SPT_STRING) continue;
        round_trip((spt_dtype)d, 2, s2, 4, ix2, SPT_FORMAT_BINSPARSE);
        round_trip((spt_dtype)d, 2, s2, 4, ix2, SPT_FORMAT_BINSPARSE_CSR);
        round_trip((spt_dtype)d, 2, s2, 4, ix2, SPT_FORMAT_BINSPARSE_CSC);
        round_trip((spt_dtype)d, 3, s3, 3, ix3, SPT_FORMAT_BINSPARSE);
        round_trip((spt_dtype)d, 1, s1, 3, ix1, SPT_FORMAT_BINSPARSE);
        round_trip((spt_dtype)d, 0, s0, 1, NULL, SPT_FORMAT_BINSPARSE);
    }
    round_trip(SPT_FLOAT64, 2, s2, 0, NULL, SPT_FORMAT_BINSPARSE_CSR);
    round_trip(SPT_FLOAT64, 0, s0, 0, NULL, SPT_FORMAT_BINSPARSE); /* the scalar with no stored value */
    const int64_t z[2] = {0, 7};
    round_trip(SPT_FLOAT64, 2, z, 0, NULL, SPT_FORMAT_BINSPARSE_CSC);
    spt_format f;
    assert_int_equal(spt_format_from_path("x/a.b.bsp.npz"), SPT_FORMAT_BINSPARSE);
    assert_int_equal(spt_format_from_path("bsp.npz"), SPT_FORMAT_NPZ);
    ASSERT_OK(spt_format_from_name("binsparse-csc", &f));
    assert_int_equal(f, SPT_FORMAT_BINSPARSE_CSC);
    assert_string_equal(spt_format_name(SPT_FORMAT_BINSPARSE_CSR), "binsparse-csr");
}

static void test_writer_refuses(void **state) {
    (void)state;
    const char *path = "/tmp/spt_test_bsp_refused.bsp.npz";
    unlink(path);
    const int64_t s2[2] = {4, 5}, dup[4] = {1, 2, 1, 2}, s3[3] = {2, 2, 2};
    const double v[2] = {1, 2};
    spt_tensor *t = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 2, dup, v, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_write(t, path, SPT_FORMAT_BINSPARSE));
    ASSERT_MSG("the tensor holds the index [1,2] more than once");
    ASSERT_ST(SPT_EINVAL, spt_write(t, "-", SPT_FORMAT_BINSPARSE_CSR));
    spt_tensor_free(t);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, s3, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_write(t, path, SPT_FORMAT_BINSPARSE_CSR));
    ASSERT_MSG("binsparse-csr holds matrices; the tensor has rank 3");
    spt_tensor_free(t);
    spt_str sv[1] = {{"a", 1}};
    const int64_t ix[2] = {0, 0};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s2, 1, ix, sv, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_write(t, path, SPT_FORMAT_BINSPARSE));
    spt_tensor_free(t);
    struct stat sb;
    assert_int_equal(stat(path, &sb), -1); /* nothing written */
}

static void expect_refused(const char *name, spt_status want, const char *msg) {
    char path[256];
    snprintf(path, sizeof path, DATA "bad_%s.bsp.npz", name);
    spt_tensor *t = (spt_tensor *)1;
    spt_status st = spt_read(path, SPT_FORMAT_AUTO, NULL, &t);
    if (st != want || !strstr(spt_last_error(), msg))
        print_error("%s: got %d %s\nwant: %s\n", name, st, spt_last_error(), msg);
    ASSERT_ST(want, st);
    assert_null(t);
    ASSERT_MSG(msg);
    ASSERT_MSG(path);
}

static void test_hostile(void **state) {
    (void)state;
    expect_refused("json", SPT_EPARSE, "[binsparse.npy]: byte 48 of the JSON text: expected a member name");
    expect_refused("json_trailing", SPT_EPARSE, "expected the end of the text, found 'x'");
    expect_refused("no_namespace", SPT_EPARSE, "[binsparse.npy]: binsparse: expected an object");
    expect_refused("shape_small", SPT_EPARSE,
                   "[indices_1.npy]: element 0: expected an index in [0, 3), found one beyond");
    expect_refused("shape_negative", SPT_EPARSE, "[binsparse.npy]: shape: expected a non-negative integer");
    expect_refused("shape_float", SPT_EPARSE, "[binsparse.npy]: shape: expected a non-negative integer");
    expect_refused("nnz_more", SPT_EPARSE, "[values.npy]: expected 4 elements (from the descriptor), found 3");
    expect_refused("nnz_less", SPT_EPARSE, "[values.npy]: expected 2 elements (from the descriptor), found 3");
    expect_refused("nnz_missing", SPT_EPARSE, "number_of_stored_values: expected a non-negative integer, found none");
    expect_refused("dtype_name", SPT_EPARSE, "data_types.values: expected int8..int64");
    expect_refused("dtype_mismatch", SPT_EPARSE,
                   "[indices_0.npy]: expected elements of int32 (data_types.indices_0), found int64");
    expect_refused("dtype_index_float", SPT_EPARSE, "data_types.indices_0: expected an integer type");
    expect_refused("dtype_missing", SPT_EPARSE, "data_types.indices_1: expected a type name, found none");
    expect_refused("format", SPT_EPARSE, "format: expected COO, COOR");
    expect_refused("version", SPT_EPARSE, "version: expected a version 0.x");
    expect_refused("length", SPT_EPARSE, "[indices_1.npy]: expected 3 elements (from the descriptor), found 2");
    expect_refused("member_missing", SPT_EPARSE, "expected a member values.npy, found none");
    expect_refused("negative_index", SPT_EPARSE,
                   "[indices_0.npy]: element 1: expected an index in [0, 4), found a negative one");
    expect_refused("bint8", SPT_EPARSE, "[values.npy]: element 2: expected 0 or 1 (bint8), found 2");
    expect_refused("fill_nonzero", SPT_EINVAL, "[fill_value.npy]: expected a fill value of zero");
    expect_refused("pointers_decreasing", SPT_EPARSE, "[pointers_to_1.npy]: element 2: expected a value in [2, 3]");
    expect_refused("pointers_end", SPT_EPARSE, "[pointers_to_1.npy]: expected the last element to be 3");
    expect_refused("pointers_length", SPT_EPARSE, "shape: expected dims giving 2 positions to the dense level");
    expect_refused("transpose", SPT_EPARSE, "custom.transpose: expected a permutation");
    expect_refused("deep", SPT_EPARSE, "expected nesting at most 64 deep");
    expect_refused("structure", SPT_EPARSE, "[binsparse.npy]: structure: expected absent or \"general\"");
    expect_refused("rank_sum", SPT_EPARSE, "format: expected levels whose ranks add up to the length of shape");
}

/* The file's bytes (malloc'd, *len of them). */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*len + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void spill(const char *path, const char *b, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
}

/* Members go through spt's zip reader as .npz members do: a changed byte fails the CRC-32, a cut archive
 * has no directory, deflated members (as Python's zipfile writes them) are inflated and checked; a tensor
 * of rank 64 has 67 members (an index array per mode). */
static void test_zip_checks(void **state) {
    (void)state;
    const char *path = "/tmp/spt_test_bsp_zip.bsp.npz", *bad = "/tmp/spt_test_bsp_zip_bad.bsp.npz";
    const int64_t s2[2] = {4, 5}, ix[4] = {0, 1, 3, 4};
    const double v[2] = {0.25, -7.5};
    spt_tensor *t = NULL, *back = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_write(t, path, SPT_FORMAT_BINSPARSE));
    size_t len;
    char *b = slurp(path, &len);
    char *at = memmem(b, len, &v[1], sizeof v[1]); /* the second value, in values.npy */
    assert_non_null(at);
    at[3] ^= 0x10;
    spill(bad, b, len);
    ASSERT_ST(SPT_EPARSE, spt_read(bad, SPT_FORMAT_AUTO, NULL, &back));
    assert_null(back);
    ASSERT_MSG("[values.npy]: expected the CRC-32");
    at[3] ^= 0x10;
    spill(bad, b, len / 2);
    back = (spt_tensor *)1;
    ASSERT_ST(SPT_EPARSE, spt_read(bad, SPT_FORMAT_BINSPARSE, NULL, &back));
    assert_null(back);
    ASSERT_MSG("expected a zip archive (.npz)");
    free(b);
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import zipfile, sys; a = zipfile.ZipFile(sys.argv[1]); "
             "o = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED); "
             "[o.writestr(i.filename, a.read(i), zipfile.ZIP_DEFLATED) for i in a.infolist()]; o.close()\" %s %s",
             path, bad);
    assert_int_equal(system(cmd), 0);
    ASSERT_OK(spt_read(bad, SPT_FORMAT_AUTO, NULL, &back));
    expect_same(back, t);
    spt_tensor_free(back);
    spt_tensor_free(t);
    int64_t s64[SPT_MAX_RANK], ix64[2 * SPT_MAX_RANK];
    const double v64[2] = {1, 2};
    for (int k = 0; k < SPT_MAX_RANK; k++) s64[k] = 2, ix64[k] = 0, ix64[SPT_MAX_RANK + k] = k % 2;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, SPT_MAX_RANK, s64, 2, ix64, v64, NULL, &t));
    ASSERT_OK(spt_write(t, path, SPT_FORMAT_BINSPARSE));
    ASSERT_OK(spt_read(path, SPT_FORMAT_AUTO, NULL, &back));
    expect_same(back, t);
    spt_tensor_free(back);
    spt_tensor_free(t);
    unlink(path);
    unlink(bad);
}

typedef struct sweep_ctx {
    const char *path;
    spt_tensor *t;
    spt_format f;
} sweep_ctx;

static spt_status sweep_read(void *p) {
    sweep_ctx *c = p;
    return spt_read(c->path, SPT_FORMAT_AUTO, NULL, &c->t);
}
static spt_status sweep_write(void *p) {
    sweep_ctx *c = p;
    return spt_write(c->t, "/tmp/spt_test_bsp_sweep.bsp.npz", c->f);
}
static void sweep_free(void *p) {
    sweep_ctx *c = p;
    spt_tensor_free(c->t);
    c->t = NULL;
}
static void sweep_none(void *p) { (void)p; }

/* Every allocation of the reader and the writer failing in turn: SPT_ENOMEM, nothing leaked. */
static void test_alloc_failures(void **state) {
    (void)state;
    sweep_ctx c = {DATA "csr_float32.bsp.npz", NULL, SPT_FORMAT_AUTO};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
    c = (sweep_ctx){DATA "coo3_float64.bsp.npz", NULL, SPT_FORMAT_AUTO};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
    ASSERT_OK(spt_read(DATA "coo3_float64.bsp.npz", SPT_FORMAT_AUTO, NULL, &c.t));
    c.f = SPT_FORMAT_BINSPARSE;
    assert_true(spt_test_alloc_sweep(sweep_write, sweep_none, &c) > 0);
    spt_tensor_free(c.t);
    const int64_t s2[2] = {4, 5}, ix[4] = {3, 1, 0, 4};
    const double v[2] = {0.25, -7.5};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 2, ix, v, NULL, &c.t));
    c.f = SPT_FORMAT_BINSPARSE_CSC;
    assert_true(spt_test_alloc_sweep(sweep_write, sweep_none, &c) > 0);
    spt_tensor_free(c.t);
    unlink("/tmp/spt_test_bsp_sweep.bsp.npz");
}

int main(void) {
    spt_test_alloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_package_files), cmocka_unit_test(test_round_trips), cmocka_unit_test(test_writer_refuses),
        cmocka_unit_test(test_hostile),       cmocka_unit_test(test_zip_checks),  cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
