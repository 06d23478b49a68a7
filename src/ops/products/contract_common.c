/* SPDX-License-Identifier: Apache-2.0 */
/* contract_common.c -- the shared part of spt_tensordot and spt_einsum (contract_internal.h): a sparse
 * tensor times a dense matrix over tuples of its modes, reduced to the row kernel of
 * spt_sparse_dense_matmul (template/matmul_rows.c), and the rearrangement of dense operands and results. */
#include "ops/products/contract_internal.h"
#include "ops/kernel.h"
#include "ops/products/products_internal.h"

#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

/* dst[o + j * ds] += src[j] for j < n */
#define DEF_ADDRUN(E, T, KIND)                                                                                         \
    static void addrun_##E(const void *src, int64_t n, void *dst, int64_t ds) {                                        \
        const T *s_ = src;                                                                                             \
        T *d_ = dst;                                                                                                   \
        for (int64_t j_ = 0; j_ < n; j_++) d_[j_ * ds] = SPT__ADD_##KIND(T, d_[j_ * ds], s_[j_]);                      \
    }
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), DEF_ADDRUN(E, T, KIND))
#include "spt_dtypes.def"
#undef X

typedef void (*addrun_fn)(const void *, int64_t, void *, int64_t);
static const addrun_fn add_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = addrun_##E, )
#include "spt_dtypes.def"
#undef X
};

bool spt__contract_supported(spt_dtype dt) { return (unsigned)dt < SPT_NUM_DTYPES && spt__mm_rows[dt] != NULL; }

typedef struct {
    const int64_t *ix, *perm;
} row_ctx;

/* Bands of output rows: one thread partitions its entries only when the result exceeds CACHED_BYTES
 * (measured: below it the extra pass costs more than the cache misses it saves); a band of the result
 * is at most BAND_BYTES (half an L2), at most MAX_BANDS bands. */
#define CACHED_BYTES ((uint64_t)1 << 23)
#define BAND_BYTES ((uint64_t)1 << 19)
#define MAX_BANDS 4096
typedef struct {
    const int64_t *ix;
    int64_t w;
} band_ctx;

static bool band_start(const void *ctx, int64_t i) {
    const band_ctx *c = ctx;
    return c->ix[2 * i] / c->w != c->ix[2 * i - 2] / c->w;
}

static bool row_start(const void *ctx, int64_t i) {
    const row_ctx *c = ctx;
    int64_t e = c->perm ? c->perm[i] : i, f = c->perm ? c->perm[i - 1] : i - 1;
    return c->ix[2 * e] != c->ix[2 * f];
}

typedef struct {
    uint64_t lo, hi;
} pair64;

/* dst[pos[i]] = src[i] for i in [lo, hi), elements of es bytes */
static void scatter(void *dst, const void *src, const int64_t *pos, int64_t lo, int64_t hi, size_t es) {
#define SCATTER(T)                                                                                                     \
    do {                                                                                                               \
        T *d_ = dst;                                                                                                   \
        const T *s_ = src;                                                                                             \
        for (int64_t i = lo; i < hi; i++) d_[pos[i]] = s_[i];                                                          \
    } while (0)
    switch (es) {
    case 1: SCATTER(uint8_t); break;
    case 2: SCATTER(uint16_t); break;
    case 4: SCATTER(uint32_t); break;
    case 8: SCATTER(uint64_t); break;
    case 16: SCATTER(pair64); break;
    default:
        for (int64_t i = lo; i < hi; i++)
            memcpy((char *)dst + (size_t)pos[i] * es, (const char *)src + (size_t)i * es, es);
    }
#undef SCATTER
}

spt_status spt__contract_rows(const char *fn, const spt_tensor *a, const int64_t *rdims, int64_t nr,
                              const int64_t *kdims, int64_t nk, const void *bm, int64_t F, void *out) {
    spt_status st = SPT_OK;
    const int64_t n = a->nnz, N = a->rank;
    if (n == 0 || F == 0) return SPT_OK;
    spt__mm_rows_fn f = spt__mm_rows[a->dtype];
    int64_t *ix2 = NULL, *sx = NULL, *pos = NULL, *hist = NULL;
    void *sv = NULL;
    const size_t es = spt_dtype_size(a->dtype);
    int64_t rsz[SPT_MAX_RANK], ksz[SPT_MAX_RANK], R = 1;
    for (int64_t k = 0; k < nr; k++) R *= (rsz[k] = a->shape[rdims[k]]); /* R * F fits: the caller's promise */
    for (int64_t k = 0; k < nk; k++) ksz[k] = a->shape[kdims[k]];
    /* each entry as (row, col) of the flattened product */
    ix2 = spt__alloc_array(fn, n, 2, sizeof(int64_t), false, &st);
    if (!ix2) goto fail;
    const int64_t *ix = a->indices;
    int nch = spt__nchunks(n, nr + nk + 1);
#pragma omp parallel for schedule(static) num_threads(nch)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * N;
        int64_t r = 0, c = 0;
        for (int64_t k = 0; k < nr; k++) r = r * rsz[k] + row[rdims[k]];
        for (int64_t k = 0; k < nk; k++) c = c * ksz[k] + row[kdims[k]];
        ix2[2 * i] = r;
        ix2[2 * i + 1] = c;
    }
    bool grouped = true;
    for (int64_t i = 1; i < n && grouped; i++) grouped = ix2[2 * i] >= ix2[2 * i - 2];
    nch = spt__nchunks(n, 2 + F);
    int64_t bnd[SPT__MAX_CHUNKS + 1];
    const void *vals = a->values;
    if (grouped) { /* chunks end at row boundaries */
        row_ctx rc = {ix2, NULL};
        spt__chunks(n, nch, bnd, row_start, &rc);
    } else if (nch == 1 && (uint64_t)R * (uint64_t)F * es <= CACHED_BYTES) {
        /* one thread and a result that stays in cache: the entries in storage order */
        bnd[0] = 0;
        bnd[1] = n;
    } else {
        /* a stable partition into bands of rows (band b holds rows [b w, (b+1) w)), at least one per
         * thread and enough that one band of the result stays in cache; threads get whole bands, so
         * each owns its output rows, and every row still sums its entries in storage order (the same
         * result for any thread count) */
        uint64_t want = ((uint64_t)R * (uint64_t)F * es + BAND_BYTES - 1) / BAND_BYTES;
        if (want > MAX_BANDS) want = MAX_BANDS;
        if (want < (uint64_t)nch) want = (uint64_t)nch;
        const int64_t w = R / (int64_t)want + (R % (int64_t)want != 0), nb = R / w + (R % w != 0);
        int64_t cb[SPT__MAX_CHUNKS + 1];
        spt__chunks(n, nch, cb, NULL, NULL);
        hist = spt__alloc_array(fn, nch, nb, sizeof(int64_t), true, &st);
        if (!hist) goto fail;
        pos = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!pos) goto fail;
        sx = spt__alloc_array(fn, n, 2, sizeof(int64_t), false, &st);
        if (!sx) goto fail;
        sv = spt__alloc_array(fn, n, 1, es, false, &st);
        if (!sv) goto fail;
#pragma omp parallel for schedule(static, 1) num_threads(nch)
        for (int c = 0; c < nch; c++)
            for (int64_t i = cb[c]; i < cb[c + 1]; i++) hist[c * nb + ix2[2 * i] / w]++;
        spt__scan_histograms(hist, nch, nb, NULL);
#pragma omp parallel for schedule(static, 1) num_threads(nch)
        for (int c = 0; c < nch; c++) {
            int64_t *h = hist + c * nb;
            for (int64_t i = cb[c]; i < cb[c + 1]; i++) {
                int64_t p = h[ix2[2 * i] / w]++;
                pos[i] = p;
                sx[2 * p] = ix2[2 * i];
                sx[2 * p + 1] = ix2[2 * i + 1];
            }
            scatter(sv, a->values, pos, cb[c], cb[c + 1], es);
        }
        vals = sv;
        spt__free(ix2);
        ix2 = sx;
        sx = NULL;
        band_ctx bc = {ix2, w};
        spt__chunks(n, nch, bnd, band_start, &bc);
    }
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) f(vals, ix2, NULL, bnd[c], bnd[c + 1], 0, false, bm, F, out);
fail:
    spt__free(sv);
    spt__free(sx);
    spt__free(pos);
    spt__free(hist);
    spt__free(ix2);
    return st;
}

void spt__dense_rearrange(spt_dtype dt, const void *src, int64_t sr, const int64_t *sshape, const int64_t *to,
                          void *dst, int64_t dr, const int64_t *dshape) {
    int64_t dstride[SPT_MAX_RANK], st[SPT_MAX_RANK], idx[SPT_MAX_RANK] = {0}, vol = 1;
    bool sums = false;
    for (int64_t d = dr - 1, s = 1; d >= 0; d--) {
        dstride[d] = s;
        s *= dshape[d];
    }
    for (int64_t d = 0; d < sr; d++) {
        st[d] = to[d] >= 0 ? dstride[to[d]] : 0;
        sums |= to[d] < 0;
        vol *= sshape[d];
        if (vol == 0) return;
    }
    const size_t es = spt_dtype_size(dt);
    const int64_t inner = sr ? sshape[sr - 1] : 1, ist = sr ? st[sr - 1] : 0;
    const char *s = src;
    char *o = dst;
    int64_t off = 0; /* dst offset of the current run's first element */
    for (int64_t base = 0; base < vol; base += inner) {
        if (sums) add_table[dt](s + (size_t)base * es, inner, o + (size_t)off * es, ist);
        else if (ist == 1) memcpy(o + (size_t)off * es, s + (size_t)base * es, (size_t)inner * es);
        else
            for (int64_t j = 0; j < inner; j++)
                memcpy(o + (size_t)(off + j * ist) * es, s + (size_t)(base + j) * es, es);
        /* next run: the odometer over the src dims before the last */
        for (int64_t d = sr - 2; d >= 0; d--) {
            if (++idx[d] < sshape[d]) {
                off += st[d];
                break;
            }
            off -= (sshape[d] - 1) * st[d];
            idx[d] = 0;
        }
    }
}

spt_status spt__contract_result(const char *fn, spt_dtype dt, int64_t rank, const int64_t *shape, spt_dense **out) {
    int64_t vol;
    size_t bytes;
    char buf[SPT__IDXBUF];
    *out = NULL;
    if (spt_shape_volume(rank, shape, &vol) != SPT_OK || spt__bytes3(vol, 1, spt_dtype_size(dt), &bytes)) {
        spt__fmt_index(buf, sizeof buf, shape, rank);
        return spt__err(SPT_EOVERFLOW,
                        "%s: the dense result %s does not fit in memory's address range (its volume "
                        "or byte size overflows)",
                        fn, buf);
    }
    spt_status st = spt_dense_new(dt, rank, shape, out);
    if (st == SPT_ENOMEM) {
        spt__fmt_index(buf, sizeof buf, shape, rank);
        return spt__err(SPT_ENOMEM, "%s: out of memory for the dense result %s (%lld elements of %s)", fn, buf,
                        (long long)vol, spt_dtype_name(dt));
    }
    return st;
}
