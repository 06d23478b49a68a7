/* SPDX-License-Identifier: Apache-2.0 */
/* merge.h -- the value loop of the sparse-sparse union merge (spt_add, spt_maximum, spt_minimum),
 * instantiated once per supported dtype.
 *
 * SPT__DEF_MERGE(NAME, T, BOTH, AONLY, BONLY, KEEP) defines
 *   static int64_t NAME(const spt__merge_ctx *m, int64_t i, int64_t ie, int64_t j, int64_t je, int64_t w, bool write)
 * which walks the sorted keys a[i, ie) and b[j, je) in one pass: an index held by both gives
 * s = BOTH(x, y) and is kept iff KEEP(T, s) (KEEP may read m->thresh); an index held by one side gives
 * AONLY(x) / BONLY(y), always kept. With `write`, entry c goes to output position w + c (its index row
 * copied from its source). Returns the number of output entries. */
#ifndef SPT_OPS_ELEMENTWISE_MERGE_H
#define SPT_OPS_ELEMENTWISE_MERGE_H

#include "ops/kernel.h"

#define SPT__DEF_MERGE(NAME, T, BOTH, AONLY, BONLY, KEEP)                                               \
    static int64_t NAME(const spt__merge_ctx *m, int64_t i, int64_t ie, int64_t j, int64_t je, int64_t w,  \
                        bool write) {                                                                     \
        const T *va_ = m->va, *vb_ = m->vb;                                                               \
        T *ov_ = m->ov;                                                                                   \
        const uint64_t *ka_ = m->ka, *kb_ = m->kb;                                                        \
        const int64_t r_ = m->rank;                                                                       \
        int64_t c_ = 0;                                                                                   \
        while (i < ie || j < je) {                                                                        \
            const int64_t *row_;                                                                          \
            T s_;                                                                                         \
            if (j >= je || (i < ie && ka_[i] < kb_[j])) {                                                 \
                int64_t e_ = m->pa ? m->pa[i] : i;                                                        \
                s_ = AONLY(va_[e_]);                                                                      \
                row_ = m->ia + e_ * r_;                                                                   \
                i++;                                                                                      \
            } else if (i >= ie || kb_[j] < ka_[i]) {                                                      \
                int64_t e_ = m->pb ? m->pb[j] : j;                                                        \
                s_ = BONLY(vb_[e_]);                                                                      \
                row_ = m->ib + e_ * r_;                                                                   \
                j++;                                                                                      \
            } else {                                                                                      \
                int64_t e_ = m->pa ? m->pa[i] : i, f_ = m->pb ? m->pb[j] : j;                             \
                s_ = BOTH(va_[e_], vb_[f_]);                                                              \
                row_ = m->ia + e_ * r_;                                                                   \
                i++;                                                                                      \
                j++;                                                                                      \
                if (!(KEEP(T, s_))) continue;                                                                \
            }                                                                                             \
            if (write) {                                                                                  \
                int64_t *dst_ = m->oi + (w + c_) * r_;                                                    \
                for (int64_t d_ = 0; d_ < r_; d_++) dst_[d_] = row_[d_];                                  \
                ov_[w + c_] = s_;                                                                         \
            }                                                                                             \
            c_++;                                                                                         \
        }                                                                                                 \
        return c_;                                                                                        \
    }

/* spt_add of two canonical operands uses the blocked merge of ops/elementwise/merge_blocks.h instead. */

#endif /* SPT_OPS_ELEMENTWISE_MERGE_H */
