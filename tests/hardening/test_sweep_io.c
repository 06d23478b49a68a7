/* SPDX-License-Identifier: Apache-2.0 */
/* test_sweep_io.c -- the allocation-failure sweep over every reader and writer of spt.h FILE FORMATS.
 * Readers: ENOMEM, no leak, out NULL. Writers: ENOMEM, no leak, and no file left behind (neither the
 * target nor a temporary: the directory holds exactly what it held before). */
#include <dirent.h>
#include <unistd.h>

#include "sweep.h"

static char dir[256];

static char *path_of(const char *name) {
    static char buf[4][512];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static int dir_entries(void) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* Writers: the target is removed before each run; after a failure nothing new may exist. */
#define WRITE_CASE(name, min, file, call)                                                                              \
    static spt_status case_##name(void *ctx) {                                                                         \
        (void)ctx;                                                                                                     \
        spt_tensor *t = NULL;                                                                                          \
        const char *target = path_of(file);                                                                            \
        remove(target);                                                                                                \
        int before = dir_entries();                                                                                    \
        spt_status st = sw_f64(&t);                                                                                    \
        if (st != SPT_OK) return st;                                                                                   \
        st = (call);                                                                                                   \
        if (st != SPT_OK && dir_entries() != before) {                                                                 \
            print_error("%s failed (%s) but left a file behind\n", #name, spt_status_name(st));                        \
            st = SPT_EINTERNAL;                                                                                        \
        }                                                                                                              \
        spt_tensor_free(t);                                                                                            \
        return st;                                                                                                     \
    }                                                                                                                  \
    SWEEP(name, min)

WRITE_CASE(write_tns, 1, "w.tns", spt_write_tns(t, target))
WRITE_CASE(write_mtx, 1, "w.mtx", spt_write_mtx(t, target))
WRITE_CASE(write_npz, 1, "w.npz", spt_write_npz(t, target, SPT_FORMAT_NPZ))
WRITE_CASE(write_npz_coo, 1, "wc.npz", spt_write_npz(t, target, SPT_FORMAT_NPZ_SCIPY_COO))
WRITE_CASE(write_npz_csr, 1, "wr.npz", spt_write_npz(t, target, SPT_FORMAT_NPZ_SCIPY_CSR))
WRITE_CASE(write_auto_npy, 1, "w.npy", spt_write(t, target, SPT_FORMAT_AUTO))
WRITE_CASE(write_spy_png, 1, "w.png", spt_write_spy_png(t, 0, 1, 0, target))

static spt_status case_write_npy(void *ctx) {
    (void)ctx;
    int64_t sh[1] = {3};
    spt_str s[3] = {{"ab", 2}, {"", 0}, {"xyz", 3}};
    spt_dense *d = NULL;
    const char *target = path_of("d.npy");
    remove(target);
    int before = dir_entries();
    spt_status st = spt_dense_new_from(SPT_STRING, 1, sh, s, &d);
    if (st != SPT_OK) return st;
    st = spt_write_npy(d, target);
    if (st != SPT_OK && dir_entries() != before) st = SPT_EINTERNAL;
    spt_dense_free(d);
    return st;
}
SWEEP(write_npy, 1)

/* binsparse stores each index once: the first three entries of sw_f64, before its repeated one */
static spt_status sw_unique(spt_tensor **t) {
    return spt_tensor_new(SPT_FLOAT64, 2, sw_shape2, 3, sw_ix_unsorted, sw_vals, NULL, t);
}

static spt_status write_bsp(const char *file, spt_format f) {
    spt_tensor *t = NULL;
    const char *target = path_of(file);
    remove(target);
    int before = dir_entries();
    spt_status st = sw_unique(&t);
    if (st != SPT_OK) return st;
    st = spt_write(t, target, f);
    if (st != SPT_OK && dir_entries() != before) st = SPT_EINTERNAL;
    spt_tensor_free(t);
    return st;
}
static spt_status case_write_binsparse(void *ctx) { return (void)ctx, write_bsp("w.bsp.npz", SPT_FORMAT_BINSPARSE); }
SWEEP(write_binsparse, 1)
static spt_status case_write_binsparse_csc(void *ctx) {
    return (void)ctx, write_bsp("wc.bsp.npz", SPT_FORMAT_BINSPARSE_CSC);
}
SWEEP(write_binsparse_csc, 1)

/* Readers read files written once (with the plain allocator) by the setup. */
#define READ_CASE(name, min, call)                                                                                     \
    static spt_status case_##name(void *ctx) {                                                                         \
        (void)ctx;                                                                                                     \
        spt_tensor *t = SENT;                                                                                          \
        spt_status st = (call);                                                                                        \
        OUTCHK(st, t);                                                                                                 \
        if (st == SPT_OK) spt_tensor_free(t);                                                                          \
        return st;                                                                                                     \
    }                                                                                                                  \
    SWEEP(name, min)

READ_CASE(read_tns, 1, spt_read_tns(path_of("r.tns"), NULL, &t))
READ_CASE(read_tns_shape, 1,
          spt_read_tns(path_of("r.tns"), &(spt_read_opts){.rank = 3, .shape = (const int64_t[]){3, 4, 2}}, &t))
READ_CASE(read_mtx, 1, spt_read_mtx(path_of("r.mtx"), NULL, &t))
READ_CASE(read_mtx_sym, 1, spt_read_mtx(path_of("s.mtx"), NULL, &t))
READ_CASE(read_mtx_array, 1, spt_read_mtx(path_of("a.mtx"), NULL, &t))
READ_CASE(read_npz, 1, spt_read_npz(path_of("r.npz"), NULL, &t))
READ_CASE(read_npz_csr, 1, spt_read_npz(path_of("r-csr.npz"), NULL, &t))
READ_CASE(read_auto_npy, 1, spt_read(path_of("r.npy"), SPT_FORMAT_AUTO, NULL, &t))
READ_CASE(read_binsparse, 1, spt_read(path_of("r.bsp.npz"), SPT_FORMAT_AUTO, NULL, &t))
READ_CASE(read_binsparse_dcsr, 1,
          spt_read("tests/io/data/binsparse/dcsr_int64.bsp.npz", SPT_FORMAT_BINSPARSE, NULL, &t))

static const char tns_text[] = "# a comment\n1 1 1 1.5\n3 4 2 -2\n2 2 1 7\n";

static spt_status case_parse_tns(void *ctx) {
    (void)ctx;
    spt_tensor *t = SENT;
    spt_status st = spt_parse_tns(tns_text, sizeof tns_text - 1, "mem.tns", NULL, &t);
    OUTCHK(st, t);
    if (st == SPT_OK) spt_tensor_free(t);
    return st;
}
SWEEP(parse_tns, 1)

static spt_status case_read_mtx_dense(void *ctx) {
    (void)ctx;
    spt_dense *d = SENT;
    spt_status st = spt_read_mtx_dense(path_of("a.mtx"), NULL, &d);
    OUTCHK(st, d);
    if (st == SPT_OK) spt_dense_free(d);
    return st;
}
SWEEP(read_mtx_dense, 1)

static spt_status case_read_npy(void *ctx) {
    (void)ctx;
    spt_dense *d = SENT;
    spt_status st = spt_read_npy(path_of("r.npy"), &d);
    OUTCHK(st, d);
    if (st == SPT_OK) spt_dense_free(d);
    return st;
}
SWEEP(read_npy, 1)

static void write_text(const char *name, const char *text) {
    FILE *f = fopen(path_of(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/spt-sweep-io-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    write_text("r.tns", tns_text);
    write_text("r.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 3\n1 1 1.5\n2 3 -2\n3 4 1e10\n");
    write_text("s.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 5\n2 1 7\n3 2 -1\n");
    write_text("a.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n0\n4\n5\n0\n");
    spt_tensor *t = NULL;
    if (sw_f64(&t) != SPT_OK) return -1;
    int64_t sh[2] = {2, 3};
    double v[6] = {1, 0, 2, 0, 0, 3};
    spt_dense *d = NULL;
    if (spt_write_npz(t, path_of("r.npz"), SPT_FORMAT_NPZ) != SPT_OK ||
        spt_write_npz(t, path_of("r-csr.npz"), SPT_FORMAT_NPZ_SCIPY_CSR) != SPT_OK ||
        spt_dense_new_from(SPT_FLOAT64, 2, sh, v, &d) != SPT_OK || spt_write_npy(d, path_of("r.npy")) != SPT_OK)
        return -1;
    spt_dense_free(d);
    spt_tensor_free(t);
    if (sw_unique(&t) != SPT_OK || spt_write(t, path_of("r.bsp.npz"), SPT_FORMAT_BINSPARSE_CSR) != SPT_OK) return -1;
    spt_tensor_free(t);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') remove(path_of(e->d_name));
    if (d) closedir(d);
    rmdir(dir);
    return 0;
}

int main(void) {
    SWEEP_MAIN_INIT();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_tns),
        cmocka_unit_test(test_read_tns),
        cmocka_unit_test(test_read_tns_shape),
        cmocka_unit_test(test_write_tns),
        cmocka_unit_test(test_read_mtx),
        cmocka_unit_test(test_read_mtx_sym),
        cmocka_unit_test(test_read_mtx_array),
        cmocka_unit_test(test_read_mtx_dense),
        cmocka_unit_test(test_write_mtx),
        cmocka_unit_test(test_read_npy),
        cmocka_unit_test(test_write_npy),
        cmocka_unit_test(test_read_npz),
        cmocka_unit_test(test_read_npz_csr),
        cmocka_unit_test(test_write_npz),
        cmocka_unit_test(test_write_npz_coo),
        cmocka_unit_test(test_write_npz_csr),
        cmocka_unit_test(test_read_auto_npy),
        cmocka_unit_test(test_write_auto_npy),
        cmocka_unit_test(test_write_spy_png),
        cmocka_unit_test(test_write_binsparse),
        cmocka_unit_test(test_write_binsparse_csc),
        cmocka_unit_test(test_read_binsparse),
        cmocka_unit_test(test_read_binsparse_dcsr),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
