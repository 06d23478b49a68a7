/* SPDX-License-Identifier: Apache-2.0 */
/* arena.c -- owned bytes of string values: chunks that never move. */
#include "core/internal.h"

void spt__arena_free(spt__arena *a) {
    spt__chunk *c = a->head;
    while (c) {
        spt__chunk *n = c->next;
        spt__free(c);
        c = n;
    }
    a->head = NULL;
}

static spt_status arena_reserve(spt__arena *a, size_t len) {
    spt__chunk *c = a->head;
    if (c && c->cap - c->used >= len) return SPT_OK;
    size_t cap = c ? c->cap * 2 : 4096, bytes;
    if (cap < len) cap = len;
    if (spt__add_sz(sizeof(spt__chunk), cap, &bytes))
        return spt__err(SPT_EOVERFLOW, "spt: string of %zu bytes too large", len);
    spt__chunk *n = spt__malloc(bytes);
    if (!n) return spt__err(SPT_ENOMEM, "spt: cannot allocate %zu bytes for strings", bytes);
    n->next = c;
    n->used = 0;
    n->cap = cap;
    a->head = n;
    return SPT_OK;
}

spt_status spt__arena_store(spt__arena *a, const char *src, int64_t len, const char **dst) {
    if (len < 0) return spt__err(SPT_EINVAL, "spt: negative string length %lld", (long long)len);
    if (len == 0) {
        *dst = "";
        return SPT_OK;
    }
    if (!src) return spt__err(SPT_EINVAL, "spt: NULL string data with length %lld", (long long)len);
    if ((uint64_t)len > SIZE_MAX) return spt__err(SPT_EOVERFLOW, "spt: string too large");
    SPT__TRY(arena_reserve(a, (size_t)len));
    char *p = a->head->data + a->head->used;
    memcpy(p, src, (size_t)len);
    a->head->used += (size_t)len;
    *dst = p;
    return SPT_OK;
}

spt_status spt__arena_adopt_all(spt__arena *a, spt_str *arr, int64_t n) {
    size_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (arr[i].len < 0) return spt__err(SPT_EINVAL, "spt: string %lld has negative length", (long long)i);
        if (arr[i].len > 0 && !arr[i].data) return spt__err(SPT_EINVAL, "spt: string %lld has NULL data", (long long)i);
        if ((uint64_t)arr[i].len > SIZE_MAX || spt__add_sz(total, (size_t)arr[i].len, &total))
            return spt__err(SPT_EOVERFLOW, "spt: total string bytes do not fit in size_t");
    }
    if (total == 0) {
        for (int64_t i = 0; i < n; i++) arr[i].data = "";
        return SPT_OK;
    }
    spt__arena fresh = {NULL};
    SPT__TRY(arena_reserve(&fresh, total));
    for (int64_t i = 0; i < n; i++) {
        const char *p;
        spt_status st = spt__arena_store(&fresh, arr[i].data, arr[i].len, &p);
        if (st != SPT_OK) { /* cannot happen: the chunk holds `total` bytes */
            spt__arena_free(&fresh);
            return st;
        }
        arr[i].data = p;
    }
    /* keep older chunks of `a` (other strings may still point there) behind the new one */
    fresh.head->next = a->head;
    a->head = fresh.head;
    return SPT_OK;
}
