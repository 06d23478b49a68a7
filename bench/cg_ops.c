/* SPDX-License-Identifier: Apache-2.0 */
/* cg_ops.c -- one call of an op of bench_core's workloads (and bench_algebra's spgemm_rand, smaller), for
 * counting instructions under valgrind --tool=callgrind: only the function cg_op is collected.
 *
 *   cc -O2 -g -fopenmp -Iinclude bench/cg_ops.c build/libspt.a -lm -lzip -lpng16 -o build/cg/cg_ops
 *   OMP_NUM_THREADS=1 valgrind --tool=callgrind --toggle-collect=cg_op build/cg/cg_ops OP NNZ
 *
 * OP: reorder (3-D [1000]^3, unsorted; reorder2: 2-D [1e6]^2), add, subtract, maximum, minimum (2-D [1e6]^2,
 * canonical; add3, subtract3, maximum3, minimum3: 3-D [1000]^3), reduce_axis1 and reduce_all (2-D,
 * canonical; one warm-up call first, which builds the row pointer), reduce3_axis1 (reduce_sum) and
 * reduce3_axis2 (reduce_max) of a 3-D [1000]^3 canonical tensor, spgemm (A x B, [1e5]^2 random with NNZ
 * distinct entries each). Inputs are bench_gen.h's, as in bench_core. */
#include "spt.h"
#include "bench_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static spt_tensor *make(int input, bool canonical, int64_t r, const int64_t *shape, int64_t n) {
    spt_tensor *t = NULL;
    if (spt_tensor_alloc(SPT_FLOAT64, r, shape, n, &t) != SPT_OK) exit(2);
    if (canonical) bg_canonical(input, r, shape, n, spt_tensor_indices_mut(t), spt_tensor_values_mut(t));
    else bg_unsorted(input, r, shape, n, spt_tensor_indices_mut(t), spt_tensor_values_mut(t));
    if (canonical && spt_reorder(t, NULL) != SPT_OK) exit(2);
    return t;
}

static const char *op;
static spt_tensor *a, *b, *out;
static spt_dense *dout;

__attribute__((noinline)) static spt_status cg_op(void) {
    if (!strncmp(op, "reorder", 7)) return spt_reorder(a, NULL);
    if (!strncmp(op, "add", 3)) return spt_add(a, b, 0.0, &out);
    if (!strncmp(op, "subtract", 8)) return spt_subtract(a, b, &out);
    if (!strncmp(op, "maximum", 7)) return spt_maximum(a, b, &out);
    if (!strncmp(op, "minimum", 7)) return spt_minimum(a, b, &out);
    if (!strcmp(op, "reduce_axis1")) return spt_reduce_sum(a, (const int64_t[]){1}, 1, false, &dout);
    if (!strcmp(op, "reduce_all")) return spt_reduce_sum(a, NULL, 0, false, &dout);
    if (!strcmp(op, "reduce3_axis1")) return spt_reduce_sum(a, (const int64_t[]){1}, 1, false, &dout);
    if (!strcmp(op, "reduce3_axis2")) return spt_reduce_max(a, (const int64_t[]){2}, 1, false, &dout);
    return spt_sparse_sparse_matmul(a, b, false, false, false, &out);
}

/* FNV-1a of n bytes (the output's bits, to compare builds). */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    op = argv[1];
    int64_t n = atoll(argv[2]);
    int64_t s3[3] = {1000, 1000, 1000}, s2[2] = {1000000, 1000000}, sg[2] = {100000, 100000};
    const size_t ol = strlen(op);
    if (!strcmp(op, "reorder")) a = make(0, false, 3, s3, n);
    else if (!strcmp(op, "reorder2")) a = make(0, false, 2, s2, n);
    else if (op[ol - 1] == '3' && strncmp(op, "reduce", 6)) a = make(0, true, 3, s3, n), b = make(1, true, 3, s3, n);
    else if (!strncmp(op, "reduce3", 7)) a = make(0, true, 3, s3, n);
    else if (!strcmp(op, "spgemm")) a = make(0, true, 2, sg, n), b = make(1, true, 2, sg, n);
    else a = make(0, true, 2, s2, n), b = make(1, true, 2, s2, n);
    if (!strncmp(op, "reduce_", 7)) { /* warm-up: the row pointer */
        if (spt_reduce_sum(a, (const int64_t[]){1}, 1, false, &dout) != SPT_OK) return 2;
        spt_dense_free(dout);
        dout = NULL;
    }
    spt_status st = cg_op();
    uint64_t h = 0xcbf29ce484222325ull;
    const spt_tensor *res = !strncmp(op, "reorder", 7) ? a : out;
    if (res) {
        int64_t m = spt_tensor_nnz(res);
        h = fnv(h, spt_tensor_indices(res), (size_t)(m * spt_tensor_rank(res)) * sizeof(int64_t));
        h = fnv(h, spt_tensor_values(res), (size_t)m * sizeof(double));
    }
    if (dout) h = fnv(h, spt_dense_data(dout), (size_t)spt_dense_size(dout) * sizeof(double));
    printf("%s %lld: %s nnz_out %lld bits %016llx\n", op, (long long)n, spt_status_name(st),
           out ? (long long)spt_tensor_nnz(out) : -1LL, (unsigned long long)h);
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(out);
    spt_dense_free(dout);
    return st != SPT_OK;
}
