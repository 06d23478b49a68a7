/* SPDX-License-Identifier: Apache-2.0 */
/* tfrecord.c -- TFRecord files of tf.train.Example for spt info and spt convert: the features found
 * (name, type, how many Examples hold them, values, the longest list) and one feature as a sparse tensor. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_is_tfrecord(const cli_args *a, const char *path) {
    const char *f = cli_opt(a, "format");
    if (f) return !strcmp(f, "tfrecord");
    size_t n = strlen(path);
    static const char *ext[] = {".tfrecord", ".tfrecords", ".tfrecord.gz", ".tfrecord.zz"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (n >= e && !strcmp(path + n - e, ext[i])) return true;
    }
    return false;
}

/* --compression, else the first of NONE, GZIP, ZLIB that reads the first record. */
static int compression_of(const cli_args *a, const char *path, spt_tfrecord_compression *c) {
    const char *o = cli_opt(a, "compression");
    if (o) {
        if (!strcmp(o, "none") || !strcmp(o, "NONE") || !*o) *c = SPT_TFRECORD_NONE;
        else if (!strcmp(o, "zlib") || !strcmp(o, "ZLIB")) *c = SPT_TFRECORD_ZLIB;
        else if (!strcmp(o, "gzip") || !strcmp(o, "GZIP")) *c = SPT_TFRECORD_GZIP;
        else return cli_usage_error(a, "--compression must be NONE, ZLIB or GZIP, got '%s'", o);
        return -1;
    }
    static const spt_tfrecord_compression order[3] = {SPT_TFRECORD_NONE, SPT_TFRECORD_GZIP, SPT_TFRECORD_ZLIB};
    for (int i = 0; i < 3; i++) {
        spt_tfrecord_reader *r;
        if (spt_tfrecord_reader_open(path, order[i], &r) != SPT_OK) return cli_fail(a, SPT_EIO);
        const void *p;
        size_t len;
        bool eof;
        spt_status st = spt_tfrecord_read(r, &p, &len, &eof);
        spt_tfrecord_reader_close(r);
        if (st == SPT_OK) {
            *c = order[i];
            return -1;
        }
    }
    *c = SPT_TFRECORD_NONE; /* none reads: report the plain reader's error */
    return -1;
}

typedef struct feat_stat {
    char *name;
    int64_t len;
    spt_dtype dtype;
    bool typed, mixed;
    int64_t examples, values, longest;
} feat_stat;

static const char *type_name(const feat_stat *f) {
    if (f->mixed) return "mixed";
    if (!f->typed) return "empty";
    return f->dtype == SPT_STRING ? "bytes" : f->dtype == SPT_FLOAT32 ? "float" : "int64";
}

int cli_tfrecord_info(const cli_args *a, const char *path) {
    spt_tfrecord_compression c;
    int rc = compression_of(a, path, &c);
    if (rc >= 0) return rc;
    spt_tfrecord_reader *r;
    spt_status st = spt_tfrecord_reader_open(path, c, &r);
    if (st) return cli_fail(a, st);
    feat_stat *fs = NULL;
    int64_t nf = 0, cap = 0, records = 0, bytes = 0;
    for (;;) {
        const void *p;
        size_t len;
        bool eof;
        st = spt_tfrecord_read(r, &p, &len, &eof);
        if (st || eof) break;
        records++;
        bytes += (int64_t)len;
        spt_example_key *keys;
        int64_t nk;
        st = spt_example_describe(p, len, &keys, &nk);
        if (st) break;
        for (int64_t k = 0; k < nk; k++) {
            int64_t j = 0;
            while (j < nf && !(fs[j].len == keys[k].key_len && !memcmp(fs[j].name, keys[k].key, (size_t)fs[j].len)))
                j++;
            if (j == nf) {
                if (nf == cap) {
                    cap = cap ? 2 * cap : 16;
                    feat_stat *n2 = realloc(fs, (size_t)cap * sizeof *fs);
                    if (!n2) {
                        st = SPT_ENOMEM;
                        break;
                    }
                    fs = n2;
                }
                fs[nf] =
                    (feat_stat){malloc((size_t)keys[k].key_len + 1), keys[k].key_len, SPT_INT64, false, false, 0, 0, 0};
                if (!fs[nf].name) {
                    st = SPT_ENOMEM;
                    break;
                }
                memcpy(fs[nf].name, keys[k].key, (size_t)keys[k].key_len);
                fs[nf].name[keys[k].key_len] = 0;
                nf++;
            }
            feat_stat *f = &fs[j];
            f->examples++;
            if (keys[k].has_list) {
                if (f->typed && f->dtype != keys[k].dtype) f->mixed = true;
                f->typed = true;
                f->dtype = keys[k].dtype;
                f->values += keys[k].count;
                if (keys[k].count > f->longest) f->longest = keys[k].count;
            }
        }
        spt_bytes_free(keys);
        if (st) break;
    }
    const int64_t at = spt_tfrecord_reader_offset(r);
    spt_tfrecord_reader_close(r);
    if (st == SPT_OK) {
        static const char *cn[3] = {"none", "ZLIB", "GZIP"};
        printf("file:        %s\n", path);
        printf("format:      tfrecord of tf.train.Example (compression %s)\n", cn[c]);
        printf("records:     %lld (%lld bytes of records, %lld bytes uncompressed)\n", (long long)records,
               (long long)bytes, (long long)at);
        printf("features:    %lld\n", (long long)nf);
        if (nf) printf("%-24s %-6s %10s %12s %8s\n", "name", "type", "examples", "values", "longest");
        for (int64_t j = 0; j < nf; j++)
            printf("%-24s %-6s %10lld %12lld %8lld\n", fs[j].name, type_name(&fs[j]), (long long)fs[j].examples,
                   (long long)fs[j].values, (long long)fs[j].longest);
    }
    for (int64_t j = 0; j < nf; j++) free(fs[j].name);
    free(fs);
    return st ? cli_fail(a, st) : CLI_OK;
}

int cli_tfrecord_read_feature(const cli_args *a, const char *path, spt_tensor **out) {
    *out = NULL;
    const char *name = cli_opt(a, "feature");
    if (!name || !*name) return cli_usage_error(a, "a .tfrecord input needs --feature NAME (see spt info FILE)");
    spt_tfrecord_compression c;
    int rc = compression_of(a, path, &c);
    if (rc >= 0) return rc;
    spt_tfrecord_reader *r;
    spt_status st = spt_tfrecord_reader_open(path, c, &r);
    if (st) return cli_fail(a, st);
    spt_dense *all = NULL;
    st = spt_tfrecord_read_batch(r, INT64_MAX, &all);
    spt_tfrecord_reader_close(r);
    if (st) return cli_fail(a, st);
    /* the feature's type: from the first Example that holds a list under it (else int64) */
    spt_dtype dt = SPT_INT64;
    const spt_str *recs = spt_dense_data(all);
    bool found = false;
    for (int64_t i = 0; i < spt_dense_size(all) && !found && st == SPT_OK; i++) {
        spt_example_key *keys;
        int64_t nk;
        st = spt_example_describe(recs[i].data, (size_t)recs[i].len, &keys, &nk);
        for (int64_t k = 0; st == SPT_OK && k < nk && !found; k++)
            if (keys[k].has_list && (size_t)keys[k].key_len == strlen(name) &&
                !memcmp(keys[k].key, name, strlen(name))) {
                dt = keys[k].dtype;
                found = true;
            }
        if (st == SPT_OK) spt_bytes_free(keys);
    }
    if (st == SPT_OK) {
        spt_feature f = {.kind = SPT_FEATURE_VARLEN, .key = name, .dtype = dt};
        spt_dense *unused = NULL;
        st = spt_parse_example(all, &f, 1, out, &unused);
    }
    spt_dense_free(all);
    return st ? cli_fail(a, st) : CLI_OK;
}
