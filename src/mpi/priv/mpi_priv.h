/* mpi_priv.h -- what the files of src/mpi share. Not installed, and kept out of the src/<dir>/ level
 * that the core Makefile treats as headers, so core objects never depend on it. */
#ifndef SPT_MPI_PRIV_H
#define SPT_MPI_PRIV_H

#include "internal.h"
#include "spt_mpi.h"

#include <limits.h>
#include <stdio.h>

struct spt_mpi_ctx {
    MPI_Comm comm;
    int rank, size;
    int64_t limit; /* largest byte count of one MPI call */
    int64_t payload_bytes, meta_bytes;
};

struct spt_dtensor {
    spt_mpi_ctx *ctx;
    spt_tensor *local; /* owned; global metadata; order = the partition order; valid and sorted */
    int64_t nnz;       /* global */
    int64_t *counts;   /* P counts */
    int64_t *offsets;  /* P+1 prefix sums */
};

/* Map an MPI return code to a status (SPT_EINTERNAL naming fn). */
spt_status spt__mpi_rc(const char *fn, int rc, const char *what);
#define SPT__MPI(fn, call, what)                                                                   \
    do {                                                                                           \
        int rc__ = (call);                                                                         \
        if (rc__ != MPI_SUCCESS) {                                                                 \
            st = spt__mpi_rc(fn, rc__, what);                                                      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Agreement: SPT_OK everywhere, or the status of the lowest failing rank everywhere. */
spt_status spt__mpi_agree(spt_mpi_ctx *ctx, const char *fn, spt_status st);
/* Agree, and on failure `goto fail`. Needs `st`. */
#define SPT__AGREE(ctx, fn)                                                                        \
    do {                                                                                           \
        st = spt__mpi_agree((ctx), (fn), st);                                                      \
        if (st != SPT_OK) goto fail;                                                               \
    } while (0)

/* Collectives that count their bytes (MPI_INT64_T / MPI_UINT64_T payloads). */
spt_status spt__mpi_allreduce_i64(spt_mpi_ctx *ctx, const char *fn, int64_t *buf, int64_t n, MPI_Op op);
spt_status spt__mpi_allgather_i64(spt_mpi_ctx *ctx, const char *fn, const int64_t *mine, int64_t n,
                                  int64_t *all);
spt_status spt__mpi_bcast_bytes(spt_mpi_ctx *ctx, const char *fn, void *buf, int64_t bytes, int root);

/* The one exchange primitive: personalized all-to-all of bytes with int64 counts and displacements
 * (chunked when anything exceeds the context's limit). Counts must match pairwise (rcounts from
 * spt__mpi_counts). Adds sent payload to the traffic counter. */
spt_status spt__mpi_alltoallv(spt_mpi_ctx *ctx, const char *fn, const void *sbuf, const int64_t *scounts,
                              const int64_t *sdispls, void *rbuf, const int64_t *rcounts,
                              const int64_t *rdispls);
/* rcounts[q] = what rank q sends me: an MPI_Alltoall of int64 counts. */
spt_status spt__mpi_counts(spt_mpi_ctx *ctx, const char *fn, const int64_t *scounts, int64_t *rcounts);

/* Send entries of a local tensor: sendcounts[d] entries to rank d, taken in the order perm[0..n)
 * (NULL = storage order), grouped by destination (first sendcounts[0] go to rank 0, ...). Every rank
 * receives the runs of every source (each run sorted by `order`), merges them stably (ties go to the
 * lower source rank) and returns a new tensor with the same metadata, `order` recorded, valid and
 * sorted. Collective; errors agreed. `t` must be valid. */
spt_status spt__mpi_exchange(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *perm,
                             const int64_t *sendcounts, const int64_t *order, spt_tensor **out);

/* Sort the union of every rank's local tensor `t` (same metadata everywhere, any entry order) by
 * `order` into contiguous key ranges: local radix sort, splitter search, one exchange, merge. Balanced
 * (blocked counts) unless `key_aligned`, in which case no key is split between ranks (each split goes to
 * the key boundary nearest the balanced position). Collective; errors agreed. */
spt_status spt__mpi_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order,
                         bool key_aligned, spt_tensor **out);

/* Wrap a local tensor (adopted, sorted by its order) into a dtensor: one Allgather of the counts.
 * Collective; on failure `local` is freed. */
spt_status spt__dtensor_make(spt_mpi_ctx *ctx, const char *fn, spt_tensor *local, spt_dtensor **out);

/* Blocked counts: rank p gets n/P (+1 for the first n%P ranks). */
static inline int64_t spt__mpi_block_count(int64_t n, int p, int P) {
    return n / P + (p < n % P ? 1 : 0);
}

/* Check the replicated metadata (dtype, rank, shape, order) of `t` equals rank 0's. Collective. */
spt_status spt__mpi_same_meta(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order);

#endif
