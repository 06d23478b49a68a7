/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_slice.c -- spt slice: a box of a tensor. */
#include "cli.h"

static int run_slice(cli_args *a) {
    int64_t start[SPT_MAX_RANK], size[SPT_MAX_RANK], ns = 0, nz = 0;
    const char *s = cli_opt(a, "start"), *z = cli_opt(a, "size");
    if (!s || !cli_parse_list(s, start, SPT_MAX_RANK, &ns))
        return cli_usage_error(a, "--start needs a comma-separated list of coordinates");
    if (!z || !cli_parse_list(z, size, SPT_MAX_RANK, &nz))
        return cli_usage_error(a, "--size needs a comma-separated list of sizes");
    spt_tensor *t = NULL;
    int rc = cli_read(a, a->pos[0], &t);
    if (rc) return rc;
    if (ns != spt_tensor_rank(t) || nz != spt_tensor_rank(t)) {
        fprintf(stderr, "spt slice: --start and --size need %lld values (the rank), found %lld and %lld\n",
                (long long)spt_tensor_rank(t), (long long)ns, (long long)nz);
        spt_tensor_free(t);
        return CLI_BAD_INPUT;
    }
    spt_tensor *out = NULL;
    spt_status st = spt_slice(t, start, size, &out);
    rc = st == SPT_OK ? cli_write(a, out) : cli_fail(a, st);
    spt_tensor_free(t);
    spt_tensor_free(out);
    return rc;
}

const cli_cmd cli_cmd_slice = {
    "slice",
    "the entries inside a box, shifted to its corner (tf.sparse.slice)",
    "spt slice --start S0,S1,... --size Z0,Z1,... [options] IN",
    "Keep the entries with start <= index < start + size in every dim (0-based), shifted by -start; the\n"
    "box is clipped to the shape first, as tf.sparse.slice: a negative size is refused unless the start\n"
    "is at or past dim - size (then the slice is empty along that dim).\n\n"
    "options:\n"
    "  --start LIST     the box's first corner (0-based, one value per dim)\n"
    "  --size LIST      the box's size per dim\n"
    "  -o, --output F   the output file (default stdout, .tns)\n"
    "  --format F       input format (default: from the extension)\n"
    "  --to F           output format (default: from the output's extension)\n"
    "  --dtype D        read the values as dtype D (text formats)\n",
    "start size output format to dtype",
    "",
    1,
    1,
    run_slice};
