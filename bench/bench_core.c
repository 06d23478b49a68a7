/* SPDX-License-Identifier: Apache-2.0 */
/* bench_core.c -- time spt's core ops on fixed-seed inputs (the workloads of bench/README.md).
 *
 *   bench_core OP DIMS THREADS NNZ[,NNZ...] [REPS]
 *   bench_core bandwidth 0 1 BYTES [REPS]
 *   bench_core copyfloor DIMS THREADS NNZ[,NNZ...] [REPS]
 *   bench_core copywarm DIMS THREADS NNZ[,NNZ...] [REPS]       (the same copies into a reused, faulted-in pair)
 *   bench_core radixfloor DIMS THREADS NNZ[,NNZ...] [REPS]     (reorder's two-pass radix-sort floor)
 *   bench_core gatherfloor 2 THREADS NNZ[,NNZ...] [REPS]       (spmm's gather floor)
 *   bench_core density 2 THREADS 0 [REPS]                      (the density table of sparse_dense_matmul)
 *   bench_core mttkrpfloor 3 THREADS NNZ[,NNZ...] [REPS]       (mode-0 MTTKRP's streaming floor)
 *
 * OP: reorder, reduce_axis1, reduce_all, concat1, add, spmm, to_dense, bandwidth, mttkrp (mode 0), mttkrp_m1,
 * mttkrp_m2 (modes 1, 2), mttkrp_all (modes 0, 1, 2 in one run, a CP-ALS sweep; all on [10^4]^3, rank 16). DIMS: 2 or 3 (the
 * shapes are fixed per op and dims; bench/gen.py builds the very same inputs for the peers). Prints
 * one JSON object per size on stdout: median/min/max seconds over REPS timed runs after the warm-up (calls
 * until BG_WARM_S, bench_gen.h; the first of them is reported as "first" / "first_cpu": the first call on
 * fresh inputs, which for 2-D row sums also builds the tensor's cached row pointer; "warmup_calls"),
 * the process peak RSS (getrusage) and the op's own peak (VmHWM reset through /proc/self/clear_refs
 * before each run, minus the RSS before it), and per repetition in run order ("times", "cpu_times", "minflt", "nvcsw",
 * "nivcsw", "compact_stall", "thp_fault_alloc": the last two from /proc/vmstat, system-wide). Ops the library does not have yet print
 * "status":"unavailable" (compiled in by the -DSPT_BENCH_HAVE_* flags that bench/features.sh finds).
 *
 * copyfloor: the floor of any op that reads add's two inputs once and writes a fresh output of the same
 * size (add, concat): per run, a fresh buffer pair for the 2*NNZ entries (index rows and values, with
 * transparent huge pages advised as spt does) is allocated and both inputs are copied into it with
 * THREADS threads (memcpy, each thread its own contiguous share); the previous run's pair is freed at
 * the start of the run, as add_run frees its previous output. */
#include "spt.h"
#include "bench_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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
    /* radixfloor: (key, index) pairs, each thread's in-cache scratch, per-thread histograms */
    uint64_t *pairs, *scratch;
    int64_t *hist, scratch_pairs;
    int mbits, shift, kbits;
    /* gatherfloor: A's row pointer and column indices, B (c->dense), C [rows, 32] */
    int64_t *rowptr, *col;
    double *cmat;
    /* mttkrp: the factor matrices (one per mode, [shape[m], R]), the kept mode (-1: every mode in turn) */
    spt_dense *fac[3];
    int64_t mode, rank;
};

static void die_st(spt_status st, const char *what) {
    fprintf(stderr, "bench_core: %s: %s (%s)\n", what, spt_status_name(st), spt_last_error());
    exit(2);
}
#define CK(x)                                                                                                          \
    do {                                                                                                               \
        spt_status st_ = (x);                                                                                          \
        if (st_ != SPT_OK) die_st(st_, #x);                                                                            \
    } while (0)

static spt_tensor *make_tensor(int input, bool canonical, int64_t r, const int64_t *shape, int64_t n) {
    int64_t *ix = malloc((size_t)(n * r + 1) * sizeof *ix);
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    spt_tensor *t = NULL;
    if (!ix || !v) {
        fprintf(stderr, "bench_core: out of memory generating %lld entries\n", (long long)n);
        exit(2);
    }
    if (canonical) bg_canonical(input, r, shape, n, ix, v);
    else bg_unsorted(input, r, shape, n, ix, v);
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
    } else if (!strncmp(op, "mttkrp", 6)) {
        c->r = 3;
        c->shape[0] = c->shape[1] = c->shape[2] = 10000;
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

static int bw_setup(ctx *c) {
    (void)c;
    return 0;
}
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

/* Both inputs copied into the output pair c->fresh: allocated anew each run (fresh: the previous pair freed
 * first), or once and reused (the pair faulted in by the first run). */
static int copy_pair(ctx *c, bool fresh) {
    const int64_t na = spt_tensor_nnz(c->a), nb = spt_tensor_nnz(c->b), r = c->r;
    const size_t ia = (size_t)(na * r) * sizeof(int64_t), ib = (size_t)(nb * r) * sizeof(int64_t);
    if (fresh) {
        free(c->fresh[0]);
        free(c->fresh[1]);
        c->fresh[0] = c->fresh[1] = NULL;
    }
    if (!c->fresh[0]) c->fresh[0] = fresh_alloc(ia + ib);
    if (!c->fresh[1]) c->fresh[1] = fresh_alloc((size_t)(na + nb) * sizeof(double));
    char *oi = c->fresh[0], *ov = c->fresh[1];
    if (!oi || !ov) return 1;
    par_copy(c, oi, (const char *)spt_tensor_indices(c->a), ia);
    par_copy(c, oi + ia, (const char *)spt_tensor_indices(c->b), ib);
    par_copy(c, ov, spt_tensor_values(c->a), (size_t)na * sizeof(double));
    par_copy(c, ov + (size_t)na * sizeof(double), spt_tensor_values(c->b), (size_t)nb * sizeof(double));
    return 0;
}

static int copyfloor_run(ctx *c) { return copy_pair(c, true); }

/* copywarm: the same copies into one buffer pair allocated (and faulted in) by the first run and reused
 * after it, as add's output comes back from spt's block cache already faulted in. */
static int copywarm_run(ctx *c) { return copy_pair(c, false); }

static int add_run(ctx *c) {
    spt_tensor_free(c->out);
    c->out = NULL;
    return spt_add(c->a, c->b, 0.0, &c->out) != SPT_OK;
}
/* The other ops of the merge engine on add's inputs: subtract, maximum, minimum. */
static int sub_run(ctx *c) {
    spt_tensor_free(c->out);
    c->out = NULL;
    return spt_subtract(c->a, c->b, &c->out) != SPT_OK;
}
static int max_run(ctx *c) {
    spt_tensor_free(c->out);
    c->out = NULL;
    return spt_maximum(c->a, c->b, &c->out) != SPT_OK;
}
static int min_run(ctx *c) {
    spt_tensor_free(c->out);
    c->out = NULL;
    return spt_minimum(c->a, c->b, &c->out) != SPT_OK;
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


/* ---- floors (bench/README.md defines them) ---- */

/* Transparent huge pages advised on the 2 MiB-aligned part of a large buffer, as spt does. */
static void bench_hint_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    const uintptr_t H = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + H - 1) & ~(H - 1), e = ((uintptr_t)p + bytes) & ~(H - 1);
    if (p && bytes >= 4 * H && e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* radixfloor: the two-pass radix sort of the unsorted input's (key, index) pairs into preallocated memory.
 * The key is the entry's row-major linear index (< 2^kbits). Pass 1 reads the index rows, forms the key and
 * counts its top mbits per thread (the MSD histogram); pass 2 reads them again and scatters each (key, i)
 * pair to its bucket (2^mbits buckets sized to fit in L2); pass 3 sorts each bucket in cache by LSD radix on
 * the remaining bits (digits of at most 11 bits, ping-pong with the thread's scratch). Threads: contiguous
 * shares of the entries for passes 1-2, buckets handed out dynamically for pass 3. */
typedef struct {
    uint64_t key, idx;
} kpair;

static int bits_for(uint64_t v) { /* bits needed to hold every value < v (v >= 1) */
    int b = 0;
    while (b < 64 && (v - 1) >> b) b++;
    return b;
}

static int radixfloor_setup_once(ctx *c) {
    const int64_t n = spt_tensor_nnz(c->a);
    const int T = c->threads > 0 ? c->threads : 1;
    uint64_t vol = 1;
    for (int64_t d = 0; d < c->r; d++) vol *= (uint64_t)c->shape[d];
    c->kbits = bits_for(vol);
    int mb = 0; /* buckets of at most ~8192 pairs (128 KiB) */
    while (mb < 12 && mb < c->kbits && (n >> mb) > 8192) mb++;
    c->mbits = mb;
    c->shift = c->kbits - mb;
    c->pairs = malloc((size_t)(n + 1) * sizeof(kpair));
    bench_hint_huge(c->pairs, (size_t)(n + 1) * sizeof(kpair)); /* as spt's sort buffers */
    c->scratch_pairs = 4 * ((n >> mb) + 1) + 4096;
    c->scratch = malloc((size_t)T * (size_t)c->scratch_pairs * sizeof(kpair));
    c->hist = calloc((size_t)T << mb, sizeof(int64_t));
    if (!c->pairs || !c->scratch || !c->hist) return 1;
    memset(c->pairs, 0, (size_t)(n + 1) * sizeof(kpair)); /* fault the memory in: it is preallocated */
    memset(c->scratch, 0, (size_t)T * (size_t)c->scratch_pairs * sizeof(kpair));
    return 0;
}

static inline uint64_t lin_key(const int64_t *ix, int64_t r, const int64_t *shape) {
    uint64_t k = (uint64_t)ix[0];
    for (int64_t d = 1; d < r; d++) k = k * (uint64_t)shape[d] + (uint64_t)ix[d];
    return k;
}

/* LSD radix sort of a[0, m) by bits [0, shift) with scratch b (m pairs); the result ends in a. */
static void lsd_sort(kpair *a, kpair *b, int64_t m, int shift) {
    if (m < 2 || shift == 0) return;
    const int npass = (shift + 10) / 11, dbits = (shift + npass - 1) / npass;
    const uint64_t mask = ((uint64_t)1 << dbits) - 1;
    int64_t cnt[2048];
    kpair *src = a, *dst = b;
    for (int p = 0; p < npass; p++) {
        const int sh = p * dbits;
        memset(cnt, 0, sizeof(int64_t) << dbits);
        for (int64_t i = 0; i < m; i++) cnt[(src[i].key >> sh) & mask]++;
        int64_t s = 0;
        for (uint64_t d = 0; d <= mask; d++) {
            int64_t t = cnt[d];
            cnt[d] = s;
            s += t;
        }
        for (int64_t i = 0; i < m; i++) dst[cnt[(src[i].key >> sh) & mask]++] = src[i];
        kpair *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)m * sizeof *a);
}

static int radixfloor_run(ctx *c) {
    const int64_t n = spt_tensor_nnz(c->a), r = c->r;
    const int T = c->threads > 0 ? c->threads : 1;
    const int64_t B = (int64_t)1 << c->mbits;
    const int shift = c->shift;
    const int64_t *ix = spt_tensor_indices(c->a);
    int64_t *hist = c->hist;
    kpair *pairs = (kpair *)c->pairs;
    int bad = 0;
#pragma omp parallel num_threads(T)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num();
#else
        const int t = 0;
#endif
        const int64_t lo = n / T * t, hi = t == T - 1 ? n : n / T * (t + 1);
        int64_t *h = hist + (size_t)t * (size_t)B;
        memset(h, 0, (size_t)B * sizeof *h);
        for (int64_t i = lo; i < hi; i++) h[lin_key(ix + i * r, r, c->shape) >> shift]++;
#pragma omp barrier
#pragma omp single
        {
            int64_t s = 0;
            for (int64_t b = 0; b < B; b++)
                for (int u = 0; u < T; u++) {
                    int64_t v = hist[(size_t)u * (size_t)B + (size_t)b];
                    hist[(size_t)u * (size_t)B + (size_t)b] = s;
                    s += v;
                }
        }
        for (int64_t i = lo; i < hi; i++) {
            uint64_t k = lin_key(ix + i * r, r, c->shape);
            kpair *dst = pairs + h[k >> shift]++;
            dst->key = k;
            dst->idx = (uint64_t)i;
        }
#pragma omp barrier
        kpair *scr = (kpair *)c->scratch + (size_t)t * (size_t)c->scratch_pairs;
#pragma omp for schedule(dynamic, 4)
        for (int64_t b = 0; b < B; b++) {
            /* after the scatter, the last thread's counter of bucket b is bucket b's end */
            const int64_t end = hist[(size_t)(T - 1) * (size_t)B + (size_t)b];
            const int64_t beg = b == 0 ? 0 : hist[(size_t)(T - 1) * (size_t)B + (size_t)b - 1];
            const int64_t m = end - beg;
            if (m > c->scratch_pairs) {
                kpair *tmp = malloc((size_t)m * sizeof *tmp);
                if (!tmp) {
#pragma omp atomic write
                    bad = 1;
                    continue;
                }
                lsd_sort(pairs + beg, tmp, m, shift);
                free(tmp);
            } else {
                lsd_sort(pairs + beg, scr, m, shift);
            }
        }
    }
    if (!bad && getenv("SPT_BENCH_CHECK")) /* the pairs come out sorted by key */
        for (int64_t i = 1; i < n; i++)
            if (pairs[i - 1].key > pairs[i].key) return 1;
    return bad;
}

/* gatherfloor: the data movement of C = A*B without its arithmetic: in A's (row-major) order, B's row of each
 * nonzero's column is read (256 bytes, at random) and summed into the row's accumulator, which is stored into
 * C [rows, 32] at the row's end (B's rows prefetched 16 nonzeros ahead, all 4 cache lines; the sum vectorised). A's row pointer and column indices are prepared untimed; C is preallocated
 * and fully rewritten each run. Threads: rows in chunks of 256, handed out dynamically. */
static int gatherfloor_setup_once(ctx *c) {
    const int64_t n = spt_tensor_nnz(c->a), rows = c->shape[0];
    const int64_t *ix = spt_tensor_indices(c->a);
    c->rowptr = calloc((size_t)rows + 1, sizeof(int64_t));
    c->col = malloc((size_t)(n + 1) * sizeof(int64_t));
    c->cmat = calloc((size_t)rows * 32, sizeof(double));
    if (!c->rowptr || !c->col || !c->cmat) return 1;
    for (int64_t i = 0; i < n; i++) c->rowptr[ix[2 * i] + 1]++, c->col[i] = ix[2 * i + 1];
    for (int64_t r = 0; r < rows; r++) c->rowptr[r + 1] += c->rowptr[r];
    return 0;
}

static int gatherfloor_run(ctx *c) {
    const int64_t rows = c->shape[0];
    const int T = c->threads > 0 ? c->threads : 1;
    const int64_t *rp = c->rowptr, *col = c->col;
    const double *bd = spt_dense_data(c->dense);
    double *cm = c->cmat;
#pragma omp parallel for schedule(dynamic, 256) num_threads(T)
    for (int64_t r = 0; r < rows; r++) {
        double acc[32] = {0};
        for (int64_t p = rp[r]; p < rp[r + 1]; p++) {
            const double *br = bd + col[p] * 32;
            if (p + 16 < rp[rows]) { /* the B row 16 nonzeros ahead, all four of its cache lines */
                const double *f = bd + col[p + 16] * 32;
                __builtin_prefetch(f);
                __builtin_prefetch(f + 8);
                __builtin_prefetch(f + 16);
                __builtin_prefetch(f + 24);
            }
#pragma omp simd
            for (int j = 0; j < 32; j++) acc[j] += br[j];
        }
        memcpy(cm + r * 32, acc, sizeof acc);
    }
    return 0;
}


/* ---- mttkrp: [10^4]^3, rank-16 factors (bench/README.md) ---- */
#define MTTKRP_RANK 16
#ifndef MTTKRP_AHEAD
#define MTTKRP_AHEAD 8 /* entries; 8 measured faster than 4, 16 and 32 here */
#endif
static void mttkrp_factors(ctx *c) {
    for (int m = 0; m < 3; m++) {
        int64_t fs[2] = {c->shape[m], MTTKRP_RANK};
        CK(spt_dense_new(SPT_FLOAT64, 2, fs, &c->fac[m]));
        double *d = spt_dense_data_mut(c->fac[m]);
        uint64_t s = bg_stream(3 + m, 63, c->n);
        for (int64_t i = 0; i < fs[0] * fs[1]; i++) d[i] = bg_unit(bg_mix(s, (uint64_t)i));
    }
    c->rank = MTTKRP_RANK;
}
#ifdef SPT_BENCH_HAVE_MTTKRP
/* one call for the kept mode c->mode, or (mode -1, mttkrp_all) one call per mode as a CP-ALS sweep does */
static int mttkrp_run(ctx *c) {
    for (int64_t m = c->mode < 0 ? 0 : c->mode; m < (c->mode < 0 ? 3 : c->mode + 1); m++) {
        spt_dense_free(c->dout);
        c->dout = NULL;
        if (spt_mttkrp(c->a, (const spt_dense *const *)c->fac, 3, m, &c->dout) != SPT_OK) return 1;
    }
    return 0;
}
#endif

/* mttkrpfloor: the data movement of mode-0 MTTKRP without its product structure: every entry of the
 * row-major sorted tensor is streamed once (index row and value) and the rows of the two other modes'
 * factors it names are read (R doubles each, prefetched 8 entries ahead) and summed, scaled by the value,
 * into the output row's accumulator, stored at the row's end (each thread a contiguous share of the
 * rows; the output preallocated). R multiply-adds an entry where MTTKRP needs 2R-3R, from the same
 * bytes. */
static inline __attribute__((always_inline)) void mttkrpfloor_rows(const int64_t *ix, const double *v, int64_t lo,
                                                                   int64_t hi, int64_t n, const double *fb,
                                                                   const double *fc, double *out) {
    enum { R = MTTKRP_RANK };
    for (int64_t e = lo; e < hi;) {
        const int64_t row = ix[e * 3];
        double acc[R] = {0};
        for (; e < hi && ix[e * 3] == row; e++) {
            if (e + MTTKRP_AHEAD < n) {
                const int64_t *q = ix + (e + MTTKRP_AHEAD) * 3;
                __builtin_prefetch(fb + q[1] * R);
                __builtin_prefetch(fb + q[1] * R + 8);
                __builtin_prefetch(fc + q[2] * R);
                __builtin_prefetch(fc + q[2] * R + 8);
            }
            const double *b = fb + ix[e * 3 + 1] * R, *cc = fc + ix[e * 3 + 2] * R;
            const double x = v[e];
#pragma omp simd
            for (int r = 0; r < R; r++) acc[r] += x * (b[r] + cc[r]);
        }
        memcpy(out + row * R, acc, sizeof acc);
    }
}
static void mttkrpfloor_rows_base(const int64_t *ix, const double *v, int64_t lo, int64_t hi, int64_t n,
                                  const double *fb, const double *fc, double *out) {
    mttkrpfloor_rows(ix, v, lo, hi, n, fb, fc, out);
}
__attribute__((target("avx2"))) static void mttkrpfloor_rows_avx2(const int64_t *ix, const double *v, int64_t lo,
                                                                  int64_t hi, int64_t n, const double *fb,
                                                                  const double *fc, double *out) {
    mttkrpfloor_rows(ix, v, lo, hi, n, fb, fc, out);
}
__attribute__((target("avx512f"))) static void mttkrpfloor_rows_avx512(const int64_t *ix, const double *v, int64_t lo,
                                                                       int64_t hi, int64_t n, const double *fb,
                                                                       const double *fc, double *out) {
    mttkrpfloor_rows(ix, v, lo, hi, n, fb, fc, out);
}
static int mttkrpfloor_run(ctx *c) {
    const int T = c->threads > 0 ? c->threads : 1;
    const int64_t n = spt_tensor_nnz(c->a), *ix = spt_tensor_indices(c->a);
    const double *v = spt_tensor_values(c->a), *fb = spt_dense_data(c->fac[1]), *fc = spt_dense_data(c->fac[2]);
    void (*rows)(const int64_t *, const double *, int64_t, int64_t, int64_t, const double *, const double *,
                 double *) = __builtin_cpu_supports("avx512f") ? mttkrpfloor_rows_avx512
                             : __builtin_cpu_supports("avx2")  ? mttkrpfloor_rows_avx2
                                                               : mttkrpfloor_rows_base;
#pragma omp parallel for schedule(static, 1) num_threads(T)
    for (int k = 0; k < T; k++) {
        int64_t lo = n / T * k, hi = k == T - 1 ? n : n / T * (k + 1);
        while (lo > 0 && lo < n && ix[lo * 3] == ix[(lo - 1) * 3]) lo++; /* whole rows per thread */
        while (k < T - 1 && hi < n && ix[hi * 3] == ix[(hi - 1) * 3]) hi++;
        if (lo < hi) rows(ix, v, lo, hi, n, fb, fc, c->cmat);
    }
    return 0;
}

#ifdef SPT_BENCH_HAVE_MATMUL
/* density: the timing table of tf.sparse.sparse_dense_matmul's documentation (sparse A [m,k] x dense B [k,n]
 * as A's density grows), for spt: per configuration the median over REPS samples of the time per call, each
 * sample a loop of calls long enough to last >= 2 ms. A is built sorted (untimed); each call returns a fresh
 * output (freed untimed between samples, as the loop frees the previous one). */
static double density_sample(const spt_tensor *a, const spt_dense *b, int64_t calls) {
    spt_dense *o = NULL;
    double t0 = bg_now();
    for (int64_t i = 0; i < calls; i++) {
        spt_dense_free(o);
        o = NULL;
        CK(spt_sparse_dense_matmul(a, b, false, false, &o));
    }
    double t = (bg_now() - t0) / (double)calls;
    spt_dense_free(o);
    return t;
}

static int density_main(int threads, int reps) {
    static const double dens[] = {0.01, 0.2, 0.5, 0.8};
    static const int64_t ns[] = {1, 10, 25}, mks[] = {100, 1000};
    for (int di = 0; di < 4; di++)
        for (int ni = 0; ni < 3; ni++)
            for (int mi = 0; mi < 2; mi++)
                for (int ki = 0; ki < 2; ki++) {
                    const int64_t m = mks[mi], k = mks[ki], nc = ns[ni];
                    int64_t *ix = malloc((size_t)(2 * m * k) * sizeof *ix);
                    double *v = malloc((size_t)(m * k) * sizeof *v), *t = malloc((size_t)reps * sizeof *t);
                    spt_tensor *a = NULL;
                    spt_dense *b = NULL;
                    int64_t shape[2] = {m, k}, bshape[2] = {k, nc};
                    if (!ix || !v || !t) return 2;
                    int64_t nnz = bg_density_a(m, k, dens[di], ix, v);
                    CK(spt_tensor_new(SPT_FLOAT64, 2, shape, nnz, ix, v, NULL, &a));
                    CK(spt_reorder(a, NULL));
                    CK(spt_dense_new(SPT_FLOAT64, 2, bshape, &b));
                    bg_density_b(k, nc, spt_dense_data_mut(b));
                    double t1 = density_sample(a, b, 1); /* one call: the least of 3 sets the loop length */
                    for (int r = 0; r < 2; r++) {
                        double x = density_sample(a, b, 1);
                        if (x < t1) t1 = x;
                    }
                    int64_t calls = t1 >= 2e-3 ? 1 : (int64_t)(2e-3 / (t1 > 1e-8 ? t1 : 1e-8)) + 1;
                    for (int r = 0; r < reps; r++) t[r] = density_sample(a, b, calls);
                    qsort(t, (size_t)reps, sizeof *t, bg_cmp_d);
                    printf(
                        "{\"impl\":\"spt\",\"threads\":%d,\"op\":\"density\",\"density\":%g,\"n\":%lld,\"m\":%lld,"
                        "\"k\":%lld,\"nnz\":%lld,\"calls\":%lld,\"status\":\"ok\",\"reps\":%d,\"sparse_median\":%.9g,"
                        "\"sparse_min\":%.9g,\"sparse_max\":%.9g}\n",
                        threads, dens[di], (long long)nc, (long long)m, (long long)k, (long long)nnz, (long long)calls,
                        reps, t[reps / 2], t[0], t[reps - 1]);
                    fflush(stdout);
                    spt_tensor_free(a);
                    spt_dense_free(b);
                    free(ix);
                    free(v);
                    free(t);
                }
    return 0;
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
    free(c->pairs);
    free(c->scratch);
    free(c->hist);
    free(c->rowptr);
    free(c->col);
    free(c->cmat);
    for (int m = 0; m < 3; m++) spt_dense_free(c->fac[m]);
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
    if (!strcmp(op, "density")) {
#ifdef SPT_BENCH_HAVE_MATMUL
        return density_main(threads, reps);
#else
        printf("{\"impl\":\"spt\",\"op\":\"density\",\"status\":\"unavailable\"}\n");
        return 0;
#endif
    }
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
            } else if (!strcmp(op, "radixfloor")) {
                c.a = make_tensor(0, false, c.r, c.shape, n);
                c.threads = threads;
                if (radixfloor_setup_once(&c)) {
                    fprintf(stderr, "bench_core: out of memory for the radix floor\n");
                    return 2;
                }
                run = radixfloor_run;
            } else if (!strcmp(op, "gatherfloor")) {
                set_shape(&c, "spmm", 2);
                c.a = make_tensor(0, true, c.r, c.shape, n);
                int64_t bshape[2] = {c.shape[1], 32};
                CK(spt_dense_new(SPT_FLOAT64, 2, bshape, &c.dense));
                bg_dense_b(bshape[0], n, spt_dense_data_mut(c.dense));
                c.threads = threads;
                if (gatherfloor_setup_once(&c)) {
                    fprintf(stderr, "bench_core: out of memory for the gather floor\n");
                    return 2;
                }
                run = gatherfloor_run;
            } else if (!strcmp(op, "copyfloor") || !strcmp(op, "copywarm")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
                c.b = make_tensor(1, true, c.r, c.shape, n);
                c.threads = threads;
                input_bytes *= 2;
                run = op[4] == 'w' ? copywarm_run : copyfloor_run;
            } else if (!strcmp(op, "add") || !strcmp(op, "concat1") || !strcmp(op, "subtract") ||
                       !strcmp(op, "maximum") || !strcmp(op, "minimum")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
                c.b = make_tensor(1, true, c.r, c.shape, n);
                input_bytes *= 2;
#ifdef SPT_BENCH_HAVE_ADD
                if (op[0] == 'a') run = add_run;
                if (op[0] == 's') run = sub_run;
                if (!strcmp(op, "maximum")) run = max_run;
                if (!strcmp(op, "minimum")) run = min_run;
#endif
#ifdef SPT_BENCH_HAVE_CONCAT
                if (op[0] == 'c') run = concat_run;
#endif
            } else if (!strncmp(op, "mttkrp", 6)) {
                c.n = n;
                c.a = make_tensor(0, true, c.r, c.shape, n);
                mttkrp_factors(&c);
                c.threads = threads;
                if (!strcmp(op, "mttkrpfloor")) {
                    c.cmat = calloc((size_t)c.shape[0] * MTTKRP_RANK, sizeof(double));
                    if (!c.cmat) return 2;
                    run = mttkrpfloor_run;
                } else {
                    c.mode = !strcmp(op, "mttkrp_all") ? -1 : op[6] == '_' && op[7] == 'm' ? atoi(op + 8) : 0;
                    if (c.mode > 2 ||
                        (strcmp(op, "mttkrp") && strcmp(op, "mttkrp_all") && strncmp(op, "mttkrp_m", 8))) {
                        fprintf(stderr, "bench_core: unknown op %s\n", op);
                        return 2;
                    }
#ifdef SPT_BENCH_HAVE_MTTKRP
                    run = mttkrp_run;
#endif
                }
            } else if (!strcmp(op, "spmm")) {
                c.a = make_tensor(0, true, c.r, c.shape, n);
                int64_t bshape[2] = {c.shape[1], 32};
                CK(spt_dense_new(SPT_FLOAT64, 2, bshape, &c.dense));
                double *bd = spt_dense_data_mut(c.dense);
                bg_dense_b(bshape[0], n, bd);
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
        /* per repetition, in run order (to explain outliers): time, minor page faults, voluntary and
         * involuntary context switches, and the system's THP direct-compaction stalls and huge-page faults */
        long(*det)[5] = calloc((size_t)reps, sizeof *det);
        double *tr = malloc(sizeof(double) * (size_t)reps), *cr = malloc(sizeof(double) * (size_t)reps);
        double first = 0, first_cpu = 0, warm = 0; /* the first warm-up call: for reduce, it builds the row pointer */
        int wcalls = 0;
        if (!t || !cpu || !det || !tr || !cr) return 2;
        for (int k = -1; k < reps && !bad; k++) { /* k = -1: a warm-up call (BG_WARM_S) */
            if (setup) setup(&c);
            bg_reset_hwm();
            long before = bg_status_kb("VmRSS");
            struct rusage r0, r1;
            long v0[2], v1[2];
            bg_vmstat(v0);
            getrusage(RUSAGE_SELF, &r0);
            double c0 = bg_cpu_now(), t0 = bg_now();
            bad = run(&c);
            double t1 = bg_now(), c1 = bg_cpu_now();
            getrusage(RUSAGE_SELF, &r1);
            bg_vmstat(v1);
            long hwm = bg_status_kb("VmHWM");
            if (hwm - before > extra_kb) extra_kb = hwm - before;
            if (k < 0) {
                if (wcalls++ == 0) first = t1 - t0, first_cpu = c1 - c0;
                warm += t1 - t0;
                if (warm < BG_WARM_S && wcalls < BG_WARM_MAX) k--; /* another warm-up call */
            }
            if (k >= 0) {
                t[k] = tr[k] = t1 - t0, cpu[k] = cr[k] = c1 - c0;
                det[k][0] = r1.ru_minflt - r0.ru_minflt;
                det[k][1] = r1.ru_nvcsw - r0.ru_nvcsw;
                det[k][2] = r1.ru_nivcsw - r0.ru_nivcsw;
                det[k][3] = v1[0] - v0[0];
                det[k][4] = v1[1] - v0[1];
            }
        }
        if (bad) {
            printf(",\"status\":\"error\"}\n");
            fprintf(stderr, "bench_core: %s failed: %s\n", op, spt_last_error());
        } else {
            qsort(t, (size_t)reps, sizeof *t, bg_cmp_d);
            qsort(cpu, (size_t)reps, sizeof *cpu, bg_cmp_d);
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            printf(",\"status\":\"ok\",\"reps\":%d,\"median\":%.9g,\"min\":%.9g,\"max\":%.9g,\"peak_rss\":%.0f,"
                   "\"op_peak_extra\":%.0f,\"cpu_median\":%.9g",
                   reps, t[reps / 2], t[0], t[reps - 1], (double)ru.ru_maxrss * 1024.0, (double)extra_kb * 1024.0,
                   cpu[reps / 2]);
            if (!strcmp(op, "bandwidth")) printf(",\"gbps\":%.4f", 2.0 * (double)c.bytes / t[reps / 2] / 1e9);
            /* the first call on fresh inputs apart (2-D row sums build the cached row pointer there; the
             * median is of the calls after the warm-up) */
            printf(",\"first\":%.9g,\"first_cpu\":%.9g,\"warmup_calls\":%d", first, first_cpu, wcalls);
            static const char *const dn[5] = {"minflt", "nvcsw", "nivcsw", "compact_stall", "thp_fault_alloc"};
            printf(",\"times\":[");
            for (int k = 0; k < reps; k++) printf("%s%.6g", k ? "," : "", tr[k]);
            printf("],\"cpu_times\":[");
            for (int k = 0; k < reps; k++) printf("%s%.6g", k ? "," : "", cr[k]);
            printf("]");
            for (int j = 0; j < 5; j++) {
                printf(",\"%s\":[", dn[j]);
                for (int k = 0; k < reps; k++) printf("%s%ld", k ? "," : "", det[k][j]);
                printf("]");
            }
            printf("}\n");
        }
        fflush(stdout);
        free(t);
        free(cpu);
        free(tr);
        free(cr);
        free(det);
        free_ctx(&c);
    }
    free(sizes);
    return 0;
}
