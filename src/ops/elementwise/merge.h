/* SPDX-License-Identifier: Apache-2.0 */
/* merge.h -- what the ops of the sparse-sparse union merge (spt_add, spt_subtract, spt_maximum,
 * spt_minimum) include: their value loop is template/merge.c, instantiated per dtype (its first comment
 * says what an op defines before including it); spt__merge2 (ops/kernel.h) runs it. */
#ifndef SPT_OPS_ELEMENTWISE_MERGE_H
#define SPT_OPS_ELEMENTWISE_MERGE_H

#include "ops/kernel.h"

/* spt_add of two canonical operands uses the blocked merge of ops/elementwise/merge_blocks.h instead. */

#endif /* SPT_OPS_ELEMENTWISE_MERGE_H */
