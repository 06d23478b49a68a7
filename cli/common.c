/* SPDX-License-Identifier: Apache-2.0 */
/* common.c -- option parsing, file reading and writing, and messages for the spt subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool in_list(const char *list, const char *name, size_t n) {
    if (!list) return false;
    const char *p = list;
    while (*p) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ') e++;
        if ((size_t)(e - p) == n && !strncmp(p, name, n)) return true;
        p = e;
    }
    return false;
}

int cli_usage_error(const cli_args *a, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "spt %s: ", a->cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'spt %s --help')\n", a->cmd);
    return CLI_USAGE;
}

int cli_fail(const cli_args *a, spt_status st) {
    if (st == SPT_EPARSE) fprintf(stderr, "%s\n", spt_last_error());
    else fprintf(stderr, "spt %s: %s\n", a->cmd, *spt_last_error() ? spt_last_error() : spt_strerror(st));
    return CLI_BAD_INPUT;
}

bool cli_parse_int(const char *s, int64_t *v) {
    if (!s || !*s) return false;
    errno = 0;
    char *e;
    long long x = strtoll(s, &e, 10);
    if (*e || errno) return false;
    *v = x;
    return true;
}

bool cli_parse_list(const char *s, int64_t *v, int64_t cap, int64_t *n) {
    *n = 0;
    if (!s) return false;
    if (!*s) return true;
    const char *p = s;
    for (;;) {
        if (*n >= cap) return false;
        errno = 0;
        char *e;
        long long x = strtoll(p, &e, 10);
        if (e == p || errno) return false;
        v[(*n)++] = x;
        if (!*e) return true;
        if (*e != ',') return false;
        p = e + 1;
    }
}

static void print_help(const cli_cmd *c) {
    printf("usage: %s\n\n%s\n", c->usage, c->help);
    if (in_list(c->valued, "format", 6))
        printf("  --shape LIST     the shape of .tns inputs (default: the '# shape:' header, else the largest\n"
               "                   index per mode); an index beyond it is an error\n"
               "  --index-base B   .tns inputs count indices from B, 0 or 1 (default 1, as FROSTT)\n"
               "  --out-index-base B  .tns outputs count indices from B, 0 or 1 (default 1)\n"
               "  --member M       the member of a tar input to read (default: its one data file)\n"
               "  --progress       show progress on stderr: done, rate, time left (default: when stderr is\n"
               "                   a terminal and the read or write takes over a second); --quiet never\n");
    printf("  --threads N      use N threads (default: all cores)\n  -h, --help       this help\n");
}

int cli_parse(const cli_cmd *c, int argc, char **argv, cli_args *a) {
    memset(a, 0, sizeof *a);
    a->cmd = c->name;
    bool only_pos = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (only_pos || s[0] != '-' || !strcmp(s, "-")) {
            if (a->npos >= CLI_MAX_POS) return cli_usage_error(a, "too many arguments");
            a->pos[a->npos++] = s;
            continue;
        }
        if (!strcmp(s, "--")) {
            only_pos = true;
            continue;
        }
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            print_help(c);
            return CLI_OK;
        }
        const char *name, *val = NULL;
        size_t n;
        if (!strcmp(s, "-o")) {
            name = "output";
            n = 6;
        } else if (s[1] == '-') {
            name = s + 2;
            const char *eq = strchr(name, '=');
            n = eq ? (size_t)(eq - name) : strlen(name);
            if (eq) val = eq + 1;
        } else if (s[1] >= '0' && s[1] <= '9') { /* a negative number */
            if (a->npos >= CLI_MAX_POS) return cli_usage_error(a, "too many arguments");
            a->pos[a->npos++] = s;
            continue;
        } else return cli_usage_error(a, "unknown option '%s'", s);
        bool valued = in_list(c->valued, name, n) || (n == 7 && !strncmp(name, "threads", 7)) ||
                      (n == 5 && !strncmp(name, "shape", 5) && in_list(c->valued, "format", 6)) ||
                      (n == 10 && !strncmp(name, "index-base", 10) && in_list(c->valued, "format", 6)) ||
                      (n == 14 && !strncmp(name, "out-index-base", 14) && in_list(c->valued, "format", 6)) ||
                      (n == 6 && !strncmp(name, "member", 6) && in_list(c->valued, "format", 6));
        bool flag = in_list(c->flags, name, n) ||
                    (((n == 8 && !strncmp(name, "progress", 8)) || (n == 5 && !strncmp(name, "quiet", 5))) &&
                     in_list(c->valued, "format", 6));
        if (!valued && !flag) return cli_usage_error(a, "unknown option '--%.*s'", (int)n, name);
        if (flag && val) return cli_usage_error(a, "option '--%.*s' takes no value", (int)n, name);
        if (valued && !val) {
            if (i + 1 >= argc) return cli_usage_error(a, "option '--%.*s' needs a value", (int)n, name);
            val = argv[++i];
        }
        if (a->nopt >= CLI_MAX_OPTS) return cli_usage_error(a, "too many options");
        /* store a NUL-terminated copy of the name: names come from argv; reuse the command's list */
        static char names[CLI_MAX_OPTS][32];
        if (n >= sizeof names[0]) return cli_usage_error(a, "unknown option '%s'", s);
        memcpy(names[a->nopt], name, n);
        names[a->nopt][n] = 0;
        a->opt_name[a->nopt] = names[a->nopt];
        a->opt_val[a->nopt] = flag ? "" : val;
        a->nopt++;
    }
    const char *th = cli_opt(a, "threads");
    if (th) {
        int64_t t;
        if (!cli_parse_int(th, &t) || t < 1 || t > 1024)
            return cli_usage_error(a, "--threads needs a number from 1 to 1024, found '%s'", th);
        spt_set_num_threads((int)t);
    }
    if (a->npos < c->min_pos || (c->max_pos >= 0 && a->npos > c->max_pos)) {
        if (a->npos < c->min_pos) return cli_usage_error(a, "missing arguments; usage: %s", c->usage);
        return cli_usage_error(a, "too many arguments; usage: %s", c->usage);
    }
    /* every positional argument is an input, and so is --weights: stdin can be read once */
    int dash = 0;
    for (int i = 0; i < a->npos; i++) dash += !strcmp(a->pos[i], "-");
    const char *w = cli_opt(a, "weights");
    dash += w && !strcmp(w, "-");
    if (dash > 1) return cli_usage_error(a, "stdin ('-') can be read only once: give '-' for at most one input");
    return -1;
}

const char *cli_opt(const cli_args *a, const char *name) {
    const char *v = NULL;
    for (int i = 0; i < a->nopt; i++)
        if (!strcmp(a->opt_name[i], name)) v = a->opt_val[i]; /* the last one wins */
    return v;
}

const char *cli_output(const cli_args *a) {
    const char *o = cli_opt(a, "output");
    return o ? o : "-";
}

int cli_read_opts(const cli_args *a, spt_read_opts *o, spt_format *fmt, const char *path) {
    memset(o, 0, sizeof *o);
    *fmt = SPT_FORMAT_AUTO;
    const char *f = cli_opt(a, "format");
    if (f && spt_format_from_name(f, fmt) != SPT_OK)
        return cli_usage_error(a, "unknown format '%s' (tns, mtx, npy, npz)", f);
    /* a name that does not tell (also stdin): spt_read looks at the content (an archive's member, a magic;
     * stdin's text without a Matrix Market banner is .tns) */
    if (*fmt == SPT_FORMAT_AUTO) *fmt = spt_format_from_path(path);
    static int64_t shape[SPT_MAX_RANK];
    const char *sh = cli_opt(a, "shape");
    if (sh) {
        if (!cli_parse_list(sh, shape, SPT_MAX_RANK, &o->rank))
            return cli_usage_error(a, "--shape needs a comma-separated list of dims, found '%s'", sh);
        o->shape = shape;
    }
    const char *d = cli_opt(a, "dtype");
    if (d) {
        if (spt_dtype_from_name(d, &o->dtype) != SPT_OK) return cli_usage_error(a, "unknown dtype '%s'", d);
        o->has_dtype = true;
    }
    return -1;
}

/* A progress line on stderr for reads and writes that take over a second (SPT_PROGRESS_DELAY seconds
 * from the environment, for tests), when stderr is a terminal: the fraction done, the rate (bytes of
 * the input file read, or entries written) and the time left; --progress shows it from the start and
 * also into files and pipes (one line per half second there), --quiet never. */
typedef struct bar {
    const char *name, *verb, *unit; /* "reading" / "writing"; "B" or "entries" */
    struct timespec t0;
    double delay, last, total; /* total: bytes or entries (0: unknown) */
    bool drawn, tty;
} bar;

static double elapsed(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* "12.3 MB/s", "1.20 M entries/s". */
static void fmt_rate(char *buf, size_t cap, double per_s, const char *unit) {
    static const char *const pre[] = {"", "k", "M", "G", "T"};
    int p = 0;
    while (per_s >= 1000 && p < 4) per_s /= 1000, p++;
    if (!strcmp(unit, "B")) snprintf(buf, cap, "%.1f %sB/s", per_s, pre[p]);
    else snprintf(buf, cap, "%.2f %s%s%s/s", per_s, pre[p], *pre[p] ? " " : "", unit);
}

static void bar_update(double done, void *ctx) {
    bar *b = ctx;
    double t = elapsed(&b->t0);
    if (!b->drawn && t < b->delay) return;
    if (b->drawn && done < 1 && t - b->last < (b->tty ? 0.1 : 0.5)) return;
    b->drawn = true;
    b->last = t;
    if (done < 0) done = 0;
    if (done > 1) done = 1;
    char rate[48] = "", left[32] = "";
    if (b->total > 0 && t > 0) fmt_rate(rate, sizeof rate, done * b->total / t, b->unit);
    if (done > 0 && done < 1) {
        long s = (long)(t * (1 - done) / done + 0.5);
        snprintf(left, sizeof left, "%ld:%02ld left", s / 60, s % 60);
    } else if (done >= 1) snprintf(left, sizeof left, "done in %.1f s", t);
    int w = 30, k = (int)(done * w + 0.5);
    fprintf(stderr, "%sspt: %s %.40s [%.*s%*s] %3d%%  %s  %s%s", b->tty ? "\r" : "", b->verb, b->name, k,
            "##############################", w - k, "", (int)(done * 100 + 0.5), rate, left, b->tty ? "\033[K" : "\n");
    fflush(stderr);
}

/* Start a bar for `verb` of `name` when asked or when stderr is a terminal; false when none is shown. */
static bool bar_start(const cli_args *a, bar *b, const char *verb, const char *name, double total, const char *unit) {
    memset(b, 0, sizeof *b);
    bool forced = cli_opt(a, "progress") != NULL;
    b->tty = isatty(2);
    if (cli_opt(a, "quiet") || !(forced || b->tty)) return false;
    b->name = name, b->verb = verb, b->unit = unit, b->total = total;
    const char *d = getenv("SPT_PROGRESS_DELAY");
    b->delay = forced ? 0 : d && *d ? atof(d) : 1.0;
    clock_gettime(CLOCK_MONOTONIC, &b->t0);
    return true;
}

static void bar_end(bar *b) {
    if (b->drawn && b->tty) fprintf(stderr, "\r\033[K");
}

/* The base of .tns indices from option `name` ("index-base" or "out-index-base"): 0 or 1, default 1.
 * Returns -1 to go on, or an exit code. */
static int index_base(const cli_args *a, const char *name, int *base) {
    *base = 1;
    const char *v = cli_opt(a, name);
    if (!v) return -1;
    if (strcmp(v, "0") && strcmp(v, "1")) return cli_usage_error(a, "--%s needs 0 or 1, found '%s'", name, v);
    *base = v[0] - '0';
    return -1;
}

int cli_read(const cli_args *a, const char *path, spt_tensor **out) {
    spt_read_opts o;
    spt_format fmt;
    int base;
    int rc = cli_read_opts(a, &o, &fmt, path);
    if (rc >= 0) return rc;
    if ((rc = index_base(a, "index-base", &base)) >= 0) return rc;
    bar b;
    struct stat sb;
    double size = strcmp(path, "-") && !stat(path, &sb) && S_ISREG(sb.st_mode) ? (double)sb.st_size : 0;
    if (bar_start(a, &b, "reading", path, size, "B")) spt_set_read_progress(bar_update, &b);
    spt_set_read_member(cli_opt(a, "member"));
    spt_status st = spt_read_base(path, fmt, &o, base, out);
    spt_set_read_member(NULL);
    spt_set_read_progress(NULL, NULL);
    bar_end(&b);
    return st == SPT_OK ? 0 : cli_fail(a, st);
}

int cli_read_dense(const cli_args *a, const char *path, spt_dense **out) {
    spt_read_opts o;
    spt_format fmt;
    int rc = cli_read_opts(a, &o, &fmt, path);
    if (rc >= 0) return rc;
    spt_status st;
    spt_set_read_member(cli_opt(a, "member"));
    if (fmt == SPT_FORMAT_NPY) st = spt_read_npy(path, out);
    else {
        spt_tensor *t = NULL;
        st = spt_read(path, fmt, &o, &t);
        if (st == SPT_OK) st = spt_to_dense(t, NULL, false, out);
        spt_tensor_free(t);
    }
    spt_set_read_member(NULL);
    return st == SPT_OK ? 0 : cli_fail(a, st);
}

int cli_out_format(const cli_args *a, const char *path, spt_format *fmt) {
    *fmt = SPT_FORMAT_AUTO;
    const char *f = cli_opt(a, "to");
    if (f && spt_format_from_name(f, fmt) != SPT_OK)
        return cli_usage_error(
            a,
            "unknown output format '%s' (tns, mtx, npy, npz, npz-scipy-coo, npz-scipy-csr, binsparse, "
            "binsparse-csr, binsparse-csc)",
            f);
    if (*fmt == SPT_FORMAT_AUTO) *fmt = spt_format_from_path(path);
    if (*fmt == SPT_FORMAT_AUTO) {
        if (!strcmp(path, "-")) *fmt = SPT_FORMAT_TNS;
        else return cli_usage_error(a, "cannot tell the output format of '%s'; use --to", path);
    }
    return -1;
}

int cli_write(const cli_args *a, const spt_tensor *t) {
    const char *path = cli_output(a);
    spt_format fmt;
    int rc = cli_out_format(a, path, &fmt);
    if (rc >= 0) return rc;
    int base;
    if ((rc = index_base(a, "out-index-base", &base)) >= 0) return rc;
    bar b;
    if (bar_start(a, &b, "writing", strcmp(path, "-") ? path : "<stdout>", (double)spt_tensor_nnz(t), "entries"))
        spt_set_write_progress(bar_update, &b);
    spt_status st = fmt == SPT_FORMAT_TNS ? spt_write_tns_base(t, path, base) : spt_write(t, path, fmt);
    spt_set_write_progress(NULL, NULL);
    bar_end(&b);
    return st == SPT_OK ? 0 : cli_fail(a, st);
}

int cli_write_dense(const cli_args *a, const spt_dense *d) {
    const char *path = cli_output(a);
    spt_format fmt;
    int rc = cli_out_format(a, path, &fmt);
    if (rc >= 0) return rc;
    spt_status st;
    if (fmt == SPT_FORMAT_NPY) st = spt_write_npy(d, path);
    else {
        spt_tensor *t = NULL;
        st = spt_from_dense(d, NULL, &t);
        if (st == SPT_OK) st = spt_write(t, path, fmt);
        spt_tensor_free(t);
    }
    return st == SPT_OK ? 0 : cli_fail(a, st);
}
