/* SPDX-License-Identifier: Apache-2.0 */
/* test_block_cache.c -- the cache of freed large blocks (block_cache.c): a freed large output is handed
 * to the next allocation it fits, zeroed where the op asks for zeroed memory; blocks older than the age
 * limit go back to the system; spt_set_allocator gives everything back and a user allocator sees every
 * allocation; many threads allocating and freeing at once keep their data; the bounds of both tiers
 * (SPT_BLOCK_CACHE, SPT_BLOCK_CACHE_LARGE) hold, a reclaimable block goes back after the age limit too,
 * and SPT_BLOCK_CACHE=0 keeps nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

#define MIB ((size_t)1 << 20)

/* Set both bounds (NULL: the default) and read them again. */
static void caps(const char *cap, const char *large) {
    if (cap) setenv("SPT_BLOCK_CACHE", cap, 1);
    else unsetenv("SPT_BLOCK_CACHE");
    if (large) setenv("SPT_BLOCK_CACHE_LARGE", large, 1);
    else unsetenv("SPT_BLOCK_CACHE_LARGE");
    spt__bc_reconfigure();
}

static long minflt(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static unsigned char *touched(size_t n) {
    unsigned char *p = spt__malloc(n);
    assert_non_null(p);
    memset(p, 7, n);
    return p;
}

static void test_bounds(void **state) {
    (void)state;
    caps("16777216", "67108864"); /* resident 16 MiB, reclaimable 64 MiB */
    assert_int_equal(spt__bc_held(), 0);
    unsigned char *r[3], *l[3];
    for (int k = 0; k < 3; k++) r[k] = touched(10 * MIB);
    for (int k = 0; k < 3; k++) l[k] = touched(40 * MIB);
    unsigned char *huge = touched(100 * MIB);
    /* one 10 MiB block fits the resident 16 MiB; the next ones, and the 40 MiB blocks, go to the
     * reclaimable tier, which keeps at most 64 MiB (the newest block always) */
    for (int k = 0; k < 3; k++) {
        spt__free(r[k]);
        const size_t resident = spt__bc_held() - spt__bc_held_large();
        assert_true(resident >= 10 * MIB && resident <= 16 * MIB);
        assert_true(spt__bc_held_large() <= 64 * MIB);
    }
    assert_true(spt__bc_held_large() >= 20 * MIB);
    for (int k = 0; k < 3; k++) {
        spt__free(l[k]);
        assert_true(spt__bc_held_large() >= 40 * MIB && spt__bc_held_large() <= 64 * MIB);
        assert_true(spt__bc_held() - spt__bc_held_large() <= 16 * MIB);
    }
    const size_t before = spt__bc_held();
    spt__free(huge); /* above both bounds: back to the system at once */
    assert_int_equal(spt__bc_held(), before);
    /* the kept reclaimable block is the last one freed, handed to the next allocation it fits; its pages
     * are the process's again when written (faults are reported, not asserted: the kernel may have taken
     * some back under memory pressure) */
    long f0 = minflt();
    unsigned char *p = spt__malloc(39 * MIB);
    assert_true(p == l[2]);
    memset(p, 9, 39 * MIB);
    long f1 = minflt();
    print_message("reused 39 MiB reclaimable block: %ld minor faults (%zu pages)\n", f1 - f0, 39 * MIB / 4096);
    assert_true(spt__bc_held_large() <= 24 * MIB);
    for (size_t i = 0; i < 39 * MIB; i += 4096)
        if (p[i] != 9) fail_msg("byte %zu of a reused block is %d", i, p[i]);
    spt__free(p);
    assert_true(spt__bc_held_large() > 0);
    usleep(2200 * 1000); /* past the age limit: every tier goes back at the next large allocation */
    void *q = spt__malloc(200 * MIB);
    assert_non_null(q);
    assert_int_equal(spt__bc_held(), 0);
    spt__free(q);
    spt__bc_flush();
    caps(NULL, NULL);
}

static void test_off(void **state) {
    (void)state;
    caps("0", NULL); /* off: the reclaimable tier too */
    void *a = touched(10 * MIB), *b = touched(40 * MIB);
    spt__free(a);
    spt__free(b);
    assert_int_equal(spt__bc_held(), 0);
    caps(NULL, "0"); /* the default resident tier, no reclaimable one */
    a = touched(10 * MIB);
    spt__free(a);
    assert_true(spt__bc_held() >= 10 * MIB);
    spt__bc_flush();
    caps(NULL, NULL);
}

/* Mid-size blocks (from SPT__BC_MIN, 256 KiB, up) are kept too, smaller ones are not; and an op's output
 * of that size, freed, is reused by the next call of the same op: the outputs of add at 10^4-10^5
 * entries were otherwise mapped afresh on every call (glibc maps a block above its mmap threshold, and
 * the union cut to its count set that threshold just under the next call's request). */
static void test_mid_size(void **state) {
    (void)state;
    spt__bc_flush();
    unsigned char *p = touched(MIB);
    spt__free(p);
    assert_true(spt__bc_held() >= MIB);
    unsigned char *q = spt__malloc(MIB - 5000);
    assert_true(q == p);
    assert_int_equal(spt__bc_held(), 0);
    spt__free(q);
    spt__bc_flush();
    void *small = spt__malloc(SPT__BC_MIN / 2);
    assert_non_null(small);
    spt__free(small);
    assert_int_equal(spt__bc_held(), 0);
    /* add of two 3-D float64 tensors of 20000 entries each (output sized for 40000: 960 KB of index
     * rows, 320 KB of values): the second call writes into the first call's buffers */
    int64_t shape[3] = {1000, 1000, 1000};
    spt_tensor *a, *b, *o1, *o2;
    ASSERT_OK(spt_tensor_alloc(SPT_FLOAT64, 3, shape, 20000, &a));
    ASSERT_OK(spt_tensor_alloc(SPT_FLOAT64, 3, shape, 20000, &b));
    int64_t *ia = spt_tensor_indices_mut(a), *ib = spt_tensor_indices_mut(b);
    double *va = spt_tensor_values_mut(a), *vb = spt_tensor_values_mut(b);
    for (int64_t i = 0; i < 20000; i++) { /* sorted, distinct within each; a and b share every 100th cell */
        ia[3 * i] = ib[3 * i] = i / 20;
        ia[3 * i + 1] = ib[3 * i + 1] = i % 20;
        ia[3 * i + 2] = 2 * (i % 7);
        ib[3 * i + 2] = i % 100 == 0 ? 2 * (i % 7) : 2 * (i % 7) + 1;
        va[i] = (double)i;
        vb[i] = 0.5;
    }
    ASSERT_OK(spt_reorder(a, NULL));
    ASSERT_OK(spt_reorder(b, NULL));
    spt__bc_flush();
    ASSERT_OK(spt_add(a, b, 0.0, &o1));
    assert_int_equal(spt_tensor_nnz(o1), 40000 - 200);
    const void *i1 = spt_tensor_indices(o1), *v1 = spt_tensor_values(o1);
    spt_tensor_free(o1);
    ASSERT_OK(spt_add(a, b, 0.0, &o2));
    assert_int_equal(spt_tensor_nnz(o2), 40000 - 200);
    assert_true(spt_tensor_indices(o2) == i1);
    assert_true(spt_tensor_values(o2) == v1);
    spt_tensor_free(o2);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt__bc_flush();
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reuse_zeroed),   cmocka_unit_test(test_age),
                                       cmocka_unit_test(test_user_allocator), cmocka_unit_test(test_threads),
                                       cmocka_unit_test(test_bounds),         cmocka_unit_test(test_off),
                                       cmocka_unit_test(test_mid_size)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
