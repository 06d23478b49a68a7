/* SPDX-License-Identifier: Apache-2.0 */
/* each_dtype.h -- instantiate a template file once per dtype that an op supports. Before including it, an
 * op file defines SPT__TEMPLATE (the template's path, e.g. "ops/products/template/spgemm_rows.c") and
 * OK(KIND) (its set of dtype kinds, ops/kernel.h). For each dtype of include/spt_dtypes.def whose kind
 * OK keeps, in that order, the template is included with
 *   SPT__E     the dtype's enum (SPT_INT8, ...)
 *   SPT__T     its C type (int8_t, ...)
 *   SPT__KIND  its kind (BOOL, INT, UINT, FLOAT, COMPLEX, STRING)
 * defined; SPT__NAME(x) (ops/kernel.h) then names the instantiation's functions x_<enum> (x_SPT_INT8), the
 * names an op's X-macro table over spt_dtypes.def refers to. SPT__TEMPLATE is undefined at the end.
 * Not guarded: included once per template. The rows follow include/spt_dtypes.def one for one
 * (tools/check-src-shape.py checks it). */
#include "ops/kernel.h"

#if OK(BOOL)
#define SPT__E SPT_BOOL
#define SPT__T bool
#define SPT__KIND BOOL
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(INT)
#define SPT__E SPT_INT8
#define SPT__T int8_t
#define SPT__KIND INT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(INT)
#define SPT__E SPT_INT16
#define SPT__T int16_t
#define SPT__KIND INT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(INT)
#define SPT__E SPT_INT32
#define SPT__T int32_t
#define SPT__KIND INT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(INT)
#define SPT__E SPT_INT64
#define SPT__T int64_t
#define SPT__KIND INT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(UINT)
#define SPT__E SPT_UINT8
#define SPT__T uint8_t
#define SPT__KIND UINT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(UINT)
#define SPT__E SPT_UINT16
#define SPT__T uint16_t
#define SPT__KIND UINT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(UINT)
#define SPT__E SPT_UINT32
#define SPT__T uint32_t
#define SPT__KIND UINT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(UINT)
#define SPT__E SPT_UINT64
#define SPT__T uint64_t
#define SPT__KIND UINT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(FLOAT)
#define SPT__E SPT_FLOAT32
#define SPT__T float
#define SPT__KIND FLOAT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(FLOAT)
#define SPT__E SPT_FLOAT64
#define SPT__T double
#define SPT__KIND FLOAT
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(COMPLEX)
#define SPT__E SPT_COMPLEX64
#define SPT__T float _Complex
#define SPT__KIND COMPLEX
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(COMPLEX)
#define SPT__E SPT_COMPLEX128
#define SPT__T double _Complex
#define SPT__KIND COMPLEX
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#if OK(STRING)
#define SPT__E SPT_STRING
#define SPT__T spt_str
#define SPT__KIND STRING
#include SPT__TEMPLATE
#undef SPT__E
#undef SPT__T
#undef SPT__KIND
#endif

#undef SPT__TEMPLATE
