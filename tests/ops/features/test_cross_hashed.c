/* SPDX-License-Identifier: Apache-2.0 */
/* test_cross_hashed.c -- tf.sparse.cross_hashed bit-exact with TensorFlow's tests, and spt_fingerprint64
 * against FarmHash's published Fingerprint64 values (every length branch, including the long-input
 * loop, through the multiple-lengths check of Guava's FarmHashFingerprint64Test). */
#ifndef SPT_CONFORMANCE
#include "../tfsparse_test_util.h"

static void test_fingerprint64(void **state) {
    (void)state;
    static const struct {
        const char *s;
        uint64_t v;
    } known[] = {
        {"", UINT64_C(11160318154034397263)},
        {"Q", UINT64_C(13816109650407654260)},
        {",=", UINT64_C(1326014594494455617)},
        {"WW5", UINT64_C(6316074107149058620)},
        {"test", UINT64_C(8581389452482819506)},
        {")D<l91", UINT64_C(6440615040757739207)},
        {"P9|0-Xg", UINT64_C(15614415556471156694)},
        {"#cDR^sLO", UINT64_C(328147020574120176)},
        {"wE,gHSvhK Jv=KR#(R |!%vctTJ0fx)", UINT64_C(413905253809041649)},
        {"ECCD828C-5D7A-4C8B-9A1B-F244747E96C3", UINT64_C(9693850515132481856)},
        {"F7479877-4690-4A44-AFC9-8FE987EA512F:some_other_id", UINT64_C(6862335115798125349)},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        assert_true(spt_fingerprint64(known[i].s, strlen(known[i].s)) == known[i].v);
    char b[257] = "";
    for (int i = 0; i < 64; i++) strcat(b, "test");
    assert_true((int64_t)spt_fingerprint64(b, 32) == INT64_C(-4196240717365766262));
    assert_true(spt_fingerprint64(b, 256) == UINT64_C(3500507768004279527));
    /* every length 0 .. 3199 over pseudo-random bytes, folded into one value */
    static unsigned char buf[3200];
    size_t n = 0;
    uint64_t h = 0;
#define REMIX(x) ((x) ^= (x) >> 41, (x) *= 949921979u)
#define NEXT_CHAR(x) ((unsigned char)('a' + ((x)&0xfffff) % 26))
    for (size_t i = 0; i < 800; i++) {
        h ^= spt_fingerprint64(buf, i), REMIX(h), buf[n++] = NEXT_CHAR(h);
        h ^= spt_fingerprint64(buf, i * i % n), REMIX(h), buf[n++] = NEXT_CHAR(h);
        h ^= spt_fingerprint64(buf, i * i * i % n), REMIX(h), buf[n++] = NEXT_CHAR(h);
        h ^= spt_fingerprint64(buf, n), REMIX(h), buf[n++] = NEXT_CHAR(h);
        size_t x0 = buf[n - 1], x1 = buf[n - 2], x2 = buf[n - 3], x3 = buf[n / 2];
        buf[((x0 << 16) + (x1 << 8) + x2) % n] ^= (unsigned char)x3;
        buf[((x1 << 16) + (x2 << 8) + x3) % n] ^= (unsigned char)(i % 256);
    }
    assert_true(h == UINT64_C(0x7a1d67c50ec7e167));
    /* FingerprintCat64 is order-dependent */
    assert_true(spt_fingerprint_cat64(1, 2) != spt_fingerprint_cat64(2, 1));
}

/* sparse_cross_op_test.py: test_hashed_zero_bucket_no_hash_key, test_hashed_zero_bucket,
 * test_hashed_no_hash_key, test_hashed_output. */
static void test_tf_values(void **state) {
    (void)state;
    const char *f[3] = {"batch1-FC1-F1", "batch1-FC2-F1", "batch1-FC3-F1"};
    spt_tensor *t[3];
    spt_cross_input in[3];
    int64_t s[2] = {1, 1}, ix[2] = {0, 0};
    for (int i = 0; i < 3; i++) {
        spt_str v = {f[i], (int64_t)strlen(f[i])};
        ASSERT_OK(spt_tensor_new(SPT_STRING, 2, s, 1, ix, &v, NULL, &t[i]));
        in[i] = (spt_cross_input){t[i], NULL};
    }
    const struct {
        int64_t buckets;
        uint64_t key;
        int64_t want;
    } cases[4] = {{0, SPT_CROSS_DEFAULT_HASH_KEY, INT64_C(1971693436396284976)},
                  {0, UINT64_C(956888297471), INT64_C(4847552627144134031)},
                  {100, SPT_CROSS_DEFAULT_HASH_KEY, 83},
                  {100, UINT64_C(956888297471), 31}};
    for (int k = 0; k < 4; k++) {
        spt_tensor *o;
        ASSERT_OK(spt_cross_hashed(in, 3, cases[k].buckets, cases[k].key, &o));
        assert_int_equal(spt_tensor_dtype(o), SPT_INT64);
        assert_int_equal(spt_tensor_nnz(o), 1);
        assert_true(((const int64_t *)spt_tensor_values(o))[0] == cases[k].want);
        spt_tensor_free(o);
    }
    spt_tensor *o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_cross_hashed(in, 3, -1, 0, &o));
    assert_null(o);
    ASSERT_MSG("num_buckets must be >= 0");
    for (int i = 0; i < 3; i++) spt_tensor_free(t[i]);
}

/* Integer features hash as their own 64 bits: a cross of [7] and ["a"] is cat(cat(key, 7), fp("a")). */
static void test_int_feature(void **state) {
    (void)state;
    int64_t ds[2] = {1, 1}, seven = 7;
    spt_dense *a = tt_dense(SPT_INT64, 2, ds, &seven);
    spt_str sv = {"a", 1};
    spt_dense *b = tt_dense(SPT_STRING, 2, ds, &sv);
    spt_cross_input in[2] = {{NULL, a}, {NULL, b}};
    spt_tensor *o;
    ASSERT_OK(spt_cross_hashed(in, 2, 0, 5, &o));
    uint64_t h = spt_fingerprint_cat64(spt_fingerprint_cat64(5, 7), spt_fingerprint64("a", 1));
    assert_true(((const int64_t *)spt_tensor_values(o))[0] == (int64_t)(h % (uint64_t)INT64_MAX));
    spt_tensor_free(o);
    spt_dense_free(a);
    spt_dense_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fingerprint64),
        cmocka_unit_test(test_tf_values),
        cmocka_unit_test(test_int_feature),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>
#include <string.h>

static conf_result cross_hashed(const conf_case *c) { return conf_cross_common(c, true); }

CONF_HANDLERS(test_cross_hashed, {"sparse_cross_hashed", cross_hashed, CONF_OP(spt_cross_hashed)})
#endif
