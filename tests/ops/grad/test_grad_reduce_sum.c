/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_reduce_sum.c -- spt_reduce_sum_grad against finite differences. */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *t;
    const int64_t *axes;
    int64_t naxes;
    bool keep;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_dense *o;
    ASSERT_OK(spt_reduce_sum(c->t, c->axes, c->naxes, c->keep, &o));
    double l = gt_dot(c->w, spt_dense_data(o), spt_dense_size(o));
    spt_dense_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(91);
    const int64_t ax0[1] = {0}, ax_last[1] = {-1}, ax01[2] = {0, 1};
    for (int trial = 0; trial < 16; trial++) {
        int64_t r = 1 + trial % 3, shape[3] = {1 + mt_int(4), 1 + mt_int(4), 1 + mt_int(3)};
        ctx_t c = {gt_tensor(r, shape, mt_int(mt_volume(r, shape) + 2), true, trial & 1), NULL, 0, trial & 4, NULL};
        switch (trial / 4) {
        case 0: c.axes = NULL; break;
        case 1: c.axes = ax0, c.naxes = 1; break;
        case 2: c.axes = ax_last, c.naxes = 1; break;
        default: c.axes = r >= 2 ? ax01 : ax0, c.naxes = r >= 2 ? 2 : 1; break;
        }
        spt_dense *o;
        ASSERT_OK(spt_reduce_sum(c.t, c.axes, c.naxes, c.keep, &o));
        c.w = malloc((size_t)(spt_dense_size(o) + 1) * sizeof(double));
        gt_fill(c.w, spt_dense_size(o));
        spt_dense *g, *gi;
        ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, spt_dense_rank(o), spt_dense_shape(o), c.w, &g));
        ASSERT_OK(spt_reduce_sum_grad(c.t, c.axes, c.naxes, c.keep, g, &gi));
        gt_fd_check(loss, &c, spt_tensor_values_mut(c.t), spt_tensor_nnz(c.t), spt_dense_data(gi), "reduce_sum_grad");
        spt_tensor *t32 = gt_to_f32(c.t);
        spt_dense *g32 = gt_dense_f32(g), *gi32;
        ASSERT_OK(spt_reduce_sum_grad(t32, c.axes, c.naxes, c.keep, g32, &gi32));
        gt_assert_f32(gi32, gi);
        spt_dense_free(gi32);
        spt_dense_free(g32);
        spt_tensor_free(t32);
        spt_dense_free(gi);
        spt_dense_free(g);
        spt_dense_free(o);
        free(c.w);
        spt_tensor_free(c.t);
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *t;
    spt_dense *g, *gi = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){2}, &g));
    ASSERT_ST(SPT_EINVAL, spt_reduce_sum_grad(t, (int64_t[]){0}, 1, false, g, &gi));
    assert_null(gi);
    ASSERT_MSG("reduction's shape [3]");
    ASSERT_OK(spt_reduce_sum_grad(t, (int64_t[]){1}, 1, false, g, &gi));
    spt_dense_free(gi);
    ASSERT_ST(SPT_ERANGE, spt_reduce_sum_grad(t, (int64_t[]){2}, 1, false, g, &gi));
    ASSERT_MSG("Invalid reduction dimension 2");
    spt_dense_free(g);
    spt_tensor_free(t);
}

static spt_status sweep_op(gt_call *c) { return spt_reduce_sum_grad(c->a, (int64_t[]){1}, 1, true, c->g, &c->o[0]); }
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(92);
    spt_tensor *t = gt_tensor(2, (int64_t[]){4, 4}, 8, true, false);
    spt_dense *g;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){4, 1}, &g));
    gt_call c = {.op = sweep_op, .a = t, .g = g};
    spt_test_alloc_sweep(gt_run, gt_clean, &c);
    spt_dense_free(g);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
