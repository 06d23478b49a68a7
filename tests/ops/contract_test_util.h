/* SPDX-License-Identifier: Apache-2.0 */
/* contract_test_util.h -- the dense reference of spt_tensordot and spt_einsum: a brute-force einsum
 * over every assignment of the index letters (small shapes only). Header-only. */
#ifndef CONTRACT_TEST_UTIL_H
#define CONTRACT_TEST_UTIL_H

#include "math_test_util.h"

/* out (the volume of `to`'s dims, zeroed by the caller) += for every assignment of the letters:
 * A[ta] * b[tb], A the dense sum of the sparse operand (ashape, row-major), b of dtype dt (bshape).
 * Letters without a size in either operand are not allowed. */
static inline void ct_einsum_ref(const char *ta, const int64_t *ashape, const double complex *A, const char *tb,
                                 const int64_t *bshape, spt_dtype dt, const void *bdata, const char *to,
                                 double complex *out) {
    char let[64];
    int64_t size[64], val[64] = {0}, nl = 0;
    const char *terms[2] = {ta, tb};
    const int64_t *shapes[2] = {ashape, bshape};
    for (int t = 0; t < 2; t++)
        for (int64_t d = 0; terms[t][d]; d++) {
            bool seen = false;
            for (int64_t k = 0; k < nl; k++) seen |= let[k] == terms[t][d];
            if (!seen) {
                let[nl] = terms[t][d];
                size[nl++] = shapes[t][d];
            }
        }
    for (int64_t k = 0; k < nl; k++)
        if (size[k] == 0) return;
    for (;;) {
        int64_t off[3] = {0, 0, 0};
        const char *ts[3] = {ta, tb, to};
        for (int t = 0; t < 3; t++)
            for (int64_t d = 0; ts[t][d]; d++)
                for (int64_t k = 0; k < nl; k++)
                    if (let[k] == ts[t][d]) off[t] = off[t] * size[k] + val[k];
        out[off[2]] += A[off[0]] * mt_get(dt, bdata, off[1]);
        int64_t k = nl - 1;
        while (k >= 0 && ++val[k] == size[k]) val[k--] = 0;
        if (k < 0) break;
    }
}

/* A dense array of random small values. */
static inline spt_dense *ct_rand_dense(spt_dtype dt, int64_t r, const int64_t *shape) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new(dt, r, shape, &d));
    for (int64_t i = 0; i < spt_dense_size(d); i++) mt_set(dt, spt_dense_data_mut(d), i, mt_value(dt));
    return d;
}

/* The result against the reference, element by element. */
static inline void ct_assert_dense(spt_dtype dt, const spt_dense *o, int64_t r, const int64_t *shape,
                                   const double complex *ref, const char *what) {
    assert_int_equal(spt_dense_dtype(o), dt);
    assert_int_equal(spt_dense_rank(o), r);
    for (int64_t d = 0; d < r; d++) assert_int_equal(spt_dense_shape(o)[d], shape[d]);
    for (int64_t i = 0; i < spt_dense_size(o); i++)
        mt_assert_close(dt, mt_get(dt, spt_dense_data(o), i), ref[i], what, i);
}

#endif /* CONTRACT_TEST_UTIL_H */
