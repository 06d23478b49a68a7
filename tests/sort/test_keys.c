/* SPDX-License-Identifier: Apache-2.0 */
/* test_keys.c -- the key engine (src/keys.c): plan kinds at the 64/65 and 128/129-bit boundaries, and
 * reorder / argsort / dense ranks on shapes of any volume against a reference that never linearizes
 * (a stable merge sort comparing index rows mode by mode). */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "sort/keys.h"
#include "spt_test.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
/* uniform in [0, n) (n >= 1) */
static int64_t below(int64_t n) { return (int64_t)(next_u64() % (uint64_t)n); }

/* Indices for n entries of `shape`: per mode, either a uniform index or one of a few anchors (0, the
 * last, the middle) plus a small offset, so that runs of equal top bits and whole duplicates occur. */
static int64_t *draw(int64_t r, const int64_t *shape, int64_t n) {
    int64_t *ix = malloc((size_t)(n * r + 1) * sizeof *ix);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t d = 0; d < r; d++) {
            int64_t s = shape[d], v;
            switch (below(4)) {
            case 0: v = below(s); break;
            case 1: v = below(s < 3 ? s : 3); break;
            case 2: v = s - 1 - below(s < 3 ? s : 3); break;
            default: v = s / 2 + below(s - s / 2 < 2 ? 1 : 2); break;
            }
            ix[i * r + d] = v;
        }
        if (i > 0 && below(8) == 0) memcpy(ix + i * r, ix + below(i) * r, (size_t)r * sizeof *ix); /* a duplicate */
    }
    return ix;
}

/* ---- the reference: stable merge sort of entry numbers by rows in `order` ------------------------ */

static int ref_cmp(const int64_t *ix, int64_t r, const int64_t *order, int64_t a, int64_t b) {
    for (int64_t k = 0; k < r; k++) {
        int64_t d = order ? order[k] : k;
        if (ix[a * r + d] != ix[b * r + d]) return ix[a * r + d] < ix[b * r + d] ? -1 : 1;
    }
    return 0;
}

static void ref_sort(const int64_t *ix, int64_t r, const int64_t *order, int64_t *p, int64_t *tmp, int64_t n) {
    if (n < 2) return;
    int64_t h = n / 2;
    ref_sort(ix, r, order, p, tmp, h);
    ref_sort(ix, r, order, p + h, tmp, n - h);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = ref_cmp(ix, r, order, p[j], p[i]) < 0 ? p[j++] : p[i++];
    while (i < h) tmp[k++] = p[i++];
    while (j < n) tmp[k++] = p[j++];
    memcpy(p, tmp, (size_t)n * sizeof *p);
}

static int64_t *ref_perm(const int64_t *ix, int64_t r, const int64_t *order, int64_t n) {
    int64_t *p = malloc((size_t)(n + 1) * sizeof *p), *tmp = malloc((size_t)(n + 1) * sizeof *tmp);
    for (int64_t i = 0; i < n; i++) p[i] = i;
    ref_sort(ix, r, order, p, tmp, n);
    free(tmp);
    return p;
}

/* ---- plan kinds -------------------------------------------------------------------------------- */

static int kind_of(int64_t r, const int64_t *shape) {
    spt__keyplan kp;
    spt__keyplan_init(&kp, shape, NULL, r);
    return kp.kind;
}

static void test_plan_boundaries(void **state) {
    (void)state;
    const int64_t P32 = (int64_t)1 << 32, P62 = (int64_t)1 << 62;
    int64_t a[] = {P32, P32};             /* 64 bits, volume 2^64: linear keys, the last is 2^64 - 1 */
    int64_t b[] = {P32 * 2, P32};         /* 65 bits */
    int64_t c[] = {P62, P62, 16};         /* 128 bits */
    int64_t d[] = {P62, P62, 32};         /* 129 bits */
    int64_t e[] = {P32 + 1, P32 - 1};     /* 66 bits, volume 2^64 - 1: still linear */
    int64_t f[] = {INT64_MAX, INT64_MAX}; /* 126 bits */
    assert_int_equal(kind_of(2, a), SPT__KEY64);
    spt__keyplan kp;
    spt__keyplan_init(&kp, a, NULL, 2);
    assert_true(kp.max_key == UINT64_MAX);
    assert_int_equal(kp.bits, 64);
    assert_int_equal(kind_of(2, b), SPT__KEY128);
    assert_int_equal(kind_of(3, c), SPT__KEY128);
    spt__keyplan_init(&kp, c, NULL, 3);
    assert_int_equal(kp.bits, 128);
    assert_int_equal(kind_of(3, d), SPT__KEYWIDE);
    assert_int_equal(kind_of(2, e), SPT__KEY64);
    assert_int_equal(kind_of(2, f), SPT__KEY128);
    int64_t z[] = {0, INT64_MAX, INT64_MAX};
    assert_int_equal(kind_of(3, z), SPT__KEY64);
    int64_t big[64];
    for (int k = 0; k < 64; k++) big[k] = INT64_MAX;
    spt__keyplan_init(&kp, big, NULL, 64);
    assert_int_equal(kp.kind, SPT__KEYWIDE);
    assert_int_equal(kp.bits, 64 * 63);
}

/* ---- sorts against the reference ----------------------------------------------------------------- */

/* argsort, reorder (in place and out of place) and the engine's dense ranks for n entries of `shape`
 * in `order` (NULL = row-major), all against the reference. */
static void check_shape(int64_t r, const int64_t *shape, const int64_t *order, int64_t n) {
    int64_t *ix = draw(r, shape, n);
    double *vals = malloc((size_t)(n + 1) * sizeof *vals);
    for (int64_t i = 0; i < n; i++) vals[i] = (double)i;
    int64_t *want = ref_perm(ix, r, order, n);
    spt_tensor *t = NULL, *o = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, r, shape, n, ix, vals, NULL, &t));
    int64_t *got = malloc((size_t)(n + 1) * sizeof *got);
    ASSERT_OK(spt_argsort(t, order, got));
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("argsort rank %lld: position %lld is entry %lld, want %lld", (long long)r, (long long)i,
                     (long long)got[i], (long long)want[i]);
    ASSERT_OK(spt_reordered(t, order, &o));
    ASSERT_OK(spt_reorder(t, order));
    bool unique = true;
    for (int64_t i = 1; i < n; i++)
        if (ref_cmp(ix, r, order, want[i - 1], want[i]) == 0) unique = false;
    const spt_tensor *outs[2] = {t, o};
    for (int w = 0; w < 2; w++) {
        const int64_t *oi = spt_tensor_indices(outs[w]);
        const double *ov = spt_tensor_values(outs[w]);
        for (int64_t i = 0; i < n; i++) {
            assert_memory_equal(oi + i * r, ix + want[i] * r, (size_t)r * sizeof(int64_t));
            assert_true(ov[i] == (double)want[i]);
        }
        for (int64_t k = 0; k < r; k++) assert_int_equal(spt_tensor_order(outs[w])[k], order ? order[k] : k);
    }
    /* indices_valid says "repeated" exactly when the reference finds equal rows */
    ASSERT_ST(unique ? SPT_OK : SPT_EINVAL, spt_indices_valid(t));
    /* dense ranks: non-decreasing, equal exactly for equal rows */
    spt_tensor *u = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, r, shape, n, ix, vals, NULL, &u));
    spt__keyplan kp;
    spt__keyplan_init(&kp, shape, order, r);
    uint64_t *keys = malloc((size_t)(n + 1) * sizeof *keys);
    int64_t *perm = NULL;
    bool uq, ordinal;
    ASSERT_OK(spt__key_sort("test", u, &kp, keys, &perm, &uq, &ordinal));
    assert_int_equal(uq, unique);
    assert_int_equal(ordinal, kp.kind != SPT__KEY64);
    for (int64_t i = 0; i < n; i++) {
        assert_int_equal(perm ? perm[i] : i, want[i]);
        if (i > 0) {
            int c = ref_cmp(ix, r, order, want[i - 1], want[i]);
            assert_true(c == 0 ? keys[i] == keys[i - 1] : keys[i] > keys[i - 1]);
        }
    }
    free(perm);
    free(keys);
    spt_tensor_free(u);
    spt_tensor_free(o);
    spt_tensor_free(t);
    free(got);
    free(want);
    free(vals);
    free(ix);
}

static void test_sorts_every_width(void **state) {
    (void)state;
    const int64_t P62 = (int64_t)1 << 62, P32 = (int64_t)1 << 32;
    int64_t small[] = {1000, 1000, 1000};
    int64_t nell1[] = {2902330, 2143368, 25495389};
    int64_t b64[] = {P32, P32}, b65[] = {P32 * 2, P32};
    int64_t b128[] = {P62, P62, 16}, b129[] = {P62, P62, 32};
    int64_t r6[] = {P62, P62, P62, P62, P62, P62};
    int64_t lbnl[] = {1605, 4198, 1631, 4209, 868131};
    int64_t ones[] = {1, P62, 1, 5, INT64_MAX};
    int64_t rev3[] = {2, 1, 0}, mix6[] = {5, 0, 3, 1, 4, 2};
    const int64_t sizes[] = {0, 1, 2, 33, 200, 5000};
    for (int s = 0; s < 6; s++) {
        int64_t n = sizes[s];
        check_shape(3, small, NULL, n);
        check_shape(3, nell1, NULL, n);
        check_shape(3, nell1, rev3, n);
        check_shape(2, b64, NULL, n);
        check_shape(2, b65, NULL, n);
        check_shape(3, b128, NULL, n);
        check_shape(3, b129, rev3, n);
        check_shape(6, r6, NULL, n);
        check_shape(6, r6, mix6, n);
        check_shape(5, lbnl, NULL, n);
        check_shape(5, ones, NULL, n);
    }
    /* large enough for the parallel MSD scatter of spt__sort_pairs (>= 65536 entries) */
    check_shape(3, nell1, NULL, 150000);
    check_shape(6, r6, mix6, 100000);
    check_shape(2, b65, NULL, 70000);
    /* rank 64, every dim 2^63 - 1, and a rank-64 shape of small dims (3^64 > 2^64) */
    int64_t big[64], three[64], ord[64];
    for (int k = 0; k < 64; k++) {
        big[k] = INT64_MAX;
        three[k] = 3;
        ord[k] = 63 - k;
    }
    check_shape(64, big, NULL, 300);
    check_shape(64, big, ord, 300);
    check_shape(64, three, NULL, 300);
}

/* Runs of equal top words longer than the small-run threshold, with ties only in the low bits. */
static void test_long_ties(void **state) {
    (void)state;
    const int64_t P62 = (int64_t)1 << 62;
    int64_t shape[] = {P62, P62, P62};
    const int64_t n = 3000;
    int64_t *ix = malloc((size_t)n * 3 * sizeof *ix);
    for (int64_t i = 0; i < n; i++) {
        ix[i * 3] = 7;              /* the top chunk is one value for all */
        ix[i * 3 + 1] = below(3);   /* three runs in the second word */
        ix[i * 3 + 2] = below(P62); /* ordered by the last word */
    }
    double *v = calloc((size_t)n, sizeof *v);
    spt_tensor *t = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, n, ix, v, NULL, &t));
    int64_t *want = ref_perm(ix, 3, NULL, n), *got = malloc((size_t)n * sizeof *got);
    ASSERT_OK(spt_argsort(t, NULL, got));
    assert_memory_equal(got, want, (size_t)n * sizeof *got);
    spt_tensor_free(t);
    free(got);
    free(want);
    free(v);
    free(ix);
}

/* Joint dense ranks of two tensors: comparable across them. */
static void test_joint(void **state) {
    (void)state;
    int64_t shape[] = {2902330, 2143368, 25495389};
    const int64_t na = 700, nb = 500;
    int64_t *ia = draw(3, shape, na), *ib = draw(3, shape, nb);
    for (int64_t i = 0; i < 100; i++) memcpy(ib + i * 3, ia + (i * 7) * 3, 3 * sizeof(int64_t)); /* shared rows */
    double *v = calloc((size_t)(na + nb), sizeof *v);
    spt_tensor *a = NULL, *b = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, na, ia, v, NULL, &a));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, nb, ib, v, NULL, &b));
    spt__keyplan kp;
    spt__keyplan_init(&kp, shape, NULL, 3);
    assert_int_equal(kp.kind, SPT__KEY128);
    const spt_tensor *ts[2] = {a, b};
    uint64_t *ks[2] = {malloc(na * 8), malloc(nb * 8)};
    int64_t *ps[2];
    bool us[2], ordinal;
    ASSERT_OK(spt__key_sort_joint("test", ts, 2, &kp, ks, ps, us, &ordinal));
    assert_true(ordinal);
    for (int64_t i = 0; i < na; i++)
        for (int64_t j = 0; j < nb; j += 37) {
            int c = spt__keyplan_cmp(&kp, ia + ps[0][i] * 3, ib + ps[1][j] * 3);
            assert_true(c < 0 ? ks[0][i] < ks[1][j] : c > 0 ? ks[0][i] > ks[1][j] : ks[0][i] == ks[1][j]);
        }
    for (int w = 0; w < 2; w++) {
        free(ks[w]);
        free(ps[w]);
    }
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(v);
    free(ia);
    free(ib);
}

/* An index outside the shape is reported on the wide path as on the linear one. */
static void test_bounds(void **state) {
    (void)state;
    int64_t shape[] = {2902330, 2143368, 25495389};
    int64_t ix[] = {0, 0, 0, 5, 2143368, 1};
    double v[] = {1, 2};
    spt_tensor *t = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 2, ix, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reorder(t, NULL));
    ASSERT_MSG("indices[1] = [5,2143368,1] is out of bounds");
    int64_t p[2];
    ASSERT_ST(SPT_ERANGE, spt_argsort(t, NULL, p));
    spt_tensor_free(t);
}

/* ---- two-word packed keys (src/sort_packed.c): 64 < bits <= 64 + the top digit, >= 65536 entries --- */

/* Reorder (out of place, in place on an owned tensor and on a wrapped one) of the rows ix (n x r) with
 * values of `dtype` (value of entry i: i, or i mod 2^31 for int32), against the reference. */
static void check_rows(int64_t r, const int64_t *shape, const int64_t *order, const int64_t *ix, int64_t n,
                       spt_dtype dtype) {
    const size_t es = spt_dtype_size(dtype);
    char *vals = malloc((size_t)(n + 1) * es);
    for (int64_t i = 0; i < n; i++) {
        if (dtype == SPT_INT32) ((int32_t *)vals)[i] = (int32_t)i;
        else if (dtype == SPT_FLOAT64) ((double *)vals)[i] = (double)i;
        else ((double _Complex *)vals)[i] = (double)i - 1.0 * _Complex_I * (double)i;
    }
    int64_t *want = ref_perm(ix, r, order, n);
    bool unique = true;
    for (int64_t i = 1; i < n; i++)
        if (ref_cmp(ix, r, order, want[i - 1], want[i]) == 0) unique = false;
    int64_t *wix = malloc((size_t)(n * r + 1) * sizeof *wix);
    char *wv = malloc((size_t)(n + 1) * es);
    memcpy(wix, ix, (size_t)(n * r) * sizeof *wix);
    memcpy(wv, vals, (size_t)n * es);
    spt_tensor *t = NULL, *o = NULL, *w = NULL;
    ASSERT_OK(spt_tensor_new(dtype, r, shape, n, ix, vals, NULL, &t));
    ASSERT_OK(spt_tensor_wrap(dtype, r, shape, n, wix, wv, NULL, NULL, NULL, &w));
    ASSERT_OK(spt_reordered(t, order, &o));
    ASSERT_OK(spt_reorder(t, order));
    ASSERT_OK(spt_reorder(w, order));
    const spt_tensor *outs[3] = {o, t, w};
    for (int k = 0; k < 3; k++) {
        const int64_t *oi = spt_tensor_indices(outs[k]);
        const char *ov = spt_tensor_values(outs[k]);
        for (int64_t i = 0; i < n; i++) {
            if (memcmp(oi + i * r, ix + want[i] * r, (size_t)r * sizeof(int64_t)) != 0)
                fail_msg("output %d, n %lld: row %lld is not entry %lld's", k, (long long)n, (long long)i,
                         (long long)want[i]);
            if (memcmp(ov + (size_t)i * es, vals + (size_t)want[i] * es, es) != 0)
                fail_msg("output %d, n %lld: value %lld is not entry %lld's", k, (long long)n, (long long)i,
                         (long long)want[i]);
        }
    }
    assert_ptr_equal(spt_tensor_indices(w), wix); /* sorted in the caller's buffers */
    /* the sorted flags: a second reorder is a no-op, indices_valid agrees with the reference */
    ASSERT_ST(unique ? SPT_OK : SPT_EINVAL, spt_indices_valid(o));
    ASSERT_ST(unique ? SPT_OK : SPT_EINVAL, spt_indices_valid(w));
    spt_tensor_free(o);
    spt_tensor_free(t);
    spt_tensor_free(w);
    free(wix);
    free(wv);
    free(want);
    free(vals);
}

/* Bit widths at the edges of the two-word path: 65 bits at 65535 (the engine) and 65536 entries (packed),
 * 75 bits (the top digit 11, the word 64 bits: the widest packed) and 76 (the engine), 128 and 129;
 * rank 2, 3 (unrolled) and 5 (generic), and a permuted order. */
static void test_two_word_widths(void **state) {
    (void)state;
    const int64_t P32 = (int64_t)1 << 32, P62 = (int64_t)1 << 62, P25 = (int64_t)1 << 25;
    int64_t b64[] = {P32, P32}, b65[] = {P32 * 2, P32};
    int64_t b75[] = {P25, P25, P25}, b76[] = {P25, P25, P25 * 2};
    int64_t b128[] = {P62, P62, 16}, b129[] = {P62, P62, 32};
    int64_t nell1[] = {2902330, 2143368, 25495389}, lbnl[] = {1605, 4198, 1631, 4209, 868131};
    int64_t rev3[] = {2, 1, 0}, perm5[] = {4, 0, 3, 1, 2};
    struct {
        int64_t r, *shape, *order, n;
    } cases[] = {
        {2, b64, NULL, 65536},   {2, b65, NULL, 65535},  {2, b65, NULL, 65536},   {3, b75, NULL, 65536},
        {3, b76, NULL, 65536},   {3, b128, NULL, 70000}, {3, b129, NULL, 70000},  {3, nell1, NULL, 140000},
        {3, nell1, rev3, 70000}, {5, lbnl, NULL, 70000}, {5, lbnl, perm5, 70000},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t *ix = draw(cases[c].r, cases[c].shape, cases[c].n);
        check_rows(cases[c].r, cases[c].shape, cases[c].order, ix, cases[c].n, SPT_FLOAT64);
        free(ix);
    }
    /* values that are not 8 bytes wide: the permutation is carried, the values gathered */
    int64_t *ix = draw(3, nell1, 70000);
    check_rows(3, nell1, NULL, ix, 70000, SPT_INT32);
    check_rows(3, nell1, rev3, ix, 70000, SPT_COMPLEX128);
    free(ix);
    ix = draw(5, lbnl, 70000);
    check_rows(5, lbnl, NULL, ix, 70000, SPT_INT32);
    free(ix);
}

/* Shapes of the data inside the buckets: every row equal; rows differing only in the lowest bit of the
 * key; one bucket of 256 entries (direct LSD sort) and one of 257 (top-bits passes and insertion pass),
 * buckets of 1 and 2; rows equal in the top bits of the word and random below (the insertion pass gives
 * up and the LSD sort finishes, in a bucket larger than the per-thread scratch). nell-1's dims, 65536
 * entries: 69 bits, top digit 5 bits (the first index's top 5 bits), word 64 bits. */
static void test_two_word_buckets(void **state) {
    (void)state;
    int64_t nell1[] = {2902330, 2143368, 25495389};
    const int64_t n = 65536, B = (int64_t)1 << 17; /* first indices [b * B, (b + 1) * B): bucket b */
    int64_t *ix = malloc((size_t)n * 3 * sizeof *ix);
    /* every row equal */
    for (int64_t i = 0; i < n; i++) ix[i * 3] = 1234567, ix[i * 3 + 1] = 7654, ix[i * 3 + 2] = 25495388;
    check_rows(3, nell1, NULL, ix, n, SPT_FLOAT64);
    /* only the lowest bit differs, with some whole rows repeated */
    for (int64_t i = 0; i < n; i++) ix[i * 3 + 2] = 25495386 + (int64_t)(next_u64() & 1);
    check_rows(3, nell1, NULL, ix, n, SPT_FLOAT64);
    check_rows(3, nell1, NULL, ix, n, SPT_INT32);
    /* buckets of 256, 257, 1 and 2 entries, the rest spread over buckets 4..21 */
    for (int64_t i = 0; i < n; i++) {
        int64_t b = i < 256 ? 0 : i < 513 ? 1 : i < 514 ? 2 : i < 516 ? 3 : 4 + below(18);
        ix[i * 3] = b * B + below(B);
        ix[i * 3 + 1] = below(nell1[1]);
        ix[i * 3 + 2] = below(nell1[2]);
        if (i > 600 && below(16) == 0) memcpy(ix + i * 3, ix + (516 + below(i - 516)) * 3, 3 * sizeof *ix);
    }
    for (int64_t i = n - 1; i > 0; i--) { /* shuffled, so that the buckets fill from everywhere */
        int64_t j = below(i + 1), tmp[3];
        memcpy(tmp, ix + i * 3, sizeof tmp);
        memcpy(ix + i * 3, ix + j * 3, sizeof tmp);
        memcpy(ix + j * 3, tmp, sizeof tmp);
    }
    check_rows(3, nell1, NULL, ix, n, SPT_FLOAT64);
    /* equal in the first two indices (the word's top 22 bits), random in the last */
    for (int64_t i = 0; i < n; i++) {
        ix[i * 3] = 2000000;
        ix[i * 3 + 1] = 1000000 + (below(4) == 0);
        ix[i * 3 + 2] = below(nell1[2]);
    }
    check_rows(3, nell1, NULL, ix, n, SPT_FLOAT64);
    free(ix);
}

/* An index outside the shape is reported on the two-word path (rank 3 and rank 5), naming the first. */
static void test_two_word_bounds(void **state) {
    (void)state;
    int64_t nell1[] = {2902330, 2143368, 25495389}, lbnl[] = {1605, 4198, 1631, 4209, 868131};
    const int64_t n = 70000;
    int64_t *ix = draw(3, nell1, n);
    double *v = calloc((size_t)n, sizeof *v);
    ix[50000 * 3 + 1] = 2143368;
    ix[60000 * 3 + 2] = -1;
    spt_tensor *t = NULL, *o = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, nell1, n, ix, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reordered(t, NULL, &o));
    assert_null(o);
    ASSERT_ST(SPT_ERANGE, spt_reorder(t, NULL));
    assert_non_null(strstr(spt_last_error(), "indices[50000]"));
    spt_tensor_free(t);
    free(ix);
    ix = draw(5, lbnl, n);
    ix[69999 * 5 + 4] = 868131;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 5, lbnl, n, ix, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reorder(t, NULL));
    assert_non_null(strstr(spt_last_error(), "indices[69999]"));
    spt_tensor_free(t);
    free(ix);
    free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_boundaries),  cmocka_unit_test(test_sorts_every_width),
        cmocka_unit_test(test_long_ties),        cmocka_unit_test(test_joint),
        cmocka_unit_test(test_bounds),           cmocka_unit_test(test_two_word_widths),
        cmocka_unit_test(test_two_word_buckets), cmocka_unit_test(test_two_word_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
