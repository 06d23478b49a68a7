/* SPDX-License-Identifier: Apache-2.0 */
/* bench_concat.c -- spt_concat of two row-major sorted 10^6-entry rank-3 tensors along axis 0 and axis 1,
 * against the same concatenation done by a full re-sort (copy with offsets, then a stable radix argsort of
 * all entries and a gather). Median of 5 runs each.
 *
 * Build and run (from the repository root, after `make build/libspt.a`):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -fopenmp -Iinclude bench/bench_concat.c build/libspt.a -lm -o build/bench_concat
 *   ./build/bench_concat [nnz_per_input] [threads]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spt.h"

#define RUNS 5

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v) {
    qsort(v, RUNS, sizeof *v, cmp_double);
    return v[RUNS / 2];
}

static void die(spt_status st, const char *what) {
    if (st != SPT_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, spt_status_name(st), spt_last_error());
        exit(1);
    }
}

/* A random rank-3 tensor of `n` entries in shape [1000,1000,1000], sorted row-major by spt_reorder. */
static spt_tensor *make_input(int64_t n) {
    int64_t shape[3] = {1000, 1000, 1000};
    spt_tensor *t;
    die(spt_tensor_alloc(SPT_FLOAT64, 3, shape, n, &t), "alloc");
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    for (int64_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) ix[i * 3 + d] = (int64_t)(next() % 1000);
        v[i] = (double)i;
    }
    die(spt_reorder(t, NULL), "reorder");
    return t;
}

/* The baseline: concatenate with offsets in input order, then fully re-sort (argsort + gather). */
static spt_tensor *concat_resort(const spt_tensor *a, const spt_tensor *b, int axis) {
    const int64_t na = spt_tensor_nnz(a), nb = spt_tensor_nnz(b), n = na + nb;
    int64_t shape[3];
    memcpy(shape, spt_tensor_shape(a), sizeof shape);
    shape[axis] += spt_tensor_shape(b)[axis];
    spt_tensor *cat, *out;
    die(spt_tensor_alloc(SPT_FLOAT64, 3, shape, n, &cat), "alloc");
    int64_t *ix = spt_tensor_indices_mut(cat);
    double *v = spt_tensor_values_mut(cat);
    memcpy(ix, spt_tensor_indices(a), (size_t)na * 3 * sizeof *ix);
    memcpy(ix + na * 3, spt_tensor_indices(b), (size_t)nb * 3 * sizeof *ix);
    for (int64_t i = na; i < n; i++) ix[i * 3 + axis] += spt_tensor_shape(a)[axis];
    memcpy(v, spt_tensor_values(a), (size_t)na * sizeof *v);
    memcpy(v + na, spt_tensor_values(b), (size_t)nb * sizeof *v);
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    die(spt_argsort(cat, NULL, perm), "argsort");
    die(spt_tensor_alloc(SPT_FLOAT64, 3, shape, n, &out), "alloc");
    int64_t *ox = spt_tensor_indices_mut(out);
    double *ov = spt_tensor_values_mut(out);
    for (int64_t k = 0; k < n; k++) {
        const int64_t *s = ix + perm[k] * 3;
        ox[k * 3] = s[0];
        ox[k * 3 + 1] = s[1];
        ox[k * 3 + 2] = s[2];
        ov[k] = v[perm[k]];
    }
    free(perm);
    spt_tensor_free(cat);
    return out;
}

static void check_same(const spt_tensor *x, const spt_tensor *y) {
    int64_t n = spt_tensor_nnz(x);
    if (n != spt_tensor_nnz(y) || memcmp(spt_tensor_indices(x), spt_tensor_indices(y), (size_t)n * 3 * 8) != 0 ||
        memcmp(spt_tensor_values(x), spt_tensor_values(y), (size_t)n * 8) != 0) {
        fprintf(stderr, "bench_concat: results differ\n");
        exit(1);
    }
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
    if (argc > 2) spt_set_num_threads(atoi(argv[2]));
    spt_tensor *a = make_input(n), *b = make_input(n);
    const spt_tensor *in[2] = {a, b};
    printf("concat of two sorted rank-3 tensors of %lld entries each, shape [1000,1000,1000], %d thread(s), median of "
           "%d\n",
           (long long)n, spt_get_num_threads(), RUNS);
    for (int axis = 0; axis < 2; axis++) {
        double tc[RUNS], tr[RUNS];
        for (int r = 0; r < RUNS; r++) {
            spt_tensor *c, *s;
            double t0 = now();
            die(spt_concat(in, 2, axis, false, &c), "spt_concat");
            double t1 = now();
            s = concat_resort(a, b, axis);
            double t2 = now();
            tc[r] = t1 - t0;
            tr[r] = t2 - t1;
            check_same(c, s);
            spt_tensor_free(c);
            spt_tensor_free(s);
        }
        double mc = median(tc), mr = median(tr);
        printf("axis %d: spt_concat %.1f ms   full re-sort %.1f ms   (%.1fx)\n", axis, 1e3 * mc, 1e3 * mr, mr / mc);
    }
    spt_tensor_free(a);
    spt_tensor_free(b);
    return 0;
}
