/* SPDX-License-Identifier: Apache-2.0 */
/* runner.c -- run every case of DIR/NAME.jsonl whose op spt implements.
 * Usage: conformance DIR. Prints one line per failure and "conformance: N passed, M failed, K skipped". */
#include "conf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The handler lists the C tests registered (CONF_HANDLERS), most recent first. */
static conf_reg *registered;
void conf_register(conf_reg *r) {
    r->next = registered;
    registered = r;
}
const conf_reg *conf_registered(void) { return registered; }

/* Each public function of ops.def: its family, name and whether the list says it has a handler. */
enum { CONF = 1, FUZZ = 2, TF = 4 }; /* the CHECKS flags of ops.def */
static const struct {
    const char *family, *name;
    bool op, conf;
} list[CONF_NUM_OPS] = {
#define SPT_OP(family, fn, python, command, checks) {#family, #fn, true, ((checks)&CONF) != 0},
#define SPT_API(family, fn) {#family, #fn, false, false},
#include "ops/ops.def"
#undef SPT_OP
#undef SPT_API
};

/* The folder a test file of `family` lives in: tests/ops/<family>/ for the op families, tests/<family>/ for
 * the others (core's sorting functions: tests/sort/). */
static bool in_family_folder(const char *file, const char *family) {
    char want[64];
    snprintf(want, sizeof want, "/%s/", family);
    if (strstr(file, want)) return true;
    return !strcmp(family, "core") && strstr(file, "/sort/") != NULL;
}

/* The registered handlers against the list: every handler in a C test of its op's family, every op the
 * list marks CONF with a handler, no handler for an op the list does not mark. Prints each disagreement;
 * their count. */
static long check_tables(void) {
    long bad = 0;
    bool has[CONF_NUM_OPS] = {false};
    for (const conf_reg *t = registered; t; t = t->next)
        for (const conf_op *o = t->ops; o->name; o++) {
            has[o->op] = true;
            for (const conf_reg *u = registered; u; u = u->next)
                for (const conf_op *p = u->ops; p->name; p++)
                    if (p != o && !strcmp(p->name, o->name) && (u != t || p < o)) {
                        fprintf(stderr, "FAIL conformance: vectors of %s have handlers in %s and %s\n", o->name,
                                u->file, t->file);
                        bad++;
                    }
            if (!in_family_folder(t->file, list[o->op].family)) {
                fprintf(stderr, "FAIL ops.def: the handler of %s (%s) is in %s, not a test of %s\n", o->name,
                        list[o->op].name, t->file, list[o->op].family);
                bad++;
            }
        }
    for (int k = 0; k < CONF_NUM_OPS; k++)
        if (list[k].op && list[k].conf != has[k]) {
            fprintf(stderr, "FAIL ops.def: %s is %s CONF, but %s handler for it is registered\n", list[k].name,
                    list[k].conf ? "marked" : "not marked", has[k] ? "a" : "no");
            bad++;
        }
    return bad;
}

static conf_handler find(const char *op) {
    for (const conf_reg *t = registered; t; t = t->next)
        for (const conf_op *o = t->ops; o->name; o++)
            if (!strcmp(o->name, op)) return o->fn;
    return NULL;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "tests/conformance";
    bool verbose = getenv("CONF_VERBOSE") != NULL;
    long pass = 0, fail = check_tables(), skip = 0;
    char *files[64];
    int nf = 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        fprintf(stderr, "conformance: cannot open %s\n", dir);
        return 2;
    }
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l > 6 && !strcmp(e->d_name + l - 6, ".jsonl")) {
            if (nf == 64) { /* never drop a vector file silently */
                fprintf(stderr, "FAIL %s: more than 64 .jsonl files\n", e->d_name);
                fail++;
                continue;
            }
            files[nf++] = strdup(e->d_name);
        }
    }
    closedir(dp);
    qsort(files, (size_t)nf, sizeof files[0], cmp_str);
    for (int f = 0; f < nf; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        FILE *fp = fopen(path, "r");
        if (!fp) {
            fprintf(stderr, "FAIL %s: cannot open\n", path);
            fail++;
            free(files[f]);
            continue;
        }
        char *line = NULL;
        size_t cap = 0;
        long lineno = 0;
        long fpass = 0, ffail = 0, fskip = 0;
        while (getline(&line, &cap, fp) > 0) {
            lineno++;
            if (line[0] == '\n' || line[0] == '#') continue;
            json_error_t err;
            json_t *root = json_loads(line, 0, &err);
            if (!root) {
                fprintf(stderr, "FAIL %s:%ld: JSON error: %s\n", files[f], lineno, err.text);
                ffail++;
                continue;
            }
            char idbuf[64];
            snprintf(idbuf, sizeof idbuf, "line %ld", lineno);
            const char *op = json_string_value(json_object_get(root, "op"));
            if (!op) op = json_string_value(json_object_get(root, "kind"));
            conf_case c = {
                .file = files[f],
                .line = lineno,
                .id = json_string_value(json_object_get(root, "id")) ? json_string_value(json_object_get(root, "id"))
                                                                     : idbuf,
                .op = op ? op : "?",
                .root = root,
                .args = json_object_get(root, "args"),
                .expect = json_object_get(root, "expect"),
                .bad_input = json_is_string(json_object_get(root, "expect")),
            };
            conf_handler h = op ? find(op) : NULL;
            conf_result r = h ? h(&c) : CONF_SKIP;
            spt_clear_error();
            if (r == CONF_CONTINUE) r = CONF_PASS;
            if (r == CONF_PASS) fpass++;
            else if (r == CONF_FAIL) ffail++;
            else {
                fskip++;
                if (verbose) fprintf(stderr, "skip %s:%ld [%s] %s\n", files[f], lineno, c.id, c.op);
            }
            json_decref(root);
        }
        free(line);
        fclose(fp);
        printf("%s: %ld passed, %ld failed, %ld skipped\n", files[f], fpass, ffail, fskip);
        pass += fpass;
        fail += ffail;
        skip += fskip;
        free(files[f]);
    }
    printf("conformance: %ld passed, %ld failed, %ld skipped\n", pass, fail, skip);
    if (pass == 0) fprintf(stderr, "conformance: no vector passed in %s (no .jsonl files?)\n", dir);
    return fail || pass == 0 ? 1 : 0;
}
