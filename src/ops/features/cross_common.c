/* SPDX-License-Identifier: Apache-2.0 */
/* cross_common.c -- the engine of tf.sparse.cross and tf.sparse.cross_hashed (SparseCross /
 * SparseCrossV2): per row of the batch, the cartesian product of the inputs' features (sparse inputs
 * first, then dense ones, each in the order given; the last varies fastest), joined as strings or
 * chained through FingerprintCat64. Entries of a sparse input are grouped by row with a stable radix
 * sort of their row coordinate when they are not already in row order, so a row's features keep their
 * storage order. Two passes: counts (every size checked), then the output. */
#include "ops/features/features_internal.h"

#include <stdio.h>

typedef struct {
    const spt_tensor *sp; /* NULL for a dense input */
    const spt_dense *d;
    spt_dtype dtype;
    int64_t *perm;        /* sparse: entries in row order (NULL when already in row order) */
    int64_t cur;          /* sparse: cursor into the row-ordered entries */
    int64_t first, count; /* the current row's features: sorted positions [first, first+count) or dense cols */
} cross_col;

static int64_t sp_entry(const cross_col *c, int64_t k) { return c->perm ? c->perm[k] : k; }
static int64_t sp_row(const cross_col *c, int64_t k) { return c->sp->indices[sp_entry(c, k) * 2]; }

/* Feature k of the current row of column c as a value index into its values / data. */
static int64_t feat_index(const cross_col *c, int64_t row, int64_t k) {
    return c->sp ? sp_entry(c, c->first + k) : row * c->d->shape[1] + k;
}
static const void *col_values(const cross_col *c) { return c->sp ? c->sp->values : c->d->data; }

/* Position every column on `row`: count[c] features. Returns false if some column has none. */
static bool seek_row(cross_col *cols, int64_t nc, int64_t row) {
    bool all = true;
    for (int64_t j = 0; j < nc; j++) {
        cross_col *c = &cols[j];
        if (!c->sp) {
            c->count = c->d->shape[1];
        } else {
            const int64_t n = c->sp->nnz;
            while (c->cur < n && sp_row(c, c->cur) < row) c->cur++;
            c->first = c->cur;
            int64_t e = c->cur;
            while (e < n && sp_row(c, e) == row) e++;
            c->count = e - c->first;
        }
        if (c->count == 0) all = false;
    }
    return all;
}

/* The next row to visit after `row` (-1 to start): every row when all inputs are dense, else the rows
 * holding entries of sparse input 0. Returns -1 at the end. */
static int64_t next_row(const cross_col *cols, int64_t row, int64_t batch, bool all_dense) {
    if (all_dense) return row + 1 < batch ? row + 1 : -1;
    const cross_col *c = &cols[0];
    int64_t k = c->cur;
    while (k < c->sp->nnz && sp_row(c, k) <= row) k++;
    return k < c->sp->nnz ? sp_row(c, k) : -1;
}

static void reset(cross_col *cols, int64_t nc) {
    for (int64_t j = 0; j < nc; j++) cols[j].cur = 0;
}

/* Append n bytes to buf (grown as needed). */
static spt_status append(const char *fn, char **buf, size_t *len, size_t *cap, const char *src, size_t n) {
    size_t need;
    if (spt__add_sz(*len, n, &need)) return spt__err(SPT_EOVERFLOW, "%s: a crossed string is too long", fn);
    if (need > *cap) {
        size_t nc = *cap ? *cap : 64;
        while (nc < need)
            if (spt__mul_sz(nc, 2, &nc)) return spt__err(SPT_EOVERFLOW, "%s: a crossed string is too long", fn);
        char *nb = spt__realloc(*buf, nc);
        if (!nb) return spt__err(SPT_ENOMEM, "%s: out of memory for a crossed string", fn);
        *buf = nb;
        *cap = nc;
    }
    if (n) memcpy(*buf + *len, src, n);
    *len = need;
    return SPT_OK;
}

/* Append the string form of feature (column c, value index i): the bytes of a string, the decimal
 * digits of an integer. */
static spt_status put_feature(const char *fn, const cross_col *c, int64_t i, char **buf, size_t *len, size_t *cap) {
    if (c->dtype == SPT_STRING) {
        const spt_str *s = (const spt_str *)col_values(c) + i;
        return append(fn, buf, len, cap, s->data, (size_t)s->len);
    }
    char num[32];
    int64_t v = spt__int_value(c->dtype, col_values(c), i, NULL);
    int w = c->dtype == SPT_UINT64 ? snprintf(num, sizeof num, "%llu", (unsigned long long)(uint64_t)v)
                                   : snprintf(num, sizeof num, "%lld", (long long)v);
    return append(fn, buf, len, cap, num, (size_t)w);
}

static uint64_t feature_hash(const cross_col *c, int64_t i) {
    if (c->dtype == SPT_STRING) {
        const spt_str *s = (const spt_str *)col_values(c) + i;
        return spt_fingerprint64(s->data, (size_t)s->len);
    }
    return (uint64_t)spt__int_value(c->dtype, col_values(c), i, NULL);
}

/* Every input's shape and dtype, in input order: exactly one of sparse and dense, a matrix of strings or
 * integers, all of one batch size (*batch; -1 when n is 0). */
static spt_status cross_check_inputs(const char *fn, const spt_cross_input *inputs, int64_t n, int64_t *pbatch) {
    int64_t batch = -1;
    for (int64_t i = 0; i < n; i++) {
        const spt_tensor *sp = inputs[i].sparse;
        const spt_dense *d = inputs[i].dense;
        if ((sp == NULL) == (d == NULL))
            return spt__err(SPT_EINVAL, "%s: input %lld must be exactly one of a sparse tensor and a dense array", fn,
                            (long long)i);
        int64_t rank = sp ? sp->rank : d->rank;
        spt_dtype dt = sp ? sp->dtype : d->dtype;
        if (rank != 2)
            return spt__err(SPT_EINVAL, "%s: %s input %lld must be a matrix (rank 2), got rank %lld", fn,
                            sp ? "sparse" : "dense", (long long)i, (long long)rank);
        if (dt != SPT_STRING && !spt_dtype_is_integer(dt))
            return spt__err(SPT_EDTYPE, "%s: input %lld has dtype %s; features must be strings or integers (int64)", fn,
                            (long long)i, spt_dtype_name(dt));
        int64_t b = sp ? sp->shape[0] : d->shape[0];
        if (batch < 0) batch = b;
        else if (b != batch)
            return spt__err(SPT_EINVAL, "%s: Expected batch size %lld got %lld (input %lld)", fn, (long long)batch,
                            (long long)b, (long long)i);
    }
    *pbatch = batch;
    return SPT_OK;
}

/* A sparse column in row order: c->perm, a stable sort of its entries by row, unless they are in order. */
static spt_status cross_order_column(const char *fn, cross_col *c, int64_t batch) {
    spt_status st = SPT_OK;
    SPT__TRY(spt__ensure_valid(fn, c->sp));
    const int64_t m = c->sp->nnz;
    bool ordered = true;
    for (int64_t k = 1; k < m && ordered; k++) ordered = c->sp->indices[2 * k] >= c->sp->indices[2 * k - 2];
    if (ordered) return SPT_OK;
    uint64_t *keys = spt__alloc_array(fn, m, 1, sizeof(uint64_t), false, &st);
    c->perm = keys ? spt__alloc_array(fn, m, 1, sizeof(int64_t), false, &st) : NULL;
    if (c->perm) {
        for (int64_t k = 0; k < m; k++) keys[k] = (uint64_t)c->sp->indices[2 * k];
        st = spt__radix_sort(fn, keys, c->perm, m, batch > 0 ? (uint64_t)(batch - 1) : 0);
    }
    spt__free(keys);
    return st;
}

/* Pass 1: the product of the columns' feature counts per row, their total and the widest row. */
static spt_status cross_count(const char *fn, cross_col *cols, int64_t nc, int64_t batch, bool all_dense,
                              bool batch_rows_empty, int64_t *ptotal, int64_t *pwidth) {
    int64_t total = 0, width = 0;
    reset(cols, nc);
    for (int64_t row = batch_rows_empty ? -1 : next_row(cols, -1, batch, all_dense); row >= 0;
         row = next_row(cols, row, batch, all_dense)) {
        if (!seek_row(cols, nc, row)) continue;
        int64_t p = 1;
        for (int64_t j = 0; j < nc; j++)
            if (spt__mul_i64(p, cols[j].count, &p))
                return spt__err(SPT_EOVERFLOW, "%s: row %lld has more crosses than fit in int64", fn, (long long)row);
        if (spt__add_i64(total, p, &total))
            return spt__err(SPT_EOVERFLOW, "%s: the number of crosses does not fit in int64", fn);
        if (p > width) width = p;
    }
    *ptotal = total;
    *pwidth = width;
    return SPT_OK;
}

spt_status spt__cross(const char *fn, const spt_cross_input *inputs, int64_t n, bool hashed, const char *sep,
                      int64_t sep_len, int64_t num_buckets, uint64_t hash_key, spt_tensor **out) {
    spt_status st = SPT_OK;
    cross_col *cols = NULL;
    int64_t *odo = NULL;
    char *buf = NULL;
    size_t blen = 0, bcap = 0;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (n < 1 || !inputs) return spt__err(SPT_EINVAL, "%s: at least one input is needed (got %lld)", fn, (long long)n);
    if (!hashed && sep_len > 0 && !sep) return spt__err(SPT_EINVAL, "%s: separator is NULL", fn);
    if (!hashed && sep_len < 0)
        return spt__err(SPT_EINVAL, "%s: separator length %lld is negative", fn, (long long)sep_len);
    if (hashed && num_buckets < 0)
        return spt__err(SPT_EINVAL, "%s: num_buckets must be >= 0, got %lld", fn, (long long)num_buckets);
    int64_t batch = -1;
    bool all_dense = false, batch_rows_empty = false;
    SPT__TRY(cross_check_inputs(fn, inputs, n, &batch));
    cols = spt__calloc((size_t)n, sizeof *cols);
    odo = spt__calloc((size_t)n, sizeof *odo);
    if (!cols || !odo) {
        st = spt__err(SPT_ENOMEM, "%s: out of memory", fn);
        goto fail;
    }
    /* sparse inputs first, then dense ones (TensorFlow's column order) */
    int64_t nc = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < n; i++)
            if ((pass == 0) == (inputs[i].sparse != NULL)) {
                cross_col *c = &cols[nc++];
                c->sp = inputs[i].sparse;
                c->d = inputs[i].dense;
                c->dtype = c->sp ? c->sp->dtype : c->d->dtype;
            }
    for (int64_t j = 0; j < nc; j++) {
        cross_col *c = &cols[j];
        if (!c->sp) continue;
        SPT__CHECK(cross_order_column(fn, c, batch));
    }
    /* Rows to visit: with a sparse input (sparse ones come first), only the rows of sparse input 0 can
     * cross -- a row absent there has no feature -- so every row is visited only when all inputs are
     * dense, and then not at all when some dense input has no column (no row crosses; a [2^62, 0]
     * array exists and would otherwise make this loop run 2^62 times). */
    all_dense = cols[0].sp == NULL;
    for (int64_t j = 0; all_dense && j < nc; j++)
        if (cols[j].d->shape[1] == 0) batch_rows_empty = true;
    int64_t total = 0, width = 0;
    SPT__CHECK(cross_count(fn, cols, nc, batch, all_dense, batch_rows_empty, &total, &width));
    const int64_t oshape[2] = {batch < 0 ? 0 : batch, width};
    SPT__CHECK(spt__tensor_alloc_uninit(fn, hashed ? SPT_INT64 : SPT_STRING, 2, oshape, total, NULL, &o));
    /* pass 2: the crosses, row by row, the last column fastest */
    int64_t e = 0;
    reset(cols, nc);
    for (int64_t row = batch_rows_empty ? -1 : next_row(cols, -1, batch, all_dense); row >= 0;
         row = next_row(cols, row, batch, all_dense)) {
        if (!seek_row(cols, nc, row)) continue;
        for (int64_t j = 0; j < nc; j++) odo[j] = 0;
        for (int64_t k = 0;; k++) {
            o->indices[2 * e] = row;
            o->indices[2 * e + 1] = k;
            if (hashed) {
                uint64_t h = hash_key;
                for (int64_t j = 0; j < nc; j++)
                    h = spt_fingerprint_cat64(h, feature_hash(&cols[j], feat_index(&cols[j], row, odo[j])));
                ((int64_t *)o->values)[e] = (int64_t)(num_buckets > 0 ? h % (uint64_t)num_buckets
                                                                      : h % (uint64_t)INT64_MAX);
            } else {
                blen = 0;
                for (int64_t j = 0; j < nc; j++) {
                    if (j > 0) SPT__CHECK(append(fn, &buf, &blen, &bcap, sep, (size_t)sep_len));
                    SPT__CHECK(put_feature(fn, &cols[j], feat_index(&cols[j], row, odo[j]), &buf, &blen, &bcap));
                }
                SPT__CHECK(spt_tensor_set_string(o, e, buf ? buf : "", (int64_t)blen));
            }
            e++;
            int64_t j = nc - 1;
            while (j >= 0 && ++odo[j] == cols[j].count) odo[j--] = 0;
            if (j < 0) break;
        }
    }
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    *out = o;
    o = NULL;
fail:
    spt_tensor_free(o);
    if (cols)
        for (int64_t j = 0; j < n; j++) spt__free(cols[j].perm);
    spt__free(cols);
    spt__free(odo);
    spt__free(buf);
    return st;
}
