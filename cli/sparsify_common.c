/* SPDX-License-Identifier: Apache-2.0 */
/* sparsify_common.c -- the parts of `spt sparsify` its MPI twin (cli/mpi_main.c) shares: options, the
 * map file turned into a sparse map, the output of the tensor-of-tensors. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "sparsify_common.h"

static void print_value(spt_dtype d, const void *v, int64_t i) {
    switch (d) {
#define PV_BOOL(T, x) printf("%d", (x) ? 1 : 0)
#define PV_INT(T, x) printf("%lld", (long long)(x))
#define PV_UINT(T, x) printf("%llu", (unsigned long long)(x))
#define PV_FLOAT(T, x) printf("%.17g", (double)(x))
#define PV_COMPLEX(T, x) printf("%.17g%+.17gi", (double)creal(x), (double)cimag(x))
#define PV_STRING(T, x) printf("?")
#define X(E, name, T, KIND)                                                                                            \
    case E:                                                                                                            \
        PV_##KIND(T, ((const T *)v)[i]);                                                                               \
        break;
#include "spt_dtypes.def"
#undef X
    default: break;
    }
}

static void print_dims(const int64_t *v, int64_t n) {
    printf("[");
    for (int64_t k = 0; k < n; k++) printf("%s%lld", k ? ", " : "", (long long)v[k]);
    printf("]");
}

/* malloc of (n * per + 1) elements of es bytes (the + 1: never a zero-byte request), NULL when the size
 * does not fit in size_t or the memory is not there; *bytes gets the size asked for (0 on overflow). */
static void *alloc_rows(int64_t n, int64_t per, size_t es, size_t *bytes) {
    *bytes = 0;
    if (n < 0 || per < 0 || es == 0) return NULL;
    if (per > 0 && (uint64_t)n > (SIZE_MAX / es - 1) / (uint64_t)per) return NULL;
    *bytes = ((size_t)n * (size_t)per + 1) * es;
    return malloc(*bytes);
}

static int alloc_failed(const cli_args *a, int64_t n, int64_t per, size_t bytes) {
    if (bytes == 0)
        fprintf(stderr, "spt %s: %lld x %lld elements do not fit in memory's address range\n", a->cmd, (long long)n,
                (long long)per);
    else fprintf(stderr, "spt %s: cannot allocate %zu bytes\n", a->cmd, bytes);
    return CLI_BAD_INPUT;
}

/* The ToT flattened into one tensor of rank outer + inner: every element of every present inner
 * tensor (zeros included) at (outer..., inner...). */
static int flatten(const cli_args *a, const spt_tot *tot, spt_tensor **out) {
    const int64_t orank = spt_tot_outer_rank(tot), irank = spt_tot_inner_rank(tot), cnt = spt_tot_count(tot);
    const int64_t n = spt_tot_total_size(tot), r = orank + irank;
    const spt_dtype dt = spt_tot_dtype(tot);
    const size_t es = spt_dtype_size(dt);
    int64_t shape[SPT_MAX_RANK] = {0};
    memcpy(shape, spt_tot_outer_shape(tot), sizeof(int64_t) * (size_t)orank);
    size_t ib, vb;
    int64_t *ix = alloc_rows(n, r, sizeof(int64_t), &ib);
    char *vals = ix ? alloc_rows(n, 1, es, &vb) : NULL;
    if (!vals) {
        int rc = ix ? alloc_failed(a, n, 1, vb) : alloc_failed(a, n, r, ib);
        free(ix);
        return rc;
    }
    int64_t m = 0;
    spt_status st = SPT_OK;
    for (int64_t e = 0; e < cnt && st == SPT_OK; e++) {
        spt_tot_inner in;
        st = spt_tot_entry(tot, e, &in);
        if (st != SPT_OK) break;
        for (int64_t k = 0; k < irank; k++)
            if (in.shape[k] > shape[orank + k]) shape[orank + k] = in.shape[k];
        int64_t pos[SPT_MAX_RANK] = {0};
        for (int64_t j = 0; j < in.size; j++, m++) {
            memcpy(ix + m * r, in.outer, sizeof(int64_t) * (size_t)orank);
            memcpy(ix + m * r + orank, pos, sizeof(int64_t) * (size_t)irank);
            memcpy(vals + (size_t)m * es, (const char *)in.data + (size_t)j * es, es);
            for (int64_t k = irank - 1; k >= 0; k--) {
                if (++pos[k] < in.shape[k]) break;
                pos[k] = 0;
            }
        }
    }
    if (st == SPT_OK) st = spt_tensor_new(dt, r, shape, m, ix, vals, NULL, out);
    free(ix);
    free(vals);
    return st == SPT_OK ? 0 : cli_fail(a, st);
}

int cli_sparsify_args(const cli_args *a, int64_t *ind_rank, int64_t *pairs, int64_t *np, int64_t *oshape,
                      bool *has_oshape) {
    const char *ir = cli_opt(a, "ind-rank"), *mp = cli_opt(a, "map"), *os = cli_opt(a, "outer-shape");
    *np = 0;
    *has_oshape = os != NULL;
    if (!ir || !cli_parse_int(ir, ind_rank) || *ind_rank < 0 || *ind_rank > SPT_MAX_RANK)
        return cli_usage_error(a, "--ind-rank needs the number of independent (key) dims of the map");
    if (mp) {
        const char *p = mp;
        while (*p) {
            char *e;
            if (*np >= 2 * SPT_MAX_RANK) return cli_usage_error(a, "--map has too many pairs");
            pairs[(*np)++] = strtoll(p, &e, 10);
            if (e == p || *e != ':') return cli_usage_error(a, "--map needs pairs KEYMODE:TMODE separated by commas");
            p = e + 1;
            pairs[(*np)++] = strtoll(p, &e, 10);
            if (e == p || (*e && *e != ','))
                return cli_usage_error(a, "--map needs pairs KEYMODE:TMODE separated by commas");
            p = *e ? e + 1 : e;
        }
    }
    int64_t nos = 0;
    if (os && (!cli_parse_list(os, oshape, SPT_MAX_RANK, &nos) || nos != *ind_rank))
        return cli_usage_error(a, "--outer-shape needs %lld comma-separated dims (the --ind-rank), found '%s'",
                               (long long)*ind_rank, os);
    return -1;
}

int cli_sparsify_map(const cli_args *a, const spt_tensor *map, int64_t ind_rank, spt_sparse_map **out,
                     int64_t *default_oshape) {
    const int64_t mr = spt_tensor_rank(map), n = spt_tensor_nnz(map);
    *out = NULL;
    if (ind_rank > mr) {
        fprintf(stderr, "spt sparsify: --ind-rank %lld exceeds the map file's rank %lld\n", (long long)ind_rank,
                (long long)mr);
        return CLI_BAD_INPUT;
    }
    const int64_t dr = mr - ind_rank;
    size_t ib, db;
    int64_t *ind = alloc_rows(n, ind_rank, sizeof(int64_t), &ib);
    int64_t *dep = ind ? alloc_rows(n, dr, sizeof(int64_t), &db) : NULL;
    if (!dep) {
        int rc = ind ? alloc_failed(a, n, dr, db) : alloc_failed(a, n, ind_rank, ib);
        free(ind);
        return rc;
    }
    const int64_t *ix = spt_tensor_indices(map);
    for (int64_t i = 0; i < n; i++) {
        memcpy(ind + i * ind_rank, ix + i * mr, sizeof(int64_t) * (size_t)ind_rank);
        memcpy(dep + i * dr, ix + i * mr + ind_rank, sizeof(int64_t) * (size_t)dr);
    }
    spt_status st = spt_sparse_map_new(ind_rank, dr, n, ind, dep, out);
    free(ind);
    free(dep);
    if (st != SPT_OK) return cli_fail(a, st);
    if (default_oshape) memcpy(default_oshape, spt_tensor_shape(map), sizeof(int64_t) * (size_t)ind_rank);
    return 0;
}

int cli_sparsify_output(const cli_args *a, const spt_tot *tot) {
    if (cli_opt(a, "output")) {
        spt_tensor *flat = NULL;
        int rc = flatten(a, tot, &flat);
        if (rc == 0) rc = cli_write(a, flat);
        spt_tensor_free(flat);
        return rc;
    }
    printf("tot: outer shape ");
    print_dims(spt_tot_outer_shape(tot), spt_tot_outer_rank(tot));
    printf(", inner rank %lld, %lld non-empty outer elements, %lld inner values\n", (long long)spt_tot_inner_rank(tot),
           (long long)spt_tot_count(tot), (long long)spt_tot_total_size(tot));
    for (int64_t e = 0; e < spt_tot_count(tot); e++) {
        spt_tot_inner in;
        if (spt_tot_entry(tot, e, &in) != SPT_OK) break;
        print_dims(in.outer, spt_tot_outer_rank(tot));
        printf(": shape ");
        print_dims(in.shape, in.rank);
        printf(":");
        for (int64_t j = 0; j < in.size; j++) {
            printf(" ");
            print_value(spt_tot_dtype(tot), in.data, j);
        }
        printf("\n");
    }
    return 0;
}
