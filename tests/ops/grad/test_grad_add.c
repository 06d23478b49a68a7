/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_add.c -- spt_add_grad (SparseAddGrad) against finite differences. */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *a, *b;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *s;
    ASSERT_OK(spt_add(c->a, c->b, 0, &s));
    double l = gt_dot(c->w, spt_tensor_values(s), spt_tensor_nnz(s));
    spt_tensor_free(s);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(61);
    for (int trial = 0; trial < 10; trial++) {
        int64_t shape[3] = {1 + mt_int(4), 1 + mt_int(4), 1 + mt_int(3)}, r = 1 + trial % 3, vol = mt_volume(r, shape);
        ctx_t c = {gt_tensor(r, shape, mt_int(vol + 1), false, trial & 1),
                   gt_tensor(r, shape, mt_int(vol + 1), false, false), NULL};
        spt_tensor *s;
        ASSERT_OK(spt_add(c.a, c.b, 0, &s));
        c.w = malloc((size_t)(spt_tensor_nnz(s) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(s));
        gt_check_pair_grad(spt_add_grad, loss, &c, c.a, c.b, s, c.w, "add_grad");
        spt_tensor_free(s);
        free(c.w);
        spt_tensor_free(c.a);
        spt_tensor_free(c.b);
    }
}

static void test_threshold_and_errors(void **state) {
    (void)state;
    /* a = [1, -1], b = [0, 1] at [0], [1]: with thresh 0.5 the sum at [1] (0) is dropped: its grads are 0 */
    int64_t s2[1] = {2}, ia[2] = {0, 1}, ib[1] = {1};
    double va[2] = {1, -1}, vb[1] = {1};
    spt_tensor *a, *b, *s;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s2, 2, ia, va, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s2, 1, ib, vb, NULL, &b));
    ASSERT_OK(spt_add(a, b, 0.5, &s));
    assert_int_equal(spt_tensor_nnz(s), 1);
    spt_dense *g = gt_vec((double[]){7}, 1), *ga = (spt_dense *)1, *gb = (spt_dense *)1;
    ASSERT_OK(spt_add_grad(a, b, s, g, &ga, &gb));
    assert_true(((const double *)spt_dense_data(ga))[0] == 7 && ((const double *)spt_dense_data(ga))[1] == 0);
    assert_true(((const double *)spt_dense_data(gb))[0] == 0);
    spt_dense_free(ga);
    spt_dense_free(gb);
    spt_dense_free(g);
    g = gt_vec((double[]){7, 8}, 2);
    ASSERT_ST(SPT_EINVAL, spt_add_grad(a, b, s, g, &ga, &gb));
    assert_null(ga);
    assert_null(gb);
    ASSERT_MSG("backprop_val_grad must be a vector of 1 values");
    spt_dense_free(g);
    spt_tensor *i32;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 1, s2, 0, NULL, NULL, NULL, &i32));
    g = gt_vec(NULL, 0);
    ASSERT_ST(SPT_EDTYPE, spt_add_grad(i32, i32, i32, g, &ga, &gb));
    spt_dense_free(g);
    spt_tensor_free(i32);
    spt_tensor_free(s);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

typedef struct {
    spt_tensor *a, *b, *s;
    spt_dense *g, *ga, *gb;
} sweep_t;
static spt_status run(void *p) {
    sweep_t *c = p;
    return spt_add_grad(c->a, c->b, c->s, c->g, &c->ga, &c->gb);
}
static void clean(void *p) {
    sweep_t *c = p;
    spt_dense_free(c->ga);
    spt_dense_free(c->gb);
    c->ga = c->gb = NULL;
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(62);
    int64_t shape[2] = {4, 5};
    sweep_t c = {gt_tensor(2, shape, 8, false, false), gt_tensor(2, shape, 8, false, false), NULL, NULL, NULL, NULL};
    ASSERT_OK(spt_add(c.a, c.b, 0, &c.s));
    double w[16] = {0};
    c.g = gt_vec(w, spt_tensor_nnz(c.s));
    spt_test_alloc_sweep(run, clean, &c);
    spt_dense_free(c.g);
    spt_tensor_free(c.s);
    spt_tensor_free(c.a);
    spt_tensor_free(c.b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fd),
        cmocka_unit_test(test_threshold_and_errors),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
