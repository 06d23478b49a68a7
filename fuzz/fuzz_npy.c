/* fuzz_npy.c -- the .npy parser (in memory, as spt_read_npy and the .npz reader use it) on arbitrary
 * bytes; a parsed array must be consistent and survive spt_write_npy + spt_read_npy (strings: up to
 * trailing NUL bytes, which .npy cannot keep). */
#include "fz.h"
#include "fz_file.h"
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

/* Open finding I1 (fuzz/open/npy/): a header whose text ends right after a key's ':' makes the
 * 'descr' branch read one byte past the header. With FZ_SKIP_OPEN such inputs are skipped. */
static bool open_i1(const uint8_t *p, size_t n) {
    if (n < 10 || memcmp(p, "\x93NUMPY", 6)) return false;
    size_t hs = p[6] == 1 ? 10 : 12, hl;
    if (n < hs) return false;
    hl = p[6] == 1 ? (size_t)p[8] | (size_t)p[9] << 8 : (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
    if (hl > n - hs) return false;
    size_t e = hs + hl;
    while (e > hs && (p[e - 1] == ' ' || (p[e - 1] >= 9 && p[e - 1] <= 13))) e--;
    return e > hs && p[e - 1] == ':';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    bool roundtrip = (fz_u8(&in) & 3) == 3;
    if (getenv("FZ_SKIP_OPEN") && open_i1(in.p, in.n)) return 0;
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
            memcmp(spt_dense_data(back), spt_dense_data(d), (size_t)spt_dense_size(d) * spt_dtype_size(spt_dense_dtype(d))))
            fz_die("npy round trip", "data differ");
        spt_dense_free(back);
        remove(path);
    }
    spt_dense_free(d);
    return 0;
}
