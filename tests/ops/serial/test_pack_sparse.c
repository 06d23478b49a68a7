/* SPDX-License-Identifier: Apache-2.0 */
/* test_pack_sparse.c -- spt's own packed form: round trips of every dtype, rank 0 and empty
 * tensors, pack_many / unpack_many, batches of different shapes, and a reader that rejects
 * every damaged or forged input cleanly (each byte flipped, every truncation, counts forged under a
 * valid checksum, an index outside the shape). */
#include "../tfsparse_test_util.h"

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
/* Re-seal a forged buffer: a fresh checksum over everything before the trailer. */
static void reseal(unsigned char *b, size_t len) { put64(b + len - 8, spt_fingerprint64(b, len - 8)); }

static spt_tensor *roundtrip(const spt_tensor *t) {
    void *buf;
    size_t len;
    ASSERT_OK(spt_pack_sparse(t, &buf, &len));
    const void *const bufs[1] = {buf};
    spt_tensor *back;
    ASSERT_OK(spt_unpack_sparse(bufs, &len, 0, NULL, spt_tensor_dtype(t), &back));
    spt_bytes_free(buf);
    return back;
}

static void test_roundtrip_all_dtypes(void **state) {
    (void)state;
    int64_t s[2] = {5, 6}, ix[6] = {4, 5, 0, 0, 1, 3};
    double src[3] = {1.5, -2, 7};
    spt_tensor *f;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s, 3, ix, src, NULL, &f));
    for (int dt = 0; dt < SPT_NUM_DTYPES; dt++) {
        if (dt == SPT_STRING) continue;
        spt_tensor *t, *b;
        ASSERT_OK(spt_cast(f, (spt_dtype)dt, &t));
        b = roundtrip(t);
        spt_test_expect_tensor(b, 2, s, 3, ix, spt_tensor_values(t));
        assert_int_equal(spt_tensor_dtype(b), dt);
        assert_true(spt_tensor_known_valid(b));
        spt_tensor_free(b);
        spt_tensor_free(t);
    }
    spt_tensor_free(f);
    spt_str sv[3] = {{"", 0}, {"a\0b", 3}, {"hello", 5}};
    spt_tensor *t, *b;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 3, ix, sv, NULL, &t));
    b = roundtrip(t);
    spt_tensor_free(t); /* the result owns its bytes */
    spt_test_expect_tensor(b, 2, s, 3, ix, sv);
    spt_tensor_free(b);
    /* rank 0 and no entries */
    int32_t v = 37;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 0, NULL, 1, NULL, &v, NULL, &t));
    b = roundtrip(t);
    spt_test_expect_tensor(b, 0, NULL, 1, NULL, &v);
    spt_tensor_free(b);
    spt_tensor_free(t);
    int64_t s3[2] = {3, 4};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, s3, 0, NULL, NULL, NULL, &t));
    b = roundtrip(t);
    spt_test_expect_tensor(b, 2, s3, 0, NULL, NULL);
    spt_tensor_free(b);
    spt_tensor_free(t);
}

static void test_many_and_batches(void **state) {
    (void)state;
    int64_t s[3] = {3, 5, 6}, ix[12] = {2, 1, 1, 0, 0, 0, 2, 0, 5, 0, 4, 4};
    int64_t v[4] = {10, 20, 30, 40};
    spt_tensor *t, *back;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 3, s, 4, ix, v, NULL, &t));
    void **bufs;
    size_t *lens;
    int64_t n;
    ASSERT_OK(spt_pack_many_sparse(t, &bufs, &lens, &n));
    assert_int_equal(n, 3);
    ASSERT_OK(spt_unpack_many_sparse((const void *const *)bufs, lens, n, SPT_INT64, &back));
    /* grouped by row, storage order within a row */
    int64_t wi[12] = {0, 0, 0, 0, 4, 4, 2, 1, 1, 2, 0, 5};
    int64_t wv[4] = {20, 40, 10, 30};
    spt_test_expect_tensor(back, 3, s, 4, wi, wv);
    spt_tensor_free(back);
    /* a [3] batch as [1, 3]: one more leading dim of size 1 */
    int64_t bs[2] = {1, 3};
    ASSERT_OK(spt_unpack_sparse((const void *const *)bufs, lens, 2, bs, SPT_INT64, &back));
    assert_int_equal(spt_tensor_rank(back), 4);
    assert_int_equal(spt_tensor_shape(back)[0], 1);
    spt_tensor_free(back);
    ASSERT_ST(SPT_EDTYPE, spt_unpack_many_sparse((const void *const *)bufs, lens, n, SPT_INT32, &back));
    ASSERT_MSG("requested a SparseTensor of type int32 but serialized[0] holds int64");
    assert_null(back);
    ASSERT_ST(SPT_EINVAL, spt_unpack_many_sparse((const void *const *)bufs, lens, 0, SPT_INT64, &back));
    ASSERT_ST(SPT_EINVAL, spt_unpack_many_sparse((const void *const *)bufs, lens, -1, SPT_INT64, &back));
    spt_packed_free(bufs, lens, n);
    /* items of different shapes and ranks */
    int64_t sa[2] = {5, 6}, sb[2] = {3, 9}, ia[2] = {4, 5}, ib[2] = {2, 8}, s1[1] = {5};
    spt_tensor *a, *b, *r1;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, sa, 1, ia, v, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, sb, 1, ib, v + 1, NULL, &b));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, s1, 1, ia, v, NULL, &r1));
    void *ba[3];
    size_t la[3];
    ASSERT_OK(spt_pack_sparse(a, &ba[0], &la[0]));
    ASSERT_OK(spt_pack_sparse(b, &ba[1], &la[1]));
    ASSERT_OK(spt_pack_sparse(r1, &ba[2], &la[2]));
    ASSERT_OK(spt_unpack_many_sparse((const void *const *)ba, la, 2, SPT_INT64, &back));
    int64_t ws[3] = {2, 5, 9}, wix[6] = {0, 4, 5, 1, 2, 8};
    spt_test_expect_tensor(back, 3, ws, 2, wix, v);
    assert_true(spt_tensor_is_row_major(back, true));
    spt_tensor_free(back);
    const void *mixed[2] = {ba[0], ba[2]};
    size_t lm[2] = {la[0], la[2]};
    ASSERT_ST(SPT_EINVAL, spt_unpack_many_sparse(mixed, lm, 2, SPT_INT64, &back));
    ASSERT_MSG("Inconsistent shape across SparseTensors");
    for (int k = 0; k < 3; k++) spt_bytes_free(ba[k]);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(r1);
    ASSERT_ST(SPT_EINVAL, spt_pack_many_sparse(t, NULL, &lens, &n));
    spt_tensor_free(t);
    int64_t one[1] = {3};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, one, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_pack_many_sparse(t, &bufs, &lens, &n));
    ASSERT_MSG("should be > 1");
    spt_tensor_free(t);
}

static spt_status read1(const void *b, size_t len, spt_dtype dt, spt_tensor **out) {
    const void *const bufs[1] = {b};
    return spt_unpack_sparse(bufs, &len, 0, NULL, dt, out);
}

static void test_damaged(void **state) {
    (void)state;
    int64_t s[2] = {5, 6}, ix[4] = {4, 5, 0, 1};
    spt_str sv[2] = {{"abc", 3}, {"de", 2}};
    spt_tensor *t, *o;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 2, ix, sv, NULL, &t));
    void *buf;
    size_t len;
    ASSERT_OK(spt_pack_sparse(t, &buf, &len));
    spt_tensor_free(t);
    assert_int_equal(len, 24 + 16 + 32 + 16 + 5 + 8);
    unsigned char *b = malloc(len);
    /* every single-bit flip of every byte is caught */
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(b, buf, len);
            b[i] ^= (unsigned char)(1u << bit);
            o = (spt_tensor *)1;
            spt_status st = read1(b, len, SPT_STRING, &o);
            assert_int_not_equal(st, SPT_OK);
            assert_null(o);
        }
    /* every truncation */
    for (size_t l = 0; l < len; l++) assert_int_not_equal(read1(buf, l, SPT_STRING, &o), SPT_OK);
    /* forged fields under a valid checksum */
    struct {
        size_t off;
        uint64_t v;
        int width;
        spt_status want;
        const char *msg;
    } forge[] = {
        {4, 2, 2, SPT_EPARSE, "version 2"},
        {6, 99, 1, SPT_EPARSE, "dtype code 99"},
        {7, 1, 1, SPT_EPARSE, "reserved byte"},
        {8, 65, 8, SPT_EPARSE, "rank 65"},
        {8, 3, 8, SPT_EPARSE, "need"},
        {16, UINT64_C(1) << 62, 8, SPT_EPARSE, "more than size_t"},
        {16, UINT64_MAX, 8, SPT_EPARSE, "entry count"},
        {24, UINT64_MAX, 8, SPT_EPARSE, "negative"},
        {40, 5, 8, SPT_ERANGE, "indices[0][0] = 5 is outside"},
        {72, 4, 8, SPT_EPARSE, "string"},
        {72, UINT64_MAX, 8, SPT_EPARSE, "runs past the end"},
    };
    for (size_t k = 0; k < sizeof forge / sizeof forge[0]; k++) {
        memcpy(b, buf, len);
        for (int i = 0; i < forge[k].width; i++) b[forge[k].off + (size_t)i] = (unsigned char)(forge[k].v >> (8 * i));
        reseal(b, len);
        o = (spt_tensor *)1;
        ASSERT_ST(forge[k].want, read1(b, len, SPT_STRING, &o));
        assert_null(o);
        if (!strstr(spt_last_error(), forge[k].msg))
            fail_msg("forge %zu: \"%s\" lacks \"%s\"", k, spt_last_error(), forge[k].msg);
    }
    memcpy(b, buf, len);
    b[0] = 'X';
    reseal(b, len);
    ASSERT_ST(SPT_EPARSE, read1(b, len, SPT_STRING, &o));
    ASSERT_MSG("bad magic");
    ASSERT_ST(SPT_EINVAL, read1(NULL, 10, SPT_STRING, &o));
    free(b);
    spt_bytes_free(buf);
    /* a bool byte other than 0 / 1 */
    bool bv = true;
    ASSERT_OK(spt_tensor_new(SPT_BOOL, 2, s, 1, ix, &bv, NULL, &t));
    ASSERT_OK(spt_pack_sparse(t, &buf, &len));
    spt_tensor_free(t);
    ((unsigned char *)buf)[24 + 16 + 16] = 2;
    reseal(buf, len);
    ASSERT_ST(SPT_EPARSE, read1(buf, len, SPT_BOOL, &o));
    ASSERT_MSG("bool value 0 is byte 2");
    spt_bytes_free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_dtypes),
        cmocka_unit_test(test_many_and_batches),
        cmocka_unit_test(test_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
