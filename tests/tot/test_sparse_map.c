/* SPDX-License-Identifier: Apache-2.0 */
/* test_sparse_map.c -- spt_sparse_map: construction from unordered pairs with duplicates, queries,
 * keys with empty domains, errors, allocation failures, random cases against a naive reference. */
#ifndef SPT_CONFORMANCE
#include "tot_ref.h"

static void test_build_and_query(void **state) {
    (void)state;
    /* pairs in any order with duplicates: 3->{(0,0),(1,1)}, 0->{(0,1),(1,2)}, 1->{(0,2),(1,2)} */
    int64_t ind[8] = {3, 0, 1, 0, 3, 1, 0, 3};
    int64_t dep[16] = {1, 1, 1, 2, 0, 2, 0, 1, 0, 0, 1, 2, 1, 2, 1, 1};
    spt_sparse_map *m;
    ASSERT_OK(spt_sparse_map_new(1, 2, 8, ind, dep, &m));
    assert_int_equal(spt_sparse_map_ind_rank(m), 1);
    assert_int_equal(spt_sparse_map_dep_rank(m), 2);
    assert_int_equal(spt_sparse_map_nkeys(m), 3);
    assert_int_equal(spt_sparse_map_size(m), 6);
    assert_int_equal(spt_sparse_map_key(m, 0)[0], 0);
    assert_int_equal(spt_sparse_map_key(m, 1)[0], 1);
    assert_int_equal(spt_sparse_map_key(m, 2)[0], 3);
    assert_null(spt_sparse_map_key(m, 3));
    assert_null(spt_sparse_map_key(m, -1));
    int64_t cnt;
    const int64_t *d = spt_sparse_map_deps(m, 2, &cnt);
    assert_int_equal(cnt, 2);
    assert_memory_equal(d, ((int64_t[]){0, 0, 1, 1}), 4 * sizeof(int64_t));
    d = spt_sparse_map_deps(m, 0, &cnt);
    assert_memory_equal(d, ((int64_t[]){0, 1, 1, 2}), 4 * sizeof(int64_t));
    assert_null(spt_sparse_map_deps(m, 7, &cnt));
    assert_int_equal(cnt, 0);
    int64_t i;
    assert_true(spt_sparse_map_find(m, (int64_t[]){3}, &i));
    assert_int_equal(i, 2);
    assert_false(spt_sparse_map_find(m, (int64_t[]){2}, &i));
    assert_int_equal(i, -1);
    assert_true(spt_sparse_map_find(m, (int64_t[]){1}, NULL));
    assert_true(spt_sparse_map_contains(m, (int64_t[]){1}, (int64_t[]){1, 2}));
    assert_false(spt_sparse_map_contains(m, (int64_t[]){1}, (int64_t[]){1, 1}));
    assert_false(spt_sparse_map_contains(m, (int64_t[]){2}, (int64_t[]){1, 2}));
    spt_domain *dom;
    ASSERT_OK(spt_sparse_map_domain(m, 1, &dom));
    assert_int_equal(spt_domain_size(dom), 2);
    int64_t e[2];
    spt_domain_result_extents(dom, e);
    assert_int_equal(e[0], 2);
    assert_int_equal(e[1], 1);
    spt_domain_free(dom);
    ASSERT_ST(SPT_ERANGE, spt_sparse_map_domain(m, 3, &dom));
    assert_null(dom);
    spt_sparse_map_free(m);
    spt_sparse_map_free(NULL);
}

static void test_keys_with_empty_domain(void **state) {
    (void)state;
    int64_t keys[4] = {5, 5, 0, 0}, ind[2] = {1, 0}, dep[2] = {4, 3};
    spt_sparse_map *m;
    ASSERT_OK(spt_sparse_map_new_with_keys(2, 1, 2, keys, 1, ind, dep, &m));
    assert_int_equal(spt_sparse_map_nkeys(m), 3);
    int64_t i, cnt;
    assert_true(spt_sparse_map_find(m, (int64_t[]){5, 5}, &i));
    assert_int_equal(i, 2);
    spt_sparse_map_deps(m, i, &cnt);
    assert_int_equal(cnt, 0);
    spt_domain *dom;
    ASSERT_OK(spt_sparse_map_domain(m, i, &dom));
    assert_int_equal(spt_domain_size(dom), 0);
    assert_int_equal(spt_domain_rank(dom), 0);
    spt_domain_free(dom);
    /* a key both listed and paired has its pairs */
    spt_sparse_map_free(m);
    int64_t k2[2] = {1, 0};
    ASSERT_OK(spt_sparse_map_new_with_keys(2, 1, 1, k2, 1, ind, dep, &m));
    assert_int_equal(spt_sparse_map_nkeys(m), 1);
    spt_sparse_map_deps(m, 0, &cnt);
    assert_int_equal(cnt, 1);
    spt_sparse_map_free(m);
}

static void test_ranks_zero_and_empty(void **state) {
    (void)state;
    spt_sparse_map *m;
    ASSERT_OK(spt_sparse_map_new(1, 2, 0, NULL, NULL, &m));
    assert_int_equal(spt_sparse_map_nkeys(m), 0);
    assert_int_equal(spt_sparse_map_dep_rank(m), 2);
    assert_false(spt_sparse_map_find(m, (int64_t[]){0}, NULL));
    spt_sparse_map_free(m);
    /* ind_rank 0: one key []; dep_rank 0: the domain {()} */
    ASSERT_OK(spt_sparse_map_new(0, 0, 3, NULL, NULL, &m));
    assert_int_equal(spt_sparse_map_nkeys(m), 1);
    assert_int_equal(spt_sparse_map_size(m), 1);
    assert_true(spt_sparse_map_find(m, NULL, NULL));
    assert_true(spt_sparse_map_contains(m, NULL, NULL));
    spt_sparse_map_free(m);
}

static void test_errors(void **state) {
    (void)state;
    spt_sparse_map *m = (spt_sparse_map *)1;
    int64_t ind[2] = {0, -1}, dep[2] = {0, 0};
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new(1, 1, 2, ind, dep, &m));
    assert_null(m);
    ASSERT_MSG("spt_sparse_map_new: ind[1]");
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new(1, 1, 1, ind, NULL, &m));
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new(-1, 1, 1, ind, dep, &m));
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new(1, SPT_MAX_RANK + 1, 1, ind, dep, &m));
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new(1, 1, -2, ind, dep, &m));
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new(1, 1, 1, ind, dep, NULL));
    ASSERT_ST(SPT_EOVERFLOW, spt_sparse_map_new(8, 8, INT64_MAX / 8, ind, dep, &m));
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new_with_keys(1, 1, 1, ind + 1, 0, NULL, NULL, &m));
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_new_with_keys(1, 1, 1, NULL, 0, NULL, NULL, &m));
    spt_domain *dom = (spt_domain *)1;
    ASSERT_ST(SPT_EINVAL, spt_sparse_map_domain(NULL, 0, &dom));
    assert_null(dom);
    assert_int_equal(spt_sparse_map_nkeys(NULL), 0);
    assert_false(spt_sparse_map_find(NULL, ind, NULL));
}

/* random pairs: every (key, dep) pair given is contained; the stored lists are sorted and unique;
 * the counts match a naive dedup. */
static void test_random_vs_naive(void **state) {
    (void)state;
    for (int it = 0; it < 100; it++) {
        int64_t NI = ref_rand(3), D = ref_rand(3), n = ref_rand(60);
        int64_t ind[180], dep[180];
        for (int64_t i = 0; i < n * NI; i++) ind[i] = ref_rand(3);
        for (int64_t i = 0; i < n * D; i++) dep[i] = ref_rand(4);
        spt_sparse_map *m;
        ASSERT_OK(spt_sparse_map_new(NI, D, n, ind, dep, &m));
        /* naive distinct pair count */
        int64_t distinct = 0;
        for (int64_t i = 0; i < n; i++) {
            bool dup = false;
            for (int64_t j = 0; j < i && !dup; j++)
                dup = !memcmp(ind + i * NI, ind + j * NI, (size_t)NI * 8) &&
                      !memcmp(dep + i * D, dep + j * D, (size_t)D * 8);
            distinct += !dup;
            assert_true(spt_sparse_map_contains(m, ind + i * NI, dep + i * D));
        }
        assert_int_equal(spt_sparse_map_size(m), distinct);
        int64_t total = 0;
        for (int64_t k = 0; k < spt_sparse_map_nkeys(m); k++) {
            int64_t cnt;
            const int64_t *d = spt_sparse_map_deps(m, k, &cnt);
            assert_true(cnt > 0);
            total += cnt;
            for (int64_t r = 1; r < cnt; r++) {
                int64_t j = 0;
                while (j < D && d[(r - 1) * D + j] == d[r * D + j]) j++;
                assert_true(j < D && d[(r - 1) * D + j] < d[r * D + j]);
            }
            if (k > 0) {
                const int64_t *a = spt_sparse_map_key(m, k - 1), *b = spt_sparse_map_key(m, k);
                int64_t j = 0;
                while (j < NI && a[j] == b[j]) j++;
                assert_true(j < NI && a[j] < b[j]);
            }
        }
        assert_int_equal(total, distinct);
        spt_sparse_map_free(m);
    }
}

typedef struct {
    spt_sparse_map *m;
    bool with_keys;
} sweep_ctx;
static spt_status sweep_fn(void *p) {
    sweep_ctx *c = p;
    int64_t ind[6] = {2, 0, 2, 1, 0, 2}, dep[12] = {3, 1, 0, 0, 3, 1, 2, 2, 0, 1, 1, 1}, keys[2] = {7, 1};
    if (c->with_keys) return spt_sparse_map_new_with_keys(1, 2, 2, keys, 6, ind, dep, &c->m);
    return spt_sparse_map_new(1, 2, 6, ind, dep, &c->m);
}
static void sweep_cleanup(void *p) {
    sweep_ctx *c = p;
    spt_sparse_map_free(c->m);
    c->m = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    sweep_ctx c = {NULL, false};
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 5);
    c.with_keys = true;
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_query),      cmocka_unit_test(test_keys_with_empty_domain),
        cmocka_unit_test(test_ranks_zero_and_empty), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_random_vs_naive),      cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>
#include <string.h>

static conf_result h_sparse_map_new(const conf_case *c) {
    spt_sparse_map *m = NULL;
    spt_status st = conf_make_map(conf_arg(c, "map"), &m);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        json_t *nk = json_object_get(res, "nkeys"), *sz = json_object_get(res, "size");
        r = CONF_PASS;
        if (nk && spt_sparse_map_nkeys(m) != json_integer_value(nk))
            r = conf_fail(c, "nkeys %lld", (long long)spt_sparse_map_nkeys(m));
        if (sz && spt_sparse_map_size(m) != json_integer_value(sz))
            r = conf_fail(c, "size %lld", (long long)spt_sparse_map_size(m));
    }
    spt_sparse_map_free(m);
    return r;
}

CONF_HANDLERS(test_sparse_map, {"spt_sparse_map_new", h_sparse_map_new, CONF_OP(spt_sparse_map_new)})
#endif
