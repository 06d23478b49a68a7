/* SPDX-License-Identifier: Apache-2.0 */
/* dtype.c -- dtype names, sizes and kinds, generated from spt_dtypes.def. */
#include "core/internal.h"

#include <strings.h>

const unsigned char spt__zero_elem[16] = {0};

#define KIND_BOOL 1
#define KIND_INT 2
#define KIND_UINT 3
#define KIND_FLOAT 4
#define KIND_COMPLEX 5
#define KIND_STRING 6

static const struct {
    const char *name;
    size_t size;
    int kind;
} spt__dtypes[SPT_NUM_DTYPES] = {
#define X(e, name, ctype, kind) [e] = {name, sizeof(ctype), KIND_##kind},
#include "spt_dtypes.def"
#undef X
};

static int kind_of(spt_dtype d) { return (unsigned)d < SPT_NUM_DTYPES ? spt__dtypes[d].kind : 0; }

const char *spt_dtype_name(spt_dtype d) { return (unsigned)d < SPT_NUM_DTYPES ? spt__dtypes[d].name : NULL; }

size_t spt_dtype_size(spt_dtype d) { return (unsigned)d < SPT_NUM_DTYPES ? spt__dtypes[d].size : 0; }

bool spt_dtype_is_integer(spt_dtype d) { return kind_of(d) == KIND_INT || kind_of(d) == KIND_UINT; }
bool spt_dtype_is_float(spt_dtype d) { return kind_of(d) == KIND_FLOAT; }
bool spt_dtype_is_complex(spt_dtype d) { return kind_of(d) == KIND_COMPLEX; }
bool spt_dtype_is_numeric(spt_dtype d) {
    int k = kind_of(d);
    return k == KIND_INT || k == KIND_UINT || k == KIND_FLOAT || k == KIND_COMPLEX;
}

spt_status spt_dtype_from_name(const char *name, spt_dtype *out) {
    static const struct {
        const char *alias;
        spt_dtype d;
    } aliases[] = {{"double", SPT_FLOAT64}, {"float", SPT_FLOAT32}, {"int", SPT_INT64},   {"complex", SPT_COMPLEX128},
                   {"str", SPT_STRING},     {"bytes", SPT_STRING},  {"boolean", SPT_BOOL}};
    if (!name || !out) return spt__err(SPT_EINVAL, "spt_dtype_from_name: NULL argument");
    for (int d = 0; d < SPT_NUM_DTYPES; d++)
        if (strcasecmp(name, spt__dtypes[d].name) == 0) {
            *out = (spt_dtype)d;
            return SPT_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].d;
            return SPT_OK;
        }
    return spt__err(SPT_EDTYPE, "spt_dtype_from_name: unknown dtype '%.64s'", name);
}
