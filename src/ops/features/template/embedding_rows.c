/* SPDX-License-Identifier: Apache-2.0 */
/* template/embedding_rows.c -- the row loops of the embedding lookups for one float type. Not compiled on
 * its own: embedding_common.c includes it once for float32 and once for float64, with EMB_T (the C type),
 * EMB_V (its 16-byte vector type) and EMB_NAME(x) (x_f32 / x_f64) defined. It defines
 *   emb_add_rows_<t>  entries [lo, hi): out row row[i] += w[i] * (*src[i]) (src NULL: pruned), with the
 *                     params rows of the entries EMB_AHEAD further on prefetched (the table is read at
 *                     random: memory latency is the cost); always inlined, so the fixed widths
 *                     (embedding_common.c) get loops of their own in 16-byte vectors
 *   emb_add_<t>       that loop for the call's width c->width
 *   emb_finish_<t>    rows [lo, hi) divided as the combiner says (div_no_nan: 0 / 0 gives 0). */

static inline __attribute__((always_inline)) void EMB_NAME(emb_add_rows)(const emb_ctx *c, const void *const *src,
                                                                         const int64_t *row, const double *w,
                                                                         int64_t lo, int64_t hi, int64_t wd, bool vec) {
    enum { L = (int)(sizeof(EMB_V) / sizeof(EMB_T)) };
    const int64_t lines = wd * (int64_t)sizeof(EMB_T) / 64 + 1 < 8 ? wd * (int64_t)sizeof(EMB_T) / 64 + 1 : 8;
    for (int64_t i = lo; i < hi; i++) {
        if (i + EMB_AHEAD < hi && src[i + EMB_AHEAD])
            for (int64_t l = 0; l < lines; l++) __builtin_prefetch((const char *)src[i + EMB_AHEAD] + 64 * l);
        if (!src[i]) continue;
        const EMB_T wt = (EMB_T)w[i];
        if (vec) { /* the same multiply and add per element as the scalar loop */
            const EMB_T *p = src[i];
            EMB_T *o = (EMB_T *)c->out + row[i] * wd;
            for (int k = 0; k < wd; k += L) {
                EMB_V a, b;
                memcpy(&a, p + k, sizeof a);
                memcpy(&b, o + k, sizeof b);
                b += wt * a;
                memcpy(o + k, &b, sizeof b);
            }
        } else {
            const EMB_T *restrict p = src[i];
            EMB_T *restrict o = (EMB_T *)c->out + row[i] * wd;
            for (int64_t k = 0; k < wd; k++) o[k] += wt * p[k];
        }
        ((EMB_T *)c->wsum)[row[i]] += wt;
        ((EMB_T *)c->w2sum)[row[i]] += wt * wt;
    }
}

static void EMB_NAME(emb_add)(const emb_ctx *c, const void *const *src, const int64_t *row, const double *w, int64_t lo,
                              int64_t hi) {
    EMB_NAME(emb_add_rows)(c, src, row, w, lo, hi, c->width, false);
}

static void EMB_NAME(emb_finish)(const emb_ctx *c, int64_t lo, int64_t hi, spt_combiner comb) {
    for (int64_t r = lo; r < hi; r++) {
        EMB_T d = comb == SPT_COMBINER_MEAN ? ((EMB_T *)c->wsum)[r] : (EMB_T)sqrt((double)((EMB_T *)c->w2sum)[r]);
        if (comb == SPT_COMBINER_SUM) continue;
        EMB_T *o = (EMB_T *)c->out + r * c->width;
        for (int64_t k = 0; k < c->width; k++) o[k] = d == 0 ? 0 : o[k] / d; /* div_no_nan */
    }
}
