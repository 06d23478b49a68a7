/* SPDX-License-Identifier: Apache-2.0 */
/* stream.h -- streaming (non-temporal) stores, written once for the kernels that write a large fresh
 * output they do not read back soon (the sort's decode, concat's runs, add's blocks): the store skips
 * the read for ownership of the destination line. Where x86-64 SSE2 is missing they are plain stores.
 * A thread fences (spt__stream_fence) before another thread may read what it streamed. */
#ifndef SPT_CORE_STREAM_H
#define SPT_CORE_STREAM_H

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define SPT__HAVE_STREAM 1
#else
#define SPT__HAVE_STREAM 0
#endif

/* One 8-byte word to p. */
static inline void spt__stream_put64(void *p, uint64_t v) {
#if SPT__HAVE_STREAM
    _mm_stream_si64((long long *)p, (long long)v);
#else
    memcpy(p, &v, sizeof v);
#endif
}

/* m 8-byte words from src to dst. */
static inline void spt__stream_copy8(void *dst, const void *src, int64_t m) {
    char *d = dst;
    const char *s = src;
    for (int64_t i = 0; i < m; i++) {
        uint64_t w;
        memcpy(&w, s + i * 8, 8);
        spt__stream_put64(d + i * 8, w);
    }
}

static inline void spt__stream_fence(void) {
#if SPT__HAVE_STREAM
    _mm_sfence();
#endif
}

#endif
