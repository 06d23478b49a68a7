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
                                t == 2   ? "the output"
                                : t == 0 ? "operand 0"
                                         : "operand 1",
                                MAXLEN);
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
                return spt__err(SPT_EINVAL, "%s: '->' at position %zu of \"%s\" follows one operand; two are needed",
                                fn, i, sub);
            t = 2;
            p->explicit_out = true;
            i++;
        } else if (c == '.') {
            return spt__err(SPT_EINVAL, "%s: ellipsis ('...') at position %zu of \"%s\" is not supported", fn, i, sub);
        } else if (c >= 32 && c < 127) {
            return spt__err(SPT_EINVAL,
                            "%s: invalid character '%c' at position %zu of the subscripts (letters a-z, "
                            "A-Z, ',', '->' and spaces only)",
                            fn, (char)c, i);
        } else {
            return spt__err(SPT_EINVAL,
                            "%s: invalid byte 0x%02x at position %zu of the subscripts (letters a-z, "
                            "A-Z, ',', '->' and spaces only)",
                            fn, (unsigned)c, i);
        }
    }
    if (t == 0)
        return spt__err(SPT_EINVAL,
                        "%s: \"%s\" names one operand; two are needed (\"sparse,dense\" or "
                        "\"sparse,dense->output\")",
                        fn, sub);
    return SPT_OK;
}

/* Where each letter is: its mode in a, in b, its position in the output (-1: absent). */
typedef struct {
    int64_t pa[128], pb[128], po[128];
} letters;

/* The product as contract_common.c runs it: the rows are a's modes kept by the output, the matrix rows
 * a's modes shared with b, the columns b's modes kept by the output and not in a. imshape / ito: the
 * product's shape and where each of its dims goes in the output; bto / bshape: where each dim of b goes
 * in the matrix (-1: summed away) and the matrix's shape. */
typedef struct {
    int64_t orank, oshape[SPT_MAX_RANK];
    int64_t rdims[SPT_MAX_RANK], kdims[SPT_MAX_RANK], nr, nk, nf;
    int64_t imshape[SPT_MAX_RANK], ito[SPT_MAX_RANK], bto[SPT_MAX_RANK], bshape[SPT_MAX_RANK];
} plan;

/* The operands against the parsed subscripts: ranks, dtypes. */
static spt_status check_operands(const char *fn, const spec *p, const spt_tensor *a, const spt_dense *b) {
    if (p->len[0] != a->rank)
        return spt__err(SPT_EINVAL, "%s: operand 0 has %lld subscripts (\"%s\") but the sparse tensor has rank %lld",
                        fn, (long long)p->len[0], p->s[0], (long long)a->rank);
    if (p->len[1] != b->rank)
        return spt__err(SPT_EINVAL, "%s: operand 1 has %lld subscripts (\"%s\") but the dense array has rank %lld", fn,
                        (long long)p->len[1], p->s[1], (long long)b->rank);
    if (a->dtype != b->dtype)
        return spt__err(SPT_EDTYPE, "%s: the dense operand's dtype %s differs from the sparse one's %s", fn,
                        spt_dtype_name(b->dtype), spt_dtype_name(a->dtype));
    if (!spt__contract_supported(a->dtype))
        return spt__err(SPT_EDTYPE, "%s: dtype %s is not supported", fn, spt_dtype_name(a->dtype));
    return SPT_OK;
}

/* Place every letter (l), checking repeats and sizes; completes numpy's implicit output in p. */
static spt_status place_letters(const char *fn, spec *p, const spt_tensor *a, const spt_dense *b, letters *l) {
    for (int c = 0; c < 128; c++) l->pa[c] = l->pb[c] = l->po[c] = -1;
    for (int t = 0; t < 2; t++) {
        int64_t *pos = t ? l->pb : l->pa;
        for (int64_t d = 0; d < p->len[t]; d++) {
            int c = p->s[t][d];
            if (pos[c] >= 0)
                return spt__err(SPT_EINVAL, "%s: operand %d repeats index '%c' (\"%s\"); diagonals are not supported",
                                fn, t, (char)c, p->s[t]);
            pos[c] = d;
        }
    }
    for (int c = 0; c < 128; c++)
        if (l->pa[c] >= 0 && l->pb[c] >= 0 && a->shape[l->pa[c]] != b->shape[l->pb[c]])
            return spt__err(SPT_EINVAL, "%s: index '%c' has size %lld in the sparse operand and %lld in the dense one",
                            fn, (char)c, (long long)a->shape[l->pa[c]], (long long)b->shape[l->pb[c]]);
    if (!p->explicit_out) /* numpy's implicit output: the letters seen once, in alphabetical (ASCII) order */
        for (int c = 0; c < 128; c++)
            if ((l->pa[c] >= 0) != (l->pb[c] >= 0)) p->s[2][p->len[2]++] = (char)c;
    for (int64_t d = 0; d < p->len[2]; d++) {
        int c = p->s[2][d];
        if (l->pa[c] < 0 && l->pb[c] < 0)
            return spt__err(SPT_EINVAL, "%s: output index '%c' appears in no operand", fn, (char)c);
        if (l->po[c] >= 0)
            return spt__err(SPT_EINVAL, "%s: the output repeats index '%c' (\"%s\")", fn, (char)c, p->s[2]);
        l->po[c] = d;
    }
    return SPT_OK;
}

static void make_plan(const spec *p, const letters *l, const spt_tensor *a, const spt_dense *b, plan *q) {
    q->orank = p->len[2];
    for (int64_t d = 0; d < q->orank; d++) {
        int c = p->s[2][d];
        q->oshape[d] = l->pa[c] >= 0 ? a->shape[l->pa[c]] : b->shape[l->pb[c]];
    }
    q->nr = q->nk = q->nf = 0;
    for (int64_t d = 0; d < a->rank; d++) {
        int c = p->s[0][d];
        if (l->po[c] >= 0) {
            q->ito[q->nr] = l->po[c];
            q->imshape[q->nr] = a->shape[d];
            q->rdims[q->nr++] = d;
        }
        if (l->pb[c] >= 0) {
            q->bto[l->pb[c]] = q->nk;
            q->bshape[q->nk] = a->shape[d];
            q->kdims[q->nk++] = d;
        }
    }
    for (int64_t d = 0; d < b->rank; d++) {
        int c = p->s[1][d];
        if (l->pa[c] >= 0) continue;
        if (l->po[c] < 0) {
            q->bto[d] = -1; /* summed away */
            continue;
        }
        q->bto[d] = q->nk + q->nf;
        q->bshape[q->nk + q->nf] = b->shape[d];
        q->nf++;
        q->ito[q->nr + q->nf - 1] = l->po[c];
        q->imshape[q->nr + q->nf - 1] = b->shape[d];
    }
}

/* Run the plan into o (zeroed, the output's shape): b rearranged into the matrix when its dims move, the
 * product through the shared row kernel, then transposed into the output's order when that differs. */
static spt_status run_plan(const char *fn, const spt_tensor *a, const spt_dense *b, const plan *q, spt_dense *o) {
    spt_status st = SPT_OK;
    void *bt = NULL, *im = NULL;
    bool bmoved = false, omoved = false;
    for (int64_t d = 0; d < b->rank; d++) bmoved |= q->bto[d] != d;
    for (int64_t d = 0; d < q->orank; d++) omoved |= q->ito[d] != d;
    int64_t F = 1;
    for (int64_t d = q->nr; d < q->orank; d++) F *= q->imshape[d]; /* <= the result's volume */
    const size_t es = spt_dtype_size(a->dtype);
    const void *bm = b->data;
    if (bmoved) {
        int64_t bvol = 1; /* the matrix: at most b's volume (its dims are some of b's) */
        for (int64_t d = 0; d < q->nk + q->nf; d++) bvol *= q->bshape[d];
        bt = spt__alloc_array(fn, bvol, 1, es, true, &st);
        if (!bt) goto fail;
        spt__dense_rearrange(a->dtype, b->data, b->rank, b->shape, q->bto, bt, q->nk + q->nf, q->bshape);
        bm = bt;
    }
    if (omoved) {
        im = spt__alloc_array(fn, o->size, 1, es, true, &st);
        if (!im) goto fail;
    }
    SPT__CHECK(spt__contract_rows(fn, a, q->rdims, q->nr, q->kdims, q->nk, bm, F, omoved ? im : o->data));
    if (omoved) spt__dense_rearrange(a->dtype, im, q->orank, q->imshape, q->ito, o->data, q->orank, q->oshape);
fail:
    spt__free(im);
    spt__free(bt);
    return st;
}

spt_status spt_einsum(const char *subscripts, const spt_tensor *a, const spt_dense *b, spt_dense **out) {
    static const char fn[] = "spt_einsum";
    spt_status st = SPT_OK;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!subscripts || !a || !b) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    spec p;
    letters l;
    plan q;
    SPT__TRY(parse(fn, subscripts, &p));
    SPT__TRY(check_operands(fn, &p, a, b));
    SPT__TRY(place_letters(fn, &p, a, b, &l));
    make_plan(&p, &l, a, b, &q);
    spt_dense *o = NULL;
    SPT__TRY(spt__ensure_valid(fn, a));
    SPT__TRY(spt__contract_result(fn, a->dtype, q.orank, q.oshape, &o));
    if (o->size > 0 && a->nnz > 0) SPT__CHECK(run_plan(fn, a, b, &q, o));
    *out = o;
    return SPT_OK;
fail:
    spt_dense_free(o);
    return st;
}
