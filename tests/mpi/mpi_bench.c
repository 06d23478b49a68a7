/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_bench.c -- a 10^7-entry distributed reorder: bytes each rank sent and the time, with the serial
 * spt_reorder time beside it (measured at np=1). Usage: mpirun -np P mpi_bench [N]. The data is the
 * same at every P: entry i has indices drawn from a hash of i, shape 1000 x 1000 x 1000, float64. */
#include <stdio.h>
#include <stdlib.h>

#include "spt.h"
#include "spt_mpi.h"

static uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static spt_tensor *make_piece(int64_t lo, int64_t hi, const int64_t *shape) {
    spt_tensor *t = NULL;
    if (spt_tensor_alloc(SPT_FLOAT64, 3, shape, hi - lo, &t) != SPT_OK) return NULL;
    int64_t *ix = spt_tensor_indices_mut(t);
    double *v = spt_tensor_values_mut(t);
    for (int64_t i = lo; i < hi; i++) {
        uint64_t h = mix((uint64_t)i);
        for (int k = 0; k < 3; k++) ix[(i - lo) * 3 + k] = (int64_t)((h >> (20 * k)) % (uint64_t)shape[k]);
        v[i - lo] = (double)(i % 1000);
    }
    return t;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t N = argc > 1 ? atoll(argv[1]) : 10000000;
    static const int64_t shape[3] = {1000, 1000, 1000}, order[3] = {2, 0, 1};
    spt_mpi_ctx *ctx = NULL;
    if (spt_mpi_ctx_new(MPI_COMM_WORLD, &ctx) != SPT_OK) MPI_Abort(MPI_COMM_WORLD, 2);
    int64_t lo = N * rank / P, hi = N * (rank + 1) / P;
    spt_tensor *piece = make_piece(lo, hi, shape);
    spt_dtensor *d = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    spt_status st = spt_dtensor_from_local(ctx, piece, NULL, &d);
    double t1 = MPI_Wtime();
    int64_t pb0, mb0, pb1, mb1;
    spt_mpi_ctx_traffic(ctx, &pb0, &mb0);
    spt_mpi_ctx_reset_traffic(ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    if (st == SPT_OK) st = spt_dtensor_reorder(d, order);
    double t3 = MPI_Wtime();
    spt_mpi_ctx_traffic(ctx, &pb1, &mb1);
    if (st != SPT_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, spt_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double tf = t1 - t0, tr = t3 - t2, tfm, trm;
    MPI_Reduce(&tf, &tfm, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tr, &trm, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int64_t mine[5] = {pb0, mb0, pb1, mb1, spt_dtensor_count(d, rank)}, *all = NULL;
    if (rank == 0) all = malloc(sizeof mine * (size_t)P);
    MPI_Gather(mine, 5, MPI_INT64_T, all, 5, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("P=%d N=%lld (rank 3, float64: 32 bytes per entry)\n", P, (long long)N);
        printf("  from_local (unsorted pieces -> row-major ranges): %.3f s\n", tfm);
        printf("  reorder (row-major -> {2,0,1}):                   %.3f s\n", trm);
        for (int q = 0; q < P; q++)
            printf("  rank %d: from_local sent %lld payload + %lld meta bytes; reorder sent %lld payload + %lld meta "
                   "bytes; "
                   "holds %lld\n",
                   q, (long long)all[5 * q], (long long)all[5 * q + 1], (long long)all[5 * q + 2],
                   (long long)all[5 * q + 3], (long long)all[5 * q + 4]);
        free(all);
    }
    spt_dtensor_free(d);
    spt_tensor_free(piece);
    if (P == 1) {
        /* the serial library on the same data */
        spt_tensor *t = make_piece(0, N, shape);
        double s0 = MPI_Wtime();
        spt_status s1st = spt_reorder(t, NULL);
        double s1 = MPI_Wtime();
        spt_status s2st = spt_reorder(t, order);
        double s2 = MPI_Wtime();
        printf(
            "  serial spt_reorder (%d threads): unsorted -> row-major %.3f s, row-major -> {2,0,1} %.3f s (%s, %s)\n",
            spt_get_num_threads(), s1 - s0, s2 - s1, spt_status_name(s1st), spt_status_name(s2st));
        spt_tensor_free(t);
    }
    spt_mpi_ctx_free(ctx);
    MPI_Finalize();
    return 0;
}
