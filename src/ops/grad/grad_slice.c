/* SPDX-License-Identifier: Apache-2.0 */
/* grad_slice.c -- spt_slice_grad (TensorFlow's SparseSliceGrad): the value gradient of spt_slice's
 * input. spt_slice keeps the entries inside the box in input order, so one walk of the input against
 * the output pairs them. */
#include "ops/grad/grad_internal.h"

spt_status spt_slice_grad(const spt_dense *backprop_val_grad, const spt_tensor *input, const int64_t *start,
                          const spt_tensor *output, spt_dense **val_grad) {
    static const char fn[] = "spt_slice_grad";
    if (!val_grad) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *val_grad = NULL;
    if (!input || !output || (!start && input->rank > 0)) return spt__err(SPT_EINVAL, "%s: NULL argument", fn);
    SPT__TRY(spt__grad_dtype(fn, input->dtype));
    if (output->dtype != input->dtype) return spt__err(SPT_EDTYPE, "%s: input and output dtypes differ", fn);
    const int64_t r = input->rank;
    if (output->rank != r) return spt__err(SPT_EINVAL, "%s: input and output ranks differ", fn);
    for (int64_t d = 0; d < r; d++)
        if (start[d] < 0)
            return spt__err(SPT_EINVAL, "%s: start[%lld] = %lld is negative", fn, (long long)d, (long long)start[d]);
    SPT__TRY(spt__grad_vec(fn, "backprop_val_grad", backprop_val_grad, input->dtype, output->nnz));
    SPT__TRY(spt__ensure_valid(fn, input));
    spt_dense *g = NULL;
    SPT__TRY(spt__grad_new_vec(input->dtype, input->nnz, &g));
    int64_t j = 0;
    for (int64_t i = 0; i < input->nnz && j < output->nnz; i++) {
        const int64_t *row = input->indices + i * r, *orow = output->indices + j * r;
        bool match = true;
        for (int64_t d = 0; d < r && match; d++) match = row[d] - start[d] == orow[d]; /* both in range: no overflow */
        if (match) spt__gs(input->dtype, g->data, i, spt__gv(input->dtype, backprop_val_grad->data, j++));
    }
    if (j != output->nnz) {
        spt_dense_free(g);
        return spt__err(SPT_EINVAL,
                        "%s: output entry %lld is not an entry of the input shifted by start (output must "
                        "be spt_slice(input, start, ...))",
                        fn, (long long)j);
    }
    *val_grad = g;
    return SPT_OK;
}
