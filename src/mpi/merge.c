/* SPDX-License-Identifier: Apache-2.0 */
/* merge.c -- the P-way merge of sorted runs behind every exchange: runs already in sequence are copied,
 * two runs take a plain two-way merge, more take a heap of run heads, and more than SPT__MPI_MERGE_MAX
 * runs are merged in groups. Entries are compared by their index rows through the key plan (any shape);
 * the common rank-3, 8-byte-value case with 64-bit keys keeps an unrolled two-way merge on linear keys. */
#include "priv/mpi_priv.h"

typedef spt__mpi_run run;

static inline const int64_t *row_of(const run *u, int64_t i, int64_t r) { return u->ix + i * r; }

/* Append entry i of run u to o at w. */
static inline void put(spt_tensor *o, int64_t w, const run *u, int64_t i, int64_t r, size_t es) {
    int64_t *d = o->indices + w * r;
    const int64_t *sr = u->ix + i * r;
    for (int64_t j = 0; j < r; j++) d[j] = sr[j];
    if (es == 8) memcpy((char *)o->values + (size_t)w * 8, u->v + (size_t)i * 8, 8);
    else memcpy((char *)o->values + (size_t)w * es, u->v + (size_t)i * es, es);
}

/* Copy entries [from, u->n) of run u to o at w. */
static inline void put_rest(spt_tensor *o, int64_t w, const run *u, int64_t from, int64_t r, size_t es) {
    int64_t m = u->n - from;
    if (m <= 0) return;
    if (r) memcpy(o->indices + w * r, u->ix + from * r, (size_t)(m * r) * sizeof(int64_t));
    memcpy((char *)o->values + (size_t)w * es, u->v + (size_t)from * es, (size_t)m * es);
}

/* Each non-empty run's first key >= the previous non-empty run's last. */
static bool in_sequence(const spt__keyplan *kp, const run *runs, int nr, int64_t r) {
    for (int q = 0, p = -1; q < nr; q++) {
        if (!runs[q].n) continue;
        if (p >= 0 && spt__keyplan_cmp(kp, row_of(&runs[p], runs[p].n - 1, r), row_of(&runs[q], 0, r)) > 0)
            return false;
        p = q;
    }
    return true;
}

/* Runs in sequence: copied one after the other; with `add` (each run's keys distinct) a run that starts
 * with the key the previous one ended with adds that entry into it. */
static int64_t merge_sequence(const spt__keyplan *kp, const run *runs, int nr, spt_tensor *o, spt__mpi_add_fn add) {
    const int64_t r = o->rank;
    const size_t es = spt_dtype_size(o->dtype);
    int64_t w = 0;
    for (int q = 0, p = -1; q < nr; q++) {
        const run *u = &runs[q];
        if (!u->n) continue;
        int64_t from = 0;
        if (add && p >= 0 && spt__keyplan_cmp(kp, row_of(&runs[p], runs[p].n - 1, r), row_of(u, 0, r)) == 0) {
            add(o->values, w - 1, u->v, 0);
            from = 1;
        }
        put_rest(o, w, u, from, r, es);
        w += u->n - from;
        p = q;
    }
    return w;
}

/* Two non-empty runs A (the lower rank) and B, no `add`: ties to A. */
static int64_t merge_two(const spt__keyplan *kp, const run *A, const run *B, spt_tensor *o) {
    const int64_t r = o->rank;
    const size_t es = spt_dtype_size(o->dtype);
    int64_t i = 0, j = 0, w = 0;
    if (kp->kind == SPT__KEY64 && r == 3 && es == 8) { /* the common case, unrolled on linear keys */
        uint64_t mul[3];
        int64_t od[3];
        for (int64_t d = 2, m = 1; d >= 0; d--) { /* volume <= 2^64: no product below the top wraps */
            mul[d] = (uint64_t)m;
            od[d] = kp->dims[d];
            m = (int64_t)((uint64_t)m * (uint64_t)kp->size[d]);
        }
#define KEY3(row) ((uint64_t)(row)[od[0]] * mul[0] + (uint64_t)(row)[od[1]] * mul[1] + (uint64_t)(row)[od[2]] * mul[2])
        const int64_t *ai = A->ix, *bi = B->ix;
        const uint64_t *av = (const uint64_t *)A->v, *bv = (const uint64_t *)B->v;
        int64_t *oi = o->indices;
        uint64_t *ov = (uint64_t *)o->values;
        uint64_t ka = KEY3(ai), kb = KEY3(bi);
        for (;;) {
            if (kb < ka) {
                const int64_t *x = bi + j * 3;
                oi[w * 3] = x[0];
                oi[w * 3 + 1] = x[1];
                oi[w * 3 + 2] = x[2];
                ov[w++] = bv[j];
                if (++j == B->n) break;
                kb = KEY3(bi + j * 3);
            } else {
                const int64_t *x = ai + i * 3;
                oi[w * 3] = x[0];
                oi[w * 3 + 1] = x[1];
                oi[w * 3 + 2] = x[2];
                ov[w++] = av[i];
                if (++i == A->n) break;
                ka = KEY3(ai + i * 3);
            }
        }
#undef KEY3
    } else {
        for (;;) {
            if (spt__keyplan_cmp(kp, row_of(B, j, r), row_of(A, i, r)) < 0) {
                put(o, w++, B, j, r, es);
                if (++j == B->n) break;
            } else {
                put(o, w++, A, i, r, es);
                if (++i == A->n) break;
            }
        }
    }
    const run *u = i < A->n ? A : B;
    int64_t from = i < A->n ? i : j;
    put_rest(o, w, u, from, r, es);
    return w + u->n - from;
}

/* Any number of runs (at most SPT__MPI_MERGE_MAX): a binary heap of run heads by (key, run); the
 * heads' linear keys cached when the shape's key fits 64 bits, else their rows compared. */
static int64_t merge_heap(const spt__keyplan *kp, const run *runs, int nr, spt_tensor *o, spt__mpi_add_fn add,
                          bool *unique) {
    const int64_t r = o->rank;
    const size_t es = spt_dtype_size(o->dtype);
    const bool k64 = kp->kind == SPT__KEY64;
    int heap[SPT__MPI_MERGE_MAX], hn = 0;
    run cur[SPT__MPI_MERGE_MAX];
    uint64_t hk[SPT__MPI_MERGE_MAX], last = 0;
    int64_t w = 0;
    bool uniq = true;
    for (int q = 0; q < nr; q++) {
        cur[q] = runs[q];
        cur[q].at = 0;
    }
#define HEAD(q) row_of(&cur[q], cur[q].at, r)
#define LESS(a, b)                                                                                                     \
    (k64 ? hk[a] < hk[b] || (hk[a] == hk[b] && (a) < (b))                                                              \
         : (cmp_ = spt__keyplan_cmp(kp, HEAD(a), HEAD(b)), cmp_ < 0 || (cmp_ == 0 && (a) < (b))))
    int cmp_;
    for (int q = 0; q < nr; q++) {
        if (!cur[q].n) continue;
        if (k64) hk[q] = spt__keyplan_linear(kp, HEAD(q));
        int c = hn++;
        heap[c] = q;
        while (c > 0 && LESS(heap[c], heap[(c - 1) / 2])) {
            int t = heap[c];
            heap[c] = heap[(c - 1) / 2];
            heap[(c - 1) / 2] = t;
            c = (c - 1) / 2;
        }
    }
    while (hn > 0) {
        int q = heap[0];
        run *u = &cur[q];
        for (;;) {
            /* equal to the last entry written: summed into it (add) or a repeated key */
            bool same = w > 0 && (k64 ? hk[q] == last : spt__keyplan_cmp(kp, o->indices + (w - 1) * r, HEAD(q)) == 0);
            if (k64) last = hk[q];
            if (same && add) add(o->values, w - 1, u->v, u->at);
            else put(o, w++, u, u->at, r, es);
            if (same && !add) uniq = false;
            if (++u->at == u->n) break;
            if (k64) hk[q] = spt__keyplan_linear(kp, HEAD(q));
            if (hn > 1) break; /* (the last run: the rest in one go) */
        }
        if (u->at == u->n) heap[0] = heap[--hn];
        for (int c = 0;;) { /* sift down */
            int l = 2 * c + 1, m = c;
            if (l < hn && LESS(heap[l], heap[m])) m = l;
            if (l + 1 < hn && LESS(heap[l + 1], heap[m])) m = l + 1;
            if (m == c) break;
            int t = heap[c];
            heap[c] = heap[m];
            heap[m] = t;
            c = m;
        }
    }
#undef LESS
#undef HEAD
    *unique = uniq;
    return w;
}

spt_status spt__mpi_merge(const char *fn, const spt__keyplan *kp, const run *runs, int nr, spt_tensor *o,
                          spt__mpi_add_fn add, int64_t *written, bool *unique) {
    const int64_t r = o->rank;
    if (nr <= SPT__MPI_MERGE_MAX) {
        int ra = -1, rb = -1, ne = 0;
        for (int q = 0; q < nr; q++)
            if (runs[q].n) {
                if (ra < 0) ra = q;
                else rb = q;
                ne++;
            }
        if (in_sequence(kp, runs, nr, r)) {
            *written = merge_sequence(kp, runs, nr, o, add);
            *unique = add != NULL; /* (without `add` not tracked) */
        } else if (ne == 2 && !add) {
            *written = merge_two(kp, &runs[ra], &runs[rb], o);
            *unique = false; /* (not tracked) */
        } else {
            *written = merge_heap(kp, runs, nr, o, add, unique);
        }
        return SPT_OK;
    }
    /* groups of SPT__MPI_MERGE_MAX runs merged into scratch tensors, then those merged */
    spt_status st = SPT_OK;
    int ng = (nr + SPT__MPI_MERGE_MAX - 1) / SPT__MPI_MERGE_MAX;
    spt_tensor **tmp = spt__calloc((size_t)ng, sizeof *tmp);
    run *gr = spt__calloc((size_t)ng, sizeof *gr);
    if (!tmp || !gr) {
        st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        goto fail;
    }
    for (int g = 0; g < ng; g++) {
        int a = g * SPT__MPI_MERGE_MAX, b = a + SPT__MPI_MERGE_MAX < nr ? a + SPT__MPI_MERGE_MAX : nr;
        int64_t tot = 0;
        for (int q = a; q < b; q++) tot += runs[q].n;
        SPT__CHECK(spt__tensor_alloc_uninit(fn, o->dtype, o->rank, o->shape, tot, NULL, &tmp[g]));
        bool u;
        int64_t m = 0;
        SPT__CHECK(spt__mpi_merge(fn, kp, runs + a, b - a, tmp[g], add, &m, &u));
        gr[g] = (run){tmp[g]->indices, tmp[g]->values, m, 0};
    }
    SPT__CHECK(spt__mpi_merge(fn, kp, gr, ng, o, add, written, unique));
fail:
    if (tmp)
        for (int g = 0; g < ng; g++) spt_tensor_free(tmp[g]);
    spt__free(tmp);
    spt__free(gr);
    return st;
}
