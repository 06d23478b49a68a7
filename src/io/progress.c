/* SPDX-License-Identifier: Apache-2.0 */
/* progress.c -- the calling thread's read- and write-progress callbacks. */
#include "io.h"

/* initial-exec: in a dlopen'ed libspt.so a dynamic TLS variable is allocated on a thread's first use,
 * and the C library ends the process when that allocation fails (these 16 bytes fit the static
 * reserve the C library keeps for libraries loaded later) */
static __thread spt_progress_fn progress_fn __attribute__((tls_model("initial-exec")));
static __thread void *progress_ctx __attribute__((tls_model("initial-exec")));
static __thread spt_progress_fn wprogress_fn __attribute__((tls_model("initial-exec")));
static __thread void *wprogress_ctx __attribute__((tls_model("initial-exec")));

void spt_set_read_progress(spt_progress_fn fn, void *ctx) {
    progress_fn = fn;
    progress_ctx = fn ? ctx : NULL;
}

void spt__read_progress(spt_progress_fn *fn, void **ctx) {
    *fn = progress_fn;
    *ctx = progress_ctx;
}

void spt_set_write_progress(spt_progress_fn fn, void *ctx) {
    wprogress_fn = fn;
    wprogress_ctx = fn ? ctx : NULL;
}

void spt__write_progress(spt_progress_fn *fn, void **ctx) {
    *fn = wprogress_fn;
    *ctx = wprogress_ctx;
}
