/* SPDX-License-Identifier: Apache-2.0 */
/* concat.c -- tf.sparse.concat(axis, inputs, expand_nonconcat_dim): output in row-major order.
 *
 * Every input is viewed as a stream in row-major order: inputs known sorted that way are read as they
 * are, the others get a sorting permutation (the key engine of keys.h; an input whose entries are
 * already in order costs one pass). After offsetting the concat coordinate, the entries that share the
 * index prefix (dims before the axis) come input after input, so the output is a k-way merge of runs
 * keyed by that prefix: a plain copy with offsets for axis 0, O(M log k) otherwise, never a re-sort. */
#include "ops/layout/layout_internal.h"
#include "sort/keys.h"

#include "core/stream.h"

typedef struct {
    const spt_tensor *t;
    int64_t *perm; /* NULL: already row-major sorted */
    int64_t pos;
    int64_t end;         /* one past the last entry to merge */
    int64_t off;         /* offset of the concat coordinate */
    uint64_t key;        /* prefix key of the head entry (linear keys) */
    const int64_t *head; /* its index row (prefixes past 64 bits: compared as rows) */
} stream;

static const int64_t *row_of(const stream *s, int64_t k) {
    int64_t i = s->perm ? s->perm[k] : k;
    return s->t->indices + i * s->t->rank;
}

/* wa < 0: the linear prefix keys order the streams; else the first wa index columns of the heads. */
static bool less(const stream *s, int64_t i, int64_t j, int64_t wa) {
    if (wa >= 0) {
        int c = spt__cmp_rows(s[i].head, s[j].head, wa, NULL);
        return c < 0 || (c == 0 && i < j);
    }
    return s[i].key < s[j].key || (s[i].key == s[j].key && i < j);
}

static void sift_down(const stream *s, int64_t *heap, int64_t n, int64_t k, int64_t wa) {
    for (;;) {
        int64_t c = 2 * k + 1;
        if (c >= n) return;
        if (c + 1 < n && less(s, heap[c + 1], heap[c], wa)) c++;
        if (!less(s, heap[c], heap[k], wa)) return;
        int64_t tmp = heap[c];
        heap[c] = heap[k];
        heap[k] = tmp;
        k = c;
    }
}

/* Copy entries [from, from+cnt) of stream s to output position pos, offsetting column a. A short run (the
 * common case of a k-way merge by prefix: a few entries per row) is copied in one fused loop; only a long
 * run is worth an OpenMP region for the offsets. */
static void copy_run(spt_tensor *t, int64_t pos, const stream *s, int64_t from, int64_t cnt, int64_t a, size_t es) {
    const int64_t r = t->rank;
    int64_t *dst = t->indices + pos * r;
    const int nth = spt__threads_for(cnt);
    if (!s->perm && nth <= 1) {
        const int64_t *src = s->t->indices + from * r, off = s->off;
        for (int64_t k = 0; k < cnt; k++, dst += r, src += r) {
            for (int64_t j = 0; j < r; j++) dst[j] = src[j];
            dst[a] += off;
        }
        memcpy((char *)t->values + (size_t)pos * es, (const char *)s->t->values + (size_t)from * es, (size_t)cnt * es);
        return;
    }
    if (!s->perm) {
        memcpy(dst, s->t->indices + from * r, (size_t)cnt * (size_t)r * sizeof(int64_t));
        memcpy((char *)t->values + (size_t)pos * es, (const char *)s->t->values + (size_t)from * es, (size_t)cnt * es);
    } else {
        for (int64_t k = 0; k < cnt; k++) {
            const int64_t *src = s->t->indices + s->perm[from + k] * r;
            for (int64_t j = 0; j < r; j++) dst[k * r + j] = src[j];
        }
        spt__layout_gather((char *)t->values + (size_t)pos * es, s->t->values, es, s->perm + from, cnt);
    }
    if (s->off) {
        if (nth <= 1) {
            for (int64_t k = 0; k < cnt; k++) dst[k * r + a] += s->off;
        } else {
#pragma omp parallel for schedule(static) num_threads(nth)
            for (int64_t k = 0; k < cnt; k++) dst[k * r + a] += s->off;
        }
    }
}

/* The row loop of copy_prefix_run for rank R (a constant in the rank-2 and rank-3 instances, so the
 * row copy unrolls): rows from src while their prefix is head's, to dst with column a offset. Returns
 * the count. */
static inline __attribute__((always_inline)) int64_t prefix_rows(int64_t *dst, const int64_t *src, int64_t cnt_max,
                                                                 int64_t a, int64_t off, const int64_t R) {
    const int64_t *head = src;
    int64_t k = 0;
    if (a == 1) { /* the prefix is the first coordinate */
        const int64_t h0 = head[0];
        for (; k < cnt_max && src[0] == h0; k++, src += R, dst += R) {
            spt__stream_put64(dst, (uint64_t)src[0]);
            spt__stream_put64(dst + 1, (uint64_t)(src[1] + off));
            for (int64_t d = 2; d < R; d++) spt__stream_put64(dst + d, (uint64_t)src[d]);
        }
    } else {
        for (; k < cnt_max && spt__cmp_rows(src, head, a, NULL) == 0; k++, src += R, dst += R) {
            memcpy(dst, src, (size_t)R * sizeof(int64_t));
            dst[a] += off;
        }
    }
    return k;
}

/* Copy the run of stream x from entry i (at most up to ie) whose prefix (dims before a) is that of entry
 * i, to output position pos with the concat coordinate offset: one pass that reads each row once.
 * Returns the run's length. */
static int64_t copy_prefix_run(spt_tensor *t, int64_t pos, const stream *x, int64_t i, int64_t ie, int64_t a,
                               size_t es) {
    const int64_t r = t->rank;
    const int64_t *src = x->t->indices + i * r;
    int64_t *dst = t->indices + pos * r;
    int64_t cnt;
    switch (r) {
    case 2: cnt = prefix_rows(dst, src, ie - i, a, x->off, 2); break;
    case 3: cnt = prefix_rows(dst, src, ie - i, a, x->off, 3); break;
    default: cnt = prefix_rows(dst, src, ie - i, a, x->off, r); break;
    }
    char *dv = (char *)t->values + (size_t)pos * es;
    const char *sv = (const char *)x->t->values + (size_t)i * es;
    if (es == 8 && cnt <= 16) { /* a short run: no call */
        spt__stream_copy8(dv, sv, cnt);
    } else {
        memcpy(dv, sv, (size_t)cnt * es);
    }
    return cnt;
}

/* The entry-at-a-time merge of merge_two for axis 1 (the prefix is the first coordinate), rank R (2 or 3,
 * a constant in each instance) and 8-byte values: each step compares the two heads' first coordinates and
 * copies one entry from the smaller (x's on a tie), without a branch on the comparison, so that runs of
 * one or two entries (a 2-D tensor with about one entry per row) cost no mispredicted jump each. Steps
 * are taken in batches that cannot exhaust either stream. Returns the output position after the merged
 * entries; *pi, *pj advance past them (one of them reaches its end). */
static inline __attribute__((always_inline)) int64_t
merge_entries(spt_tensor *t, int64_t pos, const stream *x, const stream *y, int64_t *pi, int64_t *pj, const int64_t R) {
    const int64_t *xi = x->t->indices, *yi = y->t->indices, ie = x->end, je = y->end;
    const uint64_t *xv = x->t->values, *yv = y->t->values;
    const int64_t xo = x->off, yo = y->off;
    int64_t i = *pi, j = *pj, *dst = t->indices + pos * R;
    uint64_t *dv = (uint64_t *)t->values + pos;
    while (i < ie && j < je) {
        const int64_t m = ie - i < je - j ? ie - i : je - j;
        for (int64_t k = 0; k < m; k++) {
            const int64_t *ra = xi + i * R, *rb = yi + j * R;
            const bool ta = ra[0] <= rb[0];
            /* selections by mask (a compiler turns `ta ? :` into a jump here, mispredicted half the time) */
            const uint64_t mask = (uint64_t)0 - (uint64_t)ta;
            const int64_t *src = (const int64_t *)(((uintptr_t)ra & mask) | ((uintptr_t)rb & ~mask));
            const int64_t off = (int64_t)(((uint64_t)xo & mask) | ((uint64_t)yo & ~mask));
            const uint64_t v = (xv[i] & mask) | (yv[j] & ~mask);
            spt__stream_put64(dst, (uint64_t)src[0]);
            spt__stream_put64(dst + 1, (uint64_t)(src[1] + off));
            if (R == 3) spt__stream_put64(dst + 2, (uint64_t)src[2]);
            spt__stream_put64(dv, v);
            dst += R;
            dv++;
            i += ta;
            j += !ta;
        }
    }
    pos += (i - *pi) + (j - *pj);
    *pi = i;
    *pj = j;
    return pos;
}

/* Runs this short or shorter on average (entries of both streams per first-coordinate value) take
 * merge_entries; longer ones the run-at-a-time loop of merge_two. */
#define CONCAT_SHORT_RUNS 12

/* The merge of merge_runs for two streams in row-major order (no permutation) whose prefix keys fit in
 * 64 bits: two cursors instead of a heap, each run copied while it is found. Same output. */
static void merge_two(spt_tensor *t, int64_t pos, const stream *s, int64_t a, const spt__keyplan *pp, size_t es) {
    const stream *x = &s[0], *y = &s[1];
    int64_t i = x->pos, j = y->pos;
    const int64_t ie = x->end, je = y->end, r = t->rank;
    if (a == 1 && es == 8 && (r == 2 || r == 3) && i < ie && j < je) {
        const int64_t *xi = x->t->indices, *yi = y->t->indices;
        const int64_t lo = xi[i * r] < yi[j * r] ? xi[i * r] : yi[j * r];
        const int64_t hi = xi[(ie - 1) * r] > yi[(je - 1) * r] ? xi[(ie - 1) * r] : yi[(je - 1) * r];
        if (((ie - i) + (je - j)) / CONCAT_SHORT_RUNS <= hi - lo) { /* entries < CONCAT_SHORT_RUNS x values */
            pos = r == 2 ? merge_entries(t, pos, x, y, &i, &j, 2) : merge_entries(t, pos, x, y, &i, &j, 3);
            if (i < ie) copy_run(t, pos, x, i, ie - i, a, es);
            else if (j < je) copy_run(t, pos, y, j, je - j, a, es);
            return;
        }
    }
    if (i < ie && j < je) {
        uint64_t ka = spt__keyplan_linear(pp, x->t->indices + i * r),
                 kb = spt__keyplan_linear(pp, y->t->indices + j * r);
        for (;;) {
            if (ka <= kb) { /* ties: the lower input number first */
                const int64_t c = copy_prefix_run(t, pos, x, i, ie, a, es);
                pos += c;
                i += c;
                if (i >= ie) break;
                ka = spt__keyplan_linear(pp, x->t->indices + i * r);
            } else {
                const int64_t c = copy_prefix_run(t, pos, y, j, je, a, es);
                pos += c;
                j += c;
                if (j >= je) break;
                kb = spt__keyplan_linear(pp, y->t->indices + j * r);
            }
        }
    }
    if (i < ie) copy_run(t, pos, x, i, ie - i, a, es);
    else if (j < je) copy_run(t, pos, y, j, je - j, a, es);
}

/* k-way merge by prefix key (dims before a) of the streams' entries [pos, end) into t from position pos;
 * ties between streams go to the lower input number. */
static void merge_runs(spt_tensor *t, int64_t pos, stream *s, int64_t n, int64_t *heap, int64_t a,
                       const spt__keyplan *pp, size_t es) {
    const bool wide = pp->kind != SPT__KEY64;
    if (n == 2 && !wide && !s[0].perm && !s[1].perm) {
        merge_two(t, pos, s, a, pp, es);
        return;
    }
    int64_t hn = 0;
    const int64_t wa = wide ? a : -1;
    for (int64_t i = 0; i < n; i++)
        if (s[i].end > s[i].pos) {
            s[i].head = row_of(&s[i], s[i].pos);
            if (!wide) s[i].key = spt__keyplan_linear(pp, s[i].head);
            heap[hn++] = i;
        }
    for (int64_t k = hn / 2 - 1; k >= 0; k--) sift_down(s, heap, hn, k, wa);
    while (hn > 0) {
        stream *x = &s[heap[0]];
        const int64_t m = x->end, from = x->pos;
        const int64_t *head = row_of(x, from);
        int64_t end = from + 1;
        if (hn == 1) end = m; /* the last stream: the rest in one run */
        else
            while (end < m && spt__cmp_rows(row_of(x, end), head, a, NULL) == 0) end++;
        copy_run(t, pos, x, from, end - from, a, es);
        pos += end - from;
        x->pos = end;
        if (end < m) {
            x->head = row_of(x, end);
            if (!wide) x->key = spt__keyplan_linear(pp, x->head);
        } else {
            heap[0] = heap[--hn];
        }
        sift_down(s, heap, hn, 0, wa);
    }
}

/* First position in the stream's entries whose prefix (dims before a) is >= that of row `split`:
 * compared as linear keys, or as index rows when the prefix is past 64 bits. */
typedef struct {
    const stream *x;
    const int64_t *split;
    int64_t a;
    const spt__keyplan *pp;
    bool wide;
    uint64_t key;
} split_target;
static bool split_below(const void *ctx, int64_t i) {
    const split_target *t = ctx;
    const int64_t *row = row_of(t->x, i);
    return t->wide ? spt__cmp_rows(row, t->split, t->a, NULL) < 0 : spt__keyplan_linear(t->pp, row) < t->key;
}
static int64_t lower_bound_key(const stream *x, const int64_t *split, int64_t a, const spt__keyplan *pp) {
    const bool wide = pp->kind != SPT__KEY64;
    const split_target t = {x, split, a, pp, wide, wide ? 0 : spt__keyplan_linear(pp, split)};
    return spt__lower_bound(0, x->t->nnz, split_below, &t);
}

/* The output shape (input 0's, the concat dim a summed, the other dims equal or, expanded, their largest)
 * and the total entry count, checking every input's rank and dtype against input 0's in input order. */
spt_status spt__concat_args(const char *fn, const spt_tensor *const *inputs, int64_t n, spt_tensor **out) {
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (n < 1 || !inputs) return spt__err(SPT_EINVAL, "%s: need at least one input, got %lld", fn, (long long)n);
    for (int64_t i = 0; i < n; i++)
        if (!inputs[i]) return spt__err(SPT_EINVAL, "%s: input %lld is NULL", fn, (long long)i);
    return SPT_OK;
}

static spt_status concat_shape(const char *fn, const spt_tensor *const *inputs, int64_t n, int64_t a,
                               bool expand_nonconcat_dim, int64_t *shape, int64_t *ptotal) {
    const spt_tensor *t0 = inputs[0];
    const int64_t r = t0->rank;
    int64_t total = 0;
    for (int64_t d = 0; d < r; d++) shape[d] = t0->shape[d];
    shape[a] = 0;
    for (int64_t i = 0; i < n; i++) {
        const spt_tensor *x = inputs[i];
        if (x->rank != r)
            return spt__err(SPT_EINVAL,
                            "%s: Ranks of all input tensors must match: expected %lld but got %lld at position %lld",
                            fn, (long long)r, (long long)x->rank, (long long)i);
        if (x->dtype != t0->dtype)
            return spt__err(SPT_EDTYPE, "%s: input %lld has dtype %s, input 0 has %s", fn, (long long)i,
                            spt_dtype_name(x->dtype), spt_dtype_name(t0->dtype));
        for (int64_t d = 0; d < r; d++) {
            if (d == a) continue;
            if (expand_nonconcat_dim) {
                if (x->shape[d] > shape[d]) shape[d] = x->shape[d];
            } else if (x->shape[d] != shape[d]) {
                return spt__err(
                    SPT_EINVAL,
                    "%s: Input shapes must match: expected %lld for dimension %lld but got %lld at position %lld", fn,
                    (long long)shape[d], (long long)d, (long long)x->shape[d], (long long)i);
            }
        }
        if (spt__add_i64(shape[a], x->shape[a], &shape[a]))
            return spt__err(SPT_EOVERFLOW, "%s: the sum of the concat dim %lld overflows int64", fn, (long long)a);
        if (spt__add_i64(total, x->nnz, &total))
            return spt__err(SPT_EOVERFLOW, "%s: the total number of entries overflows int64", fn);
    }
    *ptotal = total;
    return SPT_OK;
}

spt_status spt_concat(const spt_tensor *const *inputs, int64_t n, int64_t axis, bool expand_nonconcat_dim,
                      spt_tensor **out) {
    static const char fn[] = "spt_concat";
    spt_status st = SPT_OK;
    spt_tensor *t = NULL;
    stream *s = NULL;
    int64_t *heap = NULL;
    stream *cs = NULL;
    SPT__TRY(spt__concat_args(fn, inputs, n, out));
    const spt_tensor *t0 = inputs[0];
    const int64_t r = t0->rank;
    int64_t a;
    SPT__TRY(spt__layout_axis(fn, "Concat dimension", axis, r, &a));
    int64_t shape[SPT_MAX_RANK], total = 0;
    SPT__TRY(concat_shape(fn, inputs, n, a, expand_nonconcat_dim, shape, &total));
    s = spt__alloc_array(fn, n, 1, sizeof *s, true, &st);
    if (!s) return st;
    bool unique = true;
    int64_t off = 0;
    for (int64_t i = 0; i < n; i++) {
        const spt_tensor *x = inputs[i];
        s[i].t = x;
        s[i].off = off;
        off += x->shape[a];
        if ((x->flags & SPT__F_SORTED) && spt_tensor_is_row_major(x, true)) {
            SPT__CHECK(spt__ensure_valid(fn, x));
            if (!(x->flags & SPT__F_UNIQUE)) unique = false;
            continue;
        }
        /* not known row-major sorted: the key engine's sort (validating the indices), only if needed */
        bool uq, ordinal;
        spt__keyplan kp;
        spt__keyplan_init(&kp, x->shape, NULL, r);
        SPT__CHECK(spt__key_sort(fn, x, &kp, NULL, &s[i].perm, &uq, &ordinal));
        if (!uq) unique = false;
    }
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t0->dtype, r, shape, total, NULL, &t));
    const size_t es = spt_dtype_size(t0->dtype);
    int64_t pos = 0;
    if (a == 0) {
        for (int64_t i = 0; i < n; i++) {
            copy_run(t, pos, &s[i], 0, s[i].t->nnz, a, es);
            pos += s[i].t->nnz;
        }
    } else if (total > 0) {
        /* fixed chunks of the prefix-key range (split keys from the longest input), each merged on its
         * own: a key's entries never straddle two chunks, so the output is the serial merge's */
        int64_t big = 0;
        spt__keyplan pp; /* the prefix (dims before the axis) of the output shape */
        spt__keyplan_init(&pp, shape, NULL, a);
        for (int64_t i = 1; i < n; i++)
            if (s[i].t->nnz > s[big].t->nnz) big = i;
        int nch = spt__threads_for(total * r);
        if (nch > 64) nch = 64;
        if (nch < 1) nch = 1;
        /* each chunk's streams and heap padded apart (>= 128 bytes), so that two threads never update
         * one cache line: a run of one entry updates them for every entry */
        int64_t start[65], sstride, hstride;
        if (spt__add_i64(n, 4, &sstride) || spt__add_i64(n, 16, &hstride)) {
            st = spt__err(SPT_EOVERFLOW, "%s: %lld inputs overflow", fn, (long long)n);
            goto fail;
        }
        cs = spt__alloc_array(fn, sstride, nch, sizeof *cs, false, &st);
        if (!cs) goto fail;
        heap = spt__alloc_array(fn, hstride, nch, sizeof(int64_t), false, &st);
        if (!heap) goto fail;
        const int64_t nb = s[big].t->nnz;
        for (int c = 0; c < nch; c++) {
            stream *cc = cs + (int64_t)c * sstride;
            start[c] = 0;
            for (int64_t i = 0; i < n; i++) {
                cc[i] = s[i];
                cc[i].pos = c == 0 ? 0 : cs[(int64_t)(c - 1) * sstride + i].end;
                if (c == nch - 1) cc[i].end = s[i].t->nnz;
                else {
                    const int64_t *split = row_of(&s[big], nb / nch * (c + 1) + nb % nch * (c + 1) / nch);
                    cc[i].end = lower_bound_key(&s[i], split, a, &pp);
                    if (cc[i].end < cc[i].pos) cc[i].end = cc[i].pos;
                }
                start[c] += cc[i].pos;
            }
        }
#pragma omp parallel for schedule(static, 1) num_threads(nch) if (nch > 1)
        for (int c = 0; c < nch; c++) {
            merge_runs(t, start[c], cs + (int64_t)c * sstride, n, heap + (int64_t)c * hstride, a, &pp, es);
            spt__stream_fence(); /* the streaming stores of prefix_rows */
        }
    }
    SPT__CHECK(spt__layout_own_strings(t));
    spt__set_row_major(t, SPT__F_VALID | SPT__F_SORTED | (unique ? SPT__F_UNIQUE : 0u));
    *out = t;
    t = NULL;
fail:
    spt_tensor_free(t);
    spt__free(heap);
    spt__free(cs);
    if (s)
        for (int64_t i = 0; i < n; i++) spt__free(s[i].perm);
    spt__free(s);
    return st;
}
