/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h -- what the spt subcommands share: option parsing, reading and writing files, messages. */
#ifndef SPT_CLI_H
#define SPT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spt.h"

/* Exit codes. */
enum { CLI_OK = 0, CLI_BAD_INPUT = 1, CLI_USAGE = 2 };

#define CLI_MAX_POS 256
#define CLI_MAX_OPTS 32

typedef struct cli_args {
    const char *cmd;
    int npos;
    const char *pos[CLI_MAX_POS];
    int nopt;
    const char *opt_name[CLI_MAX_OPTS];
    const char *opt_val[CLI_MAX_OPTS];
} cli_args;

typedef struct cli_cmd {
    const char *name;
    const char *summary; /* one line for `spt --help` */
    const char *usage;   /* "spt info [options] FILE" */
    const char *help;    /* the options and what the command does */
    const char *valued;  /* long options that take a value, space-separated: "output to format" */
    const char *flags;   /* long options without a value */
    int min_pos, max_pos;
    int (*run)(cli_args *a);
} cli_cmd;

/* Parse argv (argv[0] is the command name). Returns -1 to go on, or an exit code (help printed: 0;
 * usage error printed: 2). Every command accepts --help/-h and --threads N; -o is --output. */
int cli_parse(const cli_cmd *c, int argc, char **argv, cli_args *a);
/* The value of a long option, or NULL. A flag's value is "". */
const char *cli_opt(const cli_args *a, const char *name);

/* Print "spt CMD: message" to stderr and return CLI_USAGE. */
int cli_usage_error(const cli_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report a failed library call (parse errors verbatim "FILE:LINE: ...", others "spt CMD: ...") and
 * return CLI_BAD_INPUT. */
int cli_fail(const cli_args *a, spt_status st);

/* Parse "1,2,3" into up to cap int64 values; false on a malformed list. */
bool cli_parse_list(const char *s, int64_t *v, int64_t cap, int64_t *n);
bool cli_parse_int(const char *s, int64_t *v);

/* Read a sparse tensor from `path` honouring --format and --dtype ("-" is stdin, .tns by default).
 * Returns 0 or an exit code (message printed). */
int cli_read(const cli_args *a, const char *path, spt_tensor **out);
/* Read a dense array (.npy, or any sparse format densified). */
int cli_read_dense(const cli_args *a, const char *path, spt_dense **out);
/* Write to --output (default "-", stdout) in --to's format or the output's extension (.tns for
 * stdout). Returns 0 or an exit code. */
int cli_write(const cli_args *a, const spt_tensor *t);
int cli_write_dense(const cli_args *a, const spt_dense *d);
/* The read options (--shape, --dtype) and format (--format, else the extension; "-" is .tns) of input
 * `path`, as cli_read uses them. Returns -1 to go on, or an exit code (usage error printed). */
int cli_read_opts(const cli_args *a, spt_read_opts *o, spt_format *fmt, const char *path);
/* The output format of `path` as cli_write tells it (--to, else the extension; "-" is .tns). Returns -1
 * to go on, or an exit code (usage error printed). */
int cli_out_format(const cli_args *a, const char *path, spt_format *fmt);
/* The output path (--output or "-"). */
const char *cli_output(const cli_args *a);

/* spt matmul's read options, shared with spt-mpi: B's (without A's --format and --dtype), and A's (a
 * text A is read in B's dtype unless --dtype is given). */
void cli_matmul_b_args(const cli_args *a, cli_args *b_args);
void cli_matmul_a_args(const cli_args *a, const spt_dense *b, cli_args *a_args);

/* TFRecord files of tf.train.Example (tfrecord.c): whether `path` is one (--format tfrecord, or a
 * .tfrecord / .tfrecords extension); spt info's feature table; one feature (--feature NAME) as a
 * VarLenFeature's sparse tensor [records, longest list]. Compression: --compression, else detected. */
bool cli_is_tfrecord(const cli_args *a, const char *path);
int cli_tfrecord_info(const cli_args *a, const char *path);
int cli_tfrecord_read_feature(const cli_args *a, const char *path, spt_tensor **out);

/* The subcommands: cli_cmd_<command> of every op of src/ops/ops.def that has one (cli_cmd_none, the
 * sentinel of the ops without a command, has no name). */
#define SPT_OP(family, fn, python, command, checks) extern const cli_cmd cli_cmd_##command;
#define SPT_API(family, fn)
#include "ops/ops.def"
#undef SPT_OP
#undef SPT_API

#endif
