/* SPDX-License-Identifier: Apache-2.0 */
/* test_bincount.c -- tf.sparse.bincount: dense and sparse input, axis 0 / -1, minlength / maxlength,
 * weights, binary output, every check, a random comparison with a naive count, allocation failures. */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static void test_dense(void **state) {
    (void)state;
    int64_t s[2] = {2, 4};
    int32_t v[8] = {3, 2, 1, 7, 7, 0, 4, 4};
    spt_dense *d = tt_dense(SPT_INT32, 2, s, v);
    spt_tensor *o;
    ASSERT_OK(spt_bincount_dense(d, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    int64_t os[2] = {2, 8}, oi[14] = {0, 1, 0, 2, 0, 3, 0, 7, 1, 0, 1, 4, 1, 7};
    int32_t ov[7] = {1, 1, 1, 1, 1, 2, 1};
    spt_test_expect_tensor(o, 2, os, 7, oi, ov);
    assert_int_equal(spt_tensor_dtype(o), SPT_INT32);
    assert_true(spt_tensor_is_row_major(o, true));
    spt_tensor_free(o);
    /* maxlength 7 drops the 7s and fixes the width; minlength 9 widens */
    ASSERT_OK(spt_bincount_dense(d, NULL, -1, SPT_UNSET, 7, false, &o));
    int64_t os7[2] = {2, 7}, oi7[10] = {0, 1, 0, 2, 0, 3, 1, 0, 1, 4};
    int32_t ov7[5] = {1, 1, 1, 1, 2};
    spt_test_expect_tensor(o, 2, os7, 5, oi7, ov7);
    spt_tensor_free(o);
    ASSERT_OK(spt_bincount_dense(d, NULL, -1, 9, SPT_UNSET, true, &o));
    int64_t os9[2] = {2, 9};
    int32_t ones[7] = {1, 1, 1, 1, 1, 1, 1};
    spt_test_expect_tensor(o, 2, os9, 7, oi, ones);
    spt_tensor_free(o);
    /* maxlength 0 keeps nothing and the width is 0, whatever minlength (as TensorFlow 2.21) */
    for (int64_t minl = SPT_UNSET; minl <= 5; minl += 6) {
        ASSERT_OK(spt_bincount_dense(d, NULL, -1, minl, 0, false, &o));
        int64_t os0[2] = {2, 0};
        spt_test_expect_tensor(o, 2, os0, 0, NULL, NULL);
        spt_tensor_free(o);
        ASSERT_OK(spt_bincount_dense(d, NULL, 0, minl, 0, true, &o));
        assert_int_equal(spt_tensor_shape(o)[0], 0);
        assert_int_equal(spt_tensor_nnz(o), 0);
        spt_tensor_free(o);
    }
    /* maxlength below minlength: maxlength wins */
    ASSERT_OK(spt_bincount_dense(d, NULL, 0, 5, 3, false, &o));
    int64_t fs3[1] = {3}, fi3[3] = {0, 1, 2};
    int32_t fv3[3] = {1, 1, 1};
    spt_test_expect_tensor(o, 1, fs3, 3, fi3, fv3);
    spt_tensor_free(o);
    /* axis 0 flattens: one rank-1 count */
    ASSERT_OK(spt_bincount_dense(d, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o));
    int64_t fs[1] = {8}, fi[6] = {0, 1, 2, 3, 4, 7};
    int32_t fv[6] = {1, 1, 1, 1, 2, 2};
    spt_test_expect_tensor(o, 1, fs, 6, fi, fv);
    spt_tensor_free(o);
    /* float weights, summed in storage order */
    float w[8] = {0.5f, 1, 2, 3, 4, 5, 6, 7};
    spt_dense *wd = tt_dense(SPT_FLOAT32, 2, s, w);
    ASSERT_OK(spt_bincount_dense(d, wd, -1, 9, SPT_UNSET, false, &o));
    float wv[7] = {2, 1, 0.5f, 3, 5, 13, 4};
    spt_test_expect_tensor(o, 2, os9, 7, oi, wv);
    assert_int_equal(spt_tensor_dtype(o), SPT_FLOAT32);
    spt_tensor_free(o);
    /* errors */
    o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(d, wd, -1, SPT_UNSET, SPT_UNSET, true, &o));
    assert_null(o);
    ASSERT_MSG("mutually exclusive");
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(d, NULL, 1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_MSG("unsupported axis value 1");
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(d, NULL, 0, -2, SPT_UNSET, false, &o));
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(d, NULL, 0, SPT_UNSET, -5, false, &o));
    int64_t s3[3] = {2, 2, 2};
    spt_dense *d3 = tt_dense(SPT_INT32, 3, s3, v);
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(d3, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_MSG("1 or 2-dimensional");
    ASSERT_OK(spt_bincount_dense(d3, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o)); /* axis 0 takes any rank */
    spt_tensor_free(o);
    int64_t s32[2] = {4, 2};
    spt_dense *wbad = tt_dense(SPT_FLOAT32, 2, s32, w);
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(d, wbad, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_MSG("must have the same shape");
    int32_t neg[8] = {3, 2, 1, 7, 7, -1, 4, 4};
    spt_dense *dn = tt_dense(SPT_INT32, 2, s, neg);
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(dn, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_MSG("values[5] = -1 is negative");
    ASSERT_ST(SPT_EINVAL, spt_bincount_dense(dn, NULL, 0, SPT_UNSET, 0, false, &o)); /* even when dropped */
    assert_null(o);
    spt_dense *fd = tt_dense(SPT_FLOAT32, 2, s, w);
    ASSERT_ST(SPT_EDTYPE, spt_bincount_dense(fd, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    spt_dense *arr[] = {d, wd, d3, wbad, dn, fd};
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) spt_dense_free(arr[k]);
}

/* Sparse input with rows out of storage order, int64 weights, empty input, extremes. */
static void test_sparse(void **state) {
    (void)state;
    int64_t s[2] = {3, 4}, ix[12] = {2, 0, 0, 0, 2, 2, 0, 2, 2, 3, 1, 0};
    int64_t v[6] = {5, 3, 4, 1, 4, 7};
    spt_tensor *t, *w, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 6, ix, v, NULL, &t));
    int64_t wv[6] = {10, 6, 3, 2, 4, 14};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 6, ix, wv, NULL, &w));
    ASSERT_OK(spt_bincount(t, w, -1, SPT_UNSET, SPT_UNSET, false, &o));
    int64_t os[2] = {3, 8}, oi[10] = {0, 1, 0, 3, 1, 7, 2, 4, 2, 5};
    int64_t ov[5] = {2, 6, 14, 7, 10};
    spt_test_expect_tensor(o, 2, os, 5, oi, ov);
    spt_tensor_free(o);
    ASSERT_OK(spt_bincount(t, w, -1, 4, 0, false, &o)); /* maxlength 0: nothing, width 0 */
    int64_t os0[2] = {3, 0};
    spt_test_expect_tensor(o, 2, os0, 0, NULL, NULL);
    spt_tensor_free(o);
    ASSERT_OK(spt_bincount(t, NULL, 0, SPT_UNSET, 5, false, &o)); /* maxlength 5 drops 5 and 7 */
    int64_t fs[1] = {5}, fi[3] = {1, 3, 4}, fv[3] = {1, 1, 2};
    spt_test_expect_tensor(o, 1, fs, 3, fi, fv);
    assert_int_equal(spt_tensor_dtype(o), SPT_INT64);
    spt_tensor_free(o);
    /* weights with other indices or shape */
    int64_t ix2[12] = {2, 0, 0, 0, 2, 2, 0, 2, 2, 3, 1, 1};
    spt_tensor *w2, *w3;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 6, ix2, wv, NULL, &w2));
    ASSERT_ST(SPT_EINVAL, spt_bincount(t, w2, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_MSG("must have the same indices (entry 5 differs)");
    int64_t s4[2] = {4, 4};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s4, 6, ix, wv, NULL, &w3));
    ASSERT_ST(SPT_EINVAL, spt_bincount(t, w3, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_MSG("must have the same dense shape");
    spt_tensor_free(w2);
    spt_tensor_free(w3);
    spt_tensor_free(w);
    spt_tensor_free(t);
    /* no entries: width max(1, minlength) */
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    assert_int_equal(spt_tensor_shape(o)[1], 1);
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    ASSERT_OK(spt_bincount(t, NULL, -1, INT64_MAX / 4, SPT_UNSET, false, &o)); /* a huge width costs nothing */
    assert_int_equal(spt_tensor_shape(o)[1], INT64_MAX / 4);
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* a value of INT64_MAX: its width does not fit; dropped by maxlength it is fine; uint64 above int64 */
    int64_t one[1] = {1}, i0[1] = {0}, big = INT64_MAX;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, one, 1, i0, &big, NULL, &t));
    ASSERT_ST(SPT_EOVERFLOW, spt_bincount(t, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_OK(spt_bincount(t, NULL, 0, SPT_UNSET, 3, false, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_tensor_free(t);
    uint64_t ub = UINT64_MAX;
    ASSERT_OK(spt_tensor_new(SPT_UINT64, 1, one, 1, i0, &ub, NULL, &t));
    ASSERT_ST(SPT_EOVERFLOW, spt_bincount(t, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o));
    spt_tensor_free(t);
    /* out-of-bounds batch index, rank 0 with axis -1 */
    int64_t s2[2] = {1, 1}, bad[2] = {-1, -1}, two = 2;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s2, 1, bad, &two, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, true, &o));
    spt_tensor_free(t);
    ASSERT_OK(spt_tensor_new(SPT_INT64, 0, NULL, 1, NULL, &two, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_MSG("at least one element");
    ASSERT_OK(spt_bincount(t, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o));
    assert_int_equal(spt_tensor_nnz(o), 1);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* 100k random entries in 50 rows, unsorted, values < 300, float64 weights: matches a naive count. */
static void test_random(void **state) {
    (void)state;
    const int64_t n = 100000, rows = 50, vmax = 300;
    int64_t s[2] = {rows, n};
    int64_t *ix = malloc((size_t)(2 * n) * sizeof *ix);
    int32_t *v = malloc((size_t)n * sizeof *v);
    double *w = malloc((size_t)n * sizeof *w);
    double *ref = calloc((size_t)(rows * vmax), sizeof *ref);
    int64_t *cnt = calloc((size_t)(rows * vmax), sizeof *cnt);
    uint64_t g = 0x12345678abcdefull;
    for (int64_t i = 0; i < n; i++) {
        g ^= g << 13, g ^= g >> 7, g ^= g << 17;
        ix[2 * i] = (int64_t)(g % (uint64_t)rows);
        ix[2 * i + 1] = i;
        v[i] = (int32_t)((g >> 20) % (uint64_t)vmax);
        w[i] = (double)((g >> 40) % 1000) / 8;
        ref[ix[2 * i] * vmax + v[i]] += w[i];
        cnt[ix[2 * i] * vmax + v[i]]++;
    }
    spt_tensor *t, *wt, *o, *oc;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, s, n, ix, v, NULL, &t));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, n, ix, w, NULL, &wt));
    spt_set_num_threads(3);
    ASSERT_OK(spt_bincount(t, wt, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_OK(spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, false, &oc));
    spt_set_num_threads(0);
    int64_t groups = 0;
    for (int64_t k = 0; k < rows * vmax; k++) groups += cnt[k] > 0;
    assert_int_equal(spt_tensor_nnz(o), groups);
    const int64_t *oi = spt_tensor_indices(o);
    const double *ov = spt_tensor_values(o);
    const int32_t *cv = spt_tensor_values(oc);
    for (int64_t k = 0; k < groups; k++) {
        int64_t cell = oi[2 * k] * vmax + oi[2 * k + 1];
        assert_true(cnt[cell] > 0);
        assert_true(ov[k] == ref[cell]); /* same summation order: storage order */
        assert_int_equal(cv[k], cnt[cell]);
        if (k) assert_true(oi[2 * k] > oi[2 * k - 2] || (oi[2 * k] == oi[2 * k - 2] && oi[2 * k + 1] > oi[2 * k - 1]));
    }
    spt_tensor_free(o);
    spt_tensor_free(oc);
    spt_tensor_free(t);
    spt_tensor_free(wt);
    free(ix);
    free(v);
    free(w);
    free(ref);
    free(cnt);
}

/* Row-sorted input (the per-row way: each row's values sorted on their own, threads over whole rows):
 * rows of 0 to 120 entries and one of 5000 (several merge rounds), weighted sums in storage order,
 * counts, binary, and maxlength dropping the values >= 150, against a reference table; and a dense
 * [rows, cols] input, whose rows are always in order. */
static void test_row_sorted(void **state) {
    (void)state;
    const int64_t rows = 2000, vmax = 300, cut = 150;
    int64_t *len = malloc((size_t)rows * sizeof *len), n = 0;
    uint64_t g = 0x9e3779b97f4a7c15ull;
    for (int64_t r = 0; r < rows; r++) {
        g ^= g << 13, g ^= g >> 7, g ^= g << 17;
        len[r] = r == 777 ? 5000 : (int64_t)(g % 121);
        n += len[r];
    }
    int64_t s[2] = {rows, 5000};
    int64_t *ix = malloc((size_t)(2 * n) * sizeof *ix);
    int64_t *v = malloc((size_t)n * sizeof *v);
    double *w = malloc((size_t)n * sizeof *w);
    double *ref = calloc((size_t)(rows * vmax), sizeof *ref);
    int64_t *cnt = calloc((size_t)(rows * vmax), sizeof *cnt);
    for (int64_t r = 0, i = 0; r < rows; r++)
        for (int64_t c = 0; c < len[r]; c++, i++) {
            g ^= g << 13, g ^= g >> 7, g ^= g << 17;
            ix[2 * i] = r;
            ix[2 * i + 1] = c;
            v[i] = (int64_t)((g >> 20) % (uint64_t)vmax);
            w[i] = (double)((g >> 40) % 1000) / 7; /* not exact: the order of the sums matters */
            ref[r * vmax + v[i]] += w[i];
            cnt[r * vmax + v[i]]++;
        }
    spt_tensor *t, *wt, *o, *oc, *ob, *om;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, n, ix, v, NULL, &t));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, n, ix, w, NULL, &wt));
    spt_set_num_threads(3);
    ASSERT_OK(spt_bincount(t, wt, -1, SPT_UNSET, SPT_UNSET, false, &o));
    ASSERT_OK(spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, false, &oc));
    ASSERT_OK(spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, true, &ob));
    ASSERT_OK(spt_bincount(t, NULL, -1, SPT_UNSET, cut, false, &om));
    spt_set_num_threads(0);
    int64_t groups = 0, gcut = 0;
    for (int64_t k = 0; k < rows * vmax; k++) groups += cnt[k] > 0, gcut += cnt[k] > 0 && k % vmax < cut;
    assert_int_equal(spt_tensor_nnz(o), groups);
    assert_int_equal(spt_tensor_nnz(oc), groups);
    assert_int_equal(spt_tensor_nnz(ob), groups);
    assert_int_equal(spt_tensor_nnz(om), gcut);
    assert_int_equal(spt_tensor_shape(o)[1], vmax);
    assert_int_equal(spt_tensor_shape(om)[1], cut);
    const int64_t *oi = spt_tensor_indices(o), *ci = spt_tensor_indices(oc), *mi = spt_tensor_indices(om);
    const double *ov = spt_tensor_values(o);
    const int64_t *cv = spt_tensor_values(oc), *bv = spt_tensor_values(ob), *mv = spt_tensor_values(om);
    for (int64_t k = 0, km = 0; k < groups; k++) {
        int64_t cell = oi[2 * k] * vmax + oi[2 * k + 1];
        assert_true(cnt[cell] > 0);
        assert_true(ov[k] == ref[cell]); /* bit-exact: storage order within a group */
        assert_int_equal(cv[k], cnt[cell]);
        assert_int_equal(bv[k], 1);
        assert_memory_equal(ci + 2 * k, oi + 2 * k, 2 * sizeof(int64_t));
        if (k) assert_true(oi[2 * k] > oi[2 * k - 2] || (oi[2 * k] == oi[2 * k - 2] && oi[2 * k + 1] > oi[2 * k - 1]));
        if (oi[2 * k + 1] < cut) {
            assert_memory_equal(mi + 2 * km, oi + 2 * k, 2 * sizeof(int64_t));
            assert_int_equal(mv[km++], cnt[cell]);
        }
    }
    spt_tensor_free(o);
    spt_tensor_free(oc);
    spt_tensor_free(ob);
    spt_tensor_free(om);
    /* axis 0 over the same entries (threads count into tables of their own): the column sums */
    spt_set_num_threads(3);
    ASSERT_OK(spt_bincount(t, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o));
    spt_set_num_threads(0);
    assert_int_equal(spt_tensor_nnz(o), vmax); /* every value occurs somewhere */
    for (int64_t x = 0; x < vmax; x++) {
        int64_t want = 0;
        for (int64_t r = 0; r < rows; r++) want += cnt[r * vmax + x];
        assert_int_equal(spt_tensor_indices(o)[x], x);
        assert_int_equal(((const int64_t *)spt_tensor_values(o))[x], want);
    }
    spt_tensor_free(o);
    /* dense [20, 50]: the same per-row counts as a reference */
    int64_t ds[2] = {20, 50};
    spt_dense *d = NULL;
    ASSERT_OK(spt_dense_new(SPT_INT64, 2, ds, &d));
    int64_t *dv = spt_dense_data_mut(d), dc[20 * 40] = {0};
    for (int64_t i = 0; i < 1000; i++) {
        dv[i] = (int64_t)((i * 7919) % 40);
        dc[(i / 50) * 40 + dv[i]]++;
    }
    spt_set_num_threads(2);
    ASSERT_OK(spt_bincount_dense(d, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    spt_set_num_threads(0);
    const int64_t *di = spt_tensor_indices(o), *dvv = spt_tensor_values(o);
    int64_t k = 0;
    for (int64_t cell = 0; cell < 20 * 40; cell++) {
        if (!dc[cell]) continue;
        assert_int_equal(di[2 * k], cell / 40);
        assert_int_equal(di[2 * k + 1], cell % 40);
        assert_int_equal(dvv[k++], dc[cell]);
    }
    assert_int_equal(spt_tensor_nnz(o), k);
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(t);
    spt_tensor_free(wt);
    free(len);
    free(ix);
    free(v);
    free(w);
    free(ref);
    free(cnt);
}

/* Row-sorted values too large to share a key with their position (sorted as pairs): rows of 40 with
 * values 2^61 + (i % 7) * 3, weighted; groups per row in value order, weights summed in storage order. */
static void test_row_sorted_big(void **state) {
    (void)state;
    const int64_t rows = 3, per = 40, n = rows * per;
    int64_t s[2] = {rows, per}, ix[2 * 120], v[120];
    double w[120], want[3][7] = {{0}};
    int64_t cnt[3][7] = {{0}};
    for (int64_t i = 0; i < n; i++) {
        ix[2 * i] = i / per;
        ix[2 * i + 1] = i % per;
        int64_t k = (i * 5 + i / per) % 7;
        v[i] = (INT64_C(1) << 61) + k * 3;
        w[i] = 0.1 * (double)(i % 11) + 0.01;
        want[i / per][k] += w[i];
        cnt[i / per][k]++;
    }
    spt_tensor *t, *wt, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, n, ix, v, NULL, &t));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, n, ix, w, NULL, &wt));
    ASSERT_OK(spt_bincount(t, wt, -1, SPT_UNSET, SPT_UNSET, false, &o));
    assert_int_equal(spt_tensor_shape(o)[1], (INT64_C(1) << 61) + 19);
    const int64_t *oi = spt_tensor_indices(o);
    const double *ov = spt_tensor_values(o);
    int64_t g = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < 7; k++) {
            if (!cnt[r][k]) continue;
            assert_int_equal(oi[2 * g], r);
            assert_int_equal(oi[2 * g + 1], (INT64_C(1) << 61) + k * 3);
            assert_true(ov[g] == want[r][k]);
            g++;
        }
    assert_int_equal(spt_tensor_nnz(o), g);
    spt_tensor_free(o);
    spt_tensor_free(t);
    spt_tensor_free(wt);
}

/* One row, values far apart (the sorting way) and weighted (also sorted), against the counting way. */
static void test_one_row_paths(void **state) {
    (void)state;
    int64_t s[1] = {6}, ix[6] = {0, 1, 2, 3, 4, 5};
    int64_t v[6] = {1000000000, 5, 1000000000, 7, 5, 5};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, s, 6, ix, v, NULL, &t));
    ASSERT_OK(spt_bincount(t, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o));
    int64_t os[1] = {1000000001}, oi[3] = {5, 7, 1000000000}, ov[3] = {3, 1, 2};
    spt_test_expect_tensor(o, 1, os, 3, oi, ov);
    spt_tensor_free(o);
    double w[6] = {0.5, 1, 2, 4, 8, 16};
    spt_tensor *wt;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s, 6, ix, w, NULL, &wt));
    ASSERT_OK(spt_bincount(t, wt, -1, SPT_UNSET, 100, false, &o));
    int64_t ws[1] = {100}, wi[2] = {5, 7};
    double wv[2] = {25, 4};
    spt_test_expect_tensor(o, 1, ws, 2, wi, wv);
    spt_tensor_free(o);
    spt_tensor_free(wt);
    spt_tensor_free(t);
}

static spt_tensor *sw_in, *sw_w, *sw_out;
static spt_status sw_run(void *p) {
    (void)p;
    return spt_bincount(sw_in, sw_w, -1, 2, SPT_UNSET, false, &sw_out);
}
static void sw_clean(void *p) {
    (void)p;
    spt_tensor_free(sw_out);
    sw_out = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    int64_t s[2] = {3, 4}, ix[8] = {2, 0, 0, 0, 2, 2, 0, 3};
    int64_t v[4] = {5, 3, 4, 3};
    float w[4] = {1, 2, 3, 4};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, v, NULL, &sw_in));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s, 4, ix, w, NULL, &sw_w));
    tt_sweep(sw_run, sw_clean, NULL);
    spt_tensor_free(sw_in);
    spt_tensor_free(sw_w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense),       cmocka_unit_test(test_sparse),         cmocka_unit_test(test_random),
        cmocka_unit_test(test_row_sorted),  cmocka_unit_test(test_row_sorted_big), cmocka_unit_test(test_one_row_paths),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>
#include <string.h>

/* ---- bincount ---- */

/* A sparse ({"indices", ...} or {"sparse": {...}}) or dense ({"dense": [...]}) operand; exactly one of
 * *sp / *d is set on success. */
static spt_status operand(const json_t *j, spt_tensor **sp, spt_dense **d) {
    *sp = NULL;
    *d = NULL;
    if (json_object_get(j, "sparse")) return conf_sparse(json_object_get(j, "sparse"), false, sp);
    if (json_object_get(j, "indices")) return conf_sparse(j, false, sp);
    if (json_object_get(j, "dense")) return conf_dense(json_object_get(j, "dense"), conf_dtype(j, SPT_INT64), d);
    if (json_object_get(j, "dims")) return conf_dense(j, conf_dtype(j, SPT_INT64), d);
    return SPT_EINVAL;
}

/* tf.sparse.bincount (tf_ops_v2.jsonl); in bad_inputs.jsonl the raw SparseBincount op with a `size`. */
static conf_result bincount(const conf_case *c) {
    if (c->bad_input) {
        json_t *size = json_object_get(c->args, "size");
        if (size && !json_is_integer(size)) /* the C API takes an integer: what a binding would refuse */
            return conf_status(c, spt__err(SPT_EINVAL, "spt_bincount: size must be a scalar"));
        return CONF_SKIP; /* the raw dense-output SparseBincount op is not spt's */
    }
    spt_tensor *vs = NULL, *ws = NULL, *out = NULL;
    spt_dense *vd = NULL, *wd = NULL;
    spt_status st = operand(json_object_get(c->args, "values"), &vs, &vd);
    json_t *jw = json_object_get(c->args, "weights");
    if (st == SPT_OK && jw && !json_is_null(jw)) st = operand(jw, &ws, &wd);
    conf_result r;
    if (st != SPT_OK) {
        r = conf_fail(c, "cannot build the arguments");
    } else {
        int64_t axis = conf_opt_int(c->args, "axis", 0); /* absent or null: 0 */
        int64_t minl = conf_opt_int(c->args, "minlength", SPT_UNSET),
                maxl = conf_opt_int(c->args, "maxlength", SPT_UNSET);
        bool bin = json_is_true(json_object_get(c->args, "binary_output"));
        if (vs && wd) st = spt__err(SPT_EINVAL, "spt_bincount: weights must be a SparseTensor when values is one");
        else if (vd && ws) st = spt__err(SPT_EINVAL, "spt_bincount_dense: weights must be dense when values is");
        else
            st = vs ? spt_bincount(vs, ws, axis, minl, maxl, bin, &out)
                    : spt_bincount_dense(vd, wd, axis, minl, maxl, bin, &out);
        r = conf_finish_sparse(c, st, out);
    }
    spt_tensor_free(vs);
    spt_tensor_free(ws);
    spt_dense_free(vd);
    spt_dense_free(wd);
    return r;
}

/* bad_inputs.jsonl's raw SparseCountSparseOutput(indices, values, dense_shape, weights, minlength,
 * maxlength, binary_output): per row of dim 0 (axis -1); weights a list aligned with values (empty =
 * none; ignored with binary_output, as the kernel does). */
static conf_result count_sparse_output(const conf_case *c) {
    json_t *vj = json_deep_copy(c->args);
    json_object_set_new(vj, "dtype", json_string("int64"));
    json_object_del(vj, "weights");
    spt_tensor *vs = NULL, *ws = NULL, *out = NULL;
    spt_status st = conf_sparse(vj, false, &vs);
    json_t *jw = json_object_get(c->args, "weights");
    bool bin = json_is_true(json_object_get(c->args, "binary_output"));
    if (st == SPT_OK && json_array_size(jw) > 0 && !bin) {
        json_object_set(vj, "values", jw);
        json_object_set_new(vj, "dtype", json_string("float64"));
        st = conf_sparse(vj, false, &ws);
    }
    json_decref(vj);
    if (st == SPT_OK)
        st = spt_bincount(vs, ws, -1, conf_opt_int(c->args, "minlength", SPT_UNSET),
                          conf_opt_int(c->args, "maxlength", SPT_UNSET), bin, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) {
        json_t *exp = json_object_get(c->root, "result");
        r = exp ? conf_expect_sparse(c, exp, out, NULL) : CONF_PASS;
        int64_t dims[2];
        if (r == CONF_PASS && conf_ints(json_object_get(exp, "indices_dims"), dims, 2) == 2 &&
            (dims[0] != spt_tensor_nnz(out) || dims[1] != spt_tensor_rank(out)))
            r = conf_fail(c, "indices dims [%lld,%lld], expected [%lld,%lld]", (long long)spt_tensor_nnz(out),
                          (long long)spt_tensor_rank(out), (long long)dims[0], (long long)dims[1]);
    }
    spt_tensor_free(vs);
    spt_tensor_free(ws);
    spt_tensor_free(out);
    return r;
}

CONF_HANDLERS(test_bincount, {"sparse_bincount", bincount, CONF_OP(spt_bincount)},
              {"sparse_count_sparse_output", count_sparse_output, CONF_OP(spt_bincount)})
#endif
