/* SPDX-License-Identifier: Apache-2.0 */
/* merge_simd.c -- which vector lanes the engine's block merge runs (merge_blocks.h): AVX-512
 * (merge_simd512.c, eight entries a step), AVX2 (merge_simd256.c, four), or none (the scalar lanes of
 * template/merge_block.c), from spt__simd() (simd.h: the processor, lowered by SPT_SIMD). Every form writes
 * the same bytes. */
#include "ops/elementwise/merge_blocks.h"

#include "ops/elementwise/simd.h"

bool spt__mb_simd_on(size_t es, int vop) {
    return SPT__SIMD_X86 && es == 8 && vop != SPT__MB_V_NONE && spt__simd() >= SPT__SIMD_AVX2;
}

void spt__mb_simd_run(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv, spt__mb_both_fn both, int vop) {
#if SPT__SIMD_X86
    if (spt__simd() >= SPT__SIMD_AVX512) spt__mb_run512(m, L, bi, bv, both, vop);
    else spt__mb_run256(m, L, bi, bv, both, vop);
#else
    (void)m, (void)L, (void)bi, (void)bv, (void)both, (void)vop;
#endif
}
