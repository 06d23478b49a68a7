/* SPDX-License-Identifier: Apache-2.0 */
/* block_cache.c -- a small cache of freed large blocks (internal.h, spt__bc_*).
 *
 * On this kind of machine the first touch of freshly mapped memory is slow and erratic (the kernel, and
 * under a hypervisor the host too, faults in and zeroes every page; above a few GB the kernel also
 * compacts memory to find huge pages), and glibc returns a large block to the system on free (it was
 * mapped for it), so an op that returns a large new buffer pays that on every call. Mid-size blocks
 * (hundreds of KB to a few MB: the outputs of ops at 10^5 entries) are caught too: glibc raises its
 * mmap threshold to the size of the last mapped block freed, so an output shrunk before it is freed
 * (a union cut to its entry count) sets the threshold just under the next call's request, which is
 * mapped afresh, every call. While the C
 * library's allocator is in use, a freed block of at least SPT__BC_MIN bytes is kept here instead and
 * handed to the next allocation it fits (at least the request, at most twice it plus SPT__BC_MIN),
 * already faulted in.
 *
 * Two tiers, at most SPT__BC_SLOTS blocks in all:
 * - resident: blocks that fit in what the resident blocks leave of `cap` bytes (the environment variable
 *   SPT_BLOCK_CACHE in bytes, read once; default min(physical memory / 16, 2 GiB); 0 turns the whole
 *   cache off). Their pages stay the process's until the block is reused or given back.
 * - reclaimable: a block that does not fit there (the buffers of an op at 10^8 entries: GBs) is kept, up to
 *   `large` bytes together (SPT_BLOCK_CACHE_LARGE in bytes; default physical memory / 3; 0 turns this tier
 *   off; a third, so that the output of an op at 10^8 rank-3 entries, 6.4 GB, fits on a 24 GiB machine),
 *   after madvise(MADV_FREE) on its pages: the kernel takes those pages back whenever it needs
 *   memory (without swap, the only anonymous memory it can take back), and until it does, the next op
 *   that reuses the block writes into them without a fault. A page the kernel took is faulted in afresh
 *   on reuse, as a new block's would be.
 * A block that would pass its tier's bound pushes out that tier's oldest (the oldest of all when every
 * slot is taken); a block kept for more than SPT__BC_AGE seconds is given back to the system at the next
 * large allocation or free; spt_set_allocator gives every block back. An idle process thus holds at most
 * `cap` bytes of resident memory plus `large` bytes the kernel may take back at any time. One mutex guards
 * the table; blocks are freed and advised outside it. */
#include "core/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#define SPT__BC_USABLE 1
#else
#define SPT__BC_USABLE 0
#endif

#define SPT__BC_SLOTS 16
#define SPT__BC_AGE 2.0

typedef struct {
    void *p;
    size_t size;
    double t;  /* when it was freed */
    bool lazy; /* in the reclaimable tier (MADV_FREE) */
} bc_slot;

static pthread_mutex_t bc_mu = PTHREAD_MUTEX_INITIALIZER;
static bc_slot bc[SPT__BC_SLOTS];
static int bc_n;
static size_t bc_bytes[2];                       /* held: resident, reclaimable */
static size_t bc_cap = (size_t)-1, bc_large = 0; /* -1: not read yet */

static double bc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool bc_env(const char *name, size_t *v) {
    const char *s = getenv(name);
    if (!s || !*s) return false;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end != '\0') return false;
    *v = (size_t)x;
    return true;
}

/* Both bounds from the environment or the physical memory (caller holds the lock). */
static void bc_configure(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t ram = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz : 0, two = (size_t)2 << 30;
    bc_cap = ram / 16 < two ? ram / 16 : two;
    bc_large = ram / 3;
    bc_env("SPT_BLOCK_CACHE", &bc_cap);
    bc_env("SPT_BLOCK_CACHE_LARGE", &bc_large);
    if (bc_cap == 0) bc_large = 0;
}

static void bc_remove(int k, void **out, int *nout) {
    out[(*nout)++] = bc[k].p;
    bc_bytes[bc[k].lazy] -= bc[k].size;
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
        bc_bytes[bc[best].lazy] -= bc[best].size;
        bc[best] = bc[--bc_n];
    }
    pthread_mutex_unlock(&bc_mu);
    bc_free_all(drop, nd);
    return p;
}

/* The tier a block of `size` bytes goes to: 0 resident (while the resident blocks leave room for it, or
 * when there is no reclaimable tier), 1 reclaimable, -1 none. */
static int bc_tier(size_t size) {
    pthread_mutex_lock(&bc_mu);
    if (bc_cap == (size_t)-1) bc_configure();
    int tier = bc_bytes[0] + size <= bc_cap ? 0 : size <= bc_large ? 1 : size <= bc_cap ? 0 : -1;
    pthread_mutex_unlock(&bc_mu);
    return tier;
}

/* Let the kernel take the whole pages of p[0, size) back when it needs memory. */
static void bc_lazy_free(void *p, size_t size) {
#ifdef MADV_FREE
    const uintptr_t P = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)p + P - 1) & ~(P - 1), e = ((uintptr_t)p + size) & ~(P - 1);
    if (e > a) (void)madvise((void *)a, e - a, MADV_FREE);
#else
    (void)p, (void)size;
#endif
}

bool spt__bc_give(void *p) {
#if SPT__BC_USABLE
    size_t size = malloc_usable_size(p);
    if (size < SPT__BC_MIN) return false;
    const int tier = bc_tier(size);
    if (tier < 0) return false;
    if (tier == 1) bc_lazy_free(p, size); /* before any other thread can take it */
    void *drop[SPT__BC_SLOTS + 1];
    int nd = 0;
    const size_t bound = tier ? bc_large : bc_cap;
    pthread_mutex_lock(&bc_mu);
    const double now = bc_now();
    bc_expire(now, drop, &nd);
    while (bc_n > 0 && (bc_n == SPT__BC_SLOTS || bc_bytes[tier] + size > bound)) { /* the oldest out */
        int old = -1;
        for (int k = 0; k < bc_n; k++)
            if ((bc_n == SPT__BC_SLOTS || bc[k].lazy == (tier == 1)) && (old < 0 || bc[k].t < bc[old].t)) old = k;
        bc_remove(old, drop, &nd);
    }
    bc[bc_n++] = (bc_slot){p, size, now, tier == 1};
    bc_bytes[tier] += size;
    pthread_mutex_unlock(&bc_mu);
    bc_free_all(drop, nd);
    return true;
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

void spt__bc_reconfigure(void) {
    spt__bc_flush();
    pthread_mutex_lock(&bc_mu);
    bc_configure();
    pthread_mutex_unlock(&bc_mu);
}

size_t spt__bc_held(void) {
    pthread_mutex_lock(&bc_mu);
    size_t b = bc_bytes[0] + bc_bytes[1];
    pthread_mutex_unlock(&bc_mu);
    return b;
}

size_t spt__bc_held_large(void) {
    pthread_mutex_lock(&bc_mu);
    size_t b = bc_bytes[1];
    pthread_mutex_unlock(&bc_mu);
    return b;
}
