/* SPDX-License-Identifier: Apache-2.0 */
/* test_safe_embedding_lookup_sparse.c -- tf.nn.safe_embedding_lookup_sparse: pruning of ids < 0 and
 * weights <= 0 (mean and sqrtn only), empty rows zero or params[default_id], rank-3 ids, errors. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static void test_prune_and_default(void **state) {
    (void)state;
    double tab[16];
    for (int i = 0; i < 16; i++) tab[i] = i + 1;
    int64_t ps[2] = {4, 4}, s[2] = {5, 4};
    int64_t ix[14] = {0, 0, 0, 1, 0, 2, 1, 0, 3, 0, 4, 0, 4, 1};
    int64_t idv[7] = {0, 1, -1, -1, 2, 0, 1};
    double wv[7] = {1, 2, 1, 1, 3, 0, -0.5};
    spt_dense *p = tt_dense(SPT_FLOAT64, 2, ps, tab), *o;
    spt_tensor *ids, *w;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 7, ix, idv, NULL, &ids));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 7, ix, wv, NULL, &w));
    const spt_dense *const t[1] = {p};
    ASSERT_OK(spt_safe_embedding_lookup_sparse(t, 1, ids, w, SPT_COMBINER_MEAN, SPT_UNSET, &o));
    const double *v = spt_dense_data(o);
    double row0[4] = {11.0 / 3, 14.0 / 3, 17.0 / 3, 20.0 / 3};
    for (int k = 0; k < 4; k++) assert_true(fabs(v[k] - row0[k]) < 1e-12);
    for (int k = 4; k < 12; k++) assert_true(v[k] == 0); /* rows 1 (only -1) and 2 (no ids) */
    for (int k = 0; k < 4; k++) assert_true(v[12 + k] == 9 + k);
    for (int k = 16; k < 20; k++) assert_true(v[k] == 0); /* row 4: only weights <= 0 */
    spt_dense_free(o);
    ASSERT_OK(spt_safe_embedding_lookup_sparse(t, 1, ids, w, SPT_COMBINER_SUM, 3, &o));
    v = spt_dense_data(o);
    /* sum keeps the weights <= 0 (TensorFlow prunes them only for mean and sqrtn): row 4 = 0 p[0] - 0.5 p[1] */
    for (int k = 0; k < 4; k++) assert_true(v[4 + k] == 13 + k && v[8 + k] == 13 + k && v[16 + k] == -0.5 * (5 + k));
    for (int k = 0; k < 4; k++) assert_true(v[k] == (1 + k) + 2 * (5 + k));
    spt_dense_free(o);
    /* without weights only ids < 0 are pruned */
    ASSERT_OK(spt_safe_embedding_lookup_sparse(t, 1, ids, NULL, SPT_COMBINER_MEAN, SPT_UNSET, &o));
    v = spt_dense_data(o);
    for (int k = 0; k < 4; k++) assert_true(v[16 + k] == 3 + k);
    spt_dense_free(o);
    o = (spt_dense *)1;
    ASSERT_ST(SPT_ERANGE, spt_safe_embedding_lookup_sparse(t, 1, ids, NULL, SPT_COMBINER_MEAN, 4, &o));
    assert_null(o);
    ASSERT_MSG("default_id[0] = 4");
    ASSERT_ST(SPT_ERANGE, spt_safe_embedding_lookup_sparse(t, 1, ids, NULL, SPT_COMBINER_MEAN, -3, &o));
    spt_tensor_free(ids);
    spt_tensor_free(w);
    /* rank-3 ids: output [2, 3] + [4] */
    int64_t s3[3] = {2, 3, 4}, ix3[9] = {0, 0, 0, 1, 1, 0, 1, 1, 1};
    int64_t id3[3] = {1, 2, 3};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 3, s3, 3, ix3, id3, NULL, &ids));
    ASSERT_OK(spt_safe_embedding_lookup_sparse(t, 1, ids, NULL, SPT_COMBINER_SUM, SPT_UNSET, &o));
    assert_int_equal(spt_dense_rank(o), 3);
    assert_int_equal(spt_dense_shape(o)[0], 2);
    assert_int_equal(spt_dense_shape(o)[1], 3);
    v = spt_dense_data(o);
    for (int k = 0; k < 4; k++) assert_true(v[k] == 5 + k && v[16 + k] == 9 + k + 13 + k && v[4 + k] == 0);
    spt_dense_free(o);
    spt_tensor_free(ids);
    spt_dense_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_prune_and_default)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>
#include <string.h>

static conf_result safe_embedding_lookup_sparse(const conf_case *c) { return conf_embedding(c, true); }

CONF_HANDLERS(test_safe_embedding_lookup_sparse,
              {"safe_embedding_lookup_sparse", safe_embedding_lookup_sparse, CONF_OP(spt_safe_embedding_lookup_sparse)})
#endif
