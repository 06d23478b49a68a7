/* SPDX-License-Identifier: Apache-2.0 */
/* test_merge.c -- tf.sparse.merge: ids as new coordinates, one or several id tensors. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

static const int64_t S[2] = {3, 3}, IX[12] = {0, 0, 1, 0, 1, 2, 2, 0, 2, 1, 1, 1};
static const int64_t IDS[6] = {0, 13, 10, 33, 32, 14}, IDS2[6] = {12, 4, 0, 0, 1, 30};
static const float VALS[6] = {-3, 4, 1, 9, 5, 1};

/* sparse_ops_test.py SparseMergeTest: sorted and already_sorted. */
static void test_single(void **state) {
    (void)state;
    spt_tensor *ids, *vals, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, S, 6, IX, IDS, NULL, &ids));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, S, 6, IX, VALS, NULL, &vals));
    const spt_tensor *in[1] = {ids};
    int64_t vocab = 50;
    ASSERT_OK(spt_merge(in, 1, vals, &vocab, 1, false, &o));
    int64_t ws[2] = {3, 50}, wi[12] = {0, 0, 1, 10, 1, 13, 1, 14, 2, 32, 2, 33};
    float wv[6] = {-3, 1, 4, 1, 5, 9};
    spt_test_expect_tensor(o, 2, ws, 6, wi, wv);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    ASSERT_OK(spt_merge(in, 1, vals, &vocab, 1, true, &o));
    int64_t wi2[12] = {0, 0, 1, 13, 1, 10, 2, 33, 2, 32, 1, 14};
    spt_test_expect_tensor(o, 2, ws, 6, wi2, VALS);
    assert_int_equal(spt_tensor_order(o)[0], -1); /* not really sorted: no claim */
    spt_tensor_free(o);
    spt_tensor_free(ids);
    spt_tensor_free(vals);
}

/* SparseMergeHighDimTest: two id tensors, vocab [50, 31]. */
static void test_high_dim(void **state) {
    (void)state;
    spt_tensor *a, *b, *vals, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, S, 6, IX, IDS, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, S, 6, IX, IDS2, NULL, &b));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, S, 6, IX, VALS, NULL, &vals));
    const spt_tensor *in[2] = {a, b};
    int64_t vocab[2] = {50, 31};
    ASSERT_OK(spt_merge(in, 2, vals, vocab, 2, false, &o));
    int64_t ws[3] = {3, 50, 31}, wi[18] = {0, 0, 12, 1, 10, 0, 1, 13, 4, 1, 14, 30, 2, 32, 1, 2, 33, 0};
    float wv[6] = {-3, 1, 4, 1, 5, 9};
    spt_test_expect_tensor(o, 3, ws, 6, wi, wv);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_merge(in, 2, vals, vocab, 1, false, &o)); /* lengths differ */
    assert_null(o);
    ASSERT_MSG("equal lengths");
    int64_t small[2] = {50, 30};
    ASSERT_ST(SPT_ERANGE, spt_merge(in, 2, vals, small, 2, false, &o)); /* id 30 >= 30 */
    int64_t negv[2] = {50, -1};
    ASSERT_ST(SPT_EINVAL, spt_merge(in, 2, vals, negv, 2, false, &o));
    const spt_tensor *fv[2] = {a, vals};
    ASSERT_ST(SPT_EDTYPE, spt_merge(fv, 2, vals, vocab, 2, false, &o));
    ASSERT_ST(SPT_EINVAL, spt_merge(in, 0, vals, vocab, 0, false, &o));
    ASSERT_ST(SPT_EINVAL, spt_merge(in, 2, NULL, vocab, 2, false, &o));
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(vals);
}

static void test_strings_empty_mismatch(void **state) {
    (void)state;
    int64_t s[1] = {4}, ix[2] = {2, 0}, ids[2] = {1, 1};
    spt_str v[2] = {{"x", 1}, {"yz", 2}};
    spt_tensor *a, *vals, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, s, 2, ix, ids, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, s, 2, ix, v, NULL, &vals));
    const spt_tensor *in[1] = {a};
    int64_t vocab = 2;
    ASSERT_OK(spt_merge(in, 1, vals, &vocab, 1, false, &o)); /* rank 1 ids: only the id column */
    int64_t ws[1] = {2}, wi[2] = {1, 1};
    spt_str wv[2] = {{"x", 1}, {"yz", 2}}; /* stable: equal indices keep input order */
    spt_tensor_free(vals);
    spt_test_expect_tensor(o, 1, ws, 2, wi, wv);
    spt_tensor_free(o);
    /* sp_values with another entry count */
    int64_t ix1[1] = {0};
    double d = 1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, s, 1, ix1, &d, NULL, &vals));
    ASSERT_ST(SPT_EINVAL, spt_merge(in, 1, vals, &vocab, 1, false, &o));
    spt_tensor_free(vals);
    spt_tensor_free(a);
    int64_t e[2] = {3, 3};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, e, 0, NULL, NULL, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, e, 0, NULL, NULL, NULL, &vals));
    const spt_tensor *in2[1] = {a};
    vocab = 0;
    ASSERT_OK(spt_merge(in2, 1, vals, &vocab, 1, false, &o));
    int64_t w0[2] = {3, 0};
    spt_test_expect_tensor(o, 2, w0, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(vals);
}

/* Property: the dense result places each value at [index[:-1], id_0, ..., id_k]. */
static void test_property(void **state) {
    (void)state;
    lt_rng g = {55};
    for (int iter = 0; iter < 200; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3], k = 1 + lt_int(&g, 2), vocab[2] = {1 + lt_int(&g, 4), 1 + lt_int(&g, 4)};
        lt_rand_shape(&g, r, 1, 4, sh);
        spt_tensor *vals = lt_rand_tensor(&g, r, sh, 40, lt_int(&g, 2)), *ids[2], *o;
        int64_t n = spt_tensor_nnz(vals), nr = r - 1 + k, os[4];
        int64_t *idv[2];
        for (int64_t j = 0; j < k; j++) {
            idv[j] = malloc((size_t)n * 8 + 8);
            for (int64_t i = 0; i < n; i++) idv[j][i] = lt_int(&g, vocab[j]);
            ASSERT_OK(spt_tensor_new(SPT_INT64, r, sh, n, spt_tensor_indices(vals), idv[j], NULL, &ids[j]));
        }
        for (int64_t d = 0; d < r - 1; d++) os[d] = sh[d];
        for (int64_t j = 0; j < k; j++) os[r - 1 + j] = vocab[j];
        int64_t ov = lt_volume(nr, os), idx[4];
        int64_t *want = calloc((size_t)ov + 1, 8);
        /* distinct output cells only: duplicates resolve in stable order, last write wins */
        for (int64_t i = 0; i < n; i++) {
            memcpy(idx, spt_tensor_indices(vals) + i * r, (size_t)(r - 1) * 8);
            for (int64_t j = 0; j < k; j++) idx[r - 1 + j] = idv[j][i];
            want[lt_offset(nr, os, idx)] = ((const int64_t *)spt_tensor_values(vals))[i];
        }
        ASSERT_OK(spt_merge((const spt_tensor *const *)ids, k, vals, vocab, k, false, &o));
        lt_expect_row_major(o);
        /* last-write-wins of the stable sort = the last input entry of each cell */
        lt_expect_dense(o, nr, os, want);
        free(want);
        for (int64_t j = 0; j < k; j++) {
            free(idv[j]);
            spt_tensor_free(ids[j]);
        }
        spt_tensor_free(o);
        spt_tensor_free(vals);
    }
}

static spt_status sweep_op(lt_sweep *x) {
    int64_t vocab[2] = {50, 31};
    return spt_merge(x->in, 2, x->in[2], vocab, 2, false, &x->out[0]);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    spt_tensor *a, *b, *vals;
    spt_str sv[6] = {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"", 0}};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, S, 6, IX, IDS, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, S, 6, IX, IDS2, NULL, &b));
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, S, 6, IX, sv, NULL, &vals));
    lt_sweep x = {.op = sweep_op, .in = {a, b, vals}};
    lt_alloc_sweep(&x);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(vals);
}

/* A huge id-tensor count is refused before any arithmetic on it (r - 1 + n_ids overflowed int64). */
static void test_huge_n_ids(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3}, ix[2] = {0, 1}, ids[1] = {2}, vocab = 4;
    spt_tensor *t, *o = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, shape, 1, ix, ids, NULL, &t));
    const spt_tensor *in[1] = {t};
    ASSERT_ST(SPT_EINVAL, spt_merge(in, INT64_MAX, t, &vocab, INT64_MAX, false, &o));
    assert_null(o);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_n_ids), cmocka_unit_test(test_single),
        cmocka_unit_test(test_high_dim),   cmocka_unit_test(test_strings_empty_mismatch),
        cmocka_unit_test(test_property),   cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result sparse_merge(const conf_case *c) {
    spt_tensor **ids, *vals = NULL, *out = NULL;
    int64_t n;
    spt_status st = conf_sparse_list(json_object_get(c->args, "sp_ids"), &ids, &n);
    JUDGE(c, st);
    st = conf_sparse(json_object_get(c->args, "sp_values"), false, &vals);
    int64_t vocab[SPT_MAX_RANK];
    long nv = conf_ints(json_object_get(c->args, "vocab_size"), vocab, SPT_MAX_RANK);
    if (st == SPT_OK)
        st = spt_merge((const spt_tensor *const *)ids, n, vals, vocab, nv,
                       json_is_true(json_object_get(c->args, "already_sorted")), &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(vals);
    conf_free_list(ids, n);
    return r;
}

CONF_HANDLERS(test_merge, {"sparse_merge", sparse_merge, CONF_OP(spt_merge)})
#endif
