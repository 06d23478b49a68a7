/* SPDX-License-Identifier: Apache-2.0 */
/* matmul.c -- distributed tf.sparse.sparse_dense_matmul: A by row ranges (each rank its own entries);
 * B replicated, or in row blocks with each rank fetching only the rows of op(B) its entries read (one
 * exchange of row numbers, one of rows). Each rank computes the block of output rows its entries touch;
 * the blocks go to the root (one exchange) and are summed there in rank order. */
#include "priv/mpi_priv.h"

#include <stdlib.h>

/* The per-dtype loops (template/matmul_row.c), numeric dtypes only: madd_<enum> and acc_<enum>. */
#define OK(KIND) SPT__KINDS_NUMERIC(KIND)
#define SPT__TEMPLATE "mpi/template/matmul_row.c"
#include "ops/each_dtype.h"

typedef void (*madd_fn)(void *, const void *, int64_t, const void *, int64_t, int64_t, int64_t, bool, bool);
static const madd_fn madd_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = madd_##E, )
#include "spt_dtypes.def"
#undef X
};

typedef void (*acc_fn)(void *, const void *, int64_t);
static const acc_fn acc_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = acc_##E, )
#include "spt_dtypes.def"
#undef X
};

/* The common argument checks (everything but B's shape). */
static spt_status check_args(const char *fn, const spt_tensor *t, const spt_dense *b, int root, int P,
                             spt_dense **out) {
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    if (root < -1 || root >= P) return spt__err(SPT_EINVAL, "%s: root %d is not -1 or a rank in [0, %d)", fn, root, P);
    if (!b) return spt__err(SPT_EINVAL, "%s: B is NULL", fn);
    if (t->rank != 2) return spt__err(SPT_EINVAL, "%s: Tensor 'a_shape' must have 2 elements", fn);
    if (b->rank != 2) return spt__err(SPT_EINVAL, "%s: Tensor 'b' is not a matrix", fn);
    if (b->dtype != t->dtype)
        return spt__err(SPT_EDTYPE, "%s: A is %s but B is %s", fn, spt_dtype_name(t->dtype), spt_dtype_name(b->dtype));
    if (!madd_table[t->dtype])
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported (integers, floats, complex)", fn,
                        spt_dtype_name(t->dtype));
    return SPT_OK;
}

static spt_status inner_mismatch(const char *fn, const spt_tensor *t, int64_t K, int64_t KB, int64_t b0, int64_t b1) {
    return spt__err(SPT_EINVAL,
                    "%s: Cannot multiply A and B because inner dimension does not match: %lld vs. %lld.  Did you "
                    "forget a transpose?  Dimensions of A: [%lld, %lld).  Dimensions of B: [%lld,%lld]",
                    fn, (long long)K, (long long)KB, (long long)t->shape[0], (long long)t->shape[1], (long long)b0,
                    (long long)b1);
}

spt_status spt__mpi_sum_windows(spt_mpi_ctx *ctx, const char *fn, spt_dtype dtype, const void *block, int64_t lo,
                                int64_t rows, int64_t M, int64_t NC, int root, spt_dense **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    char *rbuf = NULL;
    spt_dense *res = NULL;
    const int gather_root = root < 0 ? 0 : root;
    const size_t es = spt_dtype_size(dtype);
    const bool mine = me == gather_root || root == -1;
    /* w: P windows lo | P rows | scounts | sdispls | rcounts | rdispls (P each) */
    int64_t *w = spt__alloc_array(fn, 6, P, sizeof(int64_t), true, &st);
    if (w && mine) st = spt_dense_new(dtype, 2, (const int64_t[]){M, NC}, &res);
    SPT__AGREE(ctx, fn);
    int64_t win[2] = {lo, rows};
    int64_t *wl = w, *sc = w + 2 * P, *sd = w + 3 * P, *rc = w + 4 * P, *rd = w + 5 * P;
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, win, 2, wl));
    int64_t bytes = rows * NC * (int64_t)es; /* allocated by the caller: fits */
    sc[gather_root] = me == gather_root ? 0 : bytes;
    int64_t total = 0;
    if (me == gather_root) {
        for (int q = 0; q < P; q++) rd[q] = rc[q] = q == me ? 0 : wl[2 * q + 1] * NC * (int64_t)es;
        total = spt__scan_exclusive(rd, P);
    }
    if (me == gather_root) rbuf = spt__alloc_array(fn, total, 1, 1, false, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, block, sc, sd, rbuf, rc, rd));
    if (me == gather_root) {
        const acc_fn acc = acc_table[dtype];
        for (int q = 0; q < P; q++)
            if (wl[2 * q + 1])
                acc((char *)res->data + (size_t)(wl[2 * q] * NC) * es, q == me ? block : rbuf + rd[q],
                    wl[2 * q + 1] * NC);
    }
    if (root == -1) SPT__CHECK(spt__mpi_bcast_bytes(ctx, fn, res->data, res->size * (int64_t)es, 0));
    if (mine) {
        *out = res;
        res = NULL;
    }
fail:
    spt_dense_free(res);
    spt__free(rbuf);
    spt__free(w);
    return st;
}

/* Each rank multiplies its entries into the window of output rows they touch, reading op(B) row k of
 * entry i from `bd` (bcols columns) at row/column kc ? kc[i] : k; the windows go to the gather root and
 * are summed there in rank order; root == -1: broadcast. Collective; errors agreed. */
static spt_status local_and_gather(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const void *bd, int64_t bcols,
                                   const int64_t *kc, int64_t M, int64_t NC, bool adjoint_a, bool adjoint_b, int root,
                                   spt_dense **out) {
    spt_status st = SPT_OK;
    char *block = NULL;
    const size_t es = spt_dtype_size(t->dtype);
    const int mcol = adjoint_a ? 1 : 0, kcol = 1 - mcol;
    /* the window of output rows this rank touches */
    int64_t lo = INT64_MAX, hi = -1;
    for (int64_t i = 0; i < t->nnz; i++) {
        int64_t m = t->indices[2 * i + mcol];
        lo = m < lo ? m : lo;
        hi = m > hi ? m : hi;
    }
    int64_t rows = hi < lo ? 0 : hi - lo + 1;
    if (rows == 0) lo = 0;
    block = spt__alloc_array(fn, rows, NC, es, true, &st);
    if (block) {
        const madd_fn madd = madd_table[t->dtype];
        for (int64_t i = 0; i < t->nnz; i++) {
            int64_t m = t->indices[2 * i + mcol], k = kc ? kc[i] : t->indices[2 * i + kcol];
            madd(block + (size_t)((m - lo) * NC) * es, t->values, i, bd, bcols, k, NC, adjoint_a, adjoint_b);
        }
    }
    SPT__AGREE(ctx, fn);
    st = spt__mpi_sum_windows(ctx, fn, t->dtype, block, lo, rows, M, NC, root, out);
fail:
    spt__free(block);
    return st;
}

spt_status spt_dtensor_sparse_dense_matmul(const spt_dtensor *a, const spt_dense *b, bool adjoint_a, bool adjoint_b,
                                           int root, spt_dense **out) {
    static const char fn[] = "spt_dtensor_sparse_dense_matmul";
    spt_status st = SPT_OK;
    if (!a) return spt__err(SPT_EINVAL, "%s: A is NULL", fn);
    spt_mpi_ctx *ctx = a->ctx;
    const spt_tensor *t = a->local;
    if (out) *out = NULL;
    st = check_args(fn, t, b, root, ctx->size, out);
    int64_t M = 0, K = 0, NC = 0, KB = 0;
    if (st == SPT_OK) {
        M = adjoint_a ? t->shape[1] : t->shape[0];
        K = adjoint_a ? t->shape[0] : t->shape[1];
        KB = adjoint_b ? b->shape[1] : b->shape[0];
        NC = adjoint_b ? b->shape[0] : b->shape[1];
        if (K != KB) st = inner_mismatch(fn, t, K, KB, b->shape[0], b->shape[1]);
    }
    SPT__AGREE(ctx, fn);
    /* B must be replicated: a rank holding another shape would send blocks of another width (garbage
     * on the root, or the root alone failing in the transfer while the others wait in the broadcast), one
     * holding other values a wrong result. Shape and content checksum compared with rank 0's. */
    SPT__CHECK(spt__mpi_same_dense(ctx, fn, "B", b));
    st = local_and_gather(ctx, fn, t, b->data, b->shape[1], NULL, M, NC, adjoint_a, adjoint_b, root, out);
fail:
    return st;
}

/* sorted unique values of v[0..n) (in place); returns the count */
static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

int64_t spt__mpi_lower_i64(const int64_t *v, int64_t n, int64_t x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The blocks of B: info[3q..3q+3) = (first row, rows, columns) of rank q's block, gathered, checked to
 * follow each other from row 0 with one column count; *KBtot the rows of the stored B. Collective;
 * errors agreed (the checks run on replicated data). */
spt_status spt__mpi_rows_blocks(spt_mpi_ctx *ctx, const char *fn, spt_status st, const spt_dense *b_rows,
                                int64_t b_begin, int64_t **info, int64_t *KBtot) {
    const int P = ctx->size;
    int64_t mine[3] = {st == SPT_OK ? b_begin : -1, st == SPT_OK ? b_rows->shape[0] : -1,
                       st == SPT_OK ? b_rows->shape[1] : -1};
    if (st == SPT_OK) *info = spt__alloc_array(fn, 3, P, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, mine, 3, *info));
    const int64_t *in = *info;
    *KBtot = 0;
    for (int q = 0; q < P && st == SPT_OK; q++) {
        if (in[3 * q] != *KBtot)
            st = spt__err(SPT_EINVAL,
                          "%s: rank %d's block of B starts at row %lld, expected %lld (the blocks of ranks "
                          "0..P-1 must cover B's rows in order)",
                          fn, q, (long long)in[3 * q], (long long)*KBtot);
        else if (in[3 * q + 2] != in[2])
            st = spt__err(SPT_EINVAL, "%s: rank %d's block of B has %lld columns, rank 0's %lld", fn, q,
                          (long long)in[3 * q + 2], (long long)in[2]);
        else if (spt__add_i64(*KBtot, in[3 * q + 1], KBtot))
            st = spt__err(SPT_EOVERFLOW, "%s: the rows of B overflow int64", fn);
    }
fail:
    return st;
}

/* The distinct rows k of op(B) that column kcol of my entries reads, ascending, into need (room for
 * n >= 1): a bitmap when K is not much larger than the entries, else a sort. *nk their count. Local. */
spt_status spt__mpi_rows_needed(const char *fn, const spt_tensor *t, int kcol, int64_t K, int64_t *need, int64_t *nk) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz;
    *nk = 0;
    if (n == 0) return SPT_OK;
    if (K / 8 <= 4 * n + 4096) {
        uint8_t *seen = spt__alloc_array(fn, K / 8 + 1, 1, 1, true, &st);
        if (!seen) return st;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = t->indices[t->rank * i + kcol];
            seen[k >> 3] |= (uint8_t)(1u << (k & 7));
        }
        for (int64_t k = 0; k < K; k++)
            if (seen[k >> 3] & (1u << (k & 7))) need[(*nk)++] = k;
        spt__free(seen);
        return SPT_OK;
    }
    for (int64_t i = 0; i < n; i++) need[i] = t->indices[t->rank * i + kcol];
    qsort(need, (size_t)n, sizeof *need, cmp_i64);
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || need[i] != need[i - 1]) need[(*nk)++] = need[i];
    return SPT_OK;
}


/* The requests: !adjoint_b: row k of B from its owner; adjoint_b: column k of every rank's block.
 * Allocates f->cnt and f->req. Local. */
spt_status spt__mpi_rows_requests(const char *fn, int P, int me, spt__mpi_rows_fetch *f) {
    spt_status st = SPT_OK;
    const int64_t *info = f->info, *need = f->need, nk = f->nk;
    int64_t *cnt = f->cnt = spt__alloc_array(fn, 8, P, sizeof(int64_t), true, &st);
    if (!cnt) return st;
    if (!f->adjoint_b) {
        for (int64_t c = 0, q = 0; c < nk; c++) {
            while (q < P - 1 && need[c] >= info[3 * (q + 1)]) q++;
            if (q != me) cnt[q]++;
        }
    } else {
        for (int q = 0; q < P; q++) cnt[q] = q != me && info[3 * q + 1] > 0 ? nk : 0;
    }
    for (int q = 0; q < P; q++) cnt[2 * P + q] = cnt[q] * 8;
    const int64_t nreq = spt__scan_exclusive(cnt + 2 * P, P) / 8;
    int64_t *req = f->req = spt__alloc_array(fn, nreq > 0 ? nreq : 1, 1, sizeof(int64_t), false, &st);
    if (!req) return st;
    int64_t w = 0;
    if (!f->adjoint_b) {
        for (int64_t c = 0, q = 0; c < nk; c++) {
            while (q < P - 1 && need[c] >= info[3 * (q + 1)]) q++;
            if (q != me) req[w++] = need[c];
        }
    } else {
        for (int q = 0; q < P; q++)
            if (cnt[q]) {
                memcpy(req + w, need, (size_t)nk * sizeof *need);
                w += nk;
            }
    }
    return SPT_OK;
}

/* The answers to the nin requests got[] of the other ranks into reply: my row of B (BC values) or my
 * part of column k (one value per row of my block). Local. */
static void rows_answer(const spt__mpi_rows_fetch *f, const spt_dense *b_rows, const int64_t *got, int64_t nin,
                        char *reply) {
    const int64_t myrows = b_rows->shape[0], BC = f->BC, per = f->adjoint_b ? myrows : BC;
    const size_t es = f->es;
    const char *B = b_rows->data;
    for (int64_t i = 0; i < nin; i++) {
        char *dst = reply + (size_t)i * (size_t)per * es;
        int64_t k = got[i];
        if (!f->adjoint_b) memcpy(dst, B + (size_t)((k - f->b_begin) * BC) * es, (size_t)BC * es);
        else
            for (int64_t j = 0; j < myrows; j++) memcpy(dst + (size_t)j * es, B + (size_t)(j * BC + k) * es, es);
    }
}

/* Place the fetched rows (received in `in`, rank q's at rdp[q]) and my own into fetched: !adjoint_b
 * [nk x NC] rows of B; adjoint_b [KBtot x nk] (B's layout, my columns). Local. */
static void rows_place(const spt__mpi_rows_fetch *f, const spt_dense *b_rows, int P, int me, const char *in,
                       const int64_t *rdp, char *fetched) {
    const int64_t *info = f->info, *need = f->need, nk = f->nk, BC = f->BC;
    const size_t es = f->es;
    const char *B = b_rows->data;
    if (!f->adjoint_b) {
        int64_t *at = f->cnt + 2 * P; /* next request position per owner (in entries) */
        for (int q = 0; q < P; q++) at[q] = 0;
        for (int64_t c = 0, q = 0; c < nk; c++) {
            while (q < P - 1 && need[c] >= info[3 * (q + 1)]) q++;
            char *dst = fetched + (size_t)(c * f->NC) * es;
            if (q == me) memcpy(dst, B + (size_t)((need[c] - f->b_begin) * BC) * es, (size_t)BC * es);
            else memcpy(dst, in + rdp[q] + (size_t)(at[q]++ * BC) * es, (size_t)BC * es);
        }
        return;
    }
    for (int q = 0; q < P; q++) {
        const int64_t r0 = info[3 * q], rq = info[3 * q + 1];
        for (int64_t c = 0; c < nk; c++)
            for (int64_t j = 0; j < rq; j++) {
                const char *src = q == me ? B + (size_t)(j * BC + need[c]) * es
                                          : in + rdp[q] + (size_t)(c * rq + j) * es;
                memcpy(fetched + (size_t)((r0 + j) * nk + c) * es, src, es);
            }
    }
}

/* The two exchanges: the requests out (row numbers), the answers back, placed into fetched.
 * Collective; errors agreed. */
spt_status spt__mpi_rows_exchange(spt_mpi_ctx *ctx, const char *fn, spt__mpi_rows_fetch *f, const spt_dense *b_rows,
                                  char *fetched) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    int64_t *cnt = f->cnt, *got = NULL;
    char *reply = NULL;
    SPT__CHECK(spt__mpi_counts(ctx, fn, cnt, cnt + P));
    for (int q = 0; q < P; q++) cnt[3 * P + q] = cnt[P + q] * 8;
    const int64_t nin = spt__scan_exclusive(cnt + 3 * P, P) / 8;
    got = spt__alloc_array(fn, nin > 0 ? nin : 1, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    int64_t *sb = cnt + 4 * P, *rb = cnt + 5 * P, *sdp = cnt + 6 * P, *rdp = cnt + 7 * P;
    /* request bytes: reuse the reply slots for the byte counts of the request exchange */
    for (int q = 0; q < P; q++) {
        sb[q] = cnt[q] * 8;
        rb[q] = cnt[P + q] * 8;
    }
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, f->req, sb, cnt + 2 * P, got, rb, cnt + 3 * P));
    const int64_t per = f->adjoint_b ? b_rows->shape[0] : f->BC; /* values per requested k */
    for (int q = 0; q < P; q++) {
        sdp[q] = sb[q] = cnt[P + q] * per * (int64_t)f->es;
        rdp[q] = rb[q] = cnt[q] * (f->adjoint_b ? f->info[3 * q + 1] : f->BC) * (int64_t)f->es;
    }
    const int64_t tot = spt__scan_exclusive(sdp, P), rtot = spt__scan_exclusive(rdp, P);
    reply = spt__alloc_array(fn, tot + rtot > 0 ? tot + rtot : 1, 1, 1, false, &st);
    if (reply) rows_answer(f, b_rows, got, nin, reply);
    spt__free(got);
    got = NULL;
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, reply, sb, sdp, reply + tot, rb, rdp));
    rows_place(f, b_rows, P, me, reply + tot, rdp, fetched);
fail:
    spt__free(got);
    spt__free(reply);
    return st;
}

spt_status spt_dtensor_sparse_dense_matmul_rows(const spt_dtensor *a, const spt_dense *b_rows, int64_t b_begin,
                                                bool adjoint_a, bool adjoint_b, int root, spt_dense **out) {
    static const char fn[] = "spt_dtensor_sparse_dense_matmul_rows";
    spt_status st = SPT_OK;
    if (!a) return spt__err(SPT_EINVAL, "%s: A is NULL", fn);
    spt_mpi_ctx *ctx = a->ctx;
    const int P = ctx->size, me = ctx->rank;
    const spt_tensor *t = a->local;
    const int64_t n = t->nnz;
    int64_t *info = NULL, *need = NULL, *kc = NULL;
    char *fetched = NULL;
    spt__mpi_rows_fetch f = {0};
    if (out) *out = NULL;
    st = check_args(fn, t, b_rows, root, P, out);
    /* the blocks: (begin, rows, columns) of every rank; in order, covering the rows of B */
    int64_t KBtot = 0;
    SPT__CHECK(spt__mpi_rows_blocks(ctx, fn, st, b_rows, b_begin, &info, &KBtot));
    const int64_t BC = info[2]; /* columns of the stored B */
    const int64_t M = adjoint_a ? t->shape[1] : t->shape[0], K = adjoint_a ? t->shape[0] : t->shape[1];
    const int64_t KB = adjoint_b ? BC : KBtot, NC = adjoint_b ? KBtot : BC;
    if (K != KB) {
        st = inner_mismatch(fn, t, K, KB, KBtot, BC);
        goto fail;
    }
    const int kcol = adjoint_a ? 0 : 1;
    /* 1. the distinct rows k of op(B) my entries read, ascending */
    int64_t nk = 0;
    need = spt__alloc_array(fn, n > 0 ? n : 1, 1, sizeof(int64_t), false, &st);
    if (need) st = spt__mpi_rows_needed(fn, t, kcol, K, need, &nk);
    /* kc[i]: entry i's row among the fetched ones */
    if (st == SPT_OK) kc = spt__alloc_array(fn, n > 0 ? n : 1, 1, sizeof(int64_t), false, &st);
    if (kc)
        for (int64_t i = 0; i < n; i++) kc[i] = spt__mpi_lower_i64(need, nk, t->indices[2 * i + kcol]);
    /* 2. the requests, and room for the fetched rows */
    f = (spt__mpi_rows_fetch){.info = info,
                              .need = need,
                              .nk = nk,
                              .BC = BC,
                              .NC = NC,
                              .b_begin = b_begin,
                              .adjoint_b = adjoint_b,
                              .es = spt_dtype_size(t->dtype)};
    if (st == SPT_OK) st = spt__mpi_rows_requests(fn, P, me, &f);
    if (st == SPT_OK) fetched = spt__alloc_array(fn, nk, NC, f.es, true, &st);
    SPT__AGREE(ctx, fn);
    /* 3. requests out, rows back */
    SPT__CHECK(spt__mpi_rows_exchange(ctx, fn, &f, b_rows, fetched));
    /* 4. multiply and gather: op(B) row k of entry i is fetched row kc[i] (adjoint_b: column kc[i]) */
    st = local_and_gather(ctx, fn, t, fetched, adjoint_b ? nk : NC, kc, M, NC, adjoint_a, adjoint_b, root, out);
fail:
    spt__free(fetched);
    spt__free(f.req);
    spt__free(f.cnt);
    spt__free(kc);
    spt__free(need);
    spt__free(info);
    return st;
}
