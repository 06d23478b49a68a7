/* SPDX-License-Identifier: Apache-2.0 */
/* cross.c -- tf.sparse.cross: string crosses of sparse and dense features. Engine: cross_common.c. */
#include "ops/features/features_internal.h"

spt_status spt_cross(const spt_cross_input *inputs, int64_t n, const char *separator, int64_t separator_len,
                     spt_tensor **out) {
    return spt__cross("spt_cross", inputs, n, false, separator, separator_len, 0, 0, out);
}
