/* SPDX-License-Identifier: Apache-2.0 */
/* merge_blocks.h -- the union merge engine of spt_add, spt_subtract, spt_maximum and spt_minimum for two
 * canonical operands (valid, sorted row-major, no repeated index) whose row-major key fits in 64 bits, cut
 * into blocks of the merge path. One engine (merge_engine.c) runs every op: an op supplies its block merge,
 * template/merge_block.c instantiated with the op's values (its combine of a coinciding pair, its value of
 * an entry held by one side) as the template's parameters.
 *
 * Block k covers the merge-path diagonals [k*B, (k+1)*B): its start in a and b is found by a co-rank
 * search (spt__mb_split), so any thread can merge any block without the ones before it. A block is
 * merged as two lanes (the two halves of its diagonals, interleaved in one loop: two independent
 * dependency chains) into a small per-thread buffer; its output position is the sum of the output
 * counts of the blocks before it (add.c finds it by looking back over the counts the threads publish),
 * and the buffer is then streamed to the output. No entry is written twice to the output and there is
 * no counting pass.
 *
 * Split rule: split(d) is the position (i, j) of the serial merge (ties: a first) after d of the
 * interleaved entries, moved one entry further in b when it falls between the two entries of a
 * coinciding pair (a[i-1] and b[j] equal): a pair is never cut, and a merge that stops at the first
 * position with i + j >= d stops exactly at split(d). */
#ifndef SPT_OPS_ELEMENTWISE_MERGE_BLOCKS_H
#define SPT_OPS_ELEMENTWISE_MERGE_BLOCKS_H

#include "ops/kernel.h"

#ifndef SPT__MB_NT
#define SPT__MB_NT 1
#endif
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define SPT__MB_STREAM SPT__MB_NT
#else
#define SPT__MB_STREAM 0
#endif

typedef struct spt__mb {
    const int64_t *ia, *ib; /* index rows of a and b */
    const void *va, *vb;    /* values */
    int64_t na, nb, rank;
    const int64_t *sh; /* the shape: row-major key of a row */
    double thresh;
    bool k60; /* every key is below 2^60 (the shape's volume is at most 2^60): the AVX-512 step packs them */
} spt__mb;

/* What the vector lane does to the value of an entry held by one side only, for 8-byte values: nothing
 * (ID), 0 - y for b's entries (subtract: float64, int64, complex64), or the max / min with an implicit 0
 * (maximum, minimum: float64, int64; NaN kept). NONE: the op's values have no vector form (scalar lanes). */
enum {
    SPT__MB_V_NONE = -1,
    SPT__MB_V_ID = 0,
    SPT__MB_V_NEGB_F64,
    SPT__MB_V_NEGB_I64,
    SPT__MB_V_NEGB_C64,
    SPT__MB_V_MAX_F64,
    SPT__MB_V_MIN_F64,
    SPT__MB_V_MAX_I64,
    SPT__MB_V_MIN_I64
};

/* One lane: merge from (i, j) while i + j < dend, writing to the buffer from w. */
typedef struct spt__mb_lane {
    int64_t i, j, dend, w;
} spt__mb_lane;

/* The vector form of a lane (merge_simd.c): the value of a coinciding pair (x in a, y in b) into *out,
 * returning 1 when it is kept, else 0; whether the vector lane runs for values of es bytes and one-sided
 * values vop on this processor (AVX-512 or AVX2 in use, es 8, vop not NONE); and the run, which merges both lanes
 * L[0], L[1] forward exactly as the scalar lanes do (same output, same stop: the first position at or past
 * dend, a coinciding pair taken whole) until each ends or one operand is used up. */
typedef int (*spt__mb_both_fn)(const spt__mb *m, const void *x, const void *y, void *out);
bool spt__mb_simd_on(size_t es, int vop);
void spt__mb_simd_run(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv, spt__mb_both_fn both, int vop);
/* The forms spt__mb_simd_run chooses from (merge_simd512.c, merge_simd256.c; x86-64 only). */
void spt__mb_run512(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv, spt__mb_both_fn both, int vop);
void spt__mb_run256(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv, spt__mb_both_fn both, int vop);

/* Row-major linear key of an index row of rank r over dims sh (the row lies inside sh). */
static inline uint64_t spt__mb_key(const int64_t *row, const int64_t *sh, int64_t r) {
    uint64_t k = (uint64_t)row[0];
    for (int64_t d = 1; d < r; d++) k = k * (uint64_t)sh[d] + (uint64_t)row[d];
    return k;
}

typedef struct {
    const spt__mb *m;
    int64_t d;
} spt__mb_target;
/* a[i] is among the first d entries of the merge. */
static inline bool spt__mb_among(const void *ctx, int64_t i) {
    const spt__mb_target *t = ctx;
    const spt__mb *m = t->m;
    return spt__mb_key(m->ia + i * m->rank, m->sh, m->rank) <=
           spt__mb_key(m->ib + (t->d - i - 1) * m->rank, m->sh, m->rank);
}
/* split(d) (see the top), searched in i between the split (pi, pj) of a diagonal pi + pj <= d + 1
 * already known (the split is monotone in d: pi <= i <= pi + d - (pi + pj)). */
static inline void spt__mb_split(const spt__mb *m, int64_t d, int64_t pi, int64_t pj, int64_t *oi, int64_t *oj) {
    const int64_t r = m->rank, pd = pi + pj;
    if (pd >= d) { /* d == pd, or pd == d + 1: (pi, pj) is split(d) itself */
        *oi = pi;
        *oj = pj;
        return;
    }
    int64_t lo = d - m->nb > pi ? d - m->nb : pi, hi = pi + (d - pd);
    if (hi > m->na) hi = m->na;
    /* the smallest i whose a[i] is not among the first d (a[i] > b[d - i - 1]) */
    const spt__mb_target t = {m, d};
    lo = spt__lower_bound(lo, hi, spt__mb_among, &t);
    int64_t j = d - lo;
    if (lo > 0 && j < m->nb && spt__mb_key(m->ia + (lo - 1) * r, m->sh, r) == spt__mb_key(m->ib + j * r, m->sh, r)) j++;
    *oi = lo;
    *oj = j;
}

/* Copy n bytes to dst, the whole cache lines of a large copy with non-temporal stores (the output is
 * not read for ownership first); the caller issues spt__mb_fence() before another thread reads it. */
static inline void spt__mb_stream(void *dst, const void *src, size_t n) {
#if SPT__MB_STREAM
    if (n >= 256) {
        size_t head = (size_t)(-(uintptr_t)dst & 15);
        memcpy(dst, src, head);
        char *d = (char *)dst + head;
        const char *s = (const char *)src + head;
        n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            __m128i x0 = _mm_loadu_si128((const __m128i *)s), x1 = _mm_loadu_si128((const __m128i *)(s + 16));
            __m128i x2 = _mm_loadu_si128((const __m128i *)(s + 32)), x3 = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, x0);
            _mm_stream_si128((__m128i *)(d + 16), x1);
            _mm_stream_si128((__m128i *)(d + 32), x2);
            _mm_stream_si128((__m128i *)(d + 48), x3);
        }
        for (; n >= 16; n -= 16, d += 16, s += 16) _mm_stream_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
        memcpy(d, s, n);
        return;
    }
#endif
    memcpy(dst, src, n);
}

static inline void spt__mb_fence(void) {
#if SPT__MB_STREAM
    _mm_sfence();
#endif
}

/* Pick p when m is 0, q when m is all ones, without a branch. */
#define SPT__MB_SEL(p, q, m) ((__typeof__(p))((uintptr_t)(p) ^ (((uintptr_t)(p) ^ (uintptr_t)(q)) & (uintptr_t)(m))))

/* The merge of a block's two lanes for one op and dtype: template/merge_block.c, instantiated by the op. */
typedef void (*spt__mb_fn)(const spt__mb *m, spt__mb_lane *L, int64_t *bi, void *bv);

/* a and b can take the engine: rank > 0, same dtype and shape, both canonical, the row-major key of the
 * shape within 64 bits (the checks of spt__merge2 then all pass). */
bool spt__mb_eligible(const spt_tensor *a, const spt_tensor *b);
/* The union of two eligible operands through the op's block merge: the output of spt__merge2 with the
 * op's template/merge.c, each entry written once. fn names the public function in messages. */
spt_status spt__mb_union(const char *fn, const spt_tensor *a, const spt_tensor *b, double thresh, spt__mb_fn merge,
                         spt_tensor **out);
/* The intersection of two eligible operands through the op's block merge instantiated with MERGE_ISECT
 * (only coinciding pairs written): sorted, unique, at most the smaller operand's entries. */
spt_status spt__mb_isect(const char *fn, const spt_tensor *a, const spt_tensor *b, spt__mb_fn merge, spt_tensor **out);

#endif /* SPT_OPS_ELEMENTWISE_MERGE_BLOCKS_H */
