/* SPDX-License-Identifier: Apache-2.0 */
/* features_internal.h -- what the feature ops share: the engines of the feature crosses (cross_common.c)
 * and of the embedding lookups (embedding_common.c). Internal, not installed. */
#ifndef SPT_OPS_FEATURES_INTERNAL_H
#define SPT_OPS_FEATURES_INTERNAL_H

#include "ops/kernel.h"

/* The engine of spt_cross / spt_cross_hashed (cross_common.c). */
spt_status spt__cross(const char *fn, const spt_cross_input *inputs, int64_t n, bool hashed, const char *sep,
                      int64_t sep_len, int64_t num_buckets, uint64_t hash_key, spt_tensor **out);
/* The engine of spt_embedding_lookup_sparse (safe false: rows = dim 0 of the ids, weights used as
 * given) and spt_safe_embedding_lookup_sparse (safe true: rows = every dim but the last, ids < 0 and
 * weights <= 0 pruned, empty rows params[default_id] or zero) (embedding_common.c). */
spt_status spt__embedding(const char *fn, const spt_dense *const *params, int64_t nparams, const spt_tensor *ids,
                          const spt_tensor *weights, spt_combiner combiner, bool safe, int64_t default_id,
                          spt_dense **out);

#endif
