/* SPDX-License-Identifier: Apache-2.0 */
/* test_segment_sqrt_n.c -- tf.sparse.segment_sqrt_n: sum / sqrt(count), zero for empty segments. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static void test_sqrt_n(void **state) {
    (void)state;
    double v[4] = {1, 2, 3, 4};
    int64_t ix[4] = {0, 1, 2, 3}, ids[4] = {0, 0, 0, 0}, ids2[4] = {0, 0, 2, 2};
    spt_dense *d = tt_vec(SPT_FLOAT64, 4, v), *i = tt_vec(SPT_INT64, 4, ix), *g = tt_vec(SPT_INT64, 4, ids),
              *out = NULL;
    ASSERT_OK(spt_segment_sqrt_n(d, i, g, SPT_UNSET, &out));
    assert_int_equal(spt_dense_size(out), 1);
    assert_true(((const double *)spt_dense_data(out))[0] == 5.0); /* 10 / sqrt(4) */
    spt_dense_free(out);
    spt_dense *g2 = tt_vec(SPT_INT64, 4, ids2);
    ASSERT_OK(spt_segment_sqrt_n(d, i, g2, 4, &out));
    const double *o = spt_dense_data(out);
    assert_true(fabs(o[0] - 3 / sqrt(2.0)) < 1e-15 && o[1] == 0 && fabs(o[2] - 7 / sqrt(2.0)) < 1e-15 && o[3] == 0);
    spt_dense_free(out);
    int16_t iv[4] = {0};
    spt_dense *idata = tt_vec(SPT_INT16, 4, iv);
    ASSERT_ST(SPT_EDTYPE, spt_segment_sqrt_n(idata, i, g, SPT_UNSET, &out));
    ASSERT_MSG("spt_segment_sqrt_n");
    spt_dense *arr[] = {d, i, g, g2, idata};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) spt_dense_free(arr[k]);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_sqrt_n)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result segment_sqrt_n(const conf_case *c) { return conf_segment(c, spt_segment_sqrt_n); }

CONF_HANDLERS(test_segment_sqrt_n, {"sparse_segment_sqrt_n", segment_sqrt_n, CONF_OP(spt_segment_sqrt_n)})
#endif
