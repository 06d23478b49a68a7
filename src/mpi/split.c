/* SPDX-License-Identifier: Apache-2.0 */
/* split.c -- the splitters of the sample sort: for each rank boundary, the key at that global position,
 * found exactly by a multiway search over the sorted pieces, one dim of the key at a time (most
 * significant first): with the dims before fixed, M probe values of the current dim cut its open range,
 * one Allreduce counts the entries below each probe row on all ranks, and the range shrinks to the probes
 * around the boundary; when it is one value wide that dim is fixed and the next one opens. Rows are
 * compared through the key plan, so any shape works, whatever its volume, and a round costs (P-1) x M
 * counts whatever the rank of the tensor. */
#include "priv/mpi_priv.h"

/* First position in [lo, hi) of sorted t whose row is >= x (strict: > x). */
static int64_t bound(const spt__keyplan *kp, const spt_tensor *t, int64_t lo, int64_t hi, const int64_t *x, bool strict) {
    const int64_t r = t->rank;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = spt__keyplan_cmp(kp, t->indices + mid * r, x);
        if (c < 0 || (strict && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

spt_status spt__mpi_split(spt_mpi_ctx *ctx, const char *fn, int K, const spt_tensor *const *s, const int64_t *ord,
                          bool key_aligned, int64_t *pos) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t Q = P - 1, P1 = P + 1, r = s[0]->rank;
    double t0 = spt__mpi_now();
    /* probes per open target and round: more when there are few targets (fewer rounds), fewer when
     * there are many (smaller reductions) */
    int64_t M = Q > 0 ? 1024 / Q : 1;
    M = M < 3 ? 3 : M > 63 ? 63 : M;
    spt__keyplan kp;
    spt__mpi_plan(&kp, s[0], ord);
    const int64_t nd = kp.nd;
    int64_t n = 0;
    for (int k = 0; k < K; k++) n += s[k]->nnz;
    /* w: P counts | Q targets | Q lo | Q hi | Q flo | Q dim | Q*M probe counts | K*Q less | K*Q eq | Q eqsum |
     *    P*Q eqsums | Q*r rows (the fixed dims of each target's key, then its probe) */
    int64_t *w = spt__alloc_array(fn, 2 * (int64_t)P + 6 * Q + Q * M + 2 * (int64_t)K * Q + (int64_t)P * Q + Q * r + 1,
                                  1, sizeof(int64_t), true, &st);
    SPT__AGREE(ctx, fn);
    int64_t *counts = w, *T = counts + P, *lo = T + Q, *hi = lo + Q, *flo = hi + Q, *dim = flo + Q, *mc = dim + Q;
    int64_t *less = mc + Q * M, *eq = less + (int64_t)K * Q, *eqsum = eq + (int64_t)K * Q, *eqs = eqsum + Q;
    int64_t *key = eqs + (int64_t)P * Q;
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, &n, 1, counts));
    int64_t N = 0;
    for (int q = 0; q < P; q++) N += counts[q]; /* sizes of real tensors: fits */
    for (int k = 0; k < K; k++) {
        pos[k * P1] = 0;
        for (int q = 1; q <= P; q++) pos[k * P1 + q] = s[k]->nnz; /* P == 1 or N == 0: everything stays */
    }
    if (P == 1 || N == 0) goto fail;
    /* target j: dims kp.dims[0..dim[j]) of its key fixed in key[j]; the current dim's value v in
     * [lo, hi) with f(lo) = flo <= T[j] < f(hi), f(v) = the global count of rows below (fixed dims, v,
     * 0, ...) (the smallest row with that prefix; f(size) counts every row with the fixed prefix) */
    for (int64_t j = 0; j < Q; j++) {
        T[j] = (j + 1) * (N / P) + ((j + 1) < N % P ? (j + 1) : N % P);
        dim[j] = 0;
        lo[j] = flo[j] = 0;
        hi[j] = nd ? kp.size[0] : 1;
        for (int64_t c = 0; c < r; c++) key[j * r + c] = 0;
    }
    for (;;) {
        bool open = false;
        for (int64_t j = 0; j < Q; j++) {
            int64_t *c = mc + j * M, *row = key + j * r;
            /* a range one value wide fixes its dim (the next one opens over its whole size) */
            while (T[j] < N && dim[j] < nd && hi[j] - lo[j] <= 1) {
                row[kp.dims[dim[j]]] = lo[j];
                if (++dim[j] < nd) {
                    lo[j] = 0;
                    hi[j] = kp.size[dim[j]];
                }
            }
            if (T[j] < N && dim[j] < nd) {
                open = true;
                const int64_t d = kp.dims[dim[j]];
                uint64_t span = (uint64_t)(hi[j] - lo[j]);
                for (int64_t m = 0; m < M; m++) {
                    row[d] = lo[j] + (span - 1 <= (uint64_t)M ? (m + 1 < (int64_t)span ? m + 1 : (int64_t)span - 1)
                                                               : (int64_t)(((unsigned __int128)span * (uint64_t)(m + 1)) / (uint64_t)(M + 1)));
                    c[m] = 0;
                    for (int k = 0; k < K; k++) c[m] += bound(&kp, s[k], 0, s[k]->nnz, row, false);
                }
                row[d] = 0;
            } else {
                for (int64_t m = 0; m < M; m++) c[m] = 0;
            }
        }
        if (!open) break; /* (the same on every rank: the ranges move by global counts only) */
        SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, mc, Q * M, MPI_SUM));
        for (int64_t j = 0; j < Q; j++) {
            if (!(T[j] < N && dim[j] < nd)) continue;
            uint64_t span = (uint64_t)(hi[j] - lo[j]);
            int64_t nlo = lo[j], nhi = hi[j], nflo = flo[j];
            for (int64_t m = 0; m < M; m++) {
                int64_t x = lo[j] + (span - 1 <= (uint64_t)M ? (m + 1 < (int64_t)span ? m + 1 : (int64_t)span - 1)
                                                             : (int64_t)(((unsigned __int128)span * (uint64_t)(m + 1)) / (uint64_t)(M + 1)));
                int64_t c = mc[j * M + m];
                if (c <= T[j]) {
                    if (x > nlo) { nlo = x; nflo = c; }
                } else if (x < nhi) {
                    nhi = x;
                }
            }
            lo[j] = nlo;
            hi[j] = nhi;
            flo[j] = nflo;
        }
    }
    /* key[j] = the row k* with f(k*) <= T < f(k*) + its copies: its copies here, per input */
    for (int64_t j = 0; j < Q; j++)
        for (int k = 0; k < K; k++) {
            if (T[j] >= N) {
                less[k * Q + j] = eq[k * Q + j] = 0;
                continue;
            }
            less[k * Q + j] = bound(&kp, s[k], 0, s[k]->nnz, key + j * r, false);
            eq[k * Q + j] = bound(&kp, s[k], less[k * Q + j], s[k]->nnz, key + j * r, true) - less[k * Q + j];
        }
    /* their sum on every rank */
    for (int64_t j = 0; j < Q; j++) {
        eqsum[j] = 0;
        for (int k = 0; k < K; k++) eqsum[j] += eq[k * Q + j];
    }
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, eqsum, Q, eqs));
    for (int64_t j = 0; j < Q; j++) {
        int64_t pre = 0, E = 0, L = flo[j];
        for (int q = 0; q < P; q++) {
            if (q < me) pre += eqs[(int64_t)q * Q + j];
            E += eqs[(int64_t)q * Q + j];
        }
        for (int k = 0; k < K; k++) {
            int64_t *pk = pos + k * P1;
            if (T[j] >= N) {
                pk[j + 1] = s[k]->nnz;
            } else if (key_aligned) {
                /* the whole key goes to the side nearer the balanced position */
                pk[j + 1] = less[k * Q + j] + (T[j] - L <= L + E - T[j] ? 0 : eq[k * Q + j]);
            } else { /* K == 1: the key's copies split at T in global sequence order */
                int64_t take = T[j] - L - pre;
                take = take < 0 ? 0 : take > eq[k * Q + j] ? eq[k * Q + j] : take;
                pk[j + 1] = less[k * Q + j] + take;
            }
        }
    }
    /* splits of different targets on one key: keep the positions non-decreasing */
    for (int k = 0; k < K; k++)
        for (int q = 1; q <= P; q++)
            if (pos[k * P1 + q] < pos[k * P1 + q - 1]) pos[k * P1 + q] = pos[k * P1 + q - 1];
fail:
    spt__free(w);
    ctx->phase[SPT_MPI_PHASE_SPLIT] += spt__mpi_now() - t0;
    return st;
}
