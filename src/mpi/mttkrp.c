/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp.c -- distributed MTTKRP with replicated factor matrices: each rank runs the serial spt_mttkrp
 * on its piece, into either the window of output rows its entries touch (the piece copied with the mode's
 * index shifted to the window) or, when the output is small beside that copy, all the output's rows (the
 * piece as it is, no copy); the rank's rows are summed on the root in rank order. When the tensor is
 * sorted with the mode first, the windows of different ranks meet in at most one row. */
#include "priv/mpi_priv.h"

/* The checks of the serial op on an empty tensor of the global metadata. Local. */
static spt_status probe_mttkrp(const char *fn, const spt_tensor *t, const spt_dense *const *factors, int64_t nfactors,
                               int64_t mode, int64_t *R) {
    spt_tensor *e = NULL;
    spt_dense *d = NULL;
    spt_status st = spt__tensor_alloc(fn, t->dtype, t->rank, t->shape, 0, NULL, &e);
    if (st == SPT_OK && (st = spt_mttkrp(e, factors, nfactors, mode, &d)) != SPT_OK)
        st = spt__mpi_rename_err(fn, "spt_mttkrp", st);
    if (st == SPT_OK) *R = d->shape[1];
    spt_dense_free(d);
    spt_tensor_free(e);
    return st;
}

int64_t spt__mpi_mode_window(const spt_tensor *t, int64_t mode, int64_t *lo) {
    int64_t a = INT64_MAX, b = -1;
    for (int64_t i = 0; i < t->nnz; i++) {
        const int64_t x = t->indices[i * t->rank + mode];
        a = x < a ? x : a;
        b = x > b ? x : b;
    }
    *lo = b < a ? 0 : a;
    return b < a ? 0 : b - a + 1;
}

/* My piece with the mode's index shifted by -lo and its dim set to rows. Local. */
static spt_status shifted_piece(const char *fn, const spt_tensor *t, int64_t mode, int64_t lo, int64_t rows,
                                spt_tensor **out) {
    int64_t shape[SPT_MAX_RANK];
    const int64_t r = t->rank, n = t->nnz;
    memcpy(shape, t->shape, (size_t)r * sizeof *shape);
    shape[mode] = rows;
    const bool sorted = (t->flags & SPT__F_SORTED) != 0;
    spt_status st = spt__tensor_alloc_uninit(fn, t->dtype, r, shape, n, sorted ? t->order : NULL, out);
    if (st != SPT_OK) return st;
    if (n == 0) return SPT_OK;
    memcpy((*out)->indices, t->indices, (size_t)(n * r) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) (*out)->indices[i * r + mode] -= lo;
    memcpy((*out)->values, t->values, (size_t)n * spt_dtype_size(t->dtype));
    (*out)->flags = SPT__F_VALID | (t->flags & (SPT__F_SORTED | SPT__F_UNIQUE)); /* a shift keeps the order */
    return SPT_OK;
}

spt_status spt_dtensor_mttkrp(const spt_dtensor *t, const spt_dense *const *factors, int64_t nfactors, int64_t mode,
                              int root, spt_dense **out) {
    static const char fn[] = "spt_dtensor_mttkrp";
    spt_status st = SPT_OK;
    if (out) *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: T is NULL", fn);
    spt_mpi_ctx *ctx = t->ctx;
    const spt_tensor *p = t->local;
    spt_tensor *sh = NULL;
    const spt_dense *fs[SPT_MAX_RANK];
    int64_t R = 0;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (root < -1 || root >= ctx->size)
        st = spt__err(SPT_EINVAL, "%s: root %d is not -1 or a rank in [0, %d)", fn, root, ctx->size);
    else st = probe_mttkrp(fn, p, factors, nfactors, mode, &R);
    SPT__AGREE(ctx, fn);
    /* the factors must be replicated: the same column count everywhere (the rows are checked above) */
    int64_t rr[2] = {R, -R};
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, rr, 2, MPI_MAX));
    if (rr[0] != -rr[1]) {
        st = spt__err(SPT_EINVAL,
                      "%s: the factor matrices must be the same on every rank, but their column counts "
                      "differ between ranks (%lld..%lld)",
                      fn, (long long)-rr[1], (long long)rr[0]);
        goto fail;
    }
    for (int64_t k = 0; k < nfactors; k++) { /* and hold the same values (shape and content checksum) */
        char what[32];
        snprintf(what, sizeof what, "factor %lld", (long long)k);
        if (k != mode) SPT__CHECK(spt__mpi_same_dense(ctx, fn, what, factors[k]));
    }
    if (ctx->size == 1) {
        if ((st = spt_mttkrp(p, factors, nfactors, mode, out)) != SPT_OK)
            st = spt__mpi_rename_err(fn, "spt_mttkrp", st);
        return spt__mpi_agree(ctx, fn, st);
    }
    int64_t lo = 0, rows = spt__mpi_mode_window(p, mode, &lo);
    const int64_t M = p->shape[mode];
    for (int64_t k = 0; k < nfactors; k++) fs[k] = factors[k];
    if (spt__mpi_mttkrp_all_rows(p, mode, rows, R, ctx->size))
        return spt__mpi_mttkrp_window(ctx, fn, st, p, NULL, fs, nfactors, mode, 0, M, M, R, root, out);
    fs[mode] = NULL; /* the window's rows are not the factor's */
    st = shifted_piece(fn, p, mode, lo, rows, &sh);
    return spt__mpi_mttkrp_window(ctx, fn, st, sh, sh, fs, nfactors, mode, lo, rows, M, R, root, out);
fail:
    return st;
}

bool spt__mpi_mttkrp_all_rows(const spt_tensor *p, int64_t mode, int64_t rows, int64_t R, int P) {
    /* The copy costs (8 rank + s) bytes an entry; all M rows instead of the window cost (M - rows) R s bytes
     * more to zero, fill and send, and the root receives them from every rank: all the rows when P times
     * that is at most the copy (the root's buffer then grows by at most the average copy). */
    const double es = (double)spt_dtype_size(p->dtype), extra = (double)(p->shape[mode] - rows) * (double)R * es;
    return extra * P <= (double)p->nnz * (8.0 * (double)p->rank + es);
}

spt_status spt__mpi_mttkrp_window(spt_mpi_ctx *ctx, const char *fn, spt_status st, const spt_tensor *piece,
                                  spt_tensor *owned, const spt_dense *const *fs, int64_t nf, int64_t mode, int64_t lo,
                                  int64_t rows, int64_t M, int64_t R, int root, spt_dense **out) {
    spt_dense *blk = NULL;
    const spt_dtype dt = piece ? piece->dtype : SPT_FLOAT64;
    if (st == SPT_OK && (st = spt_mttkrp(piece, fs, nf, mode, &blk)) != SPT_OK)
        st = spt__mpi_rename_err(fn, "spt_mttkrp", st);
    spt_tensor_free(owned);
    SPT__AGREE(ctx, fn);
    st = spt__mpi_sum_windows(ctx, fn, dt, blk->data, lo, rows, M, R, root, out);
fail:
    spt_dense_free(blk);
    return st;
}
