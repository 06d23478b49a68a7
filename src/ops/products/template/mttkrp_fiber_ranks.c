/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber_ranks.c -- template: the rank dispatch of the fiber kernel (mttkrp_fiber_tmpl.h) for one
 * instruction set. Included with T, SUF, MF(), MF_TARGET (a target attribute, or empty) and MF_NAME (the
 * function's name) defined; never compiled on its own. Ranks 8, 16 and 32 get their own copy with the two
 * accumulators on the stack; any other rank uses the caller's scratch. */
MF_TARGET static void MF(MF_NAME)(const spt__mttkrp_job *j, int64_t lo, int64_t hi, T *scr) {
    switch (j->R) {
    case 8: {
        T a[8], b[8];
        MF(body)(j, lo, hi, a, b, 8);
        break;
    }
    case 16: {
        T a[16], b[16];
        MF(body)(j, lo, hi, a, b, 16);
        break;
    }
    case 32: {
        T a[32], b[32];
        MF(body)(j, lo, hi, a, b, 32);
        break;
    }
    default: MF(body)(j, lo, hi, scr, scr + j->R, j->R);
    }
}
#undef MF_TARGET
#undef MF_NAME
