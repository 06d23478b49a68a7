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
 * Second level: when the buckets a rank would receive exceed 1.1 N/P + MSD_SLACK entries (2^11 buckets
 * are too coarse beyond P ~ 100, or the keys cluster), the top buckets holding a block boundary (at most
 * P - 1) are split by the next d2 bits (msd_plan.c: about 32 sub-buckets per block for uniform keys, so
 * P up to ~ 2^17 keeps this path): each rank regroups its pairs of those buckets in place, one more
 * Allreduce sums the K x 2^d2 sub-counts, and the sort goes on over the finer units. Still too much
 * (a giant sub-bucket, e.g. every entry sharing its top index bits): every rank takes the sample sort
 * (the decisions are made from the global counts, the same everywhere). */

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
    SPT__MPI(fn,
             MPI_Ialltoallv(tk, ic, ic + P, MPI_UINT64_T, rk, ic + 2 * P, ic + 3 * P, MPI_UINT64_T, ctx->comm, &req[0]),
             "MPI_Ialltoallv (keys)");
    int rcode = MPI_Ialltoallv(tp, ic, ic + P, MPI_UINT64_T, rp, ic + 2 * P, ic + 3 * P, MPI_UINT64_T, ctx->comm,
                               &req[1]);
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

/* The units of the sort: the top buckets, or with the second level the top buckets and the sub-buckets
 * of the split ones, in key order. loc: my counts (nu) | L: their prefix sums (nu + 1) | S: the prefix
 * sums of the global counts (nu + 1). */
typedef struct msd_units {
    int64_t nu;
    int64_t *w; /* owns loc, L, S */
    int64_t *loc, *L, *S;
} msd_units;

static spt_status units_alloc(const char *fn, msd_units *u, int64_t nu) {
    spt_status st = SPT_OK;
    u->nu = nu;
    u->w = spt__alloc_array(fn, 3 * nu + 2, 1, sizeof(int64_t), false, &st);
    u->loc = u->w;
    u->L = u->w ? u->w + nu : NULL;
    u->S = u->w ? u->w + 2 * nu + 1 : NULL;
    return st;
}

/* L and S from loc and the global counts glob (nu each). */
static void units_sums(msd_units *u, const int64_t *glob) {
    memcpy(u->S, glob, (size_t)u->nu * sizeof *u->S);
    u->S[u->nu] = spt__scan_exclusive(u->S, u->nu);
    memcpy(u->L, u->loc, (size_t)u->nu * sizeof *u->L);
    u->L[u->nu] = spt__scan_exclusive(u->L, u->nu);
}

/* The second level: split the top buckets holding a block boundary by the next d2 bits (the pairs in
 * tk/tp regrouped in place, stably), sum the sub-counts over the ranks, and replace the top buckets'
 * units by the finer ones in *u; then the blocks again (*ok false: still skewed, the sample sort).
 * Collective; errors agreed. */
static spt_status msd_second_level(spt_mpi_ctx *ctx, const char *fn, spt__msd *m, uint64_t *tk, uint64_t *tp,
                                   msd_units *u, int64_t *B, int64_t *lo, int64_t *hi, bool *ok) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    const int64_t nb = u->nu;
    const int d2 = spt__msd_sub_digit(m, P), ns = (int)1 << d2;
    int64_t *pick = spt__alloc_array(fn, P, 1, sizeof(int64_t), false, &st), *cnt = NULL, *glob = NULL, K = 0;
    msd_units v = {0};
    *ok = false;
    if (pick) {
        K = spt__msd_pick(u->S, nb, B, P, pick);
        cnt = spt__alloc_array(fn, K > 0 ? K : 1, 2 * (int64_t)ns, sizeof(int64_t), false, &st);
    }
    if (cnt) st = spt__msd_sub_split(fn, m, d2, tk, tp, u->L, pick, K, cnt);
    if (st == SPT_OK) st = units_alloc(fn, &v, spt__msd_units(nb, d2, pick, K, NULL, NULL, NULL));
    if (st == SPT_OK) glob = spt__alloc_array(fn, v.nu, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    memcpy(cnt + K * ns, cnt, (size_t)(K * ns) * sizeof *cnt);
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, cnt + K * ns, K * ns, MPI_SUM));
    spt__msd_units(nb, d2, pick, K, u->loc, cnt, v.loc);
    int64_t *top = spt__alloc_array(fn, nb, 1, sizeof(int64_t), false, &st);
    if (top)
        for (int64_t j = 0; j < nb; j++) top[j] = u->S[j + 1] - u->S[j];
    if (top) spt__msd_units(nb, d2, pick, K, top, cnt + K * ns, glob);
    spt__free(top);
    SPT__AGREE(ctx, fn);
    units_sums(&v, glob);
    *ok = msd_blocks(v.S, v.nu, P, B, lo, hi);
    spt__free(u->w);
    *u = v;
    v.w = NULL;
fail:
    spt__free(v.w);
    spt__free(glob);
    spt__free(cnt);
    spt__free(pick);
    return st;
}

/* Plan, count, sum the counts, scatter the pairs by bucket, and the units each rank gets (one level, or
 * two when one is too coarse). *m NULL: the path does not apply (alike on every rank); *ok false:
 * skewed (the sample sort). glob: my counts' global sums, then every rank's nnz and the in-place flag.
 * Collective; errors agreed. */
static spt_status msd_setup(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *ord,
                            spt_tensor *inplace, spt__msd **m, msd_units *u, int64_t **glob, uint64_t **tk, int64_t *B,
                            int64_t *lo, int64_t *hi, bool *ok) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t n = t->nnz;
    double t0 = spt__mpi_now();
    *ok = false;
    st = spt__msd_plan(fn, t, ord, m);
    const int64_t nb = *m ? (int64_t)1 << spt__msd_digit(*m) : 0;
    if (*m) st = units_alloc(fn, u, nb);
    if (st == SPT_OK && *m) *glob = spt__alloc_array(fn, nb + P + 1, 1, sizeof(int64_t), false, &st);
    if (*glob) st = spt__msd_count(fn, *m, t, u->loc);
    msd_phase(ctx, SPT_MPI_PHASE_LOCAL, &t0);
    SPT__AGREE(ctx, fn);
    if (!*m) goto fail; /* not this path (alike on every rank) */
    int64_t *g = *glob;
    memcpy(g, u->loc, (size_t)nb * sizeof *g);
    memset(g + nb, 0, (size_t)(P + 1) * sizeof *g);
    g[nb + me] = n;
    g[nb + P] = inplace && inplace->owns_buffers;
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, g, nb + P + 1, MPI_SUM));
    units_sums(u, g);
    msd_phase(ctx, SPT_MPI_PHASE_SPLIT, &t0);
    /* the pairs grouped by bucket (read from t before an in-place result overwrites it) */
    *tk = spt__alloc_array(fn, n > 0 ? n : 1, 2, sizeof(uint64_t), false, &st);
    if (*tk) {
        spt__hint_huge(*tk, (size_t)(n > 0 ? n : 1) * 16);
        st = spt__msd_scatter(fn, *m, t, *tk, *tk + (n > 0 ? n : 1));
    }
    msd_phase(ctx, SPT_MPI_PHASE_LOCAL, &t0);
    SPT__AGREE(ctx, fn);
    *ok = msd_blocks(u->S, nb, P, B, lo, hi);
    if (!*ok && spt__msd_sub_digit(*m, P) > 0)
        SPT__CHECK(msd_second_level(ctx, fn, *m, *tk, *tk + (n > 0 ? n : 1), u, B, lo, hi, ok));
    spt__msd_note_levels(*ok ? (u->nu == nb ? 1 : 2) : 0);
    msd_phase(ctx, SPT_MPI_PHASE_SPLIT, &t0);
fail:
    return st;
}

spt_status spt__mpi_msd_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *ord,
                             spt_tensor *inplace, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t n = t->nnz, r = t->rank;
    spt__msd *m = NULL;
    msd_units u = {0};
    int64_t *glob = NULL, *hc = NULL, *c = NULL, *w = NULL;
    uint64_t *tk = NULL, *rk = NULL, *rp = NULL;
    const uint64_t **src = NULL;
    spt_tensor *o = NULL;
    bool ok = false;
    *out = NULL;
    spt__msd_note_levels(0);
    /* w: B (P + 1) | lo (P) | hi (P) */
    w = spt__alloc_array(fn, 3 * (int64_t)P + 1, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    int64_t *B = w, *lo = B + P + 1, *hi = lo + P;
    SPT__CHECK(msd_setup(ctx, fn, t, ord, inplace, &m, &u, &glob, &tk, B, lo, hi, &ok));
    if (!m || !ok) goto fail; /* not this path, or skewed: the sample sort */
    double t0 = spt__mpi_now();
    const int64_t nb = (int64_t)1 << spt__msd_digit(m);
    /* in place (reorder of a balanced dtensor): every rank keeps its count, so the result overwrites
     * the input's buffers (no fresh pages to fault in, none to free) */
    bool in_place = glob[nb + P] == P;
    for (int q = 0; q < P && in_place; q++) in_place = glob[nb + q] == B[q + 1] - B[q];
    const int64_t nbk = hi[me] - lo[me];
    SPT__CHECK(msd_bucket_counts(ctx, fn, u.loc, lo, hi, &hc));
    msd_phase(ctx, SPT_MPI_PHASE_SPLIT, &t0);
    c = spt__alloc_array(fn, 4, P, sizeof(int64_t), false, &st);
    int64_t rtotal = 0;
    if (c) {
        rtotal = msd_transfer_counts(P, me, u.L, lo, hi, hc, nbk, c);
        rk = spt__alloc_array(fn, rtotal > 0 ? rtotal : 1, 2, sizeof(uint64_t), false, &st);
        src = rk ? spt__calloc((size_t)P * 2, sizeof *src) : NULL;
        if (rk && !src) st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    }
    if (src) {
        rp = rk + (rtotal > 0 ? rtotal : 1);
        spt__hint_huge(rk, (size_t)(rtotal > 0 ? rtotal : 1) * 16);
        if (in_place) o = inplace;
        else st = spt__tensor_alloc_uninit(fn, t->dtype, r, t->shape, B[me + 1] - B[me], ord, &o);
        if (st == SPT_OK) st = spt__msd_prepare(fn, m, P, hc, nbk);
    }
    SPT__AGREE(ctx, fn);
    const uint64_t *tp = tk + (n > 0 ? n : 1);
    SPT__CHECK(msd_transfer(ctx, fn, tk, tp, c, rk, rp, in_place ? NULL : o));
    msd_phase(ctx, SPT_MPI_PHASE_EXCHANGE, &t0);
    /* each unit: its pieces in rank order (my own read in place), sorted, my part decoded */
    for (int q = 0; q < P; q++) {
        src[q] = q == me ? tk + u.L[lo[me]] : rk + c[3 * P + q];
        src[P + q] = q == me ? tp + u.L[lo[me]] : rp + c[3 * P + q];
    }
    bool uniq = true;
    spt__msd_finish(m, src, src + P, B[me] - u.S[lo[me]], B[me + 1] - B[me], o, &uniq);
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
    spt__free(glob);
    spt__free(u.w);
    spt__free(w);
    spt__msd_free(m);
    return st;
}

/* ---- the sort ------------------------------------------------------------------------------------ */

spt_status spt__mpi_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order, bool key_aligned,
                         spt_tensor **out) {
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
