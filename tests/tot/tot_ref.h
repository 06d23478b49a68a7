/* SPDX-License-Identifier: Apache-2.0 */
/* tot_ref.h -- shared by the tests/tot programs: a fixed-seed PRNG, ToT comparison, and a naive
 * reference of sparsify written straight from the spec (sparsify_tot.md section 3), independent of the
 * library's storage. */
#ifndef TOT_REF_H
#define TOT_REF_H

#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

static uint64_t ref_state = 0x9e3779b97f4a7c15u;
static inline uint64_t ref_next(void) {
    uint64_t z = (ref_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static inline int64_t ref_rand(int64_t n) { return n > 0 ? (int64_t)(ref_next() % (uint64_t)n) : 0; }

/* Two ToTs hold the same value: same ranks, outer shape, dtype, non-empty set, inner shapes and bytes. */
static inline void tot_expect_equal(const spt_tot *a, const spt_tot *b) {
    assert_int_equal(spt_tot_dtype(a), spt_tot_dtype(b));
    assert_int_equal(spt_tot_outer_rank(a), spt_tot_outer_rank(b));
    assert_int_equal(spt_tot_inner_rank(a), spt_tot_inner_rank(b));
    for (int64_t k = 0; k < spt_tot_outer_rank(a); k++)
        assert_int_equal(spt_tot_outer_shape(a)[k], spt_tot_outer_shape(b)[k]);
    assert_int_equal(spt_tot_count(a), spt_tot_count(b));
    size_t es = spt_dtype_size(spt_tot_dtype(a));
    for (int64_t i = 0; i < spt_tot_count(a); i++) {
        spt_tot_inner x, y;
        ASSERT_OK(spt_tot_entry(a, i, &x));
        ASSERT_OK(spt_tot_entry(b, i, &y));
        assert_true(x.present && y.present);
        if (spt_tot_outer_rank(a))
            assert_memory_equal(x.outer, y.outer, (size_t)spt_tot_outer_rank(a) * sizeof(int64_t));
        assert_int_equal(x.size, y.size);
        for (int64_t k = 0; k < x.rank; k++) assert_int_equal(x.shape[k], y.shape[k]);
        if (x.size) assert_memory_equal(x.data, y.data, (size_t)x.size * es);
    }
}

/* The naive reference. T: dense float64 data of rank R, shape S. The map is given as raw pairs
 * (ind: npairs x NI, dep: npairs x D; any order, duplicates). Checks every outer element of `t`. */
static inline void ref_check(const spt_tot *t, const double *T, int64_t R, const int64_t *S, int64_t NI, int64_t D,
                             int64_t npairs, const int64_t *ind, const int64_t *dep, int64_t nmap, const int64_t *i2m,
                             const int64_t *oshape) {
    int64_t ovol = 1;
    for (int64_t k = 0; k < NI; k++) ovol *= oshape[k];
    int64_t *sel = malloc((size_t)(npairs + 1) * sizeof(int64_t));
    int64_t *distinct = malloc((size_t)(npairs * (D ? D : 1) + 1) * sizeof(int64_t));
    int64_t nd[64], dstart[64];
    int64_t nonempty = 0;
    for (int64_t lin = 0; lin < ovol; lin++) {
        int64_t o[64], rem = lin;
        for (int64_t k = NI - 1; k >= 0; k--) {
            o[k] = rem % oshape[k];
            rem /= oshape[k];
        }
        int64_t ns = 0;
        for (int64_t p = 0; p < npairs; p++)
            if (!memcmp(ind + p * NI, o, (size_t)NI * sizeof(int64_t))) sel[ns++] = p;
        spt_tot_inner in;
        ASSERT_OK(spt_tot_get(t, o, &in));
        if (ns == 0) {
            assert_false(in.present);
            continue;
        }
        nonempty++;
        assert_true(in.present);
        assert_int_equal(in.rank, D);
        /* per mode: distinct values sorted (insertion into a sorted list) */
        int64_t off = 0;
        for (int64_t j = 0; j < D; j++) {
            dstart[j] = off;
            nd[j] = 0;
            for (int64_t s = 0; s < ns; s++) {
                int64_t v = dep[sel[s] * D + j], pos = 0;
                while (pos < nd[j] && distinct[off + pos] < v) pos++;
                if (pos < nd[j] && distinct[off + pos] == v) continue;
                memmove(distinct + off + pos + 1, distinct + off + pos, (size_t)(nd[j] - pos) * sizeof(int64_t));
                distinct[off + pos] = v;
                nd[j]++;
            }
            off += nd[j];
            assert_int_equal(in.shape[j], nd[j]);
        }
        int64_t vol = 1;
        for (int64_t j = 0; j < D; j++) vol *= nd[j];
        assert_int_equal(in.size, vol);
        double *want = calloc((size_t)vol, sizeof(double));
        for (int64_t s = 0; s < ns; s++) {
            const int64_t *x = dep + sel[s] * D;
            int64_t y[64], pinned[64] = {0}, pos = 0;
            for (int64_t q = 0; q < nmap; q++) {
                pinned[i2m[2 * q + 1]] = 1;
                y[i2m[2 * q + 1]] = o[i2m[2 * q]];
            }
            for (int64_t m = 0, nx = 0; m < R; m++)
                if (!pinned[m]) y[m] = x[nx++];
            int64_t toff = 0;
            for (int64_t m = 0; m < R; m++) toff = toff * S[m] + y[m];
            for (int64_t j = 0; j < D; j++) {
                int64_t r = 0;
                while (distinct[dstart[j] + r] != x[j]) r++;
                pos = pos * nd[j] + r;
            }
            want[pos] = T[toff];
        }
        const double *got = in.data;
        for (int64_t k = 0; k < vol; k++) assert_true(got[k] == want[k]);
        free(want);
    }
    assert_int_equal(spt_tot_count(t), nonempty);
    free(sel);
    free(distinct);
}

#endif
