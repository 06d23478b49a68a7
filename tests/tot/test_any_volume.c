/* SPDX-License-Identifier: Apache-2.0 */
/* test_any_volume.c -- the tensor-of-tensors functions on shapes of any volume: FROSTT nell-1's dims
 * (69 key bits), a rank-6 shape of 2^62 per dim (372 bits), rank 64 with every dim 2^63-1, the key
 * engine's boundaries (sum of bit widths exactly 64 and 65, 128 and 129), outer shapes past INT64_MAX.
 *
 * The reference never linearizes a large shape: each case is drawn on a small shape, and the large
 * case is the same data with every index sent through a strictly increasing map per mode (small index
 * i of a dim s -> a spread of [0, big dim), the last one to big dim - 1). Such maps keep the
 * lexicographic order of rows and the rank of every value among a mode's distinct values, so the
 * sparsified ToT is the same -- same inner shapes, same values, outer indices mapped -- whatever the
 * volume. The small result comes from spt_sparsify_dense on the densified small T and is itself checked
 * against the naive reference of tot_ref.h. Also: the block API's limit (int64 bounds), the ToT
 * constructor, and the dense-output errors of spt_reduce_tot_sum. */
#include "tot_ref.h"

#define P62 ((int64_t)1 << 62)

/* Small index i of a dim s to the large dim b (b >= s): strictly increasing, s - 1 -> b - 1. */
static int64_t up(int64_t i, int64_t s, int64_t b) {
    if (i == s - 1) return b - 1;
    return i * ((b - 1) / (s - 1));
}

typedef struct vcase {
    const char *name;
    int64_t R, NI, nmap, i2m[4];  /* at most two injections */
    int64_t small[64], big[64];   /* T's shape */
    int64_t osmall[64], obig[64]; /* outer shape (pinned modes: filled from T's) */
    int64_t nnz, npairs;
} vcase;

/* Outer entries of `got` are those of `ref` mapped through up() per mode; inner shapes and values are
 * equal. */
static void expect_mapped(const spt_tot *ref, const spt_tot *got, const int64_t *os, const int64_t *ob) {
    assert_int_equal(spt_tot_count(ref), spt_tot_count(got));
    const int64_t NI = spt_tot_outer_rank(ref);
    assert_int_equal(NI, spt_tot_outer_rank(got));
    for (int64_t k = 0; k < NI; k++) assert_int_equal(spt_tot_outer_shape(got)[k], ob[k]);
    for (int64_t i = 0; i < spt_tot_count(ref); i++) {
        spt_tot_inner x, y;
        ASSERT_OK(spt_tot_entry(ref, i, &x));
        ASSERT_OK(spt_tot_entry(got, i, &y));
        for (int64_t k = 0; k < NI; k++) assert_int_equal(y.outer[k], up(x.outer[k], os[k], ob[k]));
        assert_int_equal(x.rank, y.rank);
        for (int64_t j = 0; j < x.rank; j++) assert_int_equal(x.shape[j], y.shape[j]);
        assert_int_equal(x.size, y.size);
        assert_memory_equal(x.data, y.data, (size_t)x.size * sizeof(double));
    }
}

static void run_case(vcase *c) {
    print_message("case %s\n", c->name);
    const int64_t R = c->R, NI = c->NI, D = R - c->nmap, n = c->nnz, np = c->npairs;
    int64_t pin[64], fm[64], pinned[64] = {0};
    for (int64_t k = 0; k < NI; k++) pin[k] = -1;
    for (int64_t p = 0; p < c->nmap; p++) {
        pin[c->i2m[2 * p]] = c->i2m[2 * p + 1];
        pinned[c->i2m[2 * p + 1]] = 1;
    }
    for (int64_t m = 0, j = 0; m < R; m++)
        if (!pinned[m]) fm[j++] = m;
    for (int64_t k = 0; k < NI; k++)
        if (pin[k] >= 0) {
            c->osmall[k] = c->small[pin[k]];
            c->obig[k] = c->big[pin[k]];
        }
    /* T: random entries, every 5th a repeat of an earlier index (the last stored wins) */
    int64_t *ixs = malloc((size_t)(n * R) * sizeof(int64_t)), *ixb = malloc((size_t)(n * R) * sizeof(int64_t));
    double *v = malloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        int64_t from = i > 0 && i % 5 == 0 ? ref_rand(i) : -1;
        for (int64_t m = 0; m < R; m++) ixs[i * R + m] = from >= 0 ? ixs[from * R + m] : ref_rand(c->small[m]);
        for (int64_t m = 0; m < R; m++) ixb[i * R + m] = up(ixs[i * R + m], c->small[m], c->big[m]);
        v[i] = (double)(i + 1);
    }
    /* the map: keys inside the outer shape (pinned components inside T), dependent indices inside T */
    int64_t *inds = malloc((size_t)(np * NI + 1) * sizeof(int64_t)),
            *indb = malloc((size_t)(np * NI + 1) * sizeof(int64_t));
    int64_t *deps = malloc((size_t)(np * D + 1) * sizeof(int64_t)),
            *depb = malloc((size_t)(np * D + 1) * sizeof(int64_t));
    for (int64_t p = 0; p < np; p++) {
        for (int64_t k = 0; k < NI; k++) {
            inds[p * NI + k] = ref_rand(c->osmall[k]);
            indb[p * NI + k] = up(inds[p * NI + k], c->osmall[k], c->obig[k]);
        }
        for (int64_t j = 0; j < D; j++) {
            deps[p * D + j] = ref_rand(c->small[fm[j]]);
            depb[p * D + j] = up(deps[p * D + j], c->small[fm[j]], c->big[fm[j]]);
        }
    }
    spt_sparse_map *sms, *smb;
    ASSERT_OK(spt_sparse_map_new(NI, D, np, inds, deps, &sms));
    ASSERT_OK(spt_sparse_map_new(NI, D, np, indb, depb, &smb));
    /* the small reference, dense, checked against the naive one */
    spt_tensor *ts, *tb;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, R, c->small, n, ixs, v, NULL, &ts));
    spt_dense *dense;
    ASSERT_OK(spt_to_dense(ts, NULL, false, &dense));
    spt_tot *ref, *got;
    ASSERT_OK(spt_sparsify_dense(dense, sms, c->nmap, c->i2m, c->osmall, &ref));
    ref_check(ref, spt_dense_data(dense), R, c->small, NI, D, np, inds, deps, c->nmap, c->i2m, c->osmall);
    assert_true(spt_tot_count(ref) > 0);
    /* the large T unsorted (sorted by the key engine), then sorted in place by several orders */
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, R, c->big, n, ixb, v, NULL, &tb));
    ASSERT_OK(spt_sparsify(tb, smb, c->nmap, c->i2m, c->obig, &got));
    expect_mapped(ref, got, c->osmall, c->obig);
    spt_tot_free(got);
    int64_t order[64];
    for (int variant = 0; variant < 3; variant++) {
        for (int64_t m = 0; m < R; m++)
            order[m] = variant == 0 ? m : variant == 1 ? R - 1 - m : (m + 1) % R; /* row-major, reversed, rotated */
        spt_tensor *sorted;
        ASSERT_OK(spt_reordered(tb, order, &sorted));
        ASSERT_OK(spt_sparsify(sorted, smb, c->nmap, c->i2m, c->obig, &got));
        expect_mapped(ref, got, c->osmall, c->obig);
        spt_tot_free(got);
        spt_tensor_free(sorted);
    }
    /* blocks: linear int64 bounds, so an outer shape past INT64_MAX is refused, naming the op; else
     * one block [0, volume) is the whole result */
    int64_t ovol = 1; /* the outer dims are >= 1 here */
    bool fits = true;
    for (int64_t k = 0; k < NI && fits; k++) {
        fits = ovol <= INT64_MAX / c->obig[k];
        if (fits) ovol *= c->obig[k];
    }
    got = (spt_tot *)1;
    if (fits) {
        ASSERT_OK(spt_sparsify_block(tb, smb, c->nmap, c->i2m, c->obig, 0, ovol, &got));
        expect_mapped(ref, got, c->osmall, c->obig);
        spt_tot_free(got);
    } else {
        ASSERT_ST(SPT_EOVERFLOW, spt_sparsify_block(tb, smb, c->nmap, c->i2m, c->obig, 0, 1, &got));
        ASSERT_MSG("spt_sparsify_block");
        ASSERT_MSG("INT64_MAX");
        assert_null(got);
    }
    /* a dense T with the large outer shape: only the free (not injected) outer modes are mapped */
    int64_t omix[64];
    for (int64_t k = 0; k < NI; k++) omix[k] = pin[k] >= 0 ? c->osmall[k] : c->obig[k];
    for (int64_t p = 0; p < np; p++)
        for (int64_t k = 0; k < NI; k++) indb[p * NI + k] = up(inds[p * NI + k], c->osmall[k], omix[k]);
    spt_sparse_map *smm;
    ASSERT_OK(spt_sparse_map_new(NI, D, np, indb, deps, &smm));
    ASSERT_OK(spt_sparsify_dense(dense, smm, c->nmap, c->i2m, omix, &got));
    expect_mapped(ref, got, c->osmall, omix);
    spt_tot_free(got);
    if (!fits) {
        got = (spt_tot *)1;
        ASSERT_ST(SPT_EOVERFLOW, spt_sparsify_dense_block(dense, smm, c->nmap, c->i2m, omix, 0, 1, &got));
        ASSERT_MSG("spt_sparsify_dense_block");
        assert_null(got);
    }
    ASSERT_OK(spt_sparsify(ts, smm, c->nmap, c->i2m, omix, &got));
    expect_mapped(ref, got, c->osmall, omix);
    spt_tot_free(got);
    spt_sparse_map_free(smm);
    spt_tot_free(ref);
    spt_dense_free(dense);
    spt_tensor_free(ts);
    spt_tensor_free(tb);
    spt_sparse_map_free(sms);
    spt_sparse_map_free(smb);
    free(ixs);
    free(ixb);
    free(v);
    free(inds);
    free(indb);
    free(deps);
    free(depb);
}

/* FROSTT nell-1 [2902330, 2143368, 25495389]: 22 + 22 + 25 = 69 key bits, volume 1.6e20 (> 2^64). */
static void test_nell1(void **state) {
    (void)state;
    /* outer (free mode, pinned at T mode 2): outer volume 2^63-1 x 25495389 */
    vcase a = {"nell-1, one injection",      3,   2,           1,   {1, 2}, {13, 11, 17},
               {2902330, 2143368, 25495389}, {6}, {INT64_MAX}, 700, 500};
    run_case(&a);
    /* no injection: the dependent indices are whole indices of T */
    vcase b = {"nell-1, no injection", 3, 1, 0, {0}, {9, 12, 10}, {2902330, 2143368, 25495389}, {7}, {P62}, 600, 400};
    run_case(&b);
    /* two injections, the dependent index in the middle mode */
    vcase c = {"nell-1, two injections",     3,   2,   2,   {0, 2, 1, 0}, {10, 31, 9},
               {2902330, 2143368, 25495389}, {0}, {0}, 800, 300};
    run_case(&c);
}

/* Rank 6, every dim 2^62: 372 key bits (the multi-word key). */
static void test_rank6(void **state) {
    (void)state;
    vcase a = {
        "rank 6 of 2^62", 6, 1, 1, {0, 3}, {3, 4, 3, 5, 2, 3}, {P62, P62, P62, P62, P62, P62}, {0}, {0}, 900, 300};
    run_case(&a);
    vcase b = {"rank 6 of 2^62, two outer modes",
               6,
               3,
               1,
               {2, 5},
               {3, 4, 3, 5, 2, 3},
               {P62, P62, P62, P62, P62, P62},
               {4, 3},
               {P62, INT64_MAX},
               900,
               300};
    run_case(&b);
}

/* Rank 64, every dim 2^63-1 (4032 key bits); small dims of 1 map to the largest index, 2^63-2. */
static void test_rank64(void **state) {
    (void)state;
    vcase *c = calloc(1, sizeof *c);
    c->name = "rank 64";
    c->R = 64;
    c->NI = 1;
    c->nmap = 1;
    c->i2m[0] = 0;
    c->i2m[1] = 63;
    for (int64_t m = 0; m < 64; m++) {
        c->small[m] = m % 16 == 0 ? 3 : 1;
        c->big[m] = INT64_MAX;
    }
    c->small[63] = 4;
    c->nnz = 300;
    c->npairs = 200;
    run_case(c);
    free(c);
}

/* The key engine's boundaries: the widths sum to exactly 64 (a 64-bit key holding 2^64 - 1; with a
 * leading dim of 1, slice pointers whose stride 2^64 does not fit are skipped), 65, 128 and 129. */
static void test_boundaries(void **state) {
    (void)state;
    const int64_t P32 = (int64_t)1 << 32, P33 = (int64_t)1 << 33;
    vcase c64 = {"64 bits", 2, 1, 0, {0}, {9, 10}, {P32, P32}, {5}, {P62}, 400, 300};
    run_case(&c64);
    vcase c64b = {"64 bits, leading 1", 3, 1, 0, {0}, {1, 9, 10}, {1, P32, P32}, {5}, {P62}, 400, 300};
    run_case(&c64b);
    vcase c64c = {"64 bits, injected", 2, 2, 1, {1, 0}, {9, 10}, {P32, P32}, {5}, {INT64_MAX}, 400, 300};
    run_case(&c64c);
    vcase c65 = {"65 bits", 2, 1, 0, {0}, {9, 10}, {P33, P32}, {5}, {P62}, 400, 300};
    run_case(&c65);
    vcase c65b = {"65 bits, injected", 2, 2, 1, {1, 1}, {9, 10}, {P33, P32}, {5}, {INT64_MAX}, 400, 300};
    run_case(&c65b);
    vcase c128 = {"128 bits", 3, 1, 0, {0}, {5, 6, 16}, {P62, P62, 16}, {4}, {P62 + 3}, 500, 300};
    run_case(&c128);
    vcase c129 = {"129 bits", 3, 1, 0, {0}, {5, 6, 17}, {P62, P62, 32}, {4}, {P62 + P62 / 2}, 500, 300};
    run_case(&c129);
    vcase c129b = {"129 bits, injected", 3, 2, 1, {0, 2}, {5, 6, 17}, {P62, P62, 32}, {0, 4}, {0, P62}, 500, 300};
    run_case(&c129b);
}

/* spt_reduce_tot_sum materializes a dense output: SPT_EOVERFLOW past INT64_MAX elements and SPT_ENOMEM
 * when it cannot be allocated, both naming the op and the shape; the map itself may hold any index. */
static void test_reduce_dense_output(void **state) {
    (void)state;
    const int64_t P45 = (int64_t)1 << 45;
    int64_t ind[2] = {0, 0}, dep[2] = {5, P45 - 1};
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 1, 2, ind, dep, &sm));
    double vals[2] = {1, 2};
    spt_tot *t;
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){1}, 1, 1, (int64_t[]){0}, (int64_t[]){2}, vals, &t));
    spt_dense *a = (spt_dense *)1;
    /* INT64_MAX elements fit in int64 but not in size_t bytes */
    ASSERT_ST(SPT_EOVERFLOW, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){INT64_MAX}, &a));
    ASSERT_MSG("spt_reduce_tot_sum");
    ASSERT_MSG("[9223372036854775807]");
    assert_null(a);
    a = (spt_dense *)1;
    spt_sparse_map *sm2;
    int64_t ind2[2] = {0, 0}, dep2[4] = {0, 5, 1, P45 - 1};
    ASSERT_OK(spt_sparse_map_new(1, 2, 2, ind2, dep2, &sm2));
    spt_tot *t2;
    double v4[4] = {1, 0, 0, 2};
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, (int64_t[]){1}, 2, 1, (int64_t[]){0}, (int64_t[]){2, 2}, v4, &t2));
    ASSERT_ST(SPT_EOVERFLOW, spt_reduce_tot_sum(t2, sm2, 2, (int64_t[]){P62, P45}, &a));
    ASSERT_MSG("spt_reduce_tot_sum");
    ASSERT_MSG("[4611686018427387904,35184372088832]");
    assert_null(a);
    a = (spt_dense *)1;
    ASSERT_ST(SPT_ENOMEM, spt_reduce_tot_sum(t, sm, 1, (int64_t[]){P45}, &a));
    ASSERT_MSG("spt_reduce_tot_sum");
    ASSERT_MSG("[35184372088832]");
    assert_null(a);
    /* a map with smaller indices into a shape that fits */
    int64_t dep3[2] = {5, 999};
    spt_sparse_map *sm3;
    ASSERT_OK(spt_sparse_map_new(1, 1, 2, ind, dep3, &sm3));
    ASSERT_OK(spt_reduce_tot_sum(t, sm3, 1, (int64_t[]){1000}, &a));
    const double *d = spt_dense_data(a);
    assert_true(d[5] == 1 && d[999] == 2 && d[0] == 0);
    spt_dense_free(a);
    spt_sparse_map_free(sm3);
    spt_tot_free(t2);
    spt_sparse_map_free(sm2);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nell1),
        cmocka_unit_test(test_rank6),
        cmocka_unit_test(test_rank64),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_reduce_dense_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
