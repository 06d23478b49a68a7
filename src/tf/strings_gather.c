/* SPDX-License-Identifier: Apache-2.0 */
/* strings_gather.c -- a batch of byte strings held by a language runtime's string objects (Python's bytes)
 * read as spt_str pairs in one pass, without copying the bytes: the boundary of parse_example and the
 * record writers for a batch of 10^5 records costs one load per object instead of a join and a length
 * pass in the host language. */
#include "core/internal.h"

int64_t spt_strings_gather(const void *const *objs, int64_t n, size_t tag_off, const void *tag, size_t len_off,
                           size_t data_off, spt_str *out) {
    if (n <= 0) return 0;
    if (!objs || !out) return -1;
    for (int64_t i = 0; i < n; i++) {
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
    return n;
}
