/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_reduce.c -- the reduce family (reduce_sum / reduce_max, dense and sparse results, softmax, the segment
 * reductions) on decoded tensors with arbitrary value bit patterns (integer wrap-around, NaN, infinities).
 * Results must satisfy the invariants; inputs must not change. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

static void do_reduce(fz_in *in, spt_tensor *t, bool max, bool sparse) {
    int64_t r = spt_tensor_rank(t), axes[8];
    int64_t na = fz_u8(in) % 5;
    bool all = fz_u8(in) < 40;
    for (int64_t i = 0; i < na; i++) axes[i] = fz_range(in, -r - 1, r);
    bool keep = fz_bool(in);
    uint64_t h = fz_hash_tensor(t);
    const char *op = max ? (sparse ? "spt_reduce_max_sparse" : "spt_reduce_max")
                         : (sparse ? "spt_reduce_sum_sparse" : "spt_reduce_sum");
    /* a dense result has the kept dims: keep it small (a zero dim does not bound it: reducing over
     * that dim leaves the others, e.g. [2^21, 2^21, 0] over axis 2 is 2^42 cells) */
    if (!sparse) {
        int64_t vol = 1;
        for (int64_t d = 0; d < r; d++) {
            int64_t s = spt_tensor_shape(t)[d];
            if (s == 0) continue;
            if (s > 4096 || __builtin_mul_overflow(vol, s, &vol)) vol = INT64_MAX;
        }
        if (vol > 65536 && !all) return;
    }
    spt_dense *dout = FZ_SENTINEL;
    spt_tensor *sout = FZ_SENTINEL;
    spt_status st;
    fz_op_begin();
    if (sparse)
        st = max ? spt_reduce_max_sparse(t, all ? NULL : axes, na, keep, &sout)
                 : spt_reduce_sum_sparse(t, all ? NULL : axes, na, keep, &sout);
    else
        st = max ? spt_reduce_max(t, all ? NULL : axes, na, keep, &dout)
                 : spt_reduce_sum(t, all ? NULL : axes, na, keep, &dout);
    fz_op_end();
    if (fz_hash_tensor(t) != h) fz_die(op, "modified the input");
    if (sparse) {
        fz_check_sparse_out(op, st, sout, true);
        if (st == SPT_OK) {
            if (spt_tensor_nnz(sout) > spt_tensor_nnz(t)) fz_die(op, "more cells than entries");
            if (spt_tensor_dtype(sout) != spt_tensor_dtype(t)) fz_die(op, "dtype changed");
            spt_tensor_free(sout);
        }
    } else {
        fz_check_status(op, st, dout);
        if (st == SPT_OK) {
            fz_check_dense(op, dout);
            if (keep && spt_dense_rank(dout) != r) fz_die(op, "keep_dims changed the rank");
            spt_dense_free(dout);
        }
    }
}

static void do_softmax(fz_in *in, spt_tensor *a) {
    (void)in;
    uint64_t h = fz_hash_tensor(a);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_softmax(a, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != h) fz_die("spt_softmax", "modified the input");
    fz_check_sparse_out("spt_softmax", st, out, true);
    if (st == SPT_OK) {
        if (spt_tensor_nnz(out) != spt_tensor_nnz(a)) fz_die("spt_softmax", "nnz changed");
        spt_tensor_free(out);
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
        spt_status st = which == 0   ? spt_segment_sum(data, idx, ids, nseg, &out)
                        : which == 1 ? spt_segment_mean(data, idx, ids, nseg, &out)
                                     : spt_segment_sqrt_n(data, idx, ids, nseg, &out);
        fz_op_end();
        if (fz_hash_dense(data) != h) fz_die("spt_segment_*", "modified the input");
        fz_finish_dense("spt_segment_*", st, out);
    }
    spt_dense_free(data);
    spt_dense_free(idx);
    spt_dense_free(ids);
}

static void act_reduce_sum(fz_in *in, spt_tensor *t) { do_reduce(in, t, false, false); }

static void act_reduce_sum_sparse(fz_in *in, spt_tensor *t) { do_reduce(in, t, false, true); }

static void act_reduce_max(fz_in *in, spt_tensor *t) { do_reduce(in, t, true, false); }

static void act_reduce_max_sparse(fz_in *in, spt_tensor *t) { do_reduce(in, t, true, true); }

static void act_reduce_any(fz_in *in, spt_tensor *t) { do_reduce(in, t, fz_bool(in), fz_bool(in)); }

static void act_segment(fz_in *in, spt_tensor *t) {
    (void)t;
    do_segment(in);
}

/* Every input's second byte picks the action (modulo the table's length): append, never reorder. */
static const fz_action actions[] = {
    {"reduce_sum", FZ_OP(spt_reduce_sum), act_reduce_sum, false},
    {"reduce_sum_sparse", FZ_OP(spt_reduce_sum_sparse), act_reduce_sum_sparse, false},
    {"reduce_max", FZ_OP(spt_reduce_max), act_reduce_max, false},
    {"reduce_max_sparse", FZ_OP(spt_reduce_max_sparse), act_reduce_max_sparse, false},
    {"softmax", FZ_OP(spt_softmax), do_softmax, false},
    {"reduce_any", FZ_OP(spt_reduce_sum), act_reduce_any, false},
    {"segment", FZ_OP(spt_segment_sum), act_segment, true},
};
FZ_ALSO(FZ_OP(spt_segment_mean), FZ_OP(spt_segment_sqrt_n));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_action *a = &actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)];
    uint8_t flags = fz_u8(&in);
    if (a->alone) {
        a->run(&in, NULL);
        return 0;
    }
    fz_tspec spec = {.dtype = -1, .rank = -1, .numeric_only = flags < 230, .no_huge_dims = (flags & 1) != 0};
    if (a->run == act_reduce_any) spec.no_huge_dims = true; /* any axes kept: dense results over every dim */
    if (a->op == FZ_OP(spt_softmax) && (flags & 2)) spec.dtype = (flags & 4) ? SPT_FLOAT32 : SPT_FLOAT64;
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
