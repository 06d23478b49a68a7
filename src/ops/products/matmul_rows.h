/* SPDX-License-Identifier: Apache-2.0 */
/* matmul_rows.h -- the row kernel of spt_sparse_dense_matmul (template/matmul_rows.c), instantiated once, in
 * matmul.c, for every integer, float and complex dtype; spt_sparse_dense_bmm (bmm.c) and the contractions
 * (contract_common.c) call it through these tables. Internal. */
#ifndef SPT_MATMUL_ROWS_H
#define SPT_MATMUL_ROWS_H

#include "core/internal.h"

/* for i in [lo, hi), e = perm ? perm[i] : i, m = ix[2e + mcol], k = ix[2e + 1 - mcol]:
 * out[m, :] += a'_e * b[k, :] (a' = conj(a) if conj_a), n columns, in that order. */
typedef void (*spt__mm_rows_fn)(const void *vals, const int64_t *ix, const int64_t *perm, int64_t lo, int64_t hi,
                                int mcol, bool conj_a, const void *b, int64_t n, void *out);
/* bt (cols x rows) = conj(b)^T for b (rows x cols). */
typedef void (*spt__mm_adjb_fn)(const void *b, int64_t rows, int64_t cols, void *bt);

/* Indexed by dtype; NULL for a dtype without the kernel (bool, string). */
extern const spt__mm_rows_fn spt__mm_rows[SPT_NUM_DTYPES];
extern const spt__mm_adjb_fn spt__mm_adjb[SPT_NUM_DTYPES];

#endif
