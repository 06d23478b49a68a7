/* ops_math.c -- conformance handlers for the math ops (filled in as the ops land). */
#include "conf.h"

const conf_op conf_ops_math[] = {
    {NULL, NULL},
};
