/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_concat.c -- spt_concat_grad against finite differences (every axis, duplicates, unsorted
 * inputs, expand_nonconcat_dim). */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *in[3];
    int64_t n, axis;
    bool expand;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *o;
    ASSERT_OK(spt_concat((const spt_tensor *const *)c->in, c->n, c->axis, c->expand, &o));
    double l = gt_dot(c->w, spt_tensor_values(o), spt_tensor_nnz(o));
    spt_tensor_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(141);
    for (int trial = 0; trial < 16; trial++) {
        int64_t r = 1 + trial % 3;
        ctx_t c = {{NULL}, 1 + mt_int(3), mt_int(r) - (trial & 8 ? r : 0), trial & 4, NULL};
        int64_t base[3] = {1 + mt_int(3), 1 + mt_int(3), 1 + mt_int(3)};
        for (int64_t i = 0; i < c.n; i++) {
            int64_t sh[3];
            for (int64_t d = 0; d < r; d++) sh[d] = c.expand ? 1 + mt_int(3) : base[d];
            sh[(c.axis + r) % r] = mt_int(3);
            c.in[i] = gt_tensor(r, sh, mt_int(mt_volume(r, sh) + 2), trial & 1, trial & 2);
        }
        spt_tensor *o;
        ASSERT_OK(spt_concat((const spt_tensor *const *)c.in, c.n, c.axis, c.expand, &o));
        c.w = malloc((size_t)(spt_tensor_nnz(o) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(o));
        spt_dense *g = gt_vec(c.w, spt_tensor_nnz(o)), *gi[3], *gi32[3];
        ASSERT_OK(spt_concat_grad((const spt_tensor *const *)c.in, c.n, c.axis, c.expand, g, gi));
        spt_tensor *in32[3];
        for (int64_t i = 0; i < c.n; i++) in32[i] = gt_to_f32(c.in[i]);
        spt_dense *g32 = gt_dense_f32(g);
        ASSERT_OK(spt_concat_grad((const spt_tensor *const *)in32, c.n, c.axis, c.expand, g32, gi32));
        for (int64_t i = 0; i < c.n; i++) {
            gt_fd_check(loss, &c, spt_tensor_values_mut(c.in[i]), spt_tensor_nnz(c.in[i]), spt_dense_data(gi[i]),
                        "concat_grad");
            gt_assert_f32(gi32[i], gi[i]);
            spt_dense_free(gi[i]);
            spt_dense_free(gi32[i]);
            spt_tensor_free(in32[i]);
        }
        spt_dense_free(g32);
        spt_dense_free(g);
        spt_tensor_free(o);
        free(c.w);
        for (int64_t i = 0; i < c.n; i++) spt_tensor_free(c.in[i]);
    }
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *in[2];
    spt_dense *g = gt_vec(NULL, 0), *gi[2] = {(spt_dense *)1, (spt_dense *)1};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 3}, 0, NULL, NULL, NULL, &in[0]));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, (int64_t[]){2, 4}, 0, NULL, NULL, NULL, &in[1]));
    ASSERT_ST(SPT_EINVAL, spt_concat_grad((const spt_tensor *const *)in, 2, 0, false, g, gi));
    assert_null(gi[0]);
    assert_null(gi[1]);
    ASSERT_MSG("Input shapes must match");
    ASSERT_OK(spt_concat_grad((const spt_tensor *const *)in, 2, 1, false, g, gi));
    spt_dense_free(gi[0]);
    spt_dense_free(gi[1]);
    ASSERT_ST(SPT_ERANGE, spt_concat_grad((const spt_tensor *const *)in, 2, 2, false, g, gi));
    ASSERT_ST(SPT_EINVAL, spt_concat_grad((const spt_tensor *const *)in, 0, 0, false, g, gi));
    spt_tensor_free(in[0]);
    spt_tensor_free(in[1]);
    spt_dense_free(g);
}

static spt_status sweep_op(gt_call *c) {
    const spt_tensor *in[2] = {c->a, c->b};
    return spt_concat_grad(in, 2, 1, false, c->g, c->o);
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    mt_seed(142);
    spt_tensor *a = gt_tensor(2, (int64_t[]){3, 2}, 4, false, false),
               *b = gt_tensor(2, (int64_t[]){3, 3}, 4, false, false);
    double w[8] = {0};
    spt_dense *g = gt_vec(w, 8);
    gt_call c = {.op = sweep_op, .a = a, .b = b, .g = g};
    spt_test_alloc_sweep(gt_run, gt_clean, &c);
    spt_dense_free(g);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
