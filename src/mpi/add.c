/* SPDX-License-Identifier: Apache-2.0 */
/* add.c -- distributed tf.sparse.add: both operands cut at the same key boundaries (splitters on their
 * union, no key on two ranks), moved in one exchange, and the serial spt_add on each rank's part. */
#include "priv/mpi_priv.h"

/* "spt_add: x" -> "fn: x" */
static spt_status rename_err(const char *fn, spt_status st) {
    static const char pre[] = "spt_add: ";
    const char *m = spt_last_error();
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", strncmp(m, pre, sizeof pre - 1) ? m : m + sizeof pre - 1);
    return spt__err(st, "%s: %s", fn, buf);
}

spt_status spt_dtensor_add(const spt_dtensor *a, const spt_dtensor *b, double thresh, spt_dtensor **out) {
    static const char fn[] = "spt_dtensor_add";
    spt_status st = SPT_OK;
    if (!a) return spt__err(SPT_EINVAL, "%s: a is NULL", fn);
    spt_mpi_ctx *ctx = a->ctx;
    const int P = ctx->size;
    spt_tensor *ea = NULL, *eb = NULL, *probe = NULL, *oa = NULL, *ob = NULL, *res = NULL;
    spt_tensor *got[2] = {NULL, NULL};
    int64_t *pos = NULL;
    if (out) *out = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (!b) st = spt__err(SPT_EINVAL, "%s: b is NULL", fn);
    else if (b->ctx != ctx) st = spt__err(SPT_EINVAL, "%s: b belongs to another context", fn);
    /* the serial op's checks on empty tensors with the operands' metadata (replicated: same everywhere) */
    if (st == SPT_OK) st = spt__tensor_alloc(fn, a->local->dtype, a->local->rank, a->local->shape, 0, NULL, &ea);
    if (st == SPT_OK) st = spt__tensor_alloc(fn, b->local->dtype, b->local->rank, b->local->shape, 0, NULL, &eb);
    if (st == SPT_OK && (st = spt_add(ea, eb, thresh, &probe)) != SPT_OK) st = rename_err(fn, st);
    SPT__AGREE(ctx, fn);
    double t0 = spt__mpi_now();
    if (P == 1) { /* the serial op on the pieces */
        if ((st = spt_add(a->local, b->local, thresh, &res)) != SPT_OK) st = rename_err(fn, st);
        ctx->phase[SPT_MPI_PHASE_LOCAL] += spt__mpi_now() - t0;
        SPT__AGREE(ctx, fn);
    } else {
        const spt_tensor *s[2] = {NULL, NULL};
        st = spt__mpi_local_sort(fn, a->local, NULL, &s[0], &oa);
        if (st == SPT_OK) st = spt__mpi_local_sort(fn, b->local, NULL, &s[1], &ob);
        ctx->phase[SPT_MPI_PHASE_LOCAL] += spt__mpi_now() - t0;
        if (st == SPT_OK) pos = spt__alloc_array(fn, 2, P + 1, sizeof(int64_t), false, &st);
        SPT__AGREE(ctx, fn);
        int64_t ord[SPT_MAX_RANK];
        for (int64_t d = 0; d < a->local->rank; d++) ord[d] = d;
        SPT__CHECK(spt__mpi_split(ctx, fn, 2, s, ord, true, pos));
        SPT__CHECK(spt__mpi_exchange_sorted(ctx, fn, 2, s, pos, ord, NULL, NULL, got));
        t0 = spt__mpi_now();
        if ((st = spt_add(got[0], got[1], thresh, &res)) != SPT_OK) st = rename_err(fn, st);
        ctx->phase[SPT_MPI_PHASE_LOCAL] += spt__mpi_now() - t0;
        SPT__AGREE(ctx, fn);
    }
    st = spt__dtensor_make(ctx, fn, res, out);
    res = NULL;
fail:
    spt_tensor_free(res);
    spt_tensor_free(got[0]);
    spt_tensor_free(got[1]);
    spt_tensor_free(oa);
    spt_tensor_free(ob);
    spt_tensor_free(probe);
    spt_tensor_free(ea);
    spt_tensor_free(eb);
    spt__free(pos);
    return st;
}
