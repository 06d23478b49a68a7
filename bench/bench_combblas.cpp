// SPDX-License-Identifier: Apache-2.0
// bench_combblas.cpp -- CombBLAS (Debian's libcombblas-dev) on the SpGEMM inputs of bench_mpi, for
// `make bench-mpi`: C = A x A with its 2-D SUMMA product (Mult_AnXBn_Synch, plus-times on doubles; square
// process grids only), timed as bench_mpi times spt (median of REPS, slowest rank), then its C compared
// entry by entry with spt's np-1 result.
//
//   mpirun -np P bench_combblas RAW KIND REPS
//     reads RAW.spgemm-KIND.mtx (written by bench_mpi at np 1), appends the row "combblas spgemm KIND" to RAW
//     (bench_mpi's format) and a line "check<TAB>..." telling whether CombBLAS's C equals
//     RAW.spgemm-KIND.spt-np1.mtx.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "CombBLAS/CombBLAS.h"
#include "spt.h"

using namespace combblas;
typedef SpParMat<int64_t, double, SpDCCols<int64_t, double>> PSpMat;

static double cpu_now() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double load1() {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

// Both files hold the same matrix (as a set of entries with equal values).
static bool same_matrix(const std::string &a, const std::string &b, long long *nnz) {
    spt_tensor *x = nullptr, *y = nullptr, *xs = nullptr, *ys = nullptr;
    bool ok = spt_read_mtx(a.c_str(), nullptr, &x) == SPT_OK && spt_read_mtx(b.c_str(), nullptr, &y) == SPT_OK &&
              spt_reordered(x, nullptr, &xs) == SPT_OK && spt_reordered(y, nullptr, &ys) == SPT_OK;
    if (ok) {
        *nnz = spt_tensor_nnz(xs);
        ok = spt_tensor_nnz(xs) == spt_tensor_nnz(ys) && spt_tensor_dtype(xs) == spt_tensor_dtype(ys) &&
             memcmp(spt_tensor_shape(xs), spt_tensor_shape(ys), 16) == 0 &&
             memcmp(spt_tensor_indices(xs), spt_tensor_indices(ys), (size_t)spt_tensor_nnz(xs) * 16) == 0;
        const double *u = (const double *)spt_tensor_values(xs), *v = (const double *)spt_tensor_values(ys);
        for (int64_t i = 0; ok && i < spt_tensor_nnz(xs); i++) ok = u[i] == v[i];
    } else {
        fprintf(stderr, "bench_combblas: %s\n", spt_last_error());
    }
    spt_tensor_free(x);
    spt_tensor_free(y);
    spt_tensor_free(xs);
    spt_tensor_free(ys);
    return ok;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np P %s RAW KIND REPS\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const std::string raw = argv[1], kind = argv[2];
    const int reps = std::max(1, atoi(argv[3]));
    const std::string in = raw + ".spgemm-" + kind + ".mtx", out = raw + ".spgemm-" + kind + ".combblas-np" +
                                                                    std::to_string(P) + ".mtx";
    const double load = load1();
    {
        std::shared_ptr<CommGrid> grid(new CommGrid(MPI_COMM_WORLD, 0, 0));
        PSpMat A(grid);
        A.ParallelReadMM(in, true, std::plus<double>());  // duplicates summed, as spt reads them
        PSpMat B(A);
        std::vector<double> wall, cpu;
        long long nnz = 0;
        for (int i = 0; i < reps; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double c0 = cpu_now(), w0 = MPI_Wtime();
            PSpMat C = Mult_AnXBn_Synch<PlusTimesSRing<double, double>, double, SpDCCols<int64_t, double>>(A, B);
            double w = MPI_Wtime() - w0, c = cpu_now() - c0, wm, cm;
            MPI_Allreduce(&w, &wm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(&c, &cm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            wall.push_back(wm);
            cpu.push_back(cm);
            nnz = C.getnnz();
            if (i == reps - 1) C.SaveGathered(out);
        }
        std::sort(wall.begin(), wall.end());
        std::sort(cpu.begin(), cpu.end());
        if (rank == 0) {
            FILE *f = fopen(raw.c_str(), "a");
            if (f) {
                // bench_mpi's row: op P threads median min max cpu payload meta collectives 4 phases load
                fprintf(f, "combblas spgemm %s\t%d\t1\t%.2f\t%.2f\t%.2f\t%.2f\t0\t0\t0\t0\t0\t0\t0\t%.2f\n", kind.c_str(),
                        P, 1e3 * wall[wall.size() / 2], 1e3 * wall.front(), 1e3 * wall.back(), 1e3 * cpu[cpu.size() / 2],
                        load);
                long long n2 = 0;
                bool eq = same_matrix(out, raw + ".spgemm-" + kind + ".spt-np1.mtx", &n2);
                fprintf(f, "check\tCombBLAS np %d, %s: %s (%lld entries; CombBLAS counted %lld)\n", P, kind.c_str(),
                        eq ? "equal to spt's C" : "DIFFERENT from spt's C", n2, nnz);
                fclose(f);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
