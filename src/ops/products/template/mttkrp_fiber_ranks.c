/* SPDX-License-Identifier: Apache-2.0 */
/* mttkrp_fiber_ranks.c -- template: the rank dispatch of one form of the fiber kernel (mttkrp_fiber_tmpl.h)
 * for one instruction set. Included with T, SUF, MF(), MF_SCATTER (true: the scatter form, false: the
 * grouped one), MF_TARGET (a target attribute, or empty) and MF_NAME (the function's name) defined; never compiled on its own. Ranks
 * 8, 16 and 32 get their own copy with the two accumulators on the stack; any other rank uses the
 * caller's scratch (2 * R elements). */
MF_TARGET static void MF(MF_NAME)(const spt__mttkrp_job *j, int64_t lo, int64_t hi, T *o, T *scr) {
    switch (j->R) {
    case 8: {
        T a[8], b[8];
        MF(kernel)(j, lo, hi, o, a, b, 8, MF_SCATTER);
        break;
    }
    case 16: {
        T a[16], b[16];
        MF(kernel)(j, lo, hi, o, a, b, 16, MF_SCATTER);
        break;
    }
    case 32: {
        T a[32], b[32];
        MF(kernel)(j, lo, hi, o, a, b, 32, MF_SCATTER);
        break;
    }
    default: MF(kernel)(j, lo, hi, o, scr, scr + j->R, j->R, MF_SCATTER);
    }
}
#undef MF_TARGET
#undef MF_NAME
