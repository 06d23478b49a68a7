/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_matmul.c -- spt matmul: sparse matrix times dense matrix. */
#include <string.h>

#include "cli.h"

/* B's read options: --format and --dtype are A's, so they are dropped. */
void cli_matmul_b_args(const cli_args *a, cli_args *b_args) {
    *b_args = *a;
    b_args->nopt = 0;
    for (int i = 0; i < a->nopt; i++)
        if (strcmp(a->opt_name[i], "format") && strcmp(a->opt_name[i], "dtype")) {
            b_args->opt_name[b_args->nopt] = a->opt_name[i];
            b_args->opt_val[b_args->nopt++] = a->opt_val[i];
        }
}

/* A's read options: a text A (.tns, .mtx, stdin) is read in B's dtype unless --dtype is given. */
void cli_matmul_a_args(const cli_args *a, const spt_dense *b, cli_args *a_args) {
    *a_args = *a;
    spt_format fa = spt_format_from_path(a->pos[0]);
    if (cli_opt(a, "format")) spt_format_from_name(cli_opt(a, "format"), &fa);
    if (!cli_opt(a, "dtype") && (fa == SPT_FORMAT_TNS || fa == SPT_FORMAT_MTX || !strcmp(a->pos[0], "-")) &&
        a_args->nopt < CLI_MAX_OPTS) {
        a_args->opt_name[a_args->nopt] = "dtype";
        a_args->opt_val[a_args->nopt++] = spt_dtype_name(spt_dense_dtype(b));
    }
}

static int run_matmul(cli_args *a) {
    spt_tensor *x = NULL;
    spt_dense *b = NULL, *o = NULL;
    /* B first (its format comes from its own extension); a text A is then read in B's dtype unless
     * --dtype says otherwise, so that `spt matmul A.tns B.npy` works for integer-looking text */
    cli_args a2;
    cli_matmul_b_args(a, &a2);
    int rc = cli_read_dense(&a2, a->pos[1], &b);
    if (!rc) {
        cli_matmul_a_args(a, b, &a2);
        rc = cli_read(&a2, a->pos[0], &x);
    }
    if (!rc) {
        spt_status st = spt_sparse_dense_matmul(x, b, cli_opt(a, "adjoint-a") != NULL, cli_opt(a, "adjoint-b") != NULL,
                                                &o);
        rc = st == SPT_OK ? cli_write_dense(a, o) : cli_fail(a, st);
    }
    spt_tensor_free(x);
    spt_dense_free(b);
    spt_dense_free(o);
    return rc;
}

const cli_cmd cli_cmd_matmul = {
    "matmul",
    "sparse matrix times dense matrix (tf.sparse.sparse_dense_matmul)",
    "spt matmul [options] A B -o OUT",
    "Multiply the sparse matrix A by the dense matrix B (a .npy, or any sparse file densified); a text\n"
    "A (.tns, .mtx) is read in B's dtype unless --dtype is given. The dense product is written: as .npy\n"
    "for a .npy output, other formats keep its non-zero elements (stdout: .tns).\n\n"
    "options:\n"
    "  --adjoint-a      use the conjugate transpose of A\n"
    "  --adjoint-b      use the conjugate transpose of B\n"
    "  -o, --output F   the output file (default stdout, .tns)\n"
    "  --format F       A's format (default: from the extension)\n"
    "  --to F           output format (default: from the output's extension)\n"
    "  --dtype D        read A's values as dtype D (text formats)\n",
    "output format to dtype",
    "adjoint-a adjoint-b",
    2,
    2,
    run_matmul};
