/* SPDX-License-Identifier: Apache-2.0 */
/* group.c -- SparseTensor::group(): runs of entries equal in the group dims. */
#include "core/internal.h"

struct spt_group_iter {
    const spt_tensor *t;
    int64_t ndims;
    int64_t pos;
    int64_t dims[SPT_MAX_RANK];
    int64_t key[SPT_MAX_RANK];
};

spt_status spt_group_begin(const spt_tensor *t, const int64_t *dims, int64_t ndims, spt_group_iter **out) {
    static const char fn[] = "spt_group_begin";
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!t || (ndims > 0 && !dims)) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (ndims < 0 || ndims > t->rank)
        return spt__err(SPT_EINVAL, "%s: %lld group dims for a rank-%lld tensor", fn, (long long)ndims,
                        (long long)t->rank);
    for (int64_t i = 0; i < ndims; i++) {
        if (dims[i] < 0 || dims[i] >= t->rank)
            return spt__err(SPT_ERANGE, "%s: group dim %lld is outside [0, %lld)", fn, (long long)dims[i],
                            (long long)t->rank);
        for (int64_t j = 0; j < i; j++)
            if (dims[j] == dims[i]) return spt__err(SPT_EINVAL, "%s: group dim %lld repeats", fn, (long long)dims[i]);
    }
    for (int64_t i = 0; i < ndims; i++)
        if (t->order[i] != dims[i]) {
            char a[SPT__IDXBUF], b[SPT__IDXBUF];
            spt__fmt_index(a, sizeof a, dims, ndims);
            spt__fmt_index(b, sizeof b, t->order, t->rank);
            return spt__err(SPT_EPRECONDITION,
                            "%s: the tensor's order %s does not start with the group dims %s; reorder it first", fn, b,
                            a);
        }
    spt_group_iter *it = spt__calloc(1, sizeof *it);
    if (!it) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    it->t = t;
    it->ndims = ndims;
    for (int64_t i = 0; i < ndims; i++) it->dims[i] = dims[i];
    *out = it;
    return SPT_OK;
}

bool spt_group_next(spt_group_iter *it, spt_group *g) {
    if (!it || !g) return false;
    const spt_tensor *t = it->t;
    const int64_t r = t->rank, n = t->nnz;
    if (it->pos >= n) return false;
    int64_t start = it->pos;
    const int64_t *first = t->indices + start * r;
    int64_t end = start + 1;
    for (; end < n; end++) {
        const int64_t *row = t->indices + end * r;
        int64_t k = 0;
        for (; k < it->ndims; k++)
            if (row[it->dims[k]] != first[it->dims[k]]) break;
        if (k < it->ndims) break;
    }
    for (int64_t k = 0; k < it->ndims; k++) it->key[k] = first[it->dims[k]];
    g->key = it->key;
    g->start = start;
    g->count = end - start;
    g->indices = first;
    g->values = (const char *)t->values + (size_t)start * spt_dtype_size(t->dtype);
    it->pos = end;
    return true;
}

void spt_group_end(spt_group_iter *it) { spt__free(it); }
