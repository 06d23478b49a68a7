/* SPDX-License-Identifier: Apache-2.0 */
/* test_grad_fill_empty_rows.c -- spt_fill_empty_rows_grad (SparseFillEmptyRowsGrad) against finite
 * differences over the input values and the default value. */
#include "../grad_test_util.h"

typedef struct {
    spt_tensor *t;
    double def;
    double *w;
} ctx_t;

static double loss(void *p) {
    ctx_t *c = p;
    spt_tensor *o;
    ASSERT_OK(spt_fill_empty_rows(c->t, &c->def, &o, NULL, NULL));
    double l = gt_dot(c->w, spt_tensor_values(o), spt_tensor_nnz(o));
    spt_tensor_free(o);
    return l;
}

static void test_fd(void **state) {
    (void)state;
    mt_seed(81);
    for (int trial = 0; trial < 12; trial++) {
        int64_t r = 1 + trial % 3, shape[3] = {1 + mt_int(6), 1 + mt_int(4), 1 + mt_int(3)};
        ctx_t c = {gt_tensor(r, shape, mt_int(mt_volume(r, shape) + 1), trial & 2, trial & 1), gt_rand(), NULL};
        spt_tensor *o;
        spt_dense *map, *ind;
        ASSERT_OK(spt_fill_empty_rows(c.t, &c.def, &o, &ind, &map));
        c.w = malloc((size_t)(spt_tensor_nnz(o) + 1) * sizeof(double));
        gt_fill(c.w, spt_tensor_nnz(o));
        spt_dense *g = gt_vec(c.w, spt_tensor_nnz(o)), *dv, *dd;
        ASSERT_OK(spt_fill_empty_rows_grad(map, g, &dv, &dd));
        gt_fd_check(loss, &c, spt_tensor_values_mut(c.t), spt_tensor_nnz(c.t), spt_dense_data(dv), "values");
        gt_fd_check(loss, &c, &c.def, 1, spt_dense_data(dd), "default_value");
        spt_dense *g32 = gt_dense_f32(g), *dv32, *dd32;
        ASSERT_OK(spt_fill_empty_rows_grad(map, g32, &dv32, &dd32));
        gt_assert_f32(dv32, dv);
        gt_assert_f32(dd32, dd);
        spt_dense_free(dv32);
        spt_dense_free(dd32);
        spt_dense_free(g32);
        spt_dense_free(dv);
        spt_dense_free(dd);
        spt_dense_free(g);
        spt_dense_free(map);
        spt_dense_free(ind);
        spt_tensor_free(o);
        free(c.w);
        spt_tensor_free(c.t);
    }
}

static void test_errors(void **state) {
    (void)state;
    int64_t n2 = 2, bad[2] = {0, 3};
    spt_dense *map, *g = gt_vec((double[]){1, 2, 3}, 3), *dv = (spt_dense *)1, *dd = (spt_dense *)1;
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, &n2, bad, &map));
    ASSERT_ST(SPT_ERANGE, spt_fill_empty_rows_grad(map, g, &dv, &dd));
    assert_null(dv);
    assert_null(dd);
    ASSERT_MSG("reverse_index_map[1] = 3 is not in [0, 3)");
    ASSERT_ST(SPT_EINVAL, spt_fill_empty_rows_grad(g, g, &dv, &dd));
    spt_dense_free(map);
    spt_dense_free(g);
}

typedef struct {
    spt_dense *map, *g, *dv, *dd;
} sweep_t;
static spt_status run(void *p) {
    sweep_t *c = p;
    return spt_fill_empty_rows_grad(c->map, c->g, &c->dv, &c->dd);
}
static void clean(void *p) {
    sweep_t *c = p;
    spt_dense_free(c->dv);
    spt_dense_free(c->dd);
    c->dv = c->dd = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    int64_t n2 = 2, m[2] = {0, 2};
    sweep_t c = {NULL, gt_vec((double[]){1, 2, 3}, 3), NULL, NULL};
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, &n2, m, &c.map));
    spt_test_alloc_sweep(run, clean, &c);
    spt_dense_free(c.map);
    spt_dense_free(c.g);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fd), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_alloc_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
