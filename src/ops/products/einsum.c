/* SPDX-License-Identifier: Apache-2.0 */
/* einsum.c -- spt_einsum: numpy.einsum for one sparse and one dense operand. The subscripts are parsed
 * strictly, then every index letter is classified by where it occurs: in the sparse operand and the
 * output (a row of the product), in both operands (a matrix row: contracted, or a batch index when the
 * output keeps it too), in the dense operand and the output (a column), or in one operand only and not
 * the output (summed away: the dense operand before the product, the sparse one by the product itself).
 * The dense operand is rearranged into that matrix, the shared row kernel of spt_tensordot
 * (contract_common.c) sums the products, and the result is transposed into the output's order when it
 * differs. */
#include "ops/products/contract_internal.h"

#include <ctype.h>

enum { NTERM = 3, MAXLEN = SPT_MAX_RANK };

typedef struct {
    char s[NTERM][MAXLEN + 1]; /* the operands' and the output's letters */
    int64_t len[NTERM];
    bool explicit_out;
} spec;

static spt_status parse(const char *fn, const char *sub, spec *p) {
    memset(p, 0, sizeof *p);
    int t = 0;
    for (size_t i = 0; sub[i]; i++) {
        unsigned char c = (unsigned char)sub[i];
        if (c == ' ') continue;
        if (c < 128 && isalpha(c)) {
            if (p->len[t] == MAXLEN)
                return spt__err(SPT_EINVAL, "%s: %s has more than %d indices", fn,
                                t == 2 ? "the output" : t == 0 ? "operand 0" : "operand 1", MAXLEN);
            p->s[t][p->len[t]++] = (char)c;
        } else if (c == ',') {
            if (t != 0)
                return spt__err(SPT_EINVAL, "%s: unexpected ',' at position %zu of \"%s\" (%s)", fn, i, sub,
                                t == 1 ? "einsum takes two operands, one sparse and one dense" : "in the output");
            t = 1;
        } else if (c == '-') {
            if (sub[i + 1] != '>')
                return spt__err(SPT_EINVAL, "%s: '-' not followed by '>' at position %zu of \"%s\"", fn, i, sub);
            if (t == 2) return spt__err(SPT_EINVAL, "%s: a second '->' at position %zu of \"%s\"", fn, i, sub);
            if (t == 0)
                return spt__err(SPT_EINVAL, "%s: '->' at position %zu of \"%s\" follows one operand; two are needed", fn,
                                i, sub);
            t = 2;
            p->explicit_out = true;
            i++;
        } else if (c == '.') {
            return spt__err(SPT_EINVAL, "%s: ellipsis ('...') at position %zu of \"%s\" is not supported", fn, i, sub);
        } else if (c >= 32 && c < 127) {
            return spt__err(SPT_EINVAL, "%s: invalid character '%c' at position %zu of the subscripts (letters a-z, "
                            "A-Z, ',', '->' and spaces only)", fn, (char)c, i);
        } else {
            return spt__err(SPT_EINVAL, "%s: invalid byte 0x%02x at position %zu of the subscripts (letters a-z, "
                            "A-Z, ',', '->' and spaces only)", fn, (unsigned)c, i);
        }
    }
    if (t == 0)
        return spt__err(SPT_EINVAL, "%s: \"%s\" names one operand; two are needed (\"sparse,dense\" or "
                        "\"sparse,dense->output\")", fn, sub);
    return SPT_OK;
}

spt_status spt_einsum(const char *subscripts, const spt_tensor *a, const spt_dense *b, spt_dense **out) {
    static const char fn[] = "spt_einsum";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!subscripts || !a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    spec p;
    SPT__TRY(parse(fn, subscripts, &p));
    const int64_t N = a->rank, M = b->rank;
    if (p.len[0] != N)
        return spt__err(SPT_EINVAL, "%s: operand 0 has %lld subscripts (\"%s\") but the sparse tensor has rank %lld", fn,
                        (long long)p.len[0], p.s[0], (long long)N);
    if (p.len[1] != M)
        return spt__err(SPT_EINVAL, "%s: operand 1 has %lld subscripts (\"%s\") but the dense array has rank %lld", fn,
                        (long long)p.len[1], p.s[1], (long long)M);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: the dense operand's dtype %s differs from the sparse one's %s", fn,
                        spt_dtype_name(b->dtype), spt_dtype_name(a->dtype));
    if (!spt__contract_supported(a->dtype))
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    /* where each letter is: its mode in a, in b, its position in the output (-1: absent) */
    int64_t pa[128], pb[128], po[128];
    for (int c = 0; c < 128; c++) pa[c] = pb[c] = po[c] = -1;
    for (int t = 0; t < 2; t++) {
        int64_t *pos = t ? pb : pa;
        for (int64_t d = 0; d < p.len[t]; d++) {
            int c = p.s[t][d];
            if (pos[c] >= 0)
                return spt__err(SPT_EINVAL, "%s: operand %d repeats index '%c' (\"%s\"); diagonals are not supported", fn,
                                t, (char)c, p.s[t]);
            pos[c] = d;
        }
    }
    for (int c = 0; c < 128; c++)
        if (pa[c] >= 0 && pb[c] >= 0 && a->shape[pa[c]] != b->shape[pb[c]])
            return spt__err(SPT_EINVAL, "%s: index '%c' has size %lld in the sparse operand and %lld in the dense one", fn,
                            (char)c, (long long)a->shape[pa[c]], (long long)b->shape[pb[c]]);
    if (!p.explicit_out) /* numpy's implicit output: the letters seen once, in alphabetical (ASCII) order */
        for (int c = 0; c < 128; c++)
            if ((pa[c] >= 0) != (pb[c] >= 0)) p.s[2][p.len[2]++] = (char)c;
    for (int64_t d = 0; d < p.len[2]; d++) {
        int c = p.s[2][d];
        if (pa[c] < 0 && pb[c] < 0)
            return spt__err(SPT_EINVAL, "%s: output index '%c' appears in no operand", fn, (char)c);
        if (po[c] >= 0) return spt__err(SPT_EINVAL, "%s: the output repeats index '%c' (\"%s\")", fn, (char)c, p.s[2]);
        po[c] = d;
    }
    const int64_t orank = p.len[2];
    int64_t oshape[SPT_MAX_RANK];
    for (int64_t d = 0; d < orank; d++) {
        int c = p.s[2][d];
        oshape[d] = pa[c] >= 0 ? a->shape[pa[c]] : b->shape[pb[c]];
    }
    /* the product's rows: a's modes kept by the output; its matrix rows: a's modes shared with b; the
     * columns: b's modes kept by the output and not in a. imshape / ito: the product's shape and where
     * each of its dims goes in the output. */
    int64_t rdims[SPT_MAX_RANK], kdims[SPT_MAX_RANK], nr = 0, nk = 0, nf = 0, F = 1;
    int64_t imshape[SPT_MAX_RANK], ito[SPT_MAX_RANK], bto[SPT_MAX_RANK], bshape[SPT_MAX_RANK];
    for (int64_t d = 0; d < N; d++) {
        int c = p.s[0][d];
        if (po[c] >= 0) {
            ito[nr] = po[c];
            imshape[nr] = a->shape[d];
            rdims[nr++] = d;
        }
        if (pb[c] >= 0) {
            bto[pb[c]] = nk;
            bshape[nk] = a->shape[d];
            kdims[nk++] = d;
        }
    }
    for (int64_t d = 0; d < M; d++) {
        int c = p.s[1][d];
        if (pa[c] >= 0) continue;
        if (po[c] < 0) {
            bto[d] = -1; /* summed away */
            continue;
        }
        bto[d] = nk + nf;
        bshape[nk + nf] = b->shape[d];
        nf++;
        ito[nr + nf - 1] = po[c];
        imshape[nr + nf - 1] = b->shape[d];
    }
    bool bmoved = false, omoved = false;
    for (int64_t d = 0; d < M; d++) bmoved |= bto[d] != d;
    for (int64_t d = 0; d < orank; d++) omoved |= ito[d] != d;
    spt_dense *o = NULL;
    void *bt = NULL, *im = NULL;
    SPT__TRY(spt__ensure_valid(fn, a));
    SPT__TRY(spt__contract_result(fn, a->dtype, orank, oshape, &o));
    if (o->size == 0 || a->nnz == 0) goto done;
    for (int64_t d = nr; d < orank; d++) F *= imshape[d]; /* <= the result's volume */
    const size_t es = spt_dtype_size(a->dtype);
    const void *bm = b->data;
    if (bmoved) {
        int64_t bvol = 1; /* the matrix: at most b's volume (its dims are some of b's) */
        for (int64_t d = 0; d < nk + nf; d++) bvol *= bshape[d];
        bt = spt__alloc_array(fn, bvol, 1, es, true, &st);
        if (!bt) goto fail;
        spt__dense_rearrange(a->dtype, b->data, M, b->shape, bto, bt, nk + nf, bshape);
        bm = bt;
    }
    if (omoved) {
        im = spt__alloc_array(fn, o->size, 1, es, true, &st);
        if (!im) goto fail;
    }
    SPT__CHECK(spt__contract_rows(fn, a, rdims, nr, kdims, nk, bm, F, omoved ? im : o->data));
    if (omoved) spt__dense_rearrange(a->dtype, im, orank, imshape, ito, o->data, orank, oshape);
done:
    spt__free(im);
    spt__free(bt);
    *out = o;
    return SPT_OK;
fail:
    spt__free(im);
    spt__free(bt);
    spt_dense_free(o);
    return st;
}
