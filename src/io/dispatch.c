/* SPDX-License-Identifier: Apache-2.0 */
/* dispatch.c -- spt_read and spt_write: choose the format's reader or writer. */
#include "io.h"

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
    case SPT_FORMAT_NPY: {
        spt_dense *d = NULL;
        SPT__TRY(spt_read_npy(path, &d));
        spt_status st = spt_from_dense(d, NULL, out);
        spt_dense_free(d);
        return st;
    }
    case SPT_FORMAT_AUTO: break;
    }
    return spt__err(SPT_EINVAL, "%s: cannot tell the format of %s from its extension (use .tns, .mtx, .npy or .npz)",
                    fn, spt__display_name(path));
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
