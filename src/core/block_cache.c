/* SPDX-License-Identifier: Apache-2.0 */
/* block_cache.c -- a small cache of freed large blocks (internal.h, spt__bc_*).
 *
 * On this kind of machine the first touch of freshly mapped memory is slow and erratic (the kernel, and
 * under a hypervisor the host too, faults in and zeroes every page), and glibc returns a large block to
 * the system on free (it was mapped for it), so an op that returns a large new buffer pays that on every
 * call. While the C library's allocator is in use, a freed block of at least SPT__BC_MIN bytes is kept
 * here instead and handed to the next allocation it fits (at least the request, at most twice it plus
 * SPT__BC_MIN), already faulted in.
 *
 * Bounds and release: at most SPT__BC_SLOTS blocks and `cap` bytes (the environment variable
 * SPT_BLOCK_CACHE in bytes, read once; default min(physical memory / 16, 2 GiB); 0 turns the cache off);
 * a block that would pass the cap pushes out the oldest; a block kept for more than SPT__BC_AGE seconds is
 * given back to the system at the next large allocation or free; spt_set_allocator gives every block
 * back. One mutex guards the table; blocks are freed outside it. */
#include "core/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#define SPT__BC_USABLE 1
#else
#define SPT__BC_USABLE 0
#endif

#define SPT__BC_SLOTS 8
#define SPT__BC_AGE 2.0

typedef struct {
    void *p;
    size_t size;
    double t; /* when it was freed */
} bc_slot;

static pthread_mutex_t bc_mu = PTHREAD_MUTEX_INITIALIZER;
static bc_slot bc[SPT__BC_SLOTS];
static int bc_n;
static size_t bc_bytes;
static size_t bc_cap = (size_t)-1; /* -1: not read yet */

static double bc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t bc_default_cap(void) {
    const char *s = getenv("SPT_BLOCK_CACHE");
    if (s && *s) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (*end == '\0') return (size_t)v;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t ram = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : 0, cap = ram / 16, two = (size_t)2 << 30;
    return cap < two ? cap : two;
}

static void bc_remove(int k, void **out, int *nout) {
    out[(*nout)++] = bc[k].p;
    bc_bytes -= bc[k].size;
    bc[k] = bc[--bc_n];
}

/* Blocks kept longer than the age limit, out of the table (caller holds the lock). */
static void bc_expire(double now, void **out, int *nout) {
    for (int k = 0; k < bc_n;)
        if (now - bc[k].t > SPT__BC_AGE) bc_remove(k, out, nout);
        else k++;
}

static void bc_free_all(void **out, int nout) {
    for (int k = 0; k < nout; k++) free(out[k]);
}

void *spt__bc_take(size_t n) {
    if (!SPT__BC_USABLE || n < SPT__BC_MIN) return NULL;
    void *drop[SPT__BC_SLOTS], *p = NULL;
    int nd = 0;
    pthread_mutex_lock(&bc_mu);
    bc_expire(bc_now(), drop, &nd);
    int best = -1;
    for (int k = 0; k < bc_n; k++)
        if (bc[k].size >= n && bc[k].size - n <= n + SPT__BC_MIN && (best < 0 || bc[k].size < bc[best].size)) best = k;
    if (best >= 0) {
        p = bc[best].p;
        bc_bytes -= bc[best].size;
        bc[best] = bc[--bc_n];
    }
    pthread_mutex_unlock(&bc_mu);
    bc_free_all(drop, nd);
    return p;
}

bool spt__bc_give(void *p) {
#if SPT__BC_USABLE
    size_t size = malloc_usable_size(p);
    if (size < SPT__BC_MIN) return false;
    void *drop[SPT__BC_SLOTS + 1];
    int nd = 0;
    bool kept = false;
    pthread_mutex_lock(&bc_mu);
    if (bc_cap == (size_t)-1) bc_cap = bc_default_cap();
    const double now = bc_now();
    bc_expire(now, drop, &nd);
    if (size <= bc_cap) {
        while (bc_n > 0 && (bc_n == SPT__BC_SLOTS || bc_bytes + size > bc_cap)) { /* the oldest out */
            int old = 0;
            for (int k = 1; k < bc_n; k++)
                if (bc[k].t < bc[old].t) old = k;
            bc_remove(old, drop, &nd);
        }
        bc[bc_n++] = (bc_slot){p, size, now};
        bc_bytes += size;
        kept = true;
    }
    pthread_mutex_unlock(&bc_mu);
    bc_free_all(drop, nd);
    return kept;
#else
    (void)p;
    return false;
#endif
}

void spt__bc_flush(void) {
    void *drop[SPT__BC_SLOTS];
    int nd = 0;
    pthread_mutex_lock(&bc_mu);
    while (bc_n > 0) bc_remove(bc_n - 1, drop, &nd);
    pthread_mutex_unlock(&bc_mu);
    bc_free_all(drop, nd);
}

size_t spt__bc_held(void) {
    pthread_mutex_lock(&bc_mu);
    size_t b = bc_bytes;
    pthread_mutex_unlock(&bc_mu);
    return b;
}
