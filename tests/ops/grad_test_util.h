/* SPDX-License-Identifier: Apache-2.0 */
/* grad_test_util.h -- finite-difference checks for the gradient kernels (tests/ops/test_grad_*.c): a
 * loss L = sum_k w_k out_k with fixed random weights w, whose gradient with respect to each input value
 * is compared with the central difference (L(v + h) - L(v - h)) / 2h. Header-only. */
#ifndef GRAD_TEST_UTIL_H
#define GRAD_TEST_UTIL_H

#include "math_test_util.h"

typedef double (*gt_loss)(void *ctx);

/* Check analytic[0..n) against central differences of L over vals[0..n) (float64 values, changed and
 * restored in place). Tolerance: 1e-6 * (1 + |fd|). */
static inline void gt_fd_check(gt_loss L, void *ctx, double *vals, int64_t n, const double *analytic,
                               const char *what) {
    const double h = 1e-5;
    for (int64_t e = 0; e < n; e++) {
        double save = vals[e];
        vals[e] = save + h;
        double lp = L(ctx);
        vals[e] = save - h;
        double lm = L(ctx);
        vals[e] = save;
        double fd = (lp - lm) / (2 * h);
        if (fabs(fd - analytic[e]) > 1e-6 * (1 + fabs(fd))) {
            print_error("%s: value %lld: analytic %.12g, finite difference %.12g\n", what, (long long)e, analytic[e],
                        fd);
            fail();
        }
    }
}

/* Random non-integral weights / values in (-2, 2), distinct with probability 1. */
static inline double gt_rand(void) { return ((double)(mt_next() >> 11) / 9007199254740992.0) * 4 - 2; }

static inline void gt_fill(double *p, int64_t n) {
    for (int64_t i = 0; i < n; i++) p[i] = gt_rand();
}

/* A random float64 tensor with continuous values (distinct cells unless dups). */
static inline spt_tensor *gt_tensor(int64_t r, const int64_t *shape, int64_t n, bool dups, bool sorted) {
    spt_tensor *t = mt_rand_tensor(SPT_FLOAT64, r, shape, n, dups, sorted);
    gt_fill(spt_tensor_values_mut(t), spt_tensor_nnz(t));
    return t;
}

static inline spt_dense *gt_vec(const double *w, int64_t n) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT64, 1, &n, w, &d));
    return d;
}

/* sum_k w[k] * v[k] */
static inline double gt_dot(const double *w, const double *v, int64_t n) {
    double s = 0;
    for (int64_t k = 0; k < n; k++) s += w[k] * v[k];
    return s;
}

/* float32 copies, to check that a kernel gives (to float32 precision) the float64 result. */
static inline spt_tensor *gt_to_f32(const spt_tensor *t) {
    int64_t n = spt_tensor_nnz(t);
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = (float)((const double *)spt_tensor_values(t))[i];
    spt_tensor *o;
    ASSERT_OK(
        spt_tensor_new(SPT_FLOAT32, spt_tensor_rank(t), spt_tensor_shape(t), n, spt_tensor_indices(t), v, NULL, &o));
    free(v);
    return o;
}
static inline spt_dense *gt_dense_f32(const spt_dense *d) {
    int64_t n = spt_dense_size(d);
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = (float)((const double *)spt_dense_data(d))[i];
    spt_dense *o;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT32, spt_dense_rank(d), spt_dense_shape(d), v, &o));
    free(v);
    return o;
}
static inline void gt_assert_f32(const spt_dense *g32, const spt_dense *g64) {
    assert_int_equal(spt_dense_size(g32), spt_dense_size(g64));
    for (int64_t i = 0; i < spt_dense_size(g64); i++) {
        double x = ((const float *)spt_dense_data(g32))[i], y = ((const double *)spt_dense_data(g64))[i];
        assert_true(fabs(x - y) <= 1e-4 * (1 + fabs(y)));
    }
}

/* A gradient kernel of a binary op c = op(a, b): the value gradients of a and b from grad (c's nnz
 * values). */
typedef spt_status (*gt_pair_grad)(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c, const spt_dense *grad,
                                   spt_dense **a_val_grad, spt_dense **b_val_grad);

/* The check every binary gradient test makes: with grad = w (o's nnz values), f's gradients of a and b
 * against finite differences of L (the loss over ctx, which holds a, b and w), then the same call on
 * float32 copies against the float64 result. `name` prefixes the failure messages ("<name> a"). */
static inline void gt_check_pair_grad(gt_pair_grad f, gt_loss L, void *ctx, spt_tensor *a, spt_tensor *b,
                                      const spt_tensor *o, const double *w, const char *name) {
    char what[64];
    spt_dense *g = gt_vec(w, spt_tensor_nnz(o)), *ga, *gb;
    ASSERT_OK(f(a, b, o, g, &ga, &gb));
    snprintf(what, sizeof what, "%s a", name);
    gt_fd_check(L, ctx, spt_tensor_values_mut(a), spt_tensor_nnz(a), spt_dense_data(ga), what);
    snprintf(what, sizeof what, "%s b", name);
    gt_fd_check(L, ctx, spt_tensor_values_mut(b), spt_tensor_nnz(b), spt_dense_data(gb), what);
    /* float32 gives the same */
    spt_tensor *a32 = gt_to_f32(a), *b32 = gt_to_f32(b), *o32 = gt_to_f32(o);
    spt_dense *g32 = gt_dense_f32(g), *ga32, *gb32;
    ASSERT_OK(f(a32, b32, o32, g32, &ga32, &gb32));
    gt_assert_f32(ga32, ga);
    gt_assert_f32(gb32, gb);
    spt_dense_free(ga32);
    spt_dense_free(gb32);
    spt_dense_free(g32);
    spt_tensor_free(a32);
    spt_tensor_free(b32);
    spt_tensor_free(o32);
    spt_dense_free(ga);
    spt_dense_free(gb);
    spt_dense_free(g);
}


/* One gradient call for the allocation sweep: op reads a, b, c, g and writes o[0..3). */
typedef struct gt_call gt_call;
struct gt_call {
    spt_status (*op)(gt_call *c);
    const spt_tensor *a, *b, *c;
    const spt_dense *g;
    spt_dense *o[3];
};
static inline spt_status gt_run(void *p) {
    gt_call *c = p;
    return c->op(c);
}
static inline void gt_clean(void *p) {
    gt_call *c = p;
    for (int i = 0; i < 3; i++) {
        spt_dense_free(c->o[i]);
        c->o[i] = NULL;
    }
}

#endif /* GRAD_TEST_UTIL_H */
