/* SPDX-License-Identifier: Apache-2.0 */
/* test_sparsify.c -- spt_sparsify_dense / spt_sparsify (+ _block): the seed's examples, dense vs sparse
 * input equality on random cases (checked against a naive reference), outer blocks, thread counts,
 * dtypes, N = 0 and zero dims, errors, allocation failures. */
#ifndef SPT_CONFORMANCE
#include <complex.h>

#include "tot_ref.h"

/* T = 3x6 matrix of the upstream tests */
static const double M36[18] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15, 17};

static spt_dense *dense_f64(int64_t rank, const int64_t *shape, const double *v) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, rank, shape, v, &d));
    return d;
}

static void expect_inner(const spt_tot *t, const int64_t *outer, int64_t rank, const int64_t *shape,
                         const double *vals) {
    spt_tot_inner in;
    ASSERT_OK(spt_tot_get(t, outer, &in));
    assert_true(in.present);
    assert_int_equal(in.rank, rank);
    int64_t vol = 1;
    for (int64_t k = 0; k < rank; k++) {
        assert_int_equal(in.shape[k], shape[k]);
        vol *= shape[k];
    }
    assert_int_equal(in.size, vol);
    for (int64_t k = 0; k < vol; k++) assert_true(((const double *)in.data)[k] == vals[k]);
}

static void expect_empty(const spt_tot *t, const int64_t *outer) {
    spt_tot_inner in;
    ASSERT_OK(spt_tot_get(t, outer, &in));
    assert_false(in.present);
}

/* sparsify through both entry points and check they agree; returns the dense-input result */
static spt_tot *both(const spt_dense *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *i2m,
                     const int64_t *oshape) {
    spt_tot *a, *b;
    spt_tensor *s;
    ASSERT_OK(spt_sparsify_dense(T, sm, nmap, i2m, oshape, &a));
    ASSERT_OK(spt_from_dense(T, NULL, &s));
    ASSERT_OK(spt_sparsify(s, sm, nmap, i2m, oshape, &b));
    tot_expect_equal(a, b);
    spt_tot_free(b);
    spt_tensor_free(s);
    return a;
}

static void test_seed_vector_of_matrices(void **state) {
    (void)state;
    /* 0->{(0,1),(1,2)}, 1->{(0,2),(1,2)}, 3->{(0,0),(1,1)}; no injection; outer 4 */
    int64_t S[2] = {3, 6}, ind[6] = {0, 0, 1, 1, 3, 3}, dep[12] = {0, 1, 1, 2, 0, 2, 1, 2, 0, 0, 1, 1};
    spt_dense *T = dense_f64(2, S, M36);
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 2, 6, ind, dep, &sm));
    spt_tot *t = both(T, sm, 0, NULL, (int64_t[]){4});
    expect_inner(t, (int64_t[]){0}, 2, (int64_t[]){2, 2}, (double[]){1, 0, 0, 8});
    expect_inner(t, (int64_t[]){1}, 2, (int64_t[]){2, 1}, (double[]){2, 8});
    expect_empty(t, (int64_t[]){2});
    /* (0,0) of T is 0: present with zeros, not EMPTY */
    expect_inner(t, (int64_t[]){3}, 2, (int64_t[]){2, 2}, (double[]){0, 0, 0, 7});
    assert_int_equal(spt_tot_count(t), 3);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    spt_dense_free(T);
}

static void test_seed_injections(void **state) {
    (void)state;
    int64_t S[2] = {3, 6};
    spt_dense *T = dense_f64(2, S, M36);
    spt_sparse_map *sm;
    /* 0->{1,2}, 1->{0,2}, 2->{0,1} */
    int64_t ind[6] = {0, 0, 1, 1, 2, 2}, dep[6] = {1, 2, 0, 2, 0, 1};
    ASSERT_OK(spt_sparse_map_new(1, 1, 6, ind, dep, &sm));
    spt_tot *t = both(T, sm, 1, (int64_t[]){0, 0}, (int64_t[]){3}); /* T[o, x] */
    expect_inner(t, (int64_t[]){0}, 1, (int64_t[]){2}, (double[]){1, 2});
    expect_inner(t, (int64_t[]){1}, 1, (int64_t[]){2}, (double[]){6, 8});
    expect_inner(t, (int64_t[]){2}, 1, (int64_t[]){2}, (double[]){12, 13});
    spt_tot_free(t);
    t = both(T, sm, 1, (int64_t[]){0, 1}, (int64_t[]){3}); /* T[x, o] */
    expect_inner(t, (int64_t[]){0}, 1, (int64_t[]){2}, (double[]){6, 12});
    expect_inner(t, (int64_t[]){1}, 1, (int64_t[]){2}, (double[]){1, 13});
    expect_inner(t, (int64_t[]){2}, 1, (int64_t[]){2}, (double[]){2, 8});
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    /* outer rank 2, {1: 0}: T[o1, x]; (0,0)->{1,2} (0,1)->{1,2} (1,0)->{0,2} (1,1)->{0,2} (3,2)->{0,1} */
    int64_t ind2[20] = {0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 3, 2, 3, 2};
    int64_t dep2[10] = {1, 2, 1, 2, 0, 2, 0, 2, 0, 1};
    ASSERT_OK(spt_sparse_map_new(2, 1, 10, ind2, dep2, &sm));
    t = both(T, sm, 1, (int64_t[]){1, 0}, (int64_t[]){4, 3});
    expect_inner(t, (int64_t[]){0, 0}, 1, (int64_t[]){2}, (double[]){1, 2});
    expect_inner(t, (int64_t[]){0, 1}, 1, (int64_t[]){2}, (double[]){7, 8});
    expect_inner(t, (int64_t[]){1, 0}, 1, (int64_t[]){2}, (double[]){0, 2});
    expect_inner(t, (int64_t[]){1, 1}, 1, (int64_t[]){2}, (double[]){6, 8});
    expect_inner(t, (int64_t[]){3, 2}, 1, (int64_t[]){2}, (double[]){12, 13});
    expect_empty(t, (int64_t[]){2, 2});
    expect_empty(t, (int64_t[]){0, 2});
    assert_int_equal(spt_tot_count(t), 5);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    spt_dense_free(T);
}

static void test_rank3_injections(void **state) {
    (void)state;
    int64_t S[3] = {2, 3, 4};
    double v[24];
    for (int i = 0; i < 24; i++) v[i] = 100 + i;
    spt_dense *T = dense_f64(3, S, v);
    spt_sparse_map *sm;
    /* {0: 1}: element T[x0, o, x1]; key 2 -> {(1,3),(0,0),(1,0)} */
    int64_t ind[3] = {2, 2, 2}, dep[6] = {1, 3, 0, 0, 1, 0};
    ASSERT_OK(spt_sparse_map_new(1, 2, 3, ind, dep, &sm));
    spt_tot *t = both(T, sm, 1, (int64_t[]){0, 1}, (int64_t[]){3});
    /* grid rows {0,1} x cols {0,3}: (0,0)=T[0,2,0]=108, (0,3) hole, (1,0)=T[1,2,0]=120, (1,3)=T[1,2,3]=123 */
    expect_inner(t, (int64_t[]){2}, 2, (int64_t[]){2, 2}, (double[]){108, 0, 120, 123});
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    /* two injections {0: 2, 1: 0}: element T[o1, x, o0]; key (3,1) -> {0, 2} */
    int64_t ind2[4] = {3, 1, 3, 1}, dep2[2] = {2, 0};
    ASSERT_OK(spt_sparse_map_new(2, 1, 2, ind2, dep2, &sm));
    t = both(T, sm, 2, (int64_t[]){0, 2, 1, 0}, (int64_t[]){4, 2});
    expect_inner(t, (int64_t[]){3, 1}, 1, (int64_t[]){2}, (double[]){100 + 12 + 0 + 3, 100 + 12 + 8 + 3});
    ref_check(t, v, 3, S, 2, 1, 2, ind2, dep2, 2, (int64_t[]){0, 2, 1, 0}, (int64_t[]){4, 2});
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    spt_dense_free(T);
}

/* A random case: T (rank R, shape S), map with NI, nmap injections, pairs. */
typedef struct rcase {
    int64_t R, S[4], NI, D, nmap, i2m[8], oshape[4], npairs;
    int64_t ind[400], dep[400];
    double v[256];
} rcase;

static void make_case(rcase *c) {
    c->R = 1 + ref_rand(3);
    int64_t vol = 1;
    for (int64_t m = 0; m < c->R; m++) {
        c->S[m] = 1 + ref_rand(4);
        vol *= c->S[m];
    }
    for (int64_t i = 0; i < vol; i++) c->v[i] = ref_rand(3) == 0 ? 0 : (double)(1 + ref_rand(1000));
    c->NI = ref_rand(3);
    int64_t maxmap = c->NI < c->R ? c->NI : c->R;
    c->nmap = ref_rand(maxmap + 1);
    c->D = c->R - c->nmap;
    /* distinct independent modes and T modes */
    int64_t km[4] = {0, 1, 2, 3}, tm[4] = {0, 1, 2, 3};
    for (int64_t i = c->NI - 1; i > 0; i--) {
        int64_t j = ref_rand(i + 1), t = km[i];
        km[i] = km[j];
        km[j] = t;
    }
    for (int64_t i = c->R - 1; i > 0; i--) {
        int64_t j = ref_rand(i + 1), t = tm[i];
        tm[i] = tm[j];
        tm[j] = t;
    }
    int64_t pin[4] = {-1, -1, -1, -1};
    for (int64_t p = 0; p < c->nmap; p++) {
        c->i2m[2 * p] = km[p];
        c->i2m[2 * p + 1] = tm[p];
        pin[km[p]] = tm[p];
    }
    for (int64_t k = 0; k < c->NI; k++) c->oshape[k] = pin[k] >= 0 ? c->S[pin[k]] : 1 + ref_rand(3);
    int64_t fm[4], nf = 0;
    for (int64_t m = 0; m < c->R; m++) {
        bool injected = false;
        for (int64_t p = 0; p < c->nmap; p++) injected |= c->i2m[2 * p + 1] == m;
        if (!injected) fm[nf++] = m;
    }
    c->npairs = ref_rand(40);
    for (int64_t i = 0; i < c->npairs; i++) {
        for (int64_t k = 0; k < c->NI; k++) c->ind[i * c->NI + k] = ref_rand(c->oshape[k]);
        for (int64_t j = 0; j < c->D; j++) c->dep[i * c->D + j] = ref_rand(c->S[fm[j]]);
    }
}

/* A sparse T with the same value as dense v: entries shuffled, some zero entries dropped, some
 * duplicated with a wrong value stored BEFORE the right one (last wins). */
static spt_tensor *messy_sparse(const rcase *c) {
    int64_t vol = 1;
    for (int64_t m = 0; m < c->R; m++) vol *= c->S[m];
    int64_t ix[512 * 4], n = 0;
    double val[512];
    for (int64_t l = 0; l < vol; l++) {
        if (c->v[l] == 0 && ref_rand(2)) continue;
        bool dup = ref_rand(4) == 0;
        for (int r = dup ? 0 : 1; r < 2; r++) {
            int64_t rem = l;
            for (int64_t m = c->R - 1; m >= 0; m--) {
                ix[n * c->R + m] = rem % c->S[m];
                rem /= c->S[m];
            }
            val[n++] = r == 0 ? -999 : c->v[l];
        }
    }
    /* shuffle, keeping each duplicate pair's relative order: swap only whole distinct elements by
     * rotating blocks is complex, so shuffle positions but then stable-restore pair order */
    int64_t perm[512];
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = ref_rand(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    /* fix the order of duplicates: the -999 copy (source i) must come before its partner (i+1) */
    int64_t where[512];
    for (int64_t i = 0; i < n; i++) where[perm[i]] = i;
    for (int64_t i = 0; i + 1 < n; i++)
        if (val[i] == -999 && where[i] > where[i + 1]) {
            int64_t a = where[i], b = where[i + 1];
            perm[a] = i + 1;
            perm[b] = i;
            where[i] = b;
            where[i + 1] = a;
        }
    int64_t six[512 * 4];
    double sv[512];
    for (int64_t i = 0; i < n; i++) {
        memcpy(six + i * c->R, ix + perm[i] * c->R, (size_t)c->R * sizeof(int64_t));
        sv[i] = val[perm[i]];
    }
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, c->R, c->S, n, six, sv, NULL, &t));
    return t;
}

static void test_random_dense_vs_sparse(void **state) {
    (void)state;
    for (int it = 0; it < 400; it++) {
        rcase *c = calloc(1, sizeof *c);
        make_case(c);
        spt_dense *T = dense_f64(c->R, c->S, c->v);
        spt_sparse_map *sm;
        ASSERT_OK(spt_sparse_map_new(c->NI, c->D, c->npairs, c->ind, c->dep, &sm));
        spt_tot *a, *b, *d, *e;
        spt_tensor *rowmajor, *messy = messy_sparse(c);
        ASSERT_OK(spt_sparsify_dense(T, sm, c->nmap, c->i2m, c->oshape, &a));
        ref_check(a, c->v, c->R, c->S, c->NI, c->D, c->npairs, c->ind, c->dep, c->nmap, c->i2m, c->oshape);
        ASSERT_OK(spt_from_dense(T, NULL, &rowmajor));
        ASSERT_OK(spt_sparsify(rowmajor, sm, c->nmap, c->i2m, c->oshape, &b));
        tot_expect_equal(a, b);
        ASSERT_OK(spt_sparsify(messy, sm, c->nmap, c->i2m, c->oshape, &d));
        tot_expect_equal(a, d);
        /* sorted by another order (the column-major order claimed and true) */
        int64_t rev[4];
        for (int64_t m = 0; m < c->R; m++) rev[m] = c->R - 1 - m;
        ASSERT_OK(spt_reorder(messy, rev));
        ASSERT_OK(spt_sparsify(messy, sm, c->nmap, c->i2m, c->oshape, &e));
        tot_expect_equal(a, e);
        spt_tot_free(a);
        spt_tot_free(b);
        spt_tot_free(d);
        spt_tot_free(e);
        spt_tensor_free(rowmajor);
        spt_tensor_free(messy);
        spt_sparse_map_free(sm);
        spt_dense_free(T);
        free(c);
    }
}

/* The blocks of any partition of the outer index space together hold exactly the full result. */
static void test_blocks(void **state) {
    (void)state;
    for (int it = 0; it < 100; it++) {
        rcase *c = calloc(1, sizeof *c);
        make_case(c);
        spt_dense *T = dense_f64(c->R, c->S, c->v);
        spt_tensor *s;
        ASSERT_OK(spt_from_dense(T, NULL, &s));
        spt_sparse_map *sm;
        ASSERT_OK(spt_sparse_map_new(c->NI, c->D, c->npairs, c->ind, c->dep, &sm));
        spt_tot *full;
        ASSERT_OK(spt_sparsify_dense(T, sm, c->nmap, c->i2m, c->oshape, &full));
        int64_t ovol = 1;
        for (int64_t k = 0; k < c->NI; k++) ovol *= c->oshape[k];
        int64_t begin = 0, seen = 0;
        while (begin < ovol || (ovol == 0 && begin == 0 && seen == 0)) {
            int64_t end = begin + 1 + ref_rand(ovol - begin);
            if (end > ovol) end = ovol;
            spt_tot *blk, *sblk;
            ASSERT_OK(spt_sparsify_dense_block(T, sm, c->nmap, c->i2m, c->oshape, begin, end, &blk));
            ASSERT_OK(spt_sparsify_block(s, sm, c->nmap, c->i2m, c->oshape, begin, end, &sblk));
            tot_expect_equal(blk, sblk);
            for (int64_t i = 0; i < spt_tot_count(blk); i++) {
                spt_tot_inner x, y;
                ASSERT_OK(spt_tot_entry(blk, i, &x));
                int64_t lin = 0;
                for (int64_t k = 0; k < c->NI; k++) lin = lin * c->oshape[k] + x.outer[k];
                assert_true(lin >= begin && lin < end);
                ASSERT_OK(spt_tot_get(full, x.outer, &y));
                assert_true(y.present);
                assert_int_equal(x.size, y.size);
                assert_memory_equal(x.data, y.data, (size_t)x.size * sizeof(double));
            }
            seen += spt_tot_count(blk);
            spt_tot_free(blk);
            spt_tot_free(sblk);
            if (ovol == 0) break;
            begin = end;
        }
        assert_int_equal(seen, spt_tot_count(full));
        /* an empty block and a bad block */
        spt_tot *blk = (spt_tot *)1;
        ASSERT_OK(spt_sparsify_dense_block(T, sm, c->nmap, c->i2m, c->oshape, 0, 0, &blk));
        assert_int_equal(spt_tot_count(blk), 0);
        spt_tot_free(blk);
        ASSERT_ST(SPT_ERANGE, spt_sparsify_dense_block(T, sm, c->nmap, c->i2m, c->oshape, 0, ovol + 1, &blk));
        assert_null(blk);
        ASSERT_ST(SPT_ERANGE, spt_sparsify_block(s, sm, c->nmap, c->i2m, c->oshape, 1, 0, &blk));
        spt_tot_free(full);
        spt_tensor_free(s);
        spt_sparse_map_free(sm);
        spt_dense_free(T);
        free(c);
    }
}

/* Same result for 1, 2 and 4 threads on a case large enough to run in parallel. */
static void test_threads_identical(void **state) {
    (void)state;
    int64_t S[2] = {300, 300}, n = 200000;
    double *v = malloc(300 * 300 * sizeof(double));
    for (int i = 0; i < 300 * 300; i++) v[i] = (double)ref_rand(1 << 20) / 7.0;
    int64_t *ind = malloc((size_t)n * 2 * sizeof(int64_t)), *dep = malloc((size_t)n * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        ind[2 * i] = ref_rand(40);      /* free outer mode */
        ind[2 * i + 1] = ref_rand(300); /* pinned at T mode 1 */
        dep[i] = ref_rand(300);
    }
    spt_dense *T = dense_f64(2, S, v);
    spt_tensor *s;
    ASSERT_OK(spt_from_dense(T, NULL, &s));
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(2, 1, n, ind, dep, &sm));
    int64_t i2m[2] = {1, 1}, oshape[2] = {40, 300};
    spt_tot *ref, *t;
    spt_set_num_threads(1);
    ASSERT_OK(spt_sparsify_dense(T, sm, 1, i2m, oshape, &ref));
    int threads[3] = {2, 4, 3};
    for (int k = 0; k < 3; k++) {
        spt_set_num_threads(threads[k]);
        ASSERT_OK(spt_sparsify_dense(T, sm, 1, i2m, oshape, &t));
        tot_expect_equal(ref, t);
        spt_tot_free(t);
        ASSERT_OK(spt_sparsify(s, sm, 1, i2m, oshape, &t));
        tot_expect_equal(ref, t);
        spt_tot_free(t);
    }
    spt_set_num_threads(0);
    /* spot check against T: outer (o0, o1) element x is T[x, o1] */
    spt_tot_inner in;
    ASSERT_OK(spt_tot_entry(ref, spt_tot_count(ref) / 2, &in));
    int64_t key[2] = {in.outer[0], in.outer[1]}, idx;
    assert_true(spt_sparse_map_find(sm, key, &idx));
    int64_t cnt;
    const int64_t *d = spt_sparse_map_deps(sm, idx, &cnt);
    for (int64_t r = 0; r < cnt; r++) assert_true(((const double *)in.data)[r] == v[d[r] * 300 + key[1]]);
    spt_tot_free(ref);
    spt_sparse_map_free(sm);
    spt_tensor_free(s);
    spt_dense_free(T);
    free(v);
    free(ind);
    free(dep);
}

/* A sparse T whose leading dim is far larger than its entry count (no slice pointers) and sorted
 * by several orders: elements are found or read as zero exactly. */
static void test_sparse_huge_dims(void **state) {
    (void)state;
    int64_t S[2] = {100000, 50}, n = 300, ix[600];
    double v[300];
    for (int64_t i = 0; i < n; i++) {
        ix[2 * i] = (i * 997) % 100000;
        ix[2 * i + 1] = i % 50;
        v[i] = (double)(i + 1);
    }
    /* map: key k -> {(row of entry 3k, col), (row+1, col)} : one hit, one miss (unless a neighbour) */
    int64_t ind[200], dep[400];
    for (int64_t k = 0; k < 100; k++) {
        int64_t e = 3 * k;
        ind[2 * k] = ind[2 * k + 1] = k;
        dep[4 * k] = ix[2 * e];
        dep[4 * k + 1] = ix[2 * e + 1];
        dep[4 * k + 2] = (ix[2 * e] + 1) % 100000;
        dep[4 * k + 3] = ix[2 * e + 1];
    }
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 2, 200, ind, dep, &sm));
    int64_t orders[3][2] = {{0, 1}, {1, 0}, {-1, -1}};
    spt_tot *first = NULL;
    for (int o = 0; o < 3; o++) {
        spt_tensor *t;
        ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, S, n, ix, v, NULL, &t));
        if (orders[o][0] >= 0) ASSERT_OK(spt_reorder(t, orders[o]));
        spt_tot *r;
        ASSERT_OK(spt_sparsify(t, sm, 0, NULL, (int64_t[]){100}, &r));
        for (int64_t k = 0; k < 100; k++) {
            spt_tot_inner in;
            ASSERT_OK(spt_tot_get(r, (int64_t[]){k}, &in));
            assert_true(in.present);
            assert_int_equal(in.size, 2);
            const double *d = in.data;
            /* the grid is rows {a, a+1} (sorted) x {col}: find which slot holds the hit */
            int64_t a = ix[6 * k], b = (a + 1) % 100000;
            double want_a = 3.0 * (double)k + 1, want_b = 0;
            for (int64_t i = 0; i < n; i++)
                if (ix[2 * i] == b && ix[2 * i + 1] == ix[6 * k + 1]) want_b = v[i];
            if (a < b) assert_true(d[0] == want_a && d[1] == want_b);
            else assert_true(d[1] == want_a && d[0] == want_b);
        }
        if (first) {
            tot_expect_equal(first, r);
            spt_tot_free(r);
        } else {
            first = r;
        }
        spt_tensor_free(t);
    }
    spt_tot_free(first);
    spt_sparse_map_free(sm);
}

static void test_dtypes(void **state) {
    (void)state;
    int64_t S[2] = {2, 3}, ind[3] = {0, 0, 1}, dep[3] = {2, 0, 1};
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 1, 3, ind, dep, &sm));
    int64_t i2m[2] = {0, 0}, oshape[1] = {2};
    /* int32 */
    int32_t iv[6] = {1, -2, 3, 4, 5, -6};
    spt_dense *T;
    spt_tensor *s;
    spt_tot *a, *b;
    ASSERT_OK(spt_dense_new_from(SPT_INT32, 2, S, iv, &T));
    ASSERT_OK(spt_from_dense(T, NULL, &s));
    ASSERT_OK(spt_sparsify_dense(T, sm, 1, i2m, oshape, &a));
    ASSERT_OK(spt_sparsify(s, sm, 1, i2m, oshape, &b));
    tot_expect_equal(a, b);
    spt_tot_inner in;
    ASSERT_OK(spt_tot_get(a, (int64_t[]){0}, &in));
    assert_int_equal(((const int32_t *)in.data)[0], 1);
    assert_int_equal(((const int32_t *)in.data)[1], 3);
    ASSERT_OK(spt_tot_get(a, (int64_t[]){1}, &in));
    assert_int_equal(((const int32_t *)in.data)[0], 5);
    spt_tot_free(a);
    spt_tot_free(b);
    spt_tensor_free(s);
    spt_dense_free(T);
    /* complex128 (16-byte elements), uint8, float32 */
    double _Complex cv[6] = {1 + 2 * _Complex_I, 0, 3, 0, 5 - _Complex_I, 6};
    uint8_t uv[6] = {255, 0, 7, 0, 9, 1};
    float fv[6] = {0.5f, 0, -1.25f, 0, 3, 4};
    const void *data[3] = {cv, uv, fv};
    spt_dtype dts[3] = {SPT_COMPLEX128, SPT_UINT8, SPT_FLOAT32};
    for (int k = 0; k < 3; k++) {
        ASSERT_OK(spt_dense_new_from(dts[k], 2, S, data[k], &T));
        ASSERT_OK(spt_from_dense(T, NULL, &s));
        ASSERT_OK(spt_sparsify_dense(T, sm, 1, i2m, oshape, &a));
        ASSERT_OK(spt_sparsify(s, sm, 1, i2m, oshape, &b));
        tot_expect_equal(a, b);
        ASSERT_OK(spt_tot_get(a, (int64_t[]){1}, &in));
        size_t es = spt_dtype_size(dts[k]);
        assert_memory_equal(in.data, (const char *)data[k] + 4 * es, es);
        spt_tot_free(a);
        spt_tot_free(b);
        spt_tensor_free(s);
        spt_dense_free(T);
    }
    /* strings and bool are refused */
    ASSERT_OK(spt_dense_new(SPT_STRING, 2, S, &T));
    a = (spt_tot *)1;
    ASSERT_ST(SPT_EDTYPE, spt_sparsify_dense(T, sm, 1, i2m, oshape, &a));
    assert_null(a);
    spt_dense_free(T);
    ASSERT_OK(spt_tensor_new(SPT_BOOL, 2, S, 0, NULL, NULL, NULL, &s));
    ASSERT_ST(SPT_EDTYPE, spt_sparsify(s, sm, 1, i2m, oshape, &a));
    spt_tensor_free(s);
    spt_sparse_map_free(sm);
}

static void test_empty_cases(void **state) {
    (void)state;
    int64_t S[2] = {2, 3};
    double v[6] = {1, 2, 3, 4, 5, 6};
    spt_dense *T = dense_f64(2, S, v);
    spt_sparse_map *sm;
    spt_tot *t;
    /* no pairs: every outer element EMPTY */
    ASSERT_OK(spt_sparse_map_new(1, 2, 0, NULL, NULL, &sm));
    t = both(T, sm, 0, NULL, (int64_t[]){5});
    assert_int_equal(spt_tot_count(t), 0);
    expect_empty(t, (int64_t[]){4});
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    /* a key with an empty domain is EMPTY too */
    ASSERT_OK(spt_sparse_map_new_with_keys(1, 2, 1, (int64_t[]){3}, 1, (int64_t[]){1}, (int64_t[]){1, 2}, &sm));
    t = both(T, sm, 0, NULL, (int64_t[]){5});
    assert_int_equal(spt_tot_count(t), 1);
    expect_empty(t, (int64_t[]){3});
    expect_inner(t, (int64_t[]){1}, 2, (int64_t[]){1, 1}, (double[]){6});
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    /* an outer shape with a zero dim and no keys */
    ASSERT_OK(spt_sparse_map_new(2, 2, 0, NULL, NULL, &sm));
    t = both(T, sm, 0, NULL, (int64_t[]){0, 7});
    assert_int_equal(spt_tot_count(t), 0);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    spt_dense_free(T);
    /* T with a zero dim and no keys; and a sparse T without entries reads as zeros (present) */
    int64_t Z[2] = {0, 3};
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, Z, &T));
    ASSERT_OK(spt_sparse_map_new(1, 2, 0, NULL, NULL, &sm));
    t = both(T, sm, 0, NULL, (int64_t[]){2});
    assert_int_equal(spt_tot_count(t), 0);
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    spt_dense_free(T);
    spt_tensor *s;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, S, 0, NULL, NULL, NULL, &s));
    ASSERT_OK(spt_sparse_map_new(1, 2, 2, (int64_t[]){0, 0}, (int64_t[]){1, 2, 0, 0}, &sm));
    ASSERT_OK(spt_sparsify(s, sm, 0, NULL, (int64_t[]){1}, &t));
    expect_inner(t, (int64_t[]){0}, 2, (int64_t[]){2, 2}, (double[]){0, 0, 0, 0});
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    spt_tensor_free(s);
    /* rank-0 T: a scalar, map of dep_rank 0 with ind_rank 1 and no injection */
    double x = 42;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 0, NULL, &x, &T));
    ASSERT_OK(spt_sparse_map_new(1, 0, 2, (int64_t[]){1, 1}, NULL, &sm));
    t = both(T, sm, 0, NULL, (int64_t[]){2});
    expect_empty(t, (int64_t[]){0});
    expect_inner(t, (int64_t[]){1}, 0, NULL, (double[]){42});
    spt_tot_free(t);
    spt_sparse_map_free(sm);
    spt_dense_free(T);
}

static void test_errors(void **state) {
    (void)state;
    int64_t S[2] = {3, 2};
    double v[6] = {0, 1, 2, 3, 4, 5};
    spt_dense *T = dense_f64(2, S, v);
    spt_tensor *s;
    ASSERT_OK(spt_from_dense(T, NULL, &s));
    spt_sparse_map *sm;
    ASSERT_OK(spt_sparse_map_new(1, 1, 1, (int64_t[]){0}, (int64_t[]){1}, &sm));
    spt_tot *t = (spt_tot *)1;
    int64_t os[1] = {1};
    /* rank arithmetic */
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm, 0, NULL, os, &t));
    assert_null(t);
    ASSERT_MSG("ranks don't work out");
    ASSERT_ST(SPT_EINVAL, spt_sparsify(s, sm, 0, NULL, os, &t));
    ASSERT_MSG("spt_sparsify:");
    /* T mode 2 does not exist; independent mode 1 does not exist */
    ASSERT_ST(SPT_ERANGE, spt_sparsify_dense(T, sm, 1, (int64_t[]){0, 2}, os, &t));
    ASSERT_MSG("mode 2 of T");
    ASSERT_ST(SPT_ERANGE, spt_sparsify_dense(T, sm, 1, (int64_t[]){1, 0}, os, &t));
    ASSERT_ST(SPT_ERANGE, spt_sparsify_dense(T, sm, 1, (int64_t[]){-1, 0}, os, &t));
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm, 1, NULL, os, &t));
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm, -1, NULL, os, &t));
    /* injected index outside T: key 0 pinned fine, dep 1 in mode 0 of size 3 fine; use key 5 */
    spt_sparse_map *sm2;
    ASSERT_OK(spt_sparse_map_new(1, 1, 2, (int64_t[]){0, 5}, (int64_t[]){1, 0}, &sm2));
    ASSERT_ST(SPT_ERANGE, spt_sparsify_dense(T, sm2, 1, (int64_t[]){0, 1}, (int64_t[]){6}, &t));
    ASSERT_MSG("injected index [0,5]");
    ASSERT_ST(SPT_ERANGE, spt_sparsify(s, sm2, 1, (int64_t[]){0, 1}, (int64_t[]){6}, &t));
    /* key outside the outer shape */
    ASSERT_ST(SPT_ERANGE, spt_sparsify_dense(T, sm2, 1, (int64_t[]){0, 0}, (int64_t[]){3}, &t));
    ASSERT_MSG("outside the outer shape");
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm2, 1, (int64_t[]){0, 0}, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm2, 1, (int64_t[]){0, 0}, (int64_t[]){-1}, &t));
    spt_sparse_map_free(sm2);
    /* dep outside T with no injection */
    ASSERT_OK(spt_sparse_map_new(1, 2, 1, (int64_t[]){0}, (int64_t[]){3, 0}, &sm2));
    ASSERT_ST(SPT_ERANGE, spt_sparsify_dense(T, sm2, 0, NULL, os, &t));
    ASSERT_MSG("[3,0]");
    spt_sparse_map_free(sm2);
    /* repeated modes */
    ASSERT_OK(spt_sparse_map_new(2, 0, 1, (int64_t[]){0, 0}, NULL, &sm2));
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm2, 2, (int64_t[]){0, 0, 1, 0}, (int64_t[]){3, 2}, &t));
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm2, 2, (int64_t[]){0, 0, 0, 1}, (int64_t[]){3, 2}, &t));
    ASSERT_OK(spt_sparsify_dense(T, sm2, 2, (int64_t[]){1, 0, 0, 1}, (int64_t[]){2, 3}, &t));
    expect_inner(t, (int64_t[]){0, 0}, 0, NULL, (double[]){0});
    spt_tot_free(t);
    spt_sparse_map_free(sm2);
    /* NULLs */
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(NULL, sm, 1, (int64_t[]){0, 0}, os, &t));
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, NULL, 1, (int64_t[]){0, 0}, os, &t));
    ASSERT_ST(SPT_EINVAL, spt_sparsify_dense(T, sm, 1, (int64_t[]){0, 0}, os, NULL));
    ASSERT_ST(SPT_EINVAL, spt_sparsify(NULL, sm, 1, (int64_t[]){0, 0}, os, &t));
    /* a sparse T with an index outside its shape */
    spt_tensor *bad;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, S, 1, (int64_t[]){0, 2}, (double[]){1}, NULL, &bad));
    ASSERT_ST(SPT_ERANGE, spt_sparsify(bad, sm, 1, (int64_t[]){0, 0}, os, &t));
    assert_null(t);
    spt_tensor_free(bad);
    spt_sparse_map_free(sm);
    spt_tensor_free(s);
    spt_dense_free(T);
}

typedef struct {
    spt_dense *T;
    spt_tensor *s;
    spt_sparse_map *sm;
    spt_tot *out;
    bool sparse;
} sweep_ctx;
static spt_status sweep_fn(void *p) {
    sweep_ctx *c = p;
    int64_t i2m[2] = {0, 1}, os[1] = {3};
    return c->sparse ? spt_sparsify(c->s, c->sm, 1, i2m, os, &c->out)
                     : spt_sparsify_dense(c->T, c->sm, 1, i2m, os, &c->out);
}
static void sweep_cleanup(void *p) {
    sweep_ctx *c = p;
    spt_tot_free(c->out);
    c->out = NULL;
}
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    sweep_ctx c = {NULL, NULL, NULL, NULL, false};
    int64_t S[2] = {3, 3};
    double v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 2, S, v, &c.T));
    /* unsorted sparse T so that the sorted permutation is built */
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, S, 3, (int64_t[]){2, 2, 0, 1, 1, 0}, (double[]){9, 2, 4}, NULL, &c.s));
    ASSERT_OK(spt_sparse_map_new(1, 1, 4, (int64_t[]){0, 2, 0, 1}, (int64_t[]){1, 2, 0, 0}, &c.sm));
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 4);
    c.sparse = true;
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 4);
    /* T known sorted (column-major): searched in place, with slice pointers */
    ASSERT_OK(spt_reorder(c.s, (int64_t[]){1, 0}));
    assert_true(spt_test_alloc_sweep(sweep_fn, sweep_cleanup, &c) > 2);
    spt_sparse_map_free(c.sm);
    spt_tensor_free(c.s);
    spt_dense_free(c.T);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_vector_of_matrices),
        cmocka_unit_test(test_seed_injections),
        cmocka_unit_test(test_rank3_injections),
        cmocka_unit_test(test_random_dense_vs_sparse),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_sparse_huge_dims),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_empty_cases),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>
#include <string.h>

static conf_result h_sparsify(const conf_case *c) {
    spt_sparse_map *m = NULL;
    spt_tensor *T = NULL;
    spt_tot *tot = NULL;
    long ni, no;
    int64_t *i2m = conf_ints_new(c, "ind2mode", &ni), *osh = conf_ints_new(c, "outer_shape", &no);
    spt_status st = conf_make_map(conf_arg(c, "map"), &m);
    if (st == SPT_OK) st = conf_sparse(conf_arg(c, "T"), false, &T);
    if (st == SPT_OK) {
        json_t *jn = conf_arg(c, "nmap");
        int64_t nmap = jn ? (int64_t)json_integer_value(jn) : ni / 2;
        if (json_is_true(conf_arg(c, "dense"))) {
            spt_dense *D = NULL;
            st = spt_to_dense(T, NULL, false, &D);
            if (st == SPT_OK) st = spt_sparsify_dense(D, m, nmap, i2m, osh, &tot);
            spt_dense_free(D);
        } else {
            st = spt_sparsify(T, m, nmap, i2m, osh, &tot);
        }
    }
    conf_result r = conf_judge(c, st);
    if (r == CONF_CONTINUE) {
        json_t *cnt = json_object_get(json_object_get(c->root, "result"), "count");
        r = cnt && spt_tot_count(tot) != json_integer_value(cnt)
                ? conf_fail(c, "count %lld", (long long)spt_tot_count(tot))
                : CONF_PASS;
    }
    spt_tot_free(tot);
    spt_tensor_free(T);
    spt_sparse_map_free(m);
    free(i2m);
    free(osh);
    return r;
}

/* Compare a ToT with the expected list covering every outer index in row-major order. */
static conf_result expect_tot(const conf_case *c, const char *what, const spt_tot *t, const json_t *exp) {
    int64_t nonempty = 0;
    for (size_t i = 0; i < json_array_size(exp); i++) {
        json_t *e = json_array_get(exp, i);
        int64_t outer[SPT_MAX_RANK], shape[SPT_MAX_RANK];
        static double vals[MAXN];
        long r = conf_ints(json_object_get(e, "outer"), outer, SPT_MAX_RANK);
        if (r != spt_tot_outer_rank(t))
            return conf_fail(c, "%s: outer rank %lld, expected %ld", what, (long long)spt_tot_outer_rank(t), r);
        spt_tot_inner in;
        spt_status st = spt_tot_get(t, outer, &in);
        if (st != SPT_OK) return conf_fail(c, "%s: spt_tot_get: %s", what, spt_last_error());
        if (json_is_true(json_object_get(e, "empty"))) {
            if (in.present) return conf_fail(c, "%s: outer element %zu should be EMPTY", what, i);
            continue;
        }
        nonempty++;
        if (!in.present) return conf_fail(c, "%s: outer element %zu is EMPTY", what, i);
        long ir = conf_ints(json_object_get(e, "inner_shape"), shape, SPT_MAX_RANK);
        if (ir != in.rank)
            return conf_fail(c, "%s: outer element %zu: inner rank %lld, expected %ld", what, i, (long long)in.rank,
                             ir);
        for (long k = 0; k < ir; k++)
            if (shape[k] != in.shape[k])
                return conf_fail(c, "%s: outer element %zu: inner dim %ld is %lld, expected %lld", what, i, k,
                                 (long long)in.shape[k], (long long)shape[k]);
        json_t *jv = json_object_get(e, "values");
        if ((int64_t)json_array_size(jv) != in.size)
            return conf_fail(c, "%s: outer element %zu: %lld values", what, i, (long long)in.size);
        for (int64_t k = 0; k < in.size && k < MAXN; k++) vals[k] = json_number_value(json_array_get(jv, (size_t)k));
        const double *got = in.data;
        for (int64_t k = 0; k < in.size; k++)
            if (got[k] != vals[k])
                return conf_fail(c, "%s: outer element %zu value %lld is %g, expected %g", what, i, (long long)k,
                                 got[k], vals[k]);
    }
    if (spt_tot_count(t) != nonempty)
        return conf_fail(c, "%s: %lld non-empty elements, expected %lld", what, (long long)spt_tot_count(t),
                         (long long)nonempty);
    return CONF_PASS;
}

static conf_result sparsify_case(const conf_case *c) {
    json_t *root = c->root, *jd = json_object_get(root, "dense");
    static double tv[MAXN];
    int64_t shape[SPT_MAX_RANK], oshape[SPT_MAX_RANK], i2m[2 * SPT_MAX_RANK], r;
    long R = conf_ints(json_object_get(jd, "shape"), shape, SPT_MAX_RANK);
    json_t *jv = json_object_get(jd, "values");
    for (size_t i = 0; i < json_array_size(jv) && i < MAXN; i++) tv[i] = json_number_value(json_array_get(jv, i));
    long nmap = conf_rows(json_object_get(root, "ind2mode"), i2m, 2 * SPT_MAX_RANK, &r);
    long orank = conf_ints(json_object_get(root, "outer_shape"), oshape, SPT_MAX_RANK);
    if (R < 0 || nmap < 0 || orank < 0) return conf_fail(c, "malformed vector");
    const char *want_err = json_string_value(json_object_get(root, "expect_error"));
    spt_dense *T = NULL;
    spt_tensor *sp = NULL, *sp_rev = NULL;
    spt_sparse_map *sm = NULL;
    spt_tot *a = NULL, *b = NULL, *cc = NULL;
    conf_result res = CONF_PASS;
    if (spt_dense_new_from(SPT_FLOAT64, R, shape, tv, &T) != SPT_OK || spt_from_dense(T, NULL, &sp) != SPT_OK ||
        conf_build_map(json_object_get(root, "sparse_map"), &sm) != SPT_OK) {
        res = conf_fail(c, "building inputs: %s", spt_last_error());
        goto done;
    }
    /* the same sparse T stored in reverse order with no order claimed (exercises the sorted permutation) */
    {
        int64_t n = spt_tensor_nnz(sp);
        int64_t *ix = malloc((size_t)(n * R + 1) * sizeof(int64_t));
        double *v = malloc((size_t)(n + 1) * sizeof(double));
        for (int64_t i = 0; i < n; i++) {
            memcpy(ix + i * R, spt_tensor_indices(sp) + (n - 1 - i) * R, (size_t)R * sizeof(int64_t));
            v[i] = ((const double *)spt_tensor_values(sp))[n - 1 - i];
        }
        spt_status st = spt_tensor_new(SPT_FLOAT64, R, shape, n, ix, v, NULL, &sp_rev);
        free(ix);
        free(v);
        if (st != SPT_OK) {
            res = conf_fail(c, "building inputs: %s", spt_last_error());
            goto done;
        }
    }
    spt_status s1 = spt_sparsify_dense(T, sm, nmap, i2m, oshape, &a);
    spt_status s2 = spt_sparsify(sp, sm, nmap, i2m, oshape, &b);
    spt_status s3 = spt_sparsify(sp_rev, sm, nmap, i2m, oshape, &cc);
    if (want_err) {
        res = conf_judge_error(c, "dense T", s1, want_err);
        if (res == CONF_PASS) res = conf_judge_error(c, "sparse T", s2, want_err);
        if (res == CONF_PASS) res = conf_judge_error(c, "unsorted sparse T", s3, want_err);
        goto done;
    }
    if (s1 != SPT_OK || s2 != SPT_OK || s3 != SPT_OK) {
        res = conf_fail(c, "expected success, got %s/%s/%s: %s", spt_status_name(s1), spt_status_name(s2),
                        spt_status_name(s3), spt_last_error());
        goto done;
    }
    json_t *exp = json_object_get(root, "expected");
    res = expect_tot(c, "dense T", a, exp);
    if (res == CONF_PASS) res = expect_tot(c, "sparse T", b, exp);
    if (res == CONF_PASS) res = expect_tot(c, "unsorted sparse T", cc, exp);
done:
    spt_tot_free(a);
    spt_tot_free(b);
    spt_tot_free(cc);
    spt_sparse_map_free(sm);
    spt_tensor_free(sp);
    spt_tensor_free(sp_rev);
    spt_dense_free(T);
    return res;
}

CONF_HANDLERS(test_sparsify, {"spt_sparsify", h_sparsify, CONF_OP(spt_sparsify)},
              {"sparsify", sparsify_case, CONF_OP(spt_sparsify)})
#endif
