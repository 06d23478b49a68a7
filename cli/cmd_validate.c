/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_validate.c -- spt validate: does a file hold a well-formed tensor? */
#include <string.h>

#include "cli.h"

static int run_validate(cli_args *a) {
    spt_tensor *t = NULL;
    const char *path = a->pos[0];
    int rc = cli_read(a, path, &t);
    if (rc) return rc;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    spt_status st = spt_validate(t);
    if (st == SPT_OK && cli_opt(a, "strict")) {
        st = spt_tensor_set_order(t, NULL);
        if (st == SPT_OK && spt_tensor_rank(t) > 0) {
            int64_t order[SPT_MAX_RANK];
            for (int64_t k = 0; k < spt_tensor_rank(t); k++) order[k] = k;
            st = spt_tensor_set_order(t, order);
        }
        if (st == SPT_OK) st = spt_indices_valid(t);
    }
    if (st != SPT_OK) {
        fprintf(stderr, "%s: invalid: %s\n", name, spt_last_error());
        spt_tensor_free(t);
        return CLI_BAD_INPUT;
    }
    printf("%s: ok: rank %lld, %s, %lld entries, every index inside the shape%s\n", name, (long long)spt_tensor_rank(t),
           spt_dtype_name(spt_tensor_dtype(t)), (long long)spt_tensor_nnz(t),
           cli_opt(a, "strict") ? ", strictly increasing in row-major order" : "");
    spt_tensor_free(t);
    return CLI_OK;
}

const cli_cmd cli_cmd_validate = {
    "validate",
    "check that a file is well formed and every index lies inside the shape",
    "spt validate [--strict] [--format F] [--dtype D] FILE",
    "Read FILE (a malformed file is reported as FILE:LINE: expected X, found Y) and check every index\n"
    "against the shape. Exit code 0 when valid, 1 otherwise.\n\n"
    "options:\n"
    "  --strict         also require the entries to be strictly increasing in row-major order\n"
    "                   (sorted, no duplicates), as TensorFlow's IndicesValid\n"
    "  --format F       input format: tns, mtx, npy, npz (default: from the extension)\n"
    "  --dtype D        read the values as dtype D (text formats)\n",
    "format dtype",
    "strict",
    1,
    1,
    run_validate};
