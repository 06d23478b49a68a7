/* alloc.c -- the one allocator every spt allocation goes through, and the thread setting. */
#include "internal.h"

#include <stdlib.h>

static spt_malloc_fn spt__malloc_fn = malloc;
static spt_realloc_fn spt__realloc_fn = realloc;
static spt_free_fn spt__free_fn = free;

void spt_set_allocator(spt_malloc_fn m, spt_realloc_fn r, spt_free_fn f) {
    spt__malloc_fn = m ? m : malloc;
    spt__realloc_fn = r ? r : realloc;
    spt__free_fn = f ? f : free;
}

void *spt__malloc(size_t n) { return spt__malloc_fn(n ? n : 1); }

void *spt__calloc(size_t n, size_t sz) {
    size_t bytes;
    if (spt__mul_sz(n, sz, &bytes)) return NULL;
    void *p = spt__malloc(bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void *spt__zalloc(size_t bytes) {
    if (spt__malloc_fn == malloc && spt__free_fn == free) return calloc(bytes ? bytes : 1, 1);
    void *p = spt__malloc(bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void *spt__realloc(void *p, size_t n) { return spt__realloc_fn(p, n ? n : 1); }

void spt__free(void *p) {
    if (p) spt__free_fn(p);
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
        *st = spt__err(SPT_EOVERFLOW, "%s: %lld x %lld x %zu bytes does not fit in size_t", fn,
                       (long long)a, (long long)b, c);
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

static int spt__nthreads = 0; /* 0 = default */

void spt_set_num_threads(int n) { spt__nthreads = n > 0 ? n : 0; }

int spt_get_num_threads(void) {
    if (spt__nthreads > 0) return spt__nthreads;
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int spt__threads_for(int64_t work) {
    int max = spt_get_num_threads();
    int64_t by_work = work / 32768;
    if (by_work < 1) by_work = 1;
    return by_work < max ? (int)by_work : max;
}
