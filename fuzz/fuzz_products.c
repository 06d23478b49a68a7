/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_products.c -- the products family (sparse x dense matmul / matvec, sparse x sparse matmul, bmm,
 * mttkrp, ttv, ttm, tensordot, einsum) on decoded tensors with arbitrary shapes (huge dims where no dense
 * storage of them is made), out-of-range indices and raw value bits, with allocation failures injected.
 * Results must satisfy the invariants; inputs must not change. */
#include "fz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    spt_status st = vec ? spt_sparse_dense_matvec(a, b, adj_a, &out)
                        : spt_sparse_dense_matmul(a, b, adj_a, adj_b, &out);
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

static void do_bmm(fz_in *in, spt_tensor *a) {
    int64_t r = spt_tensor_rank(a);
    bool adj_a = fz_bool(in), adj_b = fz_bool(in), shared = fz_bool(in);
    int64_t k = r == 3 ? spt_tensor_shape(a)[adj_a ? 1 : 2] : fz_u8(in) % 4, n = fz_u8(in) % 5;
    if (fz_u8(in) == 6) k = fz_u8(in) % 4;
    int64_t shape[3] = {r >= 1 ? spt_tensor_shape(a)[0] : 1, adj_b ? n : k, adj_b ? k : n};
    if (shape[0] > 8) shape[0] = 1;
    int dt = fz_u8(in) == 8 ? SPT_FLOAT64 : (int)spt_tensor_dtype(a);
    spt_dense *b = fz_dense(in, dt, shared ? 2 : 3, shared ? shape + 1 : shape);
    if (!b) return;
    uint64_t ha = fz_hash_tensor(a), hb = fz_hash_dense(b);
    spt_dense *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_sparse_dense_bmm(a, b, adj_a, adj_b, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_dense(b) != hb) fz_die("spt_sparse_dense_bmm", "modified an input");
    fz_finish_dense("spt_sparse_dense_bmm", st, out);
    spt_dense_free(b);
}

static void do_contract(fz_in *in, spt_tensor *t, int which) {
    static const char *names[] = {"spt_mttkrp", "spt_ttv", "spt_ttm"};
    int64_t r = spt_tensor_rank(t), mode = fz_range(in, -1, r), R = fz_u8(in) % 4;
    int dt = fz_u8(in) == 8 ? SPT_FLOAT64 : (int)spt_tensor_dtype(t);
    spt_dense *f[SPT_MAX_RANK] = {NULL};
    spt_dense *u = NULL;
    int64_t nf = r;
    if (fz_u8(in) == 3) nf = r + 1;
    uint64_t h = fz_hash_tensor(t);
    spt_dense *dout = FZ_SENTINEL;
    spt_tensor *sout = FZ_SENTINEL;
    spt_status st;
    if (which == 0) {
        if (nf > 8) return;
        for (int64_t m = 0; m < nf && m < r; m++) {
            if (m == mode) continue;
            int64_t s[2] = {spt_tensor_shape(t)[m], R};
            if (fz_u8(in) == 5) s[0] = fz_u8(in) % 4;
            if (s[0] > 8) return;
            f[m] = fz_dense(in, dt, 2, s);
            if (!f[m]) goto done;
        }
        fz_op_begin();
        st = spt_mttkrp(t, (const spt_dense *const *)f, nf, mode, &dout);
        fz_op_end();
        if (st == SPT_OK && mode >= 0 && mode < r && spt_dense_shape(dout)[0] != spt_tensor_shape(t)[mode])
            fz_die(names[0], "output rows differ");
        fz_finish_dense(names[0], st, dout);
    } else {
        int64_t len = mode >= 0 && mode < r ? spt_tensor_shape(t)[mode] : 2;
        if (fz_u8(in) == 5) len = fz_u8(in) % 4;
        if (len > 8) return;
        int64_t s[2] = {R, len};
        u = which == 1 ? fz_dense(in, dt, 1, &len) : fz_dense(in, dt, 2, s);
        if (!u) return;
        fz_op_begin();
        st = which == 1 ? spt_ttv(t, u, mode, &sout) : spt_ttm(t, u, mode, &sout);
        fz_op_end();
        fz_finish_tensor(names[which], st, sout, which == 1);
    }
    if (fz_hash_tensor(t) != h) fz_die(names[which], "modified the input");
done:
    for (int64_t m = 0; m < SPT_MAX_RANK; m++) spt_dense_free(f[m]);
    spt_dense_free(u);
}

/* spt_tensordot with decoded pairs (out of range, repeated, mismatched sometimes) and spt_einsum with
 * subscripts built from the operands' ranks and mangled by the input (any byte, including malformed
 * arrows, commas, dots and repeats). Cases whose dense size could exceed 2^22 elements are skipped,
 * except tensordot's whose size overflows int64 (the op must refuse them). */
static void do_tensordot(fz_in *in, spt_tensor *a, bool einsum) {
    const char *op = einsum ? "spt_einsum" : "spt_tensordot";
    int64_t r = spt_tensor_rank(a), rb = fz_u8(in) % 4, bshape[4], na = fz_range(in, -1, 3), xa[4], xb[4];
    const int64_t *as = spt_tensor_shape(a);
    for (int64_t d = 0; d < rb; d++) bshape[d] = fz_u8(in) % 4;
    if (na > rb) na = rb;
    for (int64_t k = 0; k < na && k < 4; k++) {
        xa[k] = fz_range(in, -r - 1, r);
        xb[k] = fz_range(in, -rb - 1, rb);
        int64_t pa = xa[k] < 0 ? xa[k] + r : xa[k], pb = xb[k] < 0 ? xb[k] + rb : xb[k];
        if (pa >= 0 && pa < r && pb >= 0 && pb < rb && as[pa] <= 8 && fz_u8(in) != 7) bshape[pb] = as[pa];
    }
    /* the result's volume: a's dims, b's dims (an over-estimate: contracted dims counted too) */
    int64_t vol = 1;
    bool ovf = false;
    for (int64_t d = 0; d < r; d++) ovf |= __builtin_mul_overflow(vol, as[d] ? as[d] : 1, &vol);
    for (int64_t d = 0; d < rb; d++) ovf |= __builtin_mul_overflow(vol, bshape[d] ? bshape[d] : 1, &vol);
    if (ovf ? einsum : vol > ((int64_t)1 << 22)) return; /* einsum may sum a huge dim away: a big result */
    int dt = fz_u8(in) == 9 ? SPT_FLOAT64 : (int)spt_tensor_dtype(a);
    spt_dense *b = fz_dense(in, dt, rb, bshape);
    if (!b) return;
    char sub[64];
    size_t n = 0;
    if (einsum) { /* a's letters, b's (the pairs share a's), an output, then up to 4 raw bytes over it */
        char la[16] = {0}, lb[8] = {0};
        for (int64_t d = 0; d < r && d < 15; d++) la[d] = (char)('a' + d);
        for (int64_t d = 0; d < rb; d++) lb[d] = (char)('p' + d);
        for (int64_t k = 0; k < na; k++)
            if (xa[k] >= 0 && xa[k] < r && r <= 15 && xb[k] >= 0 && xb[k] < rb) lb[xb[k]] = la[xa[k]];
        n = (size_t)snprintf(sub, sizeof sub, "%s,%s", la, lb);
        if (fz_bool(in)) {
            n += (size_t)snprintf(sub + n, sizeof sub - n, "->");
            for (int64_t d = 0, m = fz_u8(in) % 5; d < m && n < 40; d++) sub[n++] = fz_bool(in) ? la[0] : lb[d % 4];
            sub[n] = 0;
        }
        for (int k = 0, m = fz_u8(in) % 5; k < m && n > 0; k++) {
            uint8_t at = fz_u8(in), c = fz_u8(in);
            sub[at % n] = (char)(c ? c : '.');
        }
    }
    uint64_t ha = fz_hash_tensor(a), hb = fz_hash_dense(b);
    spt_dense *out = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = einsum ? spt_einsum(sub, a, b, &out) : spt_tensordot(a, b, xa, xb, na, &out);
    fz_op_end();
    if (fz_hash_tensor(a) != ha || fz_hash_dense(b) != hb) fz_die(op, "modified an input");
    fz_finish_dense(op, st, out);
    spt_dense_free(b);
}

static void act_matmul(fz_in *in, spt_tensor *t) { do_matmul(in, t, false); }

static void act_matvec(fz_in *in, spt_tensor *t) { do_matmul(in, t, true); }

static void act_spgemm(fz_in *in, spt_tensor *t) { fz_sparse_sparse(in, t, 0); }

static void act_mttkrp(fz_in *in, spt_tensor *t) { do_contract(in, t, 0); }

static void act_ttv(fz_in *in, spt_tensor *t) { do_contract(in, t, 1); }

static void act_ttm(fz_in *in, spt_tensor *t) { do_contract(in, t, 2); }

static void act_tensordot(fz_in *in, spt_tensor *t) { do_tensordot(in, t, false); }

static void act_einsum(fz_in *in, spt_tensor *t) { do_tensordot(in, t, true); }

/* Every input's second byte picks the action (modulo the table's length): append, never reorder. */
static const fz_action actions[] = {
    {"matmul", FZ_OP(spt_sparse_dense_matmul), act_matmul, false},
    {"matvec", FZ_OP(spt_sparse_dense_matvec), act_matvec, false},
    {"sparse_sparse_matmul", FZ_OP(spt_sparse_sparse_matmul), act_spgemm, false},
    {"mttkrp", FZ_OP(spt_mttkrp), act_mttkrp, false},
    {"bmm", FZ_OP(spt_sparse_dense_bmm), do_bmm, false},
    {"ttv", FZ_OP(spt_ttv), act_ttv, false},
    {"ttm", FZ_OP(spt_ttm), act_ttm, false},
    {"tensordot", FZ_OP(spt_tensordot), act_tensordot, false},
    {"einsum", FZ_OP(spt_einsum), act_einsum, false},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_action *a = &actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)];
    uint8_t flags = fz_u8(&in);
    fz_tspec spec = {.dtype = -1, .rank = -1, .numeric_only = flags < 230};
    /* a dense operand spans the sparse dims (matmul, matvec, mttkrp, bmm, ttv, ttm): small shapes only */
    spec.no_huge_dims = a->op != FZ_OP(spt_sparse_sparse_matmul) && a->op != FZ_OP(spt_tensordot) &&
                        a->op != FZ_OP(spt_einsum);
    if (a->op == FZ_OP(spt_sparse_dense_matmul) || a->op == FZ_OP(spt_sparse_dense_matvec))
        spec.rank = (flags & 0x30) ? 2 : -1;
    if (a->op == FZ_OP(spt_sparse_sparse_matmul) || a->op == FZ_OP(spt_sparse_dense_bmm))
        spec.rank = (flags & 0x30) ? 2 + (flags & 1) : -1;
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
