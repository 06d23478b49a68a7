/* SPDX-License-Identifier: Apache-2.0 */
/* test_serialize_sparse.c -- TensorFlow's serialized SparseTensor from C: serialize_sparse and
 * deserialize_sparse round trips of every dtype (rank 0 and no entries included), the [N, 3] form of
 * serialize_many_sparse read back by deserialize_many_sparse and as a stack, and TensorFlow's errors.
 * The bytes themselves are checked against TensorFlow's in tests/tf_formats. */
#ifndef SPT_CONFORMANCE
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

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <string.h>

/* ---- serialization ---- */

static conf_result serialize(const conf_case *c) {
    spt_tensor *sp = NULL, *back = NULL;
    JUDGE(c, conf_sparse(json_object_get(c->args, "sp"), false, &sp));
    spt_dense *ser = NULL; /* TensorFlow's form: [3] TensorProto strings */
    spt_status st = spt_serialize_sparse(sp, &ser);
    if (st == SPT_OK) st = spt_deserialize_sparse(ser, spt_tensor_dtype(sp), &back);
    spt_dense_free(ser);
    spt_tensor_free(sp);
    return conf_finish_sparse(c, st, back);
}

/* Leaves (sparse tensors) of a nested list, in row-major order, and the nesting as the batch shape. */
static bool collect(const json_t *j, int depth, int64_t *bshape, int *brank, spt_tensor **leaves, size_t *nl,
                    size_t cap) {
    if (json_is_object(j)) {
        if (!json_object_get(j, "indices") || *nl == cap) return false;
        if (*brank < 0) *brank = depth;
        else if (*brank != depth) return false;
        return conf_sparse(j, false, &leaves[(*nl)++]) == SPT_OK;
    }
    if (!json_is_array(j) || depth >= SPT_MAX_RANK) return false;
    if (*nl == 0 && *brank < 0) bshape[depth] = (int64_t)json_array_size(j);
    else if (bshape[depth] != (int64_t)json_array_size(j)) return false;
    for (size_t i = 0; i < json_array_size(j); i++)
        if (!collect(json_array_get(j, i), depth + 1, bshape, brank, leaves, nl, cap)) return false;
    return true;
}

static conf_result deserialize(const conf_case *c) {
    json_t *ser = json_object_get(c->args, "serialized");
    if (json_is_object(ser) && !json_object_get(ser, "indices"))
        return CONF_SKIP; /* raw bytes / dims: tests/tf_formats */
    enum { CAP = 64 };
    spt_tensor *leaves[CAP];
    int64_t bshape[SPT_MAX_RANK];
    int brank = -1;
    size_t nl = 0;
    bool ok = collect(ser, 0, bshape, &brank, leaves, &nl, CAP);
    spt_dense *items[CAP] = {NULL};
    spt_str parts[3 * CAP];
    spt_status st = ok ? SPT_OK : SPT_EINVAL;
    for (size_t k = 0; k < nl && st == SPT_OK; k++) {
        st = spt_serialize_sparse(leaves[k], &items[k]);
        if (st == SPT_OK) memcpy(parts + 3 * k, spt_dense_data(items[k]), 3 * sizeof(spt_str));
    }
    spt_tensor *out = NULL;
    spt_dtype dt = conf_dtype(c->args, nl ? spt_tensor_dtype(leaves[0]) : SPT_FLOAT64);
    const int r = brank < 0 ? 0 : brank; /* the stack: batch shape + [3] */
    spt_dense *stack = NULL;
    if (st == SPT_OK) {
        bshape[r] = 3;
        st = spt_dense_new_from(SPT_STRING, r + 1, bshape, parts, &stack);
    }
    if (st == SPT_OK) st = spt_deserialize_sparse(stack, dt, &out);
    spt_dense_free(stack);
    for (size_t k = 0; k < nl; k++) {
        spt_dense_free(items[k]);
        spt_tensor_free(leaves[k]);
    }
    if (!ok) {
        spt_tensor_free(out);
        return conf_fail(c, "cannot read the serialized batch");
    }
    return conf_finish_sparse(c, st, out);
}

CONF_HANDLERS(test_serialize_sparse, {"serialize_sparse", serialize, CONF_OP(spt_serialize_sparse)},
              {"deserialize_sparse", deserialize, CONF_OP(spt_deserialize_sparse)})
#endif
