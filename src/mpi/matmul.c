/* matmul.c -- distributed tf.sparse.sparse_dense_matmul: A by row ranges (each rank its own entries),
 * B replicated; each rank computes the block of output rows its entries touch, the blocks go to the
 * root (one exchange) and are summed there in rank order. */
#include "priv/mpi_priv.h"

/* out[0..nc) += op(a) * op(B)[k, 0..nc), per numeric dtype; integers wrap (unsigned arithmetic). */
#define MM_GEN(E, T, MUL, ADD, CONJ)                                                               \
    static void madd_##E(void *outrow, const void *av, int64_t ai, const void *b, int64_t bcols, int64_t k, \
                         int64_t nc, bool adj_a, bool adj_b) {                                     \
        T *o = outrow;                                                                             \
        const T *B = b;                                                                            \
        T a = ((const T *)av)[ai];                                                                 \
        if (adj_a) a = CONJ(a);                                                                    \
        if (adj_b)                                                                                 \
            for (int64_t j = 0; j < nc; j++) { T x = CONJ(B[j * bcols + k]); o[j] = ADD(o[j], MUL(a, x)); } \
        else                                                                                       \
            for (int64_t j = 0; j < nc; j++) { T x = B[k * bcols + j]; o[j] = ADD(o[j], MUL(a, x)); } \
    }
#define ID(x) (x)
#define WMUL(a, b) ((uint64_t)(a) * (uint64_t)(b))
#define WADD(a, b) ((uint64_t)(a) + (uint64_t)(b))
#define NMUL(a, b) ((a) * (b))
#define NADD(a, b) ((a) + (b))
#define GEN_BOOL(E, T)
#define GEN_STRING(E, T)
#define GEN_INT(E, T) MM_GEN(E, T, (T)WMUL, (T)WADD, ID)
#define GEN_UINT(E, T) MM_GEN(E, T, (T)WMUL, (T)WADD, ID)
#define GEN_FLOAT(E, T) MM_GEN(E, T, NMUL, NADD, ID)
#define GEN_COMPLEX(E, T) MM_GEN(E, T, NMUL, NADD, (T)conj)
#define X(E, name, T, KIND) GEN_##KIND(E, T)
#include "spt_dtypes.def"
#undef X

typedef void (*madd_fn)(void *, const void *, int64_t, const void *, int64_t, int64_t, int64_t, bool, bool);
#define TAB_BOOL(E) NULL
#define TAB_STRING(E) NULL
#define TAB_INT(E) madd_##E
#define TAB_UINT(E) madd_##E
#define TAB_FLOAT(E) madd_##E
#define TAB_COMPLEX(E) madd_##E
static const madd_fn madd_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) [E] = TAB_##KIND(E),
#include "spt_dtypes.def"
#undef X
};

/* acc[0..n) += x[0..n) elementwise */
#define ACC_GEN(E, T, ADD)                                                                         \
    static void acc_##E(void *acc, const void *x, int64_t n) {                                     \
        T *a = acc;                                                                                \
        const T *s = x;                                                                            \
        for (int64_t i = 0; i < n; i++) a[i] = ADD(a[i], s[i]);                                    \
    }
#undef GEN_INT
#undef GEN_UINT
#undef GEN_FLOAT
#undef GEN_COMPLEX
#define GEN_INT(E, T) ACC_GEN(E, T, (T)WADD)
#define GEN_UINT(E, T) ACC_GEN(E, T, (T)WADD)
#define GEN_FLOAT(E, T) ACC_GEN(E, T, NADD)
#define GEN_COMPLEX(E, T) ACC_GEN(E, T, NADD)
#define X(E, name, T, KIND) GEN_##KIND(E, T)
#include "spt_dtypes.def"
#undef X
typedef void (*acc_fn)(void *, const void *, int64_t);
#undef TAB_INT
#undef TAB_UINT
#undef TAB_FLOAT
#undef TAB_COMPLEX
#define TAB_INT(E) acc_##E
#define TAB_UINT(E) acc_##E
#define TAB_FLOAT(E) acc_##E
#define TAB_COMPLEX(E) acc_##E
static const acc_fn acc_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) [E] = TAB_##KIND(E),
#include "spt_dtypes.def"
#undef X
};

spt_status spt_dtensor_sparse_dense_matmul(const spt_dtensor *a, const spt_dense *b, bool adjoint_a,
                                           bool adjoint_b, int root, spt_dense **out) {
    static const char fn[] = "spt_dtensor_sparse_dense_matmul";
    spt_status st = SPT_OK;
    if (!a) return spt__err(SPT_EINVAL, "%s: A is NULL", fn);
    spt_mpi_ctx *ctx = a->ctx;
    const int P = ctx->size, me = ctx->rank;
    const spt_tensor *t = a->local;
    char *block = NULL, *rbuf = NULL;
    int64_t *w = NULL;
    spt_dense *res = NULL;
    if (out) *out = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (root < -1 || root >= P) st = spt__err(SPT_EINVAL, "%s: root %d is not -1 or a rank in [0, %d)", fn, root, P);
    else if (!b) st = spt__err(SPT_EINVAL, "%s: B is NULL", fn);
    else if (t->rank != 2) st = spt__err(SPT_EINVAL, "%s: Tensor 'a_shape' must have 2 elements", fn);
    else if (b->rank != 2) st = spt__err(SPT_EINVAL, "%s: Tensor 'b' is not a matrix", fn);
    else if (b->dtype != t->dtype)
        st = spt__err(SPT_EDTYPE, "%s: A is %s but B is %s", fn, spt_dtype_name(t->dtype), spt_dtype_name(b->dtype));
    else if (!madd_table[t->dtype])
        st = spt__err(SPT_EDTYPE, "%s: dtype %s is not supported (integers, floats, complex)", fn, spt_dtype_name(t->dtype));
    int64_t M = 0, K = 0, NC = 0, KB = 0;
    if (st == SPT_OK) {
        M = adjoint_a ? t->shape[1] : t->shape[0];
        K = adjoint_a ? t->shape[0] : t->shape[1];
        KB = adjoint_b ? b->shape[1] : b->shape[0];
        NC = adjoint_b ? b->shape[0] : b->shape[1];
        if (K != KB)
            st = spt__err(SPT_EINVAL,
                          "%s: Cannot multiply A and B because inner dimension does not match: %lld vs. %lld.  Did you "
                          "forget a transpose?  Dimensions of A: [%lld, %lld).  Dimensions of B: [%lld,%lld]",
                          fn, (long long)K, (long long)KB, (long long)t->shape[0], (long long)t->shape[1],
                          (long long)b->shape[0], (long long)b->shape[1]);
    }
    SPT__AGREE(ctx, fn);
    /* B must be replicated: a rank holding another shape would send blocks of another width (garbage
     * on the root, or the root alone failing in the transfer while the others wait in the broadcast).
     * Decided on the reduced values: the same on every rank. */
    int64_t bm[4] = {b->shape[0], b->shape[1], -b->shape[0], -b->shape[1]};
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, bm, 4, MPI_MAX));
    if (bm[0] != -bm[2] || bm[1] != -bm[3]) {
        st = spt__err(SPT_EINVAL, "%s: B must be the same on every rank, but its shape differs between ranks "
                      "(rows %lld..%lld, columns %lld..%lld)", fn, (long long)-bm[2], (long long)bm[0],
                      (long long)-bm[3], (long long)bm[1]);
        goto fail;
    }
    const int gather_root = root < 0 ? 0 : root;
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
    /* w: P windows lo | P rows | scounts | sdispls | rcounts | rdispls (P each) */
    w = spt__alloc_array(fn, 6, P, sizeof(int64_t), true, &st);
    if (w) block = spt__alloc_array(fn, rows, NC, es, true, &st);
    if (block) {
        const madd_fn madd = madd_table[t->dtype];
        for (int64_t i = 0; i < t->nnz; i++) {
            int64_t m = t->indices[2 * i + mcol], k = t->indices[2 * i + kcol];
            madd(block + (size_t)((m - lo) * NC) * es, t->values, i, b->data, b->shape[1], k, NC, adjoint_a, adjoint_b);
        }
    }
    bool mine = me == gather_root || root == -1;
    if (block && mine) st = spt_dense_new(t->dtype, 2, (const int64_t[]){M, NC}, &res);
    SPT__AGREE(ctx, fn);
    int64_t win[2] = {lo, rows};
    int64_t *wl = w, *sc = w + 2 * P, *sd = w + 3 * P, *rc = w + 4 * P, *rd = w + 5 * P;
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, win, 2, wl));
    int64_t bytes = 0;
    if (spt__mul_i64(rows, NC, &bytes) || spt__mul_i64(bytes, (int64_t)es, &bytes)) bytes = INT64_MAX; /* not reached: allocated */
    sc[gather_root] = bytes;
    int64_t total = 0;
    if (me == gather_root)
        for (int q = 0; q < P; q++) {
            rc[q] = wl[2 * q + 1] * NC * (int64_t)es;
            rd[q] = total;
            total += rc[q];
        }
    if (me == gather_root) rbuf = spt__alloc_array(fn, total, 1, 1, false, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, block, sc, sd, rbuf, rc, rd));
    if (me == gather_root) {
        const acc_fn acc = acc_table[t->dtype];
        for (int q = 0; q < P; q++)
            if (wl[2 * q + 1])
                acc((char *)res->data + (size_t)(wl[2 * q] * NC) * es, rbuf + rd[q], wl[2 * q + 1] * NC);
    }
    if (root == -1) SPT__CHECK(spt__mpi_bcast_bytes(ctx, fn, res->data, res->size * (int64_t)es, 0));
    if (mine) {
        *out = res;
        res = NULL;
    }
fail:
    spt_dense_free(res);
    spt__free(rbuf);
    spt__free(block);
    spt__free(w);
    return st;
}
