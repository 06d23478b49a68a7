/* SPDX-License-Identifier: Apache-2.0 */
/* dispatch.c -- spt_read and spt_write: choose the format's reader or writer. */
#include "io.h"

/* The format a content's first bytes announce (binary magics and the Matrix Market banner). */
static spt_format sniff(const char *p, size_t len) {
    spt__skip_bom(&p, &len);
    if (len >= 6 && !memcmp(p, "\x93NUMPY", 6)) return SPT_FORMAT_NPY;
    if (len >= 4 && (!memcmp(p, "PK\x03\x04", 4) || !memcmp(p, "PK\x05\x06", 4))) return SPT_FORMAT_NPZ;
    if (len >= 14 && !memcmp(p, "%%MatrixMarket", 14)) return SPT_FORMAT_MTX;
    return SPT_FORMAT_AUTO;
}

/* The tensor in bytes of a known format (from a regular file, a tar member or a spooled stream). */
static spt_status from_bytes(const spt__file *f, spt_format format, const spt_read_opts *opts, int base,
                             spt_tensor **out) {
    spt_status st;
    spt_dense *d = NULL;
    switch (format) {
    case SPT_FORMAT_TNS: return spt__tns_from_bytes(f->data, f->len, f->name, opts, base, out);
    case SPT_FORMAT_MTX: return spt__mtx_from_bytes("spt_read_mtx", f->name, f->data, f->len, opts, out);
    case SPT_FORMAT_NPY:
        st = spt__npy_parse("spt_read_npy", f->name, f->data, f->len, &d);
        if (st == SPT_OK) st = spt_from_dense(d, NULL, out);
        spt_dense_free(d);
        return st;
    default: return spt__npz_from_bytes("spt_read_npz", f->name, f->data, f->len, out);
    }
}

static spt_status unknown(const char *fn, const char *name) {
    return spt__err(SPT_EINVAL,
                    "%s: cannot tell the format of %s from its name or its first bytes (use .tns, .mtx, .npy or .npz)",
                    fn, name);
}

/* A name that does not tell the format (stdin, an archive, a compressed file without the inner
 * extension, no extension): the tar member's name, else the first decoded bytes decide. Text is parsed
 * as it arrives; a binary stream is spooled to a temporary file (an .npz's directory is at its end).
 * stdin's text without a Matrix Market banner is .tns; another input's is refused (no magic). */
static spt_status read_by_content(const char *fn, const char *path, const spt_read_opts *opts, int base,
                                  spt_tensor **out) {
    static const spt_read_opts none = {0};
    spt__stream s;
    spt__file f;
    bool loaded;
    const bool text_is_tns = !strcmp(path, "-");
    SPT__TRY(spt__stream_open(fn, path, &s, &f, &loaded));
    spt_status st;
    if (loaded) { /* a regular uncompressed file (mapped) or a tar member */
        spt_format format = f.member ? spt_format_from_path(f.member) : SPT_FORMAT_AUTO;
        if (format == SPT_FORMAT_AUTO) format = sniff(f.data, f.len);
        if (format == SPT_FORMAT_AUTO && text_is_tns) format = SPT_FORMAT_TNS;
        st = format == SPT_FORMAT_AUTO ? unknown(fn, f.name) : from_bytes(&f, format, opts, base, out);
        spt__file_release(&f);
        return st;
    }
    const char *head;
    size_t hlen;
    st = spt__stream_peek(fn, &s, 32, &head, &hlen);
    const spt_format format = st == SPT_OK ? sniff(head, hlen) : SPT_FORMAT_AUTO;
    if (st == SPT_OK) {
        if (format == SPT_FORMAT_MTX) st = spt__mtx_stream("spt_read_mtx", &s, opts, out);
        else if (format == SPT_FORMAT_AUTO && text_is_tns)
            st = spt__tns_stream("spt_read_tns", &s, opts ? opts : &none, base, out);
        else if (format == SPT_FORMAT_AUTO) st = unknown(fn, s.name);
        else if ((st = spt__stream_spool(fn, &s, &f)) == SPT_OK) { /* zip, .npy: whole, from a file */
            st = from_bytes(&f, format, opts, base, out);
            spt__file_release(&f);
        }
    }
    spt__stream_close(&s);
    return st;
}

spt_status spt_read_base(const char *path, spt_format format, const spt_read_opts *opts, int index_base,
                         spt_tensor **out) {
    static const char fn[] = "spt_read";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!path) return spt__err(SPT_EINVAL, "%s: path is NULL", fn);
    if (index_base != 0 && index_base != 1)
        return spt__err(SPT_EINVAL, "%s: the index base must be 0 or 1, not %d", fn, index_base);
    if (format == SPT_FORMAT_AUTO) format = spt_format_from_path(path);
    switch (format) {
    case SPT_FORMAT_TNS: return spt_read_tns_base(path, opts, index_base, out);
    case SPT_FORMAT_MTX: return spt_read_mtx(path, opts, out);
    case SPT_FORMAT_NPZ:
    case SPT_FORMAT_NPZ_SCIPY_COO:
    case SPT_FORMAT_NPZ_SCIPY_CSR: return spt_read_npz(path, opts, out);
    case SPT_FORMAT_BINSPARSE:
    case SPT_FORMAT_BINSPARSE_CSR:
    case SPT_FORMAT_BINSPARSE_CSC: {
        spt__file f;
        SPT__TRY(spt__file_load_spooled(fn, path, "PK", 2, "zip (binsparse .npz)", &f));
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
    return read_by_content(fn, path, opts, index_base, out);
}

spt_status spt_read(const char *path, spt_format format, const spt_read_opts *opts, spt_tensor **out) {
    return spt_read_base(path, format, opts, 1, out);
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
