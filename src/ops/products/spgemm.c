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

bool spt__gemm_reserve(spt__gemm_chunk *c, const spt__gemm *g, size_t es, int64_t need, int64_t lneed,
                       int64_t hneed, int64_t pneed, bool dense) {
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

void spt__gemm_sort(int64_t *a, int64_t n, int64_t *tmp, int64_t ncols, int low) {
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
    int64_t nr;   /* non-empty rows */
    int64_t *rid; /* their keys, ascending */
    int64_t *ptr; /* nr + 1 */
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
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (rid[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && rid[lo] == key ? lo : -1;
}

spt_status spt_sparse_sparse_matmul(const spt_tensor *a, const spt_tensor *b, bool adjoint_a, bool adjoint_b,
                                    bool keep_zeros, spt_tensor **out) {
    static const char fn[] = "spt_sparse_sparse_matmul";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->rank != 2 && a->rank != 3)
        return spt__err(SPT_EINVAL, "%s: a must have rank 2 or 3 (batch first), not %lld", fn, (long long)a->rank);
    if (b->rank != a->rank)
        return spt__err(SPT_EINVAL, "%s: a and b must have the same rank (%lld vs %lld)", fn, (long long)a->rank,
                        (long long)b->rank);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: b's dtype %s differs from a's %s", fn, spt_dtype_name(b->dtype),
                        spt_dtype_name(a->dtype));
    rows_fn f = rows_table[a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    const int64_t r = a->rank, nbatch = r == 3 ? a->shape[0] : 1;
    if (r == 3 && b->shape[0] != nbatch)
        return spt__err(SPT_EINVAL, "%s: batch sizes differ: %lld vs %lld", fn, (long long)nbatch,
                        (long long)b->shape[0]);
    const int arc = (int)r - 2 + adjoint_a, acc_ = (int)r - 1 - adjoint_a;
    const int brc = (int)r - 2 + adjoint_b, bcc = (int)r - 1 - adjoint_b;
    const int64_t M = a->shape[arc], K = a->shape[acc_], N = b->shape[bcc];
    if (K != b->shape[brc])
        return spt__err(SPT_EINVAL,
                        "%s: Cannot multiply A and B because inner dimension does not match: %lld vs. %lld "
                        "(adjoint_a %d, adjoint_b %d)",
                        fn, (long long)K, (long long)b->shape[brc], adjoint_a, adjoint_b);
    int64_t oshape[3], vol;
    if (r == 3) oshape[0] = nbatch;
    oshape[r - 2] = M;
    oshape[r - 1] = N;
    st = spt_shape_volume(r, oshape, &vol);
    if (st != SPT_OK)
        return spt__err(st, "%s: the output shape [%lld x %lld x %lld] does not fit in int64", fn, (long long)nbatch,
                        (long long)M, (long long)N);
    /* rows of b are keyed by batch * K + k (and rows of a by batch * M + m, which the output volume
     * bounds): that space must fit in int64 too (nothing is keyed without entries) */
    int64_t bspace_chk = 0;
    if (a->nnz > 0 && b->nnz > 0 && vol > 0 && spt__mul_i64(nbatch, K, &bspace_chk))
        return spt__err(SPT_EOVERFLOW, "%s: batch %lld x inner dimension %lld does not fit in int64", fn,
                        (long long)nbatch, (long long)K);
    SPT__TRY(spt__ensure_valid(fn, a));
    SPT__TRY(spt__ensure_valid(fn, b));

    csr ca = {0}, cb = {0};
    int64_t *abr = NULL, *afl = NULL, *bptr = NULL, *bcol = NULL;
    void *avals = NULL, *bvals = NULL;
    spt__gemm_chunk ch[SPT__MAX_CHUNKS];
    memset(ch, 0, sizeof ch);
    spt_tensor *o = NULL;
    int nch = 0;
    if (a->nnz == 0 || b->nnz == 0 || vol == 0) { /* entries exist only with non-zero volumes */
        SPT__CHECK(spt__tensor_alloc(fn, a->dtype, r, oshape, 0, NULL, &o));
        goto done;
    }
    SPT__CHECK(csr_build(fn, a, arc, nbatch, &ca));
    SPT__CHECK(csr_build(fn, b, brc, nbatch, &cb));
    /* each A entry -> the range of B entries its (batch, column) names, and each A row's products:
     * through a row pointer over B's whole row space when that is not much larger than its entry
     * count, a binary search over B's non-empty rows otherwise */
    const int64_t na = a->nnz, bspace = bspace_chk; /* checked above */
    abr = spt__alloc_array(fn, na, 2, sizeof(int64_t), false, &st);
    if (!abr) goto fail;
    spt__hint_huge(abr, (size_t)na * 2 * sizeof(int64_t)); /* scratch of the input's size: fewer faults */
    afl = spt__alloc_array(fn, ca.nr, 1, sizeof(int64_t), false, &st);
    if (!afl) goto fail;
    if (bspace <= 4 * b->nnz + 65536) {
        bptr = spt__alloc_array(fn, bspace + 1, 1, sizeof(int64_t), false, &st);
        if (!bptr) goto fail;
        for (int64_t q = 0, k = 0; q <= bspace; q++) { /* rows without entries: empty ranges */
            while (k < cb.nr && cb.rid[k] < q) k++;
            bptr[q] = k < cb.nr ? cb.ptr[k] : b->nnz;
        }
    }
    int64_t total = 0;
    for (int64_t row = 0; row < ca.nr; row++) {
        int64_t fl = 0;
        for (int64_t i = ca.ptr[row]; i < ca.ptr[row + 1]; i++) {
            const int64_t *ix = a->indices + (ca.perm ? ca.perm[i] : i) * r;
            const int64_t key = (r == 3 ? ix[0] * K : 0) + ix[acc_];
            int64_t f0 = 0, f1 = 0;
            if (bptr) {
                f0 = bptr[key];
                f1 = bptr[key + 1];
            } else {
                const int64_t j = find_row(cb.rid, cb.nr, key);
                if (j >= 0) {
                    f0 = cb.ptr[j];
                    f1 = cb.ptr[j + 1];
                }
            }
            abr[2 * i] = f0;
            abr[2 * i + 1] = f1;
            if (spt__add_i64(fl, f1 - f0, &fl)) fl = INT64_MAX; /* saturating: a work estimate */
        }
        afl[row] = fl;
        if (spt__add_i64(total, fl, &total)) total = INT64_MAX;
    }
    spt__free(bptr);
    bptr = NULL;
    bcol = spt__alloc_array(fn, b->nnz, 1, sizeof(int64_t), false, &st);
    if (!bcol) goto fail;
    spt__hint_huge(bcol, (size_t)b->nnz * sizeof(int64_t));
    for (int64_t i = 0; i < b->nnz; i++) bcol[i] = b->indices[(cb.perm ? cb.perm[i] : i) * r + bcc];
    /* chunks of near-equal work (the products each row needs) */
    int nth = spt__threads_for(total / 4);
    nch = nth > 1 ? 4 * nth : 1;
    if (nch > SPT__MAX_CHUNKS) nch = SPT__MAX_CHUNKS;
    if (nch > ca.nr) nch = (int)ca.nr;
    int64_t rb[SPT__MAX_CHUNKS + 1];
    rb[0] = 0;
    {
        int64_t acc = 0, row = 0;
        for (int c = 1; c < nch; c++) {
            int64_t target = total / nch * c;
            while (row < ca.nr && acc < target)
                if (spt__add_i64(acc, afl[row++], &acc)) acc = INT64_MAX;
            rb[c] = row;
        }
        rb[nch] = ca.nr;
    }
    /* values in sorted order, so that the products read them sequentially within a row */
    const size_t es = spt_dtype_size(a->dtype);
    if (ca.perm) {
        avals = spt__alloc_array(fn, a->nnz, 1, es, false, &st);
        if (!avals) goto fail;
        spt__hint_huge(avals, (size_t)a->nnz * es);
        for (int64_t i = 0; i < a->nnz; i++) spt__copy_elem(avals, i, a->values, ca.perm[i], es);
    }
    if (cb.perm) {
        bvals = spt__alloc_array(fn, b->nnz, 1, es, false, &st);
        if (!bvals) goto fail;
        spt__hint_huge(bvals, (size_t)b->nnz * es);
        for (int64_t i = 0; i < b->nnz; i++) spt__copy_elem(bvals, i, b->values, cb.perm[i], es);
    }
    spt__gemm g = {ca.ptr, afl, abr, ca.rid, bcol, avals ? avals : a->values, bvals ? bvals : b->values,
                   adjoint_a && spt_dtype_is_complex(a->dtype), adjoint_b && spt_dtype_is_complex(a->dtype),
                   keep_zeros, M, N, N <= DENSE_MAX ? DENSE_MAX : 0,
                   (N - 1) >> (62 - SPT__GEMM_POS_BITS) ? 0 : SORT_MAX, 0};
    { /* a per-call hash seed (addresses under ASLR and the clock): hostile column sets cannot be
       * precomputed; results do not depend on it */
        struct timespec ts_;
        clock_gettime(CLOCK_MONOTONIC, &ts_);
        g.hseed = (uint64_t)(uintptr_t)&g * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts_.tv_nsec ^ (uint64_t)ts_.tv_sec << 32 ^
                  (uint64_t)(uintptr_t)a->indices;
    }
    /* each chunk's bound: sum over its rows of min(products, N). When the total is modest (at most 64
     * entries per input entry) the chunks write finished index rows straight into an output of that
     * size, each chunk moved down onto the one before as soon as all before it are in place;
     * otherwise into growing buffers of their own, copied out at the end. */
    int64_t cbound[SPT__MAX_CHUNKS + 1], btotal = 0;
    for (int c = 0; c < nch; c++) {
        int64_t cb_ = 0;
        for (int64_t row = rb[c]; row < rb[c + 1]; row++)
            if (spt__add_i64(cb_, afl[row] < N ? afl[row] : N, &cb_)) cb_ = INT64_MAX;
        cbound[c] = cb_;
        if (spt__add_i64(btotal, cb_, &btotal)) btotal = INT64_MAX;
    }
    int64_t budget;
    if (spt__mul_i64(a->nnz + b->nnz, 64, &budget)) budget = INT64_MAX;
    const bool direct = btotal <= budget;
    int64_t base[SPT__MAX_CHUNKS + 1];
    base[0] = 0;
    if (direct) {
        SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, r, oshape, btotal, NULL, &o));
        for (int c = 0; c < nch; c++) {
            base[c + 1] = base[c] + cbound[c];
            ch[c].idx = o->indices + base[c] * r;
            ch[c].val = (char *)o->values + (size_t)base[c] * es;
            ch[c].cap = cbound[c];
            ch[c].fixed = true;
        }
    }
    for (int c = 0; c < nch; c++) ch[c].rank = r;
    /* direct: chunks [0, placed) are final and end at entry `nnz`; a finished chunk is marked, and
     * whoever finishes the chunk at `placed` moves it and every finished one after it into place */
    int64_t nnz = 0;
    int placed = 0;
    bool done_[SPT__MAX_CHUNKS] = {false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (int c = 0; c < nch; c++) {
        f(&g, rb[c], rb[c + 1], &ch[c]);
        if (direct) {
#pragma omp critical(spt_spgemm_place)
            {
                done_[c] = true;
                for (; placed < nch && done_[placed]; placed++) {
                    spt__gemm_chunk *k = &ch[placed];
                    if (k->st == SPT_OK && k->n && base[placed] != nnz) {
                        memmove(o->indices + nnz * r, o->indices + base[placed] * r, (size_t)(k->n * r) * sizeof(int64_t));
                        memmove((char *)o->values + (size_t)nnz * es, (char *)o->values + (size_t)base[placed] * es,
                                (size_t)k->n * es);
                    }
                    nnz += k->n;
                }
            }
        }
    }
    spt__free(bcol);
    bcol = NULL;
    spt__free(abr);
    abr = NULL;
    for (int c = 0; c < nch; c++)
        if (ch[c].st != SPT_OK) { /* raised on a worker thread: raise it again on this one */
            st = spt__err(ch[c].st, "%s: out of memory for a row accumulator or the output", fn);
            goto fail;
        }
    if (direct) {
        spt__tensor_truncate(o, nnz);
        goto done;
    }
    for (int c = 0; c < nch; c++) nnz += ch[c].n;
    SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, r, oshape, nnz, NULL, &o));
    {
        base[0] = 0;
        for (int c = 0; c < nch; c++) base[c + 1] = base[c] + ch[c].n;
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int c = 0; c < nch; c++)
            if (ch[c].n) {
                memcpy(o->indices + base[c] * r, ch[c].idx, (size_t)(ch[c].n * r) * sizeof(int64_t));
                memcpy((char *)o->values + (size_t)base[c] * es, ch[c].val, (size_t)ch[c].n * es);
            }
    }
done:
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    st = SPT_OK;
    *out = o;
    goto cleanup;
fail:
    spt_tensor_free(o);
cleanup:
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
    spt__free(bptr);
    spt__free(bcol);
    spt__free(avals);
    spt__free(bvals);
    spt__free(abr);
    spt__free(afl);
    csr_free(&ca);
    csr_free(&cb);
    return st;
}
