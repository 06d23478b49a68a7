/* SPDX-License-Identifier: Apache-2.0 */
/* bench_sparsify.c -- sparsify a dense 2000 x 2000 float64 matrix through a map of 10^4 keys x 100
 * dependent indices, from dense and from sparse input, next to plain copies of the same number of
 * elements (the lower bound). Median of 5 runs each.
 *
 * Build and run (after `make all`), from the repository root:
 *   cc -std=c11 -D_GNU_SOURCE -O2 -fopenmp -Iinclude bench/bench_sparsify.c build/libspt.a -lm -o build/bench_sparsify
 *   ./build/bench_sparsify            (OMP_NUM_THREADS=1 ./build/bench_sparsify for one thread)
 *
 * Two maps, both with 10^4 keys x 100 dependent indices = 10^6 copied elements:
 *   A  "row pick":  outer (o0, o1) in 5 x 2000, ind2mode {1: 0}: inner[x] = T[o1, x] over 100 random
 *                   distinct columns x (inner shape [100]);
 *   B  "blocks":    outer o in 10^4, no injection: dependent indices are a 10 x 10 grid of random rows x
 *                   random columns (inner shape [10, 10]).
 * Sparse input: the same matrix as an spt_tensor (all 4*10^6 entries, row-major sorted), and the same
 * tensor sorted column-major (searched in that order, in place).
 *
 * Figures measured 2026-11-22 on the 2-core build machine while other jobs kept the load average at 7-9
 * (so they are inflated and noisy; medians of 5, ranges over 4 runs, 1 thread):
 *   memcpy of 10^6 doubles into a new buffer 1-9 ms; random gather of 10^6 doubles 30-47 ms
 *   A: dense T 38-43 ms, sparse row-major 77-108 ms, sparse column-major 127-151 ms
 *   B: dense T 55-84 ms, sparse row-major 128-159 ms, sparse column-major 131-178 ms
 *   map construction (10^6 sorted pairs) 140-310 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spt.h"

#define N 2000
#define KEYS 10000
#define DEPS 100
#define RUNS 5

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t) {
    qsort(t, RUNS, sizeof *t, cmp_d);
    return t[RUNS / 2];
}

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        spt_status s_ = (call);                                                                                        \
        if (s_ != SPT_OK) {                                                                                            \
            fprintf(stderr, "%s failed: %s\n", #call, spt_last_error());                                               \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* k distinct values in [0, n), sorted. */
static void distinct(int64_t *out, int k, int64_t n) {
    char *used = calloc((size_t)n, 1);
    for (int i = 0; i < k;) {
        int64_t v = (int64_t)(next() % (uint64_t)n);
        if (!used[v]) {
            used[v] = 1;
            i++;
        }
    }
    for (int64_t v = 0, i = 0; v < n; v++)
        if (used[v]) out[i++] = v;
    free(used);
}

typedef struct {
    const char *name;
    spt_sparse_map *sm;
    int64_t nmap, i2m[2], orank, oshape[2];
} mapcase;

int main(void) {
    int64_t shape[2] = {N, N};
    double *v = malloc((size_t)N * N * sizeof(double));
    for (int64_t i = 0; i < (int64_t)N * N; i++) v[i] = 1.0 + (double)(next() % 1000000);
    spt_dense *T;
    CHECK(spt_dense_wrap(SPT_FLOAT64, 2, shape, v, NULL, NULL, &T));
    spt_tensor *S, *Scol;
    CHECK(spt_from_dense(T, NULL, &S));
    CHECK(spt_tensor_clone(S, &Scol));
    CHECK(spt_reorder(Scol, (int64_t[]){1, 0}));

    /* map A */
    int64_t np = (int64_t)KEYS * DEPS;
    int64_t *ind = malloc((size_t)np * 2 * sizeof(int64_t)), *dep = malloc((size_t)np * 2 * sizeof(int64_t));
    int64_t cols[DEPS], rows[10], cc[10];
    for (int64_t k = 0; k < KEYS; k++) {
        distinct(cols, DEPS, N);
        for (int d = 0; d < DEPS; d++) {
            ind[(k * DEPS + d) * 2] = k / N;
            ind[(k * DEPS + d) * 2 + 1] = k % N;
            dep[k * DEPS + d] = cols[d];
        }
    }
    mapcase mc[2] = {{"A row pick (ind2mode {1:0}, inner [100])", NULL, 1, {1, 0}, 2, {KEYS / N, N}},
                     {"B blocks (no injection, inner [10,10])", NULL, 0, {0, 0}, 1, {KEYS, 0}}};
    double t0 = now();
    CHECK(spt_sparse_map_new(2, 1, np, ind, dep, &mc[0].sm));
    double tmapA = now() - t0;
    for (int64_t k = 0; k < KEYS; k++) {
        distinct(rows, 10, N);
        distinct(cc, 10, N);
        for (int a = 0; a < 10; a++)
            for (int b = 0; b < 10; b++) {
                ind[k * DEPS + a * 10 + b] = k;
                dep[(k * DEPS + a * 10 + b) * 2] = rows[a];
                dep[(k * DEPS + a * 10 + b) * 2 + 1] = cc[b];
            }
    }
    t0 = now();
    CHECK(spt_sparse_map_new(1, 2, np, ind, dep, &mc[1].sm));
    double tmapB = now() - t0;

    /* lower bounds: memcpy of 10^6 doubles, and a gather of 10^6 doubles through an index list */
    double *dst = malloc((size_t)np * sizeof(double));
    int64_t *gidx = malloc((size_t)np * sizeof(int64_t));
    for (int64_t i = 0; i < np; i++) gidx[i] = (int64_t)(next() % ((uint64_t)N * N));
    double tm[RUNS], tg[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double *fresh = malloc((size_t)np * sizeof(double));
        t0 = now();
        memcpy(fresh, v + (size_t)r * 1000, (size_t)np * sizeof(double));
        tm[r] = now() - t0;
        t0 = now();
        for (int64_t i = 0; i < np; i++) dst[i] = v[gidx[i]];
        tg[r] = now() - t0;
        if (fresh[r] != v[(size_t)r * 1000 + (size_t)r]) return 2;
        free(fresh);
    }
    printf("spt sparsify benchmark: T dense %dx%d float64, %d keys x %d dependent indices (%lld elements), "
           "threads %d, median of %d\n",
           N, N, KEYS, DEPS, (long long)np, spt_get_num_threads(), RUNS);
    printf("  map construction: A %.1f ms, B %.1f ms (pairs already sorted)\n", tmapA * 1e3, tmapB * 1e3);
    printf("  lower bound: memcpy of %lld doubles into a new buffer %.2f ms; random gather %.2f ms\n", (long long)np,
           median(tm) * 1e3, median(tg) * 1e3);
    for (int c = 0; c < 2; c++) {
        double td[RUNS], ts[RUNS], tc[RUNS];
        for (int r = 0; r < RUNS; r++) {
            spt_tot *a, *b, *d;
            t0 = now();
            CHECK(spt_sparsify_dense(T, mc[c].sm, mc[c].nmap, mc[c].i2m, mc[c].oshape, &a));
            td[r] = now() - t0;
            t0 = now();
            CHECK(spt_sparsify(S, mc[c].sm, mc[c].nmap, mc[c].i2m, mc[c].oshape, &b));
            ts[r] = now() - t0;
            t0 = now();
            CHECK(spt_sparsify(Scol, mc[c].sm, mc[c].nmap, mc[c].i2m, mc[c].oshape, &d));
            tc[r] = now() - t0;
            if (spt_tot_total_size(a) != np || spt_tot_total_size(b) != np || spt_tot_count(d) != KEYS) return 3;
            spt_tot_inner x, y;
            CHECK(spt_tot_entry(a, KEYS / 2, &x));
            CHECK(spt_tot_entry(d, KEYS / 2, &y));
            if (memcmp(x.data, y.data, (size_t)x.size * sizeof(double))) return 4;
            spt_tot_free(a);
            spt_tot_free(b);
            spt_tot_free(d);
        }
        printf("  %s:\n", mc[c].name);
        printf("    dense T                      %8.2f ms\n", median(td) * 1e3);
        printf("    sparse T (row-major sorted)  %8.2f ms\n", median(ts) * 1e3);
        printf("    sparse T (column-major)      %8.2f ms\n", median(tc) * 1e3);
    }
    spt_sparse_map_free(mc[0].sm);
    spt_sparse_map_free(mc[1].sm);
    spt_tensor_free(S);
    spt_tensor_free(Scol);
    spt_dense_free(T);
    free(v);
    free(ind);
    free(dep);
    free(dst);
    free(gidx);
    return 0;
}
