/* SPDX-License-Identifier: Apache-2.0 */
/* test_tot.c -- spt_tot: construction, EMPTY vs present, accessors, errors, allocation failures. */
#ifndef SPT_CONFORMANCE
#include "tot_ref.h"

static void test_new_and_walk(void **state) {
    (void)state;
    /* outer 2x3; entries given out of order: (1,2) -> [2] {5,6}; (0,1) -> [1,2] {1,2}... inner rank 1 */
    int64_t oshape[2] = {2, 3}, outer[4] = {1, 2, 0, 1}, ishape[2] = {2, 3};
    double vals[5] = {5, 6, 1, 0, 0};
    spt_tot *t;
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 2, oshape, 1, 2, outer, ishape, vals, &t));
    assert_int_equal(spt_tot_dtype(t), SPT_FLOAT64);
    assert_int_equal(spt_tot_outer_rank(t), 2);
    assert_int_equal(spt_tot_outer_shape(t)[1], 3);
    assert_int_equal(spt_tot_inner_rank(t), 1);
    assert_int_equal(spt_tot_count(t), 2);
    assert_int_equal(spt_tot_total_size(t), 5);
    spt_tot_inner in;
    ASSERT_OK(spt_tot_entry(t, 0, &in)); /* (0,1) comes first in row-major order */
    assert_true(in.present);
    assert_int_equal(in.outer[0], 0);
    assert_int_equal(in.outer[1], 1);
    assert_int_equal(in.shape[0], 3);
    assert_int_equal(in.size, 3);
    assert_true(((const double *)in.data)[0] == 1 && ((const double *)in.data)[2] == 0);
    ASSERT_OK(spt_tot_entry(t, 1, &in));
    assert_int_equal(in.shape[0], 2);
    assert_true(((const double *)in.data)[1] == 6);
    ASSERT_ST(SPT_ERANGE, spt_tot_entry(t, 2, &in));
    ASSERT_OK(spt_tot_get(t, (int64_t[]){1, 2}, &in));
    assert_true(in.present);
    assert_true(((const double *)in.data)[0] == 5);
    ASSERT_OK(spt_tot_get(t, (int64_t[]){1, 1}, &in));
    assert_false(in.present);
    assert_null(in.data);
    assert_int_equal(in.size, 0);
    ASSERT_ST(SPT_ERANGE, spt_tot_get(t, (int64_t[]){2, 0}, &in));
    ASSERT_MSG("spt_tot_get");
    ASSERT_ST(SPT_ERANGE, spt_tot_get(t, (int64_t[]){0, -1}, &in));
    spt_tot_free(t);
    spt_tot_free(NULL);
}

static void test_scalars_empty_and_zero_volume(void **state) {
    (void)state;
    spt_tot *t;
    /* outer rank 0 (one outer element), inner rank 0 (a scalar): present, distinct from EMPTY */
    int32_t v = 7;
    ASSERT_OK(spt_tot_new(SPT_INT32, 0, NULL, 0, 1, NULL, NULL, &v, &t));
    spt_tot_inner in;
    ASSERT_OK(spt_tot_get(t, NULL, &in));
    assert_true(in.present);
    assert_int_equal(in.size, 1);
    assert_int_equal(*(const int32_t *)in.data, 7);
    spt_tot_free(t);
    ASSERT_OK(spt_tot_new(SPT_INT32, 0, NULL, 0, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_tot_get(t, NULL, &in));
    assert_false(in.present);
    spt_tot_free(t);
    /* an outer shape with a zero dim has no element */
    ASSERT_OK(spt_tot_new(SPT_FLOAT32, 2, (int64_t[]){0, 4}, 2, 0, NULL, NULL, NULL, &t));
    assert_int_equal(spt_tot_count(t), 0);
    ASSERT_ST(SPT_ERANGE, spt_tot_get(t, (int64_t[]){0, 0}, &in));
    spt_tot_free(t);
    /* a present inner tensor has an element: a zero inner dim is refused (EMPTY = left out) */
    t = (spt_tot *)1;
    ASSERT_ST(SPT_EINVAL,
              spt_tot_new(SPT_COMPLEX128, 1, (int64_t[]){2}, 1, 1, (int64_t[]){1}, (int64_t[]){0}, NULL, &t));
    assert_null(t);
    ASSERT_MSG("no element");
}

static void test_errors(void **state) {
    (void)state;
    spt_tot *t = (spt_tot *)1;
    int64_t os[1] = {3}, o2[2] = {1, 1}, is[2] = {1, 1};
    double v[2] = {1, 2};
    ASSERT_ST(SPT_EDTYPE, spt_tot_new(SPT_STRING, 1, os, 1, 0, NULL, NULL, NULL, &t));
    assert_null(t);
    ASSERT_ST(SPT_EDTYPE, spt_tot_new(SPT_BOOL, 1, os, 1, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, os, 1, 2, o2, is, v, &t));
    ASSERT_MSG("twice");
    ASSERT_ST(SPT_ERANGE, spt_tot_new(SPT_FLOAT64, 1, os, 1, 1, (int64_t[]){3}, is, v, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, os, 1, 1, o2, (int64_t[]){-1}, v, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, os, 1, 1, o2, is, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, os, 1, -1, o2, is, v, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, os, 1, 4, o2, is, v, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){-3}, 1, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, os, SPT_MAX_RANK + 1, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EOVERFLOW, spt_tot_new(SPT_FLOAT64, 1, os, 2, 1, o2, (int64_t[]){INT64_MAX, 2}, v, &t));
    ASSERT_ST(SPT_EOVERFLOW,
              spt_tot_new(SPT_FLOAT64, 1, os, 1, 2, (int64_t[]){0, 1}, (int64_t[]){INT64_MAX, INT64_MAX}, v, &t));
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 1, os, 1, 0, NULL, NULL, NULL, NULL));
    spt_tot_inner in;
    ASSERT_ST(SPT_EINVAL, spt_tot_get(NULL, o2, &in));
    ASSERT_ST(SPT_EINVAL, spt_tot_entry(NULL, 0, &in));
    assert_int_equal(spt_tot_count(NULL), 0);
}

/* An outer shape of any volume (FROSTT nell-1's dims, a rank-6 shape of 2^62 per dim): stored in
 * outer-index order, found by spt_tot_get, a repeated outer index refused. */
static void test_any_volume_outer(void **state) {
    (void)state;
    const int64_t P62 = (int64_t)1 << 62;
    int64_t nell[3] = {2902330, 2143368, 25495389};
    int64_t outer[12] = {2902329, 0, 7, 0, 2143367, 25495388, 2902329, 0, 6, 5, 5, 5}, ishape[4] = {1, 2, 1, 1};
    double vals[5] = {10, 20, 21, 30, 40};
    spt_tot *t = NULL;
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 3, nell, 1, 4, outer, ishape, vals, &t));
    const int64_t want[12] = {0, 2143367, 25495388, 5, 5, 5, 2902329, 0, 6, 2902329, 0, 7};
    const double first[4] = {20, 40, 30, 10};
    spt_tot_inner in;
    for (int64_t e = 0; e < 4; e++) {
        ASSERT_OK(spt_tot_entry(t, e, &in));
        assert_memory_equal(in.outer, want + e * 3, 3 * sizeof(int64_t));
        assert_true(((const double *)in.data)[0] == first[e]);
    }
    ASSERT_OK(spt_tot_get(t, (int64_t[]){2902329, 0, 6}, &in));
    assert_true(in.present && ((const double *)in.data)[0] == 30);
    ASSERT_OK(spt_tot_get(t, (int64_t[]){2902329, 0, 8}, &in));
    assert_false(in.present);
    spt_tot_free(t);
    t = NULL;
    int64_t r6[6] = {P62, P62, P62, P62, P62, P62};
    int64_t o6[12] = {P62 - 1, 0, 0, 0, 0, 1, P62 - 1, 0, 0, 0, 0, 1}, is1[2] = {1, 1};
    ASSERT_ST(SPT_EINVAL, spt_tot_new(SPT_FLOAT64, 6, r6, 1, 2, o6, is1, vals, &t));
    ASSERT_MSG("is given twice");
    assert_null(t);
    o6[11] = 0;
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 6, r6, 1, 2, o6, is1, vals, &t));
    ASSERT_OK(spt_tot_entry(t, 0, &in));
    assert_true(((const double *)in.data)[0] == 20); /* [.., 0] sorts before [.., 1] */
    spt_tot_free(t);
}

typedef struct {
    spt_tot *t;
} sweep_ctx;
static spt_status sweep_fn(void *p) {
    sweep_ctx *c = p;
    int64_t oshape[2] = {2, 3}, outer[6] = {1, 2, 0, 1, 0, 0}, ishape[3] = {2, 3, 1};
    double vals[6] = {5, 6, 1, 0, 0, 9};
    return spt_tot_new(SPT_FLOAT64, 2, oshape, 1, 3, outer, ishape, vals, &c->t);
}
static void sweep_cleanup(void *p) {
    sweep_ctx *c = p;
    spt_tot_free(c->t);
    c->t = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    sweep_ctx c = {NULL};
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_and_walk), cmocka_unit_test(test_scalars_empty_and_zero_volume),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_any_volume_outer),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>
#include <string.h>

static conf_result h_tot_new(const conf_case *c) {
    long no;
    int64_t *osh = conf_ints_new(c, "outer_shape", &no), n, orank, n2, irank;
    int64_t *outer = conf_matrix(conf_arg(c, "outer"), &n, &orank),
            *ish = conf_matrix(conf_arg(c, "inner_shapes"), &n2, &irank);
    json_t *jor = conf_arg(c, "outer_rank"), *jir = conf_arg(c, "inner_rank");
    if (jor) orank = json_integer_value(jor);
    else if (n == 0) orank = no;
    if (jir) irank = json_integer_value(jir);
    spt_dense *vals = NULL;
    spt_dtype dt = conf_dtype(c->args, SPT_FLOAT64);
    spt_status st = conf_arg(c, "values") ? conf_dense(conf_arg(c, "values"), dt, &vals) : SPT_OK;
    spt_tot *t = (spt_tot *)&t;
    if (st == SPT_OK) st = spt_tot_new(dt, orank, osh, irank, n, outer, ish, vals ? spt_dense_data(vals) : NULL, &t);
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && t != NULL && t != (spt_tot *)&t) r = conf_fail(c, "out-parameter not NULL after an error");
    if (st == SPT_OK) {
        json_t *cnt = json_object_get(json_object_get(c->root, "result"), "count");
        if (r == CONF_CONTINUE)
            r = cnt && spt_tot_count(t) != json_integer_value(cnt) ? conf_fail(c, "count differs") : CONF_PASS;
        spt_tot_free(t);
    }
    spt_dense_free(vals);
    free(osh);
    free(outer);
    free(ish);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

CONF_HANDLERS(test_tot, {"spt_tot_new", h_tot_new, CONF_OP(spt_tot_new)})
#endif
