/* SPDX-License-Identifier: Apache-2.0 */
/* merge_simd256.c -- the AVX2 lanes of the engine's block merge (merge_blocks.h): steps of four entries,
 * the AVX-512 form's method (merge_simd512.c) on 256-bit vectors. The shared part of the lanes is
 * template/merge_lane.c. AVX2 has no unsigned 64-bit compare: keys are compared with their top bit
 * flipped. A step that holds or would split a coinciding pair writes nothing (a scalar step takes it). */
#include "ops/elementwise/merge_blocks.h"

#include "ops/elementwise/simd.h"

#if SPT__SIMD_X86
#include <immintrin.h>

/* Every function from here to the matching pop is compiled for AVX2 (GCC's pragma; clang's own form) and
 * only called when the processor has it. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#define LANE_ENTRY spt__mb_run256
#include "ops/elementwise/template/merge_lane.c"

/* x > y as unsigned 64-bit lanes (all ones where true). */
static inline __attribute__((always_inline)) __m256i gtu(__m256i x, __m256i y) {
    const __m256i s = _mm256_set1_epi64x(INT64_MIN);
    return _mm256_cmpgt_epi64(_mm256_xor_si256(x, s), _mm256_xor_si256(y, s));
}

/* The one-sided values of a step's four entries v (lanes from b: fb all ones), as fix1 computes them. */
static inline __attribute__((always_inline)) __m256i fixv(int vop, __m256i v, __m256i fb) {
    const __m256d d = _mm256_castsi256_pd(v), z = _mm256_setzero_pd();
    const __m256i zi = _mm256_setzero_si256();
    __m256i zero; /* lanes that become 0 */
    switch (vop) {
    case SPT__MB_V_NEGB_F64: return _mm256_blendv_epi8(v, _mm256_castpd_si256(_mm256_sub_pd(z, d)), fb);
    case SPT__MB_V_NEGB_I64: return _mm256_blendv_epi8(v, _mm256_sub_epi64(zi, v), fb);
    case SPT__MB_V_NEGB_C64: { /* C's 0 - z for a real 0: (0 - re, -im) */
        const __m256 f = _mm256_castsi256_ps(v);
        const __m256 re = _mm256_sub_ps(_mm256_setzero_ps(), f), im = _mm256_xor_ps(f, _mm256_set1_ps(-0.0f));
        return _mm256_blendv_epi8(v, _mm256_castps_si256(_mm256_blend_ps(re, im, 0xAA)), fb);
    }
    case SPT__MB_V_MAX_F64:
        zero = _mm256_blendv_epi8(_mm256_castpd_si256(_mm256_cmp_pd(d, z, _CMP_LT_OQ)),
                                  _mm256_castpd_si256(_mm256_cmp_pd(d, z, _CMP_LE_OQ)), fb);
        break;
    case SPT__MB_V_MIN_F64:
        zero = _mm256_blendv_epi8(_mm256_castpd_si256(_mm256_cmp_pd(d, z, _CMP_GT_OQ)),
                                  _mm256_castpd_si256(_mm256_cmp_pd(d, z, _CMP_GE_OQ)), fb);
        break;
    case SPT__MB_V_MAX_I64: zero = _mm256_cmpgt_epi64(zi, v); break;
    case SPT__MB_V_MIN_I64: zero = _mm256_cmpgt_epi64(v, zi); break;
    default: return v;
    }
    return _mm256_andnot_si256(zero, v);
}

/* One level of the bitonic sort: partner lane by the 4x64 permute `imm`; where `low` is set the lane keeps
 * the smaller key, elsewhere the larger. */
#define LEVEL4(imm, low)                                                                                               \
    do {                                                                                                               \
        const __m256i pk_ = _mm256_permute4x64_epi64(k, imm), pi_ = _mm256_permute4x64_epi64(id, imm);                 \
        const __m256i keep_ = _mm256_or_si256(_mm256_and_si256(gtu(pk_, k), low),                                      \
                                              _mm256_andnot_si256(low, gtu(k, pk_)));                                  \
        k = _mm256_blendv_epi8(pk_, k, keep_);                                                                         \
        id = _mm256_blendv_epi8(pi_, id, keep_);                                                                       \
    } while (0)

/* The vector step: the next four entries of the lane, when four are left in the lane and in both key
 * windows (with the key after them) and no coinciding pair is among or just past them; else false. The
 * four smallest of a's next four keys (A) and b's (B) are min(A, reverse(B)) lane by lane, sorted by two
 * compare-exchange levels that carry each key's source (0-3: a, 4-7: b). */
static inline __attribute__((always_inline)) bool vstep(const spt__mb *m, lane_st *s, int64_t *bi, uint64_t *ov,
                                                        const int64_t R, const int vop) {
    const int64_t i = s->i, j = s->j, w = s->w, ai = i - s->i0, bj = j - s->j0, left = s->dend - i - j;
    if (left < 4 || ai + 4 >= s->la || bj + 4 >= s->lb) return false;
    const __m256i A = _mm256_loadu_si256((const __m256i *)(s->ka + ai)),
                  B = _mm256_loadu_si256((const __m256i *)(s->kb + bj));
    const __m256i Br = _mm256_permute4x64_epi64(B, 0x1B);
    const __m256i tb = gtu(A, Br); /* lane takes b's key */
    __m256i k = _mm256_blendv_epi8(A, Br, tb);
    __m256i id = _mm256_blendv_epi8(_mm256_set_epi64x(3, 2, 1, 0), _mm256_set_epi64x(4, 5, 6, 7), tb);
    LEVEL4(0x4E, _mm256_set_epi64x(0, 0, -1, -1));
    LEVEL4(0xB1, _mm256_set_epi64x(0, -1, 0, -1));
    const int nb4 = __builtin_popcount((unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(tb))), na4 = 4 - nb4;
    const uint64_t top = (uint64_t)_mm256_extract_epi64(k, 3); /* the largest */
    const __m256i next = _mm256_permute4x64_epi64(k, 0xF9);    /* lanes 1, 2, 3, 3 */
    if ((_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(k, next))) & 7) || s->ka[ai + na4] == top ||
        s->kb[bj + nb4] == top)
        return false;
    const uint64_t *va = m->va, *vb = m->vb; /* 8-byte values, moved as bits */
    /* the values: 32-bit halves 2 (id & 3), 2 (id & 3) + 1 of a's four or b's four */
    const __m256i h = _mm256_slli_epi64(_mm256_and_si256(id, _mm256_set1_epi64x(3)), 1);
    const __m256i ix = _mm256_or_si256(h, _mm256_slli_epi64(_mm256_add_epi64(h, _mm256_set1_epi64x(1)), 32));
    const __m256i fromb = _mm256_cmpgt_epi64(id, _mm256_set1_epi64x(3));
    const __m256i xa = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(va + i)), ix);
    const __m256i xb = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(vb + j)), ix);
    __m256i v = _mm256_blendv_epi8(xa, xb, fromb);
    if (vop != SPT__MB_V_ID) v = fixv(vop, v, fromb);
    _mm256_storeu_si256((__m256i *)(ov + w), v);
    /* the four source rows' addresses: a's or b's base plus (id & 3) rows */
    const int64_t *ia = m->ia + i * R, *ib = m->ib + j * R;
    const __m256i base = _mm256_blendv_epi8(_mm256_set1_epi64x((int64_t)(intptr_t)ia),
                                            _mm256_set1_epi64x((int64_t)(intptr_t)ib), fromb);
    const __m256i off = _mm256_mul_epu32(_mm256_and_si256(id, _mm256_set1_epi64x(3)), _mm256_set1_epi64x(R * 8));
    const int64_t *src[4];
    _mm256_storeu_si256((__m256i *)src, _mm256_add_epi64(base, off));
    int64_t *dst = bi + w * R;
    for (int q = 0; q < 4; q++, dst += R) {
        const int64_t *row = src[q];
        if (R == 2) _mm_storeu_si128((__m128i *)dst, _mm_loadu_si128((const __m128i *)row));
        else if (R == 3) {
            const int64_t z2 = row[2];
            _mm_storeu_si128((__m128i *)dst, _mm_loadu_si128((const __m128i *)row));
            dst[2] = z2;
        } else memcpy(dst, row, (size_t)R * sizeof(int64_t));
    }
    s->w = w + 4;
    s->i = i + na4;
    s->j = j + nb4;
    return true;
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif /* SPT__SIMD_X86 */
