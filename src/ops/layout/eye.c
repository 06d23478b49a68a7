/* SPDX-License-Identifier: Apache-2.0 */
/* eye.c -- tf.sparse.eye: a [num_rows, num_columns] tensor with ones on the main diagonal. */
#include "ops/kernel.h"

#define EYE_OK(KIND) SPT__KINDS_NONSTRING(KIND)

spt_status spt_eye(int64_t num_rows, int64_t num_columns, spt_dtype dtype, spt_tensor **out) {
    static const char fn[] = "spt_eye";
    spt_tensor *o = NULL;
    if (!out) return spt__err(SPT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (num_rows < 0) return spt__err(SPT_EINVAL, "%s: num_rows must be >= 0, got %lld", fn, (long long)num_rows);
    if (num_columns == SPT_UNSET) num_columns = num_rows;
    if (num_columns < 0)
        return spt__err(SPT_EINVAL, "%s: num_columns must be >= 0 or SPT_UNSET, got %lld", fn, (long long)num_columns);
    if ((unsigned)dtype >= SPT_NUM_DTYPES) return spt__err(SPT_EDTYPE, "%s: invalid dtype %d", fn, (int)dtype);
    if (dtype == SPT_STRING) return spt__err(SPT_EDTYPE, "%s: dtype string has no one", fn);
    const int64_t n = num_rows < num_columns ? num_rows : num_columns;
    const int64_t shape[2] = {num_rows, num_columns};
    SPT__TRY(spt__tensor_alloc_uninit(fn, dtype, 2, shape, n, NULL, &o));
    for (int64_t i = 0; i < n; i++) o->indices[2 * i] = o->indices[2 * i + 1] = i;
    switch (dtype) {
#define X(E, name, T, KIND)                                                                                            \
    SPT__WHEN(EYE_OK(KIND), case E : for (int64_t i = 0; i < n; i++)((T *)o->values)[i] = (T)1; break;)
#include "spt_dtypes.def"
#undef X
    default: break;
    }
    spt__set_row_major(o, SPT__F_VALID | SPT__F_SORTED | SPT__F_UNIQUE);
    *out = o;
    return SPT_OK;
}
