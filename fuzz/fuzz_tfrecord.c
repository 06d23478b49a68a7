/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_tfrecord.c -- TensorFlow's bytes and files from hostile input: byte 1 picks the target:
 *   0  a TFRecord file (byte 2: compression NONE / ZLIB / GZIP; byte 3: record by record or in batches)
 *   1  one serialized tf.train.Example, parsed with VarLen, Sparse (one and two index keys) and FixedLen
 *      features, and described
 *   2  a serialized SparseTensor: three parts of lengths from bytes 2..7, deserialized as the dtype of
 *      byte 8, alone and stacked twice
 * Every result is checked (tensors valid, errors clean, outputs NULL on error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"
#include "fz_file.h"

static void run_file(fz_in *in) {
    const spt_tfrecord_compression c = (spt_tfrecord_compression)(fz_u8(in) % 3);
    const bool batches = fz_bool(in);
    char path[256];
    fz_scratch(path, sizeof path, "rec", ".tfrecord");
    FILE *f = fopen(path, "wb");
    if (!f) return;
    if (in->n) fwrite(in->p, 1, in->n, f);
    fclose(f);
    spt_tfrecord_reader *r = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_tfrecord_reader_open(path, c, &r);
    fz_op_end();
    fz_check_status("spt_tfrecord_reader_open", st, r);
    if (st == SPT_OK) {
        for (int k = 0; k < 10000; k++) {
            fz_op_begin();
            if (batches) {
                spt_dense *d = FZ_SENTINEL;
                st = spt_tfrecord_read_batch(r, 3, &d);
                fz_op_end();
                fz_check_status("spt_tfrecord_read_batch", st, d);
                if (st != SPT_OK) break;
                fz_check_dense("spt_tfrecord_read_batch", d);
                int64_t n = spt_dense_size(d);
                spt_dense_free(d);
                if (!n) break;
            } else {
                const void *p;
                size_t len;
                bool eof;
                st = spt_tfrecord_read(r, &p, &len, &eof);
                fz_op_end();
                if (st != SPT_OK) {
                    if (p || len) fz_die("spt_tfrecord_read", "an error left a record");
                    break;
                }
                if (eof) break;
                if (len) {
                    volatile unsigned char x = ((const unsigned char *)p)[len - 1];
                    (void)x;
                }
            }
        }
        spt_tfrecord_reader_close(r);
    }
    remove(path);
}

static void run_example(fz_in *in) {
    spt_str one = {(const char *)in->p, (int64_t)in->n};
    spt_dense *d = NULL;
    if (spt_dense_new_from(SPT_STRING, 1, (int64_t[]){1}, &one, &d) != SPT_OK) return;
    static const char *ik1[1] = {"ix"}, *ik2[2] = {"ix", "iy"};
    const float dv[2] = {1, 2};
    spt_dense *dflt = NULL;
    spt_dense_new_from(SPT_FLOAT32, 1, (int64_t[]){2}, dv, &dflt);
    const spt_feature f[6] = {
        {.kind = SPT_FEATURE_VARLEN, .key = "ids", .dtype = SPT_INT64},
        {.kind = SPT_FEATURE_VARLEN, .key = "s", .dtype = SPT_STRING},
        {.kind = SPT_FEATURE_SPARSE,
         .key = "w",
         .dtype = SPT_FLOAT32,
         .rank = 1,
         .shape = (int64_t[]){5},
         .index_keys = ik1},
        {.kind = SPT_FEATURE_SPARSE,
         .key = "w",
         .dtype = SPT_FLOAT32,
         .rank = 2,
         .shape = (int64_t[]){5, 3},
         .index_keys = ik2,
         .already_sorted = true},
        {.kind = SPT_FEATURE_FIXEDLEN, .key = "fx", .dtype = SPT_INT64, .rank = 1, .shape = (int64_t[]){2}},
        {.kind = SPT_FEATURE_FIXEDLEN,
         .key = "fd",
         .dtype = SPT_FLOAT32,
         .rank = 1,
         .shape = (int64_t[]){2},
         .default_value = dflt},
    };
    spt_tensor *sp[6];
    spt_dense *dn[6];
    for (int i = 0; i < 6; i++) sp[i] = FZ_SENTINEL, dn[i] = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_parse_example(d, f, 6, sp, dn);
    fz_op_end();
    fz_check_status("spt_parse_example", st, NULL);
    for (int i = 0; i < 6; i++) {
        if (st != SPT_OK && (sp[i] || dn[i])) fz_die("spt_parse_example", "an error left an output");
        if (sp[i]) fz_check_tensor("spt_parse_example", sp[i]);
        if (dn[i]) fz_check_dense("spt_parse_example", dn[i]);
        spt_tensor_free(sp[i]);
        spt_dense_free(dn[i]);
    }
    spt_example_key *keys = FZ_SENTINEL;
    int64_t nk = -1;
    st = spt_example_describe(in->p, in->n, &keys, &nk);
    fz_check_status("spt_example_describe", st, keys);
    if (st == SPT_OK)
        for (int64_t k = 0; k < nk; k++)
            if (keys[k].key_len < 0 || keys[k].count < 0 ||
                (keys[k].key_len &&
                 (keys[k].key < (const char *)in->p || keys[k].key + keys[k].key_len > (const char *)in->p + in->n)))
                fz_die("spt_example_describe", "a key outside the Example");
    spt_bytes_free(keys == FZ_SENTINEL ? NULL : keys);
    spt_dense_free(dflt);
    spt_dense_free(d);
}

static void run_serialized(fz_in *in) {
    size_t len[3];
    for (int i = 0; i < 3; i++) len[i] = fz_u16(in);
    const spt_dtype dt = (spt_dtype)(fz_u8(in) % SPT_NUM_DTYPES);
    spt_str parts[6];
    for (int i = 0; i < 3; i++) {
        size_t n = len[i] < in->n ? len[i] : in->n;
        parts[i] = (spt_str){(const char *)in->p, (int64_t)n};
        in->p += n, in->n -= n;
    }
    memcpy(parts + 3, parts, sizeof parts[0] * 3);
    for (int stacked = 0; stacked < 2; stacked++) {
        spt_dense *d = NULL;
        if (spt_dense_new_from(SPT_STRING, stacked ? 2 : 1, stacked ? (int64_t[]){2, 3} : (int64_t[]){3}, parts, &d) !=
            SPT_OK)
            return;
        spt_tensor *t = FZ_SENTINEL;
        fz_op_begin();
        spt_status st = spt_deserialize_sparse(d, dt, &t);
        fz_op_end();
        fz_check_status("spt_deserialize_sparse", st, t);
        if (st == SPT_OK) {
            fz_check_tensor("spt_deserialize_sparse", t);
            /* what was read serializes again, and reads back the same */
            spt_dense *again = NULL;
            if (!stacked && spt_serialize_sparse(t, &again) == SPT_OK) {
                spt_tensor *back = NULL;
                if (spt_deserialize_sparse(again, dt, &back) != SPT_OK || fz_hash_tensor(back) != fz_hash_tensor(t))
                    fz_die("serialize_sparse", "a deserialized tensor does not round-trip");
                spt_tensor_free(back);
                spt_dense_free(again);
            }
            spt_tensor_free(t);
        }
        spt_dense_free(d);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    switch (fz_u8(&in) % 3) {
    case 0: run_file(&in); break;
    case 1: run_example(&in); break;
    default: run_serialized(&in); break;
    }
    return 0;
}
