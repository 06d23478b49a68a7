/* SPDX-License-Identifier: Apache-2.0 */
/* tfsparse_test_util.h -- small helpers for the op tests of segment reductions, expand_dims,
 * eye, map_values, cast, bincount, cross): dense builders and a generic allocation sweep. Header-only. */
#ifndef TFSPARSE_TEST_UTIL_H
#define TFSPARSE_TEST_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

/* A new rank-1 dense array of n elements of dtype from `data`. */
static inline spt_dense *tt_vec(spt_dtype dt, int64_t n, const void *data) {
    spt_dense *d = NULL;
    ASSERT_OK(spt_dense_new_from(dt, 1, &n, data, &d));
    return d;
}
/* A new dense array of any rank. */
static inline spt_dense *tt_dense(spt_dtype dt, int64_t rank, const int64_t *shape, const void *data) {
    spt_dense *d = NULL;
    ASSERT_OK(spt_dense_new_from(dt, rank, shape, data, &d));
    return d;
}

/* Allocation sweep of one call: fn(ctx) produces outputs that cleanup(ctx) frees. */
static inline void tt_sweep(spt_test_fn fn, spt_test_cleanup cleanup, void *ctx) {
    assert_true(spt_test_alloc_sweep(fn, cleanup, ctx) > 0);
}

#endif
