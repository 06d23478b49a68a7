/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_priv.h -- what the files of src/mpi share. Not installed, and kept out of the src/<dir>/ level
 * that the core Makefile treats as headers, so core objects never depend on it. */
#ifndef SPT_MPI_PRIV_H
#define SPT_MPI_PRIV_H

#include "core/internal.h"
#include "sort/keys.h"
#include "spt_mpi.h"

#include <limits.h>
#include <stdio.h>

struct spt_mpi_ctx {
    MPI_Comm comm;
    int rank, size;
    int64_t limit; /* largest byte count of one MPI call */
    int64_t payload_bytes, meta_bytes;
    int64_t collectives;           /* MPI collective calls made (every kind) */
    double phase[SPT_MPI_NPHASES]; /* seconds per phase of the sample sort (spt_mpi_stats) */
    spt_mpi_ctx *prev, *next;      /* the live contexts, freed by MPI_Finalize if the caller has not */
};

/* Wall time for the phase timers. */
static inline double spt__mpi_now(void) { return MPI_Wtime(); }

struct spt_dtensor {
    spt_mpi_ctx *ctx;
    spt_tensor *local; /* owned; global metadata; order = the partition order; valid and sorted */
    int64_t nnz;       /* global */
    int64_t *counts;   /* P counts */
    int64_t *offsets;  /* P+1 prefix sums */
};

/* Map an MPI return code to a status (SPT_EINTERNAL naming fn). */
spt_status spt__mpi_rc(const char *fn, int rc, const char *what);
#define SPT__MPI(fn, call, what)                                                                                       \
    do {                                                                                                               \
        int rc__ = (call);                                                                                             \
        if (rc__ != MPI_SUCCESS) {                                                                                     \
            st = spt__mpi_rc(fn, rc__, what);                                                                          \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

/* Agreement: SPT_OK everywhere, or the status of the lowest failing rank everywhere. */
spt_status spt__mpi_agree(spt_mpi_ctx *ctx, const char *fn, spt_status st);
/* Agree, and on failure `goto fail`. Needs `st`. */
#define SPT__AGREE(ctx, fn)                                                                                            \
    do {                                                                                                               \
        st = spt__mpi_agree((ctx), (fn), st);                                                                          \
        if (st != SPT_OK) goto fail;                                                                                   \
    } while (0)

/* Collectives that count their bytes (MPI_INT64_T / MPI_UINT64_T payloads). */
spt_status spt__mpi_allreduce_i64(spt_mpi_ctx *ctx, const char *fn, int64_t *buf, int64_t n, MPI_Op op);
spt_status spt__mpi_allgather_i64(spt_mpi_ctx *ctx, const char *fn, const int64_t *mine, int64_t n, int64_t *all);
spt_status spt__mpi_bcast_bytes(spt_mpi_ctx *ctx, const char *fn, void *buf, int64_t bytes, int root);

/* The one exchange primitive: personalized all-to-all of bytes with int64 counts and displacements
 * (chunked when anything exceeds the context's limit). Counts must match pairwise (rcounts from
 * spt__mpi_counts). Adds sent payload to the traffic counter. */
spt_status spt__mpi_alltoallv(spt_mpi_ctx *ctx, const char *fn, const void *sbuf, const int64_t *scounts,
                              const int64_t *sdispls, void *rbuf, const int64_t *rcounts, const int64_t *rdispls);
/* rcounts[q] = what rank q sends me: an MPI_Alltoall of int64 counts. */
spt_status spt__mpi_counts(spt_mpi_ctx *ctx, const char *fn, const int64_t *scounts, int64_t *rcounts);

/* ---- the exchanges ---------------------------------------------------------------------------- */

/* dst[i] += src[j] for one numeric dtype (integers wrap); NULL for bool and strings (reduce_sum.c). */
typedef void (*spt__mpi_add_fn)(void *dst, int64_t i, const void *src, int64_t j);
spt__mpi_add_fn spt__mpi_add_for(spt_dtype dtype);

/* The key plan of the distributed layer: t's dims in the order ord (every kind of the serial key
 * engine: 64-bit linear keys, packed 128-bit, wide). Entries are compared by their index rows through
 * it, so any valid shape works whatever its volume. */
static inline void spt__mpi_plan(spt__keyplan *kp, const spt_tensor *t, const int64_t *ord) {
    spt__keyplan_init(kp, t->shape, ord, t->rank);
}

/* One sorted run: n entries, index rows `ix` (rank r, 8-byte aligned) and values `v` (dtype size each;
 * spt_str records for strings, their bytes elsewhere). */
typedef struct spt__mpi_run {
    const int64_t *ix;
    const char *v;
    int64_t n, at;
} spt__mpi_run;

/* The P-way merge (merge.c): the runs (in source rank order), each sorted by kp, into o (allocated with
 * room for all), stably (ties: the lower run first); with `add`, equal keys summed in that order into one
 * entry. *written: the entries written; *unique: known that no two keys are equal (false when not
 * tracked). Local. */
spt_status spt__mpi_merge(const char *fn, const spt__keyplan *kp, const spt__mpi_run *runs, int nr, spt_tensor *o,
                          spt__mpi_add_fn add, int64_t *written, bool *unique);

/* The packed exchange (exchange.c): entries [b_d, b_d + sendcounts[d]) of t (b_d the prefix sum) go to rank d,
 * each block sorted by `order`; index rows, values and string bytes each in one all-to-all (chunked past
 * the context's limit); my own block is read in place. Every rank merges the blocks it receives (ties to
 * the lower source rank; with `add`, equal keys summed in that order) into a new tensor with t's metadata,
 * `order` recorded, valid and sorted. Used by scatter, gather and sparsify, and by the sample sort for
 * strings and blocks above the message limit. Collective; errors agreed. `t` must be valid. */
spt_status spt__mpi_exchange(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *sendcounts,
                             const int64_t *order, spt__mpi_add_fn add, spt_tensor **out);

/* ---- the sample sort (sort.c; splitters split.c, exchange exchange_sorted.c, merge merge.c) ---- */

#define SPT__MPI_MAX_INPUTS 2 /* inputs of one spt__mpi_exchange_sorted */
#define SPT__MPI_MERGE_MAX 64 /* runs merged at once (more: in groups) */
/* A donor (spt__mpi_exchange_sorted) takes the merge in place when the entries it receives plus the
 * entries of its kept range (n) that their keys span are at most this many. */
#define SPT__MPI_INPLACE_MAX(n) ((n) / 4)

/* The local sort: *s = t when t is known valid and sorted by `order` (NULL = row-major), else a new
 * sorted copy made by the serial library (spt_reordered: threaded, validating), *own = that copy (the
 * caller frees it). Errors name fn. Local. */
spt_status spt__mpi_local_sort(const char *fn, const spt_tensor *t, const int64_t *order, const spt_tensor **s,
                               spt_tensor **own);

/* Splitter selection over K >= 1 local tensors, each sorted by `ord` (same dims on every rank): pos[k *
 * (P+1) + q] .. pos[k * (P+1) + q + 1] is the range of input k this rank sends to rank q. The union over
 * ranks and inputs is cut at the balanced global positions (rank q receives floor(N/P) or one more),
 * duplicates of a split key going to the lower ranks in global sequence order (K == 1 only), or, with
 * key_aligned, at the key boundary nearest each balanced position (no key on two ranks). Exact: a
 * multiway search for the key at each target rank, each round one Allreduce of (P-1) x M counts.
 * Collective; errors agreed. */
spt_status spt__mpi_split(spt_mpi_ctx *ctx, const char *fn, int K, const spt_tensor *const *s, const int64_t *ord,
                          bool key_aligned, int64_t *pos);

/* The exchange of the sample sort: K inputs each sorted by `ord`, input k's range [pos[k(P+1)+q],
 * pos[k(P+1)+q+1]) sent to rank q with no packing (counts exchanged once, one MPI_Alltoall; then per input
 * two concurrent MPI_Ialltoallv over those counts, index rows and values, each a contiguous block per peer
 * read and written in place); the part a rank keeps is never copied before the merge. out[k]: the stable P-way merge of what input k's ranges brought
 * (ties: lower source rank first), valid and sorted by ord. With `add`, equal keys are summed in that
 * order into one entry (then no input may hold a key twice on one rank, as the serial reduce's output).
 * Strings and blocks above the message limit take spt__mpi_exchange (packed, chunked). donor: NULL, or K
 * slots each NULL or the address of a tensor the caller owns that is s[k] itself; on a rank where that
 * tensor owns its buffers and the entries received for it and the part of its kept range their keys
 * span are few (SPT__MPI_INPLACE_MAX of the kept count), the result is written into that tensor's
 * buffers (the kept range shifted, only the touched part merged; no fresh output), it becomes out[k] and
 * its slot is set to NULL (on failure it keeps its entries).
 * Collective; errors agreed. */
spt_status spt__mpi_exchange_sorted(spt_mpi_ctx *ctx, const char *fn, int K, const spt_tensor *const *s,
                                    const int64_t *pos, const int64_t *ord, spt__mpi_add_fn add, spt_tensor **donor[],
                                    spt_tensor **out);

/* Sort the union of every rank's local tensor `t` (same metadata everywhere, any entry order) by
 * `order` into contiguous key ranges: local sort, splitters, one exchange, merge (P = 1: the local sort
 * only). Balanced (blocked counts) unless `key_aligned` (then no key is split between ranks). Collective;
 * errors agreed. */
spt_status spt__mpi_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order, bool key_aligned,
                         spt_tensor **out);

/* The distributed MSD radix sort (sort.c) of the union of every rank's `t` by `ord` (a full
 * permutation) into balanced blocks, stable: *out NULL (SPT_OK) when it does not apply -- keys wider
 * than 64 bits, strings, values wider than 8 bytes, skewed top digits -- decided alike on every rank;
 * then the caller runs the sample sort. `inplace` (t itself, or NULL): when every rank's t owns its
 * buffers and already holds its balanced count, the result is written into t's buffers (*out == t,
 * order and flags set; only after every step that can fail). Collective; errors agreed. */
spt_status spt__mpi_msd_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *ord,
                             spt_tensor *inplace, spt_tensor **out);

/* Wrap a local tensor (adopted, sorted by its order) into a dtensor: one Allgather of the counts.
 * Collective; on failure `local` is freed. */
spt_status spt__dtensor_make(spt_mpi_ctx *ctx, const char *fn, spt_tensor *local, spt_dtensor **out);

/* Blocked counts: rank p gets n/P (+1 for the first n%P ranks). */
static inline int64_t spt__mpi_block_count(int64_t n, int p, int P) { return n / P + (p < n % P ? 1 : 0); }

/* The dense [M, NC] sum of every rank's window: rows [lo, lo + rows) of it in `block` (rows x NC values of
 * dtype, a numeric one); the windows go to `root` and are summed there in rank order (integers wrap);
 * root == -1: every rank receives the sum. *out on root (every rank for -1), NULL elsewhere. Collective;
 * errors agreed. */
spt_status spt__mpi_sum_windows(spt_mpi_ctx *ctx, const char *fn, spt_dtype dtype, const void *block, int64_t lo,
                                int64_t rows, int64_t M, int64_t NC, int root, spt_dense **out);

/* A serial function's error renamed for the distributed op: "serial: x" -> "fn: x" (any other message is
 * kept and prefixed with "fn: "). Returns st. Local. */
spt_status spt__mpi_rename_err(const char *fn, const char *serial, spt_status st);

/* Check the replicated metadata (dtype, rank, shape, order) of `t` equals rank 0's. Collective. */
spt_status spt__mpi_same_meta(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order);

/* The window of mode `mode`'s indices t's entries hold: [*lo, *lo + rows), rows returned (0 and *lo = 0
 * when t is empty). Local. */
int64_t spt__mpi_mode_window(const spt_tensor *t, int64_t mode, int64_t *lo);

/* Whether a rank of P computes its MTTKRP into all the output's rows, on its piece p as it is, rather than
 * into the window of `rows` rows its entries touch, over a copy of p renumbered to the window: true when
 * the extra rows cost no more than the copy. Local. */
bool spt__mpi_mttkrp_all_rows(const spt_tensor *p, int64_t mode, int64_t rows, int64_t R, int P);

/* The last phase of both distributed MTTKRPs: unless st already failed, the serial spt_mttkrp of this rank's
 * piece (its mode index shifted to the window [lo, lo + rows) of the M output rows) with the factors fs; the
 * ranks agree on the outcome; then the windows' [rows, R] blocks are summed on root (spt__mpi_sum_windows).
 * Frees owned (the piece when it is a copy, or NULL). */
spt_status spt__mpi_mttkrp_window(spt_mpi_ctx *ctx, const char *fn, spt_status st, const spt_tensor *piece,
                                  spt_tensor *owned, const spt_dense *const *fs, int64_t nf, int64_t mode, int64_t lo,
                                  int64_t rows, int64_t M, int64_t R, int root, spt_dense **out);

/* A REPLICATED dense input `what` of op fn: its rank, shape and a checksum of its bytes (strings: their
 * bytes) compared with rank 0's; SPT_EINVAL on every rank, naming the lowest rank whose input differs,
 * when one differs. Collective; errors agreed. */
spt_status spt__mpi_same_dense(spt_mpi_ctx *ctx, const char *fn, const char *what, const spt_dense *d);

/* ---- fetching rows of a matrix held in row blocks (matmul.c; also mttkrp_rows.c) ------------------- */
/* The blocks: info[3q..3q+3) = (first row, rows, columns) of rank q's block, gathered, checked to
 * follow each other from row 0 with one column count; *KBtot the rows in all. st: this rank's status so
 * far (its block is not read unless SPT_OK). Collective; errors agreed. */
spt_status spt__mpi_rows_blocks(spt_mpi_ctx *ctx, const char *fn, spt_status st, const spt_dense *b_rows,
                                int64_t b_begin, int64_t **info, int64_t *KBtot);
/* The distinct values of column kcol of t's index rows (all below K), ascending, into need (room for
 * t->nnz >= 1 values); *nk their count. Local. */
spt_status spt__mpi_rows_needed(const char *fn, const spt_tensor *t, int kcol, int64_t K, int64_t *need, int64_t *nk);
/* The first position of v[0..n) (ascending) whose value is >= x. */
int64_t spt__mpi_lower_i64(const int64_t *v, int64_t n, int64_t x);
/* The fetch of the rows of op(B) one rank's entries read. info: the blocks (spt__mpi_rows_blocks); need[0..nk):
 * the rows wanted; cnt: P request counts sent | P received | P sdispl | P rdispl | P reply bytes sent |
 * received | sdispl | rdispl (the reply to a request for k: NC values, or one value per row of the
 * block); req: the requests, grouped by owner. */
typedef struct spt__mpi_rows_fetch {
    const int64_t *info, *need;
    int64_t nk, BC, NC, b_begin;
    bool adjoint_b;
    size_t es;
    int64_t *cnt, *req;
} spt__mpi_rows_fetch;
/* The requests (allocates f->cnt and f->req). Local. */
spt_status spt__mpi_rows_requests(const char *fn, int P, int me, spt__mpi_rows_fetch *f);
/* Requests out, rows back, placed into fetched (!adjoint_b: nk x NC values). Collective; errors agreed. */
spt_status spt__mpi_rows_exchange(spt_mpi_ctx *ctx, const char *fn, spt__mpi_rows_fetch *f, const spt_dense *b_rows,
                                  char *fetched);

#endif
