/* SPDX-License-Identifier: Apache-2.0 */
/* test_packed.c -- compressed and archived inputs and outputs: FROSTT's .tns.gz (and .bz2, .xz, .zst,
 * a multi-member gzip as pigz writes), the SuiteSparse Matrix Collection's NAME.tar.gz holding
 * NAME/NAME.mtx beside extras, a tar with several matrices (a member must be named), corrupt and
 * truncated streams (clean errors naming the file), compressed outputs read back by the readers, and
 * binary formats refused from their first bytes. Fixtures in tests/io/data. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spt_test.h"

#define DATA "tests/io/data/"

static char dir[] = "/tmp/spt_test_packedXXXXXX";

static int setup(void **state) {
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The fixture tensor: 1 1 1 1.5 / 2 3 1 2 / 2 3 4 -1 (shape 2 x 3 x 4). */
static void check_frostt(const spt_tensor *t) {
    static const int64_t shape[] = {2, 3, 4}, ix[] = {0, 0, 0, 1, 2, 0, 1, 2, 3};
    static const double v[] = {1.5, 2, -1};
    assert_int_equal(spt_tensor_rank(t), 3);
    assert_int_equal(spt_tensor_dtype(t), SPT_FLOAT64);
    assert_memory_equal(spt_tensor_shape(t), shape, sizeof shape);
    assert_int_equal(spt_tensor_nnz(t), 3);
    assert_memory_equal(spt_tensor_indices(t), ix, sizeof ix);
    assert_memory_equal(spt_tensor_values(t), v, sizeof v);
}

static void test_compressed_tns(void **state) {
    (void)state;
    static const char *const names[] = {DATA "frostt.tns.gz", DATA "frostt.tns.bz2", DATA "frostt.tns.xz",
                                        DATA "frostt.tns.zst"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        spt_tensor *t = NULL;
        ASSERT_OK(spt_read(names[k], SPT_FORMAT_AUTO, NULL, &t)); /* the name says .tns under the suffix */
        check_frostt(t);
        spt_tensor_free(t);
        ASSERT_OK(spt_read_tns(names[k], NULL, &t)); /* the format's own reader decodes too */
        check_frostt(t);
        spt_tensor_free(t);
    }
    assert_int_equal(spt_format_from_path("x/nell-2.tns.gz"), SPT_FORMAT_TNS);
    assert_int_equal(spt_format_from_path("m.MTX.ZST"), SPT_FORMAT_MTX);
    assert_int_equal(spt_format_from_path("west0067.tar.gz"), SPT_FORMAT_AUTO);
    assert_int_equal(spt_format_from_path("x.gz"), SPT_FORMAT_AUTO);
    assert_int_equal(spt_format_from_path("dir.tns/x.gz"), SPT_FORMAT_AUTO);
}

/* gzip members one after another: the text of all of them. */
static void test_multi_member_gzip(void **state) {
    (void)state;
    spt_tensor *t = NULL;
    ASSERT_OK(spt_read(DATA "multi.tns.gz", SPT_FORMAT_AUTO, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 4);
    assert_int_equal(spt_tensor_indices(t)[9], 1);
    assert_true(((const double *)spt_tensor_values(t))[3] == 7);
    spt_tensor_free(t);
}

static void test_suitesparse_tar(void **state) {
    (void)state;
    spt_tensor *t = NULL;
    /* NAME/NAME.mtx is the matrix; NAME/NAME_b.mtx (a right-hand side) is not taken */
    ASSERT_OK(spt_read(DATA "west0067.tar.gz", SPT_FORMAT_AUTO, NULL, &t));
    static const int64_t shape[] = {3, 4}, ix[] = {0, 0, 2, 1, 1, 3};
    static const double v[] = {2.5, -1, 4};
    assert_memory_equal(spt_tensor_shape(t), shape, sizeof shape);
    assert_int_equal(spt_tensor_nnz(t), 3);
    assert_memory_equal(spt_tensor_indices(t), ix, sizeof ix);
    assert_memory_equal(spt_tensor_values(t), v, sizeof v);
    spt_tensor_free(t);
    ASSERT_OK(spt_read_mtx(DATA "west0067.tar.gz", NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 3);
    spt_tensor_free(t);
    /* the extra, by its base name or its path */
    spt_set_read_member("west0067_b.mtx");
    ASSERT_OK(spt_read(DATA "west0067.tar.gz", SPT_FORMAT_AUTO, NULL, &t));
    assert_int_equal(spt_tensor_shape(t)[0], 3);
    assert_int_equal(spt_tensor_shape(t)[1], 1);
    assert_int_equal(spt_tensor_nnz(t), 3);
    spt_tensor_free(t);
    spt_set_read_member("west0067/west0067.mtx");
    ASSERT_OK(spt_read(DATA "west0067.tar.gz", SPT_FORMAT_AUTO, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 3);
    spt_tensor_free(t);
    t = (spt_tensor *)1;
    spt_set_read_member("nope.mtx");
    ASSERT_ST(SPT_EINVAL, spt_read(DATA "west0067.tar.gz", SPT_FORMAT_AUTO, NULL, &t));
    assert_null(t);
    ASSERT_MSG("no member 'nope.mtx'");
    ASSERT_MSG("west0067/west0067.mtx, west0067/west0067_b.mtx");
    spt_set_read_member(NULL);
}

static void test_several_members(void **state) {
    (void)state;
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_read(DATA "several.tar", SPT_FORMAT_AUTO, NULL, &t));
    assert_null(t);
    ASSERT_MSG("several.tar holds several data files (a.mtx, b.mtx)");
    spt_set_read_member("b.mtx");
    ASSERT_OK(spt_read(DATA "several.tar", SPT_FORMAT_AUTO, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 3);
    spt_tensor_free(t);
    spt_set_read_member("");
    ASSERT_ST(SPT_EINVAL, spt_read(DATA "several.tar", SPT_FORMAT_AUTO, NULL, &t));
}

static void test_corrupt_and_truncated(void **state) {
    (void)state;
    spt_tensor *t = (spt_tensor *)1;
    /* one flipped bit: the deflate data or the CRC catches it */
    ASSERT_ST(SPT_EPARSE, spt_read(DATA "corrupt.tns.gz", SPT_FORMAT_AUTO, NULL, &t));
    assert_null(t);
    ASSERT_MSG("corrupt.tns.gz: corrupt or truncated gzip input");
    t = (spt_tensor *)1;
    ASSERT_ST(SPT_EPARSE, spt_read(DATA "truncated.tar.gz", SPT_FORMAT_AUTO, NULL, &t));
    assert_null(t);
    ASSERT_MSG("truncated.tar.gz: corrupt or truncated");
    /* a truncated tar that is not compressed: libarchive's message, the file named */
    char path[300];
    snprintf(path, sizeof path, "%s/cut.tar", dir);
    FILE *in = fopen(DATA "several.tar", "rb"), *out = fopen(path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[1200];
    assert_int_equal(fread(buf, 1, sizeof buf, in), sizeof buf);
    fwrite(buf, 1, sizeof buf, out);
    fclose(in);
    fclose(out);
    spt_set_read_member("b.mtx");
    ASSERT_ST(SPT_EPARSE, spt_read(path, SPT_FORMAT_AUTO, NULL, &t));
    ASSERT_MSG("cut.tar: corrupt or truncated tar input");
    spt_set_read_member(NULL);
}

/* Writers compress when the name says so; the readers read it back; a failed read writes nothing. */
static void test_compressed_outputs(void **state) {
    (void)state;
    spt_tensor *t = NULL, *back = NULL;
    ASSERT_OK(spt_read(DATA "frostt.tns.gz", SPT_FORMAT_AUTO, NULL, &t));
    static const char *const ext[] = {"tns.gz", "tns.bz2", "tns.xz", "tns.zst", "npz.gz"};
    for (size_t k = 0; k < sizeof ext / sizeof *ext; k++) {
        char path[300];
        snprintf(path, sizeof path, "%s/out.%s", dir, ext[k]);
        ASSERT_OK(spt_write(t, path, SPT_FORMAT_AUTO));
        FILE *f = fopen(path, "rb");
        unsigned char head[4] = {0};
        assert_int_equal(fread(head, 1, 4, f), 4);
        fclose(f);
        assert_true(head[0] != '#' && head[0] != 'P'); /* compressed bytes, not the text or the zip */
        ASSERT_OK(spt_read(path, SPT_FORMAT_AUTO, NULL, &back));
        check_frostt(back);
        spt_tensor_free(back);
    }
    spt_tensor *m = NULL;
    ASSERT_OK(spt_read(DATA "west0067.tar.gz", SPT_FORMAT_AUTO, NULL, &m));
    char path[300];
    snprintf(path, sizeof path, "%s/m.mtx.gz", dir);
    ASSERT_OK(spt_write_mtx(m, path));
    ASSERT_OK(spt_read(path, SPT_FORMAT_AUTO, NULL, &back));
    assert_int_equal(spt_tensor_nnz(back), 3);
    spt_tensor_free(back);
    spt_tensor_free(m);
    spt_tensor_free(t);
    /* nothing is written when the input is bad: no output, no temporary */
    snprintf(path, sizeof path, "%s/never.tns.gz", dir);
    ASSERT_ST(SPT_EPARSE, spt_read(DATA "corrupt.tns.gz", SPT_FORMAT_AUTO, NULL, &t));
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0);
}

/* A content whose name does not tell: the magic (npy, npz, Matrix Market) decides; text without one
 * is refused with the name. */
static void test_by_content(void **state) {
    (void)state;
    char path[300], cmd[700];
    spt_tensor *t = NULL;
    snprintf(path, sizeof path, "%s/matrix.data", dir);
    snprintf(cmd, sizeof cmd, "gzip -dc < " DATA "west0067.tar.gz | tar -xOf - west0067/west0067.mtx | gzip > %s",
             path);
    assert_int_equal(system(cmd), 0);
    ASSERT_OK(spt_read(path, SPT_FORMAT_AUTO, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 3);
    spt_tensor_free(t);
    snprintf(path, sizeof path, "%s/text.data", dir);
    snprintf(cmd, sizeof cmd, "gzip -dc < " DATA "frostt.tns.gz > %s", path);
    assert_int_equal(system(cmd), 0);
    t = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_read(path, SPT_FORMAT_AUTO, NULL, &t));
    assert_null(t);
    ASSERT_MSG("cannot tell the format");
    ASSERT_OK(spt_read(path, SPT_FORMAT_TNS, NULL, &t));
    check_frostt(t);
    spt_tensor_free(t);
}

/* Binary readers look at a stream's first bytes: /dev/zero is refused at once, not read to the bound. */
static void test_binary_magic(void **state) {
    (void)state;
    spt_dense *d = (spt_dense *)1;
    spt_tensor *t = (spt_tensor *)1;
    ASSERT_ST(SPT_EPARSE, spt_read_npy("/dev/zero", &d));
    assert_null(d);
    ASSERT_MSG("/dev/zero: expected a NumPy .npy file");
    ASSERT_ST(SPT_EPARSE, spt_read_npz("/dev/zero", NULL, &t));
    assert_null(t);
    ASSERT_MSG("/dev/zero: expected a zip (.npz) file");
}

/* Read `path` through a FIFO fed by a child (a pipe: the streamed parser, pieces of 16 MiB). */
static spt_status read_through_fifo(const char *path, bool mtx, spt_tensor **out) {
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *in = fopen(path, "rb"), *o = fopen(fifo, "wb");
        if (!in || !o) _exit(2);
        char buf[1 << 16];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, o);
        fclose(o);
        _exit(0);
    }
    spt_status st = mtx ? spt_read_mtx(fifo, NULL, out) : spt_read_tns(fifo, NULL, out);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return st;
}

static void expect_same(const spt_tensor *a, const spt_tensor *b) {
    assert_int_equal(spt_tensor_rank(a), spt_tensor_rank(b));
    assert_int_equal(spt_tensor_nnz(a), spt_tensor_nnz(b));
    assert_int_equal(spt_tensor_dtype(a), spt_tensor_dtype(b));
    assert_memory_equal(spt_tensor_shape(a), spt_tensor_shape(b), (size_t)spt_tensor_rank(a) * 8);
    assert_memory_equal(spt_tensor_indices(a), spt_tensor_indices(b),
                        (size_t)(spt_tensor_nnz(a) * spt_tensor_rank(a)) * 8);
    assert_memory_equal(spt_tensor_values(a), spt_tensor_values(b), (size_t)spt_tensor_nnz(a) * 8);
}

/* Texts longer than a piece (16 MiB): streamed from a FIFO and from gzip, the same tensor as mapped. */
static void test_streamed_pieces(void **state) {
    (void)state;
    const int64_t n = 1300000, shape3[3] = {100000, 7000, 300};
    int64_t *ix = malloc((size_t)n * 3 * 8);
    double *v = malloc((size_t)n * 8);
    assert_non_null(ix);
    assert_non_null(v);
    uint64_t x = 88172645463325252ull;
    for (int64_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            ix[3 * i + k] = (int64_t)(x % (uint64_t)shape3[k]);
        }
        v[i] = (double)(int64_t)(x % 2001) / 8.0 - 100;
    }
    for (int mtx = 0; mtx < 2; mtx++) {
        spt_tensor *t = NULL, *a = NULL, *b = NULL, *c = NULL;
        int64_t r = mtx ? 2 : 3;
        int64_t *ix2 = ix;
        if (mtx) { /* the first two modes */
            ix2 = malloc((size_t)n * 2 * 8);
            for (int64_t i = 0; i < n; i++) ix2[2 * i] = ix[3 * i], ix2[2 * i + 1] = ix[3 * i + 1];
        }
        ASSERT_OK(spt_tensor_new(SPT_FLOAT64, r, shape3, n, ix2, v, NULL, &t));
        char plain[300], gz[300];
        snprintf(plain, sizeof plain, "%s/big.%s", dir, mtx ? "mtx" : "tns");
        snprintf(gz, sizeof gz, "%s/big.%s.gz", dir, mtx ? "mtx" : "tns");
        ASSERT_OK(spt_write(t, plain, SPT_FORMAT_AUTO));
        ASSERT_OK(spt_write(t, gz, SPT_FORMAT_AUTO));
        struct stat sb;
        assert_int_equal(stat(plain, &sb), 0);
        assert_true(sb.st_size > (1 << 24) + (1 << 20)); /* more than one piece */
        ASSERT_OK(spt_read(plain, SPT_FORMAT_AUTO, NULL, &a));
        ASSERT_OK(read_through_fifo(plain, mtx, &b));
        ASSERT_OK(spt_read(gz, SPT_FORMAT_AUTO, NULL, &c));
        expect_same(a, b);
        expect_same(a, c);
        spt_tensor_free(a);
        spt_tensor_free(b);
        spt_tensor_free(c);
        spt_tensor_free(t);
        if (mtx) free(ix2);
    }
    free(ix);
    free(v);
}

/* spt_read_base("-", AUTO) with stdin a pipe fed by a child with the bytes of `path`. */
static spt_status read_stdin(const char *path, int base, spt_tensor **out) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        FILE *in = fopen(path, "rb");
        if (!in) _exit(2);
        char buf[1 << 16];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            if (write(p[1], buf, n) != (ssize_t)n) _exit(3);
        _exit(0);
    }
    close(p[1]);
    int saved = dup(0);
    assert_true(saved >= 0);
    assert_int_equal(dup2(p[0], 0), 0);
    close(p[0]);
    spt_status st = spt_read_base("-", SPT_FORMAT_AUTO, NULL, base, out);
    assert_int_equal(dup2(saved, 0), 0);
    close(saved);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return st;
}

/* stdin by its first decoded bytes: .npz (spooled), .npy, binsparse, Matrix Market and .tns text
 * (streamed), compressed or not; .tns counted from the base asked for; a bad start refused naming it. */
static void test_stdin_by_content(void **state) {
    (void)state;
    char path[300];
    spt_tensor *t = NULL, *f = NULL;
    ASSERT_OK(spt_read(DATA "frostt.tns.gz", SPT_FORMAT_AUTO, NULL, &f));
    ASSERT_OK(read_stdin(DATA "frostt.tns.gz", 1, &t));
    check_frostt(t);
    spt_tensor_free(t);
    ASSERT_OK(read_stdin(DATA "frostt.tns.xz", 1, &t));
    check_frostt(t);
    spt_tensor_free(t);
    /* npz.gz: compressed and zipped, decoded, then spooled */
    static const char *const exts[] = {"npz", "npy", "bsp.npz", "npz.gz", "tns.zst"};
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        snprintf(path, sizeof path, "%s/stdin.%s", dir, exts[i]);
        ASSERT_OK(spt_write(f, path, SPT_FORMAT_AUTO));
        spt_status st = read_stdin(path, 1, &t);
        if (st != SPT_OK) print_error("%s: %s\n", exts[i], spt_last_error());
        ASSERT_OK(st);
        check_frostt(t);
        spt_tensor_free(t);
    }
    const int64_t s2[2] = {3, 4}, ix2[4] = {0, 3, 2, 1};
    const double v2[2] = {0.5, -2};
    spt_tensor *m = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 2, ix2, v2, NULL, &m));
    snprintf(path, sizeof path, "%s/stdin.mtx", dir);
    ASSERT_OK(spt_write(m, path, SPT_FORMAT_AUTO));
    ASSERT_OK(read_stdin(path, 1, &t));
    spt_test_expect_tensor(t, 2, s2, 2, ix2, v2);
    spt_tensor_free(t);
    snprintf(path, sizeof path, "%s/zero.tns", dir);
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    fputs("0 3 0.5\n2 1 -2\n", o);
    fclose(o);
    ASSERT_OK(read_stdin(path, 0, &t));
    spt_test_expect_tensor(t, 2, s2, 2, ix2, v2);
    spt_tensor_free(t);
    t = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, read_stdin(path, 2, &t));
    assert_null(t);
    o = fopen(path, "w");
    assert_non_null(o);
    fputs("PK\003\004 not an archive", o);
    fclose(o);
    t = (spt_tensor *)1;
    ASSERT_ST(SPT_EPARSE, read_stdin(path, 1, &t));
    assert_null(t);
    ASSERT_MSG("<stdin>: expected a zip archive (.npz)");
    spt_tensor_free(m);
    spt_tensor_free(f);
}

typedef struct sweep_ctx {
    const char *path;
    const char *member;
    spt_tensor *t;
} sweep_ctx;

static spt_status sweep_read(void *p) {
    sweep_ctx *c = p;
    spt_status st = spt_set_read_member(c->member); /* its copy of the name is an allocation too */
    if (st != SPT_OK) return st;
    st = spt_read(c->path, SPT_FORMAT_AUTO, NULL, &c->t);
    spt_set_read_member(NULL);
    return st;
}

static void sweep_free(void *p) {
    sweep_ctx *c = p;
    spt_tensor_free(c->t);
    c->t = NULL;
}

/* Every allocation of the decoders failing in turn: SPT_ENOMEM, nothing leaked. */
static void test_alloc_failures(void **state) {
    (void)state;
    sweep_ctx c = {DATA "frostt.tns.gz", NULL, NULL};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
    c = (sweep_ctx){DATA "west0067.tar.gz", NULL, NULL};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
    c = (sweep_ctx){DATA "several.tar", "a.mtx", NULL};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
    c = (sweep_ctx){DATA "frostt.tns.xz", NULL, NULL};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
    /* names that do not tell: a compressed Matrix Market text (streamed) and a compressed .npz (spooled) */
    char path[300];
    spt_tensor *t = NULL;
    ASSERT_OK(spt_read(DATA "frostt.tns.gz", SPT_FORMAT_AUTO, NULL, &t));
    snprintf(path, sizeof path, "%s/sweep.npz.gz", dir);
    ASSERT_OK(spt_write(t, path, SPT_FORMAT_AUTO));
    spt_tensor_free(t);
    char noext[300];
    snprintf(noext, sizeof noext, "%s/sweep-npz-data", dir);
    assert_int_equal(rename(path, noext), 0);
    c = (sweep_ctx){noext, NULL, NULL};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
    char cmd[700];
    snprintf(cmd, sizeof cmd,
             "gzip -dc < " DATA "west0067.tar.gz | tar -xOf - west0067/west0067.mtx | gzip > %s/sweep-mtx-data", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(noext, sizeof noext, "%s/sweep-mtx-data", dir);
    c = (sweep_ctx){noext, NULL, NULL};
    assert_true(spt_test_alloc_sweep(sweep_read, sweep_free, &c) > 0);
}

int main(void) {
    spt_test_alloc_install();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compressed_tns),
        cmocka_unit_test(test_multi_member_gzip),
        cmocka_unit_test(test_suitesparse_tar),
        cmocka_unit_test(test_several_members),
        cmocka_unit_test(test_corrupt_and_truncated),
        cmocka_unit_test(test_compressed_outputs),
        cmocka_unit_test(test_by_content),
        cmocka_unit_test(test_binary_magic),
        cmocka_unit_test(test_stdin_by_content),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_streamed_pieces),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
