/* SPDX-License-Identifier: Apache-2.0 */
/* test_sweep_tot.c -- the allocation-failure sweep over every allocating function of the
 * tensor-of-tensors API (spt.h TENSOR-OF-TENSORS): domains, injection, sparse maps, spt_tot_new,
 * sparsify (dense, sparse, blocks) and reduce_tot_sum. */
#include "sweep.h"

/* A map of ind_rank 1, dep_rank 1: key 0 -> {0, 2}, key 2 -> {1}; T is 3x4 (dep mode 0, ind mode 1). */
static const int64_t map_ind[3] = {2, 0, 0}, map_dep[3] = {1, 2, 0};

static spt_status case_domain_new(void *ctx) {
    (void)ctx;
    int64_t ix[8] = {3, 1, 0, 2, 3, 1, 1, 1};
    spt_domain *d = SENT;
    spt_status st = spt_domain_new(2, 4, ix, &d);
    OUTCHK(st, d);
    if (st == SPT_OK) spt_domain_free(d);
    return st;
}
SWEEP(domain_new, 1)

static spt_status case_domain_inject(void *ctx) {
    (void)ctx;
    int64_t ix[4] = {3, 1, 0, 2}, modes[1] = {1}, vals[1] = {7};
    spt_domain *d = NULL, *e = SENT;
    spt_status st = spt_domain_new(2, 2, ix, &d);
    if (st != SPT_OK) return st;
    st = spt_domain_inject(d, 1, modes, vals, &e);
    OUTCHK(st, e);
    if (st == SPT_OK) spt_domain_free(e);
    spt_domain_free(d);
    return st;
}
SWEEP(domain_inject, 2)

static spt_status case_sparse_map_new(void *ctx) {
    (void)ctx;
    spt_sparse_map *m = SENT;
    spt_status st = spt_sparse_map_new(1, 1, 3, map_ind, map_dep, &m);
    OUTCHK(st, m);
    if (st == SPT_OK) spt_sparse_map_free(m);
    return st;
}
SWEEP(sparse_map_new, 1)

static spt_status case_sparse_map_new_with_keys(void *ctx) {
    (void)ctx;
    int64_t keys[2] = {1, 0};
    spt_sparse_map *m = SENT;
    spt_status st = spt_sparse_map_new_with_keys(1, 1, 2, keys, 3, map_ind, map_dep, &m);
    OUTCHK(st, m);
    if (st == SPT_OK) spt_sparse_map_free(m);
    return st;
}
SWEEP(sparse_map_new_with_keys, 1)

static spt_status case_sparse_map_domain(void *ctx) {
    (void)ctx;
    spt_sparse_map *m = NULL;
    spt_domain *d = SENT;
    spt_status st = spt_sparse_map_new(1, 1, 3, map_ind, map_dep, &m);
    if (st != SPT_OK) return st;
    st = spt_sparse_map_domain(m, 0, &d);
    OUTCHK(st, d);
    if (st == SPT_OK) spt_domain_free(d);
    spt_sparse_map_free(m);
    return st;
}
SWEEP(sparse_map_domain, 2)

static spt_status case_tot_new(void *ctx) {
    (void)ctx;
    int64_t osh[1] = {3}, outer[2] = {2, 0}, ish[4] = {1, 2, 2, 1};
    double vals[4] = {1, 2, 3, 4};
    spt_tot *t = SENT;
    spt_status st = spt_tot_new(SPT_FLOAT64, 1, osh, 2, 2, outer, ish, vals, &t);
    OUTCHK(st, t);
    if (st == SPT_OK) spt_tot_free(t);
    return st;
}
SWEEP(tot_new, 1)

/* sparsify flavours and the reduction back, on T = 3x4 float64 (dep mode 0, pinned mode 1). */
static spt_status sparsify_case(int which) {
    spt_status bst = SPT_OK, st = SPT_OK;
    spt_sparse_map *m = NULL;
    spt_tensor *T = NULL;
    spt_dense *D = NULL, *R = SENT;
    spt_tot *tot = SENT;
    int64_t tsh[2] = {3, 4}, tix[8] = {2, 0, 0, 2, 1, 2, 0, 0}, i2m[2] = {0, 1}, osh[1] = {4}, rsh[1] = {3};
    double tv[4] = {1, 2, 3, 4};
    BUILD(spt_sparse_map_new(1, 1, 3, map_ind, map_dep, &m));
    BUILD(spt_tensor_new(SPT_FLOAT64, 2, tsh, 4, tix, tv, NULL, &T));
    BUILD(spt_to_dense(T, NULL, false, &D));
    uint64_t h = sweep_hash(T);
    switch (which) {
    case 0: st = spt_sparsify(T, m, 1, i2m, osh, &tot); break;
    case 1: st = spt_sparsify_dense(D, m, 1, i2m, osh, &tot); break;
    case 2: st = spt_sparsify_block(T, m, 1, i2m, osh, 1, 4, &tot); break;
    case 3: st = spt_sparsify_dense_block(D, m, 1, i2m, osh, 0, 2, &tot); break;
    default:
        tot = NULL;
        BUILD(spt_sparsify_dense(D, m, 1, i2m, osh, &tot));
        st = spt_reduce_tot_sum(tot, m, 1, rsh, &R);
        OUTCHK(st, R);
        if (st == SPT_OK) spt_dense_free(R);
        break;
    }
    if (which < 4) OUTCHK(st, tot);
    if (sweep_hash(T) != h) st = SPT_EINTERNAL;
    if (st == SPT_OK || which == 4) spt_tot_free(tot);
done:
    if (bst != SPT_OK && which == 4 && tot != SENT) spt_tot_free(tot);
    spt_sparse_map_free(m);
    spt_tensor_free(T);
    spt_dense_free(D);
    return bst != SPT_OK ? bst : st;
}
static spt_status case_sparsify(void *ctx) {
    (void)ctx;
    return sparsify_case(0);
}
static spt_status case_sparsify_dense(void *ctx) {
    (void)ctx;
    return sparsify_case(1);
}
static spt_status case_sparsify_block(void *ctx) {
    (void)ctx;
    return sparsify_case(2);
}
static spt_status case_sparsify_dense_block(void *ctx) {
    (void)ctx;
    return sparsify_case(3);
}
static spt_status case_reduce_tot_sum(void *ctx) {
    (void)ctx;
    return sparsify_case(4);
}
SWEEP(sparsify, 8)
SWEEP(sparsify_dense, 8)
SWEEP(sparsify_block, 8)
SWEEP(sparsify_dense_block, 8)
SWEEP(reduce_tot_sum, 9)

/* Injection of one index and the lookups allocate nothing. */
static void test_no_alloc(void **state) {
    (void)state;
    int64_t ix[2] = {3, 1}, modes[1] = {0}, vals[1] = {5}, out[3], back[2], pos[2];
    spt_domain *d;
    ASSERT_OK(spt_domain_new(2, 1, ix, &d));
    spt_test_alloc_fail_at(0);
    ASSERT_OK(spt_inject_index(2, ix, 1, modes, vals, out));
    ASSERT_OK(spt_uninject_index(3, out, 1, modes, back));
    ASSERT_OK(spt_domain_result_index(d, 2, ix, pos));
    assert_true(spt_domain_contains(d, ix));
    int64_t ext[2];
    spt_domain_result_extents(d, ext);
    assert_int_equal(spt_domain_rank(d), 2);
    long count = spt_test_alloc_count();
    spt_test_alloc_fail_at(-1);
    assert_int_equal(count, 0);
    spt_domain_free(d);
}

/* The accessors of maps and ToTs allocate nothing. */
static void test_accessors_no_alloc(void **state) {
    (void)state;
    spt_sparse_map *m;
    spt_tot *t;
    int64_t osh[1] = {3}, outer[1] = {2}, ish[1] = {2}, key[1] = {0}, dep[1] = {2}, i = -1, cnt = 0;
    double vals[2] = {1, 2};
    ASSERT_OK(spt_sparse_map_new(1, 1, 3, map_ind, map_dep, &m));
    ASSERT_OK(spt_tot_new(SPT_FLOAT64, 1, osh, 1, 1, outer, ish, vals, &t));
    spt_test_alloc_fail_at(0);
    assert_int_equal(spt_sparse_map_ind_rank(m), 1);
    assert_int_equal(spt_sparse_map_dep_rank(m), 1);
    assert_int_equal(spt_sparse_map_nkeys(m), 2);
    assert_int_equal(spt_sparse_map_size(m), 3);
    assert_non_null(spt_sparse_map_key(m, 0));
    assert_non_null(spt_sparse_map_deps(m, 0, &cnt));
    assert_int_equal(cnt, 2);
    assert_true(spt_sparse_map_find(m, key, &i));
    assert_true(spt_sparse_map_contains(m, key, dep));
    spt_tot_inner e;
    ASSERT_OK(spt_tot_get(t, outer, &e));
    assert_true(e.present);
    assert_int_equal(spt_tot_count(t), 1);
    assert_int_equal(spt_tot_total_size(t), 2);
    assert_int_equal(spt_tot_dtype(t), SPT_FLOAT64);
    assert_int_equal(spt_tot_outer_rank(t), 1);
    assert_int_equal(spt_tot_inner_rank(t), 1);
    assert_int_equal(spt_tot_outer_shape(t)[0], 3);
    long count = spt_test_alloc_count();
    spt_test_alloc_fail_at(-1);
    assert_int_equal(count, 0);
    spt_tot_free(t);
    spt_sparse_map_free(m);
}

int main(void) {
    SWEEP_MAIN_INIT();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_domain_new),         cmocka_unit_test(test_domain_inject),
        cmocka_unit_test(test_sparse_map_new),     cmocka_unit_test(test_sparse_map_new_with_keys),
        cmocka_unit_test(test_sparse_map_domain),  cmocka_unit_test(test_tot_new),
        cmocka_unit_test(test_sparsify),           cmocka_unit_test(test_sparsify_dense),
        cmocka_unit_test(test_sparsify_block),     cmocka_unit_test(test_sparsify_dense_block),
        cmocka_unit_test(test_reduce_tot_sum),     cmocka_unit_test(test_no_alloc),
        cmocka_unit_test(test_accessors_no_alloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
