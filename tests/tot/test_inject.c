/* SPDX-License-Identifier: Apache-2.0 */
/* test_inject.c -- spt_inject_index, spt_uninject_index, spt_domain_inject. */
#ifndef SPT_CONFORMANCE
#include "tot_ref.h"

static void test_inject_index(void **state) {
    (void)state;
    int64_t x[2] = {1, 2}, y[4];
    /* {2: 1, 3: 2} into (1,2) -> (1,2,1,2); {1:1, 2:2} -> (1,1,2,2); {0: 7} -> (7,1,2) */
    ASSERT_OK(spt_inject_index(2, x, 2, (int64_t[]){2, 3}, (int64_t[]){1, 2}, y));
    assert_memory_equal(y, ((int64_t[]){1, 2, 1, 2}), 4 * sizeof(int64_t));
    ASSERT_OK(spt_inject_index(2, x, 2, (int64_t[]){1, 2}, (int64_t[]){1, 2}, y));
    assert_memory_equal(y, ((int64_t[]){1, 1, 2, 2}), 4 * sizeof(int64_t));
    ASSERT_OK(spt_inject_index(2, x, 1, (int64_t[]){0}, (int64_t[]){7}, y));
    assert_memory_equal(y, ((int64_t[]){7, 1, 2}), 3 * sizeof(int64_t));
    /* modes given in any order */
    ASSERT_OK(spt_inject_index(2, x, 2, (int64_t[]){3, 0}, (int64_t[]){9, 8}, y));
    assert_memory_equal(y, ((int64_t[]){8, 1, 2, 9}), 4 * sizeof(int64_t));
    /* nothing injected; rank 0 */
    ASSERT_OK(spt_inject_index(2, x, 0, NULL, NULL, y));
    assert_memory_equal(y, x, 2 * sizeof(int64_t));
    ASSERT_OK(spt_inject_index(0, NULL, 0, NULL, NULL, NULL));
    ASSERT_OK(spt_inject_index(0, NULL, 1, (int64_t[]){0}, (int64_t[]){5}, y));
    assert_int_equal(y[0], 5);
    /* errors */
    ASSERT_ST(SPT_ERANGE, spt_inject_index(2, x, 1, (int64_t[]){3}, (int64_t[]){0}, y));
    ASSERT_MSG("spt_inject_index");
    ASSERT_ST(SPT_ERANGE, spt_inject_index(2, x, 1, (int64_t[]){-1}, (int64_t[]){0}, y));
    ASSERT_ST(SPT_EINVAL, spt_inject_index(2, x, 2, (int64_t[]){1, 1}, (int64_t[]){0, 0}, y));
    ASSERT_ST(SPT_EINVAL, spt_inject_index(2, x, 1, (int64_t[]){1}, (int64_t[]){-3}, y));
    ASSERT_ST(SPT_EINVAL, spt_inject_index(2, x, -1, NULL, NULL, y));
    ASSERT_ST(SPT_EINVAL, spt_inject_index(SPT_MAX_RANK, x, 1, (int64_t[]){0}, (int64_t[]){0}, y));
    ASSERT_ST(SPT_EINVAL, spt_inject_index(2, x, 1, NULL, NULL, y));
}

static void test_uninject_index(void **state) {
    (void)state;
    int64_t y[4] = {1, 2, 3, 4}, x[4];
    ASSERT_OK(spt_uninject_index(4, y, 2, (int64_t[]){3, 1}, x));
    assert_int_equal(x[0], 1);
    assert_int_equal(x[1], 3);
    ASSERT_OK(spt_uninject_index(2, y, 2, (int64_t[]){0, 1}, NULL));
    ASSERT_OK(spt_uninject_index(0, NULL, 0, NULL, NULL));
    ASSERT_ST(SPT_ERANGE, spt_uninject_index(1, y, 1, (int64_t[]){1}, x));
    ASSERT_MSG("spt_uninject_index");
    ASSERT_ST(SPT_ERANGE, spt_uninject_index(0, NULL, 1, (int64_t[]){0}, x));
    ASSERT_ST(SPT_EINVAL, spt_uninject_index(3, y, 2, (int64_t[]){1, 1}, x));
    ASSERT_ST(SPT_EINVAL, spt_uninject_index(-1, y, 0, NULL, x));
}

/* uninject(inject(x)) == x on random cases */
static void test_round_trip(void **state) {
    (void)state;
    for (int it = 0; it < 500; it++) {
        int64_t r = ref_rand(5), n = ref_rand(4), x[8], y[16], z[8], modes[8], vals[8];
        for (int64_t i = 0; i < r; i++) x[i] = ref_rand(100);
        /* n distinct modes in [0, r+n) */
        int64_t perm[16];
        for (int64_t i = 0; i < r + n; i++) perm[i] = i;
        for (int64_t i = r + n - 1; i > 0; i--) {
            int64_t j = ref_rand(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int64_t k = 0; k < n; k++) {
            modes[k] = perm[k];
            vals[k] = ref_rand(100);
        }
        ASSERT_OK(spt_inject_index(r, x, n, modes, vals, y));
        for (int64_t k = 0; k < n; k++) assert_int_equal(y[modes[k]], vals[k]);
        ASSERT_OK(spt_uninject_index(r + n, y, n, modes, z));
        for (int64_t i = 0; i < r; i++) assert_int_equal(z[i], x[i]);
    }
}

static void test_domain_inject(void **state) {
    (void)state;
    spt_domain *d, *e = (spt_domain *)1;
    int64_t ix[6] = {2, 5, 0, 1, 2, 0}; /* {(0,1),(2,0),(2,5)} */
    ASSERT_OK(spt_domain_new(2, 3, ix, &d));
    ASSERT_OK(spt_domain_inject(d, 1, (int64_t[]){1}, (int64_t[]){9}, &e));
    assert_int_equal(spt_domain_rank(e), 3);
    assert_int_equal(spt_domain_size(e), 3);
    int64_t want[9] = {0, 9, 1, 2, 9, 0, 2, 9, 5};
    assert_memory_equal(spt_domain_indices(e), want, sizeof want);
    spt_domain_free(e);
    ASSERT_ST(SPT_ERANGE, spt_domain_inject(d, 1, (int64_t[]){3}, (int64_t[]){9}, &e));
    assert_null(e);
    ASSERT_MSG("spt_domain_inject");
    ASSERT_ST(SPT_EINVAL, spt_domain_inject(d, 1, (int64_t[]){0}, NULL, &e));
    ASSERT_ST(SPT_EINVAL, spt_domain_inject(NULL, 0, NULL, NULL, &e));
    ASSERT_ST(SPT_EINVAL, spt_domain_inject(d, 0, NULL, NULL, NULL));
    spt_domain_free(d);
    /* the empty domain stays empty; a rank-0 index becomes the injected values */
    ASSERT_OK(spt_domain_new(0, 0, NULL, &d));
    ASSERT_OK(spt_domain_inject(d, 1, (int64_t[]){0}, (int64_t[]){1}, &e));
    assert_int_equal(spt_domain_size(e), 0);
    assert_int_equal(spt_domain_rank(e), 0);
    spt_domain_free(e);
    spt_domain_free(d);
    ASSERT_OK(spt_domain_new(0, 1, NULL, &d));
    ASSERT_OK(spt_domain_inject(d, 2, (int64_t[]){1, 0}, (int64_t[]){2, 1}, &e));
    assert_int_equal(spt_domain_size(e), 1);
    assert_memory_equal(spt_domain_indices(e), ((int64_t[]){1, 2}), 2 * sizeof(int64_t));
    spt_domain_free(e);
    spt_domain_free(d);
}

typedef struct {
    spt_domain *d, *e;
} sweep_ctx;
static spt_status sweep_fn(void *p) {
    sweep_ctx *c = p;
    return spt_domain_inject(c->d, 2, (int64_t[]){0, 3}, (int64_t[]){4, 4}, &c->e);
}
static void sweep_cleanup(void *p) {
    sweep_ctx *c = p;
    spt_domain_free(c->e);
    c->e = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    sweep_ctx c = {NULL, NULL};
    int64_t ix[6] = {2, 5, 0, 1, 2, 0};
    spt_test_alloc_install(); /* the inputs too come from the counting allocator */
    ASSERT_OK(spt_domain_new(2, 3, ix, &c.d));
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 2);
    spt_domain_free(c.d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inject_index),  cmocka_unit_test(test_uninject_index), cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_domain_inject), cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>
#include <string.h>

static conf_result h_inject_index(const conf_case *c) {
    long nr, nm, nv;
    int64_t *index = conf_ints_new(c, "index", &nr), *modes = conf_ints_new(c, "modes", &nm),
            *vals = conf_ints_new(c, "values", &nv), out[2 * SPT_MAX_RANK + 2];
    json_t *jr = conf_arg(c, "rank"), *jn = conf_arg(c, "ninj");
    int64_t rank = jr ? (int64_t)json_integer_value(jr) : nr, ninj = jn ? (int64_t)json_integer_value(jn) : nm;
    spt_status st;
    if (json_is_true(conf_arg(c, "uninject"))) st = spt_uninject_index(rank, index, ninj, modes, out);
    else st = spt_inject_index(rank, index, ninj, modes, vals, out);
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        int64_t want[2 * SPT_MAX_RANK];
        long m = conf_ints(json_object_get(json_object_get(c->root, "result"), "index"), want, 2 * SPT_MAX_RANK);
        r = CONF_PASS;
        for (long i = 0; i < m && r == CONF_PASS; i++)
            if (out[i] != want[i])
                r = conf_fail(c, "out[%ld] = %lld, expected %lld", i, (long long)out[i], (long long)want[i]);
    }
    free(index);
    free(modes);
    free(vals);
    return r;
}

/* Compare a domain with a list of indices (as a set). */
static bool domain_equals(const spt_domain *d, const json_t *j) {
    spt_domain *e;
    if (conf_make_domain(j, &e) != SPT_OK) return false;
    bool eq = spt_domain_size(d) == spt_domain_size(e) && spt_domain_rank(d) == spt_domain_rank(e) &&
              (spt_domain_size(d) * spt_domain_rank(d) == 0 ||
               !memcmp(spt_domain_indices(d), spt_domain_indices(e),
                       (size_t)(spt_domain_size(d) * spt_domain_rank(d)) * sizeof(int64_t)));
    spt_domain_free(e);
    return eq;
}

static conf_result domain_inject_case(const conf_case *c) {
    json_t *cases = json_object_get(c->root, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *x = json_array_get(cases, i);
        int64_t modes[SPT_MAX_RANK], values[SPT_MAX_RANK];
        long ninj = conf_injections(json_object_get(x, "injections"), modes, values);
        spt_domain *d = NULL, *r = NULL;
        if (conf_make_domain(json_object_get(x, "domain"), &d) != SPT_OK)
            return conf_fail(c, "case %zu: bad domain", i);
        spt_status st = spt_domain_inject(d, ninj, modes, values, &r);
        const char *want = json_string_value(json_object_get(x, "expect_error"));
        conf_result res = CONF_PASS;
        if (want) res = conf_judge_error(c, "domain_inject", st, want);
        else if (st != SPT_OK) res = conf_fail(c, "case %zu: %s", i, spt_last_error());
        else if (!domain_equals(r, json_object_get(x, "expected"))) res = conf_fail(c, "case %zu: result differs", i);
        spt_domain_free(d);
        spt_domain_free(r);
        if (res != CONF_PASS) return res;
    }
    return CONF_PASS;
}

static conf_result uninject_case(const conf_case *c) {
    json_t *cases = json_object_get(c->root, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *x = json_array_get(cases, i);
        int64_t modes[SPT_MAX_RANK], values[SPT_MAX_RANK], ix[SPT_MAX_RANK], out[SPT_MAX_RANK], want[SPT_MAX_RANK];
        long ninj = conf_injections(json_object_get(x, "injections"), modes, values);
        long r = conf_ints(json_object_get(x, "index"), ix, SPT_MAX_RANK);
        spt_status st = spt_uninject_index(r, ix, ninj, modes, out);
        const char *werr = json_string_value(json_object_get(x, "expect_error"));
        if (werr) {
            conf_result res = conf_judge_error(c, "uninject", st, werr);
            if (res != CONF_PASS) return res;
            continue;
        }
        if (st != SPT_OK) return conf_fail(c, "case %zu: %s", i, spt_last_error());
        long n = conf_ints(json_object_get(x, "expected"), want, SPT_MAX_RANK);
        if (n != r - ninj) return conf_fail(c, "case %zu: result rank %ld, expected %ld", i, r - ninj, n);
        for (long k = 0; k < n; k++)
            if (out[k] != want[k]) return conf_fail(c, "case %zu: component %ld differs", i, k);
    }
    return CONF_PASS;
}

CONF_HANDLERS(test_inject, {"spt_inject_index", h_inject_index, CONF_OP(spt_inject_index)},
              {"domain_inject", domain_inject_case, CONF_OP(spt_domain_inject)},
              {"uninject", uninject_case, CONF_OP(spt_uninject_index)})
#endif
