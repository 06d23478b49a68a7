/* SPDX-License-Identifier: Apache-2.0 */
/* test_reduce_sparse_blocks.c -- the sparse-output reductions (spt_reduce_sum_sparse, spt_reduce_max_sparse)
 * on every path: entries sorted by a leading prefix of the kept dims (the block path: one parallel region,
 * each block reduced in a cache-sized scratch and written straight into the output, chunks' gaps closed
 * afterwards), its fallbacks (more than 2 nnz output cells, fewer blocks than threads, unsorted entries,
 * any volume past 2^64). Each output cell must be, bit for bit, its entries folded in storage order, the
 * cells in row-major order, whatever the thread count (1-4). */
#include "../reduce_test_common.h"

/* The expected sparse result: each cell that has entries, its left fold in storage order (first value,
 * then + or max), in row-major order of the kept dims; index rows of the output rank. */
static int64_t fold_sparse(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep, bool max, int64_t **oix,
                           double **ov) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t), *sh = spt_tensor_shape(t), *ix = spt_tensor_indices(t);
    const double *v = spt_tensor_values(t);
    bool red[4] = {false, false, false, false};
    for (int64_t j = 0; j < naxes; j++) red[axes[j]] = true;
    int64_t ovol = 1, orank = 0;
    for (int64_t d = 0; d < r; d++)
        if (!red[d]) ovol *= sh[d];
    for (int64_t d = 0; d < r; d++) orank += keep || !red[d];
    double *acc = calloc((size_t)ovol, sizeof *acc);
    unsigned char *seen = calloc((size_t)ovol, 1);
    assert_true(acc && seen);
    for (int64_t i = 0; i < n; i++) {
        int64_t key = 0;
        for (int64_t d = 0; d < r; d++)
            if (!red[d]) key = key * sh[d] + ix[i * r + d];
        double x = v[i];
        if (seen[key]) acc[key] = max ? (acc[key] < x || x != x ? x : acc[key]) : acc[key] + x;
        else acc[key] = x;
        seen[key] = 1;
    }
    int64_t m = 0;
    *oix = malloc((size_t)(ovol * orank + 1) * sizeof **oix);
    *ov = malloc((size_t)(ovol + 1) * sizeof **ov);
    assert_true(*oix && *ov);
    for (int64_t key = 0; key < ovol; key++) {
        if (!seen[key]) continue;
        int64_t rest = key, *row = *oix + m * orank, co[4] = {0, 0, 0, 0};
        for (int64_t d = r - 1; d >= 0; d--)
            if (!red[d]) {
                co[d] = rest % sh[d];
                rest /= sh[d];
            }
        int64_t k = 0;
        for (int64_t d = 0; d < r; d++)
            if (keep || !red[d]) row[k++] = red[d] ? 0 : co[d];
        (*ov)[m++] = acc[key];
    }
    free(acc);
    free(seen);
    return m;
}

static void expect_fold(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep, bool max,
                        const char *what) {
    int64_t *rix;
    double *rv;
    const int64_t m = fold_sparse(t, axes, naxes, keep, max, &rix, &rv);
    for (int th = 1; th <= 4; th++) {
        spt_tensor *s;
        spt_set_num_threads(th);
        ASSERT_OK(max ? spt_reduce_max_sparse(t, axes, naxes, keep, &s)
                      : spt_reduce_sum_sparse(t, axes, naxes, keep, &s));
        const int64_t orank = spt_tensor_rank(s);
        if (spt_tensor_nnz(s) != m)
            fail_msg("%s threads %d: %lld entries, want %lld", what, th, (long long)spt_tensor_nnz(s), (long long)m);
        if (m && memcmp(spt_tensor_indices(s), rix, (size_t)(m * orank) * sizeof *rix))
            fail_msg("%s threads %d: indices differ", what, th);
        const double *got = spt_tensor_values(s);
        for (int64_t i = 0; i < m; i++)
            if (memcmp(&got[i], &rv[i], sizeof *rv))
                fail_msg("%s threads %d: entry %lld is %a, the fold in storage order %a", what, th, (long long)i,
                         got[i], rv[i]);
        assert_true(spt_tensor_known_sorted(s));
        spt_tensor_free(s);
    }
    spt_set_num_threads(0);
    free(rix);
    free(rv);
}

/* Random entries whose values make the order visible (1e16 / -1e16 cancel only in storage order, -0.0). */
static spt_tensor *order_tensor(const int64_t *shape, int64_t n, const int64_t *order, bool flagged) {
    int64_t *ix = malloc((size_t)(n * 3 + 1) * sizeof *ix);
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    assert_true(ix && v);
    for (int64_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) ix[i * 3 + d] = mt_int(shape[d]);
        int64_t c = mt_int(20);
        v[i] = c == 0 ? 1e16 : c == 1 ? -1e16 : c == 2 ? -0.0 : c < 12 ? 1.0 : (double)(mt_int(2001) - 1000) / 8;
    }
    spt_tensor *t, *u;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, n, ix, v, NULL, &t));
    free(ix);
    free(v);
    if (order) {
        ASSERT_OK(spt_reorder(t, order));
        if (!flagged) { /* the same sorted entries without the flags: sortedness found by the check */
            ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, n, spt_tensor_indices(t), spt_tensor_values(t), NULL, &u));
            spt_tensor_free(t);
            t = u;
        }
    }
    return t;
}

static void test_exact_every_path(void **state) {
    (void)state;
    mt_seed(1616);
    /* {1, 7, 300}: one block (fewer blocks than threads: the fallback); {300, 7, 50} many small blocks */
    const int64_t shapes[4][3] = {{40, 30, 20}, {300, 7, 50}, {5, 400, 60}, {1, 7, 300}};
    const int64_t orders[4][3] = {{0, 1, 2}, {0, 2, 1}, {2, 0, 1}, {1, 0, 2}};
    const int64_t axes_sets[4][2] = {{1, 1}, {2, 2}, {0, 0}, {1, 2}};
    const int64_t nax[4] = {1, 1, 1, 2};
    char what[128];
    for (int si = 0; si < 4; si++)
        for (int oi = -1; oi < 4; oi++) /* -1: unsorted entries */
            for (int flagged = 0; flagged < 2; flagged++) {
                if (oi < 0 && flagged) continue;
                spt_tensor *t = order_tensor(shapes[si], 45000, /* 4 chunks at 4 threads */ oi < 0 ? NULL : orders[oi],
                                             flagged);
                for (int a = 0; a < 4; a++)
                    for (int keep = 0; keep < 2; keep++)
                        for (int max = 0; max < 2 - keep; max++) {
                            snprintf(what, sizeof what, "shape %d order %d flagged %d axes %d keep %d max %d", si, oi,
                                     flagged, a, keep, max);
                            expect_fold(t, axes_sets[a], nax[a], keep, max, what);
                        }
                spt_tensor_free(t);
            }
}

/* The block path is taken while the output has at most 2 nnz cells: at the boundary (2 nnz cells) and one
 * past it (the radix path) the results are the same folds. [4, 3, n/2 or so] row-major, axis 1. */
static void test_memory_bound_boundary(void **state) {
    (void)state;
    mt_seed(18);
    const int64_t order[3] = {0, 1, 2}, ax[1] = {1};
    for (int64_t n = 9; n <= 11; n++) { /* output volume 20: 2 nnz at n = 10, past it at n = 9 */
        const int64_t shape[3] = {4, 3, 5};
        spt_tensor *t = order_tensor(shape, n, order, true);
        char what[64];
        snprintf(what, sizeof what, "boundary n %lld", (long long)n);
        expect_fold(t, ax, 1, false, false, what);
        expect_fold(t, ax, 1, true, true, what);
        spt_tensor_free(t);
    }
    /* many duplicates: 45000 entries into at most 24 cells, most chunks' bounds far above their counts */
    const int64_t shape[3] = {4, 500, 6};
    spt_tensor *t = order_tensor(shape, 45000, order, true);
    expect_fold(t, ax, 1, false, false, "duplicates");
    spt_tensor_free(t);
}

/* Every dtype family on the block path: the sparse result at 1-4 threads has the same bytes, its index
 * rows are exactly the cells with entries (row-major) and its values those of the dense result there. */
static void test_dtypes(void **state) {
    (void)state;
    mt_seed(404);
    const int64_t shape[3] = {50, 40, 30}, ax[1] = {1};
    for (int di = 0; di < MT_NNUMERIC; di++)
        for (int max = 0; max < 2; max++) {
            const spt_dtype dt = MT_NUMERIC[di];
            if (max && (dt == SPT_COMPLEX64 || dt == SPT_COMPLEX128)) continue;
            spt_tensor *t = mt_big_tensor(dt, 3, shape, 45000, true);
            spt_tensor *s[4];
            spt_dense *d;
            for (int th = 1; th <= 4; th++) {
                spt_set_num_threads(th);
                ASSERT_OK(max ? spt_reduce_max_sparse(t, ax, 1, false, &s[th - 1])
                              : spt_reduce_sum_sparse(t, ax, 1, false, &s[th - 1]));
            }
            spt_set_num_threads(1);
            ASSERT_OK(max ? spt_reduce_max(t, ax, 1, false, &d) : spt_reduce_sum(t, ax, 1, false, &d));
            spt_set_num_threads(0);
            for (int th = 2; th <= 4; th++) mt_assert_same_tensor(s[0], s[th - 1]);
            double complex *val;
            int64_t *cnt;
            const int64_t ovol = mt_reduce_ref(t, ax, 1, max, &val, &cnt);
            const size_t es = spt_dtype_size(dt);
            int64_t m = 0;
            for (int64_t o = 0; o < ovol; o++) {
                if (!cnt[o]) continue;
                assert_true(m < spt_tensor_nnz(s[0]));
                const int64_t *row = spt_tensor_indices(s[0]) + m * 2;
                assert_int_equal(row[0] * shape[2] + row[1], o);
                assert_memory_equal((const char *)spt_tensor_values(s[0]) + (size_t)m * es,
                                    (const char *)spt_dense_data(d) + (size_t)o * es, es);
                m++;
            }
            assert_int_equal(m, spt_tensor_nnz(s[0]));
            free(val);
            free(cnt);
            for (int th = 0; th < 4; th++) spt_tensor_free(s[th]);
            spt_dense_free(d);
            spt_tensor_free(t);
        }
}

/* No entries: an empty result of the output shape; an output volume past 2^64 keeps the general path. */
static void test_empty_and_any_volume(void **state) {
    (void)state;
    const int64_t shape[3] = {4, 5, 6}, ax[1] = {1};
    spt_tensor *t, *s;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, shape, 0, NULL, NULL, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    for (int th = 1; th <= 2; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_reduce_sum_sparse(t, ax, 1, true, &s));
        assert_int_equal(spt_tensor_nnz(s), 0);
        assert_int_equal(spt_tensor_rank(s), 3);
        assert_int_equal(spt_tensor_shape(s)[1], 1);
        spt_tensor_free(s);
    }
    spt_set_num_threads(0);
    spt_tensor_free(t);
    /* [2^40, 3, 2^40, 2^40] sorted row-major, axis 1: 2^120 output cells */
    const int64_t big[4] = {INT64_C(1) << 40, 3, INT64_C(1) << 40, INT64_C(1) << 40};
    const int64_t bix[5 * 4] = {0, 0, 5, 7, 0, 2, 5, 7, 0, 1, 5, 8, 9, 0, 0, 0, 9, 2, 0, 0};
    const double bv[5] = {1e16, 1.0, 2.0, -0.0, -0.0};
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 4, big, 5, bix, bv, NULL, &t));
    ASSERT_OK(spt_reorder(t, NULL));
    for (int th = 1; th <= 4; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_reduce_sum_sparse(t, ax, 1, false, &s));
        assert_int_equal(spt_tensor_nnz(s), 3);
        const int64_t want[9] = {0, 5, 7, 0, 5, 8, 9, 0, 0};
        assert_memory_equal(spt_tensor_indices(s), want, sizeof want);
        const double *v = spt_tensor_values(s);
        assert_true(v[0] == 1e16 + 1.0 && v[1] == 2.0 && v[2] == 0.0 && signbit(v[2]));
        spt_tensor_free(s);
    }
    spt_set_num_threads(0);
    spt_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_every_path),
        cmocka_unit_test(test_memory_bound_boundary),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_empty_and_any_volume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
