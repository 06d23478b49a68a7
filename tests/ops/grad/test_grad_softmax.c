/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_softmax.c -- spt_softmax_grad against finite differences. */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *t;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *o;
    ASSERT_OK(spt_softmax(c->t, &o));
    double l = gt_dot(c->w, spt_tensor_values(o), spt_tensor_nnz(o));
    spt_tensor_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(101);
    for (int trial = 0; trial < 12; trial++) {
        int64_t r = 2 + trial % 2, shape[3] = {1 + mt_int(4), 1 + mt_int(4), 1 + mt_int(4)};
        /* sorted input: softmax's output order is then the input's */
        ctx_t c = {gt_tensor(r, shape, mt_int(mt_volume(r, shape) + 1), false, true), NULL};
        spt_tensor *o;
        ASSERT_OK(spt_softmax(c.t, &o));
        c.w = malloc((size_t)(spt_tensor_nnz(o) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(o));
        spt_dense *g = gt_vec(c.w, spt_tensor_nnz(o)), *gi;
        ASSERT_OK(spt_softmax_grad(o, g, &gi));
        gt_fd_check(loss, &c, spt_tensor_values_mut(c.t), spt_tensor_nnz(c.t), spt_dense_data(gi), "softmax_grad");
        /* the same with sm's entries shuffled (grouping found by a sort): each entry keeps its gradient */
        int64_t n = spt_tensor_nnz(o);
        if (n > 1) {
            spt_tensor *rev;
            int64_t *ix = malloc((size_t)n * (size_t)r * sizeof(int64_t));
            double *v = malloc((size_t)n * sizeof(double)), *wr = malloc((size_t)n * sizeof(double));
            for (int64_t i = 0; i < n; i++) {
                memcpy(ix + i * r, spt_tensor_indices(o) + (n - 1 - i) * r, (size_t)r * sizeof(int64_t));
                v[i] = ((const double *)spt_tensor_values(o))[n - 1 - i];
                wr[i] = c.w[n - 1 - i];
            }
            ASSERT_OK(spt_tensor_new(SPT_FLOAT64, r, spt_tensor_shape(o), n, ix, v, NULL, &rev));
            spt_dense *gr = gt_vec(wr, n), *gir;
            ASSERT_OK(spt_softmax_grad(rev, gr, &gir));
            for (int64_t i = 0; i < n; i++)
                assert_true(fabs(((const double *)spt_dense_data(gir))[i] -
                                 ((const double *)spt_dense_data(gi))[n - 1 - i]) < 1e-12);
            spt_dense_free(gir);
            spt_dense_free(gr);
            spt_tensor_free(rev);
            free(ix);
            free(v);
            free(wr);
        }
        spt_tensor *o32 = gt_to_f32(o);
        spt_dense *g32 = gt_dense_f32(g), *gi32;
        ASSERT_OK(spt_softmax_grad(o32, g32, &gi32));
        gt_assert_f32(gi32, gi);
        spt_dense_free(gi32);
        spt_dense_free(g32);
        spt_tensor_free(o32);
        spt_dense_free(gi);
        spt_dense_free(g);
        spt_tensor_free(o);
        free(c.w);
        spt_tensor_free(c.t);
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *t;
    spt_dense *g = gt_vec(NULL, 0), *gi = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, (int64_t[]){3}, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_softmax_grad(t, g, &gi));
    assert_null(gi);
    ASSERT_MSG("rank >= 2");
    spt_tensor_free(t);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 1, (int64_t[]){0, 0}, &(double){1}, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_softmax_grad(t, g, &gi));
    spt_tensor_free(t);
    spt_dense_free(g);
}

static spt_status sweep_op(gt_call *c) { return spt_softmax_grad(c->a, c->g, &c->o[0]); }
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(102);
    spt_tensor *t = gt_tensor(2, (int64_t[]){4, 4}, 8, false, false); /* unsorted: the sorting path */
    double w[8] = {0};
    spt_dense *g = gt_vec(w, spt_tensor_nnz(t));
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
