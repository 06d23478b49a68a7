/* SPDX-License-Identifier: Apache-2.0 */
/* msd_plan.c -- the plan of the distributed MSD radix sort (internal.h; its steps are in
 * sort_packed.c, the sort itself in src/mpi/sort.c). */
#include "sort/msd.h"

spt_status spt__msd_plan(const char *fn, const spt_tensor *t, const int64_t *order, spt__msd **out) {
    spt_status st = SPT_OK;
    *out = NULL;
    const size_t es = spt_dtype_size(t->dtype);
    packing pk;
    if (t->dtype == SPT_STRING || es > 8 || t->rank < 1 || !spt__make_packing(t, order, &pk) || pk.bits > 64 ||
        pk.bits < 1)
        return SPT_OK;
    spt__msd *m = spt__calloc(1, sizeof *m);
    if (!m) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    m->pk = pk;
    m->rp.passes = 1;
    m->rp.digit = pk.bits < FAST_MAX_DIGIT ? pk.bits : FAST_MAX_DIGIT;
    m->rp.shift0 = pk.bits - m->rp.digit;
    m->rp.n = t->nnz;
    int nth = spt_get_num_threads();
    int64_t chunks = nth < 1 ? 1 : nth;
    if (chunks > FAST_MAX_CHUNKS) chunks = FAST_MAX_CHUNKS;
    if (chunks > t->nnz) chunks = t->nnz;
    if (chunks < 1) chunks = 1;
    m->rp.chunks = chunks;
    m->rp.chunk = (t->nnz + chunks - 1) / chunks;
    m->hist = spt__alloc_array(fn, chunks, (int64_t)1 << m->rp.digit, sizeof(int64_t), true, &st);
    if (!m->hist) {
        spt__free(m);
        return st;
    }
    *out = m;
    return SPT_OK;
}

void spt__msd_free(spt__msd *m) {
    if (!m) return;
    spt__free(m->hist);
    spt__free(m->off);
    spt__free(m->ts);
    spt__free(m->hs);
    spt__free(m);
}

int spt__msd_digit(const spt__msd *m) { return m->rp.digit; }
