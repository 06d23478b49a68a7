/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_npy.c -- the .npy parser (in memory, as spt_read_npy and the .npz reader use it) on arbitrary
 * bytes; a parsed array must be consistent and survive spt_write_npy + spt_read_npy (strings: up to
 * trailing NUL bytes, which .npy cannot keep). */
#include "fz.h"
#include "fz_file.h"
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

/* The ops this harness reaches (one action: the bytes are the file). */
FZ_ALSO(FZ_OP(spt_read_npy), FZ_OP(spt_write_npy));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    bool roundtrip = (fz_u8(&in) & 3) == 3;
    spt_dense *d = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt__npy_parse("spt_read_npy", "fuzz.npy", (const char *)in.p, in.n, &d);
    fz_op_end();
    fz_check_status("spt_read_npy", st, d);
    if (st != SPT_OK) return 0;
    fz_check_dense("spt_read_npy", d);
    if (roundtrip) {
        char path[256];
        fz_scratch(path, sizeof path, "rt", ".npy");
        st = spt_write_npy(d, path);
        fz_check_status("spt_write_npy", st, NULL);
        if (st != SPT_OK) fz_die("spt_write_npy", "cannot write a parsed array");
        spt_dense *back = FZ_SENTINEL;
        st = spt_read_npy(path, &back);
        fz_check_status("spt_read_npy", st, back);
        if (st != SPT_OK) fz_die("spt_read_npy", "cannot read back what spt_write_npy wrote");
        fz_check_dense("spt_read_npy", back);
        if (spt_dense_dtype(back) != spt_dense_dtype(d) || spt_dense_rank(back) != spt_dense_rank(d) ||
            memcmp(spt_dense_shape(back), spt_dense_shape(d), (size_t)spt_dense_rank(d) * 8))
            fz_die("npy round trip", "dtype or shape differ");
        if (spt_dense_dtype(d) != SPT_STRING && spt_dense_size(d) > 0 &&
            memcmp(spt_dense_data(back), spt_dense_data(d),
                   (size_t)spt_dense_size(d) * spt_dtype_size(spt_dense_dtype(d))))
            fz_die("npy round trip", "data differ");
        spt_dense_free(back);
        remove(path);
    }
    spt_dense_free(d);
    return 0;
}
