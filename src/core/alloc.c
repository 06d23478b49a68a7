/* SPDX-License-Identifier: Apache-2.0 */
/* alloc.c -- the one allocator every spt allocation goes through, and the thread setting. */
#include "core/internal.h"

#include <pthread.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <unistd.h>

static spt_malloc_fn spt__malloc_fn = malloc;
static spt_realloc_fn spt__realloc_fn = realloc;
static spt_free_fn spt__free_fn = free;

/* The C library's allocator is in use: the large-block cache applies (block_cache.c). */
static bool libc_alloc(void) { return spt__malloc_fn == malloc && spt__free_fn == free; }

void spt_set_allocator(spt_malloc_fn m, spt_realloc_fn r, spt_free_fn f) {
    spt__bc_flush(); /* the kept blocks belong to the C library's allocator */
    spt__malloc_fn = m ? m : malloc;
    spt__realloc_fn = r ? r : realloc;
    spt__free_fn = f ? f : free;
}

void *spt__malloc(size_t n) {
    if (n >= SPT__BC_MIN && libc_alloc()) {
        void *p = spt__bc_take(n);
        if (p) return p;
    }
    return spt__malloc_fn(n ? n : 1);
}

void *spt__calloc(size_t n, size_t sz) {
    size_t bytes;
    if (spt__mul_sz(n, sz, &bytes)) return NULL;
    void *p = spt__malloc(bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void *spt__zalloc(size_t bytes) {
    if (libc_alloc()) {
        void *p = bytes >= SPT__BC_MIN ? spt__bc_take(bytes) : NULL;
        if (p) return memset(p, 0, bytes); /* a kept block: already faulted in, zeroed here */
        return calloc(bytes ? bytes : 1, 1);
    }
    void *p = spt__malloc(bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void *spt__realloc(void *p, size_t n) { return spt__realloc_fn(p, n ? n : 1); }

void spt__free(void *p) {
    if (p && !(libc_alloc() && spt__bc_give(p))) spt__free_fn(p);
}

bool spt__bytes3(int64_t a, int64_t b, size_t c, size_t *r) {
    size_t ab;
    if (a < 0 || b < 0) return true;
    if ((uint64_t)a > SIZE_MAX || (uint64_t)b > SIZE_MAX) return true;
    if (spt__mul_sz((size_t)a, (size_t)b, &ab)) return true;
    return spt__mul_sz(ab, c, r);
}

void *spt__alloc_array(const char *fn, int64_t a, int64_t b, size_t c, bool zero, spt_status *st) {
    size_t bytes;
    if (spt__bytes3(a, b, c, &bytes)) {
        *st = spt__err(SPT_EOVERFLOW, "%s: %lld x %lld x %zu bytes does not fit in size_t", fn, (long long)a,
                       (long long)b, c);
        return NULL;
    }
    void *p = spt__malloc(bytes);
    if (!p) {
        *st = spt__err(SPT_ENOMEM, "%s: cannot allocate %zu bytes", fn, bytes);
        return NULL;
    }
    if (zero) memset(p, 0, bytes);
    *st = SPT_OK;
    return p;
}

/* ---- threads ---- */

static _Atomic int spt__nthreads = 0; /* 0 = default */
static int spt__default_threads = 0;  /* the OpenMP default, capped and probed once */
static pthread_once_t spt__default_once = PTHREAD_ONCE_INIT;

typedef struct probe_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool go;
} probe_gate;

static void *probe_wait(void *arg) {
    probe_gate *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->go) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

/* The stack size libgomp gives its threads: OMP_STACKSIZE, else GOMP_STACKSIZE (a size with an optional
 * B, K, M or G suffix, K when none, as the OpenMP specification describes it), else the C library's
 * default for a new thread (RLIMIT_STACK, 8 MB when unlimited). Read once, as libgomp reads it once. */
static size_t spt__gomp_stack = 0;
static pthread_once_t spt__gomp_stack_once = PTHREAD_ONCE_INIT;

static bool parse_stacksize(const char *v, size_t *out) {
    if (!v) return false;
    while (*v == ' ' || *v == '\t') v++;
    if (*v < '0' || *v > '9') return false;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    unsigned shift = 10;
    switch (*end) {
    case 'b':
    case 'B':
        shift = 0;
        end++;
        break;
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    default: break;
    }
    while (*end == ' ' || *end == '\t') end++;
    if (*end != '\0' || x > (SIZE_MAX >> shift)) return false;
    *out = (size_t)x << shift;
    return true;
}

static void init_gomp_stack(void) {
    size_t s = 0;
    if (!parse_stacksize(getenv("OMP_STACKSIZE"), &s) && !parse_stacksize(getenv("GOMP_STACKSIZE"), &s)) {
        pthread_attr_t a;
        if (pthread_getattr_default_np(&a) == 0) {
            if (pthread_attr_getstacksize(&a, &s) != 0) s = 0;
            pthread_attr_destroy(&a);
        }
        if (s == 0) s = (size_t)8 << 20;
    }
    spt__gomp_stack = s;
}

static size_t gomp_stack(void) {
    pthread_once(&spt__gomp_stack_once, init_gomp_stack);
    return spt__gomp_stack;
}

/* Whether a count within the processor count must be tried before a parallel region uses it: when the
 * address space is limited (RLIMIT_AS) or the thread stacks are unusually large, starting a thread can
 * fail however few run. */
#ifdef _OPENMP /* used only by parallel builds (the TSan build has no OpenMP) */
static bool must_probe(void) {
    struct rlimit rl;
    if (gomp_stack() > ((size_t)256 << 20)) return true;
    return getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}
#endif

/* How many of `n` threads the system lets this process start now (>= 1): up to n - 1 helper threads
 * with libgomp's stack size are started (they wait at a gate, then end) and joined. libgomp ends the
 * process when it cannot start a thread, so a count the system refuses is lowered here, before a
 * parallel region uses it; the C library keeps the stacks of the joined threads for the next threads
 * it starts (libgomp's). Counts up to the processor count are tried only when must_probe(). */
static int probe_threads(int n, bool always) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 1) return 1;
#ifndef _OPENMP
    (void)always;
    return n; /* no parallel region ever starts a thread */
#endif
    if (!always && n <= cpus) return n;
    pthread_t tid[SPT_MAX_THREADS];
    if (n > SPT_MAX_THREADS) n = SPT_MAX_THREADS;
    probe_gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return 1;
    if (pthread_attr_setstacksize(&attr, gomp_stack()) != 0) pthread_attr_setstacksize(&attr, 64 * 1024);
    int started = 0;
    while (started < n - 1 && pthread_create(&tid[started], &attr, probe_wait, &g) == 0) started++;
    pthread_mutex_lock(&g.mu);
    g.go = true;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (int k = 0; k < started; k++) pthread_join(tid[k], NULL);
    pthread_attr_destroy(&attr);
    int ok = started + 1;
    if (ok < n && ok > 8) ok -= ok / 8; /* leave room for the threads the program itself runs */
    return ok;
}

static void init_default_threads(void) {
#ifdef _OPENMP
    int n = omp_get_max_threads();
#else
    int n = 1;
#endif
    if (n > SPT_MAX_THREADS) n = SPT_MAX_THREADS;
    spt__default_threads = probe_threads(n, false);
}

void spt_set_num_threads(int n) {
    if (n <= 0) {
        spt__nthreads = 0;
        return;
    }
    if (n > SPT_MAX_THREADS) n = SPT_MAX_THREADS;
    spt__nthreads = probe_threads(n, false);
}

int spt_get_num_threads(void) {
    int n = spt__nthreads;
    if (n > 0) return n;
    pthread_once(&spt__default_once, init_default_threads);
    return spt__default_threads;
}

/* The work (in the callers' units, about one index or value word each) below which an op runs on one
 * thread: on a machine whose other cores are busy, a parallel region waits for its second thread to be
 * scheduled (up to a time slice, milliseconds) where such an op takes tens of microseconds alone.
 * SPT_PAR_MIN_WORK (read once) replaces the bound; 0 lets every op of at least two per-thread shares of
 * work run in parallel (the test suite does this to run the parallel paths on small inputs). */
#define SPT__PAR_MIN_WORK ((int64_t)1 << 20)
static _Atomic int64_t spt__par_min = -1; /* -1: not read yet (every reader computes the same value) */

static int64_t par_min(void) {
    int64_t m = spt__par_min;
    if (m >= 0) return m;
    m = SPT__PAR_MIN_WORK;
    const char *s = getenv("SPT_PAR_MIN_WORK");
    if (s && *s) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (*end == '\0' && v >= 0) m = v;
    }
    spt__par_min = m;
    return m;
}

void spt__par_reconfigure(void) { spt__par_min = -1; }

int spt__threads_for(int64_t work) {
    if (work < par_min()) return 1;
    int max = spt_get_num_threads();
    int64_t by_work = work / 32768;
    if (by_work < 1) by_work = 1;
    int n = by_work < max ? (int)by_work : max;
#ifdef _OPENMP
    if (n > 1 && must_probe()) n = probe_threads(n, true);
#endif
    return n;
}
