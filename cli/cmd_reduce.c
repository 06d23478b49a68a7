/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_reduce.c -- spt reduce: sum or max over axes. */
#include <string.h>

#include "cli.h"

static int run_reduce(cli_args *a) {
    const char *op = cli_opt(a, "op");
    if (!op) op = "sum";
    bool sum = !strcmp(op, "sum");
    if (!sum && strcmp(op, "max")) return cli_usage_error(a, "--op is sum or max, found '%s'", op);
    int64_t axes[SPT_MAX_RANK], nax = 0;
    const char *ax = cli_opt(a, "axis");
    if (ax && !cli_parse_list(ax, axes, SPT_MAX_RANK, &nax))
        return cli_usage_error(a, "--axis needs a comma-separated list of axes, found '%s'", ax);
    bool keep = cli_opt(a, "keep-dims") != NULL, dense = cli_opt(a, "dense") != NULL;
    spt_tensor *t = NULL;
    int rc = cli_read(a, a->pos[0], &t);
    if (rc) return rc;
    spt_status st;
    if (dense) {
        spt_dense *d = NULL;
        st = sum ? spt_reduce_sum(t, ax ? axes : NULL, nax, keep, &d)
                 : spt_reduce_max(t, ax ? axes : NULL, nax, keep, &d);
        rc = st == SPT_OK ? cli_write_dense(a, d) : cli_fail(a, st);
        spt_dense_free(d);
    } else {
        spt_tensor *o = NULL;
        st = sum ? spt_reduce_sum_sparse(t, ax ? axes : NULL, nax, keep, &o)
                 : spt_reduce_max_sparse(t, ax ? axes : NULL, nax, keep, &o);
        rc = st == SPT_OK ? cli_write(a, o) : cli_fail(a, st);
        spt_tensor_free(o);
    }
    spt_tensor_free(t);
    return rc;
}

const cli_cmd cli_cmd_reduce = {
    "reduce",
    "sum or max over axes (tf.sparse.reduce_sum / reduce_max)",
    "spt reduce --op sum|max [--axis A[,B...]] [options] IN",
    "Reduce the given axes (default: all, giving a rank-0 result) with sum (duplicates add up) or max\n"
    "(of the stored values only: implicit zeros do not take part). The result is sparse, one entry per\n"
    "non-empty output cell in row-major order, unless --dense.\n\n"
    "options:\n"
    "  --op OP          sum (default) or max\n"
    "  --axis LIST      the axes to reduce (negative counts from the end)\n"
    "  --keep-dims      keep the reduced axes with size 1\n"
    "  --dense          write the dense result (a .npy output is dense anyway)\n"
    "  -o, --output F   the output file (default stdout, .tns)\n"
    "  --format F       input format (default: from the extension)\n"
    "  --to F           output format (default: from the output's extension)\n"
    "  --dtype D        read the values as dtype D (text formats)\n",
    "op axis output format to dtype",
    "keep-dims dense",
    1,
    1,
    run_reduce};
