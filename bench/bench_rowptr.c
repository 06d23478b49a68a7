/* SPDX-License-Identifier: Apache-2.0 */
/* bench_rowptr.c -- a prototype (not library code) to decide whether a compressed index of the leading
 * dimension, built when a tensor is sorted and kept with it, is worth its memory for row sums (reduce over
 * axis 1 of a 2-D tensor, GraphBLAS's CSR row sums). The decision is in bench/results/NOTES.md.
 *
 *   bench_rowptr THREADS NNZ[,NNZ...] [REPS] [ROWS]
 *
 * Input: the canonical 2-D [ROWS, 1e6] tensor of bench_core (default ROWS 1e6; entries distinct, sorted).
 * Prints one JSON object per variant and size (bench_core's format, "impl":"rowptr_proto"):
 *   spt           spt_reduce_sum over axis 1 (the library today, dense output of ROWS)
 *   coo_scan      the same sum written plainly over interleaved COO: out[row] += v, fresh zeroed output, the
 *                 entries split between threads at row boundaries (reads the 16-byte index rows + values)
 *   rowptr_build  building the row pointer (ROWS+1 int64) from the sorted COO: the cost paid once per sort
 *   rowptr_sum    row sums from the row pointer and the values only (CSR: reads 8 B per row + 8 B per entry)
 *   hyper_build   building the hypersparse form: (row, start) of each non-empty row only
 *   hyper_sum     row sums from it (reads 16 B per non-empty row + 8 B per entry)
 * and one "memory" object: the bytes of the tensor, of the row pointer and of the hypersparse index. */
#include "spt.h"
#include "bench_gen.h"

#include <stdbool.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    const int64_t *ix;
    const double *v;
    int64_t n, rows, nz_rows;
    int threads;
    int64_t *rowptr;        /* rows + 1 */
    int64_t *hrow, *hstart; /* nz_rows, nz_rows + 1 */
    spt_tensor *a;
    double *out;
} rp;

static void check(spt_status st, const char *what) {
    if (st != SPT_OK) {
        fprintf(stderr, "bench_rowptr: %s: %s (%s)\n", what, spt_status_name(st), spt_last_error());
        exit(2);
    }
}

/* Entry ranges for T threads, each starting at a row's first entry. */
static void row_chunks(const rp *c, int T, int64_t *bnd) {
    bnd[0] = 0;
    for (int t = 1; t < T; t++) {
        int64_t i = c->n / T * t;
        if (i < bnd[t - 1]) i = bnd[t - 1];
        while (i > 0 && i < c->n && c->ix[2 * i] == c->ix[2 * (i - 1)]) i++;
        bnd[t] = i;
    }
    bnd[T] = c->n;
}

static int run_spt(rp *c) {
    int64_t axis = 1;
    spt_dense *d = NULL;
    spt_status st = spt_reduce_sum(c->a, &axis, 1, false, &d);
    spt_dense_free(d);
    return st != SPT_OK;
}

static int run_coo_scan(rp *c) {
    const int T = c->threads;
    int64_t bnd[65];
    free(c->out);
    c->out = calloc((size_t)c->rows, sizeof(double));
    if (!c->out) return 1;
    row_chunks(c, T, bnd);
    double *out = c->out;
    const int64_t *ix = c->ix;
    const double *v = c->v;
#pragma omp parallel for schedule(static, 1) num_threads(T)
    for (int t = 0; t < T; t++) {
        int64_t i = bnd[t];
        while (i < bnd[t + 1]) {
            const int64_t row = ix[2 * i];
            double s = 0;
            for (; i < bnd[t + 1] && ix[2 * i] == row; i++) s += v[i];
            out[row] = s;
        }
    }
    return 0;
}

static int run_rowptr_build(rp *c) {
    const int T = c->threads;
    const int64_t n = c->n, rows = c->rows, *ix = c->ix;
    int64_t *p = c->rowptr;
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t i = 0; i < n; i++) { /* each slot is written by exactly one row transition */
        const int64_t prev = i == 0 ? -1 : ix[2 * (i - 1)], row = ix[2 * i];
        for (int64_t r = prev + 1; r <= row; r++) p[r] = i;
    }
    for (int64_t r = (n ? ix[2 * (n - 1)] : -1) + 1; r <= rows; r++) p[r] = n;
    return 0;
}

static int run_rowptr_sum(rp *c) {
    const int T = c->threads;
    free(c->out);
    c->out = malloc((size_t)c->rows * sizeof(double));
    if (!c->out) return 1;
    double *out = c->out;
    const int64_t *p = c->rowptr;
    const double *v = c->v;
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t r = 0; r < c->rows; r++) {
        double s = 0;
        for (int64_t i = p[r]; i < p[r + 1]; i++) s += v[i];
        out[r] = s;
    }
    return 0;
}

static int run_hyper_build(rp *c) { /* serial: one pass over the row column */
    const int64_t n = c->n, *ix = c->ix;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || ix[2 * i] != ix[2 * (i - 1)]) c->hrow[k] = ix[2 * i], c->hstart[k++] = i;
    c->hstart[k] = n;
    c->nz_rows = k;
    return 0;
}

static int run_hyper_sum(rp *c) {
    const int T = c->threads;
    free(c->out);
    c->out = calloc((size_t)c->rows, sizeof(double));
    if (!c->out) return 1;
    double *out = c->out;
    const int64_t *hr = c->hrow, *hs = c->hstart;
    const double *v = c->v;
#pragma omp parallel for schedule(static) num_threads(T)
    for (int64_t k = 0; k < c->nz_rows; k++) {
        double s = 0;
        for (int64_t i = hs[k]; i < hs[k + 1]; i++) s += v[i];
        out[hr[k]] = s;
    }
    return 0;
}

static void timed(const char *name, int (*fn)(rp *), rp *c, int reps, int64_t n) {
    double *t = malloc(sizeof(double) * (size_t)reps);
    int bad = 0;
    if (!t) exit(2);
    for (int k = -1; k < reps && !bad; k++) {
        double t0 = bg_now();
        bad = fn(c);
        double t1 = bg_now();
        if (k >= 0) t[k] = t1 - t0;
    }
    if (bad) {
        printf("{\"impl\":\"rowptr_proto\",\"op\":\"%s\",\"nnz\":%lld,\"status\":\"error\"}\n", name, (long long)n);
    } else {
        qsort(t, (size_t)reps, sizeof *t, bg_cmp_d);
        printf("{\"impl\":\"rowptr_proto\",\"threads\":%d,\"op\":\"%s\",\"dims\":2,\"rows\":%lld,\"nnz\":%lld,"
               "\"status\":\"ok\",\"reps\":%d,\"median\":%.9g,\"min\":%.9g,\"max\":%.9g}\n",
               c->threads, name, (long long)c->rows, (long long)n, reps, t[reps / 2], t[0], t[reps - 1]);
    }
    fflush(stdout);
    free(t);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_rowptr THREADS NNZ[,NNZ...] [REPS] [ROWS]\n");
        return 2;
    }
    int threads = atoi(argv[1]), reps = argc > 3 ? atoi(argv[3]) : 5;
    int64_t rows = argc > 4 ? (int64_t)strtod(argv[4], NULL) : 1000000;
    if (threads < 1 || threads > 64) threads = 1;
    if (reps < 1) reps = 1;
    spt_set_num_threads(threads);
    char *sizes = strdup(argv[2]);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int64_t n = (int64_t)strtod(tok, NULL), shape[2] = {rows, 1000000};
        int64_t *ix = malloc((size_t)(2 * n + 1) * sizeof *ix);
        double *v = malloc((size_t)(n + 1) * sizeof *v);
        rp c;
        memset(&c, 0, sizeof c);
        if (!ix || !v) return 2;
        bg_canonical(0, 2, shape, n, ix, v);
        check(spt_tensor_new(SPT_FLOAT64, 2, shape, n, ix, v, NULL, &c.a), "spt_tensor_new");
        check(spt_reorder(c.a, NULL), "spt_reorder");
        free(ix);
        free(v);
        c.ix = spt_tensor_indices(c.a);
        c.v = spt_tensor_values(c.a);
        c.n = n;
        c.rows = rows;
        c.threads = threads;
        c.rowptr = calloc((size_t)rows + 1, sizeof(int64_t));
        c.hrow = calloc((size_t)n + 1, sizeof(int64_t));
        c.hstart = calloc((size_t)n + 2, sizeof(int64_t));
        if (!c.rowptr || !c.hrow || !c.hstart) return 2;
        timed("spt", run_spt, &c, reps, n);
        timed("coo_scan", run_coo_scan, &c, reps, n);
        timed("rowptr_build", run_rowptr_build, &c, reps, n);
        timed("rowptr_sum", run_rowptr_sum, &c, reps, n);
        double *ref = c.out;
        c.out = NULL;
        timed("hyper_build", run_hyper_build, &c, reps, n);
        timed("hyper_sum", run_hyper_sum, &c, reps, n);
        for (int64_t r = 0; r < rows; r++) /* the two forms agree exactly (same order of terms) */
            if (ref[r] != c.out[r]) {
                fprintf(stderr, "bench_rowptr: row %lld differs\n", (long long)r);
                return 1;
            }
        printf("{\"impl\":\"rowptr_proto\",\"op\":\"memory\",\"rows\":%lld,\"nnz\":%lld,\"tensor_bytes\":%lld,"
               "\"rowptr_bytes\":%lld,\"nz_rows\":%lld,\"hyper_bytes\":%lld}\n",
               (long long)rows, (long long)n, (long long)(n * 24), (long long)((rows + 1) * 8), (long long)c.nz_rows,
               (long long)(c.nz_rows * 16 + 8));
        free(ref);
        free(c.out);
        free(c.rowptr);
        free(c.hrow);
        free(c.hstart);
        spt_tensor_free(c.a);
    }
    free(sizes);
    return 0;
}
