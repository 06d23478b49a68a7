/* SPDX-License-Identifier: Apache-2.0 */
/* test_group.c -- the seed's group(): runs of equal group-dim values. */
#ifndef SPT_CONFORMANCE
#include "spt_test.h"

static const int64_t ix[15] = {0, 0, 0, 3, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2};
static const int64_t shape[3] = {10, 10, 10};
static const int32_t vals[5] = {1, 2, 3, 4, 5};

static void test_group_seed(void **state) {
    (void)state;
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 3, shape, 5, ix, vals, NULL, &t));
    int64_t d0[1] = {0};
    spt_group_iter *it = NULL;
    ASSERT_ST(SPT_EPRECONDITION, spt_group_begin(t, d0, 1, &it));
    assert_null(it);
    int64_t o[3] = {0, 1, 2};
    ASSERT_OK(spt_reorder(t, o));
    ASSERT_OK(spt_group_begin(t, d0, 1, &it));
    const int64_t keys[3] = {0, 2, 3}, counts[3] = {3, 1, 1};
    const int32_t gv[5] = {1, 5, 4, 3, 2};
    spt_group g;
    int k = 0, pos = 0;
    while (spt_group_next(it, &g)) {
        assert_true(k < 3);
        assert_int_equal(g.key[0], keys[k]);
        assert_int_equal(g.count, counts[k]);
        assert_int_equal(g.start, pos);
        for (int64_t i = 0; i < g.count; i++) {
            assert_int_equal(((const int32_t *)g.values)[i], gv[pos + i]);
            assert_int_equal(g.indices[i * 3], keys[k]);
        }
        pos += (int)g.count;
        k++;
    }
    assert_int_equal(k, 3);
    assert_false(spt_group_next(it, &g));
    spt_group_end(it);
    spt_tensor_free(t);
}

static void test_group_two_dims_and_empty_dims(void **state) {
    (void)state;
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 3, shape, 5, ix, vals, NULL, &t));
    int64_t o[3] = {1, 2, 0}, d12[2] = {1, 2}, d21[2] = {2, 1};
    ASSERT_OK(spt_reorder(t, o));
    spt_group_iter *it;
    ASSERT_ST(SPT_EPRECONDITION, spt_group_begin(t, d21, 2, &it));
    ASSERT_OK(spt_group_begin(t, d12, 2, &it));
    /* sorted by (1,2,0): [0,0,0] [2,0,0] [3,0,0] | [0,0,2] | [0,1,0] */
    const int64_t want_keys[6] = {0, 0, 0, 2, 1, 0}, want_counts[3] = {3, 1, 1};
    spt_group g;
    int k = 0;
    while (spt_group_next(it, &g)) {
        assert_int_equal(g.key[0], want_keys[2 * k]);
        assert_int_equal(g.key[1], want_keys[2 * k + 1]);
        assert_int_equal(g.count, want_counts[k]);
        k++;
    }
    assert_int_equal(k, 3);
    spt_group_end(it);
    ASSERT_OK(spt_group_begin(t, NULL, 0, &it)); /* no dims: one group of everything */
    assert_true(spt_group_next(it, &g));
    assert_int_equal(g.count, 5);
    assert_false(spt_group_next(it, &g));
    spt_group_end(it);
    int64_t bad[1] = {3}, dup[2] = {1, 1};
    ASSERT_ST(SPT_ERANGE, spt_group_begin(t, bad, 1, &it));
    ASSERT_ST(SPT_EINVAL, spt_group_begin(t, dup, 2, &it));
    ASSERT_ST(SPT_EINVAL, spt_group_begin(t, d12, 4, &it));
    spt_tensor_free(t);
}

static void test_group_claimed_order_not_sorted(void **state) {
    (void)state;
    /* order claimed but entries unsorted: equal keys that are not adjacent are separate groups */
    int64_t o[3] = {0, 1, 2}, d0[1] = {0};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 3, shape, 5, ix, vals, o, &t));
    spt_group_iter *it;
    ASSERT_OK(spt_group_begin(t, d0, 1, &it));
    spt_group g;
    const int64_t keys[4] = {0, 3, 2, 0}, counts[4] = {1, 1, 1, 2};
    int k = 0;
    while (spt_group_next(it, &g)) {
        assert_true(k < 4);
        assert_int_equal(g.key[0], keys[k]);
        assert_int_equal(g.count, counts[k]);
        k++;
    }
    assert_int_equal(k, 4);
    spt_group_end(it);
    spt_group_end(NULL);
    spt_tensor_free(t);
}

static void test_group_empty_tensor(void **state) {
    (void)state;
    spt_tensor *t;
    int64_t o[3] = {0, 1, 2}, d0[1] = {0};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 3, shape, 0, NULL, NULL, o, &t));
    spt_group_iter *it;
    ASSERT_OK(spt_group_begin(t, d0, 1, &it));
    spt_group g;
    assert_false(spt_group_next(it, &g));
    spt_group_end(it);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_seed),
        cmocka_unit_test(test_group_two_dims_and_empty_dims),
        cmocka_unit_test(test_group_claimed_order_not_sorted),
        cmocka_unit_test(test_group_empty_tensor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result st_group(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t order[SPT_MAX_RANK], dims[SPT_MAX_RANK];
    conf_result r = CONF_PASS;
    if (conf_ints(json_object_get(c->args, "reorder"), order, SPT_MAX_RANK) >= 0) st = spt_reorder(t, order);
    long nd = conf_ints(json_object_get(c->args, "group_dims"), dims, SPT_MAX_RANK);
    spt_group_iter *it = NULL;
    if (st == SPT_OK) st = spt_group_begin(t, dims, nd, &it);
    r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *groups = json_object_get(c->expect, "groups");
        spt_group g;
        size_t k = 0;
        r = CONF_PASS;
        while (r == CONF_PASS && spt_group_next(it, &g)) {
            json_t *e = json_array_get(groups, k++);
            if (!e) {
                r = conf_fail(c, "more groups than expected");
                break;
            }
            int64_t key[SPT_MAX_RANK];
            long kn = conf_ints(json_object_get(e, "group"), key, SPT_MAX_RANK);
            for (long i = 0; i < kn; i++)
                if (key[i] != g.key[i]) r = conf_fail(c, "group %zu key differs", k - 1);
            spt_tensor *view;
            if (r == CONF_PASS && spt_tensor_new(spt_tensor_dtype(t), spt_tensor_rank(t), spt_tensor_shape(t), g.count,
                                                 g.indices, g.values, NULL, &view) == SPT_OK) {
                r = conf_expect_sparse(c, e, view, NULL);
                spt_tensor_free(view);
            }
        }
        if (r == CONF_PASS && k != json_array_size(groups))
            r = conf_fail(c, "%zu groups, expected %zu", k, json_array_size(groups));
    }
    spt_group_end(it);
    spt_tensor_free(t);
    return r;
}

static conf_result h_group(const conf_case *c) {
    spt_tensor *t = NULL;
    long nr, nd;
    int64_t *reorder = conf_ints_new(c, "reorder", &nr), *dims = conf_ints_new(c, "group_dims", &nd);
    spt_group_iter *it = NULL;
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK && reorder) st = spt_reorder(t, reorder);
    if (st == SPT_OK) {
        json_t *jn = conf_arg(c, "ndims");
        st = spt_group_begin(t, dims, jn ? (int64_t)json_integer_value(jn) : nd < 0 ? 0 : nd, &it);
    }
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *want = json_object_get(json_object_get(c->root, "result"), "groups");
        spt_group g;
        int64_t k = 0;
        while (spt_group_next(it, &g)) k++;
        r = want && k != json_integer_value(want)
                ? conf_fail(c, "%lld groups, expected %lld", (long long)k, (long long)json_integer_value(want))
                : CONF_PASS;
    }
    spt_group_end(it);
    spt_tensor_free(t);
    free(reorder);
    free(dims);
    return r;
}

CONF_HANDLERS(test_group, {"st_group", st_group, CONF_OP(spt_group_begin)},
              {"spt_group", h_group, CONF_OP(spt_group_begin)})
#endif
