/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_tot.c -- tensor-of-tensors: domains, injection, sparse maps, spt_tot_new, sparsify (dense,
 * sparse, blocks) and reduce_tot_sum on decoded inputs. Checks the structures' invariants and the
 * contract's identity spt_sparsify(T) == spt_sparsify_dense(spt_to_dense(T)). */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

static volatile unsigned char sink;

static int64_t *rows(fz_in *in, int64_t n, int64_t rank, int64_t maxv) {
    int64_t *a = malloc((size_t)(n * rank + 1) * sizeof *a);
    if (!a) abort();
    for (int64_t i = 0; i < n * rank; i++) {
        uint8_t b = fz_u8(in);
        a[i] = b < 250 ? b % (maxv + 1) : b == 250 ? -1 : fz_int(in, maxv);
    }
    return a;
}

static int cmp_rows(const int64_t *a, const int64_t *b, int64_t r) {
    for (int64_t k = 0; k < r; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static void check_domain(const char *op, const spt_domain *d) {
    int64_t r = spt_domain_rank(d), n = spt_domain_size(d);
    if (r < 0 || r > SPT_MAX_RANK || n < 0) fz_die(op, "domain rank/size out of range");
    if (n == 0 && r != 0) fz_die(op, "an empty domain of non-zero rank");
    const int64_t *ix = spt_domain_indices(d);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = 0; k < r; k++)
            if (ix[i * r + k] < 0) fz_die(op, "negative component in a domain");
        if (i > 0 && cmp_rows(ix + (i - 1) * r, ix + i * r, r) >= 0) fz_die(op, "domain not sorted and distinct");
        if (!spt_domain_contains(d, ix + i * r)) fz_die(op, "domain does not contain its own index");
    }
    int64_t ext[SPT_MAX_RANK], pos[SPT_MAX_RANK];
    spt_domain_result_extents(d, ext);
    for (int64_t i = 0; i < n; i++) {
        if (spt_domain_result_index(d, r, ix + i * r, pos) != SPT_OK) fz_die(op, "result_index of a member failed");
        for (int64_t k = 0; k < r; k++)
            if (pos[k] < 0 || pos[k] >= ext[k]) fz_die(op, "result_index outside result_extents");
    }
}

static void check_map(const char *op, const spt_sparse_map *m) {
    int64_t ir = spt_sparse_map_ind_rank(m), dr = spt_sparse_map_dep_rank(m), nk = spt_sparse_map_nkeys(m);
    int64_t total = 0;
    for (int64_t i = 0; i < nk; i++) {
        const int64_t *key = spt_sparse_map_key(m, i);
        if (!key) fz_die(op, "NULL key inside [0, nkeys)");
        if (i > 0 && cmp_rows(spt_sparse_map_key(m, i - 1), key, ir) >= 0) fz_die(op, "keys not sorted and distinct");
        int64_t j, c;
        if (!spt_sparse_map_find(m, key, &j) || j != i) fz_die(op, "find does not find a key");
        const int64_t *deps = spt_sparse_map_deps(m, i, &c);
        if (c < 0) fz_die(op, "negative domain size");
        for (int64_t q = 0; q < c; q++) {
            if (q > 0 && cmp_rows(deps + (q - 1) * dr, deps + q * dr, dr) >= 0)
                fz_die(op, "deps not sorted and distinct");
            if (!spt_sparse_map_contains(m, key, deps + q * dr)) fz_die(op, "contains is false for a pair");
        }
        total += c;
        spt_domain *d = FZ_SENTINEL;
        spt_status st = spt_sparse_map_domain(m, i, &d);
        fz_check_status("spt_sparse_map_domain", st, d);
        if (st == SPT_OK) {
            check_domain("spt_sparse_map_domain", d);
            if (spt_domain_size(d) != c) fz_die(op, "domain size differs from deps count");
            spt_domain_free(d);
        }
    }
    if (spt_sparse_map_key(m, nk) != NULL || spt_sparse_map_key(m, -1) != NULL) fz_die(op, "a key outside [0, nkeys)");
    if (total != spt_sparse_map_size(m)) fz_die(op, "size != sum of domain sizes");
}

static void check_tot(const char *op, const spt_tot *t) {
    int64_t orank = spt_tot_outer_rank(t), irank = spt_tot_inner_rank(t), n = spt_tot_count(t), total = 0;
    const int64_t *osh = spt_tot_outer_shape(t);
    const int64_t *prev = NULL;
    if (!spt_dtype_is_numeric(spt_tot_dtype(t))) fz_die(op, "ToT of a non-numeric dtype");
    for (int64_t i = 0; i < n; i++) {
        spt_tot_inner e, g;
        if (spt_tot_entry(t, i, &e) != SPT_OK || !e.present) fz_die(op, "entry i < count is not present");
        for (int64_t k = 0; k < orank; k++)
            if (e.outer[k] < 0 || e.outer[k] >= osh[k]) fz_die(op, "outer index outside the outer shape");
        if (prev && cmp_rows(prev, e.outer, orank) >= 0) fz_die(op, "entries not in row-major outer order");
        prev = e.outer;
        if (e.rank != irank) fz_die(op, "inner rank differs");
        int64_t sz = 1;
        for (int64_t k = 0; k < irank; k++) {
            if (e.shape[k] < 1) fz_die(op, "inner dim < 1");
            if (__builtin_mul_overflow(sz, e.shape[k], &sz)) fz_die(op, "inner size overflows");
        }
        if (sz != e.size || sz < 1) fz_die(op, "inner size != product of its shape");
        const unsigned char *p = e.data;
        sink ^= p[0] ^ p[(size_t)sz * spt_dtype_size(spt_tot_dtype(t)) - 1];
        total += sz;
        if (spt_tot_get(t, e.outer, &g) != SPT_OK || !g.present || g.data != e.data)
            fz_die(op, "get differs from entry");
    }
    spt_tot_inner e;
    if (spt_tot_entry(t, n, &e) != SPT_ERANGE) fz_die(op, "entry(count) is not ERANGE");
    if (total != spt_tot_total_size(t)) fz_die(op, "total_size differs");
}

/* Two ToTs hold the same elements (bytewise). */
static void same_tot(const char *op, const spt_tot *a, const spt_tot *b) {
    if (spt_tot_count(a) != spt_tot_count(b) || spt_tot_total_size(a) != spt_tot_total_size(b))
        fz_die(op, "ToTs differ in count");
    size_t es = spt_dtype_size(spt_tot_dtype(a));
    for (int64_t i = 0; i < spt_tot_count(a); i++) {
        spt_tot_inner x, y;
        spt_tot_entry(a, i, &x);
        spt_tot_entry(b, i, &y);
        if (cmp_rows(x.outer, y.outer, spt_tot_outer_rank(a)) || x.size != y.size ||
            memcmp(x.data, y.data, (size_t)x.size * es))
            fz_die(op, "ToTs differ in an element");
    }
}

static void do_domain(fz_in *in) {
    int64_t r = fz_u8(in) % 4, n = fz_u8(in) % 10;
    if (fz_u8(in) == 1) r = fz_int(in, 3);
    if (r < 0 || r > 8) {
        spt_domain *d = FZ_SENTINEL;
        spt_status st = spt_domain_new(r, n, NULL, &d);
        fz_check_status("spt_domain_new", st, d);
        if (st == SPT_OK && n * (r > 0) > 0) fz_die("spt_domain_new", "accepted NULL indices");
        spt_domain_free(st == SPT_OK ? d : NULL);
        return;
    }
    int64_t *ix = rows(in, n, r, 4);
    spt_domain *d = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_domain_new(r, n, ix, &d);
    fz_op_end();
    fz_check_status("spt_domain_new", st, d);
    if (st == SPT_OK) {
        check_domain("spt_domain_new", d);
        for (int64_t i = 0; i < n; i++)
            if (!spt_domain_contains(d, ix + i * r)) fz_die("spt_domain_new", "an input index is missing");
        int64_t pos[8], probe[8];
        for (int64_t k = 0; k < r; k++) probe[k] = fz_int(in, 5);
        st = spt_domain_result_index(d, fz_u8(in) == 2 ? r + 1 : r, probe, pos);
        fz_check_status("spt_domain_result_index", st, NULL);
        /* injection of the whole domain */
        int64_t ninj = fz_u8(in) % 3, modes[4], vals[4];
        for (int64_t k = 0; k < ninj; k++) {
            modes[k] = fz_int(in, r + ninj);
            vals[k] = fz_int(in, 3);
        }
        spt_domain *e = FZ_SENTINEL;
        fz_op_begin();
        st = spt_domain_inject(d, ninj, modes, vals, &e);
        fz_op_end();
        fz_check_status("spt_domain_inject", st, e);
        if (st == SPT_OK) {
            check_domain("spt_domain_inject", e);
            if (spt_domain_size(e) != spt_domain_size(d)) fz_die("spt_domain_inject", "size changed");
            spt_domain_free(e);
        }
        spt_domain_free(d);
    }
    free(ix);
}

static void do_inject(fz_in *in) {
    int64_t r = fz_u8(in) % 5, ninj = fz_u8(in) % 4, index[8], modes[8], vals[8], out[16], back[16];
    if (fz_u8(in) == 3) ninj = fz_int(in, 4);
    if (ninj > 8) ninj = 8;
    for (int64_t k = 0; k < r; k++) index[k] = fz_int(in, 5);
    for (int64_t k = 0; k < ninj; k++) {
        modes[k] = fz_int(in, r + ninj);
        vals[k] = fz_int(in, 5);
    }
    spt_status st = spt_inject_index(r, index, ninj, modes, vals, out);
    fz_check_status("spt_inject_index", st, NULL);
    if (st != SPT_OK || ninj < 0) return;
    for (int64_t k = 0; k < ninj; k++)
        if (out[modes[k]] != vals[k]) fz_die("spt_inject_index", "injected value misplaced");
    st = spt_uninject_index(r + ninj, out, ninj, modes, back);
    fz_check_status("spt_uninject_index", st, NULL);
    if (st != SPT_OK || memcmp(back, index, (size_t)r * 8)) fz_die("spt_uninject_index", "does not invert inject");
}

static spt_sparse_map *decode_map(fz_in *in, int64_t ir, int64_t dr, int64_t maxv) {
    int64_t np = fz_u8(in) % 10, nk = fz_u8(in) % 4;
    bool with_keys = fz_bool(in);
    int64_t *ind = rows(in, np, ir, maxv), *dep = rows(in, np, dr, maxv), *keys = rows(in, nk, ir, maxv);
    spt_sparse_map *m = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = with_keys ? spt_sparse_map_new_with_keys(ir, dr, nk, keys, np, ind, dep, &m)
                              : spt_sparse_map_new(ir, dr, np, ind, dep, &m);
    fz_op_end();
    fz_check_status("spt_sparse_map_new", st, m);
    if (st == SPT_OK) {
        check_map("spt_sparse_map_new", m);
        for (int64_t i = 0; i < np; i++)
            if (!spt_sparse_map_contains(m, ind + i * ir, dep + i * dr))
                fz_die("spt_sparse_map_new", "a pair is missing");
        if (spt_sparse_map_ind_rank(m) != ir || spt_sparse_map_dep_rank(m) != dr) fz_die("spt_sparse_map_new", "ranks");
    }
    free(ind);
    free(dep);
    free(keys);
    return st == SPT_OK ? m : NULL;
}

static void do_map(fz_in *in) {
    int64_t ir = fz_u8(in) % 4, dr = fz_u8(in) % 4;
    spt_sparse_map *m = decode_map(in, ir, dr, 5);
    spt_sparse_map_free(m);
}

static void do_tot_new(fz_in *in) {
    int dt = fz_u8(in) % SPT_NUM_DTYPES;
    int64_t orank = fz_u8(in) % 3, irank = fz_u8(in) % 3, n = fz_u8(in) % 5, osh[4], total = 0;
    for (int64_t k = 0; k < orank; k++) osh[k] = fz_int(in, 4);
    int64_t *outer = rows(in, n, orank, 4), *ish = rows(in, n, irank, 3);
    for (int64_t i = 0; i < n; i++) {
        int64_t s = 1;
        for (int64_t k = 0; k < irank; k++) {
            int64_t dim = ish[i * irank + k];
            if (dim >= 8) { /* the caller must pass that many values: keep the buffer small */
                free(outer);
                free(ish);
                return;
            }
            s *= dim >= 0 ? dim : 1;
        }
        total += s;
    }
    size_t es = spt_dtype_size((spt_dtype)dt);
    char *vals = calloc((size_t)total + 1, es ? es : 1);
    if (!vals) abort();
    if (dt != SPT_STRING && dt != SPT_BOOL) fz_bytes(in, vals, (size_t)total * es);
    spt_tot *t = FZ_SENTINEL;
    fz_op_begin();
    spt_status st = spt_tot_new((spt_dtype)dt, orank, osh, irank, n, outer, ish, vals, &t);
    fz_op_end();
    fz_check_status("spt_tot_new", st, t);
    if (st == SPT_OK) {
        check_tot("spt_tot_new", t);
        spt_tot_free(t);
    }
    free(outer);
    free(ish);
    free(vals);
}

static void do_sparsify(fz_in *in, int mode) {
    int64_t ir = fz_u8(in) % 3, dr = fz_u8(in) % 3, nmap = fz_u8(in) % 3;
    if (nmap > ir && fz_u8(in) != 4) nmap = ir;
    int64_t trank = dr + nmap;
    if (fz_u8(in) == 5) trank++;
    spt_sparse_map *m = decode_map(in, ir, dr, 3);
    if (!m) return;
    int64_t i2m[8], osh[4];
    for (int64_t p = 0; p < nmap; p++) {
        i2m[2 * p] = fz_u8(in) < 240 ? p : fz_int(in, ir);
        i2m[2 * p + 1] = fz_u8(in) < 200 ? dr + p : fz_int(in, trank);
    }
    for (int64_t k = 0; k < ir; k++) osh[k] = fz_u8(in) < 230 ? 4 : fz_int(in, 4);
    fz_tspec spec = {.dtype = fz_u8(in) < 200 ? SPT_FLOAT64 : -1,
                     .rank = trank,
                     .max_nnz = 16,
                     .no_huge_dims = true,
                     .numeric_only = fz_u8(in) < 250};
    int64_t tshape[8];
    for (int64_t k = 0; k < trank; k++) tshape[k] = fz_u8(in) < 230 ? 4 : fz_u8(in) % 6;
    spec.shape = tshape;
    spt_tensor *T = fz_tensor(in, &spec);
    if (!T) {
        spt_sparse_map_free(m);
        return;
    }
    spt_dense *D = NULL;
    spt_tot *a = FZ_SENTINEL, *b = FZ_SENTINEL;
    spt_status st;
    uint64_t h = fz_hash_tensor(T);
    fz_op_begin();
    st = spt_sparsify(T, m, nmap, i2m, osh, &a);
    fz_op_end();
    fz_check_status("spt_sparsify", st, a);
    if (fz_hash_tensor(T) != h) fz_die("spt_sparsify", "modified T");
    if (st == SPT_OK) check_tot("spt_sparsify", a);
    if (st == SPT_OK && fz_u8(in) < 128) {
        /* the same entries in a shape of any volume, dims drawn on both sides of the key engine's
         * boundaries (2^32 x 2^32 is 64 bits, 2^32+1 x 2^32 65; 2^62 x 2^62 x 16 is 128, x 32 129;
         * FROSTT nell-1's dims; 2^63-1), and a large outer shape: the lexicographic order of the rows and
         * the per-mode ranks do not change, so neither does the ToT */
        static const int64_t big[] = {
            (int64_t)1 << 32, ((int64_t)1 << 32) + 1, 16, 32, (int64_t)1 << 62, 2902330, 2143368, 25495389, INT64_MAX};
        const int64_t nbig = (int64_t)(sizeof big / sizeof big[0]);
        int64_t bsh[8], bosh[4];
        for (int64_t k = 0; k < trank; k++) bsh[k] = tshape[k] == 0 ? 0 : big[fz_u8(in) % nbig];
        for (int64_t k = 0; k < ir; k++) { /* never smaller: every key stays inside */
            bosh[k] = osh[k] == 0 || fz_u8(in) < 64 ? osh[k] : big[fz_u8(in) % nbig];
            if (bosh[k] < osh[k]) bosh[k] = osh[k];
        }
        spt_tensor *T2 = NULL;
        if (spt_tensor_new(spt_tensor_dtype(T), trank, bsh, spt_tensor_nnz(T), spt_tensor_indices(T),
                           spt_tensor_values(T), NULL, &T2) == SPT_OK) {
            int64_t ord[8], rot = trank > 0 ? fz_u8(in) % trank : 0;
            for (int64_t k = 0; k < trank; k++) ord[k] = (k + rot) % trank;
            spt_status so = fz_u8(in) & 1 ? spt_reorder(T2, ord) : SPT_OK; /* searched in place, any order */
            if (so != SPT_OK && so != SPT_ENOMEM) fz_die("spt_reorder", "fails on a valid tensor of any volume");
            spt_tot *c = FZ_SENTINEL;
            fz_op_begin();
            spt_status s3 = spt_sparsify(T2, m, nmap, i2m, bosh, &c);
            fz_op_end();
            fz_check_status("spt_sparsify", s3, c);
            if (s3 == SPT_OK) {
                check_tot("spt_sparsify (any volume)", c);
                same_tot("spt_sparsify on a shape of any volume vs the small shape", a, c);
                spt_tot_free(c);
            } else if (s3 != SPT_ENOMEM) {
                fz_die("spt_sparsify", "fails on a shape of any volume where the small shape succeeds");
            }
            spt_tensor_free(T2);
        }
    }
    if (spt_to_dense(T, NULL, false, &D) == SPT_OK) {
        spt_status st2 = spt_sparsify_dense(D, m, nmap, i2m, osh, &b);
        const bool have_b = st2 == SPT_OK; /* st2 is reused by the blocks below */
        fz_check_status("spt_sparsify_dense", st2, b);
        if (st2 != st && st2 != SPT_ENOMEM && st != SPT_ENOMEM)
            fz_die("spt_sparsify", "status differs from spt_sparsify_dense(to_dense(T))");
        if (st == SPT_OK && st2 == SPT_OK) {
            check_tot("spt_sparsify_dense", b);
            same_tot("spt_sparsify vs spt_sparsify_dense", a, b);
        }
        if (st2 == SPT_OK && mode >= 1) {
            /* blocks of a partition hold exactly the whole result */
            int64_t vol = 1;
            bool zero = false, past = false; /* an outer volume past INT64_MAX: the int64 bounds cannot reach it */
            for (int64_t k = 0; k < ir; k++) zero |= osh[k] == 0;
            for (int64_t k = 0; k < ir && !zero; k++) past |= __builtin_mul_overflow(vol, osh[k], &vol);
            if (zero) vol = 0;
            if (past) {
                spt_tot *p0 = FZ_SENTINEL;
                st = spt_sparsify_block(T, m, nmap, i2m, osh, 0, 0, &p0);
                fz_check_status("spt_sparsify_block", st, p0);
                if (st != SPT_EOVERFLOW) fz_die("spt_sparsify_block", "outer volume past INT64_MAX not refused");
                vol = 0;
            }
            int64_t cut = vol > 0 ? fz_range(in, 0, vol) : 0, count = 0;
            spt_tot *p1 = FZ_SENTINEL, *p2 = FZ_SENTINEL;
            fz_op_begin();
            st = spt_sparsify_block(T, m, nmap, i2m, osh, 0, cut, &p1);
            fz_op_end();
            fz_check_status("spt_sparsify_block", st, p1);
            st2 = spt_sparsify_dense_block(D, m, nmap, i2m, osh, cut, vol, &p2);
            fz_check_status("spt_sparsify_dense_block", st2, p2);
            if (st == SPT_OK) check_tot("spt_sparsify_block", p1), count += spt_tot_count(p1);
            if (st2 == SPT_OK) check_tot("spt_sparsify_dense_block", p2), count += spt_tot_count(p2);
            if (st == SPT_OK && st2 == SPT_OK && count != spt_tot_count(b))
                fz_die("spt_sparsify_block", "blocks do not partition the result");
            if (st == SPT_OK) spt_tot_free(p1);
            if (st2 == SPT_OK) spt_tot_free(p2);
            /* and back */
            spt_dense *R = FZ_SENTINEL;
            int64_t rsh[4];
            for (int64_t k = 0; k < dr; k++)
                rsh[k] = fz_u8(in) < 240 ? 4 : (int64_t)(fz_u8(in) % 7) - 1; /* the dense result is allocated: small */
            fz_op_begin();
            st = spt_reduce_tot_sum(b, m, fz_u8(in) == 6 ? dr + 1 : dr, rsh, &R);
            fz_op_end();
            fz_check_status("spt_reduce_tot_sum", st, R);
            if (st == SPT_OK) {
                fz_check_dense("spt_reduce_tot_sum", R);
                spt_dense_free(R);
            }
        }
        if (have_b) spt_tot_free(b);
        spt_dense_free(D);
    }
    if (a != FZ_SENTINEL) spt_tot_free(a);
    spt_tensor_free(T);
    spt_sparse_map_free(m);
}

static void act_domain(fz_in *in, spt_tensor *t) {
    (void)t;
    do_domain(in);
}
static void act_inject(fz_in *in, spt_tensor *t) {
    (void)t;
    do_inject(in);
}
static void act_map(fz_in *in, spt_tensor *t) {
    (void)t;
    do_map(in);
}
static void act_tot_new(fz_in *in, spt_tensor *t) {
    (void)t;
    do_tot_new(in);
}
static void act_sparsify(fz_in *in, spt_tensor *t) {
    (void)t;
    do_sparsify(in, 0);
}
static void act_sparsify_block(fz_in *in, spt_tensor *t) {
    (void)t;
    do_sparsify(in, 1);
}
static void act_domain_inject(fz_in *in, spt_tensor *t) {
    (void)t;
    do_domain(in);
    do_inject(in);
}

static const fz_action actions[] = {
    {"domain", FZ_OP(spt_domain_inject), act_domain, true},
    {"inject", FZ_OP(spt_inject_index), act_inject, true},
    {"sparse_map", FZ_OP(spt_sparse_map_new), act_map, true},
    {"tot_new", FZ_OP(spt_tot_new), act_tot_new, true},
    {"sparsify", FZ_OP(spt_sparsify), act_sparsify, true},
    {"sparsify_block", FZ_OP(spt_sparsify_block), act_sparsify_block, true},
    {"sparsify_block", FZ_OP(spt_sparsify_block), act_sparsify_block, true},
    {"domain_inject", FZ_OP(spt_domain_inject), act_domain_inject, true},
};
FZ_ALSO(FZ_OP(spt_domain_result_index), FZ_OP(spt_uninject_index), FZ_OP(spt_reduce_tot_sum), FZ_OP(spt_sparsify_dense),
        FZ_OP(spt_sparsify_dense_block));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)].run(&in, NULL);
    return 0;
}
