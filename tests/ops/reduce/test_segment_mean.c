/* SPDX-License-Identifier: Apache-2.0 */
/* test_segment_mean.c -- tf.sparse.segment_mean: means of segments, zero for empty ones, float only. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static void test_mean(void **state) {
    (void)state;
    int64_t s[2] = {10, 4};
    float d[40];
    for (int k = 0; k < 40; k++) d[k] = (float)(k + 1);
    int64_t ix[4] = {8, 3, 0, 9}, ids[4] = {1, 2, 2, 2};
    spt_dense *data = tt_dense(SPT_FLOAT32, 2, s, d), *i = tt_vec(SPT_INT64, 4, ix), *g = tt_vec(SPT_INT64, 4, ids),
              *out = NULL;
    ASSERT_OK(spt_segment_mean(data, i, g, 4, &out));
    float want[16] = {0, 0, 0, 0, 33, 34, 35, 36, 17, 18, 19, 20, 0, 0, 0, 0};
    assert_int_equal(spt_dense_shape(out)[0], 4);
    assert_memory_equal(spt_dense_data(out), want, sizeof want);
    spt_dense_free(out);
    /* integer data is not supported by mean (TensorFlow: floats only) */
    int32_t iv[10] = {0};
    spt_dense *idata = tt_vec(SPT_INT32, 10, iv);
    out = (spt_dense *)1;
    ASSERT_ST(SPT_EDTYPE, spt_segment_mean(idata, i, g, SPT_UNSET, &out));
    assert_null(out);
    ASSERT_MSG("spt_segment_mean");
    /* float64, three equal ids -> (1 + 2 + 4) / 3 */
    double dv[3] = {1, 2, 4};
    int64_t ix2[3] = {0, 1, 2}, ids2[3] = {0, 0, 0};
    spt_dense *dd = tt_vec(SPT_FLOAT64, 3, dv), *i2 = tt_vec(SPT_INT64, 3, ix2), *g2 = tt_vec(SPT_INT64, 3, ids2);
    ASSERT_OK(spt_segment_mean(dd, i2, g2, SPT_UNSET, &out));
    assert_true(fabs(((const double *)spt_dense_data(out))[0] - 7.0 / 3.0) < 1e-15);
    spt_dense_free(out);
    spt_dense *arr[] = {data, i, g, idata, dd, i2, g2};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) spt_dense_free(arr[k]);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_mean)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result segment_mean(const conf_case *c) { return conf_segment(c, spt_segment_mean); }

CONF_HANDLERS(test_segment_mean, {"sparse_segment_mean", segment_mean, CONF_OP(spt_segment_mean)})
#endif
