/* SPDX-License-Identifier: Apache-2.0 */
/* sparsify.c -- distributed spt_sparsify: the outer index space cut into one contiguous block per rank
 * (balanced by the inner elements and dependent indices of the keys), the sparse map replicated, the
 * elements of T each block needs pushed to its owner in one exchange, then the serial block builder
 * (spt_sparsify_block) on what arrived. And the gather of the blocks into one ToT. */
#include "priv/mpi_priv.h"
#include "tot/tot_internal.h"

/* Linear row-major index of an outer index (inside a shape whose volume fits). */
static int64_t outer_linear(const int64_t *o, const int64_t *shape, int64_t r) {
    int64_t lin = 0;
    for (int64_t k = 0; k < r; k++) lin = lin * shape[k] + o[k];
    return lin;
}

/* Last entry of t (sorted by kp) whose index row equals x, or -1. */
static int64_t find_last(const spt__keyplan *kp, const spt_tensor *t, const int64_t *x) {
    const int64_t r = t->rank;
    int64_t lo = 0, hi = t->nnz;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (spt__keyplan_cmp(kp, t->indices + mid * r, x) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && spt__keyplan_cmp(kp, t->indices + (lo - 1) * r, x) == 0 ? lo - 1 : -1;
}

/* First dependent row e in [lo, hi) of rows (stride D) with row[0] >= v. */
static int64_t dep_lower(const int64_t *rows, int64_t D, int64_t lo, int64_t hi, int64_t v) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (rows[mid * D] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Drop the serial builder's name from its message ("spt_sparsify_block: x" -> "x"): the agreement
 * prefixes "fn: rank r: ". */
static spt_status rename_err(const char *fn, spt_status st) {
    static const char pre[] = "spt_sparsify_block: ";
    const char *m = spt_last_error();
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", strncmp(m, pre, sizeof pre - 1) ? m : m + sizeof pre - 1);
    (void)fn;
    return spt__err(st, "%s", buf);
}

/* Inner volume of key i's domain (0 for an empty domain); false when it overflows int64. */
static bool key_volume(const spt_sparse_map *sm, int64_t i, int64_t *vol) {
    spt__dview v = spt__map_view(sm, i);
    int64_t w = v.n ? 1 : 0;
    for (int64_t j = 0; j < sm->dep_rank && v.n; j++)
        if (spt__mul_i64(w, v.moff[j + 1] - v.moff[j], &w)) return false;
    *vol = w;
    return true;
}

/* The partition, the same on every rank: key i goes to rank floor((W_before_i + w_i/2) * P / W) with
 * weight w_i = inner volume + dependent indices (0 for an empty domain). Rank p's outer block starts at
 * its first key (rank 0's at 0) and ends where the next one starts (the last at ovol). kb[p] = the
 * first key of rank p (P+1 entries), bounds[p] = the first outer index of rank p (P+1 entries). */
static spt_status sparsify_partition(const char *fn, const spt_sparse_map *sm, const int64_t *outer_shape, int64_t ovol,
                                     int P, int64_t *kb, int64_t *bounds) {
    const int64_t nk = sm->nkeys, NI = sm->ind_rank;
    unsigned __int128 W = 0, acc = 0;
    int64_t total = 0;
    for (int64_t i = 0; i < nk; i++) {
        int64_t vol;
        if (!key_volume(sm, i, &vol) || spt__add_i64(total, vol, &total))
            return spt__err(SPT_EOVERFLOW, "%s: the inner tensors hold more than INT64_MAX elements", fn);
        W += (unsigned __int128)vol + (unsigned __int128)(sm->off[i + 1] - sm->off[i]);
    }
    int q = 0;
    kb[0] = 0;
    for (int64_t i = 0; i < nk; i++) {
        int64_t vol = 0;
        key_volume(sm, i, &vol);
        unsigned __int128 w = (unsigned __int128)vol + (unsigned __int128)(sm->off[i + 1] - sm->off[i]);
        unsigned __int128 o = W ? (acc * 2 + w) * (unsigned)P / (W * 2) : 0;
        int owner = o > (unsigned)(P - 1) ? P - 1 : (int)o;
        while (q < owner) kb[++q] = i;
        acc += w;
    }
    while (q < P) kb[++q] = nk;
    bounds[0] = 0;
    for (int p = 1; p < P; p++) bounds[p] = kb[p] < nk ? outer_linear(sm->keys + kb[p] * NI, outer_shape, NI) : ovol;
    bounds[P] = ovol;
    return SPT_OK;
}

/* How the map's rows land on T's modes: pin[k] the mode of outer index k (-1: none), fm[j] the mode of
 * dependent component j; d0 the leading mode of the piece's order and [lo0, hi0] its range in the piece,
 * rmin/rmax the piece's first and last rows (the piece's range prunes whole keys or dependent rows). */
typedef struct sparsify_geom {
    int64_t pin[SPT_MAX_RANK], fm[SPT_MAX_RANK];
    int64_t d0, lo0, hi0;
    const int64_t *rmin, *rmax;
} sparsify_geom;

static void sparsify_geometry(const spt_tensor *t, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                              sparsify_geom *g) {
    const int64_t R = t->rank, n = t->nnz;
    int64_t ind_of[SPT_MAX_RANK];
    for (int64_t m = 0; m < R; m++) ind_of[m] = -1;
    for (int64_t k = 0; k < sm->ind_rank; k++) g->pin[k] = -1;
    for (int64_t p = 0; p < nmap; p++) {
        g->pin[ind2mode[2 * p]] = ind2mode[2 * p + 1];
        ind_of[ind2mode[2 * p + 1]] = ind2mode[2 * p];
    }
    for (int64_t m = 0, j = 0; m < R; m++)
        if (ind_of[m] < 0) g->fm[j++] = m;
    g->d0 = R > 0 ? t->order[0] : -1;
    g->lo0 = R > 0 ? t->indices[g->d0] : 0;
    g->hi0 = R > 0 ? t->indices[(n - 1) * R + g->d0] : 0;
    g->rmin = t->indices;
    g->rmax = t->indices + (n - 1) * R;
}

/* Mark (mark[pos] = q) the entries of the piece that the keys [k0, k1) of rank q read -- the last stored
 * of each needed index row, once -- and count them into *cnt. */
static void sparsify_mark(const spt__keyplan *kp, const spt_tensor *t, const spt_sparse_map *sm, const sparsify_geom *g,
                          int64_t k0, int64_t k1, int q, int64_t *mark, int64_t *cnt) {
    const int64_t R = t->rank, NI = sm->ind_rank, D = sm->dep_rank;
    int64_t x[SPT_MAX_RANK];
    for (int64_t i = k0; i < k1; i++) {
        const int64_t *o = sm->keys + i * NI;
        spt__dview v = spt__map_view(sm, i);
        if (!v.n) continue;
        bool skip = false;
        for (int64_t k = 0; k < NI; k++)
            if (g->pin[k] >= 0) {
                x[g->pin[k]] = o[k];
                if (g->pin[k] == g->d0 && (o[k] < g->lo0 || o[k] > g->hi0)) skip = true;
            }
        if (skip) continue;
        int64_t e0 = 0, e1 = v.n;
        if (R > 0 && D > 0 && g->fm[0] == g->d0) {
            e0 = dep_lower(v.idx, D, 0, v.n, g->lo0);
            e1 = dep_lower(v.idx, D, e0, v.n, g->hi0 + 1);
        }
        for (int64_t e = e0; e < e1; e++) {
            const int64_t *dep = v.idx + e * D;
            for (int64_t j = 0; j < D; j++) x[g->fm[j]] = dep[j];
            if (spt__keyplan_cmp(kp, x, g->rmin) < 0 || spt__keyplan_cmp(kp, x, g->rmax) > 0) continue;
            int64_t pos = find_last(kp, t, x);
            if (pos < 0 || mark[pos] == q) continue;
            mark[pos] = q;
            (*cnt)++;
        }
    }
}

/* The entries of my piece that each rank's keys read (among duplicates the last one wins), once per
 * destination, in my storage order: *snd holds them grouped by destination, cnt[q] of them for rank q.
 * Local. */
static spt_status sparsify_select(const char *fn, const spt_tensor *t, const spt_sparse_map *sm, int64_t nmap,
                                  const int64_t *ind2mode, const int64_t *kb, int P, int64_t *cnt, spt_tensor **snd) {
    spt_status st = SPT_OK;
    const int64_t R = t->rank, n = t->nnz;
    int64_t *mark = NULL, *sel = NULL, nsel = 0;
    if (n > 0) {
        spt__keyplan kp; /* rows compared in the piece's order: any shape */
        spt__mpi_plan(&kp, t, t->order);
        mark = spt__alloc_array(fn, n, 1, sizeof *mark, false, &st);
        bool sorted = true;
        for (int64_t i = 1; mark && i < n && sorted; i++)
            if (spt__keyplan_cmp(&kp, t->indices + (i - 1) * R, t->indices + i * R) > 0) sorted = false;
        if (st == SPT_OK && !sorted) st = spt__err(SPT_EINTERNAL, "%s: a local piece is not sorted", fn);
        if (st != SPT_OK) goto done;
        sparsify_geom g;
        sparsify_geometry(t, sm, nmap, ind2mode, &g);
        for (int64_t i = 0; i < n; i++) mark[i] = -1;
        for (int q = 0; q < P; q++) {
            sparsify_mark(&kp, t, sm, &g, kb[q], kb[q + 1], q, mark, &cnt[q]);
            if (!cnt[q]) continue;
            /* collect now: a later rank's walk may overwrite the marks */
            int64_t *ns = spt__realloc(sel, (size_t)(nsel + cnt[q]) * sizeof *sel);
            if (!ns) {
                st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
                goto done;
            }
            sel = ns;
            for (int64_t k = 0; k < n; k++)
                if (mark[k] == q) sel[nsel++] = k;
        }
    }
    st = spt__tensor_alloc(fn, t->dtype, R, t->shape, nsel, t->order, snd);
    if (st == SPT_OK) {
        const size_t es = spt_dtype_size(t->dtype);
        for (int64_t k = 0; k < nsel; k++) {
            if (R) memcpy((*snd)->indices + k * R, t->indices + sel[k] * R, (size_t)R * sizeof(int64_t));
            spt__copy_elem((*snd)->values, k, t->values, sel[k], es);
        }
        (*snd)->flags = SPT__F_VALID;
    }
done:
    spt__free(sel);
    spt__free(mark);
    return st;
}

/* The distributed sparsify of the piece t (sorted by its order, valid) of each rank. */
static spt_status sparsify_piece(spt_mpi_ctx *ctx, const char *fn, const spt_tensor *t, const spt_sparse_map *sm,
                                 int64_t nmap, const int64_t *ind2mode, const int64_t *outer_shape, int64_t *begin,
                                 int64_t *end, spt_tot **out) {
    spt_status st = SPT_OK;
    const int P = ctx->size, me = ctx->rank;
    spt_tot *probe = NULL, *res = NULL;
    spt_tensor *snd = NULL, *recv = NULL;
    int64_t *kb = NULL, *bounds = NULL, *cnt = NULL;
    if (out) *out = NULL;
    if (begin) *begin = 0;
    if (end) *end = 0;
    /* 1. every check of the serial builder, on the replicated arguments (an empty block) */
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (!sm) st = spt__err(SPT_EINVAL, "%s: sparse map is NULL", fn);
    else if ((st = spt_sparsify_block(t, sm, nmap, ind2mode, outer_shape, 0, 0, &probe)) != SPT_OK)
        st = rename_err(fn, st);
    spt_tot_free(probe);
    probe = NULL;
    SPT__AGREE(ctx, fn);
    int64_t ovol = 1;
    for (int64_t k = 0; k < sm->ind_rank; k++) ovol *= outer_shape[k]; /* checked by the builder */
    /* 2. the partition (kb: P + 1 first keys, bounds: P + 1 first outer indices) */
    kb = spt__alloc_array(fn, 2 * (int64_t)P + 2, 1, sizeof(int64_t), true, &st);
    if (kb) cnt = spt__alloc_array(fn, P, 1, sizeof(int64_t), true, &st);
    if (cnt) {
        bounds = kb + P + 1;
        st = sparsify_partition(fn, sm, outer_shape, ovol, P, kb, bounds);
    }
    /* 3. what each rank's keys read of my piece */
    if (st == SPT_OK) st = sparsify_select(fn, t, sm, nmap, ind2mode, kb, P, cnt, &snd);
    SPT__AGREE(ctx, fn);
    /* 4. one exchange; what arrives is sorted by T's order, duplicates in global order */
    SPT__CHECK(spt__mpi_exchange(ctx, fn, snd, cnt, t->order, NULL, &recv));
    spt_tensor_free(snd);
    snd = NULL;
    /* 5. the serial builder on my outer block */
    st = spt_sparsify_block(recv, sm, nmap, ind2mode, outer_shape, bounds[me], bounds[me + 1], &res);
    if (st != SPT_OK) st = rename_err(fn, st);
    SPT__AGREE(ctx, fn);
    if (begin) *begin = bounds[me];
    if (end) *end = bounds[me + 1];
    *out = res;
    res = NULL;
fail:
    spt_tot_free(res);
    spt_tensor_free(recv);
    spt_tensor_free(snd);
    spt__free(cnt);
    spt__free(kb);
    return st;
}

spt_status spt_dtensor_sparsify(const spt_dtensor *T, const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                                const int64_t *outer_shape, int64_t *begin, int64_t *end, spt_tot **out) {
    static const char fn[] = "spt_dtensor_sparsify";
    if (!T) return spt__err(SPT_EINVAL, "%s: T is NULL", fn);
    return sparsify_piece(T->ctx, fn, T->local, sm, nmap, ind2mode, outer_shape, begin, end, out);
}

/* A dense T in row blocks: each rank's block becomes a sparse piece (its elements that are not all-zero
 * bytes, indices shifted by the block's first row): the pieces are then row-major key ranges in rank
 * order, so they go to sparsify_piece with no redistribution. */
spt_status spt_dtensor_sparsify_dense(spt_mpi_ctx *ctx, const spt_dense *T_rows, int64_t row_begin,
                                      const spt_sparse_map *sm, int64_t nmap, const int64_t *ind2mode,
                                      const int64_t *outer_shape, int64_t *begin, int64_t *end, spt_tot **out) {
    static const char fn[] = "spt_dtensor_sparsify_dense";
    spt_status st = SPT_OK;
    if (!ctx) return spt__err(SPT_EINVAL, "%s: ctx is NULL", fn);
    const int P = ctx->size;
    int64_t *info = NULL;
    spt_tensor *piece = NULL;
    if (out) *out = NULL;
    if (begin) *begin = 0;
    if (end) *end = 0;
    /* (dtype, rank, rows, dims 1..) of every rank; blocks in rank order from row 0, same other dims */
    enum { W = 3 + SPT_MAX_RANK };
    int64_t mine[W];
    memset(mine, 0, sizeof mine);
    mine[0] = -1;
    if (!T_rows) st = spt__err(SPT_EINVAL, "%s: T is NULL", fn);
    else if (T_rows->rank < 1) st = spt__err(SPT_EINVAL, "%s: T must have rank >= 1 to be cut in row blocks", fn);
    else if (T_rows->dtype == SPT_STRING)
        st = spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(T_rows->dtype));
    else {
        mine[0] = T_rows->dtype;
        mine[1] = T_rows->rank;
        mine[2] = row_begin;
        for (int64_t d = 0; d < T_rows->rank; d++) mine[3 + d] = T_rows->shape[d];
    }
    if (st == SPT_OK) info = spt__alloc_array(fn, W, P, sizeof(int64_t), false, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, mine, W, info));
    int64_t rows = 0, shape[SPT_MAX_RANK];
    for (int q = 0; q < P && st == SPT_OK; q++) {
        const int64_t *f = info + (int64_t)q * W;
        if (f[0] != info[0] || f[1] != info[1])
            st = spt__err(SPT_EINVAL, "%s: rank %d's block has dtype %s and rank %lld, rank 0's %s and %lld", fn, q,
                          spt_dtype_name((spt_dtype)f[0]), (long long)f[1], spt_dtype_name((spt_dtype)info[0]),
                          (long long)info[1]);
        else if (f[2] != rows)
            st = spt__err(SPT_EINVAL,
                          "%s: rank %d's block starts at row %lld, expected %lld (the blocks of ranks 0..P-1 "
                          "must cover T's rows in order)",
                          fn, q, (long long)f[2], (long long)rows);
        for (int64_t d = 1; d < info[1] && st == SPT_OK; d++)
            if (f[3 + d] != info[3 + d])
                st = spt__err(SPT_EINVAL, "%s: rank %d's block has dim %lld = %lld, rank 0's %lld", fn, q, (long long)d,
                              (long long)f[3 + d], (long long)info[3 + d]);
        if (st == SPT_OK && spt__add_i64(rows, f[3], &rows))
            st = spt__err(SPT_EOVERFLOW, "%s: the rows of T overflow int64", fn);
    }
    if (st != SPT_OK) goto fail; /* decided on replicated data */
    const int64_t R = info[1];
    const spt_dtype dt = (spt_dtype)info[0];
    shape[0] = rows;
    for (int64_t d = 1; d < R; d++) shape[d] = info[3 + d];
    {
        int64_t vol = 0;
        st = spt__check_shape(fn, R, shape, &vol);
    }
    /* the piece: elements whose bytes are not all zero (an absent element reads as zero; -0.0 is kept) */
    const size_t es = spt_dtype_size(dt);
    const int64_t size = T_rows->size;
    const char *data = T_rows->data;
    int64_t nz = 0;
    for (int64_t i = 0; i < size && st == SPT_OK; i++)
        if (memcmp(data + (size_t)i * es, spt__zero_elem, es)) nz++;
    if (st == SPT_OK) st = spt__tensor_alloc_uninit(fn, dt, R, shape, nz, NULL, &piece);
    if (st == SPT_OK) {
        int64_t w = 0, idx[SPT_MAX_RANK];
        for (int64_t d = 0; d < R; d++) idx[d] = 0;
        for (int64_t i = 0; i < size; i++) {
            if (memcmp(data + (size_t)i * es, spt__zero_elem, es)) {
                for (int64_t d = 0; d < R; d++) piece->indices[w * R + d] = idx[d] + (d == 0 ? row_begin : 0);
                memcpy((char *)piece->values + (size_t)w * es, data + (size_t)i * es, es);
                w++;
            }
            for (int64_t d = R - 1; d >= 0; d--) { /* the next row-major index of the block */
                if (++idx[d] < T_rows->shape[d]) break;
                idx[d] = 0;
            }
        }
        spt__set_row_major(piece, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    }
    SPT__AGREE(ctx, fn);
    st = sparsify_piece(ctx, fn, piece, sm, nmap, ind2mode, outer_shape, begin, end, out);
fail:
    spt_tensor_free(piece);
    spt__free(info);
    return st;
}

/* ---- gather ------------------------------------------------------------------------------------- */

#define TMETA (4 + SPT_MAX_RANK)

/* The gathered ToT on the root: the ranks' records in rank order (the root's own from local), inner offsets
 * recomputed from the inner shapes. */
static void tot_assemble(spt_tot *res, const spt_tot *local, const int64_t *info, const char *rbuf, const int64_t *rd,
                         int root, int P) {
    const int64_t OR = local->outer_rank, IR = local->inner_rank;
    const size_t es = spt_dtype_size(local->dtype);
    int64_t e = 0;
    res->voff[0] = 0;
    for (int q = 0; q < P; q++) {
        const int64_t nq = info[4 * q], vq = info[4 * q + 1];
        const char *p = rbuf + rd[q];
        /* (byte pointers: a record need not be 8-byte aligned after another rank's values) */
        const char *qo = (const char *)local->outer, *qs = (const char *)local->inner_shape;
        const char *qv = local->values;
        if (q != root) {
            qo = p;
            qs = p + nq * OR * 8;
            qv = p + nq * OR * 8 + nq * IR * 8;
        }
        if (nq > 0 && OR > 0) memcpy(res->outer + e * OR, qo, (size_t)(nq * OR) * 8);
        if (nq > 0 && IR > 0) memcpy(res->inner_shape + e * IR, qs, (size_t)(nq * IR) * 8);
        for (int64_t k = 0; k < nq; k++) {
            int64_t vol = 1;
            for (int64_t j = 0; j < IR; j++) vol *= res->inner_shape[(e + k) * IR + j];
            res->voff[e + k + 1] = res->voff[e + k] + vol;
        }
        if (vq) memcpy((char *)res->values + (size_t)res->voff[e] * es, qv, (size_t)vq * es);
        e += nq;
    }
}

spt_status spt_mpi_tot_gather(spt_mpi_ctx *ctx, const spt_tot *local, int root, spt_tot **out) {
    static const char fn[] = "spt_mpi_tot_gather";
    spt_status st = SPT_OK;
    if (!ctx) return spt__err(SPT_EINVAL, "%s: ctx is NULL", fn);
    const int P = ctx->size, me = ctx->rank;
    int64_t *info = NULL, *sc = NULL;
    char *sbuf = NULL, *rbuf = NULL;
    spt_tot *res = NULL;
    int64_t meta[TMETA], meta0[TMETA];
    if (out) *out = NULL;
    if (!out) st = spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    else if (root < 0 || root >= P) st = spt__err(SPT_EINVAL, "%s: root %d is not a rank in [0, %d)", fn, root, P);
    else if (!local) st = spt__err(SPT_EINVAL, "%s: the local ToT is NULL", fn);
    SPT__AGREE(ctx, fn);
    /* the metadata must be rank 0's */
    memset(meta, 0, sizeof meta);
    meta[0] = local->dtype;
    meta[1] = local->outer_rank;
    meta[2] = local->inner_rank;
    for (int64_t k = 0; k < local->outer_rank; k++) meta[4 + k] = local->outer_shape[k];
    memcpy(meta0, meta, sizeof meta);
    SPT__CHECK(spt__mpi_bcast_bytes(ctx, fn, meta0, sizeof meta0, 0));
    ctx->payload_bytes -= me == 0 ? (int64_t)sizeof meta0 * (P - 1) : 0;
    ctx->meta_bytes += me == 0 ? (int64_t)sizeof meta0 * (P - 1) : 0;
    if (memcmp(meta, meta0, sizeof meta)) {
        char a[SPT__IDXBUF], b[SPT__IDXBUF];
        spt__fmt_index(a, sizeof a, meta + 4, meta[1]);
        spt__fmt_index(b, sizeof b, meta0 + 4, meta0[1]);
        st = spt__err(SPT_EINVAL,
                      "%s: ToT metadata (dtype %s, outer shape %s, inner rank %lld) differs from rank 0's "
                      "(dtype %s, outer shape %s, inner rank %lld)",
                      fn, spt_dtype_name(local->dtype), a, (long long)meta[2],
                      spt_dtype_name((spt_dtype)meta0[0]) ? spt_dtype_name((spt_dtype)meta0[0]) : "?", b,
                      (long long)meta0[2]);
    }
    SPT__AGREE(ctx, fn);
    const int64_t OR = local->outer_rank, IR = local->inner_rank, n = local->n;
    const size_t es = spt_dtype_size(local->dtype);
    /* info: per rank (count, values, first outer linear index, last outer linear index) */
    int64_t mine[4] = {n, local->voff[n], n ? outer_linear(local->outer, local->outer_shape, OR) : -1,
                       n ? outer_linear(local->outer + (n - 1) * OR, local->outer_shape, OR) : -1};
    info = spt__alloc_array(fn, 4, P, sizeof(int64_t), false, &st);
    if (info) sc = spt__alloc_array(fn, 4, P, sizeof(int64_t), true, &st);
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_allgather_i64(ctx, fn, mine, 4, info));
    /* blocks in rank order: every outer element of rank p after every one of the ranks before */
    int64_t N = 0, V = 0, last = -1, lastq = -1;
    for (int q = 0; q < P && st == SPT_OK; q++) {
        const int64_t *f = info + 4 * q;
        if (f[0] && f[2] <= last)
            st = spt__err(SPT_EINVAL,
                          "%s: rank %d's first outer element (linear index %lld) does not follow rank %lld's "
                          "last (%lld)",
                          fn, q, (long long)f[2], (long long)lastq, (long long)last);
        if (f[0]) last = f[3], lastq = q;
        if (spt__add_i64(N, f[0], &N) || spt__add_i64(V, f[1], &V))
            st = spt__err(SPT_EOVERFLOW, "%s: the gathered ToT overflows int64", fn);
    }
    if (st != SPT_OK) goto fail; /* decided on replicated data: the same everywhere */
    /* one packed record per rank: outer indices, inner shapes, values */
    int64_t bytes = 0;
    const int64_t ib = (OR + IR) * (int64_t)sizeof(int64_t);
    if (spt__mul_i64(n, ib, &bytes) || spt__add_i64(bytes, (int64_t)es * local->voff[n], &bytes))
        st = spt__err(SPT_EOVERFLOW, "%s: the local ToT is too large", fn);
    if (st == SPT_OK && me != root) sbuf = spt__alloc_array(fn, bytes, 1, 1, false, &st);
    if (sbuf) {
        char *p = sbuf;
        if (n > 0 && OR > 0) memcpy(p, local->outer, (size_t)(n * OR) * 8);
        p += n * OR * 8;
        if (n > 0 && IR > 0) memcpy(p, local->inner_shape, (size_t)(n * IR) * 8);
        p += n * IR * 8;
        if (local->voff[n]) memcpy(p, local->values, (size_t)local->voff[n] * es);
        sc[root] = bytes;
    }
    int64_t *rc = sc + P, *sd = sc + 2 * P, *rd = sc + 3 * P;
    if (st == SPT_OK && me == root) {
        int64_t tot = 0;
        for (int q = 0; q < P; q++) {
            rd[q] = tot;
            rc[q] = q == root ? 0 : info[4 * q] * ib + info[4 * q + 1] * (int64_t)es; /* fits: sums checked above */
            tot += rc[q];
        }
        rbuf = spt__alloc_array(fn, tot, 1, 1, false, &st);
        if (st == SPT_OK) st = spt__tot_alloc(fn, local->dtype, OR, local->outer_shape, IR, N, V, &res);
    }
    SPT__AGREE(ctx, fn);
    SPT__CHECK(spt__mpi_alltoallv(ctx, fn, sbuf, sc, sd, rbuf, rc, rd));
    if (me == root) {
        tot_assemble(res, local, info, rbuf, rd, root, P);
        *out = res;
        res = NULL;
    }
fail:
    spt_tot_free(res);
    spt__free(rbuf);
    spt__free(sbuf);
    spt__free(sc);
    spt__free(info);
    return st;
}
