/* bench_core.c -- time spt's core ops on fixed-seed inputs (the workloads of bench/README.md).
 *
 *   bench_core OP DIMS THREADS NNZ[,NNZ...] [REPS]
 *   bench_core bandwidth 0 1 BYTES [REPS]
 *   bench_core copyfloor DIMS THREADS NNZ[,NNZ...] [REPS]
 *
 * OP: reorder, reduce_axis1, reduce_all, concat1, add, spmm, to_dense, bandwidth. DIMS: 2 or 3 (the
 * shapes are fixed per op and dims; bench/gen.py builds the very same inputs for the peers). Prints
 * one JSON object per size on stdout: median/min/max seconds over REPS timed runs after one warm-up,
 * the process peak RSS (getrusage) and the op's own peak (VmHWM reset through /proc/self/clear_refs
 * before each run, minus the RSS before it). Ops the library does not have yet print
 * "status":"unavailable" (compiled in by the -DSPT_BENCH_HAVE_* flags that bench/features.sh finds).
 *
 * copyfloor: the floor of any op that reads add's two inputs once and writes a fresh output of the same
 * size (add, concat): per run, a fresh buffer pair for the 2*NNZ entries (index rows and values, with
 * transparent huge pages advised as spt does) is allocated and both inputs are copied into it with
 * THREADS threads (memcpy, each thread its own contiguous share); the previous run's pair is freed at
 * the start of the run, as add_run frees its previous output. */
#include "spt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- the generator (mirrored by bench/gen.py) ---- */

static uint64_t mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A stream id per (input, field): identical in gen.py. */
static uint64_t stream(int input, int field, int64_t n) { return (uint64_t)input * 1000003u + (uint64_t)field * 101u + (uint64_t)n; }

static double unit(uint64_t z) { return (double)(z >> 11) * (1.0 / 9007199254740992.0); }

/* Independent uniform coordinates (duplicates possible), values in [0,1). */
static void gen_unsorted(int input, int64_t r, const int64_t *shape, int64_t n, int64_t *ix, double *v) {
    for (int64_t d = 0; d < r; d++) {
        uint64_t s = stream(input, (int)d, n);
        for (int64_t i = 0; i < n; i++) ix[i * r + d] = (int64_t)(mix(s, (uint64_t)i) % (uint64_t)shape[d]);
    }
    uint64_t s = stream(input, 63, n);
    for (int64_t i = 0; i < n; i++) v[i] = unit(mix(s, (uint64_t)i));
}

/* Canonical: distinct, row-major sorted; key_i = i*s + (h_i mod s) with s = volume / n. */
static void gen_canonical(int input, int64_t r, const int64_t *shape, int64_t n, int64_t *ix, double *v) {
    uint64_t vol = 1;
    for (int64_t d = 0; d < r; d++) vol *= (uint64_t)shape[d];
    uint64_t s = vol / (uint64_t)n, sk = stream(input, 62, n), sv = stream(input, 63, n);
    for (int64_t i = 0; i < n; i++) {
        uint64_t key = (uint64_t)i * s + mix(sk, (uint64_t)i) % s;
        for (int64_t d = r - 1; d >= 0; d--) {
            ix[i * r + d] = (int64_t)(key % (uint64_t)shape[d]);
            key /= (uint64_t)shape[d];
        }
        v[i] = unit(mix(sv, (uint64_t)i));
    }
}

/* ---- measurement ---- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long status_kb(const char *field) {
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

static void reset_hwm(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct ctx ctx;
typedef int (*step_fn)(ctx *c);

struct ctx {
    int64_t r, n;
    int64_t shape[3], shape2[3];
    spt_tensor *a, *b, *work, *out;
    spt_dense *dense, *dout;
    double *buf1, *buf2;
    size_t bytes;
    int threads;
    void *fresh[2]; /* copyfloor: the output pair of the last run */
};

static void die_st(spt_status st, const char *what) {
    fprintf(stderr, "bench_core: %s: %s (%s)\n", what, spt_status_name(st), spt_last_error());
    exit(2);
}
#define CK(x)                                                                                      \
    do {                                                                                           \
        spt_status st_ = (x);                                                                      \
        if (st_ != SPT_OK) die_st(st_, #x);                                                        \
    } while (0)

static spt_tensor *make_tensor(int input, bool canonical, int64_t r, const int64_t *shape, int64_t n) {
    int64_t *ix = malloc((size_t)(n * r + 1) * sizeof *ix);
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    spt_tensor *t = NULL;
    if (!ix || !v) {
        fprintf(stderr, "bench_core: out of memory generating %lld entries\n", (long long)n);
        exit(2);
    }
    if (canonical) gen_canonical(input, r, shape, n, ix, v);
    else gen_unsorted(input, r, shape, n, ix, v);
    if (getenv("SPT_BENCH_CHECKSUM")) { /* compare with gen.py: sum of indices, sum of values */
        long long si = 0;
        double sv = 0;
        for (int64_t i = 0; i < n * r; i++) si += ix[i];
        for (int64_t i = 0; i < n; i++) sv += v[i];
        fprintf(stderr, "checksum input %d: %lld %.17g\n", input, si, sv);
    }
    CK(spt_tensor_new(SPT_FLOAT64, r, shape, n, ix, v, NULL, &t));
    free(ix);
    free(v);
    if (canonical) CK(spt_reorder(t, NULL)); /* one pass: records that it is valid and sorted */
    return t;
}

static void set_shape(ctx *c, const char *op, int dims) {
    c->r = dims;
    if (!strcmp(op, "to_dense")) {
        if (dims == 3) c->shape[0] = c->shape[1] = c->shape[2] = 200;
        else c->shape[0] = 40000, c->shape[1] = 200;
    } else if (!strcmp(op, "spmm")) {
        c->r = 2;
        c->shape[0] = c->shape[1] = 100000;
    } else if (dims == 3) {
        c->shape[0] = c->shape[1] = c->shape[2] = 1000;
    } else {
        c->shape[0] = c->shape[1] = 1000000;
    }
}

/* -- reorder: the unsorted input is cloned before each run (untimed) -- */
static int reorder_setup(ctx *c) {
    spt_tensor_free(c->work);
    CK(spt_tensor_clone(c->a, &c->work));
    return 0;
}
static int reorder_run(ctx *c) { return spt_reorder(c->work, NULL) != SPT_OK; }

static int to_dense_run(ctx *c) {
    spt_dense_free(c->dout);
    c->dout = NULL;
    return spt_to_dense(c->a, NULL, false, &c->dout) != SPT_OK;
}

static int bw_setup(ctx *c) { (void)c; return 0; }
static int bw_run(ctx *c) {
    memcpy(c->buf2, c->buf1, c->bytes);
    return 0;
}

#ifdef SPT_BENCH_HAVE_REDUCE
static int reduce_axis1_run(ctx *c) {
    int64_t axis = 1;
    spt_dense_free(c->dout);
    c->dout = NULL;
    return spt_reduce_sum(c->a, &axis, 1, false, &c->dout) != SPT_OK;
}
static int reduce_all_run(ctx *c) {
    spt_dense_free(c->dout);
    c->dout = NULL;
    return spt_reduce_sum(c->a, NULL, 0, false, &c->dout) != SPT_OK; /* NULL axes: every dim */
}
#endif
#ifdef SPT_BENCH_HAVE_ADD
static void *fresh_alloc(size_t bytes) {
    char *p = malloc(bytes);
#ifdef MADV_HUGEPAGE
    const uintptr_t H = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + H - 1) & ~(H - 1), e = ((uintptr_t)p + bytes) & ~(H - 1);
    if (p && bytes >= 4 * H && e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#endif
    return p;
}

/* Copy src[0, n) to dst with c->threads threads, each a contiguous share. */
static void par_copy(const ctx *c, char *dst, const char *src, size_t n) {
    const int T = c->threads > 0 ? c->threads : 1;
#pragma omp parallel for schedule(static, 1) num_threads(T)
    for (int k = 0; k < T; k++) {
        size_t lo = n / (size_t)T * (size_t)k, hi = k == T - 1 ? n : n / (size_t)T * (size_t)(k + 1);
        memcpy(dst + lo, src + lo, hi - lo);
    }
}

static int copyfloor_run(ctx *c) {
    free(c->fresh[0]);
    free(c->fresh[1]);
    const int64_t na = spt_tensor_nnz(c->a), nb = spt_tensor_nnz(c->b), r = c->r;
    const size_t ia = (size_t)(na * r) * sizeof(int64_t), ib = (size_t)(nb * r) * sizeof(int64_t);
    char *oi = fresh_alloc(ia + ib), *ov = fresh_alloc((size_t)(na + nb) * sizeof(double));
    c->fresh[0] = oi;
    c->fresh[1] = ov;
    if (!oi || !ov) return 1;
    par_copy(c, oi, (const char *)spt_tensor_indices(c->a), ia);
    par_copy(c, oi + ia, (const char *)spt_tensor_indices(c->b), ib);
    par_copy(c, ov, spt_tensor_values(c->a), (size_t)na * sizeof(double));
    par_copy(c, ov + (size_t)na * sizeof(double), spt_tensor_values(c->b), (size_t)nb * sizeof(double));
    return 0;
}

static int add_run(ctx *c) {
    spt_tensor_free(c->out);
    c->out = NULL;
    return spt_add(c->a, c->b, 0.0, &c->out) != SPT_OK;
}
#endif
#ifdef SPT_BENCH_HAVE_CONCAT
static int concat_run(ctx *c) {
    const spt_tensor *in[2] = {c->a, c->b};
    spt_tensor_free(c->out);
    c->out = NULL;
    return spt_concat(in, 2, 1, false, &c->out) != SPT_OK;
}
#endif
#ifdef SPT_BENCH_HAVE_MATMUL
static int spmm_run(ctx *c) {
    spt_dense_free(c->dout);
    c->dout = NULL;
    return spt_sparse_dense_matmul(c->a, c->dense, false, false, &c->dout) != SPT_OK;
}
#endif

static void free_ctx(ctx *c) {
    spt_tensor_free(c->a);
    spt_tensor_free(c->b);
    spt_tensor_free(c->work);
    spt_tensor_free(c->out);
    spt_dense_free(c->dense);
    spt_dense_free(c->dout);
    free(c->buf1);
    free(c->buf2);
    free(c->fresh[0]);
    free(c->fresh[1]);
    memset(c, 0, sizeof *c);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: bench_core OP DIMS THREADS NNZ[,NNZ...] [REPS]\n");
        return 2;
    }
    const char *op = argv[1];
    int dims = atoi(argv[2]), threads = atoi(argv[3]);
    int reps = argc > 5 ? atoi(argv[5]) : 5;
    if (reps < 1) reps = 1;
    spt_set_num_threads(threads);
    char *sizes = strdup(argv[4]);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int64_t n = (int64_t)strtod(tok, NULL);
        ctx c;
        memset(&c, 0, sizeof c);
        step_fn setup = NULL, run = NULL;
        double input_bytes = 0;
        if (!strcmp(op, "bandwidth")) {
            c.bytes = (size_t)n;
            c.buf1 = malloc(c.bytes);
            c.buf2 = malloc(c.bytes);
            if (!c.buf1 || !c.buf2) return 2;
            memset(c.buf1, 1, c.bytes);
            memset(c.buf2, 2, c.bytes);
            setup = bw_setup;
            run = bw_run;
        } else {
            set_shape(&c, op, dims);
            input_bytes = (double)n * (double)(8 * c.r + 8);
            if (!strcmp(op, "reorder")) {
                c.a = make_tensor(0, false, c.r, c.shape, n);
                setup = reorder_setup;
                run = reorder_run;
            } else if (!strcmp(op, "to_dense")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
                run = to_dense_run;
            } else if (!strcmp(op, "reduce_axis1") || !strcmp(op, "reduce_all")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
#ifdef SPT_BENCH_HAVE_REDUCE
                run = op[7] == 'a' && op[8] == 'x' ? reduce_axis1_run : reduce_all_run;
#endif
            } else if (!strcmp(op, "copyfloor")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
                c.b = make_tensor(1, true, c.r, c.shape, n);
                c.threads = threads;
                input_bytes *= 2;
                run = copyfloor_run;
            } else if (!strcmp(op, "add") || !strcmp(op, "concat1")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
                c.b = make_tensor(1, true, c.r, c.shape, n);
                input_bytes *= 2;
#ifdef SPT_BENCH_HAVE_ADD
                if (op[0] == 'a') run = add_run;
#endif
#ifdef SPT_BENCH_HAVE_CONCAT
                if (op[0] == 'c') run = concat_run;
#endif
            } else if (!strcmp(op, "spmm")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
                int64_t bshape[2] = {c.shape[1], 32};
                CK(spt_dense_new(SPT_FLOAT64, 2, bshape, &c.dense));
                double *bd = spt_dense_data_mut(c.dense);
                uint64_t s = stream(2, 63, n);
                for (int64_t i = 0; i < bshape[0] * 32; i++) bd[i] = unit(mix(s, (uint64_t)i));
#ifdef SPT_BENCH_HAVE_MATMUL
                run = spmm_run;
#endif
            } else {
                fprintf(stderr, "bench_core: unknown op %s\n", op);
                return 2;
            }
        }
        printf("{\"impl\":\"spt\",\"threads\":%d,\"op\":\"%s\",\"dims\":%d,\"nnz\":%lld,\"input_bytes\":%.0f", threads,
               op, dims, (long long)n, input_bytes);
        if (!run) {
            printf(",\"status\":\"unavailable\"}\n");
            fflush(stdout);
            free_ctx(&c);
            continue;
        }
        double *t = malloc(sizeof(double) * (size_t)reps), *cpu = malloc(sizeof(double) * (size_t)reps);
        long extra_kb = 0;
        int bad = 0;
        for (int k = -1; k < reps && !bad; k++) { /* k = -1: warm-up */
            if (setup) setup(&c);
            reset_hwm();
            long before = status_kb("VmRSS");
            double c0 = cpu_now(), t0 = now();
            bad = run(&c);
            double t1 = now(), c1 = cpu_now();
            long hwm = status_kb("VmHWM");
            if (hwm - before > extra_kb) extra_kb = hwm - before;
            if (k >= 0) t[k] = t1 - t0, cpu[k] = c1 - c0;
        }
        if (bad) {
            printf(",\"status\":\"error\"}\n");
            fprintf(stderr, "bench_core: %s failed: %s\n", op, spt_last_error());
        } else {
            qsort(t, (size_t)reps, sizeof *t, cmp_d);
            qsort(cpu, (size_t)reps, sizeof *cpu, cmp_d);
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            printf(",\"status\":\"ok\",\"reps\":%d,\"median\":%.9g,\"min\":%.9g,\"max\":%.9g,\"peak_rss\":%.0f,"
                   "\"op_peak_extra\":%.0f,\"cpu_median\":%.9g",
                   reps, t[reps / 2], t[0], t[reps - 1], (double)ru.ru_maxrss * 1024.0, (double)extra_kb * 1024.0,
                   cpu[reps / 2]);
            if (!strcmp(op, "bandwidth")) printf(",\"gbps\":%.4f", 2.0 * (double)c.bytes / t[reps / 2] / 1e9);
            printf("}\n");
        }
        fflush(stdout);
        free(t);
        free(cpu);
        free_ctx(&c);
    }
    free(sizes);
    return 0;
}
