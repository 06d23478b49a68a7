/* SPDX-License-Identifier: Apache-2.0 */
/* exchange.c -- the packed exchange: blocks of a local tensor (contiguous, each sorted) sent to their
 * ranks with the context's chunked all-to-all (index rows and values straight from the tensor; string
 * lengths and bytes packed), and the received runs merged (merge.c). Used by scatter, gather and
 * sparsify, and by the sample sort for strings and for messages above the context's limit. */
#include "priv/mpi_priv.h"

/* The layout of one exchange, in int64 arrays of P (entries, then bytes). */
typedef struct layout {
    int64_t *sent, *from;        /* entries sent to each rank (0 to myself) | first entry of each block in t */
    int64_t *rent, *rat;         /* entries received from each rank (0 from myself) | first in the receive buffers */
    int64_t *sc, *sd, *rcb, *rd; /* byte counts and displacements of one all-to-all */
    int64_t nrecv;               /* entries received */
} layout;

/* counts[q] * unit bytes at displacement at[q] * unit, for one all-to-all of fixed-size items. */
static void scale(const int64_t *counts, const int64_t *at, int64_t unit, int64_t *bytes, int64_t *displ, int P) {
    for (int q = 0; q < P; q++) {
        bytes[q] = counts[q] * unit;
        displ[q] = at[q] * unit;
    }
}

/* Fixed-size items of the blocks (unit bytes per entry): from sbuf (t's order) into rbuf (rank order). */
static spt_status move_items(spt_mpi_ctx *ctx, const char *fn, layout *L, int64_t unit, const void *sbuf, void *rbuf) {
    scale(L->sent, L->from, unit, L->sc, L->sd, ctx->size);
    scale(L->rent, L->rat, unit, L->rcb, L->rd, ctx->size);
    return spt__mpi_alltoallv(ctx, fn, sbuf, L->sc, L->sd, rbuf, L->rcb, L->rd);
}

/* String values: lengths (int64) and bytes of the blocks; the received ones become spt_str records
 * (rstr) pointing into *bytes. Collective; errors agreed. */
static spt_status move_strings(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, layout *L, spt_str *rstr,
                               char **bytes) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t n = t->nnz, nr = L->nrecv;
    const spt_str *sv = (const spt_str *)t->values;
    int64_t *len = NULL, *rlen = NULL, *b = NULL;
    char *sbuf = NULL;
    *bytes = NULL;
    len = spt__alloc_array(fn, n + nr + 1, 1, sizeof(int64_t), false, &st);
    if (len) b = spt__alloc_array(fn, 4, P, sizeof(int64_t), true, &st); /* bytes sent | sent at | received | at */
    int64_t sbytes = 0;
    if (b) {
        rlen = len + n;
        for (int d = 0; d < P; d++) {
            for (int64_t i = L->from[d]; i < L->from[d] + L->sent[d]; i++) {
                len[i] = sv[i].len;
                b[d] += sv[i].len;
            }
            if (d == me) b[d] = 0;
            b[P + d] = b[d];
        }
        sbytes = spt__scan_exclusive(b + P, P);
        sbuf = spt__alloc_array(fn, sbytes, 1, 1, false, &st);
        for (int d = 0; d < P && sbuf; d++)
            for (int64_t i = L->from[d], o = b[P + d]; d != me && i < L->from[d] + L->sent[d]; o += sv[i].len, i++)
                if (sv[i].len) memcpy(sbuf + o, sv[i].data, (size_t)sv[i].len);
    }
    SPT__AGREE(ctx, fn);
    /* the lengths, then the bytes */
    SPT__CHECK(move_items(ctx, fn, L, 8, len, rlen));
    SPT__CHECK(spt__mpi_counts(ctx, fn, b, b + 2 * P));
    for (int q = 0; q < P; q++) b[3 * P + q] = b[2 * P + q];
    int64_t rbytes = spt__scan_exclusive(b + 3 * P, P);
    *bytes = spt__alloc_array(fn, rbytes, 1, 1, false, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, sbuf, b, b + P, *bytes, b + 2 * P, b + 3 * P));
    /* the records: received in rank order, their bytes back to back in the same order */
    for (int64_t i = 0, o = 0; i < nr; o += rlen[i], i++) rstr[i] = (spt_str){.data = *bytes + o, .len = rlen[i]};
fail:
    spt__free(sbuf);
    spt__free(b);
    spt__free(len);
    return st;
}

spt_status spt__mpi_exchange(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *sendcounts,
                             const int64_t *order, spt__mpi_add_fn add, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t r = t->rank;
    const bool isstr = t->dtype == SPT_STRING;
    const int64_t es = (int64_t)spt_dtype_size(t->dtype);
    int64_t ord[SPT_MAX_RANK];
    for (int64_t j = 0; j < r; j++) ord[j] = order ? order[j] : j;
    spt__keyplan kp;
    spt__mpi_plan(&kp, t, ord);
    int64_t *w = NULL, *rrow = NULL;
    char *rval = NULL, *rbytes = NULL;
    spt__mpi_run *runs = NULL;
    spt_tensor *o = NULL;
    layout L;
    *out = NULL;
    w = spt__alloc_array(fn, 8, P, sizeof(int64_t), true, &st);
    if (w) runs = spt__calloc((size_t)P, sizeof *runs);
    if (w && !runs) st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    SPT__AGREE(ctx, fn);
    L = (layout){w, w + P, w + 2 * P, w + 3 * P, w + 4 * P, w + 5 * P, w + 6 * P, w + 7 * P, 0};
    for (int q = 0; q < P; q++) L.from[q] = L.sent[q] = sendcounts[q];
    spt__scan_exclusive(L.from, P);
    L.sent[me] = 0; /* my own block stays where it is */
    SPT__CHECK(spt__mpi_counts(ctx, fn, L.sent, L.rent));
    for (int q = 0; q < P; q++) L.rat[q] = L.rent[q];
    L.nrecv = spt__scan_exclusive(L.rat, P); /* (sums of real tensors' sizes: fit) */
    rrow = spt__alloc_array(fn, L.nrecv, r, sizeof(int64_t), false, &st);
    if (rrow) rval = spt__alloc_array(fn, L.nrecv, es, 1, false, &st);
    if (rval) st = spt__tensor_alloc(fn, t->dtype, r, t->shape, L.nrecv + sendcounts[me], ord, &o);
    SPT__AGREE(ctx, fn);
    /* index rows and numeric values straight from t; string lengths and bytes packed */
    if (r) SPT__CHECK(move_items(ctx, fn, &L, r * 8, t->indices, rrow));
    if (isstr) SPT__CHECK(move_strings(ctx, fn, t, &L, (spt_str *)rval, &rbytes));
    else SPT__CHECK(move_items(ctx, fn, &L, es, t->values, rval));
    /* the runs: mine read in place, the others from the receive buffers */
    for (int q = 0; q < P; q++)
        runs[q] = q == me ? (spt__mpi_run){t->indices + L.from[q] * r, (const char *)t->values + L.from[q] * es,
                                           sendcounts[q], 0}
                          : (spt__mpi_run){rrow + L.rat[q] * r, rval + L.rat[q] * es, L.rent[q], 0};
    bool unique = false;
    int64_t m = 0;
    st = spt__mpi_merge(fn, &kp, runs, P, o, add, &m, &unique);
    if (st == SPT_OK && m < o->nnz) spt__tensor_truncate(o, m);
    if (st == SPT_OK && isstr) st = spt__arena_adopt_all(&o->strings, o->values, o->nnz);
    SPT__AGREE(ctx, fn);
    o->flags = SPT__F_VALID | SPT__F_SORTED | (unique ? SPT__F_UNIQUE : 0u);
    *out = o;
    o = NULL;
fail:
    spt_tensor_free(o);
    spt__free(rbytes);
    spt__free(rval);
    spt__free(rrow);
    spt__free(runs);
    spt__free(w);
    return st;
}
