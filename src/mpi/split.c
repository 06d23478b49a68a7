/* SPDX-License-Identifier: Apache-2.0 */
/* split.c -- the splitters of the sample sort: for each rank boundary, the key at that global position,
 * found exactly by a multiway selection over the sorted pieces. Each round every rank offers up to M index
 * rows spread over its window (the entries that may still hold the key), one Allgather brings every
 * rank's rows, and one Allreduce counts, for each, the entries below it and at most it; the windows then
 * shrink to the entries between the best lower and upper candidates, until a candidate is the key.
 * Rows are compared through the key plan, so any shape works, whatever its volume. */
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

#define SPLIT_MAX_ROUNDS 256 /* a window shrinks every round: reaching this is a bug */

spt_status spt__mpi_split(spt_mpi_ctx *ctx, const char *fn, int K, const spt_tensor *const *s, const int64_t *ord,
                          bool key_aligned, int64_t *pos) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t Q = P - 1, P1 = P + 1, r = s[0]->rank;
    double t0 = spt__mpi_now();
    /* candidate rows per target, rank and round: fewer when there are many (the gathered rows stay near
     * 1024 per target... and per round) */
    int64_t M = Q > 0 ? 1024 / (Q * P) : 1;
    M = M < 1 ? 1 : M > 63 ? 63 : M;
    const int64_t C = (int64_t)P * M;  /* gathered candidates per target */
    const int64_t B = Q + Q * M * r;   /* one rank's offer: counts, then rows */
    spt__keyplan kp;
    spt__mpi_plan(&kp, s[0], ord);
    int64_t n = 0;
    for (int k = 0; k < K; k++) n += s[k]->nnz;
    /* w: P counts | Q targets | Q flo | Q open | K*Q wa | K*Q wb | K*Q less | K*Q eq | Q eqsum | P*Q eqs |
     *    B offer | P*B offers | 2*Q*C global counts | 2*K*Q*C local bounds */
    int64_t words = 2 * (int64_t)P + 4 * Q + 4 * (int64_t)K * Q + (int64_t)P * Q + B + (int64_t)P * B + 2 * Q * C +
                    2 * (int64_t)K * Q * C + 1;
    int64_t *w = spt__alloc_array(fn, words, 1, sizeof(int64_t), true, &st);
    SPT__AGREE(ctx, fn);
    int64_t *counts = w, *T = counts + P, *flo = T + Q, *open = flo + Q, *wa = open + Q, *wb = wa + (int64_t)K * Q;
    int64_t *less = wb + (int64_t)K * Q, *eq = less + (int64_t)K * Q, *eqsum = eq + (int64_t)K * Q, *eqs = eqsum + Q;
    int64_t *offer = eqs + (int64_t)P * Q, *offers = offer + B, *gc = offers + (int64_t)P * B, *lb = gc + 2 * Q * C;
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, &n, 1, counts));
    int64_t N = 0;
    for (int q = 0; q < P; q++) N += counts[q]; /* sizes of real tensors: fits */
    for (int k = 0; k < K; k++) {
        pos[k * P1] = 0;
        for (int q = 1; q <= P; q++) pos[k * P1 + q] = s[k]->nnz; /* P == 1 or N == 0: everything stays */
    }
    if (P == 1 || N == 0) goto fail;
    for (int64_t j = 0; j < Q; j++) {
        T[j] = (j + 1) * (N / P) + ((j + 1) < N % P ? (j + 1) : N % P);
        open[j] = T[j] < N;
        for (int k = 0; k < K; k++) {
            wa[k * Q + j] = 0; /* the window: entries above the best lower candidate, below the best upper */
            wb[k * Q + j] = s[k]->nnz;
        }
    }
    for (int round = 0;; round++) {
        bool any = false;
        for (int64_t j = 0; j < Q; j++) {
            offer[j] = 0;
            if (!open[j]) continue;
            any = true;
            int64_t W = 0;
            for (int k = 0; k < K; k++) W += wb[k * Q + j] - wa[k * Q + j];
            int64_t m = W < M ? W : M;
            for (int64_t i = 0; i < m; i++) {
                int64_t g = (int64_t)(((unsigned __int128)W * (uint64_t)(2 * i + 1)) / (uint64_t)(2 * m));
                int k = 0;
                while (g >= wb[k * Q + j] - wa[k * Q + j]) g -= wb[k * Q + j] - wa[k * Q + j], k++;
                if (r) memcpy(offer + Q + (j * M + i) * r, s[k]->indices + (wa[k * Q + j] + g) * r, (size_t)r * 8);
            }
            offer[j] = m;
        }
        if (!any) break; /* (the same on every rank: the decisions below use global counts only) */
        if (round == SPLIT_MAX_ROUNDS) {
            st = spt__err(SPT_EINTERNAL, "%s: the splitter search did not converge", fn);
            break;
        }
        SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, offer, B, offers));
        /* my entries below / at most each candidate (inside my window: the candidate lies between the
         * window's bounds) */
        for (int64_t j = 0; j < Q; j++) {
            for (int64_t c = 0; c < C; c++) {
                int p = (int)(c / M);
                int64_t i = c % M, x = j * C + c;
                gc[2 * x] = gc[2 * x + 1] = 0;
                if (!open[j] || i >= offers[p * B + j]) continue;
                const int64_t *row = offers + p * B + Q + (j * M + i) * r;
                for (int k = 0; k < K; k++) {
                    int64_t a = bound(&kp, s[k], wa[k * Q + j], wb[k * Q + j], row, false);
                    int64_t b = bound(&kp, s[k], a, wb[k * Q + j], row, true);
                    lb[2 * (x * K + k)] = a;
                    lb[2 * (x * K + k) + 1] = b;
                    gc[2 * x] += a;
                    gc[2 * x + 1] += b;
                }
            }
        }
        SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, gc, 2 * Q * C, MPI_SUM));
        for (int64_t j = 0; j < Q; j++) {
            if (!open[j]) continue;
            int64_t lo = -1, hi = -1;
            for (int64_t c = 0; c < C && open[j]; c++) {
                int p = (int)(c / M);
                int64_t i = c % M, x = j * C + c;
                if (i >= offers[p * B + j]) continue;
                int64_t below = gc[2 * x], upto = gc[2 * x + 1];
                if (below <= T[j] && T[j] < upto) { /* the key at position T[j] */
                    open[j] = 0;
                    flo[j] = below;
                    for (int k = 0; k < K; k++) {
                        less[k * Q + j] = lb[2 * (x * K + k)];
                        eq[k * Q + j] = lb[2 * (x * K + k) + 1] - lb[2 * (x * K + k)];
                    }
                } else if (upto <= T[j]) {
                    if (lo < 0 || upto > gc[2 * lo + 1]) lo = x;
                } else if (hi < 0 || below < gc[2 * hi]) {
                    hi = x;
                }
            }
            if (!open[j]) continue;
            for (int k = 0; k < K; k++) {
                if (lo >= 0) wa[k * Q + j] = lb[2 * (lo * K + k) + 1];
                if (hi >= 0) wb[k * Q + j] = lb[2 * (hi * K + k)];
            }
        }
    }
    SPT__AGREE(ctx, fn);
    /* the key at each boundary: its copies here (less, eq per input), their sum on every rank */
    for (int64_t j = 0; j < Q; j++) {
        eqsum[j] = 0;
        for (int k = 0; k < K; k++) {
            if (T[j] >= N) less[k * Q + j] = eq[k * Q + j] = 0;
            eqsum[j] += eq[k * Q + j];
        }
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
