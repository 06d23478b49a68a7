/* SPDX-License-Identifier: Apache-2.0 */
/* test_transpose.c -- tf.sparse.transpose: permuted indices and shape, row-major output. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

/* The sparse_ops.py docstring examples. */
static void test_docstring(void **state) {
    (void)state;
    int64_t s[3] = {2, 4, 5}, ix[12] = {0, 0, 1, 0, 0, 3, 1, 2, 3, 1, 3, 1}, p[3] = {0, 2, 1};
    float v[4] = {1.1f, 2.2f, 3.3f, 4.4f};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_transpose(t, p, &o));
    int64_t ws[3] = {2, 5, 4}, wi[12] = {0, 1, 0, 0, 3, 0, 1, 1, 3, 1, 3, 2};
    float wv[4] = {1.1f, 2.2f, 4.4f, 3.3f};
    spt_test_expect_tensor(o, 3, ws, 4, wi, wv);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    spt_tensor_free(t);
    int64_t s2[2] = {4, 5}, ix2[8] = {0, 1, 0, 3, 2, 3, 3, 1};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, s2, 4, ix2, v, NULL, &t));
    ASSERT_OK(spt_transpose(t, NULL, &o));
    int64_t ws2[2] = {5, 4}, wi2[8] = {1, 0, 1, 3, 3, 0, 3, 2};
    float wv2[4] = {1.1f, 4.4f, 2.2f, 3.3f};
    spt_test_expect_tensor(o, 2, ws2, 4, wi2, wv2);
    lt_expect_row_major(o);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_strings_empty_errors(void **state) {
    (void)state;
    int64_t s[2] = {2, 3}, ix[4] = {1, 0, 0, 2};
    spt_str v[2] = {{"b", 1}, {"a", 1}};
    spt_tensor *t, *o = (spt_tensor *)1;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 2, ix, v, NULL, &t));
    int64_t id[2] = {0, 1}, bad[2] = {0, 0}, oob[2] = {0, 2};
    ASSERT_OK(spt_transpose(t, id, &o)); /* identity: just sorted */
    int64_t wi[4] = {0, 2, 1, 0};
    spt_str wv[2] = {{"a", 1}, {"b", 1}};
    spt_test_expect_tensor(o, 2, s, 2, wi, wv);
    spt_tensor_free(o);
    ASSERT_ST(SPT_EINVAL, spt_transpose(t, bad, &o));
    assert_null(o);
    ASSERT_MSG("not a permutation");
    ASSERT_ST(SPT_ERANGE, spt_transpose(t, oob, &o)); /* an axis outside [0, rank) */
    assert_null(o);
    ASSERT_MSG("perm[1] = 2 is outside [0, 2)");
    ASSERT_ST(SPT_EINVAL, spt_transpose(NULL, id, &o));
    spt_tensor_free(t);
    int64_t z[3] = {0, 2, 7};
    ASSERT_OK(spt_tensor_new(SPT_UINT16, 3, z, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_transpose(t, NULL, &o));
    int64_t wz[3] = {7, 2, 0};
    spt_test_expect_tensor(o, 3, wz, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(t);
    uint16_t u = 9;
    ASSERT_OK(spt_tensor_new(SPT_UINT16, 0, NULL, 1, NULL, &u, NULL, &t));
    ASSERT_OK(spt_transpose(t, NULL, &o));
    spt_test_expect_tensor(o, 0, NULL, 1, NULL, &u);
    spt_tensor_free(o);
    spt_tensor_free(t);
    int64_t bix[2] = {2, 0};
    ASSERT_OK(spt_tensor_new(SPT_UINT16, 2, s, 1, bix, &u, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_transpose(t, NULL, &o));
    spt_tensor_free(t);
}

/* Property: against the dense transpose. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {1234567};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3], p[3], ns[3], idx[3], nidx[3];
        lt_rand_shape(&g, r, 0, 5, sh);
        for (int64_t d = 0; d < r; d++) p[d] = d;
        for (int64_t d = r - 1; d > 0; d--) {
            int64_t j = lt_int(&g, d + 1), tmp = p[d];
            p[d] = p[j];
            p[j] = tmp;
        }
        for (int64_t d = 0; d < r; d++) ns[d] = sh[p[d]];
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 40, lt_int(&g, 2)), *o;
        int64_t *dn = lt_dense(t), vol = lt_volume(r, sh);
        int64_t *want = calloc((size_t)vol + 1, sizeof *want);
        for (int64_t x = 0; x < vol; x++) {
            lt_unravel(r, sh, x, idx);
            for (int64_t d = 0; d < r; d++) nidx[d] = idx[p[d]];
            want[lt_offset(r, ns, nidx)] = dn[x];
        }
        ASSERT_OK(spt_transpose(t, p, &o));
        lt_expect_dense(o, r, ns, want);
        lt_expect_row_major(o);
        free(want);
        free(dn);
        spt_tensor_free(o);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) { return spt_transpose(x->in[0], NULL, &x->out[0]); }

static void test_alloc_sweep(void **state) {
    (void)state;
    lt_sweep_one(sweep_op);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docstring),
        cmocka_unit_test(test_strings_empty_errors),
        cmocka_unit_test(test_property_dense),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result sparse_transpose(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t perm[SPT_MAX_RANK];
    json_t *jp = json_object_get(c->args, "perm");
    bool given = jp && !json_is_null(jp);
    if (given && conf_ints(jp, perm, SPT_MAX_RANK) != spt_tensor_rank(t))
        st = spt__err(SPT_EINVAL, "spt_transpose: perm length differs from the rank");
    else st = spt_transpose(t, given ? perm : NULL, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_transpose, {"sparse_transpose", sparse_transpose, CONF_OP(spt_transpose)})
#endif
