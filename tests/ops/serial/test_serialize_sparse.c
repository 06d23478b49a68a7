/* SPDX-License-Identifier: Apache-2.0 */
/* test_serialize_sparse.c -- TensorFlow's serialized SparseTensor from C: serialize_sparse and
 * deserialize_sparse round trips of every dtype (rank 0 and no entries included), the [N, 3] form of
 * serialize_many_sparse read back by deserialize_many_sparse and as a stack, and TensorFlow's errors.
 * The bytes themselves are checked against TensorFlow's in tests/tf_formats. */
#include "../tfsparse_test_util.h"

static void test_round_trip_every_dtype(void **state) {
    (void)state;
    int64_t s[2] = {5, 6}, ix[6] = {4, 5, 0, 0, 1, 3};
    double src[3] = {1.5, -2, 7};
    spt_tensor *f;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 3, ix, src, NULL, &f));
    for (int dt = 0; dt < SPT_NUM_DTYPES; dt++) {
        if (dt == SPT_STRING) continue;
        spt_tensor *t, *b;
        spt_dense *d;
        ASSERT_OK(spt_cast(f, (spt_dtype)dt, &t));
        ASSERT_OK(spt_serialize_sparse(t, &d));
        assert_int_equal(spt_dense_size(d), 3);
        ASSERT_OK(spt_deserialize_sparse(d, (spt_dtype)dt, &b));
        spt_test_expect_tensor(b, 2, s, 3, ix, spt_tensor_values(t));
        spt_tensor_free(b);
        ASSERT_ST(SPT_EINVAL, spt_deserialize_sparse(d, dt == SPT_INT64 ? SPT_INT32 : SPT_INT64, &b));
        ASSERT_MSG("Requested SparseTensor of type");
        assert_null(b);
        spt_dense_free(d);
        spt_tensor_free(t);
    }
    spt_tensor_free(f);
    int32_t v = 37;
    spt_tensor *t, *b;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 0, NULL, 1, NULL, &v, NULL, &t));
    ASSERT_OK(spt_serialize_sparse(t, &d));
    ASSERT_OK(spt_deserialize_sparse(d, SPT_INT32, &b));
    spt_test_expect_tensor(b, 0, NULL, 1, NULL, &v);
    spt_tensor_free(b);
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_many_and_stacks(void **state) {
    (void)state;
    int64_t s[2] = {3, 4}, ix[4] = {2, 1, 0, 3};
    spt_str v[2] = {{"a\0b", 3}, {"", 0}};
    spt_tensor *t, *b;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_serialize_many_sparse(t, &d));
    assert_int_equal(spt_dense_rank(d), 2);
    assert_int_equal(spt_dense_shape(d)[0], 3);
    ASSERT_OK(spt_deserialize_many_sparse(d, SPT_STRING, &b));
    spt_str want[2] = {{"", 0}, {"a\0b", 3}}; /* row by row */
    spt_test_expect_tensor(b, 2, s, 2, (int64_t[]){0, 3, 2, 1}, want);
    spt_tensor_free(b);
    ASSERT_OK(spt_deserialize_sparse(d, SPT_STRING, &b)); /* the same [3, 3] as a stack */
    spt_test_expect_tensor(b, 2, s, 2, (int64_t[]){0, 3, 2, 1}, want);
    spt_tensor_free(b);
    spt_dense_free(d);
    spt_tensor *r1;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, s, 1, ix, v, NULL, &r1));
    ASSERT_ST(SPT_EINVAL, spt_serialize_many_sparse(r1, &d));
    assert_null(d);
    ASSERT_OK(spt_serialize_sparse(r1, &d));
    ASSERT_ST(SPT_EINVAL, spt_deserialize_many_sparse(d, SPT_STRING, &b)); /* [3] is not [N, 3] */
    spt_dense_free(d);
    spt_tensor_free(r1);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_dtype),
        cmocka_unit_test(test_many_and_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
