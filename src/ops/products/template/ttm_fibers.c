/* SPDX-License-Identifier: Apache-2.0 */
/* template/ttm_fibers.c -- spt_ttm's fiber loop for one dtype. Not compiled on its own: ttm.c includes it
 * through ops/each_dtype.h once per supported dtype (SPT__T, SPT__KIND); it defines ttm_<enum>, which for
 * the fibers [flo, fhi) (fiber q holds sorted positions fs[q] .. fs[q+1]) writes out values q*J + j =
 * sum_e v_e * ut[k_e * J + j] and index rows copied from the fiber's first entry with j at `mode`. */
static void SPT__NAME(ttm)(const void *vals, const int64_t *ix, int64_t N, int64_t mode, const int64_t *perm,
                           const int64_t *fs, int64_t flo, int64_t fhi, const void *ut, int64_t J, int64_t *oi,
                           void *ov) {
    const SPT__T *v = vals, *u = ut;
    SPT__T *o = ov;
    for (int64_t q = flo; q < fhi; q++) {
        SPT__T *acc = o + q * J;
        for (int64_t j = 0; j < J; j++) acc[j] = (SPT__T)0;
        for (int64_t i = fs[q]; i < fs[q + 1]; i++) {
            int64_t e = perm[i];
            SPT__T x = v[e];
            const SPT__T *urow = u + ix[e * N + mode] * J;
            for (int64_t j = 0; j < J; j++) acc[j] = SPT__KOP(ADD)(SPT__T, acc[j], SPT__KOP(MUL)(SPT__T, x, urow[j]));
        }
        const int64_t *src = ix + perm[fs[q]] * N;
        for (int64_t j = 0; j < J; j++) {
            int64_t *dst = oi + (q * J + j) * N;
            memcpy(dst, src, (size_t)N * sizeof(int64_t));
            dst[mode] = j;
        }
    }
}
