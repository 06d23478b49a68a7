/* SPDX-License-Identifier: Apache-2.0 */
/* test_embedding_lookup_sparse.c -- tf.nn.embedding_lookup_sparse: the three combiners with and
 * without weights, mod-sharded params equal to the whole table, unsorted ids, every check, allocation
 * failures. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static const float TABLE[8] = {1, 2, 3, 4, 5, 6, 7, 8}; /* 4 x 2 */

static void fixture(spt_dense **params, spt_tensor **ids, spt_tensor **w) {
    int64_t ps[2] = {4, 2}, s[2] = {3, 2}, ix[8] = {0, 0, 0, 1, 1, 0, 2, 0};
    int64_t idv[4] = {0, 1, 3, 2};
    float wv[4] = {0.1f, 1.0f, 0.5f, 2.0f};
    *params = tt_dense(SPT_FLOAT32, 2, ps, TABLE);
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, idv, NULL, ids));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s, 4, ix, wv, NULL, w));
}

static void expect_rows(const spt_dense *d, const float *want, int n, float tol) {
    const float *v = spt_dense_data(d);
    for (int i = 0; i < n; i++)
        if (fabsf(v[i] - want[i]) > tol) fail_msg("element %d is %g, expected %g", i, (double)v[i], (double)want[i]);
}

static void test_combiners(void **state) {
    (void)state;
    spt_dense *p, *o;
    spt_tensor *ids, *w;
    fixture(&p, &ids, &w);
    const spt_dense *const t[1] = {p};
    ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, NULL, SPT_COMBINER_SUM, &o));
    assert_int_equal(spt_dense_rank(o), 2);
    assert_int_equal(spt_dense_shape(o)[0], 3);
    float sum[6] = {4, 6, 7, 8, 5, 6};
    expect_rows(o, sum, 6, 0);
    spt_dense_free(o);
    ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, w, SPT_COMBINER_SUM, &o));
    float wsum[6] = {3.1f, 4.2f, 3.5f, 4.0f, 10, 12};
    expect_rows(o, wsum, 6, 1e-6f);
    spt_dense_free(o);
    ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, w, SPT_COMBINER_MEAN, &o));
    float wmean[6] = {3.1f / 1.1f, 4.2f / 1.1f, 7, 8, 5, 6};
    expect_rows(o, wmean, 6, 1e-6f);
    spt_dense_free(o);
    ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, w, SPT_COMBINER_SQRTN, &o));
    float wsq[6] = {3.1f / sqrtf(1.01f), 4.2f / sqrtf(1.01f), 7, 8, 5, 6};
    expect_rows(o, wsq, 6, 1e-6f);
    spt_dense_free(o);
    ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, NULL, SPT_COMBINER_SQRTN, &o));
    float sq[6] = {4 / sqrtf(2), 6 / sqrtf(2), 7, 8, 5, 6};
    expect_rows(o, sq, 6, 1e-6f);
    spt_dense_free(o);
    spt_dense_free(p);
    spt_tensor_free(ids);
    spt_tensor_free(w);
}

/* Three "mod" shards of the table give the same result as the table; ids in storage order not sorted. */
static void test_shards_and_order(void **state) {
    (void)state;
    /* shard p holds rows p, p + 3, ...: shard 0 = rows 0, 3; shard 1 = row 1; shard 2 = row 2 */
    int64_t s0[2] = {2, 2}, s1[2] = {1, 2};
    float r0[4] = {1, 2, 7, 8}, r1[2] = {3, 4}, r2[2] = {5, 6};
    spt_dense *sh[3] = {tt_dense(SPT_FLOAT32, 2, s0, r0), tt_dense(SPT_FLOAT32, 2, s1, r1),
                        tt_dense(SPT_FLOAT32, 2, s1, r2)};
    int64_t s[2] = {3, 2}, ix[8] = {2, 0, 0, 1, 1, 0, 0, 0};
    int64_t idv[4] = {2, 1, 3, 0};
    spt_tensor *ids;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, idv, NULL, &ids));
    spt_dense *o;
    ASSERT_OK(spt_embedding_lookup_sparse((const spt_dense *const *)sh, 3, ids, NULL, SPT_COMBINER_MEAN, &o));
    float want[6] = {2, 3, 7, 8, 5, 6};
    expect_rows(o, want, 6, 0);
    spt_dense_free(o);
    /* id 4 is shard 1 row 1: outside that shard */
    int64_t bad[4] = {2, 1, 4, 0};
    spt_tensor *b;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, bad, NULL, &b));
    o = (spt_dense *)1;
    ASSERT_ST(SPT_ERANGE, spt_embedding_lookup_sparse((const spt_dense *const *)sh, 3, b, NULL, SPT_COMBINER_SUM, &o));
    assert_null(o);
    ASSERT_MSG("ids[2] = 4 is not in [0, 4)");
    spt_tensor_free(b);
    /* shards that disagree */
    int64_t s3[2] = {1, 3};
    float r3[3] = {0};
    spt_dense *odd = tt_dense(SPT_FLOAT32, 2, s3, r3);
    const spt_dense *mix[2] = {sh[0], odd};
    ASSERT_ST(SPT_EINVAL, spt_embedding_lookup_sparse(mix, 2, ids, NULL, SPT_COMBINER_SUM, &o));
    spt_dense_free(odd);
    spt_tensor_free(ids);
    for (int k = 0; k < 3; k++) spt_dense_free(sh[k]);
}

static void test_errors(void **state) {
    (void)state;
    spt_dense *p, *o = (spt_dense *)1;
    spt_tensor *ids, *w;
    fixture(&p, &ids, &w);
    const spt_dense *const t[1] = {p};
    ASSERT_ST(SPT_EINVAL, spt_embedding_lookup_sparse(t, 0, ids, NULL, SPT_COMBINER_SUM, &o));
    assert_null(o);
    ASSERT_ST(SPT_EINVAL, spt_embedding_lookup_sparse(t, 1, NULL, NULL, SPT_COMBINER_SUM, &o));
    ASSERT_ST(SPT_EINVAL, spt_embedding_lookup_sparse(t, 1, ids, NULL, (spt_combiner)9, &o));
    int64_t s[2] = {3, 2}, ix[8] = {0, 0, 0, 1, 1, 0, 2, 1};
    float wv[4] = {1, 1, 1, 1};
    spt_tensor *w2;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s, 4, ix, wv, NULL, &w2));
    ASSERT_ST(SPT_EINVAL, spt_embedding_lookup_sparse(t, 1, ids, w2, SPT_COMBINER_SUM, &o));
    ASSERT_MSG("same indices");
    spt_tensor *wd;
    ASSERT_OK(spt_cast(w, SPT_FLOAT64, &wd));
    ASSERT_ST(SPT_EDTYPE, spt_embedding_lookup_sparse(t, 1, ids, wd, SPT_COMBINER_SUM, &o));
    spt_tensor *fid;
    ASSERT_OK(spt_cast(ids, SPT_FLOAT32, &fid));
    ASSERT_ST(SPT_EDTYPE, spt_embedding_lookup_sparse(t, 1, fid, NULL, SPT_COMBINER_SUM, &o));
    int64_t idn[4] = {0, -1, 3, 2};
    spt_tensor *neg;
    int64_t ixo[8] = {0, 0, 0, 1, 1, 0, 2, 0};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ixo, idn, NULL, &neg));
    ASSERT_ST(SPT_ERANGE, spt_embedding_lookup_sparse(t, 1, neg, NULL, SPT_COMBINER_SUM, &o));
    ASSERT_MSG("ids[1] = -1 is negative");
    int64_t s1[1] = {4}, i1[1] = {0}, one = 1;
    spt_tensor *r1;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, s1, 1, i1, &one, NULL, &r1));
    ASSERT_ST(SPT_EINVAL, spt_embedding_lookup_sparse(t, 1, r1, NULL, SPT_COMBINER_SUM, &o));
    int32_t ip[8] = {0};
    int64_t ps[2] = {4, 2};
    spt_dense *intp = tt_dense(SPT_INT32, 2, ps, ip);
    const spt_dense *const ti[1] = {intp};
    ASSERT_ST(SPT_EDTYPE, spt_embedding_lookup_sparse(ti, 1, ids, NULL, SPT_COMBINER_SUM, &o));
    spt_tensor *arr[] = {ids, w, w2, wd, fid, neg, r1};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) spt_tensor_free(arr[k]);
    spt_dense_free(p);
    spt_dense_free(intp);
}

/* 3000 rows of 0..5 ids (row-major, so threads split the rows) into a 500 x 16 float64 table: the
 * threaded result equals the one-thread result bit for bit and a naive reference. */
static void test_threaded(void **state) {
    (void)state;
    const int64_t V = 500, D = 16, R = 3000;
    int64_t ps[2] = {V, D}, s[2] = {R, 5};
    double *tab = malloc((size_t)(V * D) * sizeof *tab), *ref = calloc((size_t)(R * D), sizeof *ref);
    for (int64_t i = 0; i < V * D; i++) tab[i] = (double)(i % 37) - 11.5;
    int64_t *ix = malloc((size_t)(R * 10) * sizeof *ix), *id = malloc((size_t)(R * 5) * sizeof *id), n = 0;
    double *w = malloc((size_t)(R * 5) * sizeof *w), *wsum = calloc((size_t)R, sizeof *wsum);
    uint64_t g = 777;
    for (int64_t r = 0; r < R; r++) {
        g ^= g << 13, g ^= g >> 7, g ^= g << 17;
        for (int64_t k = 0; k < (int64_t)(g % 6); k++) {
            ix[2 * n] = r, ix[2 * n + 1] = k;
            id[n] = (int64_t)((g >> (8 + k * 5)) % (uint64_t)V);
            w[n] = 0.25 * (double)(1 + k);
            for (int64_t d = 0; d < D; d++) ref[r * D + d] += w[n] * tab[id[n] * D + d];
            wsum[r] += w[n];
            n++;
        }
    }
    spt_dense *p = tt_dense(SPT_FLOAT64, 2, ps, tab), *o1, *o4;
    spt_tensor *ids, *wt;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, n, ix, id, NULL, &ids));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, n, ix, w, NULL, &wt));
    const spt_dense *const t[1] = {p};
    spt_set_num_threads(1);
    ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, wt, SPT_COMBINER_MEAN, &o1));
    spt_set_num_threads(4);
    ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, wt, SPT_COMBINER_MEAN, &o4));
    spt_set_num_threads(0);
    assert_memory_equal(spt_dense_data(o1), spt_dense_data(o4), (size_t)(R * D) * sizeof(double));
    const double *v = spt_dense_data(o1);
    for (int64_t r = 0; r < R; r++)
        for (int64_t d = 0; d < D; d++) {
            double want = wsum[r] == 0 ? 0 : ref[r * D + d] / wsum[r];
            assert_true(fabs(v[r * D + d] - want) < 1e-12);
        }
    spt_dense_free(o1);
    spt_dense_free(o4);
    spt_dense_free(p);
    spt_tensor_free(ids);
    spt_tensor_free(wt);
    free(tab);
    free(ref);
    free(ix);
    free(id);
    free(w);
    free(wsum);
}

/* float32 rows of 64 (a fixed-width vector loop) and of 5 (the general loop), sum combiner with
 * weights: bit for bit the scalar float32 reference (the same multiply and add per element, in storage
 * order), on 2 threads. */
static void test_float32_widths(void **state) {
    (void)state;
    const int64_t V = 300, R = 700;
    const int64_t widths[2] = {64, 5};
    for (int wi = 0; wi < 2; wi++) {
        const int64_t D = widths[wi];
        int64_t ps[2] = {V, D}, s[2] = {R, 4};
        float *tab = malloc((size_t)(V * D) * sizeof *tab), *ref = calloc((size_t)(R * D), sizeof *ref);
        for (int64_t i = 0; i < V * D; i++) tab[i] = (float)((i * 7) % 101) * 0.013f - 0.6f;
        int64_t *ix = malloc((size_t)(R * 8) * sizeof *ix), *id = malloc((size_t)(R * 4) * sizeof *id), n = 0;
        float *w = malloc((size_t)(R * 4) * sizeof *w);
        uint64_t g = 4242;
        for (int64_t r = 0; r < R; r++) {
            g ^= g << 13, g ^= g >> 7, g ^= g << 17;
            for (int64_t k = 0; k < (int64_t)(g % 5); k++) {
                ix[2 * n] = r, ix[2 * n + 1] = k;
                id[n] = (int64_t)((g >> (8 + k * 9)) % (uint64_t)V);
                w[n] = 0.3f * (float)(1 + k) - 0.4f;
                for (int64_t d = 0; d < D; d++) ref[r * D + d] += w[n] * tab[id[n] * D + d];
                n++;
            }
        }
        spt_dense *p = tt_dense(SPT_FLOAT32, 2, ps, tab), *o;
        spt_tensor *ids, *wt;
        ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, n, ix, id, NULL, &ids));
        ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s, n, ix, w, NULL, &wt));
        const spt_dense *const t[1] = {p};
        spt_set_num_threads(2);
        ASSERT_OK(spt_embedding_lookup_sparse(t, 1, ids, wt, SPT_COMBINER_SUM, &o));
        spt_set_num_threads(0);
        assert_memory_equal(spt_dense_data(o), ref, (size_t)(R * D) * sizeof(float));
        spt_dense_free(o);
        spt_dense_free(p);
        spt_tensor_free(ids);
        spt_tensor_free(wt);
        free(tab);
        free(ref);
        free(ix);
        free(id);
        free(w);
    }
}

static spt_dense *sw_p, *sw_out;
static spt_tensor *sw_ids, *sw_w;
static spt_status sw_run(void *x) {
    (void)x;
    const spt_dense *const t[1] = {sw_p};
    return spt_embedding_lookup_sparse(t, 1, sw_ids, sw_w, SPT_COMBINER_MEAN, &sw_out);
}
static void sw_clean(void *x) {
    (void)x;
    spt_dense_free(sw_out);
    sw_out = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    fixture(&sw_p, &sw_ids, &sw_w);
    tt_sweep(sw_run, sw_clean, NULL);
    spt_dense_free(sw_p);
    spt_tensor_free(sw_ids);
    spt_tensor_free(sw_w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combiners), cmocka_unit_test(test_shards_and_order), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_threaded),  cmocka_unit_test(test_float32_widths),   cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>
#include <string.h>

static conf_result embedding_lookup_sparse(const conf_case *c) { return conf_embedding(c, false); }

CONF_HANDLERS(test_embedding_lookup_sparse,
              {"embedding_lookup_sparse", embedding_lookup_sparse, CONF_OP(spt_embedding_lookup_sparse)})
#endif
