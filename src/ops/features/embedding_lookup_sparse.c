/* SPDX-License-Identifier: Apache-2.0 */
/* embedding_lookup_sparse.c -- tf.nn.embedding_lookup_sparse. Engine: embedding_common.c. */
#include "ops/features/features_internal.h"

spt_status spt_embedding_lookup_sparse(const spt_dense *const *params, int64_t nparams, const spt_tensor *sp_ids,
                                       const spt_tensor *sp_weights, spt_combiner combiner, spt_dense **out) {
    return spt__embedding("spt_embedding_lookup_sparse", params, nparams, sp_ids, sp_weights, combiner, false,
                          SPT_UNSET, out);
}
