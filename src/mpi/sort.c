/* SPDX-License-Identifier: Apache-2.0 */
/* sort.c -- the parallel sample sort behind from_local, reorder, concat, add and reduce_sum: the local
 * sort is the serial library's (its key engine, threaded), the splitters are found by an exact multiway
 * selection over the sorted pieces (split.c), the entries move in one all-to-all straight from and into
 * tensor buffers (exchange_sorted.c), and each rank merges its P sorted runs once (merge.c). At P = 1
 * only the local sort runs. */
#include "priv/mpi_priv.h"

/* ---- local sort ---------------------------------------------------------------------------------- */

static bool known_sorted_by(const spt_tensor *t, const int64_t *ord) {
    if (!(t->flags & SPT__F_VALID) || !(t->flags & SPT__F_SORTED)) return false;
    for (int64_t d = 0; d < t->rank; d++)
        if (t->order[d] != ord[d]) return false;
    return true;
}

spt_status spt__mpi_local_sort(const char *fn, const spt_tensor *t, const int64_t *order, const spt_tensor **s,
                               spt_tensor **own) {
    int64_t ord[SPT_MAX_RANK];
    for (int64_t d = 0; d < t->rank; d++) ord[d] = order ? order[d] : d;
    *own = NULL;
    *s = t;
    if (known_sorted_by(t, ord)) return SPT_OK;
    spt_status st = spt_reordered(t, ord, own);
    if (st != SPT_OK) {
        /* name the distributed op, not the serial one ("spt_reordered: x" -> "fn: x") */
        static const char pre[] = "spt_reordered: ";
        const char *m = spt_last_error();
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", strncmp(m, pre, sizeof pre - 1) ? m : m + sizeof pre - 1);
        return spt__err(st, "%s: %s", fn, buf);
    }
    *s = *own;
    return SPT_OK;
}

/* ---- the sort ------------------------------------------------------------------------------------ */

spt_status spt__mpi_sort(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const int64_t *order,
                         bool key_aligned, spt_tensor **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size;
    const spt_tensor *s = NULL;
    spt_tensor *own = NULL;
    int64_t *pos = NULL, ord[SPT_MAX_RANK];
    *out = NULL;
    if (order) {
        st = spt__check_order(fn, t->rank, order);
        if (st == SPT_OK && t->rank > 0 && !spt__order_defined(t->rank, order))
            st = spt__err(SPT_EINVAL, "%s: order must be a permutation of the %lld dims", fn, (long long)t->rank);
    }
    for (int64_t d = 0; d < t->rank; d++) ord[d] = order ? order[d] : d;
    double t0 = spt__mpi_now();
    if (st == SPT_OK) st = spt__mpi_local_sort(fn, t, ord, &s, &own);
    if (st == SPT_OK && P == 1 && !own) st = spt_tensor_clone(t, &own); /* the result is a new tensor */
    ctx->phase[SPT_MPI_PHASE_LOCAL] += spt__mpi_now() - t0;
    if (st == SPT_OK && P > 1) pos = spt__alloc_array(fn, P + 1, 1, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    if (P == 1) { /* no exchange: the local sort is the result */
        *out = own;
        own = NULL;
        goto fail;
    }
    SPT__CHECK(spt__mpi_split(ctx, fn, 1, &s, ord, key_aligned, pos));
    SPT__CHECK(spt__mpi_exchange_sorted(ctx, fn, 1, &s, pos, ord, NULL, out));
fail:
    spt__free(pos);
    spt_tensor_free(own);
    return st;
}

