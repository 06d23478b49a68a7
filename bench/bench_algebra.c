/* SPDX-License-Identifier: Apache-2.0 */
/* bench_algebra.c -- time spt's sparse algebra ops on fixed-seed inputs, 1 and 2 threads.
 *
 * Build (after `make`), from the repository root:
 *   cc -O2 -fopenmp -Iinclude bench/bench_algebra.c build/libspt.a -lm -o build/bench_algebra
 * With SuiteSparse:GraphBLAS (Debian libgraphblas-dev) as the peer for the two SpGEMM workloads:
 *   cc -O2 -fopenmp -DSPT_BENCH_GRAPHBLAS -Iinclude bench/bench_algebra.c build/libspt.a -lgraphblas -lm \
 *      -o build/bench_algebra
 * Run:  ./build/bench_algebra [workload ...]   (default: all; names below) [--reps N] [--dump DIR [--dump-only]]
 *
 * Workloads (values float64 in [0, 1), indices int64):
 *   spgemm_rand   A x B, A and B random [10^5 x 10^5] with 10^6 distinct entries each (row-major)
 *   spgemm_aat    A x A^T, A [10^5 x 10^5] with 10^6 entries whose rows follow a power law (row
 *                 floor(10^5 u^4): a few rows hold ~10^4 entries, most a handful) and uniform columns
 *   mttkrp        MTTKRP, mode 0, of a random [10^4]^3 tensor with 10^7 entries, rank-16 factors
 *   bmm           64 sparse [1000 x 1000] with 10^4 entries each (rank 3, [64,1000,1000]) x a dense
 *                 [1000 x 64] shared by the batch
 * Each at 1 and 2 threads: one warm-up, then N timed runs (default 5); with GraphBLAS, spt and GrB_mxm
 * alternate run by run (so that a change in the machine's load hits both alike). The median, min and
 * max wall seconds and the median CPU seconds of the process (all threads) are printed, with
 * /proc/loadavg before and after. `--dump DIR` writes the inputs as .npy coordinate arrays
 * (DIR/<name>_{i0,i1,..,val,shape}.npy) for the Python peers (bench/bench_algebra.py); `--dump-only`
 * stops there. */
#include "spt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef SPT_BENCH_GRAPHBLAS
#include <GraphBLAS.h>
#endif

static uint64_t mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double unit(uint64_t seed, uint64_t i) { return (double)(mix(seed, i) >> 11) * (1.0 / 9007199254740992.0); }

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* n distinct entries in row-major order spread evenly over the volume, reordered (records the flags). */
static spt_tensor *canonical(uint64_t seed, int64_t r, const int64_t *shape, int64_t n) {
    spt_tensor *t;
    if (spt_tensor_alloc(SPT_FLOAT64, r, shape, n, &t) != SPT_OK) return NULL;
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    uint64_t vol = 1;
    for (int64_t d = 0; d < r; d++) vol *= (uint64_t)shape[d];
    uint64_t s = vol / (uint64_t)n;
    for (int64_t i = 0; i < n; i++) {
        uint64_t key = (uint64_t)i * s + mix(seed, (uint64_t)i) % s;
        for (int64_t d = r - 1; d >= 0; d--) {
            ix[i * r + d] = (int64_t)(key % (uint64_t)shape[d]);
            key /= (uint64_t)shape[d];
        }
        v[i] = unit(seed + 1, (uint64_t)i);
    }
    if (spt_reorder(t, NULL) != SPT_OK) {
        spt_tensor_free(t);
        return NULL;
    }
    return t;
}

/* The power-law matrix: rows floor(rows * u^4), columns uniform; duplicates summed away by a
 * keep-everything reduce (spt_reduce_sum_sparse over no axis sums repeated indices). */
static spt_tensor *power_law(uint64_t seed, int64_t rows, int64_t cols, int64_t n) {
    spt_tensor *t, *u;
    int64_t s[2] = {rows, cols};
    if (spt_tensor_alloc(SPT_FLOAT64, 2, s, n, &t) != SPT_OK) return NULL;
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    for (int64_t i = 0; i < n; i++) {
        double x = unit(seed, (uint64_t)i);
        ix[2 * i] = (int64_t)((double)rows * x * x * x * x);
        if (ix[2 * i] >= rows) ix[2 * i] = rows - 1;
        ix[2 * i + 1] = (int64_t)(mix(seed + 2, (uint64_t)i) % (uint64_t)cols);
        v[i] = unit(seed + 1, (uint64_t)i);
    }
    spt_status st = spt_reduce_sum_sparse(t, (const int64_t[]){0}, 0, false, &u);
    spt_tensor_free(t);
    return st == SPT_OK ? u : NULL;
}

typedef struct {
    spt_tensor *a, *b;
    spt_dense *d, *f[3];
} work;
typedef spt_status (*op_fn)(work *w);

static spt_status op_spgemm(work *w) {
    spt_tensor *o;
    spt_status st = spt_sparse_sparse_matmul(w->a, w->b, false, false, false, &o);
    spt_tensor_free(o);
    return st;
}
static spt_status op_aat(work *w) {
    spt_tensor *o;
    spt_status st = spt_sparse_sparse_matmul(w->a, w->a, false, true, false, &o);
    spt_tensor_free(o);
    return st;
}
static spt_status op_mttkrp(work *w) {
    spt_dense *o;
    spt_status st = spt_mttkrp(w->a, (const spt_dense *const *)w->f, 3, 0, &o);
    spt_dense_free(o);
    return st;
}
static spt_status op_bmm(work *w) {
    spt_dense *o;
    spt_status st = spt_sparse_dense_bmm(w->a, w->d, false, false, &o);
    spt_dense_free(o);
    return st;
}

static int cmp_d(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void report(const char *name, const char *who, int th, double *t, double *u, int reps) {
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    qsort(u, (size_t)reps, sizeof u[0], cmp_d);
    printf("%-14s %-9s threads=%d  median %.4f s  (min %.4f, max %.4f)  cpu median %.4f s\n", name, who, th,
           t[reps / 2], t[0], t[reps - 1], u[reps / 2]);
    fflush(stdout);
}

static void loadavg(const char *name, const char *when) {
    char buf[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = 0;
    printf("%-14s load %s: %s\n", name, when, buf);
}

#define MAX_REPS 64
/* spt's op at 1 and 2 threads, alternating run by run with `peer` (may be NULL: spt alone). */
typedef void (*peer_fn)(void *ctx, int threads);
static int run(const char *name, op_fn f, work *w, int reps, peer_fn peer, void *ctx) {
    loadavg(name, "before");
    for (int th = 1; th <= 2; th++) {
        double t[MAX_REPS], u[MAX_REPS], pt[MAX_REPS], pu[MAX_REPS];
        for (int k = -1; k < reps; k++) { /* k = -1: warm-up */
            spt_set_num_threads(th);
            double t0 = now(), c0 = cpu();
            spt_status st = f(w);
            if (k >= 0) {
                t[k] = now() - t0;
                u[k] = cpu() - c0;
            }
            if (st != SPT_OK) {
                fprintf(stderr, "%s: %s\n", name, spt_last_error());
                return 1;
            }
            if (peer) {
                t0 = now();
                c0 = cpu();
                peer(ctx, th);
                if (k >= 0) {
                    pt[k] = now() - t0;
                    pu[k] = cpu() - c0;
                }
            }
        }
        report(name, "spt", th, t, u, reps);
        if (peer) report(name, "graphblas", th, pt, pu, reps);
    }
    spt_set_num_threads(0);
    loadavg(name, "after");
    return 0;
}

static spt_dense *dense(uint64_t seed, int64_t rows, int64_t cols) {
    int64_t s[2] = {rows, cols};
    spt_dense *d;
    if (spt_dense_new(SPT_FLOAT64, 2, s, &d) != SPT_OK) return NULL;
    double *p = spt_dense_data_mut(d);
    for (int64_t i = 0; i < rows * cols; i++) p[i] = unit(seed, (uint64_t)i);
    return d;
}

/* .npy of a 1-D int64 or float64 array. */
static void npy(const char *dir, const char *name, const char *what, const void *data, int64_t n, bool is_int) {
    char path[1024], hdr[128];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, what);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    int len = snprintf(hdr, sizeof hdr, "{'descr': '<%s', 'fortran_order': False, 'shape': (%lld,), }",
                       is_int ? "i8" : "f8", (long long)n);
    int pad = 64 - (10 + len + 1) % 64;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    unsigned short hl = (unsigned short)(len + pad + 1);
    fwrite(&hl, 2, 1, f);
    fwrite(hdr, 1, (size_t)len, f);
    for (int i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    fwrite(data, 8, (size_t)n, f);
    fclose(f);
}
/* Dump a tensor as per-mode coordinate arrays, values and shape. */
static void dump(const char *dir, const char *name, const spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    int64_t *col = malloc((size_t)n * sizeof *col);
    for (int64_t d = 0; d < r; d++) {
        for (int64_t i = 0; i < n; i++) col[i] = spt_tensor_indices(t)[i * r + d];
        char what[32];
        snprintf(what, sizeof what, "i%lld", (long long)d);
        npy(dir, name, what, col, n, true);
    }
    free(col);
    npy(dir, name, "val", spt_tensor_values(t), n, false);
    npy(dir, name, "shape", spt_tensor_shape(t), r, true);
}

#ifdef SPT_BENCH_GRAPHBLAS
/* GrB_mxm on the same matrices (built untimed from the COO entries), PLUS_TIMES over float64. */
static GrB_Matrix grb_from(const spt_tensor *t) {
    GrB_Matrix m;
    int64_t n = spt_tensor_nnz(t);
    const int64_t *ix = spt_tensor_indices(t), *sh = spt_tensor_shape(t);
    GrB_Index *r = malloc((size_t)n * sizeof *r), *c = malloc((size_t)n * sizeof *c);
    for (int64_t i = 0; i < n; i++) {
        r[i] = (GrB_Index)ix[2 * i];
        c[i] = (GrB_Index)ix[2 * i + 1];
    }
    GrB_Matrix_new(&m, GrB_FP64, (GrB_Index)sh[0], (GrB_Index)sh[1]);
    GrB_Matrix_build_FP64(m, r, c, spt_tensor_values(t), (GrB_Index)n, GrB_PLUS_FP64);
    GrB_Matrix_wait(m, GrB_MATERIALIZE);
    free(r);
    free(c);
    return m;
}
typedef struct {
    GrB_Matrix A, B;
    GrB_Descriptor desc;
    GrB_Index m, n;
} grb_ctx;
static void grb_step(void *ctx, int threads) {
    grb_ctx *g = ctx;
    GrB_Matrix C;
    GxB_Global_Option_set(GxB_NTHREADS, threads);
    GrB_Matrix_new(&C, GrB_FP64, g->m, g->n);
    GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, g->A, g->B, g->desc);
    GrB_Matrix_wait(C, GrB_MATERIALIZE);
    GrB_Matrix_free(&C);
}
static grb_ctx grb_setup(const spt_tensor *a, const spt_tensor *b, bool transpose_b) {
    grb_ctx g = {grb_from(a), grb_from(b), transpose_b ? GrB_DESC_T1 : NULL, (GrB_Index)spt_tensor_shape(a)[0],
                 (GrB_Index)spt_tensor_shape(b)[transpose_b ? 0 : 1]};
    return g;
}
static void grb_done(grb_ctx *g) {
    GrB_Matrix_free(&g->A);
    if (g->B != g->A) GrB_Matrix_free(&g->B);
}
#endif

static bool want(int argc, char **argv, const char *name) {
    bool any = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dump") || !strcmp(argv[i], "--reps")) {
            i++;
            continue;
        }
        if (!strcmp(argv[i], "--dump-only")) continue;
        any = true;
        if (!strcmp(argv[i], name)) return true;
    }
    return !any;
}

int main(int argc, char **argv) {
    const char *dumpdir = NULL;
    int reps = 5;
    bool dump_only = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dump") && i + 1 < argc) dumpdir = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dump-only")) dump_only = true;
    }
    if (reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "--reps: 1 to %d\n", MAX_REPS);
        return 2;
    }
#ifdef SPT_BENCH_GRAPHBLAS
    GrB_init(GrB_NONBLOCKING);
#endif
    int rc = 0;
    if (want(argc, argv, "spgemm_rand")) {
        int64_t s[2] = {100000, 100000};
        work w = {canonical(1, 2, s, 1000000), canonical(2, 2, s, 1000000), NULL, {NULL}};
        if (!w.a || !w.b) return 2;
        if (dumpdir) {
            dump(dumpdir, "spgemm_rand_a", w.a);
            dump(dumpdir, "spgemm_rand_b", w.b);
        }
        if (!dump_only) {
#ifdef SPT_BENCH_GRAPHBLAS
            grb_ctx g = grb_setup(w.a, w.b, false);
            rc |= run("spgemm_rand", op_spgemm, &w, reps, grb_step, &g);
            grb_done(&g);
#else
            rc |= run("spgemm_rand", op_spgemm, &w, reps, NULL, NULL);
#endif
        }
        spt_tensor_free(w.a);
        spt_tensor_free(w.b);
    }
    if (want(argc, argv, "spgemm_aat")) {
        work w = {power_law(3, 100000, 100000, 1000000), NULL, NULL, {NULL}};
        if (!w.a) return 2;
        printf("spgemm_aat     A: %lld entries after summing duplicates\n", (long long)spt_tensor_nnz(w.a));
        if (dumpdir) dump(dumpdir, "spgemm_aat_a", w.a);
        if (!dump_only) {
#ifdef SPT_BENCH_GRAPHBLAS
            grb_ctx g = grb_setup(w.a, w.a, true);
            rc |= run("spgemm_aat", op_aat, &w, reps, grb_step, &g);
            grb_done(&g);
#else
            rc |= run("spgemm_aat", op_aat, &w, reps, NULL, NULL);
#endif
        }
        spt_tensor_free(w.a);
    }
    if (want(argc, argv, "mttkrp")) {
        int64_t s[3] = {10000, 10000, 10000};
        work w = {canonical(4, 3, s, 10000000), NULL, NULL, {NULL, dense(5, 10000, 16), dense(6, 10000, 16)}};
        if (!w.a || !w.f[1] || !w.f[2]) return 2;
        if (dumpdir) dump(dumpdir, "mttkrp_t", w.a);
        if (!dump_only) rc |= run("mttkrp", op_mttkrp, &w, reps, NULL, NULL);
        spt_tensor_free(w.a);
        spt_dense_free(w.f[1]);
        spt_dense_free(w.f[2]);
    }
    if (want(argc, argv, "bmm")) {
        int64_t s[3] = {64, 1000, 1000};
        work w = {canonical(7, 3, s, 640000), NULL, dense(8, 1000, 64), {NULL}};
        if (!w.a || !w.d) return 2;
        if (dumpdir) dump(dumpdir, "bmm_a", w.a);
        if (!dump_only) rc |= run("bmm", op_bmm, &w, reps, NULL, NULL);
        spt_tensor_free(w.a);
        spt_dense_free(w.d);
    }
#ifdef SPT_BENCH_GRAPHBLAS
    GrB_finalize();
#endif
    return rc;
}
