/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_spy.c -- spt spy: a PNG picture of the sparsity pattern. */
#include <string.h>
#include <strings.h>

#include "cli.h"

static int run_spy(cli_args *a) {
    const char *out = cli_opt(a, "output");
    if (!out) return cli_usage_error(a, "the picture needs -o FILE.png");
    /* the format follows the name: PNG is the one spt draws, so any other extension is refused */
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (strcmp(out, "-") && (!dot || (slash && dot < slash) || strcasecmp(dot, ".png")))
        return cli_usage_error(a,
                               "spy draws PNG pictures only; name the output FILE.png (or '-' for stdout), found '%s'",
                               out);
    int64_t modes[2] = {0, 1}, n = 2, size = 512;
    const char *m = cli_opt(a, "modes");
    if (m && (!cli_parse_list(m, modes, 2, &n) || n != 2))
        return cli_usage_error(a, "--modes needs two dims ROW,COL, found '%s'", m);
    const char *s = cli_opt(a, "size");
    if (s && (!cli_parse_int(s, &size) || size < 1 || size > 16384))
        return cli_usage_error(a, "--size needs a number of pixels from 1 to 16384, found '%s'", s);
    spt_tensor *t = NULL;
    int rc = cli_read(a, a->pos[0], &t);
    if (rc) return rc;
    spt_status st = cli_opt(a, "values") != NULL ? spt_write_spy_png_values(t, modes[0], modes[1], size, cli_output(a))
                                                 : spt_write_spy_png(t, modes[0], modes[1], size, cli_output(a));
    spt_tensor_free(t);
    return st == SPT_OK ? CLI_OK : cli_fail(a, st);
}

const cli_cmd cli_cmd_spy = {
    "spy",
    "draw the sparsity pattern of a matrix, or of two modes of a tensor, as a PNG",
    "spt spy [--modes R,C] [--size N] [--values] IN -o OUT.png",
    "Project the entries of IN onto modes R (rows) and C (columns) and draw them: white is empty, grey\n"
    "to black the more entries a pixel covers (log scale). Cells are square, so the picture keeps the\n"
    "shape of the two dims: small dims are enlarged, large ones binned, so that the plot is at most N\n"
    "pixels on its longer side. The plot is framed, with ticks and their 0-based indices on the left\n"
    "(rows) and top (columns). With --values each cell is coloured by the sum of its entries' values\n"
    "instead: white towards red for positive, towards blue for negative (linear in the sum's size), light\n"
    "grey where they cancel, green for NaN. The output is PNG: its name must end in .png.\n\n"
    "options:\n"
    "  -o, --output F   the PNG file (required; '-' = stdout)\n"
    "  --modes R,C      the two modes to plot (default 0,1; ignored for rank 1)\n"
    "  --size N         the longer side of the plot in pixels (default 512)\n"
    "  --values         colour the cells by the sum of their values (numeric dtypes)\n"
    "  --format F       input format (default: from the extension)\n",
    "output modes size format dtype",
    "values",
    1,
    1,
    run_spy};
