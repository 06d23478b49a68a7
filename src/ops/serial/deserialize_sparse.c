/* SPDX-License-Identifier: Apache-2.0 */
/* deserialize_sparse.c -- tf.io.deserialize_sparse: a string array [..., 3] of TensorFlow's serialized
 * SparseTensors; [3] gives the tensor, more leading dims stack the items (serial_stack.c). */
#include "ops/serial/serial_internal.h"

typedef struct {
    const spt_str *s;
    spt_dtype dtype;
} tf_ctx;

static spt_status read_item(const char *fn, int64_t k, void *ctx, spt_tensor **out) {
    const tf_ctx *c = ctx;
    return spt__tf_sparse_get(fn, k, c->s + 3 * k, c->dtype, out);
}

spt_status spt__deserialize_tf(const char *fn, const spt_dense *serialized, spt_dtype dtype, spt_tensor **out) {
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!serialized) return spt__err(SPT_EINVAL, "%s: serialized is NULL", fn);
    if ((unsigned)dtype >= SPT_NUM_DTYPES)
        return spt__err(SPT_EDTYPE, "%s: dtype %d is not an spt dtype", fn, (int)dtype);
    if (serialized->dtype != SPT_STRING)
        return spt__err(SPT_EDTYPE, "%s: serialized must hold strings, got %s", fn, spt_dtype_name(serialized->dtype));
    const int64_t r = serialized->rank;
    if (r < 1 || serialized->shape[r - 1] != 3) {
        char sb[SPT__IDXBUF];
        spt__fmt_index(sb, sizeof sb, serialized->shape, r);
        return spt__err(SPT_EINVAL, "%s: Serialized sparse should have 3 as the last dimension %s", fn, sb);
    }
    tf_ctx c = {serialized->data, dtype};
    return spt__deserialize_stack(fn, serialized->size / 3, r - 1, serialized->shape, read_item, &c, out);
}

spt_status spt_deserialize_sparse(const spt_dense *serialized, spt_dtype dtype, spt_tensor **out) {
    return spt__deserialize_tf("spt_deserialize_sparse", serialized, dtype, out);
}
