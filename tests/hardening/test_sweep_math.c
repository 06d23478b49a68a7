/* SPDX-License-Identifier: Apache-2.0 */
/* test_sweep_math.c -- the allocation-failure sweep over every math op (spt.h MATH OPS), on unsorted
 * float64 inputs (so that the ops' sorting paths allocate too). */
#include "sweep.h"

static const double dm43[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

/* `call` sees a (unsorted float64 4x3), b (its transpose-shaped twin: the same entries, sorted), d (a
 * dense 4x3), dv (a dense [3] row), m (a dense 3x2), x (a dense [3]); out tensor `out`, dense `dout`. */
#define MATH_CASE(name, min, dense_out, call)                                                                          \
    static spt_status case_##name(void *ctx) {                                                                         \
        (void)ctx;                                                                                                     \
        spt_status bst = SPT_OK, st = SPT_OK;                                                                          \
        spt_tensor *a = NULL, *b = NULL, *out = (dense_out) ? NULL : SENT;                                             \
        spt_dense *d = NULL, *dv = NULL, *m = NULL, *x = NULL, *dout = (dense_out) ? SENT : NULL;                      \
        int64_t s43[2] = {4, 3}, s3 = 3, s32[2] = {3, 2};                                                              \
        BUILD(sw_f64(&a));                                                                                             \
        BUILD(sw_f64(&b));                                                                                             \
        BUILD(spt_reorder(b, NULL));                                                                                   \
        BUILD(spt_dense_new_from(SPT_FLOAT64, 2, s43, dm43, &d));                                                      \
        BUILD(spt_dense_new_from(SPT_FLOAT64, 1, &s3, dm43, &dv));                                                     \
        BUILD(spt_dense_new_from(SPT_FLOAT64, 2, s32, dm43, &m));                                                      \
        BUILD(spt_dense_new_from(SPT_FLOAT64, 1, &s3, dm43, &x));                                                      \
        uint64_t ha = sweep_hash(a), hb = sweep_hash(b);                                                               \
        st = (call);                                                                                                   \
        OUTCHK(st, out);                                                                                               \
        OUTCHK(st, dout);                                                                                              \
        if (sweep_hash(a) != ha || sweep_hash(b) != hb) st = SPT_EINTERNAL;                                            \
        if (st == SPT_OK) {                                                                                            \
            spt_tensor_free(out);                                                                                      \
            spt_dense_free(dout);                                                                                      \
        }                                                                                                              \
    done:                                                                                                              \
        spt_tensor_free(a);                                                                                            \
        spt_tensor_free(b);                                                                                            \
        spt_dense_free(d);                                                                                             \
        spt_dense_free(dv);                                                                                            \
        spt_dense_free(m);                                                                                             \
        spt_dense_free(x);                                                                                             \
        return bst != SPT_OK ? bst : st;                                                                               \
    }                                                                                                                  \
    SWEEP(name, min)

static const int64_t ax1[1] = {1};
MATH_CASE(reduce_sum, 12, 1, spt_reduce_sum(a, ax1, 1, false, &dout))
MATH_CASE(reduce_sum_all, 12, 1, spt_reduce_sum(a, NULL, 0, true, &dout))
MATH_CASE(reduce_sum_sparse, 12, 0, spt_reduce_sum_sparse(a, ax1, 1, true, &out))
MATH_CASE(reduce_max, 12, 1, spt_reduce_max(a, (const int64_t[]){0}, 1, false, &dout))
MATH_CASE(reduce_max_sparse, 12, 0, spt_reduce_max_sparse(a, (const int64_t[]){0}, 1, false, &out))
MATH_CASE(add, 12, 0, spt_add(a, b, 0.5, &out))
MATH_CASE(add_unsorted_both, 12, 0, spt_add(a, a, 0, &out))
MATH_CASE(add_dense, 12, 1, spt_add_dense(a, d, &dout))
MATH_CASE(cwise_mul, 12, 0, spt_sparse_dense_cwise_mul(a, dv, &out))
MATH_CASE(cwise_div, 12, 0, spt_sparse_dense_cwise_div(a, d, &out))
MATH_CASE(cwise_add, 12, 0, spt_sparse_dense_cwise_add(a, dv, &out))
MATH_CASE(maximum, 12, 0, spt_maximum(a, b, &out))
MATH_CASE(minimum, 12, 0, spt_minimum(b, a, &out))
MATH_CASE(softmax, 12, 0, spt_softmax(a, &out))
MATH_CASE(matmul, 12, 1, spt_sparse_dense_matmul(a, m, false, false, &dout))
MATH_CASE(matmul_adjoint, 12, 1, spt_sparse_dense_matmul(a, d, true, false, &dout))
MATH_CASE(matvec, 12, 1, spt_sparse_dense_matvec(a, x, false, &dout))

int main(void) {
    SWEEP_MAIN_INIT();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_sum),
        cmocka_unit_test(test_reduce_sum_all),
        cmocka_unit_test(test_reduce_sum_sparse),
        cmocka_unit_test(test_reduce_max),
        cmocka_unit_test(test_reduce_max_sparse),
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_add_unsorted_both),
        cmocka_unit_test(test_add_dense),
        cmocka_unit_test(test_cwise_mul),
        cmocka_unit_test(test_cwise_div),
        cmocka_unit_test(test_cwise_add),
        cmocka_unit_test(test_maximum),
        cmocka_unit_test(test_minimum),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_matmul_adjoint),
        cmocka_unit_test(test_matvec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
