/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_info.c -- spt info: what a tensor file holds. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"

static void print_dims(const int64_t *v, int64_t n) {
    printf("[");
    for (int64_t k = 0; k < n; k++) printf("%s%lld", k ? ", " : "", (long long)v[k]);
    printf("]");
}

/* Row-major comparison of entries i and j. */
static int cmp_rows(const int64_t *ix, int64_t r, int64_t i, int64_t j) {
    for (int64_t k = 0; k < r; k++) {
        int64_t a = ix[i * r + k], b = ix[j * r + k];
        if (a != b) return a < b ? -1 : 1;
    }
    return 0;
}

/* Distinct indices of mode k: a bitmap over the dim when it is not much larger than the entries (one
 * pass), else runs of a sort with k first. -1 when memory runs out. */
static int64_t distinct_of(const spt_tensor *t, int64_t k, int64_t *perm, int64_t *order) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t), dim = spt_tensor_shape(t)[k];
    const int64_t *ix = spt_tensor_indices(t);
    int64_t d = 0;
    if (dim <= 8 * n + 4096) {
        unsigned char *seen = calloc((size_t)dim / 8 + 1, 1);
        if (!seen) return -1;
        for (int64_t i = 0; i < n; i++) {
            int64_t v = ix[i * r + k];
            unsigned char bit = (unsigned char)(1u << (v & 7));
            d += !(seen[v >> 3] & bit);
            seen[v >> 3] |= bit;
        }
        free(seen);
        return d;
    }
    order[0] = k;
    for (int64_t j = 0, o = 1; j < r; j++)
        if (j != k) order[o++] = j;
    if (spt_argsort(t, order, perm) != SPT_OK) return -1;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || ix[perm[i] * r + k] != ix[perm[i - 1] * r + k]) d++;
    return d;
}

/* Per mode: the distinct indices, and the count and min/max lengths of the mode's fibers (entries that
 * share every other coordinate), from one sort with k last. For the last mode that sort is row-major:
 * *dups (when not NULL) receives the duplicate entries from it. */
static spt_status mode_stats(const spt_tensor *t, int64_t k, int64_t *perm, int64_t *order, int64_t *distinct,
                             int64_t *fibers, int64_t *fmin, int64_t *fmax, int64_t *dups) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    const int64_t *ix = spt_tensor_indices(t);
    if ((*distinct = distinct_of(t, k, perm, order)) < 0) return SPT_ENOMEM;
    for (int64_t d = 0, o = 0; d < r; d++)
        if (d != k) order[o++] = d;
    order[r - 1] = k;
    spt_status st = spt_argsort(t, order, perm);
    if (st != SPT_OK) return st;
    *fibers = 0;
    *fmin = 0;
    *fmax = 0;
    int64_t run = 0;
    for (int64_t i = 0; i <= n; i++) {
        bool same = i > 0 && i < n;
        if (same)
            for (int64_t d = 0; d < r; d++)
                if (d != k && ix[perm[i] * r + d] != ix[perm[i - 1] * r + d]) {
                    same = false;
                    break;
                }
        if (same && dups && ix[perm[i] * r + k] == ix[perm[i - 1] * r + k]) ++*dups;
        if (i > 0 && !same) {
            ++*fibers;
            if (*fibers == 1 || run < *fmin) *fmin = run;
            if (run > *fmax) *fmax = run;
            run = 0;
        }
        run++;
    }
    return SPT_OK;
}

typedef struct mode_row {
    int64_t dist, fib, fmin, fmax;
} mode_row;

/* Sort n keys below 2^bits into *keys (tmp: n slots of scratch): one scatter by the top 11 bits, then
 * each bucket, small enough to stay in cache for spread keys, by LSD passes of 8 bits over the rest. */
static bool radix_keys(uint64_t **keys, uint64_t **tmp, int64_t n, int bits) {
    enum { TB = 2048 };
    const int top = bits > 11 ? bits - 11 : 0;
    int64_t *start = calloc(TB + 1, sizeof(int64_t));
    if (!start) return false;
    uint64_t *a = *keys, *b = *tmp;
    for (int64_t i = 0; i < n; i++) start[(a[i] >> top) + 1]++;
    for (int d = 0; d < TB; d++) start[d + 1] += start[d];
    int64_t pos[TB];
    memcpy(pos, start, sizeof pos);
    for (int64_t i = 0; i < n; i++) b[pos[a[i] >> top]++] = a[i];
#pragma omp parallel for schedule(dynamic, 16)
    for (int d = 0; d < TB; d++) { /* bucket d: b[s, e), sorted by the low `top` bits, ending in a[s, e) */
        const int64_t s0 = start[d], e = start[d + 1];
        uint64_t *src = b + s0, *dst = a + s0;
        int passes = 0;
        for (int sh = 0; sh < top && e - s0 > 1; sh += 8, passes++) {
            int64_t c[257] = {0};
            for (int64_t i = 0; i < e - s0; i++) c[((src[i] >> sh) & 255) + 1]++;
            for (int x = 0; x < 256; x++) c[x + 1] += c[x];
            for (int64_t i = 0; i < e - s0; i++) dst[c[(src[i] >> sh) & 255]++] = src[i];
            uint64_t *t = src;
            src = dst, dst = t;
        }
        if (src != a + s0) memcpy(a + s0, src, (size_t)(e - s0) * sizeof(uint64_t));
    }
    free(start);
    return true;
}

static int bits_of(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

/* Distinct indices of mode k from a radix sort of them (keys, tmp: n slots each); -1 when memory runs out. */
static int64_t distinct_radix(const spt_tensor *t, int64_t k, uint64_t *keys, uint64_t *tmp) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t), *ix = spt_tensor_indices(t);
    for (int64_t i = 0; i < n; i++) keys[i] = (uint64_t)ix[i * r + k];
    if (!radix_keys(&keys, &tmp, n, bits_of((uint64_t)spt_tensor_shape(t)[k] - 1))) return -1;
    int64_t d = 0;
    for (int64_t i = 0; i < n; i++) d += i == 0 || keys[i] != keys[i - 1];
    return d;
}

/* Mode k's row from linear keys (its coordinate least significant, the others row-major above it),
 * sorted by a radix sort: fibers are the runs of equal key / dim, duplicates the equal neighbours.
 * false when the shape's volume does not fit in 64 bits (then the argsort way is taken). */
static bool key_stats(const spt_tensor *t, int64_t k, uint64_t *keys, uint64_t *tmp, mode_row *m, int64_t *dups) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t), *shape = spt_tensor_shape(t),
                  *ix = spt_tensor_indices(t);
    /* without duplicates to count, the key leaves mode k out (dk = 1): fewer bits, fewer passes */
    uint64_t vol = 1, dk = dups ? (uint64_t)shape[k] : 1;
    for (int64_t d = 0; d < r; d++)
        if ((d != k || dups) && __builtin_mul_overflow(vol, (uint64_t)shape[d], &vol)) return false;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int64_t *row = ix + i * r;
        uint64_t key = 0;
        for (int64_t d = 0; d < r; d++)
            if (d != k) key = key * (uint64_t)shape[d] + (uint64_t)row[d];
        keys[i] = dups ? key * dk + (uint64_t)row[k] : key;
    }
    if (!radix_keys(&keys, &tmp, n, bits_of(vol ? vol - 1 : 0))) return m->dist = -1, true;
    m->fib = m->fmin = m->fmax = 0;
    int64_t run = 0;
    uint64_t fiber = n ? keys[0] / dk : 0;
    for (int64_t i = 0; i <= n; i++) {
        uint64_t f = i == n ? 0 : dk == 1 ? keys[i] : keys[i] / dk;
        if (i == n || f != fiber) {
            ++m->fib;
            if (m->fib == 1 || run < m->fmin) m->fmin = run;
            if (run > m->fmax) m->fmax = run;
            run = 0;
            fiber = f;
        } else if (dups && i > 0 && keys[i] == keys[i - 1]) ++*dups;
        run++;
    }
    /* distinct indices of mode k: a bitmap over the dim when it is not much larger than the entries
     * (distinct_of, -1 when out of memory), else the runs of the sorted indices */
    if (shape[k] <= 8 * n + 4096) return m->dist = distinct_of(t, k, NULL, NULL), true;
    m->dist = distinct_radix(t, k, keys, tmp);
    return true;
}

/* Distinct indices of every mode in one pass over the entries: a bitmap per mode whose dim is not much
 * larger than the entries (filled by each thread for its share, then merged), distinct_of otherwise.
 * false when memory runs out. */
static bool distinct_all(const spt_tensor *t, mode_row *rows) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t), *shape = spt_tensor_shape(t),
                  *ix = spt_tensor_indices(t);
    int64_t words[SPT_MAX_RANK], at[SPT_MAX_RANK + 1], total = 0;
    for (int64_t k = 0; k < r; k++) {
        words[k] = shape[k] <= 8 * n + 4096 ? shape[k] / 64 + 1 : 0;
        at[k] = total;
        total += words[k];
    }
    int nt = spt_get_num_threads() > 0 ? spt_get_num_threads() : 1;
    /* a bitmap per thread: at most as many threads as keep them within the entries' bytes + 64 MiB */
    while (nt > 1 && (size_t)nt * (size_t)total > (size_t)n + ((size_t)8 << 20)) nt--;
    uint64_t *bits = calloc((size_t)(total ? total : 1) * (size_t)nt, sizeof(uint64_t));
    if (!bits) return false;
#pragma omp parallel num_threads(nt)
    {
        int me = 0, all = 1;
#ifdef _OPENMP
        me = omp_get_thread_num(), all = omp_get_num_threads();
#endif
        uint64_t *mine = bits + (size_t)me * (size_t)total;
        const int64_t lo = n / all * me + (me < n % all ? me : n % all), hi = lo + n / all + (me < n % all);
        for (int64_t i = lo; i < hi; i++)
            for (int64_t k = 0; k < r; k++)
                if (words[k]) {
                    const uint64_t v = (uint64_t)ix[i * r + k];
                    mine[at[k] + (int64_t)(v >> 6)] |= (uint64_t)1 << (v & 63);
                }
    }
    bool ok = true;
    for (int64_t k = 0; k < r; k++) {
        rows[k].dist = 0;
        if (!words[k]) { /* a dim far larger than the entries: a sort of the mode's indices */
            uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)n), *tmp = malloc(sizeof(uint64_t) * (size_t)n);
            ok = ok && keys && tmp && (rows[k].dist = distinct_radix(t, k, keys, tmp)) >= 0;
            free(keys);
            free(tmp);
            continue;
        }
        for (int64_t w = 0; w < words[k]; w++) {
            uint64_t x = 0;
            for (int th = 0; th < nt; th++) x |= bits[(size_t)th * (size_t)total + (size_t)(at[k] + w)];
            rows[k].dist += __builtin_popcountll(x);
        }
    }
    free(bits);
    return ok;
}

/* The keys equal to an earlier one among a[0, n), keys below 2^bits (b: n slots of scratch): the keys are
 * scattered by their top 11 bits into buckets (each thread its share), then each bucket's keys go into a
 * hash set small enough to stay in cache; a key found there already is a duplicate. One pass each, no
 * sort. -1 when memory runs out. */
static int64_t dup_keys(const uint64_t *a, uint64_t *b, int64_t n, int bits) {
    enum { TB = 2048 };
    const int top = bits > 11 ? bits - 11 : 0, nt = spt_get_num_threads() > 0 ? spt_get_num_threads() : 1;
    int64_t *cnt = calloc((size_t)nt * TB, sizeof(int64_t)), *start = calloc(TB + 1, sizeof(int64_t)), dups = 0;
    if (!cnt || !start) {
        free(cnt);
        free(start);
        return -1;
    }
#pragma omp parallel num_threads(nt)
    {
        int me = 0, all = 1;
#ifdef _OPENMP
        me = omp_get_thread_num(), all = omp_get_num_threads();
#endif
        int64_t *c = cnt + (size_t)me * TB;
        const int64_t lo = n / all * me + (me < n % all ? me : n % all), hi = lo + n / all + (me < n % all);
        for (int64_t i = lo; i < hi; i++) c[a[i] >> top]++;
#pragma omp barrier
#pragma omp single
        {
            int64_t at = 0;
            for (int d = 0; d < TB; d++) {
                start[d] = at;
                for (int t = 0; t < all; t++) {
                    int64_t k = cnt[(size_t)t * TB + d];
                    cnt[(size_t)t * TB + d] = at;
                    at += k;
                }
            }
            start[TB] = at;
        }
        for (int64_t i = lo; i < hi; i++) b[c[a[i] >> top]++] = a[i];
    }
    int64_t most = 1;
    for (int d = 0; d < TB; d++)
        if (start[d + 1] - start[d] > most) most = start[d + 1] - start[d];
    int lg = 3, ht = nt;
    while (((int64_t)1 << lg) < 2 * most) lg++;
    /* a hash table per thread: at most as many threads as keep them within twice the keys' bytes + 64 MiB */
    while (ht > 1 && ((size_t)ht << lg) > (size_t)n * 2 + ((size_t)8 << 20)) ht--;
    bool ok = true;
#pragma omp parallel num_threads(ht) reduction(+ : dups) reduction(&& : ok)
    {
        uint64_t *tab = malloc(sizeof(uint64_t) << lg);
        ok = tab != NULL;
#pragma omp for schedule(dynamic, 16)
        for (int d = 0; d < TB; d++) {
            const int64_t m = start[d + 1] - start[d];
            if (!tab || m < 2) continue;
            int l = 3;
            while (((int64_t)1 << l) < 2 * m) l++;
            const uint64_t mask = ((uint64_t)1 << l) - 1;
            memset(tab, 0, sizeof(uint64_t) << l);
            for (int64_t i = start[d]; i < start[d + 1]; i++) {
                const uint64_t x = b[i] + 1; /* 0 marks an empty slot; keys are below 2^64 - 1 */
                uint64_t h = (x * 0x9E3779B97F4A7C15ull) >> (64 - l);
                while (tab[h] && tab[h] != x) h = (h + 1) & mask;
                if (tab[h]) dups++;
                else tab[h] = x;
            }
        }
        free(tab);
    }
    free(cnt);
    free(start);
    return ok ? dups : -1;
}

/* The entries whose index equals another's, of an unsorted tensor: from row-major linear keys (dup_keys;
 * an argsort when the volume does not fit in 64 bits). -1 when memory runs out. */
static int64_t count_dups(const spt_tensor *t) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t), *shape = spt_tensor_shape(t),
                  *ix = spt_tensor_indices(t);
    uint64_t vol = 1;
    bool fits = true;
    for (int64_t d = 0; d < r && fits; d++) fits = !__builtin_mul_overflow(vol, (uint64_t)shape[d], &vol);
    int64_t dups = 0;
    if (!fits) {
        int64_t *perm = malloc(sizeof(int64_t) * (size_t)(n ? n : 1)), order[SPT_MAX_RANK];
        for (int64_t d = 0; d < r; d++) order[d] = d;
        if (!perm || spt_argsort(t, order, perm) != SPT_OK) dups = -1;
        for (int64_t i = 1; i < n && dups >= 0; i++) dups += !cmp_rows(ix, r, perm[i - 1], perm[i]);
        free(perm);
        return dups;
    }
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1)),
             *tmp = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
    if (keys && tmp) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            uint64_t key = 0;
            for (int64_t d = 0; d < r; d++) key = key * (uint64_t)shape[d] + (uint64_t)ix[i * r + d];
            keys[i] = key;
        }
    }
    dups = keys && tmp ? dup_keys(keys, tmp, n, bits_of(vol ? vol - 1 : 0)) : -1;
    free(keys);
    free(tmp);
    return dups;
}

/* The mode table with fibers (rows[r]); *dups from the row-major pass when `want_dups`. */
static spt_status mode_rows(const spt_tensor *t, mode_row *rows, bool want_dups, int64_t *dups) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1)),
             *tmp = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
    int64_t order[SPT_MAX_RANK];
    spt_status st = perm && keys && tmp ? SPT_OK : SPT_ENOMEM;
    for (int64_t k = 0; k < r && st == SPT_OK; k++) {
        mode_row *m = &rows[k];
        int64_t *dk = want_dups && k == r - 1 ? dups : NULL;
        if (!key_stats(t, k, keys, tmp, m, dk))
            st = mode_stats(t, k, perm, order, &m->dist, &m->fib, &m->fmin, &m->fmax, dk);
        else if (m->dist < 0) st = SPT_ENOMEM;
    }
    free(perm);
    free(keys);
    free(tmp);
    return st;
}

static int run_info(cli_args *a) {
    spt_tensor *t = NULL;
    const char *path = a->pos[0];
    if (cli_is_tfrecord(a, path)) return cli_tfrecord_info(a, path);
    int rc = cli_read(a, path, &t);
    if (rc) return rc;
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    const int64_t *shape = spt_tensor_shape(t);
    const int64_t *ix = spt_tensor_indices(t);
    int64_t vol = spt_tensor_volume(t);
    spt_format fmt = SPT_FORMAT_AUTO;
    if (cli_opt(a, "format")) spt_format_from_name(cli_opt(a, "format"), &fmt);
    if (fmt == SPT_FORMAT_AUTO) fmt = spt_format_from_path(path);
    printf("file:       %s\n", strcmp(path, "-") ? path : "<stdin>");
    printf("format:     %s\n", fmt != SPT_FORMAT_AUTO ? spt_format_name(fmt) : "from the content");
    printf("dtype:      %s\n", spt_dtype_name(spt_tensor_dtype(t)));
    printf("rank:       %lld\n", (long long)r);
    printf("shape:      ");
    print_dims(shape, r);
    printf("\nnnz:        %lld\n", (long long)n);
    if (vol > 0) printf("density:    %.6g\n", (double)n / (double)vol);
    else if (vol < 0) { /* a volume past INT64_MAX (FROSTT's nell-1): the density in floating point */
        long double fv = 1;
        for (int64_t k = 0; k < r; k++) fv *= (long double)shape[k];
        printf("density:    %.6Lg\n", (long double)n / fv);
    } else printf("density:    - (the shape has no element)\n");
    /* storage order */
    int64_t dups = 0;
    bool sorted = true;
    for (int64_t i = 1; i < n; i++) {
        int c = cmp_rows(ix, r, i - 1, i);
        if (c > 0) sorted = false;
        if (c == 0) dups++;
    }
    /* an order other than row-major that the file stated and the reader verified */
    const bool by_order = r > 1 && spt_tensor_known_sorted(t) && !spt_tensor_is_row_major(t, false);
    if (by_order) {
        dups = 0; /* sorted by a full order: equal entries are neighbours */
        for (int64_t i = 1; i < n; i++) {
            bool eq = true;
            for (int64_t k = 0; k < r && eq; k++) eq = ix[(i - 1) * r + k] == ix[i * r + k];
            dups += eq;
        }
        printf("order:      sorted by ");
        print_dims(spt_tensor_order(t), r);
        printf(", %s\n", dups ? "with duplicates" : "no duplicates");
    } else if (sorted) printf("order:      row-major sorted, %s\n", dups ? "with duplicates" : "no duplicates");
    else printf("order:      unsorted\n");
    mode_row rows[SPT_MAX_RANK];
    const bool fibers = cli_opt(a, "fibers") != NULL, some = r > 0 && n > 0;
    if (!sorted && !by_order) dups = 0; /* unsorted: counted from one sort (with --fibers: the last mode's) */
    spt_status st = SPT_OK;
    if (some && fibers) st = mode_rows(t, rows, !sorted && !by_order, &dups);
    else if (some && (!distinct_all(t, rows) || (!sorted && !by_order && (dups = count_dups(t)) < 0))) st = SPT_ENOMEM;
    if (st != SPT_OK) {
        spt_tensor_free(t);
        if (st == SPT_ENOMEM) fprintf(stderr, "spt info: out of memory\n");
        return st == SPT_ENOMEM ? CLI_BAD_INPUT : cli_fail(a, st);
    }
    printf("duplicates: %lld\n", (long long)dups);
    if (some && fibers) {
        printf("%4s %12s %12s %12s %10s %10s\n", "mode", "dim", "distinct", "fibers", "fiber-min", "fiber-max");
        for (int64_t k = 0; k < r; k++)
            printf("%4lld %12lld %12lld %12lld %10lld %10lld\n", (long long)k, (long long)shape[k],
                   (long long)rows[k].dist, (long long)rows[k].fib, (long long)rows[k].fmin, (long long)rows[k].fmax);
    } else if (some) {
        printf("%4s %12s %12s\n", "mode", "dim", "distinct");
        for (int64_t k = 0; k < r; k++)
            printf("%4lld %12lld %12lld\n", (long long)k, (long long)shape[k], (long long)rows[k].dist);
    }
    spt_tensor_free(t);
    return CLI_OK;
}

const cli_cmd cli_cmd_info = {
    "info",
    "dtype, rank, shape, nnz, density, order and per-mode statistics of a tensor file",
    "spt info [--format F] [--dtype D] [--fibers] FILE",
    "Print the dtype, rank, shape, number of stored entries (nnz), density (nnz / volume), whether\n"
    "the entries are sorted in row-major order, the number of duplicate indices, and for every mode:\n"
    "its dim and the number of distinct indices used. This costs one pass over the entries, and one\n"
    "more (a hash of every index) when they are not sorted, to find the duplicates.\n\n"
    "options:\n"
    "  --fibers         also the number of mode fibers of every mode (entries sharing all other\n"
    "                   coordinates) and their smallest and largest length: one sort of the entries\n"
    "                   per mode, several times the cost of reading the file\n"
    "  --format F       input format: tns, mtx, npy, npz (default: from the extension, else the content)\n"
    "  --dtype D        read the values as dtype D (text formats)\n"
    "  --compression C  a .tfrecord's compression: NONE, ZLIB, GZIP (default: detected)\n\n"
    "A TFRecord file of tf.train.Example (.tfrecord, or --format tfrecord) is summarised by feature: name,\n"
    "list type, the number of Examples holding it, its values and the longest list.\n",
    "format dtype compression",
    "fibers",
    1,
    1,
    run_info};
