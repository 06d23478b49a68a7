/* ops_layout.c -- conformance handlers for the layout ops (filled in as the ops land). */
#include "conf.h"

const conf_op conf_ops_layout[] = {
    {NULL, NULL},
};
