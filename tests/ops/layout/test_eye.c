/* SPDX-License-Identifier: Apache-2.0 */
/* test_eye.c -- tf.sparse.eye: square and rectangular, dtypes, errors. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

#include <complex.h>

static void test_shapes(void **state) {
    (void)state;
    spt_tensor *o;
    ASSERT_OK(spt_eye(6, 4, SPT_FLOAT32, &o));
    int64_t s[2] = {6, 4}, ix[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    float v[4] = {1, 1, 1, 1};
    spt_test_expect_tensor(o, 2, s, 4, ix, v);
    assert_true(spt_tensor_is_row_major(o, true));
    assert_true(spt_tensor_known_valid(o));
    spt_tensor_free(o);
    ASSERT_OK(spt_eye(3, SPT_UNSET, SPT_INT32, &o));
    int64_t s3[2] = {3, 3};
    int32_t v3[3] = {1, 1, 1};
    spt_test_expect_tensor(o, 2, s3, 3, ix, v3);
    spt_tensor_free(o);
    ASSERT_OK(spt_eye(2, 2, SPT_COMPLEX128, &o));
    const double complex *c = spt_tensor_values(o);
    assert_true(c[0] == 1 && c[1] == 1);
    spt_tensor_free(o);
    ASSERT_OK(spt_eye(2, 2, SPT_BOOL, &o));
    assert_true(((const bool *)spt_tensor_values(o))[1]);
    spt_tensor_free(o);
    ASSERT_OK(spt_eye(0, 5, SPT_FLOAT64, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    assert_int_equal(spt_tensor_shape(o)[1], 5);
    spt_tensor_free(o);
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_eye(-1, 2, SPT_FLOAT32, &o));
    assert_null(o);
    ASSERT_MSG("spt_eye: num_rows must be >= 0, got -1");
    ASSERT_ST(SPT_EINVAL, spt_eye(2, -3, SPT_FLOAT32, &o));
    ASSERT_ST(SPT_EDTYPE, spt_eye(2, 2, SPT_STRING, &o));
    ASSERT_ST(SPT_EDTYPE, spt_eye(2, 2, (spt_dtype)99, &o));
    ASSERT_ST(SPT_EINVAL, spt_eye(2, 2, SPT_FLOAT32, NULL));
    ASSERT_ST(SPT_EOVERFLOW, spt_eye(INT64_MAX, INT64_MAX, SPT_FLOAT32, &o)); /* volume beyond int64 */
    assert_null(o);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_shapes), cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result eye(const conf_case *c) {
    spt_tensor *out = NULL;
    spt_status st = spt_eye(conf_opt_int(c->args, "num_rows", 0), conf_opt_int(c->args, "num_columns", SPT_UNSET),
                            conf_dtype(c->args, SPT_FLOAT32), &out);
    return conf_finish_sparse(c, st, out);
}

CONF_HANDLERS(test_eye, {"sparse_eye", eye, CONF_OP(spt_eye)})
#endif
