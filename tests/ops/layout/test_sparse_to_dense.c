/* SPDX-License-Identifier: Apache-2.0 */
/* test_sparse_to_dense.c -- spt_sparse_to_dense (tf.sparse_to_dense, tf_semantics 3.1). */
#ifndef SPT_CONFORMANCE
#include <string.h>

#include "spt_test.h"

static spt_dense *arr(spt_dtype dt, int64_t rank, const int64_t *shape, const void *data) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new_from(dt, rank, shape, data, &d));
    return d;
}

static void test_vector_matrix_scalar_indices(void **state) {
    (void)state;
    int64_t s1[1] = {1}, s2[1] = {2}, s3[1] = {3}, m[2] = {3, 2};
    int64_t shape5[1] = {5};
    int32_t idx32[3] = {1, 3, 4}, shape5_32[1] = {5};
    float vals[3] = {3, 4, 5}, dflt = -2, one = 2;
    spt_dense *ix = arr(SPT_INT32, 1, s3, idx32), *os = arr(SPT_INT32, 1, s1, shape5_32);
    spt_dense *sv = arr(SPT_FLOAT32, 1, s3, vals), *dv = arr(SPT_FLOAT32, 0, NULL, &dflt), *out;
    ASSERT_OK(spt_sparse_to_dense(ix, os, sv, dv, true, &out));
    const float want[5] = {-2, 3, -2, 4, 5};
    assert_int_equal(spt_dense_rank(out), 1);
    assert_memory_equal(spt_dense_data(out), want, sizeof want);
    spt_dense_free(out);
    spt_dense *sc = arr(SPT_FLOAT32, 0, NULL, &one);
    ASSERT_OK(spt_sparse_to_dense(ix, os, sc, dv, true, &out)); /* scalar value broadcast */
    const float want2[5] = {-2, 2, -2, 2, 2};
    assert_memory_equal(spt_dense_data(out), want2, sizeof want2);
    spt_dense_free(out);
    spt_dense_free(ix);
    spt_dense_free(os);
    /* matrix indices, int64 */
    int64_t mix[6] = {0, 1, 0, 2, 2, 3}, oshape[2] = {3, 4};
    ix = arr(SPT_INT64, 2, m, mix);
    os = arr(SPT_INT64, 1, s2, oshape);
    ASSERT_OK(spt_sparse_to_dense(ix, os, sv, dv, true, &out));
    const float want3[12] = {-2, 3, 4, -2, -2, -2, -2, -2, -2, -2, -2, 5};
    assert_int_equal(spt_dense_rank(out), 2);
    assert_memory_equal(spt_dense_data(out), want3, sizeof want3);
    spt_dense_free(out);
    spt_dense_free(ix);
    spt_dense_free(os);
    /* a scalar index is one 1-D index */
    int64_t two = 2;
    ix = arr(SPT_INT64, 0, NULL, &two);
    os = arr(SPT_INT64, 1, s1, shape5);
    ASSERT_OK(spt_sparse_to_dense(ix, os, sc, dv, true, &out));
    const float want4[5] = {-2, -2, 2, -2, -2};
    assert_memory_equal(spt_dense_data(out), want4, sizeof want4);
    spt_dense_free(out);
    spt_dense_free(ix);
    spt_dense_free(os);
    spt_dense_free(sv);
    spt_dense_free(sc);
    spt_dense_free(dv);
}

static void test_errors_in_order(void **state) {
    (void)state;
    int64_t s1[1] = {1}, s2[1] = {2}, s3[1] = {3}, d21[2] = {2, 1}, d111[3] = {1, 1, 1};
    int64_t i2[2] = {1, 3}, five = 5, shape[1] = {5}, shape2[2] = {5, 5};
    double v2[2] = {1, 2}, v3[3] = {1, 2, 3}, z = 0;
    spt_dense *ix = arr(SPT_INT64, 1, s2, i2), *os = arr(SPT_INT64, 1, s1, shape), *sv = arr(SPT_FLOAT64, 1, s2, v2);
    spt_dense *dv = arr(SPT_FLOAT64, 0, NULL, &z), *out = NULL;
    spt_dense *ix3 = arr(SPT_INT64, 3, d111, i2), *os2 = arr(SPT_INT64, 2, d21, i2),
              *osn = arr(SPT_INT64, 1, s2, shape2);
    spt_dense *sv3 = arr(SPT_FLOAT64, 1, s3, v3), *sv21 = arr(SPT_FLOAT64, 2, d21, v2),
              *dvv = arr(SPT_FLOAT64, 1, s2, v2);
    spt_dense *ixf = arr(SPT_FLOAT64, 1, s2, v2);
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ix3, os, sv, dv, true, &out));
    ASSERT_MSG("should be a scalar, vector, or matrix");
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ix, os2, sv, dv, true, &out));
    ASSERT_MSG("output_shape must be rank 1");
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ix, osn, sv, dv, true, &out));
    ASSERT_MSG("output_shape has incorrect number of elements: 2 should be: 1");
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ix, os, sv3, dv, true, &out));
    ASSERT_MSG("sparse_values has incorrect shape [3], should be [] or [2]");
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ix, os, sv21, dv, true, &out));
    ASSERT_MSG("sparse_values has incorrect shape [2,1], should be [] or [2]");
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ix, os, sv, dvv, true, &out));
    ASSERT_MSG("default_value should be a scalar.");
    ASSERT_ST(SPT_EDTYPE, spt_sparse_to_dense(ixf, os, sv, dv, true, &out));
    assert_null(out);
    /* bounds, order, repeats */
    int64_t oob[2] = {1, 10}, rev[2] = {3, 1}, rep[2] = {1, 1};
    spt_dense *ia = arr(SPT_INT64, 1, s2, oob), *ib = arr(SPT_INT64, 1, s2, rev), *ic = arr(SPT_INT64, 1, s2, rep);
    ASSERT_ST(SPT_ERANGE, spt_sparse_to_dense(ia, os, sv, dv, true, &out));
    ASSERT_MSG("indices[1] = [10] is out of bounds: need 0 <= index < [5]");
    ASSERT_ST(SPT_ERANGE, spt_sparse_to_dense(ia, os, sv, dv, false, &out));
    ASSERT_MSG("Indices are not valid (out of bounds).  Shape: [5]");
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ib, os, sv, dv, true, &out));
    ASSERT_MSG("indices[1] = [1] is out of order");
    ASSERT_ST(SPT_EINVAL, spt_sparse_to_dense(ic, os, sv, dv, true, &out));
    ASSERT_MSG("indices[1] = [1] is repeated");
    ASSERT_OK(spt_sparse_to_dense(ic, os, sv, dv, false, &out)); /* no validation: last write wins */
    const double want[5] = {0, 2, 0, 0, 0};
    assert_memory_equal(spt_dense_data(out), want, sizeof want);
    spt_dense_free(out);
    /* output volume overflow */
    int64_t huge[2] = {(int64_t)1 << 32, (int64_t)1 << 32}, m12[2] = {1, 2}, zz[2] = {0, 0};
    spt_dense *ih = arr(SPT_INT64, 2, m12, zz), *osh = arr(SPT_INT64, 1, s2, huge), *sv1 = arr(SPT_FLOAT64, 1, s1, v2);
    ASSERT_ST(SPT_EOVERFLOW, spt_sparse_to_dense(ih, osh, sv1, dv, true, &out));
    (void)five;
    spt_dense *all[] = {ix, os, sv, dv, ix3, os2, osn, sv3, sv21, dvv, ixf, ia, ib, ic, ih, osh, sv1};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) spt_dense_free(all[i]);
}

static void test_strings(void **state) {
    (void)state;
    int64_t s2[1] = {2}, s1[1] = {1}, i2[2] = {0, 2}, shape[1] = {3};
    spt_str v[2] = {{"ab", 2}, {"c", 1}}, dflt = {"?", 1};
    spt_dense *ix = arr(SPT_INT64, 1, s2, i2), *os = arr(SPT_INT64, 1, s1, shape), *sv = arr(SPT_STRING, 1, s2, v);
    spt_dense *dv = arr(SPT_STRING, 0, NULL, &dflt), *out;
    ASSERT_OK(spt_sparse_to_dense(ix, os, sv, dv, true, &out));
    spt_dense_free(sv);
    spt_dense_free(dv);
    const spt_str *o = spt_dense_data(out);
    assert_int_equal(o[0].len, 2);
    assert_memory_equal(o[0].data, "ab", 2);
    assert_memory_equal(o[1].data, "?", 1);
    assert_memory_equal(o[2].data, "c", 1);
    spt_dense_free(out);
    spt_dense_free(ix);
    spt_dense_free(os);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_matrix_scalar_indices),
        cmocka_unit_test(test_errors_in_order),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result sparse_to_dense(const conf_case *c) {
    json_t *a = c->args;
    spt_dtype dt = conf_dtype(a, SPT_FLOAT64), it = SPT_INT64;
    const char *its = json_string_value(json_object_get(a, "index_dtype"));
    if (its) spt_dtype_from_name(its, &it);
    spt_dense *ix = NULL, *os = NULL, *sv = NULL, *dv = NULL, *out = NULL;
    spt_status st = conf_dense(json_object_get(a, "sparse_indices"), it, &ix);
    if (st == SPT_OK) st = conf_dense(json_object_get(a, "output_shape"), it, &os);
    if (st == SPT_OK) st = conf_dense(json_object_get(a, "sparse_values"), dt, &sv);
    if (st == SPT_OK) st = conf_dense(json_object_get(a, "default_value"), dt, &dv);
    if (st == SPT_OK) {
        json_t *vi = json_object_get(a, "validate_indices");
        st = spt_sparse_to_dense(ix, os, sv, dv, vi ? json_is_true(vi) : true, &out);
    }
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_check_dense_result(c, out);
    spt_dense_free(ix);
    spt_dense_free(os);
    spt_dense_free(sv);
    spt_dense_free(dv);
    spt_dense_free(out);
    return r;
}

CONF_HANDLERS(test_sparse_to_dense, {"sparse_to_dense", sparse_to_dense, CONF_OP(spt_sparse_to_dense)})
#endif
