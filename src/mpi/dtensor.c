/* SPDX-License-Identifier: Apache-2.0 */
/* dtensor.c -- distributed tensors: make, accessors, redistribute from pieces, scatter, gather,
 * reorder. */
#include "priv/mpi_priv.h"

spt_status spt__dtensor_make(spt_mpi_ctx *ctx, const char *fn, spt_tensor *local, spt_dtensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    *out = NULL;
    spt_dtensor *d = spt__calloc(1, sizeof *d);
    if (d) d->counts = spt__alloc_array(fn, 2 * (int64_t)P + 1, 1, sizeof(int64_t), true, &st);
    else st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    SPT__AGREE(ctx, fn);
    d->offsets = d->counts + P;
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, &local->nnz, 1, d->counts));
    memcpy(d->offsets, d->counts, (size_t)P * sizeof *d->offsets);
    d->nnz = d->offsets[P] = spt__scan_exclusive(d->offsets, P);
    d->ctx = ctx;
    d->local = local;
    *out = d;
    return SPT_OK;
fail:
    if (d) spt__free(d->counts);
    spt__free(d);
    spt_tensor_free(local);
    return st;
}

void spt_dtensor_free(spt_dtensor *dt) {
    if (!dt) return;
    spt_tensor_free(dt->local);
    spt__free(dt->counts);
    spt__free(dt);
}

spt_mpi_ctx *spt_dtensor_ctx(const spt_dtensor *dt) { return dt ? dt->ctx : NULL; }
spt_dtype spt_dtensor_dtype(const spt_dtensor *dt) { return dt->local->dtype; }
int64_t spt_dtensor_rank(const spt_dtensor *dt) { return dt->local->rank; }
const int64_t *spt_dtensor_shape(const spt_dtensor *dt) { return dt->local->shape; }
const int64_t *spt_dtensor_order(const spt_dtensor *dt) { return dt->local->order; }
int64_t spt_dtensor_nnz(const spt_dtensor *dt) { return dt->nnz; }
const spt_tensor *spt_dtensor_local(const spt_dtensor *dt) { return dt->local; }
int64_t spt_dtensor_count(const spt_dtensor *dt, int p) { return p >= 0 && p < dt->ctx->size ? dt->counts[p] : -1; }
int64_t spt_dtensor_offset(const spt_dtensor *dt, int p) { return p >= 0 && p < dt->ctx->size ? dt->offsets[p] : -1; }

/* ---- metadata agreement -------------------------------------------------------------------------- */

#define META_LEN (2 + 2 * SPT_MAX_RANK)

static void fmt_meta(char *buf, size_t cap, const int64_t *m) {
    char s[SPT__IDXBUF], o[SPT__IDXBUF];
    spt__fmt_index(s, sizeof s, m + 2, m[1]);
    spt__fmt_index(o, sizeof o, m + 2 + SPT_MAX_RANK, m[1]);
    snprintf(buf, cap, "dtype %s, rank %lld, shape %s, order %s",
             spt_dtype_name((spt_dtype)m[0]) ? spt_dtype_name((spt_dtype)m[0]) : "?", (long long)m[1], s, o);
}

spt_status spt__mpi_same_meta(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order) {
    spt_status st = SPT_OK;
    int64_t mine[META_LEN], root[META_LEN];
    memset(mine, 0, sizeof mine);
    if (!t) st = spt__err(SPT_EINVAL, "%s: the local piece is NULL", fn);
    else {
        mine[0] = t->dtype;
        mine[1] = t->rank;
        for (int64_t j = 0; j < t->rank; j++) {
            mine[2 + j] = t->shape[j];
            mine[2 + SPT_MAX_RANK + j] = order ? order[j] : j;
        }
        if (order) {
            st = spt__check_order(fn, t->rank, order);
            if (st == SPT_OK && t->rank > 0 && !spt__order_defined(t->rank, order))
                st = spt__err(SPT_EINVAL, "%s: order must be a permutation of the %lld dims", fn, (long long)t->rank);
        }
    }
    SPT__AGREE(ctx, fn);
    memcpy(root, mine, sizeof root);
    SPT__CHECK(spt__mpi_bcast_bytes(ctx, fn, root, sizeof root, 0));
    ctx->payload_bytes -= ctx->rank == 0 ? (int64_t)sizeof root * (ctx->size - 1) : 0;
    ctx->meta_bytes += ctx->rank == 0 ? (int64_t)sizeof root * (ctx->size - 1) : 0;
    if (memcmp(root, mine, sizeof root) != 0) {
        char a[600], b[600];
        fmt_meta(a, sizeof a, mine);
        fmt_meta(b, sizeof b, root);
        st = spt__err(SPT_EINVAL, "%s: piece metadata (%s) differs from rank 0's (%s)", fn, a, b);
    }
    SPT__AGREE(ctx, fn);
fail:
    return st;
}

/* ---- constructors -------------------------------------------------------------------------------- */

spt_status spt_dtensor_from_local(spt_mpi_ctx *ctx, const spt_tensor *piece, const int64_t *order, spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_from_local";
    spt_status st;
    if (!ctx) return spt__err(SPT_EINVAL, "%s: ctx is NULL", fn);
    st = out ? SPT_OK : spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    if (out) *out = NULL;
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_same_meta(ctx, fn, piece, order));
    spt_tensor *local = NULL;
    SPT__CHECK(spt__mpi_sort(ctx, fn, piece, order, false, &local));
    st = spt__dtensor_make(ctx, fn, local, out);
fail:
    return st;
}

spt_status spt_dtensor_scatter(spt_mpi_ctx *ctx, int root, const spt_tensor *t, const int64_t *order,
                               spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_scatter";
    spt_status st = SPT_OK;
    if (!ctx) return spt__err(SPT_EINVAL, "%s: ctx is NULL", fn);
    const int P = ctx->size, me = ctx->rank;
    spt_tensor *empty = NULL, *local = NULL, *own = NULL;
    const spt_tensor *s = NULL;
    int64_t *sc = NULL;
    if (out) *out = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (root < 0 || root >= P) st = spt__err(SPT_EINVAL, "%s: root %d is not a rank in [0, %d)", fn, root, P);
    else if (me == root && !t) st = spt__err(SPT_EINVAL, "%s: the tensor is NULL on the root", fn);
    SPT__AGREE(ctx, fn);
    int64_t meta[3 + SPT_MAX_RANK];
    memset(meta, 0, sizeof meta);
    if (me == root) {
        meta[0] = t->dtype;
        meta[1] = t->rank;
        meta[2] = t->nnz;
        for (int64_t j = 0; j < t->rank; j++) meta[3 + j] = t->shape[j];
    }
    SPT__CHECK(spt__mpi_bcast_bytes(ctx, fn, meta, sizeof meta, root));
    const int64_t r = meta[1], N = meta[2];
    if (order) {
        st = spt__check_order(fn, r, order);
        if (st == SPT_OK && r > 0 && !spt__order_defined(r, order))
            st = spt__err(SPT_EINVAL, "%s: order must be a permutation of the %lld dims", fn, (long long)r);
    }
    if (st == SPT_OK) sc = spt__alloc_array(fn, P, 1, sizeof(int64_t), true, &st);
    if (sc && me != root) st = spt__tensor_alloc(fn, (spt_dtype)meta[0], r, meta + 3, 0, NULL, &empty);
    if (sc && me == root) { /* the root sorts (the serial library), then sends blocks in order */
        st = spt__mpi_local_sort(fn, t, order, &s, &own);
        for (int q = 0; q < P; q++) sc[q] = spt__mpi_block_count(N, q, P);
    }
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_exchange(ctx, fn, me == root ? s : empty, sc, order, NULL, &local));
    st = spt__dtensor_make(ctx, fn, local, out);
fail:
    spt_tensor_free(own);
    spt__free(sc);
    spt_tensor_free(empty);
    return st;
}

spt_status spt_dtensor_gather(const spt_dtensor *dt, int root, spt_tensor **out) {
    static const char fn[] = "spt_dtensor_gather";
    spt_status st = SPT_OK;
    if (!dt) return spt__err(SPT_EINVAL, "%s: dtensor is NULL", fn);
    spt_mpi_ctx *ctx = dt->ctx;
    const int P = ctx->size;
    int64_t *sc = NULL;
    spt_tensor *got = NULL;
    if (out) *out = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (root < 0 || root >= P) st = spt__err(SPT_EINVAL, "%s: root %d is not a rank in [0, %d)", fn, root, P);
    if (st == SPT_OK) sc = spt__alloc_array(fn, P, 1, sizeof(int64_t), true, &st);
    SPT__AGREE(ctx, fn);
    sc[root] = dt->local->nnz;
    SPT__CHECK(spt__mpi_exchange(ctx, fn, dt->local, sc, dt->local->order, NULL, &got));
    if (ctx->rank == root) {
        if (!spt__order_defined(got->rank, got->order)) got->flags &= ~(unsigned)(SPT__F_SORTED | SPT__F_UNIQUE);
        *out = got;
        got = NULL;
    }
fail:
    spt_tensor_free(got);
    spt__free(sc);
    return st;
}

/* Re-sort in place. P > 1 and packable keys: the MSD radix sort (sort.c) straight from the local piece,
 * which it leaves untouched until nothing can fail any more (then a balanced dtensor gets the result in
 * its own buffers). Otherwise the local piece is sorted in place by the serial library (no copy), then
 * splitters, one exchange and the merge (P = 1: the local sort only). On an agreed failure the pieces
 * that were already re-sorted are sorted back (stably: entries equal under one full order are equal
 * under every other, so the original sequence returns). */
spt_status spt_dtensor_reorder(spt_dtensor *dt, const int64_t *order) {
    static const char fn[] = "spt_dtensor_reorder";
    spt_status st = SPT_OK;
    if (!dt) return spt__err(SPT_EINVAL, "%s: dtensor is NULL", fn);
    spt_mpi_ctx *ctx = dt->ctx;
    const int P = ctx->size;
    spt_tensor *local = NULL;
    spt_dtensor *nd = NULL;
    int64_t *pos = NULL, ord[SPT_MAX_RANK], old[SPT_MAX_RANK];
    bool sorted_here = false;
    SPT__CHECK(spt__mpi_same_meta(ctx, fn, dt->local, order)); /* every rank asks for the same order */
    const int64_t r = dt->local->rank;
    for (int64_t d = 0; d < r; d++) {
        ord[d] = order ? order[d] : d;
        old[d] = dt->local->order[d];
    }
    if (P > 1) { /* packable keys: the MSD radix sort straight from the local piece, which stays as it is */
        SPT__CHECK(spt__mpi_msd_sort(ctx, fn, dt->local, ord, dt->local, &local));
        if (local == dt->local) { /* re-sorted in place: the counts stand */
            local = NULL;
            goto fail;
        }
        if (local) goto swap;
    }
    double t0 = spt__mpi_now();
    st = spt_reorder(dt->local, ord); /* valid entries: only an allocation can fail, before any write */
    sorted_here = st == SPT_OK;
    ctx->phase[SPT_MPI_PHASE_LOCAL] += spt__mpi_now() - t0;
    if (st == SPT_OK && P > 1) pos = spt__alloc_array(fn, P + 1, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    if (P == 1) goto fail; /* done: one rank holds everything, the counts stand */
    {
        const spt_tensor *s = dt->local;
        SPT__CHECK(spt__mpi_split(ctx, fn, 1, &s, ord, false, pos));
        SPT__CHECK(spt__mpi_exchange_sorted(ctx, fn, 1, &s, pos, ord, NULL, NULL, &local));
    }
swap:
    st = spt__dtensor_make(ctx, fn, local, &nd); /* takes local, also on failure */
    local = NULL;
    if (st != SPT_OK) goto fail;
    /* swap the new contents in; dt keeps its address */
    spt_dtensor tmp = *dt;
    *dt = *nd;
    *nd = tmp;
    spt_dtensor_free(nd);
    sorted_here = false;
fail:
    if (st != SPT_OK && sorted_here && P > 1) (void)spt_reorder(dt->local, old);
    spt_tensor_free(local);
    spt__free(pos);
    return st;
}
