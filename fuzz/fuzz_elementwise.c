/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_elementwise.c -- the elementwise family (add, maximum / minimum, multiply, subtract, add_dense, the
 * sparse-dense cwise ops, multiply_dense / divide_dense, map_values, cast) on decoded tensors with arbitrary
 * shapes (huge dims where no dense storage of them is made), out-of-range indices and raw value bits, with
 * allocation failures injected. Results must satisfy the invariants; inputs must not change. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

static spt_tensor *partner(fz_in *in, const spt_tensor *a) {
    uint8_t m = fz_u8(in);
    int64_t r = spt_tensor_rank(a), shape[SPT_MAX_RANK];
    for (int64_t d = 0; d < r; d++) shape[d] = spt_tensor_shape(a)[d];
    if (m == 255 && r > 0) shape[fz_range(in, 0, r - 1)] = fz_int(in, 5);
    fz_tspec spec = {.dtype = m == 254 ? -1 : (int)spt_tensor_dtype(a),
                     .rank = m == 253 ? -1 : r,
                     .shape = m == 253 ? NULL : shape};
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
    spt_status st = which == 0   ? spt_add(a, b, thresh, &out)
                    : which == 1 ? spt_maximum(a, b, &out)
                                 : spt_minimum(a, b, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_tensor(b) != hb) fz_die(names[which], "modified an input");
    fz_check_sparse_out(names[which], st, out, true);
    if (st == SPT_OK) {
        if (spt_tensor_nnz(out) > spt_tensor_nnz(a) + spt_tensor_nnz(b))
            fz_die(names[which], "more entries than both inputs");
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
    static const char *names[] = {"spt_sparse_dense_cwise_mul", "spt_sparse_dense_cwise_div",
                                  "spt_sparse_dense_cwise_add"};
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
    spt_status st = which == 0   ? spt_sparse_dense_cwise_mul(a, d, &out)
                    : which == 1 ? spt_sparse_dense_cwise_div(a, d, &out)
                                 : spt_sparse_dense_cwise_add(a, d, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_dense(d) != hd) fz_die(names[which], "modified an input");
    fz_check_sparse_out(names[which], st, out, false);
    if (st == SPT_OK) {
        if (spt_tensor_nnz(out) != spt_tensor_nnz(a)) fz_die(names[which], "nnz changed");
        if (memcmp(spt_tensor_indices(out), spt_tensor_indices(a), (size_t)(spt_tensor_nnz(a) * r) * 8))
            fz_die(names[which], "indices changed");
        spt_tensor_free(out);
    }
    spt_dense_free(d);
}

static void do_bcast(fz_in *in, spt_tensor *a, bool div) {
    const char *op = div ? "spt_divide_dense" : "spt_multiply_dense";
    int64_t r = spt_tensor_rank(a), dr = fz_u8(in) % 4, shape[4];
    for (int64_t d = 0; d < dr; d++) {
        int64_t k = r - dr + d;
        uint8_t m = fz_u8(in);
        shape[d] = m < 100 ? 1 : k >= 0 && m < 230 ? spt_tensor_shape(a)[k] : m % 4;
        if (shape[d] > 8) shape[d] = 1;
    }
    int dt = fz_u8(in) == 9 ? SPT_FLOAT64 : (int)spt_tensor_dtype(a);
    spt_dense *d = fz_dense(in, dt, dr, shape);
    if (!d) return;
    uint64_t ha = fz_hash_tensor(a), hd = fz_hash_dense(d);
    spt_tensor *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = div ? spt_divide_dense(a, d, &out) : spt_multiply_dense(a, d, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_dense(d) != hd) fz_die(op, "modified an input");
    fz_finish_tensor(op, st, out, false);
    spt_dense_free(d);
}

static void act_add(fz_in *in, spt_tensor *t) { do_binary(in, t, 0); }

static void act_maximum(fz_in *in, spt_tensor *t) { do_binary(in, t, 1); }

static void act_minimum(fz_in *in, spt_tensor *t) { do_binary(in, t, 2); }

static void act_cwise_mul(fz_in *in, spt_tensor *t) { do_cwise(in, t, 0); }

static void act_cwise_div(fz_in *in, spt_tensor *t) { do_cwise(in, t, 1); }

static void act_cwise_add(fz_in *in, spt_tensor *t) { do_cwise(in, t, 2); }

static void act_binary_any(fz_in *in, spt_tensor *t) { do_binary(in, t, fz_u8(in) % 3); }

static void act_multiply(fz_in *in, spt_tensor *t) { fz_sparse_sparse(in, t, 1); }

static void act_subtract(fz_in *in, spt_tensor *t) { fz_sparse_sparse(in, t, 2); }

static void act_multiply_dense(fz_in *in, spt_tensor *t) { do_bcast(in, t, false); }

static void act_divide_dense(fz_in *in, spt_tensor *t) { do_bcast(in, t, true); }

/* multiply, subtract, or (as it always did) the sparse-sparse product */
static void act_sparse_binary_any(fz_in *in, spt_tensor *t) { fz_sparse_sparse(in, t, fz_u8(in) % 3); }

static void act_map_values(fz_in *in, spt_tensor *t) { fz_unary(in, t, 1); }

static void act_cast(fz_in *in, spt_tensor *t) { fz_unary(in, t, 2); }

/* Every input's second byte picks the action (modulo the table's length): append, never reorder. */
static const fz_action actions[] = {
    {"add", FZ_OP(spt_add), act_add, false},
    {"add_dense", FZ_OP(spt_add_dense), do_add_dense, false},
    {"cwise_mul", FZ_OP(spt_sparse_dense_cwise_mul), act_cwise_mul, false},
    {"cwise_div", FZ_OP(spt_sparse_dense_cwise_div), act_cwise_div, false},
    {"cwise_add", FZ_OP(spt_sparse_dense_cwise_add), act_cwise_add, false},
    {"maximum", FZ_OP(spt_maximum), act_maximum, false},
    {"minimum", FZ_OP(spt_minimum), act_minimum, false},
    {"binary_any", FZ_OP(spt_add), act_binary_any, false},
    {"multiply", FZ_OP(spt_multiply), act_multiply, false},
    {"subtract", FZ_OP(spt_subtract), act_subtract, false},
    {"multiply_dense", FZ_OP(spt_multiply_dense), act_multiply_dense, false},
    {"divide_dense", FZ_OP(spt_divide_dense), act_divide_dense, false},
    {"sparse_binary_any", FZ_OP(spt_multiply), act_sparse_binary_any, false},
    {"map_values", FZ_OP(spt_map_values), act_map_values, false},
    {"cast", FZ_OP(spt_cast), act_cast, false},
};

/* The decoded tensor's spec (each action keeps the one its corpus was found with). */
static fz_tspec spec_for(const fz_action *a, uint8_t flags) {
    fz_tspec spec = {.dtype = -1, .rank = -1, .numeric_only = flags < 230, .no_huge_dims = (flags & 1) != 0};
    if (a->op == FZ_OP(spt_map_values) || a->op == FZ_OP(spt_cast))
        return (fz_tspec){.dtype = -1, .rank = -1, .no_huge_dims = true};
    if (a->op == FZ_OP(spt_multiply) || a->op == FZ_OP(spt_subtract)) {
        spec.no_huge_dims = a->run == act_sparse_binary_any;
        return spec;
    }
    if (a->op == FZ_OP(spt_multiply_dense) || a->op == FZ_OP(spt_divide_dense)) {
        spec.no_huge_dims = true;
        return spec;
    }
    if (a->op == FZ_OP(spt_add) || a->op == FZ_OP(spt_maximum) || a->op == FZ_OP(spt_minimum))
        spec.no_huge_dims = (flags & 3) != 0;
    /* the dense operand of add_dense spans the sparse dims: small shapes only; the broadcast cwise ops
     * also draw huge dims (any volume), where a dense operand of 1s still fits */
    bool cwise = a->op == FZ_OP(spt_sparse_dense_cwise_mul) || a->op == FZ_OP(spt_sparse_dense_cwise_div) ||
                 a->op == FZ_OP(spt_sparse_dense_cwise_add);
    if (a->op == FZ_OP(spt_add_dense) || a->run == act_binary_any || (cwise && !(flags & 2))) spec.no_huge_dims = true;
    return spec;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_action *a = &actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)];
    uint8_t flags = fz_u8(&in);
    fz_tspec spec = spec_for(a, flags);
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
