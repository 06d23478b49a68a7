/* SPDX-License-Identifier: Apache-2.0 */
/* format.c -- format names: from a path's extension, from a name, to a name. */
#include "io.h"

#include <strings.h>

static const struct {
    const char *name;
    spt_format f;
} format_names[] = {{"tns", SPT_FORMAT_TNS},
                    {"frostt", SPT_FORMAT_TNS},
                    {"mtx", SPT_FORMAT_MTX},
                    {"mm", SPT_FORMAT_MTX},
                    {"npy", SPT_FORMAT_NPY},
                    {"npz", SPT_FORMAT_NPZ},
                    {"npz-scipy-coo", SPT_FORMAT_NPZ_SCIPY_COO},
                    {"scipy-coo", SPT_FORMAT_NPZ_SCIPY_COO},
                    {"npz-scipy-csr", SPT_FORMAT_NPZ_SCIPY_CSR},
                    {"scipy-csr", SPT_FORMAT_NPZ_SCIPY_CSR},
                    {"binsparse", SPT_FORMAT_BINSPARSE},
                    {"bsp", SPT_FORMAT_BINSPARSE},
                    {"binsparse-coo", SPT_FORMAT_BINSPARSE},
                    {"binsparse-csr", SPT_FORMAT_BINSPARSE_CSR},
                    {"binsparse-csc", SPT_FORMAT_BINSPARSE_CSC}};

/* The extension before `end` (after the last '.' of the last path component), or NULL. */
static const char *ext_before(const char *path, const char *end) {
    for (const char *p = end; p > path; p--) {
        if (p[-1] == '/') return NULL;
        if (p[-1] == '.') return p;
    }
    return NULL;
}

static bool ext_is(const char *ext, const char *end, const char *w) {
    size_t n = strlen(w);
    return (size_t)(end - ext) == n && !strncasecmp(ext, w, n);
}

spt_format spt_format_from_path(const char *path) {
    if (!path) return SPT_FORMAT_AUTO;
    const char *end = path + strlen(path), *dot = ext_before(path, end);
    if (!dot) return SPT_FORMAT_AUTO;
    /* a compression suffix names the format of what it holds: x.tns.gz is a .tns */
    if (ext_is(dot, end, "gz") || ext_is(dot, end, "bz2") || ext_is(dot, end, "xz") || ext_is(dot, end, "zst")) {
        end = dot - 1;
        if (!(dot = ext_before(path, end))) return SPT_FORMAT_AUTO;
    }
    if (ext_is(dot, end, "tns")) return SPT_FORMAT_TNS;
    if (ext_is(dot, end, "mtx")) return SPT_FORMAT_MTX;
    if (ext_is(dot, end, "npy")) return SPT_FORMAT_NPY;
    if (ext_is(dot, end, "npz")) { /* NAME.bsp.npz: binsparse */
        const char *inner = dot - 1 > path ? ext_before(path, dot - 1) : NULL;
        return inner && ext_is(inner, dot - 1, "bsp") ? SPT_FORMAT_BINSPARSE : SPT_FORMAT_NPZ;
    }
    return SPT_FORMAT_AUTO;
}

spt_status spt_format_from_name(const char *name, spt_format *out) {
    if (!out) return spt__err(SPT_EINVAL, "spt_format_from_name: out is NULL");
    *out = SPT_FORMAT_AUTO;
    if (!name) return spt__err(SPT_EINVAL, "spt_format_from_name: name is NULL");
    for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++)
        if (!strcasecmp(name, format_names[i].name)) {
            *out = format_names[i].f;
            return SPT_OK;
        }
    return spt__err(SPT_EINVAL,
                    "spt_format_from_name: unknown format '%s' (tns, mtx, npy, npz, npz-scipy-coo, npz-scipy-csr, "
                    "binsparse, binsparse-csr, binsparse-csc)",
                    name);
}

const char *spt_format_name(spt_format f) {
    switch (f) {
    case SPT_FORMAT_AUTO: return "auto";
    case SPT_FORMAT_TNS: return "tns";
    case SPT_FORMAT_MTX: return "mtx";
    case SPT_FORMAT_NPY: return "npy";
    case SPT_FORMAT_NPZ: return "npz";
    case SPT_FORMAT_NPZ_SCIPY_COO: return "npz-scipy-coo";
    case SPT_FORMAT_NPZ_SCIPY_CSR: return "npz-scipy-csr";
    case SPT_FORMAT_BINSPARSE: return "binsparse";
    case SPT_FORMAT_BINSPARSE_CSR: return "binsparse-csr";
    case SPT_FORMAT_BINSPARSE_CSC: return "binsparse-csc";
    }
    return "unknown";
}
