/* SPDX-License-Identifier: Apache-2.0 */
/* spgemm.c -- spt_sparse_sparse_matmul: sparse x sparse matrix product (rank 2) and its batched form
 * (rank 3, batch dim first), by Gustavson's row-wise algorithm. Both operands are brought into a
 * compressed row form over their non-empty rows (a stable radix sort by row unless already grouped);
 * each A entry's range of B entries and each A row's product count are found once; the rows of op(A)
 * are split into chunks of near-equal products, each chunk run by one thread (no atomics) writing
 * finished index rows into its stretch of an output sized by per-row upper bounds (min(products, N)),
 * moved down into place as the chunks before it finish -- or, when the bounds are far above the input's
 * size, into buffers of its own copied out at the end. */
#include <time.h>

#include "ops/products/spgemm.h"

#include <stdlib.h>

/* Every integer, float and complex type (as spt_sparse_dense_matmul). */
#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

#define SPT__TEMPLATE "ops/products/template/spgemm_rows.c"
#include "ops/each_dtype.h"

typedef void (*rows_fn)(const spt__gemm *, int64_t, int64_t, spt__gemm_chunk *);
static const rows_fn rows_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = gemm_rows_##E, )
#include "spt_dtypes.def"
#undef X
};

/* Output widths up to this use a dense accumulator for the rows that do enough work (about 3 MB of
 * scratch per chunk at most). */
#define DENSE_MAX ((int64_t)1 << 17)
/* Rows of at most this many products use the sort accumulator (at most 2^SPT__GEMM_POS_BITS). */
#define SORT_MAX ((int64_t)1 << SPT__GEMM_POS_BITS)

bool spt__gemm_reserve(spt__gemm_chunk *c, const spt__gemm *g, size_t es, int64_t need, int64_t lneed, int64_t hneed,
                       int64_t pneed, bool dense) {
    if (!c->fixed && c->n + need > c->cap) {
        int64_t cap = c->cap ? c->cap : 1024;
        while (cap < c->n + need) cap *= 2;
        int64_t *idx = spt__realloc(c->idx, (size_t)cap * (size_t)c->rank * sizeof(int64_t));
        if (!idx) goto nomem;
        c->idx = idx;
        void *val = spt__realloc(c->val, (size_t)cap * es);
        if (!val) goto nomem;
        c->val = val;
        c->cap = cap;
    }
    if (lneed > c->lcap) {
        int64_t cap = c->lcap ? c->lcap : 256;
        while (cap < lneed) cap *= 2;
        spt__free(c->list);
        spt__free(c->tmp);
        c->list = spt__malloc((size_t)cap * sizeof(int64_t));
        c->tmp = spt__malloc((size_t)cap * sizeof(int64_t));
        c->lcap = c->list && c->tmp ? cap : 0;
        if (!c->lcap) goto nomem;
    }
    if (hneed > c->hcap) {
        spt__free(c->hkey);
        spt__free(c->hval);
        c->hkey = spt__malloc((size_t)hneed * sizeof(int64_t));
        c->hval = spt__malloc((size_t)hneed * es);
        c->hcap = c->hkey && c->hval ? hneed : 0;
        if (!c->hcap) goto nomem;
    }
    if (pneed > c->pcap) {
        int64_t cap = c->pcap ? c->pcap : 256;
        while (cap < pneed) cap *= 2;
        spt__free(c->pval);
        c->pval = spt__malloc((size_t)cap * es);
        c->pcap = c->pval ? cap : 0;
        if (!c->pcap) goto nomem;
    }
    if (dense && !c->stamp) {
        c->dval = spt__malloc((size_t)g->ncols * es);
        c->stamp = spt__malloc((size_t)g->ncols * sizeof(int64_t));
        if (!c->dval || !c->stamp) {
            spt__free(c->stamp);
            c->stamp = NULL;
            goto nomem;
        }
        for (int64_t q = 0; q < g->ncols; q++) c->stamp[q] = -1;
    }
    return true;
nomem:
    c->st = spt__err(SPT_ENOMEM, "spt_sparse_sparse_matmul: out of memory for a row accumulator");
    return false;
}

/* Batcher's odd-even merge network on 16 inputs: 63 compare-exchanges (i, j), i < j, in 10 layers (checked on
 * every 0-1 input, which by the 0-1 principle proves it sorts, by tests/ops/products/test_spgemm.c). */
const unsigned char spt__gemm_net16[63][2] = {{0, 1},   {2, 3},   {4, 5},   {6, 7},   {8, 9},  {10, 11}, {12, 13},
                                              {14, 15}, {0, 2},   {1, 3},   {4, 6},   {5, 7},  {8, 10},  {9, 11},
                                              {12, 14}, {13, 15}, {1, 2},   {5, 6},   {9, 10}, {13, 14}, {0, 4},
                                              {1, 5},   {2, 6},   {3, 7},   {8, 12},  {9, 13}, {10, 14}, {11, 15},
                                              {2, 4},   {3, 5},   {10, 12}, {11, 13}, {1, 2},  {3, 4},   {5, 6},
                                              {9, 10},  {11, 12}, {13, 14}, {0, 8},   {1, 9},  {2, 10},  {3, 11},
                                              {4, 12},  {5, 13},  {6, 14},  {7, 15},  {4, 8},  {5, 9},   {6, 10},
                                              {7, 11},  {2, 4},   {3, 5},   {6, 8},   {7, 9},  {10, 12}, {11, 13},
                                              {1, 2},   {3, 4},   {5, 6},   {7, 8},   {9, 10}, {11, 12}, {13, 14}};

/* a[0, n) (1 <= n <= 16) sorted by the network, the missing inputs padded with INT64_MAX; each
 * compare-exchange is a minimum and a maximum without a branch, and the unrolled loop keeps the 16 keys in
 * registers: about 2.5x faster than insertion at 16 keys, whose every misplaced key costs a mispredicted
 * branch. */
static void sort16(int64_t *a, int64_t n) {
    int64_t t[16];
    memcpy(t, a, (size_t)n * sizeof *t);
    for (int64_t i = n; i < 16; i++) t[i] = INT64_MAX;
#pragma GCC unroll 63
    for (int k = 0; k < 63; k++) {
        const int64_t x = t[spt__gemm_net16[k][0]], y = t[spt__gemm_net16[k][1]];
        t[spt__gemm_net16[k][0]] = x < y ? x : y;
        t[spt__gemm_net16[k][1]] = x < y ? y : x;
    }
    memcpy(a, t, (size_t)n * sizeof *t);
}

void spt__gemm_sort(int64_t *a, int64_t n, int64_t *tmp, int64_t ncols, int low) {
    if (n >= 8 && n <= 32) { /* one network, or two and a merge without branches */
        if (n <= 16) {
            sort16(a, n);
            return;
        }
        int64_t x[17], y[17], i = 0, j = 0;
        const int64_t nx = 16, ny = n - 16;
        sort16(a, nx);
        sort16(a + 16, ny);
        memcpy(x, a, 16 * sizeof *x);
        memcpy(y, a + 16, (size_t)ny * sizeof *y);
        x[16] = y[ny] = 0;                /* read past a list's end, never taken */
        for (int64_t k = 0; k < n; k++) { /* both heads read (in bounds), so no short-circuit branch */
            const int64_t xi = x[i], yj = y[j];
            const int tx = (i < nx) & ((j >= ny) | (xi <= yj));
            a[k] = tx ? xi : yj;
            i += tx;
            j += 1 - tx;
        }
        return;
    }
    if (n <= 32) {
        for (int64_t i = 1; i < n; i++) {
            int64_t x = a[i], j = i;
            for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    if (n <= 4096) {
        /* distribution by the high part into about n buckets, then insertion sort within each: O(n)
         * when the high parts are spread out; clustered ones (many per bucket: the sum of the squared
         * bucket sizes, which bounds the insertion work, past 24 n) take the radix sort */
        int64_t cnt[4097];
        int shift = 0;
        while ((ncols - 1) >> shift >= n) shift++; /* bucket = (key >> low) >> shift: at most n buckets */
        const int bs = low + shift;
        int64_t nb = ((ncols - 1) >> shift) + 1, cost = 0;
        memset(cnt, 0, (size_t)nb * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++) cost += 2 * cnt[a[i] >> bs]++ + 1; /* (c + 1)^2 - c^2 */
        if (cost <= 24 * n) {
            spt__scan_exclusive(cnt, nb);
            for (int64_t i = 0; i < n; i++) tmp[cnt[a[i] >> bs]++] = a[i];
            for (int64_t i = 1; i < n; i++) { /* buckets are in order: one insertion pass finishes */
                int64_t x = tmp[i], j = i;
                for (; j > 0 && tmp[j - 1] > x; j--) tmp[j] = tmp[j - 1];
                tmp[j] = x;
            }
            memcpy(a, tmp, (size_t)n * sizeof(int64_t));
            return;
        }
    }
    /* LSD radix on the high parts, up to the width of the largest: digits of 5 to 8 bits by n (a
     * 256-entry histogram zeroed and scanned per pass would outweigh a short row), equal-sized */
    uint64_t any = 0;
    for (int64_t i = 0; i < n; i++) any |= (uint64_t)a[i];
    any >>= low;
    const int bits = any ? 64 - __builtin_clzll(any) : 1;
    int d = n <= 64 ? 5 : n <= 256 ? 6 : n <= 1024 ? 7 : 8;
    const int passes = (bits + d - 1) / d;
    d = (bits + passes - 1) / passes;
    const uint64_t dm = ((uint64_t)1 << d) - 1;
    int64_t *src = a, *dst = tmp;
    for (int shift = low; shift < low + bits; shift += d) {
        int64_t cnt[256];
        memset(cnt, 0, (size_t)(dm + 1) * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++) cnt[(uint64_t)src[i] >> shift & dm]++;
        if (cnt[(uint64_t)src[0] >> shift & dm] == n) continue; /* constant digit */
        spt__scan_exclusive(cnt, (int64_t)dm + 1);
        for (int64_t i = 0; i < n; i++) dst[cnt[(uint64_t)src[i] >> shift & dm]++] = src[i];
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof(int64_t));
}

/* One operand in compressed row form: rows are keys batch * nrows + row; only non-empty rows kept. */
typedef struct {
    int64_t nr;    /* non-empty rows */
    int64_t *rid;  /* their keys, ascending */
    int64_t *ptr;  /* nr + 1 */
    int64_t *perm; /* sorted position -> entry (NULL = identity) */
} csr;

static void csr_free(csr *m) {
    spt__free(m->rid);
    spt__free(m->ptr);
    spt__free(m->perm);
    m->rid = m->ptr = m->perm = NULL;
}

/* Group t's entries by key batch * rows + index[rc] (rows = t->shape[rc]); batched: rank 3, batch in
 * dim 0. */
static spt_status csr_build(const char *fn, const spt_tensor *t, int rc, int64_t nbatch, csr *m) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, r = t->rank, rows = t->shape[rc];
    uint64_t *keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    if (!keys) return st;
    spt__hint_huge(keys, (size_t)n * sizeof(uint64_t));
    bool sorted = true;
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = t->indices + i * r;
        keys[i] = (uint64_t)((r == 3 ? row[0] * rows : 0) + row[rc]);
        if (i && keys[i] < keys[i - 1]) sorted = false;
    }
    if (!sorted) {
        m->perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!m->perm) goto fail;
        spt__hint_huge(m->perm, (size_t)n * sizeof(int64_t));
        SPT__CHECK(spt__radix_sort(fn, keys, m->perm, n, (uint64_t)(nbatch * rows - 1)));
    }
    int64_t nr = 0;
    for (int64_t i = 0; i < n; i++) nr += i == 0 || keys[i] != keys[i - 1];
    m->rid = spt__alloc_array(fn, nr, 1, sizeof(int64_t), false, &st);
    if (!m->rid) goto fail;
    m->ptr = spt__alloc_array(fn, nr + 1, 1, sizeof(int64_t), false, &st);
    if (!m->ptr) goto fail;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || keys[i] != keys[i - 1]) {
            m->rid[k] = (int64_t)keys[i];
            m->ptr[k++] = i;
        }
    m->ptr[nr] = n;
    m->nr = nr;
    spt__free(keys);
    return SPT_OK;
fail:
    spt__free(keys);
    csr_free(m);
    return st;
}

/* Position of key in the ascending array rid[0, n), or -1. */
static int64_t find_row(const int64_t *rid, int64_t n, int64_t key) {
    const int64_t lo = spt__lower_bound_i64(rid, n, key);
    return lo < n && rid[lo] == key ? lo : -1;
}

/* The product's shape: rank r, batches, the row and column dims of op(A) and op(B), M x K times K x N. */
typedef struct {
    int64_t r, nbatch, M, K, N, vol, bspace;
    int arc, acc, brc, bcc;
    int64_t oshape[3];
} gemm_shape;

/* Every check of the arguments in order, then the output shape and B's row-key space. */
static spt_status gemm_check(const char *fn, const spt_tensor *a, const spt_tensor *b, bool adjoint_a, bool adjoint_b,
                             gemm_shape *s) {
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->rank != 2 && a->rank != 3)
        return spt__err(SPT_EINVAL, "%s: a must have rank 2 or 3 (batch first), not %lld", fn, (long long)a->rank);
    if (b->rank != a->rank)
        return spt__err(SPT_EINVAL, "%s: a and b must have the same rank (%lld vs %lld)", fn, (long long)a->rank,
                        (long long)b->rank);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: b's dtype %s differs from a's %s", fn, spt_dtype_name(b->dtype),
                        spt_dtype_name(a->dtype));
    if (!rows_table[a->dtype])
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int64_t r = a->rank, nbatch = r == 3 ? a->shape[0] : 1;
    if (r == 3 && b->shape[0] != nbatch)
        return spt__err(SPT_EINVAL, "%s: batch sizes differ: %lld vs %lld", fn, (long long)nbatch,
                        (long long)b->shape[0]);
    s->r = r;
    s->nbatch = nbatch;
    s->arc = (int)r - 2 + adjoint_a, s->acc = (int)r - 1 - adjoint_a;
    s->brc = (int)r - 2 + adjoint_b, s->bcc = (int)r - 1 - adjoint_b;
    const int64_t M = s->M = a->shape[s->arc], K = s->K = a->shape[s->acc], N = s->N = b->shape[s->bcc];
    if (K != b->shape[s->brc])
        return spt__err(SPT_EINVAL,
                        "%s: Cannot multiply A and B because inner dimension does not match: %lld vs. %lld "
                        "(adjoint_a %d, adjoint_b %d)",
                        fn, (long long)K, (long long)b->shape[s->brc], adjoint_a, adjoint_b);
    if (r == 3) s->oshape[0] = nbatch;
    s->oshape[r - 2] = M;
    s->oshape[r - 1] = N;
    spt_status st = spt_shape_volume(r, s->oshape, &s->vol);
    if (st != SPT_OK)
        return spt__err(st, "%s: the output shape [%lld x %lld x %lld] does not fit in int64", fn, (long long)nbatch,
                        (long long)M, (long long)N);
    /* rows of b are keyed by batch * K + k (and rows of a by batch * M + m, which the output volume
     * bounds): that space must fit in int64 too (nothing is keyed without entries) */
    s->bspace = 0;
    if (a->nnz > 0 && b->nnz > 0 && s->vol > 0 && spt__mul_i64(nbatch, K, &s->bspace))
        return spt__err(SPT_EOVERFLOW, "%s: batch %lld x inner dimension %lld does not fit in int64", fn,
                        (long long)nbatch, (long long)K);
    SPT__TRY(spt__ensure_valid(fn, a));
    return spt__ensure_valid(fn, b);
}

/* Each A entry -> the range [abr[2e], abr[2e+1]) of B entries its (batch, column) names, and each A row's
 * products afl[row] (saturating); returns their total in *total. Through a row pointer over B's whole
 * row space when that is not much larger than its entry count, a binary search over B's non-empty rows
 * otherwise. */
static spt_status gemm_link(const char *fn, const spt_tensor *a, const spt_tensor *b, const gemm_shape *s,
                            const csr *ca, const csr *cb, int64_t *abr, int64_t *afl, int64_t *total) {
    spt_status st = SPT_OK;
    int64_t *bptr = NULL;
    const int64_t r = s->r, K = s->K, bspace = s->bspace;
    if (bspace <= 4 * b->nnz + 65536) {
        bptr = spt__alloc_array(fn, bspace + 1, 1, sizeof(int64_t), false, &st);
        if (!bptr) return st;
        for (int64_t q = 0, k = 0; q <= bspace; q++) { /* rows without entries: empty ranges */
            while (k < cb->nr && cb->rid[k] < q) k++;
            bptr[q] = k < cb->nr ? cb->ptr[k] : b->nnz;
        }
    }
    *total = 0;
    for (int64_t row = 0; row < ca->nr; row++) {
        int64_t fl = 0;
        for (int64_t i = ca->ptr[row]; i < ca->ptr[row + 1]; i++) {
            const int64_t *ix = a->indices + (ca->perm ? ca->perm[i] : i) * r;
            const int64_t key = (r == 3 ? ix[0] * K : 0) + ix[s->acc];
            int64_t f0 = 0, f1 = 0;
            if (bptr) {
                f0 = bptr[key];
                f1 = bptr[key + 1];
            } else {
                const int64_t j = find_row(cb->rid, cb->nr, key);
                if (j >= 0) {
                    f0 = cb->ptr[j];
                    f1 = cb->ptr[j + 1];
                }
            }
            abr[2 * i] = f0;
            abr[2 * i + 1] = f1;
            if (spt__add_i64(fl, f1 - f0, &fl)) fl = INT64_MAX; /* saturating: a work estimate */
        }
        afl[row] = fl;
        if (spt__add_i64(*total, fl, total)) *total = INT64_MAX;
    }
    spt__free(bptr);
    return SPT_OK;
}

/* Rows [rb[c], rb[c+1]) of chunk c: nch chunks of near-equal work (the products each row needs). */
static void gemm_split(int64_t nr, const int64_t *afl, int64_t total, int nch, int64_t *rb) {
    int64_t acc = 0, row = 0;
    rb[0] = 0;
    for (int c = 1; c < nch; c++) {
        int64_t target = total / nch * c;
        while (row < nr && acc < target)
            if (spt__add_i64(acc, afl[row++], &acc)) acc = INT64_MAX;
        rb[c] = row;
    }
    rb[nch] = nr;
}

/* t's values in sorted position order (perm NULL: already; *out stays NULL), so that the products read
 * them sequentially within a row. */
static spt_status gemm_sorted_values(const char *fn, const spt_tensor *t, const int64_t *perm, size_t es, void **out) {
    spt_status st = SPT_OK;
    if (!perm) return SPT_OK;
    *out = spt__alloc_array(fn, t->nnz, 1, es, false, &st);
    if (!*out) return st;
    spt__hint_huge(*out, (size_t)t->nnz * es);
    for (int64_t i = 0; i < t->nnz; i++) spt__copy_elem(*out, i, t->values, perm[i], es);
    return SPT_OK;
}

/* A per-call hash seed (addresses under ASLR and the clock): hostile column sets cannot be precomputed;
 * results do not depend on it. */
static uint64_t gemm_seed(const spt__gemm *g, const spt_tensor *a) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)(uintptr_t)g * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^
           (uint64_t)(uintptr_t)a->indices;
}

/* The chunks' output: each chunk's bound is the sum over its rows of min(products, N). When the total is
 * modest (at most 64 entries per input entry) the chunks write finished index rows straight into an
 * output of that size (*o, allocated here; *direct set; base[c]: chunk c's stretch); otherwise into
 * growing buffers of their own, copied out at the end. */
static spt_status gemm_place(const char *fn, const spt_tensor *a, const spt_tensor *b, const gemm_shape *s,
                             const int64_t *afl, const int64_t *rb, int nch, size_t es, spt__gemm_chunk *ch,
                             int64_t *base, bool *direct, spt_tensor **o) {
    int64_t cbound[SPT__MAX_CHUNKS + 1], btotal = 0;
    for (int c = 0; c < nch; c++) {
        int64_t cb = 0;
        for (int64_t row = rb[c]; row < rb[c + 1]; row++)
            if (spt__add_i64(cb, afl[row] < s->N ? afl[row] : s->N, &cb)) cb = INT64_MAX;
        cbound[c] = cb;
        if (spt__add_i64(btotal, cb, &btotal)) btotal = INT64_MAX;
    }
    int64_t budget;
    if (spt__mul_i64(a->nnz + b->nnz, 64, &budget)) budget = INT64_MAX;
    *direct = btotal <= budget;
    base[0] = 0;
    if (*direct) {
        SPT__TRY(spt__tensor_alloc_uninit(fn, a->dtype, s->r, s->oshape, btotal, NULL, o));
        for (int c = 0; c < nch; c++) {
            base[c + 1] = base[c] + cbound[c];
            ch[c].idx = (*o)->indices + base[c] * s->r;
            ch[c].val = (char *)(*o)->values + (size_t)base[c] * es;
            ch[c].cap = cbound[c];
            ch[c].fixed = true;
        }
    }
    for (int c = 0; c < nch; c++) ch[c].rank = s->r;
    return SPT_OK;
}

/* Run the chunks on nth threads. direct: chunks [0, placed) are final and end at entry `nnz`; a finished
 * chunk is marked, and whoever finishes the chunk at `placed` moves it and every finished one after it
 * into place; returns the entries placed. */
static int64_t gemm_run(rows_fn f, const spt__gemm *g, const int64_t *rb, int nch, int nth, spt__gemm_chunk *ch,
                        bool direct, const int64_t *base, spt_tensor *o, int64_t r, size_t es) {
    int64_t nnz = 0;
    int placed = 0;
    bool done_[SPT__MAX_CHUNKS] = {false};
    (void)nth;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (int c = 0; c < nch; c++) {
        f(g, rb[c], rb[c + 1], &ch[c]);
        if (direct) {
#pragma omp critical(spt_spgemm_place)
            {
                done_[c] = true;
                for (; placed < nch && done_[placed]; placed++) {
                    spt__gemm_chunk *k = &ch[placed];
                    if (k->st == SPT_OK && k->n && base[placed] != nnz) {
                        memmove(o->indices + nnz * r, o->indices + base[placed] * r,
                                (size_t)(k->n * r) * sizeof(int64_t));
                        memmove((char *)o->values + (size_t)nnz * es, (char *)o->values + (size_t)base[placed] * es,
                                (size_t)k->n * es);
                    }
                    nnz += k->n;
                }
            }
        }
    }
    return nnz;
}

/* Not direct: the chunks' own buffers copied out, in chunk order, into a new output *o. */
static spt_status gemm_gather(const char *fn, const spt_tensor *a, const gemm_shape *s, const spt__gemm_chunk *ch,
                              int nch, int nth, size_t es, spt_tensor **o) {
    int64_t nnz = 0, base[SPT__MAX_CHUNKS + 1];
    const int64_t r = s->r;
    (void)nth;
    for (int c = 0; c < nch; c++) nnz += ch[c].n;
    SPT__TRY(spt__tensor_alloc_uninit(fn, a->dtype, r, s->oshape, nnz, NULL, o));
    spt_tensor *out = *o;
    base[0] = 0;
    for (int c = 0; c < nch; c++) base[c + 1] = base[c] + ch[c].n;
#pragma omp parallel for schedule(static, 1) num_threads(nth)
    for (int c = 0; c < nch; c++)
        if (ch[c].n) {
            memcpy(out->indices + base[c] * r, ch[c].idx, (size_t)(ch[c].n * r) * sizeof(int64_t));
            memcpy((char *)out->values + (size_t)base[c] * es, ch[c].val, (size_t)ch[c].n * es);
        }
    return SPT_OK;
}

static void gemm_chunks_free(spt__gemm_chunk *ch, int nch) {
    for (int c = 0; c < nch; c++) {
        if (!ch[c].fixed) { /* fixed: they point into the output */
            spt__free(ch[c].idx);
            spt__free(ch[c].val);
        }
        spt__free(ch[c].hkey);
        spt__free(ch[c].hval);
        spt__free(ch[c].stamp);
        spt__free(ch[c].dval);
        spt__free(ch[c].list);
        spt__free(ch[c].tmp);
        spt__free(ch[c].pval);
    }
}

spt_status spt_sparse_sparse_matmul(const spt_tensor *a, const spt_tensor *b, bool adjoint_a, bool adjoint_b,
                                    bool keep_zeros, spt_tensor **out) {
    static const char fn[] = "spt_sparse_sparse_matmul";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    gemm_shape s;
    SPT__TRY(gemm_check(fn, a, b, adjoint_a, adjoint_b, &s));
    const int64_t r = s.r, N = s.N;
    csr ca = {0}, cb = {0};
    int64_t *abr = NULL, *afl = NULL, *bcol = NULL;
    void *avals = NULL, *bvals = NULL;
    spt__gemm_chunk ch[SPT__MAX_CHUNKS];
    memset(ch, 0, sizeof ch);
    spt_tensor *o = NULL;
    int nch = 0;
    if (a->nnz == 0 || b->nnz == 0 || s.vol == 0) { /* entries exist only with non-zero volumes */
        SPT__CHECK(spt__tensor_alloc(fn, a->dtype, r, s.oshape, 0, NULL, &o));
        goto done;
    }
    SPT__CHECK(csr_build(fn, a, s.arc, s.nbatch, &ca));
    SPT__CHECK(csr_build(fn, b, s.brc, s.nbatch, &cb));
    abr = spt__alloc_array(fn, a->nnz, 2, sizeof(int64_t), false, &st);
    if (!abr) goto fail;
    spt__hint_huge(abr, (size_t)a->nnz * 2 * sizeof(int64_t)); /* scratch of the input's size: fewer faults */
    afl = spt__alloc_array(fn, ca.nr, 1, sizeof(int64_t), false, &st);
    if (!afl) goto fail;
    int64_t total = 0;
    SPT__CHECK(gemm_link(fn, a, b, &s, &ca, &cb, abr, afl, &total));
    bcol = spt__alloc_array(fn, b->nnz, 1, sizeof(int64_t), false, &st);
    if (!bcol) goto fail;
    spt__hint_huge(bcol, (size_t)b->nnz * sizeof(int64_t));
    for (int64_t i = 0; i < b->nnz; i++) bcol[i] = b->indices[(cb.perm ? cb.perm[i] : i) * r + s.bcc];
    int nth = spt__threads_for(total / 4);
    nch = nth > 1 ? 4 * nth : 1;
    if (nch > SPT__MAX_CHUNKS) nch = SPT__MAX_CHUNKS;
    if (nch > ca.nr) nch = (int)ca.nr;
    int64_t rb[SPT__MAX_CHUNKS + 1];
    gemm_split(ca.nr, afl, total, nch, rb);
    const size_t es = spt_dtype_size(a->dtype);
    SPT__CHECK(gemm_sorted_values(fn, a, ca.perm, es, &avals));
    SPT__CHECK(gemm_sorted_values(fn, b, cb.perm, es, &bvals));
    spt__gemm g = {ca.ptr,
                   afl,
                   abr,
                   ca.rid,
                   bcol,
                   avals ? avals : a->values,
                   bvals ? bvals : b->values,
                   adjoint_a && spt_dtype_is_complex(a->dtype),
                   adjoint_b && spt_dtype_is_complex(a->dtype),
                   keep_zeros,
                   s.M,
                   N,
                   N <= DENSE_MAX ? DENSE_MAX : 0,
                   (N - 1) >> (62 - SPT__GEMM_POS_BITS) ? 0 : SORT_MAX,
                   0};
    g.hseed = gemm_seed(&g, a);
    int64_t base[SPT__MAX_CHUNKS + 1];
    bool direct;
    SPT__CHECK(gemm_place(fn, a, b, &s, afl, rb, nch, es, ch, base, &direct, &o));
    const int64_t nnz = gemm_run(rows_table[a->dtype], &g, rb, nch, nth, ch, direct, base, o, r, es);
    spt__free(bcol);
    bcol = NULL;
    spt__free(abr);
    abr = NULL;
    for (int c = 0; c < nch; c++)
        if (ch[c].st != SPT_OK) { /* raised on a worker thread: raise it again on this one */
            st = spt__err(ch[c].st, "%s: out of memory for a row accumulator or the output", fn);
            goto fail;
        }
    if (direct) spt__tensor_truncate(o, nnz);
    else SPT__CHECK(gemm_gather(fn, a, &s, ch, nch, nth, es, &o));
done:
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    st = SPT_OK;
    *out = o;
    goto cleanup;
fail:
    spt_tensor_free(o);
cleanup:
    gemm_chunks_free(ch, nch);
    spt__free(bcol);
    spt__free(avals);
    spt__free(bvals);
    spt__free(abr);
    spt__free(afl);
    csr_free(&ca);
    csr_free(&cb);
    return st;
}
