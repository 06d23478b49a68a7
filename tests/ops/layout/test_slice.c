/* SPDX-License-Identifier: Apache-2.0 */
/* test_slice.c -- SparseSlice: clipping, empty results, huge sizes, order kept, errors. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

/* sparse_tensor_test.cc Slice. */
static void test_seed_slice(void **state) {
    (void)state;
    int64_t s[2] = {4, 3}, ix[8] = {0, 0, 1, 1, 1, 2, 3, 0}, v[4] = {1, 2, 3, 4};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, s, 4, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t st[2] = {0, 0}, sz[2] = {2, 3};
    ASSERT_OK(spt_slice(t, st, sz, &o));
    int64_t ws[2] = {2, 3}, wi[6] = {0, 0, 1, 1, 1, 2}, wv[3] = {1, 2, 3};
    spt_test_expect_tensor(o, 2, ws, 3, wi, wv);
    lt_expect_row_major(o); /* order kept */
    spt_tensor_free(o);
    /* SliceReducesOutputDimension: shape [2,2]-like clipping: start past the end gives 0 */
    int64_t st2[2] = {5, 1}, sz2[2] = {1, 5};
    ASSERT_OK(spt_slice(t, st2, sz2, &o));
    int64_t ws2[2] = {0, 2};
    spt_test_expect_tensor(o, 2, ws2, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* start + size would overflow: clipping without forming it; strings. */
static void test_huge_size_strings(void **state) {
    (void)state;
    int64_t s[1] = {10}, ix[2] = {7, 3};
    spt_str v[2] = {{"seven", 5}, {"three", 5}};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, s, 2, ix, v, NULL, &t));
    int64_t st[1] = {5}, sz[1] = {INT64_MAX};
    ASSERT_OK(spt_slice(t, st, sz, &o));
    int64_t ws[1] = {5}, wi[1] = {2};
    spt_str wv[1] = {{"seven", 5}};
    spt_test_expect_tensor(o, 1, ws, 1, wi, wv);
    assert_false(spt_tensor_known_sorted(o));
    spt_tensor_free(o);
    int64_t st2[1] = {(int64_t)1 << 62}, sz2[1] = {(int64_t)1 << 62};
    ASSERT_OK(spt_slice(t, st2, sz2, &o));
    int64_t ws2[1] = {0};
    spt_test_expect_tensor(o, 1, ws2, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_rank0_and_errors(void **state) {
    (void)state;
    spt_tensor *t, *o = (spt_tensor *)1;
    double v = 2.5;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 0, NULL, 1, NULL, &v, NULL, &t));
    ASSERT_OK(spt_slice(t, NULL, NULL, &o));
    spt_test_expect_tensor(o, 0, NULL, 1, NULL, &v);
    spt_tensor_free(o);
    spt_tensor_free(t);
    int64_t s[2] = {3, 3}, ix[2] = {0, 3}, st[2] = {0, 0}, sz[2] = {1, 1}, neg[2] = {-1, 0};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 1, ix, &v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_slice(t, st, sz, &o)); /* TF does not check: we do */
    assert_null(o);
    ASSERT_ST(SPT_EINVAL, spt_slice(t, neg, sz, &o));
    ASSERT_ST(SPT_EINVAL, spt_slice(t, st, neg, &o));
    ASSERT_MSG("size[0] = -1 must be non-negative");
    spt_tensor_free(t);
    /* a negative size where start >= dim - size: TensorFlow clips first and returns an empty slice */
    int64_t ixok[2] = {0, 2}, st5[2] = {5, 0}, sz5[2] = {-1, 3}, st4[2] = {4, 0}, st3[2] = {3, 0}, sz3[2] = {-2, 3};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 1, ixok, &v, NULL, &t));
    ASSERT_OK(spt_slice(t, st5, sz5, &o));
    int64_t ws5[2] = {0, 3};
    spt_test_expect_tensor(o, 2, ws5, 0, NULL, NULL);
    spt_tensor_free(o);
    ASSERT_OK(spt_slice(t, st4, sz5, &o)); /* start 4 == dim 3 - size -1 */
    spt_test_expect_tensor(o, 2, ws5, 0, NULL, NULL);
    spt_tensor_free(o);
    ASSERT_ST(SPT_EINVAL, spt_slice(t, st3, sz5, &o)); /* start 3 < 4 */
    assert_null(o);
    ASSERT_ST(SPT_EINVAL, spt_slice(t, st4, sz3, &o)); /* start 4 < 5 */
    int64_t stbig[2] = {INT64_MAX, 0}, szmin[2] = {INT64_MIN, 3};
    ASSERT_ST(SPT_EINVAL, spt_slice(t, stbig, szmin, &o)); /* dim - size is past INT64_MAX: never reached */
    assert_null(o);
    int64_t szm1[2] = {-1, 3};
    ASSERT_OK(spt_slice(t, stbig, szm1, &o));
    spt_test_expect_tensor(o, 2, ws5, 0, NULL, NULL);
    spt_tensor_free(o);
    ASSERT_ST(SPT_EINVAL, spt_slice(t, NULL, sz, &o));
    ASSERT_ST(SPT_EINVAL, spt_slice(NULL, st, sz, &o));
    ASSERT_ST(SPT_EINVAL, spt_slice(t, st, sz, NULL));
    spt_tensor_free(t);
}

/* Property: against slicing the dense array. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {31337};
    for (int iter = 0; iter < 400; iter++) {
        int64_t r = 1 + lt_int(&g, 3), sh[3], st[3], sz[3], os[3], shift[3];
        lt_rand_shape(&g, r, 0, 5, sh);
        for (int64_t d = 0; d < r; d++) {
            st[d] = lt_int(&g, 7);
            sz[d] = lt_int(&g, 7);
            os[d] = st[d] >= sh[d] ? 0 : (sz[d] < sh[d] - st[d] ? sz[d] : sh[d] - st[d]);
            shift[d] = -st[d];
        }
        spt_tensor *t = lt_rand_tensor(&g, r, sh, 50, lt_int(&g, 2)), *o;
        int64_t *dn = lt_dense(t);
        ASSERT_OK(spt_slice(t, st, sz, &o));
        int64_t *want = lt_zeros(lt_volume(r, os));
        lt_shift_copy(r, sh, dn, shift, os, want, false);
        lt_expect_dense(o, r, os, want);
        lt_check_claims(o);
        free(want);
        free(dn);
        spt_tensor_free(o);
        spt_tensor_free(t);
    }
}

static spt_status sweep_op(lt_sweep *x) {
    int64_t st[2] = {1, 0}, sz[2] = {1, 3};
    return spt_slice(x->in[0], st, sz, &x->out[0]);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    lt_sweep_one(sweep_op);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_slice),       cmocka_unit_test(test_huge_size_strings),
        cmocka_unit_test(test_rank0_and_errors), cmocka_unit_test(test_property_dense),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result slice_common(const conf_case *c) {
    spt_tensor *t, *out = NULL;
    spt_status st = conf_sparse(json_object_get(c->args, "sp"), false, &t);
    JUDGE(c, st);
    int64_t start[SPT_MAX_RANK], size[SPT_MAX_RANK];
    long ns = conf_ints(json_object_get(c->args, "start"), start, SPT_MAX_RANK);
    long nz = conf_ints(json_object_get(c->args, "size"), size, SPT_MAX_RANK);
    if (ns != spt_tensor_rank(t))
        st = spt__err(SPT_EINVAL, "spt_slice: Expected start to be a vector of length %lld but got length %ld",
                      (long long)spt_tensor_rank(t), ns);
    else if (nz != spt_tensor_rank(t))
        st = spt__err(SPT_EINVAL, "spt_slice: Expected size to be a vector of length %lld but got length %ld",
                      (long long)spt_tensor_rank(t), nz);
    else st = spt_slice(t, start, size, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    spt_tensor_free(t);
    return r;
}

CONF_HANDLERS(test_slice, {"st_slice", slice_common, CONF_OP(spt_slice)},
              {"sparse_slice", slice_common, CONF_OP(spt_slice)})
#endif
