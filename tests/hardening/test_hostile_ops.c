/* test_hostile_ops.c -- hostile arguments to the segment reductions, bincount, cross, embeddings, serialization and
 * the sparse algebra (products, multiply, gradients): extreme counts and dims, INT64_MIN axes, NULL pointers, aliasing,
 * volumes past int64, integer division corner cases. Each call must return the documented status (and
 * leave *out NULL on failure) -- never crash, overflow or leak (run under ASan/UBSan by `make test`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "spt_test.h"

#define BIG (INT64_C(1) << 62)

/* Non-NULL values out-parameters start as, so that a failure must reset them. */
static char sentinel_obj;
#define SENTINEL_T ((spt_tensor *)(void *)&sentinel_obj)
#define SENTINEL_D ((spt_dense *)(void *)&sentinel_obj)

/* A failing call must leave *out NULL. */
#define ASSERT_FAIL_NULL(expected, call, outp)                                                                         \
    do {                                                                                                               \
        ASSERT_ST(expected, call);                                                                                     \
        assert_null(outp);                                                                                             \
    } while (0)

static spt_tensor *mk(spt_dtype dt, int64_t rank, const int64_t *shape, int64_t nnz, const int64_t *ix, const void *v) {
    spt_tensor *t = NULL;
    ASSERT_OK(spt_tensor_new(dt, rank, shape, nnz, ix, v, NULL, &t));
    return t;
}

static spt_dense *mkd(spt_dtype dt, int64_t rank, const int64_t *shape, const void *data) {
    spt_dense *d = NULL;
    if (data) ASSERT_OK(spt_dense_new_from(dt, rank, shape, data, &d));
    else ASSERT_OK(spt_dense_new(dt, rank, shape, &d));
    return d;
}

/* ---- expand_dims, eye ---- */

static void test_expand_dims_extreme_axes(void **state) {
    (void)state;
    int64_t shape[1] = {3}, ix[1] = {1};
    double v[1] = {2};
    spt_tensor *t = mk(SPT_FLOAT64, 1, shape, 1, ix, v), *o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_expand_dims(t, INT64_MIN, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_expand_dims(t, INT64_MAX, &o), o);
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_expand_dims(NULL, 0, &o), o);
    ASSERT_ST(SPT_EINVAL, spt_expand_dims(t, 0, NULL));
    /* axis -2 on rank 1 puts the new dim first */
    ASSERT_OK(spt_expand_dims(t, -2, &o));
    int64_t es[2] = {1, 3}, eix[2] = {0, 1};
    spt_test_expect_tensor(o, 2, es, 1, eix, v);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

static void test_eye_extremes(void **state) {
    (void)state;
    spt_tensor *o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_eye(INT64_MIN, 1, SPT_FLOAT64, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_eye(1, INT64_MIN, SPT_FLOAT64, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EDTYPE, spt_eye(1, 1, (spt_dtype)-1, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EDTYPE, spt_eye(1, 1, (spt_dtype)999, &o), o);
    /* a huge shape with a tiny diagonal is fine */
    ASSERT_OK(spt_eye(INT64_MAX, 1, SPT_INT8, &o));
    int64_t es[2] = {INT64_MAX, 1}, eix[2] = {0, 0};
    int8_t ev[1] = {1};
    spt_test_expect_tensor(o, 2, es, 1, eix, ev);
    spt_tensor_free(o);
    /* INT64_MAX x INT64_MAX: the volume does not fit, or INT64_MAX entries cannot be had */
    spt_status st = spt_eye(INT64_MAX, INT64_MAX, SPT_INT8, &o);
    assert_true(st == SPT_EOVERFLOW || st == SPT_ENOMEM);
    assert_null(o);
}

/* ---- map_values / cast ---- */

static void test_map_values_bad_ops(void **state) {
    (void)state;
    int64_t shape[1] = {4}, ix[2] = {0, 3};
    int32_t v[2] = {INT32_MIN, -1};
    spt_tensor *t = mk(SPT_INT32, 1, shape, 2, ix, v), *o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_map_values(t, (spt_unary_op)-1, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_map_values(t, SPT_NUM_UNARY_OPS, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_map_values2(t, t, (spt_binary_op)77, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EDTYPE, spt_cast(t, (spt_dtype)-5, &o), o);
    /* wrap semantics on INT_MIN, with the tensor aliased as both operands */
    ASSERT_OK(spt_map_values(t, SPT_OP_ABS, &o));
    spt_test_expect_tensor(o, 1, shape, 2, ix, (int32_t[]){INT32_MIN, 1});
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_NEGATIVE, &o));
    spt_test_expect_tensor(o, 1, shape, 2, ix, (int32_t[]){INT32_MIN, 1});
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_SQUARE, &o));
    spt_test_expect_tensor(o, 1, shape, 2, ix, (int32_t[]){0, 1});
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values2(t, t, SPT_OP_MULTIPLY, &o));
    spt_test_expect_tensor(o, 1, shape, 2, ix, (int32_t[]){0, 1});
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values2(t, t, SPT_OP_ADD, &o));
    spt_test_expect_tensor(o, 1, shape, 2, ix, (int32_t[]){0, -2});
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* float -> int64 cast of NaN, inf and -inf: 0, max, min */
    double fv[3] = {NAN, INFINITY, -INFINITY};
    int64_t s3[1] = {3}, i3[3] = {0, 1, 2};
    t = mk(SPT_FLOAT64, 1, s3, 3, i3, fv);
    ASSERT_OK(spt_cast(t, SPT_INT64, &o));
    spt_test_expect_tensor(o, 1, s3, 3, i3, (int64_t[]){0, INT64_MAX, INT64_MIN});
    spt_tensor_free(o);
    ASSERT_OK(spt_cast(t, SPT_UINT8, &o));
    spt_test_expect_tensor(o, 1, s3, 3, i3, (uint8_t[]){0, 255, 0});
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* ---- segment reductions ---- */

static void test_segment_extremes(void **state) {
    (void)state;
    int64_t ds[2] = {2, 2};
    double dv[4] = {1, 2, 3, 4};
    spt_dense *data = mkd(SPT_FLOAT64, 2, ds, dv), *o = SENTINEL_D;
    int64_t s1[1] = {2};
    spt_dense *idx = mkd(SPT_INT64, 1, s1, (int64_t[]){0, 1});
    spt_dense *ids_big = mkd(SPT_INT64, 1, s1, (int64_t[]){0, INT64_MAX});
    spt_dense *ids_neg = mkd(SPT_INT64, 1, s1, (int64_t[]){INT64_MIN, 0});
    spt_dense *idx_bad = mkd(SPT_INT64, 1, s1, (int64_t[]){0, INT64_MIN});
    /* the last id + 1 does not fit */
    ASSERT_FAIL_NULL(SPT_EOVERFLOW, spt_segment_sum(data, idx, ids_big, SPT_UNSET, &o), o);
    o = SENTINEL_D;
    /* an id equal to num_segments = INT64_MAX is out of range */
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_segment_sum(data, idx, ids_big, INT64_MAX, &o), o);
    o = SENTINEL_D;
    /* num_segments INT64_MAX: output [INT64_MAX, 2] does not fit */
    ASSERT_FAIL_NULL(SPT_EOVERFLOW, spt_segment_sum(data, idx, idx, INT64_MAX, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_segment_mean(data, idx, ids_neg, SPT_UNSET, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_segment_sqrt_n(data, idx_bad, idx, SPT_UNSET, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_segment_sum(data, idx, idx, INT64_MIN, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_segment_sum(data, NULL, idx, 2, &o), o);
    o = SENTINEL_D;
    /* string data */
    spt_dense *sd = mkd(SPT_STRING, 1, s1, NULL);
    ASSERT_FAIL_NULL(SPT_EDTYPE, spt_segment_sum(sd, idx, idx, 2, &o), o);
    spt_dense_free(sd);
    /* num_segments huge with a wide row: the output size overflows */
    ASSERT_FAIL_NULL(SPT_EOVERFLOW, spt_segment_sum(data, idx, idx, BIG, &o), o);
    /* the same array as indices and segment_ids: out[0] = data[0], out[1] = data[1] */
    ASSERT_OK(spt_segment_sum(data, idx, idx, SPT_UNSET, &o));
    assert_memory_equal(spt_dense_data(o), dv, sizeof dv);
    spt_dense_free(o);
    spt_dense_free(data);
    spt_dense_free(idx);
    spt_dense_free(ids_big);
    spt_dense_free(ids_neg);
    spt_dense_free(idx_bad);
}

/* ---- bincount ---- */

static void test_bincount_extremes(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3}, ix[4] = {0, 0, 1, 2};
    int64_t v[2] = {INT64_MAX, 5};
    spt_tensor *t = mk(SPT_INT64, 2, shape, 2, ix, v), *o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EOVERFLOW, spt_bincount(t, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_bincount(t, NULL, INT64_MIN, SPT_UNSET, SPT_UNSET, false, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_bincount(t, NULL, 0, INT64_MIN, SPT_UNSET, false, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_bincount(t, NULL, 0, SPT_UNSET, INT64_MIN, false, &o), o);
    /* maxlength drops INT64_MAX; minlength INT64_MAX makes the width */
    ASSERT_OK(spt_bincount(t, NULL, -1, INT64_MAX, 6, false, &o));
    int64_t es[2] = {2, 6}, eix[2] = {1, 5};
    spt_test_expect_tensor(o, 2, es, 1, eix, (int64_t[]){1});
    spt_tensor_free(o);
    ASSERT_OK(spt_bincount(t, NULL, 0, INT64_MAX, 6, false, &o));
    int64_t es1[1] = {6}, eix1[1] = {5};
    spt_test_expect_tensor(o, 1, es1, 1, eix1, (int64_t[]){1});
    spt_tensor_free(o);
    /* values as its own weights (aliasing) */
    ASSERT_OK(spt_bincount(t, t, 0, SPT_UNSET, 6, false, &o));
    spt_test_expect_tensor(o, 1, es1, 1, eix1, (int64_t[]){5});
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* uint64 values above INT64_MAX */
    uint64_t uv[2] = {UINT64_MAX, 1};
    t = mk(SPT_UINT64, 2, shape, 2, ix, uv);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EOVERFLOW, spt_bincount(t, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o), o);
    ASSERT_OK(spt_bincount(t, NULL, 0, SPT_UNSET, 2, false, &o));
    int64_t es2[1] = {2}, eix2[1] = {1};
    spt_test_expect_tensor(o, 1, es2, 1, eix2, (int64_t[]){1});
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* a rank-0 input per row */
    int8_t s0v[1] = {3};
    t = mk(SPT_INT8, 0, NULL, 1, NULL, s0v);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o), o);
    spt_tensor_free(t);
}

/* ---- cross ---- */

static void test_cross_extremes(void **state) {
    (void)state;
    int64_t shape[2] = {2, 2}, ix[4] = {0, 0, 1, 1};
    int64_t v[2] = {INT64_MIN, INT64_MAX};
    spt_tensor *t = mk(SPT_INT64, 2, shape, 2, ix, v), *o = SENTINEL_T;
    spt_cross_input in[2] = {{t, NULL}, {t, NULL}};
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross(in, 0, "_", 1, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross(in, INT64_MIN, "_", 1, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross(NULL, 1, "_", 1, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross(in, 2, "_", -1, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross(in, 2, NULL, 3, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross_hashed(in, 2, INT64_MIN, 0, &o), o);
    spt_cross_input both[1] = {{NULL, NULL}};
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross(both, 1, "_", 1, &o), o);
    /* the same tensor twice: row 0 "min_X_min" style, with INT64_MIN written in decimal */
    ASSERT_OK(spt_cross(in, 2, "|", 1, &o));
    assert_int_equal(spt_tensor_nnz(o), 2);
    const spt_str *sv = spt_tensor_values(o);
    assert_int_equal(sv[0].len, 41);
    assert_memory_equal(sv[0].data, "-9223372036854775808|-9223372036854775808", 41);
    assert_memory_equal(sv[1].data, "9223372036854775807|9223372036854775807", 39);
    spt_tensor_free(o);
    /* separator of length 0 with a NULL pointer is fine */
    ASSERT_OK(spt_cross(in, 2, NULL, 0, &o));
    sv = spt_tensor_values(o);
    assert_int_equal(sv[1].len, 38);
    spt_tensor_free(o);
    spt_tensor_free(t);
}

/* ---- embedding lookups ---- */

static void test_embedding_extremes(void **state) {
    (void)state;
    int64_t ps[2] = {2, 2};
    float pv[4] = {1, 2, 3, 4};
    spt_dense *p = mkd(SPT_FLOAT32, 2, ps, pv), *o = SENTINEL_D;
    const spt_dense *params[2] = {p, NULL};
    int64_t shape[2] = {2, 2}, ix[4] = {0, 0, 1, 0};
    int64_t idv[2] = {1, INT64_MIN};
    spt_tensor *ids = mk(SPT_INT64, 2, shape, 2, ix, idv);
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_embedding_lookup_sparse(params, 1, ids, NULL, SPT_COMBINER_SUM, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_embedding_lookup_sparse(params, 0, ids, NULL, SPT_COMBINER_SUM, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_embedding_lookup_sparse(params, INT64_MIN, ids, NULL, SPT_COMBINER_SUM, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_embedding_lookup_sparse(params, 2, ids, NULL, SPT_COMBINER_SUM, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_embedding_lookup_sparse(params, 1, ids, NULL, (spt_combiner)42, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL,
                     spt_safe_embedding_lookup_sparse(params, 1, ids, NULL, (spt_combiner)-3, SPT_UNSET, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_ERANGE,
                     spt_safe_embedding_lookup_sparse(params, 1, ids, NULL, SPT_COMBINER_SUM, INT64_MIN, &o), o);
    spt_tensor_free(ids);
    /* uint64 id above INT64_MAX */
    uint64_t uid[2] = {UINT64_MAX, 0};
    ids = mk(SPT_UINT64, 2, shape, 2, ix, uid);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_embedding_lookup_sparse(params, 1, ids, NULL, SPT_COMBINER_SUM, &o), o);
    spt_tensor_free(ids);
    /* rank-0 params */
    spt_dense *p0 = mkd(SPT_FLOAT32, 0, NULL, pv);
    const spt_dense *params0[1] = {p0};
    int64_t idv2[2] = {0, 0};
    ids = mk(SPT_INT64, 2, shape, 2, ix, idv2);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_embedding_lookup_sparse(params0, 1, ids, NULL, SPT_COMBINER_SUM, &o), o);
    /* ids as their own weights: dtype int64 differs from the params' float32 */
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EDTYPE, spt_embedding_lookup_sparse(params, 1, ids, ids, SPT_COMBINER_SUM, &o), o);
    spt_tensor_free(ids);
    spt_dense_free(p0);
    spt_dense_free(p);
}

/* ---- serialization ---- */

static void test_deserialize_garbage(void **state) {
    (void)state;
    spt_tensor *o = SENTINEL_T;
    unsigned char junk[64];
    for (int i = 0; i < 64; i++) junk[i] = (unsigned char)(0xff - i);
    const void *data[1] = {junk};
    size_t lens[1] = {sizeof junk};
    int64_t bs[1] = {1};
    spt_status st = spt_unpack_sparse(data, lens, 1, bs, SPT_FLOAT64, &o);
    assert_int_not_equal(st, SPT_OK);
    assert_null(o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_unpack_many_sparse(data, lens, 0, SPT_FLOAT64, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_unpack_many_sparse(data, lens, INT64_MIN, SPT_FLOAT64, &o), o);
    o = SENTINEL_T;
    st = spt_unpack_sparse(data, lens, -1, bs, SPT_FLOAT64, &o);
    assert_int_not_equal(st, SPT_OK);
    assert_null(o);
    o = SENTINEL_T;
    st = spt_unpack_sparse(data, lens, INT64_MAX, bs, SPT_FLOAT64, &o);
    assert_int_not_equal(st, SPT_OK);
    assert_null(o);
    /* a batch shape whose volume does not fit */
    int64_t hb[2] = {BIG, BIG};
    o = SENTINEL_T;
    st = spt_unpack_sparse(data, lens, 2, hb, SPT_FLOAT64, &o);
    assert_int_not_equal(st, SPT_OK);
    assert_null(o);
    int64_t nb[1] = {-1};
    o = SENTINEL_T;
    st = spt_unpack_sparse(data, lens, 1, nb, SPT_FLOAT64, &o);
    assert_int_not_equal(st, SPT_OK);
    assert_null(o);
    /* every truncation of a valid serialization fails cleanly */
    int64_t shape[2] = {3, 4}, ix[4] = {0, 1, 2, 3};
    double v[2] = {1.5, -2};
    spt_tensor *t = mk(SPT_FLOAT64, 2, shape, 2, ix, v);
    void *buf = NULL;
    size_t len = 0;
    ASSERT_OK(spt_pack_sparse(t, &buf, &len));
    for (size_t k = 0; k < len; k++) {
        size_t l1[1] = {k};
        const void *d1[1] = {buf};
        o = SENTINEL_T;
        st = spt_unpack_many_sparse(d1, l1, 1, SPT_FLOAT64, &o);
        assert_int_not_equal(st, SPT_OK);
        assert_null(o);
    }
    /* every single-byte corruption either fails cleanly or gives a valid tensor */
    unsigned char *cp = malloc(len);
    assert_non_null(cp);
    for (size_t k = 0; k < len; k++) {
        for (int val = 0; val < 256; val += 51) {
            memcpy(cp, buf, len);
            cp[k] = (unsigned char)(cp[k] ^ (val | 0x80));
            const void *d1[1] = {cp};
            size_t l1[1] = {len};
            o = NULL;
            st = spt_unpack_many_sparse(d1, l1, 1, SPT_FLOAT64, &o);
            if (st == SPT_OK) {
                ASSERT_OK(spt_validate(o));
                spt_tensor_free(o);
            } else {
                assert_null(o);
            }
        }
    }
    free(cp);
    spt_bytes_free(buf);
    spt_tensor_free(t);
}

static void test_serialize_many_huge_batch(void **state) {
    (void)state;
    /* shape[0] = 2^62 with no entries: 2^62 items cannot be had */
    int64_t shape[2] = {BIG, 2};
    spt_tensor *t = mk(SPT_FLOAT64, 2, shape, 0, NULL, NULL);
    void **data = (void **)(void *)&sentinel_obj;
    size_t *lens = (size_t *)(void *)&sentinel_obj;
    int64_t n = 77;
    spt_status st = spt_pack_many_sparse(t, &data, &lens, &n);
    assert_true(st == SPT_EOVERFLOW || st == SPT_ENOMEM);
    spt_tensor_free(t);
    /* a rank-0 tensor serializes and comes back */
    double v[1] = {3};
    t = mk(SPT_FLOAT64, 0, NULL, 1, NULL, v);
    void *buf = NULL;
    size_t len = 0;
    ASSERT_OK(spt_pack_sparse(t, &buf, &len));
    const void *d1[1] = {buf};
    size_t l1[1] = {len};
    spt_tensor *o = NULL;
    ASSERT_OK(spt_unpack_many_sparse(d1, l1, 1, SPT_FLOAT64, &o));
    int64_t es[1] = {1}, eix[1] = {0};
    spt_test_expect_tensor(o, 1, es, 1, eix, v);
    spt_tensor_free(o);
    spt_bytes_free(buf);
    spt_tensor_free(t);
}

/* ---- algebra ---- */

static void test_spgemm_extremes(void **state) {
    (void)state;
    int64_t sa[2] = {BIG, BIG}, ix[2] = {BIG - 1, BIG - 1};
    double v[1] = {2};
    spt_tensor *a = mk(SPT_FLOAT64, 2, sa, 1, ix, v), *o = SENTINEL_T;
    /* [2^62, 2^62] x [2^62, 2^62]: the output volume does not fit */
    ASSERT_FAIL_NULL(SPT_EOVERFLOW, spt_sparse_sparse_matmul(a, a, false, false, false, &o), o);
    spt_tensor_free(a);
    /* [2^62, 1] x [1, 1] aliasing fine */
    int64_t sb[2] = {BIG, 1}, ib[2] = {BIG - 1, 0}, s11[2] = {1, 1}, i11[2] = {0, 0};
    a = mk(SPT_FLOAT64, 2, sb, 1, ib, v);
    spt_tensor *b = mk(SPT_FLOAT64, 2, s11, 1, i11, v);
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    spt_test_expect_tensor(o, 2, sb, 1, ib, (double[]){4});
    spt_tensor_free(o);
    /* a^H a: [1, 2^62] x [2^62, 1] */
    ASSERT_OK(spt_sparse_sparse_matmul(a, a, true, false, false, &o));
    spt_test_expect_tensor(o, 2, s11, 1, i11, (double[]){4});
    spt_tensor_free(o);
    /* a a^H: [2^62, 2^62], a volume past int64 (the contract: SPT_EOVERFLOW) */
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EOVERFLOW, spt_sparse_sparse_matmul(a, a, false, true, false, &o), o);
    spt_tensor_free(b);
    spt_tensor_free(a);
    /* int32 products wrap; INT32_MIN * -1 = INT32_MIN */
    int32_t iv[1] = {INT32_MIN}, jv[1] = {-1};
    a = mk(SPT_INT32, 2, s11, 1, i11, iv);
    b = mk(SPT_INT32, 2, s11, 1, i11, jv);
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    spt_test_expect_tensor(o, 2, s11, 1, i11, (int32_t[]){INT32_MIN});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_multiply_subtract_alias_and_minval(void **state) {
    (void)state;
    int64_t shape[3] = {BIG, BIG, BIG}, ix[6] = {0, 0, 0, BIG - 1, BIG - 1, BIG - 1};
    int64_t v[2] = {INT64_MIN, -1};
    spt_tensor *t = mk(SPT_INT64, 3, shape, 2, ix, v), *o = NULL;
    ASSERT_OK(spt_multiply(t, t, &o));
    spt_test_expect_tensor(o, 3, shape, 2, ix, (int64_t[]){0, 1});
    spt_tensor_free(o);
    ASSERT_OK(spt_subtract(t, t, &o));
    spt_test_expect_tensor(o, 3, shape, 2, ix, (int64_t[]){0, 0});
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* subtract of INT8_MIN from nothing: -(-128) wraps to -128 */
    int64_t s1[1] = {2}, i1[1] = {1};
    int8_t bv[1] = {INT8_MIN};
    spt_tensor *a = mk(SPT_INT8, 1, s1, 0, NULL, NULL), *b = mk(SPT_INT8, 1, s1, 1, i1, bv);
    ASSERT_OK(spt_subtract(a, b, &o));
    spt_test_expect_tensor(o, 1, s1, 1, i1, bv);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_divide_dense_int_corners(void **state) {
    (void)state;
    int64_t s2[1] = {2}, ix[2] = {0, 1};
    int32_t v[2] = {INT32_MIN, 7};
    spt_tensor *t = mk(SPT_INT32, 1, s2, 2, ix, v), *o = SENTINEL_T;
    spt_dense *d = mkd(SPT_INT32, 1, s2, (int32_t[]){-1, -2});
    ASSERT_OK(spt_divide_dense(t, d, &o));
    spt_test_expect_tensor(o, 1, s2, 2, ix, (int32_t[]){INT32_MIN, -3});
    spt_tensor_free(o);
    spt_dense_free(d);
    d = mkd(SPT_INT32, 1, s2, (int32_t[]){3, 0});
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_divide_dense(t, d, &o), o);
    spt_dense_free(d);
    /* uint64: divisor 0 */
    spt_tensor_free(t);
}

/* A dense operand of volume 0 whose leading dims multiply past int64: broadcasting against a sparse
 * tensor of all-1 dims must not overflow while computing strides or repeat counts. */
static void test_bcast_zero_volume_dense_huge_dims(void **state) {
    (void)state;
    int64_t ds[3] = {BIG, BIG, 0};
    spt_dense *d = NULL;
    spt_status st = spt_dense_new(SPT_FLOAT64, 3, ds, &d);
    if (st != SPT_OK) {
        print_message("dense [2^62, 2^62, 0] refused (%s): nothing to test\n", spt_status_name(st));
        skip();
    }
    int64_t s3[3] = {1, 1, 1}, ix[3] = {0, 0, 0};
    double v[1] = {2};
    spt_tensor *t = mk(SPT_FLOAT64, 3, s3, 1, ix, v), *o = NULL;
    ASSERT_OK(spt_multiply_dense(t, d, &o));
    spt_test_expect_tensor(o, 3, ds, 0, NULL, NULL);
    spt_tensor_free(o);
    ASSERT_OK(spt_divide_dense(t, d, &o));
    spt_test_expect_tensor(o, 3, ds, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_dense_free(d);
    int64_t ds2[3] = {0, BIG, BIG};
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 3, ds2, &d));
    ASSERT_OK(spt_multiply_dense(t, d, &o));
    spt_test_expect_tensor(o, 3, ds2, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_bmm_mttkrp_ttv_ttm_extremes(void **state) {
    (void)state;
    int64_t s3[3] = {2, 2, 2}, ix[3] = {1, 1, 1};
    double v[1] = {3};
    spt_tensor *t = mk(SPT_FLOAT64, 3, s3, 1, ix, v), *so = SENTINEL_T;
    spt_dense *o = SENTINEL_D;
    int64_t s22[2] = {2, 2};
    spt_dense *m = mkd(SPT_FLOAT64, 2, s22, (double[]){1, 2, 3, 4});
    int64_t s2[1] = {2};
    spt_dense *vec = mkd(SPT_FLOAT64, 1, s2, (double[]){5, 7});
    /* modes */
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_ttv(t, vec, INT64_MIN, &so), so);
    so = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_ttv(t, vec, 3, &so), so);
    so = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_ttm(t, m, INT64_MIN, &so), so);
    so = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_ttm(t, m, -1, &so), so);
    const spt_dense *f[3] = {m, m, m};
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_mttkrp(t, f, 3, INT64_MIN, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_mttkrp(t, f, INT64_MIN, 0, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_mttkrp(t, f, 2, 0, &o), o);
    o = SENTINEL_D;
    const spt_dense *fnull[3] = {m, NULL, m};
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_mttkrp(t, fnull, 3, 0, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_mttkrp(t, NULL, 3, 0, &o), o);
    /* factors[mode] NULL is allowed */
    ASSERT_OK(spt_mttkrp(t, fnull, 3, 1, &o));
    /* out[1, r] = 3 * m[1, r] * m[1, r] = 3 * {9, 16} */
    double want[4] = {0, 0, 27, 48};
    assert_memory_equal(spt_dense_data(o), want, sizeof want);
    spt_dense_free(o);
    /* R = 0 factors */
    int64_t s20[2] = {2, 0};
    spt_dense *z = mkd(SPT_FLOAT64, 2, s20, NULL);
    const spt_dense *fz[3] = {z, z, z};
    ASSERT_OK(spt_mttkrp(t, fz, 3, 2, &o));
    assert_int_equal(spt_dense_size(o), 0);
    spt_dense_free(o);
    /* ttm with J = 0 */
    int64_t s02[2] = {0, 2};
    spt_dense *u0 = mkd(SPT_FLOAT64, 2, s02, NULL);
    ASSERT_OK(spt_ttm(t, u0, 0, &so));
    assert_int_equal(spt_tensor_nnz(so), 0);
    spt_tensor_free(so);
    spt_dense_free(u0);
    /* bmm: huge adjoint batch of shape mismatch */
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_sparse_dense_bmm(t, vec, false, false, &o), o);
    ASSERT_OK(spt_sparse_dense_bmm(t, m, true, true, &o));
    /* out[1] = a[1]^T m^T: a[1] has 3 at (1, 1); m^T row 1 = {2, 4} -> out[1, 1, :] = {6, 12} */
    double wb[8] = {0, 0, 0, 0, 0, 0, 6, 12};
    assert_memory_equal(spt_dense_data(o), wb, sizeof wb);
    spt_dense_free(o);
    spt_dense_free(z);
    spt_dense_free(vec);
    spt_dense_free(m);
    spt_tensor_free(t);
    /* bmm with P * M * N past int64 */
    int64_t sh[3] = {BIG, BIG, 1}, ih[3] = {0, 0, 0};
    t = mk(SPT_FLOAT64, 3, sh, 1, ih, v);
    int64_t s1b[2] = {1, BIG};
    spt_dense *wide = NULL;
    if (spt_dense_new(SPT_FLOAT64, 2, (int64_t[]){1, 0}, &wide) == SPT_OK) {
        spt_dense_free(wide);
    }
    (void)s1b;
    int64_t s11[2] = {1, 1};
    spt_dense *one = mkd(SPT_FLOAT64, 2, s11, (double[]){1});
    o = SENTINEL_D;
    spt_status st = spt_sparse_dense_bmm(t, one, false, false, &o);
    assert_true(st == SPT_EOVERFLOW || st == SPT_ENOMEM);
    assert_null(o);
    spt_dense_free(one);
    spt_tensor_free(t);
}

/* ---- gradient kernels ---- */

/* reduce_sum_grad over nothing on a zero-volume tensor whose other dims multiply past int64: the
 * out_grad strides must not overflow. */
static void test_reduce_sum_grad_zero_volume_huge_dims(void **state) {
    (void)state;
    int64_t shape[3] = {0, BIG, BIG}, axes[1] = {0};
    spt_tensor *t = mk(SPT_FLOAT64, 3, shape, 0, NULL, NULL);
    spt_dense *g = NULL, *o = SENTINEL_D;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 3, shape, &g));
    ASSERT_OK(spt_reduce_sum_grad(t, axes, 0, false, g, &o));
    assert_int_equal(spt_dense_size(o), 0);
    spt_dense_free(o);
    spt_dense_free(g);
    /* reducing dim 0 with keep_dims: out_grad [1, 2^62, 2^62] cannot exist; [0 ...] is refused */
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 3, shape, &g));
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_reduce_sum_grad(t, axes, 1, true, g, &o), o);
    o = SENTINEL_D;
    int64_t bad_axes[1] = {INT64_MIN};
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_reduce_sum_grad(t, bad_axes, 1, true, g, &o), o);
    o = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_reduce_sum_grad(t, axes, INT64_MIN, true, g, &o), o);
    spt_dense_free(g);
    spt_tensor_free(t);
}

static void test_grad_hostile_args(void **state) {
    (void)state;
    int64_t shape[2] = {2, 2}, ix[4] = {0, 0, 1, 1};
    double v[2] = {1, 2};
    spt_tensor *a = mk(SPT_FLOAT64, 2, shape, 2, ix, v);
    int64_t s2[1] = {2};
    spt_dense *g = mkd(SPT_FLOAT64, 1, s2, v), *ga = SENTINEL_D, *gb = SENTINEL_D;
    /* reverse_index_map with INT64_MIN / INT64_MAX */
    spt_dense *map = mkd(SPT_INT64, 1, s2, (int64_t[]){INT64_MIN, INT64_MAX});
    ASSERT_ST(SPT_ERANGE, spt_fill_empty_rows_grad(map, g, &ga, &gb));
    assert_null(ga);
    assert_null(gb);
    spt_dense_free(map);
    /* slice start INT64_MIN / INT64_MAX */
    int64_t st_min[2] = {INT64_MIN, 0}, st_max[2] = {INT64_MAX, INT64_MAX};
    ga = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_slice_grad(g, a, st_min, a, &ga), ga);
    ga = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_slice_grad(g, a, st_max, a, &ga), ga);
    /* a concat of the tensor with itself along INT64_MIN */
    const spt_tensor *ins[2] = {a, a};
    spt_dense *vg[2] = {SENTINEL_D, SENTINEL_D};
    int64_t s4[1] = {4};
    spt_dense *g4 = mkd(SPT_FLOAT64, 1, s4, (double[]){1, 2, 3, 4});
    ASSERT_ST(SPT_ERANGE, spt_concat_grad(ins, 2, INT64_MIN, false, g4, vg));
    assert_null(vg[0]);
    assert_null(vg[1]);
    /* concat along 1 of a with itself: output [[1,0,1,0],[0,2,0,2]] in row-major order:
     * (0,0)=a0 (0,2)=a'0 (1,1)=a1 (1,3)=a'1 -> grads {1,3} and {2,4} */
    ASSERT_OK(spt_concat_grad(ins, 2, -1, false, g4, vg));
    assert_memory_equal(spt_dense_data(vg[0]), ((double[]){1, 3}), 16);
    assert_memory_equal(spt_dense_data(vg[1]), ((double[]){2, 4}), 16);
    spt_dense_free(vg[0]);
    spt_dense_free(vg[1]);
    spt_dense_free(g4);
    /* max/min/multiply gradient with every operand the same tensor: c = a */
    ga = gb = SENTINEL_D;
    ASSERT_OK(spt_maximum_grad(a, a, a, g, &ga, &gb));
    assert_memory_equal(spt_dense_data(ga), v, 16);
    assert_memory_equal(spt_dense_data(gb), ((double[]){0, 0}), 16);
    spt_dense_free(ga);
    spt_dense_free(gb);
    ASSERT_OK(spt_multiply_grad(a, a, a, g, &ga, &gb));
    assert_memory_equal(spt_dense_data(ga), ((double[]){1, 4}), 16);
    spt_dense_free(ga);
    spt_dense_free(gb);
    /* both outputs NULL */
    int64_t s22[2] = {2, 2};
    spt_dense *b = mkd(SPT_FLOAT64, 2, s22, (double[]){1, 2, 3, 4});
    ASSERT_ST(SPT_EINVAL, spt_sparse_dense_matmul_grad(a, b, false, false, b, NULL, NULL));
    spt_dense_free(b);
    spt_dense_free(g);
    spt_tensor_free(a);
}

/* Batched SpGEMM whose output fits in int64 but whose operands' (batch, inner) space does not:
 * a [2^32, 1, 2^32] x b [2^32, 2^32, 1] -> [2^32, 1, 1]. Keying b's rows by batch * K + k overflowed. */
static void test_spgemm_batch_inner_space_past_int64(void **state) {
    (void)state;
    const int64_t P = INT64_C(1) << 32, K = INT64_C(1) << 32;
    int64_t sa[3] = {P, 1, K}, sb[3] = {P, K, 1}, ia[6] = {P - 1, 0, K - 1, 3, 0, 5},
            ib[6] = {P - 1, K - 1, 0, 3, 5, 0};
    double va[2] = {2, 3}, vb[2] = {5, 7};
    spt_tensor *a = mk(SPT_FLOAT64, 3, sa, 2, ia, va), *b = mk(SPT_FLOAT64, 3, sb, 2, ib, vb), *o = SENTINEL_T;
    spt_status st = spt_sparse_sparse_matmul(a, b, false, false, false, &o);
    if (st == SPT_OK) {
        int64_t es[3] = {P, 1, 1}, eix[6] = {3, 0, 0, P - 1, 0, 0};
        spt_test_expect_tensor(o, 3, es, 2, eix, (double[]){21, 10});
        spt_tensor_free(o);
    } else {
        ASSERT_ST(SPT_EOVERFLOW, st);
        assert_null(o);
    }
    /* without entries nothing is keyed: the empty product */
    spt_tensor *e = mk(SPT_FLOAT64, 3, sb, 0, NULL, NULL);
    ASSERT_OK(spt_sparse_sparse_matmul(a, e, false, false, false, &o));
    int64_t es0[3] = {P, 1, 1};
    spt_test_expect_tensor(o, 3, es0, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_tensor_free(e);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* ---- tensors whose volume exceeds int64 (the key engine accepts them) ---- */

static void test_past_int64_ttv_ttm_mttkrp(void **state) {
    (void)state;
    int64_t shape[3] = {BIG, BIG, 2}, ix[9] = {BIG - 1, 3, 1, BIG - 1, 3, 0, 0, 0, 1};
    double v[3] = {2, 5, 7};
    spt_tensor *t = mk(SPT_FLOAT64, 3, shape, 3, ix, v), *o = NULL;
    int64_t s2[1] = {2}, s12[2] = {1, 2};
    spt_dense *vec = mkd(SPT_FLOAT64, 1, s2, (double[]){10, 100}), *u = mkd(SPT_FLOAT64, 2, s12, (double[]){1, 1});
    ASSERT_OK(spt_ttv(t, vec, 2, &o));
    int64_t es[2] = {BIG, BIG}, eix[4] = {0, 0, BIG - 1, 3};
    spt_test_expect_tensor(o, 2, es, 2, eix, (double[]){700, 250});
    spt_tensor_free(o);
    /* ttm's sparse result may have any volume: [BIG, BIG, 1], one entry per fiber */
    ASSERT_OK(spt_ttm(t, u, 2, &o));
    int64_t ts[3] = {BIG, BIG, 1}, tix[6] = {0, 0, 0, BIG - 1, 3, 0};
    spt_test_expect_tensor(o, 3, ts, 2, tix, (double[]){7, 7});
    spt_tensor_free(o);
    /* mttkrp with R = 0: factors [2^62, 0] exist (volume 0) */
    int64_t sf[2] = {BIG, 0}, sf2[2] = {2, 0};
    spt_dense *f0 = mkd(SPT_FLOAT64, 2, sf, NULL), *f2 = mkd(SPT_FLOAT64, 2, sf2, NULL), *d = NULL;
    const spt_dense *fs[3] = {NULL, f0, f2};
    ASSERT_OK(spt_mttkrp(t, fs, 3, 0, &d));
    assert_int_equal(spt_dense_size(d), 0);
    assert_int_equal(spt_dense_shape(d)[0], BIG);
    spt_dense_free(d);
    spt_dense_free(f0);
    spt_dense_free(f2);
    spt_dense_free(vec);
    spt_dense_free(u);
    spt_tensor_free(t);
}

static void test_past_int64_tfsparse_ops(void **state) {
    (void)state;
    int64_t shape[3] = {BIG, BIG, BIG}, ix[6] = {BIG - 1, 0, BIG - 1, 0, BIG - 1, 0};
    int64_t v[2] = {3, 1};
    spt_tensor *t = mk(SPT_INT64, 3, shape, 2, ix, v), *o = NULL;
    /* expand_dims */
    ASSERT_OK(spt_expand_dims(t, 1, &o));
    int64_t es4[4] = {BIG, 1, BIG, BIG}, eix4[8] = {BIG - 1, 0, 0, BIG - 1, 0, 0, BIG - 1, 0};
    spt_test_expect_tensor(o, 4, es4, 2, eix4, v);
    spt_tensor_free(o);
    /* cast and map_values keep the indices */
    ASSERT_OK(spt_cast(t, SPT_INT8, &o));
    spt_test_expect_tensor(o, 3, shape, 2, ix, (int8_t[]){3, 1});
    spt_tensor_free(o);
    ASSERT_OK(spt_map_values(t, SPT_OP_NEGATIVE, &o));
    spt_test_expect_tensor(o, 3, shape, 2, ix, (int64_t[]){-3, -1});
    spt_tensor_free(o);
    /* bincount per row of dim 0: [2^62, 4] */
    ASSERT_OK(spt_bincount(t, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o));
    int64_t eb[2] = {BIG, 4}, ebix[4] = {0, 1, BIG - 1, 3};
    spt_test_expect_tensor(o, 2, eb, 2, ebix, (int64_t[]){1, 1});
    spt_tensor_free(o);
    /* serialize and back */
    void *buf = NULL;
    size_t len = 0;
    ASSERT_OK(spt_pack_sparse(t, &buf, &len));
    const void *d1[1] = {buf};
    size_t l1[1] = {len};
    ASSERT_OK(spt_unpack_many_sparse(d1, l1, 1, SPT_INT64, &o));
    int64_t esd[4] = {1, BIG, BIG, BIG}, esdix[8] = {0, BIG - 1, 0, BIG - 1, 0, 0, BIG - 1, 0};
    spt_test_expect_tensor(o, 4, esd, 2, esdix, v);
    spt_tensor_free(o);
    spt_bytes_free(buf);
    spt_tensor_free(t);
    /* cross of two [2^62, 2^62] sparse inputs */
    int64_t s2[2] = {BIG, BIG}, ix2[4] = {BIG - 1, BIG - 1, 0, 5};
    int64_t cv[2] = {42, -7};
    t = mk(SPT_INT64, 2, s2, 2, ix2, cv);
    spt_cross_input in[2] = {{t, NULL}, {t, NULL}};
    ASSERT_OK(spt_cross(in, 2, "x", 1, &o));
    assert_int_equal(spt_tensor_nnz(o), 2);
    assert_int_equal(spt_tensor_shape(o)[0], BIG);
    assert_int_equal(spt_tensor_shape(o)[1], 1);
    const int64_t *oi = spt_tensor_indices(o);
    assert_int_equal(oi[0], 0);
    assert_int_equal(oi[2], BIG - 1);
    const spt_str *sv = spt_tensor_values(o);
    assert_int_equal(sv[0].len, 5);
    assert_memory_equal(sv[0].data, "-7x-7", 5);
    assert_memory_equal(sv[1].data, "42x42", 5);
    spt_tensor_free(o);
    ASSERT_OK(spt_cross_hashed(in, 2, 10, SPT_CROSS_DEFAULT_HASH_KEY, &o));
    assert_int_equal(spt_tensor_nnz(o), 2);
    const int64_t *hv = spt_tensor_values(o);
    assert_true(hv[0] >= 0 && hv[0] < 10 && hv[1] >= 0 && hv[1] < 10);
    spt_tensor_free(o);
    spt_tensor_free(t);
    /* embedding lookup with sp_ids [2, 2^62, 2^62] */
    int64_t ps[2] = {2, 1}, sid[3] = {2, BIG, BIG}, iid[6] = {1, BIG - 1, 0, 1, 0, BIG - 1};
    float pv[2] = {10, 20};
    spt_dense *p = mkd(SPT_FLOAT32, 2, ps, pv), *e = NULL;
    const spt_dense *params[1] = {p};
    int64_t idv[2] = {1, 0};
    t = mk(SPT_INT64, 3, sid, 2, iid, idv);
    ASSERT_OK(spt_embedding_lookup_sparse(params, 1, t, NULL, SPT_COMBINER_SUM, &e));
    assert_int_equal(spt_dense_size(e), 2);
    float want[2] = {0, 30};
    assert_memory_equal(spt_dense_data(e), want, sizeof want);
    spt_dense_free(e);
    spt_dense_free(p);
    spt_tensor_free(t);
}

/* A dense cross input of [2^62, 0] (volume 0, so it exists) has no features: the cross is empty, and
 * must not visit 2^62 rows to find that out (it did: a hang). With a sparse input beside it, only the
 * sparse input's rows can cross. */
static void test_cross_dense_zero_columns_huge_batch(void **state) {
    (void)state;
    int64_t ds[2] = {BIG, 0};
    spt_dense *d = mkd(SPT_INT64, 2, ds, NULL);
    spt_tensor *o = NULL;
    spt_cross_input in1[1] = {{NULL, d}};
    ASSERT_OK(spt_cross(in1, 1, "_", 1, &o));
    spt_test_expect_tensor(o, 2, ds, 0, NULL, NULL);
    spt_tensor_free(o);
    ASSERT_OK(spt_cross_hashed(in1, 1, 0, 0, &o));
    spt_test_expect_tensor(o, 2, ds, 0, NULL, NULL);
    spt_tensor_free(o);
    /* with a sparse input: still empty */
    int64_t ss[2] = {BIG, 3}, ix[2] = {BIG - 1, 2};
    int64_t v[1] = {9};
    spt_tensor *t = mk(SPT_INT64, 2, ss, 1, ix, v);
    spt_cross_input in2[2] = {{NULL, d}, {t, NULL}};
    ASSERT_OK(spt_cross(in2, 2, "_", 1, &o));
    spt_test_expect_tensor(o, 2, ds, 0, NULL, NULL);
    spt_tensor_free(o);
    spt_dense_free(d);
    /* a dense [2^62, 1] cannot exist; a sparse [2^62, 3] beside a dense [1, 1] has another batch */
    int64_t d11[2] = {1, 1};
    d = mkd(SPT_INT64, 2, d11, (int64_t[]){4});
    spt_cross_input in3[2] = {{t, NULL}, {NULL, d}};
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_cross(in3, 2, "_", 1, &o), o);
    spt_dense_free(d);
    spt_tensor_free(t);
}

/* ---- the deserializer behind a valid checksum (a forger can compute Fingerprint64) ---- */

static size_t put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
    return 8;
}

/* header + body words + raw tail + checksum; returns the length */
static size_t forge(unsigned char *b, int dtype, uint64_t rank, uint64_t nnz, const uint64_t *words, size_t nw,
                    const void *tail, size_t ntail) {
    size_t k = 0;
    memcpy(b, "SPTS", 4);
    b[4] = 1;
    b[5] = 0;
    b[6] = (unsigned char)dtype;
    b[7] = 0;
    k = 8;
    k += put64(b + k, rank);
    k += put64(b + k, nnz);
    for (size_t i = 0; i < nw; i++) k += put64(b + k, words[i]);
    if (ntail) memcpy(b + k, tail, ntail);
    k += ntail;
    k += put64(b + k, spt_fingerprint64(b, k));
    return k;
}

static spt_status deser(const unsigned char *b, size_t len, spt_dtype dt, spt_tensor **o) {
    const void *d[1] = {b};
    size_t l[1] = {len};
    *o = SENTINEL_T;
    spt_status st = spt_unpack_many_sparse(d, l, 1, dt, o);
    if (st != SPT_OK) assert_null(*o);
    return st;
}

static void test_deserialize_forged(void **state) {
    (void)state;
    unsigned char b[512];
    spt_tensor *o;
    size_t len;
    /* a sanity check of the forger: [3] with one float64 entry 2.5 at 1 */
    double dv = 2.5;
    len = forge(b, SPT_FLOAT64, 1, 1, (uint64_t[]){3, 1}, 2, &dv, 8);
    ASSERT_OK(deser(b, len, SPT_FLOAT64, &o));
    int64_t es[2] = {1, 3}, eix[2] = {0, 1};
    spt_test_expect_tensor(o, 2, es, 1, eix, &dv);
    spt_tensor_free(o);
    /* index == dim */
    len = forge(b, SPT_FLOAT64, 1, 1, (uint64_t[]){3, 3}, 2, &dv, 8);
    ASSERT_ST(SPT_ERANGE, deser(b, len, SPT_FLOAT64, &o));
    /* index with the sign bit set */
    len = forge(b, SPT_FLOAT64, 1, 1, (uint64_t[]){3, UINT64_MAX}, 2, &dv, 8);
    ASSERT_ST(SPT_ERANGE, deser(b, len, SPT_FLOAT64, &o));
    /* a dim with the sign bit set */
    len = forge(b, SPT_FLOAT64, 1, 1, (uint64_t[]){UINT64_MAX, 0}, 2, &dv, 8);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_FLOAT64, &o));
    /* an entry in a zero-volume shape */
    len = forge(b, SPT_FLOAT64, 2, 1, (uint64_t[]){0, 5, 0, 0}, 4, &dv, 8);
    assert_int_not_equal(deser(b, len, SPT_FLOAT64, &o), SPT_OK);
    /* rank 65, rank 2^64-1 */
    len = forge(b, SPT_FLOAT64, 65, 0, NULL, 0, NULL, 0);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_FLOAT64, &o));
    len = forge(b, SPT_FLOAT64, UINT64_MAX, 0, NULL, 0, NULL, 0);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_FLOAT64, &o));
    /* nnz 2^61 (counts past size_t), nnz 2^64-1 */
    len = forge(b, SPT_FLOAT64, 1, UINT64_C(1) << 61, (uint64_t[]){3}, 1, NULL, 0);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_FLOAT64, &o));
    len = forge(b, SPT_FLOAT64, 0, UINT64_MAX, NULL, 0, NULL, 0);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_FLOAT64, &o));
    /* rank 0, nnz 2^60 of strings: lengths would need 2^63 bytes */
    len = forge(b, SPT_STRING, 0, UINT64_C(1) << 60, NULL, 0, NULL, 0);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_STRING, &o));
    /* strings: a length past the end, lengths summing past size_t, a short total */
    len = forge(b, SPT_STRING, 0, 2, (uint64_t[]){UINT64_MAX, 1}, 2, "ab", 2);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_STRING, &o));
    len = forge(b, SPT_STRING, 0, 2, (uint64_t[]){UINT64_MAX / 2 + 1, UINT64_MAX / 2 + 1}, 2, "ab", 2);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_STRING, &o));
    len = forge(b, SPT_STRING, 0, 2, (uint64_t[]){1, 2}, 2, "ab", 2);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_STRING, &o));
    /* two rank-0 strings "a" and "b" (a scalar repeated: valid structure) */
    len = forge(b, SPT_STRING, 0, 2, (uint64_t[]){1, 1}, 2, "ab", 2);
    ASSERT_OK(deser(b, len, SPT_STRING, &o));
    assert_int_equal(spt_tensor_nnz(o), 2);
    const spt_str *sv = spt_tensor_values(o);
    assert_int_equal(sv[1].len, 1);
    assert_memory_equal(sv[1].data, "b", 1);
    spt_tensor_free(o);
    /* bool byte 2 */
    unsigned char bb = 2;
    len = forge(b, SPT_BOOL, 0, 1, NULL, 0, &bb, 1);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_BOOL, &o));
    /* a dtype code past the list, and a dtype other than the one asked for */
    len = forge(b, 200, 0, 0, NULL, 0, NULL, 0);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_FLOAT64, &o));
    len = forge(b, SPT_INT8, 0, 0, NULL, 0, NULL, 0);
    ASSERT_ST(SPT_EDTYPE, deser(b, len, SPT_FLOAT64, &o));
    /* a trailing extra byte for a fixed-size dtype */
    unsigned char two[2] = {1, 2};
    len = forge(b, SPT_INT8, 0, 1, NULL, 0, two, 2);
    ASSERT_ST(SPT_EPARSE, deser(b, len, SPT_INT8, &o));
    /* items of different rank in one batch */
    unsigned char b2[128];
    size_t l0 = forge(b, SPT_INT8, 0, 0, NULL, 0, NULL, 0), l1 = forge(b2, SPT_INT8, 1, 0, (uint64_t[]){4}, 1, NULL, 0);
    const void *dd[2] = {b, b2};
    size_t ll[2] = {l0, l1};
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_unpack_many_sparse(dd, ll, 2, SPT_INT8, &o), o);
    /* a NULL item pointer with a length, and the lens array NULL */
    const void *dn[2] = {b, NULL};
    o = SENTINEL_T;
    assert_int_not_equal(spt_unpack_many_sparse(dn, ll, 2, SPT_INT8, &o), SPT_OK);
    assert_null(o);
    o = SENTINEL_T;
    assert_int_not_equal(spt_unpack_many_sparse(dd, NULL, 2, SPT_INT8, &o), SPT_OK);
    assert_null(o);
    o = SENTINEL_T;
    assert_int_not_equal(spt_unpack_many_sparse(NULL, ll, 2, SPT_INT8, &o), SPT_OK);
    assert_null(o);
}

/* ---- the output writer on hostile paths ---- */

static void test_writer_hostile_paths(void **state) {
    (void)state;
    char dir[] = "/tmp/spt_hostile_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p1[256], p2[256], p3[256];
    int64_t shape[1] = {3}, ix[1] = {1};
    double v[1] = {2};
    spt_tensor *t = mk(SPT_FLOAT64, 1, shape, 1, ix, v);
    /* NULL, empty, a directory, a path under a missing directory */
    assert_int_not_equal(spt_write_tns(t, NULL), SPT_OK);
    assert_int_not_equal(spt_write_tns(t, ""), SPT_OK);
    assert_int_not_equal(spt_write_tns(t, dir), SPT_OK);
    snprintf(p1, sizeof p1, "%s/missing/x.tns", dir);
    assert_int_not_equal(spt_write_tns(t, p1), SPT_OK);
    snprintf(p1, sizeof p1, "%s/", dir);
    assert_int_not_equal(spt_write_tns(t, p1), SPT_OK);
    /* a symlink loop a -> b -> a */
    snprintf(p1, sizeof p1, "%s/a", dir);
    snprintf(p2, sizeof p2, "%s/b", dir);
    assert_int_equal(symlink(p2, p1), 0);
    assert_int_equal(symlink(p1, p2), 0);
    assert_int_not_equal(spt_write_tns(t, p1), SPT_OK);
    /* a dangling relative link is followed and created */
    snprintf(p3, sizeof p3, "%s/c", dir);
    assert_int_equal(symlink("target.tns", p3), 0);
    ASSERT_OK(spt_write_tns(t, p3));
    char tgt[256];
    snprintf(tgt, sizeof tgt, "%s/target.tns", dir);
    spt_tensor *back = NULL;
    ASSERT_OK(spt_read_tns(tgt, NULL, &back));
    assert_int_equal(spt_tensor_nnz(back), 1);
    spt_tensor_free(back);
    /* a path longer than PATH_MAX */
    size_t L = 5000;
    char *longp = malloc(L + 1);
    assert_non_null(longp);
    memset(longp, 'a', L);
    longp[0] = '/';
    longp[L] = 0;
    assert_int_not_equal(spt_write_tns(t, longp), SPT_OK);
    free(longp);
    /* no temporary file is left behind */
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (e->d_name[1] == 0 || (e->d_name[1] == '.' && e->d_name[2] == 0))) continue;
        assert_true(strncmp(e->d_name, ".spt", 4) != 0);
        n++;
    }
    closedir(d);
    assert_int_equal(n, 4); /* a, b, c, target.tns */
    unlink(p1);
    unlink(p2);
    unlink(p3);
    unlink(tgt);
    rmdir(dir);
    spt_tensor_free(t);
}

/* ---- every op with every dtype (zero-filled operands of fitting shapes): OK, SPT_EDTYPE or SPT_EINVAL
 * (an integer division by zero), never a crash; an OK tensor output validates; a failure leaves NULL ---- */

#define ANY_ST(call, outp)                                                                                             \
    do {                                                                                                               \
        spt_status s_ = (call);                                                                                        \
        if (s_ != SPT_OK && s_ != SPT_EDTYPE && s_ != SPT_EINVAL)                                                      \
            print_error("%s: dtype %s: %s (%s)\n", #call, spt_dtype_name(dt), spt_status_name(s_), spt_last_error());  \
        assert_true(s_ == SPT_OK || s_ == SPT_EDTYPE || s_ == SPT_EINVAL);                                             \
        if (s_ != SPT_OK) assert_null(outp);                                                                           \
    } while (0)

static void test_every_dtype_every_op(void **state) {
    (void)state;
    for (int di = 0; di < SPT_NUM_DTYPES; di++) {
        const spt_dtype dt = (spt_dtype)di;
        int64_t s3[3] = {2, 3, 4}, s2[2] = {3, 4}, s1[1] = {4}, s23[2] = {2, 3};
        spt_tensor *t3 = NULL, *t2 = NULL, *o = NULL;
        ASSERT_OK(spt_tensor_alloc(dt, 3, s3, 3, &t3));
        ASSERT_OK(spt_tensor_alloc(dt, 2, s2, 2, &t2));
        spt_dense *d3 = NULL, *d2 = NULL, *d1 = NULL, *dm = NULL, *od = NULL, *u = NULL;
        ASSERT_OK(spt_dense_new(dt, 3, (int64_t[]){2, 4, 5}, &d3));
        ASSERT_OK(spt_dense_new(dt, 2, s2, &d2));
        ASSERT_OK(spt_dense_new(dt, 1, s1, &d1));
        ASSERT_OK(spt_dense_new(dt, 2, s23, &dm));
        ASSERT_OK(spt_dense_new(dt, 2, (int64_t[]){5, 4}, &u));
#define T_OUT(call)                                                                                                    \
    do {                                                                                                               \
        o = SENTINEL_T;                                                                                                \
        ANY_ST(call, o);                                                                                               \
        if (o) {                                                                                                       \
            ASSERT_OK(spt_validate(o));                                                                                \
            spt_tensor_free(o);                                                                                        \
        }                                                                                                              \
        o = NULL;                                                                                                      \
    } while (0)
#define D_OUT(call)                                                                                                    \
    do {                                                                                                               \
        od = SENTINEL_D;                                                                                               \
        ANY_ST(call, od);                                                                                              \
        spt_dense_free(od);                                                                                            \
        od = NULL;                                                                                                     \
    } while (0)
        for (int op = 0; op < SPT_NUM_UNARY_OPS; op++) T_OUT(spt_map_values(t3, (spt_unary_op)op, &o));
        for (int op = 0; op < 3; op++) T_OUT(spt_map_values2(t3, t3, (spt_binary_op)op, &o));
        for (int dj = 0; dj < SPT_NUM_DTYPES; dj++) T_OUT(spt_cast(t3, (spt_dtype)dj, &o));
        T_OUT(spt_multiply(t3, t3, &o));
        T_OUT(spt_subtract(t3, t3, &o));
        T_OUT(spt_multiply_dense(t2, d2, &o));
        T_OUT(spt_divide_dense(t2, d1, &o));
        T_OUT(spt_multiply_dense(t3, d1, &o));
        T_OUT(spt_sparse_sparse_matmul(t2, t2, true, false, true, &o));
        T_OUT(spt_sparse_sparse_matmul(t3, t3, false, true, false, &o));
        T_OUT(spt_ttv(t3, d1, 2, &o));
        T_OUT(spt_ttm(t3, u, 2, &o));
        T_OUT(spt_expand_dims(t3, -1, &o));
        T_OUT(spt_eye(3, 2, dt, &o));
        T_OUT(spt_bincount(t3, NULL, -1, 2, SPT_UNSET, false, &o));
        T_OUT(spt_bincount(t3, t3, 0, SPT_UNSET, SPT_UNSET, false, &o));
        T_OUT(spt_bincount(t3, NULL, 0, SPT_UNSET, 3, true, &o));
        T_OUT(spt_bincount_dense(d2, d2, -1, 1, SPT_UNSET, false, &o));
        spt_cross_input ci[2] = {{t2, NULL}, {NULL, d2}};
        T_OUT(spt_cross(ci, 2, "_", 1, &o));
        T_OUT(spt_cross_hashed(ci, 2, 7, 1, &o));
        D_OUT(spt_sparse_dense_bmm(t3, d3, false, false, &od));
        D_OUT(spt_sparse_dense_bmm(t3, u, false, true, &od));
        const spt_dense *f[3] = {dm, u, NULL};
        int64_t sf1[2] = {3, 5};
        spt_dense *f1 = NULL;
        ASSERT_OK(spt_dense_new(dt, 2, sf1, &f1));
        f[0] = NULL;
        f[1] = f1;
        spt_dense *f2 = NULL;
        ASSERT_OK(spt_dense_new(dt, 2, (int64_t[]){4, 5}, &f2));
        f[2] = f2;
        D_OUT(spt_mttkrp(t3, f, 3, 0, &od));
        spt_dense_free(f1);
        spt_dense_free(f2);
        spt_dense *ix = NULL;
        ASSERT_OK(spt_dense_new(SPT_INT32, 1, (int64_t[]){3}, &ix));
        D_OUT(spt_segment_sum(d2, ix, ix, 2, &od));
        D_OUT(spt_segment_mean(d2, ix, ix, SPT_UNSET, &od));
        D_OUT(spt_segment_sqrt_n(d2, ix, ix, 1, &od));
        spt_dense_free(ix);
        const spt_dense *params[1] = {d2};
        spt_tensor *ids = NULL;
        ASSERT_OK(spt_tensor_alloc(SPT_INT64, 2, s2, 2, &ids));
        D_OUT(spt_embedding_lookup_sparse(params, 1, ids, NULL, SPT_COMBINER_MEAN, &od));
        D_OUT(spt_embedding_lookup_sparse(params, 1, t2, NULL, SPT_COMBINER_SQRTN, &od));
        D_OUT(spt_safe_embedding_lookup_sparse(params, 1, ids, t2, SPT_COMBINER_SUM, 0, &od));
        spt_tensor_free(ids);
        void *buf = NULL;
        size_t len = 0;
        spt_status st = spt_pack_sparse(t3, &buf, &len);
        ASSERT_OK(st);
        const void *bb[1] = {buf};
        T_OUT(spt_unpack_many_sparse(bb, &len, 1, dt, &o));
        spt_bytes_free(buf);
        /* gradients */
        spt_dense *g3 = NULL, *ga = SENTINEL_D, *gb = SENTINEL_D;
        ASSERT_OK(spt_dense_new(dt, 1, (int64_t[]){3}, &g3));
        ANY_ST(spt_multiply_grad(t3, t3, t3, g3, &ga, &gb), ga);
        spt_dense_free(ga);
        spt_dense_free(gb);
        ga = gb = SENTINEL_D;
        ANY_ST(spt_maximum_grad(t3, t3, t3, g3, &ga, &gb), ga);
        spt_dense_free(ga);
        spt_dense_free(gb);
        ga = gb = SENTINEL_D;
        ANY_ST(spt_add_grad(t3, t3, t3, g3, &ga, &gb), ga);
        spt_dense_free(ga);
        spt_dense_free(gb);
        ga = SENTINEL_D;
        ANY_ST(spt_softmax_grad(t3, g3, &ga), ga);
        spt_dense_free(ga);
        ga = SENTINEL_D;
        int64_t axes[1] = {1};
        spt_dense *og = NULL;
        ASSERT_OK(spt_dense_new(dt, 2, (int64_t[]){2, 4}, &og));
        ANY_ST(spt_reduce_sum_grad(t3, axes, 1, false, og, &ga), ga);
        spt_dense_free(ga);
        spt_dense_free(og);
        spt_dense_free(g3);
        spt_dense_free(d3);
        spt_dense_free(d2);
        spt_dense_free(d1);
        spt_dense_free(dm);
        spt_dense_free(u);
        spt_tensor_free(t3);
        spt_tensor_free(t2);
#undef T_OUT
#undef D_OUT
    }
}

/* ---- the key engine: random shapes with huge dims (64-bit, 128-bit and wide keys), random orders,
 * duplicates; spt_reorder against a plain lexicographic check, entries kept as a multiset ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const int64_t *cmp_ord;
static int64_t cmp_rank;
static int cmp_rows(const int64_t *a, const int64_t *b) {
    for (int64_t k = 0; k < cmp_rank; k++) {
        int64_t d = cmp_ord[k];
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    }
    return 0;
}

static void test_key_engine_random_huge(void **state) {
    (void)state;
    static const int64_t dimset[] = {1, 2, 3, 1000, INT64_C(1) << 31, INT64_C(1) << 33, BIG, INT64_MAX};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + (int64_t)(rnd() % (iter % 10 == 9 ? SPT_MAX_RANK : 8));
        int64_t shape[SPT_MAX_RANK], order[SPT_MAX_RANK];
        for (int64_t d = 0; d < r; d++) shape[d] = dimset[rnd() % 8];
        int64_t n = (int64_t)(rnd() % 200);
        int64_t *ix = malloc((size_t)(n * r + 1) * sizeof(int64_t));
        int64_t *v = malloc((size_t)(n + 1) * sizeof(int64_t));
        assert_non_null(ix);
        assert_non_null(v);
        for (int64_t i = 0; i < n; i++) {
            bool dup = i > 0 && rnd() % 4 == 0;
            for (int64_t d = 0; d < r; d++) {
                uint64_t x = rnd();
                int64_t m = shape[d];
                int64_t val = x % 3 == 0 ? m - 1 : x % 3 == 1 ? 0 : (int64_t)((x >> 2) % (uint64_t)m);
                ix[i * r + d] = dup ? ix[(i - 1) * r + d] : val;
            }
            v[i] = i;
        }
        /* a random order (permutation) */
        for (int64_t d = 0; d < r; d++) order[d] = d;
        for (int64_t d = r - 1; d > 0; d--) {
            int64_t j = (int64_t)(rnd() % (uint64_t)(d + 1)), tmp = order[d];
            order[d] = order[j];
            order[j] = tmp;
        }
        spt_tensor *t = mk(SPT_INT64, r, shape, n, ix, v);
        ASSERT_OK(spt_reorder(t, order));
        const int64_t *oi = spt_tensor_indices(t);
        const int64_t *ov = spt_tensor_values(t);
        cmp_ord = order;
        cmp_rank = r;
        char *seen = calloc((size_t)n + 1, 1);
        assert_non_null(seen);
        for (int64_t i = 0; i < n; i++) {
            if (i) {
                int c = cmp_rows(oi + (i - 1) * r, oi + i * r);
                assert_true(c < 0 || (c == 0 && ov[i - 1] < ov[i])); /* sorted and stable */
            }
            assert_true(ov[i] >= 0 && ov[i] < n && !seen[ov[i]]);
            seen[ov[i]] = 1;
            assert_memory_equal(oi + i * r, ix + ov[i] * r, (size_t)r * sizeof(int64_t));
        }
        free(seen);
        spt_tensor_free(t);
        free(ix);
        free(v);
    }
}

/* SpGEMM's hash accumulator on structured columns: a row of 20000 products landing on columns k * 2^44
 * (each twice: duplicates sum). The old multiplicative hash kept the middle bits of c * phi, all zero
 * for these columns, so every product probed one chain (quadratic: 1.15 s vs 0.013 s for unstructured
 * columns under ASan; 200000 products would take minutes); a mixed, seeded hash spreads them. */
static void test_spgemm_hash_structured_columns(void **state) {
    (void)state;
    const int64_t w = 20000;
    int64_t sa[2] = {1, w}, sb[2] = {w, BIG};
    int64_t *ia = malloc(sizeof(int64_t) * 2 * (size_t)w), *ib = malloc(sizeof(int64_t) * 4 * (size_t)w);
    double *va = malloc(sizeof(double) * (size_t)w), *vb = malloc(sizeof(double) * 2 * (size_t)w);
    assert_true(ia && ib && va && vb);
    for (int64_t k = 0; k < w; k++) {
        ia[2 * k] = 0;
        ia[2 * k + 1] = k;
        va[k] = (double)(k + 1);
        for (int j = 0; j < 2; j++) {
            int64_t e = 2 * k + j;
            ib[2 * e] = k;
            ib[2 * e + 1] = (w - 1 - k) << 44;
            vb[e] = j ? 0.5 : 1.5;
        }
    }
    spt_tensor *a = mk(SPT_FLOAT64, 2, sa, w, ia, va), *b = mk(SPT_FLOAT64, 2, sb, 2 * w, ib, vb), *o = NULL;
    ASSERT_OK(spt_sparse_sparse_matmul(a, b, false, false, false, &o));
    assert_int_equal(spt_tensor_nnz(o), w);
    const int64_t *oi = spt_tensor_indices(o);
    const double *ov = spt_tensor_values(o);
    for (int64_t q = 0; q < w; q++) { /* column q << 44 comes from k = w - 1 - q: value (k + 1) * 2 */
        assert_int_equal(oi[2 * q], 0);
        assert_int_equal(oi[2 * q + 1], q << 44);
        assert_true(ov[q] == (double)(w - q) * 2.0);
    }
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(ia);
    free(ib);
    free(va);
    free(vb);
}

/* ---- assorted argument checks ---- */

static void test_assorted_argument_checks(void **state) {
    (void)state;
    spt_tensor *o = SENTINEL_T;
    spt_dense *od = SENTINEL_D;
    /* bincount_dense: rank 3 per row, rank 0 */
    int64_t s3[3] = {2, 2, 2};
    spt_dense *d3 = mkd(SPT_INT32, 3, s3, NULL), *d0 = mkd(SPT_INT32, 0, NULL, (int32_t[]){4});
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_bincount_dense(d3, NULL, -1, SPT_UNSET, SPT_UNSET, false, &o), o);
    o = SENTINEL_T;
    ASSERT_OK(spt_bincount_dense(d0, NULL, 0, SPT_UNSET, SPT_UNSET, false, &o));
    int64_t es[1] = {5}, eix[1] = {4};
    spt_test_expect_tensor(o, 1, es, 1, eix, (int32_t[]){1});
    spt_tensor_free(o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_bincount_dense(d3, d0, 0, SPT_UNSET, SPT_UNSET, false, &o), o);
    o = SENTINEL_T;
    /* weights together with binary_output */
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_bincount_dense(d3, d3, 0, SPT_UNSET, SPT_UNSET, true, &o), o);
    spt_dense_free(d3);
    spt_dense_free(d0);
    /* map_values2 with the same count but other indices / other shape */
    int64_t s4[1] = {4}, s5[1] = {5}, i1[2] = {0, 1}, i2[2] = {0, 2};
    float v[2] = {1, 2};
    spt_tensor *a = mk(SPT_FLOAT32, 1, s4, 2, i1, v), *b = mk(SPT_FLOAT32, 1, s4, 2, i2, v),
               *c = mk(SPT_FLOAT32, 1, s5, 2, i1, v);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_map_values2(a, b, SPT_OP_ADD, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_map_values2(a, c, SPT_OP_ADD, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_multiply(a, c, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_subtract(a, c, &o), o);
    /* ttv with a vector of another length; ttm with a rank-1 matrix */
    spt_dense *v5 = mkd(SPT_FLOAT32, 1, s5, NULL);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_ttv(a, v5, 0, &o), o);
    o = SENTINEL_T;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_ttm(a, v5, 0, &o), o);
    /* mttkrp: a factor with the wrong row count or another R */
    int64_t s2[2] = {2, 2}, ix2[2] = {1, 1};
    spt_tensor *m = mk(SPT_FLOAT32, 2, s2, 1, ix2, v);
    int64_t f3[2] = {3, 2};
    spt_dense *fbad = mkd(SPT_FLOAT32, 2, f3, NULL);
    const spt_dense *fs[2] = {NULL, fbad};
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_mttkrp(m, fs, 2, 0, &od), od);
    /* mttkrp with a rank-1 tensor */
    od = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_EINVAL, spt_mttkrp(a, fs, 1, 0, &od), od);
    spt_dense_free(fbad);
    spt_tensor_free(m);
    spt_dense_free(v5);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(c);
    /* safe embedding: NaN and negative weights prune; default_id past the table */
    int64_t ps[2] = {3, 1};
    double pv[3] = {10, 20, 30};
    spt_dense *p = mkd(SPT_FLOAT64, 2, ps, pv);
    const spt_dense *params[1] = {p};
    int64_t sh[2] = {2, 2}, ix[4] = {0, 0, 1, 0};
    int64_t ids_v[2] = {1, 2};
    double wv[2] = {NAN, -1};
    spt_tensor *ids = mk(SPT_INT64, 2, sh, 2, ix, ids_v), *w = mk(SPT_FLOAT64, 2, sh, 2, ix, wv);
    od = SENTINEL_D;
    ASSERT_FAIL_NULL(SPT_ERANGE, spt_safe_embedding_lookup_sparse(params, 1, ids, w, SPT_COMBINER_MEAN, 3, &od), od);
    ASSERT_OK(spt_safe_embedding_lookup_sparse(params, 1, ids, w, SPT_COMBINER_MEAN, 0, &od));
    double want[2] = {10, 10};
    assert_memory_equal(spt_dense_data(od), want, sizeof want);
    spt_dense_free(od);
    /* non-safe: NaN weight propagates, -1 weight mean over sum -1 */
    ASSERT_OK(spt_embedding_lookup_sparse(params, 1, ids, w, SPT_COMBINER_SUM, &od));
    const double *r = spt_dense_data(od);
    assert_true(isnan(r[0]));
    assert_true(r[1] == -30);
    spt_dense_free(od);
    spt_tensor_free(ids);
    spt_tensor_free(w);
    spt_dense_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand_dims_extreme_axes),
        cmocka_unit_test(test_eye_extremes),
        cmocka_unit_test(test_map_values_bad_ops),
        cmocka_unit_test(test_segment_extremes),
        cmocka_unit_test(test_bincount_extremes),
        cmocka_unit_test(test_cross_extremes),
        cmocka_unit_test(test_embedding_extremes),
        cmocka_unit_test(test_deserialize_garbage),
        cmocka_unit_test(test_serialize_many_huge_batch),
        cmocka_unit_test(test_spgemm_extremes),
        cmocka_unit_test(test_multiply_subtract_alias_and_minval),
        cmocka_unit_test(test_divide_dense_int_corners),
        cmocka_unit_test(test_bcast_zero_volume_dense_huge_dims),
        cmocka_unit_test(test_bmm_mttkrp_ttv_ttm_extremes),
        cmocka_unit_test(test_reduce_sum_grad_zero_volume_huge_dims),
        cmocka_unit_test(test_grad_hostile_args),
        cmocka_unit_test(test_spgemm_batch_inner_space_past_int64),
        cmocka_unit_test(test_past_int64_ttv_ttm_mttkrp),
        cmocka_unit_test(test_past_int64_tfsparse_ops),
        cmocka_unit_test(test_cross_dense_zero_columns_huge_batch),
        cmocka_unit_test(test_deserialize_forged),
        cmocka_unit_test(test_writer_hostile_paths),
        cmocka_unit_test(test_every_dtype_every_op),
        cmocka_unit_test(test_key_engine_random_huge),
        cmocka_unit_test(test_spgemm_hash_structured_columns),
        cmocka_unit_test(test_assorted_argument_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
