/* SPDX-License-Identifier: Apache-2.0 */
/* bincount.c -- tf.sparse.bincount (SparseCountSparseOutput / DenseCountSparseOutput): counts (or
 * weight sums, or presence) of integer values, over the whole input (axis 0) or per row of dim 0 (axis
 * -1), as a sparse tensor. Per row over rows that never decrease (row-sorted sparse input, any dense
 * input), each row's values are sorted on their own and its groups written in order (bc_rows); otherwise
 * the kept entries are ordered by (row, value) with two stable radix sorts -- one on the value, one on
 * the row -- so no index is ever linearized. A group's weights are summed in storage order either way. */
#include "ops/features/features_internal.h"

#define BC_OK(KIND) SPT__KINDS_REAL(KIND)

/* out[o] = sum of w[src[k]] for k in [lo, hi), in that order (integers wrap). */
#define BC_SUM(E, T, KIND)                                                                                             \
    static void wsum_##E(const void *w, const int64_t *src, int64_t lo, int64_t hi, void *out, int64_t o) {            \
        const T *w_ = w;                                                                                               \
        T acc_ = 0;                                                                                                    \
        for (int64_t k = lo; k < hi; k++) acc_ = SPT__ADD_##KIND(T, acc_, w_[src[k]]);                                 \
        ((T *)out)[o] = acc_;                                                                                          \
    }                                                                                                                  \
    static void wset_##E(void *out, int64_t o, int64_t v) { ((T *)out)[o] = (T)v; }
#define X(E, name, T, KIND) SPT__WHEN(BC_OK(KIND), BC_SUM(E, T, KIND))
#include "spt_dtypes.def"
#undef X
typedef void (*wsum_fn)(const void *, const int64_t *, int64_t, int64_t, void *, int64_t);
typedef void (*wset_fn)(void *, int64_t, int64_t);
static const wsum_fn wsum_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(BC_OK(KIND), [E] = wsum_##E, )
#include "spt_dtypes.def"
#undef X
};
static const wset_fn wset_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(BC_OK(KIND), [E] = wset_##E, )
#include "spt_dtypes.def"
#undef X
};

/* The input, flattened: n values; row of entry i = per_row ? (ix ? ix[i * ixstride] : i / cols) : 0. */
typedef struct {
    int64_t n;
    spt_dtype vdt;
    const void *vals;
    bool per_row;
    const int64_t *ix;
    int64_t ixstride, cols, nrows;
    const void *w; /* NULL: unweighted */
    spt_dtype wdt;
} bc_in;

static int64_t row_of(const bc_in *in, int64_t i) {
    if (!in->per_row) return 0;
    return in->ix ? in->ix[i * in->ixstride] : i / in->cols;
}

/* Sort k (value, position) pairs by value, stably (positions arrive increasing, so ties keep storage
 * order): insertion sort of runs of 16, then bottom-up merges through the scratch tv / tp. Returns the
 * arrays that hold the result (v/p or tv/tp). */
static void bc_sort(int64_t *v, int64_t *p, int64_t k, int64_t *tv, int64_t *tp, int64_t **rv, int64_t **rp) {
    for (int64_t lo = 0; lo < k; lo += 16) {
        int64_t hi = lo + 16 < k ? lo + 16 : k;
        for (int64_t i = lo + 1; i < hi; i++) {
            int64_t x = v[i], y = p[i], j = i;
            for (; j > lo && v[j - 1] > x; j--) {
                v[j] = v[j - 1];
                p[j] = p[j - 1];
            }
            v[j] = x;
            p[j] = y;
        }
    }
    for (int64_t width = 16; width < k; width *= 2) {
        for (int64_t lo = 0; lo < k; lo += 2 * width) {
            int64_t mid = lo + width < k ? lo + width : k, hi = lo + 2 * width < k ? lo + 2 * width : k;
            int64_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                bool left = v[a] <= v[b];
                tv[o] = left ? v[a] : v[b];
                tp[o++] = left ? p[a++] : p[b++];
            }
            for (; a < mid; a++, o++) tv[o] = v[a], tp[o] = p[a];
            for (; b < hi; b++, o++) tv[o] = v[b], tp[o] = p[b];
        }
        int64_t *t = v;
        v = tv;
        tv = t;
        t = p;
        p = tp;
        tp = t;
    }
    *rv = v;
    *rp = p;
}

/* Sort k distinct uint64 keys: insertion sort of runs of BC_RUN, then bottom-up merges through the scratch
 * t. Returns the array holding the result (a or t). */
#define BC_RUN 8
static uint64_t *bc_sort_keys(uint64_t *a, int64_t k, uint64_t *t) {
    for (int64_t lo = 0; lo < k; lo += BC_RUN) {
        int64_t hi = lo + BC_RUN < k ? lo + BC_RUN : k;
        for (int64_t i = lo + 1; i < hi; i++) {
            uint64_t x = a[i];
            int64_t j = i;
            for (; j > lo && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
    }
    for (int64_t width = BC_RUN; width < k; width *= 2) {
        for (int64_t lo = 0; lo < k; lo += 2 * width) {
            int64_t mid = lo + width < k ? lo + width : k, hi = lo + 2 * width < k ? lo + 2 * width : k;
            int64_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi) { /* branch-free: the keys come in random order */
                const uint64_t ax = a[x], ay = a[y];
                const bool take_y = ay < ax;
                t[o++] = take_y ? ay : ax;
                y += take_y;
                x += !take_y;
            }
            while (x < mid) t[o++] = a[x++];
            while (y < hi) t[o++] = a[y++];
        }
        uint64_t *sw = a;
        a = t;
        t = sw;
    }
    return a;
}

static bool bc_row_start(const void *ctx, int64_t i) {
    const bc_in *in = ctx;
    return row_of(in, i) != row_of(in, i - 1);
}

/* Per row, when the rows never decrease (a row-sorted sparse input, or any dense one): each row's kept
 * values are sorted with their positions (bc_sort) and its groups written in (row, value) order -- one
 * pass, no global sort. Threads take chunks of whole rows; chunk k writes its groups from entry bnd[k] of
 * an output of n entries, and the pieces are then moved together and the output truncated. */
static spt_status bc_rows(const char *fn, const bc_in *in, int64_t m, int64_t maxv, int64_t maxlength, bool binary,
                          spt_dtype odt, const int64_t *oshape, spt_tensor **out) {
    const int64_t n = in->n;
    spt_tensor *o = NULL;
    spt_status st = spt__tensor_alloc_uninit(fn, odt, 2, oshape, m > 0 ? n : 0, NULL, &o);
    if (st != SPT_OK) return st;
    if (m == 0) {
        *out = o;
        return SPT_OK;
    }
    const size_t es = spt_dtype_size(odt);
    const bool cut = maxlength >= 0;
    int nch = spt__nchunks(n, 8);
    int64_t bnd[SPT__MAX_CHUNKS + 1], ng[SPT__MAX_CHUNKS];
    spt__chunks(n, nch, bnd, bc_row_start, in);
    int nomem = 0;
#pragma omp parallel for schedule(static, 1) num_threads(nch) reduction(| : nomem) if (nch > 1)
    for (int c = 0; c < nch; c++) {
        int64_t g = bnd[c], cap = 0;
        int64_t *buf = NULL; /* 4 arrays of cap: values, positions, and their scratch */
        for (int64_t a = bnd[c]; a < bnd[c + 1] && !nomem;) {
            const int64_t r = row_of(in, a);
            int64_t b = a + 1;
            while (b < bnd[c + 1] && row_of(in, b) == r) b++;
            if (b - a > cap) {
                spt__free(buf);
                cap = b - a;
                buf = (size_t)cap <= SIZE_MAX / (4 * sizeof(int64_t)) ? spt__malloc((size_t)cap * 4 * sizeof(int64_t))
                                                                      : NULL;
                if (!buf) {
                    nomem = 1;
                    break;
                }
            }
            int64_t *pv = buf, *pp = buf + cap, k = 0;
            int64_t *sv, *sp;
            /* the position in the row fits in `bits`; below it the value fits too: one key per entry,
             * (value, position), sorted alone, else value and position sorted as pairs */
            int bits = 1;
            while (bits < 62 && ((b - a - 1) >> bits) != 0) bits++;
            if (bits < 62 && (maxv >> (63 - bits)) == 0) {
                uint64_t *key = (uint64_t *)buf;
                for (int64_t i = a; i < b; i++) {
                    bool huge;
                    int64_t v = spt__int_value(in->vdt, in->vals, i, &huge);
                    if (cut && (huge || v >= maxlength)) continue;
                    key[k++] = (uint64_t)v << bits | (uint64_t)(i - a);
                }
                uint64_t *sk = bc_sort_keys(key, k, (uint64_t *)(buf + 2 * cap));
                const uint64_t mask = ((uint64_t)1 << bits) - 1;
                for (int64_t x = 0; x < k; x++) {
                    pp[x] = a + (int64_t)(sk[x] & mask);
                    sk[x] >>= bits;
                }
                sv = (int64_t *)sk;
                sp = pp;
            } else {
                for (int64_t i = a; i < b; i++) {
                    bool huge;
                    int64_t v = spt__int_value(in->vdt, in->vals, i, &huge);
                    if (cut && (huge || v >= maxlength)) continue;
                    pv[k] = v;
                    pp[k++] = i;
                }
                bc_sort(pv, pp, k, buf + 2 * cap, buf + 3 * cap, &sv, &sp);
            }
            for (int64_t x = 0; x < k;) {
                int64_t y = x + 1;
                while (y < k && sv[y] == sv[x]) y++;
                o->indices[2 * g] = r;
                o->indices[2 * g + 1] = sv[x];
                if (binary) wset_table[odt](o->values, g, 1);
                else if (in->w) wsum_table[odt](in->w, sp, x, y, o->values, g);
                else wset_table[odt](o->values, g, y - x);
                g++;
                x = y;
            }
            a = b;
        }
        spt__free(buf);
        ng[c] = g - bnd[c];
    }
    if (nomem) {
        spt_tensor_free(o);
        return spt__err(SPT_ENOMEM, "%s: out of memory for the scratch of one row", fn);
    }
    int64_t total = ng[0];
    for (int c = 1; c < nch; c++) {
        if (ng[c] && total != bnd[c]) {
            memmove(o->indices + 2 * total, o->indices + 2 * bnd[c], (size_t)ng[c] * 2 * sizeof(int64_t));
            memmove((char *)o->values + (size_t)total * es, (char *)o->values + (size_t)bnd[c] * es,
                    (size_t)ng[c] * es);
        }
        total += ng[c];
    }
    spt__tensor_truncate(o, total);
    *out = o;
    return SPT_OK;
}

/* One row, unweighted, values in [0, maxv] (a small range): a dense count of the n values, no sort;
 * threads count their ranges into tables of their own (when the tables are small beside the input),
 * summed after. *o: the output of dtype odt and shape oshape (rank orank). */
static spt_status bc_dense_count(const char *fn, const bc_in *in, int64_t n, int64_t maxv, int64_t maxlength,
                                 bool binary, spt_dtype odt, int64_t orank, const int64_t *oshape, spt_tensor **po) {
    spt_status st = SPT_OK;
    spt_tensor *o = NULL;
    /* threads count their ranges into tables of their own (when the tables are small beside the
     * input), summed after */
    int nct = spt__threads_for(n);
    if ((maxv + 1) * nct > n / 4) nct = 1;
    int64_t *cnt = spt__alloc_array(fn, maxv + 1, nct, sizeof(int64_t), true, &st);
    if (!cnt) return st;
#pragma omp parallel for schedule(static, 1) num_threads(nct) if (nct > 1)
    for (int t = 0; t < nct; t++) {
        int64_t *mine = cnt + (int64_t)t * (maxv + 1);
        for (int64_t i = n / nct * t; i < (t == nct - 1 ? n : n / nct * (t + 1)); i++) {
            bool huge;
            int64_t v = spt__int_value(in->vdt, in->vals, i, &huge);
            if (!(maxlength >= 0 && (huge || v >= maxlength))) mine[v]++;
        }
    }
    for (int t = 1; t < nct; t++)
        for (int64_t v = 0; v <= maxv; v++) cnt[v] += cnt[(int64_t)t * (maxv + 1) + v];
    int64_t groups = 0;
    for (int64_t v = 0; v <= maxv; v++) groups += cnt[v] > 0;
    st = spt__tensor_alloc_uninit(fn, odt, orank, oshape, groups, NULL, &o);
    *po = o;
    if (st == SPT_OK) {
        int64_t g = 0;
        for (int64_t v = 0; v <= maxv; v++) {
            if (!cnt[v]) continue;
            if (in->per_row) {
                o->indices[2 * g] = 0;
                o->indices[2 * g + 1] = v;
            } else {
                o->indices[g] = v;
            }
            wset_table[odt](o->values, g++, binary ? 1 : cnt[v]);
        }
    }
    spt__free(cnt);
    return st;
}

/* The error for values[bad]: negative, or a uint64 past INT64_MAX. */
static spt_status bc_bad_value(const char *fn, const bc_in *in, int64_t bad) {
    bool huge;
    int64_t v = spt__int_value(in->vdt, in->vals, bad, &huge);
    if (v < 0)
        return spt__err(SPT_EINVAL, "%s: values[%lld] = %lld is negative (bincount takes non-negative values)", fn,
                        (long long)bad, (long long)v);
    return spt__err(SPT_EOVERFLOW, "%s: values[%lld] = %llu does not fit in int64", fn, (long long)bad,
                    (unsigned long long)((const uint64_t *)in->vals)[bad]);
}

static spt_status bincount(const char *fn, const bc_in *in, int64_t minlength, int64_t maxlength, bool binary,
                           spt_tensor **out) {
    spt_status st = SPT_OK;
    int64_t *keep = NULL, *perm = NULL, *ord = NULL;
    uint64_t *keys = NULL, *rkey = NULL;
    spt_tensor *o = NULL;
    const int64_t n = in->n;
    /* scan (threaded): every value >= 0 (a uint64 past INT64_MAX only when maxlength drops it); keep
     * those below maxlength; the largest kept value; whether the rows never decrease */
    int64_t m = 0, maxv = 0, bad = n;
    int unsorted = 0;
    const bool cut = maxlength >= 0;
    int nth SPT__OMP_VAR = spt__threads_for(n);
#pragma omp parallel for schedule(static) num_threads(nth) if (nth > 1) \
    reduction(min : bad) reduction(+ : m) reduction(max : maxv) reduction(| : unsorted)
    for (int64_t i = 0; i < n; i++) {
        bool huge;
        int64_t v = spt__int_value(in->vdt, in->vals, i, &huge);
        if (in->per_row && in->ix && i > 0 && in->ix[i * in->ixstride] < in->ix[(i - 1) * in->ixstride]) unsorted = 1;
        if (v < 0 || (huge && !cut)) {
            if (i < bad) bad = i;
            continue;
        }
        if (cut && (huge || v >= maxlength)) continue;
        if (v > maxv) maxv = v;
        m++;
    }
    if (bad < n) return bc_bad_value(fn, in, bad);
    int64_t width;
    if (maxlength >= 0) {
        width = maxlength;
    } else {
        if (maxv == INT64_MAX)
            return spt__err(SPT_EOVERFLOW, "%s: the output width, largest value %lld + 1, does not fit in int64", fn,
                            (long long)maxv);
        width = maxv + 1 > minlength ? maxv + 1 : minlength;
    }
    spt_dtype odt = in->w ? in->wdt : (in->vdt == SPT_INT32 ? SPT_INT32 : SPT_INT64);
    const int64_t orank = in->per_row ? 2 : 1;
    int64_t oshape[2];
    if (in->per_row) {
        oshape[0] = in->nrows;
        oshape[1] = width;
    } else {
        oshape[0] = width;
    }
    const bool one_row = !in->per_row || in->nrows <= 1;
    if (one_row && !in->w && maxv < 4 * m + 4096) {
        /* one row, unweighted, values in a small range: a dense count, no sort */
        SPT__CHECK(bc_dense_count(fn, in, n, maxv, maxlength, binary, odt, orank, oshape, &o));
    } else if (!one_row && !unsorted) {
        SPT__CHECK(bc_rows(fn, in, m, maxv, maxlength, binary, odt, oshape, &o));
    } else {
        /* keep[j]: the entries counted; vkey / rkey: their values / rows, sorted along with ord */
        keep = spt__alloc_array(fn, m, 1, sizeof(int64_t), false, &st);
        keys = keep ? spt__alloc_array(fn, m, 1, sizeof(uint64_t), false, &st) : NULL;
        perm = keys ? spt__alloc_array(fn, m, 1, sizeof(int64_t), false, &st) : NULL;
        ord = perm ? spt__alloc_array(fn, m, 1, sizeof(int64_t), false, &st) : NULL;
        rkey = ord && !one_row ? spt__alloc_array(fn, m, 1, sizeof(uint64_t), false, &st) : NULL;
        if (!ord || (!one_row && !rkey)) goto fail;
        int64_t j = 0;
        for (int64_t i = 0; i < n; i++) {
            bool huge;
            int64_t v = spt__int_value(in->vdt, in->vals, i, &huge);
            if (maxlength >= 0 && (huge || v >= maxlength)) continue;
            keep[j] = i;
            keys[j++] = (uint64_t)v;
        }
        /* stable sort by value (keys end sorted), then a second stable pass by row */
        SPT__CHECK(spt__radix_sort(fn, keys, perm, m, (uint64_t)maxv));
        for (int64_t k = 0; k < m; k++) ord[k] = keep[perm[k]];
        uint64_t *vkey = keys;
        if (!one_row) {
            for (int64_t k = 0; k < m; k++) rkey[k] = (uint64_t)row_of(in, ord[k]);
            SPT__CHECK(spt__radix_sort(fn, rkey, perm, m, (uint64_t)(in->nrows - 1)));
            for (int64_t k = 0; k < m; k++) keep[k] = ord[perm[k]];
            int64_t *t = ord;
            ord = keep;
            keep = t;
            /* the values in the new order: keep (now free) holds them */
            for (int64_t k = 0; k < m; k++) keep[k] = (int64_t)keys[perm[k]];
            vkey = (uint64_t *)keep;
        }
#define BC_SAME(a, b) (vkey[a] == vkey[b] && (one_row || rkey[a] == rkey[b]))
        int64_t groups = 0;
        for (int64_t k = 0; k < m; k++) groups += k == 0 || !BC_SAME(k, k - 1);
        SPT__CHECK(spt__tensor_alloc_uninit(fn, odt, orank, oshape, groups, NULL, &o));
        int64_t g = 0;
        for (int64_t a = 0; a < m;) {
            int64_t b = a + 1;
            while (b < m && BC_SAME(b, a)) b++;
            if (in->per_row) {
                o->indices[2 * g] = one_row ? 0 : (int64_t)rkey[a];
                o->indices[2 * g + 1] = (int64_t)vkey[a];
            } else {
                o->indices[g] = (int64_t)vkey[a];
            }
            if (binary) wset_table[odt](o->values, g, 1);
            else if (in->w) wsum_table[odt](in->w, ord, a, b, o->values, g);
            else wset_table[odt](o->values, g, b - a);
            g++;
            a = b;
        }
#undef BC_SAME
    }
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    *out = o;
    o = NULL;
fail:
    spt_tensor_free(o);
    spt__free(keep);
    spt__free(keys);
    spt__free(perm);
    spt__free(ord);
    spt__free(rkey);
    return st;
}

/* Parameter checks common to both entry points. */
static spt_status check_params(const char *fn, int64_t axis, int64_t minlength, int64_t maxlength, bool binary,
                               bool weighted, spt_dtype vdt, spt_dtype wdt) {
    if (axis != 0 && axis != -1)
        return spt__err(SPT_EINVAL, "%s: unsupported axis value %lld: only 0 and -1 are supported", fn,
                        (long long)axis);
    if (minlength < -1)
        return spt__err(SPT_EINVAL, "%s: minlength must be >= -1 (SPT_UNSET), got %lld", fn, (long long)minlength);
    if (maxlength < -1)
        return spt__err(SPT_EINVAL, "%s: maxlength must be >= -1 (SPT_UNSET), got %lld", fn, (long long)maxlength);
    if (binary && weighted)
        return spt__err(SPT_EINVAL, "%s: arguments binary_output and weights are mutually exclusive", fn);
    if (!spt_dtype_is_integer(vdt))
        return spt__err(SPT_EDTYPE, "%s: values must be integers, not %s", fn, spt_dtype_name(vdt));
    if (weighted && !wsum_table[wdt])
        return spt__err(SPT_EDTYPE, "%s: weights must be integers or floats, not %s", fn, spt_dtype_name(wdt));
    return SPT_OK;
}

spt_status spt_bincount(const spt_tensor *values, const spt_tensor *weights, int64_t axis, int64_t minlength,
                        int64_t maxlength, bool binary_output, spt_tensor **out) {
    static const char fn[] = "spt_bincount";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!values) return spt__err(SPT_EINVAL, "%s: values is NULL", fn);
    SPT__TRY(check_params(fn, axis, minlength, maxlength, binary_output, weights != NULL, values->dtype,
                          weights ? weights->dtype : SPT_FLOAT32));
    if (weights) {
        if (weights->rank != values->rank)
            return spt__err(SPT_EINVAL,
                            "%s: 'weights' and 'values' must have the same dense shape (ranks %lld and %lld)", fn,
                            (long long)weights->rank, (long long)values->rank);
        for (int64_t d = 0; d < values->rank; d++)
            if (weights->shape[d] != values->shape[d])
                return spt__err(SPT_EINVAL,
                                "%s: 'weights' and 'values' must have the same dense shape (dim %lld: %lld vs %lld)",
                                fn, (long long)d, (long long)weights->shape[d], (long long)values->shape[d]);
        if (weights->nnz != values->nnz)
            return spt__err(SPT_EINVAL, "%s: 'weights' and 'values' must have the same indices (%lld vs %lld entries)",
                            fn, (long long)weights->nnz, (long long)values->nnz);
        const int64_t r = values->rank;
        for (int64_t i = 0; i < values->nnz; i++)
            if (spt__cmp_rows(values->indices + i * r, weights->indices + i * r, r, NULL))
                return spt__err(SPT_EINVAL,
                                "%s: 'weights' and 'values' must have the same indices (entry %lld differs)", fn,
                                (long long)i);
    }
    if (axis == -1 && values->rank == 0)
        return spt__err(SPT_EINVAL, "%s: the shape argument requires at least one element (rank-0 values with axis -1)",
                        fn);
    SPT__TRY(spt__ensure_valid(fn, values));
    bc_in in = {values->nnz,
                values->dtype,
                values->values,
                axis == -1 && values->rank >= 2,
                values->indices,
                values->rank,
                1,
                values->rank >= 1 ? values->shape[0] : 1,
                weights ? weights->values : NULL,
                weights ? weights->dtype : SPT_FLOAT32};
    return bincount(fn, &in, minlength, maxlength, binary_output, out);
}

spt_status spt_bincount_dense(const spt_dense *values, const spt_dense *weights, int64_t axis, int64_t minlength,
                              int64_t maxlength, bool binary_output, spt_tensor **out) {
    static const char fn[] = "spt_bincount_dense";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!values) return spt__err(SPT_EINVAL, "%s: values is NULL", fn);
    SPT__TRY(check_params(fn, axis, minlength, maxlength, binary_output, weights != NULL, values->dtype,
                          weights ? weights->dtype : SPT_FLOAT32));
    if (weights) {
        bool same = weights->rank == values->rank;
        for (int64_t d = 0; same && d < values->rank; d++) same = weights->shape[d] == values->shape[d];
        if (!same) {
            char a[SPT__IDXBUF], b[SPT__IDXBUF];
            spt__fmt_index(a, sizeof a, weights->shape, weights->rank);
            spt__fmt_index(b, sizeof b, values->shape, values->rank);
            return spt__err(SPT_EINVAL, "%s: 'weights' and 'values' must have the same shape (weights %s, values %s)",
                            fn, a, b);
        }
    }
    if (axis == -1 && (values->rank < 1 || values->rank > 2))
        return spt__err(SPT_EINVAL, "%s: input must be a 1 or 2-dimensional tensor with axis -1, got rank %lld", fn,
                        (long long)values->rank);
    bool per_row = axis == -1 && values->rank == 2;
    bc_in in = {values->size,
                values->dtype,
                values->data,
                per_row,
                NULL,
                0,
                per_row ? values->shape[1] : 1,
                per_row ? values->shape[0] : 1,
                weights ? weights->data : NULL,
                weights ? weights->dtype : SPT_FLOAT32};
    return bincount(fn, &in, minlength, maxlength, binary_output, out);
}
