/* SPDX-License-Identifier: Apache-2.0 */
/* ops_serial.c -- conformance handlers of serialization: serialize_sparse, deserialize_sparse.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"

#include <string.h>

/* ---- serialization ---- */

static conf_result serialize(const conf_case *c) {
    spt_tensor *sp = NULL, *back = NULL;
    JUDGE(c, conf_sparse(json_object_get(c->args, "sp"), false, &sp));
    spt_dense *ser = NULL; /* TensorFlow's form: [3] TensorProto strings */
    spt_status st = spt_serialize_sparse(sp, &ser);
    if (st == SPT_OK) st = spt_deserialize_sparse(ser, spt_tensor_dtype(sp), &back);
    spt_dense_free(ser);
    spt_tensor_free(sp);
    return conf_finish_sparse(c, st, back);
}

/* Leaves (sparse tensors) of a nested list, in row-major order, and the nesting as the batch shape. */
static bool collect(const json_t *j, int depth, int64_t *bshape, int *brank, spt_tensor **leaves, size_t *nl, size_t cap) {
    if (json_is_object(j)) {
        if (!json_object_get(j, "indices") || *nl == cap) return false;
        if (*brank < 0) *brank = depth;
        else if (*brank != depth) return false;
        return conf_sparse(j, false, &leaves[(*nl)++]) == SPT_OK;
    }
    if (!json_is_array(j) || depth >= SPT_MAX_RANK) return false;
    if (*nl == 0 && *brank < 0) bshape[depth] = (int64_t)json_array_size(j);
    else if (bshape[depth] != (int64_t)json_array_size(j)) return false;
    for (size_t i = 0; i < json_array_size(j); i++)
        if (!collect(json_array_get(j, i), depth + 1, bshape, brank, leaves, nl, cap)) return false;
    return true;
}

static conf_result deserialize(const conf_case *c) {
    json_t *ser = json_object_get(c->args, "serialized");
    if (json_is_object(ser) && !json_object_get(ser, "indices")) return CONF_SKIP; /* raw bytes / dims: tests/tf_formats */
    enum { CAP = 64 };
    spt_tensor *leaves[CAP];
    int64_t bshape[SPT_MAX_RANK];
    int brank = -1;
    size_t nl = 0;
    bool ok = collect(ser, 0, bshape, &brank, leaves, &nl, CAP);
    spt_dense *items[CAP] = {NULL};
    spt_str parts[3 * CAP];
    spt_status st = ok ? SPT_OK : SPT_EINVAL;
    for (size_t k = 0; k < nl && st == SPT_OK; k++) {
        st = spt_serialize_sparse(leaves[k], &items[k]);
        if (st == SPT_OK) memcpy(parts + 3 * k, spt_dense_data(items[k]), 3 * sizeof(spt_str));
    }
    spt_tensor *out = NULL;
    spt_dtype dt = conf_dtype(c->args, nl ? spt_tensor_dtype(leaves[0]) : SPT_FLOAT64);
    const int r = brank < 0 ? 0 : brank; /* the stack: batch shape + [3] */
    spt_dense *stack = NULL;
    if (st == SPT_OK) {
        bshape[r] = 3;
        st = spt_dense_new_from(SPT_STRING, r + 1, bshape, parts, &stack);
    }
    if (st == SPT_OK) st = spt_deserialize_sparse(stack, dt, &out);
    spt_dense_free(stack);
    for (size_t k = 0; k < nl; k++) {
        spt_dense_free(items[k]);
        spt_tensor_free(leaves[k]);
    }
    if (!ok) {
        spt_tensor_free(out);
        return conf_fail(c, "cannot read the serialized batch");
    }
    return conf_finish_sparse(c, st, out);
}

const conf_op conf_ops_serial[] = {
    {"serialize_sparse", serialize, CONF_OP(spt_serialize_sparse)},
    {"deserialize_sparse", deserialize, CONF_OP(spt_deserialize_sparse)},
    {NULL, NULL, 0},
};
