/* SPDX-License-Identifier: Apache-2.0 */
/* conf.h -- the conformance runner: JSON cases -> spt calls -> exact comparison.
 * Each tests/conformance/ops_<family>.c exports the handler table of its family (the families of
 * src/ops/ops.def); runner.c checks the tables against the list and dispatches. */
#ifndef SPT_CONF_H
#define SPT_CONF_H

#include <jansson.h>
#include <stdbool.h>

#include "spt.h"

typedef enum { CONF_PASS, CONF_FAIL, CONF_SKIP, CONF_CONTINUE } conf_result;

typedef struct conf_case {
    const char *file; /* basename of the .jsonl */
    long line;
    const char *id;   /* "id" or "line N" */
    const char *op;
    json_t *root, *args, *expect;
    bool bad_input;   /* bad_inputs.jsonl format: expect "ok" / "error:CLASS", optional "result" */
} conf_case;

typedef conf_result (*conf_handler)(const conf_case *c);

/* CONF_OP(spt_x): the id of a public function of src/ops/ops.def (a name not in the list does not
 * compile). */
typedef enum {
#define SPT_OP(family, fn, python, command, checks) CONF_OP_##fn,
#define SPT_API(family, fn) CONF_OP_##fn,
#include "ops/ops.def"
#undef SPT_OP
#undef SPT_API
    CONF_NUM_OPS
} conf_op_id;
#define CONF_OP(fn) CONF_OP_##fn

/* One handler: the op name of the vectors it runs, and the op of ops.def it exercises. */
typedef struct conf_op {
    const char *name;
    conf_handler fn;
    conf_op_id op;
} conf_op;

/* The handler table of each family, in tests/conformance/ops_<family>.c, terminated by {NULL, NULL, 0}
 * (weak: a family without vectors has no file). */
#define CONF_FAMILIES(X) X(core) X(layout) X(elementwise) X(reduce) X(products) X(features) X(serial) X(grad) X(tot) X(io)
#define CONF_DECLARE_TABLE(family) extern const conf_op conf_ops_##family[] __attribute__((weak));
CONF_FAMILIES(CONF_DECLARE_TABLE)
#undef CONF_DECLARE_TABLE

/* Report a failure of case c (printf format); returns CONF_FAIL. */
conf_result conf_fail(const conf_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Judge a status against the case's expectation. An expected error: PASS if `st` is of the expected
 * class (TF's invalid_argument also accepts spt's OUT_OF_RANGE, OVERFLOW and DTYPE, which TF reports as
 * invalid argument) and the message carries the expected text, else FAIL. An expected success: FAIL if
 * st != OK, else CONF_CONTINUE (the handler then compares outputs). */
conf_result conf_status(const conf_case *c, spt_status st);
/* True when the case expects an error. */
bool conf_expects_error(const conf_case *c);

/* ---- building inputs ---- */
/* dtype from a tensor object's "dtype" (default float64) or a case-level "dtype" in args. */
spt_dtype conf_dtype(const json_t *obj, spt_dtype dflt);
/* An array argument (nested list, scalar, or {"dims","data","gen","claimed"}) as a new spt_dense of
 * `dtype`. min_rank pads nothing; `claimed` arrays are wrapped with NULL data (and so fail the size
 * checks). */
spt_status conf_dense(const json_t *j, spt_dtype dtype, spt_dense **out);
/* An int64 vector argument (list of ints); returns its length or -1 if malformed. */
long conf_ints(const json_t *j, int64_t *out, long cap);
/* A sparse operand {"indices","values","shape"|"dense_shape","dtype","order"} through
 * spt_tensor_create (TF's checks). `validate` also runs spt_validate. */
spt_status conf_sparse(const json_t *j, bool validate, spt_tensor **out);

/* ---- comparing outputs ---- */
/* Compare a tensor with {"indices","values","shape"[, "order"]} (values per the tensor dtype, float
 * tolerance from atol/rtol in `tol` or a default). Returns PASS or FAIL. */
conf_result conf_expect_sparse(const conf_case *c, const json_t *exp, const spt_tensor *t, const json_t *tol);
/* Compare a dense array with a nested list (shape and values). */
conf_result conf_expect_dense(const conf_case *c, const json_t *exp, const spt_dense *d, const json_t *tol);
/* Compare nnz values (of `dtype`) with a JSON list. */
conf_result conf_expect_values(const conf_case *c, const json_t *exp, spt_dtype dtype, const void *vals,
                               int64_t n, const json_t *tol);

/* ---- what several families' handlers share (conf_common.c) ---- */
/* An intermediate step failed: judge that status (an expected error passes). */
#define JUDGE(c, st)                                                                               \
    do {                                                                                           \
        if ((st) != SPT_OK) return conf_status((c), (st));                                         \
    } while (0)
/* The expected result object: "expect" (tf_ops) or "result" (bad_inputs "ok" cases; may be absent). */
json_t *conf_result_of(const conf_case *c);
/* A sparse argument under the first of two names. */
spt_status conf_arg_sparse(const conf_case *c, const char *k1, const char *k2, spt_tensor **t);
/* Compare a dense result: "dense" (values) and/or "dense_shape" (shape only). */
conf_result conf_check_dense(const conf_case *c, const spt_dense *d);
/* Compare a sparse result ({indices, values, shape|dense_shape}, optional indices_dims). */
conf_result conf_check_sparse(const conf_case *c, const spt_tensor *t);
/* Judge st, then compare d (or t) with the expected result. */
conf_result conf_finish(const conf_case *c, spt_status st, const spt_dense *d, const spt_tensor *t);
/* sp/a and dense/b operands; the dense one takes the sparse dtype. */
spt_status conf_sparse_dense_args(const conf_case *c, spt_tensor **t, spt_dense **d);
/* conf_status for tf_ops cases; for bad_inputs cases the strict classes by spt_status_name(), with
 * "message_contains". */
conf_result conf_judge(const conf_case *c, spt_status st);
/* The argument named k, or NULL. */
json_t *conf_arg(const conf_case *c, const char *k);
/* An int64 vector argument into a malloc'd array (*n its length; NULL array when absent/null). */
int64_t *conf_ints_new(const conf_case *c, const char *k, long *n);
/* An optional integer keyword: `dflt` when absent or null. */
int64_t conf_opt_int(const json_t *args, const char *key, int64_t dflt);
/* Judge st, then compare the sparse result with c->expect; frees out. */
conf_result conf_finish_sparse(const conf_case *c, spt_status st, spt_tensor *out);

#endif
