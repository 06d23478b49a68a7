/* SPDX-License-Identifier: Apache-2.0 */
/* test_zerocopy.c -- .npy files and stored .npz members kept mapped instead of copied: where the bytes
 * lie, the copy flag, the mapping outliving the file's name, copy-on-write, truncation (documented as
 * SIGBUS), every truncation of a small archive, lying sizes and CRCs, a piped .npz spooled. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spt_test.h"

static char path[] = "/tmp/spt_test_zcXXXXXX";
static char npz[64], npy[64], cut[64];

/* Whether p lies in a mapping of file `name` (from /proc/self/maps). */
static int mapped_from(const void *p, const char *name) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    int found = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && (unsigned long)p >= a && (unsigned long)p < b && strstr(line, name))
            found = 1;
    }
    if (f) fclose(f);
    return found;
}

static spt_tensor *sample(spt_dtype d, int64_t n) {
    int64_t shape[3] = {50, 60, 70};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_alloc(d, 3, shape, n, &t));
    int64_t *ix = spt_tensor_indices_mut(t);
    unsigned char *v = spt_tensor_values_mut(t);
    size_t es = spt_dtype_size(d);
    for (int64_t i = 0; i < n; i++) {
        ix[3 * i] = i % 50, ix[3 * i + 1] = (i * 7) % 60, ix[3 * i + 2] = (i * 13) % 70;
        for (size_t b = 0; b < es; b++) v[i * es + b] = (unsigned char)(d == SPT_BOOL ? i & 1 : i * 31 + b);
    }
    return t;
}

static void expect_same(const spt_tensor *a, const spt_tensor *b) {
    int64_t n = spt_tensor_nnz(a);
    assert_int_equal(n, spt_tensor_nnz(b));
    assert_int_equal(spt_tensor_dtype(a), spt_tensor_dtype(b));
    assert_memory_equal(spt_tensor_indices(a), spt_tensor_indices(b), (size_t)n * 3 * sizeof(int64_t));
    assert_memory_equal(spt_tensor_values(a), spt_tensor_values(b), (size_t)n * spt_dtype_size(spt_tensor_dtype(a)));
}

/* Every numeric dtype: a stored archive is read in place, a deflated one and the copy flag copy. */
static void test_npz_in_place(void **state) {
    (void)state;
    for (int d = SPT_BOOL; d < SPT_STRING; d++) {
        spt_tensor *t = sample((spt_dtype)d, 1000), *r;
        ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
        ASSERT_OK(spt_read_npz(npz, NULL, &r));
        expect_same(t, r);
        assert_true(spt_tensor_known_valid(r));
        assert_true(mapped_from(spt_tensor_values(r), npz));
        assert_true(mapped_from(spt_tensor_indices(r), npz));
        spt_tensor_free(r);
        spt_set_read_copy(true);
        ASSERT_OK(spt_read_npz(npz, NULL, &r));
        spt_set_read_copy(false);
        expect_same(t, r);
        assert_false(mapped_from(spt_tensor_values(r), npz));
        spt_tensor_free(r);
        ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 1));
        ASSERT_OK(spt_read_npz(npz, NULL, &r));
        expect_same(t, r);
        assert_false(mapped_from(spt_tensor_values(r), npz));
        spt_tensor_free(r);
        spt_tensor_free(t);
    }
}

/* The mapping outlives the file's name; writes go to private copies, never to the file; an in-place sort
 * of a mapped tensor works. */
static void test_npz_lifetime(void **state) {
    (void)state;
    spt_tensor *t = sample(SPT_FLOAT64, 5000), *r, *again;
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    ASSERT_OK(spt_read_npz(npz, NULL, &r));
    unlink(npz);
    expect_same(t, r);
    double *v = spt_tensor_values_mut(r);
    v[0] = 12345.5;
    ASSERT_OK(spt_reorder(r, NULL));
    assert_true(spt_tensor_known_sorted(r));
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    ASSERT_OK(spt_read_npz(npz, NULL, &again)); /* a new file: unchanged by the write above */
    expect_same(t, again);
    spt_tensor_free(again);
    spt_tensor_free(r);
    spt_tensor_free(t);
}

/* Another process truncating a mapped file: the pages past the new end are gone, and touching them raises
 * SIGBUS (documented in spt.h); shown in a child process. */
static void test_truncated_under_us(void **state) {
    (void)state;
    spt_tensor *t = sample(SPT_FLOAT64, 100000);
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGBUS, SIG_DFL); /* cmocka catches it to go on with the next test */
        spt_tensor *r;
        if (spt_read_npz(npz, NULL, &r) != SPT_OK) _exit(2);
        if (truncate(npz, 0) != 0) _exit(3);
        volatile double s = 0;
        const double *v = spt_tensor_values(r);
        for (int64_t i = 0; i < spt_tensor_nnz(r); i += 512) s += v[i];
        _exit(0);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGBUS);
    spt_tensor_free(t);
}

/* .npy: every numeric dtype mapped; big endian, Fortran order or the copy flag read into memory. */
static void test_npy_in_place(void **state) {
    (void)state;
    for (int d = SPT_BOOL; d < SPT_STRING; d++) {
        int64_t shape[2] = {30, 7};
        spt_dense *a, *r;
        ASSERT_OK(spt_dense_new((spt_dtype)d, 2, shape, &a));
        unsigned char *p = spt_dense_data_mut(a);
        size_t es = spt_dtype_size((spt_dtype)d);
        for (size_t i = 0; i < 210 * es; i++) p[i] = (unsigned char)(d == SPT_BOOL ? i & 1 : i * 7);
        ASSERT_OK(spt_write_npy(a, npy));
        ASSERT_OK(spt_read_npy(npy, &r));
        assert_true(mapped_from(spt_dense_data(r), npy));
        assert_memory_equal(spt_dense_data(r), p, 210 * es);
        ((unsigned char *)spt_dense_data_mut(r))[0] ^= 1; /* copy on write */
        spt_dense_free(r);
        spt_set_read_copy(true);
        ASSERT_OK(spt_read_npy(npy, &r));
        spt_set_read_copy(false);
        assert_false(mapped_from(spt_dense_data(r), npy));
        assert_memory_equal(spt_dense_data(r), p, 210 * es); /* the file did not change */
        spt_dense_free(r);
        spt_dense_free(a);
    }
    /* a bool byte of 2 is not kept as it is: copied (as 1) */
    FILE *f = fopen(npy, "wb");
    const char hdr[] = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)sizeof hdr - 1, f), fputc(0, f);
    fwrite(hdr, 1, sizeof hdr - 1, f);
    fwrite("\x00\x02\x01", 1, 3, f);
    fclose(f);
    spt_dense *r;
    ASSERT_OK(spt_read_npy(npy, &r));
    assert_false(mapped_from(spt_dense_data(r), npy));
    assert_memory_equal(spt_dense_data(r), "\x00\x01\x01", 3);
    spt_dense_free(r);
}

static long fsize(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

static void copy_prefix(const char *from, const char *to, long n) {
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    for (long i = 0; i < n; i++) fputc(fgetc(a), b);
    fclose(a);
    fclose(b);
}

/* Every truncation of a small stored .npz and .npy is an error, never a crash or a read past the end. */
static void test_every_truncation(void **state) {
    (void)state;
    spt_tensor *t = sample(SPT_INT32, 40);
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    long n = fsize(npz);
    for (long k = 0; k < n; k++) {
        copy_prefix(npz, cut, k);
        spt_tensor *r = (spt_tensor *)1;
        ASSERT_ST(SPT_EPARSE, spt_read_npz(cut, NULL, &r));
        assert_null(r);
    }
    int64_t shape[1] = {40};
    spt_dense *a, *d;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, shape, &a));
    ASSERT_OK(spt_write_npy(a, npy));
    n = fsize(npy);
    for (long k = 0; k < n; k++) {
        copy_prefix(npy, cut, k);
        d = (spt_dense *)1;
        assert_int_not_equal(spt_read_npy(cut, &d), SPT_OK);
        assert_null(d);
    }
    spt_dense_free(a);
    spt_tensor_free(t);
}

/* Patch the 4 bytes at `at` of the file. */
static void patch32(const char *p, long at, uint32_t v) {
    int fd = open(p, O_WRONLY);
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    assert_int_equal(pwrite(fd, b, 4, at), 4);
    close(fd);
}

/* The central directory entry of the first member (coords.npy): at the offset the end record gives. */
static long dir_at(const char *p) {
    FILE *f = fopen(p, "rb");
    unsigned char e[22];
    fseek(f, -22, SEEK_END);
    assert_int_equal(fread(e, 1, 22, f), 22);
    fclose(f);
    return (long)(e[16] | e[17] << 8 | e[18] << 16 | (uint32_t)e[19] << 24);
}

static void expect_npz_err(const char *msg) {
    spt_tensor *r = (spt_tensor *)1;
    ASSERT_ST(SPT_EPARSE, spt_read_npz(npz, NULL, &r));
    assert_null(r);
    if (!strstr(spt_last_error(), msg)) print_error("got: %s\nwant: %s\n", spt_last_error(), msg);
    ASSERT_MSG(msg);
}

/* Lying sizes and CRCs: the directory's sizes against the local header and the .npy header, a stored
 * member whose bytes do not match its CRC-32 (checked on the mapped bytes too: one pass). */
static void test_lies(void **state) {
    (void)state;
    spt_tensor *t = sample(SPT_FLOAT64, 64);
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    long d = dir_at(npz);
    patch32(npz, d + 20, 100), patch32(npz, d + 24, 100); /* coords.npy claims 100 bytes */
    expect_npz_err("[coords.npy]: expected a 118-byte .npy header, found 90 bytes");
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    patch32(npz, d + 20, 1u << 30), patch32(npz, d + 24, 1u << 30); /* beyond the file */
    expect_npz_err("a malformed directory entry 0");
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    patch32(npz, d + 24, 5000); /* stored, but sizes differ */
    expect_npz_err("expected at most");
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 0));
    patch32(npz, d + 16, 0x12345678); /* the CRC */
    expect_npz_err("[coords.npy]: expected the CRC-32 12345678 of the directory");
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 1));
    d = dir_at(npz);
    patch32(npz, d + 16, 0x12345678);
    expect_npz_err("[coords.npy]: expected the CRC-32 12345678 of the directory, found");
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 1));
    patch32(npz, d + 10, 12); /* bzip2 */
    expect_npz_err("expected a stored or deflated member, found compression method 12");
    spt_tensor_free(t);
}

/* A .npz through a pipe is spooled to a temporary file and read like the file. */
static void test_pipe(void **state) {
    (void)state;
    spt_tensor *t = sample(SPT_FLOAT32, 30000), *r;
    ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, 1));
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        FILE *f = fopen(npz, "rb");
        char b[4096];
        size_t k;
        while ((k = fread(b, 1, sizeof b, f)) > 0)
            if (write(p[1], b, k) != (ssize_t)k) _exit(1);
        _exit(0);
    }
    close(p[1]);
    char dev[64];
    snprintf(dev, sizeof dev, "/dev/fd/%d", p[0]);
    ASSERT_OK(spt_read_npz(dev, NULL, &r));
    close(p[0]);
    waitpid(pid, NULL, 0);
    expect_same(t, r);
    spt_tensor_free(r);
    spt_tensor_free(t);
}

static spt_status sweep_read(void *c) { return spt_read_npz(npz, NULL, (spt_tensor **)c); }
static void sweep_clean(void *c) {
    spt_tensor_free(*(spt_tensor **)c);
    *(spt_tensor **)c = NULL;
}

/* Allocation failures while reading a mapped archive: SPT_ENOMEM, nothing leaked, the mapping released. */
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install(); /* before anything is allocated: its blocks carry the counter's header */
    spt_tensor *t = sample(SPT_FLOAT64, 100), *r = NULL;
    for (int level = 0; level <= 1; level++) {
        ASSERT_OK(spt_write_npz_level(t, npz, SPT_FORMAT_NPZ, level));
        assert_true(spt_test_alloc_sweep(sweep_read, sweep_clean, &r) > 0);
        spt_test_alloc_fail_at(-1);
    }
    spt_tensor_free(t);
}

static int setup(void **state) {
    (void)state;
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    close(fd);
    snprintf(npz, sizeof npz, "%s.npz", path);
    snprintf(npy, sizeof npy, "%s.npy", path);
    snprintf(cut, sizeof cut, "%s.cut", path);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    unlink(path), unlink(npz), unlink(npy), unlink(cut);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npz_in_place),
        cmocka_unit_test(test_npz_lifetime),
        cmocka_unit_test(test_truncated_under_us),
        cmocka_unit_test(test_npy_in_place),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_lies),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
