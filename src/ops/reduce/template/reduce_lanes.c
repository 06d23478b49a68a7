/* SPDX-License-Identifier: Apache-2.0 */
/* template/reduce_lanes.c -- one vector form of the float sum's lanes (template/reduce_kernel.c: the lanes'
 * grouping and why). Not compiled on its own: reduce_kernel.c includes it once per form inside its own
 * instantiation (SPT__T, SPT__NAME), with
 *   RL_FN     the function's name
 *   RL_BYTES  the vector's size in bytes (16: SSE2, every x86-64; 32: AVX2)
 *   RL_REP    X-macro over the vectors: SPT__REDUCE_REP16 for 16 bytes, SPT__REDUCE_REP8 for 32 (16 x 16
 *             bytes either way: the same 16 x (16 / sizeof(T)) lanes)
 *   RL_ATTR   the function's target attribute (empty, or SPT__TARGET_AVX2)
 * defined; they are undefined at the end. */

RL_ATTR static void RL_FN(const SPT__T *v, int64_t lo, int64_t hi, void *acc) {
    typedef SPT__T V __attribute__((vector_size(RL_BYTES)));
    enum { W = RL_BYTES / sizeof(SPT__T), L = 16 * (16 / sizeof(SPT__T)) };
#define RL_INIT(m)                                                                                                     \
    V a##m;                                                                                                            \
    memcpy(&a##m, v + lo + (m)*W, RL_BYTES);
    RL_REP(RL_INIT)
#undef RL_INIT
    int64_t i = lo + L;
    for (; hi - i >= L; i += L) {
        if (hi - i > (int64_t)(4096 / sizeof(SPT__T))) /* 4 KiB ahead: each of the group's four cache lines */
            for (int p = 0; p < 4; p++) __builtin_prefetch(v + i + (4096 + 64 * p) / sizeof(SPT__T));
#define RL_ADD(m)                                                                                                      \
    {                                                                                                                  \
        V x;                                                                                                           \
        memcpy(&x, v + i + (m)*W, RL_BYTES);                                                                           \
        a##m = a##m + x;                                                                                               \
    }
        RL_REP(RL_ADD)
#undef RL_ADD
    }
    SPT__T l[L];
#define RL_OUT(m) memcpy(l + (m)*W, &a##m, RL_BYTES);
    RL_REP(RL_OUT)
#undef RL_OUT
    SPT__NAME(lanes_fold)(l, v, i, hi, acc);
}

#undef RL_FN
#undef RL_BYTES
#undef RL_REP
#undef RL_ATTR
