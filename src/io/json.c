/* SPDX-License-Identifier: Apache-2.0 */
/* json.c -- a small JSON reader (RFC 8259) for descriptors: the text is parsed into a tree of nodes that
 * point into it; strings keep their raw (escaped) span, which the callers compare with plain names. */
#include "io.h"

#include <math.h>

typedef struct jparse {
    const char *p, *end;
    spt__json *nodes;
    int64_t n, cap;
    const char *err; /* what was expected */
} jparse;

static void skip_ws(jparse *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int64_t new_node(jparse *j, int type) {
    if (j->n == j->cap) {
        int64_t cap = j->cap ? 2 * j->cap : 32;
        spt__json *nn = spt__realloc(j->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return -1;
        j->nodes = nn;
        j->cap = cap;
    }
    spt__json *x = &j->nodes[j->n];
    memset(x, 0, sizeof *x);
    x->type = type;
    x->child = x->next = -1;
    return j->n++;
}

/* A string's raw span after its opening quote; escapes are checked, not decoded. */
static bool scan_string(jparse *j, const char **s, size_t *len) {
    const char *b = ++j->p;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20) return (j->err = "a string without control characters", false);
        if (c == '\\') {
            if (++j->p >= j->end) break;
            if (*j->p == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (j->p + k >= j->end || !strchr("0123456789abcdefABCDEF", j->p[k]) || !j->p[k])
                        return (j->err = "four hex digits after \\u", false);
                j->p += 4;
            } else if (!strchr("\"\\/bfnrt", *j->p) || !*j->p) return (j->err = "a valid escape", false);
        }
        j->p++;
    }
    if (j->p >= j->end) return (j->err = "a closing '\"'", false);
    *s = b;
    *len = (size_t)(j->p - b);
    j->p++;
    return true;
}

static bool scan_number(jparse *j, spt__json *x) {
    const char *b = j->p;
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') return (j->err = "a value", false);
    bool integral = true;
    while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || strchr(".eE+-", *j->p))) {
        if (strchr(".eE", *j->p)) integral = false;
        j->p++;
    }
    x->s = b;
    x->len = (size_t)(j->p - b);
    if (integral) {
        int r = spt__parse_i64(b, j->p, &x->i);
        if (r == 1) return (j->err = "a number", false);
        x->is_int = r == 0;
    }
    if (spt__parse_f64(b, j->p, &x->d) == 1) return (j->err = "a number", false);
    return true;
}

static bool parse_value(jparse *j, int depth);

/* The members of an object or the elements of an array, after the opening bracket. */
static bool parse_items(jparse *j, int64_t at, bool object, int depth) {
    int64_t last = -1;
    const char close = object ? '}' : ']';
    skip_ws(j);
    if (j->p < j->end && *j->p == close) return j->p++, true;
    for (;;) {
        const char *key = NULL;
        size_t klen = 0;
        skip_ws(j);
        if (object) {
            if (j->p >= j->end || *j->p != '"') return (j->err = "a member name", false);
            if (!scan_string(j, &key, &klen)) return false;
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':') return (j->err = "':'", false);
            j->p++;
        }
        int64_t me = j->n;
        if (!parse_value(j, depth + 1)) return false;
        j->nodes[me].key = key;
        j->nodes[me].klen = klen;
        if (last < 0) j->nodes[at].child = me;
        else j->nodes[last].next = me;
        last = me;
        j->nodes[at].count++;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) return j->p++, true;
        return (j->err = object ? "',' or '}'" : "',' or ']'", false);
    }
}

static bool parse_value(jparse *j, int depth) {
    skip_ws(j);
    if (depth > 64) return (j->err = "nesting at most 64 deep", false);
    if (j->p >= j->end) return (j->err = "a value", false);
    char c = *j->p;
    int type = c == '{'               ? SPT__JSON_OBJECT
               : c == '['             ? SPT__JSON_ARRAY
               : c == '"'             ? SPT__JSON_STRING
               : c == 't' || c == 'f' ? SPT__JSON_BOOL
               : c == 'n'             ? SPT__JSON_NULL
                                      : SPT__JSON_NUMBER;
    int64_t at = new_node(j, type);
    if (at < 0) return (j->err = NULL, false);
    if (type == SPT__JSON_OBJECT || type == SPT__JSON_ARRAY) {
        j->p++;
        return parse_items(j, at, type == SPT__JSON_OBJECT, depth);
    }
    if (type == SPT__JSON_STRING) return scan_string(j, &j->nodes[at].s, &j->nodes[at].len);
    if (type == SPT__JSON_NUMBER) return scan_number(j, &j->nodes[at]);
    static const char *const words[3] = {"true", "false", "null"};
    for (int w = 0; w < 3; w++) {
        size_t l = strlen(words[w]);
        if ((size_t)(j->end - j->p) >= l && !memcmp(j->p, words[w], l)) {
            j->nodes[at].i = w == 0;
            j->p += l;
            return true;
        }
    }
    return (j->err = "a value", false);
}

spt_status spt__json_parse(const char *fn, const char *name, const char *text, size_t len, spt__json **nodes) {
    jparse j = {text, text + len, NULL, 0, 0, NULL};
    *nodes = NULL;
    bool ok = parse_value(&j, 0);
    if (ok) {
        skip_ws(&j);
        if (j.p != j.end) ok = false, j.err = "the end of the text";
    }
    if (!ok) {
        spt__free(j.nodes);
        if (!j.err) return spt__err(SPT_ENOMEM, "%s: out of memory parsing %s", fn, name);
        char tok[64];
        spt__describe_token(tok, sizeof tok, j.p, j.end);
        return spt__err(SPT_EPARSE, "%s: byte %lld of the JSON text: expected %s, found %s", name,
                        (long long)(j.p - text), j.err, tok);
    }
    *nodes = j.nodes;
    return SPT_OK;
}

const spt__json *spt__json_get(const spt__json *nodes, const spt__json *obj, const char *key) {
    if (!obj || obj->type != SPT__JSON_OBJECT) return NULL;
    size_t kl = strlen(key);
    const spt__json *found = NULL;
    for (int64_t c = obj->child; c >= 0; c = nodes[c].next)
        if (nodes[c].klen == kl && !memcmp(nodes[c].key, key, kl)) found = &nodes[c]; /* the last one wins */
    return found;
}

bool spt__json_is(const spt__json *x, const char *s) {
    return x && x->type == SPT__JSON_STRING && x->len == strlen(s) && !memcmp(x->s, s, x->len);
}
