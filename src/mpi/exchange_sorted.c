/* SPDX-License-Identifier: Apache-2.0 */
/* exchange_sorted.c -- the direct exchange of the sample sort: each input's ranges move straight from
 * its tensor buffers into one receive buffer (index rows and values in two concurrent non-blocking
 * all-to-alls, no packing), and each rank merges its P sorted runs once (merge.c). Strings and blocks
 * above the message limit take the packed exchange (exchange.c). */
#include "priv/mpi_priv.h"

typedef spt__mpi_run run;

/* The packed way, input by input (strings, blocks above the limit, displacements past int). */
static spt_status exchange_packed(spt_mpi_ctx *ctx, const char *fn, int K, const spt_tensor *const *s,
                                  const int64_t *pos, const int64_t *ord, spt__mpi_add_fn add, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    const int64_t P1 = P + 1;
    int64_t *scp = spt__alloc_array(fn, P, 1, sizeof(int64_t), false, &st);
    for (int k = 0; k < K; k++) {
        st = spt__mpi_agree(ctx, fn, st);
        if (st != SPT_OK) break;
        for (int q = 0; q < P; q++) scp[q] = pos[k * P1 + q + 1] - pos[k * P1 + q];
        st = spt__mpi_exchange(ctx, fn, s[k], scp, ord, add, &out[k]);
    }
    spt__free(scp);
    return spt__mpi_agree(ctx, fn, st);
}

/* The direct way holds: no strings, every block within the message limit, entry counts and
 * displacements within int (this rank's part of the decision). */
static bool fits_direct(const spt_mpi_ctx *ctx, int K, const spt_tensor *const *s, const int64_t *c,
                        const int64_t *rc) {
    const int P = ctx->size;
    const int64_t r = s[0]->rank, es = (int64_t)spt_dtype_size(s[0]->dtype);
    if (s[0]->dtype == SPT_STRING) return false;
    for (int64_t i = 0; i < (int64_t)K * P; i++) {
        int64_t m = c[i] > rc[i] ? c[i] : rc[i];
        if (m > ctx->limit / (r * 8 > es ? r * 8 : es)) return false;
    }
    for (int k = 0; k < K; k++) {
        int64_t rin = 0;
        for (int q = 0; q < P; q++) rin += rc[q * K + k];
        if (s[k]->nnz > INT_MAX || rin > INT_MAX) return false;
    }
    return true;
}

/* The transfer: for each input two concurrent non-blocking all-to-alls over the same counts (ic: per input
 * send counts | send displacements | receive counts | receive displacements, in entries), one of index
 * rows and one of values, each a contiguous block per peer read from and written into the buffers in
 * place (so shared memory can move it with a single copy). While they run, the output buffers are
 * touched page by page (their page faults are the merge's largest fixed cost), with MPI_Testall between
 * pages so the transfer progresses. Returns an MPI code. */
static int transfer(spt_mpi_ctx *ctx, int K, const spt_tensor *const *s, const int *ic, const int64_t *c, char **rbuf,
                    const int64_t *rrec, const int64_t *total, spt_tensor **out) {
    const int P = ctx->size;
    const int64_t r = s[0]->rank;
    const size_t es = spt_dtype_size(s[0]->dtype);
    MPI_Datatype tix = MPI_DATATYPE_NULL, tval = MPI_DATATYPE_NULL;
    MPI_Request req[2 * SPT__MPI_MAX_INPUTS];
    int nreq = 0, rcode = MPI_SUCCESS;
    if (r) rcode = MPI_Type_contiguous((int)(r * 8), MPI_BYTE, &tix);
    if (rcode == MPI_SUCCESS && r) rcode = MPI_Type_commit(&tix);
    if (rcode == MPI_SUCCESS) rcode = MPI_Type_contiguous((int)es, MPI_BYTE, &tval);
    if (rcode == MPI_SUCCESS) rcode = MPI_Type_commit(&tval);
    for (int k = 0; k < K && rcode == MPI_SUCCESS; k++) {
        const int *kc = ic + 4 * (int64_t)k * P;
        for (int q = 0; q < P; q++) ctx->payload_bytes += c[q * K + k] * (r * 8 + (int64_t)es);
        ctx->collectives += r ? 2 : 1;
        if (r)
            rcode = MPI_Ialltoallv(s[k]->indices, kc, kc + P, tix, rbuf[k], kc + 2 * P, kc + 3 * P, tix, ctx->comm,
                                   &req[nreq++]);
        if (rcode == MPI_SUCCESS)
            rcode = MPI_Ialltoallv(s[k]->values, kc, kc + P, tval, rbuf[k] + rrec[k] * r * 8, kc + 2 * P, kc + 3 * P,
                                   tval, ctx->comm, &req[nreq++]);
    }
    int done = 0;
    for (int k = 0; k < K && rcode == MPI_SUCCESS; k++) {
        if (!out[k]) continue; /* a donated input: its tensor is the result */
        char *bufs[2] = {(char *)out[k]->indices, (char *)out[k]->values};
        size_t len[2] = {(size_t)(total[k] * r) * 8, (size_t)total[k] * es};
        for (int j = 0; j < 2; j++)
            for (size_t off = 0; off < len[j]; off += 4096) {
                ((volatile char *)bufs[j])[off] = 0;
                if (!done && (off & ((1u << 20) - 1)) == 0) rcode = MPI_Testall(nreq, req, &done, MPI_STATUSES_IGNORE);
            }
    }
    if (rcode == MPI_SUCCESS && !done) rcode = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    if (tix != MPI_DATATYPE_NULL) MPI_Type_free(&tix);
    if (tval != MPI_DATATYPE_NULL) MPI_Type_free(&tval);
    return rcode;
}

/* Input k's result: the P-way merge of my own range of s (run me) and what each rank q sent (rc[q*K+k]
 * entries at ro[k*P+q] of rbuf: index rows, then values after rrec rows). */
static spt_status merge_received(const spt_mpi_ctx *ctx, const char *fn, const spt__keyplan *kp, int K, int k,
                                 const spt_tensor *s, const int64_t *pos, const int64_t *rc, const int64_t *ro,
                                 const char *rbuf, int64_t rrec, spt__mpi_add_fn add, run *runs, spt_tensor *o) {
    const int P = ctx->size, me = ctx->rank;
    const int64_t P1 = P + 1, r = s->rank;
    const size_t es = spt_dtype_size(s->dtype);
    const int64_t *rix = (const int64_t *)rbuf;
    const char *rv = rbuf + rrec * r * 8;
    for (int q = 0; q < P; q++) {
        if (q == me) {
            int64_t at = pos[k * P1 + q];
            runs[q] = (run){s->indices + at * r, (const char *)s->values + (size_t)at * es, pos[k * P1 + q + 1] - at,
                            0};
        } else {
            runs[q] = (run){rix + ro[k * P + q] * r, rv + (size_t)ro[k * P + q] * es, rc[q * K + k], 0};
        }
    }
    bool uniq = true;
    int64_t m = 0;
    spt_status st = spt__mpi_merge(fn, kp, runs, P, o, add, &m, &uniq);
    if (st != SPT_OK) return st;
    if (m < o->nnz) spt__tensor_truncate(o, m);
    o->flags = SPT__F_VALID | SPT__F_SORTED | (uniq || add ? SPT__F_UNIQUE : 0u);
    return SPT_OK;
}

/* First entry of the n rows at ix (sorted by kp) whose key is >= key (upper: > key). */
static int64_t bound(const spt__keyplan *kp, const int64_t *ix, int64_t n, int64_t r, const int64_t *key, bool upper) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = spt__keyplan_cmp(kp, ix + mid * r, key);
        if (c < 0 || (upper && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Input k's result written into the donor d (== s, owned buffers), which keeps its range A = [a, b) and
 * receives the runs of the other ranks. Only the part of A whose keys lie between the smallest and the
 * largest received key, [ilo, ihi), is merged with them (into a scratch tensor: the same stable P-way
 * merge, so the same entries and sums as merge_received); the entries of A below it (keys strictly less
 * than every received key) and above it (strictly greater) stay as they are. The result is laid out in
 * d's own buffers: A's prefix moved to the front (when d sent entries to lower ranks), the merged region
 * after it, A's suffix moved behind that; the buffers grow by realloc first when the result is longer than
 * d, and shrink after when it is shorter. *fallback: the region is too large for this to pay (nothing
 * changed; the caller runs the full merge). Every step that can fail comes before the first write into d. */
static spt_status merge_into_donor(const spt_mpi_ctx *ctx, const char *fn, const spt__keyplan *kp, int K, int k,
                                   spt_tensor *d, const int64_t *pos, const int64_t *rc, const int64_t *ro,
                                   const char *rbuf, int64_t rrec, spt__mpi_add_fn add, run *runs, bool *fallback) {
    const int P = ctx->size, me = ctx->rank;
    const int64_t P1 = P + 1, r = d->rank;
    const size_t es = spt_dtype_size(d->dtype);
    const int64_t a = pos[k * P1 + me], nA = pos[k * P1 + me + 1] - a;
    const int64_t *rix = (const int64_t *)rbuf, *Aix = d->indices + a * r;
    const char *rv = rbuf + rrec * r * 8, *Av = (const char *)d->values + (size_t)a * es;
    spt_status st = SPT_OK;
    spt_tensor *M = NULL;
    *fallback = false;
    /* the region of A the received keys touch */
    int64_t ilo = nA, ihi = nA;
    if (rrec > 0) {
        const int64_t *lo = NULL, *hi = NULL;
        for (int q = 0; q < P; q++) {
            int64_t n = q == me ? 0 : rc[q * K + k];
            if (!n) continue;
            const int64_t *f = rix + ro[k * P + q] * r, *l = f + (n - 1) * r;
            if (!lo || spt__keyplan_cmp(kp, f, lo) < 0) lo = f;
            if (!hi || spt__keyplan_cmp(kp, l, hi) > 0) hi = l;
        }
        ilo = bound(kp, Aix, nA, r, lo, false);
        ihi = ilo + bound(kp, Aix + ilo * r, nA - ilo, r, hi, true);
    }
    const int64_t reg = ihi - ilo;
    if (rrec + reg > SPT__MPI_INPLACE_MAX(nA)) {
        *fallback = true;
        return SPT_OK;
    }
    /* the region merged with the received runs (rank order; run me is A's region) */
    int64_t m = 0;
    bool uniq = true;
    if (rrec + reg > 0) {
        SPT__CHECK(spt__tensor_alloc_uninit(fn, d->dtype, r, d->shape, rrec + reg, NULL, &M));
        for (int q = 0; q < P; q++)
            runs[q] = q == me ? (run){Aix + ilo * r, Av + (size_t)ilo * es, reg, 0}
                              : (run){rix + ro[k * P + q] * r, rv + (size_t)ro[k * P + q] * es, rc[q * K + k], 0};
        SPT__CHECK(spt__mpi_merge(fn, kp, runs, P, M, add, &m, &uniq));
    }
    const int64_t n1 = ilo + m + (nA - ihi), n0 = d->nnz;
    if (n1 > n0) { /* grow (glibc moves a large block by remapping its pages, not by copying) */
        size_t ib, vb;
        if (spt__bytes3(n1, r, sizeof(int64_t), &ib) || spt__bytes3(n1, 1, es, &vb)) {
            st = spt__err(SPT_EOVERFLOW, "%s: %lld entries do not fit in size_t", fn, (long long)n1);
            goto fail;
        }
        if (r) {
            int64_t *p = spt__realloc(d->indices, ib);
            if (!p) {
                st = spt__err(SPT_ENOMEM, "%s: cannot grow an index buffer to %zu bytes", fn, ib);
                goto fail;
            }
            d->indices = p;
        }
        void *p = spt__realloc(d->values, vb);
        if (!p) {
            st = spt__err(SPT_ENOMEM, "%s: cannot grow a value buffer to %zu bytes", fn, vb);
            goto fail;
        }
        d->values = p;
    }
    /* nothing fails from here: prefix to the front, suffix behind the merged region, the region */
    spt__rowptr_drop(d);
    char *ix = (char *)d->indices, *v = d->values;
    const size_t rb = (size_t)r * 8;
    if (a > 0 && ilo > 0) {
        if (r) memmove(ix, ix + (size_t)a * rb, (size_t)ilo * rb);
        memmove(v, v + (size_t)a * es, (size_t)ilo * es);
    }
    if (a + ihi != ilo + m && nA > ihi) {
        if (r) memmove(ix + (size_t)(ilo + m) * rb, ix + (size_t)(a + ihi) * rb, (size_t)(nA - ihi) * rb);
        memmove(v + (size_t)(ilo + m) * es, v + (size_t)(a + ihi) * es, (size_t)(nA - ihi) * es);
    }
    if (m > 0) {
        if (r) memcpy(ix + (size_t)ilo * rb, M->indices, (size_t)m * rb);
        memcpy(v + (size_t)ilo * es, M->values, (size_t)m * es);
    }
    if (n1 < n0) spt__tensor_truncate(d, n1);
    d->nnz = n1;
    /* A's keys below and above the region are strictly outside the received keys' range */
    const bool unique = add || ((d->flags & SPT__F_UNIQUE) && (rrec + reg == 0 || uniq));
    d->flags = SPT__F_VALID | SPT__F_SORTED | (unique ? SPT__F_UNIQUE : 0u);
fail:
    spt_tensor_free(M);
    return st;
}

spt_status spt__mpi_exchange_sorted(spt_mpi_ctx *ctx, const char *fn, int K, const spt_tensor *const *s,
                                    const int64_t *pos, const int64_t *ord, spt__mpi_add_fn add, spt_tensor **donor[],
                                    spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t P1 = P + 1, r = s[0]->rank;
    const size_t es = spt_dtype_size(s[0]->dtype);
    int64_t *c = NULL;
    int *ic = NULL;
    char **rbuf = NULL;
    run *runs = NULL;
    spt__keyplan kp;
    spt__mpi_plan(&kp, s[0], ord);
    for (int k = 0; k < K; k++) out[k] = NULL;
    double t0 = spt__mpi_now();
    if (K > SPT__MPI_MAX_INPUTS) st = spt__err(SPT_EINTERNAL, "%s: %d inputs to one exchange", fn, K);
    /* c: K*P send counts (peer-major) | K*P receive counts (peer-major) | K*P receive offsets (entries,
     * input-major) */
    if (st == SPT_OK) c = spt__alloc_array(fn, 3 * (int64_t)K, P, sizeof(int64_t), true, &st);
    int64_t big = 0;
    if (c) {
        for (int q = 0; q < P; q++)
            for (int k = 0; k < K; k++) c[q * K + k] = q == me ? 0 : pos[k * P1 + q + 1] - pos[k * P1 + q];
    }
    SPT__AGREE(ctx, fn);
    /* the counts, once */
    ctx->meta_bytes += 8 * (int64_t)K * (P - 1);
    ctx->collectives++;
    SPT__MPI(fn, MPI_Alltoall(c, K, MPI_INT64_T, c + (int64_t)K * P, K, MPI_INT64_T, ctx->comm),
             "MPI_Alltoall (counts)");
    int64_t *rc = c + (int64_t)K * P, *ro = rc + (int64_t)K * P;
    /* strings (their bytes live apart) and blocks above the message limit: the packed, chunked way */
    big = !fits_direct(ctx, K, s, c, rc);
    if (P > 1 && s[0]->dtype != SPT_STRING) SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, &big, 1, MPI_MAX));
    if (big) {
        ctx->phase[SPT_MPI_PHASE_EXCHANGE] += spt__mpi_now() - t0;
        SPT__CHECK(exchange_packed(ctx, fn, K, s, pos, ord, add, out));
        goto done;
    }
    /* receive buffers: per input, the runs from other ranks back to back (rank order): index rows, then
     * values */
    rbuf = spt__calloc((size_t)K, sizeof *rbuf);
    ic = rbuf ? spt__alloc_array(fn, 4 * (int64_t)K, P, sizeof(int), true, &st) : NULL;
    if (!rbuf) st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    int64_t total[SPT__MPI_MAX_INPUTS] = {0}, rrec[SPT__MPI_MAX_INPUTS] = {0};
    bool donated[SPT__MPI_MAX_INPUTS] = {false};
    for (int k = 0; k < K && st == SPT_OK; k++) {
        /* ro (input-major): where each source's run starts in the receive buffer */
        for (int q = 0; q < P; q++) ro[k * P + q] = rc[q * K + k];
        rrec[k] = spt__scan_exclusive(ro + (int64_t)k * P, P);
        total[k] = rrec[k] + pos[k * P1 + me + 1] - pos[k * P1 + me];
        /* a donated input this rank keeps most of, receiving little for it: the result is written into
         * the input's own buffers (merge_into_donor; e.g. a reduce whose partial sums move only at the
         * edges of each rank's key range), with no fresh output; the transfer below is still joined */
        donated[k] = donor && donor[k] && *donor[k] == s[k] && s[k]->owns_buffers &&
                     rrec[k] <= SPT__MPI_INPLACE_MAX(pos[k * P1 + me + 1] - pos[k * P1 + me]);
        if (donated[k]) total[k] = 0;
        rbuf[k] = spt__alloc_array(fn, rrec[k], r * 8 + (int64_t)es, 1, false, &st);
        /* huge pages before the transfer writes it: halves the exchange at 10^7 entries (4 KiB faults) */
        if (rbuf[k]) spt__hint_huge(rbuf[k], (size_t)(rrec[k] * (r * 8 + (int64_t)es)));
        if (st == SPT_OK && !donated[k])
            st = spt__tensor_alloc_uninit(fn, s[0]->dtype, r, s[0]->shape, total[k], ord, &out[k]);
        /* counts and displacements in entries (int): for each input, send counts | send displacements |
         * receive counts | receive displacements */
        int *kc = ic + 4 * (int64_t)k * P;
        for (int q = 0; q < P && ic; q++) {
            kc[q] = (int)c[q * K + k];
            kc[P + q] = (int)pos[k * P1 + q];
            kc[2 * P + q] = (int)rc[q * K + k];
            kc[3 * P + q] = (int)ro[k * P + q];
        }
    }
    SPT__AGREE(ctx, fn);
    SPT__MPI(fn, transfer(ctx, K, s, ic, c, rbuf, rrec, total, out), "MPI_Ialltoallv");
    double t1 = spt__mpi_now();
    ctx->phase[SPT_MPI_PHASE_EXCHANGE] += t1 - t0;
    t0 = t1;
    /* the merge: run q is my own range of s[k] (q == me) or what rank q sent */
    runs = spt__calloc((size_t)P, sizeof *runs);
    if (!runs) st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    for (int k = 0; k < K && st == SPT_OK; k++) {
        if (donated[k]) {
            bool fallback = false;
            st = merge_into_donor(ctx, fn, &kp, K, k, *donor[k], pos, rc, ro, rbuf[k], rrec[k], add, runs, &fallback);
            if (st == SPT_OK && !fallback) {
                out[k] = *donor[k];
                *donor[k] = NULL;
                spt__free(rbuf[k]);
                rbuf[k] = NULL;
                continue;
            }
            /* the received keys spread over too much of the kept range: the full merge */
            if (st == SPT_OK) {
                total[k] = rrec[k] + pos[k * P1 + me + 1] - pos[k * P1 + me];
                st = spt__tensor_alloc_uninit(fn, s[0]->dtype, r, s[0]->shape, total[k], ord, &out[k]);
            }
            if (st != SPT_OK) break;
        }
        st = merge_received(ctx, fn, &kp, K, k, s[k], pos, rc, ro, rbuf[k], rrec[k], add, runs, out[k]);
        spt__free(rbuf[k]);
        rbuf[k] = NULL;
    }
    ctx->phase[SPT_MPI_PHASE_MERGE] += spt__mpi_now() - t0;
    SPT__AGREE(ctx, fn);
done:
    st = SPT_OK;
fail:
    if (st != SPT_OK)
        for (int k = 0; k < K; k++) {
            spt_tensor_free(out[k]);
            out[k] = NULL;
        }
    if (rbuf)
        for (int k = 0; k < K; k++) spt__free(rbuf[k]);
    spt__free(runs);
    spt__free(rbuf);
    spt__free(ic);
    spt__free(c);
    return st;
}
