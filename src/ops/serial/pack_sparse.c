/* SPDX-License-Identifier: Apache-2.0 */
/* pack_sparse.c -- one sparse tensor in spt's own checksummed format (serial_format.c). */
#include "ops/serial/serial_internal.h"

spt_status spt_pack_sparse(const spt_tensor *t, void **data, size_t *len) {
    static const char fn[] = "spt_pack_sparse";
    if (!data || !len) return spt__err(SPT_EINVAL, "%s: data or len is NULL", fn);
    *data = NULL;
    *len = 0;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    SPT__TRY(spt__ensure_valid(fn, t));
    return spt__serialize_part(fn, t, NULL, t->nnz, 0, data, len);
}
