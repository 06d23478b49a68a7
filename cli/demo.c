/* SPDX-License-Identifier: Apache-2.0 */
/* demo.c -- `spt demo [DATA_DIR]`: the walkthrough `make run` shows, on the example data in data/.
 * Each step is one example of TensorFlow's SparseTensor documentation, of tf.sparse or of NWChemEx's
 * tensor-of-tensors, printed so a person can follow it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "spt.h"

int spt_cli_demo(int argc, char **argv);

static int failures;

/* Report a failed call and count it; the walkthrough goes on with the next step. */
static bool ok(spt_status st, const char *what) {
    if (st == SPT_OK) return true;
    printf("  !! %s failed: %s: %s\n", what, spt_status_name(st), spt_last_error());
    failures++;
    return false;
}

static void print_ints(const int64_t *v, int64_t n) {
    printf("[");
    for (int64_t i = 0; i < n; i++) printf(i ? ",%" PRId64 : "%" PRId64, v[i]);
    printf("]");
}

static void print_value(spt_dtype dt, const void *vals, int64_t i) {
    switch (dt) {
    case SPT_INT64: printf("%" PRId64, ((const int64_t *)vals)[i]); break;
    case SPT_INT32: printf("%" PRId32, ((const int32_t *)vals)[i]); break;
    case SPT_FLOAT64: printf("%g", ((const double *)vals)[i]); break;
    case SPT_FLOAT32: printf("%g", (double)((const float *)vals)[i]); break;
    case SPT_BOOL: printf("%s", ((const bool *)vals)[i] ? "true" : "false"); break;
    case SPT_STRING: {
        const spt_str *s = (const spt_str *)vals + i;
        printf("\"%.*s\"", (int)s->len, s->data);
        break;
    }
    default: printf("?");
    }
}

/* shape, order, nnz and one line per entry */
static void print_tensor(const char *name, const spt_tensor *t) {
    int64_t r = spt_tensor_rank(t), n = spt_tensor_nnz(t);
    printf("  %s: %s, shape ", name, spt_dtype_name(spt_tensor_dtype(t)));
    print_ints(spt_tensor_shape(t), r);
    printf(", order ");
    print_ints(spt_tensor_order(t), r);
    printf(", nnz %" PRId64 "\n", n);
    for (int64_t i = 0; i < n; i++) {
        printf("    ");
        print_ints(spt_tensor_indices(t) + i * r, r);
        printf(": ");
        print_value(spt_tensor_dtype(t), spt_tensor_values(t), i);
        printf("\n");
    }
}

/* a rank-2 dense array as rows */
static void print_matrix(const char *name, const spt_dense *d) {
    const int64_t *s = spt_dense_shape(d);
    printf("  %s (%" PRId64 " x %" PRId64 "):\n", name, s[0], s[1]);
    for (int64_t i = 0; i < s[0]; i++) {
        printf("    [");
        for (int64_t j = 0; j < s[1]; j++) {
            if (j) printf(" ");
            print_value(spt_dense_dtype(d), spt_dense_data(d), i * s[1] + j);
        }
        printf("]\n");
    }
}

/* Read DIR/file and check that it is a rank-`rank` tensor of `dtype` (the steps index its dims and
 * values as such); a mismatch is reported like any failed call. */
static bool load_ok(const char *dir, const char *file, int64_t rank, spt_dtype dtype, spt_tensor **out,
                    const char *what) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
        printf("  !! %s failed: the directory name is too long\n", what);
        failures++;
        return false;
    }
    printf("  (read %s)\n", path);
    if (!ok(spt_read(path, SPT_FORMAT_AUTO, NULL, out), what)) return false;
    if (spt_tensor_rank(*out) != rank || spt_tensor_dtype(*out) != dtype) {
        printf("  !! %s failed: %s should hold a rank-%" PRId64 " %s tensor, found rank %" PRId64 " %s\n", what, path,
               rank, spt_dtype_name(dtype), spt_tensor_rank(*out), spt_dtype_name(spt_tensor_dtype(*out)));
        failures++;
        spt_tensor_free(*out);
        *out = NULL;
        return false;
    }
    return true;
}

static void step(int k, const char *title) { printf("\n== %d. %s ==\n", k, title); }

/* TensorFlow's SparseTensor class: construction, Reorder, IndicesValid, group, ToDense. */
static void sparse_tensor_basics(const char *dir) {
    spt_tensor *t = NULL;
    step(1, "A SparseTensor whose indices are not in order (TensorFlow's SparseTensor, \"Ordering\")");
    if (!load_ok(dir, "unordered_example.tns", 3, SPT_INT64, &t, "reading the example")) return;
    print_tensor("sp", t);
    spt_status st = spt_indices_valid(t);
    printf("  IndicesValid() without an order -> %s (%s)\n", spt_status_name(st), spt_last_error());

    step(2, "Reorder({0,1,2}): sorted in place, the order is recorded");
    int64_t o012[3] = {0, 1, 2};
    if (ok(spt_reorder(t, o012), "spt_reorder")) print_tensor("sp", t);
    st = spt_indices_valid(t);
    printf("  IndicesValid() -> %s\n", spt_status_name(st));

    step(3, "Reorder({1,2,0}) and group({1,2}): runs of equal (dim 1, dim 2)");
    int64_t o120[3] = {1, 2, 0}, g12[2] = {1, 2};
    spt_group_iter *it = NULL;
    if (ok(spt_reorder(t, o120), "spt_reorder") && ok(spt_group_begin(t, g12, 2, &it), "spt_group_begin")) {
        spt_group g;
        while (spt_group_next(it, &g)) {
            printf("  group [%" PRId64 ",%" PRId64 "]: %" PRId64 " entr%s:", g.key[0], g.key[1], g.count,
                   g.count == 1 ? "y" : "ies");
            for (int64_t i = 0; i < g.count; i++) {
                printf(" ");
                print_ints(g.indices + i * 3, 3);
                printf("=");
                print_value(spt_tensor_dtype(t), g.values, i);
            }
            printf("\n");
        }
        spt_group_end(it);
    }
    int64_t g0[1] = {0};
    st = spt_group_begin(t, g0, 1, &it);
    printf("  group({0}) on a tensor ordered {1,2,0} -> %s (%s)\n", spt_status_name(st), spt_last_error());
    spt_tensor *g = NULL;
    if (load_ok(dir, "group_example.tns", 3, SPT_INT32, &g, "reading the group example") &&
        ok(spt_reorder(g, o012), "spt_reorder") && ok(spt_group_begin(g, g0, 1, &it), "spt_group_begin")) {
        printf("  the class's test tensor, reordered {0,1,2}, group({0}) (expected keys 0, 2, 3 with values "
               "[1,5,4], [3], [2]):\n");
        spt_group grp;
        while (spt_group_next(it, &grp)) {
            printf("  group [%" PRId64 "]: values [", grp.key[0]);
            for (int64_t i = 0; i < grp.count; i++) {
                if (i) printf(",");
                print_value(spt_tensor_dtype(g), grp.values, i);
            }
            printf("]\n");
        }
        spt_group_end(it);
    }
    spt_tensor_free(g);

    step(4, "ToDense: every slice of the dense tensor");
    spt_dense *d = NULL;
    if (ok(spt_to_dense(t, NULL, false, &d), "spt_to_dense")) {
        const int64_t *s = spt_dense_shape(d);
        const int64_t *x = spt_dense_data(d);
        for (int64_t i = 0; i < s[0]; i++) {
            printf("  [%" PRId64 ",:,:] =", i);
            for (int64_t j = 0; j < s[1]; j++) {
                printf(" [");
                for (int64_t k = 0; k < s[2]; k++) printf(k ? " %" PRId64 : "%" PRId64, x[(i * s[1] + j) * s[2] + k]);
                printf("]");
            }
            printf("\n");
        }
    }
    spt_dense_free(d);
    spt_tensor_free(t);
}

/* TensorFlow's SparseTensor::Concat along the primary dimension order[0]. */
static void sparse_tensor_concat(const char *dir) {
    spt_tensor *m1 = NULL, *m2 = NULL, *c = NULL;
    spt_dense *d = NULL;
    step(5, "SparseTensor::Concat along the primary dimension: Matrix 1 (3 x 3) and Matrix 2 (3 x 8), order {1,0}");
    if (!load_ok(dir, "concat_matrix1.tns", 2, SPT_INT64, &m1, "reading matrix 1") ||
        !load_ok(dir, "concat_matrix2.tns", 2, SPT_INT64, &m2, "reading matrix 2"))
        goto done;
    int64_t o10[2] = {1, 0};
    if (!ok(spt_reorder(m1, o10), "spt_reorder") || !ok(spt_reorder(m2, o10), "spt_reorder")) goto done;
    print_tensor("matrix 1", m1);
    print_tensor("matrix 2", m2);
    const spt_tensor *in[2] = {m1, m2};
    if (!ok(spt_concat_primary(in, 2, &c), "spt_concat_primary")) goto done;
    print_tensor("concat", c);
    printf("  conc_shape [%" PRId64 ",%" PRId64 "], conc_order [%" PRId64 ",%" PRId64 "], conc_nnz %" PRId64
           " (TensorFlow's documentation: [3,11], {1,0}, 7); IndicesValid -> %s\n",
           spt_tensor_shape(c)[0], spt_tensor_shape(c)[1], spt_tensor_order(c)[0], spt_tensor_order(c)[1],
           spt_tensor_nnz(c), spt_status_name(spt_indices_valid(c)));
    if (ok(spt_to_dense(c, NULL, false, &d), "spt_to_dense")) print_matrix("dense", d);
    printf("  (TensorFlow's documentation draws Matrix 2 with 5 columns but gives its shape as {3, 8}; spt\n"
           "   follows the shape)\n");
done:
    spt_dense_free(d);
    spt_tensor_free(c);
    spt_tensor_free(m1);
    spt_tensor_free(m2);
}

/* A string tensor from (row, col, text) triples. */
static spt_tensor *strings2(int64_t rows, int64_t cols, int64_t n, const int64_t *ix, const char *const *text) {
    spt_str v[8];
    int64_t shape[2] = {rows, cols};
    for (int64_t i = 0; i < n; i++) v[i] = (spt_str){text[i], (int64_t)strlen(text[i])};
    spt_tensor *t = NULL;
    ok(spt_tensor_new(SPT_STRING, 2, shape, n, ix, v, NULL, &t), "spt_tensor_new");
    return t;
}

/* Examples of the tf.sparse ops' documentation. */
static void tf_sparse_examples(void) {
    spt_tensor *a = NULL, *b = NULL, *c = NULL, *pieces[2] = {NULL, NULL}, *r = NULL, *f = NULL, *z = NULL;
    spt_dense *ind = NULL, *rev = NULL;
    step(6, "sparse_concat(1, [a, b]) with expand_nonconcat_dim (tf.sparse)");
    const int64_t ia[6] = {0, 2, 1, 0, 2, 1}, ib[4] = {0, 1, 0, 2};
    const char *ta[3] = {"a", "b", "c"}, *tb[2] = {"d", "e"};
    a = strings2(3, 3, 3, ia, ta);
    b = strings2(2, 4, 2, ib, tb);
    if (!a || !b) goto done;
    print_tensor("sp_inputs[0]", a);
    print_tensor("sp_inputs[1]", b);
    const spt_tensor *in[2] = {a, b};
    spt_status st = spt_concat(in, 2, 1, false, &c);
    printf("  without expand_nonconcat_dim -> %s (%s)\n", spt_status_name(st), spt_last_error());
    if (ok(spt_concat(in, 2, 1, true, &c), "spt_concat")) print_tensor("output (shape [3,7])", c);

    step(7, "sparse_split(sp, num_split=2, axis=1) of the [2,7] example (tf.sparse)");
    spt_tensor_free(a);
    spt_tensor_free(c);
    c = NULL;
    const int64_t i27[10] = {0, 2, 0, 4, 0, 5, 1, 0, 1, 1};
    const char *t27[5] = {"a", "d", "e", "b", "c"};
    a = strings2(2, 7, 5, i27, t27);
    if (!a) goto done;
    print_tensor("input", a);
    if (ok(spt_split(a, 1, 2, pieces), "spt_split")) {
        print_tensor("output[0]", pieces[0]);
        print_tensor("output[1]", pieces[1]);
    }

    step(8, "sparse_retain(sp, [True, False, False, True]) (tf.sparse)");
    const int64_t i45[8] = {0, 1, 0, 3, 2, 0, 3, 1};
    const char *t45[4] = {"a", "b", "c", "d"};
    spt_tensor_free(b);
    b = strings2(4, 5, 4, i45, t45);
    if (!b) goto done;
    const bool keep[4] = {true, false, false, true};
    if (ok(spt_retain(b, keep, 4, &r), "spt_retain")) print_tensor("retained", r);

    step(9, "sparse_fill_empty_rows(sp, \"zz\") (tf.sparse): rows 1 and 4 are empty");
    const int64_t i55[8] = {0, 1, 0, 3, 2, 0, 3, 1};
    spt_tensor_free(a);
    a = strings2(5, 6, 4, i55, t45);
    spt_str zz = {"zz", 2};
    if (a && ok(spt_fill_empty_rows(a, &zz, &f, &ind, &rev), "spt_fill_empty_rows")) {
        print_tensor("output", f);
        const bool *e = spt_dense_data(ind);
        printf("  empty_row_indicator = [");
        for (int64_t q = 0; q < spt_dense_size(ind); q++) printf(q ? ", %s" : "%s", e[q] ? "True" : "False");
        printf("]\n");
    }

    step(10, "sparse_reset_shape (tf.sparse): [2,3,5] -> [2,3,6], and the tight bounding box");
    {
        const int64_t i3[12] = {0, 0, 1, 0, 1, 0, 0, 2, 2, 1, 0, 3}, s3[3] = {2, 3, 5}, bigger[3] = {2, 3, 6},
                      smaller[3] = {2, 3, 4};
        spt_str v3[4] = {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}};
        spt_tensor *t3 = NULL;
        if (ok(spt_tensor_new(SPT_STRING, 3, s3, 4, i3, v3, NULL, &t3), "spt_tensor_new")) {
            if (ok(spt_reset_shape(t3, bigger, &z), "spt_reset_shape")) print_tensor("new_shape [2,3,6]", z);
            spt_tensor_free(z);
            z = NULL;
            st = spt_reset_shape(t3, smaller, &z);
            printf("  new_shape [2,3,4] -> %s (%s)\n", spt_status_name(st), spt_last_error());
            if (ok(spt_reset_shape(t3, NULL, &z), "spt_reset_shape")) print_tensor("tight bounding box", z);
        }
        spt_tensor_free(t3);
    }
done:
    spt_tensor_free(a);
    spt_tensor_free(b);
    spt_tensor_free(c);
    spt_tensor_free(pieces[0]);
    spt_tensor_free(pieces[1]);
    spt_tensor_free(r);
    spt_tensor_free(f);
    spt_tensor_free(z);
    spt_dense_free(ind);
    spt_dense_free(rev);
}

/* NWChemEx's sparsify: a tensor into a tensor-of-tensors through a sparse map, and back. */
static void print_tot(const spt_tot *tot) {
    const int64_t *os = spt_tot_outer_shape(tot);
    for (int64_t o = 0; o < os[0]; o++) {
        spt_tot_inner in;
        if (!ok(spt_tot_get(tot, &o, &in), "spt_tot_get")) return;
        printf("    t[%" PRId64 "] = ", o);
        if (!in.present) {
            printf("EMPTY\n");
            continue;
        }
        printf("[");
        for (int64_t i = 0; i < in.size; i++) printf(i ? " %g" : "%g", ((const double *)in.data)[i]);
        printf("]\n");
    }
}

static void tot_sparsify(const char *dir) {
    spt_tensor *T = NULL;
    spt_dense *Td = NULL, *back = NULL;
    spt_sparse_map *sm = NULL;
    spt_tot *a = NULL, *b = NULL;
    step(11, "Sparsify T into a tensor-of-tensors through a sparse map (NWChemEx), and back");
    if (!load_ok(dir, "sparsify_matrix.tns", 2, SPT_FLOAT64, &T, "reading T")) goto done;
    print_tensor("T", T);
    /* sm: {0} -> {1},{2};  {1} -> {0},{2};  {2} -> {0},{1}   (outer index o pinned at mode 0 of T) */
    const int64_t ind[6] = {0, 0, 1, 1, 2, 2}, dep[6] = {1, 2, 0, 2, 0, 1}, ind2mode[2] = {0, 0}, outer[1] = {3};
    if (!ok(spt_sparse_map_new(1, 1, 6, ind, dep, &sm), "spt_sparse_map_new")) goto done;
    printf("  sparse map: {0}->{1},{2}   {1}->{0},{2}   {2}->{0},{1};  ind2mode {0: 0} (t[o][x] = T[o, x])\n");
    if (!ok(spt_sparsify(T, sm, 1, ind2mode, outer, &a), "spt_sparsify")) goto done;
    printf("  from the sparse T (looked up in its order, never densified):\n");
    print_tot(a);
    if (ok(spt_to_dense(T, NULL, false, &Td), "spt_to_dense") &&
        ok(spt_sparsify_dense(Td, sm, 1, ind2mode, outer, &b), "spt_sparsify_dense")) {
        printf("  from the dense T: the same tensor-of-tensors:\n");
        print_tot(b);
    }
    const int64_t six[1] = {6};
    if (ok(spt_reduce_tot_sum(a, sm, 1, six, &back), "spt_reduce_tot_sum")) {
        printf("  reduce_tot_sum, the inverse: A[x] = sum of t[o][x] over the keys o whose domain holds x\n"
               "  (A[0] = 6 + 12, A[1] = 1 + 13, A[2] = 2 + 8):\n    [");
        const double *x = spt_dense_data(back);
        for (int64_t j = 0; j < 6; j++) printf(j ? " %g" : "%g", x[j]);
        printf("]\n");
    }
done:
    spt_dense_free(back);
    spt_dense_free(Td);
    spt_tot_free(a);
    spt_tot_free(b);
    spt_sparse_map_free(sm);
    spt_tensor_free(T);
}

int spt_cli_demo(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "data";
    printf("spt %d.%d.%d walkthrough on %s (examples of TensorFlow's SparseTensor, tf.sparse and NWChemEx)\n",
           SPT_VERSION_MAJOR, SPT_VERSION_MINOR, SPT_VERSION_PATCH, dir);
    sparse_tensor_basics(dir);
    sparse_tensor_concat(dir);
    tf_sparse_examples();
    tot_sparsify(dir);
    printf("\n%s\n", failures ? "walkthrough finished with errors" : "walkthrough finished");
    return failures ? 1 : 0;
}
