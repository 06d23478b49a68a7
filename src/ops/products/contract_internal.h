/* SPDX-License-Identifier: Apache-2.0 */
/* contract_internal.h -- what spt_tensordot and spt_einsum share (contract_common.c): the product of a
 * sparse tensor with a dense matrix over index tuples, and the dense rearrangement (permute, sum away)
 * of their dense operands and results. Internal. */
#ifndef SPT_CONTRACT_INTERNAL_H
#define SPT_CONTRACT_INTERNAL_H

#include "core/internal.h"

/* True when the dtype has a contraction kernel (every integer, float and complex type). */
bool spt__contract_supported(spt_dtype dt);

/* out[row(e), :] += value_e * bm[col(e), :] for every entry e of a, where row(e) is the row-major
 * linear index of a's modes rdims[0..nr) and col(e) that of kdims[0..nk) (both over a's dims; a mode
 * may be in both lists; a mode in neither is summed away). bm is [K, F] row-major of a's dtype (K the
 * volume of the kdims), out [R, F] zeroed (R the volume of the rdims); the caller guarantees R * F and
 * K * F fit in int64 and a is known valid. Threads own rows: entries already grouped by row are split at
 * row boundaries; otherwise a stable counting pass partitions them into one band of rows per thread
 * (one thread: no reordering). Each output row is summed by one thread in the entries' storage order
 * (no atomics; the same result for any thread count). */
spt_status spt__contract_rows(const char *fn, const spt_tensor *a, const int64_t *rdims, int64_t nr,
                              const int64_t *kdims, int64_t nk, const void *bm, int64_t F, void *out);

/* Rearrange a dense array: src (rank sr, shape sshape, row-major, dtype dt) into dst (rank dr, shape
 * dshape, row-major, zeroed by the caller): src dim d goes to dst dim to[d], or is summed away when
 * to[d] < 0. Every dst dim is the target of exactly one src dim of the same size (the caller's
 * promise). Without summed dims this is a copy (a transpose). */
void spt__dense_rearrange(spt_dtype dt, const void *src, int64_t sr, const int64_t *sshape, const int64_t *to,
                          void *dst, int64_t dr, const int64_t *dshape);

/* A new zeroed dense array of `shape` for op `fn`: the volume and byte size checked (SPT_EOVERFLOW) and
 * the allocation (SPT_ENOMEM), both naming fn and the shape. */
spt_status spt__contract_result(const char *fn, spt_dtype dt, int64_t rank, const int64_t *shape, spt_dense **out);

#endif /* SPT_CONTRACT_INTERNAL_H */
