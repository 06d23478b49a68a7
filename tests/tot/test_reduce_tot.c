/* SPDX-License-Identifier: Apache-2.0 */
/* test_reduce_tot.c -- spt_reduce_tot_sum: the upstream example, reduce(sparsify(T)) against a dense
 * reference, random ToTs against a naive sum, integer wrap, errors, allocation failures. */
#ifndef SPT_CONFORMANCE
#include "tot_ref.h"

static void test_upstream_vov_to_vector(void **state) {
    (void)state;
    /* 0->{1,3}, 1->{1,2}, 2->{0}; ToT [1 3],[1 2],[5] -> [5 2 2 3] */
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 1, 5, (int64_t[]){0, 0, 1, 1, 2}, (int64_t[]){1, 3, 1, 2, 0}, &sm));
    spt_tot *t;
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 1, 3, (int64_t[]){0, 1, 2}, (int64_t[]){2, 2, 1},
                          (double[]){1, 3, 1, 2, 5}, &t));
    spt_dense *A;
    ASSERT_OK(spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, &A));
    assert_int_equal(spt_dense_rank(A), 1);
    assert_int_equal(spt_dense_shape(A)[0], 4);
    const double *a = spt_dense_data(A);
    assert_true(a[0] == 5 && a[1] == 2 && a[2] == 2 && a[3] == 3);
    spt_dense_free(A);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
}

/* No injection: reduce(sparsify(T))[x] = (number of keys whose domain holds x) * T[x]. */
static void test_property_inverse(void **state) {
    (void)state;
    for (int it = 0; it < 300; it++) {
        int64_t R = ref_rand(4), S[3], vol = 1;
        for (int64_t m = 0; m < R; m++) {
            S[m] = 1 + ref_rand(4);
            vol *= S[m];
        }
        double v[64];
        for (int64_t i = 0; i < vol; i++) v[i] = (double)(ref_rand(2001) - 1000);
        int64_t NI = ref_rand(3), os[2], n = ref_rand(50), ind[100], dep[150];
        for (int64_t k = 0; k < NI; k++) os[k] = 1 + ref_rand(3);
        for (int64_t i = 0; i < n; i++) {
            for (int64_t k = 0; k < NI; k++) ind[i * NI + k] = ref_rand(os[k]);
            for (int64_t m = 0; m < R; m++) dep[i * R + m] = ref_rand(S[m]);
        }
        spt_dense *T, *A;
        ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, R, S, v, &T));
        spt_sparse_map *sm;
        ASSERT_OK(spt_sparse_map_new(NI, R, n, ind, dep, &sm));
        spt_tot *t;
        ASSERT_OK(spt_sparsify_dense(T, sm, 0, NULL, os, &t));
        ASSERT_OK(spt_reduce_tot_sum(t, sm, R, S, &A));
        /* dense reference */
        double want[64] = {0};
        for (int64_t l = 0; l < vol; l++) {
            int64_t x[3], rem = l;
            for (int64_t m = R - 1; m >= 0; m--) {
                x[m] = rem % S[m];
                rem /= S[m];
            }
            for (int64_t k = 0; k < spt_sparse_map_nkeys(sm); k++)
                if (spt_sparse_map_contains(sm, spt_sparse_map_key(sm, k), x)) want[l] += v[l];
        }
        const double *a = spt_dense_data(A);
        for (int64_t l = 0; l < vol; l++) assert_true(a[l] == want[l]);
        spt_dense_free(A);
        spt_tot_free(t);
        spt_sparse_map_free(sm);
        spt_dense_free(T);
    }
}

/* A ToT with arbitrary values (holes included): the naive sum over keys. */
static void test_random_tot(void **state) {
    (void)state;
    for (int it = 0; it < 100; it++) {
        int64_t S[2] = {1 + ref_rand(4), 1 + ref_rand(4)}, n = 1 + ref_rand(30), ind[30], dep[60];
        for (int64_t i = 0; i < n; i++) {
            ind[i] = ref_rand(4);
            dep[2 * i] = ref_rand(S[0]);
            dep[2 * i + 1] = ref_rand(S[1]);
        }
        spt_sparse_map *sm;
        ASSERT_OK(spt_sparse_map_new(1, 2, n, ind, dep, &sm));
        /* a ToT of int64 values of shape result_extents at every key */
        int64_t nk = spt_sparse_map_nkeys(sm), outer[4], ish[8], nv = 0;
        int64_t vals[4 * 16];
        for (int64_t k = 0; k < nk; k++) {
            spt_domain *d;
            ASSERT_OK(spt_sparse_map_domain(sm, k, &d));
            outer[k] = spt_sparse_map_key(sm, k)[0];
            spt_domain_result_extents(d, ish + 2 * k);
            for (int64_t e = 0; e < ish[2 * k] * ish[2 * k + 1]; e++) vals[nv++] = ref_rand(100) - 50;
            spt_domain_free(d);
        }
        spt_tot *t;
        ASSERT_OK(spt_tot_new(SPT_INT64, 1, (int64_t[]){4}, 2, nk, outer, ish, vals, &t));
        spt_dense *A;
        ASSERT_OK(spt_reduce_tot_sum(t, sm, 2, S, &A));
        int64_t want[16] = {0};
        for (int64_t k = 0; k < nk; k++) {
            spt_domain *d;
            ASSERT_OK(spt_sparse_map_domain(sm, k, &d));
            spt_tot_inner in;
            ASSERT_OK(spt_tot_entry(t, k, &in));
            const int64_t *x = spt_domain_indices(d);
            for (int64_t r = 0; r < spt_domain_size(d); r++) {
                int64_t ri[2];
                ASSERT_OK(spt_domain_result_index(d, 2, x + 2 * r, ri));
                want[x[2 * r] * S[1] + x[2 * r + 1]] += ((const int64_t *)in.data)[ri[0] * in.shape[1] + ri[1]];
            }
            spt_domain_free(d);
        }
        assert_memory_equal(spt_dense_data(A), want, (size_t)(S[0] * S[1]) * sizeof(int64_t));
        spt_dense_free(A);
        spt_tot_free(t);
        spt_sparse_map_free(sm);
    }
}

static void test_int_wrap_and_complex(void **state) {
    (void)state;
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 1, 2, (int64_t[]){0, 1}, (int64_t[]){0, 0}, &sm));
    spt_tot *t;
    int8_t v[2] = {100, 100};
    ASSERT_OK(spt_tot_new(SPT_INT8, 1, (int64_t[]){2}, 1, 2, (int64_t[]){0, 1}, (int64_t[]){1, 1}, v, &t));
    spt_dense *A;
    ASSERT_OK(spt_reduce_tot_sum(t, sm, 1, (int64_t[]){1}, &A));
    assert_int_equal(((const int8_t *)spt_dense_data(A))[0], (int8_t)-56);
    spt_dense_free(A);
    spt_tot_free(t);
    float _Complex c[2] = {1.5f, 2.0f};
    ASSERT_OK(spt_tot_new(SPT_COMPLEX64, 1, (int64_t[]){2}, 1, 2, (int64_t[]){0, 1}, (int64_t[]){1, 1}, c, &t));
    ASSERT_OK(spt_reduce_tot_sum(t, sm, 1, (int64_t[]){3}, &A));
    assert_true(((const float _Complex *)spt_dense_data(A))[0] == 3.5f);
    assert_true(((const float _Complex *)spt_dense_data(A))[2] == 0);
    spt_dense_free(A);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
}

static void test_empty(void **state) {
    (void)state;
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new_with_keys(1, 2, 1, (int64_t[]){1}, 0, NULL, NULL, &sm));
    spt_tot *t;
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 2, 0, NULL, NULL, NULL, &t));
    spt_dense *A;
    ASSERT_OK(spt_reduce_tot_sum(t, sm, 2, (int64_t[]){2, 0}, &A));
    assert_int_equal(spt_dense_size(A), 0);
    spt_dense_free(A);
    ASSERT_OK(spt_reduce_tot_sum(t, sm, 2, (int64_t[]){2, 2}, &A));
    assert_true(((const double *)spt_dense_data(A))[3] == 0);
    spt_dense_free(A);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
}

static void test_errors(void **state) {
    (void)state;
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 1, 3, (int64_t[]){0, 0, 2}, (int64_t[]){1, 3, 0}, &sm));
    spt_tot *t;
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 1, 2, (int64_t[]){0, 2}, (int64_t[]){2, 1},
                          (double[]){1, 2, 3}, &t));
    spt_dense *A = (spt_dense *)1;
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 2, (int64_t[]){4, 4}, &A));
    assert_null(A);
    ASSERT_MSG("spt_reduce_tot_sum");
    ASSERT_ST(SPT_ERANGE, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){3}, &A));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(NULL, sm, 1, (int64_t[]){4}, &A));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, NULL, 1, (int64_t[]){4}, &A));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, NULL));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){-4}, &A));
    spt_tot_free(t);
    /* wrong inner shape; missing inner tensor; an extra inner tensor; key outside the outer shape */
    ASSERT_OK(
        spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 1, 2, (int64_t[]){0, 2}, (int64_t[]){1, 1}, (double[]){1, 3}, &t));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, &A));
    ASSERT_MSG("shape");
    spt_tot_free(t);
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 1, 1, (int64_t[]){0}, (int64_t[]){2}, (double[]){1, 3}, &t));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, &A));
    ASSERT_MSG("empty at key [2]");
    spt_tot_free(t);
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 1, 3, (int64_t[]){0, 1, 2}, (int64_t[]){2, 1, 1},
                          (double[]){1, 3, 4, 5}, &t));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, &A));
    ASSERT_MSG("no domain");
    spt_tot_free(t);
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){2}, 1, 1, (int64_t[]){0}, (int64_t[]){2}, (double[]){1, 3}, &t));
    ASSERT_ST(SPT_ERANGE, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, &A));
    spt_tot_free(t);
    /* outer/inner rank mismatch */
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 2, (int64_t[]){3, 1}, 1, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, &A));
    spt_tot_free(t);
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 2, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){4}, &A));
    spt_tot_free(t);
    spt_sparse_map_free(sm);
}

typedef struct {
    spt_tot *t;
    spt_sparse_map *sm;
    spt_dense *A;
} sweep_ctx;
static spt_status sweep_fn(void *p) {
    sweep_ctx *c = p;
    return spt_reduce_tot_sum(c->t, c->sm, 1, (int64_t[]){4}, &c->A);
}
static void sweep_cleanup(void *p) {
    sweep_ctx *c = p;
    spt_dense_free(c->A);
    c->A = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    sweep_ctx c = {NULL, NULL, NULL};
    ASSERT_OK(spt_sparse_map_new(1, 1, 5, (int64_t[]){0, 0, 1, 1, 2}, (int64_t[]){1, 3, 1, 2, 0}, &c.sm));
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){3}, 1, 3, (int64_t[]){0, 1, 2}, (int64_t[]){2, 2, 1},
                          (double[]){1, 3, 1, 2, 5}, &c.t));
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 2);
    spt_tot_free(c.t);
    spt_sparse_map_free(c.sm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_vov_to_vector),
        cmocka_unit_test(test_property_inverse),
        cmocka_unit_test(test_random_tot),
        cmocka_unit_test(test_int_wrap_and_complex),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>
#include <string.h>

static conf_result reduce_case(const conf_case *c) {
    json_t *root = c->root, *jt = json_object_get(root, "tot");
    static int64_t outer[MAXN], ishape[MAXN];
    static double vals[MAXN];
    int64_t oshape[SPT_MAX_RANK] = {0}, shape[SPT_MAX_RANK];
    int64_t orank = 0, irank = 0, nv = 0;
    size_t n = json_array_size(jt);
    for (size_t e = 0; e < n; e++) {
        json_t *x = json_array_get(jt, e);
        orank = conf_ints(json_object_get(x, "outer"), outer + e * (size_t)orank, SPT_MAX_RANK);
        irank = conf_ints(json_object_get(x, "inner_shape"), ishape + e * (size_t)irank, SPT_MAX_RANK);
        json_t *jv = json_object_get(x, "values");
        for (size_t k = 0; k < json_array_size(jv); k++) vals[nv++] = json_number_value(json_array_get(jv, k));
    }
    spt_sparse_map *sm = NULL;
    spt_tot *t = NULL;
    spt_dense *A = NULL;
    conf_result res = CONF_PASS;
    if (conf_build_map(json_object_get(root, "sparse_map"), &sm) != SPT_OK) return conf_fail(c, "bad map");
    /* the vectors give no outer shape: use the bounding box of the ToT entries and the keys */
    for (size_t e = 0; e < n; e++)
        for (int64_t k = 0; k < orank; k++)
            if (outer[e * (size_t)orank + (size_t)k] + 1 > oshape[k])
                oshape[k] = outer[e * (size_t)orank + (size_t)k] + 1;
    for (int64_t i = 0; i < spt_sparse_map_nkeys(sm); i++)
        for (int64_t k = 0; k < orank; k++)
            if (spt_sparse_map_key(sm, i)[k] + 1 > oshape[k]) oshape[k] = spt_sparse_map_key(sm, i)[k] + 1;
    long rank = conf_ints(json_object_get(root, "output_shape"), shape, SPT_MAX_RANK);
    spt_status st = spt_tot_new(SPT_FLOAT64, orank, oshape, irank, (int64_t)n, outer, ishape, vals, &t);
    if (st == SPT_OK) st = spt_reduce_tot_sum(t, sm, rank, shape, &A);
    if (st != SPT_OK) {
        res = conf_fail(c, "expected success, got %s: %s", spt_status_name(st), spt_last_error());
    } else {
        json_t *exp = json_object_get(root, "expected");
        int64_t es[SPT_MAX_RANK];
        long er = conf_ints(json_object_get(exp, "shape"), es, SPT_MAX_RANK);
        json_t *ev = json_object_get(exp, "values");
        if (er != spt_dense_rank(A) || (int64_t)json_array_size(ev) != spt_dense_size(A)) {
            res = conf_fail(c, "result shape differs");
        } else {
            for (long k = 0; k < er; k++)
                if (es[k] != spt_dense_shape(A)[k]) res = conf_fail(c, "result dim %ld differs", k);
            const double *d = spt_dense_data(A);
            for (int64_t k = 0; k < spt_dense_size(A) && res == CONF_PASS; k++)
                if (d[k] != json_number_value(json_array_get(ev, (size_t)k)))
                    res = conf_fail(c, "result[%lld] = %g, expected %g", (long long)k, d[k],
                                    json_number_value(json_array_get(ev, (size_t)k)));
        }
    }
    spt_dense_free(A);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    return res;
}

CONF_HANDLERS(test_reduce_tot, {"reduce_tot_sum", reduce_case, CONF_OP(spt_reduce_tot_sum)})
#endif
