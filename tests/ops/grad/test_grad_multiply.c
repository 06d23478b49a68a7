/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_multiply.c -- spt_multiply_grad against finite differences (duplicates included). */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *a, *b;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *o;
    ASSERT_OK(spt_multiply(c->a, c->b, &o));
    double l = gt_dot(c->w, spt_tensor_values(o), spt_tensor_nnz(o));
    spt_tensor_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(131);
    for (int trial = 0; trial < 12; trial++) {
        int64_t r = 1 + trial % 3, shape[3] = {1 + mt_int(4), 1 + mt_int(3), 1 + mt_int(3)}, vol = mt_volume(r, shape);
        ctx_t c = {gt_tensor(r, shape, mt_int(vol + 2), trial & 1, trial & 2),
                   gt_tensor(r, shape, mt_int(vol + 2), trial & 4, false), NULL};
        spt_tensor *o;
        ASSERT_OK(spt_multiply(c.a, c.b, &o));
        c.w = malloc((size_t)(spt_tensor_nnz(o) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(o));
        gt_check_pair_grad(spt_multiply_grad, loss, &c, c.a, c.b, o, c.w, "multiply_grad");
        spt_tensor_free(o);
        free(c.w);
        spt_tensor_free(c.a);
        spt_tensor_free(c.b);
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a, *b;
    spt_dense *g = gt_vec((double[]){1}, 1), *ga = (spt_dense *)1, *gb = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 4}, 0, NULL, NULL, NULL, &b));
    ASSERT_ST(SPT_EINVAL, spt_multiply_grad(a, b, a, g, &ga, &gb));
    assert_null(ga);
    ASSERT_MSG("shapes differ in dimension 1");
    ASSERT_ST(SPT_EINVAL, spt_multiply_grad(a, a, a, g, &ga, &gb));
    ASSERT_MSG("grad must be a vector of 0 values");
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_dense_free(g);
}

static spt_status sweep_op(gt_call *c) { return spt_multiply_grad(c->a, c->b, c->c, c->g, &c->o[0], &c->o[1]); }
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(132);
    spt_tensor *a = gt_tensor(2, (int64_t[]){3, 3}, 6, false, false),
               *b = gt_tensor(2, (int64_t[]){3, 3}, 6, false, false), *o;
    ASSERT_OK(spt_multiply(a, b, &o));
    double w[9] = {0};
    spt_dense *g = gt_vec(w, spt_tensor_nnz(o));
    gt_call c = {.op = sweep_op, .a = a, .b = b, .c = o, .g = g};
    spt_test_alloc_sweep(gt_run, gt_clean, &c);
    spt_dense_free(g);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
