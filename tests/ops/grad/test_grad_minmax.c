/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_minmax.c -- spt_maximum_grad / spt_minimum_grad against finite differences (values are
 * continuous random numbers, so no ties and no value at 0). */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *a, *b;
    bool max;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *o;
    ASSERT_OK((c->max ? spt_maximum : spt_minimum)(c->a, c->b, &o));
    double l = gt_dot(c->w, spt_tensor_values(o), spt_tensor_nnz(o));
    spt_tensor_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(151);
    for (int trial = 0; trial < 16; trial++) {
        int64_t r = 1 + trial % 3, shape[3] = {1 + mt_int(4), 1 + mt_int(3), 1 + mt_int(3)}, vol = mt_volume(r, shape);
        ctx_t c = {gt_tensor(r, shape, mt_int(vol + 1), false, trial & 2),
                   gt_tensor(r, shape, mt_int(vol + 1), false, false), trial & 1, NULL};
        spt_tensor *o;
        ASSERT_OK((c.max ? spt_maximum : spt_minimum)(c.a, c.b, &o));
        c.w = malloc((size_t)(spt_tensor_nnz(o) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(o));
        gt_check_pair_grad((c.max ? spt_maximum_grad : spt_minimum_grad), loss, &c, c.a, c.b, o, c.w, "minmax_grad");
        spt_tensor_free(o);
        free(c.w);
        spt_tensor_free(c.a);
        spt_tensor_free(c.b);
    }
}

static void test_ties_and_errors(void **state) {
    (void)state;
    /* a = [2, -1] at [0], [1]; b = [2] at [0]: max = [2 (tie: a), 0 (implicit b wins over -1)] */
    int64_t s2[1] = {2}, ia[2] = {0, 1}, ib[1] = {0}, dup[2] = {0, 0};
    double va[2] = {2, -1}, vb[1] = {2};
    spt_tensor *a, *b, *o, *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s2, 2, ia, va, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s2, 1, ib, vb, NULL, &b));
    ASSERT_OK(spt_maximum(a, b, &o));
    spt_dense *g = gt_vec((double[]){3, 4}, 2), *ga = (spt_dense *)1, *gb = (spt_dense *)1;
    ASSERT_OK(spt_maximum_grad(a, b, o, g, &ga, &gb));
    assert_true(((const double *)spt_dense_data(ga))[0] == 3 && ((const double *)spt_dense_data(ga))[1] == 0);
    assert_true(((const double *)spt_dense_data(gb))[0] == 0);
    spt_dense_free(ga);
    spt_dense_free(gb);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s2, 2, dup, va, NULL, &d));
    ASSERT_ST(SPT_EINVAL, spt_maximum_grad(d, b, o, g, &ga, &gb));
    assert_null(ga);
    ASSERT_MSG("operand a has a repeated index");
    spt_tensor_free(d);
    spt_dense_free(g);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static spt_status sweep_op(gt_call *c) { return spt_minimum_grad(c->a, c->b, c->c, c->g, &c->o[0], &c->o[1]); }
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(152);
    spt_tensor *a = gt_tensor(2, (int64_t[]){3, 3}, 5, false, false),
               *b = gt_tensor(2, (int64_t[]){3, 3}, 5, false, false), *o;
    ASSERT_OK(spt_minimum(a, b, &o));
    double w[10] = {0};
    spt_dense *g = gt_vec(w, spt_tensor_nnz(o));
    gt_call c = {.op = sweep_op, .a = a, .b = b, .c = o, .g = g};
    spt_test_alloc_sweep(gt_run, gt_clean, &c);
    spt_dense_free(g);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_ties_and_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
