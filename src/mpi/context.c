/* SPDX-License-Identifier: Apache-2.0 */
/* context.c -- the MPI context (a duplicate of the caller's communicator), agreed errors, counted
 * collectives and the one exchange primitive (64-bit counts, chunked above the message limit). */
#include "priv/mpi_priv.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

spt_status spt__mpi_rc(const char *fn, int rc, const char *what) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
    msg[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = 0;
    return spt__err(SPT_EINTERNAL, "%s: %s failed: %s", fn, what, msg);
}

/* ---- the live contexts: those not freed by MPI_Finalize are freed by it -------------------------- */
/* MPI_Finalize first deletes the attributes of MPI_COMM_SELF, with MPI still usable: one attribute (set
 * with the first context) whose delete callback frees every context still live, newest first (the same
 * order on every rank of an SPMD program). */

static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static spt_mpi_ctx *live; /* newest first */
static int live_key = MPI_KEYVAL_INVALID;

static void ctx_release(spt_mpi_ctx *c) {
    if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
    spt__free(c);
}

static int at_finalize(MPI_Comm comm, int key, void *attr, void *extra) {
    (void)comm, (void)key, (void)attr, (void)extra;
    pthread_mutex_lock(&live_mu);
    spt_mpi_ctx *c = live;
    live = NULL;
    pthread_mutex_unlock(&live_mu);
    while (c) {
        spt_mpi_ctx *next = c->next;
        ctx_release(c);
        c = next;
    }
    return MPI_SUCCESS;
}

/* Add c to the live list (the callback's attribute set with the first one). Local. */
static spt_status live_add(const char *fn, spt_mpi_ctx *c) {
    spt_status st = SPT_OK;
    pthread_mutex_lock(&live_mu);
    if (live_key == MPI_KEYVAL_INVALID) {
        int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &live_key, NULL);
        if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, live_key, NULL);
        if (rc != MPI_SUCCESS) {
            if (live_key != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&live_key);
            live_key = MPI_KEYVAL_INVALID;
            st = spt__mpi_rc(fn, rc, "MPI_Comm_set_attr (MPI_COMM_SELF)");
        }
    }
    if (st == SPT_OK) {
        c->prev = NULL;
        c->next = live;
        if (live) live->prev = c;
        live = c;
    }
    pthread_mutex_unlock(&live_mu);
    return st;
}

static void live_remove(spt_mpi_ctx *c) {
    pthread_mutex_lock(&live_mu);
    if (c->prev) c->prev->next = c->next;
    else if (live == c) live = c->next;
    if (c->next) c->next->prev = c->prev;
    pthread_mutex_unlock(&live_mu);
}

spt_status spt_mpi_ctx_new(MPI_Comm comm, spt_mpi_ctx **out) {
    static const char fn[] = "spt_mpi_ctx_new";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized)
        return spt__err(SPT_EPRECONDITION, "%s: MPI is %s (spt never calls MPI_Init)", fn,
                        finalized ? "finalized" : "not initialized");
    if (comm == MPI_COMM_NULL) return spt__err(SPT_EINVAL, "%s: the communicator is MPI_COMM_NULL", fn);
    spt_mpi_ctx *c = spt__calloc(1, sizeof *c);
    /* the dup is collective: do it even if the allocation failed, then agree on the dup */
    MPI_Comm dup = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS) {
        spt__free(c);
        return spt__mpi_rc(fn, rc, "MPI_Comm_dup");
    }
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    spt_mpi_ctx tmp = {.comm = dup, .limit = INT_MAX};
    MPI_Comm_rank(dup, &tmp.rank);
    MPI_Comm_size(dup, &tmp.size);
    if (!c) {
        st = spt__err(SPT_ENOMEM, "%s: out of memory for the context", fn);
    } else {
        *c = tmp;
        st = live_add(fn, c);
    }
    st = spt__mpi_agree(c ? c : &tmp, fn, st);
    if (st != SPT_OK) {
        if (c) live_remove(c);
        spt__free(c);
        MPI_Comm_free(&dup);
        return st;
    }
    c->meta_bytes = 0;
    *out = c;
    return SPT_OK;
}

void spt_mpi_ctx_free(spt_mpi_ctx *ctx) {
    if (!ctx) return;
    live_remove(ctx);
    ctx_release(ctx);
}

int spt_mpi_ctx_rank(const spt_mpi_ctx *ctx) { return ctx ? ctx->rank : -1; }
int spt_mpi_ctx_size(const spt_mpi_ctx *ctx) { return ctx ? ctx->size : 0; }
MPI_Comm spt_mpi_ctx_comm(const spt_mpi_ctx *ctx) { return ctx ? ctx->comm : MPI_COMM_NULL; }

void spt_mpi_ctx_traffic(const spt_mpi_ctx *ctx, int64_t *payload_bytes, int64_t *meta_bytes) {
    if (payload_bytes) *payload_bytes = ctx ? ctx->payload_bytes : 0;
    if (meta_bytes) *meta_bytes = ctx ? ctx->meta_bytes : 0;
}

void spt_mpi_ctx_reset_traffic(spt_mpi_ctx *ctx) {
    if (!ctx) return;
    ctx->payload_bytes = ctx->meta_bytes = ctx->collectives = 0;
    for (int k = 0; k < SPT_MPI_NPHASES; k++) ctx->phase[k] = 0;
}

void spt_mpi_ctx_stats(const spt_mpi_ctx *ctx, spt_mpi_stats *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!ctx) return;
    out->payload_bytes = ctx->payload_bytes;
    out->meta_bytes = ctx->meta_bytes;
    out->collectives = ctx->collectives;
    for (int k = 0; k < SPT_MPI_NPHASES; k++) out->phase[k] = ctx->phase[k];
}

void spt_mpi_ctx_set_message_limit(spt_mpi_ctx *ctx, int64_t bytes) {
    if (ctx) ctx->limit = bytes <= 0 || bytes >= INT_MAX ? INT_MAX : bytes;
}

/* ---- agreement ---------------------------------------------------------------------------------- */

#define AGREE_MSG 512

spt_status spt__mpi_agree(spt_mpi_ctx *ctx, const char *fn, spt_status st) {
    /* one int: rank * 32 + (-status) of a failing rank, INT_MAX for success; MIN picks the lowest rank */
    int mine = st == SPT_OK ? INT_MAX : ctx->rank * 32 + (-(int)st & 31);
    int agreed = INT_MAX;
    ctx->meta_bytes += (int64_t)sizeof(int);
    ctx->collectives++;
    int rc = MPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (rc != MPI_SUCCESS) return spt__mpi_rc(fn, rc, "MPI_Allreduce (error agreement)");
    if (agreed == INT_MAX) return SPT_OK;
    int root = agreed / 32;
    spt_status ast = (spt_status)(-(agreed % 32));
    char msg[AGREE_MSG];
    memset(msg, 0, sizeof msg);
    if (ctx->rank == root) snprintf(msg, sizeof msg, "%s", spt_last_error());
    ctx->meta_bytes += AGREE_MSG;
    ctx->collectives++;
    rc = MPI_Bcast(msg, AGREE_MSG, MPI_CHAR, root, ctx->comm);
    msg[AGREE_MSG - 1] = 0;
    if (rc != MPI_SUCCESS) return spt__mpi_rc(fn, rc, "MPI_Bcast (error message)");
    /* every rank, the failing one included, gets the same message; the op is named once */
    const size_t fl = strlen(fn);
    const char *body = msg;
    if (strncmp(body, fn, fl) == 0 && body[fl] == ':' && body[fl + 1] == ' ') body += fl + 2;
    return spt__err(ast, "%s: rank %d: %s", fn, root, body);
}

spt_status spt_mpi_agree(spt_mpi_ctx *ctx, const char *fn, spt_status local) {
    if (!ctx) return spt__err(SPT_EINVAL, "spt_mpi_agree: ctx is NULL");
    return spt__mpi_agree(ctx, fn ? fn : "spt_mpi_agree", local);
}

/* ---- counted collectives ------------------------------------------------------------------------- */

spt_status spt__mpi_allreduce_i64(spt_mpi_ctx *ctx, const char *fn, int64_t *buf, int64_t n, MPI_Op op) {
    if (n <= 0) return SPT_OK;
    if (n > INT_MAX / 8) return spt__err(SPT_EOVERFLOW, "%s: %lld counts in one reduction", fn, (long long)n);
    ctx->meta_bytes += n * 8;
    ctx->collectives++;
    int rc = MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_INT64_T, op, ctx->comm);
    return rc == MPI_SUCCESS ? SPT_OK : spt__mpi_rc(fn, rc, "MPI_Allreduce");
}

spt_status spt__mpi_allgather_i64(spt_mpi_ctx *ctx, const char *fn, const int64_t *mine, int64_t n, int64_t *all) {
    if (n <= 0) return SPT_OK;
    if (n > INT_MAX / 8 / ctx->size)
        return spt__err(SPT_EOVERFLOW, "%s: %lld counts per rank in one gather", fn, (long long)n);
    ctx->meta_bytes += n * 8;
    ctx->collectives++;
    int rc = MPI_Allgather(mine, (int)n, MPI_INT64_T, all, (int)n, MPI_INT64_T, ctx->comm);
    return rc == MPI_SUCCESS ? SPT_OK : spt__mpi_rc(fn, rc, "MPI_Allgather");
}

spt_status spt__mpi_bcast_bytes(spt_mpi_ctx *ctx, const char *fn, void *buf, int64_t bytes, int root) {
    for (int64_t done = 0; done < bytes;) {
        int64_t c = bytes - done < ctx->limit ? bytes - done : ctx->limit;
        if (ctx->rank == root) ctx->payload_bytes += c * (ctx->size - 1);
        ctx->collectives++;
        int rc = MPI_Bcast((char *)buf + done, (int)c, MPI_BYTE, root, ctx->comm);
        if (rc != MPI_SUCCESS) return spt__mpi_rc(fn, rc, "MPI_Bcast");
        done += c;
    }
    return SPT_OK;
}

spt_status spt__mpi_counts(spt_mpi_ctx *ctx, const char *fn, const int64_t *scounts, int64_t *rcounts) {
    ctx->meta_bytes += 8 * (int64_t)(ctx->size - 1);
    ctx->collectives++;
    int rc = MPI_Alltoall(scounts, 1, MPI_INT64_T, rcounts, 1, MPI_INT64_T, ctx->comm);
    return rc == MPI_SUCCESS ? SPT_OK : spt__mpi_rc(fn, rc, "MPI_Alltoall (counts)");
}

/* ---- the exchange primitive ---------------------------------------------------------------------- */

spt_status spt__mpi_alltoallv(spt_mpi_ctx *ctx, const char *fn, const void *sbuf, const int64_t *scounts,
                              const int64_t *sdispls, void *rbuf, const int64_t *rcounts, const int64_t *rdispls) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    int *ic = NULL;
    char *ts = NULL, *tr = NULL;
    int64_t mx = 0; /* the largest count or displacement of this rank */
    for (int q = 0; q < P; q++) {
        if (q != ctx->rank) ctx->payload_bytes += scounts[q];
        int64_t v[4] = {scounts[q], sdispls[q], rcounts[q], rdispls[q]};
        for (int j = 0; j < 4; j++) mx = v[j] > mx ? v[j] : mx;
    }
    int64_t big = mx > ctx->limit;
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, &big, 1, MPI_MAX));
    ic = spt__alloc_array(fn, 4, P, sizeof(int), false, &st);
    if (!ic) goto agree;
    if (!big) {
        for (int q = 0; q < P; q++) {
            ic[q] = (int)scounts[q];
            ic[P + q] = (int)sdispls[q];
            ic[2 * P + q] = (int)rcounts[q];
            ic[3 * P + q] = (int)rdispls[q];
        }
    }
agree:
    SPT__AGREE(ctx, fn);
    ctx->collectives++;
    if (!big) {
        SPT__MPI(fn, MPI_Alltoallv(sbuf, ic, ic + P, MPI_BYTE, rbuf, ic + 2 * P, ic + 3 * P, MPI_BYTE, ctx->comm),
                 "MPI_Alltoallv");
        goto fail;
    }
    /* Chunked: per round, at most C bytes per pair, staged through buffers of P*C bytes so every count
     * and displacement of the MPI call fits the limit. */
    int64_t cap = ctx->limit < ((int64_t)1 << 26) ? ctx->limit : ((int64_t)1 << 26);
    int64_t C = cap / P > 0 ? cap / P : 1;
    int64_t rounds = 0;
    for (int q = 0; q < P; q++) {
        int64_t r1 = (scounts[q] + C - 1) / C, r2 = (rcounts[q] + C - 1) / C;
        rounds = r1 > rounds ? r1 : rounds;
        rounds = r2 > rounds ? r2 : rounds;
    }
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, &rounds, 1, MPI_MAX));
    ts = spt__alloc_array(fn, P, C, 1, false, &st);
    tr = ts ? spt__alloc_array(fn, P, C, 1, false, &st) : NULL;
    SPT__AGREE(ctx, fn);
    for (int64_t r = 0; r < rounds; r++) {
        int64_t off = r * C;
        for (int q = 0; q < P; q++) {
            int64_t s = scounts[q] - off, v = rcounts[q] - off;
            s = s < 0 ? 0 : s > C ? C : s;
            v = v < 0 ? 0 : v > C ? C : v;
            if (s) memcpy(ts + (size_t)q * (size_t)C, (const char *)sbuf + sdispls[q] + off, (size_t)s);
            ic[q] = (int)s;
            ic[P + q] = (int)(q * C);
            ic[2 * P + q] = (int)v;
            ic[3 * P + q] = (int)(q * C);
        }
        ctx->collectives++;
        SPT__MPI(fn, MPI_Alltoallv(ts, ic, ic + P, MPI_BYTE, tr, ic + 2 * P, ic + 3 * P, MPI_BYTE, ctx->comm),
                 "MPI_Alltoallv (chunk)");
        for (int q = 0; q < P; q++)
            if (ic[2 * P + q])
                memcpy((char *)rbuf + rdispls[q] + off, tr + (size_t)q * (size_t)C, (size_t)ic[2 * P + q]);
    }
fail:
    spt__free(tr);
    spt__free(ts);
    spt__free(ic);
    return st;
}

spt_status spt__mpi_rename_err(const char *fn, const char *serial, spt_status st) {
    const char *m = spt_last_error();
    const size_t n = strlen(serial);
    char buf[1024];
    if (!strncmp(m, serial, n) && !strncmp(m + n, ": ", 2)) m += n + 2;
    snprintf(buf, sizeof buf, "%s", m);
    return spt__err(st, "%s: %s", fn, buf);
}

/* ---- replicated inputs ---------------------------------------------------------------------------- */

/* A 64-bit checksum of n bytes, 8 at a time (a multiply-xorshift mix per word). */
static uint64_t checksum(uint64_t h, const unsigned char *p, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    memcpy(&w, p + i, n - i);
    h = (h ^ w ^ (uint64_t)n) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

spt_status spt__mpi_same_dense(spt_mpi_ctx *ctx, const char *fn, const char *what, const spt_dense *d) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    if (P == 1) return SPT_OK;
    int64_t mine[4] = {d->rank, d->rank > 0 ? d->shape[0] : 0, d->rank > 1 ? d->shape[1] : 0, 0};
    uint64_t h = checksum(0x5350545F42ull, (const unsigned char *)d->shape, (size_t)d->rank * sizeof(int64_t));
    if (d->dtype != SPT_STRING) {
        h = checksum(h, d->data, (size_t)d->size * spt_dtype_size(d->dtype));
    } else {
        const spt_str *s = d->data;
        for (int64_t i = 0; i < d->size; i++) h = checksum(h, (const unsigned char *)s[i].data, (size_t)s[i].len);
    }
    mine[3] = (int64_t)h;
    int64_t *all = spt__alloc_array(fn, P, 4, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, mine, 4, all));
    for (int q = 1; q < P; q++) {
        const int64_t *a = all + 4 * q;
        if (a[0] != all[0] || a[1] != all[1] || a[2] != all[2]) {
            st = spt__err(SPT_EINVAL,
                          "%s: %s must be the same on every rank, but rank %d's differs from rank 0's: "
                          "shape [%lld, %lld] against [%lld, %lld]",
                          fn, what, q, (long long)a[1], (long long)a[2], (long long)all[1], (long long)all[2]);
            break;
        }
        if (a[3] != all[3]) {
            st = spt__err(SPT_EINVAL,
                          "%s: %s must be the same on every rank, but rank %d's differs from rank 0's: "
                          "content checksum %016llx against %016llx",
                          fn, what, q, (unsigned long long)a[3], (unsigned long long)all[3]);
            break;
        }
    }
fail:
    spt__free(all);
    return st;
}
