/* SPDX-License-Identifier: Apache-2.0 */
/* test_threads_race.c -- spt_set_num_threads from one thread while another runs ops (spt.h, THREADS):
 * each op reads the count once and sizes its per-thread scratch for at most that many threads, so a
 * count changed during the call changes nothing but the speed. Every op that opens a parallel region
 * runs on inputs large enough to use several threads, first with a fixed count (the reference), then
 * while a second thread switches the count between 1 and 16 every half millisecond; the results must
 * be equal (the values are small integers, so sums are exact in any order; softmax within 1e-12).
 * The sanitized twin (build/san) turns any write past a scratch buffer into a failure. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spt_test.h"

#define N3 200000
#define N2 200000

static spt_tensor *t3, *t2, *ids, *cnt_vals;
static spt_dense *d2, *rhs, *rhs2, *bmat, *f0, *f1, *f2, *vec, *umat, *params, *segdata, *segidx, *segids;
static char *tns_text;
static size_t tns_len;

/* n distinct entries of a tensor of `shape`: linear positions i * step mod volume (step coprime with
 * it), so unsorted and unique; values 1..8 */
static spt_tensor *make_tensor(int64_t rank, const int64_t *shape, int64_t n, uint64_t step) {
    int64_t vol = 1;
    for (int64_t k = 0; k < rank; k++) vol *= shape[k];
    int64_t *ix = malloc((size_t)(n * rank) * sizeof *ix);
    double *v = malloc((size_t)n * sizeof *v);
    assert_non_null(ix);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) {
        uint64_t p = ((uint64_t)i * step) % (uint64_t)vol;
        for (int64_t k = rank - 1; k >= 0; k--) {
            ix[i * rank + k] = (int64_t)(p % (uint64_t)shape[k]);
            p /= (uint64_t)shape[k];
        }
        v[i] = (double)(1 + i % 8);
    }
    spt_tensor *t = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, rank, shape, n, ix, v, NULL, &t));
    free(ix);
    free(v);
    return t;
}

static spt_dense *make_dense(spt_dtype dt, int64_t rank, const int64_t *shape, int64_t mod) {
    spt_dense *d = NULL;
    ASSERT_OK(spt_dense_new(dt, rank, shape, &d));
    int64_t n = spt_dense_size(d);
    if (dt == SPT_FLOAT64) {
        double *x = spt_dense_data_mut(d);
        for (int64_t i = 0; i < n; i++) x[i] = (double)(i % mod);
    } else {
        int64_t *x = spt_dense_data_mut(d);
        for (int64_t i = 0; i < n; i++) x[i] = i % mod;
    }
    return d;
}

/* order-independent checksums of a result */
static double sum_tensor(const spt_tensor *t) {
    const int64_t n = spt_tensor_nnz(t), r = spt_tensor_rank(t);
    const int64_t *ix = spt_tensor_indices(t);
    const double *v = spt_tensor_values(t);
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t w = 1;
        for (int64_t k = 0; k < r; k++) w += (k + 1) * (ix[i * r + k] % 101);
        s += v[i] * (double)w;
    }
    return s + (double)n;
}

static double sum_dense(const spt_dense *d) {
    const double *x = spt_dense_data(d);
    double s = 0;
    for (int64_t i = 0; i < spt_dense_size(d); i++) s += x[i] * (double)(1 + i % 7);
    return s;
}

#define NOPS 40
static const char *op_name[NOPS];

/* Runs every op once; sums[k] is op k's checksum. Returns the number of ops. */
static int run_all(double *sums) {
    int k = 0;
    spt_tensor *o = NULL;
    spt_dense *d = NULL;
#define T_OP(name, call)                                                                                               \
    do {                                                                                                               \
        op_name[k] = name;                                                                                             \
        ASSERT_OK(call);                                                                                               \
        sums[k++] = sum_tensor(o);                                                                                     \
        spt_tensor_free(o);                                                                                            \
        o = NULL;                                                                                                      \
    } while (0)
#define D_OP(name, call)                                                                                               \
    do {                                                                                                               \
        op_name[k] = name;                                                                                             \
        ASSERT_OK(call);                                                                                               \
        sums[k++] = sum_dense(d);                                                                                      \
        spt_dense_free(d);                                                                                             \
        d = NULL;                                                                                                      \
    } while (0)
    const int64_t ax0[] = {0}, ax1[] = {1}, ax01[] = {0, 1};
    {
        spt_tensor *c = NULL;
        op_name[k] = "validate+reorder";
        ASSERT_OK(spt_tensor_clone(t3, &c));
        ASSERT_OK(spt_validate(c));
        ASSERT_OK(spt_reorder(c, NULL));
        sums[k++] = sum_tensor(c) + (double)spt_tensor_indices(c)[0];
        spt_tensor_free(c);
    }
    {
        int64_t *perm = malloc(N3 * sizeof *perm);
        assert_non_null(perm);
        op_name[k] = "argsort";
        ASSERT_OK(spt_argsort(t3, NULL, perm));
        double s = 0;
        for (int64_t i = 0; i < N3; i++) s += (double)perm[i] * (double)(i % 13);
        sums[k++] = s;
        free(perm);
    }
    T_OP("reordered", spt_reordered(t2, NULL, &o));
    D_OP("to_dense", spt_to_dense(t2, NULL, false, &d));
    T_OP("from_dense", spt_from_dense(d2, NULL, &o));
    {
        const spt_tensor *in[] = {t2, t2};
        T_OP("concat", spt_concat(in, 2, 1, false, &o));
    }
    {
        const int64_t ns[] = {200 * 300, 400};
        T_OP("reshape", spt_reshape(t3, 2, ns, &o));
    }
    {
        const int64_t p[] = {2, 0, 1};
        T_OP("transpose", spt_transpose(t3, p, &o));
    }
    D_OP("reduce_sum", spt_reduce_sum(t3, ax1, 1, false, &d));
    D_OP("reduce_sum all", spt_reduce_sum(t2, ax01, 2, false, &d));
    T_OP("reduce_sum_sparse", spt_reduce_sum_sparse(t3, ax0, 1, false, &o));
    D_OP("reduce_max", spt_reduce_max(t3, ax1, 1, false, &d));
    T_OP("reduce_max_sparse", spt_reduce_max_sparse(t3, ax0, 1, false, &o));
    T_OP("softmax", spt_softmax(t2, &o));
    {
        op_name[k] = "segment_sum";
        ASSERT_OK(spt_segment_sum(segdata, segidx, segids, 1000, &d));
        sums[k++] = sum_dense(d);
        spt_dense_free(d);
        d = NULL;
    }
    {
        spt_unary_op op;
        ASSERT_OK(spt_unary_op_from_name("square", &op));
        T_OP("map_values", spt_map_values(t3, op, &o));
    }
    {
        spt_tensor *c = NULL;
        op_name[k] = "cast";
        ASSERT_OK(spt_cast(t3, SPT_FLOAT32, &c));
        ASSERT_OK(spt_cast(c, SPT_FLOAT64, &o));
        sums[k++] = sum_tensor(o);
        spt_tensor_free(c);
        spt_tensor_free(o);
        o = NULL;
    }
    T_OP("add", spt_add(t3, t3, 0.0, &o));
    D_OP("add_dense", spt_add_dense(t2, d2, &d));
    T_OP("cwise_mul", spt_sparse_dense_cwise_mul(t2, d2, &o));
    T_OP("maximum", spt_maximum(t2, t2, &o));
    T_OP("multiply", spt_multiply(t2, t2, &o));
    D_OP("matmul", spt_sparse_dense_matmul(t2, rhs2, false, false, &d));
    T_OP("spgemm", spt_sparse_sparse_matmul(t2, t2, false, false, false, &o));
    D_OP("bmm", spt_sparse_dense_bmm(t3, bmat, false, false, &d));
    {
        const spt_dense *f[] = {f0, f1, f2};
        D_OP("mttkrp", spt_mttkrp(t3, f, 3, 0, &d));
    }
    T_OP("ttv", spt_ttv(t3, vec, 2, &o));
    T_OP("ttm", spt_ttm(t3, umat, 2, &o));
    {
        const int64_t aa[] = {2}, ab[] = {0};
        D_OP("tensordot", spt_tensordot(t3, rhs, aa, ab, 1, &d));
    }
    D_OP("einsum", spt_einsum("ijk,kl->il", t3, rhs, &d));
    T_OP("bincount", spt_bincount(cnt_vals, NULL, 0, 0, -1, false, &o));
    {
        const spt_dense *p[] = {params};
        D_OP("embedding_lookup_sparse", spt_embedding_lookup_sparse(p, 1, ids, NULL, SPT_COMBINER_SUM, &d));
    }
    {
        op_name[k] = "to_indicator";
        ASSERT_OK(spt_to_indicator(cnt_vals, 1000, &d));
        const bool *x = spt_dense_data(d);
        double s = 0;
        for (int64_t i = 0; i < spt_dense_size(d); i++) s += x[i] ? (double)(i % 11) : 0;
        sums[k++] = s;
        spt_dense_free(d);
        d = NULL;
    }
    T_OP("parse_tns", spt_parse_tns(tns_text, tns_len, "race.tns", NULL, &o));
    assert_true(k <= NOPS);
    return k;
}

static atomic_int stop;

static void *toggler(void *arg) {
    (void)arg;
    const struct timespec half_ms = {0, 500000};
    for (int i = 0; !atomic_load(&stop); i++) {
        spt_set_num_threads(i % 2 ? 1 : 16);
        nanosleep(&half_ms, NULL);
    }
    return NULL;
}

static void test_count_changes_during_ops(void **state) {
    (void)state;
    double ref[NOPS], got[NOPS];
    spt_set_num_threads(4);
    int nops = run_all(ref);
    spt_set_num_threads(1);
    double one[NOPS];
    assert_int_equal(run_all(one), nops);
    for (int k = 0; k < nops; k++)
        if (fabs(one[k] - ref[k]) > 1e-12 * fabs(ref[k]))
            fail_msg("%s: %.17g with 1 thread, %.17g with 4", op_name[k], one[k], ref[k]);
    atomic_store(&stop, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, toggler, NULL), 0);
    for (int rep = 0; rep < 3; rep++) {
        assert_int_equal(run_all(got), nops);
        for (int k = 0; k < nops; k++)
            if (fabs(got[k] - ref[k]) > 1e-12 * fabs(ref[k]))
                fail_msg("%s: %.17g while the count changes, %.17g before", op_name[k], got[k], ref[k]);
    }
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    spt_set_num_threads(0);
}

static int setup(void **state) {
    (void)state;
    const int64_t s3[] = {200, 300, 400}, s2[] = {1000, 1000};
    t3 = make_tensor(3, s3, N3, 7919);
    t2 = make_tensor(2, s2, N2, 4999);
    const int64_t sd2[] = {1000, 1000}, sr[] = {400, 4}, sb[] = {200, 400, 2};
    d2 = make_dense(SPT_FLOAT64, 2, sd2, 5);
    rhs = make_dense(SPT_FLOAT64, 2, sr, 3);
    const int64_t sr2[] = {1000, 4};
    rhs2 = make_dense(SPT_FLOAT64, 2, sr2, 3);
    bmat = make_dense(SPT_FLOAT64, 3, sb, 4);
    const int64_t sf0[] = {200, 4}, sf1[] = {300, 4}, sf2[] = {400, 4}, sv[] = {400}, su[] = {3, 400};
    f0 = make_dense(SPT_FLOAT64, 2, sf0, 3);
    f1 = make_dense(SPT_FLOAT64, 2, sf1, 3);
    f2 = make_dense(SPT_FLOAT64, 2, sf2, 3);
    vec = make_dense(SPT_FLOAT64, 1, sv, 4);
    umat = make_dense(SPT_FLOAT64, 2, su, 3);
    const int64_t sp[] = {500, 8}, sdata[] = {1000, 4}, sidx[] = {300000};
    params = make_dense(SPT_FLOAT64, 2, sp, 6);
    segdata = make_dense(SPT_FLOAT64, 2, sdata, 5);
    segidx = make_dense(SPT_INT64, 1, sidx, 1000);
    segids = make_dense(SPT_INT64, 1, sidx, 1);
    int64_t *sg = spt_dense_data_mut(segids);
    for (int64_t i = 0; i < sidx[0]; i++) sg[i] = i / 300; /* sorted segment ids 0..999 */
    /* int64 tensors: ids into params (rows of 2-D [20000, 16], row-major) and values to count */
    {
        const int64_t n = 20000 * 16, sh[] = {20000, 16};
        int64_t *ix = malloc((size_t)n * 2 * sizeof *ix), *v = malloc((size_t)n * sizeof *v);
        assert_non_null(ix);
        assert_non_null(v);
        for (int64_t i = 0; i < n; i++) {
            ix[2 * i] = i / 16;
            ix[2 * i + 1] = i % 16;
            v[i] = (i * 37) % 500;
        }
        ASSERT_OK(spt_tensor_new(SPT_INT64, 2, sh, n, ix, v, NULL, &ids));
        for (int64_t i = 0; i < n; i++) v[i] = (i * 53) % 1000;
        ASSERT_OK(spt_tensor_new(SPT_INT64, 2, sh, n, ix, v, NULL, &cnt_vals));
        free(ix);
        free(v);
    }
    /* a .tns text of 200000 lines */
    tns_len = 0;
    tns_text = malloc((size_t)N3 * 40 + 64);
    assert_non_null(tns_text);
    tns_len += (size_t)sprintf(tns_text, "# shape: 200 300 400\n");
    const int64_t *ix = spt_tensor_indices(t3);
    const double *v = spt_tensor_values(t3);
    for (int64_t i = 0; i < N3; i++)
        tns_len += (size_t)sprintf(tns_text + tns_len, "%lld %lld %lld %g\n", (long long)ix[3 * i] + 1,
                                   (long long)ix[3 * i + 1] + 1, (long long)ix[3 * i + 2] + 1, v[i]);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    spt_tensor_free(t3);
    spt_tensor_free(t2);
    spt_tensor_free(ids);
    spt_tensor_free(cnt_vals);
    spt_dense *all[] = {d2, rhs, rhs2, bmat, f0, f1, f2, vec, umat, params, segdata, segidx, segids};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) spt_dense_free(all[i]);
    free(tns_text);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_count_changes_during_ops)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
