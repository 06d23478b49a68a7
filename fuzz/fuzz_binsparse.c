/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_binsparse.c -- the binsparse reader (spt_read with SPT_FORMAT_BINSPARSE: a JSON descriptor in
 * binsparse.npy and named .npy arrays in a zip) on archives built from the fuzz input: a descriptor of a
 * predefined or custom format with a shape, a count and data types taken from the input (or raw bytes
 * for the JSON text), and arrays (values, indices_k, pointers_to_k, fill_value) of a decoded dtype and
 * length, or raw bytes. With the mode bit set the whole input is written as the file instead (the zip
 * reader on malformed archives). The archive is made with libzip, stored or deflated, so that spt's zip
 * reader meets another writer's output. A tensor read must satisfy the invariants and survive
 * spt_write in binsparse COO (and CSR, CSC for rank 2) + spt_read. */
#include "fz.h"
#include "fz_file.h"
#include "io/io.h"

#include <string.h>
#include <zip.h>

/* The ops this harness reaches (one action: the bytes are the file). */
FZ_ALSO(FZ_OP(spt_read), FZ_OP(spt_write));

static const char *const formats[] = {"COO",  "COOR", "COOC", "CSR",   "CSC",   "DCSR",   "DCSC",
                                      "CVEC", "DVEC", "DMAT", "DMATR", "DMATC", "custom", "BOGUS"};
static const char *const types[] = {
    "int64",      "int8",    "int16",   "int32", "uint8",        "uint16",           "uint32",
    "uint64",     "float32", "float64", "bint8", "iso[float64]", "complex[float32]", "complex[float64]",
    "iso[int64]", "string"};
static const spt_dtype type_dt[] = {SPT_INT64,   SPT_INT8,    SPT_INT16,   SPT_INT32,   SPT_UINT8, SPT_UINT16,
                                    SPT_UINT32,  SPT_UINT64,  SPT_FLOAT32, SPT_FLOAT64, SPT_UINT8, SPT_FLOAT64,
                                    SPT_FLOAT32, SPT_FLOAT64, SPT_INT64,   SPT_INT64};
/* custom level trees; %d is the rank of the innermost sparse level */
static const char *const customs[] = {
    "{\"level\": {\"level_desc\": \"sparse\", \"rank\": %d, \"level\": {\"level_desc\": \"element\"}}}",
    "{\"level\": {\"level_desc\": \"dense\", \"rank\": 1, \"level\": {\"level_desc\": \"sparse\", \"rank\": %d, "
    "\"level\": {\"level_desc\": \"element\"}}}}",
    "{\"transpose\": [1, 0], \"level\": {\"level_desc\": \"dense\", \"rank\": 1, \"level\": {\"level_desc\": "
    "\"sparse\", \"rank\": %d, \"level\": {\"level_desc\": \"element\"}}}}",
    "{\"level\": {\"level_desc\": \"sparse\", \"rank\": 1, \"level\": {\"level_desc\": \"sparse\", \"rank\": %d, "
    "\"level\": {\"level_desc\": \"element\"}}}}",
    "{\"level\": {\"level_desc\": \"dense\", \"rank\": %d, \"level\": {\"level_desc\": \"element\"}}}",
    "{\"swizzle\": [2, 0, 1], \"level\": {\"level\": \"sparse\", \"rank\": %d, \"subformat\": {\"level\": "
    "\"element\"}}}",
};
static const char *const keys[] = {"values",        "indices_0",     "indices_1",  "indices_2",
                                   "pointers_to_1", "pointers_to_2", "fill_value", "other"};

/* A rank-1 .npy image of up to 9 elements of dt (integers small, so that indices and pointers are often
 * valid), in a malloc'd buffer. */
static char *npy_array(fz_in *in, spt_dtype dt, size_t *len) {
    int64_t n = fz_u8(in) % 10;
    size_t es = spt_dtype_size(dt);
    char *vals = calloc((size_t)n + 1, es);
    if (!vals) abort();
    for (int64_t i = 0; i < n; i++) {
        if (spt_dtype_is_integer(dt)) {
            int64_t v = fz_int(in, 6);
            memcpy(vals + (size_t)i * es, &v, es);
        } else fz_bytes(in, vals + (size_t)i * es, es);
        if (dt == SPT_BOOL) vals[i] &= 1;
    }
    char *buf = NULL;
    spt_status st = spt__npy_build("fuzz", dt, 1, &n, vals, &buf, len);
    free(vals);
    if (st != SPT_OK) return NULL;
    char *copy = malloc(*len + 1);
    if (!copy) abort();
    memcpy(copy, buf, *len);
    spt__free(buf);
    return copy;
}

/* The descriptor's JSON text from the input. */
static void descriptor(fz_in *in, char *j, size_t cap, spt_dtype *dts) {
    const char *f = formats[fz_u8(in) % (sizeof formats / sizeof *formats)];
    int rank = fz_u8(in) % 4, w = 0;
    w += snprintf(j + w, cap - (size_t)w, "{\"binsparse\": {\"version\": \"0.1\", \"format\": \"%s\", ", f);
    if (!strcmp(f, "custom")) {
        w += snprintf(j + w, cap - (size_t)w, "\"custom\": ");
        w += snprintf(j + w, cap - (size_t)w, customs[fz_u8(in) % (sizeof customs / sizeof *customs)],
                      (int)(fz_u8(in) % 3) + 1);
        w += snprintf(j + w, cap - (size_t)w, ", ");
    }
    w += snprintf(j + w, cap - (size_t)w, "\"shape\": [");
    for (int k = 0; k < rank; k++)
        w += snprintf(j + w, cap - (size_t)w, "%s%lld", k ? ", " : "", (long long)fz_int(in, 7));
    w += snprintf(j + w, cap - (size_t)w, "], \"number_of_stored_values\": %lld, ", (long long)fz_int(in, 9));
    if (fz_u8(in) & 1) w += snprintf(j + w, cap - (size_t)w, "\"fill\": true, ");
    if (fz_u8(in) == 7) w += snprintf(j + w, cap - (size_t)w, "\"structure\": \"symmetric_lower\", ");
    w += snprintf(j + w, cap - (size_t)w, "\"data_types\": {");
    size_t tv = 0;
    for (size_t k = 0; k < sizeof keys / sizeof *keys - 1; k++) {
        uint8_t c = fz_u8(in);
        size_t t = c < 160 ? 0 : c % (sizeof types / sizeof *types); /* indices and pointers: mostly int64 */
        if (k == 0) tv = t = c % (sizeof types / sizeof *types);
        if (k == 6) t = c & 1 ? tv : c % (sizeof types / sizeof *types); /* the fill: often as the values */
        dts[k] = type_dt[t];
        w += snprintf(j + w, cap - (size_t)w, "%s\"%s\": \"%s\"", k ? ", " : "", keys[k], types[t]);
    }
    snprintf(j + w, cap - (size_t)w, "}}}");
}

/* binsparse.npy: the JSON text as a NumPy unicode scalar ('<U<n>'), or raw bytes. */
static char *descriptor_member(fz_in *in, spt_dtype *dts, size_t *len) {
    char json[2048];
    if (fz_u8(in) < 40) { /* raw JSON text */
        size_t n = fz_u8(in);
        fz_bytes(in, json, n);
        json[n] = 0;
        for (size_t i = 0; i < n; i++)
            if (!json[i]) json[i] = ' ';
    } else descriptor(in, json, sizeof json, dts);
    spt_str s = {json, (int64_t)strlen(json)};
    char *buf = NULL;
    if (spt__npy_build("fuzz", SPT_STRING, 0, NULL, &s, &buf, len) != SPT_OK) return NULL;
    char *copy = malloc(*len + 1);
    if (!copy) abort();
    memcpy(copy, buf, *len);
    spt__free(buf);
    return copy;
}

static void add(zip_t *z, const char *name, char *buf, size_t len, bool stored) {
    if (len == 0) { /* libzip does not take ownership of an empty buffer */
        free(buf);
        buf = NULL;
    }
    zip_source_t *src = zip_source_buffer(z, buf, len, buf != NULL);
    if (!src) abort();
    zip_int64_t idx = zip_file_add(z, name, src, ZIP_FL_OVERWRITE);
    if (idx < 0) {
        zip_source_free(src);
        return;
    }
    if (stored) zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
}

/* The archive from the input; false when libzip refuses it. */
static bool build(fz_in *in, uint8_t m, const char *path) {
    int err = 0;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) abort();
    spt_dtype dts[8] = {SPT_INT64, SPT_INT64, SPT_INT64, SPT_INT64, SPT_INT64, SPT_INT64, SPT_INT64, SPT_INT64};
    size_t len = 0;
    char *d = descriptor_member(in, dts, &len);
    if (d) add(z, "binsparse.npy", d, len, m & 2);
    int nm = fz_u8(in) % 8;
    for (int i = 0; i < nm; i++) {
        size_t k = fz_u8(in) % (sizeof keys / sizeof *keys);
        char name[48], *buf;
        snprintf(name, sizeof name, "%s.npy", keys[k]);
        if (fz_u8(in) < 230) {
            spt_dtype dt = fz_u8(in) < 200 ? dts[k] : (spt_dtype)(fz_u8(in) % SPT_NUM_DTYPES);
            buf = npy_array(in, dt == SPT_STRING ? SPT_INT64 : dt, &len);
        } else {
            len = fz_u8(in);
            buf = malloc(len + 1);
            if (!buf) abort();
            fz_bytes(in, buf, len);
        }
        if (buf) add(z, name, buf, len, m & 2);
    }
    if (zip_close(z) != 0) {
        zip_discard(z);
        return false;
    }
    return true;
}

static void check_roundtrip(const spt_tensor *t, spt_format f) {
    /* a CSR pointer array has one element per row: only shapes whose pointers fit the fuzzer's memory */
    if (f != SPT_FORMAT_BINSPARSE &&
        (spt_tensor_rank(t) != 2 || spt_tensor_shape(t)[0] > (1 << 24) || spt_tensor_shape(t)[1] > (1 << 24)))
        return;
    char out[256];
    fz_scratch(out, sizeof out, "rt", ".bsp.npz");
    spt_status st = spt_write(t, out, f);
    fz_check_status("spt_write", st, NULL);
    if (st != SPT_OK) {
        /* a tensor holding an index twice (binsparse stores each once) or a dtype binsparse cannot hold */
        if (st == SPT_EINVAL || st == SPT_EDTYPE) return;
        fz_die("spt_write", "cannot write a binsparse tensor that was read");
    }
    spt_tensor *back = FZ_SENTINEL;
    st = spt_read(out, SPT_FORMAT_BINSPARSE, NULL, &back);
    fz_check_status("spt_read", st, back);
    if (st != SPT_OK) fz_die("spt_read", "cannot read back what spt_write wrote in binsparse");
    fz_check_tensor("spt_read", back);
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    if (spt_tensor_rank(back) != r || spt_tensor_nnz(back) != n || spt_tensor_dtype(back) != spt_tensor_dtype(t) ||
        memcmp(spt_tensor_shape(back), spt_tensor_shape(t), (size_t)r * 8))
        fz_die("binsparse round trip", "rank, nnz, dtype or shape differ");
    spt_tensor_free(back);
    remove(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    uint8_t m = fz_u8(&in);
    char path[256];
    fz_scratch(path, sizeof path, "in", ".bsp.npz");
    if (m & 1) fz_write_file(path, in.p, in.n);
    else if (!build(&in, m, path)) return 0;
    spt_tensor *t = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_read(path, SPT_FORMAT_BINSPARSE, NULL, &t);
    fz_op_end();
    fz_check_status("spt_read", st, t);
    if (st != SPT_OK) return 0;
    fz_check_tensor("spt_read", t);
    if ((m & 0x30) == 0x30) {
        check_roundtrip(t, SPT_FORMAT_BINSPARSE);
        check_roundtrip(t, SPT_FORMAT_BINSPARSE_CSR);
        check_roundtrip(t, SPT_FORMAT_BINSPARSE_CSC);
    }
    spt_tensor_free(t);
    return 0;
}
