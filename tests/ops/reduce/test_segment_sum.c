/* SPDX-License-Identifier: Apache-2.0 */
/* test_segment_sum.c -- tf.sparse.segment_sum: exact sums, gaps, num_segments, every TensorFlow check,
 * a threaded run against a naive reference, allocation failures. (mean and sqrt_n share the engine and
 * have their own files.) */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

/* data = arange(1, 41).reshape(10, 4) as in segment_reduction_ops_test.py's _input([10, 4]) */
static spt_dense *input10x4(spt_dtype dt) {
    int64_t s[2] = {10, 4};
    spt_dense *d = NULL;
    ASSERT_OK(spt_dense_new(dt, 2, s, &d));
    for (int i = 0; i < 40; i++) {
        if (dt == SPT_FLOAT32) ((float *)spt_dense_data_mut(d))[i] = (float)(i + 1);
        else if (dt == SPT_INT16) ((int16_t *)spt_dense_data_mut(d))[i] = (int16_t)(i + 1);
        else ((double *)spt_dense_data_mut(d))[i] = i + 1;
    }
    return d;
}

static void test_valid_and_hole(void **state) {
    (void)state;
    spt_dense *data = input10x4(SPT_FLOAT32), *out = NULL;
    int32_t ix[4] = {8, 3, 0, 9}, ids_valid[4] = {0, 1, 2, 2};
    int64_t ids_hole[4] = {0, 2, 2, 2};
    spt_dense *idx = tt_vec(SPT_INT32, 4, ix), *ids = tt_vec(SPT_INT32, 4, ids_valid);
    ASSERT_OK(spt_segment_sum(data, idx, ids, SPT_UNSET, &out));
    assert_int_equal(spt_dense_rank(out), 2);
    assert_int_equal(spt_dense_shape(out)[0], 3);
    assert_int_equal(spt_dense_shape(out)[1], 4);
    float want1[12] = {33, 34, 35, 36, 13, 14, 15, 16, 38, 40, 42, 44};
    assert_memory_equal(spt_dense_data(out), want1, sizeof want1);
    spt_dense_free(out);
    spt_dense_free(ids);
    /* int64 ids with a gap and num_segments 5: rows 1, 3, 4 stay zero */
    ids = tt_vec(SPT_INT64, 4, ids_hole);
    ASSERT_OK(spt_segment_sum(data, idx, ids, 5, &out));
    assert_int_equal(spt_dense_shape(out)[0], 5);
    float want2[20] = {33, 34, 35, 36, 0, 0, 0, 0, 51, 54, 57, 60, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(spt_dense_data(out), want2, sizeof want2);
    spt_dense_free(out);
    /* no ids at all: 0 rows, or num_segments zero rows */
    spt_dense *e = tt_vec(SPT_INT64, 0, NULL);
    ASSERT_OK(spt_segment_sum(data, e, e, SPT_UNSET, &out));
    assert_int_equal(spt_dense_shape(out)[0], 0);
    assert_int_equal(spt_dense_shape(out)[1], 4);
    spt_dense_free(out);
    ASSERT_OK(spt_segment_sum(data, e, e, 2, &out));
    float zeros[8] = {0};
    assert_memory_equal(spt_dense_data(out), zeros, sizeof zeros);
    spt_dense_free(out);
    spt_dense_free(e);
    spt_dense_free(ids);
    spt_dense_free(idx);
    spt_dense_free(data);
}

/* Integer data wraps, a repeated index counts twice, rank 1 and rank 3 data. */
static void test_int_and_ranks(void **state) {
    (void)state;
    int8_t v[3] = {100, 100, -128};
    int64_t ix[4] = {0, 0, 1, 2}, ids[4] = {0, 0, 1, 1};
    spt_dense *data = tt_vec(SPT_INT8, 3, v), *i = tt_vec(SPT_INT64, 4, ix), *s = tt_vec(SPT_INT64, 4, ids),
              *out = NULL;
    ASSERT_OK(spt_segment_sum(data, i, s, SPT_UNSET, &out));
    const int8_t *o = spt_dense_data(out);
    assert_int_equal(o[0], -56); /* 200 wraps */
    assert_int_equal(o[1], -28); /* 100 - 128 */
    spt_dense_free(out);
    spt_dense_free(data);
    int64_t sh[3] = {3, 2, 2};
    int64_t d3[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    int64_t ix3[3] = {2, 0, 1}, ids3[3] = {0, 0, 2};
    spt_dense *data3 = tt_dense(SPT_INT64, 3, sh, d3), *i3 = tt_vec(SPT_INT64, 3, ix3),
              *s3 = tt_vec(SPT_INT64, 3, ids3);
    ASSERT_OK(spt_segment_sum(data3, i3, s3, SPT_UNSET, &out));
    int64_t want[12] = {8, 10, 12, 14, 0, 0, 0, 0, 4, 5, 6, 7};
    assert_int_equal(spt_dense_rank(out), 3);
    assert_memory_equal(spt_dense_data(out), want, sizeof want);
    spt_dense_free(out);
    spt_dense_free(data3);
    spt_dense_free(i3);
    spt_dense_free(s3);
    spt_dense_free(i);
    spt_dense_free(s);
}

static void test_errors(void **state) {
    (void)state;
    spt_dense *data = input10x4(SPT_FLOAT32), *out = (spt_dense *)1;
    int64_t ix[4] = {8, 3, 0, 9}, bad_ix[4] = {8, 3, 0, 10}, neg_ix[4] = {8, -1, 0, 9};
    int64_t ok_ids[4] = {0, 1, 2, 2}, unsorted[4] = {0, 1, 0, 1}, neg[4] = {-1, 0, 0, 0}, big[4] = {0, 1, 3, 5};
    spt_dense *i = tt_vec(SPT_INT64, 4, ix), *s = tt_vec(SPT_INT64, 4, ok_ids);
    spt_dense *bi = tt_vec(SPT_INT64, 4, bad_ix), *ni = tt_vec(SPT_INT64, 4, neg_ix);
    spt_dense *us = tt_vec(SPT_INT64, 4, unsorted), *ns = tt_vec(SPT_INT64, 4, neg), *gs = tt_vec(SPT_INT64, 4, big);
    ASSERT_ST(SPT_ERANGE, spt_segment_sum(data, bi, s, SPT_UNSET, &out));
    assert_null(out);
    ASSERT_MSG("spt_segment_sum: indices[3] == 10 out of range [0, 10)");
    ASSERT_ST(SPT_ERANGE, spt_segment_sum(data, ni, s, SPT_UNSET, &out));
    ASSERT_MSG("indices[1] == -1 out of range");
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(data, i, us, SPT_UNSET, &out));
    ASSERT_MSG("segment ids are not increasing");
    ASSERT_MSG("segment_ids[2] = 0");
    ASSERT_ST(SPT_ERANGE, spt_segment_sum(data, i, ns, SPT_UNSET, &out));
    ASSERT_MSG("segment ids must be >= 0");
    ASSERT_ST(SPT_ERANGE, spt_segment_sum(data, i, gs, 5, &out));
    ASSERT_MSG("segment ids must be < num_segments");
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(data, i, s, -2, &out));
    ASSERT_MSG("num_segments");
    /* shapes and dtypes */
    spt_dense *short_ids = tt_vec(SPT_INT64, 3, ok_ids);
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(data, i, short_ids, SPT_UNSET, &out));
    ASSERT_MSG("segment_ids and indices should have same size");
    int64_t m[2] = {2, 2};
    spt_dense *mat = tt_dense(SPT_INT64, 2, m, ix);
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(data, mat, s, SPT_UNSET, &out));
    ASSERT_MSG("indices should be a vector");
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(data, i, mat, SPT_UNSET, &out));
    ASSERT_MSG("segment_ids should be a vector");
    float fx[4] = {0};
    spt_dense *fi = tt_vec(SPT_FLOAT32, 4, fx);
    ASSERT_ST(SPT_EDTYPE, spt_segment_sum(data, fi, s, SPT_UNSET, &out));
    spt_dense *scalar = NULL;
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 0, NULL, &scalar));
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(scalar, i, s, SPT_UNSET, &out));
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(NULL, i, s, SPT_UNSET, &out));
    ASSERT_ST(SPT_EINVAL, spt_segment_sum(data, i, s, SPT_UNSET, NULL));
    spt_dense *cd = NULL;
    int64_t cs[1] = {10};
    ASSERT_OK(spt_dense_new(SPT_COMPLEX64, 1, cs, &cd));
    ASSERT_ST(SPT_EDTYPE, spt_segment_sum(cd, i, s, SPT_UNSET, &out));
    ASSERT_ST(SPT_EDTYPE, spt_segment_mean(cd, i, s, SPT_UNSET, &out));
    /* sizes from num_segments are checked before allocating */
    ASSERT_ST(SPT_EOVERFLOW, spt_segment_sum(data, i, s, INT64_MAX / 2, &out));
    ASSERT_MSG("spt_segment_sum");
    assert_null(out);
    int64_t last[4] = {0, 0, 0, INT64_MAX};
    spt_dense *ls = tt_vec(SPT_INT64, 4, last);
    ASSERT_ST(SPT_EOVERFLOW, spt_segment_sum(data, i, ls, SPT_UNSET, &out));
    spt_dense *one = NULL;
    int64_t os[1] = {10};
    ASSERT_OK(spt_dense_new(SPT_UINT8, 1, os, &one));
    int64_t huge = (int64_t)1 << 50; /* fits in int64 and size_t, cannot be allocated */
    ASSERT_ST(SPT_ENOMEM, spt_segment_sum(one, i, s, huge, &out));
    ASSERT_MSG("spt_segment_sum: out of memory");
    assert_null(out);
    /* data with no rows whose other dims multiply past int64: fine with no segment, overflow with one */
    int64_t zs[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40};
    spt_dense *zd = NULL, *e = tt_vec(SPT_INT64, 0, NULL);
    ASSERT_OK(spt_dense_new(SPT_FLOAT32, 3, zs, &zd));
    ASSERT_OK(spt_segment_sum(zd, e, e, SPT_UNSET, &out));
    assert_int_equal(spt_dense_shape(out)[2], INT64_C(1) << 40);
    spt_dense_free(out);
    ASSERT_ST(SPT_EOVERFLOW, spt_segment_sum(zd, e, e, 1, &out));
    spt_dense_free(zd);
    spt_dense_free(e);
    spt_dense *arr[] = {data, i, s, bi, ni, us, ns, gs, short_ids, mat, fi, scalar, cd, ls, one};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) spt_dense_free(arr[k]);
}

/* 200k positions over 3000 segments (sorted, with gaps), int64 data with 3 columns: the threaded result
 * equals a serial reference, for 1 and several threads. */
static void test_threaded_reference(void **state) {
    (void)state;
    const int64_t n = 200000, rows = 5000, w = 3;
    int64_t sh[2] = {rows, w};
    int64_t *data = malloc((size_t)(rows * w) * sizeof *data), *ix = malloc((size_t)n * sizeof *ix),
            *ids = malloc((size_t)n * sizeof *ids);
    uint64_t g = 88172645463325252ull;
    for (int64_t k = 0; k < rows * w; k++) data[k] = k % 97 - 40;
    int64_t sid = 0;
    for (int64_t k = 0; k < n; k++) {
        g ^= g << 13, g ^= g >> 7, g ^= g << 17;
        if (g % 67 == 0) sid += 1 + (int64_t)(g % 3);
        ids[k] = sid;
        ix[k] = (int64_t)((g >> 8) % (uint64_t)rows);
    }
    int64_t nseg = sid + 1;
    int64_t *ref = calloc((size_t)(nseg * w), sizeof *ref);
    for (int64_t k = 0; k < n; k++)
        for (int64_t c = 0; c < w; c++) ref[ids[k] * w + c] += data[ix[k] * w + c];
    spt_dense *d = tt_dense(SPT_INT64, 2, sh, data), *i = tt_vec(SPT_INT64, n, ix), *s = tt_vec(SPT_INT64, n, ids);
    for (int th = 1; th <= 4; th += 3) {
        spt_set_num_threads(th);
        spt_dense *out = NULL;
        ASSERT_OK(spt_segment_sum(d, i, s, SPT_UNSET, &out));
        assert_int_equal(spt_dense_shape(out)[0], nseg);
        assert_memory_equal(spt_dense_data(out), ref, (size_t)(nseg * w) * sizeof *ref);
        spt_dense_free(out);
    }
    spt_set_num_threads(0);
    spt_dense_free(d);
    spt_dense_free(i);
    spt_dense_free(s);
    free(ref);
    free(data);
    free(ix);
    free(ids);
}

/* The kernels check as they stream, over several threads: float32 rows of 16 (a fixed-width kernel) and
 * float64 rows of 5 (the general one) summed exactly like a serial reference, then faults planted deep
 * in the input -- an id that drops, one that jumps past the last, an index outside data -- each reported
 * at its first position with nothing returned. */
static void test_threaded_faults(void **state) {
    (void)state;
    const int64_t n = 300000, rows = 4000;
    int64_t *ix = malloc((size_t)n * sizeof *ix), *ids = malloc((size_t)n * sizeof *ids);
    uint64_t g = 2463534242ull;
    int64_t sid = 0;
    for (int64_t k = 0; k < n; k++) {
        g ^= g << 13, g ^= g >> 7, g ^= g << 17;
        if (g % 50 == 0) sid += 1 + (int64_t)(g % 2);
        ids[k] = sid;
        ix[k] = (int64_t)((g >> 8) % (uint64_t)rows);
    }
    const int64_t nseg = sid + 1;
    for (int wi = 0; wi < 2; wi++) {
        const int64_t w = wi == 0 ? 16 : 5;
        const spt_dtype dt = wi == 0 ? SPT_FLOAT32 : SPT_FLOAT64;
        int64_t sh[2] = {rows, w};
        spt_dense *d = NULL;
        ASSERT_OK(spt_dense_new(dt, 2, sh, &d));
        for (int64_t k = 0; k < rows * w; k++) {
            if (wi == 0) ((float *)spt_dense_data_mut(d))[k] = (float)(k % 13) * 0.25f - 1.0f;
            else ((double *)spt_dense_data_mut(d))[k] = (double)(k % 11) * 0.5 - 2.0;
        }
        double *ref = calloc((size_t)(nseg * w), sizeof *ref);
        for (int64_t k = 0; k < n; k++)
            for (int64_t c = 0; c < w; c++)
                ref[ids[k] * w + c] += wi == 0 ? (double)((const float *)spt_dense_data(d))[ix[k] * w + c]
                                               : ((const double *)spt_dense_data(d))[ix[k] * w + c];
        spt_dense *i = tt_vec(SPT_INT64, n, ix), *s = tt_vec(SPT_INT64, n, ids), *out = NULL;
        spt_set_num_threads(4);
        ASSERT_OK(spt_segment_sum(d, i, s, SPT_UNSET, &out));
        assert_int_equal(spt_dense_shape(out)[0], nseg);
        /* the data are multiples of 1/4 and the sums stay small: exact in float32 too */
        for (int64_t k = 0; k < nseg * w; k++)
            assert_true((wi == 0 ? (double)((const float *)spt_dense_data(out))[k]
                                 : ((const double *)spt_dense_data(out))[k]) == ref[k]);
        spt_dense_free(out);
        int64_t *sm = (int64_t *)spt_dense_data_mut(s), *im = (int64_t *)spt_dense_data_mut(i);
        /* an id that drops, late in the input */
        int64_t keep = sm[250001];
        sm[250001] = sm[250000] - 1;
        out = (spt_dense *)1;
        ASSERT_ST(SPT_EINVAL, spt_segment_sum(d, i, s, SPT_UNSET, &out));
        assert_null(out);
        ASSERT_MSG("segment ids are not increasing: segment_ids[250001]");
        sm[250001] = keep;
        /* an id past every later one, early in the input (the later chunks start below it) */
        keep = sm[1000];
        sm[1000] = nseg - 1;
        ASSERT_ST(SPT_EINVAL, spt_segment_sum(d, i, s, SPT_UNSET, &out));
        assert_null(out);
        ASSERT_MSG("segment ids are not increasing: segment_ids[1001]");
        sm[1000] = keep;
        /* an index outside data, late */
        im[299990] = rows;
        ASSERT_ST(SPT_ERANGE, spt_segment_sum(d, i, s, SPT_UNSET, &out));
        assert_null(out);
        ASSERT_MSG("indices[299990] == 4000 out of range [0, 4000)");
        im[299990] = ix[299990];
        ASSERT_OK(spt_segment_mean(d, i, s, nseg + 3, &out));
        assert_int_equal(spt_dense_shape(out)[0], nseg + 3);
        spt_dense_free(out);
        spt_set_num_threads(0);
        spt_dense_free(d);
        spt_dense_free(i);
        spt_dense_free(s);
        free(ref);
    }
    free(ix);
    free(ids);
}

typedef struct {
    spt_dense *data, *idx, *ids, *out;
} sweep_ctx;
static spt_status sweep_run(void *p) {
    sweep_ctx *x = p;
    return spt_segment_sum(x->data, x->idx, x->ids, 4, &x->out);
}
static void sweep_clean(void *p) {
    sweep_ctx *x = p;
    spt_dense_free(x->out);
    x->out = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    double v[3] = {1, 2, 3};
    int64_t ix[3] = {2, 1, 0}, ids[3] = {0, 0, 3};
    sweep_ctx x = {tt_vec(SPT_FLOAT64, 3, v), tt_vec(SPT_INT64, 3, ix), tt_vec(SPT_INT64, 3, ids), NULL};
    tt_sweep(sweep_run, sweep_clean, &x);
    spt_dense_free(x.data);
    spt_dense_free(x.idx);
    spt_dense_free(x.ids);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_and_hole),  cmocka_unit_test(test_int_and_ranks),
        cmocka_unit_test(test_errors),          cmocka_unit_test(test_threaded_reference),
        cmocka_unit_test(test_threaded_faults), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result segment_sum(const conf_case *c) { return conf_segment(c, spt_segment_sum); }

CONF_HANDLERS(test_segment_sum, {"sparse_segment_sum", segment_sum, CONF_OP(spt_segment_sum)})
#endif
