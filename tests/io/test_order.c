/* SPDX-License-Identifier: Apache-2.0 */
/* test_order.c -- files keep their order: .tns ("# order: ..."), Matrix Market ("% spt order: ...")
 * and .npz (member spt_meta.npy) state the tensor's order and sorted/unique flags; readers restore
 * them only after checking the entries, so a false or malformed statement is ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "spt_test.h"

static char dir[] = "/tmp/spt_test_orderXXXXXX";

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

static const char *at(char *b, const char *name) {
    snprintf(b, 4096, "%s/%s", dir, name);
    return b;
}

static void write_text(const char *path, const char *s) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(s, f);
    fclose(f);
}

static void expect_order(const spt_tensor *t, const int64_t *order) {
    const int64_t *o = spt_tensor_order(t);
    if (!order) {
        assert_false(spt_tensor_known_sorted(t));
        for (int64_t k = 0; k < spt_tensor_rank(t); k++) assert_int_equal(o[k], -1);
        return;
    }
    assert_true(spt_tensor_known_sorted(t));
    for (int64_t k = 0; k < spt_tensor_rank(t); k++) assert_int_equal(o[k], order[k]);
}

/* rank 3 with a duplicate, sorted by {2,0,1}: every format that holds rank 3 keeps the order */
static void test_round_trip_rank3(void **state) {
    (void)state;
    int64_t shape[3] = {2, 3, 2}, ix[15] = {1, 2, 0, 0, 0, 0, 0, 1, 1, 1, 2, 0, 1, 0, 1};
    double v[5] = {2.5, 1, -3, 4, 0.5};
    int64_t o201[3] = {2, 0, 1};
    spt_tensor *t = NULL, *b = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 5, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, o201));
    const char *names[2] = {"r3.tns", "r3.npz"};
    for (int k = 0; k < 2; k++) {
        char p[4096];
        ASSERT_OK(spt_write(t, at(p, names[k]), SPT_FORMAT_AUTO));
        ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
        expect_order(b, o201);
        assert_memory_equal(spt_tensor_indices(b), spt_tensor_indices(t), 15 * sizeof(int64_t));
        /* and written again from what was read: the same statement */
        ASSERT_OK(spt_write(b, p, SPT_FORMAT_AUTO));
        spt_tensor_free(b);
        ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
        expect_order(b, o201);
        spt_tensor_free(b);
    }
    /* an unsorted tensor states nothing and reads back unsorted */
    spt_tensor *u = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 5, ix, v, NULL, &u));
    char p[4096];
    ASSERT_OK(spt_write(u, at(p, "u.tns"), SPT_FORMAT_AUTO));
    ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
    expect_order(b, NULL);
    spt_tensor_free(b);
    spt_tensor_free(u);
    spt_tensor_free(t);
}

static void test_round_trip_matrix(void **state) {
    (void)state;
    int64_t shape[2] = {3, 4}, ix[8] = {0, 1, 2, 0, 1, 3, 0, 3};
    int64_t v[4] = {1, 2, 3, 4};
    int64_t o10[2] = {1, 0}, o01[2] = {0, 1};
    spt_tensor *t = NULL, *b = NULL;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, shape, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, o10));
    const char *names[3] = {"m.tns", "m.mtx", "m.npz"};
    char p[4096];
    for (int k = 0; k < 3; k++) {
        ASSERT_OK(spt_write(t, at(p, names[k]), SPT_FORMAT_AUTO));
        ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
        expect_order(b, o10);
        spt_tensor_free(b);
    }
    ASSERT_OK(spt_write(t, at(p, "coo.npz"), SPT_FORMAT_NPZ_SCIPY_COO));
    ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
    expect_order(b, o10);
    spt_tensor_free(b);
    /* CSR goes out sorted row-major whatever the tensor's order, and says so */
    ASSERT_OK(spt_write(t, at(p, "csr.npz"), SPT_FORMAT_NPZ_SCIPY_CSR));
    ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
    expect_order(b, o01);
    spt_tensor_free(b);
    spt_tensor_free(t);
}

/* Statements the entries do not bear out, malformed ones, and ones outside the header: ignored. */
static void test_false_claims(void **state) {
    (void)state;
    static const struct {
        const char *text;
        bool kept;
    } cases[] = {
        {"# order: 1 0 sorted unique\n1 1 1\n2 1 2\n1 2 3\n", true}, /* by column: (1,1) (2,1) (1,2) */
        {"# order: 0 1 sorted\n1 1 1\n2 1 2\n1 2 3\n", false},       /* not row-major */
        {"# order: 1 1 sorted\n1 1 1\n", false},                     /* not a permutation */
        {"# order: 1 0\n1 1 1\n", false},                            /* no "sorted" */
        {"# order: 1 0 2 sorted\n1 1 1\n", false},                   /* too many dims */
        {"# order: 1 sorted\n1 1 1\n", false},                       /* too few */
        {"1 1 1\n# order: 1 0 sorted\n2 1 2\n", false},              /* after the data */
        {"# order: 1 0 sorted\n1 1 1\n1 1 1\n2 1 2\n", true},        /* duplicates: sorted, not unique */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char p[4096];
        write_text(at(p, "c.tns"), cases[k].text);
        spt_tensor *t = NULL;
        ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &t));
        int64_t o10[2] = {1, 0};
        expect_order(t, cases[k].kept ? o10 : NULL);
        spt_tensor_free(t);
    }
    /* Matrix Market */
    char p[4096];
    write_text(at(p, "c.mtx"),
               "%%MatrixMarket matrix coordinate integer general\n% spt order: 1 0 sorted\n3 3 2\n1 2 5\n1 1 6\n");
    spt_tensor *t = NULL;
    ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &t));
    expect_order(t, NULL);
    spt_tensor_free(t);
    write_text(p, "%%MatrixMarket matrix coordinate integer general\n% a comment\n% spt order: 1 0 sorted\n3 3 2\n2 1 "
                  "5\n1 2 6\n");
    ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &t));
    int64_t o10[2] = {1, 0};
    expect_order(t, o10);
    spt_tensor_free(t);
}

/* Replace the spt_meta.npy of archive `p` by a bytes scalar holding the 19 bytes of `claim`. */
static void restate(const char *p, const char *claim) {
    zip_t *z = zip_open(p, 0, NULL);
    assert_non_null(z);
    static char npy[128];
    const char *dict = "{'descr': '|S19', 'fortran_order': False, 'shape': (), }";
    size_t dl = strlen(dict), hl = 128 - 10 - 19;
    memset(npy, ' ', sizeof npy);
    memcpy(npy, "\x93NUMPY\x01\x00", 8);
    npy[8] = (char)hl;
    npy[9] = 0;
    memcpy(npy + 10, dict, dl);
    npy[10 + hl - 1] = '\n';
    memcpy(npy + 10 + hl, claim, 19);
    zip_source_t *s = zip_source_buffer(z, npy, sizeof npy, 0);
    assert_non_null(s);
    assert_true(zip_file_add(z, "spt_meta.npy", s, ZIP_FL_OVERWRITE) >= 0);
    assert_int_equal(zip_close(z), 0);
}

/* An .npz whose spt_meta.npy states an order its coords do not have. */
static void test_false_claim_npz(void **state) {
    (void)state;
    int64_t shape[2] = {3, 3}, ix[4] = {0, 1, 1, 0};
    double v[2] = {1, 2};
    int64_t o10[2] = {1, 0};
    spt_tensor *t = NULL, *b = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, o10)); /* (1,0) then (0,1) */
    char p[4096];
    ASSERT_OK(spt_write(t, at(p, "good.npz"), SPT_FORMAT_AUTO));
    restate(p, "order: 0 1 sorted  "); /* false: row-major */
    ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
    expect_order(b, NULL);
    spt_tensor_free(b);
    restate(p, "order: 1 0 sorted  "); /* true, in the same hand-made member */
    ASSERT_OK(spt_read(p, SPT_FORMAT_AUTO, NULL, &b));
    expect_order(b, o10);
    spt_tensor_free(b);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_rank3),
        cmocka_unit_test(test_round_trip_matrix),
        cmocka_unit_test(test_false_claims),
        cmocka_unit_test(test_false_claim_npz),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
