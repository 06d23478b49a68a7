/* SPDX-License-Identifier: Apache-2.0 */
/* test_sweep_core.c -- the allocation-failure sweep over every public core function that allocates:
 * dense arrays, tensor construction, strings, reorder/argsort/group, dense conversion. Each failing run
 * must return SPT_ENOMEM, leak nothing, leave out-parameters NULL and inputs (spt_reorder: the tensor)
 * unchanged. The non-allocating functions (accessors, validate, indices_valid, set_order, set_shape,
 * status/dtype names, shape_volume) are checked to make no allocation at all. */
#include "sweep.h"

static spt_status case_dense_new(void *ctx) {
    (void)ctx;
    int64_t sh[2] = {3, 2};
    spt_dense *d = SENT;
    spt_status st = spt_dense_new(SPT_STRING, 2, sh, &d);
    OUTCHK(st, d);
    spt_dense_free(st == SPT_OK ? d : NULL);
    return st;
}
SWEEP(dense_new, 2)

static spt_status case_dense_new_from(void *ctx) {
    (void)ctx;
    int64_t sh[1] = {3};
    spt_str s[3] = {{"ab", 2}, {"", 0}, {"xyz", 3}};
    spt_dense *d = SENT;
    spt_status st = spt_dense_new_from(SPT_STRING, 1, sh, s, &d);
    OUTCHK(st, d);
    spt_dense_free(st == SPT_OK ? d : NULL);
    return st;
}
SWEEP(dense_new_from, 3)

static spt_status case_dense_wrap_clone(void *ctx) {
    (void)ctx;
    int64_t sh[1] = {3};
    double v[3] = {1, 2, 3};
    spt_dense *d = SENT, *c = SENT;
    spt_status st = spt_dense_wrap(SPT_FLOAT64, 1, sh, v, NULL, NULL, &d);
    OUTCHK(st, d);
    if (st != SPT_OK) return st;
    st = spt_dense_clone(d, &c);
    OUTCHK(st, c);
    spt_dense_free(st == SPT_OK ? c : NULL);
    spt_dense_free(d);
    return st;
}
SWEEP(dense_wrap_clone, 3)

static spt_status case_dense_set_string(void *ctx) {
    (void)ctx;
    int64_t sh[1] = {2};
    spt_dense *d = NULL;
    spt_status st = spt_dense_new(SPT_STRING, 1, sh, &d);
    if (st != SPT_OK) return st;
    st = spt_dense_set_string(d, 1, "hello", 5);
    if (st != SPT_OK && ((const spt_str *)spt_dense_data(d))[1].len != 0) st = SPT_EINTERNAL;
    spt_dense_free(d);
    return st;
}
SWEEP(dense_set_string, 3)

static spt_status case_tensor_new(void *ctx) {
    (void)ctx;
    spt_tensor *t = SENT;
    spt_status st = sw_str(&t);
    OUTCHK(st, t);
    spt_tensor_free(st == SPT_OK ? t : NULL);
    return st;
}
SWEEP(tensor_new, 4)

static spt_status case_tensor_alloc(void *ctx) {
    (void)ctx;
    spt_tensor *t = SENT;
    spt_status st = spt_tensor_alloc(SPT_STRING, 2, sw_shape2, 5, &t);
    OUTCHK(st, t);
    spt_tensor_free(st == SPT_OK ? t : NULL);
    return st;
}
SWEEP(tensor_alloc, 4)

static spt_status case_tensor_wrap(void *ctx) {
    (void)ctx;
    int64_t ix[10];
    double v[5];
    memcpy(ix, sw_ix_unsorted, sizeof ix);
    memcpy(v, sw_vals, sizeof v);
    spt_tensor *t = SENT;
    spt_status st = spt_tensor_wrap(SPT_FLOAT64, 2, sw_shape2, 5, ix, v, NULL, NULL, NULL, &t);
    OUTCHK(st, t);
    if (st != SPT_OK) return st;
    /* reorder of a wrapped tensor sorts the caller's buffers; a failure leaves them as they were */
    st = spt_reorder(t, NULL);
    if (st != SPT_OK && (memcmp(ix, sw_ix_unsorted, sizeof ix) || memcmp(v, sw_vals, sizeof v))) st = SPT_EINTERNAL;
    spt_tensor_free(t);
    return st;
}
SWEEP(tensor_wrap, 3)

static spt_status case_tensor_create(void *ctx) {
    (void)ctx;
    spt_status bst = SPT_OK, st = SPT_OK;
    spt_dense *ix = NULL, *vals = NULL, *sh = NULL, *ord = NULL;
    spt_tensor *t = SENT;
    int64_t idims[2] = {5, 2}, two = 2, order[2] = {1, 0};
    BUILD(spt_dense_new_from(SPT_INT64, 2, idims, sw_ix_unsorted, &ix));
    BUILD(spt_dense_new_from(SPT_FLOAT64, 1, idims, sw_vals, &vals));
    BUILD(spt_dense_new_from(SPT_INT64, 1, &two, sw_shape2, &sh));
    BUILD(spt_dense_new_from(SPT_INT64, 1, &two, order, &ord));
    st = spt_tensor_create(ix, vals, sh, ord, &t);
    OUTCHK(st, t);
    spt_tensor_free(st == SPT_OK ? t : NULL);
done:
    spt_dense_free(ix);
    spt_dense_free(vals);
    spt_dense_free(sh);
    spt_dense_free(ord);
    return bst != SPT_OK ? bst : st;
}
SWEEP(tensor_create, 8)

static spt_status case_tensor_clone(void *ctx) {
    (void)ctx;
    spt_tensor *t = NULL, *c = SENT;
    spt_status st = sw_str(&t);
    if (st != SPT_OK) return st;
    st = spt_tensor_clone(t, &c);
    OUTCHK(st, c);
    spt_tensor_free(st == SPT_OK ? c : NULL);
    spt_tensor_free(t);
    return st;
}
SWEEP(tensor_clone, 8)

static spt_status case_tensor_set_string(void *ctx) {
    (void)ctx;
    spt_tensor *t = NULL;
    spt_status st = sw_str(&t);
    if (st != SPT_OK) return st;
    uint64_t h = sweep_hash(t);
    st = spt_tensor_set_string(t, 2, "a much longer string than before, to need a new chunk", 54);
    if (st != SPT_OK && sweep_hash(t) != h) st = SPT_EINTERNAL;
    spt_tensor_free(t);
    return st;
}
SWEEP(tensor_set_string, 4)

static spt_status reorder_by(const int64_t *order) {
    spt_tensor *t = NULL;
    spt_status st = sw_str(&t);
    if (st != SPT_OK) return st;
    uint64_t h = sweep_hash(t);
    st = spt_reorder(t, order);
    if (st != SPT_OK && (sweep_hash(t) != h || spt_tensor_known_sorted(t))) st = SPT_EINTERNAL;
    spt_tensor_free(t);
    return st;
}
static spt_status case_reorder_row_major(void *ctx) {
    (void)ctx;
    return reorder_by(NULL);
}
static spt_status case_reorder_col_major(void *ctx) {
    (void)ctx;
    int64_t o[2] = {1, 0};
    return reorder_by(o);
}
SWEEP(reorder_row_major, 5)
SWEEP(reorder_col_major, 5)

static spt_status case_argsort(void *ctx) {
    (void)ctx;
    spt_tensor *t = NULL;
    int64_t perm[5], o[2] = {1, 0};
    spt_status st = sw_f64(&t);
    if (st != SPT_OK) return st;
    uint64_t h = sweep_hash(t);
    st = spt_argsort(t, o, perm);
    if (sweep_hash(t) != h) st = SPT_EINTERNAL;
    spt_tensor_free(t);
    return st;
}
SWEEP(argsort, 3)

static spt_status case_group(void *ctx) {
    (void)ctx;
    spt_tensor *t = NULL;
    spt_group_iter *it = SENT;
    int64_t dims[1] = {0};
    spt_status st = sw_f64(&t);
    if (st != SPT_OK) return st;
    st = spt_reorder(t, NULL);
    if (st == SPT_OK) {
        st = spt_group_begin(t, dims, 1, &it);
        OUTCHK(st, it);
        if (st == SPT_OK) {
            spt_group g;
            int64_t n = 0;
            while (spt_group_next(it, &g)) n += g.count;
            if (n != 5) st = SPT_EINTERNAL;
            spt_group_end(it);
        }
    }
    spt_tensor_free(t);
    return st;
}
SWEEP(group, 5)

static spt_status case_to_dense(void *ctx) {
    (void)ctx;
    spt_tensor *t = NULL;
    spt_dense *d = SENT;
    spt_str dv = {"default", 7};
    spt_status st = sw_str(&t);
    if (st != SPT_OK) return st;
    st = spt_to_dense(t, &dv, false, &d);
    OUTCHK(st, d);
    spt_dense_free(st == SPT_OK ? d : NULL);
    spt_tensor_free(t);
    return st;
}
SWEEP(to_dense, 5)

static spt_status case_to_dense_into(void *ctx) {
    (void)ctx;
    spt_tensor *t = NULL;
    spt_dense *d = NULL;
    int64_t sh[2] = {5, 4};
    spt_str dv = {"zz", 2};
    spt_status st = sw_str(&t);
    if (st != SPT_OK) return st;
    st = spt_dense_new(SPT_STRING, 2, sh, &d);
    if (st == SPT_OK) st = spt_to_dense_into(t, d, true, &dv);
    spt_dense_free(d);
    spt_tensor_free(t);
    return st;
}
SWEEP(to_dense_into, 5)

static spt_status case_from_dense(void *ctx) {
    (void)ctx;
    int64_t sh[2] = {2, 3};
    spt_str s[6] = {{"", 0}, {"a", 1}, {"", 0}, {"bc", 2}, {"", 0}, {"", 0}};
    spt_dense *d = NULL;
    spt_tensor *t = SENT;
    spt_status st = spt_dense_new_from(SPT_STRING, 2, sh, s, &d);
    if (st != SPT_OK) return st;
    st = spt_from_dense(d, NULL, &t);
    OUTCHK(st, t);
    spt_tensor_free(st == SPT_OK ? t : NULL);
    spt_dense_free(d);
    return st;
}
SWEEP(from_dense, 6)

static spt_status case_sparse_to_dense(void *ctx) {
    (void)ctx;
    spt_status bst = SPT_OK, st = SPT_OK;
    spt_dense *ix = NULL, *os = NULL, *sv = NULL, *dv = NULL, *out = SENT;
    int64_t idims[2] = {3, 2}, two = 2, ixv[6] = {0, 1, 1, 0, 2, 2}, osv[2] = {3, 3};
    double vals[3] = {1, 2, 3}, zero = 0;
    BUILD(spt_dense_new_from(SPT_INT64, 2, idims, ixv, &ix));
    BUILD(spt_dense_new_from(SPT_INT64, 1, &two, osv, &os));
    BUILD(spt_dense_new_from(SPT_FLOAT64, 1, idims, vals, &sv));
    BUILD(spt_dense_new_from(SPT_FLOAT64, 0, NULL, &zero, &dv));
    st = spt_sparse_to_dense(ix, os, sv, dv, false, &out);
    OUTCHK(st, out);
    spt_dense_free(st == SPT_OK ? out : NULL);
done:
    spt_dense_free(ix);
    spt_dense_free(os);
    spt_dense_free(sv);
    spt_dense_free(dv);
    return bst != SPT_OK ? bst : st;
}
SWEEP(sparse_to_dense, 10)

/* Functions that must not allocate: with the very first allocation failing they still succeed. */
static void test_no_alloc(void **state) {
    (void)state;
    spt_tensor *t = NULL;
    ASSERT_OK(sw_f64(&t));
    int64_t o[2] = {1, 0}, sh[2] = {9, 9}, vol;
    spt_test_alloc_fail_at(0);
    spt_status st[8];
    st[0] = spt_validate(t);
    st[1] = spt_tensor_set_order(t, o);
    st[2] = spt_tensor_set_shape(t, sh);
    st[3] = spt_shape_volume(2, sh, &vol);
    st[4] = spt_tensor_set_order(t, NULL);
    st[5] = spt_indices_valid(t); /* EPRECONDITION: no order */
    (void)spt_tensor_dtype(t), (void)spt_tensor_rank(t), (void)spt_tensor_nnz(t), (void)spt_tensor_shape(t);
    (void)spt_tensor_order(t), (void)spt_tensor_indices(t), (void)spt_tensor_values(t), (void)spt_tensor_volume(t);
    (void)spt_tensor_indices_mut(t), (void)spt_tensor_values_mut(t), (void)spt_tensor_known_valid(t);
    (void)spt_tensor_known_sorted(t), (void)spt_tensor_is_row_major(t, true);
    (void)spt_status_name(SPT_ENOMEM), (void)spt_strerror(SPT_ENOMEM), (void)spt_last_error(),
        (void)spt_dtype_name(SPT_INT8);
    spt_dtype dt;
    st[6] = spt_dtype_from_name("float", &dt);
    (void)spt_dtype_is_complex(dt), (void)spt_dtype_is_float(dt), (void)spt_dtype_is_integer(dt),
        (void)spt_dtype_is_numeric(dt);
    (void)spt_get_num_threads();
    spt_clear_error();
    spt_format f;
    st[7] = spt_format_from_name("npz-scipy-csr", &f);
    (void)spt_format_from_path("x.MTX"), (void)spt_format_name(f);
    spt_set_read_progress(NULL, NULL);
    long count = spt_test_alloc_count();
    spt_test_alloc_fail_at(-1);
    assert_int_equal(count, 0);
    for (int i = 0; i < 5; i++) ASSERT_OK(st[i]);
    assert_int_equal(st[5], SPT_EPRECONDITION);
    ASSERT_OK(st[6]);
    ASSERT_OK(st[7]);
    spt_tensor_free(t);
}

int main(void) {
    SWEEP_MAIN_INIT();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_new),         cmocka_unit_test(test_dense_new_from),
        cmocka_unit_test(test_dense_wrap_clone),  cmocka_unit_test(test_dense_set_string),
        cmocka_unit_test(test_tensor_new),        cmocka_unit_test(test_tensor_alloc),
        cmocka_unit_test(test_tensor_wrap),       cmocka_unit_test(test_tensor_create),
        cmocka_unit_test(test_tensor_clone),      cmocka_unit_test(test_tensor_set_string),
        cmocka_unit_test(test_reorder_row_major), cmocka_unit_test(test_reorder_col_major),
        cmocka_unit_test(test_argsort),           cmocka_unit_test(test_group),
        cmocka_unit_test(test_to_dense),          cmocka_unit_test(test_to_dense_into),
        cmocka_unit_test(test_from_dense),        cmocka_unit_test(test_sparse_to_dense),
        cmocka_unit_test(test_no_alloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
