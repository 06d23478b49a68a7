/* SPDX-License-Identifier: Apache-2.0 */
/* test_add.c -- spt_add (sparse + sparse, SparseAdd). */
#ifndef SPT_CONFORMANCE
#include "../merge_test_common.h"

#include <stdatomic.h>

static void test_threshold(void **state) {
    (void)state;
    int64_t shape[2] = {3, 3}, ix[8] = {0, 1, 1, 0, 2, 0, 2, 1};
    float av[4] = {1, 2, 3, 4}, bv[4] = {1, -1.9f, 3, -4.2f}, nv[4] = {-1, -2, -3, -4};
    spt_tensor *a = mk(SPT_FLOAT32, 2, shape, 4, ix, av), *b = mk(SPT_FLOAT32, 2, shape, 4, ix, bv), *o;
    /* |0.1| and |-0.2| < 0.21 vanish */
    ASSERT_OK(spt_add(a, b, 0.21, &o));
    int64_t wix[4] = {0, 1, 2, 0};
    spt_test_expect_tensor(o, 2, shape, 2, wix, (float[]){2, 6});
    spt_tensor_free(o);
    spt_tensor_free(b);
    /* a + (-a): threshold 0 keeps explicit zeros, 0.1 drops them */
    b = mk(SPT_FLOAT32, 2, shape, 4, ix, nv);
    ASSERT_OK(spt_add(a, b, 0.0, &o));
    spt_test_expect_tensor(o, 2, shape, 4, ix, (float[]){0, 0, 0, 0});
    spt_tensor_free(o);
    ASSERT_OK(spt_add(a, b, 0.1, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_threshold_only_on_coinciding(void **state) {
    (void)state;
    /* a-only and b-only entries are copied whatever their magnitude */
    int64_t shape[2] = {3, 2}, aix[8] = {0, 1, 1, 0, 2, 0, 2, 1}, bix[4] = {0, 0, 1, 1};
    int64_t av[4] = {1, 2, 3, 4}, bv[2] = {5, 0};
    spt_tensor *a = mk(SPT_INT64, 2, shape, 4, aix, av), *b = mk(SPT_INT64, 2, shape, 2, bix, bv), *o;
    ASSERT_OK(spt_add(a, b, 100, &o));
    int64_t wix[12] = {0, 0, 0, 1, 1, 0, 1, 1, 2, 0, 2, 1};
    spt_test_expect_tensor(o, 2, shape, 6, wix, (int64_t[]){5, 1, 2, 0, 3, 4});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_unsorted_and_duplicates(void **state) {
    (void)state;
    /* unsorted input is sorted first: same result as the sorted one */
    int64_t shape[1] = {6}, aix[3] = {4, 0, 2}, bix[3] = {2, 5, 0};
    int32_t av[3] = {1, 2, 3}, bv[3] = {10, 20, 30};
    spt_tensor *a = mk(SPT_INT32, 1, shape, 3, aix, av), *b = mk(SPT_INT32, 1, shape, 3, bix, bv), *o;
    ASSERT_OK(spt_add(a, b, 0, &o));
    int64_t wix[4] = {0, 2, 4, 5};
    spt_test_expect_tensor(o, 1, shape, 4, wix, (int32_t[]){32, 13, 1, 20});
    assert_false(spt_tensor_known_valid(a) && spt_tensor_known_sorted(a)); /* the input is not modified */
    assert_int_equal(spt_tensor_indices(a)[0], 4);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    /* duplicates meet the other side one to one (TF's two-pointer merge) */
    int64_t dix[2] = {1, 1}, eix[1] = {1};
    int32_t dv[2] = {1, 2}, ev[1] = {10};
    a = mk(SPT_INT32, 1, shape, 2, dix, dv);
    b = mk(SPT_INT32, 1, shape, 1, eix, ev);
    ASSERT_OK(spt_add(a, b, 0, &o));
    spt_test_expect_tensor(o, 1, shape, 2, dix, (int32_t[]){11, 2});
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s22[2] = {2, 2}, s23[2] = {2, 3}, s221[3] = {2, 2, 1}, ix[2] = {0, 0}, ix3[3] = {0, 0, 0}, bad[2] = {0, 2};
    double v = 1;
    spt_tensor *a = mk(SPT_FLOAT64, 2, s22, 1, ix, &v), *b, *o = (spt_tensor *)1;
    b = mk(SPT_FLOAT64, 2, s23, 1, ix, &v);
    ASSERT_ST(SPT_EINVAL, spt_add(a, b, 0, &o));
    assert_null(o);
    ASSERT_MSG("Operands' shapes do not match: got 2 and 3 for dimension 1");
    /* the contract's order: shapes, then dtype, then a NaN threshold */
    ASSERT_ST(SPT_EINVAL, spt_add(a, b, NAN, &o));
    ASSERT_MSG("Operands' shapes do not match: got 2 and 3 for dimension 1");
    spt_tensor_free(b);
    b = mk(SPT_FLOAT64, 3, s221, 1, ix3, &v);
    ASSERT_ST(SPT_EINVAL, spt_add(a, b, 0, &o));
    ASSERT_MSG("Operands do not have the same ranks");
    spt_tensor_free(b);
    b = mk(SPT_FLOAT64, 2, s22, 1, bad, &v);
    ASSERT_ST(SPT_ERANGE, spt_add(a, b, 0, &o));
    ASSERT_ST(SPT_EINVAL, spt_add(a, b, NAN, &o));
    ASSERT_MSG("the magnitude threshold is NaN");
    spt_tensor_free(b);
    ASSERT_ST(SPT_EINVAL, spt_add(a, a, NAN, &o)); /* canonical operands too */
    ASSERT_MSG("the magnitude threshold is NaN");
    float fv = 1;
    b = mk(SPT_FLOAT32, 2, s22, 1, ix, &fv);
    ASSERT_ST(SPT_EDTYPE, spt_add(a, b, 0, &o));
    ASSERT_ST(SPT_EDTYPE, spt_add(a, b, NAN, &o));
    spt_tensor_free(b);
    spt_tensor_free(a);
    /* integer values: the threshold must be an integer (TensorFlow converts it to the dtype) */
    int32_t iv = 1;
    a = mk(SPT_INT32, 2, s22, 1, ix, &iv);
    ASSERT_OK(spt_add(a, a, 2, &o));
    assert_int_equal(spt_tensor_nnz(o), 1);
    spt_tensor_free(o);
    ASSERT_OK(spt_add(a, a, -3, &o));
    spt_tensor_free(o);
    o = (spt_tensor *)1;
    ASSERT_ST(SPT_EINVAL, spt_add(a, a, 0.5, &o));
    assert_null(o);
    ASSERT_MSG("threshold 0.5 is not an integer");
    ASSERT_ST(SPT_EINVAL, spt_add(a, a, INFINITY, &o));
    ASSERT_ST(SPT_EINVAL, spt_add(a, a, -INFINITY, &o));
    ASSERT_ST(SPT_EINVAL, spt_add(a, a, NAN, &o));
    spt_tensor_free(a);
    /* int64 sums near 2^63 against the threshold 2^63 (a double): decided exactly, |s| never rounded */
    int64_t s1[1] = {4}, ix4[4] = {0, 1, 2, 3};
    int64_t va[4] = {INT64_MAX - 1, INT64_MIN + 1, INT64_MIN / 2, 5}, vb[4] = {1, -1, INT64_MIN / 2, -5};
    spt_tensor *a64 = mk(SPT_INT64, 1, s1, 4, ix4, va), *b64 = mk(SPT_INT64, 1, s1, 4, ix4, vb);
    ASSERT_OK(spt_add(a64, b64, 9223372036854775808.0, &o)); /* keeps only |s| >= 2^63: the MINs at [1], [2] */
    int64_t wi[2] = {1, 2}, wv[2] = {INT64_MIN, INT64_MIN};
    spt_test_expect_tensor(o, 1, s1, 2, wi, wv);
    spt_tensor_free(o);
    ASSERT_OK(spt_add(a64, b64, 9223372036854774784.0, &o)); /* 2^63 - 1024: INT64_MAX, MIN+..., MIN kept */
    assert_int_equal(spt_tensor_nnz(o), 3);
    spt_tensor_free(o);
    spt_tensor_free(a64);
    spt_tensor_free(b64);
    uint8_t u = 1;
    a = mk(SPT_UINT8, 2, s22, 1, ix, &u);
    ASSERT_ST(SPT_EDTYPE, spt_add(a, a, 0, &o));
    spt_tensor_free(a);
    double s = 1;
    a = mk(SPT_FLOAT64, 0, NULL, 1, NULL, &s);
    ASSERT_ST(SPT_EINVAL, spt_add(a, a, 0, &o));
    spt_tensor_free(a);
    ASSERT_ST(SPT_EINVAL, spt_add(NULL, NULL, 0, &o));
}

static void test_empty(void **state) {
    (void)state;
    int64_t shape[2] = {2, 2}, z[2] = {0, 3};
    spt_tensor *a = mk(SPT_FLOAT64, 2, shape, 0, NULL, NULL), *o;
    ASSERT_OK(spt_add(a, a, 0, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    assert_int_equal(spt_tensor_rank(o), 2);
    spt_tensor_free(o);
    spt_tensor_free(a);
    a = mk(SPT_INT16, 2, z, 0, NULL, NULL);
    ASSERT_OK(spt_add(a, a, 0, &o));
    assert_int_equal(spt_tensor_nnz(o), 0);
    spt_tensor_free(o);
    spt_tensor_free(a);
}

static void test_property(void **state) {
    (void)state;
    static const spt_dtype dts[] = {SPT_INT8,    SPT_INT16,   SPT_INT32,     SPT_INT64,
                                    SPT_FLOAT32, SPT_FLOAT64, SPT_COMPLEX64, SPT_COMPLEX128};
    mt_seed(31337);
    for (int iter = 0; iter < 800; iter++) {
        spt_dtype dt = dts[iter % 8];
        int64_t r = 1 + mt_int(3), shape[3];
        for (int64_t d = 0; d < r; d++) shape[d] = mt_int(12) == 0 ? 0 : 1 + mt_int(4);
        spt_tensor *a = mt_rand_tensor(dt, r, shape, mt_int(10), false, mt_int(2));
        spt_tensor *b = mt_rand_tensor(dt, r, shape, mt_int(10), false, mt_int(2)), *o;
        static const double th[3] = {0, 0.5, 3};
        double thresh = th[mt_int(3)];
        if (spt_dtype_is_integer(dt)) thresh = floor(thresh); /* an integer threshold for integer values */
        ASSERT_OK(spt_add(a, b, thresh, &o));
        mg_check(MG_ADD, a, b, thresh, o);
        spt_tensor_free(o);
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
}

static spt_status add0(const spt_tensor *a, const spt_tensor *b, spt_tensor **o) { return spt_add(a, b, 0, o); }
static spt_status add2(const spt_tensor *a, const spt_tensor *b, spt_tensor **o) { return spt_add(a, b, 2, o); }

static void test_threads(void **state) {
    (void)state;
    mg_threads(add0, SPT_INT64);
    mg_threads(add2, SPT_INT32);
    mg_threads(add0, SPT_FLOAT64);
}

static void test_alloc_sweep(void **state) {
    (void)state;
    mg_sweep(add0);
}

/* ---- the blocked merge of two canonical operands (sorted, unique, key within 64 bits) ---- */

/* A canonical tensor (sorted row-major, unique, known so) at the sorted linear offsets off[0, n). */
static spt_tensor *mk_canon(spt_dtype dt, int64_t r, const int64_t *shape, int64_t n, const int64_t *off) {
    spt_tensor *t;
    ASSERT_OK(spt_tensor_alloc(dt, r, shape, n, &t));
    int64_t *ix = spt_tensor_indices_mut(t);
    void *v = spt_tensor_values_mut(t);
    for (int64_t i = 0; i < n; i++) {
        int64_t o = off[i];
        for (int64_t d = r - 1; d >= 0; d--) {
            ix[i * r + d] = o % shape[d];
            o /= shape[d];
        }
        mt_set(dt, v, i, mt_value(dt));
    }
    ASSERT_OK(spt_reorder(t, NULL)); /* records valid, sorted, unique */
    return t;
}

/* spt_add(a, b, thresh) with 1, 2, 3 and 4 threads: the same bytes each time, and right (mg_check). */
static void check_all_threads(const spt_tensor *a, const spt_tensor *b, double thresh) {
    spt_tensor *o1 = NULL, *o;
    if (spt_dtype_is_integer(spt_tensor_dtype(a))) thresh = floor(thresh); /* integer values: an integer threshold */
    for (int th = 1; th <= 4; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_add(a, b, thresh, &o));
        if (th == 1) {
            mg_check(MG_ADD, a, b, thresh, o);
            o1 = o;
        } else {
            mt_assert_same_tensor(o1, o);
            spt_tensor_free(o);
        }
    }
    spt_set_num_threads(0);
    spt_tensor_free(o1);
}

/* Offsets 0..vol-1 kept by pattern p (a different mix of a-only, b-only and shared cells each). */
static bool in_a(int p, int64_t c, int64_t vol) {
    switch (p) {
    case 0: return true;                       /* a and b the same cells: every cell a pair */
    case 1: return c % 3 != 2;                 /* pairs at two of three cells */
    case 2: return c < vol / 2;                /* a entirely before b */
    case 3: return c >= vol / 2;               /* a entirely after b */
    case 4: return (c / 4096) % 2 == 0;        /* runs as long as the lanes */
    default: return (c * 2654435761u) % 7 < 4; /* scattered */
    }
}
static bool in_b(int p, int64_t c, int64_t vol) {
    switch (p) {
    case 0: return true;
    case 1: return c % 3 != 0;
    case 2: return c >= vol / 2;
    case 3: return c < vol / 2;
    case 4: return (c / 4096) % 2 == 1 || c % 5 == 0;
    default: return (c * 40503u) % 5 < 3;
    }
}

static void test_blocked_merge_patterns(void **state) {
    (void)state;
    /* ~25000-40000 cells: several blocks of the merge path, so block and lane splits land on every
     * kind of position, including inside runs of coinciding pairs (patterns 0 and 1) */
    static const spt_dtype dts[] = {SPT_FLOAT64, SPT_INT32, SPT_COMPLEX128, SPT_INT8, SPT_FLOAT32, SPT_COMPLEX64};
    int64_t shape[3] = {20, 40, 50};
    const int64_t vol = 40000;
    int64_t *oa = malloc(sizeof(int64_t) * (size_t)vol), *ob = malloc(sizeof(int64_t) * (size_t)vol);
    assert_non_null(oa);
    assert_non_null(ob);
    mt_seed(777);
    for (int p = 0; p < 6; p++) {
        int64_t na = 0, nb = 0;
        for (int64_t c = 0; c < vol; c++) {
            if (in_a(p, c, vol)) oa[na++] = c;
            if (in_b(p, c, vol)) ob[nb++] = c;
        }
        for (int k = 0; k < 2; k++) {
            spt_dtype dt = dts[(p * 2 + k) % 6];
            spt_tensor *a = mk_canon(dt, 3, shape, na, oa), *b = mk_canon(dt, 3, shape, nb, ob);
            check_all_threads(a, b, 0);
            check_all_threads(a, b, 0.5); /* drops some pairs: the later blocks move up */
            check_all_threads(b, a, 0.5);
            spt_tensor_free(a);
            spt_tensor_free(b);
        }
    }
    free(oa);
    free(ob);
}

/* add.c's hooks: the wait before a thread merges a late peer's block again for its count, and how often
 * that happened */
extern int64_t spt__add_patience_ns;
extern _Atomic int64_t spt__add_late_merges;

static void test_blocked_merge_late_peer(void **state) {
    (void)state;
    /* no patience: a thread whose block's predecessor is still being merged merges it again itself for
     * its count; the bytes stay those of one thread, with pairs dropped or not */
    int64_t shape[2] = {400, 500};
    const int64_t vol = 200000;
    int64_t *oa = malloc(sizeof(int64_t) * (size_t)vol), *ob = malloc(sizeof(int64_t) * (size_t)vol);
    assert_non_null(oa);
    assert_non_null(ob);
    mt_seed(778);
    spt__add_patience_ns = 0;
    const int64_t before = atomic_load(&spt__add_late_merges);
    for (int p = 1; p < 6; p += 4) {
        int64_t na = 0, nb = 0;
        for (int64_t c = 0; c < vol; c++) {
            if (in_a(p, c, vol)) oa[na++] = c;
            if (in_b(p, c, vol)) ob[nb++] = c;
        }
        spt_tensor *a = mk_canon(SPT_FLOAT64, 2, shape, na, oa), *b = mk_canon(SPT_FLOAT64, 2, shape, nb, ob);
        for (int rep = 0; rep < 40 && (rep < 3 || atomic_load(&spt__add_late_merges) == before); rep++) {
            check_all_threads(a, b, 0);
            check_all_threads(a, b, 0.5);
        }
        spt_tensor_free(a);
        spt_tensor_free(b);
    }
    assert_true(atomic_load(&spt__add_late_merges) > before); /* the path was taken */
    spt__add_patience_ns = -1;
    free(oa);
    free(ob);
}

static void test_blocked_merge_cancel(void **state) {
    (void)state;
    /* a + (-a) over 30000 cells: with threshold 1 every pair vanishes, the output is empty; with 0 it
     * keeps every cell at 0 */
    int64_t shape[2] = {300, 100};
    const int64_t n = 30000;
    spt_tensor *a, *b, *o;
    ASSERT_OK(spt_tensor_alloc(SPT_INT64, 2, shape, n, &a));
    ASSERT_OK(spt_tensor_alloc(SPT_INT64, 2, shape, n, &b));
    int64_t *ia = spt_tensor_indices_mut(a), *ib = spt_tensor_indices_mut(b);
    int64_t *va = spt_tensor_values_mut(a), *vb = spt_tensor_values_mut(b);
    for (int64_t i = 0; i < n; i++) {
        ia[2 * i] = ib[2 * i] = i / 100;
        ia[2 * i + 1] = ib[2 * i + 1] = i % 100;
        va[i] = i + 1;
        vb[i] = -(i + 1);
    }
    ASSERT_OK(spt_reorder(a, NULL));
    ASSERT_OK(spt_reorder(b, NULL));
    for (int th = 1; th <= 4; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_add(a, b, 1, &o));
        assert_int_equal(spt_tensor_nnz(o), 0);
        spt_tensor_free(o);
        ASSERT_OK(spt_add(a, b, 0, &o));
        assert_int_equal(spt_tensor_nnz(o), n);
        for (int64_t i = 0; i < n; i++) assert_int_equal(((const int64_t *)spt_tensor_values(o))[i], 0);
        assert_memory_equal(spt_tensor_indices(o), ia, (size_t)n * 2 * sizeof(int64_t));
        spt_tensor_free(o);
    }
    spt_set_num_threads(0);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static void test_blocked_merge_empty_side(void **state) {
    (void)state;
    /* one operand empty, the other canonical and large: a copy of it, from either side */
    int64_t shape[2] = {200, 150};
    const int64_t n = 20000;
    int64_t *off = malloc(sizeof(int64_t) * (size_t)n);
    assert_non_null(off);
    for (int64_t i = 0; i < n; i++) off[i] = i + i / 2;
    mt_seed(9);
    spt_tensor *a = mk_canon(SPT_FLOAT64, 2, shape, n, off), *e = mk_canon(SPT_FLOAT64, 2, shape, 0, off), *o;
    check_all_threads(a, e, 0);
    check_all_threads(e, a, 0);
    ASSERT_OK(spt_add(e, a, 0, &o));
    assert_memory_equal(spt_tensor_indices(o), spt_tensor_indices(a), (size_t)n * 2 * sizeof(int64_t));
    assert_memory_equal(spt_tensor_values(o), spt_tensor_values(a), (size_t)n * sizeof(double));
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(e);
    free(off);
}

static void test_blocked_merge_dtypes(void **state) {
    (void)state;
    /* bool and string have no SparseAdd kernel: the canonical path names the op as the general one did */
    int64_t shape[1] = {8}, off[3] = {1, 4, 6};
    spt_tensor *a = mk_canon(SPT_BOOL, 1, shape, 3, off), *o = NULL;
    ASSERT_ST(SPT_EDTYPE, spt_add(a, a, 0, &o));
    assert_non_null(strstr(spt_last_error(), "spt_add"));
    assert_null(o);
    spt_tensor_free(a);
    a = mk_canon(SPT_STRING, 1, shape, 3, off);
    ASSERT_ST(SPT_EDTYPE, spt_add(a, a, 0, &o));
    assert_null(o);
    spt_tensor_free(a);
}

static void test_wide_key_fallback(void **state) {
    (void)state;
    /* a shape whose row-major key needs more than 64 bits takes the general merge: the same entries
     * and values as the same coordinates in a small shape (row-major order is the same) */
    int64_t small[3] = {30, 20, 40}, wide[3] = {(int64_t)1 << 40, (int64_t)1 << 30, 40};
    const int64_t vol = 30 * 20 * 40;
    int64_t *oa = malloc(sizeof(int64_t) * (size_t)vol), *ob = malloc(sizeof(int64_t) * (size_t)vol);
    assert_non_null(oa);
    assert_non_null(ob);
    int64_t na = 0, nb = 0;
    for (int64_t c = 0; c < vol; c++) {
        if (in_a(1, c, vol)) oa[na++] = c;
        if (in_b(1, c, vol)) ob[nb++] = c;
    }
    mt_seed(3);
    spt_tensor *a = mk_canon(SPT_FLOAT64, 3, small, na, oa), *b = mk_canon(SPT_FLOAT64, 3, small, nb, ob);
    spt_tensor *wa, *wb, *o, *wo;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, wide, na, spt_tensor_indices(a), spt_tensor_values(a), NULL, &wa));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, wide, nb, spt_tensor_indices(b), spt_tensor_values(b), NULL, &wb));
    ASSERT_OK(spt_reorder(wa, NULL));
    ASSERT_OK(spt_reorder(wb, NULL));
    ASSERT_OK(spt_add(a, b, 0.5, &o));
    mg_check(MG_ADD, a, b, 0.5, o);
    for (int th = 1; th <= 2; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_add(wa, wb, 0.5, &wo));
        assert_int_equal(spt_tensor_nnz(wo), spt_tensor_nnz(o));
        assert_memory_equal(spt_tensor_indices(wo), spt_tensor_indices(o),
                            (size_t)spt_tensor_nnz(o) * 3 * sizeof(int64_t));
        assert_memory_equal(spt_tensor_values(wo), spt_tensor_values(o), (size_t)spt_tensor_nnz(o) * sizeof(double));
        assert_true(spt_tensor_is_row_major(wo, true));
        spt_tensor_free(wo);
    }
    spt_set_num_threads(0);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(wa);
    spt_tensor_free(wb);
    free(oa);
    free(ob);
}

static void test_blocked_merge_alloc_sweep(void **state) {
    (void)state;
    /* every allocation of the blocked path failing in turn (the per-thread buffers, the output):
     * SPT_ENOMEM and no leak, with 2 threads and several blocks */
    int64_t shape[2] = {200, 150};
    const int64_t n = 12000;
    int64_t *oa = malloc(sizeof(int64_t) * (size_t)n), *ob = malloc(sizeof(int64_t) * (size_t)n);
    assert_non_null(oa);
    assert_non_null(ob);
    for (int64_t i = 0; i < n; i++) {
        oa[i] = 2 * i + i / 7 % 2;
        ob[i] = 2 * i + 1;
    }
    mt_seed(11);
    spt_tensor *a = mk_canon(SPT_FLOAT64, 2, shape, n, oa), *b = mk_canon(SPT_FLOAT64, 2, shape, n, ob);
    spt_set_num_threads(2);
    spt_test_alloc_install();
    mt_call c = {.op = mt_call_binary, .bin = add0, .a = a, .b = b};
    mt_call_sweep(&c);
    spt_set_num_threads(0);
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(oa);
    free(ob);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_threshold_only_on_coinciding),
        cmocka_unit_test(test_unsorted_and_duplicates),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_sweep),
        cmocka_unit_test(test_blocked_merge_patterns),
        cmocka_unit_test(test_blocked_merge_late_peer),
        cmocka_unit_test(test_blocked_merge_cancel),
        cmocka_unit_test(test_blocked_merge_empty_side),
        cmocka_unit_test(test_blocked_merge_dtypes),
        cmocka_unit_test(test_wide_key_fallback),
        cmocka_unit_test(test_blocked_merge_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <string.h>

static conf_result sparse_add(const conf_case *c) { return conf_binary(c, OP_ADD); }

CONF_HANDLERS(test_add, {"sparse_add", sparse_add, CONF_OP(spt_add)})
#endif
