/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spt_mpi.h -- spt's distributed layer on MPI (built with `make MPI=1`: build/libspt_mpi.a, linked
 * together with build/libspt.a; the core library never includes mpi.h).
 *
 * CONTEXT
 *   spt never calls MPI_Init or MPI_Finalize: the host program initialises MPI (MPI_THREAD_SINGLE is
 *   enough) and hands spt a communicator. spt_mpi_ctx_new duplicates it, so spt's traffic never meets
 *   the host's messages. The duplicate uses MPI_ERRORS_RETURN.
 *
 * COLLECTIVE CALLS AND AGREED ERRORS
 *   Every function below taking a context or a distributed tensor is COLLECTIVE unless marked "local":
 *   every rank of the context calls it, in the same order, with the same replicated arguments (axes,
 *   orders, root, flags). Errors are agreed: when any rank fails (a bad local argument, an allocation
 *   failure, an out-of-bounds index in its piece), every rank returns the same status, the one of the
 *   lowest failing rank, and spt_last_error() on every rank names that rank and carries its message,
 *   e.g. "spt_dtensor_from_local: rank 2: spt_dtensor_from_local: indices[4] = [7,0] is out of bounds...".
 *   On error every out-parameter is NULL on every rank, nothing leaks, and inputs are unchanged.
 *   (A failing MPI call itself is reported as SPT_EINTERNAL.)
 *
 * DISTRIBUTED SPARSE TENSORS
 *   An spt_dtensor is one global sparse tensor (dtype, rank, shape and a full dimension order, all
 *   replicated) whose entries are spread over the P ranks: the GLOBAL SEQUENCE of entries, rank 0's
 *   local entries followed by rank 1's and so on, is sorted (non-decreasing) by the index rows compared
 *   dim by dim in the tensor's order (row-major unless reordered). So each rank holds a contiguous range
 *   of keys; ranges of neighbouring ranks can share a key only when that key is repeated. Unless stated
 *   otherwise an op balances the result: rank p holds floor(N/P) or floor(N/P)+1 entries (the first
 *   N % P ranks hold one more), whatever the duplicates. Every index is inside the shape (checked on
 *   creation). Per-rank counts are replicated, so owner lookups need no communication.
 *   Any valid shape is taken (every dim in [0, 2^63-1]), whatever its volume: no op forms a linear
 *   index of the whole shape (keys are compared dim by dim, as by the serial library's key engine).
 *   Duplicates keep their relative order through every redistribution: the result of an op is what the
 *   serial op gives on the gathered global sequence (stable sort semantics).
 *
 * 64-BIT COUNTS
 *   Every exchange counts in int64; a message larger than the context's message limit (INT_MAX bytes
 *   by default, MPI's int counts) is sent in chunks.
 */
#ifndef SPT_MPI_H
#define SPT_MPI_H

#include <mpi.h>

#include "spt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------ */
/* Context                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

typedef struct spt_mpi_ctx spt_mpi_ctx;

/* Duplicate `comm` (collective over comm). SPT_EPRECONDITION if MPI is not initialised or already
 * finalised (then nothing collective happens); SPT_EINVAL for MPI_COMM_NULL or a NULL out. */
spt_status spt_mpi_ctx_new(MPI_Comm comm, spt_mpi_ctx **out);
/* Free the duplicate communicator and the context (collective; NULL-safe). Every spt_dtensor of the
 * context must be freed before. A context still live at MPI_Finalize is freed by it (an attribute of
 * MPI_COMM_SELF, deleted first thing in MPI_Finalize): after MPI_Finalize a context must not be used or
 * freed again; dtensors may still be freed. */
void spt_mpi_ctx_free(spt_mpi_ctx *ctx);
/* Local accessors: this rank, the number of ranks, the duplicated communicator (borrowed). */
int spt_mpi_ctx_rank(const spt_mpi_ctx *ctx);
int spt_mpi_ctx_size(const spt_mpi_ctx *ctx);
MPI_Comm spt_mpi_ctx_comm(const spt_mpi_ctx *ctx);
/* Agree on a status (collective): every rank passes its local status and every rank gets the status
 * of the lowest failing rank (SPT_OK when none failed); on failure the last error message of every
 * other rank becomes "fn: rank r: <message of rank r>". For host code that mixes its own local work
 * with spt's collectives. */
spt_status spt_mpi_agree(spt_mpi_ctx *ctx, const char *fn, spt_status local);
/* Local: traffic counters of this rank since the context was made or last reset: payload bytes of
 * entries/blocks sent to OTHER ranks by exchanges, and bytes handed to the metadata collectives
 * (counts, splitter search, agreement). */
void spt_mpi_ctx_traffic(const spt_mpi_ctx *ctx, int64_t *payload_bytes, int64_t *meta_bytes);
void spt_mpi_ctx_reset_traffic(spt_mpi_ctx *ctx);
/* Local: the same counters, the number of MPI collective calls, and the seconds this rank spent in
 * each phase of the sort behind from_local, reorder, concat, add and reduce_sum (local sort -- for the
 * MSD radix sort: counting the top digit and the scatter by bucket; splitter search -- the MSD sort:
 * the Allreduce of the counts and the bucket counts; the all-to-all, counts included; the P-way merge --
 * the MSD sort: sorting the received buckets and decoding them) since the last reset
 * (spt_mpi_ctx_reset_traffic resets them all). For benchmarks and performance models. */
enum { SPT_MPI_PHASE_LOCAL, SPT_MPI_PHASE_SPLIT, SPT_MPI_PHASE_EXCHANGE, SPT_MPI_PHASE_MERGE, SPT_MPI_NPHASES };
typedef struct spt_mpi_stats {
    int64_t payload_bytes, meta_bytes, collectives;
    double phase[SPT_MPI_NPHASES];
} spt_mpi_stats;
void spt_mpi_ctx_stats(const spt_mpi_ctx *ctx, spt_mpi_stats *out);
/* Local (but set it to the same value on every rank): the largest count, in bytes, one MPI call may
 * carry; 0 or >= INT_MAX restores INT_MAX. Smaller values force the chunked path (for tests). */
void spt_mpi_ctx_set_message_limit(spt_mpi_ctx *ctx, int64_t bytes);

/* ------------------------------------------------------------------------------------------------ */
/* Distributed tensors                                                                               */
/* ------------------------------------------------------------------------------------------------ */

typedef struct spt_dtensor spt_dtensor;

/* Redistribute pieces held anywhere: every rank passes its piece (a tensor with the same dtype, rank
 * and shape on every rank; nnz may differ and be 0; entries in any order, duplicates allowed) and the
 * same `order` (a permutation of 0..rank-1; NULL = row-major). The result holds every entry of every
 * piece, sorted by `order`, stable over the global sequence (rank 0's piece first), balanced (the sort
 * of spt_dtensor_reorder: MSD radix or sample sort).
 * SPT_EINVAL for a NULL piece/out or metadata differing from rank 0's ("rank 1: shape [2,3] differs
 * from rank 0's [2,4]"), SPT_ERANGE for an index outside the shape. Pieces are not modified. */
spt_status spt_dtensor_from_local(spt_mpi_ctx *ctx, const spt_tensor *piece, const int64_t *order, spt_dtensor **out);
/* Scatter a tensor held by `root` (ignored elsewhere, may be NULL there): sorted by `order` (NULL =
 * row-major; significant on every rank), stable, balanced. SPT_EINVAL for a bad root. */
spt_status spt_dtensor_scatter(spt_mpi_ctx *ctx, int root, const spt_tensor *t, const int64_t *order,
                               spt_dtensor **out);
/* Gather the global sequence to `root`: *out on root is a new tensor with every entry in global
 * order (its order is the dtensor's, known valid and sorted); NULL on the other ranks. */
spt_status spt_dtensor_gather(const spt_dtensor *dt, int root, spt_tensor **out);
/* Free (local; NULL-safe). */
void spt_dtensor_free(spt_dtensor *dt);

/* Local accessors. The replicated metadata: */
spt_mpi_ctx *spt_dtensor_ctx(const spt_dtensor *dt);
spt_dtype spt_dtensor_dtype(const spt_dtensor *dt);
int64_t spt_dtensor_rank(const spt_dtensor *dt);
const int64_t *spt_dtensor_shape(const spt_dtensor *dt);
const int64_t *spt_dtensor_order(const spt_dtensor *dt);
int64_t spt_dtensor_nnz(const spt_dtensor *dt); /* global */
/* Entries held by rank p (0 <= p < P), and the global position of its first entry. -1 for a bad p. */
int64_t spt_dtensor_count(const spt_dtensor *dt, int p);
int64_t spt_dtensor_offset(const spt_dtensor *dt, int p);
/* This rank's entries, a borrowed tensor with the global metadata (valid, sorted by the order). */
const spt_tensor *spt_dtensor_local(const spt_dtensor *dt);

/* ------------------------------------------------------------------------------------------------ */
/* Distributed ops                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

/* Re-sort in place by `order` (a permutation; NULL = row-major). P = 1: the serial sort only. Keys that
 * pack into 64 bits with values of at most 8 bytes: a distributed MSD radix sort -- every rank counts
 * the top 11 bits of its packed keys, one Allreduce of the counts gives each rank the run of buckets
 * that holds its balanced block, the (key, value) pairs move grouped by bucket in one exchange, and
 * each rank sorts its buckets in cache and decodes them (no local sort, no merge; a balanced dtensor is
 * rewritten in its own buffers). Otherwise (wider keys, strings, 16-byte values, keys crowded into one
 * top bucket) a parallel sample sort: the local piece is sorted in place by the serial library
 * (threaded radix sort); the splitters are the exact keys at the balanced global positions (a multiway
 * search, one small Allreduce per round); the entries move in one exchange (counts once, then index
 * rows and values straight from and into tensor buffers); each rank merges its P sorted runs once.
 * Stable, balanced, the same result either way. On error dt is unchanged. (Messages and bytes of this
 * and every other op: bench/results/mpi/MODEL.md in the source tree.) */
spt_status spt_dtensor_reorder(spt_dtensor *dt, const int64_t *order);

/* tf.sparse.concat(axis, inputs, expand_nonconcat_dim) of n >= 1 dtensors of one context, as the
 * serial spt_concat: axis in [-R, R) (SPT_ERANGE "Concat dimension must be in range [-R, R), got A"),
 * one dtype (SPT_EDTYPE), one rank (SPT_EINVAL "Ranks of all input tensors must match ..."), equal
 * non-concat dims (SPT_EINVAL "Input shapes must match ...") unless expand_nonconcat_dim (then each is
 * the largest over the inputs); the concat dim is the checked sum (SPT_EOVERFLOW). The result is
 * row-major, sorted, balanced (a single input too). Each rank shifts its own entries by the preceding
 * inputs' dims (no communication), then one sample-sort exchange restores the key ranges. */
spt_status spt_dtensor_concat(const spt_dtensor *const *inputs, int64_t n, int64_t axis, bool expand_nonconcat_dim,
                              spt_dtensor **out);

/* tf.sparse.add of two dtensors of one context, as the serial spt_add of the gathered tensors (same checks
 * and messages, the threshold, duplicates meeting one to one): each rank sorts its pieces row-major
 * (nothing to do for row-major dtensors), splitters are chosen on the union of both so that no key is
 * on two ranks, both move in ONE exchange (the counts of a and b in one MPI_Alltoall), and each rank runs
 * the serial spt_add on what it holds (threaded). The result is row-major; its ranges are aligned to keys,
 * so it is as balanced as the distinct keys of a and b allow. P = 1: the serial spt_add on the pieces. */
spt_status spt_dtensor_add(const spt_dtensor *a, const spt_dtensor *b, double thresh, spt_dtensor **out);

/* tf.sparse.reduce_sum with a sparse result, as the serial spt_reduce_sum_sparse: axes in [-R, R)
 * (SPT_ERANGE "Invalid reduction dimension A, for input with R dimensions."), repeats harmless;
 * axes == NULL reduces every dim, axes != NULL with naxes == 0 reduces nothing (only duplicates merge).
 * One entry per non-empty output cell, row-major; with keep_dims the reduced dims have size 1 and
 * coordinate 0. Dtypes: integers (wrapping), floats, complex (SPT_EDTYPE for bool and strings). Local
 * sums (the serial spt_reduce_sum_sparse on each piece; P = 1: that alone), then the partial sums sent to
 * the owners of their keys (one exchange) and summed in rank order while merging. The result's ranges
 * are aligned to output keys (no key on two ranks), so it is as balanced as the distinct output keys
 * allow. */
spt_status spt_dtensor_reduce_sum(const spt_dtensor *dt, const int64_t *axes, int64_t naxes, bool keep_dims,
                                  spt_dtensor **out);

/* tf.sparse.sparse_dense_matmul(a, b, adjoint_a, adjoint_b): a a rank-2 dtensor, b a dense rank-2
 * array REPLICATED (the same on every rank) of a's dtype (numeric, not bool). Each rank multiplies its
 * own rows of a (A by row ranges) into the block of output rows it touches; the blocks are sent to
 * `root` and summed there in rank order. *out on root is the dense [adj_a ? a1 : a0, adj_b ? b0 : b1]
 * result; NULL on the other ranks. root == -1: every rank receives the result. Errors as TF
 * (tf_semantics.md 3.15): SPT_EINVAL "Tensor 'b' is not a matrix", "Cannot multiply A and B because
 * inner dimension does not match: ..."; SPT_EDTYPE for a dtype mismatch or an unsupported dtype. B's shape
 * and a checksum of its bytes are compared with rank 0's (one Allgather of 4 int64): SPT_EINVAL on every
 * rank, naming the lowest rank whose B differs, when one does. */
spt_status spt_dtensor_sparse_dense_matmul(const spt_dtensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                           int root, spt_dense **out);

/* The same with B distributed in ROW BLOCKS instead of replicated: rank p passes rows [b_begin, b_begin
 * + rows) of the stored B as `b_rows` (shape [rows, columns]); the blocks of ranks 0..P-1 must follow
 * each other from row 0 (a rank's block may be empty) with the same column count (else SPT_EINVAL, the
 * same on every rank). Each rank collects the distinct rows k of op(B) its entries of A read and fetches
 * them from their owners (one exchange of row numbers, one of rows; rows it owns are read in place). With
 * adjoint_b, row k of op(B) is column k of B, held in parts by every rank: the request goes to every rank
 * holding rows and each answers with its part of the column. Then as spt_dtensor_sparse_dense_matmul:
 * the same result, byte for byte. Traffic per rank: its distinct k (8 bytes each) out, the rows back
 * (columns x entry size each), instead of all of B. */
spt_status spt_dtensor_sparse_dense_matmul_rows(const spt_dtensor *a, const spt_dense *b_rows, int64_t b_begin,
                                                bool adjoint_a, bool adjoint_b, int root, spt_dense **out);

/* spt_sparse_sparse_matmul of two dtensors of one context (rank 2, or rank 3 batched with the batch dim
 * first), with the serial op's checks and messages (agreed) and its result: the gathered result equals
 * spt_sparse_sparse_matmul(gathered a, gathered b, ...) byte for byte, whatever the rank count and the
 * inputs' orders. A is sorted by the rows of op(A) (a no-op when it already is) and cut at row
 * boundaries, so each row of op(A) is on one rank; B is sorted by the rows of op(B); each rank sends
 * the owners of the rows of op(B) its entries read one request per row (batch and row: 16 bytes) and
 * receives exactly those rows (one exchange of requests, one of entries), then runs the serial product
 * on what it holds (threaded). Memory per rank: its rows of op(A), the rows of op(B) they read and its
 * rows of the result (never all of B unless its rows read all of it). The result is row-major and
 * aligned to output rows (a row is on one rank), so it is as balanced as the rows of op(A) are.
 * P = 1: the serial op on the pieces. */
spt_status spt_dtensor_sparse_sparse_matmul(const spt_dtensor *a, const spt_dtensor *b, bool adjoint_a, bool adjoint_b,
                                            bool keep_zeros, spt_dtensor **out);

/* spt_mttkrp of a dtensor with REPLICATED factor matrices (every rank passes all of them, the same
 * everywhere; factors[mode] is not read): the serial op's checks and messages (agreed; SPT_EINVAL when
 * the column counts differ between ranks, or when a factor's shape or content checksum differs from rank
 * 0's, naming that rank). Each rank runs the serial spt_mttkrp on its piece over the
 * window of output rows its entries touch; the windows are sent to `root` and summed there in rank
 * order. *out on root (every rank for root == -1) is the dense [shape[mode], R] result, NULL elsewhere.
 * Integers: identical to the serial op (wrapping sums). Floats: every output element is the same sum
 * of the same products, the serial op's order within each rank's part, but an output row that spans
 * ranks (its entries on several ranks) is summed in parts, so it may differ from the serial result by
 * rounding: within about (entries of the row) x 2^-52 relative for float64 (2^-23 for float32). When the
 * tensor is sorted with `mode` first, at most the row at each rank boundary spans ranks.
 * Traffic: each rank's window (rows x R values) to the root. P = 1: the serial op. */
spt_status spt_dtensor_mttkrp(const spt_dtensor *t, const spt_dense *const *factors, int64_t nfactors, int64_t mode,
                              int root, spt_dense **out);

/* How spt_dtensor_mttkrp_rows gets the factor rows a rank's entries read. */
typedef enum spt_mpi_factors {
    SPT_MPI_FACTORS_AUTO = 0,      /* the cheaper of the two below by the model's bytes per rank */
    SPT_MPI_FACTORS_REPLICATE = 1, /* every rank receives every factor whole (an all-to-all of the blocks) */
    SPT_MPI_FACTORS_FETCH = 2      /* every rank fetches only the rows its entries read from their owners */
} spt_mpi_factors;
/* spt_mttkrp of a dtensor with the factor matrices in ROW BLOCKS: rank p passes rows [row_begin[k],
 * row_begin[k] + rows) of factor k as factor_rows[k] (shape [rows, R]; factor_rows[mode] and
 * row_begin[mode] are not read); the blocks of ranks 0..P-1 of each factor must follow each other from
 * row 0 (a block may be empty), cover the tensor's dim k and have one column count (else SPT_EINVAL, the
 * same on every rank); the serial op's other checks and messages, agreed. Each rank needs of factor k
 * only the u_k distinct rows its entries read: with `how` SPT_MPI_FACTORS_FETCH it asks their owners for
 * exactly those (8 bytes out and R values back per row not its own); with _REPLICATE every block goes to
 * every rank ((I_k - own rows) x R values in per rank); _AUTO takes the way whose largest per-rank byte
 * count is smaller (the same choice on every rank), and *taken (may be NULL) says which was taken.
 * Either way each rank then runs the serial spt_mttkrp on its piece with the indices renumbered into its
 * u_k rows, so the two ways give the same bits; the windows of output rows are summed on `root` as in
 * spt_dtensor_mttkrp (same result and tolerance against the serial op). *out on root (every rank for
 * root == -1), NULL elsewhere. Memory per rank when fetching: its u_k rows of each factor, never a whole
 * factor. */
spt_status spt_dtensor_mttkrp_rows(const spt_dtensor *t, const spt_dense *const *factor_rows, const int64_t *row_begin,
                                   int64_t nfactors, int64_t mode, spt_mpi_factors how, int root, spt_dense **out,
                                   spt_mpi_factors *taken);

/* spt_sparsify of a distributed T (tensor-of-tensors, spt.h): the outer index space is cut into one
 * contiguous block of row-major outer indices per rank, [*begin, *end) on rank p, the blocks of ranks
 * 0..P-1 in order covering [0, outer volume) (a rank's block may be empty). The cut is the same on every
 * rank, computed from the map alone: each key goes to the rank of the midpoint of its weight (inner
 * volume + dependent indices) in the running total, so the ranks get about equal inner elements and
 * work; a block starts at its first key. `sm`, nmap, ind2mode and outer_shape are REPLICATED (the same
 * on every rank). Each rank walks the map (pruned by the range of its piece's leading mode) and pushes
 * the entries of its piece of T that some rank's keys read to that rank, in one exchange (each needed
 * entry once per destination; of duplicates, the last stored); each rank then runs spt_sparsify_block
 * on what it received. *out on each rank is the ToT of its block: the outer elements of [*begin, *end)
 * exactly as spt_sparsify(gathered T) holds them, every other outer element EMPTY (begin/end may be
 * NULL). T may be sorted by any order. Checks and errors are spt_sparsify's (SPT_EDTYPE, SPT_EINVAL,
 * SPT_ERANGE, SPT_EOVERFLOW), agreed; SPT_EINVAL for a NULL T, map or out. T may have any volume; the
 * outer shape's volume must fit in int64 ([*begin, *end) are int64 bounds): SPT_EOVERFLOW otherwise. */
spt_status spt_dtensor_sparsify(const spt_dtensor *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                                const int64_t *outer_shape, int64_t *begin, int64_t *end, spt_tot **out);
/* spt_sparsify_dense of a dense T distributed in ROW BLOCKS (dim 0): rank p passes rows [row_begin,
 * row_begin + rows) of T as `T_rows` (shape [rows, d1, ...]); the blocks of ranks 0..P-1 must follow each
 * other from row 0 (a block may have 0 rows) with the same dtype, rank and other dims (else SPT_EINVAL,
 * the same on every rank); rank >= 1, not strings. Each rank turns its block into a sparse piece (the
 * elements whose bytes are not all zero: an absent element reads as zero, and -0.0 is kept), already a
 * row-major key range, and then proceeds as spt_dtensor_sparsify (the same partition of the outer index
 * space, one exchange of the elements the other ranks' keys read, the serial block builder). The blocks
 * gathered with spt_mpi_tot_gather equal spt_sparsify_dense of the whole T byte for byte. */
spt_status spt_dtensor_sparsify_dense(spt_mpi_ctx *ctx, const spt_dense *T_rows, int64_t row_begin,
                                      const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                                      const int64_t *outer_shape, int64_t *begin, int64_t *end, spt_tot **out);
/* Gather per-rank blocks of one ToT to `root`: every rank passes its block (same dtype, outer shape and
 * inner rank as rank 0's, else SPT_EINVAL), and every outer element of rank p must precede (row-major)
 * every one of the ranks after it (else SPT_EINVAL naming the ranks), as spt_dtensor_sparsify's blocks
 * do. *out on root holds every non-empty outer element of every block (for spt_dtensor_sparsify's
 * blocks: identical to the serial spt_sparsify); NULL on the other ranks. */
spt_status spt_mpi_tot_gather(spt_mpi_ctx *ctx, const spt_tot *local, int root, spt_tot **out);

/* ------------------------------------------------------------------------------------------------ */
/* Parallel .tns I/O                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

/* Read a FROSTT .tns file in parallel, as the serial spt_read_tns (same options, header comments,
 * dtype inference, errors and messages): rank 0 reads the head (comments up to the first entry) and
 * broadcasts rank, dtype and shape; then each rank parses its own byte range of the file (ranges cut at
 * line starts) with the serial parser; the inferred dtype (float64 if any rank saw a non-integer) and
 * shape (largest index per mode) are agreed; parse errors name the file's line ("path:LINE: ..."; the
 * first failing range wins). The result is sorted row-major (stable over the file's line order) and
 * balanced. SPT_EINVAL for "-" (stdin), SPT_EIO when the file cannot be read. Limitation: a
 * "# shape:"/"# dtype:" comment in the middle of the file is read as a header by the rank whose range
 * starts there (the serial reader ignores it). */
spt_status spt_dtensor_read_tns(spt_mpi_ctx *ctx, const char *path, const spt_read_opts *opts, spt_dtensor **out);
/* Write the global sequence as .tns, byte-identical to spt_write_tns of the gathered tensor: each rank
 * formats its own entries with the serial writer into "path.part<rank>", then the parts are appended
 * rank by rank (token passing) to "path.tmp-mpi", which the last rank renames to `path`. SPT_EINVAL
 * for "-"; SPT_EIO on a write error (no partial file is left at `path`). */
spt_status spt_dtensor_write_tns(const spt_dtensor *dt, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SPT_MPI_H */
