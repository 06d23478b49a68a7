/* SPDX-License-Identifier: Apache-2.0 */
/* cross_hashed.c -- tf.sparse.cross_hashed: FingerprintCat64 chains of the crossed features, bit-exact
 * with TensorFlow. Engine: cross_common.c; hashes: fingerprint.c. */
#include "ops/features/features_internal.h"

spt_status spt_cross_hashed(const spt_cross_input *inputs, int64_t n, int64_t num_buckets, uint64_t hash_key,
                            spt_tensor **out) {
    return spt__cross("spt_cross_hashed", inputs, n, true, NULL, 0, num_buckets, hash_key, out);
}
