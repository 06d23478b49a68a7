/* SPDX-License-Identifier: Apache-2.0 */
/* pb.c -- the protocol buffer wire format: the field reader that checks every length against what is
 * left of its message (its common case inline in tf_internal.h), and the growing buffer the writers
 * append to. */
#include "tf/tf_internal.h"

/* Every field the inline spt__pb_next leaves (a key or length of more bytes, a fixed or varint value, or
 * malformed bytes). */
int spt__pb_next_general(spt__pb *r, spt__pb_field *f, const char **why) {
    if (r->p >= r->end) return 0;
    uint64_t key;
    if (!spt__pb_varint(r, &key)) {
        *why = "truncated field key";
        return -1;
    }
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff) {
        *why = "field number out of range";
        return -1;
    }
    f->num = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    switch (f->wire) {
    case SPT__PB_VARINT:
        if (!spt__pb_varint(r, &f->v)) {
            *why = "truncated varint";
            return -1;
        }
        return 1;
    case SPT__PB_I64:
        if (r->end - r->p < 8) {
            *why = "truncated 8-byte value";
            return -1;
        }
        f->v = 0;
        for (int i = 7; i >= 0; i--) f->v = (f->v << 8) | r->p[i];
        r->p += 8;
        return 1;
    case SPT__PB_I32:
        if (r->end - r->p < 4) {
            *why = "truncated 4-byte value";
            return -1;
        }
        f->v = (uint64_t)r->p[0] | (uint64_t)r->p[1] << 8 | (uint64_t)r->p[2] << 16 | (uint64_t)r->p[3] << 24;
        r->p += 4;
        return 1;
    case SPT__PB_LEN: {
        uint64_t n;
        if (!spt__pb_varint(r, &n)) {
            *why = "truncated length";
            return -1;
        }
        if (n > (uint64_t)(r->end - r->p)) {
            *why = "length runs past the end of its message";
            return -1;
        }
        f->data = r->p;
        f->len = (size_t)n;
        r->p += n;
        return 1;
    }
    default: /* groups (3, 4) are not used by TensorFlow's messages; 6, 7 do not exist */
        *why = "unsupported wire type";
        return -1;
    }
}


bool spt__buf_reserve(spt__buf *w, size_t more) {
    if (!w->ok) return false;
    size_t need;
    if (spt__add_sz(w->len, more, &need)) return w->ok = false;
    if (need <= w->cap) return true;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    unsigned char *b = spt__realloc(w->b, cap);
    if (!b) return w->ok = false;
    w->b = b;
    w->cap = cap;
    return true;
}

void spt__buf_bytes(spt__buf *w, const void *p, size_t n) {
    if (!n || !spt__buf_reserve(w, n)) return;
    memcpy(w->b + w->len, p, n);
    w->len += n;
}

void spt__buf_varint(spt__buf *w, uint64_t v) {
    if (!spt__buf_reserve(w, 10)) return;
    unsigned char *p = w->b + w->len;
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    w->len = (size_t)(p - w->b);
}

void spt__buf_tag(spt__buf *w, uint32_t num, int wire) { spt__buf_varint(w, (uint64_t)num << 3 | (uint64_t)wire); }

size_t spt__varint_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
