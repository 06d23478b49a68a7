/* SPDX-License-Identifier: Apache-2.0 */
/* layout_internal.h -- helpers shared by the layout ops (concat, split, slice, retain, reset_shape,
 * fill_empty_rows, reshape, transpose, to_indicator, merge). Not installed. */
#ifndef SPT_LAYOUT_INTERNAL_H
#define SPT_LAYOUT_INTERNAL_H

#include "core/internal.h"

/* dst[k] = src[perm[k]] for n elements of es bytes (perm NULL: a contiguous copy). */
void spt__layout_gather(void *dst, const void *src, size_t es, const int64_t *perm, int64_t n);

/* Make the string values of an op's output tensor owned by it (no-op for other dtypes). */
spt_status spt__layout_own_strings(spt_tensor *t);

/* Normalise an axis in [-rank, rank) to [0, rank); SPT_ERANGE "fn: <what> should be in range [-R, R), got A". */
spt_status spt__layout_axis(const char *fn, const char *what, int64_t axis, int64_t rank, int64_t *out);

/* What every concatenation checks first (concat.c): out not NULL (then *out = NULL), at least one
 * input, none NULL; SPT_EINVAL naming fn otherwise. */
spt_status spt__concat_args(const char *fn, const spt_tensor *const *inputs, int64_t n, spt_tensor **out);

/* Scan an op's output: record row-major order with VALID|SORTED (and UNIQUE when strictly increasing)
 * when the entries are non-decreasing in row-major order; otherwise order all -1 and VALID only. */
void spt__layout_mark_sorted(spt_tensor *t);

/* Copy entries keep[0..n) of `src` into a new owned tensor of `shape` (NULL = src's), subtracting
 * `shift` (NULL = none) from every index; order and flags are left for the caller. keep NULL = all. */
spt_status spt__layout_select(const char *fn, const spt_tensor *src, const int64_t *shape, const int64_t *keep,
                              int64_t n, const int64_t *shift, spt_tensor **out);

/* Read the integer values of `t` (any signed or unsigned integer dtype; SPT_EDTYPE otherwise) as ids:
 * each must lie in [0, vocab) (SPT_ERANGE naming `fn` and the entry). ids (nnz slots) may be NULL to
 * only check. */
spt_status spt__layout_ids(const char *fn, const spt_tensor *t, int64_t vocab, int64_t *ids);

#endif
