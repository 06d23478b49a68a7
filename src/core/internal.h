/* SPDX-License-Identifier: Apache-2.0 */
/* internal.h -- what every spt source file shares: the structs, checked arithmetic, allocation,
 * errors, string storage, per-dtype dispatch. Not installed. Internal non-static names are spt__*. */
#ifndef SPT_INTERNAL_H
#define SPT_INTERNAL_H

#include "spt.h"

#include <complex.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- checked arithmetic: the one place sizes are combined ------------------------------------- */

/* All return true on overflow (and then *r is unspecified). */
static inline bool spt__mul_i64(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }
static inline bool spt__add_i64(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
static inline bool spt__sub_i64(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); }
static inline bool spt__mul_sz(size_t a, size_t b, size_t *r) { return __builtin_mul_overflow(a, b, r); }
static inline bool spt__add_sz(size_t a, size_t b, size_t *r) { return __builtin_add_overflow(a, b, r); }

/* The first i in [lo, hi) for which below(ctx, i) is false, hi when there is none: below must hold on a
 * prefix of the range and fail on the rest (an ascending sequence compared with a target). The one
 * binary search of spt, every other is written on it; always inlined, so a constant `below` is too. */
static inline __attribute__((always_inline)) int64_t
spt__lower_bound(int64_t lo, int64_t hi, bool (*below)(const void *ctx, int64_t i), const void *ctx) {
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (below(ctx, mid)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
typedef struct {
    const int64_t *a;
    int64_t x;
} spt__i64_target;
static inline bool spt__i64_below(const void *ctx, int64_t i) {
    const spt__i64_target *t = ctx;
    return t->a[i] < t->x;
}
/* First position in the ascending a[0, n) whose value is >= x. */
static inline int64_t spt__lower_bound_i64(const int64_t *a, int64_t n, int64_t x) {
    const spt__i64_target t = {a, x};
    return spt__lower_bound(0, n, spt__i64_below, &t);
}
/* bytes = a * b * c as size_t from non-negative int64 counts; true on overflow or negative input. */
bool spt__bytes3(int64_t a, int64_t b, size_t c, size_t *r);

/* ---- errors ------------------------------------------------------------------------------------ */

/* Record the thread's last error message (printf format) and return `st`. */
spt_status spt__err(spt_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append "[i0,i1,...]" (no spaces) of n int64 values to buf (size cap), NUL-terminated. */
void spt__fmt_index(char *buf, size_t cap, const int64_t *v, int64_t n);
#define SPT__IDXBUF 256

/* Propagate a non-OK status. */
#define SPT__TRY(expr)                                                                                                 \
    do {                                                                                                               \
        spt_status spt__st_ = (expr);                                                                                  \
        if (spt__st_ != SPT_OK) return spt__st_;                                                                       \
    } while (0)
/* Set `st` and jump to the function's single `fail:` label. */
#define SPT__CHECK(expr)                                                                                               \
    do {                                                                                                               \
        st = (expr);                                                                                                   \
        if (st != SPT_OK) goto fail;                                                                                   \
    } while (0)

/* ---- allocation: everything goes through here ------------------------------------------------- */

void *spt__malloc(size_t n);            /* n == 0 allocates 1 byte; NULL on failure */
void *spt__calloc(size_t n, size_t sz); /* overflow-checked, zeroed */
/* A zeroed block of `bytes` for a large output: with the default allocator it comes from calloc, whose
 * fresh pages the kernel zeroes on first touch (no pass of our own); with a replaced allocator, malloc
 * and a memset. */
void *spt__zalloc(size_t bytes);
void *spt__realloc(void *p, size_t n);
void spt__free(void *p); /* NULL-safe */
/* The cache of freed large blocks (block_cache.c), used only with the C library's allocator: a kept
 * block of at least the request (NULL if none); keep p instead of freeing it (false: the caller frees);
 * give every kept block back to the system. Blocks from SPT__BC_MIN bytes (twice glibc's initial mmap
 * threshold) are kept: below it the C library's own free lists reuse memory without fresh pages. */
#define SPT__BC_MIN ((size_t)256 << 10)
void *spt__bc_take(size_t n);
bool spt__bc_give(void *p);
void spt__bc_flush(void);
/* Give every kept block back and read the bounds from the environment again (tests). */
void spt__bc_reconfigure(void);
/* Bytes the cache holds now, in all and in its reclaimable tier (tests). */
size_t spt__bc_held(void);
size_t spt__bc_held_large(void);
/* Allocate a*b*c bytes (checked), zeroed if `zero`. On failure records an error naming `fn` and returns
 * NULL with *st set to SPT_EOVERFLOW or SPT_ENOMEM. */
void *spt__alloc_array(const char *fn, int64_t a, int64_t b, size_t c, bool zero, spt_status *st);

/* ---- string storage ---------------------------------------------------------------------------- */

/* An arena of byte chunks that never move; string values point into it. */
typedef struct spt__chunk {
    struct spt__chunk *next;
    size_t used, cap;
    char data[];
} spt__chunk;

typedef struct spt__arena {
    spt__chunk *head;
} spt__arena;

void spt__arena_free(spt__arena *a);
/* Copy `len` bytes into the arena; *dst receives the stable copy. */
spt_status spt__arena_store(spt__arena *a, const char *src, int64_t len, const char **dst);
/* Make every string of arr[0..n) point into arena `a` (copying the bytes): after moving spt_str elements
 * from one object to another, the receiver calls this so that it owns its bytes. One chunk is used. */
spt_status spt__arena_adopt_all(spt__arena *a, spt_str *arr, int64_t n);

/* ---- the objects ------------------------------------------------------------------------------- */

struct spt__rowptr; /* the cached row pointer (below) */

enum {
    SPT__F_VALID = 1u,  /* every index inside the shape */
    SPT__F_SORTED = 2u, /* non-decreasing by `order` (order is a full permutation) */
    SPT__F_UNIQUE = 4u, /* strictly increasing by `order` (implies SORTED) */
};

struct spt_tensor {
    spt_dtype dtype;
    int64_t rank;
    int64_t nnz;
    int64_t *shape;         /* rank dims (owned; one allocation with order) */
    int64_t *order;         /* rank entries */
    int64_t *indices;       /* nnz * rank */
    void *values;           /* nnz elements */
    _Atomic unsigned flags; /* SPT__F_*: cached facts, set by read-only ops on shared tensors too, so atomic */
    bool owns_buffers;      /* indices/values allocated by spt */
    spt_release_fn release; /* for adopted buffers */
    void *release_ctx;
    spt__arena strings; /* bytes of string values owned by this tensor */
    int64_t volume;     /* the volume when it fits in int64, else -1 (any volume is a valid sparse shape) */
    /* The cached row pointer of a row-major sorted 2-D tensor (spt__rowptr_*), NULL when none: built
     * lazily by read-only ops, so published atomically; dropped by every in-place change of indices,
     * shape, order or nnz; never shared by a clone. */
    _Atomic(struct spt__rowptr *) rowptr;
};

struct spt_dense {
    spt_dtype dtype;
    int64_t rank;
    int64_t *shape;
    int64_t size; /* volume */
    void *data;
    bool owns_data;
    spt_release_fn release;
    void *release_ctx;
    spt__arena strings;
};

/* Check a dense shape (rank range, dims >= 0, volume fits in int64) naming `fn` in the message. */
spt_status spt__check_shape(const char *fn, int64_t rank, const int64_t *shape, int64_t *volume);
/* Check a sparse shape: rank range and dims >= 0 only; the volume need not fit anywhere. *volume is the
 * volume when it fits in int64, else -1. */
spt_status spt__check_dims(const char *fn, int64_t rank, const int64_t *shape, int64_t *volume);
/* Check an order vector: all -1, or a permutation of 0..rank-1. */
spt_status spt__check_order(const char *fn, int64_t rank, const int64_t *order);
/* True when order is a full permutation (no -1). */
bool spt__order_defined(int64_t rank, const int64_t *order);
/* A new zero-filled dense array of `shape` for an op's output (dense.c): the element count and bytes are
 * checked first, naming `fn` (SPT_EOVERFLOW "fn: the output of N x M ... elements does not fit"), then
 * allocated (SPT_ENOMEM naming fn). */
spt_status spt__tf_dense_out(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out);

/* A new owned tensor with zeroed buffers; order NULL = all -1. Large buffers get huge pages advised
 * (spt__hint_huge) before their first touch, here and in spt__tensor_alloc_uninit. */
spt_status spt__tensor_alloc(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz,
                             const int64_t *order, spt_tensor **out);
/* spt__tensor_alloc without zero-filling the index and value buffers when nnz > 0 and the dtype is
 * not string (the caller writes every entry); nnz 0 or strings: exactly spt__tensor_alloc (string
 * values all "" until set). */
spt_status spt__tensor_alloc_uninit(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz,
                                    const int64_t *order, spt_tensor **out);
/* spt_tensor_wrap with its errors named after fn: a tensor over storage it does not allocate (indices
 * and values as given; release(ctx), when not NULL, frees that storage in spt_tensor_free). The owner
 * hook of readers that hand out a mapped file's bytes or a buffer of their own. */
spt_status spt__tensor_adopt(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, int64_t nnz,
                             int64_t *indices, void *values, const int64_t *order, spt_release_fn release, void *ctx,
                             spt_tensor **out);
/* Advise transparent huge pages for the 2 MiB-aligned part of a large fresh buffer before its first
 * touch (fewer page faults when an op writes a big output once); only advice, failures ignored. */
void spt__hint_huge(void *p, size_t bytes);
/* spt__alloc_array's a x b elements of c bytes (its checks and message), huge pages advised before the
 * first touch, then zeroed when `zero`: the buffers of tensors and dense arrays, written once in full (an
 * output) or read at random (a dense operand, a row per entry: on 4 KiB pages each read a TLB miss). */
void *spt__alloc_huge(const char *fn, int64_t a, int64_t b, size_t c, bool zero, spt_status *st);
/* Shrink an owned tensor to its first nnz entries (nnz <= current); never fails (keeps the larger
 * buffers if the allocator cannot shrink). */
void spt__tensor_truncate(spt_tensor *t, int64_t nnz);
/* Record on t that every index is inside the shape: a cached fact about t's (unchanged) value, so ops
 * that only read t may record it; an atomic OR (relaxed: the flag guards no other data), so that
 * threads running read-only ops on one tensor do not race (the header's THREADS promise). */
static inline void spt__note_valid(const spt_tensor *t) {
    atomic_fetch_or_explicit(&((spt_tensor *)t)->flags, SPT__F_VALID, memory_order_relaxed);
}
/* Validate indices against the shape unless known valid; on success sets the flag. */
spt_status spt__ensure_valid(const char *fn, const spt_tensor *t);
/* SPT_ERANGE "fn: indices[i] = [..] is out of bounds: need 0 <= index < [bound]" for entry i of t. */
spt_status spt__oob_error(const char *fn, const spt_tensor *t, int64_t i, const int64_t *bound);
/* Record row-major order and flags on a tensor an op produced. */
void spt__set_row_major(spt_tensor *t, unsigned flags);

/* Copy element `src_i` of values `src` into element `dst_i` of `dst` (same dtype, element size es). */
static inline void spt__copy_elem(void *dst, int64_t dst_i, const void *src, int64_t src_i, size_t es) {
    memcpy((char *)dst + (size_t)dst_i * es, (const char *)src + (size_t)src_i * es, es);
}

/* Compare two index rows lexicographically in dims order[0..rank) (NULL = row-major): -1, 0, 1. */
static inline int spt__cmp_rows(const int64_t *a, const int64_t *b, int64_t rank, const int64_t *order) {
    for (int64_t k = 0; k < rank; k++) {
        int64_t d = order ? order[k] : k;
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    }
    return 0;
}

/* ---- the cached row pointer (tensor.c) -------------------------------------------------------- */

/* For a valid 2-D tensor sorted row-major with few rows against its entries (shape[0] + 1 <= nnz / 4:
 * at most 1 byte per entry) and nnz <= UINT32_MAX, p[r] is the first entry of row r (p[rows] = nnz):
 * CSR's row pointer in 32-bit slots (measured: half the fresh pages of 64-bit slots made the first row
 * sum at 1e7 entries 10 ms of CPU instead of 16, and the later ones 5.3 instead of 6.0).
 * Built once, by the first op that can use it (row sums), published on the tensor with a compare-
 * exchange (a read-only op on a shared tensor may build it; the loser of a race frees its copy), and
 * dropped (spt__rowptr_drop) by every path that changes the tensor's indices, shape, order or nnz in
 * place. rows / nnz / indices record what it was built for; a use checks them as well as the flags. */
typedef struct spt__rowptr {
    int64_t rows, nnz;
    const int64_t *indices;
    uint32_t p[]; /* rows + 1 */
} spt__rowptr;

/* True when t qualifies for a row pointer (2-D, valid, sorted by order (0, 1), nnz > 0, the size bound). */
bool spt__rowptr_eligible(const spt_tensor *t);
/* The row pointer cached on t when it is present and still matches t, else NULL (acquire load). */
const spt__rowptr *spt__rowptr_get(const spt_tensor *t);
/* A fresh, unpublished row pointer for an eligible t whose p[] the caller fills (NULL when the
 * allocation fails: the caller then takes its plain path, no error). */
spt__rowptr *spt__rowptr_new(const spt_tensor *t);
/* Publish r on t unless another thread did first (then r is freed); returns the one t holds. */
const spt__rowptr *spt__rowptr_publish(const spt_tensor *t, spt__rowptr *r);
/* Drop and free t's row pointer (t is being modified: no other thread may use it). NULL-safe. */
void spt__rowptr_drop(spt_tensor *t);

/* ---- dtype tables ------------------------------------------------------------------------------ */

/* The zero element of a dtype (enough bytes for every dtype, all zero; for strings an empty spt_str). */
extern const unsigned char spt__zero_elem[16];

/* Per-dtype kernel tables are built in the op files with X-macros over include/spt_dtypes.def (the
 * dtype kinds an op supports, and the templates instantiated per dtype: ops/kernel.h, ops/each_dtype.h). */

/* ---- threads ----------------------------------------------------------------------------------- */

/* Marks a variable that only OpenMP pragmas read (a serial build, OPENMP=0, would warn it unused). */
#define SPT__OMP_VAR __attribute__((unused))

/* spt_dense_new with its errors (shape, size, memory) named after fn, the public function calling it. */
spt_status spt__dense_new(const char *fn, spt_dtype dtype, int64_t rank, const int64_t *shape, spt_dense **out);
/* Threads for `work` units (1 below SPT_PAR_MIN_WORK units, 2^20 by default, and below ~32k units per
 * thread), capped by spt_get_num_threads(). */
int spt__threads_for(int64_t work);
/* Read SPT_PAR_MIN_WORK again at the next spt__threads_for (tests). */
void spt__par_reconfigure(void);

/* ---- prefix sums (scan.c) ----------------------------------------------------------------------- */

/* a[i] = a[0] + ... + a[i-1] in place; returns the total. The caller knows the total fits in int64: the
 * counts are of things already in memory (entries, bytes, lines, ranks' shares). */
int64_t spt__scan_exclusive(int64_t *a, int64_t n);

/* Per-chunk histograms h[c * nb + b] (chunk c's count of bucket b) to exclusive offsets in bucket-major,
 * chunk-minor order, which keeps a parallel scatter stable. bounds (NULL, or nb + 1 slots) gets the
 * start of every bucket and the total. Returns the total. */
int64_t spt__scan_histograms(int64_t *h, int64_t chunks, int64_t nb, int64_t *bounds);

/* ---- sorting (src/sort/: sort.c, sort_radix.c, sort_gather.c) ----------------------------------------------------------------------- */

/* Compute the linear key of every entry in `order` (NULL = row-major) with strides from the shape,
 * checking bounds unless the tensor is known valid (SPT_ERANGE names `fn`). keys has nnz slots.
 * *sorted is set when the keys are non-decreasing, *unique when strictly increasing. */
spt_status spt__linear_keys(const char *fn, const spt_tensor *t, const int64_t *order, uint64_t *keys, bool *sorted,
                            bool *unique);
/* Stable LSD radix sort of (keys, perm) where perm[i] starts as i (filled by the function); max_key
 * bounds every key. On return keys are sorted and perm[k] is the source entry of position k. */
spt_status spt__radix_sort(const char *fn, uint64_t *keys, int64_t *perm, int64_t n, uint64_t max_key);
/* Stable sort of n (key, payload) pairs by keys below 2^bits (1 <= bits <= 64): one parallel MSD
 * scatter by the top digit, then each bucket by the rest in cache (small n: in-cache LSD only). */
spt_status spt__sort_pairs(const char *fn, uint64_t *keys, uint64_t *pay, int64_t n, int bits);
/* Permute values in place: new[k] = old[perm[k]] (allocates a scratch of n elements). */
spt_status spt__permute_values(const char *fn, void *values, size_t es, const int64_t *perm, int64_t n);
/* Sort an owned or wrapped tensor by `order` (NULL = row-major) in place; sets order and flags. */
spt_status spt__reorder(const char *fn, spt_tensor *t, const int64_t *order);

/* ---- the distributed MSD radix sort (sort_packed.c; used by src/mpi/sort.c) -------------------- */
/* The packed-key hybrid sort cut into steps, so that an all-to-all can run between the MSD scatter and
 * the in-cache bucket sorts: every rank packs its entries' keys (one 64-bit word), counts their top
 * digit (the bucket), scatters (key, payload) pairs grouped by bucket, sends each rank a contiguous run
 * of buckets, and the receiver sorts each bucket by the bits below the digit and decodes it. Payloads
 * are the values, zero-extended to 8 bytes. */
typedef struct spt__msd spt__msd;
/* The plan for t's entries in `order` (NULL = row-major): *out NULL (and SPT_OK) when the path does not
 * apply (strings, values wider than 8 bytes, rank 0, keys wider than 64 bits). The digit depends only on
 * t's dtype, rank and shape, so ranks with the same metadata agree. */
spt_status spt__msd_plan(const char *fn, const spt_tensor *t, const int64_t *order, spt__msd **out);
void spt__msd_free(spt__msd *m);
/* The bucket digit's width d: 2^d buckets, bucket = key >> (bits - d). */
int spt__msd_digit(const spt__msd *m);
/* counts[b] = t's entries in bucket b (2^d slots), checking indices against the shape unless t is
 * known valid (SPT_ERANGE naming fn). Reads t's indices once. */
spt_status spt__msd_count(const char *fn, spt__msd *m, const spt_tensor *t, int64_t *counts);
/* After spt__msd_count: (key, payload) of each entry into tk/tp (t->nnz slots each), grouped by bucket
 * in bucket order, stable within a bucket. Only allocation can fail. */
spt_status spt__msd_scatter(const char *fn, spt__msd *m, const spt_tensor *t, uint64_t *tk, uint64_t *tp);
/* Before the finish: nbk consecutive buckets will come from nsrc sources, cnt[q * nbk + j] pairs of
 * bucket j from source q (cnt is borrowed until the finish). Allocates the finish's scratch: the only
 * step after the scatter that can fail. */
spt_status spt__msd_prepare(const char *fn, spt__msd *m, int nsrc, const int64_t *cnt, int64_t nbk);
/* Source q holds its pieces of the buckets back to back at sk[q]/sp[q]. Each bucket is the
 * concatenation of its pieces in source order, sorted stably by the key; of the sorted concatenation of
 * all buckets, entries [skip, skip + keep) are decoded into out's index rows and values (out has keep
 * entries and t's dtype and rank; its buffers are only written, so they may be t's own once the scatter
 * has read them). *unique: no two of them are equal. Cannot fail. */
void spt__msd_finish(const spt__msd *m, const uint64_t *const *sk, const uint64_t *const *sp, int64_t skip,
                     int64_t keep, spt_tensor *out, bool *unique);
/* The second level (msd_plan.c), when the top digit's buckets are too coarse for P ranks (a bucket holding
 * a block boundary would make a rank receive too much): the top buckets holding a boundary are split by
 * the next d2 bits into 2^d2 sub-buckets, and the sort proceeds over "units" (a whole top bucket, or one
 * sub-bucket of a split one) in key order exactly as over buckets: spt__msd_prepare/finish take unit
 * counts. The sub-digit's width for P ranks (0: no bits below the top digit). */
int spt__msd_sub_digit(const spt__msd *m, int P);
/* The top buckets (ascending, distinct) holding a block start B[1..P-1] strictly inside them, into pick
 * (room for P - 1); S: the nb + 1 prefix sums of the global bucket counts. Returns their count K. */
int64_t spt__msd_pick(const int64_t *S, int64_t nb, const int64_t *B, int P, int64_t *pick);
/* After spt__msd_scatter (the pairs grouped by top bucket, bucket j at [L[j], L[j+1])): the pairs of each
 * picked bucket regrouped stably by the sub-digit in place, and cnt[k 2^d2 + s] = how many of them are in
 * sub-bucket s of pick[k]. Only allocation can fail. */
spt_status spt__msd_sub_split(const char *fn, const spt__msd *m, int d2, uint64_t *tk, uint64_t *tp, const int64_t *L,
                              const int64_t *pick, int64_t K, int64_t *cnt);
/* The unit counts from the top counts (nb) and the picked buckets' sub-counts (K x 2^d2) into unit
 * (NULL: only counted). Returns the number of units, nb - K + K 2^d2. */
int64_t spt__msd_units(int64_t nb, int d2, const int64_t *pick, int64_t K, const int64_t *top, const int64_t *sub,
                       int64_t *unit);
/* Test hooks: cap the top digit below 11 bits (0: no cap), so that the second level runs at small P; the
 * levels the last distributed MSD sort used (1 or 2; 0: it fell back to the sample sort), noted by it. */
void spt__msd_test_cap(int digit);
int spt__msd_test_levels(void);
void spt__msd_note_levels(int levels);

#endif /* SPT_INTERNAL_H */
