/* SPDX-License-Identifier: Apache-2.0 */
/* binsparse.c -- the binsparse interchange format (its public specification, "Binary Sparse Format
 * Specification"): a JSON descriptor and named arrays, here in the .npz container as the binsparse Python
 * package writes it (binsparse.npy holds the descriptor as a NumPy unicode scalar, every array is a
 * member NAME.npy). Read: the predefined formats COO/COOR/COOC (any rank), CSR, CSC, DCSR, DCSC, CVEC,
 * DVEC, DMAT/DMATR/DMATC, and custom formats of dense and sparse levels with a transpose; values of every
 * numeric type, "bint8" as bool, complex[...] and iso[...]. Written: COO (any rank), CSR, CSC. */
#include "io.h"

#include <math.h>

enum { LV_DENSE, LV_SPARSE };

typedef struct bsp {
    const char *fn, *name;
    const spt__zip *z; /* the archive's directory (zipread.c): every member's CRC and size checked */
    spt__json *nodes;
    spt_dense *text;               /* binsparse.npy: the JSON text the nodes point into */
    const spt__json *root, *types; /* the "binsparse" object and its data_types */
    int64_t rank, nnz, shape[SPT_MAX_RANK];
    int64_t tr[SPT_MAX_RANK]; /* level coordinate k is tensor mode tr[k] */
    int nlev;                 /* levels before the element level */
    int kind[SPT_MAX_RANK + 1];
    int64_t lrank[SPT_MAX_RANK + 1];
} bsp;

/* ---- arrays --------------------------------------------------------------------------------------- */

/* Member `m` (".npy" appended) as a dense array; SPT_EPARSE when missing or malformed. */
static spt_status member(const bsp *b, const char *m, spt_dense **out) {
    return spt__npz_member(b->fn, b->name, b->z, m, out);
}

/* What data_types[key] declares: the stored element type and the iso / complex wrappers. */
typedef struct decl {
    spt_dtype base; /* the dtype of the stored array */
    bool iso, cplx, boolean;
} decl;

static spt_status declared(const bsp *b, const char *key, decl *d) {
    static const char *const names[] = {"int8",   "int16",  "int32",   "int64",   "uint8", "uint16",
                                        "uint32", "uint64", "float32", "float64", "bint8"};
    static const spt_dtype dts[] = {SPT_INT8,   SPT_INT16,  SPT_INT32,   SPT_INT64,   SPT_UINT8, SPT_UINT16,
                                    SPT_UINT32, SPT_UINT64, SPT_FLOAT32, SPT_FLOAT64, SPT_UINT8};
    const spt__json *x = spt__json_get(b->nodes, b->types, key);
    memset(d, 0, sizeof *d);
    if (!x || x->type != SPT__JSON_STRING)
        return spt__err(SPT_EPARSE, "%s[binsparse.npy]: data_types.%s: expected a type name, found %s", b->name, key,
                        x ? "another JSON value" : "none");
    const char *s = x->s, *e = x->s + x->len;
    if (e - s > 5 && !memcmp(s, "iso[", 4) && e[-1] == ']') d->iso = true, s += 4, e--;
    if (e - s > 9 && !memcmp(s, "complex[", 8) && e[-1] == ']') d->cplx = true, s += 8, e--;
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++)
        if ((size_t)(e - s) == strlen(names[i]) && !memcmp(s, names[i], (size_t)(e - s))) {
            d->base = dts[i];
            d->boolean = i == 10;
            if (d->cplx && !spt_dtype_is_float(d->base)) break;
            return SPT_OK;
        }
    return spt__err(SPT_EPARSE,
                    "%s[binsparse.npy]: data_types.%s: expected int8..int64, uint8..uint64, float32, float64, bint8, "
                    "complex[float32|float64] or iso[...] of one, found '%.*s'",
                    b->name, key, (int)(x->len > 64 ? 64 : x->len), x->s);
}

/* Array `key` as declared, rank 1 (or a scalar), with `len` elements (-1: any); *d what it declares. */
static spt_status array(const bsp *b, const char *key, int64_t len, decl *d, spt_dense **out) {
    SPT__TRY(declared(b, key, d));
    SPT__TRY(member(b, key, out));
    const spt_dense *a = *out;
    const char *why = NULL;
    if (a->dtype != d->base) why = "dtype";
    else if (a->rank > 1) why = "rank";
    else if (len >= 0 && a->size != len) why = "length";
    if (!why) return SPT_OK;
    spt_status st;
    if (why[0] == 'd')
        st = spt__err(SPT_EPARSE, "%s[%s.npy]: expected elements of %s (data_types.%s), found %s", b->name, key,
                      spt_dtype_name(d->base), key, spt_dtype_name(a->dtype));
    else if (why[0] == 'r')
        st = spt__err(SPT_EPARSE, "%s[%s.npy]: expected a rank-1 array, found rank %lld", b->name, key,
                      (long long)a->rank);
    else
        st = spt__err(SPT_EPARSE, "%s[%s.npy]: expected %lld elements (from the descriptor), found %lld", b->name, key,
                      (long long)len, (long long)a->size);
    spt_dense_free(*out);
    *out = NULL;
    return st;
}

/* Element i of an integer array; false when it is not one or lies outside [0, INT64_MAX]. */
static bool elem_i64(const spt_dense *a, int64_t i, int64_t *v) {
    const void *p = a->data;
    switch (a->dtype) {
    case SPT_INT8: *v = ((const int8_t *)p)[i]; break;
    case SPT_INT16: *v = ((const int16_t *)p)[i]; break;
    case SPT_INT32: *v = ((const int32_t *)p)[i]; break;
    case SPT_INT64: *v = ((const int64_t *)p)[i]; break;
    case SPT_UINT8: *v = ((const uint8_t *)p)[i]; break;
    case SPT_UINT16: *v = ((const uint16_t *)p)[i]; break;
    case SPT_UINT32: *v = ((const uint32_t *)p)[i]; break;
    case SPT_UINT64:
        if (((const uint64_t *)p)[i] > (uint64_t)INT64_MAX) return false;
        *v = (int64_t)((const uint64_t *)p)[i];
        break;
    default: return false;
    }
    return *v >= 0;
}

/* An index or pointer array: integers, not iso or complex. */
static spt_status int_array(const bsp *b, const char *key, int64_t len, spt_dense **out) {
    decl d;
    SPT__TRY(array(b, key, len, &d, out));
    if (spt_dtype_is_integer(d.base) && !d.iso && !d.cplx && !d.boolean) return SPT_OK;
    spt_dense_free(*out);
    *out = NULL;
    return spt__err(SPT_EPARSE, "%s[binsparse.npy]: data_types.%s: expected an integer type, found another", b->name,
                    key);
}

/* ---- the descriptor ------------------------------------------------------------------------------- */

static spt_status bad_field(const bsp *b, const char *field, const char *want) {
    return spt__err(SPT_EPARSE, "%s[binsparse.npy]: %s: expected %s", b->name, field, want);
}

static spt_status int_field(const bsp *b, const spt__json *x, const char *field, int64_t *v) {
    if (!x || x->type != SPT__JSON_NUMBER || !x->is_int || x->i < 0)
        return bad_field(b, field,
                         x ? "a non-negative integer, found another value" : "a non-negative integer, found none");
    *v = x->i;
    return SPT_OK;
}

static spt_status add_level(bsp *b, int kind, int64_t rank, int64_t *used) {
    if (rank < 1 || *used + rank > b->rank || b->nlev > SPT_MAX_RANK)
        return bad_field(b, "format", "levels whose ranks add up to the length of shape");
    if (kind == LV_DENSE && b->nlev > 0 && b->kind[b->nlev - 1] == LV_DENSE)
        b->lrank[b->nlev - 1] += rank; /* one dense level */
    else b->kind[b->nlev] = kind, b->lrank[b->nlev++] = rank;
    *used += rank;
    return SPT_OK;
}

/* A custom level tree: {"level_desc" (or "level"): "dense"|"sparse"|"element", "rank": R, "level" (or
 * "subformat"): child}. */
static spt_status custom_levels(bsp *b, const spt__json *x, int64_t *used) {
    for (int depth = 0; depth <= SPT_MAX_RANK + 1; depth++) {
        if (!x || x->type != SPT__JSON_OBJECT) return bad_field(b, "custom.level", "a level object");
        const spt__json *kind = spt__json_get(b->nodes, x, "level_desc"), *child = spt__json_get(b->nodes, x, "level");
        if (!kind && child && child->type == SPT__JSON_STRING) kind = child, child = NULL;
        if (!child) child = spt__json_get(b->nodes, x, "subformat");
        if (spt__json_is(kind, "element")) return SPT_OK;
        int64_t r = 0;
        if (!spt__json_is(kind, "dense") && !spt__json_is(kind, "sparse"))
            return bad_field(b, "custom.level.level_desc", "\"dense\", \"sparse\" or \"element\"");
        SPT__TRY(int_field(b, spt__json_get(b->nodes, x, "rank"), "custom.level.rank", &r));
        SPT__TRY(add_level(b, spt__json_is(kind, "dense") ? LV_DENSE : LV_SPARSE, r, used));
        x = child;
    }
    return bad_field(b, "custom.level", "at most one level per dimension");
}

/* The levels of a predefined format name. */
static spt_status named_levels(bsp *b, const spt__json *f, int64_t *used, bool *swap) {
    static const struct {
        const char *name;
        int64_t rank;       /* the rank it describes (0: any, COO) */
        const char *levels; /* d: dense, s: sparse, c: sparse of the whole rank */
        bool swap;
    } named[] = {{"COO", 0, "c", false},   {"COOR", 0, "c", false},   {"COOC", 2, "c", true},
                 {"CSR", 2, "ds", false},  {"CSC", 2, "ds", true},    {"DCSR", 2, "ss", false},
                 {"DCSC", 2, "ss", true},  {"CVEC", 1, "s", false},   {"DVEC", 1, "d", false},
                 {"DMAT", 2, "dd", false}, {"DMATR", 2, "dd", false}, {"DMATC", 2, "dd", true}};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        if (!spt__json_is(f, named[i].name)) continue;
        if (named[i].rank && named[i].rank != b->rank)
            return spt__err(SPT_EPARSE, "%s[binsparse.npy]: shape: expected %lld dimensions for format %s, found %lld",
                            b->name, (long long)named[i].rank, named[i].name, (long long)b->rank);
        for (const char *l = named[i].levels; *l; l++)
            SPT__TRY(add_level(b, *l == 'd' ? LV_DENSE : LV_SPARSE, *l == 'c' ? b->rank : 1, used));
        *swap = named[i].swap;
        return SPT_OK;
    }
    return bad_field(b, "format", "COO, COOR, COOC, CSR, CSC, DCSR, DCSC, CVEC, DVEC, DMAT, DMATR, DMATC or custom");
}

static spt_status transpose(bsp *b, const spt__json *t, bool swap) {
    for (int64_t k = 0; k < b->rank; k++) b->tr[k] = swap ? b->rank - 1 - k : k;
    if (!t) return SPT_OK;
    bool seen[SPT_MAX_RANK] = {false};
    if (t->type != SPT__JSON_ARRAY || t->count != b->rank)
        return bad_field(b, "custom.transpose", "a permutation of the dimensions");
    int64_t k = 0;
    for (int64_t c = t->child; c >= 0; c = b->nodes[c].next, k++) {
        const spt__json *x = &b->nodes[c];
        if (x->type != SPT__JSON_NUMBER || !x->is_int || x->i < 0 || x->i >= b->rank || seen[x->i])
            return bad_field(b, "custom.transpose", "a permutation of the dimensions");
        seen[x->i] = true;
        b->tr[k] = x->i;
    }
    return SPT_OK;
}

static spt_status descriptor(bsp *b) {
    const spt__json *ns = spt__json_get(b->nodes, &b->nodes[0], "binsparse");
    if (!ns || ns->type != SPT__JSON_OBJECT) return bad_field(b, "binsparse", "an object (the descriptor's namespace)");
    b->root = ns;
    const spt__json *v = spt__json_get(b->nodes, ns, "version"), *shape = spt__json_get(b->nodes, ns, "shape");
    if (v && (v->type != SPT__JSON_STRING || v->len < 2 || memcmp(v->s, "0.", 2)))
        return bad_field(b, "version", "a version 0.x");
    if (!shape || shape->type != SPT__JSON_ARRAY || shape->count > SPT_MAX_RANK)
        return bad_field(b, "shape", "an array of at most 64 dimensions (SPT_MAX_RANK)");
    b->rank = shape->count;
    int64_t k = 0;
    for (int64_t c = shape->child; c >= 0; c = b->nodes[c].next)
        SPT__TRY(int_field(b, &b->nodes[c], "shape", &b->shape[k++]));
    SPT__TRY(int_field(b, spt__json_get(b->nodes, ns, "number_of_stored_values"), "number_of_stored_values", &b->nnz));
    b->types = spt__json_get(b->nodes, ns, "data_types");
    if (!b->types || b->types->type != SPT__JSON_OBJECT) return bad_field(b, "data_types", "an object");
    const spt__json *f = spt__json_get(b->nodes, ns, "format"), *custom = spt__json_get(b->nodes, ns, "custom");
    int64_t used = 0;
    bool swap = false;
    if (spt__json_is(f, "custom")) {
        if (!custom || custom->type != SPT__JSON_OBJECT) return bad_field(b, "custom", "an object with a level");
        SPT__TRY(custom_levels(b, spt__json_get(b->nodes, custom, "level"), &used));
        const spt__json *t = spt__json_get(b->nodes, custom, "transpose");
        SPT__TRY(transpose(b, t ? t : spt__json_get(b->nodes, custom, "swizzle"), false));
    } else {
        SPT__TRY(named_levels(b, f, &used, &swap));
        SPT__TRY(transpose(b, NULL, swap));
    }
    if (used != b->rank) return bad_field(b, "format", "levels whose ranks add up to the length of shape");
    /* a symmetric, skew-symmetric or hermitian "structure" stores one triangle: refused rather than read as
     * that triangle alone (the other would be silently missing) */
    const spt__json *st = spt__json_get(b->nodes, ns, "structure");
    if (st && !spt__json_is(st, "general"))
        return bad_field(b, "structure", "absent or \"general\" (symmetric storage of one triangle is not read)");
    return SPT_OK;
}

/* ---- the levels walked into coordinates ------------------------------------------------------------- */

/* The positions of the level reached: npos of them, each with `depth` level coordinates (co, npos x depth). */
typedef struct walk {
    int64_t npos, depth;
    int64_t *co;
} walk;

/* The level dim of level coordinate k. */
static int64_t ldim(const bsp *b, int64_t k) { return b->shape[b->tr[k]]; }

/* The pointers of the sparse level at `depth` (> 0). */
static spt_status pointers(const bsp *b, int64_t depth, spt_dense **ptr) {
    char key[40];
    snprintf(key, sizeof key, "pointers_to_%lld", (long long)depth);
    SPT__TRY(int_array(b, key, -1, ptr));
    if ((*ptr)->size >= 1) return SPT_OK;
    spt_dense_free(*ptr);
    *ptr = NULL;
    return spt__err(SPT_EPARSE, "%s[%s.npy]: expected at least one element, found none", b->name, key);
}

/* A dense level of rank r: every position holds the row-major block of its dims; `want` positions result. */
static spt_status walk_dense(const bsp *b, walk *w, int64_t r, int64_t want) {
    spt_status st;
    int64_t block = 1, n;
    for (int64_t k = 0; k < r; k++)
        if (spt__mul_i64(block, ldim(b, w->depth + k), &block)) block = INT64_MAX;
    if (spt__mul_i64(w->npos, block, &n) || n != want)
        return spt__err(SPT_EPARSE,
                        "%s[binsparse.npy]: shape: expected dims giving %lld positions to the dense level (%s), "
                        "found %s",
                        b->name, (long long)want, want == b->nnz ? "number_of_stored_values" : "the next pointers",
                        n == want ? "more" : "another count");
    const int64_t D = w->depth + r;
    int64_t *co = spt__alloc_array(b->fn, n, D ? D : 1, sizeof(int64_t), false, &st);
    if (!co) return st;
    for (int64_t q = 0; q < n; q++) {
        int64_t p = q / (block ? block : 1), rest = q % (block ? block : 1);
        memcpy(co + q * D, w->co + p * w->depth, (size_t)w->depth * sizeof(int64_t));
        for (int64_t k = r - 1; k >= 0; k--) {
            int64_t dk = ldim(b, w->depth + k);
            co[q * D + w->depth + k] = rest % dk;
            rest /= dk;
        }
    }
    spt__free(w->co);
    w->co = co, w->npos = n, w->depth = D;
    return SPT_OK;
}

/* Check the pointers of a sparse level (ptr: npos + 1 non-decreasing from 0 to m). */
static spt_status check_pointers(const bsp *b, const walk *w, const spt_dense *ptr, int64_t m) {
    int64_t prev = 0, v = 0;
    if (ptr->size != w->npos + 1)
        return spt__err(
            SPT_EPARSE,
            "%s[pointers_to_%lld.npy]: expected %lld elements (one more than the level's positions), found %lld",
            b->name, (long long)w->depth, (long long)(w->npos + 1), (long long)ptr->size);
    for (int64_t p = 0; p <= w->npos; p++) {
        if (!elem_i64(ptr, p, &v) || v < prev || (p == 0 && v != 0) || v > m)
            return spt__err(SPT_EPARSE, "%s[pointers_to_%lld.npy]: element %lld: expected a value in [%lld, %lld]%s",
                            b->name, (long long)w->depth, (long long)p, (long long)prev, (long long)m,
                            p == 0 ? " starting at 0" : "");
        prev = v;
    }
    if (v != m)
        return spt__err(
            SPT_EPARSE,
            "%s[pointers_to_%lld.npy]: expected the last element to be %lld (the indices' length), found %lld", b->name,
            (long long)w->depth, (long long)m, (long long)v);
    return SPT_OK;
}

/* A sparse level of rank r at w->depth (ptr: its pointers, NULL at the root). */
static spt_status walk_sparse(const bsp *b, walk *w, int64_t r, const spt_dense *ptr) {
    spt_status st = SPT_OK;
    spt_dense *ix[SPT_MAX_RANK] = {NULL};
    int64_t *co = NULL, m = -1;
    char key[40];
    for (int64_t s = 0; s < r; s++) {
        snprintf(key, sizeof key, "indices_%lld", (long long)(w->depth + s));
        SPT__CHECK(int_array(b, key, m, &ix[s]));
        m = ix[s]->size;
    }
    if (ptr) SPT__CHECK(check_pointers(b, w, ptr, m));
    const int64_t D = w->depth + r;
    if (!(co = spt__alloc_array(b->fn, m, D ? D : 1, sizeof(int64_t), false, &st))) goto fail;
    for (int64_t p = 0, q = 0; p < w->npos; p++) {
        int64_t hi = m;
        if (ptr) elem_i64(ptr, p + 1, &hi);
        for (; q < hi; q++) {
            memcpy(co + q * D, w->co + p * w->depth, (size_t)w->depth * sizeof(int64_t));
            for (int64_t s = 0; s < r; s++) {
                int64_t v = -1, dim = ldim(b, w->depth + s);
                if (!elem_i64(ix[s], q, &v) || v >= dim) {
                    st = spt__err(SPT_EPARSE,
                                  "%s[indices_%lld.npy]: element %lld: expected an index in [0, %lld), found %s",
                                  b->name, (long long)(w->depth + s), (long long)q, (long long)dim,
                                  v >= dim ? "one beyond" : "a negative one");
                    goto fail;
                }
                co[q * D + w->depth + s] = v;
            }
        }
    }
    spt__free(w->co);
    w->co = co, w->npos = m, w->depth = D;
    co = NULL;
fail:
    spt__free(co);
    for (int64_t s = 0; s < r; s++) spt_dense_free(ix[s]);
    return st;
}

/* Every level in turn: w ends with nnz positions and rank coordinates each. */
static spt_status walk_levels(const bsp *b, walk *w) {
    spt_status st = SPT_OK;
    spt_dense *ptr = NULL; /* the next sparse level's pointers, when read already */
    w->npos = 1, w->depth = 0;
    if (!(w->co = spt__malloc(sizeof(int64_t)))) return spt__err(SPT_ENOMEM, "%s: out of memory", b->fn);
    for (int lev = 0; lev < b->nlev && st == SPT_OK; lev++) {
        if (b->kind[lev] == LV_DENSE) { /* the positions it makes: the next level's pointers, or the values */
            const int64_t after = w->depth + b->lrank[lev];
            if (lev + 1 < b->nlev) st = pointers(b, after, &ptr);
            if (st == SPT_OK) st = walk_dense(b, w, b->lrank[lev], ptr ? ptr->size - 1 : b->nnz);
            continue;
        }
        if (w->depth > 0 && !ptr) st = pointers(b, w->depth, &ptr);
        if (st == SPT_OK) st = walk_sparse(b, w, b->lrank[lev], ptr);
        spt_dense_free(ptr);
        ptr = NULL;
    }
    spt_dense_free(ptr);
    if (st == SPT_OK && b->rank == 0 && b->nnz == 0) w->npos = 0; /* a scalar with no stored value (spt writes one) */
    if (st == SPT_OK && w->npos != b->nnz)
        return spt__err(SPT_EPARSE,
                        "%s[binsparse.npy]: number_of_stored_values: expected %lld (the stored positions), found %lld",
                        b->name, (long long)w->npos, (long long)b->nnz);
    return st;
}

/* ---- values and the tensor ----------------------------------------------------------------------- */

/* The values array (*a: nnz elements, or one when iso; complex as float pairs) and the tensor's dtype. */
static spt_status read_values(const bsp *b, spt_dtype *dt, decl *d, spt_dense **a) {
    SPT__TRY(declared(b, "values", d));
    if (!d->iso && b->nnz > INT64_MAX / 2)
        return bad_field(b, "number_of_stored_values", "a count the values can hold");
    const int64_t per = d->cplx ? 2 : 1;
    SPT__TRY(array(b, "values", d->iso ? per : b->nnz * per, d, a));
    *dt = d->cplx ? (d->base == SPT_FLOAT32 ? SPT_COMPLEX64 : SPT_COMPLEX128) : d->boolean ? SPT_BOOL : d->base;
    if (d->boolean)
        for (int64_t i = 0; i < (*a)->size; i++)
            if (((const uint8_t *)(*a)->data)[i] > 1) {
                spt_status st = spt__err(SPT_EPARSE, "%s[values.npy]: element %lld: expected 0 or 1 (bint8), found %u",
                                         b->name, (long long)i, ((const uint8_t *)(*a)->data)[i]);
                spt_dense_free(*a);
                *a = NULL;
                return st;
            }
    return SPT_OK;
}

/* fill_value, when "fill" is true, must be spt's implicit zero. */
static spt_status check_fill(const bsp *b) {
    const spt__json *f = spt__json_get(b->nodes, b->root, "fill");
    if (!f || f->type == SPT__JSON_NULL || (f->type == SPT__JSON_BOOL && !f->i)) return SPT_OK;
    if (f->type != SPT__JSON_BOOL) return bad_field(b, "fill", "true or false");
    decl d;
    spt_dense *a = NULL;
    SPT__TRY(array(b, "fill_value", -1, &d, &a));
    bool zero = a->size == (d.cplx ? 2 : 1) && spt_dtype_is_numeric(a->dtype);
    for (int64_t i = 0; zero && i < a->size; i++) {
        const char *p = (const char *)a->data + (size_t)i * spt_dtype_size(a->dtype);
        zero = a->dtype == SPT_FLOAT32   ? *(const float *)p == 0
               : a->dtype == SPT_FLOAT64 ? *(const double *)p == 0
                                         : !memcmp(p, spt__zero_elem, spt_dtype_size(a->dtype));
    }
    spt_dense_free(a);
    if (zero) return SPT_OK;
    return spt__err(SPT_EINVAL,
                    "%s[fill_value.npy]: expected a fill value of zero (spt's implicit value), found another value",
                    b->name);
}

static spt_status build(const bsp *b, spt_tensor **out) {
    spt_status st;
    walk w = {0, 0, NULL};
    spt_dense *vals = NULL;
    decl d;
    spt_dtype dt = SPT_FLOAT64;
    spt_tensor *t = NULL;
    SPT__CHECK(check_fill(b));
    SPT__CHECK(read_values(b, &dt, &d, &vals)); /* its length checked (from the file's bytes) first */
    SPT__CHECK(walk_levels(b, &w));
    SPT__CHECK(spt__tensor_alloc_uninit(b->fn, dt, b->rank, b->shape, b->nnz, NULL, &t));
    for (int64_t i = 0; i < b->nnz; i++)
        for (int64_t k = 0; k < b->rank; k++) t->indices[i * b->rank + b->tr[k]] = w.co[i * b->rank + k];
    const size_t es = spt_dtype_size(dt);
    if (d.iso)
        for (int64_t i = 0; i < b->nnz; i++) memcpy((char *)t->values + (size_t)i * es, vals->data, es);
    else if (b->nnz) memcpy(t->values, vals->data, (size_t)b->nnz * es);
    spt__note_valid(t);
    spt__order_restore(t, b->tr); /* the levels list the entries by their coordinates in level order */
    *out = t;
    t = NULL;
fail:
    spt_tensor_free(t);
    spt_dense_free(vals);
    spt__free(w.co);
    return st;
}

/* The descriptor: binsparse.npy, a NumPy unicode (or bytes) scalar holding the JSON text. */
static spt_status read_descriptor(bsp *b) {
    SPT__TRY(member(b, "binsparse", &b->text));
    const spt_dense *d = b->text;
    spt_status st;
    if (d->dtype != SPT_STRING || d->size != 1)
        st = spt__err(SPT_EPARSE,
                      "%s[binsparse.npy]: expected one string (the JSON descriptor), found %lld elements of %s",
                      b->name, (long long)d->size, spt_dtype_name(d->dtype));
    else {
        const spt_str *s = d->data;
        char label[600];
        snprintf(label, sizeof label, "%s[binsparse.npy]", b->name);
        st = spt__json_parse(b->fn, label, s->data, (size_t)s->len, &b->nodes);
        if (st == SPT_OK && b->nodes[0].type != SPT__JSON_OBJECT) st = bad_field(b, "the descriptor", "a JSON object");
    }
    return st;
}

spt_status spt__binsparse_from_zip(const char *fn, const char *name, const spt__zip *z, spt_tensor **out) {
    bsp b = {fn, name, z, NULL, NULL, NULL, NULL, 0, 0, {0}, {0}, 0, {0}, {0}};
    spt_status st = read_descriptor(&b);
    if (st == SPT_OK) st = descriptor(&b);
    if (st == SPT_OK) st = build(&b, out);
    spt__free(b.nodes);
    spt_dense_free(b.text);
    return st;
}

spt_status spt__binsparse_from_bytes(const char *fn, const char *name, const char *data, size_t len, spt_tensor **out) {
    spt__zip z;
    SPT__TRY(spt__zip_open(fn, name, data, len, false, &z));
    spt_status st = spt__binsparse_from_zip(fn, name, &z, out);
    spt__zip_close(&z);
    return st;
}

/* ---- writing ------------------------------------------------------------------------------------------ */

/* A rank-1 array member `key`.npy of n elements of dt (data borrowed until written; own freed with z). */
static spt_status add_array(const char *fn, spt__zipw *z, const char *key, spt_dtype dt, int64_t n, const void *data,
                            void *own) {
    char m[48];
    snprintf(m, sizeof m, "%s.npy", key);
    return spt__npz_add(fn, z, m, dt, 1, &n, data, false, own);
}

/* binsparse.npy: the descriptor as a NumPy unicode scalar ('<U<n>', UCS-4 little endian). */
static spt_status add_descriptor(const char *fn, spt__zipw *z, const char *json) {
    char dict[96];
    const size_t n = strlen(json), pre = 10;
    int dl = snprintf(dict, sizeof dict, "{'descr': '<U%zu', 'fortran_order': False, 'shape': (), }", n ? n : 1);
    const size_t hl = (pre + (size_t)dl + 1 + 63) / 64 * 64 - pre, len = pre + hl + 4 * (n ? n : 1);
    char *b = spt__calloc(len, 1);
    if (!b) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (char)(hl & 0xff);
    b[9] = (char)(hl >> 8);
    memcpy(b + pre, dict, (size_t)dl);
    memset(b + pre + dl, ' ', hl - (size_t)dl - 1);
    b[pre + hl - 1] = '\n';
    for (size_t i = 0; i < n; i++) b[pre + hl + 4 * i] = json[i]; /* ASCII */
    return spt__zipw_add(fn, z, "binsparse.npy", "", 0, b, len, b);
}

/* values.npy (the tensor's values where they lie) and fill_value.npy in binsparse's encoding of dt;
 * *type receives its data type name. */
static spt_status add_values(const char *fn, spt__zipw *z, const spt_tensor *s, const char **type) {
    spt_dtype dt = s->dtype;
    int64_t per = 1;
    *type = spt_dtype_name(dt);
    if (dt == SPT_BOOL) dt = SPT_UINT8, *type = "bint8";
    if (dt == SPT_COMPLEX64) dt = SPT_FLOAT32, per = 2, *type = "complex[float32]";
    if (dt == SPT_COMPLEX128) dt = SPT_FLOAT64, per = 2, *type = "complex[float64]";
    SPT__TRY(add_array(fn, z, "values", dt, s->nnz * per, s->values, NULL));
    return add_array(fn, z, "fill_value", dt, per, spt__zero_elem, NULL);
}

/* The arrays of the format (COO: indices_k; CSR, CSC: pointers_to_1, indices_1) from s, sorted by `order`:
 * each a new buffer that z frees. */
static spt_status add_structure(const char *fn, spt__zipw *z, const spt_tensor *s, spt_format f, const int64_t *order) {
    spt_status st = SPT_OK;
    const int64_t n = s->nnz, R = s->rank;
    const bool coo = f == SPT_FORMAT_BINSPARSE;
    char key[40];
    for (int64_t k = coo ? 0 : 1; k < R; k++) {
        int64_t *a = spt__alloc_array(fn, n ? n : 1, 1, sizeof(int64_t), false, &st);
        if (!a) return st;
        for (int64_t i = 0; i < n; i++) a[i] = s->indices[i * R + order[k]];
        snprintf(key, sizeof key, "indices_%lld", (long long)k);
        SPT__TRY(add_array(fn, z, key, SPT_INT64, n, a, a));
    }
    if (coo) return SPT_OK;
    /* the row pointer of the sorted entries */
    const int64_t rows = s->shape[order[0]];
    int64_t *a = spt__alloc_array(fn, rows + 1, 1, sizeof(int64_t), true, &st);
    if (!a) return st;
    for (int64_t i = 0; i < n; i++) a[s->indices[i * R + order[0]] + 1]++;
    for (int64_t r = 0; r < rows; r++) a[r + 1] += a[r];
    return add_array(fn, z, "pointers_to_1", SPT_INT64, rows + 1, a, a);
}

/* The descriptor's JSON text into buf (at most cap bytes; the longest is well under 4 KiB). */
static void describe(char *buf, size_t cap, const spt_tensor *s, spt_format f, const char *vtype) {
    static const char *const ixt = "\"int64\"";
    const int64_t R = s->rank;
    const char *name = f == SPT_FORMAT_BINSPARSE_CSR   ? "CSR"
                       : f == SPT_FORMAT_BINSPARSE_CSC ? "CSC"
                       : R == 2                        ? "COO"
                       : R == 1                        ? "CVEC"
                                                       : "custom";
    size_t w = (size_t)snprintf(buf, cap, "{\"binsparse\": {\"version\": \"0.1.0\", \"format\": \"%s\", ", name);
    if (!strcmp(name, "custom") && R > 0)
        w += (size_t)snprintf(buf + w, cap - w,
                              "\"custom\": {\"level\": {\"level_desc\": \"sparse\", \"rank\": %lld, "
                              "\"level\": {\"level_desc\": \"element\"}}}, ",
                              (long long)R);
    else if (!strcmp(name, "custom"))
        w += (size_t)snprintf(buf + w, cap - w, "\"custom\": {\"level\": {\"level_desc\": \"element\"}}, ");
    w += (size_t)snprintf(buf + w, cap - w, "\"shape\": [");
    for (int64_t k = 0; k < R; k++)
        w += (size_t)snprintf(buf + w, cap - w, "%s%lld", k ? ", " : "", (long long)s->shape[k]);
    w += (size_t)snprintf(buf + w, cap - w, "], \"number_of_stored_values\": %lld, \"fill\": true, \"data_types\": {",
                          (long long)s->nnz);
    if (f != SPT_FORMAT_BINSPARSE)
        w += (size_t)snprintf(buf + w, cap - w, "\"pointers_to_1\": %s, \"indices_1\": %s, ", ixt, ixt);
    else
        for (int64_t k = 0; k < R; k++)
            w += (size_t)snprintf(buf + w, cap - w, "\"indices_%lld\": %s, ", (long long)k, ixt);
    snprintf(buf + w, cap - w, "\"values\": \"%s\", \"fill_value\": \"%s\"}}}", vtype, vtype);
}

/* The members of s (sorted by order, no duplicates), stored as numpy.savez does, written to path. */
static spt_status write_sorted(const char *fn, const spt_tensor *s, const char *path, spt_format f,
                               const int64_t *order) {
    spt__zipw *z = spt__calloc(1, sizeof *z);
    if (!z) return spt__err(SPT_ENOMEM, "%s: out of memory", fn);
    const char *vtype;
    char json[4096 + 64 * SPT_MAX_RANK];
    spt_status st = add_structure(fn, z, s, f, order);
    if (st == SPT_OK) st = add_values(fn, z, s, &vtype);
    if (st == SPT_OK) {
        describe(json, sizeof json, s, f, vtype);
        st = add_descriptor(fn, z, json);
    }
    return spt__npz_save(fn, z, path, st);
}

spt_status spt__write_binsparse(const char *fn, const spt_tensor *t, const char *path, spt_format f) {
    if (!strcmp(path, "-")) return spt__err(SPT_EINVAL, "%s: binsparse (.npz) cannot be written to stdout", fn);
    if (t->dtype == SPT_STRING)
        return spt__err(SPT_EDTYPE, "%s: binsparse holds numeric values, found dtype string", fn);
    if (f != SPT_FORMAT_BINSPARSE && t->rank != 2)
        return spt__err(SPT_EINVAL, "%s: %s holds matrices; the tensor has rank %lld", fn, spt_format_name(f),
                        (long long)t->rank);
    SPT__TRY(spt__ensure_valid(fn, t));
    int64_t order[SPT_MAX_RANK];
    for (int64_t k = 0; k < t->rank; k++) order[k] = f == SPT_FORMAT_BINSPARSE_CSC ? 1 - k : k;
    spt_tensor *sorted = NULL;
    const spt_tensor *s = t;
    if (!(t->flags & SPT__F_SORTED) || (t->rank > 0 && memcmp(t->order, order, (size_t)t->rank * sizeof(int64_t)))) {
        SPT__TRY(spt_reordered(t, order, &sorted));
        s = sorted;
    }
    spt_status st = SPT_OK;
    for (int64_t i = 1; i < s->nnz && st == SPT_OK; i++)
        if (!memcmp(s->indices + (i - 1) * s->rank, s->indices + i * s->rank, (size_t)s->rank * sizeof(int64_t))) {
            char ix[SPT__IDXBUF];
            spt__fmt_index(ix, sizeof ix, s->indices + i * s->rank, s->rank);
            st = spt__err(SPT_EINVAL,
                          "%s: %s: binsparse stores each index once; the tensor holds the index %s more than once "
                          "(sum the duplicates first)",
                          fn, path, ix);
        }
    if (st == SPT_OK) st = write_sorted(fn, s, path, f, order);
    spt_tensor_free(sorted);
    return st;
}
