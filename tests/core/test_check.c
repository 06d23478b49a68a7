/* SPDX-License-Identifier: Apache-2.0 */
/* test_check.c -- spt_validate and spt_indices_valid (the seed's IndicesValid, tf_semantics 1.4). */
#ifndef SPT_CONFORMANCE
#include <string.h>

#include "spt_test.h"

static spt_tensor *make(int64_t rank, const int64_t *shape, int64_t n, const int64_t *ix, const int64_t *order) {
    spt_tensor *t;
    int64_t v[16] = {0};
    ASSERT_OK(spt_tensor_new(SPT_INT64, rank, shape, n, ix, v, order, &t));
    return t;
}

static void test_indices_valid_seed_cases(void **state) {
    (void)state;
    int64_t shape[3] = {10, 10, 10}, o[3] = {0, 1, 2};
    int64_t rep1[6] = {0, 0, 1, 0, 0, 1}, ok[6] = {0, 0, 0, 0, 0, 1};
    spt_tensor *t = make(3, shape, 2, rep1, o);
    ASSERT_ST(SPT_EINVAL, spt_indices_valid(t));
    ASSERT_MSG("indices[1] = [0,0,1] is repeated");
    spt_tensor_free(t);
    t = make(3, shape, 2, ok, o);
    ASSERT_OK(spt_indices_valid(t));
    assert_true(spt_tensor_known_valid(t) && spt_tensor_known_sorted(t));
    spt_tensor_free(t);
    int64_t unsorted[15] = {0, 0, 0, 3, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2};
    t = make(3, shape, 5, unsorted, o);
    ASSERT_ST(SPT_EINVAL, spt_indices_valid(t));
    ASSERT_MSG("indices[2] = [2,0,0] is out of order");
    spt_tensor_free(t);
    /* out of bounds wins over out of order in the same entry; the first failing entry decides */
    int64_t oob[15] = {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 5, 11, 0, 0};
    t = make(3, shape, 5, oob, o);
    ASSERT_ST(SPT_EINVAL, spt_indices_valid(t));
    ASSERT_MSG("indices[3] = [0,0,5] is out of order");
    spt_tensor_free(t);
    int64_t oob2[15] = {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 11, 0, 0};
    t = make(3, shape, 5, oob2, o);
    ASSERT_ST(SPT_ERANGE, spt_indices_valid(t));
    ASSERT_MSG("indices[4] = [11,0,0] is out of bounds: need 0 <= index < [10,10,10]");
    spt_tensor_free(t);
    int64_t back[6] = {0, 0, 5, 0, 0, -1}; /* negative and earlier: out of bounds first */
    t = make(3, shape, 2, back, o);
    ASSERT_ST(SPT_ERANGE, spt_indices_valid(t));
    ASSERT_MSG("indices[1] = [0,0,-1] is out of bounds");
    spt_tensor_free(t);
}

static void test_indices_valid_order_rules(void **state) {
    (void)state;
    int64_t shape[2] = {4, 4}, ix[4] = {0, 3, 1, 0};
    spt_tensor *t = make(2, shape, 2, ix, NULL);
    ASSERT_ST(SPT_EPRECONDITION, spt_indices_valid(t));
    ASSERT_MSG("Order was not provided");
    int64_t cm[2] = {1, 0};
    ASSERT_OK(spt_tensor_set_order(t, cm)); /* column-major claim: [0,3] then [1,0] is out of order */
    ASSERT_ST(SPT_EINVAL, spt_indices_valid(t));
    ASSERT_MSG("indices[1] = [1,0] is out of order");
    int64_t rm[2] = {0, 1};
    ASSERT_OK(spt_tensor_set_order(t, rm));
    ASSERT_OK(spt_indices_valid(t));
    spt_tensor_free(t);
    /* rank 1: the fast path passes without an order; failing it, the order is required */
    int64_t s1[1] = {5}, i1[3] = {0, 2, 4}, i1bad[3] = {0, 4, 2};
    t = make(1, s1, 3, i1, NULL);
    ASSERT_OK(spt_indices_valid(t));
    spt_tensor_free(t);
    t = make(1, s1, 3, i1bad, NULL);
    ASSERT_ST(SPT_EPRECONDITION, spt_indices_valid(t));
    spt_tensor_free(t);
    /* rank 0: one entry valid, a second is repeated */
    t = make(0, NULL, 1, NULL, NULL);
    ASSERT_OK(spt_indices_valid(t));
    spt_tensor_free(t);
    t = make(0, NULL, 2, NULL, NULL);
    ASSERT_ST(SPT_EINVAL, spt_indices_valid(t));
    ASSERT_MSG("indices[1] = [] is repeated");
    spt_tensor_free(t);
}

static void test_validate(void **state) {
    (void)state;
    int64_t shape[2] = {3, (int64_t)1 << 40}, ix[6] = {2, ((int64_t)1 << 40) - 1, 0, 0, 1, (int64_t)1 << 40};
    spt_tensor *t = make(2, shape, 3, ix, NULL);
    ASSERT_ST(SPT_ERANGE, spt_validate(t));
    ASSERT_MSG("spt_validate: indices[2] = [1,1099511627776] is out of bounds: need 0 <= index < [3,1099511627776]");
    assert_false(spt_tensor_known_valid(t));
    spt_tensor_free(t);
    t = make(2, shape, 2, ix, NULL);
    ASSERT_OK(spt_validate(t));
    assert_true(spt_tensor_known_valid(t));
    /* writable indices clear the flag */
    spt_tensor_indices_mut(t)[0] = 3;
    assert_false(spt_tensor_known_valid(t));
    ASSERT_ST(SPT_ERANGE, spt_validate(t));
    /* shrinking the shape clears it, growing keeps it */
    spt_tensor_indices_mut(t)[0] = 2;
    ASSERT_OK(spt_validate(t));
    int64_t bigger[2] = {4, (int64_t)1 << 41}, smaller[2] = {3, 2};
    ASSERT_OK(spt_tensor_set_shape(t, bigger));
    assert_true(spt_tensor_known_valid(t));
    ASSERT_OK(spt_tensor_set_shape(t, smaller));
    assert_false(spt_tensor_known_valid(t));
    ASSERT_ST(SPT_ERANGE, spt_validate(t));
    ASSERT_ST(SPT_EINVAL, spt_validate(NULL));
    spt_tensor_free(t);
}

static void test_create_checks_in_tf_order(void **state) {
    (void)state;
    int64_t d53[2] = {5, 3}, d4[1] = {4}, d5[1] = {5}, d51[2] = {5, 1}, d3[1] = {3}, d2[1] = {2};
    int64_t shape_vals[3] = {10, 10, 10}, order_vals[3] = {0, 1, 2};
    spt_dense *ix, *ix32, *v4, *v5, *v51, *sh, *ord2, *ord3;
    ASSERT_OK(spt_dense_new(SPT_INT64, 2, d53, &ix));
    ASSERT_OK(spt_dense_new(SPT_INT32, 2, d53, &ix32));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 1, d4, &v4));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 1, d5, &v5));
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 2, d51, &v51));
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, d3, shape_vals, &sh));
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, d2, order_vals, &ord2));
    ASSERT_OK(spt_dense_new_from(SPT_INT64, 1, d3, order_vals, &ord3));
    spt_tensor *t = NULL;
    ASSERT_ST(SPT_EINVAL, spt_tensor_create(ix, v4, sh, ord3, &t));
    ASSERT_MSG("(indices = 5, values = 4)");
    ASSERT_ST(SPT_EINVAL, spt_tensor_create(ix, v51, sh, ord3, &t));
    ASSERT_MSG("vals must be a vec");
    ASSERT_ST(SPT_EINVAL, spt_tensor_create(ix32, v5, sh, ord3, &t));
    ASSERT_MSG("indices must be type int64");
    ASSERT_ST(SPT_EINVAL, spt_tensor_create(ix, v5, sh, ord2, &t));
    ASSERT_MSG("Order length must be SparseTensor rank.");
    ASSERT_OK(spt_tensor_create(ix, v5, sh, ord3, &t));
    assert_int_equal(spt_tensor_order(t)[2], 2);
    spt_tensor_free(t);
    spt_dense *list[] = {ix, ix32, v4, v5, v51, sh, ord2, ord3};
    for (size_t i = 0; i < 8; i++) spt_dense_free(list[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indices_valid_seed_cases),
        cmocka_unit_test(test_indices_valid_order_rules),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_create_checks_in_tf_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

/* A sparse operand with an "order" argument applied as metadata. */
static spt_status sparse_with_order(const conf_case *c, spt_tensor **t) {
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, t);
    if (st != SPT_OK) return st;
    int64_t order[SPT_MAX_RANK];
    long n = conf_ints(json_object_get(c->args, "order"), order, SPT_MAX_RANK);
    if (n >= 0) st = spt_tensor_set_order(*t, order);
    return st;
}

static conf_result st_indices_valid(const conf_case *c) {
    spt_tensor *t;
    spt_status st = sparse_with_order(c, &t);
    if (st == SPT_OK) st = spt_indices_valid(t);
    spt_tensor_free(t);
    conf_result r = conf_status(c, st);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

static conf_result st_create(const conf_case *c) {
    json_t *a = c->args;
    int64_t ishape[8], vshape[8], shape[SPT_MAX_RANK], order[SPT_MAX_RANK];
    long ir = conf_ints(json_object_get(a, "indices_shape"), ishape, 8);
    long vr = conf_ints(json_object_get(a, "values_shape"), vshape, 8);
    long sr = conf_ints(json_object_get(a, "shape"), shape, SPT_MAX_RANK);
    long orr = conf_ints(json_object_get(a, "order"), order, SPT_MAX_RANK);
    spt_dtype idt = SPT_INT64;
    const char *ids = json_string_value(json_object_get(a, "indices_dtype"));
    if (ids) spt_dtype_from_name(ids, &idt);
    spt_dense *ix = NULL, *vals = NULL, *sh = NULL, *ord = NULL;
    spt_tensor *t = NULL;
    int64_t one = sr, onr = orr;
    spt_status st = spt_dense_new(idt, ir, ishape, &ix);
    if (st == SPT_OK) st = spt_dense_new(SPT_STRING, vr, vshape, &vals);
    if (st == SPT_OK) st = spt_dense_new_from(SPT_INT64, 1, &one, shape, &sh);
    if (st == SPT_OK && orr >= 0) st = spt_dense_new_from(SPT_INT64, 1, &onr, order, &ord);
    if (st == SPT_OK) st = spt_tensor_create(ix, vals, sh, ord, &t);
    spt_tensor_free(t);
    spt_dense_free(ix);
    spt_dense_free(vals);
    spt_dense_free(sh);
    spt_dense_free(ord);
    conf_result r = conf_status(c, st);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

static conf_result sparse_tensor_create(const conf_case *c) {
    spt_tensor *t;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), true, &t);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        r = CONF_PASS;
        json_t *res = json_object_get(c->root, "result");
        json_t *ne = res ? json_object_get(res, "num_elements") : NULL;
        if (ne && json_integer_value(ne) != spt_tensor_volume(t))
            r = conf_fail(c, "volume %lld", (long long)spt_tensor_volume(t));
    }
    spt_tensor_free(t);
    return r;
}

static conf_result h_set_order(const conf_case *c) {
    spt_tensor *t = NULL;
    long n;
    int64_t *order = conf_ints_new(c, "order", &n);
    spt_status st = conf_sparse(conf_arg(c, "sp"), false, &t);
    if (st == SPT_OK) st = spt_tensor_set_order(t, order);
    conf_result r = conf_judge(c, st);
    spt_tensor_free(t);
    free(order);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

CONF_HANDLERS(test_check, {"st_indices_valid", st_indices_valid, CONF_OP(spt_indices_valid)},
              {"st_create", st_create, CONF_OP(spt_tensor_create)},
              {"sparse_tensor_create", sparse_tensor_create, CONF_OP(spt_tensor_create)},
              {"spt_tensor_set_order", h_set_order, CONF_OP(spt_tensor_set_order)})
#endif
