/* sort.c -- reorder by any dimension order: linearized keys and a stable, parallel LSD radix sort. */
#include "internal.h"

spt_status spt__linear_keys(const char *fn, const spt_tensor *t, const int64_t *order, uint64_t *keys,
                            bool *sorted, bool *unique) {
    const int64_t r = t->rank, n = t->nnz, *ix = t->indices, *sh = t->shape;
    int64_t ord[SPT_MAX_RANK];
    for (int64_t k = 0; k < r; k++) ord[k] = order ? order[k] : k;
    const bool check = !(t->flags & SPT__F_VALID);
    int64_t first_bad = INT64_MAX;
    int nth = spt__threads_for(n * (r ? r : 1));
    int64_t unsorted = 0, repeated = 0;
#pragma omp parallel for schedule(static) num_threads(nth) reduction(min : first_bad)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * r;
        uint64_t key = 0;
        for (int64_t k = 0; k < r; k++) {
            int64_t d = ord[k];
            if (check && (uint64_t)row[d] >= (uint64_t)sh[d]) {
                if (i < first_bad) first_bad = i;
                key = 0;
                break;
            }
            key = key * (uint64_t)sh[d] + (uint64_t)row[d];
        }
        keys[i] = key;
    }
    if (first_bad != INT64_MAX) {
        char a[SPT__IDXBUF], b[SPT__IDXBUF];
        spt__fmt_index(a, sizeof a, ix + first_bad * r, r);
        spt__fmt_index(b, sizeof b, sh, r);
        return spt__err(SPT_ERANGE, "%s: indices[%lld] = %s is out of bounds: need 0 <= index < %s", fn,
                        (long long)first_bad, a, b);
    }
#pragma omp parallel for schedule(static) num_threads(nth) reduction(+ : unsorted, repeated)
    for (int64_t i = 1; i < n; i++) {
        unsorted += keys[i - 1] > keys[i];
        repeated += keys[i - 1] == keys[i];
    }
    if (check) ((spt_tensor *)t)->flags |= SPT__F_VALID; /* cached fact */
    *sorted = unsorted == 0;
    *unique = unsorted == 0 && repeated == 0;
    return SPT_OK;
}

#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)
#define MAX_THREADS 64

spt_status spt__radix_sort(const char *fn, uint64_t *keys, int64_t *perm, int64_t n, uint64_t max_key) {
    spt_status st = SPT_OK;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    if (n < 2) return SPT_OK;
    int bits = max_key ? 64 - __builtin_clzll(max_key) : 0;
    int passes = (bits + RADIX_BITS - 1) / RADIX_BITS;
    if (passes == 0) return SPT_OK;
    int nth = spt__threads_for(n);
    if (nth > MAX_THREADS) nth = MAX_THREADS;
    uint64_t *tk = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    int64_t *tp = tk ? spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st) : NULL;
    /* hist[thread][bucket], recounted for every pass over the keys as they then lie */
    int64_t *hist = tp ? spt__alloc_array(fn, nth, RADIX_SIZE, sizeof(int64_t), false, &st) : NULL;
    if (!hist) goto done;
    int64_t chunk = (n + nth - 1) / nth;
    uint64_t *src_k = keys, *dst_k = tk;
    int64_t *src_p = perm, *dst_p = tp;
    for (int p = 0; p < passes; p++) {
        int shift = p * RADIX_BITS;
        int64_t *h = hist;
        memset(h, 0, (size_t)nth * RADIX_SIZE * sizeof *h);
        /* one iteration per chunk, so the result does not depend on how many threads OpenMP grants */
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int tid = 0; tid < nth; tid++) {
            int64_t *mine = h + (int64_t)tid * RADIX_SIZE;
            int64_t lo = tid * chunk, hi = lo + chunk < n ? lo + chunk : n;
            for (int64_t i = lo; i < hi; i++) mine[(src_k[i] >> shift) & (RADIX_SIZE - 1)]++;
        }
        /* skip a digit that is the same for every key */
        bool constant = false;
        for (int b = 0; b < RADIX_SIZE && !constant; b++) {
            int64_t tot = 0;
            for (int t = 0; t < nth; t++) tot += h[(int64_t)t * RADIX_SIZE + b];
            if (tot == n) constant = true;
            else if (tot) break;
        }
        if (constant) continue;
        /* exclusive offsets: bucket-major, thread-minor (keeps the sort stable) */
        int64_t sum = 0;
        for (int b = 0; b < RADIX_SIZE; b++)
            for (int t = 0; t < nth; t++) {
                int64_t c = h[(int64_t)t * RADIX_SIZE + b];
                h[(int64_t)t * RADIX_SIZE + b] = sum;
                sum += c;
            }
#pragma omp parallel for schedule(static, 1) num_threads(nth)
        for (int tid = 0; tid < nth; tid++) {
            int64_t *off = h + (int64_t)tid * RADIX_SIZE;
            int64_t lo = tid * chunk, hi = lo + chunk < n ? lo + chunk : n;
            for (int64_t i = lo; i < hi; i++) {
                uint64_t k = src_k[i];
                int64_t pos = off[(k >> shift) & (RADIX_SIZE - 1)]++;
                dst_k[pos] = k;
                dst_p[pos] = src_p[i];
            }
        }
        uint64_t *sk = src_k; src_k = dst_k; dst_k = sk;
        int64_t *sp = src_p; src_p = dst_p; dst_p = sp;
    }
    if (src_k != keys) {
        memcpy(keys, src_k, (size_t)n * sizeof *keys);
        memcpy(perm, src_p, (size_t)n * sizeof *perm);
    }
done:
    spt__free(hist);
    spt__free(tp);
    spt__free(tk);
    return st;
}

/* dst[k] = src[perm[k]] for elements of es bytes. */
static void gather(void *dst, const void *src, size_t es, const int64_t *perm, int64_t n) {
    int nth = spt__threads_for(n);
#define GATHER(T)                                                                                  \
    do {                                                                                           \
        T *d_ = dst;                                                                               \
        const T *s_ = src;                                                                         \
        _Pragma("omp parallel for schedule(static) num_threads(nth)") for (int64_t k = 0; k < n; k++) d_[k] = s_[perm[k]]; \
    } while (0)
    typedef struct { uint64_t a, b; } u128;
    switch (es) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    case 16: GATHER(u128); break;
    default:
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t k = 0; k < n; k++) memcpy((char *)dst + (size_t)k * es, (const char *)src + (size_t)perm[k] * es, es);
    }
#undef GATHER
}

spt_status spt__permute_values(const char *fn, void *values, size_t es, const int64_t *perm, int64_t n) {
    spt_status st;
    void *tmp = spt__alloc_array(fn, n, 1, es, false, &st);
    if (!tmp) return st;
    gather(tmp, values, es, perm, n);
    memcpy(values, tmp, (size_t)n * es);
    spt__free(tmp);
    return SPT_OK;
}

/* Gather the rows of an N x r index matrix by perm. */
static void gather_rows(int64_t *dst, const int64_t *src, int64_t r, const int64_t *perm, int64_t n) {
    int nth = spt__threads_for(n * r);
    switch (r) {
    case 1: gather(dst, src, 8, perm, n); return;
    case 2: gather(dst, src, 16, perm, n); return;
    default:
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t k = 0; k < n; k++) {
            const int64_t *s = src + perm[k] * r;
            int64_t *d = dst + k * r;
            for (int64_t j = 0; j < r; j++) d[j] = s[j];
        }
    }
}

static spt_status check_perm_order(const char *fn, int64_t rank, const int64_t *order) {
    if (!order) return SPT_OK;
    SPT__TRY(spt__check_order(fn, rank, order));
    if (rank > 0 && !spt__order_defined(rank, order))
        return spt__err(SPT_EINVAL, "%s: order must be a permutation of the %lld dims", fn, (long long)rank);
    return SPT_OK;
}

static bool same_order(const spt_tensor *t, const int64_t *order) {
    for (int64_t d = 0; d < t->rank; d++)
        if (t->order[d] != (order ? order[d] : d)) return false;
    return true;
}

spt_status spt__reorder(const char *fn, spt_tensor *t, const int64_t *order) {
    spt_status st = SPT_OK;
    const int64_t n = t->nnz, r = t->rank;
    SPT__TRY(check_perm_order(fn, r, order));
    if ((t->flags & SPT__F_SORTED) && (t->flags & SPT__F_VALID) && same_order(t, order)) return SPT_OK;
    uint64_t *keys = spt__alloc_array(fn, n, 1, sizeof(uint64_t), false, &st);
    int64_t *perm = NULL;
    void *newbuf = NULL;
    if (!keys) return st;
    bool sorted, unique;
    SPT__CHECK(spt__linear_keys(fn, t, order, keys, &sorted, &unique));
    if (!sorted) {
        perm = spt__alloc_array(fn, n, 1, sizeof(int64_t), false, &st);
        if (!perm) goto fail;
        SPT__CHECK(spt__radix_sort(fn, keys, perm, n, (uint64_t)(t->volume - 1)));
        unique = true;
        for (int64_t i = 1; i < n; i++)
            if (keys[i - 1] == keys[i]) {
                unique = false;
                break;
            }
        spt__free(keys);
        keys = NULL;
        size_t es = spt_dtype_size(t->dtype);
        /* indices: gather into a new block, then adopt it (owned) or copy it back (wrapped) */
        if (r > 0) {
            newbuf = spt__alloc_array(fn, n, r, sizeof(int64_t), false, &st);
            if (!newbuf) goto fail;
            gather_rows(newbuf, t->indices, r, perm, n);
        }
        /* values next; from here on nothing can fail except this allocation, done before any write */
        void *newvals = spt__alloc_array(fn, n, 1, es, false, &st);
        if (!newvals) goto fail;
        gather(newvals, t->values, es, perm, n);
        if (t->owns_buffers) {
            if (r > 0) {
                spt__free(t->indices);
                t->indices = newbuf;
                newbuf = NULL;
            }
            spt__free(t->values);
            t->values = newvals;
        } else {
            if (r > 0) memcpy(t->indices, newbuf, (size_t)n * (size_t)r * sizeof(int64_t));
            memcpy(t->values, newvals, (size_t)n * es);
            spt__free(newvals);
        }
    }
    for (int64_t d = 0; d < r; d++) t->order[d] = order ? order[d] : d;
    t->flags |= SPT__F_VALID | SPT__F_SORTED;
    if (unique) t->flags |= SPT__F_UNIQUE;
    else t->flags &= ~(unsigned)SPT__F_UNIQUE;
fail:
    spt__free(newbuf);
    spt__free(perm);
    spt__free(keys);
    return st;
}

spt_status spt_reorder(spt_tensor *t, const int64_t *order) {
    if (!t) return spt__err(SPT_EINVAL, "spt_reorder: tensor is NULL");
    return spt__reorder("spt_reorder", t, order);
}

spt_status spt_argsort(const spt_tensor *t, const int64_t *order, int64_t *perm) {
    static const char fn[] = "spt_argsort";
    spt_status st = SPT_OK;
    if (!t || (!perm && t->nnz > 0)) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(check_perm_order(fn, t->rank, order));
    uint64_t *keys = spt__alloc_array(fn, t->nnz, 1, sizeof(uint64_t), false, &st);
    if (!keys) return st;
    bool sorted, unique;
    st = spt__linear_keys(fn, t, order, keys, &sorted, &unique);
    if (st == SPT_OK) st = spt__radix_sort(fn, keys, perm, t->nnz, t->volume > 0 ? (uint64_t)(t->volume - 1) : 0);
    spt__free(keys);
    return st;
}
