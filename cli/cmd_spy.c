/* cmd_spy.c -- spt spy: a PNG picture of the sparsity pattern. */
#include "cli.h"

static int run_spy(cli_args *a) {
    if (!cli_opt(a, "output")) return cli_usage_error(a, "the picture needs -o FILE.png");
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
    spt_status st = spt_write_spy_png(t, modes[0], modes[1], size, cli_output(a));
    spt_tensor_free(t);
    return st == SPT_OK ? CLI_OK : cli_fail(a, st);
}

const cli_cmd cli_cmd_spy = {
    "spy",
    "draw the sparsity pattern of a matrix, or of two modes of a tensor, as a PNG",
    "spt spy [--modes R,C] [--size N] IN -o OUT.png",
    "Project the entries of IN onto modes R (rows) and C (columns) and draw them: white is empty, grey\n"
    "to black the more entries a pixel covers (log scale). Large dims are binned so that the picture\n"
    "is at most N pixels per side.\n\n"
    "options:\n"
    "  -o, --output F   the PNG file (required; '-' = stdout)\n"
    "  --modes R,C      the two modes to plot (default 0,1; ignored for rank 1)\n"
    "  --size N         the largest side in pixels (default 512)\n"
    "  --format F       input format (default: from the extension)\n",
    "output modes size format dtype",
    "",
    1,
    1,
    run_spy};
