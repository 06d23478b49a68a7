/* SPDX-License-Identifier: Apache-2.0 */
/* order.c -- what a file says about its entries' order: the writers state the tensor's order and
 * whether its entries are sorted (and unique) by it, as "order: 2 0 1 sorted unique" (a .tns comment
 * "# order: ...", a Matrix Market comment "% spt order: ...", an .npz member spt_meta.npy holding the
 * string); the readers parse it and restore the order and flags only after one pass over the entries
 * has confirmed them. A claim the entries do not bear out is ignored (the order stays undefined). */
#include "io.h"

int spt__order_meta_format(const spt_tensor *t, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    if (!(t->flags & SPT__F_SORTED) || !(t->flags & SPT__F_VALID) || t->rank < 1 ||
        !spt__order_defined(t->rank, t->order))
        return 0;
    size_t n = (size_t)snprintf(buf, cap, "order:");
    for (int64_t k = 0; k < t->rank && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, " %lld", (long long)t->order[k]);
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, " sorted%s", (t->flags & SPT__F_UNIQUE) ? " unique" : "");
    if (n >= cap) { /* cannot happen with SPT__META_CAP; write nothing rather than a cut claim */
        buf[0] = 0;
        return 0;
    }
    return (int)n;
}

/* Parse "order: D0 D1 ... sorted [unique]" (leading blanks allowed) from [p, e) for a rank-`rank`
 * tensor: true when it is well formed and the dims are a permutation. */
static bool parse_meta(const char *p, const char *e, int64_t rank, int64_t *order) {
    while (p < e && spt__is_blank(*p)) p++;
    if ((size_t)(e - p) < 6 || memcmp(p, "order:", 6) != 0) return false;
    p += 6;
    bool seen[SPT_MAX_RANK] = {false};
    int64_t k = 0;
    for (;;) {
        while (p < e && spt__is_blank(*p)) p++;
        const char *s = p;
        while (p < e && !spt__is_blank(*p)) p++;
        if (s == p) return false;
        int64_t v;
        if (spt__parse_i64(s, p, &v) != 0) { /* the first word after the dims */
            if ((size_t)(p - s) != 6 || memcmp(s, "sorted", 6) != 0) return false;
            break;
        }
        if (k >= rank || v < 0 || v >= rank || seen[v]) return false;
        seen[v] = true;
        order[k++] = v;
    }
    return k == rank;
}

void spt__order_restore(spt_tensor *t, const int64_t *order) {
    if (!t || t->rank < 1 || !(t->flags & SPT__F_VALID)) return;
    const int64_t n = t->nnz, R = t->rank;
    bool unique = true;
    for (int64_t i = 1; i < n; i++) {
        int c = spt__cmp_rows(t->indices + (i - 1) * R, t->indices + i * R, R, order);
        if (c > 0) return; /* the claim is false: the order stays undefined */
        if (c == 0) unique = false;
    }
    memcpy(t->order, order, (size_t)R * sizeof *order);
    spt__rowptr_drop(t);
    t->flags |= SPT__F_SORTED;
    if (unique) t->flags |= SPT__F_UNIQUE;
    else t->flags &= ~(unsigned)SPT__F_UNIQUE;
}

void spt__order_restore_meta(spt_tensor *t, const char *p, const char *e) {
    int64_t order[SPT_MAX_RANK];
    if (t && parse_meta(p, e, t->rank, order)) spt__order_restore(t, order);
}

void spt__order_restore_header(spt_tensor *t, const char *buf, size_t len, const char *prefix) {
    if (!t || t->rank < 1) return;
    const size_t pl = strlen(prefix);
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *s = p;
        while (s < eol && spt__is_blank(*s)) s++;
        if (s < eol && *s != prefix[0]) return; /* the first data line ends the header */
        if ((size_t)(eol - s) > pl && !memcmp(s, prefix, pl)) {
            const char *q = s + pl;
            while (q < eol && spt__is_blank(*q)) q++;
            if ((size_t)(eol - q) >= 6 && !memcmp(q, "order:", 6)) {
                spt__order_restore_meta(t, q, eol);
                return;
            }
        }
        p = nl ? nl + 1 : end;
    }
}
