/* SPDX-License-Identifier: Apache-2.0 */
/* sweep.h -- helpers of the allocation-failure sweeps (tests/hardening/test_sweep_*.c).
 *
 * Each case is a function `static spt_status case_NAME(void *ctx)` that builds its inputs, calls one
 * public function, checks that a failure left every out-parameter NULL (no partial output) and the
 * inputs unchanged, frees everything and returns the call's status (or the status of the input build
 * that failed). spt_test_alloc_sweep runs it with the k-th allocation failing for k = 0, 1, ... and
 * checks ENOMEM and the live-allocation count after every run. SWEEP(NAME, MIN) makes the cmocka test;
 * MIN is the least number of failing runs expected (>= 1 when the function allocates). */
#ifndef SPT_SWEEP_H
#define SPT_SWEEP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

/* Start of every program: all allocations (inputs included) go through the counting allocator. */
#define SWEEP_MAIN_INIT() spt_test_alloc_install()

/* A non-NULL value out-parameters start as. */
static char sweep_sentinel_obj;
#define SENT ((void *)&sweep_sentinel_obj)

/* st != OK with a non-NULL out-parameter is a partial output: turn it into a failure. */
#define OUTCHK(st, out)                                                                                                \
    do {                                                                                                               \
        if ((st) != SPT_OK && (out) != NULL) {                                                                         \
            print_error("%s:%d: %s failed (%s) but left %s non-NULL\n", __FILE__, __LINE__, __func__,                  \
                        spt_status_name(st), #out);                                                                    \
            (st) = SPT_EINTERNAL;                                                                                      \
        }                                                                                                              \
    } while (0)

/* Build an input; on failure return its status from the case. */
#define BUILD(call)                                                                                                    \
    do {                                                                                                               \
        spt_status b_ = (call);                                                                                        \
        if (b_ != SPT_OK) {                                                                                            \
            bst = b_;                                                                                                  \
            goto done;                                                                                                 \
        }                                                                                                              \
    } while (0)

#define SWEEP(name, min)                                                                                               \
    static void test_##name(void **state) {                                                                            \
        (void)state;                                                                                                   \
        long k = spt_test_alloc_sweep(case_##name, NULL, NULL);                                                        \
        if (k < (min)) print_error("%s: only %ld failing runs (expected >= %d)\n", #name, k, (min));                   \
        assert_true(k >= (min));                                                                                       \
    }

/* A fingerprint of a tensor (shape, order, indices, values, string bytes). */
static inline uint64_t sweep_hash(const spt_tensor *t) {
    uint64_t h = 1469598103934665603ull;
    if (!t) return 0;
#define MIX(p, n)                                                                                                      \
    for (size_t i_ = 0; i_ < (size_t)(n); i_++) h = (h ^ ((const unsigned char *)(p))[i_]) * 1099511628211ull
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    MIX(spt_tensor_shape(t), r * 8);
    MIX(spt_tensor_order(t), r * 8);
    MIX(spt_tensor_indices(t), n * r * 8);
    if (spt_tensor_dtype(t) == SPT_STRING) {
        const spt_str *s = spt_tensor_values(t);
        for (int64_t i = 0; i < n; i++) MIX(s[i].data, s[i].len);
    } else {
        MIX(spt_tensor_values(t), (size_t)n * spt_dtype_size(spt_tensor_dtype(t)));
    }
#undef MIX
    return h;
}

/* Small standard inputs. */
static const int64_t sw_shape2[2] = {4, 3};
static const int64_t sw_ix_unsorted[10] = {3, 2, 0, 1, 2, 0, 0, 1, 3, 0}; /* 5 entries, rows 3,0,2,0,3; row 1 empty */
static const double sw_vals[5] = {1.5, -2, 3, 4.25, -5};
static const int32_t sw_ivals[5] = {7, 1, 3, 2, 9}; /* ids for to_indicator / merge: inside [0, 10) */

static inline spt_status sw_f64(spt_tensor **t) {
    return spt_tensor_new(SPT_FLOAT64, 2, sw_shape2, 5, sw_ix_unsorted, sw_vals, NULL, t);
}
static inline spt_status sw_i32(spt_tensor **t) {
    return spt_tensor_new(SPT_INT32, 2, sw_shape2, 5, sw_ix_unsorted, sw_ivals, NULL, t);
}
static inline spt_status sw_str(spt_tensor **t) {
    spt_str s[5] = {{"alpha", 5}, {"", 0}, {"be", 2}, {"gamma\0x", 7}, {"d", 1}};
    return spt_tensor_new(SPT_STRING, 2, sw_shape2, 5, sw_ix_unsorted, s, NULL, t);
}

#endif
