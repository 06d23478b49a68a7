/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_math.c -- the math ops (reductions dense and sparse, add, add_dense, cwise mul/div/add,
 * maximum/minimum, softmax, matmul/matvec) on decoded tensors with arbitrary value bit patterns
 * (integer wrap-around, NaN, infinities). Results must satisfy the invariants; inputs must not change. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

static void check_sparse_out(const char *op, spt_status st, spt_tensor *out, bool row_major) {
    fz_check_status(op, st, out);
    if (st != SPT_OK) return;
    fz_check_tensor(op, out);
    if (row_major && !spt_tensor_is_row_major(out, true)) fz_die(op, "output not row-major sorted");
}

static void do_reduce(fz_in *in, spt_tensor *t, bool max, bool sparse) {
    int64_t r = spt_tensor_rank(t), axes[8];
    int64_t na = fz_u8(in) % 5;
    bool all = fz_u8(in) < 40;
    for (int64_t i = 0; i < na; i++) axes[i] = fz_range(in, -r - 1, r);
    bool keep = fz_bool(in);
    uint64_t h = fz_hash_tensor(t);
    const char *op = max ? (sparse ? "spt_reduce_max_sparse" : "spt_reduce_max") : (sparse ? "spt_reduce_sum_sparse" : "spt_reduce_sum");
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
        st = max ? spt_reduce_max_sparse(t, all ? NULL : axes, na, keep, &sout) : spt_reduce_sum_sparse(t, all ? NULL : axes, na, keep, &sout);
    else
        st = max ? spt_reduce_max(t, all ? NULL : axes, na, keep, &dout) : spt_reduce_sum(t, all ? NULL : axes, na, keep, &dout);
    fz_op_end();
    if (fz_hash_tensor(t) != h) fz_die(op, "modified the input");
    if (sparse) {
        check_sparse_out(op, st, sout, true);
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

static spt_tensor *partner(fz_in *in, const spt_tensor *a) {
    uint8_t m = fz_u8(in);
    int64_t r = spt_tensor_rank(a), shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) shape[d] = spt_tensor_shape(a)[d];
    if (m == 255 && r > 0) shape[fz_range(in, 0, r - 1)] = fz_int(in, 5);
    fz_tspec spec = {.dtype = m == 254 ? -1 : (int)spt_tensor_dtype(a), .rank = m == 253 ? -1 : r, .shape = m == 253 ? NULL : shape};
    return fz_tensor(in, &spec);
}

static void do_binary(fz_in *in, spt_tensor *a, int which) {
    static const char *names[] = {"spt_add", "spt_maximum", "spt_minimum"};
    spt_tensor *b = partner(in, a);
    if (!b) return;
    double thresh = 0;
    uint8_t tm = fz_u8(in);
    if (tm < 100) thresh = 0;
    else if (tm < 200) thresh = (double)(tm - 150) / 10;
    else fz_bytes(in, &thresh, sizeof thresh);
    uint64_t ha = fz_hash_tensor(a), hb = fz_hash_tensor(b);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = which == 0 ? spt_add(a, b, thresh, &out) : which == 1 ? spt_maximum(a, b, &out) : spt_minimum(a, b, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_tensor(b) != hb) fz_die(names[which], "modified an input");
    check_sparse_out(names[which], st, out, true);
    if (st == SPT_OK) {
        if (spt_tensor_nnz(out) > spt_tensor_nnz(a) + spt_tensor_nnz(b)) fz_die(names[which], "more entries than both inputs");
        spt_tensor_free(out);
    }
    spt_tensor_free(b);
}

static void do_add_dense(fz_in *in, spt_tensor *a) {
    int64_t r = spt_tensor_rank(a), shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) shape[d] = spt_tensor_shape(a)[d];
    if (fz_u8(in) == 3 && r > 0) shape[fz_range(in, 0, r - 1)] = fz_u8(in) % 4;
    int dt = fz_u8(in) == 4 ? SPT_FLOAT32 : (int)spt_tensor_dtype(a);
    spt_dense *b = fz_dense(in, dt, r, shape);
    if (!b) return;
    uint64_t ha = fz_hash_tensor(a), hb = fz_hash_dense(b);
    spt_dense *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_add_dense(a, b, &out);
    fz_op_end();
    fz_check_status("spt_add_dense", st, out);
    if (fz_hash_tensor(a) != ha || fz_hash_dense(b) != hb) fz_die("spt_add_dense", "modified an input");
    if (st == SPT_OK) {
        fz_check_dense("spt_add_dense", out);
        if (spt_dense_size(out) != spt_dense_size(b)) fz_die("spt_add_dense", "size differs from b");
        spt_dense_free(out);
    }
    spt_dense_free(b);
}

static void do_cwise(fz_in *in, spt_tensor *a, int which) {
    static const char *names[] = {"spt_sparse_dense_cwise_mul", "spt_sparse_dense_cwise_div", "spt_sparse_dense_cwise_add"};
    int64_t r = spt_tensor_rank(a), dr = fz_range(in, 0, r + (fz_u8(in) == 1)), shape[SPT_MAX_RANK + 1];
    if (dr > SPT_MAX_RANK) dr = SPT_MAX_RANK;
    for (int64_t k = 0; k < dr; k++) {
        int64_t sd = r - dr + k; /* aligned from the right */
        uint8_t m = fz_u8(in);
        shape[k] = m < 160 && sd >= 0 ? spt_tensor_shape(a)[sd] : m < 240 ? 1 : m % 4;
    }
    int dt = fz_u8(in) == 5 ? SPT_INT8 : (int)spt_tensor_dtype(a);
    spt_dense *d = fz_dense(in, dt, dr, shape);
    if (!d) return;
    uint64_t ha = fz_hash_tensor(a), hd = fz_hash_dense(d);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = which == 0 ? spt_sparse_dense_cwise_mul(a, d, &out)
                    : which == 1 ? spt_sparse_dense_cwise_div(a, d, &out)
                                 : spt_sparse_dense_cwise_add(a, d, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_dense(d) != hd) fz_die(names[which], "modified an input");
    check_sparse_out(names[which], st, out, false);
    if (st == SPT_OK) {
        if (spt_tensor_nnz(out) != spt_tensor_nnz(a)) fz_die(names[which], "nnz changed");
        if (memcmp(spt_tensor_indices(out), spt_tensor_indices(a), (size_t)(spt_tensor_nnz(a) * r) * 8))
            fz_die(names[which], "indices changed");
        spt_tensor_free(out);
    }
    spt_dense_free(d);
}

static void do_softmax(fz_in *in, spt_tensor *a) {
    (void)in;
    uint64_t h = fz_hash_tensor(a);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_softmax(a, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != h) fz_die("spt_softmax", "modified the input");
    check_sparse_out("spt_softmax", st, out, true);
    if (st == SPT_OK) {
        if (spt_tensor_nnz(out) != spt_tensor_nnz(a)) fz_die("spt_softmax", "nnz changed");
        spt_tensor_free(out);
    }
}

static void do_matmul(fz_in *in, spt_tensor *a, bool vec) {
    int64_t r = spt_tensor_rank(a);
    bool adj_a = fz_bool(in), adj_b = !vec && fz_bool(in);
    int64_t k = r == 2 ? spt_tensor_shape(a)[adj_a ? 0 : 1] : fz_u8(in) % 4;
    if (fz_u8(in) == 6) k = fz_u8(in) % 4;
    int64_t m = fz_u8(in) % 5;
    int64_t shape[3] = {adj_b ? m : k, adj_b ? k : m, 1};
    int64_t br = vec ? 1 : 2;
    if (fz_u8(in) == 7) br = fz_u8(in) % 4;
    int dt = fz_u8(in) == 8 ? SPT_FLOAT64 : (int)spt_tensor_dtype(a);
    spt_dense *b = fz_dense(in, dt, br, shape);
    if (!b) return;
    uint64_t ha = fz_hash_tensor(a), hb = fz_hash_dense(b);
    spt_dense *out = FZ_SENTINEL;
    const char *op = vec ? "spt_sparse_dense_matvec" : "spt_sparse_dense_matmul";
    fz_op_begin();
    spt_status st = vec ? spt_sparse_dense_matvec(a, b, adj_a, &out) : spt_sparse_dense_matmul(a, b, adj_a, adj_b, &out);
    fz_op_end();
    fz_check_status(op, st, out);
    if (fz_hash_tensor(a) != ha || fz_hash_dense(b) != hb) fz_die(op, "modified an input");
    if (st == SPT_OK) {
        fz_check_dense(op, out);
        int64_t rows = spt_tensor_shape(a)[adj_a ? 1 : 0];
        if (spt_dense_shape(out)[0] != rows) fz_die(op, "output rows differ");
        spt_dense_free(out);
    }
    spt_dense_free(b);
}

static void act_reduce_sum(fz_in *in, spt_tensor *t) { do_reduce(in, t, false, false); }
static void act_reduce_sum_sparse(fz_in *in, spt_tensor *t) { do_reduce(in, t, false, true); }
static void act_reduce_max(fz_in *in, spt_tensor *t) { do_reduce(in, t, true, false); }
static void act_reduce_max_sparse(fz_in *in, spt_tensor *t) { do_reduce(in, t, true, true); }
static void act_add(fz_in *in, spt_tensor *t) { do_binary(in, t, 0); }
static void act_maximum(fz_in *in, spt_tensor *t) { do_binary(in, t, 1); }
static void act_minimum(fz_in *in, spt_tensor *t) { do_binary(in, t, 2); }
static void act_cwise_mul(fz_in *in, spt_tensor *t) { do_cwise(in, t, 0); }
static void act_cwise_div(fz_in *in, spt_tensor *t) { do_cwise(in, t, 1); }
static void act_cwise_add(fz_in *in, spt_tensor *t) { do_cwise(in, t, 2); }
static void act_matmul(fz_in *in, spt_tensor *t) { do_matmul(in, t, false); }
static void act_matvec(fz_in *in, spt_tensor *t) { do_matmul(in, t, true); }
static void act_reduce_any(fz_in *in, spt_tensor *t) { do_reduce(in, t, fz_bool(in), fz_bool(in)); }
static void act_binary_any(fz_in *in, spt_tensor *t) { do_binary(in, t, fz_u8(in) % 3); }

/* The shapes each action draws depend on its index (below), so the order is fixed. */
static const fz_action actions[] = {
    {"reduce_sum", FZ_OP(spt_reduce_sum), act_reduce_sum, false},
    {"reduce_sum_sparse", FZ_OP(spt_reduce_sum_sparse), act_reduce_sum_sparse, false},
    {"reduce_max", FZ_OP(spt_reduce_max), act_reduce_max, false},
    {"reduce_max_sparse", FZ_OP(spt_reduce_max_sparse), act_reduce_max_sparse, false},
    {"add", FZ_OP(spt_add), act_add, false},
    {"add_dense", FZ_OP(spt_add_dense), do_add_dense, false},
    {"cwise_mul", FZ_OP(spt_sparse_dense_cwise_mul), act_cwise_mul, false},
    {"cwise_div", FZ_OP(spt_sparse_dense_cwise_div), act_cwise_div, false},
    {"cwise_add", FZ_OP(spt_sparse_dense_cwise_add), act_cwise_add, false},
    {"maximum", FZ_OP(spt_maximum), act_maximum, false},
    {"minimum", FZ_OP(spt_minimum), act_minimum, false},
    {"softmax", FZ_OP(spt_softmax), do_softmax, false},
    {"matmul", FZ_OP(spt_sparse_dense_matmul), act_matmul, false},
    {"matvec", FZ_OP(spt_sparse_dense_matvec), act_matvec, false},
    {"reduce_any", FZ_OP(spt_reduce_sum), act_reduce_any, false},
    {"binary_any", FZ_OP(spt_add), act_binary_any, false},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    uint8_t action = fz_u8(&in) % FZ_NUM_ACTIONS(actions);
    fz_op_id op = actions[action].op;
    uint8_t flags = fz_u8(&in);
    fz_tspec spec = {.dtype = -1, .rank = -1, .numeric_only = flags < 230, .no_huge_dims = (flags & 1) != 0};
    if (op == FZ_OP(spt_add) || op == FZ_OP(spt_maximum) || op == FZ_OP(spt_minimum))
        spec.no_huge_dims = (flags & 3) != 0;
    /* the dense operand of add_dense and matmul spans the sparse dims: small shapes only; the broadcast
     * cwise ops also draw huge dims (any volume), where a dense operand of 1s still fits */
    bool cwise = op == FZ_OP(spt_sparse_dense_cwise_mul) || op == FZ_OP(spt_sparse_dense_cwise_div) ||
                 op == FZ_OP(spt_sparse_dense_cwise_add);
    if (op == FZ_OP(spt_add_dense) || action >= 12 || (cwise && !(flags & 2))) spec.no_huge_dims = true;
    if (op == FZ_OP(spt_sparse_dense_matmul) || op == FZ_OP(spt_sparse_dense_matvec))
        spec.rank = (flags & 0x30) ? 2 : -1;
    if (op == FZ_OP(spt_softmax) && (flags & 2)) spec.dtype = (flags & 4) ? SPT_FLOAT32 : SPT_FLOAT64;
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    actions[action].run(&in, t);
    spt_tensor_free(t);
    return 0;
}
