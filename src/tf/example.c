/* SPDX-License-Identifier: Apache-2.0 */
/* example.c -- tf.train.Example (field numbers from the public example.proto and feature.proto: Example
 * {features 1}, Features {map<string, Feature> feature 1: entry {key 1, value 2}}, Feature {bytes_list 1,
 * float_list 2, int64_list 3}, each list {value 1, packed or not}): parsing as tf.io.parse_example does
 * and encoding. The parser makes two passes: the first finds, for every Example and wanted key, its list
 * and counts its values (checking the framing); the second decodes the values straight into outputs
 * allocated to their exact size. */
#include "tf/tf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { L_NONE = 0, L_BYTES = 1, L_FLOAT = 2, L_INT64 = 3 };

static int list_of(spt_dtype d) {
    return d == SPT_STRING ? L_BYTES : d == SPT_FLOAT32 ? L_FLOAT : d == SPT_INT64 ? L_INT64 : -1;
}
static const char *list_name(int l) {
    return l == L_BYTES ? "string" : l == L_FLOAT ? "float" : l == L_INT64 ? "int64" : "none";
}

/* 32 bytes on a 64-bit host: a batch of 10^5 Examples and two features holds 6.4 MB of them, written by the
 * scan and read by the decode. */
typedef struct slot {
    const unsigned char *p; /* the list message's bytes */
    size_t len;
    int64_t count;
    uint8_t pk;   /* a float or int64 list that is one packed field (the usual form): its payload's offset in
                   * p (after the field's key and length; 0: not such a list) */
    uint8_t type; /* L_*; L_NONE when absent */
    bool seen;
} slot;

/* Count the values of a list message (checking its framing). */
static bool count_list(int type, const unsigned char *p, size_t len, int64_t *count, const char **why) {
    spt__pb r = {p, p + len};
    spt__pb_field f;
    int64_t n = 0;
    int k;
    while ((k = spt__pb_next(&r, &f, why)) > 0) {
        if (f.num != 1) continue;
        if (type == L_BYTES) {
            if (f.wire != SPT__PB_LEN) return *why = "bytes value of the wrong wire type", false;
            n++;
        } else if (f.wire == SPT__PB_LEN) { /* packed */
            if (type == L_FLOAT) {
                if (f.len % 4) return *why = "packed float list cut inside a value", false;
                n += (int64_t)(f.len / 4);
            } else {
                if (f.len && f.data[f.len - 1] >= 0x80) return *why = "packed int64 list ends inside a varint", false;
                n += spt__pb_count_varints(f.data, f.len);
            }
        } else if ((type == L_FLOAT && f.wire == SPT__PB_I32) || (type == L_INT64 && f.wire == SPT__PB_VARINT)) {
            n++;
        } else {
            return *why = "list value of the wrong wire type", false;
        }
    }
    *count = n;
    return k == 0;
}

/* Decode the values of a counted list into out (int64_t, float or spt_str pointing into the input). */
static bool decode_list(int type, const unsigned char *p, size_t len, void *out, const char **why) {
    spt__pb r = {p, p + len};
    spt__pb_field f;
    int64_t i = 0;
    while (spt__pb_next(&r, &f, why) > 0) {
        if (f.num != 1) continue;
        if (type == L_BYTES) {
            ((spt_str *)out)[i++] = (spt_str){(const char *)f.data, (int64_t)f.len};
        } else if (type == L_FLOAT) {
            if (f.wire == SPT__PB_LEN) {
                memcpy((float *)out + i, f.data, f.len); /* little-endian hosts */
                i += (int64_t)(f.len / 4);
            } else {
                uint32_t u = (uint32_t)f.v;
                memcpy((float *)out + i++, &u, 4);
            }
        } else if (f.wire == SPT__PB_LEN) {
            if (!spt__pb_unpack_int64(f.data, f.len, (int64_t *)out + i))
                return *why = "malformed varint in a packed int64 list", false;
            i += spt__pb_count_varints(f.data, f.len);
        } else {
            ((int64_t *)out)[i++] = (int64_t)f.v;
        }
    }
    return true;
}

/* A float or int64 list message that is exactly one packed field #1: remember its payload, so that the
 * decode skips the framing (checked once by count_list). */
static void note_packed(slot *s) {
    if (s->type == L_BYTES || s->len < 2 || s->p[0] != (1 << 3 | SPT__PB_LEN)) return;
    spt__pb r = {s->p + 1, s->p + s->len};
    uint64_t n;
    if (spt__pb_varint(&r, &n) && n == (uint64_t)(r.end - r.p)) s->pk = (uint8_t)(r.p - s->p); /* <= 11 */
}

/* Decode slot s's counted values into out. */
static bool decode_slot(const slot *s, void *out, const char **why) {
    if (!s->pk) return decode_list(s->type, s->p, s->len, out, why);
    if (s->type == L_FLOAT) {
        memcpy(out, s->p + s->pk, s->len - s->pk); /* little-endian hosts */
        return true;
    }
    if (spt__pb_unpack_int64(s->p + s->pk, s->len - s->pk, out)) return true;
    return *why = "malformed varint in a packed int64 list", false;
}

/* ---- the keys the features want: a small open-addressing table ------------------------------- */

typedef struct keytab {
    const char **key;
    size_t *klen;
    int64_t nkeys, cap; /* cap a power of two */
    int64_t *tab;       /* key id or -1 */
} keytab;

static uint64_t hash_bytes(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
static int64_t key_find(const keytab *t, const unsigned char *p, size_t n) {
    if (t->nkeys <= 8) { /* a few keys: length and bytes compared, no hash */
        for (int64_t id = 0; id < t->nkeys; id++)
            if (t->klen[id] == n && memcmp(t->key[id], p, n) == 0) return id;
        return -1;
    }
    for (uint64_t h = hash_bytes(p, n);; h++) {
        int64_t id = t->tab[h & (uint64_t)(t->cap - 1)];
        if (id < 0) return -1;
        if (t->klen[id] == n && memcmp(t->key[id], p, n) == 0) return id;
    }
}
static int64_t key_add(keytab *t, const char *k) {
    size_t n = strlen(k);
    int64_t id = key_find(t, (const unsigned char *)k, n);
    if (id >= 0) return id;
    id = t->nkeys++;
    t->key[id] = k;
    t->klen[id] = n;
    for (uint64_t h = hash_bytes((const unsigned char *)k, n);; h++)
        if (t->tab[h & (uint64_t)(t->cap - 1)] < 0) {
            t->tab[h & (uint64_t)(t->cap - 1)] = id;
            return id;
        }
}

/* The Examples of a batch need not lie in order in memory (Python's bytes objects are spread over the
 * allocator's pools by size): the scan asks for the bytes of the Example SPT__EX_AHEAD on (its first
 * 512 bytes at most) while it reads this one. */
#define SPT__EX_AHEAD 6
static inline void prefetch_bytes(const spt_str *x) {
    const char *p = x->data;
    const int64_t n = x->len < 512 ? x->len : 512;
    for (int64_t o = 0; o < n; o += 64) __builtin_prefetch(p + o);
}

/* The same for the list bytes of a slot, in the decoding pass. */
static inline void prefetch_list(const slot *s) {
    for (size_t o = s->pk; o < s->len && o < 512; o += 64) __builtin_prefetch(s->p + o);
}

/* Pass 1 for Example b: fill its row of slots (cleared here, by the thread that scans it). */
static spt_status scan_example(const char *fn, int64_t b, const spt_str *ex, const keytab *kt, slot *row) {
    memset(row, 0, (size_t)kt->nkeys * sizeof *row);
    spt__pb r = {(const unsigned char *)ex->data, (const unsigned char *)ex->data + ex->len};
    spt__pb_field f, g, h;
    const char *why = NULL, *where = "Example";
    int k;
    while ((k = spt__pb_next(&r, &f, &why)) > 0) {
        if (f.num != 1) continue;
        where = "Example.features";
        if (f.wire != SPT__PB_LEN) goto bad_wire;
        spt__pb fs = {f.data, f.data + f.len};
        while ((k = spt__pb_next(&fs, &g, &why)) > 0) {
            if (g.num != 1) continue;
            where = "Example.features.feature";
            if (g.wire != SPT__PB_LEN) goto bad_wire;
            spt__pb e = {g.data, g.data + g.len};
            const unsigned char *key = (const unsigned char *)"", *val = NULL;
            size_t klen = 0, vlen = 0;
            while ((k = spt__pb_next(&e, &h, &why)) > 0) {
                if (h.num == 1 && h.wire == SPT__PB_LEN) key = h.data, klen = h.len;
                else if (h.num == 2 && h.wire == SPT__PB_LEN) val = h.data, vlen = h.len;
                else if (h.num <= 2) goto bad_wire;
            }
            if (k < 0) goto bad;
            int64_t id = key_find(kt, key, klen);
            if (id < 0 || row[id].seen) continue; /* unwanted, or a repeat (the first occurrence wins) */
            slot *s = &row[id];
            s->seen = true;
            if (!val) continue;
            spt__pb fv = {val, val + vlen};
            while ((k = spt__pb_next(&fv, &h, &why)) > 0) { /* a oneof: the last list set wins */
                if (h.num < 1 || h.num > 3) continue;
                if (h.wire != SPT__PB_LEN) {
                    where = "Feature";
                    goto bad_wire;
                }
                s->type = (uint8_t)h.num, s->p = h.data, s->len = h.len;
            }
            if (k < 0) {
                where = "Feature";
                goto bad_key;
            }
            if (s->type != L_NONE && !count_list(s->type, s->p, s->len, &s->count, &why)) {
                where = s->type == L_BYTES   ? "Feature.bytes_list"
                        : s->type == L_FLOAT ? "Feature.float_list"
                                             : "Feature.int64_list";
                goto bad_key;
            }
            note_packed(s);
            continue;
        bad_key:
            return spt__err(SPT_EPARSE, "%s: serialized[%lld]: %s of key \"%.*s\": %s", fn, (long long)b, where,
                            (int)(klen > 200 ? 200 : klen), (const char *)key, why);
        }
        if (k < 0) goto bad;
        where = "Example";
    }
    if (k < 0) goto bad;
    return SPT_OK;
bad_wire:
    why = "wrong wire type";
bad:
    return spt__err(SPT_EPARSE, "%s: serialized[%lld]: %s: %s", fn, (long long)b, where, why);
}

/* ---- outputs ----------------------------------------------------------------------------------- */

static spt_status type_check(const char *fn, const slot *s, int64_t b, const char *key, spt_dtype dt) {
    if (s->type == L_NONE || s->type == list_of(dt)) return SPT_OK;
    return spt__err(SPT_EINVAL,
                    "%s: Name: <unknown>, Key: %s, Index: %lld.  Data types don't match. Expected type: %s, "
                    "Actual type: %s",
                    fn, key, (long long)b, list_name(list_of(dt)), list_name(s->type));
}

/* Decode slot s's values into values + at (elements of dt). */
static spt_status decode_at(const char *fn, int64_t b, const char *key, const slot *s, spt_dtype dt, void *values,
                            int64_t at) {
    const char *why = NULL;
    if (s->type == L_NONE || !s->count) return SPT_OK;
    if (!decode_slot(s, (char *)values + (size_t)at * spt_dtype_size(dt), &why))
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: Feature of key \"%s\": %s", fn, (long long)b, key, why);
    return SPT_OK;
}

static spt_status finish_strings(spt_tensor *t) {
    return t->dtype == SPT_STRING ? spt__arena_adopt_all(&t->strings, t->values, t->nnz) : SPT_OK;
}

/* The indices [b, 0] .. [b, c-1] of one Example's list. The output is far larger than the caches and is
 * not read again here: written with non-temporal stores where the host has them (no read of each line
 * before it is written), fenced before the threads join. */
static void fill_pairs(int64_t *ix, int64_t b, int64_t c) {
#ifdef __SSE2__
    if (((uintptr_t)ix & 15) == 0) {
        __m128i v = _mm_set_epi64x(0, b);
        const __m128i step = _mm_set_epi64x(1, 0);
        for (int64_t j = 0; j < c; j++) {
            _mm_stream_si128((__m128i *)(void *)(ix + 2 * j), v);
            v = _mm_add_epi64(v, step);
        }
        return;
    }
#endif
    for (int64_t j = 0; j < c; j++) ix[2 * j] = b, ix[2 * j + 1] = j;
}

/* ---- VarLenFeatures --------------------------------------------------------------------------------
 * The batch is cut into chunks of consecutive Examples, taken by the threads as they come free (a thread
 * the system delays does not hold the others up). The scan of a chunk counts, per VarLenFeature, the
 * values of its Examples; the outputs are then allocated to their exact size, and the fill of a chunk
 * decodes its lists straight into their place (after the chunks before it), every VarLenFeature of an
 * Example at once (the Examples of a batch of Python bytes objects are spread in memory: each is fetched
 * once per pass). Every value's place follows from the counts alone: the result is the same for any
 * thread count. */

typedef struct vfeat {
    int64_t kid; /* its key's slot */
    int type;    /* the list type its dtype reads */
    size_t es;   /* the element size */
    spt_tensor *out;
} vfeat;

/* One chunk's part of one VarLenFeature. */
typedef struct vpart {
    int64_t n, maxlen;         /* values in its chunk, the longest list */
    int64_t at;                /* where its next value goes in the output */
    int64_t type_bad, dec_bad; /* the first Example with a list of another type / with malformed values */
    const char *why;           /* dec_bad's fault */
} vpart;

/* The chunks: ch Examples each (the last fewer). */
typedef struct chunks {
    int64_t B, ch, n;
} chunks;
static void chunk_range(const chunks *c, int64_t k, int64_t *lo, int64_t *hi) {
    *lo = k * c->ch;
    *hi = c->B - *lo < c->ch ? c->B : *lo + c->ch;
}

/* Pass 1 over Examples [lo, hi): their slots, and the VarLenFeatures' counts into parts[0..V). */
static void scan_range(const char *fn, const spt_str *ex, int64_t B, int64_t lo, int64_t hi, const keytab *kt,
                       slot *slots, const vfeat *vf, int64_t V, vpart *parts, int64_t *first_bad) {
    const int64_t K = kt->nkeys;
    for (int64_t b = lo; b < hi; b++) {
        if (b + SPT__EX_AHEAD < B) prefetch_bytes(&ex[b + SPT__EX_AHEAD]);
        slot *row = slots + b * K;
        if (scan_example(fn, b, &ex[b], kt, row) != SPT_OK) {
            if (b < *first_bad) *first_bad = b;
            continue;
        }
        for (int64_t v = 0; v < V; v++) {
            const slot *s = &row[vf[v].kid];
            vpart *p = &parts[v];
            if (s->type == L_NONE) continue;
            if (s->type != vf[v].type) { /* an error even when the list is empty */
                if (b < p->type_bad) p->type_bad = b;
                continue;
            }
            p->n += s->count;
            if (s->count > p->maxlen) p->maxlen = s->count;
        }
    }
}

/* Pass 2 over Examples [lo, hi): every VarLenFeature with an output, decoded and indexed in place. */
static void fill_range(const slot *slots, int64_t K, int64_t B, int64_t lo, int64_t hi, const vfeat *vf, int64_t V,
                       vpart *parts, bool batched) {
    for (int64_t b = lo; b < hi; b++) {
        const slot *row = slots + b * K;
        if (b + SPT__EX_AHEAD < B)
            for (int64_t v = 0; v < V; v++) prefetch_list(&slots[(b + SPT__EX_AHEAD) * K + vf[v].kid]);
        for (int64_t v = 0; v < V; v++) {
            const vfeat *f = &vf[v];
            const slot *s = &row[f->kid];
            vpart *p = &parts[v];
            if (!f->out || s->type != f->type || !s->count) continue;
            const int64_t c = s->count, e = p->at;
            const char *why = NULL;
            if (!decode_slot(s, (char *)f->out->values + (size_t)e * f->es, &why) && b < p->dec_bad)
                p->dec_bad = b, p->why = why;
            if (batched) fill_pairs(f->out->indices + 2 * e, b, c);
            else
                for (int64_t j = 0; j < c; j++) f->out->indices[e + j] = j;
            p->at = e + c;
        }
    }
}

/* The outputs of the VarLenFeatures without a list of another type, allocated to their exact size (vf[v].out,
 * owned by sparse_out[i]) and filled by pass 2 over the chunks, with up to nth threads. */
static spt_status varlen_outputs(const char *fn, const spt_feature *features, int64_t nfeatures, const int64_t *vmap,
                                 const slot *slots, int64_t K, vfeat *vf, vpart *parts, int64_t V, const chunks *cs,
                                 int nth, bool batched, spt_tensor **sparse_out) {
    const int64_t B = cs->B;
    int64_t work = 0;
    for (int64_t i = 0; i < nfeatures; i++) {
        if (vmap[i] < 0) continue;
        const int64_t v = vmap[i];
        int64_t total = 0, maxlen = 0;
        bool typed = true;
        for (int64_t k = 0; k < cs->n; k++) {
            vpart *p = &parts[k * V + v];
            p->at = total;
            total += p->n;
            if (p->maxlen > maxlen) maxlen = p->maxlen;
            typed = typed && p->type_bad == INT64_MAX;
        }
        if (!typed) continue; /* its error is reported in order */
        const int64_t shape[2] = {B, maxlen};
        SPT__TRY(spt__tensor_alloc_uninit(fn, features[i].dtype, batched ? 2 : 1, batched ? shape : shape + 1, total,
                                          NULL, &sparse_out[i]));
        vf[v].out = sparse_out[i];
        work += total;
    }
    const int nt SPT__OMP_VAR = work > 0 ? nth : 1;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t k = 0; k < cs->n; k++) {
            int64_t lo, hi;
            chunk_range(cs, k, &lo, &hi);
            fill_range(slots, K, B, lo, hi, vf, V, parts + k * V, batched);
        }
#ifdef __SSE2__
        _mm_sfence(); /* this thread's streamed indices, before the join */
#endif
    }
    return SPT_OK;
}

/* The error of VarLenFeature f (v its number) the passes found, as its own pass used to report it: a list of
 * another type first (the first such Example), then malformed values; else its output finished. */
static spt_status varlen_done(const char *fn, const slot *slots, int64_t K, const vfeat *vf, const vpart *parts,
                              int64_t V, int64_t nch, int64_t v, const spt_feature *f) {
    int64_t tb = INT64_MAX, db = INT64_MAX;
    const char *why = NULL;
    for (int64_t k = 0; k < nch; k++) { /* in order: the first chunk with a fault holds the first Example */
        const vpart *p = &parts[k * V + v];
        if (p->type_bad < tb) tb = p->type_bad;
        if (p->dec_bad < db) db = p->dec_bad, why = p->why;
    }
    if (tb != INT64_MAX) return type_check(fn, &slots[tb * K + vf[v].kid], tb, f->key, f->dtype);
    if (db != INT64_MAX)
        return spt__err(SPT_EPARSE, "%s: serialized[%lld]: Feature of key \"%s\": %s", fn, (long long)db, f->key, why);
    SPT__TRY(finish_strings(vf[v].out));
    spt__set_row_major(vf[v].out, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    return SPT_OK;
}

/* The entries of one Example of a SparseFeature sorted by their index tuple (stable). */
typedef struct {
    const int64_t *ix;
    int64_t r, pos;
} sort_row;
static int cmp_rows(const void *a, const void *b) {
    const sort_row *x = a, *y = b;
    for (int64_t d = 0; d < x->r; d++)
        if (x->ix[d] != y->ix[d]) return x->ix[d] < y->ix[d] ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static spt_status sparsefeat_out(const char *fn, const slot *slots, int64_t K, const int64_t *kids, int64_t B,
                                 bool batched, const spt_feature *f, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int64_t ni = f->rank, vk = kids[0];
    int64_t total = 0;
    for (int64_t b = 0; b < B; b++) {
        const slot *s = &slots[b * K + vk];
        SPT__TRY(type_check(fn, s, b, f->key, f->dtype));
        int64_t c = s->type ? s->count : 0;
        for (int64_t j = 0; j < ni; j++) {
            const slot *q = &slots[b * K + kids[1 + j]];
            SPT__TRY(type_check(fn, q, b, f->index_keys[j], SPT_INT64));
            int64_t qc = q->type ? q->count : 0;
            if (qc != c)
                return spt__err(SPT_EINVAL,
                                "%s: Example %lld: SparseFeature index key \"%s\" has %lld values but value key "
                                "\"%s\" has %lld",
                                fn, (long long)b, f->index_keys[j], (long long)qc, f->key, (long long)c);
        }
        total += c;
    }
    const int64_t rank = ni + (batched ? 1 : 0), off = batched ? 1 : 0;
    int64_t shape[SPT_MAX_RANK];
    if (batched) shape[0] = B;
    for (int64_t j = 0; j < ni; j++) shape[off + j] = f->shape[j];
    spt_tensor *t = NULL;
    int64_t *col = NULL, *tmp = NULL;
    sort_row *rows = NULL;
    SPT__TRY(spt__tensor_alloc_uninit(fn, f->dtype, rank, shape, total, NULL, &t));
    int64_t maxc = 0;
    for (int64_t b = 0; b < B; b++) {
        const slot *s = &slots[b * K + vk];
        if (s->type && s->count > maxc) maxc = s->count;
    }
    col = spt__alloc_array(fn, maxc ? maxc : 1, 1, sizeof(int64_t), false, &st);
    if (!col) goto fail;
    if (!f->already_sorted) {
        rows = spt__alloc_array(fn, maxc ? maxc : 1, 1, sizeof *rows, false, &st);
        tmp = rows ? spt__alloc_array(fn, maxc ? maxc : 1, rank, sizeof(int64_t), false, &st) : NULL;
        if (!tmp) goto fail;
    }
    const size_t es = spt_dtype_size(f->dtype);
    int64_t e = 0;
    for (int64_t b = 0; b < B; b++) {
        const slot *s = &slots[b * K + vk];
        const int64_t c = s->type ? s->count : 0;
        if (!c) continue;
        SPT__CHECK(decode_at(fn, b, f->key, s, f->dtype, t->values, e));
        for (int64_t i = 0; i < c; i++)
            if (batched) t->indices[(e + i) * rank] = b;
        for (int64_t j = 0; j < ni; j++) {
            const slot *q = &slots[b * K + kids[1 + j]];
            SPT__CHECK(decode_at(fn, b, f->index_keys[j], q, SPT_INT64, col, 0));
            for (int64_t i = 0; i < c; i++) {
                if (col[i] < 0 || col[i] >= f->shape[j]) {
                    st = spt__err(SPT_ERANGE,
                                  "%s: Example %lld: SparseFeature \"%s\": index %lld of key \"%s\" is %lld, "
                                  "outside [0, %lld)",
                                  fn, (long long)b, f->key, (long long)i, f->index_keys[j], (long long)col[i],
                                  (long long)f->shape[j]);
                    goto fail;
                }
                t->indices[(e + i) * rank + off + j] = col[i];
            }
        }
        if (!f->already_sorted && c > 1) { /* reorder this Example's entries by their index (stable) */
            for (int64_t i = 0; i < c; i++) rows[i] = (sort_row){t->indices + (e + i) * rank, rank, i};
            qsort(rows, (size_t)c, sizeof *rows, cmp_rows);
            for (int64_t i = 0; i < c; i++) memcpy(tmp + i * rank, rows[i].ix, (size_t)rank * 8);
            int64_t *perm = col; /* reuse: the source position of each sorted entry */
            for (int64_t i = 0; i < c; i++) perm[i] = rows[i].pos;
            memcpy(t->indices + e * rank, tmp, (size_t)(c * rank) * 8);
            /* permute the values in place, one cycle at a time */
            unsigned char *vals = (unsigned char *)t->values + (size_t)e * es;
            for (int64_t i = 0; i < c; i++) {
                if (perm[i] < 0) continue;
                int64_t cur = i;
                unsigned char hold[16];
                memcpy(hold, vals + (size_t)i * es, es);
                while (perm[cur] != i) {
                    int64_t nx = perm[cur];
                    memcpy(vals + (size_t)cur * es, vals + (size_t)nx * es, es);
                    perm[cur] = -1;
                    cur = nx;
                }
                memcpy(vals + (size_t)cur * es, hold, es);
                perm[cur] = -1;
            }
        }
        e += c;
    }
    SPT__CHECK(finish_strings(t));
    if (!f->already_sorted) spt__set_row_major(t, SPT__F_VALID | SPT__F_SORTED);
    else t->flags = SPT__F_VALID;
    *out = t;
    t = NULL;
fail:
    spt_tensor_free(t);
    spt__free(col);
    spt__free(rows);
    spt__free(tmp);
    return st;
}

static spt_status fixed_out(const char *fn, const slot *slots, int64_t K, int64_t kid, int64_t B, bool batched,
                            const spt_feature *f, spt_dense **out) {
    spt_status st = SPT_OK;
    int64_t shape[SPT_MAX_RANK + 1], per = 1;
    if (f->rank < 0 || f->rank > SPT_MAX_RANK - 1 || (f->rank && !f->shape))
        return spt__err(SPT_EINVAL, "%s: FixedLenFeature \"%s\": bad shape rank %lld", fn, f->key, (long long)f->rank);
    shape[0] = B;
    for (int64_t d = 0; d < f->rank; d++) {
        if (f->shape[d] < 0 || spt__mul_i64(per, f->shape[d], &per))
            return spt__err(SPT_EINVAL, "%s: FixedLenFeature \"%s\": shape[%lld] = %lld is not a size", fn, f->key,
                            (long long)d, (long long)f->shape[d]);
        shape[1 + d] = f->shape[d];
    }
    const spt_dense *dv = f->default_value;
    if (dv && (dv->dtype != f->dtype || dv->size != per))
        return spt__err(SPT_EINVAL,
                        "%s: FixedLenFeature \"%s\": default_value must hold %lld values of %s, got %lld of %s", fn,
                        f->key, (long long)per, spt_dtype_name(f->dtype), (long long)dv->size,
                        spt_dtype_name(dv->dtype));
    for (int64_t b = 0; b < B; b++) {
        const slot *s = &slots[b * K + kid];
        SPT__TRY(type_check(fn, s, b, f->key, f->dtype));
        if (s->type == L_NONE) {
            if (!dv)
                return spt__err(SPT_EINVAL,
                                "%s: Name: <unknown>, Feature: %s (data type: %s) is required but could not be "
                                "found.",
                                fn, f->key, list_name(list_of(f->dtype)));
        } else if (s->count != per) {
            char sb[SPT__IDXBUF];
            spt__fmt_index(sb, sizeof sb, f->shape, f->rank);
            return spt__err(SPT_EINVAL,
                            "%s: Name: <unknown>, Key: %s, Index: %lld.  Number of %s values != expected.  Values "
                            "size: %lld but output shape: %s",
                            fn, f->key, (long long)b, list_name(s->type), (long long)s->count, sb);
        }
    }
    spt_dense *d = NULL;
    SPT__TRY(spt__tf_dense_out(fn, f->dtype, f->rank + (batched ? 1 : 0), batched ? shape : shape + 1, &d));
    const size_t es = spt_dtype_size(f->dtype);
    for (int64_t b = 0; b < B; b++) {
        const slot *s = &slots[b * K + kid];
        if (s->type == L_NONE) {
            if (per) memcpy((char *)d->data + (size_t)(b * per) * es, dv->data, (size_t)per * es);
        } else {
            SPT__CHECK(decode_at(fn, b, f->key, s, f->dtype, d->data, b * per));
        }
    }
    if (f->dtype == SPT_STRING) SPT__CHECK(spt__arena_adopt_all(&d->strings, d->data, d->size));
    *out = d;
    return SPT_OK;
fail:
    spt_dense_free(d);
    return st;
}

/* The features checked, and the number of keys they want (*nk). */
static spt_status check_features(const char *fn, const spt_feature *features, int64_t nfeatures, int64_t *nk) {
    for (int64_t i = 0; i < nfeatures; i++) {
        const spt_feature *f = &features[i];
        if ((unsigned)f->kind > SPT_FEATURE_FIXEDLEN)
            return spt__err(SPT_EINVAL, "%s: features[%lld].kind = %d is not VARLEN, SPARSE or FIXEDLEN", fn,
                            (long long)i, (int)f->kind);
        if (!f->key) return spt__err(SPT_EINVAL, "%s: features[%lld].key is NULL", fn, (long long)i);
        if (list_of(f->dtype) < 0)
            return spt__err(SPT_EDTYPE,
                            "%s: feature \"%s\": dtype %s is not one an Example holds (int64, float32, string)", fn,
                            f->key, spt_dtype_name(f->dtype) ? spt_dtype_name(f->dtype) : "(invalid)");
        (*nk)++;
        if (f->kind == SPT_FEATURE_SPARSE) {
            if (f->rank < 1 || f->rank > SPT_MAX_RANK - 1 || !f->shape || !f->index_keys)
                return spt__err(SPT_EINVAL,
                                "%s: SparseFeature \"%s\" needs 1 to %d index keys with their sizes, got %lld", fn,
                                f->key, SPT_MAX_RANK - 1, (long long)f->rank);
            for (int64_t j = 0; j < f->rank; j++) {
                if (!f->index_keys[j])
                    return spt__err(SPT_EINVAL, "%s: SparseFeature \"%s\": index_keys[%lld] is NULL", fn, f->key,
                                    (long long)j);
                if (f->shape[j] < 0)
                    return spt__err(SPT_EINVAL, "%s: SparseFeature \"%s\": size[%lld] = %lld is negative", fn, f->key,
                                    (long long)j, (long long)f->shape[j]);
            }
            *nk += f->rank;
        }
    }
    return SPT_OK;
}

spt_status spt_parse_example(const spt_dense *serialized, const spt_feature *features, int64_t nfeatures,
                             spt_tensor **sparse_out, spt_dense **dense_out) {
    static const char fn[] = "spt_parse_example";
    spt_status st = SPT_OK;
    if (!sparse_out || !dense_out) return spt__err(SPT_EINVAL, "%s: sparse_out or dense_out is NULL", fn);
    if (nfeatures < 0) return spt__err(SPT_EINVAL, "%s: nfeatures = %lld is negative", fn, (long long)nfeatures);
    for (int64_t i = 0; i < nfeatures; i++) sparse_out[i] = NULL, dense_out[i] = NULL;
    if (!serialized || (nfeatures && !features)) return spt__err(SPT_EINVAL, "%s: serialized or features is NULL", fn);
    if (serialized->dtype != SPT_STRING)
        return spt__err(SPT_EDTYPE, "%s: serialized must hold strings, got %s", fn, spt_dtype_name(serialized->dtype));
    if (serialized->rank > 1)
        return spt__err(SPT_EINVAL, "%s: serialized must be a vector (or a scalar), got rank %lld", fn,
                        (long long)serialized->rank);
    const bool batched = serialized->rank == 1;
    const int64_t B = serialized->size;
    int64_t nk = 0;
    SPT__TRY(check_features(fn, features, nfeatures, &nk));
    keytab kt = {0};
    slot *slots = NULL;
    int64_t *kid = NULL, *vmap = NULL, V = 0;
    vfeat *vf = NULL;
    vpart *parts = NULL;
    int nth = 1;
    kt.cap = 16;
    while (kt.cap < 2 * nk) kt.cap *= 2;
    kt.key = spt__alloc_array(fn, nk ? nk : 1, 1, sizeof(char *), false, &st);
    kt.klen = kt.key ? spt__alloc_array(fn, nk ? nk : 1, 1, sizeof(size_t), false, &st) : NULL;
    kt.tab = kt.klen ? spt__alloc_array(fn, kt.cap, 1, sizeof(int64_t), false, &st) : NULL;
    kid = kt.tab ? spt__alloc_array(fn, nk ? nk : 1, 1, sizeof(int64_t), false, &st) : NULL;
    if (!kid) goto fail;
    for (int64_t i = 0; i < kt.cap; i++) kt.tab[i] = -1;
    for (int64_t i = 0, q = 0; i < nfeatures; i++) {
        kid[q++] = key_add(&kt, features[i].key);
        if (features[i].kind == SPT_FEATURE_SPARSE)
            for (int64_t j = 0; j < features[i].rank; j++) kid[q++] = key_add(&kt, features[i].index_keys[j]);
    }
    const int64_t K = kt.nkeys;
    slots = spt__alloc_array(fn, B ? B : 1, K ? K : 1, sizeof(slot), false, &st); /* each row cleared by its scan */
    vmap = slots ? spt__alloc_array(fn, nfeatures ? nfeatures : 1, 1, sizeof(int64_t), false, &st) : NULL;
    if (!vmap) goto fail;
    for (int64_t i = 0; i < nfeatures; i++) V += features[i].kind == SPT_FEATURE_VARLEN;
    vf = spt__alloc_array(fn, V ? V : 1, 1, sizeof(vfeat), false, &st);
    if (!vf) goto fail;
    for (int64_t i = 0, q = 0, v = 0; i < nfeatures; i++) {
        vmap[i] = -1;
        if (features[i].kind == SPT_FEATURE_VARLEN)
            vf[v] = (vfeat){kid[q], list_of(features[i].dtype), spt_dtype_size(features[i].dtype), NULL}, vmap[i] = v++;
        q += 1 + (features[i].kind == SPT_FEATURE_SPARSE ? features[i].rank : 0);
    }
    const spt_str *ex = serialized->data;
    int64_t bytes = 0;
    for (int64_t b = 0; b < B; b++) bytes += ex[b].len;
    nth = spt__threads_for(bytes / 8);
    /* at least 8 chunks a thread, of 64 to 1024 Examples: the last chunks of a pass, which one thread may
     * finish alone, stay short */
    chunks cs = {B, B / (8 * (int64_t)nth), 0};
    cs.ch = cs.ch < 64 ? 64 : cs.ch > 1024 ? 1024 : cs.ch;
    cs.n = B ? (B - 1) / cs.ch + 1 : 0;
    parts = spt__alloc_array(fn, cs.n ? cs.n : 1, V ? V : 1, sizeof(vpart), true, &st);
    if (!parts) goto fail;
    for (int64_t k = 0; k < cs.n * V; k++) parts[k].type_bad = parts[k].dec_bad = INT64_MAX;
    int64_t first_bad = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth) reduction(min : first_bad) if (nth > 1)
    for (int64_t k = 0; k < cs.n; k++) {
        int64_t lo, hi;
        chunk_range(&cs, k, &lo, &hi);
        scan_range(fn, ex, B, lo, hi, &kt, slots, vf, V, parts + k * V, &first_bad);
    }
    if (first_bad != INT64_MAX) { /* again on this thread, for the message */
        st = scan_example(fn, first_bad, &ex[first_bad], &kt, slots + first_bad * K);
        if (st == SPT_OK)
            st = spt__err(SPT_EINTERNAL, "%s: Example %lld failed to scan once only", fn, (long long)first_bad);
        goto fail;
    }
    if (V)
        SPT__CHECK(
            varlen_outputs(fn, features, nfeatures, vmap, slots, K, vf, parts, V, &cs, nth, batched, sparse_out));
    /* the errors in the order of the features */
    for (int64_t i = 0, q = 0; i < nfeatures; i++) {
        const spt_feature *f = &features[i];
        if (f->kind == SPT_FEATURE_VARLEN) SPT__CHECK(varlen_done(fn, slots, K, vf, parts, V, cs.n, vmap[i], f));
        else if (f->kind == SPT_FEATURE_FIXEDLEN)
            SPT__CHECK(fixed_out(fn, slots, K, kid[q], B, batched, f, &dense_out[i]));
        else SPT__CHECK(sparsefeat_out(fn, slots, K, kid + q, B, batched, f, &sparse_out[i]));
        q += 1 + (f->kind == SPT_FEATURE_SPARSE ? f->rank : 0);
    }
fail:
    if (st != SPT_OK)
        for (int64_t i = 0; i < nfeatures; i++) {
            spt_tensor_free(sparse_out[i]);
            spt_dense_free(dense_out[i]);
            sparse_out[i] = NULL, dense_out[i] = NULL;
        }
    spt__free(kt.key);
    spt__free(kt.klen);
    spt__free(kt.tab);
    spt__free(kid);
    spt__free(slots);
    spt__free(parts);
    spt__free(vmap);
    spt__free(vf);
    return st;
}

spt_status spt_example_describe(const void *data, size_t len, spt_example_key **keys, int64_t *n) {
    static const char fn[] = "spt_example_describe";
    if (!keys || !n) return spt__err(SPT_EINVAL, "%s: keys or n is NULL", fn);
    *keys = NULL;
    *n = 0;
    if (!data && len) return spt__err(SPT_EINVAL, "%s: data is NULL", fn);
    spt_example_key *out = NULL;
    int64_t cnt = 0, cap = 0;
    spt__pb r = {data, (const unsigned char *)data + len}, fs, e, fv;
    spt__pb_field f, g, h;
    const char *why = "wrong wire type";
    int k;
    while ((k = spt__pb_next(&r, &f, &why)) > 0) {
        if (f.num != 1) continue;
        if (f.wire != SPT__PB_LEN) goto bad;
        fs = (spt__pb){f.data, f.data + f.len};
        while ((k = spt__pb_next(&fs, &g, &why)) > 0) {
            if (g.num != 1) continue;
            if (g.wire != SPT__PB_LEN) goto bad;
            spt_example_key ek = {"", 0, false, SPT_INT64, 0};
            const unsigned char *val = NULL;
            size_t vlen = 0;
            e = (spt__pb){g.data, g.data + g.len};
            while ((k = spt__pb_next(&e, &h, &why)) > 0) {
                if (h.num == 1 && h.wire == SPT__PB_LEN) ek.key = (const char *)h.data, ek.key_len = (int64_t)h.len;
                else if (h.num == 2 && h.wire == SPT__PB_LEN) val = h.data, vlen = h.len;
            }
            if (k < 0) goto bad;
            int type = L_NONE;
            const unsigned char *lp = NULL;
            size_t ll = 0;
            fv = (spt__pb){val, val ? val + vlen : NULL};
            while (val && (k = spt__pb_next(&fv, &h, &why)) > 0)
                if (h.num >= 1 && h.num <= 3 && h.wire == SPT__PB_LEN) type = (int)h.num, lp = h.data, ll = h.len;
            if (val && k < 0) goto bad;
            if (type != L_NONE) {
                ek.has_list = true;
                ek.dtype = type == L_BYTES ? SPT_STRING : type == L_FLOAT ? SPT_FLOAT32 : SPT_INT64;
                if (!count_list(type, lp, ll, &ek.count, &why)) goto bad;
            }
            if (cnt == cap) {
                int64_t nc = cap ? 2 * cap : 16;
                spt_example_key *nk = spt__realloc(out, (size_t)nc * sizeof *nk);
                if (!nk) {
                    spt__free(out);
                    return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
                }
                out = nk, cap = nc;
            }
            out[cnt++] = ek;
        }
        if (k < 0) goto bad;
    }
    if (k < 0) goto bad;
    *keys = out;
    *n = cnt;
    return SPT_OK;
bad:
    spt__free(out);
    return spt__err(SPT_EPARSE, "%s: malformed Example: %s", fn, why);
}

/* ---- encoding ---------------------------------------------------------------------------------- */

/* The size of a list message of n values. */
static size_t list_body(spt_dtype dt, const void *values, const int64_t *pick, int64_t n, size_t *packed) {
    *packed = 0;
    if (dt == SPT_STRING) {
        size_t s = 0;
        for (int64_t i = 0; i < n; i++) {
            size_t l = (size_t)((const spt_str *)values)[pick ? pick[i] : i].len;
            s += 1 + spt__varint_size(l) + l;
        }
        return s;
    }
    if (n == 0) return 0;
    if (dt == SPT_FLOAT32) *packed = (size_t)n * 4;
    else
        for (int64_t i = 0; i < n; i++)
            *packed += spt__varint_size((uint64_t)((const int64_t *)values)[pick ? pick[i] : i]);
    return 1 + spt__varint_size(*packed) + *packed;
}

static void put_feature(spt__buf *w, const char *key, spt_dtype dt, const void *values, const int64_t *pick,
                        int64_t n) {
    size_t packed, body = list_body(dt, values, pick, n, &packed), klen = strlen(key);
    size_t feat = 1 + spt__varint_size(body) + body;
    size_t entry = 1 + spt__varint_size(klen) + klen + 1 + spt__varint_size(feat) + feat;
    spt__buf_tag(w, 1, SPT__PB_LEN); /* Features.feature map entry */
    spt__buf_varint(w, entry);
    spt__buf_tag(w, 1, SPT__PB_LEN);
    spt__buf_varint(w, klen);
    spt__buf_bytes(w, key, klen);
    spt__buf_tag(w, 2, SPT__PB_LEN);
    spt__buf_varint(w, feat);
    spt__buf_tag(w, (uint32_t)list_of(dt), SPT__PB_LEN);
    spt__buf_varint(w, body);
    if (dt == SPT_STRING) {
        for (int64_t i = 0; i < n; i++) {
            const spt_str *s = (const spt_str *)values + (pick ? pick[i] : i);
            spt__buf_tag(w, 1, SPT__PB_LEN);
            spt__buf_varint(w, (uint64_t)s->len);
            spt__buf_bytes(w, s->data, (size_t)s->len);
        }
    } else if (n) {
        spt__buf_tag(w, 1, SPT__PB_LEN);
        spt__buf_varint(w, packed);
        for (int64_t i = 0; i < n; i++) {
            int64_t k = pick ? pick[i] : i;
            if (dt == SPT_FLOAT32) spt__buf_bytes(w, (const float *)values + k, 4);
            else spt__buf_varint(w, (uint64_t)((const int64_t *)values)[k]);
        }
    }
}

/* Wrap the Features bytes [start, len) of w into Example{features}: the prefix is written after. */
static bool wrap_example(spt__buf *w, const spt__buf *feats) {
    spt__buf_tag(w, 1, SPT__PB_LEN);
    spt__buf_varint(w, feats->len);
    spt__buf_bytes(w, feats->b, feats->len);
    return w->ok && feats->ok;
}

spt_status spt_encode_example(const spt_example_feature *features, int64_t n, void **data, size_t *len) {
    static const char fn[] = "spt_encode_example";
    if (!data || !len) return spt__err(SPT_EINVAL, "%s: data or len is NULL", fn);
    *data = NULL;
    *len = 0;
    if (n < 0 || (n && !features)) return spt__err(SPT_EINVAL, "%s: bad feature count %lld", fn, (long long)n);
    for (int64_t i = 0; i < n; i++) {
        const spt_example_feature *f = &features[i];
        if (!f->key) return spt__err(SPT_EINVAL, "%s: features[%lld].key is NULL", fn, (long long)i);
        if (list_of(f->dtype) < 0)
            return spt__err(SPT_EDTYPE, "%s: feature \"%s\": an Example holds int64, float32 or string lists, not %s",
                            fn, f->key, spt_dtype_name(f->dtype) ? spt_dtype_name(f->dtype) : "(invalid)");
        if (f->n < 0 || (f->n && !f->values))
            return spt__err(SPT_EINVAL, "%s: feature \"%s\": bad value count %lld", fn, f->key, (long long)f->n);
        for (int64_t j = 0; j < i; j++)
            if (!strcmp(features[j].key, f->key)) return spt__err(SPT_EINVAL, "%s: key \"%s\" repeats", fn, f->key);
    }
    spt__buf feats = {.ok = true}, w = {.ok = true};
    for (int64_t i = 0; i < n; i++)
        put_feature(&feats, features[i].key, features[i].dtype, features[i].values, NULL, features[i].n);
    bool ok = wrap_example(&w, &feats);
    spt__free(feats.b);
    if (!ok) {
        spt__free(w.b);
        return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    *data = w.b ? (void *)w.b : spt__malloc(1);
    if (!*data) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    *len = w.len;
    return SPT_OK;
}

spt_status spt_encode_examples(const spt_tensor *t, const char *value_key, const char *const *index_keys,
                               spt_dense **out) {
    static const char fn[] = "spt_encode_examples";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t || !value_key) return spt__err(SPT_EINVAL, "%s: tensor or value_key is NULL", fn);
    if (t->rank < 2)
        return spt__err(SPT_EINVAL, "%s: the rank must be >= 2 (one Example per row), got %lld", fn,
                        (long long)t->rank);
    if (!index_keys && t->rank != 2)
        return spt__err(SPT_EINVAL, "%s: a rank-%lld tensor needs %lld index keys", fn, (long long)t->rank,
                        (long long)(t->rank - 1));
    if (list_of(t->dtype) < 0)
        return spt__err(SPT_EDTYPE, "%s: an Example holds int64, float32 or string values, not %s", fn,
                        spt_dtype_name(t->dtype));
    if (index_keys)
        for (int64_t d = 0; d < t->rank - 1; d++)
            if (!index_keys[d]) return spt__err(SPT_EINVAL, "%s: index_keys[%lld] is NULL", fn, (long long)d);
    SPT__TRY(spt__ensure_valid(fn, t));
    spt_tensor *s = NULL;
    spt_dense *d = NULL;
    int64_t *start = NULL, *col = NULL;
    spt__buf feats = {.ok = true}, w = {.ok = true};
    SPT__TRY(spt_reordered(t, NULL, &s)); /* row-major: each row's entries in order */
    const int64_t rows = t->shape[0], m = s->nnz, r = s->rank;
    SPT__CHECK(spt__tf_dense_out(fn, SPT_STRING, 1, &rows, &d));
    start = spt__alloc_array(fn, rows + 1, 1, sizeof(int64_t), true, &st);
    col = start ? spt__alloc_array(fn, m ? m : 1, 1, sizeof(int64_t), false, &st) : NULL;
    if (!col) goto fail;
    for (int64_t i = 0; i < m; i++) start[s->indices[i * r] + 1]++;
    for (int64_t b = 0; b < rows; b++) start[b + 1] += start[b];
    for (int64_t b = 0; b < rows; b++) {
        const int64_t lo = start[b], c = start[b + 1] - lo;
        feats.len = w.len = 0;
        if (index_keys)
            for (int64_t dd = 1; dd < r; dd++) {
                for (int64_t i = 0; i < c; i++) col[i] = s->indices[(lo + i) * r + dd];
                put_feature(&feats, index_keys[dd - 1], SPT_INT64, col, NULL, c);
            }
        put_feature(&feats, value_key, s->dtype, (const char *)s->values + (size_t)lo * spt_dtype_size(s->dtype), NULL,
                    c);
        if (!wrap_example(&w, &feats)) {
            st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
            goto fail;
        }
        SPT__CHECK(spt_dense_set_string(d, b, (const char *)w.b, (int64_t)w.len));
    }
    *out = d;
    d = NULL;
fail:
    spt_tensor_free(s);
    spt_dense_free(d);
    spt__free(start);
    spt__free(col);
    spt__free(feats.b);
    spt__free(w.b);
    return st;
}
