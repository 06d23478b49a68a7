/* SPDX-License-Identifier: Apache-2.0 */
/* msd_plan.c -- the plan of the distributed MSD radix sort (internal.h; its steps are in
 * sort_packed.c, the sort itself in src/mpi/sort.c): the top digit, and the second level that splits
 * the top buckets holding a block boundary into sub-buckets when the top digit alone is too coarse for
 * the rank count (2^11 buckets keep the exact-balance path up to P ~ 100; with the second level, up to
 * about 2^11 x 2^d2 / 32 ranks, d2 <= 11: beyond 10^4). */
#include "sort/msd.h"

/* The test hook's cap on the top digit (0: FAST_MAX_DIGIT) and the levels the last sort used. */
static int top_cap, levels_taken;

void spt__msd_test_cap(int digit) { top_cap = digit > 0 && digit < FAST_MAX_DIGIT ? digit : 0; }
int spt__msd_test_levels(void) { return levels_taken; }
void spt__msd_note_levels(int levels) { levels_taken = levels; }

spt_status spt__msd_plan(const char *fn, const spt_tensor *t, const int64_t *order, spt__msd **out) {
    spt_status st = SPT_OK;
    *out = NULL;
    const size_t es = spt_dtype_size(t->dtype);
    packing pk;
    if (t->dtype == SPT_STRING || es > 8 || t->rank < 1 || !spt__make_packing(t, order, &pk) || pk.bits > 64 ||
        pk.bits < 1)
        return SPT_OK;
    spt__msd *m = spt__calloc(1, sizeof *m);
    if (!m) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    m->pk = pk;
    m->rp.passes = 1;
    const int cap = top_cap > 0 ? top_cap : FAST_MAX_DIGIT;
    m->rp.digit = pk.bits < cap ? pk.bits : cap;
    m->rp.shift0 = pk.bits - m->rp.digit;
    m->rp.n = t->nnz;
    int nth = spt_get_num_threads();
    int64_t chunks = nth < 1 ? 1 : nth;
    if (chunks > FAST_MAX_CHUNKS) chunks = FAST_MAX_CHUNKS;
    if (chunks > t->nnz) chunks = t->nnz;
    if (chunks < 1) chunks = 1;
    m->rp.chunks = chunks;
    m->rp.chunk = (t->nnz + chunks - 1) / chunks;
    m->hist = spt__alloc_array(fn, chunks, (int64_t)1 << m->rp.digit, sizeof(int64_t), true, &st);
    if (!m->hist) {
        spt__free(m);
        return st;
    }
    *out = m;
    return SPT_OK;
}

void spt__msd_free(spt__msd *m) {
    if (!m) return;
    spt__free(m->hist);
    spt__free(m->off);
    spt__free(m->ts);
    spt__free(m->hs);
    spt__free(m);
}

int spt__msd_digit(const spt__msd *m) { return m->rp.digit; }

/* ---- the second level ------------------------------------------------------------------------------ */

int spt__msd_sub_digit(const spt__msd *m, int P) {
    int lg = 0;
    while (lg < 31 && ((int64_t)1 << lg) < P) lg++;
    int d2 = lg + 5 - m->rp.digit; /* about 32 sub-buckets per rank's block for uniform keys */
    if (d2 < 1) d2 = 1;
    if (d2 > FAST_MAX_DIGIT) d2 = FAST_MAX_DIGIT;
    if (d2 > m->rp.shift0) d2 = m->rp.shift0;
    return d2;
}

int64_t spt__msd_pick(const int64_t *S, int64_t nb, const int64_t *B, int P, int64_t *pick) {
    int64_t K = 0, j = 0;
    for (int q = 1; q < P; q++) {
        const int64_t x = B[q];
        while (j < nb && S[j + 1] <= x) j++;
        if (j < nb && S[j] < x && (K == 0 || pick[K - 1] != j)) pick[K++] = j;
    }
    return K;
}

spt_status spt__msd_sub_split(const char *fn, const spt__msd *m, int d2, uint64_t *tk, uint64_t *tp, const int64_t *L,
                              const int64_t *pick, int64_t K, int64_t *cnt) {
    spt_status st = SPT_OK;
    const int64_t ns = (int64_t)1 << d2;
    const int sh = m->rp.shift0 - d2;
    const uint64_t mask = (uint64_t)ns - 1;
    int64_t most = 0;
    for (int64_t k = 0; k < K; k++) most = L[pick[k] + 1] - L[pick[k]] > most ? L[pick[k] + 1] - L[pick[k]] : most;
    memset(cnt, 0, (size_t)(K * ns) * sizeof *cnt);
    if (most == 0) return SPT_OK;
    uint64_t *sk = spt__alloc_array(fn, most, 2, sizeof(uint64_t), false, &st);
    int64_t *at = sk ? spt__alloc_array(fn, ns, 1, sizeof(int64_t), false, &st) : NULL;
    if (!at) {
        spt__free(sk);
        return st;
    }
    uint64_t *sp = sk + most;
    for (int64_t k = 0; k < K; k++) { /* a stable counting sort of the bucket by the sub-digit */
        const int64_t b0 = L[pick[k]], c = L[pick[k] + 1] - b0;
        int64_t *h = cnt + k * ns;
        for (int64_t i = 0; i < c; i++) h[(tk[b0 + i] >> sh) & mask]++;
        int64_t s = 0;
        for (int64_t u = 0; u < ns; u++) {
            at[u] = s;
            s += h[u];
        }
        for (int64_t i = 0; i < c; i++) {
            const int64_t to = at[(tk[b0 + i] >> sh) & mask]++;
            sk[to] = tk[b0 + i];
            sp[to] = tp[b0 + i];
        }
        memcpy(tk + b0, sk, (size_t)c * sizeof *tk);
        memcpy(tp + b0, sp, (size_t)c * sizeof *tp);
    }
    spt__free(at);
    spt__free(sk);
    return SPT_OK;
}

int64_t spt__msd_units(int64_t nb, int d2, const int64_t *pick, int64_t K, const int64_t *top, const int64_t *sub,
                       int64_t *unit) {
    const int64_t ns = (int64_t)1 << d2;
    int64_t u = 0, k = 0;
    for (int64_t j = 0; j < nb; j++) {
        if (k < K && pick[k] == j) {
            if (unit) memcpy(unit + u, sub + k * ns, (size_t)ns * sizeof *unit);
            u += ns;
            k++;
        } else {
            if (unit) unit[u] = top[j];
            u++;
        }
    }
    return u;
}
