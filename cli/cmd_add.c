/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_add.c -- spt add: the sum of two sparse tensors. */
#include <stdlib.h>

#include "cli.h"

static int run_add(cli_args *a) {
    double thresh = 0;
    const char *th = cli_opt(a, "thresh");
    if (th) {
        char *e;
        thresh = strtod(th, &e);
        if (*e || e == th) return cli_usage_error(a, "--thresh needs a number, found '%s'", th);
    }
    spt_tensor *x = NULL, *y = NULL, *o = NULL;
    int rc = cli_read(a, a->pos[0], &x);
    if (!rc) rc = cli_read(a, a->pos[1], &y);
    if (!rc) {
        spt_status st = spt_add(x, y, thresh, &o);
        rc = st == SPT_OK ? cli_write(a, o) : cli_fail(a, st);
    }
    spt_tensor_free(x);
    spt_tensor_free(y);
    spt_tensor_free(o);
    return rc;
}

const cli_cmd cli_cmd_add = {
    "add",
    "the sum of two sparse tensors of one shape (tf.sparse.add)",
    "spt add [--thresh T] [options] A B",
    "The union of the entries of A and B in row-major order; where both hold an index the values are\n"
    "added, and the sum is kept if |sum| >= T (default 0: kept).\n\n"
    "options:\n"
    "  --thresh T       drop sums whose magnitude is below T (an integer for integer values)\n"
    "  -o, --output F   the output file (default stdout, .tns)\n"
    "  --format F       input format (default: from the extensions)\n"
    "  --to F           output format (default: from the output's extension)\n"
    "  --dtype D        read the values as dtype D (text formats)\n",
    "thresh output format to dtype",
    "",
    2,
    2,
    run_add};
