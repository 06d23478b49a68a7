/* SPDX-License-Identifier: Apache-2.0 */
/* strings_gather.c -- a batch of byte strings held by a language runtime's string objects (Python's bytes)
 * read as spt_str pairs in one pass, without copying the bytes: the boundary of parse_example and the
 * record writers for a batch of 10^5 records costs one load per object instead of a join and a length
 * pass in the host language. The objects lie wherever the runtime's allocator put them, so each load is a
 * cache miss: the objects a few places on are fetched ahead, and a large batch is split among threads. */
#include "core/internal.h"

#define SPT__GATHER_AHEAD 8
#define SPT__GATHER_CHUNK 4096

/* Objects [lo, hi): the first that is NULL or not a string of the runtime's type, or hi. */
static int64_t gather_range(const void *const *objs, int64_t lo, int64_t hi, size_t tag_off, const void *tag,
                            size_t len_off, size_t data_off, spt_str *out) {
    for (int64_t i = lo; i < hi; i++) {
        if (i + SPT__GATHER_AHEAD < hi && objs[i + SPT__GATHER_AHEAD])
            __builtin_prefetch((const unsigned char *)objs[i + SPT__GATHER_AHEAD] + tag_off);
        const unsigned char *o = objs[i];
        const void *t;
        int64_t len;
        if (!o) return i;
        memcpy(&t, o + tag_off, sizeof t);
        if (t != tag) return i;
        memcpy(&len, o + len_off, sizeof len);
        if (len < 0) return i;
        out[i].data = (const char *)(o + data_off);
        out[i].len = len;
    }
    return hi;
}

int64_t spt_strings_gather(const void *const *objs, int64_t n, size_t tag_off, const void *tag, size_t len_off,
                           size_t data_off, spt_str *out) {
    if (n <= 0) return 0;
    if (!objs || !out) return -1;
    const int64_t nch = (n - 1) / SPT__GATHER_CHUNK + 1;
    const int nth SPT__OMP_VAR = spt__threads_for(n * 4);
    int64_t first = n;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(min : first) if (nth > 1 && nch > 1)
    for (int64_t k = 0; k < nch; k++) {
        const int64_t lo = k * SPT__GATHER_CHUNK, hi = n - lo < SPT__GATHER_CHUNK ? n : lo + SPT__GATHER_CHUNK;
        const int64_t bad = gather_range(objs, lo, hi, tag_off, tag, len_off, data_off, out);
        if (bad < hi && bad < first) first = bad;
    }
    return first;
}
