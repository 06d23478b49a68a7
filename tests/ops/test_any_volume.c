/* SPDX-License-Identifier: Apache-2.0 */
/* test_any_volume.c -- the ops on shapes whose volume passes 2^63 (FROSTT's nell-1, a rank-6 shape of
 * 2^62 per dim, rank 64), each against a reference that never linearizes an index (rows compared mode
 * by mode), and the dense-output errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

#define P62 ((int64_t)1 << 62)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int64_t below(int64_t n) { return (int64_t)(next_u64() % (uint64_t)n); }

static const int64_t NELL1[3] = {2902330, 2143368, 25495389};
static const int64_t R6[6] = {P62, P62, P62, P62, P62, P62};

/* n index rows of `shape`, clustered (few values per mode near 0, the middle and the end) so that
 * operands share rows; `distinct` drops repeated rows. Returns the count kept. */
static int64_t draw(int64_t r, const int64_t *shape, int64_t n, bool distinct, int64_t *ix) {
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t *row = ix + m * r;
        for (int64_t d = 0; d < r; d++) {
            int64_t s = shape[d], k = below(3), off = below(s < 4 ? s : 4);
            row[d] = k == 0 ? off : k == 1 ? s - 1 - off : s / 2 + (off < s - s / 2 ? off : 0);
        }
        bool dup = false;
        for (int64_t j = 0; distinct && j < m && !dup; j++) dup = !memcmp(ix + j * r, row, (size_t)r * sizeof *row);
        if (!dup) m++;
    }
    return m;
}

static int cmp_rows(const int64_t *a, const int64_t *b, int64_t r) {
    for (int64_t d = 0; d < r; d++)
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    return 0;
}

/* Stable insertion sort of entry numbers p[0, n) by the rows of ix (rank r). */
static void ref_sort(const int64_t *ix, int64_t r, int64_t *p, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        int64_t x = p[i], j = i;
        while (j > 0 && cmp_rows(ix + p[j - 1] * r, ix + x * r, r) > 0) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

static spt_tensor *make(int64_t r, const int64_t *shape, int64_t n, const int64_t *ix, const double *v) {
    spt_tensor *t = NULL;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, r, shape, n, ix, v, NULL, &t));
    return t;
}

/* t holds exactly rows ix[p[k]] with values v[k] in that order. */
static void expect_rows(const spt_tensor *t, int64_t r, const int64_t *ix, const int64_t *p, const double *v, int64_t n,
                        double tol) {
    assert_int_equal(spt_tensor_nnz(t), n);
    const int64_t *oi = spt_tensor_indices(t);
    const double *ov = spt_tensor_values(t);
    for (int64_t k = 0; k < n; k++) {
        if (memcmp(oi + k * r, ix + (p ? p[k] : k) * r, (size_t)r * sizeof *oi))
            fail_msg("entry %lld: index differs", (long long)k);
        if (fabs(ov[k] - v[k]) > tol) fail_msg("entry %lld: value %.17g, want %.17g", (long long)k, ov[k], v[k]);
    }
}

/* ---- add, maximum, minimum, subtract: the union of two operands; multiply: the intersection ------- */

typedef enum { OP_ADD, OP_MAX, OP_MIN, OP_SUB, OP_MUL } binop;

static void check_binop(binop op, int64_t r, const int64_t *shape) {
    const int64_t n = 300;
    int64_t *ix = malloc((size_t)(2 * n) * (size_t)r * sizeof *ix);
    int64_t na = draw(r, shape, n, true, ix), nb = draw(r, shape, n, true, ix + na * r);
    double *v = malloc((size_t)(na + nb) * sizeof *v);
    for (int64_t i = 0; i < na + nb; i++) v[i] = (double)(below(21) - 10);
    spt_tensor *a = make(r, shape, na, ix, v), *b = make(r, shape, nb, ix + na * r, v + na), *o = NULL;
    if (op == OP_ADD) ASSERT_OK(spt_add(a, b, 0.0, &o));
    else if (op == OP_MAX) ASSERT_OK(spt_maximum(a, b, &o));
    else if (op == OP_MIN) ASSERT_OK(spt_minimum(a, b, &o));
    else if (op == OP_SUB) ASSERT_OK(spt_subtract(a, b, &o));
    else ASSERT_OK(spt_multiply(a, b, &o));
    /* reference: the union sorted by rows (a's entry first on a tie), shared rows combined */
    int64_t *p = malloc((size_t)(na + nb) * sizeof *p), *q = malloc((size_t)(na + nb) * sizeof *q);
    double *w = malloc((size_t)(na + nb) * sizeof *w);
    for (int64_t i = 0; i < na + nb; i++) p[i] = i;
    ref_sort(ix, r, p, na + nb);
    int64_t m = 0;
    for (int64_t k = 0; k < na + nb; k++) {
        double x = v[p[k]];
        if (k + 1 < na + nb && !cmp_rows(ix + p[k] * r, ix + p[k + 1] * r, r)) {
            double y = v[p[k + 1]];
            w[m] = op == OP_ADD   ? x + y
                   : op == OP_MAX ? fmax(x, y)
                   : op == OP_MIN ? fmin(x, y)
                   : op == OP_SUB ? x - y
                                  : x * y;
            q[m++] = p[k++];
        } else if (op != OP_MUL) { /* a row of one operand only: multiply keeps none of them */
            w[m] = op == OP_ADD ? x : op == OP_MAX ? fmax(x, 0) : op == OP_MIN ? fmin(x, 0) : p[k] < na ? x : -x;
            q[m++] = p[k];
        }
    }
    expect_rows(o, r, ix, q, w, m, 0);
    spt_tensor_free(o);
    /* unsorted operands with the order forgotten: the same result */
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(p);
    free(q);
    free(w);
    free(v);
    free(ix);
}

/* The gradient kernels look entries up through the key engine: any volume (more in test_grad_any_volume). */
static void test_grad_refuses(void **state) {
    (void)state;
    int64_t ix[3] = {1, 2, 3};
    double v[1] = {2}, g[1] = {1};
    spt_tensor *a = make(3, NELL1, 1, ix, v), *c = NULL;
    ASSERT_OK(spt_multiply(a, a, &c));
    spt_dense *grad = NULL, *ga = NULL, *gb = NULL;
    int64_t one = 1;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, &one, &grad));
    memcpy(spt_dense_data_mut(grad), g, sizeof g);
    ASSERT_OK(spt_multiply_grad(a, a, c, grad, &ga, &gb));
    assert_true(((const double *)spt_dense_data(ga))[0] == 2 && ((const double *)spt_dense_data(gb))[0] == 2);
    spt_dense_free(ga);
    spt_dense_free(gb);
    spt_dense_free(grad);
    spt_tensor_free(c);
    spt_tensor_free(a);
}

static void test_add_max_min(void **state) {
    (void)state;
    int64_t big[64];
    for (int k = 0; k < 64; k++) big[k] = INT64_MAX - k;
    for (int op = 0; op < 5; op++) {
        check_binop((binop)op, 3, NELL1);
        check_binop((binop)op, 6, R6);
        check_binop((binop)op, 64, big);
    }
    /* sorted canonical operands (the one-pass row merge is for linear keys only) */
    int64_t ia[] = {0, 0, 0, 1, P62, 1}, ib[] = {0, 0, 0, 1, P62, 2};
    int64_t sh[] = {2, P62 + 1, 4};
    double va[] = {1, 2}, vb[] = {10, 20};
    spt_tensor *a = make(3, sh, 2, ia, va), *b = make(3, sh, 2, ib, vb), *o = NULL;
    ASSERT_OK(spt_reorder(a, NULL));
    ASSERT_OK(spt_reorder(b, NULL));
    ASSERT_OK(spt_add(a, b, 0.0, &o));
    int64_t want_i[] = {0, 0, 0, 1, P62, 1, 1, P62, 2};
    double want_v[] = {11, 2, 20};
    expect_rows(o, 3, want_i, NULL, want_v, 3, 0);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* ---- concat -------------------------------------------------------------------------------------- */

static void check_concat(int64_t r, const int64_t *shape, int64_t axis) {
    const int64_t n = 200;
    int64_t *ix = malloc((size_t)(2 * n) * (size_t)r * sizeof *ix);
    int64_t na = draw(r, shape, n, false, ix), nb = draw(r, shape, n, false, ix + na * r);
    double *v = malloc((size_t)(na + nb) * sizeof *v);
    for (int64_t i = 0; i < na + nb; i++) v[i] = (double)i;
    int64_t sh2[SPT_MAX_RANK];
    memcpy(sh2, shape, (size_t)r * sizeof *sh2);
    sh2[axis] = 5; /* input 1 is thin along the axis; its rows are drawn inside shape, so clamp */
    for (int64_t i = na; i < na + nb; i++) ix[i * r + axis] %= 5;
    spt_tensor *a = make(r, shape, na, ix, v), *b = make(r, sh2, nb, ix + na * r, v + na), *o = NULL;
    const spt_tensor *in[2] = {a, b};
    ASSERT_OK(spt_concat(in, 2, axis, false, &o));
    assert_int_equal(spt_tensor_shape(o)[axis], shape[axis] + 5);
    /* reference: input 1 offset along the axis, then a stable sort of the union by rows */
    for (int64_t i = na; i < na + nb; i++) ix[i * r + axis] += shape[axis];
    int64_t *p = malloc((size_t)(na + nb) * sizeof *p);
    double *w = malloc((size_t)(na + nb) * sizeof *w);
    for (int64_t i = 0; i < na + nb; i++) p[i] = i;
    ref_sort(ix, r, p, na + nb);
    for (int64_t k = 0; k < na + nb; k++) w[k] = v[p[k]];
    expect_rows(o, r, ix, p, w, na + nb, 0);
    spt_tensor_free(o);
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(p);
    free(w);
    free(v);
    free(ix);
}

static void test_concat(void **state) {
    (void)state;
    for (int64_t ax = 0; ax < 3; ax++) check_concat(3, NELL1, ax);
    for (int64_t ax = 0; ax < 6; ax += 2) check_concat(6, R6, ax);
    check_concat(6, R6, 5);
}

/* ---- reductions to a sparse output, softmax -------------------------------------------------------- */

static void test_reduce_sparse(void **state) {
    (void)state;
    const int64_t r = 6, n = 400;
    int64_t *ix = malloc((size_t)(n * r) * sizeof *ix);
    int64_t m = draw(r, R6, n, false, ix);
    double *v = malloc((size_t)m * sizeof *v);
    for (int64_t i = 0; i < m; i++) v[i] = (double)(below(9) - 4);
    spt_tensor *t = make(r, R6, m, ix, v), *o = NULL, *mx = NULL;
    int64_t axes[] = {4};
    ASSERT_OK(spt_reduce_sum_sparse(t, axes, 1, false, &o));
    ASSERT_OK(spt_reduce_max_sparse(t, axes, 1, true, &mx));
    /* reference: rows without dim 4, stable sort, runs summed / maxed in storage order */
    int64_t *kx = calloc((size_t)(m * 5 + 1), sizeof *kx), *p = malloc((size_t)m * sizeof *p),
            *q = malloc((size_t)m * sizeof *q);
    double *ws = malloc((size_t)m * sizeof *ws), *wm = malloc((size_t)m * sizeof *wm);
    int64_t *kx6 = malloc((size_t)(m * 6) * sizeof *kx6);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t d = 0, j = 0; d < 6; d++)
            if (d != 4) kx[i * 5 + j++] = ix[i * 6 + d];
        p[i] = i;
    }
    ref_sort(kx, 5, p, m);
    int64_t g = 0;
    for (int64_t k = 0; k < m; g++) {
        int64_t e = k + 1;
        double s = v[p[k]], mm = v[p[k]];
        while (e < m && !cmp_rows(kx + p[e] * 5, kx + p[k] * 5, 5)) {
            s += v[p[e]];
            mm = fmax(mm, v[p[e]]);
            e++;
        }
        q[g] = p[k];
        ws[g] = s;
        wm[g] = mm;
        for (int64_t d = 0, j = 0; d < 6; d++) kx6[g * 6 + d] = d == 4 ? 0 : kx[p[k] * 5 + j++];
        k = e;
    }
    expect_rows(o, 5, kx, q, ws, g, 0);
    expect_rows(mx, 6, kx6, NULL, wm, g, 0);
    assert_int_equal(spt_tensor_shape(mx)[4], 1);
    spt_tensor_free(o);
    spt_tensor_free(mx);
    /* a dense output that large is refused, naming the shape */
    spt_dense *d = (spt_dense *)1;
    ASSERT_ST(SPT_EOVERFLOW, spt_reduce_sum(t, axes, 1, false, &d));
    assert_null(d);
    ASSERT_MSG("spt_reduce_sum");
    spt_tensor_free(t);
    free(kx);
    free(kx6);
    free(p);
    free(q);
    free(ws);
    free(wm);
    free(v);
    free(ix);
}

static void test_softmax(void **state) {
    (void)state;
    const int64_t r = 6, n = 300;
    int64_t *ix = malloc((size_t)(n * r) * sizeof *ix);
    int64_t m = draw(r, R6, n, true, ix);
    double *v = malloc((size_t)m * sizeof *v), *w = malloc((size_t)m * sizeof *w);
    for (int64_t i = 0; i < m; i++) v[i] = (double)below(7) / 3.0;
    spt_tensor *t = make(r, R6, m, ix, v), *o = NULL;
    ASSERT_OK(spt_softmax(t, &o));
    int64_t *p = malloc((size_t)m * sizeof *p);
    for (int64_t i = 0; i < m; i++) p[i] = i;
    ref_sort(ix, r, p, m);
    for (int64_t k = 0; k < m;) {
        int64_t e = k + 1;
        while (e < m && !cmp_rows(ix + p[e] * r, ix + p[k] * r, r - 1)) e++;
        double mx = -INFINITY, s = 0;
        for (int64_t j = k; j < e; j++) mx = fmax(mx, v[p[j]]);
        for (int64_t j = k; j < e; j++) s += exp(v[p[j]] - mx);
        for (int64_t j = k; j < e; j++) w[j] = exp(v[p[j]] - mx) / s;
        k = e;
    }
    expect_rows(o, r, ix, p, w, m, 1e-12);
    spt_tensor_free(o);
    spt_tensor_free(t);
    free(p);
    free(w);
    free(v);
    free(ix);
}

/* ---- layout ops ---------------------------------------------------------------------------------- */

static void test_transpose_merge_group(void **state) {
    (void)state;
    const int64_t r = 6, n = 300;
    int64_t *ix = malloc((size_t)(n * r) * sizeof *ix), *tx = calloc((size_t)(n * r), sizeof *tx);
    int64_t m = draw(r, R6, n, false, ix);
    double *v = malloc((size_t)m * sizeof *v), *w = malloc((size_t)m * sizeof *w);
    for (int64_t i = 0; i < m; i++) v[i] = (double)i;
    spt_tensor *t = make(r, R6, m, ix, v), *o = NULL;
    int64_t perm[] = {3, 5, 0, 1, 4, 2};
    ASSERT_OK(spt_transpose(t, perm, &o));
    int64_t *p = malloc((size_t)m * sizeof *p);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t k = 0; k < r; k++) tx[i * r + k] = ix[i * r + perm[k]];
        p[i] = i;
    }
    ref_sort(tx, r, p, m);
    for (int64_t k = 0; k < m; k++) w[k] = v[p[k]];
    expect_rows(o, r, tx, p, w, m, 0);
    spt_tensor_free(o);
    /* group over the two leading dims after a reorder: as many groups as distinct prefixes */
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t dims[] = {0, 1}, groups = 0, seen = 0;
    spt_group_iter *it = NULL;
    ASSERT_OK(spt_group_begin(t, dims, 2, &it));
    spt_group g;
    while (spt_group_next(it, &g)) {
        groups++;
        seen += g.count;
    }
    spt_group_end(it);
    for (int64_t i = 0; i < m; i++) p[i] = i;
    ref_sort(ix, r, p, m);
    int64_t want = m > 0;
    for (int64_t k = 1; k < m; k++) want += cmp_rows(ix + p[k - 1] * r, ix + p[k] * r, 2) != 0;
    assert_int_equal(groups, want);
    assert_int_equal(seen, m);
    spt_tensor_free(t);
    /* merge: ids of huge vocabularies, sorted row-major through the key engine */
    int64_t ids_shape[] = {4, 3}, id1[] = {0, 0, 0, 1, 0, 2, 1, 0, 2, 0, 0, 1},
            id2[] = {0, 0, 0, 1, 0, 2, 1, 0, 2, 0, 0, 1};
    int64_t a1[] = {P62 - 1, 5, 0, 7}, a2[] = {3, INT64_MAX - 1, 2, 3};
    double mv[] = {1, 2, 3, 4};
    spt_tensor *s1 = NULL, *s2 = NULL, *sv = NULL;
    /* ids tensors: [2, 2] shapes, ids as int64 values */
    int64_t ish[] = {2, 2}, iix[] = {0, 0, 0, 1, 1, 0, 1, 1};
    (void)ids_shape;
    (void)id1;
    (void)id2;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, ish, 4, iix, a1, NULL, &s1));
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, ish, 4, iix, a2, NULL, &s2));
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, ish, 4, iix, mv, NULL, &sv));
    const spt_tensor *ids[2] = {s1, s2};
    int64_t vocab[] = {P62, INT64_MAX};
    ASSERT_OK(spt_merge(ids, 2, sv, vocab, 2, false, &o));
    int64_t want_i[] = {0, 5, INT64_MAX - 1, 0, P62 - 1, 3, 1, 0, 2, 1, 7, 3};
    double want_v[] = {2, 1, 3, 4};
    expect_rows(o, 3, want_i, NULL, want_v, 4, 0);
    assert_int_equal(spt_tensor_volume(o), -1);
    spt_tensor_free(o);
    spt_tensor_free(s1);
    spt_tensor_free(s2);
    spt_tensor_free(sv);
    free(p);
    free(w);
    free(v);
    free(tx);
    free(ix);
}

static void test_split_slice_retain_fill(void **state) {
    (void)state;
    const int64_t r = 3, n = 200;
    int64_t *ix = malloc((size_t)(n * r) * sizeof *ix);
    int64_t m = draw(r, NELL1, n, false, ix);
    double *v = malloc((size_t)m * sizeof *v);
    for (int64_t i = 0; i < m; i++) v[i] = (double)i;
    spt_tensor *t = make(r, NELL1, m, ix, v), *outs[3] = {NULL, NULL, NULL}, *o = NULL;
    ASSERT_OK(spt_split(t, 2, 3, outs));
    /* 25495389 = 3 * 8498463: pieces of 8498463 */
    int64_t total = 0;
    for (int k = 0; k < 3; k++) {
        const int64_t *oi = spt_tensor_indices(outs[k]);
        const double *ov = spt_tensor_values(outs[k]);
        assert_int_equal(spt_tensor_shape(outs[k])[2], 8498463);
        for (int64_t j = 0; j < spt_tensor_nnz(outs[k]); j++) {
            int64_t src = (int64_t)ov[j];
            assert_int_equal(oi[j * 3 + 2], ix[src * 3 + 2] - k * 8498463);
            assert_int_equal(ix[src * 3 + 2] / 8498463, k);
        }
        total += spt_tensor_nnz(outs[k]);
        spt_tensor_free(outs[k]);
    }
    assert_int_equal(total, m);
    int64_t start[] = {1, 0, 12747694}, size[] = {INT64_MAX, 3, INT64_MAX};
    ASSERT_OK(spt_slice(t, start, size, &o));
    int64_t kept = 0;
    for (int64_t i = 0; i < m; i++) kept += ix[i * 3] >= 1 && ix[i * 3 + 1] < 3 && ix[i * 3 + 2] >= 12747694;
    assert_int_equal(spt_tensor_nnz(o), kept);
    assert_int_equal(spt_tensor_shape(o)[0], NELL1[0] - 1);
    spt_tensor_free(o);
    bool *mask = malloc((size_t)m);
    int64_t nk = 0;
    for (int64_t i = 0; i < m; i++) nk += mask[i] = i % 3 == 0;
    ASSERT_OK(spt_retain(t, mask, m, &o));
    assert_int_equal(spt_tensor_nnz(o), nk);
    spt_tensor_free(o);
    free(mask);
    spt_tensor_free(t);
    /* fill_empty_rows on a [4, 2^62, 2^62] tensor: rows 1 and 3 are empty */
    int64_t fs[] = {4, P62, P62}, fi[] = {2, P62 - 1, 5, 0, 3, P62 - 2, 2, 0, 0};
    double fv[] = {1, 2, 3}, def = -1;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 3, fs, 3, fi, fv, NULL, &t));
    spt_dense *ind = NULL;
    ASSERT_OK(spt_fill_empty_rows(t, &def, &o, &ind, NULL));
    int64_t want_i[] = {0, 3, P62 - 2, 1, 0, 0, 2, P62 - 1, 5, 2, 0, 0, 3, 0, 0};
    double want_v[] = {2, -1, 1, 3, -1};
    expect_rows(o, 3, want_i, NULL, want_v, 5, 0);
    const bool *flags = spt_dense_data(ind);
    assert_true(!flags[0] && flags[1] && !flags[2] && flags[3]);
    spt_dense_free(ind);
    spt_tensor_free(o);
    spt_tensor_free(t);
    free(v);
    free(ix);
}

static void test_reshape(void **state) {
    (void)state;
    const int64_t P40 = (int64_t)1 << 40;
    int64_t sh[] = {P40, P40, 4}, ns[] = {P40, 4 * P40}, ix[] = {P40 - 1, P40 - 1, 3, 5, 7, 1, 0, 1, 2};
    double v[] = {1, 2, 3};
    spt_tensor *t = make(3, sh, 3, ix, v), *o = NULL;
    ASSERT_OK(spt_reshape(t, 2, ns, &o));
    /* reference: the 128-bit row-major offset, unravelled */
    int64_t want[6];
    for (int i = 0; i < 3; i++) {
        unsigned __int128 off = ((unsigned __int128)ix[i * 3] * (uint64_t)P40 + (uint64_t)ix[i * 3 + 1]) * 4 +
                                (uint64_t)ix[i * 3 + 2];
        want[i * 2 + 1] = (int64_t)(off % (uint64_t)(4 * P40));
        want[i * 2] = (int64_t)(off / (uint64_t)(4 * P40));
    }
    expect_rows(o, 2, want, NULL, v, 3, 0);
    spt_tensor_free(o);
    int64_t inf[] = {4, -1, P40, 1}; /* 2^82 / 2^42 = 2^40 */
    ASSERT_OK(spt_reshape(t, 4, inf, &o));
    assert_int_equal(spt_tensor_shape(o)[1], P40);
    spt_tensor_free(o);
    int64_t bad[] = {3, -1};
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 2, bad, &o));
    ASSERT_MSG("4835703278458516698824704 dense values");
    int64_t toolarge[] = {1, -1}; /* 2^82 > INT64_MAX for one dim */
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 2, toolarge, &o));
    int64_t neq[] = {P40, P40, 3};
    ASSERT_ST(SPT_EINVAL, spt_reshape(t, 3, neq, &o));
    ASSERT_MSG("but the requested shape has 3626777458843887524118528"); /* 3 * 2^80 */
    spt_tensor_free(t);
}

/* ---- the ops that build a dense array ------------------------------------------------------------- */

static void test_dense_outputs(void **state) {
    (void)state;
    int64_t ix[] = {0, 0, 0, 2902329, 2143367, 25495388};
    double v[] = {1, 2};
    spt_tensor *t = make(3, NELL1, 2, ix, v);
    spt_dense *d = (spt_dense *)1;
    ASSERT_ST(SPT_EOVERFLOW, spt_to_dense(t, NULL, true, &d));
    assert_null(d);
    ASSERT_MSG("[2902330,2143368,25495389]");
    int64_t iv[] = {3, 4}, ish[] = {P62, P62, 7};
    spt_tensor *ids = NULL; /* output [2^62, 2^62, 5] */
    ASSERT_OK(spt_tensor_new(SPT_INT64, 3, ish, 2, ix, iv, NULL, &ids));
    d = (spt_dense *)1;
    ASSERT_ST(SPT_EOVERFLOW, spt_to_indicator(ids, 5, &d));
    assert_null(d);
    spt_tensor_free(ids);
    /* matmul: [2^62, 3] x [3, 2] has 2^63 output elements; [2^60, 3] x [3, 1] cannot be allocated */
    int64_t ash[] = {P62, 3}, aix[] = {P62 - 1, 2};
    double av[] = {1};
    spt_tensor *a = make(2, ash, 1, aix, av);
    spt_dense *b = NULL;
    int64_t bsh[] = {3, 2};
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, bsh, &b));
    d = (spt_dense *)1;
    ASSERT_ST(SPT_EOVERFLOW, spt_sparse_dense_matmul(a, b, false, false, &d));
    assert_null(d);
    spt_dense_free(b);
    spt_tensor_free(a);
    int64_t ash2[] = {(int64_t)1 << 60, 3}, bsh2[] = {3, 1};
    a = make(2, ash2, 1, aix, av);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 2, bsh2, &b));
    d = (spt_dense *)1;
    spt_status st = spt_sparse_dense_matmul(a, b, false, false, &d);
    assert_true(st == SPT_ENOMEM || st == SPT_EOVERFLOW);
    assert_null(d);
    spt_dense_free(b);
    spt_tensor_free(a);
    /* cwise with a broadcast dense operand: the sparse volume does not matter */
    int64_t one[] = {1, 1, 1};
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 3, one, &b));
    ((double *)spt_dense_data_mut(b))[0] = 4;
    spt_tensor *o = NULL;
    ASSERT_OK(spt_sparse_dense_cwise_mul(t, b, &o));
    double want_v[] = {4, 8};
    expect_rows(o, 3, ix, NULL, want_v, 2, 0);
    spt_tensor_free(o);
    spt_dense_free(b);
    spt_tensor_free(t);
}

/* ---- transpose of many entries: the reorder of two-word packed keys (>= 65536 entries, 69 bits) --- */

static const int64_t *qs_ix; /* the rows qsort compares (rank 3) */
static int cmp_entry(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int c = cmp_rows(qs_ix + x * 3, qs_ix + y * 3, 3);
    return c ? c : (x > y) - (x < y); /* equal rows keep their order: the stable reference */
}

static void test_transpose_large(void **state) {
    (void)state;
    const int64_t n = 70000, r = 3, perm[] = {2, 0, 1};
    int64_t *ix = malloc((size_t)(n * r) * sizeof *ix), *tx = malloc((size_t)(n * r) * sizeof *tx);
    int64_t *p = malloc((size_t)n * sizeof *p);
    double *v = malloc((size_t)n * sizeof *v), *w = malloc((size_t)n * sizeof *w);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t d = 0; d < r; d++) ix[i * r + d] = below(NELL1[d]);
        if (i > 0 && below(10) == 0) memcpy(ix + i * r, ix + below(i) * r, (size_t)r * sizeof *ix); /* repeats */
        v[i] = (double)i;
    }
    spt_tensor *t = make(r, NELL1, n, ix, v), *o = NULL;
    ASSERT_OK(spt_transpose(t, perm, &o));
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = 0; k < r; k++) tx[i * r + k] = ix[i * r + perm[k]];
        p[i] = i;
    }
    qs_ix = tx;
    qsort(p, (size_t)n, sizeof *p, cmp_entry);
    for (int64_t k = 0; k < n; k++) w[k] = v[p[k]];
    expect_rows(o, r, tx, p, w, n, 0);
    spt_tensor_free(o);
    spt_tensor_free(t);
    free(w);
    free(v);
    free(p);
    free(tx);
    free(ix);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_max_min),
        cmocka_unit_test(test_grad_refuses),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_reduce_sparse),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_transpose_merge_group),
        cmocka_unit_test(test_split_slice_retain_fill),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_dense_outputs),
        cmocka_unit_test(test_transpose_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
