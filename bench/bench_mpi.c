/* SPDX-License-Identifier: Apache-2.0 */
/* bench_mpi.c -- the distributed layer against the serial library on one input (`make bench-mpi`).
 *
 *   mpirun -np P bench_mpi run RAW [N] [REPS] [T]  append P's rows to the file RAW (at P = 1 the serial
 *                                               library is measured too, at 1 .. T threads, T = 2)
 *   mpirun -np 2 bench_mpi net RAW LABEL        append the alpha-beta figures of this transport (LABEL):
 *                                               one-way latency of an 8-byte message (half the median
 *                                               round trip of 2000) and the bandwidth of 16 MiB messages
 *   bench_mpi report RAW OUT.md                 write the table of every row in RAW to OUT.md
 *
 * Input: N entries (default 10^7), rank 3, shape [1000]^3, float64; entry i has indices from a hash of i
 * (so every P sees the same global tensor; rank p generates entries [N p / P, N (p+1) / P)). Ops, each
 * the median of REPS (default 3) runs, the time of the slowest rank:
 *   from_local  the unsorted pieces -> a row-major dtensor      (serial: spt_reordered)
 *   reorder     row-major -> order (2,0,1)                      (serial: spt_reorder of a row-major copy)
 *   reduce_sum  over axis 1, sparse result                      (serial: spt_reduce_sum_sparse; the dense
 *                                                                spt_reduce_sum is listed too)
 *   matmul      A [10^5, 10^5] with N/10 entries x B [10^5, 16] (dense), result on rank 0: B replicated
 *               (spt_dtensor_sparse_dense_matmul) and B in row blocks (spt_dtensor_sparse_dense_matmul_rows)
 *   mttkrp      mode 0 of the row-major tensor, 3 replicated factors [1000, 16], result on rank 0
 *               (serial: spt_mttkrp); again with the factors in row blocks (spt_dtensor_mttkrp_rows, the
 *               model choosing between fetching the rows each rank reads and replicating)
 *   spgemm      C = A x A, A [2^16, 2^16] with N/20 entries (random) or N/80 (power-law: its product
 *               grows about as the square, ~10^7 entries at N = 10^7, where N/20 gave 8 10^7 and CombBLAS's
 *               run with the check no longer fit in 24 GiB) (serial: spt_sparse_sparse_matmul); at P = 1 A is written to RAW.spgemm-KIND.mtx and at every P the
 *               gathered C to RAW.spgemm-KIND.spt-npP.mtx, for bench_combblas (bench/bench_combblas.cpp)
 * Every row also carries the bytes each rank sent (entries and metadata), the collective calls, the
 * per-phase seconds of the sample sort (max over ranks), the CPU seconds of the slowest rank and the
 * 1-minute load average when the run started. */
#include <sched.h> /* sched_getaffinity (the Makefile defines _GNU_SOURCE) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spt.h"
#include "spt_mpi.h"

static uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const int64_t SHAPE[3] = {1000, 1000, 1000}, ORDER[3] = {2, 0, 1}, AX1[1] = {1};
#define MM_M 100000
#define MM_K 100000
#define MM_NC 16

static spt_tensor *make_piece(int64_t lo, int64_t hi) {
    spt_tensor *t = NULL;
    if (spt_tensor_alloc(SPT_FLOAT64, 3, SHAPE, hi - lo, &t) != SPT_OK) return NULL;
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    for (int64_t i = lo; i < hi; i++) {
        uint64_t h = mix((uint64_t)i);
        for (int k = 0; k < 3; k++) ix[(i - lo) * 3 + k] = (int64_t)((h >> (20 * k)) % (uint64_t)SHAPE[k]);
        v[i - lo] = (double)(i % 1000);
    }
    return t;
}

static spt_tensor *make_a(int64_t lo, int64_t hi) {
    static const int64_t s[2] = {MM_M, MM_K};
    spt_tensor *t = NULL;
    if (spt_tensor_alloc(SPT_FLOAT64, 2, s, hi - lo, &t) != SPT_OK) return NULL;
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    for (int64_t i = lo; i < hi; i++) {
        uint64_t h = mix((uint64_t)i ^ 0x5555);
        ix[(i - lo) * 2] = (int64_t)(h % MM_M);
        ix[(i - lo) * 2 + 1] = (int64_t)((h >> 32) % MM_K);
        v[i - lo] = (double)(i % 7) - 3;
    }
    return t;
}

/* rows [r0, r1) of B (MM_K x MM_NC): B[k][j] = (k * 31 + j) % 17 - 8 */
static spt_dense *make_b(int64_t r0, int64_t r1) {
    spt_dense *b = NULL;
    if (spt_dense_new(SPT_FLOAT64, 2, (const int64_t[]){r1 - r0, MM_NC}, &b) != SPT_OK) return NULL;
    double *d = spt_dense_data_mut(b);
    for (int64_t k = r0; k < r1; k++)
        for (int64_t j = 0; j < MM_NC; j++) d[(k - r0) * MM_NC + j] = (double)((k * 31 + j) % 17) - 8;
    return b;
}

static double now(void) { return MPI_Wtime(); }
static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double load1(void) {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

#define MAXR 16
typedef struct sample {
    double wall[MAXR], cpu[MAXR];
    spt_mpi_stats st[MAXR];
    int n;
} sample;

static int g_rank, g_P;
static spt_mpi_ctx *g_ctx;

static void die(const char *what) {
    fprintf(stderr, "bench_mpi rank %d: %s: %s\n", g_rank, what, spt_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One timed call: slowest rank's wall time and CPU time, this rank's counters. */
static void timed_begin(double *w, double *c) {
    MPI_Barrier(MPI_COMM_WORLD);
    spt_mpi_ctx_reset_traffic(g_ctx);
    *c = cpu();
    *w = now();
}
static void timed_end(sample *s, double w0, double c0) {
    double w = now() - w0, c = cpu() - c0, wm, cm;
    MPI_Allreduce(&w, &wm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&c, &cm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    s->wall[s->n] = wm;
    s->cpu[s->n] = cm;
    spt_mpi_ctx_stats(g_ctx, &s->st[s->n]);
    s->n++;
}

/* Write one row: op, P, threads, median/min/max wall ms, median CPU ms, max payload bytes of a rank, max
 * meta bytes, collectives, phase ms (median over reps of the max over ranks), load. Rank 0 writes. */
static void emit(FILE *raw, const char *op, int threads, sample *s, double load) {
    double w[MAXR], c[MAXR];
    memcpy(w, s->wall, sizeof w);
    memcpy(c, s->cpu, sizeof c);
    qsort(w, (size_t)s->n, sizeof *w, cmp_d);
    qsort(c, (size_t)s->n, sizeof *c, cmp_d);
    /* the counters of the last rep, max over ranks */
    const spt_mpi_stats *l = &s->st[s->n - 1];
    int64_t mine[3] = {l->payload_bytes, l->meta_bytes, l->collectives}, mx[3];
    double ph[SPT_MPI_NPHASES], phm[SPT_MPI_NPHASES];
    for (int k = 0; k < SPT_MPI_NPHASES; k++) {
        double v[MAXR];
        for (int i = 0; i < s->n; i++) v[i] = s->st[i].phase[k];
        qsort(v, (size_t)s->n, sizeof *v, cmp_d);
        ph[k] = v[s->n / 2];
    }
    MPI_Allreduce(mine, mx, 3, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(ph, phm, SPT_MPI_NPHASES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (g_rank == 0) {
        fprintf(raw, "%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%lld\t%lld\t%lld", op, g_P, threads, 1e3 * w[s->n / 2],
                1e3 * w[0], 1e3 * w[s->n - 1], 1e3 * c[s->n / 2], (long long)mx[0], (long long)mx[1], (long long)mx[2]);
        for (int k = 0; k < SPT_MPI_NPHASES; k++) fprintf(raw, "\t%.2f", 1e3 * phm[k]);
        fprintf(raw, "\t%.2f\n", load);
        fflush(raw);
    }
}

/* SpGEMM input: an SG_M x SG_M matrix with n entries, values 1..3 (products and sums stay exact integers,
 * so spt's and CombBLAS's results compare exactly); random (uniform indices) or power-law (both indices
 * skewed toward 0: index = SG_M u^3, so low rows and columns are heavy). Entry i from a hash of i. */
#define SG_M 65536
static spt_tensor *make_sg(int powerlaw, int64_t lo, int64_t hi) {
    static const int64_t s[2] = {SG_M, SG_M};
    spt_tensor *t = NULL;
    if (spt_tensor_alloc(SPT_FLOAT64, 2, s, hi - lo, &t) != SPT_OK) return NULL;
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    for (int64_t i = lo; i < hi; i++) {
        uint64_t h = mix((uint64_t)i ^ 0x3C3C3C);
        for (int k = 0; k < 2; k++) {
            double u = (double)((h >> (32 * k)) & 0xffffffffu) / 4294967296.0;
            ix[(i - lo) * 2 + k] = powerlaw ? (int64_t)(SG_M * u * u * u) : (int64_t)(SG_M * u);
        }
        v[i - lo] = (double)(1 + (int64_t)(h % 3));
    }
    return t;
}
static const char *const SG_NAME[2] = {"random", "power-law"};
/* entries of A: N/20 random, N/80 power-law (see the top of the file) */
static int64_t sg_entries(int powerlaw, int64_t n) { return powerlaw ? n / 80 : n / 20; }

/* MTTKRP factors: [1000, MT_R], entry (i, r) = ((i * 7 + r) % 5) - 2 */
#define MT_R 16
static void make_factors(spt_dense *f[3]) {
    for (int m = 0; m < 3; m++) {
        if (spt_dense_new(SPT_FLOAT64, 2, (const int64_t[]){SHAPE[m], MT_R}, &f[m]) != SPT_OK) die("alloc");
        double *d = spt_dense_data_mut(f[m]);
        for (int64_t i = 0; i < SHAPE[m] * MT_R; i++) d[i] = (double)(((i / MT_R) * 7 + i % MT_R) % 5) - 2;
    }
}

static int g_maxth = 2;

static void serial_rows(FILE *raw, int64_t N, int reps, double load) {
    for (int th = 1; th <= g_maxth; th++) {
        spt_set_num_threads(th);
        sample sf = {0}, sr = {0}, ss = {0}, sd = {0}, sm = {0};
        spt_tensor *t = make_piece(0, N), *rm = NULL;
        if (!t) die("alloc");
        { /* one untimed call: the first one validates t and touches fresh pages (3-4x a warm call) */
            spt_tensor *w = NULL;
            if (spt_reordered(t, NULL, &w) != SPT_OK) die("spt_reordered");
            spt_tensor_free(w);
        }
        for (int i = 0; i < reps; i++) {
            spt_tensor *o = NULL;
            double w0, c0;
            timed_begin(&w0, &c0);
            if (spt_reordered(t, NULL, &o) != SPT_OK) die("spt_reordered");
            timed_end(&sf, w0, c0);
            if (i == 0) rm = o;
            else spt_tensor_free(o);
        }
        for (int i = 0; i < reps; i++) {
            spt_tensor *c = NULL;
            if (spt_tensor_clone(rm, &c) != SPT_OK) die("clone");
            double w0, c0;
            timed_begin(&w0, &c0);
            if (spt_reorder(c, ORDER) != SPT_OK) die("spt_reorder");
            timed_end(&sr, w0, c0);
            spt_tensor_free(c);
        }
        for (int i = 0; i < reps; i++) {
            spt_tensor *o = NULL;
            spt_dense *d = NULL;
            double w0, c0;
            timed_begin(&w0, &c0);
            if (spt_reduce_sum_sparse(rm, AX1, 1, false, &o) != SPT_OK) die("spt_reduce_sum_sparse");
            timed_end(&ss, w0, c0);
            timed_begin(&w0, &c0);
            if (spt_reduce_sum(rm, AX1, 1, false, &d) != SPT_OK) die("spt_reduce_sum");
            timed_end(&sd, w0, c0);
            spt_tensor_free(o);
            spt_dense_free(d);
        }
        spt_tensor *a = make_a(0, N / 10);
        spt_dense *b = make_b(0, MM_K);
        if (!a || !b) die("alloc");
        for (int i = 0; i < reps; i++) {
            spt_dense *c = NULL;
            double w0, c0;
            timed_begin(&w0, &c0);
            if (spt_sparse_dense_matmul(a, b, false, false, &c) != SPT_OK) die("spt_sparse_dense_matmul");
            timed_end(&sm, w0, c0);
            spt_dense_free(c);
        }
        sample sg[2], smt;
        memset(sg, 0, sizeof sg);
        memset(&smt, 0, sizeof smt);
        for (int pl = 0; pl < 2; pl++) {
            spt_tensor *g = make_sg(pl, 0, sg_entries(pl, N));
            if (!g) die("alloc");
            for (int i = 0; i < reps; i++) {
                spt_tensor *c = NULL;
                double w0, c0;
                timed_begin(&w0, &c0);
                if (spt_sparse_sparse_matmul(g, g, false, false, false, &c) != SPT_OK) die("spt_sparse_sparse_matmul");
                timed_end(&sg[pl], w0, c0);
                spt_tensor_free(c);
            }
            spt_tensor_free(g);
        }
        spt_dense *f[3];
        make_factors(f);
        for (int i = 0; i < reps; i++) {
            spt_dense *c = NULL;
            double w0, c0;
            timed_begin(&w0, &c0);
            if (spt_mttkrp(rm, (const spt_dense *const *)f, 3, 0, &c) != SPT_OK) die("spt_mttkrp");
            timed_end(&smt, w0, c0);
            spt_dense_free(c);
        }
        for (int m = 0; m < 3; m++) spt_dense_free(f[m]);
        emit(raw, "serial spgemm random (spt_sparse_sparse_matmul)", th, &sg[0], load);
        emit(raw, "serial spgemm power-law (spt_sparse_sparse_matmul)", th, &sg[1], load);
        emit(raw, "serial mttkrp mode 0 (spt_mttkrp)", th, &smt, load);
        emit(raw, "serial from_local (spt_reordered)", th, &sf, load);
        emit(raw, "serial reorder (spt_reorder)", th, &sr, load);
        emit(raw, "serial reduce_sum (spt_reduce_sum_sparse)", th, &ss, load);
        emit(raw, "serial reduce_sum dense (spt_reduce_sum)", th, &sd, load);
        emit(raw, "serial matmul (spt_sparse_dense_matmul)", th, &sm, load);
        spt_tensor_free(a);
        spt_dense_free(b);
        spt_tensor_free(rm);
        spt_tensor_free(t);
    }
    spt_set_num_threads(1);
}

static int run(const char *rawpath, int64_t N, int reps) {
    FILE *raw = NULL;
    double load = load1();
    if (g_rank == 0 && !(raw = fopen(rawpath, "a"))) {
        perror(rawpath);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (reps > MAXR) reps = MAXR;
    { /* the binding mpirun gave: the fewest and most CPUs a rank may run on */
        cpu_set_t cs;
        int mine = sched_getaffinity(0, sizeof cs, &cs) == 0 ? CPU_COUNT(&cs) : -1, lo = 0, hi = 0;
        MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (g_rank == 0) fprintf(raw, "cpus\t%d\t%d\t%d\n", g_P, lo, hi);
    }
    const int th = spt_get_num_threads();
    int64_t lo = N * g_rank / g_P, hi = N * (g_rank + 1) / g_P;
    spt_tensor *piece = make_piece(lo, hi);
    if (!piece) die("alloc");
    sample sf = {0}, sr = {0}, ss = {0}, smr = {0}, smd = {0};
    { /* one untimed call, as on the serial side */
        spt_dtensor *w = NULL;
        if (spt_dtensor_from_local(g_ctx, piece, NULL, &w) != SPT_OK) die("from_local");
        spt_dtensor_free(w);
    }
    for (int i = 0; i < reps; i++) {
        spt_dtensor *d = NULL;
        double w0, c0;
        timed_begin(&w0, &c0);
        if (spt_dtensor_from_local(g_ctx, piece, NULL, &d) != SPT_OK) die("from_local");
        timed_end(&sf, w0, c0);
        timed_begin(&w0, &c0);
        if (spt_dtensor_reorder(d, ORDER) != SPT_OK) die("reorder");
        timed_end(&sr, w0, c0);
        spt_dtensor_free(d);
    }
    spt_dtensor *rm = NULL;
    if (spt_dtensor_from_local(g_ctx, piece, NULL, &rm) != SPT_OK) die("from_local");
    spt_tensor_free(piece);
    for (int i = 0; i < reps; i++) {
        spt_dtensor *o = NULL;
        double w0, c0;
        timed_begin(&w0, &c0);
        if (spt_dtensor_reduce_sum(rm, AX1, 1, false, &o) != SPT_OK) die("reduce_sum");
        timed_end(&ss, w0, c0);
        spt_dtensor_free(o);
    }
    { /* MTTKRP of the row-major tensor, mode 0 (its leading mode), factors replicated, result on rank 0 */
        sample smt = {0};
        spt_dense *f[3];
        make_factors(f);
        for (int i = 0; i < reps; i++) {
            spt_dense *c = NULL;
            double w0, c0;
            timed_begin(&w0, &c0);
            if (spt_dtensor_mttkrp(rm, (const spt_dense *const *)f, 3, 0, 0, &c) != SPT_OK) die("mttkrp");
            timed_end(&smt, w0, c0);
            spt_dense_free(c);
        }
        /* the same with the factors in row blocks (rank p: rows [I p / P, I (p+1) / P)), the way to get the
         * rows a rank reads chosen by the model (spt_dtensor_mttkrp_rows, SPT_MPI_FACTORS_AUTO) */
        sample smb = {0};
        spt_dense *fb[3];
        int64_t beg[3];
        for (int m = 0; m < 3; m++) {
            beg[m] = SHAPE[m] * g_rank / g_P;
            const int64_t rows = SHAPE[m] * (g_rank + 1) / g_P - beg[m];
            if (spt_dense_new_from(SPT_FLOAT64, 2, (const int64_t[]){rows, MT_R},
                                   (const double *)spt_dense_data(f[m]) + beg[m] * MT_R, &fb[m]) != SPT_OK)
                die("alloc");
        }
        spt_mpi_factors took = SPT_MPI_FACTORS_AUTO;
        for (int i = 0; i < reps; i++) {
            spt_dense *c = NULL;
            double w0, c0;
            timed_begin(&w0, &c0);
            if (spt_dtensor_mttkrp_rows(rm, (const spt_dense *const *)fb, beg, 3, 0, SPT_MPI_FACTORS_AUTO, 0, &c,
                                        &took) != SPT_OK)
                die("mttkrp_rows");
            timed_end(&smb, w0, c0);
            spt_dense_free(c);
        }
        for (int m = 0; m < 3; m++) {
            spt_dense_free(f[m]);
            spt_dense_free(fb[m]);
        }
        emit(raw, "dist mttkrp mode 0", th, &smt, load);
        emit(raw,
             took == SPT_MPI_FACTORS_FETCH ? "dist mttkrp mode 0 (factor row blocks: fetched)"
                                           : "dist mttkrp mode 0 (factor row blocks: replicated)",
             th, &smb, load);
    }
    spt_dtensor_free(rm);
    /* SpGEMM C = A x A of the random and the power-law matrix; at P = 1 the inputs and every P's result are
     * written next to RAW (A as .mtx for bench_combblas, C to compare with its result) */
    for (int pl = 0; pl < 2; pl++) {
        const int64_t ns = sg_entries(pl, N);
        spt_tensor *gp = make_sg(pl, ns * g_rank / g_P, ns * (g_rank + 1) / g_P), *whole = NULL;
        spt_dtensor *G = NULL, *C = NULL;
        if (!gp || spt_dtensor_from_local(g_ctx, gp, NULL, &G) != SPT_OK) die("spgemm input");
        spt_tensor_free(gp);
        sample sg = {0};
        for (int i = 0; i < reps; i++) {
            double w0, c0;
            spt_dtensor_free(C);
            C = NULL;
            timed_begin(&w0, &c0);
            if (spt_dtensor_sparse_sparse_matmul(G, G, false, false, false, &C) != SPT_OK) die("spgemm");
            timed_end(&sg, w0, c0);
        }
        char name[64], path[1200];
        snprintf(name, sizeof name, "dist spgemm %s", SG_NAME[pl]);
        emit(raw, name, th, &sg, load);
        if (spt_dtensor_gather(G, 0, &whole) != SPT_OK) die("gather");
        if (g_rank == 0 && g_P == 1) {
            snprintf(path, sizeof path, "%s.spgemm-%s.mtx", rawpath, SG_NAME[pl]);
            if (spt_write_mtx(whole, path) != SPT_OK) die("write A");
        }
        spt_tensor_free(whole);
        whole = NULL;
        if (spt_dtensor_gather(C, 0, &whole) != SPT_OK) die("gather");
        if (g_rank == 0) {
            snprintf(path, sizeof path, "%s.spgemm-%s.spt-np%d.mtx", rawpath, SG_NAME[pl], g_P);
            if (spt_write_mtx(whole, path) != SPT_OK) die("write C");
        }
        spt_tensor_free(whole);
        spt_dtensor_free(C);
        spt_dtensor_free(G);
    }
    /* matmul: A by rows (from its pieces), B replicated or in row blocks */
    int64_t na = N / 10;
    spt_tensor *ap = make_a(na * g_rank / g_P, na * (g_rank + 1) / g_P);
    spt_dtensor *A = NULL;
    if (!ap || spt_dtensor_from_local(g_ctx, ap, NULL, &A) != SPT_OK) die("matmul input");
    spt_tensor_free(ap);
    spt_dense *Bfull = make_b(0, MM_K);
    int64_t b0 = (int64_t)MM_K * g_rank / g_P, b1 = (int64_t)MM_K * (g_rank + 1) / g_P;
    spt_dense *Brows = make_b(b0, b1);
    if (!Bfull || !Brows) die("alloc");
    for (int i = 0; i < reps; i++) {
        spt_dense *c = NULL;
        double w0, c0;
        timed_begin(&w0, &c0);
        if (spt_dtensor_sparse_dense_matmul(A, Bfull, false, false, 0, &c) != SPT_OK) die("matmul");
        timed_end(&smr, w0, c0);
        spt_dense_free(c);
        c = NULL;
        timed_begin(&w0, &c0);
        if (spt_dtensor_sparse_dense_matmul_rows(A, Brows, b0, false, false, 0, &c) != SPT_OK) die("matmul_rows");
        timed_end(&smd, w0, c0);
        spt_dense_free(c);
    }
    spt_dense_free(Bfull);
    spt_dense_free(Brows);
    spt_dtensor_free(A);
    emit(raw, "dist from_local", th, &sf, load);
    emit(raw, "dist reorder", th, &sr, load);
    emit(raw, "dist reduce_sum", th, &ss, load);
    emit(raw, "dist matmul (B replicated)", th, &smr, load);
    emit(raw, "dist matmul (B row blocks)", th, &smd, load);
    if (g_P == 1) serial_rows(raw, N, reps, load);
    if (raw) fclose(raw);
    return 0;
}

/* ---- alpha and beta ---------------------------------------------------------------------------- */

static int net(const char *rawpath, const char *label) {
    FILE *raw = NULL;
    if (g_P != 2) {
        if (g_rank == 0) fprintf(stderr, "bench_mpi net: run at -np 2\n");
        return 2;
    }
    if (g_rank == 0 && !(raw = fopen(rawpath, "a"))) {
        perror(rawpath);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double load = load1();
    enum { NRT = 2000, NBW = 8 };
    static double rt[NRT], bw[NBW];
    char small[8] = {0};
    const int peer = 1 - g_rank;
    for (int i = 0; i < NRT; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        if (g_rank == 0) {
            MPI_Send(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(small, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
        rt[i] = now() - t0;
    }
    const int big = 16 << 20;
    char *buf = malloc((size_t)big);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 2);
    memset(buf, 1, (size_t)big);
    for (int i = 0; i < NBW; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        if (g_rank == 0) {
            MPI_Send(buf, big, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, big, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, big, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, big, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
        bw[i] = now() - t0;
    }
    free(buf);
    qsort(rt, NRT, sizeof *rt, cmp_d);
    qsort(bw, NBW, sizeof *bw, cmp_d);
    if (raw) {
        /* rows: "net LABEL alpha_us" and "net LABEL beta_MBps" in the median column */
        fprintf(raw, "net %s latency (us, one way)\t2\t0\t%.2f\t%.2f\t%.2f\t0\t0\t0\t0\t0\t0\t0\t0\t%.2f\n", label,
                1e6 * rt[NRT / 2] / 2, 1e6 * rt[0] / 2, 1e6 * rt[NRT - 1] / 2, load);
        fprintf(raw, "net %s bandwidth (MB/s, 16 MiB messages)\t2\t0\t%.1f\t%.1f\t%.1f\t0\t0\t0\t0\t0\t0\t0\t0\t%.2f\n",
                label, 2.0 * big / bw[NBW / 2] / 1e6, 2.0 * big / bw[NBW - 1] / 1e6, 2.0 * big / bw[0] / 1e6, load);
        fclose(raw);
    }
    return 0;
}

/* ---- report -------------------------------------------------------------------------------------- */

typedef struct row {
    char op[64];
    int P, th;
    double med, mn, mx, cpu;
    long long pay, meta, coll;
    double ph[SPT_MPI_NPHASES], load;
} row;

static const row *find(const row *r, int n, const char *op, int P, int th) {
    for (int i = n - 1; i >= 0; i--)
        if (!strcmp(r[i].op, op) && r[i].P == P && (th < 0 || r[i].th == th)) return &r[i];
    return NULL;
}

/* The targets against the peers: CombBLAS's time over spt's (>= 1: spt at least as fast), three ways. */
static void peer_targets(FILE *o, const row *r, int n) {
    fprintf(o, "\nAgainst the peers: the peer's time / spt's (>= 1: spt at least as fast), median wall / min wall / "
               "median CPU. Target: SpGEMM at np 2 at least as fast as CombBLAS at np 2; CombBLAS's SUMMA product "
               "cannot run at np 2 (its process grids must be square: a 1 x 2 grid stops in the product's grid check, "
               "2 x 1 aborts; the Debian build has no OpenMP either), so spt np 2 is set against CombBLAS at np 1 and "
               "np 4 (4 ranks on the same 2 cores).\n\n| comparison | peer / spt |\n| --- | --- |\n");
    static const char *cmp[3][2] = {{"combblas spgemm random", "dist spgemm random"},
                                    {"combblas spgemm power-law", "dist spgemm power-law"},
                                    {"combblas psort row-major", "dist from_local"}};
    static const int Ps[][2] = {{1, 2}, {4, 2}, {1, 1}, {4, 4}, {2, 2}};
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 5; j++) {
            if (k < 2 && Ps[j][0] == 2) continue; /* no CombBLAS SpGEMM at np 2 */
            const row *x = find(r, n, cmp[k][0], Ps[j][0], -1), *y = find(r, n, cmp[k][1], Ps[j][1], -1);
            fprintf(o, "| %s np %d / %s np %d |", cmp[k][0], Ps[j][0], cmp[k][1], Ps[j][1]);
            if (x && y && y->med > 0 && y->mn > 0 && y->cpu > 0)
                fprintf(o, " %.2f / %.2f / %.2f |\n", x->med / y->med, x->mn / y->mn, x->cpu / y->cpu);
            else fprintf(o, " n/a |\n");
        }
}

static int report(const char *rawpath, const char *outpath) {
    FILE *f = fopen(rawpath, "r");
    if (!f) {
        perror(rawpath);
        return 2;
    }
    row *r = calloc(256, sizeof *r);
    int n = 0, ncpu = 0, cpus[8][3], nchk = 0;
    char line[1024], chk[16][1024];
    while (n < 256 && fgets(line, sizeof line, f)) {
        row *x = &r[n];
        if (!strncmp(line, "check\t", 6)) { /* bench_combblas: its result against spt's */
            if (nchk < 16) snprintf(chk[nchk++], sizeof chk[0], "%s", line + 6);
            continue;
        }
        if (!strncmp(line, "cpus\t", 5)) { /* the binding of one run: P, fewest and most CPUs of a rank */
            if (ncpu < 8 && sscanf(line + 5, "%d %d %d", &cpus[ncpu][0], &cpus[ncpu][1], &cpus[ncpu][2]) == 3) ncpu++;
            continue;
        }
        char *tab = strchr(line, '\t');
        if (!tab || tab - line >= (long)sizeof x->op) continue;
        memcpy(x->op, line, (size_t)(tab - line));
        x->op[tab - line] = 0;
        if (sscanf(tab + 1, "%d %d %lf %lf %lf %lf %lld %lld %lld %lf %lf %lf %lf %lf", &x->P, &x->th, &x->med, &x->mn,
                   &x->mx, &x->cpu, &x->pay, &x->meta, &x->coll, &x->ph[0], &x->ph[1], &x->ph[2], &x->ph[3],
                   &x->load) == 14)
            n++;
    }
    fclose(f);
    FILE *o = fopen(outpath, "w");
    if (!o) {
        perror(outpath);
        free(r);
        return 2;
    }
    fprintf(o, "# spt MPI benchmark (`make bench-mpi`)\n\n");
    fprintf(o, "10^7 random entries (unless the raw file says otherwise), rank 3, shape [1000]^3, float64; Open MPI "
               "over shared memory (vader), one OpenMP thread per rank; P = 4 is oversubscribed on a 2-core "
               "machine. Times are the slowest rank's wall clock, median (min-max) of the runs; `cpu` is the "
               "slowest rank's CPU time (MPI busy-waits count as CPU). `load` is the 1-minute load average when "
               "the run started: on a loaded machine wall times are noisy; only a quiet machine's figures "
               "count for the targets.\n\n");
    fprintf(o, "Binding (`make bench-mpi`): the P = 1 run, which also times the serial library at 1 and 2 "
               "threads, is started with `mpirun --bind-to none` (so the serial 2-thread rows use both cores); "
               "P = 2 with `--bind-to core` (one core per rank); P = 4 (oversubscribed) with `--bind-to none`. "
               "CPUs each rank could run on, as measured (sched_getaffinity, fewest-most over ranks):");
    for (int i = 0; i < ncpu; i++) fprintf(o, "%s P = %d: %d-%d", i ? ";" : "", cpus[i][0], cpus[i][1], cpus[i][2]);
    fprintf(o, "%s\n\n", ncpu ? "." : " not recorded.");
    fprintf(o, "| op | P | threads | median ms | min-max ms | cpu ms | bytes sent/rank (entries + meta) | "
               "collectives | local sort / split / exchange / merge ms | load |\n");
    fprintf(o, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < n; i++) {
        const row *x = &r[i];
        if (!strncmp(x->op, "net ", 4)) continue;
        fprintf(o,
                "| %s | %d | %d | %.1f | %.1f-%.1f | %.1f | %lld + %lld | %lld | %.1f / %.1f / %.1f / %.1f | %.2f |\n",
                x->op, x->P, x->th, x->med, x->mn, x->mx, x->cpu, x->pay, x->meta, x->coll, x->ph[0], x->ph[1],
                x->ph[2], x->ph[3], x->load);
    }
    static const char *ops[8][3] = {{"dist from_local", "serial from_local (spt_reordered)", "from_local"},
                                    {"dist reorder", "serial reorder (spt_reorder)", "reorder"},
                                    {"dist reduce_sum", "serial reduce_sum (spt_reduce_sum_sparse)", "reduce_sum"},
                                    {"dist mttkrp mode 0", "serial mttkrp mode 0 (spt_mttkrp)", "mttkrp"},
                                    {"dist mttkrp mode 0 (factor row blocks: fetched)",
                                     "serial mttkrp mode 0 (spt_mttkrp)", "mttkrp, factor row blocks fetched"},
                                    {"dist mttkrp mode 0 (factor row blocks: replicated)",
                                     "serial mttkrp mode 0 (spt_mttkrp)", "mttkrp, factor row blocks replicated"},
                                    {"dist spgemm random", "serial spgemm random (spt_sparse_sparse_matmul)",
                                     "spgemm random"},
                                    {"dist spgemm power-law", "serial spgemm power-law (spt_sparse_sparse_matmul)",
                                     "spgemm power-law"}};
    fprintf(o,
            "\n## Targets\n\nEach ratio three ways: median wall / min wall / median CPU (the CPU time of the slowest "
            "rank, less disturbed by other processes on a loaded machine, but counting MPI busy-waits).\n\n"
            "| op | P=1 / serial 1 thread (<= 1.2) | P=2 / serial 2 threads (<= 1.3) | P=1 / P=2 (>= 1.5 for "
            "from_local, reorder, mttkrp) |\n| --- | --- | --- | --- |\n");
    for (int k = 0; k < 8; k++) {
        const row *d1 = find(r, n, ops[k][0], 1, -1), *d2 = find(r, n, ops[k][0], 2, -1);
        const row *s1 = find(r, n, ops[k][1], 1, 1), *s2 = find(r, n, ops[k][1], 1, 2);
        const row *pairs[3][2] = {{d1, s1}, {d2, s2}, {d1, d2}};
        fprintf(o, "| %s |", ops[k][2]);
        for (int c = 0; c < 3; c++) {
            const row *x = pairs[c][0], *y = pairs[c][1];
            if (x && y && y->med > 0 && y->mn > 0 && y->cpu > 0)
                fprintf(o, " %.2f / %.2f / %.2f |", x->med / y->med, x->mn / y->mn, x->cpu / y->cpu);
            else fprintf(o, " n/a |");
        }
        fprintf(o, "\n");
    }
    peer_targets(o, r, n);
    fprintf(o, "\n## SpGEMM against CombBLAS (C = A x A, A [65536, 65536] with N/20 entries random, N/80 power-law)\n\n"
               "CombBLAS's 2-D SUMMA product (`Mult_AnXBn_Synch`, plus-times on doubles) runs on square process "
               "grids only, so it has no np 2 row. Median wall ms (CPU ms of the slowest rank).\n\n"
               "| matrix | spt np 1 | spt np 2 | spt np 4 | CombBLAS np 1 | CombBLAS np 4 |\n| --- | --- | --- | --- | "
               "--- | --- |\n");
    for (int k = 0; k < 2; k++) {
        static const char *kinds[2] = {"random", "power-law"};
        char a[64], b[64];
        snprintf(a, sizeof a, "dist spgemm %s", kinds[k]);
        snprintf(b, sizeof b, "combblas spgemm %s", kinds[k]);
        const row *cells[5] = {find(r, n, a, 1, -1), find(r, n, a, 2, -1), find(r, n, a, 4, -1), find(r, n, b, 1, -1),
                               find(r, n, b, 4, -1)};
        fprintf(o, "| %s |", kinds[k]);
        for (int c = 0; c < 5; c++) {
            if (cells[c]) fprintf(o, " %.1f (%.1f) |", cells[c]->med, cells[c]->cpu);
            else fprintf(o, " n/a |");
        }
        fprintf(o, "\n");
    }
    fprintf(o, "\n| parallel sort of the N-entry tensor (unsorted pieces -> row-major) | np 1 | np 2 | np 4 |\n"
               "| --- | --- | --- | --- |\n");
    for (int k = 0; k < 2; k++) {
        static const char *sorts[2][2] = {{"spt_dtensor_from_local", "dist from_local"},
                                          {"CombBLAS psort (parallel_sort, 32-byte records)",
                                           "combblas psort row-major"}};
        fprintf(o, "| %s |", sorts[k][0]);
        for (int c = 0; c < 3; c++) {
            const row *x = find(r, n, sorts[k][1], c == 0 ? 1 : c == 1 ? 2 : 4, -1);
            if (x) fprintf(o, " %.1f (%.1f) |", x->med, x->cpu);
            else fprintf(o, " n/a |");
        }
        fprintf(o, "\n");
    }
    fprintf(o, "\nResults compared (CombBLAS's C against spt's at np 1, every entry, values exact integers; psort's "
               "keys against spt's on every rank):\n\n");
    for (int i = 0; i < nchk; i++) fprintf(o, "- %s", chk[i]);
    if (!nchk) fprintf(o, "- none (CombBLAS not installed: `apt-get install libcombblas-dev`)\n");
    fprintf(o, "\n## Transport (alpha-beta inputs of MODEL.md), np 2\n\n| measure | median | min-max (latency) / "
               "worst-best (bandwidth) | load |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < n; i++)
        if (!strncmp(r[i].op, "net ", 4))
            fprintf(o, "| %s | %.2f | %.2f-%.2f | %.2f |\n", r[i].op + 4, r[i].med, r[i].mn, r[i].mx, r[i].load);
    fclose(o);
    free(r);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "report")) return report(argv[2], argv[3]);
    bool is_net = argc >= 4 && !strcmp(argv[1], "net");
    if (!is_net && (argc < 3 || strcmp(argv[1], "run"))) {
        fprintf(
            stderr,
            "usage: mpirun -np P %s run RAW [N] [REPS] [T] | mpirun -np 2 %s net RAW LABEL | %s report RAW OUT.md\n",
            argv[0], argv[0], argv[0]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_P);
    if (is_net) {
        int rc = net(argv[2], argv[3]);
        MPI_Finalize();
        return rc;
    }
    int64_t N = argc > 3 ? atoll(argv[3]) : 10000000;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    if (argc > 5) g_maxth = atoi(argv[5]) < 1 ? 1 : atoi(argv[5]);
    if (N < 10 || reps < 1) {
        if (g_rank == 0) fprintf(stderr, "bench_mpi: N >= 10 and REPS >= 1\n");
        MPI_Finalize();
        return 2;
    }
    if (spt_mpi_ctx_new(MPI_COMM_WORLD, &g_ctx) != SPT_OK) die("ctx");
    int rc = run(argv[2], N, reps);
    spt_mpi_ctx_free(g_ctx);
    MPI_Finalize();
    return rc;
}
