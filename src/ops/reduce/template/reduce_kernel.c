/* SPDX-License-Identifier: Apache-2.0 */
/* template/reduce_kernel.c -- the value loops of a reduction (spt_reduce_sum, spt_reduce_max and their
 * sparse forms) for one dtype: the kernel spt__reduce runs (spt__reduce_kernel, ops/kernel.h). Not
 * compiled on its own: reduce_op.h includes it through ops/each_dtype.h once per dtype of the op's kinds,
 * with SPT__T and SPT__KIND defined and, from the op file, REDUCE_OP(KIND) (the binary reduction
 * OP(T, acc, x) of that kind: wrapping add, std::max, ...) and REDUCE_LANES (1 when the reduction over
 * every axis may use several partial results: OP is associative up to rounding, as sums are; 0 when the
 * order matters, as for std::max with NaN or signed zeros). It defines reduce_kernel_<enum>.
 *
 * Values are visited in storage order (through a stable permutation), so a group's result does not
 * depend on the thread count. */

#define RED(a, b) REDUCE_OP_(SPT__KIND)(SPT__T, a, b)

/* *acc = the reduction of vals[e] for e = perm ? perm[i] : i, i in [lo, hi) (hi > lo). */
static void SPT__NAME(seg)(const void *vals, const int64_t *perm, int64_t lo, int64_t hi, void *acc) {
    const SPT__T *v = vals;
    SPT__T a;
    if (perm) {
        a = v[perm[lo]];
        for (int64_t i = lo + 1; i < hi; i++) a = RED(a, v[perm[i]]);
    } else {
        a = v[lo];
        for (int64_t i = lo + 1; i < hi; i++) a = RED(a, v[i]);
    }
    *(SPT__T *)acc = a;
}

static void SPT__NAME(combine)(void *acc, const void *x) { *(SPT__T *)acc = RED(*(SPT__T *)acc, *(const SPT__T *)x); }

/* For i in [lo, hi): out[keys[i]] = seen ? OP(out[keys[i]], vals[i]) : vals[i]; seen = 1. */
static void SPT__NAME(scatter)(const void *vals, const uint64_t *keys, int64_t lo, int64_t hi, void *out,
                               unsigned char *seen) {
    const SPT__T *v = vals;
    SPT__T *o = out;
    for (int64_t i = lo; i < hi; i++) {
        uint64_t k = keys[i];
        if (seen[k]) o[k] = RED(o[k], v[i]);
        else {
            o[k] = v[i];
            seen[k] = 1;
        }
    }
}

#if REDUCE_LANES && SPT__REDUCE_IS_FLOAT(SPT__KIND)
/* float and double: the reduction of vals[lo, hi) in L = 16 x (16 / sizeof(T)) interleaved partial
 * results (32 for double, 64 for float; lane k takes the entries lo + k, lo + k + L, ...), the values past
 * the last full group of L going to lane 0 in order, then combined by halving: lane k + L/2 into lane k,
 * then k + L/4 into k, ..., down to lane 0; one chain in storage order below L values. A fixed grouping,
 * so the result depends only on [lo, hi). The lanes are held as sixteen 16-byte vectors (SSE2, every
 * x86-64) or, where the processor has AVX2, as eight 32-byte ones holding the same lanes: each element
 * of a vector add is the scalar IEEE add of its lane, so both forms give the bits of the scalar lanes.
 * The independent chains keep the loads, not the add latency, the limit (the 8 scalar lanes of the
 * other kinds read about half the load bandwidth from L3 here); a software prefetch 4 KiB ahead keeps
 * the reads streaming across page boundaries. */
/* The values past the last full group into lane 0, the halving, the result. */
static void SPT__NAME(lanes_fold)(SPT__T *l, const SPT__T *v, int64_t i, int64_t hi, void *acc) {
    enum { L = 16 * (16 / sizeof(SPT__T)) };
    for (; i < hi; i++) l[0] = l[0] + v[i];
    for (int h = L / 2; h >= 1; h /= 2)
        for (int k = 0; k < h; k++) l[k] = l[k] + l[k + h];
    *(SPT__T *)acc = l[0];
}

/* The lanes as sixteen 16-byte vectors (vector m holds lanes m W .. m W + W - 1) and, on x86-64, as eight
 * 32-byte ones compiled for AVX2 (the same lanes, two 16-byte vectors' worth each). */
#define RL_FN SPT__NAME(lanes_v16)
#define RL_BYTES 16
#define RL_REP SPT__REDUCE_REP16
#define RL_ATTR
#include "ops/reduce/template/reduce_lanes.c"
#if SPT__SIMD_X86
#define RL_FN SPT__NAME(lanes_v32)
#define RL_BYTES 32
#define RL_REP SPT__REDUCE_REP8
#define RL_ATTR SPT__TARGET_AVX2
#include "ops/reduce/template/reduce_lanes.c"
#endif

static void SPT__NAME(lanes)(const void *vals, int64_t lo, int64_t hi, void *acc) {
    enum { L = 16 * (16 / sizeof(SPT__T)) };
    const SPT__T *v = vals;
    if (hi - lo < L) SPT__NAME(seg)(vals, NULL, lo, hi, acc);
#if SPT__SIMD_X86
    else if (spt__simd() >= SPT__SIMD_AVX2) SPT__NAME(lanes_v32)(v, lo, hi, acc);
#endif
    else SPT__NAME(lanes_v16)(v, lo, hi, acc);
}
#define LANES_FN SPT__NAME(lanes)
#elif REDUCE_LANES
/* Integers and complex: the reduction of vals[lo, hi) in 8 interleaved partial results (lane k takes the entries lo + k,
 * lo + k + 8, ...), combined as ((l0 l1) (l2 l3)) ((l4 l5) (l6 l7)), the tail going to lane 0. A fixed
 * grouping, so the result depends only on [lo, hi); the 8 independent chains let the adds overlap instead
 * of waiting on one another, and a software prefetch 4 KiB ahead keeps the reads streaming across page
 * boundaries (one core's hardware prefetch alone reads at about half the copy bandwidth here). */
static void SPT__NAME(lanes)(const void *vals, int64_t lo, int64_t hi, void *acc) {
    const SPT__T *v = vals;
    if (hi - lo < 16) {
        SPT__NAME(seg)(vals, NULL, lo, hi, acc);
        return;
    }
    /* eight named accumulators, not an array: an array indexed in a loop was kept on the stack, each add
     * a store and a reload (about 1 cycle per value, 2x GraphBLAS's sum in cache) */
    SPT__T l0 = v[lo], l1 = v[lo + 1], l2 = v[lo + 2], l3 = v[lo + 3];
    SPT__T l4 = v[lo + 4], l5 = v[lo + 5], l6 = v[lo + 6], l7 = v[lo + 7];
    int64_t i = lo + 8;
    for (; hi - i >= 8; i += 8) {
        if (hi - i > (int64_t)(4096 / sizeof(SPT__T))) __builtin_prefetch(v + i + 4096 / sizeof(SPT__T));
        const SPT__T *x = v + i;
        l0 = RED(l0, x[0]);
        l1 = RED(l1, x[1]);
        l2 = RED(l2, x[2]);
        l3 = RED(l3, x[3]);
        l4 = RED(l4, x[4]);
        l5 = RED(l5, x[5]);
        l6 = RED(l6, x[6]);
        l7 = RED(l7, x[7]);
    }
    for (; i < hi; i++) l0 = RED(l0, v[i]);
    l0 = RED(l0, l1);
    l2 = RED(l2, l3);
    l4 = RED(l4, l5);
    l6 = RED(l6, l7);
    l0 = RED(l0, l2);
    l4 = RED(l4, l6);
    *(SPT__T *)acc = RED(l0, l4);
}
#define LANES_FN SPT__NAME(lanes)
#else
#define LANES_FN NULL
#endif

/* Store the zero of T into out cells [w, e) (all bits zero is 0 for every number type here). */
static inline void SPT__NAME(zero_cells)(SPT__T *o, uint64_t w, uint64_t e) {
    if (e > w) memset(o + w, 0, (size_t)(e - w) * sizeof(SPT__T));
}

/* *p = a by a streaming store (used for 8-byte T only; the copy's size keeps other instances in bounds). */
static inline void SPT__NAME(put_nt)(SPT__T *p, SPT__T a) {
    uint64_t b = 0;
    memcpy(&b, &a, sizeof(SPT__T) < sizeof b ? sizeof(SPT__T) : sizeof b);
    spt__stream_put64(p, b);
}

/* The run loop of runs / runs_rp over entries (lo, hi): a run of equal keys is reduced into *a in
 * storage order; at a key change the cells since *w get 0 and the run's cell its value, and with rp the
 * row pointer slots up to the next key get the entry that starts it. The key of entry i: `general`, its
 * row-major key over every kept dim; otherwise its coordinate in the one kept dim. Always inlined with
 * constant `general` and rp, so each use is its own loop. */
static inline __attribute__((always_inline)) void SPT__NAME(runs_loop)(const spt__reduce_src *s, int64_t lo, int64_t hi,
                                                                       SPT__T *o, bool general, uint32_t *rp,
                                                                       uint64_t *pw, uint64_t *pk, SPT__T *pa) {
    const SPT__T *v = s->vals;
    const int64_t R = s->R, *ix = s->ix, *c = s->ix + s->K[0];
    uint64_t w = *pw, k = *pk;
    SPT__T a = *pa;
    for (int64_t i = lo + 1; i < hi; i++) {
        const uint64_t kk = general ? spt__rkey(s, 0, s->nk, ix + i * R) : (uint64_t)c[i * R];
        if (kk == k) {
            a = RED(a, v[i]);
            continue;
        }
        SPT__NAME(zero_cells)(o, w, k);
        o[k] = a;
        w = k + 1;
        if (rp)
            for (uint64_t r = w; r <= kk; r++) rp[r] = (uint32_t)i;
        k = kk;
        a = v[i];
    }
    *pw = w;
    *pk = k;
    *pa = a;
}

#if REDUCE_LANES && SPT__REDUCE_IS_FLOAT(SPT__KIND) && SPT__SIMD_X86
/* Sums with a one-dim key (row sums) without a branch per entry (rb_*). In runs_loop a key that starts
 * a run or continues one, and a gap of empty cells or none, are branches: on sorted keys whose runs have
 * random lengths (a few entries a row, drawn at random) they go either way at random, and each miss costs
 * more than the entry's work (about 13 cycles an entry here against 4 when they are predictable). Here each
 * entry stores the Z cells after the previous key as 0 (later stores overwrite the ones that hold
 * entries; a longer gap, rare when the rows are this dense, is a predictable branch), selects by bit
 * masks between its value and the run's sum plus it (the same left fold in storage order: first value,
 * then + the next ones) and stores that in its cell, so a cell's last store is its sum. The select makes
 * a chain of dependent adds, so four streams (the entries cut in four at run starts, each owning the cells
 * from its first key to the next stream's) are stepped in turn. Each stream runs branch-free while its
 * key stays more than Z cells below its end; runs_loop does the rest. Compiled for AVX2 (the 32-byte
 * zero store); chosen by rb_pays. */
enum { SPT__NAME(rb_z) = 32 / sizeof(SPT__T), SPT__NAME(rb_s) = 4 };
typedef SPT__T SPT__NAME(rb_v) __attribute__((vector_size(16)));
typedef __typeof__(__builtin_choose_expr(sizeof(SPT__T) == 8, (int64_t)0, (int32_t)0)) SPT__NAME(rb_i);
typedef SPT__NAME(rb_i) SPT__NAME(rb_iv) __attribute__((vector_size(16)));
typedef struct {
    int64_t k; /* the key of the entry before (the stream's first cell - 1 at its start) */
    SPT__T a;  /* the sum of the run so far */
    const int64_t *kp;
    const SPT__T *vp;
} SPT__NAME(rb_st);

static inline __attribute__((always_inline)) SPT__TARGET_AVX2 void SPT__NAME(rb_step)(SPT__NAME(rb_st) * st, SPT__T *o,
                                                                                      int64_t R, int64_t t) {
    enum { Z = SPT__NAME(rb_z) };
    const int64_t kk = st->kp[t * R], k = st->k, gap = kk - k - 1;
    const SPT__T x = st->vp[t];
    memset(o + k + 1, 0, Z * sizeof(SPT__T));
    if (__builtin_expect(gap > Z, 0)) memset(o + k + 1 + Z, 0, (size_t)(gap - Z) * sizeof(SPT__T));
    const SPT__NAME(rb_iv) m = {-(SPT__NAME(rb_i))(kk == k)};
    const SPT__NAME(rb_v) y = {RED(st->a, x)}, xv = {x};
    const SPT__NAME(rb_iv) r = ((SPT__NAME(rb_iv))y & m) | ((SPT__NAME(rb_iv))xv & ~m);
    st->a = ((SPT__NAME(rb_v))r)[0];
    o[kk] = st->a;
    st->k = kk;
}

/* runs for a one-dim key, branch-free (above): entries [lo, hi) into the cells [c0, c1) they own. */
static SPT__TARGET_AVX2 void SPT__NAME(rb_runs)(const spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0,
                                                uint64_t c1, SPT__T *o) {
    enum { Z = SPT__NAME(rb_z), S = SPT__NAME(rb_s) };
    const int64_t R = s->R, *c = s->ix + s->K[0], n = hi - lo;
    const SPT__T *v = s->vals;
    int64_t p[S + 1], q[S], cs[S + 1], L = INT64_MAX;
    p[0] = lo;
    p[S] = hi;
    cs[0] = (int64_t)c0;
    cs[S] = (int64_t)c1;
    for (int m = 1; m < S; m++) { /* stream m starts at the first run start at or after lo + m n / S */
        int64_t x = lo + m * (n / S);
        if (x < p[m - 1]) x = p[m - 1];
        while (x < hi && c[x * R] == c[(x - 1) * R]) x++;
        p[m] = x;
        cs[m] = x < hi ? c[x * R] : (int64_t)c1;
    }
    for (int m = 0; m < S; m++) { /* q[m]: stream m's first entry whose key is within Z of its end */
        int64_t l = p[m], h = p[m + 1];
        if (cs[m] + Z < cs[m + 1])
            while (l < h) {
                const int64_t mid = l + (h - l) / 2;
                if (c[mid * R] >= cs[m + 1] - Z) h = mid;
                else l = mid + 1;
            }
        q[m] = l;
        if (q[m] - p[m] < L) L = q[m] - p[m];
    }
    SPT__NAME(rb_st) st[S];
    for (int m = 0; m < S; m++) st[m] = (SPT__NAME(rb_st)){cs[m] - 1, (SPT__T)0, c + p[m] * R, v + p[m]};
    for (int64_t t = 0; t < L; t++) {
        SPT__NAME(rb_step)(&st[0], o, R, t);
        SPT__NAME(rb_step)(&st[1], o, R, t);
        SPT__NAME(rb_step)(&st[2], o, R, t);
        SPT__NAME(rb_step)(&st[3], o, R, t);
    }
    for (int m = 0; m < S; m++) { /* the rest of each stream as runs does it */
        int64_t j = p[m] + L;
        uint64_t w = (uint64_t)cs[m], k;
        SPT__T a;
        if (j == p[m + 1] && L == 0) { /* an empty stream owns no cells */
            SPT__NAME(zero_cells)(o, w, (uint64_t)cs[m + 1]);
            continue;
        }
        if (L == 0) {
            k = (uint64_t)c[j * R];
            a = v[j];
        } else {
            k = (uint64_t)st[m].k;
            a = st[m].a;
            w = k; /* the cells before k are done; k's is stored again below */
            j--;
        }
        SPT__NAME(runs_loop)(s, j, p[m + 1], o, false, NULL, &w, &k, &a);
        SPT__NAME(zero_cells)(o, w, k);
        o[k] = a;
        SPT__NAME(zero_cells)(o, k + 1, (uint64_t)cs[m + 1]);
    }
}

/* Whether rb_runs beats runs_loop on entries [lo, hi) (keys non-decreasing): with AVX2, enough entries,
 * and when the first 1024 key steps of the range make runs_loop's two branches (the run goes on; empty
 * cells follow) change outcome more often than one step in 8 while rb_runs' one branch (a gap over Z)
 * changes at most half as often. Keys in a regular pattern (one entry a row, long runs) stay with
 * runs_loop, which is faster when its branches are predicted. */
static bool SPT__NAME(rb_pays)(const spt__reduce_src *s, int64_t lo, int64_t hi) {
    enum { Z = SPT__NAME(rb_z), SAMPLE = 1024 };
    if (hi - lo < 16 * SAMPLE || spt__simd() < SPT__SIMD_AVX2) return false;
    const int64_t R = s->R, *c = s->ix + s->K[0];
    int64_t flips_a = 0, flips_b = 0;
    int pa = -1, pb = -1;
    for (int64_t i = lo + 1; i <= lo + SAMPLE; i++) {
        const int64_t d = c[i * R] - c[(i - 1) * R];
        const int ba = d == 0 ? 0 : d == 1 ? 1 : 2, bb = d > Z + 1;
        flips_a += pa >= 0 && ba != pa;
        flips_b += pb >= 0 && bb != pb;
        pa = ba;
        pb = bb;
    }
    return flips_a * 8 > SAMPLE && flips_b * 2 <= flips_a;
}
#endif

/* The dense output of entries [lo, hi) whose keys are non-decreasing; the caller owns cells [c0, c1) of
 * out (uninitialised), which hold every key of [lo, hi). Each run of equal keys is reduced in storage
 * order into a register (its first value, then OP with the next ones: the same order as seg) and stored
 * once; the cells between runs get 0, so every owned cell is written exactly once (rb_runs, chosen for
 * float sums with a one-dim key on run lengths that defeat branch prediction, stores a run's partial
 * sums and some zeros ahead too, its cells' last stores being the same values). The run boundaries
 * are found inline from the index rows (no key array, no call per run); the one-dim key (row sums, the
 * leading dims of a 3-D tensor) has its own loop. */
static void SPT__NAME(runs)(const spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, void *out) {
    const SPT__T *v = s->vals;
    SPT__T *o = out;
    uint64_t w = c0;
#if REDUCE_LANES && SPT__REDUCE_IS_FLOAT(SPT__KIND) && SPT__SIMD_X86
    if (s->nk == 1 && SPT__NAME(rb_pays)(s, lo, hi)) {
        SPT__NAME(rb_runs)(s, lo, hi, c0, c1, o);
        return;
    }
#endif
    if (lo < hi) {
        uint64_t k = spt__rkey(s, 0, s->nk, s->ix + lo * s->R);
        SPT__T a = v[lo];
        if (s->nk == 1) SPT__NAME(runs_loop)(s, lo, hi, o, false, NULL, &w, &k, &a);
        else SPT__NAME(runs_loop)(s, lo, hi, o, true, NULL, &w, &k, &a);
        SPT__NAME(zero_cells)(o, w, k);
        o[k] = a;
        w = k + 1;
    }
    SPT__NAME(zero_cells)(o, w, c1);
}

/* Entry i of a block into its cell sk: the block's first value there stored, the next ones OP'ed in
 * storage order. */
static inline void SPT__NAME(block_put)(SPT__T *blk, unsigned char *seen, uint64_t sk, SPT__T x) {
    if (seen[sk]) x = RED(blk[sk], x);
    blk[sk] = x;
    seen[sk] = 1;
}

/* The block loop of blocks over entries [lo, hi), the cells before *w already written. `two`: one prefix
 * dim and one inner dim (a 3-D tensor's axis 1), read straight from the index rows. Always inlined with a
 * constant `two`, so each case is its own loop. */
static inline __attribute__((always_inline)) void SPT__NAME(blocks_loop)(const spt__reduce_src *s, int64_t lo,
                                                                         int64_t hi, SPT__T *o, unsigned char *seen,
                                                                         bool two, uint64_t *pw) {
    const SPT__T *v = s->vals;
    SPT__T *blk = NULL;
    const int64_t R = s->R, *ix = s->ix, q = s->q, nk = s->nk;
    const int64_t d0 = two ? s->K[0] : 0, d1 = two ? s->K[1] : 0;
    const uint64_t inner = s->inner;
    uint64_t w = *pw, cur = 0;
    for (int64_t i = lo; i < hi; i++) {
        const int64_t *row = ix + i * R;
        const uint64_t pk = two ? (uint64_t)row[d0] : spt__rkey(s, 0, q, row);
        if (!blk || pk != cur) {
            cur = pk;
            SPT__NAME(zero_cells)(o, w, (cur + 1) * inner);
            w = (cur + 1) * inner;
            blk = o + cur * inner;
            memset(seen, 0, (size_t)inner);
        }
        const uint64_t sk = two ? (uint64_t)row[d1] : spt__rkey(s, q, nk, row);
        SPT__T x = v[i];
        if (seen[sk]) x = RED(blk[sk], x);
        blk[sk] = x;
        seen[sk] = 1;
    }
    *pw = w;
}

/* The dense output of entries [lo, hi) non-decreasing in the block prefix K[0..q) only (the key order
 * inside a block is free): a block's cells are zeroed when its first entry is met, then each entry goes
 * to its cell, the first one stored, the next ones OP'ed in storage order (seen: the thread's `inner`
 * first-touch flags, cleared per block); the blocks without entries get 0. */
static void SPT__NAME(blocks)(const spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, void *out,
                              unsigned char *seen) {
    SPT__T *o = out;
    uint64_t w = c0;
    if (s->q == 1 && s->nk == 2) SPT__NAME(blocks_loop)(s, lo, hi, o, seen, true, &w);
    else SPT__NAME(blocks_loop)(s, lo, hi, o, seen, false, &w);
    SPT__NAME(zero_cells)(o, w, c1);
}

/* runs for a one-dim key (row sums of a 2-D tensor sorted row-major) that also writes the row pointer of
 * the cells it owns: rp[r] = the first entry of [lo, hi) whose key is >= r, else hi, for r in [c0, c1)
 * (so chunks owning disjoint cells fill disjoint slots). The sums are exactly those of runs. */
static void SPT__NAME(runs_rp)(const spt__reduce_src *s, int64_t lo, int64_t hi, uint64_t c0, uint64_t c1, void *out,
                               uint32_t *rp) {
    const SPT__T *v = s->vals;
    SPT__T *o = out;
    const int64_t *c = s->ix + s->K[0];
    uint64_t w = c0;
    if (lo < hi) {
        uint64_t k = (uint64_t)c[lo * s->R];
        SPT__T a = v[lo];
        for (uint64_t r = w; r <= k; r++) rp[r] = (uint32_t)lo;
        SPT__NAME(runs_loop)(s, lo, hi, o, false, rp, &w, &k, &a);
        SPT__NAME(zero_cells)(o, w, k);
        o[k] = a;
        w = k + 1;
    }
    for (uint64_t r = w; r < c1; r++) rp[r] = (uint32_t)hi;
    SPT__NAME(zero_cells)(o, w, c1);
}

/* The same sums from the row pointer and the values only (CSR's row sums): cell r is the fold of
 * vals[rp[r], rp[r+1]) in storage order (first value, then OP with the next ones), 0 when empty. */
static void SPT__NAME(rows)(const void *vals, const uint32_t *rp, uint64_t r0, uint64_t r1, void *out) {
    const SPT__T *v = vals;
    SPT__T *o = out;
    const bool nt = sizeof(SPT__T) == 8 && r1 - r0 >= SPT__REDUCE_NT_CELLS; /* a large output: streamed */
    for (uint64_t r = r0; r < r1; r++) {
        int64_t i = (int64_t)rp[r];
        const int64_t e = (int64_t)rp[r + 1];
        SPT__T a = (SPT__T)0;
        if (i < e) {
            a = v[i];
            for (i++; i < e; i++) a = RED(a, v[i]);
        }
        if (nt) SPT__NAME(put_nt)(o + r, a);
        else o[r] = a;
    }
    if (nt) spt__stream_fence(); /* before the region's end lets another thread read the cells */
}

static const spt__reduce_kernel SPT__NAME(reduce_kernel) = {SPT__NAME(seg),     SPT__NAME(combine), SPT__NAME(scatter),
                                                            LANES_FN,           SPT__NAME(runs),    SPT__NAME(blocks),
                                                            SPT__NAME(runs_rp), SPT__NAME(rows)};

#undef RED
#undef LANES_FN
