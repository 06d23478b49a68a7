/* SPDX-License-Identifier: Apache-2.0 */
/* add.c -- tf.sparse.add of two sparse tensors (SparseAdd): one merge pass over row-major keys. */
#include "kernels/merge.h"
#include "kernels/merge_blocks.h"
#include "keys.h"

#include <sched.h>
#include <stdatomic.h>

#include <complex.h>

/* Magnitude compared with the threshold, in the value's real type (|.| = modulus for complex). */
#define MAG_INT(T, s) ((s) < 0 ? (double)(0 - (uint64_t)(s)) : (double)(s))
#define MAG_FLOAT(T, s) ((T)fabs((double)(s)))
#define MAG_COMPLEX(T, s) (sizeof(T) == sizeof(float _Complex) ? (double)cabsf((float _Complex)(s)) : cabs((double _Complex)(s)))
#define THR_INT(T) (m->thresh)
#define THR_FLOAT(T) ((T)m->thresh)
#define THR_COMPLEX(T) (sizeof(T) == sizeof(float _Complex) ? (double)(float)m->thresh : m->thresh)
/* A sum of two coinciding entries is kept iff thresh <= |sum|. */
#define KEEP_INT(T, s) (THR_INT(T) <= MAG_INT(T, s))
#define KEEP_FLOAT(T, s) (THR_FLOAT(T) <= MAG_FLOAT(T, s))
#define KEEP_COMPLEX(T, s) (THR_COMPLEX(T) <= MAG_COMPLEX(T, s))

/* SparseAdd's dtypes: float, double, int8..int64, complex64, complex128 (no unsigned, no bool). */
#define OK_BOOL 0
#define OK_INT 1
#define OK_UINT 0
#define OK_FLOAT 1
#define OK_COMPLEX 1
#define OK_STRING 0

#define DEF(E, T, KIND)                                                                            \
    static inline T add2_##E(T a, T b) { return SPT__ADD_##KIND(T, a, b); }                        \
    static inline T id_##E(T a) { return a; }                                                      \
    SPT__DEF_MERGE(merge_##E, T, add2_##E, id_##E, id_##E, KEEP_##KIND)                            \
    SPT__DEF_MERGE_BLOCK(block_##E, T, add2_##E, KEEP_##KIND)
#define X(E, name, T, KIND) SPT__WHEN(OK_##KIND, DEF(E, T, KIND))
#include "spt_dtypes.def"
#undef X

static const spt__merge_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK_##KIND, [E] = merge_##E, )
#include "spt_dtypes.def"
#undef X
};

static const spt__mb_fn block_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK_##KIND, [E] = block_##E, )
#include "spt_dtypes.def"
#undef X
};

/* Known valid, sorted row-major, no repeated index. */
static bool canonical(const spt_tensor *t) {
    const unsigned f = SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE;
    return (t->flags & f) == f && spt_tensor_is_row_major(t, true);
}

/* Merge-path diagonals per block: a block's buffer (rows and values, ~8K entries) stays in L2. */
#define BLOCK 8192
/* Merged blocks a thread may hold before its oldest is placed: a thread that is ahead merges its next
 * block instead of waiting for the one before its own. */
#define DEPTH 2
/* Where the second lane's output starts in the buffer (the first lane writes at most BLOCK / 2 + 1). */
#define LANE1 (BLOCK / 2 + 2)

/* Wait until the blocks before block k have handed on their output count. */
static void wait_turn(const _Atomic int64_t *turn, int64_t k) {
    for (unsigned spins = 0; atomic_load_explicit(turn, memory_order_acquire) != k; spins++) {
        if (spins < 256) {
#if SPT__MB_STREAM
            _mm_pause();
#endif
        } else {
            sched_yield(); /* the thread with the block before is off the CPU: give it the core */
        }
    }
}

/* spt__merge2 for two operands that passed its checks, both canonical, key within 64 bits: the same
 * output, each entry written once (merge_blocks.h). */
static spt_status add_canonical(const char *fn, const spt_tensor *a, const spt_tensor *b, double thresh, spt__mb_fn merge,
                                spt_tensor **out) {
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    const int64_t na = a->nnz, nb = b->nnz, r = a->rank;
    int64_t n;
    if (spt__add_i64(na, nb, &n))
        return spt__err(SPT_EOVERFLOW, "%s: %lld + %lld entries do not fit in int64", fn, (long long)na, (long long)nb);
    const int64_t nblk = n / BLOCK + (n % BLOCK != 0);
    int T = spt__threads_for(n > INT64_MAX / r ? INT64_MAX : n * r);
    if (T > nblk) T = (int)(nblk > 0 ? nblk : 1);
    const size_t es = spt_dtype_size(a->dtype);
    /* per thread: the rows and values of one block (two lanes of at most BLOCK / 2 + 1 entries each) */
    const size_t cap = BLOCK + 4, rows_bytes = cap * (size_t)r * sizeof(int64_t), tbytes = rows_bytes + cap * es + 64;
    char *scratch = NULL;
    if (n > 0) { /* DEPTH buffers per thread */
        scratch = spt__alloc_array(fn, T, DEPTH, tbytes, false, &st);
        if (!scratch) return st;
    }
    SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, r, a->shape, n, NULL, &o));
    const spt__mb m = {a->indices, b->indices, a->values, b->values, na, nb, r, a->shape, thresh};
    _Atomic int64_t turn = 0;
    int64_t total = 0; /* the output count of the blocks before `turn` (written by the holder of the turn) */
    int64_t *oi = o->indices;
    char *ov = o->values;
    if (n > 0) {
#pragma omp parallel num_threads(T)
        {
            int tid = 0, nt = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nt = omp_get_num_threads();
#endif
            char *mine = scratch + (size_t)tid * DEPTH * tbytes;
            if (nt > 1) {
                /* first touch of the fresh output (the kernel zeroes each page) shared evenly before the
                 * merge: a page fault inside the block chain would hold up the other threads */
                const size_t ib = (size_t)(n * r) * sizeof(int64_t), vb = (size_t)n * es;
                for (size_t p = ib / (size_t)nt * (size_t)tid, pe = tid == nt - 1 ? ib : ib / (size_t)nt * (size_t)(tid + 1); p < pe; p += 4096)
                    ((volatile char *)oi)[p] = 0;
                for (size_t p = vb / (size_t)nt * (size_t)tid, pe = tid == nt - 1 ? vb : vb / (size_t)nt * (size_t)(tid + 1); p < pe; p += 4096)
                    ((volatile char *)ov)[p] = 0;
#pragma omp barrier
            }
            /* this thread's merged blocks not yet placed, oldest first: block number, counts, buffer */
            int64_t pk[DEPTH], pc0[DEPTH], pc1[DEPTH];
            int head = 0, np = 0;
            int64_t pi = 0, pj = 0; /* the split of a diagonal at or before the next block's start */
            for (int64_t k = tid; k < nblk || np > 0; k += nt) {
                if (k < nblk) {
                    const int slot = (head + np) % DEPTH;
                    char *buf = mine + (size_t)slot * tbytes;
                    const int64_t d0 = k * BLOCK, d1 = d0 + BLOCK < n ? d0 + BLOCK : n, dm = d0 + (d1 - d0) / 2;
                    spt__mb_lane L[2];
                    spt__mb_split(&m, d0, pi, pj, &L[0].i, &L[0].j);
                    spt__mb_split(&m, dm, L[0].i, L[0].j, &L[1].i, &L[1].j);
                    L[0].dend = dm;
                    L[1].dend = d1;
                    L[0].w = 0;
                    L[1].w = LANE1;
                    merge(&m, L, (int64_t *)buf, buf + (rows_bytes + 15) / 16 * 16);
                    pi = L[1].i;
                    pj = L[1].j;
                    pk[slot] = k;
                    pc0[slot] = L[0].w;
                    pc1[slot] = L[1].w - LANE1;
                    np++;
                }
                /* place the oldest merged blocks whose turn has come; wait only when every buffer is
                 * full (or at the end): the output position is handed on in block order */
                while (np > 0) {
                    const int64_t q = pk[head];
                    if (np < DEPTH && k < nblk && atomic_load_explicit(&turn, memory_order_acquire) != q) break;
                    wait_turn(&turn, q);
                    const int64_t c0 = pc0[head], c1 = pc1[head], base = total;
                    total = base + c0 + c1;
                    atomic_store_explicit(&turn, q + 1, memory_order_release);
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
    spt__free(scratch);
    spt__tensor_truncate(o, total);
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    *out = o;
    return st;
fail:
    spt__free(scratch);
    return st;
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

spt_status spt_add(const spt_tensor *a, const spt_tensor *b, double thresh, spt_tensor **out) {
    static const char fn[] = "spt_add";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    spt__merge_fn f = a && (unsigned)a->dtype < SPT_NUM_DTYPES ? table[a->dtype] : NULL;
    /* both operands canonical (and every check of spt__merge2 passing): the one-pass row merge */
    if (f && b && thresh == thresh && a->rank > 0 && a->dtype == b->dtype && same_shape(a, b) && canonical(a) && canonical(b) &&
        linear_fits(a))
        return add_canonical(fn, a, b, thresh, block_table[a->dtype], out);
    return spt__merge2(fn, a, b, thresh, f, out);
}
