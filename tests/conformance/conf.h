/* SPDX-License-Identifier: Apache-2.0 */
/* conf.h -- the conformance runner: JSON cases -> spt calls -> exact comparison.
 * The handlers live in the C tests of their ops (see CONF_HANDLERS below); runner.c checks them against
 * src/ops/ops.def and dispatches. */
#ifndef SPT_CONF_H
#define SPT_CONF_H

#include <jansson.h>
#include <stdbool.h>

#include "spt.h"

typedef enum { CONF_PASS, CONF_FAIL, CONF_SKIP, CONF_CONTINUE } conf_result;

typedef struct conf_case {
    const char *file; /* basename of the .jsonl */
    long line;
    const char *id; /* "id" or "line N" */
    const char *op;
    json_t *root, *args, *expect;
    bool bad_input; /* bad_inputs.jsonl format: expect "ok" / "error:CLASS", optional "result" */
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

/* The handlers of an op live in the op's C test (tests/ops/<family>/test_<op>.c, tests/<family>/...), after
 * its cmocka tests, in a part compiled only into the conformance runner:
 *
 *     #else   (of the #ifndef SPT_CONFORMANCE that opens the file)
 *     #include "conf.h"
 *     static conf_result sparse_foo(const conf_case *c) { ... }
 *     CONF_HANDLERS(test_foo, {"sparse_foo", sparse_foo, CONF_OP(spt_foo)})
 *     #endif
 *
 * CONF_HANDLERS(tag, entries...) registers the file's entries at start-up (a constructor); the runner checks
 * them against ops.def (each op in a file of its family's test folder, CONF rows and handlers agreeing). */
typedef struct conf_reg {
    const conf_op *ops; /* terminated by {NULL, NULL, 0} */
    const char *file;   /* the test file holding them */
    struct conf_reg *next;
} conf_reg;
void conf_register(conf_reg *r);
/* The registered handler lists, most recent first. */
const conf_reg *conf_registered(void);
#define CONF_HANDLERS(tag, ...)                                                                                        \
    static const conf_op conf_ops_##tag[] = {__VA_ARGS__, {NULL, NULL, CONF_NUM_OPS}};                                 \
    static conf_reg conf_reg_##tag = {conf_ops_##tag, __FILE__, NULL};                                                 \
    __attribute__((constructor)) static void conf_register_##tag(void) { conf_register(&conf_reg_##tag); }

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
conf_result conf_expect_values(const conf_case *c, const json_t *exp, spt_dtype dtype, const void *vals, int64_t n,
                               const json_t *tol);

/* ---- what several families' handlers share (conf_common.c) ---- */
/* An intermediate step failed: judge that status (an expected error passes). */
#define JUDGE(c, st)                                                                                                   \
    do {                                                                                                               \
        if ((st) != SPT_OK) return conf_status((c), (st));                                                             \
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

/* ---- what the handlers of several ops of one family share (conf_<family>.c) ---- */
enum { OP_ADD, OP_MAX, OP_MIN }; /* conf_binary's op */
typedef spt_status (*seg_fn)(const spt_dense *, const spt_dense *, const spt_dense *, int64_t, spt_dense **);
#define MAXN 4096 /* the tot handlers' fixed buffers */
/* elementwise (conf_elementwise.c) */
conf_result conf_binary(const conf_case *c, int op);
conf_result conf_cwise(const conf_case *c, int op);
/* features (conf_features.c) */
spt_dtype conf_leaf_dtype(const json_t *j);
void conf_free_cross_inputs(spt_cross_input *in, size_t n);
spt_status conf_cross_inputs(const json_t *j, spt_cross_input **out, size_t *n);
conf_result conf_cross_common(const conf_case *c, bool hashed);
conf_result conf_embedding(const conf_case *c, bool safe);
/* io (conf_io.c) */
int conf_hexval(int ch);
char *conf_bytes_of(const json_t *j, size_t *len);
spt_read_opts conf_read_opts(const conf_case *c, int64_t *shape);
/* layout (conf_layout.c) */
conf_result conf_check_dense_result(const conf_case *c, const spt_dense *d);
conf_result conf_layout_sparse(const conf_case *c, const json_t *exp, const spt_tensor *t);
spt_status conf_sparse_list(const json_t *j, spt_tensor ***out, int64_t *n);
void conf_free_list(spt_tensor **ts, int64_t n);
/* reduce (conf_reduce.c) */
conf_result conf_reduce(const conf_case *c, bool max, bool sparse);
spt_status conf_ivec(const json_t *j, spt_dense **out);
conf_result conf_segment(const conf_case *c, seg_fn f);
/* tot (conf_tot.c) */
int64_t *conf_matrix(const json_t *j, int64_t *rows, int64_t *cols);
spt_status conf_make_map(const json_t *j, spt_sparse_map **m);
spt_status conf_expected_status(const char *name);
conf_result conf_judge_error(const conf_case *c, const char *what, spt_status got, const char *want);
long conf_rows(const json_t *j, int64_t *rows, long cap, int64_t *rank);
spt_status conf_build_map(const json_t *j, spt_sparse_map **out);
long conf_injections(const json_t *j, int64_t *modes, int64_t *values);
spt_status conf_make_domain(const json_t *j, spt_domain **out);

#endif
