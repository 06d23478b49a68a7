/* SPDX-License-Identifier: Apache-2.0 */
/* multiply.c -- spt_multiply: the elementwise product of two sparse tensors of one shape, whose result
 * holds the intersection of their patterns. Two canonical operands (merge_blocks.h) take the blocked merge
 * engine of spt_add, writing coinciding pairs only. Otherwise both operands' row-major keys are sorted
 * (one pass when already sorted), duplicates within an operand are summed, and the two key lists are
 * intersected in chunks of key ranges, one thread per chunk, each chunk counting then writing its own
 * output range. Both paths give the same bytes: a pair's value is (0 + x) * (0 + y) in each. */
#include "ops/elementwise/merge_blocks.h"
#include "ops/kernel.h"
#include "sort/keys.h"

#define OK(KIND) SPT__KINDS_NUMERIC(KIND)

typedef struct {
    const uint64_t *ka, *kb;
    const int64_t *pa, *pb;
    const void *va, *vb;
    const int64_t *ia;
    int64_t rank;
    int64_t *oi;
    void *ov;
} isect_ctx;

/* The intersection per dtype: template/isect.c. */
#define SPT__TEMPLATE "ops/elementwise/template/isect.c"
#include "ops/each_dtype.h"

/* The engine's block merge per dtype (template/merge_block.c): coinciding pairs only, the value as
 * template/isect.c computes it for a run of one entry on each side. */
#define MERGE_BOTH(x, y) SPT__KOP(MUL)(SPT__T, SPT__KOP(ADD)(SPT__T, (SPT__T)0, x), SPT__KOP(ADD)(SPT__T, (SPT__T)0, y))
#define MERGE_AONLY(x) (x)
#define MERGE_BONLY(y) (y)
#define MERGE_KEEP(s) ((void)(s), true)
#define MERGE_BLOCK_FN block
#define MERGE_IDENTITY 1
#define MERGE_VOP SPT__MB_V_NONE
#define MERGE_ISECT
#define SPT__TEMPLATE "ops/elementwise/template/merge_block.c"
#include "ops/each_dtype.h"

static const spt__mb_fn block_table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = block_##E, )
#include "spt_dtypes.def"
#undef X
};

typedef int64_t (*isect_fn)(const isect_ctx *, int64_t, int64_t, int64_t, int64_t, int64_t, bool);
static const isect_fn table[SPT_NUM_DTYPES] = {
#define X(E, name, T, KIND) SPT__WHEN(OK(KIND), [E] = isect_##E, )
#include "spt_dtypes.def"
#undef X
};

spt_status spt_multiply(const spt_tensor *a, const spt_tensor *b, spt_tensor **out) {
    static const char fn[] = "spt_multiply";
    spt_status st = SPT_OK;
    uint64_t *ka = NULL, *kb = NULL;
    int64_t *pa = NULL, *pb = NULL;
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    if (a->rank != b->rank) {
        char sa[SPT__IDXBUF], sb[SPT__IDXBUF];
        spt__fmt_index(sa, sizeof sa, a->shape, a->rank);
        spt__fmt_index(sb, sizeof sb, b->shape, b->rank);
        return spt__err(SPT_EINVAL, "%s: operands do not have the same rank; got shapes %s and %s", fn, sa, sb);
    }
    for (int64_t d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d])
            return spt__err(SPT_EINVAL, "%s: operands' shapes do not match: got %lld and %lld for dimension %lld", fn,
                            (long long)a->shape[d], (long long)b->shape[d], (long long)d);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: operand dtypes differ (%s and %s)", fn, spt_dtype_name(a->dtype),
                        spt_dtype_name(b->dtype));
    isect_fn f = table[a->dtype];
    if (!f) return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    if (spt__mb_eligible(a, b)) return spt__mb_isect(fn, a, b, block_table[a->dtype], out);
    bool ua, ub;
    SPT__CHECK(spt__sorted_keys2(fn, a, b, &ka, &kb, &pa, &pb, &ua, &ub)); /* comparable across a and b */
    const int64_t na = a->nnz, nb = b->nnz;
    int nch = spt__nchunks(na + nb, 4);
    int64_t alo[SPT__MAX_CHUNKS + 1], blo[SPT__MAX_CHUNKS + 1], cnt[SPT__MAX_CHUNKS + 1] = {0};
    /* chunk boundaries at keys of a; a key's entries never straddle two chunks */
    spt__chunks(na, nch, alo, spt__key_start, ka);
    for (int c = 0; c <= nch; c++) blo[c] = c == nch ? nb : alo[c] < na ? spt__key_lower_bound(kb, nb, ka[alo[c]]) : nb;
    blo[0] = 0;
    isect_ctx m = {ka, kb, pa, pb, a->values, b->values, a->indices, a->rank, NULL, NULL};
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) cnt[c] = f(&m, alo[c], alo[c + 1], blo[c], blo[c + 1], 0, false);
    int64_t base[SPT__MAX_CHUNKS + 1];
    base[0] = 0;
    for (int c = 0; c < nch; c++) base[c + 1] = base[c] + cnt[c];
    SPT__CHECK(spt__tensor_alloc_uninit(fn, a->dtype, a->rank, a->shape, base[nch], NULL, &o));
    m.oi = o->indices;
    m.ov = o->values;
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; c++) f(&m, alo[c], alo[c + 1], blo[c], blo[c + 1], base[c], true);
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    spt__free(ka);
    spt__free(kb);
    spt__free(pa);
    spt__free(pb);
    *out = o;
    return SPT_OK;
fail:
    spt__free(ka);
    spt__free(kb);
    spt__free(pa);
    spt__free(pb);
    return st;
}
