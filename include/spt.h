/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spt.h -- N-dimensional sparse tensors in C11, with TensorFlow SparseTensor semantics.
 *
 * This header is the manual. The comment above each function is its contract.
 *
 * THE TENSOR
 *   A sparse tensor of rank R holds N entries:
 *     indices  N x R int64, row-major (entry i is indices[i*R .. i*R+R-1]),
 *     values   N values of one dtype (see SPT_DTYPES below; strings are spt_str),
 *     shape    R int64 dims, each in [0, 2^63-1]; their product (the volume) need not fit anywhere
 *              (FROSTT's nell-1 is [2902330, 2143368, 25495389], about 1.6e20 cells),
 *     order    R int64: the dimension order the entries are claimed to be sorted in, or all -1
 *              ("undefined order"); see ORDER below.
 *   tensor[indices[i,:]] == values[i]. Entries need not be sorted; duplicates are allowed until an op
 *   says otherwise. N = 0 and R = 0 (a scalar, indices N x 0) are ordinary tensors.
 *
 * OWNERSHIP
 *   spt_tensor and spt_dense are opaque. Constructors either copy the caller's arrays (spt_*_new) or
 *   wrap them without copying (spt_*_wrap: the caller's buffers are borrowed, or adopted when a release
 *   callback is given). Ops never modify their inputs and return new objects through an out-parameter,
 *   except spt_reorder, which sorts in place. Accessors return borrowed pointers that stay valid until the
 *   object is freed or modified. Every *_free is NULL-safe.
 *
 * ERRORS
 *   Every fallible function returns spt_status: SPT_OK (0) or a negative error class. On error the
 *   out-parameter is set to NULL, nothing leaks and no input is modified (spt_reorder leaves the tensor
 *   as it was). spt_last_error() gives a thread-local message naming the function and the offending
 *   values, e.g. "spt_concat: inputs 0 and 2 differ in dim 1 (3 vs 4)". spt never prints, aborts or
 *   asserts on any input.
 *
 * VALIDATE ONCE
 *   A tensor remembers whether it has been validated (every index inside the shape) and whether its
 *   entries are known to be sorted by its order. Tensors produced by spt ops carry these flags; ops check
 *   an input only when a flag is clear. spt_tensor_indices_mut() clears them (values do not affect them).
 *
 * SHAPES OF ANY VOLUME
 *   Ops order and compare entries through one key engine: a 64-bit row-major key when the volume of the
 *   dims involved is at most 2^64, and beyond that the indices packed into a key of up to 64 words
 *   (two for up to 128 bits), sorted by its top word and then word by word within ties; rank 64 with
 *   every dim 2^63-1 works. Only an op that builds a dense array checks that array's size, and every
 *   such op does: the dense conversions (to_dense, sparse_to_dense, to_indicator, from_dense's input),
 *   fill_empty_rows' per-row outputs, add_dense, reduce_sum and reduce_max with a dense output, the
 *   segment reductions, the sparse x dense products (sparse_dense_matmul, _matvec, _bmm, mttkrp,
 *   tensordot, einsum), the embedding lookups, the gradient kernels, reduce_tot_sum and the dense
 *   readers (read_mtx_dense, read_npy): SPT_EOVERFLOW when the element count passes INT64_MAX,
 *   SPT_ENOMEM when it cannot be allocated, with a message naming the array's shape. reshape compares volumes exactly. The ToT functions take any T and outer shape
 *   (spt_reduce_tot_sum's output is dense; the _block variants' int64 bounds need an outer volume that
 *   fits in int64). The MPI layer (spt_mpi.h) takes any shape as well; its distributed sparsify cuts
 *   the outer index space by int64 bounds, so it needs an outer volume that fits in int64.
 *
 * THREADS
 *   Built with OpenMP (default when the compiler supports it), ops use up to spt_get_num_threads()
 *   threads, further capped by the work size. Results are identical for a given thread count.
 *   Distinct objects may be used from distinct threads; one object must not be modified concurrently.
 *   Read-only ops (every op taking a const tensor) may run on one shared tensor from several threads at
 *   once: what they record on an input, the "validated" flag and the row pointer of row sums (see
 *   spt_reduce_sum), is set atomically.
 *   spt_set_num_threads may be called at any time from any thread, also while ops run in others: each
 *   op reads the count when it sizes its work and never runs more threads than it sized for, so a
 *   count changed during a call only changes how many threads the next calls use.
 *   The OpenMP runtime (libgomp) ends the process when it cannot start a thread. Before a parallel
 *   region, spt starts and joins the threads it is about to ask for, with the stack size libgomp gives
 *   its threads (OMP_STACKSIZE, else the default of RLIMIT_STACK, 8 MB when unlimited), and runs with
 *   as many as started: always for a count above the number of processors, and for every count when
 *   the address space is limited (RLIMIT_AS, `ulimit -v`) or that stack size is above 256 MB. Under
 *   such a limit an op thus completes with fewer threads or returns SPT_ENOMEM.
 *   The last-error message is per thread; a thread's first error allocates its buffer (1 KB, freed
 *   when the thread ends). When that fails the status is still returned and spt_last_error() says the
 *   message could not be stored; nothing aborts.
 *
 * WHERE THE MODEL COMES FROM
 *   spt is the sparse tensor of TensorFlow without TensorFlow: the SparseTensor class of TensorFlow's C++
 *   utilities (its order metadata, IndicesValid, Reorder, group, ToDense and Concat, as TensorFlow's
 *   SparseTensor documentation describes them) and the ops of tf.sparse, whose names and argument names
 *   spt keeps (spt_concat is tf.sparse.concat, spt_reduce_sum is tf.sparse.reduce_sum, ...). Its tensors of
 *   tensors follow NWChemEx's description of sparse maps and of sparsifying a tensor. Where TensorFlow
 *   leaves a case unchecked, spt checks it and returns an error.
 *
 * ORDER
 *   `order` is a permutation of the dims, most significant first: the tensor claims that its entries are
 *   sorted lexicographically by (index[order[0]], index[order[1]], ...). {0, 1, ..., R-1} is row-major;
 *   {1, 0} sorts a matrix by columns. All -1 claims nothing. spt_reorder sorts the entries and records
 *   the order; an order given to a constructor or to spt_tensor_set_order is only a claim, which
 *   spt_indices_valid checks and no op relies on for memory safety.
 *
 * INDICESVALID
 *   spt_indices_valid checks the claim: every index inside the shape, and the entries strictly increasing
 *   in the tensor's order, so no index repeats. The first failing entry is reported (out of bounds before
 *   out of order before repeated). A tensor without an order fails, except at rank 1, where strictly
 *   increasing indices suffice.
 *
 * GROUP
 *   spt_group_begin / spt_group_next walk the runs of consecutive entries that share their indices in
 *   leading dims of the order (the rows of a row-major matrix, say): each group gives its key and views of
 *   its entries, without copying. The order must start with the grouping dims.
 *
 * CONCAT ALONG THE PRIMARY DIMENSION
 *   A tensor's primary dim is order[0]. spt_concat_primary (SparseTensor::Concat) joins tensors that share
 *   order[0] and every other dim along that primary dim: the shapes add up there, each input's indices are
 *   offset by the sizes of the inputs before it, and no sort is needed. spt_concat (tf.sparse.concat) joins
 *   along any axis and returns its result in row-major order.
 *
 * TENSORS OF TENSORS
 *   A tensor of tensors (spt_tot) is a sparse outer tensor whose every non-empty element is a small dense
 *   inner tensor. spt_sparsify builds one from an ordinary tensor and a sparse map (each outer index ->
 *   the inner indices it depends on), as NWChemEx describes; spt_reduce_tot_sum goes back.
 *
 * USING IT
 *   #include "spt.h", then link with `pkg-config --cflags --libs spt` (libspt.so), or for the static
 *   archive `-l:libspt.a -Wl,--as-needed $(pkg-config --static --libs spt)`. `make doc` turns this header
 *   into an HTML page and the man page spt(3).
 */
#ifndef SPT_H
#define SPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPT_VERSION_MAJOR 0
#define SPT_VERSION_MINOR 1
#define SPT_VERSION_PATCH 0

/* The largest rank spt accepts. */
#define SPT_MAX_RANK 64

/* ------------------------------------------------------------------------------------------------ */
/* Core: status codes, dtypes, allocation and threads, dense arrays, tensors, validation            */
/* ------------------------------------------------------------------------------------------------ */

/* -- status codes -- */

/* The list lives in spt_status.def: SPT_OK, SPT_ENOMEM, SPT_EINVAL, SPT_ERANGE, SPT_EOVERFLOW,
 * SPT_EPRECONDITION, SPT_EDTYPE, SPT_EIO, SPT_EPARSE, SPT_EINTERNAL, SPT_EDATALOSS. */
typedef enum spt_status {
#define X(e, v, name, desc) e = v,
#include "spt_status.def"
#undef X
} spt_status;

/* "OK", "OUT_OF_MEMORY", "INVALID_ARGUMENT", ... ; "UNKNOWN" for a value not in the list. */
const char *spt_status_name(spt_status s);
/* A one-line description of the status class. */
const char *spt_strerror(spt_status s);
/* The message of the last error raised on this thread ("" if none). Borrowed, thread-local. */
const char *spt_last_error(void);
/* Forget the last error message of this thread. */
void spt_clear_error(void);

/* -- dtypes and strings -- */

/* A byte string value: `len` bytes at `data`, may contain NUL; not NUL-terminated in general. */
typedef struct spt_str {
    const char *data;
    int64_t len;
} spt_str;

/* The list lives in spt_dtypes.def: SPT_BOOL, SPT_INT8 .. SPT_INT64, SPT_UINT8 .. SPT_UINT64,
 * SPT_FLOAT32, SPT_FLOAT64, SPT_COMPLEX64 (float _Complex), SPT_COMPLEX128 (double _Complex),
 * SPT_STRING (spt_str). */
typedef enum spt_dtype {
#define X(e, name, ctype, kind) e,
#include "spt_dtypes.def"
#undef X
    SPT_NUM_DTYPES
} spt_dtype;

/* "float64", ...; NULL for an invalid dtype. */
const char *spt_dtype_name(spt_dtype d);
/* Parse a dtype name ("float64", also "double", "float", "int", "complex", "str", "bytes").
 * SPT_EDTYPE for an unknown name. */
spt_status spt_dtype_from_name(const char *name, spt_dtype *out);
/* Bytes of one element (sizeof(spt_str) for strings); 0 for an invalid dtype. */
size_t spt_dtype_size(spt_dtype d);
/* Kind predicates. */
bool spt_dtype_is_integer(spt_dtype d); /* signed or unsigned ints (not bool) */
bool spt_dtype_is_float(spt_dtype d);   /* float32, float64 */
bool spt_dtype_is_complex(spt_dtype d);
bool spt_dtype_is_numeric(spt_dtype d); /* integer, float or complex */

/* -- allocation, threads, shapes -- */

/* Replace the allocator spt's own allocations go through (NULL functions restore the C library's).
 * The libraries spt calls (libzip, libpng, libarchive, zlib, the OpenMP runtime) and the stdio buffer of
 * the file writers allocate from the C library as before. Not thread-safe: call it before any other spt
 * function runs. `free_fn` receives NULL never.
 * With the C library's allocator, spt keeps up to 16 freed blocks of 256 KiB or more (at most the
 * environment variable SPT_BLOCK_CACHE bytes, default min(RAM / 16, 2 GiB); 0 turns all of this off)
 * and hands them to its next large allocations, so that an op returning a large buffer does not fault in fresh
 * pages on every call. A freed block that does not fit within that bound (an op's buffers at 10^8
 * entries) is kept too, up to SPT_BLOCK_CACHE_LARGE bytes in all (default RAM / 3; 0 turns this off),
 * after telling the kernel it may take its pages back whenever it needs memory (madvise MADV_FREE):
 * until it does, reusing the block faults nothing. A block kept for more than 2 s goes back to the
 * system at the next large allocation or free, and calling spt_set_allocator gives every kept block
 * back. A user allocator sees every allocation. */
typedef void *(*spt_malloc_fn)(size_t size);
typedef void *(*spt_realloc_fn)(void *p, size_t size);
typedef void (*spt_free_fn)(void *p);
void spt_set_allocator(spt_malloc_fn malloc_fn, spt_realloc_fn realloc_fn, spt_free_fn free_fn);

/* Threads spt may use (>= 1). Default: OMP_NUM_THREADS / the OpenMP default; 1 without OpenMP.
 * n <= 0 restores the default. Every count (n, and the OpenMP default) is capped at SPT_MAX_THREADS,
 * and a count above the number of processors is first tried: when the system refuses to start that
 * many threads (RLIMIT_NPROC, a cgroup's pids.max), the count is lowered to about what it allowed.
 * (The OpenMP runtime ends the process when a thread cannot start; checking here keeps that from
 * happening later inside an op; see THREADS at the top for the address-space limit.)
 * spt_get_num_threads() tells the count in effect. May be called while ops run in other threads.
 * Whatever the count, an op with little work (below about 2^20 index and value words: a few 10^5
 * entries) runs on one thread, since waiting for a second thread on a busy machine costs more than
 * such an op; the environment variable SPT_PAR_MIN_WORK (read once) sets that bound, 0 removes it. */
#define SPT_MAX_THREADS 1024
void spt_set_num_threads(int n);
int spt_get_num_threads(void);

/* volume = product of shape[0..rank-1] (1 for rank 0). SPT_EINVAL for a negative dim or rank outside
 * [0, SPT_MAX_RANK]; SPT_EOVERFLOW when the product does not fit in int64 (a zero dim anywhere makes
 * the product 0, never an overflow). */
spt_status spt_shape_volume(int64_t rank, const int64_t *shape, int64_t *volume);

/* -- dense arrays -- */

/* A dense row-major array: dtype, rank, shape, buffer. Rank 0 is a scalar of one element. */
typedef struct spt_dense spt_dense;

/* Release callback for wrapped buffers; called once by the *_free of the object that adopted them. */
typedef void (*spt_release_fn)(void *ctx);

/* A new zero-filled (false, 0, "" for strings) dense array. */
spt_status spt_dense_new(spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out);
/* A new dense array copied from `data` (strings: spt_str array; the bytes are copied). */
spt_status spt_dense_new_from(spt_dtype dtype, int64_t rank, const int64_t *shape, const void *data, spt_dense **out);
/* Wrap `data` without copying. release == NULL: borrowed (the caller keeps it alive); otherwise
 * adopted: release(ctx) is called by spt_dense_free. The size is checked from rank/shape alone, so a
 * claimed size whose bytes overflow is SPT_EOVERFLOW before `data` is touched; data may be NULL only
 * when the volume is 0. For strings every element must have len >= 0 and non-NULL data when len > 0
 * (SPT_EINVAL, as spt_tensor_wrap). On failure release is not called. */
spt_status spt_dense_wrap(spt_dtype dtype, int64_t rank, const int64_t *shape, void *data, spt_release_fn release,
                          void *ctx, spt_dense **out);
spt_status spt_dense_clone(const spt_dense *d, spt_dense **out);
void spt_dense_free(spt_dense *d);
spt_dtype spt_dense_dtype(const spt_dense *d);
int64_t spt_dense_rank(const spt_dense *d);
const int64_t *spt_dense_shape(const spt_dense *d);
int64_t spt_dense_size(const spt_dense *d); /* number of elements (the volume) */
const void *spt_dense_data(const spt_dense *d);
void *spt_dense_data_mut(spt_dense *d);
/* Store a copy of `len` bytes as string element i of a string dense array. */
spt_status spt_dense_set_string(spt_dense *d, int64_t i, const char *data, int64_t len);

/* -- tensors -- */

typedef struct spt_tensor spt_tensor;

/* A new tensor copied from caller arrays. indices: nnz*rank int64 (may be NULL when nnz*rank == 0);
 * values: nnz elements of dtype (spt_str for strings, bytes copied); order: rank int64 or NULL for
 * all -1 (each entry -1 or a dim; a non-negative order must be a permutation of 0..rank-1).
 * Checks structure only: rank in [0, SPT_MAX_RANK], nnz >= 0, dims >= 0 (any volume, see SHAPES OF
 * ANY VOLUME), nnz*rank*8 fits in size_t (SPT_EOVERFLOW), and an entry exists only if the volume
 * is non-zero (SPT_ERANGE). Index bounds are checked by spt_validate or by the first op that needs them. */
spt_status spt_tensor_new(spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz, const int64_t *indices,
                          const void *values, const int64_t *order, spt_tensor **out);
/* A new tensor with zero-filled indices and values (empty strings), to be filled through
 * spt_tensor_indices_mut / spt_tensor_values_mut / spt_tensor_set_string. Same checks. */
spt_status spt_tensor_alloc(spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz, spt_tensor **out);
/* Wrap caller buffers without copying. shape and order are copied (they are small); indices and values
 * are borrowed (release == NULL) or adopted (release(ctx) is called by spt_tensor_free). For strings,
 * values is an spt_str array whose bytes are borrowed too. Same checks as spt_tensor_new, done from the
 * counts alone before any buffer is read. On failure release is not called. spt_reorder on a wrapped
 * tensor sorts the caller's buffers in place. */
spt_status spt_tensor_wrap(spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz, int64_t *indices,
                           void *values, const int64_t *order, spt_release_fn release, void *ctx, spt_tensor **out);
/* TensorFlow's SparseTensor::Create from array arguments, with its checks in its order (all
 * SPT_EINVAL): indices dtype int64; values rank 1; indices rows == values length; indices rank 2;
 * order length == rank (order may be NULL); shape length == indices columns. shape must be a rank-1
 * int64 array. Then the checks of spt_tensor_new. The data is copied. */
spt_status spt_tensor_create(const spt_dense *indices, const spt_dense *values, const spt_dense *shape,
                             const spt_dense *order, spt_tensor **out);
/* A deep copy (flags included). */
spt_status spt_tensor_clone(const spt_tensor *t, spt_tensor **out);
void spt_tensor_free(spt_tensor *t);

spt_dtype spt_tensor_dtype(const spt_tensor *t);
int64_t spt_tensor_rank(const spt_tensor *t);
int64_t spt_tensor_nnz(const spt_tensor *t);
const int64_t *spt_tensor_shape(const spt_tensor *t);
const int64_t *spt_tensor_order(const spt_tensor *t);
const int64_t *spt_tensor_indices(const spt_tensor *t);
const void *spt_tensor_values(const spt_tensor *t);
/* The volume of the shape, or -1 when it is larger than INT64_MAX (a valid shape all the same). */
int64_t spt_tensor_volume(const spt_tensor *t);
/* Writable views. The indices view clears the validated and sorted flags and drops the cached row
 * pointer (see spt_reduce_sum); the values view keeps them (values take no part in any of them). The
 * flags and the row pointer are facts about the indices as they are when an op records them, so
 * after any op ran on the tensor, call spt_tensor_indices_mut again before editing the indices
 * through a pointer obtained earlier. */
int64_t *spt_tensor_indices_mut(spt_tensor *t);
void *spt_tensor_values_mut(spt_tensor *t);
/* Store a copy of `len` bytes as value i of a string tensor. */
spt_status spt_tensor_set_string(spt_tensor *t, int64_t i, const char *data, int64_t len);
/* Set the order metadata (NULL = all -1) without sorting, as constructing with that order would.
 * Clears the sorted flag. SPT_EINVAL unless every entry is -1 or it is a permutation. */
spt_status spt_tensor_set_order(spt_tensor *t, const int64_t *order);
/* Replace the shape (same rank) keeping the entries; the validated flag is cleared unless every dim
 * grows or stays. Same checks on the shape as spt_tensor_new. */
spt_status spt_tensor_set_shape(spt_tensor *t, const int64_t *shape);
/* True when every index is known to lie inside the shape. */
bool spt_tensor_known_valid(const spt_tensor *t);
/* True when the entries are known to be sorted (non-decreasing) by the tensor's full order. */
bool spt_tensor_known_sorted(const spt_tensor *t);
/* True when the order is the row-major order 0, 1, ..., rank-1 (and known sorted, if `sorted`). */
bool spt_tensor_is_row_major(const spt_tensor *t, bool sorted);

/* -- validation -- */

/* Every index inside the shape: SPT_ERANGE "spt_validate: indices[n] = [i0,i1] is out of bounds: need
 * 0 <= index < [s0,s1]" for the first entry that is not. Sets the validated flag. */
spt_status spt_validate(spt_tensor *t);

/* TensorFlow's SparseTensor::IndicesValid, exactly (see INDICESVALID above): for rank 1, entries strictly increasing and
 * in bounds pass whatever the order. Otherwise an undefined order (any order[i] < 0) is
 * SPT_EPRECONDITION. Then the first failing entry n decides, with out of bounds (SPT_ERANGE) before out
 * of order (SPT_EINVAL) before repeated (SPT_EINVAL); the message carries n and the index, e.g.
 * "indices[1] = [0,0,1] is repeated". On success the validated and sorted flags are set. */
spt_status spt_indices_valid(spt_tensor *t);

/* ------------------------------------------------------------------------------------------------ */
/* Sort and keys: reorder, argsort, group                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* Sort the entries in place by `order` (a permutation of 0..rank-1; NULL = row-major), indices and
 * values together, and record the order. Stable: equal indices keep their relative order. O(N) LSD
 * radix sort on the linearized key (constant digits skipped); a tensor already sorted costs one pass.
 * Checks every index against the shape first (SPT_ERANGE) unless the tensor is known valid. */
spt_status spt_reorder(spt_tensor *t, const int64_t *order);

/* tf.sparse.reorder as TF has it: a new tensor *out with t's entries sorted by `order` (as spt_reorder:
 * stable, the order recorded, every index checked unless t is known valid); t is not modified. Faster
 * than spt_tensor_clone + spt_reorder: the sorted entries are written straight into the new tensor from
 * t's (for every dtype but strings, which take the clone-and-sort way). On failure *out is NULL. */
spt_status spt_reordered(const spt_tensor *t, const int64_t *order, spt_tensor **out);

/* The stable sorting permutation by `order` without moving anything: perm[k] = the entry that goes to
 * position k. perm has nnz slots. Same checks as spt_reorder. */
spt_status spt_argsort(const spt_tensor *t, const int64_t *order, int64_t *perm);

/* One group of spt_group_next: the maximal run of consecutive entries [start, start+count) whose
 * values in the group dims equal those of its first entry. `key` holds those values (ndims of them, in
 * the group-dims order); `indices` (count x rank) and `values` (count) are borrowed views into the
 * tensor, valid until it is modified or freed. */
typedef struct spt_group {
    const int64_t *key;
    int64_t start;
    int64_t count;
    const int64_t *indices;
    const void *values;
} spt_group;

typedef struct spt_group_iter spt_group_iter;

/* Start iterating the groups of `t` over `dims` (ndims distinct dims; ndims = 0 makes the whole tensor
 * one group). The tensor's order must start with dims (order[i] == dims[i]); otherwise
 * SPT_EPRECONDITION (where TensorFlow's group() fails an assertion). A tensor whose order was claimed but whose entries
 * are not really sorted yields separate groups for equal keys that are not adjacent (never a crash). */
spt_status spt_group_begin(const spt_tensor *t, const int64_t *dims, int64_t ndims, spt_group_iter **out);
/* Fill *g with the next group and return true, or return false when there are no more. */
bool spt_group_next(spt_group_iter *it, spt_group *g);
void spt_group_end(spt_group_iter *it);

/* ------------------------------------------------------------------------------------------------ */
/* Conventions the op families share                                                                */
/* ------------------------------------------------------------------------------------------------ */

/*
 * THE LAYOUT OPS: concat, concat_primary, split, slice, retain, reset_shape, fill_empty_rows,
 * reshape, transpose, to_indicator, merge.
 * Common to every layout op: inputs are never modified; each input's indices are checked against its
 * shape unless it is known valid (SPT_ERANGE "spt_<op>: indices[n] = [..] is out of bounds ..."), so
 * every output is known valid. Outputs are new tensors (strings copied into them). All dtypes,
 * including strings, unless stated. None of them allocates dense storage except spt_to_indicator, whose
 * result is dense by contract, and the O(rows) outputs of spt_fill_empty_rows.
 */

/*
 * THE MATH OPS: reduce_sum, reduce_sum_sparse, reduce_max, reduce_max_sparse, add, add_dense, the
 * sparse-dense cwise ops, maximum, minimum, softmax, sparse_dense_matmul, sparse_dense_matvec.
 * Conventions of the math ops. Inputs are checked fully: every index is checked against the shape
 * (SPT_ERANGE) unless the tensor is known valid, whatever TF skips. Dtypes follow TF (an unsupported dtype
 * is SPT_EDTYPE). Integer arithmetic wraps modulo 2^bits (no undefined behaviour); floats follow IEEE.
 * Sums run in storage order within an output element, so for a given thread count results are
 * reproducible; integer results do not depend on the thread count at all. One exception, for speed: a
 * sum over every axis splits each thread's share of the values into interleaved partial sums (32 for
 * float64, 64 for float32, 8 for complex) combined pairwise (still a fixed grouping for a given thread
 * count, the same bits on every machine, and no less accurate than one chain).
 */

/*
 * THE REST OF TF.SPARSE AND ITS NEIGHBOURS: the segment reductions, expand_dims, eye, map_values and
 * cast, bincount, cross and cross_hashed, the embedding lookups, serialization, mask_indices.
 * Common to these ops: inputs are never modified; every sparse input's indices are checked against its
 * shape unless it is known valid (SPT_ERANGE); every size computed from a caller's value (num_segments,
 * minlength, maxlength, a row count) is checked before anything is allocated (SPT_EOVERFLOW when an
 * element count does not fit in int64 or its bytes in size_t, SPT_ENOMEM when it fits but cannot be
 * had). Messages name the spt function and the offending value. A count argument documented as
 * "or SPT_UNSET" means TensorFlow's None.
 */

/* TensorFlow's None for a count documented "or SPT_UNSET". */
#define SPT_UNSET (-1)

/*
 * THE SPARSE ALGEBRA: sparse_sparse_matmul, multiply, subtract, multiply_dense, divide_dense,
 * sparse_dense_bmm, mttkrp, ttv, ttm, tensordot, einsum, and the gradient kernels.
 * Products and elementwise ops with sparse results, batched products, contractions with dense factors,
 * and gradient kernels. Common rules: inputs are never modified (an input's indices are checked against
 * its shape unless it is known valid: SPT_ERANGE); duplicates within an operand are summed (a sparse
 * tensor's value at a cell is the sum of its entries there, as spt_sparse_dense_matmul and
 * spt_reduce_sum read it); integer arithmetic wraps modulo 2^bits; each output element is summed in a
 * fixed order, so results do not depend on the thread count.
 */

/* ------------------------------------------------------------------------------------------------ */
/* Layout: dense conversion, concat, split, slice, retain, reshape, transpose, merge, eye, mask     */
/* ------------------------------------------------------------------------------------------------ */

/* -- dense conversion -- */

/* SparseTensor::ToDense: into a caller's dense array `out` of the same dtype and rank whose every dim is
 * >= the tensor's (SPT_EINVAL otherwise, before anything is written). If `initialize`, `out` is first
 * filled with *default_value (an element of the dtype; NULL = zero / false / ""). Every index is checked
 * against out's dims before any write (SPT_ERANGE, `out` untouched); then entries are written in
 * storage order, so for duplicates the last write wins. */
spt_status spt_to_dense_into(const spt_tensor *t, spt_dense *out, bool initialize, const void *default_value);
/* tf.sparse.to_dense: a new dense array of the tensor's shape filled with *default_value (NULL = zero),
 * then the entries (last write wins). validate_indices: the indices must also be strictly increasing
 * in row-major order (the errors of spt_indices_valid with the row-major order). */
spt_status spt_to_dense(const spt_tensor *t, const void *default_value, bool validate_indices, spt_dense **out);
/* tf.sparse.from_dense: the entries of `d` that differ from *default_value (NULL = zero; for floats
 * NaN always differs, -0.0 equals 0.0), in row-major order; the order is recorded as row-major and the
 * tensor is known valid and sorted. */
spt_status spt_from_dense(const spt_dense *d, const void *default_value, spt_tensor **out);
/* tf.sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value, validate_indices):
 * sparse_indices is int32 or int64 of rank 0 (one 1-D index), 1 (N 1-D indices) or 2 (N indices of
 * rank R); output_shape rank 1 of the same integer dtype; sparse_values rank 0 (broadcast) or [N];
 * default_value a scalar of the values' dtype. Checks and messages follow TensorFlow's kernel; an index
 * outside output_shape is SPT_ERANGE even without validation. Duplicates: last write wins. */
spt_status spt_sparse_to_dense(const spt_dense *sparse_indices, const spt_dense *output_shape,
                               const spt_dense *sparse_values, const spt_dense *default_value, bool validate_indices,
                               spt_dense **out);

/* -- concat, split, slice, retain, reset_shape, fill_empty_rows, reshape, transpose, merge -- */

/* TensorFlow's SparseTensor::Concat: concatenate along the primary dimension p = order[0]. At least one
 * input; all of one dtype (SPT_EDTYPE), one rank >= 1 (SPT_EINVAL), every order[0] defined
 * (SPT_EPRECONDITION) and equal (SPT_EINVAL), every dim other than p equal (SPT_EINVAL). Output shape:
 * input 0's with shape[p] = sum of the inputs' shape[p] (SPT_EOVERFLOW if it does not fit). Entries:
 * input 0's, then input 1's, ... in storage order, coordinate p of input i offset by the sum of the
 * preceding inputs' shape[p] (the shapes, not the largest index). O(M), no sort. Output order: the
 * inputs' order if every input has the same full order vector (then known sorted when every input is
 * known sorted), else all -1. */
spt_status spt_concat_primary(const spt_tensor *const *inputs, int64_t n, spt_tensor **out);

/* tf.sparse.concat(axis, sp_inputs, expand_nonconcat_dim). axis in [-R, R) (negative counts from the
 * end; SPT_ERANGE otherwise, also for a single input). Inputs: n >= 1, one dtype (SPT_EDTYPE), one rank
 * (SPT_EINVAL "Ranks of all input tensors must match ..."), equal non-concat dims (SPT_EINVAL "Input
 * shapes must match ...") unless expand_nonconcat_dim, in which case every non-concat dim of the output
 * is the largest over the inputs. The concat dim is the checked sum (SPT_EOVERFLOW). Coordinate `axis` of
 * input i is offset by the preceding inputs' sizes. The output is in row-major order (recorded, known
 * sorted; unique when every input is): inputs known sorted row-major are used as they are, the others
 * are sorted (radix, stable) into a private permutation; then axis 0 is a copy with offsets (O(M)) and
 * any other axis a k-way merge of the runs that share the dims before the axis (O(M log k)). A single
 * input is returned in row-major order too (TF's Python layer returns it unchanged). */
spt_status spt_concat(const spt_tensor *const *inputs, int64_t n, int64_t axis, bool expand_nonconcat_dim,
                      spt_tensor **out);

/* SparseSplit: split `t` along `axis` (in [-R, R), SPT_ERANGE) into num_split pieces written to
 * outs[0..num_split) (the caller provides num_split slots). 1 <= num_split <= shape[axis] (SPT_EINVAL);
 * once those parameters are known good every slot is NULL on error. Piece k has size q+1 along the
 * axis for k < shape[axis] % num_split, else
 * q = shape[axis] / num_split; coordinates are shifted into the piece. Each piece keeps the input's
 * entry order, its order metadata and its sorted/unique flags (a piece is a subsequence with a monotone
 * shift of one coordinate). */
spt_status spt_split(const spt_tensor *t, int64_t axis, int64_t num_split, spt_tensor **outs);

/* SparseSlice: start and size have rank entries; start >= 0 (SPT_EINVAL; TF accepts a negative start and
 * produces an invalid tensor). A negative size is SPT_EINVAL unless start[d] >= shape[d] - size[d] (as
 * TensorFlow clips first: from there the slice is empty along d, output dim 0; compared exactly, without
 * overflow). Output dim d = size[d] if start[d] < shape[d] - size[d], else
 * shape[d] - start[d] if start[d] < shape[d], else 0 (no start+size is ever formed, so huge sizes are
 * fine). Keeps the entries with start <= index < start + out dim, shifted by -start, in input order;
 * the order metadata and sorted/unique flags are kept. */
spt_status spt_slice(const spt_tensor *t, const int64_t *start, const int64_t *size, spt_tensor **out);

/* tf.sparse.retain: the entries i with to_retain[i] true, in input order, same shape. mask_len must equal
 * nnz (SPT_EINVAL; TF does not check a short mask at run time). Order and sorted flags kept. */
spt_status spt_retain(const spt_tensor *t, const bool *to_retain, int64_t mask_len, spt_tensor **out);

/* tf.sparse.reset_shape: new_shape (rank entries) must be >= the current shape in every dim
 * (SPT_EINVAL "Requested new_shape should have dimension sizes >= sp_input.shape ..."; a negative dim
 * fails this too); NULL gives the tight bounding box, max index + 1 per dim (all 0 when nnz = 0), which
 * may be smaller than the old shape. Entries, order and flags unchanged. */
spt_status spt_reset_shape(const spt_tensor *t, const int64_t *new_shape, spt_tensor **out);

/* SparseFillEmptyRows (rank >= 1; SPT_EINVAL "Dense shape cannot be empty." for rank 0). Every row q
 * of dim 0 with no entry gets one entry [q, 0, ..., 0] holding *default_value (an element of the dtype;
 * NULL = zero / false / ""). Output entries: a stable bucket sort by row (entries of one row keep their
 * input order; other columns are not sorted), or the input unchanged when every row is non-empty and
 * the rows are non-decreasing. Row checks first, with TF's message: "indices(i, 0) is invalid: r >= R"
 * (SPT_ERANGE); shape[0] = 0 with entries is SPT_ERANGE. The output's order is recorded as row-major
 * (known sorted) when its entries happen to be in row-major order, else all -1.
 * Optional outputs (pass NULL to skip): *empty_row_indicator, a new bool spt_dense [shape[0]] (true for
 * the rows that were filled); *reverse_index_map, a new int64 spt_dense [nnz] (output position of each
 * input entry). All outputs are NULL on error. */
spt_status spt_fill_empty_rows(const spt_tensor *t, const void *default_value, spt_tensor **out,
                               spt_dense **empty_row_indicator, spt_dense **reverse_index_map);

/* SparseReshape to new_shape[0..new_rank). At most one -1 (SPT_EINVAL "only one output dimension may be
 * -1, not both i and j"), other sizes >= 0 (SPT_EINVAL "size d must be non-negative, not X"). Volumes
 * are compared exactly, in multi-word arithmetic when they pass INT64_MAX. With -1: the product of the
 * others must be > 0 (SPT_EINVAL "reshape cannot infer the missing input size for an empty tensor ...")
 * and divide the volume with a quotient <= INT64_MAX (SPT_EINVAL "... requires a multiple of P");
 * without: equal volumes (SPT_EINVAL "Input to reshape is a tensor with N dense values, but the requested
 * shape has M"). Each index goes through its row-major offset (int64 when the volume fits, multi-word
 * otherwise; never 32-bit). Entry order kept; a row-major sorted input gives a row-major sorted output. */
spt_status spt_reshape(const spt_tensor *t, int64_t new_rank, const int64_t *new_shape, spt_tensor **out);

/* tf.sparse.transpose: perm (rank entries, a permutation; an entry outside [0, rank) is SPT_ERANGE, a
 * repeated one SPT_EINVAL; NULL = reversed dims):
 * output index[k] = input index[perm[k]], shape likewise; the output is sorted into row-major order
 * (stable radix sort; no work beyond one pass when the input's known order already gives it). */
spt_status spt_transpose(const spt_tensor *t, const int64_t *perm, spt_tensor **out);

/* tf.sparse.merge(sp_ids, sp_values, vocab_size, already_sorted): n_ids >= 1 integer id tensors
 * (SPT_EDTYPE otherwise) with vocab_sizes[0..n_vocab), n_vocab == n_ids (SPT_EINVAL "sp_ids and
 * vocab_size have to have equal lengths"); every id tensor and sp_values have sp_ids[0]'s entry count
 * (SPT_EINVAL). Output: rank R-1+n_ids, indices = sp_ids[0]'s without the last column, then the ids of
 * each id tensor as one column each (each id in [0, vocab_sizes[k]), SPT_ERANGE — TF does not check);
 * values = sp_values' values (any dtype); shape = sp_ids[0].shape[:-1] + vocab_sizes. Sorted into
 * row-major order (stable) unless already_sorted, which keeps the entry order (the order is then
 * recorded as row-major only if the entries really are in that order). */
spt_status spt_merge(const spt_tensor *const *sp_ids, int64_t n_ids, const spt_tensor *sp_values,
                     const int64_t *vocab_sizes, int64_t n_vocab, bool already_sorted, spt_tensor **out);
/* ==== END LAYOUT OPS */

/* -- expand_dims, eye -- */

/* tf.sparse.expand_dims: a new tensor of rank R+1 with a dim of size 1 inserted at `axis` (in
 * [-R-1, R], negative counted from the end: -1 appends; SPT_ERANGE otherwise; R+1 > SPT_MAX_RANK is
 * SPT_EINVAL), every index getting a 0 there. Values and entry order are kept; a recorded order stays
 * valid (the new dim is constant), so a row-major sorted input gives a row-major sorted output. */
spt_status spt_expand_dims(const spt_tensor *t, int64_t axis, spt_tensor **out);

/* tf.sparse.eye(num_rows, num_columns, dtype): shape [num_rows, num_columns] (num_columns SPT_UNSET =
 * num_rows; negative sizes SPT_EINVAL; a volume beyond int64 SPT_EOVERFLOW), value 1 (true, 1 + 0i) at
 * [i, i] for i < min(num_rows, num_columns), row-major, known valid, sorted and unique. Every dtype but
 * string (SPT_EDTYPE). */
spt_status spt_eye(int64_t num_rows, int64_t num_columns, spt_dtype dtype, spt_tensor **out);

/* -- mask -- */

/* The positions of the slices tf.sparse.mask keeps of an IndexedSlices (values, indices, dense_shape):
 * every i in [0, n), ascending, whose indices[i] is not among the m mask_indices (duplicates in either
 * list allowed; a kept index that repeats is kept each time, as TensorFlow's setdiff1d does). keep has
 * room for n positions; *nkeep is how many were written. The caller gathers values[keep[k]] and
 * indices[keep[k]]; the dense shape is unchanged. SPT_EINVAL for a negative count or a NULL array with
 * a positive count. */
spt_status spt_mask_indices(const int64_t *indices, int64_t n, const int64_t *mask_indices, int64_t m, int64_t *keep,
                            int64_t *nkeep);
/* ==== END TF.SPARSE COMPLETION */

/* ------------------------------------------------------------------------------------------------ */
/* Elementwise: add, subtract, multiply, divide, cwise, maximum, minimum, map_values, cast          */
/* ------------------------------------------------------------------------------------------------ */

/* tf.sparse.add of two sparse tensors (SparseAdd). Checks, in TF's order (SPT_EINVAL): same rank
 * ("Operands do not have the same ranks"), rank > 0, equal dims ("Operands' shapes do not match: got X
 * and Y for dimension d"); then same dtype (SPT_EDTYPE), thresh not NaN, every index in bounds
 * (SPT_ERANGE). For integer values thresh must be an integer, not +-inf (SPT_EINVAL, checked first:
 * TensorFlow converts the threshold to the values' dtype and refuses 0.5), and thresh <= |a + b| is
 * decided exactly (|MIN| = 2^(n-1)); being a double, a threshold beyond 2^53 in magnitude is the double
 * nearest to the caller's integer. Union of the entries in row-major order: an index held by one operand is copied as is
 * (the threshold does not apply), an index held by both gives a + b, kept iff thresh <= |a + b|
 * (modulus for complex; compared in the value's real type), so thresh 0 keeps zero sums. Inputs need
 * not be sorted: an input not sorted in row-major order is detected in one pass and sorted first (a
 * stable radix sort of a key copy; the input is not modified) -- never merged wrongly. Duplicates within
 * one operand meet the other's entries one to one, as TF's two-pointer merge does. Output shape = a's;
 * order row-major, known valid and sorted. Dtypes: int8..int64, float32/64, complex64/128 (TF's;
 * unsigned and bool are SPT_EDTYPE). One merge pass, split across threads by key ranges. */
spt_status spt_add(const spt_tensor *a, const spt_tensor *b, double thresh, spt_tensor **out);

/* Sparse + dense -> dense (SparseTensorDenseAdd): a copy of b with every entry of a added to its cell
 * (duplicates accumulate; unsorted input is fine). Checks: same dtype (SPT_EDTYPE), same rank ("Two
 * operands have different ranks"), equal dims ("Dimension d does not equal (no broadcasting is
 * supported): sparse side X vs dense side Y") -- SPT_EINVAL; every index inside the shape, else
 * SPT_ERANGE "Sparse tensor has an invalid index on dimension d: a_indices(i,d) = v, dense tensor
 * shape: [..]". Any rank (TF: 1..5). Dtypes: integers, floats, complex. */
spt_status spt_add_dense(const spt_tensor *a, const spt_dense *b, spt_dense **out);

/* SparseDenseCwise{Mul,Div,Add}: out value i = op(value i, dense[index i]) where the dense array is
 * broadcast to the sparse shape only, by TensorFlow's rule: rank(sparse) >= 1 and rank(dense) <=
 * rank(sparse) and, aligned from the right, each dense dim equals the sparse dim, or is 1 against a
 * sparse dim >= 1, or is 0 against a sparse dim 1 (then any stored entry is SPT_EINVAL: it meets no dense
 * element); else SPT_EINVAL "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible
 * shapes: [..] vs. [..]" (a dense 1 against a sparse 0 included). An index outside the sparse shape is
 * SPT_ERANGE ("Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape"). Implicit
 * zeros stay untouched (add only changes stored entries). The result is a new tensor with a's indices,
 * shape, order and flags and the new values (TF returns only the values). Integer division truncates
 * toward zero; an integer division by zero is SPT_EINVAL ("integer division by zero at entry i"), and
 * MIN / -1 wraps to MIN; float division follows IEEE. Dtypes: integers and floats (TF: real types). */
spt_status spt_sparse_dense_cwise_mul(const spt_tensor *a, const spt_dense *dense, spt_tensor **out);
spt_status spt_sparse_dense_cwise_div(const spt_tensor *a, const spt_dense *dense, spt_tensor **out);
spt_status spt_sparse_dense_cwise_add(const spt_tensor *a, const spt_dense *dense, spt_tensor **out);

/* tf.sparse.maximum / tf.sparse.minimum (SparseSparseMaximum/Minimum): the union of the entries in
 * row-major order; an index held by both gives max(a, b) (min), an index held by one side gives
 * max(v, 0) (min(v, 0)): the implicit zero takes part; resulting zeros are kept; a NaN on either side
 * gives NaN (as TF). Checks as spt_add. Unsorted inputs are sorted first (a key copy), as spt_add. Dtypes: integers and floats. */
spt_status spt_maximum(const spt_tensor *a, const spt_tensor *b, spt_tensor **out);
spt_status spt_minimum(const spt_tensor *a, const spt_tensor *b, spt_tensor **out);

/* Elementwise product of two sparse tensors of one shape with a sparse result: the intersection of
 * their patterns (torch.mul of two sparse tensors; tf.sparse has no sparse result for it). A cell held
 * by both operands gives (sum of a's entries there) * (sum of b's), also when that is zero; cells held
 * by one side only are absent. Checks: same rank and dims (SPT_EINVAL "operands' shapes do not match:
 * ..."), same dtype (SPT_EDTYPE), every index inside the shape (SPT_ERANGE). Any rank, also 0. Result:
 * row-major, known valid, sorted and unique. Dtypes: every integer, float and complex type. */
spt_status spt_multiply(const spt_tensor *a, const spt_tensor *b, spt_tensor **out);

/* a - b of two sparse tensors with a sparse result: the union of the entries, as spt_add(a, -b, 0):
 * an index held by a only is copied, one held by b only is negated, one held by both gives a - b (kept
 * even when zero). Checks, ordering, duplicate handling and dtypes as spt_add (int8..int64, floats,
 * complex), with messages naming spt_subtract. */
spt_status spt_subtract(const spt_tensor *a, const spt_tensor *b, spt_tensor **out);

/* Sparse times / over dense under numpy's broadcasting rules, keeping the sparse pattern: shapes are
 * aligned from the right, missing leading dims count as 1, and each pair of dims must be equal or have
 * a 1 (SPT_EINVAL "shapes .. do not broadcast" otherwise); the result has the broadcast shape. Where
 * the dense side is larger (the sparse dim is 1 or missing) every sparse entry is repeated along that dim
 * (N x the product of those sizes entries; SPT_EOVERFLOW if that does not fit), then each value becomes
 * op(sparse value, dense element at the entry's broadcast index). Implicit zeros stay absent (numpy
 * would give 0 * inf = NaN and 0 / 0 = NaN there; spt, as TensorFlow's SparseDenseCwise ops, ignores
 * them). Integer division truncates toward zero, MIN / -1 wraps, a zero divisor is SPT_EINVAL naming the
 * output index. Result order: the sparse input's order and flags when no entry is repeated and the rank
 * is unchanged; otherwise row-major (sorted). spt_sparse_dense_cwise_mul/div keep TensorFlow's one-way
 * broadcasting; these extend it. Dtypes: every integer, float and complex type. */
spt_status spt_multiply_dense(const spt_tensor *a, const spt_dense *dense, spt_tensor **out);
spt_status spt_divide_dense(const spt_tensor *a, const spt_dense *dense, spt_tensor **out);

/* -- map_values: math on the stored values -- */

/* The unary functions TensorFlow dispatches on a SparseTensor's values (tf.math.abs(sp) ==
 * tf.sparse.map_values(tf.math.abs, sp)). Implicit zeros are not touched (sign, square, ... of the
 * stored values only). */
typedef enum spt_unary_op {
    SPT_OP_ABS,      /* integers (|MIN| wraps to MIN), floats, complex (-> float32/float64 modulus) */
    SPT_OP_NEGATIVE, /* signed integers (wrap), floats, complex */
    SPT_OP_SIGN,     /* -1, 0, 1 (floats: -0 and NaN kept; complex: z / |z|, 0 for 0) */
    SPT_OP_SQUARE,   /* integers (wrap), floats, complex */
    SPT_OP_SQRT,     /* this and the functions down to TANH: floats and complex (C99 csqrt, ...) */
    SPT_OP_RSQRT,    /* 1 / sqrt(x) */
    SPT_OP_EXP,
    SPT_OP_LOG1P, /* log(1 + x) */
    SPT_OP_SIN,
    SPT_OP_TAN,
    SPT_OP_ASIN,
    SPT_OP_ATAN,
    SPT_OP_ASINH,
    SPT_OP_ATANH,
    SPT_OP_TANH,
    SPT_OP_ERF,       /* floats */
    SPT_OP_FLOOR,     /* floats */
    SPT_OP_CEIL,      /* floats */
    SPT_OP_ROUND,     /* floats: half to even (TF's round, 2.5 -> 2); integers: identity */
    SPT_OP_ONES_LIKE, /* every dtype but string: 1 (true, 1 + 0i) */
    SPT_NUM_UNARY_OPS
} spt_unary_op;

/* "abs", "negative", ..., "ones_like" (TensorFlow's function names); NULL for an unknown op. */
const char *spt_unary_op_name(spt_unary_op op);
/* The op of a name above; SPT_EINVAL for an unknown name. */
spt_status spt_unary_op_from_name(const char *name, spt_unary_op *out);

/* tf.sparse.map_values(fn, t) for a unary fn: a new tensor with t's indices, shape, order and flags and
 * values fn(value). A dtype the op does not take is SPT_EDTYPE (strings never). Floats are computed in
 * double and rounded once to the dtype; domain errors give IEEE results (sqrt(-1) = NaN, log1p(-1) =
 * -inf), never an error. Threaded over the values. */
spt_status spt_map_values(const spt_tensor *t, spt_unary_op op, spt_tensor **out);

/* map_values with two sparse arguments: fn(a.values, b.values) where a and b must hold the same
 * indices in the same storage order and the same shape (SPT_EINVAL "must have the same indices" /
 * "same dense shape", TensorFlow's requirement) and one dtype (SPT_EDTYPE). add, subtract, multiply:
 * integers wrap, floats and complex IEEE; bool and string SPT_EDTYPE. For fn(sp, scalar) use
 * spt_sparse_dense_cwise_add / _mul with a rank-0 dense operand. */
typedef enum spt_binary_op { SPT_OP_ADD, SPT_OP_SUBTRACT, SPT_OP_MULTIPLY } spt_binary_op;
spt_status spt_map_values2(const spt_tensor *a, const spt_tensor *b, spt_binary_op op, spt_tensor **out);

/* tf.cast of the values (map_values(tf.cast, t, dtype)): a new tensor of `dtype` with t's indices,
 * shape, order and flags. Every pair of non-string dtypes converts, each conversion defined (no
 * undefined behaviour in C): integer -> integer wraps modulo 2^bits (two's complement, as TF's
 * static_cast); float -> integer truncates toward zero, NaN gives 0 and a value beyond the dtype's range
 * saturates to its min or max (TF leaves this to the platform; spt defines it); anything -> bool is
 * value != 0 (NaN -> true); bool -> number is 0 or 1; complex -> real keeps the real part; real ->
 * complex has imaginary part 0; int64 / uint64 -> float rounds to nearest; float64 -> float32 rounds to
 * nearest (beyond float32's range: +-inf). Each value is converted in one step (never rounded twice).
 * string -> string copies; string <-> anything else is SPT_EDTYPE. */
spt_status spt_cast(const spt_tensor *t, spt_dtype dtype, spt_tensor **out);

/* ------------------------------------------------------------------------------------------------ */
/* Reduce: reduce_sum, reduce_max, softmax, segment reductions                                      */
/* ------------------------------------------------------------------------------------------------ */

/* tf.sparse.reduce_sum (SparseReduceSum) with a dense output. axes: naxes dims to reduce, each in
 * [-rank, rank) (else SPT_ERANGE "Invalid reduction dimension A, for input with R dimensions."),
 * negatives counted from the end, repeats harmless. axes == NULL reduces every dim (python's axis=None);
 * axes != NULL with naxes == 0 reduces nothing (TF's kernel: only duplicates are summed). The output
 * has the kept dims, or with keep_dims every dim with the reduced ones of size 1; it is zero where no
 * entry falls. Duplicates are summed. Dtypes: integers, floats, complex (not bool, string).
 * Speed: no sort; threaded when the entries are sorted by an order whose leading dims are kept.
 * Row sums keep a row pointer: the row sums of a 2-D tensor (axis 1, dense output, spt_reduce_max
 * too) that is known valid and sorted row-major (spt_reorder, or an op's output) and has at most a
 * quarter as many rows as entries (shape[0] + 1 <= nnz / 4) and at most 2^32 - 1 entries build, on
 * the first such call, CSR's row pointer (the first entry of each row: 4 * (shape[0] + 1) bytes, at
 * most 1 byte per entry against the tensor's 24) and keep it with the tensor; later row sums read
 * only it and the values (about a third of the bytes). Building it is part of the first call's pass over the entries. It is built
 * once even when several threads sum the rows of one shared tensor at once (the THREADS promise
 * holds), dropped by everything that changes the tensor's indices, shape or order in place
 * (spt_reorder to another order, spt_tensor_set_shape, spt_tensor_set_order,
 * spt_tensor_indices_mut), kept by spt_tensor_values_mut, not copied by spt_tensor_clone, and freed
 * by spt_tensor_free. If it cannot be allocated the sums are taken without it. The results are the
 * same bits with or without it. */
spt_status spt_reduce_sum(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims, spt_dense **out);
/* SparseReduceSumSparse: as spt_reduce_sum, but the result is sparse: one entry per non-empty output
 * cell (a sum may be 0), in row-major order (known valid, sorted, unique); with keep_dims the reduced
 * coordinates are 0. One pass without a sort when the kept dims are a prefix of the tensor's order
 * (entries sorted); otherwise, when the output has at most 2 nnz cells, a dense scratch of the cells
 * (O(nnz + cells)), else a stable radix sort on the kept dims -- never dense storage of a large output. */
spt_status spt_reduce_sum_sparse(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                                 spt_tensor **out);
/* tf.sparse.reduce_max (SparseReduceMax), dense output: the maximum of the STORED values of each
 * output cell (implicit zeros never take part, so a cell holding only negatives gets a negative max);
 * a cell with no entry is 0. Axes as spt_reduce_sum. Dtypes: integers and floats; a cell holding a NaN
 * gives NaN whatever the entry order (as tf.math.reduce_max and numpy.max; TF's SparseReduceMax result
 * there depends on the order of the entries). */
spt_status spt_reduce_max(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims, spt_dense **out);
/* SparseReduceMaxSparse: spt_reduce_max with a sparse result (as spt_reduce_sum_sparse). */
spt_status spt_reduce_max_sparse(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                                 spt_tensor **out);

/* tf.sparse.softmax (SparseSoftmax): rank >= 2 (SPT_EINVAL "Input should have rank >= 2"); for each
 * group of entries sharing all but the last coordinate, exp(v - max) / sum(exp(v - max)) over the
 * STORED values only (implicit zeros excluded; duplicates count as separate members). The result holds
 * the same entries sorted in row-major order (TF pairs sorted values with the input's indices, which
 * is only right for sorted input; spt returns indices and values together, so unsorted input is fine).
 * Dtypes: float32, float64 (others SPT_EDTYPE). */
spt_status spt_softmax(const spt_tensor *t, spt_tensor **out);

/* -- segment reductions (tf.sparse.segment_sum / segment_mean / segment_sqrt_n) -- */

/* out[s, ...] = reduction over the positions i with segment_ids[i] == s of data[indices[i], ...].
 * data: a dense array of rank >= 1 (SPT_EINVAL otherwise); its first dim is the one indexed.
 * indices, segment_ids: rank-1 int32 or int64 arrays of one length (SPT_EINVAL "indices should be a
 * vector", "segment_ids should be a vector", "segment_ids and indices should have same size"; another
 * dtype is SPT_EDTYPE). num_segments: SPT_UNSET or >= 0 (SPT_EINVAL).
 * Output: a new dense array of data's dtype and shape [rows] + data.shape[1:], rows = num_segments
 * when given, else the last segment id + 1 (0 when there are no ids). Segments with no id are 0 (also
 * for mean and sqrt_n). TensorFlow's checks, all before the output is allocated: the ids non-decreasing
 * (SPT_EINVAL "segment ids are not increasing", naming the position), >= 0 (SPT_ERANGE "segment ids
 * must be >= 0") and < num_segments when given (SPT_ERANGE "segment ids must be < num_segments"); every
 * index in [0, data.shape[0]) (SPT_ERANGE "indices[i] == v out of range [0, N)").
 * A repeated index is added as often as it appears. Sums run in position order within a segment, in
 * the data's dtype (integers wrap modulo 2^bits). Threads split the positions at segment boundaries, so
 * the result does not depend on the thread count.
 * Dtypes: segment_sum every integer and float dtype; segment_mean and segment_sqrt_n float32 and
 * float64 (TensorFlow's), others SPT_EDTYPE. mean divides a segment's sum by its count, sqrt_n by the
 * square root of its count. */
spt_status spt_segment_sum(const spt_dense *data, const spt_dense *indices, const spt_dense *segment_ids,
                           int64_t num_segments, spt_dense **out);
spt_status spt_segment_mean(const spt_dense *data, const spt_dense *indices, const spt_dense *segment_ids,
                            int64_t num_segments, spt_dense **out);
spt_status spt_segment_sqrt_n(const spt_dense *data, const spt_dense *indices, const spt_dense *segment_ids,
                              int64_t num_segments, spt_dense **out);

/* ------------------------------------------------------------------------------------------------ */
/* Products: matmul, matvec, spgemm, bmm, mttkrp, ttv, ttm, tensordot, einsum                       */
/* ------------------------------------------------------------------------------------------------ */

/* tf.sparse.sparse_dense_matmul (SparseTensorDenseMatMul): op(A) x op(B) with A a rank-2 sparse tensor
 * and B a rank-2 dense array of the same dtype; op(A) = A^H if adjoint_a (conjugate transpose), op(B) =
 * B^H if adjoint_b. Checks: A rank 2 ("Tensor 'a_shape' must have 2 elements"), B rank 2 ("Tensor 'b'
 * is not a matrix") -- SPT_EINVAL; inner dims ("Cannot multiply A and B because inner dimension does not
 * match: X vs. Y.  Did you forget a transpose?") SPT_EINVAL; then, entry by entry, k before m (SPT_ERANGE
 * "k (K) from index[i,c] out of bounds (>=B)", "m (M) from index[i,c] out of bounds (>=O)"), all
 * before anything is computed (also when the output is empty, where TF skips them). nnz == 0 gives zeros. Duplicates
 * accumulate. Dtypes: every integer, float and complex type (TF's CPU kernel: int32, floats, complex).
 * Threaded by output rows without atomics: when A is sorted by its output rows it is used as is,
 * otherwise a stable radix sort by row gives the row grouping; each output element is accumulated in
 * storage order, so the result does not depend on the thread count. */
spt_status spt_sparse_dense_matmul(const spt_tensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                   spt_dense **out);
/* Sparse matrix x dense vector: x is rank 1 of length k; out is rank 1 (op(A) x). Same checks (x must
 * be rank 1: SPT_EINVAL) and behaviour as spt_sparse_dense_matmul. */
spt_status spt_sparse_dense_matvec(const spt_tensor *a, const spt_dense *x, bool adjoint_a, spt_dense **out);
/* ==== END MATH OPS */

/* Sparse x sparse matrix product op(A) x op(B) with a sparse result (TensorFlow's SparseMatMul of two
 * sparse operands, which tf.sparse lacks; torch.sparse.mm). Rank 2: A [M, K] (or [K, M] with adjoint_a),
 * B [K, N] (or [N, K] with adjoint_b); op(X) = X^H (conjugate transpose) when the adjoint flag is set.
 * Rank 3: a batch of matrices, batch dim first: A [P, M, K], B [P, K, N], the product of each pair,
 * the adjoints acting on the last two dims. Checks: ranks 2 or 3 and equal (SPT_EINVAL); one dtype
 * (SPT_EDTYPE); equal batch sizes, equal inner dims (SPT_EINVAL "... inner dimension does not match");
 * the output volume and P x K fit in int64 (SPT_EOVERFLOW); every index inside its shape (SPT_ERANGE).
 * Result: shape [M, N] ([P, M, N]), entries in row-major order, no duplicates (known valid, sorted and
 * unique). An output cell is present when some product reaches it; a cell whose sum is zero (and the
 * products of stored zeros) is dropped unless keep_zeros. Dtypes: every integer, float and complex type.
 * Method: Gustavson's row-wise product; each output row accumulates in a dense array of the output
 * width when the row's work is a good fraction of that width (width <= 2^17), else in a hash table sized
 * by its work. Rows are split across threads by work, each writing its own part of the output (no
 * atomics). Memory: the operands' row groupings and sorted value copies (up to about 40 bytes per
 * input entry) and the output, first allocated at an upper bound of its size (the sum over rows of
 * min(products, N)) and shrunk; when that bound exceeds 64 entries per input entry the threads write
 * into growing buffers of their own instead, copied out at the end. */
spt_status spt_sparse_sparse_matmul(const spt_tensor *a, const spt_tensor *b, bool adjoint_a, bool adjoint_b,
                                    bool keep_zeros, spt_tensor **out);

/* Batched sparse x dense product, as torch.bmm: a is a batch of sparse matrices [P, M, K] (batch dim
 * first; with adjoint_a each is used as its conjugate transpose, so a is [P, K, M]); b is dense, either a
 * batch [P, K, N] (one matrix per batch entry) or one matrix [K, N] shared by every batch entry; with
 * adjoint_b each matrix of b is used as its conjugate transpose ([P, N, K] or [N, K]). The result is a new
 * dense [P, M, N]. Checks: a rank 3, b rank 2 or 3 (SPT_EINVAL); one dtype (SPT_EDTYPE); equal batch
 * sizes and inner dims (SPT_EINVAL "... inner dimension does not match"); the output volume fits
 * (SPT_EOVERFLOW); every index of a inside its shape (SPT_ERANGE). Duplicates accumulate. Dtypes: every
 * integer, float and complex type. Threaded by output rows as spt_sparse_dense_matmul. */
spt_status spt_sparse_dense_bmm(const spt_tensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                spt_dense **out);

/* MTTKRP, the matricized tensor times Khatri-Rao product at the heart of CP decomposition: for a rank-N
 * sparse tensor t (N >= 2) and factor matrices factors[m] of shape [shape[m], R] for every m != mode
 * (factors[mode] is not read and may be NULL; nfactors must be N), the new dense [shape[mode], R] array
 *   out[i, r] = sum over entries e with index[e, mode] == i of value_e * prod_{m != mode} factors[m][index[e, m], r].
 * Checks: rank >= 2, nfactors == N, each factor a matrix with shape[m] rows and one R for all
 * (SPT_EINVAL, naming the factor); mode in [0, N) (SPT_ERANGE); dtypes all equal (SPT_EDTYPE); every index
 * inside the shape (SPT_ERANGE). Dtypes: every integer, float and complex type. Threaded by output rows
 * (entries grouped by their mode index with a stable radix sort unless already grouped), no atomics.
 * float32/float64 (threaded without atomics in both cases):
 *  - entries grouped by `mode` (a tensor sorted with `mode` first): each output row is summed by one thread
 *    in entry order;
 *  - other orders: the entries are cut into a fixed number of chunks (from 1 per 16384 entries up to 16;
 *    it depends on the sizes, never on the thread count), each chunk adds into output rows of its own
 *    and those are added in chunk order; when those rows would take more than a quarter of the bytes of
 *    the entries, the entries are instead grouped into a temporary copy by a counting sort, as above.
 * At rank 2 and 3 each entry's product (value times the factor rows, in increasing mode order) is added
 * whole. At rank 4 and up they go by fibers, as the CSF format of SPLATT does: entries that differ only in
 * the fastest-varying other mode have their values times that mode's factor rows summed first, and the
 * sum multiplied by the remaining factors once. This reassociates the sum: each element is within about
 * 4 (k + 4) eps sum |terms| of the per-entry sum (k: the entries of its row), and the same bytes for every
 * thread count and instruction set. */
spt_status spt_mttkrp(const spt_tensor *t, const spt_dense *const *factors, int64_t nfactors, int64_t mode,
                      spt_dense **out);

/* Tensor times vector along `mode` (the mode is summed away): v is rank 1 of length shape[mode]; the
 * result is sparse of rank N-1 (the other modes, in order), one entry per non-empty cell, with
 *   out[i without mode] = sum over entries with those indices of value * v[index[mode]],
 * in row-major order (known valid, sorted, unique; a cell whose sum is zero is kept). Checks: mode in
 * [0, N) (SPT_ERANGE); v of rank 1 and length shape[mode] (SPT_EINVAL); one dtype (SPT_EDTYPE); every
 * index inside the shape (SPT_ERANGE). Dtypes: every integer, float and complex type. */
spt_status spt_ttv(const spt_tensor *t, const spt_dense *v, int64_t mode, spt_tensor **out);

/* Tensor times matrix along `mode` (the mode-n product of the tensor-decomposition literature):
 * u is dense [J, shape[mode]]; the result has t's shape with shape[mode] replaced by J and
 *   out[..., j, ...] = sum_k t[..., k, ...] * u[j, k]   (j and k at position mode).
 * The result is semi-sparse: for every fiber of t (the entries sharing all indices but `mode`) it holds
 * all J entries of that fiber, zeros included. Its order is every other mode ascending, then `mode`
 * (recorded; known valid, sorted, unique). Checks: mode in [0, N) (SPT_ERANGE); u a matrix with
 * shape[mode] columns (SPT_EINVAL); one dtype (SPT_EDTYPE); the result's entry count fits in int64
 * (SPT_EOVERFLOW; its shape may have any volume); every index inside the shape (SPT_ERANGE). Dtypes: every integer, float and complex. */
spt_status spt_ttm(const spt_tensor *t, const spt_dense *u, int64_t mode, spt_tensor **out);

/* numpy.tensordot of a sparse tensor a (rank N) and a dense array b (rank M): the naxes pairs of modes
 * (axes_a[k] of a, axes_b[k] of b) are multiplied and summed over, and the result is a new dense array
 * whose dims are a's free modes (in order) followed by b's free modes (in order):
 *   out[i..., j...] = sum over the contracted indices c of a[i..., c] * b[c, j...]
 * (with the contracted modes at their positions in each operand; duplicates in a are summed). A mode
 * index may be negative (counting from the end, as numpy). naxes = 0 is the outer product; axes may be
 * NULL then. The result is dense, as numpy and pydata/sparse return it for a sparse x dense product
 * (spt_ttv / spt_ttm give sparse results for one contracted mode).
 * Checks: out not NULL, a and b not NULL (SPT_EINVAL); one dtype (SPT_EDTYPE); 0 <= naxes <= both ranks
 * (SPT_EINVAL); each axis in [-rank, rank) (SPT_ERANGE naming axes_a[k] / axes_b[k] and its value); no
 * mode repeated within axes_a or axes_b (SPT_EINVAL); paired modes of equal size (SPT_EINVAL "shape
 * mismatch for the sum"); result rank <= SPT_MAX_RANK (SPT_EINVAL); the result's volume and byte size
 * fit (SPT_EOVERFLOW) and its allocation (SPT_ENOMEM), both naming spt_tensordot and the result's shape;
 * every index of a inside its shape (SPT_ERANGE). Any volume of a: only the dense result and b's
 * rearranged copy are ever flattened, and both fit in memory when the result does.
 * Method: b is rearranged into a matrix [contracted modes, free modes] (no copy when axes_b is 0, 1, ..,
 * naxes-1 in order); each entry of a is one row of a sparse matrix (its free modes, row-major) times
 * one row of that matrix (its contracted modes); the rows of the result are split across threads
 * (entries already grouped by their free modes at group boundaries, otherwise after a stable counting
 * pass that gives each thread one band of output rows), each output row summed by one thread in the
 * entries' storage order (no atomics; the same result for any thread count). Memory besides the result:
 * 16 bytes per entry (40 + the value size with more than one thread) and b's rearranged copy.
 * Integer arithmetic wraps. Dtypes: every integer, float and complex type. */
spt_status spt_tensordot(const spt_tensor *a, const spt_dense *b, const int64_t *axes_a, const int64_t *axes_b,
                         int64_t naxes, spt_dense **out);

/* numpy.einsum for one sparse operand a and one dense operand b: subscripts "<a's indices>,<b's
 * indices>->output" or, without "->", numpy's implicit output (the indices that occur exactly once, in
 * alphabetical order, uppercase before lowercase). Indices are ASCII letters (case-sensitive); spaces
 * are ignored. An index in both operands and not the output is contracted, in both and the output a
 * batch index ("bij,bjk->bik"), in one operand only and not the output summed away. The result is a new
 * dense array in the output's order, as spt_tensordot computes it (the same kernel: b rearranged into a
 * matrix, threaded by rows of the result, no atomics). Examples: "ijk,jr->ikr" (the mode-1 product),
 * "ijk,k->ij" (tensor times vector), "ij,jk" (the matrix product), "ijk,ijk->" (the full contraction).
 * Refused, each with SPT_EINVAL and a message naming spt_einsum and the offending character, index or
 * position: NULL arguments; characters other than letters, ',', "->" and spaces; an ellipsis ("...",
 * not supported); a number of operands other than two; a repeated index within one operand (a
 * diagonal, not supported) or within the output; an output index absent from both operands; an
 * operand's index count different from its rank; an index whose sizes differ between the operands.
 * SPT_EDTYPE for differing or unsupported dtypes; SPT_EOVERFLOW / SPT_ENOMEM for a result that does not
 * fit (naming its shape); SPT_ERANGE for an index of a outside its shape. Dtypes: every integer, float
 * and complex type. */
spt_status spt_einsum(const char *subscripts, const spt_tensor *a, const spt_dense *b, spt_dense **out);

/* ------------------------------------------------------------------------------------------------ */
/* Features: to_indicator, bincount, cross, cross_hashed, fingerprints, embedding lookups           */
/* ------------------------------------------------------------------------------------------------ */

/* -- to_indicator -- */

/* tf.sparse.to_indicator: values are integer ids (any integer dtype, SPT_EDTYPE otherwise), any rank,
 * vocab_size >= 0 (SPT_EINVAL). A new dense bool array of shape shape[:-1] + [vocab_size] (a rank-0 input
 * gives [vocab_size], as TensorFlow; volume checked,
 * SPT_EOVERFLOW; SPT_ENOMEM if it cannot be allocated), true at [index[:-1]..., id] for every entry
 * (repeats allowed). An id outside [0, vocab_size) is SPT_ERANGE, checked before anything is allocated. */
spt_status spt_to_indicator(const spt_tensor *t, int64_t vocab_size, spt_dense **out);

/* -- bincount (tf.sparse.bincount: SparseCountSparseOutput / DenseCountSparseOutput) -- */

/* Counts of the integer values of `values` as a sparse tensor. axis 0 (TensorFlow's default, also its
 * None): every stored value counts, the output has rank 1, shape [width]. axis -1: counts per row of dim
 * 0 (the first index coordinate), output rank 2, shape [values.shape[0], width]; a rank-1 input gives a
 * rank-1 output as with axis 0; a rank-0 input is SPT_EINVAL ("the shape argument requires at least one
 * element"). Implicit zeros are never counted. Any other axis is SPT_EINVAL.
 * minlength, maxlength: SPT_UNSET or >= 0 (less than -1 is SPT_EINVAL). A value is counted iff maxlength
 * is SPT_UNSET or value < maxlength (larger values are dropped; maxlength 0 drops every value, as
 * tf.sparse.bincount in TensorFlow 2.21). width = maxlength when given (0 included, whatever minlength),
 * else max(largest counted value + 1, minlength) -- with no counted value the largest is taken as 0, so
 * width >= 1 (TensorFlow's GetOutputSize); largest + 1 beyond int64 is SPT_EOVERFLOW. The output stores nothing per width unit,
 * so a huge width costs nothing (the output shape follows the shape rules of spt_tensor_new).
 * A negative value is SPT_EINVAL ("values[i] = v is negative"; TensorFlow's InvalidArgument), checked
 * for every value first, dropped or not.
 * weights: NULL, or a tensor with exactly values' shape (SPT_EINVAL "'weights' and 'values' must have
 * the same dense shape") and indices in the same storage order (SPT_EINVAL "... must have the same
 * indices"); then each output value is the sum of the weights of its entries, in storage order, in the
 * weights' dtype (integers and floats, else SPT_EDTYPE; integers wrap). Without weights the output
 * counts entries, as int32 for int32 values and int64 for every other integer dtype. binary_output: 1
 * for every present (row, value); with weights SPT_EINVAL (TensorFlow: mutually exclusive).
 * values must have an integer dtype (SPT_EDTYPE). Every index of `values` is checked (SPT_ERANGE).
 * The output is row-major, known valid, sorted and unique. Cost: two stable radix sorts of the counted
 * entries (by value, then by row), no linearized index. */
spt_status spt_bincount(const spt_tensor *values, const spt_tensor *weights, int64_t axis, int64_t minlength,
                        int64_t maxlength, bool binary_output, spt_tensor **out);
/* The same for a dense integer array `values`: axis 0 flattens it (any rank, output rank 1); axis -1
 * needs rank 1 or 2 (SPT_EINVAL "input must be a 1 or 2-dimensional tensor") and counts per row for
 * rank 2. weights: NULL or a dense array of values' shape (SPT_EINVAL "'weights' and 'values' must have
 * the same shape"). */
spt_status spt_bincount_dense(const spt_dense *values, const spt_dense *weights, int64_t axis, int64_t minlength,
                              int64_t maxlength, bool binary_output, spt_tensor **out);

/* -- cross and cross_hashed (tf.sparse.cross / tf.sparse.cross_hashed: SparseCrossV2 / SparseCross) -- */

/* One input of a cross: exactly one of `sparse` (a rank-2 tensor: row = index[0], its features are the
 * row's values in storage order) and `dense` (a rank-2 array: row r's features are its columns). */
typedef struct spt_cross_input {
    const spt_tensor *sparse;
    const spt_dense *dense;
} spt_cross_input;

/* tf.sparse.cross(inputs, separator): for every row b of the batch, every combination of one feature
 * from each input, as the features' strings joined by `separator` (separator_len bytes; TF's default
 * is "_X_"). Integer features are written in decimal. As in TensorFlow, the sparse inputs come first,
 * then the dense ones, each group in the order given, and the last varies fastest. Output: a string
 * tensor of shape [batch, widest row's count] with entries [b, 0], [b, 1], ... in row-major order (known
 * valid, sorted, unique); a row where some input has no feature has no entry.
 * Checks (SPT_EINVAL unless said): n >= 1; each input exactly one of sparse / dense, of rank 2 ("must be
 * a matrix"); features strings or integers (SPT_EDTYPE; TensorFlow: int64 and string); every input's
 * shape[0] equal ("Expected batch size X got Y"); every sparse index inside its shape (SPT_ERANGE --
 * TensorFlow silently drops a row outside the batch); the number of crosses of a row and in all must
 * fit in int64 (SPT_EOVERFLOW), before the output is allocated. Entries of a sparse input need not be
 * sorted: they are grouped by row with a stable sort, keeping their storage order within the row. */
spt_status spt_cross(const spt_cross_input *inputs, int64_t n, const char *separator, int64_t separator_len,
                     spt_tensor **out);

/* TensorFlow's default hash_key of cross_hashed. */
#define SPT_CROSS_DEFAULT_HASH_KEY UINT64_C(0xDECAFCAFFE)

/* tf.sparse.cross_hashed(inputs, num_buckets, hash_key): the same combinations, each as the int64
 * h % num_buckets (num_buckets > 0) or h % (2^63 - 1) (num_buckets == 0), where h starts at hash_key
 * and takes h = FingerprintCat64(h, f) for each feature f in turn, f = Fingerprint64(bytes) for a
 * string feature and the value's 64 bits for an integer feature -- bit-exact with TensorFlow.
 * num_buckets < 0 is SPT_EINVAL; other checks as spt_cross. hash_key is used as given, 0 included (as the
 * raw op; TensorFlow's Python layer, and spt's, take 0 as SPT_CROSS_DEFAULT_HASH_KEY). */
spt_status spt_cross_hashed(const spt_cross_input *inputs, int64_t n, int64_t num_buckets, uint64_t hash_key,
                            spt_tensor **out);

/* FarmHash's Fingerprint64 (farmhashna::Hash64, which TensorFlow's Fingerprint64 is) of len bytes,
 * the same on every host. */
uint64_t spt_fingerprint64(const void *data, size_t len);
/* TensorFlow's FingerprintCat64(fp1, fp2): the combination of two fingerprints, order-dependent. */
uint64_t spt_fingerprint_cat64(uint64_t fp1, uint64_t fp2);

/* -- embedding lookups (tf.nn.embedding_lookup_sparse, tf.nn.safe_embedding_lookup_sparse) -- */

typedef enum spt_combiner { SPT_COMBINER_SUM, SPT_COMBINER_MEAN, SPT_COMBINER_SQRTN } spt_combiner;

/* tf.nn.embedding_lookup_sparse(params, sp_ids, sp_weights, combiner). params: nparams >= 1 dense
 * float32 or float64 arrays of one dtype and rank >= 1 whose dims after the first agree (one array = the
 * whole table; several = shards under TensorFlow's "mod" partition strategy: id lives in shard
 * id % nparams at row id / nparams). sp_ids: integer ids, rank >= 2; entry i belongs to output row
 * index[i][0]. sp_weights: NULL (every weight 1) or a tensor of params' dtype with sp_ids' shape and
 * indices (SPT_EINVAL otherwise; SPT_EDTYPE for another dtype). Output: a new dense array of shape
 * [sp_ids.shape[0]] + params.shape[1:]: row b = the sum over b's entries of weight * params[id], divided
 * for SPT_COMBINER_MEAN by the sum of the weights and for SPT_COMBINER_SQRTN by the square root of the sum
 * of the squared weights (TensorFlow's default combiner is mean); a division by zero gives 0 (div_no_nan),
 * so rows without ids are zero. Every id is checked before the output is allocated: a negative id or one
 * outside its shard is SPT_ERANGE ("ids[i] = v is not in [0, V)"). Entries are accumulated in storage
 * order in params' dtype (need not be sorted; TensorFlow requires rows in order); when the entries come
 * row by row, threads take whole rows, so the result does not depend on the thread count. The table
 * rows of upcoming entries are prefetched (a lookup is bound by memory latency). max_norm is not
 * supported. */
spt_status spt_embedding_lookup_sparse(const spt_dense *const *params, int64_t nparams, const spt_tensor *sp_ids,
                                       const spt_tensor *sp_weights, spt_combiner combiner, spt_dense **out);

/* tf.nn.safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner, default_id):
 * as spt_embedding_lookup_sparse, but the output rows are every dim of sparse_ids but the last (output
 * shape sparse_ids.shape[:-1] + params.shape[1:]); entries with an id < 0, and with weights and the
 * combiner mean or sqrtn those with a weight <= 0 (or NaN), are pruned first (TensorFlow keeps non-positive
 * weights for sum); a row left without entries is params[default_id] when
 * default_id != SPT_UNSET (a default_id outside the table is SPT_ERANGE) and zero otherwise. */
spt_status spt_safe_embedding_lookup_sparse(const spt_dense *const *params, int64_t nparams,
                                            const spt_tensor *sparse_ids, const spt_tensor *sparse_weights,
                                            spt_combiner combiner, int64_t default_id, spt_dense **out);

/* ------------------------------------------------------------------------------------------------ */
/* Serialization: spt's packed form (TensorFlow's serialize_sparse form: the TensorFlow bytes section) */
/* ------------------------------------------------------------------------------------------------ */

/* -- spt's own serialized form (pack / unpack; TensorFlow's form is in the TensorFlow bytes section) -- */
/*
 * PACKED FORM (spt's own, version 1; not TensorFlow's TensorProto form). One tensor is one byte
 * string; every integer is little-endian, whatever the host:
 *   offset 0   4 bytes  magic "SPTS"
 *          4   2        version (1)
 *          6   1        dtype: the spt_dtype value (0 bool, 1..4 int8..int64, 5..8 uint8..uint64,
 *                       9 float32, 10 float64, 11 complex64, 12 complex128, 13 string)
 *          7   1        reserved, 0
 *          8   8        rank R (0 .. SPT_MAX_RANK)
 *          16  8        entry count N
 *          24  8R       shape
 *              8NR      indices, entry by entry
 *              values:  N elements of the dtype's size (bool: one byte 0 or 1; complex: real then
 *                       imaginary part), or for strings N lengths (8 bytes each) then the bytes
 *                       of every string, concatenated
 *          end-8  8     checksum: spt_fingerprint64 of every byte before it
 * The reader trusts nothing: it checks the length against the header, the magic, the version, the
 * checksum, the dtype code and reserved byte, the rank, that the counts need exactly the bytes present
 * (every product and sum overflow-checked, before anything is allocated), each string length against
 * what remains, bool bytes, and every index against the shape. Malformed bytes are SPT_EPARSE ("...:
 * serialized[k]: ..."), an index outside the shape SPT_ERANGE. Unlike TensorFlow's form, one packed
 * tensor is one checksummed string, so damage is always detected.
 */

/* t's entries (storage order) as one new byte string *data of *len bytes in the packed form, to be freed
 * with spt_bytes_free. Every index is checked first (SPT_ERANGE). */
spt_status spt_pack_sparse(const spt_tensor *t, void **data, size_t *len);
/* Free a buffer spt returned (NULL-safe). */
void spt_bytes_free(void *p);
/* serialize_many_sparse's split in the packed form: rank >= 2 (SPT_EINVAL); *n = shape[0] new byte
 * strings (*data)[i] of (*lens)[i] bytes, string i holding the entries whose first coordinate is i,
 * without it (shape shape[1:]), in storage order. Free all with spt_packed_free. */
spt_status spt_pack_many_sparse(const spt_tensor *t, void ***data, size_t **lens, int64_t *n);
void spt_packed_free(void **data, size_t *lens, int64_t n);

/* prod(batch_shape) packed tensors data[k] (lens[k] bytes), in row-major order of a batch of shape
 * batch_shape[0..batch_rank), stacked into one tensor of rank batch_rank + R: entry index = the item's
 * batch multi-index then its own index; shape = batch_shape + the largest dim of each item dim
 * (TensorFlow's rule for items of different shapes). batch_rank 0 reads one tensor. Entries come item
 * by item in storage order (the order is recorded as row-major when they happen to be sorted). Checks:
 * every item as above; its dtype == dtype (SPT_EDTYPE "requested a SparseTensor of type X but
 * serialized[k] holds Y"); one rank for all (SPT_EINVAL "Inconsistent shape across SparseTensors");
 * an empty batch is SPT_EINVAL (no rank to learn); counts overflow-checked. */
spt_status spt_unpack_sparse(const void *const *data, const size_t *lens, int64_t batch_rank,
                             const int64_t *batch_shape, spt_dtype dtype, spt_tensor **out);
/* n packed items stacked along a new first dim (batch shape [n]). */
spt_status spt_unpack_many_sparse(const void *const *data, const size_t *lens, int64_t n, spt_dtype dtype,
                                  spt_tensor **out);
/* -- TensorFlow's serialized SparseTensor (tf.io.serialize_sparse / deserialize_sparse, the _many forms) -- */
/*
 * spt reads and writes these without TensorFlow, with its own decoder of the protocol buffer wire
 * format (field numbers from TensorFlow's public tensor.proto, tensor_shape.proto, example.proto and
 * feature.proto). Nothing read is trusted: every length is checked against what is left of its message
 * before it is used, unknown fields are skipped as protobuf does, malformed bytes are SPT_EPARSE naming
 * the item or record and the field.
 *
 * SERIALIZED SPARSETENSOR (tf.io.serialize_sparse): a string vector [3], the TensorProto bytes of the
 * indices (int64 [N, R]), the values ([N]) and the dense_shape (int64 [R]), written exactly as
 * TensorFlow 2 writes them (dtype, shape, tensor_content; strings as their varint lengths then their
 * bytes), so the bytes are identical to TensorFlow's for every dtype spt has. The reader also accepts the
 * typed value fields (float_val, int64_val, ...) as TensorFlow's Tensor::FromProto does, fewer values
 * than the shape repeating the last (up to 2^24 elements; more is SPT_EPARSE). DataTypes spt has not
 * (half, bfloat16, quantized, resource, variant) are SPT_EDTYPE.
 */

/* tf.io.serialize_sparse: *out = a new string dense [3] (indices, values, dense_shape TensorProtos), t's
 * entries in storage order. Every index is checked first (SPT_ERANGE). */
spt_status spt_serialize_sparse(const spt_tensor *t, spt_dense **out);
/* tf.io.serialize_many_sparse: rank >= 2 (SPT_EINVAL "Rank of input SparseTensor should be > 1"); *out =
 * a new string dense [shape[0], 3], row i the serialized tensor of the entries whose first coordinate is
 * i, without it (shape shape[1:]), in storage order. */
spt_status spt_serialize_many_sparse(const spt_tensor *t, spt_dense **out);
/* tf.io.deserialize_sparse: `serialized` is a string dense [..., 3] (SPT_EINVAL "Serialized sparse should
 * have 3 as the last dimension" otherwise); [3] gives its tensor; with batch dims B the items are stacked
 * into one tensor of rank len(B) + R: entry index = the item's batch multi-index then its own, shape = B +
 * the largest dim of each item dim (TensorFlow's padding). Checks as TensorFlow's: indices an int64
 * matrix, values a vector of `dtype` (SPT_EINVAL "Requested SparseTensor of type X but
 * SparseTensor[k].values.dtype() == Y"), dense_shape an int64 vector, the counts agreeing, one rank for
 * all items (SPT_EINVAL "Inconsistent shape across SparseTensors"), an empty batch SPT_EINVAL; an index
 * outside its dense_shape is SPT_ERANGE. */
spt_status spt_deserialize_sparse(const spt_dense *serialized, spt_dtype dtype, spt_tensor **out);
/* tf.io.deserialize_many_sparse: a string matrix [N, 3] (SPT_EINVAL otherwise) stacked along a new first
 * dim of size N. */
spt_status spt_deserialize_many_sparse(const spt_dense *serialized, spt_dtype dtype, spt_tensor **out);

/* -- tf.sparse.mask -- */

/* ------------------------------------------------------------------------------------------------ */
/* Gradient kernels                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

/* -- gradient kernels --
 * The backward ops of the ops above and of tf.sparse's, as plain functions: given an op's inputs (and,
 * where needed, its output) and the gradient of a scalar loss with respect to the op's output values,
 * they return the gradient with respect to the input values (new rank-1 dense arrays, one element per
 * input entry, in the input's entry order; an entry that does not reach the output gets 0). Defined for
 * float32 and float64 (SPT_EDTYPE otherwise); sums run in double. Shapes, lengths and dtypes of every
 * argument are checked (SPT_EINVAL / SPT_EDTYPE, naming the argument); on error every output is NULL. */

/* SparseAddGrad: sum = spt_add(a, b, thresh); backprop_val_grad has sum's nnz values. Each entry of a
 * and of b gets the gradient of the sum entry at its index (0 if the threshold dropped it). */
spt_status spt_add_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *sum,
                        const spt_dense *backprop_val_grad, spt_dense **a_val_grad, spt_dense **b_val_grad);
/* SparseSliceGrad: output = spt_slice(input, start, size); backprop_val_grad has output's nnz values.
 * An input entry inside the slice gets the gradient of its output entry, others 0. SPT_EINVAL when
 * output's entries are not input's entries shifted by start, in order. */
spt_status spt_slice_grad(const spt_dense *backprop_val_grad, const spt_tensor *input, const int64_t *start,
                          const spt_tensor *output, spt_dense **val_grad);
/* SparseFillEmptyRowsGrad: reverse_index_map (int64 [N]) as returned by spt_fill_empty_rows,
 * grad_values [M] the gradient of its output values. d_values[i] = grad_values[reverse_index_map[i]]
 * (each map value in [0, M), SPT_ERANGE); *d_default_value (a rank-0 dense) = the sum of the gradients
 * of the output entries no input entry maps to (the filled rows). */
spt_status spt_fill_empty_rows_grad(const spt_dense *reverse_index_map, const spt_dense *grad_values,
                                    spt_dense **d_values, spt_dense **d_default_value);
/* The gradient of spt_reduce_sum(t, axes, naxes, keep_dims): out_grad has the reduction's output shape
 * (SPT_EINVAL otherwise); each entry gets out_grad at the cell it was summed into. Axes as spt_reduce_sum. */
spt_status spt_reduce_sum_grad(const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                               const spt_dense *out_grad, spt_dense **val_grad);
/* The gradient of spt_softmax from its output sm (the values y) and grad (sm's nnz values g): within
 * each group (entries sharing all but the last index) dx_i = y_i (g_i - sum_j g_j y_j). The result is
 * in sm's entry order, which is the input's when the input was sorted row-major. */
spt_status spt_softmax_grad(const spt_tensor *sm, const spt_dense *grad, spt_dense **val_grad);
/* The gradients of spt_sparse_dense_matmul(a, b, adjoint_a, adjoint_b) from grad, the [M, N] gradient
 * of the product: *a_val_grad (a's nnz values) and *b_grad (b's shape). Either output may be NULL to
 * skip it (not both). */
spt_status spt_sparse_dense_matmul_grad(const spt_tensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                        const spt_dense *grad, spt_dense **a_val_grad, spt_dense **b_grad);
/* The gradients of c = spt_sparse_sparse_matmul(a, b, false, false, keep_zeros) (rank 2 or batched rank
 * 3) from grad (c's nnz values): a's entry (i, k) gets sum_j g[i, j] b[k, j] and b's entry (k, j) gets
 * sum_i a[i, k] g[i, j], the sums over c's entries. */
spt_status spt_sparse_sparse_matmul_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c,
                                         const spt_dense *grad, spt_dense **a_val_grad, spt_dense **b_val_grad);
/* The gradients of c = spt_multiply(a, b) from grad (c's nnz values): an entry of a at a cell of c gets
 * g * (the sum of b's entries there), of b likewise; other entries 0. */
spt_status spt_multiply_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c, const spt_dense *grad,
                             spt_dense **a_val_grad, spt_dense **b_val_grad);
/* The gradients of spt_concat(inputs, n, axis, expand_nonconcat_dim) from grad (the output's nnz
 * values): val_grads[i] (n slots, the caller's array) gets input i's value gradients. The inputs are
 * checked as spt_concat checks them. */
spt_status spt_concat_grad(const spt_tensor *const *inputs, int64_t n, int64_t axis, bool expand_nonconcat_dim,
                           const spt_dense *grad, spt_dense **val_grads);
/* The gradients of c = spt_maximum(a, b) (spt_minimum) from grad (c's nnz values): each cell's gradient
 * goes to the operand whose value c holds, an absent operand counting as 0; on a tie it goes to a. The
 * operands must not repeat an index (SPT_EINVAL). TensorFlow has no gradient for these ops. */
spt_status spt_maximum_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c, const spt_dense *grad,
                            spt_dense **a_val_grad, spt_dense **b_val_grad);
spt_status spt_minimum_grad(const spt_tensor *a, const spt_tensor *b, const spt_tensor *c, const spt_dense *grad,
                            spt_dense **a_val_grad, spt_dense **b_val_grad);

/* ------------------------------------------------------------------------------------------------ */
/* Tensors of tensors: domains, sparse maps, injection, sparsify                                    */
/* ------------------------------------------------------------------------------------------------ */

/*
 * A tensor-of-tensors (ToT) is an outer tensor whose every element is either EMPTY or a whole dense
 * inner tensor. It is built from a tensor T and a sparse map (spt_sparsify*), and summed back into a
 * dense tensor by spt_reduce_tot_sum. The semantics are those of NWChemEx Chemist/TensorWrapper
 * (from_sparse_map, Domain, reduce_tot_sum), written down in the project's spec sparsify_tot.md. Only
 * the non-empty outer elements are stored (sorted by outer index, inner tensors in one buffer), so an
 * outer shape may be far larger than memory.
 *
 * INDICES here are int64 rows of one rank, every component >= 0 (a negative component is SPT_EINVAL);
 * index sets are ordered lexicographically, which for indices inside a shape is the row-major order.
 *
 * DOMAIN (spt_domain): an immutable sorted set of distinct indices of one rank, plus for each mode m
 * the sorted distinct values appearing in mode m. An empty domain has rank 0 by convention, whatever
 * rank it was built with.
 *   result_extents[m] = the number of distinct values in mode m (the compressed Cartesian grid
 *   sorted(set(x[:,0])) x ... x sorted(set(x[:,D-1])), not the bounding box);
 *   result_index(x)[m] = the rank of x[m] among those values. Membership is not required:
 *   in {(1,2),(2,3)} the non-member (1,3) maps to (0,1).
 *
 * SPARSE MAP (spt_sparse_map): independent index (key, rank ind_rank) -> domain of dependent indices
 * (rank dep_rank). Immutable; stored CSR-like: keys sorted, one offsets array, one block of dependent
 * indices (sorted within each key), one block of per-mode distinct values. Key i of a map is its i-th
 * key in sorted order. A key whose domain is empty exists only if given by spt_sparse_map_new_with_keys.
 *
 * INJECTION: inject(x, {modes[k]: values[k]}) is the index y of rank rank(x) + ninj with
 * y[modes[k]] = values[k] and the components of x, in order, in the remaining positions (increasing
 * mode order). uninject drops the components at the given modes. Modes are distinct.
 *
 * DTYPES: ToTs hold numeric dtypes only (integers, floats, complex); bool and string are SPT_EDTYPE.
 */

typedef struct spt_domain spt_domain;
typedef struct spt_sparse_map spt_sparse_map;
typedef struct spt_tot spt_tot;

/* -- domains -- */

/* A new domain of n indices of `rank` (indices: n x rank, any order; duplicates collapsed).
 * SPT_EINVAL: rank outside [0, SPT_MAX_RANK], n < 0, indices NULL with n*rank > 0, a negative component;
 * SPT_EOVERFLOW: n*rank*8 bytes overflow. */
spt_status spt_domain_new(int64_t rank, int64_t n, const int64_t *indices, spt_domain **out);
void spt_domain_free(spt_domain *d);
/* Rank of the indices (0 for an empty domain). */
int64_t spt_domain_rank(const spt_domain *d);
/* Number of distinct indices. */
int64_t spt_domain_size(const spt_domain *d);
/* The indices, size x rank, sorted lexicographically, distinct. Borrowed. */
const int64_t *spt_domain_indices(const spt_domain *d);
/* True when `index` (rank spt_domain_rank(d) components) is in the domain. */
bool spt_domain_contains(const spt_domain *d, const int64_t *index);
/* Write spt_domain_rank(d) extents: extents[m] = number of distinct values of mode m. */
void spt_domain_result_extents(const spt_domain *d, int64_t *extents);
/* out[m] = position of index[m] among the sorted distinct values of mode m (rank of them written).
 * SPT_ERANGE when rank != spt_domain_rank(d) or when a component's value appears in no index of the
 * domain in that mode (where NWChemEx throws std::out_of_range). Membership of the whole index is not checked. */
spt_status spt_domain_result_index(const spt_domain *d, int64_t rank, const int64_t *index, int64_t *out);

/* -- injection -- */

/* out (rank + ninj components) = inject(index, {modes[k]: values[k]}). SPT_ERANGE: a mode outside
 * [0, rank + ninj); SPT_EINVAL: a mode given twice, a negative value, rank + ninj > SPT_MAX_RANK. */
spt_status spt_inject_index(int64_t rank, const int64_t *index, int64_t ninj, const int64_t *modes,
                            const int64_t *values, int64_t *out);
/* out (rank - ninj components) = index without the components at modes[0..ninj) (the keys of an
 * injection map). SPT_ERANGE: a mode outside [0, rank); SPT_EINVAL: a mode given twice. */
spt_status spt_uninject_index(int64_t rank, const int64_t *index, int64_t ninj, const int64_t *modes, int64_t *out);
/* A new domain: every index of d injected as by spt_inject_index (the modes are checked against
 * rank(d) + ninj even when d is empty; an empty d gives an empty domain). Same errors. */
spt_status spt_domain_inject(const spt_domain *d, int64_t ninj, const int64_t *modes, const int64_t *values,
                             spt_domain **out);

/* -- sparse maps -- */

/* A new map from npairs (key, dependent index) pairs: ind is npairs x ind_rank, dep npairs x dep_rank,
 * in any order, duplicates collapsed. Every key given has a non-empty domain. dep_rank is recorded as
 * given (also when npairs == 0). SPT_EINVAL: a rank outside [0, SPT_MAX_RANK], npairs < 0, an array
 * NULL while needed, a negative component; SPT_EOVERFLOW: sizes overflow. O(npairs log npairs) (one
 * pass when the pairs come sorted). */
spt_status spt_sparse_map_new(int64_t ind_rank, int64_t dep_rank, int64_t npairs, const int64_t *ind,
                              const int64_t *dep, spt_sparse_map **out);
/* Same, and also every one of the nkeys keys in `keys` (nkeys x ind_rank; duplicates collapsed) is a
 * key of the map even if no pair names it (its domain is then empty). */
spt_status spt_sparse_map_new_with_keys(int64_t ind_rank, int64_t dep_rank, int64_t nkeys, const int64_t *keys,
                                        int64_t npairs, const int64_t *ind, const int64_t *dep, spt_sparse_map **out);
void spt_sparse_map_free(spt_sparse_map *m);
int64_t spt_sparse_map_ind_rank(const spt_sparse_map *m);
int64_t spt_sparse_map_dep_rank(const spt_sparse_map *m);
/* Number of keys. */
int64_t spt_sparse_map_nkeys(const spt_sparse_map *m);
/* Number of distinct (key, dependent index) pairs. */
int64_t spt_sparse_map_size(const spt_sparse_map *m);
/* Key i (ind_rank components; keys are sorted), or NULL when i is outside [0, nkeys). Borrowed. */
const int64_t *spt_sparse_map_key(const spt_sparse_map *m, int64_t i);
/* The domain of key i as *count sorted distinct rows of dep_rank (NULL and *count = 0 when i is out of
 * range). Borrowed. */
const int64_t *spt_sparse_map_deps(const spt_sparse_map *m, int64_t i, int64_t *count);
/* Binary search: true and *i = its number when `key` is a key (*i = -1 otherwise; i may be NULL). */
bool spt_sparse_map_find(const spt_sparse_map *m, const int64_t *key, int64_t *i);
/* True when dep is in the domain of key. */
bool spt_sparse_map_contains(const spt_sparse_map *m, const int64_t *key, const int64_t *dep);
/* A new spt_domain holding a copy of the domain of key i. SPT_ERANGE: i outside [0, nkeys). */
spt_status spt_sparse_map_domain(const spt_sparse_map *m, int64_t i, spt_domain **out);

/* -- the tensor-of-tensors -- */

/* One outer element of a ToT, as returned by spt_tot_get / spt_tot_entry. All pointers are borrowed
 * from the ToT. When !present (EMPTY): outer, shape and data are NULL and size is 0. A present inner
 * tensor has rank `rank`, row-major data of `size` elements (>= 1: EMPTY and "all zeros" differ). */
typedef struct spt_tot_inner {
    bool present;
    const int64_t *outer; /* outer_rank coordinates */
    int64_t rank;         /* inner rank */
    const int64_t *shape; /* inner shape */
    int64_t size;
    const void *data;
} spt_tot_inner;

/* A new ToT of a numeric dtype from n non-empty outer elements: outer (n x outer_rank, any order,
 * distinct, inside outer_shape), inner_shapes (n x inner_rank, every dim >= 1), values = the n row-major
 * inner tensors concatenated in the order given. Every other outer element is EMPTY. SPT_EDTYPE: not
 * numeric; SPT_EINVAL: bad ranks/shapes, an inner shape with a zero dim (EMPTY is expressed by leaving
 * the outer index out), an outer index given twice, NULL arrays; SPT_ERANGE: an outer index outside
 * outer_shape; SPT_EOVERFLOW: sizes overflow. The outer shape may have any volume (the outer indices are
 * ordered by the key engine). */
spt_status spt_tot_new(spt_dtype dtype, int64_t outer_rank, const int64_t *outer_shape, int64_t inner_rank, int64_t n,
                       const int64_t *outer, const int64_t *inner_shapes, const void *values, spt_tot **out);
void spt_tot_free(spt_tot *t);
spt_dtype spt_tot_dtype(const spt_tot *t);
int64_t spt_tot_outer_rank(const spt_tot *t);
const int64_t *spt_tot_outer_shape(const spt_tot *t);
int64_t spt_tot_inner_rank(const spt_tot *t);
/* Number of non-empty outer elements. */
int64_t spt_tot_count(const spt_tot *t);
/* Total number of inner elements over all non-empty outer elements. */
int64_t spt_tot_total_size(const spt_tot *t);
/* The i-th non-empty outer element in row-major outer order, i in [0, spt_tot_count) (SPT_ERANGE
 * otherwise). Walking i = 0, 1, ... visits every inner tensor once. */
spt_status spt_tot_entry(const spt_tot *t, int64_t i, spt_tot_inner *inner);
/* The outer element at outer_index (outer_rank components): SPT_OK with inner->present false when it
 * is EMPTY. SPT_ERANGE: outer_index outside the outer shape. O(log count). */
spt_status spt_tot_get(const spt_tot *t, const int64_t *outer_index, spt_tot_inner *inner);

/* -- sparsify and its inverse -- */

/* Build the ToT of T through sm: outer rank = ind_rank(sm), inner rank = dep_rank(sm), outer shape
 * `outer_shape` (ind_rank dims). ind2mode holds nmap pairs (ind_mode, T_mode), flattened: independent
 * mode ind2mode[2p] of the outer index is pinned at mode ind2mode[2p+1] of T. For every outer index o:
 *   EMPTY if o is not a key or its domain is empty; otherwise the dense inner tensor A of shape
 *   result_extents(sm[o]), zero except A[result_index(x)] = T[inject(x, {T_mode_p: o[ind_mode_p]})]
 *   for every x in sm[o].
 * Values are copied exactly. Checks, all before any work, in this order: dtype numeric (SPT_EDTYPE);
 * dep_rank + nmap == rank(T) ("ranks don't work out", SPT_EINVAL); each ind_mode in [0, ind_rank) and
 * T_mode in [0, rank(T)) (SPT_ERANGE), neither repeated (SPT_EINVAL); outer_shape (SPT_EINVAL /
 * SPT_EOVERFLOW); every key inside outer_shape and every injected index of a non-empty domain inside T's
 * shape (SPT_ERANGE, naming the injected index, the key and the dependent index).
 * The outer index space is processed in blocks of consecutive outer elements, built in parallel (OpenMP);
 * each inner tensor is written by one thread, so the result is identical for any thread count.
 * Cost O(pairs * dep_rank * log) + O(result size). */
spt_status spt_sparsify_dense(const spt_dense *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                              const int64_t *outer_shape, spt_tot **out);
/* The same from a sparse T of any shape, never densified: each element is searched for in the order T's
 * entries are sorted by. When T is known sorted (by any full order, e.g. after spt_reorder or
 * spt_from_dense) its own storage is searched in place; otherwise T's entries are sorted row-major once
 * per call by the key engine (stable; for a volume up to 2^64 a radix sort of 64-bit linear keys: O(nnz)
 * time, 16 bytes per entry for the call and 16 more while sorting). Up to a volume of 2^64 an element is
 * searched for by its 64-bit linear key in that order, past it by its index, compared mode by mode.
 * Slice pointers over T's leading dim (one int64 per slice) are built when that dim is not much larger
 * than nnz. A search interpolates the position inside the slice and gallops from there: O(1) probes for
 * evenly spread entries, O(log nnz) at worst. An element absent from T reads as zero; among duplicate
 * entries the last stored wins (as spt_to_dense), so spt_sparsify(T) == spt_sparsify_dense(spt_to_dense(T))
 * for every T. T's indices are checked against its shape unless known valid (SPT_ERANGE). */
spt_status spt_sparsify(const spt_tensor *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                        const int64_t *outer_shape, spt_tot **out);
/* One outer block: as spt_sparsify_dense / spt_sparsify, but only the outer elements whose row-major
 * linear outer index lies in [begin, end) are built (all others are EMPTY). The whole map is still
 * validated, so every block of a partition reports the same errors. 0 <= begin <= end <= outer volume,
 * else SPT_ERANGE; an outer volume past INT64_MAX cannot be addressed by int64 bounds: SPT_EOVERFLOW
 * (spt_sparsify* take it). The blocks of a partition of [0, volume) together hold exactly the full result. */
spt_status spt_sparsify_dense_block(const spt_dense *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                                    const int64_t *outer_shape, int64_t begin, int64_t end, spt_tot **out);
spt_status spt_sparsify_block(const spt_tensor *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                              const int64_t *outer_shape, int64_t begin, int64_t end, spt_tot **out);

/* The inverse (no injection, as in NWChemEx): a new dense tensor of tot's dtype, rank `rank` == dep_rank,
 * shape `shape`, with A[x] = sum over keys o whose domain holds x of tot[o][result_index_o(x)], summed in
 * key order (integers wrap around). Checks (SPT_EINVAL unless said): rank == dep_rank(sm), tot's outer
 * rank == ind_rank(sm) and inner rank == dep_rank(sm); every key inside tot's outer shape (SPT_ERANGE);
 * tot non-empty exactly at the keys with a non-empty domain, each of shape result_extents(sm[o]); every
 * dependent index inside `shape` (SPT_ERANGE). The output is dense: SPT_EOVERFLOW when `shape` has more
 * than INT64_MAX elements (or bytes past size_t), SPT_ENOMEM when it cannot be allocated, both naming
 * the op and the shape. */
spt_status spt_reduce_tot_sum(const spt_tot *tot, const spt_sparse_map *sm, int64_t rank, const int64_t *shape,
                              spt_dense **out);
/* ==== END TENSOR-OF-TENSORS */

/* ------------------------------------------------------------------------------------------------ */
/* Files: .tns, .mtx, .npy, .npz, spy plots                                                         */
/* ------------------------------------------------------------------------------------------------ */

/*
 * FILES
 *   .tns  FROSTT text: one entry per line, 1-based indices then the value, blank-separated; lines whose
 *         first non-blank character is '#' are comments. The rank comes from the first entry (fields - 1;
 *         fields - 2 when a complex dtype is asked for: "re im"); the shape is the largest index per mode
 *         unless given. spt writes two leading comments, "# dtype: D" and "# shape: d0 d1 ...", and reads
 *         them back (so N = 0, rank 0 and every dtype round-trip); other readers skip them as comments.
 *   .mtx  Matrix Market: "coordinate" (real, integer, complex, pattern; general, symmetric,
 *         skew-symmetric, hermitian -- the last three expanded to both triangles on read) and "array".
 *   .npy  NumPy arrays (format 1.0, 2.0, 3.0; little or big endian; C or Fortran order; b1, i1..i8,
 *         u1..u8, f4, f8, c8, c16, and S<n> byte strings). Dense arrays.
 *   .npz  Zip archives of .npy members: pydata/sparse save_npz (coords, data, shape, fill_value) and
 *         SciPy save_npz (format "coo": row, col, data, shape; "csr"/"csc": indices, indptr, data, shape).
 *   Readers keep duplicates and the stored order (the order metadata is left undefined); indices are
 *   checked against the shape while reading. "-" means stdin (readers) or stdout (text and .npy
 *   writers). Writers write a temporary file beside the target and rename it into place, so a failed
 *   write never leaves a partial file. Parse errors are SPT_EPARSE with the message
 *   "FILE:LINE: expected X, found Y" (for binary formats the member or field replaces LINE). Sizes claimed
 *   by a header are checked against the bytes actually present before anything is allocated.
 */

typedef enum spt_format {
    SPT_FORMAT_AUTO = 0, /* from the file extension */
    SPT_FORMAT_TNS,
    SPT_FORMAT_MTX,
    SPT_FORMAT_NPY,
    SPT_FORMAT_NPZ, /* written in the pydata/sparse flavour */
    SPT_FORMAT_NPZ_SCIPY_COO,
    SPT_FORMAT_NPZ_SCIPY_CSR,
    SPT_FORMAT_BINSPARSE,     /* binsparse in .npz; written as COO (any rank) */
    SPT_FORMAT_BINSPARSE_CSR, /* binsparse written as CSR (rank 2); read: any binsparse layout */
    SPT_FORMAT_BINSPARSE_CSC  /* binsparse written as CSC (rank 2) */
} spt_format;

/* The format named by the extension of `path` (.tns, .mtx, .npy, .npz, and .bsp.npz for binsparse;
 * case-insensitive), or SPT_FORMAT_AUTO when the extension is none of these. */
spt_format spt_format_from_path(const char *path);
/* Parse a format name: "tns", "frostt", "mtx", "mm", "npy", "npz", "npz-scipy-coo" (or "scipy-coo"),
 * "npz-scipy-csr" (or "scipy-csr"), "binsparse" (or "bsp"), "binsparse-csr", "binsparse-csc". SPT_EINVAL
 * for an unknown name. */
spt_status spt_format_from_name(const char *name, spt_format *out);
/* "tns", "mtx", "npy", "npz", "npz-scipy-coo", "npz-scipy-csr", "binsparse", "binsparse-csr",
 * "binsparse-csc"; "auto" for SPT_FORMAT_AUTO. */
const char *spt_format_name(spt_format f);

/* Read options; a NULL pointer means all defaults (a zero-initialised struct is the defaults). */
typedef struct spt_read_opts {
    bool has_dtype;       /* read values as `dtype` (checked: out-of-range integers are parse errors;
                             it wins over a .tns "# dtype:" header, except that a complex dtype
                             for a real header or the reverse is SPT_EINVAL: the columns differ) */
    spt_dtype dtype;      /* otherwise: .tns int64 when every value is an integer, else float64;
                             .mtx by its field; .npy/.npz as stored */
    int64_t rank;         /* .tns: the shape's length when `shape` is given */
    const int64_t *shape; /* .tns: the shape, instead of the largest index per mode; indices beyond it
                             are parse errors */
} spt_read_opts;

/* A progress callback for the .tns and .mtx readers started later on the calling thread (fn NULL
 * removes it): called now and then (about every MB of text, from one of the parsing threads, never
 * concurrently) with the fraction parsed in [0, 1], and with 1 at the end. For progress bars. */
typedef void (*spt_progress_fn)(double done, void *ctx);
void spt_set_read_progress(spt_progress_fn fn, void *ctx);
/* The same for the .tns and .mtx writers started later on the calling thread: called on the writing
 * thread after each batch of lines (a few MB) with the fraction of the entries written, and with 1 at
 * the end. */
void spt_set_write_progress(spt_progress_fn fn, void *ctx);
/* The member of a tar archive that readers started later on the calling thread take (NULL or "" for
 * the default): its path in the archive or its base name. By default a tar archive yields its one data
 * file (a name ending in .tns, .mtx, .npy or .npz), or among several the SuiteSparse Matrix Collection's
 * main matrix NAME/NAME.mtx; several other data files are SPT_EINVAL listing them. The name is copied
 * (freed when the thread ends or the member is set again); SPT_EINVAL (and the default) for a name over
 * 4095 bytes, SPT_ENOMEM (and the default) when the copy cannot be allocated. */
spt_status spt_set_read_member(const char *member);
/* Whether readers started later on the calling thread copy a file's bytes instead of mapping them (false,
 * the default: see "Zero copy" below). */
void spt_set_read_copy(bool copy);

/* Read a FROSTT .tns file ("-" = stdin) into a new tensor. SPT_EIO when the file cannot be read,
 * SPT_EPARSE for malformed text (wrong field count, an index < 1 or beyond a given shape, a number that
 * does not parse or overflows), SPT_EDTYPE for a string dtype. The inferred shape may have any volume. Parses with up to spt_get_num_threads() threads. */
spt_status spt_read_tns(const char *path, const spt_read_opts *opts, spt_tensor **out);
/* The same from memory: buf[0..len) is the file's text; `name` is used in messages. */
spt_status spt_parse_tns(const char *buf, size_t len, const char *name, const spt_read_opts *opts, spt_tensor **out);
/* Write `t` as .tns ("-" = stdout): the dtype and shape comments (and the order comment when t is
 * known sorted; see "Order in files" below), then one line per entry in storage
 * order, 1-based indices, values as integers, shortest round-trip floats ("inf", "nan"), complex as
 * "re im", bool as 0/1. SPT_EDTYPE for strings; SPT_ERANGE for an index outside the shape. Blocks of
 * lines are formatted by up to spt_get_num_threads() threads; the bytes do not depend on the count. */
spt_status spt_write_tns(const spt_tensor *t, const char *path);
/* The three above with the indices' base given: 1 (FROSTT's convention and their default) or 0 (as in
 * some of SPLATT's test files); any other base is SPT_EINVAL. With base 0 an index is 0..dim-1 and the
 * inferred dim is the largest index + 1. */
spt_status spt_read_tns_base(const char *path, const spt_read_opts *opts, int index_base, spt_tensor **out);
spt_status spt_parse_tns_base(const char *buf, size_t len, const char *name, const spt_read_opts *opts, int index_base,
                              spt_tensor **out);
spt_status spt_write_tns_base(const spt_tensor *t, const char *path, int index_base);

/* Read a Matrix Market coordinate file ("-" = stdin) into a rank-2 tensor: real -> float64, integer ->
 * int64, complex -> complex128, pattern -> float64 ones (opts->dtype overrides); symmetric and
 * skew-symmetric and hermitian files are expanded (mirror entries follow the stored ones). An "array"
 * file is read as dense and its non-zero elements kept. The entry count must equal the header's. */
spt_status spt_read_mtx(const char *path, const spt_read_opts *opts, spt_tensor **out);
/* Read a Matrix Market "array" file (column-major in the file) into a new dense matrix; symmetric kinds
 * are expanded. SPT_EPARSE for a coordinate file. */
spt_status spt_read_mtx_dense(const char *path, const spt_read_opts *opts, spt_dense **out);
/* Write a rank-2 tensor as "coordinate general": integer for integer and bool dtypes, real for floats,
 * complex for complex. SPT_EINVAL unless rank 2; SPT_EDTYPE for strings. uint64 values above INT64_MAX
 * are written as they are: read such a file back with opts->dtype = SPT_UINT64 (the default, int64,
 * rejects them as out of range). */
spt_status spt_write_mtx(const spt_tensor *t, const char *path);

/* Read a .npy file ("-" = stdin) into a new dense array (mapped when the bytes allow: see "Zero copy"). SPT_EDTYPE for dtypes spt lacks (objects,
 * structured); unicode ('<U<n>') arrays become UTF-8 strings. */
spt_status spt_read_npy(const char *path, spt_dense **out);
/* Write a dense array as .npy 1.0 ("-" = stdout), little endian, C order; strings as S<maxlen> (so
 * trailing NUL bytes of a string are lost, as in NumPy). */
spt_status spt_write_npy(const spt_dense *d, const char *path);

/* Read a .npz of either flavour ("-" = stdin); values keep their stored dtype (opts is not used, may
 * be NULL). pydata/sparse: coords (rank x N, any integer dtype),
 * data, shape; a non-zero fill_value is SPT_EINVAL (spt's implicit value is zero). SciPy: coo / csr /
 * csc rebuilt as a rank-2 COO tensor in the stored order. Every index and indptr entry is checked, and
 * every member's CRC-32 and size against the archive's directory (stored members too: one pass over the
 * bytes, so that a corrupted archive is never read as data); members are stored or deflated (zip64
 * archives too), the two large ones inflated by libdeflate on two threads. */
spt_status spt_read_npz(const char *path, const spt_read_opts *opts, spt_tensor **out);
/* Write `t` as .npz (never to stdout): SPT_FORMAT_NPZ (or AUTO) in the pydata/sparse flavour (coords
 * int64, data, shape int64, fill_value 0), SPT_FORMAT_NPZ_SCIPY_COO (row, col int32 when they fit else
 * int64) or SPT_FORMAT_NPZ_SCIPY_CSR (rows sorted, duplicates kept) for rank 2. Members deflated
 * (libdeflate level 1, the largest on a second thread); pydata/sparse's coords are written in Fortran
 * order, which is spt's index layout (NumPy, SciPy and pydata/sparse read either order). */
spt_status spt_write_npz(const spt_tensor *t, const char *path, spt_format flavour);
/* The same with the members' compression chosen: level 0 stores them (no compression; each member's data
 * starts on a 64-byte boundary of the file, so that spt_read_npz can keep it mapped instead of copying,
 * see "Zero copy" below), 1..12 deflates them at libdeflate's level (spt_write_npz: 1). SPT_EINVAL for
 * another level. */
spt_status spt_write_npz_level(const spt_tensor *t, const char *path, spt_format flavour, int level);

/* binsparse, the interchange format of the sparse community (its public "Binary Sparse Format
 * Specification"), in the .npz container as the binsparse Python package writes it: the member
 * binsparse.npy holds the JSON descriptor (format, shape, number_of_stored_values, data_types, fill) as a
 * NumPy unicode scalar and every array is a member NAME.npy. Read by spt_read (SPT_FORMAT_BINSPARSE*, or
 * any .npz holding binsparse.npy): the formats COO/COOR/COOC of any rank, CSR, CSC, DCSR, DCSC, CVEC,
 * DVEC, DMAT/DMATR/DMATC and custom formats of dense and sparse levels (with a transpose); values int8 to
 * uint64, float32, float64, bint8 (bool), complex[float32|float64] and iso[...] (one value for all).
 * Indices are checked against the shape, pointers against the indices, every length against the
 * descriptor; a fill value other than zero is SPT_EINVAL; the "structure" key (symmetric storage) is not
 * expanded (ignored). Members are read as .npz members are (stored or deflated; CRC-32 and sizes checked
 * against the archive's directory). HDF5 containers are not read. Written by spt_write with SPT_FORMAT_BINSPARSE (COO:
 * CVEC for rank 1, COO for rank 2, a custom sparse level otherwise), SPT_FORMAT_BINSPARSE_CSR or _CSC
 * (rank 2): entries sorted, int64 indices, fill 0, members stored as numpy.savez does; a tensor holding an
 * index twice is SPT_EINVAL (binsparse stores each index once), strings SPT_EDTYPE. */

/* Reading files. Regular files are mapped. The text formats (.tns, and .mtx coordinate files) are
 * parsed as a stream when the input is a pipe, a FIFO, stdin, a device, or compressed: a piece of
 * 16 MiB at a time, by all threads, into arrays that grow with the entries, so memory is the tensor
 * plus a fixed buffer, whatever the length; no bound applies unless SPT_MAX_STREAM_BYTES is set in the
 * environment (a byte count, optionally with a K, M, G or T suffix in powers of 1024): then a longer
 * text ends the read with SPT_EOVERFLOW naming the bound. A line with no end within 1 MiB is
 * SPT_EPARSE (/dev/zero read as text stops there). A FIFO is waited for until a writer opens it, at
 * most SPT_FIFO_TIMEOUT seconds from the environment (default 30), then SPT_EIO. Inputs still read
 * whole, and why (each bounded by
 * SPT_MAX_STREAM_BYTES, by default 4 GiB or half the physical memory, whichever is smaller, when it is
 * not a regular file or is decoded):
 *  - .npy from a stream: the array is built from the whole image (after the magic check below);
 *  - a tar archive (compressed or not): its member is chosen from the whole directory;
 *  - Matrix Market array files, which list every element of a dense matrix;
 *  - compressed .npy and .npz files, decoded in memory.
 * A .npz from a stream (and any input spt_read must recognise by its content) is not held in memory:
 * a zip archive's directory is at its end, so the stream is first copied to a temporary file in $TMPDIR
 * (else /tmp), unlinked at once (nothing is left behind, even after a crash), and mapped from there:
 * bounded by the disk, not by RAM or SPT_MAX_STREAM_BYTES.
 * .npy and .npz members are checked before their data is read: the bytes the header's shape and dtype
 * need must be the bytes present (for .npz, the size in the archive's directory), and an .npz's members
 * must agree with one another (coords [rank, n] with data [n] and shape [rank]; SciPy's
 * row/col/indices [n] and indptr [dim + 1]) before any of them is inflated. NumPy unicode arrays
 * ('<U<n>') are read as UTF-8 strings. The .npy and .npz readers look at a stream's first bytes before
 * reading on: a stream that starts neither with the format's magic nor as a compressed or tar input is
 * SPT_EPARSE at once (/dev/zero costs a few KiB, not gigabytes).
 *
 * Compressed and archived inputs. Every reader recognises gzip, bzip2, xz and zstd streams and tar
 * archives (also compressed, as the SuiteSparse Matrix Collection's NAME.tar.gz) by their first bytes,
 * whatever the name, and reads what they hold (for tar, see spt_set_read_member). gzip is decoded with
 * zlib when streamed and libdeflate when decoded whole, both checking every member's CRC and length
 * (several members one after another, as pigz and bgzip write, are one text); bzip2, xz, zstd and tar
 * with libarchive. A name ending in .gz, .bz2, .xz or .zst names the format of its content (x.tns.gz is
 * a .tns); when the name does not tell (stdin, an archive, no extension), spt_read goes by the tar
 * member's name, then by the first decoded bytes: the magic of .npy and .npz (zip), the Matrix Market
 * banner; .tns text has no magic and needs its name or the format given, except on stdin ("-"), where
 * text without the banner is read as .tns. Text found so is parsed as it arrives (a stream), binary
 * formats from a stream are spooled as described above. A corrupt or truncated stream is SPT_EPARSE naming the file and the decoded
 * bytes before the fault. spt_write compresses its output when the name ends in one of those suffixes.
 *
 * Zero copy. A .npy regular file, and a stored (uncompressed) member of a .npz regular file, are not
 * read but mapped when their bytes allow it: a numeric dtype in the host's byte order, C order (for .npz
 * coords: int64 in Fortran order, which is spt's index layout), the data aligned for its element
 * (spt_write_npz_level with level 0 places every member so), bool bytes 0 or 1. The array or tensor then
 * owns a private copy-on-write mapping of the file: nothing is copied, pages are read from the page cache
 * when first touched, writes (spt_reorder, spt_tensor_values_mut, ...) go to private copies of the pages
 * and never to the file, and the mapping lives until the last object using it is freed (deleting or
 * renaming the file meanwhile changes nothing). Otherwise, or for pipes, compressed inputs and archives,
 * the bytes are copied. Indices are checked against the shape and the stated order confirmed as for a
 * copy. spt_set_read_copy(true) asks for copies instead (Python: copy=True).
 * Another program changing the file while it is mapped: spt's own writers replace a file by renaming a
 * new one over it, which leaves mappings of the old one intact (except a file with several hard links,
 * which they rewrite in place, see "Writing files"); but a program that rewrites the same
 * file in place (np.save to that name, a shell redirection) changes the mapped bytes that were not
 * written through spt, and one that truncates it makes the pages past the new end disappear: touching
 * them then raises SIGBUS, as with any mapped file (NumPy's memmap included). Read with copies when the
 * file may be rewritten or truncated while the tensor lives.
 *
 * Order in files. A tensor known to be sorted by a full order is written with that statement:
 * "order: 2 0 1 sorted" (plus " unique" when no two entries are equal) as the .tns comment
 * "# order: ...", the Matrix Market comment "% spt order: ..." after the banner, or the .npz member
 * spt_meta.npy (a bytes scalar; SciPy and pydata/sparse ignore it). SciPy CSR archives are written
 * sorted row-major and say so. A reader restores the order and the sorted flag (and finds whether the
 * entries are unique) only after one pass over the entries confirms the statement; a statement the
 * entries do not bear out, or a malformed one, is ignored and the order stays undefined (-1).
 *
 * Writing files. Every writer (spt_write*, spt_write_spy_png, and so the spt command) writes the same
 * way, by what the target is:
 *  - a new name, or a regular file with one link: a temporary ".sptXXXXXX" beside the target, renamed
 *    over it when complete; an existing file's permission bits (and, where the process may set them,
 *    owner and group) carry over;
 *  - a symlink is followed to its final target, which is updated (the link stays); a dangling symlink
 *    creates the file it names;
 *  - a regular file with several hard links: the data is produced completely in a scratch file first,
 *    then copied into the file in place (truncated), so every link sees it;
 *  - a device, FIFO, socket or pipe (also through /proc/self/fd/N or /dev/stdout): written directly,
 *    never replaced or renamed over; a failed write may leave part of the data there;
 *  - "-" is stdout, for the formats that allow it.
 * A failed write removes its temporary file and leaves the target untouched (except the direct and
 * in-place cases above, which fail only when the copy itself fails). When SIGINT, SIGTERM or SIGHUP is
 * at its default action when a write starts, spt installs a handler for it that removes the
 * temporaries of writes in progress and then ends the process by the same signal (the default
 * action's effect); a handler or SIG_IGN the program set is left alone. Names up to
 * NAME_MAX (255 bytes) work; an empty path or one of PATH_MAX bytes or more is SPT_EINVAL. */

/* Read a sparse tensor in `format` (AUTO: from the extension; a dense .npy is sparsified with spt_from_dense). */
spt_status spt_read(const char *path, spt_format format, const spt_read_opts *opts, spt_tensor **out);
/* The same with .tns indices counted from index_base (0 or 1, as spt_read_tns_base; SPT_EINVAL otherwise),
 * also when the content decides that the input is .tns (stdin). */
spt_status spt_read_base(const char *path, spt_format format, const spt_read_opts *opts, int index_base,
                         spt_tensor **out);
/* Write a sparse tensor in `format` (AUTO: from the extension; .npy writes the dense form). SPT_EINVAL
 * when the format cannot be told. */
spt_status spt_write(const spt_tensor *t, const char *path, spt_format format);

/* Write a PNG spy plot of the sparsity pattern of modes (row_mode, col_mode) of `t` ("-" = stdout): an
 * 8-bit grey image. Cells are square, so the plot keeps the aspect ratio of the two dims: when both
 * fit in max_side pixels (max_side <= 0 means 512, capped at 16384) each cell is enlarged to the same
 * whole number of pixels, as large as fits; otherwise square blocks of cells are binned into one
 * pixel, so that the longer side is at most max_side. White where a cell (block) holds no entry, dark
 * grey (160) for the fewest entries down to black for the most (log scale). The plot is framed by a
 * 1-pixel black line, with tick marks and their 0-based indices at round steps on the left (rows) and
 * top (columns) axes. Rank 1 plots one row (the modes are ignored). SPT_EINVAL for rank 0; SPT_ERANGE
 * unless the modes are two distinct dims. */
spt_status spt_write_spy_png(const spt_tensor *t, int64_t row_mode, int64_t col_mode, int64_t max_side,
                             const char *path);
/* The same plot coloured by value: an 8-bit RGB image where each occupied cell (block) shows the sum of
 * its entries' values (complex: of their moduli; bool: 1 each) from white towards red for a positive sum
 * and towards blue for a negative one, linear in |sum| over the largest |sum| of the plot from 30 %
 * colour (so any entry is visible) to full; light grey where the entries cancel to 0, green where the
 * sum is NaN. Axes, frame and errors as spt_write_spy_png; SPT_EDTYPE for strings. */
spt_status spt_write_spy_png_values(const spt_tensor *t, int64_t row_mode, int64_t col_mode, int64_t max_side,
                                    const char *path);
/* ==== END FILE FORMATS */

/* ------------------------------------------------------------------------------------------------ */
/* TensorFlow's files and records: TFRecord files, tf.train.Example (src/tf)                          */
/* ------------------------------------------------------------------------------------------------ */
/*
 * TFRECORD FILES: records framed as TensorFlow writes them (an 8-byte little-endian length, the masked
 * CRC-32C of the length, the data, the masked CRC-32C of the data), the whole stream optionally
 * compressed as one zlib or gzip stream (TensorFlow's TFRecordOptions compression_type "ZLIB", "GZIP").
 * The reader streams: its memory is one record plus fixed buffers, never the file; a record's buffer
 * grows only as its bytes arrive, so a lying length costs no more than the bytes present. A bad CRC, a
 * truncated record, a length larger than what follows or damaged compressed data is SPT_EDATALOSS naming
 * the file and the byte offset of the record (in the uncompressed stream for ZLIB / GZIP).
 */
typedef enum spt_tfrecord_compression {
    SPT_TFRECORD_NONE = 0,
    SPT_TFRECORD_ZLIB = 1,
    SPT_TFRECORD_GZIP = 2
} spt_tfrecord_compression;
typedef struct spt_tfrecord_reader spt_tfrecord_reader;
typedef struct spt_tfrecord_writer spt_tfrecord_writer;

/* Open `path` for reading (SPT_EIO naming it when it cannot be opened). */
spt_status spt_tfrecord_reader_open(const char *path, spt_tfrecord_compression compression, spt_tfrecord_reader **out);
/* The next record: *data (borrowed: valid until the next read or close) of *len bytes and *eof false; at
 * the clean end of the file *eof true, *data NULL, *len 0. After an error the reader only reports it again. */
spt_status spt_tfrecord_read(spt_tfrecord_reader *r, const void **data, size_t *len, bool *eof);
/* Up to max_records (>= 1) next records as a new string dense [k] (k 0 at the end of the file). */
spt_status spt_tfrecord_read_batch(spt_tfrecord_reader *r, int64_t max_records, spt_dense **out);
/* The byte offset (uncompressed) of the next record. */
int64_t spt_tfrecord_reader_offset(const spt_tfrecord_reader *r);
void spt_tfrecord_reader_close(spt_tfrecord_reader *r); /* NULL-safe */

/* Create (truncate) `path` for writing records. */
spt_status spt_tfrecord_writer_open(const char *path, spt_tfrecord_compression compression, spt_tfrecord_writer **out);
/* Append one record of len bytes (data may be NULL when len is 0). */
spt_status spt_tfrecord_write(spt_tfrecord_writer *w, const char *data, size_t len);
/* Append every element of a string dense as one record each. */
spt_status spt_tfrecord_write_batch(spt_tfrecord_writer *w, const spt_dense *records);
/* Finish the stream and close the file; the status of the last writes (SPT_EIO). NULL-safe. */
spt_status spt_tfrecord_writer_close(spt_tfrecord_writer *w);
/* spt_tfrecord_writer_close without its status (for owners that drop a writer, e.g. a garbage collector). */
void spt_tfrecord_writer_free(spt_tfrecord_writer *w);

/*
 * TF.TRAIN.EXAMPLE: parsing as tf.io.parse_example does, for the three list types of a Feature (int64,
 * float, bytes: dtypes SPT_INT64, SPT_FLOAT32, SPT_STRING). A feature key that repeats inside one
 * Example keeps its first occurrence (as TensorFlow's parser does); a Feature with no list set counts as
 * absent.
 */
typedef enum spt_feature_kind {
    SPT_FEATURE_VARLEN = 0,  /* tf.io.VarLenFeature(dtype) */
    SPT_FEATURE_SPARSE = 1,  /* tf.io.SparseFeature(index_key(s), value_key, dtype, size, already_sorted) */
    SPT_FEATURE_FIXEDLEN = 2 /* tf.io.FixedLenFeature(shape, dtype, default_value) */
} spt_feature_kind;
typedef struct spt_feature {
    spt_feature_kind kind;
    const char *key;                /* the feature key (SparseFeature: its value_key); NUL-terminated */
    spt_dtype dtype;                /* SPT_INT64, SPT_FLOAT32 or SPT_STRING */
    int64_t rank;                   /* FIXEDLEN: the value shape's rank; SPARSE: the number of index keys */
    const int64_t *shape;           /* FIXEDLEN: the value shape; SPARSE: size[j] for index key j */
    const char *const *index_keys;  /* SPARSE: rank int64 features holding the indices */
    bool already_sorted;            /* SPARSE: keep each Example's order (else the output is reordered) */
    const spt_dense *default_value; /* FIXEDLEN: NULL = required; else prod(shape) values of dtype */
} spt_feature;

/* tf.io.parse_example (serialized a string vector [B]) or tf.io.parse_single_example (a string scalar):
 * for feature i, VARLEN and SPARSE fill sparse_out[i] (dense_out[i] NULL) and FIXEDLEN fills dense_out[i]
 * (sparse_out[i] NULL); the caller's arrays have nfeatures slots. VARLEN: indices [b, j] (j the position
 * in Example b's list), dense_shape [B, the longest list]; SPARSE: indices [b, index_0, ...], dense_shape
 * [B] + size, the index lists and the value list of each Example of one length (SPT_EINVAL) and every
 * index inside its size (SPT_ERANGE); FIXEDLEN: dense [B] + shape, an Example's list exactly prod(shape)
 * long (SPT_EINVAL "Key: K, Index: b.  Number of values != expected"), a missing feature its default or
 * SPT_EINVAL "Feature: K (data type: T) is required but could not be found.". A list of another type
 * than the feature's dtype is SPT_EINVAL ("Key: K.  Data types don't match."). The scalar form drops the
 * batch dim (indices [j], dense [shape]). Malformed Example bytes are SPT_EPARSE naming the Example and
 * the field. On error every slot is NULL. */
spt_status spt_parse_example(const spt_dense *serialized, const spt_feature *features, int64_t nfeatures,
                             spt_tensor **sparse_out, spt_dense **dense_out);

/* One feature found in an Example (spt_example_describe): its key (borrowed from the Example's bytes:
 * key_len bytes, not NUL-terminated), whether a list is set, its dtype (SPT_INT64, SPT_FLOAT32 or
 * SPT_STRING) and its number of values. */
typedef struct spt_example_key {
    const char *key;
    int64_t key_len;
    bool has_list;
    spt_dtype dtype;
    int64_t count;
} spt_example_key;
/* The features of one serialized Example, in stored order (a repeated key each time): *keys a new
 * array of *n entries (free with spt_bytes_free; NULL when *n is 0). Malformed bytes are SPT_EPARSE. */
spt_status spt_example_describe(const void *data, size_t len, spt_example_key **keys, int64_t *n);

/* One feature of an Example to encode: n values of dtype (int64, float32 or string: spt_str). */
typedef struct spt_example_feature {
    const char *key;
    spt_dtype dtype;
    int64_t n;
    const void *values;
} spt_example_feature;
/* The bytes of one tf.train.Example holding the n features (in this order), to be freed with
 * spt_bytes_free. SPT_EDTYPE for a dtype an Example cannot hold; SPT_EINVAL for a repeated key. */
spt_status spt_encode_example(const spt_example_feature *features, int64_t n, void **data, size_t *len);
/* One Example per row of dim 0 of t (rank >= 2; values int64, float32 or string): row b's values (in
 * row-major order of its entries) under value_key, and, for each of the rank-1 other dims d, the
 * coordinates under index_keys[d-1] (int64), the layout tf.io.SparseFeature reads back (index_keys NULL
 * and rank 2: the values only, for a VarLenFeature). *out is a new string dense [shape[0]]. */
spt_status spt_encode_examples(const spt_tensor *t, const char *value_key, const char *const *index_keys,
                               spt_dense **out);

/* ------------------------------------------------------------------------------------------------ */
/* For language bindings: unchecked, like memcpy                                                    */
/* ------------------------------------------------------------------------------------------------ */
/*
 * Not part of the API an application calls: the functions below let a language binding hand a batch of
 * its own objects to the library without copying them, and they trust the binding as memcpy trusts its
 * caller. Every pointer and offset is used as given, so a wrong one reads wrong memory: a binding calls
 * them only with a layout it has checked on objects it knows (spt's Python package checks CPython's on
 * sample bytes objects at import and otherwise takes its copying path). Applications build a string
 * dense with spt_dense_wrap or spt_dense_new_from instead.
 */

/* A batch of byte strings held by n objects of a language runtime (e.g. Python's bytes: the type pointer,
 * the length as a 64-bit signed size and the bytes at fixed offsets of each object), read into
 * out[0..n) as spt_str pointing into the objects (nothing copied; the caller keeps them alive and
 * unchanged while out is used). Each object's pointer-sized word at tag_off must equal tag and its length
 * at len_off be >= 0. Returns n when all are, else the index of the first object that is NULL or is not
 * (out filled before it); -1 when objs or out is NULL with n > 0; 0 for n <= 0. */
int64_t spt_strings_gather(const void *const *objs, int64_t n, size_t tag_off, const void *tag, size_t len_off,
                           size_t data_off, spt_str *out);

#ifdef __cplusplus
}
#endif

#endif /* SPT_H */
