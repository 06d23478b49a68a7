/* SPDX-License-Identifier: Apache-2.0 */
/* reduce.c -- the engine behind spt_reduce_sum / spt_reduce_max and their sparse-output forms
 * (TF's SparseReduce{Sum,Max}{,Sparse}), internal. The per-dtype value loops come from the op files.
 *
 * Entries are keyed by their linear index over the kept dims (row-major over the output).
 * - All dims reduced: one value; fixed chunks reduced in parallel, partials combined in chunk order.
 * - Dense output, entries non-decreasing in the keys (runs) or in a leading prefix of the kept dims
 *   (blocks; flags or one check say which): read straight from the index rows by the kernels of
 *   ops/reduce/reduce.h, no key array; chunks split at run / block boundaries own disjoint cell ranges
 *   and write each cell once (the output is not zeroed first).
 * - Any other dense output: out[key] accumulated in storage order from a key array. In parallel when
 *   the tensor is sorted by an order whose leading dims are kept (chunks then own disjoint cells);
 *   otherwise one pass in storage order. No sort.
 * - Sparse output: keys already non-decreasing (kept dims a prefix of the order): one pass, no sort;
 *   otherwise, when the output cells are few (<= 2 nnz), the dense accumulation above in a scratch
 *   compacted afterwards (O(nnz + cells)); else a stable radix sort of the keys. Groups are reduced in
 *   storage order on every path, so the paths agree exactly. */
#include "ops/kernel.h"
#include "ops/reduce/reduce.h"
#include "sort/keys.h"

typedef struct {
    const int64_t *ix;
    int64_t r, p;
    const int64_t *dims;
} prefix_ctx;

/* Entry i differs from entry i-1 in one of the p leading dims. */
static bool prefix_start(const void *ctx, int64_t i) {
    const prefix_ctx *c = ctx;
    const int64_t *b = c->ix + i * c->r, *a = b - c->r;
    for (int64_t k = 0; k < c->p; k++)
        if (a[c->dims[k]] != b[c->dims[k]]) return true;
    return false;
}

/* True when the entries are non-decreasing in the p leading dims. */
static bool prefix_sorted(const prefix_ctx *c, int64_t n, int nch) {
    int64_t bad = 0;
    (void)nch;                                    /* unused without OpenMP */
    for (int64_t i = 1; i < n && i < 4096; i++) { /* an unsorted input usually shows it early */
        const int64_t *b = c->ix + i * c->r, *a = b - c->r;
        int64_t k = 0;
        while (k < c->p && a[c->dims[k]] == b[c->dims[k]]) k++;
        if (k < c->p && a[c->dims[k]] > b[c->dims[k]]) return false;
    }
#pragma omp parallel for schedule(static) num_threads(nch) reduction(+ : bad)
    for (int64_t i = 1; i < n; i++) {
        const int64_t *b = c->ix + i * c->r, *a = b - c->r;
        for (int64_t k = 0; k < c->p; k++) {
            int64_t d = c->dims[k];
            if (a[d] != b[d]) {
                bad += a[d] > b[d];
                break;
            }
        }
    }
    return bad == 0;
}

/* What the strategies below share: the input, the kernel, the kept dims K[0..nk) and the output shape. */
typedef struct {
    const char *fn;
    const spt_tensor *t;
    const spt__reduce_kernel *kern;
    bool keep_dims;
    bool red[SPT_MAX_RANK];
    int64_t K[SPT_MAX_RANK], nk, oshape[SPT_MAX_RANK], orank, ovol;
    size_t es;
    int nch;
} rplan;

/* Strategy 2 -- a dense output read straight from the index rows (ops/reduce/reduce.h: no key array,
 * the run or block boundaries found inline, every output cell written once by the thread that owns it,
 * so the output is not zeroed beforehand). Usable when the entries are non-decreasing in the kept dims'
 * keys (runs) or in a leading prefix K[0..q) of them (blocks); returns 2 (runs), 1 (blocks) or 0 with
 * s filled in. Sortedness comes from the flags when t is sorted by an order whose leading dims are
 * K[0..q), else from one parallel check. */
static int direct_plan(const rplan *p, spt__reduce_src *s) {
    const spt_tensor *t = p->t;
    const int64_t R = t->rank, nk = p->nk;
    const bool defined = spt__order_defined(R, t->order);
    int64_t q = 0;
    while (q < nk && (defined ? t->order[q] : q) == p->K[q]) q++;
    memset(s, 0, sizeof *s);
    s->vals = t->values;
    s->ix = t->indices;
    s->R = R;
    s->nk = nk;
    for (int64_t j = 0; j < nk; j++) {
        s->K[j] = p->K[j];
        s->sh[j] = (uint64_t)t->shape[p->K[j]];
    }
    int kind = 0;
    if (q > 0 && defined && (t->flags & SPT__F_SORTED)) kind = q == nk ? 2 : 1;
    else {
        prefix_ctx all = {t->indices, R, nk, p->K}, pre = {t->indices, R, q, p->K};
        if (prefix_sorted(&all, t->nnz, p->nch)) kind = 2;
        else if (q > 0 && q < nk && prefix_sorted(&pre, t->nnz, p->nch)) kind = 1;
    }
    if (kind == 2) q = nk;
    s->q = q;
    s->inner = 1;
    for (int64_t j = q; j < nk; j++) s->inner *= s->sh[j];
    return kind;
}

/* A dense array of p's output shape whose elements are left uninitialised (strategy 2 writes them all). */
static spt_status dense_uninit(const rplan *p, spt_dense **out) {
    spt_status st;
    *out = NULL;
    void *buf = spt__alloc_array(p->fn, p->ovol, 1, p->es, false, &st);
    if (!buf) return st;
    st = spt_dense_wrap(p->t->dtype, p->orank, p->oshape, buf, NULL, NULL, out);
    if (st != SPT_OK) {
        spt__free(buf);
        return st;
    }
    (*out)->owns_data = true;
    return SPT_OK;
}

static spt_status reduce_direct(const rplan *p, const spt__reduce_src *s, int kind, spt_dense *d) {
    spt_status st = SPT_OK;
    const spt_tensor *t = p->t;
    const int64_t n = t->nnz, R = t->rank;
    /* Row sums of a 2-D tensor sorted row-major with few rows against its entries: from the tensor's
     * cached row pointer (values and row pointer only), or, the first time, the runs loop that also
     * fills a fresh row pointer, published on t afterwards. No row pointer (allocation failure): the
     * plain runs loop. The three give the same bits (each row folded in storage order). */
    const spt__rowptr *rp = NULL;
    spt__rowptr *fresh = NULL;
    if (kind == 2 && R == 2 && s->nk == 1 && s->K[0] == 0 && spt__rowptr_eligible(t)) {
        rp = spt__rowptr_get(t);
        if (!rp) fresh = spt__rowptr_new(t);
    }
    int64_t work = n > INT64_MAX / (R + 1) ? INT64_MAX : n * R, bnd[SPT__MAX_CHUNKS + 1];
    if (rp) work = n; /* the values only */
    /* the entries, and the cells at full weight: each is written once (row sums of 1e5 entries over 1e6
     * rows are mostly the cells: 2 threads took 0.29 ms where 1 took 0.55) */
    work = work > INT64_MAX - p->ovol ? INT64_MAX : work + p->ovol;
    const int nch = spt__nchunks(work, 1);
    uint64_t cell[SPT__MAX_CHUNKS + 1];
    unsigned char *seen = NULL;
    if (kind == 1) {
        seen = spt__alloc_array(p->fn, nch, (int64_t)s->inner, 1, false, &st);
        if (!seen) return st;
    }
    prefix_ctx pc = {t->indices, R, s->q, s->K};
    spt__chunks(n, nch, bnd, nch > 1 ? prefix_start : NULL, &pc);
    /* chunk c owns the cells from its first entry's block (its key for runs) to the next chunk's */
    cell[0] = 0;
    for (int c = 1; c <= nch; c++)
        cell[c] = bnd[c] < n ? spt__rkey(s, 0, s->q, t->indices + bnd[c] * R) * s->inner : (uint64_t)p->ovol;
    cell[nch] = (uint64_t)p->ovol;
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) {
        if (rp) p->kern->rows(s->vals, rp->p, cell[c], cell[c + 1], d->data);
        else if (fresh) p->kern->runs_rp(s, bnd[c], bnd[c + 1], cell[c], cell[c + 1], d->data, fresh->p);
        else if (kind == 2) p->kern->runs(s, bnd[c], bnd[c + 1], cell[c], cell[c + 1], d->data);
        else p->kern->blocks(s, bnd[c], bnd[c + 1], cell[c], cell[c + 1], d->data, seen + (size_t)c * s->inner);
    }
    if (fresh) {
        fresh->p[p->ovol] = (uint32_t)n;
        (void)spt__rowptr_publish(t, fresh);
    }
    spt__free(seen);
    return SPT_OK;
}

/* Strategy 1 -- every dim reduced: one value; fixed chunks reduced in parallel, partials combined in
 * chunk order. Into d (dense) or a new *o. */
static spt_status reduce_all(const rplan *p, spt_dense *d, spt_tensor **o) {
    const spt_tensor *t = p->t;
    const spt__reduce_kernel *kern = p->kern;
    const int nch = p->nch;
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    _Alignas(16) unsigned char part[SPT__MAX_CHUNKS][16], tot[16];
    bool have = false;
    spt__chunks(t->nnz, nch, bnd, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++)
        if (bnd[c + 1] > bnd[c]) {
            if (kern->lanes) kern->lanes(t->values, bnd[c], bnd[c + 1], part[c]);
            else kern->seg(t->values, NULL, bnd[c], bnd[c + 1], part[c]);
        }
    for (int c = 0; c < nch; c++) {
        if (bnd[c + 1] == bnd[c]) continue;
        if (!have) memcpy(tot, part[c], p->es);
        else kern->combine(tot, part[c]);
        have = true;
    }
    if (d) {
        if (have) memcpy(d->data, tot, p->es);
        return SPT_OK;
    }
    SPT__TRY(spt__tensor_alloc(p->fn, t->dtype, p->orank, p->oshape, have ? 1 : 0, NULL, o));
    if (have) memcpy((*o)->values, tot, p->es);
    return SPT_OK;
}

/* Strategy 3 -- dense accumulation by the linear keys: into d (the dense output), or (d NULL) into a
 * scratch of the ovol output cells compacted into a new sparse *o in cell order. In parallel when the
 * keys are non-decreasing or the entries are sorted by an order whose leading dims are kept. */
static spt_status reduce_scatter(const rplan *p, const uint64_t *keys, bool unsorted, spt_dense *d, spt_tensor **o) {
    spt_status st = SPT_OK;
    const spt_tensor *t = p->t;
    const int64_t R = t->rank, n = t->nnz, ovol = p->ovol, nk = p->nk, *ix = t->indices, *sh = t->shape;
    const size_t es = p->es;
    int64_t bnd[SPT__MAX_CHUNKS + 1], cnt[SPT__MAX_CHUNKS + 1];
    void *acc = NULL;
    unsigned char *seen = spt__alloc_array(p->fn, ovol, 1, 1, true, &st);
    if (!seen) return st;
    if (!d) {
        acc = spt__alloc_array(p->fn, ovol, 1, es, false, &st);
        if (!acc) goto fail;
    }
    int sch = p->nch;
    if (!unsorted) {
        spt__chunks(n, sch, bnd, spt__key_start, keys);
    } else {
        /* the leading kept dims of the order the entries are (claimed or found) sorted in */
        const bool defined = spt__order_defined(R, t->order);
        int64_t pd[SPT_MAX_RANK], q = 0;
        for (int64_t k = 0; k < R; k++) {
            int64_t dd = defined ? t->order[k] : k;
            if (p->red[dd]) break;
            pd[q++] = dd;
        }
        prefix_ctx pc = {ix, R, q, pd};
        bool ok = q > 0 && sch > 1 && ((defined && (t->flags & SPT__F_SORTED)) || prefix_sorted(&pc, n, sch));
        if (ok) spt__chunks(n, sch, bnd, prefix_start, &pc);
        else {
            sch = 1;
            bnd[0] = 0;
            bnd[1] = n;
        }
    }
    void *dst = d ? d->data : acc;
#pragma omp parallel for schedule(static, 1) num_threads(sch)
    for (int c = 0; c < sch; c++) p->kern->scatter(t->values, keys, bnd[c], bnd[c + 1], dst, seen);
    if (d) goto fail; /* done: st == SPT_OK */
    /* compact the cells seen into the sparse output, in cell (row-major) order */
    int cch = spt__nchunks(ovol, 1);
    spt__chunks(ovol, cch, bnd, NULL, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(cch)
    for (int c = 0; c < cch; c++) {
        int64_t g = 0;
        for (int64_t q = bnd[c]; q < bnd[c + 1]; q++) g += seen[q];
        cnt[c] = g;
    }
    int64_t total = 0;
    for (int c = 0; c < cch; c++) {
        int64_t g = cnt[c];
        cnt[c] = total;
        total += g;
    }
    SPT__CHECK(spt__tensor_alloc_uninit(p->fn, t->dtype, p->orank, p->oshape, total, NULL, o));
    spt_tensor *out = *o;
#pragma omp parallel for schedule(static, 1) num_threads(cch)
    for (int c = 0; c < cch; c++) {
        int64_t w = cnt[c];
        for (int64_t q = bnd[c]; q < bnd[c + 1]; q++) {
            if (!seen[q]) continue;
            int64_t *row = out->indices + w * p->orank, rest = q;
            for (int64_t k = nk - 1; k >= 0; k--) {
                int64_t dim = p->K[k], c0 = rest % sh[dim];
                rest /= sh[dim];
                row[p->keep_dims ? dim : k] = c0;
            }
            if (p->keep_dims)
                for (int64_t k = 0; k < R; k++)
                    if (p->red[k]) row[k] = 0;
            memcpy((char *)out->values + (size_t)w * es, (char *)acc + (size_t)q * es, es);
            w++;
        }
    }
fail:
    spt__free(acc);
    spt__free(seen);
    return st;
}

/* Strategy 3b -- a sparse output from entries non-decreasing in a leading prefix K[0..q) of the kept
 * dims (direct_plan's blocks, 1 <= q < nk: a tensor sorted by an order whose leading dims are kept,
 * e.g. axis 1 of a row-major 3-D tensor; the code also handles runs, q = nk, but there strategy 4's
 * runs over the sorted keys are faster: a call per run of one or two entries costs more here). A block (the entries sharing the prefix) owns
 * `inner` consecutive output cells, so a thread reduces one block at a time in a scratch of `inner`
 * cells that stays in cache (the entries' inner keys computed from the index rows in small batches, no
 * key array of nnz slots) and writes the block's cells in row-major order straight into the output.
 * Chunks split where the prefix changes; chunk c writes from offset off[c], the sum of the earlier
 * chunks' bounds min(entries, cells), so all of it runs in ONE parallel region (no serial code between
 * passes, through which an idle libgomp worker would spin) and the output, allocated beforehand by the
 * calling thread, is first touched by the thread that fills it. The few slots a chunk leaves unused
 * are closed afterwards by moving the later chunks down, and the arrays shrunk to the count. Each cell
 * is its entries folded in storage order (the first value, then OP with the next), as on every other
 * path. Memory: the output at its bound (<= nnz entries) and nch x inner x (element size + 1) bytes of
 * scratch, used only when nch x inner <= the output volume (else strategy 3 or 4). */
enum { RB_BATCH = 256 };

/* Write the cells of one block seen in bseen (clearing the flags) to oix / ov in row-major order; brow:
 * a row of the block (its prefix coordinates). Returns the count. */
static int64_t rb_emit(const rplan *p, const spt__reduce_src *s, const int64_t *brow, const char *bacc,
                       unsigned char *bseen, int64_t *oix, char *ov) {
    const int64_t q = s->q, nk = s->nk, orank = p->orank, R = s->R;
    const size_t es = p->es;
    int64_t co[SPT_MAX_RANK] = {0}, w = 0;
    for (int64_t j = 0; j < q; j++) co[j] = brow[s->K[j]];
    for (uint64_t c = 0; c < s->inner; c++) {
        if (bseen[c]) {
            bseen[c] = 0;
            int64_t *dst = oix + w * orank;
            if (p->keep_dims) {
                for (int64_t k = 0; k < R; k++) dst[k] = 0;
                for (int64_t j = 0; j < nk; j++) dst[s->K[j]] = co[j];
            } else {
                for (int64_t j = 0; j < nk; j++) dst[j] = co[j];
            }
            switch (es) {
            case 8: memcpy(ov + (size_t)w * 8, bacc + c * 8, 8); break;
            case 4: memcpy(ov + (size_t)w * 4, bacc + c * 4, 4); break;
            default: memcpy(ov + (size_t)w * es, bacc + c * es, es); break;
            }
            w++;
        }
        for (int64_t j = nk - 1; j >= q; j--) { /* the odometer: the next cell's inner coordinates */
            if ((uint64_t)++co[j] < s->sh[j]) break;
            co[j] = 0;
        }
    }
    return w;
}

/* The entries [lo, hi) of one chunk, block by block, into oix / ov; returns the entries written. */
static int64_t rb_chunk(const rplan *p, const spt__reduce_src *s, int64_t lo, int64_t hi, char *bacc,
                        unsigned char *bseen, int64_t *oix, char *ov) {
    const int64_t R = s->R, q = s->q, nk = s->nk, orank = p->orank, *ix = s->ix, k0 = s->K[0];
    const int64_t kq = q < nk ? s->K[q] : 0;
    const size_t es = p->es;
    const char *vals = s->vals;
    uint64_t kb[RB_BATCH];
    int64_t w = 0, m = 0, bs = lo;
    if (lo >= hi) return 0;
    memset(bseen, 0, (size_t)s->inner);
    const int64_t *brow = ix + lo * R;
    uint64_t cur = spt__rkey(s, 0, q, brow);
    for (int64_t i = lo; i < hi; i++) {
        const int64_t *row = ix + i * R;
        const uint64_t pk = q == 1 ? (uint64_t)row[k0] : spt__rkey(s, 0, q, row);
        if (pk != cur) {
            if (m) p->kern->scatter(vals + (size_t)bs * es, kb, 0, m, bacc, bseen);
            w += rb_emit(p, s, brow, bacc, bseen, oix + w * orank, ov + (size_t)w * es);
            m = 0;
            bs = i;
            cur = pk;
            brow = row;
        }
        kb[m++] = q == nk ? 0 : nk - q == 1 ? (uint64_t)row[kq] : spt__rkey(s, q, nk, row);
        if (m == RB_BATCH) {
            p->kern->scatter(vals + (size_t)bs * es, kb, 0, m, bacc, bseen);
            m = 0;
            bs = i + 1;
        }
    }
    if (m) p->kern->scatter(vals + (size_t)bs * es, kb, 0, m, bacc, bseen);
    w += rb_emit(p, s, brow, bacc, bseen, oix + w * orank, ov + (size_t)w * es);
    return w;
}

/* Returns SPT_OK with *o set, or an error; *o NULL with SPT_OK: not applicable (scratch too large). */
static spt_status reduce_blocked_sparse(const rplan *p, const spt__reduce_src *s, spt_tensor **o) {
    const spt_tensor *t = p->t;
    const int64_t n = t->nnz, R = t->rank, ovol = p->ovol, orank = p->orank, *ix = t->indices;
    const size_t es = p->es;
    const int nch = p->nch;
    spt_status st = SPT_OK;
    int64_t bnd[SPT__MAX_CHUNKS + 1], off[SPT__MAX_CHUNKS + 1], cnt[SPT__MAX_CHUNKS];
    uint64_t cell[SPT__MAX_CHUNKS + 1];
    *o = NULL;
    if ((uint64_t)nch * s->inner > (uint64_t)ovol) return SPT_OK;
    prefix_ctx pc = {ix, R, s->q, s->K};
    spt__chunks(n, nch, bnd, nch > 1 ? prefix_start : NULL, &pc);
    cell[0] = 0;
    for (int c = 1; c < nch; c++)
        cell[c] = bnd[c] < n ? spt__rkey(s, 0, s->q, ix + bnd[c] * R) * s->inner : (uint64_t)ovol;
    cell[nch] = (uint64_t)ovol;
    off[0] = 0;
    for (int c = 0; c < nch; c++) {
        const int64_t e = bnd[c + 1] - bnd[c], k = (int64_t)(cell[c + 1] - cell[c]);
        off[c + 1] = off[c] + (e < k ? e : k);
    }
    const int64_t cap = off[nch];
    char *scratch = spt__alloc_array(p->fn, nch, (int64_t)s->inner, es + 1, false, &st);
    if (!scratch) return st;
    spt_tensor *out = NULL;
    st = spt__tensor_alloc_uninit(p->fn, t->dtype, orank, p->oshape, cap, NULL, &out);
    if (st != SPT_OK) {
        spt__free(scratch);
        return st;
    }
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++)
        cnt[c] = rb_chunk(p, s, bnd[c], bnd[c + 1], scratch + (size_t)c * s->inner * es,
                          (unsigned char *)scratch + (size_t)nch * s->inner * es + (size_t)c * s->inner,
                          out->indices + off[c] * orank, (char *)out->values + (size_t)off[c] * es);
    spt__free(scratch);
    int64_t total = cnt[0];
    for (int c = 1; c < nch; c++) { /* close the gaps: chunk c moves down to the end of chunk c - 1 */
        if (cnt[c] && total < off[c]) {
            memmove(out->indices + total * orank, out->indices + off[c] * orank, (size_t)cnt[c] * orank * 8);
            memmove((char *)out->values + (size_t)total * es, (char *)out->values + (size_t)off[c] * es,
                    (size_t)cnt[c] * es);
        }
        total += cnt[c];
    }
    spt__tensor_truncate(out, total); /* the unused tail given back (a failed shrink keeps the buffer) */
    *o = out;
    return SPT_OK;
}

/* Strategy 4 -- a sparse output from keys in sorted order (perm: the entry at each sorted position, NULL
 * for storage order): each run of equal keys reduced in storage order into one output entry, whose
 * index comes from the run's first row. Runs never straddle the fixed chunks. */
static spt_status reduce_sorted(const rplan *p, const uint64_t *keys, const int64_t *perm, spt_tensor **o) {
    const spt_tensor *t = p->t;
    const int64_t R = t->rank, n = t->nnz, nk = p->nk, orank = p->orank, *ix = t->indices;
    const int nch = p->nch;
    int64_t bnd[SPT__MAX_CHUNKS + 1], cnt[SPT__MAX_CHUNKS + 1];
    spt__chunks(n, nch, bnd, spt__key_start, keys);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) {
        int64_t g = 0;
        for (int64_t i = bnd[c]; i < bnd[c + 1]; i++) g += i == bnd[c] || keys[i] != keys[i - 1];
        cnt[c] = g;
    }
    int64_t total = 0;
    for (int c = 0; c < nch; c++) {
        int64_t g = cnt[c];
        cnt[c] = total;
        total += g;
    }
    SPT__TRY(spt__tensor_alloc_uninit(p->fn, t->dtype, orank, p->oshape, total, NULL, o));
    int64_t *oix = (*o)->indices;
    char *ov = (*o)->values;
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) {
        int64_t w = cnt[c];
        for (int64_t i = bnd[c], j; i < bnd[c + 1]; i = j, w++) {
            for (j = i + 1; j < bnd[c + 1] && keys[j] == keys[i];) j++;
            const int64_t *row = ix + (perm ? perm[i] : i) * R;
            int64_t *dst = oix + w * orank;
            if (p->keep_dims)
                for (int64_t k = 0; k < R; k++) dst[k] = p->red[k] ? 0 : row[k];
            else
                for (int64_t k = 0; k < nk; k++) dst[k] = row[p->K[k]];
            p->kern->seg(t->values, perm, i, j, ov + (size_t)w * p->es);
        }
    }
    return SPT_OK;
}

spt_status spt__reduce(const char *fn, const spt_tensor *t, const int64_t *axes, int64_t naxes, bool keep_dims,
                       const spt__reduce_kernel *kern, spt_dense **dout, spt_tensor **sout) {
    spt_status st = SPT_OK;
    uint64_t *keys = NULL;
    int64_t *perm = NULL;
    spt_dense *d = NULL;
    spt_tensor *o = NULL;
    if (!dout && !sout) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    if (dout) *dout = NULL;
    if (sout) *sout = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    const int64_t R = t->rank, n = t->nnz;
    rplan p = {.fn = fn, .t = t, .kern = kern, .keep_dims = keep_dims};
    if (!axes) {
        for (int64_t k = 0; k < R; k++) p.red[k] = true;
    } else {
        if (naxes < 0) return spt__err(SPT_EINVAL, "%s: naxes is negative (%lld)", fn, (long long)naxes);
        for (int64_t j = 0; j < naxes; j++) {
            if (axes[j] < -R || axes[j] >= R)
                return spt__err(SPT_ERANGE, "%s: Invalid reduction dimension %lld, for input with %lld dimensions.", fn,
                                (long long)axes[j], (long long)R);
            p.red[(axes[j] + R) % R] = true;
        }
    }
    if (!kern) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(t->dtype));
    SPT__TRY(spt__ensure_valid(fn, t));
    for (int64_t k = 0; k < R; k++) {
        if (!p.red[k]) p.K[p.nk++] = k;
        if (keep_dims) p.oshape[p.orank++] = p.red[k] ? 1 : t->shape[k];
        else if (!p.red[k]) p.oshape[p.orank++] = t->shape[k];
    }
    /* a sparse output may have any volume (ovol -1 past INT64_MAX); a dense one must fit */
    SPT__TRY(spt__check_dims(fn, p.orank, p.oshape, &p.ovol));
    p.es = spt_dtype_size(t->dtype);
    p.nch = spt__nchunks(n, R);
    if (dout && p.ovol < 0) {
        char buf[SPT__IDXBUF];
        spt__fmt_index(buf, sizeof buf, p.oshape, p.orank);
        return spt__err(SPT_EOVERFLOW, "%s: the dense output of shape %s would have more than INT64_MAX elements", fn,
                        buf);
    }
    if (dout && p.nk > 0 && n > 0 && p.ovol > 0) { /* strategy 2 */
        spt__reduce_src src;
        int kind = direct_plan(&p, &src);
        if (kind) {
            SPT__CHECK(dense_uninit(&p, &d));
            SPT__CHECK(reduce_direct(&p, &src, kind, d));
            goto done;
        }
    }
    if (dout) SPT__CHECK(spt__dense_new(fn, t->dtype, p.orank, p.oshape, &d));
    if (!dout && p.nk > 0 && n > 0 && p.ovol > 0 && p.ovol <= n * 2) { /* strategy 3b: few cells (<= 2 nnz) */
        spt__reduce_src src;
        if (direct_plan(&p, &src) == 1) { /* blocks; runs (keys already sorted) take strategy 4 without a sort */
            SPT__CHECK(reduce_blocked_sparse(&p, &src, &o));
            if (o) goto done;
        }
    }

    if (p.nk == 0) { /* strategy 1 */
        SPT__CHECK(reduce_all(&p, d, &o));
        goto done;
    }
    if (n == 0) {
        if (!d) SPT__CHECK(spt__tensor_alloc(fn, t->dtype, p.orank, p.oshape, 0, NULL, &o));
        goto done;
    }
    keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    if (!keys) goto fail;
    spt__hint_huge(keys, (size_t)n * sizeof(uint64_t));
    spt__keyplan kp; /* the kept dims: linear keys when they fit in 64 bits */
    spt__keyplan_init(&kp, t->shape, p.K, p.nk);
    if (kp.kind != SPT__KEY64) {
        /* sparse output only (a dense one that large failed above): the key engine sorts the entries
         * by the kept dims, the keys are dense ranks */
        bool uq, ordinal;
        SPT__CHECK(spt__key_sort(fn, t, &kp, keys, &perm, &uq, &ordinal));
        SPT__CHECK(reduce_sorted(&p, keys, perm, &o));
        goto done;
    }
    const int64_t *ix = t->indices, *sh = t->shape;
    int64_t unsorted = 0;
    const int nch SPT__OMP_VAR = p.nch;
#pragma omp parallel for schedule(static) num_threads(nch)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * R;
        uint64_t key = 0;
        for (int64_t j = 0; j < p.nk; j++) key = key * (uint64_t)sh[p.K[j]] + (uint64_t)row[p.K[j]];
        keys[i] = key;
    }
#pragma omp parallel for schedule(static) num_threads(nch) reduction(+ : unsorted)
    for (int64_t i = 1; i < n; i++) unsorted += keys[i - 1] > keys[i];
    /* strategy 3: the dense output, or a sparse output whose keys are unsorted and whose cells are few
     * (<= 2 nnz): O(nnz + cells), no sort */
    if (d || (unsorted && p.ovol >= 0 && p.ovol <= n * 2)) {
        SPT__CHECK(reduce_scatter(&p, keys, unsorted != 0, d, &o));
        goto done;
    }
    /* strategy 4: a stable radix sort of the keys (when needed), then the runs */
    if (unsorted) {
        perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!perm) goto fail;
        SPT__CHECK(spt__radix_sort(fn, keys, perm, n, kp.max_key));
    }
    SPT__CHECK(reduce_sorted(&p, keys, perm, &o));
done:
    if (o) spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    if (dout) *dout = d;
    if (sout) *sout = o;
    d = NULL;
    o = NULL;
fail:
    spt_dense_free(d);
    spt_tensor_free(o);
    spt__free(perm);
    spt__free(keys);
    return st;
}
