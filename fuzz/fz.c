/* SPDX-License-Identifier: Apache-2.0 */
/* fz.c -- the shared decoder, failing allocator and invariant checks of spt's fuzz harnesses. */
#include "fz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading bytes ---- */

uint8_t fz_u8(fz_in *in) {
    if (in->n == 0) return 0;
    in->n--;
    return *in->p++;
}

uint16_t fz_u16(fz_in *in) { return (uint16_t)(fz_u8(in) | (uint16_t)fz_u8(in) << 8); }

uint64_t fz_u64(fz_in *in) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)fz_u8(in) << (8 * i);
    return v;
}

bool fz_bool(fz_in *in) { return fz_u8(in) & 1; }

int64_t fz_range(fz_in *in, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    uint64_t v = span > 256 ? fz_u16(in) : fz_u8(in);
    return lo + (int64_t)(v % span);
}

static const int64_t specials[] = {
    -1,
    0,
    1,
    2,
    INT64_MAX,
    INT64_MIN,
    INT64_MAX - 1,
    (int64_t)1 << 31,
    ((int64_t)1 << 31) - 1,
    (int64_t)1 << 32,
    (int64_t)1 << 62,
    -((int64_t)1 << 62),
    (int64_t)3037000500,
    (int64_t)1 << 40,
    1000000,
    -2,
};

int64_t fz_int(fz_in *in, int64_t small_max) {
    uint8_t b = fz_u8(in);
    if (b >= 240) return specials[b - 240];
    return small_max > 0 ? b % (small_max + 1) : 0;
}

void fz_bytes(fz_in *in, void *dst, size_t n) {
    size_t k = n < in->n ? n : in->n;
    memcpy(dst, in->p, k);
    memset((char *)dst + k, 0, n - k);
    in->p += k;
    in->n -= k;
}

/* ---- the failing allocator ---- */

static long fail_at = -1, alloc_count = 0;
static bool armed = false, refused = false;

static void *fz_malloc(size_t n) {
    if (armed && fail_at >= 0 && alloc_count++ == fail_at) {
        refused = true;
        return NULL;
    }
    void *q = malloc(n); /* a request the system cannot meet (terabytes asked for honestly) fails too */
    if (!q) refused = true;
    return q;
}

static void *fz_realloc(void *p, size_t n) {
    if (armed && fail_at >= 0 && alloc_count++ == fail_at) {
        refused = true;
        return NULL;
    }
    void *q = realloc(p, n);
    if (!q && n > 0) refused = true;
    return q;
}

static void fz_free(void *p) { free(p); }

void fz_begin(fz_in *in) {
    static bool installed = false;
    if (!installed) {
        spt_set_allocator(fz_malloc, fz_realloc, fz_free);
        spt_set_num_threads(1);
        installed = true;
    }
    uint8_t m = fz_u8(in);
    fail_at = (m & 3) == 3 ? (long)(m >> 2) : -1;
    armed = false;
    refused = false;
    spt_clear_error();
}

void fz_op_begin(void) {
    alloc_count = 0;
    refused = false;
    armed = true;
}

void fz_op_end(void) { armed = false; }
bool fz_failed(void) { return refused; }

/* ---- decoding ---- */

bool fz_order(fz_in *in, int64_t rank, int64_t *order) {
    uint8_t m = fz_u8(in) % 8;
    if (m == 0) return false;
    for (int64_t d = 0; d < rank; d++) order[d] = d;
    if (m == 7) { /* garbage: should be refused */
        for (int64_t d = 0; d < rank; d++) order[d] = fz_int(in, rank);
        return true;
    }
    if (m >= 3)
        for (int64_t d = rank - 1; d > 0; d--) {
            int64_t j = fz_range(in, 0, d);
            int64_t x = order[d];
            order[d] = order[j];
            order[j] = x;
        }
    return true;
}

static int decode_dtype(fz_in *in, bool numeric_only) {
    uint8_t b = fz_u8(in);
    if (b < 128) return SPT_FLOAT64;
    int d = b % SPT_NUM_DTYPES;
    if (numeric_only && (d == SPT_STRING || d == SPT_BOOL)) d = SPT_INT32;
    return d;
}

static int64_t decode_dim(fz_in *in, bool no_huge) {
    uint8_t b = fz_u8(in);
    if (b >= 250 && !no_huge) {
        static const int64_t huge[] = {INT64_MAX,  (int64_t)1 << 31, (int64_t)1 << 32,
                                       3037000500, (int64_t)1 << 62, 1000000};
        return huge[b - 250];
    }
    if (b == 249) return -1;
    if (b >= 240 && !no_huge) {
        /* either side of the key engine's boundaries: 2^32 + 1 with 2^32 (65 bits against 64), 16 and
         * 32 with two 2^62 (128 and 129 bits), 2^43 with 2^21, and FROSTT nell-1's dims */
        static const int64_t edge[] = {((int64_t)1 << 32) + 1, 16,      32,      (int64_t)1 << 43, (int64_t)1 << 21,
                                       ((int64_t)1 << 43) + 1, 2902330, 2143368, 25495389};
        return edge[b - 240];
    }
    return b % 6;
}

typedef struct wrapped {
    int64_t *ix;
    void *vals;
} wrapped;

static void release_wrapped(void *ctx) {
    wrapped *w = ctx;
    free(w->ix);
    free(w->vals);
    free(w);
}

spt_tensor *fz_tensor(fz_in *in, const fz_tspec *spec) {
    int dtype = spec->dtype >= 0 ? spec->dtype : decode_dtype(in, spec->numeric_only);
    int64_t rank = spec->rank >= 0 ? spec->rank : fz_u8(in) % 5;
    int64_t shape[SPT_MAX_RANK];
    if (rank > SPT_MAX_RANK) rank = SPT_MAX_RANK;
    for (int64_t d = 0; d < rank; d++) shape[d] = spec->shape ? spec->shape[d] : decode_dim(in, spec->no_huge_dims);
    int max_nnz = spec->max_nnz > 0 ? spec->max_nnz : 24;
    int64_t nnz = fz_u8(in) % (max_nnz + 1);
    bool any_zero = false;
    for (int64_t d = 0; d < rank; d++) any_zero |= shape[d] == 0;
    if (any_zero && (fz_u8(in) & 7) != 0) nnz = 0; /* mostly consistent */
    size_t es = spt_dtype_size((spt_dtype)dtype);
    int64_t *ix = malloc((size_t)(nnz * rank + 1) * sizeof(int64_t));
    char *vals = malloc((size_t)nnz * es + 1);
    char *strbuf = NULL;
    if (!ix || !vals) abort();
    for (int64_t i = 0; i < nnz; i++)
        for (int64_t d = 0; d < rank; d++) {
            uint8_t b = fz_u8(in);
            int64_t v;
            if (b < 248) v = shape[d] > 0 ? (int64_t)(b % (uint64_t)shape[d]) : b;
            else if (b == 248) v = shape[d];
            else if (b == 249) v = -1;
            else v = specials[b % 16];
            ix[i * rank + d] = v;
        }
    if (dtype == SPT_STRING) {
        strbuf = malloc((size_t)nnz * 8 + 1);
        if (!strbuf) abort();
        spt_str *s = (spt_str *)vals;
        for (int64_t i = 0; i < nnz; i++) {
            int64_t len = fz_u8(in) % 8;
            fz_bytes(in, strbuf + i * 8, (size_t)len);
            s[i].data = strbuf + i * 8;
            s[i].len = len;
        }
    } else {
        fz_bytes(in, vals, (size_t)nnz * es);
        if (dtype == SPT_BOOL)
            for (int64_t i = 0; i < nnz; i++) vals[i] &= 1;
    }
    int64_t order[SPT_MAX_RANK];
    bool has_order = fz_order(in, rank, order);
    uint8_t how = fz_u8(in);
    spt_tensor *t = FZ_SENTINEL; /* must become NULL on failure */
    spt_status st;
    if ((how & 3) == 3 && dtype != SPT_STRING) {
        /* wrapped, adopting the buffers */
        wrapped *w = malloc(sizeof *w);
        if (!w) abort();
        w->ix = ix;
        w->vals = vals;
        st = spt_tensor_wrap((spt_dtype)dtype, rank, shape, nnz, ix, vals, has_order ? order : NULL, release_wrapped, w,
                             &t);
        fz_check_status("spt_tensor_wrap", st, t);
        if (st != SPT_OK) release_wrapped(w);
        ix = NULL;
        vals = NULL;
    } else if ((how & 3) == 2) {
        spt_dense *di = NULL, *dv = NULL, *ds = NULL, *dor = NULL;
        int64_t idims[2] = {nnz, rank}, one = rank;
        if (spt_dense_new_from(SPT_INT64, 2, idims, ix, &di) == SPT_OK &&
            spt_dense_new_from((spt_dtype)dtype, 1, &nnz, vals, &dv) == SPT_OK &&
            spt_dense_new_from(SPT_INT64, 1, &one, shape, &ds) == SPT_OK &&
            (!has_order || spt_dense_new_from(SPT_INT64, 1, &one, order, &dor) == SPT_OK)) {
            st = spt_tensor_create(di, dv, ds, dor, &t);
            fz_check_status("spt_tensor_create", st, t);
        } else {
            t = NULL; /* a negative dim: the dense shape is refused first */
        }
        spt_dense_free(di);
        spt_dense_free(dv);
        spt_dense_free(ds);
        spt_dense_free(dor);
    } else {
        st = spt_tensor_new((spt_dtype)dtype, rank, shape, nnz, ix, vals, has_order ? order : NULL, &t);
        fz_check_status("spt_tensor_new", st, t);
    }
    free(ix);
    free(vals);
    free(strbuf); /* new/create copied the bytes; wrap is not used for strings */
    if (!t) return NULL;
    if (how & 4) (void)spt_validate(t);
    if (how & 8) {
        int64_t o[SPT_MAX_RANK];
        bool ho = fz_order(in, rank, o);
        st = spt_reorder(t, ho ? o : NULL);
        if (st == SPT_OK) fz_check_tensor("spt_reorder", t);
    }
    return t;
}

spt_dense *fz_dense(fz_in *in, int dtype, int64_t rank, const int64_t *shape) {
    spt_dense *d = NULL;
    int64_t vol;
    if (spt_shape_volume(rank, shape, &vol) != SPT_OK || vol > 4096) return NULL;
    if (spt_dense_new((spt_dtype)dtype, rank, shape, &d) != SPT_OK) return NULL;
    if (dtype == SPT_STRING) {
        for (int64_t i = 0; i < vol; i++) {
            char b[8];
            int64_t len = fz_u8(in) % 4;
            fz_bytes(in, b, (size_t)len);
            if (spt_dense_set_string(d, i, b, len) != SPT_OK) fz_die("spt_dense_set_string", spt_last_error());
        }
    } else {
        /* mostly zeros so that from_dense has something to skip */
        size_t es = spt_dtype_size((spt_dtype)dtype);
        char *p = spt_dense_data_mut(d);
        for (int64_t i = 0; i < vol; i++)
            if (fz_u8(in) & 1) fz_bytes(in, p + (size_t)i * es, es);
        if (dtype == SPT_BOOL)
            for (int64_t i = 0; i < vol; i++) p[i] &= 1;
    }
    return d;
}

/* ---- invariants ---- */

char fz_sentinel_obj;

void fz_die(const char *what, const char *detail) {
    fprintf(stderr, "fuzz invariant violated: %s: %s\n(last error: %s)\n", what, detail, spt_last_error());
    abort();
}

static volatile unsigned char sink;

void fz_check_tensor(const char *op, spt_tensor *t) {
    char msg[512];
    if (!t) fz_die(op, "returned OK with a NULL tensor");
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    if (r < 0 || r > SPT_MAX_RANK || n < 0) fz_die(op, "rank or nnz out of range");
    spt_dtype dt = spt_tensor_dtype(t);
    if ((unsigned)dt >= SPT_NUM_DTYPES) fz_die(op, "bad dtype");
    const int64_t *sh = spt_tensor_shape(t), *ord = spt_tensor_order(t), *ix = spt_tensor_indices(t);
    int64_t vol = 1;
    bool zero = false, ovf = false;
    for (int64_t d = 0; d < r; d++) {
        if (sh[d] < 0) fz_die(op, "negative dim");
        if (sh[d] == 0) zero = true;
        else if (__builtin_mul_overflow(vol, sh[d], &vol)) ovf = true;
    }
    if (zero) vol = 0;
    if (ovf && !zero) vol = -1; /* any volume is a valid sparse shape; the accessor says -1 */
    if (vol != spt_tensor_volume(t)) {
        snprintf(msg, sizeof msg, "volume %lld != product %lld", (long long)spt_tensor_volume(t), (long long)vol);
        fz_die(op, msg);
    }
    if (n > 0 && vol == 0) fz_die(op, "entries in an empty shape");
    int64_t undefined = 0;
    uint64_t seen = 0;
    for (int64_t d = 0; d < r; d++) {
        if (ord[d] == -1) {
            undefined++;
            continue;
        }
        if (ord[d] < 0 || ord[d] >= r || (seen >> ord[d] & 1)) fz_die(op, "order is not a permutation");
        seen |= 1ull << ord[d];
    }
    if (undefined && undefined != r) fz_die(op, "order mixes -1 and dims");
    for (int64_t i = 0; i < n; i++)
        for (int64_t d = 0; d < r; d++)
            if (ix[i * r + d] < 0 || ix[i * r + d] >= sh[d]) {
                snprintf(msg, sizeof msg, "entry %lld dim %lld index %lld outside %lld (known_valid=%d)", (long long)i,
                         (long long)d, (long long)ix[i * r + d], (long long)sh[d], spt_tensor_known_valid(t));
                fz_die(op, msg);
            }
    if (spt_tensor_known_sorted(t)) {
        if (undefined) fz_die(op, "known sorted with an undefined order");
        for (int64_t i = 1; i < n; i++)
            for (int64_t k = 0; k < r; k++) {
                int64_t d = ord[k], a = ix[(i - 1) * r + d], b = ix[i * r + d];
                if (a < b) break;
                if (a > b) {
                    snprintf(msg, sizeof msg, "claims sorted but entry %lld precedes entry %lld", (long long)i - 1,
                             (long long)i);
                    fz_die(op, msg);
                }
            }
    }
    if (spt_validate(t) != SPT_OK) fz_die(op, "spt_validate failed on an op's result");
    if (n > 0 && !spt_tensor_values(t)) fz_die(op, "NULL values");
    if (dt == SPT_STRING) {
        const spt_str *s = spt_tensor_values(t);
        for (int64_t i = 0; i < n; i++) {
            if (s[i].len < 0 || (s[i].len > 0 && !s[i].data)) fz_die(op, "malformed string");
            for (int64_t b = 0; b < s[i].len; b++) sink ^= (unsigned char)s[i].data[b];
        }
    } else if (n > 0) {
        const unsigned char *v = spt_tensor_values(t);
        sink ^= v[0] ^ v[(size_t)n * spt_dtype_size(dt) - 1];
    }
}

void fz_check_dense(const char *op, const spt_dense *d) {
    if (!d) fz_die(op, "returned OK with a NULL dense array");
    int64_t r = spt_dense_rank(d), vol;
    if (r < 0 || r > SPT_MAX_RANK) fz_die(op, "dense rank out of range");
    if (spt_shape_volume(r, spt_dense_shape(d), &vol) != SPT_OK) fz_die(op, "dense shape invalid");
    if (vol != spt_dense_size(d)) fz_die(op, "dense size != volume");
    spt_dtype dt = spt_dense_dtype(d);
    if ((unsigned)dt >= SPT_NUM_DTYPES) fz_die(op, "bad dense dtype");
    if (dt == SPT_STRING) {
        const spt_str *s = spt_dense_data(d);
        for (int64_t i = 0; i < vol; i++) {
            if (s[i].len < 0 || (s[i].len > 0 && !s[i].data)) fz_die(op, "malformed dense string");
            for (int64_t b = 0; b < s[i].len; b++) sink ^= (unsigned char)s[i].data[b];
        }
    } else if (vol > 0) {
        const unsigned char *v = spt_dense_data(d);
        sink ^= v[0] ^ v[(size_t)vol * spt_dtype_size(dt) - 1];
    }
}

void fz_check_status(const char *op, spt_status st, const void *out) {
    char msg[256];
    if (!strcmp(spt_status_name(st), "UNKNOWN")) {
        snprintf(msg, sizeof msg, "unknown status %d", (int)st);
        fz_die(op, msg);
    }
    if (st == SPT_OK) return;
    if (out != NULL) fz_die(op, "an error left a non-NULL out-parameter");
    if (spt_last_error()[0] == '\0') fz_die(op, "an error without a message");
    if (st == SPT_ENOMEM && !fz_failed()) fz_die(op, "ENOMEM although no allocation failed");
    if (st == SPT_EINTERNAL) fz_die(op, "internal error");
}

/* ---- fingerprints ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

uint64_t fz_hash_tensor(const spt_tensor *t) {
    if (!t) return 0;
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    spt_dtype dt = spt_tensor_dtype(t);
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, &r, sizeof r);
    h = fnv(h, &n, sizeof n);
    h = fnv(h, &dt, sizeof dt);
    h = fnv(h, spt_tensor_shape(t), (size_t)r * 8);
    h = fnv(h, spt_tensor_order(t), (size_t)r * 8);
    if (n > 0 && r > 0) h = fnv(h, spt_tensor_indices(t), (size_t)(n * r) * 8);
    if (dt == SPT_STRING) {
        const spt_str *s = spt_tensor_values(t);
        for (int64_t i = 0; i < n; i++) {
            h = fnv(h, &s[i].len, sizeof s[i].len);
            if (s[i].len > 0) h = fnv(h, s[i].data, (size_t)s[i].len);
        }
    } else if (n > 0) {
        h = fnv(h, spt_tensor_values(t), (size_t)n * spt_dtype_size(dt));
    }
    return h;
}

uint64_t fz_hash_dense(const spt_dense *d) {
    if (!d) return 0;
    int64_t r = spt_dense_rank(d), n = spt_dense_size(d);
    spt_dtype dt = spt_dense_dtype(d);
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, &r, sizeof r);
    h = fnv(h, spt_dense_shape(d), (size_t)r * 8);
    if (dt == SPT_STRING) {
        const spt_str *s = spt_dense_data(d);
        for (int64_t i = 0; i < n; i++) {
            h = fnv(h, &s[i].len, sizeof s[i].len);
            if (s[i].len > 0) h = fnv(h, s[i].data, (size_t)s[i].len);
        }
    } else if (n > 0) {
        h = fnv(h, spt_dense_data(d), (size_t)n * spt_dtype_size(dt));
    }
    return h;
}

/* ---- what several family harnesses share ---- */

void fz_check_sparse_out(const char *op, spt_status st, spt_tensor *out, bool row_major) {
    fz_check_status(op, st, out);
    if (st != SPT_OK) return;
    fz_check_tensor(op, out);
    if (row_major && !spt_tensor_is_row_major(out, true)) fz_die(op, "output not row-major sorted");
}

void fz_finish_tensor(const char *op, spt_status st, spt_tensor *out, bool row_major) {
    fz_check_sparse_out(op, st, out, row_major);
    if (st == SPT_OK) spt_tensor_free(out);
}

void fz_finish_dense(const char *op, spt_status st, spt_dense *out) {
    fz_check_status(op, st, out);
    if (st != SPT_OK) return;
    fz_check_dense(op, out);
    spt_dense_free(out);
}

spt_tensor *fz_sparse_partner(fz_in *in, const spt_tensor *a, bool product, bool adj_a, bool adj_b) {
    int64_t r = spt_tensor_rank(a), shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) shape[d] = spt_tensor_shape(a)[d];
    if (product && r >= 2) {
        int64_t k = shape[r - 1 - adj_a], n = fz_int(in, 6);
        shape[r - 2] = adj_b ? n : k;
        shape[r - 1] = adj_b ? k : n;
    }
    uint8_t m = fz_u8(in);
    if (m == 255 && r > 0) shape[fz_range(in, 0, r - 1)] = fz_int(in, 5);
    fz_tspec spec = {.dtype = m == 254 ? -1 : (int)spt_tensor_dtype(a),
                     .rank = m == 253 ? -1 : r,
                     .shape = m == 253 ? NULL : shape};
    return fz_tensor(in, &spec);
}

void fz_sparse_sparse(fz_in *in, spt_tensor *a, int which) {
    static const char *names[] = {"spt_sparse_sparse_matmul", "spt_multiply", "spt_subtract"};
    bool adj_a = fz_bool(in), adj_b = fz_bool(in), keep = fz_bool(in);
    spt_tensor *b = fz_sparse_partner(in, a, which == 0, adj_a, adj_b);
    if (!b) return;
    uint64_t ha = fz_hash_tensor(a), hb = fz_hash_tensor(b);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = which == 0   ? spt_sparse_sparse_matmul(a, b, adj_a, adj_b, keep, &out)
                    : which == 1 ? spt_multiply(a, b, &out)
                                 : spt_subtract(a, b, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_tensor(b) != hb) fz_die(names[which], "modified an input");
    if (st == SPT_OK && which == 0 && !keep && spt_tensor_dtype(out) >= SPT_FLOAT32 && spt_tensor_nnz(out) > 0) {
        /* without keep_zeros no stored value is zero (compared through the bytes for floats: NaN stays) */
        if (spt_tensor_dtype(out) == SPT_FLOAT64)
            for (int64_t i = 0; i < spt_tensor_nnz(out); i++)
                if (((const double *)spt_tensor_values(out))[i] == 0) fz_die(names[which], "a zero was kept");
    }
    fz_finish_tensor(names[which], st, out, true);
    spt_tensor_free(b);
}

void fz_unary(fz_in *in, spt_tensor *t, int kind) {
    uint64_t h = fz_hash_tensor(t);
    spt_tensor *out = FZ_SENTINEL;
    spt_status st;
    const char *op;
    fz_op_begin();
    if (kind == 0) {
        op = "spt_expand_dims";
        st = spt_expand_dims(t, fz_range(in, -spt_tensor_rank(t) - 2, spt_tensor_rank(t) + 1), &out);
    } else if (kind == 1) {
        op = "spt_map_values";
        st = spt_map_values(t, (spt_unary_op)(fz_u8(in) % (SPT_NUM_UNARY_OPS + 1)), &out);
    } else {
        op = "spt_cast";
        st = spt_cast(t, (spt_dtype)(fz_u8(in) % (SPT_NUM_DTYPES + 1)), &out);
    }
    fz_op_end();
    if (fz_hash_tensor(t) != h) fz_die(op, "modified the input");
    if (st == SPT_OK && (spt_tensor_nnz(out) != spt_tensor_nnz(t))) fz_die(op, "entry count changed");
    fz_finish_tensor(op, st, out, false);
}
