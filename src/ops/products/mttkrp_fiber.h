/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber.h -- MTTKRP by fibers (mttkrp_fiber.c), the float32/float64 path of spt_mttkrp. */
#ifndef SPT_OPS_PRODUCTS_MTTKRP_FIBER_H
#define SPT_OPS_PRODUCTS_MTTKRP_FIBER_H

#include "core/internal.h"

/* One MTTKRP: the entries visited in the order perm (NULL: stored order), grouped by their index in `mode`
 * (every output row's entries one contiguous run of that order). A fiber is a run of consecutive entries
 * equal in every index but `leaf` (a mode other than `mode`); its values times the leaf factor's rows are
 * summed first and multiplied by the other factors' rows once. */
typedef struct {
    const void *vals;
    const int64_t *ix, *perm;
    int64_t n, N, mode, leaf, R;
    const void *const *fd; /* fd[m]: factor m's [shape[m], R] data, row-major */
    void *out;             /* [shape[mode], R], zeroed; each row is written once, by the thread owning its run */
} spt__mttkrp_job;

/* Whether dt has the fiber path (float32, float64). */
bool spt__mttkrp_fiber_has(spt_dtype dt);
/* Sorted positions [lo, hi) of the job (hi/lo at output-row boundaries); scratch: 2*R elements. */
void spt__mttkrp_fiber(spt_dtype dt, const spt__mttkrp_job *j, int64_t lo, int64_t hi, void *scratch);
/* spt_mttkrp's float path after its checks (t valid, fd[m] of [shape[m], R] for m != mode, out the zeroed
 * [shape[mode], R] data): entries not grouped by their mode index are first grouped into a copy by a
 * stable parallel counting sort. Errors (allocation) name fn; out is then partly written. */
spt_status spt__mttkrp_fibers(const char *fn, const spt_tensor *t, int64_t mode, const void *const *fd, int64_t R,
                              void *out);

#endif
