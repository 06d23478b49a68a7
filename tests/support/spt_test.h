/* SPDX-License-Identifier: Apache-2.0 */
/* spt_test.h -- shared helpers for spt's cmocka tests. */
#ifndef SPT_TEST_H
#define SPT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "spt.h"

/* Assert a call returns `expected` (an spt_status); on mismatch print the last error. */
#define ASSERT_ST(expected, call)                                                                                      \
    do {                                                                                                               \
        spt_status st__ = (call);                                                                                      \
        if (st__ != (expected))                                                                                        \
            print_error("%s:%d: %s returned %s (%s), expected %s\n", __FILE__, __LINE__, #call, spt_status_name(st__), \
                        spt_last_error(), spt_status_name(expected));                                                  \
        assert_int_equal(st__, (expected));                                                                            \
    } while (0)
#define ASSERT_OK(call) ASSERT_ST(SPT_OK, call)
/* Assert the last error message contains `needle`. */
#define ASSERT_MSG(needle) assert_non_null(strstr(spt_last_error(), (needle)))

/* Counting allocator: installs itself; fails the k-th allocation from now (k >= 0), or never (k < 0). */
void spt_test_alloc_install(void);
void spt_test_alloc_fail_at(long k);
long spt_test_alloc_live(void);  /* allocations not yet freed */
long spt_test_alloc_count(void); /* allocations made since fail_at was last set */

/* The allocation-failure sweep: run `fn(ctx)` with the k-th allocation failing for k = 0, 1, ...
 * until a run makes fewer than k + 1 allocations (a run that returns SPT_OK although allocation k
 * failed -- a fallback path -- does not end the sweep). Each failing run must return SPT_ENOMEM and
 * leave the live allocation count unchanged after `cleanup(ctx)` (which frees the outputs of a
 * successful run; called after every run). Returns the number of runs with a failed allocation. */
typedef spt_status (*spt_test_fn)(void *ctx);
typedef void (*spt_test_cleanup)(void *ctx);
long spt_test_alloc_sweep(spt_test_fn fn, spt_test_cleanup cleanup, void *ctx);

/* Compare a tensor with expected arrays (values compared bytewise for fixed-size dtypes, by content
 * for strings). */
void spt_test_expect_tensor(const spt_tensor *t, int64_t rank, const int64_t *shape, int64_t nnz,
                            const int64_t *indices, const void *values);

#endif
