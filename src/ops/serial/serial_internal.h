/* SPDX-License-Identifier: Apache-2.0 */
/* serial_internal.h -- the serialization ops' engines: TensorFlow's form (serial_tf.c, three TensorProtos
 * per tensor), spt's own packed form (serial_format.c), and what both share (serial_stack.c). Internal,
 * not installed. */
#ifndef SPT_OPS_SERIAL_INTERNAL_H
#define SPT_OPS_SERIAL_INTERNAL_H

#include "ops/kernel.h"

/* ---- spt's packed form (serial_format.c) ---- */

/* Write entries keep[0..n) of t (keep NULL: the first n) without their first drop_dims coordinates (the
 * shape loses its first drop_dims dims too) into a new buffer. */
spt_status spt__serialize_part(const char *fn, const spt_tensor *t, const int64_t *keep, int64_t n, int64_t drop_dims,
                               void **data, size_t *len);
/* Read one packed tensor, checking every field (SPT_EPARSE for malformed bytes, SPT_ERANGE for an index
 * outside the shape); `item` numbers it in messages. The result is known valid. */
spt_status spt__deserialize_one(const char *fn, int64_t item, const void *data, size_t len, spt_tensor **out);

/* ---- TensorFlow's form (serial_tf.c, deserialize_sparse.c) ---- */

/* The three TensorProtos of entries pick[0..n) of t (NULL: all) without their first `drop` coordinates,
 * stored as string elements base..base+2 of d. */
spt_status spt__tf_sparse_put(const char *fn, const spt_tensor *t, const int64_t *pick, int64_t n, int64_t drop,
                              spt_dense *d, int64_t base);
/* Read item k (parts[0..3): indices, values, dense_shape TensorProtos) as a new valid tensor of `dtype`,
 * with TensorFlow's checks (SPT_EINVAL: shapes, dtype; SPT_EPARSE: malformed bytes; SPT_ERANGE: an
 * index outside dense_shape). */
spt_status spt__tf_sparse_get(const char *fn, int64_t k, const spt_str *parts, spt_dtype dtype, spt_tensor **out);
/* deserialize_sparse's engine, messages naming fn. */
spt_status spt__deserialize_tf(const char *fn, const spt_dense *serialized, spt_dtype dtype, spt_tensor **out);

/* ---- shared (serial_stack.c) ---- */

/* The entries of a valid tensor of rank >= 2 grouped by their row of dim 0: row r's entries are
 * keep[start[r] .. start[r + 1]) in storage order; *start (shape[0] + 1) and *keep (nnz) are new arrays. */
spt_status spt__rows_of(const char *fn, const spt_tensor *t, int64_t **start, int64_t **keep);
/* Read item k of a batch into *out (a new valid tensor), checking it; messages name fn. */
typedef spt_status (*spt__item_reader)(const char *fn, int64_t k, void *ctx, spt_tensor **out);
/* Read count >= 1 items with `read` and stack them: batch_rank 0 returns the one item; otherwise entry
 * index = the item's batch multi-index (row-major over batch_shape) then its own index, shape =
 * batch_shape + the largest dim of each item dim; one rank for all (SPT_EINVAL). */
spt_status spt__deserialize_stack(const char *fn, int64_t count, int64_t batch_rank, const int64_t *batch_shape,
                                  spt__item_reader read, void *ctx, spt_tensor **out);

#endif
