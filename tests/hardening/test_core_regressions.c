/* SPDX-License-Identifier: Apache-2.0 */
/* test_core_regressions.c -- regressions for findings in the core (fixed here, in src/):
 *   C1  src/sort.c make_packing: a dim of size 1 before dims whose bit widths fill all 64 key bits got
 *       shift 64 (undefined shift; UBSan: "shift exponent 64") -- shape [1, 2^31+1, 2^31+1].
 * and a property test of spt_reorder's packed-key paths against a stable reference sort at sizes the
 * fuzzers do not reach (n >= 65536 takes the hybrid MSD path), with key widths up to 64 bits, 8-byte,
 * 2-byte and 16-byte values, every dim order, 1 and 2 threads. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_C1_shift_64_with_a_unit_dim(void **state) {
    (void)state;
    const int64_t B = 2147483649LL; /* 32 bits each: 0 + 32 + 32 = 64 */
    int64_t shape[3] = {1, B, B}, ix[9] = {0, 5, 7, 0, 1, 2, 0, B - 1, 0};
    double v[3] = {1, 2, 3};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t want_ix[9] = {0, 1, 2, 0, 5, 7, 0, B - 1, 0};
    double want_v[3] = {2, 1, 3};
    spt_test_expect_tensor(t, 3, shape, 3, want_ix, want_v);
    int64_t o[3] = {2, 0, 1};
    ASSERT_OK(spt_reorder(t, o));
    int64_t want2[9] = {0, B - 1, 0, 0, 1, 2, 0, 5, 7};
    double want_v2[3] = {3, 2, 1};
    spt_test_expect_tensor(t, 3, shape, 3, want2, want_v2);
    spt_tensor_free(t);
}

/* reference: stable sort of entry numbers by their rows in `order` */
static const int64_t *ref_ix;
static int64_t ref_r;
static const int64_t *ref_order;
static int cmp_entries(const void *a, const void *b) {
    int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
    for (int64_t k = 0; k < ref_r; k++) {
        int64_t d = ref_order[k], x = ref_ix[i * ref_r + d], y = ref_ix[j * ref_r + d];
        if (x != y) return x < y ? -1 : 1;
    }
    return i < j ? -1 : i > j;
}

static void check_reorder(int64_t r, const int64_t *shape, int64_t n, const int64_t *order, spt_dtype dt,
                          bool few_values) {
    int64_t *ix = malloc((size_t)(n * r) * sizeof *ix), *perm = malloc((size_t)n * sizeof *perm);
    size_t es = spt_dtype_size(dt);
    unsigned char *vals = malloc((size_t)n * es);
    assert_non_null(ix);
    assert_non_null(perm);
    assert_non_null(vals);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t d = 0; d < r; d++) {
            uint64_t x = next();
            /* few distinct values per dim (duplicates, stability), or spread over the whole dim */
            ix[i * r + d] = few_values ? (int64_t)(x % 3) * (shape[d] / 3) : (int64_t)(x % (uint64_t)shape[d]);
        }
        for (size_t b = 0; b < es; b++) vals[(size_t)i * es + b] = (unsigned char)(i >> (8 * (b % 8)));
        perm[i] = i;
    }
    ref_ix = ix;
    ref_r = r;
    ref_order = order;
    qsort(perm, (size_t)n, sizeof *perm, cmp_entries);
    for (int threads = 1; threads <= 2; threads++) {
        spt_set_num_threads(threads);
        spt_tensor *t;
        ASSERT_OK(spt_tensor_new(dt, r, shape, n, ix, vals, NULL, &t));
        ASSERT_OK(spt_reorder(t, order));
        const int64_t *got = spt_tensor_indices(t);
        const unsigned char *gv = spt_tensor_values(t);
        for (int64_t k = 0; k < n; k++) {
            if (memcmp(got + k * r, ix + perm[k] * r, (size_t)r * 8) ||
                memcmp(gv + (size_t)k * es, vals + (size_t)perm[k] * es, es)) {
                print_error("n=%lld r=%lld threads=%d: entry %lld differs from the stable reference\n", (long long)n,
                            (long long)r, threads, (long long)k);
                fail();
            }
        }
        assert_true(spt_tensor_known_sorted(t));
        spt_tensor_free(t);
    }
    spt_set_num_threads(0);
    free(ix);
    free(perm);
    free(vals);
}

static void test_reorder_large_property(void **state) {
    (void)state;
    const int64_t B = 2147483649LL;
    int64_t s64[3] = {1, B, B}, s2[2] = {B, B}, s4[4] = {3, 5, 7, 11}, s1[1] = {INT64_MAX}, s3[3] = {1000, 1, 70000};
    int64_t o3a[3] = {0, 1, 2}, o3b[3] = {2, 0, 1}, o2a[2] = {0, 1}, o2b[2] = {1, 0}, o4[4] = {3, 1, 0, 2}, o1[1] = {0};
    const int64_t n = 70000; /* >= 65536: the hybrid MSD path */
    check_reorder(3, s64, n, o3a, SPT_INT64, false);
    check_reorder(3, s64, n, o3b, SPT_INT16, true);
    check_reorder(2, s2, n, o2b, SPT_COMPLEX128, false);
    check_reorder(2, s2, n, o2a, SPT_INT64, true);
    check_reorder(4, s4, n, o4, SPT_FLOAT32, false);
    check_reorder(1, s1, n, o1, SPT_INT64, false);
    check_reorder(3, s3, n, o3b, SPT_INT64, false);
    check_reorder(3, s3, 1000, o3a, SPT_UINT8, true); /* the small path */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_C1_shift_64_with_a_unit_dim),
        cmocka_unit_test(test_reorder_large_property),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
