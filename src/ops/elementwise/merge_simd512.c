/* SPDX-License-Identifier: Apache-2.0 */
/* merge_simd512.c -- the AVX-512 lanes of the engine's block merge (merge_blocks.h): steps of eight entries.
 * The shared part of the lanes is template/merge_lane.c; merge_simd.c chooses between this form, the AVX2
 * one (merge_simd256.c) and the scalar lanes. Keys are unique within an operand, so only a coinciding pair
 * can tie: a step whose eight contain one, or that would split one, writes nothing and the pair is merged
 * by a scalar step (its value from the op's `both`). The output is the scalar merge's, entry for entry. */
#include "ops/elementwise/merge_blocks.h"

#include "ops/elementwise/simd.h"

#if SPT__SIMD_X86
#include <immintrin.h>

/* Every function from here to the matching pop is compiled for AVX-512 (GCC's pragma; clang's own form)
 * and only called when the processor has it. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")
#endif

#define LANE_ENTRY spt__mb_run512
#include "ops/elementwise/template/merge_lane.c"

/* The eight output index rows of a step, rank 3: the 24 words of a's eight rows and of b's eight rows
 * (a word s in 0..47 of the two) permuted into the 24 output words, word (q, d) = src(id[q]) * 3 + d. */
static inline __attribute__((always_inline)) void rows3(const int64_t *ra, const int64_t *rb, __m512i id,
                                                        int64_t *out) {
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
        const __mmask8 m1 = _mm512_cmpge_epi64_mask(s, _mm512_set1_epi64(16)),
                       m2 = _mm512_cmpge_epi64_mask(s, _mm512_set1_epi64(32));
        _mm512_storeu_si512(out + 8 * o, _mm512_mask_blend_epi64(m2, _mm512_mask_blend_epi64(m1, x, y), z));
    }
}

/* Rank 2: 16 words of each operand's eight rows, word (q, d) = src(id[q]) * 2 + d. */
static inline __attribute__((always_inline)) void rows2(const int64_t *ra, const int64_t *rb, __m512i id,
                                                        int64_t *out) {
    const __m512i a0 = _mm512_loadu_si512(ra), a1 = _mm512_loadu_si512(ra + 8);
    const __m512i b0 = _mm512_loadu_si512(rb), b1 = _mm512_loadu_si512(rb + 8);
    const __m512i id2 = _mm512_add_epi64(id, id);
    static const int64_t qq[2][8] = {{0, 0, 1, 1, 2, 2, 3, 3}, {4, 4, 5, 5, 6, 6, 7, 7}};
    const __m512i d = _mm512_set_epi64(1, 0, 1, 0, 1, 0, 1, 0);
    for (int o = 0; o < 2; o++) {
        const __m512i s = _mm512_add_epi64(_mm512_permutexvar_epi64(_mm512_loadu_si512(qq[o]), id2), d);
        const __m512i x = _mm512_permutex2var_epi64(a0, s, a1), y = _mm512_permutex2var_epi64(b0, s, b1);
        _mm512_storeu_si512(out + 8 * o,
                            _mm512_mask_blend_epi64(_mm512_cmpge_epi64_mask(s, _mm512_set1_epi64(16)), x, y));
    }
}

/* The one-sided values of a step's eight entries v (lanes from b: fb) as fix1 computes them (coinciding
 * pairs never reach a vector step). max(x, 0) keeps x unless x < 0 (NaN and -0 kept), max(0, y) keeps y
 * only when y > 0 or y is NaN (-0 becomes +0); min likewise. */
static inline __attribute__((always_inline)) __m512i fixv(int vop, __m512i v, __mmask8 fb) {
    const __m512d d = _mm512_castsi512_pd(v), z = _mm512_setzero_pd();
    const __m512i zi = _mm512_setzero_si512();
    __mmask8 zero; /* lanes that become 0 */
    switch (vop) {
    case SPT__MB_V_NEGB_F64: return _mm512_castpd_si512(_mm512_mask_sub_pd(d, fb, z, d));
    case SPT__MB_V_NEGB_I64: return _mm512_mask_sub_epi64(v, fb, zi, v);
    case SPT__MB_V_NEGB_C64: { /* C's 0 - z for a real 0: (0 - re, -im); float pairs, 16 lanes of 32 bits */
        const __mmask16 f16 = _mm512_movepi32_mask(_mm512_movm_epi64(fb));
        const __m512 f = _mm512_castsi512_ps(v);
        const __m512 re = _mm512_mask_sub_ps(f, f16 & 0x5555, _mm512_setzero_ps(), f);
        return _mm512_mask_xor_epi32(_mm512_castps_si512(re), f16 & 0xAAAA, _mm512_castps_si512(re),
                                     _mm512_set1_epi32((int)0x80000000u));
    }
    case SPT__MB_V_MAX_F64:
        zero = (__mmask8)((_mm512_cmp_pd_mask(d, z, _CMP_LT_OQ) & ~fb) | (_mm512_cmp_pd_mask(d, z, _CMP_LE_OQ) & fb));
        break;
    case SPT__MB_V_MIN_F64:
        zero = (__mmask8)((_mm512_cmp_pd_mask(d, z, _CMP_GT_OQ) & ~fb) | (_mm512_cmp_pd_mask(d, z, _CMP_GE_OQ) & fb));
        break;
    case SPT__MB_V_MAX_I64: zero = _mm512_cmplt_epi64_mask(v, zi); break;
    case SPT__MB_V_MIN_I64: zero = _mm512_cmpgt_epi64_mask(v, zi); break;
    default: return v;
    }
    return _mm512_maskz_mov_epi64((__mmask8)~zero, v);
}

/* One level of the bitonic sort: partner = lane ^ s (perm), the lower lane of each pair keeps the min. */
#define LEVEL(perm, lowmask)                                                                                           \
    do {                                                                                                               \
        const __m512i pk_ = _mm512_permutexvar_epi64(perm, k), pi_ = _mm512_permutexvar_epi64(perm, id);               \
        const __mmask8 keep_ = (__mmask8)((_mm512_cmplt_epu64_mask(k, pk_) & (lowmask)) |                              \
                                          (_mm512_cmpgt_epu64_mask(k, pk_) & (__mmask8) ~(lowmask)));                  \
        k = _mm512_mask_blend_epi64(keep_, pk_, k);                                                                    \
        id = _mm512_mask_blend_epi64(keep_, pi_, id);                                                                  \
    } while (0)

/* One level of the same sort on keys packed with their source (key << 4 | source, keys below 2^60: the
 * order of the packed words is the keys', a before b on a tie): min and max, no mask arithmetic, so the
 * three levels' chain is about half as long. */
#define PLEVEL(perm, lowmask)                                                                                          \
    do {                                                                                                               \
        const __m512i pk_ = _mm512_permutexvar_epi64(perm, k);                                                         \
        k = _mm512_mask_blend_epi64((__mmask8)(lowmask), _mm512_max_epu64(k, pk_), _mm512_min_epu64(k, pk_));          \
    } while (0)

/* The vector step: the next eight entries of the lane, when eight are left in the lane and in both key
 * windows (with the key after them) and no coinciding pair is among or just past them; else false. The
 * eight smallest of a's next eight keys (A) and b's (B) are min(A, reverse(B)) lane by lane (a bitonic
 * sequence), sorted by three compare-exchange levels that carry each key's source (0-7: a, 8-15: b). */
static inline __attribute__((always_inline)) bool vstep(const spt__mb *m, lane_st *s, int64_t *bi, uint64_t *ov,
                                                        const int64_t R, const int vop) {
    const int64_t *ia = m->ia, *ib = m->ib;
    const uint64_t *va = m->va, *vb = m->vb; /* 8-byte values, moved as bits */
    const int64_t i = s->i, j = s->j, w = s->w, ai = i - s->i0, bj = j - s->j0, left = s->dend - i - j;
    if (left >= 8 && ai + 8 < s->la && bj + 8 < s->lb) {
        const __m512i rev = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), ida = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i idbr = _mm512_set_epi64(8, 9, 10, 11, 12, 13, 14, 15);
        const __m512i p4 = _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4), p2 = _mm512_set_epi64(5, 4, 7, 6, 1, 0, 3, 2);
        const __m512i p1 = _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1);
        const __m512i A = _mm512_loadu_si512(s->ka + ai), B = _mm512_loadu_si512(s->kb + bj);
        const __m512i Br = _mm512_permutexvar_epi64(rev, B);
        const __mmask8 ta = _mm512_cmple_epu64_mask(A, Br);
        __m512i k, id;
        __mmask8 adj;
        if (m->k60) {
            const __m512i Ap = _mm512_or_si512(_mm512_slli_epi64(A, 4), ida);
            k = _mm512_min_epu64(Ap, _mm512_or_si512(_mm512_slli_epi64(Br, 4), idbr));
            PLEVEL(p4, 0x0F);
            PLEVEL(p2, 0x33);
            PLEVEL(p1, 0x55);
            id = _mm512_and_si512(k, _mm512_set1_epi64(15));
            k = _mm512_srli_epi64(k, 4);
        } else {
            k = _mm512_mask_blend_epi64(ta, Br, A), id = _mm512_mask_blend_epi64(ta, idbr, ida);
            LEVEL(p4, 0x0F);
            LEVEL(p2, 0x33);
            LEVEL(p1, 0x55);
        }
        adj = _mm512_cmpeq_epu64_mask(k, _mm512_alignr_epi64(k, k, 1)) & 0x7F;
        const int na8 = __builtin_popcount(ta), nb8 = 8 - na8;
        const uint64_t top = (uint64_t)_mm_extract_epi64(_mm512_extracti64x2_epi64(k, 3), 1); /* the largest */
        if (!adj && s->ka[ai + na8] != top && s->kb[bj + nb8] != top) {
            __m512i v = _mm512_permutex2var_epi64(_mm512_loadu_si512(va + i), id, _mm512_loadu_si512(vb + j));
            if (vop != SPT__MB_V_ID) v = fixv(vop, v, _mm512_cmpge_epi64_mask(id, _mm512_set1_epi64(8)));
            _mm512_storeu_si512(ov + w, v);
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
            s->w = w + 8;
            s->i = i + na8;
            s->j = j + nb8;
            return true;
        }
    }
    return false;
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif /* SPT__SIMD_X86 */
