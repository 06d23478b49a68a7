/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_test.c -- the distributed layer, run by `make test-mpi` at mpirun -np 1, 2, 3, 4. Every input is
 * generated identically on every rank from a fixed seed; every distributed result is compared with the
 * serial library's (on every rank for its own slice, and whole on the gather root). Values are
 * integer-valued, so sums are exact in any order. Only rank 0 prints the summary. */
#include <complex.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spt.h"
#include "spt_mpi.h"

/* the library's test hooks (src/core/internal.h; the test links the static library) */
void spt__msd_test_cap(int digit);
int spt__msd_test_levels(void);

static int g_rank, g_size;
static int g_mode_step = 1; /* --small: only the pieces cut unevenly (0) and alternate ranks empty (3) */
static long g_checks, g_fails;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        g_checks++;                                                                                                    \
        if (!(cond)) {                                                                                                 \
            g_fails++;                                                                                                 \
            fprintf(stderr, "[rank %d/%d] %s:%d: check failed: %s (last error: %s)\n", g_rank, g_size, __FILE__,       \
                    __LINE__, #cond, spt_last_error());                                                                \
        }                                                                                                              \
    } while (0)
#define CHECK_ST(expected, call)                                                                                       \
    do {                                                                                                               \
        spt_status st_ = (call);                                                                                       \
        if (st_ != (expected))                                                                                         \
            fprintf(stderr, "[rank %d/%d] %s:%d: %s returned %s, expected %s: %s\n", g_rank, g_size, __FILE__,         \
                    __LINE__, #call, spt_status_name(st_), spt_status_name(expected), spt_last_error());               \
        CHECK(st_ == (expected));                                                                                      \
    } while (0)

/* ---- deterministic inputs ---------------------------------------------------------------------- */

static uint64_t rng_state;
static bool g_clustered; /* random_tensor draws clustered indices (see there) */
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* value j (an integer) stored as dtype */
static void put_value(spt_tensor *t, int64_t i, int64_t v) {
    void *p = spt_tensor_values_mut(t);
    switch (spt_tensor_dtype(t)) {
    case SPT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case SPT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case SPT_INT64: ((int64_t *)p)[i] = v; break;
    case SPT_FLOAT32: ((float *)p)[i] = (float)v; break;
    case SPT_FLOAT64: ((double *)p)[i] = (double)v; break;
    case SPT_COMPLEX128: ((double _Complex *)p)[i] = (double)v + (double)(v % 7) * _Complex_I; break;
    case SPT_STRING: {
        char buf[32];
        int len = snprintf(buf, sizeof buf, "s%lld", (long long)v);
        spt_tensor_set_string(t, i, buf, (int64_t)((v % 3) ? len : 0));
        break;
    }
    default: break;
    }
}

/* A random tensor: n entries with indices uniform in the shape (so duplicates appear when the volume
 * is small) and values vbase + entry number. */
static spt_tensor *random_tensor(uint64_t seed, spt_dtype dt, int64_t rank, const int64_t *shape, int64_t n,
                                 int64_t vbase) {
    spt_tensor *t = NULL;
    rng_state = seed;
    if (spt_tensor_alloc(dt, rank, shape, n, &t) != SPT_OK) return NULL;
    int64_t *ix = spt_tensor_indices_mut(t);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = 0; k < rank; k++) {
            uint64_t d = (uint64_t)shape[k], u = rnd();
            /* clustered: half the indices from {0, d/2, d-1} (repeated rows, the extremes of every dim) */
            if (g_clustered && d && (u & 1))
                ix[i * rank + k] = (int64_t)((u >> 1) % 3 == 0 ? 0 : (u >> 1) % 3 == 1 ? d / 2 : d - 1);
            else ix[i * rank + k] = d ? (int64_t)(u % d) : 0;
        }
        put_value(t, i, vbase + i);
    }
    return t;
}

/* Entries [lo, hi) of t as a new tensor. */
static spt_tensor *slice_entries(const spt_tensor *t, int64_t lo, int64_t hi) {
    spt_tensor *s = NULL;
    int64_t r = spt_tensor_rank(t);
    size_t es = spt_dtype_size(spt_tensor_dtype(t));
    const char *vals = (const char *)spt_tensor_values(t) + (size_t)lo * es;
    if (spt_tensor_new(spt_tensor_dtype(t), r, spt_tensor_shape(t), hi - lo, spt_tensor_indices(t) + lo * r, vals, NULL,
                       &s) != SPT_OK)
        return NULL;
    return s;
}

/* How the global sequence is cut into pieces: 0 uneven (rank p gets a share growing with p), 1 all on
 * rank 0, 2 all on the last rank, 3 alternate ranks empty. */
static void piece_range(int mode, int64_t n, int p, int P, int64_t *lo, int64_t *hi) {
    int64_t w = 0, tot = 0;
    for (int q = 0; q < P; q++) {
        int64_t wq = mode == 0 ? q + 1 : mode == 1 ? (q == 0) : mode == 2 ? (q == P - 1) : (q % 2 == 0 ? 2 : 0);
        if (q < p) w += wq;
        tot += wq;
    }
    int64_t wp = mode == 0 ? p + 1 : mode == 1 ? (p == 0) : mode == 2 ? (p == P - 1) : (p % 2 == 0 ? 2 : 0);
    *lo = n * w / tot;
    *hi = n * (w + wp) / tot;
}

static bool same_values(const spt_tensor *a, int64_t ia, const spt_tensor *b, int64_t ib, int64_t cnt) {
    if (spt_tensor_dtype(a) == SPT_STRING) {
        const spt_str *x = (const spt_str *)spt_tensor_values(a) + ia, *y = (const spt_str *)spt_tensor_values(b) + ib;
        for (int64_t i = 0; i < cnt; i++)
            if (x[i].len != y[i].len || (x[i].len && memcmp(x[i].data, y[i].data, (size_t)x[i].len))) return false;
        return true;
    }
    size_t es = spt_dtype_size(spt_tensor_dtype(a));
    return cnt == 0 || memcmp((const char *)spt_tensor_values(a) + (size_t)ia * es,
                              (const char *)spt_tensor_values(b) + (size_t)ib * es, (size_t)cnt * es) == 0;
}

/* Entries [off, off+cnt) of ref equal all entries of t (same metadata). */
static bool same_range(const spt_tensor *t, const spt_tensor *ref, int64_t off) {
    int64_t r = spt_tensor_rank(ref), cnt = spt_tensor_nnz(t);
    if (spt_tensor_dtype(t) != spt_tensor_dtype(ref) || spt_tensor_rank(t) != r) return false;
    if (off < 0 || off + cnt > spt_tensor_nnz(ref)) return false;
    for (int64_t k = 0; k < r; k++)
        if (spt_tensor_shape(t)[k] != spt_tensor_shape(ref)[k] || spt_tensor_order(t)[k] != spt_tensor_order(ref)[k])
            return false;
    if (cnt && r && memcmp(spt_tensor_indices(t), spt_tensor_indices(ref) + off * r, (size_t)(cnt * r) * 8))
        return false;
    return same_values(t, 0, ref, off, cnt);
}

/* Check a dtensor against the serial reference: balance, this rank's slice, and the gather to root. */
static void check_dtensor(const spt_dtensor *d, const spt_tensor *ref, bool balanced, int root) {
    int64_t N = spt_tensor_nnz(ref);
    CHECK(spt_dtensor_nnz(d) == N);
    if (balanced)
        for (int p = 0; p < g_size; p++) CHECK(spt_dtensor_count(d, p) == N / g_size + (p < N % g_size));
    CHECK(spt_dtensor_count(d, g_rank) == spt_tensor_nnz(spt_dtensor_local(d)));
    CHECK(spt_tensor_known_sorted(spt_dtensor_local(d)) && spt_tensor_known_valid(spt_dtensor_local(d)));
    CHECK(same_range(spt_dtensor_local(d), ref, spt_dtensor_offset(d, g_rank)));
    spt_tensor *g = NULL;
    CHECK_ST(SPT_OK, spt_dtensor_gather(d, root, &g));
    if (g_rank == root) {
        CHECK(g != NULL && spt_tensor_nnz(g) == N && same_range(g, ref, 0));
    } else {
        CHECK(g == NULL);
    }
    spt_tensor_free(g);
}

/* ---- redistribution: from_local, scatter, reorder ------------------------------------------------- */

static void run_from_local(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t rank, const int64_t *shape, int64_t n,
                           int mode, const int64_t *order) {
    spt_tensor *full = random_tensor(seed, dt, rank, shape, n, 1);
    CHECK(full != NULL);
    if (!full) return;
    int64_t lo, hi;
    piece_range(mode, n, g_rank, g_size, &lo, &hi);
    spt_tensor *piece = slice_entries(full, lo, hi), *ref = NULL;
    CHECK(piece != NULL);
    CHECK_ST(SPT_OK, spt_tensor_clone(full, &ref));
    CHECK_ST(SPT_OK, spt_reorder(ref, order));
    spt_dtensor *d = NULL;
    CHECK_ST(SPT_OK, spt_dtensor_from_local(ctx, piece, order, &d));
    if (d) check_dtensor(d, ref, true, (int)(seed % (uint64_t)g_size));
    /* and reorder it to the reverse order, compared with the serial reorder */
    if (d && rank > 0) {
        int64_t rev[64];
        for (int64_t k = 0; k < rank; k++) rev[k] = rank - 1 - k;
        spt_tensor *ref2 = NULL;
        CHECK_ST(SPT_OK, spt_tensor_clone(ref, &ref2));
        CHECK_ST(SPT_OK, spt_reorder(ref2, rev));
        CHECK_ST(SPT_OK, spt_dtensor_reorder(d, rev));
        check_dtensor(d, ref2, true, 0);
        spt_tensor_free(ref2);
    }
    spt_dtensor_free(d);
    spt_tensor_free(ref);
    spt_tensor_free(piece);
    spt_tensor_free(full);
}

static void test_redistribute(spt_mpi_ctx *ctx) {
    static const int64_t s3[] = {5, 7, 3}, s2[] = {2, 2}, s0z[] = {4, 0, 3}, sbig[] = {1000003, 999983};
    static const int64_t o3a[] = {2, 0, 1}, o3b[] = {1, 2, 0};
    static const int64_t ns[] = {0, 1, 2, 3, 5, 17, 100, 1001};
    static const spt_dtype dts[] = {SPT_INT64, SPT_FLOAT64, SPT_INT32, SPT_INT8, SPT_COMPLEX128, SPT_STRING};
    uint64_t seed = 1;
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int mode = 0; mode < 4; mode += g_mode_step) {
            run_from_local(ctx, seed++, SPT_INT64, 3, s3, ns[i], mode, NULL);
            run_from_local(ctx, seed++, SPT_FLOAT64, 3, s3, ns[i], mode, o3a);
        }
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        run_from_local(ctx, seed++, dts[k], 3, s3, 57, 0, o3b);
        run_from_local(ctx, seed++, dts[k], 3, s3, 3, 3, NULL);
    }
    /* heavy duplicates: 4 distinct keys, stability and balance through split keys */
    for (int mode = 0; mode < 4; mode += g_mode_step) run_from_local(ctx, seed++, SPT_INT64, 2, s2, 203, mode, NULL);
    /* scalars (rank 0, every entry the same key), a zero dim, a large sparse key space */
    run_from_local(ctx, seed++, SPT_INT64, 0, NULL, 7, 0, NULL);
    run_from_local(ctx, seed++, SPT_INT64, 3, s0z, 0, 0, NULL);
    run_from_local(ctx, seed++, SPT_FLOAT64, 2, sbig, 5000, 0, NULL);
    /* the chunked exchange path: every MPI call carries at most 40 bytes */
    spt_mpi_ctx_set_message_limit(ctx, 40);
    run_from_local(ctx, seed++, SPT_INT64, 3, s3, 301, 0, o3a);
    run_from_local(ctx, seed++, SPT_STRING, 3, s3, 101, 2, NULL);
    spt_mpi_ctx_set_message_limit(ctx, 0);
}

static void test_scatter(spt_mpi_ctx *ctx) {
    static const int64_t s3[] = {6, 4, 5}, o[] = {1, 0, 2};
    for (int64_t n = 0; n < 40; n += 13) {
        spt_tensor *full = random_tensor(100 + (uint64_t)n, SPT_INT64, 3, s3, n, 1), *ref = NULL;
        int root = (int)(n % g_size);
        CHECK_ST(SPT_OK, spt_tensor_clone(full, &ref));
        CHECK_ST(SPT_OK, spt_reorder(ref, o));
        spt_dtensor *d = NULL;
        CHECK_ST(SPT_OK, spt_dtensor_scatter(ctx, root, g_rank == root ? full : NULL, o, &d));
        if (d) check_dtensor(d, ref, true, g_size - 1);
        spt_dtensor_free(d);
        spt_tensor_free(ref);
        spt_tensor_free(full);
    }
}

/* ---- agreed errors --------------------------------------------------------------------------------- */

static void test_errors(spt_mpi_ctx *ctx) {
    static const int64_t s2[] = {3, 4}, s2b[] = {3, 5}, bad_order[] = {0, 0};
    spt_tensor *piece = random_tensor(7, SPT_INT64, 2, s2, 5, 1);
    spt_dtensor *d = (spt_dtensor *)&d;
    char want[64];
    snprintf(want, sizeof want, "rank %d:", g_size - 1);
    /* an out-of-bounds index on the last rank only */
    if (g_rank == g_size - 1) spt_tensor_indices_mut(piece)[3] = 9;
    CHECK_ST(SPT_ERANGE, spt_dtensor_from_local(ctx, piece, NULL, &d));
    CHECK(d == NULL);
    CHECK(strstr(spt_last_error(), want) != NULL);
    CHECK(strstr(spt_last_error(), "out of bounds") != NULL);
    spt_tensor_free(piece);
    /* a shape that differs on the last rank */
    piece = random_tensor(7, SPT_INT64, 2, g_rank == g_size - 1 && g_size > 1 ? s2b : s2, 5, 1);
    d = (spt_dtensor *)&d;
    CHECK_ST(g_size > 1 ? SPT_EINVAL : SPT_OK, spt_dtensor_from_local(ctx, piece, NULL, &d));
    if (g_size > 1) CHECK(d == NULL && strstr(spt_last_error(), "differs from rank 0") != NULL);
    spt_dtensor_free(g_size > 1 ? NULL : d);
    /* a NULL piece on rank 0 */
    d = (spt_dtensor *)&d;
    CHECK_ST(SPT_EINVAL, spt_dtensor_from_local(ctx, g_rank == 0 ? NULL : piece, NULL, &d));
    CHECK(d == NULL && strstr(spt_last_error(), "rank 0:") != NULL);
    /* a bad order (replicated) */
    CHECK_ST(SPT_EINVAL, spt_dtensor_from_local(ctx, piece, bad_order, &d));
    /* bad roots */
    CHECK_ST(SPT_EINVAL, spt_dtensor_scatter(ctx, g_size, piece, NULL, &d));
    CHECK_ST(SPT_OK, spt_dtensor_scatter(ctx, 0, piece, NULL, &d));
    spt_tensor *g = NULL;
    CHECK_ST(SPT_EINVAL, spt_dtensor_gather(d, -1, &g));
    CHECK(g == NULL);
    spt_dtensor_free(d);
    /* reorder with an order that differs on the last rank: an agreed error, the tensor unchanged */
    static const int64_t o01[] = {0, 1}, o10[] = {1, 0};
    d = NULL;
    CHECK_ST(SPT_OK, spt_dtensor_scatter(ctx, 0, piece, NULL, &d));
    CHECK_ST(g_size > 1 ? SPT_EINVAL : SPT_OK, spt_dtensor_reorder(d, g_rank == g_size - 1 && g_size > 1 ? o10 : o01));
    if (g_size > 1) CHECK(strstr(spt_last_error(), "differs from rank 0") != NULL);
    spt_dtensor_free(d);
    /* the host's own agreement */
    CHECK_ST(SPT_OK, spt_mpi_agree(ctx, "host", SPT_OK));
    CHECK_ST(SPT_EIO, spt_mpi_agree(ctx, "host", g_rank == g_size / 2 ? SPT_EIO : SPT_OK));
    spt_tensor_free(piece);
}

/* ---- ops: reduce_sum, concat, sparse_dense_matmul vs the serial library --------------------------- */

/* A dtensor from the pieces of `full` cut by `mode`. */
static spt_dtensor *distribute(spt_mpi_ctx *ctx, const spt_tensor *full, int mode, const int64_t *order) {
    int64_t lo, hi;
    piece_range(mode, spt_tensor_nnz(full), g_rank, g_size, &lo, &hi);
    spt_tensor *piece = slice_entries(full, lo, hi);
    spt_dtensor *d = NULL;
    CHECK_ST(SPT_OK, spt_dtensor_from_local(ctx, piece, order, &d));
    spt_tensor_free(piece);
    return d;
}

static void run_reduce(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t rank, const int64_t *shape, int64_t n,
                       int mode, const int64_t *axes, int64_t naxes, bool keep) {
    spt_tensor *full = random_tensor(seed, dt, rank, shape, n, -20), *ref = NULL;
    spt_dtensor *d = distribute(ctx, full, mode, NULL), *r = NULL;
    CHECK_ST(SPT_OK, spt_reduce_sum_sparse(full, axes, naxes, keep, &ref));
    CHECK_ST(SPT_OK, spt_dtensor_reduce_sum(d, axes, naxes, keep, &r));
    if (r && ref) {
        check_dtensor(r, ref, false, g_size - 1);
        /* no output key on two ranks */
        const spt_tensor *l = spt_dtensor_local(r);
        int64_t R = spt_tensor_rank(l), cnt = spt_tensor_nnz(l);
        int64_t *both = calloc((size_t)g_size * (2 * 8 + 2), 8);
        int64_t mine[2 * 8 + 2] = {0};
        mine[0] = cnt;
        if (cnt) {
            memcpy(mine + 2, spt_tensor_indices(l), (size_t)R * 8);
            memcpy(mine + 2 + R, spt_tensor_indices(l) + (cnt - 1) * R, (size_t)R * 8);
        }
        MPI_Allgather(mine, 2 * 8 + 2, MPI_INT64_T, both, 2 * 8 + 2, MPI_INT64_T, MPI_COMM_WORLD);
        int64_t prev = -1;
        for (int q = 0; q < g_size; q++) {
            const int64_t *m = both + q * (2 * 8 + 2);
            if (!m[0]) continue;
            if (prev >= 0) CHECK(R > 0 && memcmp(both + prev * (2 * 8 + 2) + 2 + R, m + 2, (size_t)R * 8) != 0);
            prev = q;
        }
        free(both);
    }
    spt_dtensor_free(r);
    spt_dtensor_free(d);
    spt_tensor_free(ref);
    spt_tensor_free(full);
}

static void test_reduce(spt_mpi_ctx *ctx) {
    static const int64_t s3[] = {6, 5, 4}, ax0[] = {0}, ax1[] = {-2}, ax02[] = {2, 0, 2}, s2[] = {3, 2};
    uint64_t seed = 500;
    for (int mode = 0; mode < 4; mode += g_mode_step)
        for (int64_t n = 0; n <= 300; n += 100) {
            run_reduce(ctx, seed++, SPT_INT64, 3, s3, n, mode, ax0, 1, false);
            run_reduce(ctx, seed++, SPT_FLOAT64, 3, s3, n, mode, ax1, 1, true);
            run_reduce(ctx, seed++, SPT_INT32, 3, s3, n, mode, ax02, 3, false);
            run_reduce(ctx, seed++, SPT_COMPLEX128, 3, s3, n, mode, ax02, 3, true);
            run_reduce(ctx, seed++, SPT_INT64, 3, s3, n, mode, NULL, 0, false); /* everything: a scalar */
            run_reduce(ctx, seed++, SPT_INT64, 3, s3, n, mode, ax0, 0, false);  /* nothing: duplicates merge */
        }
    run_reduce(ctx, seed++, SPT_INT8, 2, s2, 1000, 0, ax1, 1, false); /* wrapping int8 sums */
    /* the chunked exchange (partial sums summed after the packed path) */
    spt_mpi_ctx_set_message_limit(ctx, 40);
    for (int mode = 0; mode < 4; mode += g_mode_step) {
        run_reduce(ctx, seed++, SPT_INT64, 3, s3, 200, mode, ax0, 1, false);
        run_reduce(ctx, seed++, SPT_FLOAT64, 3, s3, 300, mode, ax02, 3, true);
    }
    spt_mpi_ctx_set_message_limit(ctx, 0);
    spt_tensor *full = random_tensor(1, SPT_STRING, 3, s3, 4, 0);
    spt_dtensor *d = distribute(ctx, full, 0, NULL), *r = (spt_dtensor *)&d;
    CHECK_ST(SPT_EDTYPE, spt_dtensor_reduce_sum(d, ax0, 1, false, &r));
    CHECK(r == NULL);
    spt_dtensor_free(d);
    spt_tensor_free(full);
    full = random_tensor(1, SPT_INT64, 3, s3, 4, 0);
    d = distribute(ctx, full, 0, NULL);
    CHECK_ST(SPT_ERANGE, spt_dtensor_reduce_sum(d, (const int64_t[]){3}, 1, false, &r));
    CHECK(strstr(spt_last_error(), "Invalid reduction dimension 3, for input with 3 dimensions.") != NULL);
    spt_dtensor_free(d);
    spt_tensor_free(full);
}

/* The merge into the reduce's own partial sums (exchange_sorted.c, merge_into_donor): the inputs are
 * balanced row-major blocks, so the rows at the block edges straddle ranks and their partial sums move a
 * little: received keys equal to, between, below and above the kept ones, the kept range shifted down
 * (a prefix sent to lower ranks) or grown (new keys received), ranks left with nothing (few output keys);
 * reduce over axis 0 (partial sums everywhere) takes the full merge. Duplicate input cells (clustered
 * indices) are summed first by the local reduce; int32 values near INT32_MAX wrap. */
static void test_reduce_inplace(spt_mpi_ctx *ctx) {
    static const int64_t dense[] = {40, 30, 50}, sparse[] = {200, 4, 200}, narrow[] = {7, 300, 9}, few[] = {2, 50, 50};
    static const int64_t ax1[] = {1}, ax2[] = {2}, ax0[] = {0}, ax12[] = {1, 2}, ax01[] = {0, 1};
    static const spt_dtype dts[] = {SPT_FLOAT64, SPT_INT64, SPT_INT32, SPT_COMPLEX128};
    uint64_t seed = 900;
    for (int c = 0; c < 2; c++) {
        g_clustered = c == 1;
        for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
            run_reduce(ctx, seed++, dts[k], 3, dense, 20000, 0, ax1, 1, false);
            run_reduce(ctx, seed++, dts[k], 3, dense, 6000, 0, ax2, 1, true);
            run_reduce(ctx, seed++, dts[k], 3, sparse, 3000, 0, ax1, 1, false);
            run_reduce(ctx, seed++, dts[k], 3, narrow, 4000, 0, ax1, 1, false);
            run_reduce(ctx, seed++, dts[k], 3, few, 2000, 0, ax12, 2, false);
            run_reduce(ctx, seed++, dts[k], 3, dense, 5000, 0, ax0, 1, false);
            run_reduce(ctx, seed++, dts[k], 3, dense, 5000, 0, ax01, 2, false);
        }
        for (int64_t n = 1; n <= 5; n++) run_reduce(ctx, seed++, SPT_INT64, 3, sparse, n, 0, ax1, 1, false);
    }
    g_clustered = false;
    /* int32 sums that wrap: every value within 2^12 of INT32_MAX */
    for (int mode = 0; mode < 4; mode += g_mode_step) {
        run_reduce(ctx, seed++, SPT_INT32, 3, dense, 20000, mode, ax1, 1, false);
        run_reduce(ctx, seed++, SPT_INT32, 3, sparse, 3000, mode, ax1, 1, true);
    }
    {
        spt_tensor *full = random_tensor(seed++, SPT_INT32, 3, dense, 20000, 0), *ref = NULL;
        int32_t *v = spt_tensor_values_mut(full);
        for (int64_t i = 0; i < 20000; i++) v[i] = INT32_MAX - (int32_t)(i & 4095);
        spt_dtensor *d = distribute(ctx, full, 0, NULL), *r = NULL;
        CHECK_ST(SPT_OK, spt_reduce_sum_sparse(full, ax1, 1, false, &ref));
        CHECK_ST(SPT_OK, spt_dtensor_reduce_sum(d, ax1, 1, false, &r));
        if (r && ref) check_dtensor(r, ref, false, 0);
        spt_dtensor_free(r);
        spt_dtensor_free(d);
        spt_tensor_free(ref);
        spt_tensor_free(full);
    }
}

/* The sample sort's donor (sort.c: the local sort's copy is the result where little moves): complex128
 * pieces (the sample sort, not the MSD path), each a reversed range of the sorted whole that is one to
 * three entries longer or shorter than its balanced share, so a few entries cross every edge; duplicate
 * keys (whose ties the reversal reorders). Against the serial stable sort of the pieces in rank order. */
static void piece_of(int64_t N, int p, int v, int64_t *lo, int64_t *hi) {
    *lo = N * p / g_size + (p > 0 ? (p % 2 ? v + 1 : -v - 1) : 0);
    *hi = N * (p + 1) / g_size + (p + 1 < g_size ? ((p + 1) % 2 ? v + 1 : -v - 1) : 0);
}
static void test_sort_donor(spt_mpi_ctx *ctx) {
    static const int64_t S[] = {30, 20, 10};
    for (int v = 0; v < 3; v++) {
        const int64_t N = 3000 + v;
        spt_tensor *full = random_tensor(1200 + (uint64_t)v, SPT_COMPLEX128, 3, S, N, 1), *srt = NULL, *cat = NULL;
        CHECK_ST(SPT_OK, spt_reordered(full, NULL, &srt));
        CHECK_ST(SPT_OK, spt_tensor_alloc(SPT_COMPLEX128, 3, S, N, &cat));
        if (!srt || !cat) continue;
        int64_t *cix = spt_tensor_indices_mut(cat);
        double _Complex *cv = spt_tensor_values_mut(cat);
        const int64_t *six = spt_tensor_indices(srt);
        const double _Complex *sv = spt_tensor_values(srt);
        for (int p = 0; p < g_size; p++) { /* every piece reversed, in rank order */
            int64_t lo, hi;
            piece_of(N, p, v, &lo, &hi);
            for (int64_t i = lo; i < hi; i++) {
                memcpy(cix + (lo + hi - 1 - i) * 3, six + i * 3, 24);
                cv[lo + hi - 1 - i] = sv[i];
            }
        }
        int64_t lo, hi;
        piece_of(N, g_rank, v, &lo, &hi);
        spt_tensor *piece = slice_entries(cat, lo, hi), *ref = NULL; /* not known sorted: the local sort copies */
        CHECK_ST(SPT_OK, spt_reordered(cat, NULL, &ref));
        spt_dtensor *d = NULL;
        CHECK_ST(SPT_OK, spt_dtensor_from_local(ctx, piece, NULL, &d));
        if (d && ref) check_dtensor(d, ref, true, v % g_size);
        spt_dtensor_free(d);
        spt_tensor_free(piece);
        spt_tensor_free(ref);
        spt_tensor_free(cat);
        spt_tensor_free(srt);
        spt_tensor_free(full);
    }
}

static void run_concat(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t n_in, int64_t axis, bool expand) {
    spt_tensor *full[4] = {0}, *ref = NULL;
    spt_dtensor *d[4] = {0}, *r = NULL;
    for (int64_t i = 0; i < n_in; i++) {
        int64_t shape[3] = {4, 3, 5};
        shape[axis < 0 ? axis + 3 : axis] = 1 + i * 2;
        if (expand) shape[(axis + 4) % 3] = 2 + i;
        full[i] = random_tensor(seed + (uint64_t)i, dt, 3, shape, (int64_t)((seed + (uint64_t)i * 7) % 40), 100 * i);
        static const int64_t o[] = {2, 1, 0};
        d[i] = distribute(ctx, full[i], (int)(i % 4), i == 1 ? o : NULL);
    }
    CHECK_ST(SPT_OK, spt_concat((const spt_tensor *const *)full, n_in, axis, expand, &ref));
    CHECK_ST(SPT_OK, spt_dtensor_concat((const spt_dtensor *const *)d, n_in, axis, expand, &r));
    if (r && ref) check_dtensor(r, ref, true, 0);
    spt_dtensor_free(r);
    spt_tensor_free(ref);
    for (int64_t i = 0; i < n_in; i++) {
        spt_dtensor_free(d[i]);
        spt_tensor_free(full[i]);
    }
}

static void test_concat(spt_mpi_ctx *ctx) {
    uint64_t seed = 900;
    for (int64_t axis = -3; axis < 3; axis++)
        for (int64_t n = 1; n <= 4; n++) {
            run_concat(ctx, seed, SPT_INT64, n, axis, false);
            seed += 10;
        }
    run_concat(ctx, seed += 10, SPT_STRING, 3, 1, false);
    run_concat(ctx, seed += 10, SPT_FLOAT32, 3, 2, true);
    /* errors: axis, shapes */
    static const int64_t s1[] = {2, 3}, s2[] = {2, 4};
    spt_tensor *a = random_tensor(3, SPT_INT64, 2, s1, 5, 0), *b = random_tensor(4, SPT_INT64, 2, s2, 5, 0);
    spt_dtensor *da = distribute(ctx, a, 0, NULL), *db = distribute(ctx, b, 1, NULL), *r = NULL;
    const spt_dtensor *in[2] = {da, db};
    CHECK_ST(SPT_ERANGE, spt_dtensor_concat(in, 2, 2, false, &r));
    CHECK_ST(SPT_EINVAL, spt_dtensor_concat(in, 2, 0, false, &r));
    CHECK(strstr(spt_last_error(), "Input shapes must match") != NULL);
    /* a bad argument on the last rank only: agreed (it used to return alone, the others waited) */
    r = (spt_dtensor *)&r;
    const spt_dtensor *in_bad[2] = {da, g_rank == g_size - 1 ? NULL : db};
    CHECK_ST(SPT_EINVAL, spt_dtensor_concat(in_bad, 2, 1, false, &r));
    CHECK(r == NULL && strstr(spt_last_error(), "input 1 is NULL") != NULL);
    CHECK_ST(SPT_EINVAL, spt_dtensor_concat(in, 2, 1, false, g_rank == g_size - 1 ? NULL : &r));
    CHECK(strstr(spt_last_error(), "out is NULL") != NULL);
    CHECK_ST(SPT_OK, spt_dtensor_concat(in, 2, 1, false, &r));
    CHECK(r && spt_dtensor_shape(r)[1] == 7 && spt_dtensor_nnz(r) == 10);
    spt_dtensor_free(r);
    spt_dtensor_free(da);
    spt_dtensor_free(db);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

static spt_dense *random_dense(uint64_t seed, spt_dtype dt, int64_t r0, int64_t r1) {
    spt_dense *b = NULL;
    if (spt_dense_new(dt, 2, (const int64_t[]){r0, r1}, &b) != SPT_OK) return NULL;
    rng_state = seed;
    for (int64_t i = 0; i < r0 * r1; i++) {
        int64_t v = (int64_t)(rnd() % 11) - 5;
        void *p = spt_dense_data_mut(b);
        if (dt == SPT_FLOAT64) ((double *)p)[i] = (double)v;
        else if (dt == SPT_INT32) ((int32_t *)p)[i] = (int32_t)v;
        else if (dt == SPT_COMPLEX128) ((double _Complex *)p)[i] = (double)v - (double)(v % 3) * _Complex_I;
    }
    return b;
}

static void run_matmul(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t m, int64_t k, int64_t nc, int64_t n,
                       int mode, bool adj_a, bool adj_b, int root) {
    int64_t ashape[2] = {adj_a ? k : m, adj_a ? m : k};
    spt_tensor *A = random_tensor(seed, dt, 2, ashape, n, -7);
    spt_dense *B = random_dense(seed + 1, dt, adj_b ? nc : k, adj_b ? k : nc), *ref = NULL, *C = NULL;
    spt_dtensor *d = distribute(ctx, A, mode, NULL);
    CHECK_ST(SPT_OK, spt_sparse_dense_matmul(A, B, adj_a, adj_b, &ref));
    CHECK_ST(SPT_OK, spt_dtensor_sparse_dense_matmul(d, B, adj_a, adj_b, root, &C));
    if (root == -1 || g_rank == root) {
        CHECK(C != NULL && ref != NULL);
        if (C && ref) {
            CHECK(spt_dense_shape(C)[0] == spt_dense_shape(ref)[0] && spt_dense_shape(C)[1] == spt_dense_shape(ref)[1]);
            CHECK(memcmp(spt_dense_data(C), spt_dense_data(ref), (size_t)spt_dense_size(C) * spt_dtype_size(dt)) == 0);
        }
    } else {
        CHECK(C == NULL);
    }
    spt_dense_free(C);
    spt_dense_free(ref);
    spt_dtensor_free(d);
    spt_dense_free(B);
    spt_tensor_free(A);
}

static void test_matmul(spt_mpi_ctx *ctx) {
    uint64_t seed = 1300;
    for (int mode = 0; mode < 4; mode += g_mode_step)
        for (int adj = 0; adj < 4; adj++) {
            run_matmul(ctx, seed++, SPT_FLOAT64, 7, 5, 3, 40, mode, adj & 1, adj & 2, mode % g_size);
            run_matmul(ctx, seed++, SPT_COMPLEX128, 6, 4, 5, 30, mode, adj & 1, adj & 2, -1);
            run_matmul(ctx, seed++, SPT_INT32, 2, 9, 4, 3, mode, adj & 1, adj & 2, 0);    /* N < P possible */
            run_matmul(ctx, seed++, SPT_FLOAT64, 5, 0, 3, 0, mode, adj & 1, adj & 2, -1); /* k = 0 */
        }
    static const int64_t s[] = {3, 4};
    spt_tensor *A = random_tensor(5, SPT_FLOAT64, 2, s, 6, 0);
    spt_dtensor *d = distribute(ctx, A, 0, NULL);
    spt_dense *B = random_dense(6, SPT_FLOAT64, 5, 2), *C = (spt_dense *)&C;
    CHECK_ST(SPT_EINVAL, spt_dtensor_sparse_dense_matmul(d, B, false, false, 0, &C));
    CHECK(C == NULL && strstr(spt_last_error(), "inner dimension does not match") != NULL);
    spt_dense_free(B);
    B = random_dense(6, SPT_INT32, 4, 2);
    CHECK_ST(SPT_EDTYPE, spt_dtensor_sparse_dense_matmul(d, B, false, false, 0, &C));
    spt_dense_free(B);
    if (g_size > 1) { /* B not replicated: rank 1 has one more column; agreed error, no hang */
        for (int root = -1; root < 1; root++) {
            B = random_dense(6, SPT_FLOAT64, 4, g_rank == 1 ? 3 : 2);
            C = (spt_dense *)&C;
            CHECK_ST(SPT_EINVAL, spt_dtensor_sparse_dense_matmul(d, B, false, false, root, &C));
            CHECK(C == NULL && strstr(spt_last_error(), "spt_dtensor_sparse_dense_matmul: ") == spt_last_error() &&
                  strstr(spt_last_error(), "rank 1's differs from rank 0's: shape") != NULL);
            spt_dense_free(B);
        }
        /* the same shape, one value different on the last rank: agreed error naming that rank */
        for (int root = -1; root < 1; root++) {
            B = random_dense(6, SPT_FLOAT64, 4, 2);
            if (g_rank == g_size - 1) ((double *)spt_dense_data(B))[5] += 1;
            C = (spt_dense *)&C;
            CHECK_ST(SPT_EINVAL, spt_dtensor_sparse_dense_matmul(d, B, false, false, root, &C));
            char want[64];
            snprintf(want, sizeof want, "rank %d's differs from rank 0's: content checksum", g_size - 1);
            CHECK(C == NULL && strstr(spt_last_error(), "spt_dtensor_sparse_dense_matmul: ") == spt_last_error() &&
                  strstr(spt_last_error(), want) != NULL);
            spt_dense_free(B);
        }
    }
    spt_dtensor_free(d);
    spt_tensor_free(A);
}

/* ---- sparse x sparse product and MTTKRP vs the serial library ------------------------------------- */

static void run_spgemm(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t R, const int64_t *sa, const int64_t *sb,
                       int64_t na, int64_t nb, int mode, int ordmode, bool adj_a, bool adj_b, bool keep) {
    spt_tensor *A = random_tensor(seed, dt, R, sa, na, -3), *B = random_tensor(seed + 1, dt, R, sb, nb, -4),
               *ref = NULL;
    static const int64_t cm2[] = {1, 0}, cm3[] = {2, 1, 0}, mix3[] = {1, 0, 2};
    const int64_t *ord = ordmode == 0 ? NULL : R == 2 ? cm2 : ordmode == 1 ? cm3 : mix3;
    spt_dtensor *da = distribute(ctx, A, mode, ord),
                *db = distribute(ctx, B, (mode + 1) % 4, ordmode == 2 ? NULL : ord);
    spt_dtensor *dc = NULL;
    /* the serial op on the gathered inputs (in the dtensors' orders) */
    spt_tensor *ga = NULL, *gb = NULL;
    CHECK_ST(SPT_OK, spt_dtensor_gather(da, 0, &ga));
    CHECK_ST(SPT_OK, spt_dtensor_gather(db, 0, &gb));
    spt_status want = SPT_OK;
    if (g_rank == 0) want = spt_sparse_sparse_matmul(ga, gb, adj_a, adj_b, keep, &ref);
    MPI_Bcast(&want, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK_ST(want, spt_dtensor_sparse_sparse_matmul(da, db, adj_a, adj_b, keep, &dc));
    if (want == SPT_OK && dc) {
        spt_tensor *gc = NULL;
        CHECK_ST(SPT_OK, spt_dtensor_gather(dc, 0, &gc));
        if (g_rank == 0) CHECK(gc && spt_tensor_nnz(gc) == spt_tensor_nnz(ref) && same_range(gc, ref, 0));
        CHECK(spt_tensor_known_sorted(spt_dtensor_local(dc)) && spt_tensor_known_valid(spt_dtensor_local(dc)));
        spt_tensor_free(gc);
    } else {
        CHECK(dc == NULL);
    }
    spt_dtensor_free(dc);
    spt_tensor_free(ga);
    spt_tensor_free(gb);
    spt_tensor_free(ref);
    spt_dtensor_free(da);
    spt_dtensor_free(db);
    spt_tensor_free(A);
    spt_tensor_free(B);
}

static void test_spgemm(spt_mpi_ctx *ctx) {
    uint64_t seed = 5100;
    for (int mode = 0; mode < 4; mode += g_mode_step)
        for (int adj = 0; adj < 4; adj++)
            for (int om = g_mode_step == 1 ? 0 : mode / 3; om < (g_mode_step == 1 ? 2 : mode / 3 + 1); om++) {
                bool aa = adj & 1, ab = adj & 2;
                int64_t m = 9, k = 7, n = 8;
                int64_t sa[2] = {aa ? k : m, aa ? m : k}, sb[2] = {ab ? n : k, ab ? k : n};
                run_spgemm(ctx, seed++, SPT_FLOAT64, 2, sa, sb, 40, 35, mode, om, aa, ab, false);
                run_spgemm(ctx, seed++, SPT_COMPLEX128, 2, sa, sb, 25, 30, mode, om, aa, ab, om == 1);
                run_spgemm(ctx, seed++, SPT_INT32, 2, sa, sb, 3, 4, mode, om, aa, ab, false); /* N < P possible */
                int64_t ta[3] = {3, sa[0], sa[1]}, tb[3] = {3, sb[0], sb[1]};
                run_spgemm(ctx, seed++, SPT_FLOAT64, 3, ta, tb, 60, 50, mode, om + (mode & 1), aa, ab, false);
            }
    /* a few wide rows (one row of A read by every rank's part of B), empty operands, one dim 0 */
    static const int64_t w[] = {2, 300}, wb[] = {300, 5}, z[] = {0, 4}, zb[] = {4, 6};
    run_spgemm(ctx, seed++, SPT_FLOAT64, 2, w, wb, 500, 600, 0, 0, false, false, false);
    run_spgemm(ctx, seed++, SPT_FLOAT64, 2, w, wb, 0, 600, 1, 0, false, false, false);
    run_spgemm(ctx, seed++, SPT_FLOAT64, 2, z, zb, 0, 10, 0, 0, false, false, false);
    /* errors: the serial op's, agreed */
    static const int64_t s34[] = {3, 4}, s54[] = {5, 4};
    spt_tensor *A = random_tensor(1, SPT_FLOAT64, 2, s34, 6, 0), *B = random_tensor(2, SPT_FLOAT64, 2, s54, 6, 0);
    spt_tensor *Bi = random_tensor(2, SPT_INT32, 2, s54, 6, 0);
    spt_dtensor *da = distribute(ctx, A, 0, NULL), *db = distribute(ctx, B, 3, NULL),
                *dbi = distribute(ctx, Bi, 1, NULL);
    spt_dtensor *dc = (spt_dtensor *)&dc;
    CHECK_ST(SPT_EINVAL, spt_dtensor_sparse_sparse_matmul(da, db, false, false, false, &dc));
    CHECK(dc == NULL && strstr(spt_last_error(), "spt_dtensor_sparse_sparse_matmul: ") == spt_last_error() &&
          strstr(spt_last_error(), "inner dimension does not match") != NULL);
    CHECK_ST(SPT_OK, spt_dtensor_sparse_sparse_matmul(da, db, false, true, false, &dc));
    spt_dtensor_free(dc);
    CHECK_ST(SPT_EDTYPE, spt_dtensor_sparse_sparse_matmul(da, dbi, false, true, false, &dc));
    CHECK_ST(SPT_EINVAL, spt_dtensor_sparse_sparse_matmul(da, NULL, false, true, false, &dc));
    spt_dtensor_free(dbi);
    spt_dtensor_free(db);
    spt_dtensor_free(da);
    spt_tensor_free(Bi);
    spt_tensor_free(B);
    spt_tensor_free(A);
}

static void run_mttkrp(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t R, const int64_t *S, int64_t n, int mode,
                       const int64_t *ord, int64_t rank_r, int root) {
    spt_tensor *T = random_tensor(seed, dt, R, S, n, -5);
    spt_dtensor *d = distribute(ctx, T, mode, ord);
    spt_dense *f[SPT_MAX_RANK] = {0};
    for (int64_t m = 0; m < R; m++) f[m] = random_dense(seed + 10 + (uint64_t)m, dt, S[m], rank_r);
    for (int64_t md = 0; md < R; md++) {
        spt_dense *ref = NULL, *C = NULL;
        CHECK_ST(SPT_OK, spt_mttkrp(T, (const spt_dense *const *)f, R, md, &ref));
        CHECK_ST(SPT_OK, spt_dtensor_mttkrp(d, (const spt_dense *const *)f, R, md, root, &C));
        if (root == -1 || g_rank == root) {
            CHECK(C && ref && spt_dense_size(C) == spt_dense_size(ref));
            if (C && ref && dt == SPT_INT32) {
                CHECK(memcmp(spt_dense_data(C), spt_dense_data(ref), (size_t)spt_dense_size(C) * 4) == 0);
            } else if (C && ref) {
                const double *x = spt_dense_data(C), *y = spt_dense_data(ref);
                double worst = 0;
                for (int64_t i = 0; i < spt_dense_size(C); i++) {
                    double e = fabs(x[i] - y[i]) / (fabs(y[i]) > 1 ? fabs(y[i]) : 1);
                    worst = e > worst ? e : worst;
                }
                CHECK(worst <= 1e-12);
            }
        } else {
            CHECK(C == NULL);
        }
        spt_dense_free(C);
        spt_dense_free(ref);
    }
    for (int64_t m = 0; m < R; m++) spt_dense_free(f[m]);
    spt_dtensor_free(d);
    spt_tensor_free(T);
}

static void test_mttkrp(spt_mpi_ctx *ctx) {
    static const int64_t s3[] = {7, 5, 6}, s4[] = {4, 3, 5, 2}, s2[] = {30, 4}, o3[] = {2, 0, 1},
                         slong[] = {3000, 40, 2000};
    uint64_t seed = 6100;
    for (int mode = 0; mode < 4; mode += g_mode_step) {
        /* each rank computes into all the output's rows when they are few beside its piece (the first
         * three), into its window of rows over a copy of its piece otherwise (slong, and empty pieces) */
        run_mttkrp(ctx, seed++, SPT_FLOAT64, 3, s3, 80, mode, NULL, 4, -1);
        run_mttkrp(ctx, seed++, SPT_FLOAT64, 3, slong, 60, mode, NULL, 3, -1);
        run_mttkrp(ctx, seed++, SPT_INT32, 3, s3, 80, mode, o3, 3, mode % g_size);
        run_mttkrp(ctx, seed++, SPT_FLOAT64, 4, s4, 50, mode, NULL, 2, 0);
        run_mttkrp(ctx, seed++, SPT_INT32, 2, s2, 3, mode, NULL, 5, -1); /* N < P possible */
        run_mttkrp(ctx, seed++, SPT_FLOAT64, 3, s3, 0, mode, NULL, 2, -1);
    }
    /* errors: the serial op's (agreed), a bad root, factors differing between ranks */
    spt_tensor *T = random_tensor(3, SPT_FLOAT64, 3, s3, 10, 0);
    spt_dtensor *d = distribute(ctx, T, 0, NULL);
    const int64_t rr = g_rank == g_size - 1 && g_size > 1 ? 3 : 2; /* the last rank's factors are wider */
    spt_dense *f[3] = {random_dense(4, SPT_FLOAT64, 7, rr), random_dense(5, SPT_FLOAT64, 5, rr),
                       random_dense(6, SPT_FLOAT64, 6, rr)};
    spt_dense *C = (spt_dense *)&C;
    CHECK_ST(SPT_ERANGE, spt_dtensor_mttkrp(d, (const spt_dense *const *)f, 3, 3, 0, &C));
    CHECK(C == NULL && strstr(spt_last_error(), "spt_dtensor_mttkrp: ") == spt_last_error());
    CHECK_ST(SPT_EINVAL, spt_dtensor_mttkrp(d, (const spt_dense *const *)f, 2, 0, 0, &C));
    CHECK_ST(SPT_EINVAL, spt_dtensor_mttkrp(d, (const spt_dense *const *)f, 3, 0, g_size, &C));
    if (g_size > 1) {
        CHECK_ST(SPT_EINVAL, spt_dtensor_mttkrp(d, (const spt_dense *const *)f, 3, 0, -1, &C));
        CHECK(C == NULL && strstr(spt_last_error(), "differ between ranks") != NULL);
        spt_dense *g[3] = {random_dense(4, SPT_FLOAT64, 7, 2), random_dense(5, SPT_FLOAT64, 5, 2),
                           random_dense(6, SPT_FLOAT64, 6, 2)};
        if (g_rank == 1) ((double *)spt_dense_data(g[2]))[3] = -1; /* rank 1's factor 2 differs in one value */
        CHECK_ST(SPT_EINVAL, spt_dtensor_mttkrp(d, (const spt_dense *const *)g, 3, 0, -1, &C));
        CHECK(C == NULL && strstr(spt_last_error(), "spt_dtensor_mttkrp: factor 2 must be the same on every rank, "
                                                    "but rank 1's differs from rank 0's") == spt_last_error());
        for (int m = 0; m < 3; m++) spt_dense_free(g[m]);
    }
    for (int m = 0; m < 3; m++) spt_dense_free(f[m]);
    spt_dtensor_free(d);
    spt_tensor_free(T);
}

/* ---- sparsify: the distributed tensor-of-tensors vs the serial spt_sparsify ------------------------- */

static bool same_tot(const spt_tot *a, const spt_tot *b) {
    if (!a || !b) return false;
    if (spt_tot_dtype(a) != spt_tot_dtype(b) || spt_tot_outer_rank(a) != spt_tot_outer_rank(b) ||
        spt_tot_inner_rank(a) != spt_tot_inner_rank(b) || spt_tot_count(a) != spt_tot_count(b) ||
        spt_tot_total_size(a) != spt_tot_total_size(b))
        return false;
    int64_t orank = spt_tot_outer_rank(a), irank = spt_tot_inner_rank(a);
    if (orank && memcmp(spt_tot_outer_shape(a), spt_tot_outer_shape(b), (size_t)orank * 8)) return false;
    size_t es = spt_dtype_size(spt_tot_dtype(a));
    for (int64_t e = 0; e < spt_tot_count(a); e++) {
        spt_tot_inner x, y;
        if (spt_tot_entry(a, e, &x) != SPT_OK || spt_tot_entry(b, e, &y) != SPT_OK) return false;
        if (x.size != y.size || (orank && memcmp(x.outer, y.outer, (size_t)orank * 8)) ||
            (irank && memcmp(x.shape, y.shape, (size_t)irank * 8)) || memcmp(x.data, y.data, (size_t)x.size * es))
            return false;
    }
    return true;
}

/* A random map for T of shape S (rank R): keys of ind_rank NI inside oshape, pinned components (ind2mode)
 * also inside T's pinned dim, dependent indices inside T's free dims (or one past them when `outside`).
 * npairs pairs; nempty more keys without pairs. */
static spt_sparse_map *random_map(uint64_t seed, int64_t R, const int64_t *S, int64_t NI, const int64_t *oshape,
                                  int64_t nmap, const int64_t *ind2mode, int64_t npairs, int64_t nempty, bool outside) {
    int64_t pin[8], isfree[8], fm[8], D = R - nmap;
    for (int64_t k = 0; k < NI; k++) pin[k] = -1;
    for (int64_t m = 0; m < R; m++) isfree[m] = 1;
    for (int64_t p = 0; p < nmap; p++) {
        pin[ind2mode[2 * p]] = ind2mode[2 * p + 1];
        isfree[ind2mode[2 * p + 1]] = 0;
    }
    for (int64_t m = 0, j = 0; m < R; m++)
        if (isfree[m]) fm[j++] = m;
    int64_t *ind = calloc((size_t)(npairs + nempty) * (size_t)NI + 1, 8),
            *dep = calloc((size_t)npairs * (size_t)D + 1, 8);
    rng_state = seed;
    for (int64_t i = 0; i < npairs + nempty; i++) {
        for (int64_t k = 0; k < NI; k++) {
            int64_t lim = oshape[k];
            if (pin[k] >= 0 && S[pin[k]] < lim) lim = S[pin[k]];
            ind[i * NI + k] = (int64_t)(rnd() % (uint64_t)lim);
        }
        if (i < npairs)
            for (int64_t j = 0; j < D; j++) dep[i * D + j] = (int64_t)(rnd() % (uint64_t)S[fm[j]]);
    }
    if (outside && npairs > 0) dep[(npairs / 2) * D + D - 1] = S[fm[D - 1]];
    spt_sparse_map *sm = NULL;
    spt_status st = spt_sparse_map_new_with_keys(NI, D, nempty, ind + npairs * NI, npairs, ind, dep, &sm);
    if (st != SPT_OK) fprintf(stderr, "random_map: %s\n", spt_last_error());
    free(ind);
    free(dep);
    return sm;
}

static void run_sparsify(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t R, const int64_t *S, int64_t n,
                         int mode, const int64_t *order, int64_t NI, const int64_t *oshape, int64_t nmap,
                         const int64_t *ind2mode, int64_t npairs, int64_t nempty) {
    spt_tensor *full = random_tensor(seed, dt, R, S, n, -30);
    spt_sparse_map *sm = random_map(seed * 31 + 7, R, S, NI, oshape, nmap, ind2mode, npairs, nempty, false);
    CHECK(full != NULL && sm != NULL);
    spt_tot *ref = NULL, *loc = NULL, *blk = NULL, *g = NULL;
    CHECK_ST(SPT_OK, spt_sparsify(full, sm, nmap, ind2mode, oshape, &ref));
    spt_dtensor *d = distribute(ctx, full, mode, order);
    int64_t b = -1, e = -1;
    CHECK_ST(SPT_OK, spt_dtensor_sparsify(d, sm, nmap, ind2mode, oshape, &b, &e, &loc));
    /* the blocks partition [0, outer volume) in rank order */
    int64_t ovol = 1;
    for (int64_t k = 0; k < NI; k++) ovol *= oshape[k];
    int64_t mine[2] = {b, e}, *all = calloc((size_t)g_size * 2, 8);
    MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, MPI_COMM_WORLD);
    CHECK(all[0] == 0 && all[2 * g_size - 1] == ovol);
    for (int q = 0; q < g_size; q++) {
        CHECK(all[2 * q] <= all[2 * q + 1]);
        if (q) CHECK(all[2 * q] == all[2 * q - 1]);
    }
    free(all);
    /* my block is the serial block builder's, the gather is the serial result */
    CHECK_ST(SPT_OK, spt_sparsify_block(full, sm, nmap, ind2mode, oshape, b, e, &blk));
    CHECK(same_tot(loc, blk));
    int64_t cnts[2] = {loc ? spt_tot_count(loc) : 0, loc ? spt_tot_total_size(loc) : 0};
    MPI_Allreduce(MPI_IN_PLACE, cnts, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(ref && cnts[0] == spt_tot_count(ref) && cnts[1] == spt_tot_total_size(ref));
    if (getenv("SPT_MPI_TEST_VERBOSE") && g_rank == 0)
        fprintf(stderr, "sparsify seed %llu: %lld outer, %lld values, my block [%lld,%lld) %lld\n",
                (unsigned long long)seed, (long long)cnts[0], (long long)cnts[1], (long long)b, (long long)e,
                (long long)(loc ? spt_tot_count(loc) : -1));
    int root = (int)(seed % (uint64_t)g_size);
    CHECK_ST(SPT_OK, spt_mpi_tot_gather(ctx, loc, root, &g));
    if (g_rank == root) CHECK(same_tot(g, ref));
    else CHECK(g == NULL);
    spt_tot_free(g);
    spt_tot_free(blk);
    spt_tot_free(loc);
    spt_tot_free(ref);
    spt_dtensor_free(d);
    spt_sparse_map_free(sm);
    spt_tensor_free(full);
}

/* Rank p's block of an m-row matrix F: rows [b, b + rows) with uneven cuts (rank 0 the most, the last
 * rank none when P > 2). */
static spt_dense *factor_block(const spt_dense *F, int64_t *b) {
    const int64_t m = spt_dense_shape(F)[0], c = spt_dense_shape(F)[1];
    int64_t cut[65];
    const int live = g_size > 2 ? g_size - 1 : g_size;
    for (int q = 0; q <= g_size; q++) cut[q] = q >= live ? m : (m * q * (q + 1)) / (live * (live + 1));
    *b = cut[g_rank];
    const int64_t rows = cut[g_rank + 1] - cut[g_rank];
    const size_t es = spt_dtype_size(spt_dense_dtype(F));
    spt_dense *out = NULL;
    CHECK_ST(SPT_OK, spt_dense_new_from(spt_dense_dtype(F), 2, (const int64_t[]){rows, c},
                                        (const char *)spt_dense_data(F) + (size_t)(*b * c) * es, &out));
    return out;
}

/* spt_dtensor_mttkrp_rows by fetching and by replicating: the same bits, and the serial op's result
 * (integers exactly, float64 within 1e-12 relative), for every mode. */
static void run_mttkrp_rows(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t R, const int64_t *S, int64_t n,
                            int pmode, int64_t cols, int root) {
    spt_tensor *T = random_tensor(seed, dt, R, S, n, -5);
    spt_dtensor *d = distribute(ctx, T, pmode, NULL);
    spt_dense *f[SPT_MAX_RANK] = {0}, *blk[SPT_MAX_RANK] = {0};
    int64_t beg[SPT_MAX_RANK] = {0};
    for (int64_t m = 0; m < R; m++) {
        f[m] = random_dense(seed + 10 + (uint64_t)m, dt, S[m], cols);
        blk[m] = factor_block(f[m], &beg[m]);
    }
    const size_t es = spt_dtype_size(dt);
    for (int64_t md = 0; md < R; md++) {
        spt_dense *ref = NULL, *C[3] = {NULL, NULL, NULL};
        spt_mpi_factors took[3];
        CHECK_ST(SPT_OK, spt_mttkrp(T, (const spt_dense *const *)f, R, md, &ref));
        for (int how = 0; how < 3; how++)
            CHECK_ST(SPT_OK, spt_dtensor_mttkrp_rows(d, (const spt_dense *const *)blk, beg, R, md, (spt_mpi_factors)how,
                                                     root, &C[how], &took[how]));
        CHECK(took[1] == SPT_MPI_FACTORS_REPLICATE && took[2] == SPT_MPI_FACTORS_FETCH &&
              took[0] != SPT_MPI_FACTORS_AUTO);
        if (root == -1 || g_rank == root) {
            CHECK(C[1] && C[2] && ref && spt_dense_size(C[1]) == spt_dense_size(ref));
            if (C[1] && C[2] && ref) {
                const size_t bytes = (size_t)spt_dense_size(ref) * es;
                CHECK(memcmp(spt_dense_data(C[1]), spt_dense_data(C[2]), bytes) == 0); /* same bits both ways */
                CHECK(memcmp(spt_dense_data(C[0]), spt_dense_data(C[1]), bytes) == 0);
                if (dt == SPT_INT32) {
                    CHECK(memcmp(spt_dense_data(C[1]), spt_dense_data(ref), bytes) == 0);
                } else {
                    const double *x = spt_dense_data(C[2]), *y = spt_dense_data(ref);
                    double worst = 0;
                    for (int64_t i = 0; i < spt_dense_size(C[2]); i++) {
                        double e = fabs(x[i] - y[i]) / (fabs(y[i]) > 1 ? fabs(y[i]) : 1);
                        worst = e > worst ? e : worst;
                    }
                    CHECK(worst <= 1e-12);
                }
            }
        } else {
            CHECK(C[0] == NULL && C[1] == NULL && C[2] == NULL);
        }
        for (int how = 0; how < 3; how++) spt_dense_free(C[how]);
        spt_dense_free(ref);
    }
    for (int64_t m = 0; m < R; m++) {
        spt_dense_free(f[m]);
        spt_dense_free(blk[m]);
    }
    spt_dtensor_free(d);
    spt_tensor_free(T);
}

static void test_mttkrp_rows(spt_mpi_ctx *ctx) {
    static const int64_t s3[] = {7, 5, 6}, s4[] = {4, 3, 5, 2}, s2[] = {30, 4}, slong[] = {3000, 40, 2000};
    uint64_t seed = 6400;
    for (int pm = 0; pm < 3; pm += g_mode_step) {
        run_mttkrp_rows(ctx, seed++, SPT_FLOAT64, 3, s3, 80, pm, 4, -1);
        run_mttkrp_rows(ctx, seed++, SPT_INT32, 3, s3, 80, pm, 3, pm % g_size);
        run_mttkrp_rows(ctx, seed++, SPT_FLOAT64, 4, s4, 50, pm, 2, 0);
        run_mttkrp_rows(ctx, seed++, SPT_INT32, 2, s2, 3, pm, 5, -1); /* N < P possible */
        run_mttkrp_rows(ctx, seed++, SPT_FLOAT64, 3, s3, 0, pm, 2, -1);
        run_mttkrp_rows(ctx, seed++, SPT_FLOAT64, 3, slong, 60, pm, 3, -1);
    }
    /* the model's choice: a few entries in long modes fetch; many entries over short modes (every rank
     * reading every row of the factors of modes 1 and 2) replicate */
    spt_tensor *T = random_tensor(7, SPT_FLOAT64, 3, slong, 40, 0), *U = random_tensor(8, SPT_FLOAT64, 3, s3, 400, 0);
    spt_dtensor *d = distribute(ctx, T, 0, NULL), *du = distribute(ctx, U, 1, NULL);
    spt_dense *f[3], *fu[3], *b[3], *bu[3];
    int64_t beg[3], begu[3];
    for (int m = 0; m < 3; m++) {
        f[m] = random_dense(20 + (uint64_t)m, SPT_FLOAT64, slong[m], 8);
        fu[m] = random_dense(30 + (uint64_t)m, SPT_FLOAT64, s3[m], 8);
        b[m] = factor_block(f[m], &beg[m]);
        bu[m] = factor_block(fu[m], &begu[m]);
    }
    spt_dense *C = NULL;
    spt_mpi_factors took = SPT_MPI_FACTORS_AUTO;
    int64_t pay0, pay1, meta;
    spt_mpi_ctx_reset_traffic(ctx);
    CHECK_ST(SPT_OK,
             spt_dtensor_mttkrp_rows(d, (const spt_dense *const *)b, beg, 3, 1, SPT_MPI_FACTORS_AUTO, 0, &C, &took));
    spt_mpi_ctx_traffic(ctx, &pay0, &meta);
    CHECK(g_size == 1 || took == SPT_MPI_FACTORS_FETCH);
    spt_dense_free(C);
    C = NULL;
    spt_mpi_ctx_reset_traffic(ctx);
    CHECK_ST(SPT_OK, spt_dtensor_mttkrp_rows(d, (const spt_dense *const *)b, beg, 3, 1, SPT_MPI_FACTORS_REPLICATE, 0,
                                             &C, NULL));
    spt_mpi_ctx_traffic(ctx, &pay1, &meta);
    int64_t pays[2] = {pay0, pay1};
    MPI_Allreduce(MPI_IN_PLACE, pays, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(g_size == 1 || pays[0] < pays[1]);
    spt_dense_free(C);
    C = NULL;
    CHECK_ST(SPT_OK,
             spt_dtensor_mttkrp_rows(du, (const spt_dense *const *)bu, begu, 3, 0, SPT_MPI_FACTORS_AUTO, 0, &C, &took));
    CHECK(took == SPT_MPI_FACTORS_REPLICATE);
    spt_dense_free(C);
    /* errors, the same on every rank, naming the op: blocks that do not cover the dim, one rank's block
     * wider, a bad way, a bad mode, the factor count */
    C = (spt_dense *)&C;
    int64_t bad[3] = {beg[0], beg[1] + (g_rank == g_size - 1), beg[2]};
    CHECK_ST(SPT_EINVAL,
             spt_dtensor_mttkrp_rows(d, (const spt_dense *const *)b, bad, 3, 0, SPT_MPI_FACTORS_AUTO, 0, &C, NULL));
    CHECK(C == NULL && strstr(spt_last_error(), "spt_dtensor_mttkrp_rows: ") == spt_last_error());
    spt_dense *wide = g_rank == g_size - 1 ? random_dense(9, SPT_FLOAT64, spt_dense_shape(b[2])[0], 9) : NULL;
    const spt_dense *bw[3] = {b[0], b[1], wide ? wide : b[2]};
    CHECK_ST(SPT_EINVAL, spt_dtensor_mttkrp_rows(d, bw, beg, 3, 0, SPT_MPI_FACTORS_FETCH, -1, &C, NULL));
    CHECK(C == NULL && strstr(spt_last_error(), "columns") != NULL);
    spt_dense_free(wide);
    CHECK_ST(SPT_EINVAL,
             spt_dtensor_mttkrp_rows(d, (const spt_dense *const *)b, beg, 3, 0, (spt_mpi_factors)7, 0, &C, NULL));
    CHECK_ST(SPT_ERANGE,
             spt_dtensor_mttkrp_rows(d, (const spt_dense *const *)b, beg, 3, 3, SPT_MPI_FACTORS_AUTO, 0, &C, NULL));
    CHECK_ST(SPT_EINVAL,
             spt_dtensor_mttkrp_rows(d, (const spt_dense *const *)b, beg, 2, 0, SPT_MPI_FACTORS_AUTO, 0, &C, NULL));
    CHECK(C == NULL && strstr(spt_last_error(), "spt_dtensor_mttkrp_rows: ") == spt_last_error());
    for (int m = 0; m < 3; m++) {
        spt_dense_free(f[m]);
        spt_dense_free(fu[m]);
        spt_dense_free(b[m]);
        spt_dense_free(bu[m]);
    }
    spt_dtensor_free(du);
    spt_dtensor_free(d);
    spt_tensor_free(U);
    spt_tensor_free(T);
}

static void test_sparsify(spt_mpi_ctx *ctx) {
    static const int64_t S[] = {6, 5, 4}, rev[] = {2, 1, 0}, o120[] = {1, 2, 0};
    static const int64_t os1[] = {6}, os2[] = {3, 6}, os9[] = {9};
    static const int64_t p00[] = {0, 0}, p02[] = {0, 2}, p01[] = {0, 1}, p10[] = {1, 0};
    static const int64_t ns[] = {0, 1, 3, 40, 150};
    static const spt_dtype dts[] = {SPT_INT64, SPT_FLOAT64, SPT_INT32, SPT_COMPLEX128, SPT_INT8};
    uint64_t seed = 2000;
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int mode = 0; mode < 4; mode += g_mode_step) {
            spt_dtype dt = dts[(i + (size_t)mode) % (sizeof dts / sizeof *dts)];
            /* the key pins T's leading mode (whole keys pruned) */
            run_sparsify(ctx, seed++, dt, 3, S, ns[i], mode, NULL, 1, os1, 1, p00, 30, 2);
            /* the key pins T's last mode; T's leading mode is the rows' first component */
            run_sparsify(ctx, seed++, dt, 3, S, ns[i], mode, NULL, 1, os1, 1, p02, 25, 0);
            /* T sorted by another order (no pruning), keys with a free component (entries needed by many
             * keys: sent once per destination) */
            run_sparsify(ctx, seed++, dt, 3, S, ns[i], mode, rev, 1, os1, 1, p01, 20, 1);
            run_sparsify(ctx, seed++, dt, 3, S, ns[i], mode, o120, 2, os2, 1, p10, 40, 3);
            /* nothing pinned: every key reads from all of T */
            run_sparsify(ctx, seed++, dt, 3, S, ns[i], mode, NULL, 1, os9, 0, NULL, 35, 0);
        }
    /* N < P, a single key, no pairs at all, only empty keys, many small keys */
    run_sparsify(ctx, seed++, SPT_INT64, 3, S, 2, 1, NULL, 1, os1, 1, p00, 1, 0);
    run_sparsify(ctx, seed++, SPT_INT64, 3, S, 20, 0, NULL, 1, os1, 1, p00, 0, 0);
    run_sparsify(ctx, seed++, SPT_INT64, 3, S, 20, 2, NULL, 1, os1, 1, p00, 0, 4);
    run_sparsify(ctx, seed++, SPT_FLOAT64, 3, S, 100, 3, NULL, 2, os2, 1, p10, 200, 5);
    /* heavy duplicates in T (a tiny shape): the last stored wins, across rank boundaries too */
    static const int64_t S2[] = {2, 3};
    for (int mode = 0; mode < 4; mode += g_mode_step)
        run_sparsify(ctx, seed++, SPT_INT64, 2, S2, 60, mode, NULL, 1, os1, 1, p00, 6, 0);
    /* a scalar T (rank 0): dep_rank 0, nothing pinned */
    run_sparsify(ctx, seed++, SPT_INT64, 0, NULL, 5, 0, NULL, 1, os9, 0, NULL, 4, 2);
    /* the chunked exchange */
    spt_mpi_ctx_set_message_limit(ctx, 48);
    run_sparsify(ctx, seed++, SPT_COMPLEX128, 3, S, 150, 0, NULL, 1, os1, 1, p02, 25, 0);
    spt_mpi_ctx_set_message_limit(ctx, 0);

    /* errors, agreed on every rank */
    spt_tensor *full = random_tensor(3, SPT_INT64, 3, S, 30, 0);
    spt_dtensor *d = distribute(ctx, full, 0, NULL);
    spt_sparse_map *bad = random_map(5, 3, S, 1, os1, 1, p00, 10, 0, true),
                   *sm = random_map(6, 3, S, 1, os1, 1, p00, 10, 0, false);
    spt_tot *t = (spt_tot *)&t;
    int64_t b = 7, e = 7;
    CHECK_ST(SPT_ERANGE, spt_dtensor_sparsify(d, bad, 1, p00, os1, &b, &e, &t));
    CHECK(t == NULL && b == 0 && e == 0 && strstr(spt_last_error(), "is outside T's shape") != NULL);
    t = (spt_tot *)&t;
    CHECK_ST(SPT_EINVAL, spt_dtensor_sparsify(d, sm, 0, NULL, os1, NULL, NULL, &t)); /* ranks don't work out */
    CHECK(t == NULL && strstr(spt_last_error(), "ranks don't work out") != NULL);
    CHECK_ST(SPT_EINVAL, spt_dtensor_sparsify(d, g_rank == g_size - 1 ? NULL : sm, 1, p00, os1, NULL, NULL, &t));
    CHECK(t == NULL);
    CHECK_ST(SPT_OK, spt_dtensor_sparsify(d, sm, 1, p00, os1, NULL, NULL, &t));
    spt_tot *g = (spt_tot *)&g;
    CHECK_ST(SPT_EINVAL, spt_mpi_tot_gather(ctx, t, g_size, &g));
    CHECK(g == NULL);
    /* blocks out of rank order (every rank passes the same whole ToT) */
    spt_tot *whole = NULL;
    CHECK_ST(SPT_OK, spt_sparsify(full, sm, 1, p00, os1, &whole));
    CHECK_ST(g_size > 1 && spt_tot_count(whole) > 0 ? SPT_EINVAL : SPT_OK, spt_mpi_tot_gather(ctx, whole, 0, &g));
    spt_tot_free(g);
    spt_tot_free(whole);
    spt_tot_free(t);
    spt_dtensor_free(d);
    spt_tensor_free(full);
    full = random_tensor(3, SPT_STRING, 3, S, 30, 0);
    d = distribute(ctx, full, 0, NULL);
    CHECK_ST(SPT_EDTYPE, spt_dtensor_sparsify(d, sm, 1, p00, os1, NULL, NULL, &t));
    spt_dtensor_free(d);
    spt_tensor_free(full);
    spt_sparse_map_free(sm);
    spt_sparse_map_free(bad);
}

/* ---- dense T in row blocks, B in row blocks, add ---------------------------------------------------- */

/* Rows [lo, hi) of rank p when `rows` rows are cut by mode (as piece_range: uneven, all on rank 0, all
 * on the last rank, alternate ranks empty). */
static void row_block(int mode, int64_t rows, int p, int64_t *lo, int64_t *hi) {
    piece_range(mode, rows, p, g_size, lo, hi);
}

/* A dense array with about `density` of its elements non-zero (integer values; some -0.0 for floats). */
static spt_dense *random_dense_nd(uint64_t seed, spt_dtype dt, int64_t R, const int64_t *S, int density_pct) {
    spt_dense *d = NULL;
    if (spt_dense_new(dt, R, S, &d) != SPT_OK) return NULL;
    rng_state = seed;
    int64_t n = spt_dense_size(d);
    void *p = spt_dense_data_mut(d);
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = rnd();
        int64_t v = (int64_t)(h % 19) - 9;
        bool nz = (int)((h >> 20) % 100) < density_pct;
        if (!nz) v = 0;
        switch (dt) {
        case SPT_INT64: ((int64_t *)p)[i] = v; break;
        case SPT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
        case SPT_FLOAT64: ((double *)p)[i] = !nz && (h >> 40) % 7 == 0 ? -0.0 : (double)v; break;
        case SPT_COMPLEX128: ((double _Complex *)p)[i] = (double)v + (double)(v % 3) * _Complex_I; break;
        default: break;
        }
    }
    return d;
}

/* rows [lo, hi) of a dense array (dim 0) as a new dense array */
static spt_dense *dense_rows(const spt_dense *d, int64_t lo, int64_t hi) {
    int64_t R = spt_dense_rank(d), S[8];
    for (int64_t k = 0; k < R; k++) S[k] = spt_dense_shape(d)[k];
    int64_t inner = 1;
    for (int64_t k = 1; k < R; k++) inner *= S[k];
    S[0] = hi - lo;
    spt_dense *o = NULL;
    size_t es = spt_dtype_size(spt_dense_dtype(d));
    if (spt_dense_new_from(spt_dense_dtype(d), R, S, (const char *)spt_dense_data(d) + (size_t)(lo * inner) * es, &o) !=
        SPT_OK)
        return NULL;
    return o;
}

static void run_sparsify_dense(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t R, const int64_t *S, int dens,
                               int mode, int64_t NI, const int64_t *oshape, int64_t nmap, const int64_t *ind2mode,
                               int64_t npairs, int64_t nempty) {
    spt_dense *T = random_dense_nd(seed, dt, R, S, dens);
    spt_sparse_map *sm = random_map(seed * 31 + 7, R, S, NI, oshape, nmap, ind2mode, npairs, nempty, false);
    CHECK(T != NULL && sm != NULL);
    spt_tot *ref = NULL, *loc = NULL, *g = NULL;
    CHECK_ST(SPT_OK, spt_sparsify_dense(T, sm, nmap, ind2mode, oshape, &ref));
    int64_t lo, hi;
    row_block(mode, S[0], g_rank, &lo, &hi);
    spt_dense *blk = dense_rows(T, lo, hi);
    CHECK(blk != NULL);
    int64_t b = -1, e = -1;
    CHECK_ST(SPT_OK, spt_dtensor_sparsify_dense(ctx, blk, lo, sm, nmap, ind2mode, oshape, &b, &e, &loc));
    int root = (int)(seed % (uint64_t)g_size);
    CHECK_ST(SPT_OK, spt_mpi_tot_gather(ctx, loc, root, &g));
    if (g_rank == root) CHECK(g && ref && same_tot(g, ref));
    spt_tot_free(g);
    spt_tot_free(loc);
    spt_tot_free(ref);
    spt_dense_free(blk);
    spt_dense_free(T);
    spt_sparse_map_free(sm);
}

static void test_sparsify_dense(spt_mpi_ctx *ctx) {
    static const int64_t S[] = {6, 5, 4}, os1[] = {6}, os2[] = {3, 6}, os9[] = {9};
    static const int64_t p00[] = {0, 0}, p02[] = {0, 2}, p10[] = {1, 0};
    uint64_t seed = 7000;
    for (int mode = 0; mode < 4; mode += g_mode_step) {
        run_sparsify_dense(ctx, seed++, SPT_FLOAT64, 3, S, 40, mode, 1, os1, 1, p00, 30, 2);
        run_sparsify_dense(ctx, seed++, SPT_INT64, 3, S, 70, mode, 1, os1, 1, p02, 25, 0);
        run_sparsify_dense(ctx, seed++, SPT_COMPLEX128, 3, S, 30, mode, 2, os2, 1, p10, 40, 3);
        run_sparsify_dense(ctx, seed++, SPT_INT32, 3, S, 0, mode, 1, os9, 0, NULL, 35, 0); /* all zero */
        run_sparsify_dense(ctx, seed++, SPT_FLOAT64, 3, S, 100, mode, 1, os9, 0, NULL, 35, 1);
    }
    /* blocks that do not follow each other: agreed SPT_EINVAL */
    spt_dense *T = random_dense_nd(1, SPT_FLOAT64, 3, S, 50);
    spt_sparse_map *sm = random_map(2, 3, S, 1, os1, 1, p00, 10, 0, false);
    spt_dense *blk = dense_rows(T, 0, 1);
    spt_tot *t = (spt_tot *)&t;
    /* (one rank: a valid T of 1 row, which the map's keys read outside of) */
    CHECK_ST(g_size > 1 ? SPT_EINVAL : SPT_ERANGE,
             spt_dtensor_sparsify_dense(ctx, blk, 0, sm, 1, p00, os1, NULL, NULL, &t));
    CHECK(t == NULL);
    if (g_size > 1) CHECK(strstr(spt_last_error(), "must cover T's rows in order") != NULL);
    spt_dense_free(blk);
    spt_dense_free(T);
    spt_sparse_map_free(sm);
}

static void run_matmul_rows(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t m, int64_t k, int64_t nc, int64_t n,
                            int mode, int bmode, bool adj_a, bool adj_b, int root) {
    int64_t ashape[2] = {adj_a ? k : m, adj_a ? m : k};
    spt_tensor *A = random_tensor(seed, dt, 2, ashape, n, -7);
    spt_dense *B = random_dense(seed + 1, dt, adj_b ? nc : k, adj_b ? k : nc), *ref = NULL, *C = NULL;
    spt_dtensor *d = distribute(ctx, A, mode, NULL);
    int64_t lo, hi;
    row_block(bmode, spt_dense_shape(B)[0], g_rank, &lo, &hi);
    spt_dense *Bb = dense_rows(B, lo, hi);
    spt_mpi_ctx_reset_traffic(ctx);
    CHECK_ST(SPT_OK, spt_sparse_dense_matmul(A, B, adj_a, adj_b, &ref));
    CHECK_ST(SPT_OK, spt_dtensor_sparse_dense_matmul_rows(d, Bb, lo, adj_a, adj_b, root, &C));
    if (root == -1 || g_rank == root) {
        CHECK(C != NULL && ref != NULL);
        if (C && ref) {
            CHECK(spt_dense_shape(C)[0] == spt_dense_shape(ref)[0] && spt_dense_shape(C)[1] == spt_dense_shape(ref)[1]);
            CHECK(memcmp(spt_dense_data(C), spt_dense_data(ref), (size_t)spt_dense_size(C) * spt_dtype_size(dt)) == 0);
        }
    } else {
        CHECK(C == NULL);
    }
    spt_dense_free(C);
    spt_dense_free(ref);
    spt_dense_free(Bb);
    spt_dtensor_free(d);
    spt_dense_free(B);
    spt_tensor_free(A);
}

static void test_matmul_rows(spt_mpi_ctx *ctx) {
    uint64_t seed = 8000;
    for (int mode = 0; mode < 4; mode += g_mode_step)
        for (int adj = 0; adj < 4; adj++) {
            run_matmul_rows(ctx, seed++, SPT_FLOAT64, 7, 9, 3, 40, mode, (mode + adj) % 4, adj & 1, adj & 2,
                            mode % g_size);
            run_matmul_rows(ctx, seed++, SPT_COMPLEX128, 6, 4, 5, 30, mode, adj % 4, adj & 1, adj & 2, -1);
            run_matmul_rows(ctx, seed++, SPT_INT32, 2, 9, 4, 3, mode, 3, adj & 1, adj & 2, 0);    /* N < P possible */
            run_matmul_rows(ctx, seed++, SPT_FLOAT64, 5, 0, 3, 0, mode, 1, adj & 1, adj & 2, -1); /* k = 0 */
            run_matmul_rows(ctx, seed++, SPT_FLOAT64, 30, 200, 2, 25, mode, adj % 4, adj & 1, adj & 2,
                            0); /* few rows needed */
        }
    /* only the needed rows travel: A reads 3 distinct rows of a 1000-row B */
    static const int64_t as[] = {4, 1000};
    spt_tensor *A = NULL;
    CHECK_ST(SPT_OK, spt_tensor_new(SPT_FLOAT64, 2, as, 3, (const int64_t[]){0, 5, 1, 500, 3, 999},
                                    (const double[]){1, 2, 3}, NULL, &A));
    spt_dtensor *d = distribute(ctx, A, 0, NULL);
    spt_dense *B = random_dense(3, SPT_FLOAT64, 1000, 8), *C = NULL, *ref = NULL;
    int64_t lo, hi;
    row_block(0, 1000, g_rank, &lo, &hi);
    spt_dense *Bb = dense_rows(B, lo, hi);
    spt_mpi_ctx_reset_traffic(ctx);
    CHECK_ST(SPT_OK, spt_dtensor_sparse_dense_matmul_rows(d, Bb, lo, false, false, -1, &C));
    int64_t pay = 0, meta = 0;
    spt_mpi_ctx_traffic(ctx, &pay, &meta);
    /* at most the 3 row numbers and 3 rows of 8 doubles, plus the output windows (<= 4 rows) and the
     * broadcast of the 4x8 result, per rank */
    CHECK(pay <= 3 * 8 + 3 * 8 * 8 + 4 * 8 * 8 + (g_size - 1) * 4 * 8 * 8);
    CHECK_ST(SPT_OK, spt_sparse_dense_matmul(A, B, false, false, &ref));
    CHECK(C && ref && memcmp(spt_dense_data(C), spt_dense_data(ref), 4 * 8 * 8) == 0);
    spt_dense_free(C);
    /* blocks that leave a gap: agreed SPT_EINVAL */
    C = (spt_dense *)&C;
    CHECK_ST(SPT_EINVAL, spt_dtensor_sparse_dense_matmul_rows(d, Bb, lo + (g_rank == g_size - 1), false, false, 0, &C));
    CHECK(C == NULL && strstr(spt_last_error(), "must cover B's rows in order") != NULL);
    spt_dense_free(ref);
    spt_dense_free(Bb);
    spt_dense_free(B);
    spt_dtensor_free(d);
    spt_tensor_free(A);
}

static void run_add(spt_mpi_ctx *ctx, uint64_t seed, spt_dtype dt, int64_t R, const int64_t *S, int64_t na, int64_t nb,
                    int amode, int bmode, const int64_t *border, double thresh) {
    spt_tensor *A = random_tensor(seed, dt, R, S, na, -5), *B = random_tensor(seed + 1, dt, R, S, nb, -9), *ref = NULL;
    spt_dtensor *da = distribute(ctx, A, amode, NULL), *db = distribute(ctx, B, bmode, border), *r = NULL;
    CHECK_ST(SPT_OK, spt_add(A, B, thresh, &ref));
    CHECK_ST(SPT_OK, spt_dtensor_add(da, db, thresh, &r));
    if (r && ref) check_dtensor(r, ref, false, (int)(seed % (uint64_t)g_size));
    spt_dtensor_free(r);
    spt_dtensor_free(da);
    spt_dtensor_free(db);
    spt_tensor_free(ref);
    spt_tensor_free(A);
    spt_tensor_free(B);
}

static void test_add(spt_mpi_ctx *ctx) {
    static const int64_t S3[] = {5, 7, 3}, S2[] = {3, 2}, o[] = {2, 0, 1};
    uint64_t seed = 9000;
    for (int mode = 0; mode < 4; mode += g_mode_step)
        for (int64_t n = 0; n <= 120; n += 40) {
            run_add(ctx, seed++, SPT_INT64, 3, S3, n, 100 - n / 2, mode, (mode + 1) % 4, NULL, 0);
            run_add(ctx, seed++, SPT_FLOAT64, 3, S3, n + 3, n, mode, (mode + 2) % 4, o, 4.0); /* b sorted (2,0,1) */
            run_add(ctx, seed++, SPT_COMPLEX128, 3, S3, n, 7, 3, mode, NULL, 2.5);
            run_add(ctx, seed++, SPT_INT32, 2, S2, n + 10, n + 20, mode, 1, NULL, 0); /* heavy duplicates */
        }
    /* errors: shapes, dtype, a NULL operand on one rank (agreed) */
    static const int64_t Sb[] = {5, 7, 4};
    spt_tensor *A = random_tensor(1, SPT_INT64, 3, S3, 10, 0), *B = random_tensor(2, SPT_INT64, 3, Sb, 10, 0);
    spt_tensor *C = random_tensor(3, SPT_FLOAT64, 3, S3, 10, 0);
    spt_dtensor *da = distribute(ctx, A, 0, NULL), *db = distribute(ctx, B, 1, NULL), *dc = distribute(ctx, C, 2, NULL);
    spt_dtensor *r = (spt_dtensor *)&r;
    CHECK_ST(SPT_EINVAL, spt_dtensor_add(da, db, 0, &r));
    CHECK(r == NULL && strstr(spt_last_error(), "shapes do not match") != NULL);
    CHECK_ST(SPT_EDTYPE, spt_dtensor_add(da, dc, 0, &r));
    CHECK_ST(SPT_EINVAL, spt_dtensor_add(da, g_rank == g_size - 1 ? NULL : da, 0, &r));
    CHECK(r == NULL && strstr(spt_last_error(), "b is NULL") != NULL);
    spt_dtensor_free(da);
    spt_dtensor_free(db);
    spt_dtensor_free(dc);
    spt_tensor_free(A);
    spt_tensor_free(B);
    spt_tensor_free(C);
}

/* concat along a non-primary axis of larger inputs, some ranks without entries, one input empty */
static void test_concat_axes(spt_mpi_ctx *ctx) {
    static const int64_t S[] = {20, 9, 6};
    uint64_t seed = 9500;
    for (int64_t axis = 1; axis <= 2; axis++)
        for (int mode = 0; mode < 4; mode += g_mode_step) {
            spt_tensor *full[3] = {0}, *ref = NULL;
            spt_dtensor *d[3] = {0}, *r = NULL;
            for (int i = 0; i < 3; i++) {
                int64_t sh[3] = {S[0], S[1], S[2]};
                sh[axis] = 2 + i;
                full[i] = random_tensor(seed++, SPT_FLOAT64, 3, sh, i == 1 ? 0 : 300 + 50 * i, 10 * i);
                d[i] = distribute(ctx, full[i], (mode + i) % 4, NULL);
            }
            CHECK_ST(SPT_OK, spt_concat((const spt_tensor *const *)full, 3, axis, false, &ref));
            CHECK_ST(SPT_OK, spt_dtensor_concat((const spt_dtensor *const *)d, 3, axis, false, &r));
            if (r && ref) check_dtensor(r, ref, true, mode % g_size);
            spt_dtensor_free(r);
            spt_tensor_free(ref);
            for (int i = 0; i < 3; i++) {
                spt_dtensor_free(d[i]);
                spt_tensor_free(full[i]);
            }
        }
}

/* ---- parallel .tns read and ordered write ---------------------------------------------------------- */

static char g_dir[256];

static void write_text(const char *path, const char *text) {
    if (g_rank == 0) {
        FILE *f = fopen(path, "wb");
        fputs(text, f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static bool same_file(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) same = false;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* Read `path` distributed and serially; compare; write it back distributed and compare the bytes with
 * the serial writer's. */
static void run_tns(spt_mpi_ctx *ctx, const char *path, const spt_read_opts *opts) {
    spt_tensor *ref = NULL;
    spt_dtensor *d = NULL;
    spt_status sst = spt_read_tns(path, opts, &ref);
    char smsg[512];
    snprintf(smsg, sizeof smsg, "%s", spt_last_error());
    spt_status dst = spt_dtensor_read_tns(ctx, path, opts, &d);
    CHECK(sst == dst);
    if (sst != SPT_OK) {
        CHECK(d == NULL && strstr(spt_last_error(), smsg) != NULL);
        if (!strstr(spt_last_error(), smsg)) fprintf(stderr, "serial: %s\nmpi: %s\n", smsg, spt_last_error());
        spt_tensor_free(ref);
        return;
    }
    CHECK_ST(SPT_OK, spt_reorder(ref, NULL));
    if (d) {
        check_dtensor(d, ref, true, 0);
        char w1[300], w2[300];
        snprintf(w1, sizeof w1, "%s/mpi_out.tns", g_dir);
        snprintf(w2, sizeof w2, "%s/serial_out.tns", g_dir);
        CHECK_ST(SPT_OK, spt_dtensor_write_tns(d, w1));
        if (g_rank == 0) {
            CHECK_ST(SPT_OK, spt_write_tns(ref, w2));
            CHECK(same_file(w1, w2));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        /* the common output path: through a symlink to a 0600 file with a 250-byte name, the link
         * stays, the target gets the data and keeps its mode, no temporary or part file is left */
        char real[600], lnk[600], name[251];
        memset(name, 'r', 250);
        name[250] = 0;
        snprintf(real, sizeof real, "%s/%s", g_dir, name);
        snprintf(lnk, sizeof lnk, "%s/link.tns", g_dir);
        if (g_rank == 0) {
            unlink(lnk);
            FILE *f = fopen(real, "wb"); /* (write_text is collective) */
            CHECK(f != NULL);
            if (f) fclose(f);
            CHECK(chmod(real, 0600) == 0);
            CHECK(symlink(name, lnk) == 0);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_ST(SPT_OK, spt_dtensor_write_tns(d, lnk));
        MPI_Barrier(MPI_COMM_WORLD); /* every rank has removed its part file */
        if (g_rank == 0) {
            struct stat sb;
            CHECK(lstat(lnk, &sb) == 0 && S_ISLNK(sb.st_mode));
            CHECK(stat(real, &sb) == 0 && (sb.st_mode & 07777) == 0600);
            CHECK(same_file(real, w2));
            DIR *dp = opendir(g_dir);
            struct dirent *e;
            while (dp && (e = readdir(dp))) CHECK(strncmp(e->d_name, ".spt", 4) != 0);
            if (dp) closedir(dp);
            unlink(lnk);
            unlink(real);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    spt_dtensor_free(d);
    spt_tensor_free(ref);
}

static void test_tns(spt_mpi_ctx *ctx) {
    if (g_rank == 0) snprintf(g_dir, sizeof g_dir, "/tmp/spt_mpi_test_%d", (int)getpid());
    MPI_Bcast(g_dir, sizeof g_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (g_rank == 0) mkdir(g_dir, 0700);
    MPI_Barrier(MPI_COMM_WORLD);
    char path[300];
    snprintf(path, sizeof path, "%s/in.tns", g_dir);
    /* written by the serial writer (header comments), several sizes */
    static const int64_t s3[] = {7, 5, 9};
    for (int64_t n = 0; n < 200; n += 67) {
        spt_tensor *t = random_tensor(40 + (uint64_t)n, n % 2 ? SPT_FLOAT64 : SPT_INT64, 3, s3, n, -50);
        if (g_rank == 0) CHECK_ST(SPT_OK, spt_write_tns(t, path));
        MPI_Barrier(MPI_COMM_WORLD);
        run_tns(ctx, path, NULL);
        spt_tensor_free(t);
    }
    /* hand-written: no header, comments and blank lines, a float late in the file, CRLF */
    char text[8192];
    size_t k = 0;
    k += (size_t)snprintf(text + k, sizeof text - k, "# a comment\n\n");
    for (int i = 0; i < 150; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%d %d %d%s", 1 + (i * 7) % 13, 1 + (i * 3) % 4, i - 75,
                              i % 17 == 5   ? "\r\n"
                              : i % 23 == 0 ? "\n# mid comment\n\n"
                                            : "\n");
    write_text(path, text);
    run_tns(ctx, path, NULL);
    snprintf(text + k, sizeof text - k, "3 2 0.5\n");
    write_text(path, text);
    run_tns(ctx, path, NULL);
    spt_read_opts o = {.has_dtype = true, .dtype = SPT_INT32, .rank = 2, .shape = (const int64_t[]){20, 6}};
    run_tns(ctx, path, &o); /* 0.5 as int32: a parse error on the last line */
    text[k] = 0;
    run_tns(ctx, path, &o);
    /* errors: a bad line in the middle (the first bad line is reported with its line number) */
    char bad[8192];
    snprintf(bad, sizeof bad, "%.*sx 1 2\n%s1 2\n", (int)(k / 2), text, text + k / 2);
    write_text(path, bad);
    run_tns(ctx, path, NULL);
    /* comments only, an empty file, a missing file */
    write_text(path, "# dtype: float32\n# shape: 3 4\n");
    run_tns(ctx, path, NULL);
    write_text(path, "");
    run_tns(ctx, path, NULL);
    spt_dtensor *d = (spt_dtensor *)&d;
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.tns", g_dir);
    CHECK_ST(SPT_EIO, spt_dtensor_read_tns(ctx, missing, NULL, &d));
    CHECK(d == NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        CHECK(system(cmd) == 0);
    }
}

/* ---- allocation failures on one rank ----------------------------------------------------------------- */

static long a_live, a_count, a_fail_at = -1;
static void *t_malloc(size_t n) {
    if (a_fail_at >= 0 && a_count++ == a_fail_at) return NULL;
    void *p = malloc(n);
    if (p) a_live++;
    return p;
}
static void *t_realloc(void *p, size_t n) {
    if (a_fail_at >= 0 && a_count++ == a_fail_at) return NULL;
    void *q = realloc(p, n);
    if (q && !p) a_live++;
    return q;
}
static void t_free(void *p) {
    if (p) a_live--;
    free(p);
}

typedef spt_status (*op_fn)(spt_mpi_ctx *ctx, void *arg);

/* Run op with the k-th allocation of rank `victim` failing, k = 0, 1, ... until it succeeds: every
 * failing run must return SPT_ENOMEM on every rank and leak nothing. */
static void sweep(spt_mpi_ctx *ctx, op_fn op, void (*cleanup)(void *), void *arg, int victim) {
    long base = a_live, runs = 0;
    for (long k = 0;; k++) {
        a_count = 0;
        a_fail_at = g_rank == victim ? k : -1;
        spt_status st = op(ctx, arg);
        a_fail_at = -1;
        cleanup(arg);
        if (a_live != base) {
            CHECK(a_live == base);
            break;
        }
        if (st == SPT_OK) break;
        if (st != SPT_ENOMEM) {
            CHECK_ST(SPT_ENOMEM, st);
            break;
        }
        runs++;
        if (k > 100000) {
            CHECK(!"sweep does not terminate");
            break;
        }
    }
    CHECK(g_rank != victim || runs > 0);
}

struct sweep_arg {
    spt_tensor *piece;
    spt_dtensor *d;
    spt_tensor *g;
};
static spt_status op_from_local(spt_mpi_ctx *ctx, void *arg) {
    struct sweep_arg *a = arg;
    spt_status st = spt_dtensor_from_local(ctx, a->piece, NULL, &a->d);
    if (st == SPT_OK) st = spt_dtensor_reorder(a->d, (const int64_t[]){1, 0});
    if (st == SPT_OK) st = spt_dtensor_gather(a->d, 0, &a->g);
    return st;
}
static void cleanup_sweep(void *arg) {
    struct sweep_arg *a = arg;
    spt_dtensor_free(a->d);
    spt_tensor_free(a->g);
    a->d = NULL;
    a->g = NULL;
}

struct sweep_tot {
    spt_dtensor *d;
    spt_sparse_map *sm;
    spt_tot *loc, *g;
};
static const int64_t sw_os[] = {6}, sw_pin[] = {0, 0};
static spt_status op_sparsify(spt_mpi_ctx *ctx, void *arg) {
    struct sweep_tot *a = arg;
    spt_status st = spt_dtensor_sparsify(a->d, a->sm, 1, sw_pin, sw_os, NULL, NULL, &a->loc);
    if (st == SPT_OK) st = spt_mpi_tot_gather(ctx, a->loc, g_size - 1, &a->g);
    return st;
}
static void cleanup_sparsify(void *arg) {
    struct sweep_tot *a = arg;
    spt_tot_free(a->loc);
    spt_tot_free(a->g);
    a->loc = NULL;
    a->g = NULL;
}

/* ---- shapes of any volume ------------------------------------------------------------------------ */

/* concat of n_in inputs of shape S (the axis dim varied) along axis, against the serial concat */
static void run_concat_shape(spt_mpi_ctx *ctx, uint64_t seed, int64_t R, const int64_t *S, int64_t n_in, int64_t axis,
                             int64_t n) {
    spt_tensor *full[3] = {0}, *ref = NULL;
    spt_dtensor *d[3] = {0}, *r = NULL;
    for (int64_t i = 0; i < n_in; i++) {
        int64_t sh[64];
        for (int64_t k = 0; k < R; k++) sh[k] = S[k];
        sh[axis] = S[axis] / (i + 4) > 0 ? S[axis] / (i + 4) : 1; /* the sum fits int64 */
        full[i] = random_tensor(seed + (uint64_t)i, SPT_FLOAT64, R, sh, i == 1 ? 0 : n, 100 * i);
        d[i] = distribute(ctx, full[i], (int)((seed + (uint64_t)i) % 4), NULL);
    }
    CHECK_ST(SPT_OK, spt_concat((const spt_tensor *const *)full, n_in, axis, false, &ref));
    CHECK_ST(SPT_OK, spt_dtensor_concat((const spt_dtensor *const *)d, n_in, axis, false, &r));
    if (r && ref) check_dtensor(r, ref, true, 0);
    spt_dtensor_free(r);
    spt_tensor_free(ref);
    for (int64_t i = 0; i < n_in; i++) {
        spt_dtensor_free(d[i]);
        spt_tensor_free(full[i]);
    }
}

/* The distributed ops on shapes whose volume does not fit 64 bits (FROSTT's nell-1, a rank-6 shape of
 * 2^62 per dim) and on both sides of the key engine's boundaries (sum of bit widths 64 | 65, 128 | 129),
 * byte for byte against the serial library, every way of cutting the entries among ranks (some ranks
 * empty), clustered indices (repeated rows split between ranks, the first and last index of each dim). */
static void test_any_volume(spt_mpi_ctx *ctx) {
    const int64_t T62 = (int64_t)1 << 62, T32 = (int64_t)1 << 32, M63 = INT64_MAX;
    static const int64_t nell1[] = {2902330, 2143368, 25495389};
    const int64_t r6[] = {T62, T62, T62, T62, T62, T62};
    const int64_t b64[] = {T32, T32}, b65[] = {T32, T32 + 1}, b63[] = {T32 / 2, T32};
    const int64_t b128[] = {M63, M63, 4}, b129[] = {M63, M63, 5};
    struct {
        int64_t R;
        const int64_t *S;
    } shapes[] = {{3, nell1}, {6, r6}, {2, b64}, {2, b65}, {2, b63}, {3, b128}, {3, b129}};
    static const int64_t o3[] = {2, 0, 1}, o6[] = {5, 3, 1, 0, 2, 4}, o2[] = {1, 0};
    static const int64_t ax1[] = {1}, ax02[] = {0, 2};
    uint64_t seed = 20000;
    g_clustered = true;
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const int64_t R = shapes[k].R, *S = shapes[k].S;
        const int64_t *o = R == 3 ? o3 : R == 6 ? o6 : o2;
        for (int mode = 0; mode < 4; mode += g_mode_step) {
            run_from_local(ctx, seed++, SPT_FLOAT64, R, S, mode == 3 ? 3 : 157, mode, NULL);
            run_from_local(ctx, seed++, SPT_INT32, R, S, 211, mode, o);
            run_reduce(ctx, seed++, SPT_INT64, R, S, 190, mode, ax1, 1, false);
            run_reduce(ctx, seed++, SPT_FLOAT64, R, S, 120, mode, R > 2 ? ax02 : ax1, R > 2 ? 2 : 1, true);
            run_add(ctx, seed++, SPT_INT64, R, S, 90, 140, mode, (mode + 1) % 4, NULL, 0);
            run_add(ctx, seed++, SPT_FLOAT64, R, S, 60, 30, mode, (mode + 2) % 4, o, 4.0);
        }
        run_from_local(ctx, seed++, SPT_STRING, R, S, 77, 0, o);
        run_concat_shape(ctx, seed++, R, S, 3, R - 1, 80);
        run_concat_shape(ctx, seed++, R, S, 2, 0, 80);
        /* the packed exchange (every MPI call at most 40 bytes): strings, sums and numbers */
        spt_mpi_ctx_set_message_limit(ctx, 40);
        run_from_local(ctx, seed++, SPT_INT64, R, S, 101, 0, o);
        run_reduce(ctx, seed++, SPT_INT64, R, S, 140, 2, ax1, 1, false);
        spt_mpi_ctx_set_message_limit(ctx, 0);
    }
    /* rank 64, every dim 2^63-1 (the widest key: 64 words) */
    int64_t r64[64], o64[64];
    for (int k = 0; k < 64; k++) {
        r64[k] = M63;
        o64[k] = (k * 37) % 64;
    }
    for (int mode = 0; mode < 4; mode += g_mode_step) {
        run_from_local(ctx, seed++, SPT_FLOAT64, 64, r64, 60, mode, o64);
        run_add(ctx, seed++, SPT_INT64, 64, r64, 40, 50, mode, (mode + 3) % 4, NULL, 0);
    }
    run_concat_shape(ctx, seed++, 64, r64, 2, 63, 30);
    /* the .tns reader and writer on nell-1's and the rank-6 shape (header with the shape) */
    char path[300];
    if (g_rank == 0) mkdir(g_dir, 0700); /* (test_tns removed it) */
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/big.tns", g_dir);
    for (size_t k = 0; k < 2; k++) {
        spt_tensor *t = random_tensor(seed++, SPT_FLOAT64, shapes[k].R, shapes[k].S, 150, -7);
        if (g_rank == 0) CHECK_ST(SPT_OK, spt_write_tns(t, path));
        MPI_Barrier(MPI_COMM_WORLD);
        run_tns(ctx, path, NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        spt_tensor_free(t);
    }
    if (g_rank == 0) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        CHECK(system(cmd) == 0);
    }
    g_clustered = false;
}

/* ---- the MSD radix sort (src/mpi/sort.c) ----------------------------------------------------------- */

/* Payload bytes this rank sent in the calls since the last reset. */
static int64_t sent_payload(const spt_mpi_ctx *ctx) {
    int64_t pay = 0, meta = 0;
    spt_mpi_ctx_traffic(ctx, &pay, &meta);
    return pay;
}

/* Every order of a rank-3 tensor: from_local by each order o, then reorder through the other five, each
 * result against the serial reorder of the whole tensor (byte for byte, balanced). */
static void run_all_orders(spt_mpi_ctx *ctx, const spt_tensor *full, int mode) {
    static const int64_t ords[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int64_t lo, hi;
    piece_range(mode, spt_tensor_nnz(full), g_rank, g_size, &lo, &hi);
    spt_tensor *piece = slice_entries(full, lo, hi);
    CHECK(piece != NULL);
    for (int a = 0; a < 6 && piece; a += g_mode_step == 1 ? 1 : 5) { /* --small: 2 starting orders */
        spt_tensor *ref = NULL;
        spt_dtensor *d = NULL;
        CHECK_ST(SPT_OK, spt_reordered(full, ords[a], &ref));
        CHECK_ST(SPT_OK, spt_dtensor_from_local(ctx, piece, ords[a], &d));
        if (d && ref) check_dtensor(d, ref, true, a % g_size);
        for (int k = 1; k < 6 && d; k += g_mode_step == 1 ? 1 : 2) {
            const int64_t *o = ords[(a + k) % 6];
            spt_tensor *ref2 = NULL;
            CHECK_ST(SPT_OK, spt_reordered(full, o, &ref2));
            CHECK_ST(SPT_OK, spt_dtensor_reorder(d, o));
            if (ref2) check_dtensor(d, ref2, true, k % g_size);
            spt_tensor_free(ref2);
        }
        spt_dtensor_free(d);
        spt_tensor_free(ref);
    }
    spt_tensor_free(piece);
}

/* from_local of `full` held entirely by rank 0 (the others pass empty pieces): the result against the
 * serial sort, and the payload bytes rank 0 sent. Returns them (0 elsewhere). */
static int64_t from_rank0(spt_mpi_ctx *ctx, const spt_tensor *full, const int64_t *order) {
    int64_t n = spt_tensor_nnz(full);
    spt_tensor *piece = slice_entries(full, 0, g_rank == 0 ? n : 0), *ref = NULL;
    spt_dtensor *d = NULL;
    CHECK_ST(SPT_OK, spt_reordered(full, order, &ref));
    spt_mpi_ctx_reset_traffic(ctx);
    CHECK_ST(SPT_OK, spt_dtensor_from_local(ctx, piece, order, &d));
    int64_t sent = sent_payload(ctx);
    if (d && ref) check_dtensor(d, ref, true, 0);
    spt_dtensor_free(d);
    spt_tensor_free(ref);
    spt_tensor_free(piece);
    return g_rank == 0 ? sent : 0;
}

static void test_msd(spt_mpi_ctx *ctx) {
    static const int64_t big[] = {1000, 1000, 1000}, small[] = {50, 40, 30}, tiny[] = {3, 2, 2};
    const int64_t T32 = (int64_t)1 << 32, b64[] = {T32, T32}, b65[] = {T32, T32 + 1};
    uint64_t seed = 30000;
    /* every order, every way of cutting the pieces (ranks with no entries among them); duplicates spread
     * over ranks (clustered indices: repeated rows and the extremes of every dim; tiny: 12 keys, so
     * nothing below the bucket digit) */
    g_clustered = true;
    for (int mode = 0; mode < 4; mode += g_mode_step) {
        spt_tensor *a = random_tensor(seed++, SPT_FLOAT64, 3, small, 3000, 1);
        spt_tensor *b = random_tensor(seed++, SPT_INT32, 3, tiny, 700, -300);
        spt_tensor *c = random_tensor(seed++, SPT_INT64, 3, big, 2500, 5);
        run_all_orders(ctx, a, mode);
        run_all_orders(ctx, b, mode);
        run_all_orders(ctx, c, mode);
        spt_tensor_free(a);
        spt_tensor_free(b);
        spt_tensor_free(c);
    }
    g_clustered = false;
    /* values of every width the path carries (zero-extended to 8 bytes) and those it leaves to the
     * sample sort (16-byte complex, strings) */
    static const spt_dtype dts[] = {SPT_BOOL,   SPT_INT8,      SPT_UINT16,     SPT_INT32, SPT_FLOAT32,
                                    SPT_UINT64, SPT_COMPLEX64, SPT_COMPLEX128, SPT_STRING};
    static const int64_t o[] = {1, 2, 0};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int mode = 0; mode < 4; mode += 3) run_from_local(ctx, seed++, dts[k], 3, small, 900, mode, o);
    /* a reorder whose input is not balanced (reduce_sum's ranges follow its keys): a fresh result */
    {
        spt_tensor *full = random_tensor(seed++, SPT_INT64, 3, small, 4000, 1), *red = NULL, *ref = NULL;
        static const int64_t ax[] = {1}, o2[] = {1, 0};
        spt_dtensor *d = distribute(ctx, full, 0, NULL), *r = NULL;
        CHECK_ST(SPT_OK, spt_reduce_sum_sparse(full, ax, 1, false, &red));
        CHECK_ST(SPT_OK, spt_dtensor_reduce_sum(d, ax, 1, false, &r));
        CHECK_ST(SPT_OK, spt_reordered(red, o2, &ref));
        CHECK_ST(SPT_OK, spt_dtensor_reorder(r, o2));
        if (r && ref) check_dtensor(r, ref, true, 0);
        spt_dtensor_free(r);
        spt_dtensor_free(d);
        spt_tensor_free(ref);
        spt_tensor_free(red);
        spt_tensor_free(full);
    }
    /* the path taken, seen in the bytes rank 0 sends when it holds everything: the MSD sort moves 16
     * bytes per entry (key and payload) plus at most the bucket each boundary shares; the sample sort
     * moves index rows and values, 8 r + 8 bytes, for exactly the entries of the other ranks' blocks */
    const int64_t N = 6000, others = N - (N / g_size + (N % g_size > 0));
    {
        spt_tensor *full = random_tensor(seed++, SPT_FLOAT64, 3, big, N, 1);
        int64_t sent = from_rank0(ctx, full, NULL);
        if (g_rank == 0 && g_size > 1) CHECK(sent >= 16 * others && sent <= 16 * others + 16 * 64 * (g_size - 1));
        spt_tensor_free(full);
    }
    /* skewed: every entry in one top-digit bucket (indices 0 and 7 in the first two dims): the sample
     * sort (int32 values: 3 x 8 + 4 bytes an entry) */
    {
        spt_tensor *full = random_tensor(seed++, SPT_INT32, 3, big, N, 1);
        int64_t *ix = full ? spt_tensor_indices_mut(full) : NULL;
        for (int64_t i = 0; ix && i < N; i++) {
            ix[3 * i] = 0;
            ix[3 * i + 1] = 7;
            ix[3 * i + 2] = i % 5 == 0 ? 999 : ix[3 * i + 2];
        }
        int64_t sent = from_rank0(ctx, full, NULL);
        if (g_rank == 0 && g_size > 1) CHECK(sent == 28 * others);
        /* and every piece cut, every order */
        for (int mode = 0; mode < 4; mode += g_mode_step) run_all_orders(ctx, full, mode);
        spt_tensor_free(full);
    }
    /* the 64-bit boundary: two dims of 2^32 pack into exactly 64 bits (the MSD sort), 2^32 + 1 does not */
    {
        spt_tensor *f64 = random_tensor(seed++, SPT_FLOAT64, 2, b64, N, 1);
        spt_tensor *f65 = random_tensor(seed++, SPT_FLOAT64, 2, b65, N, 1);
        static const int64_t rev[] = {1, 0};
        int64_t s64 = from_rank0(ctx, f64, rev), s65 = from_rank0(ctx, f65, rev);
        if (g_rank == 0 && g_size > 1) {
            CHECK(s64 >= 16 * others && s64 <= 16 * others + 16 * 64 * (g_size - 1));
            CHECK(s65 == 24 * others);
        }
        for (int mode = 0; mode < 4; mode += g_mode_step) {
            run_from_local(ctx, seed++, SPT_FLOAT64, 2, b64, 500, mode, rev);
            run_from_local(ctx, seed++, SPT_INT32, 2, b65, 500, mode, rev);
        }
        spt_tensor_free(f64);
        spt_tensor_free(f65);
    }
    /* rank 1 and rank 4 (the decoders' general loops) */
    {
        static const int64_t s1[] = {100000}, s4[] = {7, 5, 3, 9}, o4[] = {3, 1, 0, 2};
        for (int mode = 0; mode < 4; mode += g_mode_step) {
            run_from_local(ctx, seed++, SPT_FLOAT64, 1, s1, 2000, mode, NULL);
            run_from_local(ctx, seed++, SPT_INT32, 4, s4, 1500, mode, o4);
        }
    }
    /* large enough for two threads per rank in the count, the scatter and the bucket sorts */
    {
        int th = spt_get_num_threads();
        spt_set_num_threads(2);
        g_clustered = true;
        run_from_local(ctx, seed++, SPT_FLOAT64, 3, small, 150000, 0, o);
        g_clustered = false;
        run_from_local(ctx, seed++, SPT_INT32, 3, big, 150000, 3, NULL);
        spt_set_num_threads(th);
    }
    /* the chunked transfer (every MPI call at most 40 bytes) */
    spt_mpi_ctx_set_message_limit(ctx, 40);
    g_clustered = true;
    for (int mode = 0; mode < 4; mode += g_mode_step) run_from_local(ctx, seed++, SPT_FLOAT64, 3, small, 800, mode, o);
    g_clustered = false;
    spt_mpi_ctx_set_message_limit(ctx, 0);
}

/* The MSD path under failing allocations: from_local, the in-place reorder (on failure dt must still
 * hold the row-major result), the gather. */
static spt_tensor *g_sweep_ref;
static spt_status op_msd(spt_mpi_ctx *ctx, void *arg) {
    struct sweep_arg *a = arg;
    spt_status st = spt_dtensor_from_local(ctx, a->piece, NULL, &a->d);
    if (st == SPT_OK) {
        st = spt_dtensor_reorder(a->d, (const int64_t[]){2, 0, 1});
        if (st != SPT_OK) {
            long saved = a_fail_at;
            a_fail_at = -1;
            const spt_tensor *l = spt_dtensor_local(a->d);
            CHECK(spt_tensor_order(l)[0] == 0 && same_range(l, g_sweep_ref, spt_dtensor_offset(a->d, g_rank)));
            a_fail_at = saved;
        }
    }
    if (st == SPT_OK) st = spt_dtensor_gather(a->d, 0, &a->g);
    return st;
}

/* dist reduce_sum with the merge into the partial sums (its scratch and its growth by realloc failing
 * on one rank): on success, against the serial reduce. */
struct sweep_red {
    spt_dtensor *d, *r;
};
static spt_status op_reduce(spt_mpi_ctx *ctx, void *arg) {
    (void)ctx;
    struct sweep_red *a = arg;
    spt_status st = spt_dtensor_reduce_sum(a->d, (const int64_t[]){1}, 1, false, &a->r);
    if (st == SPT_OK) {
        long saved = a_fail_at;
        a_fail_at = -1;
        check_dtensor(a->r, g_sweep_ref, false, 0);
        a_fail_at = saved;
    }
    return st;
}
static void cleanup_reduce(void *arg) {
    struct sweep_red *a = arg;
    spt_dtensor_free(a->r);
    a->r = NULL;
}

struct sweep_prod {
    spt_dtensor *a, *b, *c;
    const spt_dense *f[3];
    spt_dense *d, *e[2];
    const spt_dense *fb[3]; /* this rank's row blocks of f, from rows beg */
    int64_t beg[3];
};
static spt_status op_spgemm(spt_mpi_ctx *ctx, void *arg) {
    struct sweep_prod *p = arg;
    (void)ctx;
    spt_status st = spt_dtensor_sparse_sparse_matmul(p->a, p->b, false, true, false, &p->c);
    if (st == SPT_OK) st = spt_dtensor_mttkrp(p->a, p->f, 3, 1, -1, &p->d);
    for (int how = 0; how < 2 && st == SPT_OK; how++)
        st = spt_dtensor_mttkrp_rows(p->a, p->fb, p->beg, 3, 0, how ? SPT_MPI_FACTORS_REPLICATE : SPT_MPI_FACTORS_FETCH,
                                     -1, &p->e[how], NULL);
    return st;
}
static void cleanup_prod(void *arg) {
    struct sweep_prod *p = arg;
    spt_dtensor_free(p->c);
    spt_dense_free(p->d);
    spt_dense_free(p->e[0]);
    spt_dense_free(p->e[1]);
    p->c = NULL;
    p->d = p->e[0] = p->e[1] = NULL;
}

/* The MSD sort's second level, forced at small P by capping the top digit at 1-3 bits (2-8 buckets, as
 * coarse against P = 2..8 as 2^11 buckets are against P ~ 10^3-10^4): the result identical to the
 * serial sort, exactly balanced, and the path taken the MSD sort's second level (16 bytes an entry). */
static void test_msd_two_level(spt_mpi_ctx *ctx) {
    static const int64_t big[] = {1000, 1000, 1000}, small[] = {50, 40, 30};
    uint64_t seed = 31000;
    const int64_t N = 6000, others = N - (N / g_size + (N % g_size > 0));
    for (int cap = 1; cap <= 3; cap++) {
        spt__msd_test_cap(cap);
        spt_tensor *full = random_tensor(seed++, SPT_FLOAT64, 3, big, N, 1);
        int64_t sent = from_rank0(ctx, full, NULL);
        const int levels = spt__msd_test_levels();
        CHECK(g_size == 1 || levels == 2);
        if (g_rank == 0 && g_size > 1) CHECK(sent >= 16 * others && sent <= 16 * others + 16 * 2 * N / 32 * g_size);
        /* every order and piece cut (duplicates: clustered indices), and the other widths of value */
        for (int mode = 0; mode < 4; mode += g_mode_step) run_all_orders(ctx, full, mode);
        g_clustered = true;
        spt_tensor *dup = random_tensor(seed++, SPT_INT32, 3, small, 3000, -100);
        g_clustered = false;
        for (int mode = 0; mode < 4; mode += g_mode_step) run_all_orders(ctx, dup, mode);
        static const int64_t o[] = {2, 0, 1};
        run_from_local(ctx, seed++, SPT_INT8, 3, small, 900, 0, o);
        run_from_local(ctx, seed++, SPT_UINT64, 3, big, 1500, 3, NULL);
        spt_tensor_free(dup);
        spt_tensor_free(full);
    }
    /* one level suffices at this P with 8 buckets and 2 ranks, and no cap: one level */
    spt__msd_test_cap(0);
    spt_tensor *full = random_tensor(seed++, SPT_FLOAT64, 3, big, N, 1);
    from_rank0(ctx, full, NULL);
    CHECK(g_size == 1 || spt__msd_test_levels() == 1);
    spt_tensor_free(full);
}

static void test_alloc_sweep(spt_mpi_ctx *ctx) {
    static const int64_t s2[] = {9, 8}, s3[] = {40, 30, 20};
    struct sweep_arg a = {0};
    for (int cap = 0; cap <= 1; cap++) { /* one level; two (the top digit capped at 1 bit, 400 per rank) */
        const int64_t per = cap ? 400 : 60;
        spt_tensor *full = random_tensor(88, SPT_FLOAT64, 3, s3, per * g_size, 1);
        a.piece = slice_entries(full, per * g_rank, per * g_rank + per);
        CHECK_ST(SPT_OK, spt_reordered(full, NULL, &g_sweep_ref));
        spt__msd_test_cap(cap);
        spt_dtensor *probe = NULL;
        CHECK_ST(SPT_OK, spt_dtensor_from_local(ctx, a.piece, NULL, &probe));
        CHECK(g_size == 1 || spt__msd_test_levels() == cap + 1);
        spt_dtensor_free(probe);
        spt_set_allocator(t_malloc, t_realloc, t_free);
        for (int victim = 0; victim < g_size; victim++) sweep(ctx, op_msd, cleanup_sweep, &a, victim);
        spt__msd_test_cap(0);
        spt_set_allocator(NULL, NULL, NULL);
        spt_tensor_free(a.piece);
        spt_tensor_free(g_sweep_ref);
        spt_tensor_free(full);
        a.piece = NULL;
    }
    {
        static const int64_t sr[] = {20, 4, 200};
        spt_tensor *full = random_tensor(89, SPT_INT64, 3, sr, 1000, 1);
        struct sweep_red b = {distribute(ctx, full, 0, NULL), NULL};
        CHECK_ST(SPT_OK, spt_reduce_sum_sparse(full, (const int64_t[]){1}, 1, false, &g_sweep_ref));
        spt_set_allocator(t_malloc, t_realloc, t_free);
        for (int victim = 0; victim < g_size; victim++) sweep(ctx, op_reduce, cleanup_reduce, &b, victim);
        spt_set_allocator(NULL, NULL, NULL);
        spt_dtensor_free(b.d);
        spt_tensor_free(g_sweep_ref);
        spt_tensor_free(full);
        g_sweep_ref = NULL;
    }
    a.piece = random_tensor(77 + (uint64_t)g_rank, SPT_STRING, 2, s2, 20 + g_rank, 1);
    spt_set_allocator(t_malloc, t_realloc, t_free);
    for (int victim = 0; victim < g_size; victim++) sweep(ctx, op_from_local, cleanup_sweep, &a, victim);
    spt_set_allocator(NULL, NULL, NULL);
    spt_tensor_free(a.piece);
    /* sparsify and the gather of its blocks */
    static const int64_t S[] = {6, 5, 4};
    struct sweep_tot b = {0};
    spt_tensor *full = random_tensor(91, SPT_INT64, 3, S, 80, 1);
    b.d = distribute(ctx, full, 0, NULL);
    b.sm = random_map(92, 3, S, 1, sw_os, 1, sw_pin, 30, 1, false);
    spt_set_allocator(t_malloc, t_realloc, t_free);
    for (int victim = 0; victim < g_size; victim++) sweep(ctx, op_sparsify, cleanup_sparsify, &b, victim);
    spt_set_allocator(NULL, NULL, NULL);
    spt_sparse_map_free(b.sm);
    spt_dtensor_free(b.d);
    spt_tensor_free(full);
    /* the sparse x sparse product (batched, B read transposed) and MTTKRP */
    static const int64_t sp[] = {3, 6, 5};
    spt_tensor *pa = random_tensor(93, SPT_FLOAT64, 3, sp, 70, 1), *pb = random_tensor(94, SPT_FLOAT64, 3, sp, 60, 1);
    spt_dense *pf[3] = {random_dense(95, SPT_FLOAT64, 3, 2), random_dense(96, SPT_FLOAT64, 6, 2),
                        random_dense(97, SPT_FLOAT64, 5, 2)};
    struct sweep_prod c = {distribute(ctx, pa, 0, NULL),
                           distribute(ctx, pb, 3, (const int64_t[]){2, 1, 0}),
                           NULL,
                           {pf[0], pf[1], pf[2]},
                           NULL,
                           {NULL, NULL},
                           {NULL, NULL, NULL},
                           {0, 0, 0}};
    spt_dense *pfb[3];
    for (int m = 0; m < 3; m++) c.fb[m] = pfb[m] = factor_block(pf[m], &c.beg[m]);
    spt_set_allocator(t_malloc, t_realloc, t_free);
    for (int victim = 0; victim < g_size; victim++) sweep(ctx, op_spgemm, cleanup_prod, &c, victim);
    spt_set_allocator(NULL, NULL, NULL);
    for (int m = 0; m < 3; m++) {
        spt_dense_free(pf[m]);
        spt_dense_free(pfb[m]);
    }
    spt_dtensor_free(c.a);
    spt_dtensor_free(c.b);
    spt_tensor_free(pa);
    spt_tensor_free(pb);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    spt_mpi_ctx *ctx = NULL;
    CHECK_ST(SPT_OK, spt_mpi_ctx_new(MPI_COMM_WORLD, &ctx));
    /* --small (the runs at 8 and 16 ranks): every op once over, without the allocation sweeps and the
     * long loops of shapes and orders */
    bool small = argc > 1 && strcmp(argv[1], "--small") == 0;
    if (small) g_mode_step = 3;
    static const struct {
        const char *name;
        void (*fn)(spt_mpi_ctx *);
        bool small;
    } tests[] = {
        {"redistribute", test_redistribute, true},
        {"scatter", test_scatter, true},
        {"errors", test_errors, true},
        {"reduce", test_reduce, false},
        {"reduce_inplace", test_reduce_inplace, true},
        {"sort_donor", test_sort_donor, true},
        {"concat", test_concat, false},
        {"matmul", test_matmul, true},
        {"spgemm", test_spgemm, true},
        {"mttkrp", test_mttkrp, true},
        {"mttkrp_rows", test_mttkrp_rows, true},
        {"sparsify", test_sparsify, false},
        {"sparsify_dense", test_sparsify_dense, false},
        {"matmul_rows", test_matmul_rows, true},
        {"add", test_add, true},
        {"concat_axes", test_concat_axes, true},
        {"tns", test_tns, true},
        {"any_volume", test_any_volume, false},
        {"msd", test_msd, true},
        {"msd_two_level", test_msd_two_level, true},
        {"alloc_sweep", test_alloc_sweep, false},
    };
    const bool times = getenv("SPT_MPI_TEST_TIMES") != NULL;
    for (size_t i = 0; ctx && i < sizeof tests / sizeof *tests; i++) {
        if (small && !tests[i].small) continue;
        double t0 = MPI_Wtime();
        tests[i].fn(ctx);
        if (times && g_rank == 0) printf("  %-16s %.2f s\n", tests[i].name, MPI_Wtime() - t0);
    }
    spt_mpi_ctx_free(ctx);
    /* contexts left live (two, one with a dtensor made and freed) are freed by MPI_Finalize: spt's
     * allocations, counted, are all returned */
    spt_set_allocator(t_malloc, t_realloc, t_free);
    const long base = a_live;
    spt_mpi_ctx *left[2] = {NULL, NULL};
    CHECK_ST(SPT_OK, spt_mpi_ctx_new(MPI_COMM_WORLD, &left[0]));
    CHECK_ST(SPT_OK, spt_mpi_ctx_new(MPI_COMM_WORLD, &left[1]));
    spt_tensor *one = NULL;
    spt_dtensor *dleft = NULL;
    CHECK_ST(SPT_OK, spt_tensor_new(SPT_FLOAT64, 1, (const int64_t[]){4}, 1, (const int64_t[]){g_rank % 4},
                                    (const double[]){1.0}, NULL, &one));
    CHECK_ST(SPT_OK, spt_dtensor_from_local(left[1], one, NULL, &dleft));
    spt_dtensor_free(dleft);
    spt_tensor_free(one);
    CHECK(a_live > base);
    long tot[2] = {g_checks, g_fails}, all[2] = {0, 0};
    MPI_Allreduce(tot, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (a_live != base) {
        fprintf(stderr, "[rank %d/%d] %ld allocations of spt left after MPI_Finalize\n", g_rank, g_size, a_live - base);
        all[1]++;
    }
    if (g_rank == 0)
        printf("mpi_test at np=%d%s: %ld checks, %ld failed\n", g_size, small ? " (small)" : "", all[0], all[1]);
    return all[1] ? 1 : 0;
}
