/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_cli.c -- the spt command's argument parser and each command's own option handling: the input
 * picks a command and gives its arguments (NUL-separated tokens after the first byte). cli_parse must
 * return a usage error, the help, or arguments; then the command runs with every file it would read
 * replaced by one of a few small scratch files (a 3-mode tensor, integer ids, a matrix, an empty file,
 * a malformed one) and every file it would write put in the scratch directory, so that options such as
 * --axis, --start/--size, --modes, --order, --map, --minlength run on real data. The exit code must be
 * 0, 1 or 2. stdin reads /dev/null; the command's output goes to /dev/null; spt allocates at most 256 MB
 * at once. */
#include "fz.h"
#include "fz_file.h"
#include "cli.h"

#include <string.h>
#include <sys/stat.h>

extern const cli_cmd cli_cmd_spgemm;
static const cli_cmd *const commands[] = {&cli_cmd_info,   &cli_cmd_validate, &cli_cmd_convert,  &cli_cmd_reorder,
                                          &cli_cmd_concat, &cli_cmd_split,    &cli_cmd_slice,    &cli_cmd_reduce,
                                          &cli_cmd_add,    &cli_cmd_matmul,   &cli_cmd_to_dense, &cli_cmd_sparsify,
                                          &cli_cmd_spy,    &cli_cmd_bincount, &cli_cmd_map,      &cli_cmd_expand_dims,
                                          &cli_cmd_spgemm};
#define NCMD (sizeof commands / sizeof *commands)

enum { NIN = 6, MAXTOK = 24, TOKLEN = 64 };
static char dir[256], inputs[NIN][320], outs[6][320];
static FILE *devnull;

/* spt's allocations capped at 256 MB: an option naming a huge shape (to-dense --shape ...) fails with
 * SPT_ENOMEM instead of filling the fuzzer's memory limit */
enum { CAP = 256 << 20 };
static void *cap_malloc(size_t n) { return n > CAP ? NULL : malloc(n); }
static void *cap_realloc(void *p, size_t n) { return n > CAP ? NULL : realloc(p, n); }

static void setup(void) {
    static bool done;
    if (done) return;
    done = true;
    spt_set_allocator(cap_malloc, cap_realloc, free);
    char base[256];
    fz_scratch(base, sizeof base, "cli", "");
    snprintf(dir, sizeof dir, "%s", base);
    mkdir(dir, 0700);
    static const char *const text[NIN] = {"# shape: 4 5 3\n1 1 1 1.5\n2 3 2 -2\n4 5 3 4\n3 1 2 0.5\n",
                                          "# integer ids\n1 1 3\n1 2 1\n2 1 4\n3 3 0\n",
                                          "2 2 1\n1 1 1\n2 1 2\n1 2 3\n",
                                          "",
                                          "1 1 x\n",
                                          "# shape: 4 2 2\n1 1 1 1\n2 2 2 1\n4 1 2 1\n"};
    static const char *const name[NIN] = {"t3.tns", "ids.tns", "m.tns", "e.tns", "bad.tns", "map.tns"};
    for (int k = 0; k < NIN; k++) {
        snprintf(inputs[k], sizeof inputs[k], "%s/%s", dir, name[k]);
        fz_write_file(inputs[k], text[k], strlen(text[k]));
    }
    static const char *const ext[6] = {".tns", ".npy", ".npz", ".mtx", ".png", ".tns.gz"};
    for (int k = 0; k < 6; k++) snprintf(outs[k], sizeof outs[k], "%s/out%s", dir, ext[k]);
    if (!freopen("/dev/null", "r", stdin) || !(devnull = fopen("/dev/null", "w"))) abort();
}

static unsigned hash(const char *s) {
    unsigned h = 2166136261u;
    while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

/* The scratch output for a requested one: the same kind of file (by its ending), or stdout. */
static const char *out_for(const char *v) {
    if (!strcmp(v, "-")) return "-";
    static const char *const ext[6] = {".tns", ".npy", ".npz", ".mtx", ".png", ".tns.gz"};
    size_t n = strlen(v);
    for (int k = 5; k >= 0; k--) {
        size_t e = strlen(ext[k]);
        if (n >= e && !strcmp(v + n - e, ext[k])) return outs[k];
    }
    return outs[hash(v) % 6];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    if (size < 1) return 0;
    const cli_cmd *c = commands[data[0] % NCMD];
    static char tok[MAXTOK][TOKLEN + 1];
    char *argv[MAXTOK + 2];
    int argc = 0;
    argv[argc++] = (char *)c->name;
    size_t i = 1;
    while (i < size && argc <= MAXTOK) {
        size_t n = 0;
        while (i < size && data[i] != 0) {
            if (n < TOKLEN) tok[argc - 1][n++] = (char)data[i];
            i++;
        }
        tok[argc - 1][n] = 0;
        argv[argc] = tok[argc - 1];
        argc++;
        i++; /* the NUL */
    }
    argv[argc] = NULL;
    /* the command's messages go to /dev/null: the stdout and stderr variables are swapped, not the
     * descriptors, so libFuzzer's and the sanitizers' reports still reach the terminal */
    FILE *out0 = stdout, *err0 = stderr;
    stdout = stderr = devnull;
    cli_args a;
    int rc = cli_parse(c, argc, argv, &a);
    if (rc >= 0) {
        stdout = out0, stderr = err0;
        if (rc != CLI_OK && rc != CLI_USAGE) fz_die("cli_parse", "an exit code other than 0 or 2");
        spt_set_num_threads(0);
        return 0;
    }
    for (int k = 0; k < a.npos; k++) a.pos[k] = inputs[hash(a.pos[k]) % NIN];
    for (int k = 0; k < a.nopt; k++) {
        if (!strcmp(a.opt_name[k], "output")) a.opt_val[k] = out_for(a.opt_val[k]);
        else if (!strcmp(a.opt_name[k], "weights")) a.opt_val[k] = inputs[hash(a.opt_val[k]) % NIN];
    }
    rc = c->run(&a);
    fflush(devnull);
    stdout = out0, stderr = err0;
    if (rc < 0 || rc > 2) fz_die(c->name, "an exit code other than 0, 1 or 2");
    spt_set_num_threads(0);
    spt_set_read_member(NULL);
    return 0;
}
