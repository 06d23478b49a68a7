/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_tfsparse.c -- the rest of tf.sparse (segment reductions, expand_dims, eye, map_values, cast,
 * bincount, cross / cross_hashed, embedding lookups, serialization) on decoded inputs, and the
 * deserializer on raw bytes. Results must satisfy the invariants; inputs must not change; a serialized
 * tensor must read back as itself. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

static void check_out(const char *op, spt_status st, spt_tensor *out) {
    fz_check_status(op, st, out);
    if (st == SPT_OK) {
        fz_check_tensor(op, out);
        spt_tensor_free(out);
    }
}
static void check_dout(const char *op, spt_status st, spt_dense *out) {
    fz_check_status(op, st, out);
    if (st == SPT_OK) {
        fz_check_dense(op, out);
        spt_dense_free(out);
    }
}

/* A rank-1 int32 or int64 vector of n decoded values in [-2, lim] (mostly non-decreasing when `sorted`). */
static spt_dense *ivec(fz_in *in, int64_t n, int64_t lim, bool sorted) {
    spt_dense *d = NULL;
    bool i32 = fz_bool(in);
    if (spt_dense_new(i32 ? SPT_INT32 : SPT_INT64, 1, &n, &d) != SPT_OK) return NULL;
    int64_t prev = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = fz_range(in, -2, lim);
        if (sorted && fz_u8(in) < 230) v = prev + (fz_u8(in) % 3 == 0);
        prev = v;
        if (i32) ((int32_t *)spt_dense_data_mut(d))[i] = (int32_t)v;
        else ((int64_t *)spt_dense_data_mut(d))[i] = v;
    }
    return d;
}

static void do_segment(fz_in *in) {
    int64_t shape[2] = {fz_range(in, 0, 12), fz_range(in, 0, 4)};
    int64_t rank = fz_range(in, 1, 2);
    static const int dts[4] = {SPT_FLOAT32, SPT_FLOAT64, SPT_INT32, SPT_UINT8};
    spt_dense *data = fz_dense(in, dts[fz_u8(in) % 4], rank, shape);
    int64_t n = fz_range(in, 0, 20);
    spt_dense *idx = ivec(in, n, shape[0] + 1, false), *ids = ivec(in, fz_u8(in) < 240 ? n : n + 1, 8, true);
    /* a huge num_segments is a real (not injected) allocation failure: keep it small */
    int64_t nseg = fz_u8(in) < 128 ? SPT_UNSET : fz_range(in, -3, 40);
    int which = fz_u8(in) % 3;
    if (data && idx && ids) {
        uint64_t h = fz_hash_dense(data);
        spt_dense *out = FZ_SENTINEL;
        fz_op_begin();
        spt_status st = which == 0 ? spt_segment_sum(data, idx, ids, nseg, &out)
                        : which == 1 ? spt_segment_mean(data, idx, ids, nseg, &out)
                                     : spt_segment_sqrt_n(data, idx, ids, nseg, &out);
        fz_op_end();
        if (fz_hash_dense(data) != h) fz_die("spt_segment_*", "modified the input");
        check_dout("spt_segment_*", st, out);
    }
    spt_dense_free(data);
    spt_dense_free(idx);
    spt_dense_free(ids);
}

static void do_unary(fz_in *in, spt_tensor *t, int kind) {
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
    check_out(op, st, out);
}

static void do_bincount(fz_in *in, spt_tensor *t) {
    spt_tensor *w = NULL, *out = FZ_SENTINEL;
    if (fz_u8(in) < 80 && spt_cast(t, fz_bool(in) ? SPT_FLOAT32 : SPT_INT64, &w) != SPT_OK) w = NULL;
    int64_t axis = fz_u8(in) < 200 ? -(int64_t)fz_bool(in) : fz_int(in, 3);
    int64_t minl = fz_u8(in) < 128 ? SPT_UNSET : fz_int(in, 40), maxl = fz_u8(in) < 128 ? SPT_UNSET : fz_int(in, 40);
    uint64_t h = fz_hash_tensor(t);
    fz_op_begin();
    spt_status st = spt_bincount(t, w, axis, minl, maxl, w == NULL && fz_bool(in), &out);
    fz_op_end();
    if (fz_hash_tensor(t) != h) fz_die("spt_bincount", "modified the input");
    check_out("spt_bincount", st, out);
    spt_tensor_free(w);
    /* the dense form of the same values */
    int64_t shape[2] = {fz_range(in, 0, 6), fz_range(in, 0, 6)};
    spt_dense *d = fz_dense(in, fz_bool(in) ? SPT_INT32 : SPT_INT64, fz_range(in, 0, 2), shape);
    if (d) {
        spt_dense *wd = fz_u8(in) < 60 ? fz_dense(in, SPT_FLOAT64, spt_dense_rank(d), spt_dense_shape(d)) : NULL;
        fz_op_begin();
        st = spt_bincount_dense(d, wd, axis, minl, maxl, wd == NULL && fz_bool(in), &out);
        fz_op_end();
        check_out("spt_bincount_dense", st, out);
        spt_dense_free(wd);
        spt_dense_free(d);
    }
}

static void do_cross(fz_in *in) {
    spt_cross_input inputs[3];
    spt_tensor *ts[3] = {NULL, NULL, NULL};
    spt_dense *ds[3] = {NULL, NULL, NULL};
    int64_t n = fz_range(in, 1, 3), batch = fz_range(in, 0, 4);
    for (int64_t k = 0; k < n; k++) {
        int dt = fz_u8(in) < 128 ? SPT_STRING : SPT_INT64;
        int64_t shape[2] = {fz_u8(in) < 245 ? batch : batch + 1, fz_range(in, 0, 4)};
        if (fz_bool(in)) {
            fz_tspec spec = {.dtype = dt, .rank = 2, .shape = shape, .max_nnz = 10};
            ts[k] = fz_tensor(in, &spec);
        } else {
            ds[k] = fz_dense(in, dt, 2, shape);
        }
        inputs[k] = (spt_cross_input){ts[k], ds[k]};
    }
    bool ok = true;
    for (int64_t k = 0; k < n; k++) ok = ok && (ts[k] || ds[k]);
    if (ok) {
        spt_tensor *out = FZ_SENTINEL;
        fz_op_begin();
        spt_status st = fz_bool(in) ? spt_cross(inputs, n, "_X_", 3, &out)
                                    : spt_cross_hashed(inputs, n, fz_int(in, 100), fz_u64(in), &out);
        fz_op_end();
        check_out("spt_cross", st, out);
    }
    for (int k = 0; k < 3; k++) {
        spt_tensor_free(ts[k]);
        spt_dense_free(ds[k]);
    }
}

static void do_embedding(fz_in *in, spt_tensor *ids) {
    int64_t ps[2] = {fz_range(in, 0, 6), fz_range(in, 0, 3)};
    spt_dense *p = fz_dense(in, fz_bool(in) ? SPT_FLOAT32 : SPT_FLOAT64, 2, ps);
    if (!p) return;
    spt_tensor *w = NULL;
    if (fz_bool(in) && spt_cast(ids, spt_dense_dtype(p), &w) != SPT_OK) w = NULL;
    const spt_dense *const tables[2] = {p, p};
    spt_dense *out = FZ_SENTINEL;
    int64_t np = fz_range(in, 1, 2);
    spt_combiner comb = (spt_combiner)(fz_u8(in) % 4);
    fz_op_begin();
    spt_status st = fz_bool(in) ? spt_embedding_lookup_sparse(tables, np, ids, w, comb, &out)
                                : spt_safe_embedding_lookup_sparse(tables, np, ids, w, comb, fz_range(in, -2, 8), &out);
    fz_op_end();
    check_dout("spt_embedding_lookup_sparse", st, out);
    spt_tensor_free(w);
    spt_dense_free(p);
}

static void do_serialize(fz_in *in, spt_tensor *t) {
    void *buf = FZ_SENTINEL;
    size_t len = 0;
    fz_op_begin();
    spt_status st = spt_pack_sparse(t, &buf, &len);
    fz_op_end();
    fz_check_status("spt_pack_sparse", st, buf);
    if (st != SPT_OK) return;
    /* flip a byte sometimes: the reader must refuse it */
    bool flip = len > 0 && fz_u8(in) < 100;
    if (flip) ((unsigned char *)buf)[fz_u64(in) % len] ^= (unsigned char)(1u << (fz_u8(in) % 8));
    const void *const bufs[1] = {buf};
    spt_tensor *back = FZ_SENTINEL;
    fz_op_begin();
    st = spt_unpack_sparse(bufs, &len, 0, NULL, spt_tensor_dtype(t), &back);
    fz_op_end();
    fz_check_status("spt_unpack_sparse", st, back);
    if (flip && st == SPT_OK) fz_die("spt_unpack_sparse", "accepted a damaged buffer");
    if (st == SPT_OK) {
        fz_check_tensor("spt_unpack_sparse", back);
        int64_t n = spt_tensor_nnz(t), r = spt_tensor_rank(t);
        if (spt_tensor_nnz(back) != n || spt_tensor_rank(back) != r ||
            (n * r > 0 && memcmp(spt_tensor_indices(back), spt_tensor_indices(t), (size_t)(n * r) * 8)))
            fz_die("spt_unpack_sparse", "round trip changed the tensor");
        spt_tensor_free(back);
    }
    spt_bytes_free(buf);
}

/* The rest of the input as serialized bytes, as they are. */
static void do_raw_bytes(fz_in *in) {
    size_t len = in->n;
    const void *const bufs[1] = {in->p};
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    /* ask for the dtype the header names, so that well-formed inputs read through */
    spt_dtype dt = (spt_dtype)(len > 6 ? in->p[6] % SPT_NUM_DTYPES : 0);
    spt_status st = spt_unpack_sparse(bufs, &len, 0, NULL, dt, &out);
    fz_op_end();
    check_out("spt_unpack_sparse", st, out);
}

static void act_segment(fz_in *in, spt_tensor *t) {
    (void)t;
    do_segment(in);
}
static void act_expand_dims(fz_in *in, spt_tensor *t) { do_unary(in, t, 0); }
static void act_map_values(fz_in *in, spt_tensor *t) { do_unary(in, t, 1); }
static void act_cast(fz_in *in, spt_tensor *t) { do_unary(in, t, 2); }
static void act_cross(fz_in *in, spt_tensor *t) {
    (void)t;
    do_cross(in);
}
static void act_eye(fz_in *in, spt_tensor *t) {
    (void)t;
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    /* sizes small (a huge diagonal is a real allocation failure) or with a volume beyond int64 */
    bool huge = fz_u8(in) > 250;
    spt_status st = spt_eye(huge ? INT64_MAX : fz_range(in, -2, 9), fz_u8(in) < 100 ? SPT_UNSET : huge ? 3 : fz_range(in, -2, 9),
                            (spt_dtype)(fz_u8(in) % (SPT_NUM_DTYPES + 1)), &out);
    fz_op_end();
    check_out("spt_eye", st, out);
}

static const fz_action actions[] = {
    {"segment", FZ_OP(spt_segment_sum), act_segment, true},
    {"expand_dims", FZ_OP(spt_expand_dims), act_expand_dims, false},
    {"map_values", FZ_OP(spt_map_values), act_map_values, false},
    {"cast", FZ_OP(spt_cast), act_cast, false},
    {"bincount", FZ_OP(spt_bincount), do_bincount, false},
    {"serialize", FZ_OP(spt_pack_sparse), do_serialize, false},
    {"cross", FZ_OP(spt_cross), act_cross, true},
    {"embedding", FZ_OP(spt_embedding_lookup_sparse), do_embedding, false},
    {"serialize_or_raw_bytes", FZ_OP(spt_unpack_sparse), do_serialize, false},
    {"eye", FZ_OP(spt_eye), act_eye, true},
};
FZ_ALSO(FZ_OP(spt_segment_mean), FZ_OP(spt_segment_sqrt_n), FZ_OP(spt_bincount_dense), FZ_OP(spt_cross_hashed),
        FZ_OP(spt_safe_embedding_lookup_sparse));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    uint8_t action = fz_u8(&in) % FZ_NUM_ACTIONS(actions);
    const fz_action *a = &actions[action];
    uint8_t flags = fz_u8(&in);
    if (a->alone) {
        a->run(&in, NULL);
        return 0;
    }
    if (a->op == FZ_OP(spt_unpack_sparse) && (flags & 1)) return do_raw_bytes(&in), 0;
    fz_tspec spec = {.dtype = -1, .rank = -1, .no_huge_dims = true};
    static const int ints[4] = {SPT_INT64, SPT_INT32, SPT_UINT8, SPT_INT8};
    if (a->op == FZ_OP(spt_bincount) || a->op == FZ_OP(spt_embedding_lookup_sparse)) spec.dtype = ints[flags % 4];
    if (a->op == FZ_OP(spt_embedding_lookup_sparse)) spec.rank = 2 + (flags & 16 ? 1 : 0);
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
