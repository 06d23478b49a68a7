/* SPDX-License-Identifier: Apache-2.0 */
/* test_reset_shape.c -- tf.sparse.reset_shape: a larger shape, or the tight bounding box. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

static const int64_t S[3] = {2, 5, 6}, IX[18] = {0, 0, 0, 0, 1, 0, 0, 1, 3, 1, 1, 4, 1, 3, 2, 1, 3, 3};
static const int32_t V[6] = {0, 10, 13, 14, 32, 33};

static void test_basic_and_tight(void **state) {
    (void)state;
    spt_tensor *t, *o = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 3, S, 6, IX, V, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t ns[3] = {3, 6, 7};
    ASSERT_OK(spt_reset_shape(t, ns, &o)); /* testBasic */
    spt_test_expect_tensor(o, 3, ns, 6, IX, V);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    ASSERT_OK(spt_reset_shape(t, NULL, &o)); /* testTightBoundingBox */
    int64_t tb[3] = {2, 4, 5};
    spt_test_expect_tensor(o, 3, tb, 6, IX, V);
    spt_tensor_free(o);
    int64_t small[3] = {3, 7, 5}; /* testInvalidDimensionSize: 5 < 6 */
    ASSERT_ST(SPT_EINVAL, spt_reset_shape(t, small, &o));
    assert_null(o);
    ASSERT_MSG("should have dimension sizes");
    int64_t neg[3] = {-1, 5, 6};
    ASSERT_ST(SPT_EINVAL, spt_reset_shape(t, neg, &o));
    int64_t huge[3] = {INT64_MAX, 5, 6}; /* a valid shape whatever its volume */
    ASSERT_OK(spt_reset_shape(t, huge, &o));
    assert_int_equal(spt_tensor_shape(o)[0], INT64_MAX);
    assert_int_equal(spt_tensor_volume(o), -1);
    spt_tensor_free(o);
    o = NULL;
    ASSERT_ST(SPT_EINVAL, spt_reset_shape(NULL, ns, &o));
    spt_tensor_free(t);
}

/* The seed-003 reference example: shape [2,3,5]; [2,3,6] fine, [2,3,4] an error, None -> [2,3,4]. */
static void test_seed003_example(void **state) {
    (void)state;
    int64_t s[3] = {2, 3, 5}, ix[12] = {0, 0, 1, 0, 1, 0, 0, 2, 2, 1, 0, 3};
    spt_str v[4] = {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 3, s, 4, ix, v, NULL, &t));
    int64_t ok[3] = {2, 3, 6}, small[3] = {2, 3, 4};
    ASSERT_OK(spt_reset_shape(t, ok, &o));
    spt_test_expect_tensor(o, 3, ok, 4, ix, v);
    spt_tensor_free(o);
    ASSERT_ST(SPT_EINVAL, spt_reset_shape(t, small, &o));
    ASSERT_OK(spt_reset_shape(t, NULL, &o));
    spt_test_expect_tensor(o, 3, small, 4, ix, v);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_empty_strings_rank0(void **state) {
    (void)state;
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 3, S, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_reset_shape(t, NULL, &o)); /* testTightBoundingBoxEmpty */
    int64_t z[3] = {0, 0, 0};
    spt_test_expect_tensor(o, 3, z, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(t);
    int64_t s[1] = {9}, ix[2] = {4, 1};
    spt_str v[2] = {{"p", 1}, {"qq", 2}};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, s, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_reset_shape(t, NULL, &o));
    int64_t w[1] = {5};
    spt_tensor_free(t);
    spt_test_expect_tensor(o, 1, w, 2, ix, v);
    spt_tensor_free(o);
    double d = 3;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 0, NULL, 1, NULL, &d, NULL, &t));
    ASSERT_OK(spt_reset_shape(t, NULL, &o));
    spt_test_expect_tensor(o, 0, NULL, 1, NULL, &d);
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* out-of-bounds indices are refused either way */
    int64_t bad[1] = {9};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s, 1, bad, &d, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reset_shape(t, NULL, &o));
    ASSERT_ST(SPT_ERANGE, spt_reset_shape(t, s, &o));
    spt_tensor_free(t);
}

/* Property: the dense content is unchanged, embedded in the new shape. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {271828};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3], ns[3], zero[3] = {0, 0, 0};
        lt_rand_shape(&g, r, 0, 4, sh);
        bool tight = lt_int(&g, 2);
        for (int64_t d = 0; d < r; d++) ns[d] = sh[d] + lt_int(&g, 3);
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 30, lt_int(&g, 2)), *o;
        if (tight) {
            for (int64_t d = 0; d < r; d++) ns[d] = 0;
            for (int64_t i = 0; i < spt_tensor_nnz(t); i++)
                for (int64_t d = 0; d < r; d++)
                    if (spt_tensor_indices(t)[i * r + d] + 1 > ns[d]) ns[d] = spt_tensor_indices(t)[i * r + d] + 1;
        }
        ASSERT_OK(spt_reset_shape(t, tight ? NULL : ns, &o));
        int64_t *dn = lt_dense(t), *want = lt_zeros(lt_volume(r, ns));
        lt_shift_copy(r, sh, dn, zero, ns, want, true); /* cells outside ns must be empty */
        lt_expect_dense(o, r, ns, want);
        lt_check_claims(o);
        free(want);
        free(dn);
        spt_tensor_free(o);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) { return spt_reset_shape(x->in[0], NULL, &x->out[0]); }

static void test_alloc_sweep(void **state) {
    (void)state;
    lt_sweep_one(sweep_op);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_and_tight), cmocka_unit_test(test_empty_strings_rank0),
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

static conf_result sparse_reset_shape(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    json_t *js = json_object_get(c->args, "new_shape");
    int64_t shape[SPT_MAX_RANK];
    if (js && !json_is_null(js)) {
        long k = conf_ints(js, shape, SPT_MAX_RANK);
        if (k != spt_tensor_rank(t))
            st = spt__err(SPT_EINVAL, "spt_reset_shape: new_shape has %ld dims, the tensor has rank %lld", k,
                          (long long)spt_tensor_rank(t));
        else st = spt_reset_shape(t, shape, &out);
    } else {
        st = spt_reset_shape(t, NULL, &out);
    }
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_reset_shape, {"sparse_reset_shape", sparse_reset_shape, CONF_OP(spt_reset_shape)})
#endif
