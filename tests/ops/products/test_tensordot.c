/* SPDX-License-Identifier: Apache-2.0 */
/* test_tensordot.c -- spt_tensordot (numpy.tensordot of a sparse and a dense operand) against a dense
 * brute-force reference for every supported dtype, its errors, threads and allocation failures. */
#include "../contract_test_util.h"

/* One random case: a of rank N, b of rank M, naxes pairs in random order (negative axes sometimes). */
static void one_case(spt_dtype dt, int trial) {
    bool narrow = spt_dtype_size(dt) == 1;
    int64_t N = mt_int(4), M = mt_int(4), ashape[3], bshape[3], na = mt_int((N < M ? N : M) + 1);
    for (int64_t d = 0; d < N; d++) ashape[d] = 1 + mt_int(3);
    /* distinct random modes of a and b for the pairs */
    int64_t pa[3] = {0, 1, 2}, pb[3] = {0, 1, 2}, xa[3], xb[3];
    for (int64_t i = N - 1; i > 0; i--) {
        int64_t j = mt_int(i + 1), t = pa[i];
        pa[i] = pa[j];
        pa[j] = t;
    }
    for (int64_t i = M - 1; i > 0; i--) {
        int64_t j = mt_int(i + 1), t = pb[i];
        pb[i] = pb[j];
        pb[j] = t;
    }
    char ta[4] = {0}, tb[4] = {0}, to[7] = {0};
    bool ca[3] = {false}, cb[3] = {false};
    for (int64_t d = 0; d < N; d++) ta[d] = (char)('a' + d);
    for (int64_t d = 0; d < M; d++) {
        tb[d] = (char)('p' + d);
        bshape[d] = mt_int(6) ? 1 + mt_int(3) : 0;
    }
    for (int64_t k = 0; k < na; k++) {
        ca[pa[k]] = cb[pb[k]] = true;
        bshape[pb[k]] = ashape[pa[k]];
        tb[pb[k]] = ta[pa[k]];
        xa[k] = pa[k] - (mt_int(3) == 0 ? N : 0);
        xb[k] = pb[k] - (mt_int(3) == 0 ? M : 0);
    }
    int64_t oshape[6], orank = 0;
    for (int64_t d = 0; d < N; d++)
        if (!ca[d]) {
            oshape[orank] = ashape[d];
            to[orank++] = ta[d];
        }
    for (int64_t d = 0; d < M; d++)
        if (!cb[d]) {
            oshape[orank] = bshape[d];
            to[orank++] = tb[d];
        }
    spt_tensor *a = mt_rand_tensor(dt, N, ashape, mt_int(narrow ? 5 : 16), !narrow, trial & 1);
    spt_dense *b = ct_rand_dense(dt, M, bshape);
    spt_dense *o;
    ASSERT_OK(spt_tensordot(a, b, xa, xb, na, &o));
    double complex *A = mt_dense_sum(a, NULL);
    int64_t ovol = mt_volume(orank, oshape);
    double complex *ref = calloc((size_t)ovol + 1, sizeof *ref);
    ct_einsum_ref(ta, ashape, A, tb, bshape, dt, spt_dense_data(b), to, ref);
    ct_assert_dense(dt, o, orank, oshape, ref, "tensordot");
    free(ref);
    free(A);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_random(void **state) {
    (void)state;
    mt_seed(2001);
    for (int di = 0; di < MT_NNUMERIC; di++)
        for (int trial = 0; trial < 40; trial++) one_case(MT_NUMERIC[di], trial);
}

/* A worked example: a [2, 3] matrix times b [3, 2] (axes=1), then the pairing (a's mode 0, b's mode 1). */
static void test_exact(void **state) {
    (void)state;
    spt_tensor *a;
    spt_dense *b, *o;
    /* a = [[1, 0, 2], [0, 3, 0]] with the 2 at [0, 2] stored as 1.5 + 0.5 (a duplicate) */
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 4, (int64_t[]){1, 1, 0, 2, 0, 0, 0, 2},
                             (double[]){3, 1.5, 1, 0.5}, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, (int64_t[]){3, 2}, (double[]){1, 2, 3, 4, 5, 6}, &b));
    ASSERT_OK(spt_tensordot(a, b, (int64_t[]){1}, (int64_t[]){0}, 1, &o));
    assert_int_equal(spt_dense_rank(o), 2);
    const double want[4] = {11, 14, 9, 12};
    assert_memory_equal(spt_dense_data(o), want, sizeof want);
    spt_dense_free(o);
    /* negative axes: the same pairing */
    ASSERT_OK(spt_tensordot(a, b, (int64_t[]){-1}, (int64_t[]){-2}, 1, &o));
    assert_memory_equal(spt_dense_data(o), want, sizeof want);
    spt_dense_free(o);
    spt_dense_free(b);
    /* out[j, r] = sum_i a[i, j] * c[r, i]: a's mode 0 with c's mode 1 (c is [2, 2]) */
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, (int64_t[]){2, 2}, (double[]){1, 2, 3, 4}, &b));
    ASSERT_OK(spt_tensordot(a, b, (int64_t[]){0}, (int64_t[]){1}, 1, &o));
    assert_int_equal(spt_dense_shape(o)[0], 3);
    assert_int_equal(spt_dense_shape(o)[1], 2);
    const double want2[6] = {1, 3, 6, 12, 2, 6};
    assert_memory_equal(spt_dense_data(o), want2, sizeof want2);
    spt_dense_free(o);
    /* naxes = 0: the outer product [2, 3, 2, 2]; axes may be NULL */
    ASSERT_OK(spt_tensordot(a, b, NULL, NULL, 0, &o));
    assert_int_equal(spt_dense_size(o), 24);
    assert_true(((const double *)spt_dense_data(o))[1 * 12 + 1 * 4 + 1 * 2 + 1] == 12); /* a[1,1] * b[1,1] */
    spt_dense_free(o);
    spt_dense_free(b);
    /* the full contraction: a rank-0 result */
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, (int64_t[]){2, 3}, (double[]){1, 1, 1, 1, 1, 10}, &b));
    ASSERT_OK(spt_tensordot(a, b, (int64_t[]){1, 0}, (int64_t[]){1, 0}, 2, &o));
    assert_int_equal(spt_dense_rank(o), 0);
    assert_true(*(const double *)spt_dense_data(o) == 6);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a, *bad;
    spt_dense *b, *bf, *o = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){2, 3, 4}, 1, (int64_t[]){1, 2, 3}, &(double){1}, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 5}, &b));
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, b, (int64_t[]){1}, (int64_t[]){0}, 1, NULL));
    ASSERT_ST(SPT_EINVAL, spt_tensordot(NULL, b, (int64_t[]){1}, (int64_t[]){0}, 1, &o));
    assert_null(o);
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, NULL, (int64_t[]){1}, (int64_t[]){0}, 1, &o));
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, b, NULL, (int64_t[]){0}, 1, &o));
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, b, (int64_t[]){1}, (int64_t[]){0}, -1, &o));
    ASSERT_MSG("naxes = -1");
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, b, (int64_t[]){1, 2, 0}, (int64_t[]){0, 1, 1}, 3, &o));
    ASSERT_MSG("spt_tensordot");
    ASSERT_ST(SPT_ERANGE, spt_tensordot(a, b, (int64_t[]){3}, (int64_t[]){0}, 1, &o));
    ASSERT_MSG("axes_a[0] = 3");
    ASSERT_ST(SPT_ERANGE, spt_tensordot(a, b, (int64_t[]){-4}, (int64_t[]){0}, 1, &o));
    ASSERT_MSG("axes_a[0] = -4");
    ASSERT_ST(SPT_ERANGE, spt_tensordot(a, b, (int64_t[]){1}, (int64_t[]){2}, 1, &o));
    ASSERT_MSG("axes_b[0] = 2");
    ASSERT_ST(SPT_ERANGE, spt_tensordot(a, b, (int64_t[]){1}, (int64_t[]){INT64_MIN}, 1, &o));
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, b, (int64_t[]){1, -2}, (int64_t[]){0, 1}, 2, &o));
    ASSERT_MSG("axes_a repeats mode 1");
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, b, (int64_t[]){0}, (int64_t[]){0}, 1, &o));
    ASSERT_MSG("shape mismatch");
    assert_null(o);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, (int64_t[]){3, 5}, &bf));
    ASSERT_ST(SPT_EDTYPE, spt_tensordot(a, bf, (int64_t[]){1}, (int64_t[]){0}, 1, &o));
    spt_dense_free(bf);
    /* bool has no kernel */
    spt_tensor *tb;
    ASSERT_OK(spt_tensor_new(SPT_BOOL, 1, (int64_t[]){3}, 1, (int64_t[]){1}, &(bool){true}, NULL, &tb));
    ASSERT_OK(spt_dense_new(SPT_BOOL, 1, (int64_t[]){3}, &bf));
    ASSERT_ST(SPT_EDTYPE, spt_tensordot(tb, bf, (int64_t[]){0}, (int64_t[]){0}, 1, &o));
    ASSERT_MSG("bool");
    spt_dense_free(bf);
    spt_tensor_free(tb);
    /* an index outside the shape */
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){2, 3, 4}, 1, (int64_t[]){1, 3, 0}, &(double){1}, NULL, &bad));
    ASSERT_ST(SPT_ERANGE, spt_tensordot(bad, b, (int64_t[]){1}, (int64_t[]){0}, 1, &o));
    assert_null(o);
    spt_tensor_free(bad);
    spt_dense_free(b);
    spt_tensor_free(a);
    /* a result of rank 40 + 40 */
    int64_t ones[40];
    for (int i = 0; i < 40; i++) ones[i] = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 40, ones, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 40, ones, &b));
    ASSERT_ST(SPT_EINVAL, spt_tensordot(a, b, NULL, NULL, 0, &o));
    ASSERT_MSG("rank 80");
    ASSERT_OK(spt_tensordot(a, b, (int64_t[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
                            (int64_t[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 16, &o));
    assert_int_equal(spt_dense_rank(o), 48);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
}

/* Huge free modes: the dense result cannot exist (SPT_EOVERFLOW), or cannot be allocated (SPT_ENOMEM),
 * both naming the op; a huge free mode with an empty dense side is a valid empty result. */
static void test_sizes(void **state) {
    (void)state;
    int64_t big = (int64_t)1 << 40;
    spt_tensor *a;
    spt_dense *b, *o = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){big, big, 3}, 1, (int64_t[]){big - 1, 7, 2}, &(double){2},
                             NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 2}, &b));
    ASSERT_ST(SPT_EOVERFLOW, spt_tensordot(a, b, (int64_t[]){2}, (int64_t[]){0}, 1, &o));
    ASSERT_MSG("spt_tensordot");
    assert_null(o);
    spt_dense_free(b);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 0}, &b));
    ASSERT_OK(spt_tensordot(a, b, (int64_t[]){2}, (int64_t[]){0}, 1, &o));
    assert_int_equal(spt_dense_size(o), 0);
    spt_dense_free(o);
    spt_dense_free(b);
    spt_tensor_free(a);
    /* 2^20 x 2^20 x 2 doubles (16 TiB) fit in int64 but not in memory */
    int64_t m = (int64_t)1 << 20;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){m, m, 3}, 1, (int64_t[]){1, 2, 2}, &(double){2}, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 2}, &b));
    spt_status st = spt_tensordot(a, b, (int64_t[]){2}, (int64_t[]){0}, 1, &o);
    if (st == SPT_OK) spt_dense_free(o); /* an allocator that hands out 16 TiB (overcommit): nothing to check */
    else {
        assert_int_equal(st, SPT_ENOMEM);
        ASSERT_MSG("spt_tensordot");
    }
    spt_dense_free(b);
    spt_tensor_free(a);
}

static spt_status call_td(mt_call *c) {
    return spt_tensordot(c->a, c->d, (int64_t[]){2, 0}, (int64_t[]){1, 0}, 2, &c->od);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(2002);
    int64_t s[3] = {3, 4, 5};
    spt_tensor *t = mt_rand_tensor(SPT_INT32, 3, s, 12, true, false);
    spt_dense *u = ct_rand_dense(SPT_INT32, 3, (int64_t[]){3, 5, 2});
    mt_call c = {.op = call_td, .a = t, .d = u};
    mt_call_sweep(&c);
    spt_dense_free(u);
    spt_tensor_free(t);
}

static spt_status call_thr(mt_call *c) { return spt_tensordot(c->a, c->d, (int64_t[]){1}, (int64_t[]){0}, 1, &c->od); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(2003);
    int64_t s[3] = {200, 300, 100};
    spt_tensor *t = mt_big_tensor(SPT_FLOAT64, 3, s, 200000, false);
    spt_dense *u = ct_rand_dense(SPT_FLOAT64, 2, (int64_t[]){300, 8});
    mt_call c = {.op = call_thr, .a = t, .d = u};
    mt_call_threads(&c);
    spt_dense_free(u);
    spt_tensor_free(t);
}

/* One thread, unsorted entries and a result above the cache bound (3000 x 400 float64 = 9.6 MB): the
 * band partition path; then two threads; both against a reference summed in storage order. */
static void test_bands(void **state) {
    (void)state;
    enum { M = 3000, K = 50, F = 400, NNZ = 4000 };
    int64_t *ix = malloc(sizeof(int64_t) * 2 * NNZ);
    double *v = malloc(sizeof(double) * NNZ), *bd = malloc(sizeof(double) * K * F);
    double *want = calloc((size_t)M * F, sizeof(double));
    assert_non_null(ix);
    assert_non_null(v);
    assert_non_null(bd);
    assert_non_null(want);
    uint64_t x = 88172645463325252ull;
    for (int64_t i = 0; i < NNZ; i++) { /* descending rows first, then random: not grouped by row */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ix[2 * i] = i < 10 ? M - 1 - i : (int64_t)(x % M);
        ix[2 * i + 1] = (int64_t)((x >> 20) % K);
        v[i] = (double)((int64_t)(x >> 40) % 7 - 3);
    }
    for (int64_t i = 0; i < K * F; i++) bd[i] = (double)(i % 11 - 5);
    for (int64_t i = 0; i < NNZ; i++)
        for (int64_t f = 0; f < F; f++) want[ix[2 * i] * F + f] += v[i] * bd[ix[2 * i + 1] * F + f];
    spt_tensor *a;
    spt_dense *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){M, K}, NNZ, ix, v, NULL, &a));
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, (int64_t[]){K, F}, bd, &b));
    const int saved = spt_get_num_threads();
    for (int th = 1; th <= 2; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_tensordot(a, b, (int64_t[]){1}, (int64_t[]){0}, 1, &o));
        assert_int_equal(spt_dense_size(o), (int64_t)M * F);
        assert_memory_equal(spt_dense_data(o), want, sizeof(double) * M * F);
        spt_dense_free(o);
    }
    spt_set_num_threads(saved);
    spt_dense_free(b);
    spt_tensor_free(a);
    free(want);
    free(bd);
    free(v);
    free(ix);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random), cmocka_unit_test(test_exact),   cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sizes),  cmocka_unit_test(test_threads), cmocka_unit_test(test_alloc_sweep),
        cmocka_unit_test(test_bands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
