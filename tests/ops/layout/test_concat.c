/* SPDX-License-Identifier: Apache-2.0 */
/* test_concat.c -- tf.sparse.concat: any axis, row-major output, expand_nonconcat_dim. */
#ifndef SPT_CONFORMANCE
#include "../layout_test_util.h"

static spt_tensor *mk(spt_dtype dt, int64_t r, const int64_t *shape, int64_t n, const int64_t *ix, const void *v) {
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(dt, r, shape, n, ix, v, NULL, &t));
    return t;
}

/* sparse_concat_op_test.py testConcat3 (axis 1, three inputs). */
static void test_concat3_axis1(void **state) {
    (void)state;
    int64_t s1[2] = {3, 3}, s2[2] = {3, 5}, s3[2] = {3, 2};
    int64_t i1[8] = {0, 2, 1, 0, 2, 0, 2, 2}, i2[8] = {1, 1, 2, 0, 2, 3, 2, 4}, i3[4] = {1, 0, 2, 0};
    float v1[4] = {1, 2, 3, 4}, v2[4] = {1, 2, 1, 0}, v3[2] = {1, 2};
    spt_tensor *t[3] = {mk(SPT_FLOAT32, 2, s1, 4, i1, v1), mk(SPT_FLOAT32, 2, s2, 4, i2, v2),
                        mk(SPT_FLOAT32, 2, s3, 2, i3, v3)};
    spt_tensor *c;
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 3, 1, false, &c));
    int64_t ws[2] = {3, 10}, wi[20] = {0, 2, 1, 0, 1, 4, 1, 8, 2, 0, 2, 2, 2, 3, 2, 6, 2, 7, 2, 8};
    float wv[10] = {1, 2, 1, 1, 3, 4, 2, 1, 0, 2};
    spt_test_expect_tensor(c, 2, ws, 10, wi, wv);
    lt_expect_row_major(c);
    spt_tensor_free(c);
    /* the same with axis -1 */
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 3, -1, false, &c));
    spt_test_expect_tensor(c, 2, ws, 10, wi, wv);
    spt_tensor_free(c);
    for (int i = 0; i < 3; i++) spt_tensor_free(t[i]);
}

/* The sparse_ops.py docstring example, strings, axis 1. */
static void test_strings_docstring(void **state) {
    (void)state;
    int64_t s1[2] = {2, 3}, s2[2] = {2, 4}, i1[6] = {0, 2, 1, 0, 1, 1}, i2[4] = {0, 1, 0, 2};
    spt_str v1[3] = {{"a", 1}, {"b", 1}, {"c", 1}}, v2[2] = {{"d", 1}, {"e", 1}};
    spt_tensor *t[2] = {mk(SPT_STRING, 2, s1, 3, i1, v1), mk(SPT_STRING, 2, s2, 2, i2, v2)};
    spt_tensor *c;
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 2, 1, false, &c));
    int64_t ws[2] = {2, 7}, wi[10] = {0, 2, 0, 4, 0, 5, 1, 0, 1, 1};
    spt_str wv[5] = {{"a", 1}, {"d", 1}, {"e", 1}, {"b", 1}, {"c", 1}};
    spt_test_expect_tensor(c, 2, ws, 5, wi, wv);
    lt_expect_row_major(c);
    for (int i = 0; i < 2; i++) spt_tensor_free(t[i]);
    /* the output owns its strings */
    assert_memory_equal(((const spt_str *)spt_tensor_values(c))[1].data, "d", 1);
    spt_tensor_free(c);
}

/* testMismatchedShapesExpandNonconcatDim (axis 0), and the seed-003 example of expand_nonconcat_dim. */
static void test_expand_nonconcat_dim(void **state) {
    (void)state;
    int64_t s1[2] = {3, 3}, s2[2] = {3, 5}, s3[2] = {3, 2}, s4[2] = {2, 3};
    int64_t i1[8] = {0, 2, 1, 0, 2, 0, 2, 2}, i2[8] = {1, 1, 2, 0, 2, 3, 2, 4}, i3[4] = {1, 0, 2, 0},
            i4[6] = {0, 1, 1, 0, 1, 2};
    float v1[4] = {1, 2, 3, 4}, v2[4] = {1, 2, 1, 0}, v3[2] = {1, 2}, v4[3] = {1, 1, 2};
    spt_tensor *t[4] = {mk(SPT_FLOAT32, 2, s1, 4, i1, v1), mk(SPT_FLOAT32, 2, s2, 4, i2, v2),
                        mk(SPT_FLOAT32, 2, s3, 2, i3, v3), mk(SPT_FLOAT32, 2, s4, 3, i4, v4)};
    spt_tensor *c = NULL;
    ASSERT_ST(SPT_EINVAL, spt_concat((const spt_tensor *const *)t, 4, 0, false, &c));
    assert_null(c);
    ASSERT_MSG("Input shapes must match");
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 4, 0, true, &c));
    int64_t ws[2] = {11, 5}, wi[26] = {0, 2, 1, 0, 2, 0, 2, 2, 4, 1, 5, 0, 5, 3, 5, 4, 7, 0, 8, 0, 9, 1, 10, 0, 10, 2};
    float wv[13] = {1, 2, 3, 4, 1, 2, 1, 0, 1, 2, 1, 1, 2};
    spt_test_expect_tensor(c, 2, ws, 13, wi, wv);
    lt_expect_row_major(c);
    spt_tensor_free(c);
    for (int i = 0; i < 4; i++) spt_tensor_free(t[i]);
}

/* The seed-003 reference example of expand_nonconcat_dim: [3,3] and [2,4] along dim 1 -> [3,7]. */
static void test_seed003_expand_example(void **state) {
    (void)state;
    int64_t s1[2] = {3, 3}, s2[2] = {2, 4}, i1[6] = {0, 2, 1, 0, 2, 1}, i2[4] = {0, 1, 0, 2};
    spt_str v1[3] = {{"a", 1}, {"b", 1}, {"c", 1}}, v2[2] = {{"d", 1}, {"e", 1}};
    spt_tensor *t[2] = {mk(SPT_STRING, 2, s1, 3, i1, v1), mk(SPT_STRING, 2, s2, 2, i2, v2)}, *c = NULL;
    ASSERT_ST(SPT_EINVAL, spt_concat((const spt_tensor *const *)t, 2, 1, false, &c));
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 2, 1, true, &c));
    int64_t ws[2] = {3, 7}, wi[10] = {0, 2, 0, 4, 0, 5, 1, 0, 2, 1};
    spt_str wv[5] = {{"a", 1}, {"d", 1}, {"e", 1}, {"b", 1}, {"c", 1}};
    spt_test_expect_tensor(c, 2, ws, 5, wi, wv);
    spt_tensor_free(c);
    for (int i = 0; i < 2; i++) spt_tensor_free(t[i]);
}

/* Unsorted inputs are sorted; duplicates keep their input order (stable); one input is sorted too. */
static void test_unsorted_and_single(void **state) {
    (void)state;
    int64_t s[2] = {2, 2}, i1[8] = {1, 1, 0, 1, 1, 0, 0, 1}, i2[4] = {1, 0, 0, 0};
    int32_t v1[4] = {1, 2, 3, 4}, v2[2] = {5, 6};
    spt_tensor *t[2] = {mk(SPT_INT32, 2, s, 4, i1, v1), mk(SPT_INT32, 2, s, 2, i2, v2)};
    spt_tensor *c;
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 2, 1, false, &c));
    int64_t ws[2] = {2, 4}, wi[12] = {0, 1, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2};
    int32_t wv[6] = {2, 4, 6, 3, 1, 5};
    spt_test_expect_tensor(c, 2, ws, 6, wi, wv);
    assert_true(spt_tensor_is_row_major(c, true));
    ASSERT_ST(SPT_EINVAL, spt_indices_valid(c)); /* a repeat: not unique */
    spt_tensor_free(c);
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 1, 0, false, &c));
    int64_t wi1[8] = {0, 1, 0, 1, 1, 0, 1, 1};
    int32_t wv1[4] = {2, 4, 3, 1};
    spt_test_expect_tensor(c, 2, s, 4, wi1, wv1);
    lt_expect_row_major(c);
    spt_tensor_free(c);
    /* the inputs are untouched */
    assert_int_equal(spt_tensor_indices(t[0])[0], 1);
    assert_false(spt_tensor_known_sorted(t[0]));
    for (int i = 0; i < 2; i++) spt_tensor_free(t[i]);
}

static void test_empty_and_zero_dims(void **state) {
    (void)state;
    int64_t s1[3] = {2, 3, 4}, s2[3] = {2, 7, 4}, s3[3] = {2, 0, 4};
    spt_tensor *t[3] = {mk(SPT_FLOAT64, 3, s1, 0, NULL, NULL), mk(SPT_FLOAT64, 3, s2, 0, NULL, NULL),
                        mk(SPT_FLOAT64, 3, s3, 0, NULL, NULL)};
    spt_tensor *c;
    ASSERT_OK(spt_concat((const spt_tensor *const *)t, 3, 1, false, &c));
    int64_t ws[3] = {2, 10, 4};
    spt_test_expect_tensor(c, 3, ws, 0, NULL, NULL);
    lt_expect_row_major(c);
    spt_tensor_free(c);
    for (int i = 0; i < 3; i++) spt_tensor_free(t[i]);
    /* a zero non-concat dim everywhere */
    int64_t z1[2] = {0, 2}, z2[2] = {0, 3};
    spt_tensor *u[2] = {mk(SPT_BOOL, 2, z1, 0, NULL, NULL), mk(SPT_BOOL, 2, z2, 0, NULL, NULL)};
    ASSERT_OK(spt_concat((const spt_tensor *const *)u, 2, 1, false, &c));
    assert_int_equal(spt_tensor_shape(c)[1], 5);
    assert_int_equal(spt_tensor_volume(c), 0);
    spt_tensor_free(c);
    for (int i = 0; i < 2; i++) spt_tensor_free(u[i]);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s2[2] = {2, 2}, s3[3] = {2, 2, 2}, ix[2] = {0, 0}, bad[2] = {2, 0};
    double v = 1;
    spt_tensor *a = mk(SPT_FLOAT64, 2, s2, 1, ix, &v), *b = mk(SPT_FLOAT64, 3, s3, 0, NULL, NULL), *c = (spt_tensor *)1;
    spt_tensor *f = mk(SPT_FLOAT32, 2, s2, 0, NULL, NULL), *o = mk(SPT_FLOAT64, 2, s2, 1, bad, &v);
    const spt_tensor *ab[2] = {a, b}, *af[2] = {a, f}, *ao[2] = {a, o};
    ASSERT_ST(SPT_ERANGE, spt_concat(ab, 2, -3, false, &c));
    assert_null(c);
    ASSERT_MSG("[-2, 2)");
    ASSERT_ST(SPT_ERANGE, spt_concat(ab, 1, 2, false, &c)); /* even for one input */
    ASSERT_ST(SPT_EINVAL, spt_concat(ab, 2, 0, false, &c));
    ASSERT_MSG("Ranks of all input tensors must match");
    ASSERT_ST(SPT_EDTYPE, spt_concat(af, 2, 0, false, &c));
    ASSERT_ST(SPT_ERANGE, spt_concat(ao, 2, 1, false, &c)); /* offsetting must not hide it */
    ASSERT_MSG("out of bounds");
    ASSERT_ST(SPT_EINVAL, spt_concat(ab, 0, 0, false, &c));
    ASSERT_ST(SPT_EINVAL, spt_concat(NULL, 2, 0, false, &c));
    ASSERT_ST(SPT_EINVAL, spt_concat(ab, 2, 0, false, NULL));
    int64_t big[2] = {INT64_MAX / 2 + 1, 1};
    spt_tensor *h = mk(SPT_FLOAT64, 2, big, 0, NULL, NULL);
    const spt_tensor *hh[2] = {h, h};
    ASSERT_ST(SPT_EOVERFLOW, spt_concat(hh, 2, 0, false, &c));
    spt_tensor *sc = mk(SPT_FLOAT64, 0, NULL, 0, NULL, NULL);
    const spt_tensor *ss[1] = {sc};
    ASSERT_ST(SPT_ERANGE, spt_concat(ss, 1, 0, false, &c));
    spt_tensor_free(sc);
    spt_tensor_free(h);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(f);
    spt_tensor_free(o);
}

/* Property: against the dense concatenation, random axis, random sortedness, with/without expand. */
static void test_property_dense(void **state) {
    (void)state;
    lt_rng g = {4242};
    for (int iter = 0; iter < 300; iter++) {
        int64_t r = 1 + lt_int(&g, 3), k = 1 + lt_int(&g, 4), a = lt_int(&g, r), base[3];
        bool expand = lt_int(&g, 2);
        lt_rand_shape(&g, r, 0, 4, base);
        spt_tensor *t[4];
        int64_t *dn[4], sh[4][3], ws[3];
        for (int64_t d = 0; d < r; d++) ws[d] = expand ? 0 : base[d];
        ws[a] = 0;
        for (int64_t i = 0; i < k; i++) {
            memcpy(sh[i], base, sizeof base);
            if (expand)
                for (int64_t d = 0; d < r; d++) sh[i][d] = lt_int(&g, 5);
            sh[i][a] = lt_int(&g, 4);
            for (int64_t d = 0; d < r; d++)
                if (d != a && sh[i][d] > ws[d]) ws[d] = sh[i][d];
            ws[a] += sh[i][a];
            t[i] = lt_rand_tensor(&g, r, sh[i], 35, lt_int(&g, 3) != 0);
            dn[i] = lt_dense(t[i]);
        }
        spt_tensor *c;
        ASSERT_OK(spt_concat((const spt_tensor *const *)t, k, a - (lt_int(&g, 2) ? r : 0), expand, &c));
        int64_t *want = lt_concat_dense(r, k, sh, dn, a, ws);
        lt_expect_dense(c, r, ws, want);
        lt_expect_row_major(c);
        assert_true(spt_tensor_nnz(c) == 0 || spt_indices_valid(c) == SPT_OK);
        free(want);
        spt_tensor_free(c);
        for (int64_t i = 0; i < k; i++) spt_tensor_free(t[i]);
    }
}

/* ---- two sorted inputs along axis >= 1: the two-cursor merge, against the k-way heap merge ---- */

static const char *const words[5] = {"", "a", "bc", "def", "ghij"};

/* A sorted, unique tensor of dtype dt at the sorted linear offsets off[0, n), values from seed. */
static spt_tensor *mk_sorted(spt_dtype dt, int64_t r, const int64_t *shape, int64_t n, const int64_t *off, int seed) {
    int64_t *ix = malloc((size_t)(n * r + 1) * sizeof *ix);
    const size_t es = spt_dtype_size(dt);
    unsigned char *v = malloc((size_t)(n + 1) * es);
    assert_non_null(ix);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) {
        int64_t o = off[i];
        for (int64_t d = r - 1; d >= 0; d--) {
            ix[i * r + d] = o % shape[d];
            o /= shape[d];
        }
        if (dt == SPT_STRING) {
            const char *w = words[(i + seed) % 5];
            spt_str x = {w, strlen(w)};
            memcpy(v + (size_t)i * es, &x, es);
        } else if (dt == SPT_BOOL) {
            v[i] = (unsigned char)((i + seed) % 2);
        } else {
            for (size_t k = 0; k < es; k++) v[(size_t)i * es + k] = (unsigned char)(i * 131 + (int64_t)k * 7 + seed);
        }
    }
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(dt, r, shape, n, ix, v, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    free(ix);
    free(v);
    return t;
}

/* Identical index rows and value bytes (strings compared by content). */
static void expect_same(const spt_tensor *x, const spt_tensor *y) {
    const int64_t n = spt_tensor_nnz(x), r = spt_tensor_rank(x);
    assert_int_equal(spt_tensor_nnz(y), n);
    for (int64_t d = 0; d < r; d++) assert_int_equal(spt_tensor_shape(x)[d], spt_tensor_shape(y)[d]);
    if (n == 0) return;
    assert_memory_equal(spt_tensor_indices(x), spt_tensor_indices(y), (size_t)(n * r) * sizeof(int64_t));
    if (spt_tensor_dtype(x) == SPT_STRING) {
        const spt_str *a = spt_tensor_values(x), *b = spt_tensor_values(y);
        for (int64_t i = 0; i < n; i++) {
            assert_int_equal(a[i].len, b[i].len);
            assert_memory_equal(a[i].data, b[i].data, a[i].len + 1);
        }
    } else {
        assert_memory_equal(spt_tensor_values(x), spt_tensor_values(y),
                            (size_t)n * spt_dtype_size(spt_tensor_dtype(x)));
    }
}

/* concat(a, b) with 1..4 threads against concat(a, b, empty) (three inputs: the heap merge). */
static void check_two(const spt_tensor *a, const spt_tensor *b, int64_t axis, bool expand) {
    const int64_t r = spt_tensor_rank(a);
    int64_t zs[3];
    for (int64_t d = 0; d < r; d++) zs[d] = spt_tensor_shape(a)[d];
    zs[axis] = 0;
    spt_tensor *e = mk_sorted(spt_tensor_dtype(a), r, zs, 0, NULL, 0), *want, *got;
    const spt_tensor *three[3] = {a, b, e}, *two[2] = {a, b};
    ASSERT_OK(spt_concat(three, 3, axis, expand, &want));
    lt_expect_row_major(want);
    for (int th = 1; th <= 4; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_concat(two, 2, axis, expand, &got));
        expect_same(want, got);
        assert_true(spt_tensor_is_row_major(got, true));
        spt_tensor_free(got);
    }
    spt_set_num_threads(0);
    spt_tensor_free(want);
    spt_tensor_free(e);
}

static void test_two_sorted_inputs(void **state) {
    (void)state;
    static const spt_dtype dts[] = {SPT_FLOAT64, SPT_INT8,  SPT_COMPLEX128, SPT_STRING,
                                    SPT_BOOL,    SPT_INT32, SPT_COMPLEX64};
    lt_rng g = {99};
    int64_t *oa = malloc(sizeof(int64_t) * 200000), *ob = malloc(sizeof(int64_t) * 200000);
    assert_non_null(oa);
    assert_non_null(ob);
    for (int iter = 0; iter < 14; iter++) {
        spt_dtype dt = dts[iter % 7];
        const int64_t r = iter % 3 == 2 ? 2 : 3, axis = 1 + iter % (r - 1);
        int64_t sa[3], sb[3];
        if (r == 2) sa[0] = 3000, sa[1] = 40;
        else sa[0] = 60, sa[1] = 50, sa[2] = 30;
        memcpy(sb, sa, sizeof sa);
        sb[axis] = 7 + iter; /* a different concat dim */
        const int64_t va = lt_volume(r, sa), vb = lt_volume(r, sb);
        /* densities from sparse to full (runs of one entry up to whole rows), one side empty at times */
        const int pa = iter == 3 ? 0 : (int)(iter * 7 % 100), pb = iter == 5 ? 0 : 100 - (int)(iter * 13 % 100);
        int64_t na = 0, nb = 0;
        for (int64_t c = 0; c < va; c++)
            if (lt_int(&g, 100) < pa) oa[na++] = c;
        for (int64_t c = 0; c < vb; c++)
            if (lt_int(&g, 100) < pb) ob[nb++] = c;
        spt_tensor *a = mk_sorted(dt, r, sa, na, oa, 1), *b = mk_sorted(dt, r, sb, nb, ob, 2);
        check_two(a, b, axis, false);
        check_two(b, a, axis, false);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
    /* a entirely before b in every prefix, and expand_nonconcat_dim with different non-concat dims */
    int64_t s1[2] = {5000, 4}, s2[2] = {4000, 6};
    int64_t n1 = 0, n2 = 0;
    for (int64_t c = 0; c < 5000 * 4; c++) oa[n1++] = c;
    for (int64_t c = 0; c < 4000 * 6; c += 2) ob[n2++] = c;
    spt_tensor *a = mk_sorted(SPT_INT64, 2, s1, n1, oa, 3), *b = mk_sorted(SPT_INT64, 2, s2, n2, ob, 4);
    check_two(a, b, 1, true);
    check_two(b, a, 1, true);
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(oa);
    free(ob);
}

/* Two inputs along axis 1 with a few entries or fewer per first coordinate (a 2-D tensor with about one
 * entry per row, a sparse 3-D one): the entry-at-a-time merge of 8-byte values, against the three-input
 * heap merge, 1-4 threads, ties on the first coordinate everywhere, either input the longer, each
 * sparse enough or dense enough to take either merge, and an input ending long before the other. */
static void test_two_sorted_short_runs(void **state) {
    (void)state;
    static const spt_dtype dts[] = {SPT_FLOAT64, SPT_INT64, SPT_COMPLEX64, SPT_UINT64, SPT_FLOAT32};
    lt_rng g = {4242};
    int64_t *oa = malloc(sizeof(int64_t) * 60000), *ob = malloc(sizeof(int64_t) * 60000);
    assert_non_null(oa);
    assert_non_null(ob);
    for (int iter = 0; iter < 20; iter++) {
        const spt_dtype dt = dts[iter % 5];
        const int64_t r = iter % 4 == 3 ? 3 : 2;
        int64_t sa[3], sb[3];
        if (r == 2) sa[0] = 20000, sa[1] = 30;
        else sa[0] = 3000, sa[1] = 5, sa[2] = 4;
        memcpy(sb, sa, sizeof sa);
        sb[1] = 3 + iter;
        const int64_t va = lt_volume(r, sa), vb = lt_volume(r, sb);
        /* per mille: 0.2 to 16 entries a first coordinate on each side; the last iterations put b's
         * entries in the first tenth of the rows only */
        const int pa = 1 + (int)(iter * 37 % 120), pb = 1 + (int)(iter * 53 % 120);
        int64_t na = 0, nb = 0;
        for (int64_t c = 0; c < va && na < 60000; c++)
            if (lt_int(&g, 1000) < pa) oa[na++] = c;
        for (int64_t c = 0; c < (iter >= 16 ? vb / 10 : vb) && nb < 60000; c++)
            if (lt_int(&g, 1000) < pb) ob[nb++] = c;
        spt_tensor *a = mk_sorted(dt, r, sa, na, oa, 7), *b = mk_sorted(dt, r, sb, nb, ob, 8);
        check_two(a, b, 1, false);
        check_two(b, a, 1, false);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
    free(oa);
    free(ob);
}

static void test_two_sorted_wide_prefix(void **state) {
    (void)state;
    /* a prefix past 64 bits (dims [2^40, 2^40] before axis 2) keeps the heap merge on index rows: the
     * same entries as the same coordinates in a small shape */
    int64_t small[3] = {40, 30, 5}, wide[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 5}, off[6000];
    int64_t n = 0;
    for (int64_t c = 0; c < 6000; c++)
        if (c % 3 != 1) off[n++] = c;
    spt_tensor *a = mk_sorted(SPT_FLOAT32, 3, small, n, off, 5), *b = mk_sorted(SPT_FLOAT32, 3, small, n, off, 6);
    spt_tensor *wa, *wb, *want, *got;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, wide, n, spt_tensor_indices(a), spt_tensor_values(a), NULL, &wa));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, wide, n, spt_tensor_indices(b), spt_tensor_values(b), NULL, &wb));
    ASSERT_OK(spt_reorder(wa, NULL));
    ASSERT_OK(spt_reorder(wb, NULL));
    const spt_tensor *sm[2] = {a, b}, *wd[2] = {wa, wb};
    ASSERT_OK(spt_concat(sm, 2, 2, false, &want));
    ASSERT_OK(spt_concat(wd, 2, 2, false, &got));
    assert_int_equal(spt_tensor_nnz(got), 2 * n);
    assert_memory_equal(spt_tensor_indices(want), spt_tensor_indices(got), (size_t)(2 * n * 3) * sizeof(int64_t));
    assert_memory_equal(spt_tensor_values(want), spt_tensor_values(got), (size_t)(2 * n) * sizeof(float));
    lt_expect_row_major(got);
    spt_tensor_free(want);
    spt_tensor_free(got);
    spt_tensor_free(wa);
    spt_tensor_free(wb);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static spt_status sweep_op(lt_sweep *x) { return spt_concat(x->in, 3, x->arg, true, &x->out[0]); }

static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    spt_tensor *a = lt_sweep_strings(), *b = lt_sweep_strings();
    ASSERT_OK(spt_reorder(b, NULL));
    for (int64_t axis = 0; axis < 2; axis++) {
        lt_sweep x = {.op = sweep_op, .in = {a, b, a}, .arg = axis};
        lt_alloc_sweep(&x);
    }
    spt_tensor_free(a);
    spt_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concat3_axis1),
        cmocka_unit_test(test_strings_docstring),
        cmocka_unit_test(test_expand_nonconcat_dim),
        cmocka_unit_test(test_unsorted_and_single),
        cmocka_unit_test(test_seed003_expand_example),
        cmocka_unit_test(test_empty_and_zero_dims),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_property_dense),
        cmocka_unit_test(test_alloc_sweep),
        cmocka_unit_test(test_two_sorted_inputs),
        cmocka_unit_test(test_two_sorted_wide_prefix),
        cmocka_unit_test(test_two_sorted_short_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include "core/internal.h" /* spt__err: the binding-layer checks report through spt_last_error() */
#include <stdlib.h>

static conf_result sparse_concat(const conf_case *c) {
    spt_tensor **ts, *out = NULL;
    int64_t n;
    spt_status st = conf_sparse_list(json_object_get(c->args, "sp_inputs"), &ts, &n);
    JUDGE(c, st);
    int64_t axis = 0;
    conf_ints(json_object_get(c->args, "axis"), &axis, 1);
    /* TF 1 spells the keyword expand_nonconcat_dim, TF 2 (tf_ops_v2.jsonl) expand_nonconcat_dims */
    bool expand = json_is_true(json_object_get(c->args, "expand_nonconcat_dim")) ||
                  json_is_true(json_object_get(c->args, "expand_nonconcat_dims"));
    st = spt_concat((const spt_tensor *const *)ts, n, axis, expand, &out);
    conf_result r = conf_status(c, st);
    if (r == CONF_CONTINUE) r = conf_layout_sparse(c, conf_result_of(c), out);
    spt_tensor_free(out);
    conf_free_list(ts, n);
    return r;
}

CONF_HANDLERS(test_concat, {"sparse_concat", sparse_concat, CONF_OP(spt_concat)})
#endif
