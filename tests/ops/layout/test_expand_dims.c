/* SPDX-License-Identifier: Apache-2.0 */
/* test_expand_dims.c -- tf.sparse.expand_dims: every axis of a rank-2 tensor, strings, order kept,
 * errors, allocation failures. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static void test_axes(void **state) {
    (void)state;
    int64_t s[2] = {2, 4}, ix[8] = {0, 1, 0, 3, 1, 0, 1, 3};
    int64_t v[4] = {1, 3, 4, 7};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    /* axis 0 / -3 */
    int64_t s0[3] = {1, 2, 4}, i0[12] = {0, 0, 1, 0, 0, 3, 0, 1, 0, 0, 1, 3};
    for (int64_t ax = -3; ax <= 0; ax += 3) {
        ASSERT_OK(spt_expand_dims(t, ax, &o));
        spt_test_expect_tensor(o, 3, s0, 4, i0, v);
        assert_true(spt_tensor_is_row_major(o, true));
        spt_tensor_free(o);
    }
    int64_t s1[3] = {2, 1, 4}, i1[12] = {0, 0, 1, 0, 0, 3, 1, 0, 0, 1, 0, 3};
    ASSERT_OK(spt_expand_dims(t, 1, &o));
    spt_test_expect_tensor(o, 3, s1, 4, i1, v);
    assert_true(spt_tensor_is_row_major(o, true));
    spt_tensor_free(o);
    int64_t s2[3] = {2, 4, 1}, i2[12] = {0, 1, 0, 0, 3, 0, 1, 0, 0, 1, 3, 0};
    for (int64_t ax = -1; ax <= 2; ax += 3) {
        ASSERT_OK(spt_expand_dims(t, ax, &o));
        spt_test_expect_tensor(o, 3, s2, 4, i2, v);
        assert_true(spt_tensor_is_row_major(o, true));
        spt_tensor_free(o);
    }
    ASSERT_ST(SPT_ERANGE, spt_expand_dims(t, 3, &o));
    assert_null(o);
    ASSERT_MSG("axis 3");
    ASSERT_ST(SPT_ERANGE, spt_expand_dims(t, -4, &o));
    ASSERT_ST(SPT_EINVAL, spt_expand_dims(NULL, 0, &o));
    ASSERT_ST(SPT_EINVAL, spt_expand_dims(t, 0, NULL));
    spt_tensor_free(t);
    /* a column-major order (1, 0) becomes (2, 0, 1) when axis 1 is inserted at 0 ... */
    int64_t order[2] = {1, 0};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, order));
    ASSERT_OK(spt_expand_dims(t, 0, &o));
    const int64_t *oo = spt_tensor_order(o);
    assert_true(oo[0] == 0 && oo[1] == 2 && oo[2] == 1); /* constant dim 0 first, then the old (1, 0) */
    assert_true(spt_tensor_known_sorted(o));
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* out-of-bounds input is refused */
    int64_t bad[2] = {5, 0};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 1, bad, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_expand_dims(t, 0, &o));
    ASSERT_MSG("spt_expand_dims");
    spt_tensor_free(t);
}

/* Rank 0 -> rank 1 and strings owned by the output. */
static void test_scalar_and_strings(void **state) {
    (void)state;
    spt_str v[1] = {{"hello", 5}};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 0, NULL, 1, NULL, v, NULL, &t));
    ASSERT_OK(spt_expand_dims(t, -1, &o));
    spt_tensor_free(t);
    int64_t s1[1] = {1}, i1[1] = {0};
    spt_test_expect_tensor(o, 1, s1, 1, i1, v);
    spt_tensor_free(o);
}

static spt_tensor *sweep_in;
static spt_tensor *sweep_out;
static spt_status sweep_run(void *p) {
    (void)p;
    return spt_expand_dims(sweep_in, 1, &sweep_out);
}
static void sweep_clean(void *p) {
    (void)p;
    spt_tensor_free(sweep_out);
    sweep_out = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    int64_t s[2] = {2, 3}, ix[6] = {1, 2, 0, 1, 1, 0};
    spt_str v[3] = {{"ab", 2}, {"c", 1}, {"", 0}};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 3, ix, v, NULL, &sweep_in));
    tt_sweep(sweep_run, sweep_clean, NULL);
    spt_tensor_free(sweep_in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axes),
        cmocka_unit_test(test_scalar_and_strings),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result expand_dims(const conf_case *c) {
    spt_tensor *sp = NULL, *out = NULL;
    JUDGE(c, conf_sparse(json_object_get(c->args, "sp"), false, &sp));
    spt_status st = spt_expand_dims(sp, conf_opt_int(c->args, "axis", -1), &out); /* TF 2's default axis is -1 */
    spt_tensor_free(sp);
    return conf_finish_sparse(c, st, out);
}

CONF_HANDLERS(test_expand_dims, {"sparse_expand_dims", expand_dims, CONF_OP(spt_expand_dims)})
#endif
