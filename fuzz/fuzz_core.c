/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_core.c -- construction, validate, IndicesValid, reorder, argsort, group, clone/set_*, and the
 * dense conversions (to_dense, to_dense_into, from_dense, sparse_to_dense) on decoded inputs. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

/* An order-independent fingerprint of the entries (index row + value), to check that reorder permutes. */
static uint64_t entry_multiset(const spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    const int64_t *ix = spt_tensor_indices(t);
    size_t es = spt_dtype_size(spt_tensor_dtype(t));
    const unsigned char *v = spt_tensor_values(t);
    uint64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = 1469598103934665603ull;
        for (int64_t d = 0; d < r; d++) h = (h ^ (uint64_t)ix[i * r + d]) * 1099511628211ull;
        if (spt_tensor_dtype(t) == SPT_STRING) {
            const spt_str *s = (const spt_str *)v + i;
            for (int64_t b = 0; b < s->len; b++) h = (h ^ (unsigned char)s->data[b]) * 1099511628211ull;
        } else {
            for (size_t b = 0; b < es; b++) h = (h ^ v[(size_t)i * es + b]) * 1099511628211ull;
        }
        sum += h * 0x9E3779B97F4A7C15ull;
    }
    return sum;
}

static int64_t add_sat(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static bool any_oob(const spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    const int64_t *ix = spt_tensor_indices(t), *sh = spt_tensor_shape(t);
    for (int64_t i = 0; i < n; i++)
        for (int64_t d = 0; d < r; d++)
            if (ix[i * r + d] < 0 || ix[i * r + d] >= sh[d]) return true;
    return false;
}

static int cmp_by(const int64_t *a, const int64_t *b, int64_t r, const int64_t *order) {
    for (int64_t k = 0; k < r; k++) {
        int64_t d = order ? order[k] : k;
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    }
    return 0;
}

static void do_validate(fz_in *in, spt_tensor *t) {
    (void)in;
    uint64_t h = fz_hash_tensor(t);
    fz_op_begin();
    spt_status st = spt_validate(t);
    fz_op_end();
    fz_check_status("spt_validate", st, NULL);
    if (st == SPT_OK) fz_check_tensor("spt_validate", t);
    else if (st != SPT_ERANGE || !any_oob(t))
        fz_die("spt_validate", "refused a tensor whose indices are all in bounds");
    if (fz_hash_tensor(t) != h) fz_die("spt_validate", "modified the tensor");
    st = spt_indices_valid(t);
    fz_check_status("spt_indices_valid", st, NULL);
    if (st == SPT_OK) {
        fz_check_tensor("spt_indices_valid", t);
        int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
        const int64_t *ix = spt_tensor_indices(t), *o = spt_tensor_order(t);
        bool defined = r == 0 || o[0] >= 0;
        for (int64_t i = 1; i < n; i++)
            if (cmp_by(ix + (i - 1) * r, ix + i * r, r, defined ? o : NULL) >= 0)
                fz_die("spt_indices_valid", "accepted entries that are not strictly increasing");
    }
}

static void do_reorder(fz_in *in, spt_tensor *t) {
    int64_t order[SPT_MAX_RANK];
    bool ho = fz_order(in, spt_tensor_rank(t), order);
    uint64_t h = fz_hash_tensor(t), m = entry_multiset(t);
    bool oob = any_oob(t);
    /* the out-of-place form first: it must leave t alone and, when it works, equal the in-place one */
    spt_tensor *copy = NULL;
    fz_op_begin();
    spt_status st2 = spt_reordered(t, ho ? order : NULL, &copy);
    fz_op_end();
    bool refused2 = fz_failed();
    fz_check_status("spt_reordered", st2, NULL);
    if (fz_hash_tensor(t) != h) fz_die("spt_reordered", "modified its input");
    if (st2 != SPT_OK && copy) fz_die("spt_reordered", "failed but set the output");
    if (st2 == SPT_OK && oob) fz_die("spt_reordered", "sorted a tensor with an index out of bounds");
    fz_op_begin();
    spt_status st = spt_reorder(t, ho ? order : NULL);
    fz_op_end();
    fz_check_status("spt_reorder", st, NULL);
    if (!refused2 && !fz_failed() && st2 != st) fz_die("spt_reordered", "status differs from spt_reorder's");
    if (st == SPT_OK && st2 == SPT_OK && fz_hash_tensor(copy) != fz_hash_tensor(t))
        fz_die("spt_reordered", "result differs from spt_reorder's");
    spt_tensor_free(copy);
    if (st != SPT_OK) {
        if (fz_hash_tensor(t) != h) fz_die("spt_reorder", "failed but modified the tensor");
        if (st == SPT_ERANGE && !oob) fz_die("spt_reorder", "ERANGE without an index out of bounds");
        return;
    }
    if (oob) fz_die("spt_reorder", "sorted a tensor with an index out of bounds");
    fz_check_tensor("spt_reorder", t);
    if (!spt_tensor_known_sorted(t)) fz_die("spt_reorder", "result not flagged sorted");
    if (entry_multiset(t) != m) fz_die("spt_reorder", "entries changed");
    const int64_t *o = spt_tensor_order(t);
    for (int64_t d = 0; d < spt_tensor_rank(t); d++)
        if (o[d] != (ho ? order[d] : d)) fz_die("spt_reorder", "order not recorded");
}

static void do_argsort(fz_in *in, spt_tensor *t) {
    int64_t order[SPT_MAX_RANK];
    bool ho = fz_order(in, spt_tensor_rank(t), order);
    int64_t n = spt_tensor_nnz(t), r = spt_tensor_rank(t);
    int64_t *perm = malloc((size_t)n * sizeof *perm + 1);
    if (!perm) abort();
    uint64_t h = fz_hash_tensor(t);
    fz_op_begin();
    spt_status st = spt_argsort(t, ho ? order : NULL, perm);
    fz_op_end();
    fz_check_status("spt_argsort", st, NULL);
    if (fz_hash_tensor(t) != h) fz_die("spt_argsort", "modified the tensor");
    if (st == SPT_OK) {
        char *seen = calloc((size_t)n + 1, 1);
        if (!seen) abort();
        const int64_t *ix = spt_tensor_indices(t);
        for (int64_t k = 0; k < n; k++) {
            if (perm[k] < 0 || perm[k] >= n || seen[perm[k]]) fz_die("spt_argsort", "not a permutation");
            seen[perm[k]] = 1;
            if (k > 0) {
                int c = cmp_by(ix + perm[k - 1] * r, ix + perm[k] * r, r, ho ? order : NULL);
                if (c > 0 || (c == 0 && perm[k - 1] > perm[k])) fz_die("spt_argsort", "not a stable sort");
            }
        }
        free(seen);
    }
    free(perm);
}

static void do_group(fz_in *in, spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), dims[SPT_MAX_RANK];
    int64_t nd = fz_range(in, 0, r + 1);
    const int64_t *o = spt_tensor_order(t);
    bool prefix = fz_u8(in) & 3;
    for (int64_t i = 0; i < nd; i++) dims[i] = prefix && i < r ? o[i] : fz_int(in, r);
    if (fz_u8(in) == 255) nd = -1;
    spt_group_iter *it = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_group_begin(t, dims, nd, &it);
    fz_op_end();
    fz_check_status("spt_group_begin", st, it);
    if (st != SPT_OK) return;
    spt_group g;
    int64_t next = 0, n = spt_tensor_nnz(t);
    const int64_t *ix = spt_tensor_indices(t);
    while (spt_group_next(it, &g)) {
        if (g.start != next || g.count < 1 || g.start + g.count > n) fz_die("spt_group_next", "groups not contiguous");
        if (g.indices != ix + g.start * r) fz_die("spt_group_next", "wrong indices view");
        for (int64_t j = 0; j < g.count; j++)
            for (int64_t k = 0; k < nd; k++)
                if (g.indices[j * r + dims[k]] != g.key[k]) fz_die("spt_group_next", "entry differs from the key");
        next = g.start + g.count;
    }
    if (next != n) fz_die("spt_group_next", "groups do not cover the entries");
    if (spt_group_next(it, &g)) fz_die("spt_group_next", "a group after the end");
    spt_group_end(it);
}

static void do_to_dense(fz_in *in, spt_tensor *t) {
    if (spt_tensor_volume(t) < 0) { /* past INT64_MAX: no dense array, an overflow error (or the index error
                                     * of an invalid tensor, which is checked first) */
        spt_dense *d = NULL;
        spt_status st = spt_to_dense(t, NULL, false, &d);
        if (d || (st != SPT_EOVERFLOW && st != SPT_ERANGE && st != SPT_EINVAL))
            fz_die("spt_to_dense", "a volume past INT64_MAX did not overflow");
        return;
    }
    if (spt_tensor_volume(t) > 4096) return;
    uint64_t h = fz_hash_tensor(t);
    spt_dtype dt = spt_tensor_dtype(t);
    unsigned char dv[16] = {0};
    spt_str sdv;
    char sbuf[4];
    const void *dvp = NULL;
    if (fz_bool(in)) {
        if (dt == SPT_STRING) {
            sdv.len = fz_u8(in) % 4;
            fz_bytes(in, sbuf, (size_t)sdv.len);
            sdv.data = sbuf;
            dvp = &sdv;
        } else {
            fz_bytes(in, dv, spt_dtype_size(dt));
            if (dt == SPT_BOOL) dv[0] &= 1;
            dvp = dv;
        }
    }
    bool vi = fz_bool(in);
    spt_dense *d = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_to_dense(t, dvp, vi, &d);
    fz_op_end();
    fz_check_status("spt_to_dense", st, d);
    if (fz_hash_tensor(t) != h) fz_die("spt_to_dense", "modified the tensor");
    if (st == SPT_OK) {
        fz_check_dense("spt_to_dense", d);
        if (spt_dense_size(d) != spt_tensor_volume(t)) fz_die("spt_to_dense", "size != volume");
        if (any_oob(t)) fz_die("spt_to_dense", "accepted an index out of bounds");
    } else if (st == SPT_ERANGE && !any_oob(t)) {
        fz_die("spt_to_dense", "ERANGE without an index out of bounds");
    }
    spt_dense_free(d);
    /* into a caller's array, maybe larger, maybe of another rank */
    int64_t r = spt_tensor_rank(t), shape[SPT_MAX_RANK];
    int64_t orank = fz_u8(in) == 7 ? r + 1 : r;
    if (orank > SPT_MAX_RANK) orank = SPT_MAX_RANK;
    for (int64_t k = 0; k < orank; k++) shape[k] = add_sat(k < r ? spt_tensor_shape(t)[k] : 1, fz_range(in, -1, 2));
    spt_dense *od = NULL;
    if (spt_shape_volume(orank, shape, NULL) == SPT_OK) {
        int64_t vol;
        spt_shape_volume(orank, shape, &vol);
        if (vol <= 8192 && spt_dense_new(dt, orank, shape, &od) == SPT_OK) {
            fz_op_begin();
            st = spt_to_dense_into(t, od, fz_bool(in), dvp);
            fz_op_end();
            fz_check_status("spt_to_dense_into", st, NULL);
            fz_check_dense("spt_to_dense_into", od);
            spt_dense_free(od);
        }
    }
}

static void do_from_dense(fz_in *in) {
    int dt = fz_u8(in) % SPT_NUM_DTYPES;
    int64_t r = fz_u8(in) % 4, shape[4];
    for (int64_t k = 0; k < r; k++) shape[k] = fz_u8(in) % 5;
    spt_dense *d = fz_dense(in, dt, r, shape);
    if (!d) return;
    unsigned char dv[16] = {0};
    const void *dvp = NULL;
    if (dt != SPT_STRING && fz_bool(in)) {
        fz_bytes(in, dv, spt_dtype_size((spt_dtype)dt));
        if (dt == SPT_BOOL) dv[0] &= 1;
        dvp = dv;
    }
    uint64_t h = fz_hash_dense(d);
    spt_tensor *t = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_from_dense(d, dvp, &t);
    fz_op_end();
    fz_check_status("spt_from_dense", st, t);
    if (fz_hash_dense(d) != h) fz_die("spt_from_dense", "modified the dense array");
    if (st == SPT_OK) {
        fz_check_tensor("spt_from_dense", t);
        if (!spt_tensor_known_sorted(t) || !spt_tensor_is_row_major(t, true))
            fz_die("spt_from_dense", "not row-major sorted");
        if (spt_tensor_nnz(t) > spt_dense_size(d)) fz_die("spt_from_dense", "more entries than elements");
        if (spt_indices_valid(t) != SPT_OK) fz_die("spt_from_dense", "entries not strictly increasing");
        /* round trip for exact dtypes */
        if (!dvp && !spt_dtype_is_float((spt_dtype)dt) && !spt_dtype_is_complex((spt_dtype)dt)) {
            spt_dense *back = NULL;
            if (spt_to_dense(t, NULL, true, &back) != SPT_OK) fz_die("spt_to_dense", "round trip failed");
            if (fz_hash_dense(back) != h) fz_die("spt_from_dense", "round trip differs");
            spt_dense_free(back);
        }
    }
    spt_tensor_free(t);
    spt_dense_free(d);
}

static void do_sparse_to_dense(fz_in *in) {
    int idt = fz_bool(in) ? SPT_INT64 : SPT_INT32;
    int64_t irank = fz_u8(in) % 4; /* 3 is refused */
    int64_t n = fz_u8(in) % 6, r = fz_u8(in) % 4;
    int64_t idims[3] = {n, r, 1};
    if (irank == 1) idims[0] = n;
    spt_dense *ix = NULL, *os = NULL, *sv = NULL, *dv = NULL, *out = FZ_SENTINEL;
    int64_t rr = irank == 2 ? r : 1;
    int64_t osn = fz_u8(in) == 3 ? rr + 1 : rr;
    int vdt = fz_u8(in) % SPT_NUM_DTYPES;
    int64_t svr = fz_u8(in) == 9 ? 0 : 1, svn = irank == 0 ? 1 : n;
    if (fz_u8(in) == 10) svn++;
    int64_t dvr = fz_u8(in) == 11 ? 1 : 0, one = 1;
    if (spt_dense_new((spt_dtype)idt, irank, idims, &ix) != SPT_OK) goto done;
    if (spt_dense_new((spt_dtype)idt, 1, &osn, &os) != SPT_OK) goto done;
    if (spt_dense_new((spt_dtype)vdt, svr, &svn, &sv) != SPT_OK) goto done;
    if (spt_dense_new((spt_dtype)vdt, dvr, &one, &dv) != SPT_OK) goto done;
    for (int64_t i = 0; i < spt_dense_size(os); i++) {
        int64_t v = fz_int(in, 4);
        if (idt == SPT_INT32) ((int32_t *)spt_dense_data_mut(os))[i] = (int32_t)v;
        else ((int64_t *)spt_dense_data_mut(os))[i] = v;
    }
    for (int64_t i = 0; i < spt_dense_size(ix); i++) {
        int64_t v = fz_int(in, 4);
        if (idt == SPT_INT32) ((int32_t *)spt_dense_data_mut(ix))[i] = (int32_t)v;
        else ((int64_t *)spt_dense_data_mut(ix))[i] = v;
    }
    if (vdt != SPT_STRING && vdt != SPT_BOOL) {
        fz_bytes(in, spt_dense_data_mut(sv), (size_t)spt_dense_size(sv) * spt_dtype_size((spt_dtype)vdt));
        fz_bytes(in, spt_dense_data_mut(dv), (size_t)spt_dense_size(dv) * spt_dtype_size((spt_dtype)vdt));
    } else if (vdt == SPT_STRING) {
        for (int64_t i = 0; i < spt_dense_size(sv); i++) {
            char b[3];
            fz_bytes(in, b, 3);
            spt_dense_set_string(sv, i, b, fz_u8(in) % 4);
        }
    }
    /* a huge but representable output is a legitimate allocation: skip it; an overflow is refused */
    int64_t vol = 1;
    bool ovf = false, zero = false, neg = false;
    for (int64_t i = 0; i < spt_dense_size(os); i++) {
        int64_t v = idt == SPT_INT32 ? ((int32_t *)spt_dense_data(os))[i] : ((int64_t *)spt_dense_data(os))[i];
        if (v < 0) neg = true;
        else if (v == 0) zero = true;
        else if (__builtin_mul_overflow(vol, v, &vol)) ovf = true;
    }
    if (!neg && !zero && !ovf && vol > 65536) goto done;
    fz_op_begin();
    spt_status st = spt_sparse_to_dense(ix, os, sv, dv, fz_bool(in), &out);
    fz_op_end();
    fz_check_status("spt_sparse_to_dense", st, out);
    if (st == SPT_OK) fz_check_dense("spt_sparse_to_dense", out);
    if (st == SPT_OK && (neg || (ovf && !zero)))
        fz_die("spt_sparse_to_dense", "accepted a negative or overflowing shape");
done:
    if (out != FZ_SENTINEL) spt_dense_free(out);
    spt_dense_free(ix);
    spt_dense_free(os);
    spt_dense_free(sv);
    spt_dense_free(dv);
}

static void do_mutate(fz_in *in, spt_tensor *t) {
    spt_tensor *c = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_tensor_clone(t, &c);
    fz_op_end();
    fz_check_status("spt_tensor_clone", st, c);
    if (st != SPT_OK) return;
    if (fz_hash_tensor(c) != fz_hash_tensor(t)) fz_die("spt_tensor_clone", "clone differs");
    int64_t r = spt_tensor_rank(c), shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++)
        shape[d] = fz_bool(in) ? add_sat(spt_tensor_shape(c)[d], fz_range(in, -2, 2)) : fz_int(in, 5);
    uint64_t h = fz_hash_tensor(c);
    st = spt_tensor_set_shape(c, shape);
    fz_check_status("spt_tensor_set_shape", st, NULL);
    if (st != SPT_OK && fz_hash_tensor(c) != h) fz_die("spt_tensor_set_shape", "failed but changed the tensor");
    int64_t order[SPT_MAX_RANK];
    bool ho = fz_order(in, r, order);
    h = fz_hash_tensor(c);
    st = spt_tensor_set_order(c, ho ? order : NULL);
    fz_check_status("spt_tensor_set_order", st, NULL);
    if (st != SPT_OK && fz_hash_tensor(c) != h) fz_die("spt_tensor_set_order", "failed but changed the tensor");
    if (spt_tensor_known_sorted(c) && st == SPT_OK) fz_die("spt_tensor_set_order", "kept the sorted flag");
    if (spt_tensor_dtype(c) == SPT_STRING) {
        char b[5];
        fz_bytes(in, b, 5);
        fz_op_begin();
        st = spt_tensor_set_string(c, fz_int(in, spt_tensor_nnz(c)), b, fz_range(in, -1, 5));
        fz_op_end();
        fz_check_status("spt_tensor_set_string", st, NULL);
    }
    st = spt_validate(c);
    fz_check_status("spt_validate", st, NULL);
    if (st == SPT_OK) {
        fz_check_tensor("spt_validate", c);
        do_group(in, c);
        do_to_dense(in, c);
        if (fz_bool(in)) {
            int64_t perm[32];
            if (spt_tensor_nnz(c) <= 32) {
                st = spt_argsort(c, NULL, perm);
                fz_check_status("spt_argsort", st, NULL);
            }
        }
    }
    spt_tensor_free(c);
}

static void act_reorder_group(fz_in *in, spt_tensor *t) {
    do_reorder(in, t);
    do_group(in, t);
}
static void act_from_dense(fz_in *in, spt_tensor *t) {
    (void)t;
    do_from_dense(in);
}
static void act_sparse_to_dense(fz_in *in, spt_tensor *t) {
    (void)t;
    do_sparse_to_dense(in);
}

static const fz_action actions[] = {
    {"validate", FZ_OP(spt_validate), do_validate, false},
    {"reorder_group", FZ_OP(spt_reorder), act_reorder_group, false},
    {"argsort", FZ_OP(spt_argsort), do_argsort, false},
    {"group", FZ_OP(spt_group_begin), do_group, false},
    {"to_dense", FZ_OP(spt_to_dense), do_to_dense, false},
    {"mutate", FZ_OP(spt_tensor_set_string), do_mutate, false},
    {"from_dense", FZ_OP(spt_from_dense), act_from_dense, true},
    {"sparse_to_dense", FZ_OP(spt_sparse_to_dense), act_sparse_to_dense, true},
};
FZ_ALSO(FZ_OP(spt_reordered), FZ_OP(spt_indices_valid), FZ_OP(spt_to_dense_into));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_action *a = &actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)];
    if (a->alone) {
        a->run(&in, NULL);
        return 0;
    }
    fz_tspec spec = {.dtype = -1, .rank = -1};
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
