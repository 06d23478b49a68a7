#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The -D flags for bench_core: which of the benchmarked ops include/spt.h declares today.
h=${1:-include/spt.h}
f=""
grep -q 'spt_status spt_reduce_sum(' "$h" && f="$f -DSPT_BENCH_HAVE_REDUCE"
grep -q 'spt_status spt_add(' "$h" && f="$f -DSPT_BENCH_HAVE_ADD"
grep -q 'spt_status spt_concat(' "$h" && f="$f -DSPT_BENCH_HAVE_CONCAT"
grep -q 'spt_status spt_sparse_dense_matmul(' "$h" && f="$f -DSPT_BENCH_HAVE_MATMUL"
grep -q 'spt_status spt_mttkrp(' "$h" && f="$f -DSPT_BENCH_HAVE_MTTKRP"
echo "$f"
