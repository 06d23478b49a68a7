/* SPDX-License-Identifier: Apache-2.0 */
/* test_reduce_sum.c -- spt_reduce_sum and spt_reduce_sum_sparse. */
#ifndef SPT_CONFORMANCE
#include "../reduce_test_common.h"
#include "ops/elementwise/simd.h"

/* tf.sparse.reduce_sum docstring: [[1, ?, 1], [?, 1, ?]] */
static spt_tensor *doc_tensor(void) {
    int64_t shape[2] = {2, 3}, ix[6] = {0, 0, 0, 2, 1, 1};
    int32_t v[3] = {1, 1, 1};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, shape, 3, ix, v, NULL, &t));
    return t;
}

static void expect_dense_i32(const spt_dense *d, int64_t rank, const int64_t *shape, const int32_t *want) {
    assert_int_equal(spt_dense_rank(d), rank);
    for (int64_t k = 0; k < rank; k++) assert_int_equal(spt_dense_shape(d)[k], shape[k]);
    for (int64_t i = 0; i < spt_dense_size(d); i++) assert_int_equal(((const int32_t *)spt_dense_data(d))[i], want[i]);
}

static void test_docstring(void **state) {
    (void)state;
    spt_tensor *t = doc_tensor();
    spt_dense *d;
    int64_t a0[1] = {0}, a1[1] = {1}, am1[1] = {-1}, a01[2] = {0, 1};
    int64_t s3[1] = {3}, s2[1] = {2}, s21[2] = {2, 1};
    ASSERT_OK(spt_reduce_sum(t, a0, 1, false, &d));
    expect_dense_i32(d, 1, s3, (int32_t[]){1, 1, 1});
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t, a1, 1, false, &d));
    expect_dense_i32(d, 1, s2, (int32_t[]){2, 1});
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t, am1, 1, true, &d));
    expect_dense_i32(d, 2, s21, (int32_t[]){2, 1});
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t, a01, 2, false, &d));
    expect_dense_i32(d, 0, NULL, (int32_t[]){3});
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, false, &d)); /* axes NULL = all */
    expect_dense_i32(d, 0, NULL, (int32_t[]){3});
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, true, &d));
    int64_t s11[2] = {1, 1};
    expect_dense_i32(d, 2, s11, (int32_t[]){3});
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_sparse_output(void **state) {
    (void)state;
    /* SparseReduceSumSparse test: [3,2] float, axis 0 -> [5, 6] */
    int64_t shape[2] = {3, 2}, ix[8] = {0, 1, 1, 0, 2, 0, 2, 1};
    float v[4] = {2, 2, 3, 4};
    spt_tensor *t, *s;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, shape, 4, ix, v, NULL, &t));
    int64_t a0[1] = {0};
    ASSERT_OK(spt_reduce_sum_sparse(t, a0, 1, false, &s));
    int64_t want_shape[1] = {2}, want_ix[2] = {0, 1};
    spt_test_expect_tensor(s, 1, want_shape, 2, want_ix, (float[]){5, 6});
    spt_tensor_free(s);
    /* keep_dims: reduced coordinates are 0, dim 1 */
    ASSERT_OK(spt_reduce_sum_sparse(t, a0, 1, true, &s));
    int64_t ks[2] = {1, 2}, kix[4] = {0, 0, 0, 1};
    spt_test_expect_tensor(s, 2, ks, 2, kix, (float[]){5, 6});
    spt_tensor_free(s);
    spt_tensor_free(t);
    /* empty axes at kernel level: nothing reduced, duplicates merged (a zero sum stays) */
    int64_t sh2[2] = {2, 2}, ix2[8] = {1, 1, 0, 0, 1, 1, 0, 1};
    int32_t v2[4] = {5, 1, 2, 0};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 2, sh2, 4, ix2, v2, NULL, &t));
    int64_t none[1] = {0};
    ASSERT_OK(spt_reduce_sum_sparse(t, none, 0, false, &s));
    int64_t wix[6] = {0, 0, 0, 1, 1, 1};
    spt_test_expect_tensor(s, 2, sh2, 3, wix, (int32_t[]){1, 0, 7});
    spt_tensor_free(s);
    spt_tensor_free(t);
}

static void test_errors(void **state) {
    (void)state;
    spt_tensor *t = doc_tensor(), *s = (spt_tensor *)1;
    spt_dense *d = (spt_dense *)1;
    int64_t a2[1] = {2}, am3[1] = {-3};
    ASSERT_ST(SPT_ERANGE, spt_reduce_sum(t, a2, 1, false, &d));
    assert_null(d);
    ASSERT_MSG("Invalid reduction dimension 2, for input with 2 dimensions.");
    ASSERT_ST(SPT_ERANGE, spt_reduce_sum_sparse(t, am3, 1, false, &s));
    assert_null(s);
    ASSERT_MSG("Invalid reduction dimension -3, for input with 2 dimensions.");
    ASSERT_ST(SPT_EINVAL, spt_reduce_sum(t, a2, -1, false, &d));
    ASSERT_ST(SPT_EINVAL, spt_reduce_sum(NULL, NULL, 0, false, &d));
    ASSERT_ST(SPT_EINVAL, spt_reduce_sum(t, NULL, 0, false, NULL));
    spt_tensor_free(t);
    /* out-of-bounds index (CVE-2021-37635 PoC) */
    int64_t shape[3] = {337, 337, 337}, ix[6] = {773, 773, 773, 773, 773, 773}, a1[1] = {1};
    int32_t v[2] = {1, 1};
    ASSERT_OK(spt_tensor_new(SPT_INT32, 3, shape, 2, ix, v, NULL, &t));
    ASSERT_ST(SPT_ERANGE, spt_reduce_sum(t, a1, 1, false, &d));
    ASSERT_ST(SPT_ERANGE, spt_reduce_sum_sparse(t, a1, 1, false, &s));
    spt_tensor_free(t);
    /* dtypes: bool and string are not summed */
    int64_t sh1[1] = {2}, ix1[1] = {0};
    bool b = true;
    ASSERT_OK(spt_tensor_new(SPT_BOOL, 1, sh1, 1, ix1, &b, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_reduce_sum(t, NULL, 0, false, &d));
    spt_tensor_free(t);
    spt_str str = {"x", 1};
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, sh1, 1, ix1, &str, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_reduce_sum_sparse(t, NULL, 0, false, &s));
    spt_tensor_free(t);
}

static void test_empty_and_zero_dims(void **state) {
    (void)state;
    spt_tensor *t, *s;
    spt_dense *d;
    int64_t shape[2] = {0, 3}, a1[1] = {1};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_reduce_sum(t, a1, 1, false, &d));
    assert_int_equal(spt_dense_rank(d), 1);
    assert_int_equal(spt_dense_shape(d)[0], 0);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, false, &d));
    assert_int_equal(spt_dense_size(d), 1);
    assert_true(((const double *)spt_dense_data(d))[0] == 0);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum_sparse(t, NULL, 0, false, &s));
    assert_int_equal(spt_tensor_nnz(s), 0);
    assert_int_equal(spt_tensor_rank(s), 0);
    spt_tensor_free(s);
    spt_tensor_free(t);
    /* N = 0 with a non-empty shape */
    int64_t sh3[3] = {2, 3, 4};
    ASSERT_OK(spt_tensor_new(SPT_INT16, 3, sh3, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_reduce_sum_sparse(t, a1, 1, true, &s));
    assert_int_equal(spt_tensor_nnz(s), 0);
    assert_int_equal(spt_tensor_shape(s)[1], 1);
    spt_tensor_free(s);
    ASSERT_OK(spt_reduce_sum(t, a1, 1, false, &d));
    assert_int_equal(spt_dense_size(d), 8);
    spt_dense_free(d);
    spt_tensor_free(t);
    /* rank 0: a scalar with duplicates */
    int64_t v[2] = {4, 5};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 0, NULL, 2, NULL, v, NULL, &t));
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, false, &d));
    assert_int_equal(((const int64_t *)spt_dense_data(d))[0], 9);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum_sparse(t, NULL, 0, false, &s));
    spt_test_expect_tensor(s, 0, NULL, 1, NULL, (int64_t[]){9});
    spt_tensor_free(s);
    spt_tensor_free(t);
}

static void test_huge_sparse_output(void **state) {
    (void)state;
    /* sparse output of a huge shape allocates nothing of the dense size; unsorted keys take the radix path */
    int64_t shape[3] = {1073741824, 1073741824, 2}, ix[9] = {5, 7, 1, 1, 2, 0, 5, 7, 0}, a2[1] = {2};
    double v[3] = {3, 1, 0.5};
    spt_tensor *t, *s;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_reduce_sum_sparse(t, a2, 1, false, &s));
    int64_t ws[2] = {1073741824, 1073741824}, wix[4] = {1, 2, 5, 7};
    spt_test_expect_tensor(s, 2, ws, 2, wix, (double[]){1, 3.5});
    spt_tensor_free(s);
    spt_dense *d = (spt_dense *)1;
    spt_status st = spt_reduce_sum(t, a2, 1, false, &d); /* 2^60 doubles: cannot be allocated */
    assert_true(st == SPT_ENOMEM || st == SPT_EOVERFLOW);
    assert_null(d);
    spt_tensor_free(t);
}

static void test_complex(void **state) {
    (void)state;
    int64_t shape[2] = {2, 2}, ix[6] = {0, 0, 0, 1, 1, 1}, a1[1] = {1};
    double _Complex v[3] = {1 + 2 * I, 3 - 1 * I, 2};
    spt_tensor *t;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_COMPLEX128, 2, shape, 3, ix, v, NULL, &t));
    ASSERT_OK(spt_reduce_sum(t, a1, 1, false, &d));
    const double _Complex *o = spt_dense_data(d);
    assert_true(o[0] == 4 + 1 * I && o[1] == 2);
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_integer_wraps(void **state) {
    (void)state;
    int64_t shape[1] = {2}, ix[2] = {0, 0};
    int8_t v[2] = {100, 100};
    spt_tensor *t;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_INT8, 1, shape, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, false, &d));
    assert_int_equal(((const int8_t *)spt_dense_data(d))[0], -56);
    spt_dense_free(d);
    spt_tensor_free(t);
    int64_t big[2] = {INT64_MAX, 1};
    ASSERT_OK(spt_tensor_new(SPT_INT64, 1, shape, 2, ix, big, NULL, &t));
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, false, &d));
    assert_true(((const int64_t *)spt_dense_data(d))[0] == INT64_MIN);
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_property(void **state) {
    (void)state;
    rt_property(false, spt_reduce_sum, spt_reduce_sum_sparse, MT_NUMERIC, MT_NNUMERIC);
}
static void test_threads(void **state) {
    (void)state;
    rt_threads(spt_reduce_sum, spt_reduce_sum_sparse);
}
static void test_alloc_sweep(void **state) {
    (void)state;
    rt_sweep(spt_reduce_sum, spt_reduce_sum_sparse);
}

/* The sum over every axis groups each thread's float64 values into 32 interleaved partial sums (spt.h).
 * With v = {1e16, 1 x 66} in one thread: lane 0 = 1e16 + 4 ones (v[32] and the 3 past the last group of
 * 32), each lost to rounding (ulp 2, ties to even); lanes 1-31 = 2 each; halving: 1e16 + 2, + 4, + 8, + 16,
 * + 32 -> 1e16 + 62 exactly. A single chain in storage order would give 1e16, and the sparse output must
 * give the same number. */
static void test_all_axes_lanes(void **state) {
    (void)state;
    enum { N = 67 };
    int64_t shape[1] = {N}, ix[N];
    double v[N];
    for (int i = 0; i < N; i++) {
        ix[i] = i;
        v[i] = i == 0 ? 1e16 : 1.0;
    }
    spt_tensor *t, *s;
    spt_dense *d;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, shape, N, ix, v, NULL, &t));
    spt_set_num_threads(1);
    ASSERT_OK(spt_reduce_sum(t, NULL, 0, false, &d));
    assert_true(*(const double *)spt_dense_data(d) == 1e16 + 62.0);
    spt_dense_free(d);
    ASSERT_OK(spt_reduce_sum_sparse(t, NULL, 0, false, &s));
    assert_int_equal(spt_tensor_nnz(s), 1);
    assert_true(*(const double *)spt_tensor_values(s) == 1e16 + 62.0);
    spt_tensor_free(s);
    /* 15 values: below the float64 lanes' minimum of 32, one chain in storage order */
    spt_tensor *u;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, shape, 15, ix, v, NULL, &u));
    ASSERT_OK(spt_reduce_sum(u, NULL, 0, false, &d));
    assert_true(*(const double *)spt_dense_data(d) == 1e16);
    spt_dense_free(d);
    spt_set_num_threads(0);
    spt_tensor_free(u);
    spt_tensor_free(t);
}

/* The lanes of spt.h, written out: L = 32 (double) or 64 (float) lanes; lane k sums v[k], v[k + L], ...
 * in order, the values past the last full group of L go to lane 0, then lane k + h is added into lane k
 * for h = L/2, L/4, ..., 1; one chain below L values. */
#define LANES_REF(T)                                                                                                   \
    static T lanes_ref_##T(const T *v, int64_t n) {                                                                    \
        enum { L = 16 * (16 / sizeof(T)) };                                                                            \
        T l[L] = {v[0]};                                                                                               \
        int64_t i = 1;                                                                                                 \
        if (n < L) {                                                                                                   \
            for (; i < n; i++) l[0] = l[0] + v[i];                                                                     \
            return l[0];                                                                                               \
        }                                                                                                              \
        for (int k = 1; k < L; k++) l[k] = v[k];                                                                       \
        for (i = L; n - i >= L; i += L)                                                                                \
            for (int k = 0; k < L; k++) l[k] = l[k] + v[i + k];                                                        \
        for (; i < n; i++) l[0] = l[0] + v[i];                                                                         \
        for (int h = L / 2; h >= 1; h /= 2)                                                                            \
            for (int k = 0; k < h; k++) l[k] = l[k] + l[k + h];                                                        \
        return l[0];                                                                                                   \
    }
LANES_REF(double)
LANES_REF(float)
#undef LANES_REF

/* The sum over every axis on one thread in every vector form, float64 and float32, lengths around the
 * lanes' edges and long ones, values of mixed magnitude and sign (so any other grouping shows), -0.0, inf and NaN: the bits of
 * lanes_ref (a vector form of the lanes must keep each lane adding its own values in order). */
static void test_all_axes_lanes_exact(void **state) {
    (void)state;
    static const int64_t lens[] = {1,  15, 16, 17, 23, 24,  25,  31,  32,  33,   47,   48,   63,
                                   64, 65, 95, 96, 97, 100, 127, 128, 129, 1001, 4099, 70001};
    enum { MAXN = 70001 };
    double *dv = malloc(MAXN * sizeof *dv);
    float *fv = malloc(MAXN * sizeof *fv);
    int64_t *ix = malloc(MAXN * sizeof *ix);
    assert_non_null(dv);
    assert_non_null(fv);
    assert_non_null(ix);
    uint64_t x = 12345;
    spt_set_num_threads(1);
    for (int form = SPT__SIMD_SCALAR; form <= SPT__SIMD_AVX512; form++) /* every form the processor has */
        for (int special = 0; special < 3 && spt__simd_force(form) == form; special++)
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                const int64_t n = lens[li], shape[1] = {n};
                for (int64_t i = 0; i < n; i++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    const double m = (double)(int64_t)(x >> 11) / 9007199254740992.0 - 0.5; /* [-0.5, 0.5) */
                    const int e = (int)((x >> 3) % 60) - 30;
                    dv[i] = ldexp(m, e);
                    fv[i] = (float)dv[i];
                    ix[i] = i;
                }
                if (special == 1) dv[n / 2] = fv[n / 2] = -0.0f, dv[n - 1] = fv[n - 1] = INFINITY;
                if (special == 2) dv[n / 3] = fv[n / 3] = NAN;
                spt_tensor *td, *tf;
                spt_dense *d;
                ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 1, shape, n, ix, dv, NULL, &td));
                ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 1, shape, n, ix, fv, NULL, &tf));
                const double wd = lanes_ref_double(dv, n);
                const float wf = lanes_ref_float(fv, n);
                ASSERT_OK(spt_reduce_sum(td, NULL, 0, false, &d));
                assert_memory_equal(spt_dense_data(d), &wd, sizeof wd);
                spt_dense_free(d);
                ASSERT_OK(spt_reduce_sum(tf, NULL, 0, false, &d));
                assert_memory_equal(spt_dense_data(d), &wf, sizeof wf);
                spt_dense_free(d);
                spt_tensor_free(td);
                spt_tensor_free(tf);
            }
    spt__simd_force(-1);
    spt_set_num_threads(0);
    free(dv);
    free(fv);
    free(ix);
}

/* The dense outputs read straight from the index rows (runs when the entries are sorted by the kept
 * dims, blocks when only a leading prefix of them is sorted, the key scatter otherwise) must give,
 * bit for bit, each cell's left fold in storage order (first value, then + / max with the next ones),
 * 0 in the empty cells, whatever the thread count and whether sortedness comes from the flags or from
 * the check. The values make the order visible: 1e16 and -1e16 cancel only if the ones between them
 * are added in storage order. And a cell holding only -0.0 stays -0.0 (a fold started from +0.0 would
 * give +0.0) while an empty one is +0.0. */
static void fold_ref(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool max, double *ref, int64_t ovol) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t), *sh = spt_tensor_shape(t), *ix = spt_tensor_indices(t);
    const double *v = spt_tensor_values(t);
    bool red[4] = {false, false, false, false};
    for (int64_t j = 0; j < naxes; j++) red[axes[j]] = true;
    unsigned char *seen = calloc((size_t)ovol + 1, 1);
    assert_non_null(seen);
    for (int64_t o = 0; o < ovol; o++) ref[o] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        int64_t key = 0;
        for (int64_t d = 0; d < r; d++)
            if (!red[d]) key = key * sh[d] + ix[i * r + d];
        double x = v[i];
        if (seen[key]) ref[key] = max ? (ref[key] < x ? x : ref[key]) : ref[key] + x;
        else ref[key] = x;
        seen[key] = 1;
    }
    free(seen);
}

static void test_direct_paths_exact(void **state) {
    (void)state;
    { /* [3, 4]: row 0 = 1e16 + 1 + 1 - 1e16 = 0 in storage order (2 otherwise), row 1 only -0.0, row 2 empty */
        int64_t shape[2] = {3, 4}, ix[12] = {0, 0, 0, 1, 0, 2, 0, 3, 1, 1, 1, 3}, ax[1] = {1};
        double v[6] = {1e16, 1.0, 1.0, -1e16, -0.0, -0.0};
        for (int flagged = 0; flagged < 2; flagged++) {
            spt_tensor *t;
            spt_dense *d;
            ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 6, ix, v, NULL, &t));
            if (flagged) ASSERT_OK(spt_reorder(t, NULL));
            ASSERT_OK(spt_reduce_sum(t, ax, 1, false, &d));
            const double *o = spt_dense_data(d);
            assert_true(o[0] == 0.0 && !signbit(o[0]));
            assert_true(o[1] == 0.0 && signbit(o[1]));
            assert_true(o[2] == 0.0 && !signbit(o[2]));
            spt_dense_free(d);
            spt_tensor_free(t);
        }
    }
    mt_seed(4242);
    int64_t shapes[3][3] = {{40, 30, 20}, {300, 7, 50}, {5, 400, 60}};
    const int64_t orders[4][3] = {{0, 1, 2}, {0, 2, 1}, {2, 0, 1}, {1, 0, 2}};
    const int64_t axes_sets[4][2] = {{1, 1}, {2, 2}, {0, 0}, {1, 2}};
    const int64_t nax[4] = {1, 1, 1, 2};
    for (int si = 0; si < 3; si++) {
        const int64_t *shape = shapes[si], n = 60000 + si * 20000;
        int64_t *ix = malloc((size_t)n * 3 * sizeof *ix);
        double *v = malloc((size_t)n * sizeof *v);
        assert_true(ix && v);
        for (int64_t i = 0; i < n; i++) {
            for (int d = 0; d < 3; d++) ix[i * 3 + d] = mt_int(shape[d]);
            int64_t c = mt_int(20);
            v[i] = c == 0 ? 1e16 : c == 1 ? -1e16 : c == 2 ? -0.0 : c < 12 ? 1.0 : (double)(mt_int(2001) - 1000) / 8;
        }
        /* one cell that only holds -0.0 (at the first index of every dim) */
        for (int d = 0; d < 3; d++) ix[d] = 0;
        v[0] = -0.0;
        for (int64_t i = 1; i < n; i++)
            if (ix[i * 3] == 0 && ix[i * 3 + 1] == 0 && ix[i * 3 + 2] == 0) ix[i * 3 + 2] = 1 + mt_int(shape[2] - 1);
        for (int oi = 0; oi < 4; oi++)
            for (int flagged = 0; flagged < 2; flagged++) {
                spt_tensor *t, *u;
                ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, n, ix, v, NULL, &t));
                ASSERT_OK(spt_reorder(t, orders[oi]));
                if (!flagged) { /* the same sorted entries without the flags: sortedness found by the check */
                    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, n, spt_tensor_indices(t), spt_tensor_values(t),
                                             NULL, &u));
                    spt_tensor_free(t);
                    t = u;
                }
                for (int a = 0; a < 4; a++)
                    for (int max = 0; max < 2; max++) {
                        int64_t ovol = 1;
                        bool red[3] = {false, false, false};
                        for (int j = 0; j < nax[a]; j++) red[axes_sets[a][j]] = true;
                        for (int d = 0; d < 3; d++)
                            if (!red[d]) ovol *= shape[d];
                        double *ref = malloc((size_t)ovol * sizeof *ref);
                        assert_non_null(ref);
                        fold_ref(t, axes_sets[a], nax[a], max, ref, ovol);
                        for (int th = 1; th <= 4; th++) {
                            spt_dense *d;
                            spt_set_num_threads(th);
                            ASSERT_OK(max ? spt_reduce_max(t, axes_sets[a], nax[a], false, &d)
                                          : spt_reduce_sum(t, axes_sets[a], nax[a], false, &d));
                            assert_int_equal(spt_dense_size(d), ovol);
                            if (memcmp(spt_dense_data(d), ref, (size_t)ovol * sizeof *ref) != 0) {
                                const double *got = spt_dense_data(d);
                                for (int64_t o = 0; o < ovol; o++)
                                    if (memcmp(&got[o], &ref[o], sizeof *ref))
                                        fail_msg("shape %d order %d flagged %d axes %d max %d threads %d: cell %lld "
                                                 "is %a, the fold in storage order %a",
                                                 si, oi, flagged, a, max, th, (long long)o, got[o], ref[o]);
                            }
                            spt_dense_free(d);
                        }
                        spt_set_num_threads(0);
                        free(ref);
                    }
                spt_tensor_free(t);
            }
        free(ix);
        free(v);
    }
}

/* Float sums with a one-dim key over sorted rows whose lengths follow no pattern take the branch-free
 * runs (template/reduce_kernel.c, rb_runs) when AVX2 is there: every cell must still be the left fold of
 * its entries in storage order, bit for bit, -0.0 alone stays -0.0, empty cells +0.0, at 1-4 threads and
 * under every instruction-set form. The row steps: random rows (a few entries each), gaps drawn around
 * the branch-free loop's zero width Z (4 doubles, 8 floats: gaps Z-1 .. Z+2 and long ones), one run
 * over two of the four streams' starts (a stream left empty), and the first and last keys far from the ends. */
static void runs_keys(int mode, int64_t n, int64_t *row, int64_t *rows) {
    int64_t k = mode == 3 ? 1000 : 0;
    for (int64_t i = 0; i < n; i++) {
        if (i > 0) {
            int64_t step;
            if (mode == 0 || (mode == 2 && (i < n / 2 - n / 20 || i > n / 2 + (n * 3) / 10)))
                step = mt_int(3) == 0 ? 0 : mt_int(3);
            else if (mode == 2) step = 0; /* the long run */
            else { /* mostly 0-2 (so rb_runs is chosen), a few Z, Z + 1 (double: 5, 6; float: 9, 10) and long */
                const int64_t r = mt_int(100);
                step = r < 35   ? 0
                       : r < 65 ? 1
                       : r < 80 ? 2
                       : r < 83 ? 5
                       : r < 86 ? 6
                       : r < 89 ? 9
                       : r < 92 ? 10
                       : r < 95 ? 3
                                : 20 + mt_int(40);
            }
            k += step;
        }
        row[i] = k;
    }
    *rows = k + 1 + (mode == 3 ? 777 : mt_int(3));
}

/* A freed output of `cells` cells of dtype filled with 0x7f bytes: the block cache hands it to the next
 * output of that size, so a cell the kernel leaves unwritten shows instead of reading as a fresh page's 0. */
static void dirty_block(spt_dtype dtype, int64_t cells) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new(dtype, 1, &cells, &d));
    memset(spt_dense_data_mut(d), 0x7f, (size_t)cells * (dtype == SPT_FLOAT64 ? 8 : 4));
    spt_dense_free(d);
}

static void test_runs_branch_free(void **state) {
    (void)state;
    enum { N = 600000 };
    int64_t *row = malloc(N * sizeof *row), *ix = malloc(N * 3 * sizeof *ix);
    double *dv = malloc(N * sizeof *dv), *ref = NULL;
    float *fv = malloc(N * sizeof *fv);
    assert_true(row && ix && dv && fv);
    mt_seed(777);
    for (int mode = 0; mode < 4; mode++) {
        int64_t rows;
        runs_keys(mode, N, row, &rows);
        for (int64_t i = 0; i < N; i++) {
            const int64_t c = mt_int(20);
            dv[i] = c == 0   ? 1e16
                    : c == 1 ? -1e16
                    : c == 2 ? -0.0
                    : c == 3 ? ldexp(1.0, -30)
                             : (double)(mt_int(2001) - 1000) / 8;
            fv[i] = (float)(c == 0 ? 1e8 : c == 1 ? -1e8 : dv[i]);
        }
        dv[N - 1] = fv[N - 1] = -0.0f; /* the last row: only -0.0 */
        for (int rank = 2; rank <= 3; rank++) {
            /* 2-D [rows, 9] summed over axis 1; 3-D [rows, 3, 3] over axes 1 and 2 (the same cells) */
            const int64_t shape[3] = {rows, rank == 2 ? 9 : 3, 3}, axes[2] = {1, 2};
            for (int64_t i = 0; i < N; i++) {
                ix[i * rank] = row[i];
                ix[i * rank + 1] = i % shape[1];
                if (rank == 3) ix[i * rank + 2] = (i / 3) % 3;
            }
            if (row[N - 1] == row[N - 2]) ix[(N - 1) * rank] = row[N - 1] + 1 < rows ? row[N - 1] + 1 : row[N - 1];
            spt_tensor *td, *tf;
            ASSERT_OK(spt_tensor_new(SPT_FLOAT64, rank, shape, N, ix, dv, NULL, &td));
            ASSERT_OK(spt_tensor_new(SPT_FLOAT32, rank, shape, N, ix, fv, NULL, &tf));
            ASSERT_OK(spt_reorder(td, NULL));
            ASSERT_OK(spt_reorder(tf, NULL));
            ref = malloc((size_t)rows * sizeof *ref);
            float *reff = malloc((size_t)rows * sizeof *reff);
            unsigned char *seen = calloc((size_t)rows, 1);
            assert_true(ref && reff && seen);
            fold_ref(td, axes, rank - 1, false, ref, rows);
            { /* the float fold, as fold_ref's */
                const int64_t *tix = spt_tensor_indices(tf);
                const float *tv = spt_tensor_values(tf);
                for (int64_t o = 0; o < rows; o++) reff[o] = 0.0f;
                for (int64_t i = 0; i < N; i++) {
                    const int64_t r = tix[i * rank];
                    reff[r] = seen[r] ? reff[r] + tv[i] : tv[i];
                    seen[r] = 1;
                }
            }
            for (int form = SPT__SIMD_SCALAR; form <= SPT__SIMD_AVX512; form++) {
                if (spt__simd_force(form) != form) continue;
                for (int th = 1; th <= 4; th++) {
                    spt_dense *d;
                    spt_set_num_threads(th);
                    dirty_block(SPT_FLOAT64, rows);
                    ASSERT_OK(spt_reduce_sum(td, axes, rank - 1, false, &d));
                    assert_int_equal(spt_dense_size(d), rows);
                    const double *got = spt_dense_data(d);
                    for (int64_t o = 0; o < rows; o++)
                        if (memcmp(&got[o], &ref[o], sizeof *ref))
                            fail_msg("float64 mode %d rank %d form %d threads %d: cell %lld is %a, the fold %a", mode,
                                     rank, form, th, (long long)o, got[o], ref[o]);
                    spt_dense_free(d);
                    dirty_block(SPT_FLOAT32, rows);
                    ASSERT_OK(spt_reduce_sum(tf, axes, rank - 1, false, &d));
                    const float *gf = spt_dense_data(d);
                    for (int64_t o = 0; o < rows; o++)
                        if (memcmp(&gf[o], &reff[o], sizeof *reff))
                            fail_msg("float32 mode %d rank %d form %d threads %d: cell %lld is %a, the fold %a", mode,
                                     rank, form, th, (long long)o, (double)gf[o], (double)reff[o]);
                    spt_dense_free(d);
                }
            }
            spt__simd_force(-1);
            spt_set_num_threads(0);
            free(ref);
            free(reff);
            free(seen);
            spt_tensor_free(td);
            spt_tensor_free(tf);
        }
    }
    free(row);
    free(ix);
    free(dv);
    free(fv);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docstring),
        cmocka_unit_test(test_sparse_output),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty_and_zero_dims),
        cmocka_unit_test(test_huge_sparse_output),
        cmocka_unit_test(test_complex),
        cmocka_unit_test(test_integer_wraps),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_all_axes_lanes),
        cmocka_unit_test(test_all_axes_lanes_exact),
        cmocka_unit_test(test_runs_branch_free),
        cmocka_unit_test(test_alloc_sweep),
        cmocka_unit_test(test_direct_paths_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

static conf_result reduce_sum(const conf_case *c) { return conf_reduce(c, false, false); }

static conf_result reduce_sum_sparse(const conf_case *c) { return conf_reduce(c, false, true); }

CONF_HANDLERS(test_reduce_sum, {"sparse_reduce_sum", reduce_sum, CONF_OP(spt_reduce_sum)},
              {"sparse_reduce_sum_sparse", reduce_sum_sparse, CONF_OP(spt_reduce_sum_sparse)})
#endif
