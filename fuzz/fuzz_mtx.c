/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_mtx.c -- the Matrix Market readers (spt_read_mtx, spt_read_mtx_dense) on arbitrary text with
 * decoded options; results must be consistent, and a coordinate result must survive spt_write_mtx +
 * spt_read_mtx (indices and shape exactly). */
#include "fz.h"
#include "fz_file.h"

#include <stdlib.h>
#include <string.h>

/* The ops this harness reaches (one action: the bytes are the file). */
FZ_ALSO(FZ_OP(spt_read_mtx), FZ_OP(spt_read_mtx_dense), FZ_OP(spt_write_mtx));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    uint8_t m = fz_u8(&in);
    spt_read_opts opts = {0};
    if (m & 1) {
        opts.has_dtype = true;
        opts.dtype = (spt_dtype)(fz_u8(&in) % SPT_NUM_DTYPES);
    }
    char path[256];
    fz_scratch(path, sizeof path, "in", ".mtx");
    fz_write_file(path, in.p, in.n);
    spt_status st;
    if (m & 2) {
        spt_dense *d = FZ_SENTINEL;
        fz_op_begin();
        st = spt_read_mtx_dense(path, &opts, &d);
        fz_op_end();
        fz_check_status("spt_read_mtx_dense", st, d);
        if (st == SPT_OK) {
            fz_check_dense("spt_read_mtx_dense", d);
            if (spt_dense_rank(d) != 2) fz_die("spt_read_mtx_dense", "not a matrix");
            spt_dense_free(d);
        }
        return 0;
    }
    spt_tensor *t = FZ_SENTINEL;
    fz_op_begin();
    st = spt_read_mtx(path, &opts, &t);
    fz_op_end();
    fz_check_status("spt_read_mtx", st, t);
    if (st != SPT_OK) return 0;
    fz_check_tensor("spt_read_mtx", t);
    if (spt_tensor_rank(t) != 2) fz_die("spt_read_mtx", "not rank 2");
    if ((m & 0x30) == 0x30 && spt_tensor_dtype(t) != SPT_STRING) {
        char out[256];
        fz_scratch(out, sizeof out, "rt", ".mtx");
        st = spt_write_mtx(t, out);
        fz_check_status("spt_write_mtx", st, NULL);
        if (st != SPT_OK) fz_die("spt_write_mtx", "cannot write a parsed matrix");
        spt_tensor *back = FZ_SENTINEL;
        spt_read_opts o2 = {.has_dtype = true, .dtype = spt_tensor_dtype(t)};
        st = spt_read_mtx(out, &o2, &back);
        fz_check_status("spt_read_mtx", st, back);
        if (st != SPT_OK) fz_die("spt_read_mtx", "cannot read back what spt_write_mtx wrote");
        fz_check_tensor("spt_read_mtx", back);
        int64_t n = spt_tensor_nnz(t);
        if (spt_tensor_nnz(back) != n || memcmp(spt_tensor_shape(back), spt_tensor_shape(t), 16) ||
            (n && memcmp(spt_tensor_indices(back), spt_tensor_indices(t), (size_t)n * 16)))
            fz_die("mtx round trip", "shape or indices differ");
        spt_tensor_free(back);
        remove(out);
    }
    spt_tensor_free(t);
    return 0;
}
