/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_matmul.c -- spt_sparse_dense_matmul_grad (both operands, every adjoint combination) against
 * finite differences. */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *a;
    spt_dense *b;
    bool adja, adjb;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_dense *o;
    ASSERT_OK(spt_sparse_dense_matmul(c->a, c->b, c->adja, c->adjb, &o));
    double l = gt_dot(c->w, spt_dense_data(o), spt_dense_size(o));
    spt_dense_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(111);
    for (int trial = 0; trial < 16; trial++) {
        bool adja = trial & 1, adjb = trial & 2;
        int64_t M = 1 + mt_int(4), K = 1 + mt_int(4), N = 1 + mt_int(4);
        int64_t sa[2] = {adja ? K : M, adja ? M : K}, sb[2] = {adjb ? N : K, adjb ? K : N};
        ctx_t c = {gt_tensor(2, sa, mt_int(M * K + 2), true, trial & 4), NULL, adja, adjb, NULL};
        ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, sb, &c.b));
        gt_fill(spt_dense_data_mut(c.b), spt_dense_size(c.b));
        c.w = malloc((size_t)(M * N) * sizeof(double));
        gt_fill(c.w, M * N);
        spt_dense *g, *ga, *gb;
        ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, (int64_t[]){M, N}, c.w, &g));
        ASSERT_OK(spt_sparse_dense_matmul_grad(c.a, c.b, adja, adjb, g, &ga, &gb));
        gt_fd_check(loss, &c, spt_tensor_values_mut(c.a), spt_tensor_nnz(c.a), spt_dense_data(ga), "matmul_grad a");
        assert_int_equal(spt_dense_size(gb), spt_dense_size(c.b));
        gt_fd_check(loss, &c, spt_dense_data_mut(c.b), spt_dense_size(c.b), spt_dense_data(gb), "matmul_grad b");
        spt_tensor *a32 = gt_to_f32(c.a);
        spt_dense *b32 = gt_dense_f32(c.b), *g32 = gt_dense_f32(g), *ga32, *gb32;
        ASSERT_OK(spt_sparse_dense_matmul_grad(a32, b32, adja, adjb, g32, &ga32, NULL));
        gt_assert_f32(ga32, ga);
        ASSERT_OK(spt_sparse_dense_matmul_grad(a32, b32, adja, adjb, g32, NULL, &gb32));
        gt_assert_f32(gb32, gb);
        spt_dense_free(ga32);
        spt_dense_free(gb32);
        spt_dense_free(g32);
        spt_dense_free(b32);
        spt_tensor_free(a32);
        spt_dense_free(ga);
        spt_dense_free(gb);
        spt_dense_free(g);
        free(c.w);
        spt_dense_free(c.b);
        spt_tensor_free(c.a);
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a;
    spt_dense *b, *g, *ga = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 4}, &b));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){2, 5}, &g));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matmul_grad(a, b, false, false, g, &ga, NULL));
    assert_null(ga);
    ASSERT_MSG("grad must be [2, 4]");
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matmul_grad(a, b, false, false, g, NULL, NULL));
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matmul_grad(a, b, true, false, g, &ga, NULL));
    ASSERT_MSG("inner dimension does not match");
    spt_dense_free(g);
    spt_dense_free(b);
    spt_tensor_free(a);
}

typedef struct {
    spt_tensor *a;
    spt_dense *b, *g, *ga, *gb;
} sweep_t;
static spt_status run(void *p) {
    sweep_t *c = p;
    return spt_sparse_dense_matmul_grad(c->a, c->b, false, true, c->g, &c->ga, &c->gb);
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
    mt_seed(112);
    sweep_t c = {gt_tensor(2, (int64_t[]){3, 4}, 6, false, false), NULL, NULL, NULL, NULL};
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){5, 4}, &c.b));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){3, 5}, &c.g));
    spt_test_alloc_sweep(run, clean, &c);
    spt_dense_free(c.b);
    spt_dense_free(c.g);
    spt_tensor_free(c.a);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
