/* SPDX-License-Identifier: Apache-2.0 */
/* test_mask.c -- spt_mask_indices (tf.sparse.mask): TensorFlow's docstring example, duplicates, empty
 * lists, errors and the allocation sweep. */
#include "spt_test.h"

static void test_tf_example(void **state) {
    (void)state;
    /* tf.sparse.mask's example: indices [12, 26, 37, 45], mask [12, 45] -> the slices of 26 and 37 */
    int64_t ix[4] = {12, 26, 37, 45}, mk[2] = {45, 12}, keep[4] = {-1, -1, -1, -1}, n = -1;
    ASSERT_OK(spt_mask_indices(ix, 4, mk, 2, keep, &n));
    assert_int_equal(n, 2);
    assert_int_equal(keep[0], 1);
    assert_int_equal(keep[1], 2);
    assert_int_equal(keep[2], -1); /* nothing written past n */
}

static void test_duplicates_and_empty(void **state) {
    (void)state;
    int64_t ix[7] = {5, -3, 5, 7, INT64_MIN, 7, INT64_MAX}, mk[4] = {7, 7, 100, INT64_MIN}, keep[7], n;
    ASSERT_OK(spt_mask_indices(ix, 7, mk, 4, keep, &n));
    int64_t want[4] = {0, 1, 2, 6};
    assert_int_equal(n, 4);
    for (int k = 0; k < 4; k++) assert_int_equal(keep[k], want[k]);
    ASSERT_OK(spt_mask_indices(ix, 7, NULL, 0, keep, &n)); /* no mask: everything */
    assert_int_equal(n, 7);
    for (int k = 0; k < 7; k++) assert_int_equal(keep[k], k);
    ASSERT_OK(spt_mask_indices(NULL, 0, mk, 4, NULL, &n)); /* no slices */
    assert_int_equal(n, 0);
}

static void test_errors(void **state) {
    (void)state;
    int64_t ix[1] = {0}, keep[1], n = 9;
    ASSERT_ST(SPT_EINVAL, spt_mask_indices(ix, -1, ix, 1, keep, &n));
    assert_int_equal(n, 0);
    ASSERT_ST(SPT_EINVAL, spt_mask_indices(ix, 1, ix, -1, keep, &n));
    ASSERT_ST(SPT_EINVAL, spt_mask_indices(NULL, 1, ix, 1, keep, &n));
    ASSERT_ST(SPT_EINVAL, spt_mask_indices(ix, 1, NULL, 1, keep, &n));
    ASSERT_ST(SPT_EINVAL, spt_mask_indices(ix, 1, ix, 1, NULL, &n));
    ASSERT_ST(SPT_EINVAL, spt_mask_indices(ix, 1, ix, 1, keep, NULL));
}

typedef struct {
    int64_t keep[3], n;
} sweep_ctx;
static spt_status sweep_run(void *p) {
    sweep_ctx *x = p;
    static const int64_t ix[3] = {1, 2, 3}, mk[2] = {2, 9};
    spt_status st = spt_mask_indices(ix, 3, mk, 2, x->keep, &x->n);
    if (st == SPT_OK) assert_int_equal(x->n, 2);
    else assert_int_equal(x->n, 0);
    return st;
}
static void sweep_clean(void *p) { (void)p; }
static void test_alloc_sweep(void **state) {
    (void)state;
    spt_test_alloc_install();
    sweep_ctx x;
    assert_true(spt_test_alloc_sweep(sweep_run, sweep_clean, &x) >= 1); /* the sorted copy of the mask */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tf_example),
        cmocka_unit_test(test_duplicates_and_empty),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_alloc_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
