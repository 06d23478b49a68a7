/* SPDX-License-Identifier: Apache-2.0 */
/* products_internal.h -- what the products family's files share. The row kernel of spt_sparse_dense_matmul
 * (template/matmul_rows.c) is instantiated once, in matmul.c, for every integer, float and complex dtype;
 * spt_sparse_dense_bmm (bmm.c) and the contractions (contract_common.c) call it through its tables.
 * Internal. */
#ifndef SPT_PRODUCTS_INTERNAL_H
#define SPT_PRODUCTS_INTERNAL_H

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

/* The arguments of a sparse tensor times a dense operand along one mode (spt_ttv: d a vector of mode's
 * size; spt_ttm: d a [J, mode's size] matrix; drank 1 or 2): spt__mode_operand_check, then SPT_EDTYPE
 * for a dtype the products do not take (bool, string), then SPT_EINVAL for d's shape (ttv.c). */
spt_status spt__mode_product_args(const char *fn, const spt_tensor *t, const spt_dense *d, int64_t mode, int64_t drank,
                                  spt_tensor **out);

#endif
