/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_layout.c -- the layout ops (concat_primary, concat, split, slice, retain, reset_shape,
 * fill_empty_rows, reshape, transpose, to_indicator, merge, expand_dims, eye) on decoded tensors and
 * parameters. Each result must satisfy the tensor invariants plus the op's own counting rules; inputs
 * must not change. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

#define MAXIN 4

/* A tensor with t's indices, shape and order and fresh values of dtype dt. */
static spt_tensor *sibling(fz_in *in, const spt_tensor *t, int dt) {
    int64_t n = spt_tensor_nnz(t);
    size_t es = spt_dtype_size((spt_dtype)dt);
    char *vals = calloc((size_t)n + 1, es);
    if (!vals) abort();
    if (spt_dtype_is_integer((spt_dtype)dt)) {
        for (int64_t i = 0; i < n; i++) {
            int64_t v = fz_int(in, 6);
            memcpy(vals + (size_t)i * es, &v, es); /* little endian: the low bytes */
        }
    } else if (dt != SPT_STRING && dt != SPT_BOOL) {
        fz_bytes(in, vals, (size_t)n * es);
    }
    spt_tensor *s = NULL;
    const int64_t *o = spt_tensor_order(t);
    bool defined = spt_tensor_rank(t) == 0 || o[0] >= 0;
    spt_status st = spt_tensor_new((spt_dtype)dt, spt_tensor_rank(t), spt_tensor_shape(t), n, spt_tensor_indices(t),
                                   vals, defined ? o : NULL, &s);
    free(vals);
    return st == SPT_OK ? s : NULL;
}

static int64_t add_sat(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static bool small_volume(int64_t rank, const int64_t *shape, int64_t limit) {
    int64_t v = 1;
    for (int64_t d = 0; d < rank; d++) {
        if (shape[d] == 0) return true;
        if (shape[d] < 0) return true; /* refused */
    }
    for (int64_t d = 0; d < rank; d++)
        if (__builtin_mul_overflow(v, shape[d], &v)) return true; /* refused: overflow */
    return v <= limit;
}

static void check_same(const char *op, const spt_tensor *const *ts, int n, const uint64_t *h) {
    for (int i = 0; i < n; i++)
        if (ts[i] && fz_hash_tensor(ts[i]) != h[i]) fz_die(op, "modified an input");
}

static void do_concat(fz_in *in, spt_tensor *t0, bool primary) {
    spt_tensor *ts[MAXIN] = {t0};
    uint64_t h[MAXIN];
    int n = 1 + fz_u8(in) % MAXIN;
    if (fz_u8(in) == 200) n = 0;
    int64_t r = spt_tensor_rank(t0), shape[SPT_MAX_RANK];
    int64_t concat_dim = r > 0 ? fz_range(in, 0, r - 1) : 0;
    for (int i = 1; i < n; i++) {
        uint8_t m = fz_u8(in);
        for (int64_t d = 0; d < r; d++) shape[d] = spt_tensor_shape(t0)[d];
        if (r > 0 && (m & 1)) shape[concat_dim] = fz_int(in, 5);
        if (r > 0 && m == 255) shape[fz_range(in, 0, r - 1)] = fz_int(in, 5);
        fz_tspec spec = {.dtype = m == 254 ? -1 : (int)spt_tensor_dtype(t0),
                         .rank = m == 253 ? -1 : r,
                         .shape = m == 253 ? NULL : shape};
        ts[i] = fz_tensor(in, &spec);
        if (!ts[i]) {
            n = i;
            break;
        }
        if (primary && (m & 2)) { /* give it t0's order */
            const int64_t *o = spt_tensor_order(t0);
            if (spt_tensor_rank(ts[i]) == r) spt_tensor_set_order(ts[i], o[0] >= 0 || r == 0 ? o : NULL);
        }
    }
    for (int i = 0; i < n; i++) h[i] = fz_hash_tensor(ts[i]);
    int64_t axis = r > 0 ? fz_range(in, -r - 1, r) : fz_range(in, -1, 1);
    if (fz_u8(in) & 1) axis = concat_dim;
    bool expand = fz_bool(in);
    spt_tensor *out = FZ_SENTINEL;
    const char *op = primary ? "spt_concat_primary" : "spt_concat";
    fz_op_begin();
    spt_status st = primary ? spt_concat_primary((const spt_tensor *const *)ts, n, &out)
                            : spt_concat((const spt_tensor *const *)ts, n, axis, expand, &out);
    fz_op_end();
    fz_check_status(op, st, out);
    check_same(op, (const spt_tensor *const *)ts, n, h);
    if (st == SPT_OK) {
        fz_check_tensor(op, out);
        int64_t total = 0;
        for (int i = 0; i < n; i++) total += spt_tensor_nnz(ts[i]);
        if (spt_tensor_nnz(out) != total) fz_die(op, "nnz != sum of the inputs'");
        if (spt_tensor_rank(out) != r) fz_die(op, "rank changed");
        if (!primary && !spt_tensor_is_row_major(out, true)) fz_die(op, "output not row-major sorted");
        spt_tensor_free(out);
    }
    for (int i = 1; i < n; i++) spt_tensor_free(ts[i]);
}

static void do_split(fz_in *in, spt_tensor *t) {
    int64_t r = spt_tensor_rank(t);
    int64_t axis = fz_range(in, -r - 1, r);
    int64_t ns = fz_int(in, 6);
    spt_tensor *outs[18];
    int64_t cap = 16;
    if (ns > cap) {
        /* more slots than we can offer: only when it must be refused before any write */
        int64_t ax = axis < 0 ? axis + r : axis;
        if (ax >= 0 && ax < r && ns <= spt_tensor_shape(t)[ax]) return;
    }
    for (int i = 0; i < 18; i++) outs[i] = FZ_SENTINEL;
    uint64_t h = fz_hash_tensor(t);
    fz_op_begin();
    spt_status st = spt_split(t, axis, ns, outs);
    fz_op_end();
    fz_check_status("spt_split", st, NULL);
    if (fz_hash_tensor(t) != h) fz_die("spt_split", "modified the input");
    int64_t k = ns > 0 && ns <= cap ? ns : 0;
    for (int64_t i = k; i < 18; i++)
        if (outs[i] != FZ_SENTINEL) fz_die("spt_split", "wrote past num_split slots");
    if (st != SPT_OK) {
        /* once the parameters are good every slot is NULL; before that nothing is written */
        for (int64_t i = 0; i < k; i++)
            if (outs[i] != NULL && outs[i] != FZ_SENTINEL) fz_die("spt_split", "a non-NULL piece after an error");
        return;
    }
    int64_t ax = axis < 0 ? axis + r : axis, total = 0, dimsum = 0;
    for (int64_t i = 0; i < k; i++) {
        fz_check_tensor("spt_split", outs[i]);
        total += spt_tensor_nnz(outs[i]);
        dimsum += spt_tensor_shape(outs[i])[ax];
        for (int64_t d = 0; d < r; d++)
            if (d != ax && spt_tensor_shape(outs[i])[d] != spt_tensor_shape(t)[d])
                fz_die("spt_split", "other dims changed");
        spt_tensor_free(outs[i]);
    }
    if (total != spt_tensor_nnz(t)) fz_die("spt_split", "pieces lose or add entries");
    if (dimsum != spt_tensor_shape(t)[ax]) fz_die("spt_split", "piece sizes do not add up");
}

static void do_slice(fz_in *in, spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), start[SPT_MAX_RANK], size[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) {
        start[d] = fz_int(in, 5);
        size[d] = fz_int(in, 5);
    }
    uint64_t h = fz_hash_tensor(t);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_slice(t, start, size, &out);
    fz_op_end();
    fz_check_status("spt_slice", st, out);
    if (fz_hash_tensor(t) != h) fz_die("spt_slice", "modified the input");
    if (st != SPT_OK) return;
    fz_check_tensor("spt_slice", out);
    if (spt_tensor_nnz(out) > spt_tensor_nnz(t)) fz_die("spt_slice", "more entries than the input");
    for (int64_t d = 0; d < r; d++) {
        int64_t s = spt_tensor_shape(t)[d], want;
        if (start[d] < s - size[d]) want = size[d];
        else if (start[d] < s) want = s - start[d];
        else want = 0;
        if (spt_tensor_shape(out)[d] != want) fz_die("spt_slice", "output dim differs from the contract");
    }
    spt_tensor_free(out);
}

static void do_retain(fz_in *in, spt_tensor *t) {
    int64_t n = spt_tensor_nnz(t);
    bool *mask = malloc((size_t)n + 2);
    if (!mask) abort();
    int64_t keep = 0;
    for (int64_t i = 0; i < n + 2; i++) mask[i] = fz_bool(in);
    for (int64_t i = 0; i < n; i++) keep += mask[i];
    int64_t len = fz_u8(in) == 9 ? n + fz_range(in, -1, 2) : n;
    if (len > n + 2) len = n + 2;
    uint64_t h = fz_hash_tensor(t);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_retain(t, len < 0 ? NULL : mask, len, &out);
    fz_op_end();
    fz_check_status("spt_retain", st, out);
    if (fz_hash_tensor(t) != h) fz_die("spt_retain", "modified the input");
    if (st == SPT_OK) {
        fz_check_tensor("spt_retain", out);
        if (spt_tensor_nnz(out) != keep) fz_die("spt_retain", "nnz != number of true mask entries");
        spt_tensor_free(out);
    }
    free(mask);
}

static void do_reset_shape(fz_in *in, spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), shape[SPT_MAX_RANK];
    bool tight = fz_bool(in);
    for (int64_t d = 0; d < r; d++) shape[d] = add_sat(spt_tensor_shape(t)[d], fz_u8(in) == 0 ? -1 : fz_int(in, 3));
    uint64_t h = fz_hash_tensor(t);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_reset_shape(t, tight ? NULL : shape, &out);
    fz_op_end();
    fz_check_status("spt_reset_shape", st, out);
    if (fz_hash_tensor(t) != h) fz_die("spt_reset_shape", "modified the input");
    if (st == SPT_OK) {
        fz_check_tensor("spt_reset_shape", out);
        if (spt_tensor_nnz(out) != spt_tensor_nnz(t)) fz_die("spt_reset_shape", "nnz changed");
        spt_tensor_free(out);
    }
}

static void do_fill_empty_rows(fz_in *in, spt_tensor *t) {
    int64_t r = spt_tensor_rank(t);
    if (r > 0 && spt_tensor_shape(t)[0] > 4096) return; /* O(rows) output: a legitimate big allocation */
    unsigned char dv[16] = {0};
    spt_str sdv = {"ab", 2};
    const void *dvp = NULL;
    if (fz_bool(in)) {
        if (spt_tensor_dtype(t) == SPT_STRING) dvp = &sdv;
        else {
            fz_bytes(in, dv, spt_dtype_size(spt_tensor_dtype(t)));
            if (spt_tensor_dtype(t) == SPT_BOOL) dv[0] &= 1;
            dvp = dv;
        }
    }
    uint8_t m = fz_u8(in);
    spt_dense *ind = FZ_SENTINEL, *rev = FZ_SENTINEL;
    spt_tensor *out = FZ_SENTINEL;
    uint64_t h = fz_hash_tensor(t);
    fz_op_begin();
    spt_status st = spt_fill_empty_rows(t, dvp, &out, (m & 1) ? &ind : NULL, (m & 2) ? &rev : NULL);
    fz_op_end();
    fz_check_status("spt_fill_empty_rows", st, out);
    if (fz_hash_tensor(t) != h) fz_die("spt_fill_empty_rows", "modified the input");
    if (st != SPT_OK) {
        if ((m & 1) && ind != NULL) fz_die("spt_fill_empty_rows", "indicator not NULL after an error");
        if ((m & 2) && rev != NULL) fz_die("spt_fill_empty_rows", "reverse map not NULL after an error");
        return;
    }
    fz_check_tensor("spt_fill_empty_rows", out);
    int64_t rows = spt_tensor_shape(t)[0], n = spt_tensor_nnz(t), no = spt_tensor_nnz(out);
    char *seen = calloc((size_t)rows + 1, 1);
    if (!seen) abort();
    for (int64_t i = 0; i < no; i++) seen[spt_tensor_indices(out)[i * r]] = 1;
    for (int64_t q = 0; q < rows; q++)
        if (!seen[q]) fz_die("spt_fill_empty_rows", "a row is still empty");
    free(seen);
    if (no < n) fz_die("spt_fill_empty_rows", "lost entries");
    if (m & 1) {
        fz_check_dense("spt_fill_empty_rows indicator", ind);
        if (spt_dense_size(ind) != rows || spt_dense_dtype(ind) != SPT_BOOL)
            fz_die("spt_fill_empty_rows", "indicator shape");
        int64_t filled = 0;
        for (int64_t q = 0; q < rows; q++) filled += ((const bool *)spt_dense_data(ind))[q];
        if (filled != no - n) fz_die("spt_fill_empty_rows", "indicator count != added entries");
        spt_dense_free(ind);
    }
    if (m & 2) {
        fz_check_dense("spt_fill_empty_rows reverse map", rev);
        if (spt_dense_size(rev) != n || spt_dense_dtype(rev) != SPT_INT64)
            fz_die("spt_fill_empty_rows", "reverse map shape");
        const int64_t *map = spt_dense_data(rev);
        for (int64_t i = 0; i < n; i++) {
            if (map[i] < 0 || map[i] >= no) fz_die("spt_fill_empty_rows", "reverse map out of range");
            if (memcmp(spt_tensor_indices(out) + map[i] * r, spt_tensor_indices(t) + i * r, (size_t)r * 8))
                fz_die("spt_fill_empty_rows", "reverse map points to another index");
        }
        spt_dense_free(rev);
    }
    spt_tensor_free(out);
}

static void do_reshape(fz_in *in, spt_tensor *t) {
    int64_t nr = fz_u8(in) % 5, shape[8];
    if (fz_u8(in) == 77) nr = fz_int(in, 70);
    if (nr > 8 || nr < 0) nr = nr < 0 ? nr : 8;
    for (int64_t d = 0; d < nr && d < 8; d++) {
        uint8_t b = fz_u8(in);
        shape[d] = b < 40 ? -1 : b < 200 ? b % 7 : fz_int(in, 6);
    }
    uint64_t h = fz_hash_tensor(t);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_reshape(t, nr, nr > 0 ? shape : NULL, &out);
    fz_op_end();
    fz_check_status("spt_reshape", st, out);
    if (fz_hash_tensor(t) != h) fz_die("spt_reshape", "modified the input");
    if (st != SPT_OK) return;
    fz_check_tensor("spt_reshape", out);
    if (spt_tensor_volume(out) != spt_tensor_volume(t)) fz_die("spt_reshape", "volume changed");
    if (spt_tensor_nnz(out) != spt_tensor_nnz(t)) fz_die("spt_reshape", "nnz changed");
    if (spt_tensor_rank(out) != nr) fz_die("spt_reshape", "rank differs");
    spt_tensor_free(out);
}

static void do_transpose(fz_in *in, spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), perm[SPT_MAX_RANK];
    bool hp = fz_order(in, r, perm);
    uint64_t h = fz_hash_tensor(t);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_transpose(t, hp ? perm : NULL, &out);
    fz_op_end();
    fz_check_status("spt_transpose", st, out);
    if (fz_hash_tensor(t) != h) fz_die("spt_transpose", "modified the input");
    if (st != SPT_OK) return;
    fz_check_tensor("spt_transpose", out);
    if (!spt_tensor_is_row_major(out, true)) fz_die("spt_transpose", "output not row-major sorted");
    if (spt_tensor_nnz(out) != spt_tensor_nnz(t)) fz_die("spt_transpose", "nnz changed");
    for (int64_t k = 0; k < r; k++)
        if (spt_tensor_shape(out)[k] != spt_tensor_shape(t)[hp ? perm[k] : r - 1 - k]) fz_die("spt_transpose", "shape");
    spt_tensor_free(out);
}

static void do_to_indicator(fz_in *in, spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), vocab = fz_int(in, 8), shape[SPT_MAX_RANK];
    for (int64_t d = 0; d + 1 < r; d++) shape[d] = spt_tensor_shape(t)[d];
    if (r > 0) shape[r - 1] = vocab;
    if (r > 0 && !small_volume(r, shape, 1 << 16)) return; /* a legitimate big dense result */
    if (r == 0 && vocab > (1 << 16)) return;               /* rank 0: a [vocab] vector */
    spt_tensor *ids = spt_dtype_is_integer(spt_tensor_dtype(t)) || fz_u8(in) == 1 ? NULL : sibling(in, t, SPT_INT32);
    const spt_tensor *x = ids ? ids : t;
    uint64_t h = fz_hash_tensor(x);
    spt_dense *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_to_indicator(x, vocab, &out);
    fz_op_end();
    fz_check_status("spt_to_indicator", st, out);
    if (fz_hash_tensor(x) != h) fz_die("spt_to_indicator", "modified the input");
    if (st == SPT_OK) {
        fz_check_dense("spt_to_indicator", out);
        if (spt_dense_dtype(out) != SPT_BOOL) fz_die("spt_to_indicator", "not bool");
        spt_dense_free(out);
    }
    spt_tensor_free(ids);
}

static void do_merge(fz_in *in, spt_tensor *t) {
    spt_tensor *ids[MAXIN] = {NULL};
    int n = 1 + fz_u8(in) % 3;
    int64_t vocab[MAXIN + 1];
    int nv = fz_u8(in) == 5 ? n + 1 : n;
    for (int i = 0; i < nv; i++) vocab[i] = fz_int(in, 6);
    for (int i = 0; i < n; i++) {
        uint8_t m = fz_u8(in);
        ids[i] = m == 99 ? fz_tensor(in, &(fz_tspec){.dtype = SPT_INT64, .rank = -1})
                         : sibling(in, t,
                                   m == 98   ? SPT_FLOAT32
                                   : (m & 1) ? SPT_INT32
                                             : SPT_INT64);
        if (!ids[i]) goto done;
    }
    spt_tensor *vals = fz_u8(in) == 97 ? NULL : t;
    uint64_t h[MAXIN + 1];
    for (int i = 0; i < n; i++) h[i] = fz_hash_tensor(ids[i]);
    h[n] = fz_hash_tensor(t);
    spt_tensor *out = FZ_SENTINEL;
    bool sorted = fz_bool(in);
    fz_op_begin();
    spt_status st = spt_merge((const spt_tensor *const *)ids, n, vals, vocab, nv, sorted, &out);
    fz_op_end();
    fz_check_status("spt_merge", st, out);
    for (int i = 0; i < n; i++)
        if (fz_hash_tensor(ids[i]) != h[i]) fz_die("spt_merge", "modified sp_ids");
    if (fz_hash_tensor(t) != h[n]) fz_die("spt_merge", "modified sp_values");
    if (st == SPT_OK) {
        fz_check_tensor("spt_merge", out);
        if (spt_tensor_nnz(out) != spt_tensor_nnz(t)) fz_die("spt_merge", "nnz differs");
        if (spt_tensor_rank(out) != spt_tensor_rank(ids[0]) - 1 + n) fz_die("spt_merge", "rank differs");
        if (!sorted && !spt_tensor_is_row_major(out, true)) fz_die("spt_merge", "not row-major sorted");
        spt_tensor_free(out);
    }
done:
    for (int i = 0; i < n; i++) spt_tensor_free(ids[i]);
}

static void act_concat_primary(fz_in *in, spt_tensor *t) { do_concat(in, t, true); }
static void act_concat(fz_in *in, spt_tensor *t) { do_concat(in, t, false); }
static void act_concat_either(fz_in *in, spt_tensor *t) { do_concat(in, t, fz_bool(in)); }

/* expand_dims on a tensor of small dims, decoded after a flags byte (as its corpus has them) */
static void act_expand_dims(fz_in *in, spt_tensor *t) {
    (void)t;
    (void)fz_u8(in);
    fz_tspec spec = {.dtype = -1, .rank = -1, .no_huge_dims = true};
    spt_tensor *x = fz_tensor(in, &spec);
    if (!x) return;
    fz_unary(in, x, 0);
    spt_tensor_free(x);
}

static void act_eye(fz_in *in, spt_tensor *t) {
    (void)t;
    (void)fz_u8(in); /* the flags byte its corpus has */
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    /* sizes small (a huge diagonal is a real allocation failure) or with a volume beyond int64 */
    bool huge = fz_u8(in) > 250;
    spt_status st = spt_eye(huge ? INT64_MAX : fz_range(in, -2, 9),
                            fz_u8(in) < 100 ? SPT_UNSET
                            : huge          ? 3
                                            : fz_range(in, -2, 9),
                            (spt_dtype)(fz_u8(in) % (SPT_NUM_DTYPES + 1)), &out);
    fz_op_end();
    fz_finish_tensor("spt_eye", st, out, false);
}

static const fz_action actions[] = {
    {"concat_primary", FZ_OP(spt_concat_primary), act_concat_primary, false},
    {"concat", FZ_OP(spt_concat), act_concat, false},
    {"split", FZ_OP(spt_split), do_split, false},
    {"slice", FZ_OP(spt_slice), do_slice, false},
    {"retain", FZ_OP(spt_retain), do_retain, false},
    {"reset_shape", FZ_OP(spt_reset_shape), do_reset_shape, false},
    {"fill_empty_rows", FZ_OP(spt_fill_empty_rows), do_fill_empty_rows, false},
    {"reshape", FZ_OP(spt_reshape), do_reshape, false},
    {"transpose", FZ_OP(spt_transpose), do_transpose, false},
    {"to_indicator", FZ_OP(spt_to_indicator), do_to_indicator, false},
    {"merge", FZ_OP(spt_merge), do_merge, false},
    {"concat_either", FZ_OP(spt_concat), act_concat_either, false},
    {"expand_dims", FZ_OP(spt_expand_dims), act_expand_dims, true},
    {"eye", FZ_OP(spt_eye), act_eye, true},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_action *a = &actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)];
    if (a->alone) {
        a->run(&in, NULL);
        return 0;
    }
    fz_tspec spec = {.dtype = -1, .rank = -1};
    if (a->op == FZ_OP(spt_to_indicator)) spec.dtype = fz_bool(&in) ? SPT_INT64 : SPT_INT16; /* integer ids */
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
