/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber.h -- MTTKRP by fibers (mttkrp_fiber.c), the float32/float64 path of spt_mttkrp. */
#ifndef SPT_OPS_PRODUCTS_MTTKRP_FIBER_H
#define SPT_OPS_PRODUCTS_MTTKRP_FIBER_H

#include "core/internal.h"

/* One MTTKRP over the entries in stored order. The grouped form needs them grouped by their index in
 * `mode` (every output row's entries one contiguous run) and writes each output row once; the scatter form
 * takes any order and adds into rows of its own. At rank 4 and up a fiber is a run of consecutive entries
 * equal in every index but `leaf`; its values times the leaf factor's rows are summed first and multiplied
 * by the other factors' rows once. */
typedef struct {
    const void *vals;
    const int64_t *ix;
    int64_t n, N, mode, leaf, R;
    const void *const *fd; /* fd[m]: factor m's [shape[m], R] data, row-major */
} spt__mttkrp_job;

/* Whether dt has the fiber path (float32, float64). */
bool spt__mttkrp_fiber_has(spt_dtype dt);
/* spt_mttkrp's float path after its checks (t valid, fd[m] of [shape[m], R] for m != mode, out the zeroed
 * [shape[mode], R] data). Entries grouped by their mode index take the grouped form; others take the
 * scatter form over a fixed number of chunks (from the sizes, never the thread count) when their private
 * rows are small, else are first grouped into a copy by a stable parallel counting sort. Errors
 * (allocation) name fn; out is then partly written. */
spt_status spt__mttkrp_fibers(const char *fn, const spt_tensor *t, int64_t mode, const void *const *fd, int64_t R,
                              void *out);

#endif
