/* SPDX-License-Identifier: Apache-2.0 */
/* conf_io.c -- what the conformance handlers of several io ops share (each handler lives in its
 * op's C test, under SPT_CONFORMANCE; declarations in conf.h). */
#include "conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

/* ---- files ---- */

int conf_hexval(int ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* The bytes of a {"text": "..."} or {"hex": "..."} value (malloc'd, *len). */
char *conf_bytes_of(const json_t *j, size_t *len) {
    const char *txt = json_string_value(json_object_get(j, "text"));
    const char *hex = json_string_value(json_object_get(j, "hex"));
    char *b;
    if (txt) {
        *len = json_string_length(json_object_get(j, "text"));
        b = malloc(*len + 1);
        if (b) memcpy(b, txt, *len);
        return b;
    }
    size_t n = hex ? strlen(hex) / 2 : 0;
    b = malloc(n + 1);
    if (!b) return NULL;
    for (size_t i = 0; i < n; i++) b[i] = (char)(conf_hexval(hex[2 * i]) << 4 | conf_hexval(hex[2 * i + 1]));
    *len = n;
    return b;
}

spt_read_opts conf_read_opts(const conf_case *c, int64_t *shape) {
    spt_read_opts o = {0};
    const char *dt = json_string_value(conf_arg(c, "dtype"));
    if (dt && spt_dtype_from_name(dt, &o.dtype) == SPT_OK) o.has_dtype = true;
    long n = conf_ints(conf_arg(c, "shape"), shape, SPT_MAX_RANK);
    if (n >= 0) {
        o.rank = n;
        o.shape = shape;
    }
    return o;
}
