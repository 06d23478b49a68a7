/* SPDX-License-Identifier: Apache-2.0 */
/* ops_reduce.c -- conformance handlers of the reductions: reduce_sum / reduce_max (dense and sparse results), softmax, the segment
 * reductions.
 * Each entry of the table names the op of src/ops/ops.def it exercises. */
#include "conf.h"

#include <stdlib.h>

/* ---- reductions ---- */

static conf_result reduce(const conf_case *c, bool max, bool sparse) {
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

static conf_result reduce_sum(const conf_case *c) { return reduce(c, false, false); }

static conf_result reduce_sum_sparse(const conf_case *c) { return reduce(c, false, true); }

static conf_result reduce_max(const conf_case *c) { return reduce(c, true, false); }

static conf_result reduce_max_sparse(const conf_case *c) { return reduce(c, true, true); }

static conf_result sparse_softmax(const conf_case *c) {
    spt_tensor *t = NULL, *o = NULL;
    spt_status st = conf_arg_sparse(c, "sp", NULL, &t);
    if (st != SPT_OK) {
        /* TF's kernel checks the shape's rank before the triple's consistency: ask spt_softmax about the
         * shape alone (an empty tensor of that shape); its error, if any, comes first. */
        json_t *sp = json_object_get(c->args, "sp");
        json_t *js = json_object_get(sp, "shape");
        if (!js) js = json_object_get(sp, "dense_shape");
        int64_t shape[SPT_MAX_RANK];
        long r = conf_ints(js, shape, SPT_MAX_RANK);
        spt_tensor *e = NULL;
        if (r >= 0 && spt_tensor_new(conf_dtype(sp, SPT_FLOAT64), r, shape, 0, NULL, NULL, NULL, &e) == SPT_OK) {
            spt_status st2 = spt_softmax(e, &o);
            if (st2 != SPT_OK) st = st2;
            spt_tensor_free(o);
            o = NULL;
        }
        spt_tensor_free(e);
    }
    if (st == SPT_OK) st = spt_softmax(t, &o);
    conf_result r = conf_finish(c, st, NULL, o);
    spt_tensor_free(t);
    spt_tensor_free(o);
    return r;
}

/* An int64 vector argument as a rank-1 int64 dense array. */
static spt_status ivec(const json_t *j, spt_dense **out) {
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

typedef spt_status (*seg_fn)(const spt_dense *, const spt_dense *, const spt_dense *, int64_t, spt_dense **);

static conf_result segment(const conf_case *c, seg_fn f) {
    spt_dense *data = NULL, *idx = NULL, *ids = NULL, *out = NULL;
    spt_status st = conf_dense(json_object_get(c->args, "data"), conf_dtype(c->args, SPT_FLOAT32), &data);
    if (st == SPT_OK) st = ivec(json_object_get(c->args, "indices"), &idx);
    if (st == SPT_OK) st = ivec(json_object_get(c->args, "segment_ids"), &ids);
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

static conf_result segment_sum(const conf_case *c) { return segment(c, spt_segment_sum); }

static conf_result segment_mean(const conf_case *c) { return segment(c, spt_segment_mean); }

static conf_result segment_sqrt_n(const conf_case *c) { return segment(c, spt_segment_sqrt_n); }

const conf_op conf_ops_reduce[] = {
    {"sparse_reduce_sum", reduce_sum, CONF_OP(spt_reduce_sum)},
    {"sparse_reduce_sum_sparse", reduce_sum_sparse, CONF_OP(spt_reduce_sum_sparse)},
    {"sparse_reduce_max", reduce_max, CONF_OP(spt_reduce_max)},
    {"sparse_reduce_max_sparse", reduce_max_sparse, CONF_OP(spt_reduce_max_sparse)},
    {"sparse_softmax", sparse_softmax, CONF_OP(spt_softmax)},
    {"sparse_segment_sum", segment_sum, CONF_OP(spt_segment_sum)},
    {"sparse_segment_mean", segment_mean, CONF_OP(spt_segment_mean)},
    {"sparse_segment_sqrt_n", segment_sqrt_n, CONF_OP(spt_segment_sqrt_n)},
    {NULL, NULL, 0},
};
