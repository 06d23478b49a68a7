/* SPDX-License-Identifier: Apache-2.0 */
/* conf_reduce.c -- what the conformance handlers of several reduce ops share (each handler lives in its
 * op's C test, under SPT_CONFORMANCE; declarations in conf.h). */
#include "conf.h"

#include <stdlib.h>

/* ---- reductions ---- */

conf_result conf_reduce(const conf_case *c, bool max, bool sparse) {
    json_t *ja = json_object_get(c->args, "reduction_axes");
    if (!ja) ja = json_object_get(c->args, "axes");
    /* The C API takes the axes as a plain list: a rank-2 axes tensor (bad_inputs RD04) is not
     * expressible, so that case does not apply. */
    if (json_is_object(ja)) return CONF_SKIP;
    spt_tensor *t, *so = NULL;
    spt_dense *d = NULL;
    spt_status st = conf_arg_sparse(c, "sp", NULL, &t);
    if (st != SPT_OK) return conf_status(c, st);
    int64_t axes[SPT_MAX_RANK];
    long na = 0;
    if (ja && !json_is_null(ja)) {
        na = conf_ints(ja, axes, SPT_MAX_RANK);
        if (na < 0) {
            spt_tensor_free(t);
            return conf_fail(c, "malformed axes");
        }
    }
    const int64_t *ap = ja && !json_is_null(ja) ? axes : NULL;
    bool keep = json_is_true(json_object_get(c->args, "keep_dims"));
    if (max) st = sparse ? spt_reduce_max_sparse(t, ap, na, keep, &so) : spt_reduce_max(t, ap, na, keep, &d);
    else st = sparse ? spt_reduce_sum_sparse(t, ap, na, keep, &so) : spt_reduce_sum(t, ap, na, keep, &d);
    conf_result r = conf_finish(c, st, d, so);
    spt_dense_free(d);
    spt_tensor_free(so);
    spt_tensor_free(t);
    return r;
}

/* An int64 vector argument as a rank-1 int64 dense array. */
spt_status conf_ivec(const json_t *j, spt_dense **out) {
    *out = NULL;
    if (!json_is_array(j)) return SPT_EINVAL;
    int64_t n = (int64_t)json_array_size(j);
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) return SPT_ENOMEM;
    if (conf_ints(j, v, (long)n) != n) {
        free(v);
        return SPT_EINVAL;
    }
    spt_status st = spt_dense_new_from(SPT_INT64, 1, &n, v, out);
    free(v);
    return st;
}

/* ---- segment reductions ---- */

conf_result conf_segment(const conf_case *c, seg_fn f) {
    spt_dense *data = NULL, *idx = NULL, *ids = NULL, *out = NULL;
    spt_status st = conf_dense(json_object_get(c->args, "data"), conf_dtype(c->args, SPT_FLOAT32), &data);
    if (st == SPT_OK) st = conf_ivec(json_object_get(c->args, "indices"), &idx);
    if (st == SPT_OK) st = conf_ivec(json_object_get(c->args, "segment_ids"), &ids);
    conf_result r;
    if (st != SPT_OK) {
        r = conf_fail(c, "cannot build the arguments");
    } else {
        st = f(data, idx, ids, conf_opt_int(c->args, "num_segments", SPT_UNSET), &out);
        r = conf_status(c, st);
        if (r == CONF_CONTINUE) r = conf_expect_dense(c, json_object_get(c->expect, "dense"), out, c->expect);
    }
    spt_dense_free(data);
    spt_dense_free(idx);
    spt_dense_free(ids);
    spt_dense_free(out);
    return r;
}
