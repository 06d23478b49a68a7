/* SPDX-License-Identifier: Apache-2.0 */
/* bench_keys.c -- the key engine at its three widths: reorder, concat, add and reduce_sum
 * of NNZ uniform random entries with 64-bit keys ([1000]^3), 128-bit keys (FROSTT nell-1's dims
 * [2902330, 2143368, 25495389]) and wide keys (rank 6, every dim 2^62).
 *
 *   bench_keys OP WIDTH NNZ [REPS]     OP: reorder concat add reduce; WIDTH: 64 128 wide
 *
 * reorder: spt_reordered of an unsorted tensor; concat: two unsorted inputs of NNZ entries along axis 1
 * (wide: dim 1 is 2^61 there, so that the concatenated dim fits in int64);
 * add: two unsorted inputs of NNZ entries; reduce: spt_reduce_sum_sparse keeping every dim (the widest
 * key: a sort and a sum of the repeated indices). Prints one line: op, width, nnz, median and min
 * seconds over REPS runs after one warm-up, and the median CPU time of the process (all threads).
 *
 * Build after `make`: cc -O2 -fopenmp -Iinclude bench/bench_keys.c build/libspt.a -lm -lzip -lpng16 -o build/bench_keys
 * Figures: bench/results/keys.md. */
#include "spt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static spt_tensor *gen(int input, int64_t r, const int64_t *shape, int64_t n) {
    int64_t *ix = malloc((size_t)(n * r) * sizeof *ix);
    double *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t d = 0; d < r; d++)
            ix[i * r + d] = (int64_t)(mix((uint64_t)(input * 64 + d), (uint64_t)i) % (uint64_t)shape[d]);
        v[i] = (double)(mix((uint64_t)input * 64 + 63, (uint64_t)i) >> 11) * 0x1p-53;
    }
    spt_tensor *t = NULL;
    if (spt_tensor_new(SPT_FLOAT64, r, shape, n, ix, v, NULL, &t) != SPT_OK) {
        fprintf(stderr, "bench_keys: %s\n", spt_last_error());
        exit(1);
    }
    free(ix);
    free(v);
    return t;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process (every thread): steadier than the wall clock on a loaded machine. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_keys OP WIDTH NNZ [REPS]\n");
        return 2;
    }
    const char *op = argv[1], *w = argv[2];
    int64_t n = atoll(argv[3]);
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    const int64_t P62 = (int64_t)1 << 62;
    int64_t s64[] = {1000, 1000, 1000}, s128[] = {2902330, 2143368, 25495389}, sw[] = {P62, P62, P62, P62, P62, P62};
    int64_t r = 3, *shape = s64;
    if (!strcmp(w, "128")) shape = s128;
    else if (!strcmp(w, "wide")) {
        shape = sw;
        r = 6;
    }
    if (!strcmp(op, "concat") && r == 6) sw[1] = P62 / 2;
    spt_tensor *a = gen(1, r, shape, n), *b = gen(2, r, shape, n);
    double *t = malloc(sizeof(double) * (size_t)(reps + 1)), *cpu = malloc(sizeof(double) * (size_t)(reps + 1));
    for (int k = 0; k <= reps; k++) {
        spt_tensor *o = NULL;
        spt_status st = SPT_EINVAL;
        double t0 = now(), c0 = cpu_now();
        if (!strcmp(op, "reorder")) st = spt_reordered(a, NULL, &o);
        else if (!strcmp(op, "concat")) {
            const spt_tensor *in[2] = {a, b};
            st = spt_concat(in, 2, 1, false, &o);
        } else if (!strcmp(op, "add")) st = spt_add(a, b, 0.0, &o);
        else if (!strcmp(op, "reduce")) {
            int64_t none = 0;
            st = spt_reduce_sum_sparse(a, &none, 0, false, &o);
        }
        double dt = now() - t0, dc = cpu_now() - c0;
        if (st != SPT_OK) {
            fprintf(stderr, "bench_keys: %s\n", spt_last_error());
            return 1;
        }
        spt_tensor_free(o);
        if (k > 0) {
            t[k - 1] = dt;
            cpu[k - 1] = dc;
        }
    }
    qsort(t, (size_t)reps, sizeof *t, cmpd);
    qsort(cpu, (size_t)reps, sizeof *cpu, cmpd);
    printf("%s width=%s nnz=%lld median=%.4f min=%.4f s cpu_median=%.4f s\n", op, w, (long long)n, t[reps / 2], t[0],
           cpu[reps / 2]);
    spt_tensor_free(a);
    spt_tensor_free(b);
    free(t);
    free(cpu);
    return 0;
}
