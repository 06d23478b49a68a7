/* SPDX-License-Identifier: Apache-2.0 */
/* reshape.c -- SparseReshape: each index -> its row-major offset in the input shape -> unravelled in
 * the new shape. At most one -1 (inferred). The entry order is kept (row-major sorted stays sorted). */
#include "ops/layout/layout_internal.h"

/* ---- exact volumes: unsigned integers of up to SPT_MAX_RANK + 1 64-bit limbs (little-endian) -------- */

typedef struct {
    int n; /* limbs in use; 0 is the value 0 */
    uint64_t w[SPT_MAX_RANK + 1];
} big;

static void big_set(big *b, uint64_t v) {
    b->n = v ? 1 : 0;
    b->w[0] = v;
}

/* b = b * m + a (m, a < 2^63; the product of up to SPT_MAX_RANK dims never needs more limbs) */
static void big_muladd(big *b, uint64_t m, uint64_t a) {
    unsigned __int128 carry = a;
    for (int i = 0; i < b->n; i++) {
        unsigned __int128 x = (unsigned __int128)b->w[i] * m + carry;
        b->w[i] = (uint64_t)x;
        carry = x >> 64;
    }
    if (carry && b->n <= SPT_MAX_RANK) b->w[b->n++] = (uint64_t)carry;
    while (b->n > 0 && b->w[b->n - 1] == 0) b->n--;
}

/* b = b / m, returns b % m (m > 0) */
static uint64_t big_divmod(big *b, uint64_t m) {
    unsigned __int128 rem = 0;
    for (int i = b->n - 1; i >= 0; i--) {
        unsigned __int128 x = rem << 64 | b->w[i];
        b->w[i] = (uint64_t)(x / m);
        rem = x % m;
    }
    while (b->n > 0 && b->w[b->n - 1] == 0) b->n--;
    return (uint64_t)rem;
}

static int big_cmp(const big *a, const big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* The product of dims[0..r) except `skip`. */
static void big_volume(big *b, const int64_t *dims, int64_t r, int64_t skip) {
    big_set(b, 1);
    for (int64_t d = 0; d < r; d++)
        if (d != skip) big_muladd(b, (uint64_t)dims[d], 0);
}

/* Decimal digits of b into buf (cap >= 1300 for SPT_MAX_RANK + 1 limbs). */
static void big_dec(const big *b, char *buf, size_t cap) {
    big x = *b;
    char tmp[1400];
    size_t n = 0;
    do {
        uint64_t part = big_divmod(&x, 1000000000000000000ull);
        for (int k = 0; k < 18 && (x.n > 0 || part > 0 || k == 0) && n < sizeof tmp; k++) {
            tmp[n++] = (char)('0' + part % 10);
            part /= 10;
        }
    } while (x.n > 0 && n < sizeof tmp);
    size_t m = n < cap - 1 ? n : cap - 1;
    for (size_t i = 0; i < m; i++) buf[i] = tmp[n - 1 - i];
    buf[m] = 0;
}

/* The exact checks of spt_reshape when a volume does not fit in int64: the inferred dim (unknown >= 0),
 * or equal volumes. */
static spt_status check_big(const char *fn, const spt_tensor *t, int64_t *shape, int64_t nr, int64_t unknown) {
    big vol, prod;
    char a[1400], b[1400];
    big_volume(&vol, t->shape, t->rank, -1);
    big_volume(&prod, shape, nr, unknown);
    if (unknown < 0) {
        if (big_cmp(&vol, &prod) != 0) {
            big_dec(&vol, a, sizeof a);
            big_dec(&prod, b, sizeof b);
            return spt__err(SPT_EINVAL,
                            "%s: Input to reshape is a tensor with %s dense values, but the requested shape has %s", fn,
                            a, b);
        }
        return SPT_OK;
    }
    /* the largest q <= INT64_MAX with prod * q <= vol (prod > 0 here), then prod * q == vol */
    uint64_t lo = 0, hi = INT64_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        big x = prod;
        big_muladd(&x, mid, 0);
        if (big_cmp(&x, &vol) <= 0) lo = mid;
        else hi = mid - 1;
    }
    big x = prod;
    big_muladd(&x, lo, 0);
    if (big_cmp(&x, &vol) != 0) {
        big_dec(&vol, a, sizeof a);
        big_dec(&prod, b, sizeof b);
        return spt__err(
            SPT_EINVAL,
            "%s: Input to reshape is a SparseTensor with %s dense values, but the requested shape requires a "
            "multiple of %s (with an inferred dim of at most %lld)",
            fn, a, b, (long long)INT64_MAX);
    }
    shape[unknown] = (int64_t)lo;
    return SPT_OK;
}

spt_status spt_reshape(const spt_tensor *t, int64_t new_rank, const int64_t *new_shape, spt_tensor **out) {
    static const char fn[] = "spt_reshape";
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t) return spt__err(SPT_EINVAL, "%s: tensor is NULL", fn);
    if (new_rank < 0 || new_rank > SPT_MAX_RANK)
        return spt__err(SPT_EINVAL, "%s: new rank %lld outside [0, %d]", fn, (long long)new_rank, SPT_MAX_RANK);
    if (new_rank > 0 && !new_shape) return spt__err(SPT_EINVAL, "%s: new_shape is NULL", fn);
    int64_t shape[SPT_MAX_RANK], unknown = -1, product = 1;
    bool zero = false;
    for (int64_t d = 0; d < new_rank; d++) {
        shape[d] = new_shape[d];
        if (new_shape[d] == -1) {
            if (unknown >= 0)
                return spt__err(SPT_EINVAL, "%s: only one output dimension may be -1, not both %lld and %lld", fn,
                                (long long)unknown, (long long)d);
            unknown = d;
        } else if (new_shape[d] < 0) {
            return spt__err(SPT_EINVAL, "%s: size %lld must be non-negative, not %lld", fn, (long long)d,
                            (long long)new_shape[d]);
        } else if (new_shape[d] == 0) {
            zero = true;
        }
    }
    bool big_product = false;
    for (int64_t d = 0; d < new_rank && !zero; d++)
        if (d != unknown && spt__mul_i64(product, new_shape[d], &product)) big_product = true;
    if (zero) product = 0;
    const int64_t volume = t->volume;
    if (!zero && (volume < 0 || big_product)) {
        /* a volume past INT64_MAX on either side: exact comparison in wide arithmetic */
        SPT__TRY(check_big(fn, t, shape, new_rank, unknown));
    } else if (unknown >= 0) {
        if (product == 0)
            return spt__err(SPT_EINVAL,
                            "%s: reshape cannot infer the missing input size for an empty tensor unless all specified "
                            "input sizes are non-zero",
                            fn);
        if (volume % product != 0)
            return spt__err(SPT_EINVAL,
                            "%s: Input to reshape is a SparseTensor with %lld dense values, but the requested shape "
                            "requires a multiple of %lld",
                            fn, (long long)volume, (long long)product);
        shape[unknown] = volume / product;
    } else if (product != volume) {
        if (volume < 0)
            return spt__err(
                SPT_EINVAL,
                "%s: Input to reshape is a tensor with more than %lld dense values, but the requested shape has %lld",
                fn, (long long)INT64_MAX, (long long)product);
        return spt__err(SPT_EINVAL,
                        "%s: Input to reshape is a tensor with %lld dense values, but the requested shape has %lld", fn,
                        (long long)volume, (long long)product);
    }
    SPT__TRY(spt__ensure_valid(fn, t));
    const int64_t n = t->nnz, r = t->rank;
    bool same = new_rank == r;
    for (int64_t d = 0; d < r && same; d++) same = shape[d] == t->shape[d];
    if (same) {
        SPT__TRY(spt__layout_select(fn, t, NULL, NULL, n, NULL, out));
        for (int64_t d = 0; d < r; d++) (*out)->order[d] = t->order[d];
        (*out)->flags = t->flags;
        return SPT_OK;
    }
    SPT__CHECK(spt__tensor_alloc_uninit(fn, t->dtype, new_rank, shape, n, NULL, &o));
    const int64_t nr = new_rank;
    const int nth SPT__OMP_VAR = spt__threads_for(n * (r + nr));
    if (t->volume < 0) { /* offsets past INT64_MAX: wide arithmetic, per entry */
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t i = 0; i < n; i++) {
            const int64_t *row = t->indices + i * r;
            big off;
            big_set(&off, 0);
            for (int64_t d = 0; d < r; d++) big_muladd(&off, (uint64_t)t->shape[d], (uint64_t)row[d]);
            int64_t *dst = o->indices + i * nr;
            for (int64_t d = nr - 1; d >= 0; d--) dst[d] = (int64_t)big_divmod(&off, (uint64_t)shape[d]);
        }
    } else {
#pragma omp parallel for schedule(static) num_threads(nth)
        for (int64_t i = 0; i < n; i++) {
            const int64_t *row = t->indices + i * r;
            int64_t off = 0; /* < volume: fits */
            for (int64_t d = 0; d < r; d++) off = off * t->shape[d] + row[d];
            int64_t *dst = o->indices + i * nr;
            for (int64_t d = nr - 1; d >= 0; d--) {
                dst[d] = off % shape[d];
                off /= shape[d];
            }
        }
    }
    if (n > 0) memcpy(o->values, t->values, (size_t)n * spt_dtype_size(t->dtype));
    SPT__CHECK(spt__layout_own_strings(o));
    /* the row-major offset is unchanged, so row-major sortedness carries over */
    if (spt_tensor_is_row_major(t, true))
        spt__set_row_major(o, SPT__F_VALID | (t->flags & (SPT__F_SORTED | SPT__F_UNIQUE)));
    else o->flags = SPT__F_VALID;
    *out = o;
    return SPT_OK;
fail:
    spt_tensor_free(o);
    return st;
}
