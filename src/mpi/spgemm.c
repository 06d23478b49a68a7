/* SPDX-License-Identifier: Apache-2.0 */
/* spgemm.c -- distributed sparse x sparse product (rank 2 and batched rank 3). A is sorted by the rows
 * of op(A) and cut at row boundaries (no row on two ranks); B is sorted by the rows of op(B); each rank
 * asks the owners of the rows of op(B) its entries read for exactly those rows (one exchange of row
 * keys, one of entries) and runs the serial spt_sparse_sparse_matmul on what it holds. A row of the
 * result depends only on its row of op(A) and the rows of op(B) it reads, each seen in the same order
 * as the serial op sees them, so the gathered result is the serial result byte for byte. */
#include "priv/mpi_priv.h"

#include <stdlib.h>

/* A row key: (batch, row) -- batch 0 for rank 2. */
typedef struct rkey {
    int64_t b, r;
} rkey;

static int rkey_cmp(const rkey *x, const rkey *y) {
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}

static int rkey_qcmp(const void *x, const void *y) { return rkey_cmp(x, y); }

/* The key of entry i of t read from dim `d` (and the batch dim 0 for rank 3). */
static rkey key_at(const spt_tensor *t, int64_t i, int64_t d) {
    const int64_t *row = t->indices + i * t->rank;
    return (rkey){t->rank == 3 ? row[0] : 0, row[d]};
}

/* First entry in [lo, hi) of t (sorted by its keys in dim d) whose key is > x (upper) or >= x. */
static int64_t key_bound(const spt_tensor *t, int64_t d, int64_t lo, int64_t hi, const rkey *x, bool upper) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        rkey k = key_at(t, mid, d);
        int c = rkey_cmp(&k, x);
        if (c < 0 || (upper && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Every rank's (count, first key, last key) of t sorted by its keys in dim d: info[5q .. 5q + 5). */
static spt_status piece_keys(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, int64_t d, int64_t *info) {
    int64_t mine[5] = {t->nnz, 0, 0, 0, 0};
    if (t->nnz > 0) {
        rkey f = key_at(t, 0, d), l = key_at(t, t->nnz - 1, d);
        mine[1] = f.b, mine[2] = f.r, mine[3] = l.b, mine[4] = l.r;
    }
    return spt__mpi_allgather_i64(ctx, fn, mine, 5, info);
}

/* t sorted by ord, its row key in dim d (= ord[rank - 2], after the batch dim for rank 3): the entries
 * of my first row move to the lowest rank holding that row, so no row is on two ranks. *out: new,
 * sorted by ord. Collective; errors agreed. */
static spt_status align_rows(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *ord, int64_t d,
                             spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    int64_t *info = spt__alloc_array(fn, 6, P, sizeof(int64_t), true, &st), *sc = info ? info + 5 * P : NULL;
    SPT__AGREE(ctx, fn);
    SPT__CHECK(piece_keys(ctx, fn, t, d, info));
    int dest = me;
    if (t->nnz > 0) {
        const rkey first = {info[5 * me + 1], info[5 * me + 2]};
        for (int q = me - 1; q >= 0; q--) {
            if (info[5 * q] == 0) continue;
            rkey f = {info[5 * q + 1], info[5 * q + 2]}, l = {info[5 * q + 3], info[5 * q + 4]};
            if (rkey_cmp(&l, &first) != 0) break;
            dest = q;
            if (rkey_cmp(&f, &first) != 0) break;
        }
    }
    const int64_t lead = dest == me ? 0 : key_bound(t, d, 0, t->nnz, &(rkey){info[5 * me + 1], info[5 * me + 2]}, true);
    sc[dest] += lead;
    sc[me] += t->nnz - lead;
    SPT__CHECK(spt__mpi_exchange(ctx, fn, t, sc, ord, NULL, out));
fail:
    spt__free(info);
    return st;
}

/* The distinct keys (batch, k) that a's entries read from op(B), ascending: k in dim d. Local. */
static spt_status needed_keys(const char *fn, const spt_tensor *a, int64_t d, rkey **need, int64_t *nneed) {
    spt_status st = SPT_OK;
    const int64_t n = a->nnz;
    rkey *k = spt__alloc_array(fn, n > 0 ? n : 1, 1, sizeof(rkey), false, &st);
    *need = k;
    *nneed = 0;
    if (!k) return st;
    for (int64_t i = 0; i < n; i++) k[i] = key_at(a, i, d);
    qsort(k, (size_t)n, sizeof *k, rkey_qcmp);
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || rkey_cmp(&k[i], &k[*nneed - 1]) != 0) k[(*nneed)++] = k[i];
    return SPT_OK;
}

/* The requests for the needed keys: to every rank whose piece of bs (sorted by its keys in dim d, info:
 * piece_keys) holds some entries of the key. *req: grouped by rank, ascending in each; cnt[q] keys for
 * rank q. Local. */
static spt_status make_requests(const char *fn, int P, const int64_t *info, const rkey *need, int64_t nneed,
                                int64_t *cnt, rkey **req) {
    spt_status st = SPT_OK;
    for (int pass = 0; pass < 2; pass++) {
        int64_t *at = cnt + P; /* pass 1: the next slot of each rank */
        if (pass == 1) {
            for (int q = 0; q < P; q++) at[q] = q ? at[q - 1] + cnt[q - 1] : 0;
            *req = spt__alloc_array(fn, at[P - 1] + cnt[P - 1] + 1, 1, sizeof(rkey), false, &st);
            if (!*req) return st;
        }
        int q0 = 0;
        for (int64_t c = 0; c < nneed; c++) {
            /* the ranks whose [first, last] holds the key form a run from the first whose last >= key */
            while (q0 < P) {
                rkey l = {info[5 * q0 + 3], info[5 * q0 + 4]};
                if (info[5 * q0] > 0 && rkey_cmp(&l, &need[c]) >= 0) break;
                q0++;
            }
            for (int q = q0; q < P; q++) {
                if (info[5 * q] == 0) continue;
                rkey f = {info[5 * q + 1], info[5 * q + 2]};
                if (rkey_cmp(&f, &need[c]) > 0) break;
                if (pass == 0) cnt[q]++;
                else (*req)[at[q]++] = need[c];
            }
        }
    }
    return SPT_OK;
}

/* The answer to the requests got[0..nin) (grouped by source rank, rcnt[q] from rank q): my entries of
 * each requested row, as one tensor grouped by source rank (ans[q] entries for rank q), each group
 * sorted by bs's order. Local. */
static spt_status answer_requests(const char *fn, int P, const spt_tensor *bs, int64_t d, const rkey *got,
                                  const int64_t *rcnt, int64_t *ans, spt_tensor **snd) {
    spt_status st = SPT_OK;
    const int64_t R = bs->rank;
    const size_t es = spt_dtype_size(bs->dtype);
    int64_t total = 0, at = 0;
    for (int q = 0; q < P; q++) {
        ans[q] = 0;
        for (int64_t c = 0; c < rcnt[q]; c++, at++)
            ans[q] += key_bound(bs, d, 0, bs->nnz, &got[at], true) - key_bound(bs, d, 0, bs->nnz, &got[at], false);
        total += ans[q];
    }
    st = spt__tensor_alloc_uninit(fn, bs->dtype, R, bs->shape, total, bs->order, snd);
    if (st != SPT_OK) return st;
    int64_t w = 0;
    for (int64_t c = 0; c < at; c++) {
        int64_t lo = key_bound(bs, d, 0, bs->nnz, &got[c], false), hi = key_bound(bs, d, lo, bs->nnz, &got[c], true);
        if (hi == lo) continue;
        if (R) memcpy((*snd)->indices + w * R, bs->indices + lo * R, (size_t)((hi - lo) * R) * sizeof(int64_t));
        memcpy((char *)(*snd)->values + (size_t)w * es, (const char *)bs->values + (size_t)lo * es,
               (size_t)(hi - lo) * es);
        w += hi - lo;
    }
    (*snd)->flags = SPT__F_VALID;
    return SPT_OK;
}

/* The rows of op(B) that a's entries read (k in dim ka of a), fetched from bs (sorted by ob, its row
 * key in dim kb): *out holds exactly those rows, sorted by ob, each row's entries in global order.
 * Collective; errors agreed. */
static spt_status fetch_rows(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *a, int64_t ka, const spt_tensor *bs,
                             const int64_t *ob, int64_t kb, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    rkey *need = NULL, *req = NULL, *got = NULL;
    spt_tensor *snd = NULL;
    int64_t nneed = 0;
    /* w: info (5P) | request counts sent (P) | slots (P) | received (P) | byte counts and displacements (4P) */
    int64_t *w = spt__alloc_array(fn, 12, P, sizeof(int64_t), true, &st);
    int64_t *info = w, *cnt = w + 5 * P, *rcnt = cnt + 2 * P, *b = rcnt + P;
    if (w) st = needed_keys(fn, a, ka, &need, &nneed);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(piece_keys(ctx, fn, bs, kb, info));
    st = make_requests(fn, P, info, need, nneed, cnt, &req);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_counts(ctx, fn, cnt, rcnt));
    int64_t nin = 0;
    for (int q = 0; q < P; q++) {
        b[q] = cnt[q] * (int64_t)sizeof(rkey);
        b[2 * P + q] = rcnt[q] * (int64_t)sizeof(rkey);
        nin += rcnt[q];
    }
    memcpy(b + P, b, (size_t)P * sizeof *b);
    memcpy(b + 3 * P, b + 2 * P, (size_t)P * sizeof *b);
    spt__scan_exclusive(b + P, P);
    spt__scan_exclusive(b + 3 * P, P);
    got = spt__alloc_array(fn, nin + 1, 1, sizeof(rkey), false, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, req, b, b + P, got, b + 2 * P, b + 3 * P));
    st = answer_requests(fn, P, bs, kb, got, rcnt, cnt, &snd);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_exchange(ctx, fn, snd, cnt, ob, NULL, out));
fail:
    spt_tensor_free(snd);
    spt__free(got);
    spt__free(req);
    spt__free(need);
    spt__free(w);
    return st;
}

/* The checks of the serial op, run on empty tensors of the global metadata (replicated: the same
 * verdict on every rank). Local. */
static spt_status probe_spgemm(const char *fn, const spt_tensor *a, const spt_tensor *b, bool adjoint_a, bool adjoint_b,
                               bool keep_zeros) {
    spt_tensor *ea = NULL, *eb = NULL, *c = NULL;
    spt_status st = spt__tensor_alloc(fn, a->dtype, a->rank, a->shape, 0, NULL, &ea);
    if (st == SPT_OK) st = spt__tensor_alloc(fn, b->dtype, b->rank, b->shape, 0, NULL, &eb);
    if (st == SPT_OK && (st = spt_sparse_sparse_matmul(ea, eb, adjoint_a, adjoint_b, keep_zeros, &c)) != SPT_OK)
        st = spt__mpi_rename_err(fn, "spt_sparse_sparse_matmul", st);
    spt_tensor_free(c);
    spt_tensor_free(eb);
    spt_tensor_free(ea);
    return st;
}

/* t (a dtensor's piece) sorted by ord: t itself when it is, else a new sorted copy in *own. */
static spt_status sorted_by(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *ord,
                            const spt_tensor **s, spt_tensor **own) {
    bool same = true;
    for (int64_t k = 0; k < t->rank; k++) same = same && t->order[k] == ord[k];
    *s = t;
    *own = NULL;
    if (same) return SPT_OK; /* the same on every rank: the dtensor's order is replicated */
    spt_status st = spt__mpi_sort(ctx, fn, t, ord, false, own);
    if (st == SPT_OK) *s = *own;
    return st;
}

spt_status spt_dtensor_sparse_sparse_matmul(const spt_dtensor *a, const spt_dtensor *b, bool adjoint_a, bool adjoint_b,
                                            bool keep_zeros, spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_sparse_sparse_matmul";
    spt_status st = SPT_OK;
    if (out) *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: %s is NULL", fn, a ? "B" : "A");
    if (a->ctx != b->ctx) return spt__err(SPT_EINVAL, "%s: A and B belong to different contexts", fn);
    spt_mpi_ctx *ctx = a->ctx;
    spt_tensor *ao = NULL, *bo = NULL, *al = NULL, *bl = NULL, *c = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else st = probe_spgemm(fn, a->local, b->local, adjoint_a, adjoint_b, keep_zeros);
    SPT__AGREE(ctx, fn);
    if (ctx->size == 1) {
        if ((st = spt_sparse_sparse_matmul(a->local, b->local, adjoint_a, adjoint_b, keep_zeros, &c)) != SPT_OK)
            st = spt__mpi_rename_err(fn, "spt_sparse_sparse_matmul", st);
        SPT__AGREE(ctx, fn);
        return spt__dtensor_make(ctx, fn, c, out);
    }
    /* op(A) rows: (batch,) m, then k; op(B) rows: (batch,) k, then n */
    const int64_t R = a->local->rank, m = R - 2;
    int64_t oa[3], ob[3];
    if (R == 3) oa[0] = ob[0] = 0;
    oa[m] = adjoint_a ? m + 1 : m, oa[m + 1] = adjoint_a ? m : m + 1;
    ob[m] = adjoint_b ? m + 1 : m, ob[m + 1] = adjoint_b ? m : m + 1;
    const spt_tensor *as = NULL, *bs = NULL;
    SPT__CHECK(sorted_by(ctx, fn, a->local, oa, &as, &ao));
    SPT__CHECK(align_rows(ctx, fn, as, oa, oa[m], &al));
    spt_tensor_free(ao);
    ao = NULL;
    SPT__CHECK(sorted_by(ctx, fn, b->local, ob, &bs, &bo));
    SPT__CHECK(fetch_rows(ctx, fn, al, oa[m + 1], bs, ob, ob[m], &bl));
    spt_tensor_free(bo);
    bo = NULL;
    if ((st = spt_sparse_sparse_matmul(al, bl, adjoint_a, adjoint_b, keep_zeros, &c)) != SPT_OK)
        st = spt__mpi_rename_err(fn, "spt_sparse_sparse_matmul", st);
    spt_tensor_free(al);
    spt_tensor_free(bl);
    al = bl = NULL;
    SPT__AGREE(ctx, fn);
    return spt__dtensor_make(ctx, fn, c, out);
fail:
    spt_tensor_free(c);
    spt_tensor_free(bl);
    spt_tensor_free(al);
    spt_tensor_free(bo);
    spt_tensor_free(ao);
    return st;
}
