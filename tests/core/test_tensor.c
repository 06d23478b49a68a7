/* SPDX-License-Identifier: Apache-2.0 */
/* test_tensor.c -- construction, wrapping, cloning, accessors, shapes, strings. */
#ifndef SPT_CONFORMANCE
#include <stdlib.h>
#include <string.h>

#include "spt_test.h"

static void test_new_copies_and_accessors(void **state) {
    (void)state;
    int64_t shape[2] = {3, 4}, ix[6] = {0, 1, 2, 3, 1, 0};
    double v[3] = {1.5, -2, 3};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_FLOAT64, 2, shape, 3, ix, v, NULL, &t));
    ix[0] = 9; /* the tensor holds a copy */
    v[0] = 0;
    int64_t want_ix[6] = {0, 1, 2, 3, 1, 0};
    double want_v[3] = {1.5, -2, 3};
    spt_test_expect_tensor(t, 2, shape, 3, want_ix, want_v);
    assert_int_equal(spt_tensor_dtype(t), SPT_FLOAT64);
    assert_int_equal(spt_tensor_volume(t), 12);
    assert_int_equal(spt_tensor_order(t)[0], -1);
    assert_int_equal(spt_tensor_order(t)[1], -1);
    assert_false(spt_tensor_known_valid(t));
    assert_false(spt_tensor_known_sorted(t));
    spt_tensor_free(t);
    spt_tensor_free(NULL);
}

static void test_rank0_and_empty(void **state) {
    (void)state;
    spt_tensor *t;
    int32_t v = 7;
    ASSERT_OK(spt_tensor_new(SPT_INT32, 0, NULL, 1, NULL, &v, NULL, &t));
    assert_int_equal(spt_tensor_volume(t), 1);
    ASSERT_OK(spt_validate(t));
    spt_dense *d;
    ASSERT_OK(spt_to_dense(t, NULL, true, &d));
    assert_int_equal(spt_dense_rank(d), 0);
    assert_int_equal(((const int32_t *)spt_dense_data(d))[0], 7);
    spt_dense_free(d);
    spt_tensor_free(t);
    int64_t shape[3] = {0, 5, 2};
    ASSERT_OK(spt_tensor_new(SPT_UINT8, 3, shape, 0, NULL, NULL, NULL, &t));
    assert_int_equal(spt_tensor_nnz(t), 0);
    assert_int_equal(spt_tensor_volume(t), 0);
    ASSERT_OK(spt_reorder(t, NULL));
    ASSERT_OK(spt_indices_valid(t));
    spt_tensor_free(t);
}

static void test_shape_checks(void **state) {
    (void)state;
    spt_tensor *t = (spt_tensor *)1;
    int64_t neg[2] = {3, -1}, big[2] = {INT64_MAX, 2}, zero_big[3] = {0, INT64_MAX, INT64_MAX};
    ASSERT_ST(SPT_EINVAL, spt_tensor_new(SPT_FLOAT32, 2, neg, 0, NULL, NULL, NULL, &t));
    assert_null(t);
    ASSERT_MSG("negative");
    /* any volume is a valid sparse shape: spt_tensor_volume says -1 when it does not fit in int64 */
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 2, big, 0, NULL, NULL, NULL, &t));
    assert_int_equal(spt_tensor_volume(t), -1);
    spt_tensor_free(t);
    int64_t vol = 0;
    ASSERT_ST(SPT_EOVERFLOW, spt_shape_volume(2, big, &vol));
    ASSERT_MSG("spt_shape_volume");
    ASSERT_OK(spt_tensor_new(SPT_FLOAT32, 3, zero_big, 0, NULL, NULL, NULL, &t));
    spt_tensor_free(t);
    int64_t one[1] = {4};
    ASSERT_ST(SPT_EINVAL, spt_tensor_new(SPT_FLOAT32, SPT_MAX_RANK + 1, one, 0, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EINVAL, spt_tensor_new(SPT_FLOAT32, 1, one, -1, NULL, NULL, NULL, &t));
    ASSERT_ST(SPT_EDTYPE, spt_tensor_new((spt_dtype)99, 1, one, 0, NULL, NULL, NULL, &t));
    /* claimed sizes whose bytes overflow are rejected before any buffer is read */
    ASSERT_ST(SPT_EOVERFLOW, spt_tensor_wrap(SPT_FLOAT64, 1, one, (int64_t)1 << 61, NULL, NULL, NULL, NULL, NULL, &t));
    int64_t order_bad[2] = {0, 0}, order_mixed[2] = {0, -1}, shape2[2] = {2, 2};
    ASSERT_ST(SPT_EINVAL, spt_tensor_new(SPT_FLOAT32, 2, shape2, 0, NULL, NULL, order_bad, &t));
    ASSERT_ST(SPT_EINVAL, spt_tensor_new(SPT_FLOAT32, 2, shape2, 0, NULL, NULL, order_mixed, &t));
    int64_t v;
    ASSERT_OK(spt_shape_volume(2, shape2, &v));
    assert_int_equal(v, 4);
}

static void test_dims_above_2_31(void **state) {
    (void)state;
    int64_t shape[2] = {(int64_t)1 << 33, (int64_t)1 << 29};
    int64_t ix[4] = {((int64_t)1 << 33) - 1, 5, (int64_t)1 << 32, ((int64_t)1 << 29) - 1};
    int64_t v[2] = {1, 2};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_new(SPT_INT64, 2, shape, 2, ix, v, NULL, &t));
    ASSERT_OK(spt_validate(t));
    ASSERT_OK(spt_reorder(t, NULL));
    int64_t want_ix[4] = {(int64_t)1 << 32, ((int64_t)1 << 29) - 1, ((int64_t)1 << 33) - 1, 5};
    int64_t want_v[2] = {2, 1};
    spt_test_expect_tensor(t, 2, shape, 2, want_ix, want_v);
    spt_tensor_free(t);
}

static int release_calls;
static void release(void *ctx) {
    release_calls++;
    free(ctx);
}

static void test_wrap_borrow_and_adopt(void **state) {
    (void)state;
    int64_t shape[1] = {10}, ix[3] = {5, 1, 3};
    float v[3] = {5, 1, 3};
    spt_tensor *t;
    ASSERT_OK(spt_tensor_wrap(SPT_FLOAT32, 1, shape, 3, ix, v, NULL, NULL, NULL, &t));
    assert_ptr_equal(spt_tensor_indices(t), ix);
    ASSERT_OK(spt_reorder(t, NULL)); /* sorts the caller's buffers in place */
    assert_int_equal(ix[0], 1);
    assert_int_equal(ix[2], 5);
    assert_true(v[0] == 1 && v[1] == 3 && v[2] == 5);
    spt_tensor_free(t);
    /* adopt: release is called once at free */
    int64_t *aix = malloc(2 * sizeof *aix);
    aix[0] = 0;
    aix[1] = 1;
    static double av[2] = {1, 2};
    release_calls = 0;
    ASSERT_OK(spt_tensor_wrap(SPT_FLOAT64, 1, shape, 2, aix, av, NULL, release, aix, &t));
    spt_tensor_free(t);
    assert_int_equal(release_calls, 1);
}

static void test_strings(void **state) {
    (void)state;
    int64_t shape[1] = {4}, ix[3] = {3, 0, 2};
    char a[] = {'x', 0, 'y'};
    spt_str v[3] = {{a, 3}, {"", 0}, {"hello", 5}};
    spt_tensor *t, *c;
    ASSERT_OK(spt_tensor_new(SPT_STRING, 1, shape, 3, ix, v, NULL, &t));
    a[0] = 'z'; /* bytes were copied */
    ASSERT_OK(spt_tensor_clone(t, &c));
    spt_tensor_free(t);
    ASSERT_OK(spt_reorder(c, NULL));
    int64_t want_ix[3] = {0, 2, 3};
    spt_str want_v[3] = {{"", 0}, {"hello", 5}, {"x\0y", 3}};
    spt_test_expect_tensor(c, 1, shape, 3, want_ix, want_v);
    ASSERT_OK(spt_tensor_set_string(c, 1, "bye", 3));
    assert_memory_equal(((const spt_str *)spt_tensor_values(c))[1].data, "bye", 3);
    ASSERT_ST(SPT_ERANGE, spt_tensor_set_string(c, 3, "x", 1));
    spt_dense *d;
    spt_str dflt = {"-", 1};
    ASSERT_OK(spt_to_dense(c, &dflt, true, &d));
    const spt_str *dv = spt_dense_data(d);
    assert_int_equal(dv[1].len, 1);
    assert_memory_equal(dv[1].data, "-", 1);
    assert_int_equal(dv[3].len, 3);
    spt_tensor_free(c);
    assert_memory_equal(dv[3].data, "x\0y", 3); /* the dense array owns its bytes */
    spt_dense_free(d);
}

static void test_errors(void **state) {
    (void)state;
    assert_string_equal(spt_status_name(SPT_OK), "OK");
    assert_string_equal(spt_status_name(SPT_ERANGE), "OUT_OF_RANGE");
    assert_string_equal(spt_status_name((spt_status)-100), "UNKNOWN");
    assert_non_null(strstr(spt_strerror(SPT_ENOMEM), "allocation"));
    spt_dtype d;
    ASSERT_OK(spt_dtype_from_name("complex64", &d));
    assert_int_equal(d, SPT_COMPLEX64);
    ASSERT_OK(spt_dtype_from_name("double", &d));
    assert_int_equal(d, SPT_FLOAT64);
    ASSERT_ST(SPT_EDTYPE, spt_dtype_from_name("float16", &d));
    assert_int_equal(spt_dtype_size(SPT_COMPLEX128), 16);
    assert_int_equal(spt_dtype_size(SPT_STRING), sizeof(spt_str));
    assert_true(spt_dtype_is_numeric(SPT_UINT16));
    assert_false(spt_dtype_is_numeric(SPT_BOOL));
    spt_clear_error();
    assert_string_equal(spt_last_error(), "");
}

struct sweep_ctx {
    spt_tensor *t;
    spt_dense *d;
};

static spt_status sweep_new_reorder_dense(void *p) {
    struct sweep_ctx *c = p;
    int64_t shape[2] = {5, 5}, ix[8] = {4, 4, 0, 1, 2, 2, 0, 0};
    spt_str v[4] = {{"a", 1}, {"bb", 2}, {"ccc", 3}, {"", 0}};
    spt_status st = spt_tensor_new(SPT_STRING, 2, shape, 4, ix, v, NULL, &c->t);
    if (st == SPT_OK) st = spt_reorder(c->t, NULL);
    if (st == SPT_OK) st = spt_to_dense(c->t, NULL, true, &c->d);
    return st;
}

static void sweep_cleanup(void *p) {
    struct sweep_ctx *c = p;
    spt_tensor_free(c->t);
    spt_dense_free(c->d);
    c->t = NULL;
    c->d = NULL;
}

static void test_alloc_sweep(void **state) {
    (void)state;
    struct sweep_ctx c = {0};
    long k = spt_test_alloc_sweep(sweep_new_reorder_dense, sweep_cleanup, &c);
    assert_true(k > 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_copies_and_accessors),
        cmocka_unit_test(test_rank0_and_empty),
        cmocka_unit_test(test_shape_checks),
        cmocka_unit_test(test_dims_above_2_31),
        cmocka_unit_test(test_wrap_borrow_and_adopt),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* SPT_CONFORMANCE: the conformance handlers of the ops this file tests (tests/conformance/runner.c
       * runs the .jsonl vectors of tests/conformance through them) */
#include "conf.h"
#include <stdlib.h>

/* ---- construction from counts (claimed sizes with NULL buffers) ---- */

static conf_result h_tensor_new(const conf_case *c) {
    long ns, no;
    int64_t *shape = conf_ints_new(c, "shape", &ns), *order = conf_ints_new(c, "order", &no);
    spt_dtype dt = conf_dtype(c->args, SPT_FLOAT64);
    json_t *jr = conf_arg(c, "rank");
    int64_t rank = jr ? (int64_t)json_integer_value(jr) : ns, nnz = json_integer_value(conf_arg(c, "nnz"));
    spt_tensor *t = (spt_tensor *)&t;
    spt_status st = json_is_true(conf_arg(c, "wrap"))
                        ? spt_tensor_wrap(dt, rank, shape, nnz, NULL, NULL, order, NULL, NULL, &t)
                        : spt_tensor_new(dt, rank, shape, nnz, NULL, NULL, order, &t);
    conf_result r = conf_judge(c, st);
    if (st != SPT_OK && t != NULL) r = conf_fail(c, "out-parameter not NULL after an error");
    if (st == SPT_OK) spt_tensor_free(t);
    free(shape);
    free(order);
    return r == CONF_CONTINUE ? CONF_PASS : r;
}

CONF_HANDLERS(test_tensor, {"spt_tensor_new", h_tensor_new, CONF_OP(spt_tensor_new)})
#endif
