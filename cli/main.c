/* SPDX-License-Identifier: Apache-2.0 */
/* main.c -- the spt command: global options, then one subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int spt_cli_demo(int argc, char **argv);
int spt_cli_demo_main(int argc, char **argv); /* demo_args.c: --help, the data directory */

const cli_cmd cli_cmd_none = {0}; /* the ops of src/ops/ops.def without a command */

/* One slot per op of src/ops/ops.def, in its order: the op's command or cli_cmd_none. */
static const cli_cmd *const commands[] = {
#define SPT_OP(family, fn, python, command, checks) &cli_cmd_##command,
#define SPT_API(family, fn)
#include "ops/ops.def"
#undef SPT_OP
#undef SPT_API
};

static void usage(FILE *f) {
    fprintf(f, "usage: spt [--threads N] COMMAND [options] [FILES]\n\n"
               "Inspect, convert and transform sparse tensors stored as files: FROSTT .tns, Matrix Market\n"
               ".mtx, NumPy .npy (dense) and .npz (pydata/sparse and SciPy). The format comes from the\n"
               "extension (--format for inputs, --to for outputs); '-' is stdin/stdout (.tns by default).\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (commands[i]->name) fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "  %-10s %s\n", "demo", "a walkthrough on the files of a directory (default data/)");
    fprintf(f, "\n'spt COMMAND --help' describes a command's options.\n"
               "Exit codes: 0 success, 1 bad input (malformed file, failed operation), 2 usage error.\n");
}

int main(int argc, char **argv) {
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("spt %d.%d.%d\n", SPT_VERSION_MAJOR, SPT_VERSION_MINOR, SPT_VERSION_PATCH);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--threads") || !strncmp(argv[i], "--threads=", 10)) {
            const char *v = argv[i][9] == '=' ? argv[i] + 10 : (i + 1 < argc ? argv[++i] : NULL);
            int64_t t;
            if (!cli_parse_int(v, &t) || t < 1 || t > 1024) {
                fprintf(stderr, "spt: --threads needs a number from 1 to 1024\n");
                return CLI_USAGE;
            }
            spt_set_num_threads((int)t);
            i++;
            continue;
        }
        fprintf(stderr, "spt: unknown option '%s' (see 'spt --help')\n", argv[i]);
        return CLI_USAGE;
    }
    if (i >= argc) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[i];
    if (!strcmp(name, "help")) {
        if (i + 1 < argc)
            for (size_t k = 0; k < sizeof commands / sizeof *commands; k++)
                if (commands[k]->name && !strcmp(commands[k]->name, argv[i + 1])) {
                    char *av[] = {argv[i + 1], "--help", NULL};
                    cli_args a;
                    return cli_parse(commands[k], 2, av, &a) < 0 ? CLI_OK : CLI_OK;
                }
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(name, "demo")) return spt_cli_demo_main(argc - i, argv + i);
    for (size_t k = 0; k < sizeof commands / sizeof *commands; k++)
        if (commands[k]->name && !strcmp(commands[k]->name, name)) {
            cli_args a;
            int rc = cli_parse(commands[k], argc - i, argv + i, &a);
            if (rc >= 0) return rc;
            return commands[k]->run(&a);
        }
    fprintf(stderr, "spt: unknown command '%s' (see 'spt --help')\n", name);
    return CLI_USAGE;
}
