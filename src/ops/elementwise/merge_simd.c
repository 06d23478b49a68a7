/* SPDX-License-Identifier: Apache-2.0 */
/* merge_simd.c -- the AVX-512 lane of add's block merge (declared in merge_blocks.h).
 *
 * The row-major keys of a window of each operand (up to KW entries) are computed first, eight at a time.
 * A step then takes the next eight keys of a (A) and of b (B): the eight smallest of the sixteen are
 * min(A, reverse(B)) lane by lane (a bitonic sequence), sorted by three compare-exchange levels that carry
 * each key's source (0-7: a, 8-15: b); the step writes those eight entries (values permuted from the two
 * value vectors, index rows copied by source) and advances i by the number taken from a, j by the rest.
 * Keys are unique within an operand, so only a coinciding pair can tie: a step whose eight contain one,
 * or that would split one, writes nothing and the pair is merged by a scalar step (its value from the
 * dtype's `both`). The output is the scalar merge's, entry for entry. */
#include "ops/elementwise/merge_blocks.h"

#include "ops/elementwise/simd.h"

#if SPT__SIMD_X86
#include <immintrin.h>
#include <stdbool.h>

#define KW 2048 /* keys per operand and window: 2 x 16 KiB on the stack */

bool spt__mb_simd_on(size_t es) { return es == 8 && spt__simd() >= SPT__SIMD_AVX512; }

/* Everything below is compiled for AVX-512 and only called when the processor has it. */
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")

static inline __attribute__((always_inline)) void keys_of(const int64_t *ix, const int64_t *sh, int64_t n, uint64_t *k,
                                                          const int64_t R) {
#pragma omp simd
    for (int64_t p = 0; p < n; p++) k[p] = spt__mb_key(ix + p * R, sh, R);
}

static void keys_window(const int64_t *ix, const int64_t *sh, int64_t R, int64_t n, uint64_t *k) {
    switch (R) {
    case 1: keys_of(ix, sh, n, k, 1); break;
    case 2: keys_of(ix, sh, n, k, 2); break;
    case 3: keys_of(ix, sh, n, k, 3); break;
    default: keys_of(ix, sh, n, k, R); break;
    }
}


/* The eight output index rows of a step, rank 3: the 24 words of a's eight rows and of b's eight rows
 * (a word s in 0..47 of the two) permuted into the 24 output words, word (q, d) = src(id[q]) * 3 + d. */
static inline __attribute__((always_inline)) void rows3(const int64_t *ra, const int64_t *rb, __m512i id, int64_t *out) {
    const __m512i a0 = _mm512_loadu_si512(ra), a1 = _mm512_loadu_si512(ra + 8), a2 = _mm512_loadu_si512(ra + 16);
    const __m512i b0 = _mm512_loadu_si512(rb), b1 = _mm512_loadu_si512(rb + 8), b2 = _mm512_loadu_si512(rb + 16);
    const __m512i id3 = _mm512_add_epi64(_mm512_add_epi64(id, id), id); /* first word of each source row */
    static const int64_t qq[3][8] = {{0, 0, 0, 1, 1, 1, 2, 2}, {2, 3, 3, 3, 4, 4, 4, 5}, {5, 5, 6, 6, 6, 7, 7, 7}};
    static const int64_t dd[3][8] = {{0, 1, 2, 0, 1, 2, 0, 1}, {2, 0, 1, 2, 0, 1, 2, 0}, {1, 2, 0, 1, 2, 0, 1, 2}};
    for (int o = 0; o < 3; o++) {
        const __m512i s = _mm512_add_epi64(_mm512_permutexvar_epi64(_mm512_loadu_si512(qq[o]), id3),
                                           _mm512_loadu_si512(dd[o]));
        /* s in [0, 16): a0|a1, [16, 32): a2|b0, [32, 48): b1|b2 (vpermt2q reads the low 4 bits) */
        const __m512i x = _mm512_permutex2var_epi64(a0, s, a1), y = _mm512_permutex2var_epi64(a2, s, b0);
        const __m512i z = _mm512_permutex2var_epi64(b1, s, b2);
        const __mmask8 m1 = _mm512_cmpge_epi64_mask(s, _mm512_set1_epi64(16)), m2 = _mm512_cmpge_epi64_mask(s, _mm512_set1_epi64(32));
        _mm512_storeu_si512(out + 8 * o, _mm512_mask_blend_epi64(m2, _mm512_mask_blend_epi64(m1, x, y), z));
    }
}

/* Rank 2: 16 words of each operand's eight rows, word (q, d) = src(id[q]) * 2 + d. */
static inline __attribute__((always_inline)) void rows2(const int64_t *ra, const int64_t *rb, __m512i id, int64_t *out) {
    const __m512i a0 = _mm512_loadu_si512(ra), a1 = _mm512_loadu_si512(ra + 8);
    const __m512i b0 = _mm512_loadu_si512(rb), b1 = _mm512_loadu_si512(rb + 8);
    const __m512i id2 = _mm512_add_epi64(id, id);
    static const int64_t qq[2][8] = {{0, 0, 1, 1, 2, 2, 3, 3}, {4, 4, 5, 5, 6, 6, 7, 7}};
    const __m512i d = _mm512_set_epi64(1, 0, 1, 0, 1, 0, 1, 0);
    for (int o = 0; o < 2; o++) {
        const __m512i s = _mm512_add_epi64(_mm512_permutexvar_epi64(_mm512_loadu_si512(qq[o]), id2), d);
        const __m512i x = _mm512_permutex2var_epi64(a0, s, a1), y = _mm512_permutex2var_epi64(b0, s, b1);
        _mm512_storeu_si512(out + 8 * o, _mm512_mask_blend_epi64(_mm512_cmpge_epi64_mask(s, _mm512_set1_epi64(16)), x, y));
    }
}

/* One level of the bitonic sort: partner = lane ^ s (perm), the lower lane of each pair keeps the min. */
#define LEVEL(perm, lowmask)                                                                           \
    do {                                                                                               \
        const __m512i pk_ = _mm512_permutexvar_epi64(perm, k), pi_ = _mm512_permutexvar_epi64(perm, id); \
        const __mmask8 keep_ = (__mmask8)((_mm512_cmplt_epu64_mask(k, pk_) & (lowmask)) |             \
                                          (_mm512_cmpgt_epu64_mask(k, pk_) & (__mmask8)~(lowmask)));   \
        k = _mm512_mask_blend_epi64(keep_, pk_, k);                                                    \
        id = _mm512_mask_blend_epi64(keep_, pi_, id);                                                  \
    } while (0)

static inline __attribute__((always_inline)) void run_rank(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv,
                                                           spt__mb_both_fn both, const int64_t R) {
    uint64_t ka[KW], kb[KW];
    const int64_t *ia = m->ia, *ib = m->ib, *sh = m->sh, na = m->na, nb = m->nb, dend = L->dend;
    const uint64_t *va = m->va, *vb = m->vb; /* 8-byte values, moved as bits */
    uint64_t *ov = bv;
    int64_t i = L->i, j = L->j, w = L->w;
    const __m512i rev = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), ida = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i idbr = _mm512_set_epi64(8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i p4 = _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4), p2 = _mm512_set_epi64(5, 4, 7, 6, 1, 0, 3, 2);
    const __m512i p1 = _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1);
    for (;;) {
        int64_t left = dend - i - j;
        if (left <= 0 || i >= na || j >= nb) break;
        const int64_t la = na - i < left ? (na - i < KW ? na - i : KW) : (left < KW ? left : KW);
        const int64_t lb = nb - j < left ? (nb - j < KW ? nb - j : KW) : (left < KW ? left : KW);
        keys_window(ia + i * R, sh, R, la, ka);
        keys_window(ib + j * R, sh, R, lb, kb);
        const int64_t i0 = i, j0 = j;
        for (;;) {
            left = dend - i - j;
            if (left >= 8 && i - i0 + 8 < la && j - j0 + 8 < lb) {
                const __m512i A = _mm512_loadu_si512(ka + (i - i0)), B = _mm512_loadu_si512(kb + (j - j0));
                const __m512i Br = _mm512_permutexvar_epi64(rev, B);
                const __mmask8 ta = _mm512_cmple_epu64_mask(A, Br);
                __m512i k = _mm512_mask_blend_epi64(ta, Br, A), id = _mm512_mask_blend_epi64(ta, idbr, ida);
                LEVEL(p4, 0x0F);
                LEVEL(p2, 0x33);
                LEVEL(p1, 0x55);
                const int na8 = __builtin_popcount(ta), nb8 = 8 - na8;
                const uint64_t top = (uint64_t)_mm_extract_epi64(_mm512_extracti64x2_epi64(k, 3), 1); /* the largest */
                const __mmask8 adj = _mm512_cmpeq_epu64_mask(k, _mm512_alignr_epi64(k, k, 1)) & 0x7F;
                if (!adj && ka[i - i0 + na8] != top && kb[j - j0 + nb8] != top) {
                    _mm512_storeu_si512(ov + w, _mm512_permutex2var_epi64(_mm512_loadu_si512(va + i),
                                                                          id, _mm512_loadu_si512(vb + j)));
                    if (R == 3) rows3(ia + i * 3, ib + j * 3, id, bi + w * 3);
                    else if (R == 2) rows2(ia + i * 2, ib + j * 2, id, bi + w * 2);
                    else {
                        int64_t src[8];
                        _mm512_storeu_si512(src, id);
                        for (int q = 0; q < 8; q++) {
                            const int64_t *row = src[q] < 8 ? ia + (i + src[q]) * R : ib + (j + src[q] - 8) * R;
                            for (int64_t d = 0; d < R; d++) bi[(w + q) * R + d] = row[d];
                        }
                    }
                    w += 8;
                    i += na8;
                    j += nb8;
                    continue;
                }
            }
            /* one scalar step, its keys in the window */
            if (left <= 0 || i - i0 >= la || j - j0 >= lb) break;
            const uint64_t x = ka[i - i0], y = kb[j - j0];
            if (x < y) {
                for (int64_t d = 0; d < R; d++) bi[w * R + d] = ia[i * R + d];
                ov[w++] = va[i++];
            } else if (y < x) {
                for (int64_t d = 0; d < R; d++) bi[w * R + d] = ib[j * R + d];
                ov[w++] = vb[j++];
            } else {
                for (int64_t d = 0; d < R; d++) bi[w * R + d] = ia[i * R + d];
                w += both(m, va + i, vb + j, ov + w);
                i++;
                j++;
            }
        }
    }
    L->i = i;
    L->j = j;
    L->w = w;
}

void spt__mb_simd_run(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv, spt__mb_both_fn both) {
    switch (m->rank) {
    case 1: run_rank(m, L, bi, bv, both, 1); break;
    case 2: run_rank(m, L, bi, bv, both, 2); break;
    case 3: run_rank(m, L, bi, bv, both, 3); break;
    default: run_rank(m, L, bi, bv, both, m->rank); break;
    }
}
#pragma GCC pop_options

#else
bool spt__mb_simd_on(size_t es) {
    (void)es;
    return false;
}
void spt__mb_simd_run(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv, spt__mb_both_fn both) {
    (void)m, (void)L, (void)bi, (void)bv, (void)both;
}
#endif
