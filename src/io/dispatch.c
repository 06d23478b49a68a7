/* SPDX-License-Identifier: Apache-2.0 */
/* dispatch.c -- spt_read and spt_write: choose the format's reader or writer. */
#include "io.h"

/* The format a content's first bytes announce (binary magics and the Matrix Market banner). */
static spt_format sniff(const char *p, size_t len) {
    if (len >= 6 && !memcmp(p, "\x93NUMPY", 6)) return SPT_FORMAT_NPY;
    if (len >= 4 && (!memcmp(p, "PK\x03\x04", 4) || !memcmp(p, "PK\x05\x06", 4))) return SPT_FORMAT_NPZ;
    if (len >= 14 && !memcmp(p, "%%MatrixMarket", 14)) return SPT_FORMAT_MTX;
    return SPT_FORMAT_AUTO;
}

/* A name that does not tell the format (an archive, a compressed file without the inner extension,
 * no extension): load and decode it, then go by the tar member's name or the content. */
static spt_status read_by_content(const char *fn, const char *path, const spt_read_opts *opts, spt_tensor **out) {
    spt__file f;
    /* a stream is spooled to a temporary file (an .npz's directory is at its end), not gathered in memory */
    SPT__TRY(spt__file_load_spooled(fn, path, NULL, 0, NULL, &f));
    spt_format format = f.member ? spt_format_from_path(f.member) : SPT_FORMAT_AUTO;
    if (format == SPT_FORMAT_AUTO) format = sniff(f.data, f.len);
    spt_status st;
    spt_dense *d = NULL;
    switch (format) {
    case SPT_FORMAT_TNS: st = spt__tns_from_bytes(f.data, f.len, f.name, opts, 1, out); break;
    case SPT_FORMAT_MTX: st = spt__mtx_from_bytes("spt_read_mtx", f.name, f.data, f.len, opts, out); break;
    case SPT_FORMAT_NPY:
        st = spt__npy_parse("spt_read_npy", f.name, f.data, f.len, &d);
        if (st == SPT_OK) st = spt_from_dense(d, NULL, out);
        spt_dense_free(d);
        break;
    case SPT_FORMAT_AUTO:
        st =
            spt__err(SPT_EINVAL,
                     "%s: cannot tell the format of %s from its name or its first bytes (use .tns, .mtx, .npy or .npz)",
                     fn, f.name);
        break;
    default: st = spt__npz_from_bytes("spt_read_npz", f.name, f.data, f.len, out); break;
    }
    spt__file_release(&f);
    return st;
}

spt_status spt_read(const char *path, spt_format format, const spt_read_opts *opts, spt_tensor **out) {
    static const char fn[] = "spt_read";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    if (format == SPT_FORMAT_AUTO) format = spt_format_from_path(path);
    switch (format) {
    case SPT_FORMAT_TNS: return spt_read_tns(path, opts, out);
    case SPT_FORMAT_MTX: return spt_read_mtx(path, opts, out);
    case SPT_FORMAT_NPZ:
    case SPT_FORMAT_NPZ_SCIPY_COO:
    case SPT_FORMAT_NPZ_SCIPY_CSR: return spt_read_npz(path, opts, out);
    case SPT_FORMAT_BINSPARSE:
    case SPT_FORMAT_BINSPARSE_CSR:
    case SPT_FORMAT_BINSPARSE_CSC: {
        spt__file f;
        SPT__TRY(spt__file_load_magic(fn, path, "PK", 2, "zip (binsparse .npz)", &f));
        spt_status st = spt__binsparse_from_bytes(fn, f.name, f.data, f.len, out);
        spt__file_release(&f);
        return st;
    }
    case SPT_FORMAT_NPY: {
        spt_dense *d = NULL;
        SPT__TRY(spt_read_npy(path, &d));
        spt_status st = spt_from_dense(d, NULL, out);
        spt_dense_free(d);
        return st;
    }
    case SPT_FORMAT_AUTO: break;
    }
    return read_by_content(fn, path, opts, out);
}

spt_status spt_write(const spt_tensor *t, const char *path, spt_format format) {
    static const char fn[] = "spt_write";
    if (!t || !path) return spt__err(SPT_EINVAL, "%s: NULL tensor or path", fn);
    if (format == SPT_FORMAT_AUTO) format = spt_format_from_path(path);
    switch (format) {
    case SPT_FORMAT_TNS: return spt_write_tns(t, path);
    case SPT_FORMAT_MTX: return spt_write_mtx(t, path);
    case SPT_FORMAT_NPZ:
    case SPT_FORMAT_NPZ_SCIPY_COO:
    case SPT_FORMAT_NPZ_SCIPY_CSR: return spt_write_npz(t, path, format);
    case SPT_FORMAT_BINSPARSE:
    case SPT_FORMAT_BINSPARSE_CSR:
    case SPT_FORMAT_BINSPARSE_CSC: return spt__write_binsparse(fn, t, path, format);
    case SPT_FORMAT_NPY: {
        spt_dense *d = NULL;
        SPT__TRY(spt_to_dense(t, NULL, false, &d));
        spt_status st = spt_write_npy(d, path);
        spt_dense_free(d);
        return st;
    }
    case SPT_FORMAT_AUTO: break;
    }
    return spt__err(SPT_EINVAL, "%s: cannot tell the format of %s from its extension (use .tns, .mtx, .npy or .npz)",
                    fn, path);
}
