/* SPDX-License-Identifier: Apache-2.0 */
/* test_to_dense.c -- spt_to_dense_into (SparseTensor::ToDense) and spt_to_dense (tf.sparse.to_dense). */
#ifndef SPT_CONFORMANCE
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

static void test_into_larger_and_smaller(void **state) {
    (void)state;
    int64_t shape[2] = {2, 2}, ix[2] = {0, 0}, big[2] = {2, 3}, small[2] = {2, 1};
    int32_t v[1] = {7};
    spt_tensor *t;
    spt_dense *d, *s;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, shape, 1, ix, v, NULL, &t));
    ASSERT_OK(spt_dense_new(SPT_INT32, 2, big, &d));
    int32_t *dd = spt_dense_data_mut(d);
    for (int i = 0; i < 6; i++) dd[i] = 9;
    ASSERT_OK(spt_to_dense_into(t, d, true, NULL));
    const int32_t want[6] = {7, 0, 0, 0, 0, 0};
    assert_memory_equal(dd, want, sizeof want);
    for (int i = 0; i < 6; i++) dd[i] = 9;
    ASSERT_OK(spt_to_dense_into(t, d, false, NULL)); /* no initialization */
    const int32_t want2[6] = {7, 9, 9, 9, 9, 9};
    assert_memory_equal(dd, want2, sizeof want2);
    int32_t dv = -1;
    ASSERT_OK(spt_to_dense_into(t, d, true, &dv));
    const int32_t want3[6] = {7, -1, -1, -1, -1, -1};
    assert_memory_equal(dd, want3, sizeof want3);
    ASSERT_OK(spt_dense_new(SPT_INT32, 2, small, &s));
    ASSERT_ST(SPT_EINVAL, spt_to_dense_into(t, s, true, NULL)); /* smaller dim: refused before writing */
    spt_dense_free(s);
    ASSERT_OK(spt_dense_new(SPT_INT64, 2, big, &s));
    ASSERT_ST(SPT_EDTYPE, spt_to_dense_into(t, s, true, NULL));
    spt_dense_free(s);
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_out_of_bounds_untouched(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3}, ix[4] = {0, 0, 1, 3};
    double v[2] = {1, 2};
    spt_tensor *t;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, shape, &d));
    double *dd = spt_dense_data_mut(d);
    for (int i = 0; i < 6; i++) dd[i] = 5;
    ASSERT_ST(SPT_ERANGE, spt_to_dense_into(t, d, true, NULL));
    ASSERT_MSG("indices[1] = [1,3] is out of bounds");
    for (int i = 0; i < 6; i++) assert_true(dd[i] == 5); /* nothing written */
    spt_dense *n = (spt_dense *)1;
    ASSERT_ST(SPT_ERANGE, spt_to_dense(t, NULL, false, &n));
    assert_null(n);
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_last_write_wins_and_validation(void **state) {
    (void)state;
    int64_t shape[1] = {4}, ix[3] = {2, 0, 2};
    float v[3] = {1, 2, 3};
    spt_tensor *t;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 1, shape, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_to_dense(t, NULL, false, &d));
    const float want[4] = {2, 0, 3, 0};
    assert_memory_equal(spt_dense_data(d), want, sizeof want);
    spt_dense_free(d);
    ASSERT_ST(SPT_EINVAL, spt_to_dense(t, NULL, true, &d));
    ASSERT_MSG("indices[1] = [0] is out of order");
    ASSERT_OK(spt_reorder(t, NULL));
    ASSERT_ST(SPT_EINVAL, spt_to_dense(t, NULL, true, &d));
    ASSERT_MSG("indices[2] = [2] is repeated");
    spt_tensor_free(t);
}

/* every dtype: densify a random tensor and compare with a direct reference */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_property_every_dtype(void **state) {
    (void)state;
    for (int dt = 0; dt < SPT_NUM_DTYPES; dt++) {
        for (int iter = 0; iter < 20; iter++) {
            int64_t r = (int64_t)(next() % 4), shape[3], vol = 1;
            for (int64_t d = 0; d < r; d++) vol *= shape[d] = 1 + (int64_t)(next() % 5);
            int64_t n = (int64_t)(next() % (uint64_t)(vol + 1));
            size_t es = spt_dtype_size((spt_dtype)dt);
            int64_t *ix = calloc((size_t)(n * r + 1), sizeof *ix);
            unsigned char *v = calloc((size_t)n + 1, es);
            unsigned char *ref = calloc((size_t)vol, es);
            static const char *words[3] = {"a", "bc", "def"};
            for (int64_t i = 0; i < n; i++) {
                int64_t off = 0;
                for (int64_t d = 0; d < r; d++) {
                    ix[i * r + d] = (int64_t)(next() % (uint64_t)shape[d]);
                    off = off * shape[d] + ix[i * r + d];
                }
                if (dt == SPT_STRING) {
                    const char *w = words[next() % 3];
                    ((spt_str *)v)[i] = (spt_str){w, (int64_t)strlen(w)};
                } else if (dt == SPT_BOOL) {
                    v[i] = (unsigned char)(next() & 1);
                } else {
                    for (size_t b = 0; b < es; b++) v[(size_t)i * es + b] = (unsigned char)(1 + next() % 200);
                }
                memcpy(ref + (size_t)off * es, v + (size_t)i * es, es); /* last write wins */
            }
            spt_tensor *t;
            spt_dense *d;
            ASSERT_OK(spt_tensor_new((spt_dtype)dt, r, shape, n, ix, v, NULL, &t));
            ASSERT_OK(spt_to_dense(t, NULL, false, &d));
            assert_int_equal(spt_dense_size(d), vol);
            if (dt == SPT_STRING) {
                const spt_str *a = spt_dense_data(d), *b = (const spt_str *)ref;
                for (int64_t i = 0; i < vol; i++) {
                    assert_int_equal(a[i].len, b[i].len);
                    if (a[i].len) assert_memory_equal(a[i].data, b[i].data, (size_t)a[i].len);
                }
            } else {
                assert_memory_equal(spt_dense_data(d), ref, (size_t)vol * es);
            }
            spt_dense_free(d);
            spt_tensor_free(t);
            free(ix);
            free(v);
            free(ref);
        }
    }
}

/* The parallel zero-fill covers the whole array when its bytes do not split evenly into whole pages
 * (4194305 one-byte elements at 2 threads left the last one unwritten). */
static void test_fill_uneven_chunks(void **state) {
    (void)state;
    const int64_t sizes[3] = {4194305, 8388609, 4194304 + 4095};
    for (int k = 0; k < 3; k++) {
        int64_t shape[1] = {sizes[k]};
        spt_tensor *t;
        spt_dense *d;
        ASSERT_OK(spt_tensor_new(SPT_BOOL, 1, shape, 0, NULL, NULL, NULL, &t));
        ASSERT_OK(spt_dense_new(SPT_BOOL, 1, shape, &d));
        bool *x = spt_dense_data_mut(d);
        for (int threads = 1; threads <= 3; threads++) {
            memset(x, 1, (size_t)shape[0]);
            spt_set_num_threads(threads);
            ASSERT_OK(spt_to_dense_into(t, d, true, NULL));
            for (int64_t i = 0; i < shape[0]; i++)
                if (x[i])
                    fail_msg("size %lld, %d threads: element %lld not cleared", (long long)shape[0], threads,
                             (long long)i);
        }
        spt_set_num_threads(0);
        spt_dense_free(d);
        spt_tensor_free(t);
    }
}

/* Strings into a caller's array: every failing allocation leaves the array exactly as it was. */
static spt_tensor *g_st;
static spt_dense *g_sd;
static spt_status into_fn(void *p) {
    (void)p;
    spt_str dflt = {"dflt", 4};
    return spt_to_dense_into(g_st, g_sd, true, &dflt);
}
static void test_into_strings_untouched_on_failure(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3}, ix[4] = {1, 2, 0, 0};
    spt_str v[2] = {{"bcd", 3}, {"a", 1}}, x = {"x", 1};
    spt_test_alloc_install(); /* before anything is allocated: frees go through the same allocator */
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, shape, 2, ix, v, NULL, &g_st));
    ASSERT_OK(spt_dense_new(SPT_STRING, 2, shape, &g_sd));
    for (int64_t i = 0; i < 6; i++) ASSERT_OK(spt_dense_set_string(g_sd, i, x.data, x.len));
    for (long k = 0;; k++) {
        spt_test_alloc_fail_at(k);
        spt_status st = into_fn(NULL);
        spt_test_alloc_fail_at(-1);
        if (st == SPT_OK) break;
        assert_int_equal(st, SPT_ENOMEM);
        const spt_str *o = spt_dense_data(g_sd);
        for (int64_t i = 0; i < 6; i++) assert_true(o[i].len == 1 && o[i].data[0] == 'x');
    }
    spt_tensor_free(g_st); /* the array owns what was written */
    const spt_str *o = spt_dense_data(g_sd);
    const char *want[6] = {"a", "dflt", "dflt", "dflt", "dflt", "bcd"};
    for (int64_t i = 0; i < 6; i++) {
        assert_int_equal(o[i].len, (int64_t)strlen(want[i]));
        assert_memory_equal(o[i].data, want[i], strlen(want[i]));
    }
    spt_dense_free(g_sd);
}

struct sweep {
    spt_tensor *t;
    spt_dense *d;
};
static spt_status sweep_fn(void *p) {
    struct sweep *s = p;
    int64_t shape[2] = {3, 3}, ix[4] = {2, 1, 0, 0};
    spt_str v[2] = {{"xy", 2}, {"z", 1}};
    spt_str dflt = {"0", 1};
    spt_status st = spt_tensor_new(SPT_STRING, 2, shape, 2, ix, v, NULL, &s->t);
    if (st == SPT_OK) st = spt_to_dense(s->t, &dflt, false, &s->d);
    return st;
}
static void sweep_free(void *p) {
    struct sweep *s = p;
    spt_tensor_free(s->t);
    spt_dense_free(s->d);
    s->t = NULL;
    s->d = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    struct sweep s = {0};
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_free, &s) > 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_into_larger_and_smaller),
        cmocka_unit_test(test_out_of_bounds_untouched),
        cmocka_unit_test(test_last_write_wins_and_validation),
        cmocka_unit_test(test_property_every_dtype),
        cmocka_unit_test(test_fill_uneven_chunks),
        cmocka_unit_test(test_into_strings_untouched_on_failure),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result st_to_dense(const conf_case *c) {
    spt_tensor *t;
    spt_dense *d = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t oshape[SPT_MAX_RANK];
    long r = conf_ints(json_object_get(c->args, "out_shape"), oshape, SPT_MAX_RANK);
    st = spt_dense_new(spt_tensor_dtype(t), r, oshape, &d);
    if (st == SPT_OK) st = spt_to_dense_into(t, d, json_is_true(json_object_get(c->args, "initialize")), NULL);
    conf_result res;
    if (json_is_false(json_object_get(c->expect, "returns")))
        res = st != SPT_OK ? CONF_PASS : conf_fail(c, "expected a refusal, got success");
    else if (st != SPT_OK) res = conf_fail(c, "%s: %s", spt_status_name(st), spt_last_error());
    else res = conf_expect_dense(c, json_object_get(c->expect, "dense"), d, NULL);
    spt_dense_free(d);
    spt_tensor_free(t);
    return res;
}

static conf_result sparse_tensor_to_dense(const conf_case *c) {
    spt_tensor *t;
    spt_dense *d = NULL, *dv = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    json_t *jd = json_object_get(c->args, "default_value");
    if (jd && !json_is_null(jd)) st = conf_dense(jd, spt_tensor_dtype(t), &dv);
    json_t *vi = json_object_get(c->args, "validate_indices");
    if (st == SPT_OK) st = spt_to_dense(t, dv ? spt_dense_data(dv) : NULL, vi ? json_is_true(vi) : true, &d);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_check_dense_result(c, d);
    spt_dense_free(d);
    spt_dense_free(dv);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_to_dense, {"st_to_dense", st_to_dense, CONF_OP(spt_to_dense_into)},
              {"sparse_tensor_to_dense", sparse_tensor_to_dense, CONF_OP(spt_to_dense)})
#endif
