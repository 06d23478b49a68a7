/* SPDX-License-Identifier: Apache-2.0 */
/* ops_io.c -- conformance handlers of files: .tns text and .mtx, .npy and .npz images written to a temporary file.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

/* ---- files ---- */

static int hexval(int ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* The bytes of a {"text": "..."} or {"hex": "..."} value (malloc'd, *len). */
static char *bytes_of(const json_t *j, size_t *len) {
    const char *txt = json_string_value(json_object_get(j, "text"));
    const char *hex = json_string_value(json_object_get(j, "hex"));
    char *b;
    if (txt) {
        *len = json_string_length(json_object_get(j, "text"));
        b = malloc(*len + 1);
        if (b) memcpy(b, txt, *len);
        return b;
    }
    size_t n = hex ? strlen(hex) / 2 : 0;
    b = malloc(n + 1);
    if (!b) return NULL;
    for (size_t i = 0; i < n; i++) b[i] = (char)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
    *len = n;
    return b;
}

static spt_read_opts read_opts(const conf_case *c, int64_t *shape) {
    spt_read_opts o = {0};
    const char *dt = json_string_value(conf_arg(c, "dtype"));
    if (dt && spt_dtype_from_name(dt, &o.dtype) == SPT_OK) o.has_dtype = true;
    long n = conf_ints(conf_arg(c, "shape"), shape, SPT_MAX_RANK);
    if (n >= 0) {
        o.rank = n;
        o.shape = shape;
    }
    return o;
}

static conf_result h_parse_tns(const conf_case *c) {
    size_t len;
    char *buf = bytes_of(c->args, &len);
    int64_t shape[SPT_MAX_RANK];
    spt_read_opts o = read_opts(c, shape);
    spt_tensor *t = (spt_tensor *)&t;
    spt_status st = buf ? spt_parse_tns(buf, len, "case.tns", &o, &t) : SPT_ENOMEM;
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && t != NULL) r = conf_fail(c, "out-parameter not NULL after an error");
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        r = res ? conf_expect_sparse(c, res, t, NULL) : CONF_PASS;
    }
    if (st == SPT_OK) spt_tensor_free(t);
    free(buf);
    return r;
}

/* {"format": "mtx"|"mtx_dense"|"npy"|"npz"|"tns", "text"|"hex": file bytes, or "members": {name: {"hex"|"text"}}} */
static conf_result h_read_file(const conf_case *c) {
    const char *fmt = json_string_value(conf_arg(c, "format"));
    char path[64];
    snprintf(path, sizeof path, "/tmp/spt-conf-%ld.%s", (long)getpid(), fmt && !strcmp(fmt, "mtx_dense") ? "mtx" : fmt ? fmt : "bin");
    json_t *members = conf_arg(c, "members");
    spt_status st = SPT_OK;
    if (members) {
        int err = 0;
        zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
        const char *name;
        json_t *v;
        if (!z) return conf_fail(c, "cannot create %s", path);
        json_object_foreach(members, name, v) {
            size_t len;
            char *b = bytes_of(v, &len);
            zip_source_t *src = b ? zip_source_buffer(z, len ? b : NULL, len, len ? 1 : 0) : NULL;
            if (!len) free(b);
            if (!src || zip_file_add(z, name, src, ZIP_FL_OVERWRITE) < 0) {
                if (src) zip_source_free(src);
                zip_discard(z);
                return conf_fail(c, "cannot add member %s", name);
            }
        }
        if (zip_close(z) != 0) return conf_fail(c, "cannot write %s", path);
    } else {
        size_t len;
        char *b = bytes_of(c->args, &len);
        FILE *f = b ? fopen(path, "wb") : NULL;
        if (!f || (len && fwrite(b, 1, len, f) != len)) st = SPT_EIO;
        if (f) fclose(f);
        free(b);
        if (st != SPT_OK) return conf_fail(c, "cannot write %s", path);
    }
    int64_t shape[SPT_MAX_RANK];
    spt_read_opts o = read_opts(c, shape);
    spt_tensor *t = (spt_tensor *)&t;
    spt_dense *d = (spt_dense *)&d;
    bool dense = !strcmp(fmt, "npy") || !strcmp(fmt, "mtx_dense");
    if (!strcmp(fmt, "npy")) st = spt_read_npy(path, &d);
    else if (!strcmp(fmt, "mtx_dense")) st = spt_read_mtx_dense(path, &o, &d);
    else if (!strcmp(fmt, "mtx")) st = spt_read_mtx(path, &o, &t);
    else if (!strcmp(fmt, "npz")) st = spt_read_npz(path, &o, &t);
    else st = spt_read_tns(path, &o, &t);
    remove(path);
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && (dense ? (void *)d : (void *)t) != NULL) r = conf_fail(c, "out-parameter not NULL after an error");
    if (r == CONF_CONTINUE) {
        json_t *res = json_object_get(c->root, "result");
        if (res && json_object_get(res, "nnz") && !dense)
            r = spt_tensor_nnz(t) == json_integer_value(json_object_get(res, "nnz")) ? CONF_PASS
                                                                                      : conf_fail(c, "nnz %lld", (long long)spt_tensor_nnz(t));
        else if (res && json_object_get(res, "indices") && !dense)
            r = conf_expect_sparse(c, res, t, NULL);
        else if (res && json_object_get(res, "dense") && dense)
            r = conf_expect_dense(c, json_object_get(res, "dense"), d, NULL);
        else
            r = CONF_PASS;
    }
    if (st == SPT_OK) {
        if (dense) spt_dense_free(d);
        else spt_tensor_free(t);
    }
    return r;
}

const conf_op conf_ops_io[] = {
    {"spt_parse_tns", h_parse_tns, CONF_OP(spt_parse_tns)},
    {"spt_read_file", h_read_file, CONF_OP(spt_read_tns)},
    {NULL, NULL, 0},
};
