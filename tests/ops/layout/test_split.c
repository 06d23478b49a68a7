/* SPDX-License-Identifier: Apache-2.0 */
/* test_split.c -- SparseSplit: uneven pieces, negative axis, order kept, errors. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

/* sparse_tensor_test.cc Split: [[0,0],[1,1],[1,2],[3,0]] shape [4,3], dim 0, 2 ways. */
static void test_seed_split(void **state) {
    (void)state;
    int64_t s[2] = {4, 3}, ix[8] = {0, 0, 1, 1, 1, 2, 3, 0}, o[2] = {0, 1};
    int64_t v[4] = {1, 2, 3, 4};
    spt_tensor *t, *p[2];
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, v, o, &t));
    ASSERT_OK(spt_split(t, 0, 2, p));
    int64_t ws[2] = {2, 3}, w0[6] = {0, 0, 1, 1, 1, 2}, w1[2] = {1, 0}, wv0[3] = {1, 2, 3}, wv1[1] = {4};
    spt_test_expect_tensor(p[0], 2, ws, 3, w0, wv0);
    spt_test_expect_tensor(p[1], 2, ws, 1, w1, wv1);
    assert_int_equal(spt_tensor_order(p[0])[0], 0); /* order metadata kept */
    assert_true(spt_tensor_known_valid(p[0]));
    assert_false(spt_tensor_known_sorted(p[0])); /* the input was not known sorted */
    spt_tensor_free(p[0]);
    spt_tensor_free(p[1]);
    ASSERT_OK(spt_indices_valid(t));
    ASSERT_OK(spt_split(t, -2, 2, p));
    assert_true(spt_tensor_known_sorted(p[0]) && spt_tensor_known_sorted(p[1]));
    lt_check_claims(p[0]);
    lt_check_claims(p[1]);
    spt_tensor_free(p[0]);
    spt_tensor_free(p[1]);
    spt_tensor_free(t);
}

/* testSplitMatrixUnevenCols 4-way (7 = 2+2+2+1), strings. */
static void test_uneven_cols_strings(void **state) {
    (void)state;
    int64_t s[2] = {2, 7}, ix[8] = {0, 0, 0, 6, 1, 3, 1, 4};
    spt_str v[4] = {{"a", 1}, {"bb", 2}, {"", 0}, {"d", 1}};
    spt_tensor *t, *p[4];
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_split(t, -1, 4, p));
    int64_t w2[2] = {2, 2}, w1[2] = {2, 1};
    int64_t i0[2] = {0, 0}, i1[2] = {1, 1}, i2[2] = {1, 0}, i3[2] = {0, 0};
    spt_str v0[1] = {{"a", 1}}, v1[1] = {{"", 0}}, v2[1] = {{"d", 1}}, v3[1] = {{"bb", 2}};
    spt_test_expect_tensor(p[0], 2, w2, 1, i0, v0);
    spt_test_expect_tensor(p[1], 2, w2, 1, i1, v1);
    spt_test_expect_tensor(p[2], 2, w2, 1, i2, v2);
    spt_test_expect_tensor(p[3], 2, w1, 1, i3, v3);
    spt_tensor_free(t); /* the pieces own their strings */
    assert_memory_equal(((const spt_str *)spt_tensor_values(p[3]))[0].data, "bb", 2);
    for (int k = 0; k < 4; k++) spt_tensor_free(p[k]);
}

/* The seed-003 reference example: [2,7] "[_ a _ _ d e _; b c _ ...]" split along dim 1 in 2 -> [2,4], [2,3]. */
static void test_seed003_example(void **state) {
    (void)state;
    int64_t s[2] = {2, 7}, ix[10] = {0, 2, 0, 4, 0, 5, 1, 0, 1, 1};
    spt_str v[5] = {{"a", 1}, {"d", 1}, {"e", 1}, {"b", 1}, {"c", 1}};
    spt_tensor *t, *p[2];
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 5, ix, v, NULL, &t));
    ASSERT_OK(spt_split(t, 1, 2, p));
    int64_t w0s[2] = {2, 4}, w1s[2] = {2, 3}, w0[6] = {0, 2, 1, 0, 1, 1}, w1[4] = {0, 0, 0, 1};
    spt_str v0[3] = {{"a", 1}, {"b", 1}, {"c", 1}}, v1[2] = {{"d", 1}, {"e", 1}};
    spt_test_expect_tensor(p[0], 2, w0s, 3, w0, v0);
    spt_test_expect_tensor(p[1], 2, w1s, 2, w1, v1);
    spt_tensor_free(p[0]);
    spt_tensor_free(p[1]);
    spt_tensor_free(t);
}

static void test_empty_and_errors(void **state) {
    (void)state;
    int64_t s[2] = {4, 6};
    spt_tensor *t, *p[4] = {(spt_tensor *)1, (spt_tensor *)1, (spt_tensor *)1, (spt_tensor *)1};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_split(t, 1, 4, p)); /* 6 = 2+2+1+1 */
    int64_t w[4] = {2, 2, 1, 1};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(spt_tensor_nnz(p[k]), 0);
        assert_int_equal(spt_tensor_shape(p[k])[1], w[k]);
        spt_tensor_free(p[k]);
    }
    ASSERT_ST(SPT_ERANGE, spt_split(t, 2, 2, p));
    ASSERT_MSG("[-2, 2)");
    ASSERT_ST(SPT_ERANGE, spt_split(t, -3, 2, p));
    ASSERT_ST(SPT_EINVAL, spt_split(t, 0, 0, p));
    ASSERT_ST(SPT_EINVAL, spt_split(t, 0, 5, p));
    ASSERT_MSG("between 1 and the splitting dimension size (4)");
    ASSERT_ST(SPT_EINVAL, spt_split(NULL, 0, 1, p));
    ASSERT_ST(SPT_EINVAL, spt_split(t, 0, 1, NULL));
    spt_tensor_free(t);
    /* a dim of size 0 cannot be split */
    int64_t z[2] = {0, 3};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, z, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_split(t, 0, 1, p));
    ASSERT_OK(spt_split(t, 1, 3, p));
    for (int k = 0; k < 3; k++) spt_tensor_free(p[k]);
    spt_tensor_free(t);
    /* a dim of INT64_MAX in one piece: no overflow in the piece arithmetic */
    int64_t hs[1] = {INT64_MAX}, hix[1] = {INT64_MAX - 1}, hv = 5;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, hs, 1, hix, &hv, NULL, &t));
    ASSERT_OK(spt_split(t, 0, 1, p));
    spt_test_expect_tensor(p[0], 1, hs, 1, hix, &hv);
    spt_tensor_free(p[0]);
    ASSERT_OK(spt_split(t, 0, 2, p)); /* INT64_MAX = 2^62 + (2^62 - 1) */
    int64_t h0[1] = {(int64_t)1 << 62}, h1[1] = {((int64_t)1 << 62) - 1}, hi1[1] = {((int64_t)1 << 62) - 2};
    spt_test_expect_tensor(p[0], 1, h0, 0, NULL, NULL);
    spt_test_expect_tensor(p[1], 1, h1, 1, hi1, &hv);
    spt_tensor_free(p[0]);
    spt_tensor_free(p[1]);
    spt_tensor_free(t);
    /* the advisory PoC: index 1 in a dim of size 1 */
    int64_t one[1] = {1}, ix[1] = {1}, v = 1;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, one, 1, ix, &v, NULL, &t));
    p[0] = (spt_tensor *)1;
    ASSERT_ST(SPT_ERANGE, spt_split(t, 0, 1, p));
    assert_null(p[0]);
    ASSERT_MSG("out of bounds");
    spt_tensor_free(t);
}

/* Property: piece k equals the dense slab [start_k, start_k + size_k) along the axis. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {99};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3];
        lt_rand_shape(&g, r, 1, 6, sh);
        int64_t a = lt_int(&g, r), k = 1 + lt_int(&g, sh[a]);
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 40, lt_int(&g, 2)), *p[6];
        int64_t *dn = lt_dense(t);
        ASSERT_OK(spt_split(t, a, k, p));
        int64_t q = sh[a] / k, res = sh[a] % k, start = 0;
        for (int64_t j = 0; j < k; j++) {
            int64_t ps[3], len = j < res ? q + 1 : q, shift[3] = {0, 0, 0};
            memcpy(ps, sh, sizeof ps);
            ps[a] = len;
            shift[a] = -start;
            int64_t *want = lt_zeros(lt_volume(r, ps));
            lt_shift_copy(r, sh, dn, shift, ps, want, false);
            lt_expect_dense(p[j], r, ps, want);
            lt_check_claims(p[j]);
            assert_int_equal(spt_tensor_known_sorted(p[j]), spt_tensor_known_sorted(t));
            start += len;
            free(want);
            spt_tensor_free(p[j]);
        }
        free(dn);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) { return spt_split(x->in[0], 1, 3, x->out); }

static void test_alloc_sweep(void **state) {
    (void)state;
    lt_sweep_one(sweep_op);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_split),      cmocka_unit_test(test_uneven_cols_strings),
        cmocka_unit_test(test_seed003_example), cmocka_unit_test(test_empty_and_errors),
        cmocka_unit_test(test_property_dense),  cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result split_common(const conf_case *c) {
    json_t *a = c->args;
    json_t *jaxis = json_object_get(a, "axis");
    if (!jaxis) jaxis = json_object_get(a, "split_dim");
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(a, "sp"), false, &t);
    JUDGE(c, st);
    int64_t num = json_integer_value(json_object_get(a, "num_split")), axis = 0;
    if (!json_is_integer(jaxis)) {
        spt_tensor_free(t);
        return conf_status(c, spt__err(SPT_EINVAL, "spt_split: Input axis should be a scalar but received shape [%zu]",
                                       json_array_size(jaxis)));
    }
    axis = json_integer_value(jaxis);
    if (num > (1 << 20)) { /* the harness does not provide that many slots */
        spt_tensor_free(t);
        return CONF_SKIP;
    }
    spt_tensor **outs = calloc((size_t)(num > 0 ? num : 1), sizeof *outs);
    st = outs ? spt_split(t, axis, num, outs) : SPT_ENOMEM;
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = conf_result_of(c);
        json_t *list = exp && json_is_array(exp) ? exp : exp ? json_object_get(exp, "outputs") : NULL;
        r = CONF_PASS;
        if (list && (int64_t)json_array_size(list) != num)
            r = conf_fail(c, "%lld pieces, expected %zu", (long long)num, json_array_size(list));
        for (int64_t k = 0; list && r == CONF_PASS && k < num; k++)
            r = conf_layout_sparse(c, json_array_get(list, (size_t)k), outs[k]);
    }
    if (st == SPT_OK)
        for (int64_t k = 0; k < num; k++) spt_tensor_free(outs[k]);
    free(outs);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_split, {"st_split", split_common, CONF_OP(spt_split)},
              {"sparse_split", split_common, CONF_OP(spt_split)})
#endif
