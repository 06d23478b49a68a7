/* SPDX-License-Identifier: Apache-2.0 */
/* error.c -- status names, the thread-local last-error message. */
#include "core/internal.h"

#include <stdio.h>

static _Thread_local char spt__msg[1024];

const char *spt_status_name(spt_status s) {
    switch (s) {
#define X(e, v, name, desc) case e: return name;
#include "spt_status.def"
#undef X
    }
    return "UNKNOWN";
}

const char *spt_strerror(spt_status s) {
    switch (s) {
#define X(e, v, name, desc) case e: return desc;
#include "spt_status.def"
#undef X
    }
    return "unknown status";
}

const char *spt_last_error(void) { return spt__msg; }

void spt_clear_error(void) { spt__msg[0] = '\0'; }

spt_status spt__err(spt_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(spt__msg, sizeof spt__msg, fmt, ap);
    va_end(ap);
    return st;
}

void spt__fmt_index(char *buf, size_t cap, const int64_t *v, int64_t n) {
    size_t len = 0;
    if (cap == 0) return;
    buf[0] = '\0';
    len += (size_t)snprintf(buf + len, cap - len, "[");
    for (int64_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, i ? ",%lld" : "%lld", (long long)v[i]);
    if (len < cap) snprintf(buf + len, cap - len, "]");
}
