/* SPDX-License-Identifier: Apache-2.0 */
/* merge_test_common.h -- tensor maker, reference and thread/sweep helpers shared by test_add.c and test_minmax.c.
 * Header-only. */
#ifndef MERGE_TEST_COMMON_H
#define MERGE_TEST_COMMON_H

#include "math_test_util.h"

enum { MG_ADD, MG_MAX, MG_MIN };
typedef spt_status (*mg_fn)(const spt_tensor *, const spt_tensor *, spt_tensor **);

/* A tensor from arrays (spt_tensor_new, unsorted). */
static inline spt_tensor *mk(spt_dtype dt, int64_t r, const int64_t *shape, int64_t n, const int64_t *ix,
                             const void *v) {
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(dt, r, shape, n, ix, v, NULL, &t));
    return t;
}

static double complex mg_op(int op, double complex x, double complex y) {
    if (op == MG_ADD) return x + y;
    if (op == MG_MAX) return creal(x) < creal(y) ? y : x;
    return creal(y) < creal(x) ? y : x;
}

/* Check o = op(a, b) for inputs without repeated indices: the union of the cells in row-major order. */
static void mg_check(int op, const spt_tensor *a, const spt_tensor *b, double thresh, const spt_tensor *o) {
    spt_dtype dt = spt_tensor_dtype(a);
    int64_t *ca, *cb, vol = spt_tensor_volume(a);
    double complex *da = mt_dense_sum(a, &ca), *db = mt_dense_sum(b, &cb);
    int64_t k = 0;
    for (int64_t c = 0; c < vol; c++) {
        double complex want;
        if (ca[c] && cb[c]) {
            want = mg_op(op, da[c], db[c]);
            if (op == MG_ADD) {
                double mag = cabs(want);
                if (dt == SPT_FLOAT32) mag = (float)mag;
                if (dt == SPT_COMPLEX64) mag = (double)cabsf((float complex)want);
                if (!(thresh <= mag)) continue;
            }
        } else if (ca[c]) want = op == MG_ADD ? da[c] : mg_op(op, da[c], 0);
        else if (cb[c]) want = op == MG_ADD ? db[c] : mg_op(op, 0, db[c]);
        else continue;
        assert_true(k < spt_tensor_nnz(o));
        assert_int_equal(mt_offset(o, k), c);
        mt_assert_close(dt, mt_get(dt, spt_tensor_values(o), k), want, "merge", k);
        k++;
    }
    assert_int_equal(k, spt_tensor_nnz(o));
    assert_true(spt_tensor_is_row_major(o, true) && spt_tensor_known_valid(o));
    free(da);
    free(db);
    free(ca);
    free(cb);
}

/* Threaded vs serial: identical bytes (sums of two values do not depend on the split). */
static void mg_threads(mg_fn f, spt_dtype dt) {
    mt_seed(4242);
    int64_t shape[2] = {700, 900};
    for (int sorted = 0; sorted < 2; sorted++) {
        spt_tensor *a = mt_big_tensor(dt, 2, shape, 150000, sorted), *b = mt_big_tensor(dt, 2, shape, 120000, sorted);
        mt_call c = {.op = mt_call_binary, .bin = f, .a = a, .b = b};
        mt_call_threads(&c);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
}

static void mg_sweep(mg_fn f) {
    spt_test_alloc_install();
    mt_seed(5);
    int64_t shape[2] = {5, 6};
    for (int sorted = 0; sorted < 2; sorted++) {
        spt_tensor *a = mt_rand_tensor(SPT_FLOAT64, 2, shape, 12, true, sorted);
        spt_tensor *b = mt_rand_tensor(SPT_FLOAT64, 2, shape, 9, true, sorted);
        mt_call c = {.op = mt_call_binary, .bin = f, .a = a, .b = b};
        mt_call_sweep(&c);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
}

#endif /* MERGE_TEST_COMMON_H */
