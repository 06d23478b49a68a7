/* SPDX-License-Identifier: Apache-2.0 */
/* safe_embedding_lookup_sparse.c -- tf.nn.safe_embedding_lookup_sparse. Engine: embedding_common.c. */
#include "ops/features/features_internal.h"

spt_status spt_safe_embedding_lookup_sparse(const spt_dense *const *params, int64_t nparams,
                                            const spt_tensor *sparse_ids, const spt_tensor *sparse_weights,
                                            spt_combiner combiner, int64_t default_id, spt_dense **out) {
    return spt__embedding("spt_safe_embedding_lookup_sparse", params, nparams, sparse_ids, sparse_weights, combiner,
                          true, default_id, out);
}
