/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_info.c -- spt info: what a tensor file holds. */
#include <stdlib.h>
#include <string.h>

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
    for (int64_t i = 0; i < n; i++) keys[i] = (uint64_t)ix[i * r + k];
    if (!radix_keys(&keys, &tmp, n, bits_of((uint64_t)shape[k] - 1))) return m->dist = -1, true;
    m->dist = 0;
    for (int64_t i = 0; i < n; i++) m->dist += i == 0 || keys[i] != keys[i - 1];
    return true;
}

/* The mode table's rows (rows[r]); *dups from the row-major pass when `count_dups`. */
static spt_status mode_rows(const spt_tensor *t, mode_row *rows, bool count_dups, int64_t *dups) {
    const int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1)),
             *tmp = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
    int64_t order[SPT_MAX_RANK];
    spt_status st = perm && keys && tmp ? SPT_OK : SPT_ENOMEM;
    for (int64_t k = 0; k < r && st == SPT_OK; k++) {
        mode_row *m = &rows[k];
        int64_t *dk = count_dups && k == r - 1 ? dups : NULL;
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
    printf("format:     %s\n", fmt != SPT_FORMAT_AUTO ? spt_format_name(fmt)
                               : strcmp(path, "-")    ? "from the content"
                                                      : "tns");
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
    if (!sorted && !by_order) dups = 0; /* unsorted: counted in the row-major pass of the last mode */
    spt_status st = r > 0 && n > 0 ? mode_rows(t, rows, !sorted && !by_order, &dups) : SPT_OK;
    if (st != SPT_OK) {
        spt_tensor_free(t);
        if (st == SPT_ENOMEM) fprintf(stderr, "spt info: out of memory\n");
        return st == SPT_ENOMEM ? CLI_BAD_INPUT : cli_fail(a, st);
    }
    printf("duplicates: %lld\n", (long long)dups);
    if (r > 0 && n > 0) {
        printf("%4s %12s %12s %12s %10s %10s\n", "mode", "dim", "distinct", "fibers", "fiber-min", "fiber-max");
        for (int64_t k = 0; k < r; k++)
            printf("%4lld %12lld %12lld %12lld %10lld %10lld\n", (long long)k, (long long)shape[k],
                   (long long)rows[k].dist, (long long)rows[k].fib, (long long)rows[k].fmin, (long long)rows[k].fmax);
    }
    spt_tensor_free(t);
    return CLI_OK;
}

const cli_cmd cli_cmd_info = {
    "info",
    "dtype, rank, shape, nnz, density, order and per-mode statistics of a tensor file",
    "spt info [--format F] [--dtype D] FILE",
    "Print the dtype, rank, shape, number of stored entries (nnz), density (nnz / volume), whether\n"
    "the entries are sorted in row-major order, the number of duplicate indices, and for every mode:\n"
    "its dim, the number of distinct indices used, the number of mode fibers (entries sharing all\n"
    "other coordinates) and their smallest and largest length.\n\n"
    "options:\n"
    "  --format F       input format: tns, mtx, npy, npz (default: from the extension)\n"
    "  --dtype D        read the values as dtype D (text formats)\n"
    "  --compression C  a .tfrecord's compression: NONE, ZLIB, GZIP (default: detected)\n\n"
    "A TFRecord file of tf.train.Example (.tfrecord, or --format tfrecord) is summarised by feature: name,\n"
    "list type, the number of Examples holding it, its values and the longest list.\n",
    "format dtype compression",
    "",
    1,
    1,
    run_info};
