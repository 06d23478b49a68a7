/* SPDX-License-Identifier: Apache-2.0 */
/* test_einsum.c -- spt_einsum (numpy.einsum of one sparse and one dense operand) against a brute-force
 * dense reference for every supported dtype and random subscripts (contracted, batch, summed-away and
 * free indices, explicit and implicit outputs), its strict parser, sizes, threads and allocation. */
#include "../contract_test_util.h"

/* numpy's implicit output: the letters in exactly one operand, in ASCII order. */
static void implicit_out(const char *ta, const char *tb, char *to) {
    int64_t n = 0;
    for (int c = 0; c < 128; c++) {
        bool ina = c && strchr(ta, c), inb = c && strchr(tb, c);
        if (ina != inb) to[n++] = (char)c;
    }
    to[n] = 0;
}

static void one_case(spt_dtype dt, int trial) {
    static const char pool[] = "ijkpqR";
    bool narrow = spt_dtype_size(dt) == 1;
    int64_t lsize[6];
    for (int k = 0; k < 6; k++) lsize[k] = mt_int(8) ? 1 + mt_int(3) : 0;
    /* each operand: distinct letters from the pool in random order */
    char t[2][5] = {{0}};
    int64_t shape[2][4];
    for (int op = 0; op < 2; op++) {
        int64_t r = mt_int(4), perm[6] = {0, 1, 2, 3, 4, 5};
        for (int64_t i = 5; i > 0; i--) {
            int64_t j = mt_int(i + 1), x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        for (int64_t d = 0; d < r; d++) {
            t[op][d] = pool[perm[d]];
            shape[op][d] = lsize[perm[d]];
        }
    }
    /* output: implicit, or a random subset of the letters in random order */
    char to[8] = {0}, sub[32];
    bool implicit = trial % 4 == 0;
    if (implicit) implicit_out(t[0], t[1], to);
    else {
        char all[8];
        int64_t n = 0, m = 0;
        for (int k = 0; k < 6; k++)
            if (strchr(t[0], pool[k]) || strchr(t[1], pool[k])) all[n++] = pool[k];
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = mt_int(i + 1);
            char x = all[i];
            all[i] = all[j];
            all[j] = x;
        }
        for (int64_t i = 0; i < n; i++)
            if (mt_int(3)) to[m++] = all[i];
    }
    snprintf(sub, sizeof sub, implicit ? "%s,%s" : "%s,%s->%s", t[0], t[1], to);
    int64_t orank = (int64_t)strlen(to), oshape[6];
    for (int64_t d = 0; d < orank; d++) oshape[d] = lsize[strchr(pool, to[d]) - pool];
    int64_t ra = (int64_t)strlen(t[0]), rb = (int64_t)strlen(t[1]);
    spt_tensor *a = mt_rand_tensor(dt, ra, shape[0], mt_int(narrow ? 5 : 16), !narrow, trial & 1);
    spt_dense *b = ct_rand_dense(dt, rb, shape[1]);
    spt_dense *o;
    ASSERT_OK(spt_einsum(sub, a, b, &o));
    double complex *A = mt_dense_sum(a, NULL);
    double complex *ref = calloc((size_t)mt_volume(orank, oshape) + 1, sizeof *ref);
    ct_einsum_ref(t[0], shape[0], A, t[1], shape[1], dt, spt_dense_data(b), to, ref);
    ct_assert_dense(dt, o, orank, oshape, ref, sub);
    free(ref);
    free(A);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_random(void **state) {
    (void)state;
    mt_seed(3001);
    for (int di = 0; di < MT_NNUMERIC; di++)
        for (int trial = 0; trial < 60; trial++) one_case(MT_NUMERIC[di], trial);
}

static void test_exact(void **state) {
    (void)state;
    spt_tensor *a;
    spt_dense *b, *o;
    /* a = [[1, 0, 2], [0, 3, 0]], b [3, 2] */
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, (int64_t[]){2, 3}, 3, (int64_t[]){1, 1, 0, 0, 0, 2}, (int64_t[]){3, 1, 2},
                             NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 2, (int64_t[]){3, 2}, (int64_t[]){1, 2, 3, 4, 5, 6}, &b));
    const int64_t mm[4] = {11, 14, 9, 12}, mmt[4] = {11, 9, 14, 12};
    const char *forms[] = {"ij,jk->ik", "ij,jk", " i j , j k -> i k ", "ab,bc->ac"};
    for (int f = 0; f < 4; f++) {
        ASSERT_OK(spt_einsum(forms[f], a, b, &o));
        assert_memory_equal(spt_dense_data(o), mm, sizeof mm);
        spt_dense_free(o);
    }
    ASSERT_OK(spt_einsum("ij,jk->ki", a, b, &o));
    assert_memory_equal(spt_dense_data(o), mmt, sizeof mmt);
    spt_dense_free(o);
    /* implicit output sorts: "kj,jl" -> "kl"; "Bj,jA" -> "AB" (uppercase order), i.e. the transpose */
    ASSERT_OK(spt_einsum("Bj,jA", a, b, &o));
    assert_memory_equal(spt_dense_data(o), mmt, sizeof mmt);
    spt_dense_free(o);
    /* sums: every entry, rows of a, b's column sums weighted by a's row sums */
    ASSERT_OK(spt_einsum("ij,kl->", a, b, &o));
    assert_int_equal(spt_dense_rank(o), 0);
    assert_int_equal(*(const int64_t *)spt_dense_data(o), 6 * 21);
    spt_dense_free(o);
    ASSERT_OK(spt_einsum("ij,kl->i", a, b, &o));
    assert_int_equal(((const int64_t *)spt_dense_data(o))[0], 3 * 21);
    assert_int_equal(((const int64_t *)spt_dense_data(o))[1], 3 * 21);
    spt_dense_free(o);
    spt_dense_free(b);
    /* a batch index: "ij,ij->i" (row-wise dot products) */
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 2, (int64_t[]){2, 3}, (int64_t[]){1, 2, 3, 4, 5, 6}, &b));
    ASSERT_OK(spt_einsum("ij,ij->i", a, b, &o));
    assert_int_equal(((const int64_t *)spt_dense_data(o))[0], 1 * 1 + 2 * 3);
    assert_int_equal(((const int64_t *)spt_dense_data(o))[1], 3 * 5);
    spt_dense_free(o);
    ASSERT_OK(spt_einsum("ij,ij->ij", a, b, &o)); /* the elementwise product, dense */
    const int64_t had[6] = {1, 0, 6, 0, 15, 0};
    assert_memory_equal(spt_dense_data(o), had, sizeof had);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_parse_errors(void **state) {
    (void)state;
    spt_tensor *a;
    spt_dense *b, *o = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){2, 3, 4}, 1, (int64_t[]){1, 2, 3}, &(double){1}, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 5}, &b));
    static const struct {
        const char *s, *msg;
    } bad[] = {
        {"", "one operand"},
        {"ijk", "one operand"},
        {"ijk->ik", "follows one operand"},
        {",", "has 0 subscripts"},
        {"ijk,jr,kr->ir", "unexpected ','"},
        {"ijk,jr->i,r", "unexpected ','"},
        {"ijk,jr->ir->r", "second '->'"},
        {"ijk,jr-ir", "'-' not followed"},
        {"ijk,jr-", "'-' not followed"},
        {"ijk,jr>ir", "invalid character '>'"},
        {"ijk,jr->ir-", "'-' not followed"},
        {"i.k,jr", "ellipsis"},
        {"...,jr", "ellipsis"},
        {"ijk,jr->i1r", "invalid character '1'"},
        {"ijk,j_", "invalid character '_'"},
        {"ij\tk,jr", "invalid byte 0x09"},
        {"ij\xc3\xa9,jr", "invalid byte 0xc3"},
        {"iik,jr", "repeats index 'i'"},
        {"ijk,jj", "operand 1 repeats index 'j'"},
        {"ijk,jr->irr", "output repeats index 'r'"},
        {"ijk,jr->iz", "'z' appears in no operand"},
        {"ij,jr", "operand 0 has 2 subscripts"},
        {"ijkl,jr", "operand 0 has 4 subscripts"},
        {"ijk,j", "operand 1 has 1 subscripts"},
        {"ijk,kr", "index 'k' has size 4"},
        {"ijk,ir", "index 'i' has size 2"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        o = (spt_dense *)1;
        spt_status st = spt_einsum(bad[k].s, a, b, &o);
        if (st != SPT_EINVAL || !strstr(spt_last_error(), bad[k].msg) || !strstr(spt_last_error(), "spt_einsum")) {
            print_error("\"%s\": %s: %s (want \"%s\")\n", bad[k].s, spt_status_name(st), spt_last_error(), bad[k].msg);
            fail();
        }
        assert_null(o);
    }
    /* more than 64 letters in one term */
    char longs[200];
    memset(longs, 'a', 100);
    strcpy(longs + 100, ",jr");
    ASSERT_ST(SPT_EINVAL, spt_einsum(longs, a, b, &o));
    ASSERT_MSG("more than 64");
    ASSERT_ST(SPT_EINVAL, spt_einsum(NULL, a, b, &o));
    ASSERT_ST(SPT_EINVAL, spt_einsum("ijk,jr", NULL, b, &o));
    ASSERT_ST(SPT_EINVAL, spt_einsum("ijk,jr", a, NULL, &o));
    ASSERT_ST(SPT_EINVAL, spt_einsum("ijk,jr", a, b, NULL));
    spt_dense *bf;
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, (int64_t[]){3, 5}, &bf));
    ASSERT_ST(SPT_EDTYPE, spt_einsum("ijk,jr", a, bf, &o));
    spt_dense_free(bf);
    /* an index of a outside its shape */
    spt_tensor *oob;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){2, 3, 4}, 1, (int64_t[]){2, 0, 0}, &(double){1}, NULL, &oob));
    ASSERT_ST(SPT_ERANGE, spt_einsum("ijk,jr->ir", oob, b, &o));
    spt_tensor_free(oob);
    spt_dense_free(b);
    spt_tensor_free(a);
}

/* Any volume: a huge index summed away never meets a dense dim; a huge kept one overflows cleanly. */
static void test_sizes(void **state) {
    (void)state;
    int64_t big = (int64_t)1 << 62;
    spt_tensor *a;
    spt_dense *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){big, big, 3}, 3,
                             (int64_t[]){big - 1, 5, 2, 0, big - 1, 0, 7, 7, 2}, (double[]){1, 2, 4}, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, (int64_t[]){3, 2}, (double[]){1, 2, 3, 4, 5, 6}, &b));
    ASSERT_OK(spt_einsum("ijk,kr->r", a, b, &o));
    assert_true(((const double *)spt_dense_data(o))[0] == 1 * 5 + 2 * 1 + 4 * 5);
    assert_true(((const double *)spt_dense_data(o))[1] == 1 * 6 + 2 * 2 + 4 * 6);
    spt_dense_free(o);
    o = (spt_dense *)1;
    ASSERT_ST(SPT_EOVERFLOW, spt_einsum("ijk,kr->ir", a, b, &o)); /* [2^62, 2] */
    assert_null(o);
    ASSERT_MSG("spt_einsum");
    spt_dense_free(b);
    spt_tensor_free(a);
}

static spt_status call_es(mt_call *c) { return spt_einsum("ijk,rkj->ri", c->a, c->d, &c->od); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(3002);
    spt_tensor *t = mt_rand_tensor(SPT_COMPLEX64, 3, (int64_t[]){3, 4, 5}, 12, true, false);
    spt_dense *u = ct_rand_dense(SPT_COMPLEX64, 3, (int64_t[]){2, 5, 4});
    mt_call c = {.op = call_es, .a = t, .d = u};
    mt_call_sweep(&c);
    spt_dense_free(u);
    spt_tensor_free(t);
}

static spt_status call_thr(mt_call *c) { return spt_einsum("ijk,jr->irk", c->a, c->d, &c->od); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(3003);
    spt_tensor *t = mt_big_tensor(SPT_FLOAT32, 3, (int64_t[]){200, 300, 100}, 200000, false);
    spt_dense *u = ct_rand_dense(SPT_FLOAT32, 2, (int64_t[]){300, 4});
    mt_call c = {.op = call_thr, .a = t, .d = u};
    mt_call_threads(&c);
    spt_dense_free(u);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random), cmocka_unit_test(test_exact),   cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_sizes),  cmocka_unit_test(test_threads), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
