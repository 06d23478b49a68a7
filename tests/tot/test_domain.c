/* SPDX-License-Identifier: Apache-2.0 */
/* test_domain.c -- spt_domain: sorted set semantics, result_extents, result_index, errors, allocation. */
#ifndef SPT_CONFORMANCE
#include "tot_ref.h"

static void test_sorted_unique(void **state) {
    (void)state;
    int64_t ix[10] = {2, 3, 0, 0, 2, 0, 2, 3, 0, 0}; /* (2,3) (0,0) (2,0) (2,3) (0,0) */
    spt_domain *d;
    ASSERT_OK(spt_domain_new(2, 5, ix, &d));
    assert_int_equal(spt_domain_rank(d), 2);
    assert_int_equal(spt_domain_size(d), 3);
    int64_t want[6] = {0, 0, 2, 0, 2, 3};
    assert_memory_equal(spt_domain_indices(d), want, sizeof want);
    int64_t e[2];
    spt_domain_result_extents(d, e);
    assert_int_equal(e[0], 2);
    assert_int_equal(e[1], 2);
    int64_t q[2] = {2, 3}, r[2];
    ASSERT_OK(spt_domain_result_index(d, 2, q, r));
    assert_int_equal(r[0], 1);
    assert_int_equal(r[1], 1);
    /* a non-member whose components appear: mapped, not rejected */
    int64_t nm[2] = {0, 3};
    assert_false(spt_domain_contains(d, nm));
    ASSERT_OK(spt_domain_result_index(d, 2, nm, r));
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], 1);
    assert_true(spt_domain_contains(d, q));
    /* a value absent from mode 1, and a wrong rank */
    int64_t bad[2] = {0, 1};
    ASSERT_ST(SPT_ERANGE, spt_domain_result_index(d, 2, bad, r));
    ASSERT_MSG("spt_domain_result_index");
    ASSERT_ST(SPT_ERANGE, spt_domain_result_index(d, 1, bad, r));
    spt_domain_free(d);
    spt_domain_free(NULL);
}

static void test_upstream_examples(void **state) {
    (void)state;
    /* {(1,2),(2,3)} -> extents (2,2); (1,3) -> (0,1) (spec section 3) */
    int64_t a[4] = {1, 2, 2, 3};
    spt_domain *d;
    ASSERT_OK(spt_domain_new(2, 2, a, &d));
    int64_t e[2], q[2] = {1, 3}, r[2];
    spt_domain_result_extents(d, e);
    assert_int_equal(e[0], 2);
    assert_int_equal(e[1], 2);
    ASSERT_OK(spt_domain_result_index(d, 2, q, r));
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], 1);
    spt_domain_free(d);
    /* {(1,2),(2,3),(1,4)} -> (2,3) */
    int64_t b[6] = {1, 2, 2, 3, 1, 4};
    ASSERT_OK(spt_domain_new(2, 3, b, &d));
    spt_domain_result_extents(d, e);
    assert_int_equal(e[0], 2);
    assert_int_equal(e[1], 3);
    spt_domain_free(d);
}

static void test_empty_and_rank0(void **state) {
    (void)state;
    spt_domain *d;
    /* empty: rank 0 by convention whatever it was built with */
    ASSERT_OK(spt_domain_new(3, 0, NULL, &d));
    assert_int_equal(spt_domain_rank(d), 0);
    assert_int_equal(spt_domain_size(d), 0);
    assert_false(spt_domain_contains(d, NULL));
    ASSERT_OK(spt_domain_result_index(d, 0, NULL, NULL));
    ASSERT_ST(SPT_ERANGE, spt_domain_result_index(d, 1, (int64_t[]){0}, (int64_t[1]){0}));
    spt_domain_free(d);
    /* one index of rank 0 (given twice) */
    ASSERT_OK(spt_domain_new(0, 2, NULL, &d));
    assert_int_equal(spt_domain_rank(d), 0);
    assert_int_equal(spt_domain_size(d), 1);
    assert_true(spt_domain_contains(d, NULL));
    ASSERT_OK(spt_domain_result_index(d, 0, NULL, NULL));
    spt_domain_free(d);
}

static void test_errors(void **state) {
    (void)state;
    spt_domain *d = (spt_domain *)1;
    int64_t neg[2] = {1, -1};
    ASSERT_ST(SPT_EINVAL, spt_domain_new(2, 1, neg, &d));
    assert_null(d);
    ASSERT_MSG("negative");
    ASSERT_ST(SPT_EINVAL, spt_domain_new(2, -1, neg, &d));
    ASSERT_ST(SPT_EINVAL, spt_domain_new(SPT_MAX_RANK + 1, 1, neg, &d));
    ASSERT_ST(SPT_EINVAL, spt_domain_new(2, 1, NULL, &d));
    ASSERT_ST(SPT_EINVAL, spt_domain_new(2, 1, neg, NULL));
    ASSERT_ST(SPT_EOVERFLOW, spt_domain_new(2, INT64_MAX / 4, neg, &d));
    ASSERT_ST(SPT_EINVAL, spt_domain_result_index(NULL, 0, NULL, NULL));
    spt_domain_result_extents(NULL, NULL);
    assert_int_equal(spt_domain_rank(NULL), 0);
    assert_int_equal(spt_domain_size(NULL), 0);
}

/* random domains: extents = distinct counts, result_index of members in range and consistent */
static void test_random_property(void **state) {
    (void)state;
    for (int it = 0; it < 200; it++) {
        int64_t rank = 1 + ref_rand(3), n = ref_rand(30), ix[90];
        for (int64_t i = 0; i < n * rank; i++) ix[i] = ref_rand(6);
        spt_domain *d;
        ASSERT_OK(spt_domain_new(rank, n, ix, &d));
        int64_t e[3], r[3];
        spt_domain_result_extents(d, e);
        for (int64_t j = 0; j < spt_domain_rank(d); j++) {
            int seen[6] = {0}, cnt = 0;
            for (int64_t i = 0; i < n; i++) seen[ix[i * rank + j]] = 1;
            for (int v = 0; v < 6; v++) cnt += seen[v];
            assert_int_equal(e[j], cnt);
        }
        const int64_t *s = spt_domain_indices(d);
        for (int64_t i = 0; i < spt_domain_size(d); i++) {
            if (i > 0) { /* strictly increasing lexicographically */
                int64_t j = 0;
                while (j < rank && s[(i - 1) * rank + j] == s[i * rank + j]) j++;
                assert_true(j < rank && s[(i - 1) * rank + j] < s[i * rank + j]);
            }
            assert_true(spt_domain_contains(d, s + i * rank));
            ASSERT_OK(spt_domain_result_index(d, rank, s + i * rank, r));
            for (int64_t j = 0; j < rank; j++) {
                int64_t less = 0;
                int seen[6] = {0};
                for (int64_t k = 0; k < n; k++) seen[ix[k * rank + j]] = 1;
                for (int64_t v = 0; v < s[i * rank + j]; v++) less += seen[v];
                assert_int_equal(r[j], less);
            }
        }
        for (int64_t i = 0; i < n; i++) assert_true(spt_domain_contains(d, ix + i * rank));
        spt_domain_free(d);
    }
}

typedef struct {
    spt_domain *d;
} sweep_ctx;
static spt_status sweep_fn(void *p) {
    sweep_ctx *c = p;
    int64_t ix[8] = {3, 1, 0, 2, 3, 1, 1, 1};
    return spt_domain_new(2, 4, ix, &c->d);
}
static void sweep_cleanup(void *p) {
    sweep_ctx *c = p;
    spt_domain_free(c->d);
    c->d = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    sweep_ctx c = {NULL};
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_unique),   cmocka_unit_test(test_upstream_examples),
        cmocka_unit_test(test_empty_and_rank0), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_random_property), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>
#include <string.h>

/* ---- tensor-of-tensors ---- */

static conf_result h_domain_new(const conf_case *c) {
    int64_t n, cols;
    int64_t *ix = conf_matrix(conf_arg(c, "indices"), &n, &cols);
    json_t *jr = conf_arg(c, "rank"), *jn = conf_arg(c, "n");
    spt_domain *d = NULL;
    spt_status st = spt_domain_new(jr ? (int64_t)json_integer_value(jr) : cols,
                                   jn ? (int64_t)json_integer_value(jn) : n,
                                   json_is_true(conf_arg(c, "null_indices")) ? NULL : ix, &d);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *want = json_object_get(json_object_get(c->root, "result"), "size");
        r = want && spt_domain_size(d) != json_integer_value(want)
                ? conf_fail(c, "size %lld", (long long)spt_domain_size(d))
                : CONF_PASS;
    }
    spt_domain_free(d);
    free(ix);
    return r;
}

static conf_result domain_result_case(const conf_case *c) {
    json_t *cases = json_object_get(c->root, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *x = json_array_get(cases, i);
        spt_domain *d = NULL;
        if (conf_make_domain(json_object_get(x, "domain"), &d) != SPT_OK)
            return conf_fail(c, "case %zu: bad domain", i);
        conf_result res = CONF_PASS;
        int64_t ext[SPT_MAX_RANK], want[SPT_MAX_RANK], in[SPT_MAX_RANK], got[SPT_MAX_RANK];
        long er = conf_ints(json_object_get(x, "result_extents"), want, SPT_MAX_RANK);
        spt_domain_result_extents(d, ext);
        if (er != spt_domain_rank(d))
            res = conf_fail(c, "case %zu: rank %lld, expected %ld", i, (long long)spt_domain_rank(d), er);
        for (long k = 0; k < er && res == CONF_PASS; k++)
            if (ext[k] != want[k])
                res = conf_fail(c, "case %zu: extent %ld is %lld, expected %lld", i, k, (long long)ext[k],
                                (long long)want[k]);
        json_t *ri = json_object_get(x, "result_index");
        for (size_t k = 0; k < json_array_size(ri) && res == CONF_PASS; k++) {
            long n = conf_ints(json_array_get(json_array_get(ri, k), 0), in, SPT_MAX_RANK);
            conf_ints(json_array_get(json_array_get(ri, k), 1), want, SPT_MAX_RANK);
            if (spt_domain_result_index(d, n, in, got) != SPT_OK)
                res = conf_fail(c, "case %zu: %s", i, spt_last_error());
            for (long m = 0; m < n && res == CONF_PASS; m++)
                if (got[m] != want[m]) res = conf_fail(c, "case %zu: result_index %zu differs", i, k);
        }
        json_t *bad = json_object_get(x, "bad_index");
        for (size_t k = 0; k < json_array_size(bad) && res == CONF_PASS; k++) {
            long n = conf_ints(json_array_get(bad, k), in, SPT_MAX_RANK);
            res = conf_judge_error(c, "result_index of a bad index", spt_domain_result_index(d, n, in, got),
                                   "index_out_of_range");
        }
        spt_domain_free(d);
        if (res != CONF_PASS) return res;
    }
    return CONF_PASS;
}

CONF_HANDLERS(test_domain, {"spt_domain_new", h_domain_new, CONF_OP(spt_domain_new)},
              {"domain_result", domain_result_case, CONF_OP(spt_domain_result_index)})
#endif
