/* SPDX-License-Identifier: Apache-2.0 */
/* test_read_bounds.c -- readers stop at a bound: endless non-regular inputs (/dev/zero, a FIFO fed
 * forever) end with a clear error at SPT_MAX_STREAM_BYTES (binary formats sooner, at their magic);
 * .npz members whose declared shape does not match the data are refused before anything is inflated
 * (a small archive never costs much memory); NumPy's unicode ('<U3') members, as older SciPy wrote
 * `format`, are read. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include "spt_test.h"

static char dir[] = "/tmp/spt_test_boundsXXXXXX";

static int setup(void **state) {
    (void)state;
    if (!mkdtemp(dir)) return -1;
    return setenv("SPT_MAX_STREAM_BYTES", "1M", 1);
}

static int teardown(void **state) {
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_dev_zero(void **state) {
    (void)state;
    spt_tensor *t = NULL;
    spt_dense *d = NULL;
    spt_read_opts o = {0};
    ASSERT_ST(SPT_EOVERFLOW, spt_read("/dev/zero", SPT_FORMAT_TNS, &o, &t));
    ASSERT_MSG("more than 1048576 bytes");
    ASSERT_MSG("SPT_MAX_STREAM_BYTES");
    ASSERT_ST(SPT_EOVERFLOW, spt_read_mtx("/dev/zero", NULL, &t));
    /* binary formats are refused from the first bytes, before any bound */
    ASSERT_ST(SPT_EPARSE, spt_read_npy("/dev/zero", &d));
    ASSERT_MSG("expected a NumPy .npy file (its magic bytes first), found the bytes 00 00 00 00");
    ASSERT_ST(SPT_EPARSE, spt_read_npz("/dev/zero", NULL, &t));
    assert_null(t);
    assert_null(d);
    /* the bound is the environment's: 2K stops a 3 KB stream, 4K lets it through to the parser */
    assert_int_equal(setenv("SPT_MAX_STREAM_BYTES", "2K", 1), 0);
    ASSERT_ST(SPT_EOVERFLOW, spt_read("/dev/zero", SPT_FORMAT_TNS, &o, &t));
    ASSERT_MSG("more than 2048 bytes");
    assert_int_equal(setenv("SPT_MAX_STREAM_BYTES", "1M", 1), 0);
}

/* A FIFO whose writer never stops: the reader ends at the bound, with memory far below it. */
static void test_endless_fifo(void **state) {
    (void)state;
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/endless", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        FILE *f = fopen(fifo, "wb");
        if (!f) _exit(2);
        for (;;) fputs("1 1 1\n", f); /* a valid .tns line, forever */
    }
    spt_tensor *t = NULL;
    ASSERT_ST(SPT_EOVERFLOW, spt_read_tns(fifo, NULL, &t));
    ASSERT_MSG("not a regular file");
    assert_null(t);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* ---- .npz archives made here ----------------------------------------------------------------------- */

/* A .npy image: the header dict `dict` (padded) followed by `len` bytes of `data`. */
static char *npy(const char *dict, const void *data, size_t len, size_t *out_len) {
    size_t dl = strlen(dict), total_h = 10 + dl + 1, pad = (64 - total_h % 64) % 64, hl = dl + pad + 1;
    char *b = calloc(1, 10 + hl + len + 1);
    assert_non_null(b);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (char)(hl & 0xff);
    b[9] = (char)(hl >> 8);
    memcpy(b + 10, dict, dl);
    memset(b + 10 + dl, ' ', pad);
    b[10 + hl - 1] = '\n';
    if (len) memcpy(b + 10 + hl, data, len);
    *out_len = 10 + hl + len;
    return b;
}

typedef struct member {
    const char *name;
    char *bytes;
    size_t len;
} member;

static void make_npz(const char *path, member *m, int n) {
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    assert_non_null(z);
    for (int i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(z, m[i].bytes, m[i].len, 0);
        assert_non_null(s);
        zip_int64_t at = zip_file_add(z, m[i].name, s, ZIP_FL_OVERWRITE);
        assert_true(at >= 0);
        zip_set_file_compression(z, (zip_uint64_t)at, ZIP_CM_DEFLATE, 9);
    }
    assert_int_equal(zip_close(z), 0);
    for (int i = 0; i < n; i++) free(m[i].bytes);
}

/* The declared shape is huge, the data tiny: refused at the header, nothing allocated for it. */
static void test_lying_shape(void **state) {
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/lying.npz", dir);
    int64_t shp[1] = {1000000000000LL}, co[1] = {0}, da[1] = {1};
    member m[3];
    m[0].name = "shape.npy";
    m[0].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", shp, 8, &m[0].len);
    m[1].name = "coords.npy";
    m[1].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 100000000000), }", co, 8, &m[1].len);
    m[2].name = "data.npy";
    m[2].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", da, 8, &m[2].len);
    make_npz(path, m, 3);
    spt_tensor *t = NULL;
    ASSERT_ST(SPT_EPARSE, spt_read_npz(path, NULL, &t));
    ASSERT_MSG("coords.npy");
    ASSERT_MSG("expected 100000000000 elements of 8 bytes for shape [1,100000000000], found 8 bytes");
    assert_null(t);
}

/* Every member is what it claims (80 MB of zeros deflate to ~80 KB), but coords does not match data:
 * refused from the headers, before 80 MB are inflated. Checked in a child by its peak memory. */
static void test_consistent_bomb(void **state) {
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/bomb.npz", dir);
    const size_t n = 5000000;
    int64_t *zeros = calloc(2 * n, sizeof *zeros), shp[2] = {10, 10};
    double da[5] = {1, 2, 3, 4, 5};
    assert_non_null(zeros);
    member m[3];
    m[0].name = "shape.npy";
    m[0].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", shp, 16, &m[0].len);
    m[1].name = "coords.npy";
    m[1].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 5000000), }", zeros, 2 * n * 8, &m[1].len);
    m[2].name = "data.npy";
    m[2].bytes = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", da, 40, &m[2].len);
    free(zeros);
    make_npz(path, m, 3);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size < 1000000);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        struct rusage r0, r1;
        getrusage(RUSAGE_SELF, &r0);
        spt_tensor *t = NULL;
        spt_status st = spt_read_npz(path, NULL, &t);
        getrusage(RUSAGE_SELF, &r1);
        long grew_kb = r1.ru_maxrss - r0.ru_maxrss;
        char msg[600];
        int len = snprintf(msg, sizeof msg, "%d %ld %s", (int)st, grew_kb, spt_last_error());
        if (write(p[1], msg, (size_t)len) != len) _exit(3);
        _exit(0);
    }
    close(p[1]);
    char msg[600] = {0};
    ssize_t got = read(p[0], msg, sizeof msg - 1);
    close(p[0]);
    waitpid(pid, NULL, 0);
    assert_true(got > 0);
    int st = -1;
    long grew_kb = -1;
    assert_int_equal(sscanf(msg, "%d %ld", &st, &grew_kb), 2);
    assert_int_equal(st, SPT_EPARSE);
    assert_non_null(strstr(msg, "coords.npy"));
    assert_non_null(strstr(msg, "int64 [2,5000000]"));
    assert_true(grew_kb < 20000); /* well below the 80 MB the member would inflate to */
}

/* The member's header and the archive's directory disagree about its size. */
static void test_size_mismatch(void **state) {
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/short.npz", dir);
    int64_t shp[2] = {3, 3}, co[4] = {0, 1, 0, 1};
    double da[2] = {1, 2};
    member m[3];
    m[0].name = "shape.npy";
    m[0].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", shp, 16, &m[0].len);
    m[1].name = "coords.npy"; /* declares 2 x 3 but holds 2 x 2 */
    m[1].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", co, 32, &m[1].len);
    m[2].name = "data.npy";
    m[2].bytes = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", da, 16, &m[2].len);
    make_npz(path, m, 3);
    spt_tensor *t = NULL;
    ASSERT_ST(SPT_EPARSE, spt_read_npz(path, NULL, &t));
    ASSERT_MSG("coords.npy");
    ASSERT_MSG("expected 6 elements of 8 bytes for shape [2,3], found 32 bytes of data");
}

/* SciPy archives whose `format` is a NumPy unicode string ('<U3'), as SciPy wrote them for years. */
static void test_unicode_format(void **state) {
    (void)state;
    char path[4200];
    snprintf(path, sizeof path, "%s/csc_u3.npz", dir);
    int64_t shp[2] = {2, 3};
    int32_t ind[2] = {1, 0}, ptr[4] = {0, 1, 1, 2};
    double da[2] = {4.5, -1};
    uint32_t fmt[3] = {'c', 's', 'c'};
    member m[5];
    m[0].name = "format.npy";
    m[0].bytes = npy("{'descr': '<U3', 'fortran_order': False, 'shape': (), }", fmt, 12, &m[0].len);
    m[1].name = "shape.npy";
    m[1].bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", shp, 16, &m[1].len);
    m[2].name = "indices.npy";
    m[2].bytes = npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", ind, 8, &m[2].len);
    m[3].name = "indptr.npy";
    m[3].bytes = npy("{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", ptr, 16, &m[3].len);
    m[4].name = "data.npy";
    m[4].bytes = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", da, 16, &m[4].len);
    make_npz(path, m, 5);
    spt_tensor *t = NULL;
    ASSERT_OK(spt_read_npz(path, NULL, &t));
    int64_t ix[4] = {1, 0, 0, 2};
    spt_test_expect_tensor(t, 2, shp, 2, ix, da);
    spt_tensor_free(t);
    /* a unicode .npy on its own reads as UTF-8 strings (here 'é' and a 4-byte code point) */
    snprintf(path, sizeof path, "%s/u.npy", dir);
    uint32_t u[4] = {0xe9, 'x', 0x1F600, 0};
    size_t len;
    char *b = npy("{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }", u, 16, &len);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
    spt_dense *d = NULL;
    ASSERT_OK(spt_read_npy(path, &d));
    assert_int_equal(spt_dense_dtype(d), SPT_STRING);
    const spt_str *s = spt_dense_data(d);
    assert_int_equal(s[0].len, 3);
    assert_memory_equal(s[0].data, "\xc3\xa9x", 3);
    assert_int_equal(s[1].len, 4);
    assert_memory_equal(s[1].data, "\xf0\x9f\x98\x80", 4);
    spt_dense_free(d);
    /* Debian's python3-scipy ships SciPy's own test file; read it when it is there */
    const char *deb = "/usr/lib/python3/dist-packages/scipy/sparse/tests/data/csc_py3.npz";
    if (access(deb, R_OK) == 0) {
        ASSERT_OK(spt_read_npz(deb, NULL, &t));
        assert_int_equal(spt_tensor_rank(t), 2);
        spt_tensor_free(t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dev_zero),      cmocka_unit_test(test_endless_fifo),
        cmocka_unit_test(test_lying_shape),   cmocka_unit_test(test_consistent_bomb),
        cmocka_unit_test(test_size_mismatch), cmocka_unit_test(test_unicode_format),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
