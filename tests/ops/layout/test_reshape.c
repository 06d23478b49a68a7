/* SPDX-License-Identifier: Apache-2.0 */
/* test_reshape.c -- SparseReshape: -1 inference, errors, order kept, large offsets. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

static const int64_t S[2] = {5, 6}, IX[12] = {0, 0, 1, 0, 1, 3, 1, 4, 3, 2, 3, 3};
static const double V[6] = {0, 10, 13, 14, 32, 33};

static void test_tf_cases(void **state) {
    (void)state;
    spt_tensor *t, *o = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, S, 6, IX, V, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t ns[2] = {3, -1}, w[2] = {3, 10}, wi[12] = {0, 0, 0, 6, 0, 9, 1, 0, 2, 0, 2, 1};
    ASSERT_OK(spt_reshape(t, 2, ns, &o)); /* testFeedNewShapeSameRankWithInferredDim */
    spt_test_expect_tensor(o, 2, w, 6, wi, V);
    lt_expect_row_major(o); /* order kept */
    spt_tensor_free(o);
    int64_t up[3] = {2, 3, 5}, wi3[18] = {0, 0, 0, 0, 1, 1, 0, 1, 4, 0, 2, 0, 1, 1, 0, 1, 1, 1};
    ASSERT_OK(spt_reshape(t, 3, up, &o)); /* testUpRank */
    spt_test_expect_tensor(o, 3, up, 6, wi3, V);
    spt_tensor_free(o);
    int64_t same[2] = {-1, 6};
    ASSERT_OK(spt_reshape(t, 2, same, &o)); /* testFeedSameShapeWithInferredDim */
    spt_test_expect_tensor(o, 2, S, 6, IX, V);
    spt_tensor_free(o);
    int64_t m1[2] = {4, -1}, m2[2] = {4, 7}, two[2] = {-1, -1}, neg[2] = {-2, 15};
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 2, m1, &o));
    assert_null(o);
    ASSERT_MSG("requested shape requires a multiple of 4");
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 2, m2, &o));
    ASSERT_MSG("Input to reshape is a tensor with 30 dense values, but the requested shape has 28");
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 2, two, &o));
    ASSERT_MSG("only one output dimension may be -1, not both 0 and 1");
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 2, neg, &o));
    ASSERT_MSG("size 0 must be non-negative, not -2");
    int64_t ovf[3] = {INT64_MAX, 2, 2};
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 3, ovf, &o)); /* volumes compared exactly: 30 vs 2^65 - 4 */
    ASSERT_MSG("Input to reshape is a tensor with 30 dense values, but the requested shape has 36893488147419103228");
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, -1, ovf, &o));
    ASSERT_ST(SPT_EINVAL, spt_reshape(NULL, 2, w, &o));
    spt_tensor_free(t);
}

static void test_empty_zero_rank0_strings(void **state) {
    (void)state;
    spt_tensor *t, *o;
    int64_t s[4] = {2, 4, 0, 6}, ns[4] = {-1, 4, 6, 2}, w[4] = {0, 4, 6, 2};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 4, s, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_reshape(t, 4, ns, &o));
    spt_test_expect_tensor(o, 4, w, 0, NULL, NULL);
    spt_tensor_free(o);
    int64_t bad[4] = {2, 0, -1, 3};
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 4, bad, &o));
    ASSERT_MSG("reshape cannot infer the missing input size for an empty tensor");
    spt_tensor_free(t);
    /* rank 0 <-> [1,1] */
    spt_str v = {"only", 4};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 0, NULL, 1, NULL, &v, NULL, &t));
    int64_t one[2] = {1, -1}, z2[2] = {0, 0};
    ASSERT_OK(spt_reshape(t, 2, one, &o));
    spt_tensor_free(t);
    int64_t w1[2] = {1, 1};
    spt_test_expect_tensor(o, 2, w1, 1, z2, &v);
    ASSERT_OK(spt_reshape(o, 0, NULL, &t));
    spt_test_expect_tensor(t, 0, NULL, 1, NULL, &v);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* Offsets above 2^32 (pydata/sparse #207): [2^31-1, 2^31-1] in [2^31, 2^31] -> [2^62-1]. */
static void test_large_offsets(void **state) {
    (void)state;
    int64_t s[2] = {(int64_t)1 << 31, (int64_t)1 << 31}, ix[2] = {((int64_t)1 << 31) - 1, ((int64_t)1 << 31) - 1};
    int8_t v = 3;
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT8, 2, s, 1, ix, &v, NULL, &t));
    int64_t ns[1] = {-1}, w[1] = {(int64_t)1 << 62}, wi[1] = {((int64_t)1 << 62) - 1};
    ASSERT_OK(spt_reshape(t, 1, ns, &o));
    spt_test_expect_tensor(o, 1, w, 1, wi, &v);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* Property: the row-major flattening of the dense array is unchanged. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {8675309};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3];
        lt_rand_shape(&g, r, 1, 5, sh);
        int64_t vol = lt_volume(r, sh), nr = 1 + lt_int(&g, 3), ns[3], rest = vol;
        /* a random factorisation of vol */
        for (int64_t d = 0; d < nr - 1; d++) {
            int64_t f = 1 + lt_int(&g, 4);
            while (rest % f) f--;
            ns[d] = f;
            rest /= f;
        }
        ns[nr - 1] = rest;
        int64_t req[3];
        memcpy(req, ns, sizeof ns);
        if (lt_int(&g, 2)) req[lt_int(&g, nr)] = -1;
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 40, lt_int(&g, 2)), *o;
        int64_t *dn = lt_dense(t);
        ASSERT_OK(spt_reshape(t, nr, req, &o));
        lt_expect_dense(o, nr, ns, dn);
        lt_check_claims(o);
        if (spt_tensor_known_sorted(t)) lt_expect_row_major(o);
        free(dn);
        spt_tensor_free(o);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) {
    int64_t ns[3] = {3, -1, 1};
    return spt_reshape(x->in[0], 3, ns, &x->out[0]);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    lt_sweep_one(sweep_op);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tf_cases),      cmocka_unit_test(test_empty_zero_rank0_strings),
        cmocka_unit_test(test_large_offsets), cmocka_unit_test(test_property_dense),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result sparse_reshape(const conf_case *c) {
    json_t *a = c->args;
    spt_tensor *t = NULL, *out = NULL;
    spt_status st;
    json_t *jshape = json_object_get(a, "shape");
    if (json_object_get(a, "sp")) {
        st = conf_sparse(json_object_get(a, "sp"), false, &t);
    } else { /* raw-op form: input_indices, input_shape, new_shape (values do not matter) */
        json_t *ji = json_object_get(a, "input_indices");
        size_t n = json_is_array(ji) ? json_array_size(ji)
                                     : (size_t)json_integer_value(json_array_get(json_object_get(ji, "dims"), 0));
        json_t *vals = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(vals, json_real(0));
        json_t *sp = json_pack("{s:O,s:o,s:O}", "indices", ji, "values", vals, "shape",
                               json_object_get(a, "input_shape"));
        st = conf_sparse(sp, false, &t);
        json_decref(sp);
        jshape = json_object_get(a, "new_shape");
    }
    JUDGE(c, st);
    int64_t shape[SPT_MAX_RANK];
    long k = conf_ints(jshape, shape, SPT_MAX_RANK);
    st = spt_reshape(t, k, shape, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_reshape, {"sparse_reshape", sparse_reshape, CONF_OP(spt_reshape)})
#endif
