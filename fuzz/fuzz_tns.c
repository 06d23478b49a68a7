/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_tns.c -- the FROSTT .tns parser (spt_parse_tns) on arbitrary text with decoded read options;
 * a parsed tensor must satisfy the invariants and survive spt_write_tns + spt_read_tns unchanged
 * (indices, shape, dtype, nnz; values bitwise except NaN payloads). */
#include "fz.h"
#include "fz_file.h"

#include <string.h>

/* The ops this harness reaches (one action: the bytes are the file). */
FZ_ALSO(FZ_OP(spt_parse_tns), FZ_OP(spt_read_tns), FZ_OP(spt_write_tns));

static bool has_nan(const spt_tensor *t) {
    spt_dtype dt = spt_tensor_dtype(t);
    int64_t n = spt_tensor_nnz(t);
    if (dt == SPT_FLOAT32) {
        for (int64_t i = 0; i < n; i++)
            if (((const float *)spt_tensor_values(t))[i] != ((const float *)spt_tensor_values(t))[i]) return true;
    } else if (dt == SPT_FLOAT64 || dt == SPT_COMPLEX128) {
        int64_t m = dt == SPT_COMPLEX128 ? 2 * n : n;
        for (int64_t i = 0; i < m; i++)
            if (((const double *)spt_tensor_values(t))[i] != ((const double *)spt_tensor_values(t))[i]) return true;
    } else if (dt == SPT_COMPLEX64) {
        for (int64_t i = 0; i < 2 * n; i++)
            if (((const float *)spt_tensor_values(t))[i] != ((const float *)spt_tensor_values(t))[i]) return true;
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    uint8_t m = fz_u8(&in);
    spt_read_opts opts = {0};
    int64_t shape[8];
    if (m & 1) {
        opts.has_dtype = true;
        opts.dtype = (spt_dtype)(fz_u8(&in) % SPT_NUM_DTYPES);
    }
    if (m & 2) {
        opts.rank = fz_u8(&in) % 5;
        if (m & 4) opts.rank = fz_int(&in, 4);
        for (int64_t d = 0; d < 8; d++) shape[d] = fz_int(&in, 6);
        if (opts.rank > 8) opts.rank = 8;
        opts.shape = shape;
    }
    bool roundtrip = (m & 0x30) == 0x30;
    spt_tensor *t = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_parse_tns((const char *)in.p, in.n, "fuzz.tns", (m & 8) ? NULL : &opts, &t);
    fz_op_end();
    fz_check_status("spt_parse_tns", st, t);
    if (st != SPT_OK) return 0;
    fz_check_tensor("spt_parse_tns", t);
    if (roundtrip && spt_tensor_dtype(t) != SPT_STRING) {
        char path[256];
        fz_scratch(path, sizeof path, "rt", ".tns");
        st = spt_write_tns(t, path);
        fz_check_status("spt_write_tns", st, NULL);
        if (st != SPT_OK) fz_die("spt_write_tns", "cannot write a parsed tensor");
        spt_tensor *back = FZ_SENTINEL;
        st = spt_read_tns(path, NULL, &back);
        fz_check_status("spt_read_tns", st, back);
        if (st != SPT_OK) fz_die("spt_read_tns", "cannot read back what spt_write_tns wrote");
        fz_check_tensor("spt_read_tns", back);
        if (spt_tensor_dtype(back) != spt_tensor_dtype(t) || spt_tensor_rank(back) != spt_tensor_rank(t) ||
            spt_tensor_nnz(back) != spt_tensor_nnz(t))
            fz_die("tns round trip", "dtype, rank or nnz differ");
        int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
        if (memcmp(spt_tensor_shape(back), spt_tensor_shape(t), (size_t)r * 8) ||
            (n * r > 0 && memcmp(spt_tensor_indices(back), spt_tensor_indices(t), (size_t)(n * r) * 8)))
            fz_die("tns round trip", "shape or indices differ");
        if (!has_nan(t) && n &&
            memcmp(spt_tensor_values(back), spt_tensor_values(t), (size_t)n * spt_dtype_size(spt_tensor_dtype(t))))
            fz_die("tns round trip", "values differ");
        spt_tensor_free(back);
        remove(path);
    }
    spt_tensor_free(t);
    return 0;
}
