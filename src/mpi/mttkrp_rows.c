/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_rows.c -- distributed MTTKRP with the factor matrices in row blocks. Each rank needs, of
 * factor k, only the distinct rows u_k its entries read in mode k. Two ways to get them, chosen from
 * the communication model's byte estimate (bench/results/mpi/MODEL.md) unless forced: fetch exactly
 * those rows from their owners (8 bytes of request and R values back per row, as
 * spt_dtensor_sparse_dense_matmul_rows does for B), or replicate every factor (an all-to-all of the
 * blocks: I_k R values per rank). Either way the rank then holds the same compact factors (its u_k
 * rows, ascending) and runs the serial spt_mttkrp on its piece with the indices renumbered into them
 * (and the kept mode's shifted to its window of output rows), so the two ways give the same bits; the
 * windows are summed on the root in rank order as in spt_dtensor_mttkrp. */
#include "priv/mpi_priv.h"

typedef struct fpart {
    int64_t *info;   /* the blocks of the factor (spt__mpi_rows_blocks) */
    int64_t *need;   /* the distinct rows my entries read, ascending (nk of them) */
    int64_t nk, own; /* own: how many of them are in my block */
    char *rows;      /* nk x R values: the compact factor */
} fpart;

/* The local checks of the arguments (before any collective). */
static spt_status local_checks(const char *fn, const spt_tensor *p, const spt_dense *const *fr, const int64_t *begin,
                               int64_t nf, int64_t mode, spt_mpi_factors how, int root, int P, spt_dense **out) {
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    if (root < -1 || root >= P) return spt__err(SPT_EINVAL, "%s: root %d is not -1 or a rank in [0, %d)", fn, root, P);
    if ((int)how < SPT_MPI_FACTORS_AUTO || (int)how > SPT_MPI_FACTORS_FETCH)
        return spt__err(SPT_EINVAL, "%s: how %d is not SPT_MPI_FACTORS_AUTO, _REPLICATE or _FETCH", fn, (int)how);
    if (!fr || !begin) return spt__err(SPT_EINVAL, "%s: factor_rows or row_begin is NULL", fn);
    if (p->rank < 2)
        return spt__err(SPT_EINVAL, "%s: the tensor must have rank >= 2, not %lld", fn, (long long)p->rank);
    if (nf != p->rank)
        return spt__err(SPT_EINVAL,
                        "%s: %lld factors given for a rank-%lld tensor (one per mode, the kept mode's ignored)", fn,
                        (long long)nf, (long long)p->rank);
    if (mode < 0 || mode >= nf)
        return spt__err(SPT_ERANGE, "%s: mode %lld is out of range [0, %lld)", fn, (long long)mode, (long long)nf);
    for (int64_t k = 0; k < nf; k++) {
        if (k == mode) continue;
        if (!fr[k]) return spt__err(SPT_EINVAL, "%s: factor %lld is NULL", fn, (long long)k);
        if (fr[k]->rank != 2)
            return spt__err(SPT_EINVAL, "%s: factor %lld must be a matrix, not rank %lld", fn, (long long)k,
                            (long long)fr[k]->rank);
        if (begin[k] < 0)
            return spt__err(SPT_EINVAL, "%s: row_begin[%lld] is %lld", fn, (long long)k, (long long)begin[k]);
    }
    return SPT_OK;
}

/* The blocks of every factor (gathered, in order), their total rows against the tensor's dims, and the
 * serial op's checks on an empty tensor with factors of the full shapes (dtype, columns); *R the
 * columns. Collective; errors agreed. */
static spt_status blocks_and_probe(spt_mpi_ctx *ctx, const char *fn, spt_status st, const spt_tensor *p,
                                   const spt_dense *const *fr, const int64_t *begin, int64_t nf, int64_t mode,
                                   fpart *fp, int64_t *R) {
    SPT__AGREE(ctx, fn);
    for (int64_t k = 0; k < nf; k++) {
        if (k == mode) continue;
        int64_t total = 0;
        SPT__CHECK(spt__mpi_rows_blocks(ctx, fn, st, fr[k], begin[k], &fp[k].info, &total));
        if (total != p->shape[k]) {
            st = spt__err(SPT_EINVAL,
                          "%s: the row blocks of factor %lld cover %lld rows, mode %lld of the tensor has "
                          "size %lld",
                          fn, (long long)k, (long long)total, (long long)k, (long long)p->shape[k]);
            goto fail;
        }
    }
    spt_dense whole[SPT_MAX_RANK];
    int64_t shp[SPT_MAX_RANK][2];
    const spt_dense *fs[SPT_MAX_RANK];
    for (int64_t k = 0; k < nf; k++) {
        fs[k] = NULL;
        if (k == mode) continue;
        shp[k][0] = p->shape[k];
        shp[k][1] = fp[k].info[2];
        whole[k] = (spt_dense){.dtype = fr[k]->dtype, .rank = 2, .shape = shp[k], .data = fr[k]->data};
        fs[k] = &whole[k]; /* not read: the probe tensor is empty */
    }
    spt_tensor *e = NULL;
    spt_dense *d = NULL;
    st = spt__tensor_alloc(fn, p->dtype, p->rank, p->shape, 0, NULL, &e);
    if (st == SPT_OK && (st = spt_mttkrp(e, fs, nf, mode, &d)) != SPT_OK)
        st = spt__mpi_rename_err(fn, "spt_mttkrp", st);
    if (st == SPT_OK) *R = d->shape[1];
    spt_dense_free(d);
    spt_tensor_free(e);
    SPT__AGREE(ctx, fn);
fail:
    return st;
}

/* Replicate factor k: every rank's block to every rank (one all-to-all), then my needed rows copied out.
 * Collective; errors agreed. */
static spt_status replicate(spt_mpi_ctx *ctx, const char *fn, const spt_dense *blk, fpart *f, int64_t dim, int64_t R,
                            size_t es) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    const int64_t row = R * (int64_t)es;
    char *full = spt__alloc_array(fn, dim > 0 ? dim : 1, row > 0 ? row : 1, 1, false, &st);
    int64_t *c = full ? spt__alloc_array(fn, 4, P, sizeof(int64_t), true, &st) : NULL;
    SPT__AGREE(ctx, fn);
    for (int q = 0; q < P; q++) {
        c[q] = q == me ? 0 : f->info[3 * me + 1] * row;
        c[2 * P + q] = q == me ? 0 : f->info[3 * q + 1] * row;
        c[3 * P + q] = f->info[3 * q] * row;
    }
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, blk->data, c, c + P, full, c + 2 * P, c + 3 * P));
    if (f->info[3 * me + 1] > 0) memcpy(full + f->info[3 * me] * row, blk->data, (size_t)(f->info[3 * me + 1] * row));
    for (int64_t i = 0; i < f->nk; i++) memcpy(f->rows + i * row, full + f->need[i] * row, (size_t)row);
fail:
    spt__free(c);
    spt__free(full);
    return st;
}

/* Fetch factor k's needed rows from their owners. Collective; errors agreed. */
static spt_status fetch(spt_mpi_ctx *ctx, const char *fn, const spt_dense *blk, int64_t begin, fpart *f, int64_t R,
                        size_t es) {
    spt_status st = SPT_OK;
    spt__mpi_rows_fetch rf = {.info = f->info,
                              .need = f->need,
                              .nk = f->nk,
                              .BC = R,
                              .NC = R,
                              .b_begin = begin,
                              .adjoint_b = false,
                              .es = es};
    st = spt__mpi_rows_requests(fn, ctx->size, ctx->rank, &rf);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_rows_exchange(ctx, fn, &rf, blk, f->rows));
fail:
    spt__free(rf.req);
    spt__free(rf.cnt);
    return st;
}

/* My piece with mode k's index renumbered into the needed rows of factor k (k != mode) and the kept
 * mode's shifted by -lo into [0, rows). Local. */
static spt_status compact_piece(const char *fn, const spt_tensor *t, const fpart *fp, int64_t mode, int64_t lo,
                                int64_t rows, spt_tensor **out) {
    int64_t shape[SPT_MAX_RANK];
    const int64_t r = t->rank, n = t->nnz;
    for (int64_t k = 0; k < r; k++) shape[k] = k == mode ? rows : fp[k].nk;
    const bool sorted = (t->flags & SPT__F_SORTED) != 0;
    spt_status st = spt__tensor_alloc_uninit(fn, t->dtype, r, shape, n, sorted ? t->order : NULL, out);
    if (st != SPT_OK || n == 0) return st;
    int64_t *ix = (*out)->indices;
    memcpy(ix, t->indices, (size_t)(n * r) * sizeof(int64_t));
    for (int64_t k = 0; k < r; k++) {
        if (k == mode) {
            for (int64_t i = 0; i < n; i++) ix[i * r + k] -= lo;
            continue;
        }
        int64_t *map = NULL, dim = t->shape[k];
        if (dim / 4 <= n + 4096) map = spt__alloc_array(fn, dim, 1, sizeof(int64_t), false, &st);
        if (map) { /* a table of positions when the dim is not much longer than the entries */
            for (int64_t c = 0; c < fp[k].nk; c++) map[fp[k].need[c]] = c;
            for (int64_t i = 0; i < n; i++) ix[i * r + k] = map[ix[i * r + k]];
            spt__free(map);
        } else {
            st = SPT_OK;
            for (int64_t i = 0; i < n; i++) ix[i * r + k] = spt__mpi_lower_i64(fp[k].need, fp[k].nk, ix[i * r + k]);
        }
    }
    memcpy((*out)->values, t->values, (size_t)n * spt_dtype_size(t->dtype));
    /* every renumbering is increasing: t's order and distinctness carry over (the serial op then needs
     * no sort of its own) */
    (*out)->flags = SPT__F_VALID | (t->flags & (SPT__F_SORTED | SPT__F_UNIQUE));
    return SPT_OK;
}

/* The needed rows of every factor, the way to get them (the model's bytes, agreed), then the rows.
 * Collective; errors agreed. */
static spt_status gather_factors(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *p, const spt_dense *const *fr,
                                 const int64_t *begin, int64_t nf, int64_t mode, spt_mpi_factors how, int64_t R,
                                 fpart *fp, spt_mpi_factors *taken) {
    spt_status st = SPT_OK;
    const int me = ctx->rank;
    const int64_t n = p->nnz;
    const size_t es = spt_dtype_size(p->dtype);
    int64_t cost[2] = {0, 0}; /* bytes this rank would receive: fetching | replicating */
    for (int64_t k = 0; k < nf && st == SPT_OK; k++) {
        if (k == mode) continue;
        fp[k].need = spt__alloc_array(fn, n > 0 ? n : 1, 1, sizeof(int64_t), false, &st);
        if (fp[k].need) st = spt__mpi_rows_needed(fn, p, (int)k, p->shape[k], fp[k].need, &fp[k].nk);
        if (st == SPT_OK) fp[k].rows = spt__alloc_array(fn, fp[k].nk > 0 ? fp[k].nk : 1, R > 0 ? R : 1, es, false, &st);
        const int64_t b0 = fp[k].info[3 * me], b1 = b0 + fp[k].info[3 * me + 1];
        for (int64_t c = 0; c < fp[k].nk; c++) fp[k].own += fp[k].need[c] >= b0 && fp[k].need[c] < b1;
        cost[0] += (fp[k].nk - fp[k].own) * (8 + R * (int64_t)es);
        cost[1] += (p->shape[k] - (b1 - b0)) * R * (int64_t)es;
    }
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_allreduce_i64(ctx, fn, cost, 2, MPI_MAX));
    const bool fetching = how == SPT_MPI_FACTORS_FETCH || (how == SPT_MPI_FACTORS_AUTO && cost[0] < cost[1]);
    if (taken) *taken = fetching ? SPT_MPI_FACTORS_FETCH : SPT_MPI_FACTORS_REPLICATE;
    for (int64_t k = 0; k < nf; k++) {
        if (k == mode) continue;
        if (fetching) SPT__CHECK(fetch(ctx, fn, fr[k], begin[k], &fp[k], R, es));
        else SPT__CHECK(replicate(ctx, fn, fr[k], &fp[k], p->shape[k], R, es));
    }
fail:
    return st;
}

spt_status spt_dtensor_mttkrp_rows(const spt_dtensor *t, const spt_dense *const *factor_rows, const int64_t *row_begin,
                                   int64_t nfactors, int64_t mode, spt_mpi_factors how, int root, spt_dense **out,
                                   spt_mpi_factors *taken) {
    static const char fn[] = "spt_dtensor_mttkrp_rows";
    if (out) *out = NULL;
    if (taken) *taken = SPT_MPI_FACTORS_AUTO;
    if (!t) return spt__err(SPT_EINVAL, "%s: T is NULL", fn);
    spt_mpi_ctx *ctx = t->ctx;
    const spt_tensor *p = t->local;
    fpart fp[SPT_MAX_RANK];
    memset(fp, 0, sizeof fp);
    spt_tensor *sh = NULL;
    int64_t R = 0;
    const int64_t nf = nfactors > 0 && nfactors <= SPT_MAX_RANK ? nfactors : 0;
    spt_status st = local_checks(fn, p, factor_rows, row_begin, nfactors, mode, how, root, ctx->size, out);
    SPT__CHECK(blocks_and_probe(ctx, fn, st, p, factor_rows, row_begin, nf, mode, fp, &R));
    if (ctx->size == 1) { /* one block per factor, the whole of it: the serial op (nothing moves either way) */
        if (taken) *taken = how == SPT_MPI_FACTORS_FETCH ? SPT_MPI_FACTORS_FETCH : SPT_MPI_FACTORS_REPLICATE;
        if ((st = spt_mttkrp(p, factor_rows, nfactors, mode, out)) != SPT_OK)
            st = spt__mpi_rename_err(fn, "spt_mttkrp", st);
        goto fail;
    }
    SPT__CHECK(gather_factors(ctx, fn, p, factor_rows, row_begin, nf, mode, how, R, fp, taken));
    int64_t lo = 0;
    const int64_t rows = spt__mpi_mode_window(p, mode, &lo);
    bool all_rows = true; /* every factor's rows came, in order: the renumbering would be the identity */
    for (int64_t k = 0; k < nf; k++) all_rows = all_rows && (k == mode || fp[k].nk == p->shape[k]);
    spt_dense cf[SPT_MAX_RANK];
    int64_t shp[SPT_MAX_RANK][2];
    const spt_dense *fs[SPT_MAX_RANK];
    for (int64_t k = 0; k < nf; k++) {
        fs[k] = NULL;
        if (k == mode) continue;
        shp[k][0] = fp[k].nk;
        shp[k][1] = R;
        cf[k] = (spt_dense){.dtype = p->dtype, .rank = 2, .shape = shp[k], .size = fp[k].nk * R, .data = fp[k].rows};
        fs[k] = &cf[k];
    }
    if (all_rows && spt__mpi_mttkrp_all_rows(p, mode, rows, R, ctx->size)) { /* the piece as it is */
        st = spt__mpi_mttkrp_window(ctx, fn, st, p, NULL, fs, nf, mode, 0, p->shape[mode], p->shape[mode], R, root,
                                    out);
    } else {
        st = compact_piece(fn, p, fp, mode, lo, rows, &sh);
        st = spt__mpi_mttkrp_window(ctx, fn, st, sh, sh, fs, nf, mode, lo, rows, p->shape[mode], R, root, out);
    }
fail:
    for (int64_t k = 0; k < SPT_MAX_RANK; k++) {
        spt__free(fp[k].info);
        spt__free(fp[k].need);
        spt__free(fp[k].rows);
    }
    return st;
}
