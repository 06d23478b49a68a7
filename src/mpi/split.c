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
static int64_t bound(const spt__keyplan *kp, const spt_tensor *t, int64_t lo, int64_t hi, const int64_t *x,
                     bool strict) {
    const int64_t r = t->rank;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = spt__keyplan_cmp(kp, t->indices + mid * r, x);
        if (c < 0 || (strict && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The search state of the Q = P - 1 targets (one per rank boundary), in one int64 block. Target j: its
 * global position T[j]; dims kp.dims[0..dim[j]) of its key fixed in key[j] (rank r); the current dim's
 * value v in [lo, hi) with f(lo) = flo <= T[j] < f(hi), f(v) = the global count of rows below (fixed
 * dims, v, 0, ...) (the smallest row with that prefix; f(size) counts every row with the fixed prefix);
 * mc: M probe counts per target; less/eq: per input and target, this rank's rows below the key and its
 * copies; eqsum: the copies over the inputs; eqs: every rank's eqsum. */
typedef struct split_search {
    int64_t Q, M, N, r, K;
    int64_t *T, *lo, *hi, *flo, *dim, *mc, *less, *eq, *eqsum, *eqs, *key;
} split_search;

/* Probe m of M in a range [lo, lo + span) of span >= 2 values: every value when they are few, else
 * evenly spaced. */
static int64_t probe_value(int64_t lo, uint64_t span, int64_t m, int64_t M) {
    if (span - 1 <= (uint64_t)M) return lo + (m + 1 < (int64_t)span ? m + 1 : (int64_t)span - 1);
    return lo + (int64_t)(((unsigned __int128)span * (uint64_t)(m + 1)) / (uint64_t)(M + 1));
}

static bool target_open(const split_search *sr, const spt__keyplan *kp, int64_t j) {
    return sr->T[j] < sr->N && sr->dim[j] < kp->nd;
}

/* One round's local part: each open target fixes the dims whose range is one value wide, then counts
 * this rank's rows below each of its M probes into mc. False when no target is open (the same on every
 * rank: the ranges move by global counts only). */
static bool split_probe(split_search *sr, const spt__keyplan *kp, const spt_tensor *const *s) {
    bool open = false;
    const int64_t M = sr->M;
    for (int64_t j = 0; j < sr->Q; j++) {
        int64_t *c = sr->mc + j * M, *row = sr->key + j * sr->r;
        while (target_open(sr, kp, j) && sr->hi[j] - sr->lo[j] <= 1) {
            row[kp->dims[sr->dim[j]]] = sr->lo[j];
            if (++sr->dim[j] < kp->nd) {
                sr->lo[j] = 0;
                sr->hi[j] = kp->size[sr->dim[j]];
            }
        }
        if (!target_open(sr, kp, j)) {
            for (int64_t m = 0; m < M; m++) c[m] = 0;
            continue;
        }
        open = true;
        const int64_t d = kp->dims[sr->dim[j]];
        const uint64_t span = (uint64_t)(sr->hi[j] - sr->lo[j]);
        for (int64_t m = 0; m < M; m++) {
            row[d] = probe_value(sr->lo[j], span, m, M);
            c[m] = 0;
            for (int64_t k = 0; k < sr->K; k++) c[m] += bound(kp, s[k], 0, s[k]->nnz, row, false);
        }
        row[d] = 0;
    }
    return open;
}

/* After the Allreduce of the probe counts: each open range shrinks to the probes around its target. */
static void split_narrow(split_search *sr, const spt__keyplan *kp) {
    const int64_t M = sr->M;
    for (int64_t j = 0; j < sr->Q; j++) {
        if (!target_open(sr, kp, j)) continue;
        const uint64_t span = (uint64_t)(sr->hi[j] - sr->lo[j]);
        int64_t nlo = sr->lo[j], nhi = sr->hi[j], nflo = sr->flo[j];
        for (int64_t m = 0; m < M; m++) {
            int64_t x = probe_value(sr->lo[j], span, m, M), c = sr->mc[j * M + m];
            if (c <= sr->T[j]) {
                if (x > nlo) {
                    nlo = x;
                    nflo = c;
                }
            } else if (x < nhi) {
                nhi = x;
            }
        }
        sr->lo[j] = nlo;
        sr->hi[j] = nhi;
        sr->flo[j] = nflo;
    }
}

/* key[j] = the row k* with f(k*) <= T < f(k*) + its copies: this rank's rows below it and its copies,
 * per input (less, eq), and their sum over the inputs (eqsum). */
static void split_copies(split_search *sr, const spt__keyplan *kp, const spt_tensor *const *s) {
    const int64_t Q = sr->Q;
    for (int64_t j = 0; j < Q; j++) {
        sr->eqsum[j] = 0;
        for (int64_t k = 0; k < sr->K; k++) {
            int64_t *lk = sr->less + k * Q + j, *ek = sr->eq + k * Q + j;
            if (sr->T[j] >= sr->N) {
                *lk = *ek = 0;
                continue;
            }
            *lk = bound(kp, s[k], 0, s[k]->nnz, sr->key + j * sr->r, false);
            *ek = bound(kp, s[k], *lk, s[k]->nnz, sr->key + j * sr->r, true) - *lk;
            sr->eqsum[j] += *ek;
        }
    }
}

/* The cut positions from every rank's copies of the keys (eqs). */
static void split_positions(const split_search *sr, const spt_tensor *const *s, int P, int me, bool key_aligned,
                            int64_t *pos) {
    const int64_t Q = sr->Q, P1 = P + 1;
    for (int64_t j = 0; j < Q; j++) {
        int64_t pre = 0, E = 0, L = sr->flo[j];
        for (int q = 0; q < P; q++) {
            if (q < me) pre += sr->eqs[(int64_t)q * Q + j];
            E += sr->eqs[(int64_t)q * Q + j];
        }
        for (int64_t k = 0; k < sr->K; k++) {
            int64_t *pk = pos + k * P1, less = sr->less[k * Q + j], eq = sr->eq[k * Q + j];
            if (sr->T[j] >= sr->N) {
                pk[j + 1] = s[k]->nnz;
            } else if (key_aligned) {
                /* the whole key goes to the side nearer the balanced position */
                pk[j + 1] = less + (sr->T[j] - L <= L + E - sr->T[j] ? 0 : eq);
            } else { /* K == 1: the key's copies split at T in global sequence order */
                int64_t take = sr->T[j] - L - pre;
                take = take < 0 ? 0 : take > eq ? eq : take;
                pk[j + 1] = less + take;
            }
        }
    }
    /* splits of different targets on one key: keep the positions non-decreasing */
    for (int64_t k = 0; k < sr->K; k++)
        for (int q = 1; q <= P; q++)
            if (pos[k * P1 + q] < pos[k * P1 + q - 1]) pos[k * P1 + q] = pos[k * P1 + q - 1];
}

spt_status spt__mpi_split(spt_mpi_ctx *ctx, const char *fn, int K, const spt_tensor *const *s, const int64_t *ord,
                          bool key_aligned, int64_t *pos) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    const int64_t Q = P - 1, P1 = P + 1, r = s[0]->rank;
    double t0 = spt__mpi_now();
    /* probes per open target and round: more when there are few targets (fewer rounds), fewer when
     * there are many (smaller reductions) */
    int64_t M = Q > 0 ? 1024 / Q : 1;
    M = M < 3 ? 3 : M > 63 ? 63 : M;
    spt__keyplan kp;
    spt__mpi_plan(&kp, s[0], ord);
    int64_t n = 0;
    for (int k = 0; k < K; k++) n += s[k]->nnz;
    /* w: P counts | Q targets | Q lo | Q hi | Q flo | Q dim | Q*M probe counts | K*Q less | K*Q eq | Q eqsum |
     *    P*Q eqsums | Q*r rows (the fixed dims of each target's key, then its probe) */
    int64_t *w = spt__alloc_array(fn, 2 * (int64_t)P + 6 * Q + Q * M + 2 * (int64_t)K * Q + (int64_t)P * Q + Q * r + 1,
                                  1, sizeof(int64_t), true, &st);
    SPT__AGREE(ctx, fn);
    split_search sr = {.Q = Q, .M = M, .r = r, .K = K};
    int64_t *counts = w;
    sr.T = counts + P;
    sr.lo = sr.T + Q;
    sr.hi = sr.lo + Q;
    sr.flo = sr.hi + Q;
    sr.dim = sr.flo + Q;
    sr.mc = sr.dim + Q;
    sr.less = sr.mc + Q * M;
    sr.eq = sr.less + (int64_t)K * Q;
    sr.eqsum = sr.eq + (int64_t)K * Q;
    sr.eqs = sr.eqsum + Q;
    sr.key = sr.eqs + (int64_t)P * Q;
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, &n, 1, counts));
    int64_t N = 0;
    for (int q = 0; q < P; q++) N += counts[q]; /* sizes of real tensors: fits */
    sr.N = N;
    for (int k = 0; k < K; k++) {
        pos[k * P1] = 0;
        for (int q = 1; q <= P; q++) pos[k * P1 + q] = s[k]->nnz; /* P == 1 or N == 0: everything stays */
    }
    if (P == 1 || N == 0) goto fail;
    for (int64_t j = 0; j < Q; j++) {
        sr.T[j] = (j + 1) * (N / P) + ((j + 1) < N % P ? (j + 1) : N % P);
        sr.dim[j] = 0;
        sr.lo[j] = sr.flo[j] = 0;
        sr.hi[j] = kp.nd ? kp.size[0] : 1;
        for (int64_t c = 0; c < r; c++) sr.key[j * r + c] = 0;
    }
    while (split_probe(&sr, &kp, s)) {
        SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, sr.mc, Q * M, MPI_SUM));
        split_narrow(&sr, &kp);
    }
    split_copies(&sr, &kp, s);
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, sr.eqsum, Q, sr.eqs));
    split_positions(&sr, s, P, ctx->rank, key_aligned, pos);
fail:
    spt__free(w);
    ctx->phase[SPT_MPI_PHASE_SPLIT] += spt__mpi_now() - t0;
    return st;
}
