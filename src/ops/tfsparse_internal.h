/* SPDX-License-Identifier: Apache-2.0 */
/* tfsparse_internal.h -- helpers shared by the issue-19 ops (segment reductions, expand_dims, eye,
 * map_values, cast, bincount, cross). Not installed. */
#ifndef SPT_TFSPARSE_INTERNAL_H
#define SPT_TFSPARSE_INTERNAL_H

#include "ops/kernel.h"

/* The reduction of a segment op. */
typedef enum { SPT__SEG_SUM, SPT__SEG_MEAN, SPT__SEG_SQRT_N } spt__seg_mode;

/* The engine of spt_segment_sum / _mean / _sqrt_n (segment_reduce.c): every check and the reduction,
 * messages naming `fn`. */
spt_status spt__segment_reduce(const char *fn, spt__seg_mode mode, const spt_dense *data, const spt_dense *indices,
                               const spt_dense *segment_ids, int64_t num_segments, spt_dense **out);

/* Element i of a rank-1 int32 or int64 array (the caller has checked the dtype). */
static inline int64_t spt__int_at(const spt_dense *d, int64_t i) {
    return d->dtype == SPT_INT32 ? (int64_t)((const int32_t *)d->data)[i] : ((const int64_t *)d->data)[i];
}

/* A new zero-filled dense array of `shape` for an op's output: the element count and bytes are checked
 * first, naming `fn` (SPT_EOVERFLOW "fn: the output of N x M ... elements does not fit"), then
 * allocated (SPT_ENOMEM naming fn). */
spt_status spt__tf_dense_out(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out);

/* The engine of spt_cross / spt_cross_hashed (cross_common.c). */
spt_status spt__cross(const char *fn, const spt_cross_input *inputs, int64_t n, bool hashed, const char *sep,
                      int64_t sep_len, int64_t num_buckets, uint64_t hash_key, spt_tensor **out);
/* The engine of spt_embedding_lookup_sparse (safe false: rows = dim 0 of the ids, weights used as
 * given) and spt_safe_embedding_lookup_sparse (safe true: rows = every dim but the last, ids < 0 and
 * weights <= 0 pruned, empty rows params[default_id] or zero) (embedding_common.c). */
spt_status spt__embedding(const char *fn, const spt_dense *const *params, int64_t nparams, const spt_tensor *ids,
                          const spt_tensor *weights, spt_combiner combiner, bool safe, int64_t default_id,
                          spt_dense **out);
/* spt's serialized form (serial_format.c). Write entries keep[0..n) of t (keep NULL: the first n) without
 * their first drop_dims coordinates (the shape loses its first drop_dims dims too) into a new buffer. */
spt_status spt__serialize_part(const char *fn, const spt_tensor *t, const int64_t *keep, int64_t n, int64_t drop_dims,
                               void **data, size_t *len);
/* Read one serialized tensor, checking every field (SPT_EPARSE for malformed bytes, SPT_ERANGE for an
 * index outside the shape); `item` numbers it in messages. The result is known valid. */
spt_status spt__deserialize_one(const char *fn, int64_t item, const void *data, size_t len, spt_tensor **out);
/* Read item k of a batch into *out (a new valid tensor), checking it; messages name fn. */
typedef spt_status (*spt__item_reader)(const char *fn, int64_t k, void *ctx, spt_tensor **out);
/* Read count >= 1 items with `read` and stack them (serial_stack.c): batch_rank 0 returns the one item;
 * otherwise entry index = the item's batch multi-index (row-major over batch_shape) then its own index,
 * shape = batch_shape + the largest dim of each item dim; one rank for all (SPT_EINVAL). */
/* TensorFlow's form (serial_tf.c): the three TensorProtos of entries pick[0..n) of t (NULL: all) without
 * their first `drop` coordinates, stored as string elements base..base+2 of d. */
spt_status spt__tf_sparse_put(const char *fn, const spt_tensor *t, const int64_t *pick, int64_t n, int64_t drop,
                              spt_dense *d, int64_t base);
/* Read item k (parts[0..3): indices, values, dense_shape TensorProtos) as a new valid tensor of `dtype`,
 * with TensorFlow's checks (SPT_EINVAL: shapes, dtype; SPT_EPARSE: malformed bytes; SPT_ERANGE: an
 * index outside dense_shape). */
spt_status spt__tf_sparse_get(const char *fn, int64_t k, const spt_str *parts, spt_dtype dtype, spt_tensor **out);
/* The entries of a valid tensor of rank >= 2 grouped by their row of dim 0 (serial_stack.c): row r's
 * entries are keep[start[r] .. start[r + 1]) in storage order; *start (shape[0] + 1) and *keep (nnz) are
 * new arrays. */
spt_status spt__rows_of(const char *fn, const spt_tensor *t, int64_t **start, int64_t **keep);
/* deserialize_sparse's engine, messages naming fn (deserialize_sparse.c). */
spt_status spt__deserialize_tf(const char *fn, const spt_dense *serialized, spt_dtype dtype, spt_tensor **out);
spt_status spt__deserialize_stack(const char *fn, int64_t count, int64_t batch_rank, const int64_t *batch_shape,
                                  spt__item_reader read, void *ctx, spt_tensor **out);

#endif
