/* ops_tot.c -- conformance handlers for the tot ops (filled in as the ops land). */
#include "conf.h"

const conf_op conf_ops_tot[] = {
    {NULL, NULL},
};
