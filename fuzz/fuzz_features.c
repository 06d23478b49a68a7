/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_features.c -- the features family (bincount dense and sparse, cross / cross_hashed, the embedding
 * lookups) on decoded inputs. Results must satisfy the invariants; inputs must not change. */
#include "fz.h"

#include <stdlib.h>
#include <string.h>

static void do_bincount(fz_in *in, spt_tensor *t) {
    spt_tensor *w = NULL, *out = FZ_SENTINEL;
    if (fz_u8(in) < 80 && spt_cast(t, fz_bool(in) ? SPT_FLOAT32 : SPT_INT64, &w) != SPT_OK) w = NULL;
    int64_t axis = fz_u8(in) < 200 ? -(int64_t)fz_bool(in) : fz_int(in, 3);
    int64_t minl = fz_u8(in) < 128 ? SPT_UNSET : fz_int(in, 40), maxl = fz_u8(in) < 128 ? SPT_UNSET : fz_int(in, 40);
    uint64_t h = fz_hash_tensor(t);
    fz_op_begin();
    spt_status st = spt_bincount(t, w, axis, minl, maxl, w == NULL && fz_bool(in), &out);
    fz_op_end();
    if (fz_hash_tensor(t) != h) fz_die("spt_bincount", "modified the input");
    fz_finish_tensor("spt_bincount", st, out, false);
    spt_tensor_free(w);
    /* the dense form of the same values */
    int64_t shape[2] = {fz_range(in, 0, 6), fz_range(in, 0, 6)};
    spt_dense *d = fz_dense(in, fz_bool(in) ? SPT_INT32 : SPT_INT64, fz_range(in, 0, 2), shape);
    if (d) {
        spt_dense *wd = fz_u8(in) < 60 ? fz_dense(in, SPT_FLOAT64, spt_dense_rank(d), spt_dense_shape(d)) : NULL;
        fz_op_begin();
        st = spt_bincount_dense(d, wd, axis, minl, maxl, wd == NULL && fz_bool(in), &out);
        fz_op_end();
        fz_finish_tensor("spt_bincount_dense", st, out, false);
        spt_dense_free(wd);
        spt_dense_free(d);
    }
}

static void do_cross(fz_in *in) {
    spt_cross_input inputs[3];
    spt_tensor *ts[3] = {NULL, NULL, NULL};
    spt_dense *ds[3] = {NULL, NULL, NULL};
    int64_t n = fz_range(in, 1, 3), batch = fz_range(in, 0, 4);
    for (int64_t k = 0; k < n; k++) {
        int dt = fz_u8(in) < 128 ? SPT_STRING : SPT_INT64;
        int64_t shape[2] = {fz_u8(in) < 245 ? batch : batch + 1, fz_range(in, 0, 4)};
        if (fz_bool(in)) {
            fz_tspec spec = {.dtype = dt, .rank = 2, .shape = shape, .max_nnz = 10};
            ts[k] = fz_tensor(in, &spec);
        } else {
            ds[k] = fz_dense(in, dt, 2, shape);
        }
        inputs[k] = (spt_cross_input){ts[k], ds[k]};
    }
    bool ok = true;
    for (int64_t k = 0; k < n; k++) ok = ok && (ts[k] || ds[k]);
    if (ok) {
        spt_tensor *out = FZ_SENTINEL;
        fz_op_begin();
        spt_status st = fz_bool(in) ? spt_cross(inputs, n, "_X_", 3, &out)
                                    : spt_cross_hashed(inputs, n, fz_int(in, 100), fz_u64(in), &out);
        fz_op_end();
        fz_finish_tensor("spt_cross", st, out, false);
    }
    for (int k = 0; k < 3; k++) {
        spt_tensor_free(ts[k]);
        spt_dense_free(ds[k]);
    }
}

static void do_embedding(fz_in *in, spt_tensor *ids) {
    int64_t ps[2] = {fz_range(in, 0, 6), fz_range(in, 0, 3)};
    spt_dense *p = fz_dense(in, fz_bool(in) ? SPT_FLOAT32 : SPT_FLOAT64, 2, ps);
    if (!p) return;
    spt_tensor *w = NULL;
    if (fz_bool(in) && spt_cast(ids, spt_dense_dtype(p), &w) != SPT_OK) w = NULL;
    const spt_dense *const tables[2] = {p, p};
    spt_dense *out = FZ_SENTINEL;
    int64_t np = fz_range(in, 1, 2);
    spt_combiner comb = (spt_combiner)(fz_u8(in) % 4);
    fz_op_begin();
    spt_status st = fz_bool(in) ? spt_embedding_lookup_sparse(tables, np, ids, w, comb, &out)
                                : spt_safe_embedding_lookup_sparse(tables, np, ids, w, comb, fz_range(in, -2, 8), &out);
    fz_op_end();
    fz_finish_dense("spt_embedding_lookup_sparse", st, out);
    spt_tensor_free(w);
    spt_dense_free(p);
}

static void act_cross(fz_in *in, spt_tensor *t) {
    (void)t;
    do_cross(in);
}

/* Every input's second byte picks the action (modulo the table's length): append, never reorder. */
static const fz_action actions[] = {
    {"bincount", FZ_OP(spt_bincount), do_bincount, false},
    {"cross", FZ_OP(spt_cross), act_cross, true},
    {"embedding", FZ_OP(spt_embedding_lookup_sparse), do_embedding, false},
};
FZ_ALSO(FZ_OP(spt_bincount_dense), FZ_OP(spt_cross_hashed), FZ_OP(spt_safe_embedding_lookup_sparse));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    fz_begin(&in);
    const fz_action *a = &actions[fz_u8(&in) % FZ_NUM_ACTIONS(actions)];
    uint8_t flags = fz_u8(&in);
    if (a->alone) {
        a->run(&in, NULL);
        return 0;
    }
    fz_tspec spec = {.dtype = -1, .rank = -1, .no_huge_dims = true};
    static const int ints[4] = {SPT_INT64, SPT_INT32, SPT_UINT8, SPT_INT8};
    spec.dtype = ints[flags % 4]; /* integer ids */
    if (a->op == FZ_OP(spt_embedding_lookup_sparse)) spec.rank = 2 + (flags & 16 ? 1 : 0);
    spt_tensor *t = fz_tensor(&in, &spec);
    if (!t) return 0;
    a->run(&in, t);
    spt_tensor_free(t);
    return 0;
}
