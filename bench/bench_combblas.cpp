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
//   mpirun -np P bench_combblas RAW sort N REPS
//     CombBLAS's parallel sample sort (psort's parallel_sort: local std::sort, median splitters, one
//     all-to-all, tree merge) of bench_mpi's N-entry rank-3 tensor (the same entries, generated the same
//     way) as 32-byte records in row-major order, against spt_dtensor_from_local of the same pieces: the row
//     "combblas psort row-major" and a check line (the same keys on every rank, the same value sums).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "CombBLAS/CombBLAS.h"
#include "psort/psort.h"
#include "spt.h"
#include "spt_mpi.h"

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

// bench_mpi's input tensor: entry i of [1000]^3 from a hash of i, value i % 1000
static uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
struct Ent {
    int64_t k[3];
    double v;
};
struct RowMajor {
    typedef Ent first_argument_type; // psort negates the comparator (std::binary_negate)
    typedef Ent second_argument_type;
    typedef bool result_type;
    bool operator()(const Ent &a, const Ent &b) const {
        for (int d = 0; d < 3; d++)
            if (a.k[d] != b.k[d]) return a.k[d] < b.k[d];
        return false;
    }
};

static void emit_row(const std::string &raw, const std::string &op, int P, std::vector<double> wall,
                     std::vector<double> cpu, double load) {
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    FILE *f = fopen(raw.c_str(), "a");
    if (!f) return;
    // bench_mpi's row: op P threads median min max cpu payload meta collectives 4 phases load
    fprintf(f, "%s\t%d\t1\t%.2f\t%.2f\t%.2f\t%.2f\t0\t0\t0\t0\t0\t0\t0\t%.2f\n", op.c_str(), P,
            1e3 * wall[wall.size() / 2], 1e3 * wall.front(), 1e3 * wall.back(), 1e3 * cpu[cpu.size() / 2], load);
    fclose(f);
}

static int sort_bench(const std::string &raw, int64_t N, int reps, int rank, int P) {
    const double load = load1();
    const int64_t lo = N * rank / P, hi = N * (rank + 1) / P, n = hi - lo;
    std::vector<Ent> in((size_t)n), work;
    for (int64_t i = lo; i < hi; i++) {
        uint64_t h = mix((uint64_t)i);
        for (int k = 0; k < 3; k++) in[(size_t)(i - lo)].k[k] = (int64_t)((h >> (20 * k)) % 1000u);
        in[(size_t)(i - lo)].v = (double)(i % 1000);
    }
    std::vector<long> dist((size_t)P);
    for (int q = 0; q < P; q++) dist[(size_t)q] = (long)(N * (q + 1) / P - N * q / P);
    std::vector<double> wall, cpu;
    for (int r = 0; r < reps; r++) {
        work = in;
        MPI_Barrier(MPI_COMM_WORLD);
        double c0 = cpu_now(), w0 = MPI_Wtime();
        vpsort::parallel_sort(work.data(), work.data() + n, RowMajor(), dist.data(), MPI_COMM_WORLD);
        double w = MPI_Wtime() - w0, c = cpu_now() - c0, wm, cm;
        MPI_Allreduce(&w, &wm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&c, &cm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        wall.push_back(wm);
        cpu.push_back(cm);
    }
    // spt on the same pieces: the keys of every rank's part must be the same, the values the same multiset
    // per key (std::sort is not stable: equal keys may come in another order), checked by their sum
    spt_mpi_ctx *ctx = nullptr;
    spt_tensor *piece = nullptr;
    spt_dtensor *d = nullptr;
    static const int64_t shape[3] = {1000, 1000, 1000};
    bool ok = spt_mpi_ctx_new(MPI_COMM_WORLD, &ctx) == SPT_OK && spt_tensor_alloc(SPT_FLOAT64, 3, shape, n, &piece) == SPT_OK;
    if (ok) {
        int64_t *ix = spt_tensor_indices_mut(piece);
        double *v = (double *)spt_tensor_values_mut(piece);
        for (int64_t i = 0; i < n; i++) {
            memcpy(ix + 3 * i, in[(size_t)i].k, 24);
            v[i] = in[(size_t)i].v;
        }
        ok = spt_dtensor_from_local(ctx, piece, nullptr, &d) == SPT_OK;
    }
    const spt_tensor *t = ok ? spt_dtensor_local(d) : nullptr;
    ok = ok && spt_tensor_nnz(t) == n;
    double sa = 0, sb = 0;
    for (int64_t i = 0; ok && i < n; i++) {
        ok = memcmp(spt_tensor_indices(t) + 3 * i, work[(size_t)i].k, 24) == 0;
        sa += ((const double *)spt_tensor_values(t))[i];
        sb += work[(size_t)i].v;
    }
    int good = ok && sa == sb, all = 0;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        emit_row(raw, "combblas psort row-major", P, wall, cpu, load);
        FILE *f = fopen(raw.c_str(), "a");
        if (f) {
            fprintf(f, "check\tCombBLAS psort np %d, %lld entries: %s\n", P, (long long)N,
                    all ? "the same keys as spt_dtensor_from_local on every rank, the same value sums"
                        : "DIFFERENT from spt_dtensor_from_local");
            fclose(f);
        }
    }
    spt_dtensor_free(d);
    spt_tensor_free(piece);
    spt_mpi_ctx_free(ctx);
    return all ? 0 : 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc >= 5 && !strcmp(argv[2], "sort")) {
        int rc = sort_bench(argv[1], atoll(argv[3]), std::max(1, atoi(argv[4])), rank, P);
        MPI_Finalize();
        return rc;
    }
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
        if (rank == 0) {
            emit_row(raw, "combblas spgemm " + kind, P, wall, cpu, load);
            FILE *f = fopen(raw.c_str(), "a");
            if (f) {
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
