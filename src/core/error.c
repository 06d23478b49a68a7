/* SPDX-License-Identifier: Apache-2.0 */
/* error.c -- status names, the thread-local last-error message. */
#include "core/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The last-error message of each thread lives in a buffer the thread gets on its first error, found
 * through a pthread key, freed when the thread ends. Not _Thread_local: in a dlopen'ed libspt.so (the
 * Python package) that is dynamic TLS, which the C library allocates on a thread's first use and
 * ends the process when it cannot. Here a failed allocation only loses the text: the thread's
 * message is then the fixed NOMEM_MSG (the status returned is unchanged). */
#define MSG_CAP 1024
static const char NOMEM_MSG[] = "out of memory (the error message could not be stored)";
static pthread_key_t spt__msg_key;
static pthread_once_t spt__msg_once = PTHREAD_ONCE_INIT;
static int spt__msg_key_ok;

static void msg_free(void *b) {
    if (b != (void *)NOMEM_MSG) free(b);
}

static void msg_key_init(void) { spt__msg_key_ok = pthread_key_create(&spt__msg_key, msg_free) == 0; }

/* this thread's buffer, or NOMEM_MSG (its allocation failed; a key's first slots need no allocation),
 * or NULL (no error yet). create: allocate it when missing or lost (NULL when that fails) */
static char *msg_buf(bool create) {
    pthread_once(&spt__msg_once, msg_key_init);
    if (!spt__msg_key_ok) return create ? NULL : (char *)NOMEM_MSG;
    char *b = pthread_getspecific(spt__msg_key);
    if ((!b || b == NOMEM_MSG) && create) {
        /* the C library's malloc, not spt__malloc: a replaced allocator failing on purpose must not
         * turn every message into NOMEM_MSG */
        char *nb = malloc(MSG_CAP);
        if (nb && pthread_setspecific(spt__msg_key, nb) != 0) {
            free(nb);
            nb = NULL;
        }
        if (!nb) {
            pthread_setspecific(spt__msg_key, (void *)NOMEM_MSG);
            return NULL;
        }
        nb[0] = '\0';
        b = nb;
    }
    return b;
}

const char *spt_status_name(spt_status s) {
    switch (s) {
#define X(e, v, name, desc)                                                                                            \
    case e:                                                                                                            \
        return name;
#include "spt_status.def"
#undef X
    }
    return "UNKNOWN";
}

const char *spt_strerror(spt_status s) {
    switch (s) {
#define X(e, v, name, desc)                                                                                            \
    case e:                                                                                                            \
        return desc;
#include "spt_status.def"
#undef X
    }
    return "unknown status";
}

const char *spt_last_error(void) {
    const char *b = msg_buf(false);
    return b ? b : "";
}

void spt_clear_error(void) {
    char *b = msg_buf(false);
    if (b && b != NOMEM_MSG) b[0] = '\0';
    else if (b && spt__msg_key_ok) pthread_setspecific(spt__msg_key, NULL);
}

spt_status spt__err(spt_status st, const char *fmt, ...) {
    char *b = msg_buf(true);
    if (!b) return st;
    /* the arguments may point into b itself (a message reworded from spt_last_error()) */
    char tmp[MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    memcpy(b, tmp, MSG_CAP);
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
