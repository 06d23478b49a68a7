/* SPDX-License-Identifier: Apache-2.0 */
/* conf_json.c -- JSON values to spt objects and back, for the conformance runner. */
#include "conf.h"

#include <complex.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

conf_result conf_fail(const conf_case *c, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "FAIL %s:%ld [%s] %s: ", c->file, c->line, c->id, c->op);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return CONF_FAIL;
}

bool conf_expects_error(const conf_case *c) {
    if (c->bad_input) return json_is_string(c->expect) && strncmp(json_string_value(c->expect), "error:", 6) == 0;
    return json_object_get(c->expect, "error") != NULL;
}

/* TF's lower-case kinds; bad_inputs.jsonl's exact INVALID_ARGUMENT is judged in conf_status. */
static bool class_matches(const char *cls, spt_status st) {
    if (!strcasecmp(cls, "invalid_argument") || !strcasecmp(cls, "python_error"))
        return st == SPT_EINVAL || st == SPT_ERANGE || st == SPT_EOVERFLOW || st == SPT_EDTYPE;
    if (!strcasecmp(cls, "OUT_OF_RANGE")) return st == SPT_ERANGE;
    if (!strcasecmp(cls, "OVERFLOW")) return st == SPT_EOVERFLOW;
    if (!strcasecmp(cls, "OUT_OF_MEMORY")) return st == SPT_ENOMEM;
    if (!strcasecmp(cls, "failed_precondition")) return st == SPT_EPRECONDITION;
    return false;
}

conf_result conf_status(const conf_case *c, spt_status st) {
    if (!conf_expects_error(c)) {
        if (st != SPT_OK) return conf_fail(c, "expected success, got %s: %s", spt_status_name(st), spt_last_error());
        return CONF_CONTINUE;
    }
    const char *cls;
    if (c->bad_input) {
        cls = json_string_value(c->expect) + 6;
        /* the strict classes of bad_inputs.jsonl are exact */
        if (st == SPT_OK) return conf_fail(c, "expected %s, got success", cls);
        bool ok = !strcmp(cls, "INVALID_ARGUMENT") ? st == SPT_EINVAL || st == SPT_EDTYPE : class_matches(cls, st);
        if (!ok) return conf_fail(c, "expected %s, got %s: %s", cls, spt_status_name(st), spt_last_error());
        return CONF_PASS;
    }
    cls = json_string_value(json_object_get(c->expect, "error"));
    if (st == SPT_OK) return conf_fail(c, "expected error %s, got success", cls);
    if (!class_matches(cls, st))
        return conf_fail(c, "expected %s, got %s: %s", cls, spt_status_name(st), spt_last_error());
    const char *m = json_string_value(json_object_get(c->expect, "message"));
    if (!m) m = json_string_value(json_object_get(c->expect, "message_contains"));
    if (m && !strstr(spt_last_error(), m))
        return conf_fail(c, "message \"%s\" does not contain \"%s\"", spt_last_error(), m);
    return CONF_PASS;
}

spt_dtype conf_dtype(const json_t *obj, spt_dtype dflt) {
    const char *n = json_string_value(json_object_get(obj, "dtype"));
    spt_dtype d;
    if (n && spt_dtype_from_name(n, &d) == SPT_OK) return d;
    return dflt;
}

long conf_ints(const json_t *j, int64_t *out, long cap) {
    if (json_is_integer(j)) {
        if (cap < 1) return -1;
        out[0] = json_integer_value(j);
        return 1;
    }
    if (!json_is_array(j) || (long)json_array_size(j) > cap) return -1;
    for (size_t i = 0; i < json_array_size(j); i++) {
        json_t *v = json_array_get(j, i);
        if (!json_is_integer(v)) return -1;
        out[i] = json_integer_value(v);
    }
    return (long)json_array_size(j);
}

/* ---- elements ---- */

static double num(const json_t *v) {
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (!strcmp(s, "nan")) return NAN;
        if (!strcmp(s, "inf")) return INFINITY;
        if (!strcmp(s, "-inf")) return -INFINITY;
        return atof(s);
    }
    if (json_is_true(v)) return 1;
    if (json_is_false(v) || json_is_null(v)) return 0;
    return json_number_value(v);
}

static int64_t inum(const json_t *v) {
    if (json_is_integer(v)) return json_integer_value(v);
    return (int64_t)num(v);
}

static bool is_leaf(const json_t *j, spt_dtype dt) {
    if (!json_is_array(j)) return true;
    if (dt == SPT_COMPLEX64 || dt == SPT_COMPLEX128)
        return json_array_size(j) == 2 && !json_is_array(json_array_get(j, 0));
    return false;
}

static void set_elem(spt_dtype dt, void *buf, int64_t i, const json_t *v) {
    switch (dt) {
    case SPT_INT8: ((int8_t *)buf)[i] = (int8_t)inum(v); break;
    case SPT_INT16: ((int16_t *)buf)[i] = (int16_t)inum(v); break;
    case SPT_INT32: ((int32_t *)buf)[i] = (int32_t)inum(v); break;
    case SPT_INT64: ((int64_t *)buf)[i] = (int64_t)inum(v); break;
    case SPT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)inum(v); break;
    case SPT_UINT16: ((uint16_t *)buf)[i] = (uint16_t)inum(v); break;
    case SPT_UINT32: ((uint32_t *)buf)[i] = (uint32_t)inum(v); break;
    case SPT_UINT64:
        ((uint64_t *)buf)[i] = json_is_integer(v) ? (uint64_t)json_integer_value(v) : (uint64_t)num(v);
        break;
    case SPT_BOOL: ((bool *)buf)[i] = num(v) != 0; break;
    case SPT_FLOAT32: ((float *)buf)[i] = (float)num(v); break;
    case SPT_FLOAT64: ((double *)buf)[i] = num(v); break;
    case SPT_COMPLEX64:
        ((float _Complex *)buf)[i] = json_is_array(v)
                                         ? (float)num(json_array_get(v, 0)) + (float)num(json_array_get(v, 1)) * I
                                         : (float)num(v);
        break;
    case SPT_COMPLEX128:
        ((double _Complex *)buf)[i] = json_is_array(v) ? num(json_array_get(v, 0)) + num(json_array_get(v, 1)) * I
                                                       : num(v);
        break;
    case SPT_STRING:
        ((spt_str *)buf)[i].data = json_is_string(v) ? json_string_value(v) : "";
        ((spt_str *)buf)[i].len = json_is_string(v) ? (int64_t)json_string_length(v) : 0;
        break;
    default: break;
    }
}

/* Flatten a nested list into buf (which has room), checking it is rectangular. */
static bool flatten(const json_t *j, spt_dtype dt, int depth, int rank, const int64_t *dims, void *buf, int64_t *k) {
    if (depth == rank) {
        if (!is_leaf(j, dt)) return false;
        set_elem(dt, buf, (*k)++, j);
        return true;
    }
    if (!json_is_array(j) || (int64_t)json_array_size(j) != dims[depth]) return false;
    for (size_t i = 0; i < json_array_size(j); i++)
        if (!flatten(json_array_get(j, i), dt, depth + 1, rank, dims, buf, k)) return false;
    return true;
}

static int infer_dims(const json_t *j, spt_dtype dt, int64_t *dims) {
    int r = 0;
    while (!is_leaf(j, dt) && r < SPT_MAX_RANK) {
        dims[r++] = (int64_t)json_array_size(j);
        if (json_array_size(j) == 0) break;
        j = json_array_get(j, 0);
    }
    return r;
}

spt_status conf_dense(const json_t *j, spt_dtype dtype, spt_dense **out) {
    int64_t dims[SPT_MAX_RANK];
    *out = NULL;
    if (json_is_object(j) && json_object_get(j, "dims")) {
        long r = conf_ints(json_object_get(j, "dims"), dims, SPT_MAX_RANK);
        if (r < 0) return SPT_EINVAL;
        if (json_is_true(json_object_get(j, "claimed"))) return spt_dense_wrap(dtype, r, dims, NULL, NULL, NULL, out);
        spt_status st = spt_dense_new(dtype, r, dims, out);
        if (st != SPT_OK) return st;
        const char *gen = json_string_value(json_object_get(j, "gen"));
        json_t *data = json_object_get(j, "data");
        void *buf = spt_dense_data_mut(*out);
        int64_t n = spt_dense_size(*out);
        for (int64_t i = 0; i < n; i++) {
            if (data) {
                json_t *v = json_array_get(data, (size_t)i);
                if (v) set_elem(dtype, buf, i, v);
            } else if (gen) {
                json_t *v = NULL;
                if (!strcmp(gen, "ones")) v = json_integer(1);
                else if (!strcmp(gen, "arange")) v = json_integer(i);
                else if (!strcmp(gen, "batch0_arange")) v = json_integer(r == 2 && i % dims[1] == 1 ? i / dims[1] : 0);
                if (v) {
                    set_elem(dtype, buf, i, v);
                    json_decref(v);
                }
            }
        }
        if (dtype == SPT_STRING) { /* make the dense own its strings */
            spt_dense *own;
            st = spt_dense_clone(*out, &own);
            spt_dense_free(*out);
            *out = own;
            return st;
        }
        return SPT_OK;
    }
    int r = infer_dims(j, dtype, dims);
    spt_dense *d;
    spt_status st = spt_dense_new(dtype, r, dims, &d);
    if (st != SPT_OK) return st;
    int64_t k = 0;
    void *tmp = spt_dense_data_mut(d);
    if (!flatten(j, dtype, 0, r, dims, tmp, &k)) {
        spt_dense_free(d);
        return SPT_EINVAL;
    }
    if (dtype == SPT_STRING) {
        st = spt_dense_clone(d, out);
        spt_dense_free(d);
        return st;
    }
    *out = d;
    return SPT_OK;
}

spt_status conf_sparse(const json_t *j, bool validate, spt_tensor **out) {
    spt_dense *ix = NULL, *vals = NULL, *shape = NULL, *order = NULL;
    spt_status st;
    *out = NULL;
    spt_dtype dt = conf_dtype(j, SPT_FLOAT64);
    json_t *jshape = json_object_get(j, "shape");
    if (!jshape) jshape = json_object_get(j, "dense_shape");
    json_t *jix = json_object_get(j, "indices");
    st = conf_dense(jshape, SPT_INT64, &shape);
    if (st != SPT_OK) goto done;
    if (json_is_array(jix) && json_array_size(jix) == 0) {
        int64_t dims[2] = {0, spt_dense_rank(shape) == 1 ? spt_dense_shape(shape)[0] : 0};
        st = spt_dense_new(SPT_INT64, 2, dims, &ix);
    } else {
        st = conf_dense(jix, SPT_INT64, &ix);
    }
    if (st != SPT_OK) goto done;
    st = conf_dense(json_object_get(j, "values"), dt, &vals);
    if (st != SPT_OK) goto done;
    if (json_object_get(j, "order")) {
        st = conf_dense(json_object_get(j, "order"), SPT_INT64, &order);
        if (st != SPT_OK) goto done;
    }
    st = spt_tensor_create(ix, vals, shape, order, out);
    if (st == SPT_OK && validate) {
        st = spt_validate(*out);
        if (st != SPT_OK) {
            spt_tensor_free(*out);
            *out = NULL;
        }
    }
done:
    spt_dense_free(ix);
    spt_dense_free(vals);
    spt_dense_free(shape);
    spt_dense_free(order);
    return st;
}

/* ---- comparing ---- */

static double tolf(const json_t *tol, const char *k, double d) {
    json_t *v = tol ? json_object_get(tol, k) : NULL;
    return v ? json_number_value(v) : d;
}

static bool close_enough(double a, double b, double atol, double rtol) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= atol + rtol * fabs(b);
}

conf_result conf_expect_values(const conf_case *c, const json_t *exp, spt_dtype dt, const void *vals, int64_t n,
                               const json_t *tol) {
    if (!json_is_array(exp) || (int64_t)json_array_size(exp) != n)
        return conf_fail(c, "expected %zu values, got %lld", json_is_array(exp) ? json_array_size(exp) : 0,
                         (long long)n);
    size_t es = spt_dtype_size(dt);
    unsigned char want[16];
    double atol = tolf(tol, "atol", dt == SPT_FLOAT32 || dt == SPT_COMPLEX64 ? 1e-6 : 1e-12);
    double rtol = tolf(tol, "rtol", dt == SPT_FLOAT32 || dt == SPT_COMPLEX64 ? 1e-6 : 1e-12);
    for (int64_t i = 0; i < n; i++) {
        json_t *v = json_array_get(exp, (size_t)i);
        memset(want, 0, sizeof want);
        set_elem(dt, want, 0, v);
        const void *got = (const char *)vals + (size_t)i * es;
        bool ok;
        switch (dt) {
        case SPT_FLOAT32: ok = close_enough(*(const float *)got, *(float *)want, atol, rtol); break;
        case SPT_FLOAT64: ok = close_enough(*(const double *)got, *(double *)want, atol, rtol); break;
        case SPT_COMPLEX64:
            ok = close_enough(crealf(*(const float _Complex *)got), crealf(*(float _Complex *)want), atol, rtol) &&
                 close_enough(cimagf(*(const float _Complex *)got), cimagf(*(float _Complex *)want), atol, rtol);
            break;
        case SPT_COMPLEX128:
            ok = close_enough(creal(*(const double _Complex *)got), creal(*(double _Complex *)want), atol, rtol) &&
                 close_enough(cimag(*(const double _Complex *)got), cimag(*(double _Complex *)want), atol, rtol);
            break;
        case SPT_STRING: {
            const spt_str *a = got, *b = (const spt_str *)want;
            ok = a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, (size_t)a->len) == 0);
            break;
        }
        case SPT_BOOL: ok = (*(const bool *)got != 0) == (*(bool *)want != 0); break;
        default: ok = memcmp(got, want, es) == 0;
        }
        if (!ok) {
            char *s = json_dumps(v, JSON_ENCODE_ANY);
            conf_result r = conf_fail(c, "value %lld differs from expected %s", (long long)i, s ? s : "?");
            free(s);
            return r;
        }
    }
    return CONF_PASS;
}

conf_result conf_expect_sparse(const conf_case *c, const json_t *exp, const spt_tensor *t, const json_t *tol) {
    int64_t shape[SPT_MAX_RANK];
    long r = conf_ints(json_object_get(exp, "shape"), shape, SPT_MAX_RANK);
    if (r < 0) r = conf_ints(json_object_get(exp, "dense_shape"), shape, SPT_MAX_RANK);
    if (r >= 0) {
        if (r != spt_tensor_rank(t)) return conf_fail(c, "rank %lld, expected %ld", (long long)spt_tensor_rank(t), r);
        for (long d = 0; d < r; d++)
            if (shape[d] != spt_tensor_shape(t)[d])
                return conf_fail(c, "shape[%ld] = %lld, expected %lld", d, (long long)spt_tensor_shape(t)[d],
                                 (long long)shape[d]);
    }
    json_t *ji = json_object_get(exp, "indices");
    if (ji) {
        int64_t n = (int64_t)json_array_size(ji), rk = spt_tensor_rank(t);
        if (n != spt_tensor_nnz(t))
            return conf_fail(c, "nnz %lld, expected %lld", (long long)spt_tensor_nnz(t), (long long)n);
        for (int64_t i = 0; i < n; i++) {
            json_t *row = json_array_get(ji, (size_t)i);
            if ((int64_t)json_array_size(row) != rk)
                return conf_fail(c, "index row %lld has the wrong rank", (long long)i);
            for (int64_t d = 0; d < rk; d++)
                if (json_integer_value(json_array_get(row, (size_t)d)) != spt_tensor_indices(t)[i * rk + d])
                    return conf_fail(c, "indices[%lld][%lld] = %lld, expected %lld", (long long)i, (long long)d,
                                     (long long)spt_tensor_indices(t)[i * rk + d],
                                     (long long)json_integer_value(json_array_get(row, (size_t)d)));
        }
    }
    json_t *jv = json_object_get(exp, "values");
    if (jv && conf_expect_values(c, jv, spt_tensor_dtype(t), spt_tensor_values(t), spt_tensor_nnz(t), tol) != CONF_PASS)
        return CONF_FAIL;
    int64_t order[SPT_MAX_RANK];
    long ro = conf_ints(json_object_get(exp, "order"), order, SPT_MAX_RANK);
    for (long d = 0; d < ro; d++)
        if (order[d] != spt_tensor_order(t)[d])
            return conf_fail(c, "order[%ld] = %lld, expected %lld", d, (long long)spt_tensor_order(t)[d],
                             (long long)order[d]);
    return CONF_PASS;
}

conf_result conf_expect_dense(const conf_case *c, const json_t *exp, const spt_dense *d, const json_t *tol) {
    spt_dense *want;
    if (conf_dense(exp, spt_dense_dtype(d), &want) != SPT_OK)
        return conf_fail(c, "cannot read the expected dense array");
    conf_result r = CONF_PASS;
    bool scalar_vs_one = spt_dense_rank(want) == 0 && spt_dense_size(d) == 1;
    if (!scalar_vs_one) {
        if (spt_dense_rank(want) != spt_dense_rank(d))
            r = conf_fail(c, "dense rank %lld, expected %lld", (long long)spt_dense_rank(d),
                          (long long)spt_dense_rank(want));
        else
            for (int64_t k = 0; k < spt_dense_rank(d) && r == CONF_PASS; k++)
                if (spt_dense_shape(d)[k] != spt_dense_shape(want)[k])
                    r = conf_fail(c, "dense dim %lld is %lld, expected %lld", (long long)k,
                                  (long long)spt_dense_shape(d)[k], (long long)spt_dense_shape(want)[k]);
    }
    if (r == CONF_PASS) {
        int64_t n = spt_dense_size(want);
        const char *wv = spt_dense_data(want);
        if (spt_dense_size(d) != n)
            r = conf_fail(c, "dense size %lld, expected %lld", (long long)spt_dense_size(d), (long long)n);
        else {
            json_t *list = json_array();
            /* build a JSON list from `want` so conf_expect_values can apply tolerances */
            for (int64_t i = 0; i < n; i++) {
                json_t *v;
                switch (spt_dense_dtype(d)) {
                case SPT_FLOAT32: v = json_real(((const float *)wv)[i]); break;
                case SPT_FLOAT64: v = json_real(((const double *)wv)[i]); break;
                case SPT_COMPLEX64: {
                    float _Complex z = ((const float _Complex *)wv)[i];
                    v = json_pack("[ff]", (double)crealf(z), (double)cimagf(z));
                    break;
                }
                case SPT_COMPLEX128: {
                    double _Complex z = ((const double _Complex *)wv)[i];
                    v = json_pack("[ff]", creal(z), cimag(z));
                    break;
                }
                case SPT_STRING: {
                    const spt_str *s = (const spt_str *)wv + i;
                    v = json_stringn(s->data, (size_t)s->len);
                    break;
                }
                case SPT_BOOL: v = json_boolean(((const bool *)wv)[i]); break;
                case SPT_UINT64: v = json_integer((json_int_t)((const uint64_t *)wv)[i]); break;
                case SPT_INT8: v = json_integer(((const int8_t *)wv)[i]); break;
                case SPT_INT16: v = json_integer(((const int16_t *)wv)[i]); break;
                case SPT_INT32: v = json_integer(((const int32_t *)wv)[i]); break;
                case SPT_UINT8: v = json_integer(((const uint8_t *)wv)[i]); break;
                case SPT_UINT16: v = json_integer(((const uint16_t *)wv)[i]); break;
                case SPT_UINT32: v = json_integer(((const uint32_t *)wv)[i]); break;
                default: v = json_integer(((const int64_t *)wv)[i]); break;
                }
                json_array_append_new(list, v);
            }
            r = conf_expect_values(c, list, spt_dense_dtype(d), spt_dense_data(d), n, tol);
            json_decref(list);
        }
    }
    spt_dense_free(want);
    return r;
}
