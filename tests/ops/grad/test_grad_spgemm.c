/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_spgemm.c -- spt_sparse_sparse_matmul_grad against finite differences (rank 2 and 3). */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *a, *b;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *o;
    ASSERT_OK(spt_sparse_sparse_matmul(c->a, c->b, false, false, true, &o));
    double l = gt_dot(c->w, spt_tensor_values(o), spt_tensor_nnz(o));
    spt_tensor_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(121);
    for (int trial = 0; trial < 12; trial++) {
        int64_t r = 2 + trial % 2, P = 1 + mt_int(3), M = 1 + mt_int(4), K = 1 + mt_int(4), N = 1 + mt_int(4);
        int64_t sa[3] = {P, M, K}, sb[3] = {P, K, N};
        ctx_t c = {gt_tensor(r, r == 3 ? sa : sa + 1, mt_int(P * M * K + 2), true, trial & 4),
                   gt_tensor(r, r == 3 ? sb : sb + 1, mt_int(P * K * N + 2), true, trial & 8), NULL};
        spt_tensor *o;
        ASSERT_OK(spt_sparse_sparse_matmul(c.a, c.b, false, false, true, &o));
        c.w = malloc((size_t)(spt_tensor_nnz(o) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(o));
        gt_check_pair_grad(spt_sparse_sparse_matmul_grad, loss, &c, c.a, c.b, o, c.w, "spgemm_grad");
        spt_tensor_free(o);
        free(c.w);
        spt_tensor_free(c.a);
        spt_tensor_free(c.b);
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *a, *b, *c;
    spt_dense *g = gt_vec(NULL, 0), *ga = (spt_dense *)1, *gb = (spt_dense *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){3, 4}, 0, NULL, NULL, NULL, &b));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 5}, 0, NULL, NULL, NULL, &c));
    ASSERT_ST(SPT_EINVAL, spt_sparse_sparse_matmul_grad(a, b, c, g, &ga, &gb));
    assert_null(ga);
    assert_null(gb);
    ASSERT_MSG("c's shape is not the shape of a x b");
    spt_tensor_free(c);
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 4}, 0, NULL, NULL, NULL, &c));
    ASSERT_OK(spt_sparse_sparse_matmul_grad(a, b, c, g, &ga, &gb));
    assert_int_equal(spt_dense_size(ga), 0);
    spt_dense_free(ga);
    spt_dense_free(gb);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(c);
    spt_dense_free(g);
}

typedef struct {
    spt_tensor *a, *b, *c;
    spt_dense *g, *ga, *gb;
} sweep_t;
static spt_status run(void *p) {
    sweep_t *c = p;
    return spt_sparse_sparse_matmul_grad(c->a, c->b, c->c, c->g, &c->ga, &c->gb);
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
    mt_seed(122);
    sweep_t c = {gt_tensor(2, (int64_t[]){3, 4}, 6, false, false),
                 gt_tensor(2, (int64_t[]){4, 3}, 6, false, false),
                 NULL,
                 NULL,
                 NULL,
                 NULL};
    ASSERT_OK(spt_sparse_sparse_matmul(c.a, c.b, false, false, true, &c.c));
    double w[16] = {0};
    c.g = gt_vec(w, spt_tensor_nnz(c.c));
    spt_test_alloc_sweep(run, clean, &c);
    spt_dense_free(c.g);
    spt_tensor_free(c.a);
    spt_tensor_free(c.b);
    spt_tensor_free(c.c);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
