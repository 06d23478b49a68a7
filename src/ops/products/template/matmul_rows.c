/* SPDX-License-Identifier: Apache-2.0 */
/* template/matmul_rows.c -- the value loops of spt_sparse_dense_matmul (and, through products_internal.h's tables, of
 * spt_sparse_dense_bmm and the contractions, contract_common.c) for one dtype. Not compiled on its own:
 * matmul.c includes it through ops/each_dtype.h once per supported dtype (SPT__T, SPT__KIND); it defines
 *   mm_rows_<enum>(vals, ix, perm, lo, hi, mcol, conj_a, b, n, out)
 *     for i in [lo, hi), e = perm ? perm[i] : i, m = ix[2e + mcol], k = ix[2e + 1 - mcol]:
 *     out[m, :] += a'_e * b[k, :] (a' = conj(a) if conj_a), n columns, in that order;
 *   mm_adjb_<enum>(b, rows, cols, bt): bt (cols x rows) = conj(b)^T. */
static void SPT__NAME(mm_rows)(const void *vals, const int64_t *ix, const int64_t *perm, int64_t lo, int64_t hi,
                               int mcol, bool conj_a, const void *b, int64_t n, void *out) {
    const SPT__T *v = vals, *bd = b;
    SPT__T *o = out;
    for (int64_t i = lo; i < hi; i++) {
        int64_t e = perm ? perm[i] : i;
        if (i + 8 < hi) { /* B rows are random accesses: fetch ahead */
            int64_t f = perm ? perm[i + 8] : i + 8;
            __builtin_prefetch(bd + ix[2 * f + 1 - mcol] * n);
        }
        int64_t m = ix[2 * e + mcol], k = ix[2 * e + 1 - mcol];
        SPT__T a = conj_a ? SPT__KOP(CONJ)(SPT__T, v[e]) : v[e];
        SPT__T *orow = o + m * n;
        const SPT__T *brow = bd + k * n;
#pragma omp simd
        for (int64_t j = 0; j < n; j++) orow[j] = SPT__KOP(ADD)(SPT__T, orow[j], SPT__KOP(MUL)(SPT__T, a, brow[j]));
    }
}
static void SPT__NAME(mm_adjb)(const void *b, int64_t rows, int64_t cols, void *bt) {
    const SPT__T *bd = b;
    SPT__T *t = bt;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) t[j * rows + i] = SPT__KOP(CONJ)(SPT__T, bd[i * cols + j]);
}
