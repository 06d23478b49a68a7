/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_convert.c -- spt convert: from one file format to another. */
#include "cli.h"

static int run_convert(cli_args *a) {
    if (a->npos == 2) {
        if (cli_opt(a, "output")) return cli_usage_error(a, "give the output either as OUT or with -o, not both");
        if (a->nopt >= CLI_MAX_OPTS) return cli_usage_error(a, "too many options");
        a->opt_name[a->nopt] = "output";
        a->opt_val[a->nopt++] = a->pos[1];
    }
    spt_tensor *t = NULL;
    int rc = cli_is_tfrecord(a, a->pos[0]) ? cli_tfrecord_read_feature(a, a->pos[0], &t) : cli_read(a, a->pos[0], &t);
    if (rc) return rc;
    rc = cli_write(a, t);
    spt_tensor_free(t);
    return rc;
}

const cli_cmd cli_cmd_convert = {
    "convert",
    "convert a tensor between .tns, .mtx, .npy, .npz and binsparse",
    "spt convert [options] IN [OUT]",
    "Read IN and write it to OUT (or -o OUT; default stdout as .tns). Entries keep their stored order and\n"
    "duplicates. A .npy input is sparsified (its non-zero elements); a .npy output is dense.\n\n"
    "options:\n"
    "  -o, --output F   the output file ('-' = stdout)\n"
    "  --format F       input format: tns, mtx, npy, npz, binsparse (default: from the extension; a .npz\n"
    "                   holding binsparse.npy is read as binsparse)\n"
    "  --to F           output format: tns, mtx, npy, npz (pydata/sparse), npz-scipy-coo, npz-scipy-csr,\n"
    "                   binsparse (COO), binsparse-csr, binsparse-csc (default: from the output's\n"
    "                   extension; NAME.bsp.npz is binsparse)\n"
    "  --dtype D        read the values as dtype D (text formats), e.g. int32, float32, complex128\n"
    "  --feature NAME   a .tfrecord input (tf.train.Example records): the feature to write, as the sparse\n"
    "                   tensor of tf.io.VarLenFeature ([records, longest list])\n"
    "  --compression C  a .tfrecord's compression: NONE, ZLIB, GZIP (default: detected)\n",
    "output format to dtype feature compression",
    "",
    1,
    2,
    run_convert};
