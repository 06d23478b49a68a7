/* SPDX-License-Identifier: Apache-2.0 */
/* test_spgemm.c -- spt_sparse_sparse_matmul (rank 2 and batched rank 3) against a dense reference. */
#include "../math_test_util.h"
#include "ops/products/spgemm.h"

/* Dense reference of op(A) x op(B) over the output cells (row-major), and which cells some product
 * reaches. */
static void ref_product(const spt_tensor *a, const spt_tensor *b, bool adja, bool adjb, double complex **val,
                        bool **hit) {
    int64_t r = spt_tensor_rank(a), P = r == 3 ? spt_tensor_shape(a)[0] : 1;
    const int64_t *as = spt_tensor_shape(a) + r - 2, *bs = spt_tensor_shape(b) + r - 2;
    int64_t M = as[adja], K = as[1 - adja], N = bs[1 - adjb];
    double complex *da = mt_dense_sum(a, NULL), *db = mt_dense_sum(b, NULL);
    bool *ca = calloc((size_t)(P * as[0] * as[1] + 1), 1), *cb = calloc((size_t)(P * bs[0] * bs[1] + 1), 1);
    for (int64_t i = 0; i < spt_tensor_nnz(a); i++) ca[mt_offset(a, i)] = true;
    for (int64_t i = 0; i < spt_tensor_nnz(b); i++) cb[mt_offset(b, i)] = true;
    double complex *o = calloc((size_t)(P * M * N + 1), sizeof *o);
    bool *h = calloc((size_t)(P * M * N + 1), 1);
    for (int64_t p = 0; p < P; p++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++)
                for (int64_t k = 0; k < K; k++) {
                    int64_t ia = p * as[0] * as[1] + (adja ? k * as[1] + m : m * as[1] + k);
                    int64_t ib = p * bs[0] * bs[1] + (adjb ? n * bs[1] + k : k * bs[1] + n);
                    if (!ca[ia] || !cb[ib]) continue;
                    double complex x = adja ? conj(da[ia]) : da[ia], y = adjb ? conj(db[ib]) : db[ib];
                    o[(p * M + m) * N + n] += x * y;
                    h[(p * M + m) * N + n] = true;
                }
    free(da);
    free(db);
    free(ca);
    free(cb);
    *val = o;
    *hit = h;
}

static void check_product(const spt_tensor *a, const spt_tensor *b, bool adja, bool adjb, bool keep,
                          const spt_tensor *o) {
    spt_dtype dt = spt_tensor_dtype(a);
    int64_t r = spt_tensor_rank(a);
    double complex *ref;
    bool *hit;
    ref_product(a, b, adja, adjb, &ref, &hit);
    assert_int_equal(spt_tensor_rank(o), r);
    assert_true(spt_tensor_known_valid(o));
    assert_true(spt_tensor_is_row_major(o, true));
    int64_t vol = spt_tensor_volume(o), j = 0;
    for (int64_t i = 0; i < spt_tensor_nnz(o); i++) {
        int64_t off = mt_offset(o, i);
        if (i) assert_true(off > mt_offset(o, i - 1)); /* sorted, unique */
        for (; j < off; j++) /* every skipped cell is absent from the reference pattern (or zero) */
            assert_true(!hit[j] || (!keep && mt_close(dt, 0, ref[j]) && ref[j] == 0));
        j = off + 1;
        assert_true(hit[off]);
        double complex got = mt_get(dt, spt_tensor_values(o), i);
        mt_assert_close(dt, got, ref[off], "spgemm", i);
        if (!keep) assert_true(got != 0);
    }
    for (; j < vol; j++) assert_true(!hit[j] || (!keep && ref[j] == 0));
    free(ref);
    free(hit);
}

static void test_example(void **state) {
    (void)state;
    /* A = [[1,0,2],[0,3,0]], B = [[1,0],[0,0],[4,5]] -> [[9,10],[0,0]] */
    int64_t sa[2] = {2, 3}, sb[2] = {3, 2}, ia[6] = {0, 0, 0, 2, 1, 1}, ib[6] = {0, 0, 2, 0, 2, 1};
    double va[3] = {1, 2, 3}, vb[3] = {1, 4, 5};
    spt_tensor *a, *b, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, sa, 3, ia, va, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, sb, 3, ib, vb, NULL, &b));
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){2, 2}, 2, (int64_t[]){0, 0, 0, 1}, (double[]){9, 10});
    spt_tensor_free(o);
    /* a cancelling sum is dropped, or kept when asked: A = [[1, -1]], B = [[1],[1]] */
    spt_tensor_free(a);
    spt_tensor_free(b);
    int64_t s12[2] = {1, 2}, s21[2] = {2, 1}, i12[4] = {0, 0, 0, 1}, i21[4] = {0, 0, 1, 0};
    double v12[2] = {1, -1}, v21[2] = {1, 1};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s12, 2, i12, v12, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s21, 2, i21, v21, NULL, &b));
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, true, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){1, 1}, 1, (int64_t[]){0, 0}, (double[]){0});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_complex_adjoint(void **state) {
    (void)state;
    /* A^H B for A = [[i]], B = [[2]] is -2i; A B^H with B = [[i]] is i * -i = 1 */
    int64_t s[2] = {1, 1}, ix[2] = {0, 0};
    double complex va = I, vb = 2, vc = I;
    spt_tensor *a, *b, *c, *o;
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX128, 2, s, 1, ix, &va, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX128, 2, s, 1, ix, &vb, NULL, &b));
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX128, 2, s, 1, ix, &vc, NULL, &c));
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, true, false, false, &o));
    assert_true(((const double complex *)spt_tensor_values(o))[0] == -2 * I);
    spt_tensor_free(o);
    ASSERT_OK(spt_sparse_sparse_matmul(a, c, false, true, false, &o));
    assert_true(((const double complex *)spt_tensor_values(o))[0] == 1);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(c);
}

/* Random small operands of every dtype, both ranks, all adjoint combinations, sorted or not, with
 * duplicates for the wide types. */
static void test_random_all_dtypes(void **state) {
    (void)state;
    mt_seed(20);
    for (int di = 0; di < MT_NNUMERIC; di++) {
        spt_dtype dt = MT_NUMERIC[di];
        bool narrow = spt_dtype_size(dt) == 1;
        for (int trial = 0; trial < 24; trial++) {
            int64_t r = trial % 2 ? 3 : 2, P = 1 + mt_int(3), M = mt_int(5), K = mt_int(narrow ? 3 : 6), N = mt_int(6);
            bool adja = trial & 2, adjb = trial & 4, keep = trial & 8, sorted = trial & 16;
            int64_t sa[3] = {P, adja ? K : M, adja ? M : K}, sb[3] = {P, adjb ? N : K, adjb ? K : N};
            spt_tensor *a, *b;
            if (r == 3) {
                a = mt_rand_tensor(dt, 3, sa, 1 + mt_int(12), !narrow, sorted);
                b = mt_rand_tensor(dt, 3, sb, 1 + mt_int(12), !narrow, sorted);
            } else {
                int64_t a2[2] = {adja ? K : M, adja ? M : K}, b2[2] = {adjb ? N : K, adjb ? K : N};
                a = mt_rand_tensor(dt, 2, a2, 1 + mt_int(12), !narrow, sorted);
                b = mt_rand_tensor(dt, 2, b2, 1 + mt_int(12), !narrow, sorted);
            }
            spt_tensor *o;
            ASSERT_OK(spt_sparse_sparse_matmul(a, b, adja, adjb, keep, &o));
            check_product(a, b, adja, adjb, keep, o);
            spt_tensor_free(o);
            spt_tensor_free(a);
            spt_tensor_free(b);
        }
    }
}

/* Larger float64 operands: hashed rows (wide output, little work), dense rows with a sort, dense rows
 * with a scan, and the radix sort of a row's columns. */
static void test_accumulators(void **state) {
    (void)state;
    mt_seed(7);
    const int64_t cases[][4] = {
        {30, 40, 5000, 400}, {20, 50, 300, 900}, {10, 200, 64, 3000}, {40, 8, 200000, 300}, {20, 50, 1000, 1250}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t sa[2] = {cases[c][0], cases[c][1]}, sb[2] = {cases[c][1], cases[c][2]};
        spt_tensor *a = mt_rand_tensor(SPT_FLOAT64, 2, sa, cases[c][0] * 4, false, c % 2);
        spt_tensor *b = mt_big_tensor(SPT_FLOAT64, 2, sb, cases[c][3], c % 2);
        spt_tensor *o;
        ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
        if (cases[c][2] * cases[c][0] < 5000000) check_product(a, b, false, false, false, o);
        spt_tensor_free(o);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
}

/* An outer product (a column times a row): the output bound exceeds 64 entries per input entry, so the
 * chunks write into buffers of their own (the other path). */
static spt_tensor *column(int64_t m, int64_t val_base) {
    spt_tensor *t;
    ASSERT_OK(spt_tensor_alloc(SPT_FLOAT64, 2, (int64_t[]){m, 1}, m, &t));
    for (int64_t i = 0; i < m; i++) {
        spt_tensor_indices_mut(t)[2 * i] = i;
        ((double *)spt_tensor_values_mut(t))[i] = (double)(val_base + i % 7);
    }
    return t;
}

static spt_status call_outer(mt_call *c) { return spt_sparse_sparse_matmul(c->a, c->b, false, true, false, &c->o); }

static void test_outer_product(void **state) {
    (void)state;
    spt_tensor *a = column(200, 1), *b = column(300, -3), *o;
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, true, false, &o));
    check_product(a, b, false, true, false, o);
    spt_set_num_threads(2);
    mt_call c = {.op = call_outer, .a = a, .b = b};
    mt_call_threads(&c);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_test_alloc_install();
    a = column(150, 1);
    b = column(150, 2);
    mt_call c2 = {.op = call_outer, .a = a, .b = b};
    mt_call_sweep(&c2);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_empty_and_huge(void **state) {
    (void)state;
    spt_tensor *a, *b, *o;
    /* K = 0 and N = 0 */
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, (int64_t[]){3, 0}, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, (int64_t[]){0, 4}, 0, NULL, NULL, NULL, &b));
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){3, 4}, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    /* huge sparse dims: nothing proportional to the dims is allocated */
    int64_t big = (int64_t)1 << 31, ia[4] = {big - 1, 2, 5, 3}, ib[4] = {2, big - 7, 3, 0};
    int64_t va[2] = {3, 4}, vb[2] = {5, 6};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, (int64_t[]){big, 4}, 2, ia, va, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, (int64_t[]){4, big}, 2, ib, vb, NULL, &b));
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    spt_test_expect_tensor(o, 2, (int64_t[]){big, big}, 2, (int64_t[]){5, 0, big - 1, big - 7}, (int64_t[]){24, 15});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    /* a huge inner dimension: A's columns find B's rows by a binary search (no row map of 2^40) */
    int64_t K = (int64_t)1 << 40, ja[6] = {0, K - 1, 0, 7, 1, 5}, jb[6] = {7, 2, K - 1, 1, 9, 0};
    int64_t wa[3] = {2, 3, 4}, wb[3] = {5, 6, 7};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, (int64_t[]){2, K}, 3, ja, wa, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, (int64_t[]){K, 3}, 3, jb, wb, NULL, &b));
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    /* row 0: (K-1) -> b (K-1, 1) = 6: 2 * 6 = 12; (7) -> b (7, 2) = 5: 3 * 5 = 15; row 1: column 5 has no b row */
    spt_test_expect_tensor(o, 2, (int64_t[]){2, 3}, 2, (int64_t[]){0, 1, 0, 2}, (int64_t[]){12, 15});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a, *b, *c, *o = (spt_tensor *)1;
    int64_t ix[2] = {0, 0}, bad[2] = {0, 9};
    double v = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 1, ix, &v, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 1, ix, &v, NULL, &b));
    ASSERT_ST(SPT_EINVAL, spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    assert_null(o);
    ASSERT_MSG("inner dimension does not match: 3 vs. 2");
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, true, false, &o)); /* A B^T: fine */
    spt_tensor_free(o);
    ASSERT_ST(SPT_EINVAL, spt_sparse_sparse_matmul(NULL, b, false, false, false, &o));
    ASSERT_ST(SPT_EINVAL, spt_sparse_sparse_matmul(a, b, false, false, false, NULL));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, (int64_t[]){3, 3}, 1, ix, &(float){1}, NULL, &c));
    ASSERT_ST(SPT_EDTYPE, spt_sparse_sparse_matmul(a, c, false, false, false, &o));
    spt_tensor_free(c);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, (int64_t[]){3}, 1, ix, &v, NULL, &c));
    ASSERT_ST(SPT_EINVAL, spt_sparse_sparse_matmul(c, c, false, false, false, &o));
    ASSERT_MSG("rank 2 or 3");
    ASSERT_ST(SPT_EINVAL, spt_sparse_sparse_matmul(a, c, false, false, false, &o));
    ASSERT_MSG("same rank");
    spt_tensor_free(c);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){3, 4}, 1, bad, &v, NULL, &c));
    ASSERT_ST(SPT_ERANGE, spt_sparse_sparse_matmul(a, c, false, false, false, &o));
    ASSERT_MSG("out of bounds");
    spt_tensor_free(c);
    ASSERT_OK(spt_tensor_new(SPT_BOOL, 2, (int64_t[]){3, 3}, 1, ix, &(bool){true}, NULL, &c));
    ASSERT_ST(SPT_EDTYPE, spt_sparse_sparse_matmul(c, c, false, false, false, &o));
    spt_tensor_free(c);
    spt_tensor_free(a);
    spt_tensor_free(b);
    /* output volume overflow */
    int64_t big = (int64_t)1 << 40;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){big, 2}, 1, ix, &v, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, big}, 1, ix, &v, NULL, &b));
    ASSERT_ST(SPT_EOVERFLOW, spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    ASSERT_MSG("does not fit");
    spt_tensor_free(a);
    spt_tensor_free(b);
    /* batch mismatch */
    int64_t i3[3] = {0, 0, 0};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){2, 2, 2}, 1, i3, &v, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, (int64_t[]){3, 2, 2}, 1, i3, &v, NULL, &b));
    ASSERT_ST(SPT_EINVAL, spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    ASSERT_MSG("batch sizes differ: 2 vs 3");
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* One output row of `flops` products: A = [1 x flops] of ones, B [flops x N] with entry (k, col(k)),
 * valued so that the summation order shows in the result (1e16, 1, -1e16, ...). */
static void one_row(int64_t flops, int64_t N, int64_t spread, spt_tensor **a, spt_tensor **b) {
    ASSERT_OK(spt_tensor_alloc(SPT_FLOAT64, 2, (int64_t[]){1, flops}, flops, a));
    ASSERT_OK(spt_tensor_alloc(SPT_FLOAT64, 2, (int64_t[]){flops, N}, flops, b));
    int64_t *ia = spt_tensor_indices_mut(*a), *ib = spt_tensor_indices_mut(*b);
    double *va = spt_tensor_values_mut(*a), *vb = spt_tensor_values_mut(*b);
    for (int64_t k = 0; k < flops; k++) {
        ia[2 * k] = 0;
        ia[2 * k + 1] = k;
        va[k] = 1;
        ib[2 * k] = k;
        ib[2 * k + 1] = spread ? k * 7919 % spread : k % 37; /* spread out, or 37 clustered columns */
        vb[k] = k % 3 == 0 ? 1e16 : k % 3 == 1 ? 1.0 + (double)k / 8 : -1e16;
    }
}

/* The three accumulators (sort for rows of at most 4096 products of an output at most 2^50 wide, dense
 * for rows with products >= N / 16 of an output of at most 2^17 columns, hash otherwise) sum each column
 * in one order: the same row gives bit-identical values whichever is chosen. Clustered columns take the
 * radix sort of the sort accumulator's keys, spread ones its bucket pass. */
static void test_accumulator_choice(void **state) {
    (void)state;
    const int64_t flops[] = {4096, 4097, 300}, spreads[] = {0, 65521};
    for (size_t fi = 0; fi < 3; fi++)
        for (size_t si = 0; si < 2; si++) {
            /* the widths choose: dense (or sort for 300 products of 65536) / sort (hash past 4096
             * products) / hash; the spread columns fill half of 2^17, so their keys take the bucket pass */
            const int64_t widths[3] = {spreads[si] ? 65536 : 64, spreads[si] ? (int64_t)1 << 17 : (int64_t)1 << 20,
                                       ((int64_t)1 << 50) + 1};
            spt_tensor *first = NULL;
            for (int w = 0; w < 3; w++) {
                spt_tensor *a, *b, *o;
                one_row(flops[fi], widths[w], spreads[si], &a, &b);
                ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
                if (w == 0) {
                    if (widths[0] * flops[fi] <= 64 * 4097) check_product(a, b, false, false, false, o);
                    first = o;
                } else {
                    assert_int_equal(spt_tensor_nnz(o), spt_tensor_nnz(first));
                    assert_memory_equal(spt_tensor_indices(o), spt_tensor_indices(first),
                                        (size_t)(2 * spt_tensor_nnz(o)) * sizeof(int64_t));
                    assert_memory_equal(spt_tensor_values(o), spt_tensor_values(first),
                                        (size_t)spt_tensor_nnz(o) * sizeof(double));
                    spt_tensor_free(o);
                }
                spt_tensor_free(a);
                spt_tensor_free(b);
            }
            if (!spreads[si]) { /* 37 columns: the sums of their 1e16 / -1e16 / small terms, in k order */
                const double *v = spt_tensor_values(first);
                for (int64_t q = 0, j = 0; q < 37; q++) {
                    double sum = 0;
                    bool any = false;
                    for (int64_t k = q; k < flops[fi]; k += 37) {
                        double x = k % 3 == 0 ? 1e16 : k % 3 == 1 ? 1.0 + (double)k / 8 : -1e16;
                        sum = any ? sum + x : x;
                        any = true;
                    }
                    if (sum == 0) continue;
                    assert_int_equal(spt_tensor_indices(first)[2 * j + 1], q);
                    assert_true(v[j++] == sum);
                }
            }
            spt_tensor_free(first);
        }
}

/* Batched operands on two threads: the chunks write finished [batch, row, col] index rows into the
 * output and are moved down into place as they finish. */
static spt_status call_gemm_batched(mt_call *c) {
    return spt_sparse_sparse_matmul(c->a, c->b, false, c->flag, false, &c->o);
}

static void test_threads_batched(void **state) {
    (void)state;
    mt_seed(11);
    int64_t sa[3] = {4, 800, 500}, sb[3] = {4, 500, 700};
    spt_tensor *a = mt_big_tensor(SPT_FLOAT64, 3, sa, 20000, true),
               *b = mt_big_tensor(SPT_FLOAT64, 3, sb, 20000, false);
    mt_call c = {.op = call_gemm_batched, .a = a, .b = b};
    mt_call_threads(&c);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static spt_status call_gemm(mt_call *c) { return spt_sparse_sparse_matmul(c->a, c->b, c->flag, false, false, &c->o); }

static void test_threads(void **state) {
    (void)state;
    mt_seed(3);
    int64_t sa[2] = {3000, 2000}, sb[2] = {2000, 3000};
    spt_tensor *a = mt_big_tensor(SPT_FLOAT64, 2, sa, 60000, false),
               *b = mt_big_tensor(SPT_FLOAT64, 2, sb, 60000, true);
    mt_call c = {.op = call_gemm, .a = a, .b = b};
    mt_call_threads(&c);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(5);
    int64_t sa[3] = {2, 6, 5}, sb[3] = {2, 5, 7};
    spt_tensor *a = mt_rand_tensor(SPT_INT32, 3, sa, 20, true, false),
               *b = mt_rand_tensor(SPT_INT32, 3, sb, 20, true, true);
    mt_call c = {.op = call_gemm, .a = a, .b = b};
    mt_call_sweep(&c);
    /* a dense-accumulator row and a wide hashed row */
    spt_tensor_free(a);
    spt_tensor_free(b);
    int64_t s2[2] = {3, 4}, s3[2] = {4, 64}, s4[2] = {4, 300000};
    a = mt_rand_tensor(SPT_FLOAT64, 2, s2, 10, false, true);
    b = mt_rand_tensor(SPT_FLOAT64, 2, s3, 60, false, false);
    mt_call c2 = {.op = call_gemm, .a = a, .b = b};
    mt_call_sweep(&c2);
    spt_tensor_free(b);
    b = mt_rand_tensor(SPT_FLOAT64, 2, s4, 60, false, false);
    mt_call c3 = {.op = call_gemm, .a = a, .b = b};
    mt_call_sweep(&c3);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* The row sort's 16-input network sorts every input: by the 0-1 principle it is enough that it sorts each
 * of the 2^16 inputs of zeros and ones. */
static void test_sort_network_zero_one(void **state) {
    (void)state;
    for (uint32_t m = 0; m < (1u << 16); m++) {
        unsigned char b[16];
        int ones = 0;
        for (int q = 0; q < 16; q++) ones += b[q] = (unsigned char)(m >> q & 1);
        for (int k = 0; k < 63; k++) {
            const int i = spt__gemm_net16[k][0], j = spt__gemm_net16[k][1];
            assert_true(i < j && j < 16);
            const unsigned char x = b[i], y = b[j];
            b[i] = x < y ? x : y;
            b[j] = x < y ? y : x;
        }
        for (int q = 0; q < 16; q++)
            if (b[q] != (q >= 16 - ones)) fail_msg("input %#x: position %d is %d after the network", m, q, b[q]);
    }
}

static int cmp_i64(const void *x, const void *y) {
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* spt__gemm_sort at every length through the network (8-16), the two networks and their merge (17-32)
 * and around them, keys with a position in the low bits (the sort accumulator's) or plain columns,
 * columns crowded or spread, against qsort. */
static void test_row_sort_lengths(void **state) {
    (void)state;
    int64_t a[48], want[48], tmp[48];
    mt_seed(99);
    for (int64_t n = 0; n <= 40; n++)
        for (int low = 0; low <= SPT__GEMM_POS_BITS; low += SPT__GEMM_POS_BITS)
            for (int64_t nc = 3; nc <= ((int64_t)1 << 40); nc *= 1 << 12)
                for (int trial = 0; trial < 60; trial++) {
                    const int64_t ncols = low || nc > n ? nc : n + 1; /* n distinct columns need n of them */
                    for (int64_t i = 0; i < n; i++) { /* distinct: the position, or a column drawn without repeat */
                        int64_t col = mt_int(ncols < 1000000 ? ncols : 1000000) *
                                      (ncols < 1000000 ? 1 : ncols / 1000000);
                        if (!low) {
                            col = (col / (n + 1)) * (n + 1) + i; /* distinct by the residue */
                            if (col >= ncols) col = i;
                        }
                        a[i] = col << low | (low ? i : 0);
                    }
                    for (int64_t i = n - 1; i > 0; i--) { /* the products come in any order */
                        const int64_t j = mt_int(i + 1), x = a[i];
                        a[i] = a[j];
                        a[j] = x;
                    }
                    memcpy(want, a, (size_t)n * sizeof *a);
                    qsort(want, (size_t)n, sizeof *want, cmp_i64);
                    spt__gemm_sort(a, n, tmp, ncols, low);
                    for (int64_t i = 0; i < n; i++)
                        if (a[i] != want[i])
                            fail_msg("n %lld low %d ncols %lld: key %lld is %lld, want %lld", (long long)n, low,
                                     (long long)ncols, (long long)i, (long long)a[i], (long long)want[i]);
                }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),
        cmocka_unit_test(test_complex_adjoint),
        cmocka_unit_test(test_random_all_dtypes),
        cmocka_unit_test(test_accumulators),
        cmocka_unit_test(test_outer_product),
        cmocka_unit_test(test_empty_and_huge),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
        cmocka_unit_test(test_accumulator_choice),
        cmocka_unit_test(test_threads_batched),
        cmocka_unit_test(test_sort_network_zero_one),
        cmocka_unit_test(test_row_sort_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
