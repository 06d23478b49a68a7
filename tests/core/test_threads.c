/* SPDX-License-Identifier: Apache-2.0 */
/* test_threads.c -- thread counts: every count is capped at SPT_MAX_THREADS, and a count the system
 * will not start (a process limit) is lowered before an op runs, so the OpenMP runtime never ends the
 * process for want of a thread; below the work bound (SPT_PAR_MIN_WORK) an op gets one thread whatever
 * the count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "spt_test.h"

static void test_cap(void **state) {
    (void)state;
    spt_set_num_threads(1 << 30);
    assert_true(spt_get_num_threads() >= 1);
    assert_true(spt_get_num_threads() <= SPT_MAX_THREADS);
    spt_set_num_threads(3);
    assert_int_equal(spt_get_num_threads(), 3);
    spt_set_num_threads(-5); /* the default, itself capped */
    assert_true(spt_get_num_threads() >= 1 && spt_get_num_threads() <= SPT_MAX_THREADS);
}

/* A run of an op with many threads: the sum of 0..n-1 through spt_reduce_sum. */
static int run_op(void) {
    const int64_t n = 1 << 20;
    int64_t shape[1] = {n}, *ix = malloc((size_t)n * sizeof *ix);
    double *v = malloc((size_t)n * sizeof *v);
    if (!ix || !v) return 3;
    for (int64_t i = 0; i < n; i++) ix[i] = i, v[i] = (double)i;
    spt_tensor *t = NULL;
    spt_dense *d = NULL;
    if (spt_tensor_new(SPT_FLOAT64, 1, shape, n, ix, v, NULL, &t) != SPT_OK) return 4;
    if (spt_to_dense(t, NULL, false, &d) != SPT_OK) return 5;
    const double *x = spt_dense_data(d);
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i];
    spt_dense_free(d);
    spt_tensor_free(t);
    free(ix);
    free(v);
    return s == (double)n * (double)(n - 1) / 2 ? 0 : 6;
}

/* In a child limited to 24 processes (as an unprivileged user when run as root, since root
 * ignores RLIMIT_NPROC): asking for 1000 threads gives fewer than the limit, and ops still run. */
static void test_process_limit(void **state) {
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(77);
        struct rlimit rl = {24, 24};
        if (setrlimit(RLIMIT_NPROC, &rl) != 0) _exit(77);
        spt_set_num_threads(1000);
        int got = spt_get_num_threads();
        if (got < 1 || got >= 24) _exit(2);
        _exit(run_op());
    }
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst));
    if (WEXITSTATUS(wst) == 77) skip();
    assert_int_equal(WEXITSTATUS(wst), 0);
}

static long vm_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = -1;
    if (!f) return -1;
    if (fscanf(f, "%ld", &pages) != 1) pages = -1;
    fclose(f);
    return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE);
}

/* The address space limited to a little above what the process uses (RLIMIT_AS, as `ulimit -v` does),
 * from 1 to 48 MB of room, each in a child asking for 4 threads: libgomp's threads need 8 MB stacks,
 * so with little room the op must run with fewer threads or fail with SPT_ENOMEM (run_op's 3..5), never
 * end the process from inside the OpenMP runtime (exit status 1, "Thread creation failed"). Not under
 * AddressSanitizer, whose shadow memory needs terabytes of address space. */
static void test_address_space_limit(void **state) {
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#endif
    for (long mb = 1; mb <= 48; mb += 3) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            const int64_t n = 1 << 20, shape[1] = {1 << 20};
            int64_t *ix = malloc((size_t)n * sizeof *ix);
            double *v = malloc((size_t)n * sizeof *v);
            spt_tensor *t = NULL;
            spt_dense *d = NULL;
            if (!ix || !v) _exit(77);
            for (int64_t i = 0; i < n; i++) ix[i] = n - 1 - i, v[i] = (double)i;
            if (spt_tensor_new(SPT_FLOAT64, 1, shape, n, ix, v, NULL, &t) != SPT_OK) _exit(77);
            long vm = vm_bytes();
            if (vm < 0) _exit(77);
            struct rlimit rl = {(rlim_t)(vm + (mb << 20)), RLIM_INFINITY};
            if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(77);
            spt_set_num_threads(4);
            spt_status st = spt_reduce_sum(t, NULL, 0, false, &d); /* sorts a copy: threads */
            if (st == SPT_OK)
                st = *(const double *)spt_dense_data(d) == (double)n * (double)(n - 1) / 2 ? SPT_OK : SPT_EINVAL;
            _exit(st == SPT_OK || st == SPT_ENOMEM ? 0 : 2);
        }
        int wst;
        assert_int_equal(waitpid(pid, &wst, 0), pid);
        if (!WIFEXITED(wst)) fail_msg("%ld MB of room: ended by signal %d", mb, WTERMSIG(wst));
        if (WEXITSTATUS(wst) == 77) skip();
        if (WEXITSTATUS(wst) != 0) fail_msg("%ld MB of room: exit status %d", mb, WEXITSTATUS(wst));
    }
}

/* The work bound: 2^20 units by default, set by SPT_PAR_MIN_WORK, 0 removing it; an unreadable value
 * keeps the default. */
static void test_work_bound(void **state) {
    (void)state;
    const char *was = getenv("SPT_PAR_MIN_WORK");
    char *saved = was ? strdup(was) : NULL;
    spt_set_num_threads(2);
    const int two = spt_get_num_threads(); /* 2, or 1 in a build without OpenMP */
    unsetenv("SPT_PAR_MIN_WORK");
    spt__par_reconfigure();
    assert_int_equal(spt__threads_for(0), 1);
    assert_int_equal(spt__threads_for(((int64_t)1 << 20) - 1), 1);
    assert_int_equal(spt__threads_for((int64_t)1 << 20), two);
    assert_int_equal(spt__threads_for(INT64_MAX), two);
    setenv("SPT_PAR_MIN_WORK", "0", 1);
    spt__par_reconfigure();
    assert_int_equal(spt__threads_for(65535), 1); /* one per-thread share */
    assert_int_equal(spt__threads_for(65536), two);
    setenv("SPT_PAR_MIN_WORK", "4000000", 1);
    spt__par_reconfigure();
    assert_int_equal(spt__threads_for(3999999), 1);
    assert_int_equal(spt__threads_for(4000000), two);
    setenv("SPT_PAR_MIN_WORK", "-3", 1);
    spt__par_reconfigure();
    assert_int_equal(spt__threads_for(((int64_t)1 << 20) - 1), 1);
    assert_int_equal(spt__threads_for((int64_t)1 << 20), two);
    if (saved) setenv("SPT_PAR_MIN_WORK", saved, 1);
    else unsetenv("SPT_PAR_MIN_WORK");
    free(saved);
    spt__par_reconfigure();
    spt_set_num_threads(0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cap), cmocka_unit_test(test_process_limit),
                                       cmocka_unit_test(test_address_space_limit), cmocka_unit_test(test_work_bound)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
