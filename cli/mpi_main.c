/* SPDX-License-Identifier: Apache-2.0 */
/* mpi_main.c -- the spt command built with MPI (build/spt-mpi, `make MPI=1`): under `mpirun -np P`,
 * reorder, concat, reduce (--op sum), matmul and sparsify run distributed on spt's MPI layer
 * (include/spt_mpi.h); their output files are byte-identical to the serial command's. Every other
 * command (and reduce --op max) runs the serial command on rank 0. The cli sources are compiled once
 * more with -DSPT_WITH_MPI, cli/main.c with its main renamed spt_cli_serial_main (Makefile MPI block).
 *
 * Inputs: a .tns file is read in parallel (spt_dtensor_read_tns: each rank parses a byte range); any
 * other format (and stdin) is read by rank 0 and scattered. Outputs: a .tns file is written in order by
 * every rank (spt_dtensor_write_tns); any other format (and stdout) is gathered to rank 0 and written by
 * the serial writer. Messages are printed by rank 0 only (the library agrees errors over the ranks);
 * the exit code is the same on every rank. */
#ifdef SPT_WITH_MPI

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "spt_mpi.h"
#include "sparsify_common.h"

int spt_cli_serial_main(int argc, char **argv);

static spt_mpi_ctx *g_ctx;
static int g_rank;

/* rc of rank 0, everywhere */
static int bcast_rc(int rc) {
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

/* ---- replicated inputs: every rank reads them, and they must agree -------------------------------- */

/* FNV-1a over n bytes, continuing h */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static uint64_t hash_tensor(const spt_tensor *t) {
    uint64_t h = 14695981039346656037ULL;
    if (!t) return h;
    int64_t head[3] = {spt_tensor_dtype(t), spt_tensor_rank(t), spt_tensor_nnz(t)};
    h = fnv(h, head, sizeof head);
    h = fnv(h, spt_tensor_shape(t), (size_t)head[1] * sizeof(int64_t));
    h = fnv(h, spt_tensor_indices(t), (size_t)(head[1] * head[2]) * sizeof(int64_t));
    if (head[0] != SPT_STRING) h = fnv(h, spt_tensor_values(t), (size_t)head[2] * spt_dtype_size(head[0]));
    return h;
}

static uint64_t hash_dense(const spt_dense *d) {
    uint64_t h = 14695981039346656037ULL;
    if (!d) return h;
    int64_t head[3] = {spt_dense_dtype(d), spt_dense_rank(d), spt_dense_size(d)};
    h = fnv(h, head, sizeof head);
    h = fnv(h, spt_dense_shape(d), (size_t)head[1] * sizeof(int64_t));
    if (head[0] != SPT_STRING) h = fnv(h, spt_dense_data(d), (size_t)head[2] * spt_dtype_size(head[0]));
    return h;
}

/* After every rank read the replicated input `path` (local rc, content hash): 0 when all read it and
 * got the same content, else CLI_BAD_INPUT everywhere, with rank 0 printing why: the message of the
 * first rank that failed (ranks > 0 print nothing themselves), or that the ranks read different
 * contents (a node-local file, a file changed between the reads). */
static int agree_replicated(const cli_args *a, const char *path, int rc, uint64_t hash) {
    int P = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    unsigned long long mine[2] = {(unsigned long long)(rc != 0), hash}, *all = malloc((size_t)P * sizeof mine);
    int ok = all != NULL, allok;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!allok) {
        free(all);
        if (g_rank == 0) fprintf(stderr, "spt %s: out of memory\n", a->cmd);
        return CLI_BAD_INPUT;
    }
    MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    int bad = -1, differ = -1;
    for (int r = 0; r < P && bad < 0; r++)
        if (all[2 * r]) bad = r;
    for (int r = 1; r < P && differ < 0; r++)
        if (all[2 * r + 1] != all[1]) differ = r;
    free(all);
    if (bad > 0) { /* the failing rank's message, printed by rank 0 */
        char msg[1100];
        if (g_rank == bad) {
            snprintf(msg, sizeof msg, "%s", *spt_last_error() ? spt_last_error() : "cannot read it");
            MPI_Send(msg, (int)sizeof msg, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
        } else if (g_rank == 0) {
            MPI_Recv(msg, (int)sizeof msg, MPI_CHAR, bad, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            msg[sizeof msg - 1] = 0;
            fprintf(stderr, "spt %s: rank %d cannot read %s: %s\n", a->cmd, bad, path, msg);
        }
    } else if (bad < 0 && differ > 0 && g_rank == 0)
        fprintf(stderr,
                "spt %s: %s differs between ranks (rank %d read other contents than rank 0): every rank "
                "must read the same file\n",
                a->cmd, path, differ);
    return bad >= 0 || differ > 0 ? CLI_BAD_INPUT : 0;
}

/* Whether rank 0 sees `path` as a regular file (answered everywhere): other files (FIFOs, devices) are
 * read by rank 0 alone, as stdin is. */
static int regular_on_root(const char *path) {
    struct stat sb;
    int reg = g_rank == 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    MPI_Bcast(&reg, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return reg;
}

/* ---- reading and writing distributed tensors ------------------------------------------------------ */

/* Read `path` into a row-major dtensor (collective). Returns 0 or an exit code (the same everywhere). */
static int read_dist(const cli_args *a, const char *path, spt_dtensor **out) {
    spt_read_opts o;
    spt_format fmt;
    *out = NULL;
    int rc = cli_read_opts(a, &o, &fmt, path); /* replicated arguments: the same answer everywhere */
    if (rc >= 0) return rc;
    if (fmt == SPT_FORMAT_TNS && strcmp(path, "-") && regular_on_root(path)) {
        spt_status st = spt_dtensor_read_tns(g_ctx, path, &o, out);
        return st == SPT_OK ? 0 : cli_fail(a, st);
    }
    spt_tensor *t = NULL;
    rc = bcast_rc(g_rank == 0 ? cli_read(a, path, &t) : 0);
    if (rc) return rc;
    spt_status st = spt_dtensor_scatter(g_ctx, 0, t, NULL, out);
    spt_tensor_free(t);
    return st == SPT_OK ? 0 : cli_fail(a, st);
}

/* Write a dtensor to --output (collective). */
static int write_dist(const cli_args *a, const spt_dtensor *d) {
    const char *path = cli_output(a);
    spt_format fmt;
    int frc = cli_out_format(a, path, &fmt);
    if (frc >= 0) return frc; /* replicated: the same everywhere */
    if (strcmp(path, "-") && fmt == SPT_FORMAT_TNS) {
        spt_status st = spt_dtensor_write_tns(d, path);
        return st == SPT_OK ? 0 : cli_fail(a, st);
    }
    spt_tensor *t = NULL;
    spt_status st = spt_dtensor_gather(d, 0, &t);
    if (st != SPT_OK) return cli_fail(a, st);
    int rc = g_rank == 0 ? cli_write(a, t) : 0;
    spt_tensor_free(t);
    return bcast_rc(rc);
}

/* ---- the distributed commands --------------------------------------------------------------------- */

static int mpi_reorder(cli_args *a) {
    int64_t order[SPT_MAX_RANK], n = 0;
    const char *o = cli_opt(a, "order");
    if (o && !cli_parse_list(o, order, SPT_MAX_RANK, &n))
        return cli_usage_error(a, "--order needs a comma-separated list of dims, found '%s'", o);
    spt_dtensor *d = NULL;
    int rc = read_dist(a, a->pos[0], &d);
    if (rc) return rc;
    if (o && n != spt_dtensor_rank(d)) {
        fprintf(stderr, "spt reorder: --order has %lld dims but the tensor has rank %lld\n", (long long)n,
                (long long)spt_dtensor_rank(d));
        spt_dtensor_free(d);
        return CLI_BAD_INPUT;
    }
    spt_status st = spt_dtensor_reorder(d, o ? order : NULL);
    rc = st == SPT_OK ? write_dist(a, d) : cli_fail(a, st);
    spt_dtensor_free(d);
    return rc;
}

static int mpi_concat(cli_args *a) {
    int64_t axis = 0;
    const char *ax = cli_opt(a, "axis");
    if (ax && !cli_parse_int(ax, &axis)) return cli_usage_error(a, "--axis needs an integer, found '%s'", ax);
    spt_dtensor *ds[CLI_MAX_POS] = {0}, *out = NULL;
    int rc = 0;
    for (int i = 0; i < a->npos && !rc; i++) rc = read_dist(a, a->pos[i], &ds[i]);
    if (!rc) {
        spt_status st = spt_dtensor_concat((const spt_dtensor *const *)ds, a->npos, axis, cli_opt(a, "expand") != NULL,
                                           &out);
        rc = st == SPT_OK ? write_dist(a, out) : cli_fail(a, st);
    }
    for (int i = 0; i < a->npos; i++) spt_dtensor_free(ds[i]);
    spt_dtensor_free(out);
    return rc;
}

static int mpi_reduce(cli_args *a) {
    int64_t axes[SPT_MAX_RANK], nax = 0;
    const char *ax = cli_opt(a, "axis");
    if (ax && !cli_parse_list(ax, axes, SPT_MAX_RANK, &nax))
        return cli_usage_error(a, "--axis needs a comma-separated list of axes, found '%s'", ax);
    bool keep = cli_opt(a, "keep-dims") != NULL, dense = cli_opt(a, "dense") != NULL;
    spt_dtensor *d = NULL, *r = NULL;
    int rc = read_dist(a, a->pos[0], &d);
    if (rc) return rc;
    spt_status st = spt_dtensor_reduce_sum(d, ax ? axes : NULL, nax, keep, &r);
    if (st != SPT_OK) rc = cli_fail(a, st);
    else if (!dense) rc = write_dist(a, r);
    else {
        /* the dense result: the sparse one (one entry per non-empty cell) densified on rank 0 */
        spt_tensor *t = NULL;
        spt_dense *dd = NULL;
        st = spt_dtensor_gather(r, 0, &t);
        if (st == SPT_OK && g_rank == 0) st = spt_to_dense(t, NULL, false, &dd);
        rc = st != SPT_OK ? cli_fail(a, st) : g_rank == 0 ? cli_write_dense(a, dd) : 0;
        rc = bcast_rc(rc);
        spt_dense_free(dd);
        spt_tensor_free(t);
    }
    spt_dtensor_free(r);
    spt_dtensor_free(d);
    return rc;
}

static int mpi_matmul(cli_args *a) {
    spt_dtensor *x = NULL;
    spt_dense *b = NULL, *o = NULL;
    /* as the serial command: B first (every rank reads it: it is replicated), then A in B's dtype for
     * text formats unless --dtype says otherwise */
    cli_args a2;
    cli_matmul_b_args(a, &a2);
    int rc = cli_read_dense(&a2, a->pos[1], &b);
    rc = agree_replicated(a, a->pos[1], rc, hash_dense(b));
    if (!rc) {
        cli_matmul_a_args(a, b, &a2);
        rc = read_dist(&a2, a->pos[0], &x);
    }
    if (!rc) {
        spt_status st = spt_dtensor_sparse_dense_matmul(x, b, cli_opt(a, "adjoint-a") != NULL,
                                                        cli_opt(a, "adjoint-b") != NULL, 0, &o);
        rc = st != SPT_OK ? cli_fail(a, st) : bcast_rc(g_rank == 0 ? cli_write_dense(a, o) : 0);
    }
    spt_dtensor_free(x);
    spt_dense_free(b);
    spt_dense_free(o);
    return rc;
}

static int mpi_sparsify(cli_args *a) {
    int64_t ind_rank = -1, pairs[2 * SPT_MAX_RANK], np = 0, oshape[SPT_MAX_RANK];
    bool os;
    int rc = cli_sparsify_args(a, &ind_rank, pairs, &np, oshape, &os);
    if (rc >= 0) return rc;
    spt_dtensor *t = NULL;
    spt_tensor *map = NULL;
    spt_sparse_map *sm = NULL;
    spt_tot *loc = NULL, *tot = NULL;
    rc = read_dist(a, a->pos[0], &t);
    /* the map is replicated: every rank reads it */
    if (!rc) {
        rc = cli_read(a, a->pos[1], &map);
        rc = agree_replicated(a, a->pos[1], rc, hash_tensor(map));
    }
    if (!rc) { /* the same map everywhere, so the same answer; agreed all the same (never a hang) */
        rc = cli_sparsify_map(a, map, ind_rank, &sm, os ? NULL : oshape);
        int worst;
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        rc = worst;
    }
    if (!rc) {
        spt_status st = spt_dtensor_sparsify(t, sm, np / 2, pairs, oshape, NULL, NULL, &loc);
        if (st == SPT_OK) st = spt_mpi_tot_gather(g_ctx, loc, 0, &tot);
        rc = st != SPT_OK ? cli_fail(a, st) : bcast_rc(g_rank == 0 ? cli_sparsify_output(a, tot) : 0);
    }
    spt_dtensor_free(t);
    spt_tensor_free(map);
    spt_sparse_map_free(sm);
    spt_tot_free(loc);
    spt_tot_free(tot);
    return rc;
}

/* ---- main ----------------------------------------------------------------------------------------- */

static const struct {
    const cli_cmd *cmd;
    int (*run)(cli_args *a);
} dist[] = {{&cli_cmd_reorder, mpi_reorder},
            {&cli_cmd_concat, mpi_concat},
            {&cli_cmd_reduce, mpi_reduce},
            {&cli_cmd_matmul, mpi_matmul},
            {&cli_cmd_sparsify, mpi_sparsify}};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    /* messages come from rank 0 only */
    if (g_rank != 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) { /* keep going */
        }
    }
    int rc = -1, i = 1;
    while (i < argc && (!strcmp(argv[i], "--threads") || !strncmp(argv[i], "--threads=", 10))) {
        /* checked as the serial command checks it: a bad count is a usage error on every rank */
        const char *v = argv[i][9] == '=' ? argv[i] + 10 : i + 1 < argc ? argv[i + 1] : NULL;
        int64_t th;
        if (!v || !cli_parse_int(v, &th) || th < 1 || th > 1024) {
            if (g_rank == 0) fprintf(stderr, "spt: --threads needs a number from 1 to 1024\n");
            rc = CLI_USAGE;
            break;
        }
        i += argv[i][9] == '=' ? 1 : 2;
    }
    for (size_t k = 0; rc < 0 && i < argc && k < sizeof dist / sizeof *dist; k++) {
        if (strcmp(argv[i], dist[k].cmd->name)) continue;
        cli_args a;
        /* global options (--threads) as the serial command takes them */
        for (int j = 1; j < i; j++) {
            const char *v = argv[j][9] == '=' ? argv[j] + 10 : argv[j + 1];
            int64_t th;
            if (v && cli_parse_int(v, &th) && th >= 1 && th <= 1024) spt_set_num_threads((int)th);
            if (argv[j][9] != '=') j++;
        }
        rc = cli_parse(dist[k].cmd, argc - i, argv + i, &a);
        if (rc >= 0) break;
        if (dist[k].run == mpi_reduce && cli_opt(&a, "op") && strcmp(cli_opt(&a, "op"), "sum")) break; /* serial */
        if (spt_mpi_ctx_new(MPI_COMM_WORLD, &g_ctx) != SPT_OK) {
            fprintf(stderr, "spt: %s\n", spt_last_error());
            rc = CLI_BAD_INPUT;
            break;
        }
        rc = dist[k].run(&a);
        spt_mpi_ctx_free(g_ctx);
        break;
    }
    if (rc < 0) rc = g_rank == 0 ? spt_cli_serial_main(argc, argv) : 0; /* everything else: serial, rank 0 */
    fflush(stdout);
    fflush(stderr);
    rc = bcast_rc(rc);
    MPI_Finalize();
    return rc;
}

#else
typedef int spt_cli_mpi_main_unused; /* the serial build: nothing here */
#endif
