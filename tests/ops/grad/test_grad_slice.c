/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_slice.c -- spt_slice_grad (SparseSliceGrad) against finite differences. */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *t;
    int64_t start[3], size[3];
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *s;
    ASSERT_OK(spt_slice(c->t, c->start, c->size, &s));
    double l = gt_dot(c->w, spt_tensor_values(s), spt_tensor_nnz(s));
    spt_tensor_free(s);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(71);
    for (int trial = 0; trial < 12; trial++) {
        int64_t r = 1 + trial % 3, shape[3] = {1 + mt_int(5), 1 + mt_int(5), 1 + mt_int(4)};
        ctx_t c = {gt_tensor(r, shape, mt_int(mt_volume(r, shape) + 1), trial & 2, trial & 1), {0}, {0}, NULL};
        for (int64_t d = 0; d < r; d++) {
            c.start[d] = mt_int(shape[d] + 1);
            c.size[d] = mt_int(shape[d] + 2);
        }
        spt_tensor *s;
        ASSERT_OK(spt_slice(c.t, c.start, c.size, &s));
        c.w = malloc((size_t)(spt_tensor_nnz(s) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(s));
        spt_dense *g = gt_vec(c.w, spt_tensor_nnz(s)), *gi;
        ASSERT_OK(spt_slice_grad(g, c.t, c.start, s, &gi));
        gt_fd_check(loss, &c, spt_tensor_values_mut(c.t), spt_tensor_nnz(c.t), spt_dense_data(gi), "slice_grad");
        spt_tensor *t32 = gt_to_f32(c.t), *s32 = gt_to_f32(s);
        spt_dense *g32 = gt_dense_f32(g), *gi32;
        ASSERT_OK(spt_slice_grad(g32, t32, c.start, s32, &gi32));
        gt_assert_f32(gi32, gi);
        spt_dense_free(gi32);
        spt_dense_free(g32);
        spt_tensor_free(t32);
        spt_tensor_free(s32);
        spt_dense_free(gi);
        spt_dense_free(g);
        spt_tensor_free(s);
        free(c.w);
        spt_tensor_free(c.t);
    }
}

static void test_errors(void **state) {
    (void)state;
    int64_t sh[2] = {3, 3}, ix[4] = {0, 0, 2, 2}, start[2] = {1, 1}, oix[2] = {0, 0};
    double v[2] = {1, 2};
    spt_tensor *t, *o;
    spt_dense *g = gt_vec((double[]){5}, 1), *gi = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, sh, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 2}, 1, oix, v, NULL, &o)); /* [0,0]+start is not an entry */
    ASSERT_ST(SPT_EINVAL, spt_slice_grad(g, t, start, o, &gi));
    assert_null(gi);
    ASSERT_MSG("is not an entry of the input shifted by start");
    spt_tensor_free(o);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 2}, 1, (int64_t[]){1, 1}, v, NULL, &o));
    ASSERT_OK(spt_slice_grad(g, t, start, o, &gi));
    assert_true(((const double *)spt_dense_data(gi))[0] == 0 && ((const double *)spt_dense_data(gi))[1] == 5);
    spt_dense_free(gi);
    ASSERT_ST(SPT_EINVAL, spt_slice_grad(g, t, (int64_t[]){-1, 0}, o, &gi));
    spt_dense_free(g);
    g = gt_vec((double[]){5, 6}, 2);
    ASSERT_ST(SPT_EINVAL, spt_slice_grad(g, t, start, o, &gi));
    spt_dense_free(g);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static int64_t g_start[2] = {1, 0};
static spt_status sweep_op(gt_call *c) { return spt_slice_grad(c->g, c->a, g_start, c->b, &c->o[0]); }
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(72);
    spt_tensor *t = gt_tensor(2, (int64_t[]){4, 4}, 8, false, true), *s;
    ASSERT_OK(spt_slice(t, g_start, (int64_t[]){2, 3}, &s));
    double w[16] = {0};
    spt_dense *g = gt_vec(w, spt_tensor_nnz(s));
    gt_call c = {.op = sweep_op, .a = t, .b = s, .g = g};
    spt_test_alloc_sweep(gt_run, gt_clean, &c);
    spt_dense_free(g);
    spt_tensor_free(s);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
