/* SPDX-License-Identifier: Apache-2.0 */
/* test_concat_primary.c -- SparseTensor::Concat along the primary dimension order[0]. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

/* The seed README example: a 3x3 and a 3x8 matrix, both in order {1,0}, concatenated along columns. */
static void test_seed_readme_example(void **state) {
    (void)state;
    int64_t s1[2] = {3, 3}, s2[2] = {3, 8}, ord[2] = {1, 0};
    int64_t ix1[8] = {1, 0, 2, 0, 0, 2, 2, 2}; /* column-major sorted: (1,0) (2,0) (0,2) (2,2) */
    double v1[4] = {2, 3, 1, 4};
    int64_t ix2[6] = {2, 0, 1, 1, 2, 3};
    double v2[3] = {2, 1, 1};
    spt_tensor *a, *b, *c;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s1, 4, ix1, v1, ord, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s2, 3, ix2, v2, ord, &b));
    const spt_tensor *in[2] = {a, b};
    ASSERT_OK(spt_concat_primary(in, 2, &c));
    int64_t ws[2] = {3, 11}, wix[14] = {1, 0, 2, 0, 0, 2, 2, 2, 2, 3, 1, 4, 2, 6};
    double wv[7] = {2, 3, 1, 4, 2, 1, 1};
    spt_test_expect_tensor(c, 2, ws, 7, wix, wv);
    assert_int_equal(spt_tensor_order(c)[0], 1);
    assert_int_equal(spt_tensor_order(c)[1], 0);
    assert_true(spt_tensor_known_valid(c));
    assert_false(spt_tensor_known_sorted(c)); /* inputs not known sorted */
    ASSERT_OK(spt_indices_valid(c));          /* but they were, so the output is */
    spt_tensor_free(c);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* The seed README coding example: orders {1,0,2},{1,0,2},{1,2,0} -> order -1; after reordering the
 * third, the output keeps {1,0,2} and is valid. Strings. */
static void test_seed_orders(void **state) {
    (void)state;
    lt_rng g = {12345};
    int64_t sh[3][3] = {{10, 20, 5}, {10, 10, 5}, {10, 30, 5}}, o102[3] = {1, 0, 2}, o120[3] = {1, 2, 0};
    spt_tensor *t[3];
    for (int i = 0; i < 3; i++) {
        spt_tensor *x = lt_rand_tensor(&g, 3, sh[i], 3, false);
        int64_t n = spt_tensor_nnz(x);
        spt_str *sv = calloc((size_t)n + 1, sizeof *sv);
        char(*buf)[8] = calloc((size_t)n + 1, 8);
        for (int64_t k = 0; k < n; k++) {
            sv[k].len = snprintf(buf[k], 8, "s%lld", (long long)(((const int64_t *)spt_tensor_values(x))[k]));
            sv[k].data = buf[k];
        }
        ASSERT_OK(spt_tensor_new(SPT_STRING, 3, sh[i], n, spt_tensor_indices(x), sv, NULL, &t[i]));
        ASSERT_OK(spt_reorder(t[i], i == 2 ? o120 : o102));
        free(sv);
        free(buf);
        spt_tensor_free(x);
    }
    spt_tensor *c;
    ASSERT_OK(spt_concat_primary((const spt_tensor *const *)t, 3, &c));
    int64_t ws[3] = {10, 60, 5};
    assert_int_equal(spt_tensor_nnz(c), spt_tensor_nnz(t[0]) + spt_tensor_nnz(t[1]) + spt_tensor_nnz(t[2]));
    for (int d = 0; d < 3; d++) assert_int_equal(spt_tensor_shape(c)[d], ws[d]);
    for (int d = 0; d < 3; d++) assert_int_equal(spt_tensor_order(c)[d], -1);
    /* values: strings owned by the output */
    const spt_str *cv = spt_tensor_values(c), *t0v = spt_tensor_values(t[0]);
    if (spt_tensor_nnz(t[0]) > 0) {
        assert_int_equal(cv[0].len, t0v[0].len);
        assert_ptr_not_equal(cv[0].data, t0v[0].data);
        assert_memory_equal(cv[0].data, t0v[0].data, (size_t)cv[0].len);
    }
    spt_tensor_free(c);
    ASSERT_OK(spt_reorder(t[2], o102));
    ASSERT_OK(spt_concat_primary((const spt_tensor *const *)t, 3, &c));
    for (int d = 0; d < 3; d++) assert_int_equal(spt_tensor_order(c)[d], o102[d]);
    assert_true(spt_tensor_known_sorted(c));
    ASSERT_OK(spt_indices_valid(c));
    lt_check_claims(c);
    spt_tensor_free(c);
    for (int i = 0; i < 3; i++) spt_tensor_free(t[i]);
}

static void test_empty_and_errors(void **state) {
    (void)state;
    int64_t s[2] = {10, 10}, s3[2] = {10, 0}, o01[2] = {0, 1}, o10[2] = {1, 0};
    spt_tensor *a, *b, *c = (spt_tensor *)1, *r3, *f;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 0, NULL, NULL, o01, &a));
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s3, 0, NULL, NULL, o01, &b));
    const spt_tensor *in[3] = {a, a, a};
    ASSERT_OK(spt_concat_primary(in, 3, &c)); /* ConcatEmptyN */
    assert_int_equal(spt_tensor_shape(c)[0], 30);
    assert_int_equal(spt_tensor_nnz(c), 0);
    assert_true(spt_tensor_is_row_major(c, false));
    spt_tensor_free(c);
    /* dims of size 0 in the primary dim are fine; elsewhere they must match */
    const spt_tensor *in2[2] = {a, b};
    ASSERT_ST(SPT_EINVAL, spt_concat_primary(in2, 2, &c));
    assert_null(c);
    ASSERT_MSG("spt_concat_primary");
    ASSERT_ST(SPT_EINVAL, spt_concat_primary(in, 0, &c));
    ASSERT_ST(SPT_EINVAL, spt_concat_primary(NULL, 1, &c));
    ASSERT_ST(SPT_EINVAL, spt_concat_primary(in, 1, NULL));
    /* undefined order: precondition */
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 0, NULL, NULL, NULL, &f));
    const spt_tensor *in3[2] = {a, f};
    ASSERT_ST(SPT_EPRECONDITION, spt_concat_primary(in3, 2, &c));
    /* order[0] differs */
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 0, NULL, NULL, o10, &r3));
    const spt_tensor *in4[2] = {a, r3};
    ASSERT_ST(SPT_EINVAL, spt_concat_primary(in4, 2, &c));
    ASSERT_MSG("primary");
    spt_tensor_free(f);
    spt_tensor_free(r3);
    /* dtype differs */
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 0, NULL, NULL, o01, &f));
    const spt_tensor *in5[2] = {a, f};
    ASSERT_ST(SPT_EDTYPE, spt_concat_primary(in5, 2, &c));
    spt_tensor_free(f);
    /* rank 0 */
    ASSERT_OK(spt_tensor_new(SPT_INT32, 0, NULL, 0, NULL, NULL, NULL, &f));
    const spt_tensor *in6[1] = {f};
    ASSERT_ST(SPT_EINVAL, spt_concat_primary(in6, 1, &c));
    spt_tensor_free(f);
    /* overflow of the primary dim sum */
    int64_t big[2] = {INT64_MAX / 2 + 1, 1};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, big, 0, NULL, NULL, o01, &f));
    const spt_tensor *in7[2] = {f, f};
    ASSERT_ST(SPT_EOVERFLOW, spt_concat_primary(in7, 2, &c));
    spt_tensor_free(f);
    /* an index out of bounds in an input */
    int64_t ix[2] = {0, 10};
    double v = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 1, ix, &v, o01, &f));
    const spt_tensor *in8[1] = {f};
    ASSERT_ST(SPT_ERANGE, spt_concat_primary(in8, 1, &c));
    ASSERT_MSG("out of bounds");
    spt_tensor_free(f);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* Property: concatenation along the primary dim equals the dense concatenation. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {777};
    for (int iter = 0; iter < 200; iter++) {
        int64_t r = 1 + lt_int(&g, 3), k = 1 + lt_int(&g, 4), base[3], ord[3];
        lt_rand_shape(&g, r, 0, 4, base);
        for (int64_t d = 0; d < r; d++) ord[d] = d;
        for (int64_t d = r - 1; d > 0; d--) {
            int64_t j = lt_int(&g, d + 1), tmp = ord[d];
            ord[d] = ord[j];
            ord[j] = tmp;
        }
        int64_t p = ord[0];
        spt_tensor *t[4];
        int64_t *dn[4], sh[4][3], total = 0;
        for (int64_t i = 0; i < k; i++) {
            memcpy(sh[i], base, sizeof base);
            sh[i][p] = lt_int(&g, 4);
            total += sh[i][p];
            t[i] = lt_rand_tensor(&g, r, sh[i], 40, lt_int(&g, 2));
            if (lt_int(&g, 2)) ASSERT_OK(spt_reorder(t[i], ord));
            else ASSERT_OK(spt_tensor_set_order(t[i], ord));
            dn[i] = lt_dense(t[i]);
        }
        spt_tensor *c;
        ASSERT_OK(spt_concat_primary((const spt_tensor *const *)t, k, &c));
        int64_t ws[3];
        memcpy(ws, base, sizeof base);
        ws[p] = total;
        int64_t *want = lt_concat_dense(r, k, sh, dn, p, ws);
        lt_expect_dense(c, r, ws, want);
        lt_check_claims(c);
        for (int64_t d = 0; d < r; d++) assert_int_equal(spt_tensor_order(c)[d], ord[d]);
        free(want);
        spt_tensor_free(c);
        for (int64_t i = 0; i < k; i++) spt_tensor_free(t[i]);
    }
}

static spt_status sweep_op(lt_sweep *x) { return spt_concat_primary(x->in, 2, &x->out[0]); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install(); /* before the inputs are made: they are freed through it */
    int64_t s[2] = {2, 2}, o[2] = {0, 1}, ix[4] = {0, 1, 1, 0};
    spt_str v[2] = {{"ab", 2}, {"c", 1}};
    spt_tensor *a;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 2, ix, v, o, &a));
    lt_sweep x = {.op = sweep_op, .in = {a, a}};
    lt_alloc_sweep(&x);
    spt_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_readme_example), cmocka_unit_test(test_seed_orders),
        cmocka_unit_test(test_empty_and_errors),    cmocka_unit_test(test_property_dense),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result st_concat(const conf_case *c) {
    spt_tensor **ts, *out = NULL;
    int64_t n;
    spt_status st = conf_sparse_list(json_object_get(c->args, "inputs"), &ts, &n);
    JUDGE(c, st);
    st = spt_concat_primary((const spt_tensor *const *)ts, n, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    conf_free_list(ts, n);
    return r;
}

CONF_HANDLERS(test_concat_primary, {"st_concat", st_concat, CONF_OP(spt_concat_primary)})
#endif
