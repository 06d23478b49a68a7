/* SPDX-License-Identifier: Apache-2.0 */
/* template/matmul_row.c -- the value loops of the distributed sparse-dense matmul (matmul.c) for one numeric
 * dtype. Not compiled on its own: matmul.c includes it through ops/each_dtype.h once per numeric dtype
 * (SPT__T, SPT__KIND); it defines
 *   madd_<enum>(outrow, av, ai, b, bcols, k, nc, adj_a, adj_b): outrow[0..nc) += op(av[ai]) * op(B)[k, 0..nc)
 *     (op = conjugate for adj_a, conjugate transpose for adj_b; integers wrap, as unsigned arithmetic);
 *   acc_<enum>(acc, x, n): acc[0..n) += x[0..n) elementwise. */
static void SPT__NAME(madd)(void *outrow, const void *av, int64_t ai, const void *b, int64_t bcols, int64_t k,
                            int64_t nc, bool adj_a, bool adj_b) {
    SPT__T *o = outrow;
    const SPT__T *B = b;
    SPT__T a = ((const SPT__T *)av)[ai];
    if (adj_a) a = SPT__KOP(CONJ)(SPT__T, a);
    if (adj_b)
        for (int64_t j = 0; j < nc; j++) {
            SPT__T x = SPT__KOP(CONJ)(SPT__T, B[j * bcols + k]);
            o[j] = SPT__KOP(ADD)(SPT__T, o[j], SPT__KOP(MUL)(SPT__T, a, x));
        }
    else
        for (int64_t j = 0; j < nc; j++) {
            SPT__T x = B[k * bcols + j];
            o[j] = SPT__KOP(ADD)(SPT__T, o[j], SPT__KOP(MUL)(SPT__T, a, x));
        }
}

static void SPT__NAME(acc)(void *acc, const void *x, int64_t n) {
    SPT__T *a = acc;
    const SPT__T *s = x;
    for (int64_t i = 0; i < n; i++) a[i] = SPT__KOP(ADD)(SPT__T, a[i], s[i]);
}
