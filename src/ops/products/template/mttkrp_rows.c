/* SPDX-License-Identifier: Apache-2.0 */
/* template/mttkrp_rows.c -- spt_mttkrp's entry loop for one dtype. Not compiled on its own: mttkrp.c
 * includes it through ops/each_dtype.h once per supported dtype (SPT__T, SPT__KIND); it defines
 * mttkrp_<enum>, which for sorted positions [lo, hi), e = perm ? perm[i] : i, forms
 * tmp = v_e * prod_{m != mode} F_m[ix[e, m], :] and adds it to out[ix[e, mode], :]. */
static void SPT__NAME(mttkrp)(const void *vals, const int64_t *ix, int64_t N, int64_t mode, const int64_t *perm,
                              int64_t lo, int64_t hi, const void *const *fd, int64_t R, void *out, void *tmp) {
    const SPT__T *v = vals;
    SPT__T *o = out, *t = tmp;
    for (int64_t i = lo; i < hi; i++) {
        int64_t e = perm ? perm[i] : i;
        const int64_t *row = ix + e * N;
        SPT__T v0 = v[e];
        for (int64_t r = 0; r < R; r++) t[r] = v0;
        for (int64_t m = 0; m < N; m++) {
            if (m == mode) continue;
            const SPT__T *f = (const SPT__T *)fd[m] + row[m] * R;
#pragma omp simd
            for (int64_t r = 0; r < R; r++) t[r] = SPT__KOP(MUL)(SPT__T, t[r], f[r]);
        }
        SPT__T *orow = o + row[mode] * R;
#pragma omp simd
        for (int64_t r = 0; r < R; r++) orow[r] = SPT__KOP(ADD)(SPT__T, orow[r], t[r]);
    }
}
