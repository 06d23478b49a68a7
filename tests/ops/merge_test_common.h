/* merge_test_common.h -- reference and thread/sweep helpers shared by test_add.c and test_minmax.c.
 * Header-only. */
#ifndef MERGE_TEST_COMMON_H
#define MERGE_TEST_COMMON_H

#include "math_test_util.h"

enum { MG_ADD, MG_MAX, MG_MIN };
typedef spt_status (*mg_fn)(const spt_tensor *, const spt_tensor *, spt_tensor **);

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
        spt_tensor *o1, *o2;
        spt_set_num_threads(1);
        ASSERT_OK(f(a, b, &o1));
        spt_set_num_threads(2);
        ASSERT_OK(f(a, b, &o2));
        spt_set_num_threads(0);
        mt_assert_same_tensor(o1, o2);
        spt_tensor_free(o1);
        spt_tensor_free(o2);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
}

typedef struct {
    mg_fn f;
    const spt_tensor *a, *b;
    spt_tensor *o;
} mg_sweep_ctx;
static spt_status mg_sweep_run(void *p) {
    mg_sweep_ctx *c = p;
    return c->f(c->a, c->b, &c->o);
}
static void mg_sweep_clean(void *p) {
    mg_sweep_ctx *c = p;
    spt_tensor_free(c->o);
    c->o = NULL;
}
static void mg_sweep(mg_fn f) {
    spt_test_alloc_install();
    mt_seed(5);
    int64_t shape[2] = {5, 6};
    for (int sorted = 0; sorted < 2; sorted++) {
        spt_tensor *a = mt_rand_tensor(SPT_FLOAT64, 2, shape, 12, true, sorted);
        spt_tensor *b = mt_rand_tensor(SPT_FLOAT64, 2, shape, 9, true, sorted);
        mg_sweep_ctx c = {f, a, b, NULL};
        spt_test_alloc_sweep(mg_sweep_run, mg_sweep_clean, &c);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
}

#endif /* MERGE_TEST_COMMON_H */
