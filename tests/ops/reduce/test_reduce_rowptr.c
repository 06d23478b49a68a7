/* SPDX-License-Identifier: Apache-2.0 */
/* test_reduce_rowptr.c -- row sums (reduce over axis 1 of a 2-D tensor) through the cached row pointer
 * (tensor.c's spt__rowptr_*, used by reduce.c): the same bits as the plain path for every dtype and
 * thread count, built only within its size bound, dropped by every in-place change of indices, shape or
 * order (kept by a change of values), never shared by a clone, and an allocation failure while building
 * it falls back to the plain path with identical results. The test reads the cache slot of the tensor
 * (internal.h) to know which path ran. */
#include "../math_test_util.h"

#include "core/internal.h"

static bool cached(const spt_tensor *t) { return atomic_load(&((spt_tensor *)t)->rowptr) != NULL; }

/* The storage-order fold of each row of a 2-D tensor: first value, then + (or max) with the next ones;
 * 0 for an empty row. Bytes of dtype dt into out (shape[0] elements). */
static void fold_rows(const spt_tensor *t, bool max, void *out) {
    const spt_dtype dt = spt_tensor_dtype(t);
    const int64_t rows = spt_tensor_shape(t)[0], n = spt_tensor_nnz(t), *ix = spt_tensor_indices(t);
    const size_t es = spt_dtype_size(dt);
    memset(out, 0, (size_t)rows * es);
    bool *seen = calloc((size_t)rows + 1, 1);
    assert_non_null(seen);
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = ix[2 * i];
        char *o = (char *)out + (size_t)r * es;
        const char *v = (const char *)spt_tensor_values(t) + (size_t)i * es;
        if (!seen[r]) {
            memcpy(o, v, es);
            seen[r] = true;
            continue;
        }
        switch (dt) {
#define ACC(E, T, U) /* max in T; sum wrapping in U, the unsigned type of the same width */                            \
    case E: {                                                                                                          \
        T a, b;                                                                                                        \
        memcpy(&a, o, sizeof a);                                                                                       \
        memcpy(&b, v, sizeof b);                                                                                       \
        if (max) a = a < b ? b : a;                                                                                    \
        else a = (T)((U)a + (U)b);                                                                                     \
        memcpy(o, &a, sizeof a);                                                                                       \
        break;                                                                                                         \
    }
            ACC(SPT_INT8, int8_t, uint8_t)
            ACC(SPT_INT16, int16_t, uint16_t)
            ACC(SPT_INT32, int32_t, uint32_t)
            ACC(SPT_INT64, int64_t, uint64_t)
            ACC(SPT_UINT8, uint8_t, uint8_t)
            ACC(SPT_UINT16, uint16_t, uint16_t)
            ACC(SPT_UINT32, uint32_t, uint32_t)
            ACC(SPT_UINT64, uint64_t, uint64_t)
            ACC(SPT_FLOAT32, float, float)
            ACC(SPT_FLOAT64, double, double)
#undef ACC
        case SPT_COMPLEX64: {
            float complex a, b;
            memcpy(&a, o, sizeof a);
            memcpy(&b, v, sizeof b);
            a = a + b;
            memcpy(o, &a, sizeof a);
            break;
        }
        case SPT_COMPLEX128: {
            double complex a, b;
            memcpy(&a, o, sizeof a);
            memcpy(&b, v, sizeof b);
            a = a + b;
            memcpy(o, &a, sizeof a);
            break;
        }
        default: fail();
        }
    }
    free(seen);
}

/* Row sums (or maxima) of t into a fresh array of shape[0] elements. */
static void *row_reduce(const spt_tensor *t, bool max) {
    int64_t ax[1] = {1};
    spt_dense *d = NULL;
    if (max) ASSERT_OK(spt_reduce_max(t, ax, 1, false, &d));
    else ASSERT_OK(spt_reduce_sum(t, ax, 1, false, &d));
    assert_int_equal(spt_dense_rank(d), 1);
    assert_int_equal(spt_dense_shape(d)[0], spt_tensor_shape(t)[0]);
    const size_t bytes = (size_t)spt_dense_size(d) * spt_dtype_size(spt_tensor_dtype(t));
    void *o = malloc(bytes ? bytes : 1);
    assert_non_null(o);
    memcpy(o, spt_dense_data(d), bytes);
    spt_dense_free(d);
    return o;
}

static void expect_rows(const spt_tensor *t, bool max) {
    const int64_t rows = spt_tensor_shape(t)[0];
    const size_t es = spt_dtype_size(spt_tensor_dtype(t));
    void *want = malloc((size_t)rows * es + 1), *got = row_reduce(t, max);
    fold_rows(t, max, want);
    assert_memory_equal(got, want, (size_t)rows * es);
    free(got);
    free(want);
}

/* A sorted row-major [rows, cols] tensor of n entries (repeated cells allowed) whose values make a
 * different summation order show: 1e16, -1e16, -0.0 among small values for the floats (1e8 for
 * float32). Rows 3, 10, 17, ... (and the first and last row when asked) are left empty. */
static spt_tensor *rows_tensor(spt_dtype dt, int64_t rows, int64_t cols, int64_t n, bool empty_ends) {
    int64_t shape[2] = {rows, cols};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_alloc(dt, 2, shape, n, &t));
    int64_t *ix = spt_tensor_indices_mut(t);
    void *v = spt_tensor_values_mut(t);
    for (int64_t i = 0; i < n; i++) {
        int64_t r;
        do r = mt_int(rows);
        while ((empty_ends && rows > 2 && (r == 0 || r == rows - 1)) || (r % 7 == 3)); /* some rows empty */
        ix[2 * i] = r;
        ix[2 * i + 1] = mt_int(cols);
        double complex x = mt_value(dt);
        if (spt_dtype_is_float(dt)) {
            int64_t c = mt_int(12);
            if (c == 0) x = 1e16;
            else if (c == 1) x = -1e16;
            else if (c == 2) x = -0.0;
            if (dt == SPT_FLOAT32 && (c == 0 || c == 1)) x = c == 0 ? 1e8 : -1e8;
        }
        mt_set(dt, v, i, x);
    }
    ASSERT_OK(spt_reorder(t, NULL)); /* stable: repeated cells keep their storage order */
    return t;
}

/* The same entries without the flags (the plain path: sortedness found by the kernel's check, no row
 * pointer). */
static spt_tensor *unflagged_copy(const spt_tensor *t) {
    spt_tensor *u;
    ASSERT_OK(spt_tensor_new(spt_tensor_dtype(t), 2, spt_tensor_shape(t), spt_tensor_nnz(t), spt_tensor_indices(t),
                             spt_tensor_values(t), NULL, &u));
    return u;
}

/* For every dtype of sum and max, 1-4 threads: the first call (builds the row pointer while summing), a
 * warm call (reads it) and the plain path give the same bytes, equal to the storage-order fold. */
static void test_same_bits_every_dtype(void **state) {
    (void)state;
    mt_seed(9001);
    for (int k = 0; k < MT_NNUMERIC; k++)
        for (int max = 0; max < 2; max++) {
            const spt_dtype dt = MT_NUMERIC[k];
            if (max && spt_dtype_is_complex(dt)) continue;
            for (int th = 1; th <= 4; th++) {
                spt_set_num_threads(th);
                if (th == 3) continue;
                /* 100000 entries: enough work for 4 chunks on the first call, 3 on the warm ones */
                spt_tensor *t = rows_tensor(dt, 3001, 50, 100000, k % 2 == 0);
                spt_tensor *u = unflagged_copy(t);
                assert_false(cached(t));
                void *plain = row_reduce(u, max), *first = row_reduce(t, max);
                assert_true(cached(t));
                void *warm = row_reduce(t, max);
                const size_t bytes = 3001 * spt_dtype_size(dt);
                assert_memory_equal(first, plain, bytes);
                assert_memory_equal(warm, plain, bytes);
                assert_false(cached(u));
                expect_rows(t, max);
                free(plain);
                free(first);
                free(warm);
                spt_tensor_free(u);
                spt_tensor_free(t);
            }
        }
    spt_set_num_threads(0);
}

/* Built when shape[0] + 1 <= nnz / 4, not for one row more; the results are right either way. */
static void test_size_bound(void **state) {
    (void)state;
    mt_seed(77);
    for (int64_t n = 40; n <= 43; n++) {
        const int64_t at = n / 4 - 1; /* rows + 1 == nnz / 4 */
        for (int64_t rows = at; rows <= at + 1; rows++) {
            spt_tensor *t = rows_tensor(SPT_FLOAT64, rows, 5, n, false);
            expect_rows(t, false);
            assert_int_equal(cached(t), rows == at);
            expect_rows(t, false); /* and once more, through the cache when there is one */
            spt_tensor_free(t);
        }
    }
    /* not 2-D, not row-major, not sorted: never */
    int64_t s3[3] = {2, 3, 4};
    spt_tensor *t3 = mt_rand_tensor(SPT_FLOAT64, 3, s3, 20, true, true);
    int64_t ax1[1] = {1}, ax12[2] = {1, 2};
    spt_dense *d;
    ASSERT_OK(spt_reduce_sum(t3, ax12, 2, false, &d));
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t3, ax1, 1, false, &d));
    spt_dense_free(d);
    assert_false(cached(t3));
    spt_tensor_free(t3);
    spt_tensor *t = rows_tensor(SPT_FLOAT64, 4, 30, 100, false);
    int64_t colmajor[2] = {1, 0};
    ASSERT_OK(spt_reorder(t, colmajor));
    expect_rows(t, false);
    assert_false(cached(t));
    spt_tensor_free(t);
    /* other reductions of an eligible tensor do not build it */
    t = rows_tensor(SPT_FLOAT64, 4, 30, 100, false);
    int64_t ax0[1] = {0};
    ASSERT_OK(spt_reduce_sum(t, ax0, 1, false, &d));
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, false, &d));
    spt_dense_free(d);
    spt_tensor *s;
    ASSERT_OK(spt_reduce_sum_sparse(t, ax1, 1, false, &s));
    spt_tensor_free(s);
    assert_false(cached(t));
    /* keep_dims uses it (same cells) */
    ASSERT_OK(spt_reduce_sum(t, ax1, 1, true, &d));
    assert_true(cached(t));
    double want[4];
    fold_rows(t, false, want);
    assert_memory_equal(spt_dense_data(d), want, sizeof want);
    spt_dense_free(d);
    spt_tensor_free(t);
}

/* Empty rows everywhere (first and last included), one entry in the first / last row, all entries
 * in one row: every split of the rows between 1-3 threads. 9 rows, 40 entries (the bound exactly). */
static void test_edge_rows(void **state) {
    (void)state;
    static const int64_t counts[4][9] = {
        {40, 0, 0, 0, 0, 0, 0, 0, 0}, /* all in the first row */
        {0, 0, 0, 0, 0, 0, 0, 0, 40}, /* all in the last row */
        {1, 0, 0, 0, 38, 0, 0, 0, 1}, /* first and last row once */
        {0, 9, 9, 0, 4, 0, 9, 9, 0},  /* both ends empty */
    };
    int64_t shape[2] = {9, 5}, ix[80];
    double v[40];
    for (int th = 1; th <= 3; th++) {
        spt_set_num_threads(th);
        for (int c = 0; c < 4; c++) {
            int64_t i = 0;
            for (int64_t r = 0; r < 9; r++)
                for (int64_t k = 0; k < counts[c][r]; k++, i++) {
                    ix[2 * i] = r;
                    ix[2 * i + 1] = k % 5;
                    v[i] = k % 3 == 0 ? -0.0 : (double)(i % 5) - 1.5;
                }
            assert_int_equal(i, 40);
            spt_tensor *t;
            ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 40, ix, v, NULL, &t));
            ASSERT_OK(spt_reorder(t, NULL));
            expect_rows(t, false);
            assert_true(cached(t));
            expect_rows(t, false);
            expect_rows(t, true);
            spt_tensor_free(t);
        }
    }
    spt_set_num_threads(0);
}

/* Every in-place change of indices, shape or order drops the row pointer; a change of values keeps it
 * and the sums follow the new values. */
static void test_mutation_drops(void **state) {
    (void)state;
    mt_seed(31337);
    spt_tensor *t = rows_tensor(SPT_FLOAT64, 20, 10, 400, false);
    expect_rows(t, false);
    assert_true(cached(t));
    /* values: kept */
    double *v = spt_tensor_values_mut(t);
    v[0] += 1000;
    v[399] -= 3;
    assert_true(cached(t));
    expect_rows(t, false);
    /* set_shape: more rows, still eligible -> dropped, rebuilt for the new shape */
    int64_t grown[2] = {30, 10};
    ASSERT_OK(spt_tensor_set_shape(t, grown));
    assert_false(cached(t));
    expect_rows(t, false);
    assert_true(cached(t));
    /* set_shape back to fewer rows */
    int64_t shrunk[2] = {20, 10};
    ASSERT_OK(spt_tensor_set_shape(t, shrunk));
    assert_false(cached(t));
    expect_rows(t, false);
    assert_true(cached(t));
    /* in-place reorder to another order and back */
    int64_t colmajor[2] = {1, 0};
    ASSERT_OK(spt_reorder(t, colmajor));
    assert_false(cached(t));
    expect_rows(t, false);
    assert_false(cached(t));
    ASSERT_OK(spt_reorder(t, NULL));
    expect_rows(t, false);
    assert_true(cached(t));
    /* reorder to the order it already has: nothing moves, the cache stays */
    ASSERT_OK(spt_reorder(t, NULL));
    assert_true(cached(t));
    /* set_order */
    int64_t rm[2] = {0, 1};
    ASSERT_OK(spt_tensor_set_order(t, rm));
    assert_false(cached(t));
    ASSERT_OK(spt_reorder(t, NULL)); /* sorted again (nothing moves): the flag is back */
    expect_rows(t, false);
    assert_true(cached(t));
    /* the mutable indices: move every entry of row 5 to row 6 (still sorted), then tell the library */
    int64_t *ix = spt_tensor_indices_mut(t);
    assert_false(cached(t));
    for (int64_t i = 0; i < spt_tensor_nnz(t); i++)
        if (ix[2 * i] == 5) ix[2 * i] = 6;
    ASSERT_OK(spt_reorder(t, NULL));
    double *got = row_reduce(t, false);
    assert_true(got[5] == 0.0);
    free(got);
    expect_rows(t, false);
    assert_true(cached(t));
    spt_tensor_free(t);
}

/* A clone starts without the row pointer and builds its own; both free cleanly (ASan). */
static void test_clone(void **state) {
    (void)state;
    mt_seed(5);
    spt_tensor *t = rows_tensor(SPT_INT32, 10, 10, 200, false), *c;
    expect_rows(t, false);
    assert_true(cached(t));
    ASSERT_OK(spt_tensor_clone(t, &c));
    assert_false(cached(c));
    assert_true(spt_tensor_known_sorted(c));
    expect_rows(c, false);
    assert_true(cached(c));
    assert_ptr_not_equal(atomic_load(&c->rowptr), atomic_load(&t->rowptr));
    spt_tensor_free(t);
    expect_rows(c, false);
    spt_tensor_free(c);
}

/* Allocation failures: each run clones the source (no row pointer) and sums its rows. A failure of the
 * row pointer's allocation is not an error: the plain path gives the same bytes. */
typedef struct {
    const spt_tensor *src;
    const void *want;
    spt_tensor *c;
    spt_dense *d;
    int fallbacks;
} sweep_ctx;

static spt_status sweep_run(void *p) {
    sweep_ctx *x = p;
    int64_t ax[1] = {1};
    spt_status st = spt_tensor_clone(x->src, &x->c);
    if (st != SPT_OK) return st;
    st = spt_reduce_sum(x->c, ax, 1, false, &x->d);
    if (st != SPT_OK) return st;
    assert_memory_equal(spt_dense_data(x->d), x->want, 16 * sizeof(double));
    if (!cached(x->c)) x->fallbacks++;
    return SPT_OK;
}

static void sweep_clean(void *p) {
    sweep_ctx *x = p;
    spt_dense_free(x->d);
    spt_tensor_free(x->c);
    x->d = NULL;
    x->c = NULL;
}

static void test_alloc_failure(void **state) {
    (void)state;
    mt_seed(11);
    spt_tensor *t = rows_tensor(SPT_FLOAT64, 16, 8, 100, false);
    double want[16];
    fold_rows(t, false, want);
    sweep_ctx x = {t, want, NULL, NULL, 0};
    long runs = spt_test_alloc_sweep(sweep_run, sweep_clean, &x);
    assert_true(runs > 0);
    assert_int_equal(x.fallbacks, 1); /* exactly one allocation is the row pointer's */
    spt_tensor_free(t);
}

int main(void) {
    spt_test_alloc_install(); /* before anything is allocated: the sweep's frees go through it too */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bits_every_dtype),
        cmocka_unit_test(test_size_bound),
        cmocka_unit_test(test_edge_rows),
        cmocka_unit_test(test_mutation_drops),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
