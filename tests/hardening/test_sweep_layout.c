/* SPDX-License-Identifier: Apache-2.0 */
/* test_sweep_layout.c -- the allocation-failure sweep over every layout op (spt.h LAYOUT OPS), on an
 * unsorted string tensor (strings and sorting allocate the most) or int ids where the op needs them. */
#include "sweep.h"

/* Run `call` on a fresh string tensor `t` (and an int32 copy `ti`); out is a tensor. */
#define LAYOUT_CASE(name, min, call)                                                                                   \
    static spt_status case_##name(void *ctx) {                                                                         \
        (void)ctx;                                                                                                     \
        spt_tensor *t = NULL, *ti = NULL, *out = SENT;                                                                 \
        spt_status st = sw_str(&t);                                                                                    \
        if (st == SPT_OK) st = sw_i32(&ti);                                                                            \
        if (st != SPT_OK) {                                                                                            \
            spt_tensor_free(t);                                                                                        \
            return st;                                                                                                 \
        }                                                                                                              \
        uint64_t h = sweep_hash(t), hi = sweep_hash(ti);                                                               \
        st = (call);                                                                                                   \
        OUTCHK(st, out);                                                                                               \
        if (sweep_hash(t) != h || sweep_hash(ti) != hi) st = SPT_EINTERNAL;                                            \
        spt_tensor_free(st == SPT_OK ? out : NULL);                                                                    \
        spt_tensor_free(t);                                                                                            \
        spt_tensor_free(ti);                                                                                           \
        return st;                                                                                                     \
    }                                                                                                                  \
    SWEEP(name, min)

static const int64_t order_rm[2] = {0, 1};

static spt_status case_concat_primary(void *ctx) {
    (void)ctx;
    spt_tensor *t = NULL, *out = SENT;
    spt_status st = sw_str(&t);
    if (st != SPT_OK) return st;
    st = spt_tensor_set_order(t, order_rm); /* metadata only: allocates nothing */
    uint64_t h = sweep_hash(t);
    const spt_tensor *in[3] = {t, t, t};
    if (st == SPT_OK) st = spt_concat_primary(in, 3, &out);
    OUTCHK(st, out);
    if (sweep_hash(t) != h) st = SPT_EINTERNAL;
    spt_tensor_free(st == SPT_OK ? out : NULL);
    spt_tensor_free(t);
    return st;
}
SWEEP(concat_primary, 3)

static spt_status concat_of(const spt_tensor *t, int64_t axis, spt_tensor **out) {
    const spt_tensor *in[3] = {t, t, t};
    return spt_concat(in, 3, axis, false, out);
}
LAYOUT_CASE(concat_axis0, 3, concat_of(t, 0, &out))
LAYOUT_CASE(concat_axis1, 3, concat_of(t, 1, &out))
LAYOUT_CASE(concat_expand, 3, spt_concat((const spt_tensor *const[]){t, ti, t}, 1, -1, true, &out))

static spt_status split_of(const spt_tensor *t, spt_tensor **out) {
    spt_tensor *outs[3] = {SENT, SENT, SENT};
    spt_status st = spt_split(t, 0, 3, outs);
    for (int k = 0; k < 3; k++) {
        if (st != SPT_OK && outs[k] != NULL) {
            print_error("spt_split failed but piece %d is not NULL\n", k);
            st = SPT_EINTERNAL;
        }
        if (st == SPT_OK) spt_tensor_free(outs[k]);
    }
    *out = st == SPT_OK ? NULL : NULL;
    return st;
}
LAYOUT_CASE(split, 3, split_of(t, &out))

LAYOUT_CASE(slice, 2, spt_slice(t, (const int64_t[]){1, 0}, (const int64_t[]){3, 2}, &out))
LAYOUT_CASE(retain, 2, spt_retain(t, (const bool[]){true, false, true, true, false}, 5, &out))
LAYOUT_CASE(reset_shape, 2, spt_reset_shape(t, (const int64_t[]){7, 3}, &out))
LAYOUT_CASE(reset_shape_tight, 2, spt_reset_shape(t, NULL, &out))
LAYOUT_CASE(reshape, 2, spt_reshape(t, 3, (const int64_t[]){2, -1, 3}, &out))
LAYOUT_CASE(transpose, 3, spt_transpose(t, NULL, &out))

static spt_status fill_of(const spt_tensor *t, spt_tensor **out) {
    spt_dense *ind = SENT, *rev = SENT;
    spt_str dv = {"filled", 6};
    spt_status st = spt_fill_empty_rows(t, &dv, out, &ind, &rev);
    OUTCHK(st, ind);
    OUTCHK(st, rev);
    if (st == SPT_OK) {
        spt_dense_free(ind);
        spt_dense_free(rev);
    }
    return st;
}
LAYOUT_CASE(fill_empty_rows, 4, fill_of(t, &out))

static spt_status indicator_of(const spt_tensor *ti, spt_tensor **out) {
    spt_dense *d = SENT;
    spt_status st = spt_to_indicator(ti, 10, &d);
    OUTCHK(st, d);
    if (st == SPT_OK) spt_dense_free(d);
    *out = NULL;
    return st;
}
LAYOUT_CASE(to_indicator, 2, indicator_of(ti, &out))

static spt_status merge_of(const spt_tensor *ti, const spt_tensor *t, spt_tensor **out) {
    const spt_tensor *ids[2] = {ti, ti};
    int64_t vocab[2] = {10, 10};
    return spt_merge(ids, 2, t, vocab, 2, false, out);
}
LAYOUT_CASE(merge, 3, merge_of(ti, t, &out))

int main(void) {
    SWEEP_MAIN_INIT();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concat_primary),
        cmocka_unit_test(test_concat_axis0),
        cmocka_unit_test(test_concat_axis1),
        cmocka_unit_test(test_concat_expand),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_retain),
        cmocka_unit_test(test_reset_shape),
        cmocka_unit_test(test_reset_shape_tight),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_fill_empty_rows),
        cmocka_unit_test(test_to_indicator),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
