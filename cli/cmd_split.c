/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_split.c -- spt split: cut a tensor into pieces along an axis. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int run_split(cli_args *a) {
    int64_t axis = 0, num = 2;
    const char *ax = cli_opt(a, "axis"), *nm = cli_opt(a, "num"), *pre = cli_opt(a, "output");
    if (ax && !cli_parse_int(ax, &axis)) return cli_usage_error(a, "--axis needs an integer, found '%s'", ax);
    if (nm && (!cli_parse_int(nm, &num) || num < 1 || num > 100000))
        return cli_usage_error(a, "--num needs a number of pieces from 1 to 100000, found '%s'", nm);
    if (!pre || !strcmp(pre, "-"))
        return cli_usage_error(a, "the pieces need -o PREFIX (files PREFIX0.tns, PREFIX1.tns, ...)");
    spt_tensor *t = NULL;
    int rc = cli_read(a, a->pos[0], &t);
    if (rc) return rc;
    spt_tensor **outs = calloc((size_t)num, sizeof *outs);
    if (!outs) {
        spt_tensor_free(t);
        fprintf(stderr, "spt split: out of memory\n");
        return CLI_BAD_INPUT;
    }
    spt_status st = spt_split(t, axis, num, outs);
    if (st != SPT_OK) rc = cli_fail(a, st);
    const char *to = cli_opt(a, "to");
    spt_format f = SPT_FORMAT_TNS;
    if (!rc && to && spt_format_from_name(to, &f) != SPT_OK) rc = cli_usage_error(a, "unknown output format '%s'", to);
    const char *ext = f == SPT_FORMAT_MTX ? "mtx" : f == SPT_FORMAT_NPY ? "npy" : f == SPT_FORMAT_TNS ? "tns" : "npz";
    /* all pieces or none: when a write fails, the pieces already written are removed again */
    const size_t plen = strlen(pre) + 32;
    char *path = rc ? NULL : malloc(plen);
    if (!rc && !path) {
        fprintf(stderr, "spt split: out of memory\n");
        rc = CLI_BAD_INPUT;
    }
    /* which piece names exist before the run: a failure removes only the pieces this run created */
    bool *existed = rc ? NULL : calloc((size_t)num, sizeof *existed);
    if (!rc && !existed) {
        fprintf(stderr, "spt split: out of memory\n");
        rc = CLI_BAD_INPUT;
    }
    for (int64_t k = 0; !rc && k < num; k++) {
        struct stat sb;
        snprintf(path, plen, "%s%lld.%s", pre, (long long)k, ext);
        existed[k] = lstat(path, &sb) == 0;
        if (existed[k] && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) { /* fail before writing any piece */
            fprintf(stderr, "spt split: cannot write %s: it is a directory (nothing was written)\n", path);
            rc = CLI_BAD_INPUT;
        }
    }
    int64_t written = 0;
    while (!rc && written < num) {
        snprintf(path, plen, "%s%lld.%s", pre, (long long)written, ext);
        st = spt_write(outs[written], path, f);
        if (st != SPT_OK) {
            rc = cli_fail(a, st);
            break;
        }
        printf("%s: %lld entries\n", path, (long long)spt_tensor_nnz(outs[written]));
        written++;
    }
    if (rc && written > 0) {
        int64_t removed = 0, kept = 0;
        for (int64_t k = 0; k < written; k++) {
            if (existed[k]) {
                kept++;
                continue;
            }
            snprintf(path, plen, "%s%lld.%s", pre, (long long)k, ext);
            if (unlink(path) == 0) removed++;
        }
        fprintf(stderr, "spt split: removed the %lld piece(s) this run created before the failure", (long long)removed);
        if (kept) fprintf(stderr, "; %lld piece(s) replaced files that existed before and stay", (long long)kept);
        fprintf(stderr, "\n");
    }
    free(existed);
    free(path);
    for (int64_t k = 0; k < num; k++) spt_tensor_free(outs[k]);
    free(outs);
    spt_tensor_free(t);
    return rc;
}

const cli_cmd cli_cmd_split = {
    "split",
    "split a tensor into pieces along an axis (tf.sparse.split)",
    "spt split --axis A --num N [options] IN -o PREFIX",
    "Cut IN into N pieces along axis A (the first dim % N pieces are one longer) and write them as\n"
    "PREFIX0.tns, PREFIX1.tns, ... (the extension follows --to); prints each file and its entry count.\n\n"
    "options:\n"
    "  --axis A         the axis (default 0; negative counts from the end)\n"
    "  --num N          the number of pieces (default 2)\n"
    "  -o, --output P   the prefix of the output files (required)\n"
    "  --format F       input format (default: from the extension)\n"
    "  --to F           output format (default tns)\n"
    "  --dtype D        read the values as dtype D (text formats)\n",
    "axis num output format to dtype",
    "",
    1,
    1,
    run_split};
