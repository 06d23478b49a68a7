/* SPDX-License-Identifier: Apache-2.0 */
/* progress.c -- the calling thread's read-progress callback. */
#include "io.h"

static __thread spt_progress_fn progress_fn;
static __thread void *progress_ctx;

void spt_set_read_progress(spt_progress_fn fn, void *ctx) {
    progress_fn = fn;
    progress_ctx = fn ? ctx : NULL;
}

void spt__read_progress(spt_progress_fn *fn, void **ctx) {
    *fn = progress_fn;
    *ctx = progress_ctx;
}
