/* SPDX-License-Identifier: Apache-2.0 */
/* bench_gen.h -- the benchmark inputs and the timing helpers shared by bench_core.c, bench_graphblas.c and
 * bench_rowptr.c. The generator is mirrored bit for bit by bench/gen.py (a counter-based generator:
 * splitmix64's finalizer of a stream id and the entry number), so C programs and the Python peers build the
 * same data without files. Header-only (static functions): each bench program is one translation unit. */
#ifndef SPT_BENCH_GEN_H
#define SPT_BENCH_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t bg_mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A stream id per (input, field, nnz): identical in gen.py. */
static inline uint64_t bg_stream(int input, int field, int64_t n) {
    return (uint64_t)input * 1000003u + (uint64_t)field * 101u + (uint64_t)n;
}

static inline double bg_unit(uint64_t z) { return (double)(z >> 11) * (1.0 / 9007199254740992.0); }

/* Independent uniform coordinates (duplicates possible), values in [0,1); ix is n x r row-major. */
static inline void bg_unsorted(int input, int64_t r, const int64_t *shape, int64_t n, int64_t *ix, double *v) {
    for (int64_t d = 0; d < r; d++) {
        uint64_t s = bg_stream(input, (int)d, n);
        for (int64_t i = 0; i < n; i++) ix[i * r + d] = (int64_t)(bg_mix(s, (uint64_t)i) % (uint64_t)shape[d]);
    }
    uint64_t s = bg_stream(input, 63, n);
    for (int64_t i = 0; i < n; i++) v[i] = bg_unit(bg_mix(s, (uint64_t)i));
}

/* Canonical: distinct, row-major sorted; key_i = i*s + (h_i mod s) with s = volume / n. */
static inline void bg_canonical(int input, int64_t r, const int64_t *shape, int64_t n, int64_t *ix, double *v) {
    uint64_t vol = 1;
    for (int64_t d = 0; d < r; d++) vol *= (uint64_t)shape[d];
    uint64_t s = vol / (uint64_t)n, sk = bg_stream(input, 62, n), sv = bg_stream(input, 63, n);
    for (int64_t i = 0; i < n; i++) {
        uint64_t key = (uint64_t)i * s + bg_mix(sk, (uint64_t)i) % s;
        for (int64_t d = r - 1; d >= 0; d--) {
            ix[i * r + d] = (int64_t)(key % (uint64_t)shape[d]);
            key /= (uint64_t)shape[d];
        }
        v[i] = bg_unit(bg_mix(sv, (uint64_t)i));
    }
}

/* The dense right operand of spmm: [rows, 32] float64 (gen.dense_b). */
static inline void bg_dense_b(int64_t rows, int64_t n, double *b) {
    uint64_t s = bg_stream(2, 63, n);
    for (int64_t i = 0; i < rows * 32; i++) b[i] = bg_unit(bg_mix(s, (uint64_t)i));
}

/* The density workload (gen.density_a / density_b): A [m,k] keeps cell c (row-major) when
 * unit(mix(stream(0, 61, m*k), c)) < density, with value unit(mix(stream(0, 63, m*k), c)); B [k,n] dense
 * with b[c] = unit(mix(stream(1, 63, k*n), c)). Returns the entries kept (ix n x 2, v), at most m*k. */
static inline int64_t bg_density_a(int64_t m, int64_t k, double density, int64_t *ix, double *v) {
    uint64_t sk = bg_stream(0, 61, m * k), sv = bg_stream(0, 63, m * k);
    int64_t n = 0;
    for (int64_t c = 0; c < m * k; c++)
        if (bg_unit(bg_mix(sk, (uint64_t)c)) < density) {
            ix[2 * n] = c / k;
            ix[2 * n + 1] = c % k;
            v[n++] = bg_unit(bg_mix(sv, (uint64_t)c));
        }
    return n;
}
static inline void bg_density_b(int64_t k, int64_t ncols, double *b) {
    uint64_t s = bg_stream(1, 63, k * ncols);
    for (int64_t c = 0; c < k * ncols; c++) b[c] = bg_unit(bg_mix(s, (uint64_t)c));
}

/* ---- measurement ---- */

/* The warm-up before the timed runs, the same for every implementation (bench/README.md, "Warm-up"): calls
 * until they have taken BG_WARM_S seconds in all, at least one and at most BG_WARM_MAX. One call was not
 * enough at 1e5 entries: on this shared host the inputs leave the last-level cache between runs, and the
 * next few calls are up to 3x slower until they are back; and 20 ms was not enough either: the first timed
 * repetitions still ran up to 2x slower for 100-200 ms, with no page fault and no context switch. */
#define BG_WARM_S 0.2
#define BG_WARM_MAX 200

static inline double bg_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double bg_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline long bg_status_kb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t fl = strlen(field);
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, fl) && line[fl] == ':') {
            kb = strtol(line + fl + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/* Reset VmHWM so that the next read gives the peak since now. */
static inline void bg_reset_hwm(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

/* v[0] = compact_stall, v[1] = thp_fault_alloc from /proc/vmstat (system-wide counters; -1 if unreadable). */
static inline void bg_vmstat(long v[2]) {
    FILE *f = fopen("/proc/vmstat", "r");
    char name[64];
    long x;
    v[0] = v[1] = -1;
    if (!f) return;
    while (fscanf(f, "%63s %ld", name, &x) == 2) {
        if (!strcmp(name, "compact_stall")) v[0] = x;
        else if (!strcmp(name, "thp_fault_alloc")) v[1] = x;
    }
    fclose(f);
}

static inline int bg_cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
