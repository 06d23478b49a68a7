/* SPDX-License-Identifier: Apache-2.0 */
/* bench_graphblas.c -- the make-bench workloads on SuiteSparse:GraphBLAS (Debian's libgraphblas-dev), 2-D.
 *
 *   bench_graphblas OP DIMS THREADS NNZ[,NNZ...] [REPS]
 *
 * The inputs are those of bench_core (bench_gen.h, mirrored by gen.py) in their 2-D form (DIMS must be 2:
 * GraphBLAS holds matrices only). Matrices are held by row (CSR, GraphBLAS's default format, hypersparse
 * where GraphBLAS chooses it). Every timed call ends with GrB_Matrix_wait / GrB_Vector_wait so that no
 * deferred work (GraphBLAS's non-blocking mode) escapes the clock. OP:
 *   reorder       GrB_Matrix_build of a fresh matrix from the unsorted tuples, duplicates summed (GrB_PLUS_FP64)
 *   reduce_axis1  row sums: GrB_Matrix_reduce_Monoid (PLUS) into a fresh vector of nrows
 *   reduce_all    GrB_Matrix_reduce_FP64 (PLUS monoid) to a scalar
 *   concat1       GxB_Matrix_concat of [A, B] (1 x 2 tiles) into a fresh matrix
 *   add           GrB_Matrix_eWiseAdd_BinaryOp (GrB_PLUS_FP64) into a fresh matrix
 *   spmm          C = A*B, GrB_mxm (PLUS_TIMES) into a fresh C, B full [1e5,32] held by row
 *   spmm_acc      C += A*B, GrB_mxm with accumulator GrB_PLUS_FP64 into a full C held by row (GraphBLAS's
 *                 saxpy kernel for a full C; C keeps accumulating over the runs)
 *   to_dense      a fresh C set to the scalar 0 (GrB_assign, full), C += A (GrB_assign with GrB_PLUS_FP64 over
 *                 every cell), then the row-major dense array taken out of C (GxB_Matrix_unpack_FullR)
 * Building the input matrices (from sorted tuples) is not timed, except for reorder. Prints one JSON object
 * per size, as bench_core does ("impl":"graphblas"). THREADS is GraphBLAS's global GxB_NTHREADS.
 * SPT_BENCH_CHECKSUM=1 prints, on stderr, the entries of the last output (and reduce_all's sum). */
#include "bench_gen.h"

#include <GraphBLAS.h>
#include <stdbool.h>
#include <sys/resource.h>

#define GBCK(x)                                                                                                        \
    do {                                                                                                               \
        GrB_Info info_ = (x);                                                                                          \
        if (info_ != GrB_SUCCESS) {                                                                                    \
            fprintf(stderr, "bench_graphblas: %s failed: %d\n", #x, (int)info_);                                       \
            exit(2);                                                                                                   \
        }                                                                                                              \
    } while (0)

typedef struct {
    GrB_Index nrows, ncols;
    GrB_Index *I, *J; /* reorder: the unsorted tuples */
    double *X;
    GrB_Index n;
    GrB_Matrix a, b, dense, c;
    GrB_Vector w;
    double sum; /* reduce_all's result */
} gctx;

static void shape2(const char *op, GrB_Index *m, GrB_Index *n) {
    if (!strcmp(op, "to_dense")) *m = 40000, *n = 200;
    else if (!strncmp(op, "spmm", 4)) *m = *n = 100000;
    else *m = *n = 1000000;
}

/* The input matrix `input` (0 or 1) from the generator's tuples; canonical: sorted distinct. */
static void tuples(int input, bool canonical, GrB_Index m, GrB_Index ncol, int64_t n, GrB_Index **I, GrB_Index **J,
                   double **X) {
    int64_t shape[2] = {(int64_t)m, (int64_t)ncol};
    int64_t *ix = malloc((size_t)(2 * n + 1) * sizeof *ix);
    *I = malloc((size_t)(n + 1) * sizeof **I);
    *J = malloc((size_t)(n + 1) * sizeof **J);
    *X = malloc((size_t)(n + 1) * sizeof **X);
    if (!ix || !*I || !*J || !*X) {
        fprintf(stderr, "bench_graphblas: out of memory generating %lld entries\n", (long long)n);
        exit(2);
    }
    if (canonical) bg_canonical(input, 2, shape, n, ix, *X);
    else bg_unsorted(input, 2, shape, n, ix, *X);
    for (int64_t i = 0; i < n; i++) (*I)[i] = (GrB_Index)ix[2 * i], (*J)[i] = (GrB_Index)ix[2 * i + 1];
    free(ix);
}

static GrB_Matrix matrix(int input, GrB_Index m, GrB_Index ncol, int64_t n) {
    GrB_Index *I, *J;
    double *X;
    GrB_Matrix A;
    tuples(input, true, m, ncol, n, &I, &J, &X);
    GBCK(GrB_Matrix_new(&A, GrB_FP64, m, ncol));
    GBCK(GrB_Matrix_build_FP64(A, I, J, X, (GrB_Index)n, GrB_PLUS_FP64));
    GBCK(GrB_Matrix_wait(A, GrB_MATERIALIZE));
    free(I);
    free(J);
    free(X);
    return A;
}

/* A full m x ncol matrix held by row, from a malloc'd array (GraphBLAS takes it). */
static GrB_Matrix full(GrB_Index m, GrB_Index ncol, double *x) {
    GrB_Matrix F;
    void *p = x;
    GBCK(GrB_Matrix_new(&F, GrB_FP64, m, ncol));
    GBCK(GxB_Matrix_Option_set(F, GxB_FORMAT, GxB_BY_ROW));
    GBCK(GxB_Matrix_pack_FullR(F, &p, (GrB_Index)(m * ncol * sizeof(double)), false, NULL));
    return F;
}

static void drop(gctx *c) {
    if (c->c) GrB_Matrix_free(&c->c);
    if (c->w) GrB_Vector_free(&c->w);
    c->c = NULL;
    c->w = NULL;
}

static int run_op(const char *op, gctx *c) {
    if (!strcmp(op, "reorder")) {
        drop(c);
        GBCK(GrB_Matrix_new(&c->c, GrB_FP64, c->nrows, c->ncols));
        GBCK(GrB_Matrix_build_FP64(c->c, c->I, c->J, c->X, c->n, GrB_PLUS_FP64));
        GBCK(GrB_Matrix_wait(c->c, GrB_MATERIALIZE));
    } else if (!strcmp(op, "reduce_axis1")) {
        drop(c);
        GBCK(GrB_Vector_new(&c->w, GrB_FP64, c->nrows));
        GBCK(GrB_Matrix_reduce_Monoid(c->w, NULL, NULL, GrB_PLUS_MONOID_FP64, c->a, NULL));
        GBCK(GrB_Vector_wait(c->w, GrB_MATERIALIZE));
    } else if (!strcmp(op, "reduce_all")) {
        double s = 0;
        GBCK(GrB_Matrix_reduce_FP64(&s, NULL, GrB_PLUS_MONOID_FP64, c->a, NULL));
        if (s < 0) return 1; /* keeps s live */
        c->sum = s;
    } else if (!strcmp(op, "concat1")) {
        GrB_Matrix tiles[2] = {c->a, c->b};
        drop(c);
        GBCK(GrB_Matrix_new(&c->c, GrB_FP64, c->nrows, 2 * c->ncols));
        GBCK(GxB_Matrix_concat(c->c, tiles, 1, 2, NULL));
        GBCK(GrB_Matrix_wait(c->c, GrB_MATERIALIZE));
    } else if (!strcmp(op, "add")) {
        drop(c);
        GBCK(GrB_Matrix_new(&c->c, GrB_FP64, c->nrows, c->ncols));
        GBCK(GrB_Matrix_eWiseAdd_BinaryOp(c->c, NULL, NULL, GrB_PLUS_FP64, c->a, c->b, NULL));
        GBCK(GrB_Matrix_wait(c->c, GrB_MATERIALIZE));
    } else if (!strcmp(op, "spmm")) {
        drop(c);
        GBCK(GrB_Matrix_new(&c->c, GrB_FP64, c->nrows, 32));
        GBCK(GrB_mxm(c->c, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, c->a, c->dense, NULL));
        GBCK(GrB_Matrix_wait(c->c, GrB_MATERIALIZE));
    } else if (!strcmp(op, "spmm_acc")) { /* c->c is the full accumulator, kept */
        GBCK(GrB_mxm(c->c, NULL, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, c->a, c->dense, NULL));
        GBCK(GrB_Matrix_wait(c->c, GrB_MATERIALIZE));
    } else if (!strcmp(op, "to_dense")) {
        void *x = NULL;
        GrB_Index xs = 0;
        bool iso = false;
        drop(c);
        GBCK(GrB_Matrix_new(&c->c, GrB_FP64, c->nrows, c->ncols));
        GBCK(GxB_Matrix_Option_set(c->c, GxB_FORMAT, GxB_BY_ROW));
        GBCK(GrB_Matrix_assign_FP64(c->c, NULL, NULL, 0.0, GrB_ALL, c->nrows, GrB_ALL, c->ncols, NULL));
        GBCK(GrB_Matrix_assign(c->c, NULL, GrB_PLUS_FP64, c->a, GrB_ALL, c->nrows, GrB_ALL, c->ncols, NULL));
        GBCK(GrB_Matrix_wait(c->c, GrB_MATERIALIZE));
        GBCK(GxB_Matrix_unpack_FullR(c->c, &x, &xs, &iso, NULL));
        if (iso || xs < c->nrows * c->ncols * sizeof(double)) return 1;
        free(x);
    } else {
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: bench_graphblas OP DIMS THREADS NNZ[,NNZ...] [REPS]\n");
        return 2;
    }
    const char *op = argv[1];
    int dims = atoi(argv[2]), threads = atoi(argv[3]);
    int reps = argc > 5 ? atoi(argv[5]) : 5;
    if (reps < 1) reps = 1;
    GBCK(GrB_init(GrB_NONBLOCKING));
    GBCK(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));
    char *sizes = strdup(argv[4]);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int64_t n = (int64_t)strtod(tok, NULL);
        gctx c;
        memset(&c, 0, sizeof c);
        shape2(op, &c.nrows, &c.ncols);
        bool known = true;
        printf("{\"impl\":\"graphblas\",\"threads\":%d,\"op\":\"%s\",\"dims\":%d,\"nnz\":%lld,\"input_bytes\":%.0f",
               threads, op, dims, (long long)n,
               (double)n * 24.0 * (!strcmp(op, "add") || !strcmp(op, "concat1") ? 2 : 1));
        if (dims != 2) {
            printf(",\"status\":\"unavailable\"}\n");
            fflush(stdout);
            continue;
        }
        if (!strcmp(op, "reorder")) {
            tuples(0, false, c.nrows, c.ncols, n, &c.I, &c.J, &c.X);
            c.n = (GrB_Index)n;
        } else if (!strcmp(op, "add") || !strcmp(op, "concat1")) {
            c.a = matrix(0, c.nrows, c.ncols, n);
            c.b = matrix(1, c.nrows, c.ncols, n);
        } else if (!strncmp(op, "spmm", 4)) {
            c.a = matrix(0, c.nrows, c.ncols, n);
            double *b = malloc((size_t)c.ncols * 32 * sizeof *b);
            if (!b) return 2;
            bg_dense_b((int64_t)c.ncols, n, b);
            c.dense = full(c.ncols, 32, b);
            if (!strcmp(op, "spmm_acc")) c.c = full(c.nrows, 32, calloc((size_t)c.nrows * 32, sizeof(double)));
        } else if (!strcmp(op, "reduce_axis1") || !strcmp(op, "reduce_all") || !strcmp(op, "to_dense")) {
            c.a = matrix(0, c.nrows, c.ncols, n);
        } else {
            known = false;
        }
        if (!known) {
            printf(",\"status\":\"unavailable\"}\n");
            fflush(stdout);
            continue;
        }
        double *t = malloc(sizeof(double) * (size_t)reps), *cpu = malloc(sizeof(double) * (size_t)reps);
        long extra_kb = 0;
        int bad = 0;
        double first = 0, warm = 0;
        int wcalls = 0;
        for (int k = -1; k < reps && !bad; k++) { /* k = -1: a warm-up call (BG_WARM_S) */
            bg_reset_hwm();
            long before = bg_status_kb("VmRSS");
            double c0 = bg_cpu_now(), t0 = bg_now();
            bad = run_op(op, &c);
            double t1 = bg_now(), c1 = bg_cpu_now();
            long hwm = bg_status_kb("VmHWM");
            if (hwm - before > extra_kb) extra_kb = hwm - before;
            if (k >= 0) t[k] = t1 - t0, cpu[k] = c1 - c0;
            if (k < 0) {
                if (wcalls++ == 0) first = t1 - t0;
                warm += t1 - t0;
                if (warm < BG_WARM_S && wcalls < BG_WARM_MAX) k--; /* another warm-up call */
            }
        }
        if (bad) {
            printf(",\"status\":\"error\"}\n");
        } else {
            qsort(t, (size_t)reps, sizeof *t, bg_cmp_d);
            qsort(cpu, (size_t)reps, sizeof *cpu, bg_cmp_d);
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            printf(",\"status\":\"ok\",\"reps\":%d,\"median\":%.9g,\"min\":%.9g,\"max\":%.9g,\"peak_rss\":%.0f,"
                   "\"op_peak_extra\":%.0f,\"cpu_median\":%.9g,\"first\":%.9g,\"warmup_calls\":%d,"
                   "\"version\":\"%d.%d.%d\"}\n",
                   reps, t[reps / 2], t[0], t[reps - 1], (double)ru.ru_maxrss * 1024.0, (double)extra_kb * 1024.0,
                   cpu[reps / 2], first, wcalls, GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR,
                   GxB_IMPLEMENTATION_SUB);
        }
        fflush(stdout);
        if (!bad && getenv("SPT_BENCH_CHECKSUM")) { /* what the last run produced, to compare with spt */
            GrB_Index nv = 0;
            if (c.c) GrB_Matrix_nvals(&nv, c.c);
            if (c.w) GrB_Vector_nvals(&nv, c.w);
            fprintf(stderr, "checksum %s: output entries %llu, sum %.17g\n", op, (unsigned long long)nv, c.sum);
        }
        free(t);
        free(cpu);
        drop(&c);
        if (c.a) GrB_Matrix_free(&c.a);
        if (c.b) GrB_Matrix_free(&c.b);
        if (c.dense) GrB_Matrix_free(&c.dense);
        free(c.I);
        free(c.J);
        free(c.X);
    }
    free(sizes);
    GrB_finalize();
    return 0;
}
