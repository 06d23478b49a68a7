/* SPDX-License-Identifier: Apache-2.0 */
/* sort.c -- the distributed sorts behind from_local, reorder, concat, add and reduce_sum. Keys that pack
 * into 64 bits (values up to 8 bytes): the MSD radix sort below (count, one Allreduce, scatter by bucket,
 * one all-to-all of (key, value) pairs, bucket sorts; no local sort, no merge). Everything else: the
 * parallel sample sort -- the local sort is the serial library's (its key engine, threaded), the
 * splitters are found by an exact multiway selection over the sorted pieces (split.c), the entries move
 * in one all-to-all straight from and into tensor buffers (exchange_sorted.c), and each rank merges its
 * P sorted runs once (merge.c). At P = 1 only the local sort runs. */
#include "priv/mpi_priv.h"

/* ---- local sort ---------------------------------------------------------------------------------- */

static bool known_sorted_by(const spt_tensor *t, const int64_t *ord) {
    if (!(t->flags & SPT__F_VALID) || !(t->flags & SPT__F_SORTED)) return false;
    for (int64_t d = 0; d < t->rank; d++)
        if (t->order[d] != ord[d]) return false;
    return true;
}

spt_status spt__mpi_local_sort(const char *fn, const spt_tensor *t, const int64_t *order, const spt_tensor **s,
                               spt_tensor **own) {
    int64_t ord[SPT_MAX_RANK];
    for (int64_t d = 0; d < t->rank; d++) ord[d] = order ? order[d] : d;
    *own = NULL;
    *s = t;
    if (known_sorted_by(t, ord)) return SPT_OK;
    spt_status st = spt_reordered(t, ord, own);
    if (st != SPT_OK) {
        /* name the distributed op, not the serial one ("spt_reordered: x" -> "fn: x") */
        static const char pre[] = "spt_reordered: ";
        const char *m = spt_last_error();
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", strncmp(m, pre, sizeof pre - 1) ? m : m + sizeof pre - 1);
        return spt__err(st, "%s: %s", fn, buf);
    }
    *s = *own;
    return SPT_OK;
}

/* ---- the distributed MSD radix sort --------------------------------------------------------------- */
/* For keys that pack into one 64-bit word (values up to 8 bytes, not strings) the entries need no local
 * sort and no merge: every rank counts the top digit of its keys (2^d buckets, d <= 11), one Allreduce
 * sums the counts, and rank q is given the run of buckets [lo_q, hi_q) that holds the global positions
 * of its balanced block [B_q, B_q+1) (blocked counts, as the sample sort's). A bucket that straddles B_q
 * goes to both q-1 and q, each sorts all of it and keeps its own part, so the blocks are exact without
 * a second exchange (one bucket per boundary, ~N / 2^d entries, travels twice). Each rank scatters its
 * (key, payload) pairs by bucket (the serial hybrid sort's scatter), so what goes to rank q is one
 * contiguous range; the pairs move in one all-to-all of keys and one of payloads (the part a rank keeps
 * is read in place). The receiver concatenates the pieces of each bucket in source-rank order (each
 * piece is in its rank's entry order) and sorts the bucket stably by the bits below the digit in cache,
 * then decodes it into the result: stable over the global sequence, so byte-identical to the serial
 * sort of the concatenated pieces, duplicates included.
 * Skew: when the buckets a rank would receive exceed 1.1 N/P + MSD_SLACK entries (a giant bucket, e.g.
 * every entry sharing its top index bits), every rank takes the sample sort instead (the decision is
 * made from the global counts, the same everywhere). */

#define MSD_SLACK 256

/* The bucket holding global position x < N: the last b with S[b] <= x (S: nb + 1 prefix sums). */
static int64_t bucket_of(const int64_t *S, int64_t nb, int64_t x) {
    int64_t lo = 0, hi = nb - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (S[mid] <= x) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* The key and payload all-to-alls (counts and displacements in entries): two concurrent MPI_Ialltoallv
 * when everything fits the message limit, touching out's pages meanwhile; else the chunked primitive. */
static spt_status msd_transfer(spt_mpi_ctx *ctx, const char *fn, const uint64_t *tk, const uint64_t *tp,
                               const int64_t *c, uint64_t *rk, uint64_t *rp, spt_tensor *o) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    const int64_t *sc = c;
    int64_t *b = NULL;
    int *ic = NULL;
    int64_t big = 0;
    for (int64_t i = 0; i < 4 * (int64_t)P; i++)
        if (c[i] > INT_MAX || c[i] > ctx->limit / 8) big = 1;
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, &big, 1, MPI_MAX));
    if (big) {
        b = spt__alloc_array(fn, 4, P, sizeof(int64_t), false, &st);
        if (b)
            for (int64_t i = 0; i < 4 * (int64_t)P; i++) b[i] = c[i] * 8;
        SPT__AGREE(ctx, fn);
        SPT__CHECK(spt__mpi_alltoallv(ctx, fn, tk, b, b + P, rk, b + 2 * P, b + 3 * P));
        SPT__CHECK(spt__mpi_alltoallv(ctx, fn, tp, b, b + P, rp, b + 2 * P, b + 3 * P));
        goto fail;
    }
    ic = spt__alloc_array(fn, 4, P, sizeof(int), false, &st);
    SPT__AGREE(ctx, fn);
    for (int64_t i = 0; i < 4 * (int64_t)P; i++) ic[i] = (int)c[i];
    for (int q = 0; q < P; q++) ctx->payload_bytes += 16 * sc[q];
    ctx->collectives += 2;
    MPI_Request req[2];
    int done = 0;
    SPT__MPI(fn, MPI_Ialltoallv(tk, ic, ic + P, MPI_UINT64_T, rk, ic + 2 * P, ic + 3 * P, MPI_UINT64_T, ctx->comm, &req[0]),
             "MPI_Ialltoallv (keys)");
    int rcode = MPI_Ialltoallv(tp, ic, ic + P, MPI_UINT64_T, rp, ic + 2 * P, ic + 3 * P, MPI_UINT64_T, ctx->comm, &req[1]);
    if (rcode != MPI_SUCCESS) {
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        SPT__MPI(fn, rcode, "MPI_Ialltoallv (payloads)");
    }
    /* the result's fresh pages (o NULL: none), faulted in while the pairs move (MPI_Testall between
     * megabytes) */
    char *bufs[2] = {o ? (char *)o->indices : NULL, o ? (char *)o->values : NULL};
    size_t len[2] = {o ? (size_t)o->nnz * (size_t)o->rank * 8 : 0, o ? (size_t)o->nnz * spt_dtype_size(o->dtype) : 0};
    for (int j = 0; j < 2; j++)
        for (size_t at = 0; at < len[j]; at += 4096) {
            ((volatile char *)bufs[j])[at] = 0;
            if (!done && (at & ((1u << 20) - 1)) == 0) {
                rcode = MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
                if (rcode != MPI_SUCCESS) break;
            }
        }
    if (rcode == MPI_SUCCESS && !done) rcode = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    SPT__MPI(fn, rcode, "MPI_Ialltoallv");
fail:
    spt__free(ic);
    spt__free(b);
    return spt__mpi_agree(ctx, fn, st);
}

/* The balanced blocks [B_q, B_q+1) of N = S[nb] entries and the bucket runs [lo_q, hi_q) that cover
 * them (S: the nb + 1 prefix sums of the global counts). False when some run holds too many entries
 * for this path (skewed: the sample sort). */
static bool msd_blocks(const int64_t *S, int64_t nb, int P, int64_t *B, int64_t *lo, int64_t *hi) {
    const int64_t N = S[nb];
    B[0] = 0;
    int64_t most = 0;
    for (int q = 0; q < P; q++) {
        B[q + 1] = B[q] + spt__mpi_block_count(N, q, P);
        lo[q] = hi[q] = 0;
        if (B[q + 1] > B[q]) {
            lo[q] = bucket_of(S, nb, B[q]);
            hi[q] = bucket_of(S, nb, B[q + 1] - 1) + 1;
        }
        if (S[hi[q]] - S[lo[q]] > most) most = S[hi[q]] - S[lo[q]];
    }
    return (double)most <= 1.1 * (double)((N + P - 1) / P) + MSD_SLACK;
}

/* Every rank's counts of my buckets [lo[me], hi[me]): *hc gets P rows of hi[me] - lo[me] counts (each
 * rank sends rank q its counts of q's buckets; one MPI_Alltoallv). Collective; errors agreed. */
static spt_status msd_bucket_counts(spt_mpi_ctx *ctx, const char *fn, const int64_t *loc, const int64_t *lo,
                                    const int64_t *hi, int64_t **hc) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t nbk = hi[me] - lo[me];
    int *ic = NULL;
    *hc = spt__alloc_array(fn, P, nbk > 0 ? nbk : 1, sizeof(int64_t), false, &st);
    ic = *hc ? spt__alloc_array(fn, 4, P, sizeof(int), false, &st) : NULL;
    SPT__AGREE(ctx, fn);
    for (int q = 0; q < P; q++) {
        ic[q] = (int)(hi[q] - lo[q]);
        ic[P + q] = (int)lo[q];
        ic[2 * P + q] = (int)nbk;
        ic[3 * P + q] = (int)(q * nbk);
        if (q != me) ctx->meta_bytes += 8 * ic[q];
    }
    ctx->collectives++;
    SPT__MPI(fn, MPI_Alltoallv(loc, ic, ic + P, MPI_INT64_T, *hc, ic + 2 * P, ic + 3 * P, MPI_INT64_T, ctx->comm),
             "MPI_Alltoallv (bucket counts)");
fail:
    spt__free(ic);
    if (st != SPT_OK) {
        spt__free(*hc);
        *hc = NULL;
    }
    return st;
}

/* The pair exchange's counts in entries, c: send counts | send displacements | receive counts | receive
 * displacements (P each; my own part is not sent). Returns the entries received. */
static int64_t msd_transfer_counts(int P, int me, const int64_t *L, const int64_t *lo, const int64_t *hi,
                                   const int64_t *hc, int64_t nbk, int64_t *c) {
    int64_t rtotal = 0;
    for (int q = 0; q < P; q++) {
        c[q] = q == me ? 0 : L[hi[q]] - L[lo[q]];
        c[P + q] = L[lo[q]];
        int64_t got = 0;
        for (int64_t j = 0; q != me && j < nbk; j++) got += hc[q * nbk + j];
        c[2 * P + q] = got;
        c[3 * P + q] = rtotal;
        rtotal += got;
    }
    return rtotal;
}

/* Time since *t0 added to phase ph; *t0 becomes now. */
static void msd_phase(spt_mpi_ctx *ctx, int ph, double *t0) {
    double t1 = spt__mpi_now();
    ctx->phase[ph] += t1 - *t0;
    *t0 = t1;
}

spt_status spt__mpi_msd_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *ord,
                             spt_tensor *inplace, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t n = t->nnz, r = t->rank;
    spt__msd *m = NULL;
    int64_t *w = NULL, *hc = NULL, *c = NULL;
    uint64_t *tk = NULL, *tp = NULL, *rk = NULL, *rp = NULL;
    const uint64_t **src = NULL;
    spt_tensor *o = NULL;
    *out = NULL;
    double t0 = spt__mpi_now();
    st = spt__msd_plan(fn, t, ord, &m);
    const int64_t nb = m ? (int64_t)1 << spt__msd_digit(m) : 0;
    /* w: local counts (nb) | their prefix sums L (nb + 1) | global counts (nb), then every rank's nnz (P)
     * and the ranks whose `inplace` owns its buffers (1) | the prefix S of the counts (nb + 1) | B (P + 1) |
     * lo (P) | hi (P) */
    if (m) w = spt__alloc_array(fn, 4 * nb + 3 + 4 * (int64_t)P + 1, 1, sizeof(int64_t), false, &st);
    int64_t *loc = w, *L = loc + nb, *glob = L + nb + 1, *S = glob + nb + P + 1, *B = S + nb + 1, *lo = B + P + 1,
            *hi = lo + P;
    if (w) st = spt__msd_count(fn, m, t, loc);
    msd_phase(ctx, SPT_MPI_PHASE_LOCAL, &t0);
    SPT__AGREE(ctx, fn);
    if (!m) goto fail; /* not this path (alike on every rank) */
    /* the global counts, the balanced blocks and the bucket runs that cover them */
    memcpy(glob, loc, (size_t)nb * sizeof *glob);
    memset(glob + nb, 0, (size_t)(P + 1) * sizeof *glob);
    glob[nb + me] = n;
    glob[nb + P] = inplace && inplace->owns_buffers;
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, glob, nb + P + 1, MPI_SUM));
    memcpy(S, glob, (size_t)nb * sizeof *S);
    S[nb] = spt__scan_exclusive(S, nb);
    memcpy(L, loc, (size_t)nb * sizeof *L);
    L[nb] = spt__scan_exclusive(L, nb);
    if (!msd_blocks(S, nb, P, B, lo, hi)) goto fail; /* skewed: the sample sort */
    /* in place (reorder of a balanced dtensor): every rank keeps its count, so the result overwrites
     * the input's buffers once the scatter has read them (no fresh pages to fault in, none to free) */
    bool in_place = glob[nb + P] == P;
    for (int q = 0; q < P && in_place; q++) in_place = glob[nb + q] == B[q + 1] - B[q];
    const int64_t nbk = hi[me] - lo[me];
    SPT__CHECK(msd_bucket_counts(ctx, fn, loc, lo, hi, &hc));
    msd_phase(ctx, SPT_MPI_PHASE_SPLIT, &t0);
    c = spt__alloc_array(fn, 4, P, sizeof(int64_t), false, &st);
    int64_t rtotal = 0;
    if (c) {
        rtotal = msd_transfer_counts(P, me, L, lo, hi, hc, nbk, c);
        tk = spt__alloc_array(fn, n > 0 ? n : 1, 2, sizeof(uint64_t), false, &st);
        rk = tk ? spt__alloc_array(fn, rtotal > 0 ? rtotal : 1, 2, sizeof(uint64_t), false, &st) : NULL;
        src = rk ? spt__calloc((size_t)P * 2, sizeof *src) : NULL;
        if (rk && !src) st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    if (src) {
        tp = tk + (n > 0 ? n : 1);
        rp = rk + (rtotal > 0 ? rtotal : 1);
        spt__hint_huge(tk, (size_t)(n > 0 ? n : 1) * 16);
        spt__hint_huge(rk, (size_t)(rtotal > 0 ? rtotal : 1) * 16);
        if (in_place) o = inplace;
        else st = spt__tensor_alloc_uninit(fn, t->dtype, r, t->shape, B[me + 1] - B[me], ord, &o);
        if (st == SPT_OK) st = spt__msd_prepare(fn, m, P, hc, nbk);
    }
    SPT__AGREE(ctx, fn);
    st = spt__msd_scatter(fn, m, t, tk, tp);
    msd_phase(ctx, SPT_MPI_PHASE_LOCAL, &t0);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(msd_transfer(ctx, fn, tk, tp, c, rk, rp, in_place ? NULL : o));
    msd_phase(ctx, SPT_MPI_PHASE_EXCHANGE, &t0);
    /* each bucket: its pieces in rank order (my own read in place), sorted, my part decoded */
    for (int q = 0; q < P; q++) {
        src[q] = q == me ? tk + L[lo[me]] : rk + c[3 * P + q];
        src[P + q] = q == me ? tp + L[lo[me]] : rp + c[3 * P + q];
    }
    bool uniq = true;
    spt__msd_finish(m, src, src + P, B[me] - S[lo[me]], B[me + 1] - B[me], o, &uniq);
    for (int64_t d = 0; d < r; d++) o->order[d] = ord[d];
    o->flags = SPT__F_VALID | SPT__F_SORTED | (uniq ? SPT__F_UNIQUE : 0u);
    msd_phase(ctx, SPT_MPI_PHASE_MERGE, &t0);
    *out = o;
    o = NULL;
fail:
    if (o != inplace) spt_tensor_free(o);
    spt__free(src);
    spt__free(rk);
    spt__free(tk);
    spt__free(c);
    spt__free(hc);
    spt__free(w);
    spt__msd_free(m);
    return st;
}

/* ---- the sort ------------------------------------------------------------------------------------ */

spt_status spt__mpi_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order,
                         bool key_aligned, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    const spt_tensor *s = NULL;
    spt_tensor *own = NULL;
    int64_t *pos = NULL, ord[SPT_MAX_RANK];
    *out = NULL;
    if (order) {
        st = spt__check_order(fn, t->rank, order);
        if (st == SPT_OK && t->rank > 0 && !spt__order_defined(t->rank, order))
            st = spt__err(SPT_EINVAL, "%s: order must be a permutation of the %lld dims", fn, (long long)t->rank);
    }
    for (int64_t d = 0; d < t->rank; d++) ord[d] = order ? order[d] : d;
    if (P > 1 && !key_aligned) { /* packable keys: the MSD radix sort (*out NULL: not taken) */
        SPT__AGREE(ctx, fn);
        SPT__CHECK(spt__mpi_msd_sort(ctx, fn, t, ord, NULL, out));
        if (*out) goto fail;
    }
    double t0 = spt__mpi_now();
    if (st == SPT_OK) st = spt__mpi_local_sort(fn, t, ord, &s, &own);
    if (st == SPT_OK && P == 1 && !own) st = spt_tensor_clone(t, &own); /* the result is a new tensor */
    ctx->phase[SPT_MPI_PHASE_LOCAL] += spt__mpi_now() - t0;
    if (st == SPT_OK && P > 1) pos = spt__alloc_array(fn, P + 1, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    if (P == 1) { /* no exchange: the local sort is the result */
        *out = own;
        own = NULL;
        goto fail;
    }
    SPT__CHECK(spt__mpi_split(ctx, fn, 1, &s, ord, key_aligned, pos));
    spt_tensor **own_slot[1] = {&own}; /* the local sort's tensor is the result where nothing moves */
    SPT__CHECK(spt__mpi_exchange_sorted(ctx, fn, 1, &s, pos, ord, NULL, own_slot, out));
fail:
    spt__free(pos);
    spt_tensor_free(own);
    return st;
}

