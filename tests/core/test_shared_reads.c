/* SPDX-License-Identifier: Apache-2.0 */
/* test_shared_reads.c -- the THREADS promise of spt.h: read-only ops on one shared tensor from 4
 * threads at once. The tensors start unvalidated and unsorted, so that every thread's first op caches
 * the validated flag on the shared input while the others read it. Each thread's results must equal
 * those of a serial run. `make test-tsan` runs this program built with ThreadSanitizer (and spt
 * without OpenMP, whose runtime TSan cannot see), where any data race fails the run.
 * test_row_sums_eight_threads: 8 threads take the row sums of one shared sorted 2-D tensor at once, so
 * that several of them build its cached row pointer and race to publish it (one wins, the others free
 * their copies and every later call reads the winner's). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

#define NTHREADS 4
#define N 4000

static spt_tensor *shared3, *shared2, *shared_big;
static spt_dense *dense2, *rhs;

typedef struct {
    int64_t argsort[N], big_argsort[N];
    double sum_all, reduced[64], matmul[8], cwise_sum, add_sum;
    int64_t reduced_nnz, add_nnz, reordered_first[3];
    spt_status st;
} result;

static double sum_values(const spt_tensor *t) {
    const double *v = spt_tensor_values(t);
    double s = 0;
    for (int64_t i = 0; i < spt_tensor_nnz(t); i++) s += v[i];
    return s;
}

/* Every read-only op on the shared tensors; the first failure is kept in r->st. */
static void run_ops(result *r) {
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    spt_dense *d = NULL;
#define STEP(call)                                                                                                     \
    do {                                                                                                               \
        if (st == SPT_OK) st = (call);                                                                                 \
    } while (0)
    STEP(spt_argsort(shared3, NULL, r->argsort));
    STEP(spt_argsort(shared_big, NULL, r->big_argsort));
    STEP(spt_reordered(shared3, NULL, &o));
    if (st == SPT_OK) memcpy(r->reordered_first, spt_tensor_indices(o), sizeof r->reordered_first);
    spt_tensor_free(o);
    o = NULL;
    int64_t ax[] = {1};
    STEP(spt_reduce_sum_sparse(shared3, ax, 1, false, &o));
    if (st == SPT_OK) r->reduced_nnz = spt_tensor_nnz(o);
    spt_tensor_free(o);
    o = NULL;
    STEP(spt_reduce_sum(shared3, NULL, 0, false, &d));
    if (st == SPT_OK) r->sum_all = *(const double *)spt_dense_data(d);
    spt_dense_free(d);
    d = NULL;
    STEP(spt_reduce_sum(shared2, ax, 1, false, &d));
    if (st == SPT_OK) memcpy(r->reduced, spt_dense_data(d), sizeof r->reduced);
    spt_dense_free(d);
    d = NULL;
    STEP(spt_add(shared3, shared3, 0.0, &o));
    if (st == SPT_OK) {
        r->add_nnz = spt_tensor_nnz(o);
        r->add_sum = sum_values(o);
    }
    spt_tensor_free(o);
    o = NULL;
    STEP(spt_add(shared_big, shared_big, 0.0, &o));
    spt_tensor_free(o);
    o = NULL;
    STEP(spt_sparse_dense_cwise_mul(shared2, dense2, &o));
    if (st == SPT_OK) r->cwise_sum = sum_values(o);
    spt_tensor_free(o);
    o = NULL;
    STEP(spt_sparse_dense_matmul(shared2, rhs, false, false, &d));
    if (st == SPT_OK) memcpy(r->matmul, spt_dense_data(d), sizeof r->matmul);
    spt_dense_free(d);
    d = NULL;
    STEP(spt_to_dense(shared2, NULL, false, &d));
    spt_dense_free(d);
    d = NULL;
    STEP(spt_softmax(shared3, &o));
    spt_tensor_free(o);
    r->st = st;
#undef STEP
}

static void *worker(void *arg) {
    run_ops(arg);
    return NULL;
}

static spt_tensor *random_tensor(int64_t r, const int64_t *shape, uint64_t seed) {
    int64_t *ix = malloc((size_t)(N * r) * sizeof *ix);
    double *v = malloc(N * sizeof *v);
    for (int64_t i = 0; i < N; i++) {
        for (int64_t d = 0; d < r; d++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            ix[i * r + d] = (int64_t)((seed >> 11) % (uint64_t)shape[d]);
        }
        v[i] = (double)(i % 17) - 8;
    }
    spt_tensor *t = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, r, shape, N, ix, v, NULL, &t));
    free(ix);
    free(v);
    return t;
}

static void make_inputs(void) {
    int64_t s3[] = {40, 30, 50}, s2[] = {64, 8}, sb[] = {2902330, 2143368, 25495389}, s8[] = {8, 1};
    shared3 = random_tensor(3, s3, 1);
    shared2 = random_tensor(2, s2, 2);
    shared_big = random_tensor(3, sb, 3);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, s2, &dense2));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, s8, &rhs));
    double *a = spt_dense_data_mut(dense2), *b = spt_dense_data_mut(rhs);
    for (int i = 0; i < 64 * 8; i++) a[i] = (double)(i % 5);
    for (int i = 0; i < 8; i++) b[i] = (double)i;
}

static void free_inputs(void) {
    spt_tensor_free(shared3);
    spt_tensor_free(shared2);
    spt_tensor_free(shared_big);
    spt_dense_free(dense2);
    spt_dense_free(rhs);
}

static void test_four_threads(void **state) {
    (void)state;
    make_inputs();
    result *serial = calloc(1, sizeof *serial), *res = calloc(NTHREADS, sizeof *res);
    /* the serial reference on fresh copies (flags clear again) */
    run_ops(serial);
    ASSERT_OK(serial->st);
    free_inputs();
    make_inputs();
    pthread_t th[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) assert_int_equal(pthread_create(&th[k], NULL, worker, &res[k]), 0);
    for (int k = 0; k < NTHREADS; k++) assert_int_equal(pthread_join(th[k], NULL), 0);
    for (int k = 0; k < NTHREADS; k++) {
        ASSERT_OK(res[k].st);
        res[k].st = serial->st;
        assert_memory_equal(&res[k], serial, sizeof *serial);
    }
    free(serial);
    free(res);
    free_inputs();
}

#define ROWS 500
#define RTHREADS 8
static spt_tensor *shared_rows;

typedef struct {
    double sums[3][ROWS];
    spt_status st;
} rows_result;

static void *rows_worker(void *arg) {
    rows_result *r = arg;
    int64_t ax[] = {1};
    for (int k = 0; k < 3 && r->st == SPT_OK; k++) {
        spt_dense *d = NULL;
        r->st = spt_reduce_sum(shared_rows, ax, 1, false, &d);
        if (r->st == SPT_OK) memcpy(r->sums[k], spt_dense_data(d), sizeof r->sums[k]);
        spt_dense_free(d);
    }
    return NULL;
}

static void test_row_sums_eight_threads(void **state) {
    (void)state;
    int64_t s2[] = {ROWS, 300};
    rows_result *serial = calloc(1, sizeof *serial), *res = calloc(RTHREADS, sizeof *res);
    for (int round = 0; round < 4; round++) {
        /* sorted and valid, ROWS + 1 <= N / 4: the row pointer is built by the first row sum */
        shared_rows = random_tensor(2, s2, 10 + (uint64_t)round);
        ASSERT_OK(spt_reorder(shared_rows, NULL));
        if (round == 0) {
            rows_worker(serial);
            ASSERT_OK(serial->st);
            spt_tensor_free(shared_rows);
            shared_rows = random_tensor(2, s2, 10);
            ASSERT_OK(spt_reorder(shared_rows, NULL));
        }
        memset(res, 0, RTHREADS * sizeof *res);
        pthread_t th[RTHREADS];
        for (int k = 0; k < RTHREADS; k++) assert_int_equal(pthread_create(&th[k], NULL, rows_worker, &res[k]), 0);
        for (int k = 0; k < RTHREADS; k++) assert_int_equal(pthread_join(th[k], NULL), 0);
        for (int k = 0; k < RTHREADS; k++) {
            ASSERT_OK(res[k].st);
            for (int j = 1; j < 3; j++) assert_memory_equal(res[k].sums[j], res[k].sums[0], sizeof res[k].sums[0]);
            assert_memory_equal(res[k].sums[0], res[0].sums[0], sizeof res[k].sums[0]);
            if (round == 0) assert_memory_equal(res[k].sums[0], serial->sums[0], sizeof serial->sums[0]);
        }
        spt_tensor_free(shared_rows);
    }
    free(serial);
    free(res);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_four_threads),
                                       cmocka_unit_test(test_row_sums_eight_threads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
