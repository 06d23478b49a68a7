/* SPDX-License-Identifier: Apache-2.0 */
/* test_retain.c -- tf.sparse.retain: a boolean mask over the entries. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

/* sparse_ops_test.py SparseRetainTest.testBasic-like: keep entries 0, 2, 3. */
static void test_basic(void **state) {
    (void)state;
    int64_t s[2] = {5, 6}, ix[12] = {0, 0, 1, 0, 1, 3, 1, 4, 3, 2, 3, 3};
    int32_t v[6] = {0, 10, 13, 14, 32, 33};
    bool m[6] = {true, false, true, true, false, false};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 6, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    ASSERT_OK(spt_retain(t, m, 6, &o));
    int64_t wi[6] = {0, 0, 1, 3, 1, 4};
    int32_t wv[3] = {0, 13, 14};
    spt_test_expect_tensor(o, 2, s, 3, wi, wv);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    bool none[6] = {false};
    ASSERT_OK(spt_retain(t, none, 6, &o)); /* testRetainNone */
    spt_test_expect_tensor(o, 2, s, 0, NULL, NULL);
    spt_tensor_free(o);
    o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_retain(t, m, 5, &o)); /* testMismatchedRetainShape */
    assert_null(o);
    ASSERT_MSG("length 5");
    ASSERT_ST(SPT_EINVAL, spt_retain(t, NULL, 6, &o));
    ASSERT_ST(SPT_EINVAL, spt_retain(NULL, m, 6, &o));
    spt_tensor_free(t);
}

/* The seed-003 reference example: [4,5], keep entries 0 and 3. */
static void test_seed003_example(void **state) {
    (void)state;
    int64_t s[2] = {4, 5}, ix[8] = {0, 1, 0, 3, 2, 0, 3, 1};
    spt_str v[4] = {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}};
    bool m[4] = {true, false, false, true};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_retain(t, m, 4, &o));
    int64_t wi[4] = {0, 1, 3, 1};
    spt_str wv[2] = {{"a", 1}, {"d", 1}};
    spt_test_expect_tensor(o, 2, s, 2, wi, wv);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_strings_empty_rank0(void **state) {
    (void)state;
    int64_t s[1] = {4}, ix[3] = {3, 0, 2};
    spt_str v[3] = {{"x", 1}, {"yy", 2}, {"", 0}};
    bool m[3] = {false, true, true};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, s, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_retain(t, m, 3, &o));
    int64_t wi[2] = {0, 2};
    spt_str wv[2] = {{"yy", 2}, {"", 0}};
    spt_tensor_free(t);
    spt_test_expect_tensor(o, 1, s, 2, wi, wv);
    spt_tensor_free(o);
    int64_t z[2] = {0, 4};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, z, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_retain(t, NULL, 0, &o));
    spt_test_expect_tensor(o, 2, z, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(t);
    float f = 1.5f;
    bool yes = true;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 0, NULL, 1, NULL, &f, NULL, &t));
    ASSERT_OK(spt_retain(t, &yes, 1, &o));
    spt_test_expect_tensor(o, 0, NULL, 1, NULL, &f);
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* out-of-bounds input */
    int64_t bad[1] = {4};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 1, s, 1, bad, &f, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_retain(t, &yes, 1, &o));
    spt_tensor_free(t);
}

/* Property: the dense array of the kept entries. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {5};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = lt_int(&g, 4), sh[3];
        lt_rand_shape(&g, r, 0, 5, sh);
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 50, lt_int(&g, 2)), *o;
        int64_t n = spt_tensor_nnz(t), vol = lt_volume(r, sh);
        bool *m = calloc((size_t)n + 1, 1);
        int64_t *want = calloc((size_t)vol + 1, sizeof *want);
        for (int64_t i = 0; i < n; i++) {
            m[i] = lt_int(&g, 2);
            if (m[i])
                want[lt_offset(r, sh, spt_tensor_indices(t) + i * r)] = ((const int64_t *)spt_tensor_values(t))[i];
        }
        ASSERT_OK(spt_retain(t, m, n, &o));
        lt_expect_dense(o, r, sh, want);
        lt_check_claims(o);
        assert_int_equal(spt_tensor_known_sorted(o), spt_tensor_known_sorted(t));
        free(m);
        free(want);
        spt_tensor_free(o);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) {
    bool m[3] = {true, false, true};
    return spt_retain(x->in[0], m, 3, &x->out[0]);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    lt_sweep_one(sweep_op);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),           cmocka_unit_test(test_strings_empty_rank0),
        cmocka_unit_test(test_seed003_example), cmocka_unit_test(test_property_dense),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result sparse_retain(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    json_t *m = json_object_get(c->args, "to_retain");
    size_t n = json_array_size(m);
    bool *mask = calloc(n ? n : 1, sizeof *mask);
    for (size_t i = 0; mask && i < n; i++) mask[i] = json_is_true(json_array_get(m, i));
    st = mask ? spt_retain(t, mask, (int64_t)n, &out) : SPT_ENOMEM;
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    free(mask);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_retain, {"sparse_retain", sparse_retain, CONF_OP(spt_retain)})
#endif
