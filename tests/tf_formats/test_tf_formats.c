/* SPDX-License-Identifier: Apache-2.0 */
/* test_tf_formats.c -- TensorFlow's bytes and files against golden files TensorFlow wrote
 * (tests/tf_formats/data, made by make_golden.py): serialize_sparse byte for byte, deserialize_sparse of
 * TF's bytes, TFRecord files in the three compressions, tf.train.Example parsing with TF's results; and
 * the hostile cases: every truncation and every bit flip of records, TensorProtos and Examples, lying
 * lengths, the typed-field forms of TensorProto, the allocation-failure sweeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"
#include "tf/tf_internal.h"

#define DATA "tests/tf_formats/data/"
#ifdef __linux__
#define TMP "/dev/shm"
#else
#define TMP "/tmp"
#endif

/* Every record of a TFRecord file (at most cap), copied into recs[i] (malloc'd) / lens[i]. */
static int read_all(const char *path, spt_tfrecord_compression c, char **recs, size_t *lens, int cap) {
    spt_tfrecord_reader *r;
    ASSERT_OK(spt_tfrecord_reader_open(path, c, &r));
    int n = 0;
    for (;;) {
        const void *p;
        size_t len;
        bool eof;
        ASSERT_OK(spt_tfrecord_read(r, &p, &len, &eof));
        if (eof) break;
        assert_true(n < cap);
        recs[n] = malloc(len + 1);
        memcpy(recs[n], p, len);
        lens[n++] = len;
    }
    spt_tfrecord_reader_close(r);
    return n;
}
static void free_all(char **recs, int n) {
    for (int i = 0; i < n; i++) free(recs[i]);
}

static spt_tensor *make(spt_dtype dt, int64_t rank, const int64_t *shape, int64_t nnz, const int64_t *ix,
                        const void *v) {
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(dt, rank, shape, nnz, ix, v, NULL, &t));
    return t;
}

/* The tensors of make_golden.py, in its order. */
static spt_tensor *golden_tensor(int k) {
    switch (k) {
    case 0: {
        float v[2] = {1.5f, -2.5f};
        return make(SPT_FLOAT32, 2, (int64_t[]){3, 4}, 2, (int64_t[]){0, 1, 2, 3}, v);
    }
    case 1: {
        spt_str v[3] = {{"a\0b", 3}, {"", 0}, {"\xff\xfe", 2}};
        return make(SPT_STRING, 1, (int64_t[]){5}, 3, (int64_t[]){0, 1, 3}, v);
    }
    case 2: {
        bool v[1] = {true};
        return make(SPT_BOOL, 3, (int64_t[]){2, 1, 3}, 1, (int64_t[]){1, 0, 2}, v);
    }
    case 3: {
        double v[2] = {1, -2};
        return make(SPT_COMPLEX128, 1, (int64_t[]){1}, 1, (int64_t[]){0}, v);
    }
    case 4: {
        int32_t v[1] = {37};
        return make(SPT_INT32, 0, NULL, 1, NULL, v);
    }
    case 5: return make(SPT_FLOAT64, 2, (int64_t[]){3, 0}, 0, NULL, NULL);
    case 6: {
        uint64_t v[2] = {UINT64_MAX, 7};
        return make(SPT_UINT64, 1, (int64_t[]){2}, 2, (int64_t[]){0, 1}, v);
    }
    default: {
        int8_t v[2] = {-128, 127};
        return make(SPT_INT8, 1, (int64_t[]){2}, 2, (int64_t[]){0, 1}, v);
    }
    }
}
#define NGOLDEN 8

static spt_dense *strings(int64_t rank, const int64_t *shape, char **recs, const size_t *lens) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new(SPT_STRING, rank, shape, &d));
    int64_t n = 1;
    for (int64_t i = 0; i < rank; i++) n *= shape[i];
    for (int64_t i = 0; i < n; i++) ASSERT_OK(spt_dense_set_string(d, i, recs[i], (int64_t)lens[i]));
    return d;
}

static void expect_same(const spt_tensor *got, const spt_tensor *want) {
    assert_int_equal(spt_tensor_dtype(got), spt_tensor_dtype(want));
    spt_test_expect_tensor(got, spt_tensor_rank(want), spt_tensor_shape(want), spt_tensor_nnz(want),
                           spt_tensor_indices(want), spt_tensor_values(want));
}

static void test_serialize_matches_tensorflow(void **state) {
    (void)state;
    char *recs[3 * NGOLDEN];
    size_t lens[3 * NGOLDEN];
    assert_int_equal(read_all(DATA "serialized.tfrecord", SPT_TFRECORD_NONE, recs, lens, 3 * NGOLDEN), 3 * NGOLDEN);
    for (int k = 0; k < NGOLDEN; k++) {
        spt_tensor *t = golden_tensor(k), *back;
        spt_dense *s;
        ASSERT_OK(spt_serialize_sparse(t, &s));
        assert_int_equal(spt_dense_size(s), 3);
        const spt_str *sv = spt_dense_data(s);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(sv[i].len, (int64_t)lens[3 * k + i]);
            assert_memory_equal(sv[i].data, recs[3 * k + i], lens[3 * k + i]);
        }
        spt_dense_free(s);
        /* TF's bytes read back */
        s = strings(1, (int64_t[]){3}, recs + 3 * k, lens + 3 * k);
        ASSERT_OK(spt_deserialize_sparse(s, spt_tensor_dtype(t), &back));
        expect_same(back, t);
        spt_tensor_free(back);
        ASSERT_ST(SPT_EINVAL,
                  spt_deserialize_sparse(s, spt_tensor_dtype(t) == SPT_INT64 ? SPT_INT32 : SPT_INT64, &back));
        ASSERT_MSG("Requested SparseTensor of type");
        assert_null(back);
        spt_dense_free(s);
        spt_tensor_free(t);
    }
    free_all(recs, 3 * NGOLDEN);
}

static void test_serialize_many_matches_tensorflow(void **state) {
    (void)state;
    char *recs[9];
    size_t lens[9];
    assert_int_equal(read_all(DATA "many.tfrecord", SPT_TFRECORD_NONE, recs, lens, 9), 9);
    int64_t v[3] = {1, 2, 3};
    spt_tensor *t = make(SPT_INT64, 2, (int64_t[]){3, 4}, 3, (int64_t[]){0, 1, 2, 0, 2, 3}, v), *back;
    spt_dense *s;
    ASSERT_OK(spt_serialize_many_sparse(t, &s));
    assert_int_equal(spt_dense_rank(s), 2);
    assert_int_equal(spt_dense_shape(s)[0], 3);
    const spt_str *sv = spt_dense_data(s);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(sv[i].len, (int64_t)lens[i]);
        assert_memory_equal(sv[i].data, recs[i], lens[i]);
    }
    spt_dense_free(s);
    s = strings(2, (int64_t[]){3, 3}, recs, lens);
    ASSERT_OK(spt_deserialize_many_sparse(s, SPT_INT64, &back));
    expect_same(back, t);
    spt_tensor_free(back);
    /* a [3, 3] stack read by deserialize_sparse: batch dim 3, each item [4] */
    ASSERT_OK(spt_deserialize_sparse(s, SPT_INT64, &back));
    expect_same(back, t);
    spt_tensor_free(back);
    spt_dense_free(s);
    /* the batch shape is any shape: [1, 3, 3] stacks into [1, 3, 4] */
    s = strings(3, (int64_t[]){1, 3, 3}, recs, lens);
    ASSERT_OK(spt_deserialize_sparse(s, SPT_INT64, &back));
    spt_test_expect_tensor(back, 3, (int64_t[]){1, 3, 4}, 3, (int64_t[]){0, 0, 1, 0, 2, 0, 0, 2, 3}, v);
    spt_tensor_free(back);
    ASSERT_ST(SPT_EINVAL, spt_deserialize_many_sparse(s, SPT_INT64, &back)); /* not a matrix */
    spt_dense_free(s);
    /* rank-1 tensors refused by serialize_many */
    spt_tensor *r1 = make(SPT_INT64, 1, (int64_t[]){4}, 1, (int64_t[]){2}, v);
    ASSERT_ST(SPT_EINVAL, spt_serialize_many_sparse(r1, &s));
    ASSERT_MSG("Rank of input SparseTensor should be > 1");
    assert_null(s);
    spt_tensor_free(r1);
    spt_tensor_free(t);
    free_all(recs, 9);
}

static void test_inconsistent_rank_and_shape_errors(void **state) {
    (void)state;
    spt_tensor *a = golden_tensor(6), *b = golden_tensor(0), *out = (spt_tensor *)1;
    spt_dense *sa, *sb, *stack;
    b = (spt_tensor_free(b), NULL);
    int64_t v[1] = {5};
    b = make(SPT_UINT64, 2, (int64_t[]){2, 2}, 1, (int64_t[]){1, 1}, v);
    ASSERT_OK(spt_serialize_sparse(a, &sa));
    ASSERT_OK(spt_serialize_sparse(b, &sb));
    spt_str items[6];
    memcpy(items, spt_dense_data(sa), 3 * sizeof(spt_str));
    memcpy(items + 3, spt_dense_data(sb), 3 * sizeof(spt_str));
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 2, (int64_t[]){2, 3}, items, &stack));
    ASSERT_ST(SPT_EINVAL, spt_deserialize_sparse(stack, SPT_UINT64, &out));
    ASSERT_MSG("Inconsistent shape across SparseTensors: rank prior to SparseTensor[1] was: 1 but rank of "
               "SparseTensor[1] is: 2");
    assert_null(out);
    spt_dense_free(stack);
    /* the parts swapped: values where the indices should be */
    spt_str sw[3] = {items[1], items[0], items[2]};
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){3}, sw, &stack));
    ASSERT_ST(SPT_EINVAL, spt_deserialize_sparse(stack, SPT_UINT64, &out));
    spt_dense_free(stack);
    /* last dim not 3, not strings, empty batch */
    ASSERT_OK(spt_dense_new(SPT_STRING, 1, (int64_t[]){2}, &stack));
    ASSERT_ST(SPT_EINVAL, spt_deserialize_sparse(stack, SPT_UINT64, &out));
    ASSERT_MSG("3 as the last dimension");
    spt_dense_free(stack);
    ASSERT_OK(spt_dense_new(SPT_STRING, 2, (int64_t[]){0, 3}, &stack));
    ASSERT_ST(SPT_EINVAL, spt_deserialize_sparse(stack, SPT_UINT64, &out));
    spt_dense_free(stack);
    ASSERT_OK(spt_dense_new(SPT_INT64, 1, (int64_t[]){3}, &stack));
    ASSERT_ST(SPT_EDTYPE, spt_deserialize_sparse(stack, SPT_UINT64, &out));
    spt_dense_free(stack);
    spt_dense_free(sa);
    spt_dense_free(sb);
    spt_tensor_free(a);
    spt_tensor_free(b);
}

/* A TensorProto built by hand (the typed fields TensorFlow's FromProto reads). */
static size_t put_varint(unsigned char *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) p[n++] = (unsigned char)(v | 0x80), v >>= 7;
    p[n++] = (unsigned char)v;
    return n;
}

static void test_typed_fields_and_forged_protos(void **state) {
    (void)state;
    /* indices int64 [3, 1] via int64_val (unpacked), values float [3] via float_val {2.5} (repeated to 3),
     * dense_shape int64 [1] via packed int64_val {4}; plus an unknown field 99 that must be skipped */
    unsigned char ix[64], va[64], sh[64];
    size_t ni = 0, nv = 0, ns = 0;
    ix[ni++] = 0x08, ix[ni++] = 9;                                                               /* dtype int64 */
    ix[ni++] = 0x12, ix[ni++] = 8, ix[ni++] = 0x12, ix[ni++] = 2, ix[ni++] = 0x08, ix[ni++] = 3, /* dim 3 */
        ix[ni++] = 0x12, ix[ni++] = 2, ix[ni++] = 0x08, ix[ni++] = 1;                            /* dim 1 */
    for (int k = 0; k < 3; k++) ix[ni++] = 0x50, ix[ni++] = (unsigned char)k; /* int64_val k (field 10) */
    ni += put_varint(ix + ni, 99 << 3 | 0), ix[ni++] = 5;                     /* unknown varint field */
    va[nv++] = 0x08, va[nv++] = 1;                                            /* float */
    va[nv++] = 0x12, va[nv++] = 4, va[nv++] = 0x12, va[nv++] = 2, va[nv++] = 0x08, va[nv++] = 3;
    va[nv++] = 0x2d; /* float_val (field 5, fixed32) */
    float f = 2.5f;
    memcpy(va + nv, &f, 4), nv += 4;
    sh[ns++] = 0x08, sh[ns++] = 9;
    sh[ns++] = 0x12, sh[ns++] = 4, sh[ns++] = 0x12, sh[ns++] = 2, sh[ns++] = 0x08, sh[ns++] = 1;
    sh[ns++] = 0x52, sh[ns++] = 1, sh[ns++] = 4; /* packed int64_val {4} */
    spt_str parts[3] = {{(const char *)ix, (int64_t)ni},
                        {(const char *)va, (int64_t)nv},
                        {(const char *)sh, (int64_t)ns}};
    spt_dense *d;
    spt_tensor *t;
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){3}, parts, &d));
    ASSERT_OK(spt_deserialize_sparse(d, SPT_FLOAT32, &t));
    float want[3] = {2.5f, 2.5f, 2.5f};
    spt_test_expect_tensor(t, 1, (int64_t[]){4}, 3, (int64_t[]){0, 1, 2}, want);
    spt_tensor_free(t);
    spt_dense_free(d);
    /* a shape of 2^40 elements with one value: the fill is bounded (parse error, no huge allocation) */
    unsigned char big[64];
    size_t nb = 0;
    big[nb++] = 0x08, big[nb++] = 1;
    big[nb++] = 0x12, big[nb++] = 9, big[nb++] = 0x12, big[nb++] = 7, big[nb++] = 0x08;
    nb += put_varint(big + nb, (uint64_t)1 << 40);
    big[nb - 9 + 1] = (unsigned char)(nb - 4); /* fix the inner lengths below */
    nb = 0;
    big[nb++] = 0x08, big[nb++] = 1;
    unsigned char dim[16];
    size_t nd = 0;
    dim[nd++] = 0x08;
    nd += put_varint(dim + nd, (uint64_t)1 << 40);
    big[nb++] = 0x12, big[nb++] = (unsigned char)(nd + 2), big[nb++] = 0x12, big[nb++] = (unsigned char)nd;
    memcpy(big + nb, dim, nd), nb += nd;
    big[nb++] = 0x2d;
    memcpy(big + nb, &f, 4), nb += 4;
    parts[1] = (spt_str){(const char *)big, (int64_t)nb};
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){3}, parts, &d));
    ASSERT_ST(SPT_EPARSE, spt_deserialize_sparse(d, SPT_FLOAT32, &t));
    ASSERT_MSG("serialized_sparse[0, 1]");
    spt_dense_free(d);
    /* a length that runs past the message; a DataType spt has not (half) */
    unsigned char lie[8] = {0x08, 1, 0x12, 0x7f, 0x12};
    parts[1] = (spt_str){(const char *)lie, 5};
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){3}, parts, &d));
    ASSERT_ST(SPT_EPARSE, spt_deserialize_sparse(d, SPT_FLOAT32, &t));
    ASSERT_MSG("runs past");
    spt_dense_free(d);
    unsigned char half[4] = {0x08, 19};
    parts[1] = (spt_str){(const char *)half, 2};
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){3}, parts, &d));
    ASSERT_ST(SPT_EDTYPE, spt_deserialize_sparse(d, SPT_FLOAT32, &t));
    ASSERT_MSG("half");
    spt_dense_free(d);
}

/* Every truncation and every bit flip of every part of every golden tensor: a status, never a crash;
 * a success is a valid tensor. */
static void test_every_damage_of_serialized_bytes(void **state) {
    (void)state;
    char *recs[3 * NGOLDEN];
    size_t lens[3 * NGOLDEN];
    assert_int_equal(read_all(DATA "serialized.tfrecord", SPT_TFRECORD_NONE, recs, lens, 3 * NGOLDEN), 3 * NGOLDEN);
    long ok = 0, refused = 0;
    for (int k = 0; k < NGOLDEN; k++) {
        spt_tensor *g = golden_tensor(k);
        for (int part = 0; part < 3; part++) {
            char *orig = recs[3 * k + part];
            size_t len = lens[3 * k + part];
            char *buf = malloc(len + 1);
            for (size_t cut = 0; cut <= len + 8 * len; cut++) {
                size_t n = len;
                memcpy(buf, orig, len);
                if (cut < len) n = cut;                                                             /* a truncation */
                else if (cut > len) buf[(cut - len - 1) / 8] ^= (char)(1 << ((cut - len - 1) % 8)); /* a bit flip */
                spt_str p[3];
                for (int i = 0; i < 3; i++) p[i] = (spt_str){recs[3 * k + i], (int64_t)lens[3 * k + i]};
                p[part] = (spt_str){buf, (int64_t)n};
                spt_dense *d;
                spt_tensor *t = NULL;
                ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){3}, p, &d));
                spt_status st = spt_deserialize_sparse(d, spt_tensor_dtype(g), &t);
                if (st == SPT_OK) {
                    ok++;
                    ASSERT_OK(spt_validate(t));
                    spt_tensor_free(t);
                } else {
                    refused++;
                    assert_null(t);
                    assert_true(st == SPT_EPARSE || st == SPT_EINVAL || st == SPT_ERANGE || st == SPT_EDTYPE ||
                                st == SPT_ENOMEM);
                }
                spt_dense_free(d);
            }
            free(buf);
        }
        spt_tensor_free(g);
    }
    assert_true(refused > 0 && ok > 0);
    free_all(recs, 3 * NGOLDEN);
}

/* ---- TFRecord --------------------------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *b = malloc(1 << 20);
    *n = fread(b, 1, 1 << 20, f);
    fclose(f);
    return b;
}
static void spill(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

/* TFRecord's masked CRC-32C, bit by bit (the test's own, independent of the library's). */
static uint32_t masked_crc(const unsigned char *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
    }
    c = ~c;
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

/* Read a whole file: SPT_OK with *count records, or the first error. */
static spt_status read_count(const char *path, spt_tfrecord_compression c, int *count) {
    spt_tfrecord_reader *r;
    *count = 0;
    spt_status st = spt_tfrecord_reader_open(path, c, &r);
    if (st) return st;
    for (;;) {
        const void *p;
        size_t len;
        bool eof;
        st = spt_tfrecord_read(r, &p, &len, &eof);
        if (st || eof) break;
        (*count)++;
    }
    spt_tfrecord_reader_close(r);
    return st;
}

static void test_records_all_compressions(void **state) {
    (void)state;
    char *a[3], *b[3];
    size_t la[3], lb[3];
    assert_int_equal(read_all(DATA "examples.tfrecord", SPT_TFRECORD_NONE, a, la, 3), 3);
    assert_int_equal(read_all(DATA "examples_zlib.tfrecord", SPT_TFRECORD_ZLIB, b, lb, 3), 3);
    for (int i = 0; i < 3; i++) assert_true(la[i] == lb[i] && !memcmp(a[i], b[i], la[i]));
    free_all(b, 3);
    assert_int_equal(read_all(DATA "examples_gzip.tfrecord", SPT_TFRECORD_GZIP, b, lb, 3), 3);
    for (int i = 0; i < 3; i++) assert_true(la[i] == lb[i] && !memcmp(a[i], b[i], la[i]));
    free_all(b, 3);
    /* spt writes, spt reads: TF's records, an empty record and one of 1 MiB + 3 across the buffers */
    size_t big = (1u << 20) + 3;
    char *bigrec = malloc(big);
    for (size_t i = 0; i < big; i++) bigrec[i] = (char)(i * 7 + (i >> 9));
    for (int c = 0; c < 3; c++) {
        char path[64];
        snprintf(path, sizeof path, "build/tf_formats_rt_%d.tfrecord", c);
        spt_tfrecord_writer *w;
        ASSERT_OK(spt_tfrecord_writer_open(path, (spt_tfrecord_compression)c, &w));
        for (int i = 0; i < 3; i++) ASSERT_OK(spt_tfrecord_write(w, a[i], la[i]));
        ASSERT_OK(spt_tfrecord_write(w, NULL, 0));
        ASSERT_OK(spt_tfrecord_write(w, bigrec, big));
        ASSERT_OK(spt_tfrecord_writer_close(w));
        spt_tfrecord_reader *r;
        ASSERT_OK(spt_tfrecord_reader_open(path, (spt_tfrecord_compression)c, &r));
        for (int i = 0; i < 5; i++) {
            const void *p;
            size_t len;
            bool eof;
            ASSERT_OK(spt_tfrecord_read(r, &p, &len, &eof));
            assert_false(eof);
            if (i < 3) assert_true(len == la[i] && !memcmp(p, a[i], len));
            else if (i == 3) assert_int_equal(len, 0);
            else assert_true(len == big && !memcmp(p, bigrec, big));
        }
        spt_dense *batch;
        ASSERT_OK(spt_tfrecord_read_batch(r, 10, &batch));
        assert_int_equal(spt_dense_size(batch), 0);
        spt_dense_free(batch);
        spt_tfrecord_reader_close(r);
        /* read_batch in pieces of 2 */
        ASSERT_OK(spt_tfrecord_reader_open(path, (spt_tfrecord_compression)c, &r));
        int64_t total = 0;
        for (;;) {
            ASSERT_OK(spt_tfrecord_read_batch(r, 2, &batch));
            int64_t n = spt_dense_size(batch);
            spt_dense_free(batch);
            if (!n) break;
            assert_true(n <= 2);
            total += n;
        }
        assert_int_equal(total, 5);
        spt_tfrecord_reader_close(r);
        remove(path);
    }
    free(bigrec);
    free_all(a, 3);
    spt_tfrecord_reader *r;
    ASSERT_ST(SPT_EIO, spt_tfrecord_reader_open("build/no/such.tfrecord", SPT_TFRECORD_NONE, &r));
    assert_null(r);
    ASSERT_ST(SPT_EINVAL, spt_tfrecord_reader_open(DATA "examples.tfrecord", (spt_tfrecord_compression)3, &r));
}

static void test_every_truncation_and_bit_flip_of_a_file(void **state) {
    (void)state;
    static const char *files[3] = {DATA "examples.tfrecord", DATA "examples_zlib.tfrecord",
                                   DATA "examples_gzip.tfrecord"};
    const char *tmp = TMP "/spt_tf_formats_damaged.tfrecord"; /* written thousands of times: tmpfs when there is one */
    for (int c = 0; c < 3; c++) {
        size_t n;
        unsigned char *orig = slurp(files[c], &n), *b = malloc(n);
        char *good[3];
        size_t glen[3];
        assert_int_equal(read_all(files[c], (spt_tfrecord_compression)c, good, glen, 3), 3);
        size_t bounds[4] = {0, 0, 0, 0};
        for (int i = 0; i < 3; i++) bounds[i + 1] = bounds[i] + 16 + glen[i];
        for (size_t cut = 0; cut < n; cut++) { /* every truncation */
            spill(tmp, orig, cut);
            int count;
            spt_status st = read_count(tmp, (spt_tfrecord_compression)c, &count);
            if (c == 0) {
                bool boundary = cut == bounds[0] || cut == bounds[1] || cut == bounds[2];
                assert_int_equal(st, boundary ? SPT_OK : SPT_EDATALOSS);
                if (st) ASSERT_MSG(tmp);
            } else {
                assert_true(st == SPT_OK || st == SPT_EDATALOSS);
                if (st == SPT_OK) assert_true(count < 3 || cut >= n - 8); /* the gzip trailer is the last 8 bytes */
            }
        }
        for (size_t bit = 0; bit < 8 * n; bit++) { /* every bit flip */
            memcpy(b, orig, n);
            b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            spill(tmp, b, n);
            spt_tfrecord_reader *r;
            ASSERT_OK(spt_tfrecord_reader_open(tmp, (spt_tfrecord_compression)c, &r));
            spt_status st = SPT_OK;
            int i = 0;
            bool same = true;
            for (;; i++) {
                const void *p;
                size_t len;
                bool eof;
                st = spt_tfrecord_read(r, &p, &len, &eof);
                if (st || eof) break;
                if (i >= 3 || len != glen[i] || memcmp(p, good[i], len)) same = false;
            }
            spt_tfrecord_reader_close(r);
            if (c == 0) assert_int_equal(st, SPT_EDATALOSS); /* every framing byte is under a checksum */
            else assert_true(st == SPT_EDATALOSS || (st == SPT_OK && same && i == 3)); /* e.g. gzip's mtime */
        }
        free_all(good, 3);
        free(orig);
        free(b);
    }
    /* a lying length (2^40, its checksum right) followed by 100 bytes: data loss naming the offset, and
     * no 1 TiB buffer (that allocation would fail as SPT_ENOMEM instead) */
    unsigned char h[112] = {0};
    uint64_t lie = (uint64_t)1 << 40;
    for (int i = 0; i < 8; i++) h[i] = (unsigned char)(lie >> (8 * i));
    uint32_t m = masked_crc(h, 8);
    for (int i = 0; i < 4; i++) h[8 + i] = (unsigned char)(m >> (8 * i));
    spill(tmp, h, sizeof h);
    int count;
    ASSERT_ST(SPT_EDATALOSS, read_count(tmp, SPT_TFRECORD_NONE, &count));
    ASSERT_MSG("corrupted record at byte 0: truncated record: 1099511627776 bytes announced, 100 present");
    remove(tmp);
}

/* ---- tf.train.Example ------------------------------------------------------------------------- */

static const spt_feature *example_features(void) {
    static const char *ik[1] = {"ix"};
    static const int64_t size[1] = {5}, fshape[1] = {2};
    static spt_feature f[4];
    f[0] = (spt_feature){.kind = SPT_FEATURE_VARLEN, .key = "ids", .dtype = SPT_INT64};
    f[1] = (spt_feature){.kind = SPT_FEATURE_VARLEN, .key = "tag", .dtype = SPT_STRING};
    f[2] = (spt_feature){
        .kind = SPT_FEATURE_SPARSE, .key = "w", .dtype = SPT_FLOAT32, .rank = 1, .shape = size, .index_keys = ik};
    f[3] = (spt_feature){.kind = SPT_FEATURE_FIXEDLEN, .key = "fx", .dtype = SPT_INT64, .rank = 1, .shape = fshape};
    return f;
}

/* tf.io.parse_example's results for the golden Examples (printed by TensorFlow 2). */
static void check_parsed(spt_tensor **sp, spt_dense **dn) {
    int64_t ids[4] = {3, -1, 7, 9};
    spt_test_expect_tensor(sp[0], 2, (int64_t[]){3, 3}, 4, (int64_t[]){0, 0, 0, 1, 0, 2, 2, 0}, ids);
    spt_str tags[3] = {{"a", 1}, {"\0b", 2}, {"", 0}};
    spt_test_expect_tensor(sp[1], 2, (int64_t[]){3, 2}, 3, (int64_t[]){0, 0, 0, 1, 2, 0}, tags);
    float w[4] = {1.5f, 2.0f, 0.5f, 3.0f}; /* reordered by index: ix {2, 0, 1} -> 0, 1, 2 */
    spt_test_expect_tensor(sp[2], 2, (int64_t[]){3, 5}, 4, (int64_t[]){0, 0, 0, 1, 0, 2, 2, 4}, w);
    assert_null(sp[3]);
    assert_non_null(dn[3]);
    const int64_t fx[6] = {1, 2, 5, 6, 7, 8};
    assert_int_equal(spt_dense_rank(dn[3]), 2);
    assert_memory_equal(spt_dense_data(dn[3]), fx, sizeof fx);
    for (int i = 0; i < 3; i++) assert_null(dn[i]);
}

static spt_dense *golden_examples(void) {
    char *recs[3];
    size_t lens[3];
    assert_int_equal(read_all(DATA "examples_gzip.tfrecord", SPT_TFRECORD_GZIP, recs, lens, 3), 3);
    spt_dense *d = strings(1, (int64_t[]){3}, recs, lens);
    free_all(recs, 3);
    return d;
}

static void test_parse_example_matches_tensorflow(void **state) {
    (void)state;
    spt_dense *d = golden_examples();
    spt_tensor *sp[4];
    spt_dense *dn[4];
    ASSERT_OK(spt_parse_example(d, example_features(), 4, sp, dn));
    check_parsed(sp, dn);
    for (int i = 0; i < 4; i++) spt_tensor_free(sp[i]), spt_dense_free(dn[i]);
    /* parse_single_example: Example 0 without the batch dim */
    spt_dense *one;
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 0, NULL, spt_dense_data(d), &one));
    ASSERT_OK(spt_parse_example(one, example_features(), 4, sp, dn));
    int64_t ids[3] = {3, -1, 7};
    spt_test_expect_tensor(sp[0], 1, (int64_t[]){3}, 3, (int64_t[]){0, 1, 2}, ids);
    assert_int_equal(spt_dense_rank(dn[3]), 1);
    for (int i = 0; i < 4; i++) spt_tensor_free(sp[i]), spt_dense_free(dn[i]);
    spt_dense_free(one);
    /* TensorFlow's errors */
    spt_feature f = {.kind = SPT_FEATURE_FIXEDLEN, .key = "zz", .dtype = SPT_INT64, .rank = 1, .shape = (int64_t[]){1}};
    ASSERT_ST(SPT_EINVAL, spt_parse_example(d, &f, 1, sp, dn));
    ASSERT_MSG("Feature: zz (data type: int64) is required but could not be found.");
    assert_null(sp[0]);
    assert_null(dn[0]);
    f = (spt_feature){.kind = SPT_FEATURE_VARLEN, .key = "ids", .dtype = SPT_FLOAT32};
    ASSERT_ST(SPT_EINVAL, spt_parse_example(d, &f, 1, sp, dn));
    ASSERT_MSG("Key: ids, Index: 0.  Data types don't match. Expected type: float, Actual type: int64");
    f = (spt_feature){
        .kind = SPT_FEATURE_FIXEDLEN, .key = "fx", .dtype = SPT_INT64, .rank = 1, .shape = (int64_t[]){3}};
    ASSERT_ST(SPT_EINVAL, spt_parse_example(d, &f, 1, sp, dn));
    ASSERT_MSG("Key: fx, Index: 0.  Number of int64 values != expected.");
    const char *ik[1] = {"ix"};
    f = (spt_feature){.kind = SPT_FEATURE_SPARSE,
                      .key = "w",
                      .dtype = SPT_FLOAT32,
                      .rank = 1,
                      .shape = (int64_t[]){4},
                      .index_keys = ik};
    ASSERT_ST(SPT_ERANGE, spt_parse_example(d, &f, 1, sp, dn)); /* index 4 with size 4 */
    const char *ik2[1] = {"ids"};
    f.index_keys = ik2;
    f.shape = (int64_t[]){10};
    ASSERT_ST(SPT_ERANGE, spt_parse_example(d, &f, 1, sp, dn)); /* id -1 */
    const char *ik3[1] = {"tag"};
    f.index_keys = ik3;
    ASSERT_ST(SPT_EINVAL, spt_parse_example(d, &f, 1, sp, dn)); /* bytes where int64 indices are wanted */
    /* a default for a missing feature */
    float dv = 9;
    spt_dense *dflt;
    ASSERT_OK(spt_dense_new_from(SPT_FLOAT32, 1, (int64_t[]){1}, &dv, &dflt));
    f = (spt_feature){.kind = SPT_FEATURE_FIXEDLEN,
                      .key = "zz",
                      .dtype = SPT_FLOAT32,
                      .rank = 1,
                      .shape = (int64_t[]){1},
                      .default_value = dflt};
    ASSERT_OK(spt_parse_example(d, &f, 1, sp, dn));
    float want[3] = {9, 9, 9};
    assert_memory_equal(spt_dense_data(dn[0]), want, sizeof want);
    spt_dense_free(dn[0]);
    f.dtype = SPT_FLOAT64;
    ASSERT_ST(SPT_EDTYPE, spt_parse_example(d, &f, 1, sp, dn));
    spt_dense_free(dflt);
    spt_dense_free(d);
}

static void test_encode_round_trip(void **state) {
    (void)state;
    int64_t ids[3] = {1, -2, 1LL << 40};
    float w[2] = {0.25f, -1};
    spt_str s[2] = {{"x\0y", 3}, {"", 0}};
    spt_example_feature ef[3] = {{"ids", SPT_INT64, 3, ids}, {"w", SPT_FLOAT32, 2, w}, {"s", SPT_STRING, 2, s}};
    void *buf;
    size_t len;
    ASSERT_OK(spt_encode_example(ef, 3, &buf, &len));
    spt_str one = {buf, (int64_t)len};
    spt_dense *d;
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){1}, &one, &d));
    spt_bytes_free(buf);
    spt_feature f[3] = {{.kind = SPT_FEATURE_VARLEN, .key = "ids", .dtype = SPT_INT64},
                        {.kind = SPT_FEATURE_VARLEN, .key = "w", .dtype = SPT_FLOAT32},
                        {.kind = SPT_FEATURE_VARLEN, .key = "s", .dtype = SPT_STRING}};
    spt_tensor *sp[3];
    spt_dense *dn[3];
    ASSERT_OK(spt_parse_example(d, f, 3, sp, dn));
    spt_test_expect_tensor(sp[0], 2, (int64_t[]){1, 3}, 3, (int64_t[]){0, 0, 0, 1, 0, 2}, ids);
    spt_test_expect_tensor(sp[1], 2, (int64_t[]){1, 2}, 2, (int64_t[]){0, 0, 0, 1}, w);
    spt_test_expect_tensor(sp[2], 2, (int64_t[]){1, 2}, 2, (int64_t[]){0, 0, 0, 1}, s);
    for (int i = 0; i < 3; i++) spt_tensor_free(sp[i]);
    spt_dense_free(d);
    ef[1].key = "ids";
    ASSERT_ST(SPT_EINVAL, spt_encode_example(ef, 3, &buf, &len));
    assert_null(buf);
    ef[1] = (spt_example_feature){"d", SPT_FLOAT64, 2, w};
    ASSERT_ST(SPT_EDTYPE, spt_encode_example(ef, 2, &buf, &len));
    /* a rank-3 SparseTensor's rows as Examples, read back by a SparseFeature with two index keys */
    float v[4] = {1, 2, 3, 4};
    spt_tensor *t = make(SPT_FLOAT32, 3, (int64_t[]){3, 2, 5}, 4, (int64_t[]){2, 1, 4, 0, 0, 3, 0, 1, 0, 2, 0, 0}, v),
               *back;
    const char *keys[2] = {"r", "c"};
    ASSERT_OK(spt_encode_examples(t, "val", keys, &d));
    assert_int_equal(spt_dense_size(d), 3);
    spt_feature sf = {.kind = SPT_FEATURE_SPARSE,
                      .key = "val",
                      .dtype = SPT_FLOAT32,
                      .rank = 2,
                      .shape = (int64_t[]){2, 5},
                      .index_keys = keys};
    ASSERT_OK(spt_parse_example(d, &sf, 1, &back, dn));
    float sv[4] = {2, 3, 4, 1};
    spt_test_expect_tensor(back, 3, (int64_t[]){3, 2, 5}, 4, (int64_t[]){0, 0, 3, 0, 1, 0, 2, 0, 0, 2, 1, 4}, sv);
    spt_tensor_free(back);
    spt_dense_free(d);
    spt_tensor_free(t);
}

static void test_every_damage_of_an_example(void **state) {
    (void)state;
    char *recs[3];
    size_t lens[3];
    assert_int_equal(read_all(DATA "examples.tfrecord", SPT_TFRECORD_NONE, recs, lens, 3), 3);
    long refused = 0;
    char *buf = malloc(lens[0]);
    for (size_t cut = 0; cut < lens[0] + 8 * lens[0]; cut++) {
        size_t n = lens[0];
        memcpy(buf, recs[0], n);
        if (cut < lens[0]) n = cut;
        else buf[(cut - lens[0]) / 8] ^= (char)(1 << ((cut - lens[0]) % 8));
        spt_str one = {buf, (int64_t)n};
        spt_dense *d;
        ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){1}, &one, &d));
        spt_tensor *sp[4];
        spt_dense *dn[4];
        spt_status st = spt_parse_example(d, example_features(), 4, sp, dn);
        if (st == SPT_OK) {
            for (int i = 0; i < 3; i++) {
                ASSERT_OK(spt_validate(sp[i]));
                spt_tensor_free(sp[i]);
            }
            spt_dense_free(dn[3]);
        } else {
            refused++;
            assert_true(st == SPT_EPARSE || st == SPT_EINVAL || st == SPT_ERANGE);
            for (int i = 0; i < 4; i++) assert_true(!sp[i] && !dn[i]);
        }
        spt_dense_free(d);
    }
    assert_true(refused > 0);
    free(buf);
    free_all(recs, 3);
}

/* ---- the fast paths of the decoder: every varint length, list lengths around the 64-byte blocks, any
 * thread count ---------------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s ^ (*s >> 29);
}

/* A value whose varint takes 1 + (k % 10) bytes (k 9: negative, 10 bytes), the extremes now and then. */
static int64_t varint_value(uint64_t *s, int k) {
    uint64_t r = rng_next(s);
    switch (r % 23) {
    case 0: return 0;
    case 1: return INT64_MAX;
    case 2: return INT64_MIN;
    case 3: return -1;
    default: break;
    }
    int bytes = 1 + k % 10;
    if (bytes == 10) return (int64_t)(r | (UINT64_C(1) << 63));
    int bits = 7 * bytes; /* at most 63 */
    uint64_t top = UINT64_C(1) << (bits - 1);
    return (int64_t)((r & (top - 1)) | top); /* exactly `bits` bits: exactly `bytes` bytes */
}

typedef struct {
    int64_t B, total[3], longest[3];
    int64_t *ids, *idn; /* all ids, per Example counts */
    float *w;
    int64_t *wn;
} corpus;

/* B Examples: "ids" (int64, 0..200 values of every varint length, sometimes absent), "w" (float, sometimes
 * absent), "s" (bytes, a few); the expected values kept in Example order. */
static spt_dense *make_corpus(corpus *c, int64_t B, uint64_t seed) {
    spt_dense *d;
    ASSERT_OK(spt_dense_new(SPT_STRING, 1, &B, &d));
    memset(c, 0, sizeof *c);
    c->B = B;
    c->ids = malloc((size_t)B * 201 * sizeof(int64_t));
    c->w = malloc((size_t)B * 201 * sizeof(float));
    c->idn = calloc((size_t)B, sizeof(int64_t));
    c->wn = calloc((size_t)B, sizeof(int64_t));
    uint64_t s = seed;
    for (int64_t b = 0; b < B; b++) {
        spt_example_feature f[3];
        int nf = 0;
        const int64_t n = (int64_t)(rng_next(&s) % 201), m = (int64_t)(rng_next(&s) % 40);
        int64_t *ids = c->ids + c->total[0];
        float *w = c->w + c->total[1];
        const int mix = (int)(rng_next(&s) % 11); /* one length for the whole list, or (10) any */
        for (int64_t i = 0; i < n; i++) ids[i] = varint_value(&s, mix == 10 ? (int)(rng_next(&s) % 10) : mix);
        for (int64_t i = 0; i < m; i++) w[i] = (float)(int64_t)(rng_next(&s) % 2001 - 1000) / 8.0f;
        spt_str strs[2] = {{"a\0b", 3}, {"", 0}};
        if (b % 7 != 3) f[nf++] = (spt_example_feature){"ids", SPT_INT64, n, ids}, c->idn[b] = n;
        if (b % 5 != 1) f[nf++] = (spt_example_feature){"w", SPT_FLOAT32, m, w}, c->wn[b] = m;
        if (b % 3 == 0) f[nf++] = (spt_example_feature){"s", SPT_STRING, 2, strs};
        c->total[0] += c->idn[b], c->total[1] += c->wn[b], c->total[2] += b % 3 == 0 ? 2 : 0;
        if (c->idn[b] > c->longest[0]) c->longest[0] = c->idn[b];
        if (c->wn[b] > c->longest[1]) c->longest[1] = c->wn[b];
        if (b % 3 == 0) c->longest[2] = 2;
        void *buf;
        size_t len;
        ASSERT_OK(spt_encode_example(f, nf, &buf, &len));
        ASSERT_OK(spt_dense_set_string(d, b, buf, (int64_t)len));
        spt_bytes_free(buf);
    }
    return d;
}
static void free_corpus(corpus *c) { free(c->ids), free(c->w), free(c->idn), free(c->wn); }

static const spt_feature *corpus_features(void) {
    static const spt_feature f[3] = {{.kind = SPT_FEATURE_VARLEN, .key = "ids", .dtype = SPT_INT64},
                                     {.kind = SPT_FEATURE_VARLEN, .key = "w", .dtype = SPT_FLOAT32},
                                     {.kind = SPT_FEATURE_VARLEN, .key = "s", .dtype = SPT_STRING}};
    return f;
}

static void same_tensor(const spt_tensor *a, const spt_tensor *b) {
    assert_int_equal(spt_tensor_nnz(a), spt_tensor_nnz(b));
    assert_int_equal(spt_tensor_rank(a), spt_tensor_rank(b));
    assert_memory_equal(spt_tensor_shape(a), spt_tensor_shape(b), (size_t)spt_tensor_rank(a) * 8);
    const int64_t n = spt_tensor_nnz(a);
    if (!n) return;
    assert_memory_equal(spt_tensor_indices(a), spt_tensor_indices(b), (size_t)(n * spt_tensor_rank(a)) * 8);
    if (spt_tensor_dtype(a) == SPT_STRING) {
        const spt_str *x = spt_tensor_values(a), *y = spt_tensor_values(b);
        for (int64_t i = 0; i < n; i++) {
            assert_int_equal(x[i].len, y[i].len);
            if (x[i].len) assert_memory_equal(x[i].data, y[i].data, (size_t)x[i].len);
        }
    } else {
        assert_memory_equal(spt_tensor_values(a), spt_tensor_values(b),
                            (size_t)n * spt_dtype_size(spt_tensor_dtype(a)));
    }
}

static void test_parse_example_varints_and_thread_counts(void **state) {
    (void)state;
    corpus c;
    spt_dense *d = make_corpus(&c, 3000, 20261129);
    spt_tensor *ref[3], *sp[3];
    spt_dense *dn[3];
    spt_set_num_threads(1);
    ASSERT_OK(spt_parse_example(d, corpus_features(), 3, ref, dn));
    /* the values, exactly as encoded; indices [b, j]; dense_shape [B, longest] */
    const int64_t *ix = spt_tensor_indices(ref[0]);
    assert_int_equal(spt_tensor_nnz(ref[0]), c.total[0]);
    assert_memory_equal(spt_tensor_values(ref[0]), c.ids, (size_t)c.total[0] * 8);
    assert_memory_equal(spt_tensor_values(ref[1]), c.w, (size_t)c.total[1] * 4);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(spt_tensor_shape(ref[k])[0], c.B);
        assert_int_equal(spt_tensor_shape(ref[k])[1], c.longest[k]);
        assert_int_equal(spt_tensor_nnz(ref[k]), c.total[k]);
    }
    for (int64_t b = 0, e = 0; b < c.B; b++)
        for (int64_t j = 0; j < c.idn[b]; j++, e++) {
            assert_int_equal(ix[2 * e], b);
            assert_int_equal(ix[2 * e + 1], j);
        }
    /* the same bytes for any thread count */
    for (int th = 2; th <= 4; th++) {
        spt_set_num_threads(th);
        ASSERT_OK(spt_parse_example(d, corpus_features(), 3, sp, dn));
        for (int k = 0; k < 3; k++) {
            same_tensor(ref[k], sp[k]);
            spt_tensor_free(sp[k]);
        }
    }
    spt_set_num_threads(0);
    for (int k = 0; k < 3; k++) spt_tensor_free(ref[k]);
    spt_dense_free(d);
    free_corpus(&c);
}

/* tag + length + bytes */
static size_t put_len_field(unsigned char *o, int field, const void *p, size_t n) {
    size_t k = 0;
    o[k++] = (unsigned char)(field << 3 | 2);
    for (size_t v = n;; v >>= 7) {
        o[k++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80) break;
    }
    memmove(o + k, p, n);
    return k + n;
}

/* An Example {"ids": int64_list {packed payload}}. */
static spt_dense *example_with_payload(const unsigned char *payload, size_t n) {
    static unsigned char a[1024], b[1024];
    size_t k = put_len_field(a, 1, payload, n); /* Int64List.value, packed */
    k = put_len_field(b, 3, a, k);              /* Feature.int64_list */
    size_t e = put_len_field(a, 1, "ids", 3);   /* entry.key */
    e += put_len_field(a + e, 2, b, k);         /* entry.value */
    k = put_len_field(b, 1, a, e);              /* Features.feature */
    k = put_len_field(a, 1, b, k);              /* Example.features */
    spt_str one = {(const char *)a, (int64_t)k};
    spt_dense *d;
    ASSERT_OK(spt_dense_new_from(SPT_STRING, 1, (int64_t[]){1}, &one, &d));
    return d;
}

static void test_packed_varint_too_long_anywhere(void **state) {
    (void)state;
    const spt_feature f = {.kind = SPT_FEATURE_VARLEN, .key = "ids", .dtype = SPT_INT64};
    unsigned char pay[300];
    for (size_t at = 0; at < 200; at += 7) {
        for (size_t len = 10; len <= 12; len++) { /* a varint of len bytes at byte `at`, ones around it */
            size_t n = 0;
            for (size_t i = 0; i < at; i++) pay[n++] = 1;
            for (size_t i = 0; i + 1 < len; i++) pay[n++] = 0xff;
            pay[n++] = len == 10 ? 0x02 : 0x01; /* 10 bytes with a tenth above 1, or 11-12 bytes */
            for (size_t i = 0; i < 70; i++) pay[n++] = 1;
            spt_dense *d = example_with_payload(pay, n);
            spt_tensor *sp = (spt_tensor *)1;
            spt_dense *dn = (spt_dense *)1;
            ASSERT_ST(SPT_EPARSE, spt_parse_example(d, &f, 1, &sp, &dn));
            assert_null(sp);
            assert_null(dn);
            assert_non_null(strstr(spt_last_error(),
                                   "serialized[0]: Feature of key \"ids\": malformed varint in a packed int64 list"));
            spt_dense_free(d);
            if (len == 10) { /* and the longest valid form: nine 0x80 then 0x01 (INT64_MIN) */
                for (size_t i = 0; i < 9; i++) pay[at + i] = 0x80;
                pay[at + 9] = 0x01;
                d = example_with_payload(pay, n);
                ASSERT_OK(spt_parse_example(d, &f, 1, &sp, &dn));
                const int64_t *v = spt_tensor_values(sp);
                assert_int_equal(spt_tensor_nnz(sp), (int64_t)(at + 71));
                assert_int_equal(v[at], INT64_MIN);
                for (int64_t i = 0; i < spt_tensor_nnz(sp); i++)
                    if ((size_t)i != at) assert_int_equal(v[i], 1);
                spt_tensor_free(sp);
                spt_dense_free(d);
            }
        }
    }
}

/* The packed int64 decoder's two joins (PEXT where it is fast, the portable shifts everywhere): the same
 * values as a byte-by-byte reference on lists of every varint length (1-10 bytes, the sign bit, the 64-byte
 * block edges), and both refuse an 11-byte varint and a list cut inside its last varint. */
static void test_unpack_forms(void **state) {
    (void)state;
    enum { MAXV = 700 };
    unsigned char *buf = malloc(MAXV * 11 + 16);
    int64_t want[MAXV], got[MAXV], port[MAXV];
    uint64_t x = 0x9e3779b97f4a7c15u;
    assert_non_null(buf);
    for (int round = 0; round < 400; round++) {
        const int nv = 1 + round % MAXV;
        size_t len = 0;
        for (int i = 0; i < nv; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const int bitsv = (int)(x % 65); /* 0..64 significant bits: every varint length */
            uint64_t v = bitsv == 0 ? 0 : (x >> 3 | UINT64_C(1) << 63) >> (64 - bitsv);
            want[i] = (int64_t)v;
            len += put_varint(buf + len, v);
        }
        memset(got, 0, sizeof got), memset(port, 0, sizeof port);
        assert_true(spt__pb_unpack_int64(buf, len, got));
        assert_true(spt__pb_unpack_int64_portable(buf, len, port));
        assert_memory_equal(got, want, (size_t)nv * sizeof *want);
        assert_memory_equal(port, want, (size_t)nv * sizeof *want);
        if (buf[len - 1] < 0x80 && len > 1 && buf[len - 2] >= 0x80) { /* cut inside the last varint */
            assert_false(spt__pb_unpack_int64(buf, len - 1, got));
            assert_false(spt__pb_unpack_int64_portable(buf, len - 1, port));
        }
    }
    size_t len = put_varint(buf, 5); /* then an 11-byte varint */
    for (int i = 0; i < 10; i++) buf[len++] = 0xff;
    buf[len++] = 0x01;
    assert_false(spt__pb_unpack_int64(buf, len, got));
    assert_false(spt__pb_unpack_int64_portable(buf, len, port));
    free(buf);
}

/* Errors come in the order of the features, then of the Examples, whatever the thread count: a malformed
 * list of the first feature before a list of another type of the second, even in a later Example. */
static void test_error_order_any_thread_count(void **state) {
    (void)state;
    corpus c;
    spt_dense *d = make_corpus(&c, 3000, 7);
    unsigned char pay[40];
    for (int i = 0; i < 11; i++) pay[i] = 0xff;
    pay[11] = 0x01; /* a 12-byte varint */
    spt_dense *bad = example_with_payload(pay, 12);
    const spt_str *bs = spt_dense_data(bad);
    ASSERT_OK(spt_dense_set_string(d, 2500, bs->data, bs->len));
    ASSERT_OK(spt_dense_set_string(d, 2700, bs->data, bs->len));
    int64_t one = 7;
    spt_example_feature wf = {"w", SPT_INT64, 1, &one};
    void *buf;
    size_t len;
    ASSERT_OK(spt_encode_example(&wf, 1, &buf, &len));
    ASSERT_OK(spt_dense_set_string(d, 2100, buf, (int64_t)len));
    ASSERT_OK(spt_dense_set_string(d, 2900, buf, (int64_t)len));
    spt_bytes_free(buf);
    const spt_feature *f = corpus_features();
    spt_feature rev[2] = {f[1], f[0]};
    for (int th = 1; th <= 4; th++) {
        spt_set_num_threads(th);
        spt_tensor *sp[3];
        spt_dense *dn[3];
        ASSERT_ST(SPT_EPARSE, spt_parse_example(d, f, 3, sp, dn));
        assert_non_null(strstr(spt_last_error(), "serialized[2500]: Feature of key \"ids\": malformed varint"));
        for (int k = 0; k < 3; k++) assert_true(!sp[k] && !dn[k]);
        ASSERT_ST(SPT_EINVAL, spt_parse_example(d, rev, 2, sp, dn));
        assert_non_null(
            strstr(spt_last_error(),
                   "Key: w, Index: 2100.  Data types don't match. Expected type: float, Actual type: int64"));
        for (int k = 0; k < 2; k++) assert_true(!sp[k] && !dn[k]);
    }
    spt_set_num_threads(0);
    spt_dense_free(bad);
    spt_dense_free(d);
    free_corpus(&c);
}

/* ---- allocation-failure sweeps ---------------------------------------------------------------- */

typedef struct {
    spt_tensor *t, *out;
    spt_dense *d, *dout, *ex;
    spt_tensor *sp[4];
    spt_dense *dn[4];
} sweep_ctx;

static spt_status sw_serialize(void *p) {
    sweep_ctx *c = p;
    spt_status st = spt_serialize_many_sparse(c->t, &c->dout);
    if (st) return st;
    return spt_deserialize_sparse(c->dout, SPT_INT64, &c->out);
}
static void sw_serialize_clean(void *p) {
    sweep_ctx *c = p;
    spt_dense_free(c->dout), c->dout = NULL;
    spt_tensor_free(c->out), c->out = NULL;
}
static spt_status sw_parse(void *p) {
    sweep_ctx *c = p;
    return spt_parse_example(c->ex, example_features(), 4, c->sp, c->dn);
}
static void sw_parse_clean(void *p) {
    sweep_ctx *c = p;
    for (int i = 0; i < 4; i++) spt_tensor_free(c->sp[i]), spt_dense_free(c->dn[i]), c->sp[i] = NULL, c->dn[i] = NULL;
}
static spt_status sw_read(void *p) {
    sweep_ctx *c = p;
    spt_tfrecord_reader *r;
    spt_status st = spt_tfrecord_reader_open(DATA "examples_zlib.tfrecord", SPT_TFRECORD_ZLIB, &r);
    if (st) return st;
    st = spt_tfrecord_read_batch(r, 8, &c->dout);
    spt_tfrecord_reader_close(r);
    return st;
}
static void sw_read_clean(void *p) {
    sweep_ctx *c = p;
    spt_dense_free(c->dout), c->dout = NULL;
}

static void test_allocation_sweeps(void **state) {
    (void)state;
    sweep_ctx c = {0};
    int64_t v[3] = {1, 2, 3};
    spt_test_alloc_install(); /* before the inputs: they are freed through it */
    c.t = make(SPT_INT64, 2, (int64_t[]){3, 4}, 3, (int64_t[]){0, 1, 2, 0, 2, 3}, v);
    c.ex = golden_examples();
    assert_true(spt_test_alloc_sweep(sw_serialize, sw_serialize_clean, &c) > 0);
    assert_true(spt_test_alloc_sweep(sw_parse, sw_parse_clean, &c) > 0);
    assert_true(spt_test_alloc_sweep(sw_read, sw_read_clean, &c) > 0);
    spt_test_alloc_fail_at(-1);
    spt_tensor_free(c.t);
    spt_dense_free(c.ex);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serialize_matches_tensorflow),
        cmocka_unit_test(test_serialize_many_matches_tensorflow),
        cmocka_unit_test(test_inconsistent_rank_and_shape_errors),
        cmocka_unit_test(test_typed_fields_and_forged_protos),
        cmocka_unit_test(test_every_damage_of_serialized_bytes),
        cmocka_unit_test(test_records_all_compressions),
        cmocka_unit_test(test_every_truncation_and_bit_flip_of_a_file),
        cmocka_unit_test(test_parse_example_matches_tensorflow),
        cmocka_unit_test(test_encode_round_trip),
        cmocka_unit_test(test_every_damage_of_an_example),
        cmocka_unit_test(test_parse_example_varints_and_thread_counts),
        cmocka_unit_test(test_packed_varint_too_long_anywhere),
        cmocka_unit_test(test_unpack_forms),
        cmocka_unit_test(test_error_order_any_thread_count),
        cmocka_unit_test(test_allocation_sweeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
