/* SPDX-License-Identifier: Apache-2.0 */
/* test_block_cache.c -- the cache of freed large blocks (block_cache.c): a freed large output is handed
 * to the next allocation it fits, zeroed where the op asks for zeroed memory; blocks older than the age
 * limit go back to the system; spt_set_allocator gives everything back and a user allocator sees every
 * allocation; many threads allocating and freeing at once keep their data. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "spt_test.h"

#define BIG ((int64_t)3 << 20) /* float64 elements: 24 MiB */

static void test_reuse_zeroed(void **state) {
    (void)state;
    spt__bc_flush();
    spt_dense *d;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){BIG}, &d));
    double *p = spt_dense_data_mut(d);
    for (int64_t i = 0; i < BIG; i += 4096) p[i] = 1.5;
    p[BIG - 1] = 2.5;
    spt_dense_free(d);
    assert_true(spt__bc_held() >= (size_t)BIG * 8);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){BIG - 1000}, &d)); /* fits the kept block */
    assert_true(spt_dense_data(d) == (const void *)p);
    assert_int_equal(spt__bc_held(), 0);
    const double *q = spt_dense_data(d);
    for (int64_t i = 0; i < BIG - 1000; i++)
        if (q[i] != 0) fail_msg("element %lld of a reused block is %g, not 0", (long long)i, q[i]);
    spt_dense_free(d);
    /* a request more than twice the block's size does not take it */
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){BIG / 4}, &d));
    assert_true(spt__bc_held() >= (size_t)BIG * 8);
    spt_dense_free(d);
    spt__bc_flush();
    assert_int_equal(spt__bc_held(), 0);
}

static void test_age(void **state) {
    (void)state;
    spt__bc_flush();
    void *p = spt__malloc((size_t)BIG * 8);
    assert_non_null(p);
    spt__free(p);
    assert_true(spt__bc_held() > 0);
    usleep(2200 * 1000); /* past the age limit: the next large allocation gives it back */
    void *q = spt__malloc((size_t)BIG * 16);
    assert_non_null(q);
    assert_int_equal(spt__bc_held(), 0);
    spt__free(q);
    spt__bc_flush();
}

static _Atomic int64_t user_allocs;
static void *counting_malloc(size_t n) {
    atomic_fetch_add(&user_allocs, 1);
    return malloc(n);
}

static void test_user_allocator(void **state) {
    (void)state;
    void *p = spt__malloc((size_t)BIG * 8);
    spt__free(p);
    assert_true(spt__bc_held() > 0);
    spt_set_allocator(counting_malloc, NULL, NULL); /* gives the kept block back */
    assert_int_equal(spt__bc_held(), 0);
    spt_dense *d;
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){BIG}, &d));
    spt_dense_free(d); /* through the user's free (here the C library's, not kept) */
    assert_int_equal(spt__bc_held(), 0);
    int64_t before = atomic_load(&user_allocs);
    ASSERT_OK(spt_dense_new(SPT_FLOAT64, 1, (int64_t[]){BIG}, &d));
    assert_true(atomic_load(&user_allocs) > before);
    spt_dense_free(d);
    spt_set_allocator(NULL, NULL, NULL);
}

static void *worker(void *arg) {
    const unsigned id = (unsigned)(uintptr_t)arg;
    unsigned s = id * 2654435761u + 1;
    for (int it = 0; it < 60; it++) {
        s = s * 1103515245u + 12345u;
        const size_t n = ((size_t)8 << 20) + (size_t)(s % (24u << 20));
        unsigned char *p = spt__malloc(n);
        if (!p) return (void *)1;
        memset(p, (int)(id + (unsigned)it), 4096);
        memset(p + n - 4096, (int)(id + (unsigned)it), 4096);
        usleep(100);
        for (size_t k = 0; k < 4096; k++)
            if (p[k] != (unsigned char)(id + (unsigned)it) || p[n - 4096 + k] != (unsigned char)(id + (unsigned)it))
                return (void *)1;
        spt__free(p);
    }
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    pthread_t th[6];
    for (int k = 0; k < 6; k++) assert_int_equal(pthread_create(&th[k], NULL, worker, (void *)(uintptr_t)(k + 1)), 0);
    for (int k = 0; k < 6; k++) {
        void *r;
        pthread_join(th[k], &r);
        assert_null(r);
    }
    spt__bc_flush();
    assert_int_equal(spt__bc_held(), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reuse_zeroed), cmocka_unit_test(test_age),
                                       cmocka_unit_test(test_user_allocator), cmocka_unit_test(test_threads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
