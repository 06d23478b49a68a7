/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_npz.c -- the .npz reader (spt_read_npz: pydata/sparse and SciPy coo/csr/csc) on archives
 * built from the fuzz input: each member gets a name from the set the reader looks for (or another)
 * and either a well-formed .npy image of a decoded dtype, shape and data, or raw bytes. With the mode
 * bit set the whole input is written as the file instead (libzip's and the reader's handling of
 * malformed archives). A tensor read must satisfy the invariants and survive spt_write_npz in the
 * pydata flavour (and SciPy COO/CSR for rank 2) + spt_read_npz. */
#include "fz.h"
#include "fz_file.h"
#include "io/io.h"

#include <string.h>
#include <zip.h>

/* The ops this harness reaches (one action: the bytes are the file). */
FZ_ALSO(FZ_OP(spt_read_npz), FZ_OP(spt_write_npz), FZ_OP(spt_write_npz_level));

static const char *const names[] = {"coords.npy", "data.npy",    "shape.npy",  "fill_value.npy", "row.npy",
                                    "col.npy",    "indices.npy", "indptr.npy", "format.npy",     "other.npy"};

/* Build a .npy image from the input: dtype, rank, dims, then the data. */
static char *npy_member(fz_in *in, size_t *len) {
    int dt = fz_u8(in) % SPT_NUM_DTYPES;
    if (fz_u8(in) < 128) dt = SPT_INT64;
    int64_t rank = fz_u8(in) % 3, shape[2];
    int64_t vol = 1;
    for (int64_t k = 0; k < rank; k++) {
        shape[k] = fz_u8(in) % 9;
        vol *= shape[k];
    }
    size_t es = spt_dtype_size((spt_dtype)dt);
    char *vals = calloc((size_t)vol + 1, es);
    char sb[64][4];
    if (!vals) abort();
    if (dt == SPT_STRING) {
        spt_str *s = (spt_str *)vals;
        for (int64_t i = 0; i < vol; i++) {
            uint8_t k = fz_u8(in) % 4;
            if (k == 3) { /* one of the format names */
                static const char *f[] = {"coo", "csr", "csc", "bsr"};
                memcpy(sb[i % 64], f[fz_u8(in) % 4], 3);
                s[i].data = sb[i % 64];
                s[i].len = 3;
            } else {
                fz_bytes(in, sb[i % 64], k);
                s[i].data = sb[i % 64];
                s[i].len = k;
            }
        }
    } else if (spt_dtype_is_integer((spt_dtype)dt)) {
        for (int64_t i = 0; i < vol; i++) {
            int64_t v = fz_int(in, 8);
            memcpy(vals + (size_t)i * es, &v, es);
        }
    } else {
        fz_bytes(in, vals, (size_t)vol * es);
        if (dt == SPT_BOOL)
            for (int64_t i = 0; i < vol; i++) vals[i] &= 1;
    }
    char *buf = NULL;
    spt_status st = spt__npy_build("fuzz", (spt_dtype)dt, rank, shape, vals, &buf, len);
    free(vals);
    if (st != SPT_OK) return NULL;
    /* copy into a libc buffer the archive can own */
    char *copy = malloc(*len + 1);
    if (!copy) abort();
    memcpy(copy, buf, *len);
    spt__free(buf); /* spt__npy_build allocates through spt's allocator */
    return copy;
}

static void check_roundtrip(const spt_tensor *t, spt_format flavour, int level) {
    /* a CSR indptr has one element per row, as the format says: a tiny tensor with 2^31 rows asks for 16 GB
     * honestly; only shapes whose indptr fits the fuzzer's memory are written as CSR */
    if (flavour == SPT_FORMAT_NPZ_SCIPY_CSR && spt_tensor_rank(t) == 2 && spt_tensor_shape(t)[0] > (1 << 24)) return;
    char out[256];
    fz_scratch(out, sizeof out, "rt", ".npz");
    spt_status st = spt_write_npz_level(t, out, flavour, level); /* level 0: stored, read back in place */
    fz_check_status("spt_write_npz", st, NULL);
    if (st != SPT_OK) {
        if (st == SPT_EDTYPE || st == SPT_EINVAL) return; /* a dtype or rank the flavour cannot hold */
        /* a CSR indptr has one element per row: a shape of 2^62 rows is an honest overflow, not a bug */
        if (flavour == SPT_FORMAT_NPZ_SCIPY_CSR && (st == SPT_EOVERFLOW || st == SPT_ENOMEM)) return;
        fz_die("spt_write_npz", "cannot write a tensor that was read");
    }
    spt_tensor *back = FZ_SENTINEL;
    st = spt_read_npz(out, NULL, &back);
    fz_check_status("spt_read_npz", st, back);
    if (st != SPT_OK) fz_die("spt_read_npz", "cannot read back what spt_write_npz wrote");
    fz_check_tensor("spt_read_npz", back);
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    if (spt_tensor_rank(back) != r || spt_tensor_nnz(back) != n ||
        memcmp(spt_tensor_shape(back), spt_tensor_shape(t), (size_t)r * 8))
        fz_die("npz round trip", "rank, nnz or shape differ");
    if (flavour != SPT_FORMAT_NPZ_SCIPY_CSR && n * r > 0 &&
        memcmp(spt_tensor_indices(back), spt_tensor_indices(t), (size_t)(n * r) * 8))
        fz_die("npz round trip", "indices differ");
    spt_tensor_free(back);
    remove(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    uint8_t m = fz_u8(&in);
    char path[256];
    fz_scratch(path, sizeof path, "in", ".npz");
    if (m & 1) {
        fz_write_file(path, in.p, in.n);
    } else {
        int err = 0;
        zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
        if (!z) abort();
        int nm = fz_u8(&in) % 7;
        for (int i = 0; i < nm; i++) {
            const char *name = names[fz_u8(&in) % 10];
            size_t len = 0;
            char *buf;
            if (fz_u8(&in) < 220) {
                buf = npy_member(&in, &len);
                if (!buf) continue;
            } else {
                len = fz_u8(&in);
                buf = malloc(len + 1);
                if (!buf) abort();
                fz_bytes(&in, buf, len);
            }
            if (len == 0) { /* libzip does not take ownership of an empty buffer */
                free(buf);
                buf = NULL;
            }
            zip_source_t *src = zip_source_buffer(z, buf, len, buf != NULL);
            if (!src) abort();
            zip_int64_t idx = zip_file_add(z, name, src, ZIP_FL_OVERWRITE);
            if (idx < 0) {
                zip_source_free(src);
                continue;
            }
            if (m & 2) zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
        }
        if (zip_close(z) != 0) {
            zip_discard(z);
            return 0;
        }
        if (nm == 0) fz_write_file(path, "PK\005\006\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 22); /* empty archive */
    }
    spt_tensor *t = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_read_npz(path, NULL, &t);
    fz_op_end();
    fz_check_status("spt_read_npz", st, t);
    if (st != SPT_OK) return 0;
    fz_check_tensor("spt_read_npz", t);
    if ((m & 0x30) == 0x30) {
        const int level = m & 0x40 ? 0 : 1;
        check_roundtrip(t, SPT_FORMAT_NPZ, level);
        if (spt_tensor_rank(t) == 2) {
            check_roundtrip(t, SPT_FORMAT_NPZ_SCIPY_COO, level);
            check_roundtrip(t, SPT_FORMAT_NPZ_SCIPY_CSR, level);
        }
    }
    spt_tensor_free(t);
    return 0;
}
