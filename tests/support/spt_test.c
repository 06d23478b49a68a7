/* SPDX-License-Identifier: Apache-2.0 */
/* spt_test.c -- counting/failing allocator and tensor comparison for the tests. */
#include "spt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fail_at = -1, count = 0, live = 0;

/* Each block carries a header so that frees are counted. */
typedef struct {
    size_t size;
    size_t pad;
} hdr;

static void *t_malloc(size_t n) {
    if (fail_at >= 0 && count++ == fail_at) return NULL;
    if (fail_at < 0) count++;
    hdr *h = malloc(sizeof(hdr) + n);
    if (!h) return NULL;
    h->size = n;
    live++;
    return h + 1;
}

static void *t_realloc(void *p, size_t n) {
    if (!p) return t_malloc(n);
    if (fail_at >= 0 && count++ == fail_at) return NULL;
    hdr *h = (hdr *)p - 1;
    hdr *g = realloc(h, sizeof(hdr) + n);
    if (!g) return NULL;
    g->size = n;
    return g + 1;
}

static void t_free(void *p) {
    if (!p) return;
    live--;
    free((hdr *)p - 1);
}

void spt_test_alloc_install(void) { spt_set_allocator(t_malloc, t_realloc, t_free); }
void spt_test_alloc_fail_at(long k) {
    fail_at = k;
    count = 0;
}
long spt_test_alloc_live(void) { return live; }
long spt_test_alloc_count(void) { return count; }

long spt_test_alloc_sweep(spt_test_fn fn, spt_test_cleanup cleanup, void *ctx) {
    spt_test_alloc_install();
    for (long k = 0; k < 100000; k++) {
        long before = live;
        spt_test_alloc_fail_at(k);
        spt_status st = fn(ctx);
        long made = count; /* allocation attempts of this run, the failed one included */
        spt_test_alloc_fail_at(-1);
        if (cleanup) cleanup(ctx);
        if (st == SPT_OK) {
            assert_int_equal(live, before);
            /* done when the run never reached allocation k; a run that absorbed the failure (a
             * fallback path) goes on, or every allocation after it would escape the sweep */
            if (made <= k) return k;
            continue;
        }
        if (st != SPT_ENOMEM) print_error("sweep k=%ld: %s (%s)\n", k, spt_status_name(st), spt_last_error());
        assert_int_equal(st, SPT_ENOMEM);
        if (live != before) print_error("sweep k=%ld: %ld allocations leaked\n", k, live - before);
        assert_int_equal(live, before);
    }
    fail_msg("allocation sweep did not finish");
    return -1;
}

void spt_test_expect_tensor(const spt_tensor *t, int64_t rank, const int64_t *shape, int64_t nnz,
                            const int64_t *indices, const void *values) {
    assert_non_null(t);
    assert_int_equal(spt_tensor_rank(t), rank);
    assert_int_equal(spt_tensor_nnz(t), nnz);
    for (int64_t d = 0; d < rank; d++) assert_int_equal(spt_tensor_shape(t)[d], shape[d]);
    for (int64_t i = 0; i < nnz * rank; i++) assert_int_equal(spt_tensor_indices(t)[i], indices[i]);
    if (spt_tensor_dtype(t) == SPT_STRING) {
        const spt_str *a = spt_tensor_values(t), *b = values;
        for (int64_t i = 0; i < nnz; i++) {
            assert_int_equal(a[i].len, b[i].len);
            assert_memory_equal(a[i].data, b[i].data, (size_t)a[i].len);
        }
    } else if (nnz > 0) {
        assert_memory_equal(spt_tensor_values(t), values, (size_t)nnz * spt_dtype_size(spt_tensor_dtype(t)));
    }
}
