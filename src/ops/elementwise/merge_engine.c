/* SPDX-License-Identifier: Apache-2.0 */
/* merge_engine.c -- the blocked merge of two canonical operands (merge_blocks.h): the union of spt_add,
 * spt_subtract, spt_maximum and spt_minimum and the intersection of spt_multiply; each op passes its
 * block merge (template/merge_block.c). */
#include "ops/elementwise/merge_blocks.h"
#include "sort/keys.h"

#include <stdatomic.h>
#include <time.h>

/* Merge-path diagonals per block: a block's buffer (rows and values, ~8K entries) stays in L2. */
#define BLOCK 8192
/* Merged blocks a thread may hold before its oldest is placed (a thread ahead merges on instead of
 * waiting for the block before its own); one more buffer per thread for a late peer's block. */
#define DEPTH 2
/* Where the second lane's output starts in the buffer (the first lane writes at most BLOCK / 2 + 1). */
#define LANE1 (BLOCK / 2 + 2)

/* Test hooks: when >= 0, the wait in ns before a thread merges a late peer's block itself; the number
 * of such merges so far. */
int64_t spt__add_patience_ns = -1;
_Atomic int64_t spt__add_late_merges = 0;

/* How long to wait for a peer's block before merging it again: about two blocks' time (took: this
 * thread's fastest block). */
static int64_t patience(int64_t took) { return spt__add_patience_ns >= 0 ? spt__add_patience_ns : 2 * took + 10000; }

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Merge block k (diagonals [k * BLOCK, min(n, (k + 1) * BLOCK))) into buf from the split (*pi, *pj) of a
 * diagonal at or before its start ((0, 0) always is); the lanes' counts in c[0], c[1]; (*pi, *pj) becomes
 * the split of the block's end. */
static void merge_one(const spt__mb *m, spt__mb_fn merge, int64_t k, int64_t n, size_t rows_bytes, char *buf,
                      int64_t *pi, int64_t *pj, int64_t c[2]) {
    const int64_t d0 = k * BLOCK, d1 = d0 + BLOCK < n ? d0 + BLOCK : n, dm = d0 + (d1 - d0) / 2;
    spt__mb_lane L[2];
    spt__mb_split(m, d0, *pi, *pj, &L[0].i, &L[0].j);
    spt__mb_split(m, dm, L[0].i, L[0].j, &L[1].i, &L[1].j);
    L[0].dend = dm;
    L[1].dend = d1;
    L[0].w = 0;
    L[1].w = LANE1;
    merge(m, L, (int64_t *)buf, buf + (rows_bytes + 15) / 16 * 16);
    *pi = L[1].i;
    *pj = L[1].j;
    c[0] = L[0].w;
    c[1] = L[1].w - LANE1;
}

/* spt__merge2 for two operands that passed its checks, both canonical, key within 64 bits: the same
 * output, each entry written once (merge_blocks.h).
 *
 * The threads claim blocks in order from a shared counter. A merged block's output count is published
 * (cnt), and its output position is found by looking back over the blocks before it: the counts summed
 * down to the first block whose end position (fin) is known (a single-pass prefix sum with decoupled
 * look-back). A block before it still being merged by a peer is waited for at most about twice the time
 * a block takes; then the waiting thread merges that block again itself (same bytes) for its count
 * only, and the peer, when it runs again, writes it. So no thread waits for a descheduled peer except
 * at the region's end for the peer's last block. */
/* Where block k's output starts: the end of the nearest block before it whose end is known, plus the
 * counts of the blocks between. A block a peer is still merging: unknown (false) unless `wait`; then
 * waited for, up to patience(took), and past that merged again here (into `spare`) for its count. */
static inline bool add_base(const spt__mb *m, spt__mb_fn merge, int64_t n, size_t rows_bytes, _Atomic int64_t *cnt,
                            _Atomic int64_t *fin, int64_t k, bool wait, int64_t took, char *spare, int64_t *pbase) {
    int64_t base = 0, j = k - 1, since = 0;
    while (j >= 0) {
        const int64_t e = atomic_load_explicit(&fin[j], memory_order_acquire);
        if (e >= 0) {
            base += e;
            break;
        }
        int64_t cj = atomic_load_explicit(&cnt[j], memory_order_acquire);
        if (cj < 0) { /* a peer is merging block j */
            if (!wait) return false;
            if (!since) since = now_ns();
            for (int s = 0; s < 64; s++) {
#if SPT__MB_STREAM
                _mm_pause();
#endif
            }
            if (now_ns() - since < patience(took)) continue;
            int64_t si = 0, sj = 0, sc[2]; /* it is late: its count from our own merge of it */
            merge_one(m, merge, j, n, rows_bytes, spare, &si, &sj, sc);
            atomic_fetch_add_explicit(&spt__add_late_merges, 1, memory_order_relaxed);
            cj = sc[0] + sc[1];
            int64_t unknown = -1;
            atomic_compare_exchange_strong_explicit(&cnt[j], &unknown, cj, memory_order_release, memory_order_relaxed);
        }
        since = 0;
        base += cj;
        j--;
    }
    *pbase = base;
    return true;
}

/* First touch of the fresh output (the kernel zeroes each page) shared evenly by the nt threads before the
 * merge (thread tid's share): a page fault inside a block would hold up the threads looking back at it. */
static void add_first_touch(int64_t *oi, char *ov, int64_t n, int64_t r, size_t es, int tid, int nt) {
    const size_t ib = (size_t)(n * r) * sizeof(int64_t), vb = (size_t)n * es;
    for (size_t p = ib / (size_t)nt * (size_t)tid, pe = tid == nt - 1 ? ib : ib / (size_t)nt * (size_t)(tid + 1);
         p < pe; p += 4096)
        ((volatile char *)oi)[p] = 0;
    for (size_t p = vb / (size_t)nt * (size_t)tid, pe = tid == nt - 1 ? vb : vb / (size_t)nt * (size_t)(tid + 1);
         p < pe; p += 4096)
        ((volatile char *)ov)[p] = 0;
}

/* The union (isect false) or the intersection (isect true: the output holds at most the smaller operand's
 * entries, and the block merge writes coinciding pairs only) of two eligible operands. */
static spt_status mb_run(const char *fn, const spt_tensor *a, const spt_tensor *b, double thresh, spt__mb_fn merge,
                         bool isect, spt_tensor **out) {
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    *out = NULL;
    const int64_t na = a->nnz, nb = b->nnz, r = a->rank;
    int64_t n;
    if (spt__add_i64(na, nb, &n))
        return spt__err(SPT_EOVERFLOW, "%s: %lld + %lld entries do not fit in int64", fn, (long long)na, (long long)nb);
    const int64_t nblk = n / BLOCK + (n % BLOCK != 0), ocap = isect ? (na < nb ? na : nb) : n;
    const bool run = ocap > 0; /* an intersection with an empty operand: nothing to merge */
    int T = spt__threads_for(n > INT64_MAX / r ? INT64_MAX : n * r);
    if (T > nblk) T = (int)(nblk > 0 ? nblk : 1);
    const size_t es = spt_dtype_size(a->dtype);
    /* per thread: the rows and values of one block (two lanes of at most BLOCK / 2 + 1 entries each) */
    const size_t cap = BLOCK + 4, rows_bytes = cap * (size_t)r * sizeof(int64_t), tbytes = rows_bytes + cap * es + 64;
    char *scratch = NULL;
    _Atomic int64_t *cnt = NULL; /* per block: its output count, then (second half) its end position; -1 unknown */
    if (run) {
        scratch = spt__alloc_array(fn, T, DEPTH + 1, tbytes, false, &st);
        if (!scratch) return st;
        cnt = spt__alloc_array(fn, nblk, 2, sizeof(*cnt), false, &st);
        if (!cnt) goto fail;
        for (int64_t k = 0; k < 2 * nblk; k++) atomic_init(&cnt[k], -1);
    }
    SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, r, a->shape, ocap, NULL, &o));
    int64_t vol = 1;
    bool k60 = true;
    for (int64_t d = 0; d < r && k60; d++) k60 = !spt__mul_i64(vol, a->shape[d], &vol) && vol <= ((int64_t)1 << 60);
    const spt__mb m = {a->indices, b->indices, a->values, b->values, na, nb, r, a->shape, thresh, k60};
    _Atomic int64_t next = 0;
    int64_t *oi = o->indices;
    char *ov = o->values;
    if (run) {
        _Atomic int64_t *fin = cnt + nblk;
#pragma omp parallel num_threads(T)
        {
            int tid = 0, nt = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nt = omp_get_num_threads();
#endif
            char *mine = scratch + (size_t)tid * (DEPTH + 1) * tbytes, *spare = mine + DEPTH * tbytes;
            if (nt > 1) {
                add_first_touch(oi, ov, ocap, r, es, tid, nt);
#pragma omp barrier
            }
            int64_t pi = 0, pj = 0; /* the split of the end of this thread's last block (claims increase) */
            int64_t pk[DEPTH], pc[DEPTH][2], took = 0; /* merged blocks not yet placed, oldest first */
            int head = 0, np = 0;
            bool more = true;
            while (more || np > 0) {
                if (more && np < DEPTH) {
                    const int64_t k = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
                    if (k < nblk) {
                        const int slot = (head + np) % DEPTH;
                        const int64_t t0 = nt > 1 ? now_ns() : 0;
                        merge_one(&m, merge, k, n, rows_bytes, mine + (size_t)slot * tbytes, &pi, &pj, pc[slot]);
                        const int64_t dt = nt > 1 ? now_ns() - t0 : 0;
                        if (took == 0 || dt < took) took = dt; /* the fastest: a preempted merge does not count */
                        atomic_store_explicit(&cnt[k], pc[slot][0] + pc[slot][1], memory_order_release);
                        pk[slot] = k;
                        np++;
                    } else {
                        more = false;
                    }
                }
                /* place the oldest merged blocks whose position is known; wait (then merge a late
                 * peer's block again for its count) only when every buffer is full or no block is left */
                while (np > 0) {
                    const int64_t k = pk[head], *c = pc[head];
                    const bool wait = np == DEPTH || !more;
                    int64_t base;
                    if (!add_base(&m, merge, n, rows_bytes, cnt, fin, k, wait, took, spare, &base))
                        break; /* merge the next block first */
                    const int64_t c0 = c[0], c1 = c[1];
                    atomic_store_explicit(&fin[k], base + c0 + c1, memory_order_release);
                    const int64_t *bi = (const int64_t *)(mine + (size_t)head * tbytes);
                    const char *bv = (const char *)bi + (rows_bytes + 15) / 16 * 16;
                    spt__mb_stream(oi + base * r, bi, (size_t)(c0 * r) * sizeof(int64_t));
                    spt__mb_stream(oi + (base + c0) * r, bi + LANE1 * r, (size_t)(c1 * r) * sizeof(int64_t));
                    spt__mb_stream(ov + (size_t)base * es, bv, (size_t)c0 * es);
                    spt__mb_stream(ov + (size_t)(base + c0) * es, bv + (size_t)LANE1 * es, (size_t)c1 * es);
                    head = (head + 1) % DEPTH;
                    np--;
                }
            }
            spt__mb_fence();
        }
    }
    const int64_t total = run ? atomic_load(&cnt[2 * nblk - 1]) : 0;
    spt__free(cnt);
    spt__free(scratch);
    if (isect && total > 0 && total >= ocap / 2)
        o->nnz = total; /* at least half used: kept whole, so that the next call of this size reuses it */
    else spt__tensor_truncate(o, total);
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    *out = o;
    return st;
fail:
    spt__free(cnt);
    spt__free(scratch);
    return st;
}

spt_status spt__mb_union(const char *fn, const spt_tensor *a, const spt_tensor *b, double thresh, spt__mb_fn merge,
                         spt_tensor **out) {
    return mb_run(fn, a, b, thresh, merge, false, out);
}

spt_status spt__mb_isect(const char *fn, const spt_tensor *a, const spt_tensor *b, spt__mb_fn merge, spt_tensor **out) {
    return mb_run(fn, a, b, 0.0, merge, true, out);
}

static bool same_shape(const spt_tensor *a, const spt_tensor *b) {
    if (a->rank != b->rank) return false;
    for (int64_t d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

/* The row-major linear key of the shape fits in 64 bits (the key engine's SPT__KEY64). */
static bool linear_fits(const spt_tensor *a) {
    spt__keyplan kp;
    spt__keyplan_init(&kp, a->shape, NULL, a->rank);
    return kp.kind == SPT__KEY64;
}

/* Known valid, sorted row-major, no repeated index. */
static bool canonical(const spt_tensor *t) {
    const unsigned f = SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE;
    return (t->flags & f) == f && spt_tensor_is_row_major(t, true);
}

bool spt__mb_eligible(const spt_tensor *a, const spt_tensor *b) {
    return a && b && a->rank > 0 && a->dtype == b->dtype && same_shape(a, b) && canonical(a) && canonical(b) &&
           linear_fits(a);
}
