/* SPDX-License-Identifier: Apache-2.0 */
/* serial_internal.h -- the serialization ops' engine: spt's serialized form (serial_format.c), written
 * by spt_serialize_sparse / spt_serialize_many_sparse and read by the deserializers. Internal, not installed. */
#ifndef SPT_OPS_SERIAL_INTERNAL_H
#define SPT_OPS_SERIAL_INTERNAL_H

#include "ops/kernel.h"

/* Write entries keep[0..n) of t (keep NULL: the first n) without their first drop_dims coordinates (the
 * shape loses its first drop_dims dims too) into a new buffer. */
spt_status spt__serialize_part(const char *fn, const spt_tensor *t, const int64_t *keep, int64_t n, int64_t drop_dims,
                               void **data, size_t *len);
/* Read one serialized tensor, checking every field (SPT_EPARSE for malformed bytes, SPT_ERANGE for an
 * index outside the shape); `item` numbers it in messages. The result is known valid. */
spt_status spt__deserialize_one(const char *fn, int64_t item, const void *data, size_t len, spt_tensor **out);

#endif
