/* SPDX-License-Identifier: Apache-2.0 */
/* fz.h -- shared pieces of spt's fuzz harnesses: a byte reader that never runs out (exhausted input
 * reads as zeros), decoders for small tensors and parameters, a failing allocator, and invariant
 * checks that abort() on a violation (libFuzzer records that as a crash; fuzz/replay.c fails).
 *
 * Every harness defines LLVMFuzzerTestOneInput and may call fz_begin(): the first byte of an input
 * decides whether the op under test runs with its k-th allocation failing (fz_op_begin/fz_op_end
 * bracket the call so only the op's own allocations are failed). */
#ifndef SPT_FZ_H
#define SPT_FZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

uint8_t fz_u8(fz_in *in);
uint16_t fz_u16(fz_in *in);
uint64_t fz_u64(fz_in *in);
bool fz_bool(fz_in *in);
/* An integer in [lo, hi] (hi - lo < 2^32). */
int64_t fz_range(fz_in *in, int64_t lo, int64_t hi);
/* A small count mostly, sometimes a boundary value (negative, huge, INT64_MAX...). */
int64_t fz_int(fz_in *in, int64_t small_max);
/* Copy n bytes (zeros past the end). */
void fz_bytes(fz_in *in, void *dst, size_t n);

/* ---- actions: what a harness runs, named, each with the op of src/ops/ops.def it exercises ---- */
typedef enum {
#define SPT_OP(family, fn, python, command, checks) FZ_OP_##fn,
#define SPT_API(family, fn) FZ_OP_##fn,
#include "ops/ops.def"
#undef SPT_OP
#undef SPT_API
    FZ_NUM_OPS
} fz_op_id;
/* FZ_OP(spt_x): the id of a function of ops.def (a name not in the list does not compile). */
#define FZ_OP(fn) FZ_OP_##fn

/* One entry of a harness's action table: the first input byte modulo the table's length picks it, so
 * the order of a table is part of its corpus's meaning (append, never reorder). run gets the decoded
 * input tensor, or NULL for an action that decodes its own inputs (alone). */
typedef struct fz_action {
    const char *name;
    fz_op_id op;
    void (*run)(fz_in *in, spt_tensor *t);
    bool alone;
} fz_action;
#define FZ_NUM_ACTIONS(table) ((uint8_t)(sizeof(table) / sizeof((table)[0])))
/* The ops a harness reaches besides its action table's (all of them for a harness without one);
 * ops.def's FUZZ flag counts them too. */
#define FZ_ALSO(...) static const fz_op_id fz_also[] __attribute__((unused)) = {__VA_ARGS__}

/* ---- the failing allocator ---- */
/* Read the mode byte: with probability ~1/4 the op's k-th allocation (k from the input) will fail. */
void fz_begin(fz_in *in);
void fz_op_begin(void); /* arm the failure (if any) */
void fz_op_end(void);   /* disarm; returns to plain allocation */
bool fz_failed(void);   /* an allocation was refused since fz_op_begin */

/* ---- decoding tensors ---- */
typedef struct fz_tspec {
    int dtype;            /* -1: decode one; else this dtype */
    int64_t rank;         /* -1: decode one */
    const int64_t *shape; /* NULL: decode one (needs rank known) */
    int max_nnz;          /* 0: 24 */
    bool numeric_only;    /* no strings / bools when decoding a dtype */
    bool no_huge_dims;    /* keep every dim small (dense ops) */
} fz_tspec;

/* A tensor decoded from the input, owned by the caller; NULL when construction failed (which is
 * itself checked: a failed construction must leave out NULL and report a non-OK status). The
 * indices are mostly inside the shape, sometimes outside; values are raw bytes (any bit pattern);
 * the order metadata is undefined, row-major or a random permutation; sometimes validated,
 * sometimes reordered. Uses the plain allocator. */
spt_tensor *fz_tensor(fz_in *in, const fz_tspec *spec);
/* A dense array decoded from the input (volume <= 4096). */
spt_dense *fz_dense(fz_in *in, int dtype, int64_t rank, const int64_t *shape);
/* A permutation of 0..rank-1, or (rarely) garbage, into order[]; returns false for NULL (use row-major). */
bool fz_order(fz_in *in, int64_t rank, int64_t *order);

/* ---- invariants ---- */
/* A non-NULL pointer an out-parameter starts as, so a failing call that forgets to reset it is seen. */
extern char fz_sentinel_obj;
#define FZ_SENTINEL ((void *)&fz_sentinel_obj)
void fz_die(const char *what, const char *detail) __attribute__((noreturn));
/* A tensor returned by an op: structure consistent (shape >= 0, volume = product, order all -1 or a
 * permutation), every index inside the shape, validate passes, sorted by its order when it claims
 * so, string bytes readable. */
void fz_check_tensor(const char *op, spt_tensor *t);
void fz_check_dense(const char *op, const spt_dense *d);
/* After a call that returned st with out-parameter value out: st is a known status, an error leaves
 * the out-parameter NULL and a message, ENOMEM only when an allocation really failed. */
void fz_check_status(const char *op, spt_status st, const void *out);

/* A fingerprint of a tensor's whole content (to check that inputs are not modified). */
uint64_t fz_hash_tensor(const spt_tensor *t);
uint64_t fz_hash_dense(const spt_dense *d);

/* ---- what several family harnesses share (the actions whose ops span families) ---- */
/* fz_check_status, then (on success) fz_check_tensor, row-major order when asked; the tensor is kept. */
void fz_check_sparse_out(const char *op, spt_status st, spt_tensor *out, bool row_major);
/* The same, then the output freed. */
void fz_finish_tensor(const char *op, spt_status st, spt_tensor *out, bool row_major);
/* fz_check_status, then (on success) fz_check_dense; the output freed. */
void fz_finish_dense(const char *op, spt_status st, spt_dense *out);
/* A second sparse operand of a's dtype and shape (for a product: a's inner dim leading), sometimes
 * mangled: a dim changed, another dtype, another rank. */
spt_tensor *fz_sparse_partner(fz_in *in, const spt_tensor *a, bool product, bool adj_a, bool adj_b);
/* a op b for a decoded partner b: which 0 spt_sparse_sparse_matmul, 1 spt_multiply, 2 spt_subtract. */
void fz_sparse_sparse(fz_in *in, spt_tensor *a, int which);
/* A one-tensor op: kind 0 spt_expand_dims, 1 spt_map_values, 2 spt_cast (decoded axis, op, dtype). */
void fz_unary(fz_in *in, spt_tensor *t, int kind);

#endif
